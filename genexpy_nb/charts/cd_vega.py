"""The critical-difference diagram's layout drawn with Altair (Vega-Lite).

Used by :func:`~genexpy_nb.charts.cd_diagram`, and by :func:`~genexpy_nb.charts.cd_diagram_svg` for
colour schemes that only Vega knows. The layout itself comes from
:mod:`genexpy_nb.charts.cd_figure`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import altair as alt


def _color_encoding(colors: str | Mapping[str, str] | None, names: list[str]):
    """Altair colour encoding (``colors`` already checked by ``cd_layout``)."""
    if colors is None:
        return alt.value("black")
    if isinstance(colors, str):
        return alt.Color("alternative:N", scale=alt.Scale(scheme=colors, domain=names),
                         legend=None)
    return alt.Color("alternative:N",
                     scale=alt.Scale(domain=names, range=[str(colors[a]) for a in names]),
                     legend=None)


def layout_chart(lay: dict, *, colors: Any, reverse: bool, width: int, row_height: int,
                 title: str | None) -> alt.LayerChart:
    """Return the Altair chart of a layout from :func:`~genexpy_nb.charts.cd_figure.cd_layout`.

    The Vega drawing of the geometry that :func:`~genexpy_nb.charts.cd_figure.cd_diagram_svg`
    writes as SVG: :func:`~genexpy_nb.charts.cd_diagram` calls it, and so does the SVG
    writer for colour schemes that only Vega knows.

    Parameters
    ----------
    lay : dict
        The layout, as :func:`~genexpy_nb.charts.cd_figure.cd_layout` returns it.
    colors : str, mapping or None
        A Vega colour scheme, a colour per alternative, or None (black); already checked.
    reverse : bool
        Whether the best mean rank is drawn on the right.
    width, row_height : int
        The chart's width and the height of one label row, in pixels.
    title : str or None
        The chart's title.

    Returns
    -------
    altair.LayerChart
        The diagram.
    """
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
