"""Readers: lm-evaluation-harness folders, ids holding a fold, wide tables."""

import json

import numpy as np
import pandas as pd
import polars as pl
import pytest

import genexpy_nb as gx
from genexpy_nb.io.tables import read_lm_eval, split_id_column, wide_to_long


def _lm_eval_file(model, tasks, model_args=None, name_key=True):
    """A results file as lm-evaluation-harness 0.4 writes it (results, groups, configs,
    versions, n-shot, higher_is_better, n-samples, config, model_name...)."""
    results = {}
    for task, (acc, se) in tasks.items():
        results[task] = {"alias": task, "acc,none": acc, "acc_stderr,none": se,
                         "acc_norm,none": acc + 0.01, "acc_norm_stderr,none": "N/A"}
    doc = {
        "results": results,
        "groups": {},
        "group_subtasks": {t: [] for t in tasks},
        "configs": {t: {"task": t, "output_type": "multiple_choice", "num_fewshot": 0}
                    for t in tasks},
        "versions": {t: 1.0 for t in tasks},
        "n-shot": {t: 0 for t in tasks},
        "higher_is_better": {t: {"acc": True, "acc_norm": True} for t in tasks},
        "n-samples": {t: {"original": 100, "effective": 100} for t in tasks},
        "config": {"model": "hf", "model_args": model_args or f"pretrained={model},dtype=float",
                   "batch_size": "auto", "device": "cuda:0", "limit": None},
        "git_hash": "abc1234",
        "date": 1714000000.0,
        "model_source": "hf",
        "total_evaluation_time_seconds": "123.4",
    }
    results.setdefault("gsm8k", {"alias": "gsm8k", "name": "gsm8k", "sample_len": 1319,
                                 "exact_match,strict-match": 0.02,
                                 "exact_match_stderr,strict-match": 0.004,
                                 "exact_match,flexible-extract": 0.03,
                                 "exact_match_stderr,flexible-extract": 0.005})
    if name_key:
        doc["model_name"] = model
        doc["model_name_sanitized"] = model.replace("/", "__")
    return doc


@pytest.fixture
def lm_eval_folder(tmp_path):
    out = tmp_path / "out"
    specs = {"EleutherAI/pythia-160m": {"arc_easy": (0.43, 0.010), "hellaswag": (0.30, 0.005)},
             "EleutherAI/pythia-410m": {"arc_easy": (0.52, 0.011), "hellaswag": (0.40, 0.005)}}
    for model, tasks in specs.items():
        d = out / model.replace("/", "__")
        d.mkdir(parents=True)
        (d / "results_2024-05-01T10-00-00.123456.json").write_text(
            json.dumps(_lm_eval_file(model, tasks), indent=2))
        # a sample log beside it is not a results file
        (d / "samples_arc_easy_2024-05-01T10-00-00.123456.jsonl").write_text("{}\n")
    # a model without model_name: the name comes from model_args
    d = out / "local"
    d.mkdir()
    (d / "results_2024-05-02T10-00-00.json").write_text(json.dumps(_lm_eval_file(
        "x", {"arc_easy": (0.6, 0.01)}, model_args="pretrained=/models/mine,trust_remote_code=True",
        name_key=False)))
    return out


def test_lm_eval_folder_in_one_call(lm_eval_folder):
    df, dropped = read_lm_eval(lm_eval_folder, return_dropped=True)
    assert df.columns == ["model", "task", "metric", "filter", "value", "stderr",
                          "higher_is_better"]
    # acc and acc_norm as the files state them; gsm8k is missing from their table: null
    assert df["higher_is_better"].to_list().count(True) == 10
    assert df.filter(pl.col("task") == "gsm8k")["higher_is_better"].null_count() == 6
    assert df.height == 16  # 6 results per pythia model (gsm8k: 2 filters), 4 of the local one
    gsm = df.filter((pl.col("task") == "gsm8k") & (pl.col("filter") == "strict-match"))
    assert gsm["metric"].unique().to_list() == ["exact_match"] and gsm["stderr"][0] == 0.004
    row = df.filter((pl.col("model") == "EleutherAI/pythia-410m") & (pl.col("task") == "arc_easy")
                    & (pl.col("metric") == "acc"))
    assert row["value"].item() == 0.52 and row["stderr"].item() == 0.011
    # "N/A" standard errors are missing, not dropped
    norm = df.filter(pl.col("metric") == "acc_norm")
    assert norm["stderr"].null_count() == norm.height
    assert set(df["model"]) == {"EleutherAI/pythia-160m", "EleutherAI/pythia-410m",
                                "/models/mine"}
    assert set(df["filter"]) == {"none", "strict-match", "flexible-extract"}
    assert dropped.height == 0
    # ready for a Study
    study = gx.Study(df.filter(pl.col("metric") == "acc", pl.col("model") != "/models/mine"),
                     alternatives="model", target="value", generalize="task",
                     higher_is_better=True)
    assert study.na == 2


