"""Reading the candidate report (Tables II-V) and the seed-selection rule of thumb."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

from genexpy_nb import GenexpyInputError
from genexpy_nb.variability import (
    alpha_hat_groups,
    candidate_report,
    pairwise_churn_frame,
    select_seed,
)


def _report(a, acc, **extra):
    return pl.DataFrame({"candidate": np.arange(len(a)), "alpha_hat": np.asarray(a, float),
                         "accuracy": np.asarray(acc, float), **extra})


# ---- alpha_hat_groups ------------------------------------------------------------------


def test_groups_by_hand():
    rep = _report([0.0, 0.005, 0.02, 0.3, 0.04], [0.9, 0.8, 0.85, 0.7, 0.95],
                  ece=[0.01, 0.02, 0.03, 0.09, 0.02])
    g = alpha_hat_groups(rep, (0.05, 0.01))  # levels are sorted
    assert g["group"].to_list() == ["alpha_hat <= 0.01", "alpha_hat <= 0.05",
                                    "alpha_hat > 0.05", "all"]
    assert g["n"].to_list() == [2, 4, 1, 5]
    assert_allclose(g["share"], [0.4, 0.8, 0.2, 1.0])
    assert g["level"].to_list() == [0.01, 0.05, 0.05, None]
    assert_allclose(g["accuracy_min"], [0.8, 0.8, 0.7, 0.7])
    assert_allclose(g["accuracy_max"], [0.9, 0.95, 0.7, 0.95])
    assert_allclose(g["accuracy_mean"], [0.85, 0.875, 0.7, 0.84])
    assert_allclose(g["accuracy_median"], [0.85, 0.875, 0.7, 0.85])
    assert_allclose(g["ece_max"], [0.02, 0.03, 0.09, 0.09])
    # the grouping column and the candidate index are not summarised as metrics
    assert "alpha_hat_mean" not in g.columns and "candidate_mean" not in g.columns


def test_groups_empty_group_and_explicit_metrics():
    rep = _report([0.2, 0.3], [0.9, 0.8], ece=[0.1, 0.2])
    g = alpha_hat_groups(rep, 0.05, metrics=["ece"])
    assert g["n"].to_list() == [0, 2, 2]
    assert g.row(0, named=True)["ece_mean"] is None
    assert "accuracy_mean" not in g.columns
    g2 = alpha_hat_groups(rep, 0.25, metrics="ece")
    assert g2["n"].to_list() == [1, 1, 2]


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(0, 0.5), min_size=1, max_size=30),
       st.lists(st.floats(0, 0.5), min_size=1, max_size=4, unique=True))
def test_groups_are_nested(a, levels):
    rep = _report(a, np.linspace(0, 1, len(a)))
    g = alpha_hat_groups(rep, levels)
    n = g["n"].to_list()
    k = len(set(levels))
    assert n[:k] == sorted(n[:k])  # nested groups grow with the level
    assert n[k - 1] + n[k] == n[-1] == len(a)  # the largest level and the rest split all


def test_groups_errors():
    rep = _report([0.1, 0.2], [0.9, 0.8])
    with pytest.raises(GenexpyInputError, match="alpha_hat_exact"):
        alpha_hat_groups(rep, column="alpha_hat_exact")
    with pytest.raises(GenexpyInputError, match="levels"):
        alpha_hat_groups(rep, 1.5)
    with pytest.raises(GenexpyInputError, match="nope"):
        alpha_hat_groups(rep, metrics=["nope"])
    with pytest.raises(GenexpyInputError, match="numeric"):
        alpha_hat_groups(rep.with_columns(pl.lit("x").alias("name")), metrics=["name"])
    with pytest.raises(GenexpyInputError, match="missing values"):
        alpha_hat_groups(rep.with_columns(pl.Series("alpha_hat", [0.1, None])))


# ---- pairwise_churn_frame --------------------------------------------------------------


def test_pairwise_frame_matches_a_double_loop():
    rng = np.random.default_rng(3)
    g = rng.normal(size=(6, 40))
    a = rng.uniform(0, 0.3, size=6)
    f = pairwise_churn_frame(g, a, names=list("ABCDEF"))
    assert f.height == 15
    for row in f.iter_rows(named=True):
        i, j = row["a"], row["b"]
        assert i < j
        assert row["churn"] == int(np.sum((g[i] > 0) != (g[j] > 0)))
        assert row["churn_frac"] == pytest.approx(row["churn"] / 40)
        assert row["alpha_hat_pair"] == max(a[i], a[j])
        assert (row["name_a"], row["name_b"]) == ("ABCDEF"[i], "ABCDEF"[j])
    f2 = pairwise_churn_frame(g, pl.Series(a))
    assert_array_equal(f2["churn"], f["churn"])
    assert f2["name_a"][0] == "0"
    t = alpha_hat_groups(f, 0.1, column="alpha_hat_pair", metrics=["churn"])
    assert t["n"][-1] == 15


def test_pairwise_frame_errors():
    g = np.zeros((3, 5))
    with pytest.raises(GenexpyInputError, match="one value per candidate"):
        pairwise_churn_frame(g, [0.1, 0.2])
    with pytest.raises(GenexpyInputError, match="NaN"):
        pairwise_churn_frame(g, [0.1, np.nan, 0.2])
    with pytest.raises(GenexpyInputError, match="names"):
        pairwise_churn_frame(g, [0.1, 0.1, 0.2], names=["a"])
    with pytest.raises(GenexpyInputError, match="at least 2"):
        pairwise_churn_frame(g[:1], [0.1])


# ---- select_seed -----------------------------------------------------------------------


def test_select_seed_by_hand():
    rep = _report([0.2, 0.01, 0.0, 0.04, 0.01], [0.99, 0.95, 0.90, 0.97, 0.97])
    s = select_seed(rep, n_explore=None)
    assert s["chosen"].to_list() == [False, False, False, False, True]  # 0.97 tie: smaller a
    assert s["eligible"].to_list() == [False, True, True, True, True]
    assert s["accuracy_rank"].to_list() == [1, 4, 5, 2, 2]
    assert s["pareto"].to_list() == [True, False, True, False, True]
    # accuracy alone would pick candidate 0, which needs 20 % trimming
    s2 = select_seed(rep, level=0.2, n_explore=None)
    assert s2.filter("chosen")["candidate"].item() == 0
    # only the first n_explore seeds are explored
    s3 = select_seed(rep, n_explore=3)
    assert s3.height == 3 and s3.filter("chosen")["candidate"].item() == 1
    # ties in accuracy and alpha-hat: the earlier row
    s4 = select_seed(_report([0.0, 0.0], [0.9, 0.9]), n_explore=None)
    assert s4["chosen"].to_list() == [True, False]


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([0.0, 0.01, 0.03, 0.1, 0.4]),
                          st.sampled_from([0.8, 0.85, 0.9, 0.95])), min_size=1, max_size=25))
def test_select_seed_properties(rows):
    a, acc = (np.array(v) for v in zip(*rows, strict=True))
    if not np.any(a <= 0.05):
        with pytest.raises(GenexpyInputError, match="explore more seeds"):
            select_seed(_report(a, acc), n_explore=None)
        return
    s = select_seed(_report(a, acc), n_explore=None)
    c = s.filter("chosen")
    assert c.height == 1
    row = c.row(0, named=True)
    assert row["eligible"] and row["pareto"]
    assert row["accuracy"] == acc[a <= 0.05].max()
    # the Pareto front: nobody dominates a front member, every other row is dominated
    for i, r in enumerate(s.iter_rows(named=True)):
        dom = (acc >= acc[i]) & (a <= a[i]) & ((acc > acc[i]) | (a < a[i]))
        assert r["pareto"] == (not dom.any())


def test_select_seed_errors():
    rep = _report([0.1] * 5, [0.9] * 5)
    with pytest.raises(GenexpyInputError, match="only 5 candidates"):
        select_seed(rep)  # default n_explore = 30
    with pytest.raises(GenexpyInputError, match="raise level"):
        select_seed(rep, n_explore=5)
    with pytest.raises(GenexpyInputError, match="val_accuracy"):
        select_seed(rep, accuracy="val_accuracy", n_explore=5)
    with pytest.raises(GenexpyInputError, match="n_explore"):
        select_seed(rep, n_explore=0)
    with pytest.raises(GenexpyInputError, match="level"):
        select_seed(rep, level=-0.1, n_explore=5)


def test_with_a_candidate_report():
    rng = np.random.default_rng(5)
    ref = rng.normal(size=(6, 200))
    cands = np.vstack([rng.normal(size=(31, 200)), rng.normal(3.0, 1.0, size=(1, 200))])
    labels = (rng.uniform(size=200) < 0.5).astype(int)
    rep = candidate_report(ref, cands, labels, B=10, progress=False, seed=1)
    g = alpha_hat_groups(rep)
    assert g["n"][-1] == 32
    assert g.filter(pl.col("group") == "alpha_hat > 0.05")["n"].item() >= 1  # the shifted one
    s = select_seed(rep)  # explores the first 30
    assert s.height == 30 and s["chosen"].sum() == 1
    pairs = pairwise_churn_frame(cands, rep["alpha_hat"])
    assert pairs.height == 32 * 31 // 2
