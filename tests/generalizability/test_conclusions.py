"""gx.conclusions: the study's conclusions with their n* (SPEC A14), against oracles.

The oracles: scipy's midranks and paired t-test, statsmodels' Holm correction, the closed form
n* = (z sigma / mu)^2 for large n*, a direct Monte Carlo of the normal model, and
rank_probabilities / top_group on the same study.
"""

from __future__ import annotations

import importlib
import math

import numpy as np
import polars as pl
import pytest
import toys
from scipy import stats
from statsmodels.stats.multitest import multipletests

import genexpy_nb as gx
from genexpy_nb import GenexpyInputError, config

C = importlib.import_module("genexpy_nb.generalizability._conclusion_model")


def _frame(scores: np.ndarray, names: list[str] | None = None) -> pl.DataFrame:
    return toys.scores_frame(scores, names)


def _study(scores: np.ndarray, higher: bool = True, **kw) -> gx.Study:
    return toys.scores_study(scores, higher, **kw)


def _scores(n=40, means=(1.0, 0.5, 0.0, 0.0), seed=0, discrete=False) -> np.ndarray:
    rng = np.random.default_rng(seed)
    s = np.asarray(means) + rng.standard_normal((n, 1)) + rng.standard_normal((n, len(means)))
    return np.round(s) if discrete else s


@pytest.mark.parametrize("discrete", [False, True])
def test_pairs_match_scipy_t_test_and_statsmodels_holm(discrete):
    sc = _scores(n=30, means=(0.8, 0.6, 0.2, 0.0, 0.0), seed=3, discrete=discrete)
    res = gx.conclusions(_study(sc), kinds=["pair"])
    mid = stats.rankdata(-sc, axis=1, method="average")  # the oracle's midranks, 1 = best
    names = [f"m{i}" for i in range(5)]
    ps = []
    for row in res.iter_rows(named=True):
        a, b = (names.index(x) for x in row["members"])
        d = mid[:, a] - mid[:, b]
        assert d.mean() <= 0  # the first named is ahead (or level)
        t = stats.ttest_rel(mid[:, a], mid[:, b])
        p = 1.0 if np.all(d == 0) else t.pvalue
        assert row["p_value"] == pytest.approx(p, rel=1e-9, abs=1e-15)
        ps.append(row["p_value"])
    holm = multipletests(ps, method="holm")[1]
    np.testing.assert_allclose(res["p_adjusted"].to_numpy(), holm, rtol=1e-12)
    assert set(res["judged"]) == {"as a family (Holm)"}


@pytest.mark.parametrize("N", [1, 2, 3, 12, 51, 1000])
@pytest.mark.parametrize("level", [0.8, 0.9, 0.95])
def test_settled_from_t_is_the_noncentral_t_interval_excluding_zero(N, level):
    """The verdicts read ``settled`` from t before the intervals' root searches run (the
    plan starts on it): the same pairs as the intervals settle, at the critical value too."""
    from scipy.special import stdtrit

    tq = float(stdtrit(max(N - 1, 1), 1.0 - (1.0 - level) / 2.0))
    rng = np.random.default_rng(N)
    near = tq * (1.0 + np.array([-1e-6, -1e-8, -1e-12, 0.0, 1e-12, 1e-8, 1e-6]))
    t = np.concatenate([rng.normal(0.0, 2 * tq, 400), near, -near, [0.0, np.inf, -np.inf,
                                                                    np.nan, 40.0, -300.0]])
    lo, hi = C._effect_interval(t, N, level)
    np.testing.assert_array_equal(C._settled_by_t(t, N, level), (lo > 0) | (hi < 0))


