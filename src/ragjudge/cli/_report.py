"""The command-line side of the HTML report: ``ragjudge report`` writes a run's report
(or a comparison of two runs) to one self-contained file, ``ragjudge view`` serves every
run of a store on a local, read-only web server."""

from __future__ import annotations

import ipaddress
import webbrowser
from pathlib import Path
from typing import Annotated

import typer
from rich.text import Text

from ragjudge.cli._common import (
    DEFAULT_STORE,
    RunArgument,
    StoreOption,
    err,
    fail,
    opened_store,
    out,
)
from ragjudge.cli._label_view import (
    AnnotatorOption,
    ChoicesOption,
    HideVerdictOption,
    KindOption,
    LabelOption,
    LabelOrder,
    MetricOption,
    OrderOption,
    RandomShareOption,
    ScaleOption,
    SeedOption,
    StrataOption,
    labelling_for,
)

__all__ = ["register"]


def report(
    run_id: RunArgument,
    run_b: Annotated[
        str | None,
        typer.Argument(metavar="[RUN_B]", help="A second run: write the comparison B − A."),
    ] = None,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output", "-o", help="File to write (default reports/RUN.html beside the store)."
        ),
    ] = None,
    store: StoreOption = DEFAULT_STORE,
    store_b: Annotated[
        Path | None, typer.Option("--store-b", help="Store holding RUN_B (default: --store).")
    ] = None,
    by: Annotated[
        str | None, typer.Option(help="Break down by a metadata key (default: the run's own).")
    ] = None,
    human: Annotated[
        list[str] | None,
        typer.Option(help="Metadata key holding a human score: plot each metric against it."),
    ] = None,
) -> None:
    """Write one self-contained HTML file: the run's summary with CIs, plots, every
    sample with its judge calls — or, with RUN_B, the paired comparison of the runs."""
    from ragjudge.report import write_comparison_report, write_run_report

    if run_b is None and store_b is not None:
        raise fail("--store-b goes with a second run (RUN_B)")
    if run_b is not None and human:
        raise fail("--human goes with the report of one run, not with a comparison")
    with opened_store(store) as first:
        if run_b is None:
            path = write_run_report(first, run_id, output, by=by, human=human or ())
        elif store_b is None or store_b.resolve() == store.resolve():
            path = write_comparison_report(first, run_id, first, run_b, output, by=by)
        else:
            with opened_store(store_b) as second:
                path = write_comparison_report(first, run_id, second, run_b, output, by=by)
    size = path.stat().st_size
    out.print(Text(f"report: {path} ({size / 1e6:.1f} MB)"), soft_wrap=True)


def view(
    stores: Annotated[
        list[Path] | None,
        typer.Option(
            "--store",
            help="A store, or a folder of stores (every *.db under it); repeat for several "
            "(default .ragjudge/runs.db in this folder).",
        ),
    ] = None,
    host: Annotated[
        str, typer.Option(help="Address to listen on (default 127.0.0.1: this machine only).")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on (0: any free port).")] = 8765,
    open_browser: Annotated[
        bool, typer.Option("--open", help="Open the list of runs in the default browser.")
    ] = False,
    label: LabelOption = None,
    metric: MetricOption = None,
    annotator: AnnotatorOption = None,
    kind: KindOption = None,
    scale: ScaleOption = "1-5",
    choices: ChoicesOption = None,
    hide_verdict: HideVerdictOption = False,
    order: OrderOption = LabelOrder.informative,
    random_share: RandomShareOption = 0.5,
    seed: SeedOption = 0,
    strata: StrataOption = None,
) -> None:
    """Serve the runs of one or more stores on a local, read-only web server: the list
    of runs (state, headline means, sorting and filtering), any run's report (a running
    run's page reloads itself), and the comparison of two runs. With --label RUN, also
    a page to label one score of that run's samples in the browser. Ctrl-C stops it."""
    from ragjudge.report import make_server
    from ragjudge.report._viewer import stores_in

    given = stores or [DEFAULT_STORE]
    for path in given:
        if not path.exists():
            raise fail(
                f"no store at {path}; pass --store PATH (runs are kept beside their eval.yaml)"
            )
    found = stores_in([p.resolve() for p in given])
    if not found:
        raise fail(f"no store (*.db) under {', '.join(map(str, given))}")
    for path in found:
        with opened_store(path):
            pass  # checked, and runs of an older version given their meanings (see opened_store)
    store = ", ".join(map(str, given))
    labelling = None
    if label is not None:
        labelling = labelling_for(
            found,
            label,
            metric,
            annotator,
            kind=kind,
            scale=scale,
            choices=choices,
            hide_verdict=hide_verdict,
            order=order,
            random_share=random_share,
            seed=seed,
            strata=strata,
        )
    elif metric is not None or annotator is not None:
        raise fail("--metric and --annotator go with --label RUN")
    try:
        server = make_server(found, host, port, labelling=labelling)
    except OSError as exc:
        raise fail(
            f"cannot listen on {host}:{port}: {exc.strerror or exc}; pass --port N"
        ) from None
    if not _is_loopback(host):
        err.print(
            Text(
                f"warning: listening on {host}: anyone who can reach this machine on port "
                f"{server.server_address[1]} can read every run of {store}",
                style="yellow",
            )
        )
    first_page = server.url
    if labelling is None:
        out.print(
            Text(f"serving the runs of {store} at {server.url} (read-only; Ctrl-C stops)"),
            soft_wrap=True,
        )
    else:
        from ragjudge.report._label_routes import label_address

        first_page = label_address(labelling, server.url)
        out.print(
            Text(
                f"serving the runs of {store} at {server.url}; label {labelling.task.metric} of "
                f"run {labelling.task.run_id} as {labelling.task.annotator} at {first_page} "
                "(this address holds the key that lets the page save labels; Ctrl-C stops)"
            ),
            soft_wrap=True,
        )
    if open_browser:
        webbrowser.open(first_page)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        out.print("stopped")
    finally:
        server.server_close()


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def register(app: typer.Typer) -> None:
    """Add ``report`` and ``view`` to the command line."""
    app.command("report")(report)
    app.command("view")(view)
