"""Paired comparisons of two models on shared cross-validation splits.

* :func:`corrected_ttest`: Nadeau–Bengio corrected resampled t-test on repeated k-fold CV
  with shared splits (:func:`repeated_kfold_splits`);
* :func:`paired_ttest_5x2cv` (Dietterich 1998) and :func:`combined_ftest_5x2cv` (Alpaydin
  1999) on 5 repetitions of 2-fold CV (:func:`splits_5x2cv`);
* :func:`paired_cv_scores`: the scores of scikit-learn estimators on shared splits.

These tests are a few lines of arithmetic on a handful of numbers; mlxtend has the 5×2cv
tests but only bundled with model fitting (and as a test-only dependency), so the formulas
are written here and mlxtend is the tests' oracle.

Missing values: ``nan_policy`` defaults to ``"propagate"`` (:func:`corrected_ttest`, as the
rank tests and scipy); the 5×2cv tests take complete arrays and have no ``nan_policy``.

References
----------
Nadeau, C. and Bengio, Y. (2003). Inference for the generalization error. Machine Learning
52, 239-281. Bouckaert, R. and Frank, E. (2004). Evaluating the replicability of
significance tests for comparing learning algorithms. PAKDD. Dietterich, T. G. (1998).
Approximate statistical tests for comparing supervised classification learning algorithms.
Neural Computation 10(7). Alpaydin, E. (1999). Combined 5 × 2 cv F test for comparing
supervised classification learning algorithms. Neural Computation 11(8).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy import special

from .._validation import (
    GenexpyInputError,
    check_choice,
    check_positive_int,
    float_array,
    rng_from_seed,
)
from ._input import _ALTERNATIVES, _paired_differences
from ._input import check_sizes as _check_sizes
from ._pvalues import t_pvalue as _p_from_t
from ._results import (
    CorrectedTTestResult,
    FiveByTwoCVResult,
    _degenerate,
)

__all__ = [
    "corrected_ttest",
    "repeated_kfold_splits",
    "splits_5x2cv",
    "paired_cv_scores",
    "paired_ttest_5x2cv",
    "combined_ftest_5x2cv",
]


# p-values from scipy.special's distribution functions: the same numbers as scipy.stats'
# t.sf / f.sf / chi2.sf / binom.cdf (tested), without their ~0.1-0.5 ms of per-call overhead,
# so that these tests take microseconds (benchmarks/bench_significance.py)


def _corrected_t(d: np.ndarray, n1: float, n2: float, alternative: str):
    """(t, p, mean, s2, var, se, df, note) of the corrected resampled t-test on d."""
    J = d.size
    mean = float(d.mean())
    # all d_j equal -> exactly 0 (d.var would leave rounding noise, e.g. 1e-35)
    s2 = 0.0 if np.all(d == d[0]) else float(d.var(ddof=1))
    var = (1.0 / J + n2 / n1) * s2
    se = math.sqrt(var)
    df = float(J - 1)
    note = None
    if se > 0:
        t = mean / se
    elif mean == 0:
        t = 0.0
        note = _degenerate("corrected_ttest", f"all {J} differences are zero",
                           "reported as t = 0 (no evidence of any difference)")
    else:
        t = math.copysign(math.inf, mean)
        note = _degenerate(
            "corrected_ttest", f"all {J} differences equal {mean:.6g} (zero variance)",
            "reported as t = +-inf: the difference is the same on every split; check that "
            "the scores are really per split and not repeated")
    return t, _p_from_t(t, df, alternative), mean, s2, var, se, df, note


def corrected_ttest(
    x: Any,
    y: Any = None,
    *,
    n_train: float,
    n_test: float,
    alternative: str = "two-sided",
    nan_policy: str = "propagate",
) -> CorrectedTTestResult:
    """Nadeau–Bengio corrected resampled t-test on paired results of J shared CV splits.

    Parameters
    ----------
    x, y : array-like of float, shape (J,)
        Scores of two alternatives on the same J = r * k splits (repeated k-fold CV with
        shared splits, :func:`repeated_kfold_splits`); the test is on ``d = x - y``. With
        ``y=None``, ``x`` holds the differences.
    n_train, n_test : float
        Sizes n1 of a training set and n2 of a test set (averages if folds differ by one).
        ``n_test=0`` removes the correction (the plain paired t-test).
    alternative : {"two-sided", "greater", "less"}
        "greater": the mean of x - y is larger than 0.
    nan_policy : {"propagate", "raise", "omit"}
        "omit" drops the splits with a missing value.

    Returns
    -------
    CorrectedTTestResult
        ``statistic`` t, ``pvalue``, ``df = J - 1``, ``mean``, ``variance``, ``std_error``,
        ``confidence_interval()``.

    Notes
    -----
    ``var = (1/J + n2/n1) * s^2`` with ``s^2`` the sample variance (ddof = 1) of the d_j,
    ``t = mean(d) / sqrt(var)``, Student's t with J - 1 dof (Nadeau & Bengio 2003;
    Bouckaert & Frank 2004). The lecture notes' ``t = d / sigma^2`` is a typo: divide by the
    *standard error* ``sqrt(var)``. Degenerate cases, with a :class:`DegenerateTestWarning`
    and a ``note``: all d_j zero gives t = 0 (p = 1 two-sided); all d_j equal to a nonzero
    constant gives t = ±inf (p = 0 two-sided).

    Examples
    --------
    >>> res = corrected_ttest([0.1, 0.3, 0.2, 0.4], n_train=90, n_test=10)
    >>> round(res.variance, 6), round(res.statistic, 4)  # var = (1/4 + 10/90) * 0.05/3
    (0.006019, 3.2225)
    """
    check_choice("alternative", alternative, _ALTERNATIVES)
    n1, n2 = _check_sizes(n_train, n_test)
    d, propagate = _paired_differences(
        x, y, nan_policy,
        mismatch="x and y must be paired (one value per shared split), got {nx} and {ny} values.")
    J = int(d.size)
    if J < 2:
        raise GenexpyInputError(
            f"corrected_ttest: {J} paired result(s); at least 2 splits are needed (use "
            "repeated k-fold CV, e.g. 10 x 10)."
        )
    nan = math.nan
    if propagate:
        return CorrectedTTestResult(
            statistic=nan, pvalue=nan, test="corrected resampled t (Nadeau-Bengio)",
            df=float(J - 1), n=J, k=2, alternative=alternative, n_train=n1, n_test=n2,
            note="missing values with nan_policy='propagate'",
        )
    t, p, mean, s2, var, se, df, note = _corrected_t(d, n1, n2, alternative)
    return CorrectedTTestResult(
        statistic=float(t), pvalue=p, test="corrected resampled t (Nadeau-Bengio)", df=df,
        n=J, k=2, alternative=alternative, mean=mean, sample_variance=s2, variance=var,
        uncorrected_variance=s2 / J, std_error=se, n_train=n1, n_test=n2, note=note,
    )


def repeated_kfold_splits(
    n_samples: int,
    *,
    n_splits: int = 10,
    n_repeats: int = 10,
    seed: int | np.random.Generator | None = 0,
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Shared (paired) repeated k-fold splits: the same train/test indices for every model.

    Parameters
    ----------
    n_samples : int
        Number of data points, ``>= n_splits``.
    n_splits : int
        k, the number of folds (>= 2). 10 is the usual choice.
    n_repeats : int
        r, the number of repetitions (each a fresh shuffle). 5 x 10 or 10 x 10 are
        recommended with :func:`corrected_ttest` (Bouckaert & Frank 2004).
    seed : int, numpy Generator or None
        Fixed by default: call once and evaluate every alternative on the result.

    Returns
    -------
    list of (train, test) pairs of int64 index arrays, length r * k
        Repetition-major (split ``rep * k + fold``). In each repetition the test folds
        partition ``0..n_samples-1`` into k parts whose sizes differ by at most one; test
        indices are sorted, train = the other indices, sorted.
        For :func:`corrected_ttest`: ``n_test = len(test)``, ``n_train = len(train)``
        (their means if ``n_samples`` is not a multiple of k).

    Examples
    --------
    >>> splits = repeated_kfold_splits(100, n_splits=5, n_repeats=2, seed=1)
    >>> len(splits), len(splits[0][0]), len(splits[0][1])
    (10, 80, 20)
    """
    n_samples = check_positive_int("n_samples", n_samples, minimum=2)
    n_splits = check_positive_int("n_splits", n_splits, minimum=2)
    n_repeats = check_positive_int("n_repeats", n_repeats, minimum=1)
    if n_splits > n_samples:
        raise GenexpyInputError(
            f"n_splits={n_splits} is larger than n_samples={n_samples}; every fold needs at "
            "least one test point."
        )
    rng = rng_from_seed(seed)
    out = []
    all_idx = np.arange(n_samples, dtype=np.int64)
    for _ in range(n_repeats):
        perm = rng.permutation(n_samples).astype(np.int64)
        for fold in np.array_split(perm, n_splits):
            test = np.sort(fold)
            mask = np.ones(n_samples, dtype=bool)
            mask[test] = False
            out.append((all_idx[mask], test))
    return out


