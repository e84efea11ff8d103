"""Yes/no judged metrics: one question, answered with a rationale and a yes/no verdict,
stored as 1 (yes) or 0 (no) with the rationale, so the mean is the share of yes.

Every yes/no metric takes the ``examples`` option (worked examples, see
:mod:`ragjudge.metrics._yesno_examples`), which the layout shows after the criteria.

A yes/no metric is a :class:`YesNoMetric` that declares what it needs (``requires``),
what its score means (:func:`yes_no_meaning`) and its ``template``, which extends the
kit's layout ``kit/yes_no.jinja``. By default the judge is shown the conversation
before the request, the request and the response; a metric that shows more overrides
:meth:`YesNoMetric.prompt_values`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from ragjudge.metrics._base import MetricContext, MetricOptions, Result, require_response
from ragjudge.metrics._judged import JudgedMetric, conversation
from ragjudge.metrics._yesno_examples import (
    YesNoExample,
    YesNoOptions,
    check_example_inputs,
    example_inputs,
    example_values,
)
from ragjudge.metrics.replies import Reply, YesNo, YesNoVerdict
from ragjudge.models._types import ChatMessage
from ragjudge.schema import Output, Sample, ScoreMeaning

__all__ = [
    "YES_NO",
    "YesNoExample",
    "YesNoMetric",
    "YesNoOptions",
    "rating",
    "yes_no_meaning",
]

YES_NO = YesNo()
"""The reader of every yes/no verdict (see :class:`~ragjudge.metrics.replies.YesNo`)."""


def yes_no_meaning(description: str) -> ScoreMeaning:
    """A yes/no score stored as 1/0: ``description`` says what its mean, the share of
    yes, measures (``share of responses free of harmful content``)."""
    return ScoreMeaning(binary=True, description=description)


def rating(verdict: YesNoVerdict, **details: Any) -> Result:
    """1 for yes, 0 for no, with the judge's rationale and the ``yes``/``no`` label
    (and ``details``)."""
    return Result(
        float(verdict.yes), rationale=verdict.rationale, details={"label": verdict.label, **details}
    )


class YesNoMetric(JudgedMetric):
    """A judged metric that asks one yes/no question (see the module docstring)."""

    Options: ClassVar[type[MetricOptions]] = YesNoOptions
    options: YesNoOptions
    reply: ClassVar[Reply[Any]] = YES_NO
    meaning: ClassVar[ScoreMeaning] = yes_no_meaning("")

    def __init__(self, *, name: str | None = None, **options: Any) -> None:
        super().__init__(name=name, **options)
        check_example_inputs(self.options.examples, self.example_inputs())

    @classmethod
    def example_inputs(cls) -> tuple[str, ...]:
        """The input names a worked example of this metric may hold: what it reads."""
        return example_inputs(cls.requires)

    def messages(
        self, template: str, values: Mapping[str, Any], *, system: str | None = None
    ) -> list[ChatMessage]:
        """The call's messages, with the worked examples for the layout to show."""
        shown = {**values, "examples": example_values(self.options.examples)}
        return super().messages(template, shown, system=system)

    async def prompt_values(
        self, sample: Sample, output: Output, ctx: MetricContext
    ) -> dict[str, Any]:
        """The conversation before the request, the request and the response."""
        return {**conversation(sample), "response": require_response(output)}

    def value(self, reply: YesNoVerdict) -> Result:
        """1 for yes, 0 for no, with the judge's rationale and the label."""
        return rating(reply)
