"""Lexical metrics: compare the response with the reference answers word by word.

Every metric here needs a ``response`` and an ``expected_response`` (one or more
reference answers), scores the response against each reference and keeps the best;
``details["reference_index"]`` names that reference (its position in
``expected_response``; the first one on ties). They make no judge calls.

An empty response is a legitimate, wrong answer and scores 0 (no match). A missing
response, or references that are all empty, give an error score instead. A reference
left with nothing to compare after the metric's normalisation (say ``"。"`` for a
token metric) is skipped; when every reference is skipped the score is an error.
"""

from __future__ import annotations

from abc import abstractmethod
from collections import Counter
from collections.abc import Iterable
from functools import cache
from typing import Any, NamedTuple

from ragjudge.metrics._base import (
    Metric,
    MetricContext,
    register_metric,
    response_and_references,
)
from ragjudge.schema import Output, Sample, Score
from ragjudge.text import normalize, normalize_answer, tokenize

__all__ = [
    "ExactMatch",
    "FuzzyMatch",
    "Includes",
    "Match",
    "RougeL",
    "TokenF1",
    "WordRecall",
]


class Comparison(NamedTuple):
    """The response compared with one reference: the value and its components."""

    value: float
    components: dict[str, Any]


class ReferenceMetric(Metric):
    """Base for metrics that compare the response with each reference answer."""

    requires: tuple[str, ...] = ("response", "expected_response")

    async def score(self, sample: Sample, output: Output, ctx: MetricContext) -> Score:
        """Score the response against every reference and keep the best comparison."""
        found = response_and_references(self.name, sample, output)
        if isinstance(found, Score):
            return found
        response, references = found
        scored = [
            (index, comparison)
            for index, reference in references
            if (comparison := self.compare(response, reference)) is not None
        ]
        if not scored:
            return Score.failed(
                self.name, "no reference answer has anything to compare after normalisation"
            )
        index, best = max(scored, key=lambda pair: pair[1].value)
        details = {"reference_index": index, **best.components}
        return Score(metric=self.name, value=best.value, details=details)

    @abstractmethod
    def compare(self, response: str, reference: str) -> Comparison | None:
        """Compare the response with one non-blank reference; None skips the reference."""


class ExactMatch(ReferenceMetric):
    """1.0 when the response equals a reference.

    With ``normalize`` (the default) both sides go through SQuAD-style
    :func:`~ragjudge.text.normalize_answer` first; otherwise the stripped strings are
    compared as they are.
    """

    name = "exact_match"

    def __init__(self, *, normalize: bool = True) -> None:
        self.normalize = normalize

    def compare(self, response: str, reference: str) -> Comparison | None:
        """Compare the (normalised) strings for equality."""
        prepare = normalize_answer if self.normalize else str.strip
        wanted = prepare(reference)
        if not wanted:
            return None
        return Comparison(_as_score(prepare(response) == wanted), {})


class Match(ReferenceMetric):
    """1.0 when the left-stripped response starts with a (stripped) reference.

    This is the openai-evals ``Match`` template. Its description writes
    ``b.startswith(a)`` for completion ``a`` and reference ``b``, but its code checks
    that the completion starts with the reference, and ragjudge follows the code.
    With ``normalize`` both sides go through :func:`~ragjudge.text.normalize` first.
    """

    name = "match"

    def __init__(self, *, normalize: bool = False) -> None:
        self.normalize = normalize

    def compare(self, response: str, reference: str) -> Comparison | None:
        """Check whether the response begins with the reference."""
        text, prefix = response.lstrip(), reference.strip()
        if self.normalize:
            text, prefix = normalize(text), normalize(prefix)
        if not prefix:
            return None
        return Comparison(_as_score(text.startswith(prefix)), {})


class Includes(ReferenceMetric):
    """1.0 when a reference occurs anywhere inside the response.

    This is the openai-evals ``Includes`` template. With ``normalize`` (the default)
    both sides go through :func:`~ragjudge.text.normalize` (NFKC, lowercase, collapsed
    whitespace) first; otherwise the stripped reference is searched for as it is.
    """

    name = "includes"

    def __init__(self, *, normalize: bool = True) -> None:
        self.normalize = normalize

    def compare(self, response: str, reference: str) -> Comparison | None:
        """Check whether the reference is a substring of the response."""
        prepare = normalize if self.normalize else str.strip
        needle = prepare(reference)
        if not needle:
            return None
        return Comparison(_as_score(needle in prepare(response)), {})


