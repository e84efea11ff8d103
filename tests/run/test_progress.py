"""Progress in a notebook without ipywidgets: plain text lines, no warning; the rate-limit
note beside the progress."""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import pytest
import rich.console
from rich.console import Console

import ragjudge as rj

ROWS = [{"request": f"q{i}", "response": "yes", "expected_response": "yes"} for i in range(25)]


def test_a_notebook_without_widgets_gets_text_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    from ragjudge.run import _progress as progress

    monkeypatch.setattr(progress, "_has_widgets", lambda: False)
    out = io.StringIO()
    console = Console(file=out, force_jupyter=True)

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with progress.progress_display(True, status=lambda: "429s: 2", console=console) as t:
            t.start(20, 0)
            for _ in range(20):
                t.advance()

    lines = out.getvalue().splitlines()
    assert lines[0] == "evaluating: 0/20 · 429s: 2"
    assert lines[-1] == "evaluating: 20/20 · 429s: 2"
    assert len(lines) == 11


def test_evaluate_in_a_notebook_warns_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(rich.console, "_is_jupyter", lambda: True)

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = rj.evaluate(ROWS, metrics=["exact_match"], store=tmp_path / "r.db")

    assert result.summary()["mean"].iloc[0] == 1.0
    assert "evaluating: 25/25" in capsys.readouterr().err


def test_the_bar_shows_the_status_at_a_terminal() -> None:
    from ragjudge.run import _progress as progress

    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=120)

    with progress.progress_display(
        True, status=lambda: "429s: 3, paused, resumes in 42 s", console=console
    ) as t:
        t.start(2, 0)
        t.advance()
        t.advance()

    shown = out.getvalue()
    assert "429s: 3, paused, resumes in 42 s" in shown
    assert "samples" in shown and "2/2" in shown and "ETA" in shown


def test_the_bar_counts_judge_calls_when_their_number_is_expected() -> None:
    from ragjudge.run import _progress as progress

    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=120)

    with progress.progress_display(True, status=lambda: "", console=console) as t:
        t.start(2, 0)
        t.calls(0, None)  # unknown: no bar
        t.calls(700, 1400)
        t.calls(1400, 1400)
        t.advance()
        t.advance()

    shown = out.getvalue()
    assert "judge calls" in shown and "1400/1400" in shown and "2/2" in shown


def test_a_run_without_progress_shows_nothing() -> None:
    from ragjudge.run import _progress as progress

    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=120)

    with progress.progress_display(False, status=lambda: "429s: 3", console=console) as t:
        t.start(2, 0)
        t.advance()
        t.calls(1, 2)
        t.advance()

    assert out.getvalue() == ""