def test_verdicts_and_plan_again_when_the_intervals_disagree_with_t(monkeypatch):
    """Should the intervals ever settle other pairs than t did, the verdicts and the plan
    are made again from the intervals, from the plan's own stream: the same frame."""
    scores = _scores(n=30, means=(0.6, 0.5, 0.1, 0.0, -0.1), seed=3)
    want = gx.conclusions(_study(scores), seed=4, progress=False)
    assert (want["verdict"].str.starts_with("needs")).any()  # the plan's k are in the frame
    conc = importlib.import_module("genexpy_nb.generalizability.conclusions")
    core = conc._pair_core
    flips = []

    def wrong(*args, **kwargs):
        st = core(*args, **kwargs)
        st["settled"] = ~st["settled"]  # every pair said wrongly
        flips.append(1)
        return st

    monkeypatch.setattr(conc, "_pair_core", wrong)
    got = gx.conclusions(_study(scores), seed=4, progress=False)
    assert flips and got.equals(want)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_order_agreement_taken_as_one_only_where_counting_gives_one(seed):
    """The order's agreement skips counting at the n where no pair of draws can disagree
    beyond the distance allowed: there the count gives exactly 1 too, at every n of the
    n* search (mean ranks with ties, close and far alternatives)."""
    rng = np.random.default_rng(seed)
    scores = np.repeat(rng.normal(0.0, 1.0, (40, 1)), 12, axis=1) + np.linspace(0, 3, 12)
    scores[:, 5] = scores[:, 4]  # twins: a tie in every draw's means
    scores += rng.normal(0.0, 0.3 + seed, scores.shape)
    mr2 = C._doubled_midranks(-scores)
    model = C._Model(mr2, 400, np.random.default_rng(seed))
    half = model.z.shape[0] // 2
    G = C._agreement_fn(model, "order", 1, 0.05)
    firm = C._firm_order(model, half, 0.05)
    skipped = 0
    for n in [1.0, 3.0, 9.0, 27.0, 81.0, 243.0, 729.0, 2187.0, 6561.0, 59049.0, 1e6]:
        counted = float(np.mean(C._kendall_within(
            model.means(n, slice(0, half)), model.means(n, slice(half, 2 * half)), 0.05)))
        assert G(n) == counted
        if firm(n):
            skipped += 1
            assert counted == 1.0
    assert 0 < skipped < 11


def test_pair_nstar_tends_to_the_closed_form():
    z = C.conclusion_z(0.95)
    assert z == pytest.approx(stats.norm.ppf((1 + math.sqrt(0.9)) / 2), rel=1e-12)
    eff = np.array([0.05, 0.1, 0.2])
    n = C._pair_nstar(eff, np.full(3, 0.01), 0.95)
    np.testing.assert_allclose(n, (z / eff) ** 2, rtol=0.04)
    # and G is p^2 + (1-p)^2 there
    g = C._pair_agreement(0.1, 0.0, 400.0)
    p = stats.norm.cdf(math.sqrt(400) * 0.1)
    assert g == pytest.approx(p * p + (1 - p) ** 2, abs=1e-12)


def test_pair_nstar_is_the_first_n_after_the_last_failure():
    eff, span = np.array([0.4]), np.array([0.5])
    n = C._pair_nstar(eff, span, 0.95)[0]
    grid = np.arange(1, 400)
    g = C._pair_agreement(0.4, 0.5, grid.astype(float))
    fails = grid[g < 0.95]
    assert n == fails.max() + 1
    assert np.all(g[grid >= n] >= 0.95)


@pytest.mark.parametrize("alpha", [0.7, 0.9, 0.95, 0.99])
def test_pair_nstar_search_stopped_at_the_safe_size_equals_the_whole_search(alpha):
    # each pair's search of every whole n stops where G can no longer fail (P(> 0) alone
    # reaches sqrt(alpha)); the answer is that of searching all 512 sizes
    rng = np.random.default_rng(int(alpha * 100))
    eff = np.concatenate([rng.uniform(0.05, 3.0, 400), [0.2, 1.0, 5.0]])
    span = np.concatenate([rng.choice([0.0, 0.05, 0.5, 1.0, 2.0, 4.0], 400), [3.0, 0.0, 8.0]])
    got = C._pair_nstar(eff, span, alpha)
    grid = np.arange(1.0, 513.0)
    g = C._pair_agreement(eff[:, None], span[:, None], grid[None, :])
    z = C.conclusion_z(alpha)
    small = (z / eff) ** 2 <= 128
    for i in np.flatnonzero(small):
        fails = grid[g[i] < alpha]
        want = 1.0 if fails.size == 0 else fails.max() + 1
        assert got[i] == want, (eff[i], span[i])
    safe = C._pair_safe_n(eff, span, alpha)
    for i in range(eff.size):  # beyond the safe size G never fails
        assert np.all(g[i][grid >= safe[i]] >= alpha)


def test_best_agreement_equals_a_direct_monte_carlo_of_the_normal_model():
    sc = _scores(n=50, means=(0.6, 0.3, 0.0), seed=1)
    mr2 = C._doubled_midranks(_study(sc).sample(0).rankings)
    model = C._Model(mr2, 4000, np.random.default_rng(0))
    x = mr2 / 2.0
    mu, cov = x.mean(0), np.cov(x, rowvar=False)
    rng = np.random.default_rng(1)
    for n in (5.0, 20.0, 80.0):
        ours = C._agreement_fn(model, "best", 1, 0.05)(n)
        draws = rng.multivariate_normal(mu, cov / n, size=40_000)
        p = np.bincount(draws.argmin(axis=1), minlength=3) / draws.shape[0]
        assert ours == pytest.approx(float(np.sum(p * p)), abs=0.03)


