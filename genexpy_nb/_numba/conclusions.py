"""Numba kernel of the order conclusion's agreement (gx.conclusions, SPEC A14).

Arrays and scalars only. For each pair of simulated studies (a row of ``a`` and the same row
of ``b``: mean ranks of every alternative), whether the normalised Kendall distance of their
orders is at most delta*: the count of discordant pairs of alternatives (a pair tied in one
order and not in the other counts 1/2) against the allowed count, stopping at the first pair
that exceeds it. NumPy needs temporaries of ``rows x na (na - 1) / 2`` per comparison and
was measured about 40x slower at 32 alternatives (the test's naive twin is that NumPy form).

Beyond a few dozen alternatives the count is taken from the two orders sorted instead of
pair by pair (:func:`kendall_within_sorted`, ``na log na`` per row instead of ``na^2 / 2``):
the same integer count, so the same answers; a row whose ties within the tolerance do not
form clean groups (a run of close values wider than the tolerance, or a value that is not
finite) is counted pair by pair.
"""

from __future__ import annotations

import numpy as np

from . import jit_exact

# flags: jit_exact (the one place of numba flags: genexpy_nb._numba)
# serial (called once per study size on a few thousand rows); no fastmath: ties are exact
# comparisons within a tolerance


@jit_exact
def _pairs_twice(a, b, r, tol, limit2):
    """Twice the Kendall count of row r, pair by pair (stops once it exceeds ``limit2``)."""
    na = a.shape[1]
    twice = 0
    for i in range(na - 1):
        ai = a[r, i]
        bi = b[r, i]
        for j in range(i + 1, na):
            da = ai - a[r, j]
            db = bi - b[r, j]
            sa = 1 if da > tol else (-1 if da < -tol else 0)
            sb = 1 if db > tol else (-1 if db < -tol else 0)
            twice += abs(sa - sb)
        if twice > limit2:
            break
    return twice


@jit_exact
def _tie_groups(v, order, tol, group):
    """Group ids (0, 1, ... in increasing value) of the values ``v``, ties within ``tol``.

    ``order`` sorts ``v``. Returns the pairs tied (sum of C(size, 2) over the groups), or -1
    when the pairwise rule would not give these groups: a value not finite, or a group whose
    smallest and largest values are further apart than ``tol`` (then some pair in it is not
    tied). Otherwise two values are tied, ``|v_i - v_j| <= tol`` as computed, exactly when
    they share a group: differences of floats round monotonically, so a pair inside a group
    differs by at most its span and a pair across a boundary by at least the gap there.
    """
    n = v.size
    g = 0
    first = v[order[0]]
    if not np.isfinite(first):
        return -1
    size = 1
    tied = 0
    group[order[0]] = 0
    for k in range(1, n):
        x = v[order[k]]
        if not np.isfinite(x):
            return -1
        if x - v[order[k - 1]] > tol:
            tied += size * (size - 1) // 2
            g += 1
            first = x
            size = 1
        else:
            if x - first > tol:
                return -1
            size += 1
        group[order[k]] = g
    return tied + size * (size - 1) // 2


@jit_exact
def _sort_from(v, perm):
    """Sort ``perm`` by the values ``v`` (increasing), from its present order.

    Insertion sort: draws of mean ranks in one row after another are mostly in the same
    order, so few moves; beyond ``8 na`` of them the order is taken afresh (argsort).
    """
    n = v.size
    moves = 0
    for k in range(1, n):
        p = perm[k]
        x = v[p]
        m = k
        while m > 0 and x < v[perm[m - 1]]:
            perm[m] = perm[m - 1]
            m -= 1
        perm[m] = p
        moves += k - m
        if moves > 8 * n:
            perm[:] = np.argsort(v)
            return


@jit_exact
def kendall_within_sorted(a, b, tol, limit2, out):
    """:func:`kendall_within` from sorted orders: the same answers, ``na log na`` a row.

    Twice the count is ``2 D + Ta + Tb - 2 Tab``: D the pairs strictly in opposite orders,
    Ta (Tb) the pairs tied in a (b), Tab those tied in both. Going through a's tie groups
    in increasing order, D counts for each entry the entries of earlier groups in a larger
    group of b (a Fenwick tree over b's groups), and Tab the entries of its own group in its
    group of b.
    """
    rows, na = a.shape
    if na < 2:
        for r in range(rows):
            out[r] = 0 <= limit2
        return out
    ga = np.empty(na, np.int64)
    gb = np.empty(na, np.int64)
    pa = np.arange(na)
    pb = np.arange(na)
    tree = np.zeros(na + 1, np.int64)
    same = np.zeros(na + 1, np.int64)
    for r in range(rows):
        _sort_from(a[r], pa)
        _sort_from(b[r], pb)
        ta = _tie_groups(a[r], pa, tol, ga)
        tb = _tie_groups(b[r], pb, tol, gb) if ta >= 0 else -1
        if ta < 0 or tb < 0:
            out[r] = _pairs_twice(a, b, r, tol, limit2) <= limit2
            continue
        for k in range(na + 1):
            tree[k] = 0
        disc = 0
        tab = 0
        k = 0
        while k < na:
            end = k + 1
            while end < na and ga[pa[end]] == ga[pa[k]]:
                end += 1
            for t in range(k, end):  # against the earlier groups, and within this one
                x = gb[pa[t]] + 1
                below = 0
                p = x
                while p > 0:
                    below += tree[p]
                    p -= p & (-p)
                disc += k - below
                tab += same[x]
                same[x] += 1
            for t in range(k, end):
                x = gb[pa[t]] + 1
                same[x] = 0
                p = x
                while p <= na:
                    tree[p] += 1
                    p += p & (-p)
            k = end
        out[r] = 2 * disc + ta + tb - 2 * tab <= limit2
    return out


@jit_exact
def kendall_within(a, b, tol, limit2, out):
    """Write into ``out[r]`` whether rows ``a[r]`` and ``b[r]`` are within the distance.

    Parameters
    ----------
    a, b : float64 arrays, shape (rows, na)
        Mean ranks of the alternatives in two studies, row by row.
    tol : float
        Mean ranks closer than this are tied.
    limit2 : float
        Twice the number of discordant pairs allowed (``2 * delta * na (na - 1) / 2``).
    out : bool array, shape (rows,)
        Written: True where the row pair is within the distance.
    """
    rows = a.shape[0]
    for r in range(rows):
        out[r] = _pairs_twice(a, b, r, tol, limit2) <= limit2
    return out


def signatures() -> list:
    """Compile the kernel's one signature (for ``genexpy-nb precompile``)."""
    a = np.zeros((2, 3))
    kendall_within(a, a, 1e-9, 0.5, np.zeros(2, dtype=np.bool_))
    kendall_within_sorted(a, a, 1e-9, 0.5, np.zeros(2, dtype=np.bool_))
    return [kendall_within, kendall_within_sorted]
