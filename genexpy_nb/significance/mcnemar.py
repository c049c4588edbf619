"""McNemar's test of two classifiers on one test set (exact, mid-p or asymptotic).

When there is a single train/test split, compare the two classifiers' errors on the same
test points. statsmodels has the exact and asymptotic versions but not the mid-p one, so the
few lines of arithmetic are here, with p-values from ``scipy.special``; statsmodels and
mlxtend are the tests' oracles.

References
----------
McNemar, Q. (1947). Note on the sampling error of the difference between correlated
proportions or percentages. Psychometrika 12(2). Fagerland, M. W., Lydersen, S. and Laake, P.
(2013). The McNemar test for binary matched-pairs data: mid-p and asymptotic are better than
exact conditional. BMC Med. Res. Methodol. 13:91. Dietterich, T. G. (1998). Approximate
statistical tests for comparing supervised classification learning algorithms. Neural
Computation 10(7).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import GenexpyInputError, check_choice, float_array
from ._results import McNemarResult, _degenerate

__all__ = ["mcnemar", "mcnemar_table"]


def mcnemar_table(y_true: Any, y_pred_a: Any, y_pred_b: Any) -> np.ndarray:
    """Count the 2×2 table of two classifiers' correctness on one test set.

    Parameters
    ----------
    y_true : array_like, shape (n,)
        The true labels of the n test points.
    y_pred_a, y_pred_b : array_like, shape (n,)
        Classifier A's and classifier B's predicted labels for the same test points.

    Returns
    -------
    numpy.ndarray of int64, shape (2, 2)
        ``[[both right, A right and B wrong], [A wrong and B right, both wrong]]`` (the
        layout of mlxtend's ``mcnemar_table``); the discordant counts are b = ``[0, 1]`` and
        c = ``[1, 0]``.

    Examples
    --------
    >>> mcnemar_table([0, 1, 1, 0, 1], [0, 1, 0, 0, 0], [0, 0, 1, 1, 0])
    array([[1, 2],
           [1, 1]])
    """
    arrays = [np.asarray(v) for v in (y_true, y_pred_a, y_pred_b)]
    names = ("y_true", "y_pred_a", "y_pred_b")
    for name, arr in zip(names, arrays):
        if arr.ndim != 1:
            raise GenexpyInputError(f"{name} must be 1-d (one label per test point), got "
                                    f"shape {arr.shape}.")
    if len({arr.size for arr in arrays}) != 1:
        raise GenexpyInputError(
            "y_true, y_pred_a and y_pred_b must have the same length (one label per test "
            f"point), got {[arr.size for arr in arrays]}."
        )
    if arrays[0].size == 0:
        raise GenexpyInputError("y_true is empty: McNemar's test needs a test set.")
    ra, rb = arrays[1] == arrays[0], arrays[2] == arrays[0]
    return np.array([[np.sum(ra & rb), np.sum(ra & ~rb)], [np.sum(~ra & rb), np.sum(~ra & ~rb)]],
                    dtype=np.int64)


def mcnemar(
    y_true: Any = None,
    y_pred_a: Any = None,
    y_pred_b: Any = None,
    *,
    table: Any = None,
    method: str = "exact",
    correction: bool = True,
) -> McNemarResult:
    """Run McNemar's test of whether two classifiers have the same error rate on a test set.

    Parameters
    ----------
    y_true, y_pred_a, y_pred_b : array-like, shape (n,)
        True labels and the two classifiers' predictions on the same test points.
    table : array-like, shape (2, 2), optional
        Instead of the labels: ``[[both right, A right B wrong], [A wrong B right, both
        wrong]]`` (:func:`mcnemar_table`; only the discordant counts b, c matter).
    method : {"exact", "mid-p", "asymptotic"}
        ``"exact"``: binomial test on the discordant pairs; ``"mid-p"``: its mid-p version
        (less conservative, recommended by Fagerland et al. 2013); ``"asymptotic"``:
        chi-square with 1 dof.
    correction : bool
        Continuity correction of the asymptotic statistic (Edwards 1948).

    Returns
    -------
    McNemarResult
        ``statistic`` (min(b, c) for exact and mid-p, as statsmodels; chi-square for the
        asymptotic test), ``pvalue``, ``b``, ``c``, ``pvalue_exact``, ``pvalue_midp``.

    Notes
    -----
    With b, c the discordant counts and m = b + c, under H0 b ~ Binomial(m, 1/2):

    * exact p = min(1, 2 P(X <= min(b, c)));
    * mid-p = 2 P(X <= min(b, c)) - P(X = min(b, c)) (= exact p - P(X = min(b, c)) when
      b != c; 1 when b = c);
    * asymptotic: ``chi2 = (|b - c| - 1)^2 / (b + c)`` with correction (``max(0, ...)``, so
      b = c gives 0; statsmodels and mlxtend give ``1 / (b + c)`` there), ``(b - c)^2 /
      (b + c)`` without.

    No discordant pair (b = c = 0) gives statistic 0, pvalue 1 (what statsmodels' exact test
    returns) with a :class:`DegenerateTestWarning`.

    Examples
    --------
    >>> res = mcnemar(table=[[50, 9], [2, 39]])
    >>> round(res.pvalue, 4), round(res.pvalue_midp, 4)
    (0.0654, 0.0386)
    """
    check_choice("method", method, ("exact", "mid-p", "asymptotic"))
    if table is not None:
        if y_true is not None or y_pred_a is not None or y_pred_b is not None:
            raise GenexpyInputError("mcnemar: give either the labels or table=..., not both.")
        tb = float_array(table, "table must be a 2 x 2 table of counts.")
        if tb.shape != (2, 2) or not np.isfinite(tb).all() or (tb < 0).any() or np.any(
            tb != np.round(tb)
        ):
            raise GenexpyInputError(
                f"table must be a 2 x 2 table of non-negative integer counts, got {table!r}."
            )
        tb = tb.astype(np.int64)
    else:
        if y_true is None or y_pred_a is None or y_pred_b is None:
            raise GenexpyInputError(
                "mcnemar: give y_true, y_pred_a and y_pred_b (labels on one test set), or "
                "table=[[both right, A right B wrong], [A wrong B right, both wrong]]."
            )
        tb = mcnemar_table(y_true, y_pred_a, y_pred_b)
    from scipy import special  # not at import: the package imports this module (0.5 s)

    b, c = int(tb[0, 1]), int(tb[1, 0])
    m, lo = b + c, min(b, c)
    n = int(tb.sum())
    note = None
    if m == 0:
        note = _degenerate("mcnemar", "no discordant pair (b = c = 0): the two classifiers "
                           "are right and wrong on the same points",
                           "reported as statistic = 0, pvalue = 1")
        p_exact = p_mid = 1.0
    else:
        cdf = float(special.bdtr(lo, m, 0.5))
        pmf = cdf - (float(special.bdtr(lo - 1, m, 0.5)) if lo > 0 else 0.0)
        p_exact = min(1.0, 2.0 * cdf)
        p_mid = min(1.0, 2.0 * cdf - pmf)
    if method == "asymptotic":
        if m == 0:
            stat, p = 0.0, 1.0
        else:
            diff = max(abs(b - c) - 1.0, 0.0) if correction else float(abs(b - c))
            stat = diff**2 / m
            p = float(special.chdtrc(1, stat))
        df = 1.0
    else:
        stat, p, df = float(lo), (p_exact if method == "exact" else p_mid), None
    return McNemarResult(
        statistic=stat, pvalue=p, test="McNemar", df=df, n=n, k=2, b=b, c=c, method=method,
        pvalue_exact=p_exact, pvalue_midp=p_mid, correction=bool(correction), note=note,
    )
