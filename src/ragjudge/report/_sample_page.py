"""The page of one sample of a stored run, found by its request id: everything behind
it (request, response, contexts, each score with its judge calls), as the run's
report shows it when the sample is opened. What ``ragjudge view`` serves at
``/run/RUN/sample/ID``, so any sample of a run too large to embed whole can be opened."""

from __future__ import annotations

from markupsafe import Markup

from ragjudge.analysis._meanings import run_meanings
from ragjudge.errors import AnalysisError
from ragjudge.report._page import render_fragment, render_page
from ragjudge.report._samples import calls_by_id, drill_views
from ragjudge.store._store import Store

__all__ = ["sample_page_html"]


def sample_page_html(store: Store, run_id: str, request_id: str, *, home: str | None = None) -> str:
    """The page of sample ``request_id`` of run ``run_id`` (a unique prefix will do).
    Raises ``KeyError`` for an unknown run and :class:`AnalysisError` for a request id
    the run does not hold."""
    run = store.run(run_id)
    position = store.sample_position(run.run_id, request_id)
    if position is None:
        raise AnalysisError(f"run {run.run_id} has no sample {request_id!r}")
    page = store.results_at(run.run_id, [position])
    ids = [i for _, _, score in page.scores for i in score.judge_call_ids]
    calls = calls_by_id(store.judge_calls_by_id(run.run_id, ids))
    (drill,) = drill_views(page.samples, page.outputs, page.scores, calls, run_meanings(run))
    return render_page(
        "sample.html.jinja",
        title=f"{request_id} · {run.name or 'run'} · {run.run_id}",
        run=run,
        request_id=request_id,
        drill=Markup(render_fragment("drill.html.jinja", d=drill)),
        home=home,
    )
