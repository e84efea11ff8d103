"""The labelling session's requests in ``ragjudge view``: the page (GET ``/label/RUN``)
and the label writes (POST ``/label/RUN`` with a JSON body).

A write is refused (403, nothing stored) unless it carries the session's token in the
``X-Ragjudge-Token`` header, comes as ``application/json`` (a cross-site form cannot
send that type without the browser asking first, which this server never allows) and,
when the browser names the page it came from (``Origin``), comes from this server's
own address.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from email.message import Message
from http import HTTPStatus
from typing import Any
from urllib.parse import parse_qs, urlsplit

from ragjudge.report._label_page import label_page_html
from ragjudge.report._label_progress import label_progress
from ragjudge.report._labelling import (
    TOKEN_HEADER,
    LabellingSession,
    LabelProblem,
    apply_write,
    read_payload,
)
from ragjudge.store._store import Store

__all__ = ["LABEL_PATH", "label_address", "label_page", "label_write"]

LABEL_PATH = "/label/"


def label_address(session: LabellingSession, base_url: str, *, token: bool = True) -> str:
    """The address of the session's labelling page (with its token: writable)."""
    address = (
        f"{base_url.rstrip('/')}{LABEL_PATH}{session.task.run_id}?metric={session.task.metric}"
    )
    return f"{address}&token={session.token}" if token else address


def _check_run(session: LabellingSession, path: str) -> None:
    if path.removeprefix(LABEL_PATH) != session.task.run_id:
        raise LabelProblem(
            HTTPStatus.NOT_FOUND,
            f"this viewer labels run {session.task.run_id} only; start another for "
            f"{path.removeprefix(LABEL_PATH)[:80]!r}",
        )


def label_page(session: LabellingSession, raw_path: str) -> str:
    """The labelling page for ``raw_path``; writable only when its query holds the
    session's token. ``LabelProblem`` for another run or score."""
    parts = urlsplit(raw_path)
    _check_run(session, parts.path)
    query = parse_qs(parts.query)
    metric = (query.get("metric") or [session.task.metric])[0]
    if metric != session.task.metric:
        raise LabelProblem(
            HTTPStatus.NOT_FOUND,
            f"this viewer labels score {session.task.metric} only, not {metric[:80]!r}",
        )
    writable = session.token_matches(next(iter(query.get("token", [])), None))
    with Store(session.store_path) as store:
        return label_page_html(store, session, writable=writable)


def _check_origin(headers: Message, own: Collection[str]) -> None:
    origin = headers.get("Origin")
    if origin is not None and origin.rstrip("/") not in own:
        raise LabelProblem(
            HTTPStatus.FORBIDDEN, "a label may be written from this server's page only"
        )


def label_write(
    session: LabellingSession,
    raw_path: str,
    headers: Message,
    body: bytes,
    own: Collection[str],
) -> tuple[int, dict[str, Any]]:
    """The status and JSON reply to a label's write at ``raw_path``, which may come
    from the pages of the origins ``own`` (this server's addresses) only; the label is
    stored only when the status is 200."""
    try:
        if not session.token_matches(headers.get(TOKEN_HEADER)):
            raise LabelProblem(
                HTTPStatus.FORBIDDEN,
                f"a write needs the session's token in the {TOKEN_HEADER} header",
            )
        _check_origin(headers, own)
        kind = (headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if kind != "application/json":
            raise LabelProblem(HTTPStatus.FORBIDDEN, "a write must be sent as application/json")
        _check_run(session, urlsplit(raw_path).path)
        payload = read_payload(body)
        with Store(session.store_path) as store:
            request_id = apply_write(session, store, payload)
            progress = label_progress(store, session.task)
    except LabelProblem as exc:
        return exc.status, {"error": str(exc)}
    return HTTPStatus.OK, {"ok": True, "request_id": request_id, "progress": progress}


def json_body(reply: dict[str, Any]) -> bytes:
    """A JSON reply's bytes."""
    return json.dumps(reply, ensure_ascii=False).encode("utf-8")
