"""Items × runs × tasks: the noise of the difference of two models' benchmark scores.

The difference ``D`` of two models' benchmark means, over ``T`` tasks, ``N`` items per task
and ``K`` runs per item, is paired on the items both models answered. Its variance splits
into three parts (Miller 2024, "Adding error bars to evals", §2–4; eval-arena 2025; SPEC
Part C)::

    var(D) ≈ s²_task / T  +  s²_item / (T·N)  +  (s²_run,a / K_a + s²_run,b / K_b) / (T·N)

* **run** (prediction noise): the variance of one model's score on one item over repeated
  runs (seeds, sampling, epochs), estimated from the items with at least two runs; runs are
  not paired across models, and ``K`` may differ by model;
* **item**: the variance over items of the *expected* per-item difference (eval-arena's
  identity: the variance of the observed per-item difference is the item part plus the run
  part, so the item part is what is left when the run part is taken out);
* **task**: the variance over tasks of the per-task mean difference, less what its items
  and runs explain (only when tasks are *sampled*, "benchmarks like this one"; with tasks
  *fixed*, "this benchmark", there is no task part).

The standard error at the observed design is the direct estimate: the paired standard error
of the per-item differences, or, with tasks sampled, the cluster-robust one with items
clustered in tasks and the small-sample factor ``T/(T-1)`` (CR1), with ``T - 1`` degrees of
freedom for tests and detectable effects. The three parts are method-of-moments estimates
(a part estimated below zero is set to zero and the others keep their values); ``.se`` at
another design uses them with the balanced formula above (``N`` = the mean items per task).

With one run per item the run and item parts cannot be told apart from the outcomes alone
(a 0/1 outcome's own noise is part of the item-to-item variance): the table then has one
``item+run`` level, and ``.se`` refuses to predict other numbers of runs — unless the log
gives each item's probability of a right answer (``probability=``: from per-item
probabilities or log-likelihoods), whose Bernoulli variance ``p (1 - p)`` is the run part.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl

from .._validation import GenexpyInputError, fill_doc, to_polars

__all__ = ["EvalNoise", "eval_noise"]

#: the most models for which every pair is decomposed by default (beyond: neighbours in
#: the leaderboard's order)
ALL_PAIRS_MAX_MODELS = 40


@dataclass
class _Reduced:
    """Per-item means, run variances and run counts, models × items (items sorted by task)."""

    models: list[str]
    mean: np.ndarray  # (A, n), NaN where the model has no result on the item
    var: np.ndarray  # (A, n), run variance (ddof 1), NaN with fewer than 2 runs
    runs: np.ndarray  # (A, n), int
    task: np.ndarray  # (n,), task code
    tasks: list[str]
    items: list[str]
    binary: bool
    var_known: bool = False  # var holds p(1 - p) from stated probabilities, for every item


def _check_columns(lf: pl.LazyFrame, names: dict[str, str | None]) -> None:
    schema = lf.collect_schema()
    for role, col in names.items():
        if col is not None and (not isinstance(col, str) or col not in schema):
            raise GenexpyInputError(f"{role}={col!r} is not a column of the table; columns: "
                                    f"{list(schema)[:20]}.")
    used = [c for c in names.values() if c is not None]
    if len(set(used)) != len(used):
        raise GenexpyInputError(f"the same column is given two roles: {names}.")
    for role in ("target", "probability"):
        col = names.get(role)
        if col is None:
            continue
        ok = schema[col].is_numeric() or (role == "target" and schema[col] == pl.Boolean)
        if not ok:
            raise GenexpyInputError(f"{role} column {col!r} is not numeric.")
    keys = [c for r, c in names.items() if c is not None and r != "target"]
    counts = lf.select([pl.col(c).null_count().alias(c) for c in keys]
                       + [(~pl.col(names["target"]).cast(pl.Float64).is_finite()).sum()
                          .alias("__gx_bad")]).collect().row(0, named=True)
    for role, col in names.items():
        if col is not None and role != "target" and counts[col]:
            raise GenexpyInputError(f"column {col!r} ({role}) has {counts[col]} null "
                                    "value(s); drop or fill them first.")
    nulls = lf.select(pl.col(names["target"]).null_count()).collect().item()
    if counts["__gx_bad"] or nulls:
        raise GenexpyInputError(f"{counts['__gx_bad'] + nulls} value(s) of {names['target']!r} "
                                "are not finite numbers (null, NaN or infinite); drop them "
                                "first.")


#: per-item groups reduced at once (a block of models × all items): bounds the memory
REDUCE_BLOCK_GROUPS = 500_000


def _reduce_block(lf, alternatives, task_col, items, runs, target, block, cells_u, mods_u,
                  probability=None):
    """Per (model, task, item) of the models in ``block``: codes, mean, variance, runs."""
    y = pl.col(target).cast(pl.Float64)
    extra = [pl.col(runs).n_unique().alias("__gx_nu")] if runs else []
    if probability:
        q = pl.col(probability).cast(pl.Float64)
        extra.append((q * (1 - q)).mean().alias("__gx_pv"))
    stats = lf.filter(pl.col(alternatives).is_in(block.to_list())).group_by(
        [alternatives, task_col, items]).agg(
        y.mean().alias("__gx_mean"), y.var(ddof=1).alias("__gx_var"),
        pl.len().alias("__gx_k"), ((y == 0) | (y == 1)).all().alias("__gx_bin"),
        *extra).collect(engine="streaming")
    dup = stats.filter(pl.col("__gx_k") > (pl.col("__gx_nu") if runs else 1)).height
    if dup:
        what = "(model, task, item)" + (" hold a run more than once" if runs else
                                        " hold more than one row")
        fix = "" if runs else " Name the column of repeated runs with runs=."
        raise GenexpyInputError(f"{dup} {what}.{fix}")
    return stats.join(mods_u, on=alternatives).join(cells_u, on=[task_col, items])


def _reduce(lf: pl.LazyFrame, alternatives: str, target: str, items: str,
            runs: str | None, tasks: str | None, probability: str | None = None) -> _Reduced:
    """Per (model, task, item): mean, run variance, run count.

    Streamed by polars, a block of models at a time, so that only the per-item summaries
    (models × items) are ever held, never the rows.
    """
    task_col = tasks or "__gx_t"
    if tasks is None:
        lf = lf.with_columns(pl.lit(0).alias("__gx_t"))
    mods_u = lf.select(pl.col(alternatives).unique()).collect(engine="streaming").sort(
        alternatives).with_row_index("__gx_mc")
    if mods_u.height < 2:
        raise GenexpyInputError(f"column {alternatives!r} holds {mods_u.height} model(s); "
                                "the noise of a difference needs at least two.")
    cells_u = lf.select(task_col, items).unique().collect(engine="streaming").sort(
        [task_col, items]).with_row_index("__gx_code")
    task_u = cells_u.select(task_col).unique(maintain_order=True).with_row_index("__gx_tc")
    cells_u = cells_u.join(task_u, on=task_col).sort("__gx_code")
    shape = (mods_u.height, cells_u.height)
    mean, var = np.full(shape, np.nan), np.full(shape, np.nan)
    k = np.zeros(shape, np.int32)
    binary = True
    names = mods_u[alternatives]
    step = max(1, REDUCE_BLOCK_GROUPS // max(cells_u.height, 1))
    for start in range(0, mods_u.height, step):
        st = _reduce_block(lf, alternatives, task_col, items, runs, target,
                           names.slice(start, step), cells_u.select(task_col, items,
                                                                    "__gx_code"),
                           mods_u, probability)
        r, c = st["__gx_mc"].to_numpy(), st["__gx_code"].to_numpy()
        mean[r, c] = st["__gx_mean"].to_numpy()
        var[r, c] = st["__gx_pv" if probability else "__gx_var"].fill_null(np.nan).to_numpy()
        k[r, c] = st["__gx_k"].to_numpy()
        binary = binary and bool(st["__gx_bin"].all())
    return _Reduced([str(m) for m in names.to_list()], mean, var, k,
                    cells_u["__gx_tc"].to_numpy(), [str(t) for t in task_u[task_col].to_list()],
                    [str(i) for i in cells_u[items].to_list()], binary,
                    var_known=probability is not None)


def _pooled_run_var(var: np.ndarray, k: np.ndarray) -> float:
    ok = (k >= 2) & np.isfinite(var)
    return float(var[ok].mean()) if ok.any() else math.nan


@dataclass
class _Pair:
    """The estimates of one pair: what ``components`` and ``se`` are built from."""

    a: str
    b: str
    diff: float
    se: float
    dof: float
    n_items: int
    n_tasks: int
    k_a: float
    k_b: float
    run_a: float  # pooled run variance of a (NaN: not estimable)
    run_b: float
    parts: dict[str, float]  # contributions to var(D) at the observed design
    d: np.ndarray = field(repr=False)  # per-item differences (shared items)
    task: np.ndarray = field(repr=False)  # their task codes (0..n_tasks-1)
    paired_binary: bool = False
    single_run: bool = False
    discordant: tuple[int, int] = (0, 0)


def _group(values: np.ndarray, codes: np.ndarray, n: int) -> np.ndarray:
    return np.bincount(codes, weights=values, minlength=n)


def _within(d: np.ndarray, codes: np.ndarray, T: int):
    """Per task: item count, mean and sample variance (ddof 1; 0 for one item)."""
    n_t = np.bincount(codes, minlength=T).astype(float)
    m_t = _group(d, codes, T) / n_t
    ss = _group((d - m_t[codes]) ** 2, codes, T)
    s2_t = np.where(n_t > 1, ss / np.maximum(n_t - 1, 1), 0.0)
    return n_t, m_t, s2_t


def _variances(d, r, codes, T, weighting, sampled):
    """(direct var(D), its dof, parts at the observed design) for one pair."""
    n = d.size
    n_t, m_t, s2_t = _within(d, codes, T)
    r_t = _group(r, codes, T) / n_t  # mean run noise of an item's difference, per task
    w2_t = np.maximum(s2_t - r_t, 0.0)  # within-task variance of expected differences
    if weighting == "items":
        D = d.mean()
        run = r.sum() / n**2
        item = float((n_t * w2_t).sum()) / n**2
        if T > 1 and sampled:
            resid = _group(d - D, codes, T)
            total = T / (T - 1) * float((resid**2).sum()) / n**2
            dof = T - 1
        elif T > 1:
            total = float((n_t * s2_t).sum()) / n**2
            dof = n - T
        else:
            total = float(d.var(ddof=1)) / n if n > 1 else math.nan
            dof = n - 1
    else:  # tasks equally
        D = m_t.mean()
        run = float((r_t / n_t).sum()) / T**2
        item = float((w2_t / n_t).sum()) / T**2
        if T > 1 and sampled:
            total = float(m_t.var(ddof=1)) / T
            dof = T - 1
        else:
            total = float((s2_t / n_t).sum()) / T**2
            dof = n - T
    task = max(total - run - item, 0.0) if (T > 1 and sampled) else 0.0
    if not (T > 1 and sampled):  # item part: what the direct estimate leaves after runs
        item = max(total - run, 0.0)
    return D, total, dof, {"task": task, "item": item, "run": run}


def _one_pair(red: _Reduced, ia: int, ib: int, weighting: str, sampled: bool) -> _Pair:
    ok = np.isfinite(red.mean[ia]) & np.isfinite(red.mean[ib])
    if ok.sum() < 2:
        raise GenexpyInputError(f"models {red.models[ia]!r} and {red.models[ib]!r} share "
                                f"{int(ok.sum())} item(s); a paired comparison needs two.")
    d = red.mean[ia, ok] - red.mean[ib, ok]
    ka, kb = red.runs[ia, ok], red.runs[ib, ok]
    va, vb = red.var[ia, ok], red.var[ib, ok]
    if red.var_known:  # the Bernoulli variance p(1 - p) of every item, one run or many
        run_a, run_b = float(va.mean()), float(vb.mean())
        ka_v, kb_v = np.maximum(ka, 2), np.maximum(kb, 2)  # "known" for every item
    else:
        run_a, run_b = _pooled_run_var(va, ka), _pooled_run_var(vb, kb)
        ka_v, kb_v = ka, kb
    single = math.isnan(run_a) or math.isnan(run_b)
    if single:
        r = np.zeros_like(d)
    else:
        r = (np.where(ka_v >= 2, va, run_a) / ka) + (np.where(kb_v >= 2, vb, run_b) / kb)
        r = np.nan_to_num(r)
    used = np.unique(red.task[ok])
    codes = np.searchsorted(used, red.task[ok])
    T = used.size
    D, total, dof, parts = _variances(d, r, codes, T, weighting, sampled)
    if single:
        parts = {"task": parts["task"], "item+run": parts["item"] + parts["run"]}
    both_once = bool((ka == 1).all() and (kb == 1).all())
    disc = (int(((red.mean[ia, ok] == 1) & (red.mean[ib, ok] == 0)).sum()),
            int(((red.mean[ia, ok] == 0) & (red.mean[ib, ok] == 1)).sum()))
    return _Pair(red.models[ia], red.models[ib], float(D), math.sqrt(max(total, 0.0)),
                 float(dof), int(d.size), int(T), float(ka.mean()), float(kb.mean()), run_a,
                 run_b, parts, d, codes, paired_binary=red.binary and both_once,
                 single_run=single, discordant=disc)


def _batch_direct(d, ok, H, weighting, sampled):
    """Direct var(D) and degrees of freedom of many pairs at once (rows of ``d``).

    The same estimators as :func:`_variances` (its ``total`` and ``dof``), vectorised over
    the rows: ``d`` holds the per-item differences (0 where ``ok`` is false), ``H`` the
    items' one-hot task matrix (sparse, items × tasks).
    """
    cnt = ok.sum(axis=1).astype(float)
    n_t = np.asarray(H.T @ ok.T.astype(float)).T
    sum_t = np.asarray(H.T @ d.T).T
    sq_t = np.asarray(H.T @ (d * d).T).T
    present = n_t > 0
    T = present.sum(axis=1).astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        m_t = np.where(present, sum_t / np.where(present, n_t, 1), 0.0)
        s2_t = np.where(n_t > 1, (sq_t - sum_t * m_t) / np.maximum(n_t - 1, 1), 0.0)
        s2_t = np.maximum(s2_t, 0.0)
        within = (np.where(present, s2_t / np.where(present, n_t, 1), 0.0)).sum(axis=1)
        if weighting == "items":
            D = d.sum(axis=1) / cnt
            resid = np.where(present, sum_t - D[:, None] * n_t, 0.0)
            clus = T / (T - 1) * (resid**2).sum(axis=1) / cnt**2
            fixed = (n_t * s2_t).sum(axis=1) / cnt**2
            one = ((d * d).sum(axis=1) - cnt * D**2) / (cnt - 1) / cnt
            total = np.where(T > 1, np.where(sampled, clus, fixed), one)
            dof = np.where(T > 1, np.where(sampled, T - 1, cnt - T), cnt - 1)
        else:
            D = m_t.sum(axis=1) / T
            var_m = (np.where(present, (m_t - D[:, None]) ** 2, 0.0)).sum(axis=1) / (T - 1)
            total = np.where((T > 1) & sampled, var_m / T, within / T**2)
            dof = np.where((T > 1) & sampled, T - 1, cnt - T)
    return D, np.maximum(total, 0.0), dof


def _batch_pvalues(red: _Reduced, il: int, io: np.ndarray, weighting: str,
                   sampled: bool) -> np.ndarray:
    """Two-sided p-values of the paired tests of model ``il`` against each of ``io``.

    The tests of :meth:`EvalNoise.paired_test`, vectorised: McNemar's exact test for 0/1
    outcomes of one run each without sampled tasks, else the t test on the direct standard
    error.
    """
    from scipy import sparse, stats

    ML, MO = red.mean[il][None, :], red.mean[io]
    ok = np.isfinite(ML) & np.isfinite(MO)
    d = np.where(ok, np.nan_to_num(ML) - np.nan_to_num(MO), 0.0)
    n = red.task.size
    H = sparse.csr_matrix((np.ones(n), (np.arange(n), red.task)),
                          shape=(n, int(red.task.max()) + 1))
    D, total, dof = _batch_direct(d, ok, H, weighting, sampled)
    se = np.sqrt(total)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(se > 0, D / se, np.where(D == 0, 0.0, np.sign(D) * np.inf))
    p = np.where(dof >= 1, 2 * stats.t.sf(np.abs(t), np.maximum(dof, 1)), np.nan)
    once = ~(((red.runs[il][None, :] != 1) & ok).any(axis=1)
             | ((red.runs[io] != 1) & ok).any(axis=1))
    if red.binary and not sampled and once.any():
        b = ((ML == 1) & (MO == 0) & ok).sum(axis=1)
        c = ((ML == 0) & (MO == 1) & ok).sum(axis=1)
        exact = np.minimum(1.0, 2 * stats.binom.cdf(np.minimum(b, c), b + c, 0.5))
        p = np.where(once, np.where(b + c == 0, 1.0, exact), p)
    return p


def _pairs(red: _Reduced, pairs, order: list[str]) -> list[tuple[int, int]]:
    idx = {m: i for i, m in enumerate(red.models)}
    if pairs is None:
        if len(order) <= ALL_PAIRS_MAX_MODELS:
            return [(idx[a], idx[b]) for i, a in enumerate(order) for b in order[i + 1:]]
        return [(idx[a], idx[b]) for a, b in zip(order, order[1:])]
    out = []
    for p in pairs:
        if (not isinstance(p, (tuple, list)) or len(p) != 2
                or any(str(m) not in idx for m in p) or str(p[0]) == str(p[1])):
            raise GenexpyInputError(f"pairs must be (model, model) of two different models "
                                    f"of the table, got {p!r}; models: {red.models[:10]}.")
        out.append((idx[str(p[0])], idx[str(p[1])]))
    return out


def _refuse_unknown_direction(target: str, column_values: list | None) -> None:
    """Raise: the leaderboard's order (the default pairs) needs the direction of ``target``."""
    why = ("the table has no higher_is_better column" if column_values is None else
           f"the table's higher_is_better column holds {sorted(column_values, key=str)}")
    raise GenexpyInputError(
        f"eval_noise orders the models by their mean {target!r} to choose and orient the "
        f"pairs (the better model first), and the direction of {target!r} is not known "
        f"({why}): pass higher_is_better=True (accuracy, pass rate) or "
        "higher_is_better=False (error, loss), or name the pairs with pairs=[(a, b), ...]. "
        "There is no default direction.")


