"""The critical-difference diagram (Demšar 2006) drawn straight to SVG, PNG, PDF or HTML.

:func:`~genexpy_nb.charts.cd_diagram` returns an Altair chart (interactive in notebooks,
tooltips). Saving that chart as an image goes through Altair's object model, its
JSON-schema validation, the Vega-Lite compiler and Vega, all run by vl-convert in a
JavaScript engine that is slow to start in each process. The diagram itself is a few dozen
lines, circles and labels, so :func:`~genexpy_nb.charts.cd_diagram_svg` writes them as SVG
itself - the layout, fonts and colours of the Vega chart, from the same geometry
(``cd_layout``, used by both; tests/charts/test_cd_figure.py checks every point and label against
Vega's) - and :func:`~genexpy_nb.charts.save_cd_diagram` rasterizes that SVG with
vl-convert's resvg, no JavaScript engine. HTML is a page holding the same SVG (native
tooltips on the points), so it opens offline. This module imports neither Altair nor
vl-convert at import time.

**What it draws is said on it.** The diagram of a comparison
(:func:`~genexpy_nb.significance.compare`) names its post-hoc test, correction and alpha
and the number of blocks under the title; a diagram of a post-hoc frame (``pairwise=``)
names that frame's test; a diagram from a Nemenyi critical difference says so beside the
CD bar. ``top=K`` draws the K best alternatives (and the control) and summarises the rest
in that caption; ``control`` draws the control's bar (the alternatives around it none of
which differs significantly from it) and its name in bold.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import polars as pl

from .._escape import html_text
from .._escape import xml_text as escape  # html.escape, and drops what XML forbids
from .._validation import (
    REQUIRED,
    GenexpyInputError,
    Keyword,
    keyword_values,
    shared_keywords,
    to_polars,
)
from .._validation import check_direction as _direction
from ..significance.critical_difference import cliques, critical_difference
from ..study._roles import score_roles

__all__ = ["cd_diagram_svg", "save_cd_diagram", "save_comparison", "cd_diagram_html"]

_CD_COLUMNS = ("alternative", "mean_rank", "cd")

#: Vega's categorical colour schemes drawn without Vega (d3-scale-chromatic's lists, as Vega
#: ships them); any other scheme name is drawn by Vega itself (slower, same result).
SCHEMES = {
    "category10": ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
                   "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"],
    "tableau10": ["#4c78a8", "#f58518", "#e45756", "#72b7b2", "#54a24b", "#eeca3b",
                  "#b279a2", "#ff9da6", "#9d755d", "#bab0ac"],
    "set1": ["#e41a1c", "#377eb8", "#4daf4a", "#984ea3", "#ff7f00", "#ffff33", "#a65628",
             "#f781bf", "#999999"],
    "dark2": ["#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d",
              "#666666"],
}

# Advance widths (1/1000 em) of ASCII 32..126: the larger of Liberation Sans (Arial's
# metrics) and DejaVu Sans, the fonts "sans-serif" resolves to on most systems. They only
# size the canvas around the labels (no text is cut off in either font); the renderer draws
# the text with its own font.
_W_REGULAR = [int(w) for w in (
    "318 401 460 838 636 950 780 275 390 390 500 838 318 361 318 337 636 636 636 636 636 "
    "636 636 636 636 636 337 337 838 838 838 556 1015 684 686 722 770 667 611 778 752 295 "
    "500 667 557 863 748 787 667 787 722 667 611 732 684 989 685 667 685 390 337 390 838 "
    "556 500 613 635 550 635 615 352 635 634 278 278 579 278 974 634 612 635 635 411 521 "
    "392 634 592 818 592 592 525 636 337 636 838").split()]
_W_BOLD = [int(w) for w in (
    "348 456 521 838 696 1002 872 306 457 457 523 838 380 415 380 365 696 696 696 696 696 "
    "696 696 696 696 696 400 400 838 838 838 611 1000 774 762 734 830 683 683 821 837 372 "
    "556 775 637 995 837 850 733 850 770 720 682 812 774 1103 771 724 725 457 365 457 838 "
    "556 500 675 716 593 716 678 435 716 712 343 343 665 343 1042 712 687 716 716 493 595 "
    "478 712 652 924 645 652 582 712 365 712 838").split()]


def _text_width(text: str, size: float, bold: bool = False) -> float:
    """Width in pixels of ``text`` at font size ``size`` (an upper estimate, see above)."""
    table = _W_BOLD if bold else _W_REGULAR
    total = 0
    for ch in text:
        c = ord(ch)
        if 32 <= c <= 126:
            total += table[c - 32]
        elif unicodedata.east_asian_width(ch) in ("W", "F"):
            total += 1000
        elif not unicodedata.combining(ch):
            total += 700
    return total * size / 1000.0


def _is_comparison(data: Any) -> bool:
    """Return whether ``data`` is a :class:`~genexpy_nb.significance.Comparison` (duck-typed)."""
    return all(hasattr(data, a) for a in ("mean_ranks", "cliques", "posthoc_label",
                                          "omnibus"))


def _as_cd_frame(data: Any) -> pl.DataFrame | None:
    """Return ``data`` as a ``critical_difference(...)`` frame, or None if it is not one."""
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


def _check_colors(colors: Any, names: list[str]) -> None:
    if colors is None or isinstance(colors, str):
        return
    if isinstance(colors, Mapping):
        missing = [a for a in names if a not in colors]
        if missing:
            raise GenexpyInputError(
                f"colors: no colour for {missing}; give one per alternative, a Vega scheme "
                "name (e.g. 'category10') or None."
            )
        return
    raise GenexpyInputError(
        f"colors must be None, a Vega scheme name or a mapping alternative -> colour, got "
        f"{type(colors).__name__}."
    )


_CORR = {None: "no correction", "none": "no correction", "holm": "Holm's correction",
         "bonferroni": "Bonferroni's correction", "fdr_bh": "Benjamini–Hochberg correction"}


def _pairwise_words(pw: pl.DataFrame) -> str:
    """``Conover-Iman (Friedman), Holm's correction, α = 0.05`` from a post-hoc frame."""
    parts = []
    if "test" in pw.columns and pw.height:
        parts.append(str(pw["test"][0]).replace("-", "–"))
    if "p_adjust" in pw.columns and pw.height:
        pa = pw["p_adjust"][0]
        parts.append(_CORR.get(pa, f"{pa} correction"))
    if "alpha" in pw.columns and pw.height:
        parts.append(f"α = {float(pw['alpha'][0]):g}")
    return ", ".join(parts) or "the given post-hoc tests"


