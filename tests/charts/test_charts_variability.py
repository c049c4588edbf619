"""Seed-variability chart builders, tested as data (chart.to_dict())."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from genexpy_nb import GenexpyInputError
from genexpy_nb.charts.variability import (
    alpha_hat_scatter,
    ecdf_chart,
    ensemble_size_chart,
    thin_ecdf,
    trimmed_distance_chart,
)


def ecdf_df(x, name):
    v, c = np.unique(x, return_counts=True)
    return pl.DataFrame({"model": name, "gap": v, "ecdf": np.cumsum(c) / len(x)})


def data_of(spec, layer=None):
    """The inline rows a (layer of a) chart spec draws."""
    node = spec if layer is None else spec["layer"][layer]
    name = node.get("data", spec.get("data", {})).get("name")
    return spec["datasets"][name]


def marks(spec):
    out = []
    for lay in spec.get("layer", [spec]):
        m = lay["mark"]
        out.append(m if isinstance(m, str) else m["type"])
    return out


# ---- eCDF -------------------------------------------------------------------------------
def test_thin_ecdf_keeps_ends_and_caps_rows():
    rng = np.random.default_rng(0)
    df = pl.concat([ecdf_df(rng.normal(size=3000), "a"), ecdf_df(rng.normal(size=50), "b")])
    th = thin_ecdf(df, max_points=100)
    a = th.filter(pl.col("model") == "a")
    assert a.height <= 100
    full_a = df.filter(pl.col("model") == "a")
    assert a["gap"][0] == full_a["gap"].min() and a["gap"][-1] == full_a["gap"].max()
    assert a["ecdf"][-1] == pytest.approx(1.0)
    assert th.filter(pl.col("model") == "b").height == 50  # small models untouched
    # thinned eCDF stays within ~1/max_points of the full one at the kept points
    assert np.all(np.diff(a["ecdf"].to_numpy()) <= 1.0 / 99 * 1.5 + 1e-12)


def test_thin_ecdf_bad_input():
    with pytest.raises(GenexpyInputError, match="max_points"):
        thin_ecdf(ecdf_df([1.0, 2.0], "a"), max_points=1)
    with pytest.raises(GenexpyInputError, match="ecdf"):
        thin_ecdf(pl.DataFrame({"model": ["a"], "gap": [0.0]}))


def test_ecdf_chart_spec():
    rng = np.random.default_rng(1)
    ch = ecdf_chart(ecdf_df(rng.normal(size=2000), "cand"),
                    ecdf_df(rng.normal(size=5000), "reference G_M"),
                    dashed=["reference G_M"], max_points=200, title="t")
    spec = ch.to_dict()
    assert spec["mark"]["type"] == "line" and spec["mark"]["interpolate"] == "step-after"
    assert spec["encoding"]["x"]["field"] == "gap"
    assert spec["encoding"]["y"]["scale"]["domain"] == [0, 1]
    assert spec["encoding"]["color"]["scale"]["domain"] == ["cand", "reference G_M"]
    rows = data_of(spec)
    per_model = pl.DataFrame(rows).group_by("model").len()
    assert per_model["len"].max() <= 200
    dashed = {r["model"]: r["dashed"] for r in rows}
    assert dashed == {"cand": False, "reference G_M": True}
    assert spec["title"] == "t"


def test_ecdf_chart_errors():
    with pytest.raises(GenexpyInputError, match="at least one"):
        ecdf_chart()
    with pytest.raises(GenexpyInputError, match="frames\\[0\\]"):
        ecdf_chart(pl.DataFrame({"gap": [0.0], "ecdf": [1.0]}))


# ---- alpha-hat scatter ----------------------------------------------------------------
def report(n=8, seed=0):
    rng = np.random.default_rng(seed)
    return pl.DataFrame({"candidate": np.arange(n), "alpha_hat": rng.random(n) * 0.3,
                         "accuracy": 0.8 + 0.1 * rng.random(n), "ece": rng.random(n) * 0.05,
                         "name": [f"seed {i}" for i in range(n)]})


def test_alpha_hat_scatter_highlight():
    rep = report()
    spec = alpha_hat_scatter(rep, "accuracy", highlight=3, name="name").to_dict()
    assert marks(spec) == ["circle", "point", "text"]
    rows = data_of(spec)
    assert [r["candidate"] for r in rows if r["selected"]] == [3]
    assert spec["layer"][0]["encoding"]["x"]["field"] == "accuracy"
    assert spec["layer"][0]["encoding"]["y"]["field"] == "alpha_hat"
    # the highlight layers only draw the selected row
    assert spec["layer"][1]["transform"] == [{"filter": "datum.selected"}]
    assert spec["layer"][2]["encoding"]["text"]["field"] == "model"
    # highlight by name works too; no highlight -> no row selected
    rows = data_of(alpha_hat_scatter(rep, "ece", highlight="seed 5", name="name").to_dict())
    assert [r["candidate"] for r in rows if r["selected"]] == [5]
    plain = alpha_hat_scatter(rep, "ece").to_dict()
    assert not any(r["selected"] for r in data_of(plain))
    # without a highlight, no layer of no rows (Vega warns of their infinite extent)
    assert marks(plain) == ["circle"]


def test_alpha_hat_scatter_errors():
    rep = report()
    with pytest.raises(GenexpyInputError, match="churn"):
        alpha_hat_scatter(rep, "churn")
    with pytest.raises(GenexpyInputError, match="highlight"):
        alpha_hat_scatter(rep, "accuracy", highlight=99)
    with pytest.raises(GenexpyInputError, match="numeric"):
        alpha_hat_scatter(rep, "name")


# ---- ensembles ----------------------------------------------------------------------------
def test_ensemble_size_chart_summary():
    rng = np.random.default_rng(2)
    ks = np.repeat([3, 5, 10], 10)
    vals = rng.random(30) * 0.2 / np.sqrt(ks)
    df = pl.DataFrame({"k": ks, "draw": np.tile(np.arange(10), 3), "alpha_hat": vals})
    spec = ensemble_size_chart(df, level=0.05).to_dict()
    assert marks(spec) == ["boxplot", "line", "rule"]
    summary = pl.DataFrame(data_of(spec, 1)).sort("k")
    for k in (3, 5, 10):
        v = vals[ks == k]
        row = summary.filter(pl.col("k") == k)
        assert row["mean"][0] == pytest.approx(v.mean())
        assert row["share_below"][0] == pytest.approx((v <= 0.05).mean())
    assert data_of(spec, 2) == [{"level": 0.05}]
    assert spec["layer"][0]["encoding"]["x"]["type"] == "ordinal"
    # other column, no level
    spec = ensemble_size_chart(df.rename({"alpha_hat": "ks"}), column="ks").to_dict()
    assert marks(spec) == ["boxplot", "line"]
    with pytest.raises(GenexpyInputError, match="alpha_hat"):
        ensemble_size_chart(df.drop("alpha_hat"))


# ---- trimmed distance ------------------------------------------------------------------
def curve():
    a = np.round(np.arange(0, 0.5, 0.05), 2)
    d = 0.2 * np.exp(-8 * a)
    return pl.DataFrame({"candidate": 0, "alpha": a, "d_mean": d, "d_lo": d * 0.8,
                         "d_hi": d * 1.2, "tau": 0.05})


def test_trimmed_distance_chart_rules_and_point():
    cur = curve()
    spec = trimmed_distance_chart(cur, alpha=0.2).to_dict()
    assert marks(spec) == ["area", "line", "rule", "rule", "point"]
    assert data_of(spec, 2) == [{"tau": 0.05}]
    pt = data_of(spec, 4)[0]
    assert pt["alpha"] == 0.2
    assert pt["d"] == pytest.approx(0.2 * np.exp(-1.6))
    assert pt["accepted"] is (pt["d"] <= 0.05)
    line = data_of(spec, 1)
    acc = {r["alpha"]: r["accepted"] for r in line}
    assert acc[0.0] is False and acc[0.45] is True


def test_trimmed_distance_chart_plain_curve_and_errors():
    cur = curve().select("alpha", pl.col("d_mean").alias("d"))
    spec = trimmed_distance_chart(cur, tau=0.1).to_dict()
    assert marks(spec) == ["line", "rule"]
    assert data_of(spec, 1) == [{"tau": 0.1}]
    with pytest.raises(GenexpyInputError, match="tau"):
        trimmed_distance_chart(cur)
    with pytest.raises(GenexpyInputError, match="alpha"):
        trimmed_distance_chart(pl.DataFrame({"d": [0.1]}), tau=0.1)


def test_builders_are_exported_by_the_charts_package():
    import genexpy_nb.charts as charts
    from genexpy_nb.charts import variability

    for name in ("ecdf_chart", "alpha_hat_scatter", "ensemble_size_chart",
                 "trimmed_distance_chart", "thin_ecdf"):
        assert name in charts.__all__
        assert getattr(charts, name) is getattr(variability, name)
