"""Per-candidate reports and deep-ensemble studies.

Robust-KS paper, Section V, Tables I-V.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Unpack

import numpy as np
import polars as pl

from .. import config
from .._validation import (
    GenexpyInputError,
    check_positive_int,
    check_probability,
    child_seed,
    require_columns,
    to_polars,
)
from ._alpha_hat_core import (
    Bootstrap,
    _alpha_hat_raw,
    _prepare,
    _summary_frame,
    bootstrap_values,
    takes_bootstrap_keywords,
)
from ._checks import ENSEMBLE_DRAWS, ENSEMBLE_SIZES, SUMMARY_LEVEL, as_gaps, as_labels
from .alpha_hat import ks_to_reference
from .metrics import ece as _ece
from .metrics import pairwise_churn


def _churn_rows(rows: np.ndarray, ens: np.ndarray) -> np.ndarray:
    return ((rows > 0) != (ens > 0)[None, :]).sum(axis=1).astype(np.float64)


@takes_bootstrap_keywords()
def candidate_report(
    ref_gaps: Any,
    cand_gaps: Any,
    labels: Any,
    *,
    bins: int = config.ECE_BINS,
    ensemble: str | Any = "candidates",
    **boot: Unpack[Bootstrap],
) -> pl.DataFrame:
    """alpha-hat of every candidate next to the usual metrics (paper Tables II-V).

    Parameters
    ----------
    {gaps}
    labels : array_like of 0/1, shape (T,)
        The true label of each test point.
    bins : int, default 15
        ECE bins.
    ensemble : "candidates", "reference" or array_like of shape (T,)
        The deep ensemble for the churn w.r.t. an ensemble: the mean gaps of all candidates
        (default, as in the paper), of the reference models, or given gaps.
    {bootstrap}

    Returns
    -------
    polars.DataFrame
        One row per candidate: the columns of :func:`alpha_hat` plus ``accuracy``,
        ``churn_ensemble`` (count), ``churn_ensemble_frac``, ``pairwise_churn_mean`` (mean
        count over the other candidates; null for one candidate), ``pairwise_churn_mean_frac``,
        ``ece`` and ``ks`` (full-data plain KS distance ``d_0`` between the candidate's eCDF
        and the interpolated reference function ``G_M``). Metrics use the clipped gaps
        (clipping keeps every prediction's sign).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> labels = rng.integers(0, 2, size=200)
    >>> ref = rng.normal(2.0 * labels - 1.0, 1.5, size=(5, 200))
    >>> cand = rng.normal(2.0 * labels - 1.0, 1.5, size=(3, 200))
    >>> rep = candidate_report(ref, cand, labels, B=10, exact=False, progress=False)
    >>> rep.height, {"alpha_hat", "accuracy", "churn_ensemble", "ece", "ks"} <= set(rep.columns)
    (3, True)
    """
    b = bootstrap_values(boot, "candidate_report")
    ref, cands = _prepare(ref_gaps, cand_gaps, b.pop("clip"))
    T = ref.shape[1]
    y = as_labels(labels, T)
    if isinstance(ensemble, str):
        if ensemble == "candidates":
            ens = cands.mean(axis=0)
        elif ensemble == "reference":
            ens = ref.mean(axis=0)
        else:
            raise GenexpyInputError(
                f"ensemble must be 'candidates', 'reference' or an array of T gaps, got "
                f"{ensemble!r}."
            )
    else:
        ens = as_gaps("ensemble", ensemble, ndim=(1,))
        if ens.shape[0] != T:
            raise GenexpyInputError(f"ensemble must have T = {T} gaps, got {ens.shape[0]}.")
    raw = _alpha_hat_raw(ref, cands, **b)
    C = cands.shape[0]
    churn_ens = _churn_rows(cands, ens)
    if C > 1:
        pw = pairwise_churn(cands)
        pw_mean = pw.sum(axis=1) / (C - 1)
    else:
        pw_mean = np.full(1, np.nan)
    return _summary_frame(raw, b["exact"]).with_columns(
        pl.Series("accuracy", ((cands > 0) == (y == 1)).mean(axis=1)),
        pl.Series("churn_ensemble", churn_ens),
        pl.Series("churn_ensemble_frac", churn_ens / T),
        pl.Series("pairwise_churn_mean", pw_mean).fill_nan(None),
        pl.Series("pairwise_churn_mean_frac", pw_mean / T).fill_nan(None),
        pl.Series("ece", np.atleast_1d(_ece(cands, y, bins))),
        pl.Series("ks", ks_to_reference(ref, cands, clip=None, n_jobs=b["n_jobs"])),
    )


def _check_sizes(sizes: Sequence[int], C: int) -> list[int]:
    try:
        raw = list(sizes)
    except TypeError:
        raw = [sizes]
    if not raw:
        raise GenexpyInputError("sizes must be a non-empty list of ensemble sizes.")
    ks = [check_positive_int("sizes", k) for k in raw]
    return sorted({min(k, C) for k in ks})


@takes_bootstrap_keywords()
def ensemble_study(
    ref_gaps: Any,
    cand_gaps: Any,
    labels: Any = None,
    *,
    sizes: Sequence[int] = ENSEMBLE_SIZES,
    draws: int = ENSEMBLE_DRAWS,
    bins: int = config.ECE_BINS,
    **boot: Unpack[Bootstrap],
) -> pl.DataFrame:
    """Deep ensembles of growing size against the reference function (paper Table I).

    For every size k, ``draws`` ensembles of k candidates (drawn without replacement,
    seeded) are formed by averaging their logit gaps; each is compared with the reference
    like a candidate model.

    Parameters
    ----------
    ref_gaps : array_like, shape (M, T), M >= 2
        Logit gaps of the reference models on T test points.
    cand_gaps : array_like, shape (C, T)
        The pool the ensembles are drawn from.
    labels : array_like of 0/1, shape (T,), optional
        Adds ``accuracy``, ``churn_ensemble`` (w.r.t. the ensemble of all C candidates),
        ``churn_ensemble_frac`` and ``ece``.
    sizes : sequence of int, default (3, 5, 10, 20, 30, 70, 100)
        Capped at C (duplicates after capping are merged).
    draws : int, default 100
        Ensembles per size (the paper draws 500).
    bins : int, default 15
        ECE bins.
    {bootstrap}

    Returns
    -------
    polars.DataFrame
        One row per (k, draw): ``k, draw, alpha_hat, alpha_hat_sd, alpha_hat_exact,
        alpha_hat_exact_sd, d0_boot, tau, B, ks`` (full-data KS distance to ``G_M``) and, with
        labels, the metrics above.

    Notes
    -----
    The members of size k depend only on ``(seed, k)``, so adding a size does not change
    the ensembles of the others.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> ref, cands = rng.normal(size=(5, 200)), rng.normal(size=(6, 200))
    >>> study = ensemble_study(ref, cands, sizes=(2, 4), draws=3, B=5, progress=False)
    >>> study.select("k", "draw").rows()
    [(2, 0), (2, 1), (2, 2), (4, 0), (4, 1), (4, 2)]
    >>> ensemble_summary(study)["k"].to_list()
    [2, 4]
    """
    b = bootstrap_values(boot, "ensemble_study")
    ref, cands = _prepare(ref_gaps, cand_gaps, b.pop("clip"))
    C, T = cands.shape
    y = None if labels is None else as_labels(labels, T)
    ks = _check_sizes(sizes, C)
    nd = check_positive_int("draws", draws)
    rows_k, rows_d, members_gaps = [], [], []
    for k in ks:
        rng = child_seed(b["seed"], k)
        for d in range(nd):
            mem = np.sort(rng.choice(C, size=k, replace=False))
            members_gaps.append(cands[mem].mean(axis=0))
            rows_k.append(k)
            rows_d.append(d)
    ens = np.ascontiguousarray(np.vstack(members_gaps))
    raw = _alpha_hat_raw(ref, ens, **b, desc="ensembles")
    out = _summary_frame(raw, b["exact"]).drop("candidate")
    out = pl.DataFrame(
        {"k": np.array(rows_k, dtype=np.int64), "draw": np.array(rows_d, dtype=np.int64)}
    ).hstack(out)
    out = out.with_columns(
        pl.Series("ks", ks_to_reference(ref, ens, clip=None, n_jobs=b["n_jobs"])))
    if y is not None:
        churn = _churn_rows(ens, cands.mean(axis=0))
        out = out.with_columns(
            pl.Series("accuracy", ((ens > 0) == (y == 1)).mean(axis=1)),
            pl.Series("churn_ensemble", churn),
            pl.Series("churn_ensemble_frac", churn / T),
            pl.Series("ece", np.atleast_1d(_ece(ens, y, bins))),
        )
    return out


_SUMMARY_METRICS = ("alpha_hat", "alpha_hat_exact", "ks", "accuracy", "churn_ensemble", "ece")


def ensemble_summary(
    frame: Any, level: float = SUMMARY_LEVEL, *, column: str = "alpha_hat"
) -> pl.DataFrame:
    """Share of ensembles with alpha-hat at most ``level``, per size k (paper Table I).

    Parameters
    ----------
    frame : table
        The output of :func:`ensemble_study` (columns ``k`` and ``column``).
    level : float in [0, 1], default 0.05
        The alpha-hat level: the share of ensembles with alpha-hat at most this.
    column : str, default "alpha_hat"
        ``"alpha_hat_exact"`` for the exact version.

    Returns
    -------
    polars.DataFrame
        One row per k: ``k, n, share_below`` (fraction of draws with ``column <= level``) and
        ``<metric>_mean``, ``<metric>_sd`` for the metrics present.
    """
    df = to_polars(frame, "frame")
    require_columns(df, ["k", column], "frame")
    lv = check_probability("level", level, low=0.0, high=1.0, low_open=False, high_open=False)
    aggs = [
        pl.len().cast(pl.Int64).alias("n"),
        (pl.col(column) <= lv).mean().alias("share_below"),
    ]
    for m in _SUMMARY_METRICS:
        if m in df.columns:
            aggs += [pl.col(m).mean().alias(f"{m}_mean"), pl.col(m).std().alias(f"{m}_sd")]
    return df.group_by("k").agg(aggs).sort("k").with_columns(pl.lit(lv).alias("level"))