def _rest_line(shown: int, total: int, rest: tuple[float, float]) -> str:
    """Return the caption line that summarises the alternatives ``top=`` leaves out."""
    return (f"showing the {shown} best of {total} alternatives; the other "
            f"{total - shown}: mean ranks {rest[0]:.2f}–{rest[1]:.2f}")


def _comparison_caption(res: Any, shown: int, total: int, rest: tuple[float, float] | None
                        ) -> list[str]:
    """Return the caption of a comparison: its test, correction, alpha, blocks and bars."""
    corr = ("" if res.posthoc_test == "nemenyi"
            else f", {_CORR.get(res.p_adjust, f'{res.p_adjust} correction')}")
    test = res.posthoc_label.replace("-", "–")
    unit = getattr(res, "unit", "block")  # the blocks column's word ("dataset")
    blocks = f"{res.n_blocks} {unit}s"
    if res.control is not None:
        first = (f"{test}{corr} over the {res.k - 1} comparisons with the control, "
                 f"α = {res.alpha:g}, {blocks}")
        second = "bar: not significantly different from the control"
    else:
        first = f"{test}{corr}, α = {res.alpha:g}, {blocks}"
        second = ("bars: mean ranks within the CD" if res.cd is not None
                  else "bars: no significant difference")
    if res.n_missing:
        nm = res.n_missing
        fate = {"study": f"each counted as the worst tier of its {unit}",
                "drop-block": f"their {unit}s left out"}.get(getattr(res, "missing", "available"),
                                                        "ranked among those available")
        second += f"; {nm} missing result{'s' if nm != 1 else ''} {fate}"
    if res.ties == "min":
        second += "; tied ranks at their minimum"
    lines = [first, second]
    if rest is not None:
        lines.append(_rest_line(shown, total, rest))
    return lines


def _ranked_frame(
    data: Any, *, alpha: float, higher_is_better: Any, y_col: str | None,
    block_col: str | None, group_col: str | None, alternatives: Sequence[Any] | None,
    nan_policy: str, func: str, top: int | None,
) -> tuple[Any, pl.DataFrame, float | None, str | None, int | None, float]:
    """Return what a diagram of ``data`` (a Comparison, a frame or scores) draws.

    The comparison (None if not one), the mean ranks best first, the critical difference,
    the control, ``top`` (by default a comparison's) and the alpha of the bars.
    """
    control = None
    res = data if _is_comparison(data) else None
    if res is not None:
        frame = res.mean_ranks
        cd = res.cd
        control = res.control
        if top is None:
            top = res.top
        alpha_used = res.alpha
    else:
        frame = _as_cd_frame(data)
        if frame is None:
            _direction(higher_is_better, func)
            frame = critical_difference(
                data, alpha=alpha, higher_is_better=higher_is_better, nan_policy=nan_policy,
                y_col=y_col, block_col=block_col, group_col=group_col, order=alternatives,
            )
        cd = float(frame["cd"][0])
        alpha_used = float(frame["alpha"][0]) if "alpha" in frame.columns else alpha
    frame = frame.with_columns(pl.col("alternative").cast(pl.String)).sort(
        "mean_rank", maintain_order=True
    )
    return res, frame, cd, control, top, alpha_used


