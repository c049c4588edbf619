"""The RBF question in no units (SPEC A13) and the trust rules of every method."""

import math

import naive
import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import genexpy_nb as gx
from genexpy_nb import GenexpyInputError
from genexpy_nb.example.study import load_example_study
from genexpy_nb.generalizability.kernels import RBF, parse_kernel, rbf_degeneracy, score_spread


def table(scores, target="score"):
    N, na = scores.shape
    return pl.DataFrame({
        "cond": np.repeat(np.arange(N), na).astype(str),
        "alt": np.tile([f"a{i}" for i in range(na)], N),
        target: np.asarray(scores, dtype=float).ravel()})


def study(scores, **kw):
    kw = {"alternatives": "alt", "target": "score", "generalize": "cond",
          "higher_is_better": True, **kw}
    return gx.Study(table(scores, kw["target"]), **kw)


# ---- the spread ------------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(X=hnp.arrays(np.float64, st.tuples(st.integers(1, 9), st.integers(1, 5)),
                    elements=st.integers(-20, 20).map(lambda v: v / 4)),
       c=st.sampled_from([100.0, 0.01, 3.0]), b=st.sampled_from([0.0, -7.25, 1e3]))
def test_spread_matches_naive_and_follows_the_units(X, c, b):
    s = score_spread(X)
    assert s == pytest.approx(naive.spread(X), rel=1e-12)
    if s != 1.0 or naive.spread(X) != 1.0:
        assert score_spread(c * X + b) == pytest.approx(c * s, rel=1e-9)


def test_spread_examples():
    # the median pair: rows 0-1 differ by 1 on each of 2 alternatives, 0-2 by 2, 1-2 by 1
    X = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]])
    assert score_spread(X) == pytest.approx(math.sqrt(1.0 / 2))
    assert score_spread(np.ones((5, 3))) == 1.0  # all identical: any unit will do
    assert score_spread(np.ones((1, 3))) == 1.0
    # more than half the pairs identical: half the mean
    X = np.array([[0.0], [0.0], [0.0], [2.0]])
    assert score_spread(X) == pytest.approx(math.sqrt((3 * 4 / 6) / 2))
    # robust: one condition on another scale does not set it
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 4))
    Y = X.copy()
    Y[0] *= 1e6
    assert score_spread(Y) < 1.5 * score_spread(X)


# ---- the kernel, its options, its threshold in units -----------------------------------
def test_options_labels_and_parsing():
    assert RBF().scale == "spread" and RBF().resolve(4).label == "RBF"
    raw = RBF(scale="raw").resolve(4)
    assert raw.label == "RBF(raw)" and RBF(scale="raw", gamma=2.0).resolve(4).label == \
        "RBF(raw, gamma=2)"
    assert parse_kernel("rbf:raw") == RBF(scale="raw")
    assert parse_kernel("rbf:scale=raw,gamma=2") == RBF(scale="raw", gamma=2.0)
    assert parse_kernel("rbf") == RBF()
    with pytest.raises(GenexpyInputError, match="RBF scale"):
        RBF(scale="percent")
    X = np.arange(12.0).reshape(4, 3)
    assert raw.prepare(X) is X  # the paper's: the very scores
    Z = RBF().resolve(3).prepare(X)
    assert Z.mean() == pytest.approx(0.0, abs=1e-12)
    np.testing.assert_allclose(Z, (X - X.mean()) / score_spread(X))


def test_threshold_in_the_target_s_units():
    k = RBF().resolve(4)
    assert k.threshold(0.05, 0.1) == pytest.approx(0.1 * math.sqrt(0.05))
    np.testing.assert_allclose(k.threshold([0.01, 0.25], 2.0), [0.2, 1.0])
    # delta* is the kernel's: k(x, y) = f(delta*) exactly at that RMS difference
    s = 0.3
    x = np.zeros(4)
    y = np.full(4, k.threshold(0.05, s))
    assert k(x / s, y / s) == pytest.approx(math.exp(-k.gamma * k.na * 0.05), rel=1e-12)
    g = RBF(gamma=2.0).resolve(4)  # any gamma: eps* moves with it
    assert g(x / s, y / s) == pytest.approx(math.exp(-g.gamma * g.na * 0.05), rel=1e-12)
    sc = np.random.default_rng(1).random((12, 4))
    st_ = study(sc)
    t = gx.score_thresholds(st_, [0.05, 0.2])
    assert t["rms"].to_list() == pytest.approx(
        [score_spread(sc) * math.sqrt(d) for d in (0.05, 0.2)])
    assert "RMS per alternative" in t["meaning"][0] and "score" in t["meaning"][0]
    pct = gx.score_thresholds(study(100 * sc), 0.05)
    assert pct["rms"][0] == pytest.approx(100 * t["rms"][0])
    raw = gx.score_thresholds(st_, 0.05, RBF(scale="raw"))
    assert raw["rms"][0] == pytest.approx(math.sqrt(0.05)) and raw["scale"][0] == "raw"
    ga = gx.GeneralizabilityAnalysis(st_, [gx.Jaccard(1), RBF()], rep=20, progress=False)
    assert ga.score_thresholds(0.05).equals(t.filter(pl.col("delta") == 0.05))
    assert gx.GeneralizabilityAnalysis(st_, [gx.Jaccard(1)], rep=20,
                                       progress=False).score_thresholds(0.05).height == 0
    with pytest.raises(GenexpyInputError, match="RBF question"):
        gx.score_thresholds(st_, 0.05, gx.Mallows())
    one = gx.score_thresholds(study(sc[:1]), 0.05).row(0, named=True)
    assert math.isnan(one["rms"]) and one["meaning"].startswith("undefined")


