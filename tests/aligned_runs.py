"""A stored run of a yes/no custom judge with a known systematic error, and people's
labels of it: the judge passes any answer that names the right author, even with the
wrong year, while the people fail those. Shown worked examples of a failing answer, or
criteria saying a wrong year fails, the judge checks the year too. Shared by the align
tests of the API and of the command line."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import ragjudge as rj
from ragjudge.models import ChatMessage
from ragjudge.models.scripted import ReplyScript, ScriptedProvider, prompt_text
from ragjudge.store import Store
from ragjudge.store._labels import Label

METRIC = "right"
ENTRY: dict[str, Any] = {
    "metric": "custom_judge",
    "name": METRIC,
    "scale": "yes/no",
    "score": "argmax",
    "threshold": 0.5,
    "criteria": "The response names who wrote the work.",
}
SCALE_ENTRY: dict[str, Any] = {**ENTRY, "scale": "1-5", "threshold": 3}
"""The same judge on a 1-5 scale: 5 for an answer it accepts, 1 (2 for a wrong author)
for one it does not."""
REWRITTEN = "The response names who wrote the work and the year it was written; a wrong year fails."
_RESPONSE = re.compile(r"<<<BEGIN RESPONSE>>>\n(.*?)\n<<<END RESPONSE>>>", re.DOTALL)


def kinds(count: int) -> list[str]:
    """Per sample: ``right``, ``wrong year`` (right author) or ``wrong author``."""
    cycle = ["right", "wrong year", "right", "wrong year", "wrong author"]
    return [cycle[i % len(cycle)] for i in range(count)]


def rows(count: int) -> list[dict[str, Any]]:
    """The evaluation set: who wrote work N and when (written 16NN)."""
    answers = {
        "right": "Shakespeare, in 16{:02d}.",
        "wrong year": "Shakespeare, in 19{:02d}.",
        "wrong author": "Marlowe, in 16{:02d}.",
    }
    return [
        {
            "request_id": f"w{i:02d}",
            "request": f"Who wrote work {i}, and in which year?",
            "response": answers[kind].format(i),
        }
        for i, kind in enumerate(kinds(count))
    ]


def judge_reply(messages: list[ChatMessage]) -> str:
    """The scripted judge: lenient on the year unless told otherwise."""
    prompt = prompt_text(messages)
    if "New criteria:" in prompt:
        return f"The person fails a wrong year.\nNew criteria:\n{REWRITTEN}"
    found = _RESPONSE.findall(prompt)
    if not found:
        return "OK"
    response = found[-1]
    instructions = prompt.split("# What to evaluate")[0]
    careful = any(
        told in instructions for told in ("a wrong year fails", "Answer: no", "[RESULT] 1")
    )
    passes = "Shakespeare" in response and (not careful or ", in 16" in response)
    if "[RESULT] n" in prompt:
        return f"Checked.\n[RESULT] {5 if passes else 1 if 'Shakespeare' in response else 2}"
    return f"Rationale: checked.\nAnswer: {'yes' if passes else 'no'}"


def scripted_judge() -> ScriptedProvider:
    """A fresh scripted judge (its ``calls`` list every prompt it answered)."""
    return ScriptedProvider(ReplyScript(function=judge_reply))


def labelled_run(
    folder: Path,
    count: int = 40,
    *,
    labelled: int | None = None,
    judge: Any = None,
    judge_file: bool = False,
    on_scale: bool = False,
    cache: bool = False,
) -> tuple[Store, str]:
    """A run of ``count`` samples with the first ``labelled`` (all) labelled by the
    people: yes for the right answers only, a comment on each wrong year. With
    ``judge_file`` the judge is read from ``judges/right.yaml``, named relative to the
    config's folder (the working folder: the caller changes to ``folder``). With
    ``on_scale`` the judge and the labels are on a 1–5 scale (5 right, 1 wrong)."""
    data = folder / "works.jsonl"
    data.write_text("\n".join(json.dumps(r) for r in rows(count)) + "\n", encoding="utf-8")
    path = folder / "runs.db"
    entry = SCALE_ENTRY if on_scale else ENTRY
    if judge_file:
        (folder / "judges").mkdir()
        options = {k: v for k, v in entry.items() if k not in ("metric", "name")}
        (folder / "judges" / "right.yaml").write_text(json.dumps(options), encoding="utf-8")
        entry = {"metric": "custom_judge", "name": METRIC, "spec": "judges/right.yaml"}
    rj.evaluate(
        data=str(data),
        metrics=[entry],
        judge=judge if judge is not None else scripted_judge(),
        store=str(path),
        cache=cache,
    )
    store = Store(path, write=True)
    run_id = store.runs()[0].run_id
    found = kinds(count)[: labelled if labelled is not None else count]
    store.save_labels(_labels(run_id, found, on_scale=on_scale))
    return store, run_id


def _labels(run_id: str, found: list[str], *, on_scale: bool) -> list[Label]:
    return [
        Label(
            run_id=run_id,
            request_id=f"w{i:02d}",
            metric=METRIC,
            annotator="reviewer",
            kind="scale" if on_scale else "yesno",
            value=(5 if kind == "right" else 1) if on_scale else kind == "right",
            comment="the year is wrong" if kind == "wrong year" else None,
        )
        for i, kind in enumerate(found)
    ]
