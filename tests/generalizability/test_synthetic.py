"""Tests of generalizability.synthetic: true n* of a known P, n̂*_N, significance vs ngen."""

from __future__ import annotations

import math

import naive
import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy import stats

from genexpy_nb import (
    RBF,
    Borda,
    GeneralizabilityAnalysis,
    GenexpyInputError,
    Jaccard,
    Mallows,
    Study,
)
from genexpy_nb import synthetic as syn
from genexpy_nb.generalizability.distributions import sample_rankings, uniform_distribution
from genexpy_nb.generalizability.mmd import draw_pairs

R3, P3 = uniform_distribution(3)  # 13 rankings with ties of 3 alternatives
TWO = np.array([[0, 1, 2, 3, 4], [1, 0, 2, 3, 4]])  # the paper's Appendix A
TWO_P = np.array([0.55, 0.45])


def _naive_kfun(kernel, na):
    k = kernel.resolve(na, [str(a) for a in range(na)])
    if isinstance(k, Jaccard):
        return lambda r, s: naive.jaccard(r, s, k.k)
    if isinstance(k, Mallows):
        return lambda r, s: naive.mallows(r, s, k.nu)
    return lambda r, s: naive.borda(r, s, k.index, k.nu)


KERNELS = [Jaccard(k=1), Mallows(), Borda(0)]


# =====================================================================================
# MMD_n from a known pmf
# =====================================================================================
@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.name)
@pytest.mark.parametrize("n", [1, 4, 13, 17])  # 17 > 13 rankings: the multinomial path
def test_mmd_from_pmf_matches_naive(kernel, n):
    probs = np.linspace(1.0, 2.0, R3.shape[0])
    probs /= probs.sum()
    fast = syn.mmd_distribution_from_pmf(R3, probs, kernel, n, rep=40, seed=3)
    slow = naive.pmf_mmd_samples(R3, probs, _naive_kfun(kernel, 3), n, 40, 3)
    assert_allclose(fast**2, slow**2, rtol=1e-9, atol=1e-12)  # MMD^2: rounding-safe near 0


def test_mmd_from_pmf_blocks_give_the_same_stream(monkeypatch):
    a = syn.mmd_distribution_from_pmf(R3, P3, Mallows(), 6, rep=50, seed=1)
    b = syn.mmd_distribution_from_pmf(R3, P3, Mallows(), 20, rep=50, seed=1)
    monkeypatch.setattr(syn, "_BLOCK", 64)  # many small blocks of draws
    assert_allclose(syn.mmd_distribution_from_pmf(R3, P3, Mallows(), 6, rep=50, seed=1), a)
    assert_allclose(syn.mmd_distribution_from_pmf(R3, P3, Mallows(), 20, rep=50, seed=1), b)


def test_mmd_from_pmf_two_point_distribution_exact_law():
    """Jaccard on the two rankings of Appendix A: MMD_n = sqrt(2) |a - b| / n, a, b ~ Bin."""
    n, rep = 30, 4000
    x = syn.mmd_distribution_from_pmf(TWO, TWO_P, Jaccard(k=1), n, rep=rep, seed=0)
    d = np.arange(-n, n + 1)
    pb = stats.binom.pmf(np.arange(n + 1), n, 0.55)
    pdiff = np.convolve(pb, pb[::-1])  # law of a - b
    for eps in (0.1, 0.2, 0.3):
        exact = pdiff[np.sqrt(2.0) * np.abs(d) / n <= eps + 1e-12].sum()
        se = math.sqrt(exact * (1 - exact) / rep)
        assert abs(np.mean(x <= eps + 1e-12) - exact) < 4 * se + 1e-12


def test_mmd_from_pmf_point_mass_is_zero():
    x = syn.mmd_distribution_from_pmf(R3, np.eye(13)[4], Mallows(), 7, rep=10)
    assert_allclose(x, 0.0, atol=1e-12)


def test_mmd_from_pmf_same_seed_same_values_kernels_share_samples():
    a = syn.mmd_distribution_from_pmf(R3, P3, Jaccard(), 8, rep=30, seed=5)
    assert_allclose(a, syn.mmd_distribution_from_pmf(R3, P3, Jaccard(), 8, rep=30, seed=5))
    assert not np.allclose(a, syn.mmd_distribution_from_pmf(R3, P3, Jaccard(), 8, rep=30,
                                                             seed=6))


