"""Altair chart builders: pure functions from tidy polars frames to charts.

Importing this package makes Altair charts draw without network in notebooks: it enables
the ``"genexpy_nb"`` renderer (Vega specs that JupyterLab, Notebook 7 and VS Code draw
themselves) when Altair's default, CDN-loading renderer is active; see
:mod:`genexpy_nb.charts._offline`. ``alt.renderers.enable("default")`` undoes it.
"""

from ._offline import RENDERER_NAME, enable_offline_charts, offline_renderer, to_vega
from .generalizability import (
    deficit_heatmap,
    ngen_curves,
    nstar_boxplots,
    nstar_intervals,
    nstar_vs_N,
    power_law_fit,
    save_chart,
)
from .paper_figures import generalizability_example, nstar_by_parameter
from .significance import cd_diagram
from .synthetic import ngen_by_significance, nstar_ratio_boxplots
from .variability import (
    alpha_hat_scatter,
    ecdf_chart,
    ensemble_size_chart,
    thin_ecdf,
    trimmed_distance_chart,
)

enable_offline_charts()

__all__ = [
    # drawing offline in notebooks
    "enable_offline_charts",
    "offline_renderer",
    "to_vega",
    "RENDERER_NAME",
    # generalizability (GENEXPY paper, Figures 1-4)
    "ngen_curves",
    "power_law_fit",
    "nstar_boxplots",
    "nstar_vs_N",
    "nstar_intervals",
    "deficit_heatmap",
    "save_chart",
    "generalizability_example",
    "nstar_by_parameter",
    # classical significance tests (critical-difference diagram)
    "cd_diagram",
    # synthetic studies (paper Section 5.3 and Appendix A)
    "nstar_ratio_boxplots",
    "ngen_by_significance",
    # training variability over random seeds (robust KS paper)
    "ecdf_chart",
    "alpha_hat_scatter",
    "ensemble_size_chart",
    "trimmed_distance_chart",
    "thin_ecdf",
]
