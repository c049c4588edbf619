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
it, and refuses when it is missing or mixed (state it yourself then).

Each reader reads exactly or refuses:

* files are parsed as data only; their number, each one's size and their total size
  (``max_bytes``) are checked before anything is read, and so is the memory reading them
  needs;
* text is UTF-8, a byte-order mark is not part of the first record;
* every record skipped (not valid JSON, a line cut short where a file was truncated, a
  score that is not a finite number, a cell that is not a number, ...) is listed with its
  file, line and reason — in a :class:`~genexpy_nb.SkippedRecordsWarning` and, with
  ``return_dropped=True``, in a frame (``file``, ``line``, ``item``, ``reason``);
* ids keep their text and type: ``doc_id`` 1 and ``"1"`` are not merged (a log mixing
  them is refused); a record without an id is refused (never read as an item ``"None"``);
  run numbers (epochs, resamples) are whole numbers written plainly (``"2"`` is 2; ``1_0``,
  a fraction or a number beyond 2**31 - 1 is refused, naming the field);
* a record repeated within a file with the same value is read once (the repeat listed as
  skipped); repeated with another value, it is refused, naming the file and both lines;
  how reruns across files are read is each reader's rule, stated in its docstring;
* a file or folder that yields no result raises a :class:`~genexpy_nb.GenexpyInputError`
  naming what it found.
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

from .._io import check_input_file, check_input_files, read_input_bytes, warn_skipped
from .._validation import GenexpyInputError, fill_doc

__all__ = ["direction", "read_eee", "read_eee_instances", "read_inspect_log",
           "read_lm_eval_samples", "read_tsml_results"]

#: the largest log file read
MAX_BYTES = 512 * 2**20
#: the most bytes one call reads in all, by default (``max_bytes=`` raises it)
MAX_TOTAL_BYTES = 2 * 2**30
#: the most files read from one folder
MAX_FILES = 20_000
#: the largest run number (epoch, resample) read
MAX_RUN = 2**31 - 1

#: inspect_ai's letter scores (``value_to_float``): correct, incorrect, partial, no answer
INSPECT_LETTERS = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}

#: memory per byte of file while reading: JSON lines (each line parsed alone), whole JSON
#: documents (parsed at once: Python objects are ~10x their text), CSV cells
_MEMORY_PER_BYTE = {"jsonl": 4.0, "json": 3.0, "csv": 16.0}


def _files(path, patterns: tuple[str, ...], what: str, max_bytes: int,
           kind: str) -> list[Path]:
    if not isinstance(max_bytes, int) or isinstance(max_bytes, bool) or max_bytes < 1:
        raise GenexpyInputError(f"max_bytes must be a positive whole number of bytes, got "
                                f"{max_bytes!r}.")
    root = Path(path).expanduser()
    if not root.is_dir():
        return check_input_files([root], path, what, max_file_bytes=MAX_BYTES,
                                 max_bytes=max_bytes, max_files=MAX_FILES,
                                 memory_per_byte=_MEMORY_PER_BYTE[kind])
    files = sorted({p for pat in patterns for p in root.rglob(pat)
                    if not p.is_symlink() or p.resolve().is_relative_to(root.resolve())})
    if not files:
        raise GenexpyInputError(f"no {' or '.join(patterns)} file under {str(path)!r}; give "
                                f"the folder (or the file) of the {what}s.")
    return check_input_files(files, path, what, max_file_bytes=MAX_BYTES,
                             max_bytes=max_bytes, max_files=MAX_FILES,
                             memory_per_byte=_MEMORY_PER_BYTE[kind])


def _where(f: Path, line: int | None = None) -> str:
    return f"{f.name!r}" + (f" line {line}" if line is not None else "")


