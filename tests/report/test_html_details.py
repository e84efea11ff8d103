from ragjudge.report._details import details_view, node_of

RUBRIC = {
    "result_by_rubrics": [
        {"criterion": "Mentions duplicates", "points": 5.0, "tags": ["completeness"],
         "criteria_met": True, "explanation": "it does", "signed_score": 5.0},
        {"criterion": "Claims sorting", "points": -2.0, "tags": [], "criteria_met": False,
         "explanation": "no", "signed_score": 0.0},
    ],
    "total_score": 5.0,
    "theoretical_score": 5.0,
    "score_rate": 1.0,
    "judge_model": "m",
}  # fmt: skip


def test_rubric_results_get_their_own_table_and_the_rest_stays() -> None:
    view = details_view(RUBRIC)
    assert view.rubric is not None
    assert [(r.criterion, r.points, r.met) for r in view.rubric.rows] == [
        ("Mentions duplicates", 5.0, True),
        ("Claims sorting", -2.0, False),
    ]
    assert (view.rubric.total_score, view.rubric.theoretical_score, view.rubric.score_rate) == (
        5.0,
        5.0,
        1.0,
    )
    assert view.rest is not None
    assert [name for name, _ in view.rest.fields] == ["judge_model"]


def test_a_malformed_rubric_list_is_shown_generically() -> None:
    view = details_view({"result_by_rubrics": ["not", "records"]})
    assert view.rubric is None and view.rest is not None


def test_transcript_is_grouped_by_turn() -> None:
    details = {
        "sigma": [3, 5],
        "transcript": {
            "target_question": "Q?",
            "context_doc_uris": ["a.md"],
            "events": [
                {"task": "T1", "turn": 1, "query": "Q?", "answer": "A", "call_ids": []},
                {"task": "T3", "turn": 1, "answer": "A", "score": 3, "feedback": "f", "sigma_index": 0, "call_ids": [7]},
                {"task": "T1", "turn": 2, "query": "more?", "answer": None, "error": "boom", "call_ids": []},
            ],
        },
    }  # fmt: skip
    view = details_view(details)
    assert view.transcript is not None
    assert [t.number for t in view.transcript.turns] == [1, 2]
    judge = view.transcript.turns[0].events[1]
    assert (judge.label, judge.score, judge.call_ids) == ("judge: tentative answer", 3.0, [7])
    assert ("feedback", "f") in judge.texts
    assert judge.facts == [("score number", "1")]
    assert view.transcript.turns[0].events[0].label == "the system answers"
    failed = view.transcript.turns[1].events[0]
    assert failed.error == "boom" and ("answer", "None") not in failed.texts
    assert view.rest is not None and [n for n, _ in view.rest.fields] == ["scores by turn"]


def test_generic_nodes() -> None:
    records = node_of([{"statement": "s1", "verdict": "yes"}, {"statement": "s2", "reason": "r"}])
    assert records.kind == "table"
    assert records.columns == ("statement", "verdict", "reason")
    assert records.rows[0][1].tone == "good" and records.rows[1][1].text == ""
    assert node_of([1, 2.5, None]).inline
    assert not node_of(["x" * 80]).inline
    assert node_of({"a": {"b": 1}}).kind == "fields"
    assert node_of(True).tone == "good" and node_of("no").tone == "bad"
    deep = node_of({"a": {"b": {"c": {"d": {"e": {"f": 1}}}}}})
    inner = deep
    while inner.kind == "fields":
        inner = inner.fields[0][1]
    assert inner.kind == "json" and '"f": 1' in inner.text
    long = node_of(list(range(1500)))
    assert len(long.items) == 1000 and long.more == 500


def test_no_details_no_view() -> None:
    view = details_view({})
    assert view.rubric is None and view.transcript is None and view.rest is None


def test_rubric_items_are_toned_by_what_they_do_to_the_score() -> None:
    items = [
        {"criterion": "credit met", "points": 5, "criteria_met": True},
        {"criterion": "credit missed", "points": 5, "criteria_met": False},
        {"criterion": "penalty met", "points": -2, "criteria_met": True},
        {"criterion": "penalty avoided", "points": -2, "criteria_met": False},
        {"criterion": "unread", "points": -2, "criteria_met": "maybe"},
    ]
    view = details_view({"result_by_rubrics": items}).rubric
    assert view is not None
    assert [(r.tone, r.verdict) for r in view.rows] == [
        ("good", "✓ met"),
        ("bad", "✗ not met"),
        ("bad", "✗ penalty applies"),
        ("good", "✓ penalty avoided"),
        ("", "?"),
    ]
    assert [r.penalty for r in view.rows] == [False, False, True, True, True]


def test_keys_shown_elsewhere_are_left_out_of_the_details() -> None:
    view = details_view(
        {"context_doc_uris": ["a.md"], "references": 1}, leave_out=["context_doc_uris"]
    )
    assert view.rest is not None and "context_doc_uris" not in str(view.rest)
    assert "references" in str(view.rest)
