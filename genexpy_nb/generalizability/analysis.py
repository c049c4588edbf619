"""The cached analysis (:class:`GeneralizabilityAnalysis`).

The MMD_n distributions are computed once per configuration, and n* is read from them for
any (alpha*, delta*).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import polars as pl

from .. import config
from .._validation import (
    GenexpyInputError,
    Seed,
    as_float_grid,
    check_memory,
    check_positive_int,
    check_probability,
    check_rep_memory,
    child_seed,
    root_seed,
)
from ..study._roles import renamed
from ..study.core import ConfigurationSample, Study
from .baseline import (
    NULL_DENSE_MAX,
    NULL_KEY,
    NULL_LEVEL,
    baseline_support,
    count_differences,
    exchange_permutations,
    exchange_scores,
    null_band,
    null_sizes,
)
from .closed_form import (
    BOUND_REASON,
    ApproxTerms,
    approx_nstar,
    approx_quantile,
    approx_terms,
    bound_nstar,
)
from .columns import (
    BEYOND_CHANCE,
    METHODS,
    NSTAR_CEIL,
    NSTAR_SCHEMA,
    NULL_COLUMNS,
    concat_columns,
    unreliable,
)
from .estimate import quantile_fits, resample_mmd, resampled_nstar
from .fit import (
    MIN_GRID_POINTS,
    nstar_values,
)
from .interval import INTERVAL_LEVEL
from .kernels import Borda, Kernel, rbf_degeneracy
from .large import LARGE_KEY as _LARGE_KEY
from .large import (
    GridPlan,
    KernelShape,
    LargeSupport,
    grid_note,
    large_grid,
    large_support,
    mmd_grid,
    plan_grid,
    subsample_support,
)
from .large import applies as _large_applies
from .mmd import MODES, kernel_support, mmd_from_pairs
from .ngen import min_N_for_points, min_N_for_two_points, mmd_quantile, ngen, resolve_grid
from .questions import check_question, default_alternative, score_thresholds


@dataclass
class ConfigDistributions:
    """Cached MMD_n samples of one configuration for every kernel."""

    sample: ConfigurationSample
    kernels: list[Kernel]
    ns: np.ndarray  # (k,)
    mmd: np.ndarray  # (nk, k, rep)
    supports: list[tuple[np.ndarray, np.ndarray, np.ndarray]]  # per kernel: K, inv, counts
    approx: dict[tuple[int, str], ApproxTerms] = field(default_factory=dict)
    #: the same for the study with its scores exchanged among the alternatives within each
    #: condition (the no-signal baseline); None when the analysis has no baseline
    null_mmd: np.ndarray | None = None  # (nk, k0, rep) on the sizes null_ns
    null_supports: list[tuple[np.ndarray, np.ndarray, np.ndarray]] | None = None
    null_ns: np.ndarray | None = None
    #: why a kernel's matrix cannot discriminate (RBF), per kernel index, once computed
    degenerate: dict[int, str | None] = field(default_factory=dict)
    #: large-study path: "thinned grid: S sizes up to n_top" (None on the full grid)
    grid_note: str | None = None
    #: large-study path: per kernel, the results the closed forms read (a subsample of the
    #: conditions beyond ``config.ROUTES.large_support_m`` distinct results; None: all)
    cf_rows: list | None = None


@dataclass(frozen=True)
class AnalysisSetup:
    """The checked arguments of an analysis.

    What :class:`GeneralizabilityAnalysis` computes from (see :func:`check_analysis`).
    """

    kernels: list[Kernel]
    #: per kernel: a ``Borda()`` whose a* the data chose
    chosen_alternative: list[bool]
    null: bool
    rep: int
    seed: int
    disjoint: bool
    replace: bool
    grid: Sequence[int] | Callable[[int], np.ndarray] | None
    min_N: int
    min_N3: int
    config_ids: list[int]

    def grid_fn(self, N: int) -> np.ndarray:
        """Return the grid of sample sizes for N results (thinned on the large-study path)."""
        if _large_applies(N, self.grid, self.disjoint, self.replace):
            return large_grid(N)
        return resolve_grid(self.grid, N, self.disjoint, self.replace)


def check_analysis(study: Study, kernels: Sequence[Kernel], *, rep: int, seed: Seed,
                   disjoint: bool, replace: bool,
                   grid: Sequence[int] | Callable[[int], np.ndarray] | None,
                   configurations: Sequence | None, n_jobs: int | None,
                   null: bool) -> AnalysisSetup:
    """Check the arguments of an analysis without computing anything.

    The cluster path checks them on the client with this; raises
    :class:`GenexpyInputError`.
    """
    if not isinstance(study, Study):
        raise GenexpyInputError("study must be a genexpy_nb.Study.")
    if not isinstance(null, (bool, np.bool_)):
        raise GenexpyInputError(f"null must be True or False, got {null!r}.")
    null = bool(null)
    if isinstance(kernels, Kernel):
        kernels = [kernels]
    kernels = list(kernels)
    if not kernels:
        raise GenexpyInputError("give at least one kernel, e.g. [Jaccard(k=1), Mallows()].")
    for k in kernels:
        if not isinstance(k, Kernel):
            raise GenexpyInputError(
                f"kernels must be Kernel objects (Jaccard(), Mallows(), Borda('a'), RBF()),"
                f" got {k!r}; strings can be parsed with genexpy_nb.parse_kernel."
            )
    # Borda() with a* left out: a* is the best alternative on average, chosen from the
    # data; the baseline chooses it again, from the exchanged scores
    chosen_alternative = [isinstance(k, Borda) and k.alternative is None for k in kernels]
    kernels = [default_alternative(k, study) for k in kernels]
    resolved = [k.resolve(study.na, study.alternatives) for k in kernels]
    check_question(resolved, study.na)
    labels = [k.label for k in resolved]
    if len(set(labels)) != len(labels):
        raise GenexpyInputError(f"the same kernel is given twice: {labels}.")
    rep = check_positive_int("rep", rep, minimum=2)
    seed = root_seed(seed)
    disjoint = bool(disjoint)
    replace = bool(replace)

    def grid_fn(N: int) -> np.ndarray:
        if _large_applies(N, grid, disjoint, replace):
            return large_grid(N)
        return resolve_grid(grid, N, disjoint, replace)

    min_N = min_N_for_two_points(grid_fn)
    min_N3 = min_N_for_points(grid_fn, MIN_GRID_POINTS)
    ids = (sorted(s.config_id for s in study.samples()) if configurations is None
           else [study.config_id(c) for c in configurations])
    # the large-study path never builds a matrix beyond config.ROUTES.large_support_m rows
    _check_support_memory(study, [c for c in ids if not _large_applies(
        study.sample(c).N, grid, disjoint, replace)])
    check_rep_memory(rep, [study.sample(c).N for c in ids], grid_fn, len(kernels))
    if not (n_jobs is None or n_jobs == -1):  # as _numba.threads, which runs later
        check_positive_int("n_jobs", n_jobs)
    return AnalysisSetup(resolved, chosen_alternative, null, rep, seed, disjoint, replace, grid,
                         min_N, min_N3, ids)


#: bytes per cell of a kernel matrix on the support while it is built (the matrix, the
#: concordance counts and a temporary)
_GRAM_CELL_BYTES = 24.0


def _check_support_memory(study: Study, ids: Sequence[int]) -> None:
    """Refuse, before any kernel matrix is built, a configuration whose matrix cannot fit.

    A kernel matrix is built between the distinct rankings of a configuration's conditions
    (at most N x N): 50,000 conditions with as many distinct rankings need about 60 GB.
    """
    from .._validation import MEMORY_SHARE, available_memory, size_text

    worst, where = 0, None
    for c in ids:
        r = study.sample(c).rankings
        m = int(np.unique(r, axis=0).shape[0]) if r.shape[0] > 2000 else int(r.shape[0])
        if m > worst:
            worst, where = m, c
    need = _GRAM_CELL_BYTES * worst * worst
    if need <= 2**30:
        return
    avail = available_memory()
    if need <= MEMORY_SHARE * avail:
        return
    most = int(math.sqrt(MEMORY_SHARE * avail / _GRAM_CELL_BYTES))
    raise GenexpyInputError(
        f"configuration {where} has {worst:,} distinct rankings among its "
        f"{study.sample(where).N:,} conditions: the kernel matrix between them would need "
        f"about {size_text(need)} of memory, and {size_text(avail)} is available. Analyse "
        f"at most about {most:,} conditions per configuration (sample or filter the "
        "conditions, or split the study by a design factor).")


def check_nstar_request(alphas, deltas, methods, *, level: float, fit: str,
                        null_level: float, units: int
                        ) -> tuple[np.ndarray, np.ndarray, list[str], float, float]:
    """Check what :meth:`GeneralizabilityAnalysis.nstar` is asked for, without computing.

    Returns ``(alphas, deltas, methods, level, null_level)``, deduplicated; ``units``
    (kernels x configurations) bounds the memory of the frame.
    """
    a_arr = as_float_grid("alphas", alphas, unique=True)
    for a in a_arr:
        check_probability("alpha", a)
    d_arr = as_float_grid("deltas", deltas, unique=True)
    methods = list(dict.fromkeys([methods] if isinstance(methods, str) else methods))
    check_memory("alphas x deltas", a_arr.size * d_arr.size, what="the rows of the n* frame",
                 per_unit=400.0 * max(1, len(methods)) * units)
    bad = [m for m in methods if m not in METHODS]
    if bad:
        raise GenexpyInputError(f"unknown method(s) {bad}; choose from {list(METHODS)}.")
    methods = list(dict.fromkeys(methods))
    if fit not in ("joint", "separate"):
        raise GenexpyInputError(f"fit must be 'joint' or 'separate', got {fit!r}.")
    for nm, lv in (("level", level), ("null_level", null_level)):
        lv = check_probability(nm, lv)
        if not 0.0 < lv < 1.0:
            raise GenexpyInputError(f"{nm} must be strictly between 0 and 1, got {lv}.")
    return a_arr, d_arr, methods, float(level), float(null_level)


def nstar_frame(cols: dict, study: Study, interval: bool = True, null: bool = True
                ) -> pl.DataFrame:
    """Build the frame of :meth:`GeneralizabilityAnalysis.nstar` from its columns.

    The columns are those of :data:`~genexpy_nb.generalizability.columns.NSTAR_SCHEMA`.
    """
    frame = pl.DataFrame(cols, schema=NSTAR_SCHEMA)
    frame = frame.with_columns(NSTAR_CEIL.alias("nstar_ceil")).with_columns(
        pl.when(pl.col("reliable")).then(pl.col("N") >= pl.col("nstar_ceil"))
        .alias("generalizable"),
        (pl.col("nstar_ceil") - pl.col("N")).alias("deficit"),
        BEYOND_CHANCE.alias("beyond_chance"),
    )
    levels = study.configurations.select(["config_id", *study.design])
    frame = frame.join(levels, on="config_id", how="left")
    order = ["config_id", *study.design, "kernel", "kernel_label", "alpha", "delta",
             "eps", "N", "method", "nstar", "nstar_lo", "nstar_hi", "nstar_ceil",
             "generalizable", "deficit", "reliable", "b0", "b1", "r2", *NULL_COLUMNS,
             "reason"]
    if not interval:
        order = [c for c in order if c not in ("nstar_lo", "nstar_hi")]
    if not null:
        order = [c for c in order if c not in NULL_COLUMNS]
    return frame.select(order)


def with_grid_notes(frame: pl.DataFrame, notes: dict) -> pl.DataFrame:
    """Add the column ``grid`` before ``reason`` when a configuration's grid was thinned.

    ``notes`` maps config_id to "thinned grid: S sizes up to n_top" or None (the full
    grid); the frame is returned as it is when every grid is the full one.
    """
    notes = {c: v for c, v in notes.items() if v}
    if not notes:
        return frame
    col = pl.DataFrame({"config_id": list(notes), "grid": list(notes.values())},
                       schema={"config_id": frame.schema["config_id"], "grid": pl.String})
    out = frame.join(col, on="config_id", how="left", maintain_order="left")
    order = [c for c in frame.columns if c != "reason"] + ["grid", "reason"]
    return out.select(order)


def parallel_speedup(threads: int) -> float:
    """How much faster the analyses' kernels run on ``threads`` threads than on one (estimates).

    About 1.6x on two (the draws, the setup and the closed forms stay on one).
    """
    return 1.0 + 0.6 * (max(1, int(threads)) - 1)


def _bucket_draws(N: int, ns: np.ndarray, rep: int) -> bool:
    """Whether a full grid's draws order their uniforms by the numba bucket sort.

    The same indices as NumPy's partition (tested), 3-4x faster: worth loading numba
    (about 0.5 s) for a whole grid's draws from ``config.ROUTES.grid_bucket_min_work``,
    and always once numba is loaded (the route moves time, never the numbers).
    """
    import sys

    return (float(rep) * N * ns.size >= config.ROUTES.grid_bucket_min_work
            or "numba" in sys.modules)


def _shared_support(kernel: Kernel, data: np.ndarray, sup: tuple) -> LargeSupport:
    """Return a kernel's large-study support, its matrix taken from the closed forms' support.

    ``sup`` is what :func:`subsample_support` returned: the kernel's own support (K, inv,
    counts) when the kernel has at most ``config.ROUTES.large_support_m`` distinct
    results, whose matrix the MMD values read too (computed once); beyond, a subsample's
    support with a virtual assignment of the conditions, which the MMD values must not
    read (they are computed on every condition's own result).
    """
    first, inv, _ = kernel.support(data)
    if first.size <= config.ROUTES.large_support_m and sup[0].shape[0] == first.size \
            and np.array_equal(sup[1], inv):
        return large_support(kernel, data, support=sup)
    return large_support(kernel, data)


def estimated_seconds(study: Study, kernels: Sequence[Kernel], *, rep: int = config.REP,
                      null: bool = True, disjoint: bool = True, replace: bool = False,
                      grid: Sequence[int] | Callable[[int], np.ndarray] | None = None,
                      configurations: Sequence | None = None) -> float:
    """Estimate an analysis from the study's shape, before anything is drawn.

    The grid and path each configuration would take (:func:`~.large.plan_grid`) and their
    cost on one core of the reference machine (:data:`genexpy_nb.config.COSTS`).

    Parameters
    ----------
    study : Study
    kernels : list of Kernel
    rep, null, disjoint, replace, grid, configurations
        As for :class:`GeneralizabilityAnalysis`.

    Returns
    -------
    float
        Seconds on one core of the reference machine.
    """
    setup = check_analysis(study, kernels, rep=rep, seed=0, disjoint=disjoint,
                           replace=replace, grid=grid, configurations=configurations,
                           n_jobs=None, null=null)
    return sum(_plan(study.sample(c), setup).seconds for c in setup.config_ids)


def _plan(s: ConfigurationSample, setup: AnalysisSetup) -> GridPlan:
    """Choose one configuration's grid and path from its shape, with its estimated cost."""
    shapes = [KernelShape(k.name, int(k.support(s.data_for(k))[0].size), s.na)
              for k in setup.kernels]
    return plan_grid(s.N, shapes, setup.rep, setup.null, setup.grid, setup.disjoint,
                     setup.replace)


class GeneralizabilityAnalysis:
    """All configurations x kernels of a study: cached MMD_n distributions and n*.

    Parameters
    ----------
    study : Study
    kernels : list of Kernel (unresolved is fine; each is resolved for the study)
    rep : resampled pairs per sample size (default 200)
    seed : int, numpy.random.Generator or None (default 0). An int fixes the result (same
        seed, same bits); a Generator gives one integer root drawn from it, None fresh
        entropy (the root is kept as ``seed``). Each configuration draws from its own
        stream ``SeedSequence([seed, config_id])``, so analysing a subset of the
        configurations gives the same numbers for them.
    disjoint, replace : resampling mode (paper Sec. 4.5); default the paper's "realistic" one
    grid : None (n = 2, 4, ... < N // 2), a callable ``N -> sizes``, or a sequence of sizes
        (sizes the mode cannot draw for a configuration are skipped there)
    configurations : optional subset of configuration ids (or level tuples/dicts)
    n_jobs : numba threads (None = all cores)
    progress : show a progress bar over configurations
    null : also resample the no-signal baseline (default True): every configuration once
        more with its scores exchanged at random among the alternatives within each
        condition (:func:`exchange_scores`), with the same pairs of samples; :meth:`nstar`
        then reports ``nstar_null`` and its band. False skips it (less than half the cost).
    """

    def __init__(
        self,
        study: Study,
        kernels: Sequence[Kernel],
        *,
        rep: int = config.REP,
        seed: Seed = 0,
        disjoint: bool = True,
        replace: bool = False,
        grid: Sequence[int] | Callable[[int], np.ndarray] | None = None,
        configurations: Sequence | None = None,
        n_jobs: int | None = None,
        progress: bool = True,
        null: bool = True,
    ) -> None:
        setup = check_analysis(study, kernels, rep=rep, seed=seed, disjoint=disjoint,
                               replace=replace, grid=grid, configurations=configurations,
                               n_jobs=n_jobs, null=null)
        self.study = study
        self.null = setup.null
        self._chosen_alternative = setup.chosen_alternative
        self.kernels = setup.kernels
        self.rep, self.seed = setup.rep, setup.seed
        self.disjoint, self.replace = setup.disjoint, setup.replace
        self.mode = MODES[(self.disjoint, self.replace)]
        self.grid = grid
        self.min_N, self.min_N3 = setup.min_N, setup.min_N3
        ids = self.config_ids = setup.config_ids
        self.dists: dict[int, ConfigDistributions] = {}
        self._exchanged: dict[int, ConfigurationSample] = {}
        self.null_kernels = self._baseline_kernels() if self.null and ids else None
        # the grid of every configuration and its cost, from the shapes, before any draw
        plans = {cid: _plan(study.sample(cid), setup) for cid in ids}
        self.grid_plans = plans
        # many small BLAS products: one BLAS thread (our own threads split large work)
        from .._numba import one_blas_thread, threads
        from .._progress import check_cost, cost_bar

        with threads(n_jobs) as nthreads, one_blas_thread():
            self.n_jobs = nthreads
            reference = sum(p.seconds for p in plans.values())
            self.estimated_seconds = check_cost(
                f"the n* analysis of {len(ids)} configuration(s) x {len(self.kernels)} "
                f"kernel(s) (up to {max((study.sample(c).N for c in ids), default=0):,} "
                "conditions)", reference / parallel_speedup(nthreads),
                lift="Fewer kernels, a smaller rep or null=False cost less.")
            bar = cost_bar("MMD distributions", self.estimated_seconds, total=reference,
                           disable=not progress, unit="s", unit_scale=False,
                           bar_format="{desc}: {percentage:3.0f}%|{bar}| "
                                      "[{elapsed}<{remaining}]")
            with bar:
                for cid in ids:
                    plan = plans[cid]
                    self.dists[cid] = self._compute(
                        study.sample(cid), plan,
                        lambda f, sec=plan.seconds: bar.update(sec * f))

    def _compute(self, s: ConfigurationSample, plan: GridPlan,
                 advance: Callable[[float], object] | None = None) -> ConfigDistributions:
        """Compute one configuration's MMD distributions on its planned grid and path.

        ``advance(f)`` is called as a fraction f of the work is done (a progress bar).
        """
        if plan.thinned:
            return self._compute_large(s, plan.ns, advance)
        ns = plan.ns
        done = [0.0]
        weight = float(ns.sum()) or 1.0

        def on_size(n: int) -> None:
            done[0] += n / weight
            if advance is not None:
                advance(n / weight)

        rng = child_seed(self.seed, s.config_id)
        nk = len(self.kernels)
        # each kernel on its own support (results with identical kernel rows are merged),
        # its matrix computed once per configuration and reused for every n of the grid
        sups = [kernel_support(k, s.data_for(k)) for k in self.kernels]
        null_out = null_sups = None
        if self.null:
            s0 = self._exchanged_sample(s)
            # scores are exchanged as the kernel sees them: RBF's in the configuration's own
            # unit (its spread), so that delta* means the same threshold in the target's
            # units for the study and its baseline (a spread of the exchanged scores would be
            # larger wherever an alternative stands out, and hide it)
            P = exchange_permutations(s, self.seed)
            null_sups = [baseline_support(k, np.take_along_axis(s.data_for(k), P, axis=1)
                                           if k.on == "scores" else s0.data_for(k))
                         for k in self.null_kernels]
            keep = null_sizes(ns.size)
            slot = np.full(ns.size, -1)
            slot[keep] = np.arange(keep.size)
            null_out = np.empty((nk, keep.size, self.rep))
            # small studies: every kernel's matrix on the N conditions, and the count
            # differences of a pair computed once for all kernels (few NumPy calls per n)
            dense = ([K[inv][:, inv] for K, inv, _ in null_sups]
                     if s.N <= NULL_DENSE_MAX else None)

        def baseline(j: int, n: int, IX: np.ndarray, IY: np.ndarray) -> None:
            # the baseline reuses the pairs of the study (common random numbers)
            if slot[j] < 0:
                return
            if dense is not None:
                C = count_differences(IX, IY, s.N)
                for q, Kc in enumerate(dense):
                    v = np.einsum("ri,ri->r", C @ Kc, C) / float(n * n)
                    null_out[q, slot[j], :] = np.sqrt(np.maximum(v, 0.0))
            else:
                for q, (K, inv, _) in enumerate(null_sups):
                    null_out[q, slot[j], :] = mmd_from_pairs(K, inv, IX, IY)

        out = resample_mmd(sups, s.N, ns, self.rep, rng, disjoint=self.disjoint,
                           replace=self.replace,
                           on_pairs=None if null_sups is None else baseline, on_size=on_size,
                           bucket=_bucket_draws(s.N, ns, self.rep))
        return ConfigDistributions(s, self.kernels, ns, out, sups, null_mmd=null_out,
                                   null_supports=null_sups,
                                   null_ns=None if null_sups is None else ns[keep])

    def _compute_large(self, s: ConfigurationSample, ns: np.ndarray,
                       advance: Callable[[float], object] | None = None
                       ) -> ConfigDistributions:
        """Compute the MMD_n distributions of one configuration on the large-study path.

        The planned grid ``ns`` (``genexpy_nb.generalizability.large``), the pairs drawn by
        the batched kernel's streams, shared by the kernels and the baseline (same seed);
        each kernel's values from its matrix (computed once, shared with the closed forms)
        or on the fly; the closed forms read a subsample of the conditions beyond
        ``config.ROUTES.large_support_m`` distinct results.
        """
        rng = child_seed(self.seed, s.config_id)
        pair_seed = int(rng.integers(0, 2**63))
        cf_rng = child_seed(self.seed, s.config_id, _LARGE_KEY)
        keep = null_sizes(ns.size) if self.null else np.zeros(0, dtype=np.int64)
        sq = ns.astype(np.float64) ** 2
        total = len(self.kernels) * self.rep * float(sq.sum() + (sq[keep].sum()
                                                                 if self.null else 0.0))

        def on_work(w: float) -> None:
            if advance is not None and total > 0:
                advance(w / total)

        out = np.empty((len(self.kernels), ns.size, self.rep))
        sups, rows = [], []
        for q, k in enumerate(self.kernels):
            data = s.data_for(k)
            sup, r = subsample_support(k, data, cf_rng)
            out[q] = mmd_grid(_shared_support(k, data, sup), s.N, ns, self.rep, pair_seed,
                              on_work)
            sups.append(sup)
            rows.append(r)
        null_out = null_sups = null_ns = None
        if self.null:
            s0 = self._exchanged_sample(s)
            P = exchange_permutations(s, self.seed)
            null_ns = ns[keep]
            null_out = np.empty((len(self.kernels), null_ns.size, self.rep))
            null_sups = []
            # the baseline reuses the pairs of the study at its sizes (common random numbers)
            for q, k in enumerate(self.null_kernels):
                data = (np.take_along_axis(s.data_for(k), P, axis=1) if k.on == "scores"
                        else s0.data_for(k))
                sup0 = subsample_support(k, data, cf_rng)[0]
                null_out[q] = mmd_grid(_shared_support(k, data, sup0), s.N, null_ns,
                                       self.rep, pair_seed, on_work, positions=keep)
                null_sups.append(sup0)
        return ConfigDistributions(s, self.kernels, ns, out, sups, null_mmd=null_out,
                                   null_supports=null_sups, null_ns=null_ns,
                                   grid_note=grid_note(ns), cf_rows=rows)

    def _exchanged_sample(self, s: ConfigurationSample) -> ConfigurationSample:
        """Return the configuration with its scores exchanged (:func:`exchange_scores`), cached."""
        cid = s.config_id
        if cid not in self._exchanged:
            self._exchanged[cid] = exchange_scores(s, self.seed)
        return self._exchanged[cid]

    def _baseline_kernels(self) -> list[Kernel]:
        """Return the kernels of the no-signal baseline.

        They are the analysis' own, except that a* of a ``Borda()`` left to the data is
        chosen again, the best on average over the exchanged scores of every configuration
        (the same choice, made on data without signal).
        """
        if not any(self._chosen_alternative):
            return self.kernels
        total = np.zeros(self.study.na)
        count = 0
        for smp in self.study.samples():
            r = self._exchanged_sample(smp).rankings
            total += r.sum(axis=0)
            count += r.shape[0]
        best = str(self.study.alternatives[int(np.argmin(total / max(count, 1)))])
        import dataclasses

        return [dataclasses.replace(k, alternative=best).resolve(self.study.na,
                                                                 self.study.alternatives)
                if chosen else k
                for k, chosen in zip(self.kernels, self._chosen_alternative, strict=True)]

    def score_thresholds(self, deltas: float | Sequence[float] = config.DELTAS
                         ) -> pl.DataFrame:
        """Express delta* of every RBF question of the analysis in the target's units.

        One row per configuration analysed and delta* (:func:`score_thresholds`); empty
        without an RBF kernel.
        """
        parts = [score_thresholds(self.study, deltas, k, self.config_ids)
                 for k in self.kernels if k.name == "rbf"]
        if not parts:
            return score_thresholds(self.study, deltas, configurations=[]).clear()
        return pl.concat(parts, how="vertical")

    def _degenerate(self, cd: ConfigDistributions, q: int) -> str | None:
        """Say why the kernel matrix of kernel ``q`` cannot discriminate on this configuration.

        RBF only (``genexpy_nb.generalizability.kernels.rbf_degeneracy``); None when it can.
        """
        if q not in cd.degenerate:
            why = None
            if self.kernels[q].name == "rbf":
                K, _, counts = cd.supports[q]
                why = rbf_degeneracy(K, counts)
            cd.degenerate[q] = why
        return cd.degenerate[q]

    # ----------------------------------------------------------------------------------
    def kernel_index(self, kernel: Kernel | str | int) -> int:
        """Position of a kernel given as object, label or name."""
        if isinstance(kernel, (int, np.integer)) and not isinstance(kernel, bool):
            if not 0 <= int(kernel) < len(self.kernels):
                raise GenexpyInputError(f"kernel index {kernel} out of range.")
            return int(kernel)
        labels = [k.label for k in self.kernels]
        names = [k.name for k in self.kernels]
        if isinstance(kernel, Kernel):
            kernel = default_alternative(kernel, self.study)
            key = kernel.resolve(self.study.na, self.study.alternatives).label
            if key in labels:
                return labels.index(key)
        elif isinstance(kernel, str):
            if kernel in labels:
                return labels.index(kernel)
            if names.count(kernel.lower()) == 1:
                return names.index(kernel.lower())
        raise GenexpyInputError(f"kernel {kernel!r} is not in this analysis; it has {labels}.")

    def _terms(self, cd: ConfigDistributions, q: int, centring: str) -> ApproxTerms:
        key = (q, centring)
        if key not in cd.approx:
            k = self.kernels[q]
            data = cd.sample.data_for(k) if cd.cf_rows is None else cd.cf_rows[q]
            K = cd.supports[q][0]
            # the closed form works on the distinct results (the paper's support); reuse the
            # cached matrix when the kernel's support is those distinct results, in the same
            # order (kernels that merge nothing: Mallows, RBF)
            same = type(k)._class_key is Kernel._class_key
            cd.approx[key] = approx_terms(data, k, centring, gram=K if same else None)
        return cd.approx[key]

    def mmd_samples(self, config, kernel) -> tuple[np.ndarray, np.ndarray]:
        """(ns (k,), MMD samples (k, rep)) of one configuration and kernel."""
        cd = self.dists[self._cid(config)]
        return cd.ns, cd.mmd[self.kernel_index(kernel)]

    def _cid(self, config) -> int:
        cid = self.study.config_id(config)
        if cid not in self.dists:
            raise GenexpyInputError(f"configuration {config!r} was not analysed.")
        return cid

    def nstar(
        self,
        alphas: float | Sequence[float] = config.ALPHAS,
        deltas: float | Sequence[float] = config.DELTAS,
        estimators: Sequence[str] = METHODS,
        configurations: Sequence | None = None,
        kernels: Sequence | None = None,
        *,
        interval: bool = True,
        level: float = INTERVAL_LEVEL,
        fit: str = "joint",
        null: bool | None = None,
        null_level: float = NULL_LEVEL,
        methods: Sequence[str] | None = None,
    ) -> pl.DataFrame:
        """n* for every configuration x kernel x alpha* x delta* x method, as a tidy frame.

        Parameters
        ----------
        alphas, deltas : thresholds alpha*, delta* (every combination gets a row; a value
            given twice counts once)
        estimators : subset of :data:`~genexpy_nb.generalizability.METHODS` (the n*
            estimators to run; ``methods=``, the old name, still works with a warning)
        configurations, kernels : optional subsets
        interval : add ``nstar_lo``, ``nstar_hi`` for the resampled method (see Notes)
        level : level of that interval (default 0.90)
        fit : "joint" (default): one power-law slope shared by the quantile curves of the
            alpha* levels ``SLOPE_ALPHAS`` (and the requested ones use it), which makes
            n* non-decreasing in alpha*; "separate": one fit per alpha*, as in the paper
            (n* can then go down when alpha* goes up)
        null : add the no-signal baseline (``nstar_null``, ``nstar_null_lo``,
            ``nstar_null_hi``, ``beyond_chance``; see Notes). Default: when the analysis was
            built with ``null=True`` (its default)
        null_level : level of the band of the baseline (default 0.99)

        Returns
        -------
        Columns: config_id, the design factors, kernel, kernel_label, alpha, delta, eps, N,
        method, nstar, nstar_lo, nstar_hi, nstar_ceil, generalizable (N >= ceil(n*); null
        when the estimate is not to be trusted), deficit (nstar_ceil - N), reliable,
        b0, b1, r2 (resample fit), nstar_null, nstar_null_lo, nstar_null_hi, beyond_chance,
        reason (why n* is 1, undefined or unreliable).

        Notes
        -----
        The interval adds, in quadrature on each side of ``log n*``, (i) how much the
        closed-form n* of Appendix C moves when the N conditions are resampled with
        replacement (``INTERVAL_B`` resamples; its relative spread is carried over to the
        resampled estimate) and (ii) the standard error of the fitted line at ``log eps*``
        (the Monte Carlo noise of the ``rep`` resampled pairs). Its coverage of the true n*,
        checked by simulation against bootstrapping the whole estimate and against
        subsampling, is in ``notebooks/09_how_sure_is_nstar.ipynb``.

        Trust rules, the same for every method: fewer than ``min_N3`` conditions (the
        fewest for a power law through three sample sizes; 14 with the default grid) make
        the closed forms as unreliable as the resampled fit, so N = 2 never gives a verdict;
        a degenerate RBF kernel matrix (``genexpy_nb.generalizability.kernels.rbf_degeneracy``)
        makes
        every method's n* unreliable; the distribution-free bound is a worst case, never the
        verdict (``reliable`` false, ``generalizable`` null, the reason says so).

        **The no-signal baseline** (beyond the paper). ``nstar_null`` is the n* the same
        study would have if no alternative were systematically better: every configuration
        is analysed once more with its results exchanged at random among the alternatives
        within each condition (:func:`exchange_scores`; one permutation per condition, from
        the configuration's own stream), with the same resampled pairs, the same fit and, for
        ``Borda()`` with a* left to the data, a* chosen again from the exchanged scores.
        ``[nstar_null_lo, nstar_null_hi]`` is the range the study's own n* falls in by
        chance: the baseline's interval (computed as ``nstar_lo``/``nstar_hi``, at
        ``null_level``) widened by sqrt 2 on the log scale, because the user's n* and the
        baseline are two estimates that vary alike. ``beyond_chance`` is true when n* lies
        below that range (the answer is more consistent than exchanged scores make it),
        false when within or above, null when either is undefined. Given for the resampled
        method (the verdict's); NaN for the closed forms and the bound.
        """
        if methods is not None:  # the old name (0.3)
            estimators = renamed("methods", methods, "estimators",
                                 None if estimators is METHODS else estimators, "nstar",
                                 stacklevel=3)
        if null is None:
            null = self.null
        elif null and not self.null:
            raise GenexpyInputError(
                "this analysis was built with null=False: build it with null=True (the "
                "default) for the no-signal baseline.")
        cols = self._nstar_columns(alphas, deltas, estimators, configurations, kernels,
                                   interval=interval, level=level, fit=fit, null=bool(null),
                                   null_level=null_level)
        return with_grid_notes(self._nstar_frame(cols, interval, bool(null)),
                               {cid: cd.grid_note for cid, cd in self.dists.items()})

    def _nstar_columns(self, alphas, deltas, methods, configurations=None, kernels=None, *,
                       interval: bool = True, level: float = INTERVAL_LEVEL,
                       fit: str = "joint", null: bool | None = None,
                       null_level: float = NULL_LEVEL) -> dict:
        """Compute the columns of :meth:`nstar` before the frame is built (arrays and lists)."""
        null = self.null if null is None else bool(null) and self.null
        units = (len(self.kernels if kernels is None else kernels)
                 * len(self.config_ids if configurations is None else configurations))
        a_arr, d_arr, methods, level, null_level = check_nstar_request(
            alphas, deltas, methods, level=level, fit=fit, null_level=null_level, units=units)
        qidx = (range(len(self.kernels)) if kernels is None
                else list(dict.fromkeys(self.kernel_index(k) for k in kernels)))
        eps_by_k = {q: np.asarray(self.kernels[q].eps(d_arr), dtype=np.float64).reshape(-1)
                    for q in qidx}
        cids = (self.config_ids if configurations is None
                else list(dict.fromkeys(self._cid(c) for c in configurations)))
        names = [k.name for k in self.kernels]
        labels = [k.label for k in self.kernels]
        na_, nd_ = a_arr.size, d_arr.size
        A = np.repeat(a_arr, nd_)  # alpha-major grid of (alpha, delta)
        D = np.tile(d_arr, na_)
        blocks: list[dict] = []
        min_N3 = self.min_N3

        def block(cid, q, N, method, nstar, b0=None, b1=None, r2=None, reason=None,
                  reliable=None, lo=None, hi=None, null0=None, null_lo=None, null_hi=None):
            size = A.size
            nan = np.full(size, np.nan)
            nstar = np.asarray(nstar, dtype=np.float64)
            reason = [None] * size if reason is None else list(reason)
            reliable = np.ones(size, dtype=bool) if reliable is None else np.asarray(reliable)
            if N < 2:  # one condition: nothing can be said to generalize (any method)
                why = ("a single experimental condition (N = 1) cannot show that a result "
                       "generalizes: run more conditions")
                reason = [why] * size
                reliable = np.zeros(size, dtype=bool)
                if method != "bound":  # the bound does not depend on the data
                    nstar = nan
                lo = hi = null0 = null_lo = null_hi = None
            blocks.append({
                "config_id": np.full(size, cid, dtype=np.uint32),
                "kernel": [names[q]] * size, "kernel_label": [labels[q]] * size,
                "alpha": A, "delta": D, "eps": np.tile(eps_by_k[q], na_),
                "N": np.full(size, N, dtype=np.int64), "method": [method] * size,
                "nstar": nstar,
                "nstar_lo": nan if lo is None else lo, "nstar_hi": nan if hi is None else hi,
                "b0": nan if b0 is None else b0, "b1": nan if b1 is None else b1,
                "r2": nan if r2 is None else r2,
                "reason": reason, "reliable": reliable,
                "nstar_null": nan if null0 is None else null0,
                "nstar_null_lo": nan if null_lo is None else null_lo,
                "nstar_null_hi": nan if null_hi is None else null_hi,
            })

        baseline = (self._baselines(cids, qidx, a_arr, eps_by_k, fit, min_N3, null_level)
                    if null and "resample" in methods else {})
        for cid in cids:
            cd = self.dists[cid]
            N = cd.sample.N
            for q in qidx:
                eps = eps_by_k[q]
                k = self.kernels[q]
                degenerate = self._degenerate(cd, q)
                if "resample" in methods:
                    rows = self._resample_rows(cd, q, a_arr, eps, interval, level, fit,
                                               min_N3)
                    rows.update(baseline.get((cid, q), {}))
                    if degenerate:
                        rows["reason"] = [unreliable(r, degenerate) for r in rows["reason"]]
                        rows["reliable"] = np.zeros(A.size, dtype=bool)
                    block(cid, q, N, "resample", **rows)
                for m, centring in (("approx", "uniform"), ("approx_weighted", "weighted")):
                    if m in methods:
                        block(cid, q, N, m, **self._closed_form_rows(
                            cd, q, centring, a_arr, eps, degenerate, min_N3))
                if "bound" in methods:
                    block(cid, q, N, "bound", [bound_nstar(float(a), float(e), k.kappa_sup)
                                               for a in a_arr for e in eps],
                          reason=[BOUND_REASON] * A.size,
                          reliable=np.zeros(A.size, dtype=bool))
        return concat_columns(blocks, NSTAR_SCHEMA)

    def _baselines(self, cids: Sequence[int], qidx: Sequence[int], a_arr: np.ndarray,
                   eps_by_k: dict, fit: str, min_N3: int, null_level: float) -> dict:
        """Compute the no-signal baseline of every configuration and kernel asked for.

        Returns ``{(config_id, kernel position): columns}`` (see :meth:`_null_rows`), all
        computed under one BLAS thread (many small products).
        """
        from .._numba import one_blas_thread

        baseline = {}
        with one_blas_thread():
            for cid in cids:
                for q in qidx:
                    baseline[cid, q] = self._null_rows(self.dists[cid], q, a_arr,
                                                       eps_by_k[q], fit, min_N3,
                                                       null_level)
        return baseline

    def _closed_form_rows(self, cd: ConfigDistributions, q: int, centring: str,
                          a_arr: np.ndarray, eps: np.ndarray, degenerate: str | None,
                          min_N3: int) -> dict:
        """Compute the closed-form n* of one configuration and kernel, alpha-major.

        Returns the columns ``nstar``, ``reason`` and ``reliable`` of the method
        ``"approx"`` (``centring="uniform"``) or ``"approx_weighted"`` (``"weighted"``).
        """
        N = cd.sample.N
        terms = self._terms(cd, q, centring)
        vals = [approx_nstar(terms, float(a), float(e))
                for a in a_arr for e in eps]
        reason = [why for _, why in vals]
        reliable = np.ones(a_arr.size * eps.size, dtype=bool)
        # the trust rules of the resampled method (paper Sec. 4.5)
        # hold for the closed form too: below N = min_N no estimate; below
        # min_N3 only "all results identical" (n* = 1); a degenerate matrix
        few = None
        if N < self.min_N or (N < min_N3 and not terms.degenerate):
            few = (f"the closed form on N = {N} conditions only: as the resampled "
                   f"estimate, it needs at least N = {min_N3} (the fewest for a "
                   f"power law through {MIN_GRID_POINTS} sample sizes; N = "
                   f"{self.min_N} when all results are identical) before its n* "
                   "is a verdict")
        for why in (few, degenerate):
            if why:
                reason = [unreliable(r, why) for r in reason]
                reliable[:] = False
        return {"nstar": [v for v, _ in vals], "reason": reason, "reliable": reliable}

    def _nstar_frame(self, cols: dict, interval: bool = True, null: bool | None = None
                     ) -> pl.DataFrame:
        """Build the frame of :meth:`nstar` from :meth:`_nstar_columns`."""
        null = self.null if null is None else bool(null) and self.null
        return nstar_frame(cols, self.study, interval, null)

    def _quantile_fits(self, ns: np.ndarray, mmd: np.ndarray, a_arr: np.ndarray,
                       eps: np.ndarray, fit: str, min_N3: int):
        """Fits of one kernel's MMD_n samples (k, rep): (fits[a][d], Q, rows, pfit)."""
        return quantile_fits(ns, mmd, a_arr, eps, fit, self.min_N, min_N3)

    def _resample_rows(self, cd: ConfigDistributions, q: int, a_arr: np.ndarray,
                       eps: np.ndarray, interval: bool, level: float, fit: str,
                       min_N3: int) -> dict:
        """Compute the resampled n* of one configuration and kernel, alpha-major.

        With its interval (:func:`~genexpy_nb.generalizability.estimate.resampled_nstar`).
        """
        K, inv, _ = cd.supports[q]
        return resampled_nstar(cd.ns, cd.mmd[q], a_arr, eps, K=K, inv=inv,
                               rng=child_seed(self.seed, cd.sample.config_id, 1 + q),
                               interval=interval, level=level, fit=fit, min_N=self.min_N,
                               min_N3=min_N3)

    def _null_rows(self, cd: ConfigDistributions, q: int, a_arr: np.ndarray,
                   eps: np.ndarray, fit: str, min_N3: int, null_level: float) -> dict:
        """Compute the no-signal baseline of one configuration and kernel, alpha-major.

        With its band; empty without baseline distributions.
        """
        na_, nd_ = a_arr.size, eps.size
        out: dict = {}
        if cd.null_mmd is not None:
            ns0 = cd.null_ns
            nst0, Q0, rows0, pfit0 = nstar_values(ns0, cd.null_mmd[q], a_arr, eps, fit)
            if Q0 is None:
                lo0 = hi0 = np.full((na_, nd_), np.nan)
            else:
                K0, inv0, _ = cd.null_supports[q]
                counts0 = np.bincount(inv0, minlength=K0.shape[0]).astype(np.float64)
                rng0 = child_seed(self.seed, cd.sample.config_id, NULL_KEY, 1 + q)
                lo0, hi0 = null_band(ns0, Q0, rows0, nst0, eps, K0, counts0, a_arr, rng0,
                                      null_level, joint=fit == "joint", pfit=pfit0)
            out["null0"] = nst0.ravel()
            out["null_lo"] = lo0.ravel()
            out["null_hi"] = hi0.ravel()
        return out

    # ---- frames for charts -----------------------------------------------------------
    def mmd_frame(self, config, kernel) -> pl.DataFrame:
        """Tidy MMD_n samples of one configuration and kernel: (n, mmd)."""
        ns, x = self.mmd_samples(config, kernel)
        return pl.DataFrame({"n": np.repeat(ns, x.shape[1]).astype(np.int64),
                             "mmd": x.ravel()})

    def ngen_frame(self, config, kernel, eps: Sequence[float] | None = None) -> pl.DataFrame:
        """n-generalizability as a function of eps for every n of the grid: (n, eps, ngen)."""
        ns, x = self.mmd_samples(config, kernel)
        k = self.kernels[self.kernel_index(kernel)]
        e = (np.linspace(0.0, k.mmd_max, 101) if eps is None
             else as_float_grid("eps", eps))
        g = ngen(x, e) if ns.size else np.zeros((0, e.size))
        return pl.DataFrame({
            "n": np.repeat(ns, e.size).astype(np.int64),
            "eps": np.tile(e, ns.size),
            "ngen": np.asarray(g).ravel(),
        })

    def quantile_frame(self, config, kernel, alpha: float = config.HEADLINE_ALPHA
                       ) -> pl.DataFrame:
        """alpha-quantiles of MMD_n over the grid with the closed-form ones: (n, q, q_approx)."""
        ns, x = self.mmd_samples(config, kernel)
        cd = self.dists[self._cid(config)]
        terms = self._terms(cd, self.kernel_index(kernel), "uniform")
        q = mmd_quantile(x, float(alpha)) if ns.size else np.zeros(0)
        return pl.DataFrame({"n": ns.astype(np.int64), "q": np.asarray(q, dtype=np.float64),
                             "q_approx": approx_quantile(terms, float(alpha), ns)})

    def centring_comparison(self, alpha: float = config.HEADLINE_ALPHA) -> pl.DataFrame:
        """Which centring of the approximation is closer to the resampled quantiles.

        For every configuration and kernel with a grid, the mean absolute log-ratio between
        the approximate and the resampled alpha-quantiles of MMD_n, for both centrings.
        """
        rows = []
        for cid, cd in self.dists.items():
            if not cd.ns.size:
                continue
            for q, k in enumerate(self.kernels):
                qs = mmd_quantile(cd.mmd[q], float(alpha))
                row = {"config_id": cid, "kernel": k.name, "kernel_label": k.label}
                for centring in ("uniform", "weighted"):
                    t = self._terms(cd, q, centring)
                    qa = approx_quantile(t, float(alpha), cd.ns)
                    ok = (qs > 0) & (qa > 0)
                    row[f"log_error_{centring}"] = (float(np.abs(np.log(qa[ok] / qs[ok])).mean())
                                                   if ok.any() else math.nan)
                rows.append(row)
        df = pl.DataFrame(rows)
        if df.height:
            df = df.with_columns(
                pl.when(pl.col("log_error_weighted") < pl.col("log_error_uniform"))
                .then(pl.lit("weighted")).otherwise(pl.lit("uniform")).alias("closer")
            )
        return df
