"""The family test behind the rank sets, the tiers and their plan (SPEC A16).

Every ordered pair (a, b) of alternatives carries the hypothesis "a is not ahead of b"; the
max-t step-down procedure (Romano & Wolf 2005) rejects a set of them whose probability of
containing a true one is at most ``1 - level``, whatever the truth (asymptotically). Mogstad,
Romano, Shaikh & Wilhelm (2023, Sec. 3) turn the rejections into places: alternative a is
surely behind every b of a rejected "b is not ahead of a", surely ahead of every b of a
rejected "a is not ahead of b", so its place lies in
``[1 + #surely ahead of it, K - #surely behind it]`` for all alternatives at once.

Statistics. For a pair p = (i, j) the observed statistic is ``T_p = d_p / se_p`` (d the
difference of the ranked quantity, positive when i is behind) and the bootstrap supplies the
centred draws ``G[b, p] = (d*_p - d_p) / se_p``. A step's critical value is the ``level``
quantile over the draws of the largest standing statistic, floored at 0 (no alternative is
declared ahead of one it trails). It is never larger than the Bonferroni value of the same
draws (the smallest c with ``sum_h P*(G_h > c) <= 1 - level``: the union bound holds in the
bootstrap's own distribution), so the sets are never wider than that Bonferroni projection;
against the Bonferroni projection of paired t-tests they are compared by simulation.

Small samples. The statistics are studentised in the data and again in every bootstrap
replicate (the bootstrap-t of Romano & Wolf 2005, Sec. 4), which carries the heavier tails of
a studentised mean into the critical value. Midranks are discrete, and a replicate can draw
conditions in which a pair's difference never varies (a zero standard deviation, an infinite
statistic); each pair's variance is therefore moderated with one prior degree of freedom at
the data's mean variance of the pairs (``s~^2 = ((n - 1) s^2 + s0^2) / n``, Smyth 2004), in
the data and in every replicate alike (``s0^2`` held fixed). Checked by simulation
(``scripts/rank_sets_calibration.py``): with no alternative better than another, the
probability of declaring any pair ordered stays at or below ``1 - level`` from 10
conditions on (without the moderation, or studentising only in the data, it reached twice
that at 10 conditions).
"""

from __future__ import annotations

import math

import numpy as np

from .. import config

#: the L largest |G| kept per bootstrap draw for the kernel's fast maximum
TOP_L = 48


def t_rescale(T: np.ndarray, df_from: float, df_to: float) -> np.ndarray:
    """Move statistics from Student's t with ``df_from`` degrees of freedom to ``df_to``.

    ``F_t^-1(F_t(T; df_from); df_to)``, through the tail on the statistic's side (no
    cancellation); the identity when the two are equal. The plan of the tiers uses it to
    meet statistics predicted at N + k conditions with the critical values of the bootstrap
    at N (its studentised draws have the tails of N - 1 degrees of freedom).

    Parameters
    ----------
    T : numpy.ndarray
        The statistics (±inf allowed).
    df_from, df_to : float
        Degrees of freedom (``math.inf``: normal).

    Returns
    -------
    numpy.ndarray
        The statistics on the new scale, same shape.
    """
    from scipy.special import ndtr, ndtri, stdtr, stdtrit

    T = np.asarray(T, dtype=float)
    if df_from == df_to:
        return T.copy()
    a = -np.abs(T)
    tail = ndtr(a) if math.isinf(df_from) else stdtr(df_from, a)
    with np.errstate(divide="ignore"):
        z = -(ndtri(tail) if math.isinf(df_to) else stdtrit(df_to, tail))
    z = np.where(np.isinf(T), np.inf, np.where(T == 0, 0.0, z))
    return np.where(T < 0, -z, z)


def kth_index(level: float, reps: int) -> int:
    """Index (0-based) of the order statistic of ``reps`` maxima used as the critical value.

    The ``ceil(level * reps)``-th smallest: at least a share ``level`` of the draws lie at or
    below it.
    """
    return min(reps - 1, max(0, math.ceil(level * reps - 1e-9) - 1))


def top_order(G: np.ndarray, L: int = TOP_L) -> np.ndarray:
    """Per bootstrap draw (row of G), the columns of its L largest ``|G|``, largest first.

    Equal values in any order: the step-down reads only the values through it.
    """
    B, P = G.shape
    L = min(L, P)
    if L == P:
        idx = np.argsort(-np.abs(G), axis=1, kind="stable")
        return np.ascontiguousarray(idx, dtype=np.int32)
    from .._numba import run_blocks
    from .._numba.leaderboards import top_abs

    order = np.empty((B, L), dtype=np.int32)
    G = np.ascontiguousarray(G, dtype=np.float32)
    run_blocks(lambda r0, r1: top_abs(G, L, order, r0, r1), B, work=float(B) * P)
    return order