class _Read:
    """What one call read (rows) and skipped, the ids it saw and the records it kept."""

    def __init__(self, path, what: str) -> None:
        self.path, self.what = path, what
        self.rows: list[tuple] = []
        self.skipped: list[tuple] = []
        self.n_files = 0
        self.unterminated = False  # the last file read ends without a line end
        self._kinds: dict[tuple, tuple[str, Path, int | None, Any]] = {}
        self._seen: dict[tuple, tuple[float, Path, int | None, str]] = {}

    def skip(self, f: Path, line: int | None, reason: str, item: str | None = None) -> None:
        self.skipped.append((str(f), line, item, reason))

    def key(self, v: Any, field: str, f: Path, line: int | None, scope: Any,
            where: str | None = None) -> str:
        """Return the text of an id; refuse a missing id and one text from two types."""
        at = where or _where(f, line)
        if v is None or isinstance(v, bool) or not isinstance(v, (int, float, str)):
            what = "no" if v is None else f"a JSON {type(v).__name__} as its"
            raise GenexpyInputError(
                f"{self.what} {at} has {what} {field}: every record needs an id (a number "
                f"or a text) to pair it across runs and models; fix the file, or remove the "
                "record.")
        if isinstance(v, float) and not math.isfinite(v):
            raise GenexpyInputError(f"{self.what} {at}: {field} {v!r} is not an id; fix the "
                                    "file.")
        text = v if isinstance(v, str) else repr(v) if isinstance(v, float) else str(v)
        if isinstance(v, str) and not v.strip():
            raise GenexpyInputError(f"{self.what} {at} has an empty {field}; every record "
                                    "needs an id.")
        kind = "a text" if isinstance(v, str) else "a number"
        seen = self._kinds.setdefault((scope, text), (kind, f, line, v))
        if seen[0] != kind:
            raise GenexpyInputError(
                f"{field} {seen[3]!r} ({seen[0]}, {_where(seen[1], seen[2])}) and {v!r} "
                f"({kind}, {at}) would become one item {text!r}: ids keep their type; write "
                f"the {field}s of one task one way (all numbers or all texts).")
        return text

    def add(self, row: tuple, key: tuple, value: float, f: Path, line: int | None,
            where: str | None = None) -> None:
        """Keep a row; a repeat of a key is read once (same value) or refused."""
        at = where or _where(f, line)
        seen = self._seen.get(key)
        if seen is None:
            self._seen[key] = (value, f, line, at)
            self.rows.append(row)
            return
        old, g, old_line, old_at = seen
        if g != f:
            raise GenexpyInputError(
                f"{self.what}s {old_at} and {at} both hold the result "
                f"{_key_words(key)}: which one is it? Read the files apart (a folder per run) "
                "or remove one.")
        if old == value:
            first = f"line {old_line}" if old_line is not None else old_at.split(" ", 1)[1]
            self.skip(f, line, f"a repeat of {first} (the same result): read once",
                      _key_words(key))
            return
        raise GenexpyInputError(
            f"{self.what} {at} repeats the result {_key_words(key)} of "
            f"{old_at} with another value ({value:g}, there {old:g}): which one "
            "is it? Remove one of the two records.")

    def done(self, schema: dict, sort: list[str], fix: str, return_dropped: bool):
        if not self.rows:
            raise _nothing(self.path, self.n_files, self.skipped, fix)
        frame = pl.DataFrame(self.rows, schema=schema, orient="row").sort(sort)
        dropped = warn_skipped(self.path, frame.height, self.skipped, stacklevel=4)
        return (frame, dropped) if return_dropped else frame


def _key_words(key: tuple) -> str:
    return "(" + ", ".join(repr(k) if isinstance(k, str) else str(k) for k in key) + ")"


def _nothing(path, n_files: int, skipped: list[tuple], fix: str) -> GenexpyInputError:
    counts = Counter(reason for *_, reason in skipped)
    found = "; ".join(f"{n} × {p}" for p, n in counts.most_common(4))
    return GenexpyInputError(
        f"no result read from {str(path)!r} ({n_files} file(s) looked at"
        + (f": {found}" if found else "") + f"). {fix}")


def _load_json(f: Path, rd: _Read):
    rd.n_files += 1
    raw = read_input_bytes(f, rd.what)
    try:
        return json.loads(raw)  # bytes: a byte-order mark is recognised
    except (ValueError, RecursionError) as exc:
        # cut short: the parser ran out of text (at its end, or inside an open string)
        end = len(raw.decode("utf-8-sig", "replace").rstrip())
        cut = isinstance(exc, json.JSONDecodeError) and (
            exc.pos >= end - 1 or exc.msg.startswith("Unterminated string"))
        rd.skip(f, None, "the file ends in the middle of the JSON document (truncated?)" if cut
                else "not valid JSON (or not text)")
        return None


def _json_objects(files: list[Path], rd: _Read, what: str):
    """Yield ``(file, object)`` of the JSON files holding an object; skip the others."""
    for f in files:
        doc = _load_json(f, rd)
        if isinstance(doc, dict):
            yield f, doc
        elif doc is not None:
            rd.skip(f, None, f"a JSON {type(doc).__name__}, not {what}")
        del doc  # one document in memory at a time


def _read_text(f: Path, rd: _Read) -> str | None:
    """Return a file's UTF-8 text (a byte-order mark dropped), or skip it (None)."""
    rd.n_files += 1
    raw = read_input_bytes(f, rd.what)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        rd.skip(f, raw[:exc.start].count(b"\n") + 1, "not UTF-8 text (a binary file?)")
        return None


def _json_lines(f: Path, rd: _Read):
    r"""Yield (line number, object) of each line; a byte-order mark is not part of line 1.

    Lines are split at ``\n`` only (a JSON string may hold U+2028 and other characters
    that ``str.splitlines`` would split at); a last line without its line end that is not
    valid JSON is reported as cut short.
    """
    text = _read_text(f, rd)
    if text is None:
        return
    lines = text.split("\n")
    last = len(lines)
    if not text.strip():
        rd.skip(f, None, "an empty file")
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            doc = json.loads(line)
        except (ValueError, RecursionError):
            rd.skip(f, n, "cut short: the file ends inside this line (truncated?)" if n == last
                    else "not valid JSON")
            continue
        if not isinstance(doc, dict):
            rd.skip(f, n, f"a JSON {type(doc).__name__}, not an object")
            continue
        yield n, doc