# =====================================================================================
# The true n*
# =====================================================================================
@pytest.mark.parametrize("kernel,delta", [(Jaccard(k=1), 0.1917), (Mallows(), 0.15),
                                          (Borda(0), 0.15)], ids=["jaccard", "mallows", "borda"])
def test_true_nstar_matches_naive_linear_scan(kernel, delta):
    probs = np.linspace(1.0, 3.0, 13)
    probs /= probs.sum()
    k = kernel.resolve(3, ["0", "1", "2"])
    eps = float(k.eps(delta))
    fast = syn.true_nstar(R3, probs, kernel, 0.9, delta, rep=150, seed=2)
    slow = naive.true_nstar(R3, probs, _naive_kfun(kernel, 3), eps, 0.9, 150, 2, 60)
    assert fast.exact and fast.nstar == slow
    lo = naive.true_nstar(R3, probs, _naive_kfun(kernel, 3), eps, 0.9 - 2 * fast.se, 150, 2, 60)
    assert fast.nstar_low == lo
    assert fast.nstar_low <= fast.nstar <= fast.nstar_high
    assert fast.eps == pytest.approx(eps)
    # the curve holds every n evaluated, with the values of the naive twin
    c = fast.curve
    assert c["n"].is_sorted() and c["n"].min() == 1 and c["n"].max() >= fast.nstar_high
    n = int(fast.nstar)
    x = naive.pmf_mmd_samples(R3, probs, _naive_kfun(kernel, 3), n, 150, 2)
    assert c.filter(pl.col("n") == n)["ngen"][0] == pytest.approx(np.mean(x <= eps))


def test_true_nstar_bisection_beyond_scan_max_finds_a_crossing():
    t = syn.true_nstar(R3, P3, Jaccard(k=1), 0.95, 0.05, rep=300, seed=0, scan_max=4)
    full = syn.true_nstar(R3, P3, Jaccard(k=1), 0.95, 0.05, rep=300, seed=0)
    assert not t.exact and full.exact
    g = dict(full.curve.iter_rows())
    ts = dict(t.curve.iter_rows())
    n = int(t.nstar)
    assert ts[n] >= 0.95 and ts[n - 1] < 0.95  # a crossing of the Monte Carlo curve
    assert ts[n] == g[n]  # same samples at the same n, whatever else was evaluated
    assert abs(t.nstar - full.nstar) <= 0.25 * full.nstar


def test_true_nstar_two_point_distribution_against_exact_curve():
    """Exact nGen(n) of Appendix A's P under Jaccard from binomial laws."""
    t = syn.true_nstar(TWO, TWO_P, Jaccard(k=1), 0.9, 0.05, rep=3000, seed=1)
    eps = math.sqrt(0.1)

    def exact_ngen(n):
        pb = stats.binom.pmf(np.arange(n + 1), n, 0.55)
        pdiff = np.convolve(pb, pb[::-1])
        d = np.arange(-n, n + 1)
        return pdiff[np.sqrt(2.0) * np.abs(d) / n <= eps + 1e-12].sum()

    exact_nstar = next(n for n in range(1, 2000) if exact_ngen(n) >= 0.9)
    assert t.nstar_low <= exact_nstar <= t.nstar_high
    for n, g in t.curve.iter_rows():
        assert abs(g - exact_ngen(n)) < 5 * math.sqrt(0.25 / 3000)


def test_true_nstar_point_mass_is_one():
    t = syn.true_nstar(R3, np.eye(13)[0], Mallows(), 0.99, 0.01, rep=20)
    assert t.nstar == 1 and t.nstar_low == 1 and t.nstar_high == 1


def test_true_nstar_not_reached_has_a_reason():
    t = syn.true_nstar(R3, P3, Jaccard(k=1), 0.95, 0.01, rep=50, n_max=8)
    assert math.isnan(t.nstar) and "n_max=8" in t.reason
    assert t.curve["n"].max() == 8


