"""Bootstrap confidence interval of a paired score difference (``scipy.stats.bootstrap``).

A thin layer over scipy: paired differences in, BCa by default, a fixed seed, a documented
result when all differences are equal (scipy's BCa gives NaN there).

Missing values: ``nan_policy`` defaults to ``"raise"``; ``"omit"`` is the other choice.

References
----------
Efron, B. and Tibshirani, R. J. (1993). An Introduction to the Bootstrap. Chapman & Hall.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import stats

from .._validation import (
    GenexpyInputError,
    check_choice,
    check_positive_int,
    check_probability,
    rng_from_seed,
)
from ._input import _paired_differences
from ._results import BootstrapResult, ConfidenceInterval, _degenerate

__all__ = ["bootstrap_ci"]


def bootstrap_ci(
    x: Any,
    y: Any = None,
    *,
    statistic: str | Any = "mean",
    confidence_level: float = 0.95,
    method: str = "BCa",
    n_resamples: int = 9999,
    seed: int | np.random.Generator | None = 0,
    nan_policy: str = "raise",
) -> BootstrapResult:
    """Bootstrap confidence interval of a paired score difference (``scipy.stats.bootstrap``).

    Parameters
    ----------
    x, y : array-like of float, shape (n,)
        Paired scores of two models (same datasets, same splits or same test points); the
        interval is for ``statistic(x - y)``. With ``y=None``, ``x`` holds the differences.
    statistic : "mean", "median" or callable
        A callable gets the differences and ``axis`` (vectorized, like ``np.mean``).
    confidence_level : float, default 0.95
        Confidence level of the interval.
    method : {"BCa", "percentile", "basic"}
        BCa (bias-corrected and accelerated) by default.
    n_resamples : int, default 9999
        Number of bootstrap resamples.
    seed : int, numpy Generator or None
        Same seed, same interval.
    nan_policy : {"raise", "omit"}

    Returns
    -------
    BootstrapResult
        ``statistic``, ``confidence_interval`` (low, high), ``standard_error``; unpacks as
        ``statistic, (low, high)``.

    Notes
    -----
    Resampling the pairs keeps their dependence (the same dataset, split or test point for
    both models). The bootstrap treats the pairs as independent: over CV splits that share
    training data the interval is too narrow (use :func:`corrected_ttest`'s interval);
    over datasets or test points it is sound. All differences equal: the interval is that
    value, with a :class:`DegenerateTestWarning`.

    Examples
    --------
    >>> a = [0.81, 0.83, 0.80, 0.86, 0.79, 0.84, 0.82, 0.85]
    >>> b = [0.80, 0.80, 0.79, 0.82, 0.79, 0.81, 0.80, 0.83]
    >>> mean, (low, high) = bootstrap_ci(a, b, n_resamples=2000, seed=0)
    >>> round(mean, 3), round(low, 3), round(high, 3)
    (0.02, 0.011, 0.029)
    """
    check_choice("method", method, ("BCa", "percentile", "basic"))
    check_choice("nan_policy", nan_policy, ("raise", "omit"))
    c = check_probability("confidence_level", confidence_level)
    n_resamples = check_positive_int("n_resamples", n_resamples, minimum=2)
    if isinstance(statistic, str):
        check_choice("statistic", statistic, ("mean", "median"))
        fn = np.mean if statistic == "mean" else np.median
    elif callable(statistic):
        fn = statistic
    else:
        raise GenexpyInputError("statistic must be 'mean', 'median' or a callable.")
    d, _ = _paired_differences(x, y, nan_policy)
    if d.size < 2:
        raise GenexpyInputError(f"bootstrap_ci: {d.size} pair(s); at least 2 are needed.")
    est = float(fn(d, axis=-1))
    if np.all(d == d[0]):
        note = _degenerate("bootstrap_ci", f"all {d.size} differences equal {d[0]:.6g}",
                           "the interval is that single value")
        return BootstrapResult(statistic=est, confidence_interval=ConfidenceInterval(est, est),
                               standard_error=0.0, confidence_level=c, method=method,
                               n_resamples=n_resamples, n=int(d.size), note=note)
    res = stats.bootstrap((d,), fn, n_resamples=n_resamples, vectorized=True,
                          confidence_level=c, method=method, rng=rng_from_seed(seed))
    ci = ConfidenceInterval(float(res.confidence_interval.low),
                            float(res.confidence_interval.high))
    return BootstrapResult(statistic=est, confidence_interval=ci,
                           standard_error=float(res.standard_error), confidence_level=c,
                           method=method, n_resamples=n_resamples, n=int(d.size))
