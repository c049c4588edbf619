"""Numba kernels of the large-study path of the n* analysis (paper Sec. 4.5).

One call evaluates MMD_n for a block of (sample size, pair) units of one configuration and
kernel: each unit draws its own pair of disjoint samples from a stream seeded by the unit's
index (so the bits depend neither on the thread count nor on the blocks), then evaluates
``MMD^2 = w' K w`` over the support points the pair touches, with the kernel values read
computed on the fly from the support's rows (Mallows: packed "above" bitsets; RBF: the score
vectors; Jaccard, and Mallows on rankings of two tie levels: one word of bits per result and a
table of values), so that memory stays linear in the support.

Arrays and scalars only; ``genexpy_nb.generalizability.large`` validates and prepares them.
"""

from __future__ import annotations

import numpy as np

from . import jit_exact, jit_fast, jit_in_order, streams
from .core import _popcount, nonzero_support, pair_support

#: Mallows values on the fly: ``table[c2 - 2 P - T_a - T_b]``, P from packed bitsets
KIND_MALLOWS = 1
#: RBF values on the fly: ``exp(-gamma ||x_a - x_b||^2)``
KIND_RBF = 2
#: values from one word of bits per result (a set S_a of at most 64 alternatives) and a
#: table: ``table[(|S_a| L + |S_b|) L + |S_a & S_b|]``, L = na + 1 (Jaccard's top sets;
#: Mallows on rankings of two tie levels, S_a the alternatives at the first)
KIND_SETS = 3


_GOLDEN = streams.GOLDEN
_UNIT = np.uint64(0xD1B54A32D192ED03)


@jit_exact
def _next(s):
    """Advance the splitmix64 state ``s[0]`` and return its next 64-bit output."""
    s[0] += _GOLDEN
    z = s[0]
    z = (z ^ (z >> streams.S30)) * streams.M1
    z = (z ^ (z >> streams.S27)) * streams.M2
    return z ^ (z >> streams.S31)


@jit_exact
def _below(s, k):
    """Return a uniform integer in ``[0, k)`` from 53 random bits."""
    u = float(_next(s) >> np.uint64(11)) * (1.0 / 9007199254740992.0)
    v = int(u * k)
    return v if v < k else k - 1


@jit_exact
def draw_unit(seed, u, N, n, taken, buf):
    """Draw the pair of unit ``u``: ``buf[:n]`` and ``buf[n:2n]``, 2n distinct of ``range(N)``.

    Floyd's sampling of a 2n-subset (O(n), ``taken`` is all False on entry and on exit),
    then a Fisher-Yates shuffle of it, so that the split into two samples is uniform: the
    paper's "realistic" mode (two disjoint samples without replacement).
    """
    s = np.empty(1, dtype=np.uint64)
    s[0] = np.uint64(seed) + np.uint64(u) * _UNIT
    _next(s)
    k = 2 * n
    c = 0
    for j in range(N - k, N):
        t = _below(s, j + 1)
        if taken[t]:
            t = j
        taken[t] = True
        buf[c] = t
        c += 1
    for i in range(k - 1, 0, -1):
        j = _below(s, i + 1)
        tmp = buf[i]
        buf[i] = buf[j]
        buf[j] = tmp
    for i in range(k):
        taken[buf[i]] = False


@jit_exact
def _draw_buffers(N, ns):
    """Return the largest size in ``ns`` and the buffers :func:`draw_unit` fills at it."""
    nmax = 0
    for j in range(ns.shape[0]):
        if ns[j] > nmax:
            nmax = ns[j]
    return nmax, np.zeros(N, dtype=np.bool_), np.empty(2 * nmax, dtype=np.int64)


@jit_fast
def _form_mallows(B, T, table, c2, nz, wz, kk, Bt, Tt):
    """Compute the same form with Mallows values from the packed bitsets (gathered first)."""
    W = B.shape[1]
    for p in range(kk):
        a = nz[p]
        Tt[p] = c2 - T[a]
        for t in range(W):
            Bt[p, t] = B[a, t]
    s = 0.0
    for p in range(kk):
        acc = 0.0
        base = Tt[p]
        for q in range(p + 1, kk):
            c = 0
            for t in range(W):
                c += _popcount(Bt[p, t] & Bt[q, t])
            acc += table[base - T[nz[q]] - 2 * int(c)] * wz[q]
        s += wz[p] * (wz[p] * table[0] + 2.0 * acc)
    return s


