"""``ragjudge align``: a better judge for one score of a run, proposed from the labels
people gave its samples and measured by cross-validation on labels it did not learn
from; written as a judge file to review, never adopted by itself."""

from __future__ import annotations

import difflib
import json
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table
from rich.text import Text

from ragjudge.cli._common import DEFAULT_STORE, RunArgument, StoreOption, fail, opened_store, out

if TYPE_CHECKING:
    from ragjudge.align import AlignPlan, AlignResult, CandidateResult
    from ragjudge.stats import Estimate

__all__ = ["register"]

_CANDIDATE_HELP = (
    "A candidate judge to try (repeat for several): examples (worked examples of the "
    "disagreements, with the people's verdict and comment), criteria (criteria the judge "
    "model rewrites from the disagreements) or examples+criteria. Default: all three; "
    "a built-in yes/no metric (correctness, safety …) takes examples only."
)


def align(
    run_id: RunArgument,
    metric: Annotated[
        str,
        typer.Option(
            help="The score to align: a custom judge's name in the run, or the score of a "
            "built-in yes/no metric (response/llm_judged/correctness/rating …).",
        ),
    ],
    output: Annotated[
        Path | None,
        typer.Option("-o", "--output", help="Write the best judge to this YAML judge file."),
    ] = None,
    candidate: Annotated[
        list[str] | None, typer.Option(help=_CANDIDATE_HELP, show_default=False)
    ] = None,
    folds: Annotated[
        int, typer.Option(min=2, help="Cross-validation folds: each is measured once.")
    ] = 5,
    examples: Annotated[
        int, typer.Option(min=1, help="Worked examples a candidate adds to the judge.")
    ] = 4,
    seed: Annotated[int, typer.Option(help="Seed of the folds and the examples chosen.")] = 0,
    judge: Annotated[
        str | None,
        typer.Option(help="The judge model to use (openai/gpt-4o-mini …); default: the run's."),
    ] = None,
    dry_run: Annotated[
        bool,
        typer.Option("--dry-run", help="Print the calls and cost it would take; call nothing."),
    ] = False,
    cache: Annotated[
        bool, typer.Option(help="Use the run's judge reply cache, so nothing is asked twice.")
    ] = True,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the plan or the result as JSON.")
    ] = False,
    max_cost: Annotated[
        float | None,
        typer.Option(
            min=0, help="Refuse to start when the estimated cost in dollars is above this."
        ),
    ] = None,
    store: StoreOption = DEFAULT_STORE,
) -> None:
    """Propose a better judge for METRIC from the labels people gave the run's samples:
    worked examples of the samples where the judge and the people disagreed, rewritten
    criteria, or both. Each candidate is measured by cross-validation: it learns from
    some labels and is measured on the others, re-judging those samples, beside the
    run's own verdicts on them. The best is written with -o for you to review; no
    stored run and no config is changed."""
    import asyncio

    from ragjudge.align import CANDIDATES, AlignSettings, align_judge, align_plan

    chosen = _candidates(candidate, CANDIDATES) if candidate else None
    if output is not None and output.suffix not in (".yaml", ".yml"):
        raise fail(f"-o: {output} must be a .yaml or .yml file (a judge file)")
    settings = AlignSettings(folds, seed, examples, chosen, judge, max_cost, cache)
    with opened_store(store) as opened:
        if dry_run:
            plan = align_plan(opened, run_id, metric, settings)
            if as_json:
                print(json.dumps(asdict(plan), ensure_ascii=False, indent=2))
            else:
                _print_plan(plan, dry_run=True)
            return
        found = asyncio.run(align_judge(opened, run_id, metric, settings))
    if found.spec is not None and output is not None:
        _write_spec(output, found.spec)
    if as_json:
        print(json.dumps(_as_dict(found), ensure_ascii=False, indent=2))
        return
    _print_result(found)
    if found.spec is not None and output is not None:
        _print_adoption(found, metric, output)


def _print_adoption(found: AlignResult, metric: str, output: Path) -> None:
    """How to use the judge written to ``output``."""
    if found.plan.builtin is None:
        out.print(Text(f"written to {output}: adopt it with", style="bold"))
        out.print(
            Text(f"  - {{metric: custom_judge, name: {metric}, spec: {output}}}"), soft_wrap=True
        )
        return
    out.print(
        Text(
            f"written to {output}: adopt it by replacing the {found.plan.builtin} entry of "
            "your config's metrics: list with the entry in the file",
            style="bold",
        ),
        soft_wrap=True,
    )


def _as_dict(found: AlignResult) -> dict[str, Any]:
    """The result as JSON: the plan, each candidate's figures, the judge proposed."""
    return {
        "plan": asdict(found.plan),
        "candidates": [asdict(c) for c in found.candidates],
        "best": found.best.name if found.best is not None else None,
        "spec": found.spec,
        "calls": found.calls,
        "cost": found.cost,
    }


def _candidates(given: list[str], known: tuple[Any, ...]) -> tuple[Any, ...]:
    for name in given:
        if name not in known:
            raise fail(f"--candidate must be one of {', '.join(known)}, not {name!r}")
    return tuple(dict.fromkeys(given))


