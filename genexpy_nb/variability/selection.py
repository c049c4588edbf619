"""Reading the candidate report like the paper's Tables II-V, and choosing a seed.

The report of :func:`~genexpy_nb.variability.candidate_report` holds one row per candidate
model: its trimming level alpha-hat next to accuracy, churn and ECE. The paper reads it in
three ways, each a function here:

- :func:`alpha_hat_groups` — the metrics of the candidates admitted by a small alpha-hat
  (``alpha-hat <= level``) against those of all candidates (Tables II and IV: a low
  alpha-hat implies good metrics, not conversely);
- :func:`pairwise_churn_frame` — every pair of candidates with its churn and the larger of
  the two alpha-hats (Table III: pairs of representative models disagree little);
- :func:`select_seed` — the paper's rule of thumb (Section VI): explore at least 30 seeds
  and choose one with high accuracy and a small alpha-hat.

References
----------
The robust-KS paper on training variability over random seeds, Sections V-B, V-C and the
conclusion.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl

from .._validation import (
    GenexpyInputError,
    as_float_grid,
    check_positive_int,
    check_probability,
    require_columns,
    to_polars,
)
from ._checks import SUMMARY_LEVEL, as_pool
from .metrics import pairwise_churn

#: default small alpha-hat levels of :func:`alpha_hat_groups`
GROUP_LEVELS: tuple[float, ...] = (0.01, 0.05)
#: metrics summarised by :func:`alpha_hat_groups` when present (the report's columns)
GROUP_METRICS: tuple[str, ...] = (
    "accuracy", "val_accuracy", "test_accuracy", "churn_ensemble", "churn_ensemble_frac",
    "pairwise_churn_mean", "pairwise_churn_mean_frac", "ece", "ks", "churn", "churn_frac",
)
#: the paper's rule of thumb: explore at least this many seeds before choosing one
EXPLORE_SEEDS: int = 30


def _numeric_column(df: pl.DataFrame, col: str, name: str) -> np.ndarray:
    if not df.schema[col].is_numeric():
        raise GenexpyInputError(f"{name}: column {col!r} must be numeric, got {df.schema[col]}.")
    arr = df.get_column(col).cast(pl.Float64).to_numpy()
    if np.any(np.isnan(arr)):
        raise GenexpyInputError(
            f"{name}: column {col!r} has missing values; drop those rows first."
        )
    return arr


def alpha_hat_groups(
    frame: Any,
    levels: float | Sequence[float] = GROUP_LEVELS,
    *,
    column: str = "alpha_hat",
    metrics: Sequence[str] | None = None,
) -> pl.DataFrame:
    """Metrics of the candidates admitted by a small alpha-hat, against all (Tables II, IV).

    Parameters
    ----------
    frame : table
        One row per candidate (e.g. :func:`candidate_report`, possibly with extra columns
        such as ``val_accuracy``) or per pair (:func:`pairwise_churn_frame` with
        ``column="alpha_hat_pair"``). Needs ``column`` and the metrics.
    levels : float or sequence of float in [0, 1], default (0.01, 0.05)
        Small alpha-hat levels.
    column : str, default "alpha_hat"
        The trimming level used for grouping (``"alpha_hat_exact"``, ``"alpha_hat_pair"``).
    metrics : sequence of str, optional
        Numeric columns to summarise; default those of ``GROUP_METRICS`` present.

    Returns
    -------
    polars.DataFrame
        One row per group, in this order: ``<column> <= level`` for every level (ascending; the
        groups are nested, as the paper's "models with alpha-hat <= level"), ``<column> >
        <largest level>`` (the rest) and ``all``. Columns ``group``, ``level`` (null for
        ``all``), ``n``, ``share`` (n / number of rows) and, per metric ``m``, ``m_mean``,
        ``m_median``, ``m_min``, ``m_max`` (null for an empty group; nulls in a metric are
        skipped).

    Notes
    -----
    Reading it: when ``m_min``/``m_max`` of the small-alpha-hat groups sit inside the good
    end of the ``all`` range (higher accuracy, lower churn and ECE), a low alpha-hat implies
    good metrics; the ``>`` group holding candidates with good metrics too shows that the
    converse does not hold.

    Examples
    --------
    >>> import polars as pl
    >>> rep = pl.DataFrame({"alpha_hat": [0.0, 0.02, 0.3], "accuracy": [0.9, 0.8, 0.85]})
    >>> alpha_hat_groups(rep, 0.05)["accuracy_min"].to_list()
    [0.8, 0.85, 0.8]
    """
    df = to_polars(frame, "frame")
    require_columns(df, [column], "frame")
    a = _numeric_column(df, column, "frame")
    lv = np.unique(as_float_grid("levels", levels))
    for v in lv:
        check_probability("levels", v, low=0.0, high=1.0, low_open=False, high_open=False)
    if metrics is None:
        mets = [m for m in GROUP_METRICS if m in df.columns and m != column]
    else:
        mets = [str(m) for m in ([metrics] if isinstance(metrics, str) else metrics)]
        require_columns(df, mets, "frame")
    for m in mets:
        if not df.schema[m].is_numeric():
            raise GenexpyInputError(f"frame: metric column {m!r} must be numeric.")
    groups: list[tuple[str, float | None, np.ndarray]] = [
        (f"{column} <= {v:g}", float(v), a <= v) for v in lv
    ]
    groups.append((f"{column} > {lv[-1]:g}", float(lv[-1]), a > lv[-1]))
    groups.append(("all", None, np.ones(a.size, dtype=bool)))
    rows = []
    for name, level, mask in groups:
        sub = df.filter(pl.Series(mask))
        row: dict[str, Any] = {"group": name, "level": level, "n": int(mask.sum()),
                               "share": float(mask.mean()) if a.size else float("nan")}
        for m in mets:
            col = sub.get_column(m).cast(pl.Float64)
            row[f"{m}_mean"] = col.mean()
            row[f"{m}_median"] = col.median()
            row[f"{m}_min"] = col.min()
            row[f"{m}_max"] = col.max()
        rows.append(row)
    schema: dict[str, Any] = {"group": pl.String, "level": pl.Float64, "n": pl.Int64,
                              "share": pl.Float64}
    for m in mets:
        for s in ("mean", "median", "min", "max"):
            schema[f"{m}_{s}"] = pl.Float64
    return pl.DataFrame(rows, schema=schema)


def pairwise_churn_frame(
    cand_gaps: Any, alpha_hat: Any, *, names: Sequence[str] | None = None
) -> pl.DataFrame:
    """Every pair of candidates: churn between them and their alpha-hats (paper Table III).

    Parameters
    ----------
    cand_gaps : array_like, shape (C, T), C >= 2
        Logit gaps of the candidates (predicted label ``1[g > 0]``).
    alpha_hat : array_like, shape (C,)
        The candidates' alpha-hat, e.g. ``report["alpha_hat"]``.
    names : sequence of str, optional
        Names of the candidates (default ``"0", "1", ...``).

    Returns
    -------
    polars.DataFrame
        One row per pair ``a < b`` (C (C-1) / 2 rows): ``a, b`` (row indices), ``name_a,
        name_b``, ``churn`` (test points where their predictions differ), ``churn_frac`` (churn
        / T), ``alpha_hat_a, alpha_hat_b`` and ``alpha_hat_pair`` = ``max(alpha_hat_a,
        alpha_hat_b)``: a pair with ``alpha_hat_pair <= level`` has both models representative
        at that level. Summarise it with ``alpha_hat_groups(pairs, column="alpha_hat_pair",
        metrics=["churn"])``.

    Examples
    --------
    >>> pairs = pairwise_churn_frame([[1.0, -1.0, 2.0], [1.0, 1.0, 2.0], [-1.0, 1.0, 2.0]],
    ...                              [0.0, 0.1, 0.3])
    >>> pairs.select("a", "b", "churn", "alpha_hat_pair").rows()
    [(0, 1, 1.0, 0.1), (0, 2, 2.0, 0.3), (1, 2, 1.0, 0.3)]
    """
    g = as_pool("cand_gaps", cand_gaps, min_models=2)
    C, T = g.shape
    ah = np.asarray(alpha_hat, dtype=np.float64) if not isinstance(alpha_hat, pl.Series) \
        else alpha_hat.cast(pl.Float64).to_numpy()
    if ah.ndim != 1 or ah.shape[0] != C:
        raise GenexpyInputError(
            f"alpha_hat must hold one value per candidate ({C}), got shape {ah.shape}."
        )
    if not np.all(np.isfinite(ah)):
        raise GenexpyInputError("alpha_hat contains NaN or infinite values.")
    if names is None:
        names = [str(i) for i in range(C)]
    names = [str(n) for n in names]
    if len(names) != C:
        raise GenexpyInputError(f"names must have one entry per candidate ({C}), got "
                                f"{len(names)}.")
    pw = pairwise_churn(g)
    ia, ib = np.triu_indices(C, 1)
    ch = pw[ia, ib]
    nm = np.asarray(names, dtype=object)
    return pl.DataFrame({
        "a": ia.astype(np.int64), "b": ib.astype(np.int64),
        "name_a": nm[ia].tolist(), "name_b": nm[ib].tolist(),
        "churn": ch, "churn_frac": ch / T,
        "alpha_hat_a": ah[ia], "alpha_hat_b": ah[ib],
        "alpha_hat_pair": np.maximum(ah[ia], ah[ib]),
    })


def select_seed(
    report: Any,
    *,
    accuracy: str = "accuracy",
    column: str = "alpha_hat",
    level: float = SUMMARY_LEVEL,
    n_explore: int | None = EXPLORE_SEEDS,
) -> pl.DataFrame:
    """Choose a seed by the paper's rule of thumb: high accuracy and a small alpha-hat.

    "Explore at least 30 seeds and choose the seed that generates a model with high
    validation accuracy and small alpha-hat" (paper, Section VI). Among the first
    ``n_explore`` candidates (rows in the report's order: the order the seeds were
    trained), the *eligible* ones have ``column <= level``; the chosen one is the eligible
    candidate with the highest ``accuracy`` (ties: the smaller alpha-hat, then the earlier
    row).

    Parameters
    ----------
    report : table, one row per candidate
        Needs ``accuracy`` and ``column``; typically :func:`candidate_report` with a
        ``val_accuracy`` column added (choose on validation data, not on the test points).
    accuracy : str, default "accuracy"
        Column to maximise (higher is better).
    column : str, default "alpha_hat"
        ``"alpha_hat_exact"`` for the exact version.
    level : float in [0, 1], default 0.05
        Largest alpha-hat still called small.
    n_explore : int or None, default 30
        Seeds explored (the first rows); None for all rows.

    Returns
    -------
    polars.DataFrame
        The explored rows, with added columns ``accuracy_rank`` (1 = the highest accuracy; ties
        share the best rank), ``eligible`` (alpha-hat <= level), ``pareto`` (no other explored
        candidate has at least the accuracy and at most the alpha-hat, one of them strictly)
        and ``chosen`` (True in exactly one row). The chosen candidate is always on the Pareto
        front.

    Raises
    ------
    GenexpyInputError
        If the report has fewer than ``n_explore`` rows or no explored candidate is
        eligible (then explore more seeds or raise ``level``).

    Examples
    --------
    >>> import polars as pl
    >>> rep = pl.DataFrame({"accuracy": [0.91, 0.93, 0.92], "alpha_hat": [0.0, 0.2, 0.04]})
    >>> select_seed(rep, n_explore=3)["chosen"].to_list()
    [False, False, True]
    """
    df = to_polars(report, "report")
    require_columns(df, [accuracy, column], "report")
    lv = check_probability("level", level, low=0.0, high=1.0, low_open=False,
                           high_open=False)
    if n_explore is not None:
        n = check_positive_int("n_explore", n_explore)
        if n > df.height:
            raise GenexpyInputError(
                f"n_explore={n} but the report has only {df.height} candidates: train more "
                f"seeds (the paper's rule of thumb explores at least {EXPLORE_SEEDS}) or "
                "lower n_explore."
            )
        df = df.head(n)
    if df.height == 0:
        raise GenexpyInputError("report has no rows: there is no seed to choose from.")
    acc = _numeric_column(df, accuracy, "report")
    a = _numeric_column(df, column, "report")
    eligible = a <= lv
    if not eligible.any():
        raise GenexpyInputError(
            f"none of the {df.height} explored candidates has {column} <= {lv:g} (smallest: "
            f"{a.min():.4g}): explore more seeds or raise level."
        )
    # Pareto front of (accuracy up, alpha-hat down), O(n^2) on a few dozen seeds
    ge = acc[None, :] >= acc[:, None]  # ge[i, j]: j at least as accurate as i
    le = a[None, :] <= a[:, None]
    strict = (acc[None, :] > acc[:, None]) | (a[None, :] < a[:, None])
    dominated = (ge & le & strict).any(axis=1)
    idx = np.flatnonzero(eligible)
    order = np.lexsort((idx, a[idx], -acc[idx]))  # last key first: accuracy desc
    chosen = np.zeros(df.height, dtype=bool)
    chosen[idx[order[0]]] = True
    rank = 1 + (acc[None, :] > acc[:, None]).sum(axis=1)
    return df.with_columns(
        pl.Series("accuracy_rank", rank.astype(np.int64)),
        pl.Series("eligible", eligible),
        pl.Series("pareto", ~dominated),
        pl.Series("chosen", chosen),
    )
