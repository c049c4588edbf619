"""Training variability over random seeds: robust (trimmed) KS test, alpha-hat, churn, ECE.

the robust-KS paper. From a matrix of logit gaps (models x test points): how representative is one
trained model of its training process?

- :func:`logit_gaps`, :func:`clip_gaps`, :func:`ecdf`, :func:`reference_ecdf`,
  :func:`ecdf_frame`, :func:`ensemble_gaps` — the objects: logit gaps and their ECDFs;
- :func:`accuracy`, :func:`churn`, :func:`churn_to_ensemble`, :func:`pairwise_churn`,
  :func:`ece` — the usual metrics;
- :func:`trimmed_ks`, :func:`dkw_threshold`, :func:`min_reference_size`,
  :func:`robust_ks_test` — the test (``robust_ks``);
- :func:`alpha_hat`, :func:`alpha_hat_bootstrap`, :func:`trimming_curve`,
  :func:`ks_to_reference`, :func:`draw_bootstrap` — the trimming level alpha-hat
  (``alpha_hat``);
- :func:`candidate_report`, :func:`ensemble_study`, :func:`ensemble_summary` — the paper's
  tables;
- :func:`alpha_hat_groups`, :func:`pairwise_churn_frame`, :func:`select_seed` — reading the
  report like Tables II-V, and the paper's seed-selection rule of thumb.

Missing values: there is no ``nan_policy``; a NaN or infinite logit gap is an error (as
``nan_policy="raise"``), naming the failed models or test points to remove.
"""

# alpha_hat is bound to the function, after its module (importing the module alpha_hat sets
# the package attribute of that name to the module)
from .alpha_hat import (
    alpha_hat,
    alpha_hat_bootstrap,
    draw_bootstrap,
    ks_to_reference,
    trimming_curve,
)
from .ensembles import candidate_report, ensemble_study, ensemble_summary
from .gaps import clip_gaps, ecdf, ecdf_frame, ensemble_gaps, logit_gaps, reference_ecdf
from .metrics import accuracy, churn, churn_to_ensemble, ece, pairwise_churn, predictions
from .robust_ks import (
    RobustKSResult,
    dkw_threshold,
    min_reference_size,
    robust_ks_test,
    trimmed_ks,
)
from .selection import alpha_hat_groups, pairwise_churn_frame, select_seed

__all__ = [
    "RobustKSResult",
    "accuracy",
    "alpha_hat",
    "alpha_hat_bootstrap",
    "alpha_hat_groups",
    "candidate_report",
    "churn",
    "churn_to_ensemble",
    "clip_gaps",
    "dkw_threshold",
    "draw_bootstrap",
    "ece",
    "ecdf",
    "ecdf_frame",
    "ensemble_gaps",
    "ensemble_study",
    "ensemble_summary",
    "ks_to_reference",
    "logit_gaps",
    "min_reference_size",
    "pairwise_churn",
    "pairwise_churn_frame",
    "predictions",
    "reference_ecdf",
    "robust_ks_test",
    "select_seed",
    "trimmed_ks",
    "trimming_curve",
]
