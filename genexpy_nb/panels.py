"""Interactive panels (ipywidgets 8): ask the papers' questions of your own study.

Two panels, both thin: they compose the public API and the chart builders of
:mod:`genexpy_nb.charts` and hold no analysis logic of their own.

- :class:`GeneralizabilityExplorer` — pick a configuration, a research question (kernel and
  its parameter), alpha* and delta*; see n* with its power-law fit, whether the
  configuration is already generalizable, the n-generalizability and power-law charts, and
  the configurations ranked by deficit n* - N (which experiments to run next).
- :class:`SeedVariabilityExplorer` — pick a candidate model of a pool trained over random
  seeds and a trimming level; see the trimmed KS distance against the DKW threshold, the
  eCDFs of logit gaps (candidate, reference function, ensemble), and alpha-hat against
  accuracy / churn / ECE with the candidate highlighted.

Both expose their widget as ``panel.widget`` (and display themselves in Jupyter), keep the
current charts in ``panel.charts`` (plain Altair objects: ``chart.to_dict()``) and export
their current state as a polars frame with ``panel.export()``, ready to paste into a paper.

Charts are shown in :class:`ipywidgets.Output` widgets by setting their ``outputs`` to the
chart compiled to a Vega spec (``application/vnd.vega.v5+json``, see :data:`CHART_BACKEND`),
which JupyterLab, Notebook 7, VS Code and Binder draw natively, without network. This needs
no browser-side extension beyond ipywidgets, and tests can read what the frontend would draw.

Responsiveness: moving a slider re-reads the cached MMD_n distributions
(:meth:`GeneralizabilityAnalysis.nstar`), it never resamples, and redraws only the charts
whose inputs changed (charts are cached by their inputs; a view already showing a chart is
not sent it again); see ``benchmarks/bench_panels.py`` for the measured latency. A new
kernel parameter (another Borda alternative, another Jaccard k) is a new research question:
its distributions are computed once, with progress shown, and cached by kernel label.
"""

from __future__ import annotations

import html
import math
import os
import time
from collections.abc import Sequence
from typing import Any

import altair as alt
import ipywidgets as widgets
import numpy as np
import polars as pl

from . import config
from ._validation import GenexpyInputError, check_positive_int
from .generalizability import GeneralizabilityAnalysis
from .kernels import RBF, Borda, Jaccard, Kernel, Mallows
from .planner import plan
from .study import Study

__all__ = ["GeneralizabilityExplorer", "SeedVariabilityExplorer", "ChartView"]

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
def _mimebundle(chart: alt.TopLevelMixin) -> dict:
    """The MIME bundle the active Altair renderer makes of ``chart``, without re-validation.

    Altair validates a spec against the Vega-Lite schema in ``to_dict()``; the panels' charts
    come from the tested chart builders, so the panels skip that (it costs ~100 ms per chart
    and a slider move redraws three). ``chart.to_dict()`` still validates, as tests do.
    """
    spec = chart.to_dict(validate=False, context={"pre_transform": False})
    renderer = alt.renderers.get()
    out = renderer(spec) if renderer is not None else {}
    if isinstance(out, tuple):
        out = out[0]
    return dict(out or {})


def _vega_bundle(chart: alt.TopLevelMixin) -> dict:
    """The chart as a Vega spec that the frontend draws itself, offline
    (:func:`genexpy_nb.charts.offline_renderer`), whatever Altair renderer is active."""
    from .charts._offline import offline_renderer

    spec = chart.to_dict(validate=False, context={"pre_transform": False})
    return offline_renderer(spec)[0]


def _payload(chart: alt.TopLevelMixin) -> dict:
    """What the frontend needs of a chart under the backend in force: the Vega bundle
    (vega), the Vega-Lite spec (jupyterchart) or the active renderer's bundle (mimebundle)."""
    backend = chart_backend()
    if backend == "vega":
        return _vega_bundle(chart)
    if backend == "jupyterchart":
        # the Vega-Lite spec: compiling it to Vega in the kernel (vl-convert) was measured
        # slower per step than letting the browser compile it
        return chart.to_dict(validate=False)
    return _mimebundle(chart)


def _fast_charts():
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


def chart_backend() -> str:
    """The chart backend in force (see :data:`CHART_BACKEND`)."""
    b = CHART_BACKEND
    if b not in _BACKENDS:
        raise GenexpyInputError(
            f"GENEXPY_NB_CHARTS / panels.CHART_BACKEND must be one of {', '.join(_BACKENDS)}"
            f"; got {b!r}."
        )
    if b == "auto":
        try:
            import anywidget  # noqa: F401
        except ImportError:
            return "vega"
        return "jupyterchart"
    return b