def _stepdown_numpy(z: np.ndarray, G: np.ndarray, kth: int, live: np.ndarray,
                    cmap: tuple[np.ndarray, np.ndarray] | None) -> np.ndarray:
    """One data set's step-down with NumPy: every standing hypothesis scanned per step."""
    live = live.copy()
    out = np.zeros(z.size, dtype=np.int8)
    nlive = int(np.sum(live & 1) + np.sum((live >> 1) & 1))
    up = (live & 1).astype(bool)
    down = (live & 2).astype(bool)
    while nlive > 0:
        mp = np.where(up, G, -np.inf).max(axis=1) if up.any() else np.full(G.shape[0],
                                                                              -np.inf)
        mm = np.where(down, -G, -np.inf).max(axis=1) if down.any() else np.full(
            G.shape[0], -np.inf)
        m = np.maximum(mp, mm).astype(np.float64)
        c = float(np.sort(m)[kth])
        c = max(c, 0.0)
        if cmap is not None:
            c = float(np.interp(c, *cmap)) if c < cmap[0][-1] else float(
                cmap[1][-1] if math.isfinite(c) else c)
        new_up = up & (z > c)
        new_down = down & ~new_up & (-z > c)
        new = int(new_up.sum() + new_down.sum())
        if new == 0:
            break
        out[new_up] = 1
        out[new_down] = -1
        up &= ~new_up
        down &= ~new_down
        nlive -= new
    return out