def test_lm_eval_later_run_supersedes_and_says_so(lm_eval_folder):
    d = lm_eval_folder / "EleutherAI__pythia-160m"
    doc = _lm_eval_file("EleutherAI/pythia-160m", {"arc_easy": (0.44, 0.01)})
    doc["results"]["arc_easy"]["bleu,none"] = "oops"
    (d / "results_2024-06-01T00-00-00.json").write_text(json.dumps(doc))
    (d / "results_broken.json").write_text("{not json")
    with pytest.warns(gx.SkippedRecordsWarning, match="skipped 6 record"):
        df, dropped = read_lm_eval(lm_eval_folder, return_dropped=True)
    v = df.filter((pl.col("model") == "EleutherAI/pythia-160m") & (pl.col("task") == "arc_easy")
                  & (pl.col("metric") == "acc"))["value"].item()
    assert v == 0.44
    reasons = " | ".join(dropped["reason"].to_list())
    assert "superseded" in reasons and "not a finite number" in reasons
    assert "not valid JSON" in reasons


def test_lm_eval_hostile(tmp_path, monkeypatch):
    with pytest.raises(gx.GenexpyInputError, match="no results_"):
        read_lm_eval(tmp_path)
    with pytest.raises(gx.GenexpyInputError, match="not found"):
        read_lm_eval(tmp_path / "nowhere.json")
    big = tmp_path / "results_big.json"
    big.write_text(json.dumps({"results": {}}))
    import genexpy_nb.io.tables as r

    monkeypatch.setattr(r, "LM_EVAL_MAX_BYTES", 5)
    with pytest.raises(gx.GenexpyInputError, match="more than"):
        read_lm_eval(tmp_path)
    monkeypatch.setattr(r, "LM_EVAL_MAX_BYTES", 2**20)
    deep = tmp_path / "results_deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    big.unlink()
    with pytest.raises(gx.GenexpyInputError, match="not valid JSON"):
        read_lm_eval(tmp_path, return_dropped=True)


def test_split_id_column():
    df = pd.DataFrame({"id": ["10090_3", "credit_g_0", "31_9"], "acc": [0.9, 0.8, 0.7]})
    before = df.copy()
    out = split_id_column(df, "id")
    assert out.columns == ["task", "fold", "acc"]
    assert out.rows() == [("10090", 3, 0.9), ("credit_g", 0, 0.8), ("31", 9, 0.7)]
    pd.testing.assert_frame_equal(df, before)
    out = split_id_column(pl.DataFrame({"id": ["a-x", "b-y"]}), "id", into=("d", "seed"),
                          sep="-")
    assert out["seed"].to_list() == ["x", "y"]
    with pytest.raises(gx.GenexpyInputError, match="no '_'"):
        split_id_column(pl.DataFrame({"id": ["a_1", "b"]}), "id")
    with pytest.raises(gx.GenexpyInputError, match="'nope'"):
        split_id_column(df, "nope")


