"""run_against_runs: one run against its other runs, against the variability API run by hand."""

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import genexpy_nb as gx
from genexpy_nb import variability as v
from genexpy_nb.evals import run_against_runs

HANS = Path(__file__).parents[1] / "data" / "evals" / "hans" / \
    "berts_of_a_feather_accuracies_by_run.csv"


def _matrix(R=5, T=60, seed=0, shift=0.0):
    """Runs × items scores: a shared item difficulty, run noise, the last run shifted."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=T)[None, :] + rng.normal(0, 0.3, (R, T))
    X[-1] += shift
    return X


def _long(X, model=None):
    R, T = X.shape
    df = pl.DataFrame({"run": np.repeat([f"r{r}" for r in range(R)], T),
                       "item": np.tile([f"i{t:03d}" for t in range(T)], R),
                       "score": X.ravel()})
    return df if model is None else df.with_columns(pl.lit(model).alias("model"))


def test_each_row_is_alpha_hat_of_the_run_against_the_others_by_hand():
    X = _matrix(R=5, T=60, shift=1.0)
    out = run_against_runs(_long(X), items="item", runs="run", target="score", B=30,
                           progress=False)
    assert out["run"].to_list() == [f"r{r}" for r in range(5)]
    for r in range(5):
        ref, cand = np.delete(X, r, axis=0), X[r]
        oracle = v.alpha_hat(ref, cand, B=30, progress=False, clip=None, seed=0).row(
            0, named=True)
        boot = v.alpha_hat_bootstrap(ref, cand, B=30, progress=False, clip=None, seed=0)
        row = out.row(r, named=True)
        assert row["alpha_hat"] == pytest.approx(oracle["alpha_hat"], abs=1e-12)
        assert row["alpha_hat_sd"] == pytest.approx(oracle["alpha_hat_sd"], abs=1e-12)
        assert row["alpha_hat_exact"] == pytest.approx(oracle["alpha_hat_exact"], abs=1e-12)
        assert row["tau"] == pytest.approx(oracle["tau"])
        assert row["d0"] == pytest.approx(float(v.ks_to_reference(ref, cand, clip=None)[0]))
        share = float((boot["alpha_hat_exact"].to_numpy() <= 0.05).mean())
        assert row["accept_share"] == pytest.approx(share)
        assert row["ref_runs"] == 4 and row["n_items"] == 60
        assert row["mean"] == pytest.approx(cand.mean())
        assert row["ref_mean"] == pytest.approx(ref.mean())
    # the shifted run stands out; the others look like draws of their pool
    assert out["alpha_hat"][4] > out["alpha_hat"][:4].max()
    assert out["accept_share"][4] < out["accept_share"][:4].min()


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), perm_seed=st.integers(0, 10_000))
def test_row_order_and_model_split_do_not_change_the_answer(seed, perm_seed):
    X, Y = _matrix(R=4, T=40, seed=seed), _matrix(R=3, T=40, seed=seed + 1, shift=0.5)
    both = pl.concat([_long(X, "a"), _long(Y, "b")], how="vertical")
    shuffled = both.sample(fraction=1.0, shuffle=True, seed=perm_seed)
    kw = dict(items="item", runs="run", target="score", B=10, progress=False)
    out = run_against_runs(shuffled, alternatives="model", **kw)
    assert out.drop("model").equals(pl.concat(
        [run_against_runs(_long(X), **kw), run_against_runs(_long(Y), **kw)]))
    assert out["model"].to_list() == ["a"] * 4 + ["b"] * 3
    assert out["alpha_hat"].is_between(0, 0.5).all() and out["d0"].is_between(0, 1).all()


def test_samples_are_averaged_within_a_run():
    rng = np.random.default_rng(3)
    p = rng.random((4, 50))
    rows = pl.DataFrame({"run": np.repeat(np.arange(4), 50 * 8),
                         "item": np.tile(np.repeat(np.arange(50), 8), 4),
                         "sample": np.tile(np.arange(8), 4 * 50),
                         "ok": (rng.random(4 * 50 * 8) < np.repeat(p.ravel(), 8)).astype(int)})
    share = rows.group_by("run", "item").agg(pl.col("ok").mean())
    kw = dict(items="item", runs="run", B=10, progress=False)
    assert run_against_runs(rows, target="ok", samples="sample", **kw).equals(
        run_against_runs(share, target="ok", **kw))


def test_items_a_run_lacks_are_left_out_and_counted():
    df = _long(_matrix(R=4, T=40))
    cut = df.filter(~((pl.col("run") == "r2") & pl.col("item").is_in(["i000", "i001"])))
    out = run_against_runs(cut, items="item", runs="run", target="score", B=5,
                           progress=False)
    assert (out["n_items"] == 38).all() and (out["items_left_out"] == 2).all()


@pytest.mark.parametrize("case, match", [
    ("binary", "0 or 1"),
    ("duplicate", "samples="),
    ("two_runs", "at least three"),
    ("few_items", "DKW threshold"),
    ("no_column", "not a column"),
    ("nan", "not finite"),
    ("alpha", "trimming level"),
])
def test_refusals_say_what_to_do(case, match):
    df = _long(_matrix(R=4, T=40))
    kw = dict(items="item", runs="run", target="score", B=5, progress=False)
    if case == "binary":
        df = df.with_columns((pl.col("score") > 0).cast(pl.Int8))
    elif case == "duplicate":
        df = pl.concat([df, df.head(3)])
    elif case == "two_runs":
        df = df.filter(pl.col("run").is_in(["r0", "r1"]))
    elif case == "few_items":
        df = df.filter(pl.col("item") < "i010")
    elif case == "no_column":
        kw["runs"] = "seed"
    elif case == "nan":
        df = df.with_columns(pl.when(pl.col("item") == "i003").then(np.nan)
                             .otherwise(pl.col("score")).alias("score"))
    else:
        kw["alpha"] = 0.7
    with pytest.raises(gx.GenexpyInputError, match=match):
        run_against_runs(df, **kw)


def test_input_is_not_modified():
    df = _long(_matrix(R=3, T=30))
    before = df.clone()
    run_against_runs(df.to_pandas(), items="item", runs="run", target="score", B=5,
                     progress=False)
    assert df.equals(before)


def test_hans_seeds_on_30_subcases_the_threshold_is_too_wide_to_reject():
    """100 BERT fine-tunings (McCoy et al. 2020): every run looks like a draw of the others.

    With 30 items the reference sample of a split has 15 values and tau = 0.66: the test
    accepts any run whose eCDF is within 0.66 of the pool's, so this says little.
    """
    wide = pl.read_csv(HANS).filter(pl.col("Run").str.starts_with("Run "))
    subcases = [c for c in wide.columns if c[:3] in ("ln_", "le_", "sn_", "se_", "cn_", "ce_")]
    long = wide.select("Run", *subcases).unpivot(index="Run", variable_name="subcase",
                                                 value_name="accuracy")
    out = gx.run_against_runs(long, items="subcase", runs="Run", target="accuracy", B=20,
                              progress=False)
    assert out.height == 100 and len(subcases) == 30
    assert out["tau"][0] == pytest.approx(v.dkw_threshold(15, 0.01)) and out["tau"][0] > 0.6
    assert (out["alpha_hat"] < 0.05).all() and (out["accept_share"] > 0.9).all()
    # the full-data distance, a description, is far below that threshold
    assert out["d0"].max() < 0.35


def test_a_generator_seed_gives_every_run_the_same_splits():
    X = _matrix(R=4, T=40)
    kw = dict(items="item", runs="run", target="score", B=10, progress=False)
    drawn = int(np.random.default_rng(7).integers(2**63 - 1))
    assert run_against_runs(_long(X), seed=np.random.default_rng(7), **kw).equals(
        run_against_runs(_long(X), seed=drawn, **kw))
    with pytest.raises(gx.GenexpyInputError, match="seed"):
        run_against_runs(_long(X), seed=-1, **kw)
