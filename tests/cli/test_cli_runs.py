"""``ragjudge runs`` and ``cache stats``: statuses and errors by cause, JSON for
scripts, and a store without a cache told so."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from ragjudge.cli import app
from ragjudge.schema import Sample, Score
from ragjudge.store import Store

runner = CliRunner()


def store_of_two_runs(path: Path) -> tuple[str, str]:
    samples = [Sample(request_id="a", request="q")]
    with Store(path, write=True) as store:
        ok = store.create_run(
            name="ok", config={"metrics": ["m"]}, versions={}, samples=samples, trials=1
        )
        store.save_scores(ok, "a", 0, [Score(metric="m", value=1.0)])
        store.set_status(ok, "completed")
        bad = store.create_run(
            name="bad", config={"metrics": ["m"]}, versions={}, samples=samples, trials=1
        )
        store.save_scores(bad, "a", 0, [Score.failed("m", "judge call failed: [timeout] slow")])
        store.set_status(bad, "completed")  # as an older version stored it
    return ok, bad


def test_runs_shows_each_status_and_the_errors_by_cause(tmp_path: Path) -> None:
    store = tmp_path / "runs.db"
    ok, bad = store_of_two_runs(store)
    shown = runner.invoke(app, ["runs", "--store", str(store)], env={"COLUMNS": "200"})
    assert shown.exit_code == 0, shown.output
    (ok_line,) = [line for line in shown.output.splitlines() if ok in line]
    (bad_line,) = [line for line in shown.output.splitlines() if bad in line]
    assert "completed" in ok_line and "failed" not in ok_line
    assert "failed" in bad_line and "1 judge unreachable" in bad_line
    listed = json.loads(runner.invoke(app, ["runs", "--store", str(store), "--json"]).stdout)
    assert [(r["run_id"], r["status"], r["errors"]) for r in listed] == [
        (ok, "completed", 0),
        (bad, "failed", 1),
    ]


def test_show_takes_latest_and_an_end_of_an_id(tmp_path: Path) -> None:
    store = tmp_path / "runs.db"
    ok, bad = store_of_two_runs(store)
    latest = runner.invoke(app, ["show", "latest", "--store", str(store), "--json"])
    assert json.loads(latest.stdout)["run_id"] == bad
    end = runner.invoke(app, ["show", ok[-6:], "--store", str(store), "--json"])
    assert json.loads(end.stdout)["run_id"] == ok


def test_an_ambiguous_run_id_exits_2_listing_the_matches(tmp_path: Path) -> None:
    store = tmp_path / "runs.db"
    ok, bad = store_of_two_runs(store)
    shared = ok[:9]  # the date both ids start with
    done = runner.invoke(app, ["show", shared, "--store", str(store)])
    assert done.exit_code == 2
    assert "ambiguous" in done.stderr and ok in done.stderr and bad in done.stderr


def test_cache_stats_on_a_store_without_a_cache_says_so(tmp_path: Path) -> None:
    store = tmp_path / "runs.db"
    store_of_two_runs(store)
    said = runner.invoke(app, ["cache", "stats", "--store", str(store)])
    assert said.exit_code == 0 and "no judge cache beside" in " ".join(said.stdout.split())
    figures = json.loads(
        runner.invoke(app, ["cache", "stats", "--store", str(store), "--json"]).stdout
    )
    assert figures["exists"] is False and figures["entries"] == 0
    assert not (tmp_path / "cache.db").exists()
