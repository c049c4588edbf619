"""Numba kernels of the stratified bootstrap of robust aggregates (Agarwal et al. 2021).

Arrays and scalars only; :mod:`genexpy_nb.aggregates` checks the input and calls these on
blocks of replicates. The interval estimates' kernel draws its own resamples from a
counter-based stream per replicate (below); the probability of improvement and the
performance profiles take indices drawn with NumPy.

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
``replicates x runs x tasks`` in every step); hence numba. Small task-bootstrap studies
take :mod:`genexpy_nb.aggregates._replicates_numpy` instead, which makes
:func:`bootstrap_aggregates`'s draws and sums in the same order (the same bits) without
loading numba.
"""

from __future__ import annotations

import numpy as np

from . import jit_exact, streams

# flags: jit_exact (the one place of numba flags: genexpy_nb._numba)
# serial and nogil (the caller runs blocks of replicates on threads); no fastmath: the
# interval ends are compared with a naive twin to 1e-12, and sums of scores may meet
# any value the user's data holds


@jit_exact
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


@jit_exact
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


# ---- the interval estimates' bootstrap, drawing inside the kernel ----------------------------
# A counter-based generator (SplitMix64, as the n* interval's kernel) keyed by the seed's
# key (shared by the alternatives of a shape) and the replicate's number: replicate b
# draws the same runs whatever the blocks and the threads, and no index array of
# replicates x tasks x runs is drawn by NumPy or held in memory (NumPy's draws were a
# quarter of the time). Each 64-bit output gives three 21-bit uniforms, each turned into a
# run by Lemire's multiply-shift with its rejection step (exactly uniform; the rejection
# has probability below n / 2^21, which bounds the runs per task at 2^21 / 64, and the
# tasks under the task bootstrap).
# (the constants live in .streams, read by this kernel and by its NumPy route alike)
_GOLDEN, _M1, _M2 = streams.GOLDEN, streams.M1, streams.M2
_S30, _S27, _S31 = streams.S30, streams.S27, streams.S31
_BITS, _S22, _S43 = streams.BITS, streams.S22, streams.S43
_LOW21, _TWO21 = streams.LOW21, streams.TWO21
MAX_DRAW_RANGE = streams.MAX_DRAW_RANGE


@jit_exact
def _mix(z):
    """SplitMix64's output function."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@jit_exact
def _lemire(state, x21, k):
    """Map the 21-bit uniform ``x21`` to a uniform integer in [0, k): (state, integer).

    Lemire (2019): the high bits of ``x21 * k``, rejected (and drawn afresh from the
    stream) in the rare case that would make it biased.
    """
    kk = np.uint64(k)
    m = x21 * kk
    low = m & _LOW21
    if low < kk:
        thr = (_TWO21 - kk) % kk
        while low < thr:
            state = state + _GOLDEN
            m = (_mix(state) >> _S43) * kk
            low = m & _LOW21
    return state, np.int64(m >> _BITS)


@jit_exact
def _replicate_state(key, b):
    """Return the generator's state at the start of replicate ``b`` of the stream ``key``."""
    return _mix(np.uint64(key) ^ (np.uint64(b + 1) * _GOLDEN))


@jit_exact
def _draw_slot(state, n, T, task_bootstrap, t, runs):
    """Draw the task of slot ``t`` (itself without the task bootstrap) and its n runs."""
    u = t
    if task_bootstrap:
        state = state + _GOLDEN
        state, u = _lemire(state, _mix(state) >> _S43, T)
    j = 0
    while j < n:
        state = state + _GOLDEN
        x = _mix(state)
        state, runs[j] = _lemire(state, x >> _S43, n)
        if j + 1 < n:
            state, runs[j + 1] = _lemire(state, (x >> _S22) & _LOW21, n)
        if j + 2 < n:
            state, runs[j + 2] = _lemire(state, x & _LOW21, n)
        j += 3
    return state, u