def _shown_alternatives(frame: pl.DataFrame, top: int | None, control: str | None
                        ) -> tuple[list[str], list[float], tuple[float, float] | None, int]:
    """Return the names and mean ranks drawn, the rank range of the others, and their total.

    The ``top`` best are drawn (all when None), the control too, and at least two.
    """
    all_names = frame["alternative"].to_list()
    all_ranks = [float(r) for r in frame["mean_rank"].to_list()]
    if any(not math.isfinite(r) for r in all_ranks):
        raise GenexpyInputError("data: mean ranks contain NaN; use nan_policy='omit'.")
    total = len(all_names)
    if total < 2:
        raise GenexpyInputError("data: a CD diagram needs at least 2 alternatives.")
    if top is not None and (isinstance(top, bool) or not isinstance(top, int) or top < 1):
        raise GenexpyInputError(f"top must be a positive whole number, got {top!r}.")
    keep = list(range(total)) if top is None or top >= total else list(range(top))
    if control is not None and all_names.index(control) not in keep:
        keep.append(all_names.index(control))
    if len(keep) < 2:
        keep = [0, 1]
    names = [all_names[t] for t in keep]
    ranks = [all_ranks[t] for t in keep]
    hidden = [all_ranks[t] for t in range(total) if t not in set(keep)]
    rest = (min(hidden), max(hidden)) if hidden else None
    return names, ranks, rest, total


def _clique_bars(res: Any, frame: pl.DataFrame, pairwise: pl.DataFrame | None,
                 cd: float | None, names: list[str]) -> list[list[str]]:
    """Return the bars: the cliques restricted to the drawn names, none inside another."""
    if res is not None:
        cl_all = res.cliques
    elif pairwise is not None:
        cl_all = cliques(frame, pairwise=pairwise)
    else:
        cl_all = cliques(frame, cd=cd)
    shown = set(names)
    bars: list[list[str]] = []
    for mem in cl_all["members"].to_list():
        m = [a for a in mem if a in shown]
        if len(m) >= 2 and not any(set(m) <= set(b) for b in bars):
            bars.append(m)
    return bars


def _caption_lines(res: Any, frame: pl.DataFrame, pairwise: pl.DataFrame | None,
                   alpha_used: float, k: int, total: int, rest: tuple[float, float] | None,
                   caption: Sequence[str] | str | None) -> list[str]:
    """Return the lines under the title: what the bars mean, or the given ``caption``."""
    if res is not None:
        lines = _comparison_caption(res, k, total, rest)
    else:
        if pairwise is not None:
            lines = [f"bars: no significant difference within ({_pairwise_words(pairwise)})"]
        else:
            n_c = int(frame["n_conditions"][0]) if "n_conditions" in frame.columns else None
            lines = [f"bars: mean ranks within the critical difference (Nemenyi, "
                     f"α = {alpha_used:g})" + (f"; {n_c} blocks" if n_c else "")]
        if rest is not None:
            lines.append(_rest_line(k, total, rest))
    if caption is not None:
        lines = [caption] if isinstance(caption, str) else list(caption)
    return lines


def _label_rows(order: Sequence[str] | None, names: list[str]) -> tuple[list[str], list[int]]:
    """Return each drawn alternative's side ("best"/"worst") and label row (0 = top)."""
    k = len(names)
    n_left = math.ceil(k / 2)
    side = ["best" if p < n_left else "worst" for p in range(k)]
    if order is None:
        return side, [p if p < n_left else k - 1 - p for p in range(k)]
    order = [str(a) for a in order]
    if sorted(order) != sorted(names):
        raise GenexpyInputError(
            f"order must list every alternative exactly once; got {order}, "
            f"alternatives are {names}."
        )
    pos = {a: t for t, a in enumerate(order)}
    return side, [pos[a] for a in names]