@settings(max_examples=6, deadline=None)
@given(w=st.lists(st.floats(0.05, 1.0), min_size=13, max_size=13),
       seed=st.integers(0, 1000))
def test_true_nstar_monotone_in_alpha_and_delta(w, seed):
    probs = np.array(w) / np.sum(w)
    alphas, deltas = [0.7, 0.85, 0.95], [0.1, 0.2, 0.4]
    f = syn.true_nstar_frame(R3, probs, [Jaccard(k=1), Mallows()], alphas, deltas, rep=100,
                             seed=seed, progress=False)
    assert f.height == 2 * 3 * 3 and f["exact"].all()
    for _, g in f.group_by("kernel_label"):
        M = g.sort("alpha", "delta")["nstar"].to_numpy().reshape(3, 3)
        assert np.all(np.diff(M, axis=0) >= 0)  # more certainty -> more experiments
        assert np.all(np.diff(M, axis=1) <= 0)  # looser similarity -> fewer experiments
    assert (f["nstar_low"] <= f["nstar"]).all() and (f["nstar"] <= f["nstar_high"]).all()


def test_true_nstar_frame_equals_true_nstar():
    f = syn.true_nstar_frame(R3, P3, KERNELS, 0.9, [0.1, 0.3], rep=120, seed=4, progress=False)
    for row in f.iter_rows(named=True):
        k = {"jaccard": Jaccard(k=1), "mallows": Mallows(), "borda": Borda(0)}[row["kernel"]]
        t = syn.true_nstar(R3, P3, k, 0.9, row["delta"], rep=120, seed=4)
        assert (t.nstar, t.nstar_low, t.nstar_high) == (row["nstar"], row["nstar_low"],
                                                        row["nstar_high"])
        assert t.as_row()["kernel_label"] == row["kernel_label"]


# =====================================================================================
# The estimate n̂*_N
# =====================================================================================
def _one_config_study(X):
    N, na = X.shape
    df = pl.DataFrame({
        "condition": np.repeat([f"c{i:03d}" for i in range(N)], na),
        "alternative": np.tile([str(a) for a in range(na)], N),
        "score": -X.ravel().astype(float),
    })
    return Study(df, alternatives="alternative", target="score", generalize="condition",
                 higher_is_better=True)


def test_estimate_matches_generalizability_analysis_on_a_one_config_study():
    R5, P5 = uniform_distribution(5)
    X = sample_rankings(R5, P5, 30, seed=7)
    study = _one_config_study(X)
    np.testing.assert_array_equal(study.sample(0).rankings, X)
    ks = [Jaccard(k=1), Mallows(), Borda("0")]
    ga = GeneralizabilityAnalysis(study, ks, rep=100, seed=11, progress=False)
    ref = ga.nstar([0.9, 0.95], [0.05, 0.2], estimators=["resample"]).sort(
        "kernel_label", "alpha", "delta")
    est = syn.estimate_nstar_from_sample(X, ks, [0.9, 0.95], [0.05, 0.2], rep=100,
                                         seed=11).sort("kernel_label", "alpha", "delta")
    assert est["kernel_label"].to_list() == ref["kernel_label"].to_list()
    assert_allclose(est["nstar"].to_numpy(), ref["nstar"].to_numpy(), rtol=1e-12)
    assert_allclose(est["b1"].to_numpy(), ref["b1"].to_numpy(), rtol=1e-12)
    assert (est["N"] == 30).all()


def test_estimate_degenerate_and_too_small():
    same = np.tile([[0, 1, 2]], (12, 1))
    f = syn.estimate_nstar_from_sample(same, Mallows(), 0.95, 0.05)
    assert f["nstar"][0] == 1.0 and "agree" in f["reason"][0]
    small = syn.estimate_nstar_from_sample(R3[:5], Mallows(), 0.95, 0.05)
    assert math.isnan(small["nstar"][0]) and "needs at least N =" in small["reason"][0]


