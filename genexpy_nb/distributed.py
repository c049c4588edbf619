"""Run the heavy loops of genexpy_nb on a Dask cluster (optional extra ``[cluster]``).

Three loops are independent across their units and map onto ``dask.distributed`` tasks:

* training a seed pool (one task per model; :func:`genexpy_nb.experiments.train_pool` with
  ``client=``): results come back to the client, which writes each model to the pool's
  ``.partial/`` folder as soon as it arrives, so a worker that dies loses only the models it
  was training;
* :func:`genexpy_nb.analyze` with ``client=``: one task per chunk of configurations;
* :func:`genexpy_nb.variability.alpha_hat` with ``client=``: one task per chunk of candidates.

Each unit draws its random numbers from streams fixed before scheduling (per-model seeds of
:func:`~genexpy_nb.experiments.pool_seeds`, per-configuration ``SeedSequence([seed,
config_id])``, the alpha-hat bootstrap drawn once on the client), so the results are the
same bits as the local run whatever the cluster, the number of workers or the order in which
tasks finish.

A ``client`` is a :class:`distributed.Client`, a scheduler address (``"tcp://host:8786"``),
a cluster object (``LocalCluster``, ``SLURMCluster``, ``KubeCluster``, ...), or ``"local"``:
an embedded :class:`~distributed.LocalCluster` of one single-threaded worker process per core
(see :func:`local_client`), closed again when the call returns.

Dask is imported only when a client is given; ``import genexpy_nb`` never imports it.
"""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import Callable, Iterator, Sequence
from types import ModuleType
from typing import Any

from ._validation import GenexpyInputError

__all__ = [
    "ClusterTaskError",
    "analyze_on_cluster",
    "as_client",
    "chunks",
    "local_client",
    "map_unordered",
    "require_distributed",
]


class ClusterTaskError(RuntimeError):
    """Some tasks failed on the cluster (a worker died too often, or the task raised).

    What finished before and after the failure is kept (for a pool: in its ``.partial/``
    folder); run the same call again to redo only the missing units.
    """


def require_distributed(feature: str = "running on a Dask cluster") -> ModuleType:
    """Import and return :mod:`distributed`, or raise with the install instruction."""
    from .experiments._torch import MissingOptionalDependency

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
    """A :class:`distributed.Client` on a new :class:`~distributed.LocalCluster` of processes.

    Parameters
    ----------
    n_workers
        Worker processes (default: one per core, ``os.cpu_count()``).
    threads_per_worker
        Threads per worker (default 1: each task then uses one core; the pool's
        ``n_threads`` torch threads and one numba thread per analysis task).
    **cluster_kwargs
        Passed to ``LocalCluster`` (e.g. ``memory_limit="4GB"``, ``dashboard_address=":8787"``;
        default dashboard on a free port, ``client.dashboard_link``).

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
    """A :class:`distributed.Client` for the ``client`` argument of genexpy_nb's functions.

    ``client`` may be a Client (used as it is), ``"local"`` (an embedded LocalCluster of
    processes, :func:`local_client`, with ``cores // threads_per_task`` single-threaded
    workers, closed on exit), a scheduler address such as ``"tcp://10.0.0.5:8786"`` or a
    cluster object with a ``scheduler_address`` (a Client is connected, and closed on exit;
    the cluster itself is left running).
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


def _total_threads(client: Any) -> int:
    """Worker threads of the cluster now (at least 1, for a cluster still scaling up)."""
    return max(1, sum(client.nthreads().values()))


def chunks(n: int, n_threads: int, chunk_size: int | None = None,
           per_thread: int = 4) -> list[range]:
    """Split ``range(n)`` into consecutive chunks: ``chunk_size`` each, or about
    ``per_thread`` chunks per worker thread (enough to balance the load, few enough that the
    per-task overhead stays small)."""
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
    """Run ``fn(item, *shared)`` for every item on the cluster; call ``on_result(i, result)``
    on the client as each task finishes, in completion order.

    ``shared`` objects are scattered once to every worker (``broadcast``) instead of being
    shipped with each task. Tasks that fail do not stop the others: when all are done, a
    :class:`ClusterTaskError` names the failed items (the results delivered to
    ``on_result`` are kept). Interrupting the call cancels the tasks still pending.
    """
    distributed = require_distributed()
    from tqdm.auto import tqdm

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


