"""Critical-difference diagram (Demšar 2006) as a pure function ``frame -> alt.LayerChart``.

Mean ranks of the alternatives on an axis (1 = best), Nemenyi's critical difference as a bar,
and the cliques of alternatives that are not significantly different as thick horizontal
bars; each alternative's label hangs below the axis, the better half on the best side.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import altair as alt
import polars as pl

from .._validation import GenexpyInputError, to_polars
from ..significance import REQUIRED, cliques, critical_difference
from ..significance._input import _direction

__all__ = ["cd_diagram"]

_CD_COLUMNS = ("alternative", "mean_rank", "cd")


def _as_cd_frame(data: Any) -> pl.DataFrame | None:
    """``data`` as a critical_difference(...) frame, or None if it is something else."""
    if isinstance(data, (pl.DataFrame, pl.LazyFrame)) or type(data).__module__.split(".")[
        0
    ] in ("pandas", "pyarrow"):
        try:
            df = to_polars(data, "data")
        except GenexpyInputError:
            return None
        if all(c in df.columns for c in _CD_COLUMNS):
            return df
    return None


def _color_encoding(colors: str | Mapping[str, str] | None, names: list[str]):
    if colors is None:
        return alt.value("black")
    if isinstance(colors, str):
        return alt.Color("alternative:N", scale=alt.Scale(scheme=colors, domain=names),
                         legend=None)
    if isinstance(colors, Mapping):
        missing = [a for a in names if a not in colors]
        if missing:
            raise GenexpyInputError(
                f"colors: no colour for {missing}; give one per alternative, a Vega scheme "
                "name (e.g. 'category10') or None."
            )
        return alt.Color("alternative:N",
                         scale=alt.Scale(domain=names, range=[str(colors[a]) for a in names]),
                         legend=None)
    raise GenexpyInputError(
        f"colors must be None, a Vega scheme name or a mapping alternative -> colour, got "
        f"{type(colors).__name__}."
    )


def cd_diagram(
    data: Any,
    *,
    alpha: float = 0.05,
    higher_is_better: bool = REQUIRED,
    pairwise: pl.DataFrame | None = None,
    order: Sequence[str] | None = None,
    colors: str | Mapping[str, str] | None = None,
    reverse: bool = False,
    show_ranks: bool = True,
    show_cd: bool | None = None,
    width: int = 500,
    row_height: int = 18,
    title: str | None = None,
    y_col: str | None = None,
    block_col: str | None = None,
    group_col: str | None = None,
    alternatives: Sequence[Any] | None = None,
    nan_policy: str = "raise",
) -> alt.LayerChart:
    """Critical-difference diagram of mean ranks with Nemenyi's CD and the cliques.

    Parameters
    ----------
    data : frame or matrix
        Either the result of :func:`genexpy_nb.significance.critical_difference` (a frame
        with columns ``alternative, mean_rank, cd``), or anything that function accepts
        (wide/long table, 2-d array of conditions x alternatives), which is then ranked
        with ``alpha``, ``higher_is_better``, ``y_col``, ``block_col``, ``group_col``,
        ``alternatives`` and ``nan_policy``.
    higher_is_better : bool, required for raw data
        True for scores (accuracy), False for errors, losses or ranks. Not needed (and
        ignored) when ``data`` is already a critical_difference(...) frame.
    alpha : float
        Level of the critical difference (ignored for a ready frame: its ``cd`` is used).
    pairwise : polars.DataFrame, optional
        A post-hoc frame (e.g. :func:`~genexpy_nb.significance.posthoc_conover` with
        ``p_adjust="holm"``); its ``significant`` column then defines the cliques instead
        of the CD (see :func:`~genexpy_nb.significance.cliques`).
    order : sequence of str, optional
        Top-to-bottom order of the labels (all alternatives). Default: the classic layout,
        the outermost alternative of each side on top, so that connectors do not cross.
    colors : None, str or mapping
        None: black; a Vega scheme name (``"category10"``, ``"tableau10"``, ...); or a
        mapping alternative -> CSS colour. Colours points, connectors and labels.
    reverse : bool
        False: rank 1 (best) on the left; True: on the right.
    show_ranks : bool
        Append the mean rank to each label.
    show_cd : bool, optional
        Draw Nemenyi's CD bar. Default: yes, unless ``pairwise`` defines the cliques (the
        bar would then suggest a criterion that was not used).
    width, row_height : int
        Width of the plot (pixels) and height of one label row.
    title : str, optional

    Returns
    -------
    altair.LayerChart
        Layers, in order: axis line (carries the x axis), points, vertical connectors,
        horizontal connectors, labels on the best side, labels on the worst side, clique
        bars, CD bar, CD text (the last two empty when ``show_cd`` is False).
    """
    frame = _as_cd_frame(data)
    if frame is None:
        _direction(higher_is_better, "cd_diagram")
        frame = critical_difference(
            data, alpha=alpha, higher_is_better=higher_is_better, nan_policy=nan_policy,
            y_col=y_col, block_col=block_col, group_col=group_col, alternatives=alternatives,
        )
    frame = frame.with_columns(pl.col("alternative").cast(pl.String)).sort(
        "mean_rank", maintain_order=True
    )
    names = frame["alternative"].to_list()
    ranks = [float(r) for r in frame["mean_rank"].to_list()]
    if any(not math.isfinite(r) for r in ranks):
        raise GenexpyInputError("data: mean ranks contain NaN; use nan_policy='omit'.")
    k = len(names)
    if k < 2:
        raise GenexpyInputError("data: a CD diagram needs at least 2 alternatives.")
    cd = float(frame["cd"][0])
    alpha_used = float(frame["alpha"][0]) if "alpha" in frame.columns else alpha
    cl = cliques(frame, pairwise=pairwise) if pairwise is not None else cliques(frame, cd=cd)

    # --- layout (y grows downwards: 0 = axis line, negative = above) -----------------
    n_left = math.ceil(k / 2)
    side = ["best" if p < n_left else "worst" for p in range(k)]
    if order is None:
        row = [p if p < n_left else k - 1 - p for p in range(k)]
    else:
        order = [str(a) for a in order]
        if sorted(order) != sorted(names):
            raise GenexpyInputError(
                f"order must list every alternative exactly once; got {order}, "
                f"alternatives are {names}."
            )
        pos = {a: t for t, a in enumerate(order)}
        row = [pos[a] for a in names]
    n_cliques = cl.height
    clique_y0 = 0.6
    clique_step = 0.45
    label_y0 = clique_y0 + clique_step * n_cliques + 0.6
    span = max(k - 1.0, 1.0)
    pad = 0.08 * span + 0.15
    anchor = {"best": 1.0 - pad, "worst": k + pad}
    items = [
        {
            "alternative": a,
            "mean_rank": r,
            "side": side[p],
            "y": 0.0,
            "y_label": label_y0 + row[p],
            "x_anchor": anchor[side[p]],
            "label": f"{a} ({r:.2f})" if show_ranks else a,
        }
        for p, (a, r) in enumerate(zip(names, ranks))
    ]
    clique_rows = [
        {
            "clique": int(c),
            "x": lo - 0.04,
            "x2": hi + 0.04,
            "y": clique_y0 + clique_step * t,
            "members": ", ".join(mem),
        }
        for t, (c, lo, hi, mem) in enumerate(
            cl.select("clique", "rank_low", "rank_high", "members").iter_rows()
        )
    ]
    if show_cd is None:
        show_cd = pairwise is None
    cd_y = -0.9
    cd_rows = []
    if show_cd:
        cd_rows.append({
            "x": 1.0, "x2": 1.0 + cd, "y": cd_y, "y_text": cd_y - 0.55,
            "x_text": 1.0 + cd / 2.0,
            "text": f"CD = {cd:.3g} (Nemenyi, alpha = {alpha_used:g})",
        })
    y_max = label_y0 + max(row) + 0.8
    y_min = cd_y - 1.1

    # --- encodings --------------------------------------------------------------------
    x_scale = alt.Scale(domain=[1, k], reverse=bool(reverse), nice=False, zero=False)
    y_scale = alt.Scale(domain=[y_min, y_max], reverse=True, nice=False, zero=False)
    x_axis = alt.Axis(orient="top", values=list(range(1, k + 1)), grid=False,
                      title="mean rank (1 = best)", format="d")
    y_enc = alt.Y("y:Q", scale=y_scale, axis=None)
    color = _color_encoding(colors, names)
    tooltip = [alt.Tooltip("alternative:N"), alt.Tooltip("mean_rank:Q", format=".3f")]
    height = int(row_height * (y_max - y_min))
    items_data = alt.Data(values=items)

    axis_line = alt.Chart(alt.Data(values=[{"x": 1.0, "x2": float(k), "y": 0.0}])).mark_rule(
        color="black", strokeWidth=1.5
    ).encode(x=alt.X("x:Q", scale=x_scale, axis=x_axis), x2="x2:Q", y=y_enc)
    points = alt.Chart(items_data).mark_point(filled=True, size=60).encode(
        x=alt.X("mean_rank:Q", scale=x_scale, axis=x_axis), y=y_enc, color=color,
        tooltip=tooltip,
    )
    conn_v = alt.Chart(items_data).mark_rule().encode(
        x=alt.X("mean_rank:Q", scale=x_scale, axis=x_axis), y=y_enc, y2="y_label:Q",
        color=color,
    )
    conn_h = alt.Chart(items_data).mark_rule().encode(
        x=alt.X("mean_rank:Q", scale=x_scale, axis=x_axis), x2="x_anchor:Q",
        y=alt.Y("y_label:Q", scale=y_scale, axis=None), color=color,
    )
    align_best, align_worst = ("right", "left") if not reverse else ("left", "right")
    labels = [
        alt.Chart(items_data).transform_filter(alt.datum.side == s).mark_text(
            align=al, baseline="middle", dx=-4 if al == "right" else 4
        ).encode(
            x=alt.X("x_anchor:Q", scale=x_scale, axis=x_axis),
            y=alt.Y("y_label:Q", scale=y_scale, axis=None), text="label:N", color=color,
            tooltip=tooltip,
        )
        for s, al in (("best", align_best), ("worst", align_worst))
    ]
    clique_bars = alt.Chart(alt.Data(values=clique_rows)).mark_rule(
        strokeWidth=4, color="black", strokeCap="round"
    ).encode(
        x=alt.X("x:Q", scale=x_scale, axis=x_axis), x2="x2:Q", y=y_enc,
        tooltip=[alt.Tooltip("members:N")],
    )
    cd_bar = alt.Chart(alt.Data(values=cd_rows)).mark_rule(strokeWidth=2, color="black").encode(
        x=alt.X("x:Q", scale=x_scale, axis=x_axis), x2="x2:Q", y=y_enc,
    )
    cd_text = alt.Chart(alt.Data(values=cd_rows)).mark_text(baseline="middle").encode(
        x=alt.X("x_text:Q", scale=x_scale, axis=x_axis),
        y=alt.Y("y_text:Q", scale=y_scale, axis=None), text="text:N",
    )
    chart = alt.layer(
        axis_line, points, conn_v, conn_h, *labels, clique_bars, cd_bar, cd_text
    ).properties(width=width, height=height, view=alt.ViewBackground(stroke=None))
    if title is not None:
        chart = chart.properties(title=title)
    return chart
