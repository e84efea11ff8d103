"""The labelling page of ``ragjudge view --label``: the queue of a run's samples not yet
labelled by this person, each with its request, response, contexts, reference and
(unless hidden) the judge's verdict, the label's controls, the person's labels so far
and the progress panel.

The page runs its own small script (``label.js``), which sends each label to the
server; its Content-Security-Policy allows that script by hash and requests to its
own origin only. Every text of the evaluated data goes through the templates'
autoescaping.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from typing import Any

from markupsafe import Markup

from ragjudge._util.known_secrets import mask_secrets
from ragjudge.report._label_progress import label_progress
from ragjudge.report._labelling import LabellingSession
from ragjudge.report._page import _asset, _assets, _sha256, environment
from ragjudge.schema import Sample, Score
from ragjudge.store._labels import Label
from ragjudge.store._store import Store

__all__ = ["SHOWN_AT_ONCE", "label_page_html", "label_policy"]

SHOWN_AT_ONCE = 200
"""Samples of the queue one page holds; the page after them comes with a reload."""


@dataclass(frozen=True)
class LabelItem:
    """One sample of the page's queue, as the page shows it."""

    request_id: str
    drawn: str
    reasons: tuple[str, ...]
    sample: Sample
    response: str | None
    contexts: list[str]
    value: float | None
    passed: bool | None
    rationale: str | None
    rubric: list[str]


@cache
def _script() -> str:
    script = _asset("label.js")
    if "</script" in script.lower():
        raise ValueError("an inlined asset may not close its own element")
    return script


def label_policy(*, header: bool = True) -> str:
    """The labelling page's Content-Security-Policy: the inlined style and its script
    by hash, and requests to its own server only (the label writes); the header's
    also keeps other sites from framing the page (a page's own copy cannot)."""
    css, _ = _assets()
    return "; ".join(
        [
            "default-src 'none'",
            f"script-src 'sha256-{_sha256(_script())}'",
            f"style-src 'sha256-{_sha256(css)}'",
            "connect-src 'self'",
            "img-src data:",
            "base-uri 'none'",
            "form-action 'none'",
            *(["frame-ancestors 'none'"] if header else []),
        ]
    )


def _contexts(sample: Sample, response_contexts: list[Any] | None) -> list[str]:
    chunks = response_contexts if response_contexts is not None else sample.retrieved_context
    return [chunk.content or chunk.doc_uri for chunk in chunks or []]


def _verdict(scores: list[Score], session: LabellingSession) -> tuple[float | None, str | None]:
    """The mean of the score over the sample's trials and its first rationale."""
    mine = [s for s in scores if s.metric == session.task.metric and s.value is not None]
    if not mine:
        return None, None
    values = [s.value for s in mine if s.value is not None]
    rationale = next((s.rationale for s in mine if s.rationale), None)
    return sum(values) / len(values), rationale


def _items(store: Store, session: LabellingSession, done: set[str]) -> list[LabelItem]:
    queue = [item for item in session.queue(store) if item.request_id not in done]
    queue = queue[:SHOWN_AT_ONCE]
    page = store.results_at(session.task.run_id, [item.position for item in queue])
    samples = {s.request_id: s for s in page.samples}
    scores: dict[str, list[Score]] = {}
    for request_id, _, score in page.scores:
        scores.setdefault(request_id, []).append(score)
    meaning = session.task.meaning
    items = []
    for entry in queue:
        sample = samples[entry.request_id]
        output = page.outputs.get(entry.request_id)
        value, rationale = _verdict(scores.get(entry.request_id, []), session)
        items.append(
            LabelItem(
                request_id=entry.request_id,
                drawn=entry.drawn,
                reasons=entry.reasons,
                sample=sample,
                response=output.response if output and output.response else sample.response,
                contexts=_contexts(sample, output.retrieved_context if output else None),
                value=value,
                passed=None if meaning is None or value is None else meaning.passed(value),
                rationale=rationale,
                rubric=[item.criterion for item in sample.rubric or []],
            )
        )
    return items


def _shown_value(label: Label) -> str:
    if label.kind == "yesno":
        return "yes" if label.value else "no"
    if label.kind == "rubric" and isinstance(label.value, dict):
        return f"{sum(label.value.values())} of {len(label.value)} items met"
    if isinstance(label.value, float) and label.value.is_integer():
        return str(int(label.value))
    return "" if label.value is None else str(label.value)


def label_page_html(store: Store, session: LabellingSession, *, writable: bool) -> str:
    """The labelling page; ``writable`` embeds the session's token (the address held
    it), else the page shows the samples and says how to label."""
    task = session.task
    mine = store.labels(task.run_id, metric=task.metric, annotator=task.annotator)
    css, _ = _assets()
    page = (
        environment()
        .get_template("label.html.jinja")
        .render(
            csp=label_policy(header=False),
            css=Markup(css),
            script=Markup(_script()),
            title=f"label {task.metric} · {task.run_id}",
            task=task,
            token=session.token if writable else "",
            items=_items(store, session, {label.request_id for label in mine}),
            mine=[(label, _shown_value(label)) for label in mine],
            progress=json.dumps(label_progress(store, task)),
            shown_at_once=SHOWN_AT_ONCE,
        )
    )
    return mask_secrets(page)
