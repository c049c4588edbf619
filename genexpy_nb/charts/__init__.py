"""Altair chart builders: pure functions from tidy polars frames to charts."""

from .generalizability import (
    deficit_heatmap,
    ngen_curves,
    nstar_boxplots,
    nstar_vs_N,
    power_law_fit,
    save_chart,
)

__all__ = [
    "ngen_curves",
    "power_law_fit",
    "nstar_boxplots",
    "nstar_vs_N",
    "deficit_heatmap",
    "save_chart",
]
