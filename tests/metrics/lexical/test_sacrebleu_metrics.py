"""``bleu`` and ``chrf``: hand-computed BLEU, chrF equal to sacrebleu's corpus score of
one sentence, several references, Japanese segmentation and bad options."""

import math

import pytest
from sacrebleu.metrics.chrf import CHRF

from ragjudge.metrics import MetricContext, create_metric
from ragjudge.schema import Output, Sample, Score


async def run(metric: str | dict[str, object], response: str | None, *refs: str) -> Score:
    sample = Sample(request_id="r1", request="q", expected_response=list(refs))
    [result] = await create_metric(metric).score(sample, Output(response=response), MetricContext())
    return result


async def value(metric: str | dict[str, object], response: str, *refs: str) -> float:
    score = await run(metric, response, *refs)
    assert score.value is not None, score.error
    return score.value


async def test_bleu_of_a_short_response_is_its_brevity_penalty() -> None:
    # 6 response words, all 1..4-grams found: every precision is 1; the reference has 7
    # words, so BLEU = BP = exp(1 - 7/6).
    score = await run("bleu", "the cat sat on the mat", "the cat sat on the mat today")
    assert score.value == pytest.approx(math.exp(1 - 7 / 6))
    assert score.details["brevity_penalty"] == pytest.approx(math.exp(1 - 7 / 6))
    assert score.details["precision_4"] == pytest.approx(1.0)
    assert score.details["tokenize"] == "13a"


async def test_bleu_geometric_mean_of_clipped_precisions() -> None:
    # response "the the cat sat" vs reference "the cat sat down": 1-grams: "the" clipped
    # to 1, so 3/4; 2-grams: "the cat", "cat sat" of 3 → 2/3; 3-grams: "the cat sat"
    # of 2 → 1/2; 4-grams: 0 of 1, smoothed (exp): 1 / (2 · 1) → 1/2. Same length: BP 1.
    score = await run("bleu", "the the cat sat", "the cat sat down")
    expected = (3 / 4 * 2 / 3 * 1 / 2 * 1 / 2) ** (1 / 4)
    assert score.value == pytest.approx(expected)
    assert score.details["precision_1"] == pytest.approx(3 / 4)
    assert score.details["brevity_penalty"] == pytest.approx(1.0)


async def test_bleu_uses_every_reference_together() -> None:
    # Each reference holds half the response; together they hold all of it.
    single = await value("bleu", "a b c d", "a b x y")
    together = await run("bleu", "a b c d", "a b x y", "x y c d")
    assert (together.value or 0.0) > single
    assert together.details["precision_1"] == pytest.approx(1.0)


async def test_bleu_identical_texts_score_one_and_unrelated_ones_near_zero() -> None:
    assert (await run("bleu", "Paris is the capital.", "Paris is the capital.")).value == 1.0
    assert await value("bleu", "blue whales", "tax returns are due") < 0.05


async def test_bleu_japanese_is_segmented_into_words() -> None:
    score = await run("bleu", "東京は日本の首都です。", "東京は日本の首都です。")
    assert score.value == pytest.approx(1.0)
    assert score.details["tokenize"] == "japanese"
    # one word differs: with MeCab words the score stays well above zero
    near = await value("bleu", "東京は日本の首都だ。", "東京は日本の首都です。")
    assert 0.3 < near < 1.0
    # unsegmented, a Japanese sentence is one 13a word and any difference gives ~0
    raw = await value(
        {"metric": "bleu", "tokenize": "13a"}, "東京は日本の首都だ。", "東京は日本の首都です。"
    )
    assert raw < near


async def test_bleu_lowercase_option() -> None:
    assert await value("bleu", "PARIS", "paris") < 1.0
    assert (await run({"metric": "bleu", "lowercase": True}, "PARIS", "paris")).value == 1.0


async def test_chrf_equals_sacrebleu_corpus_chrf_of_one_sentence() -> None:
    response, reference = "the cat sat on a mat", "the cat sat on the mat"
    expected = CHRF().corpus_score([response], [[reference]]).score / 100
    assert (await run("chrf", response, reference)).value == pytest.approx(expected)


async def test_chrf_japanese_compares_characters() -> None:
    response, reference = "東京は日本の首都だ。", "東京は日本の首都です。"
    expected = CHRF().corpus_score([response], [[reference]]).score / 100
    score = await value("chrf", response, reference)
    assert score == pytest.approx(expected)
    assert 0.5 < score < 1.0


async def test_chrf_takes_the_best_reference() -> None:
    response = "the cat sat on a mat"
    best = await run("chrf", response, "the cat sat on the mat")
    both = await run("chrf", response, "tax returns are due", "the cat sat on the mat")
    assert both.value == pytest.approx(best.value)


async def test_chrf_plus_plus_adds_word_ngrams() -> None:
    response, reference = "the cat sat on a mat", "the cat sat on the mat"
    expected = CHRF(word_order=2).corpus_score([response], [[reference]]).score / 100
    score = await run({"metric": "chrf", "word_order": 2}, response, reference)
    assert score.value == pytest.approx(expected)


@pytest.mark.parametrize("metric", ["bleu", "chrf"])
async def test_empty_response_scores_zero_and_missing_one_is_an_error(metric: str) -> None:
    assert (await run(metric, "", "Paris")).value == 0.0
    missing = await run(metric, None, "Paris")
    assert missing.value is None
    assert missing.error


@pytest.mark.parametrize(
    ("spec", "option"),
    [
        ({"metric": "bleu", "tokenize": "ja-mecab"}, "tokenize"),
        ({"metric": "bleu", "smooth": "none-such"}, "smooth"),
        ({"metric": "chrf", "word_order": 3}, "word_order"),
        ({"metric": "chrf", "beta": 0}, "beta"),
    ],
)
def test_bad_options_name_the_metric_and_option(spec: dict[str, object], option: str) -> None:
    with pytest.raises(ValueError) as raised:
        create_metric(spec)
    assert str(spec["metric"]) in str(raised.value)
    assert option in str(raised.value)