def test_raw_option_reproduces_the_paper_s_numbers():
    """RBF(scale="raw") gives the numbers of the paper's definition, which the package's RBF
    gave before (the reference implementation's, computed with the previous release).

    To 1e-12, not bit for bit: the power-law fit takes NumPy's vectorised logarithms, whose
    last bit depends on the processor's instruction set (the previous release gives
    1.3885235022992162 on one machine, 1.3885235022992168 on another); a wrong definition
    moves n* by far more.
    """
    ex = gx.Study(load_example_study(), alternatives="model", target="score",
                  higher_is_better=True, generalize="dataset",
                  design=["metric", "train_size"], average_over="fold")
    r = gx.analyze(ex, [RBF(scale="raw")], alphas=[0.9, 0.95], deltas=[0.05, 0.1], rep=50,
                   seed=3, progress=False)
    c0 = r.filter(pl.col("config_id") == 0)
    got = {(m, a, d): (n, lo, hi) for m, a, d, n, lo, hi in c0.select(
        "method", "alpha", "delta", "nstar", "nstar_lo", "nstar_hi").iter_rows()}
    close = {"rel": 1e-12, "abs": 0}
    assert got["resample", 0.9, 0.05] == pytest.approx(
        (1.3885235022992168, 1.1089234242660804, 1.693732878087316), **close)
    assert got["resample", 0.95, 0.1] == pytest.approx(
        (0.9720500208876705, 0.9720500208876705, 1.2065117790134348), **close)
    assert got["approx", 0.95, 0.05][0] == pytest.approx(1.5856666141885243, **close)
    assert got["approx_weighted", 0.9, 0.05][0] == pytest.approx(1.192752129922982, **close)
    # the unit-free RBF answers another question: the scores within 0.22 of their spread
    ours = gx.analyze(ex, [RBF()], alphas=0.95, deltas=0.05, estimators=["resample"], rep=50,
                      seed=3, progress=False)
    assert (ours["nstar"] > 10 * c0.filter(pl.col("method") == "resample")["nstar"].max()
            ).all()


def test_raw_depends_on_the_units_ours_does_not():
    sc = np.random.default_rng(2).random((30, 5)) * 0.3 + 0.6  # accuracies
    ks = [RBF(), RBF(scale="raw")]
    frac = gx.analyze(study(sc), ks, alphas=0.95, deltas=0.05, estimators=["resample"], rep=60,
                      progress=False, null=False)
    pct = gx.analyze(study(100 * sc), ks, alphas=0.95, deltas=0.05, estimators=["resample"],
                     rep=60, progress=False, null=False)
    assert pct["nstar"][0] == pytest.approx(frac["nstar"][0], rel=1e-9)
    assert pct["nstar"][1] > 3 * frac["nstar"][1]
    # in percent the paper's kernel matrix is ~I: flagged, whatever the method
    flagged = gx.analyze(study(100 * sc), ks, alphas=0.95, deltas=0.05, rep=60,
                         progress=False, null=False).filter(pl.col("kernel_label") == "RBF(raw)",
                                                            pl.col("method") != "bound")
    assert not flagged["reliable"].any() and flagged["generalizable"].is_null().all()
    assert flagged["reason"].str.contains("degenerate RBF kernel matrix").all()
    assert flagged.filter(pl.col("method") == "resample")["nstar"][0] == pytest.approx(
        2.0 / RBF().eps(0.05) ** 2, rel=0.1)


def test_degeneracy_rule():
    K = np.eye(5)
    assert "below 0.01" in rbf_degeneracy(K, np.ones(5))
    assert "above 0.99" in rbf_degeneracy(np.full((5, 5), 0.999), np.ones(5))
    assert rbf_degeneracy(np.ones((1, 1)), np.array([7])) is None  # all identical: n* = 1
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 4))
    k = RBF().resolve(4)
    assert rbf_degeneracy(k.gram(k.prepare(X)), np.ones(30)) is None
    # a share, weighted by how many conditions each support point stands for
    K = np.eye(3)
    K[0, 1] = K[1, 0] = 0.5
    assert rbf_degeneracy(K, np.array([1, 1, 1])) is None  # 2 of 3 pairs ~0
    assert rbf_degeneracy(K, np.array([1, 1, 60])) is not None  # 120 of 121 pairs ~0


