"""Labelling a run's samples in ``ragjudge view``: the task a labelling session was
started for, the checks of a label the page sends, and the writes to the store.

A session labels one score of one run as one person (``--annotator``); another person
starts a viewer of their own on the same store, so each label carries the name of the
session that wrote it. Writes need the session's token: a random value made when the
viewer starts, printed in the address the command shows and embedded in the labelling
page. A page of another site cannot read it (the browser keeps other origins' pages
from reading this one), so it cannot write a label through the visitor's browser.
"""

from __future__ import annotations

import hmac
import json
import secrets
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ragjudge.analysis._meanings import run_meanings
from ragjudge.errors import AnalysisError, RagjudgeError
from ragjudge.meta._queue import QueueItem, QueueOrder, labelling_queue, promote_random_prefix
from ragjudge.meta._queue_strata import strata_key
from ragjudge.schema import ScoreMeaning
from ragjudge.store._labels import Label, LabelKind, value_problem
from ragjudge.store._store import Store

__all__ = [
    "TOKEN_HEADER",
    "LabelProblem",
    "LabelTask",
    "LabellingSession",
    "default_kind",
    "label_from_payload",
    "labelling_session",
]

TOKEN_HEADER = "X-Ragjudge-Token"
"""The request header a label's write carries the session's token in."""
_MAX_BODY = 64_000


class LabelProblem(RagjudgeError):
    """A write the labelling page's server refuses: ``status`` is the HTTP status to
    answer with (the page shows the message; it never reaches the command line)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class LabelTask:
    """What a labelling session asks: a label of ``kind`` for score ``metric`` of run
    ``run_id``, given by ``annotator``, the samples in the queue's ``order``."""

    run_id: str
    metric: str
    annotator: str
    kind: LabelKind
    meaning: ScoreMeaning | None = None
    scale: tuple[int, int] = (1, 5)
    choices: tuple[str, ...] = ()
    hide_verdict: bool = False
    order: QueueOrder = "informative"
    random_share: float = 0.5
    seed: int = 0
    strata: str | None = None


@dataclass
class LabellingSession:
    """A started labelling session: its task, the store it writes to, its token and
    the queue (made once, so a sample stays in the stream it was drawn from however
    many labels follow)."""

    task: LabelTask
    store_path: Path
    token: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    _queue: list[QueueItem] | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def token_matches(self, given: str | None) -> bool:
        """Whether ``given`` is this session's token (compared in constant time)."""
        return given is not None and hmac.compare_digest(given.encode(), self.token.encode())

    def queue(self, store: Store) -> list[QueueItem]:
        """Every sample of the run in labelling order, each with the stream it came from."""
        with self._lock:
            if self._queue is None:
                task = self.task
                self._queue = labelling_queue(
                    store,
                    task.run_id,
                    task.metric,
                    task.meaning,
                    order=task.order,
                    random_share=task.random_share,
                    seed=task.seed,
                    strata=task.strata,
                )
            return list(self._queue)

    def drawn(self, store: Store, request_id: str) -> Literal["random", "targeted"]:
        """The stream sample ``request_id`` was drawn from; ``LabelProblem`` (404) when
        the run holds no such sample."""
        for item in self.queue(store):
            if item.request_id == request_id:
                return item.drawn
        raise LabelProblem(404, f"run {self.task.run_id} has no sample {request_id[:200]!r}")


def default_kind(meaning: ScoreMeaning | None) -> LabelKind:
    """The label a score asks for when none is named: yes/no for a score that passes or
    fails (a yes/no score, or one with a threshold), else a value on a scale."""
    return "yesno" if meaning is not None and meaning.has_pass else "scale"


def labelling_session(
    store_path: Path,
    run_id: str,
    metric: str,
    annotator: str,
    *,
    kind: LabelKind | None = None,
    scale: tuple[int, int] = (1, 5),
    choices: tuple[str, ...] = (),
    hide_verdict: bool = False,
    order: QueueOrder = "informative",
    random_share: float = 0.5,
    seed: int = 0,
    strata: str | None = None,
) -> LabellingSession:
    """A session labelling score ``metric`` of run ``run_id`` (a unique part of its id
    will do) of the store at ``store_path``; :class:`AnalysisError` naming the option
    when the run has no such score or the options do not fit together."""
    if not annotator.strip():
        raise AnalysisError("--annotator: give the name the labels are stored under")
    if not 0.0 <= random_share <= 1.0:
        raise AnalysisError(f"--random-share must be between 0 and 1, got {random_share}")
    if strata is not None:
        try:
            strata_key(strata)
        except ValueError as exc:
            raise AnalysisError(f"--strata: {exc}") from None
    with Store(store_path) as store:
        run = store.run(run_id)
        meanings = run_meanings(run)
    if metric not in meanings:
        known = ", ".join(sorted(meanings)) or "none"
        raise AnalysisError(f"--metric: run {run.run_id} has no score {metric!r} (it has {known})")
    chosen = kind or ("choice" if choices else default_kind(meanings[metric]))
    _check_kind_options(chosen, scale, choices)
    task = LabelTask(
        run.run_id,
        metric,
        annotator.strip(),
        chosen,
        meanings[metric],
        scale,
        tuple(choices),
        hide_verdict,
        order,
        random_share,
        seed,
        strata,
    )
    return LabellingSession(task, store_path)


