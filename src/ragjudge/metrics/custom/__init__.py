"""Custom judges: a judge of your own criteria and scale, written as data (a YAML file
or the metric's options) instead of Python — criteria, optional evaluation steps
(given, or written once per run by the judge from the criteria), a scale (a range of
whole numbers, yes/no, or labels with scores), worked examples and the inputs it reads.
When the judge endpoint returns token log probabilities, a scale judge reports the
probability-weighted score beside the most likely one."""
