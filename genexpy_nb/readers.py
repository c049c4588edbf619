"""Readers for the formats benchmark results come in, into the long tidy form of a Study.

* :func:`read_lm_eval` — an lm-evaluation-harness output folder (``results_*.json``);
* :func:`split_id_column` — a fold or seed encoded in an id (OpenML / AutoML-benchmark
  ``"10090_3"``) into its own column;
* :func:`wide_to_long` — a table with one column per alternative into one row per result.

Every reader can say what it dropped (``return_dropped=True``): a frame with one row per
dropped item and the reason. Files are read as data only (JSON is parsed, never executed),
each file's size is checked before it is read.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import polars as pl

from ._io import check_input_file
from ._validation import GenexpyInputError, to_polars

__all__ = ["read_lm_eval", "split_id_column", "wide_to_long"]

#: the largest results file read (lm-eval's results files are kilobytes; sample logs are
#: other files, not read)
LM_EVAL_MAX_BYTES = 64 * 2**20
#: the most results files read from one folder
LM_EVAL_MAX_FILES = 10_000

_DROPPED_SCHEMA = {"item": pl.String, "reason": pl.String}


def _dropped(rows: list[tuple[str, str]]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=_DROPPED_SCHEMA, orient="row")


def _model_name(doc: dict, folder: str) -> str:
    name = doc.get("model_name")
    if isinstance(name, str) and name.strip():
        return name
    cfg = doc.get("config")
    args = cfg.get("model_args") if isinstance(cfg, dict) else None
    if isinstance(args, dict):
        pre = args.get("pretrained") or args.get("model")
        if isinstance(pre, str) and pre:
            return pre
    elif isinstance(args, str):
        for part in args.split(","):
            key, _, value = part.partition("=")
            if key.strip() in ("pretrained", "model") and value.strip():
                return value.strip()
    return folder


def _number(v: Any) -> float | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    v = float(v)
    return v if math.isfinite(v) else None


def read_lm_eval(path: str | os.PathLike, *, return_dropped: bool = False):
    """Read an lm-evaluation-harness output folder into a tidy frame.

    lm-evaluation-harness (``lm_eval --output_path out``) writes one ``results_<time>.json``
    per run, in a sub-folder per model. Each holds ``results`` → task → ``"metric,filter"``
    keys (``"acc,none"``) with their standard errors (``"acc_stderr,none"``). Every such
    file under ``path`` (searched recursively, or ``path`` itself if it is a file) is read.

    Parameters
    ----------
    path : str or path-like
        The output folder (or one results file).
    return_dropped : bool
        Also return a frame (``item``, ``reason``) of what was not read: ``"metric,filter"``
        values that are not finite numbers, files that are not JSON or hold no ``results``
        object, results of a (model, task, metric, filter) superseded by a later file of the
        same model. Keys without a filter (``alias``, ``name``, ``sample_len``) are
        metadata, not results, and are not listed; an ``"N/A"`` standard error is a null
        ``stderr``, not a dropped result.

    Returns
    -------
    polars.DataFrame
        ``model``, ``task``, ``metric``, ``filter``, ``value``, ``stderr`` (null where the
        harness gave none), one row per result; with ``return_dropped``, ``(frame, dropped)``.
        The model is the file's ``model_name``, else ``pretrained=`` of
        ``config.model_args``, else the name of the file's folder.

    Examples
    --------
    >>> import json, tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp()) / "org__m"
    >>> d.mkdir()
    >>> _ = (d / "results_2024-01-01T00-00-00.json").write_text(json.dumps({
    ...     "results": {"arc_easy": {"alias": "arc_easy", "acc,none": 0.5,
    ...                               "acc_stderr,none": 0.01}},
    ...     "model_name": "org/m"}))
    >>> read_lm_eval(d.parent).row(0)
    ('org/m', 'arc_easy', 'acc', 'none', 0.5, 0.01)
    """
    root = Path(path).expanduser()
    if root.is_dir():
        files = sorted(p for p in root.rglob("results*.json") if not p.is_symlink()
                       or p.resolve().is_relative_to(root.resolve()))
        if not files:
            raise GenexpyInputError(
                f"no results_*.json file under {str(path)!r}; give the folder lm_eval "
                "--output_path wrote to."
            )
    else:
        files = [root]
    if len(files) > LM_EVAL_MAX_FILES:
        raise GenexpyInputError(
            f"{len(files)} results files under {str(path)!r}, more than the "
            f"{LM_EVAL_MAX_FILES} this reader accepts; give the folder of one study."
        )
    dropped: list[tuple[str, str]] = []
    found: dict[tuple[str, str, str, str], tuple[float, float | None, str]] = {}
    # file names carry the run's time stamp: sorted, a later run of a model replaces an
    # earlier one (and says so)
    for f in sorted(files, key=lambda p: (p.name, str(p))):
        p = check_input_file(f, "lm-eval results file", max_bytes=LM_EVAL_MAX_BYTES)
        try:
            doc = json.loads(p.read_bytes())
        except (ValueError, RecursionError):
            dropped.append((str(f), "not valid JSON"))
            continue
        results = doc.get("results") if isinstance(doc, dict) else None
        if not isinstance(results, dict):
            dropped.append((str(f), "no 'results' object: not an lm-eval results file"))
            continue
        model = _model_name(doc, f.parent.name)
        for task, metrics in results.items():
            if not isinstance(metrics, dict):
                dropped.append((f"{f.name}: {task}", "task entry is not an object"))
                continue
            for key, v in metrics.items():
                metric, sep, filt = str(key).partition(",")
                if not sep or metric.endswith("_stderr"):
                    continue  # alias, samples count...; stderr keys are read with their metric
                value = _number(v)
                if value is None:
                    dropped.append((f"{f.name}: {task} {key}",
                                    f"value {str(v)[:40]!r} is not a finite number"))
                    continue
                se = _number(metrics.get(f"{metric}_stderr,{filt}"))
                k = (model, str(task), metric, filt)
                if k in found:
                    dropped.append((f"{found[k][2]}: {task} {key} of {model}",
                                    f"superseded by the later file {f.name}"))
                found[k] = (value, se, f.name)
    frame = pl.DataFrame(
        [(*k, v[0], v[1]) for k, v in found.items()],
        schema={"model": pl.String, "task": pl.String, "metric": pl.String,
                "filter": pl.String, "value": pl.Float64, "stderr": pl.Float64},
        orient="row",
    ).sort(["model", "task", "metric", "filter"])
    return (frame, _dropped(dropped)) if return_dropped else frame


def split_id_column(data: Any, column: str, *, into: tuple[str, str] = ("task", "fold"),
                    sep: str = "_", cast_second: bool = True) -> pl.DataFrame:
    """Split an id such as ``"10090_3"`` (task 10090, fold 3) into two columns.

    The id is split at the **last** ``sep``, so task names holding ``sep`` survive
    (``"credit_g_3"`` → ``"credit_g"``, 3).

    Parameters
    ----------
    data : polars / pandas DataFrame
        Never modified.
    column : str
        The id column; replaced by the two new ones at its place.
    into : (str, str)
        Names of the new columns (default ``("task", "fold")``).
    sep : str
        The separator (default ``"_"``).
    cast_second : bool
        Make the second part an integer when every value is one (default True).

    Returns
    -------
    polars.DataFrame

    Examples
    --------
    >>> import polars as pl
    >>> split_id_column(pl.DataFrame({"id": ["10090_3", "credit_g_0"], "acc": [0.9, 0.8]}),
    ...                 "id").rows()
    [('10090', 3, 0.9), ('credit_g', 0, 0.8)]
    """
    df = to_polars(data)
    if not isinstance(column, str) or column not in df.columns:
        raise GenexpyInputError(f"column {column!r} is not in the table; columns: "
                                f"{df.columns[:20]}.")
    if not isinstance(sep, str) or not sep:
        raise GenexpyInputError(f"sep must be a non-empty string, got {sep!r}.")
    if (not isinstance(into, (tuple, list)) or len(into) != 2
            or not all(isinstance(c, str) and c for c in into) or into[0] == into[1]):
        raise GenexpyInputError(f"into must be two different column names, got {into!r}.")
    clash = [c for c in into if c in df.columns and c != column]
    if clash:
        raise GenexpyInputError(f"the table already has the column(s) {clash}; choose "
                                "other names with into=(..., ...).")
    ids = df[column].cast(pl.String)
    bad = df.filter(ids.is_null() | ~ids.str.contains(sep, literal=True))[column]
    if bad.len():
        raise GenexpyInputError(
            f"{bad.len()} value(s) of {column!r} hold no {sep!r} to split at, e.g. "
            f"{bad.cast(pl.String).head(3).to_list()}; fix them or choose sep=."
        )
    first = ids.map_elements(lambda s: s.rsplit(sep, 1)[0], return_dtype=pl.String)
    second = ids.map_elements(lambda s: s.rsplit(sep, 1)[1], return_dtype=pl.String)
    if cast_second:
        as_int = second.cast(pl.Int64, strict=False)
        if as_int.null_count() == 0:
            second = as_int
    i = df.columns.index(column)
    out = df.drop(column)
    return out.insert_column(i, first.alias(into[0])).insert_column(i + 1,
                                                                    second.alias(into[1]))


def wide_to_long(data: Any, *, id_columns: str | list[str], alternatives: list[str] | None = None,
                 alternative_name: str = "alternative", value_name: str = "value",
                 return_dropped: bool = False):
    """Turn a wide table (one column per alternative) into the long form (one row per result).

    Parameters
    ----------
    data : polars / pandas DataFrame
        Never modified.
    id_columns : str or list of str
        The columns that identify a row (dataset, fold); kept.
    alternatives : list of str, optional
        The alternatives' columns (default: every other column).
    alternative_name, value_name : str
        Names of the new columns (default ``"alternative"``, ``"value"``).
    return_dropped : bool
        Also return a frame (``item``, ``reason``) of the results dropped: missing (null or
        NaN) cells.

    Returns
    -------
    polars.DataFrame
        ``id_columns``, ``alternative_name``, ``value_name``; with ``return_dropped``,
        ``(frame, dropped)``.

    Examples
    --------
    >>> import polars as pl
    >>> wide = pl.DataFrame({"dataset": ["d1", "d2"], "rf": [0.9, 0.8], "svm": [0.7, None]})
    >>> wide_to_long(wide, id_columns="dataset").rows()
    [('d1', 'rf', 0.9), ('d1', 'svm', 0.7), ('d2', 'rf', 0.8)]
    """
    df = to_polars(data)
    ids = [id_columns] if isinstance(id_columns, str) else list(id_columns)
    missing = [c for c in ids if c not in df.columns]
    if missing or not ids:
        raise GenexpyInputError(f"id_columns {missing or ids} not in the table; columns: "
                                f"{df.columns[:20]}.")
    alts = [c for c in df.columns if c not in ids] if alternatives is None else list(alternatives)
    bad = [c for c in alts if c not in df.columns or c in ids]
    if bad or not alts:
        raise GenexpyInputError(f"alternatives {bad or alts} are not value columns of the "
                                "table; name the alternatives' columns.")
    non_numeric = [c for c in alts if not df.schema[c].is_numeric()]
    if non_numeric:
        raise GenexpyInputError(f"the alternatives' columns {non_numeric[:10]} are not "
                                "numeric; pass alternatives= to choose the value columns.")
    for name in (alternative_name, value_name):
        if name in ids:
            raise GenexpyInputError(f"{name!r} is already an id column; choose another name.")
    long = df.select(ids + alts).with_columns(
        [pl.col(c).cast(pl.Float64) for c in alts]).unpivot(
        index=ids, on=alts, variable_name=alternative_name, value_name=value_name)
    # row-major: the rows of the wide table in order, alternatives in column order
    long = long.with_row_index("_i").with_columns(
        (pl.col("_i") % df.height).alias("_r")).sort(["_r", "_i"]).drop("_i", "_r")
    gone = long[value_name].is_null() | long[value_name].is_nan()
    dropped = long.filter(gone)
    out = long.filter(~gone)
    if not return_dropped:
        return out
    rows = [(", ".join(f"{c}={r[c]}" for c in ids) + f", {alternative_name}="
             f"{r[alternative_name]}", "missing value") for r in dropped.iter_rows(named=True)]
    return out, _dropped(rows)
