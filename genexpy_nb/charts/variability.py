"""Altair charts for training variability over random seeds (the robust-KS paper).

Pure functions: a tidy polars frame in, an ``alt.Chart`` (or layered chart) out. They read
the frames of :mod:`genexpy_nb.variability` (``ecdf_frame``, ``candidate_report``,
``ensemble_study``, ``trimming_curve``) but only need the columns named in each docstring,
so any frame with those columns works. Notebooks 03/04 and the seed-variability panel
share them.

References
----------
The robust-KS paper on training variability over seeds: eCDFs of logit gaps
(Figures 1-2), alpha-hat against accuracy, churn and ECE (Tables II-V), deep ensembles of
growing size (Table I).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import altair as alt
import numpy as np
import polars as pl

from .._validation import GenexpyInputError, require_columns, to_polars

__all__ = [
    "ecdf_chart",
    "alpha_hat_scatter",
    "ensemble_size_chart",
    "trimmed_distance_chart",
    "thin_ecdf",
    "METRIC_TITLES",
]

#: axis titles of the metrics of ``candidate_report`` / ``ensemble_study``
METRIC_TITLES: dict[str, str] = {
    "alpha_hat": "alpha-hat (trimming level)",
    "alpha_hat_exact": "alpha-hat, exact (trimming level)",
    "accuracy": "accuracy",
    "churn_ensemble": "churn to the ensemble (test points)",
    "churn_ensemble_frac": "churn to the ensemble (fraction)",
    "pairwise_churn_mean": "mean pairwise churn (test points)",
    "pairwise_churn_mean_frac": "mean pairwise churn (fraction)",
    "ece": "expected calibration error",
    "ks": "KS distance to the reference function",
    "d0_boot": "bootstrap KS distance",
}

_HIGHLIGHT = "#d62728"
# Channels are always given as objects (alt.X("a:Q"), alt.Tooltip(...)), never as shorthand
# strings or alt.value(): Altair resolves those through a JSON-schema search that costs
# ~5-15 ms per channel, which the panels pay on every slider move.
_BASE = "#4c78a8"


def _frame(data: Any, name: str, columns: Sequence[str]) -> pl.DataFrame:
    df = to_polars(data, name)
    require_columns(df, list(columns), name)
    return df


def thin_ecdf(frame: Any, max_points: int = 400) -> pl.DataFrame:
    """Keep at most ``max_points`` rows per model of an eCDF frame, for drawing.

    Rows of each model are kept at evenly spaced ranks (the first and last always), so the
    drawn step function differs from the full one by at most about ``1/max_points`` in
    height. Presentation only: never use the thinned frame for a statistic.

    Parameters
    ----------
    frame : table with columns ``model, gap, ecdf`` (see ``variability.ecdf_frame``)
    max_points : int >= 2
        The most rows kept per model.

    Returns
    -------
    polars.DataFrame
        The rows kept, sorted by model and gap, with the columns of ``frame``; a model
        with at most ``max_points`` rows keeps them all.
    """
    df = _frame(frame, "frame", ["model", "gap", "ecdf"])
    if not isinstance(max_points, (int, np.integer)) or max_points < 2:
        raise GenexpyInputError(f"max_points must be an integer >= 2, got {max_points!r}.")
    parts = []
    for part in df.sort(["model", "gap"], maintain_order=True).partition_by(
        "model", maintain_order=True
    ):
        n = part.height
        if n > max_points:
            idx = np.unique(np.linspace(0, n - 1, int(max_points)).round().astype(np.int64))
            part = part[idx]
        parts.append(part)
    return pl.concat(parts) if parts else df


def ecdf_chart(
    *frames: Any,
    title: str | None = None,
    max_points: int = 400,
    dashed: Sequence[str] = (),
    order: Sequence[str] | None = None,
    width: int = 420,
    height: int = 260,
) -> alt.Chart:
    """Empirical CDFs of logit gaps, one step line per model.

    Parameters
    ----------
    *frames : tables with columns ``model, gap, ecdf``
        E.g. ``variability.ecdf_frame(gaps, names)`` for a candidate and an ensemble and
        ``ecdf_frame(ref_gaps.ravel(), ["reference G_M"])`` for the reference function
        (the eCDF of the pooled gaps). Concatenated; model names must differ.
    title : str, optional
    max_points : int, default 400
        Rows drawn per model (see :func:`thin_ecdf`).
    dashed : sequence of str
        Models drawn with a dashed line (e.g. the reference).
    order : sequence of str, optional
        Legend (colour) order; default the order of first appearance.
    width, height : int, default 420 and 260
        Size of the plot area in pixels.

    Returns
    -------
    alt.Chart: x = logit gap, y = eCDF, colour = model.
    """
    if not frames:
        raise GenexpyInputError("ecdf_chart needs at least one eCDF frame (model, gap, ecdf).")
    dfs = [_frame(f, f"frames[{i}]", ["model", "gap", "ecdf"]) for i, f in enumerate(frames)]
    df = pl.concat([d.select(pl.col("model").cast(pl.String), pl.col("gap").cast(pl.Float64),
                             pl.col("ecdf").cast(pl.Float64)) for d in dfs])
    models = df.get_column("model").unique(maintain_order=True).to_list()
    domain = list(order) if order is not None else models
    df = thin_ecdf(df, max_points).with_columns(
        pl.col("model").is_in(list(dashed)).alias("dashed")
    )
    return (
        alt.Chart(df, title=title or "eCDF of the logit gaps")
        .mark_line(interpolate="step-after")
        .encode(
            x=alt.X("gap:Q", title="logit gap (clipped)"),
            y=alt.Y("ecdf:Q", title="eCDF", scale=alt.Scale(domain=[0, 1])),
            color=alt.Color("model:N", title="model", scale=alt.Scale(domain=domain),
                            sort=domain),
            strokeDash=alt.StrokeDash("dashed:N", legend=None,
                                      scale=alt.Scale(domain=[False, True],
                                                      range=[[1, 0], [5, 3]])),
            detail=alt.Detail("model:N"),
            tooltip=[alt.Tooltip("model:N"), alt.Tooltip("gap:Q", format=".3f"),
                     alt.Tooltip("ecdf:Q", format=".3f")],
        )
        .properties(width=width, height=height)
    )


def alpha_hat_scatter(
    report: Any,
    metric: str,
    highlight: Any = None,
    *,
    y: str = "alpha_hat",
    name: str | None = None,
    title: str | None = None,
    width: int = 360,
    height: int = 260,
) -> alt.LayerChart:
    """alpha-hat of every candidate against a metric, with one model highlighted.

    Parameters
    ----------
    report : table with columns ``candidate``, ``y`` and ``metric``
        Typically ``variability.candidate_report(...)`` (one row per candidate).
    metric : str
        x axis: ``"accuracy"``, ``"churn_ensemble_frac"``, ``"pairwise_churn_mean_frac"``,
        ``"ece"``, ``"ks"``, ...
    highlight : optional
        The candidate to highlight: a value of the ``candidate`` column, or of ``name``.
    y : str, default "alpha_hat"
        ``"alpha_hat_exact"`` for the exact version.
    name : str, optional
        Column with readable model names (shown in tooltips and the highlight label).
    title : str, optional
        Chart title; default "<y> vs <metric>" in words.
    width, height : int, default 360 and 260
        Size of the plot area in pixels.

    Returns
    -------
    alt.LayerChart: every candidate as a point; the highlighted one larger, red, labelled.
    Reading it: a low alpha-hat should come with good values of the metric (the paper's
    finding), not conversely.
    """
    cols = ["candidate", y, metric] + ([name] if name else [])
    df = _frame(report, "report", cols)
    if not df.schema[metric].is_numeric():
        raise GenexpyInputError(f"report: metric column {metric!r} must be numeric.")
    label = name or "candidate"
    df = df.select(*dict.fromkeys(cols)).with_columns(
        pl.col(label).cast(pl.String).alias("model"))
    if highlight is None:
        hl = pl.lit(False)
    else:
        hl = (pl.col("candidate").cast(pl.String) == str(highlight)) | (
            pl.col("model") == str(highlight))
    df = df.with_columns(hl.alias("selected"))
    if highlight is not None and not df.get_column("selected").any():
        raise GenexpyInputError(
            f"highlight={highlight!r} is not a candidate of the report (candidates "
            f"{df.get_column('model').head(10).to_list()}...)."
        )
    tip = [alt.Tooltip("model:N"), alt.Tooltip(f"{y}:Q", format=".3f"),
           alt.Tooltip(f"{metric}:Q", format=".4g")]
    base = alt.Chart(df, title=title or f"{METRIC_TITLES.get(y, y)} vs "
                     f"{METRIC_TITLES.get(metric, metric)}").encode(
        x=alt.X(f"{metric}:Q", title=METRIC_TITLES.get(metric, metric),
                scale=alt.Scale(zero=False)),
        y=alt.Y(f"{y}:Q", title=METRIC_TITLES.get(y, y)),
        tooltip=tip,
    )
    layers = [base.mark_circle(size=45, opacity=0.6, color=_BASE)]
    if highlight is not None:  # (a layer of no rows makes Vega warn of an infinite extent)
        sel = base.transform_filter(alt.datum.selected)
        layers += [sel.mark_point(size=160, filled=True, color=_HIGHLIGHT),
                   sel.mark_text(align="left", dx=8, dy=-8, color=_HIGHLIGHT).encode(
                       text=alt.Text("model:N"))]
    return alt.layer(*layers).properties(width=width, height=height)


def ensemble_size_chart(
    ensemble_frame: Any,
    *,
    column: str = "alpha_hat",
    level: float | None = None,
    title: str | None = None,
    width: int = 360,
    height: int = 260,
) -> alt.LayerChart:
    """Draw a metric of deep ensembles as their size grows (paper Table I as a chart).

    Parameters
    ----------
    ensemble_frame : table with columns ``k`` and ``column``
        Typically ``variability.ensemble_study(...)``: one row per (size k, draw).
    column : str, default "alpha_hat"
        ``"ks"``, ``"alpha_hat_exact"``, ``"accuracy"``, ... work as well.
    level : float, optional
        Draws a horizontal rule (e.g. the small alpha-hat level of Table I) and adds the
        share of ensembles at or below it to the tooltip of the mean line.
    title : str, optional
        Chart title; default "<metric> of deep ensembles by size".
    width, height : int, default 360 and 260
        Size of the plot area in pixels.

    Returns
    -------
    alt.LayerChart: a box plot per ensemble size (x ordinal) with the mean as a line.
    """
    df = _frame(ensemble_frame, "ensemble_frame", ["k", column])
    df = df.select(pl.col("k").cast(pl.Int64), pl.col(column).cast(pl.Float64))
    summary = df.group_by("k").agg(
        pl.col(column).mean().alias("mean"),
        pl.len().alias("draws"),
        *([(pl.col(column) <= level).mean().alias("share_below")] if level is not None
          else []),
    ).sort("k")
    ytitle = METRIC_TITLES.get(column, column)
    x = alt.X("k:O", title="ensemble size k")
    box = alt.Chart(df).mark_boxplot(extent="min-max", color=_BASE, opacity=0.7).encode(
        x=x, y=alt.Y(f"{column}:Q", title=ytitle))
    tips = [alt.Tooltip("k:O"), alt.Tooltip("mean:Q", format=".4f"), alt.Tooltip("draws:Q")]
    if level is not None:
        tips.append(alt.Tooltip("share_below:Q", format=".0%",
                                title=f"share <= {level:g}"))
    mean = alt.Chart(summary).mark_line(point=True, color=_HIGHLIGHT).encode(
        x=x, y=alt.Y("mean:Q"), tooltip=tips)
    layers = [box, mean]
    if level is not None:
        layers.append(alt.Chart(pl.DataFrame({"level": [float(level)]}))
                      .mark_rule(strokeDash=[4, 3], color="grey").encode(y=alt.Y("level:Q")))
    return alt.layer(*layers, title=title or f"{ytitle} of deep ensembles by size").properties(
        width=width, height=height)


def trimmed_distance_chart(
    curve: Any,
    *,
    alpha: float | None = None,
    tau: float | None = None,
    title: str | None = None,
    width: int = 360,
    height: int = 240,
) -> alt.LayerChart:
    """Trimmed KS distance ``d_alpha`` against the trimming level, with the DKW threshold.

    Parameters
    ----------
    curve : table with columns ``alpha`` and ``d`` or ``d_mean``
        Typically one candidate's rows of ``variability.trimming_curve(...)``
        (``d_mean`` with the 5%-95% bootstrap band ``d_lo, d_hi`` and ``tau``). Extra
        columns ``d_lo, d_hi`` draw the band; a ``tau`` column gives the threshold.
    alpha : float, optional
        The selected trimming level: a vertical rule and a point at ``d_alpha``.
    tau : float, optional
        The DKW threshold (default: the ``tau`` column). The test accepts the candidate at
        trimming level alpha when ``d_alpha <= tau``; the smallest such alpha is alpha-hat.
    title : str, optional
        Chart title; default "trimmed KS distance vs DKW threshold".
    width, height : int, default 360 and 240
        Size of the plot area in pixels.

    Returns
    -------
    alt.LayerChart
        ``d_alpha`` against alpha as a line with points (the bootstrap band as an area when
        given), a dashed horizontal rule at tau and, with ``alpha``, a vertical rule and a
        point at the selected trimming level.
    """
    df = to_polars(curve, "curve")
    dcol = "d" if "d" in df.columns else "d_mean"
    require_columns(df, ["alpha", dcol], "curve")
    if tau is None:
        if "tau" not in df.columns:
            raise GenexpyInputError("curve has no 'tau' column: pass tau=dkw_threshold(m).")
        tau = float(df.get_column("tau")[0])
    df = df.sort("alpha").with_columns(pl.col(dcol).alias("d"),
                                        (pl.col(dcol) <= float(tau)).alias("accepted"))
    x = alt.X("alpha:Q", title="trimming level alpha")
    layers: list[alt.Chart] = []
    if {"d_lo", "d_hi"} <= set(df.columns):
        layers.append(alt.Chart(df).mark_area(opacity=0.2, color=_BASE).encode(
            x=x, y=alt.Y("d_lo:Q"), y2=alt.Y2("d_hi:Q")))
    layers.append(alt.Chart(df).mark_line(point=True, color=_BASE).encode(
        x=x, y=alt.Y("d:Q", title="trimmed KS distance d_alpha"),
        tooltip=[alt.Tooltip("alpha:Q", format=".3f"), alt.Tooltip("d:Q", format=".4f"),
                 alt.Tooltip("accepted:N")]))
    layers.append(alt.Chart(pl.DataFrame({"tau": [float(tau)]}))
                  .mark_rule(color="grey", strokeDash=[4, 3])
                  .encode(y=alt.Y("tau:Q"), tooltip=[alt.Tooltip("tau:Q", format=".4f",
                                                          title="DKW threshold")]))
    if alpha is not None:
        a = float(alpha)
        al = df.get_column("alpha").to_numpy()
        dv = df.get_column("d").to_numpy()
        d_at = float(np.interp(a, al, dv)) if al.size else float("nan")
        sel = pl.DataFrame({"alpha": [a], "d": [d_at], "accepted": [d_at <= float(tau)]})
        layers.append(alt.Chart(sel).mark_rule(color=_HIGHLIGHT).encode(
            x=alt.X("alpha:Q")))
        layers.append(alt.Chart(sel).mark_point(size=120, filled=True, color=_HIGHLIGHT)
                      .encode(x=alt.X("alpha:Q"), y=alt.Y("d:Q"),
                              tooltip=[alt.Tooltip("alpha:Q", format=".3f"),
                                       alt.Tooltip("d:Q", format=".4f"),
                                       alt.Tooltip("accepted:N")]))
    return alt.layer(*layers, title=title or "trimmed KS distance vs DKW threshold"
                     ).properties(width=width, height=height)