def eval_noise(data: Any, *, alternatives: str, target: str, items: str,
               runs: str | None = None, tasks: str | None = None,
               weighting: str = "items", tasks_sampled: bool = True,
               higher_is_better: bool | None = None, pairs: list | None = None,
               probability: str | None = None) -> EvalNoise:
    """Split the noise of the difference of two models' benchmark means into runs, items, tasks.

    Parameters
    ----------
    data : polars / pandas DataFrame or polars LazyFrame
        Per-item results: one row per model, item (and run); never modified. A LazyFrame
        (``pl.scan_parquet(...)``) is reduced by polars' streaming engine, so tables larger
        than memory are read in bounded memory (the per-item means are models × items).
    alternatives : str
        The column naming the model.
    target : str
        The per-item result: 0/1 correctness (a boolean column reads as 1/0) or a score.
    items : str
        The column naming the item (question, sample); pairs are formed on items both models
        answered (an item missing for one model is left out of that pair only).
    runs : str, optional
        The column naming the repeated run (seed, sample, epoch) of an item. Runs are not
        paired across models: their number may differ by model and by item.
    tasks : str, optional
        The column naming the task an item belongs to (items are then identified within
        their task).
    weighting : {"items", "tasks"}
        How the benchmark mean weighs its parts: every item equally (the mean over all
        items) or every task equally (the mean of the task means). The variance formulas
        follow the choice.
    tasks_sampled : bool
        True: the tasks are a sample of the tasks the conclusion is about ("benchmarks like
        this one"): the task part counts, with cluster-robust standard errors and ``T - 1``
        degrees of freedom. False: the benchmark's own tasks are the population ("this
        benchmark"): no task part.
    higher_is_better : bool, optional
        The direction of ``target``: it orders the leaderboard (which pairs are formed,
        and which model of a pair is ``a``) and ``tie_groups``. Default: the table's
        ``higher_is_better`` column when it has one value (the readers write it). There is
        no default direction: without either, ``eval_noise`` refuses unless ``pairs``
        names the pairs (and then ``tie_groups`` refuses).
    pairs : list of (str, str), optional
        The pairs to decompose. Default: every pair with at most 40 models, else each model
        against the next in the leaderboard's order (both need the direction).
    probability : str, optional
        For 0/1 outcomes: the column holding each row's probability of a 1 (from the
        log's per-item probabilities or log-likelihoods, or the share of correct samples).
        The run variance of a 0/1 outcome is then ``p (1 - p)`` (Bernoulli), known for every
        item, so the run and item parts separate even with one run per item (eval-arena's
        estimator).

    Returns
    -------
    EvalNoise
        ``.components`` (pair, level, variance, share), ``.summary`` (one row per pair),
        ``.se``, ``.mde``, ``.plan``, ``.paired_test`` and ``.tie_groups``.

    Examples
    --------
    >>> import numpy as np, polars as pl
    >>> rng = np.random.default_rng(0)
    >>> df = pl.DataFrame({"model": np.repeat(["a", "b"], 200),
    ...                    "item": np.tile(np.arange(200), 2),
    ...                    "correct": rng.integers(0, 2, 400)})
    >>> noise = eval_noise(df, alternatives="model", target="correct", items="item",
    ...                    higher_is_better=True)
    >>> noise.components["level"].to_list()
    ['item+run']
    """
    lf = data.lazy() if isinstance(data, (pl.DataFrame, pl.LazyFrame)) else (
        to_polars(data).lazy())
    _check_columns(lf, {"alternatives": alternatives, "target": target, "items": items,
                        "runs": runs, "tasks": tasks, "probability": probability})
    if probability is not None:
        q = pl.col(probability).cast(pl.Float64)
        bad = lf.select(((q < 0) | (q > 1) | q.is_nan()).sum()).collect().item()
        if bad:
            raise GenexpyInputError(f"{bad} value(s) of {probability!r} are not probabilities "
                                    "in [0, 1].")
    if weighting not in ("items", "tasks"):
        raise GenexpyInputError(f"weighting must be 'items' or 'tasks', got {weighting!r}.")
    vals = None
    if higher_is_better is None and "higher_is_better" in lf.collect_schema():
        vals = lf.select(pl.col("higher_is_better").unique()).collect().to_series().to_list()
        higher_is_better = bool(vals[0]) if len(vals) == 1 and vals[0] is not None else None
    if higher_is_better is None and pairs is None:
        _refuse_unknown_direction(target, vals)
    red = _reduce(lf, alternatives, target, items, runs, tasks, probability)
    means = np.nanmean(red.mean, axis=1)
    sign = -1.0 if higher_is_better is False else 1.0
    order = [red.models[i] for i in np.argsort(-sign * means, kind="stable")]
    done = [_one_pair(red, ia, ib, weighting, bool(tasks_sampled))
            for ia, ib in _pairs(red, pairs, order)]
    return EvalNoise(done, red, weighting, bool(tasks_sampled) and tasks is not None,
                     higher_is_better, dict(zip(red.models, means.tolist())))