@jit_exact
def replicate_draws(key, b, n, T, task_bootstrap, runs, tasks):
    """Write the draws of replicate ``b``: ``tasks[t]`` and its runs ``runs[t, :]``.

    Parameters
    ----------
    key : uint64
        The stream of the draws (the seed's: ``estimates._intervals_key``).
    b : int
        The replicate.
    n, T : int
        Runs per task and tasks.
    task_bootstrap : bool
        Draw the task of every slot too (else slot t is task t).
    runs : (T, n) int64
        Receives the run drawn for each (task slot, run slot).
    tasks : (T,) int64
        Receives the task of each slot.

    Notes
    -----
    The very draws :func:`bootstrap_aggregates` makes (tests compare the kernel with a
    naive twin on them).
    """
    state = _replicate_state(key, b)
    for t in range(T):
        state, tasks[t] = _draw_slot(state, n, T, task_bootstrap, t, runs[t])


@jit_exact
def bootstrap_aggregates(scores, clipped, clip, orders, sorted_vals, n, T, key, task_bootstrap,
                         lo, hi, b0, b1, out, counts_like):
    """Median, IQM, mean and mean of clipped scores of replicates ``b0 .. b1 - 1``.

    All the alternatives of one shape (n runs x T tasks) at once, on the same draws.

    Parameters
    ----------
    scores : (T * n, A) float64
        Scores of the A alternatives, cell-major: ``scores[t * n + i, a]`` = run i of
        task t of alternative a.
    clipped : (T * n, A) float64
        ``min(scores, gamma)``.
    clip : bool
        Some score is above gamma (else ``clipped`` equals ``scores`` and is not read).
    orders : (A, T * n) int32
        ``orders[a, k]``: the cell of the k-th smallest score of alternative a (a stable
        argsort).
    sorted_vals : (A, T * n) float64
        Each alternative's scores, sorted.
    n, T : int
        Runs per task and tasks.
    key : uint64
        The stream of the draws (see :func:`replicate_draws`).
    task_bootstrap : bool
        Resample the tasks too.
    lo, hi : int
        The interquartile mean averages sorted positions ``lo .. hi - 1`` of the replicate
        (``lo = int(0.25 * T * n)``, ``hi = T * n - lo``: scipy's ``trim_mean``).
    b0, b1 : int
        The replicates to compute.
    out : (B, A, 4) float64
        Rows ``b0 .. b1 - 1`` receive, per alternative, the median of the task means, the
        IQM, the mean and the mean of the clipped scores.
    counts_like : (T * n, R) uint8 or int32
        Zeros of the shape and dtype of the draws' counts of a batch of R replicates:
        uint8 where no cell can be drawn more than 255 times in a replicate (n <= 255
        without the task bootstrap), so the walks read counts that stay in cache, else
        int32. R does not change the results (each replicate's sums are its own).

    Notes
    -----
    A replicate's draws are the same for every alternative (as rliable's with a fixed
    ``random_state``): they are made once and counted per cell of the task slot, and
    each alternative's sum over the slot is ``sum_i count_i * score_i``, one pass over
    the slot's cells for all alternatives at once (contiguous in ``scores``). The IQM of
    each alternative is the total less the sums of the ``lo`` smallest and the
    ``T n - hi`` largest drawn scores, each walked from its end of that alternative's
    sorted cells (as the sorted replicate would be cut); the median of the task means is
    selected, not sorted. The drawing is shared by the A alternatives; what is left per
    alternative is the slot sums, the two walks and the selection. The walks go by
    batches of R replicates: each alternative's sorted positions well before the cut
    (all but about ``4 sqrt(T n)`` of each end) are read once for the batch, with the
    batch's counts of each cell side by side, and each replicate walks only the rest.
    """
    N = T * n
    A = scores.shape[1]
    R = counts_like.shape[1]
    counts = np.zeros_like(counts_like)  # (cell, replicate of the batch)
    runs = np.empty(n, dtype=np.int64)
    cnt = np.zeros(n, dtype=np.int64)
    acc = np.empty(A)
    accc = np.empty(A)
    tot = np.empty((A, R))
    totc = np.empty(A)
    one = n == 1  # a slot's mean is its task's one score: medians from the counts
    tm = np.empty((A, 1 if one else T))
    h = T // 2
    window = 4 * int(np.sqrt(N)) + 32  # about 9 standard deviations of the cut's position
    cum = np.empty(R, dtype=np.int64)
    part = np.empty(R)
    low = np.empty(R)
    high = np.empty(R)
    for r0 in range(b0, b1, R):
        nr = min(R, b1 - r0)
        for r in range(nr):
            b = r0 + r
            state = _replicate_state(key, b)
            for a in range(A):
                tot[a, r] = 0.0
                totc[a] = 0.0
            for t in range(T):
                state, u = _draw_slot(state, n, T, task_bootstrap, t, runs)
                base = u * n
                for j in range(n):
                    cnt[runs[j]] += 1
                for a in range(A):
                    acc[a] = 0.0
                    accc[a] = 0.0
                # every cell, drawn or not (no branch to mispredict: a third of the cells
                # are not drawn; the scores are finite, so 0 x score adds nothing), and no
                # row views (each would cost a reference count)
                for j in range(n):
                    c = cnt[j]
                    counts[base + j, r] += c
                    for a in range(A):
                        acc[a] += c * scores[base + j, a]
                    if clip:
                        for a in range(A):
                            accc[a] += c * clipped[base + j, a]
                    cnt[j] = 0
                for a in range(A):
                    if not one:
                        tm[a, t] = acc[a] / n
                    tot[a, r] += acc[a]
                    totc[a] += accc[a] if clip else acc[a]
            for a in range(A):
                if not one:
                    out[b, a, 0] = _median_inplace(tm[a], h)
                out[b, a, 2] = tot[a, r] / N
                out[b, a, 3] = totc[a] / N
        # the IQM of the batch: per alternative, the total less the lo smallest and the
        # N - hi largest drawn scores; the bulk of each end (well before its cut) is read
        # once for all the batch's replicates, the rest walked per replicate
        for a in range(A):
            order = orders[a]
            vals = sorted_vals[a]
            if one:
                _count_medians(counts, order, vals, h, T % 2 == 0, window, nr, cum,
                               out[r0:, a, 0])
            # (the same argument types at both ends: one compiled signature)
            _ends(counts, order, vals, np.int64(lo), np.int64(window), np.int64(nr),
                  np.int64(1), cum, part, low)
            _ends(counts, order, vals, np.int64(N - hi), np.int64(window), np.int64(nr),
                  np.int64(-1), cum, part, high)
            for r in range(nr):
                out[r0 + r, a, 1] = (tot[a, r] - low[r] - high[r]) / (hi - lo)
        for i in range(N):
            for r in range(nr):
                counts[i, r] = 0


