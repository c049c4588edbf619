"""Numba kernels (private). Helpers to run them on row blocks and to say when they compile."""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Callable, Iterator

from .. import config

_POOL = None
_POOL_LOCK = threading.Lock()
_DECORATE_LOCK = threading.RLock()
_BLAS_LOCK = threading.Lock()
_NOTED = False
_REQUESTED: int | None = None
_BLAS = None
_BLAS_DEPTH = 0


def njit(**options) -> Callable:
    """Wrap numba's ``njit``, with the disk cache in :func:`genexpy_nb.config.numba_cache_dir`.

    numba picks a function's cache folder when it is decorated (from ``numba.config``'s
    ``CACHE_DIR``, else beside the source file, inside the installed package). This sets
    that folder for the package's kernels only, for the time of the decoration: numba
    functions of your own keep numba's defaults. A ``NUMBA_CACHE_DIR`` you set is used as it
    is (see :func:`genexpy_nb.config.numba_cache_dir` for why not beside the source).
    """
    import numba
    from numba.core import config as numba_config

    def decorate(fn: Callable) -> Callable:
        # one decoration at a time: two threads may import kernel modules at once (the
        # report's streams), and the folder is numba's global setting while it lasts
        with _DECORATE_LOCK:
            if not options.get("cache") or numba_config.CACHE_DIR or numba_config.DISABLE_JIT:
                return numba.njit(**options)(fn)
            numba_config.CACHE_DIR = config.numba_cache_dir()
            try:
                return numba.njit(**options)(fn)
            finally:
                numba_config.CACHE_DIR = ""

    return decorate


def _flagged(base: dict, fn: Callable | None, options: dict) -> Callable:
    """Decorate ``fn`` (or return the decorator) with ``base`` flags updated by ``options``."""
    decorate = njit(**{**base, **options})
    return decorate if fn is None else decorate(fn)


def jit_exact(fn: Callable | None = None, **options) -> Callable | Callable[[Callable], Callable]:
    """Compile a kernel with strict IEEE arithmetic: cached, ``nogil``, no fastmath.

    The one place (with :func:`jit_fast`) that says a kernel's numba flags, after
    Datashader's ``ngjit``. For kernels compared bit for bit or to 1e-12 with a NumPy route
    or a naive twin, and those whose ties are exact comparisons. Use it bare
    (``@jit_exact``) or with numba options that add to or override these
    (``@jit_exact(parallel=True)``).

    Parameters
    ----------
    fn : callable, optional
        The function to compile (bare decorator use).
    **options
        Further numba ``njit`` options.

    Returns
    -------
    callable
        The compiled dispatcher, or the decorator when ``fn`` is not given.
    """
    return _flagged({"cache": config.numba_cache(), "fastmath": False, "nogil": True}, fn,
                    options)


def jit_fast(fn: Callable | None = None, **options) -> Callable | Callable[[Callable], Callable]:
    """Compile a kernel with :data:`genexpy_nb.config.FASTMATH`: cached, ``nogil``.

    The flag set leaves out ``nnan``/``ninf`` (kernels may see NaN or inf in user data), as
    STUMPY's ``STUMPY_FASTMATH_FLAGS``. Use it bare (``@jit_fast``) or with numba options
    that add to or override these (``@jit_fast(nogil=False, parallel=True)``).

    Parameters
    ----------
    fn, **options
        As in :func:`jit_exact`.

    Returns
    -------
    callable
        As :func:`jit_exact`'s.
    """
    return _flagged({"cache": config.numba_cache(), "fastmath": config.FASTMATH, "nogil": True},
                    fn, options)


def jit_in_order(fn: Callable | None = None,
                 **options) -> Callable | Callable[[Callable], Callable]:
    """Compile as :func:`jit_fast` less ``reassoc``: every sum in the order it is written.

    For kernels whose sums must give the bits of another route's loop over the same terms.
    """
    return jit_fast(fn, **{"fastmath": set(config.FASTMATH) - {"reassoc"}, **options})


def numpy_route(work: float, bound: float, loaded: bool = False) -> bool:
    """Whether a computation of ``work`` takes its NumPy route under a ``config.ROUTES`` bound.

    NumPy up to the bound spares loading numba (about 1 s in a fresh process). Once numba is
    loaded, or will be by what follows (``loaded``), the kernel is faster and gives the same
    bits, so it is taken, unless the bound is infinite (the NumPy route forced).
    """
    import math

    return work <= bound and not ((loaded or "numba" in sys.modules) and math.isfinite(bound))


def _max_threads() -> int:
    env = os.environ.get("NUMBA_NUM_THREADS")
    return max(1, int(env) if env and env.isdigit() else (os.cpu_count() or 1))


def n_threads() -> int:
    """Threads to use: ``n_jobs`` of the running analysis, else numba's current setting."""
    if _REQUESTED is not None:
        return _REQUESTED
    if "numba" in sys.modules:  # loaded, or being loaded by another thread: wait for it
        import numba

        return max(1, int(numba.get_num_threads()))
    return _max_threads()


@contextlib.contextmanager
def threads(n_jobs: int | None) -> Iterator[int]:
    """Thread count for :func:`run_blocks` from ``n_jobs`` (None/-1 = all cores).

    It does not import numba, which a typical (small) analysis never needs.
    """
    global _REQUESTED
    from .._validation import check_positive_int

    cap = _max_threads()
    n = cap if n_jobs is None or n_jobs == -1 else min(check_positive_int("n_jobs", n_jobs), cap)
    old = _REQUESTED
    _REQUESTED = n
    try:
        yield n
    finally:
        _REQUESTED = old