#: the entries of a test of one pair at a level
_fill_test_doc = fill_doc(test="""\
a, b : str
    The two models.
alpha : float
    The test's level.
""")


class EvalNoise:
    """The noise budget of a benchmark's pairwise differences (see :func:`eval_noise`).

    Parameters
    ----------
    pairs : list
        The per-pair estimates (internal).
    reduced : object
        The per-item reduction of the table (internal).
    weighting : str
        ``"items"`` or ``"tasks"``.
    tasks_sampled : bool
        Whether the task part counts.
    higher_is_better : bool or None
        The direction of the scores.
    means : dict
        Each model's mean over its items.
    """

    def __init__(self, pairs: list, reduced: Any, weighting: str, tasks_sampled: bool,
                 higher_is_better: bool | None, means: dict):
        self._pairs = {(p.a, p.b): p for p in pairs}
        self._red = reduced
        self.weighting = weighting
        self.tasks_sampled = tasks_sampled
        self.higher_is_better = higher_is_better
        self.means = means
        self.notes: list[str] = []
        if any(p.single_run for p in pairs):
            self.notes.append(
                "one run per item for at least one model: the run and item parts cannot be "
                "separated from the outcomes alone (their sum is the 'item+run' level); log "
                "two or more runs of some items to predict the effect of more runs.")
        if self.tasks_sampled and pairs and min(p.n_tasks for p in pairs) < 10:
            self.notes.append(
                f"few tasks ({min(p.n_tasks for p in pairs)}): the cluster-robust standard "
                "errors use the small-sample factor T/(T-1) and T-1 degrees of freedom, and "
                "remain rough.")

    def __repr__(self) -> str:
        """Return a one-line description."""
        return (f"EvalNoise({len(self._pairs)} pair(s), weighting={self.weighting!r}, "
                f"tasks_sampled={self.tasks_sampled})")

    def _pair(self, a: str, b: str) -> tuple[_Pair, float]:
        if (a, b) in self._pairs:
            return self._pairs[(a, b)], 1.0
        if (b, a) in self._pairs:
            return self._pairs[(b, a)], -1.0
        if a in self._red.models and b in self._red.models and a != b:
            ia, ib = self._red.models.index(a), self._red.models.index(b)
            p = _one_pair(self._red, ia, ib, self.weighting, self.tasks_sampled)
            self._pairs[(a, b)] = p
            return p, 1.0
        raise GenexpyInputError(f"({a!r}, {b!r}) is not a pair of two models of the table; "
                                f"models: {self._red.models[:10]}.")

    @property
    def components(self) -> pl.DataFrame:
        """Return the tidy noise budget: one row per pair and level.

        Returns
        -------
        polars.DataFrame
            ``pair`` ("a − b"), ``a``, ``b``, ``level`` (task, item, run, or item+run where
            they cannot be separated), ``variance`` (its part of var(D) at the observed
            design), ``share`` (of the parts' sum).
        """
        rows = []
        for p in self._pairs.values():
            tot = sum(p.parts.values())
            for level, v in p.parts.items():
                if level == "task" and not self.tasks_sampled:
                    continue
                rows.append((f"{p.a} − {p.b}", p.a, p.b, level, v,
                             v / tot if tot > 0 else math.nan))
        return pl.DataFrame(rows, schema={"pair": pl.String, "a": pl.String, "b": pl.String,
                                          "level": pl.String, "variance": pl.Float64,
                                          "share": pl.Float64}, orient="row")

    @property
    def summary(self) -> pl.DataFrame:
        """Return one row per pair: the difference, its standard error and the design.

        Returns
        -------
        polars.DataFrame
            ``a``, ``b``, ``diff`` (mean of a − mean of b on their shared items, weighted as
            chosen), ``se``, ``dof``, ``n_items``, ``n_tasks``, ``runs_a``, ``runs_b`` (mean
            runs per item).
        """
        return pl.DataFrame(
            [(p.a, p.b, p.diff, p.se, p.dof, p.n_items, p.n_tasks, p.k_a, p.k_b)
             for p in self._pairs.values()],
            schema={"a": pl.String, "b": pl.String, "diff": pl.Float64, "se": pl.Float64,
                    "dof": pl.Float64, "n_items": pl.Int64, "n_tasks": pl.Int64,
                    "runs_a": pl.Float64, "runs_b": pl.Float64}, orient="row")

    def _units(self, p: _Pair) -> tuple[float, float, float, float]:
        """Per-unit variances (task, item, run of a, run of b) of the balanced formula."""
        T, n = p.n_tasks, p.n_items
        task = p.parts.get("task", 0.0) * T if self.tasks_sampled else 0.0
        item = (p.parts.get("item", 0.0) + p.parts.get("item+run", 0.0)) * n
        return task, item, p.run_a, p.run_b

    def se(self, a: str, b: str, runs: Any = None, items: int | None = None,
           tasks: int | None = None) -> float:
        """Return the standard error of the difference of a's and b's means at a design.

        Parameters
        ----------
        a, b : str
            The two models.
        runs : int or (int, int), optional
            Runs per item (both models, or a's and b's). None: as observed.
        items : int, optional
            Items per task (with no tasks column: items in all). None: as observed.
        tasks : int, optional
            Number of tasks. None: as observed.

        Returns
        -------
        float
            With every argument None, the direct estimate at the observed design; else the
            balanced formula ``s²_task/T + s²_item/(T·N) + (s²_run,a/K_a + s²_run,b/K_b)/(T·N)``
            with the estimated parts.
        """
        p, _ = self._pair(a, b)
        if runs is None and items is None and tasks is None:
            return p.se
        return math.sqrt(self._var_at(p, runs, items, tasks))

    def _design(self, p: _Pair, runs, items, tasks):
        if runs is None:
            ka, kb = p.k_a, p.k_b
        elif isinstance(runs, (tuple, list)) and len(runs) == 2:
            ka, kb = runs
        else:
            ka = kb = runs
        for name, v in (("runs", ka), ("runs", kb), ("items", items), ("tasks", tasks)):
            if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float, np.ndarray))
                                  or not np.all(np.asarray(v) >= 1)):
                raise GenexpyInputError(f"{name} must be a number >= 1, got {v!r}.")
        if p.single_run and runs is not None and not (np.all(np.asarray(ka) == p.k_a)
                                                      and np.all(np.asarray(kb) == p.k_b)):
            raise GenexpyInputError(
                "one run per item: the run and item parts cannot be separated from the "
                "outcomes alone, so the effect of more runs is unknown; log two or more runs "
                "of some items (or leave runs=None).")
        T = p.n_tasks if tasks is None else tasks
        N = p.n_items / p.n_tasks if items is None else items
        return ka, kb, N, T

    def _var_at(self, p: _Pair, runs, items, tasks):
        ka, kb, N, T = self._design(p, runs, items, tasks)
        task, item, ra, rb = self._units(p)
        run = 0.0 if p.single_run else ra / ka + rb / kb
        return task / T + (item + run) / (np.asarray(T) * N) if self.tasks_sampled else (
            (item + run) / (np.asarray(T) * N))

    @_fill_test_doc
    def mde(self, a: str, b: str, *, alpha: float = 0.05, power: float = 0.8,
            runs: Any = None, items: int | None = None, tasks: int | None = None) -> float:
        """Return the minimum detectable effect of a two-sided test at a design.

        Parameters
        ----------
        {test}
        power : float
            The probability of detecting a true difference of that size.
        runs, items, tasks : optional
            The design, as in ``se`` (None: as observed).

        Returns
        -------
        float
            ``(t_{1-alpha/2} + t_{power}) · se`` with the pair's degrees of freedom (normal
            quantiles beyond 1000).
        """
        from scipy import stats

        for name, v in (("alpha", alpha), ("power", power)):
            if not (isinstance(v, float) and 0 < v < 1):
                raise GenexpyInputError(f"{name} must be a number in (0, 1), got {v!r}.")
        p, _ = self._pair(a, b)
        dof = p.dof if tasks is None or not self.tasks_sampled else tasks - 1
        q = stats.t(dof) if 1 <= dof < 1000 else stats.norm()
        return float((q.ppf(1 - alpha / 2) + q.ppf(power)) * self.se(a, b, runs, items, tasks))

    def plan(self, a: str, b: str, *, target_se: float, cost: dict | None = None,
             max_factor: int = 20, max_runs: int = 64) -> pl.DataFrame:
        """Return the cheapest designs whose standard error reaches ``target_se``.

        Parameters
        ----------
        a, b : str
            The two models.
        target_se : float
            The standard error to reach.
        cost : dict, optional
            ``{"tasks": c_T, "items": c_N, "runs": c_K}``: the cost of a new task, of an
            item (per task) and of one run of one model on one item. The design's cost is
            ``c_T·T + c_N·T·N + c_K·T·N·(K_a + K_b)``. Default ``{"runs": 1}``: the number
            of model calls.
        max_factor : int
            Tasks and items per task are searched up to this multiple of the observed ones.
        max_runs : int
            Runs per item are searched up to this number.

        Returns
        -------
        polars.DataFrame
            Up to 5 designs (``tasks``, ``items`` per task, ``runs``, ``se``, ``cost``),
            cheapest first; empty when none in the searched range reaches the target. More
            tasks appear only when the tasks are sampled; more runs only when the run part
            could be estimated.
        """
        if not isinstance(target_se, (int, float)) or not target_se > 0:
            raise GenexpyInputError(f"target_se must be a positive number, got {target_se!r}.")
        grid = self._design_grid(self._pair(a, b)[0], cost, max_factor, max_runs,
                                 with_present=False)
        return grid.filter(pl.col("se") <= target_se).sort(["cost", "se"]).head(5)

    @_fill_test_doc
    def plan_separation(self, a: str, b: str, *, alpha: float = 0.05,
                        assurance: float = 0.8, family: int = 1, cost: dict | None = None,
                        max_factor: int = 20, max_runs: int = 64) -> pl.DataFrame:
        """Return the cheapest designs after which the paired test separates a from b.

        The rule of ``gx.conclusions``' plan (SPEC A15) for an eval: a design (tasks, items
        per task, runs per item, the present ones included) qualifies when the paired test
        of the difference at that design separates the pair in the direction observed with
        probability at least ``assurance``, the probability taken over what the difference
        may be given the data (predictive power, Spiegelhalter, Freedman & Blackburn 1986),
        shrunk toward no difference as the table's pairs suggest (the differences that ask
        for more are selected for looking promising). With ``D`` the observed difference,
        ``se`` its standard error, ``B = max(0, 1 - mean(se^2) / mean(D^2))`` over the
        pairs decomposed (the pair alone with two models), the difference is taken as
        normal with mean ``B D`` and variance ``B se^2``; at a design of standard error
        ``se'`` (:meth:`se`), ``w = 1 - se'^2 / se^2`` of its items are new, so its
        difference is normal with mean ``(1 - w) D + w B D`` and variance
        ``w^2 B se^2 + w se'^2``, and the probability is that of exceeding ``c se'`` in the
        direction observed, ``c`` the normal critical value at level ``alpha / family``
        (two-sided; Holm's first step over a family of that many comparisons). The test is
        on the difference over ``se'``: scale-free, whatever the tasks' scales.

        Parameters
        ----------
        {test}
        assurance : float
            The probability of separating to reach (default 0.8).
        family : int
            How many comparisons the test is corrected for (Bonferroni's, the most
            demanding step of Holm's); 1 for this pair alone.
        cost : dict, optional
            As :meth:`plan`: ``{"tasks": c_T, "items": c_N, "runs": c_K}`` (default: model
            calls).
        max_factor, max_runs : int
            The design grid, as :meth:`plan`.

        Returns
        -------
        polars.DataFrame
            Up to 5 designs (``tasks``, ``items`` per task, ``runs``, ``se``, ``cost``,
            ``p_separate``), cheapest first; the present design first when it already
            separates the pair; empty when none in the searched range reaches the
            assurance (the difference is too small for it: say so rather than a number).
        """
        from scipy.special import ndtr, ndtri

        for name, v in (("alpha", alpha), ("assurance", assurance)):
            if not (isinstance(v, float) and 0 < v < 1):
                raise GenexpyInputError(f"{name} must be a number in (0, 1), got {v!r}.")
        if isinstance(family, bool) or not isinstance(family, int) or family < 1:
            raise GenexpyInputError(f"family must be a positive integer, got {family!r}.")
        p, _ = self._pair(a, b)
        c = float(ndtri(1.0 - alpha / (2.0 * family)))
        designs = self._design_grid(p, cost, max_factor, max_runs)
        se_now = p.se
        d = abs(p.diff)
        if d > c * se_now:  # separated already: the present design, nothing to add
            now = self._design_grid(p, cost, 1, max(1, round(p.k_a)))
            now = now.filter((pl.col("tasks") == p.n_tasks)
                             & (pl.col("items") == round(p.n_items / p.n_tasks))
                             & (pl.col("runs") == max(1, round(p.k_a)))).head(1)
            return now.with_columns(pl.lit(se_now).alias("se"),
                                    pl.lit(1.0).alias("p_separate"))
        se_new = designs["se"].to_numpy()
        B = self._shrinkage()
        w = np.clip(1.0 - se_new**2 / se_now**2, 0.0, 1.0)
        mean = (1.0 - w) * d + w * B * d
        spread = np.sqrt(w * w * B * se_now**2 + w * se_new**2)
        adds = se_new < se_now * (1 - 1e-9)  # more information than the present design
        with np.errstate(divide="ignore", invalid="ignore"):
            prob = np.where(adds & (spread > 0),
                            ndtr((mean - c * se_new) / np.where(spread > 0, spread, 1.0)), 0.0)
        out = designs.with_columns(pl.Series("p_separate", prob))
        keep = adds & (prob >= assurance)
        return out.filter(pl.Series(keep)).sort(["cost", "se"]).head(5)

    def _shrinkage(self) -> float:
        """B = max(0, 1 - mean(se^2) / mean(D^2)) over the pairs decomposed so far."""
        D = np.array([q.diff for q in self._pairs.values()])
        se = np.array([q.se for q in self._pairs.values()])
        ok = np.isfinite(D) & np.isfinite(se)
        if not ok.any() or float(np.mean(D[ok] ** 2)) == 0.0:
            return 0.0
        return max(0.0, 1.0 - float(np.mean(se[ok] ** 2)) / float(np.mean(D[ok] ** 2)))

    def _design_grid(self, p: _Pair, cost: dict | None, max_factor: int, max_runs: int, *,
                     with_present: bool = True) -> pl.DataFrame:
        """Every design of the grid of :meth:`plan`: tasks, items, runs, se, cost.

        The items per task searched include the present number with ``with_present``.
        """
        cost = {"runs": 1.0} if cost is None else dict(cost)
        unknown = set(cost) - {"tasks", "items", "runs"}
        if unknown or any(not isinstance(v, (int, float)) or v < 0 for v in cost.values()):
            raise GenexpyInputError("cost must map 'tasks', 'items', 'runs' to non-negative "
                                    f"numbers, got {cost!r}.")
        n_per = p.n_items / p.n_tasks
        T0 = p.n_tasks
        Ts = np.unique(np.round(np.geomspace(T0, T0 * max_factor, 40))) if (
            self.tasks_sampled) else np.array([T0])
        Ns = np.unique(np.concatenate([np.round(np.geomspace(1, n_per * max_factor, 60)),
                                       [round(n_per)] if with_present else []]))
        Ks = np.arange(1, max_runs + 1) if not p.single_run else np.array([round(p.k_a)])
        T, N, K = (g.ravel() for g in np.meshgrid(Ts, Ns, Ks, indexing="ij"))
        task, item, ra, rb = self._units(p)
        run = 0.0 if p.single_run else (ra + rb) / K
        var = (task / T if self.tasks_sampled else 0.0) + (item + run) / (T * N)
        total = (cost.get("tasks", 0.0) * T + cost.get("items", 0.0) * T * N
                 + cost.get("runs", 0.0) * T * N * 2 * K)
        return pl.DataFrame({"tasks": T.astype(np.int64), "items": N.astype(np.int64),
                             "runs": K.astype(np.int64), "se": np.sqrt(var), "cost": total})

    def paired_test(self, a: str, b: str) -> dict:
        """Test whether two models' benchmark means differ, paired on their shared items.

        Parameters
        ----------
        a, b : str
            The two models.

        Returns
        -------
        dict
            ``a``, ``b``, ``diff``, ``se``, ``statistic``, ``dof``, ``pvalue``, ``method``:
            McNemar's exact test for 0/1 outcomes of one run each without sampled tasks;
            with sampled tasks the cluster-robust t test (items clustered in tasks, CR1,
            ``T - 1`` degrees of freedom); otherwise the paired t test on the per-item
            differences (averaged over runs).
        """
        from scipy import stats

        p, sign = self._pair(a, b)
        diff = sign * p.diff
        if p.paired_binary and not self.tasks_sampled:
            from ..significance import mcnemar

            b_, c_ = p.discordant if sign > 0 else p.discordant[::-1]
            if b_ + c_ == 0:
                return {"a": a, "b": b, "diff": diff, "se": p.se, "statistic": 0.0,
                        "dof": math.nan, "pvalue": 1.0, "method": "McNemar exact (no "
                        "discordant item)"}
            res = mcnemar(table=[[0, b_], [c_, 0]])
            return {"a": a, "b": b, "diff": diff, "se": p.se, "statistic": float(res.statistic),
                    "dof": math.nan, "pvalue": float(res.pvalue), "method": "McNemar exact"}
        t = diff / p.se if p.se > 0 else (0.0 if diff == 0 else math.copysign(math.inf, diff))
        pv = float(2 * stats.t.sf(abs(t), p.dof)) if p.dof >= 1 else math.nan
        method = ("cluster-robust t (items in tasks, CR1)" if self.tasks_sampled
                  else "paired t on per-item differences")
        return {"a": a, "b": b, "diff": diff, "se": p.se, "statistic": t, "dof": p.dof,
                "pvalue": pv, "method": method}

    def tie_groups(self, *, alpha: float = 0.05, p_adjust: str = "holm") -> pl.DataFrame:
        """Group the leaderboard into models that the paired test cannot tell apart.

        Parameters
        ----------
        alpha : float
            The level of the paired tests.
        p_adjust : str
            Correction of each group leader's comparisons for multiplicity (statsmodels'
            names; ``"holm"`` by default).

        Returns
        -------
        polars.DataFrame
            ``model``, ``mean``, ``rank`` (1 = best), ``group`` (1 = tied with the best),
            ``pvalue`` (adjusted, against the group's leader; null for the leader). The
            leader of each group is the best model not yet grouped; the group holds the
            models whose difference from it is not significant.
        """
        from ..significance import adjust_pvalues

        if self.higher_is_better is None:
            raise GenexpyInputError("tie groups need the direction of the scores: pass "
                                    "higher_is_better= to eval_noise.")
        sign = 1.0 if self.higher_is_better else -1.0
        order = sorted(self.means, key=lambda m: -sign * self.means[m])
        group, pval = {}, {}
        g = 0
        while len(group) < len(order):
            g += 1
            rest = [m for m in order if m not in group]
            lead, others = rest[0], rest[1:]
            group[lead] = g
            if not others:
                break
            idx = {m: i for i, m in enumerate(self._red.models)}
            raw = _batch_pvalues(self._red, idx[lead], np.array([idx[m] for m in others]),
                                 self.weighting, self.tasks_sampled)
            adj = adjust_pvalues(raw, p_adjust, alpha=alpha) if len(raw) > 1 else raw
            for m, pv in zip(others, adj):
                if not pv < alpha:
                    group[m] = g
                    pval[m] = float(pv)
        return pl.DataFrame({"model": order, "mean": [self.means[m] for m in order],
                             "rank": list(range(1, len(order) + 1)),
                             "group": [group[m] for m in order],
                             "pvalue": [pval.get(m) for m in order]},
                            schema={"model": pl.String, "mean": pl.Float64, "rank": pl.Int64,
                                    "group": pl.Int64, "pvalue": pl.Float64})