#: the reading options of every reader of this module, in its docstring's ``{reading}``
_fill_reading = fill_doc(reading="""\
return_dropped : bool
    Also return the frame of every record skipped (``file``, ``line`` (null where the
    file is not read by line), ``item``, ``reason``); a
    :class:`~genexpy_nb.SkippedRecordsWarning` says it in any case.
max_bytes : int
    The most bytes read in all (default 2 GiB), checked before anything is read.
""")


def finite_number(v: Any, *, booleans: bool = True) -> float | None:
    """Return a JSON value as a finite float, else None (booleans: 1/0 if ``booleans``)."""
    if isinstance(v, bool):
        return float(v) if booleans else None
    if not isinstance(v, (int, float)):
        return None
    try:
        v = float(v)
    except OverflowError:  # a JSON integer of hundreds of digits
        return None
    return v if math.isfinite(v) else None


def _shown(v: Any) -> str:
    """Show a value in a message: a huge integer by its number of digits."""
    if isinstance(v, int) and not isinstance(v, bool) and abs(v) >= 10**15:
        return f"an integer of {len(str(abs(v)))} digits"
    if isinstance(v, str) and len(v.strip()) > 15 and v.strip().isdigit():
        return f"a number of {len(v.strip())} digits"
    return repr(v)[:40]


def _not_a_score(v: Any) -> str:
    return f"{_shown(v)} is not a finite number"


_INT_TEXT = re.compile(r"\s*\d+\s*")


def _run_number(v: Any, field: str, at: str, what: str, default: int | None = None) -> int:
    """Return a run number (epoch, resample) written plainly: 2, "2" or 2.0; refuse others."""
    if v is None and default is not None:
        return default
    n = None
    if isinstance(v, int) and not isinstance(v, bool):
        n = v
    elif isinstance(v, float) and v.is_integer():
        n = int(v)
    elif isinstance(v, str) and _INT_TEXT.fullmatch(v) and len(v.strip()) <= 12:
        n = int(v)
    if n is None or not 0 <= n <= MAX_RUN:
        raise GenexpyInputError(
            f"{what} {at}: {field} {_shown(v)} is not a run number (a whole number from 0 "
            f"to {MAX_RUN:,} written plainly); fix the file.")
    return n


_SCHEMA_ITEMS = {"model": pl.String, "task": pl.String, "item": pl.String, "run": pl.Int64,
                 "metric": pl.String, "value": pl.Float64, "higher_is_better": pl.Boolean}


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
        doc = json.loads(read_input_bytes(check_input_file(
            side, "lm-eval results file", max_bytes=MAX_BYTES), "lm-eval results file"))
    except (ValueError, RecursionError):
        return None, {}
    if not isinstance(doc, dict):
        return None, {}
    from ._lm_eval_results import directions, model_name

    return model_name(doc, f.parent.name), directions(doc)


def _lm_eval_runs(files: list[Path], model: str | None, rd: _Read) -> list[tuple]:
    """Return the latest samples file of each (model, task); list the earlier ones skipped."""
    runs: dict[tuple[str, str], list[tuple]] = {}
    for f in files:
        name, hib = _lm_eval_sidecar(f)
        m = _SAMPLES_NAME.match(f.name)
        task = m["task"] if m else f.stem.removeprefix("samples_")
        who = model or name or f.parent.name
        runs.setdefault((who, task), []).append((m["stamp"] if m else "", f, hib))
    out = []
    for (who, task), found in runs.items():
        found.sort(key=lambda t: (t[0], str(t[1])))
        stamp, f, hib = found[-1]
        for old_stamp, g, _ in found[:-1]:
            if old_stamp == stamp:
                raise GenexpyInputError(
                    f"two samples files of {task!r} for {who!r} have the same time stamp: "
                    f"{str(g)!r} and {str(f)!r}; which run is it? Give the folder of one, "
                    "or name the model with model=.")
            lines = read_input_bytes(g, rd.what).count(b"\n")
            rd.n_files += 1
            rd.skip(g, None, f"the whole file ({lines} lines): an earlier run of {task!r} "
                    f"for {who!r}, superseded by {f.name}")
        out.append((who, task, f, hib))
    return out


