"""Experiments on a *known* distribution of results (paper Sec. 4.5; Sec. 5.3; App. A).

When the distribution ``P`` of experimental results is known (a pmf over rankings with
ties), the number of experiments a study needs can be computed from its definition instead
of estimated, and the package's estimate can be checked against it:

* :func:`mmd_distribution_from_pmf`: samples of MMD_n between two independent samples of
  size n drawn from ``P`` itself (not resampled from a finite study);
* :func:`true_nstar` / :func:`true_nstar_frame`: the true
  ``n* = min {n : nGen(n, eps*) >= alpha*}`` (paper Sec. 4.5, paper eq. 9) by Monte Carlo;
* :func:`estimate_nstar_from_sample`: the package's estimate n̂*_N from N results (a
  rankings matrix; the paper's Algorithm 1 / Theorem 4.1, exactly as
  :class:`~genexpy_nb.GeneralizabilityAnalysis` computes it on a one-configuration study);
* :func:`preliminary_nstar`: n̂*_N from many samples of N results drawn from ``P``
  (paper Section 5.3: how many preliminary experiments are needed);
* :func:`significance_vs_generalizability` and :func:`significance_table`: the toy
  experiment of the paper's Appendix A (Table 1): Friedman and Conover–Iman significance of
  a sample versus its n-generalizability.

Distributions over rankings (the uniform one over all weak orders, sampling from a pmf) are
in :mod:`genexpy_nb.generalizability.distributions`.

References
----------
Matteucci et al., "Generalizability of experimental studies": Definition 4.2, eq. (9),
Section 5.3 (Figure 5) and Appendix A (Table 1, Figure 6).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl

from .. import config
from .. import significance as _sig
from .._progress import tqdm
from .._validation import (
    GenexpyInputError,
    Seed,
    as_float_grid,
    check_positive_int,
    check_probability,
    child_seed,
    first_true,
    require_columns,
    root_seed,
    to_polars,
)
from . import INTERVAL_LEVEL, MIN_GRID_POINTS, check_question, ngen
from .distributions import check_pmf, check_rankings
from .estimate import resample_mmd, resampled_nstar
from .fit import nstar_ceil
from .kernels import Jaccard, Kernel
from .mmd import draw_pairs, kernel_support, mmd_from_pairs
from .ngen import min_N_for_points, min_N_for_two_points, resolve_grid

__all__ = [
    "MAX_SUPPORT",
    "TRUE_REP",
    "SCAN_MAX",
    "mmd_distribution_from_pmf",
    "TrueNStar",
    "true_nstar",
    "true_nstar_frame",
    "estimate_nstar_from_sample",
    "preliminary_nstar",
    "significance_vs_generalizability",
    "significance_table",
]

#: largest support of P, as seen by the kernel, whose kernel matrix is built (5000 classes:
#: 200 MB). Uniform rankings of na = 6 alternatives (4683) fit; na = 7 (47,293) does not
#: for the Mallows kernel, which tells every ranking apart.
MAX_SUPPORT: int = 5000
#: default Monte Carlo pairs per sample size for the true n*: the standard error of
#: nGen(n) near alpha* = 0.95 is sqrt(0.95 * 0.05 / 2000) = 0.0049.
TRUE_REP: int = 2000
#: the true n* is the exact minimum of the Monte Carlo curve up to this n (a scan over every
#: n); above it, bisection between the last n scanned and the first doubling step that
#: reaches alpha* (``exact=False`` in the result).
SCAN_MAX: int = 256
#: width of the Monte Carlo interval of the true n*, in standard errors of nGen
_Z: float = 2.0
#: elements (rows x columns) of one block of random draws, to bound memory
_BLOCK: int = 1 << 22


# ---------------------------------------------------------------------------------------
# input handling
# ---------------------------------------------------------------------------------------
def _resolve_kernels(kernels: Kernel | Sequence[Kernel], na: int) -> list[Kernel]:
    """Kernels resolved for ``na`` alternatives named "0", "1", ... (Borda("2") works)."""
    ks = [kernels] if isinstance(kernels, Kernel) else list(kernels)
    if not ks:
        raise GenexpyInputError("give at least one kernel, e.g. [Jaccard(k=1), Mallows()].")
    names = [str(a) for a in range(na)]
    out = []
    for k in ks:
        if not isinstance(k, Kernel):
            raise GenexpyInputError(
                f"kernels must be Kernel objects (Jaccard(), Mallows(), Borda(0)), got {k!r}."
            )
        if k.on != "rankings":
            raise GenexpyInputError(
                f"{k.label} works on raw scores; a distribution P over rankings needs a "
                "ranking kernel: Borda, Jaccard or Mallows."
            )
        out.append(k.resolve(na, names))
    check_question(out, na)
    labels = [k.label for k in out]
    if len(set(labels)) != len(labels):
        raise GenexpyInputError(f"the same kernel is given twice: {labels}.")
    return out


def _check_grids(kernels: Kernel | Sequence[Kernel], na: int, alpha: Any, delta: Any
                 ) -> tuple[list[Kernel], np.ndarray, np.ndarray]:
    """Return the kernels resolved for ``na`` and the checked grids of alpha* and delta*."""
    ks = _resolve_kernels(kernels, na)
    a = as_float_grid("alpha", alpha)
    for v in a:
        check_probability("alpha", v)
    d = as_float_grid("delta", delta)
    for k in ks:
        for v in d:
            k.check_delta(v)
    return ks, a, d


# ---------------------------------------------------------------------------------------
# MMD_n from a known pmf
# ---------------------------------------------------------------------------------------
class _PmfMMD:
    """MMD_n samples between two i.i.d. samples of size n from a pmf, cached per n.

    The kernel matrix is built once on the kernel's support of P (rankings with identical
    kernel rows merged). For each n the generator ``SeedSequence([seed, n])`` draws the
    pairs, so every kernel sees the same samples of P (common random numbers) and the
    values at n do not depend on which other sizes were evaluated.
    """

    def __init__(self, R: np.ndarray, p: np.ndarray, kernel: Kernel, rep: int, seed: int):
        first, inv, _ = kernel.support(R)
        if first.size > MAX_SUPPORT:
            raise GenexpyInputError(
                f"{kernel.label} distinguishes {first.size:,} rankings of P, more than "
                f"MAX_SUPPORT={MAX_SUPPORT:,} (its kernel matrix would not fit in memory). "
                "Use fewer alternatives or a kernel that merges rankings (Jaccard, Borda)."
            )
        self.R, self.p, self.kernel, self.rep, self.seed = R, p, kernel, rep, seed
        self.K = np.ascontiguousarray(kernel.gram(R[first]), dtype=np.float64)
        self.inv = inv
        self.m = int(first.size)
        # column blocks of the rankings of each class, for the multinomial path
        self._order = np.argsort(inv, kind="stable")
        self._starts = np.searchsorted(inv[self._order], np.arange(self.m))
        self.cache: dict[int, np.ndarray] = {}

    def samples(self, n: int) -> np.ndarray:
        if n not in self.cache:
            self.cache[n] = _pmf_mmd_samples(self, n)
        return self.cache[n]

    def ngen(self, n: int, eps: float) -> float:
        return float(ngen(self.samples(n), eps))


def _pmf_mmd_samples(s: _PmfMMD, n: int) -> np.ndarray:
    """``rep`` values of MMD_n; see :func:`mmd_distribution_from_pmf` for the two paths."""
    rng = child_seed(s.seed, n)
    M = s.R.shape[0]
    out = np.empty(s.rep)
    if n <= M:
        rows = max(1, _BLOCK // (2 * n))
        for r0 in range(0, s.rep, rows):
            r1 = min(s.rep, r0 + rows)
            I2 = rng.choice(M, size=(r1 - r0, 2, n), p=s.p)  # row-major: block-invariant
            out[r0:r1] = mmd_from_pairs(s.K, s.inv, I2[:, 0], I2[:, 1])
        return out
    rows = max(1, _BLOCK // (2 * M))
    for r0 in range(0, s.rep, rows):
        r1 = min(s.rep, r0 + rows)
        C2 = rng.multinomial(n, s.p, size=(r1 - r0, 2))
        D = np.add.reduceat((C2[:, 0] - C2[:, 1])[:, s._order], s._starts,
                            axis=1).astype(np.float64)
        v = np.einsum("rm,rm->r", D @ s.K, D) / float(n) ** 2
        out[r0:r1] = np.sqrt(np.maximum(v, 0.0))
    return out


def mmd_distribution_from_pmf(
    rankings: Any, probs: Sequence[float] | np.ndarray, kernel: Kernel, n: int, *,
    rep: int = TRUE_REP, seed: Seed = 0,
) -> np.ndarray:
    """``rep`` values of MMD_n between two independent samples of size n drawn from P.

    Parameters
    ----------
    rankings : (M, na) int
        The support of P: one ranking with ties per row (0 = best tier, dense).
    probs : (M,) float
        Their probabilities (non-negative, summing to 1).
    kernel : Kernel (Borda, Jaccard or Mallows), resolved here for ``na`` alternatives
        named "0", "1", ...
    n : int
        Sample size, ``n >= 1``.
    rep : int
        Number of independent pairs (default 2000).
    seed : int
        The pairs come from the generator ``SeedSequence([seed, n])``: the same seed gives
        the same values, and two kernels given the same seed see the same samples of P.

    Returns
    -------
    (rep,) float64

    Notes
    -----
    The kernel matrix ``K`` is computed once on the kernel's support of P. A sample of size
    ``n <= M`` is drawn as n indices into the rankings of P (``Generator.choice`` with
    ``p=probs``; both samples of every pair in one call of shape ``(rep, 2, n)``) and the
    pair's MMD comes from the support form ``w' K w``,
    ``w = (cx - cy) / n`` (paper Sec. 4.3,
    :func:`genexpy_nb.generalizability.mmd.mmd_from_pairs`). A larger sample
    is drawn directly as its count vector on the rankings of P, ``Multinomial(n, probs)``,
    which has the same distribution and costs O(M) whatever n (one call of shape
    ``(rep, 2)``). Draws are made in blocks of rows to bound memory; the values do not
    depend on the block size.
    """
    R, p = check_pmf(rankings, probs)
    k = _resolve_kernels(kernel, R.shape[1])[0]
    n = check_positive_int("n", n)
    rep = check_positive_int("rep", rep)
    return _PmfMMD(R, p, k, rep, root_seed(seed)).samples(n).copy()


# ---------------------------------------------------------------------------------------
# the true n*
# ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class TrueNStar:
    """The true n* of a known distribution, by Monte Carlo (paper Sec. 4.5, paper eq. 9).

    Attributes
    ----------
    nstar : float
        ``min {n : nGen(n, eps*) >= alpha*}`` on the Monte Carlo curve; NaN if not reached
        by ``n_max``.
    nstar_low, nstar_high : float
        The same minimum at the thresholds ``alpha* - 2 se`` and ``alpha* + 2 se``
        (``se = sqrt(alpha* (1 - alpha*) / rep)``, the Monte Carlo standard error of nGen
        near alpha*): a Monte Carlo interval for n*. Below ``nstar_low`` every estimated
        nGen is more than 2 se under alpha*; at ``nstar_high`` it is 2 se above.
    exact : bool
        True when n* was found by scanning every n from 1 (it is then the exact minimum of
        the Monte Carlo curve); False when n* > ``scan_max`` and bisection found a
        crossing (nGen is non-decreasing in n only up to noise and lattice effects).
    curve : polars.DataFrame
        ``(n, ngen)`` at every n evaluated, sorted by n.
    """

    kernel_label: str
    alpha: float
    delta: float
    eps: float
    nstar: float
    nstar_low: float
    nstar_high: float
    exact: bool
    rep: int
    se: float
    n_max: int
    reason: str | None = None
    curve: pl.DataFrame = field(default_factory=pl.DataFrame, repr=False, compare=False)

    def as_row(self) -> dict[str, Any]:
        """Return the scalar attributes as one row of a frame (no curve)."""
        return {"kernel_label": self.kernel_label, "alpha": self.alpha, "delta": self.delta,
                "eps": self.eps, "nstar": self.nstar, "nstar_low": self.nstar_low,
                "nstar_high": self.nstar_high, "exact": self.exact, "rep": self.rep,
                "se": self.se, "reason": self.reason}


def _first_at_least(g: Callable[[int], float], thr: float, n_max: int, scan_max: int
                    ) -> tuple[float, bool]:
    """Smallest n with g(n) >= thr: doubling to a bracket, then a scan (or bisection)."""
    n, hi = 1, None
    while True:
        if g(n) >= thr:
            hi = n
            break
        if n >= n_max:
            break
        n = min(2 * n, n_max)
    if hi is None:
        return math.nan, True
    for m in range(1, min(hi, scan_max) + 1):
        if g(m) >= thr:
            return float(m), True
    # g(scan_max) < thr: scanned
    return float(first_true(lambda m: g(m) >= thr, scan_max, hi)), False


def _true_nstar(s: _PmfMMD, alpha: float, delta: float, n_max: int, scan_max: int
                ) -> TrueNStar:
    eps = float(s.kernel.eps(delta))
    se = math.sqrt(alpha * (1.0 - alpha) / s.rep)

    def g(n: int) -> float:
        return s.ngen(n, eps)

    nstar, exact = _first_at_least(g, alpha, n_max, scan_max)
    low, _ = _first_at_least(g, alpha - _Z * se, n_max, scan_max)
    high, _ = _first_at_least(g, min(alpha + _Z * se, 1.0), n_max, scan_max)
    reason = None
    if not math.isfinite(nstar):
        reason = (f"nGen(n, eps*) < alpha* up to n_max={n_max}: n* > n_max (raise n_max)")
    elif not math.isfinite(high):
        reason = f"nGen reaches alpha* + 2 se only beyond n_max={n_max}"
    ns = np.array(sorted(s.cache), dtype=np.int64)
    curve = pl.DataFrame({"n": ns, "ngen": np.array([g(int(n)) for n in ns])},
                         schema={"n": pl.Int64, "ngen": pl.Float64})
    return TrueNStar(s.kernel.label, float(alpha), float(delta), eps, nstar, low, high, exact,
                     s.rep, se, n_max, reason, curve)


def _check_search(rep, n_max, scan_max, seed):
    return (check_positive_int("rep", rep, minimum=2), check_positive_int("n_max", n_max),
            check_positive_int("scan_max", scan_max), root_seed(seed))


def true_nstar(
    rankings: Any, probs: Sequence[float] | np.ndarray, kernel: Kernel,
    alpha: float = config.HEADLINE_ALPHA, delta: float = config.HEADLINE_DELTA, *,
    rep: int = TRUE_REP, n_max: int = 100_000, scan_max: int = SCAN_MAX, seed: Seed = 0,
) -> TrueNStar:
    """Compute the true n* of a known distribution P: ``min {n : nGen(n, eps*) >= alpha*}``.

    Parameters
    ----------
    rankings : (M, na) int
        The support of P (rankings with ties, 0 = best tier).
    probs : (M,) float
        Probabilities of the rankings.
    kernel : Kernel
        Borda, Jaccard or Mallows (resolved here for ``na`` alternatives named "0", "1", …).
    alpha, delta : float
        The requirements alpha* and delta*; ``eps* = kernel.eps(delta*)`` (paper Sec. 4.2, 4.4).
    rep : int
        Monte Carlo pairs per n (default 2000).
    n_max : int
        Give up (n* = NaN, with a reason) beyond this n.
    scan_max : int
        Scan every n up to here (exact minimum); beyond, bisection (see :class:`TrueNStar`).
    seed : int
        Same seed, same result; see :func:`mmd_distribution_from_pmf`.

    Returns
    -------
    TrueNStar

    Notes
    -----
    ``nGen(n, eps*) = P(MMD_n <= eps*)`` for two independent samples of size n from P
    (paper Sec. 4.5, but sampled from P itself) is estimated from ``rep`` pairs
    (:func:`mmd_distribution_from_pmf`). n is doubled (1, 2, 4, …) until the estimate
    reaches alpha*; then every n from 1 up to that point is evaluated and the first one
    reaching alpha* is n*, the exact minimum of the Monte Carlo curve (the definition
    takes the minimum; nGen is non-decreasing in n only roughly: discrete distributions
    give it a saw-tooth shape). Monte Carlo precision: the standard error of nGen is
    ``sqrt(alpha* (1 - alpha*) / rep)`` (0.0049 at 0.95 and rep = 2000); ``nstar_low`` and
    ``nstar_high`` are n* at ``alpha* ∓ 2 se``. Near n*, nGen grows by about 0.1–0.3 per
    unit of log n, so 2000 pairs pin n* to a few per cent.

    Examples
    --------
    >>> from genexpy_nb import Jaccard
    >>> from genexpy_nb.generalizability.distributions import uniform_distribution
    >>> R, p = uniform_distribution(3)
    >>> t = true_nstar(R, p, Jaccard(k=1), 0.95, 0.2, rep=500)
    >>> t.nstar_low <= t.nstar <= t.nstar_high
    True
    """
    R, p = check_pmf(rankings, probs)
    k = _resolve_kernels(kernel, R.shape[1])[0]
    alpha = check_probability("alpha", alpha)
    delta = k.check_delta(delta)
    rep, n_max, scan_max, seed = _check_search(rep, n_max, scan_max, seed)
    return _true_nstar(_PmfMMD(R, p, k, rep, seed), alpha, delta, n_max, scan_max)


def true_nstar_frame(
    rankings: Any, probs: Sequence[float] | np.ndarray, kernels: Kernel | Sequence[Kernel],
    alphas: float | Sequence[float] = config.HEADLINE_ALPHA,
    deltas: float | Sequence[float] = config.HEADLINE_DELTA, *,
    rep: int = TRUE_REP, n_max: int = 100_000, scan_max: int = SCAN_MAX, seed: Seed = 0,
    progress: bool = True,
) -> pl.DataFrame:
    """Compute the true n* for every kernel x alpha* x delta*, as a tidy frame.

    Same computation as :func:`true_nstar`; the MMD_n samples of a kernel are drawn once
    and shared by every (alpha*, delta*), so on the grid the true n* is exactly
    non-decreasing in alpha* and non-increasing in delta* (when ``exact``).

    Returns
    -------
    polars.DataFrame
        Columns: kernel, kernel_label, alpha, delta, eps, nstar, nstar_low, nstar_high,
        exact, rep, se, reason.
    """
    R, p = check_pmf(rankings, probs)
    ks, a_arr, d_arr = _check_grids(kernels, R.shape[1], alphas, deltas)
    rep, n_max, scan_max, seed = _check_search(rep, n_max, scan_max, seed)
    rows = []
    for k in tqdm(ks, desc="true n*", unit="kernel", disable=not progress or len(ks) < 2,
                  leave=False):
        s = _PmfMMD(R, p, k, rep, seed)
        for a in a_arr:
            for d in d_arr:
                rows.append({"kernel": k.name,
                             **_true_nstar(s, float(a), float(d), n_max, scan_max).as_row()})
    schema = {"kernel": pl.String, "kernel_label": pl.String, "alpha": pl.Float64,
              "delta": pl.Float64, "eps": pl.Float64, "nstar": pl.Float64,
              "nstar_low": pl.Float64, "nstar_high": pl.Float64, "exact": pl.Boolean,
              "rep": pl.Int64, "se": pl.Float64, "reason": pl.String}
    return pl.DataFrame(rows, schema=schema, orient="row")


# ---------------------------------------------------------------------------------------
# the estimate n̂*_N from N results
# ---------------------------------------------------------------------------------------
_EST_SCHEMA = {"kernel": pl.String, "kernel_label": pl.String, "alpha": pl.Float64,
               "delta": pl.Float64, "eps": pl.Float64, "N": pl.Int64, "nstar": pl.Float64,
               "nstar_lo": pl.Float64, "nstar_hi": pl.Float64, "nstar_ceil": pl.Int64,
               "b0": pl.Float64, "b1": pl.Float64, "r2": pl.Float64,
               "reason": pl.String, "reliable": pl.Boolean}


def _estimate_rows(sups: list[tuple[np.ndarray, np.ndarray]], N: int, ks: list[Kernel],
                   a_arr: np.ndarray, d_arr: np.ndarray, rep: int, seed: int, grid,
                   disjoint: bool, replace: bool, interval: bool = True,
                   level: float = INTERVAL_LEVEL) -> list[dict[str, Any]]:
    """Estimate the n̂* rows from the kernel supports ``(K, inv)`` of one sample of N results.

    The estimator of :class:`~genexpy_nb.GeneralizabilityAnalysis`
    (:mod:`genexpy_nb.generalizability.estimate`) on a one-configuration study, with its
    streams (configuration 0), so that the two agree exactly.
    """
    def grid_fn(M: int) -> np.ndarray:
        return resolve_grid(grid, M, disjoint, replace)

    ns = grid_fn(N)
    min_N = min_N_for_two_points(grid_fn)
    min_N3 = min_N_for_points(grid_fn, MIN_GRID_POINTS)
    mmd = resample_mmd(sups, N, ns, rep, child_seed(seed, 0), disjoint=disjoint,
                       replace=replace)
    rows = []
    for q, k in enumerate(ks):
        eps = np.asarray(k.eps(d_arr), dtype=np.float64).reshape(-1)
        K, inv = sups[q]
        est = resampled_nstar(ns, mmd[q], a_arr, eps, K=K, inv=inv,
                              rng=child_seed(seed, 0, 1 + q), interval=interval,
                              level=level, fit="joint", min_N=min_N, min_N3=min_N3)
        nd_ = eps.size
        for ia, a in enumerate(a_arr):
            for jd, (d, e) in enumerate(zip(d_arr, eps, strict=True)):
                r = ia * nd_ + jd
                nstar = float(est["nstar"][r])
                unreliable = not est["reliable"][r] or N < 2
                rows.append({"kernel": k.name, "kernel_label": k.label, "alpha": float(a),
                             "delta": float(d), "eps": float(e), "N": N, "nstar": nstar,
                             "nstar_lo": float(est["lo"][r]) if interval else math.nan,
                             "nstar_hi": float(est["hi"][r]) if interval else math.nan,
                             "nstar_ceil": nstar_ceil(nstar), "b0": float(est["b0"][r]),
                             "b1": float(est["b1"][r]), "r2": float(est["r2"][r]),
                             "reason": est["reason"][r], "reliable": not unreliable})
    return rows


def estimate_nstar_from_sample(
    sample: Any, kernels: Kernel | Sequence[Kernel],
    alpha: float | Sequence[float] = config.HEADLINE_ALPHA,
    delta: float | Sequence[float] = config.HEADLINE_DELTA, *,
    rep: int = config.REP, seed: Seed = 0, grid=None, disjoint: bool = True,
    replace: bool = False,
) -> pl.DataFrame:
    """Estimate n̂*_N from N observed rankings (paper Sec. 4.5; paper Theorem 4.1).

    The MMD_n distribution is resampled from the N results for n on the grid (default
    n = 2, 4, … < N // 2), its alpha*-quantiles q_n are fitted by
    ``log n = b1 log q_n + b0`` and ``n̂* = exp(b1 log eps* + b0)``.

    Parameters
    ----------
    sample : (N, na) int
        N rankings with ties (0 = best tier), one per experimental condition.
    kernels : Kernel or list of Kernel
        Ranking kernels (resolved here for alternatives named "0", "1", …).
    alpha, delta : float or list of float
        Requirements alpha* and delta*; every combination gets a row.
    rep : int
        Resampled pairs per n (default 200).
    seed : int
        Same seed, same result. The pairs come from the same stream as
        :class:`~genexpy_nb.GeneralizabilityAnalysis` on a one-configuration study of these
        results with the same seed, so the two agree exactly.
    grid, disjoint, replace
        Grid of sample sizes and resampling mode, as in
        :class:`~genexpy_nb.GeneralizabilityAnalysis`.

    Returns
    -------
    polars.DataFrame
        One row per kernel x alpha x delta: kernel, kernel_label, alpha, delta, eps, N,
        nstar, nstar_ceil, b0, b1, r2, reason (why n* is 1, undefined or not to be trusted),
        reliable.
    """
    X = check_rankings(sample, "sample")
    ks, a_arr, d_arr = _check_grids(kernels, X.shape[1], alpha, delta)
    rep = check_positive_int("rep", rep, minimum=2)
    sups = [kernel_support(k, X)[:2] for k in ks]
    rows = _estimate_rows(sups, X.shape[0], ks, a_arr, d_arr, rep, root_seed(seed), grid,
                          bool(disjoint), bool(replace))
    return pl.DataFrame(rows, schema=_EST_SCHEMA, orient="row")


def preliminary_nstar(
    rankings: Any, probs: Sequence[float] | np.ndarray, kernels: Kernel | Sequence[Kernel], *,
    Ns: Sequence[int] = (10, 20, 40, 80),
    repetitions: int = 100,
    alpha: float | Sequence[float] = config.HEADLINE_ALPHA,
    delta: float | Sequence[float] = config.HEADLINE_DELTA,
    rep: int = config.REP, seed: Seed = 0, progress: bool = True,
) -> pl.DataFrame:
    """n̂*_N from ``repetitions`` preliminary studies of N results drawn from P (paper Sec. 5.3).

    For every N in ``Ns`` and every repetition: draw N rankings i.i.d. from P
    (:func:`~genexpy_nb.generalizability.distributions.sample_rankings`) and estimate n* from them
    (:func:`estimate_nstar_from_sample`). Compare with :func:`true_nstar_frame` to get the
    ratio n̂*_N / n* of the paper's Figure 5.

    Parameters
    ----------
    rankings, probs : the pmf P (support (M, na), probabilities (M,))
    kernels : Kernel or list of Kernel
    Ns : sizes of the preliminary study (each >= 2)
    repetitions : preliminary studies per N (paper: 100)
    alpha, delta : requirements (scalars or grids)
    rep : resampled pairs per n of the grid (default 200)
    seed : int; repetition r of size N uses the stream ``SeedSequence([seed, N, r])``

    Returns
    -------
    polars.DataFrame
        Columns N, repetition, then those of :func:`estimate_nstar_from_sample`.
    """
    R, p = check_pmf(rankings, probs)
    ks, a_arr, d_arr = _check_grids(kernels, R.shape[1], alpha, delta)
    if isinstance(Ns, (int, np.integer)):
        Ns = [Ns]
    Ns = [check_positive_int("Ns", N, minimum=2) for N in Ns]
    if not Ns:
        raise GenexpyInputError("Ns must list at least one size N of the preliminary study.")
    repetitions = check_positive_int("repetitions", repetitions)
    rep = check_positive_int("rep", rep, minimum=2)
    seed = root_seed(seed)
    # kernel matrices on the kernel's classes of P, once; a sample's matrix is a sub-matrix
    # (its classes in the same sorted order as kernel_support finds them: the same numbers)
    full = []
    for k in ks:
        first, inv_p, _ = k.support(R)
        full.append((k.gram(R[first]), inv_p))
    frames = []
    total = len(Ns) * repetitions
    with tqdm(total=total, desc="preliminary studies", disable=not progress or total < 20,
              leave=False) as bar:
        for N in Ns:
            for r in range(repetitions):
                rng = child_seed(seed, N, r)
                idx = rng.choice(R.shape[0], size=N, p=p)
                sups = []
                for K_p, inv_p in full:
                    u, inv = np.unique(inv_p[idx], return_inverse=True)
                    sups.append((K_p[np.ix_(u, u)], inv.ravel().astype(np.int64)))
                rows = _estimate_rows(sups, N, ks, a_arr, d_arr, rep,
                                      int(rng.integers(2**31)), None, True, False)
                frames.append(pl.DataFrame(rows, schema=_EST_SCHEMA, orient="row")
                              .with_columns(pl.lit(r, dtype=pl.Int64).alias("repetition")))
                bar.update(1)
    out = pl.concat(frames)
    return out.select("N", "repetition", *[c for c in _EST_SCHEMA if c != "N"])


# ---------------------------------------------------------------------------------------
# Appendix A: significance is not generalizability
# ---------------------------------------------------------------------------------------
def _best_label(best: np.ndarray) -> str:
    return str(int(best[0])) if best.size == 1 else "{" + ",".join(map(str, best)) + "}"


def _tests(X: np.ndarray, level: float, p_adjust: str | None) -> dict[str, Any]:
    """Friedman, then Conover–Iman; best = the alternatives most often in tier 0."""
    na = X.shape[1]
    top = (X == 0).sum(axis=0)
    best = np.flatnonzero(top == top.max())
    fr = _sig.friedman(X, higher_is_better=False)  # tiers: 0 = best
    f_sig = bool(fr.pvalue < level)
    ci_sig = False
    ci_max_p = math.nan
    if f_sig and best.size == 1:
        b = int(best[0])
        ph = _sig.posthoc_conover(X, p_adjust=p_adjust, alpha=level, higher_is_better=False)
        a1 = ph["alternative_1"].cast(pl.Int64).to_numpy()
        a2 = ph["alternative_2"].cast(pl.Int64).to_numpy()
        mine = (a1 == b) | (a2 == b)
        pv = ph["pvalue"].to_numpy()[mine]
        mr_b = np.where(a1[mine] == b, ph["mean_rank_1"].to_numpy()[mine],
                        ph["mean_rank_2"].to_numpy()[mine])
        mr_o = np.where(a1[mine] == b, ph["mean_rank_2"].to_numpy()[mine],
                        ph["mean_rank_1"].to_numpy()[mine])
        ci_max_p = float(pv.max()) if na > 1 else math.nan
        ci_sig = bool(np.all(pv < level) and np.all(mr_b < mr_o))
    return {"best": _best_label(best), "n_best": int(best.size),
            "friedman_statistic": float(fr.statistic), "friedman_pvalue": float(fr.pvalue),
            "friedman_significant": f_sig, "ci_max_pvalue": ci_max_p, "ci_significant": ci_sig}


def significance_vs_generalizability(
    rankings: Any, probs: Sequence[float] | np.ndarray, *,
    n: int = 20, repetitions: int = 1000, n_gen: int | None = None,
    kernel: Kernel | None = None, delta: float = config.HEADLINE_DELTA,
    rep: int = config.REP, level: float = 0.05, p_adjust: str | None = None,
    seed: Seed = 0, progress: bool = True,
) -> pl.DataFrame:
    """Significance versus n-generalizability of samples from a known P (paper Appendix A).

    Each repetition draws ``n`` results from P and records:

    * the **best alternatives**: those most often in tier 0 (several on a tie);
    * **Friedman** significance (p < ``level``) on the n x na rank matrix;
    * **Conover–Iman** significance (Friedman version, run when Friedman is significant):
      a single best alternative that is significantly better (p < ``level``, lower mean
      rank) than every other alternative. A tie for best is never C-I-significant (the
      tied alternatives are not better than each other), as in the paper's Table 1;
    * the **n_gen-generalizability** of the sample: ``nGen(n_gen, eps*)`` with
      ``eps* = kernel.eps(delta)``, from ``rep`` pairs of disjoint samples of size n_gen
      drawn without replacement from the n results (paper Sec. 4.5, "realistic").

    Parameters
    ----------
    rankings, probs : the pmf P (support (M, na), probabilities (M,))
    n : results per sample (paper: 20)
    repetitions : number of samples (paper: 1000)
    n_gen : sample size of the generalizability (default n // 2, the paper's 10)
    kernel : ranking kernel (default Jaccard(k=1))
    delta : delta* (default 0.05)
    rep : resampled pairs per sample (default 200)
    level : significance level of both tests (default 0.05)
    p_adjust : multiple-testing correction of the post-hoc p-values (default None, as the
        paper and scikit-posthocs)
    seed : int; same seed, same frame

    Returns
    -------
    polars.DataFrame
        One row per sample: repetition, best, n_best, friedman_statistic,
        friedman_pvalue, friedman_significant, ci_max_pvalue (largest p-value of the best
        alternative against the others), ci_significant, ngen.

    Notes
    -----
    Vectorized: the kernel matrix is built once on the support of P; the samples are index
    vectors into it, and the MMD pairs of all samples come from one call of
    :func:`~genexpy_nb.generalizability.mmd.draw_pairs` and one of
    :func:`~genexpy_nb.generalizability.mmd.mmd_from_pairs`.
    The tests depend on a sample only through its multiset of rankings, so they are run
    once per distinct multiset (for the paper's two-ranking P, at most n + 1 times).
    """
    R, p = check_pmf(rankings, probs)
    M, na = R.shape
    if na < 2:
        raise GenexpyInputError("the rankings need at least 2 alternatives to compare.")
    k = _resolve_kernels(Jaccard(k=1) if kernel is None else kernel, na)[0]
    n = check_positive_int("n", n, minimum=2)
    repetitions = check_positive_int("repetitions", repetitions)
    n_gen = n // 2 if n_gen is None else check_positive_int("n_gen", n_gen)
    if 2 * n_gen > n:
        raise GenexpyInputError(
            f"n_gen={n_gen}: two disjoint samples of size n_gen need 2 n_gen <= n={n}.")
    eps = float(k.eps(delta))
    rep = check_positive_int("rep", rep)
    level = check_probability("level", level)
    if p_adjust is not None and p_adjust not in _sig.P_ADJUST_METHODS:
        raise GenexpyInputError(
            f"p_adjust={p_adjust!r} is not a known correction; use None or one of "
            f"{', '.join(_sig.P_ADJUST_METHODS)}.")
    seed = root_seed(seed)
    idx = child_seed(seed, 0).choice(M, size=(repetitions, n), p=p)  # the samples
    # 10-generalizability of every sample at once
    first, inv, _ = k.support(R)
    K = k.gram(R[first])
    g = np.empty(repetitions)
    rng_pairs = child_seed(seed, 1)
    block = max(1, _BLOCK // (rep * max(n, first.size)))  # samples per block (memory)
    for r0 in range(0, repetitions, block):
        r1 = min(repetitions, r0 + block)
        # positions of the pairs within each sample (the stream does not depend on block)
        IX, IY = draw_pairs(n, n_gen, rep * (r1 - r0), seed=rng_pairs)
        rows_of = np.repeat(idx[r0:r1], rep, axis=0)  # (samples * rep, n)
        GX = np.take_along_axis(rows_of, IX, axis=1)
        GY = np.take_along_axis(rows_of, IY, axis=1)
        g[r0:r1] = ngen(mmd_from_pairs(K, inv, GX, GY).reshape(r1 - r0, rep), eps)
    # the tests, once per distinct multiset of results
    counts = np.zeros((repetitions, M), dtype=np.int64)
    np.add.at(counts, (np.repeat(np.arange(repetitions), n), idx.ravel()), 1)
    cache: dict[bytes, dict[str, Any]] = {}
    rows = []
    for r in tqdm(range(repetitions), desc="samples", disable=not progress or repetitions < 50,
                  leave=False):
        key = counts[r].tobytes()
        if key not in cache:
            cache[key] = _tests(R[np.sort(idx[r])], level, p_adjust)
        rows.append({"repetition": r, **cache[key], "ngen": float(g[r])})
    schema = {"repetition": pl.Int64, "best": pl.String, "n_best": pl.Int64,
              "friedman_statistic": pl.Float64, "friedman_pvalue": pl.Float64,
              "friedman_significant": pl.Boolean, "ci_max_pvalue": pl.Float64,
              "ci_significant": pl.Boolean, "ngen": pl.Float64}
    return pl.DataFrame(rows, schema=schema, orient="row")


def significance_table(frame: Any) -> pl.DataFrame:
    """Tabulate the paper's Table 1 from :func:`significance_vs_generalizability`.

    Returns
    -------
    polars.DataFrame
        One row per (ci_significant, best) and a final "all" row: ci_significant (null in
        the total row), best, count, ngen_mean, ngen_sd (sample standard deviation, ddof=1).
    """
    df = to_polars(frame, "frame")
    require_columns(df, ["ci_significant", "best", "ngen"], "frame")
    agg = [pl.len().cast(pl.Int64).alias("count"), pl.col("ngen").mean().alias("ngen_mean"),
           pl.col("ngen").std().alias("ngen_sd")]
    by = (df.group_by("ci_significant", "best").agg(*agg)
          .sort("ci_significant", pl.col("best").str.len_chars(), "best"))
    total = df.select(pl.lit(None, dtype=pl.Boolean).alias("ci_significant"),
                      pl.lit("all").alias("best"), *agg)
    return pl.concat([by.select(total.columns), total])
