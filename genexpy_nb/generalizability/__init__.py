"""n-generalizability and the number of experiments n* (paper Sec. 4.5; App. C).

The heavy part, the resampled distributions of MMD_n for every configuration, kernel and n
of the grid, is computed once by :class:`GeneralizabilityAnalysis` and cached; n* for any
(alpha*, delta*) is then a cheap read of those distributions (the panels rely on this).

The engine, one job per module:

* ``kernels``: the research questions as kernels on rankings (Borda, Jaccard, Mallows, RBF),
  and ``_gram`` their kernel matrices on arrays;
* ``mmd``: MMD between samples of rankings, and its resampled distribution MMD_n;
* ``columns``: the columns of the n* frame and the expressions of its verdicts;
* ``ngen``: n-generalizability, quantiles of MMD_n, the grid of sample sizes;
* ``fit``: the power-law fit, n* from it and its trust rules;
* ``estimate``: the n* estimator, once (resampled MMD_n, fit, interval), for the
  analysis and the simulations;
* ``interval``: the interval of the resampled n*;
* ``closed_form``: the closed-form approximation and the distribution-free bound;
* ``baseline``: the no-signal baseline (scores exchanged) and its band;
* ``questions``: vacuous questions refused, a* of Borda, score thresholds;
* ``analysis``: the cached analysis, :class:`GeneralizabilityAnalysis`;
* ``cluster``: its configurations as tasks on a Dask cluster;
* ``run``: :func:`analyze`, the whole study in one call;
* ``conclusions``: the study's conclusions (the winner, the top group, every pair, the
  order) with their n*;
* ``planner``: which configurations to extend first, and n* as a study grows;
* ``sensitivity``: how the kernels' parameters move n*;
* ``distributions`` and ``synthetic``: distributions over rankings with ties, and the
  experiments on a known distribution (the true n*).

References
----------
Matteucci et al., "Generalizability of experimental studies": Definition 4.2
(n-generalizability), Theorem 4.1 and Algorithm 1 (n*), Appendix C (approximation and bound).
"""

from __future__ import annotations

from .analysis import (  # noqa: F401
    AnalysisSetup,
    ConfigDistributions,
    GeneralizabilityAnalysis,
    check_analysis,
    check_nstar_request,
    nstar_frame,
)
from .baseline import (  # noqa: F401
    NULL_B,
    NULL_KEY,
    NULL_LEVEL,
    NULL_THIN_FROM,
    NULL_WIDEN,
    exchange_scores,
)
from .closed_form import (  # noqa: F401
    BOUND_REASON,
    ApproxTerms,
    approx_nstar,
    approx_quantile,
    approx_terms,
    bound_nstar,
    lin_z,
)
from .cluster import (  # noqa: F401
    analyze_on_cluster,
)
from .columns import (  # noqa: F401
    BEYOND_CHANCE,
    METHODS,
    NSTAR_CEIL,
    NSTAR_SCHEMA,
    NULL_COLUMNS,
    concat_columns,
)
from .conclusions import conclusion_z, conclusions
from .estimate import (  # noqa: F401
    FITS,
    quantile_fits,
    resample_mmd,
    resampled_nstar,
)
from .fit import (  # noqa: F401
    MIN_GRID_POINTS,
    R2_MIN,
    SLOPE_ALPHAS,
    SLOPE_BAND,
    NStarFit,
    fit_nstar,
    nstar_ceil,
    power_law_fit,
)
from .interval import (  # noqa: F401
    INTERVAL_B,
    INTERVAL_LEVEL,
)
from .ngen import (  # noqa: F401
    default_grid,
    min_N_for_points,
    min_N_for_two_points,
    mmd_quantile,
    ngen,
    resolve_grid,
)
from .questions import (
    best_alternative,
    check_question,
    score_thresholds,
)
from .run import (
    analyze,
)

__all__ = [
    "conclusions",
    "conclusion_z",
    "best_alternative",
    "exchange_scores",
    "score_thresholds",
    "ngen",
    "mmd_quantile",
    "default_grid",
    "fit_nstar",
    "power_law_fit",
    "check_question",
    "NStarFit",
    "approx_terms",
    "approx_nstar",
    "approx_quantile",
    "bound_nstar",
    "lin_z",
    "GeneralizabilityAnalysis",
    "analyze",
    "METHODS",
    "NULL_COLUMNS",
]
