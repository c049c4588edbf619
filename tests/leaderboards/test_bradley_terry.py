"""Bradley-Terry ratings: the fit against a naive twin and two peers, the bootstrap against
brute force, which models are reliable, the study's battles, and bad input."""

import math

import naive
import numpy as np
import polars as pl
import pytest
import toys
from hypothesis import given, settings
from hypothesis import strategies as st

import genexpy_nb as gx
from genexpy_nb.leaderboards.battles import ELO_PER_UNIT, fit_rows, read_battles


def _log(seed, K=6, n=2000, tie=0.1, names=None):
    rng = np.random.default_rng(seed)
    beta = rng.normal(0, 1, K)
    a = rng.integers(0, K, n)
    b = (a + rng.integers(1, K, n)) % K
    p = 1 / (1 + np.exp(-(beta[a] - beta[b])))
    u = rng.random(n)
    w = np.where(u < p * (1 - tie), "model_a", np.where(u < 1 - tie, "model_b",
                                                          np.where(u < 1 - tie / 2, "tie",
                                                                   "tie (bothbad)")))
    names = names or [f"m{i}" for i in range(K)]
    return pl.DataFrame({"model_a": [names[i] for i in a], "model_b": [names[i] for i in b],
                         "winner": w})


def _log_strengths(frame):
    return frame.sort("model")["rating"].to_numpy()


def test_fit_equals_a_tightly_converged_mle():
    df = _log(0)
    ours = _log_strengths(gx.bradley_terry(df, reps=0, scale="log"))
    oc = read_battles(df, "model_a", "model_b", "winner", None, None)
    pi, pj, W, Nn = oc.pair_counts()
    want = naive.bt_mle(pi.tolist(), pj.tolist(), W.tolist(), Nn.tolist(), 6)
    np.testing.assert_allclose(ours, want, atol=1e-6)


def test_fit_equals_evalica_and_choix():
    evalica = pytest.importorskip("evalica")
    choix = pytest.importorskip("choix")
    df = _log(1, K=8, n=3000)
    ours = _log_strengths(gx.bradley_terry(df, reps=0, scale="log"))
    code = {"model_a": evalica.Winner.X, "model_b": evalica.Winner.Y,
            "tie": evalica.Winner.Draw, "tie (bothbad)": evalica.Winner.Draw}
    r = evalica.bradley_terry(df["model_a"].to_list(), df["model_b"].to_list(),
                              [code[w] for w in df["winner"]], tolerance=1e-12, limit=10_000)
    ev = np.log(r.scores.sort_index().to_numpy())
    np.testing.assert_allclose(ours, ev - ev.mean(), atol=1e-6)
    idx = {f"m{i}": i for i in range(8)}
    data = []  # choix takes (winner, loser): a decisive battle twice, a tie once each way
    for a, b, w in df.iter_rows():
        i, j = idx[a], idx[b]
        data += ([(i, j)] * 2 if w == "model_a" else [(j, i)] * 2 if w == "model_b"
                 else [(i, j), (j, i)])
    c = choix.ilsr_pairwise(8, data, tol=1e-12, max_iter=10_000)
    np.testing.assert_allclose(ours, c - c.mean(), atol=1e-6)


@settings(max_examples=25)
@given(st.integers(0, 10_000), st.integers(2, 6))
def test_kernel_fit_against_naive_on_weighted_counts(seed, K):
    rng = np.random.default_rng(seed)
    pi, pj = np.triu_indices(K, 1)
    Nn = rng.uniform(1, 30, pi.size)
    W = Nn * rng.uniform(0.05, 0.95, pi.size)  # every pair won both ways: the MLE exists
    beta, ok = fit_rows(pi, pj, W[None], Nn[None], K)
    assert ok[0]
    want = naive.bt_mle(pi.tolist(), pj.tolist(), W.tolist(), Nn.tolist(), K)
    np.testing.assert_allclose(beta[0], want, atol=1e-6)


