"""The seed-variability explorer (:class:`SeedVariabilityExplorer`).

The panel of :mod:`genexpy_nb.panels` that compares candidate models trained over random
seeds.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from typing import Any

import altair as alt
import ipywidgets as widgets
import numpy as np
import polars as pl

from .. import config
from .._validation import GenexpyInputError
from ..answers.numbers import setting
from .views import (
    CHART_CACHE_SIZE,
    TRIM_GRID,
    VAR_METRICS,
    ChartCache,
    ChartView,
    fmt_cell,
    timed_refresh,
    with_payload,
)

__all__ = ["SeedVariabilityExplorer", "thin_ecdf_frame"]


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
        from .. import variability as vb
        from .._validation import to_polars

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
        self._chart_cache = ChartCache(CHART_CACHE_SIZE)
        # static eCDFs, thinned once for drawing
        self._ecdf_ref = thin_ecdf_frame(vb.ecdf_frame(self.ref.ravel(),
                                                       ["reference G_M"]))
        self._ecdf_ens = thin_ecdf_frame(vb.ecdf_frame(
            vb.ensemble_gaps(self.cands), [f"ensemble of {C} candidates"]))

        self.candidate = widgets.Dropdown(options=[(n, i) for i, n in enumerate(names)],
                                          value=0, description="candidate")
        self.alpha = widgets.SelectionSlider(
            options=[(setting(a), float(a)) for a in self.grid],
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
        """The selected parameters.

        Candidate (index and name), trimming level alpha, metric, and the report's B, eps
        and seed.
        """
        return {"candidate": int(self.candidate.value),
                "name": self.names[int(self.candidate.value)],
                "alpha": float(self.alpha.value), "metric": self.metric.value,
                "B": self.B, "eps": self.eps, "seed": self.seed}

    def refresh(self) -> None:
        """Redraw for the current widgets (the report is computed once; curves cached).

        The numbers first, then the charts (each rebuilt only when its inputs changed);
        ``timings`` records the seconds each part took.
        """
        timed_refresh(self)

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
            f"<p><b>{html.escape(name)}</b>: alpha-hat = {fmt_cell(rep['alpha_hat'])} "
            f"(± {fmt_cell(rep.get('alpha_hat_sd'))}; exact "
            f"{fmt_cell(rep.get('alpha_hat_exact'))}) "
            f"over B = {self.B} bootstraps. At trimming level α = {setting(a)}: "
            f"d<sub>α</sub> = {fmt_cell(at['d_mean'], 4)} (90% of bootstraps in "
            f"[{fmt_cell(at['d_lo'], 4)}, {fmt_cell(at['d_hi'], 4)}]) vs the DKW threshold "
            f"τ = {fmt_cell(at['tau'], 4)}: {verdict}.<br>"
            + ", ".join(f"{m} = {fmt_cell(rep[m], 4)}" for m in VAR_METRICS if m in rep)
            + "</p>")

    def _refresh_charts(self) -> None:
        from ..charts.variability import alpha_hat_scatter, ecdf_chart, trimmed_distance_chart

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
            chart, bundle = self._chart_cache.get((k, *key), with_payload(build))
            self.charts[k] = chart
            self.views[k].show(chart, bundle)

    def export(self) -> pl.DataFrame:
        """Return the selected candidate and trimming level with its results, as one row.

        Returns
        -------
        polars.DataFrame
            The candidate's row of the report, with the trimmed distance at the selected
            alpha (``trim_alpha``, ``d_alpha`` and its band ``d_alpha_lo``/``d_alpha_hi``),
            whether it is accepted (``d_alpha`` at most tau), ``eps`` and ``seed``.
        """
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
        """Show the selected parameters (:attr:`state`)."""
        return f"SeedVariabilityExplorer({self.state})"


def thin_ecdf_frame(frame: pl.DataFrame) -> pl.DataFrame:
    """Thin an eCDF frame for drawing (see :func:`genexpy_nb.charts.thin_ecdf`).

    Parameters
    ----------
    frame : polars.DataFrame
        An eCDF frame, as :func:`genexpy_nb.charts.thin_ecdf` takes it.

    Returns
    -------
    polars.DataFrame
        The rows kept for drawing.
    """
    from ..charts.variability import thin_ecdf

    return thin_ecdf(frame)
