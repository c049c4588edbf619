"""Two figures of the generalizability paper that the other builders do not draw.

=================================  =============================================  ==========
builder                            input frame                                    paper
=================================  =============================================  ==========
:func:`generalizability_example`   ``GeneralizabilityAnalysis.mmd_frame``         Figure 1
:func:`nstar_by_parameter`         n* rows with a ``parameter`` column            Section 4.3
                                   (``genexpy_nb.nstar_by_kernel_parameter``)  (kernels)
=================================  =============================================  ==========

Figure 1 of the paper shows what "n-generalizable" means for one n: the distribution of the
distance between the results of two independent studies of n experiments each, and the share of
pairs closer than eps — that share is the n-generalizability. The second builder shows how the
kernels' parameters (Borda's and Mallows' nu, Jaccard's k, RBF's gamma) move n*.
"""

from __future__ import annotations

from typing import Any

import altair as alt
import numpy as np
import polars as pl

from .._validation import GenexpyInputError, to_polars
from .base import WIDTH, ch, data_of, heading, layered, note_of, tip_of

__all__ = ["generalizability_example", "nstar_by_parameter"]


def generalizability_example(mmd: Any, n: int, eps: float, *, bins: int = 30,
                             title: str | None = None) -> alt.LayerChart | alt.Chart:
    """Figure 1: the distribution of MMD_n for one n, the part within eps highlighted.

    Parameters
    ----------
    mmd : frame with columns ``n`` and ``mmd``
        Resampled MMD values, e.g. ``GeneralizabilityAnalysis.mmd_frame(config, kernel)``.
    n : int
        The study size to show (must be one of the frame's n).
    eps : float
        The similarity threshold eps (e.g. the ``eps`` column of the n* rows).
    bins : int
        Number of histogram bins between 0 and the largest MMD value.
    title : str, optional
        Chart title; default "<n>-generalizability".

    Returns
    -------
    altair.LayerChart
        Bars of the MMD_n histogram (pairs within eps in blue, the others grey), a rule at eps,
        and the n-generalizability (the share within eps) in the title.
    """
    df = to_polars(mmd, "mmd")
    for c in ("n", "mmd"):
        if c not in df.columns:
            raise GenexpyInputError(f"mmd: column {c!r} is missing; pass "
                                    "GeneralizabilityAnalysis.mmd_frame(config, kernel).")
    if not (isinstance(eps, (int, float, np.floating)) and np.isfinite(eps) and eps > 0):
        raise GenexpyInputError(f"eps must be a positive number, got {eps!r}.")
    if not isinstance(bins, (int, np.integer)) or bins < 2:
        raise GenexpyInputError(f"bins must be an integer >= 2, got {bins!r}.")
    ns = sorted(df["n"].unique().to_list())
    if n not in ns:
        raise GenexpyInputError(f"n = {n!r} is not in the frame; available: {ns}.")
    x = df.filter(pl.col("n") == n)["mmd"].to_numpy().astype(np.float64)
    head = title or f"{n}-generalizability"
    if x.size == 0:
        return note_of("no MMD samples", head)
    share = float(np.mean(x <= eps + 1e-12))
    hi = max(float(x.max()), float(eps)) * 1.02 or 1.0
    edges = np.linspace(0.0, hi, int(bins) + 1)
    counts, _ = np.histogram(x, bins=edges)
    # a bar is "within eps" when it lies left of eps; the bar containing eps is split there so
    # that the blue area is exactly the share of pairs within eps
    rows = []
    for lo, up, c in zip(edges[:-1], edges[1:], counts):
        if c == 0:
            continue
        inside = x[(x >= lo) & ((x < up) | (up == edges[-1]))]
        k_in = int(np.sum(inside <= eps + 1e-12))
        if k_in:
            rows.append({"lo": lo, "hi": up, "pairs": k_in / x.size, "side": "within eps"})
        if c - k_in:
            rows.append({"lo": lo, "hi": up, "pairs": (c - k_in) / x.size,
                         "side": "farther than eps"})
    bars = (
        alt.Chart(data_of(pl.DataFrame(rows)))
        .mark_bar(opacity=0.85)
        .encode(
            x=ch(alt.X, "lo", "Q", bin="binned", title=f"MMD between two studies of n = {n}"),
            x2=ch(alt.X2, "hi"),
            y=ch(alt.Y, "pairs", "Q", stack=True, title="share of resampled pairs"),
            color=ch(alt.Color, "side", "N", title=None,
                      scale=alt.Scale(domain=["within eps", "farther than eps"],
                                      range=["#4c78a8", "#bab0ac"])),
            tooltip=[tip_of("lo", "Q", format=".3f", title="from"),
                     tip_of("hi", "Q", format=".3f", title="to"),
                     tip_of("pairs", "Q", format=".3f", title="share"), tip_of("side", "N")],
        )
    )
    rule = (
        alt.Chart(data_of([{"eps": float(eps), "label": f"eps = {eps:.3g}"}]))
        .mark_rule(strokeDash=[5, 3], color="black")
        .encode(x=ch(alt.X, "eps", "Q"), tooltip=[tip_of("label", "N")])
    )
    sub = (f"P(MMD_{n} <= eps) = {share:.2f}: the share of pairs of studies of {n} "
           f"experiments whose results are within eps")
    return layered([bars, rule], heading(head, sub), width=WIDTH, height=240)


