import pytest

from ragjudge.metrics import MetricContext, available_metrics, create_metric
from ragjudge.metrics.lexical.rouge_l import RougeL
from ragjudge.schema import Output, Sample, Score

LEXICAL = ["exact_match", "match", "includes", "fuzzy_match", "word_recall", "token_f1", "rouge_l"]


async def run(metric: str | dict[str, object], response: str | None, *refs: str) -> Score:
    sample = Sample(request_id="r1", request="q", expected_response=list(refs))
    [result] = await create_metric(metric).score(sample, Output(response=response), MetricContext())
    return result


# --- exact_match -----------------------------------------------------------------


async def test_exact_match_normalises_case_punctuation_and_articles() -> None:
    score = await run("exact_match", "The Paris!", "paris")
    assert score.value == 1.0
    assert score.metric == "exact_match"


async def test_exact_match_japanese_width_and_punctuation() -> None:
    assert (await run("exact_match", "東京。", "東京")).value == 1.0
    assert (await run("exact_match", "ＵＮＩＯＮ　ＡＬＬ", "union all")).value == 1.0
    assert (await run("exact_match", "東京都", "東京")).value == 0.0


async def test_exact_match_several_references_reports_the_matching_one() -> None:
    score = await run("exact_match", "Lyon", "Paris", "lyon", "Nice")
    assert score.value == 1.0
    assert score.details["reference_index"] == 1


async def test_exact_match_without_normalisation_compares_stripped_text() -> None:
    metric = {"metric": "exact_match", "normalize": False}
    assert (await run(metric, "  Paris \n", "Paris")).value == 1.0
    assert (await run(metric, "paris", "Paris")).value == 0.0


# --- match -----------------------------------------------------------------------


async def test_match_response_starts_with_reference() -> None:
    assert (await run("match", "  Paris is the capital.", "Paris")).value == 1.0
    assert (await run("match", "The capital is Paris.", "Paris")).value == 0.0


async def test_match_follows_the_code_not_the_seed_formula() -> None:
    # The seed's b.startswith(a) would accept a response that is a prefix of the reference.
    assert (await run("match", "Par", "Paris")).value == 0.0


async def test_match_japanese_and_several_references() -> None:
    score = await run("match", "東京です。", "大阪", "東京")
    assert score.value == 1.0
    assert score.details["reference_index"] == 1


async def test_match_is_case_sensitive_unless_normalised() -> None:
    assert (await run("match", "paris, France", "Paris")).value == 0.0
    assert (await run({"metric": "match", "normalize": True}, "paris", "PARIS")).value == 1.0


REVERSED = {"metric": "match", "direction": "reference_starts_with_response"}


async def test_match_by_default_takes_a_response_that_goes_on_after_the_reference() -> None:
    assert (await run("match", "Paris is the capital", "Paris")).value == 1.0
    assert (await run("match", "Paris", "Paris is the capital")).value == 0.0


async def test_match_the_other_way_takes_a_response_that_begins_a_reference() -> None:
    assert (await run(REVERSED, "Paris", "Paris is the capital")).value == 1.0
    assert (await run(REVERSED, "Paris is the capital", "Paris")).value == 0.0
    assert (await run(REVERSED, "  Paris \n", "Lyon", " Paris is the capital")).value == 1.0


async def test_match_the_other_way_scores_an_empty_response_zero() -> None:
    assert (await run(REVERSED, "   ", "Paris")).value == 0.0


async def test_match_the_other_way_normalised() -> None:
    metric = {**REVERSED, "normalize": True}
    assert (await run(metric, "ＰＡＲＩＳ", "paris is the capital")).value == 1.0
    assert (await run(REVERSED, "PARIS", "Paris is the capital")).value == 0.0


async def test_match_refuses_an_unknown_direction() -> None:
    with pytest.raises(ValueError, match="direction"):
        create_metric({"metric": "match", "direction": "either"})


# --- includes --------------------------------------------------------------------


async def test_includes_finds_reference_inside_response() -> None:
    assert (await run("includes", "The answer is PARIS.", "paris")).value == 1.0
    assert (await run("includes", "The answer is Lyon.", "paris")).value == 0.0