@_fill_reading
def read_lm_eval_samples(path: str | os.PathLike, *, model: str | None = None,
                         return_dropped: bool = False, max_bytes: int = MAX_TOTAL_BYTES):
    """Read lm-evaluation-harness per-sample logs (``--log_samples``) into per-item rows.

    Each ``samples_<task>_<time>.jsonl`` line is one document (``doc_id``) under one
    filter; its ``metrics`` list names the keys holding its per-item values (``acc``,
    ``exact_match``: 0/1 correctness or a score; ``True``/``False`` read as 1/0).

    Rules (see the module's description for those of every reader): an item is its
    ``doc_id``'s text, its type kept (``1`` and ``"1"`` in one task are refused, not
    merged); a line without ``doc_id`` is refused; the same document, filter and metric
    twice in a file is read once when the value is the same, and refused otherwise. A
    rerun is the later file: of several samples files of one task and model, the one with
    the latest time stamp in its name is read, and the earlier ones are listed as skipped
    (read each file apart to compare runs).

    Parameters
    ----------
    path : str or path-like
        A samples file, or a folder searched recursively for ``samples_*.jsonl``.
    model : str, optional
        The model's name. Default: ``model_name`` (or ``pretrained=``) of the
        ``results_<time>.json`` written beside the samples file, else the folder's name.
    {reading}

    Returns
    -------
    polars.DataFrame
        ``model``, ``task`` (from the file name), ``item`` (``doc_id``), ``run`` (0: the
        harness writes one scored response per document), ``metric`` (``"acc,none"``:
        metric and filter), ``value``, ``higher_is_better`` (from the results file
        beside it; null where there is none); with ``return_dropped``, ``(frame,
        dropped)``.
    """
    files = _files(path, ("samples_*.jsonl",), "lm-eval samples file", max_bytes, "jsonl")
    rd = _Read(path, "lm-eval samples file")
    for who, task, f, hib in _lm_eval_runs(files, model, rd):
        for n, doc in _json_lines(f, rd):
            keys = doc.get("metrics")
            if not isinstance(keys, list):
                rd.skip(f, n, "no 'metrics' list: not an lm-eval sample")
                continue
            item = rd.key(doc.get("doc_id"), "doc_id", f, n, task)
            filt = doc.get("filter", "none")
            filt = filt if isinstance(filt, str) else json.dumps(filt)
            for key in keys:
                key = key if isinstance(key, str) else json.dumps(key)
                v = finite_number(doc.get(key))
                if v is None:
                    rd.skip(f, n, f"metric {key[:30]!r}: {_not_a_score(doc.get(key))}", item)
                    continue
                metric = f"{key},{filt}"
                rd.add((who, task, item, 0, metric, v, hib.get(task, {}).get(key)),
                       (who, task, item, metric), v, f, n)
    return rd.done(_SCHEMA_ITEMS, ["model", "task", "metric", "item", "run"],
                   "Give the samples_<task>_<time>.jsonl files lm_eval --log_samples wrote.",
                   return_dropped)


# --- inspect_ai -------------------------------------------------------------------------

def _inspect_value(v: Any) -> tuple[float | None, bool | None]:
    """(value, higher_is_better): letters and booleans are correctness, numbers unstated."""
    if isinstance(v, str) and v.strip().upper() in INSPECT_LETTERS:
        return INSPECT_LETTERS[v.strip().upper()], True
    if isinstance(v, bool):
        return float(v), True
    return finite_number(v), None


def _inspect_log(doc: dict, f: Path, rd: _Read) -> tuple[str, str, str, list] | None:
    """(model, task, created, rows with their keys) of one log; None: not a log."""
    ev = doc.get("eval")
    samples = doc.get("samples")
    if not isinstance(ev, dict) or not isinstance(samples, list):
        rd.skip(f, None, "no 'eval' and 'samples': not an inspect_ai JSON log (or it was "
                "written without samples)")
        return None
    model, task = ev.get("model"), ev.get("task")
    if not isinstance(model, str) or not isinstance(task, str) or not model or not task:
        rd.skip(f, None, "no eval.model and eval.task: not an inspect_ai log")
        return None
    created = ev.get("created") if isinstance(ev.get("created"), str) else ""
    out = []
    for i, s in enumerate(samples, 1):
        at = f"{f.name!r} samples[{i - 1}]"
        scores = s.get("scores") if isinstance(s, dict) else None
        if not isinstance(scores, dict):
            rd.skip(f, None, "a sample without scores", f"samples[{i - 1}]")
            continue
        item = rd.key(s.get("id"), "id", f, None, task, where=at)
        epoch = _run_number(s.get("epoch"), "epoch", at, rd.what, default=1)
        for scorer, sc in scores.items():
            raw = sc.get("value") if isinstance(sc, dict) else None
            pairs = (raw.items() if isinstance(raw, dict) else [(None, raw)])
            for key, v in pairs:
                value, hib = _inspect_value(v)
                metric = str(scorer) if key is None else f"{scorer}.{key}"
                if value is None:
                    rd.skip(f, None, f"score {metric[:30]!r}: {_shown(v)} is neither a "
                            "number nor C/I/P/N", f"samples[{i - 1}] (id {item}, epoch {epoch})")
                    continue
                out.append(((model, task, item, epoch, metric, value, hib),
                            (model, task, item, epoch, metric), value, at))
    return model, task, created, out