def test_wide_to_long_matches_pandas_melt():
    rng = np.random.default_rng(0)
    wide = pd.DataFrame({"dataset": [f"d{i}" for i in range(5)],
                         **{m: rng.normal(size=5) for m in ("rf", "svm", "knn")}})
    wide.loc[2, "svm"] = np.nan
    long, dropped = wide_to_long(wide, id_columns="dataset", return_dropped=True)
    want = wide.melt(id_vars="dataset", var_name="alternative", value_name="value").dropna()
    got = long.to_pandas().sort_values(["dataset", "alternative"]).reset_index(drop=True)
    want = want.sort_values(["dataset", "alternative"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(got, want)
    assert dropped.rows() == [("dataset=d2, alternative=svm", "missing value")]
    with pytest.raises(gx.GenexpyInputError, match="not numeric"):
        wide_to_long(pl.DataFrame({"d": ["a"], "m": ["x"]}), id_columns="d")


def test_top_level_names():
    assert gx.read_lm_eval is read_lm_eval
    assert gx.split_id_column is split_id_column and gx.wide_to_long is wide_to_long


def test_lm_eval_nothing_read_says_what_it_found(tmp_path):
    """Issue 39: `{"results": []}`, a binary file, a JSON list: a clear error, no empty frame."""
    cases = {"results_list.json": (b'{"results": []}', "'results' is a list"),
             "results_bin.json": (bytes(range(256)) * 4, "not valid JSON"),
             "results_arr.json": (b"[1, 2, 3]", "a JSON list")}
    for name, (data, msg) in cases.items():
        f = tmp_path / name
        f.write_bytes(data)
        with pytest.raises(gx.GenexpyInputError, match=msg):
            read_lm_eval(f)
        f.unlink()


def test_lm_eval_huge_integer_is_dropped_not_overflowing(tmp_path):
    doc = '{"results": {"t": {"acc,none": %s, "f1,none": 0.5}}, "model_name": "m"}' % ("9" * 400)
    (tmp_path / "results_x.json").write_text(doc)
    with pytest.warns(gx.SkippedRecordsWarning, match=r"results_x.json \(t acc,none\)"):
        df, dropped = read_lm_eval(tmp_path, return_dropped=True)
    assert df.rows() == [("m", "t", "f1", "none", 0.5, None, None)]
    assert "not a finite number" in dropped["reason"][0]


def test_lm_eval_03_layout(tmp_path):
    """lm-evaluation-harness 0.3: plain "acc" keys, files of any name, no direction."""
    d = tmp_path / "pythia-160m"
    d.mkdir()
    (d / "160m_step143000.json").write_text(json.dumps({
        "results": {"arc_easy": {"acc": 0.43, "acc_stderr": 0.01, "acc_norm": 0.39,
                                 "acc_norm_stderr": 0.01}},
        "versions": {"arc_easy": 0},
        "config": {"model": "hf-causal",
                   "model_args": "pretrained=EleutherAI/pythia-160m,revision=step143000"}}))
    df = read_lm_eval(tmp_path)
    assert df.rows() == [
        ("EleutherAI/pythia-160m@step143000", "arc_easy", "acc", "none", 0.43, 0.01, None),
        ("EleutherAI/pythia-160m@step143000", "arc_easy", "acc_norm", "none", 0.39, 0.01, None)]


def test_split_id_keeps_zero_padded_ids_distinct():
    out = split_id_column(pl.DataFrame({"id": ["t_03", "t_3", "t_10"]}), "id")
    assert out["fold"].to_list() == ["03", "3", "10"]
    assert split_id_column(pl.DataFrame({"id": ["t_3", "t_10"]}), "id")["fold"].dtype == pl.Int64


def test_wide_to_long_helper_names_and_repeats():
    wide = pl.DataFrame({"_r": ["a", "b"], "_i": [0.1, 0.2], "abc": [0.3, 0.4]})
    out = wide_to_long(wide, id_columns="_r")
    assert out.rows() == [("a", "_i", 0.1), ("a", "abc", 0.3), ("b", "_i", 0.2),
                          ("b", "abc", 0.4)]
    assert wide_to_long(wide, id_columns="_r", alternatives="abc").rows() == [
        ("a", "abc", 0.3), ("b", "abc", 0.4)]  # one name, not its letters
    with pytest.raises(gx.GenexpyInputError, match="more than once"):
        wide_to_long(wide, id_columns="_r", alternatives=["abc", "abc"])
    with pytest.raises(gx.GenexpyInputError, match="two different names"):
        wide_to_long(wide, id_columns="_r", alternative_name="x", value_name="x")