def test_two_alternatives_best_and_pair_agree():
    sc = _scores(n=60, means=(0.5, 0.0), seed=2)
    res = gx.conclusions(_study(sc), kinds=["best", "pair"], draws=20_000)
    best = res.filter(pl.col("kind") == "best").row(0, named=True)
    pair = res.filter(pl.col("kind") == "pair").row(0, named=True)
    assert best["members"] == [pair["members"][0]]
    # the pair's n* has a continuity correction for the lattice of rank differences, the
    # best's Monte Carlo of the normal model has none: close, not equal
    assert best["nstar"] == pytest.approx(pair["nstar"], rel=0.4)
    assert best["agreement"] == pytest.approx(pair["agreement"], abs=0.05)


#: the plan's columns: Monte Carlo (the predictive simulation of the whole table at N + k)
PLAN_COLUMNS = ["more", "more_lo", "more_hi", "p_hold", "p_hold_se", "verdict"]


def test_same_seed_same_bits_and_seed_changes_only_monte_carlo():
    # the pairs' statistics are closed form; since issue 47 their k ("needs k more") comes
    # from a simulation of the whole table, so it moves with the seed (the verdict's word
    # does not: holds, needs, unsure and tied are decided before the plan)
    st = _study(_scores(seed=4))
    a = gx.conclusions(st, seed=7)
    assert a.equals(gx.conclusions(st, seed=7))
    b = gx.conclusions(st, seed=8)
    pairs = pl.col("kind") == "pair"
    assert a.filter(pairs).drop(PLAN_COLUMNS).equals(b.filter(pairs).drop(PLAN_COLUMNS))
    word = pl.col("verdict").str.split(" ").list.first()
    assert a.select(word).equals(b.select(word))


def test_direction_and_monotone_rescaling_change_nothing():
    sc = _scores(seed=5)
    a = gx.conclusions(_study(sc))
    b = gx.conclusions(_study(-sc, higher=False))
    c = gx.conclusions(_study(np.exp(sc) * 3 + 1))
    assert a.equals(b) and a.equals(c)


def test_a_clear_winner_holds_and_agrees_with_rank_probabilities():
    sc = _scores(n=40, means=(1.6, 0.0, 0.0, 0.0, 0.0), seed=6)
    st = _study(sc)
    best = gx.conclusions(st, kinds=["best"]).row(0, named=True)
    prob = gx.rank_probabilities(st, rep=2000, seed=0)
    p_best = prob.filter((pl.col("alternative") == "m0") & (pl.col("rank") == 1))
    assert p_best["probability"][0] >= 0.99
    assert gx.top_group(prob) == ["m0"]
    assert best["observed"] == "m0 is the best"
    assert best["verdict"] == "holds" and best["nstar"] <= best["N"]
    assert best["nstar_lo"] <= best["nstar"] <= best["nstar_hi"] < math.inf


def test_pure_noise_is_unsure_and_has_no_finite_interval():
    sc = _scores(n=40, means=(0.0,) * 6, seed=11)
    res = gx.conclusions(_study(sc), kinds=["best", "top_k", "order"])
    assert set(res["verdict"]) == {"unsure"}
    assert np.isinf(res["nstar_hi"].to_numpy()).all()
    assert all("direction is not settled" in r for r in res["reason"])


def test_pure_noise_family_rarely_settles_a_pair():
    # 150 pure-noise studies: any pair called "holds" at most at about 1 - alpha* = 0.05
    rng = np.random.default_rng(0)
    hits = 0
    for _ in range(150):
        s = rng.standard_normal((40, 5))
        res = gx.conclusions(_study(s), kinds=["pair"])
        hits += bool((res["verdict"] == "holds").any())
    assert hits / 150 <= 0.10


def test_identical_alternatives_tie_and_constant_winner_holds():
    base = _scores(n=12, means=(0.0, 0.0, 0.0), seed=2)
    sc = np.column_stack([base[:, 0] + 5, base[:, 0] + 5, base[:, 1], base[:, 2]])
    res = gx.conclusions(_study(sc))
    twin = res.filter((pl.col("kind") == "pair") & (pl.col("alternatives") == "m0 vs m1"))
    row = twin.row(0, named=True)
    assert row["verdict"] == "tied" and row["nstar"] == 1.0 and row["agreement"] == 1.0
    assert "every condition" in row["observed"]
    best = res.filter(pl.col("kind") == "best").row(0, named=True)
    assert best["observed"] == "co-best {m0, m1}"
    assert best["members"] == ["m0", "m1"]
    assert best["verdict"] == "holds" and best["nstar"] == 1.0


