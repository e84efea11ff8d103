"""Judges of seed 003 ("LLM-as-a-Judge and rubric evaluation"): ``likert``, a 1–5
rating of the last assistant response under general guidelines (method 1) or specific
criteria (method 2), and ``rubric``, one yes/no verdict per ± point rubric item
(method 3, HealthBench's scoring)."""
