"""Direct calls of the rank tests rank near-ties as ties, with the Study's tolerance.

The same results averaged by two libraries differ in the last bits (sums in another order);
``compare`` ranks the Study's tiers, and now so do :func:`friedman`, the post-hoc tests,
:func:`critical_difference` and :func:`rank_within_conditions` called on a frame:
1 ulp is a tie, a real difference (above the tolerance) is not, and ``tie_rtol=0,
tie_atol=0`` keeps exact equality.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from genexpy_nb import GenexpyInputError
from genexpy_nb.significance import (
    compare,
    critical_difference,
    friedman,
    posthoc_conover,
    posthoc_nemenyi,
    posthoc_siegel_castellan,
    rank_within_conditions,
    skillings_mack,
)


def _tied_table(seed: int = 0, n: int = 40, k: int = 6) -> np.ndarray:
    """Accuracies on a grid of 1/20 (a UCR-style test set of 20 cases): many exact ties."""
    rng = np.random.default_rng(seed)
    skill = np.linspace(0, 3, k)
    return np.clip(np.round(14 + skill + rng.normal(0, 2, (n, k))), 0, 20) / 20


def _one_ulp(x: np.ndarray, seed: int = 1) -> np.ndarray:
    """Move about half of the entries by one ulp up or down (float noise of averaging)."""
    rng = np.random.default_rng(seed)
    step = rng.integers(-1, 2, x.shape)
    out = x.copy()
    out[step > 0] = np.nextafter(x[step > 0], np.inf)
    out[step < 0] = np.nextafter(x[step < 0], -np.inf)
    return out


def _long(x: np.ndarray) -> pl.DataFrame:
    n, k = x.shape
    return pl.DataFrame({"dataset": np.repeat([f"d{i}" for i in range(n)], k),
                         "model": [f"m{j}" for j in range(k)] * n, "acc": x.ravel()})


ROLES = dict(target="acc", blocks="dataset", alternatives="model", higher_is_better=True)


def test_one_ulp_gives_the_same_friedman_statistic():
    x = _tied_table()
    noisy = _one_ulp(x)
    assert not np.array_equal(x, noisy)
    a, b = friedman(_long(x), **ROLES), friedman(_long(noisy), **ROLES)
    assert a.statistic == b.statistic and a.pvalue == b.pvalue
    assert a.mean_ranks == b.mean_ranks
    # by exact equality the noise breaks ties: another statistic
    exact = friedman(_long(noisy), **ROLES, tie_rtol=0, tie_atol=0)
    assert exact.statistic != a.statistic
    assert friedman(_long(x), **ROLES, tie_rtol=0, tie_atol=0).statistic == a.statistic


def test_direct_calls_agree_with_compare():
    noisy = _one_ulp(_tied_table(2))
    res = compare(_long(noisy), alternatives="model", target="acc", blocks="dataset",
                  higher_is_better=True)
    direct = friedman(_long(noisy), **ROLES)
    assert res.omnibus.statistic == pytest.approx(direct.statistic, rel=1e-12)


@pytest.mark.parametrize("test", [posthoc_conover, posthoc_nemenyi, posthoc_siegel_castellan])
def test_posthoc_tests_rank_one_ulp_as_a_tie(test):
    x = _tied_table(3)
    a = test(_long(x), **ROLES)
    b = test(_long(_one_ulp(x)), **ROLES)
    assert a.equals(b)


def test_cd_ranks_and_skillings_mack_rank_one_ulp_as_a_tie():
    x = _tied_table(4)
    x[::7, 2] = np.nan  # some failed runs
    noisy = _one_ulp(x)
    assert critical_difference(_long(x).drop_nulls().fill_nan(None).drop_nulls(), **ROLES,
                               nan_policy="omit").equals(
        critical_difference(_long(noisy).fill_nan(None).drop_nulls(), **ROLES,
                            nan_policy="omit"))
    assert (skillings_mack(x, higher_is_better=True).statistic
            == skillings_mack(noisy, higher_is_better=True).statistic)
    r = rank_within_conditions(np.array([[0.3, 0.1 + 0.2, 0.2]]), higher_is_better=True)
    assert r.row(0) == (1.5, 1.5, 3.0)


def test_a_difference_above_the_tolerance_is_not_a_tie():
    # the tolerance is 1e-9 of the condition's range: 1e-6 of it is a real difference
    x = np.array([[0.5, 0.5 + 1e-6, 0.1], [0.5, 0.5 + 1e-6, 0.1], [0.5, 0.5 + 1e-6, 0.1]])
    r = rank_within_conditions(x, higher_is_better=True)
    assert r.row(0) == (2.0, 1.0, 3.0)
    assert friedman(x, higher_is_better=True).mean_ranks == (2.0, 1.0, 3.0)
    # an absolute tolerance in target units makes it a tie
    assert rank_within_conditions(x, higher_is_better=True, tie_atol=1e-4).row(0) == (
        1.5, 1.5, 3.0)


def test_bad_tolerances_are_refused_by_name():
    with pytest.raises(GenexpyInputError, match="tie_rtol"):
        friedman(_tied_table(), higher_is_better=True, tie_rtol=2.0)
    with pytest.raises(GenexpyInputError, match="tie_atol"):
        friedman(_tied_table(), higher_is_better=True, tie_atol=-1.0)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000))
def test_float_noise_never_changes_friedman(seed):
    x = _tied_table(seed, n=12, k=4)
    assert (friedman(x, higher_is_better=True).statistic
            == friedman(_one_ulp(x, seed + 1), higher_is_better=True).statistic)
