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

import importlib
import importlib.abc
import importlib.util
import sys


class _WhenAltairLoads(importlib.abc.MetaPathFinder):
    """Enable the offline renderer right after ``altair`` is imported.

    The hook then leaves ``sys.meta_path``: the renderer is on whenever a chart can exist,
    without importing Altair (2-3 s) for code that never draws one.
    """

    def find_spec(self, name, path=None, target=None):
        if name != "altair" or "altair" in sys.modules:
            return None
        for finder in sys.meta_path:  # the spec the other finders give
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                break
        else:
            return None
        if spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        run, hook = spec.loader.exec_module, self

        def exec_module(module):
            run(module)
            if hook in sys.meta_path:
                sys.meta_path.remove(hook)
            offline = sys.modules.get(f"{__name__}._offline")
            if offline is None or hasattr(offline, "enable_offline_charts"):
                from ._offline import enable_offline_charts as enable

                enable()
            # else _offline itself is importing Altair: it enables the renderer at its end

        spec.loader.exec_module = exec_module  # this spec's own loader object
        return spec


if "altair" in sys.modules:
    from ._offline import enable_offline_charts as _enable

    _enable()
elif not any(isinstance(f, _WhenAltairLoads) for f in sys.meta_path):
    sys.meta_path.insert(0, _WhenAltairLoads())

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
    if name in _OFFLINE:
        value = getattr(importlib.import_module("._offline", __name__), name)
        globals()[name] = value
        return value
    if name in _WHERE:
        value = getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
        globals()[name] = value  # later look-ups skip this function
        return value
    if name in set(_WHERE.values()):  # a submodule, e.g. charts.variability
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'genexpy_nb.charts' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
