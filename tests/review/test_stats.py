"""Agreement statistics against hand-worked and published values, synthetic seed-like data
(19 runs × 7 raters) and degenerate cases."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pingouin as pg
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import spearmanr

from simbridge._review.stats import (
    STAT_NAMES,
    agreement,
    deviation_counts,
    icc_batch,
    icc_pingouin,
    kendall_w_batch,
    krippendorff_alpha,
    modal,
    spearman_mean,
    spearman_mean_batch,
)

# Shrout & Fleiss (1979), Table 2: 6 targets rated by 4 judges, and their Table 4 ICCs (2 decimals)
SF_DATA = np.array([[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]], float)
SF_PUBLISHED = {
    "ICC(1,1)": 0.17,
    "ICC(A,1)": 0.29,
    "ICC(C,1)": 0.71,
    "ICC(1,k)": 0.44,
    "ICC(A,k)": 0.62,
    "ICC(C,k)": 0.91,
}
SCALE = [1, 2, 3, 4]


def test_icc_matches_shrout_fleiss_table() -> None:
    fast = icc_batch(SF_DATA)
    lib = icc_pingouin(SF_DATA)
    for name, published in SF_PUBLISHED.items():
        assert round(float(fast[name]), 2) == published, name
        assert lib[name] == pytest.approx(float(fast[name]), abs=1e-9), name


def test_kendall_w_with_ties_by_hand() -> None:
    # ranks per rater (runs down): A 1,2.5,2.5,4 (tie t=2); B 1,2,3,4; C 1.5,1.5,3.5,3.5 (two ties t=2)
    # R = 3.5, 6, 9, 11.5; S = 36.5; W = 12·S / (m²(n³−n) − mΣT) = 438 / (540 − 54)
    x = np.array([[1, 1, 2], [2, 2, 2], [2, 3, 3], [4, 4, 3]], float)
    assert float(kendall_w_batch(x)) == pytest.approx(438 / 486)
    long = pd.DataFrame({"run": np.repeat(np.arange(4), 3), "rater": np.tile(np.arange(3), 4), "v": x.ravel()})
    friedman = pg.friedman(long, dv="v", within="run", subject="rater")
    assert float(friedman["W"].iloc[0]) == pytest.approx(438 / 486)


def test_spearman_mean_is_the_mean_of_scipy_pairs() -> None:
    rng = np.random.default_rng(3)
    x = rng.integers(1, 5, (12, 4)).astype(float)
    pairs = [spearmanr(x[:, i], x[:, j]).statistic for i in range(4) for j in range(i + 1, 4)]
    assert spearman_mean(x) == pytest.approx(float(np.mean(pairs)))
    assert float(spearman_mean_batch(x[None])[0]) == pytest.approx(float(np.mean(pairs)))


@settings(max_examples=25, deadline=None, derandomize=True)
@given(st.integers(3, 10), st.integers(2, 6), st.integers(0, 10_000))
def test_fast_icc_equals_pingouin(n: int, k: int, seed: int) -> None:
    x = np.random.default_rng(seed).integers(1, 5, (n, k)).astype(float)
    if np.all(x == x[0, 0]):
        return
    fast = icc_batch(x)
    for name, v in icc_pingouin(x).items():
        if np.isfinite(fast[name]):  # NaN: a zero denominator, reported as undefined
            assert float(fast[name]) == pytest.approx(v, abs=1e-9)


def _seedlike(structured: bool, seed: int = 11) -> np.ndarray:
    """19 runs × 7 raters on the 4-level scale: raters near each run's true level, or at random."""
    rng = np.random.default_rng(seed)
    if not structured:
        return rng.integers(1, 5, (19, 7)).astype(float)
    truth = np.tile(np.array([1, 2, 3, 4]), 5)[:19]
    noise = rng.choice([-1, 0, 0, 0, 0, 0, 0, 0, 0, 1], size=(19, 7))
    return np.clip(truth[:, None] + noise, 1, 4).astype(float)


def test_high_agreement_gives_high_icc_and_small_p() -> None:
    res = agreement(_seedlike(True), SCALE, n_perm=199, seed=0)
    for name in ("ICC(1,1)", "ICC(A,1)", "ICC(C,1)", "ICC(C,k)", "spearman_mean", "kendall_w", "krippendorff_alpha"):
        assert res[name].value is not None and res[name].value > 0.7, (name, res[name])
        assert res[name].p_value == pytest.approx(1 / 200), name  # no permutation reaches it