def test_preliminary_nstar_rows_are_estimates_of_drawn_samples():
    ks = [Jaccard(k=1), Mallows()]
    f = syn.preliminary_nstar(R3, P3, ks, Ns=[8, 12], repetitions=3, rep=50, seed=9,
                              progress=False)
    assert f.height == 2 * 3 * 2
    assert f.columns[:2] == ["N", "repetition"]
    # repetition r of size N: stream SeedSequence([seed, N, r]) (documented)
    for N, r in [(8, 0), (12, 2)]:
        rng = np.random.default_rng(np.random.SeedSequence([9, N, r]))
        idx = rng.choice(13, size=N, p=P3)
        ref = syn.estimate_nstar_from_sample(R3[idx], ks, rep=50, seed=int(rng.integers(2**31)))
        got = f.filter(pl.col("N") == N, pl.col("repetition") == r)
        assert_allclose(got["nstar"].to_numpy(), ref["nstar"].to_numpy(), rtol=1e-12)


def test_preliminary_estimates_approach_the_true_nstar():
    """A wrong fit or a wrong eps would miss by far more than a factor 2."""
    R4, P4 = uniform_distribution(4)
    t = syn.true_nstar(R4, P4, Mallows(), 0.95, 0.05, rep=1000, seed=0)
    f = syn.preliminary_nstar(R4, P4, Mallows(), Ns=[60], repetitions=8, rep=100, seed=0,
                              progress=False)
    ratio = f["nstar"].to_numpy() / t.nstar
    assert np.median(ratio) == pytest.approx(1.0, abs=0.5)


# =====================================================================================
# Significance vs generalizability (Appendix A)
# =====================================================================================
def test_significance_vs_generalizability_ngen_matches_naive():
    reps, n, rep, seed = 12, 20, 30, 4
    f = syn.significance_vs_generalizability(TWO, TWO_P, n=n, repetitions=reps, rep=rep,
                                             seed=seed, progress=False)
    idx = np.random.default_rng(np.random.SeedSequence([seed, 0])).choice(
        2, size=(reps, n), p=TWO_P)
    IX, IY = draw_pairs(n, n // 2, rep * reps,
                        seed=np.random.default_rng(np.random.SeedSequence([seed, 1])))
    kf = _naive_kfun(Jaccard(k=1), 5)
    for r in range(reps):
        sample = TWO[idx[r]].tolist()
        g = naive.sample_ngen(sample, kf, IX[r * rep:(r + 1) * rep], IY[r * rep:(r + 1) * rep],
                              math.sqrt(0.1))
        assert f["ngen"][r] == pytest.approx(g)
        c = int((idx[r] == 0).sum())  # copies of (0,1,2,3,4): alternative 0 on top
        assert f["best"][r] == ("0" if c > 10 else "1" if c < 10 else "{0,1}")
        # Friedman on the rank matrix, against the naive statistic
        chi2 = naive.friedman_statistic(TWO[idx[r]].astype(float))
        assert f["friedman_statistic"][r] == pytest.approx(chi2)


def test_significance_blocks_give_the_same_frame(monkeypatch):
    a = syn.significance_vs_generalizability(TWO, TWO_P, repetitions=15, rep=40, seed=2,
                                             progress=False)
    monkeypatch.setattr(syn, "_BLOCK", 1000)
    b = syn.significance_vs_generalizability(TWO, TWO_P, repetitions=15, rep=40, seed=2,
                                             progress=False)
    assert a.equals(b)


def test_conover_significance_is_a_threshold_on_the_top_count():
    """For this P the tests depend only on c, the copies of (0,1,2,3,4); C-I significance
    must hold exactly for the c far enough from n/2, never for a tie."""
    f = syn.significance_vs_generalizability(TWO, TWO_P, repetitions=300, rep=20, seed=0,
                                             progress=False)
    assert f["friedman_significant"].all()
    assert not f.filter(pl.col("best") == "{0,1}")["ci_significant"].any()
    idx = np.random.default_rng(np.random.SeedSequence([0, 0])).choice(2, size=(300, 20),
                                                                        p=TWO_P)
    c = (idx == 0).sum(axis=1)
    sig = f["ci_significant"].to_numpy()
    dist = np.abs(c - 10)
    # significance is monotone in |c - 10| (per best alternative, by symmetry of the design)
    assert sig[dist >= dist[sig].min()].all() if sig.any() else True
    assert not sig[dist < dist[sig].min()].any()
    assert (f["ci_max_pvalue"].is_nan() == (f["best"] == "{0,1}")).all()


