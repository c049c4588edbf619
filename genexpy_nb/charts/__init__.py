"""Altair chart builders: pure functions from tidy polars frames to charts."""

from .generalizability import (
    deficit_heatmap,
    ngen_curves,
    nstar_boxplots,
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

__all__ = [
    # generalizability (GENEXPY paper, Figures 1-4)
    "ngen_curves",
    "power_law_fit",
    "nstar_boxplots",
    "nstar_vs_N",
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
