"""Critical-difference diagram (Demšar 2006) as a pure function ``frame -> alt.LayerChart``.

Mean ranks of the alternatives on an axis (1 = best), Nemenyi's critical difference as a bar
(when the bars come from it), and the cliques of alternatives that are not significantly
different as thick horizontal bars; each alternative's label hangs below the axis, the
better half on the best side; under the title, what the bars mean (test, correction,
alpha, blocks). The same geometry is drawn without Vega by :mod:`.cd_figure`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import altair as alt
import polars as pl

from ..significance._input import REQUIRED
from .cd_figure import _cd_layout, cd_diagram_svg, save_cd_diagram

__all__ = ["cd_diagram", "cd_diagram_svg", "save_cd_diagram"]


def _color_encoding(colors: str | Mapping[str, str] | None, names: list[str]):
    """Altair colour encoding (``colors`` already checked by ``_cd_layout``)."""
    if colors is None:
        return alt.value("black")
    if isinstance(colors, str):
        return alt.Color("alternative:N", scale=alt.Scale(scheme=colors, domain=names),
                         legend=None)
    return alt.Color("alternative:N",
                     scale=alt.Scale(domain=names, range=[str(colors[a]) for a in names]),
                     legend=None)


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
    top: int | None = None,
    caption: str | Sequence[str] | None = None,
    y_col: str | None = None,
    block_col: str | None = None,
    group_col: str | None = None,
    alternatives: Sequence[Any] | None = None,
    nan_policy: str = "raise",
) -> alt.LayerChart:
    """Critical-difference diagram of mean ranks with the bars of a post-hoc test.

    Parameters
    ----------
    data : Comparison, frame or matrix
        A :class:`genexpy_nb.significance.Comparison` (from
        :func:`~genexpy_nb.significance.compare`: its mean ranks, its post-hoc test's bars,
        its control), the result of :func:`genexpy_nb.significance.critical_difference` (a
        frame with columns ``alternative, mean_rank, cd``), or anything that function
        accepts (wide/long table, 2-d array of conditions x alternatives), which is then
        ranked with ``alpha``, ``higher_is_better``, ``y_col``, ``block_col``,
        ``group_col``, ``alternatives`` and ``nan_policy``.
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
    top : int, optional
        Draw the ``top`` best alternatives (and a comparison's control); the caption
        summarises the rest. Default: a comparison's ``top``, else all.
    caption : str or list of str, optional
        Lines under the title instead of the generated description of the test (which
        names the post-hoc test, correction, alpha and blocks).
    y_col, block_col, group_col, alternatives, nan_policy
        Long input / labels / selection / missing values of raw data, see
        :func:`~genexpy_nb.significance.critical_difference`.

    Returns
    -------
    altair.LayerChart
        Layers, in order: axis line (carries the x axis), points, vertical connectors,
        horizontal connectors, labels on the best side, labels on the worst side, clique
        bars, CD bar, CD text (the last two empty when ``show_cd`` is False).

    See Also
    --------
    save_cd_diagram, cd_diagram_svg : the same picture as PNG, SVG or PDF, drawn without
        Vega: 3-10x faster than ``save_chart(cd_diagram(...), "cd.png")``.
    """
    lay = _cd_layout(
        data, alpha=alpha, higher_is_better=higher_is_better, pairwise=pairwise, order=order,
        colors=colors, show_ranks=show_ranks, show_cd=show_cd, y_col=y_col,
        block_col=block_col, group_col=group_col, alternatives=alternatives,
        nan_policy=nan_policy, func="cd_diagram", top=top, caption=caption,
    )
    return _chart(lay, colors=colors, reverse=reverse, width=width, row_height=row_height,
                  title=title)


def _chart(lay: dict, *, colors: Any, reverse: bool, width: int, row_height: int,
           title: str | None) -> alt.LayerChart:
    """The Altair chart of a layout from :func:`~genexpy_nb.charts.cd_figure._cd_layout`."""
    names, k, items = lay["names"], lay["x_max"], lay["items"]
    clique_rows, cd_rows = lay["cliques"], lay["cd_rows"]
    y_min, y_max = lay["y_min"], lay["y_max"]

    # --- encodings --------------------------------------------------------------------
    x_scale = alt.Scale(domain=[1, k], reverse=bool(reverse), nice=False, zero=False)
    y_scale = alt.Scale(domain=[y_min, y_max], reverse=True, nice=False, zero=False)
    x_axis = alt.Axis(orient="top", values=list(range(1, int(k) + 1)), grid=False,
                      title="mean rank (1 = best)", format="d")
    y_enc = alt.Y("y:Q", scale=y_scale, axis=None)
    color = _color_encoding(colors, names)
    tooltip = [alt.Tooltip("tooltip:N", title="alternative")]
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
    caption = list(lay.get("caption") or [])
    if title is not None or caption:
        chart = chart.properties(title=alt.TitleParams(
            text=title if title is not None else "", subtitle=caption, subtitleColor="#444",
            subtitleFontSize=11, anchor="middle"))
    return chart
