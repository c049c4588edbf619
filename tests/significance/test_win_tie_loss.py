"""The win / tie / loss matrix against an independent computation (loops, scipy's
Wilcoxon, statsmodels' Holm)."""

import itertools

import numpy as np
import polars as pl
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from genexpy_nb import GenexpyInputError
from genexpy_nb.significance import win_tie_loss


def _independent(x, hib, tol):
    n, k = x.shape
    pairs = list(itertools.combinations(range(k), 2))
    raw = []
    for i, j in pairs:
        ok = [r for r in range(n) if not (np.isnan(x[r, i]) or np.isnan(x[r, j]))]
        raw.append(stats.wilcoxon(x[ok, i], x[ok, j]).pvalue)
    adj = multipletests(raw, method="holm")[1]
    p = {}
    for (i, j), q in zip(pairs, adj, strict=True):
        p[i, j] = p[j, i] = q
    out = {}
    for i in range(k):
        for j in range(k):
            if i == j:
                continue
            w = t = lo = 0
            diffs = []
            for r in range(n):
                a, b = x[r, i], x[r, j]
                if np.isnan(a) or np.isnan(b):
                    continue
                diffs.append(a - b)
                if abs(a - b) <= tol:
                    t += 1
                elif (a > b) == hib:
                    w += 1
                else:
                    lo += 1
            out[str(i), str(j)] = (w, t, lo, len(diffs), sum(diffs) / len(diffs), p[i, j])
    return out


@pytest.mark.parametrize("hib", [True, False])
@pytest.mark.parametrize("seed", range(4))
def test_equals_independent_computation(hib, seed):
    rng = np.random.default_rng(seed)
    x = np.round(rng.normal(size=(14, 4)) + np.arange(4) * 0.4, 1)  # rounding makes ties
    x[3, 1] = np.nan
    res = win_tie_loss(x, higher_is_better=hib, tie_tolerance=0.1 if seed % 2 else 0.0)
    want = _independent(x, hib, 0.1 if seed % 2 else 0.0)
    assert res.height == 12
    for row in res.iter_rows(named=True):
        w = want[row["alternative_1"], row["alternative_2"]]
        assert (row["wins"], row["ties"], row["losses"], row["n"]) == w[:4]
        assert row["mean_difference"] == pytest.approx(w[4], abs=1e-12)
        assert row["pvalue"] == pytest.approx(w[5], rel=1e-9)
        assert row["significant"] == (w[5] < 0.05)


def test_long_input_and_symmetry():
    rng = np.random.default_rng(0)
    df = pl.DataFrame({"d": [f"d{i}" for i in range(8) for _ in range(3)],
                       "m": ["a", "b", "c"] * 8, "acc": rng.uniform(size=24)})
    res = win_tie_loss(df, y_col="acc", block_col="d", group_col="m", higher_is_better=True)
    ab = res.filter((pl.col("alternative_1") == "a") & (pl.col("alternative_2") == "b")).row(0)
    ba = res.filter((pl.col("alternative_1") == "b") & (pl.col("alternative_2") == "a")).row(0)
    assert (ab[2], ab[3], ab[4]) == (ba[4], ba[3], ba[2])
    assert ab[6] == -ba[6] and ab[7] == ba[7]


def test_bad_input():
    x = np.random.default_rng(0).normal(size=(5, 3))
    with pytest.raises(GenexpyInputError, match="higher_is_better"):
        win_tie_loss(x)
    with pytest.raises(GenexpyInputError, match="tie_tolerance"):
        win_tie_loss(x, higher_is_better=True, tie_tolerance=-1)


