"""A screenshot of MLflow's own UI showing a ragjudge run's rows: end to end, offline.

Starts a local ``mlflow server`` (127.0.0.1, a SQLite store in a temporary folder),
evaluates the Databricks example with the scripted judge, logs the run with
:func:`ragjudge.log_to_mlflow` (one trace per row with its scores as feedback), opens
the run's traces page in Chromium through Playwright and saves a PNG.

    python benchmarks/mlflow_ui_screenshot.py OUT.png [--chromium /usr/bin/chromium]

Needs the ``mlflow`` extra, ``playwright`` (its Python package only: the browser is the
system's Chromium given by ``--chromium``) and a free local port.
"""

from __future__ import annotations

import argparse
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import ragjudge as rj
from ragjudge.models.scripted import ReplyScript, ScriptedProvider

ROOT = Path(__file__).resolve().parents[1]
EVALSET = ROOT / "examples" / "databricks" / "evalset.jsonl"
GLOBAL = {"english": ["The response must be in English"]}
STARTUP_SECONDS = 120


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="where to save the PNG")
    parser.add_argument("--chromium", default="/usr/bin/chromium", help="the browser to drive")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        port = _free_port()
        server = _start_server(Path(folder), port)
        try:
            url = f"http://127.0.0.1:{port}"
            _wait_until_up(url, server)
            page = _log_a_run(url, Path(folder))
            _screenshot(page, args.out, args.chromium)
        finally:
            server.terminate()
            server.wait(timeout=30)
    print(f"saved {args.out}")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _start_server(folder: Path, port: int) -> subprocess.Popen[bytes]:
    command = [
        sys.executable,
        "-m",
        "mlflow",
        "server",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--backend-store-uri",
        f"sqlite:///{folder / 'mlflow.db'}",
        "--default-artifact-root",
        str(folder / "artifacts"),
        "--workers",
        "1",
    ]
    log = (folder / "server.log").open("wb")
    return subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, cwd=folder)


def _wait_until_up(url: str, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"mlflow server stopped (exit {server.returncode})")
        try:
            with urllib.request.urlopen(f"{url}/health", timeout=2) as reply:
                if reply.status == 200:
                    return
        except OSError:
            time.sleep(1)
    raise SystemExit(f"mlflow server not up after {STARTUP_SECONDS}s")


def _log_a_run(url: str, folder: Path) -> str:
    """Evaluate the example, log it to the server; the URL of the run's traces page."""
    judge = ScriptedProvider(
        ReplyScript(rules=[("AMPLab", "Rationale: off topic.\nAnswer: no")], default="Yes.")
    )
    result = rj.evaluate(
        str(EVALSET),
        metrics=[{"metric": "databricks", "global_guidelines": GLOBAL}],
        judge=judge,
        store=folder / "runs.db",
        name="spark-example",
        skip_invalid_rows=True,
        progress=False,
    )
    logged = rj.log_to_mlflow(result, tracking_uri=url)
    return f"{url}/#/experiments/{logged.experiment_id}/traces"


def _screenshot(page_url: str, out: Path, chromium: str) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 2000, "height": 1200})
        page.goto(page_url, wait_until="load")
        # the UI polls, so the network never idles: wait for the rows (every request names Spark)
        page.get_by_text("Spark", exact=False).first.wait_for(timeout=60_000)
        page.wait_for_timeout(2_000)
        got_it = page.get_by_role("button", name="Got it")  # a first-visit tip over the table
        if got_it.count():
            got_it.first.click()
        # one row opened: its spans, and its assessments (ragjudge's scores) beside them
        page.get_by_text("How can you minimize data shuffling in Spark?", exact=True).first.click()
        page.get_by_role("button", name=re.compile("Assess")).first.click()
        page.get_by_text("relevance_to_query", exact=False).first.wait_for(timeout=60_000)
        page.mouse.move(0, 0)  # no tooltip over the spans
        page.wait_for_timeout(2_000)
        out.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(out), full_page=True)
        browser.close()


if __name__ == "__main__":
    main()
