"""Bayesian comparisons of two models with a region of practical equivalence (rope).

* :func:`correlated_bayesian_ttest` — two models on **one** dataset from (repeated)
  cross-validation: a Student posterior of the mean difference whose variance carries the
  Nadeau–Bengio correlation between overlapping training sets (Corani & Benavoli 2015);
* :func:`bayesian_signed_rank` — two models over **several** datasets: the Dirichlet-process
  posterior of the signed-rank test with a prior pseudo-observation at 0 (Benavoli et al.
  2014);
* :func:`bayesian_sign_test` — the same with a Dirichlet posterior of the signs only.

Each returns a :class:`BayesianResult`: ``probs = (left, rope, right)``, the posterior
probabilities that the first model is practically better, that the two are practically
equivalent (their difference lies within ``±rope``), and that the second is practically
better; the posterior sample; and a one-line ``interpretation``. The numbers equal baycomp's
(``CorrelatedTTest``, ``SignedRankTest``, ``SignTest``: left is the first model, right the
second, when higher is better), which is the tests' oracle.

Why a rope: a p-value answers "is the difference exactly zero?", which with enough data is
always "no"; the posterior answers "how probable is a difference that matters?" for the
difference the caller says matters (one accuracy point, say). There is no default rope and
no default direction: both are the caller's statement about their scores.

Missing values: ``nan_policy`` defaults to ``"raise"`` in this family; ``"omit"`` is the
other choice (a posterior has no NaN form to propagate).

References
----------
Benavoli, A., Corani, G., Demšar, J. and Zaffalon, M. (2017). Time for a change: a tutorial
for comparing multiple classifiers through Bayesian analysis. JMLR 18(77), 1-36.
Corani, G. and Benavoli, A. (2015). A Bayesian approach for comparing cross-validated
algorithms on multiple data sets. Machine Learning 100, 285-304.
Benavoli, A., Corani, G., Mangili, F., Zaffalon, M. and Ruggeri, F. (2014). A Bayesian
Wilcoxon signed-rank test based on the Dirichlet process. ICML, PMLR 32(2), 1026-1034.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from scipy import special

from .._validation import (
    REQUIRED,
    GenexpyInputError,
    check_choice,
    check_positive_int,
    check_positive_number,
    check_seed,
    rng_from_seed,
)
from .._validation import check_direction as _direction
from ._input import _paired_differences
from ._results import _degenerate, _fmt

__all__ = [
    "BayesianResult",
    "correlated_bayesian_ttest",
    "bayesian_signed_rank",
    "bayesian_sign_test",
    "DECISION_THRESHOLD",
]

#: posterior probability above which a result is read as a decision (Benavoli et al. 2017,
#: Section 4: "0.95 is a reasonable threshold")
DECISION_THRESHOLD: float = 0.95

#: baycomp's default number of posterior samples
NSAMPLES: int = 50_000

#: most posterior samples drawn (a (nsamples, 3) float array is kept on the result)
MAX_NSAMPLES: int = 50_000_000

#: baycomp adds this to every Dirichlet parameter of the sign test "for numerical stability"
_SIGN_EPS = 1e-4

_REQUIRED_ROPE = REQUIRED


@dataclass(frozen=True, eq=False, kw_only=True)
class BayesianResult:
    """Posterior probabilities of a Bayesian comparison of two models.

    Unpacks as ``left, rope, right = res`` (the same three numbers as ``res.probs``).
    Made by the tests, not by users; the fields are its attributes.

    Parameters
    ----------
    probs : tuple of float
        ``(left, rope, right)``: the posterior probability that the first model (``x``) is
        better by more than ``rope``, that the two are within ``rope`` of each other, and
        that the second model (``y``) is better by more than ``rope``. They sum to 1.
    test : str
        Name of the test.
    rope : float
        Half-width of the region of practical equivalence, in the scores' units.
    names : tuple of str
        Names of the two models (``x``, ``y``).
    higher_is_better : bool
        The direction of the scores the probabilities were computed for.
    n : int
        Number of paired values (CV splits or datasets).
    sample : numpy.ndarray
        The posterior sample: for the t-test, ``nsamples`` draws of the mean difference in
        favour of ``y`` (``y - x`` for scores, ``x - y`` for errors), shape ``(nsamples,)``;
        for the signed-rank and sign tests, ``nsamples`` draws of ``(left, rope, right)``
        probabilities, shape ``(nsamples, 3)`` (each row sums to 1). The t-test's
        probabilities are exact (Student's distribution), so its sample is drawn only when
        it is first read (a plot, or your own use), from the seed given: the same draws
        as if they had been made at once.
    mean, scale, df : float
        The t-test's Student posterior of the mean difference in favour of ``y``
        (location, scale, degrees of freedom); NaN for the other tests.
    prior : float
        The prior's strength (signed-rank and sign tests); NaN for the t-test.
    seed : int or None
        The seed the posterior sample was drawn with (None: a Generator was given).
    note : str or None
        Why the result is degenerate (zero variance), else None.
    """

    probs: tuple[float, float, float]
    test: str
    rope: float
    names: tuple[str, str]
    higher_is_better: bool
    n: int
    sample: np.ndarray = field(repr=False)
    mean: float = math.nan
    scale: float = math.nan
    df: float = math.nan
    prior: float = math.nan
    seed: int | None = None
    note: str | None = None

    _show: ClassVar[tuple[str, ...]] = ("rope", "n")

    def __iter__(self):
        """Iterate over the three probabilities (left, rope, right)."""
        return iter(self.probs)

    def __len__(self) -> int:
        """Return 3: the result unpacks as the three probabilities."""
        return 3

    def __getitem__(self, i):
        """Return the ``i``-th probability (0 left, 1 rope, 2 right)."""
        return self.probs[i]

    @property
    def p_left(self) -> float:
        """P(the first model is better by more than the rope)."""
        return self.probs[0]

    @property
    def p_rope(self) -> float:
        """P(the two models are practically equivalent)."""
        return self.probs[1]

    @property
    def p_right(self) -> float:
        """P(the second model is better by more than the rope)."""
        return self.probs[2]

    def decision(self, threshold: float = DECISION_THRESHOLD) -> str | None:
        """Return the region whose probability reaches ``threshold``, else None.

        Parameters
        ----------
        threshold : float, default DECISION_THRESHOLD
            The probability a region needs, in [0.5, 1).

        Returns
        -------
        str or None
            ``"left"`` (the first model is practically better), ``"rope"`` (practically
            equivalent) or ``"right"`` (the second is better); None when no probability
            reaches ``threshold`` (the data do not decide).
        """
        from .._validation import check_probability

        t = check_probability("threshold", threshold, low=0.5, low_open=False)
        best = int(np.argmax(self.probs))
        return ("left", "rope", "right")[best] if self.probs[best] >= t else None

    @property
    def interpretation(self) -> str:
        """One line: the three probabilities in words and what they decide at 0.95."""
        a, b = self.names
        pl, pe, pr = self.probs
        r = f"{self.rope:.4g}"
        text = (f"P({a} better by more than {r}) = {pl:.3f}, "
                f"P(equivalent within ±{r}) = {pe:.3f}, "
                f"P({b} better by more than {r}) = {pr:.3f}")
        d = self.decision()
        t = f"{DECISION_THRESHOLD:g}"
        if d == "left":
            verdict = f"{a} is practically better (P >= {t})"
        elif d == "right":
            verdict = f"{b} is practically better (P >= {t})"
        elif d == "rope":
            verdict = f"{a} and {b} are practically equivalent (P >= {t})"
        else:
            verdict = f"no decision at {t}: more data, or a rope that says what matters"
        return f"{text}: {verdict}."

    def to_frame(self):
        """Return the probabilities as a tidy polars frame, one row per region.

        Columns ``region, probability``, plus ``test``, ``model``, ``rope``.
        """
        import polars as pl

        a, b = self.names
        return pl.DataFrame({
            "test": [self.test] * 3,
            "region": ["left", "rope", "right"],
            "model": [a, "equivalent", b],
            "probability": list(self.probs),
            "rope": [self.rope] * 3,
        })

    def __repr__(self) -> str:
        """Return a short summary: test, probabilities, names, rope and n."""
        pl_, pe, pr = self.probs
        parts = [f"test={self.test!r}", f"probs=({_fmt(pl_)}, {_fmt(pe)}, {_fmt(pr)})",
                 f"names={self.names!r}", f"rope={_fmt(self.rope)}", f"n={self.n}"]
        if self.note:
            parts.append(f"note={self.note!r}")
        return f"BayesianResult({', '.join(parts)})"


def _get_sample(self: BayesianResult) -> np.ndarray:
    """Return the posterior sample, drawn on first access where it was deferred."""
    value = self.__dict__["_sample"]
    if isinstance(value, _StudentDraws):
        value = value()
        self.__dict__["_sample"] = value  # a cache: the result stays frozen to its users
    return value


def _set_sample(self: BayesianResult, value: Any) -> None:
    """Keep the sample, or the recipe to draw it (only the constructor sets it)."""
    self.__dict__["_sample"] = value


BayesianResult.sample = property(  # type: ignore[assignment]
    _get_sample, _set_sample, doc="The posterior sample (see the class's Parameters).")


@dataclass(frozen=True)
class _StudentDraws:
    """``nsamples`` draws of ``mean + scale * T(df)`` from ``seed``, made when called."""

    mean: float
    scale: float
    df: float
    nsamples: int
    seed: int | None

    def __call__(self) -> np.ndarray:
        """Draw the sample (the same bits at every call for an integer seed)."""
        return self.mean + self.scale * rng_from_seed(self.seed).standard_t(self.df,
                                                                             self.nsamples)


# ---- input ---------------------------------------------------------------------------
def _check_rope(rope: Any, func: str) -> float:
    if rope is _REQUIRED_ROPE:
        raise GenexpyInputError(
            f"{func}: say how large a difference matters, in the scores' units: e.g. "
            f"{func}(x, y, rope=0.01, higher_is_better=True) for one accuracy point. "
            "Differences within ±rope count as practically equivalent; rope=0 asks only "
            "which model is better."
        )
    if isinstance(rope, bool):
        raise GenexpyInputError(f"rope must be a number >= 0, got {rope!r}.")
    try:
        r = float(rope)
    except (TypeError, ValueError):
        raise GenexpyInputError(f"rope must be a number >= 0, got {rope!r}.") from None
    if not (math.isfinite(r) and r >= 0):
        raise GenexpyInputError(
            f"rope must be a finite number >= 0 (in the scores' units), got {rope!r}."
        )
    return r


def _check_names(names: Sequence[Any] | None) -> tuple[str, str]:
    if names is None:
        return ("x", "y")
    if isinstance(names, str) or len(names) != 2:
        raise GenexpyInputError(
            f"names must be two names (first model, second model), got {names!r}."
        )
    a, b = (str(n) for n in names)
    if a == b:
        raise GenexpyInputError(f"names must differ, got {names!r}.")
    return a, b


def _improvement(x: Any, y: Any, higher_is_better: bool, nan_policy: str,
                 func: str) -> np.ndarray:
    """Paired improvements of y over x (``y - x`` for scores, ``x - y`` for errors)."""
    check_choice("nan_policy", nan_policy, ("raise", "omit"))
    if y is None:
        raise GenexpyInputError(f"{func}: give the two models' paired scores x and y.")
    d, _ = _paired_differences(
        x, y, nan_policy,
        mismatch="x and y must be paired (one value per split or dataset), got {nx} and "
                 "{ny} values.")
    # _paired_differences gives x - y
    return -d if higher_is_better else d


def _checked(func: str, x: Any, y: Any, rope: Any, higher_is_better: Any, names: Any,
             nsamples: Any, nan_policy: str) -> tuple[float, bool, tuple[str, str], int,
                                                      np.ndarray]:
    """Check a test's common arguments: the rope, direction, names, samples, improvements."""
    r = _check_rope(rope, func)
    hib = _direction(higher_is_better, func)
    nm = _check_names(names)
    nsamples = _check_nsamples(nsamples)
    return r, hib, nm, nsamples, _improvement(x, y, hib, nan_policy, func)


def _check_nsamples(nsamples: Any) -> int:
    n = check_positive_int("nsamples", nsamples, minimum=1)
    if n > MAX_NSAMPLES:
        raise GenexpyInputError(
            f"nsamples={n} is more than {MAX_NSAMPLES}; 50,000 (baycomp's default) gives "
            "probabilities within about 0.005."
        )
    return n


def _seed_value(seed: Any) -> int | None:
    return None if isinstance(seed, np.random.Generator) or seed is None else int(seed)


def _argmax_probs(sample: np.ndarray) -> tuple[float, float, float]:
    """Return baycomp's ``Posterior.probs`` of a posterior sample.

    The share of samples in which each region has the largest probability (ties to the
    first region).
    """
    # np.argmax(sample, axis=1) with the first maximum winning, for finite samples, by
    # column comparisons: argmax along an axis of length 3 costs several times more
    left, rope, right = sample[:, 0], sample[:, 1], sample[:, 2]
    is_left = (left >= rope) & (left >= right)
    is_rope = ~is_left & (rope >= right)
    n = sample.shape[0]
    n_left, n_rope = int(np.count_nonzero(is_left)), int(np.count_nonzero(is_rope))
    return n_left / n, n_rope / n, (n - n_left - n_rope) / n


# ---- correlated Bayesian t-test ----------------------------------------------------------
def _student_probs(mean: float, scale: float, df: float, rope: float
                   ) -> tuple[float, float, float]:
    """(left, rope, right) of a Student posterior, as baycomp's ``Posterior.probs``."""
    if scale == 0:
        if rope == 0:
            pr = float(mean > 0) + 0.5 * float(mean == 0)
            return 1.0 - pr, 0.0, pr
        pl = float(mean < -rope)
        pr = float(mean > rope)
        return pl, 1.0 - pl - pr, pr
    if rope == 0:
        pr = float(special.stdtr(df, mean / scale))  # P(d > 0) = 1 - F(0)
        return 1.0 - pr, 0.0, pr
    pl = float(special.stdtr(df, (-rope - mean) / scale))
    pr = float(special.stdtr(df, (mean - rope) / scale))
    # a rope far narrower than the posterior: pl + pr may exceed 1 by a rounding error
    return pl, max(0.0, 1.0 - pl - pr), pr


def correlated_bayesian_ttest(
    x: Any,
    y: Any,
    *,
    rope: float = _REQUIRED_ROPE,
    higher_is_better: bool = REQUIRED,
    runs: int | None = None,
    n_train: float | None = None,
    n_test: float | None = None,
    nsamples: int = NSAMPLES,
    seed: int | np.random.Generator | None = 0,
    names: Sequence[str] | None = None,
    nan_policy: str = "raise",
) -> BayesianResult:
    """Correlated Bayesian t-test of two models on one dataset from (repeated) CV.

    Parameters
    ----------
    x, y : array-like of float, shape (J,)
        Scores of the two models on the same J CV splits (J = runs x folds), in the same
        order.
    rope : float, required
        Half-width of the region of practical equivalence, in the scores' units
        (``0.01`` = one accuracy point on accuracies in [0, 1]); 0 for no rope.
    higher_is_better : bool, required
        True for scores (accuracy), False for errors or losses.
    runs : int, optional
        Number of repetitions of k-fold CV, as baycomp: the correlation between splits is
        ``rho = 1/k`` with ``k = J / runs`` folds. Give either ``runs`` or both ``n_train``
        and ``n_test``.
    n_train, n_test : float, optional
        Training and test set sizes of one split: ``rho = n_test / (n_train + n_test)``
        (the Nadeau–Bengio correction of :func:`corrected_ttest`).
    nsamples : int
        Size of the posterior sample on the result (the probabilities are exact, from the
        Student distribution); it is drawn when first read (``res.sample``, a plot).
    seed : int, numpy Generator or None
        For the posterior sample only (a Generator is drawn from at once).
    names : (str, str), optional
        Names of the two models, used in the interpretation and the charts.
    nan_policy : {"raise", "omit"}
        "omit" drops the splits with a missing score.

    Returns
    -------
    BayesianResult
        ``probs = (left, rope, right)``; ``mean``, ``scale`` and ``df`` of the Student
        posterior of the mean improvement of ``y`` over ``x``; ``sample`` of it.

    Notes
    -----
    With ``d_j`` the improvement of ``y`` over ``x`` on split j (``y - x`` for scores,
    ``x - y`` for errors), the posterior of the mean improvement is Student with ``J - 1``
    degrees of freedom, location ``mean(d)`` and squared scale
    ``(1/J + rho/(1 - rho)) s^2`` (``s^2`` the sample variance of the d_j): the
    Nadeau–Bengio corrected variance (Corani & Benavoli 2015; Benavoli et al. 2017,
    Section 3). ``left = P(mean < -rope)``, ``right = P(mean > rope)``. Equal to baycomp's
    ``CorrelatedTTest(x, y, rope, runs).probs()`` (to 1e-9, tested) for scores;
    all ``d_j`` equal gives a point posterior (a :class:`DegenerateTestWarning`).

    Examples
    --------
    >>> x = [0.81, 0.79, 0.80, 0.83, 0.78, 0.80, 0.82, 0.79, 0.81, 0.80]
    >>> y = [0.84, 0.80, 0.83, 0.85, 0.80, 0.83, 0.84, 0.82, 0.83, 0.82]
    >>> res = correlated_bayesian_ttest(x, y, rope=0.01, runs=1, higher_is_better=True)
    >>> [round(p, 3) for p in res.probs]
    [0.0, 0.001, 0.999]
    """
    func = "correlated_bayesian_ttest"
    r, hib, nm, nsamples, d = _checked(func, x, y, rope, higher_is_better, names, nsamples,
                                       nan_policy)
    J = int(d.size)
    if J < 2:
        raise GenexpyInputError(f"{func}: {J} paired score(s); at least 2 CV splits are needed.")
    if runs is not None and (n_train is not None or n_test is not None):
        raise GenexpyInputError(
            f"{func}: give either runs (as baycomp) or n_train and n_test, not both.")
    if runs is not None:
        runs = check_positive_int("runs", runs)
        if J % runs:
            raise GenexpyInputError(
                f"{func}: {J} splits cannot come from runs={runs} repetitions of k-fold CV "
                "(J must be a multiple of runs).")
        k = J / runs
        if k < 2:
            raise GenexpyInputError(
                f"{func}: runs={runs} with {J} splits means k = {k:g} fold(s); k-fold CV "
                "needs k >= 2.")
        ratio = 1.0 / (k - 1.0)  # rho / (1 - rho) with rho = 1/k
    elif n_train is not None and n_test is not None:
        from ._input import check_sizes

        n1, n2 = check_sizes(n_train, n_test)
        ratio = n2 / n1  # rho / (1 - rho) with rho = n2 / (n1 + n2)
    else:
        raise GenexpyInputError(
            f"{func}: say how the splits overlap: runs=R for R repetitions of k-fold CV "
            "(as baycomp), or n_train=... and n_test=... (the sizes of one split).")
    mean = float(np.mean(d))
    s2 = 0.0 if np.all(d == d[0]) else float(np.var(d, ddof=1))
    scale = math.sqrt(s2 * (1.0 / J + ratio))
    df = float(J - 1)
    note = None
    seed = check_seed(seed)
    sample: Any
    if scale == 0:
        note = _degenerate(func, f"all {J} differences equal {mean:.6g} (zero variance)",
                           "the posterior is a point mass at that difference")
        sample = np.full(nsamples, mean)
    elif isinstance(seed, np.random.Generator):
        # a Generator is the caller's stream: drawn from now, as the caller expects
        sample = mean + scale * seed.standard_t(df, nsamples)
    else:  # drawn when first read: the probabilities do not need it
        sample = _StudentDraws(mean, scale, df, nsamples, _seed_value(seed))
    return BayesianResult(
        probs=_student_probs(mean, scale, df, r), test="correlated Bayesian t-test", rope=r,
        names=nm, higher_is_better=hib, n=J, sample=sample, mean=mean, scale=scale, df=df,
        seed=_seed_value(seed), note=note,
    )


# ---- Bayesian signed-rank test -------------------------------------------------------------
def _signed_rank_indices(z: np.ndarray, rope: float):
    """Per sorted row i: a_gt, a_ge, b_lt, b_le (see the kernel), from the exact sums.

    ``z`` is sorted, so for a row i the sums ``z[i] + z[j]`` (rounded as baycomp rounds
    them) never decrease with j (rounding is monotone): each count is the length of a
    prefix, found by a binary search that evaluates those same sums - the counts of the
    m x m comparisons (baycomp's) in O(m log m) instead of O(m^2), bit for bit.
    """
    t = 2.0 * rope
    return (_prefix_counts(z, lambda s: s <= t), _prefix_counts(z, lambda s: s < t),
            _prefix_counts(z, lambda s: -s > t), _prefix_counts(z, lambda s: -s >= t))


def _prefix_counts(z: np.ndarray, holds) -> np.ndarray:
    """For each i, the number of j with ``holds(z[i] + z[j])``, a prefix of the sorted j."""
    m = z.size
    lo = np.zeros(m, dtype=np.int64)
    hi = np.full(m, m, dtype=np.int64)
    while True:
        open_ = lo < hi
        if not open_.any():
            return lo
        mid = (lo + hi) // 2
        ok = holds(z + z[np.minimum(mid, m - 1)]) & open_
        lo = np.where(ok, mid + 1, lo)
        hi = np.where(open_ & ~ok, mid, hi)


#: seconds per posterior sample and dataset of the signed-rank kernel (about 14 ns on one
#: core of the reference machine, with two threads busy), to estimate a call's time
_SECONDS_PER_SAMPLE_DATASET = 14e-9
#: the longest a signed-rank test may be estimated to take before it is refused
MAX_SIGNED_RANK_SECONDS: float = 3600.0


def signed_rank_seconds(n_datasets: int, nsamples: int) -> float:
    """Estimate the seconds :func:`bayesian_signed_rank` takes (posterior sampling).

    Parameters
    ----------
    n_datasets : int
        The datasets (paired scores).
    nsamples : int
        The posterior samples.

    Returns
    -------
    float
        The estimate on one core of the reference machine (about 14 ns per sample and
        dataset; more threads take proportionally less).
    """
    return _SECONDS_PER_SAMPLE_DATASET * float(nsamples) * float(n_datasets + 1)


def _check_signed_rank_cost(n: int, nsamples: int, func: str) -> float:
    """Refuse a test estimated to run past MAX_SIGNED_RANK_SECONDS; return the estimate."""
    secs = signed_rank_seconds(n, nsamples)
    if secs > MAX_SIGNED_RANK_SECONDS:
        fits = int(MAX_SIGNED_RANK_SECONDS / (_SECONDS_PER_SAMPLE_DATASET * (n + 1)))
        fix = (f"use nsamples={max(fits // 1000 * 1000, 1000):,} or fewer (each probability "
               "then within about 1/sqrt(nsamples))"
               if fits >= 1000 else "test fewer datasets at once")
        raise GenexpyInputError(
            f"{func}: {n:,} datasets x nsamples={nsamples:,} would take about "
            f"{round(secs / 60)} minutes on one core (limit {round(MAX_SIGNED_RANK_SECONDS / 60)} "
            f"minutes); {fix}.")
    return secs


#: posterior samples per block: each block draws from its own Generator, seeded from the
#: caller's, so the samples are the same whatever the number of threads
SAMPLE_BLOCK: int = 4096


def _block_generators(rng: np.random.Generator, nsamples: int) -> list[np.random.Generator]:
    """One Generator per block of SAMPLE_BLOCK samples, seeded from ``rng``.

    SFC64 rather than NumPy's default PCG64: about a fifth faster per draw inside the
    kernel, as good statistically (O'Neill 2018; NumPy's documentation of its bit
    generators).
    """
    n_blocks = -(-nsamples // SAMPLE_BLOCK)
    seeds = rng.integers(0, 2**63, size=n_blocks, dtype=np.int64)
    return [np.random.Generator(np.random.SFC64(int(s))) for s in seeds]


def _signed_rank_sample(d: np.ndarray, rope: float, prior: float, nsamples: int,
                        rng: np.random.Generator, progress: bool = False,
                        seconds: float = 0.0) -> np.ndarray:
    z = np.concatenate(([0.0], d))
    order = np.argsort(z, kind="stable")
    zs = np.ascontiguousarray(z[order])
    prior_pos = int(np.flatnonzero(order == 0)[0])
    a_gt, a_ge, b_lt, b_le = _signed_rank_indices(zs, rope)
    from .._numba import bayesian as kb
    from .._numba import compile_note, run_blocks

    out = np.empty((nsamples, 3))
    gens = _block_generators(rng, nsamples)
    zero = rope == 0

    from .._progress import tqdm

    bar = tqdm(total=nsamples, unit="sample", leave=False,
               desc=f"Bayesian signed-rank, {d.size:,} datasets (about {round(seconds)} s on "
                    "one core)", disable=not progress or seconds < 3.0)

    def blocks(b0: int, b1: int) -> None:
        for b in range(b0, b1):
            o = out[b * SAMPLE_BLOCK:(b + 1) * SAMPLE_BLOCK]
            # each block: its pseudo-observation's weights first, then the others'
            gam = gens[b].standard_gamma(prior, size=o.shape[0])
            kb.signed_rank_samples(gens[b], prior_pos, gam, a_gt, a_ge, b_lt, b_le, zero, o)
            bar.update(o.shape[0])

    # the bar moves by blocks of SAMPLE_BLOCK samples (each its own Generator: the same
    # bits whatever the threads)
    first = 0
    with bar:
        if not kb.signed_rank_samples.signatures:  # not compiled yet: once, on this thread
            with compile_note(kb.signed_rank_samples, "the Bayesian signed-rank kernel"):
                blocks(0, 1)
            first = 1
        run_blocks(lambda b0, b1: blocks(b0 + first, b1 + first), len(gens) - first,
                   work=12.0 * nsamples * zs.size, blocks_per_thread=1)
    return out


def bayesian_signed_rank(
    x: Any,
    y: Any,
    *,
    rope: float = _REQUIRED_ROPE,
    higher_is_better: bool = REQUIRED,
    prior: float = 0.5,
    nsamples: int = NSAMPLES,
    seed: int | np.random.Generator | None = 0,
    names: Sequence[str] | None = None,
    nan_policy: str = "raise",
    progress: bool = True,
) -> BayesianResult:
    """Bayesian signed-rank test of two models over several datasets.

    Parameters
    ----------
    x, y : array-like of float, shape (n,)
        One score per dataset for each model (e.g. the mean over CV folds), paired by
        dataset.
    rope : float, required
        Half-width of the region of practical equivalence, in the scores' units; 0 for
        no rope.
    higher_is_better : bool, required
        True for scores (accuracy), False for errors or losses.
    prior : float
        Strength of the prior pseudo-observation at 0 (baycomp's default, 0.5).
    nsamples : int
        Posterior samples (baycomp's default, 50,000: probabilities within about ±0.005).
    seed : int, numpy Generator or None
        Same seed, same samples, same probabilities.
    names : (str, str), optional
    nan_policy : {"raise", "omit"}
        "omit" drops the datasets with a missing score.
    progress : bool
        Show a progress bar, with the estimated time, when the sampling is estimated to
        take more than a few seconds (``signed_rank_seconds``: about 14 ns per sample
        and dataset on one core). A test estimated at more than
        ``MAX_SIGNED_RANK_SECONDS`` is refused before it starts, with the ``nsamples``
        that fits.

    Returns
    -------
    BayesianResult
        ``probs = (left, rope, right)``; ``sample`` of shape ``(nsamples, 3)``.

    Notes
    -----
    The Dirichlet-process posterior of the distribution of the improvements ``z_i`` of
    ``y`` over ``x`` (``y - x`` for scores, ``x - y`` for errors), with a prior
    pseudo-observation ``z_0 = 0`` of weight ``prior``, gives the weights
    ``w ~ Dirichlet(prior, 1, ..., 1)``; each posterior sample is
    ``right = sum_{i,j} w_i w_j H(z_i + z_j - 2 rope)``, ``left`` the same with
    ``-z_i - z_j``, ``rope = 1 - left - right`` (``H(0) = 1/2``: ties count half). The
    probabilities are the shares of samples in which left, rope or right is largest
    (Benavoli et al. 2014; 2017, Section 5). The same posterior as baycomp's
    ``SignedRankTest``, computed in O(n) per sample instead of O(n^2) (see
    ``genexpy_nb._numba.bayesian``); the samples are drawn from a NumPy Generator, so
    the probabilities equal baycomp's within Monte Carlo error (about 0.005 at 50,000
    samples), not bit for bit.

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> x = rng.uniform(0.7, 0.9, 30)
    >>> res = bayesian_signed_rank(x, x + 0.02, rope=0.01, higher_is_better=True)
    >>> res.probs
    (0.0, 0.0, 1.0)
    """
    func = "bayesian_signed_rank"
    r, hib, nm, nsamples, d = _checked(func, x, y, rope, higher_is_better, names, nsamples,
                                       nan_policy)
    p = check_positive_number("prior", prior)
    if d.size < 2:
        raise GenexpyInputError(f"{func}: {d.size} dataset(s); at least 2 are needed.")
    secs = _check_signed_rank_cost(int(d.size), nsamples, func)
    rng = rng_from_seed(seed)
    sample = _signed_rank_sample(d, r, p, nsamples, rng, progress=bool(progress),
                                 seconds=secs)
    probs, note = _argmax_probs(sample), None
    if r == 0 and not np.any(d):
        # every improvement is 0: left and right are equal in every sample (up to rounding),
        # and argmax's ties-to-the-first would pick a side from nothing
        probs = (0.5, 0.0, 0.5)
        note = _degenerate(func, f"the two have the same score on all {d.size} datasets "
                           "and rope=0", "the posterior is symmetric, probs = (0.5, 0, "
                           "0.5); give a rope > 0 to ask whether they are practically "
                           "equivalent")
    return BayesianResult(
        probs=probs, test="Bayesian signed-rank", rope=r, names=nm,
        higher_is_better=hib, n=int(d.size), sample=sample, prior=p, seed=_seed_value(seed),
        note=note,
    )


def bayesian_sign_test(
    x: Any,
    y: Any,
    *,
    rope: float = _REQUIRED_ROPE,
    higher_is_better: bool = REQUIRED,
    prior: float = 1.0,
    prior_place: str = "rope",
    nsamples: int = NSAMPLES,
    seed: int | np.random.Generator | None = 0,
    names: Sequence[str] | None = None,
    nan_policy: str = "raise",
) -> BayesianResult:
    """Bayesian sign test of two models over several datasets.

    Parameters
    ----------
    x, y : array-like of float, shape (n,)
        One score per dataset for each model, paired by dataset.
    rope : float, required
        Half-width of the region of practical equivalence, in the scores' units.
    higher_is_better : bool, required
    prior : float
        Strength of the prior (baycomp's default, 1), put on ``prior_place``.
    prior_place : {"rope", "left", "right"}
        Where the prior's pseudo-observation lies (baycomp's default: the rope).
    nsamples : int
    seed : int, numpy Generator or None
    names : (str, str), optional
    nan_policy : {"raise", "omit"}

    Returns
    -------
    BayesianResult
        ``probs = (left, rope, right)``; ``sample`` of shape ``(nsamples, 3)``.

    Notes
    -----
    With ``n_left``, ``n_rope``, ``n_right`` the datasets whose improvement of ``y`` over
    ``x`` is below ``-rope``, within ``±rope`` and above ``rope``, the posterior of the
    three probabilities is ``Dirichlet(n_left, n_rope, n_right)`` + 1e-4 each (as
    baycomp) + ``prior`` on ``prior_place``; the probabilities are the shares of samples in
    which each is largest. With ``rope = 0`` the rope region is dropped and left and right
    renormalised (baycomp's two probabilities; ``probs[1]`` is then 0).
    """
    func = "bayesian_sign_test"
    r, hib, nm, nsamples, d = _checked(func, x, y, rope, higher_is_better, names, nsamples,
                                       nan_policy)
    p = check_positive_number("prior", prior)
    place = check_choice("prior_place", prior_place, ("left", "rope", "right"))
    if d.size < 1:
        raise GenexpyInputError(f"{func}: no dataset to compare.")
    n_left = int(np.sum(d < -r))
    n_right = int(np.sum(d > r))
    alpha = np.array([n_left, d.size - n_left - n_right, n_right], dtype=np.float64)
    alpha += _SIGN_EPS
    alpha[("left", "rope", "right").index(place)] += p
    rng = rng_from_seed(seed)
    sample = rng.dirichlet(alpha, nsamples)
    pl, pe, pr = _argmax_probs(sample)
    if r == 0:
        tot = pl + pr
        pl, pe, pr = (pl / tot, 0.0, pr / tot) if tot > 0 else (0.5, 0.0, 0.5)
    return BayesianResult(
        probs=(pl, pe, pr), test="Bayesian sign test", rope=r, names=nm, higher_is_better=hib,
        n=int(d.size), sample=sample, prior=p, seed=_seed_value(seed),
    )
