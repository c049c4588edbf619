"""How the panels show their charts and tables.

The chart transport (:class:`ChartView`, the backends of :func:`chart_backend`), the chart
cache and the shared helpers of :mod:`genexpy_nb.panels.generalizability` and
:mod:`genexpy_nb.panels.seeds`. Users import the panels from :mod:`genexpy_nb.panels`.

Charts are shown in :class:`ipywidgets.Output` widgets by setting their ``outputs`` to the
chart compiled to a Vega spec (``application/vnd.vega.v5+json``, see :data:`CHART_BACKEND`),
which JupyterLab, Notebook 7, VS Code and Binder draw natively, without network.
"""

from __future__ import annotations

import html
import math
import os
from collections.abc import Sequence
from typing import Any

import altair as alt
import ipywidgets as widgets
import numpy as np
import polars as pl

from .._validation import GenexpyInputError
from ..answers.numbers import number
from ..generalizability.kernels import RBF, Borda, Jaccard, Kernel, Mallows

__all__ = ["ChartView", "chart_backend"]

#: research questions offered by the generalizability explorer, in dropdown order
FAMILIES: dict[str, type[Kernel]] = {
    "jaccard": Jaccard,
    "mallows": Mallows,
    "borda": Borda,
    "rbf": RBF,
}
#: methods of n* shown next to each other for the selected configuration
PANEL_METHODS: tuple[str, ...] = ("resample", "approx", "bound")
#: slider ranges (alpha* >= 0.6: the closed form's normal approximation holds there)
ALPHA_RANGE: tuple[float, float, float] = (0.6, 0.99, 0.01)
DELTA_RANGE: tuple[float, float, float] = (0.01, 0.5, 0.01)
#: thresholds eps of the n-generalizability chart, and at most this many curves (n) drawn
NGEN_EPS_POINTS: int = 61
NGEN_MAX_CURVES: int = 10
#: charts kept per panel (keyed by their inputs), so that going back to a slider position
#: redraws at once
CHART_CACHE_SIZE: int = 256
#: trimming levels of the seed-variability slider
TRIM_GRID: tuple[float, ...] = tuple(np.round(np.arange(0.0, 0.46, 0.01), 2).tolist())
#: metrics offered against alpha-hat, in dropdown order (those present in the report)
VAR_METRICS: tuple[str, ...] = (
    "accuracy", "churn_ensemble_frac", "pairwise_churn_mean_frac", "ece", "ks",
)


# ---------------------------------------------------------------------------------------
# small display helpers (no analysis here)
# ---------------------------------------------------------------------------------------
def mimebundle(chart: alt.TopLevelMixin) -> dict:
    """Return the MIME bundle the active Altair renderer makes of ``chart``, without re-validation.

    Altair validates a spec against the Vega-Lite schema in ``to_dict()``; the panels' charts
    come from the tested chart builders, so the panels skip that (it is slow, and a slider
    move redraws three charts). ``chart.to_dict()`` still validates, as tests do.
    """
    spec = chart.to_dict(validate=False, context={"pre_transform": False})
    renderer = alt.renderers.get()
    out = renderer(spec) if renderer is not None else {}
    if isinstance(out, tuple):
        out = out[0]
    return dict(out or {})


def vega_bundle(chart: alt.TopLevelMixin) -> dict:
    """Return the chart as a Vega spec that the frontend draws itself, offline.

    See :func:`genexpy_nb.charts.offline_renderer`; whatever Altair renderer is active.
    """
    from ..charts._offline import offline_renderer

    spec = chart.to_dict(validate=False, context={"pre_transform": False})
    return offline_renderer(spec)[0]


def payload(chart: alt.TopLevelMixin) -> dict:
    """Return what the frontend needs of a chart under the backend in force.

    The Vega bundle (vega), the Vega-Lite spec (jupyterchart) or the active renderer's
    bundle (mimebundle).
    """
    backend = chart_backend()
    if backend == "vega":
        return vega_bundle(chart)
    if backend == "jupyterchart":
        # the Vega-Lite spec: compiling it to Vega in the kernel (vl-convert) was measured
        # slower per step than letting the browser compile it
        return chart.to_dict(validate=False)
    return mimebundle(chart)


def fast_charts():
    """Context in which Altair does not validate every chart object as it is built."""
    return alt.utils.schemapi.debug_mode(False)


#: how panels draw their charts:
#:
#: - "jupyterchart" (the default when anywidget is installed, as it is with genexpy_nb):
#:   Altair's JupyterChart widget, its JavaScript bundled offline by vl-convert (once per
#:   kernel), sent each chart's Vega-Lite spec (the fastest redraw measured in
#:   benchmarks/bench_browser_panels.py);
#: - "vega": each chart as ``application/vnd.vega.v5+json`` in an ``ipywidgets.Output``,
#:   drawn by the frontend's own Vega (no JavaScript shipped; JupyterLab re-renders the
#:   output and rasterises a PNG copy on each step, slower);
#: - "mimebundle": the active Altair renderer's MIME bundle in an Output widget;
#: - "auto": "jupyterchart" when anywidget is importable, else "vega".
#:
#: Set GENEXPY_NB_CHARTS to override.
CHART_BACKEND = os.environ.get("GENEXPY_NB_CHARTS", "auto")
_BACKENDS = ("auto", "vega", "jupyterchart", "mimebundle")


