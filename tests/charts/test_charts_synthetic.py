"""Charts of the known-distribution experiments, tested as data (chart.to_dict())."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

from genexpy_nb import GenexpyInputError
from genexpy_nb.charts import ngen_by_significance, nstar_ratio_boxplots


def _ratios():
    rng = np.random.default_rng(0)
    rows = []
    for N in (10, 20, 40):
        for lab in ("Jaccard(k=1)", "Mallows"):
            r = np.exp(rng.normal(0, 1.0 / math.sqrt(N / 5), size=30))
            rows += [{"N": N, "kernel_label": lab, "ratio": float(v)} for v in r]
    rows.append({"N": 10, "kernel_label": "Mallows", "ratio": float("nan")})
    rows.append({"N": 10, "kernel_label": "Mallows", "ratio": 50.0})  # an outlier
    return pl.DataFrame(rows)


def _values(spec, layer, parent=None):
    """Inline values of a layer (its own data, else its parent's; maybe consolidated)."""
    d = layer.get("data") or (parent or spec)["data"]
    return d["values"] if "values" in d else spec["datasets"][d["name"]]


def test_ratio_boxplots_spec():
    df = _ratios()
    spec = nstar_ratio_boxplots(df).to_dict()
    marks = [l_["mark"]["type"] if isinstance(l_["mark"], dict) else l_["mark"]
             for l_ in spec["layer"]]
    assert marks[:2] == ["rect", "rule"] and {"bar", "tick", "point"} <= set(marks)
    band = spec["layer"][0]
    assert _values(spec, band) == [{"lo": 0.5, "hi": 2.0}]
    box = next(l_ for l_ in spec["layer"] if (l_["mark"]["type"] == "bar"))
    assert box["encoding"]["y"]["scale"]["type"] == "log"
    assert box["encoding"]["xOffset"]["field"] == "kernel_label"
    stats = pl.DataFrame(_values(spec, box))
    assert stats.height == 6 and stats["count"].sum() == df.height - 1  # NaN left out
    # medians are the data's medians (of log ratio: the geometric midpoint for even counts)
    med = (df.filter(pl.col("ratio").is_finite()).group_by("N", "kernel_label")
           .agg((10.0 ** pl.col("ratio").log10().median()).alias("ratio")))
    j = stats.join(med, on=["N", "kernel_label"])
    np.testing.assert_allclose(j["median"], j["ratio"], rtol=1e-9)
    pts = next(l_ for l_ in spec["layer"] if l_["mark"]["type"] == "point")
    assert 50.0 in [round(v["ratio"], 9) for v in _values(spec, pts)]
    sub = " ".join(spec["title"]["subtitle"])
    assert "N=10" in sub and "1 undefined" in sub


def test_ratio_boxplots_share_in_subtitle_is_correct():
    df = pl.DataFrame({"N": [20] * 4, "kernel_label": ["J"] * 4, "ratio": [0.4, 1.0, 1.5, 3]})
    sub = nstar_ratio_boxplots(df).to_dict()["title"]["subtitle"][0]
    assert "N=20: 50%" in sub


def test_ratio_boxplots_empty_and_bad():
    empty = pl.DataFrame(schema={"N": pl.Int64, "kernel_label": pl.String, "ratio": pl.Float64})
    assert nstar_ratio_boxplots(empty).to_dict()["mark"]["type"] == "text"
    nan = pl.DataFrame({"N": [10], "kernel_label": ["J"], "ratio": [float("nan")]})
    assert nstar_ratio_boxplots(nan).to_dict()["mark"]["type"] == "text"
    with pytest.raises(GenexpyInputError, match="ratio"):
        nstar_ratio_boxplots(pl.DataFrame({"N": [1], "kernel_label": ["J"]}))
    with pytest.raises(GenexpyInputError, match="band"):
        nstar_ratio_boxplots(_ratios(), band=(2, 0.5))


def test_ngen_by_significance_spec():
    df = pl.DataFrame({
        "ci_significant": [True, True, False, False, False, False],
        "best": ["0", "1", "0", "{0,1}", "1", "0"],
        "ngen": [0.7, 0.75, 0.72, 0.82, 0.6, 0.8],
    })
    spec = ngen_by_significance(df, n_gen=10).to_dict()
    assert len(spec["hconcat"]) == 2
    left, right = spec["hconcat"]
    lbox = next(l_ for l_ in left["layer"] if l_["mark"]["type"] == "bar")
    st = pl.DataFrame(_values(spec, lbox, left)).sort("C-I significant")
    assert st["count"].to_list() == [4, 2]
    assert lbox["encoding"]["y"]["scale"]["domain"] == [0.55, 1.0]  # from the lowest ngen
    rule = next(l_ for l_ in right["layer"] if l_["mark"]["type"] == "rule")
    assert rule["encoding"]["y"]["axis"]["title"] == "10-generalizability"
    assert rule["encoding"]["x"]["sort"] == ["0", "1", "{0,1}"]
    assert "C-I significant true: 2" in spec["title"]["subtitle"]


def test_ngen_by_significance_empty_and_bad():
    empty = pl.DataFrame(schema={"ci_significant": pl.Boolean, "best": pl.String,
                                 "ngen": pl.Float64})
    assert ngen_by_significance(empty).to_dict()["mark"]["type"] == "text"
    with pytest.raises(GenexpyInputError, match="ngen"):
        ngen_by_significance(pl.DataFrame({"ci_significant": [True], "best": ["0"]}))
