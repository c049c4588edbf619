"""The task bootstrap's replicates of the interval estimates in NumPy: the numba kernel's bits.

:func:`genexpy_nb._numba.aggregates.bootstrap_aggregates` computes the median, IQM, mean
and clipped mean of each replicate of the task bootstrap; its first call in a process
loads numba and the compiled kernel, about 1 s, more than the whole bootstrap of a small
study takes (18 alternatives x 104 tasks x 10,000 replicates: 0.08 s in the kernel). Up to
``config.ROUTES.aggregates_numpy_max_work`` the same replicates come from here: the same
counter-based draws (SplitMix64 with Lemire's multiply-shift and its rejection step) and
the same sums in the same order, vectorised over the replicates, so every value has the
kernel's bits (tested) and the route only moves time.

The sums are kept in the kernel's order: per replicate, each task slot's sum runs over the
slot's cells in order and the slots' sums accumulate in slot order (one NumPy step per
cell, over all replicates and alternatives at once); each end of the IQM is the bulk of
sorted positions before ``need - window`` summed in order, plus the walk on to the cut
(a running sum read at the cut: ``np.cumsum`` accumulates in order, from a leading 0.0 as
the kernel's sums start). NumPy's pairwise ``sum`` would change the last bits, hence the
running sums.
"""

from __future__ import annotations

import numpy as np

from .._numba import streams as st  # the kernel's constants; loads no numba

#: most replicates x cells held at once (the counts of a chunk of replicates, int64)
_CHUNK_CELLS = 1 << 21


def _mix(z: np.ndarray) -> np.ndarray:
    """SplitMix64's output function, element-wise (uint64 arithmetic wraps, as in the kernel)."""
    z = (z ^ (z >> st.S30)) * st.M1
    z = (z ^ (z >> st.S27)) * st.M2
    return z ^ (z >> st.S31)


def _lemire(state: np.ndarray, x21: np.ndarray, k: int) -> np.ndarray:
    """Map each 21-bit uniform to ``[0, k)``; rejected ones draw afresh from their stream.

    ``state`` is advanced in place where a draw was rejected (the kernel's ``_lemire``).
    """
    kk = np.uint64(k)
    m = x21 * kk
    thr = (st.TWO21 - kk) % kk
    rej = np.flatnonzero((m & st.LOW21) < thr)
    while rej.size:
        state[rej] += st.GOLDEN
        m[rej] = (_mix(state[rej]) >> st.S43) * kk
        rej = rej[(m[rej] & st.LOW21) < thr]
    return (m >> st.BITS).astype(np.int64)


