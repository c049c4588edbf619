"""Critical-difference diagram (Demšar 2006) as a pure function ``frame -> alt.LayerChart``.

Mean ranks of the alternatives on an axis (1 = best), Nemenyi's critical difference as a bar
(when the bars come from it), and the cliques of alternatives that are not significantly
different as thick horizontal bars; each alternative's label hangs below the axis, the
better half on the best side; under the title, what the bars mean (test, correction,
alpha, blocks). The same geometry is drawn without Vega by ``charts/cd_figure.py``
(:func:`~genexpy_nb.charts.cd_diagram_svg`).
"""

from __future__ import annotations

from typing import Any

import altair as alt

from .cd_figure import cd_diagram_svg, cd_drawing, drawing_keywords, save_cd_diagram
from .cd_vega import layout_chart

__all__ = ["cd_diagram", "cd_diagram_svg", "save_cd_diagram"]


@drawing_keywords
def cd_diagram(data: Any, **kwargs: Any) -> alt.LayerChart:
    """Critical-difference diagram of mean ranks with the bars of a post-hoc test.

    Parameters
    ----------
    {drawing}

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
    lay, draw = cd_drawing(data, kwargs, "cd_diagram")
    return layout_chart(lay, **draw)