def _analyze_chunk(cids: list[int], study: Any, kernels: Any, ga_kwargs: dict[str, Any],
                   nstar_args: tuple[Any, Any, Any]) -> Any:
    from .generalizability import GeneralizabilityAnalysis

    ga = GeneralizabilityAnalysis(study, kernels, configurations=cids, progress=False,
                                  **ga_kwargs)
    return ga.nstar(*nstar_args)


def analyze_on_cluster(
    client: Any, study: Any, kernels: Any, *, alphas: Any, deltas: Any, methods: Any,
    rep: int, seed: int, disjoint: bool, replace: bool, grid: Any, n_jobs: int | None,
    progress: bool, chunk_size: int | None = None, null: bool = True,
) -> Any:
    """:func:`genexpy_nb.analyze` with the configurations mapped over a Dask cluster.

    One task per chunk of configurations (``chunk_size``; default about four chunks per worker
    thread). Each configuration draws from its own stream ``SeedSequence([seed, config_id])``,
    so the frame is the same, bit for bit, as the local run. ``n_jobs`` is the numba threads
    per task (default 1: the cluster's parallelism comes from its worker threads).
    """
    import polars as pl

    from .generalizability import GeneralizabilityAnalysis

    ga_kwargs = {"rep": rep, "seed": seed, "disjoint": disjoint, "replace": replace,
                 "grid": grid, "n_jobs": 1 if n_jobs is None else n_jobs, "null": null}
    nstar_args = (alphas, deltas, methods)
    # check every argument on the client (an empty analysis computes nothing), and get the
    # frame's schema for a study without configurations
    empty = GeneralizabilityAnalysis(study, kernels, configurations=[], progress=False,
                                     **ga_kwargs).nstar(*nstar_args)
    cids = sorted(s.config_id for s in study.samples())
    with as_client(client) as c:
        parts: dict[int, Any] = {}
        pieces = [[cids[j] for j in r] for r in chunks(len(cids), _total_threads(c),
                                                         chunk_size)]
        map_unordered(
            c, _analyze_chunk, pieces, shared=(study, kernels, ga_kwargs, nstar_args),
            on_result=parts.__setitem__, desc="MMD distributions", unit="chunk",
            progress=progress,
        )
    if not parts:
        return empty
    return pl.concat([parts[i] for i in range(len(pieces))], how="vertical")


def _alpha_hat_chunk(block: Any, ref: Any, draws: Any, kwargs: dict[str, Any]) -> Any:
    from .variability.robust_ks import _alpha_hat_raw

    return _alpha_hat_raw(ref, block, draws=draws, progress=False, **kwargs)


def alpha_hat_on_cluster(
    client: Any, ref: Any, cands: Any, draws: Any, *, progress: bool, desc: str,
    chunk_size: int | None = None, **kwargs: Any,
) -> list[Any]:
    """Per-chunk raw alpha-hat results of ``cands`` (rows), computed on the cluster.

    The bootstrap ``draws`` are made once on the client and shared by every chunk (as the
    local run shares them across candidates), so each candidate's numbers do not depend on
    the chunking. Returns the chunks' results in candidate order.
    """
    if kwargs.get("n_jobs") is None:
        kwargs["n_jobs"] = 1  # one numba thread per task: the workers' threads parallelise
    with as_client(client) as c:
        rows = chunks(cands.shape[0], _total_threads(c), chunk_size)
        blocks = [cands[r.start:r.stop] for r in rows]
        parts: dict[int, Any] = {}
        map_unordered(c, _alpha_hat_chunk, blocks, shared=(ref, draws, kwargs),
                      on_result=parts.__setitem__, desc=desc, unit="chunk", progress=progress)
    return [parts[i] for i in range(len(blocks))]
