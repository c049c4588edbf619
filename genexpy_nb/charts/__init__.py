"""Altair chart builders: pure functions from tidy polars frames to charts.

Importing this package makes Altair charts draw without network in notebooks: it enables
the ``"genexpy_nb"`` renderer (Vega specs that JupyterLab, Notebook 7 and VS Code draw
themselves) when Altair's default, CDN-loading renderer is active; see
``genexpy_nb.charts._offline``. ``alt.renderers.enable("default")`` undoes it. Altair
takes seconds to import, so when it is not imported yet, the renderer is enabled the moment
it is (a one-time import hook): writing a CD diagram (``cd_figure``, the command line)
never imports Altair at all.

The builders live in submodules that are imported on first use (``charts.cd_diagram``
imports the significance tests, the generalizability charts do not; the CD diagram's
SVG/PNG/HTML writer, ``cd_figure``, imports neither Altair nor vl-convert until it
draws), so that ``from genexpy_nb.charts import save_chart`` stays fast.
"""

from __future__ import annotations

import sys

from .._lazy import lazy_exports, when_imported


def _enable_offline(_altair: object) -> None:
    """Enable the offline renderer right after ``altair`` is imported.

    The renderer is then on whenever a chart can exist, without importing Altair (2-3 s)
    for code that never draws one.
    """
    offline = sys.modules.get(f"{__name__}._offline")
    if offline is None or hasattr(offline, "enable_offline_charts"):
        from ._offline import enable_offline_charts as enable

        enable()
    # else _offline itself is importing Altair: it enables the renderer at its end


when_imported("altair", _enable_offline)

#: one file name per figure, the same wherever the package writes it (the demo,
#: ``genexpy-nb nstar --figures``, the template notebook); each writer says what it shows
FIGURE_NAMES: tuple[str, ...] = ("nstar_by_alpha", "nstar_by_delta", "deficits", "nstar_vs_N",
                                 "ngen_curves", "power_law")

#: names of the offline renderer, from :mod:`._offline` (imported on first use)
_OFFLINE = ("RENDERER_NAME", "enable_offline_charts", "offline_renderer", "to_vega")

#: public name -> submodule that defines it
_WHERE = {
    # generalizability (GENEXPY paper, Figures 1-4)
    "ngen_curves": "generalizability",
    "power_law_fit": "generalizability",
    "nstar_boxplots": "generalizability",
    "nstar_vs_N": "nstar_growth",
    "nstar_intervals": "nstar_growth",
    "deficit_heatmap": "planning",
    "save_chart": "export",
    "generalizability_example": "paper_figures",
    "nstar_by_parameter": "paper_figures",
    # classical significance tests (critical-difference diagram)
    "cd_diagram": "significance",
    "save_cd_diagram": "cd_figure",
    "cd_diagram_svg": "cd_figure",
    "cd_diagram_html": "cd_figure",
    "save_comparison": "cd_figure",
    # synthetic studies (paper Section 5.3 and Appendix A)
    "nstar_ratio_boxplots": "synthetic",
    "ngen_by_significance": "synthetic",
    # training variability over random seeds (robust KS paper)
    "ecdf_chart": "variability",
    "alpha_hat_scatter": "variability",
    "ensemble_size_chart": "variability",
    "trimmed_distance_chart": "variability",
    "thin_ecdf": "variability",
    # beyond p-values: Bayesian posteriors, aggregates, profiles, rank probabilities
    "bayesian_posterior": "beyond_pvalues",
    "aggregate_intervals": "beyond_pvalues",
    "performance_profiles": "beyond_pvalues",
    "rank_probability_heatmap": "beyond_pvalues",
    # leaderboards: rank sets and tiers
    "rank_sets_chart": "leaderboards",
}

__all__ = [
    # drawing offline in notebooks
    "enable_offline_charts",
    "offline_renderer",
    "to_vega",
    "RENDERER_NAME",
    *_WHERE,
]


__getattr__, __dir__ = lazy_exports(
    __name__,
    {**dict.fromkeys(_OFFLINE, "_offline"), **_WHERE,
     **dict.fromkeys(set(_WHERE.values()), "<module>")},  # a submodule, e.g. charts.variability
    globals())
