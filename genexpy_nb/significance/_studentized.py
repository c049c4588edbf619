"""Survival function of the studentized range with infinite degrees of freedom.

Nemenyi's test needs ``P(Q > q)`` for the range Q of k independent standard normals at
every pair's statistic. ``scipy.stats.studentized_range.sf(q, k, np.inf)`` integrates
numerically once per statistic (about 0.1 ms each, 2.5 s for the 19,900 pairs of 200
alternatives). The distribution is a one-dimensional integral (Hartley 1942)::

    P(Q > q) = k * integral phi(z) [Phi(z)^(k-1) - (Phi(z) - Phi(z - q))^(k-1)] dz,

so one fixed Gauss–Legendre rule serves every statistic at once: 24 nodes (32 beyond 300
groups) on each of 11 panels of width 2 covering ``[-9, 13]`` (12 on the panels 2.5 or
more above the mode of the largest of k normals, where the integrand decays as smoothly
as phi: 95 nodes in all at k = 200, against 148 with 24 everywhere), less the nodes where the
part of the integrand that does not depend on ``q`` (``k phi(z) Phi(z)^(k-1)``, an upper
bound of the whole) is below 1e-20: the absolute error stays below 1e-17, far under the
1e-12 to which SciPy's own integration agrees with it (relative precision is kept down to
p-values of about 1e-8). That part is computed once per k; the numba kernel
(:mod:`genexpy_nb._numba.studentized`) then makes one pass over the nodes per distinct
statistic. Agreement with SciPy: within 1e-12 for k from 2 to 2,000 and q from 0 to 20
(tests/significance/test_studentized.py checks 1e-10 over that grid); with the closed form for
k = 2,
``erfc(q / 2)``, to 1e-17.
"""

from __future__ import annotations

import functools
import math

import numpy as np

__all__ = ["studentized_range_isf", "studentized_range_sf"]

#: Gauss–Legendre nodes per panel (up to 300 groups, and beyond: the integrand sharpens
#: with k, 24 nodes leave 7e-12 at k = 500), panel width and the integration interval;
#: panels that start 2.5 above the mode of the largest of k normals, where the integrand
#: decays smoothly (as phi), take _NODES_SMOOTH
_NODES_PER_PANEL = 24
_NODES_PER_PANEL_LARGE_K = 32
_NODES_SMOOTH = 12
_PANEL = 2.0
_LO, _HI = -9.0, 13.0
#: nodes whose q-free factor is below this are dropped (each term is at most the factor)
_DROP = 1e-20