@contextlib.contextmanager
def one_blas_thread() -> Iterator[None]:
    """One BLAS thread inside (our own threads split the work instead).

    Many small matrix products on a multi-threaded BLAS cost up to several hundred times
    more on a busy machine (thread wake-ups), and make timings bimodal. The library scan of
    threadpoolctl is done once per process.
    """
    global _BLAS, _BLAS_DEPTH
    with _BLAS_LOCK:  # threads of one report nest these: count them under a lock
        outer = _BLAS_DEPTH == 0
        _BLAS_DEPTH += 1
        if outer and _BLAS is None:
            from threadpoolctl import ThreadpoolController

            _BLAS = ThreadpoolController()
    try:
        if outer:
            with _BLAS.limit(limits=1, user_api="blas"):
                yield
        else:
            yield
    finally:
        with _BLAS_LOCK:
            _BLAS_DEPTH -= 1


def run_blocks(fn: Callable[[int, int], None], nrows: int, work: float,
               weights: Callable[[int], float] | None = None,
               blocks_per_thread: int = 4, block_rows: int | None = None) -> None:
    """Call ``fn(r0, r1)`` on row blocks covering ``range(nrows)``, on threads if worth it.

    ``fn`` must release the GIL (numba ``nogil`` kernels, NumPy) and write only its own
    rows, so the result is the same at any thread count. ``work`` is the total number of
    basic operations, to decide whether threads pay off. ``blocks_per_thread``: 4 evens
    out uneven rows; 1 keeps blocks large where each is one matrix product (BLAS runs at
    24 GFLOP/s on 25 rows, 34 on 100 here). ``block_rows``: blocks of this many rows (the
    last one shorter) whatever the number of threads, for an ``fn`` whose rows depend on
    the block's shape: a BLAS product may sum a row in another order when it has more or
    fewer rows, so blocks cut by the thread count would make the bits depend on it.
    """
    nt = n_threads() if work >= config.ROUTES.parallel_min_work else 1
    if block_rows is not None:
        _run_fixed_blocks(fn, nrows, max(1, int(block_rows)), nt)
        return
    if nt <= 1 or nrows < 2:
        fn(0, nrows)
        return
    pool = _pool(nt)
    nblocks = min(nrows, blocks_per_thread * nt)
    bounds = [round(i * nrows / nblocks) for i in range(nblocks + 1)]
    futures = [pool.submit(fn, bounds[i], bounds[i + 1]) for i in range(nblocks)
               if bounds[i + 1] > bounds[i]]
    for f in futures:
        f.result()


def _pool(nt: int):
    """Return the shared thread pool, with at least ``nt`` workers."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is None or _POOL._max_workers < nt:
            from concurrent.futures import ThreadPoolExecutor

            _POOL = ThreadPoolExecutor(max_workers=nt, thread_name_prefix="genexpy_nb")
        return _POOL


def _run_fixed_blocks(fn: Callable[[int, int], None], nrows: int, rows: int, nt: int) -> None:
    """Call ``fn`` on the blocks ``[0, rows), [rows, 2 rows), ...``: on ``nt`` threads."""
    bounds = list(range(0, nrows, rows)) + [nrows]
    if nt <= 1 or len(bounds) <= 2:
        for r0, r1 in zip(bounds[:-1], bounds[1:]):
            fn(r0, r1)
        return
    pool = _pool(nt)
    futures = [pool.submit(fn, r0, r1) for r0, r1 in zip(bounds[:-1], bounds[1:])]
    for f in futures:
        f.result()


@contextlib.contextmanager
def compile_note(dispatcher, what: str = "numerical kernels") -> Iterator[None]:
    """Print a one-line note if the first call of a numba function compiles it for over a second.

    Numba compiles a function on its first call in a fresh environment (later calls, and
    later sessions through the on-disk cache, are fast); a silent pause of several
    seconds looks like a hang, so say what is happening. A first call that loads the
    function from the cache says nothing, however long it takes (numba's start-up alone is
    about a second on a busy machine).
    """
    if _NOTED or getattr(dispatcher, "signatures", True):
        yield
        return
    done = threading.Event()
    threading.Thread(target=_watch, args=(dispatcher, what, done), daemon=True,
                     name="genexpy_nb-compile-note").start()
    try:
        yield
    finally:
        done.set()


#: seconds before the note, and between two looks at whether numba compiles
_NOTE_AFTER, _NOTE_POLL = 1.0, 0.25


def _watch(dispatcher, what: str, done: threading.Event) -> None:
    """Say :func:`_say_compiling` once the call has run a second and numba compiles."""
    if done.wait(_NOTE_AFTER):
        return
    while not sum(getattr(getattr(dispatcher, "stats", None), "cache_misses", {}).values()):
        if done.wait(_NOTE_POLL):  # still loading from the cache (or numba starting)
            return
    _say_compiling(what)


@contextlib.contextmanager
def no_compile_note(quiet: bool = True) -> Iterator[None]:
    """Keep :func:`compile_note` silent inside when ``quiet`` (``--quiet``: nothing but errors).

    On a busy machine even a kernel loaded from the cache can pause over a second.
    """
    global _NOTED
    old = _NOTED
    _NOTED = old or quiet
    try:
        yield
    finally:
        _NOTED = old


def _say_compiling(what: str) -> None:
    global _NOTED
    if _NOTED:
        return
    _NOTED = True
    print(f"genexpy_nb: preparing {what} (compiled on first use, then loaded from the "
          "disk cache; `genexpy-nb precompile` does this once, after installing)...",
          file=sys.stderr, flush=True)
