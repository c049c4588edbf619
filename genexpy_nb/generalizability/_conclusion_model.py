"""The model behind gx.conclusions: pairs in closed form, the rest by Monte Carlo.

A study's mean-rank vector over n conditions is a mean of n independent per-condition
midrank vectors, close to normal (central limit theorem). For a pair the agreement G(n) of two
studies is computed in closed form with a continuity correction on the lattice of rank
differences; for the best, the top-k and the order it is computed by Monte Carlo from the
normal model with the study's mean and covariance (Gaussian-multiplier draws). See
``genexpy_nb.generalizability.conclusions`` for the definitions and the verdicts built on
these numbers.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._validation import first_true

#: the largest study size searched for n* (beyond: infinite)
_N_MAX = 10**6
#: fewer conditions than this: the normal model of a mean is not trusted
MIN_CONDITIONS = 5
#: mean ranks closer than this (in rank units) are equal in a Monte Carlo draw
_RANK_TOL = 1e-9


def conclusion_z(alpha: float) -> float:
    """Return the normal quantile z with ``p^2 + (1-p)^2 = alpha`` at ``p = Phi(z)``.

    Parameters
    ----------
    alpha : float
        The generalizability level alpha*, in (0.5, 1).

    Returns
    -------
    float
        ``Phi^-1((1 + sqrt(2 alpha - 1)) / 2)``; a pair conclusion needs
        ``n* = (z sigma / mu)^2`` conditions.

    Examples
    --------
    >>> round(conclusion_z(0.95), 4)
    1.9488
    """
    from scipy.special import ndtri

    return float(ndtri((1.0 + math.sqrt(2.0 * alpha - 1.0)) / 2.0))


def _doubled_midranks(tiers: np.ndarray) -> np.ndarray:
    """Twice the midrank (1 = best) of every alternative in every condition, as integers."""
    t = np.asarray(tiers)
    less = (t[:, None, :] < t[:, :, None]).sum(axis=2)
    eq = (t[:, None, :] == t[:, :, None]).sum(axis=2)
    return (2 * less + eq + 1).astype(np.int64)


# ---------------------------------------------------------------------------------------
# pairs: closed form
# ---------------------------------------------------------------------------------------
def _pair_stats(mr2: np.ndarray, level: float, alpha: float) -> dict[str, np.ndarray]:
    """Statistics of every pair (i < j) of one configuration from doubled midranks."""
    st = _pair_core(mr2, level, alpha)
    _pair_intervals(st, mr2.shape[0], level, alpha)
    return st


def _pair_core(mr2: np.ndarray, level: float, alpha: float) -> dict[str, np.ndarray]:
    """Return the pairs' statistics but the intervals of their effects (what a verdict reads).

    ``settled`` (the interval of the effect excludes zero) comes from the t statistic: the
    lower end of the noncentral-t interval is above zero exactly when the t-test rejects at
    that level, the t above ``t_{N-1}^{-1}(1 - tail)``; within 1e-7 of that value the
    interval itself decides. The intervals (``eff_lo``, ``eff_hi``, ``nstar_lo``,
    ``nstar_hi``, NaN here) are :func:`_pair_intervals`' (a root search per pair, a second on
    44,850 pairs), which the plan need not wait for.
    """
    N, na = mr2.shape
    iu, ju = np.triu_indices(na, k=1)
    d2 = mr2[:, iu] - mr2[:, ju]  # doubled midrank differences, exact integers
    sum2 = d2.sum(axis=0)
    mean = sum2 / (2.0 * N)
    if N > 1:
        sd = d2.std(axis=0, ddof=1) / 2.0
    else:
        sd = np.zeros(len(iu))
    const = np.all(d2 == d2[:1], axis=0)  # the same difference in every condition
    # the lattice step of a sum of differences: the gcd of the gaps between the values a
    # difference takes (a difference of +-1 only moves a sum in steps of 2)
    span = np.gcd.reduce(np.abs(d2 - d2[:1]), axis=0) / 2.0
    sd = np.where(const, 0.0, sd)
    with np.errstate(divide="ignore", invalid="ignore"):
        eff = np.where(sd > 0, mean / np.where(sd > 0, sd, 1.0), np.sign(mean) * np.inf)
        eff = np.where((sd == 0) & (sum2 == 0), 0.0, eff)
        t = np.sqrt(N) * eff
    p = _two_sided_p(t, N)
    later = np.full(t.shape, np.nan)  # the intervals: _pair_intervals
    with np.errstate(divide="ignore", invalid="ignore"):
        span_sd = np.where(sd > 0, span / np.where(sd > 0, sd, 1.0), 0.0)
    out = {"i": iu, "j": ju, "sum2": sum2, "mean": mean, "sd": sd, "eff": eff, "t": t,
           "p": p, "eff_lo": later, "eff_hi": later.copy(), "const": const,
           "span_sd": span_sd}
    out["nstar"] = _pair_nstar(np.abs(eff), span_sd, alpha)
    out["agreement"] = np.where(np.isfinite(eff), _pair_agreement(
        np.where(np.isfinite(eff), np.abs(eff), 0.0), span_sd, float(max(N, 1))), 1.0)
    out["nstar_lo"], out["nstar_hi"] = later.copy(), later.copy()
    out["settled"] = _settled_by_t(t, N, level)
    return out


def _settled_by_t(t: np.ndarray, N: int, level: float) -> np.ndarray:
    """Whether each pair's noncentral-t interval of the effect excludes zero, from ``t``."""
    if N < 2:
        return np.zeros(t.shape, dtype=bool)
    from scipy.special import stdtrit

    tail = (1.0 - level) / 2.0
    tq = float(stdtrit(float(N - 1), 1.0 - tail))
    a = np.abs(t)
    out = a > tq  # NaN: False, as its interval (-inf, inf)
    near = np.flatnonzero(np.isfinite(t) & (np.abs(a - tq) <= 1e-7 * tq))
    if near.size:  # at the critical value: the interval itself
        lo, hi = _effect_interval(t[near], N, level)
        out[near] = (lo > 0) | (hi < 0)
    return out


