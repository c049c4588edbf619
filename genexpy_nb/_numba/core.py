"""Numba kernels of the generalizability engine.

Mallows and RBF kernel matrices, MMD values from index samples.

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

from . import jit_fast

if numba.config.DISABLE_JIT:  # the pure-Python path of the test suite

    def _popcount(x):
        return int(x).bit_count()

else:
    from numba import types
    from numba.core.extending import intrinsic

    @intrinsic
    def _popcount(typingctx, x):  # pragma: no cover - compiled
        """Count the set bits of a uint64 (LLVM ``ctpop``: one POPCNT instruction)."""
        if x != types.uint64:
            return None

        def codegen(context, builder, signature, args):
            return builder.ctpop(args[0])

        return types.uint64(types.uint64), codegen


@jit_fast
def above_bitsets(R, O, a0, a1, A):
    """Fill the rows of A with the sets of alternatives ranked strictly below each one.

    For ranking i (row of R, N x na) and alternative a in a0..a1, the set of
    alternatives ranked strictly below a (``R[i, b] > R[i, a]``), packed in W = ceil(na/64)
    words at ``A[i, (a - a0) * W : (a - a0 + 1) * W]``.

    ``O`` is ``np.argsort(R, axis=1, kind="stable")`` (computed by NumPy: a sort compiled
    inside the kernel would multiply its compile time). The walk goes from the worst tier
    up, accumulating the "strictly below" set: O(na + (a1 - a0) W) per ranking.
    """
    N, na = R.shape
    W = (na + 63) // 64
    cur = np.zeros(W, dtype=np.uint64)
    for i in range(N):
        order = O[i]
        cur[:] = 0
        p = na - 1
        while p >= 0:
            q = p
            while q >= 0 and R[i, order[q]] == R[i, order[p]]:
                q -= 1
            for s in range(q + 1, p + 1):  # the tier order[q+1..p]: all below it is in cur
                a = order[s]
                if a0 <= a < a1:
                    base = (a - a0) * W
                    for w in range(W):
                        A[i, base + w] = cur[w]
            for s in range(q + 1, p + 1):
                a = order[s]
                cur[a >> 6] |= np.uint64(1) << np.uint64(a & 63)
            p = q


@jit_fast
def popcount_gram(AX, AY, sym, b0, b1, out):
    """Add the popcounts of the bitwise AND of rows of AX and AY to ``out``.

    ``out[i, j] += sum_t popcount(AX[i, t] & AY[j, t])`` for the rows 4 b0 .. 4 b1 of
    ``out`` (every j, or j >= i when ``sym``; the caller mirrors). AX, AY have a multiple
    of 4 rows (zero rows as padding).

    A bit-matrix product laid out like a matrix product: the shared dimension is taken in
    panels of 1024 words that stay in cache, and 4 x 4 pairs of rows share each load (16
    popcounts per 8 words read). On the concordant-pair counts of the Mallows kernel this
    runs several times faster than walking each pair's rankings.
    """
    ny, L = AY.shape
    kc = 1024
    for k0 in range(0, L, kc):
        k1 = min(k0 + kc, L)
        for ib in range(b0, b1):
            i = 4 * ib
            for j in range(i if sym else 0, ny, 4):
                s00 = 0
                s01 = 0
                s02 = 0
                s03 = 0
                s10 = 0
                s11 = 0
                s12 = 0
                s13 = 0
                s20 = 0
                s21 = 0
                s22 = 0
                s23 = 0
                s30 = 0
                s31 = 0
                s32 = 0
                s33 = 0
                for t in range(k0, k1):
                    a0 = AX[i, t]
                    a1 = AX[i + 1, t]
                    a2 = AX[i + 2, t]
                    a3 = AX[i + 3, t]
                    c0 = AY[j, t]
                    c1 = AY[j + 1, t]
                    c2 = AY[j + 2, t]
                    c3 = AY[j + 3, t]
                    s00 += _popcount(a0 & c0)
                    s01 += _popcount(a0 & c1)
                    s02 += _popcount(a0 & c2)
                    s03 += _popcount(a0 & c3)
                    s10 += _popcount(a1 & c0)
                    s11 += _popcount(a1 & c1)
                    s12 += _popcount(a1 & c2)
                    s13 += _popcount(a1 & c3)
                    s20 += _popcount(a2 & c0)
                    s21 += _popcount(a2 & c1)
                    s22 += _popcount(a2 & c2)
                    s23 += _popcount(a2 & c3)
                    s30 += _popcount(a3 & c0)
                    s31 += _popcount(a3 & c1)
                    s32 += _popcount(a3 & c2)
                    s33 += _popcount(a3 & c3)
                out[i, j] += s00
                out[i, j + 1] += s01
                out[i, j + 2] += s02
                out[i, j + 3] += s03
                out[i + 1, j] += s10
                out[i + 1, j + 1] += s11
                out[i + 1, j + 2] += s12
                out[i + 1, j + 3] += s13
                out[i + 2, j] += s20
                out[i + 2, j + 1] += s21
                out[i + 2, j + 2] += s22
                out[i + 2, j + 3] += s23
                out[i + 3, j] += s30
                out[i + 3, j + 1] += s31
                out[i + 3, j + 2] += s32
                out[i + 3, j + 3] += s33


@jit_fast
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


@jit_fast(inline="always")
def nonzero_support(k, w, seen, nz, wz):
    """Keep the touched points ``nz[:k]`` whose count difference is not 0; returns how many.

    A support point whose difference returned to 0 contributes nothing: the others move to
    the front of ``nz``, their differences to ``wz``; ``seen`` is cleared.
    """
    kk = 0
    for t in range(k):
        a = nz[t]
        seen[a] = False
        if w[a] != 0.0:
            nz[kk] = a
            wz[kk] = w[a]
            kk += 1
    return kk


@jit_fast(inline="always")
def pair_support(IX, IY, inv, r, w, seen, nz, wz):
    """Count pair r's differences on the support (x +1, then y -1); keep the nonzero ones.

    Returns how many support points a pair moves (``nz[:kk]``, their differences in ``wz``;
    ``w`` holds them by point, ``seen`` is cleared), as :func:`nonzero_support`.
    """
    k = 0
    for side in range(2):  # the counts of x (+1 each), then of y (-1 each)
        S = IX if side == 0 else IY
        d = 1.0 if side == 0 else -1.0
        for t in range(S.shape[1]):
            a = inv[S[r, t]]
            if not seen[a]:
                seen[a] = True
                nz[k] = a
                k += 1
            w[a] += d
    return nonzero_support(k, w, seen, nz, wz)


@jit_fast
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
        kk = pair_support(IX, IY, inv, r, w, seen, nz, wz)
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


@jit_fast
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
