"""The no-signal baseline and the band of its n*.

The baseline is the study with its scores exchanged among the alternatives within each
condition.

The analysis builds the baseline from :func:`exchange_permutations` (the permutations of
:func:`exchange_scores`), :func:`baseline_support` and :func:`count_differences` (the dense
path, up to :data:`NULL_DENSE_MAX` conditions), on the sizes :func:`null_sizes` keeps, and
reads its band with :func:`null_band`.
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import child_seed
from ..study.core import ConfigurationSample
from .interval import at_least_one, closed_form_log_sd, fit_se, ndtri
from .kernels import Kernel
from .mmd import kernel_support

#: level of the band [nstar_null_lo, nstar_null_hi] of the no-signal baseline
NULL_LEVEL: float = 0.99
#: key of the random streams of the no-signal baseline (the exchange of the scores, its
#: band): ``SeedSequence([seed, config_id, NULL_KEY, ...])``, apart from every other stream
NULL_KEY: int = 0x6E756C6C  # "null"
#: the band of the baseline is its own interval widened by this factor on the log scale:
#: it must hold the n* of a second study without signal, the user's, whose estimate varies
#: as much as the baseline's: the difference of two such estimates has sqrt(2) times the
#: spread of one
NULL_WIDEN: float = math.sqrt(2.0)
#: resamples of the conditions behind the sampling part of the band of the baseline
NULL_B: int = 100
#: a grid of at least this many sample sizes is thinned for the baseline to every other
#: size (the largest kept): half the cost, and the fitted line moves by less than 1 % on
#: average (0.2-0.6 % in simulated studies of N = 40 and 80, with a spread of 1-3 % that the
#: band's fit part covers)
NULL_THIN_FROM: int = 8


def null_sizes(k: int) -> np.ndarray:
    """Positions in a grid of ``k`` sizes that the baseline resamples."""
    if k < NULL_THIN_FROM:
        return np.arange(k)
    return np.arange(k - 1, -1, -2)[::-1]


def null_band(ns: np.ndarray, Q: np.ndarray, rows: np.ndarray, nst: np.ndarray,
              eps: np.ndarray, K: np.ndarray, counts: np.ndarray, alphas: np.ndarray,
              rng: np.random.Generator, level: float, joint: bool = True,
              pfit: tuple | None = None, widen: float = NULL_WIDEN
              ) -> tuple[np.ndarray, np.ndarray]:
    """``(nstar_null_lo, nstar_null_hi)``, each (A, d), around the baseline ``nst`` (A, d).

    On the log scale, ``log nst -/+ widen z sqrt(sd^2 + se^2)``: ``sd`` how much the
    closed-form n* moves when the conditions are resampled (:func:`closed_form_log_sd`,
    :data:`NULL_B` resamples), ``se`` the standard error of the fitted line at ``log eps*``
    (:func:`prediction_se`), ``z`` the normal quantile of ``level``: the sampling and the
    fit parts of the interval of n* (:func:`nstar_interval`), the first from fewer
    resamples, summarised by a standard deviation.
    """
    finite = np.isfinite(nst)
    if not finite.any():
        return np.full(nst.shape, np.nan), np.full(nst.shape, np.nan)
    se, degenerate = fit_se(ns, Q, rows, eps, nst.shape, joint, pfit)
    from .._numba import one_blas_thread  # many small products: one thread is faster

    with one_blas_thread():
        sd = closed_form_log_sd(K, counts, alphas, NULL_B, rng)
    z = float(ndtri(1.0 - (1.0 - level) / 2.0))
    fit = np.where(np.isfinite(se), se, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        w = widen * z * np.sqrt(sd[:, None] ** 2 + fit**2)
        lnst = np.log(nst)
        lo = np.where(finite, np.exp(lnst - w), np.nan)
        hi = np.where(finite, np.exp(lnst + w), np.nan)
    return at_least_one(lo, hi, nst, degenerate)


def exchange_permutations(sample: ConfigurationSample, seed: int) -> np.ndarray:
    """(N, na): row i is the order in which condition i's results are exchanged."""
    rng = child_seed(seed, sample.config_id, NULL_KEY)
    return np.argsort(rng.random(sample.rankings.shape), axis=1)


def exchange_scores(sample: ConfigurationSample, seed: int = 0) -> ConfigurationSample:
    """Exchange a configuration's results at random among the alternatives of each condition.

    No alternative is then systematically better: this is the no-signal baseline of
    :func:`~genexpy_nb.analyze` (column ``nstar_null``). Each condition gets its own
    uniformly random permutation of the alternatives, applied to its ranking, its scores
    and its imputed flags alike; the stream is ``SeedSequence([seed, config_id,
    NULL_KEY])``, so a configuration's exchange does not depend on the others.

    Parameters
    ----------
    sample : ConfigurationSample
        The observed results of one configuration (:meth:`Study.sample
        <genexpy_nb.Study.sample>`).
    seed : int
        Root of the random streams (default 0); the configuration's id selects its own
        stream.

    Returns
    -------
    ConfigurationSample
        A new sample with the same configuration id, levels, alternatives and conditions,
        whose rankings, scores and imputed flags are permuted within each condition.
    """
    P = exchange_permutations(sample, seed)

    def take(a):
        return np.ascontiguousarray(np.take_along_axis(np.asarray(a), P, axis=1))

    return ConfigurationSample(
        config_id=sample.config_id, levels=dict(sample.levels),
        alternatives=sample.alternatives, conditions=sample.conditions,
        rankings=take(sample.rankings), scores=take(sample.scores),
        imputed=take(sample.imputed))


#: up to this many conditions the baseline's MMD_n values come from the kernel matrices on
#: the conditions themselves, with the count differences of each pair shared by the kernels
NULL_DENSE_MAX: int = 128


def count_differences(IX: np.ndarray, IY: np.ndarray, N: int) -> np.ndarray:
    """(rep, N): +1 for each condition of the first sample of a pair, -1 of the second."""
    rep, n = IX.shape
    idx = np.concatenate((IX, IY), axis=1) + (np.arange(rep, dtype=np.int64) * N)[:, None]
    w = np.tile(np.concatenate((np.ones(n), -np.ones(n))), rep)
    return np.bincount(idx.ravel(), weights=w, minlength=rep * N).reshape(rep, N)


def baseline_support(kernel: Kernel, data: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return the support (K, inverse, counts) of the exchanged results.

    On the kernel's classes for kernels that merge results (Jaccard, Borda: few classes),
    on every condition for the others (Mallows, RBF: exchanged rows are almost never
    equal, so looking for equal rows costs more than it saves; a repeated row is a
    repeated support point, the same MMD).
    """
    if type(kernel)._class_key is not Kernel._class_key:
        return kernel_support(kernel, data)
    N = data.shape[0]
    return kernel.gram(data), np.arange(N, dtype=np.int64), np.ones(N, dtype=np.int64)
