"""The generalizability explorer (:class:`GeneralizabilityExplorer`).

The panel of :mod:`genexpy_nb.panels` that asks n* of your own study.
"""

from __future__ import annotations

import html
import math
import time
from collections.abc import Sequence
from typing import Any

import altair as alt
import ipywidgets as widgets
import numpy as np
import polars as pl

from .. import config
from .._validation import GenexpyInputError, check_positive_int
from .._words import plural
from ..answers.numbers import number, seconds, setting
from ..generalizability import GeneralizabilityAnalysis, best_alternative
from ..generalizability.kernels import Borda, Jaccard, Kernel, paper_questions
from ..generalizability.planner import plan
from ..study.core import Study
from .views import (
    ALPHA_RANGE,
    CHART_CACHE_SIZE,
    DELTA_RANGE,
    FAMILIES,
    NGEN_EPS_POINTS,
    NGEN_MAX_CURVES,
    PANEL_METHODS,
    ChartCache,
    ChartView,
    conclusions_html,
    fmt_cell,
    html_table,
    timed_refresh,
    with_payload,
)

__all__ = ["GeneralizabilityExplorer", "HEADLINE_NOTE"]

def baseline_html(row: dict) -> str:
    """Write the headline's sentence on the no-signal baseline of ``row``.

    The baseline n* with its band beside n*, and, when ``beyond_chance`` is false, that the
    answer is no more consistent than chance.

    Parameters
    ----------
    row : dict
        A row of the frame of :func:`~genexpy_nb.analyze` (column name -> value).

    Returns
    -------
    str
        An HTML fragment starting with ``<br>``; "" when the row has no baseline (an
        analysis with ``null=False``, or n* undefined).
    """
    base, lo, hi = (row.get(c) for c in ("nstar_null", "nstar_null_lo", "nstar_null_hi"))
    if base is None or not math.isfinite(base):
        return ""
    band = (f" (band {fmt_cell(lo)} to {fmt_cell(hi)})" if lo is not None and hi is not None
            and math.isfinite(lo) and math.isfinite(hi) else "")
    text = (f"<br>No-signal baseline: n* = {fmt_cell(base)}{band}, the n* this study would "
            "have if no alternative were better than another")
    chance = row.get("beyond_chance")
    if chance is False:
        text += (": <span style='color:#ff7f0e'><b>no more consistent than chance</b></span>"
                 " — n* is not below the baseline's band")
    elif chance is True:
        text += ": n* is below its band, more consistent than chance"
    return text + "."


#: what the panel's headline is, under it: the verdict is the resampled estimate's; the
#: table's other rows are other estimates, the bound a worst case
HEADLINE_NOTE = (
    "The headline uses the resampled estimate (Algorithm 1 of the paper), the verdict. In "
    "the table below, <i>approx</i> is the closed-form estimate and <i>bound</i> the "
    "distribution-free bound: a worst case for any data, never the verdict, so its "
    "'generalizable' can read no under a generalizable headline.")


