"""The generalizability engine on a Dask cluster: one task per chunk of configurations."""

from __future__ import annotations

from typing import Any

import polars as pl

from .._cluster import as_client, chunks, map_ordered, total_threads
from .analysis import (
    GeneralizabilityAnalysis,
    check_analysis,
    check_nstar_request,
    nstar_frame,
)
from .baseline import NULL_LEVEL
from .columns import NSTAR_SCHEMA, concat_columns
from .interval import INTERVAL_LEVEL

__all__ = ["analyze_on_cluster"]


def _analyze_chunk(cids: list[int], study: Any, kernels: Any, ga_kwargs: dict[str, Any],
                   nstar_args: tuple[Any, Any, Any]) -> Any:
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
    ga_kwargs = {"rep": rep, "seed": seed, "disjoint": disjoint, "replace": replace,
                 "grid": grid, "n_jobs": 1 if n_jobs is None else n_jobs, "null": null}
    nstar_args = (alphas, deltas, methods)
    # every argument checked on the client, before anything is sent (nothing is computed)
    setup = check_analysis(study, kernels, configurations=[], **ga_kwargs)
    check_nstar_request(alphas, deltas, methods, level=INTERVAL_LEVEL, fit="joint",
                        null_level=NULL_LEVEL, units=0)  # each task bounds its own rows
    ga_kwargs["seed"] = setup.seed  # the root, resolved once for every task
    cids = sorted(s.config_id for s in study.samples())
    with as_client(client) as c:
        pieces = [[cids[j] for j in r] for r in chunks(len(cids), total_threads(c),
                                                         chunk_size)]
        parts = map_ordered(c, _analyze_chunk, pieces,
                            shared=(study, kernels, ga_kwargs, nstar_args),
                            desc="MMD distributions", unit="chunk", progress=progress)
    if not parts:  # a study without configurations: the frame's columns, no row
        return nstar_frame(concat_columns([], NSTAR_SCHEMA), study, null=setup.null)
    return pl.concat(parts, how="vertical")