@_fill_reading
def read_inspect_log(path: str | os.PathLike, *, return_dropped: bool = False,
                     max_bytes: int = MAX_TOTAL_BYTES):
    """Read inspect_ai evaluation logs (JSON) into per-sample rows.

    Rules (see the module's description for those of every reader): an item is its
    sample's ``id`` (text and type kept; a sample without one is refused), a run is its
    ``epoch`` (a whole number; 1 where the log has none). A sample with the same id, epoch
    and scorer twice in a log is read once when the value is the same, and refused
    otherwise. A rerun is the later log: of several logs of one model and task, the one
    created last (``eval.created``, else the file's name) is read and the earlier ones are
    listed as skipped (read each file apart to compare runs).

    Parameters
    ----------
    path : str or path-like
        A log file written as JSON (``--log-format json``, or
        ``inspect log convert --to json`` for ``.eval`` files), or a folder of them.
    {reading}

    Returns
    -------
    polars.DataFrame
        ``model``, ``task``, ``item`` (the sample's id), ``run`` (its epoch), ``metric``
        (the scorer; ``scorer.key`` for a scorer returning several values), ``value``,
        ``higher_is_better``. inspect_ai's letter scores are correctness, read as its
        ``value_to_float`` does (C = 1, I = 0, P = 0.5, N = 0; higher is better); a
        numeric score does not state its direction (null). With ``return_dropped``,
        ``(frame, dropped)``.
    """
    root = Path(path).expanduser()
    if root.is_file() and root.suffix == ".eval":
        raise GenexpyInputError(
            f"{str(path)!r} is an inspect_ai .eval archive; convert it to JSON first: "
            "inspect log convert --to json --output-dir out_json <file>.")
    files = _files(path, ("*.json",), "inspect_ai log", max_bytes, "json")
    rd = _Read(path, "inspect_ai log")
    logs: dict[tuple[str, str], list[tuple]] = {}
    for f, doc in _json_objects(files, rd, "a log object"):
        got = _inspect_log(doc, f, rd)
        del doc
        if got is not None:
            logs.setdefault(got[:2], []).append((got[2], str(f), f, got[3]))
    for (model, task), found in logs.items():
        found.sort(key=lambda t: (t[0], t[1]))
        for _created, _, g, rows in found[:-1]:
            rd.skip(g, None, f"the whole log ({len(rows)} scores): an earlier run of {task!r} "
                    f"for {model!r}, superseded by {found[-1][2].name}")
        f = found[-1][2]
        for row, key, value, at in found[-1][3]:
            rd.add(row, key, value, f, None, where=at)
    return rd.done(_SCHEMA_ITEMS, ["model", "task", "metric", "item", "run"],
                   "Give inspect_ai logs in JSON with their samples.", return_dropped)


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
    return finite_number(se, booleans=False)


def _eee_aggregate_rows(doc: dict, f: Path, rd: _Read) -> None:
    results = doc.get("evaluation_results")
    info = doc.get("model_info")
    if not isinstance(results, list) or not isinstance(info, dict):
        rd.skip(f, None, "no 'evaluation_results' list and 'model_info': not an Every Eval "
                "Ever aggregate file")
        return
    model = info.get("id") or info.get("name")
    if not isinstance(model, str):
        rd.skip(f, None, "no model_info.id (or name): not an Every Eval Ever aggregate file")
        return
    eid = doc.get("evaluation_id", "")
    eid = eid if isinstance(eid, str) else json.dumps(eid)
    for i, res in enumerate(results):
        at = f"{f.name!r} evaluation_results[{i}]"
        if not isinstance(res, dict):
            rd.skip(f, None, "an evaluation result that is not an object",
                    f"evaluation_results[{i}]")
            continue
        name = res.get("evaluation_name")
        if not isinstance(name, str) or not name:
            rd.skip(f, None, "a result without evaluation_name", f"evaluation_results[{i}]")
            continue
        details = res.get("score_details") if isinstance(res.get("score_details"), dict) else {}
        v = details.get("score")
        value = finite_number(v, booleans=False)
        metric = _eee_metric(res)
        if value is None:
            rd.skip(f, None, f"score: {_not_a_score(v)}", f"{name} {metric}")
            continue
        rd.add((model, name, metric, value, _eee_stderr(details),
                _eee_direction(res.get("metric_config")), eid),
               (model, name, metric, eid), value, f, None, where=at)


_SCHEMA_EEE = {"model": pl.String, "evaluation": pl.String, "metric": pl.String,
               "value": pl.Float64, "stderr": pl.Float64, "higher_is_better": pl.Boolean,
               "evaluation_id": pl.String}


