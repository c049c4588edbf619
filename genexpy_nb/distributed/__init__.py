"""Run the heavy loops of genexpy_nb on a Dask cluster (optional extra ``[cluster]``).

Three loops are independent across their units and map onto ``dask.distributed`` tasks:

* training a seed pool (one task per model; :func:`~genexpy_nb.seedpools.train_pool` with
  ``client=``): results come back to the client, which writes each model to the pool's
  ``.partial/`` folder as soon as it arrives, so a worker that dies loses only the models it
  was training;
* :func:`~genexpy_nb.analyze` with ``client=``: one task per chunk of configurations;
* :func:`~genexpy_nb.variability.alpha_hat` with ``client=``: one task per chunk of candidates.

Each unit draws its random numbers from streams fixed before scheduling (per-model seeds of
:func:`~genexpy_nb.seedpools.pool_seeds`, per-configuration ``SeedSequence([seed,
config_id])``, the alpha-hat bootstrap drawn once on the client), so the results are the
same bits as the local run whatever the cluster, the number of workers or the order in which
tasks finish.

A ``client`` is a :class:`distributed.Client`, a scheduler address (``"tcp://host:8786"``),
a cluster object (``LocalCluster``, ``SLURMCluster``, ``KubeCluster``, ...), or ``"local"``:
an embedded :class:`~distributed.LocalCluster` of one single-threaded worker process per core
(see :func:`~genexpy_nb.distributed.local_client`), closed again when the call returns.

Dask is imported only when a client is given; ``import genexpy_nb`` never imports it.

This module gathers the public names for users; the generic plumbing lives in
``genexpy_nb._cluster``, each domain's adapter in its own package.
"""

from __future__ import annotations

from .._cluster import (
    ClusterTaskError,
    as_client,
    chunks,
    local_client,
    map_ordered,
    map_unordered,
    require_distributed,
    total_threads,
)
from ..generalizability.cluster import SameMachineClusterWarning, analyze_on_cluster
from ..variability.alpha_hat import alpha_hat_on_cluster

__all__ = [
    "ClusterTaskError",
    "SameMachineClusterWarning",
    "alpha_hat_on_cluster",
    "analyze_on_cluster",
    "as_client",
    "chunks",
    "local_client",
    "map_ordered",
    "map_unordered",
    "require_distributed",
    "total_threads",
]
