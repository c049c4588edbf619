"""The plan's predictive engine, mirrored from issue 47's (SPEC A15).

Issue 47 builds the engine of "needs k more" for the pair conclusions in
``genexpy_nb/generalizability/assurance.py`` (``PredictiveModel``, ``FutureTable``,
``search_k``, ``KPlan``). This module has the same objects with the same semantics, so
that the tiers' plan is the same rule applied to another family test; when both are merged,
``tiers`` imports them from there and this module goes.

The model (one configuration; x the N x K per-condition midranks):

* the effects given the data, ``mu ~ N(m + B (mu_hat - m), B Sigma_hat / N)``: ``m`` the
  common mean rank, ``B = max(0, 1 - tr(Sigma_hat) / (N S))`` an empirical-Bayes factor that
  shrinks the effects toward "all equal" (``S`` the sum of squares of ``mu_hat - m``; Efron
  & Morris 1973): the cuts that ask for more were selected for looking promising;
* k future conditions given them: their mean ``f ~ N(mu, Sigma_hat / k)``, the sample
  variance of a pair's future differences ``sigma_hat^2 chi^2_{k-1} / (k - 1)``;
* (here, beyond issue 47's engine) the scale of the variances is uncertain too: each draw
  multiplies Sigma_hat by ``g = (N - 1) / chi^2_{N-1}`` (the posterior of a variance
  estimated from N conditions) in the effects' spread, the future conditions' noise and their
  variance. Checked by doing it (``scripts/tiers_plan_check.py``): with the variances
  plugged in, a cut promised with assurance 0.8 was kept in 0.38 of the simulated studies of
  12 alternatives over 20 conditions; the future variances of the cuts that ask for more
  were underestimated (a studentised statistic is convex in 1 / sigma);
* the whole table at N + k pools the observed and the future conditions (means, and the
  pooled variance with its between-part term).

Draws are Gaussian multipliers of the centred observed midranks (two alternatives equal in
every condition stay equal in every draw), the same at every k (common random numbers).
The search runs the family test at k = 1, 2, 4, ... and ``k_max``, then at the geometric
middle of each bracket where a claim first reaches the assurance, and reads k off between
the evaluated values (linear on log k, rounded up); the interval of k is the ``level``
predictive interval of the first evaluated k at which the claim holds in a draw.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

#: draws x pairs per block of the simulation (bounds the memory)
_BLOCK_WORK = 2_000_000


def shrinkage_factor(x: np.ndarray) -> float:
    """Return the empirical-Bayes factor B in [0, 1] of a study's mean-rank effects.

    Parameters
    ----------
    x : numpy.ndarray
        (N, K) per-condition midranks.

    Returns
    -------
    float
        ``max(0, 1 - tr(Sigma_hat) / (N S))``: 0 when the spread of the mean ranks is no
        more than their noise, near 1 when the effects dominate.
    """
    N = x.shape[0]
    if N < 2:
        return 0.0
    mu = x.mean(axis=0)
    S = float(np.sum((mu - mu.mean()) ** 2))
    tr = float(np.sum((x - mu) ** 2)) / (N - 1)
    return 0.0 if S <= 0.0 else max(0.0, 1.0 - tr / (N * S))


@dataclass
class FutureTable:
    """The simulated whole table at N + k conditions, for a block of draws.

    ``n`` = N + k, ``df`` = n - 1; ``means`` (draws, K); ``diff`` (draws, P) the mean
    difference of each pair (first minus second); ``sd`` (draws, P) the standard deviation
    of its per-condition difference.
    """

    n: int
    df: int
    means: np.ndarray
    diff: np.ndarray
    sd: np.ndarray


def _multipliers(xc: np.ndarray, draws: int, rng: np.random.Generator) -> np.ndarray:
    N, K = xc.shape
    z = np.zeros((draws, K))
    step = max(1, 4_000_000 // max(1, draws))
    for start in range(0, N, step):
        stop = min(N, start + step)
        z += rng.standard_normal((draws, stop - start)) @ xc[start:stop]
    return z / math.sqrt(N - 1)


class PredictiveModel:
    """Draws of the effects given the data, and of the whole table at N + k.

    Parameters
    ----------
    x : numpy.ndarray
        (N, K) per-condition midranks, N >= 2.
    draws : int
        Simulated futures.
    rng : numpy.random.Generator
        Their stream.
    shrink : bool
        Shrink the effects by :func:`shrinkage_factor` (default) or not (flat prior).
    scale : bool
        Draw the variances' scale from its posterior (default) or plug the estimate in.
    """

    def __init__(self, x: np.ndarray, *, draws: int, rng: np.random.Generator,
                 shrink: bool = True, scale: bool = True) -> None:
        x = np.asarray(x, dtype=float)
        N, K = x.shape
        self.N, self.K, self.draws = N, K, int(draws)
        self.i, self.j = np.triu_indices(K, k=1)
        mu = x.mean(axis=0)
        self.mu = mu
        xc = x - mu
        self.B = shrinkage_factor(x) if shrink else 1.0
        m = mu.mean()
        e1 = _multipliers(xc, self.draws, rng)
        self.e2 = _multipliers(xc, self.draws, rng)
        self._u = rng.random(self.draws)
        #: (draws,) the variances' scale given the data: (N - 1) / chi^2_{N-1}, or 1
        self.g = ((N - 1) / rng.chisquare(N - 1, self.draws) if scale and N > 1
                  else np.ones(self.draws))
        root = np.sqrt(self.g)[:, None]
        self.post = m + self.B * (mu - m) + math.sqrt(self.B) * root * e1 / math.sqrt(N)
        self.e2 = root * self.e2
        d = x[:, self.i] - x[:, self.j]
        self.d_mean = d.mean(axis=0)
        self.d_var = d.var(axis=0, ddof=1)
        self._chi: dict[int, np.ndarray] = {}

    @property
    def P(self) -> int:
        """The number of pairs."""
        return int(self.i.size)

    def chi(self, k: int) -> np.ndarray:
        """Each draw's ``chi^2_{k-1} / (k - 1)`` (0 at k = 1), the same uniforms at every k."""
        if k < 2:
            return np.zeros(self.draws)
        if k not in self._chi:
            from scipy.special import gammaincinv

            a = (k - 1) / 2.0
            self._chi[k] = gammaincinv(a, self._u) / a
        return self._chi[k]

    def at(self, k: int, rows: slice = slice(None)) -> FutureTable:
        """Return the simulated whole table at N + k conditions (draws ``rows``), k >= 1."""
        N = self.N
        n = N + k
        f = self.post[rows] + self.e2[rows] / math.sqrt(k)
        fd = f[:, self.i] - f[:, self.j]
        dm, dv = self.d_mean, self.d_var
        diff = (N * dm + k * fd) / n
        between = (N * k / n) * (dm - fd) ** 2
        fut = (self.g[rows] * self.chi(k)[rows])[:, None]
        var = ((N - 1) * dv + (k - 1) * dv * fut + between) / (n - 1)
        return FutureTable(n=n, df=n - 1, means=(N * self.mu + k * f) / n, diff=diff,
                           sd=np.sqrt(np.maximum(var, 0.0)))


