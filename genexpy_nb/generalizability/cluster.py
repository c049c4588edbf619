"""The generalizability engine on a Dask cluster: one task per chunk of configurations."""

from __future__ import annotations

from typing import Any

import polars as pl

from .._cluster import as_client, chunks, format_items, map_ordered, total_threads
from .._validation import GenexpyInputError
from ..study._roles import renamed
from .analysis import (
    GeneralizabilityAnalysis,
    check_analysis,
    check_nstar_request,
    nstar_frame,
)
from .baseline import NULL_LEVEL
from .columns import NSTAR_SCHEMA, concat_columns
from .interval import INTERVAL_LEVEL

__all__ = ["analyze_on_cluster", "SameMachineClusterWarning"]


class SameMachineClusterWarning(UserWarning):
    """Every worker of the cluster runs on this machine: ``analyze`` will be slower there.

    Without ``client=``, :func:`~genexpy_nb.analyze` already uses every core (numba threads
    and one BLAS thread each) and gives the same numbers, bit for bit. A cluster whose
    workers all run here computes the same work on the same cores, and adds to it one
    task per chunk of configurations, the study sent to every worker process and each
    process's own start-up (measured on a 2-core machine: half the speed of the local run,
    about 0.6 s more per configuration). A cluster pays off when its workers are on other
    machines.
    """


def _workers_all_here(client: Any) -> int:
    """Return the number of workers when every one of them runs on this machine, else 0."""
    import socket
    from urllib.parse import urlsplit

    workers = client.scheduler_info().get("workers", {})
    here = {"127.0.0.1", "localhost", "::1", socket.gethostname()}
    try:
        here |= set(socket.gethostbyname_ex(socket.gethostname())[2])
    except OSError:
        pass
    for addr in workers:
        if not str(addr).startswith("inproc://") and urlsplit(str(addr)).hostname not in here:
            return 0
    return len(workers)


def _warn_same_machine(client: Any) -> None:
    n = _workers_all_here(client)
    if n:
        import warnings

        warnings.warn(
            f"all {n} workers of the cluster run on this machine: analyze(..., client=...) "
            "computes the same work on the same cores as analyze without client= (which "
            "already uses every core, with the same numbers), plus one task per chunk of "
            "configurations and the study sent to every worker process, so it will take "
            "longer (half the speed was measured on a 2-core machine). Leave client= out "
            "here; a cluster pays off when its workers are on other machines.",
            SameMachineClusterWarning, stacklevel=4)


def _analyze_chunk(cids: list[int], study: Any, kernels: Any, ga_kwargs: dict[str, Any],
                   nstar_args: tuple[Any, Any, Any]) -> Any:
    """Return the n* frame of the configurations ``cids`` (one cluster task)."""
    ga = GeneralizabilityAnalysis(study, kernels, configurations=cids, progress=False,
                                  **ga_kwargs)
    return ga.nstar(*nstar_args)


