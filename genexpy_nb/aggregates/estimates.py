"""Robust aggregates of benchmark results with stratified-bootstrap confidence intervals.

The aggregates of Agarwal et al. (NeurIPS 2021), as their package rliable computes them, for
results of several runs (seeds) of each alternative on each task:

* :func:`iqm` — the interquartile mean: the mean of the middle 50 % of all runs of all tasks
  (robust to outlying runs and tasks, less noisy than the median);
* :func:`mean` and :func:`median` — of the per-task mean scores;
* :func:`optimality_gap` — how far the runs fall short of a target score ``gamma``;
* :func:`probability_of_improvement` — the probability that a run of X beats a run of Y on
  a task, averaged over tasks (ties count half);
* :func:`performance_profile` — the fraction of runs (or task means) above each score
  threshold, with a band;
* :func:`interval_estimates` — any of the first four at once, from the same resamples.

Every interval is a **stratified bootstrap**: each replicate resamples, with replacement,
the runs *within* each task (the tasks are fixed: the interval says how much the aggregate
would move with other seeds on the same tasks); ``task_bootstrap=True`` also resamples the
tasks. Percentile intervals by default (as rliable), ``method="basic"`` as an option.
Seeded: the same seed gives the same bits. The interval estimates resample every
alternative of a shape (runs x tasks) with the same draws, as rliable does with a fixed
``random_state`` (drawn once per replicate for all of them: the cost per alternative is
then its sums, not the drawing), so an alternative's interval depends on the seed and its
own scores only, and adding or removing an alternative changes no other's interval; the
probability of improvement and the performance profiles draw per pair and per alternative
(the seed and the names).

Input, in one of two forms:

* a long table (polars, pandas or pyarrow) with one row per run: ``alternatives=`` (the
  column naming the algorithm), ``blocks=`` (the task; rliable's ``task=`` is its alias),
  ``target=`` (the score) and optionally ``run=`` (the seed; without it, the rows of a task
  are its runs, in order);
* a dict ``{name: array of shape (runs, tasks)}``, as rliable takes.

Every alternative needs the same tasks, and the same number of runs on each of its tasks
(different alternatives may have different numbers of runs). Scores are compared as
given: normalise them first (e.g. to human-normalised or min-max scores) where tasks have
different scales.

Point estimates equal rliable's to 1e-12 and the intervals equal them within Monte Carlo
error at the same number of replicates (tested); at rliable's default 50,000 replicates
they take about half a second per alternative of 50 runs x 200 tasks on one thread, about
100x rliable on a busy 2-core machine (``benchmarks/bench_waits.py``;
``bench_beyond_pvalues.py`` for small studies). All four aggregates come from one pass
over each replicate: asking for one costs about as much as asking for all. Small studies'
task-bootstrap intervals are computed with NumPy, with the compiled kernel's bits, up to
``config.ROUTES.aggregates_numpy_max_work``: a report on a small table then never loads
numba (about 1 s of a process's start).

References
----------
Agarwal, R., Schwarzer, M., Castro, P. S., Courville, A. and Bellemare, M. G. (2021). Deep
reinforcement learning at the edge of the statistical precipice. NeurIPS 34.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import polars as pl

from .._validation import (
    GenexpyInputError,
    check_names,
    check_positive_int,
    check_probability,
    check_seed,
    child_seed,
)
from ._input import Scores, scores_from, takes_columns
from ._input import score_matrices as score_matrices  # also estimates.score_matrices

#: the aggregates :func:`interval_estimates` computes, in rliable's names' order
AGGREGATES: tuple[str, ...] = ("median", "iqm", "mean", "optimality_gap")

#: rliable's default number of bootstrap replicates for intervals
REPS: int = 50_000
#: rliable's default number of replicates for performance profiles
PROFILE_REPS: int = 2_000
#: most replicates allowed (each is kept as a float while the percentiles are taken)
MAX_REPS: int = 10_000_000
#: most drawn indices held at once (one block of replicates: replicates x tasks x runs)
_BLOCK_CELLS: int = 1 << 21
#: above this many drawn indices (replicates x runs x tasks) a progress bar is shown
_PROGRESS_WORK: float = 4e8

_METHODS = ("percentile", "basic")



# ---- bootstrap machinery ------------------------------------------------------------------
def _check_common(reps: Any, confidence_level: Any, method: Any) -> tuple[int, float, str]:
    reps = check_positive_int("reps", reps, minimum=2)
    if reps > MAX_REPS:
        raise GenexpyInputError(f"reps={reps} is more than {MAX_REPS}; rliable's default is "
                                f"{REPS}.")
    c = check_probability("confidence_level", confidence_level)
    if method not in _METHODS:
        raise GenexpyInputError(
            f"method must be 'percentile' (rliable's default) or 'basic', got {method!r}."
        )
    return reps, c, method


def _key(name: str) -> int:
    return zlib.crc32(name.encode("utf-8"))


def _stream(seed: Any, *keys: int) -> np.random.Generator:
    """Return the Generator of one alternative (or pair): it depends on the seed and names only."""
    if isinstance(seed, np.random.Generator):
        return seed
    return child_seed(check_seed(seed, accepted="a non-negative integer or None"), *keys)


def _index_dtype(n: int):
    return np.int16 if n < 2**15 else np.int64


def _block_size(reps: int, cells: int) -> int:
    """Replicates per block: at most ``_BLOCK_CELLS`` drawn indices at once."""
    return max(1, min(reps, _BLOCK_CELLS // cells))


def _draws(rng: np.random.Generator, reps: int, n: int, T: int, task_bootstrap: bool,
           block: int | None = None) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Yield blocks ``(idx, tasks)`` of resampling indices.

    ``idx[b, t, j]`` is the run drawn for run slot j of task slot t in replicate b,
    ``tasks[b, t]`` the task of slot t.

    Drawn block by block (``block`` replicates, by default at most ``_BLOCK_CELLS``
    indices), runs first then tasks; the order and the block size are part of the result's
    bits.
    """
    B = _block_size(reps, T * n) if block is None else block
    ident = None
    for r0 in range(0, reps, B):
        b = min(B, reps - r0)
        idx = rng.integers(0, n, size=(b, T, n), dtype=_index_dtype(n))
        if task_bootstrap:
            tasks = rng.integers(0, T, size=(b, T), dtype=np.int64)
        else:
            if ident is None or ident.shape[0] != b:
                ident = np.ascontiguousarray(np.broadcast_to(np.arange(T, dtype=np.int64),
                                                             (b, T)))
            tasks = ident
        yield idx, tasks