@functools.lru_cache(maxsize=32)
def _rule(k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Nodes ``z``, ``Phi(z)`` and ``weight * k * phi(z) * Phi(z)^(k-1)`` for k groups.

    Nodes whose factor underflows below 1e-300 are dropped (their terms are at most that).
    """
    from scipy import special

    dense = np.polynomial.legendre.leggauss(_NODES_PER_PANEL if k <= 300
                                            else _NODES_PER_PANEL_LARGE_K)
    smooth = np.polynomial.legendre.leggauss(_NODES_SMOOTH)
    mode = float(special.ndtri(1.0 - 1.0 / k))  # about where the largest of k peaks
    edges = np.arange(_LO, _HI + _PANEL / 2, _PANEL)
    half = _PANEL / 2.0
    rules = [smooth if a >= mode + 2.5 else dense for a in edges[:-1]]
    z = np.concatenate([a + half + half * x for a, (x, _) in zip(edges[:-1], rules)])
    wz = np.concatenate([half * w for _, w in rules])
    log_factor = (np.log(wz) + math.log(k) - 0.5 * z * z - 0.5 * math.log(2.0 * math.pi)
                  + (k - 1.0) * special.log_ndtr(z))
    keep = log_factor > math.log(_DROP)
    factor = np.exp(log_factor[keep])
    return (np.ascontiguousarray(z[keep]), np.ascontiguousarray(special.ndtr(z[keep])),
            np.ascontiguousarray(factor))


def studentized_range_sf(q, k: int) -> np.ndarray:
    """``P(Q > q)`` for the range Q of ``k`` independent standard normals.

    The same as ``scipy.stats.studentized_range.sf(q, k, np.inf)`` (to 1e-12), for all
    ``q`` at once.

    Parameters
    ----------
    q : array_like of float
        Statistics (>= 0; NaN gives NaN, inf gives 0).
    k : int
        Number of groups, >= 2.

    Returns
    -------
    numpy.ndarray
        Probabilities in [0, 1], of the shape of ``q``.
    """
    if k < 2:
        raise ValueError(f"the studentized range needs k >= 2 groups, got {k}.")
    q = np.asarray(q, dtype=np.float64)
    flat = np.maximum(q.ravel(), 0.0)  # P(Q > q) = 1 for q <= 0
    uniq, inverse = np.unique(flat, return_inverse=True)
    uniq = np.ascontiguousarray(uniq)
    out = np.empty(uniq.size)
    if uniq.size == 0:
        return out[inverse].reshape(q.shape)
    z, cdf, factor = _rule(int(k))
    from .. import config

    if float(uniq.size) * z.size <= config.ROUTES.studentized_python_max_work:
        # small work (a few hundred pairs): the kernel's arithmetic in Python, without
        # loading numba (about 0.6 s in a fresh process)
        _range_sf_python(uniq, z, cdf, factor, float(k - 1), out)
        return out[inverse].reshape(q.shape)
    from .._numba import compile_note, run_blocks
    from .._numba import studentized as ks

    def block(r0: int, r1: int) -> None:
        ks.range_sf(uniq, z, cdf, factor, float(k - 1), r0, r1, out)

    first = 0
    if not ks.range_sf.signatures:  # not compiled yet: once, on this thread
        with compile_note(ks.range_sf, "the studentized range kernel"):
            block(0, 1)
        first = 1
    run_blocks(lambda r0, r1: block(r0 + first, r1 + first), uniq.size - first,
               work=40.0 * uniq.size * z.size)
    return out[inverse].reshape(q.shape)


def _range_sf_python(q: np.ndarray, nodes: np.ndarray, cdf_nodes: np.ndarray,
                     weights: np.ndarray, m: float, out: np.ndarray) -> None:
    """``genexpy_nb._numba.studentized.range_sf`` in Python, bit for bit (small work).

    The same operations on the same doubles in the same order (one pass over the nodes
    per statistic, the C library's ``erfc``, ``expm1`` and ``log1p``): tested against the
    kernel.
    """
    inv_sqrt2 = 1.0 / math.sqrt(2.0)
    rule = list(zip(nodes.tolist(), cdf_nodes.tolist(), weights.tolist(), strict=True))
    erfc, expm1, log1p = math.erfc, math.expm1, math.log1p
    for i, qi in enumerate(q.tolist()):
        if qi != qi:
            out[i] = math.nan
            continue
        s = 0.0
        for zj, cj, wj in rule:
            r = 0.5 * erfc((qi - zj) * inv_sqrt2) / cj
            if r >= 1.0:
                s += wj
            elif r > 0.0:
                s -= wj * expm1(m * log1p(-r))
        out[i] = min(max(s, 0.0), 1.0)


def studentized_range_isf(p: float, k: int) -> float:
    """Return the q with ``P(Q > q) = p``, Q the range of k standard normals (infinite dof).

    The inverse of :func:`studentized_range_sf` by bisection to the last bits (the upper
    quantile of Nemenyi's critical difference): the same as
    ``scipy.stats.studentized_range.isf(p, k, np.inf)`` to about 1e-10, without importing
    scipy.stats (about 1 s in a fresh process), and consistent with the p-values of
    Nemenyi's test (a pair is significant exactly when its statistic exceeds it).

    Parameters
    ----------
    p : float
        The upper-tail probability, in (0, 1).
    k : int
        Number of groups, >= 2.

    Returns
    -------
    float
    """
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be in (0, 1), got {p}.")
    lo, hi = 0.0, 1.0
    while studentized_range_sf([hi], k)[0] > p:
        lo, hi = hi, 2.0 * hi
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if studentized_range_sf([mid], k)[0] > p:
            lo = mid
        else:
            hi = mid
    return hi