def _jupyter_chart() -> alt.JupyterChart:
    """An empty JupyterChart whose JavaScript needs no network (bundled by vl-convert)."""
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
    """

    def __init__(self, name: str, backend: str | None = None) -> None:
        self.name = name
        self.backend = chart_backend() if backend is None else backend
        self.widget = widgets.Output(layout=widgets.Layout(min_height="40px"))
        self.chart: alt.TopLevelMixin | None = None
        self.message: str | None = None
        self.jchart = _jupyter_chart() if self.backend == "jupyterchart" else None

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
            bundle = _vega_bundle(chart) if self.backend == "vega" else _mimebundle(chart)
        data = bundle
        self.widget.outputs = ({"output_type": "display_data", "data": data,
                                "metadata": {}},)

    def note(self, text: str) -> None:
        self.chart, self.message = None, text
        self.widget.outputs = ({
            "output_type": "display_data",
            "data": {"text/html": f"<p><i>{html.escape(text)}</i></p>", "text/plain": text},
            "metadata": {},
        },)


class _ChartCache:
    """Values (charts with their bundles, n* frames) keyed by the inputs they were made from
    (bounded, most recent kept), so that going back to a slider position redraws at once.

    (Preparing the neighbouring slider positions in a background thread was tried and
    dropped: polars and vl-convert called from two threads at once deadlocked.)
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self._d: dict[tuple, Any] = {}

    def get(self, key: tuple, build) -> Any:
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


def _with_payload(build):
    """``build`` -> a builder of (chart, what the frontend gets of it)."""
    def both():
        chart = build()
        return chart, _payload(chart)

    return both




def _fmt(v: Any, digits: int = 3) -> str:
    if v is None:
        return "–"
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    if isinstance(v, (float, np.floating)):
        if not math.isfinite(v):
            return "undefined"
        return f"{v:.{digits}g}"
    return str(v)


def _html_table(df: pl.DataFrame, columns: Sequence[str] | None = None,
                max_rows: int = 50, highlight: Any = None, key: str | None = None) -> str:
    """A plain HTML table of a polars frame (escaped), one highlighted row optional."""
    cols = list(columns or df.columns)
    head = "".join(f"<th style='text-align:left;padding:2px 8px'>{html.escape(c)}</th>"
                   for c in cols)
    rows = []
    for rec in df.head(max_rows).iter_rows(named=True):
        style = (" style='background:#fde0dd'"
                 if key is not None and highlight is not None and rec.get(key) == highlight
                 else "")
        cells = "".join(f"<td style='padding:2px 8px'>{html.escape(_fmt(rec[c]))}</td>"
                        for c in cols)
        rows.append(f"<tr{style}>{cells}</tr>")
    more = (f"<p><i>{df.height - max_rows} more rows: see panel.export()</i></p>"
            if df.height > max_rows else "")
    return (f"<table style='border-collapse:collapse;font-size:90%'><thead><tr>{head}</tr>"
            f"</thead><tbody>{''.join(rows)}</tbody></table>{more}")