def _on_threads(fn, rows: int, cells: int) -> None:
    """Run ``fn(i0, i1)`` on blocks of a block's replicates, on threads when worth it.

    Each call writes its own rows: the same bits at any thread count.
    """
    from .._numba import run_blocks

    run_blocks(fn, rows, work=6.0 * rows * cells, blocks_per_thread=1)


def _bootstrap_seconds(matrices: Any, reps: int, task_bootstrap: bool) -> float:
    """Estimate the replicates of :func:`interval_estimates` from the shapes (reference s).

    Per (replicate, alternative, cell): the NumPy route's cost where the task bootstrap
    takes it (``config.ROUTES.aggregates_numpy_max_work``), else the kernel's.
    """
    from .. import config

    c = config.COSTS
    total = 0.0
    for m in matrices:
        n, T = m.shape
        cells = float(reps) * n * T
        numpy_route = task_bootstrap and float(reps) * (T if n == 1 else 3 * n * T) <= (
            config.ROUTES.aggregates_numpy_max_work)
        total += cells * (c.bootstrap_numpy_cell_ns if numpy_route else c.bootstrap_cell_ns)
    return total * 1e-9


def _bar(total: int, work: float, progress: bool | None, desc: str):
    from .._progress import tqdm

    show = work >= _PROGRESS_WORK if progress is None else bool(progress)
    return tqdm(total=total, desc=desc, unit="replicate", disable=not show, leave=False)


def _interval(est: np.ndarray, reps_values: np.ndarray, c: float, method: str
              ) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) per column from the replicates: arch's percentile / basic intervals."""
    q = 100.0 * np.array([(1.0 - c) / 2.0, 1.0 - (1.0 - c) / 2.0])
    lo, hi = np.percentile(reps_values, q, axis=0)
    if method == "basic":
        lo, hi = 2.0 * est - hi, 2.0 * est - lo
    return lo, hi


def _interval_and_mc_error(est: np.ndarray, reps_values: np.ndarray, c: float, method: str
                           ) -> tuple[np.ndarray, ...]:
    """(low, high, low's Monte Carlo error, high's) per column, from one selection.

    The ends are :func:`_interval`'s (the same quantiles). The Monte Carlo standard
    error of each end is distribution-free: the p-quantile of R replicates has the spread
    of the order statistics at ranks ``R p +- sqrt(R p (1 - p))`` (one binomial standard
    deviation), so half their distance is the standard error (for ``basic`` intervals
    too: their ends are the reflections). All six quantiles are asked for at once: one
    selection per column.
    """
    R = reps_values.shape[0]
    ps = ((1.0 - c) / 2.0, 1.0 - (1.0 - c) / 2.0)
    qs = []
    for p in ps:
        d = math.sqrt(p * (1.0 - p) / R)
        qs += [max(0.0, p - d), float(np.true_divide(100.0 * p, 100)), min(1.0, p + d)]
    a0, lo, b0, a1, hi, b1 = np.quantile(reps_values, qs, axis=0)
    if method == "basic":
        lo, hi = 2.0 * est - hi, 2.0 * est - lo
    return lo, hi, 0.5 * (b0 - a0), 0.5 * (b1 - a1)


