"""``ragjudge run`` on a wide file of two systems makes one run per system, and
``ragjudge compare`` pairs every row of the two."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

from typer.testing import CliRunner

from ragjudge.cli import app
from wide_files import mtrag_wide_rows, write_wide

ROWS = 30


def write_config(folder: Path, systems: str) -> Path:
    config = folder / "eval.yaml"
    config.write_text(
        "name: mtrag\n"
        "data: mtrag_wide.tsv\n"
        "columns: {request: question, expected_response: reference}\n"
        f"systems: {systems}\n"
        "metrics: [token_f1]\n"
        "store: runs.db\n",
        encoding="utf-8",
    )
    return config


def test_a_wide_file_of_two_systems_runs_twice_and_compares_every_row(tmp_path: Path) -> None:
    write_wide(tmp_path / "mtrag_wide.tsv", mtrag_wide_rows(ROWS))
    config = write_config(tmp_path, "{gpt4o: response_gpt4o, llama: response_llama}")

    ran = CliRunner().invoke(app, ["run", str(config), "--no-progress"])

    assert ran.exit_code == 0, ran.output
    runs = dict(re.findall(r"^  (gpt4o|llama): (\S+)$", ran.stdout, flags=re.MULTILINE))
    assert set(runs) == {"gpt4o", "llama"}
    command = re.search(r"compare them: (ragjudge compare .*)$", ran.stdout, flags=re.MULTILINE)
    assert command is not None
    assert command.group(1).split()[2:4] == [runs["gpt4o"], runs["llama"]]

    store = str(tmp_path / "runs.db")
    compared = CliRunner().invoke(
        app, ["compare", runs["gpt4o"], runs["llama"], "--store", store, "--json"]
    )

    assert compared.exit_code == 0, compared.output
    comparison = json.loads(compared.stdout)
    assert (comparison["run_a"]["name"], comparison["run_b"]["name"]) == (
        "mtrag/gpt4o",
        "mtrag/llama",
    )
    (token_f1,) = comparison["metrics"]
    assert token_f1["n"] == ROWS
    assert comparison["only_a"] == comparison["only_b"] == []


def test_a_system_column_missing_from_the_file_stops_the_run(tmp_path: Path) -> None:
    write_wide(tmp_path / "mtrag_wide.tsv", mtrag_wide_rows(3))
    config = write_config(tmp_path, "{gpt4o: response_gpt4o, mistral: response_mistral}")

    ran = CliRunner().invoke(app, ["run", str(config), "--no-progress"])

    assert ran.exit_code == 2, ran.output
    assert "systems.mistral: no column 'response_mistral'" in ran.output
    assert "Traceback" not in ran.output


def test_two_systems_of_one_name_stop_the_config(tmp_path: Path) -> None:
    write_wide(tmp_path / "mtrag_wide.tsv", mtrag_wide_rows(3))
    config = write_config(tmp_path, "{gpt4o: response_gpt4o, GPT4o: response_llama}")

    ran = CliRunner().invoke(app, ["run", str(config), "--no-progress"])

    assert ran.exit_code == 2, ran.output
    assert "'gpt4o' and 'GPT4o' name the same system twice" in ran.output


def test_a_separator_on_a_number_column_stops_the_run_naming_the_row(tmp_path: Path) -> None:
    (tmp_path / "data.jsonl").write_text(
        json.dumps({"question": "q", "answer": "a", "gold": "a/b"})
        + "\n"
        + json.dumps({"question": "q2", "answer": "a", "gold": 3})
        + "\n",
        encoding="utf-8",
    )
    config = tmp_path / "eval.yaml"
    config.write_text(
        "data: data.jsonl\ncolumns: {expected_response: gold}\n"
        'separators: {expected_response: "/"}\nmetrics: [exact_match]\nstore: runs.db\n',
        encoding="utf-8",
    )

    ran = CliRunner().invoke(app, ["run", str(config), "--no-progress"])

    assert ran.exit_code == 2, ran.output
    assert "row 2, field 'gold'" in ran.output
    assert "separators.expected_response" in ran.output


def test_json_output_holds_one_summary_per_system(tmp_path: Path) -> None:
    write_wide(tmp_path / "mtrag_wide.tsv", mtrag_wide_rows(4))
    config = write_config(tmp_path, "{gpt4o: response_gpt4o, llama: response_llama}")

    ran = CliRunner().invoke(app, ["run", str(config), "--no-progress", "--json"])

    assert ran.exit_code == 0, ran.output
    summaries = json.loads(ran.stdout)["systems"]
    assert list(summaries) == ["gpt4o", "llama"]
    assert [s["metrics"][0]["n"] for s in summaries.values()] == [4, 4]
    assert "ragjudge compare" in ran.stderr


def test_a_dry_run_plans_each_system(tmp_path: Path) -> None:
    write_wide(tmp_path / "mtrag_wide.tsv", mtrag_wide_rows(3))
    config = write_config(tmp_path, "{gpt4o: response_gpt4o, llama: response_llama}")

    ran = CliRunner().invoke(app, ["run", str(config), "--dry-run"])

    assert ran.exit_code == 0, ran.output
    assert "system gpt4o (run mtrag/gpt4o):" in ran.stdout
    assert "system llama (run mtrag/llama):" in ran.stdout
    assert ran.stdout.count("3 samples") == 2


def test_resume_finishes_the_one_systems_run_it_names(tmp_path: Path) -> None:
    write_wide(tmp_path / "mtrag_wide.tsv", mtrag_wide_rows(9))
    config = write_config(tmp_path, "{gpt4o: response_gpt4o, llama: response_llama}")
    ran = CliRunner().invoke(app, ["run", str(config), "--no-progress"])
    assert ran.exit_code == 0, ran.output
    runs = dict(re.findall(r"^  (gpt4o|llama): (\S+)$", ran.stdout, flags=re.MULTILINE))
    store = tmp_path / "runs.db"
    with sqlite3.connect(store) as conn:  # as if the gpt4o run had been killed midway
        conn.execute("DELETE FROM scores WHERE run_id = ? AND rowid % 2 = 0", (runs["gpt4o"],))
        conn.execute("UPDATE runs SET status = 'interrupted' WHERE run_id = ?", (runs["gpt4o"],))

    resumed = CliRunner().invoke(
        app, ["run", str(config), "--resume", runs["gpt4o"], "--no-progress", "--json"]
    )

    assert resumed.exit_code == 0, resumed.output
    summary = json.loads(resumed.stdout)
    assert summary["run_id"] == runs["gpt4o"]
    assert summary["status"] == "completed"
    assert summary["metrics"][0]["n"] == 9
    assert "ragjudge compare" not in resumed.stderr  # one run, nothing to compare
    with sqlite3.connect(store) as conn:
        counts = dict(conn.execute("SELECT run_id, COUNT(*) FROM scores GROUP BY run_id"))
        (stored_runs,) = conn.execute("SELECT COUNT(*) FROM runs").fetchone()
    assert counts == {runs["gpt4o"]: 9, runs["llama"]: 9}
    assert stored_runs == 2
