"""The report of one run, read back with an HTML parser: one self-contained file, the
summary's numbers are those of the run summary, one row and one drill-down per sample,
every kind of score details, judge calls verbatim, the plots."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from pages import Page, fragments

import ragjudge as rj
from ragjudge._util.known_secrets import register_secrets
from ragjudge.analysis._results import summarize_run
from ragjudge.analysis._stability import stability_for_run
from ragjudge.config import ConfigError
from ragjudge.meta._evaluation import meta_for_run
from ragjudge.report import run_report_html, write_run_report
from ragjudge.report._text import fmt
from ragjudge.store._store import Store
from report_runs import JUDGE_SYSTEM, quickstart_run, synthetic_run


def reported_run(
    tmp_path_factory: pytest.TempPathFactory, name: str, make_run: Callable[[Path], str]
) -> tuple[Path, str, str]:
    """A store holding the run ``make_run`` writes, the run's id, and its HTML report."""
    store = tmp_path_factory.mktemp(name) / "runs.db"
    run_id = make_run(store)
    with Store(store) as s:
        return store, run_id, run_report_html(s, run_id)


@pytest.fixture(scope="module")
def quickstart(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    return reported_run(tmp_path_factory, "quickstart", quickstart_run)


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    return reported_run(tmp_path_factory, "synthetic", synthetic_run)


def _sha(text: str) -> str:
    return base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()


def test_one_file_that_asks_for_nothing(quickstart: tuple[Path, str, str]) -> None:
    html = quickstart[2]
    page = Page(html)
    assert html.startswith("<!DOCTYPE html>")
    policy = next(
        a["content"] or ""
        for tag, a in page.tags
        if tag == "meta" and a.get("http-equiv") == "Content-Security-Policy"
    )
    assert "default-src 'none'" in policy and "form-action 'none'" in policy
    script = re.search(r"<script>(.*?)</script>", html, re.DOTALL)
    style = re.search(r"<style>(.*?)</style>", html, re.DOTALL)
    assert script and f"'sha256-{_sha(script.group(1))}'" in policy
    assert style and f"'sha256-{_sha(style.group(1))}'" in policy
    links = [v for _, name, v in page.attributes() if name in ("href", "src", "action")]
    assert all(v is not None and (v.startswith("#") or v == "data:,") for v in links), links
    assert page.count()["script"] == 2  # the page's script and the packed sample details
    assert not [a for a in page.attributes() if a[1].startswith("on")]


def test_summary_numbers_are_the_run_summary(quickstart: tuple[Path, str, str]) -> None:
    store, run_id, html = quickstart
    with Store(store) as s:
        result = summarize_run(s, run_id, by="metadata.lang")
    table = html[html.index('<table class="summary">') : html.index("</table>")]
    rows = Page(table).text
    for summary in result.summaries:
        assert summary.ci is not None
        expected = (
            f"{summary.metric}{fmt(summary.mean)}[{fmt(summary.ci.low)}, {fmt(summary.ci.high)}]"
        )
        assert expected in "".join(rows.split()).replace(",", ", "), summary.metric
    assert "By metadata.lang" in html
    assert html.count("<figure><figcaption><b>rouge_l</b>") == 2  # distribution and subsets


def test_a_row_and_a_drill_down_per_sample(quickstart: tuple[Path, str, str]) -> None:
    store, run_id, html = quickstart
    with Store(store) as s:
        samples = s.samples(run_id)
    page = Page(html)
    rows = [a for tag, a in page.tags if tag == "tr" and "data-i" in a]
    assert [int(a["data-i"] or -1) for a in rows] == list(range(len(samples)))
    assert {a["data-g"] for a in rows} == {"en", "ja"}
    japanese = [a for tag, a in page.tags if tag == "span" and a.get("lang") == "ja"]
    assert len(japanese) >= 7  # every Japanese question and response is tagged
    found = fragments(html)
    assert len(found) == len(samples)
    assert samples[4].request.query in Page(found[4]).text


def test_every_kind_of_details(synthetic: tuple[Path, str, str]) -> None:
    english = Page(fragments(synthetic[2])[0])
    text = english.text
    # the request with its history, the retrieved and the judge-shown contexts
    assert "What is SQL?" in text and "A query language." in text
    assert "union.md" in text and "UNION removes duplicate rows." in text
    words = " ".join(text.split())
    assert "accuracy · reference union.md sort.md" in words
    # the judge's contexts are shown once, not again in the score's details
    assert "context_doc_uris" not in words and "judge_contexts" not in words
    # a sample's scores come before its contexts
    assert words.index("Scores") < words.index("Retrieved contexts")
    # rubric results: a credit met, a penalty avoided, and points
    assert "✓ met" in text and "✓ penalty avoided" in text
    assert "total 5 of 5 possible" in text
    # the transcript turn by turn, its judge scores and calls
    assert "turn 1" in text and "turn 2" in text
    assert "generator: follow-up question" in text and "Are duplicates kept?" in text
    assert "judge: tentative answer" in text and "score number: 1" in text
    assert "T4/T5" not in text and "sigma" not in text
    # statement verdicts, chunk ratings, an unknown metric's nested details
    assert "UNION sorts." in text and "not in the contexts" in text
    assert "about sorting" in text
    assert "nested" in text and "deeper" in text
    tones = [a.get("class") for tag, a in english.tags if tag == "span"]
    assert "txt good" in tones and "txt bad" in tones
    failed = Page(fragments(synthetic[2])[2]).text
    assert "parse error: no verdict in the judge's reply" in failed
    assert "target failed: timeout" in failed and "no retrieved context" in failed


def test_judge_calls_are_shown_verbatim(synthetic: tuple[Path, str, str]) -> None:
    store, run_id, html = synthetic
    with Store(store) as s:
        calls = s.judge_calls(run_id)
        ids = {c for _, _, score in s.scores(run_id) if _ == "r-en" for c in score.judge_call_ids}
    english = Page(fragments(html)[0])
    prompts = english.pre_texts("prompt")
    replies = english.pre_texts("reply")
    for _, call in calls[calls["call_id"].isin(ids)].iterrows():
        messages = json.loads(call["messages_json"])
        assert messages[0]["content"] == JUDGE_SYSTEM
        assert messages[1]["content"] in prompts
        assert call["text"] in replies
    assert "cache hit" in english.text
    summary = " ".join(english.text.split())
    assert "#1 rubric · openai/judge-model" in summary and "$0.0001" in summary


def test_trial_spread_from_the_stability_table(synthetic: tuple[Path, str, str]) -> None:
    store, run_id, html = synthetic
    with Store(store) as s:
        rows = stability_for_run(s, run_id, seed=0).rows
    assert "Trial spread" in html
    spread = html[html.index("<h3>Trial spread</h3>") :]
    header = spread[: spread.index("</thead>")]
    assert "<th>RAGAS-style stability rating</th>" in header and "seed" not in header
    text = Page(spread[: spread.index("</table>")]).words
    rubric = next(r.stability for r in rows if r.stability.metric == "rubric")
    assert f"rubric 2 {fmt(rubric.within_sd)}" in text
    assert 'class="sample-link"' in spread  # the widest samples open their details


def test_values_left_out_of_the_mean(synthetic: tuple[Path, str, str]) -> None:
    html = synthetic[2]
    assert "1 (25%)" in html  # accuracy's 0 of trial 0, one of its four results
    english = Page(fragments(html)[0]).text
    assert "left out of the mean" in english


def test_human_scores_are_plotted_with_the_correlations_of_meta(tmp_path: Path) -> None:
    rows = [
        {
            "request_id": f"h{i}",
            "request": f"question {i}",
            "response": " ".join(["alpha", "beta", "gamma", "delta"][: 1 + i % 4]),
            "expected_response": "alpha beta gamma delta",
            "metadata": {"human": {"ann1": str(1 + i % 4), "ann2": str(1 + (i + 1) % 4)}},
        }
        for i in range(12)
    ]
    result = rj.evaluate(
        rows, metrics=["word_recall", "token_f1"], store=tmp_path / "runs.db", progress=False
    )
    with Store(tmp_path / "runs.db") as s:
        html = run_report_html(s, result.run_id, human=["human"])
        table = meta_for_run(s, result.run_id, ["human"])
    assert "Agreement with human scores" in html
    row = table.blocks[0].rows[0]
    text = Page(html).words
    assert (
        f"word_recall {row.n} {fmt(row.mean)} {fmt(row.correlations['pearson'].estimate)}" in text
    )
    scatter = html[html.index("<b>word_recall × human</b>") :]
    assert scatter[: scatter.index("</svg>")].count('<circle class="pt"') == 12


def test_a_run_without_scores_and_an_unknown_key(tmp_path: Path) -> None:
    with Store(tmp_path / "runs.db") as s:
        run_id = s.create_run(
            name="empty", config={}, versions={}, samples=[], trials=1, meanings={}
        )
        html = run_report_html(s, run_id)
        assert "This run has no scores yet." in html
        with pytest.raises(KeyError):
            run_report_html(s, "nope")
    store = tmp_path / "q.db"
    run_id = quickstart_run(store, limit=3)
    with Store(store) as s, pytest.raises(ConfigError):
        run_report_html(s, run_id, by="no_such_key")


def test_written_to_the_default_file(tmp_path: Path) -> None:
    store = tmp_path / "runs.db"
    run_id = quickstart_run(store, limit=3)
    with Store(store) as s:
        path = write_run_report(s, run_id[:19])
    assert path == tmp_path / "reports" / f"{run_id}.html"
    assert path.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert not [p for p in path.parent.iterdir() if p.suffix == ".tmp"]


def test_secrets_this_process_knows_are_masked_in_the_page_and_its_fragments(
    tmp_path: Path,
) -> None:
    # a store written before the secret was known (by an older version) still holds it
    secret = "tok-SECRET-42ab/+="
    result = rj.evaluate(
        [
            {
                "request_id": "q1",
                "request": "Which token?",
                "response": f"It is {secret}.",
                "expected_response": "A token.",
            }
        ],
        metrics=["rouge_l"],
        store=tmp_path / "runs.db",
        name=f"run {secret}",
        progress=False,
    )
    register_secrets([secret])
    with Store(tmp_path / "runs.db") as store:
        html = run_report_html(store, result.run_id)
    (fragment,) = fragments(html)
    assert "It is ***." in fragment and "run ***" in html
    assert secret not in html + fragment and json.dumps(secret)[1:-1] not in html + fragment