@_fill_reading
def read_eee(path: str | os.PathLike, *, return_dropped: bool = False,
             max_bytes: int = MAX_TOTAL_BYTES):
    """Read Every Eval Ever aggregate files (JSON) into one row per model and evaluation.

    Rules (see the module's description for those of every reader): a result is its
    (model, evaluation, metric, ``evaluation_id``); the same result twice is read once when
    its score is the same, and refused otherwise, naming both places.

    Parameters
    ----------
    path : str or path-like
        An aggregate ``.json`` file or a folder searched recursively for them.
    {reading}

    Returns
    -------
    polars.DataFrame
        ``model`` (``model_info.id``), ``evaluation`` (``evaluation_name``), ``metric``
        (``metric_config.metric_id``, else its name, else ``"score"``), ``value``
        (``score_details.score``), ``stderr`` (its stated standard error, else null),
        ``higher_is_better`` (``not metric_config.lower_is_better``, as the schema
        states it), ``evaluation_id``; with ``return_dropped``, ``(frame, dropped)``.
    """
    files = _files(path, ("*.json",), "Every Eval Ever aggregate file", max_bytes, "json")
    rd = _Read(path, "Every Eval Ever aggregate file")
    for f, doc in _json_objects(files, rd, "an object"):
        _eee_aggregate_rows(doc, f, rd)
    return rd.done(_SCHEMA_EEE, ["model", "evaluation", "metric", "evaluation_id"],
                   "Give Every Eval Ever aggregate JSON files.", return_dropped)


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


def _eee_instance(doc: dict, n: int, f: Path, rd: _Read, hib: dict, evals: dict) -> None:
    ev = doc.get("evaluation")
    if not isinstance(ev, dict):
        rd.skip(f, n, "a record without evaluation: not an Every Eval Ever instance")
        return
    model, name = doc.get("model_id"), doc.get("evaluation_name")
    if not isinstance(model, str) or not model or not isinstance(name, str) or not name:
        rd.skip(f, n, "a record without model_id and evaluation_name")
        return
    item = rd.key(doc.get("sample_id"), "sample_id", f, n, name)
    v = ev.get("score")
    value = finite_number(v, booleans=False)
    if value is None and isinstance(ev.get("is_correct"), bool):
        value = float(ev["is_correct"])
    if value is None:
        rd.skip(f, n, f"score: {_not_a_score(v)}", item)
        return
    eid = doc.get("evaluation_id", "")
    eid = eid if isinstance(eid, str) else json.dumps(eid)
    first = evals.setdefault((model, name), (eid, f, n))
    if first[0] != eid:
        raise GenexpyInputError(
            f"two evaluations of {name!r} for {model!r}: evaluation_id {first[0]!r} "
            f"({_where(first[1], first[2])}) and {eid!r} ({_where(f, n)}); read the files "
            "of each apart (a folder per evaluation).")
    d = hib.get((eid, str(doc.get("evaluation_result_id", name))), hib.get((eid, name)))
    rd.add((model, name, item, 0, "score", value, d), (model, name, item), value, f, n)


@_fill_reading
def read_eee_instances(path: str | os.PathLike, *, return_dropped: bool = False,
                       max_bytes: int = MAX_TOTAL_BYTES):
    """Read Every Eval Ever instance-level files (JSONL) into per-item rows.

    Rules (see the module's description for those of every reader): an item is its
    ``sample_id`` (text and type kept; a record without one is refused); the same sample
    twice is read once when its score is the same, and refused otherwise; two evaluations
    (two ``evaluation_id``) of one model and evaluation name are refused (read each apart).

    Parameters
    ----------
    path : str or path-like
        An instance-level ``.jsonl`` file or a folder searched recursively for them
        (with the aggregate ``.json`` files that state each metric's direction).
    {reading}

    Returns
    -------
    polars.DataFrame
        ``model`` (``model_id``), ``task`` (``evaluation_name``), ``item``
        (``sample_id``), ``run`` (0: the schema has one record per sample and metric),
        ``metric`` (``"score"``), ``value`` (``evaluation.score``, else
        ``evaluation.is_correct`` as 1/0), ``higher_is_better`` (from the aggregate file
        of the same ``evaluation_id`` found beside it; null where there is none); with
        ``return_dropped``, ``(frame, dropped)``.
    """
    files = _files(path, ("*.jsonl",), "Every Eval Ever instance file", max_bytes, "jsonl")
    root = Path(path).expanduser()
    folder = root if root.is_dir() else root.parent
    aggregates = sorted(p for p in folder.rglob("*.json") if p.is_file())
    hib = _eee_directions(check_input_files(
        aggregates, folder, "aggregate file", max_file_bytes=MAX_BYTES, max_bytes=max_bytes,
        max_files=MAX_FILES, memory_per_byte=_MEMORY_PER_BYTE["json"])) if aggregates else {}
    rd = _Read(path, "Every Eval Ever instance file")
    evals: dict[tuple[str, str], tuple] = {}
    for f in files:
        for n, doc in _json_lines(f, rd):
            _eee_instance(doc, n, f, rd, hib, evals)
    return rd.done(_SCHEMA_ITEMS, ["model", "task", "item", "run"],
                   "Give Every Eval Ever instance-level JSONL files.", return_dropped)