@jit_exact
def _ends(counts, order, vals, need, window, nr, step, cum, part, res):
    """Write the sum of each batch replicate's ``need`` smallest or largest drawn scores.

    ``res[r]``: replicate r of the batch (``counts[:, r]``); ``step`` 1: the smallest,
    -1: the largest. The positions before ``need - window`` from the end are summed for
    the whole batch in one pass (a replicate's cut lies within a few ``sqrt(N)`` of
    ``need``); each replicate then walks on to its cut. A replicate whose cut lies inside
    that bulk (its count there reaches ``need``) walks the whole end instead: the same
    sum either way.
    """
    N = order.size
    m = max(0, need - window)  # positions in the bulk
    cum[:nr] = 0
    part[:nr] = 0.0
    k = 0 if step > 0 else N - 1
    for _ in range(m):
        o = order[k]
        v = vals[k]
        for r in range(nr):
            c = counts[o, r]
            cum[r] += c
            part[r] += c * v
        k += step
    for r in range(nr):
        if cum[r] >= need:  # the cut is inside the bulk: walk the whole end
            res[r] = _walk_col(counts, order, vals, need, 0 if step > 0 else N - 1, step,
                               0, r)
        else:
            res[r] = part[r] + _walk_col(counts, order, vals, need, k, step, cum[r], r)


@jit_exact
def _count_medians(counts, order, vals, h, even, window, nr, cum, res):
    """Write each batch replicate's median of its drawn scores (one run per task).

    The h-th smallest drawn score (0-based; averaged with the one below for an even
    number of tasks, as :func:`_median_inplace`), read from the counts along the sorted
    positions instead of selected among T task means: the positions before ``h - window``
    are counted for the whole batch in one pass, each replicate walks on from there (or
    from the start when its median lies inside that bulk). ``0.0 +`` each value, as a
    slot's mean ``(0.0 + 1 x score) / 1`` is (-0.0 becomes 0.0).
    """
    first = h - 1 if even else h
    m = max(0, first - window)
    cum[:nr] = 0
    for k in range(m):
        o = order[k]
        for r in range(nr):
            cum[r] += counts[o, r]
    for r in range(nr):
        k, c = (m, cum[r]) if cum[r] <= first else (0, 0)
        while True:  # the first position whose running count passes ``first``
            c += counts[order[k], r]
            if c > first:
                break
            k += 1
        v = 0.0 + vals[k]
        if even:
            while c <= h:  # the next drawn score (the same position if drawn twice)
                k += 1
                c += counts[order[k], r]
            v = 0.5 * (v + (0.0 + vals[k]))
        res[r] = v


