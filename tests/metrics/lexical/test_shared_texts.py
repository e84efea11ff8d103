"""The lexical metrics share one normalisation and tokenisation of each text per sample
and compute ROUGE-L without rouge-score: their values and details are those of the
metrics as they were (each tokenising for itself, ROUGE-L through rouge-score), on
the example data."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from conftest import import_quickstart
from ragjudge.metrics import MetricContext, create_metric
from ragjudge.metrics.lexical._reference import SampleTexts
from ragjudge.schema import Output, Sample
from ragjudge.text._normalise import normalize, normalize_answer, tokenize

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
METRICS = ["exact_match", "match", "includes", "fuzzy_match", "word_recall", "token_f1", "rouge_l"]

Compared = tuple[float, dict[str, Any]] | None


def overlap(answer: list[str], wanted: list[str]) -> int:
    return sum((Counter(answer) & Counter(wanted)).values())


def token_f1(response: str, reference: str) -> Compared:
    wanted = tokenize(normalize_answer(reference))
    if not wanted:
        return None
    answer = tokenize(normalize_answer(response))
    common = overlap(answer, wanted)
    if common == 0:
        return 0.0, {"precision": 0.0, "recall": 0.0}
    precision, recall = common / len(answer), common / len(wanted)
    return 2 * precision * recall / (precision + recall), {"precision": precision, "recall": recall}


def word_recall(response: str, reference: str) -> Compared:
    wanted = tokenize(reference)
    if not wanted:
        return None
    found = overlap(tokenize(response), wanted)
    return found / len(wanted), {"recall": found / len(wanted), "matched_tokens": found}


class Tokenizer:
    def tokenize(self, text: str) -> list[str]:
        return tokenize(text)


def rouge_l(response: str, reference: str) -> Compared:
    from rouge_score import rouge_scorer

    if not tokenize(reference):
        return None
    scored = rouge_scorer.RougeScorer(["rougeL"], tokenizer=Tokenizer()).score(reference, response)
    result = scored["rougeL"]
    return float(result.fmeasure), {
        "precision": float(result.precision),
        "recall": float(result.recall),
    }


def exact_match(response: str, reference: str) -> Compared:
    wanted = normalize_answer(reference)
    return None if not wanted else (float(normalize_answer(response) == wanted), {})


def fuzzy_match(response: str, reference: str) -> Compared:
    answer, wanted = normalize_answer(response), normalize_answer(reference)
    if not wanted:
        return None
    return float(bool(answer) and (wanted in answer or answer in wanted)), {}


def includes(response: str, reference: str) -> Compared:
    needle = normalize(reference)
    return None if not needle else (float(needle in normalize(response)), {})


def match(response: str, reference: str) -> Compared:
    prefix = reference.strip()
    return None if not prefix else (float(response.lstrip().startswith(prefix)), {})


BEFORE: dict[str, Callable[[str, str], Compared]] = {
    "exact_match": exact_match,
    "match": match,
    "includes": includes,
    "fuzzy_match": fuzzy_match,
    "word_recall": word_recall,
    "token_f1": token_f1,
    "rouge_l": rouge_l,
}


def best_of(metric: str, response: str, references: list[str]) -> tuple[float, dict[str, Any]]:
    scored = [
        (index, found)
        for index, reference in enumerate(references)
        if reference.strip() and (found := BEFORE[metric](response, reference)) is not None
    ]
    index, (value, components) = max(scored, key=lambda pair: pair[1][0])
    return value, {"reference_index": index, **components}


async def example_pairs() -> list[tuple[str, list[str]]]:
    """The quickstart app's answers with their references, the example data's responses
    with theirs, and each reference against its neighbours' (partial overlaps)."""
    app = import_quickstart("rag_app")
    rows = [
        json.loads(line)
        for line in (EXAMPLES / "quickstart" / "evalset.jsonl").read_text("utf-8").splitlines()
    ]
    pairs: list[tuple[str, list[str]]] = []
    for row in rows:
        request = row["request"]
        query = request if isinstance(request, str) else json.dumps(request, ensure_ascii=False)
        answer = await app.answer(query, [])
        pairs.append((answer["response"], [row["expected_response"]]))
    references = [row["expected_response"] for row in rows]
    pairs += [(a, [b, a[: len(a) // 2]]) for a, b in pairwise(references)]
    for line in (EXAMPLES / "formats" / "ragas.jsonl").read_text("utf-8").splitlines():
        row = json.loads(line)
        pairs.append((row["response"], [row["reference"]]))
    pairs += [("", ["UNION ALL"]), ("。", ["東京"]), ("The Paris!", ["paris", "。"])]
    return pairs


async def test_values_and_details_are_those_of_the_metrics_as_they_were() -> None:
    pairs = await example_pairs()
    assert len(pairs) > 60
    metrics = [create_metric(name) for name in METRICS]
    for response, references in pairs:
        sample = Sample(request_id="r", request="q", expected_response=references)
        context = MetricContext()  # one per sample: the metrics share its texts
        for metric in metrics:
            [score] = await metric.score(sample, Output(response=response), context)
            assert (score.value, score.details) == best_of(metric.name, response, references), (
                metric.name,
                response,
                references,
            )


async def test_the_metrics_of_a_sample_share_one_set_of_texts() -> None:
    sample = Sample(request_id="r", request="q", expected_response=["union all keeps rows"])
    context = MetricContext()
    for name in METRICS:
        await create_metric(name).score(
            sample, Output(response="UNION ALL keeps duplicates"), context
        )
    [texts] = context.computed.values()
    assert isinstance(texts, SampleTexts)
    forms = texts.of("UNION ALL keeps duplicates")
    assert forms is texts.of("UNION ALL keeps duplicates")
    assert forms.tokens == ["union", "all", "keeps", "duplicates"]


@pytest.mark.parametrize("name", ["word_recall", "rouge_l", "token_f1"])
def test_compare_still_takes_two_strings(name: str) -> None:
    metric: Any = create_metric(name)
    assert metric.compare("a b c", "a b c").value == 1.0
