"""The input of :mod:`genexpy_nb.aggregates`: a long table or rliable's dict.

The input is checked and turned into one (runs, tasks) score matrix per alternative.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from .._validation import (
    GenexpyInputError,
    check_score_range,
    float_array,
    keyword_values,
    require_columns,
    shared_keywords,
    to_polars,
)
from ..study._roles import alias

#: the columns of a long table, keywords of every function of the package: (name,
#: annotation, default)
_COLUMNS = tuple((k, "str | None", None) for k in ("alternatives", "target", "blocks", "task",
                                                   "run"))
#: gives a function the columns' keywords, in its signature and (the line ``{columns}``) its
#: docstring; :func:`scores_from` reads them
takes_columns = shared_keywords(_COLUMNS, "columns", """\
alternatives, target, blocks, run : str, optional
    Columns of a long table: the algorithm, the score, the blocks (the tasks) and
    (optionally) the run or seed.
task : str, optional
    Alias of ``blocks`` (rliable's name).
""")


# ---- input ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Scores:
    """Scores of every alternative as (runs, tasks) float64 matrices, tasks in one order."""

    matrices: dict[str, np.ndarray]
    tasks: tuple[str, ...]


def _check_matrix(name: str, a: Any) -> np.ndarray:
    try:
        raw = np.asarray(a)
    except (TypeError, ValueError):
        raw = None
    if raw is not None and raw.dtype.kind in "iu":  # before the cast loses the digits
        check_score_range(raw, f"scores of {name!r}")
    m = float_array(a, f"scores of {name!r}: expected a numeric array of shape (runs, tasks).",
                    copy=True)
    if m.ndim != 2:
        raise GenexpyInputError(
            f"scores of {name!r}: expected shape (runs, tasks) as rliable takes, got "
            f"{m.ndim} dimension(s) with shape {m.shape}. One task: reshape to (runs, 1)."
        )
    if m.shape[0] < 1 or m.shape[1] < 1:
        raise GenexpyInputError(f"scores of {name!r}: no runs or no tasks (shape {m.shape}).")
    bad = ~np.isfinite(m)
    if bad.any():
        r, t = np.argwhere(bad)[0]
        raise GenexpyInputError(
            f"scores of {name!r}: {int(bad.sum())} missing or infinite value(s), first at run "
            f"{r}, task {t}. Every run of every task needs a finite score; drop the run from "
            "every task, or the task from every alternative."
        )
    check_score_range(m, f"scores of {name!r}")
    return m


def _from_dict(data: Mapping[Any, Any]) -> Scores:
    if not data:
        raise GenexpyInputError("scores: the dict is empty; give {name: (runs, tasks) array}.")
    mats = {str(k): _check_matrix(str(k), v) for k, v in data.items()}
    if len(mats) != len(data):
        raise GenexpyInputError("scores: two names are the same once written as text.")
    n_tasks = {k: m.shape[1] for k, m in mats.items()}
    if len(set(n_tasks.values())) > 1:
        raise GenexpyInputError(
            f"scores: every alternative needs the same tasks (columns); numbers of tasks: "
            f"{n_tasks}."
        )
    T = next(iter(n_tasks.values()))
    return Scores(mats, tuple(str(t) for t in range(T)))


def _from_table(data: Any, alternatives: str, target: str, task: str,
                run: str | None) -> Scores:
    df = to_polars(data, "data")
    for role, col in (("alternatives", alternatives), ("target", target), ("blocks", task)):
        if not isinstance(col, str):
            raise GenexpyInputError(
                f"{role} must name a column of the table, got {col!r}. A long table needs "
                "alternatives=, blocks= (the task) and target= (and optionally run=)."
            )
    if run is not None and not isinstance(run, str):
        raise GenexpyInputError(f"run must name a column of the table or be None, got {run!r}.")
    cols = [alternatives, task, target] + ([run] if run is not None else [])
    if len(set(cols)) != len(cols):
        raise GenexpyInputError(f"alternatives, task, target and run must be different "
                                f"columns, got {cols}.")
    require_columns(df, cols, "data")
    if not df.schema[target].is_numeric():
        raise GenexpyInputError(
            f"target column {target!r} has dtype {df.schema[target]}, expected numbers. "
            f"Cast it, e.g. pl.col({target!r}).cast(pl.Float64)."
        )
    check_score_range(df[target], f"target column {target!r}")
    keys = [alternatives, task] + ([run] if run is not None else [])
    for c in keys:
        if df[c].null_count():
            raise GenexpyInputError(
                f"column {c!r} has {df[c].null_count()} null value(s); drop those rows or "
                "give them a label."
            )
    d = df.select(
        pl.col(alternatives).cast(pl.String).alias("_a"),
        pl.col(task).cast(pl.String).alias("_t"),
        *([pl.col(run).alias("_r")] if run is not None else []),
        pl.col(target).cast(pl.Float64).alias("_y"),
    )
    y = d["_y"]
    bad = int(y.null_count() + (~y.is_finite()).sum())
    if bad:
        raise GenexpyInputError(
            f"target column {target!r} has {bad} missing, NaN or infinite value(s). Every run "
            "of every task needs a finite score: drop the run from every task, e.g. "
            f"df.filter(pl.col({target!r}).is_finite()), only if the runs stay balanced."
        )
    if d.height == 0:
        raise GenexpyInputError("data: the table has no rows.")
    if run is not None:
        dup = d.group_by("_a", "_t", "_r").len().filter(pl.col("len") > 1)
        if dup.height:
            a, t, r = dup.row(0)[:3]
            raise GenexpyInputError(
                f"data: {dup.height} (alternative, task, run) triple(s) have several rows, "
                f"e.g. {alternatives}={a!r}, {task}={t!r}, {run}={r!r}. One row per run."
            )
        d = d.sort("_a", "_t", "_r", maintain_order=True)
    else:
        d = d.sort("_a", "_t", maintain_order=True)
    names = df[alternatives].cast(pl.String).unique(maintain_order=True).to_list()
    tasks = sorted(d["_t"].unique().to_list())
    mats: dict[str, np.ndarray] = {}
    for (a,), g in d.group_by("_a", maintain_order=True):
        counts = g.group_by("_t", maintain_order=True).len()
        missing = sorted(set(tasks) - set(counts["_t"].to_list()))
        if missing:
            raise GenexpyInputError(
                f"alternative {a!r} has no run on task(s) {missing[:5]}"
                f"{' ...' if len(missing) > 5 else ''}. Every alternative needs every task; "
                f"filter the table to the tasks all alternatives share."
            )
        ns = counts["len"].unique().to_list()
        if len(ns) > 1:
            lo_row = counts.sort("len").row(0)
            raise GenexpyInputError(
                f"alternative {a!r} has different numbers of runs per task ({sorted(ns)}; "
                f"e.g. {lo_row[1]} on task {lo_row[0]!r}). The stratified bootstrap needs the "
                "same runs on every task of an alternative: drop the extra runs or the "
                "incomplete ones."
            )
        n = int(ns[0])
        # sorted by task then run: a (tasks, runs) block; tasks in sorted order
        mats[str(a)] = np.ascontiguousarray(g["_y"].to_numpy().reshape(len(tasks), n).T)
    return Scores({a: mats[a] for a in names}, tuple(tasks))


def scores_from(data: Any, columns: dict[str, Any], where: str) -> Scores:
    """Return the scores of ``data``, read with the columns' keywords of ``where``."""
    alternatives, target, blocks, task, run = keyword_values(columns, _COLUMNS, where).values()
    task = alias("blocks", blocks, "task", task, where)
    if isinstance(data, Scores):
        return data
    table_roles = (alternatives, target, task, run)
    if isinstance(data, Mapping) and all(r is None for r in table_roles):
        return _from_dict(data)
    if isinstance(data, np.ndarray):
        raise GenexpyInputError(
            "scores: a single array has no name; pass {name: array of shape (runs, tasks)}, "
            "or a long table with alternatives=, blocks= (the task) and target=."
        )
    if alternatives is None or target is None or task is None:
        raise GenexpyInputError(
            "a long table needs alternatives= (the column naming the algorithm), blocks= (the "
            "task) and "
            "target= (the score), and optionally run= (the seed); or pass "
            "{name: array of shape (runs, tasks)} as rliable takes."
        )
    return _from_table(data, alternatives, target, task, run)


@takes_columns
def score_matrices(data: Any, **columns: Any) -> dict[str, np.ndarray]:
    """Return the scores of every alternative as rliable's ``(runs, tasks)`` matrices.

    Parameters
    ----------
    data : long table or dict of arrays
        See the module docstring.
    {columns}

    Returns
    -------
    dict of str to numpy.ndarray of shape (runs, tasks)
        Tasks in sorted order (a long table) or as given (a dict).
    """
    return dict(scores_from(data, columns, "score_matrices").matrices)
