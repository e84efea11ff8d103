"""The random share of the informative queue keeps the calibrated estimate's interval
honest, and using the targeted labels as if random would not (a seeded simulation)."""

import random
from pathlib import Path

import numpy as np

from ragjudge.analysis._calibrated import calibrated_estimate
from ragjudge.meta._queue import QueueItem, labelling_queue, random_order, random_prefix
from ragjudge.schema import Sample, Score, ScoreMeaning
from ragjudge.store import Label, Store

MEANING = ScoreMeaning(threshold=0.5)
SAMPLES, LABELS, REPETITIONS = 400, 80, 200


def _people_accept(value: float, rng: random.Random) -> bool:
    """People's verdict: the judge is too strict just below its pass line."""
    chance = 0.95 if value >= 0.5 else 0.8 if value >= 0.3 else 0.1
    return rng.random() < chance


def _run(tmp_path: Path) -> tuple[Store, dict[str, bool]]:
    rng = random.Random(11)
    store = Store(tmp_path / "runs.db")
    ids = [f"s{i}" for i in range(SAMPLES)]
    samples = [Sample(request_id=i, request=i) for i in ids]
    store.create_run(
        name=None,
        config={},
        versions={},
        samples=samples,
        trials=1,
        run_id="r",
        meanings={"m": MEANING},
    )
    human = {}
    for request_id in ids:
        value = rng.random()
        human[request_id] = _people_accept(value, rng)
        store.save_scores("r", request_id, 0, [Score(metric="m", value=value)])
    return store, human


def _label(request_id: str, human: dict[str, bool], drawn: str) -> Label:
    return Label.model_validate(
        {
            "run_id": "r",
            "request_id": request_id,
            "metric": "m",
            "annotator": "p",
            "kind": "yesno",
            "value": human[request_id],
            "drawn": drawn,
        }
    )


def _estimate(labels: list[Label], judged: dict[str, float]) -> tuple[float, float, float]:
    found = calibrated_estimate(judged, labels, "m", MEANING)
    assert found is not None
    ppi = found.estimate.ppi
    assert ppi.ci is not None and ppi.value is not None
    return ppi.ci.low, ppi.ci.high, ppi.value


def _as_queued(items: list[QueueItem], order: list[str], human: dict[str, bool]) -> list[Label]:
    prefix = set(random_prefix(order, {item.request_id for item in items}))
    return [
        _label(i.request_id, human, "random" if i.request_id in prefix else i.drawn) for i in items
    ]


def test_the_random_share_covers_the_truth_and_misusing_every_label_is_biased(
    tmp_path: Path,
) -> None:
    store, human = _run(tmp_path)
    judged = store.sample_means("r", "m")
    truth = float(np.mean(list(human.values())))
    ids = [f"s{i}" for i in range(SAMPLES)]  # the run's order, which the shuffle starts from
    honest, misused = [], []
    for seed in range(REPETITIONS):
        items = labelling_queue(store, "r", "m", MEANING, seed=seed)[:LABELS]
        order = random_order(ids, "r", "m", seed)
        low, high, value = _estimate(_as_queued(items, order, human), judged)
        honest.append((low <= truth <= high, value - truth))
        every = [_label(i.request_id, human, "random") for i in items]
        low, high, value = _estimate(every, judged)
        misused.append((low <= truth <= high, value - truth))
    coverage = np.mean([covered for covered, _ in honest])
    bias = np.mean([error for _, error in honest])
    misused_coverage = np.mean([covered for covered, _ in misused])
    misused_bias = np.mean([error for _, error in misused])
    assert 0.88 <= coverage <= 0.995, coverage
    assert abs(bias) < 0.02, bias
    assert misused_bias > 0.05, misused_bias  # near the line people accept more often
    assert misused_coverage < coverage - 0.1, (misused_coverage, coverage)
