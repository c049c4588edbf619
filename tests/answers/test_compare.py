"""Tests of the two-model comparisons of genexpy_nb.significance.

Oracles: mlxtend (5x2cv t and F tests, McNemar), statsmodels (McNemar), scipy (bootstrap,
t-test, Wilcoxon, Mann–Whitney), brute-force counts, published examples, and simulations
under a true null hypothesis where no library has the test.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mlxtend.evaluate import combined_ftest_5x2cv as mlx_ftest
from mlxtend.evaluate import mcnemar as mlx_mcnemar
from mlxtend.evaluate import mcnemar_table as mlx_mcnemar_table
from mlxtend.evaluate import paired_ttest_5x2cv as mlx_ttest
from numpy.testing import assert_allclose
from scipy import stats
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_score, train_test_split
from sklearn.naive_bayes import GaussianNB
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar

from genexpy_nb import GenexpyInputError
from genexpy_nb import significance as sig

D = [[0.01, 0.03], [0.02, 0.0], [0.02, 0.04], [-0.01, 0.01], [0.03, 0.02]]


def _binom_99(n: int, p: float) -> tuple[float, float]:
    """99 % Monte Carlo interval of a rejection rate estimated from n runs."""
    lo, hi = stats.binom.interval(0.99, n, p)
    return lo / n, hi / n


# =====================================================================================
# 5 x 2 cv: hand example, mlxtend with the same splits, simulation under H0
# =====================================================================================


def test_5x2cv_hand_example():
    d = np.array(D)
    pbar = d.mean(axis=1)
    s2 = ((d - pbar[:, None]) ** 2).sum(axis=1)
    t = sig.paired_ttest_5x2cv(d)
    assert t.statistic == pytest.approx(0.01 / math.sqrt(s2.sum() / 5), rel=1e-12)
    assert t.pvalue == pytest.approx(2 * stats.t.sf(abs(t.statistic), 5), rel=1e-12)
    assert t.df == 5.0 and t.variances == pytest.approx(tuple(s2))
    f = sig.combined_ftest_5x2cv(d)
    assert f.statistic == pytest.approx((d**2).sum() / (2 * s2.sum()), rel=1e-12)
    assert f.pvalue == pytest.approx(stats.f.sf(f.statistic, 10, 5), rel=1e-12)
    assert f.df == (10.0, 5.0)
    # scores of A and B instead of differences; (10,) repetition-major is the same
    b = np.full((5, 2), 0.8)
    assert sig.paired_ttest_5x2cv(b + d, b).statistic == pytest.approx(t.statistic)
    assert sig.combined_ftest_5x2cv(np.ravel(b + d), np.ravel(b)).statistic == pytest.approx(
        f.statistic
    )
    stat, p = t
    assert (stat, p) == (t.statistic, t.pvalue) and "5x2cv" in repr(t)


def _mlxtend_splits(n: int, seed: int):
    """The splits mlxtend's 5x2cv functions draw, as index pairs (same order of rows)."""
    rng = np.random.RandomState(seed)
    out = []
    for _ in range(5):
        r = rng.randint(low=0, high=32767)
        i1, i2 = train_test_split(np.arange(n), test_size=0.5, random_state=r)
        out += [(i1, i2), (i2, i1)]
    return out


@pytest.mark.parametrize("seed", [7])
def test_5x2cv_equals_mlxtend(seed):
    X, y = make_classification(n_samples=120, n_features=4, random_state=seed)
    a, b = LogisticRegression(), GaussianNB()
    scores = sig.paired_cv_scores([a, b], X, y, _mlxtend_splits(120, seed), scoring="accuracy")
    assert scores.shape == (2, 10)
    t_ref, p_ref = mlx_ttest(a, b, X, y, scoring="accuracy", random_seed=seed)
    f_ref, pf_ref = mlx_ftest(a, b, X, y, scoring="accuracy", random_seed=seed)
    t = sig.paired_ttest_5x2cv(scores[0], scores[1])
    f = sig.combined_ftest_5x2cv(scores[0], scores[1])
    assert (t.statistic, t.pvalue) == pytest.approx((t_ref, p_ref), rel=1e-10)
    assert (f.statistic, f.pvalue) == pytest.approx((f_ref, pf_ref), rel=1e-10)