def _label_items(res: Any, names: list[str], ranks: list[float], side: list[str],
                 row: list[int], label_y0: float, anchor: dict[str, float],
                 show_ranks: bool, control: str | None) -> list[dict]:
    """Return one point, connector and label per drawn alternative (with its tooltip)."""
    n_blocks = None if res is None else dict(zip(res.mean_ranks["alternative"].to_list(),
                                                 res.mean_ranks["n_blocks"].to_list()))
    return [
        {
            "alternative": a,
            "mean_rank": r,
            "side": side[p],
            "y": 0.0,
            "y_label": label_y0 + row[p],
            "x_anchor": anchor[side[p]],
            "label": f"{a} ({r:.2f})" if show_ranks else a,
            "control": a == control,
            "tooltip": f"{a}: mean rank {r:.3f}" + (
                f" over {n_blocks[a]} {getattr(res, 'unit', 'block')}s" if n_blocks else ""),
        }
        for p, (a, r) in enumerate(zip(names, ranks))
    ]


_CD_Y = -0.9  # height of the CD bar (above the axis)


def _cd_rows(cd: float | None, alpha_used: float, show_cd: bool | None,
             pairwise: pl.DataFrame | None, control: str | None) -> list[dict]:
    """Return Nemenyi's CD bar and its text (none if not drawn)."""
    if show_cd is None:
        show_cd = cd is not None and pairwise is None and control is None
    if not (show_cd and cd is not None):
        return []
    return [{
        "x": 1.0, "x2": 1.0 + cd, "y": _CD_Y, "y_text": _CD_Y - 0.55, "x_text": 1.0 + cd / 2.0,
        "text": f"CD = {cd:.3g} (Nemenyi, alpha = {alpha_used:g})",
    }]


def cd_layout(
    data: Any, *, alpha: float, higher_is_better: Any, pairwise: pl.DataFrame | None,
    order: Sequence[str] | None, colors: Any, show_ranks: bool, show_cd: bool | None,
    y_col: str | None, block_col: str | None, group_col: str | None,
    alternatives: Sequence[Any] | None, nan_policy: str, func: str, top: int | None = None,
    caption: Sequence[str] | str | None = None,
) -> dict:
    """Return the geometry of a CD diagram in data units, shared by the Vega and SVG drawing.

    x is the mean rank; y grows downwards (0 = the axis line, negative = above it, the
    label rows below the clique bars). The one layout behind both drawings:
    :func:`~genexpy_nb.charts.cd_vega.layout_chart` draws it with Vega, this module writes
    it as SVG. The keyword arguments are those of :func:`cd_diagram_svg`.

    Returns
    -------
    dict
        ``names`` (the alternatives drawn), ``k``, ``x_max``, ``items`` (the points and
        labels), ``cliques`` and ``cd_rows`` (the bars), ``caption`` (its lines),
        ``control``, ``y_min`` and ``y_max``.
    """
    res, frame, cd, control, top, alpha_used = _ranked_frame(
        data, alpha=alpha, higher_is_better=higher_is_better, y_col=y_col,
        block_col=block_col, group_col=group_col, alternatives=alternatives,
        nan_policy=nan_policy, func=func, top=top,
    )
    names, ranks, rest, total = _shown_alternatives(frame, top, control)
    k = len(names)
    _check_colors(colors, names)
    bars = _clique_bars(res, frame, pairwise, cd, names)
    pos_rank = dict(zip(names, ranks))
    lines = _caption_lines(res, frame, pairwise, alpha_used, k, total, rest, caption)
    side, row = _label_rows(order, names)
    x_max = float(k) if rest is None else float(max(k, math.ceil(max(ranks) + 0.5)))
    clique_y0 = 0.6
    clique_step = 0.45
    label_y0 = clique_y0 + clique_step * len(bars) + 0.6
    span = max(x_max - 1.0, 1.0)
    pad = 0.08 * span + 0.15
    anchor = {"best": 1.0 - pad, "worst": x_max + pad}
    items = _label_items(res, names, ranks, side, row, label_y0, anchor, show_ranks, control)
    clique_rows = [
        {
            "clique": t,
            "x": min(pos_rank[a] for a in mem) - 0.04,
            "x2": max(pos_rank[a] for a in mem) + 0.04,
            "y": clique_y0 + clique_step * t,
            "members": ", ".join(mem),
        }
        for t, mem in enumerate(bars)
    ]
    cd_rows = _cd_rows(cd, alpha_used, show_cd, pairwise, control)
    return {
        "names": names, "k": k, "x_max": x_max, "items": items, "cliques": clique_rows,
        "cd_rows": cd_rows, "caption": lines, "control": control,
        "y_min": _CD_Y - 1.1, "y_max": label_y0 + max(row) + 0.8,
    }


