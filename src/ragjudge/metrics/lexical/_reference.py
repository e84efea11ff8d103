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
from collections.abc import Callable, Iterable
from typing import Any, ClassVar, Generic, NamedTuple, TypeVar

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
    answer_and_tokens_of_folded,
    fold,
    normalize,
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


T = TypeVar("T")


class _computed_once(Generic[T]):
    """A form computed on first use and kept in the instance's ``__dict__``, which
    later reads find first: ``functools.cached_property`` without its lock, which this
    version of Python takes on every first use (a sample's texts are one thread's)."""

    def __init__(self, compute: Callable[[Any], T]) -> None:
        self._compute = compute
        self._name = compute.__name__
        self.__doc__ = compute.__doc__

    def __get__(self, instance: Any, owner: type | None = None) -> T:
        value = instance.__dict__[self._name] = self._compute(instance)
        return value


class TextForms:
    """One text with its normalised forms and tokens, each computed on first use."""

    def __init__(self, text: str) -> None:
        self.text = text

    @_computed_once
    def folded(self) -> str:
        """:func:`~ragjudge.text._normalise.fold` of the text (NFKC, lowercase), the first step of
        the forms below."""
        return fold(self.text)

    @_computed_once
    def normalized(self) -> str:
        """:func:`~ragjudge.text._normalise.normalize` of the text."""
        return normalize(self.text)

    @_computed_once
    def answer(self) -> str:
        """:func:`~ragjudge.text._normalise.normalize_answer` of the text."""
        return self._answer_forms()[0]

    @_computed_once
    def tokens(self) -> list[str]:
        """:func:`~ragjudge.text._normalise.tokenize` of the text."""
        return tokens_of_folded(self.folded)

    @_computed_once
    def answer_tokens(self) -> list[str]:
        """The tokens of :attr:`answer`."""
        return self._answer_forms()[1]

    @_computed_once
    def token_counts(self) -> Counter[str]:
        """How often each of :attr:`tokens` occurs."""
        return Counter(self.tokens)

    @_computed_once
    def answer_token_counts(self) -> Counter[str]:
        """How often each of :attr:`answer_tokens` occurs."""
        return Counter(self.answer_tokens)

    def _answer_forms(self) -> tuple[str, list[str]]:
        """:attr:`answer` and :attr:`answer_tokens`, computed and kept together."""
        answer, tokens = answer_and_tokens_of_folded(self.folded)
        self.__dict__.update(answer=answer, answer_tokens=tokens)
        return answer, tokens


class SampleTexts:
    """The :class:`TextForms` of one sample's texts, shared by its lexical metrics."""

    def __init__(self) -> None:
        self._forms: dict[str, TextForms] = {}
        self._compared: tuple[Sample, Output, TextForms, list[tuple[int, TextForms]]] | None
        self._compared = None

    def of(self, text: str) -> TextForms:
        """The forms of ``text`` (the same object for the same text)."""
        found = self._forms.get(text)
        if found is None:
            found = self._forms[text] = TextForms(text)
        return found

    def compared(
        self, sample: Sample, output: Output
    ) -> tuple[TextForms, list[tuple[int, TextForms]]]:
        """The forms of the response and of each non-blank reference with its position
        in ``expected_response``: found once for the sample and output last asked about
        (every lexical metric of a sample asks), :class:`MetricFailure` when the response
        is missing or every reference is blank."""
        kept = self._compared
        if kept is not None and kept[0] is sample and kept[1] is output:
            return kept[2], kept[3]
        response = self.of(require_response(output))
        found = [(index, self.of(reference)) for index, reference in references(sample)]
        self._compared = (sample, output, response, found)
        return response, found


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
        """Score the response against every reference and keep the best comparison (the
        first on ties)."""
        answer, found = ctx.once_now(_SAMPLE_TEXTS, SampleTexts).compared(sample, output)
        best: Comparison | None = None
        best_index = 0
        for index, reference in found:
            comparison = self.compare_forms(answer, reference)
            if comparison is not None and (best is None or comparison.value > best.value):
                best, best_index = comparison, index
        if best is None:
            raise MetricFailure("no reference answer has anything to compare after normalisation")
        return Result(best.value, details={"reference_index": best_index, **best.components})

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
    shared = first.keys() & second.keys()
    return sum(map(min, map(first.__getitem__, shared), map(second.__getitem__, shared)))


def as_score(matched: bool) -> float:
    """1.0 for a match, 0.0 otherwise."""
    return 1.0 if matched else 0.0
