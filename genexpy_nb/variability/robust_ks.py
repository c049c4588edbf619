"""The trimmed (robust) Kolmogorov-Smirnov test and the trimming level alpha-hat.

Robust-KS paper, Sections III-C and IV-A.

References
----------
del Barrio, Inouzhe & Matrán (2020), "On approximate validation of models: a
Kolmogorov-Smirnov-based approach" (trimmed KS distance); the robust-KS paper on training
variability over random seeds, Section III-C, Algorithm 1 and Appendix B-B.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from .. import config
from .._cluster import as_client, chunks, map_ordered, total_threads
from .._progress import tqdm
from .._validation import GenexpyInputError, check_memory, check_positive_int, rng_from_seed
from ._checks import (
    as_candidates,
    as_gaps,
    as_labels,
    as_pool,
    check_alpha,
    check_clip,
    check_eps,
    check_grid,
)
from ._ks_rows import _buffers, _ks_rows, _upper_counts
from ._streamed import streamed, streams

#: number of progress-bar steps over the candidates (each step is one parallel kernel call)
_PROGRESS_STEPS = 20


def trimmed_ks(x_ref: Any, x_cand: Any, alpha: float | Any = 0.0) -> float | np.ndarray:
    """Trimmed Kolmogorov-Smirnov distance ``d_alpha(F0, Fn)`` (robust-KS paper Sec. III-C).

    The smallest KS distance between the reference ``F0`` (eCDF of ``x_ref``, linearly
    interpolated between its order statistics) and an alpha-trimming of the candidate eCDF
    ``Fn`` (a reweighting of ``x_cand`` that down-weights at most a fraction alpha of it).
    ``d_0`` is the plain KS distance; ``d_alpha`` is non-increasing in alpha.

    Parameters
    ----------
    x_ref : array_like, shape (m,)
        Reference sample (already clipped, see :func:`~genexpy_nb.variability.clip_gaps`).
    x_cand : array_like, shape (n,)
        Candidate sample.
    alpha : float or array_like of float in [0, 1), default 0
        Trimming level(s). An array is served by one sort (O(P log P) + O(P) per alpha,
        P = m + n).

    Returns
    -------
    float or numpy.ndarray
        The trimmed KS distance in [0, 1]: a float for a scalar ``alpha``, else one per
        value of ``alpha``.

    Notes
    -----
    With ``z_1 <= ... <= z_P`` the pooled sorted sample, ``s = 1/(1-alpha)``,
    ``U_i = F0(z_i) - s Fn(z_{i-1})``, ``D_i = F0(z_i) - s Fn(z_i)``,
    ``up[j] = max(U_{j+1..P})`` (``up[P] = -alpha s``), ``lo[j] = min(D_1..j)``
    (``lo[0] = 0``), ``h[j] = clip((up[j] + lo[j]) / 2, -alpha s, 0)``:
    ``d_alpha = max(max_i U_i - h[i-1], max_i h[i] - D_i)``. The published reference code
    (``calc_trimdk``) evaluates the same formula in O(P^2).

    ``F0`` is continuous except at the smallest reference value ``r_(1)``, where it jumps
    from 0; ``U_i`` compares ``F0(z_i)`` with the candidate's left limit, so ``d_0`` is the
    sup distance ``sup_v |F0(v) - Fn(v)|`` unless candidate values tie with ``r_(1)`` (then
    it is ``max(sup, F0(r_(1)) - Fn(r_(1)-))``, as in the reference code). Atoms in the
    reference (ties, clipped values) are smeared by the interpolation: see
    :func:`~genexpy_nb.variability.clip_gaps`.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> d = trimmed_ks(rng.normal(size=500), rng.normal(0.5, 1, size=500), [0.0, 0.2])
    >>> bool(d[0] >= d[1])
    True
    """
    r = as_gaps("x_ref", x_ref, ndim=(1,))
    x = as_gaps("x_cand", x_cand, ndim=(1,))
    alphas = check_alpha(alpha)
    out = _ks_rows(r, x[None, :], alphas)[0]
    return float(out[0]) if np.ndim(alpha) == 0 else out


def dkw_threshold(m: int, eps: float = config.DKW_EPS) -> float:
    """Compute the two-sample DKW threshold ``tau = sqrt(log(2/eps) / m) + 1/m``.

    Robust-KS paper, Section III-C.

    Parameters
    ----------
    m : int
        Size of the reference sample.
    eps : float in (0, 1), default ``config.DKW_EPS`` (0.01)
        Error probability.

    Returns
    -------
    float
        tau, in units of KS distance (a candidate whose trimmed KS distance to the
        reference is at most tau is accepted).

    Examples
    --------
    >>> round(dkw_threshold(100, 0.01), 4)
    0.2402
    """
    mm = check_positive_int("m", m)
    e = check_eps(eps)
    return math.sqrt(math.log(2.0 / e) / mm) + 1.0 / mm


def min_reference_size(eps: float = config.DKW_EPS) -> int:
    """Return the smallest reference sample size m whose DKW threshold is below 1.

    A KS distance never exceeds 1, so with a smaller m (``tau >= 1``) the robust KS test
    accepts every candidate, however different: 8 at eps = 0.01 (tau = 0.94; tau = 1.01
    at m = 7). alpha-hat uses m = T // 2, so it needs ``T >= 2 * min_reference_size(eps)``
    test points (16 at eps = 0.01).

    Parameters
    ----------
    eps : float in (0, 1), default ``config.DKW_EPS`` (0.01)
        Error probability of the DKW threshold.

    Returns
    -------
    int
        The smallest m with ``dkw_threshold(m, eps) < 1``.

    Examples
    --------
    >>> min_reference_size(0.01), min_reference_size(0.05)
    (8, 6)
    """
    e = check_eps(eps)
    m = max(1, math.ceil(math.log(2.0 / e)))  # tau > sqrt(log(2/e)/m) >= 1 below this
    while math.sqrt(math.log(2.0 / e) / m) + 1.0 / m >= 1.0:
        m += 1
    return m


def _check_can_reject(m: int, eps: float, what: str, test_points: bool = False) -> None:
    """Refuse a reference sample too small for the test to ever reject (tau >= 1)."""
    tau = dkw_threshold(m, eps)
    if tau < 1.0:
        return
    need = min_reference_size(eps)
    fix = (f"use at least {2 * need} test points" if test_points
           else f"use a reference sample of at least {need} values")
    raise GenexpyInputError(
        f"{what}: the DKW threshold tau = {tau:.3g} is at least 1, the largest possible KS "
        "distance, so no candidate could ever be rejected and the answer would say nothing; "
        f"{fix} (at eps = {eps:g}), or a larger eps.")


@dataclass(frozen=True)
class RobustKSResult:
    """Outcome of :func:`~genexpy_nb.variability.robust_ks_test`: the fields below, as attributes.

    Parameters
    ----------
    statistic : float
        The trimmed KS distance ``d_alpha`` between the reference and the candidate sample.
    threshold : float
        The DKW threshold ``tau`` of size m (:func:`~genexpy_nb.variability.dkw_threshold`).
    accept : bool
        ``statistic <= threshold``: the candidate is an alpha-trimming away from the
        reference distribution F0 (robust-KS paper, Section III-C).
    alpha : float
        The trimming level used.
    eps : float
        The error probability of the DKW threshold.
    m, n : int
        Reference and candidate sample sizes.

    Examples
    --------
    >>> res = robust_ks_test([0.1, 0.4, 0.2, 0.9, 0.5, 0.3, 0.8, 0.7, 0.6, 0.0],
    ...                      [0.15, 0.45, 0.25, 0.95, 0.55], alpha=0.0)
    >>> res.m, res.n, res.accept, round(res.threshold, 4)
    (10, 5, True, 0.8279)
    """

    statistic: float
    threshold: float
    accept: bool
    alpha: float
    eps: float
    m: int
    n: int


def robust_ks_test(
    x_ref: Any, x_cand: Any, alpha: float = 0.05, eps: float = config.DKW_EPS
) -> RobustKSResult:
    """Run the robust two-sample KS test: accept when ``d_alpha(F0, Fn) <= tau``.

    Robust-KS paper, Section III-C.

    Parameters
    ----------
    x_ref : array_like, shape (m,)
        Reference sample (e.g. m draws from the pooled gaps of the reference models).
    x_cand : array_like, shape (n,)
        Candidate sample.
    alpha : float in [0, 1), default 0.05
        Trimming level.
    eps : float in (0, 1), default 0.01
        Error probability of the DKW threshold.

    Returns
    -------
    RobustKSResult
        The trimmed KS distance, the threshold and whether the candidate is accepted.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> ref, same, shifted = rng.normal(size=500), rng.normal(size=500), rng.normal(1, 1, 500)
    >>> robust_ks_test(ref, same).accept, robust_ks_test(ref, shifted).accept
    (True, False)
    """
    a = float(check_alpha(alpha)[0]) if np.ndim(alpha) == 0 else None
    if a is None:
        raise GenexpyInputError("alpha must be a single number in [0, 1) for the test.")
    d = trimmed_ks(x_ref, x_cand, a)
    m = int(np.size(x_ref))
    _check_can_reject(m, check_eps(eps), f"x_ref has m = {m} values")
    tau = dkw_threshold(m, eps)
    return RobustKSResult(
        statistic=float(d),
        threshold=tau,
        accept=bool(d <= tau),
        alpha=a,
        eps=float(eps),
        m=m,
        n=int(np.size(x_cand)),
    )


# ---- alpha-hat ------------------------------------------------------------------------


def draw_bootstrap(
    seed: int | np.random.Generator | None, B: int, M: int, T: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """All random draws of the alpha-hat bootstrap, made up front with one Generator.

    Parameters
    ----------
    seed : int, numpy.random.Generator or None
        Seed of the draws (same seed, same draws); None = fresh entropy.
    B : int
        Bootstrap repetitions.
    M : int
        Number of reference models.
    T : int
        Number of test points.

    Returns
    -------
    idx : numpy.ndarray of int64, shape (B, T)
        Test-point indices drawn with replacement; I1 = ``idx[b, :T//2]`` (candidate
        sample), I2 = ``idx[b, T//2:]``.
    ref_model : numpy.ndarray of int64, shape (B, T//2)
        The reference model of each reference-sample value.
    ref_pos : numpy.ndarray of int64, shape (B, T//2)
        The position in I2 of each reference-sample value.

    Notes
    -----
    Drawing everything here (not inside the parallel kernel) makes the result independent
    of the thread count, and the same draws serve every candidate (common random numbers,
    as in the paper's code), so a candidate's alpha-hat does not depend on the others.

    Examples
    --------
    >>> idx, ref_model, ref_pos = draw_bootstrap(0, B=3, M=5, T=10)
    >>> idx.shape, ref_model.shape, ref_pos.shape
    ((3, 10), (3, 5), (3, 5))
    """
    rng = rng_from_seed(seed)
    h = T // 2
    idx = rng.integers(0, T, size=(B, T), dtype=np.int64)
    ref_model = rng.integers(0, M, size=(B, h), dtype=np.int64)
    ref_pos = rng.integers(0, T - h, size=(B, h), dtype=np.int64)
    return idx, ref_model, ref_pos


@dataclass(frozen=True)
class _AlphaHatRaw:
    a_grid: np.ndarray  # (B, C)
    a_exact: np.ndarray  # (B, C), NaN when not computed
    d0: np.ndarray  # (B, C)
    d_grid: np.ndarray  # (B, C, G); NaN after the first passing level unless full
    grid: np.ndarray
    tau: float
    m: int


def _prepare(ref_gaps: Any, cand_gaps: Any, clip: Any) -> tuple[np.ndarray, np.ndarray]:
    ref = as_pool("ref_gaps", ref_gaps, min_models=2)
    cands = as_candidates("cand_gaps", cand_gaps, ref.shape[1])
    L = check_clip(clip)
    if L is not None:
        ref = np.clip(ref, -L, L)
        cands = np.clip(cands, -L, L)
    return ref, cands


def _reference_samples(ref: np.ndarray, idx: np.ndarray, ref_model: np.ndarray,
                       ref_pos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted bootstrap reference samples (B, h) and their upper counts.

    Bootstrap b: ``I2 = idx[b, h:]``; value q is ``ref[ref_model[b, q], I2[ref_pos[b, q]]]``,
    a uniform draw from the pooled gaps of the reference models on I2.
    """
    h = ref_model.shape[1]
    cols = np.take_along_axis(idx[:, h:], ref_pos, axis=1)
    rs = np.sort(ref[ref_model, cols], axis=1)
    return np.ascontiguousarray(rs), np.ascontiguousarray(_upper_counts(rs))


def _first_half_counts(idx: np.ndarray, T: int) -> np.ndarray:
    """``mult[b, t]`` = how often test point t is in the first half I1 of bootstrap b."""
    B = idx.shape[0]
    h = idx.shape[1] // 2
    flat = (np.arange(B, dtype=np.int64)[:, None] * T + idx[:, :h]).ravel()
    return np.bincount(flat, minlength=B * T).reshape(B, T).astype(np.int32)


def check_alpha_hat_size(T: int, C: int, B: int, G: int | None = None,
                         eps: float = config.DKW_EPS) -> None:
    """Refuse, before any work, an alpha-hat that could say nothing or not fit in memory.

    ``T`` test points (reference samples of T // 2 values: at least
    ``min_reference_size(eps)`` for the test to ever reject), ``C`` candidates, ``B``
    bootstrap draws, ``G`` levels of the grid (default ``config.ALPHA_GRID``).
    """
    G = len(config.ALPHA_GRID) if G is None else int(G)
    _check_can_reject(T // 2, eps, f"alpha-hat with T = {T} test points (reference samples "
                                   f"of T // 2 = {T // 2} values)", test_points=True)
    # kept: the draws (B, T) and (B, T/2) x 2, the sorted reference samples and their
    # counts, the first-half counts; per candidate, the results (B, C) x 3 and (B, C, G)
    check_memory("B", B, per_unit=48.0 * T + 16.0 * C * (3 + G),
                 what=f"alpha-hat of {C} candidate(s) on {T} test points")


def _alpha_hat_raw(
    ref: np.ndarray,
    cands: np.ndarray,
    *,
    B: int,
    grid: Any,
    exact: bool,
    eps: float,
    seed: Any,
    n_jobs: int | None,
    progress: bool,
    desc: str = "alpha-hat",
    full: bool = False,
    client: Any = None,
    draws: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
) -> _AlphaHatRaw:
    """Compute the per-bootstrap results of alpha-hat from checked, clipped arrays.

    ``client``: map chunks of candidates over a Dask cluster (the same draws for all);
    ``draws``: the bootstrap draws, when made already (a chunk computed on a worker).
    """
    nb = check_positive_int("B", B)
    g = check_grid(grid)
    e = check_eps(eps)
    M, T = ref.shape
    if T < 2:
        raise GenexpyInputError(
            f"alpha-hat needs at least 2 test points (two halves), got T = {T}."
        )
    h = T // 2
    if draws is None and client is None and streams(T, nb):  # bounded memory: in blocks
        *out, last = streamed(_alpha_hat_raw, draw_bootstrap, ref, cands, B=nb, seed=seed,
                              progress=progress, desc=desc, grid=g, exact=exact, eps=e,
                              n_jobs=n_jobs, full=full)
        return _AlphaHatRaw(*out, last.grid, last.tau, last.m)
    check_alpha_hat_size(T, cands.shape[0], nb, g.size, e)
    tau = dkw_threshold(h, e)
    if draws is None:
        draws = draw_bootstrap(seed, nb, M, T)
    if client is not None:  # genexpy_nb[cluster]: chunks of candidates on the workers
        parts = alpha_hat_on_cluster(client, ref, cands, draws, progress=progress, desc=desc,
                                     B=nb, grid=g, exact=exact, eps=e, seed=None,
                                     n_jobs=n_jobs, full=full)
        return _AlphaHatRaw(*(np.concatenate([getattr(p, f) for p in parts], axis=1)
                              for f in ("a_grid", "a_exact", "d0", "d_grid")), g, tau, h)
    idx, ref_model, ref_pos = draws
    C = cands.shape[0]
    step = max(1, math.ceil(C / _PROGRESS_STEPS))
    parts = []
    rs, cnts = _reference_samples(ref, idx, ref_model, ref_pos)
    levels = g.size + (20 if exact else 1)
    if float(nb) * C * 2 * h * levels <= config.ROUTES.ks_numpy_max_work:
        from . import _trimmed_numpy

        # row b * C + c: candidate c's values on the first half of draw b, sorted
        x = np.sort(cands[np.arange(C)[None, :, None], idx[:, None, :h]], axis=2)
        out = _trimmed_numpy.trimmed_ks_rows(
            rs, cnts, np.repeat(np.arange(nb), C), x.reshape(nb * C, h), g, tau,
            config.ALPHA_HAT_MAX, bool(exact), config.ALPHA_HAT_XTOL, bool(full))
        a_grid, a_exact, d0 = (v.reshape(nb, C) for v in out[:3])
        return _AlphaHatRaw(a_grid, a_exact, d0, out[3].reshape(nb, C, g.size), g, tau, h)
    mult = _first_half_counts(idx, T)
    from .._numba import compile_note, run_blocks, threads
    from .._numba import variability as _k

    with threads(n_jobs), compile_note(_k.trimmed_ks_kernel, "the alpha-hat kernel"):
        with tqdm(total=C, disable=not progress, desc=desc, unit="model") as bar:
            for c0 in range(0, C, step):
                block = np.ascontiguousarray(cands[c0 : c0 + step])
                order = np.argsort(block, axis=1, kind="stable")
                Cb = block.shape[0]
                out = (np.empty((nb, Cb)), np.empty((nb, Cb)), np.empty((nb, Cb)),
                       np.empty((nb, Cb, g.size)))

                def task(t0, t1, block=block, order=order, out=out):
                    _k.trimmed_ks_kernel(rs, cnts, block, order, mult, g, tau,
                                         config.ALPHA_HAT_MAX, bool(exact),
                                         config.ALPHA_HAT_XTOL, bool(full), t0, t1,
                                         *_buffers(h, h), *out)

                run_blocks(task, nb * Cb, float(nb) * Cb * T * max(1, g.size))
                parts.append(out)
                bar.update(Cb)
    a_grid, a_exact, d0, d_grid = (np.concatenate(p, axis=1) for p in zip(*parts, strict=True))
    return _AlphaHatRaw(a_grid, a_exact, d0, d_grid, g, tau, h)


def _alpha_hat_chunk(block: Any, ref: Any, draws: Any, kwargs: dict[str, Any]) -> Any:
    return _alpha_hat_raw(ref, block, draws=draws, progress=False, **kwargs)


def alpha_hat_on_cluster(
    client: Any, ref: Any, cands: Any, draws: Any, *, progress: bool, desc: str,
    chunk_size: int | None = None, **kwargs: Any,
) -> list[Any]:
    """Compute the per-bootstrap alpha-hat results of the candidates on a Dask cluster.

    One task per chunk of candidates, all sharing the bootstrap ``draws`` made on the client,
    so a candidate's numbers do not depend on the chunking (``alpha_hat(..., client=)``).

    Parameters
    ----------
    client : dask.distributed.Client, str or cluster
        See :func:`~genexpy_nb.distributed.as_client`.
    ref, cands : numpy.ndarray, shapes (M, T) and (C, T)
        Clipped logit gaps of the reference models and of the candidates.
    draws : tuple of numpy.ndarray
        ``(idx, ref_model, ref_pos)`` of :func:`~genexpy_nb.variability.draw_bootstrap`.
    progress, desc : bool, str
        A progress bar over the chunks, and its label.
    chunk_size : int, optional
        Candidates per task (default: about four chunks per worker thread).
    **kwargs
        ``B, grid, exact, eps, seed, full, n_jobs`` of the local run (``n_jobs`` default 1).

    Returns
    -------
    list
        Per chunk, in candidate order: alpha-hat per bootstrap and candidate (grid and
        exact), ``d0`` and the distances per level of the grid (``_AlphaHatRaw``).
    """
    if kwargs.get("n_jobs") is None:
        kwargs["n_jobs"] = 1  # one numba thread per task: the workers' threads parallelise
    with as_client(client) as c:
        rows = chunks(cands.shape[0], total_threads(c), chunk_size)
        blocks = [cands[r.start:r.stop] for r in rows]
        return map_ordered(c, _alpha_hat_chunk, blocks, shared=(ref, draws, kwargs),
                           desc=desc, unit="chunk", progress=progress)


def alpha_hat_bootstrap(
    ref_gaps: Any,
    cand_gaps: Any,
    *,
    B: int = config.ALPHA_HAT_B,
    grid: Any = None,
    exact: bool = True,
    eps: float = config.DKW_EPS,
    seed: int | np.random.Generator | None = 0,
    n_jobs: int | None = None,
    progress: bool = True,
    clip: float | None = config.LOGIT_CLIP,
) -> pl.DataFrame:
    """Per-bootstrap alpha-hat_b of every candidate, long format.

    The alpha-hat of :func:`~genexpy_nb.variability.alpha_hat` is the mean of these per candidate
    (robust-KS paper, Section IV-A); this frame shows their spread.

    Parameters
    ----------
    ref_gaps : array_like, shape (M, T), M >= 2
        Logit gaps of the reference models on T test points.
    cand_gaps : array_like, shape (C, T) or (T,)
        Logit gaps of the candidates on the same test points.
    B : int, default ``config.ALPHA_HAT_B`` (100)
        Bootstrap repetitions.
    grid : sequence of float in [0, 0.5), default ``config.ALPHA_GRID``
        Trimming levels tried in increasing order.
    exact : bool, default True
        Also compute the exact level by bisection (tolerance ``config.ALPHA_HAT_XTOL``).
    eps : float in (0, 1), default 0.01
        Error probability of the DKW threshold.
    seed : int or None, default 0
        Same seed, same result, whatever ``n_jobs``; the same draws as
        :func:`~genexpy_nb.variability.alpha_hat` with the same seed.
    n_jobs : int, optional
        Threads (default all numba threads).
    progress : bool, default True
        tqdm progress bar over the candidates.
    clip : float or None, default ``config.LOGIT_CLIP`` (15)
        Clip all gaps to ``[-clip, clip]`` first (None: no clipping).

    Returns
    -------
    polars.DataFrame
        One row per (candidate, bootstrap): ``candidate, bootstrap, alpha_hat,
        alpha_hat_exact, d0`` (``alpha_hat_exact`` null when ``exact=False``; ``d0`` = the
        plain KS distance of that bootstrap's samples).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> ref, cand = rng.normal(size=(5, 200)), rng.normal(size=(2, 200))
    >>> boot = alpha_hat_bootstrap(ref, cand, B=4, progress=False)
    >>> boot.shape, boot.columns
    ((8, 5), ['candidate', 'bootstrap', 'alpha_hat', 'alpha_hat_exact', 'd0'])
    """
    ref, cands = _prepare(ref_gaps, cand_gaps, clip)
    raw = _alpha_hat_raw(
        ref, cands, B=B, grid=grid, exact=exact, eps=eps, seed=seed, n_jobs=n_jobs,
        progress=progress,
    )
    Bn, C = raw.a_grid.shape
    return pl.DataFrame(
        {
            "candidate": np.tile(np.arange(C), Bn),
            "bootstrap": np.repeat(np.arange(Bn), C),
            "alpha_hat": raw.a_grid.ravel(),
            "alpha_hat_exact": raw.a_exact.ravel(),
            "d0": raw.d0.ravel(),
        }
    ).with_columns(pl.col("alpha_hat_exact").fill_nan(None))


def _summary_frame(raw: _AlphaHatRaw, exact: bool) -> pl.DataFrame:
    Bn, C = raw.a_grid.shape
    ddof = 1 if Bn > 1 else 0
    ex_mean = raw.a_exact.mean(axis=0) if exact else np.full(C, np.nan)
    ex_sd = raw.a_exact.std(axis=0, ddof=ddof) if exact else np.full(C, np.nan)
    return pl.DataFrame(
        {
            "candidate": np.arange(C),
            "alpha_hat": raw.a_grid.mean(axis=0),
            "alpha_hat_sd": raw.a_grid.std(axis=0, ddof=ddof),
            "alpha_hat_exact": ex_mean,
            "alpha_hat_exact_sd": ex_sd,
            "d0_boot": raw.d0.mean(axis=0),
            "tau": np.full(C, raw.tau),
            "B": np.full(C, Bn, dtype=np.int64),
        }
    ).with_columns(pl.col("alpha_hat_exact", "alpha_hat_exact_sd").fill_nan(None))


def alpha_hat(
    ref_gaps: Any,
    cand_gaps: Any,
    labels: Any = None,
    *,
    B: int = config.ALPHA_HAT_B,
    grid: Any = None,
    exact: bool = True,
    eps: float = config.DKW_EPS,
    seed: int | np.random.Generator | None = 0,
    n_jobs: int | None = None,
    progress: bool = True,
    clip: float | None = config.LOGIT_CLIP,
    client: Any = None,
) -> pl.DataFrame:
    """Compute the trimming level alpha-hat of every candidate against a reference pool.

    Robust-KS paper, Section IV-A.

    alpha-hat measures how representative one trained model is of its training process:
    the (bootstrap-averaged) smallest trimming level at which the robust KS test accepts
    the candidate's logit gaps as a draw from the reference function ``G_M``.

    Parameters
    ----------
    ref_gaps : array_like, shape (M, T), M >= 2
        Logit gaps of the reference models on T test points.
    cand_gaps : array_like, shape (C, T) or (T,)
        Logit gaps of the candidates on the same test points.
    labels : array_like of 0/1, shape (T,), optional
        When given, an ``accuracy`` column is added.
    B : int, default ``config.ALPHA_HAT_B`` (100)
        Bootstrap repetitions.
    grid : sequence of float in [0, 0.5), default ``config.ALPHA_GRID``
        Trimming levels tried in increasing order; 0.5 when none passes.
    exact : bool, default True
        Also compute the exact level by bisection (tolerance ``config.ALPHA_HAT_XTOL``).
    eps : float in (0, 1), default 0.01
        Error probability of the DKW threshold.
    seed : int, numpy.random.Generator or None, default 0
        An int fixes the result (same seed, same bits, whatever ``n_jobs``); a Generator is
        drawn from; None takes fresh entropy.
    n_jobs : int, optional
        Threads (default all numba threads).
    progress : bool, default True
        tqdm progress bar over the candidates.
    clip : float or None, default ``config.LOGIT_CLIP`` (15)
        Clip all gaps to ``[-clip, clip]`` first (None: no clipping).
    client : optional, needs ``genexpy_nb[cluster]``
        A ``dask.distributed`` Client, scheduler address, cluster object or ``"local"``
        (:func:`~genexpy_nb.distributed.as_client`): chunks of candidates become tasks on the
        cluster (``n_jobs`` numba threads per task, default 1). The bootstrap draws are made
        once here and shared, so the frame is the same, bit for bit, as without a client.

    Returns
    -------
    polars.DataFrame
        One row per candidate: ``candidate`` (row index), ``alpha_hat`` (grid version,
        mean over B), ``alpha_hat_sd``, ``alpha_hat_exact``, ``alpha_hat_exact_sd`` (null when
        ``exact=False``), ``d0_boot`` (mean bootstrap KS distance), ``tau`` (DKW threshold
        for the bootstrap reference size T//2), ``B``, and ``accuracy`` with ``labels``.

    Notes
    -----
    Bootstrap b draws T test-point indices with replacement and splits them into halves
    I1 (first T//2) and I2 (the rest). Reference sample: T//2 values drawn uniformly from
    the pooled gaps of the reference models on I2 (a draw from ``G_M``); candidate sample:
    the candidate's gaps on I1. ``alpha-hat_b`` = the first grid level with
    ``d_alpha <= tau``, ``tau = sqrt(log(2/eps)/(T//2)) + 1/(T//2)``, or 0.5 if none.
    The draws of bootstrap b are shared by all candidates (paper's Algorithm 1).
    Gaps clipped to the bounds form atoms that cost the KS distance their mass: see
    :func:`~genexpy_nb.variability.clip_gaps`.
    Cost: O(B C T log T), parallel over (bootstrap, candidate).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> ref = rng.normal(size=(5, 400))
    >>> cand = np.vstack([rng.normal(size=400), rng.normal(2.0, 1.0, size=400)])
    >>> a = alpha_hat(ref, cand, B=20, progress=False)["alpha_hat"].to_numpy()
    >>> bool(a[0] < a[1])
    True
    """
    ref, cands = _prepare(ref_gaps, cand_gaps, clip)
    y = None if labels is None else as_labels(labels, ref.shape[1])
    raw = _alpha_hat_raw(
        ref, cands, B=B, grid=grid, exact=exact, eps=eps, seed=seed, n_jobs=n_jobs,
        progress=progress, client=client,
    )
    out = _summary_frame(raw, exact)
    if y is not None:
        out = out.with_columns(pl.Series("accuracy", ((cands > 0) == (y == 1)).mean(axis=1)))
    return out


def trimming_curve(
    ref_gaps: Any,
    cand_gaps: Any,
    *,
    B: int = config.ALPHA_HAT_B,
    grid: Any = None,
    eps: float = config.DKW_EPS,
    seed: int | np.random.Generator | None = 0,
    n_jobs: int | None = None,
    progress: bool = True,
    clip: float | None = config.LOGIT_CLIP,
) -> pl.DataFrame:
    """Bootstrap trimmed KS distances ``d_alpha`` over the alpha grid, for charts.

    Same bootstrap as :func:`~genexpy_nb.variability.alpha_hat` (same seed, same draws); the
    curve of the robust-KS paper's Section IV-A, whose first crossing of tau is alpha-hat.

    Parameters
    ----------
    ref_gaps : array_like, shape (M, T), M >= 2
        Logit gaps of the reference models on T test points.
    cand_gaps : array_like, shape (C, T) or (T,)
        Logit gaps of the candidates on the same test points.
    B : int, default ``config.ALPHA_HAT_B`` (100)
        Bootstrap repetitions.
    grid : sequence of float in [0, 0.5), default ``config.ALPHA_GRID``
        Trimming levels tried in increasing order.
    eps : float in (0, 1), default 0.01
        Error probability of the DKW threshold.
    seed : int or None, default 0
        Same seed, same result, whatever ``n_jobs``; the same draws as
        :func:`~genexpy_nb.variability.alpha_hat` with the same seed.
    n_jobs : int, optional
        Threads (default all numba threads).
    progress : bool, default True
        tqdm progress bar over the candidates.
    clip : float or None, default ``config.LOGIT_CLIP`` (15)
        Clip all gaps to ``[-clip, clip]`` first (None: no clipping).

    Returns
    -------
    polars.DataFrame
        One row per (candidate, alpha): ``candidate, alpha, d_mean, d_lo, d_hi, tau`` where
        ``d_mean`` is the bootstrap mean of the trimmed KS distance and ``d_lo``/``d_hi``
        its 5% and 95% bootstrap quantiles; the candidate passes at alpha when
        ``d <= tau``.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> ref, cand = rng.normal(size=(5, 200)), rng.normal(size=200)
    >>> curve = trimming_curve(ref, cand, B=4, grid=[0.0, 0.1, 0.2], progress=False)
    >>> curve["alpha"].to_list()
    [0.0, 0.1, 0.2]
    >>> bool(curve["d_mean"].is_sorted(descending=True))
    True
    """
    ref, cands = _prepare(ref_gaps, cand_gaps, clip)
    raw = _alpha_hat_raw(
        ref, cands, B=B, grid=grid, exact=False, eps=eps, seed=seed, n_jobs=n_jobs,
        progress=progress, full=True,
    )
    _, C, G = raw.d_grid.shape
    return pl.DataFrame(
        {
            "candidate": np.repeat(np.arange(C), G),
            "alpha": np.tile(raw.grid, C),
            "d_mean": raw.d_grid.mean(axis=0).ravel(),
            "d_lo": np.quantile(raw.d_grid, 0.05, axis=0).ravel(),
            "d_hi": np.quantile(raw.d_grid, 0.95, axis=0).ravel(),
            "tau": np.full(C * G, raw.tau),
        }
    )


def ks_to_reference(ref_gaps: Any, cand_gaps: Any, *, clip: Any = config.LOGIT_CLIP,
                    alpha: Any = 0.0, n_jobs: int | None = None) -> np.ndarray:
    """Full-data trimmed KS distance of every candidate to the reference function.

    ``F0`` = the pooled eCDF of the reference models (``G_M``, interpolated), ``Fn`` = the
    candidate's eCDF over all T test points (no bootstrap).

    Parameters
    ----------
    ref_gaps : array_like, shape (M, T)
        Logit gaps of the reference models on T test points.
    cand_gaps : array_like, shape (C, T) or (T,)
        Logit gaps of the candidates on the same test points.
    clip : float or None, default ``config.LOGIT_CLIP`` (15)
        Clip all gaps to ``[-clip, clip]`` first (None: no clipping).
    alpha : float or sequence of float in [0, 1), default 0.0
        Trimming level(s); 0 = the plain KS distance.
    n_jobs : int, optional
        Threads (default all numba threads).

    Returns
    -------
    numpy.ndarray
        Trimmed KS distances in [0, 1], shape (C,) for a scalar ``alpha`` else
        (C, len(alpha)).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(2)
    >>> ref = rng.normal(size=(4, 300))
    >>> d = ks_to_reference(ref, np.vstack([ref[0], ref[0] + 3.0]))
    >>> bool(d[0] < 0.1 < 0.5 < d[1])
    True
    """
    ref, cands = _prepare(ref_gaps, cand_gaps, clip)
    alphas = check_alpha(alpha)
    from .._numba import threads

    with threads(n_jobs):
        out = _ks_rows(ref.ravel(), cands, alphas)
    return out[:, 0] if np.ndim(alpha) == 0 else out
