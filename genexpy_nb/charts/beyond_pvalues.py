"""Charts of the comparisons beyond p-values: pure functions from results to Altair charts.

* :func:`bayesian_posterior` — the posterior of a Bayesian comparison (Benavoli et al.
  2017): the simplex of (left, rope, right) for the signed-rank and sign tests, the density
  of the mean difference for the correlated t-test;
* :func:`aggregate_intervals` — point estimates and stratified-bootstrap intervals per
  aggregate and alternative (Agarwal et al. 2021, Fig. 1);
* :func:`performance_profiles` — score distributions with their bands;
* :func:`rank_probability_heatmap` — the probability of each place per alternative.

Names from data go through :func:`genexpy_nb._escape.drawable`, as in the other charts.
"""

from __future__ import annotations

import math
from typing import Any

import altair as alt
import numpy as np
import polars as pl

from .._escape import drawable
from .._validation import GenexpyInputError
from .base import WIDTH, ch, data_of, frame_of, heading, tip_of

__all__ = ["bayesian_posterior", "aggregate_intervals", "performance_profiles",
           "rank_probability_heatmap"]

_SQRT3_2 = math.sqrt(3) / 2


def _clean(df: pl.DataFrame) -> pl.DataFrame:
    """Return ``df`` with its string columns made drawable by every renderer."""
    fix = [pl.col(c).map_elements(drawable, return_dtype=pl.String)
           for c, t in df.schema.items() if t == pl.String]
    return df.with_columns(fix) if fix else df


def bayesian_posterior(result: Any, *, max_points: int = 3000, seed: int = 0,
                       width: int = WIDTH) -> alt.LayerChart:
    """Draw the posterior of a Bayesian comparison.

    Parameters
    ----------
    result : BayesianResult
        From :func:`~genexpy_nb.significance.bayesian_signed_rank`,
        :func:`~genexpy_nb.significance.bayesian_sign_test` (drawn as points in the
        triangle of (left, rope, right): a point near a corner is a posterior sample in
        which that outcome is almost sure) or
        :func:`~genexpy_nb.significance.correlated_bayesian_ttest` (the Student density of
        the mean difference, with the rope shaded).
    max_points : int
        At most this many posterior samples are drawn in the simplex (a seeded subsample).
    seed : int
        Seed of that subsample.
    width : int
        Width in pixels.

    Returns
    -------
    altair.LayerChart

    Examples
    --------
    >>> from genexpy_nb.significance import bayesian_signed_rank
    >>> res = bayesian_signed_rank([0.8, 0.7, 0.9, 0.6, 0.75], [0.82, 0.71, 0.93, 0.6, 0.8],
    ...                            rope=0.01, higher_is_better=True, nsamples=2000)
    >>> type(bayesian_posterior(res)).__name__
    'LayerChart'
    """
    if not hasattr(result, "probs") or not hasattr(result, "sample"):
        raise GenexpyInputError("result must be a BayesianResult (from bayesian_signed_rank, "
                                "bayesian_sign_test or correlated_bayesian_ttest).")
    left, right = (drawable(str(n)) for n in result.names)
    p = result.probs
    sub = (f"P({left} better) = {p[0]:.3f}, P(rope) = {p[1]:.3f}, "
           f"P({right} better) = {p[2]:.3f}; rope = {result.rope:g}")
    sample = np.asarray(result.sample)
    if sample.ndim == 1:
        return _density(result, sample, left, right, sub, width)
    if sample.shape[0] > max_points:
        keep = np.random.default_rng(seed).choice(sample.shape[0], max_points, replace=False)
        sample = sample[np.sort(keep)]
    # barycentric (left, rope, right) -> plane: left at (0, 0), right at (1, 0), rope on top
    x = sample[:, 2] + 0.5 * sample[:, 1]
    y = _SQRT3_2 * sample[:, 1]
    pts = pl.DataFrame({"x": x, "y": y, "left": sample[:, 0], "rope": sample[:, 1],
                        "right": sample[:, 2]})
    tri = pl.DataFrame({"x": [0.0, 1.0, 0.5, 0.0], "y": [0.0, 0.0, _SQRT3_2, 0.0],
                        "o": [0, 1, 2, 3]})
    corners = pl.DataFrame({"x": [0.0, 1.0, 0.5], "y": [-0.06, -0.06, _SQRT3_2 + 0.04],
                            "label": [f"{left} better", f"{right} better", "rope"]})
    xs = alt.Scale(domain=[-0.15, 1.15])
    ys = alt.Scale(domain=[-0.12, _SQRT3_2 + 0.1])
    no_axis = alt.Axis(title=None, labels=False, ticks=False, grid=False, domain=False)
    edges = alt.Chart(data_of(tri)).mark_line(color="gray").encode(
        ch(alt.X, "x", "Q", scale=xs, axis=no_axis), ch(alt.Y, "y", "Q", scale=ys, axis=no_axis),
        ch(alt.Order, "o", "Q"))
    dots = alt.Chart(data_of(pts)).mark_circle(size=8, opacity=0.3, color="steelblue").encode(
        ch(alt.X, "x", "Q", scale=xs, axis=no_axis), ch(alt.Y, "y", "Q", scale=ys, axis=no_axis),
        tooltip=[tip_of("left", "Q", format=".3f"), tip_of("rope", "Q", format=".3f"),
                 tip_of("right", "Q", format=".3f")])
    text = alt.Chart(data_of(corners)).mark_text(fontSize=12).encode(
        ch(alt.X, "x", "Q", scale=xs, axis=no_axis), ch(alt.Y, "y", "Q", scale=ys, axis=no_axis),
        ch(alt.Text, "label", "N"))
    return alt.LayerChart(layer=[edges, dots, text], width=width, height=int(width * 0.9),
                          title=heading(f"Posterior of the {result.test}", sub))


