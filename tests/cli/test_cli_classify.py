"""``ragjudge specs``, ``ragjudge counts`` and classification specs named by a config:
the spec folders of ``specs:``, spec paths beside the config, and a bad spec field as
a config error naming the file and the key (exit 2, no traceback)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from ragjudge.cli import app

runner = CliRunner()
TONE = 'tone:\n  prompt: "Is {completion} polite?"\n  choice_strings: ["Yes", "No"]\n  choice_scores: {"Yes": 1, "No": 0}\n  eval_type: classify\n'


def test_specs_lists_the_built_ins_with_choices_and_scores() -> None:
    result = runner.invoke(app, ["specs", "--json"])
    assert result.exit_code == 0, result.output
    specs = {s["name"]: s for s in json.loads(result.stdout)}
    assert (
        specs["fact"]["choices"] == ["A", "B", "C", "D", "E"]
        and specs["fact"]["choice_scores"] is None
    )
    assert specs["closedqa"]["arg_sets"] == ["relevant", "concise", "correct"]
    assert specs["battle_ja"]["choice_scores"] == {"はい": 1.0, "いいえ": 0.0}
    table = runner.invoke(app, ["specs"], terminal_width=200)
    assert "counts only" in table.output and "consistent: A=1 B=1 C=1 D=0 E=1" in table.output


def test_specs_reads_the_folders_a_config_names(tmp_path: Path) -> None:
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "tone.yaml").write_text(TONE)
    (tmp_path / "eval.yaml").write_text("metrics: [rouge_l]\nspecs: [specs]\n")
    result = runner.invoke(app, ["specs", "--config", str(tmp_path / "eval.yaml"), "--json"])
    tone = next(s for s in json.loads(result.stdout) if s["name"] == "tone")
    assert (
        tone["source"] == str(tmp_path / "specs" / "tone.yaml") and tone["eval_type"] == "classify"
    )


def test_a_bad_spec_in_a_folder_names_its_file_and_key(tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text(TONE.replace("choice_scores", "choice_score"))
    result = runner.invoke(app, ["specs", str(tmp_path)])
    assert result.exit_code == 2
    assert f"{tmp_path / 'bad.yaml'}: spec 'tone': choice_score: unknown field" in result.output


def write_eval(tmp_path: Path, metrics: str, extra: str = "") -> Path:
    rows = [
        {"request_id": "a", "request": "Thanks for asking?", "response": "Thank you kindly."},
        {"request_id": "b", "request": "Well?", "response": "Go away."},
    ]
    (tmp_path / "set.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    config = tmp_path / "eval.yaml"
    config.write_text(f"data: set.jsonl\nmetrics: {metrics}\njudge: openai/gpt-4o-mini\n{extra}")
    return config


def test_a_config_names_specs_by_folder_and_by_path(tmp_path: Path) -> None:
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "tone.yaml").write_text(TONE)
    config = write_eval(tmp_path, "[{metric: classify, spec: tone}, {metric: classify, spec: specs/tone.yaml, name: again}]", "specs: [specs]\n")  # fmt: skip
    result = runner.invoke(app, ["run", str(config), "--dry-run", "--json"])
    assert result.exit_code == 0, result.output
    plan = json.loads(result.stdout)
    assert {p["purpose"]: p["calls"] for p in plan["by_metric"]} == {"tone": 2, "again": 2}


def test_a_bad_spec_field_stops_the_run_naming_file_and_key(tmp_path: Path) -> None:
    (tmp_path / "tone.yaml").write_text(TONE.replace("eval_type: classify", "eval_type: judge"))
    config = write_eval(tmp_path, "[{metric: classify, spec: tone.yaml}]")
    result = runner.invoke(app, ["run", str(config), "--no-progress"])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert (
        f"{tmp_path / 'tone.yaml'}: spec 'tone': eval_type: 'judge' is not one of" in result.output
    )
    unknown = write_eval(tmp_path, "[{metric: classify, spec: nope}]")
    result = runner.invoke(app, ["run", str(unknown), "--no-progress"])
    assert result.exit_code == 2 and "unknown spec 'nope'; known specs: battle" in result.output


def test_counts_after_a_run(tmp_path: Path) -> None:
    import ragjudge as rj
    from ragjudge.models.scripted import ReplyScript, ScriptedProvider

    rows = [
        {"request_id": "a", "request": "q", "response": "Thank you kindly."},
        {"request_id": "b", "request": "q", "response": "Go away."},
        {"request_id": "c", "request": "q", "response": "Whatever."},
    ]
    judge = ScriptedProvider(
        ReplyScript(rules=[("kindly", "Yes"), ("Go away", "No")], default="Maybe?")
    )
    spec = {"prompt": "Is {completion} polite?", "choice_strings": ["Yes", "No"], "eval_type": "classify", "name": "polite"}  # fmt: skip
    result = rj.evaluate(rows, metrics=[{"metric": "classify", "spec": spec}], judge=judge, store=tmp_path / "r.db", progress=False)  # fmt: skip
    shown = runner.invoke(
        app, ["counts", result.run_id, "--store", str(tmp_path / "r.db"), "--json"]
    )
    assert shown.exit_code == 0, shown.output
    counts = {(c["classification"], c["choice"]): c["count"] for c in json.loads(shown.stdout)}
    assert counts == {("polite", "Yes"): 1, ("polite", "No"): 1, ("polite", "__invalid__"): 1}
    table = runner.invoke(app, ["counts", result.run_id, "--store", str(tmp_path / "r.db")])
    assert "__invalid__" in table.output and "33.3%" in table.output
    missing = runner.invoke(app, ["counts", "nope", "--store", str(tmp_path / "r.db")])
    assert missing.exit_code == 2 and "nope" in missing.output
