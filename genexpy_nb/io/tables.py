"""Readers for the formats benchmark results come in, into the long tidy form of a Study.

* :func:`read_lm_eval` — an lm-evaluation-harness output folder (``results_*.json``);
* :func:`split_id_column` — a fold or seed encoded in an id (OpenML / AutoML-benchmark
  ``"10090_3"``) into its own column;
* :func:`wide_to_long` — a table with one column per alternative into one row per result.

Every reader can say what it dropped (``return_dropped=True``): a frame with one row per
dropped item and the reason. :func:`read_lm_eval` also says it as a
:class:`~genexpy_nb.SkippedRecordsWarning`. Files are read as data only (JSON is parsed,
never executed); their number, each one's size and their total size are checked before
any is read.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import polars as pl

from .._io import check_input_files, read_input_bytes, warn_skipped
from .._validation import GenexpyInputError, to_polars
from ._lm_eval_results import directions, model_name
from .eval_logs import finite_number

__all__ = ["read_lm_eval", "split_id_column", "wide_to_long"]

#: the largest results file read (lm-eval's results files are kilobytes; sample logs are
#: other files, not read)
LM_EVAL_MAX_BYTES = 64 * 2**20
#: the most results files read from one folder
LM_EVAL_MAX_FILES = 10_000
#: the most bytes :func:`read_lm_eval` reads in all, by default (``max_bytes=`` raises it)
LM_EVAL_MAX_TOTAL_BYTES = 1 * 2**30

_DROPPED_SCHEMA = {"item": pl.String, "reason": pl.String}


def _dropped(rows: list[tuple[str, str]]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=_DROPPED_SCHEMA, orient="row")


def _revision(doc: dict) -> str | None:
    cfg = doc.get("config")
    args = cfg.get("model_args") if isinstance(cfg, dict) else None
    rev = None
    if isinstance(args, dict):
        rev = args.get("revision")
    elif isinstance(args, str):
        for part in args.split(","):
            key, _, value = part.partition("=")
            if key.strip() == "revision":
                rev = value.strip()
    return rev if isinstance(rev, str) and rev and rev != "main" else None


def _task_rows(task: str, metrics: dict, fname: str, dropped: list):
    """(metric, filter, value, stderr) of one task entry, in either layout.

    0.4+: ``"acc,none"`` keys (metric, filter), ``"acc_stderr,none"`` their errors;
    keys without a comma (alias, name, sample_len) are metadata. 0.3: plain ``"acc"`` keys
    with ``"acc_stderr"``; every numeric key is a metric (filter ``"none"``).
    """
    layout_04 = any("," in str(k) for k in metrics)
    for key, v in metrics.items():
        metric, sep, filt = str(key).partition(",")
        if layout_04 and not sep:
            continue  # alias, samples count...
        if metric.endswith("_stderr"):
            continue  # read with their metric
        if not layout_04:
            if isinstance(v, str):
                continue  # an alias or a name
            filt = "none"
        value = finite_number(v, booleans=False)
        if value is None:
            dropped.append((fname, None, f"{task} {key}",
                            f"value {str(v)[:40]!r} is not a finite number"))
            continue
        se_key = f"{metric}_stderr,{filt}" if layout_04 else f"{metric}_stderr"
        yield metric, filt, value, finite_number(metrics.get(se_key), booleans=False)


def read_lm_eval(path: str | os.PathLike, *, return_dropped: bool = False,
                 max_bytes: int = LM_EVAL_MAX_TOTAL_BYTES):
    """Read an lm-evaluation-harness output folder into a tidy frame.

    lm-evaluation-harness 0.4+ (``lm_eval --output_path out``) writes one
    ``results_<time>.json`` per run, in a sub-folder per model. Each holds ``results`` →
    task → ``"metric,filter"`` keys (``"acc,none"``) with their standard errors
    (``"acc_stderr,none"``) and a ``higher_is_better`` table. Version 0.3 wrote plain
    ``"acc"`` / ``"acc_stderr"`` keys (filter ``"none"`` here) and no direction, in files
    of any name (public model suites' dumps such as ``160m_step143000.json``). Every
    ``.json`` file under ``path`` (searched recursively, or ``path`` itself if it is a
    file) is read; files that are not results files are listed as dropped, and a path
    that yields no result at all raises an error saying what it found.

    Parameters
    ----------
    path : str or path-like
        The output folder (or one results file).
    return_dropped : bool
        Also return a frame (``file``, ``line`` (null: JSON files are not read by line),
        ``item``, ``reason``) of what was not read: ``"metric,filter"`` values that are not
        finite numbers, files that are not JSON or hold no ``results`` object, results of a
        (model, task, metric, filter) superseded by a later file of the same model. Keys
        without a filter (``alias``, ``name``, ``sample_len``) are metadata, not results,
        and are not listed; an ``"N/A"`` standard error is a null ``stderr``, not a dropped
        result. A :class:`~genexpy_nb.SkippedRecordsWarning` says it in any case.
    max_bytes : int
        The most bytes read in all (default 1 GiB), checked before anything is read.

    Returns
    -------
    polars.DataFrame
        ``model``, ``task``, ``metric``, ``filter``, ``value``, ``stderr`` (null where the
        harness gave none), ``higher_is_better`` (as the file states it; null where it does
        not, as in 0.3 files: state the direction yourself), one row per result; with
        ``return_dropped``, ``(frame, dropped)``. The model is the file's ``model_name``,
        else ``pretrained=`` of ``config.model_args``, else the name of the file's folder;
        a ``revision=`` other than ``main`` is appended (``org/m@step143000``).

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
    ('org/m', 'arc_easy', 'acc', 'none', 0.5, 0.01, None)
    """
    root = Path(path).expanduser()
    if root.is_dir():
        files = sorted(p for p in root.rglob("*.json") if not p.is_symlink()
                       or p.resolve().is_relative_to(root.resolve()))
        if not files:
            raise GenexpyInputError(
                f"no results_*.json (or other .json) file under {str(path)!r}; give the "
                "folder lm_eval --output_path wrote to, or the folder of its results files."
            )
    else:
        files = [root]
    if not isinstance(max_bytes, int) or isinstance(max_bytes, bool) or max_bytes < 1:
        raise GenexpyInputError(f"max_bytes must be a positive whole number of bytes, got "
                                f"{max_bytes!r}.")
    check_input_files(files, path, "lm-eval results file", max_file_bytes=LM_EVAL_MAX_BYTES,
                      max_bytes=max_bytes, max_files=LM_EVAL_MAX_FILES, memory_per_byte=3.0)
    dropped: list[tuple] = []
    found: dict[tuple[str, str, str, str], tuple[float, float | None, str, bool | None]] = {}
    # file names carry the run's time stamp: sorted, a later run of a model replaces an
    # earlier one (and says so)
    for f in sorted(files, key=lambda p: (p.name, str(p))):
        try:
            doc = json.loads(read_input_bytes(f, "lm-eval results file"))
        except (ValueError, RecursionError):
            dropped.append((str(f), None, None, "not valid JSON (or not text)"))
            continue
        results = doc.get("results") if isinstance(doc, dict) else None
        if not isinstance(results, dict):
            what = ("a JSON " + type(doc).__name__ if not isinstance(doc, dict) else
                    "no 'results' object" if results is None else
                    f"'results' is a {type(results).__name__}, not an object")
            dropped.append((str(f), None, None, f"{what}: not an lm-eval results file"))
            continue
        model = model_name(doc, f.parent.name)
        rev = _revision(doc)
        if rev and not model.endswith(f"@{rev}"):
            model = f"{model}@{rev}"
        hib = directions(doc)
        for task, metrics in results.items():
            if not isinstance(metrics, dict):
                dropped.append((str(f), None, str(task), "task entry is not an object"))
                continue
            for metric, filt, value, se in _task_rows(str(task), metrics, str(f), dropped):
                k = (model, str(task), metric, filt)
                if k in found:
                    dropped.append((found[k][2], None, f"{task} {metric},{filt} of {model}",
                                    f"superseded by the later file {f.name}"))
                found[k] = (value, se, str(f), hib.get(str(task), {}).get(metric))
    if not found:
        raise GenexpyInputError(_nothing_read(path, len(files), dropped))
    frame = pl.DataFrame(
        [(*k, v[0], v[1], v[3]) for k, v in found.items()],
        schema={"model": pl.String, "task": pl.String, "metric": pl.String,
                "filter": pl.String, "value": pl.Float64, "stderr": pl.Float64,
                "higher_is_better": pl.Boolean},
        orient="row",
    ).sort(["model", "task", "metric", "filter"])
    report = warn_skipped(path, frame.height, dropped)
    return (frame, report) if return_dropped else frame


def _nothing_read(path, n_files: int, dropped: list[tuple]) -> str:
    """Say that a reader found no result, and what it found instead."""
    from collections import Counter

    counts = Counter(reason for *_, reason in dropped)
    found = "; ".join(f"{n} × {reason}" for reason, n in counts.most_common(4))
    return (f"no result read from {str(path)!r}: {n_files} file(s) looked at"
            + (f", found {found}" if found else ", holding no task with a numeric metric")
            + ". Give lm-evaluation-harness results files (a 'results' object of tasks).")


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
        Make the second part an integer when every value is one written plainly
        (``"3"``, not ``"03"`` or ``"+3"``: ``"t_03"`` and ``"t_3"`` stay distinct ids).

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
        if as_int.null_count() == 0 and (as_int.cast(pl.String) == second).all():
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
    if isinstance(alternatives, str):
        alternatives = [alternatives]  # one name, not its characters
    alts = [c for c in df.columns if c not in ids] if alternatives is None else list(alternatives)
    for what, names in (("id_columns", ids), ("alternatives", alts)):
        twice = sorted({c for c in names if names.count(c) > 1})
        if twice:
            raise GenexpyInputError(f"{what} names {twice} more than once; give each once.")
    if alternative_name == value_name:
        raise GenexpyInputError(f"alternative_name and value_name are both {value_name!r}; "
                                "give two different names.")
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
    # (a gather by position: no helper column that could collide with the user's names)
    import numpy as np

    order = np.arange(len(alts) * df.height).reshape(len(alts), df.height).T.ravel()
    long = long[order]
    gone = long[value_name].is_null() | long[value_name].is_nan()
    dropped = long.filter(gone)
    out = long.filter(~gone)
    if not return_dropped:
        return out
    rows = [(", ".join(f"{c}={r[c]}" for c in ids) + f", {alternative_name}="
             f"{r[alternative_name]}", "missing value") for r in dropped.iter_rows(named=True)]
    return out, _dropped(rows)