def stepdown(Z: np.ndarray, G: np.ndarray, level: float,
             live0: np.ndarray | None = None,
             cmap: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """Run the max-t step-down test on each row of ``Z`` against the draws ``G``.

    Parameters
    ----------
    Z : numpy.ndarray
        (D, P) or (P,) observed statistics, on the scale of ``G``; positive: the pair's
        first alternative is behind.
    G : numpy.ndarray
        (B, P) centred bootstrap (or Gaussian) draws of the normalised statistics.
    level : float
        The family's level (the probability that no true hypothesis is rejected).
    live0 : numpy.ndarray, optional
        (P,) uint8: the hypotheses in the family (bit 1: "j is not ahead of i", bit 2: "i is
        not ahead of j"); default both of every pair.
    cmap : tuple of numpy.ndarray, optional
        ``(grid, values)``: a monotone map of each critical value onto the scale of Z
        (linear interpolation; the plan's statistics at N + k meet the critical values of
        the bootstrap at N through it). Default: the identity.

    Returns
    -------
    numpy.ndarray
        int8, the shape of Z: +1 where the pair's second alternative is shown ahead, -1
        where its first is, 0 where neither.
    """
    one = np.ndim(Z) == 1
    Z2 = np.atleast_2d(np.asarray(Z, dtype=np.float64))
    D, P = Z2.shape
    G = np.ascontiguousarray(G, dtype=np.float32)
    B = G.shape[0]
    live = (np.full(P, 3, np.uint8) if live0 is None
            else np.ascontiguousarray(live0, dtype=np.uint8))
    kth = kth_index(level, B)
    if D * B * P <= config.ROUTES.leaderboards_numpy_max_work:
        out = np.stack([_stepdown_numpy(Z2[r], G, kth, live, cmap) for r in range(D)])
    else:
        from .._numba import run_blocks
        from .._numba.leaderboards import stepdown_rows

        order = top_order(G)
        out = np.zeros((D, P), dtype=np.int8)
        Zc = np.ascontiguousarray(Z2)
        empty = np.zeros(0)
        cg, cm = ((empty, empty) if cmap is None else
                  (np.ascontiguousarray(cmap[0], float), np.ascontiguousarray(cmap[1], float)))

        def block(r0: int, r1: int) -> None:
            stepdown_rows(Zc, G, order, kth, cg, cm, live, out, r0, r1)

        run_blocks(block, D, work=float(D) * (B * 8 + P) * 4)
    return out[0] if one else out


def studentised_pairs(d: np.ndarray, dstar: np.ndarray, spread: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray]:
    """Observed statistics and centred draws of pair differences scaled by their spread.

    ``T = d / spread`` and ``G = (d* - d) / spread``; where the spread is 0 the draws are 0
    and T is ±inf (0 where d is 0 too).

    Returns
    -------
    T : numpy.ndarray
        (P,)
    G : numpy.ndarray
        (B, P) float32.
    """
    ok = spread > 0
    s = np.where(ok, spread, 1.0)
    T = np.where(ok, d / s, np.where(d > 0, np.inf, np.where(d < 0, -np.inf, 0.0)))
    G = np.where(ok, (dstar - d) / s, 0.0).astype(np.float32)
    return T, G


def marginal_places(iu: np.ndarray, ju: np.ndarray, Z: np.ndarray, G: np.ndarray,
                    level: float, K: int) -> tuple[np.ndarray, np.ndarray]:
    """Marginal place sets: each alternative's step-down over its own 2 (K - 1) hypotheses.

    Parameters
    ----------
    iu, ju : numpy.ndarray
        The pairs (i < j).
    Z : numpy.ndarray
        (P,) observed statistics (positive: i behind).
    G : numpy.ndarray
        (B, P) bootstrap draws.
    level : float
        The level of each alternative's family.
    K : int
        The number of alternatives.

    Returns
    -------
    lo, hi : numpy.ndarray
        (K,) int64 places.
    """
    lo = np.ones(K, dtype=np.int64)
    hi = np.full(K, K, dtype=np.int64)
    for a in range(K):
        cols = np.flatnonzero((iu == a) | (ju == a))
        if cols.size == 0:
            continue
        r = stepdown(Z[cols], G[:, cols], level)
        first = iu[cols] == a  # a is the pair's first: +1 means the other is ahead
        lo[a] = 1 + int(np.where(first, r > 0, r < 0).sum())
        hi[a] = K - int(np.where(first, r < 0, r > 0).sum())
    return lo, hi


def ahead_matrix(rej: np.ndarray, iu: np.ndarray, ju: np.ndarray, K: int) -> np.ndarray:
    """(K, K) bool: ``A[a, b]`` when a is shown ahead of b, from one row of rejections."""
    A = np.zeros((K, K), dtype=bool)
    A[ju[rej > 0], iu[rej > 0]] = True
    A[iu[rej < 0], ju[rej < 0]] = True
    return A


def places(A: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Place sets ``[1 + #ahead of a, K - #behind a]`` from the matrix of :func:`ahead_matrix`."""
    K = A.shape[0]
    return 1 + A.sum(axis=0), K - A.sum(axis=1)


def tier_cuts(A: np.ndarray, order: np.ndarray) -> np.ndarray:
    """Whether each cut after position p (1..K-1) of ``order`` separates all above from all below.

    A cut after p holds when every alternative of the first p is shown ahead of every one
    after: for each alternative the last position of one it is not shown ahead of must not
    pass p.

    Parameters
    ----------
    A : numpy.ndarray
        (K, K) bool, ``A[a, b]``: a is shown ahead of b.
    order : numpy.ndarray
        The alternatives from the best estimate to the worst.

    Returns
    -------
    numpy.ndarray
        (K - 1,) bool: element p - 1 for the cut after position p.
    """
    K = A.shape[0]
    pos = np.empty(K, dtype=np.int64)
    pos[order] = np.arange(K)
    Ao = A[np.ix_(order, order)]
    # reach[q]: the last position r (>= q) whose alternative the one at q is not ahead of
    not_ahead = ~Ao | np.eye(K, dtype=bool)
    reach = K - 1 - np.argmax(not_ahead[:, ::-1], axis=1)
    reach = np.maximum(reach, np.arange(K))
    return np.maximum.accumulate(reach)[:-1] <= np.arange(K - 1)


def tier_numbers(rej: np.ndarray, iu: np.ndarray, ju: np.ndarray, K: int,
                 order: np.ndarray) -> np.ndarray:
    """Tier of each alternative (1 = top) from one row of simultaneous rejections.

    Parameters
    ----------
    rej : numpy.ndarray
        (P,) rejections of :func:`stepdown`.
    iu, ju : numpy.ndarray
        The pairs.
    K : int
        The number of alternatives.
    order : numpy.ndarray
        The alternatives, best estimate first.

    Returns
    -------
    numpy.ndarray
        (K,) int64 tiers, in the alternatives' own order.
    """
    cuts = tier_cuts(ahead_matrix(rej, iu, ju, K), order)
    out = np.empty(K, dtype=np.int64)
    out[order] = 1 + np.concatenate([[0], np.cumsum(cuts)])
    return out


def cuts_held(rej: np.ndarray, pos_i: np.ndarray, pos_j: np.ndarray) -> np.ndarray:
    """Which cuts of the observed order hold, per row of step-down rejections.

    Parameters
    ----------
    rej : numpy.ndarray
        (D, P) int8 rejections of :func:`stepdown`.
    pos_i, pos_j : numpy.ndarray
        (P,) positions (0-based, best first) of each pair's two alternatives.

    Returns
    -------
    numpy.ndarray
        (D, K - 1) bool: element q - 1 for the cut after position q.
    """
    D, P = rej.shape
    K = int(max(pos_i.max(initial=0), pos_j.max(initial=0))) + 1
    if D * P <= config.ROUTES.leaderboards_numpy_max_work:
        lo = np.minimum(pos_i, pos_j)
        hi = np.maximum(pos_i, pos_j)
        shown = np.where(pos_i < pos_j, rej == -1, rej == 1)
        diff = np.zeros((D, K + 1), dtype=np.int64)
        r, p = np.nonzero(~shown)
        np.add.at(diff, (r, lo[p] + 1), 1)
        np.add.at(diff, (r, hi[p] + 1), -1)
        return np.cumsum(diff, axis=1)[:, 1:K] == 0
    from .._numba import run_blocks
    from .._numba.leaderboards import cuts_held as kernel

    out = np.zeros((D, K - 1), dtype=np.bool_)
    rej = np.ascontiguousarray(rej)
    pi = np.ascontiguousarray(pos_i, dtype=np.int64)
    pj = np.ascontiguousarray(pos_j, dtype=np.int64)
    run_blocks(lambda r0, r1: kernel(rej, pi, pj, out, r0, r1), D, work=float(D) * P)
    return out
