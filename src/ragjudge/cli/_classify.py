"""The command-line side of model-graded classification: ``ragjudge specs``,
``ragjudge counts``, ``ragjudge battle`` and the config of ``run --openai-evals``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table
from rich.text import Text

from ragjudge.cli._common import DEFAULT_STORE, RunArgument, fail, opened_store, out, table_console

if TYPE_CHECKING:
    from ragjudge.config import EvalConfig, JudgeConfig
    from ragjudge.metrics.classify import ClassifySpec

__all__ = ["openai_evals_config", "register"]


def openai_evals_config(
    config: Path | None, evals: tuple[str, str] | None, **overrides: Any
) -> EvalConfig:
    """The config of ``ragjudge run [CONFIG] [--openai-evals REGISTRY EVAL]``: the file's
    settings (or the defaults without one) with the eval the option names (its folder
    read from the current one)."""
    from ragjudge.config import ConfigError, EvalConfig, load_config
    from ragjudge.config._files import read_yaml

    if evals is not None:
        registry, name = evals
        chosen = {"registry": str(Path(registry).resolve()), "eval": name}
        written = read_yaml(config) if config is not None else None
        if isinstance(written, dict) and isinstance(written.get("openai_evals"), dict):
            chosen = {**written["openai_evals"], **chosen}  # keeps the file's other settings
        overrides["openai_evals"] = chosen
    if config is not None:
        return load_config(config, **overrides)
    raw = {k: v for k, v in overrides.items() if v is not None}
    try:
        return EvalConfig.model_validate({**raw, "base_dir": Path.cwd()})
    except ValueError as exc:
        raise ConfigError(f"--openai-evals: {exc}") from None


# ragjudge specs ----------------------------------------------------------------


def specs(
    folders: Annotated[
        list[Path] | None, typer.Argument(help="Folders of spec files besides the built-ins.")
    ] = None,
    config: Annotated[
        Path | None, typer.Option(help="Also the folders named by this config's 'specs'.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
) -> None:
    """List the classification specs (built-in and in FOLDERS) with their choices and
    choice scores."""
    from ragjudge.config import load_config
    from ragjudge.metrics.classify import list_specs

    dirs = [str(f) for f in folders or []]
    if config is not None:
        loaded = load_config(config)
        dirs += [str(loaded.resolve(f)) for f in loaded.specs]
    found = list_specs(dirs)
    if as_json:
        print(json.dumps([_spec_dict(s) for s in found], ensure_ascii=False, indent=2))
        return
    table = Table(title="classification specs", title_justify="left")
    for column in ("spec", "eval_type", "choices", "choice scores", "args", "source"):
        table.add_column(column, no_wrap=column in ("spec", "eval_type"))
    for spec in found:
        row = _spec_dict(spec)
        table.add_row(
            spec.name,
            spec.eval_type,
            " ".join(spec.choice_strings),
            _scores_text(spec),
            ", ".join(row["arg_sets"]) or "–",
            spec.source,
        )
    table_console().print(table)


def _spec_dict(spec: ClassifySpec) -> dict[str, Any]:
    from ragjudge.metrics.classify import arg_sets

    return {
        "name": spec.name,
        "source": spec.source,
        "eval_type": spec.eval_type,
        "choices": list(spec.choice_strings),
        "choice_scores": spec.choice_scores,
        "scorings": spec.scorings,
        "arg_sets": [name for name in arg_sets(spec.args) if name],
        "input_outputs": spec.input_outputs,
        "language": spec.language,
        "description": spec.description,
    }


def _scores_text(spec: ClassifySpec) -> str:
    def shown(scores: dict[str, float]) -> str:
        return " ".join(f"{c}={v:g}" for c, v in scores.items())

    text = shown(spec.choice_scores) if spec.choice_scores else "counts only"
    for name, scores in spec.scorings.items():
        text += f"\n{name}: {shown(scores)}"
    return text


# ragjudge counts ---------------------------------------------------------------


def counts(
    run_id: RunArgument,
    store: Annotated[Path, typer.Option("--store", help="The SQLite store.")] = DEFAULT_STORE,
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
) -> None:
    """How often each classification chose each choice, __invalid__ included."""
    from ragjudge.analysis._choices import choice_counts

    with opened_store(store) as s:
        found = choice_counts(s, run_id)
    if as_json:
        print(json.dumps([c.to_dict() for c in found], ensure_ascii=False, indent=2))
        return
    if not found:
        out.print("the run has no classify scores")
        return
    table = Table(title=f"choices of run {run_id}", title_justify="left")
    for column in ("classification", "choice", "count", "share"):
        table.add_column(column, justify="right" if column in ("count", "share") else "left")
    for row in found:
        table.add_row(
            Text(row.classification), Text(row.choice), str(row.count), f"{row.share:.1%}"
        )
    table_console().print(table)


# ragjudge battle ---------------------------------------------------------------


def battle(
    run_a: Annotated[str, typer.Argument(metavar="RUN_A", help="The baseline run.")],
    run_b: Annotated[str, typer.Argument(metavar="RUN_B", help="The run whose win rate is shown.")],
    spec: Annotated[str, typer.Option(help="A head-to-head spec: name or .yaml path.")] = "battle",
    specs_dir: Annotated[
        list[Path] | None, typer.Option("--specs", help="A folder of spec files (repeatable).")
    ] = None,
    by: Annotated[str | None, typer.Option(help="One row per value of a metadata key.")] = None,
    judge: Annotated[
        str | None, typer.Option(help="The judge model (default: the one that judged RUN_A).")
    ] = None,
    config: Annotated[
        Path | None, typer.Option(help="Take the judge settings and spec folders from a config.")
    ] = None,
    store: Annotated[Path, typer.Option("--store", help="The SQLite store.")] = DEFAULT_STORE,
    store_b: Annotated[
        Path | None, typer.Option("--store-b", help="Store holding RUN_B (default: --store).")
    ] = None,
    concurrency: Annotated[int, typer.Option(help="Samples in flight at once.")] = 8,
    cache: Annotated[bool, typer.Option("--cache/--no-cache", help="Reuse cached replies.")] = True,
    progress: Annotated[bool, typer.Option(help="Show a progress bar.")] = True,
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
    graded: Annotated[
        bool,
        typer.Option(
            "--graded",
            help="Grade the two responses against each other with a score rubric and the "
            "reference answer (the judge names the better one), instead of a spec.",
        ),
    ] = False,
    rubric: Annotated[
        str | None,
        typer.Option(
            help="The score rubric of a graded battle, for samples without their own "
            "(metadata score_rubric). Implies --graded."
        ),
    ] = None,
    rubric_file: Annotated[
        Path | None,
        typer.Option(help="A text file holding the score rubric (as --rubric). Implies --graded."),
    ] = None,
    samples: Annotated[
        bool,
        typer.Option(
            "--samples",
            help="Also print each sample's two verdicts and whether they agree (graded "
            "battles; --json always carries them).",
        ),
    ] = False,
) -> None:
    """Judge RUN_B's responses against RUN_A's, head to head in both orders; print B's
    win rate with a bootstrap CI and the judge's position-bias rate. The battle is
    stored as a run of its own."""
    import asyncio

    from ragjudge.run._battle import run_battle

    for path in (store, store_b):
        if path is not None and not path.exists():
            raise fail(f"no store at {path}; pass --store PATH")
    rubric_text = _rubric_text(rubric, rubric_file)
    graded = graded or rubric_text is not None
    if graded and spec != "battle":
        raise fail("--spec and --graded do not go together: a graded battle uses no spec")
    judge_config, dirs = _battle_settings(judge, config)
    report = asyncio.run(
        run_battle(
            store,
            run_a,
            run_b,
            store_b=store_b,
            spec=spec,
            spec_dirs=dirs + [str(d) for d in specs_dir or []],
            graded=graded,
            rubric=rubric_text,
            judge=judge_config,
            by=by,
            concurrency=concurrency,
            progress=progress,
            use_cache=cache,
        )
    )
    if as_json:
        print(json.dumps(report.to_dict(), ensure_ascii=False, indent=2))
    else:
        _print_battle(report)
        if samples and report.graded:
            table_console().print(_verdicts_table(report))
    if report.result.verdict.exit_code:
        raise typer.Exit(report.result.verdict.exit_code)


def _rubric_text(rubric: str | None, rubric_file: Path | None) -> str | None:
    """The score rubric from ``--rubric`` or ``--rubric-file`` (not both)."""
    from ragjudge._util.textfiles import read_text_file

    if rubric is not None and rubric_file is not None:
        raise fail("pass the score rubric once: --rubric TEXT or --rubric-file PATH")
    if rubric_file is not None:
        if not rubric_file.is_file():
            raise fail(f"--rubric-file: no file at {rubric_file}")
        rubric = read_text_file(rubric_file, label=f"--rubric-file {rubric_file}")
    if rubric is not None and not rubric.strip():
        raise fail("the score rubric is empty (--rubric or --rubric-file)")
    return rubric


def _battle_settings(
    judge: str | None, config: Path | None
) -> tuple[JudgeConfig | None, list[str]]:
    from ragjudge.config import JudgeConfig, load_config

    loaded = load_config(config) if config is not None else None
    dirs = [str(loaded.resolve(f)) for f in loaded.specs] if loaded else []
    settings = loaded.primary_judge if loaded else None
    if judge is not None:
        settings = (settings or JudgeConfig(model=judge)).model_copy(update={"model": judge})
    return settings, dirs


def _print_battle(report: Any) -> None:
    table = Table(
        title=f"battle: {report.run_b} (B) against {report.run_a} (A) — spec {report.spec}, "
        "each sample judged in both orders",
        title_justify="left",
    )
    split = "inconsistent" if report.graded else "splits"
    columns = ("group", "B win rate", "95% CI", "A win rate", "n", "B wins", split, "A wins")
    for column in (*columns, "position bias", "first position", "errors"):
        table.add_column(column, justify="left" if column == "group" else "right")
    for row in report.rows:
        table.add_row(
            Text(row.group if row.group is not None else "all"),
            _fmt(row.win_rate_b),
            _interval(None if row.ci_low is None else (row.ci_low, row.ci_high)),
            _fmt(row.win_rate_a),
            str(row.n),
            str(row.b_wins),
            str(row.splits),
            str(row.a_wins),
            _with_interval(row.position_bias, row.position_bias_ci),
            _with_interval(row.first_position, row.first_position_ci),
            str(row.errors),
        )
    table.caption = _battle_caption(report.graded)
    table.caption_justify = "left"
    table_console().print(table)
    if report.left_out:
        shown = ", ".join(f"{k.replace('_', ' ')}: {v}" for k, v in report.left_out.items())
        out.print(f"left out: {shown}", highlight=False)
    result = report.result
    out.print(
        f"stored as run {result.run_id} in {result.store_path} (ragjudge show {result.run_id})",
        highlight=False,
        soft_wrap=True,
    )
    if result.verdict.exit_code:
        out.print(Text("; ".join(result.verdict.reasons), style="bold red"))


def _battle_caption(graded: bool) -> str:
    wins = (
        "B win rate: the share of B's two verdicts (1 won both, 0.5 the verdicts disagree, "
        "0 lost both); A win rate: 1 minus it; "
        if graded
        else "B win rate: B's score averaged over both orders (1 win, 0.5 split, 0 loss); "
    )
    return (
        wins + "position bias: share of samples where the judge chose the same position "
        "both times (so its verdict followed the position); first position: share of "
        "judgements preferring the response shown first (0.5 = no preference); intervals "
        "are bootstrap 95% CIs"
    )


def _verdicts_table(report: Any) -> Table:
    table = Table(title="each sample's two verdicts", title_justify="left")
    for column in ("sample", "A shown first: winner", "B shown first: winner", "agree"):
        table.add_column(column)
    for pair in report.samples:
        agree = "–" if pair.agree is None else ("yes" if pair.agree else "no")
        table.add_row(
            Text(pair.request_id),
            Text(pair.winner_a_first.upper() if pair.winner_a_first else "–"),
            Text(pair.winner_b_first.upper() if pair.winner_b_first else "–"),
            Text(agree if pair.error is None else f"error: {pair.error}"),
        )
    return table


def _with_interval(value: float | None, interval: tuple[float, float] | None) -> str:
    return _fmt(value) if interval is None else f"{_fmt(value)} {_interval(interval)}"


def _interval(interval: tuple[float, float] | None) -> str:
    return "–" if interval is None else f"[{interval[0]:.3f}, {interval[1]:.3f}]"


def _fmt(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def register(app: typer.Typer) -> None:
    """Add ``specs``, ``counts`` and ``battle`` to the command line."""
    app.command("specs")(specs)
    app.command("counts")(counts)
    app.command("battle")(battle)
