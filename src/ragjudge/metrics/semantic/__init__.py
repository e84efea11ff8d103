"""Metrics built on embeddings of the texts (BERTScore)."""