@jit_exact
def _walk_col(counts, order, sorted_vals, need, k, step, cum, r):
    """Sum replicate r's drawn scores from sorted position ``k`` on until ``need``."""
    acc = 0.0
    while cum < need:
        c = counts[order[k], r]
        acc += min(c, need - cum) * sorted_vals[k]
        cum += c
        k += step
    return acc


@jit_exact
def _median_inplace(x, h):
    """Return the median of ``x``, reordering it in place (Hoare's selection).

    The h-th smallest (``h = len(x) // 2``), averaged with the one below it when the
    length is even (``np.median``'s value).
    """
    T = x.size
    _select(x, h)
    if T % 2:
        return x[h]
    below = x[0]
    for i in range(1, h):
        if x[i] > below:
            below = x[i]
    return 0.5 * (below + x[h])


@jit_exact
def _select(x, k):
    """Reorder ``x`` in place so that ``x[k]`` is its k-th smallest, smaller ones before."""
    left = 0
    right = x.size - 1
    while right > left:
        mid = (left + right) // 2
        # median of three as the pivot
        a, b, c = x[left], x[mid], x[right]
        if a > b:
            a, b = b, a
        if b > c:
            b = c
            if a > b:
                b = a
        pivot = b
        i = left
        j = right
        while i <= j:
            while x[i] < pivot:
                i += 1
            while x[j] > pivot:
                j -= 1
            if i <= j:
                x[i], x[j] = x[j], x[i]
                i += 1
                j -= 1
        if k <= j:
            right = j
        elif k >= i:
            left = i
        else:
            return


