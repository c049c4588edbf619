"""EvalNoise.plan_separation: the items after which a pair is separated, checked by doing it.

The rule of gx.conclusions' plan (SPEC A15) for an eval: predictive power, the probability
taken over the difference's uncertainty given the data. Checked against its closed form and
by simulation: evals whose true difference is drawn at random are extended to the planned
number of items; the share then separated is near the assurance.
"""

import math

import numpy as np
import polars as pl
import pytest
from scipy import stats

import genexpy_nb as gx
from genexpy_nb.evals import eval_noise


def _eval(d_true: float, n: int, rng: np.random.Generator, sd: float = 1.0) -> pl.DataFrame:
    """Per-item scores of two models: b = item + noise, a = b + d_true + noise."""
    item = rng.normal(size=n)
    yb = item + rng.normal(0, sd, n)
    ya = item + d_true + rng.normal(0, sd, n)
    return pl.DataFrame({"model": ["a"] * n + ["b"] * n, "item": np.r_[np.arange(n),
                                                                       np.arange(n)],
                         "y": np.r_[ya, yb]})


def test_the_probability_is_the_closed_form_of_predictive_power():
    rng = np.random.default_rng(4)
    noise = eval_noise(_eval(0.25, 200, rng), alternatives="model", target="y", items="item",
                       higher_is_better=True)
    assert 0.05 < noise.paired_test("a", "b")["pvalue"] < 0.1  # open: not separated yet
    out = noise.plan_separation("a", "b", assurance=0.8, cost={"items": 1.0})
    assert out.height and (out["p_separate"] >= 0.8).all()
    r = out.row(0, named=True)
    D, se = abs(noise.summary["diff"][0]), noise.se("a", "b")
    c = stats.norm.ppf(0.975)
    B = max(0.0, 1 - se**2 / D**2)  # one pair: its own shrinkage

    def power(se_new):
        w = 1 - se_new**2 / se**2
        return stats.norm.cdf(((1 - w) * D + w * B * D - c * se_new)
                              / math.sqrt(w * w * B * se**2 + w * se_new**2))

    assert r["p_separate"] == pytest.approx(power(r["se"]), rel=1e-9)
    assert r["se"] == pytest.approx(noise.se("a", "b", items=r["items"]), rel=1e-12)
    # without shrinkage (B = 1) it is the flat-prior predictive power, more optimistic
    w = 1 - r["se"] ** 2 / se**2
    flat = stats.norm.cdf((D - c * r["se"]) / math.sqrt(w * se**2))
    assert flat >= r["p_separate"]
    # the cheapest on the grid: the grid's next smaller design does not reach it
    smaller = [n for n in range(201, r["items"]) if n in set(
        noise._design_grid(noise._pair("a", "b")[0], {"items": 1.0}, 20, 1)["items"])]
    for n in smaller[-1:]:
        assert power(noise.se("a", "b", items=n)) < 0.8
    # a family makes it demand more
    fam = noise.plan_separation("a", "b", assurance=0.8, family=20, cost={"items": 1.0})
    assert fam.height == 0 or fam["items"][0] >= r["items"]


def test_a_separated_pair_needs_nothing_and_bad_options_are_named():
    rng = np.random.default_rng(1)
    noise = eval_noise(_eval(1.0, 200, rng), alternatives="model", target="y", items="item",
                       higher_is_better=True)
    out = noise.plan_separation("a", "b")
    assert out.height == 1 and out["p_separate"][0] == 1.0 and out["items"][0] == 200
    for kw, word in (({"alpha": 1.5}, "alpha"), ({"assurance": 1.0}, "assurance"),
                     ({"family": 0}, "family")):
        with pytest.raises(gx.GenexpyInputError, match=word):
            noise.plan_separation("a", "b", **kw)


def test_planned_items_separate_the_pair_at_about_the_assurance():
    """Evals of 100 items, true differences drawn from N(0, 0.3^2): where the plan asks for
    more items (within 20x), extend the eval to them and test again."""
    rng = np.random.default_rng(7)
    came, asked = 0, 0
    for _ in range(300):
        d_true = rng.normal(0, 0.3)
        n0 = 100
        first = _eval(d_true, n0, rng)
        noise = eval_noise(first, alternatives="model", target="y", items="item",
                           higher_is_better=True)
        before = noise.paired_test("a", "b")
        if before["pvalue"] < 0.05:
            continue  # separated already
        plan = noise.plan_separation("a", "b", assurance=0.8, cost={"items": 1.0})
        if plan.height == 0:
            continue
        n = int(plan["items"][0])
        more = _eval(d_true, n - n0, rng).with_columns(pl.col("item") + n0)
        whole = pl.concat([first, more])
        test = eval_noise(whole, alternatives="model", target="y", items="item",
                          higher_is_better=True).paired_test("a", "b")
        asked += 1
        came += bool(test["pvalue"] < 0.05
                     and np.sign(test["diff"]) == np.sign(before["diff"]))
    assert asked >= 20
    share = came / asked
    assert 0.6 <= share <= 0.95, (share, asked)
