"""A cut-down benchmark, certified: do a subset's conditions reach the same conclusions.

Agreement is an *equivalence* statement, not the failure to reject a difference:

* **rankings**: the per-condition rankings of the subset are within ``eps(delta*)`` of the
  full benchmark's, in the MMD of each research question's kernel (the threshold of the
  paper's n-generalizability, Matteucci et al. Sec. 4.2–4.4: ``eps = sqrt(2 (kappa_sup −
  f(delta*)))``);
* **conclusions**: every conclusion that *holds* on the full benchmark (verdict "holds" of
  :func:`genexpy_nb.conclusions`: the best alternative, the top-k set, a pair, the order) is
  drawn from the subset too (the same ``observed`` text). Conclusions the full benchmark
  does not settle are listed, but a subset is not asked to reproduce them.

A subset agrees when both hold. The size a *random* subset needs is a finite-population
quantity: the probability ``q(m)`` that a subset of m conditions drawn at random without
replacement has its rankings within eps of the whole (estimated from ``draws`` random
subsets per size) is 1 at the full size, and the size needed is the smallest m from which
``q`` stays at or above alpha*.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl

from .._validation import GenexpyInputError, check_probability, check_seed, rng_from_seed

__all__ = ["SubsetAgreement", "subset_agreement"]

#: the most conditions of one configuration (the kernel matrix is N × N)
MAX_CONDITIONS = 5000


def _subset_index(sample: Any, subset: Sequence[Any]) -> np.ndarray:
    names = [str(c) for c in sample.conditions]
    pos = {c: i for i, c in enumerate(names)}
    want = [str(s) for s in subset]
    missing = [w for w in want if w not in pos]
    if missing:
        raise GenexpyInputError(f"{len(missing)} condition(s) of the subset are not in the "
                                f"study, e.g. {missing[:3]}; conditions: {names[:5]}...")
    idx = np.unique([pos[w] for w in want])
    if idx.size != len(want):
        raise GenexpyInputError("the subset names a condition more than once.")
    if idx.size < 2:
        raise GenexpyInputError("the subset needs at least two conditions.")
    return idx


def _mmd_to_full(K: np.ndarray, W: np.ndarray) -> np.ndarray:
    """MMD between each weighted subset (rows of W, summing to 1) and the whole (uniform)."""
    full = K.mean()
    cross = W @ K.mean(axis=1)
    within = np.einsum("ij,jk,ik->i", W, K, W)
    return np.sqrt(np.maximum(within + full - 2 * cross, 0.0))


def _random_curve(K, eps, sizes, draws, rng) -> np.ndarray:
    N = K.shape[0]
    q = np.empty(len(sizes))
    for j, m in enumerate(sizes):
        keys = rng.random((draws, N))
        pick = np.argsort(keys, axis=1)[:, :m]
        W = np.zeros((draws, N))
        np.put_along_axis(W, pick, 1.0 / m, axis=1)
        q[j] = float((_mmd_to_full(K, W) <= eps + 1e-12).mean())
    return q


def _size_needed(sizes: np.ndarray, q: np.ndarray, alpha: float) -> int:
    below = np.nonzero(q < alpha)[0]
    return int(sizes[0]) if below.size == 0 else int(sizes[min(below[-1] + 1, len(sizes) - 1)])


def _compare_conclusions(full: pl.DataFrame, sub: pl.DataFrame) -> pl.DataFrame:
    # a conclusion is the same question on both: its kind and size, and for a pair its two
    # alternatives in either order (which one is ahead is the answer, not the question); a
    # best or top-k answer is a set (its members in any order)
    def keyed(df: pl.DataFrame) -> pl.DataFrame:
        sets = pl.col("kind").is_in(["best", "top_k"])
        return df.with_columns(
            question=pl.when(pl.col("kind") == "pair").then(
                pl.col("members").list.sort().list.join(" vs ")).otherwise(pl.lit("")),
            answer=pl.when(sets).then(pl.col("members").list.sort().list.join(", "))
            .otherwise(pl.col("observed")))

    key = ["config_id", "kind", "k", "question"]
    out = keyed(full).select(*key, pl.col("observed").alias("full"),
                             pl.col("verdict").alias("full_verdict"), "answer").join(
        keyed(sub).select(*key, pl.col("observed").alias("subset"),
                          pl.col("answer").alias("_sub_answer")), on=key, how="left",
        nulls_equal=True)
    return out.with_columns(
        same=(pl.col("answer") == pl.col("_sub_answer")).fill_null(False),
        required=pl.col("full_verdict") == "holds").drop("answer", "_sub_answer")


def subset_agreement(study: Any, subset: Sequence[Any], *, kernels: Sequence[Any] | None = None,
                     alpha: float = 0.95, delta: float = 0.05, draws: int = 500,
                     seed: Any = 0, conclusion_kinds: Sequence[str] = ("best", "top_k",
                                                                        "pair", "order"),
                     top_k: int = 3) -> SubsetAgreement:
    """Say whether a subset of a benchmark's conditions reaches the same conclusions.

    Parameters
    ----------
    study : Study
        The full benchmark (its conditions are the values of its ``generalize`` factor).
    subset : sequence
        The conditions (tasks, datasets) of the cut-down benchmark.
    kernels : sequence of Kernel, optional
        The research questions whose rankings must agree (default ``Jaccard(k=1)``, "the
        same best", and ``Mallows()``, "the same order").
    alpha : float
        alpha*: the probability a random subset must reach (default 0.95); also the level of
        :func:`genexpy_nb.conclusions`.
    delta : float
        delta*: the kernels' threshold, turned into the MMD threshold ``eps(delta*)``.
    draws : int
        Random subsets per size for the curve ``q(m)``.
    seed : int or numpy.random.Generator
        The same seed gives the same answer, bit for bit.
    conclusion_kinds : sequence of str
        The conclusions compared (as :func:`genexpy_nb.conclusions` takes them).
    top_k : int
        The top-k size compared.

    Returns
    -------
    SubsetAgreement
        ``.agrees`` (bool), ``.kernels`` (per configuration and kernel: ``mmd`` of the
        subset to the whole, ``eps``, ``agrees``, ``q_same_size`` — the share of random
        subsets of the same size within eps —, ``size_needed``), ``.conclusions`` (each
        conclusion on the full benchmark and on the subset, ``same``, ``required``: it holds
        on the full benchmark) and ``.curve``
        (``size``, ``kernel``, ``q``).
    """
    from ..generalizability.conclusions import conclusions
    from ..generalizability.kernels import default_questions

    if not hasattr(study, "samples"):
        raise GenexpyInputError("subset_agreement takes a genexpy_nb.Study.")
    if isinstance(subset, str) or not isinstance(subset, Sequence | set | frozenset):
        raise GenexpyInputError("subset must be a list of conditions, e.g. subset=['arc', "
                                "'piqa'].")
    alpha = check_probability("alpha", alpha)
    rng = rng_from_seed(check_seed(seed))
    if not isinstance(draws, int) or draws < 10:
        raise GenexpyInputError(f"draws must be an integer >= 10, got {draws!r}.")
    kernels = default_questions() if kernels is None else list(kernels)
    krows, crows, curve = [], [], []
    for s in study.samples():
        N = len(s.conditions)
        if N > MAX_CONDITIONS:
            raise GenexpyInputError(f"{N} conditions in configuration {s.config_id}, more "
                                    f"than the {MAX_CONDITIONS} this check accepts.")
        idx = _subset_index(s, list(subset))
        sizes = np.unique(np.round(np.linspace(2, N, min(N - 1, 60))).astype(int))
        for kern in kernels:
            k = kern.resolve(study.na, study.alternatives)
            data = s.data_for(k)
            K = k.gram(data)
            eps = float(k.eps(delta))
            w = np.zeros((1, N))
            w[0, idx] = 1.0 / idx.size
            obs = float(_mmd_to_full(K, w)[0])
            q = _random_curve(K, eps, sizes, draws, rng)
            same = _random_curve(K, eps, [idx.size], draws, rng)[0]
            krows.append((s.config_id, k.label, idx.size, N, obs, eps, obs <= eps, same,
                          _size_needed(sizes, q, alpha)))
            curve.extend((s.config_id, k.label, int(m), float(v)) for m, v in zip(sizes, q))
        sub = study._subsample(s, idx)
        seed_c = int(rng.integers(0, 2**31 - 1))
        full_c = conclusions(study, alpha=alpha, delta=delta, kinds=conclusion_kinds,
                             top_k=top_k, config_id=s.config_id, seed=seed_c)
        sub_c = conclusions(sub, alpha=alpha, delta=delta, kinds=conclusion_kinds,
                            top_k=top_k, seed=seed_c).with_columns(
            pl.lit(s.config_id).cast(full_c.schema["config_id"]).alias("config_id"))
        crows.append(_compare_conclusions(full_c, sub_c))
    kframe = pl.DataFrame(krows, schema={
        "config_id": pl.Int64, "kernel": pl.String, "size": pl.Int64, "N": pl.Int64,
        "mmd": pl.Float64, "eps": pl.Float64, "agrees": pl.Boolean,
        "q_same_size": pl.Float64, "size_needed": pl.Int64}, orient="row")
    cframe = pl.concat(crows)
    curve_f = pl.DataFrame(curve, schema={"config_id": pl.Int64, "kernel": pl.String,
                                          "size": pl.Int64, "q": pl.Float64}, orient="row")
    return SubsetAgreement(kframe, cframe, curve_f, alpha)


class SubsetAgreement:
    """The answer of :func:`subset_agreement`.

    Parameters
    ----------
    kernels : polars.DataFrame
        Per configuration and kernel: the subset's MMD to the whole, eps, agreement, the
        share of random subsets of its size that agree, the size a random subset needs.
    conclusions : polars.DataFrame
        Each conclusion on the full benchmark and on the subset, whether they are the
        same, and whether it is ``required`` (it holds on the full benchmark).
    curve : polars.DataFrame
        ``q(m)``: the probability that a random subset of m conditions agrees, per kernel.
    alpha : float
        alpha*.
    """

    def __init__(self, kernels: pl.DataFrame, conclusions: pl.DataFrame, curve: pl.DataFrame,
                 alpha: float):
        self.kernels = kernels
        self.conclusions = conclusions
        self.curve = curve
        self.alpha = alpha

    @property
    def agrees(self) -> bool:
        """Return whether the subset agrees in every kernel and every conclusion.

        Returns
        -------
        bool
            True when the rankings are within eps in every kernel and the conclusions are
            the same.
        """
        need = self.conclusions.filter(pl.col("required"))
        return bool(self.kernels["agrees"].all() and need["same"].all())

    def __repr__(self) -> str:
        """Return the verdict in words."""
        differ = self.conclusions.filter(~pl.col("same") & pl.col("required"))
        far = self.kernels.filter(~pl.col("agrees"))
        lines = [f"subset {'agrees' if self.agrees else 'does not agree'} with the full "
                 "benchmark"]
        lines += [f"  rankings further than eps in {r['kernel']}: MMD {r['mmd']:.3f} > "
                  f"{r['eps']:.3f}" for r in far.iter_rows(named=True)]
        lines += [f"  {r['kind']}: full says {r['full']!r}, subset says {r['subset']!r}"
                  for r in differ.head(5).iter_rows(named=True)]
        need = self.kernels["size_needed"].max()
        lines.append(f"  a random subset agrees with probability >= {self.alpha} from "
                     f"{need} conditions on (of {self.kernels['N'].max()})")
        return "\n".join(lines)
