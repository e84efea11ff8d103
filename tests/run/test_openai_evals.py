"""openai-evals registries run as they are: the example registry (our own content in
the openai-evals layout) dry-runs without an endpoint, runs on a scripted judge with
hand-computed scores, and registry features ragjudge does not run are refused by name."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ragjudge.cli import app
from ragjudge.config import ConfigError, load_config
from ragjudge.metrics.classify import DuplicateKeyWarning, SpecError, find_spec
from ragjudge.models.scripted import ReplyScript, ScriptedProvider
from ragjudge.run._openai_evals import load_eval
from ragjudge.run._runner import run_evaluation

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "openai-evals"
REGISTRY = EXAMPLE / "registry"
runner = CliRunner()


def test_the_example_evals_translate_to_ragjudge_metrics() -> None:
    keywords = load_eval(REGISTRY, "sql-keywords")
    assert keywords.metrics == [{"metric": "match"}] and len(keywords.rows) == 5
    assert load_eval(REGISTRY, "sql-keywords-includes").metrics == [
        {"metric": "includes", "normalize": True}
    ]
    assert load_eval(REGISTRY, "sql-keywords-fuzzy").metrics == [{"metric": "fuzzy_match"}]
    fact = load_eval(REGISTRY, "sql-explain-fact")
    assert fact.metrics == [
        {
            "metric": "classify",
            "spec": "fact",
            "invalid": "error",
            "duplicate_keys": "warn",
            "eval_type": "cot_classify",
        }
    ]
    (tone,) = load_eval(REGISTRY, "sql-explain-tone.dev.v0", invalid="min").metrics
    assert tone["spec"] == f"{REGISTRY / 'modelgraded' / 'sql_tone.yaml'}#sql_tone"
    assert tone["answer_instruction"] is False and tone["invalid"] == "min"
    battle = load_eval(REGISTRY, "sql-battle")
    assert battle.rows[0] == {
        "input": "Explain a LEFT JOIN in one sentence.",
        "input2": "Explain an INNER JOIN in one sentence.",
    }


def dry_run(*args: str) -> dict[str, Any]:
    result = runner.invoke(app, ["run", *args, "--dry-run", "--json"])
    assert result.exit_code == 0, result.output
    plan: dict[str, Any] = json.loads(result.stdout)
    return plan


@pytest.mark.parametrize(
    ("eval_name", "judge_calls", "target_calls"),
    [
        ("sql-keywords", 0, 5),
        ("sql-keywords-includes", 0, 5),
        ("sql-keywords-fuzzy", 0, 5),
        ("sql-explain-fact", 3, 3),
        ("sql-explain-tone", 6, 3),  # one call per criterion
        ("sql-battle", 3, 6),  # the target answers both questions of a sample
    ],
)
def test_every_example_eval_dry_runs_without_an_endpoint(
    eval_name: str, judge_calls: int, target_calls: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    plan = dry_run(str(EXAMPLE / "eval.yaml"), "--openai-evals", str(REGISTRY), eval_name)
    assert plan["judge_calls"] == judge_calls and plan["target_calls"] == target_calls
    assert plan["errors"] == []


def test_the_config_key_alone_names_the_eval() -> None:
    plan = dry_run(str(EXAMPLE / "eval.yaml"))
    (fact,) = plan["by_metric"]
    assert fact["purpose"] == "fact" and fact["calls"] == 3
    prompt = fact["example_prompt"][0]["content"]
    # the dry run asked the target (answer.py) and shows its real answer
    assert "<<<BEGIN COMPLETION>>>\nAll rows of the left table, with the matching" in prompt
    assert plan["target_rows"] == 3 and plan["lower_bound"] is None
    assert prompt.rstrip().endswith("alone on the last line of your reply.")


def test_a_registry_spec_that_states_its_answer_format_gets_no_second_instruction() -> None:
    plan = dry_run(str(EXAMPLE / "eval.yaml"), "--openai-evals", str(REGISTRY), "sql-explain-tone")
    prompt = plan["by_metric"][0]["example_prompt"][0]["content"]
    assert prompt.rstrip().endswith(
        "write only Y if the answer has the quality or only N if it does not."
    )


def test_the_example_runs_on_a_scripted_judge(tmp_path: Path) -> None:
    def scores(eval_name: str, judge: ScriptedProvider | None = None) -> dict[str, float | None]:
        import asyncio

        config = load_config(
            EXAMPLE / "eval.yaml",
            store=str(tmp_path / "runs.db"),
            openai_evals={"registry": str(REGISTRY), "eval": eval_name},
        )
        config = config.model_copy(
            update={"judge": config.judge.model_copy(update={"preflight": False})}
        )  # type: ignore[union-attr]
        result = asyncio.run(run_evaluation(config, judge_provider=judge, progress=False))
        return {s.metric: s.mean for s in result.summaries}

    # answer.py answers "DELETE FROM the table" (wrong) and "SELECT DISTINCT" (starts
    # with SELECT, contains DISTINCT): Match 3/5, Includes 4/5, FuzzyMatch 4/5
    assert scores("sql-keywords") == {"match": pytest.approx(0.6)}
    assert scores("sql-keywords-includes") == {"includes": pytest.approx(0.8)}
    assert scores("sql-keywords-fuzzy") == {"fuzzy_match": pytest.approx(0.8)}
    judge = ScriptedProvider(
        ReplyScript(
            rules=[("表のように", "同じ事実を述べている。\nC")],
            default="It says less than the expert.\nA",
        )
    )
    fact = scores("sql-explain-fact", judge)
    assert fact["fact/A"] == pytest.approx(2 / 3) and fact["fact/C"] == pytest.approx(1 / 3)


def write_registry(root: Path, entry: str, samples: str = '{"input": "q", "ideal": "a"}\n') -> Path:
    (root / "evals").mkdir(parents=True)
    (root / "data").mkdir()
    (root / "evals" / "e.yaml").write_text(textwrap.dedent(entry))
    (root / "data" / "s.jsonl").write_text(samples)
    return root


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ("e:\n  class: evals.elsuite.translate:Translate\n  args: {samples_jsonl: s.jsonl}\n", "class 'evals.elsuite.translate:Translate' is not supported"),
        ("e:\n  class: evals.elsuite.basic.match:Match\n  args: {samples_jsonl: s.jsonl, num_few_shot: 4, few_shot_jsonl: f.jsonl}\n", "args.num_few_shot: not supported (few-shot"),
        ("e:\n  class: evals.elsuite.basic.match:Match\n  args: {samples_jsonl: s.jsonl, shots: 4}\n", "args.shots: unknown argument"),
        ("e:\n  class: evals.elsuite.basic.match:Match\n  args: {samples_jsonl: absent.jsonl}\n", "args.samples_jsonl: cannot read"),
        ("e:\n  class: evals.elsuite.modelgraded.classify:ModelBasedClassify\n  args: {samples_jsonl: s.jsonl, modelgraded_spec: nope}\n", "args.modelgraded_spec: spec: unknown spec 'nope'"),
        ("e:\n  class: evals.elsuite.modelgraded.classify:ModelBasedClassify\n  args: {samples_jsonl: s.jsonl, modelgraded_spec: fact, metaeval: true}\n", "args.metaeval: not supported"),
        ("e:\n  class: evals.elsuite.modelgraded.classify:ModelBasedClassify\n  args: {samples_jsonl: s.jsonl, modelgraded_spec: fact, multicomp_n: from_models}\n", "'from_models' is not supported"),
        ("other:\n  id: e.v0\n", "no eval 'e' in evals/*.yaml; evals: other"),
        ("e:\n  id: e\n", "needs 'class' or an 'id' naming another entry"),
    ],
)  # fmt: skip
def test_registry_problems_name_the_file_and_key(tmp_path: Path, entry: str, message: str) -> None:
    registry = write_registry(tmp_path / "reg", entry)
    with pytest.raises(ConfigError) as caught:
        load_eval(registry, "e")
    assert message in str(caught.value), str(caught.value)


def test_a_bad_registry_spec_is_a_config_error_at_the_command_line(tmp_path: Path) -> None:
    registry = write_registry(
        tmp_path / "reg",
        "e:\n  class: evals.elsuite.modelgraded.classify:ModelBasedClassify\n"
        "  args: {samples_jsonl: s.jsonl, modelgraded_spec: mine}\n",
        '{"input": "q", "completion": "an answer"}\n',
    )
    (registry / "modelgraded").mkdir()
    (registry / "modelgraded" / "mine.yaml").write_text(
        'mine:\n  prompt: "{completion}"\n  choice_strings: YN\n  choice_scores: {"Y": 1, "Q": 0}\n'
    )
    result = runner.invoke(app, ["run", "--openai-evals", str(registry), "e", "--dry-run"])
    assert result.exit_code == 2
    assert "mine.yaml: spec 'mine': choice_scores.Q: not one of the choice_strings" in result.output


def test_without_a_config_the_samples_must_hold_the_completions(tmp_path: Path) -> None:
    entry = "e:\n  class: evals.elsuite.modelgraded.classify:ModelBasedClassify\n  args: {samples_jsonl: s.jsonl, modelgraded_spec: closedqa, eval_type: classify}\n"
    registry = write_registry(
        tmp_path / "recorded", entry, '{"input": "What is 2+2?", "completion": "4"}\n'
    )
    plan = dry_run("--openai-evals", str(registry), "e")
    assert plan["judge_calls"] == 3 and plan["target_calls"] == 0
    bare = write_registry(tmp_path / "bare", entry, '{"input": "What is 2+2?"}\n')
    result = runner.invoke(app, ["run", "--openai-evals", str(bare), "e", "--dry-run"])
    assert result.exit_code == 2 and "needs 'response'" in result.output
    neither = runner.invoke(app, ["run", "--dry-run"])
    assert neither.exit_code == 2 and "--openai-evals REGISTRY EVAL" in neither.output


def test_the_option_keeps_the_configs_other_openai_evals_settings(tmp_path: Path) -> None:
    from ragjudge.cli._classify import openai_evals_config
    from ragjudge.config import EvalConfig

    config = tmp_path / "eval.yaml"
    config.write_text(f"openai_evals: {{registry: {REGISTRY}, eval: sql-keywords, invalid: min}}\n")
    chosen = openai_evals_config(config, (str(REGISTRY), "sql-explain-fact"))
    assert chosen.openai_evals is not None
    assert (chosen.openai_evals.eval, chosen.openai_evals.invalid) == ("sql-explain-fact", "min")
    # the stored record validates again (a resumed run reads the registry from it)
    again = EvalConfig.model_validate(chosen.to_record())
    assert again.openai_evals == chosen.openai_evals and again.metrics == []


MODELGRADED = "e:\n  class: evals.elsuite.modelgraded.classify:ModelBasedClassify\n  args: {samples_jsonl: s.jsonl, modelgraded_spec: closedqa}\n"
# a spec file of the registry giving a key twice, as the official keywords.yaml does
TWICE = """keywords:
  prompt: "Does {completion} name the keywords? Answer Y or N."
  choice_strings: YN
  choice_scores: {"Y": 1, "N": 0}
  choice_scores: {"Y": 1, "N": 0.5}