# ---- the interval estimates without the task bootstrap: batches of replicates side by side ---
@jit_exact
def batch_aggregates(scores, clip, above, gamma, orders, sorted_vals, tsorted, n, T, key, lo,
                     hi, b0, b1, out, counts_like, halfwidth, window, reach):
    """Median, IQM, mean and mean of clipped scores of replicates ``b0 .. b1 - 1``.

    The values of :func:`bootstrap_aggregates` without the task bootstrap, on the same
    draws, computed for a batch of R replicates side by side (the same terms added in
    another order: a difference of a few units in the last place).

    Parameters
    ----------
    scores, clip, orders, sorted_vals, n, T, key, lo, hi, b0, b1, out
        As :func:`bootstrap_aggregates`.
    above : (A,) int64
        The number of each alternative's scores at or below gamma (its first sorted
        position above gamma).
    gamma : float
        The optimality gap's target.
    tsorted : (A, T) float64
        Each alternative's task means, sorted (they place the replicate's median).
    counts_like : (T * n, R) uint8 or int32
        Zeros of the shape and dtype of the draws' counts of a batch of R replicates
        (uint8 where n <= 255).
    window, reach : int
        Each end of the IQM sums the sorted positions up to ``window`` before the
        expected cut for the whole batch (the bulk), then those up to ``reach`` past it
        (each replicate taking its share up to its own cut); a replicate whose cut falls
        outside walks that end alone (exact either way; rare when both are a few
        ``sqrt(T n) / 2``, the standard deviation of the cut's position).
    halfwidth : int
        The median's window: the replicate's task means between the observed ones of
        sorted positions ``h - 1 - halfwidth`` and ``h + halfwidth`` are selected from
        (``h = T // 2``); where its median falls outside, all T are.

    Notes
    -----
    Slot t of every replicate of the batch is drawn, its counts kept in an ``n x R``
    array, and each alternative's slot sum of each replicate is accumulated cell by cell
    with the replicates innermost (:func:`_slot_sums`): multiply-adds over contiguous
    replicates, which the compiler vectorises, instead of one chain per replicate through
    an array of alternatives. The median of the T task means is selected among those in
    a window of the observed task means around their median (:func:`_medians_batched`);
    only when the replicate's median falls outside the window are all T selected from.
    The IQM's two
    ends are summed as in :func:`bootstrap_aggregates`, the part near each cut for the
    whole batch too (:func:`_ends_batched`). The mean of the clipped scores reads the
    scores above gamma from the nearer end of the sorted scores in the same pass as the
    IQM's end there, instead of a second sum per cell.
    """
    N = T * n
    A = scores.shape[1]
    R = counts_like.shape[1]
    counts = np.zeros_like(counts_like)  # (cell, replicate of the batch)
    C = np.zeros((n, R))  # the counts of the slot's cells, per replicate
    P = np.empty((A, R))  # the slot sums
    tot = np.empty((A, R))
    tm = np.empty((A, T, R))  # the task means, replicates side by side
    states = np.empty(R, dtype=np.uint64)
    runs = np.empty(n, dtype=np.int64)
    bufs = np.empty((R, T))
    nbelow = np.empty(R, dtype=np.int64)
    nin = np.empty(R, dtype=np.int64)
    full = np.empty(T)
    h = T // 2
    cumf = np.empty(R)
    scum = np.empty(R)
    spart = np.empty(R)
    part = np.empty(R)
    acc = np.empty(R)
    low = np.empty(R)
    high = np.empty(R)
    for r0 in range(b0, b1, R):
        nr = min(R, b1 - r0)
        for r in range(nr):
            states[r] = _replicate_state(key, r0 + r)
        tot[:, :nr] = 0.0
        for t in range(T):
            base = t * n
            for r in range(nr):
                states[r], _ = _draw_slot(states[r], n, T, False, t, runs)
                for j in range(n):
                    C[runs[j], r] += 1.0
            P[:, :nr] = 0.0
            _slot_sums(scores, C, base, n, nr, P)
            for j in range(n):
                for r in range(nr):
                    counts[base + j, r] = int(C[j, r])
                C[j, :nr] = 0.0
            for a in range(A):
                for r in range(nr):
                    tm[a, t, r] = P[a, r] / n
                    tot[a, r] += P[a, r]
        for a in range(A):
            p_lo = tsorted[a, max(0, h - 1 - halfwidth)]
            p_hi = tsorted[a, min(T - 1, h + halfwidth)]
            _medians_batched(tm[a], nr, h, p_lo, p_hi, bufs, nbelow, nin, full,
                             out[r0:r0 + nr, a, 0])
            for r in range(nr):
                out[r0 + r, a, 2] = tot[a, r] / N
            order = orders[a]
            vals = sorted_vals[a]
            # the clipped scores' sum from the end nearer to gamma's sorted position, read
            # with the IQM's end on that side: snap positions from it
            top = N - above[a] <= above[a]
            snap = (N - above[a] if top else above[a]) if clip else -1
            # (every scalar as int64: one compiled signature for both ends)
            _ends_batched(counts, order, vals, np.int64(lo), np.int64(window),
                          np.int64(reach), np.int64(nr), np.int64(1), cumf, part, acc, low,
                          np.int64(-1 if top else snap), scum, spart)
            _ends_batched(counts, order, vals, np.int64(N - hi), np.int64(window),
                          np.int64(reach), np.int64(nr), np.int64(-1), cumf, part, acc,
                          high, np.int64(snap if top else -1), scum, spart)
            for r in range(nr):
                out[r0 + r, a, 1] = (tot[a, r] - low[r] - high[r]) / (hi - lo)
                if not clip:
                    out[r0 + r, a, 3] = tot[a, r] / N
                elif top:  # the total less sum c (v - gamma) over the scores above gamma
                    out[r0 + r, a, 3] = (tot[a, r] - (spart[r] - gamma * scum[r])) / N
                else:  # the scores up to gamma, and gamma for each draw of the rest
                    out[r0 + r, a, 3] = (spart[r] + gamma * (N - scum[r])) / N
        for i in range(N):
            for r in range(nr):
                counts[i, r] = 0


