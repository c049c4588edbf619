"""Dask plumbing for genexpy_nb's cluster runs (optional extra ``[cluster]``).

Generic: a client from what the user gave (:func:`as_client`), chunks of work
(:func:`chunks`), and maps of a function over items on the workers, in completion order
(:func:`map_unordered`) or in item order (:func:`map_ordered`). Nothing here knows what the
tasks compute: each domain keeps its own adapter (``genexpy_nb.generalizability.cluster``,
``genexpy_nb.variability.alpha_hat``). Dask is imported only when a client is given.
"""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import Callable, Iterator, Sequence
from types import ModuleType
from typing import Any

from ._validation import GenexpyInputError, MissingOptionalDependency

__all__ = [
    "ClusterTaskError",
    "as_client",
    "chunks",
    "format_items",
    "local_client",
    "map_ordered",
    "map_unordered",
    "require_distributed",
    "total_threads",
]


#: seconds a map waits while the cluster has no worker at all (every worker died and none was
#: restarted, or none joined) before it gives up on the unfinished tasks with a
#: :class:`ClusterTaskError`; a cluster that scales up from zero has that long to start one
NO_WORKER_TIMEOUT: float = 180.0


class ClusterTaskError(RuntimeError):
    """Some tasks failed on the cluster (a worker died too often, or the task raised).

    What finished before and after the failure is kept (for a pool: in its ``.partial/``
    folder); run the same call again to redo only the missing units.
    """


def require_distributed(feature: str = "running on a Dask cluster") -> ModuleType:
    """Import and return :mod:`distributed`, or raise with the install instruction.

    Parameters
    ----------
    feature : str, default "running on a Dask cluster"
        What needs Dask, named in the error message ("install genexpy_nb[cluster] for
        <feature>").

    Returns
    -------
    module
        The imported :mod:`distributed` package.

    Raises
    ------
    MissingOptionalDependency
        When ``dask.distributed`` is not installed.
    """
    try:
        import distributed
    except ImportError as exc:  # also covers sys.modules["distributed"] = None
        raise MissingOptionalDependency(
            f"install genexpy_nb[cluster] for {feature}: pip install 'genexpy_nb[cluster]' "
            "(dask.distributed)."
        ) from exc
    return distributed


def local_client(
    n_workers: int | None = None, *, threads_per_worker: int = 1, **cluster_kwargs: Any
) -> Any:
    """Start a :class:`~distributed.LocalCluster` of processes and return a client on it.

    Parameters
    ----------
    n_workers : int, optional
        Worker processes (default: one per core, ``os.cpu_count()``).
    threads_per_worker : int, default 1
        Threads per worker (default 1: each task then uses one core; the pool's
        ``n_threads`` torch threads and one numba thread per analysis task).
    **cluster_kwargs
        Passed to ``LocalCluster`` (e.g. ``memory_limit="4GB"``, ``dashboard_address=":8787"``;
        default dashboard on a free port, ``client.dashboard_link``).

    Returns
    -------
    distributed.Client
        A client connected to the new cluster (``client.cluster``).

    Notes
    -----
    GPUs: this training code runs on the CPU. For models that use a GPU, start one worker per
    GPU, each seeing one device: ``dask_cuda.LocalCUDACluster()`` does exactly that
    (``CUDA_VISIBLE_DEVICES`` rotated per worker); on a cluster, start one ``dask worker
    --nthreads 1`` per GPU with ``CUDA_VISIBLE_DEVICES=i``.

    Close it with ``client.close(); client.cluster.close()`` (or use :func:`as_client`).
    """
    distributed = require_distributed()
    n = (os.cpu_count() or 1) if n_workers is None else n_workers
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise GenexpyInputError(f"n_workers must be a positive integer, got {n_workers!r}.")
    kw = {"processes": True, "dashboard_address": ":0", **cluster_kwargs}
    cluster = distributed.LocalCluster(n_workers=n, threads_per_worker=threads_per_worker, **kw)
    return distributed.Client(cluster)