def test_5x2cv_false_positive_rate_under_null():
    """Simulation under a true null, Dietterich's model (independent normal fold differences
    with mean 0): both tests keep the 5 % level. They are conservative there, because the
    numerator and the variance estimate share the same differences (the t-test's p_1^(1) is
    in s_1^2); the F test more so, as Alpaydin (1999) reports."""
    rng = np.random.default_rng(3)
    runs = 2000
    d = rng.normal(0.0, 0.02, size=(runs, 5, 2))
    rej_t = np.mean([sig.paired_ttest_5x2cv(x).pvalue < 0.05 for x in d])
    rej_f = np.mean([sig.combined_ftest_5x2cv(x).pvalue < 0.05 for x in d])
    _, hi = _binom_99(runs, 0.05)
    assert 0.01 < rej_f < rej_t <= hi
    # the reference distribution matters: a normal one instead of t(5) would be liberal
    t = np.array([sig.paired_ttest_5x2cv(x).statistic for x in d])
    assert np.mean(2 * stats.norm.sf(np.abs(t)) < 0.05) > rej_t + 0.01
    # a shift is detected (power), so the tests are not trivially conservative
    power = np.mean([sig.combined_ftest_5x2cv(x + 0.05).pvalue < 0.05 for x in d[:300]])
    assert power > 0.5


def test_5x2cv_degenerate_and_bad_input():
    with pytest.warns(sig.DegenerateTestWarning, match="zero"):
        z = sig.paired_ttest_5x2cv(np.zeros((5, 2)))
    assert (z.statistic, z.pvalue) == (0.0, 1.0) and z.note
    with pytest.warns(sig.DegenerateTestWarning, match="zero"):
        fz = sig.combined_ftest_5x2cv(np.zeros((5, 2)))
    assert (fz.statistic, fz.pvalue) == (0.0, 1.0)
    const = np.full((5, 2), 0.02)
    with pytest.warns(sig.DegenerateTestWarning, match="zero variance"):
        c = sig.paired_ttest_5x2cv(const)
    assert c.statistic == math.inf and c.pvalue == 0.0
    with pytest.warns(sig.DegenerateTestWarning, match="zero variance"):
        cf = sig.combined_ftest_5x2cv(const)
    assert cf.statistic == math.inf and cf.pvalue == 0.0
    with pytest.raises(GenexpyInputError, match=r"\(5, 2\)"):
        sig.paired_ttest_5x2cv(np.zeros((2, 5)))
    with pytest.raises(GenexpyInputError, match="NaN"):
        sig.combined_ftest_5x2cv([np.nan] * 10)


def test_splits_5x2cv():
    y = np.array([0] * 31 + [1] * 10)
    splits = sig.splits_5x2cv(41, seed=4, stratify=y)
    assert len(splits) == 10
    for i in range(5):
        (a, b), (b2, a2) = splits[2 * i], splits[2 * i + 1]
        assert np.array_equal(a, a2) and np.array_equal(b, b2)
        assert np.array_equal(np.sort(np.concatenate([a, b])), np.arange(41))
        assert abs(a.size - b.size) <= 1 and abs(y[a].sum() - y[b].sum()) <= 1
    again = sig.splits_5x2cv(41, seed=4, stratify=y)
    assert all(np.array_equal(u[0], v[0]) for u, v in zip(splits, again))
    assert not np.array_equal(splits[0][0], splits[2][0])
    with pytest.raises(GenexpyInputError, match="stratify"):
        sig.splits_5x2cv(41, stratify=y[:-1])


def test_paired_cv_scores_equals_cross_val_score():
    X, y = make_classification(n_samples=120, n_features=5, random_state=0)
    splits = sig.repeated_kfold_splits(120, n_splits=5, n_repeats=2, seed=0)
    out = sig.paired_cv_scores({"nb": GaussianNB(), "lr": LogisticRegression()}, X, y, splits)
    assert set(out) == {"nb", "lr"}
    assert_allclose(out["nb"], cross_val_score(GaussianNB(), X, y, cv=splits))
    with pytest.raises(GenexpyInputError, match="splits"):
        sig.paired_cv_scores([GaussianNB()], X, y, [])


# =====================================================================================
# McNemar: statsmodels, mlxtend, a published example, mid-p
# =====================================================================================


