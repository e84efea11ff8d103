"""What the lexical metrics share: compare the response with every reference answer
and keep the best comparison.

Every lexical metric needs a ``response`` and an ``expected_response`` (one or more
reference answers), scores the response against each reference and keeps the best;
``details["reference_index"]`` names that reference (its position in
``expected_response``; the first one on ties). They make no judge calls.

An empty response is a legitimate, wrong answer and scores 0 (no match). A missing
response, or references that are all empty, give an error score instead. A reference
left with nothing to compare after the metric's normalisation (say ``"。"`` for a
token metric) is skipped; when every reference is skipped the score is an error.

The lexical metrics of one sample share the work on its texts: each text is
normalised and tokenised once (:class:`TextForms`, kept in the sample's
:meth:`MetricContext.once`), however many metrics compare it.
"""

from __future__ import annotations

from abc import abstractmethod
from collections import Counter
from collections.abc import Iterable
from functools import cached_property
from typing import Any, ClassVar, NamedTuple

from ragjudge.metrics._base import (
    Metric,
    MetricContext,
    MetricFailure,
    MetricOptions,
    Result,
    references,
    require_response,
)
from ragjudge.schema import Output, Sample, ScoreMeaning
from ragjudge.text._normalise import (
    answer_of_folded,
    fold,
    normalize,
    tokens_of_answer,
    tokens_of_folded,
)

__all__ = [
    "Comparison",
    "NormalizeOptions",
    "ReferenceMetric",
    "SampleTexts",
    "TextForms",
    "as_score",
    "overlap",
]


class TextForms:
    """One text with its normalised forms and tokens, each computed on first use."""

    def __init__(self, text: str) -> None:
        self.text = text

    @cached_property
    def folded(self) -> str:
        """:func:`~ragjudge.text._normalise.fold` of the text (NFKC, lowercase), the first step of
        the forms below."""
        return fold(self.text)

    @cached_property
    def normalized(self) -> str:
        """:func:`~ragjudge.text._normalise.normalize` of the text."""
        return normalize(self.text)

    @cached_property
    def answer(self) -> str:
        """:func:`~ragjudge.text._normalise.normalize_answer` of the text."""
        return answer_of_folded(self.folded)

    @cached_property
    def tokens(self) -> list[str]:
        """:func:`~ragjudge.text._normalise.tokenize` of the text."""
        return tokens_of_folded(self.folded)

    @cached_property
    def answer_tokens(self) -> list[str]:
        """The tokens of :attr:`answer`."""
        return tokens_of_answer(self.answer)

    @cached_property
    def token_counts(self) -> Counter[str]:
        """How often each of :attr:`tokens` occurs."""
        return Counter(self.tokens)

    @cached_property
    def answer_token_counts(self) -> Counter[str]:
        """How often each of :attr:`answer_tokens` occurs."""
        return Counter(self.answer_tokens)


class SampleTexts:
    """The :class:`TextForms` of one sample's texts, shared by its lexical metrics."""

    def __init__(self) -> None:
        self._forms: dict[str, TextForms] = {}

    def of(self, text: str) -> TextForms:
        """The forms of ``text`` (the same object for the same text)."""
        found = self._forms.get(text)
        if found is None:
            found = self._forms[text] = TextForms(text)
        return found


_SAMPLE_TEXTS = "lexical metrics: the sample's texts"
"""The key of the sample's :class:`SampleTexts` in :meth:`MetricContext.once_now`."""


class Comparison(NamedTuple):
    """The response compared with one reference: the value and its components."""

    value: float
    components: dict[str, Any]


class NormalizeOptions(MetricOptions):
    """Whether both texts are normalised before they are compared."""

    normalize: bool = True


class ReferenceMetric(Metric):
    """Base for metrics that compare the response with each reference answer."""

    pipeline_parts = ("end to end",)

    requires: tuple[str, ...] = ("response", "expected_response")
    meaning: ClassVar[ScoreMeaning] = ScoreMeaning(low=0, high=1)
    inline: ClassVar[bool] = True

    def compute_now(self, sample: Sample, output: Output, ctx: MetricContext) -> Result:
        """Score the response against every reference and keep the best comparison."""
        response = require_response(output)
        texts = ctx.once_now(_SAMPLE_TEXTS, SampleTexts)
        answer = texts.of(response)
        scored = [
            (index, comparison)
            for index, reference in references(sample)
            if (comparison := self.compare_forms(answer, texts.of(reference))) is not None
        ]
        if not scored:
            raise MetricFailure("no reference answer has anything to compare after normalisation")
        index, best = max(scored, key=lambda pair: pair[1].value)
        return Result(best.value, details={"reference_index": index, **best.components})

    def compare(self, response: str, reference: str) -> Comparison | None:
        """Compare the response with one non-blank reference; None skips the reference."""
        return self.compare_forms(TextForms(response), TextForms(reference))

    @abstractmethod
    def compare_forms(self, response: TextForms, reference: TextForms) -> Comparison | None:
        """:meth:`compare` on the texts' shared forms."""


def overlap(answer: Iterable[str], wanted: Iterable[str]) -> int:
    """Tokens shared by both sequences, each counted at most as often as on either side
    (either may be given as a :class:`~collections.Counter` of its tokens)."""
    first = answer if isinstance(answer, Counter) else Counter(answer)
    second = wanted if isinstance(wanted, Counter) else Counter(wanted)
    return sum(min(first[token], second[token]) for token in first.keys() & second.keys())


def as_score(matched: bool) -> float:
    """1.0 for a match, 0.0 otherwise."""
    return 1.0 if matched else 0.0
