"""Verdicts that stay valid however often you look: e-processes on paired midrank differences.

A fixed-N test looked at after every added condition declares "holds" by chance far more often
than its level: each look is another chance. This module gives, for every pair (a, b) of a
configuration, an **anytime-valid p-value**: the probability that it ever falls below u, at
any number of conditions, is at most u when a is not ahead of b (SPEC A15). It comes from
testing by betting (Shafer 2021; Waudby-Smith & Ramdas 2023, "Estimating means of bounded
random variables by betting", JRSS-B 86(1)): the per-condition midrank difference of the pair,
scaled to ``x = d / (na - 1)`` in [-1, 1], is bet on, one condition at a time, in the order
the conditions were added:

    K+_t = prod_{s <= t} (1 + lambda+_s x_s),    K-_t = prod_{s <= t} (1 - lambda-_s x_s),

with bets ``lambda_s`` in [0, c] chosen from the conditions before s only (the approximate
growth-rate adaptive plug-in, aGRAPA, of Waudby-Smith & Ramdas:
``lambda = mean / (variance + mean^2)``, clipped). Under "the mean difference is <= 0", K+
is a nonnegative supermartingale, so by Ville's inequality P(sup_t K+_t >= 1/u) <= u; the same
for K-. The two-sided, directional p-value after t conditions is
``min(1, 2 / max(max_{s<=t} K+_s, max_{s<=t} K-_s))`` (the running maximum: a look never
loses what an earlier look saw), its direction the side that bet successfully.

The family: Holm's step-down on these p-values. At any time, a true null can be rejected
first only with a p-value below (1 - alpha*) / m0 (m0 the true nulls), so the probability that
*any* look rejects *any* true null is at most the sum over the true nulls of
P(ever p <= (1 - alpha*) / m0) <= 1 - alpha* (the e-value analogue of Bonferroni's argument;
Vovk & Wang 2021, "E-values: calibration, combination and applications", Ann. Stat. 49(3)).
The best, the top group and the order rest on pairs of that family only, so the error of the
whole configuration's frame stays at 1 - alpha* under continuous monitoring.

The conditions are read in the order of the table (the order they first appear): add new
conditions at its end. The order of the first batch does not matter for the guarantee as
long as it was not chosen by looking at the results.
"""

from __future__ import annotations

import numpy as np

__all__ = ["EState", "BET_CAP", "eprocess_state", "advance", "anytime_p"]

#: the largest bet (the fraction of the capital put on one condition): 1 + lambda x >= 1 - c;
#: 3/4 as in Waudby-Smith & Ramdas' experiments (on simulated winners it needed 20-25 % fewer
#: conditions than 1/2, and 0.9 no fewer at 6 alternatives)
BET_CAP = 0.75
#: the prior of the running mean and variance of the bets (one pseudo-condition of variance
#: 1/4, the largest a variable in [-1, 1] with mean 0 can have at half its range)
PRIOR_VAR = 0.25
MIN_VAR = 1e-6


class EState:
    """The state of the two one-sided betting e-processes of P pairs.

    Attributes
    ----------
    n : int
        Conditions seen.
    s1, s2 : numpy.ndarray
        (P,) sums of x and x^2 (for the next bets).
    log_p, log_m : numpy.ndarray
        (P,) log capital of the bets on "positive" and on "negative" differences.
    max_p, max_m : numpy.ndarray
        (P,) their running maxima.
    """

    def __init__(self, P: int) -> None:
        self.n = 0
        self.s1 = np.zeros(P)
        self.s2 = np.zeros(P)
        self.log_p = np.zeros(P)
        self.log_m = np.zeros(P)
        self.max_p = np.zeros(P)
        self.max_m = np.zeros(P)

    def copy(self) -> EState:
        """Return an independent copy."""
        out = EState(0)
        out.n = self.n
        for k in ("s1", "s2", "log_p", "log_m", "max_p", "max_m"):
            setattr(out, k, getattr(self, k).copy())
        return out


def bets(s1: np.ndarray, s2: np.ndarray, n: int, cap: float = BET_CAP
         ) -> tuple[np.ndarray, np.ndarray]:
    """Return the bets (lambda+, lambda-) for the next condition from the past ones.

    Parameters
    ----------
    s1, s2 : numpy.ndarray
        Sums of the past x and x^2.
    n : int
        Number of past conditions.
    cap : float
        The largest bet.

    Returns
    -------
    tuple of numpy.ndarray
        ``clip(+-m / (v + m^2), 0, cap)`` with ``m = s1 / (n + 1)`` and
        ``v = max((1/4 + s2) / (n + 1) - m^2, 1e-6)``: at most one of them is nonzero.
    """
    m = s1 / (n + 1.0)
    v = np.maximum((PRIOR_VAR + s2) / (n + 1.0) - m * m, MIN_VAR)
    g = m / (v + m * m)
    return np.clip(g, 0.0, cap), np.clip(-g, 0.0, cap)


def advance(state: EState, x: np.ndarray, cap: float = BET_CAP) -> None:
    """Add one condition (x: its scaled pair differences, shape (P,)) to the e-processes.

    Parameters
    ----------
    state : EState
        Updated in place.
    x : numpy.ndarray
        (P,) the condition's midrank differences over (na - 1), in [-1, 1].
    cap : float
        The largest bet.
    """
    lp, lm = bets(state.s1, state.s2, state.n, cap)
    state.log_p += np.log1p(lp * x)
    state.log_m += np.log1p(-lm * x)
    np.maximum(state.max_p, state.log_p, out=state.max_p)
    np.maximum(state.max_m, state.log_m, out=state.max_m)
    state.s1 += x
    state.s2 += x * x
    state.n += 1


def eprocess_state(x: np.ndarray, i: np.ndarray, j: np.ndarray,
                   cap: float = BET_CAP) -> EState:
    """Run the e-processes of the pairs (i, j) over the conditions, in the rows' order.

    Parameters
    ----------
    x : numpy.ndarray
        (N, na) per-condition midranks, in the order the conditions were added.
    i, j : numpy.ndarray
        The pairs (index arrays).
    cap : float
        The largest bet.

    Returns
    -------
    EState
        The state after the N conditions.
    """
    x = np.asarray(x, dtype=float)
    na = x.shape[1]
    scale = 1.0 / max(na - 1, 1)
    st = EState(int(np.size(i)))
    for row in x:
        advance(st, (row[i] - row[j]) * scale, cap)
    return st


def anytime_p(state: EState) -> tuple[np.ndarray, np.ndarray]:
    """Return the anytime-valid two-sided p-values and the directions they point to.

    Parameters
    ----------
    state : EState
        The e-processes.

    Returns
    -------
    tuple of numpy.ndarray
        ``p = min(1, 2 exp(-max(max_p, max_m)))`` and the sign (+1: the first of the pair has
        the larger midranks, i.e. is behind; -1: ahead; 0: no evidence either way).
    """
    best = np.maximum(state.max_p, state.max_m)
    p = np.minimum(1.0, 2.0 * np.exp(-best))
    sign = np.where(state.max_p > state.max_m, 1, np.where(state.max_m > state.max_p, -1, 0))
    return p, sign