# --- time-series classification bake-off results ----------------------------------------

_TSML_NAME = re.compile(r"^(?P<est>.+)_(?P<metric>[A-Za-z0-9\-]+)$")
_SCHEMA_TSML = {"classifier": pl.String, "dataset": pl.String, "resample": pl.Int64,
                "metric": pl.String, "value": pl.Float64, "higher_is_better": pl.Boolean}
#: a number as the bake-off files write one (no ``1_0``, no ``0x1``, no ``nan``)
_NUMBER = r"^\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*$"


def _tsml_header(row: list[str], f: Path, rd: _Read) -> list[int] | None:
    if not row or row[0].strip().lower().rstrip(":") not in ("resamples", "folds"):
        rd.skip(f, 1, "no 'Resamples:' header: not a results file of one classifier")
        return None
    cells = row[1:]
    while cells and not cells[-1].strip():  # a trailing comma
        cells.pop()
    resamples = [_run_number(c, "the 'Resamples:' header's cell", _where(f, 1), rd.what)
                 for c in cells]
    twice = sorted(r for r, k in Counter(resamples).items() if k > 1)
    if twice:
        raise GenexpyInputError(f"results file {_where(f, 1)}: the 'Resamples:' header names "
                                f"resample(s) {twice[:5]} more than once; fix the header.")
    if not resamples:
        rd.skip(f, 1, "a 'Resamples:' header without resamples")
        return None
    return resamples


def _tsml_table(f: Path, rd: _Read) -> list[list[str]] | None:
    text = _read_text(f, rd)
    if text is None:
        return None
    rd.unterminated = bool(text) and not text.endswith(("\n", "\r"))
    try:
        return list(csv.reader(io.StringIO(text, newline="")))
    except csv.Error as exc:
        rd.skip(f, None, f"not a CSV table ({exc})")
        return None


def _tsml_name(f: Path) -> tuple[str, str]:
    """(classifier, metric) from a file's name: ``<Classifier>_<metric>.csv``."""
    m = _TSML_NAME.match(f.stem)
    return (m["est"], m["metric"]) if m else (f.stem, "score")


def _tsml_rows(f: Path, rd: _Read) -> list[tuple[str, list[str], int]] | None:
    """(dataset, values, line) of each row, sorted by dataset, values in resample order."""
    table = _tsml_table(f, rd)
    if table is None:
        return None
    resamples = _tsml_header(table[0] if table else [], f, rd)
    if resamples is None:
        return None
    width = len(resamples)
    order = sorted(range(width), key=resamples.__getitem__)
    # the last row, when the file ends inside it (no line end) and it is short: cut short
    cut = len(table) if table and table[-1] != [] and rd.unterminated else None
    rows_of: dict[str, tuple[int, list[str]]] = {}
    for n, row in enumerate(table[1:], 2):
        if not any(c.strip() for c in row):
            continue  # a blank line
        values = row[1:]
        while len(values) > width and not values[-1].strip():
            values = values[:-1]  # a trailing comma
        if len(values) > width:
            raise GenexpyInputError(
                f"results file {_where(f, n)} holds {len(values)} values and the "
                f"'Resamples:' header {width}: which resamples are they? Fix the row or the "
                "header.")
        name = row[0].strip()
        if n == cut and len(values) < width:
            rd.skip(f, n, "cut short: the file ends inside this line (truncated?)", name)
            continue
        if not name:
            rd.skip(f, n, f"a row without a dataset name ({len(values)} values)")
            continue
        if name in rows_of:
            first_n, first_values = rows_of[name]
            if first_values == values:
                rd.skip(f, n, f"a repeat of line {first_n} (the same results): read once", name)
                continue
            raise GenexpyInputError(
                f"results file {str(f)!r}: lines {first_n} and {n} both hold dataset {name!r} "
                "with other values: which one is it? Remove one.")
        rows_of[name] = (n, values)
        if len(values) < width:
            rd.skip(f, n, f"{width - len(values)} of {width} resamples missing (the row is "
                    "short: the file cut short?)", name)
            values = values + [None] * (width - len(values))
    return [(name, [(resamples[i], values[i]) for i in order if values[i] is not None], n)
            for name, (n, values) in sorted(rows_of.items())]


