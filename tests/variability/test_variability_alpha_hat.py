"""alpha-hat (SPEC B3), candidate reports and ensemble studies (SPEC B4)."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from naive import naive_alpha_hat_bootstrap, naive_dkw_threshold, naive_trimmed_ks
from numpy.testing import assert_allclose, assert_array_equal

from genexpy_nb import config
from genexpy_nb.variability import (
    accuracy,
    alpha_hat,
    alpha_hat_bootstrap,
    candidate_report,
    churn,
    draw_bootstrap,
    ece,
    ensemble_gaps,
    ensemble_study,
    ensemble_summary,
    ks_to_reference,
    pairwise_churn,
    trimming_curve,
)
from genexpy_nb.variability._alpha_hat_core import _alpha_hat_raw

# every test here runs on both routes: NumPy (small inputs) and the numba kernel
pytestmark = pytest.mark.usefixtures("trimmed_ks_route")


def _pool(seed: int, M: int = 4, C: int = 3, T: int = 30):
    rng = np.random.default_rng(seed)
    ref = rng.normal(0, 2, size=(M, T))
    cands = np.vstack(
        [
            rng.normal(0, 2, size=T),
            rng.normal(2.5, 2, size=T),
            rng.integers(-2, 3, size=T).astype(float),  # ties
        ][:C]
    )
    return ref, cands


def test_kernel_matches_naive_twin_on_shared_draws():
    ref, cands = _pool(0, T=31)
    B, seed = 5, 11
    raw = _alpha_hat_raw(
        ref, cands, B=B, grid=None, exact=True, eps=0.05, seed=seed, n_jobs=None,
        progress=False, full=True,
    )
    idx, ref_model, ref_pos = draw_bootstrap(seed, B, ref.shape[0], ref.shape[1])
    a_naive, d_naive = naive_alpha_hat_bootstrap(
        ref, cands, idx, ref_model, ref_pos, config.ALPHA_GRID, 0.05
    )
    assert_allclose(raw.d_grid, d_naive, rtol=0, atol=1e-12)
    assert_array_equal(raw.a_grid, a_naive)
    assert_allclose(raw.d0, d_naive[:, :, 0], atol=1e-12)
    assert raw.tau == pytest.approx(naive_dkw_threshold(15, 0.05))
    # the exact level: passes at a, fails just below (bisection to ALPHA_HAT_XTOL)
    h = ref.shape[1] // 2
    for b in range(B):
        I1, I2 = idx[b, :h], idx[b, h:]
        r = [ref[ref_model[b, q], I2[ref_pos[b, q]]] for q in range(h)]
        for c in range(cands.shape[0]):
            x = cands[c, I1]
            a = raw.a_exact[b, c]
            assert 0.0 <= a <= raw.a_grid[b, c] + 1e-15
            if a < config.ALPHA_HAT_MAX:
                assert naive_trimmed_ks(r, x, a) <= raw.tau
            if a > 0:
                assert naive_trimmed_ks(r, x, max(a - config.ALPHA_HAT_XTOL, 0.0)) > raw.tau
    # stopping at the first passing level gives the same levels and distances up to it
    early = _alpha_hat_raw(
        ref, cands, B=B, grid=None, exact=True, eps=0.05, seed=seed, n_jobs=None,
        progress=False, full=False,
    )
    assert_array_equal(early.a_grid, raw.a_grid)
    assert_array_equal(early.a_exact, raw.a_exact)
    done = ~np.isnan(early.d_grid)
    assert_array_equal(early.d_grid[done], raw.d_grid[done])
    assert done[:, :, 0].all() and 0 < done.sum() < done.size
    # the public frames are means of these per-bootstrap values
    long = alpha_hat_bootstrap(ref, cands, B=B, eps=0.05, seed=seed, progress=False)
    assert_array_equal(
        long.sort("bootstrap", "candidate")["alpha_hat"].to_numpy().reshape(B, -1), a_naive
    )
    summary = alpha_hat(ref, cands, B=B, eps=0.05, seed=seed, progress=False)
    assert_allclose(summary["alpha_hat"].to_numpy(), a_naive.mean(axis=0), atol=1e-15)
    assert_allclose(summary["alpha_hat_exact"].to_numpy(), raw.a_exact.mean(axis=0))


def test_same_seed_same_result_at_any_thread_count():
    ref, cands = _pool(1, M=5, C=3, T=200)
    kw = dict(B=12, seed=7, progress=False)
    one = alpha_hat(ref, cands, n_jobs=1, **kw)
    two = alpha_hat(ref, cands, n_jobs=2, **kw)
    assert one.equals(two)
    assert alpha_hat(ref, cands, **kw).equals(one)
    # a candidate's result does not depend on the other candidates
    alone = alpha_hat(ref, cands[1], **kw)
    assert alone["alpha_hat"][0] == one["alpha_hat"][1]
    assert not alpha_hat(ref, cands, B=12, seed=8, progress=False).equals(one)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), shift=st.floats(-4, 4), T=st.integers(16, 60))
def test_alpha_hat_in_range_and_exact_below_grid(seed, shift, T):
    rng = np.random.default_rng(seed)
    ref = rng.normal(size=(3, T))
    cands = rng.normal(shift, 1, size=(2, T))
    f = alpha_hat(ref, cands, B=4, seed=seed, progress=False)
    a, ax = f["alpha_hat"].to_numpy(), f["alpha_hat_exact"].to_numpy()
    assert np.all((a >= 0) & (a <= config.ALPHA_HAT_MAX))
    assert np.all((ax >= 0) & (ax <= config.ALPHA_HAT_MAX))
    assert np.all(ax <= a + config.ALPHA_HAT_XTOL)


def test_a_candidate_from_the_reference_beats_a_shifted_one():
    rng = np.random.default_rng(2024)
    T = 600
    ref = rng.normal(0, 3, size=(8, T))
    same = rng.normal(0, 3, size=(5, T))
    shifted = rng.normal(1.5, 3, size=(5, T))
    f = alpha_hat(ref, np.vstack([same, shifted]), B=25, seed=3, progress=False)
    a = f["alpha_hat"].to_numpy()
    ax = f["alpha_hat_exact"].to_numpy()
    assert a[:5].max() < a[5:].min()
    assert ax[:5].max() < ax[5:].min()
    assert a[:5].mean() < 0.02 and a[5:].mean() > 0.1


def test_grid_option_and_exact_off():
    ref, cands = _pool(3, T=100)
    f = alpha_hat(ref, cands, B=6, exact=False, grid=[0.0, 0.2, 0.4], progress=False)
    assert f["alpha_hat_exact"].null_count() == f.height
    assert set(np.unique(f["alpha_hat"].to_numpy() * 6).round(6)) <= {
        round(6 * v, 6) for v in np.linspace(0, 0.5, 301)
    }
    long = alpha_hat_bootstrap(ref, cands, B=6, grid=[0.0, 0.2, 0.4], progress=False)
    assert set(long["alpha_hat"].unique().to_list()) <= {0.0, 0.2, 0.4, 0.5}


def test_clipping_is_applied():
    ref, cands = _pool(4, T=80)
    big = cands * 100.0
    f1 = alpha_hat(ref, big, B=5, clip=2.0, progress=False)
    f2 = alpha_hat(np.clip(ref, -2, 2), np.clip(big, -2, 2), B=5, clip=None, progress=False)
    assert f1.equals(f2)


def test_trimming_curve():
    ref, cands = _pool(5, T=120)
    curve = trimming_curve(ref, cands, B=8, seed=2, progress=False)
    assert curve.height == cands.shape[0] * len(config.ALPHA_GRID)
    for _, g in curve.group_by("candidate"):
        g = g.sort("alpha")
        assert np.all(np.diff(g["d_mean"].to_numpy()) <= 1e-12)
        assert (g["d_lo"] <= g["d_mean"]).all() and (g["d_mean"] <= g["d_hi"]).all()
    # the same bootstrap as alpha_hat: the mean d_0 agrees
    f = alpha_hat(ref, cands, B=8, seed=2, progress=False)
    d0 = curve.filter(pl.col("alpha") == 0.0).sort("candidate")["d_mean"].to_numpy()
    assert_allclose(d0, f["d0_boot"].to_numpy())


def test_candidate_report_columns_and_metrics():
    rng = np.random.default_rng(6)
    T = 90
    ref = rng.normal(0.3, 2, size=(5, T))
    cands = rng.normal(0.3, 2, size=(4, T))
    labels = (rng.random(T) < 0.55).astype(int)
    rep = candidate_report(ref, cands, labels, B=6, progress=False)
    assert rep.columns[:8] == [
        "candidate", "alpha_hat", "alpha_hat_sd", "alpha_hat_exact", "alpha_hat_exact_sd",
        "d0_boot", "tau", "B",
    ]
    assert_allclose(rep["accuracy"].to_numpy(), accuracy(cands, labels))
    ens = ensemble_gaps(cands)
    assert_allclose(rep["churn_ensemble"].to_numpy(), churn(cands, ens))
    assert_allclose(rep["churn_ensemble_frac"].to_numpy(), churn(cands, ens) / T)
    pw = pairwise_churn(cands)
    assert_allclose(rep["pairwise_churn_mean"].to_numpy(), pw.sum(axis=1) / 3)
    assert_allclose(rep["ece"].to_numpy(), ece(cands, labels))
    assert_allclose(rep["ks"].to_numpy(), ks_to_reference(ref, cands))
    assert rep.select(pl.exclude("candidate", "B")).null_count().sum_horizontal()[0] == 0
    ref_ens = candidate_report(ref, cands, labels, B=2, ensemble="reference", progress=False)
    assert_allclose(ref_ens["churn_ensemble"].to_numpy(), churn(cands, ref.mean(axis=0)))
    one = candidate_report(ref, cands[0], labels, B=2, progress=False)
    assert one["pairwise_churn_mean"].null_count() == 1


def test_ensemble_study_and_summary():
    rng = np.random.default_rng(7)
    T = 300
    truth = rng.normal(0, 2, size=T)  # the "function" every seed approximates
    labels = (truth + rng.normal(0, 1, size=T) > 0).astype(int)
    ref = truth + rng.normal(0, 2, size=(20, T))
    cands = truth + rng.normal(0, 2, size=(12, T))
    study = ensemble_study(
        ref, cands, labels, sizes=(1, 3, 12, 50), draws=6, B=10, seed=1, progress=False
    )
    assert study["k"].unique().sort().to_list() == [1, 3, 12]  # 50 capped at C = 12
    assert study.height == 3 * 6
    assert {"k", "draw", "alpha_hat", "alpha_hat_exact", "ks", "accuracy", "churn_ensemble",
            "ece"} <= set(study.columns)
    # k = C: every draw is the ensemble of all candidates
    full = study.filter(pl.col("k") == 12)
    assert full["ks"].n_unique() == 1 and full["churn_ensemble"].to_list() == [0.0] * 6
    assert full["ks"][0] == pytest.approx(ks_to_reference(ref, ensemble_gaps(cands))[0])
    # k = 1: ensembles are single candidates, as alpha_hat sees them
    single = alpha_hat(ref, cands, B=10, seed=1, progress=False)
    k1 = study.filter(pl.col("k") == 1)
    assert set(k1["alpha_hat"].to_list()) <= set(single["alpha_hat"].to_list())
    # seeded: same seed, same draws; sizes do not disturb each other
    again = ensemble_study(ref, cands, labels, sizes=(3,), draws=6, B=10, seed=1,
                           progress=False)
    assert again.equals(study.filter(pl.col("k") == 3))
    summ = ensemble_summary(study, level=0.05)
    assert summ["k"].to_list() == [1, 3, 12]
    assert summ["n"].to_list() == [6, 6, 6]
    for k in (1, 3, 12):
        share = (study.filter(pl.col("k") == k)["alpha_hat"] <= 0.05).mean()
        assert summ.filter(pl.col("k") == k)["share_below"][0] == pytest.approx(share)
    assert {"accuracy_mean", "accuracy_sd", "ece_mean", "ks_mean"} <= set(summ.columns)


def test_ensemble_study_without_labels():
    ref, cands = _pool(8, M=4, C=3, T=40)
    study = ensemble_study(ref, cands, sizes=(2,), draws=3, B=3, progress=False)
    assert "accuracy" not in study.columns and study.height == 3
    summ = ensemble_summary(study.to_pandas(), level=0.5, column="alpha_hat_exact")
    assert summ["share_below"][0] == 1.0


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**31), T=st.integers(16, 60), C=st.integers(1, 4),
       rounded=st.booleans(), full=st.booleans(), with_zero=st.booleans())
def test_numpy_route_equals_the_kernel(seed, T, C, rounded, full, with_zero):
    """Small inputs go through NumPy, large ones through the kernel: the same bits (levels,
    exact levels, distances), ties and clipped values included."""

    rng = np.random.default_rng(seed)
    ref = rng.normal(0, 3, size=(3, T))
    cand = rng.normal(0.3, 3, size=(C, T))
    if rounded:  # many ties, and atoms at the clipping bounds
        ref, cand = np.round(ref), np.clip(np.round(cand), -2, 2)
    grid = [0.0, 0.02, 0.1, 0.3] if with_zero else [0.02, 0.1, 0.3]
    out = {}
    for route, work in (("numpy", 1e18), ("kernel", 0)):
        with config.force_route(ks_numpy_max_work=work):
            out[route] = _alpha_hat_raw(ref, cand, B=7, grid=grid, exact=True, eps=0.01,
                                        seed=seed, n_jobs=1, progress=False, full=full)
    a, b = out["numpy"], out["kernel"]
    for f in ("a_grid", "a_exact", "d0", "d_grid"):
        assert_array_equal(getattr(a, f), getattr(b, f))