def _f(v: float) -> str:
    """Return ``v`` with at most two decimals and no trailing zeros (SVG coordinates)."""
    return f"{v:.2f}".rstrip("0").rstrip(".")


class _Canvas:
    """SVG elements in plot pixels, and the box around everything drawn (Vega's autosize)."""

    def __init__(self, lay: dict, *, reverse: bool, width: int, row_height: int) -> None:
        self.x_max, self.w = lay["x_max"], float(width)
        self.y_min, self.y_max = lay["y_min"], lay["y_max"]
        self.h = float(int(row_height * (self.y_max - self.y_min)))
        self.reverse = reverse
        self.parts: list[str] = []
        self.box = [0.0, self.w, 0.0, self.h]  # x0, x1, y0, y1 of everything drawn

    def xs(self, v: float) -> float:
        """Return the pixel x of mean rank ``v``."""
        p = (v - 1.0) / (self.x_max - 1.0) * self.w
        return self.w - p if self.reverse else p

    def ys(self, v: float) -> float:
        """Return the pixel y of layout height ``v``."""
        return (v - self.y_min) / (self.y_max - self.y_min) * self.h

    def grow(self, x0: float, x1: float, y0: float, y1: float) -> None:
        """Extend the drawn box to hold the rectangle ``x0..x1`` x ``y0..y1``."""
        box = self.box
        box[0], box[1] = min(box[0], x0), max(box[1], x1)
        box[2], box[3] = min(box[2], y0), max(box[3], y1)

    def line(self, x1: float, y1: float, x2: float, y2: float, stroke: str, sw: float = 1.0,
             extra: str = "") -> None:
        """Draw a line of width ``sw`` (pixels)."""
        self.parts.append(f'<line x1="{_f(x1)}" y1="{_f(y1)}" x2="{_f(x2)}" y2="{_f(y2)}" '
                          f'stroke="{stroke}" stroke-width="{_f(sw)}"{extra}/>')
        self.grow(min(x1, x2) - sw / 2, max(x1, x2) + sw / 2, min(y1, y2) - sw / 2,
                  max(y1, y2) + sw / 2)

    def text(self, x: float, y: float, s: str, anchor: str, size: int, fill: str = "#000",
             bold: bool = False) -> None:
        """Write ``s`` with its baseline at ``y``, anchored at ``x``."""
        weight = ' font-weight="bold"' if bold else ""
        self.parts.append(f'<text x="{_f(x)}" y="{_f(y)}" text-anchor="{anchor}" '
                          f'font-size="{size}px"{weight} fill="{fill}">{escape(s)}</text>')
        tw = _text_width(s, size, bold)
        x0 = x - tw if anchor == "end" else x - tw / 2 if anchor == "middle" else x
        self.grow(x0, x0 + tw, y - 0.8 * size, y + 0.25 * size)

    def document(self) -> str:
        """Return the SVG document: the canvas sized to the drawn box plus Vega's padding."""
        box, pad = self.box, 5.0  # Vega's default padding
        tx, ty = pad - box[0], pad - box[2]
        cw = math.ceil(box[1] - box[0] + 2 * pad)
        ch = math.ceil(box[3] - box[2] + 2 * pad)
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{cw}" height="{ch}" '
            f'viewBox="0 0 {cw} {ch}"><rect width="{cw}" height="{ch}" fill="white"/>'
            f'<g transform="translate({_f(tx)},{_f(ty)})" font-family="sans-serif">'
            + "".join(self.parts) + "</g></svg>"
        )


def _svg_axis(cv: _Canvas) -> None:
    """Draw the x axis on top: domain, a tick per rank, labels thinned like Vega's."""
    # labels thinned like Vega's labelOverlap; lines on the half pixel (crisp, as Vega's)
    w = cv.w
    cv.line(0.5, 0.5, w + 0.5, 0.5, "#888")
    values = list(range(1, int(cv.x_max) + 1))
    for v in values:
        cv.line(round(cv.xs(v)) + 0.5, 0.5, round(cv.xs(v)) + 0.5, -4.5, "#888")

    def extent(v: int) -> tuple[float, float]:
        x, tw = cv.xs(v), _text_width(str(v), 10)
        if x <= 0.0:
            return x, x + tw
        if x >= w:
            return x - tw, x
        return x - tw / 2, x + tw / 2

    shown = values
    while len(shown) > 2:
        spans = sorted(extent(v) for v in shown)
        if all(a[1] <= b[0] for a, b in zip(spans, spans[1:])):
            break
        shown = shown[::2]  # Vega's "parity" strategy: every other label
    for v in shown:
        x = cv.xs(v)
        cv.text(x, -9.0, str(v), "start" if x <= 0.0 else "end" if x >= w else "middle", 10)
    cv.text(w / 2, -23.0, "mean rank (1 = best)", "middle", 11, bold=True)


