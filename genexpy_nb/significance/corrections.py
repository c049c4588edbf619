"""Multiple-comparison corrections with statsmodels' method names.

:func:`adjust_pvalues` and the ``p_adjust`` keyword of the pairwise tests call
``statsmodels.stats.multitest.multipletests``, except for Holm's method (see ``_adjust``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .._validation import GenexpyInputError, check_probability
from ._input import _as_1d
from ._pairs import P_ADJUST_METHODS
from ._pairs import adjust as _adjust
from ._pairs import check_p_adjust as _check_p_adjust

__all__ = ["P_ADJUST_METHODS", "adjust_pvalues"]

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
