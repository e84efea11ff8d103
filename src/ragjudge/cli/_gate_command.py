"""``ragjudge gate RUN``: the quality gates checked on a stored run, so a pipeline can
gate a run after people labelled it (``NAME.calibrated``) without running it again."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import typer

from ragjudge.cli._common import DEFAULT_STORE, RunArgument, StoreOption, fail, opened_store
from ragjudge.cli._gate import parse_gates, print_gates

if TYPE_CHECKING:
    from ragjudge.analysis._gates import Gate

__all__ = ["register"]

FailUnder = Annotated[
    list[str] | None,
    typer.Option(
        "--fail-under",
        metavar="METRIC=VALUE",
        help="A score and the value it may not fall below (repeatable); NAME.passed gates "
        "the share of samples passing NAME's threshold, NAME.calibrated its mean "
        "calibrated to people's labels. Default: the gates the run was started with.",
    ),
]
FailOver = Annotated[
    list[str] | None,
    typer.Option(
        "--fail-over",
        metavar="METRIC=VALUE",
        help="A score where lower is better and the value it may not exceed (repeatable).",
    ),
]
GateOnOption = Annotated[
    str | None,
    typer.Option(
        "--gate",
        metavar="mean|ci",
        help="What the gates check: mean, or ci (the conservative end of the 95% "
        "interval). Default: what the run was started with, else mean.",
    ),
]


def _stored_gates(config: dict[str, object]) -> tuple[list[str], list[str]]:
    """The ``fail_under`` and ``fail_over`` the run was started with, as METRIC=VALUE."""

    def as_texts(key: str) -> list[str]:
        stored = config.get(key)
        return [f"{k}={v}" for k, v in stored.items()] if isinstance(stored, dict) else []

    return as_texts("fail_under"), as_texts("fail_over")


def gate(
    run_id: RunArgument,
    store: StoreOption = DEFAULT_STORE,
    fail_under: FailUnder = None,
    fail_over: FailOver = None,
    on: GateOnOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the gates as JSON.")] = False,
) -> None:
    """Check quality gates on a stored run: exit 0 when every gate holds, 5 when one
    fails, and the run's own code (3 or 4) when scores are missing. A gate on
    NAME.calibrated checks NAME's mean calibrated to the labels people gave the run
    (with --gate ci, the low end of its interval); a score nobody labelled fails it."""
    from ragjudge.analysis._results import summarize_run
    from ragjudge.cli._gate import gate_outcome

    with opened_store(store) as s:
        run = s.run(run_id)
        result = summarize_run(s, run.run_id)
    if fail_under is None and fail_over is None:
        fail_under, fail_over = _stored_gates(run.config)
    gates = parse_gates(fail_under, fail_over)
    if not gates:
        raise fail(f"run {run.run_id} was started with no gates; give one with --fail-under")
    _check_names(gates, [s.metric for s in result.summaries])
    checks = on or str(run.config.get("gate") or "mean")
    if checks not in ("mean", "ci"):
        raise fail(f"--gate takes mean or ci, not {checks!r}")
    code, results = gate_outcome(result, gates, "ci" if checks == "ci" else "mean")
    if as_json:
        shown = {"run_id": run.run_id, "exit_code": code, "gates": [g.to_dict() for g in results]}
        print(json.dumps(shown, ensure_ascii=False, indent=2))
    print_gates(results, to_stderr=as_json)
    if code:
        raise typer.Exit(code)


def _check_names(gates: list[Gate], scores: list[str]) -> None:
    from ragjudge.analysis._gates import unknown_gate_metrics

    if unknown := sorted(set(unknown_gate_metrics(gates, scores))):
        raise fail(
            f"the gate(s) name {', '.join(unknown)}, which the run does not score; "
            f"its scores: {', '.join(scores) or 'none'}"
        )


def register(app: typer.Typer) -> None:
    """Add ``ragjudge gate`` to ``app``."""
    app.command("gate")(gate)