def _svg_titles(cv: _Canvas, caption: Sequence[str], title: str | None) -> None:
    """Draw the title and caption above the axis title, as Vega's title and subtitle."""
    top = -39.0
    for ln in reversed(caption):
        cv.text(cv.w / 2, top, str(ln), "middle", 11, "#444")
        top -= 14.0
    if title is not None:
        cv.text(cv.w / 2, top - 2.0, str(title), "middle", 13, bold=True)


def _svg_marks(cv: _Canvas, lay: dict, colours: list[str], reverse: bool) -> None:
    """Draw the marks, in the order of :func:`~genexpy_nb.charts.cd_diagram`'s layers."""
    xs, ys = cv.xs, cv.ys
    cv.line(xs(1.0), ys(0.0), xs(lay["x_max"]), ys(0.0), "black", 1.5)
    items = lay["items"]
    r = math.sqrt(60.0) / 2.0  # Vega's point of size 60 (area in px^2 of its square)
    for it, c in zip(items, colours):
        x, y = xs(it["mean_rank"]), ys(0.0)
        ring = ' stroke="black" stroke-width="2"' if it["control"] else ""
        cv.parts.append(f'<circle cx="{_f(x)}" cy="{_f(y)}" r="{_f(r)}" fill="{c}" '
                        f'fill-opacity="0.7"{ring}><title>{escape(it["tooltip"])}</title>'
                        '</circle>')
        cv.grow(x - r, x + r, y - r, y + r)
    for it, c in zip(items, colours):
        cv.line(xs(it["mean_rank"]), ys(0.0), xs(it["mean_rank"]), ys(it["y_label"]), c)
    for it, c in zip(items, colours):
        cv.line(xs(it["mean_rank"]), ys(it["y_label"]), xs(it["x_anchor"]), ys(it["y_label"]),
                c)
    for it, c in zip(items, colours):
        # the best side's labels end left of their anchor (right of it when reversed)
        right_aligned = (it["side"] == "best") != bool(reverse)
        cv.text(xs(it["x_anchor"]) + (-4.0 if right_aligned else 4.0), ys(it["y_label"]) + 3.0,
                it["label"], "end" if right_aligned else "start", 11, c, bold=it["control"])
    for cq in lay["cliques"]:
        cv.line(xs(cq["x"]), ys(cq["y"]), xs(cq["x2"]), ys(cq["y"]), "black", 4.0,
                ' stroke-linecap="round"')
    for row in lay["cd_rows"]:
        cv.line(xs(row["x"]), ys(row["y"]), xs(row["x2"]), ys(row["y"]), "black", 2.0)
        cv.text(xs(row["x_text"]), ys(row["y_text"]) + 3.0, row["text"], "middle", 11, "black")


def _svg(lay: dict, colours: list[str], *, reverse: bool, width: int, row_height: int,
         title: str | None) -> str:
    """Return the diagram as SVG, laid out as Vega lays out ``cd_diagram``'s chart."""
    cv = _Canvas(lay, reverse=reverse, width=width, row_height=row_height)
    _svg_axis(cv)
    _svg_titles(cv, lay["caption"], title)
    _svg_marks(cv, lay, colours, reverse)
    return cv.document()


def _colour_list(colors: Any, names: list[str]) -> list[str] | None:
    """One CSS colour per alternative, or None for a scheme only Vega knows."""
    if colors is None:
        return ["black"] * len(names)
    if isinstance(colors, str):
        scheme = SCHEMES.get(colors)
        if scheme is None:
            return None
        return [scheme[i % len(scheme)] for i in range(len(names))]
    return [escape(str(colors[a])) for a in names]


#: the keywords of the CD diagram's drawings (``cd_diagram``, ``cd_diagram_svg``), in their
#: signatures' order: (name, annotation, default)
CD_KEYWORDS: tuple[Keyword, ...] = (
    ("alpha", "float", 0.05), ("higher_is_better", "bool", REQUIRED),
    ("pairwise", "pl.DataFrame | None", None), ("order", "Sequence[str] | None", None),
    ("colors", "str | Mapping[str, str] | None", None), ("reverse", "bool", False),
    ("show_ranks", "bool", True), ("show_cd", "bool | None", None), ("width", "int", 500),
    ("row_height", "int", 18), ("title", "str | None", None), ("top", "int | None", None),
    ("caption", "str | Sequence[str] | None", None), ("target", "str | None", None),
    ("blocks", "str | None", None), ("alternatives", "str | Sequence[Any] | None", None),
    ("y_col", "str | None", None), ("block_col", "str | None", None),
    ("group_col", "str | None", None), ("nan_policy", "str", "raise"))