def _check_inputs(study: Study, analysis: GeneralizabilityAnalysis | None, alpha: float,
                  delta: float) -> None:
    """Check the explorer's study, analysis and initial thresholds; raise in clear words."""
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
        Borda of the best alternative on average, :func:`genexpy_nb.best_alternative`: the
        a* of ``Borda()`` everywhere in the package, derived from the data). Any other
        question picked in the panel is computed when first asked for, then cached.
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
    conclusions : polars.DataFrame
        The selected configuration's conclusions (:func:`genexpy_nb.conclusions`: the best,
        the top group, every pair, the order) at the alpha* and delta* the explorer was
        opened with, shown at the top of the panel; computed once per configuration, then
        cached (a few hundred ms each: the sliders, which set the paper's n*, stay fast).
    charts : dict of name -> Altair chart ("ngen", "power_law", "deficit"); a chart is
        missing when it cannot be drawn (n* undefined), with the reason shown instead.
    last_update_s : float, seconds the last interaction took to refresh the panel;
        ``timings`` splits it into "numbers" and "charts".

    Examples
    --------
    >>> panel = GeneralizabilityExplorer(study)  # doctest: +SKIP
    >>> panel                                   # doctest: +SKIP
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
        _check_inputs(study, analysis, alpha, delta)
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
        self.conclusions = pl.DataFrame()
        self._conclusions: dict[int, pl.DataFrame] = {}
        self._conclusion_thresholds = (round(float(alpha), 9), round(float(delta), 9))
        self.charts: dict[str, alt.TopLevelMixin] = {}
        self.last_update_s = math.nan
        self.timings: dict[str, float] = {}
        self._chart_cache = ChartCache(CHART_CACHE_SIZE)
        self._busy = False

        self._analyse_up_front(kernels, analysis)
        ga0, i0 = next(iter(self._where.values()))
        first_kernel = ga0.kernels[i0]
        #: the configurations offered (those analysed)
        self.configurations = study.configurations.filter(
            pl.col("config_id").is_in(ga0.config_ids))
        self._build_controls(first_kernel, alpha, delta)
        self._build_outputs()
        self.refresh()

    def _analyse_up_front(self, kernels: Sequence[Kernel] | None,
                          analysis: GeneralizabilityAnalysis | None) -> None:
        """Register the research questions computed up front.

        Those of ``analysis``, else ``kernels`` or the default four, computed now.
        """
        if analysis is not None:
            for k in analysis.kernels:
                self._register(analysis, k)
        else:
            study = self.study
            if kernels is None:  # the paper's four, Borda (a* from the data) last
                four = paper_questions(best_alternative(study))
                kernels = [*four[1:], four[0]]
            ks = [self._canonical(k) for k in kernels]
            ga = GeneralizabilityAnalysis(study, ks, rep=self.rep, seed=self.seed,
                                          progress=self.progress)
            for k in ga.kernels:
                self._register(ga, k)

    def _build_controls(self, first_kernel: Kernel, alpha: float, delta: float) -> None:
        """Create the configuration, question and threshold widgets.

        They start at the first configuration, the first question and (``alpha``, ``delta``).
        """
        study = self.study
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
        #: a* of Borda when none is chosen: the best on average (the rule of Borda())
        self.best = best_alternative(study)
        self.alternative = widgets.Dropdown(
            options=[(f"{a} (best on average)" if str(a) == self.best else str(a), a)
                     for a in study.alternatives],
            value=(study.alternatives[borda_t.index] if borda_t is not None
                   else self.best),
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

    def _build_outputs(self) -> None:
        """Create the output widgets, connect the controls and lay out the panel."""
        self.status = widgets.HTML()
        self.progress_out = widgets.Output()
        self.conclusions_box = widgets.HTML()
        self.summary = widgets.HTML()
        self.table = widgets.HTML()
        self.ranking_table = widgets.HTML()
        self.views = {name: ChartView(name) for name in ("ngen", "power_law", "deficit")}
        self._update_param_visibility()
        from ..answers.conclusions import condition_word

        unit = condition_word(self.study)

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
            controls, self.conclusions_box,
            widgets.HTML(f"<b>How consistent are the per-{html.escape(unit)} rankings?</b> "
                         "(the paper's n*, Sec. 4, for the research question above)"),
            self.summary, self.table, charts,
            widgets.HTML("<b>Which experiments to run next</b> (configurations ranked by "
                         "deficit n* &minus; N for this question)"),
            self.views["deficit"].widget, self.ranking_table,
        ])

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
        """Return the kernel of the research question picked in the widgets (unresolved).

        Returns
        -------
        Kernel
            Borda of the chosen a*, Jaccard of the chosen k, or the question's kernel as
            first given (its default when none was).
        """
        fam = self.family.value
        t = self._templates.get(fam)
        if fam == "borda":
            nu = t.nu if t is not None else None
            return Borda(self.alternative.value, nu=nu)
        if fam == "jaccard":
            return Jaccard(k=int(self.k.value))
        return t if t is not None else FAMILIES[fam]()

    def _ensure(self, kernel: Kernel) -> tuple[GeneralizabilityAnalysis, int]:
        """Return the cached analysis of ``kernel`` and its index there; computed if new.

        A new research question resamples every configuration (the heavy part): the
        status line says so and a progress bar runs meanwhile.
        """
        label = self._label(kernel)
        if label not in self._where:
            confs = self._ga_kwargs.get("configurations")
            n = len(confs) if confs is not None else len(self.study)
            self.status.value = (
                f"<i>Computing the MMD<sub>n</sub> distributions of {html.escape(label)} for "
                f"{plural(n, 'configuration')} ({self.rep} resampled pairs per sample size)"
                " ...</i>")
            t0 = time.perf_counter()
            with self.progress_out:
                ga = GeneralizabilityAnalysis(self.study, [kernel], rep=self.rep,
                                              seed=self.seed, progress=self.progress,
                                              **self._ga_kwargs)
            self.progress_out.outputs = ()
            self._register(ga, ga.kernels[0])
            self.status.value = (f"Computed {html.escape(label)} in "
                                 f"{seconds(time.perf_counter() - t0)} (cached).")
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
        """Select a configuration and redraw the panel.

        Parameters
        ----------
        configuration : int, dict or tuple
            A configuration id, ``{factor: level}`` or tuple of levels; it must be one of
            the configurations analysed.
        """
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
        timed_refresh(self)

    def _numbers(self, ga: GeneralizabilityAnalysis, label: str, a: float,
                 d: float) -> tuple[pl.DataFrame, pl.DataFrame]:
        """Return n* of every configuration and their ranking by deficit (cached).

        For the question ``label`` of ``ga`` at the thresholds ``a`` (alpha*) and ``d``
        (delta*).
        """
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
        self._refresh_conclusions(cid)
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
            null = [c for c in ("nstar_null", "nstar_null_lo", "nstar_null_hi",
                                "beyond_chance") if c in self.result.columns]
            self.table.value = html_table(
                self.result, ["method", "nstar", "nstar_lo", "nstar_hi", "nstar_ceil", "N",
                              "generalizable", "deficit", *null, "b1", "r2", "reason"])
        self.ranking_table.value = html_table(
            self.ranking, ["priority", *self.study.design, "N", "nstar_ceil", "deficit",
                           "to_run", "generalizable", "reason"],
            highlight=cid, key="config_id")

    def _refresh_conclusions(self, cid: int | None) -> None:
        """Show the selected configuration's conclusions (computed once, then cached)."""
        if cid is None:
            self.conclusions = pl.DataFrame()
            self.conclusions_box.value = ""
            return
        a, d = self._conclusion_thresholds
        if cid not in self._conclusions:
            from ..generalizability import conclusions

            self.status.value = "<i>Computing this configuration's conclusions ...</i>"
            t0 = time.perf_counter()
            self._conclusions[cid] = conclusions(self.study, alpha=a, delta=d,
                                                 seed=self.seed, config_id=cid)
            self.status.value = (f"Computed this configuration's conclusions in "
                                 f"{seconds(time.perf_counter() - t0)} (cached).")
        self.conclusions = self._conclusions[cid]
        from ..answers.conclusions import condition_word

        self.conclusions_box.value = conclusions_html(
            self.conclusions, unit=condition_word(self.study), alpha=a)

    def _chart_jobs(self, ga: GeneralizabilityAnalysis, label: str, cid: int | None,
                    a: float, d: float) -> tuple[list[tuple[str, tuple, Any]], str | None]:
        """List the charts for these inputs, and why some cannot be drawn.

        The charts come as ``[(name, cache key, build)]`` (``build()`` gives the chart and
        what the frontend gets of it); the reason is why the configuration's own charts
        cannot be drawn (None when they can).
        """
        from ..charts.generalizability import deficit_heatmap, ngen_curves, power_law_fit

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
                    return ngen_curves(ng, alpha=a, eps=eps, delta=d,
                                       title=f"n-generalizability: {title}")

                def power_chart():
                    return power_law_fit(
                        ga.quantile_frame(cid, label, a), eps=eps, delta=d,
                        nstar=row["nstar"],
                        b0=row["b0"], b1=row["b1"], N=sample.N,
                        title=f"alpha*-quantile of MMD_n: {title}",
                        **{c: row.get(c) for c in ("nstar_null", "nstar_null_lo",
                                                   "nstar_null_hi")})

                jobs += [("ngen", ("ngen", label, cid, a, d), with_payload(ngen_chart)),
                         ("power_law", ("power_law", label, cid, a, d),
                          with_payload(power_chart))]
        jobs.append(("deficit", ("deficit", label, a, d),
                     with_payload(lambda: deficit_heatmap(ranking))))
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
        """Write the headline: the resampled estimate's n* and verdict (:data:`HEADLINE_NOTE`)."""
        label = html.escape(row["kernel_label"])
        thr = (f"alpha* = {setting(row['alpha'])}, delta* = {setting(row['delta'])} "
               f"(eps* = {number(row['eps'])})")
        N = row["N"]
        if row["nstar"] is None or not math.isfinite(row["nstar"]):
            return (f"<p><b>n* undefined</b> for {label} at {thr}: "
                    f"{html.escape(row['reason'] or '')}. N = {N}.</p>")
        fit = (f" Fit log n = b1 log q<sub>n</sub> + b0: b1 = {fmt_cell(row['b1'])}, "
               f"R² = {fmt_cell(row['r2'])}." if math.isfinite(row["b1"]) else "")
        why = f" ({html.escape(row['reason'])})" if row["reason"] else ""
        lo, hi = row.get("nstar_lo"), row.get("nstar_hi")
        if lo is not None and hi is not None and math.isfinite(lo) and math.isfinite(hi):
            why = f"; 90 % interval {fmt_cell(lo)} to {fmt_cell(hi)}{why}"
        if row["generalizable"] is None:
            verdict = (f"<span style='color:#ff7f0e'><b>not to be trusted</b></span>: "
                       f"N = {N}; the estimate is shown, not a verdict")
        elif row["generalizable"]:
            verdict = (f"<span style='color:#2ca02c'><b>generalizable</b></span>: "
                       f"N = {N} &ge; n*")
        else:
            verdict = (f"<span style='color:#d62728'><b>not generalizable</b></span>: "
                       f"N = {N} &lt; n*, run {row['deficit']} more experiment(s)")
        return (f"<p><b>n* = {fmt_cell(row['nstar'])}</b> (&lceil;n*&rceil; = "
                f"{row['nstar_ceil']}) for {label} at {thr}{why}.{fit}<br>{verdict}."
                f"{baseline_html(row)}<br><small>{HEADLINE_NOTE}</small></p>")

    # ---- export and display -------------------------------------------------------------
    def export(self, what: str = "nstar") -> pl.DataFrame:
        """Return the current state as a polars frame, to paste into a paper.

        Parameters
        ----------
        what : {"nstar", "ranking", "conclusions"}, default "nstar"
            "nstar": the n* rows of the selected configuration (methods resample, approx,
            bound) for the selected question and thresholds; "ranking": all
            configurations ranked by deficit; "conclusions": the selected configuration's
            conclusions (:func:`genexpy_nb.conclusions`) at the thresholds the explorer was
            opened with.

        Returns
        -------
        polars.DataFrame
            The rows asked for, carrying the selected parameters (kernel_label, alpha,
            delta, rep, seed).
        """
        st = self.state
        extra = [pl.lit(st["rep"], dtype=pl.Int64).alias("rep"),
                 pl.lit(st["seed"], dtype=pl.Int64).alias("seed")]
        if what == "nstar":
            return self.result.with_columns(*extra)
        if what in ("ranking", "conclusions"):
            a, d = ((st["alpha"], st["delta"]) if what == "ranking"
                    else self._conclusion_thresholds)
            return (self.ranking if what == "ranking" else self.conclusions).with_columns(
                pl.lit(a).alias("alpha"), pl.lit(d).alias("delta"), *extra)
        raise GenexpyInputError(f"what must be 'nstar', 'ranking' or 'conclusions', got "
                                f"{what!r}.")

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)

    def __repr__(self) -> str:
        """Show the selected parameters (:attr:`state`)."""
        return f"GeneralizabilityExplorer({self.state})"


