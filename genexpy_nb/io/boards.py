"""Evaluation boards read by content: one call turns an eval tool's output into a study.

:func:`read_board` looks at what a file or a folder holds — not at its name — and reads it
with the reader of its format:

* an **lm-evaluation-harness** results folder or file (0.3 and 0.4: ``results`` with
  ``versions`` or ``config``) → per task, one metric per task (:func:`read_lm_eval`);
  its per-sample logs (``--log_samples``: lines with ``doc_id``, ``metrics``) → per item;
* **inspect_ai** logs in JSON (``eval``, ``samples``) → per item (epochs are runs);
* **Every Eval Ever** aggregate files (``evaluation_results``) → per task; its
  instance-level JSONL (``sample_id``, ``evaluation_id``) → per item;
* a **per-item board** (JSONL, CSV, TSV, Parquet): a column naming the model, one naming
  the item and one holding the score, optionally the run and the task, found under the
  documented synonyms (:data:`SYNONYMS`: item ``example_id`` / ``doc_id`` /
  ``question_id``, score ``pass1`` / ``pass@1`` / ``acc`` / ``correct`` / ``score``, task
  ``benchmark_id`` / ``task``, ...).

A per-task board is a study over tasks (the tasks are the conditions); a per-item board one
over items (the items are the conditions, within their tasks), with its noise budget over
runs, items and tasks. Which metric each task contributes, and what was left out, is said
(:attr:`Board.notes`, :attr:`Board.metrics`).
"""

from __future__ import annotations

import gzip
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from .._validation import GenexpyInputError

__all__ = ["Board", "SYNONYMS", "read_board", "board_from_table", "detect_format"]

#: the column names a per-item board may use for each role, in order of preference
SYNONYMS: dict[str, tuple[str, ...]] = {
    "model": ("model", "model_name", "model_id", "system", "agent", "submission"),
    "item": ("item", "example_id", "doc_id", "question_id", "sample_id", "instance_id",
             "problem_id", "item_id", "id"),
    "score": ("score", "pass1", "pass@1", "acc", "accuracy", "correct", "is_correct",
              "exact_match", "resolved", "value"),
    "run": ("run", "sample", "sample_idx", "seed", "epoch", "repeat", "attempt", "trial"),
    "task": ("task", "benchmark_id", "benchmark", "task_name", "subset", "category"),
}
#: metrics whose larger value is better (the harness's results files rarely say)
HIGHER_METRICS = frozenset({
    "acc", "acc_norm", "exact_match", "em", "f1", "mc1", "mc2", "bleu", "rouge", "rouge1",
    "rougel", "pass@1", "pass1", "accuracy", "correct", "score", "mcc", "acc_mutual_info",
    "prompt_level_strict_acc", "inst_level_strict_acc", "prompt_level_loose_acc",
    "inst_level_loose_acc", "choice", "match", "includes", "model_graded_qa", "resolved"})
#: metrics whose smaller value is better
LOWER_METRICS = frozenset({"ppl", "perplexity", "word_perplexity", "byte_perplexity",
                           "bits_per_byte", "loss", "brier_score", "ter", "error"})
#: the most bytes looked at to tell a file's format
_SNIFF_BYTES = 1 << 20


@dataclass(frozen=True)
class Board:
    """An evaluation board read by :func:`read_board`, with the roles of its columns.

    Parameters
    ----------
    frame : polars.DataFrame
        Tidy results: ``model``, ``value``, and ``task`` / ``item`` / ``run`` as the
        board has them.
    kind : {"per-item", "per-task"}
        Per item (the items are the conditions) or per task (the tasks are).
    source : str
        The format, in words ("lm-evaluation-harness results").
    items, runs, tasks : str or None
        The columns naming the item, the run and the task (None where absent).
    higher_is_better : bool
        The direction of ``value``.
    metrics : polars.DataFrame
        ``task``, ``metric``: the metric each task contributes.
    notes : list of str
        What was read and what was left out, in words.
    """

    frame: pl.DataFrame
    kind: str
    source: str
    items: str | None = None
    runs: str | None = None
    tasks: str | None = None
    higher_is_better: bool = True
    metrics: pl.DataFrame = field(default_factory=pl.DataFrame)
    notes: list = field(default_factory=list)
    alternatives: str = "model"
    target: str = "value"

    @property
    def generalize(self) -> list[str]:
        """The columns whose levels are the conditions (tasks, or items within tasks)."""
        if self.kind == "per-task":
            return [self.tasks] if self.tasks else []
        return [c for c in (self.tasks, self.items) if c]