def analyze_on_cluster(
    client: Any, study: Any, kernels: Any, *, alphas: Any, deltas: Any, estimators: Any = None,
    rep: int, seed: int, disjoint: bool, replace: bool, grid: Any, n_jobs: int | None,
    progress: bool, chunk_size: int | None = None, null: bool = True, methods: Any = None,
) -> Any:
    """Run :func:`~genexpy_nb.analyze` with the configurations mapped over a Dask cluster.

    One task per chunk of configurations (``chunk_size``; default about four chunks per worker
    thread). Each configuration draws from its own stream ``SeedSequence([seed, config_id])``,
    so the frame is the same, bit for bit, as the local run. ``n_jobs`` is the numba threads
    per task (default 1: the cluster's parallelism comes from its worker threads). Every
    argument is checked on the client before anything is sent to the workers. This is what
    ``analyze(..., client=...)`` calls; the interval level, the fit and the level of the
    baseline's band are the defaults of :func:`~genexpy_nb.analyze`.

    Parameters
    ----------
    client : dask.distributed.Client, str or cluster
        Where to run: a Client, a scheduler address (``"tcp://host:8786"``), a cluster
        object or ``"local"`` (an embedded cluster, closed again on return); see
        :func:`~genexpy_nb.distributed.as_client`.
    study : Study
        The results and the role of every factor (:class:`~genexpy_nb.Study`); sent once
        to the workers, shared by every task.
    kernels : sequence of Kernel
        The research questions (a single kernel is accepted too).
    alphas : float or sequence of float
        Desired generalizability alpha* in (0, 1).
    deltas : float or sequence of float
        Similarity thresholds delta* of the kernels' questions.
    estimators : sequence of str
        The estimators of n* to run, a subset of ``("resample", "approx", "approx_weighted",
        "bound")``.
    rep : int
        Resampled pairs of samples per sample size (at least 2).
    seed : int, numpy.random.Generator or None
        The root of the configurations' streams, resolved once on the client (an int fixes
        the result; a Generator gives one integer root drawn from it, None fresh entropy).
    disjoint : bool
        Draw the two samples of a pair from disjoint sets of conditions.
    replace : bool
        Draw with replacement.
    grid : sequence of int, callable or None
        The sample sizes n at which MMD_n is resampled (None: n = 2, 4, 6, ... strictly
        below N // 2; a callable ``N -> sizes``; or a sequence of sizes).
    n_jobs : int or None
        Numba threads per task (None: 1; -1: all cores of the worker's machine).
    progress : bool
        Show a progress bar over the chunks as they finish.
    chunk_size : int, optional
        Configurations per task (a positive integer); default: about four chunks per worker
        thread of the cluster.
    null : bool
        Also estimate the no-signal baseline (columns ``nstar_null``, ``nstar_null_lo``,
        ``nstar_null_hi``, ``beyond_chance``); False leaves them out.
    methods : sequence of str, optional
        The old name of ``estimators`` (deprecated: it warns; removed in version 0.4).

    Returns
    -------
    polars.DataFrame
        The frame of :func:`~genexpy_nb.analyze` with ``interval=True``: one row per
        configuration x kernel x alpha* x delta* x method, the chunks concatenated in the
        order of ``config_id`` (no row, the same columns, for a study without
        configurations).

    Warns
    -----
    SameMachineClusterWarning
        When every worker runs on this machine (``client="local"``, a ``LocalCluster``):
        the run without ``client=`` is faster there, with the same numbers.
    """
    if methods is not None:  # the old name (0.3)
        estimators = renamed("methods", methods, "estimators", estimators,
                             "analyze_on_cluster", stacklevel=3)
    if estimators is None:
        raise GenexpyInputError("analyze_on_cluster: pass the n* estimators to run, e.g. "
                                "estimators=['resample'].")
    ga_kwargs = {"rep": rep, "seed": seed, "disjoint": disjoint, "replace": replace,
                 "grid": grid, "n_jobs": 1 if n_jobs is None else n_jobs, "null": null}
    nstar_args = (alphas, deltas, estimators)
    # every argument checked on the client, before anything is sent (nothing is computed)
    setup = check_analysis(study, kernels, configurations=[], **ga_kwargs)
    check_nstar_request(alphas, deltas, estimators, level=INTERVAL_LEVEL, fit="joint",
                        null_level=NULL_LEVEL, units=0)  # each task bounds its own rows
    ga_kwargs["seed"] = setup.seed  # the root, resolved once for every task
    cids = sorted(s.config_id for s in study.samples())
    with as_client(client) as c:
        _warn_same_machine(c)
        pieces = [[cids[j] for j in r] for r in chunks(len(cids), total_threads(c),
                                                         chunk_size)]
        parts = map_ordered(c, _analyze_chunk, pieces,
                            shared=(study, kernels, ga_kwargs, nstar_args),
                            desc="MMD distributions", unit="chunk", progress=progress,
                            describe=lambda failed: "they hold the " + format_items(
                                [cid for i in failed for cid in pieces[i]], "configuration")
                            + " (config_id)")
    if not parts:  # a study without configurations: the frame's columns, no row
        return nstar_frame(concat_columns([], NSTAR_SCHEMA), study, null=setup.null)
    # a chunk with a configuration on a thinned grid (large studies) has the column grid
    with_grid = [p.columns for p in parts if "grid" in p.columns]
    if with_grid:
        parts = [p if "grid" in p.columns else
                 p.with_columns(pl.lit(None, dtype=pl.String).alias("grid")).select(with_grid[0])
                 for p in parts]
    return pl.concat(parts, how="vertical")