_CD_DOC = """\
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
    mapping alternative -> CSS colour. Colours points, connectors and labels (without
    Vega: ``category10``, ``tableau10``, ``set1``, ``dark2``; another scheme is drawn by
    Vega).
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
"""
#: gives a drawing of the CD diagram the keywords :data:`CD_KEYWORDS`, in its signature and
#: (the line ``{drawing}``) its docstring
drawing_keywords = shared_keywords(CD_KEYWORDS, "drawing", _CD_DOC)


def cd_drawing(data: Any, kwargs: dict[str, Any], func: str) -> tuple[dict, dict[str, Any]]:
    """Return the layout of a drawing's diagram (:func:`cd_layout`) and its drawing options.

    ``kwargs`` are the drawing's :data:`CD_KEYWORDS`; the options are ``colors``,
    ``reverse``, ``width``, ``row_height`` and ``title``.
    """
    kw = keyword_values(kwargs, CD_KEYWORDS, func)
    roles = score_roles(*(kw.pop(k) for k in ("target", "blocks", "alternatives", "y_col",
                                              "block_col", "group_col")), func)
    draw = {k: kw.pop(k) for k in ("reverse", "width", "row_height", "title")}
    return cd_layout(data, **kw, **roles, func=func), dict(draw, colors=kw["colors"])


@drawing_keywords
def cd_diagram_svg(data: Any, **kwargs: Any) -> str:
    """Draw the critical-difference diagram as an SVG document (text), without Vega.

    Takes the arguments of :func:`~genexpy_nb.charts.cd_diagram` and draws the same picture:
    mean ranks on a top axis (1 = best), the bars of alternatives that are not
    significantly different, each alternative's label below (the better half on the best
    side), and under the title what the bars mean (the test, correction and alpha). 3-10x
    faster than rendering the Altair chart (no JavaScript engine); for an interactive chart
    in a notebook use ``cd_diagram``.

    Parameters
    ----------
    {drawing}

    Returns
    -------
    str
        The SVG document.

    Examples
    --------
    >>> import numpy as np
    >>> scores = np.random.default_rng(0).random((30, 4)) + [0.0, 0.1, 0.5, 0.6]
    >>> svg = cd_diagram_svg(scores, higher_is_better=True, alternatives=list("ABCD"))
    >>> svg.startswith("<svg") and "CD = " in svg and "Nemenyi" in svg
    True
    """
    lay, draw = cd_drawing(data, kwargs, "cd_diagram_svg")
    colours = _colour_list(draw["colors"], lay["names"])
    if colours is None:  # a scheme this module does not list: let Vega draw it
        import vl_convert as vlc

        from .cd_vega import layout_chart
        from .export import vega_lite_spec as _spec
        from .export import vl_version as _vl_version

        return vlc.vegalite_to_svg(_spec(layout_chart(lay, **draw)), vl_version=_vl_version())
    del draw["colors"]
    return _svg(lay, colours, **draw)


def _html_page(svg: str, title: str, body: str = "") -> str:
    """Return a standalone HTML page around an SVG (it opens offline: nothing is loaded)."""
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>{html_text(title)}</title>"
        "<style>body{font-family:sans-serif;margin:1.5em;max-width:60em}"
        "table{border-collapse:collapse}td,th{padding:2px 8px;border-bottom:1px solid #ddd}"
        "blockquote{border-left:3px solid #ccc;margin-left:0;padding-left:1em}</style>"
        f"</head><body>\n{svg}\n{body}</body></html>\n"
    )


def cd_diagram_html(data: Any, *, report: bool = True, **kwargs: Any) -> str:
    """Draw the CD diagram as a standalone HTML page (the SVG inline, tooltips on the points).

    Parameters
    ----------
    data : Comparison, frame or matrix
        As for :func:`~genexpy_nb.charts.cd_diagram_svg`.
    report : bool
        With a Comparison: its report below the diagram.
    **kwargs
        As for :func:`~genexpy_nb.charts.cd_diagram_svg`.

    Returns
    -------
    str
    """
    svg = cd_diagram_svg(data, **kwargs)
    if _is_comparison(data):
        title = data.title_text()
        body = data.to_html() if report else ""
    else:
        title, body = kwargs.get("title") or "Critical-difference diagram", ""
    return _html_page(svg, str(title), body)


