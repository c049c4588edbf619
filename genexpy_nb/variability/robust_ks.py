"""The trimmed (robust) Kolmogorov-Smirnov test.

Robust-KS paper, Section III-C: :func:`trimmed_ks`, the DKW threshold
(:func:`dkw_threshold`, :func:`min_reference_size`) and :func:`robust_ks_test`. The
trimming level alpha-hat is :mod:`genexpy_nb.variability.alpha_hat`.

References
----------
del Barrio, Inouzhe & Matrán (2020), "On approximate validation of models: a
Kolmogorov-Smirnov-based approach" (trimmed KS distance); the robust-KS paper on training
variability over random seeds, Section III-C, Algorithm 1 and Appendix B-B.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import config
from .._lazy import lazy_exports
from .._validation import GenexpyInputError
from ._checks import as_gaps, check_alpha, check_eps
from ._dkw import check_can_reject, dkw_threshold, min_reference_size
from ._ks_rows import _ks_rows

__all__ = ["trimmed_ks", "dkw_threshold", "min_reference_size", "RobustKSResult",
           "robust_ks_test"]


def trimmed_ks(x_ref: Any, x_cand: Any, alpha: float | Any = 0.0) -> float | np.ndarray:
    """Trimmed Kolmogorov-Smirnov distance ``d_alpha(F0, Fn)`` (robust-KS paper Sec. III-C).

    The smallest KS distance between the reference ``F0`` (eCDF of ``x_ref``, linearly
    interpolated between its order statistics) and an alpha-trimming of the candidate eCDF
    ``Fn`` (a reweighting of ``x_cand`` that down-weights at most a fraction alpha of it).
    ``d_0`` is the plain KS distance; ``d_alpha`` is non-increasing in alpha.

    Parameters
    ----------
    x_ref : array_like, shape (m,)
        Reference sample (already clipped, see :func:`~genexpy_nb.variability.clip_gaps`).
    x_cand : array_like, shape (n,)
        Candidate sample.
    alpha : float or array_like of float in [0, 1), default 0
        Trimming level(s). An array is served by one sort (O(P log P) + O(P) per alpha,
        P = m + n).

    Returns
    -------
    float or numpy.ndarray
        The trimmed KS distance in [0, 1]: a float for a scalar ``alpha``, else one per
        value of ``alpha``.

    Notes
    -----
    With ``z_1 <= ... <= z_P`` the pooled sorted sample, ``s = 1/(1-alpha)``,
    ``U_i = F0(z_i) - s Fn(z_{i-1})``, ``D_i = F0(z_i) - s Fn(z_i)``,
    ``up[j] = max(U_{j+1..P})`` (``up[P] = -alpha s``), ``lo[j] = min(D_1..j)``
    (``lo[0] = 0``), ``h[j] = clip((up[j] + lo[j]) / 2, -alpha s, 0)``:
    ``d_alpha = max(max_i U_i - h[i-1], max_i h[i] - D_i)``. The published reference code
    (``calc_trimdk``) evaluates the same formula in O(P^2).

    ``F0`` is continuous except at the smallest reference value ``r_(1)``, where it jumps
    from 0; ``U_i`` compares ``F0(z_i)`` with the candidate's left limit, so ``d_0`` is the
    sup distance ``sup_v |F0(v) - Fn(v)|`` unless candidate values tie with ``r_(1)`` (then
    it is ``max(sup, F0(r_(1)) - Fn(r_(1)-))``, as in the reference code). Atoms in the
    reference (ties, clipped values) are smeared by the interpolation: see
    :func:`~genexpy_nb.variability.clip_gaps`.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> d = trimmed_ks(rng.normal(size=500), rng.normal(0.5, 1, size=500), [0.0, 0.2])
    >>> bool(d[0] >= d[1])
    True
    """
    r = as_gaps("x_ref", x_ref, ndim=(1,))
    x = as_gaps("x_cand", x_cand, ndim=(1,))
    alphas = check_alpha(alpha)
    out = _ks_rows(r, x[None, :], alphas)[0]
    return float(out[0]) if np.ndim(alpha) == 0 else out


@dataclass(frozen=True)
class RobustKSResult:
    """Outcome of :func:`~genexpy_nb.variability.robust_ks_test`: the fields below, as attributes.

    Parameters
    ----------
    statistic : float
        The trimmed KS distance ``d_alpha`` between the reference and the candidate sample.
    threshold : float
        The DKW threshold ``tau`` of size m (:func:`~genexpy_nb.variability.dkw_threshold`).
    accept : bool
        ``statistic <= threshold``: the candidate is an alpha-trimming away from the
        reference distribution F0 (robust-KS paper, Section III-C).
    alpha : float
        The trimming level used.
    eps : float
        The error probability of the DKW threshold.
    m, n : int
        Reference and candidate sample sizes.

    Examples
    --------
    >>> res = robust_ks_test([0.1, 0.4, 0.2, 0.9, 0.5, 0.3, 0.8, 0.7, 0.6, 0.0],
    ...                      [0.15, 0.45, 0.25, 0.95, 0.55], alpha=0.0)
    >>> res.m, res.n, res.accept, round(res.threshold, 4)
    (10, 5, True, 0.8279)
    """

    statistic: float
    threshold: float
    accept: bool
    alpha: float
    eps: float
    m: int
    n: int


def robust_ks_test(
    x_ref: Any, x_cand: Any, alpha: float = 0.05, eps: float = config.DKW_EPS
) -> RobustKSResult:
    """Run the robust two-sample KS test: accept when ``d_alpha(F0, Fn) <= tau``.

    Robust-KS paper, Section III-C.

    Parameters
    ----------
    x_ref : array_like, shape (m,)
        Reference sample (e.g. m draws from the pooled gaps of the reference models).
    x_cand : array_like, shape (n,)
        Candidate sample.
    alpha : float in [0, 1), default 0.05
        Trimming level.
    eps : float in (0, 1), default 0.01
        Error probability of the DKW threshold.

    Returns
    -------
    RobustKSResult
        The trimmed KS distance, the threshold and whether the candidate is accepted.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> ref, same, shifted = rng.normal(size=500), rng.normal(size=500), rng.normal(1, 1, 500)
    >>> robust_ks_test(ref, same).accept, robust_ks_test(ref, shifted).accept
    (True, False)
    """
    a = float(check_alpha(alpha)[0]) if np.ndim(alpha) == 0 else None
    if a is None:
        raise GenexpyInputError("alpha must be a single number in [0, 1) for the test.")
    d = trimmed_ks(x_ref, x_cand, a)
    m = int(np.size(x_ref))
    check_can_reject(m, check_eps(eps), f"x_ref has m = {m} values")
    tau = dkw_threshold(m, eps)
    return RobustKSResult(
        statistic=float(d),
        threshold=tau,
        accept=bool(d <= tau),
        alpha=a,
        eps=float(eps),
        m=m,
        n=int(np.size(x_cand)),
    )


# the alpha-hat engine moved to alpha_hat.py (0.3): its old names here resolve there, with a
# DeprecationWarning (genexpy_nb._lazy.MOVED_NAMES)
__getattr__, __dir__ = lazy_exports(__name__, {}, globals())
