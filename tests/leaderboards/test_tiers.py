"""Tiers and the conditions that would split them: the plan runs the verdict's own test."""

import math

import numpy as np
import polars as pl
import pytest
import toys

import genexpy_nb as gx
from genexpy_nb.generalizability.assurance import FutureTable, PredictiveModel, search_k
from genexpy_nb.leaderboards.sets import family
from genexpy_nb.leaderboards.tier_plan import _cut_event


def _study(x, **kw):
    return toys.scores_study(x, True, target="acc", block_names="d{}", **kw)


def _scores(seed, N, mu, noise=0.5):
    rng = np.random.default_rng(seed)
    mu = np.asarray(mu, float)
    return mu[None, :] + rng.normal(size=(N, 1)) + noise * rng.normal(size=(N, mu.size))


def test_cuts_are_the_tiers_of_the_rank_sets():
    st = _study(_scores(0, 20, [0, 0.3, 0.35, 0.6, 0.65, 1.2, 1.25]))
    sets = gx.rank_sets(st, reps=400, seed=2)
    t = gx.tiers(st, reps=400, seed=2, draws=200)
    assert t["after"].to_list() == list(range(1, 7))
    assert t["above"].to_list() == sets["alternative"].to_list()[:-1]
    assert t["below"].to_list() == sets["alternative"].to_list()[1:]
    tiers = sets["tier"].to_list()
    assert t["split"].to_list() == [a != b for a, b in zip(tiers, tiers[1:], strict=False)]
    assert t.filter(pl.col("split"))["verdict"].unique().to_list() in ([], ["split"])


def test_the_plan_at_the_observed_table_is_the_verdict():
    """The family test the plan runs, on the observed data, is the verdict's."""
    x = _scores(1, 15, [0, 0.2, 0.5, 1.0, 1.1])
    sample = _study(x).sample(0)
    fam = family(sample, level=0.95, reps=400, rng=np.random.default_rng(0))
    todo = np.arange(fam.K - 1)
    ev = _cut_event(fam, todo)
    ft = FutureTable(n=fam.N, df=fam.N - 1, means=fam.theta[None], diff=fam.d[None],
                     sd=np.sqrt(fam.var)[None])
    from genexpy_nb.leaderboards._stepdown import ahead_matrix, tier_cuts

    want = tier_cuts(ahead_matrix(fam.rej, fam.iu, fam.ju, fam.K), fam.order)
    full = _cut_event(fam, todo, step_down=True)
    assert full(ft)[0].tolist() == want.tolist()
    # the plan's single-step form shows no cut the verdict does not (k on the safe side)
    single = ev(ft)[0]
    assert not np.any(single & ~want)


def test_verdicts_split_needs_unsure_tied():
    rng = np.random.default_rng(3)
    N = 20
    base = rng.normal(size=(N, 1))
    x = np.column_stack([base[:, 0] + 3, base[:, 0] + 0.6 + 0.3 * rng.normal(size=N),
                         base[:, 0] + 0.3 * rng.normal(size=N), base[:, 0] - 3,
                         base[:, 0] - 3])  # the last two identical everywhere
    t = gx.tiers(_study(x), reps=400, draws=300, seed=1)
    v = dict(zip(t["after"].to_list(), t["verdict"].to_list(), strict=True))
    assert v[1] == "split" and v[3] == "split"
    assert v[4] == "tied" and "equal ranks in all 20" in t["reason"][3]
    # m1 vs m2: settled (0.6 apart, sd 0.42 per condition) but maybe not shown yet
    assert v[2] == "split" or v[2].startswith("needs")
    row = t.row(1, named=True)
    if row["verdict"].startswith("needs"):
        assert row["more"] >= 1 and row["assurance_at_more"] >= 0.8 - 1e-9
        assert row["more_lo"] <= row["more"] <= row["more_hi"]
        assert math.isclose(row["mc_error"], math.sqrt(row["assurance_at_more"] * (
            1 - row["assurance_at_more"]) / 300))


def test_unsure_when_the_direction_is_not_settled():
    x = _scores(4, 12, [0.0, 0.01, 2.0], noise=1.0)
    t = gx.tiers(_study(x), reps=300, draws=200)
    assert t["verdict"][0] == "split"  # m2, far ahead, is the top tier
    r = t.filter(pl.col("after") == 2).row(0, named=True)
    assert r["verdict"] == "unsure" and r["more"] is None
    assert "compatible with no difference" in r["reason"]


def test_search_k_finds_the_crossing_of_a_known_event():
    """A synthetic event that holds in a draw once k >= that draw's threshold."""
    x = _scores(5, 10, [0, 1, 2])
    model = PredictiveModel(x, draws=1000, rng=np.random.default_rng(0), scale=True)
    thresholds = np.random.default_rng(1).integers(1, 200, size=1000)
    seen = {}

    def event(ft):
        k = ft.n - model.N
        seen[k] = True
        rows = np.arange(ft.diff.shape[0])
        return (thresholds[rows] <= k)[:, None]

    plan = search_k(model, event, 1, assurance=0.8, k_max=1000)
    want = np.quantile(thresholds, 0.8)
    assert abs(plan.k[0] - want) <= 0.25 * want
    assert plan.k_lo[0] <= plan.k[0] <= plan.k_hi[0]
    assert len(seen) <= 14  # a handful of evaluations, not every k


def test_shrinkage_factor_bounds():
    from genexpy_nb.generalizability.assurance import shrinkage_factor

    noise = np.random.default_rng(0).normal(size=(30, 5))
    assert 0.0 <= shrinkage_factor(noise) < 0.5
    strong = noise + np.arange(5) * 3
    assert shrinkage_factor(strong) > 0.95


def test_same_seed_same_frame_and_bad_input():
    st = _study(_scores(6, 15, [0, 0.4, 0.8, 1.6]))
    a = gx.tiers(st, reps=200, draws=200, seed=4)
    assert a.equals(gx.tiers(st, reps=200, draws=200, seed=4))
    for kw, match in [({"assurance": 1.2}, "assurance"), ({"draws": 5}, "draws"),
                      ({"draws": 10**6}, "draws"), ({"max_more": 0}, "max_more")]:
        with pytest.raises(gx.GenexpyInputError, match=match):
            gx.tiers(st, **kw)
