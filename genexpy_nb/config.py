"""Numerical policy of genexpy_nb: one place for tolerances, default grids and numba flags.

Every kernel in :mod:`genexpy_nb._numba` is compiled by one of its two decorators,
:func:`~genexpy_nb._numba.jit_fast` (the :data:`FASTMATH` flags below) or
:func:`~genexpy_nb._numba.jit_exact` (strict IEEE arithmetic: the trimmed-KS, aggregates,
studentized-range and conclusions kernels, see there); both cache as :func:`numba_cache` says.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import os
from collections.abc import Iterator

#: fastmath flags *without* ``nnan``/``ninf``: kernels may see NaN or inf in user data
#: (we validate first, but a flag that assumes them away turns a bug into a silent
#: wrong answer). Same policy as STUMPY's ``STUMPY_FASTMATH_FLAGS``.
FASTMATH: set[str] = {"nsz", "arcp", "contract", "afn", "reassoc"}

#: the boolean environment variables the package reads (read by
#: :func:`genexpy_nb._validation.env_flag`: 1/true/yes/on, 0/false/no/off, else an error):
#: the traceback of an unexpected error on the command line, numba's disk cache, progress
#: bars (unset: where a terminal or a notebook shows them)
BOOLEAN_VARIABLES: tuple[str, ...] = ("GENEXPY_NB_DEBUG", "GENEXPY_NB_NUMBA_CACHE",
                                      "GENEXPY_NB_PROGRESS")


def numba_cache() -> bool:
    """Say whether compiled kernels are cached on disk (cold start on Binder matters).

    True unless ``GENEXPY_NB_NUMBA_CACHE`` is false (``0``, ``false``, ``no``, ``off``).

    Returns
    -------
    bool
    """
    from ._validation import env_flag

    return bool(env_flag("GENEXPY_NB_NUMBA_CACHE", True))


def check_environment() -> None:
    """Check every boolean environment variable of the package (a clear error, named).

    Raises
    ------
    GenexpyInputError
        When one of :data:`BOOLEAN_VARIABLES` holds a value that is not a boolean word.
    """
    from ._validation import env_flag

    for name in BOOLEAN_VARIABLES:
        env_flag(name, None)



def numba_cache_dir() -> str:
    """Return the folder where numba keeps the package's compiled kernels.

    numba's own default is a ``__pycache__`` folder beside each kernel's source file, that
    is inside the installed package. pip does not know about those files: when the package
    is reinstalled (``pip install -e .`` over ``pip install .``, or an upgrade) it leaves
    them behind, and the left-over folder then shadows the new installation. The kernels
    are therefore cached in the user's cache folder instead (where the downloaded data
    files go too), one sub-folder per installed copy of the sources; numba checks every
    entry against the source it was compiled from. A folder you choose with numba's own
    ``NUMBA_CACHE_DIR`` (or numba's configuration file) is used as it is.

    Returns
    -------
    str
        ``NUMBA_CACHE_DIR`` when set, else ``<user cache folder>/genexpy_nb/numba``
        (``~/.cache/genexpy_nb/numba`` on Linux, ``$XDG_CACHE_HOME`` respected).
    """
    import sys

    numba = sys.modules.get("numba")  # its configuration: the variable or its config file
    chosen = numba.config.CACHE_DIR if numba else os.environ.get("NUMBA_CACHE_DIR")
    if chosen:
        return chosen
    from platformdirs import user_cache_dir

    return os.path.join(user_cache_dir("genexpy_nb"), "numba")

# ---- generalizability of experimental studies ----------------------------------------
#: default desired generalizability levels alpha* (paper Sec. 4.5)
ALPHAS: tuple[float, ...] = (0.7, 0.8, 0.9, 0.95, 0.99)
#: default similarity thresholds delta* (paper Sec. 4.5)
DELTAS: tuple[float, ...] = (0.01, 0.05, 0.1, 0.2, 0.3)
#: the paper's headline (alpha*, delta*)
HEADLINE_ALPHA: float = 0.95
HEADLINE_DELTA: float = 0.05
#: resampling repetitions of MMD_n (paper Sec. 4.5)
REP: int = 200
#: missing-result tolerances (paper Sec. 4.1)
TOL_MISSING_ALTERNATIVES: float = 0.2
TOL_MISSING_CONDITIONS: float = 0.2
#: the quantile convention of the authors' genexpy package (paper Sec. 4.5)
QUANTILE_METHOD: str = "higher"
#: L1 below this (relative to kappa_sup) means "all results identical under the kernel"
DEGENERATE_TOL: float = 1e-12
#: constants of the inverse of Lin's normal-CDF approximation (paper App. C)
LIN_C: tuple[float, float, float, float] = (-0.861779, 0.00120192, 514089.0, 1664000.0)

# ---- training variability over random seeds -------------------------------------------
#: clip logit gaps to [-LOGIT_CLIP, LOGIT_CLIP] (robust-KS paper Sec. II)
LOGIT_CLIP: float = 15.0
#: equal-width confidence bins for ECE
ECE_BINS: int = 15
#: error probability of the DKW threshold
DKW_EPS: float = 0.01
#: alpha-hat bootstrap repetitions
ALPHA_HAT_B: int = 100
#: the paper's grid of trimming levels; 0.5 is reported when none passes
ALPHA_GRID: tuple[float, ...] = (
    0.0, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45,
)
ALPHA_HAT_MAX: float = 0.5
#: bisection tolerance of the exact alpha-hat
ALPHA_HAT_XTOL: float = 1e-6


# ---- routes: where a computation leaves NumPy for a compiled numba kernel ------------------
@dataclasses.dataclass
class Routes:
    """The size bounds at which each computation switches between its NumPy and numba paths.

    The NumPy path has nothing to compile; the numba kernel is compiled once per
    installation and is faster on large inputs. Both paths give the same numbers; the
    bounds only move time. Read at call time from :data:`ROUTES`; change them for a block
    of code with :func:`force_route`, the one documented way (the measurements behind the
    defaults are in ``benchmarks/README.md``).
    """

    #: Mallows matrix: up to this many multiply-adds (rows_x * rows_y * na^2) through BLAS on
    #: 0/1 single-precision matrices (exact counts); beyond, the numba popcount kernel
    mallows_blas_max: float = 6e9
    #: Mallows matrix: from the contingency tables of the rankings' L tie levels when their
    #: cost per entry, (L - 1)^2 (2 na + 2), is at most this times the na^2 of the routes
    #: above (L = 2, 0/1 item correctness, from na = 18 on; L = 3 from na = 68); the same
    #: exact counts
    mallows_levels_max: float = 0.12
    #: RBF matrix: up to this many entries (rows_x * rows_y * na) through NumPy in blocks;
    #: beyond, the numba kernel on threads
    rbf_numpy_max: float = 1e8
    #: MMD: supports up to this size always go through NumPy/BLAS
    mmd_small_m: float = 96
    #: MMD: the dense BLAS path beats the loop over the k touched points from k = this
    #: fraction of m while K fits in the core's cache (m <= mmd_cache_m), ...
    mmd_dense_fraction_small: float = 0.3
    #: ... and from this fraction beyond (each gathered read is then a cache miss)
    mmd_dense_fraction_large: float = 0.12
    #: MMD: the size of support up to which K is taken to fit in the core's cache
    mmd_cache_m: float = 360
    #: MMD: up to this much work (pairs x touched points^2) the sparse path gathers with NumPy
    mmd_gather_max_work: float = 1_000_000
    #: draw_pairs: from this much work (rep x N uniforms) on, the first k of the argsort of
    #: uniforms come from an O(N) bucket sort (numba) instead of NumPy: the same indices
    pairs_bucket_min_work: float = 2_000_000
    #: the n* analysis' full grid: from this much work (rep x N x sample sizes) on, every
    #: size's draws are ordered by the bucket sort (about 7 against 25 ns per uniform: worth
    #: loading numba, about 0.5 s, for the whole grid's draws)
    grid_bucket_min_work: float = 2e7
    #: trimmed KS and alpha-hat: up to this much work (rows x pooled points x trimming levels)
    #: with NumPy; beyond, the numba kernel
    ks_numpy_max_work: float = 3e7
    #: gx.conclusions, the order's agreement: up to this much work (draws x pairs of
    #: alternatives) with NumPy; beyond, the numba kernel (its first call in a process loads
    #: numba and the compiled kernel, about 1 s)
    kendall_numpy_max_work: float = 4_000_000
    #: gx.conclusions' plan, Holm's step-down over the pairs of each simulated table: up to
    #: this much work (draws x pairs per block) by sorting in NumPy; beyond, the numba kernel
    #: (which orders only the statistics between the unadjusted and Bonferroni cut-offs)
    holm_numpy_max_work: float = 200_000
    #: gx.conclusions' plan, the simulated tables at N + k: up to this much work (draws x
    #: pairs) through NumPy (the tables, then the rule); beyond, the fused numba kernel
    plan_numpy_max_work: float = 200_000
    #: interval estimates with the task bootstrap: up to this much work (replicates x
    #: alternatives x tasks, x 3 runs per task where a task has several: NumPy is then about
    #: 3x slower per cell) with NumPy, the kernel's bits without loading numba; beyond, the
    #: numba kernel (its first call in a process loads numba and the kernel, about 1 s);
    #: once numba is loaded the kernel whatever the work (2-3x faster), unless this bound is
    #: infinite (the forced NumPy route)
    aggregates_numpy_max_work: float = 2.5e7
    #: rank sets, tiers: up to this much work (data sets x bootstrap draws x pairs) the
    #: step-down test scans every hypothesis with NumPy; beyond, the numba kernel (the same
    #: rejections; it walks each draw's largest statistics instead of all pairs); their
    #: bootstrap draws too (replicates x pairs), and always through the kernel once numba
    #: is loaded, unless this bound is infinite (the forced NumPy route)
    leaderboards_numpy_max_work: float = 2e7
    #: Nemenyi's studentized range: up to this much work (distinct statistics x quadrature
    #: nodes) in Python, the kernel's arithmetic bit for bit (a few hundred pairs); beyond,
    #: the numba kernel (its first call in a process loads numba, about 0.6 s)
    studentized_python_max_work: float = 60_000
    #: numba kernels: below this many basic operations a call runs on the calling thread (a
    #: thread pool costs tens of microseconds)
    parallel_min_work: float = 2_000_000
    #: n* analysis: configurations with more conditions than this always take the
    #: large-study path (a thinned grid of sample sizes resampled by the batched kernel; see
    #: ``genexpy_nb.generalizability.large``); at or below it, those whose full grid's
    #: estimated cost exceeds ``grid_budget_s`` take it too. Unlike the bounds above this
    #: one changes the numbers (other draws, fewer sizes): on the full grid every output is
    #: the paper's
    large_study_min_N: float = 1000
    #: n* analysis: the most a configuration's MMD distributions may cost on the full grid
    #: of the paper (seconds of one core of the reference machine, estimated from the shape
    #: with :data:`COSTS` before anything is drawn); beyond, the large-study path with as
    #: many sample sizes as this allows (at least ``LARGE_GRID_SIZES``), so that the time
    #: is smooth in N. Like ``large_study_min_N`` it changes the numbers where it applies;
    #: the estimate depends on the shape only (never on the machine), so the same study
    #: takes the same path everywhere
    grid_budget_s: float = 1.0
    #: large-study path, beyond this many distinct results: the closed-form parts (the
    #: ``approx`` estimators, the sampling part of the interval of n* and of the baseline's
    #: band, the RBF check) read a seeded subsample of this many conditions; the sample
    #: sizes read one pair at a time compute Mallows and RBF values on the fly (a look-up in
    #: a larger matrix misses the caches); the sizes whose pairs touch much of the support
    #: read the matrix in row blocks (below: one BLAS product per size, as the full grid)
    large_support_m: float = 2000
    #: large-study path: supports up to this many distinct results keep their kernel
    #: matrix (288 MB at 6,000); beyond, its row blocks are computed when read (Mallows and
    #: RBF; Borda's supports are small: always a matrix). Jaccard's, and Mallows' on
    #: rankings of two tie levels (0/1 item correctness), beyond ``large_support_m`` have
    #: none at any size: their values come from one word of bits per result
    #: (``generalizability.large.sets_support``)
    large_matrix_m: float = 6000

#: the routes in force (see :class:`Routes` and :func:`force_route`)
ROUTES = Routes()


@dataclasses.dataclass(frozen=True)
class Costs:
    """The cost model behind the routes that change numbers and behind every time estimate.

    Nanoseconds of one core of the reference machine (the project's 2-core AMD EPYC) per
    unit of work: its CPU time, measured with ``benchmarks/bench_costs.py`` while other jobs
    shared the machine (load 4-13), and checked against whole analyses (within 2x). The n* analysis
    chooses its grid from them (``Routes.grid_budget_s``), so they are constants, never
    measured at run time: the same study takes the same path on every machine. Estimates
    shown to users scale them by the machine's speed relative to the reference
    (:data:`LIMITS`).
    """

    #: full grid: one uniform drawn and ordered, per (pair, condition), per sample size:
    #: ordered by NumPy, and by the numba bucket sort (``Routes.grid_bucket_min_work``)
    draw_ns: float = 25.0
    bucket_draw_ns: float = 7.0
    #: dense MMD (count differences times the kernel matrix): per (pair, support point^2)
    blas_ns: float = 0.04
    #: dense MMD: per (pair, support point) and per drawn result (bincount, row dots)
    cell_ns: float = 4.0
    #: MMD over the touched points with NumPy gathers: per (pair, touched point^2)
    gather_ns: float = 10.0
    #: MMD over the touched points in the numba loop: per (pair, touched pair), matrix
    #: in cache (up to ``Routes.mmd_cache_m`` points) and beyond
    loop_ns: float = 2.0
    loop_far_ns: float = 10.0
    #: large-study path: one index of a pair drawn (Floyd's sampling and the shuffle)
    unit_draw_ns: float = 8.0
    #: Mallows values on the fly: per touched pair, and per 64-bit word of the bitsets
    mallows_pair_ns: float = 2.2
    mallows_word_ns: float = 0.14
    #: RBF values on the fly: per (touched pair, alternative), and the exponential
    rbf_value_ns: float = 0.13
    rbf_exp_ns: float = 6.0
    #: kernel matrix on the support: Mallows per (pair of points, alternative^2), RBF and
    #: the others per (pair of points, alternative)
    gram_mallows_ns: float = 0.02
    gram_ns: float = 1.3
    #: the closed-form parts of n* (the interval's and the band's resamples): per support
    #: point^2
    closed_ns: float = 50.0
    #: fixed cost of one sample size of one kernel (calls, small arrays)
    size_s: float = 1.5e-4
    # ---- the conclusions (gx.conclusions), per configuration -------------------------------
    #: per pair of alternatives: the closed forms (the noncentral-t interval) and the row
    conclusion_pair_ns: float = 60_000.0
    #: the order's agreement: per (row pair of draws, pair of alternatives, study size
    #: tried): the numba kernel, and NumPy (small studies)
    kendall_ns: float = 1.9
    kendall_numpy_ns: float = 12.0
    #: the normal model's draws: per (draw, condition, alternative)
    conclusion_model_ns: float = 0.5
    #: the best and the top k: per (draw, alternative, study size tried)
    conclusion_set_ns: float = 10.0
    # ---- the report's other sections, per configuration --------------------------------
    #: the classical tests: per (condition, alternative) and per pair of alternatives
    compare_cell_ns: float = 1500.0
    compare_pair_ns: float = 2000.0
    #: rank probabilities: per (replicate, condition, alternative), per (replicate,
    #: alternative) (the places from the sorted scores) and per (block of replicates,
    #: alternative^2) (the places' counts)
    rank_cell_ns: float = 1.5
    rank_place_ns: float = 30.0
    rank_block_ns: float = 2.0
    #: robust aggregates' bootstrap: per (replicate, alternative, task): the numba kernel,
    #: and NumPy (small work)
    bootstrap_cell_ns: float = 4.0
    bootstrap_numpy_cell_ns: float = 20.0
    #: the page and its tables: per row of the conclusions
    page_row_ns: float = 25_000.0


#: the cost model (see :class:`Costs`)
COSTS = Costs()


def _env_seconds(name: str, default: float) -> float:
    """Read a positive number of seconds from the environment variable ``name`` (or ``default``)."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not (value > 0):  # NaN, 0 and negative values too
        raise ValueError(f"{name} must be a positive number of seconds (or 'inf'), got "
                         f"{raw!r}.")
    return value


@dataclasses.dataclass
class Limits:
    """How long an analysis may run before it is refused, decided before it starts.

    Every analysis that can run for minutes (the n* analysis, the conclusions, the report,
    the post-hoc tests, the robust aggregates) estimates its time from the shape of its
    input with the cost model (:data:`COSTS`) before it starts, shows the estimate on its
    progress bar, and refuses to start when the estimate exceeds :attr:`max_seconds`, with
    an error that says how to lift the limit: set ``genexpy_nb.config.LIMITS.max_seconds``
    (or use :func:`allow_seconds` for a block of code), the environment variable
    ``GENEXPY_NB_MAX_SECONDS``, or ``--max-seconds`` on the command line.
    """

    #: the longest an analysis may be estimated to take (seconds on this machine); None:
    #: the environment variable ``GENEXPY_NB_MAX_SECONDS``, else 600 (ten minutes)
    max_seconds: float | None = None
    #: this machine's seconds per second of the reference machine (estimates only: no
    #: route reads it)
    speed: float = 1.0


#: the limits in force (see :class:`Limits`)
LIMITS = Limits()
#: the limit when neither ``LIMITS.max_seconds`` nor the environment sets one
DEFAULT_MAX_SECONDS: float = 600.0


def max_seconds() -> float:
    """Return the limit in force: ``LIMITS.max_seconds``, else the environment, else 600 s.

    Raises ``ValueError`` (naming the variable) for a value that is not a positive number.
    """
    if LIMITS.max_seconds is not None:
        return float(LIMITS.max_seconds)
    return _env_seconds("GENEXPY_NB_MAX_SECONDS", DEFAULT_MAX_SECONDS)


@contextlib.contextmanager
def allow_seconds(seconds: float) -> Iterator[Limits]:
    """Let analyses estimated to take up to ``seconds`` run inside a ``with`` block.

    ``math.inf`` lifts the limit. Not thread-safe (as :func:`force_route`).
    """
    value = float(seconds)
    if not value > 0:
        raise ValueError(f"seconds must be positive (or math.inf), got {seconds!r}.")
    old = LIMITS.max_seconds
    LIMITS.max_seconds = value
    try:
        yield LIMITS
    finally:
        LIMITS.max_seconds = old

#: the bounds that send every computation to its numba kernel, even on tiny inputs
_NUMBA_ROUTE = {"mallows_blas_max": -1, "mallows_levels_max": -1, "rbf_numpy_max": -1,
                "mmd_small_m": -1,
                "mmd_dense_fraction_small": 2.0, "mmd_dense_fraction_large": 2.0,
                "mmd_gather_max_work": -1, "pairs_bucket_min_work": 0,
                "grid_bucket_min_work": 0,
                "ks_numpy_max_work": -1, "kendall_numpy_max_work": -1,
                "aggregates_numpy_max_work": -1, "studentized_python_max_work": -1,
                "holm_numpy_max_work": -1, "plan_numpy_max_work": -1,
                "leaderboards_numpy_max_work": -1}
#: the bounds that keep every computation on NumPy wherever it has a NumPy path
_NUMPY_ROUTE = {"mallows_blas_max": math.inf, "mallows_levels_max": -1, "rbf_numpy_max": math.inf,
                "mmd_small_m": math.inf, "mmd_gather_max_work": math.inf,
                "pairs_bucket_min_work": math.inf, "grid_bucket_min_work": math.inf,
                "ks_numpy_max_work": math.inf,
                "kendall_numpy_max_work": math.inf, "aggregates_numpy_max_work": math.inf,
                "studentized_python_max_work": math.inf, "holm_numpy_max_work": math.inf,
                "plan_numpy_max_work": math.inf, "leaderboards_numpy_max_work": math.inf}


@contextlib.contextmanager
def force_route(route: str | None = None, **bounds: float) -> Iterator[Routes]:
    """Force a route for the duration of a ``with`` block, then restore the bounds.

    ``route="numba"`` sends every computation to its compiled kernel, even on tiny inputs
    (what :func:`genexpy_nb.example.precompile.precompile` needs); ``route="numpy"`` keeps every
    computation on NumPy where it has a NumPy path; ``bounds`` set single fields of
    :class:`Routes` by name (after ``route``). Not thread-safe: for tests, benchmarks and
    the precompilation, while nothing else runs.
    """
    presets = {None: {}, "numba": _NUMBA_ROUTE, "numpy": _NUMPY_ROUTE}
    if route not in presets:
        raise ValueError(f"route must be 'numba', 'numpy' or None, got {route!r}.")
    new = {**presets[route], **bounds}
    unknown = set(new) - {f.name for f in dataclasses.fields(Routes)}
    if unknown:
        raise ValueError(f"unknown route bound(s) {sorted(unknown)}.")
    old = {k: getattr(ROUTES, k) for k in new}
    try:
        for k, v in new.items():
            setattr(ROUTES, k, v)
        yield ROUTES
    finally:
        for k, v in old.items():
            setattr(ROUTES, k, v)
