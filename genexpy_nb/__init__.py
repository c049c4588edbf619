"""genexpy_nb: will the results of your ML study hold up? Find out in Jupyter.

Generalizability of experimental studies (Matteucci et al.) and the variability of trained
models over random seeds (robust Kolmogorov-Smirnov test), for Jupyter.

Quick start::

    import genexpy_nb as gx
    study = gx.Study(df, alternatives="encoder", target="cv_score", higher_is_better=True,
                     generalize="dataset", design=["model", "tuning", "scoring"])
    res = gx.analyze(study, [gx.Jaccard(k=1), gx.Mallows()])
"""

from ._io import atomic_dir, atomic_write, write_frame
from ._lazy import install_moved_modules, lazy_exports
from ._validation import GenexpyInputError
from ._version import __version__
from .generalizability import (
    GeneralizabilityAnalysis,
    analyze,
    approx_terms,
    best_alternative,
    bound_nstar,
    conclusions,
    exchange_scores,
    fit_nstar,
    mmd_quantile,
    ngen,
    score_thresholds,
)
from .generalizability.kernels import RBF, Borda, Jaccard, Kernel, Mallows, parse_kernel
from .generalizability.mmd import mmd, mmd_distribution
from .generalizability.planner import plan, run_generalizable_study, simulate_preliminary_study
from .io.public import load_bigbench, load_encoders, read_results
from .study.core import ConfigurationSample, DirectionWarning, FilterReport, Study, rank_scores

install_moved_modules()  # old module paths (genexpy_nb.kernels, ...) import, with a warning

#: submodules loaded on first use, so that ``import genexpy_nb`` stays fast (scipy.stats,
#: Altair and ipywidgets are only imported by the parts that need them); classes and
#: functions loaded from their submodule on first use (the panels import ipywidgets and Altair)
_LAZY = {
    "significance": "<module>",
    "distributions": "<module>:generalizability.distributions",
    "synthetic": "<module>:generalizability.synthetic",
    "variability": "<module>",
    "charts": "<module>",
    "panels": "<module>",
    "seedpools": "<module>",
    "distributed": "<module>",
    "example": "<module>",
    "io": "<module>",
    "answers": "<module>",
    "leaderboards": "<module>",
    "aggregates": "<module>",
    "evals": "<module>",
    "GeneralizabilityExplorer": "panels",
    "SeedVariabilityExplorer": "panels",
    "nstar_summary": "answers.summary",
    "seeds_summary": "answers.summary",
    "conclusions_summary": "answers.conclusions",
    "readable_errors": "answers.notebook",
    "rank_probabilities": "leaderboards.rank_uncertainty",
    "rank_intervals": "leaderboards.rank_uncertainty",
    "top_group": "leaderboards.rank_uncertainty",
    "read_lm_eval": "io.tables",
    "split_id_column": "io.tables",
    "wide_to_long": "io.tables",
    "read_lm_eval_samples": "io.eval_logs",
    "read_inspect_log": "io.eval_logs",
    "read_eee": "io.eval_logs",
    "read_eee_instances": "io.eval_logs",
    "read_tsml_results": "io.eval_logs",
    "read_board": "io.boards",
    "SkippedRecordsWarning": "_io",
    "TextKeptWarning": "io.public",
    "eval_noise": "evals",
    "subset_agreement": "evals",
    "run_against_runs": "evals",
    "report": "answers.report_page",
    "StudyReport": "answers.report_page",
}

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals())


__all__ = [
    "distributions",
    "significance",
    "GenexpyInputError",
    "atomic_dir",
    "atomic_write",
    "write_frame",
    "load_bigbench",
    "load_encoders",
    "read_results",
    "Study",
    "ConfigurationSample",
    "FilterReport",
    "DirectionWarning",
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
    "conclusions",
    "best_alternative",
    "score_thresholds",
    "exchange_scores",
    "plan",
    "simulate_preliminary_study",
    "run_generalizable_study",
    "GeneralizabilityExplorer",
    "SeedVariabilityExplorer",
    "nstar_summary",
    "seeds_summary",
    "conclusions_summary",
    "readable_errors",
    "__version__",
    "aggregates",
    "rank_probabilities",
    "rank_intervals",
    "top_group",
    "read_lm_eval",
    "split_id_column",
    "wide_to_long",
    "read_lm_eval_samples",
    "read_inspect_log",
    "read_eee",
    "read_eee_instances",
    "read_tsml_results",
    "read_board",
    "SkippedRecordsWarning",
    "TextKeptWarning",
    "eval_noise",
    "subset_agreement",
    "run_against_runs",
    "report",
    "StudyReport",
]
