import math

import naive
import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from genexpy_nb import GenexpyInputError
from genexpy_nb.generalizability import (
    GeneralizabilityAnalysis,
    analyze,
    approx_nstar,
    approx_quantile,
    approx_terms,
    bound_nstar,
    default_grid,
    fit_nstar,
    lin_z,
    mmd_quantile,
    ngen,
)
from genexpy_nb.generalizability.kernels import RBF, Borda, Jaccard, Mallows
from genexpy_nb.study import Study


def synthetic_study(N=40, na=5, configs=("easy", "hard"), seed=0):
    """'easy': one alternative almost always best; 'hard': random rankings."""
    rng = np.random.default_rng(seed)
    rows = []
    for cfg in configs:
        for c in range(N):
            base = np.arange(na, dtype=float)[::-1] if cfg == "easy" else rng.random(na)
            noise = rng.normal(0, 0.7 if cfg == "easy" else 1.0, na)
            for a in range(na):
                rows.append({"cfg": cfg, "cond": c, "alt": f"a{a}", "score": base[a] + noise[a]})
    return Study(pl.DataFrame(rows), alternatives="alt", target="score", generalize="cond",
                 design="cfg", higher_is_better=True)


def test_default_grid():
    assert default_grid(10).tolist() == [2, 4]
    assert default_grid(9).tolist() == [2]
    assert default_grid(30).tolist() == [2, 4, 6, 8, 10, 12, 14]


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(0, 2), min_size=1, max_size=30), st.floats(0, 2), st.floats(0, 2))
def test_ngen_nondecreasing_in_eps(x, e1, e2):
    lo, hi = sorted((e1, e2))
    assert ngen(np.array(x), lo) <= ngen(np.array(x), hi)
    assert 0.0 <= ngen(np.array(x), lo) <= 1.0


def test_ngen_and_quantile_conventions():
    x = np.array([0.1, 0.2, 0.3, 0.4])
    assert ngen(x, 0.25) == 0.5
    np.testing.assert_allclose(ngen(x, [0.0, 0.4]), [0.0, 1.0])
    # method="higher": never interpolates
    assert mmd_quantile(x, 0.5) == 0.3
    assert mmd_quantile(x, 0.95) == 0.4


def test_fit_nstar_recovers_power_law():
    ns = np.array([2, 4, 6, 8, 10.0])
    qs = 0.9 * ns**-0.5  # log n = -2 log q + 2 log 0.9
    f = fit_nstar(ns, qs, [0.1, 0.2])
    assert f[0].b1 == pytest.approx(-2.0)
    assert f[0].r2 == pytest.approx(1.0)
    assert f[0].nstar == pytest.approx((0.9 / 0.1) ** 2)
    assert f[1].nstar == pytest.approx((0.9 / 0.2) ** 2)
    assert f[0].nstar_ceil == 81


def test_fit_nstar_degenerate_cases():
    f = fit_nstar(np.array([2, 4]), np.array([0.0, 0.0]), 0.3)[0]
    assert f.nstar == 1.0 and "agree" in f.reason
    f = fit_nstar(np.array([2]), np.array([0.3]), 0.3, min_N=10)[0]
    assert math.isnan(f.nstar) and "needs at least N = 10 results" in f.reason
    f = fit_nstar(np.array([2, 4]), np.array([0.3, 0.3]), 0.3)[0]
    assert math.isnan(f.nstar) and "do not change" in f.reason


def test_lin_z_and_bound():
    from scipy.stats import norm
    for a in (0.7, 0.9, 0.95, 0.99):
        assert lin_z(a) == pytest.approx(norm.ppf(a), abs=0.02)  # Lin (1989) accuracy
    with pytest.warns(UserWarning, match="valid for alpha >= 0.6"):
        lin_z(0.55)
    # Proposition C.4 at alpha=0.95, eps=sqrt(2*0.05) (Jaccard, delta=0.05)
    e = math.sqrt(0.1)
    expect = (math.sqrt(-4 * math.log(0.05)) + math.sqrt(2)) ** 2 / e**2
    assert bound_nstar(0.95, e) == pytest.approx(expect)


