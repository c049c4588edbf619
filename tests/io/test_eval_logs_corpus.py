"""A corpus of malformed eval logs, each with the outcome its reader must have.

Every folder of ``tests/data/readers_corpus`` holds one small crafted case (a byte-order
mark, a truncated last line, ids of two types, a missing id, repeated records with the same
or another value, reruns, huge integers, ``1_0``, rows longer than the header, ...). A case
is either *read* — the frame's rows are the ones the file holds, and every record skipped is
listed (file, line, reason) in the frame ``return_dropped=True`` returns and in a
:class:`~genexpy_nb.SkippedRecordsWarning` — or *refused* with a
:class:`~genexpy_nb.GenexpyInputError` naming the file (and the line or field).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import polars as pl
import pytest

import genexpy_nb as gx
from genexpy_nb.io.eval_logs import (
    read_eee,
    read_eee_instances,
    read_inspect_log,
    read_lm_eval_samples,
    read_tsml_results,
)

CORPUS = Path(__file__).parents[1] / "data" / "readers_corpus"

READERS = {"lm": read_lm_eval_samples, "ins": read_inspect_log, "eee": read_eee_instances,
           "agg": read_eee, "tsml": read_tsml_results}


def _items(df: pl.DataFrame) -> list:
    col = "item" if "item" in df.columns else "dataset" if "dataset" in df.columns else "evaluation"
    run = "run" if "run" in df.columns else "resample" if "resample" in df.columns else None
    return sorted(zip(df[col].to_list(), df[run].to_list() if run else [None] * df.height,
                      df["value"].to_list()))


#: case -> ("read", the (item, run, value) rows, [what each skipped record's reason says])
#:      or ("refused", [what the message names])
CASES: dict[str, tuple] = {
    # lm-evaluation-harness per-sample logs
    "lm_bom": ("read", [("0", 0, 1.0), ("1", 0, 0.0)], []),
    "lm_truncated": ("read", [("0", 0, 1.0), ("1", 0, 0.0)], ["line 3: cut short"]),
    "lm_mixed_ids": ("refused", ["doc_id 1", "'1'", "line 1", "line 2", "one item"]),
    "lm_missing_id": ("refused", ["line 2", "no doc_id"]),
    "lm_repeat_same": ("read", [("0", 0, 1.0), ("1", 0, 0.0)], ["line 3: a repeat of line 1"]),
    "lm_repeat_other": ("refused", ["line 2", "line 1", "another value"]),
    "lm_rerun": ("read", [("0", 0, 1.0), ("1", 0, 1.0)],
                 ["samples_arc_2024-01-01T00-00-00.jsonl: the whole file", "superseded by "
                  "samples_arc_2024-02-01T00-00-00.jsonl"]),
    "lm_huge_score": ("read", [("0", 0, 1.0)], ["line 2: metric 'acc': an integer of 400 digits"]),
    "lm_line_separator": ("read", [("0", 0, 1.0), ("1", 0, 0.0)], []),
    "lm_not_json_middle": ("read", [("0", 0, 1.0), ("1", 0, 0.0)], ["line 2: not valid JSON"]),
    "lm_float_and_int_ids": ("read", [("1", 0, 1.0), ("1.0", 0, 0.0)], []),
    "lm_text_ids": ("read", [("01", 0, 1.0), ("1", 0, 0.0), ("1.0", 0, 1.0)], []),
    "lm_nan_score": ("read", [("0", 0, 1.0)], ["line 2: metric 'acc': nan is not a finite"]),
    "lm_crlf": ("read", [("0", 0, 1.0), ("1", 0, 0.0)], []),
    # inspect_ai logs
    "ins_epoch_text": ("read", [("1", 1, 1.0), ("1", 2, 0.0)], []),
    "ins_epoch_huge": ("refused", ["log.json", "epoch", "an integer of 22 digits"]),
    "ins_epoch_fraction": ("refused", ["log.json", "epoch 1.5", "run number"]),
    "ins_missing_id": ("refused", ["samples[1]", "no id"]),
    "ins_mixed_ids": ("refused", ["id 1", "'1'", "one item"]),
    "ins_repeat_same": ("read", [("1", 1, 1.0), ("2", 1, 0.0)], ["a repeat of samples[0]"]),
    "ins_repeat_other": ("refused", ["samples[1]", "samples[0]", "another value"]),
    "ins_rerun": ("read", [("1", 1, 1.0), ("2", 1, 1.0)],
                  ["2024-01-01_t.json: the whole log", "superseded by 2024-02-01_t.json"]),
    "ins_truncated": ("read", [("1", 1, 1.0), ("2", 1, 0.0)],
                      ["cut.json: the file ends in the middle of the JSON document"]),
    "ins_bom": ("read", [("1", 1, 1.0), ("2", 1, 0.0)], []),
    "ins_unscored": ("read", [("1", 1, 1.0)], ["score 'match': None is neither"]),
    # Every Eval Ever
    "eee_mixed_ids": ("refused", ["sample_id 7", "'7'", "line 1", "line 2"]),
    "eee_two_evaluations": ("refused", ["two evaluations", "'e1'", "'e2'"]),
    "eee_truncated": ("read", [("a", 0, 1.0), ("b", 0, 0.0)], ["line 3: cut short"]),
    "eee_repeat_same": ("read", [("a", 0, 1.0), ("b", 0, 0.0)], ["line 3: a repeat of line 1"]),
    "eee_missing_id": ("refused", ["line 2", "no sample_id"]),
    "agg_repeat_same": ("read", [("X", None, 0.5), ("Y", None, 0.1)],
                        ["a repeat of evaluation_results[0]"]),
    "agg_repeat_other": ("refused", ["evaluation_results[1]", "evaluation_results[0]",
                                     "another value"]),
    "agg_truncated": ("read", [("X", None, 0.5)], ["cut.json: the file ends in the middle"]),
    "agg_bom": ("read", [("X", None, 0.5)], []),
    # time-series classification bake-off results
    "tsml_long_row": ("refused", ["HC2_accuracy.csv", "line 3", "4 values", "header 3"]),
    "tsml_underscore_cell": ("read", [("A", 0, 0.9), ("A", 2, 0.7), ("B", 0, 0.9),
                                      ("B", 1, 0.8), ("B", 2, 0.7)],
                             ["line 2: '1_0' is not a number written plainly"]),
    "tsml_underscore_header": ("refused", ["line 1", "'Resamples:' header", "'1_0'"]),
    "tsml_huge_header": ("refused", ["line 1", "'Resamples:' header", "a number of 31 digits"]),
    "tsml_repeat_row_same": ("read", [("A", 0, 0.9), ("A", 1, 0.8), ("A", 2, 0.7),
                                      ("B", 0, 0.5), ("B", 1, 0.5), ("B", 2, 0.5)],
                             ["line 4: a repeat of line 2"]),
    "tsml_repeat_row_other": ("refused", ["lines 2 and 3", "'A'"]),
    "tsml_repeat_resample": ("refused", ["line 1", "resample(s) [1] more than once"]),
    "tsml_truncated": ("read", [("A", 0, 0.9), ("A", 1, 0.8), ("A", 2, 0.7)],
                       ["line 3: cut short"]),
    "tsml_bom": ("read", [("A", 0, 0.9), ("A", 1, 0.8), ("A", 2, 0.7)], []),
    "tsml_same_classifier_twice": ("refused", ["x/HC2_accuracy.csv", "y/HC2_accuracy.csv",
                                               "'accuracy' of 'HC2'"]),
    "tsml_no_dataset_name": ("read", [("A", 0, 0.9), ("A", 1, 0.8), ("A", 2, 0.7)],
                             ["line 3: a row without a dataset name"]),
    "tsml_odd_numbers": ("read", [("B", 0, 0.1), ("B", 1, 0.5), ("B", 2, 5.0)],
                         ["'0x1' is not a number", "'nan' is not a number",
                          "'inf' is not a number"]),
    "tsml_trailing_comma": ("read", [("A", 0, 0.9), ("A", 1, 0.8), ("A", 2, 0.7)], []),
}


def test_every_corpus_folder_has_an_expected_outcome():
    assert sorted(p.name for p in CORPUS.iterdir() if p.is_dir()) == sorted(CASES)


@pytest.mark.parametrize("case", sorted(CASES))
def test_corpus_case(case):
    reader = READERS[case.split("_")[0]]
    want = CASES[case]
    if want[0] == "refused":
        with pytest.raises(gx.GenexpyInputError) as info:
            reader(CORPUS / case)
        for part in want[1]:
            assert part in str(info.value), (part, str(info.value))
        return
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        df, dropped = reader(CORPUS / case, return_dropped=True)
    assert _items(df) == want[1]
    said = [(Path(f).name + (f" line {ln}" if ln is not None else "") + f": {why}")
            for f, ln, _, why in dropped.iter_rows()]
    for part in want[2]:
        assert any(part in s for s in said), (part, said)
    assert dropped.height == 0 if not want[2] else dropped.height >= len(set(want[2])) - 1
    ours = [w for w in caught if issubclass(w.category, gx.SkippedRecordsWarning)]
    if dropped.height:  # never a silent drop: the warning counts them and names the first
        assert len(ours) == 1, [str(w.message) for w in caught]
        msg = str(ours[0].message)
        assert f"skipped {dropped.height:,} record(s)" in msg
        assert Path(dropped["file"][0]).name in msg
        assert ours[0].message.skipped.equals(dropped)
    else:
        assert not ours


def test_folder_total_size_is_bounded_before_reading(tmp_path):
    for i in range(3):
        (tmp_path / f"X{i}_accuracy.csv").write_text(
            "Resamples:,0\n" + "".join(f"d{j},0.5\n" for j in range(50)))
    with pytest.raises(gx.GenexpyInputError, match=r"more than the 500 bytes .* max_bytes="):
        read_tsml_results(tmp_path, max_bytes=500)
    assert read_tsml_results(tmp_path, max_bytes=10_000).height == 150
    for bad in (0, -1, 1.5, True, "1"):
        with pytest.raises(gx.GenexpyInputError, match="max_bytes"):
            read_tsml_results(tmp_path, max_bytes=bad)


def test_unreadable_file_is_a_clear_error(tmp_path, monkeypatch):
    f = tmp_path / "samples_t_2024-01-01T00-00-00.jsonl"
    f.write_text('{"doc_id": 0, "metrics": ["acc"], "acc": 1}\n')
    real = Path.read_bytes

    def denied(self):
        if self.name == f.name:
            raise PermissionError(13, "Permission denied")
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", denied)
    with pytest.raises(gx.GenexpyInputError, match=r"cannot read .*samples_t.*Permission"):
        read_lm_eval_samples(tmp_path)