def timed_refresh(panel: Any) -> None:
    """Refresh a panel: its numbers first, then its charts, each timed.

    ``panel.timings`` gets the seconds of ``"numbers"``, ``"charts"`` and ``"total"``,
    ``panel.last_update_s`` the total.
    """
    import time

    t0 = time.perf_counter()
    with fast_charts():
        panel._refresh_numbers()
        t1 = time.perf_counter()
        panel._refresh_charts()
    t2 = time.perf_counter()
    panel.timings = {"numbers": t1 - t0, "charts": t2 - t1, "total": t2 - t0}
    panel.last_update_s = t2 - t0


def chart_backend() -> str:
    """Return the chart backend in force (see :data:`CHART_BACKEND`).

    Returns
    -------
    str
        "vega", "mimebundle" or "jupyterchart" ("auto" resolved: "jupyterchart" when
        anywidget is installed, else "vega").
    """
    b = CHART_BACKEND
    if b not in _BACKENDS:
        raise GenexpyInputError(
            f"GENEXPY_NB_CHARTS / panel_views.CHART_BACKEND must be one of {', '.join(_BACKENDS)}"
            f"; got {b!r}."
        )
    if b == "auto":
        try:
            import anywidget  # noqa: F401
        except ImportError:
            return "vega"
        return "jupyterchart"
    return b


def jupyter_chart() -> alt.JupyterChart:
    """Create an empty JupyterChart whose JavaScript needs no network (bundled by vl-convert)."""
    alt.JupyterChart.enable_offline()  # once per session; a no-op afterwards
    return alt.JupyterChart(None)


class ChartView:
    """An ``ipywidgets.Output`` showing one Altair chart, or a message instead.

    ``view.chart`` is the chart shown (None while a message is shown), ``view.message``
    the message; ``view.widget.outputs`` holds exactly what the frontend draws: with the
    "vega" backend (the default) the chart compiled to a Vega spec
    (``application/vnd.vega.v5+json``), with "mimebundle" the active Altair renderer's
    bundle, with "jupyterchart" the view of
    ``view.jchart`` (an Altair JupyterChart whose ``spec`` is the chart's Vega-Lite spec,
    updated in place when the chart changes).

    Parameters
    ----------
    name : str
        The view's name in its panel (``panel.views[name]``).
    backend : str, optional
        "vega", "mimebundle" or "jupyterchart"; default: :func:`chart_backend`.
    """

    def __init__(self, name: str, backend: str | None = None) -> None:
        self.name = name
        self.backend = chart_backend() if backend is None else backend
        self.widget = widgets.Output(layout=widgets.Layout(min_height="40px"))
        self.chart: alt.TopLevelMixin | None = None
        self.message: str | None = None
        self.jchart = jupyter_chart() if self.backend == "jupyterchart" else None

    def show(self, chart: alt.TopLevelMixin, bundle: dict | None = None) -> None:
        """Show ``chart`` (``bundle``: its MIME bundle when already made).

        Showing the chart already shown does nothing: the frontend is not sent the same
        spec again (and does not redraw it), e.g. the deficit heatmap when only the
        configuration changed.
        """
        if chart is self.chart and self.message is None and self.widget.outputs:
            return
        self.chart, self.message = chart, None
        if self.jchart is not None:
            spec = bundle if bundle is not None and "$schema" in bundle else None
            self.jchart.spec = chart.to_dict(validate=False) if spec is None else spec
            view = {"model_id": self.jchart.model_id, "version_major": 2, "version_minor": 0}
            if not self.widget.outputs or "application/vnd.jupyter.widget-view+json" not in \
                    self.widget.outputs[0]["data"]:
                self.widget.outputs = ({"output_type": "display_data", "metadata": {},
                                        "data": {"application/vnd.jupyter.widget-view+json":
                                                 view, "text/plain": f"{self.name} chart"}},)
            return
        if bundle is None or ("$schema" in bundle) != (self.backend == "jupyterchart"):
            bundle = vega_bundle(chart) if self.backend == "vega" else mimebundle(chart)
        data = bundle
        self.widget.outputs = ({"output_type": "display_data", "data": data,
                                "metadata": {}},)

    def note(self, text: str) -> None:
        """Show the message ``text`` instead of a chart (in italics).

        Parameters
        ----------
        text : str
            The message, e.g. why the chart cannot be drawn.
        """
        self.chart, self.message = None, text
        self.widget.outputs = ({
            "output_type": "display_data",
            "data": {"text/html": f"<p><i>{html.escape(text)}</i></p>", "text/plain": text},
            "metadata": {},
        },)