@pytest.mark.parametrize("centring", ["uniform", "weighted"])
@pytest.mark.parametrize("kernel", [Jaccard(1), Mallows(), Borda(1)])
def test_approx_terms_match_naive_eigenvalues(centring, kernel):
    rng = np.random.default_rng(5)
    R = np.array([np.unique(r, return_inverse=True)[1] for r in rng.integers(0, 3, (25, 4))])
    k = kernel.resolve(4)
    fun = {"jaccard": lambda r, s: naive.jaccard(r, s, 1),
           "mallows": lambda r, s: naive.mallows(r, s, k.nu),
           "borda": lambda r, s: naive.borda(r, s, 1, k.nu)}[k.name]
    lam = naive.approx_eigenvalues(R, fun, centring)
    t = approx_terms(R, k, centring)
    assert t.L1 == pytest.approx(lam.sum(), abs=1e-10)
    L2 = 3 * (lam**2).sum() + sum(lam[i] * lam[j] for i in range(len(lam))
                                  for j in range(len(lam)) if i != j)
    assert t.L2 == pytest.approx(L2, abs=1e-10)
    a, d = (L2 - t.L1**2) / t.L1, 2 * t.L1**2 / (L2 - t.L1**2)
    assert (t.a, t.d) == pytest.approx((a, d))
    alpha, eps = 0.95, 0.3
    C = math.sqrt(2 / (9 * d)) * lin_z(alpha) + 1 - 2 / (9 * d)
    n_star, _ = approx_nstar(t, alpha, eps)
    assert n_star == pytest.approx(math.exp(-2 * math.log(eps) + 3 * math.log(C)
                                            + math.log(a * d)))
    # the approximate quantile at n* equals eps
    assert approx_quantile(t, alpha, n_star) == pytest.approx(eps)


def test_approx_degenerate():
    R = np.zeros((10, 4), dtype=np.int64)
    t = approx_terms(R, Mallows().resolve(4))
    assert t.degenerate
    v, why = approx_nstar(t, 0.95, 0.1)
    assert v == 1.0 and "identical" in why


def test_analysis_frame_schema_and_semantics():
    st = synthetic_study()
    res = analyze(st, [Jaccard(1), Mallows(), Borda("a0"), RBF()], alphas=[0.9, 0.95],
                  deltas=[0.05, 0.2], rep=60, seed=1, progress=False)
    assert res.height == 2 * 4 * 2 * 2 * 4
    for c in ("config_id", "cfg", "kernel", "alpha", "delta", "eps", "N", "method", "nstar",
              "nstar_ceil", "generalizable", "deficit", "b0", "b1", "r2", "reason"):
        assert c in res.columns
    rs = res.filter(pl.col("method") == "resample", pl.col("kernel") == "mallows")
    # n* increases with alpha and decreases with delta
    piv = {(r["cfg"], r["alpha"], r["delta"]): r["nstar"] for r in rs.iter_rows(named=True)}
    for cfg in ("easy", "hard"):
        assert piv[(cfg, 0.95, 0.05)] >= piv[(cfg, 0.9, 0.05)]
        assert piv[(cfg, 0.95, 0.05)] > piv[(cfg, 0.95, 0.2)]
    # slope of the power law close to the theory's -2
    assert rs.filter(pl.col("cfg") == "hard")["b1"].is_between(-2.6, -1.5).all()
    # a consistent study needs fewer experiments than a random one
    assert piv[("easy", 0.95, 0.05)] < piv[("hard", 0.95, 0.05)]
    ok = res.filter(pl.col("nstar").is_finite())
    assert (ok["generalizable"] == (ok["N"] >= ok["nstar_ceil"])).all()
    assert (ok["deficit"] == ok["nstar_ceil"] - ok["N"]).all()


def test_analysis_deterministic_and_subset_stable():
    st = synthetic_study()
    ks = [Jaccard(1), Mallows()]
    a = analyze(st, ks, rep=40, seed=3, progress=False)
    b = analyze(st, ks, rep=40, seed=3, progress=False, n_jobs=1)
    assert a.equals(b)
    c = GeneralizabilityAnalysis(st, ks, rep=40, seed=3, progress=False,
                                 configurations=[("hard",)]).nstar()
    assert c.equals(a.filter(pl.col("cfg") == "hard"))
    d = analyze(st, ks, rep=40, seed=4, progress=False)
    assert not a.equals(d)


def test_resampled_and_approx_agree_roughly():
    st = synthetic_study(N=80)
    ga = GeneralizabilityAnalysis(st, [Mallows()], rep=200, seed=0, progress=False)
    res = ga.nstar(0.95, 0.05, estimators=["resample", "approx"])
    for cfg in ("easy", "hard"):
        r = {m: v for m, v in res.filter(pl.col("cfg") == cfg)
             .select("method", "nstar").iter_rows()}
        assert 0.5 < r["approx"] / r["resample"] < 2.0
    cmp = ga.centring_comparison()
    assert set(cmp["closer"]) <= {"uniform", "weighted"} and cmp.height == 2


def test_n_star_one_when_all_results_agree():
    rows = [{"c": c, "alt": a, "s": float(a == "x")} for c in range(20) for a in "xyz"]
    st = Study(pl.DataFrame(rows), alternatives="alt", target="s", generalize="c",
               higher_is_better=True)
    res = analyze(st, [Jaccard(1)], alphas=0.95, deltas=0.05, rep=50, progress=False,
                  estimators=["resample", "approx"])
    assert res["nstar"].to_list() == [1.0, 1.0]
    assert res["generalizable"].all()