@jit_exact
def _slot_sums(scores, C, base, n, nr, P):
    """Add ``sum_j C[j, r] scores[base + j, a]`` to ``P[a, r]`` (r < nr).

    Four cells at a time (``P`` is read and written once per four: the loop is bound by
    those), the replicates innermost, in a fixed order.
    """
    A = scores.shape[1]
    q = 0
    while q + 4 <= n:
        c0 = C[q]
        c1 = C[q + 1]
        c2 = C[q + 2]
        c3 = C[q + 3]
        i = base + q
        for a in range(A):
            s0 = scores[i, a]
            s1 = scores[i + 1, a]
            s2 = scores[i + 2, a]
            s3 = scores[i + 3, a]
            p = P[a]
            for r in range(nr):
                p[r] += (c0[r] * s0 + c1[r] * s1) + (c2[r] * s2 + c3[r] * s3)
        q += 4
    while q < n:
        c0 = C[q]
        for a in range(A):
            s0 = scores[base + q, a]
            p = P[a]
            for r in range(nr):
                p[r] += c0[r] * s0
        q += 1


@jit_exact
def _ends_batched(counts, order, vals, need, window, reach, nr, step, cum, part, acc, res,
                  snap, scum, spart):
    """Write the sum of each batch replicate's ``need`` smallest or largest drawn scores.

    ``res[r]``: replicate r of the batch (``counts[:, r]``); ``step`` 1: the smallest,
    -1: the largest. The first ``need - window`` sorted positions from that end (the
    bulk: a replicate's cut lies within a few ``sqrt(N)`` of ``need``) are summed for the
    whole batch (:func:`_bulk`); the positions on to ``need + reach`` too, each replicate
    taking ``min(c, max(need - cum, 0))`` of a cell drawn c times with ``cum`` drawn
    before it (nothing past its cut). A replicate whose cut lies inside the bulk walks
    the whole end, one whose cut lies beyond ``need + reach`` walks on (both rare). With
    ``snap >= 0``, ``scum`` and ``spart`` receive the draws and their sum over the first
    ``snap`` positions from the end.
    """
    N = order.size
    m = max(0, need - window)  # positions in the bulk
    e = min(N, need + reach)  # the end of the part near the cut
    cum[:nr] = 0.0
    part[:nr] = 0.0
    acc[:nr] = 0.0
    k0 = 0 if step > 0 else N - 1
    if 0 <= snap <= m:
        k = _bulk(counts, order, vals, k0, step, snap, nr, cum, part)
        for r in range(nr):  # element by element: no shape check to compile
            scum[r] = cum[r]
            spart[r] = part[r]
        k = _bulk(counts, order, vals, k, step, m - snap, nr, cum, part)
    else:
        k = _bulk(counts, order, vals, k0, step, m, nr, cum, part)
    kb = k
    for r in range(nr):
        res[r] = cum[r]  # the draws in the bulk
    if snap > m:  # on from the bulk to the snap
        for r in range(nr):
            scum[r] = cum[r]
            spart[r] = part[r]
        _bulk(counts, order, vals, kb, step, snap - m, nr, scum, spart)
    k = _near_cut(counts, order, vals, k, step, e - m, np.float64(need), nr, cum, acc)
    needf = np.float64(need)
    for r in range(nr):
        if res[r] >= needf:  # the cut is inside the bulk: walk the whole end
            res[r] = _walk_col(counts, order, vals, need, k0, step, 0, r)
        elif cum[r] < needf:  # the cut is beyond the part near it: walk on
            res[r] = part[r] + _walk_on(counts, order, vals, need, k, step, int(cum[r]), r,
                                        acc[r])
        else:
            res[r] = part[r] + acc[r]