def test_significance_table_counts_and_means():
    f = syn.significance_vs_generalizability(TWO, TWO_P, repetitions=120, rep=50, seed=1,
                                             progress=False)
    t = syn.significance_table(f)
    total = t.filter(pl.col("best") == "all")
    assert total["count"][0] == 120
    assert total["ngen_mean"][0] == pytest.approx(f["ngen"].mean())
    assert total["ngen_sd"][0] == pytest.approx(f["ngen"].std())
    parts = t.filter(pl.col("best") != "all")
    assert parts["count"].sum() == 120
    assert set(parts["best"]) <= {"0", "1", "{0,1}"}


def test_significance_with_mallows_and_other_n_gen():
    f = syn.significance_vs_generalizability(TWO, TWO_P, n=12, n_gen=4, repetitions=10,
                                             kernel=Mallows(), delta=0.1, rep=25,
                                             progress=False)
    assert f.height == 10 and f["ngen"].is_between(0, 1).all()


# =====================================================================================
# Bad input: one error each, naming the parameter
# =====================================================================================
@pytest.mark.parametrize("call,match", [
    (lambda: syn.true_nstar(R3, P3[:-1], Jaccard()), "probs"),
    (lambda: syn.true_nstar(R3, P3 * 2, Jaccard()), "sum to 1"),
    (lambda: syn.true_nstar(R3 + 1, P3, Jaccard()), "tier"),
    (lambda: syn.true_nstar(R3, P3, RBF()), "ranking kernel"),
    (lambda: syn.true_nstar(R3, P3, "jaccard"), "Kernel objects"),
    (lambda: syn.true_nstar(R3, P3, Jaccard(), alpha=1.0), "alpha"),
    (lambda: syn.true_nstar(R3, P3, Jaccard(), delta=1.5), "delta"),
    (lambda: syn.true_nstar(R3, P3, Jaccard(), rep=1), "rep"),
    (lambda: syn.true_nstar(R3, P3, Jaccard(), n_max=0), "n_max"),
    (lambda: syn.true_nstar(R3, P3, Jaccard(), scan_max=0), "scan_max"),
    (lambda: syn.true_nstar(R3, P3, Jaccard(), seed=-1), "seed"),
    (lambda: syn.true_nstar(R3, P3, Borda(7)), "out of range"),
    (lambda: syn.true_nstar_frame(R3, P3, [], 0.9, 0.1), "at least one kernel"),
    (lambda: syn.true_nstar_frame(R3, P3, [Mallows(), Mallows()], 0.9, 0.1), "twice"),
    (lambda: syn.mmd_distribution_from_pmf(R3, P3, Jaccard(), 0), "n must"),
    (lambda: syn.estimate_nstar_from_sample([[0, 2, 2]], Jaccard()), "skips a tier"),
    (lambda: syn.estimate_nstar_from_sample(R3, Jaccard(), alpha=[0.9, 2.0]), "alpha"),
    (lambda: syn.preliminary_nstar(R3, P3, Jaccard(), Ns=[1]), "Ns"),
    (lambda: syn.preliminary_nstar(R3, P3, Jaccard(), Ns=[]), "Ns must list"),
    (lambda: syn.preliminary_nstar(R3, P3, Jaccard(), repetitions=0), "repetitions"),
    (lambda: syn.significance_vs_generalizability(TWO, TWO_P, n_gen=11), "n_gen"),
    (lambda: syn.significance_vs_generalizability(TWO, TWO_P, level=0), "level"),
    (lambda: syn.significance_vs_generalizability(TWO, TWO_P, p_adjust="nope"), "p_adjust"),
    (lambda: syn.significance_vs_generalizability([[0], [0]], [0.5, 0.5]), "2 alternatives"),
    (lambda: syn.significance_table(pl.DataFrame({"x": [1]})), "ci_significant"),
])
def test_bad_input(call, match):
    with pytest.raises(GenexpyInputError, match=match):
        call()


def test_support_too_large(monkeypatch):
    monkeypatch.setattr(syn, "MAX_SUPPORT", 5)
    with pytest.raises(GenexpyInputError, match="MAX_SUPPORT"):
        syn.true_nstar(R3, P3, Mallows())
