"""Readers of evaluation logs into tidy long frames (one row per result).

* :func:`read_lm_eval_samples` — lm-evaluation-harness per-sample logs (``--log_samples``,
  ``samples_<task>_<time>.jsonl``);
* :func:`read_inspect_log` — inspect_ai logs in JSON (``inspect log convert --to json``),
  one row per sample, epoch and scorer;
* :func:`read_eee` / :func:`read_eee_instances` — the Every Eval Ever schema: aggregate
  JSON files and instance-level JSONL files;
* :func:`read_tsml_results` — time-series classification bake-off results (one CSV per
  classifier and metric, datasets × resamples, as in tsml-eval and aeon).

lm-evaluation-harness results files (0.3 and 0.4+) are read by
:func:`genexpy_nb.read_lm_eval`. Every frame has a ``higher_is_better`` column holding the
direction where the format states it and null where it does not; :func:`direction` reads
it, and refuses when it is missing or mixed (state it yourself then). Files are parsed as
data only, their size checked before they are read; a file or folder that yields no result
raises a :class:`~genexpy_nb.GenexpyInputError` naming what it found.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import re
from collections import Counter
from pathlib import Path
from typing import Any

import polars as pl

from .._io import check_input_file
from .._validation import GenexpyInputError

__all__ = ["direction", "read_eee", "read_eee_instances", "read_inspect_log",
           "read_lm_eval_samples", "read_tsml_results"]

#: the largest log file read
MAX_BYTES = 512 * 2**20
#: the most files read from one folder
MAX_FILES = 20_000

#: inspect_ai's letter scores (``value_to_float``): correct, incorrect, partial, no answer
INSPECT_LETTERS = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}


def _files(path, patterns: tuple[str, ...], what: str) -> list[Path]:
    root = Path(path).expanduser()
    if not root.is_dir():
        return [check_input_file(root, what, max_bytes=MAX_BYTES)]
    files = sorted({p for pat in patterns for p in root.rglob(pat)
                    if not p.is_symlink() or p.resolve().is_relative_to(root.resolve())})
    if not files:
        raise GenexpyInputError(f"no {' or '.join(patterns)} file under {str(path)!r}; give "
                                f"the folder (or the file) of the {what}s.")
    if len(files) > MAX_FILES:
        raise GenexpyInputError(f"{len(files)} files under {str(path)!r}, more than the "
                                f"{MAX_FILES} this reader accepts; give a smaller folder.")
    return [check_input_file(f, what, max_bytes=MAX_BYTES) for f in files]


def _nothing(path, files: list[Path], problems: list[str], fix: str) -> GenexpyInputError:
    counts = Counter(problems)
    found = "; ".join(f"{n} × {p}" for p, n in counts.most_common(4))
    return GenexpyInputError(
        f"no result read from {str(path)!r} ({len(files)} file(s) looked at"
        + (f": {found}" if found else "") + f"). {fix}")


def _load_json(f: Path, problems: list[str]):
    try:
        return json.loads(f.read_bytes())
    except (ValueError, RecursionError):
        problems.append("not valid JSON (or not text)")
        return None


def _json_lines(f: Path, problems: list[str]):
    try:
        text = f.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        problems.append("not UTF-8 text (a binary file?)")
        return
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            doc = json.loads(line)
        except (ValueError, RecursionError):
            problems.append(f"line {n} is not valid JSON" if n < 4 else "a line not JSON")
            continue
        if not isinstance(doc, dict):
            problems.append(f"a line holding a JSON {type(doc).__name__}, not an object")
            continue
        yield doc


def _score(v: Any) -> float | None:
    """Return a finite float from a per-item score; ``True``/``False`` are 1/0."""
    if isinstance(v, bool):
        return float(v)
    if not isinstance(v, (int, float)):
        return None
    try:
        v = float(v)
    except OverflowError:  # a JSON integer of hundreds of digits
        return None
    return v if math.isfinite(v) else None


_SCHEMA_ITEMS = {"model": pl.String, "task": pl.String, "item": pl.String, "run": pl.Int64,
                 "metric": pl.String, "value": pl.Float64, "higher_is_better": pl.Boolean}


def _frame(rows: list[tuple], schema: dict, keys: list[str]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=schema, orient="row").sort(keys)


def direction(df: pl.DataFrame, column: str = "higher_is_better") -> bool:
    """Return the direction of the scores in a frame read by these readers.

    Parameters
    ----------
    df : polars.DataFrame
        A frame with a ``higher_is_better`` column (the readers' output, filtered to
        one metric).
    column : str
        The column holding the direction.

    Returns
    -------
    bool
        True when higher scores are better.

    Raises
    ------
    GenexpyInputError
        When the file did not state the direction (nulls) or the frame mixes metrics of
        both directions: state ``higher_is_better`` yourself, or filter to one metric.
    """
    if column not in df.columns:
        raise GenexpyInputError(f"the table has no {column!r} column; state "
                                "higher_is_better yourself.")
    vals = df[column].unique().to_list()
    if None in vals:
        raise GenexpyInputError(
            "the file does not state whether higher scores are better for "
            f"{df[column].null_count()} row(s); state higher_is_better yourself.")
    if len(vals) != 1:
        raise GenexpyInputError("the table mixes metrics where higher is better and metrics "
                                "where lower is better; filter it to one metric first.")
    return bool(vals[0])


# --- lm-evaluation-harness per-sample logs ---------------------------------------------

_SAMPLES_NAME = re.compile(r"^samples_(?P<task>.+?)_(?P<stamp>\d{4}-\d{2}-\d{2}T[\d\-.:]+)"
                           r"\.jsonl$")


def _lm_eval_sidecar(f: Path) -> tuple[str | None, dict]:
    """Model name and directions from the results file written with a samples file."""
    m = _SAMPLES_NAME.match(f.name)
    if not m:
        return None, {}
    side = f.with_name(f"results_{m['stamp']}.json")
    if not side.is_file():
        return None, {}
    try:
        doc = json.loads(check_input_file(side, "lm-eval results file",
                                          max_bytes=MAX_BYTES).read_bytes())
    except (ValueError, RecursionError):
        return None, {}
    if not isinstance(doc, dict):
        return None, {}
    from ._lm_eval_results import directions, model_name

    return model_name(doc, f.parent.name), directions(doc)


def read_lm_eval_samples(path: str | os.PathLike, *, model: str | None = None) -> pl.DataFrame:
    """Read lm-evaluation-harness per-sample logs (``--log_samples``) into per-item rows.

    Each ``samples_<task>_<time>.jsonl`` line is one document (``doc_id``) under one
    filter; its ``metrics`` list names the keys holding its per-item values (``acc``,
    ``exact_match``: 0/1 correctness or a score; ``True``/``False`` read as 1/0).

    Parameters
    ----------
    path : str or path-like
        A samples file, or a folder searched recursively for ``samples_*.jsonl``.
    model : str, optional
        The model's name. Default: ``model_name`` (or ``pretrained=``) of the
        ``results_<time>.json`` written beside the samples file, else the folder's name.

    Returns
    -------
    polars.DataFrame
        ``model``, ``task`` (from the file name), ``item`` (``doc_id``), ``run`` (0: the
        harness writes one scored response per document), ``metric`` (``"acc,none"``:
        metric and filter), ``value``, ``higher_is_better`` (from the results file
        beside it; null where there is none).
    """
    files = _files(path, ("samples_*.jsonl",), "lm-eval samples file")
    rows, problems = [], []
    for f in files:
        name, hib = _lm_eval_sidecar(f)
        m = _SAMPLES_NAME.match(f.name)
        task = m["task"] if m else f.stem.removeprefix("samples_")
        who = model or name or f.parent.name
        before = len(rows)
        for doc in _json_lines(f, problems):
            keys = doc.get("metrics")
            if "doc_id" not in doc or not isinstance(keys, list):
                problems.append("a line without doc_id and metrics: not an lm-eval sample")
                continue
            filt = str(doc.get("filter", "none"))
            for key in keys:
                v = _score(doc.get(key))
                if v is None:
                    problems.append(f"metric {str(key)[:30]!r} without a finite number")
                    continue
                rows.append((who, task, str(doc["doc_id"]), 0, f"{key},{filt}", v,
                             hib.get(task, {}).get(str(key))))
        if len(rows) == before and not problems:
            problems.append("an empty file")
    if not rows:
        raise _nothing(path, files, problems, "Give the samples_<task>_<time>.jsonl files "
                       "lm_eval --log_samples wrote.")
    return _frame(rows, _SCHEMA_ITEMS, ["model", "task", "metric", "item", "run"])


# --- inspect_ai -------------------------------------------------------------------------

def _inspect_value(v: Any) -> tuple[float | None, bool | None]:
    """(value, higher_is_better): letters and booleans are correctness, numbers unstated."""
    if isinstance(v, str) and v.strip().upper() in INSPECT_LETTERS:
        return INSPECT_LETTERS[v.strip().upper()], True
    if isinstance(v, bool):
        return float(v), True
    return _score(v), None


def _inspect_rows(doc: dict, problems: list[str]) -> list[tuple]:
    ev = doc.get("eval")
    samples = doc.get("samples")
    if not isinstance(ev, dict) or not isinstance(samples, list):
        problems.append("no 'eval' and 'samples': not an inspect_ai JSON log (or it was "
                        "written without samples)")
        return []
    model, task = str(ev.get("model", "?")), str(ev.get("task", "?"))
    out = []
    for s in samples:
        scores = s.get("scores") if isinstance(s, dict) else None
        if not isinstance(scores, dict):
            problems.append("a sample without scores")
            continue
        for scorer, sc in scores.items():
            raw = sc.get("value") if isinstance(sc, dict) else None
            pairs = (raw.items() if isinstance(raw, dict) else [(None, raw)])
            for key, v in pairs:
                value, hib = _inspect_value(v)
                if value is None:
                    problems.append(f"score {str(v)[:20]!r} is neither a number nor C/I/P/N")
                    continue
                metric = str(scorer) if key is None else f"{scorer}.{key}"
                epoch = s.get("epoch", 1)
                out.append((model, task, str(s.get("id")),
                            int(epoch) if isinstance(epoch, int) else 1, metric, value, hib))
    return out


def read_inspect_log(path: str | os.PathLike) -> pl.DataFrame:
    """Read inspect_ai evaluation logs (JSON) into per-sample rows.

    Parameters
    ----------
    path : str or path-like
        A log file written as JSON (``--log-format json``, or
        ``inspect log convert --to json`` for ``.eval`` files), or a folder of them.

    Returns
    -------
    polars.DataFrame
        ``model``, ``task``, ``item`` (the sample's id), ``run`` (its epoch), ``metric``
        (the scorer; ``scorer.key`` for a scorer returning several values), ``value``,
        ``higher_is_better``. inspect_ai's letter scores are correctness, read as its
        ``value_to_float`` does (C = 1, I = 0, P = 0.5, N = 0; higher is better); a
        numeric score does not state its direction (null).
    """
    root = Path(path).expanduser()
    if root.is_file() and root.suffix == ".eval":
        raise GenexpyInputError(
            f"{str(path)!r} is an inspect_ai .eval archive; convert it to JSON first: "
            "inspect log convert --to json --output-dir out_json <file>.")
    files = _files(path, ("*.json",), "inspect_ai log")
    rows, problems = [], []
    for f in files:
        doc = _load_json(f, problems)
        if doc is None:
            continue
        if not isinstance(doc, dict):
            problems.append(f"a JSON {type(doc).__name__}, not a log object")
            continue
        rows.extend(_inspect_rows(doc, problems))
    if not rows:
        raise _nothing(path, files, problems, "Give inspect_ai logs in JSON with their "
                       "samples.")
    return _frame(rows, _SCHEMA_ITEMS, ["model", "task", "metric", "item", "run"])


# --- Every Eval Ever --------------------------------------------------------------------

def _eee_direction(cfg: Any) -> bool | None:
    lib = cfg.get("lower_is_better") if isinstance(cfg, dict) else None
    return (not lib) if isinstance(lib, bool) else None


def _eee_metric(res: dict) -> str:
    cfg = res.get("metric_config") if isinstance(res.get("metric_config"), dict) else {}
    for k in ("metric_id", "metric_name", "metric_kind"):
        if isinstance(cfg.get(k), str) and cfg[k]:
            return cfg[k]
    return "score"


def _eee_stderr(details: dict) -> float | None:
    unc = details.get("uncertainty")
    se = unc.get("standard_error") if isinstance(unc, dict) else None
    if isinstance(se, dict):
        se = se.get("value")
    return _score(se) if not isinstance(se, bool) else None


def _eee_aggregate_rows(doc: dict, problems: list[str]) -> list[tuple]:
    results = doc.get("evaluation_results")
    info = doc.get("model_info")
    if not isinstance(results, list) or not isinstance(info, dict):
        problems.append("no 'evaluation_results' list and 'model_info': not an Every Eval "
                        "Ever aggregate file")
        return []
    model = str(info.get("id") or info.get("name") or "?")
    out = []
    for res in results:
        if not isinstance(res, dict):
            problems.append("an evaluation result that is not an object")
            continue
        details = res.get("score_details") if isinstance(res.get("score_details"), dict) else {}
        v = details.get("score")
        value = None if isinstance(v, bool) else _score(v)
        if value is None:
            problems.append(f"score {str(v)[:20]!r} is not a finite number")
            continue
        out.append((model, str(res.get("evaluation_name", "?")), _eee_metric(res), value,
                    _eee_stderr(details), _eee_direction(res.get("metric_config")),
                    str(doc.get("evaluation_id", ""))))
    return out


_SCHEMA_EEE = {"model": pl.String, "evaluation": pl.String, "metric": pl.String,
               "value": pl.Float64, "stderr": pl.Float64, "higher_is_better": pl.Boolean,
               "evaluation_id": pl.String}


def read_eee(path: str | os.PathLike) -> pl.DataFrame:
    """Read Every Eval Ever aggregate files (JSON) into one row per model and evaluation.

    Parameters
    ----------
    path : str or path-like
        An aggregate ``.json`` file or a folder searched recursively for them.

    Returns
    -------
    polars.DataFrame
        ``model`` (``model_info.id``), ``evaluation`` (``evaluation_name``), ``metric``
        (``metric_config.metric_id``, else its name, else ``"score"``), ``value``
        (``score_details.score``), ``stderr`` (its stated standard error, else null),
        ``higher_is_better`` (``not metric_config.lower_is_better``, as the schema
        states it), ``evaluation_id``.
    """
    files = _files(path, ("*.json",), "Every Eval Ever aggregate file")
    rows, problems = [], []
    for f in files:
        doc = _load_json(f, problems)
        if doc is None:
            continue
        if not isinstance(doc, dict):
            problems.append(f"a JSON {type(doc).__name__}, not an object")
            continue
        rows.extend(_eee_aggregate_rows(doc, problems))
    if not rows:
        raise _nothing(path, files, problems, "Give Every Eval Ever aggregate JSON files.")
    return _frame(rows, _SCHEMA_EEE, ["model", "evaluation", "metric"])


def _eee_directions(files: list[Path]) -> dict[tuple[str, str], bool]:
    """(evaluation_id, evaluation_name or result id) → higher_is_better, from aggregates."""
    out: dict[tuple[str, str], bool] = {}
    for f in files:
        try:
            doc = json.loads(f.read_bytes())
        except (ValueError, RecursionError, OSError):
            continue
        if not isinstance(doc, dict) or not isinstance(doc.get("evaluation_results"), list):
            continue
        for res in doc["evaluation_results"]:
            if not isinstance(res, dict):
                continue
            d = _eee_direction(res.get("metric_config"))
            if d is None:
                continue
            for key in ("evaluation_name", "evaluation_result_id"):
                if isinstance(res.get(key), str):
                    out[(str(doc.get("evaluation_id", "")), res[key])] = d
    return out


def read_eee_instances(path: str | os.PathLike) -> pl.DataFrame:
    """Read Every Eval Ever instance-level files (JSONL) into per-item rows.

    Parameters
    ----------
    path : str or path-like
        An instance-level ``.jsonl`` file or a folder searched recursively for them
        (with the aggregate ``.json`` files that state each metric's direction).

    Returns
    -------
    polars.DataFrame
        ``model`` (``model_id``), ``task`` (``evaluation_name``), ``item``
        (``sample_id``), ``run`` (0: the schema has one record per sample and metric),
        ``metric`` (``"score"``), ``value`` (``evaluation.score``, else
        ``evaluation.is_correct`` as 1/0), ``higher_is_better`` (from the aggregate file
        of the same ``evaluation_id`` found beside it; null where there is none).
    """
    files = _files(path, ("*.jsonl",), "Every Eval Ever instance file")
    root = Path(path).expanduser()
    folder = root if root.is_dir() else root.parent
    aggregates = sorted(p for p in folder.rglob("*.json") if p.is_file())[:MAX_FILES]
    hib = _eee_directions([check_input_file(p, "aggregate file", max_bytes=MAX_BYTES)
                           for p in aggregates])
    rows, problems = [], []
    for f in files:
        for doc in _json_lines(f, problems):
            ev = doc.get("evaluation")
            if not isinstance(ev, dict) or "sample_id" not in doc:
                problems.append("a record without sample_id and evaluation: not an Every "
                                "Eval Ever instance")
                continue
            v = ev.get("score")
            value = _score(v) if not isinstance(v, bool) else None
            if value is None and isinstance(ev.get("is_correct"), bool):
                value = float(ev["is_correct"])
            if value is None:
                problems.append(f"score {str(v)[:20]!r} is not a finite number")
                continue
            eid = str(doc.get("evaluation_id", ""))
            name = str(doc.get("evaluation_name", "?"))
            d = hib.get((eid, str(doc.get("evaluation_result_id", name))), hib.get((eid, name)))
            rows.append((str(doc.get("model_id", "?")), name, str(doc["sample_id"]), 0,
                         "score", value, d))
    if not rows:
        raise _nothing(path, files, problems, "Give Every Eval Ever instance-level JSONL "
                       "files.")
    return _frame(rows, _SCHEMA_ITEMS, ["model", "task", "item", "run"])


# --- time-series classification bake-off results ----------------------------------------

_TSML_NAME = re.compile(r"^(?P<est>.+)_(?P<metric>[A-Za-z0-9\-]+)$")
_SCHEMA_TSML = {"classifier": pl.String, "dataset": pl.String, "resample": pl.Int64,
                "metric": pl.String, "value": pl.Float64, "higher_is_better": pl.Boolean}


def _tsml_rows(f: Path, problems: list[str]) -> list[tuple]:
    try:
        text = f.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError:
        problems.append("not UTF-8 text (a binary file?)")
        return []
    table = list(csv.reader(io.StringIO(text)))
    if not table or not table[0] or table[0][0].strip().lower().rstrip(":") not in (
            "resamples", "folds"):
        problems.append("no 'Resamples:' header: not a results file of one classifier")
        return []
    try:
        resamples = [int(c) for c in table[0][1:]]
    except ValueError:
        problems.append("a 'Resamples:' header with a non-integer resample")
        return []
    m = _TSML_NAME.match(f.stem)
    est, metric = (m["est"], m["metric"]) if m else (f.stem, "score")
    out = []
    for row in table[1:]:
        if not row or not row[0].strip():
            continue
        for r, cell in zip(resamples, row[1:]):
            try:
                v = float(cell)
            except ValueError:
                v = math.nan
            if not math.isfinite(v):
                problems.append(f"a cell {cell[:20]!r} that is not a finite number")
                continue
            out.append((est, row[0].strip(), r, metric, v, None))
    return out


def read_tsml_results(path: str | os.PathLike) -> pl.DataFrame:
    """Read time-series classification results files: one CSV per classifier and metric.

    The layout of tsml-eval, aeon's reference results and the UEA bake-offs
    (``<Classifier>_<metric>.csv``): a header ``Resamples:,0,1,…`` then one row per
    dataset with one value per resample.

    Parameters
    ----------
    path : str or path-like
        One results file or a folder searched recursively for ``*.csv``.

    Returns
    -------
    polars.DataFrame
        ``classifier`` and ``metric`` (from the file name), ``dataset``, ``resample``,
        ``value``, ``higher_is_better`` (null: the files do not state it; state it when
        you build a :class:`~genexpy_nb.Study`). Empty cells are skipped.
    """
    files = _files(path, ("*.csv",), "results file")
    rows, problems = [], []
    for f in files:
        rows.extend(_tsml_rows(f, problems))
    if not rows:
        raise _nothing(path, files, problems, "Give <Classifier>_<metric>.csv files with a "
                       "'Resamples:' header.")
    return _frame(rows, _SCHEMA_TSML, ["classifier", "metric", "dataset", "resample"])
