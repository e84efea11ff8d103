"""Model-graded classification from specs (openai-evals' ModelBasedClassify templates).

A spec is data — YAML in the openai-evals ``modelgraded`` layout, a mapping of spec
names to these fields:

- ``prompt`` (required): the grading prompt, a string or a list of chat messages
  (``{role, content}``). ``{key}`` slots are filled from the sample (``input``,
  ``completion``, ``ideal``, ``expected_facts``, ``contexts``, ``expected_contexts``,
  any metadata key), from ``input_outputs`` and from ``args``; ``{{``/``}}`` are
  braces. The prompt and args are trusted text; every value from the data goes into
  the prompt as a delimited block named after its slot.
- ``choice_strings`` (required): ``"ABCDE"`` (one choice per character) or a list;
  ``from_n``/``from_n_abc``/``from_n_ABC``: one choice per completion.
- ``choice_scores``: a mapping choice → score, or ``from_strings`` (each choice read
  as a number). Without it the metric reports choice shares only.
- ``scorings``: further named choice-score mappings a metric may pick
  (``choice_scores: NAME``).
- ``eval_type``: ``cot_classify`` (reasoning, then the choice; the default),
  ``classify_cot`` (the choice, then reasoning) or ``classify`` (the choice only).
  When the spec names it, an answer instruction in the prompt's language is appended
  (``answer_instruction: false`` turns that off).
- ``input_outputs``: input slot → completion slot (default ``{input: completion}``);
  the first pair is the row's request and response, the others come from the row's
  metadata or from the target.
- ``args``: slot → value, or slot → {name: value}: one judge call per combination.
- ``completion_sample_templates`` (or ``output_template``) with ``multicomp_n``:
  several completions per sample, each placed by the template (``{i}``, ``{i_abc}``,
  ``{i_ABC}``, ``{n}``, ``{output}``).
- ``language`` (``auto``, ``en``, ``ja``), ``description``.

Built-in specs: ``fact``, ``closedqa``, ``battle`` and their Japanese twins ``fact_ja``,
``closedqa_ja``, ``battle_ja`` (``specs/``).
"""

from ragjudge.metrics.classify._library import (
    BUILTIN_DIR,
    DuplicateKeyWarning,
    find_spec,
    list_specs,
)
from ragjudge.metrics.classify._spec import ClassifySpec, SpecError, build_spec
from ragjudge.metrics.classify.classify import Classify, ClassifyOptions, arg_sets

__all__ = [
    "BUILTIN_DIR",
    "Classify",
    "ClassifyOptions",
    "ClassifySpec",
    "DuplicateKeyWarning",
    "SpecError",
    "arg_sets",
    "build_spec",
    "find_spec",
    "list_specs",
]