@pytest.mark.parametrize("b, c", [(9, 2), (1, 7), (15, 20), (0, 5), (40, 12), (3, 4)])
def test_mcnemar_equals_statsmodels_and_mlxtend(b, c):
    table = np.array([[50, b], [c, 39]])
    ex = sig.mcnemar(table=table)
    ref = sm_mcnemar(table, exact=True)
    assert (ex.statistic, ex.pvalue) == pytest.approx((ref.statistic, ref.pvalue), rel=1e-12)
    chi2_ref, p_ref = mlx_mcnemar(table, exact=True)
    assert ex.pvalue == pytest.approx(p_ref, rel=1e-12)
    for corr in (True, False):
        asy = sig.mcnemar(table=table, method="asymptotic", correction=corr)
        ref = sm_mcnemar(table, exact=False, correction=corr)
        assert (asy.statistic, asy.pvalue) == pytest.approx((ref.statistic, ref.pvalue))
    chi2_ref, p_ref = mlx_mcnemar(table, exact=False, corrected=True)
    asy = sig.mcnemar(table=table, method="asymptotic")
    assert (asy.statistic, asy.pvalue) == pytest.approx((chi2_ref, p_ref))
    # mid-p: the exact p-value minus the point probability of the observed count
    mid = sig.mcnemar(table=table, method="mid-p")
    lo, m = min(b, c), b + c
    exp = 2 * stats.binom.cdf(lo, m, 0.5) - stats.binom.pmf(lo, m, 0.5)
    assert mid.pvalue == pytest.approx(exp, rel=1e-12)
    assert mid.pvalue == pytest.approx(ex.pvalue - stats.binom.pmf(lo, m, 0.5), rel=1e-12)
    assert mid.pvalue < ex.pvalue and mid.pvalue_exact == ex.pvalue


def test_mcnemar_published_example():
    # Fagerland, Lydersen & Laake (2013), BMC Med Res Methodol 13:91: b = 1, c = 7
    # exact conditional p = 0.070, mid-p = 0.039, asymptotic (uncorrected) = 0.034
    t = [[59, 1], [7, 4]]
    assert sig.mcnemar(table=t).pvalue == pytest.approx(0.0703, abs=5e-4)
    assert sig.mcnemar(table=t, method="mid-p").pvalue == pytest.approx(0.0391, abs=5e-4)
    asy = sig.mcnemar(table=t, method="asymptotic", correction=False)
    assert asy.pvalue == pytest.approx(0.034, abs=5e-4)


def test_mcnemar_from_labels_equals_table():
    rng = np.random.default_rng(5)
    y = rng.integers(0, 3, 300)
    pa = np.where(rng.random(300) < 0.8, y, (y + 1) % 3)
    pb = np.where(rng.random(300) < 0.7, y, (y + 2) % 3)
    tb = sig.mcnemar_table(y, pa, pb)
    assert np.array_equal(tb, mlx_mcnemar_table(y, pa, pb))
    res = sig.mcnemar(y, pa, pb, method="mid-p")
    assert res.pvalue == sig.mcnemar(table=tb, method="mid-p").pvalue
    assert (res.b, res.c, res.n) == (tb[0, 1], tb[1, 0], 300)


def test_mcnemar_midp_size_under_null():
    """Simulation: with equally accurate classifiers (b ~ Bin(b + c, 1/2)) the exact test
    rejects at most 5 %, mid-p closer to 5 % from below or at it."""
    rng = np.random.default_rng(6)
    runs = 3000
    m = 30
    b = rng.binomial(m, 0.5, runs)
    rej_exact = np.mean([sig.mcnemar(table=[[0, x], [m - x, 0]]).pvalue < 0.05 for x in b])
    rej_mid = np.mean(
        [sig.mcnemar(table=[[0, x], [m - x, 0]], method="mid-p").pvalue < 0.05 for x in b]
    )
    true_exact = 2 * stats.binom.cdf(9, m, 0.5)  # P(min(b, c) <= 9): p < 0.05 iff min <= 9
    lo, hi = _binom_99(runs, true_exact)
    assert lo <= rej_exact <= hi and rej_exact < 0.05
    assert rej_exact <= rej_mid < 0.08