# ---- telling the format ---------------------------------------------------------------


def _head_text(f: Path) -> str:
    """Return the first megabyte of a file as text (decompressed for ``.gz``)."""
    try:
        opener = gzip.open if f.suffix == ".gz" else open
        with opener(f, "rb") as fh:
            raw = fh.read(_SNIFF_BYTES)
    except (OSError, EOFError):
        return ""
    return raw.decode("utf-8", errors="replace")


def _json_keys(f: Path) -> set[str]:
    """Return the top-level keys of a JSON document (logs are one document: read whole)."""
    from .._io import check_input_file
    from .eval_logs import MAX_BYTES

    try:
        doc = json.loads(check_input_file(f, "evaluation log", max_bytes=MAX_BYTES)
                         .read_bytes())
    except (ValueError, RecursionError, OSError):
        return set()
    return set(doc) if isinstance(doc, dict) else set()


def _first_line_keys(f: Path) -> set[str]:
    for line in _head_text(f).splitlines():
        if line.strip():
            try:
                doc = json.loads(line)
            except ValueError:
                return set()
            return set(doc) if isinstance(doc, dict) else set()
    return set()


def _table_columns(f: Path) -> list[str]:
    """Return a table file's column names (its header)."""
    if f.suffix == ".parquet":
        try:
            return list(pl.read_parquet_schema(f))
        except (OSError, pl.exceptions.PolarsError):  # not a parquet file
            return []
    head = _head_text(f).splitlines()
    if not head:
        return []
    sep = "\t" if f.suffix == ".tsv" else ","
    return [c.strip().strip('"') for c in head[0].split(sep)]


def _find(columns: list[str], role: str, given: str | None = None) -> str | None:
    """Return the column of ``role``: the one given, else the first synonym the table has."""
    if given is not None:
        return given
    lower = {c.lower(): c for c in columns}
    return next((lower[s] for s in SYNONYMS[role] if s in lower), None)


def _file_format(f: Path) -> str | None:
    """Tell one file's format from its content."""
    name = f.name.lower()
    if name.endswith(".eval"):  # inspect_ai's archive: its reader says how to convert it
        return "inspect"
    if name.endswith(".json"):
        keys = _json_keys(f)
        if "results" in keys and ({"versions", "config", "configs"} & keys):
            return "lm-eval-results"
        if {"eval", "samples"} <= keys or {"eval", "results", "plan"} <= keys:
            return "inspect"
        if "evaluation_results" in keys:
            return "eee"
        return None
    if name.endswith((".jsonl", ".jsonl.gz")):
        keys = _first_line_keys(f)
        if {"doc_id", "metrics"} <= keys:
            return "lm-eval-samples"
        if {"sample_id", "evaluation_id"} <= keys or {"schema_version", "sample_id"} <= keys:
            return "eee-instances"
        if _find(sorted(keys), "model") and _find(sorted(keys), "item") and \
                _find(sorted(keys), "score"):
            return "board"
        return None
    if name.endswith((".csv", ".tsv", ".parquet")):
        cols = _table_columns(f)
        if cols and cols[0].lower().startswith("resamples"):
            return "tsml"
        if _find(cols, "model") and _find(cols, "item") and _find(cols, "score"):
            return "board"
    return None


def _candidates(root: Path) -> list[Path]:
    if root.is_file():
        return [root]
    from .eval_logs import MAX_FILES

    files = sorted(p for p in root.rglob("*") if p.is_file() and p.name.lower().endswith(
        (".json", ".jsonl", ".jsonl.gz", ".csv", ".tsv", ".parquet", ".eval")))
    if len(files) > MAX_FILES:
        raise GenexpyInputError(f"{len(files)} files under {str(root)!r}, more than the "
                                f"{MAX_FILES} read from one folder; give a smaller folder.")
    return files