def test_random_grades_give_icc_near_zero_and_large_p() -> None:
    res = agreement(_seedlike(False), SCALE, n_perm=199, seed=0)
    for name in ("ICC(1,1)", "ICC(A,1)", "ICC(C,1)", "spearman_mean", "krippendorff_alpha"):
        assert abs(res[name].value) < 0.15, (name, res[name])
        assert res[name].p_value > 0.05, (name, res[name])


def test_permutation_p_value_is_seeded() -> None:
    x = _seedlike(False)
    a = agreement(x, SCALE, n_perm=50, seed=5)
    b = agreement(x, SCALE, n_perm=50, seed=5)
    assert [a[n].p_value for n in STAT_NAMES] == [b[n].p_value for n in STAT_NAMES]


def test_all_raters_agree_is_perfect_agreement() -> None:
    x = np.repeat(np.array([[1], [2], [3], [4], [2]], float), 3, axis=1)
    res = agreement(x, SCALE, n_perm=20, seed=0)
    for name in STAT_NAMES:
        assert res[name].value == pytest.approx(1.0), name


@pytest.mark.parametrize(
    "x, reason",
    [
        (np.array([[1.0], [2.0], [3.0]]), "1 rater"),
        (np.full((5, 3), 3.0), "constant grades"),
    ],
)
def test_degenerate_cases_are_undefined_with_a_reason(x: np.ndarray, reason: str) -> None:
    res = agreement(x, SCALE, n_perm=20, seed=0)
    for name in STAT_NAMES:
        assert res[name].value is None and res[name].p_value is None, name
        assert reason in (res[name].undefined or ""), (name, res[name].undefined)
    json.dumps({k: vars(v) for k, v in res.items()}, allow_nan=False)  # no NaN anywhere


def test_incomplete_design_keeps_alpha_and_explains_icc() -> None:
    x = _seedlike(True)
    x[np.arange(19), np.arange(19) % 7] = np.nan  # every run misses one rater
    res = agreement(x, SCALE, n_perm=20, seed=0)
    assert res["ICC(C,1)"].value is None and "every rater on every run" in (res["ICC(C,1)"].undefined or "")
    assert res["kendall_w"].value is None
    # one-way ICC on rater slots (raters interchangeable): each run keeps its first 6 ratings
    slots = np.array([row[~np.isnan(row)][:6] for row in x])
    assert res["ICC(1,1)"].value == pytest.approx(icc_pingouin(slots)["ICC(1,1)"], abs=1e-6)
    assert res["ICC(1,1)"].value > 0.7 and res["ICC(1,1)"].p_value == pytest.approx(1 / 21)
    assert res["krippendorff_alpha"].value is not None and res["krippendorff_alpha"].value > 0.7
    assert res["spearman_mean"].value is not None and res["spearman_mean"].value > 0.7


def test_krippendorff_alpha_is_one_for_identical_raters_and_lower_with_noise() -> None:
    x = np.repeat(np.array([[1], [2], [3], [4]], float), 3, axis=1)
    assert krippendorff_alpha(x, SCALE) == pytest.approx(1.0)
    y = x.copy()
    y[0, 0] = 4
    assert krippendorff_alpha(y, SCALE) < 1.0


def test_modal_grade_and_deviation_counts() -> None:
    assert modal([3, 3, 2, 4]) == 3
    assert modal([2, 2, 4, 4]) == 2  # a tie goes to the lower grade
    x = np.array([[3, 3, 2], [4, 4, np.nan], [1, 2, 2]], float)
    assert deviation_counts(x, ["a", "b", "c"]) == {"a": {"-1": 1, "0": 2}, "b": {"0": 3}, "c": {"-1": 1, "0": 1}}


def test_two_runs_by_two_raters_give_the_iccs_pingouin_refuses() -> None:
    """pingouin asserts on fewer than 5 values; the ANOVA formulas (the ones checked against pingouin
    above) answer instead of an AssertionError reaching the agreement page as a 500."""
    from simbridge._review.stats import agreement, icc_batch

    x = np.array([[1.0, 2.0], [3.0, 4.0]])
    rep = agreement(x, [1, 2, 3, 4], n_perm=20, seed=0)
    assert rep["ICC(1,1)"].value == pytest.approx(float(icc_batch(x)["ICC(1,1)"]), abs=1e-6)
    assert rep["ICC(C,1)"].value == pytest.approx(1.0)