@contextlib.contextmanager
def as_client(client: Any, threads_per_task: int = 1) -> Iterator[Any]:
    """Turn the ``client`` argument of genexpy_nb's functions into a :class:`distributed.Client`.

    A context manager: what it opened is closed again on exit.

    Parameters
    ----------
    client : distributed.Client, str or cluster object
        A Client (used as it is), ``"local"`` (an embedded LocalCluster of processes,
        :func:`local_client`, with ``cores // threads_per_task`` single-threaded workers,
        closed on exit), a scheduler address such as ``"tcp://10.0.0.5:8786"`` or a cluster
        object with a ``scheduler_address`` (a Client is connected, and closed on exit; the
        cluster itself is left running).
    threads_per_task : int, default 1
        Threads each task uses; with ``"local"``, the number of workers is the number of
        cores divided by it.

    Yields
    ------
    distributed.Client
        The client to submit the tasks to.

    Raises
    ------
    GenexpyInputError
        When ``client`` is none of the above, or its scheduler cannot be reached.
    """
    distributed = require_distributed()
    if isinstance(client, distributed.Client):
        yield client
        return
    if isinstance(client, str) and client.strip().lower() == "local":
        c = local_client(max(1, (os.cpu_count() or 1) // max(1, int(threads_per_task))))
        try:
            yield c
        finally:
            cluster = c.cluster
            c.close()
            cluster.close()
        return
    if isinstance(client, str) and client.strip():
        target: Any = client.strip()
    elif hasattr(client, "scheduler_address"):
        target = client
    else:
        raise GenexpyInputError(
            "client must be a dask.distributed Client, a scheduler address (e.g. "
            "'tcp://10.0.0.5:8786'), a cluster object (LocalCluster, SLURMCluster, ...), or "
            f"'local' for an embedded LocalCluster; got {client!r}."
        )
    try:
        c = distributed.Client(target, timeout="30s")
    except OSError as exc:
        raise GenexpyInputError(
            f"could not reach the Dask scheduler at {client!r} ({exc}); check the address "
            "(dask scheduler prints it) or use client='local'."
        ) from exc
    try:
        yield c
    finally:
        c.close()


def total_threads(client: Any) -> int:
    """Count the worker threads of the cluster now (at least 1, for a cluster scaling up).

    Parameters
    ----------
    client : distributed.Client
        The client of the cluster.

    Returns
    -------
    int
        The sum of the threads of its workers, or 1 when it has none yet.
    """
    return max(1, sum(client.nthreads().values()))


def chunks(n: int, n_threads: int, chunk_size: int | None = None,
           per_thread: int = 4) -> list[range]:
    """Split ``range(n)`` into consecutive chunks.

    Each chunk holds ``chunk_size`` items, or, by default, the size that gives about
    ``per_thread`` chunks per worker thread (enough to balance the load, few enough that the
    per-task overhead stays small).

    Parameters
    ----------
    n : int
        The number of items.
    n_threads : int
        The worker threads of the cluster (:func:`total_threads`).
    chunk_size : int, optional
        Items per chunk (a positive integer); default ``ceil(n / (per_thread * n_threads))``.
    per_thread : int, default 4
        Chunks per worker thread when ``chunk_size`` is not given.

    Returns
    -------
    list of range
        Consecutive ranges covering ``range(n)``, the last one possibly shorter.
    """
    if chunk_size is None:
        chunk_size = max(1, math.ceil(n / (per_thread * max(1, n_threads))))
    elif isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size < 1:
        raise GenexpyInputError(f"chunk_size must be a positive integer, got {chunk_size!r}.")
    return [range(i, min(n, i + chunk_size)) for i in range(0, n, chunk_size)]


def _hold(value: Any) -> Any:
    """Return ``value``: a task whose result is a shared object (see :func:`_share`)."""
    return value


def _share(client: Any, shared: Sequence[Any]) -> list[Any]:
    """Put the objects every task needs on the cluster once, as tasks that can be recomputed.

    Scattered data (``client.scatter``) cannot be recomputed: once every worker that held it
    has died, every task still waiting for it is cancelled, and a scatter to a worker that
    dies during it raises a transport error. A task that returns the object can be run again
    by the scheduler on any worker, from the copy the scheduler keeps; the workers then pass
    the result to each other as for any other dependency.
    """
    return [client.submit(_hold, obj, pure=False) for obj in shared]


def format_items(indices: Sequence[int], unit: str, limit: int = 12) -> str:
    """Name the items ``indices`` compactly: ``"chunks 0, 3-5 and 9"``.

    Parameters
    ----------
    indices : sequence of int
        The items' indices (any order; duplicates ignored).
    unit : str
        The items' name in the singular (``"chunk"``).
    limit : int, default 12
        At most this many runs of consecutive indices are named; the rest are counted.

    Returns
    -------
    str
        The unit in the singular or plural, then the indices, runs of consecutive ones as
        ``a-b``.
    """
    idx = sorted(set(int(i) for i in indices))
    runs: list[tuple[int, int]] = []
    for i in idx:
        if runs and i == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], i)
        else:
            runs.append((i, i))
    parts = [str(a) if a == b else f"{a}-{b}" for a, b in runs[:limit]]
    if len(runs) > limit:
        parts.append(f"{sum(b - a + 1 for a, b in runs[limit:])} more")
    text = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return f"{unit}{'' if len(idx) == 1 else 's'} {text}"


