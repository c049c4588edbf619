"""Compile the numerical kernels once, ahead of their first use.

Small and moderate work runs on NumPy and compiles nothing. Large work runs on numba
kernels: the kernel matrices and MMD values of large studies (hundreds of distinct
rankings), alpha-hat and trimmed-KS distances beyond a few hundred thousand sample
points (100 candidates against a pool of 100 models on 897 test points, say), and always
the stratified bootstrap of the robust aggregates, the Bayesian signed-rank test and the
studentized range of Nemenyi's test. numba compiles a kernel on its first call in a new
installation, then keeps it in its disk cache.
That first call pays numba's own start-up (its import and the initialisation of its
compiler) and the compiling itself: seconds, not milliseconds (the measurements are in
``benchmarks/README.md``).

Numba's start-up alone rules out a first compile under a second, so :func:`precompile`
moves the compiling to the installation. It runs every kernel once on tiny inputs, through
the same calls a real analysis makes, so that the cache holds the very signatures those
calls need. Binder runs it when it builds the image; after ``pip install``, run
``genexpy-nb precompile`` once. A later first call in any process then only loads the
kernel: numba's start-up and a few milliseconds.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator

import numpy as np
import polars as pl

from .. import config
from .._progress import tqdm


@contextlib.contextmanager
def kernel_routes() -> Iterator[None]:
    """Every size bound set so that the numba kernels run, even on tiny inputs.

    Not thread-safe: for :func:`precompile`, while nothing else runs analyses.
    """
    with config.force_route("numba"):
        yield


def _large_study() -> list:
    """n* of a tiny study on the kernels of large ones (every kernel, every method)."""
    from ..generalizability import analyze
    from ..generalizability.kernels import RBF, Borda, Jaccard, Mallows
    from ..study.core import Study

    rng = np.random.default_rng(0)
    N, na = 12, 70  # more than 64 alternatives: several words per bitset
    scores = rng.normal(size=na)[None, :] + rng.normal(size=(N, na))
    df = pl.DataFrame({"condition": np.repeat(np.arange(N), na).astype(str),
                       "alternative": np.tile([f"a{i}" for i in range(na)], N),
                       "score": scores.ravel()})
    study = Study(df, alternatives="alternative", target="score", generalize="condition",
                  higher_is_better=True)
    analyze(study, [Borda("a0"), Jaccard(1), Mallows(), RBF()], rep=4, progress=False)
    # the large-study path (a thinned grid, one batched kernel): matrix look-ups, Mallows
    # and RBF values on the fly, and the draws the tests compare with
    from ..generalizability import large

    with config.force_route(large_study_min_N=8, large_support_m=4, large_matrix_m=4):
        analyze(study, [Borda("a0"), Jaccard(1), Mallows(), RBF()], rep=4, progress=False)
    large.large_pairs(N, np.array([2, 4]), 2, 0)
    from .._numba import core
    from .._numba import large as kl

    return [core.above_bitsets, core.popcount_gram, core.rbf_rows, core.mmd_rows,
            core.first_order, kl.mmd_units, kl.draw_units]


def _variability() -> list:
    """alpha-hat, the trimming curve and the trimmed KS distances on the kernel."""
    from .. import variability as vb

    rng = np.random.default_rng(0)
    ref, cand = rng.normal(size=(3, 40)), rng.normal(size=(2, 40))
    vb.alpha_hat(ref, cand, B=2, progress=False)
    vb.trimming_curve(ref, cand, B=2, progress=False)
    vb.ks_to_reference(ref, cand, alpha=[0.0, 0.1])
    vb.trimmed_ks(ref[0], cand[0], 0.05)
    from .._numba import variability as kv

    return [kv.trimmed_ks_kernel]


def _rankings() -> list:
    """All rankings with ties of a few items, and uniform draws from them."""
    from ..generalizability import distributions as ds

    ds.weak_orders(3)
    ds.sample_uniform_rankings(5, 3, seed=0, method="recursive")
    from .._numba import distributions as kd

    return [kd._enumerate_weak_orders, kd._sample_weak_orders]


def _report() -> list:
    """Run the report's bootstrap (the task bootstrap) and Nemenyi's studentized range."""
    from .. import aggregates as ag
    from .. import significance as sig

    rng = np.random.default_rng(0)
    ag.interval_estimates({"a": rng.random((1, 9)), "b": rng.random((1, 9))}, reps=4, seed=0,
                          progress=False, task_bootstrap=True)
    sig.posthoc_nemenyi(rng.random((4, 3)), higher_is_better=True)
    from .._numba import aggregates as ka
    from .._numba import studentized as ks

    return [ka.bootstrap_aggregates, ks.range_sf]


def _beyond_pvalues() -> list:
    """Run the rliable-style aggregates, their profiles and the Bayesian signed-rank test."""
    from .. import aggregates as ag
    from .. import significance as sig

    rng = np.random.default_rng(0)
    runs = {"a": rng.random((3, 4)), "b": rng.random((3, 4))}  # runs x tasks per method
    ag.interval_estimates(runs, reps=4, seed=0, progress=False)
    ag.probability_of_improvement(runs, reps=4, seed=0, progress=False)
    ag.performance_profile(runs, [0.25, 0.5], reps=4, seed=0, progress=False)
    x = rng.random(6)
    sig.bayesian_signed_rank(x, x + rng.normal(0, 0.1, 6), rope=0.01, higher_is_better=True,
                             nsamples=8, seed=0)
    from .._numba import aggregates as ka
    from .._numba import bayesian as kb

    return [ka.batch_aggregates, ka.improvement_replicates, ka.profile_replicates,
            kb.signed_rank_samples]


def _conclusions() -> list:
    """Run the order conclusion's Kendall agreement (gx.conclusions)."""
    from .._numba import conclusions as kc

    return kc.signatures()