"""


def registry_with_a_repeated_key(root: Path) -> Path:
    registry = write_registry(root, MODELGRADED, '{"input": "q", "completion": "a"}\n')
    (registry / "modelgraded").mkdir()
    (registry / "modelgraded" / "keywords.yaml").write_text(TWICE)
    return registry


def test_a_repeated_key_in_a_registry_spec_warns_and_blocks_no_eval(tmp_path: Path) -> None:
    registry = registry_with_a_repeated_key(tmp_path / "reg")
    with pytest.warns(DuplicateKeyWarning) as caught:
        (metric,) = load_eval(registry, "e").metrics
    message = str(caught[0].message)
    assert "keywords.yaml, line 5: the key 'choice_scores' is given twice" in message
    assert "(first on line 4); the later value is used" in message
    assert metric["spec"] == "closedqa"
    # the spec with the repeated key runs too, with the later value, as PyYAML reads it
    entry = MODELGRADED.replace("closedqa", "keywords")
    (registry / "evals" / "e.yaml").write_text(entry)
    with pytest.warns(DuplicateKeyWarning):
        (keywords,) = load_eval(registry, "e").metrics
        spec = find_spec(keywords["spec"], duplicate_keys="warn")
    assert spec.choice_scores == {"Y": 1, "N": 0.5}


def test_a_repeated_key_in_a_registry_eval_file_warns_and_keeps_the_later_entry(
    tmp_path: Path,
) -> None:
    match = "e:\n  class: evals.elsuite.basic.match:Match\n  args: {samples_jsonl: s.jsonl}\n"
    includes = match.replace("basic.match:Match", "basic.includes:Includes")
    registry = write_registry(tmp_path / "reg", match + includes)
    with pytest.warns(DuplicateKeyWarning, match=r"e.yaml, line 4: the key 'e' is given twice"):
        assert load_eval(registry, "e").metrics == [{"metric": "includes", "normalize": False}]


def test_a_repeated_key_still_refuses_a_spec_outside_a_registry(tmp_path: Path) -> None:
    registry = registry_with_a_repeated_key(tmp_path / "reg")
    spec = registry / "modelgraded" / "keywords.yaml"
    with pytest.raises(SpecError, match="the key 'choice_scores' is given twice"):
        find_spec(str(spec))
    config = tmp_path / "eval.yaml"
    config.write_text("judge: openai/gpt-4o-mini\njudge: openai/gpt-4o\n")
    with pytest.raises(ConfigError, match="the key 'judge' is given twice"):
        load_config(config)


def test_the_run_command_warns_and_runs_a_registry_with_a_repeated_key(tmp_path: Path) -> None:
    registry = registry_with_a_repeated_key(tmp_path / "reg")
    with pytest.warns(DuplicateKeyWarning, match="the key 'choice_scores' is given twice"):
        result = runner.invoke(app, ["run", "--openai-evals", str(registry), "e", "--dry-run"])
    assert result.exit_code == 0, result.output


LFS_POINTER = (
    "version https://git-lfs.github.com/spec/v1\n"
    "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n"
    "size 12345\n"
)


def test_registry_samples_that_are_a_git_lfs_pointer_say_so(tmp_path: Path) -> None:
    registry = write_registry(
        tmp_path / "reg",
        "e:\n  class: evals.elsuite.basic.match:Match\n  args: {samples_jsonl: s.jsonl}\n",
        LFS_POINTER,
    )
    with pytest.raises(ConfigError) as caught:
        load_eval(registry, "e")
    assert str(caught.value) == (
        f"{registry / 'data' / 's.jsonl'}: is a Git LFS pointer, not the data: run `git lfs pull`"
    )
    result = runner.invoke(app, ["run", "--openai-evals", str(registry), "e", "--dry-run"])
    assert result.exit_code == 2 and "run `git lfs pull`" in result.output
    assert "not valid JSON" not in result.output
