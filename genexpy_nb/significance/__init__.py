"""Classical significance tests for comparing ML models and other alternatives.

One file per family, each readable on its own:

* :mod:`.rank_tests` — :func:`friedman` (with Iman–Davenport's F and Kendall's W),
  :func:`skillings_mack` (Friedman with missing values), :func:`rank_within_conditions`,
  and scipy's :func:`wilcoxon` (signed-rank; two models over datasets), :func:`mannwhitneyu`,
  :func:`kruskal`;
* :mod:`.posthoc` — all pairs after Friedman: :func:`posthoc_conover` (Conover–Iman),
  :func:`posthoc_nemenyi`, and :func:`pairwise_wilcoxon`, :func:`pairwise_corrected_ttest`;
* :mod:`.critical_difference` — the data of a CD diagram: :func:`nemenyi_cd`,
  :func:`critical_difference`, :func:`cliques` (drawn by
  :func:`genexpy_nb.charts.significance.cd_diagram`); :mod:`.cd_figure` draws it as PNG,
  SVG or PDF without Vega: :func:`save_cd_diagram`, :func:`cd_diagram_svg`;
* :mod:`.paired` — two models on shared CV splits: the Nadeau–Bengio
  :func:`corrected_ttest` on :func:`repeated_kfold_splits`, Dietterich's
  :func:`paired_ttest_5x2cv` and Alpaydin's :func:`combined_ftest_5x2cv` on
  :func:`splits_5x2cv`, :func:`paired_cv_scores` (scikit-learn estimators on shared splits);
* :mod:`.mcnemar` — two classifiers on one test set: :func:`mcnemar` (exact, mid-p,
  asymptotic), :func:`mcnemar_table`;
* :mod:`.bootstrap` — :func:`bootstrap_ci` of a paired difference (BCa);
* :mod:`.effect_sizes` — :func:`cohens_dz`, :func:`rank_biserial`, :func:`cliffs_delta`;
* :mod:`.corrections` — :func:`adjust_pvalues` with statsmodels' method names
  (:data:`P_ADJUST_METHODS`);
* :mod:`.bayesian` — Bayesian comparisons with a region of practical equivalence (rope):
  :func:`correlated_bayesian_ttest` (one dataset, repeated CV), :func:`bayesian_signed_rank`
  and :func:`bayesian_sign_test` (several datasets); results :class:`BayesianResult` with
  ``probs = (left, rope, right)`` instead of a p-value.

Conventions
-----------
* **Inputs.** Tests over conditions take a *wide* table (one row per condition, one column
  per alternative: a polars/pandas frame, a 2-d NumPy array or a list of rows) or a *long*
  tidy table with ``y_col`` (the value), ``block_col`` (the condition) and ``group_col``
  (the alternative), as scikit-posthocs does. In a wide frame ``block_col`` names the column
  that labels the conditions; ``alternatives`` selects and orders the alternatives (or
  names the columns of an array). Two-model tests take 1-d arrays.
* **Direction.** Every function that ranks within conditions requires
  ``higher_is_better=True`` (scores such as accuracy) or ``False`` (errors, losses, ranks);
  there is no default, because a wrong direction silently makes the worst alternative the
  best. Rank 1 = best. The direction changes mean ranks, never p-values of two-sided tests.
* **Results** follow scipy: an object with ``statistic`` and ``pvalue`` that also unpacks as
  ``statistic, pvalue = result`` and prints on one line, plus the test's name, degrees of
  freedom ``df``, sizes and test-specific fields (intervals, effect sizes). Comparisons of
  many pairs are tidy polars frames, one row per pair ``(alternative_1, alternative_2)``.
* **Missing values** (NaN / null), ``nan_policy`` as in scipy: ``"propagate"`` gives NaN
  results (with a ``note`` saying so), ``"raise"`` raises
  :class:`~genexpy_nb.GenexpyInputError`, ``"omit"`` drops the conditions with a missing
  value (pairwise tests: the pairs with one). To use incomplete conditions instead of
  dropping them, use :func:`skillings_mack`.
* **Degenerate data** (every condition ties all alternatives, all paired differences zero,
  no discordant pair, zero variance) never gives a bare NaN: the result holds a documented
  value (``statistic = 0, pvalue = 1`` when there is no difference at all; ``±inf, 0`` when
  a nonzero difference has zero variance), a ``note`` says why, and a
  :class:`DegenerateTestWarning` is issued.
* ``p_adjust`` takes statsmodels' method names (:data:`P_ADJUST_METHODS`); ``None`` (the
  default, as in scikit-posthocs) reports unadjusted p-values.

References
----------
Demšar, J. (2006). Statistical comparisons of classifiers over multiple data sets. JMLR 7.
Conover, W. J. (1999). Practical Nonparametric Statistics, 3rd ed., Wiley (pp. 369-373).
Skillings, J. H. and Mack, G. A. (1981). On the use of a Friedman-type statistic in balanced
and unbalanced block designs. Technometrics 23(2), 171-177.
Nadeau, C. and Bengio, Y. (2003). Inference for the generalization error. Machine Learning
52, 239-281; Bouckaert, R. and Frank, E. (2004). Evaluating the replicability of
significance tests for comparing learning algorithms. PAKDD.
Dietterich, T. G. (1998). Approximate statistical tests for comparing supervised
classification learning algorithms. Neural Computation 10(7); Alpaydin, E. (1999). Combined
5 × 2 cv F test. Neural Computation 11(8).
"""