@jit_in_order  # a sum in the order written, as the loops over a few words of bits
def _form_sets(B, T, table, L, nz, wz, kk, Mt, Ct):
    """Compute the same form with values from one word of bits and a table (gathered first).

    ``B[a, 0]`` is the set of result a, ``T[a]`` its size; the value of (a, b) is
    ``table[(T[a] L + T[b]) L + popcount(B[a, 0] & B[b, 0])]``. Summed in order, as
    ``_form_mallows`` sums (no reassociation): on rankings of two tie levels both give
    Mallows' MMD values bit for bit.
    """
    for p in range(kk):
        a = nz[p]
        Mt[p] = B[a, 0]
        Ct[p] = T[a] * L
    s = 0.0
    for p in range(kk):
        mp = Mt[p]
        base = Ct[p] * L
        acc = 0.0
        for q in range(p + 1, kk):
            acc += table[base + Ct[q] + _popcount(mp & Mt[q])] * wz[q]
        s += wz[p] * (wz[p] * table[base + Ct[p] + T[nz[p]]] + 2.0 * acc)
    return s


@jit_fast
def sets_block(M, C, r0, r1, c0, table, L, out):
    """Write the kernel matrix's rows r0..r1 from column c0 on, from sets (:data:`KIND_SETS`).

    ``out[i - r0, j - c0] = table[(C[i] L + C[j]) L + popcount(M[i] & M[j])]`` with
    ``M`` the sets (one word each) and ``C`` their sizes: the very values of the table.
    """
    m = M.shape[0]
    for i in range(r0, r1):
        mi = M[i]
        base = C[i] * L * L
        for j in range(c0, m):
            out[i - r0, j - c0] = table[base + C[j] * L + _popcount(mi & M[j])]


@jit_fast
def sets_gather(M, C, table, L, P, Q):
    """Write ``Q[r, i, j]``, the value of the sets ``P[r, i]`` and ``P[r, j]`` (kind 3).

    The blocks of the matrix on the points each pair touches, as
    ``genexpy_nb.generalizability.mmd`` gathers them from a matrix: the same numbers.
    """
    for r in range(P.shape[0]):
        for i in range(P.shape[1]):
            a = P[r, i]
            ma = M[a]
            base = C[a] * L * L
            for j in range(P.shape[1]):
                b = P[r, j]
                Q[r, i, j] = table[base + C[b] * L + _popcount(ma & M[b])]


@jit_fast
def mmd_rows_sets(M, C, table, L, inv, IX, IY, r0, r1, out):
    """MMD of the pairs r0..r1 with values from sets, summed as the matrix's loop sums.

    The twin of ``genexpy_nb._numba.core.mmd_rows`` (the same touched points in the same
    order, the same sums) with ``K[a, b]`` read as
    ``table[(C[a] L + C[b]) L + popcount(M[a] & M[b])]``: the same numbers, bit for bit.
    """
    m = M.shape[0]
    nx = IX.shape[1]
    ny = IY.shape[1]
    w = np.zeros(m)
    seen = np.zeros(m, dtype=np.bool_)
    nz = np.empty(m, dtype=np.int64)
    wz = np.empty(m)
    inv_n2 = 1.0 / (nx * ny)
    LL = L * L
    for r in range(r0, r1):
        kk = pair_support(IX, IY, inv, r, w, seen, nz, wz)
        s = 0.0
        if 2 * kk > m:
            for p in range(kk):
                row = nz[p]
                mr = M[row]
                base = C[row] * LL
                acc = 0.0
                for b in range(m):
                    acc += table[base + C[b] * L + _popcount(mr & M[b])] * w[b]
                s += wz[p] * acc
        else:
            for p in range(kk):
                row = nz[p]
                mr = M[row]
                base = C[row] * LL
                acc = 0.0
                for q in range(p + 1, kk):
                    b = nz[q]
                    acc += table[base + C[b] * L + _popcount(mr & M[b])] * wz[q]
                s += wz[p] * (wz[p] * table[base + C[row] * L + C[row]] + 2.0 * acc)
        for t in range(kk):
            w[nz[t]] = 0.0
        v = s * inv_n2
        out[r] = np.sqrt(v) if v > 0.0 else 0.0


