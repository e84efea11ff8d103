"""``ragjudge generate`` against the local test server answering as a scripted
generator: the set and its summary, resume without calls, the dry run, a short set,
``--json`` and bad input."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ragjudge.cli import app
from ragjudge.testing.server import OpenAITestServer
from testset_script import GeneratorScript

runner = CliRunner()
KB = Path(__file__).resolve().parents[2] / "examples" / "quickstart" / "kb"
JUDGE = ["--judge", "openai/gen"]


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[OpenAITestServer]:
    with OpenAITestServer(replies=GeneratorScript().script()) as running:
        monkeypatch.setenv("OPENAI_BASE_URL", running.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-generate-key-0123456789")
        yield running


def generate(tmp_path: Path, *extra: str) -> tuple[int, str, Path]:
    output = tmp_path / "set.jsonl"
    args = ["generate", "--kb", str(KB), *JUDGE, "--store", str(tmp_path / "runs.db")]
    result = runner.invoke(app, [*args, "-o", str(output), *extra])
    return result.exit_code, result.output, output


def rows_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_a_generation_writes_the_set_and_tells_what_was_kept(
    server: OpenAITestServer, tmp_path: Path
) -> None:
    code, said, output = generate(tmp_path, "--n", "6", "--seed", "3")

    assert code == 0, said
    rows = rows_of(output)
    assert len(rows) == 6
    chunks = {p.read_text(encoding="utf-8") for p in KB.iterdir()}
    contexts = [c for row in rows for c in row.get("expected_retrieved_context", [])]
    assert contexts
    for context in contexts:
        assert any(context["content"] in text for text in chunks)
    assert "single" in said and "kept" in said
    assert f"wrote 6 samples to {output}" in said
    assert "sk-test-generate-key" not in said
    assert server.stats.requests > 0


def test_a_second_run_reads_the_stored_candidates_and_calls_nothing(
    server: OpenAITestServer, tmp_path: Path
) -> None:
    code, said, output = generate(tmp_path, "--n", "5")
    assert code == 0, said
    first = output.read_text(encoding="utf-8")
    before = server.stats.requests

    code, said, output = generate(tmp_path, "--n", "5", "--json")

    assert code == 0, said
    summary = json.loads(said)
    assert summary["calls"] == 0 and summary["resumed"] >= 5
    assert server.stats.requests == before
    assert output.read_text(encoding="utf-8") == first


def test_the_json_summary_counts_kept_and_dropped(server: OpenAITestServer, tmp_path: Path) -> None:
    code, said, _ = generate(tmp_path, "--n", "4", "--mix", "single=1", "--json")

    assert code == 0, said
    summary = json.loads(said)
    assert summary["kept"] == {"single": 4} and summary["wanted"] == {"single": 4}
    assert summary["complete"] is True and summary["stopped"] is None
    assert summary["calls"] > 0 and summary["checked"] >= 4


def test_a_dry_run_sends_nothing_and_prints_the_plan(
    server: OpenAITestServer, tmp_path: Path
) -> None:
    code, said, output = generate(tmp_path, "--n", "10", "--dry-run", "--json")

    assert code == 0, said
    plan = json.loads(said)
    assert plan["dry_run"] is True and sum(plan["wanted"].values()) == 10
    assert plan["calls"]["low"] > 0 and plan["calls"]["high"] >= plan["calls"]["low"]
    assert server.stats.requests == 0 and not output.exists()


def test_a_short_set_is_written_and_ends_with_its_reason(
    server: OpenAITestServer, tmp_path: Path
) -> None:
    kb = tmp_path / "kb"
    kb.mkdir()
    text = "A B-tree index keeps keys sorted so that range scans read neighbouring pages. "
    (kb / "only.md").write_text("# B-trees\n\n" + text * 6, encoding="utf-8")
    output = tmp_path / "set.jsonl"
    args = ["generate", "--kb", str(kb), *JUDGE, "--store", str(tmp_path / "runs.db")]
    mix = ["--mix", "single=0.5,comparative=0.5", "--n", "2", "-o", str(output)]

    result = runner.invoke(app, [*args, *mix])

    assert result.exit_code == 3, result.output
    assert "samples short" in result.output and "ran out of candidates" in result.output
    assert len(rows_of(output)) == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--n", "3"], "--kb PATH, or --config"),
        (["--kb", "no/such/kb", "--n", "3"], "no/such/kb does not exist"),
        (["--kb", str(KB), "--n", "0"], "--n: ask for at least 1 sample"),
        (["--kb", str(KB), "--mix", "singel=1"], "unknown kind 'singel'; did you mean 'single'"),
        (["--kb", str(KB), "--style", "terse,loud"], "unknown style 'loud'"),
        (["--kb", str(KB), "--language", "fr"], "language"),
    ],
)
def test_bad_input_is_named_with_exit_2(args: list[str], message: str, tmp_path: Path) -> None:
    result = runner.invoke(app, ["generate", *args, *JUDGE, "--store", str(tmp_path / "s.db")])

    assert result.exit_code == 2, result.output
    assert message in result.output
    assert "Traceback" not in result.output


def test_both_a_knowledge_base_and_a_config_is_refused(tmp_path: Path) -> None:
    config = tmp_path / "eval.yaml"
    config.write_text("data: set.jsonl\nmetrics: [exact_match]\n", encoding="utf-8")

    both = runner.invoke(app, ["generate", "--kb", str(KB), "--config", str(config)])
    none = runner.invoke(app, ["generate", "--config", str(config), "--dry-run"])

    assert both.exit_code == 2 and "not both" in both.output
    assert none.exit_code == 2 and "knowledge_base" in none.output


def test_a_config_gives_its_knowledge_base_and_judge(tmp_path: Path) -> None:
    (tmp_path / "kb").mkdir()
    (tmp_path / "kb" / "a.md").write_text("MVCC keeps old row versions. " * 20, encoding="utf-8")
    config = tmp_path / "eval.yaml"
    config.write_text(
        "data: set.jsonl\nmetrics: [exact_match]\nknowledge_base: kb\n"
        "judge: {model: openai/gpt-4o-mini}\n",
        encoding="utf-8",
    )

    result = runner.invoke(
        app, ["generate", "--config", str(config), "--n", "2", "--mix", "single=1", "--dry-run"]
    )

    assert result.exit_code == 0, result.output
    assert "openai/gpt-4o-mini" in result.output and "single" in result.output


def test_a_model_without_an_endpoint_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    code, said, output = generate(tmp_path, "--n", "2")

    assert code == 2, said
    assert "Traceback" not in said and not output.exists()
