"""Retrieval metrics without a judge: rank metrics over document ids (``hit_at_k``,
``recall_at_k``, ``precision_at_k``, ``mrr``, ``ndcg_at_k``) and context precision and
recall by matching the retrieved chunks with the reference contexts
(``matched_context_precision``, ``matched_context_recall``).

:mod:`ragjudge.metrics.retrieval._documents` reads document ids and grades, shared
with ``document_recall``."""
