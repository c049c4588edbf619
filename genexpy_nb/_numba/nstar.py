"""Numba kernel of the n* interval: MMD_n quantiles of many resampled preliminary studies.

One call computes, for ``B`` replicates of a preliminary study (the study itself, a
bootstrap resample of its conditions, or a subsample of them), the alpha-quantiles of the
resampled MMD_n distribution (paper Sec. 4.5, the "realistic" mode: two disjoint samples of size n
drawn without replacement) at every n of a grid. It exists because the same computation
through :func:`genexpy_nb.generalizability.mmd.draw_pairs` /
:func:`~genexpy_nb.generalizability.mmd.mmd_from_pairs` costs a
numpy sort of ``(rep, N)`` random keys and an ``(rep, m) @ (m, m)`` product per n, with
Python overhead per n; here a pair costs ``O(n + t^2)`` with ``t <= 2n`` the number of
distinct kernel classes the pair touches, and a whole batch of replicates is one call
(about 3x faster on 100 quantile curves of a 40-condition study, measured in
``benchmarks/bench_nstar_interval.py``). The coverage simulation
(``scripts/nstar_coverage.py``) runs on it; ``analyze`` does not need it.

Random numbers come from a counter-based generator (SplitMix64) keyed by
``(seed, replicate)``: the same seed gives the same bits at any thread count.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from . import jit_fast, streams

_GOLDEN, _M1, _M2 = streams.GOLDEN, streams.M1, streams.M2
_S30, _S27, _S31 = streams.S30, streams.S27, streams.S31
_S11 = np.uint64(11)
_INV53 = 1.0 / 9007199254740992.0  # 2**-53

#: modes of :func:`resampled_quantiles`
MODE_SAME = 0  # the N conditions as observed (only the pairs are redrawn)
MODE_BOOTSTRAP = 1  # N conditions drawn with replacement
MODE_SUBSAMPLE = 2  # msub conditions drawn without replacement


@jit_fast(nogil=False)
def _mix(z):
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@jit_fast(nogil=False)
def _below(state, k):
    """Draw a uniform integer in [0, k) from a SplitMix64 stream: (new state, integer)."""
    state = state + _GOLDEN
    u = (_mix(state) >> _S11) * _INV53
    v = int(u * k)
    return state, (v if v < k else k - 1)


@jit_fast(nogil=False, parallel=True)
def resampled_quantiles(K, inv, ns, rep, qidx, B, mode, msub, seed):
    """alpha-quantiles of MMD_n for ``B`` replicates of a preliminary study.

    Parameters
    ----------
    K : (m, m) float64 kernel matrix on the kernel classes of the study
    inv : (N,) int64 class of each observed condition
    ns : (k,) int64 grid of sample sizes (sizes with ``2n`` above the replicate's size give
        NaN)
    rep : int, pairs of samples per n
    qidx : (q,) int64 positions in the sorted ``rep`` values of the wanted quantiles
        (``ceil(alpha (rep - 1))``, numpy's ``method="higher"``)
    B : int, replicates
    mode : 0 the study as observed, 1 bootstrap (N draws with replacement), 2 subsample
        (``msub`` conditions without replacement)
    msub : int, size of a subsample (mode 2)
    seed : int64 >= 0

    Returns
    -------
    (B, k, q) float64
    """
    N = inv.shape[0]
    m = K.shape[0]
    k = ns.shape[0]
    nq = qidx.shape[0]
    out = np.empty((B, k, nq), dtype=np.float64)
    base = _mix(np.uint64(seed) * _M2 + _GOLDEN)
    for b in prange(B):
        state = _mix(base ^ (np.uint64(b + 1) * _GOLDEN))
        if mode == MODE_BOOTSTRAP:
            Nb = N
            cls = np.empty(N, dtype=np.int64)
            for i in range(N):
                state, j = _below(state, N)
                cls[i] = inv[j]
        elif mode == MODE_SUBSAMPLE:
            Nb = msub
            pos = np.arange(N)
            for i in range(msub):
                state, j = _below(state, N - i)
                t = pos[i]
                pos[i] = pos[i + j]
                pos[i + j] = t
            cls = np.empty(msub, dtype=np.int64)
            for i in range(msub):
                cls[i] = inv[pos[i]]
        else:
            Nb = N
            cls = inv.copy()
        perm = np.arange(Nb)
        cnt = np.zeros(m, dtype=np.int64)
        stamp = np.zeros(m, dtype=np.int64)
        touched = np.empty(m, dtype=np.int64)
        vals = np.empty(rep, dtype=np.float64)
        tick = 0
        for jn in range(k):
            n = ns[jn]
            if 2 * n > Nb or n < 1:
                for q in range(nq):
                    out[b, jn, q] = np.nan
                continue
            for r in range(rep):
                # a uniformly random ordered 2n-subset: partial Fisher-Yates on perm
                for i in range(2 * n):
                    state, j = _below(state, Nb - i)
                    t = perm[i]
                    perm[i] = perm[i + j]
                    perm[i + j] = t
                tick += 1
                nt = 0
                for i in range(2 * n):
                    c = cls[perm[i]]
                    if stamp[c] != tick:
                        stamp[c] = tick
                        cnt[c] = 0
                        touched[nt] = c
                        nt += 1
                    if i < n:
                        cnt[c] += 1
                    else:
                        cnt[c] -= 1
                # MMD^2 = w' K w / n^2 with w the count difference on the touched classes
                s = 0.0
                for a in range(nt):
                    ca = touched[a]
                    wa = cnt[ca]
                    if wa == 0:
                        continue
                    s += wa * wa * K[ca, ca]
                    for c2 in range(a + 1, nt):
                        cb = touched[c2]
                        wb = cnt[cb]
                        if wb != 0:
                            s += 2.0 * wa * wb * K[ca, cb]
                v = s / (n * n)
                vals[r] = np.sqrt(v) if v > 0.0 else 0.0
            vals.sort()
            for q in range(nq):
                out[b, jn, q] = vals[qidx[q]]
    return out