def test_mcnemar_degenerate_and_bad_input():
    with pytest.warns(sig.DegenerateTestWarning, match="no discordant pair"):
        res = sig.mcnemar(table=[[40, 0], [0, 10]])
    assert (res.statistic, res.pvalue) == (0.0, 1.0) and res.note
    assert sm_mcnemar([[40, 0], [0, 10]], exact=True).pvalue == 1.0
    with pytest.warns(sig.DegenerateTestWarning):
        asy = sig.mcnemar(table=[[40, 0], [0, 10]], method="asymptotic")
    assert (asy.statistic, asy.pvalue) == (0.0, 1.0)
    with pytest.raises(GenexpyInputError, match="2 x 2"):
        sig.mcnemar(table=[[1, 2, 3]])
    with pytest.raises(GenexpyInputError, match="same length"):
        sig.mcnemar([0, 1], [0, 1], [0])
    with pytest.raises(GenexpyInputError, match="y_true"):
        sig.mcnemar([0, 1], [0, 1])
    with pytest.raises(GenexpyInputError, match="method"):
        sig.mcnemar(table=[[1, 2], [3, 4]], method="midp")


# =====================================================================================
# Bootstrap CI
# =====================================================================================


@pytest.mark.parametrize("method", ["BCa", "percentile", "basic"])
def test_bootstrap_ci_equals_scipy(method):
    rng = np.random.default_rng(8)
    x, y = rng.normal(0.8, 0.05, 25), rng.normal(0.78, 0.05, 25)
    res = sig.bootstrap_ci(x, y, method=method, n_resamples=999, seed=3)
    ref = stats.bootstrap((x - y,), np.mean, n_resamples=999, method=method,
                          rng=np.random.default_rng(3))
    assert res.confidence_interval == pytest.approx(tuple(ref.confidence_interval), rel=1e-12)
    assert res.standard_error == pytest.approx(ref.standard_error, rel=1e-12)
    est, (lo, hi) = res
    assert est == pytest.approx(np.mean(x - y)) and lo < est < hi
    again = sig.bootstrap_ci(x, y, method=method, n_resamples=999, seed=3)
    assert again.confidence_interval == res.confidence_interval
    assert "BootstrapResult" in repr(res)
    med = sig.bootstrap_ci(x - y, statistic="median", n_resamples=999, seed=3)
    assert med.statistic == pytest.approx(np.median(x - y))


def test_bootstrap_ci_coverage():
    """95 % BCa intervals of a mean difference cover the truth about 95 % of the time."""
    rng = np.random.default_rng(9)
    runs = 200
    hits = 0
    for r in range(runs):
        d = rng.normal(0.01, 0.03, 30)
        lo, hi = sig.bootstrap_ci(d, n_resamples=999, seed=r).confidence_interval
        hits += lo <= 0.01 <= hi
    lo99, hi99 = _binom_99(runs, 0.95)
    assert lo99 - 0.02 <= hits / runs <= hi99  # BCa is slightly liberal at n = 30


def test_bootstrap_ci_degenerate_and_bad_input():
    with pytest.warns(sig.DegenerateTestWarning, match="differences equal"):
        res = sig.bootstrap_ci([0.8, 0.8, 0.8], [0.7, 0.7, 0.7])
    assert res.confidence_interval == pytest.approx((0.1, 0.1)) and res.standard_error == 0
    with pytest.raises(GenexpyInputError, match="at least 2"):
        sig.bootstrap_ci([0.1])
    with pytest.raises(GenexpyInputError, match="NaN"):
        sig.bootstrap_ci([0.1, np.nan, 0.3])
    assert sig.bootstrap_ci([0.1, np.nan, 0.3, 0.2], nan_policy="omit", n_resamples=99).n == 3


# =====================================================================================
# Effect sizes
# =====================================================================================


def test_cohens_dz_equals_t_over_sqrt_n():
    rng = np.random.default_rng(10)
    x, y = rng.normal(0.8, 0.05, 20), rng.normal(0.78, 0.05, 20)
    res = sig.cohens_dz(x, y)
    ref = stats.ttest_rel(x, y)
    assert res.statistic == pytest.approx(ref.statistic / math.sqrt(20), rel=1e-12)
    assert res.statistic == pytest.approx(np.mean(x - y) / np.std(x - y, ddof=1), rel=1e-12)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
    es, p = res
    assert es == res.effect_size and res.magnitude in {"negligible", "small", "medium", "large"}


