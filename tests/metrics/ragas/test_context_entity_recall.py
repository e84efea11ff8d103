"""``context_entity_recall`` with the judge's entities and with the term extractor."""

from __future__ import annotations

import json

import pytest
from ragas_helpers import Judge, score

from ragjudge.metrics import MetricContext, create_metric
from ragjudge.schema import ContextChunk, Output, Sample

REFERENCE = "The Taj Mahal is in Agra, India. It was built by Shah Jahan around 1648."
CONTEXT = "The Taj Mahal, a mausoleum in AGRA, was commissioned by Shah Jahan."
ROW = Sample(
    request_id="t",
    request="Where is the Taj Mahal?",
    expected_response=REFERENCE,
    retrieved_context=[ContextChunk(doc_uri="t.md", content=CONTEXT)],
)
JA_ROW = Sample(
    request_id="j",
    request="映画『オッペンハイマー』の監督は？",
    expected_response="クリストファー・ノーランが2023年に監督した。",
    retrieved_context=[
        ContextChunk(
            doc_uri="o.md", content="『オッペンハイマー』は 2023 年の映画で、ノーランが監督した。"
        )
    ],
)


async def test_the_judges_entities_found_in_the_contexts() -> None:
    entities = ["Taj Mahal", "Agra", "India", "Shah Jahan", "1648", "agra"]
    script = Judge(entities=json.dumps({"entities": entities}))
    found = await score(create_metric("context_entity_recall"), ROW, Output(), script.model())
    # 5 distinct entities (Agra once, compared folded); Taj Mahal, Agra, Shah Jahan found
    assert found.value == pytest.approx(3 / 5)
    assert [e["found"] for e in found.details["entities"]] == [True, True, False, True, False]
    assert script.calls == {"entities": 1} and len(found.judge_call_ids) == 1


async def test_the_term_extractor_needs_no_judge() -> None:
    metric = create_metric({"metric": "context_entity_recall", "extractor": "terms"})
    assert metric.needs_judge is False
    (found,) = await metric.score(ROW, Output(), MetricContext())
    # terms: Taj Mahal, Agra, India, Shah Jahan, 1648 -> 3 of 5 in the context
    assert [e["entity"] for e in found.details["entities"]] == [
        "Taj Mahal",
        "Agra",
        "India",
        "Shah Jahan",
        "1648",
    ]
    assert found.value == pytest.approx(3 / 5) and found.judge_call_ids == []


async def test_japanese_terms_ignore_width_and_spaces() -> None:
    metric = create_metric({"metric": "context_entity_recall", "extractor": "terms"})
    (found,) = await metric.score(JA_ROW, Output(), MetricContext())
    # クリストファー・ノーラン (not in the context as a whole), 2023年, 監督
    assert {e["entity"]: e["found"] for e in found.details["entities"]} == {
        "クリストファー・ノーラン": False,
        "2023年": True,
        "監督": True,
    }
    assert found.value == pytest.approx(2 / 3)


async def test_a_reference_without_entities_is_an_error_and_no_contexts_score_zero() -> None:
    script = Judge(entities=json.dumps({"entities": []}))
    found = await score(create_metric("context_entity_recall"), ROW, Output(), script.model())
    assert found.value is None and "names no entity" in (found.error or "")
    metric = create_metric({"metric": "context_entity_recall", "extractor": "terms"})
    (empty,) = await metric.score(ROW, Output(retrieved_context=[]), MetricContext())
    assert empty.value == 0.0
