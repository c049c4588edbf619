"""The example study: a seeded stream of datasets, the experiments on them, the shipped table."""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest
from numpy.testing import assert_allclose

pytest.importorskip("sklearn", reason="the example study runs scikit-learn models")

from genexpy_nb import GenexpyInputError
from genexpy_nb.example.study import (
    FACTOR_ROLES,
    METADATA_KEY,
    METRICS,
    MODELS,
    N_FOLDS,
    REAL_EVERY,
    SCHEMA,
    SHIPPED_FILE,
    TRAIN_SIZES,
    ExperimentRunner,
    _main,
    _scores,
    describe_conditions,
    load_example_study,
    make_condition,
    run_experiments,
)
from genexpy_nb.io.public import shipped_path

#: cheap models for the tests that do not need all eight
CHEAP = ("NaiveBayes", "KNN", "DecisionTree")
KEY = ["condition", "train_size", "fold", "model", "metric"]


def cheap(conditions, **kw):
    kw.setdefault("models", CHEAP)
    kw.setdefault("record_time", False)
    kw.setdefault("progress", False)
    return run_experiments(conditions, **kw)


@pytest.fixture(scope="module")
def full_condition_1() -> pl.DataFrame:
    """All models, metrics, sizes and folds of condition 1 (seed 0)."""
    return run_experiments([1], seed=0, record_time=False, progress=False)


# ---- metrics -------------------------------------------------------------------------------
def test_scores_match_sklearn():
    from sklearn.metrics import accuracy_score, balanced_accuracy_score, f1_score

    rng = np.random.default_rng(3)
    cases = [(rng.integers(0, 2, 40), rng.integers(0, 2, 40)) for _ in range(20)]
    cases.append((np.array([0, 1, 1, 0]), np.zeros(4, dtype=int)))  # no positive prediction
    cases.append((np.array([0, 1, 1, 0]), np.ones(4, dtype=int)))
    cases.append((np.array([0, 1, 1, 0]), np.array([0, 1, 1, 0])))
    for y, p in cases:
        s = _scores(y, p)
        assert s["accuracy"] == pytest.approx(accuracy_score(y, p), abs=1e-12)
        assert s["balanced_accuracy"] == pytest.approx(balanced_accuracy_score(y, p), abs=1e-12)
        assert s["f1"] == pytest.approx(f1_score(y, p, zero_division=0.0), abs=1e-12)


# ---- the stream of datasets ----------------------------------------------------------------
def test_stream_of_conditions_is_sensible():
    n = 3 * 21 + 6  # every real dataset plus a few synthetic ones after them
    conds = [make_condition(i, seed=0) for i in range(n)]
    names = [c.name for c in conds]
    assert len(set(names)) == n
    for c in conds:
        assert c.X.dtype == np.float64 and c.X.ndim == 2 and np.isfinite(c.X).all()
        assert c.y.shape == (c.n_samples,)
        assert set(np.unique(c.y)) == {0, 1}
        assert 0.15 < c.minority_rate <= 0.5  # 1 is the minority class
        assert 150 <= c.n_samples <= 400
        assert np.bincount(c.y).min() >= 2 * N_FOLDS
        is_real = c.index % REAL_EVERY == 0 and c.index < 21 * REAL_EVERY
        assert c.kind == ("real" if is_real else "synthetic")
    kinds = {c.generator for c in conds}
    assert {"sklearn.datasets.make_classification", "sklearn.datasets.load_digits"} <= kinds
    # the stream goes on after the real datasets run out
    late = make_condition(10_000, seed=0)
    assert late.kind == "synthetic" and late.name.startswith("syn-10000-")


def test_condition_depends_only_on_index_and_seed():
    a = make_condition(7, seed=4)
    for i in range(7):  # generating others first changes nothing
        make_condition(i, seed=4)
    b = make_condition(7, seed=4)
    assert a.name == b.name
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.y, b.y)
    # another seed, another stream
    names0 = [make_condition(i, 0).name for i in range(12)]
    names1 = [make_condition(i, 1).name for i in range(12)]
    assert names0 != names1


def test_describe_conditions():
    d = describe_conditions(6, seed=0)
    assert d.columns == [
        "condition", "dataset", "dataset_kind", "generator", "n_samples", "n_features",
        "minority_rate", "params",
    ]
    assert d["condition"].to_list() == list(range(6))
    c = make_condition(1, seed=0)
    row = d.row(1, named=True)
    assert row["dataset"] == c.name and row["n_features"] == c.n_features
    assert json.loads(row["params"]) == json.loads(json.dumps(dict(c.params)))


# ---- running experiments -------------------------------------------------------------------
def test_schema_and_shape(full_condition_1):
    df = full_condition_1
    schema = {k: v for k, v in SCHEMA.items() if k != "fit_time"}
    assert dict(df.schema) == schema
    assert df.height == N_FOLDS * len(TRAIN_SIZES) * len(MODELS) * len(METRICS)
    assert df.null_count().sum_horizontal().item() == 0
    assert df["score"].is_between(0.0, 1.0).all()
    assert sorted(df["model"].unique()) == sorted(MODELS)
    assert df.select(KEY).is_unique().all()
    # roles cover the factor columns
    assert set(FACTOR_ROLES) | {"model", "score", "condition", "dataset_kind"} == set(df.columns)


