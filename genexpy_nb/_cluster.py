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
    "local_client",
    "map_ordered",
    "map_unordered",
    "require_distributed",
    "total_threads",
]


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


def map_unordered(
    client: Any, fn: Callable[..., Any], items: Sequence[Any], *, shared: Sequence[Any] = (),
    on_result: Callable[[int, Any], None], desc: str = "tasks", unit: str = "task",
    progress: bool = True, bar: Any = None,
) -> None:
    """Run ``fn(item, *shared)`` for every item on the cluster, handing results over as they come.

    ``on_result(i, result)`` is called on the client as each task finishes, in completion
    order. ``shared`` objects are scattered once to every worker (``broadcast``) instead of
    being shipped with each task. Tasks that fail do not stop the others: when all are done,
    a :class:`ClusterTaskError` names the failed items (the results delivered to
    ``on_result`` are kept). Interrupting the call cancels the tasks still pending.

    Parameters
    ----------
    client : distributed.Client
        The client to submit the tasks to.
    fn : callable
        The task, ``fn(item, *shared)``; it must be picklable.
    items : sequence
        One task per item.
    shared : sequence, default ()
        Objects passed to every task after the item, sent to each worker once.
    on_result : callable
        ``on_result(i, result)``, called on the client with the index of the item in
        ``items`` and its task's result.
    desc, unit : str
        The progress bar's label and unit (``unit`` also names the items in the error).
    progress : bool, default True
        Show a progress bar (ignored when ``bar`` is given).
    bar : tqdm progress bar, optional
        A bar to advance by one per finished task instead of a new one (left open).

    Raises
    ------
    ClusterTaskError
        When some tasks failed, after all have finished; it names the first failed item.
    """
    distributed = require_distributed()
    from ._progress import tqdm

    futures: dict[Any, int] = {}
    shared_f = client.scatter(list(shared), broadcast=True, hash=False) if shared else []
    failed: list[tuple[int, BaseException]] = []
    own_bar = bar is None
    if own_bar:
        bar = tqdm(total=len(items), desc=desc, unit=unit, disable=not progress, leave=False)
    try:
        for i, item in enumerate(items):
            futures[client.submit(fn, item, *shared_f, pure=False)] = i
        for fut in distributed.as_completed(list(futures)):
            i = futures[fut]
            try:
                # a result lost with its worker is computed again (or fails) by the scheduler
                result = fut.result()
            except Exception as exc:  # the task raised, its worker died too often, cancelled
                failed.append((i, exc))
            else:
                on_result(i, result)
            fut.release()
            bar.update(1)
    finally:
        pending = [f for f in futures if f.status == "pending"]
        if pending:
            client.cancel(pending)
        if own_bar:
            bar.close()
    if failed:
        i0, e0 = min(failed, key=lambda t: t[0])
        raise ClusterTaskError(
            f"{len(failed)} of {len(items)} {unit}s failed on the cluster (first: {unit} "
            f"{i0}, {type(e0).__name__}: {e0}). The others finished; run the same call "
            "again to redo the missing ones."
        ) from e0


def map_ordered(
    client: Any, fn: Callable[..., Any], items: Sequence[Any], *, shared: Sequence[Any] = (),
    desc: str = "tasks", unit: str = "task", progress: bool = True,
) -> list[Any]:
    """Run ``fn(item, *shared)`` for every item on the cluster and return the results in order.

    :func:`map_unordered` collecting the results: ``[fn(item, *shared) for item in items]``
    in the order of ``items``, whatever the order in which the tasks finish.

    Parameters
    ----------
    client : distributed.Client
        The client to submit the tasks to.
    fn : callable
        The task, ``fn(item, *shared)``; it must be picklable.
    items : sequence
        One task per item.
    shared : sequence, default ()
        Objects passed to every task after the item, sent to each worker once.
    desc, unit : str
        The progress bar's label and unit.
    progress : bool, default True
        Show a progress bar.

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
                  unit=unit, progress=progress)
    return [parts[i] for i in range(len(items))]