def detect_format(path: str | os.PathLike) -> str | None:
    """Tell what an evaluation output holds, by its content.

    Parameters
    ----------
    path : str or path-like
        A file or a folder.

    Returns
    -------
    str or None
        ``"lm-eval-samples"``, ``"lm-eval-results"``, ``"inspect"``, ``"eee-instances"``,
        ``"eee"``, ``"tsml"`` or ``"board"`` (per-item rows); None when nothing in it is an
        evaluation output. A folder holding several formats gives the most detailed one
        (per item before per task).
    """
    root = Path(path).expanduser()
    if not root.exists():
        return None
    found = {fmt for f in _candidates(root) if (fmt := _file_format(f))}
    for fmt in ("lm-eval-samples", "inspect", "eee-instances", "board", "lm-eval-results",
                "eee", "tsml"):
        if fmt in found:
            return fmt
    return None


# ---- reading ---------------------------------------------------------------------------


def _direction(metric: str, stated: Any) -> bool | None:
    if isinstance(stated, bool):
        return stated
    base = metric.split(",")[0].strip().lower()
    if base in HIGHER_METRICS or base.startswith(("acc", "pass@", "exact_match")):
        return True
    if base in LOWER_METRICS:
        return False
    return None


def _one_metric_per_task(df: pl.DataFrame, task: str, notes: list) -> tuple[pl.DataFrame,
                                                                             pl.DataFrame]:
    """Keep, per task, the first metric (in the file's order) whose higher value is better.

    Tasks with none (only losses or metrics of unknown direction) are left out, named.
    """
    df = df.with_row_index("__order__")
    first = (df.group_by([task, "metric"], maintain_order=True)
             .agg(pl.col("__order__").min(), pl.col("higher_is_better").drop_nulls().first())
             .sort("__order__"))
    chosen: dict[str, str] = {}
    for t, m, _, hib in first.iter_rows():
        if t not in chosen and _direction(str(m), hib) is True:
            chosen[t] = m
    left = [t for t in dict.fromkeys(first[task].to_list()) if t not in chosen]
    if left:
        shown = ", ".join(map(str, left[:8])) + (f" and {len(left) - 8} more" if len(left) > 8
                                                 else "")
        notes.append(f"{len(left)} task(s) left out, none of their metrics known to be "
                     f"better when higher (losses, or metrics of unknown direction): {shown}.")
    metrics = pl.DataFrame({task: list(chosen), "metric": list(chosen.values())},
                           schema={task: pl.String, "metric": pl.String})
    kept = df.join(metrics, on=[task, "metric"], how="semi").drop("__order__")
    return kept, metrics


def _named_target(frame: pl.DataFrame, metrics: pl.DataFrame) -> tuple[pl.DataFrame, str]:
    """Call the score column by its metric when every task has the same one ("acc")."""
    names = {str(m).split(",")[0] for m in metrics["metric"].to_list()}
    name = names.pop() if len(names) == 1 else "value"
    if name in frame.columns and name != "value":
        name = "value"
    return frame.rename({"value": name}) if name != "value" else frame, name


def _per_item(df: pl.DataFrame, source: str, notes: list, *, runs: bool = True) -> Board:
    """Return the board of the item readers' frame (model, task, item, run, metric, value)."""
    kept, metrics = _one_metric_per_task(df, "task", notes)
    if kept.height == 0:
        raise GenexpyInputError(f"{source}: no metric known to be better when higher; read "
                                "the file with its reader and give the roles yourself.")
    many_runs = runs and kept.group_by(["model", "task", "item"]).len()["len"].max() > 1
    frame = kept.select("model", "task", "item", *(["run"] if many_runs else []), "value")
    tasks = "task" if frame["task"].n_unique() > 1 else None
    if tasks is None:
        notes.append(f"one task ({frame['task'][0]}): the items are the conditions.")
    frame, target = _named_target(frame, metrics)
    return Board(frame, "per-item", source, items="item", runs="run" if many_runs else None,
                 tasks=tasks, higher_is_better=True, metrics=metrics, notes=notes,
                 target=target)