def test_fit_time_column_and_progress_bar():
    df = run_experiments([2], models=["NaiveBayes"], metrics=["f1"], progress=True)
    assert dict(df.schema) == SCHEMA
    assert (df["fit_time"] > 0).all()
    # fit_time is per fit: the same for every metric of one fit
    df3 = run_experiments([2], models=["NaiveBayes"], progress=False)
    assert df3.group_by(["train_size", "fold"]).agg(pl.col("fit_time").n_unique())[
        "fit_time"
    ].max() == 1


def test_deterministic():
    a = cheap([0, 4], seed=5)
    b = cheap([0, 4], seed=5)
    assert a.equals(b)
    c = cheap([0, 4], seed=6)
    assert not a.equals(c)


def test_condition_is_the_same_in_any_batch_and_any_subset():
    alone = cheap([5], seed=0)
    in_batch = cheap([3, 5, 4], seed=0)
    assert in_batch["condition"].unique(maintain_order=True).to_list() == [3, 5, 4]
    assert in_batch.filter(pl.col("condition") == 5).equals(alone)
    # asking for fewer models, metrics or sizes changes none of the other rows
    sub = cheap([5], seed=0, models=["KNN"], metrics=["f1", "accuracy"], train_sizes=["full"])
    expected = alone.filter(
        (pl.col("model") == "KNN") & pl.col("metric").is_in(["accuracy", "f1"])
        & (pl.col("train_size") == "full")
    )
    assert sub.equals(expected)


def test_parallel_equals_serial():
    """The n_jobs > 1 path (joblib) gives the serial rows in the serial order.

    Threads stand in for worker processes here (starting processes costs seconds); each
    condition draws its randomness from its own seeds, so the backend cannot matter.
    """
    import joblib

    serial = cheap([2, 1, 3], seed=0, models=["NaiveBayes"])
    with joblib.parallel_config(backend="threading"):
        parallel = cheap([2, 1, 3], seed=0, models=["NaiveBayes"], n_jobs=2)
    assert parallel.equals(serial)


def test_small_training_set_is_worse_on_average(full_condition_1):
    m = full_condition_1.group_by("train_size").agg(pl.col("score").mean())
    d = dict(zip(m["train_size"], m["score"]))
    assert d["small"] <= d["full"] + 0.05


@pytest.mark.parametrize(
    ("kwargs", "param"),
    [
        ({"conditions": 0}, "conditions"),
        ({"conditions": -3}, "conditions"),
        ({"conditions": []}, "conditions"),
        ({"conditions": [1, 1]}, "conditions"),
        ({"conditions": [1.5]}, "conditions"),
        ({"conditions": [-1]}, "conditions"),
        ({"conditions": "12"}, "conditions"),
        ({"conditions": True}, "conditions"),
        ({"conditions": 1, "seed": -1}, "seed"),
        ({"conditions": 1, "seed": 1.5}, "seed"),
        ({"conditions": 1, "seed": "0"}, "seed"),
        ({"conditions": 1, "models": ["XGBoost"]}, "models"),
        ({"conditions": 1, "models": []}, "models"),
        ({"conditions": 1, "metrics": ["roc_auc"]}, "metrics"),
        ({"conditions": 1, "train_sizes": ["tiny"]}, "train_sizes"),
        ({"conditions": 1, "n_folds": 1}, "n_folds"),
        ({"conditions": 1, "n_folds": 11}, "n_folds"),
        ({"conditions": 1, "n_jobs": 0}, "n_jobs"),
        ({"conditions": 1, "record_time": "yes"}, "record_time"),
    ],
)
def test_bad_arguments(kwargs, param):
    with pytest.raises(GenexpyInputError, match=param):
        run_experiments(progress=False, **kwargs)


def test_bad_condition_index():
    with pytest.raises(GenexpyInputError, match="index"):
        make_condition(-1)
    with pytest.raises(GenexpyInputError, match="seed"):
        make_condition(0, seed=-2)
    with pytest.raises(GenexpyInputError, match="conditions"):
        describe_conditions([])


# ---- the live loop -------------------------------------------------------------------------
def test_runner_runs_n0_conditions_at_a_time():
    runner = ExperimentRunner(n0=2, seed=0, models=["NaiveBayes"], record_time=False,
                              progress=False)
    assert runner.n_conditions == 0 and runner.results.height == 0
    assert runner.results.columns == [c for c in SCHEMA if c != "fit_time"]
    first = runner.run_next()
    assert first["condition"].unique().sort().to_list() == [0, 1]
    it = iter(runner)
    second = next(it)
    assert second["condition"].unique().sort().to_list() == [2, 3]
    assert runner.n_conditions == 4
    expected = cheap(4, seed=0, models=["NaiveBayes"])
    assert runner.results.equals(expected)
    third = runner.run_next(1)
    assert third["condition"].unique().to_list() == [4]
    assert "compute" in repr(runner)


