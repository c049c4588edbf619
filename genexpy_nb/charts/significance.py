"""Critical-difference diagram (Demšar 2006) as a pure function ``frame -> alt.LayerChart``.

Mean ranks of the alternatives on an axis (1 = best), Nemenyi's critical difference as a bar
(when the bars come from it), and the cliques of alternatives that are not significantly
different as thick horizontal bars; each alternative's label hangs below the axis, the
better half on the best side; under the title, what the bars mean (test, correction,
alpha, blocks). The same geometry is drawn without Vega by ``charts/cd_figure.py``
(:func:`~genexpy_nb.charts.cd_diagram_svg`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import altair as alt
import polars as pl

from .._validation import REQUIRED
from ..study._roles import score_roles
from .cd_figure import cd_diagram_svg, cd_layout, save_cd_diagram
from .cd_vega import layout_chart

__all__ = ["cd_diagram", "cd_diagram_svg", "save_cd_diagram"]


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
    target: str | None = None,
    blocks: str | None = None,
    alternatives: str | Sequence[Any] | None = None,
    y_col: str | None = None,
    block_col: str | None = None,
    group_col: str | None = None,
    nan_policy: str = "raise",
) -> alt.LayerChart:
    """Critical-difference diagram of mean ranks with the bars of a post-hoc test.

    Parameters
    ----------
    data : Comparison, frame or matrix
        A :class:`~genexpy_nb.significance.Comparison` (from
        :func:`~genexpy_nb.significance.compare`: its mean ranks, its post-hoc test's bars,
        its control), the result of :func:`~genexpy_nb.significance.critical_difference` (a
        frame with columns ``alternative, mean_rank, cd``), or anything that function
        accepts (wide/long table, 2-d array of conditions x alternatives), which is then
        ranked with ``alpha``, ``higher_is_better``, ``target``, ``blocks``,
        ``alternatives`` and ``nan_policy``.
    alpha : float
        Level of the critical difference (ignored for a ready frame: its ``cd`` is used).
    higher_is_better : bool, required for raw data
        True for scores (accuracy), False for errors, losses or ranks. Not needed (and
        ignored) when ``data`` is already a critical_difference(...) frame.
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
        Title above the caption.
    top : int, optional
        Draw the ``top`` best alternatives (and a comparison's control); the caption
        summarises the rest. Default: a comparison's ``top``, else all.
    caption : str or list of str, optional
        Lines under the title instead of the generated description of the test (which
        names the post-hoc test, correction, alpha and blocks).
    target, blocks, alternatives, nan_policy
        Long input / labels / selection / missing values of raw data, see
        :func:`~genexpy_nb.significance.critical_difference`; a list passed to
        ``alternatives`` is the alternatives' names or selection (that function's
        ``order``; here ``order`` is the labels' order).
    y_col, block_col, group_col : str, optional
        Aliases of ``target``, ``blocks`` and ``alternatives`` (scikit-posthocs' names).

    Returns
    -------
    altair.LayerChart
        Layers, in order: axis line (carries the x axis), points, vertical connectors,
        horizontal connectors, labels on the best side, labels on the worst side, clique
        bars, CD bar, CD text (the last two empty when ``show_cd`` is False).

    See Also
    --------
    save_cd_diagram, cd_diagram_svg : the same picture as PNG, SVG or PDF, drawn
        without Vega (no JavaScript engine to start), so much faster than
        ``save_chart(cd_diagram(...), "cd.png")``.
    """
    lay = cd_layout(
        data, alpha=alpha, higher_is_better=higher_is_better, pairwise=pairwise, order=order,
        colors=colors, show_ranks=show_ranks, show_cd=show_cd,
        **score_roles(target, blocks, alternatives, y_col, block_col, group_col,
                       "cd_diagram"),
        nan_policy=nan_policy, func="cd_diagram", top=top, caption=caption,
    )
    return layout_chart(lay, colors=colors, reverse=reverse, width=width,
                        row_height=row_height, title=title)