def test_rank_biserial_hand_example_and_wilcoxon_relation():
    # d = (2, 3, -2, 6): ranks of |d| 1.5, 3, 1.5, 4; T+ = 8.5, T- = 1.5; r = 7 / 10
    res = sig.rank_biserial([3.0, 5.0, 4.0, 8.0], [1.0, 2.0, 6.0, 2.0])
    assert res.statistic == pytest.approx(0.7)
    rng = np.random.default_rng(11)
    d = rng.normal(0.1, 1.0, 30)
    t_plus = stats.wilcoxon(d, alternative="greater").statistic  # T+
    r = sig.rank_biserial(d)
    assert r.statistic == pytest.approx(2 * t_plus / (30 * 31 / 2) - 1, rel=1e-12)
    assert r.pvalue == pytest.approx(stats.wilcoxon(d).pvalue, rel=1e-12)


def test_cliffs_delta_brute_force():
    rng = np.random.default_rng(12)
    x, y = rng.integers(0, 5, 17).astype(float), rng.integers(1, 6, 11).astype(float)
    brute = np.mean(np.sign(x[:, None] - y[None, :]))
    res = sig.cliffs_delta(x, y)
    assert res.statistic == pytest.approx(brute, rel=1e-12)
    assert res.pvalue == pytest.approx(stats.mannwhitneyu(x, y).pvalue, rel=1e-12)
    assert sig.cliffs_delta([1.0, 2.0], [3.0, 4.0]).statistic == -1.0
    assert sig.cliffs_delta([1.0, 2.0], [3.0, 4.0]).magnitude == "large"


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(3, 25))
def test_effect_sizes_are_antisymmetric_and_bounded(seed, n):
    rng = np.random.default_rng(seed)
    x, y = rng.normal(size=n), rng.normal(size=n)
    for f in (sig.rank_biserial, sig.cliffs_delta, sig.cohens_dz):
        a, b = f(x, y).statistic, f(y, x).statistic
        assert a == pytest.approx(-b, abs=1e-12)
    for f in (sig.rank_biserial, sig.cliffs_delta):
        assert -1.0 <= f(x, y).statistic <= 1.0


def test_effect_sizes_degenerate():
    with pytest.warns(sig.DegenerateTestWarning, match="zero"):
        z = sig.cohens_dz([0.5, 0.6], [0.5, 0.6])
    assert (z.statistic, z.pvalue) == (0.0, 1.0)
    with pytest.warns(sig.DegenerateTestWarning, match="equal"):
        c = sig.cohens_dz([0.6, 0.7], [0.5, 0.6])
    assert c.statistic == math.inf and c.pvalue == 0.0
    with pytest.warns(sig.DegenerateTestWarning, match="zero"):
        r = sig.rank_biserial([1.0, 2.0], [1.0, 2.0])
    assert (r.statistic, r.pvalue) == (0.0, 1.0)
    # no variation at all is not degenerate for Cliff's delta: delta = 0, U-test p = 1
    d = sig.cliffs_delta([1.0, 1.0], [1.0, 1.0])
    assert (d.statistic, d.pvalue) == (0.0, 1.0) and d.note is None


# =====================================================================================
# Every result: unpackable and readable
# =====================================================================================


def test_every_result_unpacks_and_prints():
    x = np.array([0.81, 0.83, 0.80, 0.86, 0.84])
    y = np.array([0.80, 0.80, 0.79, 0.82, 0.85])
    results = [
        sig.corrected_ttest(x, y, n_train=90, n_test=10),
        sig.paired_ttest_5x2cv(D),
        sig.combined_ftest_5x2cv(D),
        sig.mcnemar(table=[[50, 9], [2, 39]]),
        sig.cohens_dz(x, y),
        sig.rank_biserial(x, y),
        sig.cliffs_delta(x, y),
        sig.wilcoxon(x, y),
    ]
    for res in results:
        stat, p = res
        assert (stat, p) == (res.statistic, res.pvalue) and 0.0 <= p <= 1.0
        text = repr(res)
        assert text.startswith(type(res).__name__ + "(") and "pvalue=" in text
        assert len(text) < 200  # one readable line, numbers rounded
