"""n-generalizability and the number of experiments n* (paper Sec. 4.5; App. C).

The heavy part, the resampled distributions of MMD_n for every configuration, kernel and n
of the grid, is computed once by :class:`GeneralizabilityAnalysis` and cached; n* for any
(alpha*, delta*) is then a cheap read of those distributions (the panels rely on this).

References
----------
Matteucci et al., "Generalizability of experimental studies": Definition 4.2
(n-generalizability), Theorem 4.1 and Algorithm 1 (n*), Appendix C (approximation and bound).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import polars as pl

from . import config
from ._validation import (
    GenexpyInputError,
    as_float_grid,
    check_memory,
    check_positive_int,
    check_probability,
    check_rep_memory,
    child_seed,
)
from .kernels import Borda, Kernel, rbf_degeneracy
from .mmd import MODES, draw_pairs, kernel_support, mmd_from_pairs, support
from .study import ConfigurationSample, Study

__all__ = [
    "best_alternative",
    "exchange_scores",
    "score_thresholds",
    "ngen",
    "mmd_quantile",
    "default_grid",
    "fit_nstar",
    "power_law_fit",
    "check_question",
    "NStarFit",
    "approx_terms",
    "approx_nstar",
    "approx_quantile",
    "bound_nstar",
    "lin_z",
    "GeneralizabilityAnalysis",
    "analyze",
    "METHODS",
    "NULL_COLUMNS",
]

METHODS = ("resample", "approx", "approx_weighted", "bound")

#: the columns of n* before the frame is built (:meth:`GeneralizabilityAnalysis._nstar_columns`)
NSTAR_SCHEMA = {
    "config_id": pl.UInt32, "kernel": pl.String, "kernel_label": pl.String,
    "alpha": pl.Float64, "delta": pl.Float64, "eps": pl.Float64, "N": pl.Int64,
    "method": pl.String, "nstar": pl.Float64, "nstar_lo": pl.Float64,
    "nstar_hi": pl.Float64, "b0": pl.Float64, "b1": pl.Float64,
    "r2": pl.Float64, "reason": pl.String, "reliable": pl.Boolean,
    "nstar_null": pl.Float64, "nstar_null_lo": pl.Float64, "nstar_null_hi": pl.Float64}
#: the columns of the no-signal baseline (:meth:`GeneralizabilityAnalysis.nstar`)
NULL_COLUMNS = ("nstar_null", "nstar_null_lo", "nstar_null_hi", "beyond_chance")
#: ``beyond_chance``: n* below the band of the no-signal baseline (null where either is
#: undefined)
BEYOND_CHANCE = (pl.when(pl.col("nstar").is_finite() & pl.col("nstar_null_lo").is_finite())
                 .then(pl.col("nstar") < pl.col("nstar_null_lo")))


def concat_columns(blocks: Sequence[Mapping], names) -> dict:
    """Columns ``names`` of several blocks (dicts of arrays or lists), end to end."""
    out = {}
    for c in names:
        parts = [bl[c] for bl in blocks]
        if not parts:
            out[c] = []
        elif isinstance(parts[0], list):
            out[c] = [x for p in parts for x in p]
        else:
            out[c] = np.concatenate(parts)
    return out


#: the smallest whole number of conditions >= n* (null where n* is undefined): n* within
#: 1e-9 of an integer counts as that integer (float noise of the fit)
NSTAR_CEIL = (pl.when(pl.col("nstar").is_finite())
              .then((pl.col("nstar") - 1e-9).ceil().clip(lower_bound=1).cast(pl.Int64)))


def _distinct(values: np.ndarray) -> np.ndarray:
    """A grid of thresholds with every value once, in the order given (``deltas=[0.05,
    0.05]`` asks one question, not two: one row each)."""
    return np.asarray(list(dict.fromkeys(values.tolist())), dtype=np.float64)


def _unreliable(reason: str | None, why: str) -> str:
    """``reason`` with one more cause of distrust: ``"unreliable: a; b"``."""
    if not reason:
        return f"unreliable: {why}"
    if reason.startswith("unreliable: "):
        return f"{reason}; {why}"
    return f"{reason}; unreliable: {why}"


# ---------------------------------------------------------------------------------------
# elementary pieces
# ---------------------------------------------------------------------------------------
def ngen(mmd_samples: np.ndarray, eps: float | np.ndarray) -> float | np.ndarray:
    """n-generalizability: the fraction of MMD_n samples <= eps (empirical CDF at eps).

    Parameters
    ----------
    mmd_samples : (..., rep) array
    eps : scalar or (k,) array of thresholds

    Returns
    -------
    (...,) or (..., k) array (a float for a 1-d sample and a scalar eps).
    """
    x = np.asarray(mmd_samples, dtype=np.float64)
    e = np.asarray(eps, dtype=np.float64)
    if e.ndim == 0:
        out = (x <= e).mean(axis=-1)
        return float(out) if out.ndim == 0 else out
    return (x[..., None, :] <= e[:, None]).mean(axis=-1)


def mmd_quantile(mmd_samples: np.ndarray, alpha: float | Sequence[float]) -> np.ndarray:
    """alpha-quantile(s) of MMD_n, numpy ``method="higher"`` (the reference convention)."""
    a = as_float_grid("alpha", alpha)
    for v in a:
        check_probability("alpha", v)
    q = np.quantile(np.asarray(mmd_samples, dtype=np.float64), a, axis=-1,
                    method=config.QUANTILE_METHOD)
    return q[0] if np.ndim(alpha) == 0 else q


def default_grid(N: int) -> np.ndarray:
    """The reference grid n = 2, 4, 6, ... strictly below N // 2."""
    return np.arange(2, N // 2, 2, dtype=np.int64)


def _min_N_for_points(grid_fn: Callable[[int], np.ndarray], k: int = 2) -> int:
    """Smallest N whose grid has at least ``k`` sample sizes."""
    for N in range(1, 10_000):
        if len(grid_fn(N)) >= k:
            return N
    return 10_000  # pragma: no cover


def _min_N_for_two_points(grid_fn: Callable[[int], np.ndarray]) -> int:
    return _min_N_for_points(grid_fn, 2)


#: alpha* levels whose MMD_n quantiles share one fitted slope (see :func:`power_law_fit`)
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


@dataclass(frozen=True)
class NStarFit:
    """n* from the power-law fit ``log n = b1 log q_n + b0`` (Theorem 4.1).

    ``nstar`` is NaN when undefined, with ``reason`` saying why; ``reason`` also explains
    the degenerate n* = 1, and why an estimate is not to be trusted (``reliable`` false: a
    fit on too few sample sizes, a slope far from the theory's -2, a poor R^2).
    """

    nstar: float
    b0: float = math.nan
    b1: float = math.nan
    r2: float = math.nan
    reason: str | None = None
    reliable: bool = True

    @property
    def nstar_ceil(self) -> int | None:
        return None if not math.isfinite(self.nstar) else max(1, math.ceil(self.nstar - 1e-9))


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


def _nstar_values(ns: np.ndarray, mmd: np.ndarray, alphas: np.ndarray, eps: np.ndarray,
                  fit: str = "joint"):
    """The values of n* that :func:`_fits_from_quantiles` gives (A, d), without the fit
    objects, for MMD_n samples (k, rep): (values, Q, rows, pfit) as the fits use them."""
    na_, nd_ = alphas.size, eps.size
    out = np.full((na_, nd_), np.nan)
    if ns.size < 2:
        return out, (None if not ns.size else np.atleast_2d(mmd_quantile(mmd, alphas))), \
            None, None
    x0 = np.log(eps)
    if fit == "joint":
        Q, rows = _resampled_quantile_curves(mmd, alphas)
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


def _fits_from_quantiles(ns: np.ndarray, Q: np.ndarray, slope_rows: np.ndarray,
                         eps: np.ndarray, min_N: int | None = None,
                         min_N3: int | None = None, pfit: tuple | None = None
                         ) -> list[list[NStarFit]]:
    """n* fits for every row of ``Q`` (A, k) and every eps: ``out[a][d]`` (``pfit``: the
    result of ``power_law_fit(ns, Q, slope_rows)`` when the caller has it)."""
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

    One alpha*-quantile curve on its own (the paper's fit). :meth:`GeneralizabilityAnalysis
    .nstar` fits the curves of all alpha* with a shared slope (:func:`power_law_fit`).

    Parameters
    ----------
    ns : (k,) sample sizes of the grid
    qs : (k,) alpha*-quantiles of MMD_n
    eps : scalar or (d,) MMD thresholds eps*
    min_N : used in the reason given when the grid has fewer than 2 points

    Returns
    -------
    list of NStarFit, one per eps. A fit on fewer than 3 sample sizes, with a slope outside
    :data:`SLOPE_BAND` or an R^2 below :data:`R2_MIN` has ``reliable=False`` and a reason.
    """
    ns = np.asarray(ns, dtype=np.float64)
    qs = np.asarray(qs, dtype=np.float64).reshape(1, -1)
    return _fits_from_quantiles(ns, qs, np.ones(1, dtype=bool), eps, min_N)[0]


#: default level of the interval [nstar_lo, nstar_hi]
INTERVAL_LEVEL: float = 0.90
#: bootstrap weightings of the conditions behind the sampling part of the interval
INTERVAL_B: int = 200
#: level of the band [nstar_null_lo, nstar_null_hi] of the no-signal baseline
NULL_LEVEL: float = 0.99
#: key of the random streams of the no-signal baseline (the exchange of the scores, its
#: band): ``SeedSequence([seed, config_id, NULL_KEY, ...])``, apart from every other stream
NULL_KEY: int = 0x6E756C6C  # "null"
#: the band of the baseline is its own interval widened by this factor on the log scale:
#: it must hold the n* of a second study without signal, the user's, whose estimate varies
#: as much as the baseline's: the difference of two such estimates has sqrt(2) times the
#: spread of one
NULL_WIDEN: float = math.sqrt(2.0)
#: resamples of the conditions behind the sampling part of the band of the baseline
NULL_B: int = 100
#: a grid of at least this many sample sizes is thinned for the baseline to every other
#: size (the largest kept): half the cost, and the fitted line moves by less than 1 % on
#: average (0.2-0.6 % in simulated studies of N = 40 and 80, with a spread of 1-3 % that the
#: band's fit part covers)
NULL_THIN_FROM: int = 8


def _null_sizes(k: int) -> np.ndarray:
    """Positions in a grid of ``k`` sizes that the baseline resamples."""
    if k < NULL_THIN_FROM:
        return np.arange(k)
    return np.arange(k - 1, -1, -2)[::-1]
#: the reason given by the distribution-free bound (it is never the verdict)
BOUND_REASON = ("distribution-free worst case (Proposition C.4, after Gretton et al. 2012): "
                "enough for any distribution of results, so far above what this study needs;"
                " an upper bound, not an estimate of n*, and never the verdict")


def _resampled_quantile_curves(mmd: np.ndarray, alphas: np.ndarray
                               ) -> tuple[np.ndarray, np.ndarray]:
    """Quantile curves for the requested alphas and the slope alphas: (Q (A, k), slope rows)."""
    ref = np.asarray(SLOPE_ALPHAS, dtype=np.float64)
    extra = ref[~np.isin(ref, alphas)]
    allA = np.concatenate([alphas, extra])
    Q = np.atleast_2d(mmd_quantile(mmd, allA))
    return Q, np.isin(allA, ref)


def _prediction_se(ns: np.ndarray, Q: np.ndarray, rows: np.ndarray, b1: float,
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
    """``log n*`` of the closed form for the weights of each row of ``W`` (B + 1, m) on the
    kernel classes, minus its value for the first row (the study): (B, A)."""
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
    z = float(_ndtri(1.0 - a))
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


def _nstar_interval(ns: np.ndarray, Q: np.ndarray, rows: np.ndarray, nst: np.ndarray,
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
    na_, nd_ = nst.shape
    lo = np.full((na_, nd_), np.nan)
    hi = np.full((na_, nd_), np.nan)
    finite = np.isfinite(nst)
    if not finite.any():
        return lo, hi
    x0 = np.log(eps)
    if joint:
        b1, b0, _ = power_law_fit(ns, Q, rows) if pfit is None else pfit
        se = _prediction_se(ns, Q, rows, float(b1), b0, x0)[:na_]
        degenerate = np.any(Q[:na_] <= 0, axis=1)
    else:
        se = np.full((na_, nd_), np.nan)
        degenerate = np.any(Q <= 0, axis=1)
        for i in range(na_):
            b1, b0, _ = power_law_fit(ns, Q[i:i + 1])
            se[i] = _prediction_se(ns, Q[i:i + 1], np.ones(1, dtype=bool), float(b1), b0, x0)
    dev = _closed_form_spread(K, counts, alphas, INTERVAL_B, rng)
    with np.errstate(divide="ignore"):
        llo, lhi = _interval(np.log(nst), dev, se, level, widen)
    lo = np.where(finite, np.exp(llo), np.nan)
    hi = np.where(finite, np.exp(lhi), np.nan)
    # n* = 1 because all resampled results agree is exact; otherwise the lower end never
    # goes below 1 unless the estimate itself does
    one = finite & degenerate[:, None]
    lo = np.where(one, 1.0, np.maximum(lo, np.minimum(1.0, nst)))
    hi = np.where(one, 1.0, hi)
    return lo, hi


def _closed_form_log_sd(K: np.ndarray, counts: np.ndarray, alphas: np.ndarray,
                        B: int, rng: np.random.Generator) -> np.ndarray:
    """How much the closed-form ``log n*`` moves when the N conditions are resampled with
    replacement, as a standard deviation: (A,).

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


def _null_band(ns: np.ndarray, Q: np.ndarray, rows: np.ndarray, nst: np.ndarray,
               eps: np.ndarray, K: np.ndarray, counts: np.ndarray, alphas: np.ndarray,
               rng: np.random.Generator, level: float, joint: bool = True,
               pfit: tuple | None = None, widen: float = NULL_WIDEN
               ) -> tuple[np.ndarray, np.ndarray]:
    """``(nstar_null_lo, nstar_null_hi)``, each (A, d), around the baseline ``nst`` (A, d).

    On the log scale, ``log nst -/+ widen z sqrt(sd^2 + se^2)``: ``sd`` how much the
    closed-form n* moves when the conditions are resampled (:func:`_closed_form_log_sd`,
    :data:`NULL_B` resamples), ``se`` the standard error of the fitted line at ``log eps*``
    (:func:`_prediction_se`), ``z`` the normal quantile of ``level``: the sampling and the
    fit parts of the interval of n* (:func:`_nstar_interval`), the first from fewer
    resamples, summarised by a standard deviation.
    """
    na_, nd_ = nst.shape
    lo = np.full((na_, nd_), np.nan)
    hi = np.full((na_, nd_), np.nan)
    finite = np.isfinite(nst)
    if not finite.any():
        return lo, hi
    x0 = np.log(eps)
    if joint:
        b1, b0, _ = power_law_fit(ns, Q, rows) if pfit is None else pfit
        se = _prediction_se(ns, Q, rows, float(b1), b0, x0)[:na_]
        degenerate = np.any(Q[:na_] <= 0, axis=1)
    else:
        se = np.full((na_, nd_), np.nan)
        degenerate = np.any(Q <= 0, axis=1)
        for i in range(na_):
            b1, b0, _ = power_law_fit(ns, Q[i:i + 1])
            se[i] = _prediction_se(ns, Q[i:i + 1], np.ones(1, dtype=bool), float(b1), b0, x0)
    from ._numba import one_blas_thread  # many small products: one thread is faster

    with one_blas_thread():
        sd = _closed_form_log_sd(K, counts, alphas, NULL_B, rng)
    z = float(_ndtri(1.0 - (1.0 - level) / 2.0))
    fit = np.where(np.isfinite(se), se, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        w = widen * z * np.sqrt(sd[:, None] ** 2 + fit**2)
        lnst = np.log(nst)
        lo = np.where(finite, np.exp(lnst - w), np.nan)
        hi = np.where(finite, np.exp(lnst + w), np.nan)
    one = finite & degenerate[:, None]  # all resampled results agree: n* = 1 exactly
    lo = np.where(one, 1.0, np.maximum(lo, np.minimum(1.0, nst)))
    hi = np.where(one, 1.0, hi)
    return lo, hi


def _ndtri(p: float) -> float:
    """The standard normal quantile. The standard library's (Wichura's AS241, within
    1e-15 of ``scipy.special.ndtri``) rather than scipy's: importing ``scipy.special``
    took 0.3 s, most of the first analysis in a fresh process."""
    from statistics import NormalDist

    return NormalDist().inv_cdf(p)


def lin_z(alpha: float) -> float:
    """Inverse of Lin's approximation of the normal CDF, ``z(alpha)`` (paper App. C step 5)."""
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
    """Closed-form n*: ``log n* = -2 log eps + 3 log C(alpha) + log(a d)`` (paper App. C)."""
    if terms.degenerate:
        return 1.0, "all results identical under the kernel (L1 = 0): one experiment suffices"
    C = _approx_C(terms, alpha)
    if C <= 0:
        return math.nan, f"C(alpha)={C:.3g} <= 0: the approximation breaks down here"
    return math.exp(-2.0 * math.log(eps) + 3.0 * math.log(C) + math.log(terms.a * terms.d)), None


def approx_quantile(terms: ApproxTerms, alpha: float, n: np.ndarray | float) -> np.ndarray:
    """Approximate alpha-quantile of MMD_n, ``q_n = sqrt(a d C^3 / n)``."""
    n = np.asarray(n, dtype=np.float64)
    if terms.degenerate:
        return np.zeros_like(n)
    C = _approx_C(terms, alpha)
    return np.sqrt(np.maximum(terms.a * terms.d * C**3, 0.0) / n)


def bound_nstar(alpha: float, eps: float, kappa_sup: float = 1.0) -> float:
    """Distribution-free bound (Proposition C.4, Gretton et al. 2012).

    ``n = eps^-2 (sqrt(-4 kappa_sup log(1 - alpha)) + sqrt(2 kappa_sup))^2``.
    """
    alpha = check_probability("alpha", alpha)
    return (math.sqrt(-4.0 * kappa_sup * math.log(1.0 - alpha))
            + math.sqrt(2.0 * kappa_sup)) ** 2 / eps**2


def check_question(kernels: Sequence[Kernel], na: int) -> None:
    """Refuse a research question that is vacuous for ``na`` alternatives.

    Jaccard(k) with ``k >= na``: every alternative is in the top k tiers of every ranking
    (tiers are counted from 0 and there are at most na of them), so the kernel is always 1,
    every MMD is 0 and n* = 1 whatever the results. The question "are the best alternatives
    consistently the same?" then asks nothing; it is an error, not a result.
    """
    for k in kernels:
        if k.name == "jaccard" and int(k.k) >= na:
            raise GenexpyInputError(
                f"{k.label} with {na} alternatives asks nothing: every alternative is in the "
                f"top {k.k} tiers of every ranking, so any study would be generalizable "
                f"with n* = 1. Use Jaccard(k=...) with k < {na} (k=1 asks whether the best "
                "alternatives are the same)."
            )


# ---------------------------------------------------------------------------------------
# the cached analysis
# ---------------------------------------------------------------------------------------
@dataclass
class ConfigDistributions:
    """Cached MMD_n samples of one configuration for every kernel."""

    sample: ConfigurationSample
    kernels: list[Kernel]
    ns: np.ndarray  # (k,)
    mmd: np.ndarray  # (nk, k, rep)
    supports: list[tuple[np.ndarray, np.ndarray, np.ndarray]]  # per kernel: K, inv, counts
    approx: dict[tuple[int, str], ApproxTerms] = field(default_factory=dict)
    #: the same for the study with its scores exchanged among the alternatives within each
    #: condition (the no-signal baseline); None when the analysis has no baseline
    null_mmd: np.ndarray | None = None  # (nk, k0, rep) on the sizes null_ns
    null_supports: list[tuple[np.ndarray, np.ndarray, np.ndarray]] | None = None
    null_ns: np.ndarray | None = None
    #: why a kernel's matrix cannot discriminate (RBF), per kernel index, once computed
    degenerate: dict[int, str | None] = field(default_factory=dict)


def _resolve_grid(grid, N: int, disjoint: bool, replace: bool) -> np.ndarray:
    if grid is None:
        ns = default_grid(N)
    elif callable(grid):
        ns = np.asarray(grid(N), dtype=np.int64)
    else:
        ns = np.unique(np.asarray(grid, dtype=np.int64))
        if ns.size and ns.min() < 1:
            raise GenexpyInputError(f"grid sizes must be >= 1, got {ns.min()}.")
    if disjoint and not replace:
        ns = ns[2 * ns <= N]
    elif not replace:
        ns = ns[ns <= N]
    return ns


def best_alternative(study: Study) -> str:
    """The alternative with the best (lowest) mean rank over all conditions of the study.

    Ranks are the study's tiers (0 = best, ties share a tier, a missing result the worst
    tier), averaged over every condition of every configuration; a tie goes to the first
    alternative in the study's order. This is a* of ``Borda()`` when a* is not named.
    """
    if not isinstance(study, Study):
        raise GenexpyInputError("study must be a genexpy_nb.Study.")
    total = np.zeros(study.na)
    count = 0
    for s in study.samples():
        total += s.rankings.sum(axis=0)
        count += s.N
    return str(study.alternatives[int(np.argmin(total / max(count, 1)))])


def _exchange_permutations(sample: ConfigurationSample, seed: int) -> np.ndarray:
    """(N, na): row i is the order in which condition i's results are exchanged."""
    rng = child_seed(seed, sample.config_id, NULL_KEY)
    return np.argsort(rng.random(sample.rankings.shape), axis=1)


def exchange_scores(sample: ConfigurationSample, seed: int = 0) -> ConfigurationSample:
    """The configuration with its results exchanged at random among the alternatives within
    each condition: no alternative is then systematically better (the no-signal baseline).

    Each condition gets its own uniformly random permutation of the alternatives, applied
    to its ranking, its scores and its imputed flags alike; the stream is
    ``SeedSequence([seed, config_id, NULL_KEY])``, so a configuration's exchange does not
    depend on the others.
    """
    P = _exchange_permutations(sample, seed)

    def take(a):
        return np.ascontiguousarray(np.take_along_axis(np.asarray(a), P, axis=1))

    return ConfigurationSample(
        config_id=sample.config_id, levels=dict(sample.levels),
        alternatives=sample.alternatives, conditions=sample.conditions,
        rankings=take(sample.rankings), scores=take(sample.scores),
        imputed=take(sample.imputed))


#: up to this many conditions the baseline's MMD_n values come from the kernel matrices on
#: the conditions themselves, with the count differences of each pair shared by the kernels
_NULL_DENSE_MAX: int = 128


def _count_differences(IX: np.ndarray, IY: np.ndarray, N: int) -> np.ndarray:
    """(rep, N): +1 for each condition of the first sample of a pair, -1 of the second."""
    rep, n = IX.shape
    idx = np.concatenate((IX, IY), axis=1) + (np.arange(rep, dtype=np.int64) * N)[:, None]
    w = np.tile(np.concatenate((np.ones(n), -np.ones(n))), rep)
    return np.bincount(idx.ravel(), weights=w, minlength=rep * N).reshape(rep, N)


def _baseline_support(kernel: Kernel, data: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(K, inverse, counts) of the exchanged results: on the kernel's classes for kernels
    that merge results (Jaccard, Borda: few classes), on every condition for the others
    (Mallows, RBF: exchanged rows are almost never equal, so looking for equal rows costs
    more than it saves; a repeated row is a repeated support point, the same MMD)."""
    if type(kernel)._class_key is not Kernel._class_key:
        return kernel_support(kernel, data)
    N = data.shape[0]
    return kernel.gram(data), np.arange(N, dtype=np.int64), np.ones(N, dtype=np.int64)


def _default_alternative(kernel: Kernel, study: Study) -> Kernel:
    """``Borda()`` with a* left out -> Borda of the study's best alternative on average."""
    from .kernels import Borda

    if isinstance(kernel, Borda) and kernel.alternative is None:
        import dataclasses

        return dataclasses.replace(kernel, alternative=best_alternative(study))
    return kernel


def score_thresholds(study: Study, deltas: float | Sequence[float] = config.DELTAS,
                     kernel: Kernel | None = None, configurations: Sequence | None = None
                     ) -> pl.DataFrame:
    """What delta* of the RBF question means in the target's units, per configuration.

    Two single results are within delta* of each other under :class:`~genexpy_nb.RBF` when
    their score vectors differ by at most ``rms = s sqrt(delta*)`` root mean square per
    alternative, ``s`` the configuration's spread (:meth:`RBF.spread
    <genexpy_nb.kernels.RBF.spread>`; 1 for ``RBF(scale="raw")``, the paper's definition,
    where delta* is in the target's units already).

    Parameters
    ----------
    study : Study
    deltas : delta* values (default the grid 0.01 ... 0.3)
    kernel : an RBF kernel (default ``RBF()``)
    configurations : optional subset

    Returns
    -------
    polars.DataFrame
        One row per configuration x delta*: config_id, the design factors, kernel_label,
        scale ("spread" or "raw"), delta, spread (``s``, in the target's units), rms (the
        threshold in the target's units), meaning (one sentence to print). spread and rms
        are NaN for a configuration with a single condition or identical score vectors.

    Examples
    --------
    >>> score_thresholds(study, 0.05)["meaning"][0]  # doctest: +SKIP
    'scores agree within 0.022 RMS per alternative (0.22 x the spread 0.1 of cv_score)'
    """
    from .kernels import RBF

    if not isinstance(study, Study):
        raise GenexpyInputError("study must be a genexpy_nb.Study.")
    k = RBF() if kernel is None else kernel
    if not isinstance(k, RBF):
        raise GenexpyInputError(
            f"score_thresholds is about the RBF question (on scores); got {k!r}. The "
            "ranking kernels' delta* is a fraction already (of discordant pairs, ...).")
    k = k.resolve(study.na, study.alternatives)
    d_arr = _distinct(as_float_grid("deltas", deltas))
    for d in d_arr:
        k.check_delta(float(d))
    cids = (sorted(smp.config_id for smp in study.samples()) if configurations is None
            else list(dict.fromkeys(study.config_id(c) for c in configurations)))
    rows: dict[str, list] = {c: [] for c in ("config_id", "spread", "delta", "rms",
                                             "meaning")}
    for cid in cids:
        scores = study.sample(cid).scores
        spread = k.spread(scores)
        # one condition, or all alike: no spread to read delta* in (the kernel is 1 anyway)
        undefined = k.scale != "raw" and (scores.shape[0] < 2
                                          or bool(np.all(scores == scores[:1])))
        if undefined:
            spread = math.nan
        for d in d_arr:
            rms = float(k.threshold(float(d), spread))
            if undefined:
                rows["config_id"].append(cid)
                rows["spread"].append(spread)
                rows["delta"].append(float(d))
                rows["rms"].append(rms)
                rows["meaning"].append(
                    "undefined: the scores of a single condition, or of identical ones, "
                    "have no spread to read delta* in")
                continue
            if k.scale == "raw":
                why = (f"delta* = {d:g} in the units of {study.target} (the paper's "
                       "definition)")
            else:
                why = (f"{math.sqrt(d):.2g} x the spread {spread:.3g} of {study.target}")
            rows["config_id"].append(cid)
            rows["spread"].append(spread)
            rows["delta"].append(float(d))
            rows["rms"].append(rms)
            rows["meaning"].append(f"scores agree within {rms:.3g} RMS per alternative "
                                   f"({why})")
    out = pl.DataFrame(rows, schema={"config_id": pl.UInt32, "spread": pl.Float64,
                                     "delta": pl.Float64, "rms": pl.Float64,
                                     "meaning": pl.String})
    levels = study.configurations.select(["config_id", *study.design])
    out = out.join(levels, on="config_id", how="left")
    return out.select("config_id", *study.design,
                      pl.lit(k.label).alias("kernel_label"), pl.lit(k.scale).alias("scale"),
                      "delta", "spread", "rms", "meaning")


class GeneralizabilityAnalysis:
    """All configurations x kernels of a study: cached MMD_n distributions and n*.

    Parameters
    ----------
    study : Study
    kernels : list of Kernel (unresolved is fine; each is resolved for the study)
    rep : resampled pairs per sample size (default 200)
    seed : int; the same seed gives the same result. Each configuration draws from its own
        stream ``SeedSequence([seed, config_id])``, so analysing a subset of the
        configurations gives the same numbers for them.
    disjoint, replace : resampling mode (paper Sec. 4.5); default the paper's "realistic" one
    grid : None (n = 2, 4, ... < N // 2), a callable ``N -> sizes``, or a sequence of sizes
        (sizes the mode cannot draw for a configuration are skipped there)
    configurations : optional subset of configuration ids (or level tuples/dicts)
    n_jobs : numba threads (None = all cores)
    progress : show a progress bar over configurations
    null : also resample the no-signal baseline (default True): every configuration once
        more with its scores exchanged at random among the alternatives within each
        condition (:func:`exchange_scores`), with the same pairs of samples; :meth:`nstar`
        then reports ``nstar_null`` and its band. False skips it (less than half the cost).
    """

    def __init__(
        self,
        study: Study,
        kernels: Sequence[Kernel],
        *,
        rep: int = config.REP,
        seed: int = 0,
        disjoint: bool = True,
        replace: bool = False,
        grid: Sequence[int] | Callable[[int], np.ndarray] | None = None,
        configurations: Sequence | None = None,
        n_jobs: int | None = None,
        progress: bool = True,
        null: bool = True,
    ) -> None:
        if not isinstance(study, Study):
            raise GenexpyInputError("study must be a genexpy_nb.Study.")
        if not isinstance(null, (bool, np.bool_)):
            raise GenexpyInputError(f"null must be True or False, got {null!r}.")
        self.null = bool(null)
        if isinstance(kernels, Kernel):
            kernels = [kernels]
        kernels = list(kernels)
        if not kernels:
            raise GenexpyInputError("give at least one kernel, e.g. [Jaccard(k=1), Mallows()].")
        for k in kernels:
            if not isinstance(k, Kernel):
                raise GenexpyInputError(
                    f"kernels must be Kernel objects (Jaccard(), Mallows(), Borda('a'), RBF()),"
                    f" got {k!r}; strings can be parsed with genexpy_nb.parse_kernel."
                )
        self.study = study
        # Borda() with a* left out: a* is the best alternative on average, chosen from the
        # data; the baseline chooses it again, from the exchanged scores
        self._chosen_alternative = [isinstance(k, Borda) and k.alternative is None
                                    for k in kernels]
        kernels = [_default_alternative(k, study) for k in kernels]
        self.kernels = [k.resolve(study.na, study.alternatives) for k in kernels]
        check_question(self.kernels, study.na)
        labels = [k.label for k in self.kernels]
        if len(set(labels)) != len(labels):
            raise GenexpyInputError(f"the same kernel is given twice: {labels}.")
        self.rep = check_positive_int("rep", rep, minimum=2)
        if (seed is None or isinstance(seed, bool) or not isinstance(seed, (int, np.integer))
                or seed < 0):
            raise GenexpyInputError(f"seed must be a non-negative integer, got {seed!r}.")
        self.seed = int(seed)
        self.disjoint = bool(disjoint)
        self.replace = bool(replace)
        self.mode = MODES[(self.disjoint, self.replace)]
        self.grid = grid
        def grid_fn(N: int) -> np.ndarray:
            return _resolve_grid(grid, N, self.disjoint, self.replace)

        self.min_N = _min_N_for_two_points(grid_fn)
        self.min_N3 = _min_N_for_points(grid_fn, MIN_GRID_POINTS)
        ids = (sorted(s.config_id for s in study.samples()) if configurations is None
               else [study.config_id(c) for c in configurations])
        self.config_ids = ids
        check_rep_memory(self.rep, [study.sample(c).N for c in ids], grid_fn, len(kernels))
        self.dists: dict[int, ConfigDistributions] = {}
        self._exchanged: dict[int, ConfigurationSample] = {}
        self.null_kernels = self._baseline_kernels() if self.null and ids else None
        # many small BLAS products: one BLAS thread (our own threads split large work)
        from ._numba import one_blas_thread, threads

        with threads(n_jobs) as nthreads, one_blas_thread():
            self.n_jobs = nthreads
            if progress and len(ids) >= 2:
                from tqdm.auto import tqdm

                ids_iter = tqdm(ids, desc="MMD distributions", unit="config", leave=False)
            else:
                ids_iter = ids
            for cid in ids_iter:
                self.dists[cid] = self._compute(study.sample(cid), grid_fn)

    def _compute(self, s: ConfigurationSample, grid_fn) -> ConfigDistributions:
        ns = grid_fn(s.N)
        rng = child_seed(self.seed, s.config_id)
        nk = len(self.kernels)
        out = np.empty((nk, ns.size, self.rep))
        # each kernel on its own support (results with identical kernel rows are merged),
        # its matrix computed once per configuration and reused for every n of the grid
        sups = [kernel_support(k, s.data_for(k)) for k in self.kernels]
        null_out = null_sups = None
        if self.null:
            s0 = self._exchanged_sample(s)
            # scores are exchanged as the kernel sees them: RBF's in the configuration's own
            # unit (its spread), so that delta* means the same threshold in the target's
            # units for the study and its baseline (a spread of the exchanged scores would be
            # larger wherever an alternative stands out, and hide it)
            P = _exchange_permutations(s, self.seed)
            null_sups = [_baseline_support(k, np.take_along_axis(s.data_for(k), P, axis=1)
                                           if k.on == "scores" else s0.data_for(k))
                         for k in self.null_kernels]
            keep = _null_sizes(ns.size)
            slot = np.full(ns.size, -1)
            slot[keep] = np.arange(keep.size)
            null_out = np.empty((nk, keep.size, self.rep))
            # small studies: every kernel's matrix on the N conditions, and the count
            # differences of a pair computed once for all kernels (few NumPy calls per n)
            dense = ([K[inv][:, inv] for K, inv, _ in null_sups]
                     if s.N <= _NULL_DENSE_MAX else None)
        for j, n in enumerate(ns):
            # the same pairs serve every kernel (common random numbers), and the baseline
            IX, IY = draw_pairs(s.N, int(n), self.rep, disjoint=self.disjoint,
                                replace=self.replace, seed=rng)
            for q, (K, inv, _) in enumerate(sups):
                out[q, j, :] = mmd_from_pairs(K, inv, IX, IY)
            if null_sups is not None and slot[j] >= 0:
                if dense is not None:
                    C = _count_differences(IX, IY, s.N)
                    for q, Kc in enumerate(dense):
                        v = np.einsum("ri,ri->r", C @ Kc, C) / float(n * n)
                        null_out[q, slot[j], :] = np.sqrt(np.maximum(v, 0.0))
                else:
                    for q, (K, inv, _) in enumerate(null_sups):
                        null_out[q, slot[j], :] = mmd_from_pairs(K, inv, IX, IY)
        return ConfigDistributions(s, self.kernels, ns, out, sups, null_mmd=null_out,
                                   null_supports=null_sups,
                                   null_ns=None if null_sups is None else ns[keep])

    def _exchanged_sample(self, s: ConfigurationSample) -> ConfigurationSample:
        """The configuration with its scores exchanged (:func:`exchange_scores`), cached."""
        cid = s.config_id
        if cid not in self._exchanged:
            self._exchanged[cid] = exchange_scores(s, self.seed)
        return self._exchanged[cid]

    def _baseline_kernels(self) -> list[Kernel]:
        """The kernels of the baseline: the analysis' own, except that a* of a ``Borda()``
        left to the data is chosen again, the best on average over the exchanged scores of
        every configuration (the same choice, made on data without signal)."""
        if not any(self._chosen_alternative):
            return self.kernels
        total = np.zeros(self.study.na)
        count = 0
        for smp in self.study.samples():
            r = self._exchanged_sample(smp).rankings
            total += r.sum(axis=0)
            count += r.shape[0]
        best = str(self.study.alternatives[int(np.argmin(total / max(count, 1)))])
        import dataclasses

        return [dataclasses.replace(k, alternative=best).resolve(self.study.na,
                                                                 self.study.alternatives)
                if chosen else k
                for k, chosen in zip(self.kernels, self._chosen_alternative, strict=True)]

    def score_thresholds(self, deltas: float | Sequence[float] = config.DELTAS
                         ) -> pl.DataFrame:
        """delta* of every RBF question of the analysis in the target's units, for every
        configuration analysed (:func:`score_thresholds`); empty without an RBF kernel."""
        parts = [score_thresholds(self.study, deltas, k, self.config_ids)
                 for k in self.kernels if k.name == "rbf"]
        if not parts:
            return score_thresholds(self.study, deltas, configurations=[]).clear()
        return pl.concat(parts, how="vertical")

    def _degenerate(self, cd: ConfigDistributions, q: int) -> str | None:
        """Why the kernel matrix of kernel ``q`` cannot discriminate on this configuration
        (RBF only, :func:`~genexpy_nb.kernels.rbf_degeneracy`), or None."""
        if q not in cd.degenerate:
            why = None
            if self.kernels[q].name == "rbf":
                K, _, counts = cd.supports[q]
                why = rbf_degeneracy(K, counts)
            cd.degenerate[q] = why
        return cd.degenerate[q]

    # ----------------------------------------------------------------------------------
    def kernel_index(self, kernel: Kernel | str | int) -> int:
        """Position of a kernel given as object, label or name."""
        if isinstance(kernel, (int, np.integer)) and not isinstance(kernel, bool):
            if not 0 <= int(kernel) < len(self.kernels):
                raise GenexpyInputError(f"kernel index {kernel} out of range.")
            return int(kernel)
        labels = [k.label for k in self.kernels]
        names = [k.name for k in self.kernels]
        if isinstance(kernel, Kernel):
            kernel = _default_alternative(kernel, self.study)
            key = kernel.resolve(self.study.na, self.study.alternatives).label
            if key in labels:
                return labels.index(key)
        elif isinstance(kernel, str):
            if kernel in labels:
                return labels.index(kernel)
            if names.count(kernel.lower()) == 1:
                return names.index(kernel.lower())
        raise GenexpyInputError(f"kernel {kernel!r} is not in this analysis; it has {labels}.")

    def _terms(self, cd: ConfigDistributions, q: int, centring: str) -> ApproxTerms:
        key = (q, centring)
        if key not in cd.approx:
            k = self.kernels[q]
            data = cd.sample.data_for(k)
            K = cd.supports[q][0]
            # the closed form works on the distinct results (the paper's support); reuse the
            # cached matrix when the kernel's support is those distinct results, in the same
            # order (kernels that merge nothing: Mallows, RBF)
            same = type(k)._class_key is Kernel._class_key
            cd.approx[key] = approx_terms(data, k, centring, gram=K if same else None)
        return cd.approx[key]

    def mmd_samples(self, config, kernel) -> tuple[np.ndarray, np.ndarray]:
        """(ns (k,), MMD samples (k, rep)) of one configuration and kernel."""
        cd = self.dists[self._cid(config)]
        return cd.ns, cd.mmd[self.kernel_index(kernel)]

    def _cid(self, config) -> int:
        cid = self.study.config_id(config)
        if cid not in self.dists:
            raise GenexpyInputError(f"configuration {config!r} was not analysed.")
        return cid

    def nstar(
        self,
        alphas: float | Sequence[float] = config.ALPHAS,
        deltas: float | Sequence[float] = config.DELTAS,
        methods: Sequence[str] = METHODS,
        configurations: Sequence | None = None,
        kernels: Sequence | None = None,
        *,
        interval: bool = True,
        level: float = INTERVAL_LEVEL,
        fit: str = "joint",
        null: bool | None = None,
        null_level: float = NULL_LEVEL,
    ) -> pl.DataFrame:
        """n* for every configuration x kernel x alpha* x delta* x method, as a tidy frame.

        Parameters
        ----------
        alphas, deltas : thresholds alpha*, delta* (every combination gets a row; a value
            given twice counts once)
        methods : subset of :data:`METHODS`
        configurations, kernels : optional subsets
        interval : add ``nstar_lo``, ``nstar_hi`` for the resampled method (see Notes)
        level : level of that interval (default 0.90)
        fit : "joint" (default): one power-law slope shared by the quantile curves of the
            alpha* levels :data:`SLOPE_ALPHAS` (and the requested ones use it), which makes
            n* non-decreasing in alpha*; "separate": one fit per alpha*, as in the paper
            (n* can then go down when alpha* goes up)
        null : add the no-signal baseline (``nstar_null``, ``nstar_null_lo``,
            ``nstar_null_hi``, ``beyond_chance``; see Notes). Default: when the analysis was
            built with ``null=True`` (its default)
        null_level : level of the band of the baseline (default 0.99)

        Returns
        -------
        Columns: config_id, the design factors, kernel, kernel_label, alpha, delta, eps, N,
        method, nstar, nstar_lo, nstar_hi, nstar_ceil, generalizable (N >= ceil(n*); null
        when the estimate is not to be trusted), deficit (nstar_ceil - N), reliable,
        b0, b1, r2 (resample fit), nstar_null, nstar_null_lo, nstar_null_hi, beyond_chance,
        reason (why n* is 1, undefined or unreliable).

        Notes
        -----
        The interval adds, in quadrature on each side of ``log n*``, (i) how much the
        closed-form n* of Appendix C moves when the N conditions are resampled with
        replacement (:data:`INTERVAL_B` resamples; its relative spread is carried over to the
        resampled estimate) and (ii) the standard error of the fitted line at ``log eps*``
        (the Monte Carlo noise of the ``rep`` resampled pairs). Its coverage of the true n*,
        checked by simulation against bootstrapping the whole estimate and against
        subsampling, is in ``notebooks/09_how_sure_is_nstar.ipynb``.

        Trust rules, the same for every method: fewer than :attr:`min_N3` conditions (the
        fewest for a power law through three sample sizes; 14 with the default grid) make
        the closed forms as unreliable as the resampled fit, so N = 2 never gives a verdict;
        a degenerate RBF kernel matrix (:func:`~genexpy_nb.kernels.rbf_degeneracy`) makes
        every method's n* unreliable; the distribution-free bound is a worst case, never the
        verdict (``reliable`` false, ``generalizable`` null, the reason says so).

        **The no-signal baseline** (beyond the paper). ``nstar_null`` is the n* the same
        study would have if no alternative were systematically better: every configuration
        is analysed once more with its results exchanged at random among the alternatives
        within each condition (:func:`exchange_scores`; one permutation per condition, from
        the configuration's own stream), with the same resampled pairs, the same fit and, for
        ``Borda()`` with a* left to the data, a* chosen again from the exchanged scores.
        ``[nstar_null_lo, nstar_null_hi]`` is the range the study's own n* falls in by
        chance: the baseline's interval (computed as ``nstar_lo``/``nstar_hi``, at
        ``null_level``) widened by sqrt 2 on the log scale, because the user's n* and the
        baseline are two estimates that vary alike. ``beyond_chance`` is true when n* lies
        below that range (the answer is more consistent than exchanged scores make it),
        false when within or above, null when either is undefined. Given for the resampled
        method (the verdict's); NaN for the closed forms and the bound.
        """
        if null is None:
            null = self.null
        elif null and not self.null:
            raise GenexpyInputError(
                "this analysis was built with null=False: build it with null=True (the "
                "default) for the no-signal baseline.")
        cols = self._nstar_columns(alphas, deltas, methods, configurations, kernels,
                                   interval=interval, level=level, fit=fit, null=bool(null),
                                   null_level=null_level)
        return self._nstar_frame(cols, interval, bool(null))

    def _nstar_columns(self, alphas, deltas, methods, configurations=None, kernels=None, *,
                       interval: bool = True, level: float = INTERVAL_LEVEL,
                       fit: str = "joint", null: bool | None = None,
                       null_level: float = NULL_LEVEL) -> dict:
        """The columns of :meth:`nstar` before the frame is built (arrays and lists)."""
        null = self.null if null is None else bool(null) and self.null
        a_arr = as_float_grid("alphas", alphas, unique=True)
        for a in a_arr:
            check_probability("alpha", a)
        d_arr = as_float_grid("deltas", deltas, unique=True)
        methods = list(dict.fromkeys([methods] if isinstance(methods, str) else methods))
        check_memory("alphas x deltas", a_arr.size * d_arr.size, what="the rows of the n* frame",
                     per_unit=400.0 * max(1, len(methods)) * len(self.kernels if kernels is None
                                                                 else kernels)
                     * len(self.config_ids if configurations is None else configurations))
        bad = [m for m in methods if m not in METHODS]
        if bad:
            raise GenexpyInputError(f"unknown method(s) {bad}; choose from {list(METHODS)}.")
        methods = list(dict.fromkeys(methods))
        if fit not in ("joint", "separate"):
            raise GenexpyInputError(f"fit must be 'joint' or 'separate', got {fit!r}.")
        for nm, lv in (("level", level), ("null_level", null_level)):
            lv = check_probability(nm, lv)
            if not 0.0 < lv < 1.0:
                raise GenexpyInputError(f"{nm} must be strictly between 0 and 1, got {lv}.")
        level, null_level = float(level), float(null_level)
        qidx = (range(len(self.kernels)) if kernels is None
                else list(dict.fromkeys(self.kernel_index(k) for k in kernels)))
        eps_by_k = {q: np.asarray(self.kernels[q].eps(d_arr), dtype=np.float64).reshape(-1)
                    for q in qidx}
        cids = (self.config_ids if configurations is None
                else list(dict.fromkeys(self._cid(c) for c in configurations)))
        names = [k.name for k in self.kernels]
        labels = [k.label for k in self.kernels]
        na_, nd_ = a_arr.size, d_arr.size
        A = np.repeat(a_arr, nd_)  # alpha-major grid of (alpha, delta)
        D = np.tile(d_arr, na_)
        blocks: list[dict] = []
        min_N3 = self.min_N3

        def block(cid, q, N, method, nstar, b0=None, b1=None, r2=None, reason=None,
                  reliable=None, lo=None, hi=None, null0=None, null_lo=None, null_hi=None):
            size = A.size
            nan = np.full(size, np.nan)
            nstar = np.asarray(nstar, dtype=np.float64)
            reason = [None] * size if reason is None else list(reason)
            reliable = np.ones(size, dtype=bool) if reliable is None else np.asarray(reliable)
            if N < 2:  # one condition: nothing can be said to generalize (any method)
                why = ("a single experimental condition (N = 1) cannot show that a result "
                       "generalizes: run more conditions")
                reason = [why] * size
                reliable = np.zeros(size, dtype=bool)
                if method != "bound":  # the bound does not depend on the data
                    nstar = nan
                lo = hi = null0 = null_lo = null_hi = None
            blocks.append({
                "config_id": np.full(size, cid, dtype=np.uint32),
                "kernel": [names[q]] * size, "kernel_label": [labels[q]] * size,
                "alpha": A, "delta": D, "eps": np.tile(eps_by_k[q], na_),
                "N": np.full(size, N, dtype=np.int64), "method": [method] * size,
                "nstar": nstar,
                "nstar_lo": nan if lo is None else lo, "nstar_hi": nan if hi is None else hi,
                "b0": nan if b0 is None else b0, "b1": nan if b1 is None else b1,
                "r2": nan if r2 is None else r2,
                "reason": reason, "reliable": reliable,
                "nstar_null": nan if null0 is None else null0,
                "nstar_null_lo": nan if null_lo is None else null_lo,
                "nstar_null_hi": nan if null_hi is None else null_hi,
            })

        baseline = {}
        if null and "resample" in methods:
            # the baselines first, all under one BLAS thread (many small products)
            from ._numba import one_blas_thread

            with one_blas_thread():
                for cid in cids:
                    for q in qidx:
                        baseline[cid, q] = self._null_rows(self.dists[cid], q, a_arr,
                                                           eps_by_k[q], fit, min_N3,
                                                           null_level)
        for cid in cids:
            cd = self.dists[cid]
            N = cd.sample.N
            for q in qidx:
                eps = eps_by_k[q]
                k = self.kernels[q]
                degenerate = self._degenerate(cd, q)
                if "resample" in methods:
                    rows = self._resample_rows(cd, q, a_arr, eps, interval, level, fit,
                                               min_N3)
                    rows.update(baseline.get((cid, q), {}))
                    if degenerate:
                        rows["reason"] = [_unreliable(r, degenerate) for r in rows["reason"]]
                        rows["reliable"] = np.zeros(A.size, dtype=bool)
                    block(cid, q, N, "resample", **rows)
                for m, centring in (("approx", "uniform"), ("approx_weighted", "weighted")):
                    if m not in methods:
                        continue
                    terms = self._terms(cd, q, centring)
                    vals = [approx_nstar(terms, float(a), float(e))
                            for a in a_arr for e in eps]
                    reason = [why for _, why in vals]
                    reliable = np.ones(A.size, dtype=bool)
                    # the trust rules of the resampled method (paper Sec. 4.5, SPEC A12)
                    # hold for the closed form too: below N = min_N no estimate; below
                    # min_N3 only "all results identical" (n* = 1); a degenerate matrix
                    few = None
                    if N < self.min_N or (N < min_N3 and not terms.degenerate):
                        few = (f"the closed form on N = {N} conditions only: as the resampled "
                               f"estimate, it needs at least N = {min_N3} (the fewest for a "
                               f"power law through {MIN_GRID_POINTS} sample sizes; N = "
                               f"{self.min_N} when all results are identical) before its n* "
                               "is a verdict")
                    for why in (few, degenerate):
                        if why:
                            reason = [_unreliable(r, why) for r in reason]
                            reliable[:] = False
                    block(cid, q, N, m, [v for v, _ in vals], reason=reason,
                          reliable=reliable)
                if "bound" in methods:
                    block(cid, q, N, "bound", [bound_nstar(float(a), float(e), k.kappa_sup)
                                               for a in a_arr for e in eps],
                          reason=[BOUND_REASON] * A.size,
                          reliable=np.zeros(A.size, dtype=bool))
        return concat_columns(blocks, NSTAR_SCHEMA)

    def _nstar_frame(self, cols: dict, interval: bool = True, null: bool | None = None
                     ) -> pl.DataFrame:
        """The frame of :meth:`nstar` from :meth:`_nstar_columns`."""
        null = self.null if null is None else bool(null) and self.null
        frame = pl.DataFrame(cols, schema=NSTAR_SCHEMA)
        frame = frame.with_columns(NSTAR_CEIL.alias("nstar_ceil")).with_columns(
            pl.when(pl.col("reliable")).then(pl.col("N") >= pl.col("nstar_ceil"))
            .alias("generalizable"),
            (pl.col("nstar_ceil") - pl.col("N")).alias("deficit"),
            BEYOND_CHANCE.alias("beyond_chance"),
        )
        levels = self.study.configurations.select(["config_id", *self.study.design])
        frame = frame.join(levels, on="config_id", how="left")
        order = ["config_id", *self.study.design, "kernel", "kernel_label", "alpha", "delta",
                 "eps", "N", "method", "nstar", "nstar_lo", "nstar_hi", "nstar_ceil",
                 "generalizable", "deficit", "reliable", "b0", "b1", "r2", *NULL_COLUMNS,
                 "reason"]
        if not interval:
            order = [c for c in order if c not in ("nstar_lo", "nstar_hi")]
        if not null:
            order = [c for c in order if c not in NULL_COLUMNS]
        return frame.select(order)

    def _quantile_fits(self, ns: np.ndarray, mmd: np.ndarray, a_arr: np.ndarray,
                       eps: np.ndarray, fit: str, min_N3: int):
        """Fits of one kernel's MMD_n samples (k, rep): (fits[a][d], Q, rows, pfit)."""
        na_ = a_arr.size
        pfit = None
        if not ns.size:
            fits = _fits_from_quantiles(ns, np.zeros((na_, 0)), np.ones(na_, dtype=bool),
                                        eps, self.min_N, min_N3)
            return fits, None, None, None
        if fit == "joint":
            Q, rows = _resampled_quantile_curves(mmd, a_arr)
            if ns.size >= 2:  # shared by the fits and the interval
                pfit = power_law_fit(ns, Q, rows)
            fits = _fits_from_quantiles(ns, Q, rows, eps, self.min_N, min_N3,
                                        pfit=pfit)[:na_]
        else:
            Q = np.atleast_2d(mmd_quantile(mmd, a_arr))
            rows = np.ones(na_, dtype=bool)
            fits = [_fits_from_quantiles(ns, Q[i:i + 1], rows[:1], eps, self.min_N,
                                         min_N3)[0] for i in range(na_)]
        return fits, Q, rows, pfit

    def _resample_rows(self, cd: ConfigDistributions, q: int, a_arr: np.ndarray,
                       eps: np.ndarray, interval: bool, level: float, fit: str,
                       min_N3: int) -> dict:
        """The resampled n* of one configuration and kernel, alpha-major, with its
        interval."""
        na_, nd_ = a_arr.size, eps.size
        ns = cd.ns
        fits, Q, rows, pfit = self._quantile_fits(ns, cd.mmd[q], a_arr, eps, fit, min_N3)
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
                K, inv, _ = cd.supports[q]
                counts = np.bincount(inv, minlength=K.shape[0]).astype(np.float64)
                rng = child_seed(self.seed, cd.sample.config_id, 1 + q)
                lo, hi = _nstar_interval(ns, Q, rows, nst, eps, K, counts, a_arr, rng, level,
                                         joint=fit == "joint", pfit=pfit)
            out["lo"] = lo.ravel()
            out["hi"] = hi.ravel()
        return out

    def _null_rows(self, cd: ConfigDistributions, q: int, a_arr: np.ndarray,
                   eps: np.ndarray, fit: str, min_N3: int, null_level: float) -> dict:
        """The no-signal baseline of one configuration and kernel, alpha-major, with its
        band (empty without baseline distributions)."""
        na_, nd_ = a_arr.size, eps.size
        out: dict = {}
        if cd.null_mmd is not None:
            ns0 = cd.null_ns
            nst0, Q0, rows0, pfit0 = _nstar_values(ns0, cd.null_mmd[q], a_arr, eps, fit)
            if Q0 is None:
                lo0 = hi0 = np.full((na_, nd_), np.nan)
            else:
                K0, inv0, _ = cd.null_supports[q]
                counts0 = np.bincount(inv0, minlength=K0.shape[0]).astype(np.float64)
                rng0 = child_seed(self.seed, cd.sample.config_id, NULL_KEY, 1 + q)
                lo0, hi0 = _null_band(ns0, Q0, rows0, nst0, eps, K0, counts0, a_arr, rng0,
                                      null_level, joint=fit == "joint", pfit=pfit0)
            out["null0"] = nst0.ravel()
            out["null_lo"] = lo0.ravel()
            out["null_hi"] = hi0.ravel()
        return out

    # ---- frames for charts -----------------------------------------------------------
    def mmd_frame(self, config, kernel) -> pl.DataFrame:
        """Tidy MMD_n samples of one configuration and kernel: (n, mmd)."""
        ns, x = self.mmd_samples(config, kernel)
        return pl.DataFrame({"n": np.repeat(ns, x.shape[1]).astype(np.int64),
                             "mmd": x.ravel()})

    def ngen_frame(self, config, kernel, eps: Sequence[float] | None = None) -> pl.DataFrame:
        """n-generalizability as a function of eps for every n of the grid: (n, eps, ngen)."""
        ns, x = self.mmd_samples(config, kernel)
        k = self.kernels[self.kernel_index(kernel)]
        e = (np.linspace(0.0, k.mmd_max, 101) if eps is None
             else as_float_grid("eps", eps))
        g = ngen(x, e) if ns.size else np.zeros((0, e.size))
        return pl.DataFrame({
            "n": np.repeat(ns, e.size).astype(np.int64),
            "eps": np.tile(e, ns.size),
            "ngen": np.asarray(g).ravel(),
        })

    def quantile_frame(self, config, kernel, alpha: float = config.HEADLINE_ALPHA
                       ) -> pl.DataFrame:
        """alpha-quantiles of MMD_n over the grid with the closed-form ones: (n, q, q_approx)."""
        ns, x = self.mmd_samples(config, kernel)
        cd = self.dists[self._cid(config)]
        terms = self._terms(cd, self.kernel_index(kernel), "uniform")
        q = mmd_quantile(x, float(alpha)) if ns.size else np.zeros(0)
        return pl.DataFrame({"n": ns.astype(np.int64), "q": np.asarray(q, dtype=np.float64),
                             "q_approx": approx_quantile(terms, float(alpha), ns)})

    def centring_comparison(self, alpha: float = config.HEADLINE_ALPHA) -> pl.DataFrame:
        """Which centring of the approximation is closer to the resampled quantiles.

        For every configuration and kernel with a grid, the mean absolute log-ratio between
        the approximate and the resampled alpha-quantiles of MMD_n, for both centrings.
        """
        rows = []
        for cid, cd in self.dists.items():
            if not cd.ns.size:
                continue
            for q, k in enumerate(self.kernels):
                qs = mmd_quantile(cd.mmd[q], float(alpha))
                row = {"config_id": cid, "kernel": k.name, "kernel_label": k.label}
                for centring in ("uniform", "weighted"):
                    t = self._terms(cd, q, centring)
                    qa = approx_quantile(t, float(alpha), cd.ns)
                    ok = (qs > 0) & (qa > 0)
                    row[f"log_error_{centring}"] = (float(np.abs(np.log(qa[ok] / qs[ok])).mean())
                                                   if ok.any() else math.nan)
                rows.append(row)
        df = pl.DataFrame(rows)
        if df.height:
            df = df.with_columns(
                pl.when(pl.col("log_error_weighted") < pl.col("log_error_uniform"))
                .then(pl.lit("weighted")).otherwise(pl.lit("uniform")).alias("closer")
            )
        return df


def analyze(
    study: Study,
    kernels: Sequence[Kernel],
    *,
    alphas: float | Sequence[float] = config.ALPHAS,
    deltas: float | Sequence[float] = config.DELTAS,
    methods: Sequence[str] = METHODS,
    rep: int = config.REP,
    seed: int = 0,
    disjoint: bool = True,
    replace: bool = False,
    grid=None,
    n_jobs: int | None = None,
    progress: bool = True,
    client=None,
    interval: bool = True,
    level: float = INTERVAL_LEVEL,
    fit: str = "joint",
    null: bool = True,
    null_level: float = NULL_LEVEL,
) -> pl.DataFrame:
    """The whole study in one call: configurations x kernels x alpha* x delta* x methods.

    See :class:`GeneralizabilityAnalysis` for the parameters and
    :meth:`GeneralizabilityAnalysis.nstar` for ``interval`` (the columns ``nstar_lo``,
    ``nstar_hi``: a ``level`` interval of the resampled n*, default 90 %), ``fit``,
    ``null`` (the no-signal baseline: ``nstar_null``, ``nstar_null_lo``, ``nstar_null_hi``,
    ``beyond_chance``; ``null=False`` leaves it out), ``null_level`` and the columns of the
    returned frame.
    ``client`` (needs ``genexpy_nb[cluster]``): a ``dask.distributed`` Client, scheduler
    address, cluster object or ``"local"``; chunks of configurations then run as tasks on the
    cluster (``n_jobs`` numba threads per task, default 1), with the same result, bit for bit
    (each configuration has its own random stream; the cluster computes the default
    ``level`` and ``fit``).

    Examples
    --------
    >>> res = analyze(study, [Jaccard(k=1), Mallows()], alphas=0.95, deltas=0.05)  # doctest: +SKIP
    """
    if client is not None:  # genexpy_nb[cluster]: chunks of configurations on the workers
        from .distributed import analyze_on_cluster

        if level != INTERVAL_LEVEL or fit != "joint" or null_level != NULL_LEVEL:
            raise GenexpyInputError(
                "with client=, analyze uses the default level (0.9), fit ('joint') and "
                "null_level (0.99); run without client= for other values.")
        res = analyze_on_cluster(client, study, kernels, alphas=alphas, deltas=deltas,
                                 methods=methods, rep=rep, seed=seed, disjoint=disjoint,
                                 replace=replace, grid=grid, n_jobs=n_jobs, progress=progress,
                                 null=null)
        return res if interval else res.drop("nstar_lo", "nstar_hi")
    ga = GeneralizabilityAnalysis(study, kernels, rep=rep, seed=seed, disjoint=disjoint,
                                  replace=replace, grid=grid, n_jobs=n_jobs, progress=progress,
                                  null=null)
    return ga.nstar(alphas, deltas, methods, interval=interval, level=level, fit=fit,
                    null_level=null_level)
