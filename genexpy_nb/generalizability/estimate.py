"""The n* estimator, written once (paper Sec. 4.5, Theorem 4.1, Algorithm 1).

The resampled MMD_n of one sample of N results, the power-law fit of its quantiles and
the interval of n*.

:class:`~genexpy_nb.GeneralizabilityAnalysis` calls it for every configuration, and the
simulations of :mod:`genexpy_nb.generalizability.synthetic` (the preliminary study, the ground-truth
experiments) for every sample they draw, so that the two cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from .fit import NStarFit, fits_from_quantiles, power_law_fit, resampled_quantile_curves
from .interval import nstar_interval
from .mmd import draw_pairs, mmd_from_pairs
from .ngen import mmd_quantile

__all__ = ["FITS", "quantile_fits", "resample_mmd", "resampled_nstar"]

#: how the quantile curves of the alphas are fitted: one shared slope, or one line each
FITS = ("joint", "separate")


def resample_mmd(supports: Sequence[tuple], N: int, ns: np.ndarray, rep: int,
                 rng: np.random.Generator, *, disjoint: bool, replace: bool,
                 on_pairs: Callable[[int, int, np.ndarray, np.ndarray], None] | None = None,
                 on_size: Callable[[int], object] | None = None,
                 bucket: bool | None = None) -> np.ndarray:
    """Resample ``rep`` values of MMD_n for every kernel support and every n of ``ns``.

    The supports are ``(K, inv, ...)``; returns an array (kernels, len(ns), rep).

    The same pairs of samples serve every kernel (common random numbers); ``on_pairs(j, n,
    IX, IY)`` sees each draw too (the no-signal baseline reuses them). The pairs are drawn
    from ``rng`` in the order of ``ns``. ``on_size(n)`` is called after each n (a
    progress bar). ``bucket``: the route of the draws' order for every size (the same
    pairs either way; default: per size, as :func:`draw_pairs`).
    """
    out = np.empty((len(supports), ns.size, rep))
    for j, n in enumerate(ns):
        IX, IY = draw_pairs(N, int(n), rep, disjoint=disjoint, replace=replace, seed=rng,
                            bucket=bucket)
        for q, sup in enumerate(supports):
            out[q, j, :] = mmd_from_pairs(sup[0], sup[1], IX, IY)
        if on_pairs is not None:
            on_pairs(j, n, IX, IY)
        if on_size is not None:
            on_size(int(n))
    return out


def quantile_fits(ns: np.ndarray, mmd: np.ndarray, a_arr: np.ndarray, eps: np.ndarray,
                  fit: str, min_N: int | None, min_N3: int | None
                  ) -> tuple[list[list[NStarFit]], np.ndarray | None, np.ndarray | None,
                             tuple | None]:
    """Fits of one kernel's MMD_n samples (k, rep): ``(fits[a][d], Q, rows, pfit)``.

    ``fit="joint"``: the quantile curves of ``a_arr`` and of the slope alphas share one
    slope (``Q`` holds them all, ``rows`` marks the slope alphas, ``pfit`` is the fit);
    ``"separate"``: one line per alpha. ``Q`` is None without grid points.
    """
    na_ = a_arr.size
    pfit = None
    if not ns.size:
        fits = fits_from_quantiles(ns, np.zeros((na_, 0)), np.ones(na_, dtype=bool),
                                    eps, min_N, min_N3)
        return fits, None, None, None
    if fit == "joint":
        Q, rows = resampled_quantile_curves(mmd, a_arr)
        if ns.size >= 2:  # shared by the fits and the interval
            pfit = power_law_fit(ns, Q, rows)
        fits = fits_from_quantiles(ns, Q, rows, eps, min_N, min_N3, pfit=pfit)[:na_]
    else:
        Q = np.atleast_2d(mmd_quantile(mmd, a_arr))
        rows = np.ones(na_, dtype=bool)
        fits = [fits_from_quantiles(ns, Q[i:i + 1], rows[:1], eps, min_N, min_N3)[0]
                for i in range(na_)]
    return fits, Q, rows, pfit


def resampled_nstar(ns: np.ndarray, mmd: np.ndarray, a_arr: np.ndarray, eps: np.ndarray, *,
                    K: np.ndarray, inv: np.ndarray, rng: np.random.Generator,
                    interval: bool, level: float, fit: str, min_N: int | None,
                    min_N3: int | None) -> dict:
    """Estimate the resampled n* of one kernel from its MMD_n samples ``mmd`` (k, rep).

    Returns the columns, alpha-major over ``a_arr`` x ``eps``: ``nstar``, ``b0``, ``b1``,
    ``r2``, ``reason``, ``reliable`` and, with ``interval``, ``lo`` and ``hi`` (the
    ``level`` interval; its resampling of the conditions draws from ``rng``; ``K``,
    ``inv``: the kernel's support).
    """
    na_, nd_ = a_arr.size, eps.size
    fits, Q, rows, pfit = quantile_fits(ns, mmd, a_arr, eps, fit, min_N, min_N3)
    flat = [f for row in fits for f in row]
    out = {"nstar": [f.nstar for f in flat], "b0": np.array([f.b0 for f in flat]),
           "b1": np.array([f.b1 for f in flat]), "r2": np.array([f.r2 for f in flat]),
           "reason": [f.reason for f in flat],
           "reliable": np.array([f.reliable for f in flat])}
    if interval:
        nst = np.array(out["nstar"], dtype=np.float64).reshape(na_, nd_)
        if Q is None:
            lo = hi = np.full((na_, nd_), np.nan)
        else:
            counts = np.bincount(inv, minlength=K.shape[0]).astype(np.float64)
            lo, hi = nstar_interval(ns, Q, rows, nst, eps, K, counts, a_arr, rng, level,
                                     joint=fit == "joint", pfit=pfit)
        out["lo"] = lo.ravel()
        out["hi"] = hi.ravel()
    return out
