"""The post-hoc tests of mean ranks: Siegel–Castellan's z and Nemenyi's form for missing results.

``posthoc_siegel_castellan`` and ``posthoc_nemenyi_missing`` against a slow twin written out
plainly: ranks with ``scipy.stats.rankdata`` block by block, the null variance of a difference
of mean ranks by enumerating every permutation of a block's ranks (no formula shared with
the package), p-values from ``scipy.stats.norm`` and ``scipy.stats.studentized_range``.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import polars as pl
import pytest
from scipy import stats

import genexpy_nb.significance as sig
from genexpy_nb import GenexpyInputError


def _naive(x: np.ndarray, higher_is_better: bool):
    """(mean ranks, z, n both, statistic names) of every pair i < j, by brute force."""
    o = -x if higher_is_better else x
    o = o[(~np.isnan(o)).sum(axis=1) >= 2]
    n, k = o.shape
    scaled = np.full(o.shape, np.nan)
    for b in range(n):
        obs = np.flatnonzero(~np.isnan(o[b]))
        s = obs.size
        r = stats.rankdata(o[b, obs])  # mid-ranks 1..s
        scaled[b, obs] = 1 + (r - 1) * (k - 1) / (s - 1)
    count = (~np.isnan(scaled)).sum(axis=0)
    mean = np.nansum(scaled, axis=0) / count
    pairs = list(itertools.combinations(range(k), 2))
    z, both = [], []
    for j, m in pairs:
        var = 0.0
        for b in range(n):
            obs = list(np.flatnonzero(~np.isnan(o[b])))
            s = len(obs)
            if j not in obs and m not in obs:
                continue
            # the block's contribution to m_j - m_l over every permutation of ranks 1..s
            vals = []
            for perm in itertools.permutations(range(1, s + 1)):
                rank = dict(zip(obs, perm))
                v = 0.0
                if j in rank:
                    v += (1 + (rank[j] - 1) * (k - 1) / (s - 1)) / count[j]
                if m in rank:
                    v -= (1 + (rank[m] - 1) * (k - 1) / (s - 1)) / count[m]
                vals.append(v)
            var += float(np.var(vals))
        z.append(abs(mean[j] - mean[m]) / math.sqrt(var))
        both.append(int(np.sum(~np.isnan(o[:, j]) & ~np.isnan(o[:, m]))))
    return mean, np.array(z), both, pairs


def _tables():
    rng = np.random.default_rng(36)
    out = []
    for n, k, share in ((12, 4, 0.25), (9, 5, 0.3), (15, 3, 0.2)):
        x = np.round(rng.random((n, k)) + np.arange(k) * 0.1, 1)  # rounded: ties
        x[rng.random(x.shape) < share] = np.nan
        out.append(x)
    thin = np.round(rng.random((8, 4)), 2)
    thin[0, 1:] = np.nan  # a block with one result ranks nothing
    thin[3, :2] = np.nan
    out.append(thin)
    return out


@pytest.mark.parametrize("hib", [True, False])
@pytest.mark.parametrize("t", range(4))
def test_siegel_castellan_with_missing_results_equals_the_slow_twin(t, hib):
    x = _tables()[t]
    mean, z, both, pairs = _naive(x, hib)
    res = sig.posthoc_siegel_castellan(x, higher_is_better=hib, p_adjust="holm")
    assert res["test"].unique().to_list() == ["Siegel-Castellan z (ranks among available)"]
    names = [str(c) for c in range(x.shape[1])]
    assert res.select("alternative_1", "alternative_2").rows() == [
        (names[a], names[b]) for a, b in pairs]
    np.testing.assert_allclose(res["mean_rank_1"].to_numpy(), [mean[a] for a, _ in pairs],
                               rtol=1e-12)
    np.testing.assert_allclose(res["mean_rank_2"].to_numpy(), [mean[b] for _, b in pairs],
                               rtol=1e-12)
    np.testing.assert_allclose(res["statistic"].to_numpy(), z, rtol=1e-10)
    p = np.minimum(2 * stats.norm.sf(z), 1.0)
    np.testing.assert_allclose(res["pvalue_raw"].to_numpy(), p, rtol=1e-9, atol=1e-300)
    np.testing.assert_allclose(res["pvalue"].to_numpy(), sig.adjust_pvalues(p, "holm"),
                               rtol=1e-9, atol=1e-300)
    assert res["n"].to_list() == both


@pytest.mark.parametrize("t", range(4))
def test_nemenyi_missing_equals_the_slow_twin(t):
    x = _tables()[t]
    k = x.shape[1]
    mean, z, both, pairs = _naive(x, False)
    res = sig.posthoc_nemenyi_missing(x, higher_is_better=False)
    assert res["test"].unique().to_list() == ["Nemenyi (ranks among available)"]
    q = math.sqrt(2) * z
    np.testing.assert_allclose(res["statistic"].to_numpy(), q, rtol=1e-10)
    p = stats.studentized_range.sf(q, k, np.inf)
    np.testing.assert_allclose(res["pvalue"].to_numpy(), p, rtol=1e-6, atol=1e-9)
    assert res["p_adjust"].unique().to_list() == ["none"]
    assert res["n"].to_list() == both


def test_complete_blocks_are_demsars_z_and_nemenyis_q():
    rng = np.random.default_rng(7)
    x = rng.random((10, 4)) + np.arange(4) * 0.15
    n, k = x.shape
    mr = np.mean([stats.rankdata(-row) for row in x], axis=0)
    pairs = list(itertools.combinations(range(k), 2))
    z = np.array([abs(mr[a] - mr[b]) for a, b in pairs]) / math.sqrt(k * (k + 1) / (6 * n))
    res = sig.posthoc_siegel_castellan(x, higher_is_better=True)
    assert res["test"][0] == "Siegel-Castellan z (Friedman)"
    np.testing.assert_allclose(res["statistic"].to_numpy(), z, rtol=1e-12)
    np.testing.assert_allclose(res["pvalue"].to_numpy(), 2 * stats.norm.sf(z), rtol=1e-9)
    _, z_twin, _, _ = _naive(x, True)  # the permutation variance is k(k + 1)/(6n) here
    np.testing.assert_allclose(z_twin, z, rtol=1e-10)
    nem = sig.posthoc_nemenyi_missing(x, higher_is_better=True)
    np.testing.assert_allclose(nem["statistic"].to_numpy(),
                               sig.posthoc_nemenyi(x, higher_is_better=True)["statistic"],
                               rtol=1e-10)


def test_long_table_with_absent_rows_equals_the_wide_matrix_with_nan():
    x = _tables()[0]
    rows = [(f"d{b}", f"m{a}", float(x[b, a])) for b in range(x.shape[0])
            for a in range(x.shape[1]) if not np.isnan(x[b, a])]
    long = pl.DataFrame(rows, schema=["dataset", "model", "acc"], orient="row")
    order = [f"m{a}" for a in range(x.shape[1])]
    for fn in (sig.posthoc_siegel_castellan, sig.posthoc_nemenyi_missing):
        got = fn(long, target="acc", blocks="dataset", alternatives="model", order=order,
                 higher_is_better=True)
        want = fn(x, order=order, higher_is_better=True)
        assert got.equals(want)


def test_compare_reports_exactly_these_tests():
    """compare's post-hoc frame is the public function's on the tested blocks, bit for bit."""
    x = _tables()[1]
    rows = [(f"d{b}", f"m{a}", float(x[b, a])) for b in range(x.shape[0])
            for a in range(x.shape[1]) if not np.isnan(x[b, a])]
    df = pl.DataFrame(rows, schema=["dataset", "model", "acc"], orient="row")
    for posthoc, fn, kw in (("siegel", sig.posthoc_siegel_castellan, {"p_adjust": "holm"}),
                            ("nemenyi", sig.posthoc_nemenyi_missing, {})):
        res = sig.compare(df, alternatives="model", target="acc", blocks="dataset",
                          higher_is_better=True, posthoc=posthoc,
                          tol_missing_alternatives=1.0, tol_missing_conditions=1.0,
                          missing="available")
        assert res.n_missing > 0
        want = fn(res.values, order=list(res.alternatives), higher_is_better=True, **kw)
        assert res.posthoc.equals(want)


def test_refuses_what_ranks_nothing():
    x = np.array([[1.0, np.nan, np.nan], [2.0, 1.0, np.nan], [np.nan, np.nan, 3.0]])
    with pytest.raises(GenexpyInputError, match="at least two results"):
        sig.posthoc_siegel_castellan(x, higher_is_better=True)
    y = np.array([[1.0, 2.0, np.nan], [2.0, 1.0, np.nan], [3.0, 1.0, np.nan]])
    with pytest.raises(GenexpyInputError, match=r"no result there for \['2'\]"):
        sig.posthoc_nemenyi_missing(y, higher_is_better=True)
