"""The interval [nstar_lo, nstar_hi] of the resampled n*.

Its resampling part and its sampling part (closed-form spread of the quantiles):
:func:`nstar_interval` adds them; the band of the no-signal baseline (``baseline``) reuses
the fit part, :func:`prediction_se`, and a summary of the sampling part,
:func:`closed_form_log_sd`.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

import numpy as np

from .. import config
from .closed_form import lin_z
from .fit import power_law_fit

#: default level of the interval [nstar_lo, nstar_hi]
INTERVAL_LEVEL: float = 0.90
#: bootstrap weightings of the conditions behind the sampling part of the interval
INTERVAL_B: int = 200


def ndtri(p: float) -> float:
    """Return the standard normal quantile ``Phi^-1(p)`` of a probability ``p`` in (0, 1).

    The standard library's (Wichura's AS241, within 1e-15 of ``scipy.special.ndtri``)
    rather than scipy's: importing ``scipy.special`` took most of the time of the first
    analysis in a fresh process.
    """
    from statistics import NormalDist

    return NormalDist().inv_cdf(p)


def prediction_se(ns: np.ndarray, Q: np.ndarray, rows: np.ndarray, b1: float,
                  b0: np.ndarray, x0: np.ndarray) -> np.ndarray:
    """OLS standard error of the predicted log n* of the joint fit: (A, d).

    ``var(b0_a + b1 x0) = s^2 (1/k + (x0 - xbar_a)^2 / Sxx)``, with ``s^2`` the residual
    variance of the joint fit over the slope rows (``A k - A - 1`` degrees of freedom) and
    ``Sxx`` their pooled within-row sum of squares. It measures how much the Monte Carlo
    noise of the quantiles (``rep`` pairs) and the fit move the extrapolated n*.
    """
    A, k = Q.shape
    out = np.full((A, x0.size), np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        x = np.log(Q)
    y = np.log(ns.astype(np.float64))
    use = rows & np.isfinite(x).all(axis=1)
    if not math.isfinite(b1) or not use.any():
        return out
    dof = int(use.sum()) * k - int(use.sum()) - 1
    if dof <= 0:
        return out
    xs = x[use]
    res = y[None, :] - (b1 * xs + b0[use][:, None])
    s2 = float((res * res).sum()) / dof
    fin = np.isfinite(x).all(axis=1)
    xm = np.where(fin, np.where(fin[:, None], x, 0.0).mean(axis=1), np.nan)
    sxx = float(((xs - xs.mean(axis=1, keepdims=True)) ** 2).sum())
    if sxx <= 0:
        return out
    with np.errstate(invalid="ignore"):
        return np.sqrt(s2 * (1.0 / k + (x0[None, :] - xm[:, None]) ** 2 / sxx))


def _closed_form_spread(K: np.ndarray, counts: np.ndarray, alphas: np.ndarray, B: int,
                        rng: np.random.Generator) -> np.ndarray:
    """How the closed-form log n* moves when the conditions are resampled: (B, A).

    The N conditions are resampled with replacement (multinomial counts on the kernel
    classes); for each resample, ``log n*`` of the closed form (Appendix C, p-weighted
    centring ``C_p = I - 1 p'``; the eps term cancels) minus its value on the study.
    ``L1 = sum(lambda) = sum_i p_i H_ii`` and ``sum(lambda^2) = sum_ij p_i p_j H_ij^2`` are
    traces, so no eigendecomposition is needed: O(m^2) per resample.
    """
    N = int(counts.sum())
    p0 = counts / N
    W = np.vstack([p0[None, :], rng.multinomial(N, p0, size=B) / N])  # (B + 1, m)
    return _closed_form_deviations(W, K, alphas)


def _closed_form_deviations(W: np.ndarray, K: np.ndarray, alphas: np.ndarray) -> np.ndarray:
    """Compute how the closed-form ``log n*`` moves with the weights of the kernel classes.

    For each row of ``W`` (B + 1, m): ``log n*`` minus its value for the first row (the
    study); returns (B, A).
    """
    # with H = C_p K C_p' (entries K_ij - u_i - u_j + c, u = K p, c = p'K p):
    # L1 = p . diag(K) - c and sum_ij p_i p_j H_ij^2 = p'(K o K)p - 2 sum_i p_i u_i^2 + c^2
    U = W @ K
    c = np.einsum("bi,bi->b", U, W)
    L1 = W @ np.diag(K) - c
    s2 = np.einsum("bi,bi->b", W @ (K * K), W) - 2.0 * np.einsum("bi,bi,bi->b", W, U, U) + c**2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        z = np.array([lin_z(float(a)) for a in alphas])
    with np.errstate(divide="ignore", invalid="ignore"):
        L2 = 3.0 * s2 + (L1**2 - s2)
        a = (L2 - L1**2) / L1
        d = 2.0 * L1**2 / (L2 - L1**2)
        C = np.sqrt(2.0 / (9.0 * d))[:, None] * z[None, :] + 1.0 - (2.0 / (9.0 * d))[:, None]
        ln = 3.0 * np.log(C) + np.log(a * d)[:, None]
    ln = np.where(np.isfinite(ln) | (L1 <= config.DEGENERATE_TOL)[:, None], ln, np.nan)
    ln = np.where((L1 <= config.DEGENERATE_TOL)[:, None], -np.inf, ln)  # n* = 1 (log -> low)
    with np.errstate(invalid="ignore"):
        dev = ln[1:] - ln[0]
    dev[:, ~np.isfinite(ln[0])] = 0.0  # the study itself is degenerate: n* = 1, no spread
    return dev


def _quantiles0(x: np.ndarray, qs: Sequence[float]) -> np.ndarray:
    """``np.quantile(x, qs, axis=0)`` (linear interpolation, no NaN in x), bit for bit.

    The same arithmetic as NumPy's: index ``(n - 1) q``, and ``b - (b - a)(1 - g)`` instead
    of ``a + (b - a) g`` from ``g >= 0.5`` on. Written out because ``np.quantile`` imports
    ``numpy.ma`` on its first call, 17 ms of a first analysis in a fresh process.
    """
    s = np.sort(x, axis=0)
    n = s.shape[0]
    out = np.empty((len(qs),) + s.shape[1:])
    for i, q in enumerate(qs):
        v = (n - 1) * np.float64(q)
        lo = min(max(int(np.floor(v)), 0), n - 1)
        hi = min(lo + 1, n - 1)
        g = v - lo
        d = s[hi] - s[lo]
        out[i] = s[hi] - d * (1.0 - g) if g >= 0.5 else s[lo] + d * g
    return out


def _interval(lhat: np.ndarray, dev: np.ndarray, se: np.ndarray, level: float,
              widen: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """``[nstar_lo, nstar_hi]`` around the estimate, on the log scale: (A, d) each.

    The sampling part, the percentiles of the closed-form deviations ``dev`` (B, A), and
    the fit part, ``z se`` (A, d), are added in quadrature on each side; both sides are
    then multiplied by ``widen`` (1 for the interval of n*; sqrt 2 for the band of the
    no-signal baseline, see :meth:`GeneralizabilityAnalysis.nstar`).
    """
    a = (1.0 - level) / 2.0
    z = float(ndtri(1.0 - a))
    ok = np.isfinite(lhat)
    dev = np.where(np.isneginf(dev), -50.0, dev)  # a resample where n* = 1: far below
    dev = np.where(np.isposinf(dev), 50.0, dev)
    if np.isnan(dev).any():
        qs = np.nanquantile(dev, [a, 1.0 - a], axis=0)
    else:
        qs = _quantiles0(dev, (a, 1.0 - a))
    lo_d = -np.minimum(0.0, qs[0])
    hi_d = np.maximum(0.0, qs[1])
    fit = np.where(np.isfinite(se), z * se, 0.0)
    with np.errstate(invalid="ignore"):
        wlo = np.sqrt(lo_d[:, None] ** 2 + fit**2)
        whi = np.sqrt(hi_d[:, None] ** 2 + fit**2)
        if widen != 1.0:
            wlo = wlo * widen
            whi = whi * widen
        lo = lhat - wlo
        hi = lhat + whi
    return np.where(ok, lo, np.nan), np.where(ok, hi, np.nan)


def nstar_interval(ns: np.ndarray, Q: np.ndarray, rows: np.ndarray, nst: np.ndarray,
                   eps: np.ndarray, K: np.ndarray, counts: np.ndarray, alphas: np.ndarray,
                   rng: np.random.Generator, level: float, joint: bool = True,
                   pfit: tuple | None = None, widen: float = 1.0
                   ) -> tuple[np.ndarray, np.ndarray]:
    """``(nstar_lo, nstar_hi)``, each (A, d), for the estimates ``nst`` (A, d).

    ``Q`` holds the quantile curves the fit used (the requested alphas first, then the
    other slope alphas when ``joint``); ``K`` and ``counts`` are the kernel matrix and the
    counts of the study's kernel classes; ``widen`` multiplies both half-widths on the log
    scale (see :func:`_interval`).
    """
    finite = np.isfinite(nst)
    if not finite.any():
        return np.full(nst.shape, np.nan), np.full(nst.shape, np.nan)
    se, degenerate = fit_se(ns, Q, rows, eps, nst.shape, joint, pfit)
    dev = _closed_form_spread(K, counts, alphas, INTERVAL_B, rng)
    with np.errstate(divide="ignore"):
        llo, lhi = _interval(np.log(nst), dev, se, level, widen)
    return at_least_one(np.where(finite, np.exp(llo), np.nan),
                        np.where(finite, np.exp(lhi), np.nan), nst, degenerate)


def fit_se(ns: np.ndarray, Q: np.ndarray, rows: np.ndarray, eps: np.ndarray,
           shape: tuple[int, int], joint: bool, pfit: tuple | None
           ) -> tuple[np.ndarray, np.ndarray]:
    """Return the fit part of an interval of n*: ``se`` (A, d) and the degenerate rows.

    ``se`` is the standard error of the line at ``log eps*``: one line fitted to the curves
    ``Q`` (``rows`` of the slope, ``pfit`` when already fitted) when ``joint``, else one
    line per alternative's curve. A degenerate row is one where every resampled result
    agrees (n* = 1 exactly).
    """
    na_ = shape[0]
    x0 = np.log(eps)
    if joint:
        b1, b0, _ = power_law_fit(ns, Q, rows) if pfit is None else pfit
        return (prediction_se(ns, Q, rows, float(b1), b0, x0)[:na_],
                np.any(Q[:na_] <= 0, axis=1))
    se = np.full(shape, np.nan)
    for i in range(na_):
        b1, b0, _ = power_law_fit(ns, Q[i:i + 1])
        se[i] = prediction_se(ns, Q[i:i + 1], np.ones(1, dtype=bool), float(b1), b0, x0)
    return se, np.any(Q <= 0, axis=1)


def at_least_one(lo: np.ndarray, hi: np.ndarray, nst: np.ndarray,
                 degenerate: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Clip an interval of n* at 1.

    Exactly 1 where every resampled result agrees (exact); otherwise a lower end never below
    1 unless the estimate itself is.
    """
    one = np.isfinite(nst) & degenerate[:, None]
    return (np.where(one, 1.0, np.maximum(lo, np.minimum(1.0, nst))),
            np.where(one, 1.0, hi))


def closed_form_log_sd(K: np.ndarray, counts: np.ndarray, alphas: np.ndarray,
                       B: int, rng: np.random.Generator) -> np.ndarray:
    """Estimate how much the closed-form ``log n*`` moves when the conditions are resampled.

    The N conditions are resampled with replacement; returns a standard deviation (A,).

    The deviations of :func:`_closed_form_spread` (``B`` resamples) summarised by their
    interquartile range / 1.349 (the standard deviation of a normal law): the quartiles are
    stable from a hundred resamples, where the 2.5 % and 97.5 % percentiles would need
    thousands, and a resample where n* = 1 (a deviation of -inf) moves them little.
    """
    N = int(counts.sum())
    m = K.shape[0]
    # the N conditions drawn with replacement (as the multinomial counts of
    # _closed_form_spread, from integers: a third of its cost)
    inv = np.repeat(np.arange(m), counts.astype(np.int64))
    draws = inv[rng.integers(0, N, size=(B, N))] + (np.arange(B) * m)[:, None]
    W = np.vstack([(counts / N)[None, :],
                   np.bincount(draws.ravel(), minlength=B * m).reshape(B, m) / N])
    dev = _closed_form_deviations(W, K, alphas)
    dev = np.where(np.isneginf(dev), -50.0, np.where(np.isposinf(dev), 50.0, dev))
    if np.isnan(dev).any():
        q = np.nanquantile(dev, [0.25, 0.75], axis=0)
    else:
        q = _quantiles0(dev, (0.25, 0.75))
    return (q[1] - q[0]) / 1.3489795003921634
