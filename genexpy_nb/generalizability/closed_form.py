"""The closed-form approximation of n* and the distribution-free bound (paper App. C)."""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from .. import config
from .._validation import (
    GenexpyInputError,
    check_probability,
)
from .kernels import Kernel
from .mmd import support

#: the reason given by the distribution-free bound (it is never the verdict)
BOUND_REASON = ("distribution-free worst case (Proposition C.4, after Gretton et al. 2012): "
                "enough for any distribution of results, so far above what this study needs;"
                " an upper bound, not an estimate of n*, and never the verdict")


def lin_z(alpha: float) -> float:
    """Invert Lin's approximation of the normal CDF: ``z(alpha)`` (paper App. C step 5).

    The approximation is valid for alpha >= 0.6; below, a warning says the closed-form n*
    may be inaccurate.

    Parameters
    ----------
    alpha : float
        A probability in (0, 1).

    Returns
    -------
    float
        ``z(alpha)``, the approximate standard normal quantile that the closed form uses.
    """
    alpha = check_probability("alpha", alpha)
    if alpha < 0.6:
        warnings.warn(
            f"alpha={alpha}: Lin's approximation is valid for alpha >= 0.6; the closed-form "
            "n* may be inaccurate.", UserWarning, stacklevel=2,
        )
    c0, c1, c2, c3 = config.LIN_C
    return c0 + c1 * math.sqrt(c2 - c3 * math.log(2.0 * (1.0 - alpha)))


@dataclass(frozen=True)
class ApproxTerms:
    """Spectral terms of the closed-form approximation (Appendix C)."""

    L1: float
    L2: float
    a: float
    d: float
    centring: str
    m: int

    @property
    def degenerate(self) -> bool:
        """Whether all results are identical under the kernel (L1 = 0 up to rounding)."""
        return not (self.L1 > config.DEGENERATE_TOL)


def approx_terms(sample: np.ndarray, kernel: Kernel, centring: str = "uniform", *,
                 gram: np.ndarray | None = None) -> ApproxTerms:
    """Eigenvalue terms L1, L2, a, d of the centred kernel matrix of the empirical distribution.

    Parameters
    ----------
    sample : (N, na) results of one configuration (rankings, or scores for RBF)
    kernel : resolved Kernel
    centring : "uniform" (``C = I - 11'/m``, the paper's) or "weighted"
        (``C_p = I - 1p'`` on both sides, exact for the limit theorem)
    gram : optional (m, m) kernel matrix on the support ``np.unique(sample, axis=0)``
        (the distinct results, in that order), when the caller has it already

    Returns
    -------
    ApproxTerms
        From the eigenvalues lambda of the centred kernel matrix weighted by the empirical
        distribution: ``L1 = sum(lambda)`` and ``L2 = L1^2 + 2 sum(lambda^2)``; ``a`` and
        ``d``, the terms of App. C that the closed forms use (NaN when all results are
        identical under the kernel); ``centring``; ``m``, the number of distinct results.
    """
    if centring not in ("uniform", "weighted"):
        raise GenexpyInputError(f"centring must be 'uniform' or 'weighted', got {centring!r}.")
    u, _, cnt = support(sample)
    p = cnt / cnt.sum()
    m = u.shape[0]
    K = kernel.gram(u) if gram is None else gram
    # H = C K C' in O(m^2) (K symmetric): uniform C = I - 11'/m subtracts the row and
    # column means and adds the grand mean; weighted C_p = I - 1p' does the same with the
    # p-weighted means K p and p'K p
    if centring == "uniform":
        r = K.mean(axis=1)
        g = float(r.mean())
    else:
        r = K @ p
        g = float(p @ r)
    H = K - r[:, None] - r[None, :] + g
    # lambda = eigenvalues of H diag(p), those of the symmetric S = diag(sqrt p) H diag(sqrt p):
    # sum(lambda) = trace(S) = sum_i p_i H_ii and sum(lambda^2) = ||S||_F^2, no
    # eigendecomposition needed (O(m^2) instead of O(m^3))
    L1 = float(p @ np.diag(H))
    s2 = float(np.einsum("i,ij,j->", p, H * H, p))
    L2 = 3.0 * s2 + (L1**2 - s2)
    if L1 > config.DEGENERATE_TOL and s2 > 0:
        a = (L2 - L1**2) / L1
        d = 2.0 * L1**2 / (L2 - L1**2)
    else:
        a = d = math.nan
    return ApproxTerms(L1, L2, a, d, centring, m)


def _approx_C(terms: ApproxTerms, alpha: float) -> float:
    d = terms.d
    return math.sqrt(2.0 / (9.0 * d)) * lin_z(alpha) + 1.0 - 2.0 / (9.0 * d)


def approx_nstar(terms: ApproxTerms, alpha: float, eps: float) -> tuple[float, str | None]:
    """Compute the closed-form n*: ``log n* = -2 log eps + 3 log C(alpha) + log(a d)`` (App. C).

    Parameters
    ----------
    terms : ApproxTerms
        The terms of one configuration and kernel (:func:`approx_terms`).
    alpha : float
        Desired generalizability alpha*.
    eps : float
        MMD threshold eps* (the kernel's ``eps(delta*)``).

    Returns
    -------
    nstar : float
        The closed-form n*: 1 when all results are identical under the kernel, NaN where
        the approximation breaks down (C(alpha) <= 0).
    reason : str or None
        Why n* is 1 or NaN; None otherwise.
    """
    if terms.degenerate:
        return 1.0, "all results identical under the kernel (L1 = 0): one experiment suffices"
    C = _approx_C(terms, alpha)
    if C <= 0:
        return math.nan, f"C(alpha)={C:.3g} <= 0: the approximation breaks down here"
    return math.exp(-2.0 * math.log(eps) + 3.0 * math.log(C) + math.log(terms.a * terms.d)), None


def approx_quantile(terms: ApproxTerms, alpha: float, n: np.ndarray | float) -> np.ndarray:
    """Approximate the alpha-quantile of MMD_n: ``q_n = sqrt(a d C^3 / n)`` (App. C).

    Parameters
    ----------
    terms : ApproxTerms
        The terms of one configuration and kernel (:func:`approx_terms`).
    alpha : float
        The quantile level.
    n : float or numpy.ndarray
        Sample size(s).

    Returns
    -------
    numpy.ndarray
        The approximate quantile for every ``n`` (zeros when all results are identical
        under the kernel).
    """
    n = np.asarray(n, dtype=np.float64)
    if terms.degenerate:
        return np.zeros_like(n)
    C = _approx_C(terms, alpha)
    return np.sqrt(np.maximum(terms.a * terms.d * C**3, 0.0) / n)


def bound_nstar(alpha: float, eps: float, kappa_sup: float = 1.0) -> float:
    """Compute the distribution-free bound on n* (Proposition C.4, Gretton et al. 2012).

    ``n = eps^-2 (sqrt(-4 kappa_sup log(1 - alpha)) + sqrt(2 kappa_sup))^2``: enough
    conditions for any distribution of results, so a worst case far above what a study
    needs, never an estimate of n*.

    Parameters
    ----------
    alpha : float
        Desired generalizability alpha* in (0, 1).
    eps : float
        MMD threshold eps* (the kernel's ``eps(delta*)``).
    kappa_sup : float
        The supremum of the kernel (default 1, that of every kernel of the package).

    Returns
    -------
    float
        The bound (a real number of conditions).
    """
    alpha = check_probability("alpha", alpha)
    return (math.sqrt(-4.0 * kappa_sup * math.log(1.0 - alpha))
            + math.sqrt(2.0 * kappa_sup)) ** 2 / eps**2
