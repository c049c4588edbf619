"""genexpy_nb: will the results of your ML study hold up?

Generalizability of experimental studies (Matteucci et al.) and the variability of trained
models over random seeds (robust Kolmogorov-Smirnov test), for Jupyter.

Quick start::

    import genexpy_nb as gx
    study = gx.Study(df, alternatives="encoder", target="cv_score", higher_is_better=True,
                     generalize="dataset", design=["model", "tuning", "scoring"])
    res = gx.analyze(study, [gx.Jaccard(k=1), gx.Mallows()])
"""

from . import distributions, significance
from ._validation import GenexpyInputError
from .data import load_bigbench, load_encoders, read_results
from .generalizability import (
    GeneralizabilityAnalysis,
    analyze,
    approx_terms,
    bound_nstar,
    fit_nstar,
    mmd_quantile,
    ngen,
)
from .kernels import RBF, Borda, Jaccard, Kernel, Mallows, parse_kernel
from .mmd import mmd, mmd_distribution
from .planner import plan, run_generalizable_study, simulate_preliminary_study
from .study import ConfigurationSample, FilterReport, Study, rank_scores

__version__ = "0.1.0"

__all__ = [
    "distributions",
    "significance",
    "GenexpyInputError",
    "load_bigbench",
    "load_encoders",
    "read_results",
    "Study",
    "ConfigurationSample",
    "FilterReport",
    "rank_scores",
    "Kernel",
    "Borda",
    "Jaccard",
    "Mallows",
    "RBF",
    "parse_kernel",
    "mmd",
    "mmd_distribution",
    "ngen",
    "mmd_quantile",
    "fit_nstar",
    "approx_terms",
    "bound_nstar",
    "GeneralizabilityAnalysis",
    "analyze",
    "plan",
    "simulate_preliminary_study",
    "run_generalizable_study",
    "__version__",
]
