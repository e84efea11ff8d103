"""A run to label in the tests of ``ragjudge view --label``: a yes/no score (whether
the response names Paris) over twelve samples, whose texts hold markup that must be
shown as text, and a viewer labelling it, served on a free port."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import ragjudge as rj
from ragjudge.report import ViewerServer, make_server
from ragjudge.report._labelling import LabellingSession, labelling_session

SCORE = "contains_any"
SAMPLES = 12


def labelled_run(store: Path) -> str:
    """The run's id: ``q0`` … ``q11``, every third response wrong."""
    rows = [
        {
            "request_id": f"q{i}",
            "request": f"Which city is the capital of France? <b>#{i}</b>",
            "response": "Lyon <script>window.hit = 1</script>" if i % 3 == 0 else "Paris",
            "expected_response": "Paris",
            "retrieved_context": [{"doc_uri": "atlas", "content": "Paris is the capital."}],
        }
        for i in range(SAMPLES)
    ]
    result = rj.evaluate(
        rows, metrics=[{"metric": SCORE, "values": ["Paris"]}], store=store, progress=False
    )
    return result.run_id


@contextmanager
def serving(
    store: Path, run_id: str, annotator: str, **options: Any
) -> Iterator[tuple[ViewerServer, LabellingSession]]:
    """A viewer labelling ``run_id`` as ``annotator``, running in a thread."""
    session = labelling_session(store, run_id, SCORE, annotator, **options)
    server = make_server(store, "127.0.0.1", 0, labelling=session)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server, session
    finally:
        server.shutdown()
        server.server_close()