def nstar_by_parameter(frame: Any, *, title: str = "n* against the kernel's parameter"
                       ) -> alt.Chart:
    """Draw n* against each kernel's parameter (one panel per kernel, log-scaled n*).

    Parameters
    ----------
    frame : frame with columns ``kernel``, ``parameter``, ``value``, ``nstar``
        One row per (kernel, parameter value); e.g. from
        ``genexpy_nb.nstar_by_kernel_parameter``. An optional ``default`` boolean column
        marks the package's default parameter (drawn as a larger point).
    title : str, default "n* against the kernel's parameter"
        Chart title.

    Returns
    -------
    altair.FacetChart or altair.Chart
        One panel per kernel and parameter (four per row, independent x scales): n* against
        the parameter's value on log-log axes, a line with points, the default larger. Rows
        whose n* is undefined are left out; when every one is, a chart with a text note.
    """
    df = to_polars(frame, "frame")
    for c in ("kernel", "parameter", "value", "nstar"):
        if c not in df.columns:
            raise GenexpyInputError(f"frame: column {c!r} is missing.")
    df = df.filter(pl.col("nstar").is_finite())
    if df.height == 0:
        return note_of("every n* is undefined", title)
    if "default" not in df.columns:
        df = df.with_columns(pl.lit(False).alias("default"))
    df = df.with_columns(pl.format("{} ({})", "kernel", "parameter").alias("panel"))
    base = alt.Chart(width=190, height=170).encode(
        x=ch(alt.X, "value", "Q", scale=alt.Scale(type="log"),
              title="parameter value (log scale)"),
        y=ch(alt.Y, "nstar", "Q", scale=alt.Scale(type="log"), title="n* (log scale)"),
    )
    line = base.mark_line(color="#4c78a8")
    points = base.mark_point(filled=True, color="#4c78a8").encode(
        size=ch(alt.Size, "default", "N", title="package default",
                 scale=alt.Scale(domain=[False, True], range=[25, 150])),
        tooltip=[tip_of("kernel", "N"), tip_of("parameter", "N"),
                 tip_of("value", "Q", format=".4g"), tip_of("nstar", "Q", format=".1f")],
    )
    return (
        alt.layer(line, points, data=data_of(df))
        .facet(facet=ch(alt.Facet, "panel", "N", title=None,
                         header=alt.Header(labelOrient="top", labelFontSize=12)), columns=4)
        .resolve_scale(x="independent")
        .properties(title=heading(title))
    )