def test_runner_bad_arguments():
    with pytest.raises(GenexpyInputError, match="n0"):
        ExperimentRunner(n0=0)
    with pytest.raises(GenexpyInputError, match="unknown argument"):
        ExperimentRunner(n0=2, folds=3)
    with pytest.raises(GenexpyInputError, match="models"):
        ExperimentRunner(n0=2, models=["nope"])
    with pytest.raises(GenexpyInputError, match="start"):
        ExperimentRunner(n0=2, start=-1)


def test_replay_reveals_a_table_in_batches():
    df = load_example_study()
    runner = ExperimentRunner.replay(df, n0=25)
    sizes = [b["dataset"].n_unique() for b in runner]
    assert sizes == [25, 25, 25, 5]
    assert runner.exhausted and runner.n_conditions == 80
    assert runner.results.equals(df)
    with pytest.raises(GenexpyInputError, match="revealed"):
        runner.run_next()
    # shuffled: another order, the same rows, reproducible
    r1 = ExperimentRunner.replay(df, n0=10, shuffle=True, seed=1)
    r2 = ExperimentRunner.replay(df, n0=10, shuffle=True, seed=1)
    b1, b2 = r1.run_next(), r2.run_next()
    assert b1.equals(b2)
    assert b1["dataset"].unique().sort().to_list() != df["dataset"].unique(
        maintain_order=True).head(10).sort().to_list()
    # any table and any condition column; pandas input too
    enc = pl.DataFrame({"d": ["a", "a", "b", "c"], "x": [1, 2, 3, 4]})
    r = ExperimentRunner.replay(enc.to_pandas(), n0=2, condition_col="d")
    assert r.run_next()["x"].to_list() == [1, 2, 3]
    with pytest.raises(GenexpyInputError, match="zzz"):
        ExperimentRunner.replay(enc, condition_col="zzz")
    with pytest.raises(GenexpyInputError, match="empty"):
        ExperimentRunner.replay(enc.clear(), condition_col="d")


# ---- the shipped table and the command that makes it ---------------------------------------
def test_shipped_file_loads_with_the_expected_schema():
    path = shipped_path(SHIPPED_FILE)
    assert path.stat().st_size < 1_000_000
    df = load_example_study()
    assert dict(df.schema) == SCHEMA
    assert df.shape == (11_520, 9)
    assert df["condition"].unique().sort().to_list() == list(range(80))
    assert df["dataset"].n_unique() == 80
    per_dataset = df.group_by("dataset").len()["len"]
    assert (per_dataset == N_FOLDS * len(TRAIN_SIZES) * len(MODELS) * len(METRICS)).all()
    kinds = df.unique("dataset")["dataset_kind"].value_counts()
    assert dict(zip(kinds["dataset_kind"], kinds["count"])) == {"real": 21, "synthetic": 59}
    assert df["score"].is_between(0.0, 1.0).all()
    assert df.select(KEY).is_unique().all()
    # the names of the datasets are those of the stream of seed 0
    names = df.unique("condition", maintain_order=True).sort("condition")["dataset"].to_list()
    assert names[:5] == [make_condition(i, 0).name for i in range(5)]


def test_shipped_file_is_reproduced(full_condition_1):
    import sklearn

    meta = json.loads(pl.read_parquet_metadata(shipped_path(SHIPPED_FILE))[METADATA_KEY])
    assert meta["seed"] == 0 and meta["conditions"] == 80
    # made as "python -m genexpy_nb.example_study" (the old path of genexpy_nb.example.study)
    assert meta["command"].startswith("python -m genexpy_nb.example_study")
    if meta["scikit-learn"] != sklearn.__version__:
        pytest.skip(f"shipped with scikit-learn {meta['scikit-learn']}, "
                    f"running {sklearn.__version__}")
    shipped = load_example_study().filter(pl.col("condition") == 1).drop("fit_time")
    assert shipped.select(KEY).equals(full_condition_1.select(KEY))
    assert_allclose(shipped["score"].to_numpy(), full_condition_1["score"].to_numpy(),
                    rtol=0, atol=1e-12)


def test_command_line_writes_the_table(tmp_path, full_condition_1, capsys):
    out = tmp_path / "sub" / "study.parquet"
    assert _main(["--conditions", "1", "--start", "1", "--seed", "0", "--out", str(out),
                  "--no-time", "--no-progress"]) == 0
    assert "144 rows" in capsys.readouterr().out
    df = pl.read_parquet(out)
    assert df.equals(full_condition_1)
    meta = json.loads(pl.read_parquet_metadata(out)[METADATA_KEY])
    assert meta["start"] == 1 and meta["conditions"] == 1
