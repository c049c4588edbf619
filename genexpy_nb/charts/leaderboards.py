"""The places each entry of a leaderboard can hold: a caterpillar of rank sets, tiers shaded.

Draws the frame of :func:`genexpy_nb.rank_sets` (or of :func:`genexpy_nb.bradley_terry`,
whose reliable models carry rank sets too): one row per entry, best first, a bar over its
set of places ``[rank_lo, rank_hi]`` and a dot at its observed place, the rows of each tier on
a shaded band (tiers alternate two shades).
"""

from __future__ import annotations

from typing import Any

import altair as alt
import polars as pl

from .._validation import GenexpyInputError
from .base import WIDTH, ch, data_of, frame_of, heading, tip_of

__all__ = ["rank_sets_chart"]


def _one_configuration(df: pl.DataFrame, config_id: Any) -> pl.DataFrame:
    if "config_id" not in df.columns:
        return df
    ids = df["config_id"].unique(maintain_order=True).to_list()
    if config_id is None:
        if len(ids) > 1:
            raise GenexpyInputError(f"the frame has {len(ids)} configurations; choose one with "
                                    f"config_id= (one of {ids[:5]}).")
        return df
    if config_id not in ids:
        raise GenexpyInputError(f"config_id={config_id!r} is not in the frame (it has "
                                f"{ids[:5]}).")
    return df.filter(pl.col("config_id") == config_id)


def rank_sets_chart(frame: Any, *, config_id: Any = None, width: int = WIDTH,
                    title: str | None = None) -> alt.LayerChart:
    """Draw each entry's set of places as a bar, its observed place as a dot, tiers shaded.

    Parameters
    ----------
    frame : polars / pandas DataFrame
        From :func:`genexpy_nb.rank_sets` (``alternative, place, rank_lo, rank_hi, tier``)
        or :func:`genexpy_nb.bradley_terry` (``model, ...``; unreliable models, which have
        no place, are left out and counted in the subtitle).
    config_id : optional
        The configuration to draw when the frame has several.
    width : int
        Width in pixels.
    title : str, optional
        The title (default: says what the sets guarantee).

    Returns
    -------
    altair.LayerChart

    Examples
    --------
    >>> import polars as pl
    >>> f = pl.DataFrame({"alternative": ["a", "b", "c"], "place": [1, 2, 3],
    ...                   "rank_lo": [1, 2, 2], "rank_hi": [1, 3, 3], "tier": [1, 2, 2],
    ...                   "level": [0.95] * 3, "simultaneous": [True] * 3})
    >>> type(rank_sets_chart(f)).__name__
    'LayerChart'
    """
    raw = frame if isinstance(frame, pl.DataFrame) else frame_of(frame, "frame", ["place"])
    name = "alternative" if "alternative" in raw.columns else "model"
    df = frame_of(raw, "frame", [name, "place", "rank_lo", "rank_hi", "tier"])
    df = _one_configuration(df, config_id)
    dropped = int(df["place"].null_count())
    df = df.filter(pl.col("place").is_not_null())
    if df.height == 0:
        raise GenexpyInputError("frame: no entry has a place (every model is unreliable).")
    K = int(df["rank_hi"].max())
    level = float(df["level"][0]) if "level" in df.columns else 0.95
    simultaneous = bool(df["simultaneous"][0]) if "simultaneous" in df.columns else True
    has_tier = df["tier"].null_count() == 0
    df = df.with_columns(
        pl.col(name).cast(pl.String).alias("entry"),
        ((pl.col("tier") % 2) if has_tier else pl.lit(1)).alias("shade"),
        (pl.col("rank_lo") - 0.4).alias("lo"), (pl.col("rank_hi") + 0.4).alias("hi"),
        pl.lit(0.5).alias("x0"), pl.lit(K + 0.5).alias("x1"))
    order = df["entry"].to_list()
    y = ch(alt.Y, "entry", "N", sort=order, title=None)
    x_scale = alt.Scale(domain=[0.5, K + 0.5], nice=False)
    tips = [tip_of("entry", "N", title=name), tip_of("place", "Q"),
            tip_of("rank_lo", "Q", title="best place"), tip_of("rank_hi", "Q",
                                                              title="worst place")]
    if has_tier:
        tips.append(tip_of("tier", "Q"))
    bands = alt.Chart().mark_rect(opacity=0.35).encode(
        ch(alt.X, "x0", "Q", scale=x_scale, title="place (1 = best)"), ch(alt.X2, "x1"), y,
        ch(alt.Color, "shade", "N", legend=None,
           scale=alt.Scale(domain=[0, 1], range=["#dfe6ee", "#f6f8fa"])))
    bars = alt.Chart().mark_bar(height=10, color="#4c78a8").encode(
        ch(alt.X, "lo", "Q", scale=x_scale), ch(alt.X2, "hi"), y, tooltip=tips)
    dots = alt.Chart().mark_point(filled=True, color="black", size=40).encode(
        ch(alt.X, "place", "Q", scale=x_scale), y, tooltip=tips)
    what = (f"{level * 100:g} % sets of places that hold for all entries at once"
            if simultaneous else f"{level * 100:g} % sets of places, each for its own entry "
                                 "alone")
    sub = [what + (" (shaded bands: tiers)" if has_tier else "")]
    if dropped:
        sub.append(f"{dropped} unreliable model(s) left out (no place)")
    return alt.LayerChart(layer=[bands, bars, dots], data=data_of(df), width=width,
                          height=max(60, 22 * len(order)),
                          title=heading(title or "Which places each entry can hold", sub))
