"""Charts of the Bayesian tests, aggregates, profiles and rank probabilities: valid
Vega-Lite, the numbers of the frame in the spec, hostile names drawable."""

import numpy as np
import polars as pl
import pytest

from genexpy_nb import GenexpyInputError, charts
from genexpy_nb import aggregates as ag
from genexpy_nb.charts.export import save_chart
from genexpy_nb.significance import bayesian_signed_rank, correlated_bayesian_ttest

BAD = "m\x1b<script>\u2028"


def _values(spec):
    out = []
    if isinstance(spec, dict):
        if "values" in spec and isinstance(spec["values"], list):
            out.extend(spec["values"])
        for v in spec.values():
            out.extend(_values(v))
    elif isinstance(spec, list):
        for v in spec:
            out.extend(_values(v))
    return out


def test_signed_rank_simplex_points_inside_triangle():
    rng = np.random.default_rng(0)
    x = rng.uniform(0.7, 0.9, 20)
    res = bayesian_signed_rank(x, x + rng.normal(0.01, 0.02, 20), rope=0.01,
                               higher_is_better=True, nsamples=5000, names=(BAD, "b"))
    spec = charts.bayesian_posterior(res, max_points=500).to_dict()
    pts = [v for v in _values(spec) if "rope" in v and "x" in v]
    assert len(pts) == 500
    for v in pts:
        assert -1e-9 <= v["y"] <= np.sqrt(3) / 2 + 1e-9
        assert v["x"] == pytest.approx(v["right"] + 0.5 * v["rope"])
    assert "\x1b" not in str(spec) and "\u2028" not in str(spec)


def test_ttest_density_integrates_to_one():
    rng = np.random.default_rng(1)
    x = rng.uniform(0.7, 0.9, 30)
    res = correlated_bayesian_ttest(x, x + rng.normal(0.01, 0.01, 30), rope=0.01, runs=3,
                                    higher_is_better=True)
    spec = charts.bayesian_posterior(res).to_dict()
    curve = [v for v in _values(spec) if "density" in v]
    xs = np.array([v["difference"] for v in curve])
    d = np.array([v["density"] for v in curve])
    assert np.trapezoid(d, xs) == pytest.approx(1.0, abs=1e-3)
    with pytest.raises(GenexpyInputError, match="BayesianResult"):
        charts.bayesian_posterior(3)


def test_aggregate_profile_heatmap_charts(tmp_path):
    rng = np.random.default_rng(2)
    scores = {BAD: rng.normal(size=(5, 6)), "B": rng.normal(0.5, 1, size=(5, 6))}
    f = ag.interval_estimates(scores, reps=200, progress=False)
    spec = charts.aggregate_intervals(f).to_dict()
    vals = _values(spec)
    assert len(vals) == f.height
    assert sorted(v["estimate"] for v in vals) == sorted(f["estimate"].to_list())
    prof = ag.performance_profile(scores, reps=100, progress=False)
    assert len(_values(charts.performance_profiles(prof).to_dict())) == prof.height
    rp = pl.DataFrame({"alternative": [BAD, BAD, "b", "b"], "rank": [1, 2, 1, 2],
                       "probability": [0.2, 0.8, 0.8, 0.2]})
    heat = charts.rank_probability_heatmap(rp)
    spec = heat.to_dict()
    assert spec["layer"][0]["encoding"]["y"]["sort"][0] == "b"
    save_chart(heat, tmp_path / "heat.svg")
    assert (tmp_path / "heat.svg").stat().st_size > 0
    with pytest.raises(GenexpyInputError):
        charts.rank_probability_heatmap(pl.DataFrame({"x": [1]}))
