"""An example study the package can run offline: scikit-learn classifiers on many small datasets.

The study is a small benchmark in the shape of the paper's case studies (paper Sec. 3.1):

=================  ==================  =====================================================
role               column              levels
=================  ==================  =====================================================
alternatives       ``model``           8 scikit-learn classifiers with fixed hyperparameters
                                       (:data:`MODELS`)
generalizability   ``dataset``         an unbounded, seeded stream of binary classification
                                       datasets: bundled real ones (breast cancer, wine, iris,
                                       digits) interleaved with synthetic ones
                                       (``make_classification``, moons, circles, Gaussian
                                       quantiles) with varied difficulty
design             ``metric``          accuracy, balanced accuracy, F1 of the minority class,
                                       computed from the same predictions
design             ``train_size``      ``"small"`` (:data:`SMALL_TRAIN_ROWS` rows of the
                                       training fold, stratified) or ``"full"``
stochasticity      ``fold``            stratified k-fold cross-validation (k = 3, seeded)
target             ``score``           higher is better, in [0, 1]
=================  ==================  =====================================================

``condition`` (the index of the dataset in the stream) and ``dataset_kind`` (``"real"`` or
``"synthetic"``) are attributes of ``dataset``: adding them to the generalizability key does
not change it, and ``dataset_kind`` can be held constant to study real datasets only.
``fit_time`` (seconds, wall clock, lower is better) is the one column that is not
reproducible; leave it out with ``record_time=False``.

Condition ``i`` of seed ``s`` is always the same dataset with the same folds, models and
random states, whatever the batch it is requested in: every random choice of a condition is
drawn from ``numpy.random.SeedSequence([s, ..., i, ...])``. This is what the live study
design loop (paper Algorithm 1, Section 4.5) needs: :class:`ExperimentRunner`
runs N0 new conditions at a time.

scikit-learn is needed to run experiments (``pip install scikit-learn``, or the ``train``
extra); :func:`load_example_study`, which reads the results shipped with the package, is not.

Run as a module to regenerate the shipped table::

    python -m genexpy_nb.example_study --conditions 80 --seed 0 --out data/example_study.parquet
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
import time
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from ._validation import GenexpyInputError, check_positive_int, require_columns, to_polars

__all__ = [
    "MODELS",
    "METRICS",
    "TRAIN_SIZES",
    "N_FOLDS",
    "SMALL_TRAIN_ROWS",
    "MAX_ROWS",
    "SCHEMA",
    "FACTOR_ROLES",
    "ALTERNATIVES",
    "TARGET",
    "SHIPPED_FILE",
    "METADATA_KEY",
    "Condition",
    "make_condition",
    "describe_conditions",
    "run_experiments",
    "ExperimentRunner",
    "load_example_study",
]

# ---- constants of the study ---------------------------------------------------------------
#: the alternatives (scikit-learn classifiers, fixed hyperparameters; see :func:`_make_model`)
MODELS: tuple[str, ...] = (
    "LogReg",
    "NaiveBayes",
    "KNN",
    "DecisionTree",
    "RandomForest",
    "ExtraTrees",
    "SVM-RBF",
    "MLP",
)
#: the metrics (design factor), all higher-is-better and in [0, 1]
METRICS: tuple[str, ...] = ("accuracy", "balanced_accuracy", "f1")
#: training-set sizes (design factor)
TRAIN_SIZES: tuple[str, ...] = ("small", "full")
#: folds of the stratified cross-validation (stochasticity factor)
N_FOLDS: int = 3
#: rows of the training fold used when ``train_size == "small"``
SMALL_TRAIN_ROWS: int = 60
#: datasets with more rows are subsampled (stratified) to this many rows
MAX_ROWS: int = 400
#: every ``REAL_EVERY``-th condition (0, 3, 6, ...) is a real dataset while any is left
REAL_EVERY: int = 3
#: trees in the two forests
N_TREES: int = 20

#: columns and dtypes of the results table
SCHEMA: dict[str, pl.DataType] = {
    "condition": pl.Int32(),
    "dataset": pl.String(),
    "dataset_kind": pl.String(),
    "train_size": pl.String(),
    "fold": pl.Int32(),
    "model": pl.String(),
    "metric": pl.String(),
    "score": pl.Float64(),
    "fit_time": pl.Float64(),
}
#: the role of each factor column (paper Sec. 3.1)
FACTOR_ROLES: dict[str, str] = {
    "dataset": "generalizability",
    "metric": "design",
    "train_size": "design",
    "fold": "stochasticity",
}
#: the column holding the alternatives
ALTERNATIVES: str = "model"
#: the target column (higher is better)
TARGET: str = "score"
#: name of the shipped results table in ``data/``
SHIPPED_FILE: str = "example_study.parquet"
#: key of the parquet key-value metadata holding how a results file was produced (JSON)
METADATA_KEY: str = "genexpy_nb.example_study"

# keys separating the random streams derived from one seed (SeedSequence entropy)
_KEY_CONDITION = 0  # the dataset of condition i
_KEY_CATALOGUE = 1  # the order of the real datasets
_KEY_SPLIT = 2  # the CV folds of condition i
_KEY_SMALL = 3  # the "small" training subsample of (i, fold)
_KEY_MODEL = 4  # the random_state of (i, fold, model)

#: the pairs of digits that are the hardest to tell apart (the others are all ~100 % for
#: every model and would flood the study with ties)
_DIGIT_PAIRS: tuple[tuple[int, int], ...] = (
    (1, 7), (1, 8), (2, 3), (2, 8), (3, 5), (3, 8), (3, 9), (4, 9), (5, 8), (5, 9), (7, 9),
    (8, 9),
)
_SYNTHETIC_FAMILIES: tuple[str, ...] = (
    "classification",
    "moons",
    "circles",
    "gaussian_quantiles",
)
_SYNTHETIC_PROBS: tuple[float, ...] = (0.6, 0.14, 0.12, 0.14)


def _sklearn() -> Any:
    """Import scikit-learn, or say how to install it."""
    try:
        import sklearn  # noqa: F401
    except ModuleNotFoundError as exc:  # pragma: no cover - sklearn is in the test env
        raise ImportError(
            "running the example study needs scikit-learn: pip install scikit-learn "
            "(or pip install 'genexpy_nb[train]'). load_example_study() works without it."
        ) from exc
    return sklearn


def _int_seed(*entropy: int) -> int:
    """A 31-bit integer seed (for scikit-learn's ``random_state``) from integer keys."""
    return int(np.random.SeedSequence([int(e) for e in entropy]).generate_state(1)[0] >> 1)


def _check_seed(seed: Any) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or int(seed) < 0:
        raise GenexpyInputError(
            f"seed must be a non-negative integer (condition i of a seed is always the same "
            f"dataset), got {seed!r}."
        )
    return int(seed)


# ---- the stream of datasets -----------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Condition:
    """One experimental condition: a binary classification dataset.

    Attributes
    ----------
    index : int
        Position in the stream (``make_condition(index, seed)`` always returns the same data).
    name : str
        Unique name of the dataset within a seed, e.g. ``"digits-3v8"``, ``"syn-00007-moons"``.
    kind : str
        ``"real"`` (bundled with scikit-learn) or ``"synthetic"``.
    generator : str
        The scikit-learn loader or generator it comes from.
    params : Mapping[str, Any]
        The generator's parameters (for synthetic datasets) or the class split (real ones).
    X : ndarray, shape (n_samples, n_features), float64
    y : ndarray, shape (n_samples,), int64
        0/1 labels; 1 is the minority class (the positive class of F1).
    """

    index: int
    name: str
    kind: str
    generator: str
    params: Mapping[str, Any] = field(repr=False)
    X: np.ndarray = field(repr=False)
    y: np.ndarray = field(repr=False)

    @property
    def n_samples(self) -> int:
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        return int(self.X.shape[1])

    @property
    def minority_rate(self) -> float:
        return float(self.y.mean())


@functools.cache
def _load_real(source: str) -> tuple[np.ndarray, np.ndarray]:
    """Features and original labels of a dataset bundled with scikit-learn (cached)."""
    _sklearn()
    from sklearn import datasets

    loader = {
        "breast_cancer": datasets.load_breast_cancer,
        "wine": datasets.load_wine,
        "iris": datasets.load_iris,
        "digits": datasets.load_digits,
    }[source]
    bunch = loader()
    X = np.ascontiguousarray(bunch.data, dtype=np.float64)
    y = np.asarray(bunch.target, dtype=np.int64)
    X.setflags(write=False)
    y.setflags(write=False)
    return X, y


def _real_catalogue() -> list[tuple[str, str, dict[str, Any]]]:
    """(name, source, params) of every real condition, in a fixed canonical order.

    ``params["positive"]`` lists the original classes mapped to one label, ``params["keep"]``
    the classes kept (None: all).
    """
    cat: list[tuple[str, str, dict[str, Any]]] = [
        ("breast_cancer", "breast_cancer", {"positive": [0], "keep": None}),
    ]
    for k, cls in enumerate(("class0", "class1", "class2")):
        cat.append((f"wine-{cls}-vs-rest", "wine", {"positive": [k], "keep": None}))
    for k, cls in enumerate(("setosa", "versicolor", "virginica")):
        cat.append((f"iris-{cls}-vs-rest", "iris", {"positive": [k], "keep": None}))
    cat.append(("digits-even-vs-odd", "digits", {"positive": [0, 2, 4, 6, 8], "keep": None}))
    cat.append(("digits-0to4-vs-5to9", "digits", {"positive": [0, 1, 2, 3, 4], "keep": None}))
    for a, b in _DIGIT_PAIRS:
        cat.append((f"digits-{a}v{b}", "digits", {"positive": [a], "keep": [a, b]}))
    return cat


_N_REAL = len(_real_catalogue())


@functools.lru_cache(maxsize=64)
def _real_order(seed: int) -> np.ndarray:
    """The seeded order in which the real datasets enter the stream."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, _KEY_CATALOGUE]))
    order = rng.permutation(_N_REAL)
    order.setflags(write=False)
    return order


def _stratified_subsample(
    y: np.ndarray, n: int, rng: np.random.Generator
) -> np.ndarray:
    """Sorted indices of a stratified subsample of ``n`` rows (class shares kept, rounded)."""
    if n >= y.size:
        return np.arange(y.size)
    classes, counts = np.unique(y, return_counts=True)
    take = np.floor(counts * n / y.size).astype(np.int64)
    # distribute the rounding remainder to the largest fractional parts (ties: lower class)
    rest = n - int(take.sum())
    frac = counts * n / y.size - take
    for c in np.argsort(-frac, kind="stable")[:rest]:
        take[c] += 1
    take = np.maximum(take, 1)
    idx = [rng.choice(np.flatnonzero(y == c), size=t, replace=False) for c, t in zip(classes, take)]
    return np.sort(np.concatenate(idx))


def _minority_is_one(y: np.ndarray) -> np.ndarray:
    """0/1 labels with 1 the minority class (unchanged on a tie)."""
    y = y.astype(np.int64)
    return 1 - y if y.mean() > 0.5 else y


def _real_condition(index: int, slot: int, rng: np.random.Generator) -> Condition:
    name, source, params = _real_catalogue()[slot]
    X, target = _load_real(source)
    if params["keep"] is not None:
        rows = np.flatnonzero(np.isin(target, params["keep"]))
        X, target = X[rows], target[rows]
    y = np.isin(target, params["positive"]).astype(np.int64)
    if y.size > MAX_ROWS:
        rows = _stratified_subsample(y, MAX_ROWS, rng)
        X, y = X[rows], y[rows]
    return Condition(
        index=index,
        name=name,
        kind="real",
        generator=f"sklearn.datasets.load_{source}",
        params=dict(params),
        X=np.ascontiguousarray(X, dtype=np.float64),
        y=_minority_is_one(y),
    )


def _synthetic_condition(index: int, rng: np.random.Generator) -> Condition:
    _sklearn()
    from sklearn import datasets

    family = str(rng.choice(_SYNTHETIC_FAMILIES, p=_SYNTHETIC_PROBS))
    n_samples = int(rng.integers(150, MAX_ROWS + 1))
    random_state = int(rng.integers(2**31 - 1))
    n_noise = int(rng.integers(0, 9))
    params: dict[str, Any] = {"n_samples": n_samples, "random_state": random_state}
    if family == "classification":
        n_features = int(rng.integers(4, 31))
        n_informative = int(rng.integers(2, min(n_features, 10) + 1))
        n_redundant = int(rng.integers(0, min(n_features - n_informative, 5) + 1))
        params |= {
            "n_features": n_features,
            "n_informative": n_informative,
            "n_redundant": n_redundant,
            "n_clusters_per_class": int(rng.integers(1, 3)),
            "class_sep": round(float(rng.uniform(0.3, 2.0)), 4),
            "flip_y": round(float(rng.uniform(0.0, 0.15)), 4),
            "weights": [round(float(rng.uniform(0.5, 0.8)), 4)],
        }
        X, y = datasets.make_classification(n_classes=2, shuffle=True, **params)
        n_noise = 0  # make_classification has its own useless features
    elif family == "moons":
        params["noise"] = round(float(rng.uniform(0.1, 0.4)), 4)
        X, y = datasets.make_moons(**params)
    elif family == "circles":
        params["noise"] = round(float(rng.uniform(0.05, 0.2)), 4)
        params["factor"] = round(float(rng.uniform(0.3, 0.8)), 4)
        X, y = datasets.make_circles(**params)
    else:
        params["n_features"] = int(rng.integers(2, 9))
        X, y = datasets.make_gaussian_quantiles(n_classes=2, **params)
    if n_noise:
        noise_rng = np.random.default_rng(np.random.SeedSequence([random_state, 1]))
        X = np.hstack([X, noise_rng.standard_normal((X.shape[0], n_noise))])
    params["n_noise_features"] = n_noise
    return Condition(
        index=index,
        name=f"syn-{index:05d}-{family}",
        kind="synthetic",
        generator=f"sklearn.datasets.make_{family}",
        params=params,
        X=np.ascontiguousarray(X, dtype=np.float64),
        y=_minority_is_one(np.asarray(y)),
    )


def make_condition(index: int, seed: int = 0) -> Condition:
    """Dataset number ``index`` of the stream of seed ``seed``.

    Conditions ``0, REAL_EVERY, 2 * REAL_EVERY, ...`` are the real datasets bundled with
    scikit-learn (21 of them: breast cancer; wine and iris one-vs-rest; digits even/odd,
    0-4/5-9 and 12 hard pairs of digits), in an order drawn from the seed, while any is left;
    every other condition is a synthetic dataset whose generator (``make_classification``
    60 %, ``make_moons`` / ``make_circles`` / ``make_gaussian_quantiles`` with extra noise
    features) and parameters (rows 150-400, features, informative features, class
    separation, label noise, class imbalance, ...) are drawn from
    ``SeedSequence([seed, 0, index])``. Datasets larger than :data:`MAX_ROWS` rows are
    subsampled (stratified). Labels are 0/1 with 1 the minority class.

    Parameters
    ----------
    index : int
        Non-negative position in the stream; the stream is unbounded.
    seed : int
        Non-negative seed of the stream.

    Returns
    -------
    Condition
        The same data for the same ``(index, seed)``, whatever else was generated before.

    Examples
    --------
    >>> c = make_condition(1, seed=0)
    >>> c.kind, c.X.shape[0] >= 150
    ('synthetic', True)
    """
    index = check_positive_int("index", index, minimum=0)
    seed = _check_seed(seed)
    rng = np.random.default_rng(np.random.SeedSequence([seed, _KEY_CONDITION, index]))
    if index % REAL_EVERY == 0 and index // REAL_EVERY < _N_REAL:
        return _real_condition(index, int(_real_order(seed)[index // REAL_EVERY]), rng)
    return _synthetic_condition(index, rng)


def describe_conditions(conditions: Iterable[int] | int, seed: int = 0) -> pl.DataFrame:
    """One row per condition: what dataset it is (no model is trained).

    Parameters
    ----------
    conditions : int or iterable of int
        ``n`` means conditions ``0 .. n-1``; otherwise distinct non-negative indices.
    seed : int
        Seed of the stream.

    Returns
    -------
    polars.DataFrame
        Columns ``condition, dataset, dataset_kind, generator, n_samples, n_features,
        minority_rate, params`` (``params``: the generator's parameters as JSON).
    """
    idx = _check_conditions(conditions)
    seed = _check_seed(seed)
    rows = []
    for i in idx:
        c = make_condition(i, seed)
        rows.append(
            {
                "condition": c.index,
                "dataset": c.name,
                "dataset_kind": c.kind,
                "generator": c.generator,
                "n_samples": c.n_samples,
                "n_features": c.n_features,
                "minority_rate": c.minority_rate,
                "params": json.dumps(dict(c.params), sort_keys=True),
            }
        )
    return pl.DataFrame(
        rows,
        schema={
            "condition": pl.Int32(),
            "dataset": pl.String(),
            "dataset_kind": pl.String(),
            "generator": pl.String(),
            "n_samples": pl.Int32(),
            "n_features": pl.Int32(),
            "minority_rate": pl.Float64(),
            "params": pl.String(),
        },
    )


# ---- the alternatives ---------------------------------------------------------------------
def _make_model(name: str, random_state: int) -> Any:
    """A fresh, unfitted classifier with the study's fixed hyperparameters."""
    _sklearn()
    from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.neural_network import MLPClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC
    from sklearn.tree import DecisionTreeClassifier

    if name == "LogReg":
        return make_pipeline(StandardScaler(), LogisticRegression(C=1.0, max_iter=1000))
    if name == "NaiveBayes":
        return GaussianNB()
    if name == "KNN":
        return make_pipeline(StandardScaler(), KNeighborsClassifier(n_neighbors=5))
    if name == "DecisionTree":
        return DecisionTreeClassifier(min_samples_leaf=2, random_state=random_state)
    if name == "RandomForest":
        return RandomForestClassifier(n_estimators=N_TREES, n_jobs=1, random_state=random_state)
    if name == "ExtraTrees":
        return ExtraTreesClassifier(n_estimators=N_TREES, n_jobs=1, random_state=random_state)
    if name == "SVM-RBF":
        return make_pipeline(StandardScaler(), SVC(C=1.0, gamma="scale"))
    if name == "MLP":
        return make_pipeline(
            StandardScaler(),
            MLPClassifier(
                hidden_layer_sizes=(16,), solver="lbfgs", alpha=1e-3, max_iter=200,
                random_state=random_state,
            ),
        )
    raise GenexpyInputError(f"models: unknown model {name!r}; known: {list(MODELS)}.")


def _scores(y_true: np.ndarray, y_pred: np.ndarray) -> dict[str, float]:
    """Accuracy, balanced accuracy and F1 (positive class 1) from 0/1 labels.

    ``accuracy = (tp + tn) / n``; ``balanced_accuracy = (tp / (tp + fn) + tn / (tn + fp)) / 2``
    (a class absent from ``y_true`` is left out of the mean); ``f1 = 2 tp / (2 tp + fp + fn)``
    (0 when the denominator is 0).
    """
    t = y_true == 1
    p = y_pred == 1
    tp = float(np.sum(t & p))
    tn = float(np.sum(~t & ~p))
    fp = float(np.sum(~t & p))
    fn = float(np.sum(t & ~p))
    recalls = []
    if tp + fn:
        recalls.append(tp / (tp + fn))
    if tn + fp:
        recalls.append(tn / (tn + fp))
    denom = 2 * tp + fp + fn
    return {
        "accuracy": (tp + tn) / y_true.size,
        "balanced_accuracy": float(np.mean(recalls)),
        "f1": 2 * tp / denom if denom else 0.0,
    }


# ---- running experiments ------------------------------------------------------------------
def _check_conditions(conditions: Any) -> list[int]:
    if isinstance(conditions, (int, np.integer)) and not isinstance(conditions, bool):
        return list(range(check_positive_int("conditions", conditions, minimum=1)))
    if isinstance(conditions, (str, bytes, bool)) or not isinstance(conditions, Iterable):
        raise GenexpyInputError(
            f"conditions must be a number of conditions or an iterable of condition indices, "
            f"got {conditions!r}."
        )
    idx = []
    for c in conditions:
        if isinstance(c, bool) or not isinstance(c, (int, np.integer)) or int(c) < 0:
            raise GenexpyInputError(
                f"conditions must hold non-negative integers (indices into the stream of "
                f"datasets), got {c!r}."
            )
        idx.append(int(c))
    if not idx:
        raise GenexpyInputError("conditions is empty: ask for at least one condition.")
    if len(set(idx)) != len(idx):
        dup = sorted({i for i in idx if idx.count(i) > 1})
        raise GenexpyInputError(f"conditions: indices {dup} are repeated; give each once.")
    return idx


def _check_choice(name: str, values: Any, allowed: tuple[str, ...]) -> tuple[str, ...]:
    if values is None:
        return allowed
    if isinstance(values, str):
        values = (values,)
    try:
        vals = tuple(values)
    except TypeError:
        raise GenexpyInputError(f"{name} must be a list of names from {list(allowed)}.") from None
    bad = [v for v in vals if v not in allowed]
    if bad or not vals or len(set(vals)) != len(vals):
        raise GenexpyInputError(
            f"{name} must be a non-empty list of distinct names from {list(allowed)}, "
            f"got {list(vals)}" + (f" (unknown: {bad})." if bad else ".")
        )
    # canonical order, whatever order the user gave
    return tuple(v for v in allowed if v in vals)


def _check_n_jobs(n_jobs: Any) -> int:
    if n_jobs is None or (isinstance(n_jobs, (int, np.integer)) and n_jobs == -1):
        return -1
    return check_positive_int("n_jobs", n_jobs)


def _run_condition(
    index: int,
    seed: int,
    models: tuple[str, ...],
    metrics: tuple[str, ...],
    train_sizes: tuple[str, ...],
    n_folds: int,
    record_time: bool,
) -> pl.DataFrame:
    """All results of one condition (the unit of work, also in worker processes)."""
    _sklearn()
    from threadpoolctl import threadpool_limits

    # one BLAS thread: the fits are tiny, and multithreaded BLAS makes them ~10x slower on a
    # busy machine (and oversubscribes the cores when conditions run in parallel)
    with threadpool_limits(limits=1):
        return _run_condition_1thread(
            index, seed, models, metrics, train_sizes, n_folds, record_time
        )


def _run_condition_1thread(
    index: int,
    seed: int,
    models: tuple[str, ...],
    metrics: tuple[str, ...],
    train_sizes: tuple[str, ...],
    n_folds: int,
    record_time: bool,
) -> pl.DataFrame:
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.model_selection import StratifiedKFold

    cond = make_condition(index, seed)
    X, y = cond.X, cond.y
    skf = StratifiedKFold(
        n_splits=n_folds, shuffle=True, random_state=_int_seed(seed, _KEY_SPLIT, index)
    )
    cols: dict[str, list[Any]] = {k: [] for k in ("train_size", "fold", "model", "metric",
                                                   "score", "fit_time")}
    for fold, (train, test) in enumerate(skf.split(X, y)):
        for size in train_sizes:
            if size == "small":
                rng = np.random.default_rng(
                    np.random.SeedSequence([seed, _KEY_SMALL, index, fold])
                )
                rows = train[_stratified_subsample(y[train], SMALL_TRAIN_ROWS, rng)]
            else:
                rows = train
            for model in models:
                est = _make_model(
                    model, _int_seed(seed, _KEY_MODEL, index, fold, MODELS.index(model))
                )
                t0 = time.perf_counter()
                with warnings.catch_warnings():
                    # lbfgs may stop at max_iter on hard datasets: that is the fixed budget
                    warnings.simplefilter("ignore", ConvergenceWarning)
                    est.fit(X[rows], y[rows])
                fit_time = time.perf_counter() - t0
                sc = _scores(y[test], np.asarray(est.predict(X[test])))
                for metric in metrics:
                    cols["train_size"].append(size)
                    cols["fold"].append(fold)
                    cols["model"].append(model)
                    cols["metric"].append(metric)
                    cols["score"].append(sc[metric])
                    cols["fit_time"].append(fit_time)
    n = len(cols["score"])
    out = {
        "condition": [index] * n,
        "dataset": [cond.name] * n,
        "dataset_kind": [cond.kind] * n,
        **cols,
    }
    schema = dict(SCHEMA)
    if not record_time:
        del out["fit_time"]
        del schema["fit_time"]
    return pl.DataFrame(out, schema=schema)


def _empty_frame(record_time: bool = True) -> pl.DataFrame:
    schema = dict(SCHEMA)
    if not record_time:
        del schema["fit_time"]
    return pl.DataFrame(schema=schema)


def run_experiments(
    conditions: Iterable[int] | int,
    seed: int = 0,
    *,
    models: Sequence[str] | None = None,
    metrics: Sequence[str] | None = None,
    train_sizes: Sequence[str] | None = None,
    n_folds: int = N_FOLDS,
    record_time: bool = True,
    progress: bool = True,
    n_jobs: int | None = 1,
) -> pl.DataFrame:
    """Run the example study on some conditions (datasets) and return the tidy results.

    For each condition (:func:`make_condition`), stratified ``n_folds``-fold cross-validation
    (seeded); on each fold and training size, every model is fitted on the training rows
    and scored on the test fold with every metric (all from the same predictions).

    Parameters
    ----------
    conditions : int or iterable of int
        ``n`` means conditions ``0 .. n-1``; otherwise distinct non-negative indices, in the
        order the rows should come in.
    seed : int
        Non-negative seed. Condition ``i`` gives the same rows whatever other conditions,
        models, metrics or training sizes are requested alongside it.
    models : sequence of str, optional
        A subset of :data:`MODELS` (default: all 8).
    metrics : sequence of str, optional
        A subset of :data:`METRICS` (default: all 3).
    train_sizes : sequence of str, optional
        A subset of :data:`TRAIN_SIZES` (default: both).
    n_folds : int
        Folds of the cross-validation, at least 2 (default 3).
    record_time : bool
        Keep the ``fit_time`` column (wall clock: the only column that is not reproducible).
    progress : bool
        Show a tqdm progress bar over conditions.
    n_jobs : int or None
        Conditions run in parallel worker processes (joblib) when > 1; None or -1: all
        cores. Results do not depend on ``n_jobs``.

    Returns
    -------
    polars.DataFrame
        One row per (condition, train_size, fold, model, metric); columns
        ``condition, dataset, dataset_kind, train_size, fold, model, metric, score[,
        fit_time]`` (:data:`SCHEMA`). ``score`` is in [0, 1], higher is better.
        Rows: conditions in the order given, then folds, training sizes, models and metrics
        in their canonical order. Height = conditions * n_folds * sizes * models * metrics.

    Raises
    ------
    GenexpyInputError
        Bad ``conditions``, ``seed``, ``models``, ``metrics``, ``train_sizes``, ``n_folds``
        or ``n_jobs``.

    Notes
    -----
    A condition takes about a second on one core with the default settings (48 fits of
    small models on at most 400 rows). The roles of the columns are in
    :data:`FACTOR_ROLES`; see the module docstring.

    Examples
    --------
    >>> df = run_experiments([0, 1], seed=0, models=["NaiveBayes", "KNN"], progress=False)
    >>> df.height
    72
    """
    idx = _check_conditions(conditions)
    seed = _check_seed(seed)
    models_ = _check_choice("models", models, MODELS)
    metrics_ = _check_choice("metrics", metrics, METRICS)
    sizes_ = _check_choice("train_sizes", train_sizes, TRAIN_SIZES)
    n_folds = check_positive_int("n_folds", n_folds, minimum=2)
    if n_folds > 10:
        raise GenexpyInputError(f"n_folds must be between 2 and 10, got {n_folds}.")
    n_jobs_ = _check_n_jobs(n_jobs)
    if not isinstance(record_time, bool):
        raise GenexpyInputError(f"record_time must be True or False, got {record_time!r}.")
    _sklearn()
    from tqdm.auto import tqdm

    args = (seed, models_, metrics_, sizes_, n_folds, record_time)
    if n_jobs_ == 1 or len(idx) == 1:
        parts: Iterable[pl.DataFrame] = (_run_condition(i, *args) for i in idx)
    else:
        from joblib import Parallel, delayed

        parts = Parallel(n_jobs=n_jobs_, return_as="generator")(
            delayed(_run_condition)(i, *args) for i in idx
        )
    frames = list(
        tqdm(parts, total=len(idx), desc="example study", unit="condition",
             disable=not progress)
    )
    return pl.concat(frames, how="vertical")


class ExperimentRunner:
    """Run the example study N0 conditions at a time (the live study design loop).

    Paper Algorithm 1 (paper Sec. 4.5, "Study planner"): start with N0 experimental conditions;
    while the estimated n* exceeds the number N of conditions run, run N0 more and
    re-estimate. This class holds the "run N0 more" part::

        runner = ExperimentRunner(n0=10, seed=0)
        for batch in runner:            # unbounded when computing
            results = runner.results    # everything so far
            if generalizable(results):  # the n* estimate of the configurations of interest
                break

    Parameters
    ----------
    n0 : int
        Conditions per batch (default 10).
    seed : int
        Seed of the stream of datasets; condition ``i`` is the same in any batch.
    start : int
        Index of the first condition to run (default 0).
    **run_kwargs
        Passed to :func:`run_experiments` (``models``, ``metrics``, ``train_sizes``,
        ``n_folds``, ``record_time``, ``progress``, ``n_jobs``).

    Attributes
    ----------
    results : polars.DataFrame
        All results so far (empty, with :data:`SCHEMA`, before the first batch).
    n_conditions : int
        Conditions run (or revealed) so far.

    See Also
    --------
    ExperimentRunner.replay : reveal the conditions of an existing results table instead.
    """

    def __init__(self, n0: int = 10, seed: int = 0, *, start: int = 0, **run_kwargs: Any):
        self.n0 = check_positive_int("n0", n0)
        self.seed = _check_seed(seed)
        self._next = check_positive_int("start", start, minimum=0)
        allowed = {"models", "metrics", "train_sizes", "n_folds", "record_time", "progress",
                   "n_jobs"}
        bad = sorted(set(run_kwargs) - allowed)
        if bad:
            raise GenexpyInputError(
                f"ExperimentRunner: unknown argument(s) {bad}; allowed: {sorted(allowed)}."
            )
        self._run_kwargs = run_kwargs
        # validate the run arguments now rather than at the first batch
        _check_choice("models", run_kwargs.get("models"), MODELS)
        _check_choice("metrics", run_kwargs.get("metrics"), METRICS)
        _check_choice("train_sizes", run_kwargs.get("train_sizes"), TRAIN_SIZES)
        _check_n_jobs(run_kwargs.get("n_jobs", 1))
        self._replay: pl.DataFrame | None = None
        self._replay_keys: list[Any] = []
        self._condition_col = "condition"
        self._batches: list[pl.DataFrame] = []
        self._n_conditions = 0
        self._empty = _empty_frame(run_kwargs.get("record_time", True))

    @classmethod
    def replay(
        cls,
        results: Any,
        n0: int = 10,
        *,
        condition_col: str = "dataset",
        shuffle: bool = False,
        seed: int = 0,
    ) -> ExperimentRunner:
        """A runner that reveals the conditions of an existing results table, N0 at a time.

        Nothing is computed: batch ``k`` is the rows of the ``k``-th group of ``n0``
        conditions, in order of first appearance in ``results`` (or in a seeded random
        order with ``shuffle=True``). Use it with :func:`load_example_study` for an instant
        live-loop demo, or with any study (encoders, BIG-bench).

        Parameters
        ----------
        results : table (polars, pandas, arrow)
            Tidy results, one or more rows per condition.
        n0 : int
            Conditions per batch.
        condition_col : str
            The column whose levels are the conditions (default ``"dataset"``).
        shuffle : bool
            Reveal the conditions in a random order drawn from ``seed``.
        seed : int
            Seed of the shuffle.
        """
        df = to_polars(results, "results")
        if not isinstance(condition_col, str):
            raise GenexpyInputError(f"condition_col must be a column name, got {condition_col!r}.")
        require_columns(df, [condition_col], "results")
        if df.height == 0:
            raise GenexpyInputError("results is empty: there is nothing to replay.")
        runner = cls(n0=n0, seed=seed)
        keys = df.get_column(condition_col).unique(maintain_order=True).to_list()
        if shuffle:
            rng = np.random.default_rng(np.random.SeedSequence([runner.seed, _KEY_CATALOGUE]))
            keys = [keys[i] for i in rng.permutation(len(keys))]
        runner._replay = df
        runner._replay_keys = keys
        runner._condition_col = condition_col
        runner._empty = df.clear()
        return runner

    @property
    def n_conditions(self) -> int:
        return self._n_conditions

    @property
    def results(self) -> pl.DataFrame:
        if not self._batches:
            return self._empty
        return pl.concat(self._batches, how="vertical")

    @property
    def exhausted(self) -> bool:
        """True when a replay has revealed every condition (never for a computing runner)."""
        return self._replay is not None and self._n_conditions >= len(self._replay_keys)

    def run_next(self, n: int | None = None) -> pl.DataFrame:
        """Run (or reveal) the next ``n`` conditions (default ``n0``) and return their rows.

        The rows are also appended to :attr:`results`. A replay returns fewer conditions
        when fewer are left, and raises :class:`GenexpyInputError` once none is left.
        """
        n = self.n0 if n is None else check_positive_int("n", n)
        if self._replay is not None:
            if self.exhausted:
                raise GenexpyInputError(
                    f"the replayed table has only {len(self._replay_keys)} conditions and all "
                    "have been revealed; check runner.exhausted before asking for more."
                )
            keys = self._replay_keys[self._n_conditions : self._n_conditions + n]
            # rows in the order in which their conditions are revealed
            order = pl.DataFrame(
                {self._condition_col: keys, "__genexpy_order": np.arange(len(keys))},
                schema={self._condition_col: self._replay.schema[self._condition_col],
                        "__genexpy_order": pl.Int64()},
            )
            batch = (
                self._replay.with_row_index("__genexpy_row")
                .join(order, on=self._condition_col, how="inner")
                .sort(["__genexpy_order", "__genexpy_row"])
                .drop(["__genexpy_order", "__genexpy_row"])
            )
            self._n_conditions += len(keys)
        else:
            batch = run_experiments(
                range(self._next, self._next + n), self.seed, **self._run_kwargs
            )
            self._next += n
            self._n_conditions += n
        self._batches.append(batch)
        return batch

    def __iter__(self) -> Iterator[pl.DataFrame]:
        """Yield batches of ``n0`` conditions: forever when computing, until exhausted when
        replaying."""
        while not self.exhausted:
            yield self.run_next()

    def __repr__(self) -> str:
        mode = "replay" if self._replay is not None else "compute"
        return (
            f"ExperimentRunner(mode={mode!r}, n0={self.n0}, seed={self.seed}, "
            f"n_conditions={self._n_conditions})"
        )


# ---- the shipped table ----------------------------------------------------------------------
def load_example_study() -> pl.DataFrame:
    """The results of the example study shipped with the package (80 conditions, seed 0).

    Produced by ``python -m genexpy_nb.example_study --conditions 80 --seed 0 --out
    data/example_study.parquet`` (see ``data/MANIFEST.md``); 80 datasets (21 real,
    59 synthetic) x 2 training sizes x 3 folds x 8 models x 3 metrics = 11,520 rows with the
    columns of :data:`SCHEMA`. Needs no scikit-learn.

    Returns
    -------
    polars.DataFrame
        Roles: :data:`FACTOR_ROLES`, alternatives :data:`ALTERNATIVES`, target
        :data:`TARGET` (higher is better).
    """
    from .data import shipped_path

    return pl.read_parquet(shipped_path(SHIPPED_FILE))


def _main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m genexpy_nb.example_study",
        description="Run the example study (scikit-learn classifiers on a seeded stream of "
        "small datasets) and write the tidy results to a parquet file.",
    )
    parser.add_argument("--conditions", type=int, default=80, help="number of datasets (80)")
    parser.add_argument("--start", type=int, default=0, help="index of the first dataset (0)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the stream (0)")
    parser.add_argument("--out", type=Path, required=True, help="output .parquet file")
    parser.add_argument("--n-jobs", type=int, default=1, help="worker processes (1; -1: all)")
    parser.add_argument("--no-time", action="store_true", help="leave out fit_time")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    df = run_experiments(
        range(args.start, args.start + args.conditions),
        seed=args.seed,
        record_time=not args.no_time,
        progress=not args.no_progress,
        n_jobs=args.n_jobs,
    )
    elapsed = time.perf_counter() - t0
    args.out.parent.mkdir(parents=True, exist_ok=True)
    import sklearn

    provenance = {
        "command": "python -m genexpy_nb.example_study " + " ".join(
            argv if argv is not None else sys.argv[1:]
        ),
        "conditions": args.conditions,
        "start": args.start,
        "seed": args.seed,
        "scikit-learn": sklearn.__version__,
        "numpy": np.__version__,
        "polars": pl.__version__,
    }
    from ._io import atomic_write

    with atomic_write(args.out) as fh:  # a temporary name, renamed when complete
        df.write_parquet(
            fh, compression="zstd", compression_level=19, statistics=False,
            metadata={METADATA_KEY: json.dumps(provenance, sort_keys=True)},
        )
    print(
        f"{df.height} rows x {df.width} columns, {df['dataset'].n_unique()} datasets "
        f"({elapsed:.1f} s, {elapsed / args.conditions:.2f} s per condition) -> {args.out} "
        f"({args.out.stat().st_size / 1024:.1f} KiB)"
    )
    return 0


if __name__ == "__main__":  # pragma: no cover - exercised by the shipped file
    raise SystemExit(_main())
