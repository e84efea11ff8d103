"""How metrics read judge replies: one parser per reply form, each with a stand-in reply
for dry runs derived from the form itself.

- :class:`ResultScore` — ``Feedback: … [RESULT] n`` (and ``… Score: n``);
- :class:`JsonReply` — a JSON object checked against a pydantic model;
- :class:`YesNo` — a yes/no verdict with its rationale;
- :class:`ChoiceReply` / :func:`scan_choice` — a choice among strings (model-graded
  classification).

Every parser raises :class:`ParseError` for a reply it cannot read; the metric kit
re-asks the judge and then records an explicit error, never a default value.
"""

from ragjudge.metrics.replies._base import ParseError, Reply, without_quotes
from ragjudge.metrics.replies._choice import EVAL_TYPES, ChoiceReply, scan_choice
from ragjudge.metrics.replies._json import JsonReply, parse_json_object
from ragjudge.metrics.replies._result import ResultScore, ResultVerdict
from ragjudge.metrics.replies._yesno import YesNo, YesNoVerdict
from ragjudge.schema import INVALID_CHOICE

__all__ = [
    "EVAL_TYPES",
    "INVALID_CHOICE",
    "ChoiceReply",
    "JsonReply",
    "ParseError",
    "Reply",
    "ResultScore",
    "ResultVerdict",
    "YesNo",
    "YesNoVerdict",
    "parse_json_object",
    "scan_choice",
    "without_quotes",
]