@jit_exact
def _near_cut(counts, order, vals, k, step, count, need, nr, cum, acc):
    """Add to ``acc[r]`` the shares below replicate r's cut of ``count`` sorted positions.

    From ``k`` on: a cell drawn c times with ``cum[r]`` drawn before it adds
    ``min(c, max(need - cum[r], 0))`` times its score (nothing past the cut); four
    positions at a time, in a fixed order. Returns the next position.
    """
    q = 0
    while q + 4 <= count:
        c0 = counts[order[k]]
        c1 = counts[order[k + step]]
        c2 = counts[order[k + 2 * step]]
        c3 = counts[order[k + 3 * step]]
        v0 = vals[k]
        v1 = vals[k + step]
        v2 = vals[k + 2 * step]
        v3 = vals[k + 3 * step]
        for r in range(nr):
            a0 = np.float64(c0[r])
            a1 = np.float64(c1[r])
            a2 = np.float64(c2[r])
            a3 = np.float64(c3[r])
            u0 = need - cum[r]
            u1 = u0 - a0
            u2 = u1 - a1
            u3 = u2 - a2
            acc[r] += ((min(a0, max(u0, 0.0)) * v0 + min(a1, max(u1, 0.0)) * v1)
                       + (min(a2, max(u2, 0.0)) * v2 + min(a3, max(u3, 0.0)) * v3))
            cum[r] += (a0 + a1) + (a2 + a3)
        k += 4 * step
        q += 4
    while q < count:
        cr = counts[order[k]]
        v = vals[k]
        for r in range(nr):
            c = np.float64(cr[r])
            acc[r] += min(c, max(need - cum[r], 0.0)) * v
            cum[r] += c
        k += step
        q += 1
    return k


@jit_exact
def _bulk(counts, order, vals, k, step, count, nr, cum, part):
    """Add ``count`` sorted positions from ``k`` on to each replicate's draws and their sum.

    Four positions at a time (``cum[r]`` and ``part[r]`` are read and written once per
    four: the pass is bound by those), in a fixed order; returns the next position.
    """
    q = 0
    while q + 4 <= count:
        c0 = counts[order[k]]
        c1 = counts[order[k + step]]
        c2 = counts[order[k + 2 * step]]
        c3 = counts[order[k + 3 * step]]
        v0 = vals[k]
        v1 = vals[k + step]
        v2 = vals[k + 2 * step]
        v3 = vals[k + 3 * step]
        for r in range(nr):
            a0 = np.float64(c0[r])
            a1 = np.float64(c1[r])
            a2 = np.float64(c2[r])
            a3 = np.float64(c3[r])
            cum[r] += (a0 + a1) + (a2 + a3)
            part[r] += (a0 * v0 + a1 * v1) + (a2 * v2 + a3 * v3)
        k += 4 * step
        q += 4
    while q < count:
        cr = counts[order[k]]
        v = vals[k]
        for r in range(nr):
            c = np.float64(cr[r])
            cum[r] += c
            part[r] += c * v
        k += step
        q += 1
    return k


@jit_exact
def _walk_on(counts, order, sorted_vals, need, k, step, cum, r, acc):
    """:func:`_walk_col` continuing a sum ``acc`` (the same order of additions)."""
    while cum < need:
        c = counts[order[k], r]
        acc += min(c, need - cum) * sorted_vals[k]
        cum += c
        k += step
    return acc


@jit_exact
def _medians_batched(tm, nr, h, p_lo, p_hi, bufs, nbelow, nin, full, res):
    """Write ``np.median(tm[:, r])`` to ``res[r]`` for each replicate r of the batch.

    One branch-free pass over the task means ``tm`` (T x R, replicates side by side)
    counts each replicate's means below ``p_lo`` and gathers those in ``[p_lo, p_hi]``
    into its row of ``bufs``; each median (rank ``h = T // 2``, and ``h - 1`` for an even
    T, as ``np.median``) is then selected there, or from all T where its ranks are not
    among them.
    """
    T = tm.shape[0]
    nbelow[:nr] = 0
    nin[:nr] = 0
    for t in range(T):
        row = tm[t]
        for r in range(nr):
            v = row[r]
            bufs[r, nin[r]] = v
            nbelow[r] += v < p_lo
            nin[r] += (v >= p_lo) & (v <= p_hi)
    for r in range(nr):
        below = nbelow[r]
        if below <= h - 1 and below + nin[r] > h:
            res[r] = _median_ranked(bufs[r, :nin[r]], h - below, T % 2)
        else:
            for t in range(T):
                full[t] = tm[t, r]
            res[r] = _median_inplace(full, h)


@jit_exact
def _median_ranked(y, m, odd):
    """Return the m-th smallest of y, averaged with the one below unless ``odd`` (m >= 1)."""
    _select(y, m)
    if odd:
        return y[m]
    below = y[0]
    for i in range(1, m):
        if y[i] > below:
            below = y[i]
    return 0.5 * (below + y[m])
