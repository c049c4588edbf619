"""What to run next: the conditions after which a verdict rule declares a claim (SPEC A15).

"needs k more" is a promise: after k more conditions (datasets, tasks), the verdict rule
itself — the same paired test on the per-condition midrank differences, the same family
correction applied to the whole table at N + k, the same level — declares the claim with
probability at least ``assurance`` (default 0.8). The probability is a *predictive* one
(Bayesian assurance, O'Hagan, Stevens & Campbell 2005; predictive power, Spiegelhalter,
Freedman & Blackburn 1986): it is taken over what the effects may be given the data, not at
their point estimate. Claims that ask for more were selected because they look promising
(the winner's curse), so the effects are also shrunk toward "all alternatives equal" by an
empirical-Bayes factor estimated from the whole family (Efron & Morris 1973).

The model (one configuration; ``x`` the N x na per-condition midranks, ``mu`` their
population mean, ``Sigma`` their covariance):

* posterior of the effects: ``mu ~ N(m + B (mu_hat - m), B Sigma_hat / N)`` with ``m`` the
  common mean rank and ``B = max(0, 1 - tr(Sigma_hat) / (N S))``, ``S`` the sum of squares of
  ``mu_hat - m`` (method of moments: ``S`` is on average the effects' spread plus
  ``tr(Sigma) / N``);
* k future conditions: their mean midrank vector ``f ~ N(mu, Sigma_hat / k)``, the sample
  variance of a pair's future differences ``sigma_hat^2 chi^2_{k-1} / (k - 1)``;
* optionally (``scale=True``, the leaderboards' tier plan) the scale of the variances is
  uncertain too: each draw multiplies Sigma_hat by ``g = (N - 1) / chi^2_{N-1}`` (the
  posterior of a variance estimated from N conditions) in the effects' spread, the future
  conditions' noise and their variance;
* the whole table at N + k pools the observed and the future conditions (means, and the
  pooled variance with its between-part term), and the family test is run on it.

The draws are Gaussian multipliers of the centred observed midranks (two alternatives with
identical results everywhere stay identical in every draw), the same draws at every k
(common random numbers), so the estimated probability of holding moves smoothly with k and
the search is a monotone one: k on a grid (every k up to 10, then steps of at most 10 %).

A *family test* is any function of a :class:`FutureTable` returning, per draw, which claims
are declared in the promised direction: :func:`holm_rejects` and :func:`separated_raw` are
the building blocks of gx.conclusions' rules; another family (e.g. simultaneous intervals)
plugs in the same way.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .. import config

__all__ = ["PredictiveModel", "FutureTable", "KPlan", "search_k", "holm_rejects",
           "separated_raw", "k_grid", "shrinkage_factor"]

#: draws x pairs per block of the simulation (bounds the memory: about 16 MB a block array)
_BLOCK_WORK = 2_000_000
#: draws x claims per block of the fused kernel's events (bools: 16 MB), which holds no
#: (draws x pairs) array: its calls on fewer draws spent half their time again on set-up
_JUDGE_CELLS = 16_000_000


def shrinkage_factor(x: np.ndarray) -> float:
    """Return the empirical-Bayes factor B in [0, 1] of a study's mean-rank effects.

    Parameters
    ----------
    x : numpy.ndarray
        (N, na) per-condition midranks.

    Returns
    -------
    float
        ``max(0, 1 - tr(Sigma_hat) / (N S))`` with ``S = sum_a (mu_hat_a - m)^2`` and ``m``
        the mean of the mean ranks: 0 when the spread of the mean ranks is no more than
        their noise (pure noise), near 1 when the effects dominate.
    """
    N = x.shape[0]
    if N < 2:
        return 0.0
    mu = x.mean(axis=0)
    S = float(np.sum((mu - mu.mean()) ** 2))
    tr = float(np.sum((x - mu) ** 2)) / (N - 1)
    if S <= 0.0:
        return 0.0
    return max(0.0, 1.0 - tr / (N * S))


@dataclass
class FutureTable:
    """The simulated whole table at N + k conditions, for a block of draws.

    Attributes
    ----------
    n : int
        N + k.
    df : int
        Degrees of freedom of the paired t-test, N + k - 1.
    means : numpy.ndarray
        (draws, na) mean midranks at N + k.
    diff : numpy.ndarray
        (draws, P) mean midrank difference of each pair (first minus second) at N + k.
    sd : numpy.ndarray
        (draws, P) standard deviation of the per-condition difference at N + k.
    """

    n: int
    df: int
    means: np.ndarray
    diff: np.ndarray
    sd: np.ndarray

    @cached_property
    def t(self) -> np.ndarray:
        """Return the (draws, P) paired t statistics ``sqrt(n) diff / sd``.

        +-inf where sd = 0 and diff != 0, NaN where both are 0.
        """
        with np.errstate(divide="ignore", invalid="ignore"):
            return math.sqrt(self.n) * self.diff / self.sd


class PredictiveModel:
    """Draws of the effects given the data, and of the whole table at N + k.

    Parameters
    ----------
    x : numpy.ndarray
        (N, na) per-condition midranks (1 = best; ties share the mean place), N >= 2.
    draws : int
        Number of simulated futures.
    rng : numpy.random.Generator
        The stream of the draws.
    shrink : bool, default True
        Shrink the effects by the empirical-Bayes factor (:func:`shrinkage_factor`); False:
        the posterior under a flat prior.
    scale : bool, default False
        Draw the variances' scale from its posterior, ``g = (N - 1) / chi^2_{N-1}`` per draw
        (the leaderboards' tier plan); False: plug the estimated variances in (the plan of
        ``gx.conclusions``).
    pairs : tuple of numpy.ndarray, optional
        The (i, j) index arrays of the pairs (default: every pair i < j, in that order).

    Attributes
    ----------
    N, na, draws : int
    B : float
        The shrinkage factor used (1 without shrinkage).
    g : numpy.ndarray or None
        (draws,) the variances' scale of each draw (None when plugged in).
    i, j : numpy.ndarray
        The pairs.
    post : numpy.ndarray
        (draws, na) the mean midranks drawn given the data.
    e2 : numpy.ndarray
        (draws, na) the noise of one future condition's midranks, per draw.
    """

    def __init__(self, x: np.ndarray, *, draws: int, rng: np.random.Generator,
                 shrink: bool = True, scale: bool = False,
                 pairs: tuple[np.ndarray, np.ndarray] | None = None) -> None:
        x = np.asarray(x, dtype=float)
        N, na = x.shape
        if N < 2:
            raise ValueError("the predictive model needs at least 2 conditions")
        self.N, self.na, self.draws = N, na, int(draws)
        self.i, self.j = pairs if pairs is not None else np.triu_indices(na, k=1)
        mu = x.mean(axis=0)
        self.mu = mu
        xc = x - mu
        self.B = shrinkage_factor(x) if shrink else 1.0
        m = mu.mean()
        e1 = _multipliers(xc, self.draws, rng)
        self.e2 = _multipliers(xc, self.draws, rng)
        self._u = rng.random(self.draws)  # the chi-square of the future variance, by inversion
        self.g = None
        if scale:
            self.g = (N - 1) / rng.chisquare(N - 1, self.draws)
            root = np.sqrt(self.g)[:, None]
            self.post = m + self.B * (mu - m) + math.sqrt(self.B) * root * e1 / math.sqrt(N)
            self.e2 = root * self.e2
        else:
            self.post = m + self.B * (mu - m) + math.sqrt(self.B) * e1 / math.sqrt(N)
        d = x[:, self.i] - x[:, self.j]
        self.d_mean = d.mean(axis=0)
        self.d_var = d.var(axis=0, ddof=1)
        self._chi_cache: dict[int, np.ndarray] = {}

    @property
    def P(self) -> int:
        """Number of pairs in the family."""
        return int(self.i.size)

    def chi(self, k: int) -> np.ndarray:
        """Return each draw's future variance ratio, the same uniforms at every k.

        Parameters
        ----------
        k : int
            Conditions added.

        Returns
        -------
        numpy.ndarray
            (draws,) the sample variance of every pair's k future differences over its
            observed one: ``g chi^2_{k-1} / (k - 1)`` (``g`` = 1 when the scale is plugged
            in; 0 at k = 1).
        """
        if k < 2:
            return np.zeros(self.draws)
        if k not in self._chi_cache:
            from scipy.special import gammaincinv

            a = (k - 1) / 2.0
            c = gammaincinv(a, self._u) / a
            self._chi_cache[k] = c if self.g is None else self.g * c
        return self._chi_cache[k]

    def at(self, k: int, rows: slice = slice(None)) -> FutureTable:
        """Return the simulated whole table at N + k conditions (draws ``rows``).

        Parameters
        ----------
        k : int
            Conditions added (k >= 1).
        rows : slice
            Which draws (blocks bound the memory).

        Returns
        -------
        FutureTable
            Means, pair differences, their spread and t statistics at N + k.
        """
        N = self.N
        n = N + k
        f = self.post[rows] + self.e2[rows] / math.sqrt(k)
        fd = f[:, self.i] - f[:, self.j]
        dm, dv = self.d_mean, self.d_var
        diff = (N * dm + k * fd) / n
        between = (N * k / n) * (dm - fd) ** 2
        chi = self.chi(k)[rows][:, None]
        var = ((N - 1) * dv + (k - 1) * dv * chi + between) / (n - 1)
        means = (N * self.mu + k * f) / n
        return FutureTable(n=n, df=n - 1, means=means, diff=diff,
                           sd=np.sqrt(np.maximum(var, 0.0)))


def _multipliers(xc: np.ndarray, draws: int, rng: np.random.Generator) -> np.ndarray:
    """Gaussian-multiplier draws with the covariance of the rows of ``xc`` (centred data)."""
    N, na = xc.shape
    z = np.zeros((draws, na))
    step = max(1, 4_000_000 // max(1, draws))
    for start in range(0, N, step):
        stop = min(N, start + step)
        z += rng.standard_normal((draws, stop - start)) @ xc[start:stop]
    return z / math.sqrt(N - 1)


# ---------------------------------------------------------------------------------------
# family tests
# ---------------------------------------------------------------------------------------
def holm_critical(P: int, df: int, alpha: float) -> np.ndarray:
    """Critical |t| of Holm's step-down over P two-sided paired t-tests at level alpha.

    Parameters
    ----------
    P : int
        The size of the family.
    df : int
        Degrees of freedom of each test.
    alpha : float
        The family's level (1 - alpha* in gx.conclusions).

    Returns
    -------
    numpy.ndarray
        (P,) decreasing: the (i + 1)-th smallest p-value is rejected (with all before it)
        when its |t| exceeds entry i, ``t_{df}^{-1}(1 - alpha / (2 (P - i)))``.
    """
    from scipy.special import stdtrit

    from .._numba import run_blocks

    q = 1.0 - alpha / (2.0 * (P - np.arange(P)))
    out = np.empty(P)

    def block(r0: int, r1: int) -> None:  # elementwise: the same bits on any threads
        out[r0:r1] = stdtrit(float(df), q[r0:r1])

    # scipy's root search releases the GIL; about half a microsecond an entry
    run_blocks(block, P, work=500.0 * P, blocks_per_thread=1)
    return out


def holm_rejects(t: np.ndarray, df: int, alpha: float) -> np.ndarray:
    """Which pairs Holm's procedure rejects in each simulated table.

    Parameters
    ----------
    t : numpy.ndarray
        (draws, P) paired t statistics of the whole family.
    df : int
        Their degrees of freedom.
    alpha : float
        The family's level.

    Returns
    -------
    numpy.ndarray
        (draws, P) bool. Up to ``config.ROUTES.holm_numpy_max_work`` entries by sorting every
        row in NumPy; beyond, the numba kernel (the same rejections).
    """
    a = np.abs(np.asarray(t, dtype=float))
    a = np.where(np.isnan(a), 0.0, a)
    rows, P = a.shape
    crit = holm_critical(P, df, alpha)
    if rows * P <= config.ROUTES.holm_numpy_max_work:
        return _holm_sorted(a, crit)
    from .._numba.assurance import holm_rows

    out = np.zeros(a.shape, dtype=np.bool_)
    return holm_rows(np.ascontiguousarray(a), crit, out)


def _holm_sorted(a: np.ndarray, crit: np.ndarray) -> np.ndarray:
    """Holm's step-down by sorting every row (the NumPy route)."""
    rows, P = a.shape
    if P == 0:
        return np.zeros(a.shape, dtype=bool)
    srt = -np.sort(-a, axis=1)  # largest |t| (smallest p) first
    ok = srt > crit[None, :]
    fail = np.where(ok.all(axis=1), P, np.argmin(ok, axis=1))  # rejections per row
    cut = np.where(fail > 0, srt[np.arange(rows), np.maximum(fail - 1, 0)], np.inf)
    return (a >= cut[:, None]) & (fail[:, None] > 0)