def test_too_few_results_for_grid_is_reported_not_raised():
    rows = [{"c": c, "alt": a, "s": float((c * 3 + ord(a)) % 4)} for c in range(7)
            for a in "xyz"]
    st = Study(pl.DataFrame(rows), alternatives="alt", target="s", generalize="c",
               higher_is_better=True)
    res = analyze(st, [Mallows()], alphas=0.95, deltas=0.05, rep=20, progress=False,
                  estimators=["resample"])
    assert math.isnan(res["nstar"][0])
    assert res["reason"][0] == "needs at least N = 10 results for the power-law fit"
    assert res["generalizable"][0] is None


def test_frames_for_charts():
    st = synthetic_study()
    ga = GeneralizabilityAnalysis(st, [Jaccard(1)], rep=30, progress=False)
    f = ga.ngen_frame(("easy",), "jaccard")
    assert set(f.columns) == {"n", "eps", "ngen"}
    assert f.group_by("n").agg(pl.col("ngen").diff().min())["ngen"].min() >= 0
    q = ga.quantile_frame(("easy",), "jaccard")
    assert q.height == len(default_grid(40)) and (q["q_approx"] > 0).all()
    m = ga.mmd_frame(("easy",), "Jaccard(k=1)")
    assert m.height == 30 * len(default_grid(40))


@pytest.mark.parametrize("kw,match", [
    (dict(alphas=1.2), "alpha"), (dict(alphas=0.0), "alpha"),
    (dict(deltas=2.0), "delta"), (dict(estimators=["magic"]), "unknown method"),
])
def test_bad_parameters(kw, match):
    st = synthetic_study(N=12)
    with pytest.raises(GenexpyInputError, match=match):
        analyze(st, [Jaccard(1)], rep=5, progress=False, **kw)


def test_bad_kernels_and_seed():
    st = synthetic_study(N=12)
    with pytest.raises(GenexpyInputError, match="Kernel objects"):
        analyze(st, ["jaccard"], progress=False)
    with pytest.raises(GenexpyInputError, match="unknown alternative"):
        analyze(st, [Borda("nope")], progress=False)
    with pytest.raises(GenexpyInputError, match="seed"):
        analyze(st, [Jaccard()], seed=-1, progress=False)
    with pytest.raises(GenexpyInputError, match="twice"):
        analyze(st, [Jaccard(), Jaccard()], progress=False)


def test_plan_never_counts_an_unsure_verdict_as_true():
    """Verdicts combine as a three-valued "and" (issue 31): a configuration whose driving
    kernel is generalizable but another kernel's estimate is unsure is unsure, not true."""
    from genexpy_nb.generalizability.planner import plan, verdict_word

    rows = []
    for cid, (ga, gb, rb) in enumerate([(True, None, False), (True, False, True),
                                        (True, True, True), (None, False, True)]):
        for k, g, rel, n in (("jaccard", ga, ga is not None, 30.0), ("mallows", gb, rb, 12.0)):
            rows.append({"config_id": cid, "cfg": f"c{cid}", "kernel": k,
                         "kernel_label": k.title(), "alpha": 0.95, "delta": 0.05,
                         "eps": 0.3, "N": 40, "method": "resample", "nstar": n,
                         "nstar_ceil": int(n), "deficit": int(n) - 40, "generalizable": g,
                         "reliable": rel,
                         "reason": None if rel else "unreliable: poor power-law fit"})
    p = plan(pl.DataFrame(rows)).sort("config_id")
    assert p["generalizable"].to_list() == [None, False, True, False]
    assert p["reliable"].to_list() == [False, True, True, False]
    assert p["verdict"].to_list() == [
        "unsure (Mallows: unreliable: poor power-law fit)", "not generalizable",
        "generalizable", "not generalizable"]
    assert verdict_word(True) == "generalizable" and verdict_word(False) == "not generalizable"
    assert verdict_word(None, "n* is undefined") == "unsure (n* is undefined)"



def test_analyze_estimators_and_the_old_name_methods():
    """estimators= names the n* estimators; methods= (0.3's name) still works, with a warning."""
    rows = [{"c": c, "alt": a, "s": float(a == "x")} for c in range(20) for a in "xyz"]
    st = Study(pl.DataFrame(rows), alternatives="alt", target="s", blocks="c",
               higher_is_better=True)
    kw = dict(alphas=0.95, deltas=0.05, rep=20, progress=False, null=False)
    new = analyze(st, [Jaccard(1)], estimators=["approx"], **kw)
    with pytest.warns(DeprecationWarning, match="pass estimators="):
        old = analyze(st, [Jaccard(1)], methods=["approx"], **kw)
    assert new.equals(old) and new["method"].to_list() == ["approx"]
    ga = GeneralizabilityAnalysis(st, [Jaccard(1)], rep=20, progress=False, null=False)
    with pytest.warns(DeprecationWarning, match="pass estimators="):
        assert ga.nstar(0.95, 0.05, methods=["approx"]).equals(
            ga.nstar(0.95, 0.05, estimators=["approx"]))
