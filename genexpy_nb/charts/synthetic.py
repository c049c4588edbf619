"""Charts of the experiments on known distributions (paper Figures 5 and 6).

=============================  ==============================================  ==========
builder                        input frame (``generalizability.synthetic``)    paper
=============================  ==============================================  ==========
:func:`nstar_ratio_boxplots`   ``preliminary_nstar`` joined with the           Figure 5
                               true n* (a ``ratio`` column)
:func:`ngen_by_significance`   ``significance_vs_generalizability``            Figure 6
=============================  ==============================================  ==========

Box statistics are computed here (Tukey: box = quartiles, whiskers = the most extreme values
within 1.5 IQR, points beyond), so the charts carry small inline data and render the same
everywhere.
"""

from __future__ import annotations

import math
from typing import Any

import altair as alt
import polars as pl

from .._validation import GenexpyInputError
from .base import data_of, frame_of, heading, log_axis, note_of

__all__ = ["nstar_ratio_boxplots", "ngen_by_significance"]

WIDTH = 420
HEIGHT = 280


def _tukey(df: pl.DataFrame, keys: list[str], col: str) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(box statistics per group, outlying points) of ``col``."""
    q = df.group_by(keys, maintain_order=True).agg(
        pl.col(col).quantile(0.25, "linear").alias("q1"),
        pl.col(col).median().alias("median"),
        pl.col(col).quantile(0.75, "linear").alias("q3"),
        pl.len().alias("count"),
    )
    j = df.join(q, on=keys, how="left").with_columns((pl.col("q3") - pl.col("q1")).alias("iqr"))
    j = j.with_columns(
        ((pl.col(col) >= pl.col("q1") - 1.5 * pl.col("iqr"))
         & (pl.col(col) <= pl.col("q3") + 1.5 * pl.col("iqr"))).alias("_in"))
    w = j.group_by(keys, maintain_order=True).agg(
        pl.col(col).filter(pl.col("_in")).min().alias("lower"),
        pl.col(col).filter(pl.col("_in")).max().alias("upper"),
    )
    out = j.filter(~pl.col("_in")).select(*keys, col)
    return q.join(w, on=keys, how="left"), out


def _box_layers(stats: pl.DataFrame, out: pl.DataFrame, x: alt.X, group: str, y: str,
                scale: alt.Scale, axis: alt.Axis, color_title: str, tips: list,
                offset: bool = True) -> list:
    col = alt.Color(f"{group}:N", title=color_title)
    off = alt.XOffset(f"{group}:N") if offset else alt.XOffset()
    sdata = data_of(stats)
    layers = [
        alt.Chart(sdata).mark_rule().encode(
            x=x, xOffset=off, color=col, y=alt.Y("lower:Q", scale=scale, axis=axis),
            y2="upper:Q", tooltip=tips),
        alt.Chart(sdata).mark_bar(size=14, opacity=0.75, stroke="black", strokeWidth=0.5)
        .encode(x=x, xOffset=off, color=col, y=alt.Y("q1:Q", scale=scale), y2="q3:Q",
                tooltip=tips),
        alt.Chart(sdata).mark_tick(color="black", size=14, thickness=2).encode(
            x=x, xOffset=off, y=alt.Y("median:Q", scale=scale), tooltip=tips),
    ]
    if out.height:
        layers.append(alt.Chart(data_of(out)).mark_point(size=18, filled=True, opacity=0.6)
                      .encode(x=x, xOffset=off, color=col,
                              y=alt.Y(f"{y}:Q", scale=scale)))
    return layers


def nstar_ratio_boxplots(
    frame: Any, *, band: tuple[float, float] = (0.5, 2.0), title: str | None = None,
) -> alt.LayerChart | alt.Chart:
    """Draw the ratio n̂*_N / n* by N and kernel, box plots on a log scale (paper Figure 5).

    Parameters
    ----------
    frame : tidy frame with columns ``N``, ``kernel_label`` and ``ratio`` (n̂*_N / n*), one
        row per preliminary study, e.g. ``genexpy_nb.generalizability.synthetic.preliminary_nstar``
        joined with ``genexpy_nb.generalizability.synthetic.true_nstar_frame``
    band : the shaded band of acceptable ratios (default [0.5, 2]: within a factor 2)
    title : chart title

    Returns
    -------
    altair chart: a ``rect`` band, a ``rule`` at ratio 1, then per N (x, ordinal) and kernel
    (xOffset and colour) a Tukey box plot (``rule`` whiskers, ``bar`` box, ``tick``
    median, ``point`` outliers) with y = ratio on a ``log`` scale; whiskers at 1.5 IQR of
    log ratio. Undefined ratios (n̂* undefined) are counted in the subtitle and left out.
    """
    df = frame_of(frame, "frame", ["N", "kernel_label", "ratio"])
    lo, hi = (float(v) for v in band)
    if not (0 < lo < hi and math.isfinite(hi)):
        raise GenexpyInputError(f"band must be two numbers 0 < low < high, got {band!r}.")
    ttl = title or "n* estimated from N preliminary results, over the true n*"
    if df.height == 0:
        return note_of("no results to plot (empty frame)", ttl)
    d = df.with_columns(pl.col("ratio").cast(pl.Float64))
    ok = d.filter(pl.col("ratio").is_finite(), pl.col("ratio") > 0)
    if ok.height == 0:
        return note_of("every ratio is undefined", ttl)
    within = (ok.group_by("N").agg(pl.col("ratio").is_between(lo, hi).mean().alias("w"))
              .sort("N"))
    sub = ["share within the band: " + ", ".join(
        f"N={n}: {w:.0%}" for n, w in within.iter_rows())]
    if d.height > ok.height:
        sub.append(f"{d.height - ok.height} undefined n̂* not shown")
    keys = ["N", "kernel_label"]
    logd = ok.with_columns(pl.col("ratio").log10().alias("_l"))
    st, out = _tukey(logd, keys, "_l")
    st = st.with_columns([(10.0 ** pl.col(c)).alias(c)
                          for c in ("q1", "median", "q3", "lower", "upper")])
    out = out.with_columns((10.0 ** pl.col("_l")).alias("ratio")).drop("_l")
    vmin = min(float(ok["ratio"].min()), lo) / 1.2
    vmax = max(float(ok["ratio"].max()), hi) * 1.2
    scale = alt.Scale(type="log", domain=[vmin, vmax], nice=False)
    axis = log_axis("estimated n* / true n* (log scale)", vmin, vmax)
    x = alt.X("N:O", title="N, number of preliminary results", axis=alt.Axis(labelAngle=0))
    tips = [alt.Tooltip("kernel_label:N", title="kernel"), alt.Tooltip("N:O"),
            alt.Tooltip("count:Q", title="repetitions"),
            alt.Tooltip("median:Q", format=".2f"), alt.Tooltip("q1:Q", format=".2f"),
            alt.Tooltip("q3:Q", format=".2f")]
    bnd = alt.Chart(data_of([{"lo": lo, "hi": hi}])).mark_rect(color="#2ca02c", opacity=0.12) \
        .encode(y=alt.Y("lo:Q", scale=scale), y2="hi:Q")
    one = alt.Chart(data_of([{"one": 1.0}])).mark_rule(color="#555", strokeDash=[4, 3]) \
        .encode(y=alt.Y("one:Q", scale=scale))
    layers = _box_layers(st, out, x, "kernel_label", "ratio", scale, axis,
                         "kernel (research question)", tips)
    return alt.layer(bnd, one, *layers).properties(width=WIDTH, height=HEIGHT,
                                                   title=heading(ttl, sub))


def ngen_by_significance(frame: Any, *, n_gen: int | None = None, title: str | None = None
                         ) -> alt.HConcatChart | alt.Chart:
    """Draw n-generalizability by Conover–Iman significance and best alternative (Figure 6).

    The n-generalizability of the samples, split by whether the Conover–Iman test finds a
    significant difference and by their best alternative (paper Figure 6).

    Parameters
    ----------
    frame : ``genexpy_nb.generalizability.synthetic.significance_vs_generalizability`` (columns
        ``ci_significant``, ``best``, ``ngen``)
    n_gen : the n of the n-generalizability, for the axis title
    title : chart title

    Returns
    -------
    altair ``hconcat`` of two Tukey box plots of ngen: left by C-I significance, right by
    best alternative (x) and C-I significance (xOffset and colour).
    """
    df = frame_of(frame, "frame", ["ci_significant", "best", "ngen"])
    ttl = title or "Generalizability of samples, by significance"
    if df.height == 0:
        return note_of("no samples to plot (empty frame)", ttl)
    d = df.select(pl.col("ci_significant").cast(pl.String).alias("C-I significant"),
                  pl.col("best").cast(pl.String), pl.col("ngen").cast(pl.Float64))
    ylab = f"{n_gen}-generalizability" if n_gen else "n-generalizability"
    low = float(d["ngen"].min()) if d["ngen"].is_finite().any() else 0.0
    scale = alt.Scale(domain=[round(max(0.0, math.floor(10 * low) / 10 - 0.05), 2), 1.0],
                      nice=False)
    axis = alt.Axis(title=ylab)
    tips = [alt.Tooltip("C-I significant:N"), alt.Tooltip("count:Q", title="samples"),
            alt.Tooltip("median:Q", format=".3f"), alt.Tooltip("q1:Q", format=".3f"),
            alt.Tooltip("q3:Q", format=".3f")]
    st, out = _tukey(d, ["C-I significant"], "ngen")
    left = alt.layer(*_box_layers(
        st, out, alt.X("C-I significant:N", axis=alt.Axis(labelAngle=0)), "C-I significant",
        "ngen", scale, axis, "C-I significant", tips, offset=False)).properties(
        width=160, height=HEIGHT, title=heading("by C-I significance"))
    order = sorted(d["best"].unique().to_list(), key=lambda s: (len(s), s))
    st2, out2 = _tukey(d, ["best", "C-I significant"], "ngen")
    right = alt.layer(*_box_layers(
        st2, out2, alt.X("best:N", sort=order, title="best alternative (most often first)",
                         axis=alt.Axis(labelAngle=0)),
        "C-I significant", "ngen", scale, axis, "C-I significant",
        [alt.Tooltip("best:N"), *tips])).properties(
        width=260, height=HEIGHT, title=heading("by C-I significance and best alternative"))
    counts = d.group_by("C-I significant").len().sort("C-I significant")
    sub = "samples: " + ", ".join(f"C-I significant {s}: {c}" for s, c in counts.iter_rows())
    return alt.hconcat(left, right).properties(title=heading(ttl, sub))
