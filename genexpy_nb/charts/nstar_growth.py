"""Charts of n* across a study: as the study grows (Algorithm 1) and with its interval.

Pure functions from the tidy frames of :func:`~genexpy_nb.analyze` and of the preliminary-study
simulation to Altair charts, like :mod:`genexpy_nb.charts`' other builders (see the table in
``charts/generalizability.py``): inline data, a note instead of an exception for empty or
degenerate input, :class:`~genexpy_nb.GenexpyInputError` for a frame without the needed
columns.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import altair as alt
import polars as pl

from .._validation import GenexpyInputError
from .base import (
    BASELINE,
    about,
    baseline_rows,
    baseline_shape,
    baseline_tip,
    ch,
    configuration_words,
    data_of,
    frame_of,
    heading,
    layered,
    log_axis,
    note_of,
    question_words,
    select_close,
    tip_of,
    tooltip_fields,
)

__all__ = ["nstar_vs_N", "nstar_intervals"]


# ---------------------------------------------------------------------------------------
def nstar_vs_N(
    sim_frame: Any,
    *,
    title: str | None = None,
    alpha: float | None = None,
    delta: float | None = None,
    method: str | None = None,
    levels: Mapping[str, Any] | None = None,
) -> alt.LayerChart | alt.Chart:
    """n*_N estimated from N = N0, 2 N0, ... results, with the diagonal n* = N.

    Parameters
    ----------
    sim_frame : the frame of :func:`genexpy_nb.simulate_preliminary_study` (columns N_sub,
        repetition, kernel_label, nstar; optionally alpha, delta, method, N, generalizable)
    title : chart title
    alpha, delta, method : select one (alpha*, delta*, method) when the frame holds several
    levels : the configuration's levels ``{factor: level}``, shown in the title

    Returns
    -------
    altair chart: ``point`` marks (every repetition) and a ``line`` through the median per N
    (x = N_sub, y = nstar, colour = kernel), and a ``line`` for the diagonal n* = N:
    Algorithm 1 stops at the first N whose estimate lies on or below the diagonal. A rule
    marks the N of the full study when the frame has it. When the frame has the no-signal
    baseline (``nstar_null``, the default of :func:`genexpy_nb.simulate_preliminary_study`),
    a dashed ``line`` with triangles per kernel draws its median per N (shape legend
    "no-signal baseline n*"); an estimate on or above it is no more consistent than chance.
    """
    df = frame_of(sim_frame, "sim_frame", ["N_sub", "kernel_label", "nstar"])
    ttl = title or "n* estimated from N preliminary results (Algorithm 1)"
    if df.height == 0:
        return note_of("no simulated preliminary studies to plot (empty frame)", ttl)
    df, combo = _select_simulation(df, alpha=alpha, delta=delta, method=method)
    if "repetition" not in df.columns:
        df = df.with_columns(pl.lit(0).alias("repetition"))
    df = df.with_columns(pl.col("nstar").cast(pl.Float64))
    ok = df.filter(pl.col("nstar").is_finite(), pl.col("nstar") > 0)
    below = int((ok["nstar"] < 1).sum())
    ok = ok.with_columns(pl.col("nstar").clip(lower_bound=1.0))  # never drawn below 1
    words = [w for w in (configuration_words(None, levels), question_words(df)) if w]
    sub = ["; ".join(words)] if words else []
    if below:
        sub.append(f"{below} n* below 1 drawn at 1 (one condition suffices)")
    if combo:
        first = df.select(combo).row(0, named=True)
        sub.append(", ".join(f"{k}* = {v:g}" if isinstance(v, float) else f"{k}: {v}"
                             for k, v in first.items()))
    undefined = df.height - ok.height
    if undefined:
        sub.append(f"{undefined} estimates with undefined n* not shown")
    if ok.height == 0:
        return note_of("n* is undefined for every simulated preliminary study", ttl)
    keep = [c for c in ("N_sub", "repetition", "kernel", "kernel_label", "nstar",
                        "nstar_ceil", "generalizable", "N") if c in ok.columns]
    pts = ok.select(keep)
    med = pts.group_by(["N_sub", "kernel_label"], maintain_order=True).agg(
        pl.col("nstar").median().alias("nstar")).sort(["kernel_label", "N_sub"])
    band = _median_band(ok)
    if band is not None:
        sub.append("band: median 90 % interval of n*")
    base = baseline_rows(df, ["N_sub", "kernel_label"])
    if base is not None:
        base = base.sort(["kernel_label", "N_sub"])
        sub.append(f"dashed, triangles: {BASELINE}, the n* the same results would give if "
                   "no alternative were better (median per N)")
    top = float(max(pts["nstar"].max(), pts["N_sub"].max(),
                    band["nstar_hi"].max() if band is not None else 0.0,
                    base["nstar_null"].max() if base is not None else 0.0)) * 1.05
    lo = float(min(pts["N_sub"].min(), 1))
    diag = pl.DataFrame({"N_sub": [lo, top], "nstar": [lo, top],
                         "label": ["n* = N (generalizable below)"] * 2})
    xenc = ch(alt.X, "N_sub", "Q", title="N: preliminary results used")
    yenc = ch(alt.Y, "nstar", "Q", title="estimated n*")
    col = ch(alt.Color, "kernel_label", "N", title="kernel")
    tip = tooltip_fields(pts, ["kernel_label", "N_sub", "repetition", "nstar", "nstar_ceil",
                                "generalizable", "N"])
    layers = [
        alt.Chart(data_of(diag)).mark_line(color="grey", strokeDash=[4, 4])
        .encode(x=xenc, y=yenc, tooltip=[tip_of("label", "N", title="diagonal")]),
    ]
    if band is not None:
        layers.append(
            alt.Chart(data_of(band)).mark_area(opacity=0.15)
            .encode(x=xenc, y=ch(alt.Y, "nstar_lo", "Q", title="estimated n*"),
                    y2=alt.Y2("nstar_hi"), color=col,
                    tooltip=[tip_of("kernel_label", "N", title="kernel"),
                             tip_of("N_sub", "Q", title="N"),
                             tip_of("nstar_lo", "Q", title="median lower end", format=".1f"),
                             tip_of("nstar_hi", "Q", title="median upper end", format=".1f")]))
    layers += [
        alt.Chart(data_of(pts)).mark_point(filled=True, opacity=0.5, size=35)
        .encode(x=xenc, y=yenc, color=col, tooltip=tip),
        alt.Chart(data_of(med)).mark_line(point=True, strokeWidth=2)
        .encode(x=xenc, y=yenc, color=col,
                tooltip=[tip_of("kernel_label", "N", title="kernel"),
                         tip_of("N_sub", "Q", title="N"),
                         tip_of("nstar", "Q", title="median n*", format=".1f")]),
    ]
    if base is not None:
        layers += _baseline_per_N(base, xenc, col)
    if "N" in df.columns and df["N"].n_unique() == 1:
        Nfull = int(df["N"][0])
        layers.append(
            alt.Chart(data_of([{"N": Nfull, "label": f"all {Nfull} observed results"}]))
            .mark_rule(color="seagreen", strokeDash=[6, 3])
            .encode(x=ch(alt.X, "N", "Q"), tooltip=[tip_of("label", "N", title="full study")]))
    return layered(layers, heading(ttl, sub or None))


def _select_simulation(df: pl.DataFrame, *, alpha: float | None, delta: float | None,
                       method: str | None) -> tuple[pl.DataFrame, list[str]]:
    """Return the rows of one (alpha*, delta*, method) and the columns naming it.

    The frame is filtered on ``alpha``, ``delta`` and ``method`` where given and where it
    has the column; raise when no row has ``method``, or when several combinations remain.
    """
    if alpha is not None and "alpha" in df.columns:
        df = select_close(df, "alpha", float(alpha), "alpha")
    if delta is not None and "delta" in df.columns:
        df = select_close(df, "delta", float(delta), "delta")
    if method is not None and "method" in df.columns:
        df = df.filter(pl.col("method") == method)
        if df.height == 0:
            raise GenexpyInputError(f"no rows with method {method!r} in sim_frame.")
    combo = [c for c in ("alpha", "delta", "method") if c in df.columns]
    if combo and df.select(combo).unique().height > 1:
        raise GenexpyInputError(
            f"sim_frame holds several {combo} combinations "
            f"{df.select(combo).unique().sort(combo).rows()}; pick one with alpha=, delta=, "
            "method=.")
    return df, combo


def _median_band(ok: pl.DataFrame) -> pl.DataFrame | None:
    """Return the median interval ends of n* per N and kernel (1 at least), or None.

    None when the frame has no ``nstar_lo`` / ``nstar_hi`` or no row where both are finite.
    """
    if not {"nstar_lo", "nstar_hi"} <= set(ok.columns):
        return None
    band = (ok.filter(pl.col("nstar_lo").is_finite(), pl.col("nstar_hi").is_finite())
            .group_by(["N_sub", "kernel_label"], maintain_order=True)
            .agg(pl.col("nstar_lo").median().clip(lower_bound=1.0),
                 pl.col("nstar_hi").median().clip(lower_bound=1.0))
            .sort(["kernel_label", "N_sub"]))
    return None if band.height == 0 else band


def _baseline_per_N(base: pl.DataFrame, xenc: Any, col: Any) -> list[alt.Chart]:
    """Return the no-signal baseline of :func:`nstar_vs_N`: a dashed line with triangles."""
    btip = baseline_tip([tip_of("kernel_label", "N", title="kernel"),
                          tip_of("N_sub", "Q", title="N")])
    bdata = data_of(base)
    return [
        alt.Chart(bdata).mark_line(strokeWidth=1.5, strokeDash=[6, 4], opacity=0.8)
        .encode(x=xenc, y=ch(alt.Y, "nstar_null", "Q", title="estimated n*"), color=col,
                tooltip=btip),
        alt.Chart(bdata).mark_point(filled=True, size=40, opacity=0.8)
        .encode(x=xenc, y=ch(alt.Y, "nstar_null", "Q", title="estimated n*"), color=col,
                shape=baseline_shape(), tooltip=btip),
    ]


# ---------------------------------------------------------------------------------------
# n* with its interval, for one configuration
# ---------------------------------------------------------------------------------------
def nstar_intervals(
    results: Any,
    *,
    vary: str = "alpha",
    alpha: float | None = None,
    delta: float | None = None,
    config_id: int | None = None,
    levels: Mapping[str, Any] | None = None,
    title: str | None = None,
) -> alt.LayerChart | alt.Chart:
    """n* and its interval ``[nstar_lo, nstar_hi]`` against alpha* or delta*, per kernel.

    Parameters
    ----------
    results : the frame of :func:`genexpy_nb.analyze` (with ``interval=True``, the default)
    vary : "alpha" (x = alpha*, at ``delta``) or "delta" (x = delta*, at ``alpha``)
    alpha, delta : the threshold held fixed (default: the paper's 0.95 / 0.05)
    config_id : the configuration to show (default: the only one in the frame)
    levels : alternatively, the configuration's design levels, e.g. ``{"model": "LR"}``
    title : chart title

    Returns
    -------
    altair chart: a ``rule`` from nstar_lo to nstar_hi and a ``point`` at n* (filled when the
    estimate is reliable, hollow when flagged, with the reason in the tooltip) for every
    kernel (colour), on a log scale, and a horizontal ``rule`` at the configuration's N: a
    kernel whose whole interval lies below N is generalizable even at the upper end.
    """
    if vary not in ("alpha", "delta"):
        raise GenexpyInputError(f"vary must be 'alpha' or 'delta', got {vary!r}.")
    df = frame_of(results, "results", ["config_id", "kernel_label", "alpha", "delta", "N",
                                     "method", "nstar", "nstar_lo", "nstar_hi"])
    ttl = title or ("n* and its interval against alpha*" if vary == "alpha"
                    else "n* and its interval against delta*")
    df = df.filter(pl.col("method") == "resample")
    if df.height == 0:
        return note_of("no resampled n* in the frame", ttl)
    if levels:
        for k, v in levels.items():
            if k not in df.columns:
                raise GenexpyInputError(f"levels names {k!r}, which is not a column.")
            df = df.filter(pl.col(k) == v)
    if config_id is not None:
        df = df.filter(pl.col("config_id") == int(config_id))
    cids = df["config_id"].unique().to_list()
    if len(cids) != 1:
        raise GenexpyInputError(
            f"the frame holds {len(cids)} configurations here; choose one with config_id= or "
            "levels=.")
    fixed = "delta" if vary == "alpha" else "alpha"
    fv = {"alpha": 0.95 if alpha is None else float(alpha),
          "delta": 0.05 if delta is None else float(delta)}[fixed]
    df = select_close(df, fixed, fv, fixed)
    df = df.with_columns(pl.col("nstar", "nstar_lo", "nstar_hi").cast(pl.Float64))
    if "reliable" not in df.columns:
        df = df.with_columns(pl.lit(True).alias("reliable"))
    ok = df.filter(pl.col("nstar").is_finite(), pl.col("nstar") > 0)
    if ok.height == 0:
        return note_of("n* is undefined here for every kernel", ttl)
    below = int((ok["nstar"] < 1).sum())
    # n* (and the interval) below 1 means one condition suffices: drawn at 1, never below
    ok = ok.with_columns(pl.col("nstar", "nstar_lo", "nstar_hi").clip(lower_bound=1.0))
    N = int(ok["N"][0])
    vals = [v for v in (ok["nstar"].to_list() + ok["nstar_lo"].to_list()
                        + ok["nstar_hi"].to_list() + [N]) if v is not None and
            math.isfinite(v) and v > 0]
    vmin, vmax = min(vals), max(vals)
    yscale = alt.Scale(type="log", domain=[max(vmin / 1.2, 1.0), max(vmax * 1.2, 2.0)])
    keep = ["kernel_label", vary, "N", "nstar", "nstar_lo", "nstar_hi", "reliable",
            *[c for c in ("nstar_ceil", "generalizable", "reason") if c in ok.columns]]
    pts = ok.select(keep).with_columns(pl.col("reliable").fill_null(False))
    xenc = ch(alt.X, vary, "O", title=f"{vary}*")
    col = ch(alt.Color, "kernel_label", "N", title="kernel")
    off = ch(alt.XOffset, "kernel_label", "N")
    tip = tooltip_fields(pts, ["kernel_label", vary, "nstar", "nstar_lo", "nstar_hi", "N",
                                "generalizable", "reason"])
    yaxis = log_axis("n* (log scale)", vmin, vmax)
    layers = [
        alt.Chart(data_of(pts.filter(pl.col("nstar_lo").is_finite(),
                                   pl.col("nstar_hi").is_finite())))
        .mark_rule(strokeWidth=2)
        .encode(x=xenc, xOffset=off, color=col,
                y=ch(alt.Y, "nstar_lo", "Q", scale=yscale, axis=yaxis),
                y2=alt.Y2("nstar_hi"), tooltip=tip),
        *[alt.Chart(data_of(part)).mark_point(size=70, filled=filled, opacity=1.0)
          .encode(x=xenc, xOffset=off, color=col,
                  y=ch(alt.Y, "nstar", "Q", scale=yscale, axis=yaxis), tooltip=tip)
          for part, filled in ((pts.filter(pl.col("reliable")), True),
                               (pts.filter(~pl.col("reliable")), False)) if part.height],
        alt.Chart(data_of([{"N": N, "label": f"N = {N} conditions observed"}]))
        .mark_rule(color="seagreen", strokeDash=[6, 3])
        .encode(y=ch(alt.Y, "N", "Q", scale=yscale), tooltip=[tip_of("label", "N", title="N")]),
    ]
    sub = [*about(df), f"{fixed}* = {fv:g}; bars: interval of n*; hollow points: estimates "
           f"flagged as unreliable; dashed line: N = {N}"]
    if below:
        sub.append(f"{below} n* below 1 drawn at 1 (one condition suffices)")
    return layered(layers, heading(ttl, sub))