async def test_includes_japanese() -> None:
    assert (await run("includes", "答えはＵＮＩＯＮ ＡＬＬです", "UNION ALL")).value == 1.0
    assert (await run("includes", "答えは大阪です", "東京")).value == 0.0


async def test_includes_without_normalisation_is_exact() -> None:
    metric = {"metric": "includes", "normalize": False}
    assert (await run(metric, "The answer is PARIS.", "paris")).value == 0.0
    assert (await run(metric, "The answer is Paris.", " Paris ")).value == 1.0


# --- fuzzy_match -----------------------------------------------------------------


async def test_fuzzy_match_either_direction() -> None:
    assert (await run("fuzzy_match", "Paris", "Paris, France")).value == 1.0
    assert (await run("fuzzy_match", "It is Paris, France.", "paris france")).value == 1.0
    assert (await run("fuzzy_match", "Lyon", "Paris")).value == 0.0


async def test_fuzzy_match_japanese() -> None:
    assert (await run("fuzzy_match", "東京", "東京都です。")).value == 1.0


async def test_fuzzy_match_empty_response_matches_nothing() -> None:
    assert (await run("fuzzy_match", "", "Paris")).value == 0.0
    assert (await run("fuzzy_match", "The.", "Paris")).value == 0.0  # "the." normalises to ""
    # A reference that normalises to nothing is skipped, like every lexical metric's.
    skipped = await run("fuzzy_match", "", "The.")
    assert skipped.value is None and skipped.error is not None
    assert (await run("fuzzy_match", "Paris!", "The.", "paris")).details["reference_index"] == 1


# --- word_recall -----------------------------------------------------------------


async def test_word_recall_clips_repeated_tokens() -> None:
    score = await run("word_recall", "The cat sat on the mat", "the cat the dog")
    assert score.value == pytest.approx(0.75)
    assert score.details["matched_tokens"] == 3


async def test_word_recall_japanese() -> None:
    # Reference tokens: デッド ロック と は 何 か; the response holds デッド ロック.
    score = await run("word_recall", "デッドロックが発生", "デッドロックとは何か")
    assert score.value == pytest.approx(2 / 6)


async def test_word_recall_takes_the_best_reference() -> None:
    score = await run("word_recall", "cat sat", "dog barked", "the cat sat")
    assert score.value == pytest.approx(2 / 3)
    assert score.details["reference_index"] == 1


# --- token_f1 --------------------------------------------------------------------


async def test_token_f1_hand_computed() -> None:
    # "the" is an article: tokens cat sat vs cat sat down -> P 1, R 2/3, F1 0.8.
    score = await run("token_f1", "the cat sat", "cat sat down")
    assert score.value == pytest.approx(0.8)
    assert score.details["precision"] == pytest.approx(1.0)
    assert score.details["recall"] == pytest.approx(2 / 3)


async def test_token_f1_japanese() -> None:
    # 東京 です vs 東京 -> P 1/2, R 1, F1 2/3.
    score = await run("token_f1", "東京です。", "東京")
    assert score.value == pytest.approx(2 / 3)


async def test_token_f1_best_of_several_references() -> None:
    score = await run("token_f1", "the cat sat", "a dog", "cat sat down", "cat")
    assert score.value == pytest.approx(0.8)
    assert score.details["reference_index"] == 1


async def test_token_f1_no_overlap_is_zero() -> None:
    score = await run("token_f1", "blue sky", "green grass")
    assert score.value == 0.0
    assert score.details["precision"] == 0.0


async def test_token_f1_skips_references_with_no_tokens() -> None:
    score = await run("token_f1", "cat", "。", "cat")
    assert score.value == 1.0
    assert score.details["reference_index"] == 1
    only_punct = await run("token_f1", "cat", "。", "the")
    assert only_punct.value is None
    assert only_punct.error


# --- rouge_l ---------------------------------------------------------------------


