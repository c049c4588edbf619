"""The evaluation-log readers on real public files (tests/data/evals, see SOURCES.md)."""

import json
import shutil
from pathlib import Path

import polars as pl
import pytest

import genexpy_nb as gx
from genexpy_nb.evals import (
    direction,
    read_eee,
    read_eee_instances,
    read_inspect_log,
    read_lm_eval_samples,
    read_tsml_results,
)

DATA = Path(__file__).parents[1] / "data" / "evals"


def test_lm_eval_03_folder_of_a_public_model_suite():
    df = gx.read_lm_eval(DATA / "lm_eval_03")
    assert set(df["model"]) == {"EleutherAI/pythia-v1.1-160m@step143000",
                                "EleutherAI/pythia-v1.1-410m@step143000"}
    assert df["task"].n_unique() == 10
    row = df.filter(pl.col("model").str.contains("160m"), pl.col("task") == "arc_easy",
                    pl.col("metric") == "acc")
    assert row["value"].item() == pytest.approx(0.4351851851851852)
    assert row["stderr"].item() > 0
    # 0.3 files do not state the direction: refused until the user states it
    with pytest.raises(gx.GenexpyInputError, match="does not state"):
        direction(df.filter(pl.col("metric") == "acc"))
    study = gx.Study(df.filter(pl.col("metric") == "acc"), alternatives="model",
                     target="value", generalize="task", higher_is_better=True)
    assert study.na == 2


def test_lm_eval_04_results_and_samples():
    df = gx.read_lm_eval(DATA / "lm_eval_04")
    assert df["higher_is_better"].to_list() == [True, True]
    assert direction(df) is True
    s = read_lm_eval_samples(DATA / "lm_eval_04")
    assert s.height == 4 and s["item"].to_list() == ["0", "1", "2", "3"]
    assert s["model"].unique().item().startswith("RylanSchaeffer/")
    assert s["task"].unique().item() == "math_perturbed_full"
    assert s["metric"].unique().item() == "exact_match,none"
    assert direction(s) is True and s["value"].sum() == 0.0


def test_inspect_logs_two_models_paired_on_items():
    df = read_inspect_log(DATA / "inspect")
    assert set(df["model"]) == {"ollama/qwen2.5:0.5b", "anthropic/claude-sonnet-4-0"}
    qwen = df.filter(pl.col("model") == "ollama/qwen2.5:0.5b")
    assert qwen["value"].to_list() == [1.0, 0.0, 0.0]  # C, I, I
    assert qwen["value"].mean() == pytest.approx(
        json.loads((DATA / "inspect" / "data_arc_qwen.json").read_text())
        ["results"]["scores"][0]["metrics"]["accuracy"]["value"])
    assert direction(df) is True and set(df["run"]) == {1}


def test_inspect_eval_archive_refused(tmp_path):
    f = tmp_path / "x.eval"
    f.write_bytes(b"PK\x03\x04")
    with pytest.raises(gx.GenexpyInputError, match="inspect log convert"):
        read_inspect_log(f)


def test_every_eval_ever_aggregate_and_instances():
    agg = read_eee(DATA / "eee")
    assert agg.height == 7
    ifeval = agg.filter(pl.col("evaluation") == "IFEval")
    assert ifeval["value"].item() == 0.4486 and ifeval["higher_is_better"].item() is True
    inst = read_eee_instances(DATA / "eee")
    assert inst.rows() == [("demo-org/demo-model", "demo-source.demo_bench", "demo_0001", 0,
                            "score", 1.0, True)]


def test_every_eval_ever_direction_only_from_the_aggregate(tmp_path):
    shutil.copy(DATA / "eee" / "f3a1c0de-4b2e-4c1a-9f6d-1b7e5a2c8d40_samples.jsonl", tmp_path)
    inst = read_eee_instances(tmp_path)
    assert inst["higher_is_better"].null_count() == 1
    with pytest.raises(gx.GenexpyInputError, match="does not state"):
        direction(inst)


def test_tsml_results_one_file_per_classifier():
    df = read_tsml_results(DATA / "tsml")
    assert set(df["classifier"]) == {"HC2", "InceptionTime"}
    assert df["dataset"].n_unique() == 8 and df["resample"].n_unique() == 30
    assert df.filter(pl.col("classifier") == "HC2", pl.col("dataset") == "ACSF1",
                     pl.col("resample") == 0)["value"].item() == 0.91
    assert set(df["metric"]) == {"accuracy"}
    study = gx.Study(df.drop("metric", "higher_is_better"), alternatives="classifier",
                     target="value", generalize="dataset", average_over=["resample"],
                     higher_is_better=True)
    assert study.na == 2


@pytest.mark.parametrize("reader,name", [
    (read_lm_eval_samples, "samples_t_2024-01-01T00-00-00.jsonl"),
    (read_inspect_log, "log.json"),
    (read_eee, "agg.json"),
    (read_eee_instances, "inst.jsonl"),
    (read_tsml_results, "X_accuracy.csv"),
])
@pytest.mark.parametrize("content", [b'{"results": []}\n', bytes(range(256)) * 8, b"[1, 2]\n",
                                     b""])
def test_nothing_read_is_an_error_naming_what_was_found(tmp_path, reader, name, content):
    f = tmp_path / name
    f.write_bytes(content)
    with pytest.raises(gx.GenexpyInputError, match="no result read from .*file"):
        reader(f)
    with pytest.raises(gx.GenexpyInputError, match="no result read|no .* file under"):
        reader(tmp_path)


def test_empty_folder_and_huge_integer(tmp_path):
    with pytest.raises(gx.GenexpyInputError, match="no samples_"):
        read_lm_eval_samples(tmp_path)
    f = tmp_path / "samples_t_2024-01-01T00-00-00.jsonl"
    f.write_text('{"doc_id": 0, "metrics": ["acc"], "acc": %s}\n'
                 '{"doc_id": 1, "metrics": ["acc"], "acc": 1}\n' % ("9" * 400))
    with pytest.warns(gx.SkippedRecordsWarning, match="line 1: metric 'acc': an integer of 400"):
        assert read_lm_eval_samples(f)["value"].to_list() == [1.0]
