"""Rank sets: the places each alternative can hold, for the whole board at once (SPEC A16).

The ranked quantity is the study's own: the population mean of the within-condition
midranks (rank 1 = best; the study's direction, tie tolerance and missing-results policy,
as :func:`genexpy_nb.conclusions` and the critical-difference diagram). An alternative's
**true place** is 1 + the number of alternatives whose population mean rank is strictly
better (tied alternatives share the best of their places).

Mogstad, Romano, Shaikh & Wilhelm (2023, "Inference for ranks", Review of Economic Studies
91(1), Sec. 3) build place sets from simultaneous tests of all pairwise differences: with
probability at least ``level`` no alternative is declared ahead of one it is not truly
ahead of, so the sets ``[1 + #shown ahead of a, K - #shown behind a]`` cover the true
places of **all** alternatives at once. The test is the max-t step-down procedure over every
ordered pair, its critical values from a bootstrap over the conditions (the resampling
unit), the studentisation in every replicate and the moderated variances described in
``genexpy_nb.leaderboards._stepdown``. The R package csranks (Wilhelm & Morgen) implements
the same sets from estimates and their covariance; here the covariance is the conditions'
own and the bootstrap resamples them.

``simultaneous=False`` gives **marginal** sets (Sec. 3.1 of the paper): each covers its own
alternative's place with probability ``level``, one at a time (narrower; on a board of many
alternatives several are wrong at once). **Tiers** are the groups between the cuts after
place p where every alternative of the first p is shown ahead of every alternative below;
the set of alternatives that can be among the best k (the paper's "tau-best", Sec. 4) are
those with ``rank_lo <= k``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from .. import config
from .._validation import (
    GenexpyInputError,
    axis_length,
    check_memory,
    check_positive_int,
    check_probability,
    child_seed,
    root_seed,
)
from ._stepdown import ahead_matrix, marginal_places, places, stepdown, tier_numbers

__all__ = ["rank_sets"]

#: bootstrap replicates of the conditions: the critical value's Monte Carlo error is then
#: a few hundredths of a standard error
REPS = 2000
#: at most this many replicates (more only costs time)
MAX_REPS = 100_000
#: prior degrees of freedom of the moderated variances (see ``_stepdown``)
NU0 = 1.0
#: replicates per block of the draws' kernel on threads (each element is computed alone, so
#: the split changes no bit; fixed blocks all the same)
_DRAW_ROWS = 250


@dataclass
class Family:
    """One configuration's family of pairwise comparisons (arrays for the tiers' plan).

    ``x``: (N, K) midranks; ``theta``: (K,) mean ranks; ``iu``, ``ju``: the pairs (i < j);
    ``d``: mean-rank differences ``theta_i - theta_j``; ``var``: variance of the
    per-condition difference (0 where constant); ``var0``: their mean (the moderation's
    prior); ``Z``: the observed studentised statistics; ``G``: (B, P) bootstrap draws;
    ``rej``: the simultaneous rejections; ``order``: the alternatives best first.
    """

    alternatives: tuple[str, ...]
    x: np.ndarray
    theta: np.ndarray
    iu: np.ndarray
    ju: np.ndarray
    d: np.ndarray
    var: np.ndarray
    var0: float
    Z: np.ndarray
    G: np.ndarray
    rej: np.ndarray
    order: np.ndarray
    level: float

    N = axis_length("x", 0, "The number of conditions.")
    K = axis_length("x", 1, "The number of alternatives.")


def doubled_midranks(tiers: np.ndarray) -> np.ndarray:
    """Twice the midrank (1 = best) of every alternative in every condition, as integers.

    Parameters
    ----------
    tiers : numpy.ndarray
        (N, K) dense tiers of each condition, 0 = best (a study's ``rankings``).

    Returns
    -------
    numpy.ndarray
        (N, K) int64: ``2 #(better) + #(tied, itself included) + 1``.
    """
    t = np.asarray(tiers)
    N, K = t.shape
    out = np.empty((N, K), dtype=np.int64)
    step = max(1, 4_000_000 // max(1, K * K))
    for s in range(0, N, step):  # in blocks: (rows, K, K) temporaries
        b = t[s: s + step]
        less = (b[:, None, :] < b[:, :, None]).sum(axis=2)
        eq = (b[:, None, :] == b[:, :, None]).sum(axis=2)
        out[s: s + step] = 2 * less + eq + 1
    return out


def pair_moments(mr2: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                           np.ndarray, np.ndarray]:
    """Mean ranks, and per pair the mean difference and the variance of the per-condition one.

    Exact on the integer doubled midranks (sums of products below 2**53 through BLAS): a
    pair whose difference is the same in every condition has variance exactly 0.

    Returns
    -------
    theta, iu, ju, d, var
        (K,) mean ranks; the pairs i < j; ``theta_i - theta_j``; the sample variance of the
        per-condition difference (ddof 1; 0 with one condition).
    """
    N, K = mr2.shape
    xf = mr2.astype(np.float64)
    s1 = np.rint(xf.sum(axis=0)).astype(np.int64)
    s2 = np.rint(xf.T @ xf).astype(np.int64)
    iu, ju = np.triu_indices(K, k=1)
    sd1 = s1[iu] - s1[ju]
    sd2 = s2[iu, iu] + s2[ju, ju] - 2 * s2[iu, ju]
    num = N * sd2 - sd1 * sd1  # N (N - 1) var of the doubled difference, exactly
    var = num.astype(np.float64) / (4.0 * max(N * (N - 1), 1))
    theta = s1 / (2.0 * N)
    return theta, iu, ju, sd1 / (2.0 * N), var


def moderated(var: np.ndarray, var0: Any, df: float) -> np.ndarray:
    """Moderated variances: ``(df var + NU0 var0) / (df + NU0)`` (Smyth 2004)."""
    return (df * var + NU0 * var0) / (df + NU0)


def studentised(d: np.ndarray, var: np.ndarray, n: float) -> np.ndarray:
    """``d / sqrt(var / n)``: ±inf where the variance is 0 and d is not, 0 where both are."""
    with np.errstate(divide="ignore", invalid="ignore"):
        t = d / np.sqrt(var / n)
    return np.where(var > 0, t, np.where(d > 0, np.inf, np.where(d < 0, -np.inf, 0.0)))


def bootstrap_draws(x: np.ndarray, iu: np.ndarray, ju: np.ndarray, d: np.ndarray,
                    var0: float, reps: int, rng: np.random.Generator) -> np.ndarray:
    """Centred, studentised bootstrap draws over the conditions (rows of x).

    In each replicate (conditions drawn with replacement), every pair's mean difference
    ``d*`` and the variance of its per-condition difference moderated toward ``var0`` (the
    data's mean variance of the pairs, held fixed: a replicate that draws only conditions
    in which nothing varies keeps finite statistics):
    ``G[b, p] = (d*_p - d_p) / sqrt(s~*_p^2 / N)``. ``x`` holds midranks (multiples of
    1/2, at most K): the compiled route relies on its products being exact.

    Returns
    -------
    numpy.ndarray
        (reps, P) float32.
    """
    N, K = x.shape
    P = iu.size
    G = np.empty((reps, P), dtype=np.float32)
    block = max(1, min(reps, 2_000_000 // max(1, N)))
    pblock = max(1, 4_000_000 // max(1, N + block))
    from .._numba import numpy_route

    # the kernel once numba is loaded, unless the NumPy route is forced (an infinite bound)
    if not numpy_route(float(reps) * P, config.ROUTES.leaderboards_numpy_max_work):
        _draws_kernel(x, iu, ju, d, var0, rng, G, block, pblock)
        return G
    for done, b, W, m1, cols, D in _blocks(x, iu, ju, reps, block, pblock, rng):
        e1 = m1[:, iu[cols]] - m1[:, ju[cols]]
        v = np.maximum(W @ (D * D) / N - e1 * e1, 0.0) * (N / max(N - 1, 1))
        G[done: done + b, cols] = studentised(e1 - d[cols], moderated(v, var0, N - 1), N)
    return G


def _blocks(x: np.ndarray, iu: np.ndarray, ju: np.ndarray, reps: int, block: int,
            pblock: int, rng: np.random.Generator):
    """Yield the draws' blocks in order: (first row, rows, counts W, ``W x / N``, pairs, D).

    Each block of ``block`` replicates draws the conditions with replacement (their counts
    W, (b, N)); each block of ``pblock`` pairs gives the per-condition differences D.
    """
    N = x.shape[0]
    P = iu.size
    done = 0
    while done < reps:
        b = min(block, reps - done)
        idx = rng.integers(0, N, size=(b, N))
        W = np.bincount((idx + N * np.arange(b)[:, None]).ravel(),
                        minlength=b * N).reshape(b, N).astype(np.float64)
        m1 = W @ x / N
        for s in range(0, P, pblock):
            cols = slice(s, min(P, s + pblock))
            yield done, b, W, m1, cols, x[:, iu[cols]] - x[:, ju[cols]]
        done += b


def _draws_kernel(x: np.ndarray, iu: np.ndarray, ju: np.ndarray, d: np.ndarray,
                  var0: float, rng: np.random.Generator, G: np.ndarray, block: int,
                  pblock: int) -> None:
    """Write the draws of ``bootstrap_draws`` into ``G`` with the numba kernel, its bits.

    The same replicates (the same stream, in the same blocks) and the same arithmetic; each
    block of pairs in fixed blocks of ``_DRAW_ROWS`` replicates on threads, each block its
    own product of the counts and the squared differences (one BLAS thread each: on a busy
    machine a multi-threaded BLAS stalls on products this small) and the kernel on it. The
    products are exact whatever their shape or order of summation (counts times squared
    differences of midranks: multiples of 1/4 far below 2**53), as is ``W @ x`` before its
    division, and the kernel computes each element alone: the same bits at any thread
    count and in any blocks.
    """
    from .._numba import one_blas_thread, run_blocks
    from .._numba.leaderboards import studentised_draws

    N = x.shape[0]
    reps, P = G.shape
    # one buffer for every block's products, each block of rows its own contiguous part (a
    # fresh array per block would cost its page faults every time)
    buf = np.empty(min(block, reps) * min(pblock, P))
    with one_blas_thread():
        for done, b, W, m1, cols, D in _blocks(x, iu, ju, reps, block, pblock, rng):
            DD = D * D
            w = DD.shape[1]

            def rows(r0: int, r1: int, W=W, m1=m1, DD=DD, w=w, cols=cols,
                     out=G[done: done + b]) -> None:
                M2 = np.matmul(W[r0:r1], DD, out=buf[r0 * w: r1 * w].reshape(r1 - r0, w))
                studentised_draws(M2, m1[r0:r1], iu[cols], ju[cols], d[cols], var0, N,
                                  out[r0:r1], cols.start, 0, r1 - r0)

            run_blocks(rows, b, work=float(b) * w * (2 * N + 10), block_rows=_DRAW_ROWS)


def family(sample: Any, *, level: float, reps: int, rng: np.random.Generator) -> Family:
    """Build one configuration's family and run its simultaneous test.

    Parameters
    ----------
    sample : ConfigurationSample
        The configuration (its ``rankings``: dense tiers, the study's policies applied).
    level : float
        The family's level.
    reps : int
        Bootstrap replicates of the conditions.
    rng : numpy.random.Generator
        The stream of the bootstrap.

    Returns
    -------
    Family
    """
    mr2 = doubled_midranks(np.asarray(sample.rankings))
    N, K = mr2.shape
    theta, iu, ju, d, var = pair_moments(mr2)
    order = np.argsort(theta, kind="stable")
    x = mr2 / 2.0
    P = iu.size
    var0 = float(var.mean()) if P else 0.0
    if N < 2 or K < 2:  # nothing can be shown: every pair stands
        return Family(tuple(sample.alternatives), x, theta, iu, ju, d, var, var0,
                      np.zeros(P), np.zeros((1, P), np.float32), np.zeros(P, np.int8), order,
                      level)
    T = studentised(d, moderated(var, var0, N - 1), N)
    G = bootstrap_draws(x, iu, ju, d, var0, reps, rng)
    rej = stepdown(T, G, level)
    return Family(tuple(sample.alternatives), x, theta, iu, ju, d, var, var0, T, G, rej,
                  order, level)


def marginal_rejections(fam: Family) -> tuple[np.ndarray, np.ndarray]:
    """Marginal place sets: each alternative's own family of 2 (K - 1) hypotheses.

    Returns
    -------
    lo, hi : numpy.ndarray
        (K,) places.
    """
    if fam.N < 2:
        return np.ones(fam.K, dtype=np.int64), np.full(fam.K, fam.K, dtype=np.int64)
    return marginal_places(fam.iu, fam.ju, fam.Z, fam.G, fam.level, fam.K)


def tiers_of(fam: Family) -> np.ndarray:
    """Tier of each alternative (1 = the top tier) from the simultaneous rejections."""
    return tier_numbers(fam.rej, fam.iu, fam.ju, fam.K, fam.order)


def observed_places(theta: np.ndarray) -> np.ndarray:
    """1 + the number of alternatives with a strictly better (lower) mean rank."""
    return 1 + (theta[None, :] < theta[:, None]).sum(axis=1)


def check_reps(reps: Any, K: int, N: int) -> int:
    """Check the bootstrap replicates, and that their draws fit in memory."""
    reps = check_positive_int("reps", reps, minimum=100)
    if reps > MAX_REPS:
        raise GenexpyInputError(f"reps={reps:,} is more than {MAX_REPS:,} bootstrap replicates; "
                                f"use reps={REPS} (the default) to {MAX_REPS:,}.")
    P = K * (K - 1) // 2
    return check_memory("reps", reps, per_unit=4.0 * P + 8.0 * 2 * (N + K),
                        fixed=8.0 * (N * K + 4 * P), minimum=100,
                        what=f"the bootstrap draws of {P:,} pairs of alternatives")


def samples_of(study: Any, config_id: Any, func: str) -> list[Any]:
    """Return the configurations to analyse: one (``config_id``) or all."""
    if not hasattr(study, "samples") or not hasattr(study, "sample"):
        raise GenexpyInputError(
            f"{func} takes a genexpy_nb.Study; build one with gx.Study(df, alternatives=..., "
            "target=..., generalize=..., higher_is_better=...).")
    if config_id is not None:
        return [study.sample(config_id)]
    return list(study.samples())


def head_frame(study: Any, ids: Sequence[int]) -> pl.DataFrame:
    """``config_id`` and the design factors of each row."""
    conf = study.configurations.select("config_id", *study.design)
    frame = pl.DataFrame({"config_id": list(ids)}, schema={"config_id": conf.schema["config_id"]})
    return frame.join(conf, on="config_id", how="left", maintain_order="left")


def rank_sets(
    study: Any,
    *,
    level: float = 0.95,
    simultaneous: bool = True,
    reps: int = REPS,
    seed: Any = 0,
    top_k: int | None = None,
    config_id: Any = None,
    progress: bool = True,
) -> pl.DataFrame:
    """Say which places each alternative can hold, with a guarantee for the whole board.

    The ranked quantity is the population mean of the within-condition midranks (the
    study's direction, tie tolerance and missing-results policy; rank 1 = best). The sets
    come from simultaneous tests of all pairwise differences (a max-t step-down test, its
    critical values from a bootstrap over the conditions; Mogstad, Romano, Shaikh & Wilhelm
    2023): with probability at least ``level`` every alternative's true place lies in its
    set, all at once. See the module notes for the definitions.

    Parameters
    ----------
    study : Study
        The study (its rankings as they are: direction, tie tolerances, missing results).
    level : float
        Probability that the sets cover all true places at once (default 0.95); with
        ``simultaneous=False``, that each set covers its own alternative's place.
    simultaneous : bool
        True (default): sets that hold jointly, and the tiers they induce. False: marginal
        sets, one alternative at a time (no tiers: a tier is a joint statement).
    reps : int
        Bootstrap replicates of the conditions (default 2000, at least 100).
    seed : int or numpy.random.Generator
        Seed of the bootstrap; the same seed gives the same frame, bit for bit. Each
        configuration draws from its own stream of (seed, configuration id).
    top_k : int, optional
        Also say which alternatives can be among the best k (column ``can_be_top_k``: the
        set that contains all of the true best k with probability ``level``, Sec. 4 of the
        paper, simultaneous sets only).
    config_id : int, dict or tuple, optional
        One configuration only; default all.
    progress : bool
        Show a progress bar over the configurations (when there are several).

    Returns
    -------
    polars.DataFrame
        One row per (configuration, alternative), best mean rank first: ``config_id``, the
        design factors, ``alternative``, ``mean_rank``, ``place`` (1 + the number with a
        strictly better mean rank), ``rank_lo``, ``rank_hi`` (the set of places),
        ``tier`` (1 = top; null with ``simultaneous=False``), ``can_be_top_k`` and
        ``top_k`` (with ``top_k``), ``N`` (conditions), ``level``, ``simultaneous``.

    Examples
    --------
    >>> import polars as pl, genexpy_nb as gx
    >>> rows = [(f"d{i}", m, s + 0.01 * ((7 * i + j) % 5))
    ...         for i in range(30) for j, (m, s) in enumerate([("a", 0.9), ("b", 0.7),
    ...                                                        ("c", 0.69)])]
    >>> df = pl.DataFrame(rows, schema=["dataset", "model", "acc"], orient="row")
    >>> study = gx.Study(df, alternatives="model", target="acc", generalize="dataset",
    ...                  higher_is_better=True)
    >>> sets = gx.rank_sets(study, reps=500)
    >>> sets.select("alternative", "rank_lo", "rank_hi", "tier").rows()
    [('a', 1, 1, 1), ('b', 2, 3, 2), ('c', 2, 3, 2)]
    """
    level = check_probability("level", level)
    if not isinstance(simultaneous, (bool, np.bool_)):
        raise GenexpyInputError(f"simultaneous must be True or False, got {simultaneous!r}.")
    if top_k is not None:
        top_k = check_positive_int("top_k", top_k)
        if not simultaneous:
            raise GenexpyInputError("top_k needs simultaneous=True: the set of the best k is a "
                                    "statement about several alternatives at once.")
    root = root_seed(seed)
    samples = samples_of(study, config_id, "rank_sets")
    for s in samples:
        check_reps(reps, s.na, s.N)
    from .._progress import tqdm

    frames, ids = [], []
    for s in tqdm(samples, desc="rank sets", unit="config",
                  disable=not progress or len(samples) < 2, leave=False):
        fam = family(s, level=level, reps=int(reps), rng=child_seed(root, s.config_id))
        frames.append(_frame(fam, simultaneous=bool(simultaneous), top_k=top_k))
        ids.extend([s.config_id] * s.na)
    body = pl.concat(frames) if frames else _frame(None, simultaneous=True, top_k=top_k)
    return pl.concat([head_frame(study, ids), body], how="horizontal")


def _frame(fam: Family | None, *, simultaneous: bool, top_k: int | None) -> pl.DataFrame:
    schema: dict[str, Any] = {"alternative": pl.String, "mean_rank": pl.Float64,
                              "place": pl.Int64, "rank_lo": pl.Int64, "rank_hi": pl.Int64,
                              "tier": pl.Int64}
    if top_k is not None:
        schema.update({"can_be_top_k": pl.Boolean, "top_k": pl.Int64})
    schema.update({"N": pl.Int64, "level": pl.Float64, "simultaneous": pl.Boolean})
    if fam is None:
        return pl.DataFrame(schema=schema)
    K, o = fam.K, fam.order
    if simultaneous:
        lo, hi = places(ahead_matrix(fam.rej, fam.iu, fam.ju, K))
        tier: list[Any] = tiers_of(fam)[o].tolist()
    else:
        lo, hi = marginal_rejections(fam)
        tier = [None] * K
    cols: dict[str, Any] = {
        "alternative": [fam.alternatives[i] for i in o], "mean_rank": fam.theta[o],
        "place": observed_places(fam.theta)[o], "rank_lo": lo[o], "rank_hi": hi[o],
        "tier": tier}
    if top_k is not None:
        cols["can_be_top_k"] = (lo[o] <= top_k).tolist()
        cols["top_k"] = [top_k] * K
    cols.update({"N": [fam.N] * K, "level": [fam.level] * K,
                 "simultaneous": [simultaneous] * K})
    return pl.DataFrame(cols, schema=schema)
