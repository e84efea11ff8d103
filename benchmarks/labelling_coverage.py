"""Whether the labelling queue's random share keeps the calibrated estimate honest.

Data: the MTRAG human evaluation (``../shared/data/mtrag-human``): 477 answers, each
rated for faithfulness 1–4 by two or three people. The human target is the share of
answers whose mean rating is at least 3 ("mostly yes" or better); the truth is that
share over all 477. The judge is RAGAS faithfulness stored in the file (``rl_f``),
passing at 0.5, with the file's LLM judge (``rb_llm``, passing at 0.75) as a second
judge of the same metric, so the informative queue also sees where judges disagree.

The run is stored in a temporary store and each repetition asks
:func:`ragjudge.meta._queue.labelling_queue` for a queue with a new seed, "labels" its
first n items with the human target, and estimates with
:func:`ragjudge.analysis._calibrated.calibrated_estimate`, three ways:

- ``random``: the random queue, every label a random draw;
- ``informative, random share``: the informative queue with half its slots random,
  only the random labels used, targeted labels in the random prefix promoted
  (what the labelling page and the calibrated estimate do);
- ``informative, not promoted``: the same, but the targeted labels in the random
  prefix left out (the random labels are then a draw from the samples the targeted
  stream did not take, which is biased);
- ``informative, all labels``: the same labels all used, as if they were a random
  draw (the misuse the random share avoids).

Printed per row: the labels given, those the estimate used (mean), the coverage of the
95% interval of PPI and PPI++ (share of repetitions whose interval holds the truth),
the mean width of the PPI++ interval and of the humans-only interval from the same
labels, and the PPI++ estimate's mean error (bias) against the truth. Run with::

    .venv/bin/python benchmarks/labelling_coverage.py [--repetitions 1000]
        [--sizes 25 50 100] [--data ../shared/data/mtrag-human]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ragjudge.analysis._calibrated import calibrated_estimate
from ragjudge.meta._queue import QueueItem, labelling_queue, random_order, random_prefix
from ragjudge.schema import Sample, Score, ScoreMeaning
from ragjudge.store import Label, Store

FILE = "reference_subset_with_human_evaluations.json"
SCORE = "faithfulness@ragas"
JUDGES = {SCORE: ("rl_f", 0.5), "faithfulness@llm": ("rb_llm", 0.75)}
WAYS = (
    "random",
    "informative, random share",
    "informative, not promoted",
    "informative, all labels",
)


@dataclass
class Tally:
    """What one way of labelling gave over the repetitions at one size."""

    used: list[int] = field(default_factory=list)
    ppi: list[bool] = field(default_factory=list)
    tuned: list[bool] = field(default_factory=list)
    ppi_width: list[float] = field(default_factory=list)
    width: list[float] = field(default_factory=list)
    human_width: list[float] = field(default_factory=list)
    error: list[float] = field(default_factory=list)


def _value(annotation: dict[str, dict[str, float]]) -> float:
    return float(next(iter(annotation.values()))["value"])


def load(folder: Path) -> tuple[list[str], dict[str, bool], dict[str, dict[str, float]]]:
    """The answers' ids, the human target of each and each judge's value."""
    data = json.loads((folder / FILE).read_text(encoding="utf-8"))
    ids, human, judged = [], {}, {}
    for row in data["evaluations"]:
        request_id = f"{row['task_id']}/{row['model_id']}"
        notes = row["annotations"]
        ratings = [int(v["value"]) for v in notes["faithfulness"].values()]
        ids.append(request_id)
        human[request_id] = sum(ratings) / len(ratings) >= 3
        judged[request_id] = {score: _value(notes[key]) for score, (key, _) in JUDGES.items()}
    return ids, human, judged


def store_run(
    store: Store, ids: Sequence[str], judged: dict[str, dict[str, float]], run_id: str
) -> str:
    """The answers stored as one run with both judges' scores."""
    meanings = {
        score: ScoreMeaning(metric="faithfulness", judge=score.split("@")[1], threshold=line)
        for score, (_, line) in JUDGES.items()
    }
    samples = [Sample(request_id=i, request=i) for i in ids]
    run_id = store.create_run(
        name=None,
        config={},
        versions={},
        samples=samples,
        trials=1,
        meanings=meanings,
        run_id=run_id,
    )
    for request_id in ids:
        scores = [Score(metric=s, value=v) for s, v in judged[request_id].items()]
        store.save_scores(run_id, request_id, 0, scores)
    return run_id


class Labeller:
    """Turns the first items of a queue into the labels each way of estimating uses."""

    def __init__(self, run_id: str, human: dict[str, bool]) -> None:
        self.run_id, self.human = run_id, human
        self._made: dict[tuple[str, str], Label] = {}

    def label(self, request_id: str, drawn: str) -> Label:
        key = (request_id, drawn)
        if key not in self._made:
            self._made[key] = Label.model_validate(
                {
                    "run_id": self.run_id,
                    "request_id": request_id,
                    "metric": "faithfulness",
                    "annotator": "panel",
                    "kind": "yesno",
                    "value": self.human[request_id],
                    "drawn": drawn,
                }
            )
        return self._made[key]

    def as_queued(self, items: Sequence[QueueItem], order: Sequence[str]) -> list[Label]:
        """Labels as the queue marks them, those in the random prefix promoted."""
        prefix = set(random_prefix(order, {item.request_id for item in items}))
        return [
            self.label(item.request_id, "random" if item.request_id in prefix else item.drawn)
            for item in items
        ]

    def as_drawn(self, items: Sequence[QueueItem]) -> list[Label]:
        """Labels as the queue marks them, nothing promoted."""
        return [self.label(item.request_id, item.drawn) for item in items]

    def all_random(self, items: Sequence[QueueItem]) -> list[Label]:
        return [self.label(item.request_id, "random") for item in items]


