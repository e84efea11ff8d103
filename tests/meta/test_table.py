"""The judge table: runs stored with a judge matrix (scores named per judge, meanings
naming judge, metric and context mode, judge calls with their cost) set against human
labels — the real MTRAG faithfulness ratings and small hand-made sets."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy import stats as scipy_stats

from conftest import shared_data
from judge_matrix import judge_call, labelled_samples, matrix_run
from ragjudge.datasets import load_mtrag_human
from ragjudge.errors import ConfigError
from ragjudge.meta._evaluation import human_score
from ragjudge.meta._table import JudgeCost, judge_table_for_run, score_costs
from ragjudge.schema import Score, ScoreMeaning
from ragjudge.store._store import Store

RESAMPLES = 200  # enough for the intervals' order of magnitude; the estimates are exact


def _faithfulness(judge: str, contexts: str) -> ScoreMeaning:
    return ScoreMeaning(low=1, high=4, judge=judge, metric="faithfulness", contexts=contexts)


# --- three judges over the MTRAG human faithfulness ratings ---------------------------


@pytest.fixture(scope="module")
def mtrag(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, dict[str, np.ndarray]]:
    """The 477 rated MTRAG responses judged by three scripted judges: one agreeing
    with the annotators (their mean rounded), one noisy (that, shifted by seeded
    noise), one lenient (4 unless the annotators said "no" outright); the agreeing
    judge is also shown the question-retrieved contexts, where it is the noisy one."""
    samples = load_mtrag_human(shared_data("mtrag-human"))
    human = np.array([human_score(s.metadata["faithfulness"]) for s in samples], dtype=float)
    agree = np.clip(np.floor(human + 0.5), 1, 4)
    noise = np.random.default_rng(7).choice(
        [-2, -1, 0, 1, 2], len(human), p=[0.15, 0.2, 0.3, 0.2, 0.15]
    )
    noisy = np.clip(agree + noise, 1, 4)
    biased = np.where(human <= 1.5, 3.0, 4.0)
    verdicts = {
        "faithfulness@agree": agree,
        "faithfulness@noisy": noisy,
        "faithfulness@biased": biased,
        "faithfulness_question@agree": noisy,
    }
    meanings = {
        "faithfulness@agree": _faithfulness("agree", "reference"),
        "faithfulness@noisy": _faithfulness("noisy", "reference"),
        "faithfulness@biased": _faithfulness("biased", "reference"),
        "faithfulness_question@agree": _faithfulness("agree", "question"),
    }
    prices = {
        "faithfulness@agree": 0.002,
        "faithfulness@noisy": 0.0005,
        "faithfulness@biased": 0.0001,
        "faithfulness_question@agree": 0.002,
    }
    judges = {"agree": "openai/big", "noisy": "openai/mid", "biased": "openai/small"}
    path = tmp_path_factory.mktemp("mtrag") / "runs.db"
    run_id = matrix_run(path, samples, verdicts, meanings, prices, judges)
    return path, run_id, {"human": human, **verdicts}


def test_the_table_has_a_row_per_metric_judge_and_context_mode(
    mtrag: tuple[Path, str, dict[str, np.ndarray]],
) -> None:
    path, run_id, values = mtrag
    with Store(path) as store:
        table = judge_table_for_run(store, run_id, ["faithfulness"], n_resamples=RESAMPLES)

    assert [(r.metric, r.judge, r.contexts) for r in table.rows] == [
        ("faithfulness", "agree", "reference"),
        ("faithfulness", "agree", "question"),
        ("faithfulness", "noisy", "reference"),
        ("faithfulness", "biased", "reference"),
    ]
    assert [r.model for r in table.rows] == [
        "openai/big",
        "openai/big",
        "openai/mid",
        "openai/small",
    ]
    assert table.humans == {"faithfulness": "ordinal"}
    for row in table.rows:
        found = row.labels["faithfulness"]
        expected = values[row.score]
        assert found.n == 477
        for figure, reference in (
            ("kendall", scipy_stats.kendalltau),
            ("spearman", scipy_stats.spearmanr),
            ("pearson", scipy_stats.pearsonr),
        ):
            estimate = found.figures[figure]
            assert estimate.value == pytest.approx(reference(expected, values["human"]).statistic)
            assert estimate.ci is not None and estimate.value is not None
            assert estimate.ci.low < estimate.value < estimate.ci.high


def test_the_costs_are_those_of_the_stored_calls(
    mtrag: tuple[Path, str, dict[str, np.ndarray]],
) -> None:
    path, run_id, _ = mtrag
    with Store(path) as store:
        table = judge_table_for_run(store, run_id, ["faithfulness"], n_resamples=RESAMPLES)

    by_score = {r.score: r.cost for r in table.rows}
    assert by_score["faithfulness@agree"].calls == 477
    assert by_score["faithfulness@agree"].cost == pytest.approx(477 * 0.002)
    assert by_score["faithfulness@agree"].per_thousand == pytest.approx(2.0)
    assert by_score["faithfulness@noisy"].per_thousand == pytest.approx(0.5)
    assert by_score["faithfulness@biased"].per_thousand == pytest.approx(0.1)


def test_judges_are_ranked_agreeing_noisy_biased(
    mtrag: tuple[Path, str, dict[str, np.ndarray]],
) -> None:
    path, run_id, values = mtrag
    with Store(path) as store:
        close = judge_table_for_run(store, run_id, ["faithfulness"], n_resamples=RESAMPLES)
        wide = judge_table_for_run(
            store, run_id, ["faithfulness"], within=0.45, n_resamples=RESAMPLES
        )

    # Only the reference contexts have several judges; one judge is not a ranking.
    (ranking,) = close.rankings
    assert (ranking.metric, ranking.contexts, ranking.figure) == (
        "faithfulness",
        "reference",
        "kendall",
    )
    assert [j.judge for j in ranking.judges] == ["agree", "noisy", "biased"]
    assert [j.cost_per_thousand for j in ranking.judges] == pytest.approx([2.0, 0.5, 0.1])
    tau = scipy_stats.kendalltau(values["faithfulness@agree"], values["human"]).statistic
    assert ranking.best is not None and ranking.best.agreement.value == pytest.approx(tau)
    # Nothing else comes within 0.05 of the best, so the best is the cheapest there.
    assert ranking.cheapest is ranking.best and ranking.distinguishable is None
    # Within 0.45 the noisy judge (tau 0.41 against 0.84) is, at a quarter of the cost,
    # and its interval is far from the best one's; the biased one (0.34) is not.
    (wider,) = wide.rankings
    assert wider.cheapest is not None and wider.cheapest.judge == "noisy"
    assert wider.distinguishable is True


# --- hand-made sets ---------------------------------------------------------------------


def test_a_yes_no_label_gets_accuracy_kappa_and_auc_by_hand(tmp_path: Path) -> None:
    labels = [True, True, True, True, False, False, False, False]
    good = [1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0]  # one miss
    yes_man = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0]  # says yes to all but one
    meaning = {
        "supported@good": ScoreMeaning(binary=True, judge="good", metric="supported"),
        "supported@yes": ScoreMeaning(binary=True, judge="yes", metric="supported"),
    }
    run_id = matrix_run(
        tmp_path / "runs.db",
        labelled_samples(labels),
        {"supported@good": good, "supported@yes": yes_man},
        meaning,
        {"supported@good": 0.01, "supported@yes": None},
        {"good": "openai/a", "yes": "openai/b"},
    )
    with Store(tmp_path / "runs.db") as store:
        table = judge_table_for_run(store, run_id, ["ok"], n_resamples=RESAMPLES)

    good_row, yes_row = table.rows
    assert table.humans == {"ok": "binary"}
    # good: 7 of 8 right; p_o = 7/8, p_e = (3/8)(4/8) + (5/8)(4/8) = 1/2, kappa = 3/4.
    assert good_row.labels["ok"].figures["accuracy"].value == pytest.approx(7 / 8)
    assert good_row.labels["ok"].figures["kappa"].value == pytest.approx(0.75)
    # yes: 5 of 8 right; p_e = (7/8)(4/8) + (1/8)(4/8) = 1/2, kappa = (5/8 - 1/2)/(1/2) = 1/4.
    assert yes_row.labels["ok"].figures["accuracy"].value == pytest.approx(5 / 8)
    assert yes_row.labels["ok"].figures["kappa"].value == pytest.approx(0.25)
    assert good_row.labels["ok"].n == 8
    (ranking,) = table.rankings
    assert ranking.figure == "kappa"
    assert [j.judge for j in ranking.judges] == ["good", "yes"]
    # The unpriced judge is never the cheapest: its cost is unknown.
    assert yes_row.cost.cost is None and yes_row.cost.unpriced == 8
    assert ranking.cheapest is ranking.best


def test_close_judges_are_not_told_apart(tmp_path: Path) -> None:
    labels = [1, 2, 3, 4, 5, 1, 2, 3, 4, 5, 2, 4]
    first = [1, 2, 3, 4, 5, 2, 2, 3, 4, 5, 2, 4]
    second = [1, 2, 3, 4, 5, 2, 3, 3, 4, 5, 2, 4]  # one more slip than the first
    meanings = {
        "rating@first": ScoreMeaning(low=1, high=5, judge="first", metric="rating"),
        "rating@second": ScoreMeaning(low=1, high=5, judge="second", metric="rating"),
    }
    run_id = matrix_run(
        tmp_path / "runs.db",
        labelled_samples(labels),
        {"rating@first": first, "rating@second": second},
        meanings,
        {"rating@first": 0.01, "rating@second": 0.001},
        {"first": "openai/a", "second": "openai/b"},
    )
    with Store(tmp_path / "runs.db") as store:
        table = judge_table_for_run(store, run_id, ["ok"], within=0.1, n_resamples=RESAMPLES)

    (ranking,) = table.rankings
    assert [j.judge for j in ranking.judges] == ["first", "second"]
    assert ranking.cheapest is not None and ranking.cheapest.judge == "second"
    assert ranking.distinguishable is False
    # No context mode stored: the rows say none.
    assert {r.contexts for r in table.rows} == {None}


def test_a_single_judge_run_names_its_model_and_ranks_nothing(tmp_path: Path) -> None:
    path = tmp_path / "runs.db"
    with Store(path) as store:
        run_id = store.create_run(
            name=None,
            config={"judge": {"model": "openai/gpt-4o-mini"}},
            versions={},
            samples=labelled_samples([1, 2, 3, 4]),
            trials=2,
            meanings={"rating": ScoreMeaning(low=1, high=4)},
        )
        for i in range(4):
            for trial in range(2):
                call = judge_call(store, run_id, "gpt-4o-mini", 0.5)
                store.save_scores(
                    run_id,
                    f"s{i}",
                    trial,
                    [Score(metric="rating", value=i + 1, judge_call_ids=[call])],
                )
        table = judge_table_for_run(store, run_id, ["ok"], n_resamples=RESAMPLES)

    (row,) = table.rows
    assert (row.metric, row.judge, row.model) == (
        "rating",
        "openai/gpt-4o-mini",
        "openai/gpt-4o-mini",
    )
    # Two trials of four samples: eight calls, $4, $1,000 per 1,000 samples.
    assert (row.cost.calls, row.cost.samples) == (8, 4)
    assert row.cost.cost == pytest.approx(4.0)
    assert row.cost.per_thousand == pytest.approx(1000.0)
    assert table.rankings == []


def test_a_call_shared_by_scores_of_one_name_counts_once() -> None:
    scores = [
        ("s1", 0, Score(metric="m", value=1.0, judge_call_ids=[1, 2])),
        ("s1", 1, Score(metric="m", value=1.0, judge_call_ids=[2])),
        ("s2", 0, Score(metric="m", value=None, skipped="no contexts", judge_call_ids=[3])),
    ]
    usage = {1: (10, 1, 0.25), 2: (10, 1, None), 3: (10, 1, 9.0)}
    from ragjudge.store._judge_calls import CallUsage

    found = score_costs(scores, {k: CallUsage(*v) for k, v in usage.items()})

    assert found == {"m": JudgeCost(calls=2, cost=0.25, unpriced=1, samples=1)}


def test_groups_and_pairs_and_a_negative_margin_are_refused(tmp_path: Path) -> None:
    run_id = matrix_run(
        tmp_path / "runs.db",
        labelled_samples([1, 2]),
        {"r@a": [1.0, 2.0]},
        {"r@a": ScoreMeaning(low=1, high=4, judge="a", metric="r")},
        {"r@a": 0.1},
        {"a": "openai/a"},
    )
    with Store(tmp_path / "runs.db") as store:
        with pytest.raises(ConfigError, match="--by"):
            judge_table_for_run(store, run_id, ["ok"], by="ok")
        with pytest.raises(ConfigError, match="--within"):
            judge_table_for_run(store, run_id, ["ok"], within=-1)
