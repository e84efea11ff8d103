"""The label writes of ``ragjudge view --label`` over real HTTP: only a request with
the session's token, as JSON, from the server's own page stores a label; bad labels
are refused naming the field; the read-only viewer still refuses every write."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from label_sessions import SCORE, labelled_run, serving
from ragjudge.errors import AnalysisError
from ragjudge.report import ViewerServer, make_server
from ragjudge.report._label_routes import label_address
from ragjudge.report._labelling import LabellingSession, labelling_session
from ragjudge.store._store import Store


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    store = tmp_path_factory.mktemp("labelling") / "runs.db"
    return store, labelled_run(store)


@pytest.fixture
def served(run: tuple[Path, str]) -> Iterator[tuple[ViewerServer, LabellingSession]]:
    store, run_id = run
    with serving(store, run_id, "ana") as found:
        yield found
    with Store(store) as s:  # each test starts with no label
        for label in s.labels(run_id):
            s.delete_label(label.run_id, label.request_id, label.metric, label.annotator)


def _post(
    server: ViewerServer, session: LabellingSession, body: object, **headers: str
) -> httpx2.Response:
    sent = {"Content-Type": "application/json", **headers}
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    return httpx2.post(f"{server.url}label/{session.task.run_id}", headers=sent, content=content)


def _stored(session: LabellingSession) -> list[tuple[str, object, str]]:
    with Store(session.store_path) as store:
        return [(x.request_id, x.value, x.annotator) for x in store.labels(session.task.run_id)]


def test_a_write_with_the_token_stores_the_label_and_returns_the_progress(
    served: tuple[ViewerServer, LabellingSession],
) -> None:
    server, session = served
    reply = _post(
        server,
        session,
        {"request_id": "q1", "value": True, "comment": " names Paris "},
        **{
            "X-Ragjudge-Token": session.token,
            "Origin": server.url.replace("127.0.0.1", "localhost"),
        },
    )
    assert reply.status_code == 200
    assert reply.json()["progress"]["mine"] == 1
    with Store(session.store_path) as store:
        (label,) = store.labels(session.task.run_id)
    assert (label.request_id, label.metric, label.annotator) == ("q1", SCORE, "ana")
    assert (label.kind, label.value, label.comment) == ("yesno", True, "names Paris")
    assert label.drawn in ("random", "targeted")
    cleared = _post(
        server, session, {"request_id": "q1", "clear": True}, **{"X-Ragjudge-Token": session.token}
    )
    assert cleared.status_code == 200 and _stored(session) == []


@pytest.mark.parametrize(
    ("headers", "why"),
    [
        ({}, "token"),
        ({"X-Ragjudge-Token": "not-the-token"}, "token"),
        ({"X-Ragjudge-Token": "", "Origin": "https://evil.example"}, "token"),
        ({"Origin": "https://evil.example"}, "this server's page"),
        ({"Content-Type": "text/plain"}, "application/json"),
    ],
)
def test_a_write_without_the_token_from_elsewhere_or_not_as_json_is_forbidden(
    served: tuple[ViewerServer, LabellingSession], headers: dict[str, str], why: str
) -> None:
    server, session = served
    if why != "token":
        headers = {"X-Ragjudge-Token": session.token, **headers}
    reply = _post(server, session, {"request_id": "q1", "value": True}, **headers)
    assert reply.status_code == 403
    assert why in reply.json()["error"]
    assert _stored(session) == []


@pytest.mark.parametrize(
    ("body", "status", "named"),
    [
        (b"{not json", 400, "not JSON"),
        ([1, 2], 400, "JSON object"),
        ({"value": True}, 400, "'request_id'"),
        ({"request_id": "q1", "value": "yes"}, 400, "'value'"),
        ({"request_id": "q1", "value": True, "comment": 3}, 400, "'comment'"),
        ({"request_id": "nowhere", "value": True}, 404, "no sample 'nowhere'"),
    ],
)
def test_a_bad_label_is_refused_naming_what_is_wrong(
    served: tuple[ViewerServer, LabellingSession], body: object, status: int, named: str
) -> None:
    server, session = served
    reply = _post(server, session, body, **{"X-Ragjudge-Token": session.token})
    assert reply.status_code == status
    assert named in reply.json()["error"]
    assert _stored(session) == []


def test_the_page_holds_the_token_only_when_its_address_does(
    served: tuple[ViewerServer, LabellingSession],
) -> None:
    server, session = served
    writable = httpx2.get(label_address(session, server.url))
    assert writable.status_code == 200
    assert session.token in writable.text
    assert "connect-src 'self'" in writable.headers["Content-Security-Policy"]
    assert "<script>window.hit" not in writable.text  # evaluated text is escaped
    assert "&lt;b&gt;#0&lt;/b&gt;" in writable.text or "&lt;b&gt;#1&lt;/b&gt;" in writable.text
    read_only = httpx2.get(label_address(session, server.url, token=False))
    assert read_only.status_code == 200
    assert session.token not in read_only.text and 'id="read-only"' in read_only.text
    run_page = httpx2.get(f"{server.url}run/{session.task.run_id}")
    assert 'id="label-link"' in run_page.text
    other = httpx2.get(f"{server.url}label/{session.task.run_id}?metric=word_recall")
    assert other.status_code == 404


def test_a_request_addressed_to_another_host_is_refused(
    served: tuple[ViewerServer, LabellingSession],
) -> None:
    server, session = served
    reply = _post(
        server,
        session,
        {"request_id": "q1", "value": True},
        **{"X-Ragjudge-Token": session.token, "Host": "attacker.example"},
    )
    assert reply.status_code == 421 and _stored(session) == []


def test_the_read_only_viewer_refuses_every_write(run: tuple[Path, str]) -> None:
    store, run_id = run
    server = make_server(store, "127.0.0.1", 0)

    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        reply = httpx2.post(
            f"{server.url}label/{run_id}",
            headers={"Content-Type": "application/json"},
            content=b'{"request_id": "q1", "value": true}',
        )
        assert reply.status_code == 405
        assert httpx2.get(f"{server.url}label/{run_id}").status_code == 404
    finally:
        server.shutdown()
        server.server_close()
    with Store(store) as s:
        assert s.labels(run_id) == []


def test_two_sessions_store_each_annotators_label(run: tuple[Path, str]) -> None:
    store, run_id = run
    with (
        serving(store, run_id, "ana") as (first, ana),
        serving(store, run_id, "ben") as (
            second,
            ben,
        ),
    ):
        for server, session, value in ((first, ana, True), (second, ben, False)):
            token = {"X-Ragjudge-Token": session.token}
            assert _post(server, session, {"request_id": "q4", "value": value}, **token).is_success
        wrong = _post(
            first, ana, {"request_id": "q5", "value": True}, **{"X-Ragjudge-Token": ben.token}
        )
        assert wrong.status_code == 403
    with Store(store) as s:
        assert sorted((x.annotator, x.value) for x in s.labels(run_id)) == [
            ("ana", True),
            ("ben", False),
        ]
        for x in s.labels(run_id):
            s.delete_label(x.run_id, x.request_id, x.metric, x.annotator)


def test_a_session_names_the_option_at_fault(run: tuple[Path, str]) -> None:
    store, run_id = run
    with pytest.raises(AnalysisError, match=r"--metric: .* no score 'nope'"):
        labelling_session(store, run_id, "nope", "ana")
    with pytest.raises(AnalysisError, match="--choices"):
        labelling_session(store, run_id, SCORE, "ana", kind="choice")
    with pytest.raises(AnalysisError, match="--annotator"):
        labelling_session(store, run_id, SCORE, "  ")
    assert labelling_session(store, run_id, SCORE, "ana").task.kind == "yesno"
    chosen = labelling_session(store, run_id, SCORE, "ana", choices=("good", "bad"))
    assert chosen.task.kind == "choice"