class FuzzyMatch(ReferenceMetric):
    """1.0 when, after :func:`~ragjudge.text.normalize_answer`, either string contains
    the other (the openai-evals ``FuzzyMatch`` template).

    A response that normalises to nothing matches no reference.
    """

    name = "fuzzy_match"

    def compare(self, response: str, reference: str) -> Comparison | None:
        """Check containment in either direction."""
        answer, wanted = normalize_answer(response), normalize_answer(reference)
        if not wanted:
            return None
        # "" is inside every string, so an empty answer needs its own test.
        return Comparison(_as_score(bool(answer) and (wanted in answer or answer in wanted)), {})


class WordRecall(ReferenceMetric):
    """The share of the reference's word tokens found in the response.

    Tokens come from :func:`~ragjudge.text.tokenize` (Japanese is segmented into
    words). A token repeated in the reference counts as often as it appears there, but
    is found at most as often as it appears in the response.
    """

    name = "word_recall"

    def compare(self, response: str, reference: str) -> Comparison | None:
        """Count the reference tokens the response contains."""
        wanted = tokenize(reference)
        if not wanted:
            return None
        found = _overlap(tokenize(response), wanted)
        recall = found / len(wanted)
        return Comparison(recall, {"recall": recall, "matched_tokens": found})


class TokenF1(ReferenceMetric):
    """SQuAD-style token F1 between the response and a reference.

    Both are normalised with :func:`~ragjudge.text.normalize_answer` and split with
    :func:`~ragjudge.text.tokenize`; the overlap counts each token at most as often as
    it appears on both sides.
    """

    name = "token_f1"

    def compare(self, response: str, reference: str) -> Comparison | None:
        """Compute token precision, recall and their harmonic mean."""
        wanted = tokenize(normalize_answer(reference))
        if not wanted:
            return None
        answer = tokenize(normalize_answer(response))
        common = _overlap(answer, wanted)
        if common == 0:
            return Comparison(0.0, {"precision": 0.0, "recall": 0.0})
        precision = common / len(answer)
        recall = common / len(wanted)
        f1 = 2 * precision * recall / (precision + recall)
        return Comparison(f1, {"precision": precision, "recall": recall})


class RougeL(ReferenceMetric):
    """ROUGE-L F-measure (longest common subsequence of word tokens).

    Computed by the ``rouge-score`` library with :func:`~ragjudge.text.tokenize` as
    its tokenizer, so Japanese text, which the library's own tokenizer drops, gives
    meaningful values.
    """

    name = "rouge_l"

    def compare(self, response: str, reference: str) -> Comparison | None:
        """Score the response against the reference with ROUGE-L."""
        if not tokenize(reference):
            return None
        result = _rouge_l_scorer().score(reference, response)["rougeL"]
        details = {"precision": float(result.precision), "recall": float(result.recall)}
        return Comparison(float(result.fmeasure), details)


class _RougeTokenizer:
    """Adapter giving ``rouge-score`` the ``tokenize(text)`` method it expects."""

    def tokenize(self, text: str) -> list[str]:
        return tokenize(text)


@cache
def _rouge_l_scorer() -> Any:
    # Imported on first use: rouge-score pulls in nltk, which takes about a second.
    from rouge_score import rouge_scorer

    return rouge_scorer.RougeScorer(["rougeL"], tokenizer=_RougeTokenizer())


def _overlap(answer: Iterable[str], wanted: Iterable[str]) -> int:
    """Tokens shared by both sequences, each counted at most as often as on either side."""
    return sum((Counter(answer) & Counter(wanted)).values())


def _as_score(matched: bool) -> float:
    return 1.0 if matched else 0.0


for _name, _metric_class in (
    ("exact_match", ExactMatch),
    ("match", Match),
    ("includes", Includes),
    ("fuzzy_match", FuzzyMatch),
    ("word_recall", WordRecall),
    ("token_f1", TokenF1),
    ("rouge_l", RougeL),
):
    register_metric(_name)(_metric_class)
