"""Altair chart builders: pure functions from tidy polars frames to charts.

Importing this package makes Altair charts draw without network in notebooks: it enables
the ``"genexpy_nb"`` renderer (Vega specs that JupyterLab, Notebook 7 and VS Code draw
themselves) when Altair's default, CDN-loading renderer is active; see
:mod:`genexpy_nb.charts._offline`. ``alt.renderers.enable("default")`` undoes it.

The builders live in submodules that are imported on first use (``charts.cd_diagram``
imports the significance tests and SciPy, the generalizability charts do not), so that
``from genexpy_nb.charts import save_chart`` stays fast.
"""

from __future__ import annotations

import importlib

from ._offline import RENDERER_NAME, enable_offline_charts, offline_renderer, to_vega

enable_offline_charts()

#: public name -> submodule that defines it
_WHERE = {
    # generalizability (GENEXPY paper, Figures 1-4)
    "ngen_curves": "generalizability",
    "power_law_fit": "generalizability",
    "nstar_boxplots": "generalizability",
    "nstar_vs_N": "generalizability",
    "nstar_intervals": "generalizability",
    "deficit_heatmap": "generalizability",
    "save_chart": "generalizability",
    "generalizability_example": "paper_figures",
    "nstar_by_parameter": "paper_figures",
    # classical significance tests (critical-difference diagram)
    "cd_diagram": "significance",
    "save_cd_diagram": "significance",
    "cd_diagram_svg": "significance",
    # synthetic studies (paper Section 5.3 and Appendix A)
    "nstar_ratio_boxplots": "synthetic",
    "ngen_by_significance": "synthetic",
    # training variability over random seeds (robust KS paper)
    "ecdf_chart": "variability",
    "alpha_hat_scatter": "variability",
    "ensemble_size_chart": "variability",
    "trimmed_distance_chart": "variability",
    "thin_ecdf": "variability",
}

__all__ = [
    # drawing offline in notebooks
    "enable_offline_charts",
    "offline_renderer",
    "to_vega",
    "RENDERER_NAME",
    *_WHERE,
]


def __getattr__(name: str):
    if name in _WHERE:
        value = getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
        globals()[name] = value  # later look-ups skip this function
        return value
    if name in set(_WHERE.values()):  # a submodule, e.g. charts.variability
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'genexpy_nb.charts' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