_FIGURES = ("png", "svg", "pdf", "html")


def save_cd_diagram(
    data: Any,
    path: str | Path | Sequence[str | Path],
    *,
    scale: float = 1.0,
    **kwargs: Any,
) -> Path | list[Path]:
    """Save the critical-difference diagram as PNG, SVG, PDF or HTML (by the file suffix).

    Parameters
    ----------
    data : Comparison, frame or matrix
        As for :func:`~genexpy_nb.charts.cd_diagram_svg` (``higher_is_better=...`` for raw
        scores).
    path : str, Path or list of them
        E.g. ``["cd.png", "cd.html"]``: the diagram is drawn once for all.
    scale : float
        Multiplies the pixel size of a PNG (2 for a sharper image).
    **kwargs
        As for :func:`~genexpy_nb.charts.cd_diagram_svg` (``title``, ``colors``,
        ``pairwise``, ``top``, ...).

    Returns
    -------
    Path or list of Path
        The path (list of paths) written.

    Notes
    -----
    Each file is written atomically. The picture is the one ``save_chart(cd_diagram(...),
    path)`` writes, in a fraction of its time (no JavaScript engine; the PNG rasterized by
    vl-convert's resvg). HTML is a page holding the SVG (and, for a Comparison, its
    report), which opens offline.
    """
    from .._io import atomic_write, save_targets

    many, paths, fmts = save_targets(
        path, _FIGURES, "save_cd_diagram: cannot save as {suffix}; use .png, .svg, .pdf or "
        ".html (or save_chart(cd_diagram(...), path) for .json).")
    if not (isinstance(scale, (int, float)) and math.isfinite(scale) and scale > 0):
        raise GenexpyInputError(f"scale must be a positive number, got {scale!r}.")
    svg = cd_diagram_svg(data, **kwargs)
    for p, fmt in zip(paths, fmts):
        if fmt == "svg":
            with atomic_write(p, "w", encoding="utf-8") as fh:
                fh.write(svg)
            continue
        if fmt == "html":
            if _is_comparison(data):
                page = _html_page(svg, data.title_text(), data.to_html())
            else:
                page = _html_page(svg, kwargs.get("title") or "Critical-difference diagram")
            with atomic_write(p, "w", encoding="utf-8") as fh:
                fh.write(page)
            continue
        import vl_convert as vlc

        blob = (vlc.svg_to_png(svg, scale=float(scale)) if fmt == "png"
                else vlc.svg_to_pdf(svg, scale=float(scale)))
        with atomic_write(p, "wb") as fh:
            fh.write(blob)
    return paths if many else paths[0]


def save_comparison(
    result: Any,
    folder: str | Path,
    *,
    figures: Sequence[str] = ("html", "png"),
    format: str = "csv",
    scale: float = 1.0,
    **kwargs: Any,
) -> list[Path]:
    """Write a comparison into one folder, atomically: its tables, report and CD diagram.

    The folder holds the tables, ``report.md``, ``mean_ranks.tex`` and the CD diagram
    (``cd_diagram.<fmt>`` for each of ``figures``).

    Parameters
    ----------
    result : Comparison
        From :func:`~genexpy_nb.significance.compare`.
    folder : str or Path
        Written atomically: a temporary folder renamed at the end; an earlier output of
        genexpy_nb is replaced, a folder of other files never.
    figures : sequence of {"html", "png", "svg", "pdf"}
        Formats of the CD diagram (empty: none).
    format : {"csv", "parquet", "tsv", "json"}
        Format of the tables.
    scale : float
        Pixel scale of the PNG.
    **kwargs
        Drawing options of :func:`~genexpy_nb.charts.cd_diagram_svg` (``title``,
        ``colors``, ``top``, ...).

    Returns
    -------
    list of Path
        Every file written, sorted by name.
    """
    from .._io import atomic_dir

    if not _is_comparison(result):
        raise GenexpyInputError("save_comparison: give the result of "
                                "genexpy_nb.significance.compare(...).")
    figures = [f.lower().lstrip(".") for f in figures]
    bad = [f for f in figures if f not in _FIGURES]
    if bad:
        raise GenexpyInputError(f"figures: unsupported format(s) {bad}; use html, png, svg or "
                                "pdf.")
    with atomic_dir(folder) as tmp:
        result.write_into(tmp, format=format)
        if figures:
            save_cd_diagram(result, [tmp / f"cd_diagram.{f}" for f in dict.fromkeys(figures)],
                            scale=scale, **kwargs)
        names = sorted(p.name for p in tmp.iterdir())
    return [Path(folder) / n for n in names]
