"""Figure 1 (n-generalizability of one n) and n* against the kernels' parameters."""

import numpy as np
import polars as pl
import pytest

import genexpy_nb as gx
from genexpy_nb import GenexpyInputError
from genexpy_nb.charts.paper_figures import generalizability_example, nstar_by_parameter
from genexpy_nb.generalizability.sensitivity import (
    default_parameter_grid,
    nstar_by_kernel_parameter,
)


def _rows(chart):
    spec = chart.to_dict()
    return spec["layer"][0]["data"]["values"]


def test_example_shares_match_the_samples():
    rng = np.random.default_rng(0)
    x = rng.gamma(4.0, 0.05, size=500)
    frame = pl.DataFrame({"n": np.repeat([3, 6], 250), "mmd": x})
    eps = 0.2
    rows = _rows(generalizability_example(frame, 3, eps, bins=17))
    within = sum(r["pairs"] for r in rows if r["side"] == "within eps")
    total = sum(r["pairs"] for r in rows)
    sample = x[:250]
    assert total == pytest.approx(1.0)
    assert within == pytest.approx(np.mean(sample <= eps))
    # no bar labelled "within eps" starts right of eps
    assert all(r["lo"] <= eps for r in rows if r["side"] == "within eps")


def test_example_refuses_bad_input():
    frame = pl.DataFrame({"n": [2, 2], "mmd": [0.1, 0.2]})
    with pytest.raises(GenexpyInputError, match="n = 4"):
        generalizability_example(frame, 4, 0.1)
    with pytest.raises(GenexpyInputError, match="eps"):
        generalizability_example(frame, 2, -1.0)
    with pytest.raises(GenexpyInputError, match="mmd"):
        generalizability_example(pl.DataFrame({"n": [2]}), 2, 0.1)


def _study(seed=0, N=24, na=5):
    rng = np.random.default_rng(seed)
    strength = np.linspace(1.0, 0.0, na)
    rows = [{"dataset": f"d{d}", "method": f"m{a}",
             "score": float(strength[a] + rng.normal(0, 0.6))}
            for d in range(N) for a in range(na)]
    return gx.Study(pl.DataFrame(rows), alternatives="method", target="score",
                    higher_is_better=True, generalize="dataset")


def test_default_grid_values():
    g = default_parameter_grid(5, "m0")
    assert [v for v, _ in g["jaccard"]] == [1.0, 2.0, 3.0]       # k < na only
    assert g["borda"][2][0] == pytest.approx(1 / 5)
    assert g["mallows"][2][0] == pytest.approx(1 / 10)
    with pytest.raises(GenexpyInputError):
        default_parameter_grid(1)


def test_parameter_rows_agree_with_a_direct_analysis():
    study = _study()
    f = nstar_by_kernel_parameter(study, 0, borda_alternative="m0", rep=100, seed=3)
    assert set(f["kernel"].unique()) == {"borda", "jaccard", "mallows", "rbf"}
    assert f.filter(pl.col("default")).height == 4
    # the default Jaccard row is the plain analysis with the same seed
    direct = gx.GeneralizabilityAnalysis(study, [gx.Jaccard(k=1)], rep=100, seed=3,
                                         progress=False).nstar(0.95, 0.05, ["resample"])
    row = f.filter(pl.col("kernel") == "jaccard", pl.col("value") == 1.0)
    assert row["nstar"][0] == pytest.approx(direct["nstar"][0])
    # eps follows the parameter: for Mallows, eps = sqrt(2 (1 - exp(-nu C(na,2) delta)))
    m = f.filter(pl.col("kernel") == "mallows").sort("value")
    expect = np.sqrt(2 * (1 - np.exp(-m["value"].to_numpy() * 10 * 0.05)))
    np.testing.assert_allclose(m["eps"].to_numpy(), expect, rtol=1e-12)
    chart = nstar_by_parameter(f)
    assert chart.to_dict()["facet"]["field"] == "panel"


def test_parameter_grid_refuses_unknown_kernel():
    with pytest.raises(GenexpyInputError, match="unknown kernel"):
        nstar_by_kernel_parameter(_study(), 0, grid={"kendall": [(1.0, gx.Mallows())]})
