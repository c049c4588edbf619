"""Altair chart builders: pure functions from tidy polars frames to charts."""

from .generalizability import (
    deficit_heatmap,
    ngen_curves,
    nstar_boxplots,
    nstar_vs_N,
    power_law_fit,
    save_chart,
)
from .synthetic import ngen_by_significance, nstar_ratio_boxplots

__all__ = [
    "ngen_curves",
    "power_law_fit",
    "nstar_boxplots",
    "nstar_vs_N",
    "deficit_heatmap",
    "save_chart",
    "nstar_ratio_boxplots",
    "ngen_by_significance",
]