def _pair_intervals(st: dict[str, np.ndarray], N: int, level: float, alpha: float) -> bool:
    """Fill the intervals of the pairs' effects and n* into ``st`` (from :func:`_pair_core`).

    Returns whether the intervals settle the same pairs as ``st["settled"]`` did (always,
    so far; a caller that acted on ``settled`` before acts again otherwise), which then
    becomes the intervals' own.
    """
    lo, hi = _effect_interval(st["t"], N, level)
    st["eff_lo"], st["eff_hi"] = lo, hi
    st["nstar_lo"], st["nstar_hi"] = _pair_nstar_interval(lo, hi, st["span_sd"], alpha)
    settled = (lo > 0) | (hi < 0)
    same = bool(np.array_equal(settled, st["settled"]))
    st["settled"] = settled
    return same


def _two_sided_p(t: np.ndarray, N: int) -> np.ndarray:
    from scipy.special import stdtr

    if N < 2:
        return np.ones_like(t, dtype=float)
    finite = np.isfinite(t)
    out = np.where(finite, 2.0 * stdtr(N - 1, -np.abs(np.where(finite, t, 0.0))), 0.0)
    return np.where(np.isnan(t), 1.0, out)


#: basic operations of one noncentral-t inversion (for the threads' decision)
_NCT_OPS = 10_000.0


def _effect_interval(t: np.ndarray, N: int, level: float) -> tuple[np.ndarray, np.ndarray]:
    """Noncentral-t interval of the standardised effect mu/sigma (two-sided, ``level``)."""
    from scipy.special import nctdtrinc

    lo = np.full(t.shape, -np.inf)
    hi = np.full(t.shape, np.inf)
    if N < 2:
        return lo, hi
    ok = np.isfinite(t)
    tail = (1.0 - level) / 2.0
    if ok.any():
        from .._numba import run_blocks

        tt = t[ok]
        lam = np.empty((2, tt.size))
        df = float(N - 1)

        def block(r0: int, r1: int) -> None:  # elementwise: the same bits on any threads
            lam[0, r0:r1] = nctdtrinc(df, 1.0 - tail, tt[r0:r1])
            lam[1, r0:r1] = nctdtrinc(df, tail, tt[r0:r1])

        # scipy's root search releases the GIL; about 10 microseconds an entry
        run_blocks(block, tt.size, work=float(tt.size) * _NCT_OPS, blocks_per_thread=1)
        lo[ok] = lam[0] / math.sqrt(N)
        hi[ok] = lam[1] / math.sqrt(N)
    inf = np.isinf(t)
    lo[inf] = np.where(t[inf] > 0, np.inf, -np.inf)
    hi[inf] = lo[inf]
    return lo, hi


#: a pair whose normal-model n* is at most this gets every whole n searched (up to 4 times
#: it): there G can dip and rise again (ties in mean rank at small n)
_PAIR_DENSE = 128