def test_few_conditions_are_never_trusted():
    res = gx.conclusions(_study(_scores(n=4, means=(3.0, 0.0, 0.0), seed=1)))
    assert not res["reliable"].any()
    assert set(res["verdict"]) == {"unsure"}
    assert all(r.startswith("only 4 condition") for r in res["reason"])


def test_margin_and_budget_give_tied():
    sc = _scores(n=200, means=(0.0, 0.0, 2.0), seed=9)
    res = gx.conclusions(_study(sc), kinds=["pair"], margin=0.3)
    row = res.filter(pl.col("alternatives").str.contains("m0")
                     & pl.col("alternatives").str.contains("m1")).row(0, named=True)
    assert row["verdict"] == "tied"
    res = gx.conclusions(_study(_scores(n=40, means=(0.1, 0.0), seed=3)), kinds=["pair"],
                         budget=10)
    assert res["verdict"][0] in ("tied", "unsure")
    if res["verdict"][0] == "tied":
        assert res["nstar_lo"][0] > 10


def test_needs_more_is_a_finite_plan():
    sc = _scores(n=30, means=(0.45, 0.0), seed=12)
    row = gx.conclusions(_study(sc), kinds=["pair"]).row(0, named=True)
    if row["verdict"].startswith("needs"):
        assert row["more"] == math.ceil(row["nstar"]) - 30 and math.isfinite(row["nstar_hi"])
    else:
        assert row["verdict"] in ("holds", "unsure")


def test_top_k_and_order_rows():
    sc = _scores(n=60, means=(2.0, 1.6, 1.2, 0.0, 0.0, 0.0), seed=13)
    res = gx.conclusions(_study(sc), kinds=["top_k", "order"], top_k=[3, 10])
    top = res.filter(pl.col("kind") == "top_k")
    assert top["k"].to_list() == [3]  # a size >= the number of alternatives is skipped
    assert set(top["members"][0]) == {"m0", "m1", "m2"}
    order = res.filter(pl.col("kind") == "order").row(0, named=True)
    assert order["observed"].startswith("order m0 > m1 > m2")
    assert 0.0 <= order["agreement"] <= 1.0


def test_one_row_set_per_configuration_with_design_columns():
    rng = np.random.default_rng(0)
    frames = []
    for metric in ("acc", "f1"):
        f = _frame(rng.standard_normal((20, 3)) + np.array([1.0, 0.0, 0.0]))
        frames.append(f.with_columns(pl.lit(metric).alias("metric")))
    st = gx.Study(pl.concat(frames), alternatives="model", target="score",
                  generalize="dataset", design="metric", higher_is_better=True)
    res = gx.conclusions(st)
    assert res.columns[:2] == ["config_id", "metric"]
    # best, order and 3 pairs each (a top 3 of 3 alternatives is skipped)
    assert res.group_by("metric").len().sort("metric")["len"].to_list() == [5, 5]
    one = gx.conclusions(st, config_id={"metric": "f1"})
    assert set(one["metric"]) == {"f1"}
    for col in ("kind", "alternatives", "observed", "agreement", "nstar", "nstar_lo",
                "nstar_hi", "N", "verdict", "reliable", "reason"):
        assert col in res.columns


@pytest.mark.parametrize("kw, word", [
    ({"alpha": 0.4}, "alpha"), ({"alpha": 1.0}, "alpha"), ({"kinds": ["winner"]}, "kinds"),
    ({"top_k": 0}, "top_k"), ({"margin": -1}, "margin"), ({"budget": float("nan")}, "budget"),
    ({"draws": 10}, "draws"), ({"adjust": "bonferroni"}, "adjust"), ({"seed": -1}, "seed"),
    ({"level": 1.5}, "level"),
])
def test_bad_options_name_the_parameter(kw, word):
    st = _study(_scores(n=10, seed=1))
    with pytest.raises(GenexpyInputError, match=word):
        gx.conclusions(st, **kw)


def test_not_a_study():
    with pytest.raises(GenexpyInputError, match="Study"):
        gx.conclusions(pl.DataFrame({"a": [1]}))


def test_user_frame_untouched():
    df = _frame(_scores(seed=2))
    before = df.clone()
    gx.conclusions(gx.Study(df, alternatives="model", target="score", generalize="dataset",
                            higher_is_better=True))
    assert df.equals(before)