def _failure_reason(exc: BaseException) -> str:
    """Say in words why a task failed on the cluster."""
    name = type(exc).__name__
    if name == "KilledWorker":
        return ("its worker died while running it, as many times as the scheduler allows "
                "(distributed.scheduler.allowed-failures)")
    if name in ("FutureCancelledError", "CancelledError"):
        return "it was cancelled (a worker it needed was lost, or the cluster shut down)"
    if isinstance(exc, _NoWorkers):
        return str(exc)
    if isinstance(exc, OSError) or name in ("CommClosedError", "TimeoutError"):
        return f"the connection to the cluster broke ({name})"
    return f"it raised {name}: {exc}"


#: the error's advice when the caller keeps what finished (a pool's ``.partial/`` folder)
RETRY_KEPT = "The others finished; run the same call again to redo the missing ones."
#: the error's advice when nothing is kept (an analysis returns all or nothing)
RETRY_ALL = ("Nothing was kept: run the call again once the cluster is healthy, or without "
             "client= to run it on this machine (the same numbers).")


class _NoWorkers(Exception):
    """The cluster has had no worker for :data:`NO_WORKER_TIMEOUT` seconds."""


class _Watchdog:
    """Cancels the unfinished tasks of a map when the cluster has had no worker for too long.

    A cluster whose workers keep dying may end with none (a nanny gives up restarting its
    worker); the scheduler then keeps the tasks waiting for ever. A thread asks the
    scheduler for its workers every second and, after :data:`NO_WORKER_TIMEOUT` seconds
    without one, cancels the unfinished futures: the map records them as failed for that
    reason, and ends.
    """

    def __init__(self, client: Any, futures: Sequence[Any]) -> None:
        import threading

        self.client, self.futures = client, futures
        self.fired: _NoWorkers | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="genexpy_nb-no-worker-watch",
                                        daemon=True)
        self._thread.start()

    def _has_workers(self) -> bool:
        try:
            return bool(self.client.nthreads())
        except Exception:  # the scheduler did not answer: count as no worker this time
            return False

    def _run(self) -> None:
        import time

        last_seen = time.monotonic()
        while not self._stop.wait(1.0):
            if self._has_workers():
                last_seen = time.monotonic()
            elif time.monotonic() - last_seen >= NO_WORKER_TIMEOUT:
                self.fired = _NoWorkers(
                    f"the cluster had no worker for {round(NO_WORKER_TIMEOUT)} s (its workers "
                    "died and none was restarted, or none joined), so its tasks could not run")
                with contextlib.suppress(Exception):
                    self.client.cancel([f for f in self.futures if not f.done()])
                return

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)


class _Failures:
    """The failed items of one map over the cluster, and the error that names them."""

    def __init__(self, n_items: int, unit: str, retry: str,
                 describe: Callable[[list[int]], str] | None = None) -> None:
        self.n_items, self.unit, self.retry, self.describe = n_items, unit, retry, describe
        self.items: dict[int, BaseException] = {}

    def add(self, i: int, exc: BaseException) -> None:
        self.items.setdefault(i, exc)

    def error(self) -> ClusterTaskError:
        i0 = min(self.items)
        e0 = self.items[i0]
        what = f" ({self.describe(sorted(self.items))})" if self.describe else ""
        err = ClusterTaskError(
            f"{len(self.items)} of {self.n_items} {self.unit}s failed on the cluster: "
            f"{format_items(list(self.items), self.unit)}{what}; {self.unit} {i0}: "
            f"{_failure_reason(e0)}. {self.retry}")
        err.failed = sorted(self.items)
        return err


