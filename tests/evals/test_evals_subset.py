"""subset_agreement: a random half of a benchmark agrees; a subset picked for one model does not."""

import numpy as np
import polars as pl
import pytest

import genexpy_nb as gx
from genexpy_nb.evals import subset_agreement
from genexpy_nb.evals.subset import _mmd_to_full
from genexpy_nb.generalizability.kernels import Jaccard
from genexpy_nb.generalizability.mmd import mmd


@pytest.fixture(scope="module")
def study():
    rng = np.random.default_rng(0)
    models = [f"m{i}" for i in range(6)]
    ability = np.array([0.0, 0.02, 0.04, 0.06, 0.08, 0.10])
    rows = [(f"t{t:02d}", m, base + a + rng.normal(0, 0.04))
            for t in range(60) for base in [rng.normal(0.5, 0.1)]
            for m, a in zip(models, ability)]
    df = pl.DataFrame(rows, schema=["task", "model", "acc"], orient="row")
    return df, gx.Study(df, alternatives="model", target="acc", generalize="task",
                        higher_is_better=True)


def test_random_half_agrees(study):
    df, st = study
    half = np.random.default_rng(1).choice(sorted(df["task"].unique()), 30, replace=False)
    res = subset_agreement(st, list(half), seed=0)
    assert res.agrees, res
    assert res.kernels["agrees"].all()
    assert res.conclusions.filter("required")["same"].all()
    assert (res.kernels["size_needed"] <= 30).all()
    # finite population: the whole benchmark agrees with itself surely
    q = res.curve.filter(pl.col("size") == 60)["q"]
    assert (q == 1.0).all()


def test_subset_chosen_to_favour_a_model_does_not_agree(study):
    df, st = study
    piv = df.pivot(on="model", index="task", values="acc")
    fav = piv.sort(pl.col("m4") - pl.col("m5"), descending=True)["task"].head(20).to_list()
    res = subset_agreement(st, fav, seed=0)
    assert not res.agrees
    best = res.conclusions.filter(pl.col("kind") == "best").row(0, named=True)
    assert best["full"] == "m5 is the best" and not best["same"]
    assert "does not agree" in repr(res)


def test_mmd_matches_the_package_mmd(study):
    _, st = study
    s = st.sample(0)
    k = Jaccard(k=1).resolve(st.na, st.alternatives)
    idx = np.arange(0, 60, 3)
    w = np.zeros((1, 60))
    w[0, idx] = 1 / idx.size
    got = _mmd_to_full(k.gram(s.rankings), w)[0]
    assert got == pytest.approx(mmd(s.rankings[idx], s.rankings, k), abs=1e-12)


def test_same_seed_same_answer_and_bad_input(study):
    df, st = study
    sub = sorted(df["task"].unique())[:40]
    a = subset_agreement(st, sub, seed=3)
    b = subset_agreement(st, sub, seed=3)
    assert a.kernels.equals(b.kernels) and a.curve.equals(b.curve)
    with pytest.raises(gx.GenexpyInputError, match="not in the study"):
        subset_agreement(st, ["nope", "t01"])
    with pytest.raises(gx.GenexpyInputError, match="list of conditions"):
        subset_agreement(st, "t01")
    with pytest.raises(gx.GenexpyInputError, match="more than once"):
        subset_agreement(st, ["t01", "t01", "t02"])
