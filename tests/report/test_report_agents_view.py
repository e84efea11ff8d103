"""The sample page of an agent and of a recorded dialogue: the tool calls made beside
those expected (missing and extra marked, a hostile tool output shown as text), and the
dialogue as chat turns with each turn's score; one Chromium check that both show on the
report's drill-down."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import ragjudge as rj
from chromium_browser import launched_chromium
from ragjudge.report._sample_page import sample_page_html
from ragjudge.store import Store

HOSTILE = "</div><script>alert(1)</script>"
AGENT_ROWS: list[dict[str, Any]] = [
    {
        "request_id": "agent",
        "request": "Rain in Oslo today?",
        "response": "No rain.",
        "tool_calls": [
            {"name": "weather", "arguments": {"day": "today"}, "output": HOSTILE},
            {"name": "geocode", "arguments": {"city": "Paris"}},
            {"name": "news", "arguments": {}},
        ],
        "expected_tool_calls": [
            {"name": "geocode", "arguments": {"city": "Oslo"}, "order": 0},
            {"name": "weather", "order": 1},
            {"name": "alert", "order": 2},
        ],
    }
]
DIALOGUE_ROWS: list[dict[str, Any]] = [
    {
        "request_id": "chat",
        "request": {
            "messages": [
                {"role": "system", "content": "You are a travel agent."},
                {"role": "user", "content": "I am Aiko."},
                {"role": "assistant", "content": "Hello Aiko, where to?"},
                {"role": "user", "content": "Oslo, please."},
            ]
        },
        "response": "Flights to Oslo leave at 9.",
    }
]


def _page(rows: list[dict[str, Any]], metrics: list[Any], tmp_path: Path) -> str:
    result = rj.evaluate(rows, metrics=metrics, store=tmp_path / "r.db", progress=False)
    with Store(tmp_path / "r.db") as store:
        return sample_page_html(store, result.run_id, rows[0]["request_id"])


def _text(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", fragment))


def test_the_timeline_sets_the_calls_made_beside_those_expected(tmp_path: Path) -> None:
    page = _page(AGENT_ROWS, ["tool_call_f1"], tmp_path)
    section = page.split('<section class="trajectory">', 1)[1].split("</section>", 1)[0]
    rows = [
        _text(r).split() for r in re.findall(r"<tr class=\"tl-[a-z]+\">(.*?)</tr>", section, re.S)
    ]
    kinds = re.findall(r'<tr class="tl-([a-z]+)">', section)
    # weather pairs with weather, geocode with geocode, news is extra, alert is missing
    assert kinds == ["paired", "paired", "extra", "missing"]
    assert rows[0][:2] == ["1", "weather"] and "weather" in rows[0][2:]
    assert rows[1][:2] == ["2", "geocode"]
    assert "not expected" in " ".join(rows[2]) and "not called" in " ".join(rows[3])
    assert "paired as tool_call_f1 paired them" in _text(section)
    assert HOSTILE not in page
    assert html.escape(HOSTILE) in page or "&lt;/div&gt;&lt;script&gt;" in page


def test_the_dialogue_shows_its_turns_with_each_turns_score(tmp_path: Path) -> None:
    metric = {"metric": "per_turn", "apply": {"metric": "regex", "pattern": "Aiko"}}
    page = _page(DIALOGUE_ROWS, [metric], tmp_path)
    section = page.split('<section class="dialogue">', 1)[1].split("</section>", 1)[0]
    chats = re.findall(
        r'<div class="chat role-([a-z]+)( evaluated)?">(.*?)</div>\s*(?=<div class="chat|$)',
        section,
        re.S,
    )
    assert [role for role, _, _ in chats] == ["system", "user", "assistant", "user", "assistant"]
    texts = [_text(body) for _, _, body in chats]
    assert "Hello Aiko, where to?" in texts[2] and "per_turn/regex 1" in " ".join(texts[2].split())
    assert "Flights to Oslo leave at 9." in texts[4] and "(evaluated)" in texts[4]
    assert "per_turn/regex 0" in " ".join(texts[4].split())


def test_a_person_sees_the_timeline_and_the_dialogue_in_the_report(tmp_path: Path) -> None:
    agent = rj.evaluate(
        AGENT_ROWS, metrics=["tool_call_f1"], store=tmp_path / "a.db", progress=False
    )
    metric = {"metric": "per_turn", "apply": {"metric": "regex", "pattern": "Aiko"}}
    chat = rj.evaluate(DIALOGUE_ROWS, metrics=[metric], store=tmp_path / "c.db", progress=False)
    reports = [agent.report(tmp_path / "agent.html"), chat.report(tmp_path / "chat.html")]
    with launched_chromium() as browser:
        page = browser.new_page()
        dialogs: list[str] = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        for report, section in zip(
            reports, ("section.trajectory", "section.dialogue"), strict=True
        ):
            page.goto(Path(report).as_uri())
            page.locator("#samples-table tbody tr").first.click()
            page.wait_for_selector(f"#drill-body {section}")
            assert page.locator(f"#drill-body {section}").is_visible()
        assert page.locator("#drill-body .chat.evaluated").count() == 1
        assert dialogs == []