# ---------------------------------------------------------------------------------------
# generalizability
# ---------------------------------------------------------------------------------------
class GeneralizabilityExplorer:
    """Explore n* and n-generalizability of a study, configuration by configuration.

    Parameters
    ----------
    study : Study
    kernels : list of Kernel, optional
        The research questions computed up front (default: Jaccard(k=1), Mallows, RBF and
        Borda of the study's first alternative). Any other question picked in the panel is
        computed when first asked for, then cached.
    rep : int, default 200
        Resampled pairs per sample size (ignored when ``analysis`` is given).
    seed : int, default 0
        Seed of every analysis the panel computes (ignored when ``analysis`` is given).
    analysis : GeneralizabilityAnalysis, optional
        An analysis of ``study`` already computed: reused as is (its rep, seed, resampling
        mode and grid are then used for the questions added in the panel).
    alpha, delta : float
        Initial alpha* and delta* (default the paper's headline 0.95, 0.05).
    progress : bool, default True
        Progress bars while distributions are computed.

    Attributes
    ----------
    widget : ipywidgets.VBox
        The panel (also shown when the object is the last expression of a cell).
    factor_widgets : dict of design factor -> Dropdown
    family, alternative, k, alpha, delta : the question and threshold widgets
    analyses : dict of kernel label -> GeneralizabilityAnalysis (the cache)
    results : polars.DataFrame
        n* of every configuration for the current question and thresholds (methods
        resample, approx, bound); ``result`` its rows for the selected configuration and
        ``ranking`` the configurations ranked by deficit (:func:`genexpy_nb.plan`).
    charts : dict of name -> Altair chart ("ngen", "power_law", "deficit"); a chart is
        missing when it cannot be drawn (n* undefined), with the reason shown instead.
    last_update_s : float, seconds the last interaction took to refresh the panel;
        ``timings`` splits it into "numbers" and "charts".

    Examples
    --------
    >>> panel = GeneralizabilityExplorer(study)  # doctest: +SKIP
    >>> panel                                   # doctest: +SKIP  (shows the widget)
    >>> panel.alpha.value = 0.9                 # doctest: +SKIP
    >>> panel.export()                          # doctest: +SKIP
    """

    def __init__(
        self,
        study: Study,
        kernels: Sequence[Kernel] | None = None,
        rep: int = config.REP,
        seed: int = 0,
        analysis: GeneralizabilityAnalysis | None = None,
        *,
        alpha: float = config.HEADLINE_ALPHA,
        delta: float = config.HEADLINE_DELTA,
        progress: bool = True,
    ) -> None:
        if not isinstance(study, Study):
            raise GenexpyInputError("study must be a genexpy_nb.Study.")
        if analysis is not None:
            if not isinstance(analysis, GeneralizabilityAnalysis):
                raise GenexpyInputError("analysis must be a GeneralizabilityAnalysis.")
            if analysis.study is not study:
                raise GenexpyInputError(
                    "analysis was computed on another Study object: pass the same study, "
                    "e.g. GeneralizabilityExplorer(analysis.study, analysis=analysis)."
                )
        for nm, v, (lo, hi, _) in (("alpha", alpha, ALPHA_RANGE), ("delta", delta, DELTA_RANGE)):
            if not isinstance(v, (int, float, np.floating)) or not lo <= float(v) <= hi:
                raise GenexpyInputError(f"{nm} must lie in [{lo}, {hi}] in the panel (its "
                                        f"slider's range), got {v!r}.")
        self.study = study
        self.progress = bool(progress)
        if analysis is not None:
            self.rep, self.seed = analysis.rep, analysis.seed
            self._ga_kwargs = dict(disjoint=analysis.disjoint, replace=analysis.replace,
                                   grid=analysis.grid, configurations=analysis.config_ids)
        else:
            self.rep = check_positive_int("rep", rep, minimum=2)
            self.seed = seed
            self._ga_kwargs = {}
        self.analyses: dict[str, GeneralizabilityAnalysis] = {}
        self._where: dict[str, tuple[GeneralizabilityAnalysis, int]] = {}
        self._templates: dict[str, Kernel] = {}
        self.results = pl.DataFrame()
        self.result = pl.DataFrame()
        self.ranking = pl.DataFrame()
        self.charts: dict[str, alt.TopLevelMixin] = {}
        self.last_update_s = math.nan
        self.timings: dict[str, float] = {}
        self._chart_cache = _ChartCache(CHART_CACHE_SIZE)
        self._busy = False

        # -- the research questions computed up front ------------------------------------
        if analysis is not None:
            for k in analysis.kernels:
                self._register(analysis, k)
        else:
            ks = list(kernels) if kernels is not None else [
                Jaccard(k=1), Mallows(), RBF(), Borda(study.alternatives[0])]
            ks = [self._canonical(k) for k in ks]
            ga = GeneralizabilityAnalysis(study, ks, rep=self.rep, seed=self.seed,
                                          progress=self.progress)
            for k in ga.kernels:
                self._register(ga, k)
        ga0, i0 = next(iter(self._where.values()))
        first_kernel = ga0.kernels[i0]
        #: the configurations offered (those analysed)
        self.configurations = study.configurations.filter(
            pl.col("config_id").is_in(ga0.config_ids))

        # -- controls -------------------------------------------------------------------
        confs = self.configurations
        self.factor_widgets: dict[str, widgets.Dropdown] = {}
        first_row = confs.row(0, named=True)
        for f in study.design:
            levels = confs.get_column(f).unique(maintain_order=True).to_list()
            levels = sorted(levels, key=lambda v: (v is None, str(v)))
            self.factor_widgets[f] = widgets.Dropdown(
                options=[(str(v), v) for v in levels], value=first_row[f], description=f,
                style={"description_width": "initial"})
        self.family = widgets.Dropdown(
            options=[(f"{cls.question} ({name})", name) for name, cls in FAMILIES.items()],
            value=first_kernel.name, description="question",
            layout=widgets.Layout(width="520px"))
        borda_t = self._templates.get("borda")
        self.alternative = widgets.Dropdown(
            options=list(study.alternatives),
            value=(study.alternatives[borda_t.index] if borda_t is not None
                   else study.alternatives[0]),
            description="a*", style={"description_width": "initial"})
        jac_t = self._templates.get("jaccard")
        self.k = widgets.IntSlider(
            value=int(jac_t.k) if jac_t is not None else 1, min=1,
            max=max(study.na - 1, 1), description="top-k tiers", continuous_update=False,
            style={"description_width": "initial"})
        lo, hi, step = ALPHA_RANGE
        self.alpha = widgets.FloatSlider(value=float(alpha), min=lo, max=hi, step=step,
                                         description="alpha*", readout_format=".2f",
                                         continuous_update=False)
        lo, hi, step = DELTA_RANGE
        self.delta = widgets.FloatSlider(value=float(delta), min=lo, max=hi, step=step,
                                         description="delta*", readout_format=".2f",
                                         continuous_update=False)
        if first_kernel.name == "borda":
            self.alternative.value = study.alternatives[first_kernel.index]
        if first_kernel.name == "jaccard":
            self.k.value = int(first_kernel.k)

        # -- outputs --------------------------------------------------------------------
        self.status = widgets.HTML()
        self.progress_out = widgets.Output()
        self.summary = widgets.HTML()
        self.table = widgets.HTML()
        self.ranking_table = widgets.HTML()
        self.views = {name: ChartView(name) for name in ("ngen", "power_law", "deficit")}
        self._update_param_visibility()

        for w in self.factor_widgets.values():
            w.observe(self._on_factor, names="value")
        for w in (self.family, self.alternative, self.k):
            w.observe(self._on_question, names="value")
        for w in (self.alpha, self.delta):
            w.observe(self._on_threshold, names="value")

        controls = widgets.VBox([
            widgets.HTML("<b>Configuration</b>"),
            widgets.HBox(list(self.factor_widgets.values()))
            if self.factor_widgets else widgets.HTML("<i>(no design factors: one "
                                                     "configuration)</i>"),
            widgets.HTML("<b>Research question</b>"),
            widgets.HBox([self.family, self.alternative, self.k]),
            widgets.HBox([self.alpha, self.delta]),
            self.status, self.progress_out,
        ])
        charts = widgets.HBox([self.views["ngen"].widget, self.views["power_law"].widget])
        self.widget = widgets.VBox([
            controls, self.summary, self.table, charts,
            widgets.HTML("<b>Which experiments to run next</b> (configurations ranked by "
                         "deficit n* &minus; N for this question)"),
            self.views["deficit"].widget, self.ranking_table,
        ])
        self.refresh()

    # ---- kernels and the cache ----------------------------------------------------------
    def _canonical(self, kernel: Kernel) -> Kernel:
        """Borda given by index -> by name, so that labels match the dropdown's."""
        if not isinstance(kernel, Kernel):
            raise GenexpyInputError(
                f"kernels must be Kernel objects (Jaccard(), Mallows(), Borda('a'), RBF()), "
                f"got {kernel!r}.")
        if isinstance(kernel, Borda) and isinstance(kernel.alternative, (int, np.integer)):
            idx = int(kernel.alternative)
            if not 0 <= idx < self.study.na:
                raise GenexpyInputError(f"Borda: alternative index {idx} out of range for "
                                        f"na={self.study.na}.")
            nu = None if kernel.na is None else kernel.nu
            return Borda(self.study.alternatives[idx], nu=nu)
        return kernel

    def _register(self, ga: GeneralizabilityAnalysis, kernel: Kernel) -> None:
        idx = ga.kernel_index(kernel.label)
        self.analyses[kernel.label] = ga
        self._where[kernel.label] = (ga, idx)
        # a Borda kernel given by index is also found under its alternative's name
        self._where.setdefault(self._label(self._canonical(kernel)), (ga, idx))
        self._templates.setdefault(kernel.name, kernel)

    def _label(self, kernel: Kernel) -> str:
        return kernel.resolve(self.study.na, self.study.alternatives).label

    def selected_kernel(self) -> Kernel:
        """The kernel of the research question picked in the widgets (unresolved)."""
        fam = self.family.value
        t = self._templates.get(fam)
        if fam == "borda":
            nu = t.nu if t is not None else None
            return Borda(self.alternative.value, nu=nu)
        if fam == "jaccard":
            return Jaccard(k=int(self.k.value))
        return t if t is not None else FAMILIES[fam]()

    def _ensure(self, kernel: Kernel) -> tuple[GeneralizabilityAnalysis, int]:
        """The cached analysis of ``kernel`` and its index there; computed if new.

        A new research question resamples every configuration (the heavy part): the
        status line says so and a progress bar runs meanwhile.
        """
        label = self._label(kernel)
        if label not in self._where:
            confs = self._ga_kwargs.get("configurations")
            n = len(confs) if confs is not None else len(self.study)
            self.status.value = (
                f"<i>Computing the MMD<sub>n</sub> distributions of {html.escape(label)} for "
                f"{n} configuration(s), rep={self.rep} ...</i>")
            t0 = time.perf_counter()
            with self.progress_out:
                ga = GeneralizabilityAnalysis(self.study, [kernel], rep=self.rep,
                                              seed=self.seed, progress=self.progress,
                                              **self._ga_kwargs)
            self.progress_out.outputs = ()
            self._register(ga, ga.kernels[0])
            self.status.value = (f"Computed {html.escape(label)} in "
                                 f"{time.perf_counter() - t0:.1f} s (cached).")
        return self._where[label]

    # ---- state ------------------------------------------------------------------------
    @property
    def config_id(self) -> int | None:
        """The selected configuration's id (None when the levels match none)."""
        ids = self.configurations["config_id"]
        if not self.study.design:
            return int(ids[0])
        levels = {f: w.value for f, w in self.factor_widgets.items()}
        try:
            cid = self.study.config_id(levels)
        except GenexpyInputError:
            return None
        return cid if cid in ids else None

    def select(self, configuration: Any) -> None:
        """Select a configuration by id, ``{factor: level}`` or tuple of levels."""
        s = self.study.sample(configuration)
        if s.config_id not in self.configurations["config_id"]:
            raise GenexpyInputError(f"configuration {s.label!r} was not analysed.")
        self._busy = True
        try:
            for f, w in self.factor_widgets.items():
                w.value = s.levels[f]
        finally:
            self._busy = False
        self.refresh()

    @property
    def state(self) -> dict:
        """The selected parameters."""
        cid = self.config_id
        ga, q = self._where.get(self._label(self.selected_kernel()), (None, None))
        label = (ga.kernels[q].label if ga is not None
                 else self._label(self.selected_kernel()))
        return {
            "config_id": cid,
            **{f: w.value for f, w in self.factor_widgets.items()},
            "kernel_label": label,
            "alpha": float(self.alpha.value),
            "delta": float(self.delta.value),
            "rep": self.rep,
            "seed": self.seed,
        }

    # ---- events -------------------------------------------------------------------------
    def _on_factor(self, change: dict) -> None:
        if self._busy:
            return
        if self.config_id is None:
            # snap the other factors to the first configuration with the new level
            f = next(k for k, w in self.factor_widgets.items() if w is change["owner"])
            confs = self.configurations.filter(pl.col(f) == change["new"])
            if confs.height:
                row = confs.row(0, named=True)
                self._busy = True
                try:
                    for g, w in self.factor_widgets.items():
                        if g != f:
                            w.value = row[g]
                finally:
                    self._busy = False
        self.refresh()

    def _on_question(self, change: dict) -> None:
        self._update_param_visibility()
        if not self._busy:
            self.refresh()

    def _on_threshold(self, change: dict) -> None:
        if not self._busy:
            self.refresh()

    def _update_param_visibility(self) -> None:
        fam = self.family.value
        self.alternative.layout.display = None if fam == "borda" else "none"
        self.k.layout.display = None if fam == "jaccard" else "none"

    # ---- the refresh: reads cached distributions, builds charts -----------------------
    def refresh(self) -> None:
        """Re-read n* for the current widgets and redraw (distributions are cached).

        The numbers (summary, n* table, ranking table) are updated first, then the charts;
        ``timings`` records how long each part took (seconds).
        """
        t0 = time.perf_counter()
        with _fast_charts():
            self._refresh_numbers()
            t1 = time.perf_counter()
            self._refresh_charts()
        t2 = time.perf_counter()
        self.timings = {"numbers": t1 - t0, "charts": t2 - t1, "total": t2 - t0}
        self.last_update_s = t2 - t0

    def _numbers(self, ga: GeneralizabilityAnalysis, label: str, a: float,
                 d: float) -> tuple[pl.DataFrame, pl.DataFrame]:
        """(n* of every configuration, their ranking by deficit) for a question and
        thresholds (cached)."""
        def build():
            results = ga.nstar(a, d, PANEL_METHODS, kernels=[label])
            return results, plan(results, alpha=a, delta=d, kernel=label, method="resample")

        return self._chart_cache.get(("numbers", label, a, d), build)

    def _refresh_numbers(self) -> None:
        ga, q = self._ensure(self.selected_kernel())
        label = ga.kernels[q].label
        # slider values such as 0.9399999999999999 mean the 0.94 the slider shows
        a, d = round(float(self.alpha.value), 9), round(float(self.delta.value), 9)
        self._current = (ga, label, a, d)
        cid = self.config_id
        self.results, self.ranking = self._numbers(ga, label, a, d)
        if cid is None:
            self.result = self.results.clear()
            self.summary.value = ("<p><b>No results for this combination of levels</b> "
                                  "(it may have been emptied by the missing-results filter: "
                                  "see study.report).</p>")
            self.table.value = ""
        else:
            self.result = self.results.filter(pl.col("config_id") == cid)
            row = self.result.filter(pl.col("method") == "resample").row(0, named=True)
            self.summary.value = self._summary_html(row)
            self.table.value = _html_table(
                self.result, ["method", "nstar", "nstar_lo", "nstar_hi", "nstar_ceil", "N",
                              "generalizable", "deficit", "b1", "r2", "reason"])
        self.ranking_table.value = _html_table(
            self.ranking, ["priority", *self.study.design, "N", "nstar_ceil", "deficit",
                           "to_run", "generalizable", "reason"],
            highlight=cid, key="config_id")

    def _chart_jobs(self, ga: GeneralizabilityAnalysis, label: str, cid: int | None,
                    a: float, d: float) -> tuple[list[tuple[str, tuple, Any]], str | None]:
        """The charts for these inputs as ``[(name, cache key, build)]`` (``build()`` gives
        the chart and what the frontend gets of it), and why the configuration's own charts
        cannot be drawn (None when they can)."""
        from .charts.generalizability import deficit_heatmap, ngen_curves, power_law_fit

        results, ranking = self._numbers(ga, label, a, d)
        jobs: list[tuple[str, tuple, Any]] = []
        why = "no configuration selected" if cid is None else None
        if cid is not None:
            row = results.filter((pl.col("config_id") == cid)
                                 & (pl.col("method") == "resample")).row(0, named=True)
            sample = self.study.sample(cid)
            ns, _ = ga.mmd_samples(cid, label)
            if ns.size == 0:
                why = row["reason"] or "no sample sizes to resample"
            else:
                title = f"{sample.label} — {label}"
                eps = row["eps"]

                def ngen_chart():
                    kern = ga.kernels[ga.kernel_index(label)]
                    eps_grid = np.linspace(0.0, kern.mmd_max, NGEN_EPS_POINTS)
                    ng = ga.ngen_frame(cid, label, eps=eps_grid)
                    if ns.size > NGEN_MAX_CURVES:
                        keep = ns[np.unique(np.linspace(0, ns.size - 1, NGEN_MAX_CURVES)
                                            .round().astype(int))]
                        ng = ng.filter(pl.col("n").is_in(keep.tolist()))
                    return ngen_curves(ng, alpha=a, eps=eps,
                                       title=f"n-generalizability: {title}")

                def power_chart():
                    return power_law_fit(
                        ga.quantile_frame(cid, label, a), eps=eps, nstar=row["nstar"],
                        b0=row["b0"], b1=row["b1"], N=sample.N,
                        title=f"alpha*-quantile of MMD_n: {title}")

                jobs += [("ngen", ("ngen", label, cid, a, d), _with_payload(ngen_chart)),
                         ("power_law", ("power_law", label, cid, a, d),
                          _with_payload(power_chart))]
        jobs.append(("deficit", ("deficit", label, a, d),
                     _with_payload(lambda: deficit_heatmap(ranking))))
        return jobs, why

    def _refresh_charts(self) -> None:
        ga, label, a, d = self._current
        cid = self.config_id
        self.charts = {}
        jobs, why = self._chart_jobs(ga, label, cid, a, d)
        if why is not None:
            self.views["ngen"].note(why if cid is None
                                    else f"n-generalizability not available: {why}")
            self.views["power_law"].note(why if cid is None
                                         else f"power-law fit not available: {why}")
        for name, key, build in jobs:
            chart, bundle = self._chart_cache.get(key, build)
            self.charts[name] = chart
            self.views[name].show(chart, bundle)

    def _summary_html(self, row: dict) -> str:
        label = html.escape(row["kernel_label"])
        thr = (f"alpha* = {row['alpha']:.2f}, delta* = {row['delta']:.2f} "
               f"(eps* = {row['eps']:.3f})")
        N = row["N"]
        if row["nstar"] is None or not math.isfinite(row["nstar"]):
            return (f"<p><b>n* undefined</b> for {label} at {thr}: "
                    f"{html.escape(row['reason'] or '')}. N = {N}.</p>")
        fit = (f" Fit log n = b1 log q<sub>n</sub> + b0: b1 = {_fmt(row['b1'])}, "
               f"R² = {_fmt(row['r2'])}." if math.isfinite(row["b1"]) else "")
        why = f" ({html.escape(row['reason'])})" if row["reason"] else ""
        lo, hi = row.get("nstar_lo"), row.get("nstar_hi")
        if lo is not None and hi is not None and math.isfinite(lo) and math.isfinite(hi):
            why = f"; 90 % interval {_fmt(lo)} to {_fmt(hi)}{why}"
        if row["generalizable"] is None:
            verdict = (f"<span style='color:#ff7f0e'><b>not to be trusted</b></span>: "
                       f"N = {N}; the estimate is shown, not a verdict")
        elif row["generalizable"]:
            verdict = (f"<span style='color:#2ca02c'><b>generalizable</b></span>: "
                       f"N = {N} &ge; n*")
        else:
            verdict = (f"<span style='color:#d62728'><b>not generalizable</b></span>: "
                       f"N = {N} &lt; n*, run {row['deficit']} more experiment(s)")
        return (f"<p><b>n* = {_fmt(row['nstar'])}</b> (&lceil;n*&rceil; = "
                f"{row['nstar_ceil']}) for {label} at {thr}{why}.{fit}<br>{verdict}.</p>")

    # ---- export and display -------------------------------------------------------------
    def export(self, what: str = "nstar") -> pl.DataFrame:
        """The current state as a polars frame, to paste into a paper.

        Parameters
        ----------
        what : "nstar" (default) or "ranking"
            "nstar": the n* rows of the selected configuration (methods resample, approx,
            bound) for the selected question and thresholds; "ranking": all
            configurations ranked by deficit. Both carry the selected parameters
            (kernel_label, alpha, delta, rep, seed).
        """
        st = self.state
        extra = [pl.lit(st["rep"], dtype=pl.Int64).alias("rep"),
                 pl.lit(st["seed"], dtype=pl.Int64).alias("seed")]
        if what == "nstar":
            return self.result.with_columns(*extra)
        if what == "ranking":
            return self.ranking.with_columns(
                pl.lit(st["alpha"]).alias("alpha"), pl.lit(st["delta"]).alias("delta"),
                *extra)
        raise GenexpyInputError(f"what must be 'nstar' or 'ranking', got {what!r}.")

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)

    def __repr__(self) -> str:
        return f"GeneralizabilityExplorer({self.state})"


