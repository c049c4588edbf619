"""Numba kernels of the stratified bootstrap of robust aggregates (Agarwal et al. 2021).

Arrays and scalars only; :mod:`genexpy_nb.aggregates` checks the input, draws the resampling
indices with NumPy and calls these on blocks of replicates.

One replicate resamples the runs of every task with replacement (and, with the task
bootstrap, the tasks too). rliable builds each resampled ``runs x tasks`` matrix and calls
NumPy and SciPy on it (a sort per interquartile mean, a Mann–Whitney U per task for the
probability of improvement), about 1.8 ms per replicate and aggregate on 10 runs x 20 tasks.
Here a replicate is a *count* of how often each observed score was drawn: the scores are
sorted once, so the interquartile mean is a weighted sum over the sorted scores with
weights clipped to the middle half of the cumulative counts, and a performance profile is
a cumulative count read at each threshold's position; the probability of improvement per
task reads, for each drawn run of X, the cumulative counts of the drawn runs of Y below
and at its score. Each replicate is then O(runs x tasks), with no sort and no allocation.
Vectorised NumPy on the same counts was measured 8x slower (temporaries of
``replicates x runs x tasks`` in every step); hence numba.
"""

from __future__ import annotations

import numpy as np

from .. import config
from . import njit

# serial and nogil (the caller runs blocks of replicates on threads); no fastmath: the
# interval ends are compared with a naive twin to 1e-12, and sums of scores may meet
# any value the user's data holds
_JIT = {"cache": config.NUMBA_CACHE, "fastmath": False, "nogil": True}


@njit(**_JIT)
def aggregate_replicates(flat, clipped, pos, sorted_vals, idx, tasks, lo, hi, out):
    """Median, IQM, mean and mean of clipped scores of each bootstrap replicate.

    Parameters
    ----------
    flat : (T * n,) float64
        Scores, task-major: ``flat[t * n + i]`` = run i of task t.
    clipped : (T * n,) float64
        ``min(flat, gamma)`` (the optimality gap is ``gamma - mean(clipped)``).
    pos : (T * n,) int64
        Position of each score in the sorted scores.
    sorted_vals : (T * n,) float64
        The scores, sorted.
    idx : (B, T, n) integer
        Drawn run of each slot (replicate, task slot, run slot).
    tasks : (B, T) int64
        Task drawn for each task slot (the identity without the task bootstrap).
    lo, hi : int
        The interquartile mean averages sorted positions ``lo .. hi - 1`` of the replicate
        (``lo = int(0.25 * T * n)``, ``hi = T * n - lo``: scipy's ``trim_mean``).
    out : (B, 4) float64
        Median of the task means, IQM, mean, mean of clipped scores.
    """
    B, T, n = idx.shape
    N = T * n
    counts = np.zeros(N, dtype=np.int64)
    tm = np.empty(T)
    for b in range(B):
        counts[:] = 0
        tot = 0.0
        totc = 0.0
        for t in range(T):
            base = tasks[b, t] * n
            s = 0.0
            for j in range(n):
                c = base + idx[b, t, j]
                s += flat[c]
                totc += clipped[c]
                counts[pos[c]] += 1
            tm[t] = s / n
            tot += s
        tm.sort()  # in place: no allocation per replicate (np.median copies)
        h = T // 2
        out[b, 0] = tm[h] if T % 2 else 0.5 * (tm[h - 1] + tm[h])
        cum = 0
        acc = 0.0
        for k in range(N):
            c0 = cum
            cum += counts[k]
            a = min(max(c0, lo), hi)
            z = min(max(cum, lo), hi)
            if z > a:
                acc += (z - a) * sorted_vals[k]
        out[b, 1] = acc / (hi - lo)
        out[b, 2] = tot / N
        out[b, 3] = totc / N


@njit(**_JIT)
def improvement_replicates(ny, pos_y, below, upto, idx_x, idx_y, out):
    """Probability of improvement ``P(X > Y)`` (ties count half) of each replicate.

    Parameters
    ----------
    ny : int
        Runs of Y per task.
    pos_y : (T, ny) int64
        Position of Y's run j among Y's sorted scores of task t.
    below, upto : (T, nx) int64
        For X's run i of task t: the number of Y's scores of that task below it, and at
        or below it.
    idx_x : (B, T, nx) integer
    idx_y : (B, T, ny) integer
        Drawn runs of X and Y (independent resamples, as rliable).
    out : (B,) float64
        Mean over tasks of ``U_t / (nx ny)``, U_t the Mann–Whitney count of the replicate.
    """
    B, T, nx = idx_x.shape
    C = np.empty(ny + 1, dtype=np.int64)
    cnt = np.empty(ny, dtype=np.int64)
    for b in range(B):
        acc = 0.0
        for t in range(T):
            cnt[:] = 0
            for j in range(ny):
                cnt[pos_y[t, idx_y[b, t, j]]] += 1
            C[0] = 0
            for j in range(ny):
                C[j + 1] = C[j] + cnt[j]
            u2 = 0  # twice U: an integer
            for j in range(nx):
                i = idx_x[b, t, j]
                lo = C[below[t, i]]
                u2 += 2 * lo + (C[upto[t, i]] - lo)
            acc += 0.5 * u2 / (nx * ny)
        out[b] = acc / T


@njit(**_JIT)
def profile_replicates(flat, pos, idx, tasks, thr_pos, thr, per_task, out):
    """Compute each replicate's performance profile: the fraction of scores above each threshold.

    Parameters
    ----------
    flat : (T * n,) float64
        Scores, task-major.
    pos : (T * n,) int64
        Position of each score in the sorted scores.
    idx : (B, T, n) integer
    tasks : (B, T) int64
    thr_pos : (K,) int64
        Number of scores at or below each threshold (``searchsorted(sorted, thr, "right")``).
    thr : (K,) float64
        The thresholds, ascending.
    per_task : bool
        False: the fraction of runs (all tasks, all runs) above each threshold (rliable's
        score distribution); True: the fraction of task means above it.
    out : (B, K) float64
    """
    B, T, n = idx.shape
    N = T * n
    K = thr.size
    counts = np.zeros(N, dtype=np.int64)
    C = np.empty(N + 1, dtype=np.int64)
    tm = np.empty(T)
    for b in range(B):
        if per_task:
            for t in range(T):
                base = tasks[b, t] * n
                s = 0.0
                for j in range(n):
                    s += flat[base + idx[b, t, j]]
                tm[t] = s / n
            tm.sort()
            p = 0
            for k in range(K):
                while p < T and tm[p] <= thr[k]:
                    p += 1
                out[b, k] = (T - p) / T
        else:
            counts[:] = 0
            for t in range(T):
                base = tasks[b, t] * n
                for j in range(n):
                    counts[pos[base + idx[b, t, j]]] += 1
            C[0] = 0
            for k in range(N):
                C[k + 1] = C[k] + counts[k]
            for k in range(K):
                out[b, k] = (N - C[thr_pos[k]]) / N