def _sorted_layout(m: np.ndarray):
    """Task-major flat scores, each score's position in sorted order, the sorted scores."""
    flat = np.ascontiguousarray(m.T).ravel()  # flat[t * n + i] = run i of task t
    order = np.argsort(flat, kind="stable")
    pos = np.empty(flat.size, dtype=np.int64)
    pos[order] = np.arange(flat.size, dtype=np.int64)
    return flat, pos, np.ascontiguousarray(flat[order])


# ---- point estimates (rliable's metrics, same formulas) -----------------------------------
def _iqm_point(m: np.ndarray) -> float:
    # scipy.stats.trim_mean(m, 0.25, axis=None), as scipy computes it (a partition, then the
    # mean of the middle): the same bits without importing scipy.stats (1.5 s of a report)
    a = np.ravel(m)
    if a.size == 0:
        return float("nan")  # as scipy
    lo = int(0.25 * a.size)
    hi = a.size - lo
    return float(np.mean(np.partition(a, (lo, hi - 1))[lo:hi]))


def _point(m: np.ndarray, gamma: float) -> dict[str, float]:
    task_means = np.mean(m, axis=0)
    return {
        "median": float(np.median(task_means)),
        "iqm": _iqm_point(m),
        "mean": float(np.mean(task_means)),
        "optimality_gap": float(gamma - np.mean(np.minimum(m, gamma))),
    }


def _check_gamma(gamma: Any) -> float:
    try:
        g = float(gamma)
    except (TypeError, ValueError):
        raise GenexpyInputError(f"gamma must be a number, got {gamma!r}.") from None
    if not math.isfinite(g) or isinstance(gamma, bool):
        raise GenexpyInputError(f"gamma must be a finite number, got {gamma!r}.")
    return g


def _replicates_key(rng: np.random.Generator) -> np.uint64:
    """Return the key of one stream of replicates: one integer drawn from its Generator."""
    return np.uint64(rng.integers(0, 2**63 - 1, dtype=np.int64))


def _intervals_key(seed: Any) -> np.uint64:
    """Return the key of the interval estimates' draws: it depends on the seed only.

    Every alternative of a shape (runs x tasks) is resampled with the same draws, as
    rliable's with a fixed ``random_state``; so an alternative's interval depends on the
    seed and its own scores, whatever other alternatives are in the call.
    """
    return _replicates_key(_stream(seed, _key("interval_estimates")))


#: replicates of the interval estimates per step of the progress bar (on the threads)
_REPS_PER_STEP = 4096
#: most bytes of the draws' counts of one batch of replicates (per thread)
_BATCH_BYTES = 1 << 20
#: the IQM's ends: the batch sums this many sqrt(N) about each expected cut together
_CUT_SDS = 1.5
_CUT_PAD = 16
#: the median's window: T / this many of the observed task means on either side of theirs
_MEDIAN_WINDOW = 20
#: most replicate values held at once (replicates x alternatives x 4): alternatives per call
_REPLICATE_CELLS = 1 << 24


