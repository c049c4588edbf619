"""Every way in: the public case-study data, tidy and wide results tables, evaluation logs.

The first room of the pipeline (**io** → study → analyses → answers → surfaces). Each
reader reads exactly or refuses, and says what it skipped.

* ``public`` — the public results files (downloaded once, checked by sha256, or read from
  ``GENEXPY_NB_DATA_DIR``), the data the package ships, and :func:`read_results` (CSV,
  parquet, JSON of any results table);
* ``tables`` — the shapes results tables come in: :func:`wide_to_long`,
  :func:`split_id_column`, and :func:`read_lm_eval` (lm-evaluation-harness results
  documents);
* ``eval_logs`` — per-sample evaluation logs: lm-evaluation-harness samples, inspect_ai
  logs, the Every Eval Ever schema, time-series classification (tsml) results files;
* ``boards`` — :func:`read_board`: any of those (and per-item JSONL/CSV boards) told by
  its content, with the roles of its columns.
"""

from .._lazy import lazy_exports

_WHERE = {
    "load_encoders": "public",
    "load_bigbench": "public",
    "read_results": "public",
    "wide_to_long": "tables",
    "split_id_column": "tables",
    "read_lm_eval": "tables",
    "read_lm_eval_samples": "eval_logs",
    "read_inspect_log": "eval_logs",
    "read_eee": "eval_logs",
    "read_eee_instances": "eval_logs",
    "read_tsml_results": "eval_logs",
    "shipped_path": "public",
    "read_board": "boards",
    "detect_format": "boards",
}

__all__ = sorted(_WHERE)

__getattr__, __dir__ = lazy_exports(__name__, _WHERE, globals())