# ---- a rescaled or shifted target leaves every n* as it was (all four kernels) ----------
@st.composite
def grid_scores(draw):
    N = draw(st.integers(12, 22))
    na = draw(st.integers(3, 5))
    X = draw(hnp.arrays(np.float64, (N, na), elements=st.integers(0, 40).map(lambda v: v / 8)))
    return X


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(X=grid_scores(), c=st.sampled_from([100.0, 0.01]), b=st.sampled_from([0.0, 7.25]),
       hib=st.booleans())
def test_nstar_unchanged_when_the_target_is_rescaled_or_shifted(X, c, b, hib):
    assume(np.unique(X, axis=0).shape[0] == X.shape[0])  # no two conditions alike
    ks = [gx.Jaccard(k=1), gx.Mallows(), gx.Borda("a0"), RBF()]
    kw = dict(alphas=[0.9, 0.95], deltas=[0.05, 0.2], estimators=["resample", "approx_weighted"],
              rep=24, seed=1, progress=False)
    a = gx.analyze(study(X, higher_is_better=hib), ks, **kw)
    b_ = gx.analyze(study(c * X + b, higher_is_better=hib), ks, **kw)
    for col in ("nstar", "nstar_lo", "nstar_hi", "nstar_null", "nstar_null_lo",
                "nstar_null_hi"):
        np.testing.assert_allclose(b_[col].to_numpy(), a[col].to_numpy(), rtol=1e-7,
                                   equal_nan=True, err_msg=col)
    assert a["reliable"].equals(b_["reliable"])


# ---- trust rules, the same for every method ---------------------------------------------
def test_the_bound_is_never_the_verdict():
    res = gx.analyze(study(np.random.default_rng(3).random((30, 4))), [gx.Jaccard(1)],
                     alphas=0.95, deltas=0.05, rep=30, progress=False)
    b = res.filter(pl.col("method") == "bound").row(0, named=True)
    assert b["generalizable"] is None and b["reliable"] is False
    assert "worst case" in b["reason"] and "never the verdict" in b["reason"]
    assert 200 < b["nstar"] < 260
    with pytest.raises(GenexpyInputError, match="never a verdict"):
        gx.plan(res, method="bound")


@pytest.mark.parametrize("N", [2, 5])
def test_few_conditions_never_give_a_reliable_verdict(N):
    sc = np.tile([[0.9, 0.5, 0.1]], (N, 1))  # the same ranking everywhere: n* = 1
    res = gx.analyze(study(sc), [gx.Jaccard(1), gx.Mallows()], alphas=0.95, deltas=0.05,
                     progress=False)
    assert res["generalizable"].is_null().all(), res.select("method", "generalizable")
    cf = res.filter(pl.col("method").is_in(["approx", "approx_weighted"]))
    assert (cf["nstar"] == 1.0).all() and not cf["reliable"].any()
    assert cf["reason"].str.contains(f"N = {N} conditions only").all()


def test_closed_form_follows_the_resampled_method_s_minimum():
    """N = 6-13: the grid has two sizes; only "all results identical" is a verdict, for the
    resampled method and the closed forms alike; from N = 14 on every estimate is."""
    same = gx.analyze(study(np.tile([[0.9, 0.5, 0.1]], (13, 1))), [gx.Jaccard(1)],
                      alphas=0.95, deltas=0.05, progress=False).filter(
        pl.col("method") != "bound")
    assert same["generalizable"].all() and same["reliable"].all()
    rng = np.random.default_rng(6)
    for N, ok in ((13, False), (14, True)):
        res = gx.analyze(study(rng.random((N, 4))), [gx.Mallows()], alphas=0.95,
                         deltas=0.05, progress=False).filter(pl.col("method") != "bound")
        assert res["reliable"].to_list() == [ok] * 3, (N, res.select("method", "reason"))


def test_duplicated_thresholds_count_once():
    st_ = study(np.random.default_rng(4).random((20, 4)))
    one = gx.analyze(st_, [gx.Jaccard(1)], alphas=0.95, deltas=0.05, rep=20, progress=False)
    two = gx.analyze(st_, [gx.Jaccard(1)], alphas=[0.95, 0.95], deltas=[0.05, 0.05],
                     estimators=["resample", "resample", "approx", "approx_weighted", "bound"],
                     rep=20, progress=False)
    assert two.equals(one)
    ga = gx.GeneralizabilityAnalysis(st_, [gx.Jaccard(1)], rep=20, progress=False)
    assert ga.nstar(0.9, [0.1, 0.1, 0.05], kernels=["jaccard", "Jaccard(k=1)"],
                    configurations=[0, 0]).height == 2 * 4


def test_direction_hint():
    sc = np.random.default_rng(5).random((10, 3))
    for name in ("rmse", "log_loss", "fit_time", "MeanAbsoluteError", "test error"):
        with pytest.warns(gx.DirectionWarning, match="higher_is_better=False"):
            study(sc, target=name)
        study(sc, target=name, higher_is_better=False)  # no warning (errors are raised)
    for name in ("accuracy", "cv_score", "timeliness", "roc_auc"):
        study(sc, target=name)