def replicate_draws(key: np.uint64, b0: int, b1: int, n: int, T: int
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Return the draws of replicates ``b0 .. b1 - 1``: runs ``(B, T, n)`` and tasks ``(B, T)``.

    The kernel's ``replicate_draws`` with the task bootstrap (the only one this route
    serves), for every replicate at once.
    """
    B = b1 - b0
    b = np.arange(b0, b1, dtype=np.uint64) + np.uint64(1)
    state = _mix(np.uint64(key) ^ (b * st.GOLDEN))
    runs = np.empty((B, T, n), dtype=np.int64)
    tasks = np.empty((B, T), dtype=np.int64)
    for t in range(T):
        state += st.GOLDEN
        tasks[:, t] = _lemire(state, _mix(state) >> st.S43, T)
        for j in range(0, n, 3):
            state += st.GOLDEN
            x = _mix(state)
            runs[:, t, j] = _lemire(state, x >> st.S43, n)
            if j + 1 < n:
                runs[:, t, j + 1] = _lemire(state, (x >> st.S22) & st.LOW21, n)
            if j + 2 < n:
                runs[:, t, j + 2] = _lemire(state, x & st.LOW21, n)
    return runs, tasks


def _running(terms: np.ndarray) -> np.ndarray:
    """Return running sums down axis 0 from a leading 0.0 (``out[j]``: the first j rows).

    ``np.cumsum`` accumulates in order (``out[j] = out[j - 1] + terms[j - 1]``), as the
    kernel's loops do, from the kernel's 0.0; down axis 0 it adds whole rows at a time (one
    column per replicate).
    """
    return np.cumsum(np.concatenate([np.zeros((1, terms.shape[1])), terms]), axis=0)


def _end(c: np.ndarray, after: np.ndarray, v: np.ndarray, need: int, window: int
         ) -> np.ndarray:
    """Return each replicate's sum of its ``need`` first drawn scores in walk order (``_ends``).

    ``c`` (N, B): counts of the sorted positions in walk order, a column per replicate;
    ``after`` (N, B): the count up to and including each row; ``v`` (N,): the scores there.
    The kernel sums the rows before ``m = need - window`` in order (the bulk), then walks
    on from row m with a sum of its own, ``min(c, need - count so far) * v`` up to the row
    where the count reaches ``need``; a replicate whose count reaches ``need`` inside the
    bulk walks the whole end from row 0 instead.
    """
    B = c.shape[1]
    if need == 0:
        return np.zeros(B)
    m = max(0, need - window)
    inside = after[m - 1] >= need if m else np.zeros(B, dtype=bool)
    res = np.empty(B)
    for start, sel in ((0, inside), (m, ~inside)):
        if not sel.any():
            continue
        every = bool(sel.all())
        cs = c[start:] if every else c[start:, sel]
        af = after[start:] if every else after[start:, sel]
        cols = np.arange(cs.shape[1])
        stop = (af < need).sum(axis=0)  # the row whose count reaches need
        # before it every row counts whole (min(c, need - count) is c): a running sum of
        # c * v, then the stop row's part, as the kernel adds them
        width = int(stop.max())
        walk = _running(cs[:width] * v[start:start + width, None])[stop, cols]
        c_stop = cs[stop, cols]
        walk = walk + np.minimum(c_stop, need - (af[stop, cols] - c_stop)) * v[start + stop]
        if start:  # the bulk's sum, then the walk's
            bulk = c[:m] if every else c[:m, sel]
            walk = _running(bulk * v[:m, None])[m] + walk
        res[sel] = walk
    return res


def _slot_sums(scores, clipped, clip, n, tasks, runs):
    """Each replicate's total and clipped total (B, A), and each slot's sum (T, B, A) if n > 1.

    A slot's sum runs over its task's cells in cell order from 0.0 (``count x score``);
    the totals add the slots' sums in slot order, as the kernel does.
    """
    T, B = tasks.shape
    A = scores.shape[1]
    tot = np.zeros((B, A))
    totc = np.zeros((B, A)) if clip else tot
    if n == 1:  # one cell per task, drawn once: the slot's sum is 0.0 + 1 x score
        first, firstc = 0.0 + scores, 0.0 + clipped
        for t in range(T):
            tot += first[tasks[t]]
            if clip:
                totc += firstc[tasks[t]]
        return tot, totc, None
    cnt = np.bincount((np.arange(T * B)[:, None] * n + runs.reshape(T * B, n)).ravel(),
                      minlength=T * B * n).reshape(T, B, n)  # each run's count in its slot
    acc = np.zeros((T, B, A))
    accc = np.zeros((T, B, A)) if clip else acc
    for j in range(n):
        cell = tasks * n + j
        acc += cnt[:, :, j, None] * scores[cell]
        if clip:
            accc += cnt[:, :, j, None] * clipped[cell]
    for t in range(T):
        tot += acc[t]
        if clip:
            totc += accc[t]
    return tot, totc, acc


def bootstrap_aggregates(scores, clipped, clip, orders, sorted_vals, n, T, key, lo, hi, b0, b1,
                         out):
    """Write rows ``b0 .. b1 - 1`` of ``out`` as the numba kernel does (task bootstrap only).

    The parameters are the kernel's (``task_bootstrap`` True, no ``counts_like``):
    ``scores``/``clipped`` (T n, A), ``orders``/``sorted_vals`` (A, T n); ``out[b, a]``
    receives the median of the task means, the IQM, the mean and the clipped mean. Arrays
    are laid out with the replicates last (a column each), so every running sum adds whole
    rows.
    """
    N = T * n
    A = scores.shape[1]
    h = T // 2
    window = 4 * int(np.sqrt(N)) + 32
    step = max(1, _CHUNK_CELLS // max(N, A * T))
    for r0 in range(b0, b1, step):
        r1 = min(b1, r0 + step)
        B = r1 - r0
        runs, tasks = replicate_draws(key, r0, r1, n, T)
        runs = runs.transpose(1, 0, 2)  # (T, B, n)
        tasks = np.ascontiguousarray(tasks.T)  # (T, B)
        cols = np.arange(B)
        # how often each cell was drawn (N, B): the IQM's walks
        counts = np.bincount(((tasks[:, :, None] * n + runs) * B + cols[:, None]).ravel(),
                             minlength=N * B).reshape(N, B)
        tot, totc, acc = _slot_sums(scores, clipped, clip, n, tasks, runs)
        out[r0:r1, :, 2] = tot / N
        out[r0:r1, :, 3] = totc / N
        if n > 1:
            tm = np.ascontiguousarray((acc / n).transpose(1, 2, 0))  # (B, A, T)
            part = np.partition(tm, (h - 1, h) if T % 2 == 0 else (h,), axis=2)
            out[r0:r1, :, 0] = (part[:, :, h] if T % 2
                                else 0.5 * (part[:, :, h - 1] + part[:, :, h]))
        for a in range(A):
            cs = counts[orders[a]]  # (N, B): the counts of the sorted positions
            upto = np.cumsum(cs, axis=0)
            # the same counts from the top: N draws in all, less those below each row
            down = N - np.concatenate([upto[-2::-1], np.zeros((1, B), dtype=upto.dtype)])
            if n == 1:  # a slot's mean is its task's one score (as 0.0 + 1 x score): the
                # median is the h-th drawn value in sorted order, found from the counts
                vals = 0.0 + sorted_vals[a]
                med = vals[(upto <= h).sum(axis=0)]
                if T % 2 == 0:
                    med = 0.5 * (vals[(upto <= h - 1).sum(axis=0)] + med)
                out[r0:r1, a, 0] = med
            low = _end(cs, upto, sorted_vals[a], lo, window)
            high = _end(cs[::-1], down, sorted_vals[a][::-1], N - hi, window)
            out[r0:r1, a, 1] = (tot[:, a] - low - high) / (hi - lo)