def _table(seed, n, k):
    """Scores with ties (rounding), zero differences (copied columns) and missing values."""
    rng = np.random.default_rng(seed)
    x = np.round(rng.normal(size=(n, k)) + np.arange(k) * 0.2, int(rng.integers(0, 3)))
    x[:, 1] = x[:, 0]  # a pair with every difference zero
    x[: n // 3, 2] = x[: n // 3, 3]  # zeros among other differences
    x[rng.random((n, k)) < 0.05] = np.nan
    return x


@pytest.mark.parametrize(("seed", "n"), [(0, 6), (1, 10), (2, 13), (3, 14), (4, 30), (5, 55),
                                         (6, 9), (7, 40)])
def test_equals_the_slow_twin_on_tables_with_ties_and_zeros(seed, n):
    """Every branch of scipy's p-value (exact, permutation, normal approximation)."""
    import warnings

    import naive

    from genexpy_nb.significance import DegenerateTestWarning

    x = _table(seed, n, 5)
    hib, tol = bool(seed % 2), 0.0 if seed % 3 else 0.05
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateTestWarning)
        res = win_tie_loss(x, higher_is_better=hib, tie_tolerance=tol, p_adjust=None)
    want = naive.win_tie_loss(x, hib, tol)
    for row in res.iter_rows(named=True):
        w = want[int(row["alternative_1"]), int(row["alternative_2"])]
        assert (row["wins"], row["ties"], row["losses"], row["n"]) == w[:4]
        assert row["mean_difference"] == pytest.approx(w[4], abs=1e-12)
        assert row["pvalue"] == w[5]  # the same bits as scipy


def test_pairs_that_never_differ_warn_once():
    from genexpy_nb.significance import DegenerateTestWarning

    x = _table(0, 12, 4)
    with pytest.warns(DegenerateTestWarning, match=r"1 pair\(s\).*'0' and '1'.*reported as 1"):
        res = win_tie_loss(x, higher_is_better=True)
    assert res.filter(pl.col("alternative_1") == "0", pl.col("alternative_2") == "1")[
        "pvalue"].item() == 1.0


def test_pairs_without_a_shared_condition_are_refused():
    x = np.array([[1.0, np.nan, 0.2], [np.nan, 2.0, 0.3], [0.5, np.nan, 0.1]])
    with pytest.raises(GenexpyInputError, match=r"share no condition.*'0' and '1'"):
        win_tie_loss(x, higher_is_better=True)


def test_float_noise_is_a_tie_as_the_rank_tests_rank_it():
    # the same means summed in another order differ in the last bits: the rank tests rank
    # them as tied (the Study's tolerance), so win_tie_loss counts a tie and leaves the zero
    # difference out of the Wilcoxon test; exact equality (0, 0) counts the noise as a win
    from genexpy_nb.significance import rank_within_conditions

    rng = np.random.default_rng(3)
    x = rng.uniform(0.5, 0.9, size=(12, 3))
    x[:, 1] = (x[:, 0] * 3 + 0.1 - 0.1) / 3  # x[:, 0] up to float noise
    assert (x[:, 1] != x[:, 0]).sum() >= 3  # the noise is there
    ranks = rank_within_conditions(x, higher_is_better=True).to_numpy()
    tied = int((ranks[:, 0] == ranks[:, 1]).sum())
    assert tied == 12
    from genexpy_nb.significance import DegenerateTestWarning

    with pytest.warns(DegenerateTestWarning, match="all their paired differences zero"):
        res = win_tie_loss(x, higher_is_better=True)
    row = res.filter((pl.col("alternative_1") == "0") & (pl.col("alternative_2") == "1"))
    assert (row["wins"][0], row["ties"][0], row["losses"][0]) == (0, tied, 0)
    assert row["pvalue"][0] == 1.0
    exact = win_tie_loss(x, higher_is_better=True, tie_rtol=0, tie_atol=0)
    row = exact.filter((pl.col("alternative_1") == "0") & (pl.col("alternative_2") == "1"))
    assert row["ties"][0] == int((x[:, 1] == x[:, 0]).sum()) < tied
    with pytest.raises(GenexpyInputError, match="tie_rtol"):
        win_tie_loss(x, higher_is_better=True, tie_rtol=2)