from __future__ import annotations

from ._input import REQUIRED
from ._results import (
    BootstrapResult,
    ConfidenceInterval,
    CorrectedTTestResult,
    DegenerateTestWarning,
    EffectSizeResult,
    FiveByTwoCVResult,
    FriedmanResult,
    McNemarResult,
    SignificanceResult,
    SkillingsMackResult,
)
from .bayesian import (
    DECISION_THRESHOLD,
    BayesianResult,
    bayesian_sign_test,
    bayesian_signed_rank,
    correlated_bayesian_ttest,
)
from .bootstrap import bootstrap_ci
from .cd_figure import cd_diagram_svg, save_cd_diagram
from .corrections import P_ADJUST_METHODS, adjust_pvalues
from .critical_difference import cliques, critical_difference, nemenyi_cd
from .effect_sizes import cliffs_delta, cohens_dz, rank_biserial
from .mcnemar import mcnemar, mcnemar_table
from .paired import (
    combined_ftest_5x2cv,
    corrected_ttest,
    paired_cv_scores,
    paired_ttest_5x2cv,
    repeated_kfold_splits,
    splits_5x2cv,
)
from .posthoc import pairwise_corrected_ttest, pairwise_wilcoxon, posthoc_conover, posthoc_nemenyi
from .rank_tests import (
    friedman,
    kruskal,
    mannwhitneyu,
    rank_within_conditions,
    skillings_mack,
    wilcoxon,
)

__all__ = [
    "P_ADJUST_METHODS",
    "REQUIRED",
    "DegenerateTestWarning",
    "SignificanceResult",
    "FriedmanResult",
    "SkillingsMackResult",
    "CorrectedTTestResult",
    "FiveByTwoCVResult",
    "McNemarResult",
    "BootstrapResult",
    "EffectSizeResult",
    "ConfidenceInterval",
    # rank tests
    "friedman",
    "skillings_mack",
    "rank_within_conditions",
    "wilcoxon",
    "mannwhitneyu",
    "kruskal",
    # post-hoc
    "posthoc_conover",
    "posthoc_nemenyi",
    "pairwise_wilcoxon",
    "pairwise_corrected_ttest",
    # critical difference
    "nemenyi_cd",
    "critical_difference",
    "cliques",
    "save_cd_diagram",
    "cd_diagram_svg",
    # paired model comparisons
    "corrected_ttest",
    "repeated_kfold_splits",
    "splits_5x2cv",
    "paired_cv_scores",
    "paired_ttest_5x2cv",
    "combined_ftest_5x2cv",
    "mcnemar",
    "mcnemar_table",
    "bootstrap_ci",
    # effect sizes
    "cohens_dz",
    "rank_biserial",
    "cliffs_delta",
    # corrections
    "adjust_pvalues",
    # Bayesian comparisons (Benavoli et al. 2017)
    "BayesianResult",
    "DECISION_THRESHOLD",
    "correlated_bayesian_ttest",
    "bayesian_signed_rank",
    "bayesian_sign_test",
]
