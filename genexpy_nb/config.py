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
    #: numba kernel (its first call in a process loads numba and the kernel, about 1 s)
    aggregates_numpy_max_work: float = 2.5e7
    #: rank sets, tiers: up to this much work (data sets x bootstrap draws x pairs) the
    #: step-down test scans every hypothesis with NumPy; beyond, the numba kernel (the same
    #: rejections; it walks each draw's largest statistics instead of all pairs)
    leaderboards_numpy_max_work: float = 2e7
    #: numba kernels: below this many basic operations a call runs on the calling thread (a
    #: thread pool costs tens of microseconds)
    parallel_min_work: float = 2_000_000
    #: n* analysis: configurations with more conditions than this take the large-study path
    #: (a thinned grid of sample sizes, one batched kernel; see
    #: ``genexpy_nb.generalizability.large``). Unlike the bounds above this one changes the
    #: numbers (other draws, fewer sizes): at or below it every output is the paper's
    large_study_min_N: float = 1000
    #: large-study path: supports up to this many distinct results keep their kernel matrix
    #: (and the closed forms their exact support); beyond, kernel values are computed on the
    #: fly and the closed-form parts use a seeded subsample of this many conditions
    large_support_m: float = 2000
    #: large-study path: RBF supports up to this many distinct results keep their matrix
    #: (288 MB at 6,000; an exponential per value on the fly is 5x slower than a look-up);
    #: Mallows values on the fly are as fast as a look-up, from ``large_support_m`` on
    large_rbf_matrix_m: float = 6000


#: the routes in force (see :class:`Routes` and :func:`force_route`)
ROUTES = Routes()

#: the bounds that send every computation to its numba kernel, even on tiny inputs
_NUMBA_ROUTE = {"mallows_blas_max": -1, "rbf_numpy_max": -1, "mmd_small_m": -1,
                "mmd_dense_fraction_small": 2.0, "mmd_dense_fraction_large": 2.0,
                "mmd_gather_max_work": -1, "pairs_bucket_min_work": 0,
                "ks_numpy_max_work": -1, "kendall_numpy_max_work": -1,
                "aggregates_numpy_max_work": -1, "holm_numpy_max_work": -1,
                "plan_numpy_max_work": -1, "leaderboards_numpy_max_work": -1}
#: the bounds that keep every computation on NumPy wherever it has a NumPy path
_NUMPY_ROUTE = {"mallows_blas_max": math.inf, "rbf_numpy_max": math.inf,
                "mmd_small_m": math.inf, "mmd_gather_max_work": math.inf,
                "pairs_bucket_min_work": math.inf, "ks_numpy_max_work": math.inf,
                "kendall_numpy_max_work": math.inf, "aggregates_numpy_max_work": math.inf,
                "holm_numpy_max_work": math.inf, "plan_numpy_max_work": math.inf,
                "leaderboards_numpy_max_work": math.inf}


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
