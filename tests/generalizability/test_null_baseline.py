"""The no-signal baseline of n*: nstar_null, its band and beyond_chance (SPEC A13)."""

import math

import numpy as np
import polars as pl
import pytest

import genexpy_nb as gx
from genexpy_nb import GenexpyInputError
from genexpy_nb.generalizability import NULL_COLUMNS, NULL_KEY, exchange_scores
from genexpy_nb.generalizability.baseline import count_differences, null_sizes
from genexpy_nb.generalizability.fit import nstar_values
from genexpy_nb.generalizability.mmd import draw_pairs, kernel_support, mmd_from_pairs


def scores_study(scores, design=None):
    """A study from a (N, na) score matrix (or a dict design level -> matrix)."""
    mats = {"x": scores} if design is None else design
    rows = []
    for lvl, sc in mats.items():
        N, na = sc.shape
        rows.append(pl.DataFrame({
            "cfg": [lvl] * (N * na),
            "cond": np.repeat(np.arange(N), na).astype(str),
            "alt": np.tile([f"a{i}" for i in range(na)], N),
            "score": np.asarray(sc, dtype=float).ravel()}))
    return gx.Study(pl.concat(rows), alternatives="alt", target="score", generalize="cond",
                    design="cfg", higher_is_better=True)


def noise(N, na, seed, shift=0.0):
    rng = np.random.default_rng(seed)
    sc = rng.normal(size=(N, na)) + 2.0 * rng.normal(size=(N, 1))
    sc[:, 0] += shift
    return sc


KERNELS = [gx.Jaccard(k=1), gx.Mallows(), gx.Borda(), gx.RBF()]


# ---- columns and options ---------------------------------------------------------------
def test_columns_present_and_optional():
    st = scores_study(noise(24, 4, 0))
    res = gx.analyze(st, KERNELS, alphas=0.95, deltas=[0.05, 0.1], rep=40, progress=False)
    assert set(NULL_COLUMNS) <= set(res.columns)
    assert res.schema["beyond_chance"] == pl.Boolean
    rs = res.filter(pl.col("method") == "resample")
    assert rs["nstar_null"].is_finite().all()
    # the band holds the baseline, and beyond_chance is n* below its lower end
    assert (rs["nstar_null_lo"] <= rs["nstar_null"]).all()
    assert (rs["nstar_null"] <= rs["nstar_null_hi"]).all()
    assert (rs["beyond_chance"] == (rs["nstar"] < rs["nstar_null_lo"])).all()
    # the closed forms and the bound carry no baseline
    other = res.filter(pl.col("method") != "resample")
    assert other["nstar_null"].is_nan().all() and other["beyond_chance"].is_null().all()
    off = gx.analyze(st, KERNELS, alphas=0.95, deltas=[0.05, 0.1], rep=40, progress=False,
                     null=False)
    assert not set(NULL_COLUMNS) & set(off.columns)
    # the baseline leaves every other number as it was, bit for bit
    assert off.equals(res.drop(*NULL_COLUMNS))
    ga = gx.GeneralizabilityAnalysis(st, KERNELS, rep=40, progress=False, null=False)
    with pytest.raises(GenexpyInputError, match="null=False"):
        ga.nstar(null=True)
    with pytest.raises(GenexpyInputError, match="null must be True or False"):
        gx.GeneralizabilityAnalysis(st, KERNELS, null="yes")
    with pytest.raises(GenexpyInputError, match="null_level"):
        gx.analyze(st, KERNELS, rep=20, progress=False, null_level=1.0)


def test_seeded_deterministic_and_subset_stable():
    st = scores_study(None, {"p": noise(20, 4, 1), "q": noise(26, 4, 2, shift=1.5)})
    a = gx.analyze(st, KERNELS, alphas=0.9, deltas=0.1, rep=30, seed=5, progress=False)
    b = gx.analyze(st, KERNELS, alphas=0.9, deltas=0.1, rep=30, seed=5, progress=False,
                   n_jobs=1)
    assert a.equals(b)
    # each configuration its own stream: analysing one alone gives its numbers
    one = gx.GeneralizabilityAnalysis(st, KERNELS, rep=30, seed=5, progress=False,
                                      configurations=[("q",)]).nstar(0.9, 0.1)
    assert one.equals(a.filter(pl.col("cfg") == "q"))
    c = gx.analyze(st, KERNELS, alphas=0.9, deltas=0.1, rep=30, seed=6, progress=False)
    assert not np.allclose(a["nstar_null"].to_numpy(), c["nstar_null"].to_numpy(),
                           equal_nan=True)


