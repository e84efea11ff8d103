"""Parse failures of JSON judge replies per 1,000 replies: text replies against replies
kept to the reply's JSON schema.

``likert`` (whose judge replies ``{"explanation": …, "rating": n}``) scores
``--samples`` responses through ``ragjudge``'s runner against the local
OpenAI-compatible test server. Its scripted judge writes every verdict as one JSON
object, and its ``garbled`` fault spoils ``--garbled-rate`` of the text replies as
judges writing free text spoil theirs (cut off halfway, wrapped in pleasantries, in a
code fence, single-quoted, or written twice; one drawn per reply). Re-asks are off, so
each reply is read exactly once, and nothing is cached. Three runs:

1. **text**: ``structured: never`` — no schema is sent;
2. **schema**: ``structured: auto`` — the schema is sent and the server keeps its
   replies to it, as a server that constrains its decoding does (no garbling);
3. **refused**: ``structured: auto`` against a server that refuses schemas — the run
   falls back to text replies, with a note.

Printed per run: the judge's replies, the garbled ones, the replies that did not parse
and their number per 1,000 replies, and stored values that are not the scripted
verdict. Bounds: 0 parse failures with schemas, 0 silently wrong values in every run,
and the refused run has its note and loses no sample. The text run's failures depend on
the garble mix and the reader's tolerance, so they are printed without a bound.
Exit status 1 when a bound is missed. Run with ``make bench`` or::

    .venv/bin/python benchmarks/structured_replies.py [--samples N] [--garbled-rate R]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import re
import sqlite3
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ragjudge.config import EvalConfig
from ragjudge.models.scripted import ReplyScript, prompt_text
from ragjudge.run._runner import run_evaluation
from ragjudge.testing.server import FaultPlan, OpenAITestServer

RESPONSE = re.compile(r"\(assistant\)>>>\nanswer (\d+)\n")


def rating_of(number: int) -> int:
    """The rating the scripted judge gives answer ``number``."""
    return int(hashlib.sha256(str(number).encode()).hexdigest(), 16) % 5 + 1


def judge_reply(messages: list[dict[str, object]]) -> str:
    found = RESPONSE.search(prompt_text(messages))
    if found is None:
        return "OK"
    number = int(found.group(1))
    return json.dumps({"explanation": f"Judged answer {number}.", "rating": rating_of(number)})


@dataclass
class Outcome:
    """What one run stored and what the server saw."""

    mode: str
    samples: int
    replies: int
    garbled: int
    parse_failures: int
    wrong_values: int
    lost_samples: int
    refused_requests: int
    notes: list[str]

    @property
    def per_thousand(self) -> float:
        return 1000.0 * self.parse_failures / self.replies if self.replies else 0.0


async def evaluate(folder: Path, server: OpenAITestServer, structured: str) -> str:
    config = EvalConfig.model_validate(
        {
            "data": str(folder / "set.jsonl"),
            "metrics": ["likert"],
            "judge": {
                "model": "openai/bench-judge",
                "base_url": server.base_url,
                "structured": structured,
                "reask_limit": 0,
                "max_retries": 2,
                "timeout": 30,
                "max_concurrency": 16,
                "preflight": False,
            },
            "concurrency": 16,
            "max_error_rate": 1.0,
            "base_dir": str(folder),
        }
    )
    result = await run_evaluation(config, progress=False, use_cache=False)
    return result.run_id


def measure(samples: int, rate: float, mode: str, seed: int) -> Outcome:
    faults = FaultPlan(garbled_rate=rate, seed=seed)
    server = OpenAITestServer(
        replies=ReplyScript(function=judge_reply),
        faults=faults,
        refuse_schemas=mode == "refused",
    )
    with tempfile.TemporaryDirectory() as tmp, server:
        folder = Path(tmp)
        rows = [
            {"request_id": f"q{i:05d}", "request": f"question {i}", "response": f"answer {i}"}
            for i in range(samples)
        ]
        (folder / "set.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
        structured = "never" if mode == "text" else "auto"
        run_id = asyncio.run(evaluate(folder, server, structured))
        return outcome(folder / ".ragjudge" / "runs.db", run_id, mode, samples, server)


def outcome(store: Path, run_id: str, mode: str, samples: int, server: OpenAITestServer) -> Outcome:
    with sqlite3.connect(store) as conn:
        scores = conn.execute(
            "SELECT request_id, value FROM scores WHERE run_id = ?", (run_id,)
        ).fetchall()
        calls = conn.execute(
            "SELECT text, error FROM judge_calls WHERE run_id = ? AND purpose = 'likert'",
            (run_id,),
        ).fetchall()
        notes = [
            json.loads(data)["text"]
            for (data,) in conn.execute(
                "SELECT data_json FROM run_events WHERE run_id = ? AND kind = 'note'", (run_id,)
            )
        ]
    replies = [error for text, error in calls if text is not None]
    wrong = [rid for rid, value in scores if value is not None and value != rating_of(int(rid[1:]))]
    return Outcome(
        mode=mode,
        samples=samples,
        replies=len(replies),
        garbled=server.stats.garbled,
        parse_failures=sum(1 for e in replies if e is not None and e.startswith("parse error")),
        wrong_values=len(wrong),
        lost_samples=samples - len({rid for rid, _ in scores}),
        refused_requests=server.stats.schema_refusals,
        notes=[note for note in notes if "reply schemas" in note],
    )


def report(outcomes: list[Outcome]) -> bool:
    print(f"{'run':8} {'replies':>8} {'garbled':>8} {'unparsed':>9} {'per 1,000':>10} {'wrong':>6}")
    for o in outcomes:
        print(
            f"{o.mode:8} {o.replies:>8} {o.garbled:>8} {o.parse_failures:>9} "
            f"{o.per_thousand:>10.1f} {o.wrong_values:>6}"
        )
    by_mode = {o.mode: o for o in outcomes}
    refused = by_mode["refused"]
    print(f"refused run: {refused.refused_requests} refused request(s); notes: {refused.notes}")
    checks = [
        ("parse failures per 1,000 schema replies", by_mode["schema"].per_thousand, "= 0", by_mode["schema"].parse_failures == 0),
        ("silently wrong values (all runs)", sum(o.wrong_values for o in outcomes), "= 0", all(o.wrong_values == 0 for o in outcomes)),
        ("lost samples (all runs)", sum(o.lost_samples for o in outcomes), "= 0", all(o.lost_samples == 0 for o in outcomes)),
        ("notes of the refused run", len(refused.notes), "= 1", len(refused.notes) == 1),
    ]  # fmt: skip
    print(f"\n{'figure':42} {'value':>8}  bound")
    for name, value, bound, ok in checks:
        print(f"{name:42} {value:>8g}  {bound:6} {'PASS' if ok else 'FAIL'}")
    return all(ok for *_, ok in checks)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=1000)
    parser.add_argument("--garbled-rate", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    outcomes = [
        measure(args.samples, args.garbled_rate, mode, args.seed)
        for mode in ("text", "schema", "refused")
    ]
    print(
        f"structured replies: likert on {args.samples} samples, "
        f"{args.garbled_rate:.0%} of text replies garbled, no re-asks\n"
    )
    return 0 if report(outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
