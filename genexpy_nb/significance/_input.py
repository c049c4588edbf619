"""Input handling of :mod:`genexpy_nb.significance`, in one place.

Tests over conditions take a *wide* table (one row per condition, one column per
alternative: polars/pandas/pyarrow frame, 2-d NumPy array or list of rows) or a *long* tidy
table with ``y_col`` (the value), ``block_col`` (the condition) and ``group_col`` (the
alternative) — the two layouts scikit-posthocs accepts. Everything becomes an (n, k) float64
matrix with NaN for missing values here; two-sample tests get 1-d float arrays.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypedDict

import numpy as np
import polars as pl

from .._validation import (
    GenexpyInputError,
    Keyword,
    check_choice,
    float_array,
    keyword_values,
    require_columns,
    shared_keywords,
    to_polars,
)
from ..study._roles import alias, renamed
from ..study.ranking import TIE_ATOL, TIE_RTOL

_ALTERNATIVES = ("two-sided", "greater", "less")
_NAN_POLICIES = ("propagate", "raise", "omit")




@dataclass(frozen=True)
class _Matrix:
    values: np.ndarray  # (n, k) float64, NaN = missing
    alternatives: tuple[str, ...]
    conditions: tuple[Any, ...] | None = field(default=None)
    block_col: str | None = None  # the column that labels the conditions, if named




def _names(alternatives: Sequence[Any] | None, name: str = "alternatives") -> list[str] | None:
    if alternatives is None:
        return None
    if isinstance(alternatives, str):
        raise GenexpyInputError(f"{name} must be a list of names, not one string.")
    out = [str(a) for a in alternatives]
    if len(set(out)) != len(out):
        raise GenexpyInputError(f"{name} contains duplicates: {out}.")
    return out


def _long_matrix(df: pl.DataFrame, y_col, block_col, group_col, alternatives, name) -> _Matrix:
    if y_col is None or block_col is None or group_col is None:
        raise GenexpyInputError(
            f"{name}: long (tidy) input needs all of target (the value), blocks (the "
            "condition) and alternatives (the alternative's column); got "
            f"target={y_col!r}, blocks={block_col!r}, alternatives={group_col!r}."
        )
    require_columns(df, [y_col, block_col, group_col], name)
    if not df.schema[y_col].is_numeric():
        raise GenexpyInputError(
            f"{name}: y_col={y_col!r} has dtype {df.schema[y_col]}, expected numbers. "
            "Cast it, e.g. pl.col(y_col).cast(pl.Float64)."
        )
    d = df.select(
        pl.col(block_col).alias("_block"),
        pl.col(group_col).cast(pl.String).alias("_group"),
        pl.col(y_col).cast(pl.Float64).fill_null(float("nan")).alias("_y"),
    )
    roles = (("_block", f"block_col={block_col!r}"), ("_group", f"group_col={group_col!r}"))
    for col, role in roles:
        if d[col].null_count():
            raise GenexpyInputError(
                f"{name}: {role} has null values; drop those rows or give them a label."
            )
    dup = d.group_by("_block", "_group").len().filter(pl.col("len") > 1)
    if dup.height:
        b, g = dup.row(0)[:2]
        raise GenexpyInputError(
            f"{name}: {dup.height} (condition, alternative) pair(s) have several rows, e.g. "
            f"{block_col}={b!r}, {group_col}={g!r}. Average the repetitions first, e.g. "
            f"df.group_by([{block_col!r}, {group_col!r}]).agg(pl.col({y_col!r}).mean()), or "
            "add the repeated factor to the condition."
        )
    groups = d["_group"].unique(maintain_order=True).to_list()
    if alternatives is not None:
        unknown = [a for a in alternatives if a not in set(groups)]
        if unknown:
            raise GenexpyInputError(
                f"order: {unknown} not found in the alternatives column {group_col!r}; "
                f"available: {groups}."
            )
        groups = list(alternatives)
        d = d.filter(pl.col("_group").is_in(groups))
    blocks = d["_block"].unique(maintain_order=True)
    bidx = pl.DataFrame({"_block": blocks, "_bi": np.arange(blocks.len(), dtype=np.int64)})
    gidx = pl.DataFrame({"_group": groups, "_gi": np.arange(len(groups), dtype=np.int64)},
                        schema={"_group": pl.String, "_gi": pl.Int64})
    d = d.join(bidx, on="_block", how="left").join(gidx, on="_group", how="left")
    values = np.full((blocks.len(), len(groups)), np.nan)
    values[d["_bi"].to_numpy(), d["_gi"].to_numpy()] = d["_y"].to_numpy()
    return _Matrix(values, tuple(groups), tuple(blocks.to_list()))


def _wide_frame_matrix(df: pl.DataFrame, block_col, alternatives, name) -> _Matrix:
    conditions = None
    cols = list(df.columns)
    if block_col is not None:
        require_columns(df, [block_col], name)
        conditions = tuple(df[block_col].to_list())
        cols = [c for c in cols if c != block_col]
    if alternatives is not None:
        require_columns(df, alternatives, name)
        cols = list(alternatives)
    bad = [c for c in cols if not df.schema[c].is_numeric()]
    if bad:
        raise GenexpyInputError(
            f"{name}: column(s) {bad} are not numeric. In a wide table every column is an "
            "alternative; name the column that labels the conditions with blocks=..., "
            "select the alternatives with order=[...], or pass a long table with "
            "target, blocks and alternatives."
        )
    values = (
        df.select([pl.col(c).cast(pl.Float64).fill_null(float("nan")) for c in cols])
        .to_numpy()
        .astype(np.float64, copy=False)
    )
    return _Matrix(np.ascontiguousarray(values), tuple(str(c) for c in cols), conditions)


def _array_matrix(data, alternatives, name) -> _Matrix:
    values = float_array(data, f"{name}: could not read it as a numeric matrix; rows of "
                         "different lengths (a ragged list) or non-numeric entries. Give one "
                         "row per condition with one value per alternative (NaN where missing).")
    if values.ndim != 2:
        raise GenexpyInputError(
            f"{name}: expected a 2-d matrix (conditions x alternatives), got {values.ndim} "
            f"dimension(s) with shape {values.shape}."
        )
    k = values.shape[1]
    if alternatives is not None:
        if len(alternatives) != k:
            raise GenexpyInputError(
                f"order: {len(alternatives)} names for a matrix with {k} columns."
            )
        names = tuple(alternatives)
    else:
        names = tuple(str(j) for j in range(k))
    return _Matrix(np.ascontiguousarray(values), names, None)


def _roles(where: str, target: str | None, blocks: str | None, alternatives: Any,
           order: Sequence[Any] | None, y_col: str | None, block_col: str | None,
           group_col: str | None, stacklevel: int = 4) -> tuple[Any, Any, Any, Any]:
    """Return ``(y_col, block_col, group_col, order)`` from the roles a caller named.

    ``target``, ``blocks``, ``alternatives`` (columns) with scikit-posthocs' ``y_col``,
    ``block_col``, ``group_col`` as their aliases; ``order``, the list of alternatives (a list
    passed to ``alternatives=``, the old way, is taken as ``order`` with a
    DeprecationWarning).
    """
    if alternatives is not None and not isinstance(alternatives, str):
        order = renamed("alternatives", alternatives, "order", order, where,
                        advice="a list passed to alternatives= is the order of the "
                               "alternatives now: pass the levels as order=...",
                        stacklevel=stacklevel)
        alternatives = None
    return (alias("target", target, "y_col", y_col, where),
            alias("blocks", blocks, "block_col", block_col, where),
            alias("alternatives", alternatives, "group_col", group_col, where), order)


class TableRoles(TypedDict, total=False):
    """The role keywords of a test over conditions (added by :func:`takes_table_roles`)."""

    target: str | None
    blocks: str | None
    alternatives: str | Sequence[Any] | None
    order: Sequence[Any] | None
    y_col: str | None
    block_col: str | None
    group_col: str | None
    tie_rtol: float
    tie_atol: float


#: the role keywords, in the order of the signatures: (name, annotation, default)
_ROLE_KEYWORDS: tuple[Keyword, ...] = (
    ("target", "str | None", None), ("blocks", "str | None", None),
    ("alternatives", "str | Sequence[Any] | None", None), ("order", "Sequence[Any] | None", None),
    ("y_col", "str | None", None), ("block_col", "str | None", None),
    ("group_col", "str | None", None))
_TIE_KEYWORDS: tuple[Keyword, ...] = (("tie_rtol", "float", TIE_RTOL),
                                      ("tie_atol", "float", TIE_ATOL))
_ROLES_DOC = """\
target, blocks, alternatives : str, optional
    Long input: the column of the values, of the conditions (datasets) and of the
    alternatives (models). Wide input: ``blocks`` names the column that labels the
    conditions; every other column is an alternative.
