"""eval_noise: items × runs × tasks, against plain formulas, statsmodels and scipy."""

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import genexpy_nb as gx
from genexpy_nb.evals import eval_noise


def _long(ya, yb, names=("a", "b")):
    """(T, N, K) arrays of two models into the long table."""
    T, N, K = ya.shape
    t, i, k = (g.ravel() for g in np.meshgrid(np.arange(T), np.arange(N), np.arange(K),
                                              indexing="ij"))
    return pl.DataFrame({"model": [names[0]] * ya.size + [names[1]] * yb.size,
                         "task": np.r_[t, t], "item": np.r_[i, i], "run": np.r_[k, k],
                         "y": np.r_[ya.ravel(), yb.ravel()].astype(np.float64)})


def _binary(T, N, K, seed=0, shift=0.3):
    rng = np.random.default_rng(seed)
    th = rng.normal(size=(T, N))
    u = rng.normal(0, 0.5, T)[:, None]
    pa = 1 / (1 + np.exp(-(th + u + shift)))
    pb = 1 / (1 + np.exp(-th))
    return rng.random((T, N, K)) < pa[..., None], rng.random((T, N, K)) < pb[..., None]


def test_one_run_no_tasks_is_the_paired_se_and_mcnemar():
    ya, yb = _binary(1, 300, 1)
    df = _long(ya, yb).drop("task", "run")
    noise = eval_noise(df, alternatives="model", target="y", items="item",
                       higher_is_better=True)
    d = ya.ravel().astype(float) - yb.ravel()
    assert noise.se("a", "b") == pytest.approx(d.std(ddof=1) / np.sqrt(d.size))
    assert noise.components["level"].to_list() == ["item+run"]
    assert noise.components["variance"].item() == pytest.approx(d.var(ddof=1) / d.size)
    assert "cannot be separated" in noise.notes[0]
    with pytest.raises(gx.GenexpyInputError, match="cannot be separated"):
        noise.se("a", "b", runs=3)
    assert noise.se("a", "b", items=1200) == pytest.approx(noise.se("a", "b") / 2)
    res = noise.paired_test("a", "b")
    b = int(((ya.ravel() == 1) & (yb.ravel() == 0)).sum())
    c = int(((ya.ravel() == 0) & (yb.ravel() == 1)).sum())
    from statsmodels.stats.contingency_tables import mcnemar

    assert res["method"] == "McNemar exact"
    assert res["pvalue"] == pytest.approx(mcnemar([[0, b], [c, 0]], exact=True).pvalue)
    assert noise.paired_test("b", "a")["diff"] == pytest.approx(-res["diff"])


def test_clustered_se_equals_statsmodels_cluster_ols():
    import statsmodels.api as sm

    ya, yb = _binary(8, 15, 1, seed=3)
    noise = eval_noise(_long(ya, yb), alternatives="model", target="y", items="item",
                       tasks="task", higher_is_better=True)
    d = (ya.astype(float) - yb).ravel()
    groups = np.repeat(np.arange(8), 15)
    fit = sm.OLS(d, np.ones_like(d)).fit(cov_type="cluster", cov_kwds={"groups": groups})
    assert noise.se("a", "b") == pytest.approx(fit.bse[0], rel=1e-10)
    res = noise.paired_test("a", "b")
    assert res["dof"] == 7 and "cluster" in res["method"]
    assert res["statistic"] == pytest.approx(fit.params[0] / fit.bse[0])
    assert any("few tasks" in n for n in noise.notes)


def test_tasks_weighted_equally_and_fixed_tasks():
    ya, yb = _binary(20, 10, 1, seed=4)
    # unequal items per task: drop half the items of the first 5 tasks
    df = _long(ya, yb).filter(~((pl.col("task") < 5) & (pl.col("item") >= 5)))
    dd = df.pivot(on="model", index=["task", "item"], values="y").with_columns(
        d=pl.col("a") - pl.col("b"))
    m_t = dd.group_by("task").agg(pl.col("d").mean())["d"].to_numpy()
    nt = eval_noise(df, alternatives="model", target="y", items="item", tasks="task",
                    weighting="tasks", higher_is_better=True)
    assert nt.summary["diff"].item() == pytest.approx(m_t.mean())
    assert nt.se("a", "b") == pytest.approx(m_t.std(ddof=1) / np.sqrt(m_t.size))
    fixed = eval_noise(df, alternatives="model", target="y", items="item", tasks="task",
                       tasks_sampled=False, higher_is_better=True)
    g = dd.group_by("task").agg(n=pl.len(), s2=pl.col("d").var(ddof=1))
    want = (g["n"] * g["s2"]).sum() / dd.height**2
    assert fixed.se("a", "b") == pytest.approx(np.sqrt(want))
    assert "task" not in fixed.components["level"].to_list()


