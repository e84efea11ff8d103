"""Lexical metrics: compare the response with the reference answers word by word (see
:mod:`ragjudge.metrics.lexical._reference` for the rules they share)."""
