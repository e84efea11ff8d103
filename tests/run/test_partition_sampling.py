"""Rows chosen from partitioned logs: sampling per partition (``sample_per``) and the
row filter (``--where``) on the command line, with an incremental run."""

import json
import random
from collections import Counter
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from ragjudge.cli import app
from ragjudge.config import EvalConfig
from ragjudge.run._preparation import load_config_samples
from ragjudge.run._sampling import per_group_positions
from ragjudge.store._store import Store

runner = CliRunner()
SIZES = {"2026-11-01": 40, "2026-11-02": 7, "2026-11-03": 25}


def write_logs(root: Path, sizes: dict[str, int] = SIZES) -> Path:
    for date, count in sizes.items():
        folder = root / f"date={date}"
        folder.mkdir(parents=True, exist_ok=True)
        answers = [f"answer {i}" for i in range(count)]
        table = pa.table(
            {
                "request_id": [f"{date}-{i}" for i in range(count)],
                "request": [f"question {i}" for i in range(count)],
                "response": answers,
                "expected_response": answers,
            }
        )
        pq.write_table(table, folder / "part-0.parquet")
    return root


def test_reservoirs_draw_up_to_n_per_group_the_same_way_for_a_seed() -> None:
    rng = random.Random(1)
    values = [rng.choice("abc") for _ in range(500)] + ["d"] * 3
    drawn = per_group_positions(values, 10, seed=7)
    assert Counter(values[p] for p in drawn) == {"a": 10, "b": 10, "c": 10, "d": 3}
    assert drawn == sorted(drawn)
    assert per_group_positions(values, 10, seed=7) == drawn
    assert per_group_positions(values, 10, seed=8) != drawn


@pytest.mark.parametrize("reading", ["whole", "in pages"])
def test_sample_per_partition_counts_and_seed(tmp_path: Path, reading: str) -> None:
    logs = write_logs(tmp_path / "logs")
    settings = {"data": str(logs), "metrics": ["exact_match"], "sample": 10}
    cfg = EvalConfig.model_validate({**settings, "sample_per": "date", "seed": 3})
    if reading == "in pages":  # as the Ray executor reads a folder
        from ragjudge.run._spooling import prepare_streamed

        _, spool = prepare_streamed(cfg, logs)
        try:
            assert spool.count == 10 + 7 + 10
        finally:
            spool.remove()
        filtered = cfg.model_copy(update={"data_where": "date != '2026-11-02'"})
        _, spool = prepare_streamed(filtered, logs)
        try:
            assert spool.count == 10 + 10
        finally:
            spool.remove()
        return
    drawn = load_config_samples(cfg, None)
    assert Counter(s.metadata["date"] for s in drawn) == {
        "2026-11-01": 10,
        "2026-11-02": 7,
        "2026-11-03": 10,
    }
    again = load_config_samples(cfg, None)
    assert [s.request_id for s in again] == [s.request_id for s in drawn]
    other = load_config_samples(cfg.model_copy(update={"seed": 4}), None)
    assert [s.request_id for s in other] != [s.request_id for s in drawn]


def test_sample_per_without_sample_is_refused(tmp_path: Path) -> None:
    logs = write_logs(tmp_path / "logs")
    cfg = EvalConfig.model_validate(
        {"data": str(logs), "metrics": ["exact_match"], "sample_per": "date"}
    )
    with pytest.raises(Exception, match=r"sample_per.*give 'sample'"):
        load_config_samples(cfg, None)


def test_a_nightly_run_with_where_and_incremental(tmp_path: Path) -> None:
    write_logs(tmp_path / "logs", {"2026-11-01": 4, "2026-11-02": 3})
    (tmp_path / "logs" / "date=2026-10-01").mkdir()
    (tmp_path / "logs" / "date=2026-10-01" / "part-0.parquet").write_bytes(b"broken")
    yaml = tmp_path / "eval.yaml"
    yaml.write_text("name: nightly\ndata: logs\nmetrics: [exact_match, rouge_l]\n", "utf-8")
    store = str(tmp_path / "runs.db")
    base = ["run", str(yaml), "--incremental", "--no-progress", "--store", store, "--json"]
    first = runner.invoke(app, [*base, "--where", "date >= '2026-11-01'", "--by", "date"])
    assert first.exit_code == 0, first.output
    write_logs(tmp_path / "logs", {"2026-11-03": 2})
    second = runner.invoke(app, [*base, "--where", "date >= '2026-11-02'"])
    assert second.exit_code == 0, second.output
    with Store(store) as opened:
        kept = [{s.request_id for s in opened.samples(run.run_id)} for run in opened.runs()]
    # the first run: the two days the filter keeps; the second: only the new day's rows
    assert sorted(kept, key=len) == [
        {"2026-11-03-0", "2026-11-03-1"},
        {f"2026-11-01-{i}" for i in range(4)} | {f"2026-11-02-{i}" for i in range(3)},
    ]
    shown = json.loads(first.output[first.output.index("{") :])
    assert "date" in json.dumps(shown)


def test_an_unknown_filter_column_exits_2_naming_it(tmp_path: Path) -> None:
    write_logs(tmp_path / "logs")
    yaml = tmp_path / "eval.yaml"
    yaml.write_text("data: logs\nmetrics: [exact_match]\n", "utf-8")
    args = ["run", str(yaml), "--no-progress", "--where", "day >= '2026-11-01'"]
    result = runner.invoke(app, [*args, "--store", str(tmp_path / "runs.db")])
    assert result.exit_code == 2, result.output
    assert "'day'" in result.output and "date" in result.output
    bad = runner.invoke(app, ["run", str(yaml), "--no-progress", "--where", "date >>"])
    assert bad.exit_code == 2 and "data_where" in bad.output


def test_a_delta_table_named_in_a_config_at_a_version(tmp_path: Path) -> None:
    deltalake = pytest.importorskip("deltalake")
    table = tmp_path / "requests"
    for date, count in SIZES.items():
        answers = [f"answer {i}" for i in range(count)]
        rows = {"request_id": [f"{date}-{i}" for i in range(count)], "request": answers}
        more = pa.table({**rows, "response": answers, "date": [date] * count})
        deltalake.write_deltalake(str(table), more, mode="append", partition_by=["date"])
    settings = {"base_dir": str(tmp_path), "metrics": ["exact_match"]}
    at_one = EvalConfig.model_validate({**settings, "data": "delta:requests?version=1"})
    assert len(load_config_samples(at_one, None)) == 40 + 7
    where = {**settings, "data": "requests", "data_where": "date = '2026-11-03'"}
    assert len(load_config_samples(EvalConfig.model_validate(where), None)) == 25


def test_the_python_api_takes_the_filter(tmp_path: Path) -> None:
    import ragjudge

    logs = write_logs(tmp_path / "logs")
    result = ragjudge.evaluate(
        data=str(logs),
        metrics=["exact_match"],
        data_where="date > '2026-11-01'",
        store=str(tmp_path / "runs.db"),
        progress=False,
    )
    assert result.n_samples == 7 + 25