def test_runs_part_and_unequal_runs_by_model():
    rng = np.random.default_rng(5)
    ya, yb = _binary(1, 200, 6, seed=5)
    df = _long(ya, yb).drop("task")
    df = df.filter((pl.col("model") == "a") | (pl.col("run") < 2))  # K_a = 6, K_b = 2
    noise = eval_noise(df, alternatives="model", target="y", items="item", runs="run",
                       higher_is_better=True)
    va = ya[0].astype(float).var(axis=1, ddof=1).mean()
    vb = yb[0, :, :2].astype(float).var(axis=1, ddof=1).mean()
    comp = dict(noise.components.select("level", "variance").iter_rows())
    assert comp["run"] == pytest.approx((va / 6 + vb / 2) / 200)
    s = noise.summary.row(0, named=True)
    assert (s["runs_a"], s["runs_b"]) == (6.0, 2.0)
    # the parts add up to the direct estimate (no part clamped here)
    assert comp["run"] + comp["item"] == pytest.approx(noise.se("a", "b") ** 2)
    assert noise.se("a", "b", runs=(6, 2)) == pytest.approx(noise.se("a", "b"))
    assert noise.se("a", "b", runs=100) < noise.se("a", "b")
    del rng


def test_missing_items_pair_on_shared_items_and_input_untouched():
    ya, yb = _binary(4, 30, 2, seed=6)
    df = _long(ya, yb)
    pdf = df.to_pandas()
    before = pdf.copy()
    holes = df.filter(~((pl.col("model") == "b") & (pl.col("item") < 3)))
    got = eval_noise(holes.to_pandas(), alternatives="model", target="y", items="item",
                     runs="run", tasks="task", higher_is_better=True)
    want = eval_noise(df.filter(pl.col("item") >= 3), alternatives="model", target="y",
                      items="item", runs="run", tasks="task", higher_is_better=True)
    for col in ("diff", "se", "n_items", "n_tasks", "runs_a", "runs_b"):
        assert got.summary[col].item() == pytest.approx(want.summary[col].item()), col
    assert got.summary["n_items"].item() == 4 * 27
    pd.testing.assert_frame_equal(pdf, before)


def test_plan_reaches_the_target_and_mde():
    ya, yb = _binary(30, 20, 3, seed=7)
    noise = eval_noise(_long(ya, yb), alternatives="model", target="y", items="item",
                       runs="run", tasks="task", higher_is_better=True)
    target = noise.se("a", "b") / 2
    plans = noise.plan("a", "b", target_se=target, cost={"tasks": 50, "runs": 1})
    assert plans.height >= 1 and (plans["se"] <= target).all()
    assert plans["cost"].is_sorted()
    for row in plans.iter_rows(named=True):
        assert noise.se("a", "b", runs=row["runs"], items=row["items"],
                        tasks=row["tasks"]) == pytest.approx(row["se"])
    from scipy import stats

    q = stats.t(29)
    assert noise.mde("a", "b") == pytest.approx((q.ppf(0.975) + q.ppf(0.8))
                                                * noise.se("a", "b"))
    with pytest.raises(gx.GenexpyInputError, match="target_se"):
        noise.plan("a", "b", target_se=0)


def test_tie_groups_separate_a_clearly_better_model():
    rng = np.random.default_rng(8)
    n = 400
    p = {"best": 0.9, "twin": 0.89, "weak": 0.4}
    df = pl.DataFrame({"model": np.repeat(list(p), n), "item": np.tile(np.arange(n), 3),
                       "y": np.concatenate([rng.random(n) < v for v in p.values()]
                                           ).astype(float)})
    noise = eval_noise(df, alternatives="model", target="y", items="item",
                       higher_is_better=True)
    g = noise.tie_groups()
    assert g["model"].to_list()[-1] == "weak"
    groups = dict(zip(g["model"], g["group"]))
    assert groups["best"] == groups["twin"] == 1 and groups["weak"] == 2
    with pytest.raises(gx.GenexpyInputError, match="direction"):
        eval_noise(df, alternatives="model", target="y", items="item",
                   pairs=[("best", "twin")]).tie_groups()