def separated_raw(t: np.ndarray, df: int, alpha: float) -> np.ndarray:
    """Which pairs a two-sided paired t-test separates at level alpha, one by one.

    Parameters
    ----------
    t : numpy.ndarray
        (draws, P) paired t statistics.
    df : int
        Their degrees of freedom.
    alpha : float
        The level.

    Returns
    -------
    numpy.ndarray
        (draws, P) bool: ``|t| > t_{df}^{-1}(1 - alpha / 2)``.
    """
    from scipy.special import stdtrit

    c = float(stdtrit(float(df), 1.0 - alpha / 2.0))
    with np.errstate(invalid="ignore"):
        return np.abs(t) > c


# ---------------------------------------------------------------------------------------
# the search
# ---------------------------------------------------------------------------------------
def k_grid(k_max: int) -> np.ndarray:
    """Return the values of k of a grid: 1 to 10, then steps of at most 10 %.

    Parameters
    ----------
    k_max : int
        The largest k searched.

    Returns
    -------
    numpy.ndarray
        Increasing integers from 1 to ``k_max``.
    """
    out = list(range(1, min(10, k_max) + 1))
    while out[-1] < k_max:
        out.append(min(k_max, max(out[-1] + 1, int(math.floor(out[-1] * 1.1)))))
    return np.asarray(out, dtype=np.int64)


