"""The datasets of the example study, condition by condition.

An unbounded, seeded stream of binary classification tasks (bundled real datasets
interleaved with synthetic ones).

Condition ``i`` of seed ``s`` is always the same dataset: every random choice is drawn from
``numpy.random.SeedSequence([s, ..., i, ...])``. The study that runs models on them is
:mod:`genexpy_nb.example.study`.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl

from .._validation import GenexpyInputError, Seed, axis_length, check_positive_int, root_seed

__all__ = ["KEY_CATALOGUE", "MAX_ROWS", "REAL_EVERY", "Condition", "check_conditions",
           "check_seed", "describe_conditions", "int_seed", "make_condition",
           "require_sklearn", "stratified_subsample"]

#: datasets with more rows are subsampled (stratified) to this many rows
MAX_ROWS: int = 400
#: every ``REAL_EVERY``-th condition (0, 3, 6, ...) is a real dataset while any is left
REAL_EVERY: int = 3

# keys separating the random streams derived from one seed (SeedSequence entropy)
_KEY_CONDITION = 0  # the dataset of condition i
KEY_CATALOGUE = 1  # the order of the real datasets

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


def require_sklearn() -> Any:
    """Import scikit-learn, or say how to install it."""
    try:
        import sklearn
    except ModuleNotFoundError as exc:  # pragma: no cover - sklearn is in the test env
        raise ImportError(
            "running the example study needs scikit-learn: pip install scikit-learn "
            "(or pip install 'genexpy_nb[train]'). load_example_study() works without it."
        ) from exc
    return sklearn


def int_seed(*entropy: int) -> int:
    """Derive a 31-bit integer seed (for scikit-learn's ``random_state``) from integer keys."""
    return int(np.random.SeedSequence([int(e) for e in entropy]).generate_state(1)[0] >> 1)


def check_seed(seed: Any) -> int:
    """Check a seed and return the integer root of the stream of datasets.

    Condition i of a root is always the same dataset; the root is that of
    :func:`~genexpy_nb._validation.root_seed`.
    """
    return root_seed(seed)


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

    n_samples = axis_length("X", 0, "The number of samples (rows of ``X``).")
    n_features = axis_length("X", 1, "The number of features (columns of ``X``).")

    @property
    def minority_rate(self) -> float:
        """The share of samples in the minority class (label 1)."""
        return float(self.y.mean())


@functools.cache
def _load_real(source: str) -> tuple[np.ndarray, np.ndarray]:
    """Features and original labels of a dataset bundled with scikit-learn (cached)."""
    require_sklearn()
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
    """Return the seeded order in which the real datasets enter the stream."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, KEY_CATALOGUE]))
    order = rng.permutation(_N_REAL)
    order.setflags(write=False)
    return order


def stratified_subsample(
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
        rows = stratified_subsample(y, MAX_ROWS, rng)
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
    require_sklearn()
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


def make_condition(index: int, seed: Seed = 0) -> Condition:
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
    seed = check_seed(seed)
    rng = np.random.default_rng(np.random.SeedSequence([seed, _KEY_CONDITION, index]))
    if index % REAL_EVERY == 0 and index // REAL_EVERY < _N_REAL:
        return _real_condition(index, int(_real_order(seed)[index // REAL_EVERY]), rng)
    return _synthetic_condition(index, rng)


def describe_conditions(conditions: Iterable[int] | int, seed: Seed = 0) -> pl.DataFrame:
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
    idx = check_conditions(conditions)
    seed = check_seed(seed)
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


# ---- running experiments ------------------------------------------------------------------
def check_conditions(conditions: Any) -> list[int]:
    """Check which conditions of the stream are asked for.

    Parameters
    ----------
    conditions : int or iterable of int
        A number of conditions n (the first n of the stream: 0, ..., n - 1), or the
        indices of the conditions, non-negative and each given once.

    Returns
    -------
    list of int
        The condition indices, in the order given.
    """
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