def _print_plan(plan: AlignPlan, *, dry_run: bool) -> None:
    out.print(
        Text(
            f"{plan.metric} of run {plan.run_id}: {plan.labelled} labelled samples, "
            f"{plan.disagreements} where the run's judge and the people disagree; "
            f"{plan.folds} folds, candidates: {', '.join(plan.candidates)}"
        ),
        soft_wrap=True,
    )
    if plan.builtin is not None:
        out.print(
            Text(
                f"{plan.metric} is the built-in yes/no metric {plan.builtin}: it learns worked "
                "examples (its examples option); rewritten criteria apply to custom judges only"
            ),
            soft_wrap=True,
        )
    if dry_run:
        cost = (
            "unknown (the run's calls have no price)" if plan.cost is None else f"${plan.cost:.4f}"
        )
        out.print(Text(f"would make about {plan.calls} judge calls, estimated cost {cost}"))
        out.print(Text("nothing was called (dry run)"))


def _print_result(found: AlignResult) -> None:
    _print_plan(found.plan, dry_run=False)
    table = Table(title="agreement with the people on held-out labels (95% interval)")
    for column in (
        "candidate",
        "accuracy before",
        "accuracy after",
        "kappa before",
        "kappa after",
        "per fold, before → after",
        "calls",
        "cost",
    ):
        table.add_column(column)
    for result in found.candidates:
        table.add_row(*_row(result))
    out.print(table)
    for result in found.candidates:
        _print_scale_figures(result)
        _print_left_out(result)
    out.print(
        Text(
            "each candidate learned from the other folds' labels only and was measured "
            "on the fold it never saw; 'before' is the run's judge on the same samples"
        ),
        soft_wrap=True,
    )
    cost = "" if found.cost is None else f", ${found.cost:.4f}"
    out.print(Text(f"judge calls made: {found.calls}{cost}"))
    if found.best is None or found.spec is None:
        out.print(Text("no candidate agreed with the people more than the judge as it is"))
        return
    out.print(Text(f"best: {found.best.name} (accuracy {found.best.gain:+.2f})", style="bold"))
    out.print(Text("the best judge, learned from every label, against the run's:"))
    for line in spec_diff(found.original, found.spec):
        style = "green" if line.startswith("+") else "red" if line.startswith("-") else ""
        out.print(Text(line, style=style), soft_wrap=True)


def _print_left_out(result: CandidateResult) -> None:
    left_out = sum(len(f.held_out) - f.scored for f in result.folds)
    if left_out:
        out.print(
            Text(
                f"{result.name}: {left_out} held-out sample(s) could not be judged (a failed "
                "call) and are left out of its before and after"
            ),
            soft_wrap=True,
        )


def _print_scale_figures(result: CandidateResult) -> None:
    """For labels on a scale: how often the values are equal, and the weighted kappa."""
    before, after = result.before, result.after
    if before.exact is None or after.exact is None:
        return
    kappas = ""
    if before.weighted_kappa is not None and after.weighted_kappa is not None:
        kappas = (
            f", weighted kappa {_estimate(before.weighted_kappa)} → "
            f"{_estimate(after.weighted_kappa)}"
        )
    out.print(
        Text(
            f"{result.name}, labels on a scale: same value {_estimate(before.exact)} → "
            f"{_estimate(after.exact)}{kappas}"
        ),
        soft_wrap=True,
    )


def _row(result: CandidateResult) -> list[str]:
    folds = ", ".join(f"{_number(f.before)} → {_number(f.after)}" for f in result.folds)
    return [
        result.name,
        _estimate(result.before.accuracy),
        _estimate(result.after.accuracy),
        _estimate(result.before.kappa),
        _estimate(result.after.kappa),
        folds,
        str(result.calls),
        "—" if result.cost is None else f"${result.cost:.4f}",
    ]


def _estimate(estimate: Estimate) -> str:
    if estimate.value is None:
        return "—"
    ci = estimate.ci
    return _number(estimate.value) + ("" if ci is None else f" [{ci.low:.2f}, {ci.high:.2f}]")


def _number(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def spec_diff(original: dict[str, Any], proposed: dict[str, Any]) -> list[str]:
    """The lines that differ between two judges written as YAML."""
    return [
        line
        for line in difflib.unified_diff(
            _yaml(original).splitlines(),
            _yaml(proposed).splitlines(),
            "run",
            "proposed",
            lineterm="",
        )
        if not line.startswith(("---", "+++", "@@"))
    ]


def _yaml(spec: dict[str, Any]) -> str:
    import yaml

    return yaml.safe_dump(spec, sort_keys=False, allow_unicode=True, width=88)


def _write_spec(path: Path, spec: dict[str, Any]) -> None:
    try:
        path.write_text(_yaml(spec), encoding="utf-8")
    except OSError as exc:
        raise fail(f"-o: cannot write {path}: {exc.strerror or exc}") from None


def register(app: typer.Typer) -> None:
    """Add ``ragjudge align``."""
    app.command()(align)