def _plan() -> list:
    """Run the plan's kernels (gx.conclusions' "needs k more", both modes)."""
    from .._numba import assurance as ka

    return ka.signatures()


def _leaderboards() -> list:
    """Run the rank sets, the tiers' plan and a Bradley-Terry bootstrap on tiny inputs."""
    from ..leaderboards import bradley_terry, tiers
    from ..study import Study

    rng = np.random.default_rng(0)
    x = rng.random((6, 3))
    df = pl.DataFrame({"d": np.repeat([f"d{i}" for i in range(6)], 3).tolist(),
                       "m": ["a", "b", "c"] * 6, "s": x.ravel()})
    study = Study(df, alternatives="m", target="s", generalize="d", higher_is_better=True)
    tiers(study, reps=100, draws=100, max_more=2, progress=False)
    log = pl.DataFrame({"model_a": ["a", "a", "b", "b", "c", "c"] * 2,
                        "model_b": ["b", "c", "c", "a", "a", "b"] * 2,
                        "winner": ["model_a", "model_b", "tie"] * 4})
    bradley_terry(log, reps=100, min_battles=1, progress=False)
    from .._numba import leaderboards as kl
    from ..leaderboards._stepdown import cuts_held

    # the plan's cuts (tiny studies may leave no cut to plan)
    cuts_held(np.zeros((1, 3), np.int8), np.array([0, 0, 1]), np.array([1, 2, 2]))

    return [kl.stepdown_rows, kl.cuts_held, kl.bt_fit_rows]


#: the groups of kernels: name, how to run them, and whether the default pipeline (the
#: report, nstar, compare and seeds commands and the functions behind them) calls them;
#: the others compile on their first use, or with ``precompile(everything=True)``
_STEPS: tuple[tuple[str, Callable[[], list], bool], ...] = (
    ("n* of large studies", _large_study, True),
    ("conclusions: the order", _conclusions, True),
    ("conclusions: the plan", _plan, True),
    ("the report's bootstrap, Nemenyi", _report, True),
    ("alpha-hat and trimmed KS", _variability, True),
    ("aggregates, Bayesian tests", _beyond_pvalues, False),
    ("rankings with ties", _rankings, False),
    ("leaderboards: rank sets, tiers, Bradley-Terry", _leaderboards, True),
)


def precompile(progress: bool = True, everything: bool = False) -> pl.DataFrame:
    """Compile the numerical kernels into numba's disk cache (once per installation).

    By default the kernels the package's default pipeline calls (the report, ``nstar``,
    ``compare``, ``seeds`` and the functions behind them: large studies' n*, the order's
    agreement, the task bootstrap, Nemenyi's studentized range, alpha-hat); the others
    (the rliable-style aggregates without the task bootstrap and their profiles, the
    Bayesian signed-rank test, the rankings with ties of the simulations) compile on their
    first use, with a note, or here with ``everything=True``.

    Parameters
    ----------
    progress : bool, default True
        A progress bar over the groups of kernels.
    everything : bool, default False
        Every kernel, the ones nothing calls by default too.

    Returns
    -------
    polars.DataFrame, one row per group of kernels: ``kernels``, ``functions``,
    ``compiled`` (signatures compiled in this process), ``from_cache`` (signatures loaded
    from the disk cache, compiled by an earlier run) and ``seconds``.

    Notes
    -----
    A run in a new process after a first one finds everything in the cache and only loads
    it. The cache is in the user's cache folder, not in the installed package
    (:func:`genexpy_nb.config.numba_cache_dir` says where and why; numba's
    ``NUMBA_CACHE_DIR`` chooses another). With numba's cache switched off
    (``GENEXPY_NB_NUMBA_CACHE=0``) nothing is kept for later processes.
    """
    from .. import _numba

    _numba._NOTED = True  # the progress bar says what is happening: no "compiling" note
    rows = []
    with kernel_routes():
        steps = [(what, step) for what, step, default in _STEPS if default or everything]
        for what, step in tqdm(steps, disable=not progress, desc="compiling kernels",
                               unit="group"):
            t = time.perf_counter()
            funcs = step()
            secs = time.perf_counter() - t
            rows.append({"kernels": what, "functions": len(funcs),
                         "compiled": sum(_count(f, "cache_misses") for f in funcs),
                         "from_cache": sum(_count(f, "cache_hits") for f in funcs),
                         "seconds": round(secs, 2)})
    return pl.DataFrame(rows)


def _count(dispatcher, what: str) -> int:
    """Count the signatures of a numba function compiled or loaded from the disk cache.

    ``what`` is ``cache_misses`` (compiled) or ``cache_hits`` (loaded), in this process so
    far.
    """
    return sum(getattr(dispatcher.stats, what).values())