def test_exchange_is_a_permutation_of_each_condition():
    st = scores_study(np.round(noise(15, 5, 3), 1))
    s = st.sample(0)
    e = exchange_scores(s, seed=4)
    assert e.rankings.shape == s.rankings.shape
    for i in range(s.N):
        # one permutation per condition, applied to rankings, scores and imputed flags alike
        perm = [list(s.scores[i]).index(v) for v in e.scores[i]] if len(
            set(s.scores[i])) == s.na else None
        assert sorted(e.scores[i]) == sorted(s.scores[i])
        assert sorted(e.rankings[i]) == sorted(s.rankings[i])
        if perm is not None:
            assert e.rankings[i].tolist() == s.rankings[i][perm].tolist()
    # its own stream: the same seed gives the same exchange, another seed another
    assert np.array_equal(exchange_scores(s, 4).scores, e.scores)
    assert not np.array_equal(exchange_scores(s, 5).scores, e.scores)
    assert NULL_KEY == 0x6E756C6C


def test_borda_chooses_its_alternative_again_on_exchanged_scores():
    sc = noise(30, 5, 8, shift=3.0)  # a0 the best everywhere
    st = scores_study(sc)
    ga = gx.GeneralizabilityAnalysis(st, [gx.Borda(), gx.Borda("a3")], rep=20, progress=False)
    assert ga.kernels[0].alternative == "a0"
    # the baseline's a*: the best on average over the exchanged scores of the study
    ex = exchange_scores(st.sample(0), ga.seed).rankings
    best = st.alternatives[int(np.argmin(ex.mean(axis=0)))]
    assert ga.null_kernels[0].alternative == best
    assert ga.null_kernels[1].alternative == "a3"  # a named a* stays


def test_rbf_baseline_in_the_configuration_s_own_unit():
    sc = noise(20, 4, 9, shift=2.0)
    st = scores_study(sc)
    ga = gx.GeneralizabilityAnalysis(st, [gx.RBF()], rep=20, progress=False)
    s = st.sample(0)
    k = ga.kernels[0]
    e = exchange_scores(s, ga.seed)
    # the exchanged scores, scaled by the spread of the study (not their own)
    expect = k.gram((e.scores - s.scores.mean()) / k.spread(s.scores))
    np.testing.assert_allclose(ga.dists[0].null_supports[0][0], expect, rtol=1e-12)


def test_dense_baseline_mmd_equals_the_support_form():
    rng = np.random.default_rng(0)
    X = np.argsort(rng.random((30, 5)), axis=1)
    k = gx.Mallows().resolve(5)
    K, inv, _ = kernel_support(k, X)
    IX, IY = draw_pairs(30, 7, 50, seed=1)
    C = count_differences(IX, IY, 30)
    assert (C.sum(axis=1) == 0).all() and (np.abs(C).sum(axis=1) == 14).all()
    Kc = K[inv][:, inv]
    dense = np.sqrt(np.maximum(np.einsum("ri,ri->r", C @ Kc, C) / 49.0, 0.0))
    np.testing.assert_allclose(dense, mmd_from_pairs(K, inv, IX, IY), rtol=1e-12,
                               atol=1e-12)


def test_null_grid_thinning():
    assert null_sizes(4).tolist() == [0, 1, 2, 3]
    assert null_sizes(8).tolist() == [1, 3, 5, 7]
    assert null_sizes(9).tolist() == [0, 2, 4, 6, 8]  # the largest size always kept


def test_vectorised_values_equal_the_fits():
    st = scores_study(np.round(noise(40, 5, 11), 1))
    ga = gx.GeneralizabilityAnalysis(st, KERNELS, rep=40, progress=False)
    cd = ga.dists[0]
    a = np.array([0.7, 0.95, 0.99])
    for q, k in enumerate(ga.kernels):
        eps = np.asarray(k.eps(np.array([0.01, 0.05, 0.3])))
        for fit in ("joint", "separate"):
            fits, *_ = ga._quantile_fits(cd.null_ns, cd.null_mmd[q], a, eps, fit, ga.min_N3)
            ref = np.array([[f.nstar for f in r] for r in fits])
            got = nstar_values(cd.null_ns, cd.null_mmd[q], a, eps, fit)[0]
            np.testing.assert_allclose(got, ref, rtol=1e-12, equal_nan=True)