def test_scale_anchor_and_counts():
    df = _log(2)
    elo = gx.bradley_terry(df, reps=0)
    log = gx.bradley_terry(df, reps=0, scale="log")
    np.testing.assert_allclose(_log_strengths(elo), 1000 + ELO_PER_UNIT * _log_strengths(log))
    assert elo["anchor"][0] == "mean of the reliable models = 1000" and elo["scale"][0] == "elo"
    anc = gx.bradley_terry(df, reps=0, anchor=("m3", 1200))
    assert anc.filter(pl.col("model") == "m3")["rating"][0] == pytest.approx(1200)
    np.testing.assert_allclose(np.diff(_log_strengths(anc)), np.diff(_log_strengths(elo)))
    # a log aggregated to counts: the same fit and, with the same seed, the same bootstrap
    agg = df.group_by(["model_a", "model_b", "winner"]).len("n")
    a = gx.bradley_terry(df, reps=200, seed=5)
    b = gx.bradley_terry(agg, count="n", reps=200, seed=5)
    assert a.equals(b)
    # weights: a battle of weight 2 counts as two
    dup = pl.concat([df, df.head(100)])
    w = df.with_columns(pl.Series("w", [2.0] * 100 + [1.0] * (df.height - 100)))
    np.testing.assert_allclose(_log_strengths(gx.bradley_terry(dup, reps=0)),
                               _log_strengths(gx.bradley_terry(w, weights="w", reps=0)))


def test_bootstrap_matches_brute_force_resampling_of_battles():
    df = _log(3, K=4, n=400)
    ours = gx.bradley_terry(df, reps=2000, seed=1, scale="log").sort("model")
    oc = read_battles(df, "model_a", "model_b", "winner", None, None)
    code = {m: i for i, m in enumerate(oc.names)}
    a = np.array([code[m] for m in df["model_a"]])
    b = np.array([code[m] for m in df["model_b"]])
    s = df["winner"].replace_strict({"model_a": 1.0, "model_b": 0.0, "tie": 0.5,
                                     "tie (bothbad)": 0.5}).to_numpy()
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    score_lo = np.where(a < b, s, 1 - s)
    pi, pj = np.triu_indices(4, 1)
    pair = {(i, j): q for q, (i, j) in enumerate(zip(pi, pj, strict=True))}
    q = np.array([pair[(i, j)] for i, j in zip(lo, hi, strict=True)])
    rng = np.random.default_rng(99)
    R = 2000
    rows = rng.integers(0, df.height, size=(R, df.height))  # resample the battles themselves
    W = np.stack([np.bincount(q[r], weights=score_lo[r], minlength=6) for r in rows])
    Nn = np.stack([np.bincount(q[r], minlength=6) for r in rows]).astype(float)
    beta, ok = fit_rows(pi, pj, W, Nn, 4)
    assert ok.all()
    sd = beta.std(axis=0)
    want_lo, want_hi = np.percentile(beta, [2.5, 97.5], axis=0)
    # two independent bootstraps of 2000: each end within 4 Monte Carlo errors (0.085 sd each)
    assert np.all(np.abs(ours["rating_lo"].to_numpy() - want_lo) < 0.35 * sd)
    assert np.all(np.abs(ours["rating_hi"].to_numpy() - want_hi) < 0.35 * sd)


def test_unreliable_models_get_no_interval_and_no_extreme_rating():
    df = _log(4, K=5, n=1500)
    extra = pl.DataFrame({
        "model_a": ["rare"] * 3 + ["champ"] * 40 + ["island1"] * 30,
        "model_b": ["m0"] * 3 + [f"m{i % 5}" for i in range(40)] + ["island2"] * 30,
        "winner": ["model_a"] * 3 + ["model_a"] * 40 + ["model_a", "model_b", "tie"] * 10})
    bt = gx.bradley_terry(pl.concat([df, extra]), reps=300, seed=0)
    bad = bt.filter(~pl.col("reliable"))
    assert sorted(bad["model"].to_list()) == ["champ", "island1", "island2", "rare"]
    assert bad["rating_lo"].null_count() == 4 and bad["rank_lo"].null_count() == 4
    reason = dict(zip(bad["model"], bad["reason"], strict=True))
    assert "only 3 battle(s)" in reason["rare"]
    assert "not connected" in reason["champ"] and "not connected" in reason["island1"]
    good = bt.filter(pl.col("reliable"))
    span = good["rating"].max() - good["rating"].min()
    assert (bad["rating"] - 1000).abs().max() < 3 * span  # finite, shrunk to the mean
    assert good["rank_lo"].min() == 1 and good["rank_hi"].max() == good.height
    assert bt["model"].to_list()[: good.height] == good.sort("rating", descending=True)[
        "model"].to_list()