def record(tally: Tally, labels: list[Label], judged: dict[str, float], truth: float) -> None:
    meaning = ScoreMeaning(metric="faithfulness", judge="ragas", threshold=JUDGES[SCORE][1])
    found = calibrated_estimate(judged, labels, SCORE, meaning)
    assert found is not None
    ppi, tuned, human = found.estimate.ppi, found.estimate.tuned, found.estimate.human
    assert ppi.ci is not None and tuned.ci is not None and human.ci is not None
    tally.used.append(found.used)
    tally.ppi.append(ppi.ci.low <= truth <= ppi.ci.high)
    tally.tuned.append(tuned.ci.low <= truth <= tuned.ci.high)
    tally.ppi_width.append(ppi.ci.high - ppi.ci.low)
    tally.width.append(tuned.ci.high - tuned.ci.low)
    tally.human_width.append(human.ci.high - human.ci.low)
    tally.error.append(float(tuned.value or 0.0) - truth)


def drawn_run(
    ids: list[str], human: dict[str, bool], judged: dict[str, dict[str, float]], seed: int
) -> tuple[list[str], dict[str, bool], dict[str, dict[str, float]]]:
    """A new set of as many answers, drawn with replacement from the file's: the
    answers a team's next evaluation set might hold."""
    picks = np.random.default_rng(10_000 + seed).integers(0, len(ids), len(ids))
    drawn = [f"{ids[j]}#{k}" for k, j in enumerate(picks)]
    return (
        drawn,
        {d: human[ids[j]] for d, j in zip(drawn, picks, strict=True)},
        {d: judged[ids[j]] for d, j in zip(drawn, picks, strict=True)},
    )


def simulate(
    folder: Path, repetitions: int, sizes: Sequence[int], population: str
) -> dict[tuple[str, int], Tally]:
    file_ids, file_human, file_judged = load(folder)
    truth = float(np.mean([file_human[i] for i in file_ids]))
    print(f"{len(file_ids)} answers, share acceptable to people (the truth): {truth:.3f}")
    tallies = {(way, n): Tally() for way in WAYS for n in sizes}
    meaning = ScoreMeaning(metric="faithfulness", judge="ragas", threshold=JUDGES[SCORE][1])
    most = max(sizes)
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "runs.db")
        ids, human, judged_all = file_ids, file_human, file_judged
        run_id = store_run(store, ids, judged_all, "mtrag-human")
        for seed in range(repetitions):
            if population == "drawn":
                ids, human, judged_all = drawn_run(file_ids, file_human, file_judged, seed)
                run_id = store_run(store, ids, judged_all, f"drawn-{seed}")
            judged = store.sample_means(run_id, SCORE)
            labeller = Labeller(run_id, human)
            plain = labelling_queue(store, run_id, SCORE, meaning, order="random", seed=seed)
            mixed = labelling_queue(store, run_id, SCORE, meaning, seed=seed)[:most]
            order = random_order(ids, run_id, SCORE, seed)
            for n in sizes:
                record(tallies[(WAYS[0], n)], labeller.all_random(plain[:n]), judged, truth)
                queued = labeller.as_queued(mixed[:n], order)
                record(tallies[(WAYS[1], n)], queued, judged, truth)
                record(tallies[(WAYS[2], n)], labeller.as_drawn(mixed[:n]), judged, truth)
                record(tallies[(WAYS[3], n)], labeller.all_random(mixed[:n]), judged, truth)
        store.close()
    return tallies


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repetitions", type=int, default=1000)
    parser.add_argument("--sizes", type=int, nargs="+", default=[25, 50, 100])
    parser.add_argument(
        "--population",
        choices=["drawn", "file"],
        default="drawn",
        help="drawn: each repetition labels a new set drawn with replacement from the"
        " file's answers, and the truth is the file's share (what the interval claims:"
        " the mean over answers like these); file: every repetition labels the file's"
        " own 477 answers (the interval is then conservative, as it also allows for"
        " the answers' own sampling)",
    )
    parser.add_argument(
        "--data", type=Path, default=Path(__file__).parents[2] / "shared/data/mtrag-human"
    )
    args = parser.parse_args()
    wall = time.perf_counter()
    tallies = simulate(args.data, args.repetitions, args.sizes, args.population)
    print(f"population: {args.population}")
    print(
        f"{'way of labelling':<27} {'labels':>6} {'used':>6} {'PPI cov':>8} {'PPI++ cov':>9}"
        f" {'PPI width':>9} {'PPI++ width':>11} {'humans width':>12} {'PPI++ bias':>10}"
    )
    for (way, n), tally in tallies.items():
        print(
            f"{way:<27} {n:>6} {np.mean(tally.used):>6.1f} {np.mean(tally.ppi):>8.1%}"
            f" {np.mean(tally.tuned):>9.1%} {np.mean(tally.ppi_width):>9.3f}"
            f" {np.mean(tally.width):>11.3f}"
            f" {np.mean(tally.human_width):>12.3f} {np.mean(tally.error):>+10.3f}"
        )
    print(f"{args.repetitions} repetitions in {time.perf_counter() - wall:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
