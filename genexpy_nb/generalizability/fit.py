"""The power-law fit of the MMD_n quantiles, n* from it and the rules that flag it.

Paper Theorem 4.1 and Algorithm 1. The estimator (``estimate``) and the analysis fit every
alpha* at once with :func:`fits_from_quantiles` (or only its values, :func:`nstar_values`)
on the curves of :func:`resampled_quantile_curves`; :func:`fit_nstar` fits one curve.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import config
from .ngen import mmd_quantile

#: alpha* levels whose MMD_n quantiles share one fitted slope (see
#: :func:`~genexpy_nb.generalizability.power_law_fit`)
SLOPE_ALPHAS: tuple[float, ...] = config.ALPHAS
#: a fitted slope outside this band is far from the theory's -2 (Theorem 4.1): the estimate
#: is flagged (``reliable`` false). In simulated studies where the power law holds, 98 % of
#: the fitted slopes lie within [-2.4, -1.6] from N = 20 on and within [-2.9, -1.0] at
#: N = 10 (``notebooks/09_how_sure_is_nstar.ipynb``): outside [-4, -1] the data, not chance,
#: break the power law.
SLOPE_BAND: tuple[float, float] = (-4.0, -1.0)
#: a power-law fit with R^2 (on the log-log scale) below this is flagged. In simulated
#: studies where the power law holds (uniform distributions of rankings, N >= 20) R^2 falls
#: below 0.8 in at most 2 % of them, and those estimates are three times further from the
#: true n* than the others; between 0.8 and 0.9 they are as good as the rest
R2_MIN: float = 0.8
#: fewest sample sizes of the grid for a trustworthy fit: with two, the line passes through
#: both points (R^2 = 1) whatever the data
MIN_GRID_POINTS: int = 3


def nstar_ceil(nstar: float) -> int | None:
    """Return the smallest whole number of conditions >= n* (None where n* is undefined).

    n* within 1e-9 of an integer counts as that integer (float noise of the fit).
    """
    return None if not math.isfinite(nstar) else max(1, math.ceil(nstar - 1e-9))


@dataclass(frozen=True)
class NStarFit:
    """n* from the power-law fit ``log n = b1 log q_n + b0`` (Theorem 4.1).

    ``nstar`` is NaN when undefined, with ``reason`` saying why; ``reason`` also explains
    the degenerate n* = 1, and why an estimate is not to be trusted (``reliable`` false: a
    fit on too few sample sizes, a slope far from the theory's -2, a poor R^2).

    Parameters
    ----------
    nstar : float
        The estimated n* (NaN when undefined).
    b0 : float
        Intercept of the fitted line (NaN without a fit).
    b1 : float
        Slope of the fitted line (NaN without a fit); the theory expects -2.
    r2 : float
        R^2 of the fit on the log-log scale (NaN without a fit).
    reason : str or None
        Why n* is 1, undefined or not to be trusted; None otherwise.
    reliable : bool
        Whether the estimate is to be trusted (default True).
    """

    nstar: float
    b0: float = math.nan
    b1: float = math.nan
    r2: float = math.nan
    reason: str | None = None
    reliable: bool = True

    @property
    def nstar_ceil(self) -> int | None:
        """The smallest whole number of conditions >= n* (None where n* is undefined)."""
        return nstar_ceil(self.nstar)


def power_law_fit(ns: np.ndarray, Q: np.ndarray, slope_rows: np.ndarray | None = None
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """OLS fit of ``log n = b1 log q_{n,a} + b0_a`` with one slope shared by the rows ``a``.

    The rows are the alpha*-quantile curves of MMD_n. Theorem 4.1 (and the closed form of
    Appendix C, ``q_n = sqrt(a d C(alpha)^3 / n)``) gives the same slope, -2, for every
    alpha*; only the intercept depends on alpha*. Fitting one slope to all the curves uses
    them all to estimate it, and makes n* non-decreasing in alpha*: the quantiles grow with
    alpha at every n, so with a common negative slope the intercepts, and n*, grow too.
    (Separate fits, one per alpha*, can cross and put n* at alpha* = 0.95 below the one at
    0.9.) With a single row this is the paper's fit.

    Parameters
    ----------
    ns : (k,) sample sizes of the grid
    Q : (..., A, k) quantiles (rows with a value <= 0 or not finite are left out)
    slope_rows : (A,) bool, rows that estimate the slope (default all); where none of them
        is usable, the usable rows estimate it

    Returns
    -------
    b1 : (...,) shared slope (NaN when no row is usable or log q does not vary)
    b0 : (..., A) intercepts (NaN for unusable rows)
    r2 : (..., A) R^2 of each row's line on the log-log scale
    """
    Q = np.asarray(Q, dtype=np.float64)
    y = np.log(np.asarray(ns, dtype=np.float64))
    with np.errstate(divide="ignore", invalid="ignore"):
        x = np.where(Q > 0, np.log(np.where(Q > 0, Q, 1.0)), np.nan)
    usable = np.isfinite(x).all(axis=-1)  # (..., A)
    sr = np.ones(Q.shape[-2], dtype=bool) if slope_rows is None else np.asarray(slope_rows)
    rows = usable & sr
    rows = np.where(rows.any(axis=-1, keepdims=True), rows, usable)
    xm = np.where(usable, np.nanmean(np.where(usable[..., None], x, 0.0), axis=-1), np.nan)
    xc = np.where(rows[..., None], x - xm[..., None], 0.0)
    yc = y - y.mean()
    num = (xc * yc).sum(axis=(-1, -2))
    den = (xc * xc).sum(axis=(-1, -2))
    scale = np.maximum(1.0, np.nanmax(np.abs(np.where(rows[..., None], x, 0.0)),
                                      axis=(-1, -2)))
    flat = den <= (1e-12 * scale) ** 2 * y.size
    with np.errstate(divide="ignore", invalid="ignore"):
        b1 = np.where(flat, np.nan, num / np.where(flat, 1.0, den))
    b0 = y.mean() - b1[..., None] * xm
    res = y - (b1[..., None, None] * x + b0[..., None])
    sst = float((yc * yc).sum())
    with np.errstate(invalid="ignore"):
        r2 = 1.0 - (res * res).sum(axis=-1) / sst if sst > 0 else np.full(b0.shape, np.nan)
    return b1, np.where(usable, b0, np.nan), np.where(usable, r2, np.nan)


def _trust_reason(npts: int, b1: float, r2: float, min_N3: int | None) -> str | None:
    """Why a finite resampled n* is not to be trusted (paper Sec. 4.5), or None."""
    why = []
    if npts < MIN_GRID_POINTS:
        need = f"; run at least N = {min_N3} conditions" if min_N3 else ""
        why.append(f"the power law was fitted to {npts} sample sizes only: the line passes "
                   f"through them (R² = 1) whatever the data{need}")
    lo, hi = SLOPE_BAND
    if math.isfinite(b1) and not lo <= b1 <= hi:
        why.append(f"the fitted slope b1 = {b1:.2f} is far from the theory's -2 (outside "
                   f"[{lo:g}, {hi:g}])")
    if npts >= MIN_GRID_POINTS and math.isfinite(r2) and r2 < R2_MIN:
        why.append(f"poor power-law fit (R² = {r2:.2f} < {R2_MIN:g})")
    if not why:
        return None
    return "unreliable: " + "; ".join(why)


def nstar_values(ns: np.ndarray, mmd: np.ndarray, alphas: np.ndarray, eps: np.ndarray,
                 fit: str = "joint"):
    """Compute the values of n* that :func:`fits_from_quantiles` gives (A, d).

    Without the fit objects, for MMD_n samples (k, rep): returns (values, Q, rows, pfit)
    as the fits use them.
    """
    na_, nd_ = alphas.size, eps.size
    out = np.full((na_, nd_), np.nan)
    if ns.size < 2:
        return out, (None if not ns.size else np.atleast_2d(mmd_quantile(mmd, alphas))), \
            None, None
    x0 = np.log(eps)
    if fit == "joint":
        Q, rows = resampled_quantile_curves(mmd, alphas)
        pfit = power_law_fit(ns, Q, rows)
        b1 = np.full(na_, float(pfit[0]))
        b0 = pfit[1][:na_]
    else:
        Q = np.atleast_2d(mmd_quantile(mmd, alphas))
        rows = np.ones(na_, dtype=bool)
        pfit = None
        b1 = np.empty(na_)
        b0 = np.empty(na_)
        for i in range(na_):
            f1, f0, _ = power_law_fit(ns, Q[i:i + 1])
            b1[i], b0[i] = float(f1), float(f0[0])
    with np.errstate(invalid="ignore", over="ignore"):
        val = np.exp(b1[:, None] * x0[None, :] + b0[:, None])
    ok = np.isfinite(b1) & (b1 < 0)
    out = np.where(ok[:, None], val, np.nan)
    out[np.any(Q[:na_] <= 0, axis=1)] = 1.0  # all resampled results agree
    return out, Q, rows, pfit


def fits_from_quantiles(ns: np.ndarray, Q: np.ndarray, slope_rows: np.ndarray,
                        eps: np.ndarray, min_N: int | None = None,
                        min_N3: int | None = None, pfit: tuple | None = None
                        ) -> list[list[NStarFit]]:
    """Fit n* for every row of ``Q`` (A, k) and every eps: ``out[a][d]``.

    ``pfit``: the result of ``power_law_fit(ns, Q, slope_rows)`` when the caller has it.
    """
    A = Q.shape[0]
    eps = np.atleast_1d(np.asarray(eps, dtype=np.float64))
    nd = eps.size
    if ns.size < 2:
        need = f"at least N = {min_N} results" if min_N else "at least 2 grid points"
        f = NStarFit(math.nan, reason=f"needs {need} for the power-law fit")
        return [[f] * nd for _ in range(A)]
    b1, b0, r2 = power_law_fit(ns, Q, slope_rows) if pfit is None else pfit
    out = []
    for a in range(A):
        if np.any(Q[a] <= 0):
            f = NStarFit(1.0, reason="all resampled results agree (an MMD_n quantile is 0): "
                                      "one experiment suffices")
            out.append([f] * nd)
            continue
        if not math.isfinite(float(b1)):
            f = NStarFit(math.nan, reason="the MMD_n quantiles do not change with n: "
                                          "no power law to fit")
            out.append([f] * nd)
            continue
        B0, B1, R2 = float(b0[a]), float(b1), float(r2[a])
        if B1 >= 0:
            f = NStarFit(math.nan, B0, B1, R2,
                         reason=f"fitted slope b1={B1:.3g} >= 0: the quantiles do not shrink "
                                "with n", reliable=False)
            out.append([f] * nd)
            continue
        why = _trust_reason(ns.size, B1, R2, min_N3)
        out.append([NStarFit(float(math.exp(B1 * math.log(e) + B0)), B0, B1, R2, why,
                             why is None) for e in eps])
    return out


def fit_nstar(ns: np.ndarray, qs: np.ndarray, eps: float | np.ndarray,
              min_N: int | None = None) -> list[NStarFit]:
    """Fit ``log n = b1 log q_n + b0`` by OLS and predict ``n* = exp(b1 log eps + b0)``.

    One alpha*-quantile curve on its own (the paper's fit).
    :meth:`~genexpy_nb.GeneralizabilityAnalysis.nstar` fits the curves of all alpha* with a
    shared slope (:func:`~genexpy_nb.generalizability.power_law_fit`).

    Parameters
    ----------
    ns : (k,) sample sizes of the grid
    qs : (k,) alpha*-quantiles of MMD_n
    eps : scalar or (d,) MMD thresholds eps*
    min_N : used in the reason given when the grid has fewer than 2 points

    Returns
    -------
    list of NStarFit, one per eps. A fit on fewer than 3 sample sizes, with a slope outside
    ``SLOPE_BAND`` or an R^2 below ``R2_MIN`` has ``reliable=False`` and a reason.
    """
    ns = np.asarray(ns, dtype=np.float64)
    qs = np.asarray(qs, dtype=np.float64).reshape(1, -1)
    return fits_from_quantiles(ns, qs, np.ones(1, dtype=bool), eps, min_N)[0]


def resampled_quantile_curves(mmd: np.ndarray, alphas: np.ndarray
                              ) -> tuple[np.ndarray, np.ndarray]:
    """Quantile curves for the requested alphas and the slope alphas: (Q (A, k), slope rows)."""
    ref = np.asarray(SLOPE_ALPHAS, dtype=np.float64)
    extra = ref[~np.isin(ref, alphas)]
    allA = np.concatenate([alphas, extra])
    Q = np.atleast_2d(mmd_quantile(mmd, allA))
    return Q, np.isin(allA, ref)
