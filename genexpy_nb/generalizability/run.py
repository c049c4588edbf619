"""The whole study in one call, :func:`analyze`: locally, or on a Dask cluster."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from .. import config
from .._validation import GenexpyInputError, Seed, root_seed
from ..kernels import Kernel
from ..study import Study
from .analysis import GeneralizabilityAnalysis
from .baseline import NULL_LEVEL
from .cluster import analyze_on_cluster
from .columns import METHODS
from .interval import INTERVAL_LEVEL


def analyze(
    study: Study,
    kernels: Sequence[Kernel],
    *,
    alphas: float | Sequence[float] = config.ALPHAS,
    deltas: float | Sequence[float] = config.DELTAS,
    methods: Sequence[str] = METHODS,
    rep: int = config.REP,
    seed: Seed = 0,
    disjoint: bool = True,
    replace: bool = False,
    grid=None,
    n_jobs: int | None = None,
    progress: bool = True,
    client=None,
    interval: bool = True,
    level: float = INTERVAL_LEVEL,
    fit: str = "joint",
    null: bool = True,
    null_level: float = NULL_LEVEL,
) -> pl.DataFrame:
    """The whole study in one call: configurations x kernels x alpha* x delta* x methods.

    See :class:`GeneralizabilityAnalysis` for the parameters and
    :meth:`GeneralizabilityAnalysis.nstar` for ``interval`` (the columns ``nstar_lo``,
    ``nstar_hi``: a ``level`` interval of the resampled n*, default 90 %), ``fit``,
    ``null`` (the no-signal baseline: ``nstar_null``, ``nstar_null_lo``, ``nstar_null_hi``,
    ``beyond_chance``; ``null=False`` leaves it out), ``null_level`` and the columns of the
    returned frame.
    ``client`` (needs ``genexpy_nb[cluster]``): a ``dask.distributed`` Client, scheduler
    address, cluster object or ``"local"``; chunks of configurations then run as tasks on the
    cluster (``n_jobs`` numba threads per task, default 1), with the same result, bit for bit
    (each configuration has its own random stream; the cluster computes the default
    ``level`` and ``fit``).

    Examples
    --------
    >>> res = analyze(study, [Jaccard(k=1), Mallows()], alphas=0.95, deltas=0.05)  # doctest: +SKIP
    """
    seed = root_seed(seed)  # once: the local run and every cluster task share the root
    if client is not None:  # genexpy_nb[cluster]: chunks of configurations on the workers
        if level != INTERVAL_LEVEL or fit != "joint" or null_level != NULL_LEVEL:
            raise GenexpyInputError(
                "with client=, analyze uses the default level (0.9), fit ('joint') and "
                "null_level (0.99); run without client= for other values.")
        res = analyze_on_cluster(client, study, kernels, alphas=alphas, deltas=deltas,
                                 methods=methods, rep=rep, seed=seed, disjoint=disjoint,
                                 replace=replace, grid=grid, n_jobs=n_jobs, progress=progress,
                                 null=null)
        return res if interval else res.drop("nstar_lo", "nstar_hi")
    ga = GeneralizabilityAnalysis(study, kernels, rep=rep, seed=seed, disjoint=disjoint,
                                  replace=replace, grid=grid, n_jobs=n_jobs, progress=progress,
                                  null=null)
    return ga.nstar(alphas, deltas, methods, interval=interval, level=level, fit=fit,
                    null_level=null_level)
