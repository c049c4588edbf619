"""Numba kernels of Part A: Mallows and RBF kernel matrices, MMD values from index samples.

Arrays and scalars only; the public layer (kernels.py, mmd.py) validates the input. Every
function here is serial and ``nogil``: the callers split large work into row blocks and run
them on threads (:func:`genexpy_nb._numba.run_blocks`), so that small matrices never pay for
a parallel region, each block writes its own rows (same bits at any thread count), and only
a few small functions need compiling on first use. The Jaccard and Borda matrices are
computed with NumPy in kernels.py (numba buys nothing there).
"""

from __future__ import annotations

import numba
import numpy as np
from numba import njit

from .. import config

_JIT = {"cache": config.NUMBA_CACHE, "fastmath": config.FASTMATH, "nogil": True}

if numba.config.DISABLE_JIT:  # the pure-Python path of the test suite

    def _popcount(x):
        return int(x).bit_count()

else:
    from numba import types
    from numba.core.extending import intrinsic

    @intrinsic
    def _popcount(typingctx, x):  # pragma: no cover - compiled
        """Number of set bits of a uint64 (LLVM ``ctpop``: one POPCNT instruction)."""
        if x != types.uint64:
            return None

        def codegen(context, builder, signature, args):
            return builder.ctpop(args[0])

        return types.uint64(types.uint64), codegen


@njit(**_JIT)
def tier_bitsets(R, O):
    """Bitsets of the Mallows kernel for every ranking (row) of R (N, na).

    For ranking r with distinct tier values t_0 < t_1 < ..., ``B[i, d]`` is the set of
    alternatives ranked strictly below tier d (``r[a] > t_d``), packed in W = ceil(na/64)
    words; ``D[i, a]`` is the tier index d of alternative a; ``tied[i]`` the number of tied
    pairs. The number of pairs ordered the same strict way by r and s (concordant pairs) is
    then ``P = sum_a popcount(B_r[D_r[a]] & B_s[D_s[a]])``.

    ``O`` is ``np.argsort(R, axis=1, kind="stable")`` (computed by NumPy: a sort compiled
    inside the kernel would multiply its compile time).

    Returns
    -------
    B : (N, na, W) uint64; D : (N, na) int64; tied : (N,) int64
    """
    N, na = R.shape
    W = (na + 63) // 64
    B = np.zeros((N, na, W), dtype=np.uint64)
    D = np.empty((N, na), dtype=np.int64)
    tied = np.zeros(N, dtype=np.int64)
    cur = np.zeros(W, dtype=np.uint64)
    for i in range(N):
        order = O[i]
        # dense tier index of each alternative
        d = 0
        for p in range(na):
            if p > 0 and R[i, order[p]] != R[i, order[p - 1]]:
                d += 1
            D[i, order[p]] = d
        # walk the tiers from the worst up, accumulating "strictly below" sets
        cur[:] = 0
        p = na - 1
        while p >= 0:
            t = D[i, order[p]]
            q = p
            while q >= 0 and D[i, order[q]] == t:
                q -= 1
            B[i, t, :] = cur
            c = p - q
            tied[i] += c * (c - 1) // 2
            for s in range(q + 1, p + 1):
                a = order[s]
                cur[a >> 6] |= np.uint64(1) << np.uint64(a & 63)
            p = q
    return B, D, tied


@njit(**_JIT)
def mallows_rows(OX, DX, tx, BY, DY, ty, nu, sym, r0, r1, out):
    """Rows r0..r1 of the Mallows matrix ``exp(-nu n_d)`` from :func:`tier_bitsets`.

    ``n_d = C(na, 2) - P - (tied_x + tied_y) / 2`` with P the concordant pairs (a pair
    reversed counts 1, tied in one ranking only counts 1/2, tied in both 0; paper App. B). Twice
    n_d is an integer, so the values are exact. P is counted by walking x from its worst
    tier up (``OX`` = stable argsort of x, ``DX`` its tier indices) with the bitset V of
    the alternatives strictly below the current tier in x: ``P += popcount(V & below_y(a))``.
    The column j is the outer loop so that y's bitsets stay in cache across the rows. With
    ``sym`` (X is Y) only the upper triangle is computed and mirrored by the caller.
    """
    na = DX.shape[1]
    W = BY.shape[2]
    c2 = na * (na - 1)
    ny = DY.shape[0]
    V = np.zeros(W, dtype=np.uint64)
    for j in range(ny):
        i1 = min(r1, j + 1) if sym else r1
        for i in range(r0, i1):
            V[:] = 0
            P = 0
            p = na - 1
            while p >= 0:
                t = DX[i, OX[i, p]]
                q = p
                while q >= 0 and DX[i, OX[i, q]] == t:
                    a = OX[i, q]
                    v = DY[j, a]
                    for w in range(W):
                        P += _popcount(V[w] & BY[j, v, w])
                    q -= 1
                for s in range(q + 1, p + 1):
                    a = OX[i, s]
                    V[a >> 6] |= np.uint64(1) << np.uint64(a & 63)
                p = q
            nd2 = c2 - 2 * P - tx[i] - ty[j]  # twice the number of discordant pairs
            out[i, j] = np.exp(-nu * 0.5 * nd2)