def _check_kind_options(kind: str, scale: tuple[int, int], choices: tuple[str, ...]) -> None:
    low, high = scale
    if kind == "scale" and not (0 <= low < high <= 9):
        raise AnalysisError(f"--scale must be LOW-HIGH with 0 <= LOW < HIGH <= 9, got {low}-{high}")
    if kind == "choice" and not 2 <= len(choices) <= 9:
        raise AnalysisError("--kind choice needs --choices with 2 to 9 names (a,b,c)")
    if choices and kind != "choice":
        raise AnalysisError(f"--choices goes with --kind choice, not {kind}")
    if len(set(choices)) != len(choices) or any(not c.strip() for c in choices):
        raise AnalysisError("--choices: give distinct, non-empty names")


def read_payload(body: bytes) -> dict[str, Any]:
    """The JSON object of a label's write; ``LabelProblem`` (400) when it is not one."""
    if len(body) > _MAX_BODY:
        raise LabelProblem(413, f"a label's request may hold at most {_MAX_BODY} bytes")
    try:
        payload = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise LabelProblem(400, f"the request is not JSON: {exc}") from None
    if not isinstance(payload, dict):
        raise LabelProblem(400, "the request must be a JSON object")
    return payload


def _text_field(payload: dict[str, Any], name: str, *, required: bool) -> str | None:
    value = payload.get(name)
    if value is None and not required:
        return None
    if not isinstance(value, str) or (required and not value):
        raise LabelProblem(400, f"field {name!r} must be a non-empty string")
    return value


def _checked_value(task: LabelTask, value: Any) -> Any:
    """``value`` as a label of the task's kind; ``LabelProblem`` (400) naming ``value``."""
    if task.kind == "scale" and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if task.kind == "scale" and isinstance(value, float):
        low, high = task.scale
        if not (low <= value <= high and value.is_integer()):
            raise LabelProblem(400, f"field 'value' must be a whole number from {low} to {high}")
    if task.kind == "choice" and isinstance(value, str) and value not in task.choices:
        raise LabelProblem(400, f"field 'value' must be one of {', '.join(task.choices)}")
    return value


def label_from_payload(session: LabellingSession, store: Store, payload: dict[str, Any]) -> Label:
    """The label a write's JSON holds (``request_id``, ``value``, ``comment``), with the
    session's run, score, person and kind and the stream the queue drew it from."""
    task = session.task
    request_id = _text_field(payload, "request_id", required=True)
    assert request_id is not None
    comment = _text_field(payload, "comment", required=False)
    comment = comment.strip() or None if comment is not None else None
    if task.kind == "comment" and comment is None:
        raise LabelProblem(400, "field 'comment' must be a non-empty string for a comment label")
    value = None if task.kind == "comment" else _checked_value(task, payload.get("value"))
    problem = value_problem(task.kind, value, comment)
    if problem is not None:
        raise LabelProblem(400, f"field 'value': {problem}")
    drawn = session.drawn(store, request_id)
    return Label(
        run_id=task.run_id,
        request_id=request_id,
        metric=task.metric,
        annotator=task.annotator,
        kind=task.kind,
        value=value,
        comment=comment,
        drawn=drawn,
    )


def apply_write(session: LabellingSession, store: Store, payload: dict[str, Any]) -> str:
    """Store the label ``payload`` holds, or with ``"clear": true`` remove this
    person's label of the sample; the request id written."""
    if payload.get("clear") is True:
        request_id = _text_field(payload, "request_id", required=True)
        assert request_id is not None
        session.drawn(store, request_id)  # 404 for a sample the run does not hold
        task = session.task
        store.delete_label(task.run_id, request_id, task.metric, task.annotator)
        return request_id
    label = label_from_payload(session, store, payload)
    store.save_label(label)
    task = session.task
    if task.order == "informative":
        # a targeted label the random stream has reached is part of the random draw
        promote_random_prefix(store, task.run_id, task.metric, task.meaning, seed=task.seed)
    return label.request_id
