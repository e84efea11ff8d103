"""``response/llm_judged/guideline_adherence/rating``: one rating per set of guidelines
(a list, each named list, the global ones), names depending on the row."""

from __future__ import annotations

from databricks_helpers import score_row

from ragjudge.metrics import create_metric
from ragjudge.models.scripted import ReplyScript
from ragjudge.schema import Sample

ROW_LEVEL = "response/llm_judged/guideline_adherence"
GLOBAL_LEVEL = "response/llm_judged/global_guideline_adherence"
GLOBAL = {"english": ["The response must be in English"], "tone": ["The response must be polite"]}
ROW = {"request": "What is Spark?", "response": "Un moteur de calcul distribué."}


async def test_a_list_gives_one_rating() -> None:
    row = {**ROW, "guidelines": ["The response must be in English", "It must be short"]}
    script = ReplyScript(default="It is in French.\nAnswer: no")
    scored = await score_row("guideline_adherence", row, script=script)
    assert list(scored.scores) == [f"{ROW_LEVEL}/rating"]
    assert scored[f"{ROW_LEVEL}/rating"].value == 0.0
    (prompt,) = scored.prompts
    assert "<<<BEGIN GUIDELINE 2>>>\nIt must be short\n<<<END GUIDELINE 2>>>" in prompt


async def test_named_and_global_guidelines_give_one_rating_per_name() -> None:
    row = {
        **ROW,
        "guidelines": {
            "english": ["The response must be in English"],
            "facts": ["It must name Spark"],
        },
    }
    script = ReplyScript(
        rules=[("must be in English", "Answer: No, it is French.")], default="Yes."
    )
    spec = {"metric": "guideline_adherence", "global_guidelines": GLOBAL}
    scored = await score_row(spec, row, script=script)
    assert {n: s.value for n, s in scored.scores.items()} == {
        f"{ROW_LEVEL}/english/rating": 0.0,
        f"{ROW_LEVEL}/facts/rating": 1.0,
        f"{GLOBAL_LEVEL}/english/rating": 0.0,
        f"{GLOBAL_LEVEL}/tone/rating": 1.0,
    }
    assert scored[f"{ROW_LEVEL}/english/rating"].rationale == "it is French."
    assert len(scored.calls) == 4
    assert all(len(s.judge_call_ids) == 1 for s in scored.scores.values())


async def test_one_failed_set_is_the_error_of_its_own_rating_only() -> None:
    row = {**ROW, "guidelines": {"a": ["Must be polite"], "b": ["Must be short"]}}
    script = ReplyScript(rules=[("Must be short", "Hmm.")], default="Answer: yes")
    scored = await score_row("guideline_adherence", row, script=script)
    assert scored[f"{ROW_LEVEL}/a/rating"].value == 1.0
    failed = scored[f"{ROW_LEVEL}/b/rating"]
    assert failed.value is None and failed.error and failed.judge_call_ids


def test_score_names_follow_the_row() -> None:
    metric = create_metric({"metric": "guideline_adherence", "global_guidelines": ["Be kind"]})
    named = Sample.model_validate({"request_id": "1", **ROW, "guidelines": {"x": ["g"]}})
    bare = Sample.model_validate({"request_id": "2", **ROW})
    assert metric.score_names_for(named) == [f"{ROW_LEVEL}/x/rating", f"{GLOBAL_LEVEL}/rating"]
    assert metric.score_names_for(bare) == [f"{GLOBAL_LEVEL}/rating"]
    meanings = metric.meanings_for([named, bare])
    assert meanings[f"{ROW_LEVEL}/x/rating"].description == (
        "share of responses following the row's guidelines named 'x'"
    )
    assert all(m.binary for m in meanings.values())
    assert metric.requires == ("response|trace",)


async def test_no_guidelines_at_all_is_not_applicable_under_skip() -> None:
    scored = await score_row({"metric": "guideline_adherence", "if_missing": "skip"}, ROW)
    assert (
        scored[f"{ROW_LEVEL}/rating"].skipped
        == "no guidelines for this row (nor global_guidelines)"
    )


def test_empty_global_guidelines_are_refused() -> None:
    import pytest

    with pytest.raises(ValueError, match="at least one guideline"):
        create_metric({"metric": "guideline_adherence", "global_guidelines": {"x": []}})
