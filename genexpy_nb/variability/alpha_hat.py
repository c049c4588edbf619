"""The trimming level alpha-hat: how far a trained model is from its training process.

Robust-KS paper, Section IV-A: :func:`alpha_hat` (the smallest trimming level at which the
robust KS test accepts a candidate, over bootstrap draws), :func:`alpha_hat_bootstrap` (the
per-bootstrap values), :func:`trimming_curve` and :func:`ks_to_reference`; the bootstrap
draws (:func:`draw_bootstrap`), the size check run before any work
(:func:`check_alpha_hat_size`) and the Dask route (:func:`alpha_hat_on_cluster`) come from
the engine shared with the paper's tables (``_alpha_hat_core``).

References
----------
del Barrio, Inouzhe & Matrán (2020), "On approximate validation of models: a
Kolmogorov-Smirnov-based approach" (trimmed KS distance); the robust-KS paper on training
variability over random seeds, Section III-C, Algorithm 1 and Appendix B-B.
"""

from __future__ import annotations

from typing import Any, Unpack

import numpy as np
import polars as pl

from .. import config
from ._alpha_hat_core import (
    Bootstrap,
    _alpha_hat_raw,
    _prepare,
    _summary_frame,
    alpha_hat_on_cluster,
    bootstrap_values,
    check_alpha_hat_size,
    draw_bootstrap,
    takes_bootstrap_keywords,
)
from ._checks import as_labels, check_alpha
from ._ks_rows import _ks_rows

__all__ = ["alpha_hat", "alpha_hat_bootstrap", "trimming_curve", "ks_to_reference",
           "draw_bootstrap", "check_alpha_hat_size", "alpha_hat_on_cluster"]


@takes_bootstrap_keywords()
def alpha_hat_bootstrap(ref_gaps: Any, cand_gaps: Any, **boot: Unpack[Bootstrap]
                        ) -> pl.DataFrame:
    """Per-bootstrap alpha-hat_b of every candidate, long format.

    The alpha-hat of :func:`~genexpy_nb.variability.alpha_hat` is the mean of these per candidate
    (robust-KS paper, Section IV-A); this frame shows their spread.

    Parameters
    ----------
    {gaps}
    {bootstrap}

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
    b = bootstrap_values(boot, "alpha_hat_bootstrap")
    ref, cands = _prepare(ref_gaps, cand_gaps, b.pop("clip"))
    raw = _alpha_hat_raw(ref, cands, **b)
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


@takes_bootstrap_keywords()
def alpha_hat(ref_gaps: Any, cand_gaps: Any, labels: Any = None, *, client: Any = None,
              **boot: Unpack[Bootstrap]) -> pl.DataFrame:
    """Compute the trimming level alpha-hat of every candidate against a reference pool.

    Robust-KS paper, Section IV-A.

    alpha-hat measures how representative one trained model is of its training process:
    the (bootstrap-averaged) smallest trimming level at which the robust KS test accepts
    the candidate's logit gaps as a draw from the reference function ``G_M``.

    Parameters
    ----------
    {gaps}
    labels : array_like of 0/1, shape (T,), optional
        When given, an ``accuracy`` column is added.
    client : optional, needs ``genexpy_nb[cluster]``
        A ``dask.distributed`` Client, scheduler address, cluster object or ``"local"``
        (:func:`~genexpy_nb.distributed.as_client`): chunks of candidates become tasks on the
        cluster (``n_jobs`` numba threads per task, default 1). The bootstrap draws are made
        once here and shared, so the frame is the same, bit for bit, as without a client.
    {bootstrap}

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
    b = bootstrap_values(boot, "alpha_hat")
    ref, cands = _prepare(ref_gaps, cand_gaps, b.pop("clip"))
    y = None if labels is None else as_labels(labels, ref.shape[1])
    raw = _alpha_hat_raw(ref, cands, **b, client=client)
    out = _summary_frame(raw, b["exact"])
    if y is not None:
        out = out.with_columns(pl.Series("accuracy", ((cands > 0) == (y == 1)).mean(axis=1)))
    return out


@takes_bootstrap_keywords(exact=False)
def trimming_curve(ref_gaps: Any, cand_gaps: Any, **boot: Unpack[Bootstrap]) -> pl.DataFrame:
    """Bootstrap trimmed KS distances ``d_alpha`` over the alpha grid, for charts.

    Same bootstrap as :func:`~genexpy_nb.variability.alpha_hat` (same seed, same draws); the
    curve of the robust-KS paper's Section IV-A, whose first crossing of tau is alpha-hat.

    Parameters
    ----------
    {gaps}
    {bootstrap}

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
    b = bootstrap_values(boot, "trimming_curve", exact=False)
    ref, cands = _prepare(ref_gaps, cand_gaps, b.pop("clip"))
    raw = _alpha_hat_raw(ref, cands, **b, exact=False, full=True)
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