class _TsmlCells:
    """Cells of many files, checked and converted in batches (polars, not cell by cell)."""

    BATCH = 1 << 20

    def __init__(self, rd: _Read) -> None:
        self.rd = rd
        self.parts: list[pl.DataFrame] = []
        self._clear()

    def _clear(self) -> None:
        self.files: list[Path] = []
        self.names: list[tuple[str, str]] = []
        self.file_of: list[int] = []
        self.datasets: list[str] = []
        self.runs: list[int] = []
        self.cells: list[str] = []
        self.lines: list[int] = []

    def add(self, f: Path, name: tuple[str, str], rows: list) -> None:
        k = len(self.files)
        self.files.append(f)
        self.names.append(name)
        for dataset, cells, n in rows:
            self.file_of += [k] * len(cells)
            self.datasets += [dataset] * len(cells)
            self.lines += [n] * len(cells)
            for r, c in cells:
                self.runs.append(r)
                self.cells.append(c)
        if len(self.cells) >= self.BATCH:
            self.flush()

    def flush(self) -> None:
        if not self.cells:
            self._clear()
            return
        part = pl.DataFrame(
            {"file": self.file_of, "dataset": self.datasets, "resample": self.runs,
             "cell": self.cells, "line": self.lines},
            schema={"file": pl.Int64, "dataset": pl.String, "resample": pl.Int64,
                    "cell": pl.String, "line": pl.Int64})
        value = pl.when(pl.col("cell").str.contains(_NUMBER)).then(
            pl.col("cell").str.strip_chars().cast(pl.Float64, strict=False))
        part = part.with_columns(value.alias("value")).with_columns(
            pl.col("value").is_finite().fill_null(False).alias("ok"))
        for r in part.filter(~pl.col("ok")).iter_rows(named=True):
            cell = r["cell"]
            why = ("an empty cell" if not cell.strip() else
                   f"{cell[:20]!r} is not a number written plainly" if r["value"] is None else
                   f"{cell[:20]!r} is not a finite number")
            self.rd.skip(self.files[r["file"]], r["line"], why,
                         f"{r['dataset']}, resample {r['resample']}")
        ests = pl.Series([e for e, _ in self.names], dtype=pl.String)
        metrics = pl.Series([m for _, m in self.names], dtype=pl.String)
        part = part.filter(pl.col("ok"))
        idx = part["file"]
        self.parts.append(pl.DataFrame({
            "classifier": ests.gather(idx), "dataset": part["dataset"],
            "resample": part["resample"], "metric": metrics.gather(idx),
            "value": part["value"],
            "higher_is_better": pl.Series([None] * part.height, dtype=pl.Boolean)}))
        self._clear()


@_fill_reading
def read_tsml_results(path: str | os.PathLike, *, return_dropped: bool = False,
                      max_bytes: int = MAX_TOTAL_BYTES):
    """Read time-series classification results files: one CSV per classifier and metric.

    The layout of tsml-eval, aeon's reference results and the UEA bake-offs
    (``<Classifier>_<metric>.csv``): a header ``Resamples:,0,1,…`` then one row per
    dataset with one value per resample.

    Rules (see the module's description for those of every reader): a row longer than the
    header is refused (which resamples would its values be?); a header naming a resample
    twice, or one that is not a whole number written plainly (``1_0``, ``1.5``, 10**30),
    is refused; a cell that is not a number written plainly (``1_0``, ``0x1``, ``nan``) or
    empty is skipped, and so are the resamples a short row lacks, each listed; a dataset's
    row repeated with the same values is read once, with other values it is refused; two
    files of the same classifier and metric (in two sub-folders) are refused.

    Parameters
    ----------
    path : str or path-like
        One results file or a folder searched recursively for ``*.csv``.
    {reading}

    Returns
    -------
    polars.DataFrame
        ``classifier`` and ``metric`` (from the file name), ``dataset``, ``resample``,
        ``value``, ``higher_is_better`` (null: the files do not state it; state it when
        you build a :class:`~genexpy_nb.Study`); with ``return_dropped``, ``(frame,
        dropped)``.
    """
    files = _files(path, ("*.csv",), "results file", max_bytes, "csv")
    rd = _Read(path, "results file")
    # the files in the frame's order: by classifier and metric (their rows are sorted)
    named = sorted((_tsml_name(f), str(f), f) for f in files)
    for (a, _, f), (b, _, g) in zip(named, named[1:]):
        if a == b:
            raise GenexpyInputError(
                f"results files {str(f)!r} and {str(g)!r} both hold {a[1]!r} of {a[0]!r}: "
                "which one is it? Read the folders apart, or remove one.")
    cells = _TsmlCells(rd)
    from .._progress import tqdm

    for name, _, f in tqdm(named, desc="results files", unit="file",
                           disable=len(named) < 200, leave=False):
        rows = _tsml_rows(f, rd)
        if rows:
            cells.add(f, name, rows)
    cells.flush()
    fix = "Give <Classifier>_<metric>.csv files with a 'Resamples:' header."
    frame = pl.concat(cells.parts) if cells.parts else None
    if frame is None or not frame.height:
        raise _nothing(path, rd.n_files, rd.skipped, fix)
    dropped = warn_skipped(path, frame.height, rd.skipped)
    return (frame, dropped) if return_dropped else frame
