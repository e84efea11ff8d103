"""The comparison page: compare's paired differences, per subset, and the samples that
changed most, side by side."""

from __future__ import annotations

from pathlib import Path

import pytest
from pages import Page

from ragjudge.analysis._compare import compare_runs
from ragjudge.report import comparison_report_html, write_comparison_report
from ragjudge.report._text import fmt
from ragjudge.store._store import Store
from report_runs import improved_run, quickstart_run


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    store = tmp_path_factory.mktemp("compare") / "runs.db"
    return store, quickstart_run(store), improved_run(store)


def test_the_differences_are_those_of_compare(runs: tuple[Path, str, str]) -> None:
    store, a, b = runs
    with Store(store) as s:
        html = comparison_report_html(s, a, s, b)
        comparison = compare_runs(s, a, s, b, by="metadata.lang")
    text = Page(html).words
    for row in comparison.rows:
        p = row.paired
        assert p.ci is not None
        expected = f"{row.metric} {fmt(p.mean_a)} {fmt(p.mean_b)} {fmt(p.difference)} [{fmt(p.ci.low)}, {fmt(p.ci.high)}]"
        assert expected in text, row.metric
    assert "By metadata.lang" in html and "metadata.lang = ja" in text
    rouge = next(r for r in comparison.rows if r.metric == "rouge_l")
    assert rouge.winner == "B"


def test_changed_most_lists_the_largest_moves_side_by_side(runs: tuple[Path, str, str]) -> None:
    store, a, b = runs
    with Store(store) as s:
        html = comparison_report_html(s, a, s, b)
        frame_a, frame_b = s.score_frame(a), s.score_frame(b)
        samples = {x.request_id: x for x in s.samples(b)}
    section = html[html.index('id="changed"') :]
    first = section[section.index("<b>rouge_l</b>") :]
    first = first[: first.index("</details>")]
    ids = [t.split("<")[0] for t in first.split("<tr>\n        <td>")[1:]]

    def value(frame: object, sid: str) -> float:
        rows = frame[(frame["metric"] == "rouge_l") & (frame["sample_id"] == sid)]  # type: ignore[index]
        return float(rows["value"].iloc[0])

    moves = sorted((abs(value(frame_b, sid) - value(frame_a, sid)), sid) for sid in samples)
    assert ids[0] == moves[-1][1]
    assert len(ids) == 10
    reference = samples[ids[0]].references[0]
    assert reference in Page(first).pre_texts("text")  # B's response, beside A's


def test_written_beside_the_store(runs: tuple[Path, str, str]) -> None:
    store, a, b = runs
    with Store(store) as s:
        path = write_comparison_report(s, a, s, b)
    assert path == store.parent / "reports" / f"{a}-vs-{b}.html"
    assert "Comparison: B − A" in path.read_text(encoding="utf-8")


def test_runs_that_share_nothing(tmp_path: Path, runs: tuple[Path, str, str]) -> None:
    store, a, _ = runs
    with Store(tmp_path / "other.db") as other:
        lone = other.create_run(name=None, config={}, versions={}, samples=[], trials=1)
        with Store(store) as s, pytest.raises(ValueError, match="no scores"):
            comparison_report_html(s, a, other, lone)