@dataclass
class KPlan:
    """The plan of C claims: the k after which each holds with the stated assurance.

    Attributes
    ----------
    k : numpy.ndarray
        (C,) the smallest k of the grid with ``p_hold >= assurance``; -1 where none up to
        ``k_max``.
    k_lo, k_hi : numpy.ndarray
        (C,) the predictive interval (at ``level``) of the first k of the grid at which the
        claim holds in a simulated future; -1 for an end beyond ``k_max``.
    p_hold : numpy.ndarray
        (C,) the estimated probability of holding at ``k`` (at ``k_max`` where -1).
    p_hold_se : numpy.ndarray
        (C,) its Monte Carlo standard error, ``sqrt(p (1 - p) / draws)``.
    draws : int
    assurance, level : float
    k_max : int
    evaluated : numpy.ndarray
        The values of k at which the family test was run.
    """

    k: np.ndarray
    k_lo: np.ndarray
    k_hi: np.ndarray
    p_hold: np.ndarray
    p_hold_se: np.ndarray
    draws: int
    assurance: float
    level: float
    k_max: int
    evaluated: np.ndarray


Event = Callable[[FutureTable], np.ndarray]


class _Tally:
    """Counts of holding draws per (k, claim), and each draw's first k of holding."""

    def __init__(self, draws: int, C: int) -> None:
        self.hits: dict[int, np.ndarray] = {}
        self.first = np.full((draws, C), np.iinfo(np.int64).max, dtype=np.int64)

    def run(self, model: PredictiveModel, event: Event | None, ks, bar,
            judge: Callable[[int, slice], np.ndarray] | None = None) -> None:
        block = max(1, _BLOCK_WORK // max(1, model.P))
        tally = None
        if judge is not None:  # the fused kernel: numba is loaded, the counts in a loop too
            from .._numba.assurance import tally_events as tally

            block = max(1, _JUDGE_CELLS // max(1, self.first.shape[1]))
        for k in ks:
            k = int(k)
            if k in self.hits:
                continue
            hits = np.zeros(self.first.shape[1], dtype=np.int64)
            for start in range(0, model.draws, block):
                sl = slice(start, min(model.draws, start + block))
                ev = np.asarray(judge(k, sl) if judge is not None
                                else event(model.at(k, sl)), dtype=bool)
                f = self.first[sl]  # a view: each draw's first k of holding, in place
                if tally is not None:
                    tally(np.ascontiguousarray(ev), k, f, hits)
                    continue
                hits += ev.sum(axis=0)
                np.minimum(f, k, out=f, where=ev)
            self.hits[k] = hits
            if bar is not None:
                bar.update(1)


def search_k(model: PredictiveModel, event: Event | None, n_claims: int, *,
             assurance: float = 0.8, k_max: int = 1000, level: float = 0.90,
             progress: bool = False,
             judge: Callable[[int, slice], np.ndarray] | None = None) -> KPlan:
    """Find, for every claim, the smallest k after which it holds with the assurance.

    Parameters
    ----------
    model : PredictiveModel
        The draws (the same at every k).
    event : callable
        ``event(FutureTable) -> (draws, n_claims) bool``: whether each claim is declared, in
        the promised direction, in each simulated table.
    n_claims : int
        C, the number of claims.
    assurance : float, default 0.8
        The probability of holding to reach.
    k_max : int, default 1000
        The largest k searched.
    level : float, default 0.90
        Level of the predictive interval of k.
    progress : bool, default False
        A progress bar over the values of k evaluated.
    judge : callable, optional
        ``judge(k, rows) -> (len(rows), n_claims) bool``: the events computed directly
        from the model's draws ``rows`` at N + k, in place of ``event(model.at(k, rows))``
        (a fused kernel of the same rule).

    Returns
    -------
    KPlan
        k, its interval, the probability of holding at k and its Monte Carlo error.

    Notes
    -----
    First k = 1, 2, 4, ... up to ``k_max`` (and ``k_max``); then the geometric middle of
    each bracket where some claim first reaches the assurance; k is read off between the
    evaluated values, linear on log k (they are at most a factor sqrt(2) apart), and rounded
    up, as is ``p_hold`` there. Every evaluation runs the family test once on all the draws
    and serves every claim: about 20 evaluations whatever the number of claims.
    """
    C = int(n_claims)
    tally = _Tally(model.draws, C)
    coarse = sorted({*(int(g) for g in 2 ** np.arange(int(math.log2(max(k_max, 1))) + 1)
                       if g <= k_max), int(k_max)})
    bar = None
    if progress:
        from .._progress import tqdm

        bar = tqdm(desc="plan: conditions to add", unit="k", leave=False)
    try:
        tally.run(model, event, coarse, bar, judge)
        reached = np.array([tally.hits[k] for k in coarse]) >= assurance * model.draws
        first = np.where(reached.any(axis=0), np.argmax(reached, axis=0), -1)
        fine = set()
        for b in sorted({int(f) for f in first if f > 0}):
            lo, hi = coarse[b - 1], coarse[b]
            if hi - lo > 1:
                fine.add(int(round(math.sqrt(lo * hi))))
        tally.run(model, event, sorted(fine - set(coarse)), bar, judge)
    finally:
        if bar is not None:
            bar.close()
    ks = np.array(sorted(tally.hits))
    A = np.array([tally.hits[k] for k in ks]) / model.draws  # (len(ks), C)
    k_out, p_out = _crossing(ks, A, assurance)
    never = np.iinfo(np.int64).max
    tail = (1.0 - level) / 2.0
    qs = np.quantile(tally.first, [tail, 1.0 - tail], axis=0, method="inverted_cdf")
    k_lo = np.where(qs[0] == never, -1, qs[0]).astype(np.int64)
    k_hi = np.where(qs[1] == never, -1, qs[1]).astype(np.int64)
    se = np.sqrt(p_out * (1.0 - p_out) / model.draws)
    return KPlan(k=k_out, k_lo=k_lo, k_hi=k_hi, p_hold=p_out, p_hold_se=se,
                 draws=model.draws, assurance=float(assurance), level=float(level),
                 k_max=int(k_max), evaluated=ks)


def _crossing(ks: np.ndarray, A: np.ndarray, assurance: float
              ) -> tuple[np.ndarray, np.ndarray]:
    """Where each claim's probability of holding first reaches the assurance.

    Between the last evaluated k below it and the first at or above it (at most a factor
    sqrt(2) apart), linear on log k; k rounded up. Returns (k, p at k); k = -1 and p at the
    largest k where it is never reached.
    """
    C = A.shape[1]
    reached = A >= assurance
    k_out = np.full(C, -1, dtype=np.int64)
    p_out = A[-1].copy()
    for c in np.flatnonzero(reached.any(axis=0)):
        h = int(np.argmax(reached[:, c]))
        if h == 0:
            k_out[c], p_out[c] = ks[0], A[0, c]
            continue
        k0, k1, a0, a1 = ks[h - 1], ks[h], A[h - 1, c], A[h, c]
        frac = (assurance - a0) / (a1 - a0)
        k = int(math.ceil(math.exp(math.log(k0) + frac * math.log(k1 / k0)) - 1e-9))
        k = min(max(k, int(k0) + 1), int(k1))
        k_out[c] = k
        p_out[c] = a0 + (a1 - a0) * math.log(k / k0) / math.log(k1 / k0)
    return k_out, p_out