order : sequence, optional
    The alternatives to compare, in this order (default: all, in the order of the input).
y_col, block_col, group_col : str, optional
    Aliases of ``target``, ``blocks`` and ``alternatives`` (scikit-posthocs' names).
"""
_TIES_DOC = """\
tie_rtol, tie_atol : float
    The tie tolerances of :class:`~genexpy_nb.Study` (defaults 1e-9 and 0), as
    :func:`~genexpy_nb.significance.compare` uses them: within a condition, scores closer
    than ``max(tie_rtol * (max - min), tie_atol, 64 eps * max|score|)`` are ranked as ties,
    so float noise (means summed in another order) is a tie. ``tie_rtol=0, tie_atol=0``
    ranks by exact equality.
"""


def takes_table_roles(*, ties: bool = True) -> Callable[[Any], Any]:
    """Give a test over conditions the role keywords (and the tie tolerances with ``ties``).

    One vocabulary for every test over conditions: the test ends with
    ``**roles: Unpack[TableRoles]`` and the line ``{roles}`` of its Parameters section
    (:func:`~genexpy_nb._validation.shared_keywords`); :func:`table_matrix` reads them.
    """
    return shared_keywords(_ROLE_KEYWORDS + (_TIE_KEYWORDS if ties else ()), "roles",
                           _ROLES_DOC + (_TIES_DOC if ties else ""))


def table_matrix(data: Any, roles: dict[str, Any], where: str, *, ties: bool = True,
                 min_conditions: int = 2) -> _Matrix:
    """Return the (n, k) matrix of a test over conditions, from its data and ``**roles``.

    Refuses a keyword the test does not take, as Python would (a ``TypeError``).
    """
    got = keyword_values(roles, _ROLE_KEYWORDS + (_TIE_KEYWORDS if ties else ()), where)
    y_col, block_col, group_col, order = _roles(
        where, *(got[n] for n, _, _ in _ROLE_KEYWORDS), stacklevel=5)
    m = _to_matrix(data, y_col=y_col, block_col=block_col, group_col=group_col,
                   alternatives=order, min_conditions=min_conditions,
                   tie_tols=(got["tie_rtol"], got["tie_atol"]) if ties else None)
    return replace(m, block_col=block_col)


def _is_frame(data: Any) -> bool:
    if isinstance(data, (pl.DataFrame, pl.LazyFrame, dict)):
        return True
    return type(data).__module__.split(".")[0] in ("pandas", "pyarrow") and hasattr(
        data, "columns"
    )


def _to_matrix(
    data: Any,
    *,
    y_col: str | None = None,
    block_col: str | None = None,
    group_col: str | None = None,
    alternatives: Sequence[Any] | None = None,
    name: str = "data",
    min_alternatives: int = 2,
    min_conditions: int = 2,
    tie_tols: tuple[float, float] | None = None,
) -> _Matrix:
    """Wide or long input -> (n, k) float64 matrix with NaN for missing; checks sizes.

    With ``tie_tols = (tie_rtol, tie_atol)`` the scores of a condition within the Study's
    tie tolerance are made equal (``_ranks.snap_ties``), so a rank test ranks them as ties.
    """
    alts = _names(alternatives, "order")
    if y_col is not None or group_col is not None:
        m = _long_matrix(to_polars(data, name), y_col, block_col, group_col, alts, name)
    elif _is_frame(data):
        m = _wide_frame_matrix(to_polars(data, name), block_col, alts, name)
    else:
        if block_col is not None:
            raise GenexpyInputError(
                f"{name}: block_col={block_col!r} names a column, but the data is an array. "
                "Pass a polars/pandas frame, or leave block_col out."
            )
        m = _array_matrix(data, alts, name)
    n, k = m.values.shape
    if k < min_alternatives:
        raise GenexpyInputError(
            f"{name}: {k} alternative(s); at least {min_alternatives} are needed to compare "
            "(one column per alternative, one row per condition)."
        )
    if n < min_conditions:
        raise GenexpyInputError(
            f"{name}: {n} condition(s); at least {min_conditions} are needed (one row per "
            "condition, one column per alternative)."
        )
    if np.isinf(m.values).any():
        raise GenexpyInputError(
            f"{name}: contains infinite values; replace them (e.g. by NaN for missing)."
        )
    if tie_tols is not None:
        from ..study.ranking import check_tie_tolerances
        from ._ranks import snap_ties

        try:
            rtol, atol = check_tie_tolerances(*tie_tols)
        except GenexpyInputError:
            raise GenexpyInputError(
                f"tie_rtol must lie in [0, 1) and tie_atol be a finite number >= 0, got "
                f"{tie_tols[0]!r} and {tie_tols[1]!r} (0, 0 ranks by exact equality)."
            ) from None
        m = replace(m, values=snap_ties(m.values, rtol, atol))
    return m


def _orient(values: np.ndarray, higher_is_better: bool) -> np.ndarray:
    """Values such that smaller = better (rank 1 = best); ``higher_is_better`` checked."""
    return np.ascontiguousarray(-values if higher_is_better else values)


def _complete_rows(values: np.ndarray, nan_policy: str, name: str, min_rows: int = 2):
    """Apply nan_policy to a matrix: returns (values, n_dropped, propagate_nan)."""
    check_choice("nan_policy", nan_policy, _NAN_POLICIES)
    missing = np.isnan(values)
    if not missing.any():
        return values, 0, False
    if nan_policy == "raise":
        i, j = np.argwhere(missing)[0]
        raise GenexpyInputError(
            f"{name}: {int(missing.sum())} missing value(s) (NaN/null), first in row {i}, "
            f"column {j}. Use nan_policy='omit' to drop incomplete conditions, or "
            "skillings_mack(...) to use them."
        )
    if nan_policy == "propagate":
        return values, 0, True
    keep = ~missing.any(axis=1)
    out = np.ascontiguousarray(values[keep])
    if out.shape[0] < min_rows:
        raise GenexpyInputError(
            f"{name}: only {out.shape[0]} condition(s) have no missing value (need "
            f"{min_rows}). Use skillings_mack(...), which uses incomplete conditions."
        )
    return out, int((~keep).sum()), False


def _as_1d(x: Any, name: str) -> np.ndarray:
    arr = float_array(x, f"{name}: expected a sequence of numbers.")
    if arr.ndim != 1:
        raise GenexpyInputError(f"{name}: expected a 1-d sequence, got shape {arr.shape}.")
    if np.isinf(arr).any():
        raise GenexpyInputError(f"{name}: contains infinite values.")
    return arr


def _paired_differences(x: Any, y: Any, nan_policy: str,
                        mismatch: str = "x and y must be paired (same length), got {nx} and "
                                        "{ny} values.",
                        no_propagate: str | None = None) -> tuple[np.ndarray, bool]:
    """``d = x - y`` (or ``x`` alone when ``y`` is None) after the nan_policy: (d, propagate).

    ``mismatch`` is the error for unequal lengths (``{nx}``, ``{ny}`` filled in);
    ``no_propagate``, when given, is the error for ``nan_policy='propagate'``.
    """
    xa = _as_1d(x, "x")
    arrays, names = [xa], ["x"]
    if y is not None:
        ya = _as_1d(y, "y")
        if ya.shape != xa.shape:
            raise GenexpyInputError(mismatch.format(nx=xa.size, ny=ya.size))
        arrays.append(ya)
        names.append("y")
    if no_propagate is not None and nan_policy == "propagate":
        raise GenexpyInputError(no_propagate)
    arrays, propagate = _nan_1d(arrays, names, nan_policy, paired=True)
    return (arrays[0] - arrays[1] if len(arrays) == 2 else arrays[0]), propagate


def _nan_1d(arrays: list[np.ndarray], names: list[str], nan_policy: str, paired: bool):
    """nan_policy for 1-d samples: returns (arrays, propagate_nan)."""
    check_choice("nan_policy", nan_policy, _NAN_POLICIES)
    has = [bool(np.isnan(a).any()) for a in arrays]
    if not any(has):
        return arrays, False
    if nan_policy == "raise":
        raise GenexpyInputError(
            f"{names[has.index(True)]}: contains NaN. Use nan_policy='omit' to drop "
            f"{'the pairs with' if paired else ''} missing values."
        )
    if nan_policy == "propagate":
        return arrays, True
    if paired:
        keep = ~np.any(np.isnan(np.vstack(arrays)), axis=0)
        return [a[keep] for a in arrays], False
    return [a[~np.isnan(a)] for a in arrays], False


def check_sizes(n_train: float, n_test: float) -> tuple[float, float]:
    """Return the training and test set sizes of a resampled t-test as floats, checked."""
    try:
        n1, n2 = float(n_train), float(n_test)
    except (TypeError, ValueError):
        raise GenexpyInputError("n_train and n_test must be numbers (set sizes).") from None
    if not (math.isfinite(n1) and n1 > 0):
        raise GenexpyInputError(f"n_train must be a finite number > 0, got {n_train!r}.")
    if not (math.isfinite(n2) and n2 >= 0):
        raise GenexpyInputError(f"n_test must be a finite number >= 0, got {n_test!r}.")
    return n1, n2