# ---------------------------------------------------------------------------------------
# seed variability
# ---------------------------------------------------------------------------------------
class SeedVariabilityExplorer:
    """Explore how representative each model of a pool trained over seeds is.

    Parameters
    ----------
    ref_gaps : array_like, shape (M, T)
        Logit gaps of the reference models (they define the reference function G_M).
    cand_gaps : array_like, shape (C, T)
        Logit gaps of the candidate models on the same T test points.
    labels : array_like of 0/1, shape (T,)
        Test labels (for accuracy and ECE).
    names : sequence of str, optional
        One name per candidate (default "candidate 0", ...).
    report : polars.DataFrame, optional
        ``variability.candidate_report(ref_gaps, cand_gaps, labels, ...)`` already
        computed (one row per candidate); computed here otherwise (the heavy part,
        with progress).
    B, eps, seed, clip
        As in :func:`genexpy_nb.variability.candidate_report` (bootstrap repetitions, DKW
        error probability, seed, clipping bound of the logit gaps).
    alphas : sequence of float, optional
        Trimming levels of the slider (default 0, 0.01, ..., 0.45).
    progress : bool, default True

    Attributes
    ----------
    widget : ipywidgets.VBox
    candidate, alpha, metric : the control widgets
    report : the candidate report (plus a ``name`` column)
    curves : dict candidate -> trimming curve (cached, bootstrap as for alpha-hat)
    charts : dict name -> Altair chart ("trimmed", "ecdf", "scatter")
    """

    def __init__(
        self,
        ref_gaps: Any,
        cand_gaps: Any,
        labels: Any,
        *,
        names: Sequence[str] | None = None,
        report: pl.DataFrame | None = None,
        B: int = config.ALPHA_HAT_B,
        eps: float = config.DKW_EPS,
        seed: int = 0,
        clip: float | None = config.LOGIT_CLIP,
        alphas: Sequence[float] | None = None,
        progress: bool = True,
    ) -> None:
        from . import variability as vb
        from ._validation import to_polars

        self._vb = vb
        self.B, self.eps, self.seed, self.clip = B, eps, seed, clip
        self.progress = bool(progress)
        if report is None:  # validates the gaps and labels too
            report = vb.candidate_report(ref_gaps, cand_gaps, labels, B=B, eps=eps, seed=seed,
                                         clip=clip, progress=self.progress)
        if clip is None:
            ref = np.asarray(ref_gaps, dtype=np.float64)
            cands = np.asarray(cand_gaps, dtype=np.float64)
        else:
            ref, cands = vb.clip_gaps(ref_gaps, clip), vb.clip_gaps(cand_gaps, clip)
        if cands.ndim == 1:
            cands = cands[None, :]
        if ref.ndim != 2 or ref.shape[1] != cands.shape[1]:
            raise GenexpyInputError(
                f"ref_gaps must be (M, T) and cand_gaps (C, T) on the same T test points; "
                f"got {ref.shape} and {cands.shape}.")
        report = to_polars(report, "report")
        C = cands.shape[0]
        if report.height != C or "candidate" not in report.columns:
            raise GenexpyInputError(
                f"report must have one row per candidate ({C}) with a 'candidate' column: "
                "pass variability.candidate_report(ref_gaps, cand_gaps, labels).")
        if names is None:
            names = [f"candidate {i}" for i in range(C)]
        names = [str(n) for n in names]
        if len(names) != C or len(set(names)) != C:
            raise GenexpyInputError(f"names must be {C} distinct names, one per candidate.")
        self.names = names
        self.report = report.with_columns(
            pl.Series("name", [names[int(i)] for i in report["candidate"]]))
        self.ref, self.cands = ref, cands
        self.grid = np.asarray(TRIM_GRID if alphas is None else alphas, dtype=np.float64)
        if self.grid.ndim != 1 or self.grid.size < 1 or np.any(self.grid < 0) or np.any(
                self.grid >= 1):
            raise GenexpyInputError("alphas must be trimming levels in [0, 1).")
        self.grid = np.unique(self.grid)
        self.curves: dict[int, pl.DataFrame] = {}
        self.charts: dict[str, alt.TopLevelMixin] = {}
        self.last_update_s = math.nan
        self.timings: dict[str, float] = {}
        self._chart_cache = _ChartCache(CHART_CACHE_SIZE)
        # static eCDFs, thinned once for drawing
        self._ecdf_ref = thin_ecdf_frame(vb.ecdf_frame(self.ref.ravel(),
                                                       ["reference G_M"]))
        self._ecdf_ens = thin_ecdf_frame(vb.ecdf_frame(
            vb.ensemble_gaps(self.cands), [f"ensemble of {C} candidates"]))

        self.candidate = widgets.Dropdown(options=[(n, i) for i, n in enumerate(names)],
                                          value=0, description="candidate")
        self.alpha = widgets.SelectionSlider(
            options=[(f"{a:.2f}", float(a)) for a in self.grid],
            value=float(self.grid[min(5, self.grid.size - 1)]),
            description="trimming α", continuous_update=False)
        metrics = [m for m in VAR_METRICS if m in self.report.columns]
        self.metric = widgets.Dropdown(options=metrics, value=metrics[0],
                                       description="metric")
        self.summary = widgets.HTML()
        self.status = widgets.HTML()
        self.views = {n: ChartView(n) for n in ("trimmed", "ecdf", "scatter")}
        for w in (self.candidate, self.alpha, self.metric):
            w.observe(lambda _c: self.refresh(), names="value")
        self.widget = widgets.VBox([
            widgets.HBox([self.candidate, self.alpha, self.metric]),
            self.status, self.summary,
            widgets.HBox([self.views["trimmed"].widget, self.views["ecdf"].widget]),
            self.views["scatter"].widget,
        ])
        self.refresh()

    def curve(self, candidate: int) -> pl.DataFrame:
        """Bootstrap trimmed KS distances of one candidate over the slider's levels (cached)."""
        if candidate not in self.curves:
            self.status.value = "<i>computing the trimming curve ...</i>"
            self.curves[candidate] = self._vb.trimming_curve(
                self.ref, self.cands[candidate], B=self.B, grid=self.grid, eps=self.eps,
                seed=self.seed, clip=None, progress=False,
            ).with_columns(pl.lit(candidate).alias("candidate"))
            self.status.value = ""
        return self.curves[candidate]

    @property
    def state(self) -> dict:
        return {"candidate": int(self.candidate.value),
                "name": self.names[int(self.candidate.value)],
                "alpha": float(self.alpha.value), "metric": self.metric.value,
                "B": self.B, "eps": self.eps, "seed": self.seed}

    def refresh(self) -> None:
        """Redraw for the current widgets (the report is computed once; curves cached).

        The numbers first, then the charts (each rebuilt only when its inputs changed);
        ``timings`` records the seconds each part took.
        """
        t0 = time.perf_counter()
        with _fast_charts():
            self._refresh_numbers()
            t1 = time.perf_counter()
            self._refresh_charts()
        t2 = time.perf_counter()
        self.timings = {"numbers": t1 - t0, "charts": t2 - t1, "total": t2 - t0}
        self.last_update_s = t2 - t0

    def _refresh_numbers(self) -> None:
        i = int(self.candidate.value)
        a = float(self.alpha.value)
        name = self.names[i]
        at = self.curve(i).filter((pl.col("alpha") - a).abs() < 1e-12).row(0, named=True)
        rep = self.report.filter(pl.col("candidate") == i).row(0, named=True)
        ok = at["d_mean"] <= at["tau"]
        verdict = ("<span style='color:#2ca02c'><b>accepted</b></span>" if ok else
                   "<span style='color:#d62728'><b>rejected</b></span>")
        self.summary.value = (
            f"<p><b>{html.escape(name)}</b>: alpha-hat = {_fmt(rep['alpha_hat'])} "
            f"(± {_fmt(rep.get('alpha_hat_sd'))}; exact {_fmt(rep.get('alpha_hat_exact'))}) "
            f"over B = {self.B} bootstraps. At trimming level α = {a:.2f}: "
            f"d<sub>α</sub> = {_fmt(at['d_mean'], 4)} (90% of bootstraps in "
            f"[{_fmt(at['d_lo'], 4)}, {_fmt(at['d_hi'], 4)}]) vs the DKW threshold "
            f"τ = {_fmt(at['tau'], 4)}: {verdict}.<br>"
            + ", ".join(f"{m} = {_fmt(rep[m], 4)}" for m in VAR_METRICS if m in rep)
            + "</p>")

    def _refresh_charts(self) -> None:
        from .charts.variability import alpha_hat_scatter, ecdf_chart, trimmed_distance_chart

        i = int(self.candidate.value)
        a = float(self.alpha.value)
        metric = self.metric.value
        name = self.names[i]
        builds = {
            "trimmed": ((i, a), lambda: trimmed_distance_chart(
                self.curve(i), alpha=a, title=f"trimmed KS distance: {name}")),
            "ecdf": ((i,), lambda: ecdf_chart(
                self._vb.ecdf_frame(self.cands[i], [name]), self._ecdf_ref, self._ecdf_ens,
                dashed=["reference G_M"], title=f"eCDF of the logit gaps: {name}")),
            "scatter": ((i, metric), lambda: alpha_hat_scatter(
                self.report, metric, highlight=i, name="name")),
        }
        self.charts = {}
        for k, (key, build) in builds.items():
            chart, bundle = self._chart_cache.get((k, *key), _with_payload(build))
            self.charts[k] = chart
            self.views[k].show(chart, bundle)

    def export(self) -> pl.DataFrame:
        """The selected candidate and trimming level with its results, as one row."""
        st = self.state
        cur = self.curve(st["candidate"])
        at = cur.filter((pl.col("alpha") - st["alpha"]).abs() < 1e-12).select(
            pl.col("alpha").alias("trim_alpha"), pl.col("d_mean").alias("d_alpha"),
            pl.col("d_lo").alias("d_alpha_lo"), pl.col("d_hi").alias("d_alpha_hi"),
            (pl.col("d_mean") <= pl.col("tau")).alias("accepted"))
        row = self.report.filter(pl.col("candidate") == st["candidate"])
        return row.hstack(at).with_columns(
            pl.lit(st["eps"], dtype=pl.Float64).alias("eps"),
            pl.lit(st["seed"], dtype=pl.Int64).alias("seed"))

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)

    def __repr__(self) -> str:
        return f"SeedVariabilityExplorer({self.state})"


def thin_ecdf_frame(frame: pl.DataFrame) -> pl.DataFrame:
    """Thin an eCDF frame for drawing (see :func:`genexpy_nb.charts.variability.thin_ecdf`)."""
    from .charts.variability import thin_ecdf

    return thin_ecdf(frame)