def _pair_agreement(eff: np.ndarray, span_sd: np.ndarray, n: Any) -> np.ndarray:
    """G(n) of a pair under the normal model with a continuity correction.

    ``eff = |mu| / sigma`` of the per-condition midrank difference and ``span_sd`` its
    lattice step over sigma: the sum of n differences lies on that lattice, so it is 0 (the
    two alternatives tie in mean rank) with probability ``1 - P(> 0) - P(< 0)``, each side
    from the normal approximation with half a step of correction. G is then
    ``P(<0)^2 + P(=0)^2 + P(>0)^2``; for large n it tends to ``p^2 + (1-p)^2``.
    """
    from scipy.special import ndtr

    rn = np.sqrt(n)
    a = rn * eff
    c = span_sd / (2.0 * rn)
    gt = ndtr(a - c)
    lt = ndtr(-a - c)
    eq = np.clip(1.0 - gt - lt, 0.0, 1.0)
    return gt * gt + lt * lt + eq * eq


def _pair_nstar(eff: np.ndarray, span_sd: np.ndarray, alpha: float) -> np.ndarray:
    """Smallest n with G(m) >= alpha for every larger m (inf beyond 10^6 conditions).

    Where the normal model's n* (no correction) is small, every whole n up to four times it
    is searched for the last failure; elsewhere G grows with n and its crossing is found by
    bisection (to 0.1 %) between half and four times that n*.
    """
    eff = np.abs(np.asarray(eff, dtype=float))
    span_sd = np.asarray(span_sd, dtype=float)
    z = conclusion_z(alpha)
    with np.errstate(divide="ignore"):
        n0 = np.where(eff > 0, (z / np.where(eff > 0, eff, 1.0)) ** 2, np.inf)
    out = np.full(eff.shape, np.inf)
    out[np.isinf(eff)] = 1.0
    small = np.flatnonzero(np.isfinite(eff) & (n0 <= _PAIR_DENSE))
    if small.size:
        grid = np.arange(1.0, 4 * _PAIR_DENSE + 1.0)
        # no failure from n_safe on (P(> 0) alone reaches sqrt(alpha) there and grows with
        # n): each pair's search stops at its n_safe, in groups of about equal lengths
        reach = np.minimum(grid.size, np.ceil(_pair_safe_n(eff[small], span_sd[small],
                                                           alpha))).astype(np.int64)
        length = np.maximum(1, 2 ** np.ceil(np.log2(np.maximum(reach, 1))).astype(np.int64))
        length = np.minimum(length, grid.size)
        for L in np.unique(length):
            group = small[length == L]
            g_n = grid[:L]
            step = max(1, (1 << 20) // int(L))
            for start in range(0, group.size, step):
                idx = group[start: start + step]
                g = _pair_agreement(eff[idx, None], span_sd[idx, None], g_n[None, :])
                fail = g < alpha
                last = np.where(fail.any(axis=1), L - 1 - np.argmax(fail[:, ::-1], axis=1),
                                -1)
                out[idx] = np.where(last == grid.size - 1, np.inf,
                                    grid[np.minimum(last + 1, grid.size - 1)])
    large = np.flatnonzero(np.isfinite(eff) & (n0 > _PAIR_DENSE) & (n0 <= _N_MAX))
    if large.size:
        lo, hi = 0.5 * n0[large], 4.0 * n0[large]
        e, sp = eff[large], span_sd[large]
        for _ in range(40):
            mid = np.sqrt(lo * hi)
            ok = _pair_agreement(e, sp, mid) >= alpha
            hi = np.where(ok, mid, hi)
            lo = np.where(ok, lo, mid)
            if np.all(hi <= 1.001 * lo):
                break
        out[large] = np.where(hi > _N_MAX, np.inf, hi)
    return out


def _pair_safe_n(eff: np.ndarray, span_sd: np.ndarray, alpha: float) -> np.ndarray:
    """Return a study size from which G(n) >= alpha for every larger n (a search stops).

    ``G >= P(> 0)^2`` and ``P(> 0) = Phi(sqrt(n) eff - span_sd / (2 sqrt(n)))`` grows with
    n, so G stays at or above alpha once ``sqrt(n) eff - span_sd / (2 sqrt(n)) >= z'`` with
    ``Phi(z') = sqrt(alpha)``: ``sqrt(n) >= (z' + sqrt(z'^2 + 2 eff span_sd)) / (2 eff)``.
    ``z'`` carries a margin of 1e-6 (far above the rounding of the computed G).
    """
    from .interval import ndtri

    zq = float(ndtri(math.sqrt(alpha))) + 1e-6
    with np.errstate(divide="ignore", invalid="ignore"):
        x = (zq + np.sqrt(zq * zq + 2.0 * eff * span_sd)) / (2.0 * eff)
    return np.where(eff > 0, x * x, np.inf)


def _pair_nstar_interval(lo: np.ndarray, hi: np.ndarray, span_sd: np.ndarray,
                         alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """n* interval from an interval of the effect: infinite upper end when it reaches 0."""
    same_sign = (lo > 0) | (hi < 0)
    big = np.maximum(np.abs(lo), np.abs(hi))
    small = np.where(same_sign, np.minimum(np.abs(lo), np.abs(hi)), 0.0)
    return _pair_nstar(big, span_sd, alpha), _pair_nstar(small, span_sd, alpha)


def _holm(p: np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values."""
    m = p.size
    if m == 0:
        return p
    order = np.argsort(p, kind="stable")
    adj = np.minimum(1.0, np.maximum.accumulate(p[order] * (m - np.arange(m))))
    out = np.empty_like(adj)
    out[order] = adj
    return out


# ---------------------------------------------------------------------------------------
# best, top-k, order: Monte Carlo under the normal model
# ---------------------------------------------------------------------------------------
class _Model:
    """The normal model of a study's mean-rank vector, with fixed Gaussian draws."""

    def __init__(self, mr2: np.ndarray, draws: int, rng: np.random.Generator,
                 kernels: bool = False) -> None:
        N, na = mr2.shape
        #: numba is loaded anyway (the plan's kernel): no NumPy route to spare its loading
        self.kernels = kernels
        x = mr2 / 2.0
        self.mu = x.mean(axis=0)
        xc = x - self.mu
        z = np.zeros((draws, na))
        if N > 1:
            step = max(1, 4_000_000 // max(1, draws))
            for start in range(0, N, step):
                stop = min(N, start + step)
                z += rng.standard_normal((draws, stop - start)) @ xc[start:stop]
            z /= math.sqrt(N - 1)
        self.z = z
        self.na = na

    def means(self, n: float, sl: slice = slice(None)) -> np.ndarray:
        return self.mu + self.z[sl] / math.sqrt(n)


def _set_agreement(keys: np.ndarray) -> float:
    """P(two independent draws give the same set), unbiased from the draws' keys (rows)."""
    m = keys.shape[0]
    _, counts = np.unique(_row_keys(keys), return_counts=True)
    c = counts.astype(float)
    return float((np.sum(c * c) - m) / (m * (m - 1)))


_HASH_MULT = np.uint64(0x9E3779B97F4A7C15)


def _row_keys(bits: np.ndarray) -> np.ndarray:
    """One uint64 key per row of packed bits: the bits themselves up to 64 alternatives.

    Wider rows are folded with a multiplicative hash (a collision between two of the
    draws' sets has a probability of about draws^2 / 2^64).
    """
    m, w = bits.shape
    pad = (-w) % 8
    if pad:
        bits = np.concatenate([bits, np.zeros((m, pad), np.uint8)], axis=1)
    words = np.ascontiguousarray(bits).view(np.uint64)
    key = words[:, 0].copy()
    for c in range(1, words.shape[1]):
        key = key * _HASH_MULT + words[:, c]
    return key


def _top_sets(means: np.ndarray, k: int) -> np.ndarray:
    """Rows of packed bits: the alternatives with fewer than k others strictly ahead."""
    kth = (means.min(axis=1, keepdims=True) if k == 1
           else np.partition(means, k - 1, axis=1)[:, k - 1: k])
    return np.packbits(means <= kth + _RANK_TOL, axis=1)


def kendall_numpy(rows: int, na: int, kernels: bool = False) -> bool:
    """Whether the order's agreement takes the NumPy route (else the numba kernel).

    Up to ``config.ROUTES.kendall_numpy_max_work`` (rows x pairs) while numba is not
    loaded (``kernels``: the plan's fused kernel follows and loads it), as ``numpy_route``
    of the kernels' package decides. Both routes give the same answers.
    """
    from .. import config
    from .._numba import numpy_route

    return numpy_route(rows * (na * (na - 1) // 2), config.ROUTES.kendall_numpy_max_work,
                       kernels)


def _kendall_within(a: np.ndarray, b: np.ndarray, delta: float,
                    kernels: bool = False) -> np.ndarray:
    """Whether the normalised Kendall distance of each row pair is at most ``delta``.

    Discordant pairs count 1, a pair tied in one order and not in the other 1/2 (the
    Mallows count of SPEC A3): ``sum |sign(a_i - a_j) - sign(b_i - b_j)| / 2``.
    ``kernels``: numba is loaded anyway (:func:`kendall_numpy`).
    """
    na = a.shape[1]
    limit2 = 2.0 * delta * (na * (na - 1) // 2) + 1e-9
    if kendall_numpy(a.shape[0], na, kernels):
        # small studies: NumPy, no compiled kernel to load (about 1 s in a fresh process)
        i, j = np.triu_indices(na, 1)
        da = a[:, i] - a[:, j]
        db = b[:, i] - b[:, j]
        sa = (da > _RANK_TOL).astype(np.int8) - (da < -_RANK_TOL).astype(np.int8)
        sb = (db > _RANK_TOL).astype(np.int8) - (db < -_RANK_TOL).astype(np.int8)
        return np.abs(sa - sb).sum(axis=1, dtype=np.int64) <= limit2
    from .._numba import run_blocks
    from .._numba.conclusions import kendall_within

    out = np.zeros(a.shape[0], dtype=np.bool_)
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    # rows on the threads (each writes its own: the same answer at any thread count)
    run_blocks(lambda r0, r1: kendall_within(a[r0:r1], b[r0:r1], _RANK_TOL, limit2,
                                             out[r0:r1]),
               a.shape[0], float(a.shape[0]) * (na * (na - 1) // 2))
    return out


def _agreement_fn(model: _Model, kind: str, k: int, delta: float):
    if kind == "best":
        return lambda n: _set_agreement(_top_sets(model.means(n), 1))
    if kind == "top_k":
        return lambda n: _set_agreement(_top_sets(model.means(n), k))
    half = model.z.shape[0] // 2
    firm = _firm_order(model, half, delta)
    return lambda n: 1.0 if firm(n) else float(np.mean(_kendall_within(
        model.means(n, slice(0, half)), model.means(n, slice(half, 2 * half)), delta,
        model.kernels)))


def _firm_order(model: _Model, half: int, delta: float):
    """Return ``firm(n)``: whether every pair of draws agrees on the order at n, for sure.

    A draw moves a mean rank by at most ``max |z| / sqrt(n)``: the alternatives whose mean
    ranks lie further apart than twice that (and the tie tolerance) are in the same order,
    untied, in every draw, so only the pairs closer than that can disagree, each counting at
    most 1. When they are too few to exceed the distance allowed, every pair of draws is
    within it and the agreement is 1 exactly, without counting (the large n of the order's
    n* search; the margin of 1e-9 is far above the rounding of the means).
    """
    na = model.mu.size
    P = na * (na - 1) // 2
    zmax = float(np.max(np.abs(model.z[:2 * half]))) if half else 0.0
    mu = np.sort(model.mu)
    margin = _RANK_TOL + 1e-9 * (1.0 + float(np.max(np.abs(mu))) + zmax) if na else 0.0
    allowed = delta * P + 0.5e-9  # the discordant pairs _kendall_within allows (halved)

    def firm(n: float) -> bool:
        if not half or na < 2:
            return False
        gap = 2.0 * zmax / math.sqrt(n) + margin
        close = np.searchsorted(mu, mu + gap, side="right") - np.arange(1, na + 1)
        return float(np.sum(close)) <= allowed

    return firm


def _mc_nstar(G, alpha: float) -> float:
    """Smallest n with G(m) >= alpha for every larger m of a grid, refined by bisection.

    The grid has steps of 3 (1, 3, 9, ... up to 10^6); between the last grid point that
    fails and the next, the crossing is found by bisection on log n to 1 % (to the unit
    below 100 conditions). Under the normal model G grows with n, so the refinement finds
    the crossing itself.
    """
    grid = [1.0]
    while grid[-1] < _N_MAX:
        grid.append(min(float(_N_MAX), grid[-1] * 3.0))
    vals = np.array([G(g) for g in grid])
    if vals[-1] < alpha:
        return math.inf
    bad = np.flatnonzero(vals < alpha)
    if bad.size == 0:
        return 1.0
    i = int(bad[-1])
    lo, hi = grid[i], grid[i + 1]
    while hi >= 100 and hi > 1.01 * lo:  # on log n, to 1 %
        mid = math.sqrt(lo * hi)
        if G(mid) >= alpha:
            hi = mid
        else:
            lo = mid
    if hi < 100:  # to the unit: whole numbers of conditions
        hi = first_true(lambda m: G(m) >= alpha, math.floor(lo), math.ceil(hi))
    return float(hi)
