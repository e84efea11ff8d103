"""Score names an older version stored, and the names they have now: the one table of
renamed scores. Stores are brought up to the current names when opened
(:mod:`ragjudge.store._renames`), and a name a user gives (a gate, ``--metric``,
``assert_metric``) is read through :func:`current_score_name`, so either name works and
the current one is shown."""

from __future__ import annotations

import re
from collections.abc import Mapping

__all__ = ["RENAMED_SCORES", "current_score_name"]

RENAMED_SCORES: Mapping[str, str] = {
    # Databricks Agent Evaluation's exact names
    "retrieval/llm_judged/chunk_relevance_precision": "retrieval/llm_judged/chunk_relevance/precision",
    "agent/input_token_count": "agent/total_input_token_count",
    "agent/output_token_count": "agent/total_output_token_count",
}
"""Old score name → current score name."""

# a stored name is the declared one, optionally prefixed "INSTANCE." (a renamed metric)
# and suffixed "@JUDGE" (a named judge): an old name is replaced only as a whole part
_OLD_NAME = re.compile(
    r"(?:^|(?<=\.))(" + "|".join(re.escape(old) for old in RENAMED_SCORES) + r")(?=$|@)"
)


def current_score_name(name: str) -> str:
    """``name`` with an old score name in it replaced by the current one
    (``retrieval/llm_judged/chunk_relevance_precision`` →
    ``retrieval/llm_judged/chunk_relevance/precision``, also inside ``NAME.…@JUDGE``);
    any other name unchanged."""
    return _OLD_NAME.sub(lambda m: RENAMED_SCORES[m.group(1)], name)
