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

The two explorers live in :mod:`genexpy_nb.panels.generalizability` and
:mod:`genexpy_nb.panels.seeds`, the chart transport (:class:`ChartView`, the backends) in
:mod:`genexpy_nb.panels.views`; all are importable from here.

Both expose their widget as ``panel.widget`` (and display themselves in Jupyter), keep the
current charts in ``panel.charts`` (plain Altair objects: ``chart.to_dict()``) and export
their current state as a polars frame with ``panel.export()``, ready to paste into a paper.

Charts are shown in :class:`ipywidgets.Output` widgets by setting their ``outputs`` to the
chart compiled to a Vega spec (``application/vnd.vega.v5+json``; the environment variable
``GENEXPY_NB_CHARTS`` picks another backend, see :func:`chart_backend`), which JupyterLab,
Notebook 7, VS Code and Binder draw natively, without network. This needs no browser-side
extension beyond ipywidgets, and tests can read what the frontend would draw.

Responsiveness: moving a slider re-reads the cached MMD_n distributions
(:meth:`GeneralizabilityAnalysis.nstar`), it never resamples, and redraws only the charts
whose inputs changed (charts are cached by their inputs; a view already showing a chart is
not sent it again); see ``benchmarks/bench_panels.py`` for the measured latency. A new
kernel parameter (another Borda alternative, another Jaccard k) is a new research question:
its distributions are computed once, with progress shown, and cached by kernel label.
"""

from __future__ import annotations

from .generalizability import GeneralizabilityExplorer
from .seeds import SeedVariabilityExplorer, thin_ecdf_frame
from .views import (
    ChartView,
    chart_backend,
)

__all__ = ["GeneralizabilityExplorer", "SeedVariabilityExplorer", "ChartView",
           "chart_backend", "thin_ecdf_frame"]