def test_bad_input_is_named():
    df = pl.DataFrame({"model": ["a", "a", "b"], "item": [1, 1, 1], "y": [1.0, 0.0, 1.0]})
    with pytest.raises(gx.GenexpyInputError, match="runs="):
        eval_noise(df, alternatives="model", target="y", items="item", higher_is_better=True)
    with pytest.raises(gx.GenexpyInputError, match="'nope'"):
        eval_noise(df, alternatives="model", target="nope", items="item", higher_is_better=True)
    with pytest.raises(gx.GenexpyInputError, match="share 1 item"):
        eval_noise(df.unique(["model", "item"]), alternatives="model", target="y",
                   items="item", higher_is_better=True)
    with pytest.raises(gx.GenexpyInputError, match="weighting"):
        eval_noise(df, alternatives="model", target="y", items="item", weighting="x",
                   higher_is_better=True)


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 6), st.integers(2, 8), st.integers(1, 3), st.integers(0, 10**6))
def test_swapping_the_models_flips_the_difference_only(T, N, K, seed):
    ya, yb = _binary(T, N, K, seed=seed)
    df = _long(ya, yb)
    kw = dict(alternatives="model", target="y", items="item", runs="run", tasks="task")
    ab = eval_noise(df, pairs=[("a", "b")], **kw)
    ba = eval_noise(df, pairs=[("b", "a")], **kw)
    assert ba.summary["diff"].item() == pytest.approx(-ab.summary["diff"].item(), abs=1e-12)
    assert ba.se("b", "a") == pytest.approx(ab.se("a", "b"), abs=1e-12)
    assert (ab.components["variance"] >= 0).all()


def test_stated_probabilities_separate_runs_from_items_with_one_run():
    """eval-arena's estimator: with each item's probability p of a right answer, the run
    variance of a 0/1 outcome is p (1 - p), so one run per item is enough to split."""
    rng = np.random.default_rng(9)
    n = 3000
    pa, pb = rng.beta(2, 2, n), rng.beta(2, 3, n)
    ya, yb = rng.random(n) < pa, rng.random(n) < pb
    df = pl.DataFrame({"model": ["a"] * n + ["b"] * n, "item": np.r_[np.arange(n), np.arange(n)],
                       "y": np.r_[ya, yb].astype(float), "p": np.r_[pa, pb]})
    noise = eval_noise(df, alternatives="model", target="y", items="item", probability="p",
                       pairs=[("a", "b")])
    comp = dict(noise.components.select("level", "variance").iter_rows())
    want_run = float((pa * (1 - pa) + pb * (1 - pb)).mean()) / n
    assert comp["run"] == pytest.approx(want_run)
    # the item part: the variance of the expected differences, pa - pb
    assert comp["item"] * n == pytest.approx(np.var(pa - pb, ddof=1), rel=0.25)
    assert noise.se("a", "b", runs=10) < noise.se("a", "b")
    assert not noise.notes
    with pytest.raises(gx.GenexpyInputError, match="not probabilities"):
        eval_noise(df.with_columns(p=pl.col("p") * 2), alternatives="model", target="y",
                   items="item", probability="p", higher_is_better=True)


def test_boolean_correctness_and_non_numeric_target():
    df = pl.DataFrame({"model": ["a"] * 4 + ["b"] * 4, "item": [0, 1, 2, 3] * 2,
                       "ok": [True, False, True, True, False, False, True, False]})
    noise = eval_noise(df, alternatives="model", target="ok", items="item", higher_is_better=True)
    assert noise.summary["diff"].item() == pytest.approx(0.5)
    with pytest.raises(gx.GenexpyInputError, match="not numeric"):
        eval_noise(df.with_columns(pl.col("ok").cast(pl.String)), alternatives="model",
                   target="ok", items="item", higher_is_better=True)