def _aggregate_replicates(ms: list[np.ndarray], gamma: float, reps: int, key: np.uint64,
                          task_bootstrap: bool, bar) -> np.ndarray:
    """(reps, A, 4) replicates of median, IQM, mean and optimality gap of A alternatives.

    The A score matrices have one shape (runs x tasks) and share the draws: replicate b
    draws its runs (and tasks) from the stream ``(key, b)`` inside the kernel
    (``genexpy_nb._numba.aggregates.replicate_draws`` gives the same draws): the same
    replicates at any thread count, in any blocks.
    """
    from .. import config
    from .._numba import streams

    n, T = ms[0].shape
    if n > streams.MAX_DRAW_RANGE or (task_bootstrap and T > streams.MAX_DRAW_RANGE):
        raise GenexpyInputError(
            f"{n:,} runs x {T:,} tasks: the bootstrap draws at most {streams.MAX_DRAW_RANGE:,} "
            "runs per task (and tasks, with task_bootstrap=True); average the runs in "
            "groups, or resample a subset.")
    A = len(ms)
    N = n * T
    scores = np.empty((N, A))
    orders = np.empty((A, N), dtype=np.int32)
    srts = np.empty((A, N))
    for i, m in enumerate(ms):
        flat, pos, srt = _sorted_layout(m)
        scores[:, i] = flat
        orders[i, pos] = np.arange(N, dtype=np.int32)  # the cell of each sorted position
        srts[i] = srt
    clipped = np.minimum(scores, gamma)
    clip = bool(np.any(scores > gamma))
    lo = int(0.25 * N)
    hi = N - lo
    out = np.empty((reps, A, 4))
    numpy_work = float(reps) * A * (T if n == 1 else 3 * N)
    from .._numba import numpy_route

    # once numba is loaded (a report's earlier analyses load it) the kernel is 2-3x faster
    # even on small tables; a forced NumPy route (an infinite bound) stays on NumPy
    if task_bootstrap and numpy_route(numpy_work, config.ROUTES.aggregates_numpy_max_work):
        # the kernel's replicates, bit for bit, without loading numba (about 1 s)
        from . import _replicates_numpy

        for r0 in range(0, reps, _REPS_PER_STEP):
            r1 = min(reps, r0 + _REPS_PER_STEP)
            _replicates_numpy.bootstrap_aggregates(scores, clipped, clip, orders, srts, n, T,
                                                   key, lo, hi, r0, r1, out)
            bar.update((r1 - r0) * A)
        out[:, :, 3] = gamma - out[:, :, 3]
        return out
    from .._numba import aggregates as ka
    from .._numba import compile_note

    # the draws' counts: bytes where no cell can be drawn 256 times in a replicate (n <= 255
    # without the task bootstrap); the task bootstrap always counts in int32 (one compiled
    # signature of its kernel: the report's; the counts do not change the results)
    dtype = np.uint8 if not task_bootstrap and n <= 255 else np.int32
    batch = max(1, min(32, _BATCH_BYTES // (N * np.dtype(dtype).itemsize)))
    if not task_bootstrap:  # the batch's task means too: A x T x batch floats per thread
        batch = max(1, min(batch, _BATCH_BYTES * 4 // (A * T * 8)))
    counts_like = np.zeros((N, batch), dtype=dtype)  # the draws' counts of a batch
    if task_bootstrap:  # one replicate at a time (a replicate's slot may hold any task)
        def kernel(b0, b1):
            ka.bootstrap_aggregates(scores, clipped, clip, orders, srts, n, T, key, True, lo,
                                    hi, b0, b1, out, counts_like)
    else:  # the replicates of a batch side by side
        tsorted = np.sort(np.stack([m.mean(axis=0) for m in ms]), axis=1)
        halfwidth = max(1, T // _MEDIAN_WINDOW)
        window = reach = int(_CUT_SDS * math.sqrt(N)) + _CUT_PAD  # the cut's sd: ~sqrt(N) / 2
        above = np.array([np.searchsorted(v, gamma, side="right") for v in srts],
                         dtype=np.int64)

        def kernel(b0, b1):
            ka.batch_aggregates(scores, clip, above, gamma, orders, srts, tsorted, n, T, key,
                                lo, hi, b0, b1, out, counts_like, halfwidth, window, reach)
    with compile_note(ka.bootstrap_aggregates if task_bootstrap else ka.batch_aggregates,
                      "the bootstrap kernels"):
        for r0 in range(0, reps, _REPS_PER_STEP):
            r1 = min(reps, r0 + _REPS_PER_STEP)
            _on_threads(lambda i0, i1, r0=r0: kernel(r0 + i0, r0 + i1), r1 - r0, N * A)
            bar.update((r1 - r0) * A)
    out[:, :, 3] = gamma - out[:, :, 3]
    return out


def _one_interval(m: np.ndarray, rv: np.ndarray, aggs: list[str], gamma: float, c: float,
                  method: str, task_bootstrap: bool) -> tuple[np.ndarray, ...]:
    """(estimate, low, high, low MC error, high MC error) of one alternative's aggregates."""
    point = _point(m, gamma)
    est = np.array([point[a] for a in aggs])
    lo, hi, lo_err, hi_err = _interval_and_mc_error(est, rv, c, method)
    if m.shape[0] < 2 and not task_bootstrap:  # one run: nothing to resample
        lo, hi = np.full_like(lo, np.nan), np.full_like(hi, np.nan)
        lo_err, hi_err = np.full_like(lo, np.nan), np.full_like(hi, np.nan)
    return est, lo, hi, lo_err, hi_err


@takes_columns
def interval_estimates(
    data: Any,
    aggregates: str | Sequence[str] = AGGREGATES,
    *,
    gamma: float = 1.0,
    reps: int = REPS,
    confidence_level: float = 0.95,
    method: str = "percentile",
    task_bootstrap: bool = False,
    seed: int | np.random.Generator | None = 0,
    progress: bool | None = None,
    **columns: Any,
) -> pl.DataFrame:
    """Compute aggregates of every alternative with stratified-bootstrap confidence intervals.

    Parameters
    ----------
    data : long table or dict of arrays
        A long table (polars, pandas, pyarrow) with one row per run, or
        ``{name: array of shape (runs, tasks)}`` (rliable's ``score_dict``).
    aggregates : str or sequence of str
        Any of ``"median"``, ``"iqm"``, ``"mean"``, ``"optimality_gap"`` (default: all
        four, from the same resamples).
    {columns}
    gamma : float
        Target score of the optimality gap (rliable's default 1: normalised scores).
    reps : int
        Bootstrap replicates (rliable's default, 50,000).
    confidence_level : float
    method : {"percentile", "basic"}
        Percentile intervals (rliable's default) or basic (reflected) ones.
    task_bootstrap : bool
        Also resample the tasks (the interval then covers other tasks from the same
        population, not only other seeds).
    seed : int, numpy Generator or None
        Same seed, same intervals. Each alternative's resamples depend on the seed and its
        name only (with an int seed).
    progress : bool or None
        A progress bar; None shows one when the work is large.

    Returns
    -------
    polars.DataFrame
        One row per (alternative, aggregate): ``alternative, aggregate, estimate, low,
        high, confidence_level, reps, method, n_runs, n_tasks, low_mc_error,
        high_mc_error``; the last two are the Monte Carlo standard errors of ``low`` and
        ``high`` (how much another seed would move them: shrinks as ``1 / sqrt(reps)``).

    Notes
    -----
    The point estimates are rliable's: ``median`` and ``mean`` of the per-task mean scores,
    ``iqm`` = ``scipy.stats.trim_mean(scores, 0.25, axis=None)`` over all runs and tasks,
    ``optimality_gap = gamma - mean(min(scores, gamma))``. The interval's ends are the
    ``(1 - c)/2`` and ``(1 + c)/2`` percentiles (linear interpolation, as ``np.percentile``)
    of the replicates' aggregates (Agarwal et al. 2021, Section 4; rliable's
    ``get_interval_estimates``).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> scores = {"A": rng.normal(0.6, 0.1, (5, 8)), "B": rng.normal(0.7, 0.1, (5, 8))}
    >>> out = interval_estimates(scores, "iqm", reps=2000)
    >>> out.select("alternative", "aggregate").rows()
    [('A', 'iqm'), ('B', 'iqm')]
    >>> bool((out["low"] <= out["estimate"]).all() and (out["estimate"] <= out["high"]).all())
    True
    """
    aggs = check_names("aggregates", aggregates, AGGREGATES)
    reps, c, method = _check_common(reps, confidence_level, method)
    g = _check_gamma(gamma)
    sc = scores_from(data, columns, "interval_estimates")
    work = float(reps) * sum(m.size for m in sc.matrices.values())
    cols = [AGGREGATES.index(a) for a in aggs]
    single: list[str] = []
    key = _intervals_key(seed)
    shapes: dict[tuple[int, int], list[str]] = {}
    for name, m in sc.matrices.items():
        shapes.setdefault(m.shape, []).append(name)
    per_call = max(1, min(64, _REPLICATE_CELLS // (4 * reps)))  # alternatives per kernel
    found: dict[str, tuple[np.ndarray, ...]] = {}
    from .._progress import check_cost, duration_text

    est = check_cost(f"the bootstrap of {len(sc.matrices):,} alternative(s) x {reps:,} "
                     "replicates", _bootstrap_seconds(sc.matrices.values(), reps,
                                                       task_bootstrap),
                     lift="Fewer replicates (reps) cost less.")
    with _bar(reps * len(sc.matrices), work, progress,
              f"bootstrap (about {duration_text(est)})") as bar:
        for names in shapes.values():  # the same draws for every alternative of a shape
            for i0 in range(0, len(names), per_call):
                part = names[i0:i0 + per_call]
                rvs = _aggregate_replicates([sc.matrices[nm] for nm in part], g, reps, key,
                                            task_bootstrap, bar)
                for i, nm in enumerate(part):
                    found[nm] = _one_interval(sc.matrices[nm], rvs[:, i, cols], aggs, g, c,
                                              method, task_bootstrap)
    rows = []
    for name, m in sc.matrices.items():
        est, lo, hi, lo_err, hi_err = found[name]
        if m.shape[0] < 2 and not task_bootstrap:
            single.append(name)
        rows += [(name, a, float(est[i]), float(lo[i]), float(hi[i]), c, reps, method,
                  int(m.shape[0]), int(m.shape[1]), float(lo_err[i]), float(hi_err[i]))
                 for i, a in enumerate(aggs)]
    _warn_single_run(single)
    return pl.DataFrame(rows, orient="row", schema={
        "alternative": pl.String, "aggregate": pl.String, "estimate": pl.Float64,
        "low": pl.Float64, "high": pl.Float64, "confidence_level": pl.Float64,
        "reps": pl.Int64, "method": pl.String, "n_runs": pl.Int64, "n_tasks": pl.Int64,
        "low_mc_error": pl.Float64, "high_mc_error": pl.Float64})


def _warn_single_run(names: list[str]) -> None:
    """Say that intervals of alternatives with one run per task are undefined (NaN)."""
    if names:
        import warnings

        shown = ", ".join(repr(n) for n in names[:5]) + (" ..." if len(names) > 5 else "")
        warnings.warn(
            f"{len(names)} alternative(s) have one run per task ({shown}): resampling the "
            "runs within each task gives the same scores every time, so their intervals "
            "are undefined (low and high are NaN), not of zero width. Give several runs "
            "(seeds) per task, or pass task_bootstrap=True to resample the tasks.",
            UserWarning, stacklevel=3)


_ONE_DOC = """{what} of every alternative, with a stratified-bootstrap confidence interval.

    ``{name}(data, ...)`` is :func:`interval_estimates` with ``aggregates="{name}"``; it
    takes the same parameters and returns the same frame (one row per alternative).{extra}

    Parameters
    ----------
    data : long table or dict of arrays
        As in :func:`interval_estimates`.{param}
    **kwargs
        Any other parameter of :func:`interval_estimates` (``alternatives``, ``target``,
        ``task``, ``run``, ``reps``, ``confidence_level``, ``seed``, ...).

    Returns
    -------
    polars.DataFrame
        One row per alternative: ``alternative, aggregate, estimate, low, high,
        confidence_level, reps, method, n_runs, n_tasks``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> out = {name}({{"A": rng.normal(0.6, 0.1, (5, 8))}}, reps=500)
    >>> out.columns[:5]
    ['alternative', 'aggregate', 'estimate', 'low', 'high']
    """


def iqm(data: Any, **kwargs: Any) -> pl.DataFrame:  # noqa: D103 (docstring set below)
    return interval_estimates(data, "iqm", **kwargs)


def mean(data: Any, **kwargs: Any) -> pl.DataFrame:  # noqa: D103
    return interval_estimates(data, "mean", **kwargs)


def median(data: Any, **kwargs: Any) -> pl.DataFrame:  # noqa: D103
    return interval_estimates(data, "median", **kwargs)


def optimality_gap(data: Any, gamma: float = 1.0, **kwargs: Any) -> pl.DataFrame:  # noqa: D103
    return interval_estimates(data, "optimality_gap", gamma=gamma, **kwargs)


iqm.__doc__ = _ONE_DOC.format(
    what="The interquartile mean (the mean of the middle 50 % of all runs of all tasks)",
    name="iqm", extra="", param="")
mean.__doc__ = _ONE_DOC.format(what="The mean of the per-task mean scores", name="mean",
                               extra="", param="")
median.__doc__ = _ONE_DOC.format(what="The median of the per-task mean scores",
                                 name="median", extra="", param="")
optimality_gap.__doc__ = _ONE_DOC.format(
    what="The optimality gap ``gamma - mean(min(score, gamma))``", name="optimality_gap",
    extra="\n\n    ``gamma`` (default 1) is the score counted as optimal; lower gaps are "
          "better.",
    param="\n    gamma : float\n        The score counted as optimal (default 1).")


# ---- probability of improvement --------------------------------------------------------------
def _pair_list(names: list[str], pairs: Any, control: Any) -> list[tuple[str, str]]:
    if control is not None:
        if pairs is not None:
            raise GenexpyInputError("give pairs= or control=, not both.")
        if str(control) not in names:
            raise GenexpyInputError(f"control={control!r} is not an alternative; the "
                                    f"alternatives are {names}.")
        return [(a, str(control)) for a in names if a != str(control)]
    if pairs is None:
        return [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
    out = []
    try:
        for p in pairs:
            a, b = (str(v) for v in p)
            out.append((a, b))
    except (TypeError, ValueError):
        raise GenexpyInputError(
            f"pairs must be a list of (X, Y) pairs of alternatives, got {pairs!r}.") from None
    for a, b in out:
        for v in (a, b):
            if v not in names:
                raise GenexpyInputError(f"pairs: {v!r} is not an alternative; the "
                                        f"alternatives are {names}.")
        if a == b:
            raise GenexpyInputError(f"pairs: ({a!r}, {b!r}) compares an alternative with "
                                    "itself.")
    if not out:
        raise GenexpyInputError("pairs is empty.")
    return out


def _poi_tables(x: np.ndarray, y: np.ndarray):
    """Return, per task, the ranks needed for the probability of improvement.

    The positions of Y's runs in Y's sorted scores; for each run of X the number of Y's
    scores below it and at or below it.
    """
    T = x.shape[1]
    ny = y.shape[0]
    pos_y = np.empty((T, ny), dtype=np.int64)
    below = np.empty((T, x.shape[0]), dtype=np.int64)
    upto = np.empty((T, x.shape[0]), dtype=np.int64)
    for t in range(T):
        order = np.argsort(y[:, t], kind="stable")
        pos_y[t, order] = np.arange(ny)
        ys = y[order, t]
        below[t] = np.searchsorted(ys, x[:, t], side="left")
        upto[t] = np.searchsorted(ys, x[:, t], side="right")
    return pos_y, below, upto


def _poi_point(x: np.ndarray, y: np.ndarray) -> float:
    """Rliable's ``probability_of_improvement``: mean over tasks of P(X > Y) + P(X = Y)/2."""
    gt = (x[:, None, :] > y[None, :, :]).sum(axis=(0, 1))
    eq = (x[:, None, :] == y[None, :, :]).sum(axis=(0, 1))
    return float(np.mean((gt + 0.5 * eq) / (x.shape[0] * y.shape[0])))


@takes_columns
def probability_of_improvement(
    data: Any,
    pairs: Sequence[tuple[str, str]] | None = None,
    *,
    control: str | None = None,
    reps: int = REPS,
    confidence_level: float = 0.95,
    method: str = "percentile",
    seed: int | np.random.Generator | None = 0,
    progress: bool | None = None,
    **columns: Any,
) -> pl.DataFrame:
    """Probability that a run of X beats a run of Y, averaged over tasks, with intervals.

    Parameters
    ----------
    data : long table or dict of arrays
        As :func:`interval_estimates`. Higher scores are better (negate errors first).
    pairs : sequence of (X, Y), optional
        The pairs to compare; default every pair of alternatives (in input order).
    control : str, optional
        Compare every other alternative (X) with this one (Y) instead.
    {columns}
    reps, confidence_level, method, seed, progress
        As :func:`interval_estimates`.

    Returns
    -------
    polars.DataFrame
        One row per pair: ``alternative_1`` (X), ``alternative_2`` (Y), ``estimate`` =
        P(X > Y), ``low``, ``high``, ``confidence_level``, ``reps``, ``method``.

    Notes
    -----
    On task t, ``P_t(X > Y) = U_t / (n_x n_y)`` with ``U_t`` the Mann–Whitney count of
    pairs of runs in which X's score is higher (ties count half); the estimate is the mean
    over tasks (Agarwal et al. 2021, Section 4, "probability of improvement"). The runs of X
    and of Y are resampled independently within each task (rliable's
    ``StratifiedIndependentBootstrap``). 0.5 means no difference; ``1 - P(X > Y) =
    P(Y > X)``.
    """
    reps, c, method = _check_common(reps, confidence_level, method)
    sc = scores_from(data, columns, "probability_of_improvement")
    names = list(sc.matrices)
    if len(names) < 2:
        raise GenexpyInputError("probability_of_improvement needs at least 2 alternatives.")
    plist = _pair_list(names, pairs, control)
    from .._numba import aggregates as ka
    from .._numba import compile_note

    T = len(sc.tasks)
    work = float(reps) * sum(sc.matrices[a].size + sc.matrices[b].size for a, b in plist)
    est_l, lo_l, hi_l = [], [], []
    with _bar(reps * len(plist), work, progress, "bootstrap") as bar, \
            compile_note(ka.improvement_replicates, "the bootstrap kernels"):
        for a, b in plist:
            x, y = sc.matrices[a], sc.matrices[b]
            nx, ny = x.shape[0], y.shape[0]
            est = _poi_point(x, y)
            pos_y, below, upto = _poi_tables(x, y)
            rx = _stream(seed, _key(a), _key(b), 0)
            ry = _stream(seed, _key(a), _key(b), 1)
            out = np.empty(reps)
            block = _block_size(reps, T * max(nx, ny))  # the same blocks for both streams
            r0 = 0
            for (ix, _), (iy, _) in zip(_draws(rx, reps, nx, T, False, block),
                                        _draws(ry, reps, ny, T, False, block), strict=True):
                k = ix.shape[0]
                o = out[r0:r0 + k]
                _on_threads(lambda i0, i1, ix=ix, iy=iy, o=o, ny=ny, pos_y=pos_y, below=below,
                            upto=upto: ka.improvement_replicates(
                    ny, pos_y, below, upto, ix[i0:i1], iy[i0:i1], o[i0:i1]),
                    k, T * (nx + ny))
                r0 += k
                bar.update(k)
            lo, hi = _interval(np.array([est]), out[:, None], c, method)
            est_l.append(est)
            lo_l.append(float(lo[0]))
            hi_l.append(float(hi[0]))
    k = len(plist)
    return pl.DataFrame({
        "alternative_1": [a for a, _ in plist], "alternative_2": [b for _, b in plist],
        "estimate": est_l, "low": lo_l, "high": hi_l, "confidence_level": [c] * k,
        "reps": [reps] * k, "method": [method] * k,
    }, schema={"alternative_1": pl.String, "alternative_2": pl.String,
               "estimate": pl.Float64, "low": pl.Float64, "high": pl.Float64,
               "confidence_level": pl.Float64, "reps": pl.Int64, "method": pl.String})


# ---- performance profiles -----------------------------------------------------------------------
#: the most bootstrap values one performance profile holds per alternative (reps x thresholds)
MAX_PROFILE_CELLS = 50_000_000


def _thresholds(thresholds: Any, sc: Scores) -> np.ndarray:
    allv = np.concatenate([m.ravel() for m in sc.matrices.values()])
    if thresholds is None:
        thresholds = 101
    if isinstance(thresholds, (int, np.integer)) and not isinstance(thresholds, bool):
        k = check_positive_int("thresholds", thresholds, minimum=2)
        if k > 100_000:
            raise GenexpyInputError(f"thresholds={k}: at most 100,000 thresholds.")
        lo, hi = float(allv.min()), float(allv.max())
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        return np.linspace(lo, hi, k)
    try:
        thr = np.array(thresholds, dtype=np.float64).ravel()
    except (TypeError, ValueError):
        raise GenexpyInputError("thresholds must be a number of thresholds or a list of "
                                "numbers.") from None
    if thr.size == 0 or not np.isfinite(thr).all():
        raise GenexpyInputError("thresholds must be finite numbers (at least one).")
    if thr.size > 100_000:
        raise GenexpyInputError(f"{thr.size} thresholds: at most 100,000.")
    return np.unique(thr)


@takes_columns
def performance_profile(
    data: Any,
    thresholds: int | Sequence[float] | None = None,
    *,
    per: str = "run",
    reps: int = PROFILE_REPS,
    confidence_level: float = 0.95,
    method: str = "percentile",
    task_bootstrap: bool = False,
    seed: int | np.random.Generator | None = 0,
    progress: bool | None = None,
    **columns: Any,
) -> pl.DataFrame:
    """Compute performance profiles: the fraction of runs above each threshold, with bands.

    Parameters
    ----------
    data : long table or dict of arrays
        As :func:`interval_estimates`.
    thresholds : int or sequence of float, optional
        The score thresholds ``tau`` (sorted, duplicates dropped); an int k gives k evenly
        spaced ones from the lowest to the highest score of all alternatives (default 101).
    per : {"run", "task"}
        ``"run"``: the fraction of all runs of all tasks above ``tau`` (rliable's score
        distribution, its default); ``"task"``: the fraction of tasks whose mean score is
        above ``tau`` (rliable's average score distribution).
    {columns}
    reps : int
        Bootstrap replicates (rliable's default for profiles, 2,000).
    confidence_level, method, task_bootstrap, seed, progress
        As :func:`interval_estimates`.

    Returns
    -------
    polars.DataFrame
        One row per (alternative, threshold): ``alternative, threshold, fraction, low,
        high, per, confidence_level, reps``.

    Notes
    -----
    ``fraction(tau) = mean(score > tau)`` (strictly above, as rliable); a profile that lies
    above another one everywhere is stochastically dominant (Agarwal et al. 2021,
    Section 4, "performance profiles").
    """
    if per not in ("run", "task"):
        raise GenexpyInputError(f"per must be 'run' or 'task', got {per!r}.")
    reps, c, method = _check_common(reps, confidence_level, method)
    sc = scores_from(data, columns, "performance_profile")
    thr = _thresholds(thresholds, sc)
    from .._numba import aggregates as ka
    from .._numba import compile_note

    per_task = per == "task"
    if reps * thr.size > MAX_PROFILE_CELLS:
        raise GenexpyInputError(
            f"reps={reps:,} replicates x {thr.size:,} thresholds = {reps * thr.size:,} values "
            f"per alternative, more than {MAX_PROFILE_CELLS:,} (about "
            f"{MAX_PROFILE_CELLS * 8 / 1e9:.1f} GB); lower reps (rliable's default for "
            f"profiles is 2,000) or the thresholds (e.g. thresholds=101), so that their "
            "product stays within the limit.")
    work = float(reps) * sum(m.size for m in sc.matrices.values())
    frames, single = [], []
    with _bar(reps * len(sc.matrices), work, progress, "bootstrap") as bar, \
            compile_note(ka.profile_replicates, "the bootstrap kernels"):
        for name, m in sc.matrices.items():
            n, T = m.shape
            flat, pos, srt = _sorted_layout(m)
            thr_pos = np.searchsorted(srt, thr, side="right").astype(np.int64)
            if per_task:
                est = np.mean(np.mean(m, axis=0)[:, None] > thr[None, :], axis=0)
            else:
                est = np.mean(m.ravel()[:, None] > thr[None, :], axis=0)
            out = np.empty((reps, thr.size))
            r0 = 0
            for idx, tasks in _draws(_stream(seed, _key(name), 2), reps, n, T,
                                     task_bootstrap):
                b = idx.shape[0]
                o = out[r0:r0 + b]
                _on_threads(lambda i0, i1, idx=idx, tasks=tasks, o=o, flat=flat, pos=pos,
                            thr_pos=thr_pos: ka.profile_replicates(
                    flat, pos, idx[i0:i1], tasks[i0:i1], thr_pos, thr, per_task, o[i0:i1]),
                    b, T * n + thr.size)
                r0 += b
                bar.update(b)
            lo, hi = _interval(est, out, c, method)
            if n < 2 and not task_bootstrap:
                lo, hi = np.full_like(lo, np.nan), np.full_like(hi, np.nan)
                single.append(name)
            frames.append(pl.DataFrame({
                "alternative": [name] * thr.size, "threshold": thr, "fraction": est,
                "low": lo, "high": hi,
            }))
    _warn_single_run(single)
    return pl.concat(frames).with_columns(
        pl.lit(per).alias("per"), pl.lit(c).alias("confidence_level"),
        pl.lit(reps, dtype=pl.Int64).alias("reps"))