def test_a_model_that_often_loses_everything_in_resamples_has_no_interval():
    df = _log(5, K=4, n=800)
    weak = pl.DataFrame({"model_a": ["weak"] * 25, "model_b": ["m0", "m1", "m2", "m3", "m0"] * 5,
                         "winner": ["model_a"] + ["model_b"] * 24})
    bt = gx.bradley_terry(pl.concat([df, weak]), reps=300, seed=0)
    r = bt.filter(pl.col("model") == "weak").row(0, named=True)
    assert not r["reliable"] and r["rating_lo"] is None
    assert "lost every battle" in r["reason"] or "won or lost every battle" in r["reason"]
    assert math.isfinite(r["rating"])


def test_battles_of_a_study_are_its_per_condition_pairs():
    rng = np.random.default_rng(6)
    x = np.arange(4)[None, :] * 0.4 + rng.normal(size=(30, 4))
    x[3, 1] = x[3, 2]  # a tie
    study = toys.scores_study(x, True, target="acc")
    bt = gx.bradley_terry(study, reps=0, scale="log")
    t = study.sample(0).rankings
    rows = []
    for r in t:
        for i in range(4):
            for j in range(i + 1, 4):
                w = "model_a" if r[i] < r[j] else "model_b" if r[i] > r[j] else "tie"
                rows.append((f"m{i}", f"m{j}", w))
    log = pl.DataFrame(rows, schema=["model_a", "model_b", "winner"], orient="row")
    want = gx.bradley_terry(log, reps=0, scale="log")
    assert bt.columns[0] == "config_id"
    np.testing.assert_allclose(_log_strengths(bt), _log_strengths(want), atol=1e-10)
    assert bt["battles"].to_list() == [90] * 4
    boot = gx.bradley_terry(study, reps=300, seed=1)
    assert boot["rating_lo"].null_count() == 0
    assert boot["model"][0] == "m3"


def test_same_seed_same_bits():
    df = _log(7)
    assert gx.bradley_terry(df, reps=200, seed=3).equals(gx.bradley_terry(df, reps=200, seed=3))


@pytest.mark.parametrize(("change", "kw", "match"), [
    (lambda d: d.with_columns(pl.lit("draw").alias("winner")), {}, "unknown winner"),
    (lambda d: d.with_columns(pl.col("model_a").alias("model_b")), {}, "against itself"),
    (lambda d: d.drop("winner"), {}, "winner"),
    (lambda d: d.with_columns(pl.lit(-1.0).alias("w")), {"weights": "w"}, "weights"),
    (lambda d: d.with_columns(pl.lit(1.5).alias("n")), {"count": "n"}, "whole numbers"),
    (lambda d: d, {"reps": 50}, "reps"),
    (lambda d: d, {"scale": "glicko"}, "scale"),
    (lambda d: d, {"anchor": ("nope", 1000)}, "anchor"),
    (lambda d: d, {"anchor": "m1"}, "anchor"),
    (lambda d: d.head(0), {}, "empty"),
    (lambda d: d.with_columns(pl.lit(None, pl.String).alias("winner")), {}, "empty winner"),
])
def test_bad_input_is_named(change, kw, match):
    with pytest.raises(gx.GenexpyInputError, match=match):
        gx.bradley_terry(change(_log(8, n=300)), **kw)


def test_pandas_log_is_not_modified():
    pd = pytest.importorskip("pandas")
    df = _log(9, n=300).to_pandas()
    before = df.copy()
    gx.bradley_terry(df, reps=0)
    pd.testing.assert_frame_equal(df, before)
