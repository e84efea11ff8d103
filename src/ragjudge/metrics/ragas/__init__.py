"""The RAG metrics of RAGAS: faithfulness, answer relevancy, context relevancy,
recall, precision and utilization, answer similarity and answer correctness, and the
claim-level diagnostics factual correctness, noise sensitivity and context entity
recall — with fewer judge calls per sample than their originals, and explicit errors
instead of NaN."""
