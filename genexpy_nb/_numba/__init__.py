"""Numba kernels (private). Helpers to run them on row blocks and to say when they compile."""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Callable, Iterator

#: below this many basic operations a call runs on the calling thread (a thread pool costs
#: tens of microseconds; the old ``parallel=True`` regions cost milliseconds on small work)
PARALLEL_MIN_WORK = 2_000_000

_POOL = None
_POOL_LOCK = threading.Lock()
_NOTED = False


def n_threads() -> int:
    """Threads to use: numba's current setting (``n_jobs`` of the public functions)."""
    import numba

    return max(1, int(numba.get_num_threads()))


def run_blocks(fn: Callable[[int, int], None], nrows: int, work: float,
               weights: Callable[[int], float] | None = None) -> None:
    """Call ``fn(r0, r1)`` on row blocks covering ``range(nrows)``, on threads if worth it.

    ``fn`` must release the GIL (numba ``nogil`` kernels, NumPy) and write only its own
    rows, so the result is the same at any thread count. ``work`` is the total number of
    basic operations, to decide whether threads pay off.
    """
    nt = n_threads() if work >= PARALLEL_MIN_WORK else 1
    if nt <= 1 or nrows < 2:
        fn(0, nrows)
        return
    global _POOL
    with _POOL_LOCK:
        if _POOL is None or _POOL._max_workers < nt:  # noqa: SLF001
            from concurrent.futures import ThreadPoolExecutor

            _POOL = ThreadPoolExecutor(max_workers=nt, thread_name_prefix="genexpy_nb")
        pool = _POOL
    nblocks = min(nrows, 4 * nt)
    bounds = [round(i * nrows / nblocks) for i in range(nblocks + 1)]
    futures = [pool.submit(fn, bounds[i], bounds[i + 1]) for i in range(nblocks)
               if bounds[i + 1] > bounds[i]]
    for f in futures:
        f.result()


@contextlib.contextmanager
def compile_note(dispatcher, what: str = "numerical kernels") -> Iterator[None]:
    """Print a one-line note if the first call of a numba function takes over a second.

    Numba compiles a function on its first call in a fresh environment (later calls, and
    later sessions through the on-disk cache, are fast); a silent pause of several
    seconds looks like a hang, so say what is happening.
    """
    global _NOTED
    if _NOTED or getattr(dispatcher, "signatures", True):
        yield
        return
    timer = threading.Timer(1.0, _say_compiling, args=(what,))
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


def _say_compiling(what: str) -> None:
    global _NOTED
    if _NOTED:
        return
    _NOTED = True
    print(f"genexpy_nb: preparing {what} (compiled on first use, then loaded from the "
          "disk cache)...",
          file=sys.stderr, flush=True)
