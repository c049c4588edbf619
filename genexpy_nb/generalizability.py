"""n-generalizability and the number of experiments n* (SPEC A5-A7).

The heavy part, the resampled distributions of MMD_n for every configuration, kernel and n
of the grid, is computed once by :class:`GeneralizabilityAnalysis` and cached; n* for any
(alpha*, delta*) is then a cheap read of those distributions (the panels rely on this).

References
----------
Matteucci et al., "Generalizability of experimental studies": Definition 4.2
(n-generalizability), Theorem 4.1 and Algorithm 1 (n*), Appendix C (approximation and bound).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import polars as pl

from . import config
from ._validation import (
    GenexpyInputError,
    as_float_grid,
    check_positive_int,
    check_probability,
    child_seed,
)
from .kernels import Kernel
from .mmd import MODES, draw_pairs, kernel_support, mmd_from_pairs, support
from .study import ConfigurationSample, Study

__all__ = [
    "best_alternative",
    "ngen",
    "mmd_quantile",
    "default_grid",
    "fit_nstar",
    "NStarFit",
    "approx_terms",
    "approx_nstar",
    "approx_quantile",
    "bound_nstar",
    "lin_z",
    "GeneralizabilityAnalysis",
    "analyze",
    "METHODS",
]

METHODS = ("resample", "approx", "approx_weighted", "bound")


# ---------------------------------------------------------------------------------------
# elementary pieces
# ---------------------------------------------------------------------------------------
def ngen(mmd_samples: np.ndarray, eps: float | np.ndarray) -> float | np.ndarray:
    """n-generalizability: the fraction of MMD_n samples <= eps (empirical CDF at eps).

    Parameters
    ----------
    mmd_samples : (..., rep) array
    eps : scalar or (k,) array of thresholds

    Returns
    -------
    (...,) or (..., k) array (a float for a 1-d sample and a scalar eps).
    """
    x = np.asarray(mmd_samples, dtype=np.float64)
    e = np.asarray(eps, dtype=np.float64)
    if e.ndim == 0:
        out = (x <= e).mean(axis=-1)
        return float(out) if out.ndim == 0 else out
    return (x[..., None, :] <= e[:, None]).mean(axis=-1)


def mmd_quantile(mmd_samples: np.ndarray, alpha: float | Sequence[float]) -> np.ndarray:
    """alpha-quantile(s) of MMD_n, numpy ``method="higher"`` (the reference convention)."""
    a = as_float_grid("alpha", alpha)
    for v in a:
        check_probability("alpha", v)
    q = np.quantile(np.asarray(mmd_samples, dtype=np.float64), a, axis=-1,
                    method=config.QUANTILE_METHOD)
    return q[0] if np.ndim(alpha) == 0 else q


def default_grid(N: int) -> np.ndarray:
    """The reference grid n = 2, 4, 6, ... strictly below N // 2."""
    return np.arange(2, N // 2, 2, dtype=np.int64)


def _min_N_for_two_points(grid_fn: Callable[[int], np.ndarray]) -> int:
    for N in range(2, 10_000):
        if len(grid_fn(N)) >= 2:
            return N
    return 10_000  # pragma: no cover


@dataclass(frozen=True)
class NStarFit:
    """n* from the power-law fit ``log n = b1 log q_n + b0`` (Theorem 4.1).

    ``nstar`` is NaN when undefined, with ``reason`` saying why; ``reason`` also explains
    the degenerate n* = 1.
    """

    nstar: float
    b0: float = math.nan
    b1: float = math.nan
    r2: float = math.nan
    reason: str | None = None

    @property
    def nstar_ceil(self) -> int | None:
        return None if not math.isfinite(self.nstar) else max(1, math.ceil(self.nstar - 1e-9))


def fit_nstar(ns: np.ndarray, qs: np.ndarray, eps: float | np.ndarray,
              min_N: int | None = None) -> list[NStarFit]:
    """Fit ``log n = b1 log q_n + b0`` by OLS and predict ``n* = exp(b1 log eps + b0)``.

    Parameters
    ----------
    ns : (k,) sample sizes of the grid
    qs : (k,) alpha*-quantiles of MMD_n
    eps : scalar or (d,) MMD thresholds eps*
    min_N : used in the reason given when the grid has fewer than 2 points

    Returns
    -------
    list of NStarFit, one per eps.
    """
    eps_arr = np.atleast_1d(np.asarray(eps, dtype=np.float64))
    ns = np.asarray(ns, dtype=np.float64)
    qs = np.asarray(qs, dtype=np.float64)
    if ns.size < 2:
        need = f"at least N = {min_N} results" if min_N else "at least 2 grid points"
        return [NStarFit(math.nan, reason=f"needs {need} for the power-law fit")] * eps_arr.size
    if np.any(qs <= 0):
        return [NStarFit(1.0, reason="all resampled results agree (an MMD_n quantile is 0): "
                                    "one experiment suffices")] * eps_arr.size
    x = np.log(qs)
    y = np.log(ns)
    if np.ptp(x) <= 1e-12 * max(1.0, abs(x).max()):
        return [NStarFit(math.nan, reason="the MMD_n quantiles do not change with n: "
                                         "no power law to fit")] * eps_arr.size
    b1, b0 = np.polyfit(x, y, 1)
    pred = b1 * x + b0
    ss_res = float(((y - pred) ** 2).sum())
    ss_tot = float(((y - y.mean()) ** 2).sum())
    r2 = 1.0 - ss_res / ss_tot if ss_tot > 0 else math.nan
    if b1 >= 0:
        return [NStarFit(math.nan, b0, b1, r2,
                         reason=f"fitted slope b1={b1:.3g} >= 0: the quantiles do not shrink "
                                "with n")] * eps_arr.size
    out = []
    for e in eps_arr:
        out.append(NStarFit(float(math.exp(b1 * math.log(e) + b0)), float(b0), float(b1), r2))
    return out


def lin_z(alpha: float) -> float:
    """Inverse of Lin's approximation of the normal CDF, ``z(alpha)`` (SPEC A7 step 5)."""
    alpha = check_probability("alpha", alpha)
    if alpha < 0.6:
        warnings.warn(
            f"alpha={alpha}: Lin's approximation is valid for alpha >= 0.6; the closed-form "
            "n* may be inaccurate.", UserWarning, stacklevel=2,
        )
    c0, c1, c2, c3 = config.LIN_C
    return c0 + c1 * math.sqrt(c2 - c3 * math.log(2.0 * (1.0 - alpha)))


@dataclass(frozen=True)
class ApproxTerms:
    """Spectral terms of the closed-form approximation (Appendix C)."""

    L1: float
    L2: float
    a: float
    d: float
    centring: str
    m: int

    @property
    def degenerate(self) -> bool:
        return not (self.L1 > config.DEGENERATE_TOL)


def approx_terms(sample: np.ndarray, kernel: Kernel, centring: str = "uniform", *,
                 gram: np.ndarray | None = None) -> ApproxTerms:
    """Eigenvalue terms L1, L2, a, d of the centred kernel matrix of the empirical distribution.

    Parameters
    ----------
    sample : (N, na) results of one configuration (rankings, or scores for RBF)
    kernel : resolved Kernel
    centring : "uniform" (``C = I - 11'/m``, the paper's) or "weighted"
        (``C_p = I - 1p'`` on both sides, exact for the limit theorem)
    gram : optional (m, m) kernel matrix on the support ``np.unique(sample, axis=0)``
        (the distinct results, in that order), when the caller has it already
    """
    if centring not in ("uniform", "weighted"):
        raise GenexpyInputError(f"centring must be 'uniform' or 'weighted', got {centring!r}.")
    u, _, cnt = support(sample)
    p = cnt / cnt.sum()
    m = u.shape[0]
    K = kernel.gram(u) if gram is None else gram
    # H = C K C' in O(m^2) (K symmetric): uniform C = I - 11'/m subtracts the row and
    # column means and adds the grand mean; weighted C_p = I - 1p' does the same with the
    # p-weighted means K p and p'K p
    if centring == "uniform":
        r = K.mean(axis=1)
        g = float(r.mean())
    else:
        r = K @ p
        g = float(p @ r)
    H = K - r[:, None] - r[None, :] + g
    # lambda = eigenvalues of H diag(p), those of the symmetric S = diag(sqrt p) H diag(sqrt p):
    # sum(lambda) = trace(S) = sum_i p_i H_ii and sum(lambda^2) = ||S||_F^2, no
    # eigendecomposition needed (O(m^2) instead of O(m^3))
    L1 = float(p @ np.diag(H))
    s2 = float(np.einsum("i,ij,j->", p, H * H, p))
    L2 = 3.0 * s2 + (L1**2 - s2)
    if L1 > config.DEGENERATE_TOL and s2 > 0:
        a = (L2 - L1**2) / L1
        d = 2.0 * L1**2 / (L2 - L1**2)
    else:
        a = d = math.nan
    return ApproxTerms(L1, L2, a, d, centring, m)


def _approx_C(terms: ApproxTerms, alpha: float) -> float:
    d = terms.d
    return math.sqrt(2.0 / (9.0 * d)) * lin_z(alpha) + 1.0 - 2.0 / (9.0 * d)


def approx_nstar(terms: ApproxTerms, alpha: float, eps: float) -> tuple[float, str | None]:
    """Closed-form n*: ``log n* = -2 log eps + 3 log C(alpha) + log(a d)`` (SPEC A7)."""
    if terms.degenerate:
        return 1.0, "all results identical under the kernel (L1 = 0): one experiment suffices"
    C = _approx_C(terms, alpha)
    if C <= 0:
        return math.nan, f"C(alpha)={C:.3g} <= 0: the approximation breaks down here"
    return math.exp(-2.0 * math.log(eps) + 3.0 * math.log(C) + math.log(terms.a * terms.d)), None


def approx_quantile(terms: ApproxTerms, alpha: float, n: np.ndarray | float) -> np.ndarray:
    """Approximate alpha-quantile of MMD_n, ``q_n = sqrt(a d C^3 / n)``."""
    n = np.asarray(n, dtype=np.float64)
    if terms.degenerate:
        return np.zeros_like(n)
    C = _approx_C(terms, alpha)
    return np.sqrt(np.maximum(terms.a * terms.d * C**3, 0.0) / n)


def bound_nstar(alpha: float, eps: float, kappa_sup: float = 1.0) -> float:
    """Distribution-free bound (Proposition C.4, Gretton et al. 2012).

    ``n = eps^-2 (sqrt(-4 kappa_sup log(1 - alpha)) + sqrt(2 kappa_sup))^2``.
    """
    alpha = check_probability("alpha", alpha)
    return (math.sqrt(-4.0 * kappa_sup * math.log(1.0 - alpha))
            + math.sqrt(2.0 * kappa_sup)) ** 2 / eps**2


# ---------------------------------------------------------------------------------------
# the cached analysis
# ---------------------------------------------------------------------------------------
@dataclass
class ConfigDistributions:
    """Cached MMD_n samples of one configuration for every kernel."""

    sample: ConfigurationSample
    kernels: list[Kernel]
    ns: np.ndarray  # (k,)
    mmd: np.ndarray  # (nk, k, rep)
    supports: list[tuple[np.ndarray, np.ndarray, np.ndarray]]  # per kernel: K, inv, counts
    approx: dict[tuple[int, str], ApproxTerms] = field(default_factory=dict)


def _resolve_grid(grid, N: int, disjoint: bool, replace: bool) -> np.ndarray:
    if grid is None:
        ns = default_grid(N)
    elif callable(grid):
        ns = np.asarray(grid(N), dtype=np.int64)
    else:
        ns = np.unique(np.asarray(grid, dtype=np.int64))
        if ns.size and ns.min() < 1:
            raise GenexpyInputError(f"grid sizes must be >= 1, got {ns.min()}.")
    if disjoint and not replace:
        ns = ns[2 * ns <= N]
    elif not replace:
        ns = ns[ns <= N]
    return ns


def best_alternative(study: Study) -> str:
    """The alternative with the best (lowest) mean rank over all conditions of the study.

    Ranks are the study's tiers (0 = best, ties share a tier, a missing result the worst
    tier), averaged over every condition of every configuration; a tie goes to the first
    alternative in the study's order. This is a* of ``Borda()`` when a* is not named.
    """
    if not isinstance(study, Study):
        raise GenexpyInputError("study must be a genexpy_nb.Study.")
    total = np.zeros(study.na)
    count = 0
    for s in study.samples():
        total += s.rankings.sum(axis=0)
        count += s.N
    return str(study.alternatives[int(np.argmin(total / max(count, 1)))])


def _default_alternative(kernel: Kernel, study: Study) -> Kernel:
    """``Borda()`` with a* left out -> Borda of the study's best alternative on average."""
    from .kernels import Borda

    if isinstance(kernel, Borda) and kernel.alternative is None:
        import dataclasses

        return dataclasses.replace(kernel, alternative=best_alternative(study))
    return kernel


class GeneralizabilityAnalysis:
    """All configurations x kernels of a study: cached MMD_n distributions and n*.

    Parameters
    ----------
    study : Study
    kernels : list of Kernel (unresolved is fine; each is resolved for the study)
    rep : resampled pairs per sample size (default 200)
    seed : int; the same seed gives the same result. Each configuration draws from its own
        stream ``SeedSequence([seed, config_id])``, so analysing a subset of the
        configurations gives the same numbers for them.
    disjoint, replace : resampling mode (SPEC A5); default the paper's "realistic" one
    grid : None (n = 2, 4, ... < N // 2), a callable ``N -> sizes``, or a sequence of sizes
        (sizes the mode cannot draw for a configuration are skipped there)
    configurations : optional subset of configuration ids (or level tuples/dicts)
    n_jobs : numba threads (None = all cores)
    progress : show a progress bar over configurations
    """

    def __init__(
        self,
        study: Study,
        kernels: Sequence[Kernel],
        *,
        rep: int = config.REP,
        seed: int = 0,
        disjoint: bool = True,
        replace: bool = False,
        grid: Sequence[int] | Callable[[int], np.ndarray] | None = None,
        configurations: Sequence | None = None,
        n_jobs: int | None = None,
        progress: bool = True,
    ) -> None:
        if not isinstance(study, Study):
            raise GenexpyInputError("study must be a genexpy_nb.Study.")
        if isinstance(kernels, Kernel):
            kernels = [kernels]
        kernels = list(kernels)
        if not kernels:
            raise GenexpyInputError("give at least one kernel, e.g. [Jaccard(k=1), Mallows()].")
        for k in kernels:
            if not isinstance(k, Kernel):
                raise GenexpyInputError(
                    f"kernels must be Kernel objects (Jaccard(), Mallows(), Borda('a'), RBF()),"
                    f" got {k!r}; strings can be parsed with genexpy_nb.parse_kernel."
                )
        self.study = study
        kernels = [_default_alternative(k, study) for k in kernels]
        self.kernels = [k.resolve(study.na, study.alternatives) for k in kernels]
        labels = [k.label for k in self.kernels]
        if len(set(labels)) != len(labels):
            raise GenexpyInputError(f"the same kernel is given twice: {labels}.")
        self.rep = check_positive_int("rep", rep, minimum=2)
        if (seed is None or isinstance(seed, bool) or not isinstance(seed, (int, np.integer))
                or seed < 0):
            raise GenexpyInputError(f"seed must be a non-negative integer, got {seed!r}.")
        self.seed = int(seed)
        self.disjoint = bool(disjoint)
        self.replace = bool(replace)
        self.mode = MODES[(self.disjoint, self.replace)]
        self.grid = grid
        def grid_fn(N: int) -> np.ndarray:
            return _resolve_grid(grid, N, self.disjoint, self.replace)

        self.min_N = _min_N_for_two_points(grid_fn)
        ids = (sorted(s.config_id for s in study.samples()) if configurations is None
               else [study.config_id(c) for c in configurations])
        self.config_ids = ids
        self.dists: dict[int, ConfigDistributions] = {}
        # many small BLAS products: one BLAS thread (our own threads split large work)
        from ._numba import one_blas_thread, threads

        with threads(n_jobs) as nthreads, one_blas_thread():
            self.n_jobs = nthreads
            if progress and len(ids) >= 2:
                from tqdm.auto import tqdm

                ids_iter = tqdm(ids, desc="MMD distributions", unit="config", leave=False)
            else:
                ids_iter = ids
            for cid in ids_iter:
                self.dists[cid] = self._compute(study.sample(cid), grid_fn)

    def _compute(self, s: ConfigurationSample, grid_fn) -> ConfigDistributions:
        ns = grid_fn(s.N)
        rng = child_seed(self.seed, s.config_id)
        nk = len(self.kernels)
        out = np.empty((nk, ns.size, self.rep))
        # each kernel on its own support (results with identical kernel rows are merged),
        # its matrix computed once per configuration and reused for every n of the grid
        sups = [kernel_support(k, s.data_for(k)) for k in self.kernels]
        for j, n in enumerate(ns):
            # the same pairs serve every kernel (common random numbers)
            IX, IY = draw_pairs(s.N, int(n), self.rep, disjoint=self.disjoint,
                                replace=self.replace, seed=rng)
            for q, (K, inv, _) in enumerate(sups):
                out[q, j, :] = mmd_from_pairs(K, inv, IX, IY)
        return ConfigDistributions(s, self.kernels, ns, out, sups)

    # ----------------------------------------------------------------------------------
    def kernel_index(self, kernel: Kernel | str | int) -> int:
        """Position of a kernel given as object, label or name."""
        if isinstance(kernel, (int, np.integer)) and not isinstance(kernel, bool):
            if not 0 <= int(kernel) < len(self.kernels):
                raise GenexpyInputError(f"kernel index {kernel} out of range.")
            return int(kernel)
        labels = [k.label for k in self.kernels]
        names = [k.name for k in self.kernels]
        if isinstance(kernel, Kernel):
            kernel = _default_alternative(kernel, self.study)
            key = kernel.resolve(self.study.na, self.study.alternatives).label
            if key in labels:
                return labels.index(key)
        elif isinstance(kernel, str):
            if kernel in labels:
                return labels.index(kernel)
            if names.count(kernel.lower()) == 1:
                return names.index(kernel.lower())
        raise GenexpyInputError(f"kernel {kernel!r} is not in this analysis; it has {labels}.")

    def _terms(self, cd: ConfigDistributions, q: int, centring: str) -> ApproxTerms:
        key = (q, centring)
        if key not in cd.approx:
            k = self.kernels[q]
            data = cd.sample.data_for(k)
            K = cd.supports[q][0]
            # the closed form works on the distinct results (the paper's support); reuse the
            # cached matrix when the kernel's support is those distinct results, in the same
            # order (kernels that merge nothing: Mallows, RBF)
            same = type(k)._class_key is Kernel._class_key
            cd.approx[key] = approx_terms(data, k, centring, gram=K if same else None)
        return cd.approx[key]

    def mmd_samples(self, config, kernel) -> tuple[np.ndarray, np.ndarray]:
        """(ns (k,), MMD samples (k, rep)) of one configuration and kernel."""
        cd = self.dists[self._cid(config)]
        return cd.ns, cd.mmd[self.kernel_index(kernel)]

    def _cid(self, config) -> int:
        cid = self.study.config_id(config)
        if cid not in self.dists:
            raise GenexpyInputError(f"configuration {config!r} was not analysed.")
        return cid

    def nstar(
        self,
        alphas: float | Sequence[float] = config.ALPHAS,
        deltas: float | Sequence[float] = config.DELTAS,
        methods: Sequence[str] = METHODS,
        configurations: Sequence | None = None,
        kernels: Sequence | None = None,
    ) -> pl.DataFrame:
        """n* for every configuration x kernel x alpha* x delta* x method, as a tidy frame.

        Columns: config_id, the design factors, kernel, kernel_label, alpha, delta, eps, N,
        method, nstar, nstar_ceil, generalizable (N >= n*), deficit (nstar_ceil - N),
        b0, b1, r2 (resample fit), reason (why n* is 1 or undefined).
        """
        a_arr = as_float_grid("alphas", alphas)
        for a in a_arr:
            check_probability("alpha", a)
        d_arr = as_float_grid("deltas", deltas)
        methods = [methods] if isinstance(methods, str) else list(methods)
        bad = [m for m in methods if m not in METHODS]
        if bad:
            raise GenexpyInputError(f"unknown method(s) {bad}; choose from {list(METHODS)}.")
        qidx = (range(len(self.kernels)) if kernels is None
                else [self.kernel_index(k) for k in kernels])
        eps_by_k = {q: np.asarray(self.kernels[q].eps(d_arr), dtype=np.float64).reshape(-1)
                    for q in qidx}
        cids = (self.config_ids if configurations is None
                else [self._cid(c) for c in configurations])
        names = [k.name for k in self.kernels]
        labels = [k.label for k in self.kernels]
        na_, nd_ = a_arr.size, d_arr.size
        A = np.repeat(a_arr, nd_)  # alpha-major grid of (alpha, delta)
        D = np.tile(d_arr, na_)
        blocks: list[dict] = []

        def block(cid, q, N, method, nstar, b0=None, b1=None, r2=None, reason=None):
            size = A.size
            nan = np.full(size, np.nan)
            blocks.append({
                "config_id": np.full(size, cid, dtype=np.uint32),
                "kernel": [names[q]] * size, "kernel_label": [labels[q]] * size,
                "alpha": A, "delta": D, "eps": np.tile(eps_by_k[q], na_),
                "N": np.full(size, N, dtype=np.int64), "method": [method] * size,
                "nstar": np.asarray(nstar, dtype=np.float64),
                "b0": nan if b0 is None else b0, "b1": nan if b1 is None else b1,
                "r2": nan if r2 is None else r2,
                "reason": [None] * size if reason is None else reason,
            })

        for cid in cids:
            cd = self.dists[cid]
            N = cd.sample.N
            for q in qidx:
                eps = eps_by_k[q]
                k = self.kernels[q]
                if "resample" in methods:
                    Q = np.atleast_2d(mmd_quantile(cd.mmd[q], a_arr)) if cd.ns.size else None
                    fits = []
                    for ia in range(na_):
                        fits.extend(fit_nstar(cd.ns, Q[ia] if Q is not None else cd.ns, eps,
                                              self.min_N))
                    block(cid, q, N, "resample", [f.nstar for f in fits],
                          np.array([f.b0 for f in fits]), np.array([f.b1 for f in fits]),
                          np.array([f.r2 for f in fits]), [f.reason for f in fits])
                for m, centring in (("approx", "uniform"), ("approx_weighted", "weighted")):
                    if m not in methods:
                        continue
                    terms = self._terms(cd, q, centring)
                    vals = [approx_nstar(terms, float(a), float(e))
                            for a in a_arr for e in eps]
                    block(cid, q, N, m, [v for v, _ in vals],
                          reason=[why for _, why in vals])
                if "bound" in methods:
                    block(cid, q, N, "bound", [bound_nstar(float(a), float(e), k.kappa_sup)
                                               for a in a_arr for e in eps])
        cols = {c: [] for c in ("config_id", "kernel", "kernel_label", "alpha", "delta",
                                "eps", "N", "method", "nstar", "b0", "b1", "r2", "reason")}
        for c in cols:
            parts = [bl[c] for bl in blocks]
            if not parts:
                cols[c] = []
            elif isinstance(parts[0], list):
                cols[c] = [x for p in parts for x in p]
            else:
                cols[c] = np.concatenate(parts)
        frame = pl.DataFrame(cols, schema={
            "config_id": pl.UInt32, "kernel": pl.String, "kernel_label": pl.String,
            "alpha": pl.Float64, "delta": pl.Float64, "eps": pl.Float64, "N": pl.Int64,
            "method": pl.String, "nstar": pl.Float64, "b0": pl.Float64, "b1": pl.Float64,
            "r2": pl.Float64, "reason": pl.String})
        ceil = (pl.when(pl.col("nstar").is_finite())
                .then((pl.col("nstar") - 1e-9).ceil().clip(lower_bound=1).cast(pl.Int64)))
        frame = frame.with_columns(ceil.alias("nstar_ceil")).with_columns(
            (pl.col("N") >= pl.col("nstar_ceil")).alias("generalizable"),
            (pl.col("nstar_ceil") - pl.col("N")).alias("deficit"),
        )
        levels = self.study.configurations.select(["config_id", *self.study.design])
        frame = frame.join(levels, on="config_id", how="left")
        order = ["config_id", *self.study.design, "kernel", "kernel_label", "alpha", "delta",
                 "eps", "N", "method", "nstar", "nstar_ceil", "generalizable", "deficit",
                 "b0", "b1", "r2", "reason"]
        return frame.select(order)

    # ---- frames for charts -----------------------------------------------------------
    def mmd_frame(self, config, kernel) -> pl.DataFrame:
        """Tidy MMD_n samples of one configuration and kernel: (n, mmd)."""
        ns, x = self.mmd_samples(config, kernel)
        return pl.DataFrame({"n": np.repeat(ns, x.shape[1]).astype(np.int64),
                             "mmd": x.ravel()})

    def ngen_frame(self, config, kernel, eps: Sequence[float] | None = None) -> pl.DataFrame:
        """n-generalizability as a function of eps for every n of the grid: (n, eps, ngen)."""
        ns, x = self.mmd_samples(config, kernel)
        k = self.kernels[self.kernel_index(kernel)]
        e = (np.linspace(0.0, k.mmd_max, 101) if eps is None
             else as_float_grid("eps", eps))
        g = ngen(x, e) if ns.size else np.zeros((0, e.size))
        return pl.DataFrame({
            "n": np.repeat(ns, e.size).astype(np.int64),
            "eps": np.tile(e, ns.size),
            "ngen": np.asarray(g).ravel(),
        })

    def quantile_frame(self, config, kernel, alpha: float = config.HEADLINE_ALPHA
                       ) -> pl.DataFrame:
        """alpha-quantiles of MMD_n over the grid with the closed-form ones: (n, q, q_approx)."""
        ns, x = self.mmd_samples(config, kernel)
        cd = self.dists[self._cid(config)]
        terms = self._terms(cd, self.kernel_index(kernel), "uniform")
        q = mmd_quantile(x, float(alpha)) if ns.size else np.zeros(0)
        return pl.DataFrame({"n": ns.astype(np.int64), "q": np.asarray(q, dtype=np.float64),
                             "q_approx": approx_quantile(terms, float(alpha), ns)})

    def centring_comparison(self, alpha: float = config.HEADLINE_ALPHA) -> pl.DataFrame:
        """Which centring of the approximation is closer to the resampled quantiles.

        For every configuration and kernel with a grid, the mean absolute log-ratio between
        the approximate and the resampled alpha-quantiles of MMD_n, for both centrings.
        """
        rows = []
        for cid, cd in self.dists.items():
            if not cd.ns.size:
                continue
            for q, k in enumerate(self.kernels):
                qs = mmd_quantile(cd.mmd[q], float(alpha))
                row = {"config_id": cid, "kernel": k.name, "kernel_label": k.label}
                for centring in ("uniform", "weighted"):
                    t = self._terms(cd, q, centring)
                    qa = approx_quantile(t, float(alpha), cd.ns)
                    ok = (qs > 0) & (qa > 0)
                    row[f"log_error_{centring}"] = (float(np.abs(np.log(qa[ok] / qs[ok])).mean())
                                                   if ok.any() else math.nan)
                rows.append(row)
        df = pl.DataFrame(rows)
        if df.height:
            df = df.with_columns(
                pl.when(pl.col("log_error_weighted") < pl.col("log_error_uniform"))
                .then(pl.lit("weighted")).otherwise(pl.lit("uniform")).alias("closer")
            )
        return df


def analyze(
    study: Study,
    kernels: Sequence[Kernel],
    *,
    alphas: float | Sequence[float] = config.ALPHAS,
    deltas: float | Sequence[float] = config.DELTAS,
    methods: Sequence[str] = METHODS,
    rep: int = config.REP,
    seed: int = 0,
    disjoint: bool = True,
    replace: bool = False,
    grid=None,
    n_jobs: int | None = None,
    progress: bool = True,
    client=None,
) -> pl.DataFrame:
    """The whole study in one call: configurations x kernels x alpha* x delta* x methods.

    See :class:`GeneralizabilityAnalysis` for the parameters and
    :meth:`GeneralizabilityAnalysis.nstar` for the columns of the returned frame.
    ``client`` (needs ``genexpy_nb[cluster]``): a ``dask.distributed`` Client, scheduler
    address, cluster object or ``"local"``; chunks of configurations then run as tasks on the
    cluster (``n_jobs`` numba threads per task, default 1), with the same result, bit for bit
    (each configuration has its own random stream).

    Examples
    --------
    >>> res = analyze(study, [Jaccard(k=1), Mallows()], alphas=0.95, deltas=0.05)  # doctest: +SKIP
    """
    if client is not None:  # genexpy_nb[cluster]: chunks of configurations on the workers
        from .distributed import analyze_on_cluster

        return analyze_on_cluster(client, study, kernels, alphas=alphas, deltas=deltas,
                                  methods=methods, rep=rep, seed=seed, disjoint=disjoint,
                                  replace=replace, grid=grid, n_jobs=n_jobs, progress=progress)
    ga = GeneralizabilityAnalysis(study, kernels, rep=rep, seed=seed, disjoint=disjoint,
                                  replace=replace, grid=grid, n_jobs=n_jobs, progress=progress)
    return ga.nstar(alphas, deltas, methods)