def _kendall_naive(a, b, delta, tol=1e-9):
    """The order agreement written out pair by pair (the kernel's slow twin)."""
    rows, na = a.shape
    out = np.zeros(rows, bool)
    pairs = [(i, j) for i in range(na) for j in range(i + 1, na)]
    for r in range(rows):
        twice = 0
        for i, j in pairs:
            da, db = a[r, i] - a[r, j], b[r, i] - b[r, j]
            sa = 0 if abs(da) <= tol else (1 if da > 0 else -1)
            sb = 0 if abs(db) <= tol else (1 if db > 0 else -1)
            twice += abs(sa - sb)
        out[r] = twice / 2 / len(pairs) <= delta + 1e-12
    return out


@pytest.mark.parametrize("na, delta", [(2, 0.0), (5, 0.05), (8, 0.2), (12, 0.1)])
def test_order_kernel_matches_its_naive_twin(na, delta):
    rng = np.random.default_rng(na)
    a = np.round(rng.standard_normal((300, na)), 1)  # rounded: ties in both orders
    b = np.where(rng.random((300, na)) < 0.5, a, np.round(rng.standard_normal((300, na)), 1))
    want = _kendall_naive(a, b, delta)
    for route in ("numpy", "numba"):  # both paths of the order's agreement
        with config.force_route(route):
            np.testing.assert_array_equal(C._kendall_within(a, b, delta), want)


def test_one_configuration_alone_gives_the_same_rows_and_extra_columns():
    rng = np.random.default_rng(3)
    frames = [_frame(rng.standard_normal((25, 4)) + np.array([0.8, 0.4, 0.0, 0.0]))
              .with_columns(pl.lit(m).alias("metric")) for m in ("acc", "f1", "auc")]
    st = gx.Study(pl.concat(frames), alternatives="model", target="score",
                  generalize="dataset", design="metric", higher_is_better=True)
    whole = gx.conclusions(st, seed=5, progress=False)
    one = gx.conclusions(st, seed=5, config_id={"metric": "f1"})
    assert whole.filter(pl.col("metric") == "f1").equals(one)
    assert set(whole["alpha"]) == {0.95} and set(whole["level"]) == {0.9}
    sets = whole.filter(pl.col("kind") != "pair")
    assert all(len(b) == 2 for b in sets["bottleneck"])
    pairs = whole.filter(pl.col("kind") == "pair")
    assert pairs["bottleneck"].to_list() == pairs["members"].to_list()


def test_a_list_of_configurations():
    rng = np.random.default_rng(4)
    frames = [_frame(rng.standard_normal((12, 3))).with_columns(pl.lit(m).alias("metric"))
              for m in ("acc", "f1", "auc")]
    st = gx.Study(pl.concat(frames), alternatives="model", target="score",
                  generalize="dataset", design="metric", higher_is_better=True)
    two = gx.conclusions(st, configurations=[{"metric": "f1"}, 0])
    assert two["metric"].unique(maintain_order=True).to_list() == ["f1", "acc"]
    whole = gx.conclusions(st)
    assert two.filter(pl.col("metric") == "f1").equals(whole.filter(pl.col("metric") == "f1"))
    with pytest.raises(GenexpyInputError, match="not both"):
        gx.conclusions(st, config_id=0, configurations=[1])
    with pytest.raises(GenexpyInputError, match="configurations"):
        gx.conclusions(st, configurations="acc")


def test_pairs_the_post_hoc_test_separates_at_a_tiny_p_are_settled():
    from genexpy_nb import significance as sig
    from genexpy_nb.example.study import load_example_study

    acc = load_example_study().filter(pl.col("metric") == "accuracy",
                                      pl.col("train_size") == "small")
    cmp = sig.compare(acc, alternatives="model", target="score", blocks="dataset",
                      average_over="fold", higher_is_better=True)
    st = gx.Study(acc, alternatives="model", target="score", generalize="dataset",
                  average_over="fold", higher_is_better=True)
    pairs = gx.conclusions(st, kinds=["pair"])
    verdict = {frozenset(r["members"]): r["verdict"] for r in pairs.iter_rows(named=True)}
    tiny = cmp.posthoc.filter(pl.col("pvalue") < 1e-6)
    assert tiny.height >= 5
    for r in tiny.iter_rows(named=True):
        assert verdict[frozenset((r["alternative_1"], r["alternative_2"]))] == "holds", r
    # and the pair the post-hoc test cannot separate from the best is not settled here either
    best, runner_up = cmp.best[0], cmp.indistinguishable[0]
    assert verdict[frozenset((best, runner_up))] == "unsure"


def test_alternatives_equal_everywhere_are_tied_not_unsure():
    res = gx.conclusions(_study(np.ones((6, 3))))
    assert set(res["verdict"]) == {"tied"}
    assert res.filter(pl.col("kind") == "best")["observed"][0] == "co-best {m0, m1, m2}"