@pytest.mark.parametrize("weighting", ["items", "tasks"])
@pytest.mark.parametrize("sampled", [True, False])
@pytest.mark.parametrize("runs", [1, 3])
@pytest.mark.parametrize("with_tasks", [True, False])
def test_tie_groups_vectorised_tests_equal_the_pairwise_ones(weighting, sampled, runs,
                                                            with_tasks):
    from genexpy_nb.evals.noise import _batch_pvalues

    rng = np.random.default_rng(10)
    A, T, N = 6, 7, 9
    ability = rng.normal(0, 0.3, A)
    th = rng.normal(size=(T, N))
    p = 1 / (1 + np.exp(-(ability[:, None, None] + th[None])))
    y = rng.random((A, T, N, runs)) < p[..., None]
    m, t, i, k = (g.ravel() for g in np.meshgrid(np.arange(A), np.arange(T), np.arange(N),
                                                 np.arange(runs), indexing="ij"))
    df = pl.DataFrame({"model": [f"m{j}" for j in m], "task": t, "item": i, "run": k,
                       "y": y.ravel().astype(float)})
    df = df.filter(~((pl.col("model") == "m2") & (pl.col("item") < 3)))  # holes
    if not with_tasks:
        df = df.with_columns(item=pl.col("task") * 100 + pl.col("item")).drop("task")
    noise = eval_noise(df, alternatives="model", target="y", items="item", runs="run",
                       tasks="task" if with_tasks else None, weighting=weighting,
                       tasks_sampled=sampled, higher_is_better=True)
    red = noise._red
    for il in range(A):
        others = np.array([j for j in range(A) if j != il])
        got = _batch_pvalues(red, il, others, noise.weighting, noise.tasks_sampled)
        want = [noise.paired_test(red.models[il], red.models[j])["pvalue"] for j in others]
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


def test_lazy_parquet_input_equals_the_frame(tmp_path):
    ya, yb = _binary(5, 12, 2, seed=11)
    df = _long(ya, yb)
    df.write_parquet(tmp_path / "logs.parquet")
    kw = dict(alternatives="model", target="y", items="item", runs="run", tasks="task")
    eager = eval_noise(df, **kw, higher_is_better=True)
    lazy = eval_noise(pl.scan_parquet(tmp_path / "logs.parquet"), **kw, higher_is_better=True)
    assert lazy.summary.equals(eager.summary)
    assert lazy.components.equals(eager.components)


def test_degenerate_tables_are_named():
    one = pl.DataFrame({"model": ["a", "a"], "item": [1, 2], "y": [1.0, 0.0]})
    with pytest.raises(gx.GenexpyInputError, match="at least two"):
        eval_noise(one, alternatives="model", target="y", items="item", higher_is_better=True)
    holes = pl.DataFrame({"model": ["a", "b"], "item": [1, None], "y": [1.0, 0.0]})
    with pytest.raises(gx.GenexpyInputError, match="null"):
        eval_noise(holes, alternatives="model", target="y", items="item", higher_is_better=True)
    nan = pl.DataFrame({"model": ["a", "b"], "item": [1, 1], "y": [1.0, float("nan")]})
    with pytest.raises(gx.GenexpyInputError, match="not finite"):
        eval_noise(nan, alternatives="model", target="y", items="item", higher_is_better=True)
    with pytest.raises(gx.GenexpyInputError, match="two roles"):
        eval_noise(nan, alternatives="model", target="y", items="model", higher_is_better=True)


def test_no_default_direction():
    """The leaderboard's order needs the direction: refused, never assumed high-first."""
    ya, yb = _binary(1, 50, 1, seed=2)
    df = _long(ya, yb).drop("task", "run")
    kw = dict(alternatives="model", target="y", items="item")
    with pytest.raises(gx.GenexpyInputError,
                       match=r"higher_is_better=True .* no default direction") as err:
        eval_noise(df, **kw)
    assert "no higher_is_better column" in str(err.value)
    for vals in ([True, False], [None, None]):
        mixed = df.with_columns(higher_is_better=pl.Series(vals * (df.height // 2),
                                                           dtype=pl.Boolean))
        with pytest.raises(gx.GenexpyInputError, match="higher_is_better column holds"):
            eval_noise(mixed, **kw)
    # stated, by the argument or by the readers' column: the same answer; lower-is-better
    # flips the pair's orientation
    high = eval_noise(df, **kw, higher_is_better=True)
    col = eval_noise(df.with_columns(higher_is_better=pl.lit(True)), **kw)
    assert col.summary.equals(high.summary)
    low = eval_noise(df, **kw, higher_is_better=False)
    assert low.summary["a"].item() == high.summary["b"].item()
    assert low.summary["diff"].item() == -high.summary["diff"].item()
    # pairs named: no order needed; tie groups still need the direction
    named = eval_noise(df, **kw, pairs=[("a", "b")])
    assert named.higher_is_better is None
    with pytest.raises(gx.GenexpyInputError, match="direction"):
        named.tie_groups()