@njit(**_JIT)
def rbf_rows(X, Y, gamma, sym, r0, r1, out):
    """Rows r0..r1 of the RBF matrix ``exp(-gamma ||x_i - y_j||^2)`` (upper triangle if sym)."""
    na = X.shape[1]
    ny = Y.shape[0]
    for i in range(r0, r1):
        j0 = i if sym else 0
        for j in range(j0, ny):
            s = 0.0
            for a in range(na):
                d = X[i, a] - Y[j, a]
                s += d * d
            out[i, j] = np.exp(-gamma * s)


@njit(**_JIT)
def mmd_rows(K, inv, IX, IY, r0, r1, out):
    """MMD of the pairs r0..r1: ``MMD^2 = w' K w``, ``w = (cx - cy) / n`` (paper Sec. 4.3).

    The count differences live on the support (m entries); the quadratic form runs over
    the k support points that a pair touches (k <= min(2n, m)): ``k^2 / 2`` gathered
    multiply-adds by symmetry of K, or ``k m`` contiguous ones when k is most of m.
    """
    m = K.shape[0]
    nx = IX.shape[1]
    ny = IY.shape[1]
    w = np.zeros(m)
    seen = np.zeros(m, dtype=np.bool_)
    nz = np.empty(m, dtype=np.int64)
    wz = np.empty(m)
    inv_n2 = 1.0 / (nx * ny)
    for r in range(r0, r1):
        k = 0
        for t in range(nx):
            a = inv[IX[r, t]]
            if not seen[a]:
                seen[a] = True
                nz[k] = a
                k += 1
            w[a] += 1.0
        for t in range(ny):
            a = inv[IY[r, t]]
            if not seen[a]:
                seen[a] = True
                nz[k] = a
                k += 1
            w[a] -= 1.0
        # a support point whose count difference returned to 0 contributes nothing
        kk = 0
        for t in range(k):
            a = nz[t]
            seen[a] = False
            if w[a] != 0.0:
                nz[kk] = a
                wz[kk] = w[a]
                kk += 1
        s = 0.0
        if 2 * kk > m:
            for p in range(kk):
                row = nz[p]
                acc = 0.0
                for b in range(m):
                    acc += K[row, b] * w[b]
                s += wz[p] * acc
        else:
            for p in range(kk):
                row = nz[p]
                acc = 0.0
                for q in range(p + 1, kk):
                    acc += K[row, nz[q]] * wz[q]
                s += wz[p] * (wz[p] * K[row, row] + 2.0 * acc)
        for t in range(kk):
            w[nz[t]] = 0.0
        v = s * inv_n2
        out[r] = np.sqrt(v) if v > 0.0 else 0.0


@njit(**_JIT)
def first_order(U, k, r0, r1, out):
    """``argsort(U[r], axis=1)[:k]`` for rows r0..r1 of uniforms in [0, 1), in O(N) per row.

    Bucket sort (N buckets, insertion sort inside a bucket): for distinct values the order
    is the one ``np.argsort`` gives. Returns False when a row has tied values (the caller
    then uses ``np.argsort``, whose order among ties is its own).
    """
    N = U.shape[1]
    head = np.empty(N + 1, dtype=np.int64)
    cnt = np.empty(N + 1, dtype=np.int64)
    bucket = np.empty(N, dtype=np.int64)
    items = np.empty(N, dtype=np.int64)
    for r in range(r0, r1):
        cnt[:] = 0
        for i in range(N):
            b = int(U[r, i] * N)
            if b >= N:
                b = N - 1
            bucket[i] = b
            cnt[b + 1] += 1
        head[0] = 0
        for b in range(N):
            head[b + 1] = head[b] + cnt[b + 1]
        for b in range(N + 1):
            cnt[b] = head[b] if b < N else N
        for i in range(N):
            b = bucket[i]
            items[cnt[b]] = i
            cnt[b] += 1
        # insertion sort inside each bucket (expected size 1)
        filled = 0
        for b in range(N):
            lo = head[b]
            hi = head[b + 1]
            for p in range(lo + 1, hi):
                x = items[p]
                v = U[r, x]
                q = p - 1
                while q >= lo and U[r, items[q]] > v:
                    items[q + 1] = items[q]
                    q -= 1
                if q >= lo and U[r, items[q]] == v:
                    return False
                items[q + 1] = x
            for p in range(lo, hi):
                if filled < k:
                    out[r, filled] = items[p]
                    filled += 1
            if filled >= k:
                break
    return True