async def test_rouge_l_english_hand_computed() -> None:
    # LCS "the cat on the mat" = 5 of 6 tokens on both sides.
    score = await run("rouge_l", "the cat lay on the mat", "The cat sat on the mat.")
    assert score.value == pytest.approx(5 / 6)
    assert score.details["precision"] == pytest.approx(5 / 6)
    assert score.details["recall"] == pytest.approx(5 / 6)


async def test_rouge_l_japanese_related_sentences_are_partly_similar() -> None:
    score = await run(
        "rouge_l",
        "デッドロックは、二つのトランザクションがお互いのロック解放を待つ状態のことです。",
        "デッドロックとは、複数のトランザクションが互いのロックの解放を待ち続ける状態です。",
    )
    assert score.value is not None
    assert 0.3 < score.value < 1.0


async def test_rouge_l_japanese_identical_and_unrelated() -> None:
    assert (await run("rouge_l", "東京は日本の首都です", "東京は日本の首都です")).value == 1.0
    assert (await run("rouge_l", "猫が好き", "SQLの構文")).value == 0.0


async def test_rouge_l_best_of_several_references() -> None:
    score = await run("rouge_l", "the cat sat", "dogs bark loudly", "the cat sat")
    assert score.value == pytest.approx(1.0)
    assert score.details["reference_index"] == 1


# --- empty, missing and invalid inputs ------------------------------------------


@pytest.mark.parametrize("metric", LEXICAL)
async def test_empty_response_is_a_wrong_answer(metric: str) -> None:
    score = await run(metric, "", "Paris is the capital")
    assert score.value == 0.0
    assert score.error is None


@pytest.mark.parametrize("metric", LEXICAL)
async def test_missing_response_is_an_error(metric: str) -> None:
    score = await run(metric, None, "Paris")
    assert score.value is None
    assert score.error is not None


@pytest.mark.parametrize("metric", LEXICAL)
async def test_blank_references_are_an_error(metric: str) -> None:
    score = await run(metric, "Paris", "", "  \n")
    assert score.value is None
    assert score.error is not None
    assert "empty" in score.error


async def test_missing_response_reports_target_error() -> None:
    sample = Sample(request_id="r1", request="q", expected_response="Paris")
    output = Output(response=None, error="timeout after 30 s")
    [score] = await create_metric("token_f1").score(sample, output, MetricContext())
    assert isinstance(score, Score)
    assert score.error is not None
    assert "timeout after 30 s" in score.error


def test_unknown_options_and_wrong_types_raise_value_error() -> None:
    with pytest.raises(ValueError, match=r"unknown option 'foo'.*known options: none"):
        create_metric({"metric": "rouge_l", "foo": 1})
    with pytest.raises(ValueError, match=r"unknown option 'bar'.*known options: normalize"):
        create_metric({"metric": "exact_match", "bar": True})
    with pytest.raises(ValueError, match="'normalize' must be true or false"):
        create_metric({"metric": "exact_match", "normalize": "yes"})
    with pytest.raises(ValueError, match="'k' must be a whole number"):
        create_metric({"metric": "answer_accuracy", "k": 2.5})
    with pytest.raises(ValueError, match=r"known options: .*contexts"):
        create_metric({"metric": "answer_accuracy", "kk": 3})


# --- registry --------------------------------------------------------------------


def test_all_lexical_metrics_are_registered_and_need_references() -> None:
    assert set(LEXICAL) <= set(available_metrics())
    for name in LEXICAL:
        metric = create_metric(name)
        assert metric.name == name
        assert metric.requires == ("response", "expected_response")


async def test_create_metric_by_name_and_alias() -> None:
    plain = create_metric("rouge_l")
    assert isinstance(plain, RougeL)
    assert plain.name == "rouge_l"
    aliased = create_metric({"metric": "rouge_l", "name": "rl2"})
    assert isinstance(aliased, RougeL)
    assert aliased.name == "rl2"
    assert plain.name == "rouge_l"
    score = await run({"metric": "rouge_l", "name": "rl2"}, "the cat", "the cat")
    assert score.metric == "rl2"
    assert score.value == pytest.approx(1.0)