@dataclass
class KPlan:
    """The plan of C claims (``k`` -1 where not within ``k_max``; ``k_hi`` -1 beyond it)."""

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


def search_k(model: PredictiveModel, event: Callable[[FutureTable], np.ndarray],
             n_claims: int, *, assurance: float = 0.8, k_max: int = 1000,
             level: float = 0.90) -> KPlan:
    """For every claim, the smallest k after which the family test declares it with the assurance.

    Parameters
    ----------
    model : PredictiveModel
        The draws.
    event : callable
        ``event(FutureTable) -> (draws, n_claims) bool``.
    n_claims : int
        The number of claims.
    assurance : float
        The probability of holding to reach.
    k_max : int
        The largest k searched.
    level : float
        Level of the predictive interval of k.

    Returns
    -------
    KPlan
    """
    C = int(n_claims)
    hits: dict[int, np.ndarray] = {}
    first = np.full((model.draws, C), np.iinfo(np.int64).max, dtype=np.int64)
    block = max(1, _BLOCK_WORK // max(1, model.P))

    def run(ks):
        for k in ks:
            if k in hits:
                continue
            tot = np.zeros(C, dtype=np.int64)
            for s in range(0, model.draws, block):
                sl = slice(s, min(model.draws, s + block))
                ev = np.asarray(event(model.at(int(k), sl)), dtype=bool)
                tot += ev.sum(axis=0)
                first[sl] = np.where(ev, np.minimum(first[sl], k), first[sl])
            hits[int(k)] = tot

    coarse = sorted({*(int(g) for g in 2 ** np.arange(int(math.log2(max(k_max, 1))) + 1)
                       if g <= k_max), int(k_max)})
    run(coarse)
    reached = np.array([hits[k] for k in coarse]) >= assurance * model.draws
    fb = np.where(reached.any(axis=0), np.argmax(reached, axis=0), -1)
    fine = {int(round(math.sqrt(coarse[b - 1] * coarse[b]))) for b in set(fb.tolist())
            if b > 0 and coarse[b] - coarse[b - 1] > 1}
    run(sorted(fine - set(coarse)))
    ks = np.array(sorted(hits))
    A = np.array([hits[k] for k in ks]) / model.draws
    k_out, p_out = _crossing(ks, A, assurance)
    never = np.iinfo(np.int64).max
    tail = (1.0 - level) / 2.0
    qs = np.quantile(first, [tail, 1.0 - tail], axis=0, method="inverted_cdf")
    return KPlan(k=k_out, k_lo=np.where(qs[0] == never, -1, qs[0]).astype(np.int64),
                 k_hi=np.where(qs[1] == never, -1, qs[1]).astype(np.int64), p_hold=p_out,
                 p_hold_se=np.sqrt(p_out * (1.0 - p_out) / model.draws), draws=model.draws,
                 assurance=float(assurance), level=float(level), k_max=int(k_max),
                 evaluated=ks)


def _crossing(ks: np.ndarray, A: np.ndarray, assurance: float
              ) -> tuple[np.ndarray, np.ndarray]:
    """Where each claim's probability first reaches the assurance (linear on log k)."""
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
