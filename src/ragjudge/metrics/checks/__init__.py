"""Checks: deterministic tests of the response (a pattern, given words, an opening, the
edit distance to a reference, valid JSON, a JSON schema) and of the system under test
(its latency and cost per sample). No judge; each score is known from the row alone."""
