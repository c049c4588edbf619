"""Multiple-comparison corrections with statsmodels' method names.

:func:`adjust_pvalues` and the ``p_adjust`` keyword of the pairwise tests call
``statsmodels.stats.multitest.multipletests``, except for Holm's method (see ``_adjust``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl

from .._validation import GenexpyInputError, check_probability
from ._input import _as_1d

__all__ = ["P_ADJUST_METHODS", "adjust_pvalues"]

#: multiple-testing corrections accepted by ``p_adjust`` (statsmodels' ``multipletests``)
P_ADJUST_METHODS: tuple[str, ...] = (
    "bonferroni", "sidak", "holm-sidak", "holm", "simes-hochberg", "hommel",
    "fdr_bh", "fdr_by", "fdr_tsbh", "fdr_tsbky",
)


def _check_p_adjust(p_adjust: str | None) -> str | None:
    if p_adjust is None:
        return None
    if not isinstance(p_adjust, str) or p_adjust not in P_ADJUST_METHODS:
        raise GenexpyInputError(
            f"p_adjust={p_adjust!r} is not a known correction. Use None (no correction) or "
            f"one of statsmodels' names: {', '.join(P_ADJUST_METHODS)}."
        )
    return p_adjust


def _adjust(p: np.ndarray, method: str | None, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Return (adjusted p-values, reject) for finite entries; NaN stays NaN, not rejected."""
    p = np.asarray(p, dtype=np.float64)
    out = p.copy()
    reject = np.zeros(p.shape, dtype=bool)
    ok = np.isfinite(p)
    if method is None:
        reject[ok] = p[ok] < alpha
        return out, reject
    if ok.any() and method == "holm":
        # Holm's step-down, here because statsmodels' holm branch calls gc.collect() (0.3 s
        # per call); equal to multipletests(..., method="holm") (tested)
        q = p[ok]
        m = q.size
        order = np.argsort(q, kind="stable")
        adj = np.minimum(np.maximum.accumulate(q[order] * np.arange(m, 0, -1)), 1.0)
        padj = np.empty(m)
        padj[order] = adj
        out[ok] = padj
        reject[ok] = padj <= alpha
    elif ok.any():
        from statsmodels.stats.multitest import multipletests  # heavy import, only if needed

        rej, padj, _, _ = multipletests(p[ok], alpha=alpha, method=method)
        out[ok] = padj
        reject[ok] = rej
    return out, reject


def adjust_pvalues(
    pvalues: Sequence[float] | np.ndarray, method: str = "holm", *, alpha: float = 0.05
) -> np.ndarray:
    """Adjust p-values for multiple comparisons (statsmodels' ``multipletests``).

    Parameters
    ----------
    pvalues : array-like of float, shape (m,)
        Raw p-values; NaN entries are left out of the correction and stay NaN.
    method : str
        One of :data:`P_ADJUST_METHODS` ("holm", "bonferroni", "fdr_bh", ...).
    alpha : float
        Family-wise error rate or FDR; only the two-stage FDR methods use it.

    Returns
    -------
    numpy.ndarray of float64, shape (m,)
        The adjusted p-values, in the order of ``pvalues``.

    Examples
    --------
    >>> adjust_pvalues([0.01, 0.04, 0.03], "holm").round(4).tolist()
    [0.03, 0.06, 0.06]
    """
    if method is None:
        raise GenexpyInputError(
            f"method must be one of statsmodels' names: {', '.join(P_ADJUST_METHODS)}."
        )
    method = _check_p_adjust(method)
    alpha = check_probability("alpha", alpha)
    p = _as_1d(pvalues, "pvalues")
    if np.any((p[np.isfinite(p)] < 0) | (p[np.isfinite(p)] > 1)):
        raise GenexpyInputError("pvalues must lie in [0, 1].")
    return _adjust(p, method, alpha)[0]


def _pairwise_frame(
    test: str,
    names: Sequence[str],
    statistic: np.ndarray,
    pvalue: np.ndarray,
    p_adjust: str | None,
    alpha: float,
    extra: dict[str, Any],
) -> pl.DataFrame:
    """All pairs ``(i, j)``, ``i < j``, in the order of ``itertools.combinations``."""
    i, j = np.triu_indices(len(names), 1)  # row by row: the order of combinations
    return _pairs_frame(test, names, i, j, statistic, pvalue, p_adjust, alpha, extra)


def _gathered(names: Sequence[str], idx: np.ndarray) -> Any:
    """``[names[a] for a in idx]``: a list when short, a NumPy gather when long.

    A Python list costs about 0.5 us per entry, the gather a fixed millisecond or so.
    """
    if len(idx) <= 4096:
        return [names[a] for a in idx]
    return np.asarray(list(names), dtype=object)[np.asarray(idx, dtype=np.int64)]


def _pairs_frame(
    test: str,
    names: Sequence[str],
    i: np.ndarray,
    j: np.ndarray,
    statistic: np.ndarray,
    pvalue: np.ndarray,
    p_adjust: str | None,
    alpha: float,
    extra: dict[str, Any],
) -> pl.DataFrame:
    """Return the frame of pairwise tests: one row per pair ``(names[i], names[j])`` given.

    ``p_adjust`` corrects these pairs as one family (all pairs, or the k - 1 comparisons
    with a control).
    """
    m = len(i)
    padj, reject = _adjust(pvalue, p_adjust, alpha)
    finite = np.isfinite(padj)
    if finite.all():
        significant = pl.Series(reject, dtype=pl.Boolean)
    else:  # no verdict without a p-value
        significant = pl.Series([bool(r) if f else None for r, f in zip(reject, finite)],
                                dtype=pl.Boolean)
    cols: dict[str, Any] = {
        "test": [test] * m,
        "alternative_1": _gathered(names, i),
        "alternative_2": _gathered(names, j),
        **extra,
        "statistic": np.asarray(statistic, dtype=np.float64),
        "pvalue_raw": np.asarray(pvalue, dtype=np.float64),
        "pvalue": padj,
        "p_adjust": [p_adjust or "none"] * m,
        "alpha": np.full(m, float(alpha)),
        "significant": significant,
    }
    return pl.DataFrame(cols, schema_overrides={"test": pl.String, "alternative_1": pl.String,
                                                "alternative_2": pl.String,
                                                "p_adjust": pl.String})