class ChartCache:
    """Values keyed by the inputs they were made from, the most recent kept.

    Charts with their bundles, n* frames: going back to a slider position redraws at once.
    The cache holds at most ``size`` values.

    (Preparing the neighbouring slider positions in a background thread was tried and
    dropped: polars and vl-convert called from two threads at once deadlocked.)
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self._d: dict[tuple, Any] = {}

    def get(self, key: tuple, build) -> Any:
        """Return the value of ``key``, made with ``build()`` if it is not cached.

        Parameters
        ----------
        key : tuple
            The inputs the value is made from.
        build : callable
            Makes the value, called without arguments.

        Returns
        -------
        object
            The value; it becomes the most recent, and the least recent ones beyond
            ``size`` are dropped.
        """
        hit = self._d.pop(key, None)
        if hit is None:
            hit = build()
        self._d[key] = hit  # most recent last
        while len(self._d) > self.size:
            self._d.pop(next(iter(self._d)))
        return hit

    def __contains__(self, key: tuple) -> bool:
        return key in self._d

    def __len__(self) -> int:
        return len(self._d)


def with_payload(build):
    """``build`` -> a builder of (chart, what the frontend gets of it)."""
    def both():
        chart = build()
        return chart, payload(chart)

    return both




def fmt_cell(v: Any, digits: int = 3) -> str:
    """Format a value for a table cell.

    Parameters
    ----------
    v : object
        The value: None is a dash, a boolean yes/no, a float ``digits`` significant digits
        ("undefined" when not finite), anything else its ``str()``.
    digits : int, default 3
        Significant digits of floats.

    Returns
    -------
    str
        The cell's text.
    """
    if v is None:
        return "–"
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    if isinstance(v, (float, np.floating)):
        if not math.isfinite(v):
            return "undefined"
        return number(float(v), digits)
    return str(v)


def html_table(df: pl.DataFrame, columns: Sequence[str] | None = None,
                max_rows: int = 50, highlight: Any = None, key: str | None = None) -> str:
    """Render a polars frame as a plain HTML table (escaped), one highlighted row optional."""
    cols = list(columns or df.columns)
    head = "".join(f"<th style='text-align:left;padding:2px 8px'>{html.escape(c)}</th>"
                   for c in cols)
    rows = []
    for rec in df.head(max_rows).iter_rows(named=True):
        style = (" style='background:#fde0dd'"
                 if key is not None and highlight is not None and rec.get(key) == highlight
                 else "")
        cells = "".join(f"<td style='padding:2px 8px'>{html.escape(fmt_cell(rec[c]))}</td>"
                        for c in cols)
        rows.append(f"<tr{style}>{cells}</tr>")
    more = (f"<p><i>{df.height - max_rows} more rows: see panel.export()</i></p>"
            if df.height > max_rows else "")
    return (f"<table style='border-collapse:collapse;font-size:90%'><thead><tr>{head}</tr>"
            f"</thead><tbody>{''.join(rows)}</tbody></table>{more}")


#: the columns of the conclusions table of the generalizability explorer
CONCLUSION_COLUMNS = ("kind", "observed", "verdict", "more", "more_lo", "more_hi", "p_hold",
                      "nstar", "nstar_lo", "nstar_hi", "mode", "reason")


def conclusions_html(frame: pl.DataFrame, *, unit: str = "condition",
                     alpha: float | None = None, max_rows: int = 60) -> str:
    """Render one configuration's conclusions: the sentences, then the table of every row.

    Parameters
    ----------
    frame : polars.DataFrame
        The rows of :func:`~genexpy_nb.conclusions` for one configuration.
    unit : str, default "condition"
        What a condition is called in the sentences ("dataset").
    alpha : float, optional
        alpha* the frame was computed at (said in the sentences).
    max_rows : int, default 60
        Rows of the table shown (the sentences count every pair).

    Returns
    -------
    str
        HTML, every string from the data escaped: a bold question, the sentences of
        :func:`~genexpy_nb.conclusions_summary`, the rule they are under (fixed-N or
        sequential) and a table (kind, what the study concludes, verdict, the conditions
        still needed with their interval and the probability of holding then, the agreement
        n* with its interval, the mode, reason).
    """
    from ..answers.conclusions import conclusions_summary

    s = conclusions_summary(frame, unit=unit, alpha=alpha)
    sentences = "".join(f"<li>{html.escape(ln)}</li>" for sec in s.sections
                        for ln in sec.lines)
    title = html.escape(s.sections[0].title) if s.sections else ""
    mode = f"<p style='font-size:90%'>{html.escape(s.footer[0])}</p>" if s.footer else ""
    cols = [c for c in CONCLUSION_COLUMNS if c in frame.columns]
    return (f"<p><b>Do this configuration's conclusions hold?</b> ({title}; at alpha* = "
            f"{fmt_cell(alpha if alpha is not None else 0.95)}, the threshold the panel was "
            f"opened with)</p><ul>{sentences}</ul>{mode}"
            f"<details><summary>every conclusion ({frame.height})</summary>"
            f"{html_table(frame, cols, max_rows=max_rows)}</details>")