def map_unordered(
    client: Any, fn: Callable[..., Any], items: Sequence[Any], *, shared: Sequence[Any] = (),
    on_result: Callable[[int, Any], None], desc: str = "tasks", unit: str = "task",
    progress: bool = True, bar: Any = None, retry: str = RETRY_KEPT,
    describe: Callable[[list[int]], str] | None = None,
) -> None:
    """Run ``fn(item, *shared)`` for every item on the cluster, handing results over as they come.

    ``on_result(i, result)`` is called on the client as each task finishes, in completion
    order. ``shared`` objects are sent to the cluster once (as tasks the scheduler can run
    again when the workers holding them die) instead of being shipped with each task. Tasks
    that fail do not stop the others: when all are done, a :class:`ClusterTaskError` names
    the failed items (the results delivered to ``on_result`` are kept); so does a
    connection to the cluster that breaks. Interrupting the call cancels the tasks still
    pending.

    Parameters
    ----------
    client : distributed.Client
        The client to submit the tasks to.
    fn : callable
        The task, ``fn(item, *shared)``; it must be picklable.
    items : sequence
        One task per item.
    shared : sequence, default ()
        Objects passed to every task after the item, sent to the cluster once.
    on_result : callable
        ``on_result(i, result)``, called on the client with the index of the item in
        ``items`` and its task's result.
    desc, unit : str
        The progress bar's label and unit (``unit`` also names the items in the error).
    progress : bool, default True
        Show a progress bar (ignored when ``bar`` is given).
    bar : tqdm progress bar, optional
        A bar to advance by one per finished task instead of a new one (left open).
    retry : str
        The error's last sentence: what to do next (default: the finished items are kept,
        run the same call again to redo the others).
    describe : callable, optional
        ``describe(failed_indices) -> str``: what the failed items hold, in the error's
        words (e.g. the configurations of the failed chunks).

    Raises
    ------
    ClusterTaskError
        When some tasks failed, after all have finished; it names every failed item (its
        ``failed`` attribute lists their indices) and why the first one failed.
    """
    distributed = require_distributed()
    from ._progress import tqdm

    futures: dict[Any, int] = {}
    failed = _Failures(len(items), unit, retry, describe)
    done: set[int] = set()
    own_bar = bar is None
    if own_bar:
        bar = tqdm(total=len(items), desc=desc, unit=unit, disable=not progress, leave=False)
    watchdog = None
    try:
        shared_f = _share(client, shared) if shared else []
        for i, item in enumerate(items):
            futures[client.submit(fn, item, *shared_f, pure=False)] = i
        watchdog = _Watchdog(client, list(futures))
        for fut in distributed.as_completed(list(futures)):
            i = futures[fut]
            try:
                # a result lost with its worker is computed again (or fails) by the scheduler
                result = fut.result()
            except Exception as exc:  # the task raised, its worker died too often, cancelled
                failed.add(i, watchdog.fired if watchdog.fired is not None else exc)
            else:
                on_result(i, result)
            done.add(i)
            fut.release()
            bar.update(1)
    except OSError as exc:  # the connection to the scheduler broke (CommClosedError, ...)
        for i in range(len(items)):
            if i not in done:
                failed.add(i, exc)
    finally:
        if watchdog is not None:
            watchdog.stop()
        with contextlib.suppress(Exception):  # a cluster already gone has nothing to cancel
            pending = [f for f in futures if f.status == "pending"]
            if pending:
                client.cancel(pending)
        if own_bar:
            bar.close()
    if failed.items:
        i0 = min(failed.items)
        raise failed.error() from failed.items[i0]


def map_ordered(
    client: Any, fn: Callable[..., Any], items: Sequence[Any], *, shared: Sequence[Any] = (),
    desc: str = "tasks", unit: str = "task", progress: bool = True, retry: str = RETRY_ALL,
    describe: Callable[[list[int]], str] | None = None,
) -> list[Any]:
    """Run ``fn(item, *shared)`` for every item on the cluster and return the results in order.

    :func:`map_unordered` collecting the results: ``[fn(item, *shared) for item in items]``
    in the order of ``items``, whatever the order in which the tasks finish.

    Parameters
    ----------
    client, fn, items, shared, desc, unit, progress, describe
        As for :func:`map_unordered`.
    retry : str
        The error's last sentence (default: nothing was kept, run the call again).

    Returns
    -------
    list
        The results, one per item, in the order of ``items``.

    Raises
    ------
    ClusterTaskError
        When some tasks failed (see :func:`map_unordered`).
    """
    parts: dict[int, Any] = {}
    map_unordered(client, fn, items, shared=shared, on_result=parts.__setitem__, desc=desc,
                  unit=unit, progress=progress, retry=retry, describe=describe)
    return [parts[i] for i in range(len(items))]