@jit_fast
def _form_rbf(X, gamma, nz, wz, kk, Xt):
    """Compute the same form with RBF values from the score vectors (gathered first)."""
    na = X.shape[1]
    for p in range(kk):
        for t in range(na):
            Xt[p, t] = X[nz[p], t]
    s = 0.0
    for p in range(kk):
        acc = 0.0
        for q in range(p + 1, kk):
            d2 = 0.0
            for t in range(na):
                d = Xt[p, t] - Xt[q, t]
                d2 += d * d
            acc += np.exp(-gamma * d2) * wz[q]
        s += wz[p] * (wz[p] + 2.0 * acc)
    return s


@jit_fast
def mmd_units(kind, B, T, table, c2, X, gamma, inv, N, ns, pos, rep, seed, u0, u1, out):
    """MMD_n of the units u0..u1 (unit ``u``: size ``ns[u // rep]``, pair ``u % rep``).

    Unit u draws the pair ``pos[u // rep] * rep + u % rep`` (:func:`draw_unit`): a
    subset of a grid's sizes draws the very pairs of the grid at those sizes.
    ``out`` is (len(ns) * rep,); ``inv`` the support index of each of the N results; the
    support has ``m`` points, and its kernel values are computed on the fly as ``kind``
    says (:data:`KIND_MALLOWS`: ``T`` the tied pairs, ``c2`` = na (na - 1);
    :data:`KIND_RBF`; :data:`KIND_SETS`: ``B`` (m, 1) the sets, ``T`` their sizes, ``c2``
    the table's stride L; values from a matrix go through
    ``genexpy_nb.generalizability.mmd.mmd_from_pairs``). Per unit: the pair's count
    differences on the support, then ``sum_p w_p (w_p k_pp + 2 sum_{q>p} k_pq w_q)`` over
    the k touched points with a nonzero difference.
    """
    m = inv.max() + 1
    nmax, taken, buf = _draw_buffers(N, ns)
    w = np.zeros(m)
    seen = np.zeros(m, dtype=np.bool_)
    nz = np.empty(min(m, 2 * nmax), dtype=np.int64)
    wz = np.empty(min(m, 2 * nmax))
    cap = min(m, 2 * nmax)
    Bt = np.empty((cap, B.shape[1]), dtype=np.uint64)
    Tt = np.empty(cap, dtype=np.int64)
    Xt = np.empty((cap, X.shape[1]))
    Mt = np.empty(cap, dtype=np.uint64)
    Ct = np.empty(cap, dtype=np.int64)
    for u in range(u0, u1):
        j = u // rep
        n = ns[j]
        draw_unit(seed, pos[j] * rep + u % rep, N, n, taken, buf)
        k = 0
        for t in range(2 * n):
            a = inv[buf[t]]
            if not seen[a]:
                seen[a] = True
                nz[k] = a
                k += 1
            w[a] += 1.0 if t < n else -1.0
        kk = nonzero_support(k, w, seen, nz, wz)
        if kind == 1:
            s = _form_mallows(B, T, table, c2, nz, wz, kk, Bt, Tt)
        elif kind == 3:
            s = _form_sets(B, T, table, c2, nz, wz, kk, Mt, Ct)
        else:
            s = _form_rbf(X, gamma, nz, wz, kk, Xt)
        for t in range(k):
            w[nz[t]] = 0.0
        v = s / float(n * n)
        out[u] = np.sqrt(v) if v > 0.0 else 0.0


@jit_exact
def draw_units(seed, N, ns, pos, rep, u0, u1, IX, IY):
    """Write the pairs that :func:`mmd_units` draws for the units u0..u1, as index rows.

    ``IX``, ``IY`` are (u1 - u0, max n); row ``u - u0`` holds unit u's samples in its
    first ``ns[u // rep]`` columns: the pair ``pos[u // rep] * rep + u % rep`` of the
    grid (the MMD from the matrix on the support, a check of the draws, the naive twin's
    input).
    """
    nmax, taken, buf = _draw_buffers(N, ns)
    for u in range(u0, u1):
        j = u // rep
        n = ns[j]
        draw_unit(seed, pos[j] * rep + u % rep, N, n, taken, buf)
        for t in range(n):
            IX[u - u0, t] = buf[t]
            IY[u - u0, t] = buf[n + t]
