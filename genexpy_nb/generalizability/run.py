"""The whole study in one call, :func:`analyze`: locally, or on a Dask cluster."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from .. import config
from .._validation import GenexpyInputError, Seed, root_seed
from ..study._roles import renamed
from ..study.core import Study
from .analysis import GeneralizabilityAnalysis
from .baseline import NULL_LEVEL
from .cluster import analyze_on_cluster
from .columns import METHODS
from .interval import INTERVAL_LEVEL
from .kernels import Kernel


def analyze(
    study: Study,
    kernels: Sequence[Kernel],
    *,
    alphas: float | Sequence[float] = config.ALPHAS,
    deltas: float | Sequence[float] = config.DELTAS,
    estimators: Sequence[str] = METHODS,
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
    methods: Sequence[str] | None = None,
) -> pl.DataFrame:
    """Estimate n* for the whole study in one call.

    For every configuration of the study, every kernel (research question), every pair of
    thresholds (alpha*, delta*) and every method: the number of experimental conditions n*
    that makes the study's results generalizable (paper Sections 4.4 and 4.5), i.e. with
    probability at least alpha*, the results of two independent sets of n* conditions lie
    within eps* of each other in MMD, eps* being the kernel's translation of the similarity
    threshold delta*. The MMD distributions are computed once per configuration
    (:class:`~genexpy_nb.GeneralizabilityAnalysis`); build that object instead to read n*
    for other thresholds without resampling again.

    Parameters
    ----------
    study : Study
        The results and the role of every factor (:class:`~genexpy_nb.Study`).
    kernels : sequence of Kernel
        The research questions, e.g. ``[Jaccard(k=1), Mallows(), RBF()]`` (paper Sec. 4.2);
        a single kernel is accepted too. ``Borda()`` without an alternative uses the one
        that is best on average in the study.
    alphas : float or sequence of float
        Desired generalizability alpha* in (0, 1) (default 0.7, 0.8, 0.9, 0.95, 0.99).
    deltas : float or sequence of float
        Similarity thresholds delta* of the kernels' questions (default 0.01, 0.05, 0.1,
        0.2, 0.3); each kernel turns delta* into its MMD threshold eps* (column ``eps``).
    estimators : sequence of str
        The estimators of n* to run, a subset of ``("resample", "approx",
        "approx_weighted", "bound")`` (default all four): ``"resample"``, the paper's estimator (MMD
        quantiles of resampled pairs of samples, a power law fitted through them,
        Sec. 4.5); ``"approx"`` and ``"approx_weighted"``, the closed form of Appendix C
        with the uniform or the probability-weighted centring of the kernel matrix;
        ``"bound"``, the distribution-free worst case (Proposition C.4), never a verdict.
    rep : int
        Resampled pairs of samples per sample size (default 200; at least 2).
    seed : int, numpy.random.Generator or None
        Default 0. An int fixes the result (same seed, same bits); a Generator gives one
        integer root drawn from it, None fresh entropy. Each configuration draws from its
        own stream, so analysing a subset of the configurations gives the same numbers for
        them.
    disjoint : bool
        Draw the two samples of a pair from disjoint sets of conditions (default True).
    replace : bool
        Draw with replacement (default False). ``disjoint=True, replace=False`` is the
        paper's "realistic" resampling mode (Sec. 4.5).
    grid : sequence of int, callable or None
        The sample sizes n at which MMD_n is resampled. None (default): n = 2, 4, 6, ...
        strictly below N // 2 (the paper's), and in the default mode, for a configuration
        of more than ``config.ROUTES.large_study_min_N`` conditions (1,000) or whose full
        grid is estimated to cost more than ``config.ROUTES.grid_budget_s``, a thinned grid
        of as many sizes as that budget allows (at least 50) up to a top size growing as
        sqrt(N) beyond 1,000 (column ``grid``; user guide, n*, "Large studies"); a
        callable ``N -> sizes``; or a sequence of sizes (sizes the
        mode cannot draw for a configuration are skipped there).
    n_jobs : int or None
        Numba threads (None or -1: all cores).
    progress : bool
        Show a progress bar over the configurations (default True).
    client : dask.distributed.Client, str, cluster or None
        Run on a Dask cluster (needs ``genexpy_nb[cluster]``): a Client, a scheduler
        address, a cluster object or ``"local"``. Chunks of configurations then run as
        tasks (``n_jobs`` numba threads per task, default 1), with the same result, bit for
        bit; only the default ``level``, ``fit`` and ``null_level`` are available there.
        None (default): run in this process.
    interval : bool
        Give the columns ``nstar_lo`` and ``nstar_hi`` (default True).
    level : float
        Level of that interval of the resampled n* (default 0.90).
    fit : {"joint", "separate"}
        ``"joint"`` (default): one power-law slope shared by the quantile curves of several
        alpha* levels, so that n* never goes down when alpha* goes up; ``"separate"``: one
        fit per alpha*, as in the paper.
    null : bool
        Also estimate the no-signal baseline (default True): the same study with its
        results exchanged at random among the alternatives within each condition
        (:func:`~genexpy_nb.exchange_scores`). False leaves its columns out (less than
        half the cost).
    null_level : float
        Level of the band of the baseline (default 0.99).
    methods : sequence of str, optional
        The old name of ``estimators`` (deprecated: it warns; removed in version 0.4).

    Returns
    -------
    polars.DataFrame
        One row per configuration x kernel x alpha* x delta* x method, with the columns:

        - ``config_id`` and the design factors: the configuration;
        - ``kernel``, ``kernel_label``: the kernel's name and its full label (with its
          parameters);
        - ``alpha``, ``delta``: the thresholds alpha* and delta*; ``eps``: the MMD
          threshold eps* of the kernel for that delta*;
        - ``N``: the number of conditions the configuration has;
        - ``method``: ``"resample"``, ``"approx"``, ``"approx_weighted"`` or ``"bound"``
          (see ``estimators``);
        - ``nstar``: the estimated n*, a real number (NaN where it is undefined, e.g.
          with a single condition); ``nstar_lo``, ``nstar_hi``: its ``level`` interval
          (resampled method only; without ``interval=True`` these columns are absent);
          ``nstar_ceil``: the smallest whole number of conditions at least n*;
        - ``generalizable``: N >= ``nstar_ceil``, the verdict; null when the estimate is
          not to be trusted (``reliable`` false) or undefined; ``deficit``:
          ``nstar_ceil - N``, the conditions still to run (negative: to spare);
        - ``reliable``: whether the estimate is to be trusted (enough conditions for a
          power law through three sample sizes, a good fit, a kernel matrix that
          discriminates; the bound never is);
        - ``b0``, ``b1``, ``r2``: the fitted power law ``log n = b1 log q_n + b0`` and its
          R² (resampled method; the theory expects b1 near -2);
        - ``nstar_null``: the n* of the no-signal baseline; ``nstar_null_lo``,
          ``nstar_null_hi``: the range the study's own n* falls in by chance;
          ``beyond_chance``: n* lies below that range, so the answer is more consistent
          than chance makes it (null where either is undefined). Resampled method only
          (NaN for the others); absent with ``null=False``;
        - ``grid``: "thinned grid: S sizes up to n_top" for a configuration whose n* was
          read from a thinned grid (null for the others); present only when one was;
        - ``reason``: why n* is 1, undefined or unreliable (null when nothing is to say).

    See Also
    --------
    :meth:`~genexpy_nb.GeneralizabilityAnalysis.nstar` : the same frame from a cached
        analysis, and how the interval and the baseline are computed.

    Examples
    --------
    >>> res = analyze(study, [Jaccard(k=1), Mallows()], alphas=0.95, deltas=0.05)  # doctest: +SKIP
    """
    if methods is not None:  # the old name (0.3): the estimators, not what is compared
        estimators = renamed("methods", methods, "estimators",
                             None if estimators is METHODS else estimators, "analyze",
                             stacklevel=3)
    seed = root_seed(seed)  # once: the local run and every cluster task share the root
    if client is not None:  # genexpy_nb[cluster]: chunks of configurations on the workers
        if level != INTERVAL_LEVEL or fit != "joint" or null_level != NULL_LEVEL:
            raise GenexpyInputError(
                "with client=, analyze uses the default level (0.9), fit ('joint') and "
                "null_level (0.99); run without client= for other values.")
        res = analyze_on_cluster(client, study, kernels, alphas=alphas, deltas=deltas,
                                 estimators=estimators, rep=rep, seed=seed, disjoint=disjoint,
                                 replace=replace, grid=grid, n_jobs=n_jobs, progress=progress,
                                 null=null)
        return res if interval else res.drop("nstar_lo", "nstar_hi")
    ga = GeneralizabilityAnalysis(study, kernels, rep=rep, seed=seed, disjoint=disjoint,
                                  replace=replace, grid=grid, n_jobs=n_jobs, progress=progress,
                                  null=null)
    return ga.nstar(alphas, deltas, estimators, interval=interval, level=level, fit=fit,
                    null_level=null_level)