def _per_task(df: pl.DataFrame, task: str, source: str, notes: list) -> Board:
    kept, metrics = _one_metric_per_task(df, task, notes)
    if kept.height == 0:
        raise GenexpyInputError(f"{source}: no task has a metric known to be better when "
                                "higher; read it with its reader and give the roles yourself.")
    frame = kept.select("model", pl.col(task).alias("task"), "value")
    frame, target = _named_target(frame, metrics)
    return Board(frame, "per-task", source, tasks="task", higher_is_better=True,
                 metrics=metrics.rename({task: "task"}), notes=notes, target=target)


def board_from_table(df: pl.DataFrame, *, alternatives: str | None = None,
                     target: str | None = None, items: str | None = None,
                     runs: str | None = None, tasks: str | None = None,
                     higher_is_better: bool | None = None,
                     source: str = "per-item board") -> Board:
    """Read a tidy per-item table as a board: its columns found by role or by synonym.

    Parameters
    ----------
    df : polars.DataFrame
        One row per model and item (and run).
    alternatives, target, items, runs, tasks : str, optional
        The columns; each left out is looked for under :data:`SYNONYMS`.
    higher_is_better : bool, optional
        The direction of the score; default: from the score column's name, else True for
        a score within [0, 1] (a correctness or a pass rate), else refused.
    source : str
        The format, in words.

    Returns
    -------
    Board
    """
    cols = df.columns
    model = _find(cols, "model", alternatives)
    item = _find(cols, "item", items)
    score = _find(cols, "score", target)
    run = runs if runs is not None else _find(cols, "run")
    task = tasks if tasks is not None else _find(cols, "task")
    missing = [f"the {r} (one of {', '.join(SYNONYMS[k][:6])})" for r, k, c in
               (("model", "model", model), ("item", "item", item), ("score", "score", score))
               if c is None]
    if missing:
        raise GenexpyInputError(f"{source}: no column for {'; '.join(missing)}; the table's "
                                f"columns are {cols[:15]}. Name them (--alternatives, "
                                "--items, --target).")
    for role, c in (("model", model), ("item", item), ("score", score), ("run", run),
                    ("task", task)):
        if c is not None and c not in cols:
            raise GenexpyInputError(f"{source}: the {role} column {c!r} is not in the table; "
                                    f"its columns are {cols[:15]}.")
    v = df[score]
    if v.dtype == pl.Boolean:
        df = df.with_columns(pl.col(score).cast(pl.Float64))
    elif not v.dtype.is_numeric():
        raise GenexpyInputError(f"{source}: the score column {score!r} holds {v.dtype}, not "
                                "numbers.")
    hib = higher_is_better
    if hib is None:
        hib = _direction(score, None)
    if hib is None:
        lo, hi = df[score].min(), df[score].max()
        if lo is not None and lo >= 0 and hi <= 1:
            hib = True
    if hib is None:
        raise GenexpyInputError(f"{source}: is a higher {score!r} better? Say it "
                                "(--higher-is-better or --lower-is-better).")
    notes = [f"model {model!r}, item {item!r}, score {score!r}"
             + (f", run {run!r}" if run else "") + (f", task {task!r}" if task else "") + "."]
    n_models = df[model].n_unique()
    if run is not None and df.group_by([c for c in (model, task, item) if c]).len()[
            "len"].max() <= 1:
        run = None  # one run per item: no run column to average
    frame = df.select(*(c for c in (model, task, item, run, score) if c))
    metrics = pl.DataFrame({"task": [], "metric": []}, schema={"task": pl.String,
                                                                "metric": pl.String})
    if task is not None and frame[task].n_unique() < 2:
        task = None
    notes.append(f"{n_models} models, {frame[item].n_unique()} items"
                 + (f" in {frame[task].n_unique()} tasks" if task else "") + ".")
    return Board(frame, "per-item", source, items=item, runs=run, tasks=task,
                 higher_is_better=bool(hib), metrics=metrics, notes=notes,
                 alternatives=model, target=score)


