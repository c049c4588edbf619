"""Charts of generalizability (paper Figures 1-4): pure functions from tidy frames to Altair.

Every builder takes one of the tidy polars frames of :mod:`genexpy_nb.generalizability` or
:mod:`genexpy_nb.generalizability.planner` (pandas and arrow are accepted too), validates its
columns, and
returns an Altair chart whose data is embedded as explicit inline values, so
``chart.to_dict()`` and saving work without a notebook renderer, and no Altair row limit
applies. Empty or degenerate input (no rows, every n* undefined, every quantile 0) gives a
chart carrying a text note instead of an exception; a frame without the needed columns raises
:class:`~genexpy_nb.GenexpyInputError`.

=======================  ===========================================  ======================
builder                  input frame                                  paper
=======================  ===========================================  ======================
:func:`ngen_curves`      ``GeneralizabilityAnalysis.ngen_frame``      Fig. 1, Fig. 2 top
:func:`power_law_fit`    ``GeneralizabilityAnalysis.quantile_frame``  Fig. 2 bottom
:func:`nstar_boxplots`   ``analyze`` / ``GeneralizabilityAnalysis     Figs. 3 and 4
                         .nstar``
:func:`nstar_vs_N`       ``simulate_preliminary_study``               Algorithm 1
                         (in ``charts/nstar_growth.py``)
:func:`nstar_intervals`  ``analyze`` (one configuration)              n* with its interval
                         (in ``charts/nstar_growth.py``)
:func:`deficit_heatmap`  ``plan`` or ``analyze``                      Section 5.1 (which
                                                                      configuration first)
=======================  ===========================================  ======================
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import altair as alt
import numpy as np
import polars as pl

from .._validation import GenexpyInputError, check_probability
from .base import (
    BASELINE,
    HEIGHT,
    RESULT_COLUMNS,
    about,
    add_levels,
    baseline_rows,
    baseline_shape,
    baseline_tip,
    ch,
    check_finite_positive,
    data_of,
    design_columns,
    frame_of,
    heading,
    layered,
    log_axis,
    note_of,
    select_close,
    tip_of,
    tooltip_fields,
)
from .export import save_chart
from .nstar_growth import nstar_intervals, nstar_vs_N
from .planning import deficit_heatmap

__all__ = [
    "ngen_curves",
    "power_law_fit",
    "nstar_boxplots",
    "nstar_vs_N",
    "nstar_intervals",
    "deficit_heatmap",
    "save_chart",
    "RESULT_COLUMNS",
]

_SERIES = ["resampled q_n", "closed-form q_n (approx.)"]


def _eps_label(eps: float, delta: float | None = None) -> str:
    """Name the MMD threshold eps* with the similarity threshold delta* it comes from.

    Parameters
    ----------
    eps : float
        The MMD threshold eps* (the chart's units).
    delta : float, optional
        delta*, with ``eps = kernel.eps(delta)`` (the threshold every text speaks of).

    Returns
    -------
    str
        ``"eps* = 0.316 (from delta* = 0.05)"``, or ``"eps* = 0.316"`` without ``delta``.
    """
    text = f"eps* = {eps:.3g}"
    return text if delta is None else f"{text} (from delta* = {delta:g})"

# ---------------------------------------------------------------------------------------
# Figure 1 / Figure 2 top: n-generalizability curves
# ---------------------------------------------------------------------------------------
def ngen_curves(
    ngen_frame: Any,
    *,
    alpha: float | None = None,
    eps: float | None = None,
    title: str | None = None,
    levels: Mapping[str, Any] | None = None,
    question: str | None = None,
    delta: float | None = None,
) -> alt.LayerChart | alt.Chart:
    """n-generalizability as a function of the MMD threshold, one curve per sample size n.

    Parameters
    ----------
    ngen_frame : frame with columns ``n`` (int), ``eps`` (float), ``ngen`` (float in [0, 1])
        — the output of :meth:`~genexpy_nb.GeneralizabilityAnalysis.ngen_frame`: for every
        n of the grid, the empirical CDF of MMD_n evaluated on a grid of thresholds (paper
        Sec. 4.5).
    alpha : desired generalizability alpha*; drawn as a horizontal rule
    eps : MMD threshold eps* = eps(delta*); drawn as a vertical rule
    title : chart title (default "n-generalizability")
    levels : the configuration's levels ``{factor: level}``, shown in tooltips and the
        title (a figure that stands alone says which configuration it shows)
    question : the research question (kernel label, e.g. ``"Jaccard(k=1)"``), shown in the
        title
    delta : the similarity threshold delta* that eps* comes from (``eps = kernel.eps(delta)``),
        named beside eps* wherever the chart shows it: texts speak of delta*, the chart's
        axis is in MMD units

    Returns
    -------
    altair chart: ``line`` marks (x = eps, y = ngen, colour = n), ``rule`` marks at alpha*
    (``y``) and eps* (``x``) with ``text`` labels. A size n is (alpha*, eps*)-generalizable
    where its curve is above the alpha* rule at eps*.

    Notes
    -----
    Paper Figure 1 (n-generalizability of the checkmate-in-one task) and Figure 2 top.
    """
    df = frame_of(ngen_frame, "ngen_frame", ["n", "eps", "ngen"])
    if alpha is not None:
        alpha = check_probability("alpha", alpha)
    eps = check_finite_positive("eps", eps)
    ttl = title or "n-generalizability"
    df = df.select("n", "eps", "ngen", *[c for c in df.columns if c not in ("n", "eps", "ngen")])
    df = df.filter(pl.col("eps").is_finite(), pl.col("ngen").is_finite())
    if df.height == 0:
        return note_of("no n-generalizability to plot: the configuration has too few results "
                     "for any sample size n of the grid", ttl)
    df, lvl = add_levels(df, levels)
    df = df.with_columns(pl.col("n").cast(pl.Int64))
    extra = [c for c in df.columns if c not in ("n", "eps", "ngen")]
    tooltip = tooltip_fields(df, [*lvl, "n", "eps", "ngen", *extra])
    sub = about(None, levels, question)
    if alpha is not None and eps is not None:
        sub.append(f"alpha* = {alpha:g}, {_eps_label(eps, delta)}: generalizable n are above "
                   "the horizontal rule at the vertical one")
    base = (
        alt.Chart(data_of(df))
        .mark_line(interpolate="step-after", strokeWidth=1.8)
        .encode(
            x=ch(alt.X, "eps", "Q", title="eps (MMD threshold)"),
            y=ch(alt.Y, "ngen", "Q", title="n-generalizability  P(MMD_n <= eps)",
                  scale=alt.Scale(domain=[0, 1])),
            color=ch(alt.Color, "n", "O", title="n", scale=alt.Scale(scheme="viridis")),
            tooltip=tooltip,
        )
    )
    layers: list[alt.Chart] = [base]
    if alpha is not None:
        at = data_of([{"alpha": alpha, "label": f"alpha* = {alpha:g}"}])
        layers.append(
            alt.Chart(at)
            .mark_rule(color="firebrick", strokeDash=[6, 3])
            .encode(y=ch(alt.Y, "alpha", "Q"), tooltip=[tip_of("alpha", "Q", title="alpha*")])
        )
        layers.append(
            alt.Chart(at)
            .mark_text(align="left", dx=4, dy=-6, color="firebrick")
            .encode(y=ch(alt.Y, "alpha", "Q"), x=alt.XValue(0),
                    text=ch(alt.Text, "label", "N"))
        )
    if eps is not None:
        et = data_of([{"eps": eps, "label": _eps_label(eps, delta)}])
        layers.append(
            alt.Chart(et)
            .mark_rule(color="black", strokeDash=[2, 2])
            .encode(x=ch(alt.X, "eps", "Q"),
                    tooltip=[tip_of("eps", "Q", title="eps*", format=".4f")])
        )
        layers.append(
            alt.Chart(et)
            .mark_text(align="left", dx=4, color="black")
            .encode(x=ch(alt.X, "eps", "Q"), y=alt.YValue(HEIGHT - 10),
                    text=ch(alt.Text, "label", "N"))
        )
    return layered(layers, heading(ttl, sub or None))


# ---------------------------------------------------------------------------------------
# Figure 2 bottom: the power law log n = b1 log q_n + b0
# ---------------------------------------------------------------------------------------
def power_law_fit(
    quantile_frame: Any,
    *,
    eps: float | None = None,
    nstar: float | None = None,
    b0: float | None = None,
    b1: float | None = None,
    title: str | None = None,
    N: int | None = None,
    levels: Mapping[str, Any] | None = None,
    question: str | None = None,
    nstar_null: float | None = None,
    nstar_null_lo: float | None = None,
    nstar_null_hi: float | None = None,
    delta: float | None = None,
) -> alt.LayerChart | alt.Chart:
    """Draw the alpha*-quantiles of MMD_n against n on log-log axes, the power law and n*.

    Parameters
    ----------
    quantile_frame : frame with columns ``n`` and ``q`` (resampled alpha*-quantile of MMD_n),
        optionally ``q_approx`` (the closed-form quantile of paper App. C) — the output of
        :meth:`~genexpy_nb.GeneralizabilityAnalysis.quantile_frame`.
    eps : eps*; n* is predicted there (vertical rule and a star at (eps*, n*))
    nstar : n* to mark; default: the fit's prediction ``exp(b1 log eps* + b0)``
    b0, b1 : fitted intercept and slope of ``log n = b1 log q_n + b0``; default: refitted
        here by ordinary least squares on the positive quantiles (same as
        :func:`genexpy_nb.fit_nstar`)
    title : chart title
    N : number of observed results; drawn as a horizontal rule (generalizable if n* <= N)
    levels : the configuration's levels, shown in tooltips and the title
    question : the research question (kernel label), shown in the title
    nstar_null, nstar_null_lo, nstar_null_hi : the no-signal baseline of this configuration
        and question and its band (the columns of the same names in the frame of
        :func:`genexpy_nb.analyze`); drawn as a horizontal rule and a shaded band when
        given, nothing when None or NaN (an analysis with ``null=False``)
    delta : the similarity threshold delta* that eps* comes from, named beside eps*

    Returns
    -------
    altair chart: ``point`` marks (x = q, y = n, both ``log`` scales; shape/colour = series
    "resampled q_n" / "closed-form q_n"), a ``line`` for the fit, a ``point`` (star) at
    (eps*, n*), ``rule`` marks at eps* and N; with a baseline, a ``rule`` at ``nstar_null``
    (series "no-signal baseline n*" in the legend) and a ``rect`` over its band.

    Notes
    -----
    Theorem 4.1 / Algorithm 1 of the paper: ``q_n ~ n^(-1/2)``, hence b1 ~ -2. Quantiles
    equal to 0 (all resampled results agree) cannot be shown on a log axis; if every
    quantile is 0, n* = 1 (paper Sec. 4.5) and the chart says so.
    """
    df = frame_of(quantile_frame, "quantile_frame", ["n", "q"])
    eps = check_finite_positive("eps", eps)
    nstar = None if nstar is None or not math.isfinite(float(nstar)) else float(nstar)
    null0, null_lo, null_hi = (
        None if v is None or not math.isfinite(float(v)) or float(v) <= 0
        else max(float(v), 1.0)  # drawn at 1 at least, like n*
        for v in (nstar_null, nstar_null_lo, nstar_null_hi))
    ttl = title or "Power law of the MMD_n quantiles and n*"
    if df.height == 0:
        return note_of("no quantiles to fit: the configuration has too few results for the "
                     "grid of sample sizes (at least 6 are needed)", ttl)
    df, lvl = add_levels(df, levels)
    long = _quantile_series(df, lvl)
    pos = long.filter(pl.col("q") > 0, pl.col("q").is_finite(), pl.col("n") > 0)
    res_pos = pos.filter(pl.col("series") == "resampled q_n")
    zeros = df.filter(pl.col("q") <= 0).height
    if res_pos.height == 0:
        if zeros:
            return note_of("every resampled MMD_n quantile is 0 (all results agree under this "
                         "kernel): n* = 1, one experiment suffices", ttl)
        return note_of("no finite positive quantiles to plot", ttl)
    b0, b1 = _fit_coefficients(res_pos, b0, b1)
    if nstar is None and eps is not None and b0 is not None and b1 is not None and b1 < 0:
        nstar = float(math.exp(b1 * math.log(eps) + b0))
    layers: list[alt.Chart] = []
    sub = about(None, levels, question)
    if b0 is not None and b1 is not None and math.isfinite(b0) and math.isfinite(b1):
        layers.append(_fit_line(res_pos, eps, b0, b1))
        sub.append(f"fit: log n = {b1:.3f} log q + {b0:.3f} (theory: slope -2)")
    if zeros:
        sub.append(f"{zeros} quantile(s) equal to 0 not shown on the log axis")
    xs = [float(pos["q"].min()), float(pos["q"].max())] + ([eps] if eps is not None else [])
    ys = [float(pos["n"].min()), float(pos["n"].max())]
    # n* below 1 (one condition suffices) is drawn at 1, never below
    drawn = None if nstar is None else max(nstar, 1.0)
    ys += [v for v in (drawn, None if N is None else float(N), null0, null_lo, null_hi)
           if v is not None and v > 0]
    xdom = [min(xs) / 1.25, max(xs) * 1.25]
    ydom = [min(ys) / 1.25, max(ys) * 1.25]
    tooltip = tooltip_fields(pos, [*lvl, "series", "n", "q"])
    names, colours, shapes = list(_SERIES), ["steelblue", "darkorange"], ["circle", "square"]
    if null0 is not None:
        names.append(BASELINE)
        colours.append("black")
        shapes.append("stroke")
        layers += _baseline_rule_layers(null0, null_lo, null_hi)
        band = f" (band {null_lo:.1f} to {null_hi:.1f})" if null_lo and null_hi else ""
        sub.append(f"{BASELINE} = {nstar_null:.1f}{band}: the n* this study would have if no "
                   "alternative were better than another")
    layers.insert(0,
        alt.Chart(data_of(pos)).mark_point(filled=True, size=60)
        .encode(
            x=ch(alt.X, "q", "Q", scale=alt.Scale(type="log", domain=xdom, nice=False),
                  axis=log_axis("alpha*-quantile of MMD_n (log)", *xdom)),
            y=ch(alt.Y, "n", "Q", scale=alt.Scale(type="log", domain=ydom, nice=False),
                  axis=log_axis("sample size n (log)", *ydom)),
            color=ch(alt.Color, "series", "N", title=None,
                      scale=alt.Scale(domain=names, range=colours)),
            shape=ch(alt.Shape, "series", "N", title=None,
                      scale=alt.Scale(domain=names, range=shapes)),
            tooltip=tooltip,
        )
    )
    if eps is not None:
        layers.append(
            alt.Chart(data_of([{"eps": eps, "label": _eps_label(eps, delta)}]))
            .mark_rule(color="black", strokeDash=[2, 2])
            .encode(x=ch(alt.X, "eps", "Q"),
                    tooltip=[tip_of("eps", "Q", title="eps*", format=".4f")])
        )
    if N is not None:
        layers.append(
            alt.Chart(data_of([{"N": float(N), "label": f"N = {N} observed"}]))
            .mark_rule(color="seagreen", strokeDash=[6, 3])
            .encode(y=ch(alt.Y, "N", "Q"), tooltip=[tip_of("label", "N", title="observed")])
        )
    if nstar is not None and eps is not None:
        layers += _star_layers(eps, nstar, drawn, levels, lvl)
        verdict = ""
        if N is not None:
            ok = N >= max(1, math.ceil(nstar - 1e-9))
            verdict = f" ({'generalizable' if ok else 'not generalizable'} with N = {N})"
        sub.append(f"n* = {nstar:.1f} at {_eps_label(eps, delta)}{verdict}")
    return layered(layers, heading(ttl, sub or None))


def _quantile_series(df: pl.DataFrame, lvl: list[str]) -> pl.DataFrame:
    """Return the quantiles in long form: columns n, q, the levels ``lvl`` and ``series``.

    One series "resampled q_n" (column ``q``), and "closed-form q_n (approx.)" (column
    ``q_approx``) when the frame has it.
    """
    series = [("q", "resampled q_n")]
    if "q_approx" in df.columns:
        series.append(("q_approx", "closed-form q_n (approx.)"))
    return pl.concat([
        df.select(pl.col("n").cast(pl.Float64), pl.col(c).cast(pl.Float64).alias("q"),
                  *[pl.col(x) for x in lvl], pl.lit(lab).alias("series"))
        for c, lab in series
    ])


def _fit_coefficients(res_pos: pl.DataFrame, b0: float | None, b1: float | None
                      ) -> tuple[float | None, float | None]:
    """Return (b0, b1): those given, the missing one(s) fitted to the positive quantiles.

    Ordinary least squares of ``log n`` on ``log q`` over ``res_pos`` (as
    :func:`genexpy_nb.fit_nstar`), when one of them is None and at least two distinct
    quantiles allow a fit; otherwise they are returned as given.
    """
    if b0 is None or b1 is None:
        if res_pos.height >= 2 and res_pos["q"].n_unique() > 1:
            b1_, b0_ = np.polyfit(np.log(res_pos["q"].to_numpy()),
                                  np.log(res_pos["n"].to_numpy()), 1)
            b0 = float(b0_) if b0 is None else float(b0)
            b1 = float(b1_) if b1 is None else float(b1)
    return b0, b1


def _fit_line(res_pos: pl.DataFrame, eps: float | None, b0: float, b1: float) -> alt.Chart:
    """Return the dashed line of the power law ``log n = b1 log q + b0``.

    Drawn over the range of the resampled quantiles, extended to eps* when given.
    """
    qs = res_pos["q"].to_numpy()
    lo = min(qs.min(), eps) if eps is not None else qs.min()
    hi = max(qs.max(), eps) if eps is not None else qs.max()
    grid = np.geomspace(lo, hi, 30) if hi > lo else np.array([lo])
    fit = pl.DataFrame({"q": grid, "n": np.exp(b1 * np.log(grid) + b0),
                        "series": ["power-law fit"] * grid.size})
    return (
        alt.Chart(data_of(fit)).mark_line(color="grey", strokeDash=[5, 3])
        .encode(x=ch(alt.X, "q", "Q"), y=ch(alt.Y, "n", "Q"),
                tooltip=[tip_of("series", "N"), tip_of("q", "Q", format=".4f"),
                         tip_of("n", "Q", format=".1f")])
    )


def _baseline_rule_layers(null0: float, null_lo: float | None, null_hi: float | None
                          ) -> list[alt.Chart]:
    """Return the no-signal baseline of :func:`power_law_fit`: its band and its rule.

    A shaded ``rect`` from ``null_lo`` to ``null_hi`` (when both are known) and a dashed
    horizontal ``rule`` at ``null0``.
    """
    layers: list[alt.Chart] = []
    bd = {"nstar_null": null0, "series": BASELINE,
          "nstar_null_lo": null_lo, "nstar_null_hi": null_hi}
    btip = baseline_tip([tip_of("series", "N")])
    if null_lo is not None and null_hi is not None:
        layers.append(alt.Chart(data_of([bd])).mark_rect(color="black", opacity=0.08)
                      .encode(y=ch(alt.Y, "nstar_null_lo", "Q"),
                              y2=ch(alt.Y2, "nstar_null_hi"), tooltip=btip))
    layers.append(alt.Chart(data_of([bd])).mark_rule(strokeDash=[8, 4], strokeWidth=1.5)
                  .encode(y=ch(alt.Y, "nstar_null", "Q"),
                          color=ch(alt.Color, "series", "N"), tooltip=btip))
    return layers


def _star_layers(eps: float, nstar: float, drawn: float, levels: Mapping[str, Any] | None,
                 lvl: list[str]) -> list[alt.Chart]:
    """Return the star at (eps*, n*) and its label; n* is drawn at ``drawn`` (1 at least)."""
    star = {"eps": eps, "nstar": drawn, "label": f"n* = {nstar:.1f}"
            + (" (drawn at 1)" if nstar < 1 else "")}
    star.update({k: str(v) for k, v in (levels or {}).items()})
    sd = data_of([star])
    return [
        alt.Chart(sd).mark_point(shape="diamond", size=160, filled=True,
                                 color="firebrick")
        .encode(x=ch(alt.X, "eps", "Q"), y=ch(alt.Y, "nstar", "Q"),
                tooltip=[*[tip_of(k, "N") for k in lvl],
                         tip_of("eps", "Q", title="eps*", format=".4f"),
                         tip_of("nstar", "Q", title="n*", format=".2f")]),
        alt.Chart(sd).mark_text(align="left", dx=8, dy=-8, color="firebrick")
        .encode(x=ch(alt.X, "eps", "Q"), y=ch(alt.Y, "nstar", "Q"),
                text=ch(alt.Text, "label", "N")),
    ]


# ---------------------------------------------------------------------------------------
# Figures 3 and 4: n* over configurations, per kernel, against alpha* or delta*
# ---------------------------------------------------------------------------------------
def _box_stats(df: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    """Tukey box statistics of ``nstar`` per group (whiskers at 1.5 IQR, linear scale)."""
    q = (df.group_by(keys, maintain_order=True).agg(
        pl.col("nstar").quantile(0.25, "linear").alias("q1"),
        pl.col("nstar").median().alias("median"),
        pl.col("nstar").quantile(0.75, "linear").alias("q3"),
        pl.len().alias("configurations"),
    ))
    j = df.join(q, on=keys, how="left").with_columns(
        (pl.col("q3") - pl.col("q1")).alias("iqr"))
    j = j.with_columns(
        (pl.col("nstar") >= pl.col("q1") - 1.5 * pl.col("iqr")).alias("_lo_in"),
        (pl.col("nstar") <= pl.col("q3") + 1.5 * pl.col("iqr")).alias("_hi_in"),
    )
    w = j.group_by(keys, maintain_order=True).agg(
        pl.col("nstar").filter(pl.col("_lo_in")).min().alias("lower"),
        pl.col("nstar").filter(pl.col("_hi_in")).max().alias("upper"),
    )
    return q.join(w, on=keys, how="left")


def nstar_boxplots(
    results: Any,
    *,
    vary: str = "alpha",
    alpha: float = 0.95,
    delta: float = 0.05,
    method: str = "resample",
    points: str = "outliers",
    title: str | None = None,
) -> alt.LayerChart | alt.Chart:
    """n* per kernel, as box plots over the configurations, against alpha* or delta*.

    Parameters
    ----------
    results : the tidy n* frame of :func:`genexpy_nb.analyze` (columns config_id, design
        factors, kernel_label, alpha, delta, method, nstar, N, ...)
    vary : "alpha" (x = alpha*, delta* fixed at ``delta``) or "delta" (x = delta*, alpha*
        fixed at ``alpha``) — the left and right panels of the paper's Figures 3 and 4
    alpha, delta : the fixed threshold (must be in the frame)
    method : which estimate of n* ("resample", "approx", "approx_weighted", "bound")
    points : "outliers" (points beyond the whiskers, with the configuration in the tooltip),
        "all" (every configuration as a point) or "none"
    title : chart title

    Returns
    -------
    altair chart: ``bar`` (box from q1 to q3), ``rule`` (whiskers), ``tick`` (median) and
    ``point`` marks; x = the varied threshold (ordinal), xOffset and colour = kernel,
    y = n* on a ``log`` scale. The box statistics are computed here (Tukey, whiskers at
    1.5 IQR), so the chart's data stays small for studies with many configurations.
    Configurations whose n* is undefined (too few results) are counted in the subtitle and
    left out. When the frame has the no-signal baseline (``nstar_null``, resampled method),
    a black triangle per box marks its median over the configurations (shape legend
    "no-signal baseline n*") and a thin ``rule`` the median of its band: a box at or above
    the triangle's band is no more consistent than chance.

    Notes
    -----
    Paper Figures 3 (categorical encoders) and 4 (BIG-bench): "the variation in the plot is
    due to the combinations of design factors".
    """
    if vary not in ("alpha", "delta"):
        raise GenexpyInputError(f"vary must be 'alpha' or 'delta', got {vary!r}.")
    if points not in ("outliers", "all", "none"):
        raise GenexpyInputError(f"points must be 'outliers', 'all' or 'none', got {points!r}.")
    df = frame_of(results, "results",
                ["config_id", "kernel_label", "alpha", "delta", "method", "nstar"])
    fixed, fixed_value = ("delta", delta) if vary == "alpha" else ("alpha", alpha)
    sym = {"alpha": "alpha*", "delta": "delta*"}
    ttl = title or f"n* over configurations, by {sym[vary]} ({sym[fixed]} = {fixed_value:g})"
    if df.height == 0:
        return note_of("no results to plot (empty frame)", ttl)
    have_methods = sorted(df["method"].unique().drop_nulls().to_list())
    if method not in have_methods:
        raise GenexpyInputError(
            f"method {method!r} is not in the frame; it has {have_methods}.")
    df = df.filter(pl.col("method") == method)
    df = select_close(df, fixed, float(fixed_value), fixed)
    design = design_columns(df)
    nz = df.with_columns(pl.col("nstar").cast(pl.Float64))
    ok = nz.filter(pl.col("nstar").is_finite(), pl.col("nstar") > 0)
    undefined = nz.height - ok.height
    below = int((ok["nstar"] < 1).sum())
    # n* below 1 means one condition suffices: drawn at 1, never below
    ok = ok.with_columns(pl.col("nstar").clip(lower_bound=1.0))
    sub = [*about(nz), f"method: {method}; each box: the configurations of the study"]
    if below:
        sub.append(f"{below} n* below 1 drawn at 1 (one condition suffices)")
    if undefined:
        sub.append(f"{undefined} configuration x kernel x {sym[vary]} cells with undefined n* "
                   "(too few results) not shown")
    if ok.height == 0:
        return note_of("n* is undefined for every configuration (too few results per "
                     "configuration for the power-law fit)", ttl)
    keys = [vary, "kernel_label"]
    stats = _box_stats(ok, keys)
    base = baseline_rows(ok, keys)
    xenc = ch(alt.X, vary, "O", title=sym[vary], axis=alt.Axis(labelAngle=0))
    off = ch(alt.XOffset, "kernel_label", "N")
    col = ch(alt.Color, "kernel_label", "N", title="kernel (research question)")
    vmin, vmax = float(ok["nstar"].min()), float(ok["nstar"].max())
    if base is not None:
        vmin = min(vmin, float(base["nstar_null_lo"].fill_null(base["nstar_null"]).min()))
        vmax = max(vmax, float(base["nstar_null_hi"].fill_null(base["nstar_null"]).max()))
        sub.append(f"{BASELINE} (triangle, with its band): median over the configurations of "
                   "the n* the study would have if no alternative were better")
    if vmax <= vmin * 1.0001:
        domain = [max(vmin / 2.0, 1.0), max(vmax * 2.0, 2.0)]
        sub.append(f"every n* equals {vmin:g}")
    else:
        domain = [max(vmin / 1.2, 1.0), vmax * 1.2]
    yscale = alt.Scale(type="log", domain=domain, nice=False)
    yaxis = log_axis("n* (log scale)", *domain)
    stat_tip = [tip_of("kernel_label", "N", title="kernel"), tip_of(vary, "O"),
                tip_of("configurations", "Q"),
                tip_of("median", "Q", format=".1f"), tip_of("q1", "Q", format=".1f"),
                tip_of("q3", "Q", format=".1f"), tip_of("lower", "Q", format=".1f"),
                tip_of("upper", "Q", format=".1f")]
    sdata = data_of(stats)
    whisk = alt.Chart(sdata).mark_rule().encode(
        x=xenc, xOffset=off, color=col,
        y=ch(alt.Y, "lower", "Q", scale=yscale, axis=yaxis), y2=ch(alt.Y2, "upper"),
        tooltip=stat_tip)
    box = alt.Chart(sdata).mark_bar(size=14, opacity=0.75, stroke="black",
                                    strokeWidth=0.5).encode(
        x=xenc, xOffset=off, color=col, y=ch(alt.Y, "q1", "Q", scale=yscale),
        y2=ch(alt.Y2, "q3"), tooltip=stat_tip)
    med = alt.Chart(sdata).mark_tick(color="black", size=14, thickness=2).encode(
        x=xenc, xOffset=off, y=ch(alt.Y, "median", "Q", scale=yscale), tooltip=stat_tip)
    layers = [whisk, box, med]
    if base is not None:
        btip = baseline_tip([tip_of("kernel_label", "N", title="kernel"), tip_of(vary, "O")])
        bdata = data_of(base)
        layers.append(alt.Chart(bdata).mark_rule(color="black", opacity=0.6, strokeWidth=1)
                      .encode(x=xenc, xOffset=off, y=ch(alt.Y, "nstar_null_lo", "Q",
                                                        scale=yscale),
                              y2=ch(alt.Y2, "nstar_null_hi"), tooltip=btip))
        layers.append(alt.Chart(bdata).mark_point(color="black", filled=True, size=50)
                      .encode(x=xenc, xOffset=off, shape=baseline_shape(),
                              y=ch(alt.Y, "nstar_null", "Q", scale=yscale), tooltip=btip))
    if points != "none":
        pts = ok.join(stats.select(*keys, "q1", "q3", "lower", "upper"), on=keys, how="left")
        if points == "outliers":
            # a box that collapses (the configurations agree) shows its points instead
            flat = (pl.col("q3") - pl.col("q1")) <= 1e-6 * pl.col("q3").abs().clip(1.0)
            pts = pts.filter((pl.col("nstar") < pl.col("lower")) |
                             (pl.col("nstar") > pl.col("upper")) | flat)
        keep = ["config_id", *design, "kernel_label", vary, "N", "nstar", "nstar_ceil",
                "generalizable"]
        pts = pts.select([c for c in keep if c in pts.columns])
        if pts.height:
            tip = tooltip_fields(pts, [*design, "kernel_label", vary, "N", "nstar",
                                        "nstar_ceil", "generalizable", "config_id"])
            layers.append(
                alt.Chart(data_of(pts)).mark_point(size=22, filled=True, opacity=0.7)
                .encode(x=xenc, xOffset=off, color=col,
                        y=ch(alt.Y, "nstar", "Q", scale=yscale), tooltip=tip))
    return layered(layers, heading(ttl, sub))


# ---------------------------------------------------------------------------------------
# Algorithm 1, simulated: n*_N as the preliminary study grows
