"""Three ways of asking a judge about one answer, as the rubric-evaluation article cited
in ``docs/validation.md`` compares them: ``likert``, a 1–5 rating of the last assistant
response under general guidelines or under specific criteria, and ``rubric``, one
yes/no verdict per ± point rubric item (HealthBench's scoring)."""