def test_one_condition_and_degenerate_baselines():
    st = scores_study(noise(1, 3, 0))
    r = gx.analyze(st, [gx.Jaccard(1)], alphas=0.95, deltas=0.05, progress=False)
    assert r["nstar_null"].is_nan().all() and r["beyond_chance"].is_null().all()
    # every alternative tied in every condition: exchanging changes nothing, n* = 1 both
    st = scores_study(np.ones((20, 4)))
    r = gx.analyze(st, [gx.Mallows()], alphas=0.95, deltas=0.05, estimators=["resample"],
                   progress=False)
    row = r.row(0, named=True)
    assert row["nstar"] == row["nstar_null"] == row["nstar_null_lo"] == 1.0
    assert row["beyond_chance"] is False


def test_preliminary_study_simulation_has_the_baseline_per_size():
    st = scores_study(noise(40, 4, 12, shift=1.0))
    sim = gx.simulate_preliminary_study(st, [gx.Jaccard(1)], 0, N0=20, rep=30,
                                        progress=False)
    assert sim["N_sub"].to_list() == [20, 40]
    assert set(NULL_COLUMNS) <= set(sim.columns)
    assert sim["nstar_null"].is_finite().all()
    off = gx.simulate_preliminary_study(st, [gx.Jaccard(1)], 0, N0=20, rep=30,
                                        progress=False, null=False)
    assert not set(NULL_COLUMNS) & set(off.columns)
    assert off.equals(sim.drop(*NULL_COLUMNS))


# ---- validation by simulation (small; the full figures: scripts/null_baseline.py) -------
def _headline(N, na, seed, shift, kernels):
    st = scores_study(noise(N, na, seed, shift))
    return gx.analyze(st, kernels, alphas=0.95, deltas=0.05, estimators=["resample"],
                      seed=seed, progress=False, interval=False)


def test_dominant_alternative_lies_far_below_its_baseline():
    """An alternative that wins about 9 conditions in 10: "same best?" and "a* ranked the
    same?" need a fraction of what exchanged scores need (simulated: 0.30 and 0.23)."""
    res = pl.concat([_headline(40, 6, 100 + seed, 2.64, [gx.Jaccard(k=1), gx.Borda()])
                     for seed in range(6)])
    assert res["beyond_chance"].all()
    ratio = res.group_by("kernel").agg((pl.col("nstar") / pl.col("nstar_null")).median())
    assert (ratio["nstar"] < 0.5).all(), ratio


def test_pure_noise_lies_within_its_baseline():
    """No alternative better: n* inside the band (simulated: 94-100 % of 100 studies in
    every setting at the default level 0.99)."""
    inside = []
    for seed in range(12):
        res = _headline(30, 5, 200 + seed, 0.0, [gx.Jaccard(k=1), gx.Mallows()])
        inside += ((res["nstar_null_lo"] <= res["nstar"])
                   & (res["nstar"] <= res["nstar_null_hi"])).to_list()
    assert sum(inside) >= 0.85 * len(inside), sum(inside)


def test_shipped_simulation_meets_the_criteria():
    """The shipped figures (scripts/null_baseline.py, 100 studies per setting)."""
    from genexpy_nb.io.public import shipped_path

    t = pl.read_parquet(shipped_path("null_baseline.parquet"))
    at = t.filter(pl.col("level") == 0.99)
    noisy = at.filter(pl.col("scenario").str.starts_with("noise"))
    assert noisy["studies"].min() == 100 and noisy["inside"].min() >= 0.9
    dom = at.filter(pl.col("scenario") == "dominant", pl.col("kernel").is_in(["jaccard",
                                                                              "borda"]))
    assert dom["median_ratio"].max() < 0.5 and dom["below"].min() == 1.0
    assert math.isclose(dom["win_share"].mean(), 0.89, abs_tol=0.02)