def _density(result, sample, left, right, sub, width):
    from scipy import stats

    mean, scale, df = float(result.mean), float(result.scale), float(result.df)
    if not (math.isfinite(scale) and scale > 0):
        lo, hi = float(sample.min()) - 1e-3, float(sample.max()) + 1e-3
        xs = np.linspace(lo, hi, 3)
        dens = np.zeros(3)
    else:
        lo = min(mean - 4 * scale, -2 * result.rope)
        hi = max(mean + 4 * scale, 2 * result.rope)
        xs = np.linspace(lo, hi, 400)
        dens = stats.t.pdf(xs, df, loc=mean, scale=scale)
    curve = pl.DataFrame({"difference": xs, "density": dens})
    rope = pl.DataFrame({"lo": [-result.rope], "hi": [result.rope]})
    x_title = f"mean difference in favour of {right} (posterior)"
    line = alt.Chart(data_of(curve)).mark_area(opacity=0.35, line=True).encode(
        ch(alt.X, "difference", "Q", title=x_title), ch(alt.Y, "density", "Q"))
    band = alt.Chart(data_of(rope)).mark_rect(color="gray", opacity=0.2).encode(
        ch(alt.X, "lo", "Q"), ch(alt.X2, "hi"))
    return alt.LayerChart(layer=[band, line], width=width, height=int(width * 0.6),
                          title=heading(f"Posterior of the {result.test}", sub))


def aggregate_intervals(frame: Any, *, width: int = 180) -> alt.FacetChart:
    """Point estimates with their confidence intervals, one panel per aggregate.

    Parameters
    ----------
    frame : polars / pandas DataFrame
        From :func:`genexpy_nb.aggregates.interval_estimates` (or
        :func:`~genexpy_nb.aggregates.iqm` ...): ``alternative, aggregate, estimate, low,
        high``.
    width : int
        Width of one panel in pixels.

    Returns
    -------
    altair.FacetChart

    Examples
    --------
    >>> import numpy as np
    >>> from genexpy_nb import aggregates as ag
    >>> rng = np.random.default_rng(0)
    >>> f = ag.interval_estimates({"A": rng.normal(size=(5, 4)), "B": rng.normal(size=(5, 4))},
    ...                           reps=200, progress=False)
    >>> type(aggregate_intervals(f)).__name__
    'FacetChart'
    """
    df = _clean(frame_of(frame, "frame", ["alternative", "aggregate", "estimate", "low",
                                          "high"]))
    order = df["alternative"].unique(maintain_order=True).to_list()
    y = ch(alt.Y, "alternative", "N", sort=order, title=None)
    base = alt.Chart().encode(y)
    rule = base.mark_rule(strokeWidth=3, opacity=0.6).encode(
        ch(alt.X, "low", "Q", title=None, scale=alt.Scale(zero=False)), ch(alt.X2, "high"),
        ch(alt.Color, "alternative", "N", legend=None, sort=order))
    point = base.mark_tick(thickness=2, color="black").encode(
        ch(alt.X, "estimate", "Q"),
        tooltip=[tip_of("alternative", "N"), tip_of("estimate", "Q", format=".4g"),
                 tip_of("low", "Q", format=".4g"), tip_of("high", "Q", format=".4g")])
    layer = alt.LayerChart(layer=[rule, point], width=width, height=22 * len(order))
    return alt.FacetChart(data=data_of(df), spec=layer,
                          facet=alt.Facet(field="aggregate", type="nominal", title=None,
                                          sort=df["aggregate"].unique(
                                              maintain_order=True).to_list()),
                          columns=4,
                          resolve=alt.Resolve(scale=alt.ScaleResolveMap(x="independent")),
                          title=heading("Aggregates with stratified-bootstrap intervals"))


