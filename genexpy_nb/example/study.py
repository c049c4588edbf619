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

    python -m genexpy_nb.example.study --conditions 80 --seed 0 --out data/example_study.parquet
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from .._validation import (
    GenexpyInputError,
    Seed,
    check_names,
    check_positive_int,
    require_columns,
    root_seed,
    to_polars,
)
from .conditions import (
    KEY_CATALOGUE,
    MAX_ROWS,
    REAL_EVERY,
    Condition,
    check_conditions,
    describe_conditions,
    int_seed,
    make_condition,
    require_sklearn,
    stratified_subsample,
)

__all__ = [
    "MODELS",
    "METRICS",
    "TRAIN_SIZES",
    "N_FOLDS",
    "SMALL_TRAIN_ROWS",
    "MAX_ROWS",
    "REAL_EVERY",
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
#: key of the parquet key-value metadata holding how a results file was produced (JSON); the
#: module's name when the shipped file was made, kept so that old and new files read alike
METADATA_KEY: str = "genexpy_nb.example_study"
_KEY_SPLIT = 2  # the CV folds of condition i
_KEY_SMALL = 3  # the "small" training subsample of (i, fold)
_KEY_MODEL = 4  # the random_state of (i, fold, model)


# ---- the alternatives ---------------------------------------------------------------------
def _make_model(name: str, random_state: int) -> Any:
    """Make a fresh, unfitted classifier with the study's fixed hyperparameters."""
    require_sklearn()
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


def _check_names(name: str, values: Any, allowed: tuple[str, ...]) -> tuple[str, ...]:
    if values is None:
        return allowed
    vals = check_names(name, values, allowed)
    return tuple(v for v in allowed if v in vals)  # canonical order, whatever the user's


def _check_n_jobs(n_jobs: Any) -> int:
    if n_jobs is None or (isinstance(n_jobs, (int, np.integer)) and n_jobs == -1):
        return -1
    return check_positive_int("n_jobs", n_jobs)


def _run_condition(*args: Any) -> pl.DataFrame:
    """All results of one condition (the unit of work, also in worker processes).

    The arguments of :func:`_run_condition_1thread`, run with one BLAS thread: the fits are
    tiny, and multithreaded BLAS makes them ~10x slower on a busy machine (and
    oversubscribes the cores when conditions run in parallel).
    """
    require_sklearn()
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):
        return _run_condition_1thread(*args)


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
        n_splits=n_folds, shuffle=True, random_state=int_seed(seed, _KEY_SPLIT, index)
    )
    cols: dict[str, list[Any]] = {k: [] for k in ("train_size", "fold", "model", "metric",
                                                   "score", "fit_time")}
    for fold, (train, test) in enumerate(skf.split(X, y)):
        for size in train_sizes:
            if size == "small":
                rng = np.random.default_rng(
                    np.random.SeedSequence([seed, _KEY_SMALL, index, fold])
                )
                rows = train[stratified_subsample(y[train], SMALL_TRAIN_ROWS, rng)]
            else:
                rows = train
            for model in models:
                est = _make_model(
                    model, int_seed(seed, _KEY_MODEL, index, fold, MODELS.index(model))
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
    seed: Seed = 0,
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
    idx = check_conditions(conditions)
    seed = root_seed(seed)
    models_ = _check_names("models", models, MODELS)
    metrics_ = _check_names("metrics", metrics, METRICS)
    sizes_ = _check_names("train_sizes", train_sizes, TRAIN_SIZES)
    n_folds = check_positive_int("n_folds", n_folds, minimum=2)
    if n_folds > 10:
        raise GenexpyInputError(f"n_folds must be between 2 and 10, got {n_folds}.")
    n_jobs_ = _check_n_jobs(n_jobs)
    if not isinstance(record_time, bool):
        raise GenexpyInputError(f"record_time must be True or False, got {record_time!r}.")
    require_sklearn()
    from .._progress import tqdm

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

    def __init__(self, n0: int = 10, seed: Seed = 0, *, start: int = 0, **run_kwargs: Any):
        self.n0 = check_positive_int("n0", n0)
        self.seed = root_seed(seed)
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
        _check_names("models", run_kwargs.get("models"), MODELS)
        _check_names("metrics", run_kwargs.get("metrics"), METRICS)
        _check_names("train_sizes", run_kwargs.get("train_sizes"), TRAIN_SIZES)
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
        seed: Seed = 0,
    ) -> ExperimentRunner:
        """Make a runner that reveals the conditions of an existing results table, N0 at a time.

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
            rng = np.random.default_rng(np.random.SeedSequence([runner.seed, KEY_CATALOGUE]))
            keys = [keys[i] for i in rng.permutation(len(keys))]
        runner._replay = df
        runner._replay_keys = keys
        runner._condition_col = condition_col
        runner._empty = df.clear()
        return runner

    @property
    def n_conditions(self) -> int:
        """The number of conditions run (or revealed) so far."""
        return self._n_conditions

    @property
    def results(self) -> pl.DataFrame:
        """Every row run (or revealed) so far, batch after batch."""
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
        """Yield batches of ``n0`` conditions.

        Forever when computing, until exhausted when replaying.
        """
        while not self.exhausted:
            yield self.run_next()

    def __repr__(self) -> str:
        """Summarise the runner: mode, batch size, seed and conditions so far."""
        mode = "replay" if self._replay is not None else "compute"
        return (
            f"ExperimentRunner(mode={mode!r}, n0={self.n0}, seed={self.seed}, "
            f"n_conditions={self._n_conditions})"
        )


# ---- the shipped table ----------------------------------------------------------------------
def load_example_study() -> pl.DataFrame:
    """Load the results of the example study shipped with the package (80 conditions, seed 0).

    Produced by ``python -m genexpy_nb.example.study --conditions 80 --seed 0 --out
    data/example_study.parquet`` (see ``data/MANIFEST.md``); 80 datasets (21 real,
    59 synthetic) x 2 training sizes x 3 folds x 8 models x 3 metrics = 11,520 rows with the
    columns of :data:`SCHEMA`. Needs no scikit-learn.

    Returns
    -------
    polars.DataFrame
        Roles: :data:`FACTOR_ROLES`, alternatives :data:`ALTERNATIVES`, target
        :data:`TARGET` (higher is better).
    """
    from ..io.public import shipped_path

    return pl.read_parquet(shipped_path(SHIPPED_FILE))


def _main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m genexpy_nb.example.study",
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
        "command": "python -m genexpy_nb.example.study " + " ".join(
            argv if argv is not None else sys.argv[1:]
        ),
        "conditions": args.conditions,
        "start": args.start,
        "seed": args.seed,
        "scikit-learn": sklearn.__version__,
        "numpy": np.__version__,
        "polars": pl.__version__,
    }
    from .._io import atomic_write
    from ..answers.numbers import number, seconds

    with atomic_write(args.out) as fh:  # a temporary name, renamed when complete
        df.write_parquet(
            fh, compression="zstd", compression_level=19, statistics=False,
            metadata={METADATA_KEY: json.dumps(provenance, sort_keys=True)},
        )
    print(
        f"{df.height} rows x {df.width} columns, {df['dataset'].n_unique()} datasets "
        f"({seconds(elapsed)}, {seconds(elapsed / args.conditions)} per condition) -> "
        f"{args.out} ({number(args.out.stat().st_size / 1024)} KiB)"
    )
    return 0


if __name__ == "__main__":  # pragma: no cover - exercised by the shipped file
    raise SystemExit(_main())
