"""Krippendorff's alpha, Fleiss' kappa from counts and Cohen's kappa among raters."""

from __future__ import annotations

import numpy as np
import pytest

from ragjudge.stats import (
    cohen_kappa,
    fleiss_kappa,
    fleiss_kappa_of_counts,
    krippendorff_alpha,
    reliability_alpha,
)

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: four
# coders (rows there, columns here) on twelve units, with missing values.
_CODERS = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
]
UNITS = [list(unit) for unit in zip(*_CODERS, strict=True)]

# Fleiss (1971) as Wikipedia works it: 10 subjects, 14 raters, 5 categories, κ = 0.210.
FLEISS_COUNTS = [
    [0, 0, 0, 0, 14],
    [0, 2, 6, 4, 2],
    [0, 0, 3, 5, 6],
    [0, 3, 9, 2, 0],
    [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0],
    [3, 2, 6, 3, 0],
    [2, 5, 3, 2, 2],
    [6, 5, 2, 1, 0],
    [0, 2, 2, 3, 7],
]


@pytest.mark.parametrize(
    ("level", "published"),
    [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849), ("ratio", 0.797)],
)
def test_alpha_gives_the_published_values_of_the_worked_example(
    level: str, published: float
) -> None:
    assert krippendorff_alpha(UNITS, level) == pytest.approx(published, abs=5e-4)  # type: ignore[arg-type]


def test_a_unit_with_one_value_is_not_pairable() -> None:
    found = reliability_alpha(UNITS, "nominal", n_resamples=200)
    assert (found.units, found.values) == (11, 40)  # unit 12 has one value
    assert found.alpha.ci is not None
    assert found.alpha.ci.low <= found.alpha.value <= found.alpha.ci.high  # type: ignore[operator]


def test_alpha_is_undefined_without_variation_or_pairs() -> None:
    assert krippendorff_alpha([[1, 1], [1, 1]]) is None
    assert krippendorff_alpha([[1, None], [None, 2]]) is None
    assert reliability_alpha([[1, 1], [1, 1]], n_resamples=100).alpha.value is None


def test_perfect_agreement_is_one_and_systematic_disagreement_is_below_zero() -> None:
    assert krippendorff_alpha([[1, 1], [2, 2], [3, 3]], "interval") == pytest.approx(1.0)
    assert krippendorff_alpha([[0, 1], [1, 0], [0, 1], [1, 0]]) < 0  # type: ignore[operator]


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_alpha_equals_the_reference_package_on_random_data(level: str) -> None:
    krippendorff = pytest.importorskip("krippendorff")
    rng = np.random.default_rng(7)
    for _ in range(5):
        data = rng.integers(1, 6, size=(40, 4)).astype(np.float64)
        data[rng.random(data.shape) < 0.2] = np.nan
        ours = krippendorff_alpha(data, level)  # type: ignore[arg-type]
        reference = krippendorff.alpha(reliability_data=data.T, level_of_measurement=level)
        assert ours == pytest.approx(reference, abs=1e-9)


def test_interval_alpha_on_continuous_values_equals_the_reference_package() -> None:
    krippendorff = pytest.importorskip("krippendorff")
    rng = np.random.default_rng(5)
    truth = rng.normal(size=80)
    data = truth[:, None] + rng.normal(scale=0.5, size=(80, 3))
    data[rng.random(data.shape) < 0.15] = np.nan
    reference = krippendorff.alpha(reliability_data=data.T, level_of_measurement="interval")
    assert krippendorff_alpha(data, "interval") == pytest.approx(reference, abs=1e-9)
    assert krippendorff_alpha([[2.5, 2.5], [2.5, 2.5]], "interval") is None


def test_the_interval_is_seeded_and_brackets_the_value() -> None:
    rng = np.random.default_rng(3)
    truth = rng.integers(1, 6, size=60).astype(np.float64)
    data = np.stack([truth, truth + rng.integers(-1, 2, size=60)], axis=1)
    first = reliability_alpha(data, "interval", n_resamples=400, seed=1)
    again = reliability_alpha(data, "interval", n_resamples=400, seed=1)
    assert first == again
    assert first.alpha.ci is not None and first.alpha.value is not None
    assert first.alpha.ci.low < first.alpha.value < first.alpha.ci.high


def test_an_unknown_level_is_refused() -> None:
    with pytest.raises(ValueError, match="level must be one of"):
        reliability_alpha(UNITS, "cardinal")  # type: ignore[arg-type]


def test_fleiss_kappa_of_counts_gives_the_published_value() -> None:
    assert fleiss_kappa_of_counts(FLEISS_COUNTS) == pytest.approx(0.2099, abs=5e-4)


def test_fleiss_kappa_of_counts_equals_the_statsmodels_backed_function() -> None:
    pytest.importorskip("statsmodels")
    rng = np.random.default_rng(11)
    for _ in range(5):
        annotations = rng.integers(0, 4, size=(30, 5)).astype(np.float64)
        categories = np.unique(annotations)
        counts = (annotations[:, :, None] == categories[None, None, :]).sum(axis=1)
        backed = fleiss_kappa(annotations.tolist(), n_resamples=50)
        assert backed is not None
        assert fleiss_kappa_of_counts(counts) == pytest.approx(backed.kappa.value, abs=1e-12)


def test_fleiss_kappa_of_counts_refuses_uneven_rows() -> None:
    with pytest.raises(ValueError, match="same number of raters"):
        fleiss_kappa_of_counts([[1, 1], [2, 1]])
    assert fleiss_kappa_of_counts([[3, 0], [3, 0]]) is None


def test_cohen_kappa_by_hand() -> None:
    # 2×2 table [[20, 5], [10, 15]]: po = 0.7, pe = 0.5·0.6 + 0.5·0.4 = 0.5, κ = 0.4
    a = [1] * 25 + [0] * 25
    b = [1] * 20 + [0] * 5 + [1] * 10 + [0] * 15
    assert cohen_kappa(a, b) == pytest.approx(0.4)
    assert cohen_kappa([1, 1], [1, 1]) is None


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_a_resamples_weights_count_as_repeated_units(level: str) -> None:
    """The interval's resamples weigh units instead of copying them: the same alpha."""
    from ragjudge.stats._reliability import _alpha_replicates, _pairable_units

    data = np.array(UNITS, dtype=np.float64)
    units = _pairable_units(data, level)  # type: ignore[arg-type]
    pairable = data[(~np.isnan(data)).sum(axis=1) >= 2]
    weights = np.random.default_rng(2).integers(0, 4, size=(3, len(pairable))).astype(np.float64)
    found = _alpha_replicates(weights, units, level)  # type: ignore[arg-type]
    for w, value in zip(weights, found, strict=True):
        repeated = np.repeat(pairable, w.astype(int), axis=0)
        assert value == pytest.approx(krippendorff_alpha(repeated, level))  # type: ignore[arg-type]


def test_nominal_alpha_of_two_judges_by_hand() -> None:
    # 8 units both say 1, 6 both say 0, 2 split: o11 = 16, o00 = 12, o01 = o10 = 2,
    # n1 = 18, n0 = 14, n = 32: α = 1 − (n − 1)(o01 + o10) / (2 n0 n1) = 1 − 124/504
    units = [[1, 1]] * 8 + [[0, 0]] * 6 + [[1, 0], [0, 1]]
    assert krippendorff_alpha(units) == pytest.approx(1 - 124 / 504)