def _read_table_file(f: Path) -> pl.DataFrame:
    """Read one file of a per-item board (JSONL, gzipped or not; CSV, TSV, Parquet)."""
    from .._io import check_input_file
    from .eval_logs import MAX_BYTES

    name = f.name.lower()
    if name.endswith((".jsonl", ".jsonl.gz")):
        rows = []
        check_input_file(f, "per-item board", max_bytes=MAX_BYTES)
        with (gzip.open(f, "rb") if name.endswith(".gz") else open(f, "rb")) as fh:
            text = fh.read(MAX_BYTES + 1)
        if len(text) > MAX_BYTES:
            raise GenexpyInputError(f"{str(f)!r} holds more than {MAX_BYTES:,} bytes once "
                                    "decompressed; give a smaller file.")
        for line in text.decode("utf-8", errors="replace").splitlines():
            if line.strip():
                doc = json.loads(line)
                if isinstance(doc, dict):
                    rows.append({k: v for k, v in doc.items()
                                 if not isinstance(v, (dict, list))})
        return pl.DataFrame(rows, infer_schema_length=None)
    from .public import read_results

    return read_results(str(f))


def read_board(path: str | os.PathLike, **roles: Any) -> Board:
    """Read an evaluation output as a board, its format told by its content.

    Parameters
    ----------
    path : str or path-like
        A file or a folder (see the module's text for the formats).
    **roles
        For a per-item board: ``alternatives``, ``target``, ``items``, ``runs``,
        ``tasks``, ``higher_is_better`` (each found by synonym when left out).

    Returns
    -------
    Board

    Raises
    ------
    GenexpyInputError
        Nothing in ``path`` is an evaluation output this package reads (naming what to
        give instead).
    """
    from .eval_logs import (
        read_eee,
        read_eee_instances,
        read_inspect_log,
        read_lm_eval_samples,
        read_tsml_results,
    )
    from .tables import read_lm_eval

    fmt = detect_format(path)
    notes: list[str] = []
    if fmt == "lm-eval-samples":
        return _per_item(read_lm_eval_samples(path), "lm-evaluation-harness per-sample logs",
                         notes)
    if fmt == "inspect":
        return _per_item(read_inspect_log(path), "inspect_ai logs", notes)
    if fmt == "eee-instances":
        return _per_item(read_eee_instances(path), "Every Eval Ever instance-level files",
                         notes)
    if fmt == "lm-eval-results":
        df = read_lm_eval(path)
        if "filter" in df.columns:
            df = df.with_columns(pl.when(pl.col("filter").is_in(["none", ""]))
                                 .then(pl.col("metric"))
                                 .otherwise(pl.col("metric") + "," + pl.col("filter"))
                                 .alias("metric"))
        return _per_task(df, "task", "lm-evaluation-harness results", notes)
    if fmt == "eee":
        return _per_task(read_eee(path), "evaluation", "Every Eval Ever aggregate files",
                         notes)
    if fmt == "tsml":
        df = read_tsml_results(path).rename({"classifier": "model"})
        notes.append("tsml results: datasets are the conditions, resamples the runs.")
        frame = df.select("model", pl.col("dataset").alias("task"),
                          pl.col("resample").alias("run"), "value")
        return Board(frame, "per-task", "tsml results (one file per classifier)",
                     tasks="task", runs="run", higher_is_better=True,
                     metrics=df.select(pl.col("dataset").alias("task"), "metric").unique(),
                     notes=notes)
    if fmt == "board":
        root = Path(path).expanduser()
        files = [f for f in _candidates(root) if _file_format(f) == "board"]
        frames = [_read_table_file(f) for f in files]
        df = pl.concat(frames, how="diagonal_relaxed") if len(frames) > 1 else frames[0]
        return board_from_table(df, **roles)
    raise GenexpyInputError(
        f"{str(path)!r} holds no evaluation output this package reads by its content: an "
        "lm-evaluation-harness results folder or --log_samples files, inspect_ai JSON logs, "
        "Every Eval Ever files, tsml results, or a per-item board (JSONL/CSV with a model, "
        f"an item and a score column: item one of {', '.join(SYNONYMS['item'][:5])}; score "
        f"one of {', '.join(SYNONYMS['score'][:6])}). For a tidy results table give its "
        "roles (--alternatives, --target, --generalize, and --items for per-item rows).")
