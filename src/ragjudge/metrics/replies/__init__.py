"""How metrics read judge replies: one parser per reply form, each with a stand-in reply
for dry runs derived from the form itself.

- :class:`ResultScore` — ``Feedback: … [RESULT] n`` (and ``… Score: n``);
- :class:`JsonReply` — the judge's JSON document checked against a pydantic model;
- :class:`YesNo` — a yes/no verdict with its rationale;
- :class:`ChoiceReply` / :func:`scan_choice` — a choice among strings (model-graded
  classification).

A verdict has one form and place per reply kind — a line of its own (or the clause
that ends a line), or the judge's own JSON document — and only the judge can give it:
a mention inside a sentence is no verdict, text that reproduces the evaluated data is
never a candidate (the kit passes the delimited texts as :class:`Evaluated`), and the
judge's own verdicts must agree. Every parser raises :class:`ParseError` for a reply it
cannot read; the metric kit re-asks the judge and then records an explicit error,
never a default value, and never a verdict taken from the data. Every scan is linear in
the reply's length; the judge settings cap the length read (``max_reply_chars``).
"""

from ragjudge.metrics.replies._base import ParseError, Reply, without_quotes
from ragjudge.metrics.replies._choice import EVAL_TYPES, ChoiceReply, scan_choice
from ragjudge.metrics.replies._data import Evaluated
from ragjudge.metrics.replies._json import JsonReply, YesNoWord, parse_json_object
from ragjudge.metrics.replies._result import ResultScore, ResultVerdict
from ragjudge.metrics.replies._yesno import YesNo, YesNoVerdict
from ragjudge.schema import INVALID_CHOICE

__all__ = [
    "EVAL_TYPES",
    "INVALID_CHOICE",
    "ChoiceReply",
    "Evaluated",
    "JsonReply",
    "ParseError",
    "Reply",
    "ResultScore",
    "ResultVerdict",
    "YesNo",
    "YesNoVerdict",
    "YesNoWord",
    "parse_json_object",
    "scan_choice",
    "without_quotes",
]
