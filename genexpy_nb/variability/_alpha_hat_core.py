"""The alpha-hat engine: bootstrap draws and per-bootstrap trimming levels of candidates.

What :mod:`genexpy_nb.variability.alpha_hat` (the public functions) and
:mod:`genexpy_nb.variability.ensembles` (the paper's tables) share: the bootstrap draws made
up front, the checks of size and memory, the computation of the trimming levels on the
NumPy route, the numba kernel or a Dask cluster, and the per-candidate summary frame.

Robust-KS paper, Section IV-A, Algorithm 1 and Appendix B-B.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypedDict

import numpy as np
import polars as pl

from .. import config
from .._cluster import as_client, chunks, format_items, map_ordered, total_threads
from .._progress import tqdm
from .._validation import (
    GenexpyInputError,
    Keyword,
    check_memory,
    check_positive_int,
    fill_doc,
    keyword_values,
    rng_from_seed,
    shared_keywords,
)
from ._checks import as_candidates, as_pool, check_clip, check_eps, check_grid
from ._dkw import check_can_reject, dkw_threshold
from ._ks_rows import _buffers, _upper_counts
from ._streamed import streamed, streams

#: number of progress-bar steps over the candidates (each step is one parallel kernel call)
_PROGRESS_STEPS = 20


class Bootstrap(TypedDict, total=False):
    """The bootstrap keywords of alpha-hat (added by :func:`takes_bootstrap_keywords`)."""

    B: int
    grid: Any
    exact: bool
    eps: float
    seed: int | np.random.Generator | None
    n_jobs: int | None
    progress: bool
    clip: float | None


#: the bootstrap keywords of alpha-hat and of what is built on it, in signature order
_BOOTSTRAP: tuple[Keyword, ...] = (
    ("B", "int", config.ALPHA_HAT_B), ("grid", "Any", None), ("exact", "bool", True),
    ("eps", "float", config.DKW_EPS), ("seed", "int | np.random.Generator | None", 0),
    ("n_jobs", "int | None", None), ("progress", "bool", True),
    ("clip", "float | None", config.LOGIT_CLIP))
_BOOTSTRAP_DOC = """\
B : int, default ``config.ALPHA_HAT_B`` (100)
    Bootstrap repetitions.
grid : sequence of float in [0, 0.5), default ``config.ALPHA_GRID``
    Trimming levels tried in increasing order (alpha-hat is 0.5 when none passes).
exact : bool, default True
    Also compute the exact level by bisection (tolerance ``config.ALPHA_HAT_XTOL``).
eps : float in (0, 1), default 0.01
    Error probability of the DKW threshold.
seed : int, numpy.random.Generator or None, default 0
    An int fixes the result (same seed, same bits, whatever ``n_jobs``) and the bootstrap
    draws, the same in every function of alpha-hat's family; a Generator is drawn from;
    None takes fresh entropy.
n_jobs : int, optional
    Threads (default all numba threads).
progress : bool, default True
    tqdm progress bar over the candidates.
clip : float or None, default ``config.LOGIT_CLIP`` (15)
    Clip all gaps to ``[-clip, clip]`` first (None: no clipping).
"""


#: the numpydoc entries of the gaps every function of alpha-hat's family reads
fill_gaps_doc = fill_doc(gaps="""\
ref_gaps : array_like, shape (M, T), M >= 2
    Logit gaps of the reference models on T test points.
cand_gaps : array_like, shape (C, T) or (T,)
    Logit gaps of the candidates on the same test points.
""")


def _bootstrap_keywords(exact: bool) -> tuple[Keyword, ...]:
    return tuple(k for k in _BOOTSTRAP if exact or k[0] != "exact")


def takes_bootstrap_keywords(*, exact: bool = True) -> Callable[[Any], Any]:
    """Give a function of alpha-hat's family its bootstrap keywords (``{bootstrap}``).

    Also fills in the entries of its gaps (``{gaps}``).

    ``exact=False``: the function computes the grid levels only and takes no ``exact``.
    """
    doc = _BOOTSTRAP_DOC if exact else _BOOTSTRAP_DOC.replace(
        _BOOTSTRAP_DOC[_BOOTSTRAP_DOC.index("exact :"):_BOOTSTRAP_DOC.index("eps :")], "")
    keywords = shared_keywords(_bootstrap_keywords(exact), "bootstrap", doc)
    return lambda fn: fill_gaps_doc(keywords(fn))


def bootstrap_values(boot: dict[str, Any], where: str, *, exact: bool = True
                     ) -> dict[str, Any]:
    """Return the bootstrap keywords of a call, defaults filled in (any other one refused)."""
    return keyword_values(boot, _bootstrap_keywords(exact), where)


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
    check_can_reject(T // 2, eps, f"alpha-hat with T = {T} test points (reference samples "
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
                           desc=desc, unit="chunk", progress=progress,
                           describe=lambda failed: "they hold the " + format_items(
                               [j for i in failed for j in rows[i]], "candidate")
                           + " (rows of the candidates)")


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