# =====================================================================================
# 5 x 2 cross-validation: Dietterich's t-test, Alpaydin's F test
# =====================================================================================


def splits_5x2cv(
    n_samples: int,
    *,
    seed: int | np.random.Generator | None = 0,
    stratify: Any = None,
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Shared splits of 5 repetitions of 2-fold cross-validation (Dietterich 1998).

    Parameters
    ----------
    n_samples : int
        Number of data points (>= 4).
    seed : int, numpy Generator or None
        Fixed by default: call once and evaluate every model on the result.
    stratify : array-like of labels, shape (n_samples,), optional
        Halve each class separately, so that both halves keep the class proportions.

    Returns
    -------
    list of 10 (train, test) pairs of sorted int64 index arrays
        Repetition-major: for repetition i, split ``2 i`` trains on half A and tests on half
        B, split ``2 i + 1`` the reverse. Feed them to :func:`paired_cv_scores`, then the
        (5, 2) scores to :func:`paired_ttest_5x2cv` or :func:`combined_ftest_5x2cv`.

    Examples
    --------
    >>> splits = splits_5x2cv(10, seed=0)
    >>> len(splits), [len(test) for _, test in splits[:2]]
    (10, [5, 5])
    """
    n_samples = check_positive_int("n_samples", n_samples, minimum=4)
    rng = rng_from_seed(seed)
    if stratify is not None:
        labels = np.asarray(stratify)
        if labels.shape != (n_samples,):
            raise GenexpyInputError(
                f"stratify must hold one label per data point, shape ({n_samples},); got "
                f"shape {labels.shape}."
            )
        _, codes = np.unique(labels, return_inverse=True)
    else:
        codes = np.zeros(n_samples, dtype=np.int64)
    out = []
    for _ in range(5):
        perm = rng.permutation(n_samples)
        half_a = []
        flip = 0
        for cls in np.unique(codes):
            members = perm[codes[perm] == cls]
            # odd class sizes: give the extra point to alternating halves
            cut = (members.size + flip) // 2
            flip ^= members.size % 2
            half_a.append(members[:cut])
        a = np.sort(np.concatenate(half_a)).astype(np.int64)
        mask = np.ones(n_samples, dtype=bool)
        mask[a] = False
        b = np.flatnonzero(mask).astype(np.int64)
        out += [(a, b), (b, a)]
    return out


def paired_cv_scores(
    estimators: Sequence[Any] | dict[str, Any],
    X: Any,
    y: Any,
    splits: Sequence[tuple[np.ndarray, np.ndarray]],
    *,
    scoring: str | Any = None,
) -> np.ndarray | dict[str, np.ndarray]:
    """Scores of scikit-learn estimators on the same (train, test) splits.

    Parameters
    ----------
    estimators : list of estimators, or dict name -> estimator
        Each is cloned and fitted once per split (``sklearn.model_selection
        .cross_val_score`` with ``cv=splits``).
    X, y : array_like
        The features and the target (anything scikit-learn accepts).
    splits : list of (train, test) index pairs
        From :func:`repeated_kfold_splits` or :func:`splits_5x2cv`: the *same* splits for
        every estimator, which is what makes the comparison paired.
    scoring : str or callable, optional
        scikit-learn scorer (default: the estimator's ``score``, accuracy for classifiers).
        Higher is better for every scikit-learn scorer (errors come negated, e.g.
        ``"neg_mean_squared_error"``).

    Returns
    -------
    numpy.ndarray of shape (n_estimators, n_splits), or dict name -> array (n_splits,)
        Score of each estimator on each split, in the order of ``splits``.
    """
    try:
        from sklearn.base import clone
        from sklearn.model_selection import cross_val_score
    except ImportError:  # pragma: no cover - scikit-learn is in the test and lab extras
        raise GenexpyInputError(
            "paired_cv_scores needs scikit-learn: pip install 'genexpy_nb[lab]' "
            "(or pip install scikit-learn)."
        ) from None
    splits = list(splits)
    if not splits:
        raise GenexpyInputError("splits is empty; give a list of (train, test) index pairs.")
    named = isinstance(estimators, dict)
    items = list(estimators.items()) if named else list(enumerate(estimators))
    if not items:
        raise GenexpyInputError("estimators is empty; give at least one estimator.")
    scores = {
        name: np.asarray(cross_val_score(clone(est), X, y, cv=splits, scoring=scoring),
                         dtype=np.float64)
        for name, est in items
    }
    if named:
        return scores
    return np.vstack([scores[i] for i, _ in items])


def _as_5x2(a: Any, b: Any, func: str) -> np.ndarray:
    """Return the (5, 2) paired differences a - b (or a itself when b is None)."""
    arrays = []
    for name, v in (("a", a), ("b", b)):
        if v is None:
            continue
        arr = float_array(v, f"{func}: {name} must hold numbers.")
        if arr.size != 10 or arr.ndim not in (1, 2) or (arr.ndim == 2 and arr.shape != (5, 2)):
            raise GenexpyInputError(
                f"{func}: {name} must hold the 10 scores of 5 repetitions x 2 folds, shape "
                f"(5, 2) or (10,) repetition-major (splits_5x2cv's order); got shape "
                f"{arr.shape}."
            )
        if not np.isfinite(arr).all():
            raise GenexpyInputError(f"{func}: {name} contains NaN or infinite values.")
        arrays.append(arr.reshape(5, 2))
    return arrays[0] - arrays[1] if len(arrays) == 2 else arrays[0]


def _five_by_two_parts(d: np.ndarray):
    pbar = d.mean(axis=1, keepdims=True)
    s2 = ((d - pbar) ** 2).sum(axis=1)
    # a repetition whose two differences are equal has s_i^2 = 0 exactly
    s2[d[:, 0] == d[:, 1]] = 0.0
    return s2


def paired_ttest_5x2cv(
    a: Any, b: Any = None, *, alternative: str = "two-sided"
) -> FiveByTwoCVResult:
    """Dietterich's 5×2cv paired t-test.

    Parameters
    ----------
    a, b : array-like, shape (5, 2) or (10,)
        Scores of models A and B on the splits of :func:`splits_5x2cv` (repetition-major:
        row i = repetition i, column j = fold j). With ``b=None``, ``a`` holds the
        differences A - B.
    alternative : {"two-sided", "greater", "less"}
        "greater": A is better than B (for scores where higher is better).

    Returns
    -------
    FiveByTwoCVResult
        ``statistic`` t, ``pvalue`` (Student's t, 5 dof), ``differences``, ``variances``.

    Notes
    -----
    With p_i^(j) the difference on fold j of repetition i, ``pbar_i`` their mean and
    ``s_i^2 = (p_i^(1) - pbar_i)^2 + (p_i^(2) - pbar_i)^2``,
    ``t = p_1^(1) / sqrt((1/5) sum_i s_i^2)`` on 5 degrees of freedom (Dietterich 1998).
    Only the first difference is in the numerator, so the statistic depends on the order
    of the repetitions; :func:`combined_ftest_5x2cv` uses all ten and is more powerful.
    Degenerate cases (all s_i^2 = 0) give t = 0 when p_1^(1) = 0, else t = ±inf, with a
    :class:`DegenerateTestWarning` and a ``note``.

    Examples
    --------
    >>> d = [[0.01, 0.03], [0.02, 0.0], [0.02, 0.04], [-0.01, 0.01], [0.03, 0.02]]
    >>> round(paired_ttest_5x2cv(d).statistic, 4)
    0.767
    """
    check_choice("alternative", alternative, _ALTERNATIVES)
    d = _as_5x2(a, b, "paired_ttest_5x2cv")
    s2 = _five_by_two_parts(d)
    total = float(s2.sum())
    note = None
    if total > 0:
        t = float(d[0, 0] / math.sqrt(total / 5.0))
    elif d[0, 0] == 0:
        t = 0.0
        note = _degenerate("paired_ttest_5x2cv", "the differences have zero variance and "
                           "the first one is zero", "reported as t = 0")
    else:
        t = math.copysign(math.inf, float(d[0, 0]))
        note = _degenerate("paired_ttest_5x2cv", "the two folds of every repetition give "
                           "the same difference (zero variance)", "reported as t = +-inf")
    return FiveByTwoCVResult(
        statistic=t, pvalue=_p_from_t(t, 5.0, alternative), test="5x2cv paired t",
        df=5.0, n=10, k=2, alternative=alternative,
        differences=tuple(map(tuple, d.tolist())), variances=tuple(s2.tolist()),
        mean=float(d.mean()), note=note,
    )


def combined_ftest_5x2cv(a: Any, b: Any = None) -> FiveByTwoCVResult:
    """Alpaydin's combined 5×2cv F test (two-sided).

    Parameters
    ----------
    a, b : array-like, shape (5, 2) or (10,)
        As in :func:`paired_ttest_5x2cv`.

    Returns
    -------
    FiveByTwoCVResult
        ``statistic`` F, ``pvalue`` from F(10, 5), ``differences``, ``variances``.

    Notes
    -----
    ``F = sum_i sum_j (p_i^(j))^2 / (2 sum_i s_i^2)`` on (10, 5) degrees of freedom
    (Alpaydin 1999): all ten differences enter, which makes it more robust than the 5×2cv
    t-test. All differences zero gives F = 0 (p = 1); zero variance with nonzero
    differences gives F = inf (p = 0); both with a :class:`DegenerateTestWarning`.

    Examples
    --------
    >>> d = [[0.01, 0.03], [0.02, 0.0], [0.02, 0.04], [-0.01, 0.01], [0.03, 0.02]]
    >>> round(combined_ftest_5x2cv(d).statistic, 4)
    2.8824
    """
    d = _as_5x2(a, b, "combined_ftest_5x2cv")
    s2 = _five_by_two_parts(d)
    total = float(s2.sum())
    num = float((d**2).sum())
    note = None
    if total > 0:
        f = num / (2.0 * total)
    elif num == 0:
        f = 0.0
        note = _degenerate("combined_ftest_5x2cv", "all ten differences are zero",
                           "reported as F = 0, pvalue = 1 (no evidence of any difference)")
    else:
        f = math.inf
        note = _degenerate("combined_ftest_5x2cv", "the two folds of every repetition give "
                           "the same difference (zero variance)", "reported as F = inf")
    p = float(special.fdtrc(10, 5, f)) if math.isfinite(f) else 0.0
    return FiveByTwoCVResult(
        statistic=f, pvalue=p, test="5x2cv combined F", df=(10.0, 5.0), n=10, k=2,
        differences=tuple(map(tuple, d.tolist())), variances=tuple(s2.tolist()),
        mean=float(d.mean()), note=note,
    )
