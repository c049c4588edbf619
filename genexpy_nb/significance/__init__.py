"""Classical significance tests for comparing ML models and other alternatives.

One file per family, each readable on its own:

* ``rank_tests`` — :func:`friedman` (with Iman–Davenport's F and Kendall's W),
  :func:`skillings_mack` (Friedman with missing values), :func:`rank_within_conditions`,
  and scipy's :func:`wilcoxon` (signed-rank; two models over datasets), :func:`mannwhitneyu`,
  :func:`kruskal`;
* ``posthoc`` — all pairs after Friedman: :func:`posthoc_conover` (Conover–Iman),
  :func:`posthoc_nemenyi`, :func:`posthoc_siegel_castellan` (Demšar's z-test of mean
  ranks, also with missing results), :func:`posthoc_nemenyi_missing` (Nemenyi's test of
  mean ranks among the available alternatives), and :func:`pairwise_wilcoxon`,
  :func:`pairwise_corrected_ttest`;
* ``compare`` — the whole comparison of alternatives over blocks from a tidy results
  table: :func:`compare` (the missing-results policy of a Study, the omnibus test, a
  post-hoc test and its correction, mean ranks, the CD data) returning a
  :class:`Comparison` with its written report (Markdown, HTML, LaTeX, files);
  ``genexpy-nb compare`` runs it;
* ``critical_difference`` — the data of a CD diagram: :func:`nemenyi_cd`,
  :func:`critical_difference`, :func:`cliques`, :func:`group_letters` (the groups' letters;
  drawn by :func:`genexpy_nb.charts.cd_diagram`, and as PNG, SVG or PDF by
  :func:`genexpy_nb.charts.save_cd_diagram`);
* ``report`` — the document model of written reports (:class:`ReportSection`), for
  sections added to a comparison's report;
* ``paired`` — two models on shared CV splits: the Nadeau–Bengio
  :func:`corrected_ttest` on :func:`repeated_kfold_splits`, Dietterich's
  :func:`paired_ttest_5x2cv` and Alpaydin's :func:`combined_ftest_5x2cv` on
  :func:`splits_5x2cv`, :func:`paired_cv_scores` (scikit-learn estimators on shared splits);
* ``mcnemar`` — two classifiers on one test set: :func:`mcnemar` (exact, mid-p,
  asymptotic), :func:`mcnemar_table`;
* ``bootstrap`` — :func:`bootstrap_ci` of a paired difference (BCa);
* ``effect_sizes`` — :func:`cohens_dz`, :func:`rank_biserial`, :func:`cliffs_delta`;
* ``corrections`` — :func:`adjust_pvalues` with statsmodels' method names
  (:data:`P_ADJUST_METHODS`);
* ``pairwise_views`` — :func:`win_tie_loss`, the win / tie / loss matrix of benchmark
  papers with mean differences and corrected p-values;
* ``beyond_sections`` — :func:`bayesian_section`, :func:`aggregates_section`: report
  sections for a :class:`Comparison` (``comparison.with_section(...)``);
* ``bayesian`` — Bayesian comparisons with a region of practical equivalence (rope):
  :func:`correlated_bayesian_ttest` (one dataset, repeated CV), :func:`bayesian_signed_rank`
  and :func:`bayesian_sign_test` (several datasets); results :class:`BayesianResult` with
  ``probs = (left, rope, right)`` instead of a p-value.

Conventions
-----------
* **Inputs.** Tests over conditions take a *wide* table (one row per condition, one column
  per alternative: a polars/pandas frame, a 2-d NumPy array or a list of rows) or a *long*
  tidy table with ``target`` (the value), ``blocks`` (the condition) and ``alternatives``
  (the alternative), the words of :class:`~genexpy_nb.Study` and :func:`compare`;
  scikit-posthocs' ``y_col``, ``block_col`` and ``group_col`` are their aliases. In a wide
  frame ``blocks`` names the column that labels the conditions; ``order`` selects and
  orders the alternatives (or names the columns of an array; a list passed to
  ``alternatives=``, the old way, still works with a DeprecationWarning). Two-model tests
  take 1-d arrays.
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
  dropping them, use :func:`skillings_mack`. The default is one per family, stated in its
  module: ``"propagate"`` for the rank tests, the post-hoc tests and
  :func:`corrected_ttest` (scipy's default); ``"raise"`` for the Bayesian tests, the
  bootstrap interval, the effect sizes and the CD data (:func:`critical_difference`, and
  the CD diagrams of :mod:`genexpy_nb.charts`).
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

from .._lazy import lazy_exports
from .._validation import REQUIRED

#: public name -> submodule that defines it. Submodules are imported on first use: the
#: comparison workflow needs neither scipy.stats (about 1 s to import) nor the two-model
#: tests' scikit-learn helpers, and ``genexpy-nb compare`` runs in under a second.
_WHERE = {
    "P_ADJUST_METHODS": "corrections",
    "DegenerateTestWarning": "_results",
    "SignificanceResult": "_results",
    "FriedmanResult": "_results",
    "SkillingsMackResult": "_results",
    "CorrectedTTestResult": "_results",
    "FiveByTwoCVResult": "_results",
    "McNemarResult": "_results",
    "BootstrapResult": "_results",
    "EffectSizeResult": "_results",
    "ConfidenceInterval": "_results",
    # the workflow
    "compare": "genexpy_nb.answers.compare",
    "Comparison": "genexpy_nb.answers.comparison",
    "POSTHOC_TESTS": "genexpy_nb.answers.compare",
    "ReportSection": "genexpy_nb.answers.document",
    # rank tests
    "friedman": "rank_tests",
    "skillings_mack": "rank_tests",
    "rank_within_conditions": "rank_tests",
    "wilcoxon": "rank_tests",
    "mannwhitneyu": "rank_tests",
    "kruskal": "rank_tests",
    # post-hoc
    "posthoc_conover": "posthoc",
    "posthoc_nemenyi": "posthoc",
    "posthoc_siegel_castellan": "posthoc",
    "posthoc_nemenyi_missing": "posthoc",
    "pairwise_wilcoxon": "posthoc",
    "pairwise_corrected_ttest": "posthoc",
    # critical difference
    "nemenyi_cd": "critical_difference",
    "critical_difference": "critical_difference",
    "cliques": "critical_difference",
    "group_letters": "critical_difference",
    # paired model comparisons
    "corrected_ttest": "paired",
    "repeated_kfold_splits": "paired",
    "splits_5x2cv": "paired",
    "paired_cv_scores": "paired",
    "paired_ttest_5x2cv": "paired",
    "combined_ftest_5x2cv": "paired",
    "mcnemar": "mcnemar",
    "mcnemar_table": "mcnemar",
    "bootstrap_ci": "bootstrap",
    # effect sizes
    "cohens_dz": "effect_sizes",
    "rank_biserial": "effect_sizes",
    "cliffs_delta": "effect_sizes",
    # corrections
    "adjust_pvalues": "corrections",
    # Bayesian comparisons (Benavoli et al. 2017)
    "BayesianResult": "bayesian",
    "DECISION_THRESHOLD": "bayesian",
    "correlated_bayesian_ttest": "bayesian",
    "bayesian_signed_rank": "bayesian",
    "bayesian_sign_test": "bayesian",
    "win_tie_loss": "pairwise_views",
    "bayesian_section": "genexpy_nb.answers.beyond_sections",
    "aggregates_section": "genexpy_nb.answers.beyond_sections",
}

__all__ = ["REQUIRED", *_WHERE]


# functions named like their module: bound now, or importing the module (which sets the
# package attribute of that name to the module) would hide the function
from .critical_difference import critical_difference as critical_difference  # noqa: E402
from .mcnemar import mcnemar as mcnemar  # noqa: E402

__getattr__, __dir__ = lazy_exports(__name__, _WHERE, globals())