def performance_profiles(frame: Any, *, width: int = WIDTH) -> alt.LayerChart:
    """Draw performance profiles (fraction of runs above each threshold) with their bands.

    Parameters
    ----------
    frame : polars / pandas DataFrame
        From :func:`genexpy_nb.aggregates.performance_profile`: ``alternative, threshold,
        fraction, low, high``.
    width : int
        Width in pixels.

    Returns
    -------
    altair.LayerChart

    Examples
    --------
    >>> import numpy as np
    >>> from genexpy_nb import aggregates as ag
    >>> rng = np.random.default_rng(0)
    >>> f = ag.performance_profile({"A": rng.normal(size=(5, 4))}, reps=100, progress=False)
    >>> type(performance_profiles(f)).__name__
    'LayerChart'
    """
    df = _clean(frame_of(frame, "frame", ["alternative", "threshold", "fraction", "low",
                                          "high"]))
    order = df["alternative"].unique(maintain_order=True).to_list()
    color = ch(alt.Color, "alternative", "N", sort=order, title=None)
    band = alt.Chart().mark_area(opacity=0.2).encode(
        ch(alt.X, "threshold", "Q", title="score threshold"),
        ch(alt.Y, "low", "Q", title="fraction of runs above the threshold"),
        ch(alt.Y2, "high"), color)
    line = alt.Chart().mark_line().encode(
        ch(alt.X, "threshold", "Q"), ch(alt.Y, "fraction", "Q"), color,
        tooltip=[tip_of("alternative", "N"), tip_of("threshold", "Q", format=".4g"),
                 tip_of("fraction", "Q", format=".3f")])
    return alt.LayerChart(layer=[band, line], data=data_of(df), width=width,
                          height=int(width * 0.65),
                          title=heading("Performance profiles with 95% bands"))


def rank_probability_heatmap(frame: Any, *, width: int = WIDTH) -> alt.LayerChart:
    """Draw the probability that each alternative takes each place, as a heatmap.

    Parameters
    ----------
    frame : polars / pandas DataFrame
        From :func:`genexpy_nb.rank_probabilities`: ``alternative, rank, probability``.
    width : int
        Width in pixels.

    Returns
    -------
    altair.LayerChart

    Examples
    --------
    >>> import polars as pl
    >>> f = pl.DataFrame({"alternative": ["a", "a", "b", "b"], "rank": [1, 2, 1, 2],
    ...                   "probability": [0.9, 0.1, 0.1, 0.9]})
    >>> type(rank_probability_heatmap(f)).__name__
    'LayerChart'
    """
    df = _clean(frame_of(frame, "frame", ["alternative", "rank", "probability"]))
    # best expected place on top
    exp = (df.group_by("alternative", maintain_order=True)
           .agg((pl.col("rank") * pl.col("probability")).sum().alias("e")).sort(
               "e", maintain_order=True))
    order = exp["alternative"].to_list()
    y = ch(alt.Y, "alternative", "N", sort=order, title=None)
    x = ch(alt.X, "rank", "O", title="place (1 = best)")
    cells = alt.Chart().mark_rect().encode(
        x, y, ch(alt.Color, "probability", "Q", scale=alt.Scale(scheme="blues",
                                                                  domain=[0, 1])),
        tooltip=[tip_of("alternative", "N"), tip_of("rank", "O"),
                 tip_of("probability", "Q", format=".3f")])
    text = alt.Chart().mark_text(fontSize=10).encode(
        x, y, ch(alt.Text, "probability", "Q", format=".2f"),
        color=alt.condition(alt.datum.probability > 0.5, alt.value("white"),
                            alt.value("black")))
    return alt.LayerChart(layer=[cells, text], data=data_of(df), width=width,
                          height=max(60, 24 * len(order)),
                          title=heading("Probability of each place when the conditions are "
                                        "resampled"))
