"""Kernels on rankings (Borda, Jaccard, Mallows) and on scores (RBF): the research questions.

Each kernel is a small frozen dataclass. Defaults that depend on the number of alternatives
``na`` (``nu = 1/na`` for Borda, ``nu = 1/C(na, 2)`` for Mallows, ``gamma = 1/na`` for RBF)
are resolved by :meth:`Kernel.resolve`, which a :class:`~genexpy_nb.Study` calls for
you. Every kernel maps an interpretable threshold ``delta`` to the MMD threshold
``eps(delta) = sqrt(2 (kappa_sup - f(delta)))`` (paper Sec. 4.2, 4.4).

References
----------
Matteucci, F., Arzamasov, V., Cribeiro-Ramallo, J., Heyden, M., Ntoutsi, E., Böhm, K.
"Generalizability of experimental studies", Section 4.3 and Appendix B.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from .._codes import unique_rows
from .._validation import GenexpyInputError, check_positive_int, fill_doc
from .._validation import check_positive_number as _positive
from ._gram import (  # the kernel matrices' NumPy/BLAS computations
    _borda_counts,
    _mallows_gram,
    _rbf_gram,
)

#: the ``na`` entry of every kernel's Parameters
_fill_na = fill_doc(na="""\
na : int, optional, keyword-only
    Number of alternatives; None until :meth:`~genexpy_nb.Kernel.resolve` fills it in (a
    :class:`~genexpy_nb.Study` or analysis does it for you).
""")

__all__ = ["Kernel", "Borda", "Jaccard", "Mallows", "RBF", "parse_kernel", "DEFAULT_KERNELS",
           "default_questions", "paper_questions", "score_spread", "rbf_degeneracy",
           "RBF_SCALES"]


@_fill_na
@dataclass(frozen=True)
class Kernel:
    """Base class. Subclasses define the formula, the question and ``eps(delta)``.

    Every kernel maps the interpretable threshold delta* of its research question to the
    MMD threshold ``eps(delta) = sqrt(2 (kappa_sup - f(delta)))`` (paper Sections 4.2 and
    4.4); use a subclass (:class:`Borda`, :class:`Jaccard`, :class:`Mallows`,
    :class:`RBF`) or :func:`parse_kernel`.

    Parameters
    ----------
    {na}
    """

    name: ClassVar[str] = "kernel"
    question: ClassVar[str] = ""
    #: "rankings" (integer tier vectors) or "scores" (raw target values)
    on: ClassVar[str] = "rankings"
    kappa_sup: ClassVar[float] = 1.0

    na: int | None = dataclasses.field(default=None, compare=True, kw_only=True)

    # -- to be provided by subclasses ---------------------------------------------------
    def _gram(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def _f(self, delta: float) -> float:  # pragma: no cover
        raise NotImplementedError

    def _delta_max(self) -> float:
        return 1.0

    def _class_key(self, X: np.ndarray) -> np.ndarray:
        """Rows with equal keys have identical kernel rows (used to shrink the support)."""
        return X

    def prepare(self, data: np.ndarray) -> np.ndarray:
        """Return a configuration's data (rankings, or scores) as the kernel sees them.

        The array itself, except for kernels that rescale scores (:class:`RBF`).
        """
        return data

    def resolve(self, na: int, alternatives: Sequence[str] | None = None) -> Kernel:
        """Return a copy with the defaults that depend on ``na`` (and alternative names) filled in.

        Parameters
        ----------
        na : int
            Number of alternatives (>= 2).
        alternatives : sequence of str, optional
            The alternatives' names, in column order (used by :class:`Borda` to find a*).

        Returns
        -------
        Kernel
            A resolved copy; the kernel itself is left unchanged (the defaults: see each
            kernel's parameters).
        """
        na = check_positive_int("na (number of alternatives)", na, minimum=2)
        return dataclasses.replace(self, na=na, **self._defaults(na, alternatives))

    def _defaults(self, na: int, alternatives: Sequence[str] | None) -> dict:
        """Return the fields :meth:`resolve` fills in besides ``na``."""
        return {}

    @property
    def resolved(self) -> bool:
        """Whether ``na`` is filled in (see :meth:`~genexpy_nb.Kernel.resolve`)."""
        return self.na is not None

    def _need_resolved(self) -> None:
        if not self.resolved:
            raise GenexpyInputError(
                f"{self.label}: the kernel's defaults depend on the number of alternatives; "
                "call kernel.resolve(na, alternatives) first (a Study does this for you)."
            )

    # -- public ------------------------------------------------------------------------
    @property
    def label(self) -> str:
        """Short human label, e.g. ``Jaccard(k=1)``."""
        return self.name

    @property
    def kappa_inf(self) -> float:
        """Smallest value the kernel can take on ``na`` alternatives."""
        return 0.0

    def gram(self, X: np.ndarray, Y: np.ndarray | None = None) -> np.ndarray:
        """Kernel matrix between the rows of X (n, na) and Y (m, na); Y defaults to X.

        Returns
        -------
        (n, m) float64 array, symmetric positive semi-definite when Y is X.
        """
        self._need_resolved()
        X = self._coerce(X, "X")
        Y = X if Y is None else self._coerce(Y, "Y")
        from .._numba import one_blas_thread  # small products: a multi-threaded BLAS stalls

        with one_blas_thread():
            return self._gram(X, Y)

    def __call__(self, x: np.ndarray, y: np.ndarray) -> float:
        """Return the kernel value between two single rankings (or score vectors)."""
        return float(self.gram(np.atleast_2d(x), np.atleast_2d(y))[0, 0])

    def _coerce(self, X: np.ndarray, name: str) -> np.ndarray:
        X = np.asarray(X)
        if X.ndim == 1:
            X = X[None, :]
        if X.ndim != 2:
            raise GenexpyInputError(f"{name} must be a 2-d array (samples, alternatives).")
        if X.shape[1] != self.na:
            raise GenexpyInputError(
                f"{name} has {X.shape[1]} alternatives but {self.label} was resolved for "
                f"na={self.na}; resolve the kernel for this study."
            )
        if self.on == "rankings":
            if not np.issubdtype(X.dtype, np.integer):
                if not np.all(np.isfinite(X)) or not np.all(X == np.round(X)):
                    raise GenexpyInputError(
                        f"{name} must hold integer rankings (tiers 0 = best); got {X.dtype}."
                    )
            X = np.ascontiguousarray(X, dtype=np.int64)
            if X.size and X.min() < 0:
                raise GenexpyInputError(
                    f"{name} holds negative tiers ({int(X.min())}); rankings use tiers "
                    "0 = best, 1, 2, ... (see rank_scores to rank raw scores)."
                )
            return X
        X = np.ascontiguousarray(X, dtype=np.float64)
        if not np.all(np.isfinite(X)):
            raise GenexpyInputError(f"{name} holds NaN or inf scores; impute or drop them.")
        return X

    def check_delta(self, delta: float) -> float:
        """Validate a similarity threshold delta for this kernel."""
        try:
            d = float(delta)
        except (TypeError, ValueError):
            raise GenexpyInputError(f"delta must be a number, got {delta!r}.") from None
        hi = self._delta_max()
        if not (math.isfinite(d) and 0.0 < d <= hi) and not (math.isinf(hi) and d > 0):
            rng = "(0, inf)" if math.isinf(hi) else f"(0, {hi}]"
            raise GenexpyInputError(
                f"delta={delta!r} is outside the range {rng} of {self.label}: "
                "delta is a fraction (of dominated alternatives, of discordant pairs, "
                "1 - Jaccard) for the ranking kernels."
            )
        return d

    def eps(self, delta: float | Sequence[float] | np.ndarray) -> float | np.ndarray:
        """MMD threshold ``eps(delta) = sqrt(2 (kappa_sup - f(delta)))``."""
        try:
            arr = np.atleast_1d(np.asarray(delta, dtype=np.float64))
        except (TypeError, ValueError):
            raise GenexpyInputError(f"delta must be a number or numbers, got {delta!r}.") from None
        out = np.array([math.sqrt(max(2.0 * (self.kappa_sup - self._f(self.check_delta(d))),
                                      0.0)) for d in arr])
        return float(out[0]) if np.ndim(delta) == 0 else out

    def support(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Find the distinct results of a sample *as seen by this kernel*.

        Results with identical kernel rows (same top-k set for Jaccard, same Borda count)
        are merged, so MMD and the approximation work on a support of size m <= N.

        Returns
        -------
        first : (m,) index of one representative result of each class
        inv : (N,) class of each result
        counts : (m,) size of each class
        """
        self._need_resolved()
        X = self._coerce(X, "sample")
        return unique_rows(self._class_key(X))

    @property
    def mmd_max(self) -> float:
        """Upper bound of the MMD, sqrt(2 (kappa_sup - kappa_inf)) (paper Sec. 4.3)."""
        return math.sqrt(2.0 * (self.kappa_sup - self.kappa_inf))


@_fill_na
@dataclass(frozen=True)
class Borda(Kernel):
    """Borda kernel: "Is alternative a* consistently ranked the same?" (paper Sec. 4.2).

    ``b(r) = #{a : r[a] >= r[a*]}`` counts the alternatives weakly dominated by a* (a*
    included); ``k(r1, r2) = exp(-nu |b(r1) - b(r2)|)``, default ``nu = 1/na``.
    ``eps(delta) = sqrt(2 (1 - exp(-nu na delta)))``, delta = difference of the fraction of
    dominated alternatives.

    ``alternative`` names a* (or gives its index). Left out (``Borda()``), a* is derived
    from the data: the alternative with the best mean rank over all conditions of the
    study (:func:`~genexpy_nb.best_alternative`), chosen when the kernel
    is given to a :class:`~genexpy_nb.GeneralizabilityAnalysis`.

    Parameters
    ----------
    alternative : str or int, optional
        The alternative a* (its name, or its column index); None = the best alternative on
        average.
    nu : float, optional
        The kernel's bandwidth (> 0); None = ``1/na``.
    {na}
    index : int, optional, keyword-only
        The column index of a*, filled in by :meth:`~genexpy_nb.Kernel.resolve` (leave it out).

    Examples
    --------
    >>> k = Borda("OHE").resolve(4, ["OHE", "TE", "CE", "WOE"])
    >>> k.index, k.nu, round(float(k.eps(0.25)), 4)
    (0, 0.25, 0.6651)
    """

    name: ClassVar[str] = "borda"
    question: ClassVar[str] = "Is alternative a* consistently ranked the same?"

    alternative: str | int | None = None
    nu: float | None = None
    index: int | None = dataclasses.field(default=None, kw_only=True)

    def _defaults(self, na: int, alternatives: Sequence[str] | None) -> dict:
        """Return the index of a* (looked up by name in ``alternatives``) and ``nu = 1/na``."""
        alt = self.alternative
        if alt is None:
            raise GenexpyInputError(
                "Borda(): a* defaults to the best alternative on average, which needs the "
                "study's data; give the kernel to a GeneralizabilityAnalysis, or name a*: "
                "Borda('name')."
            )
        if isinstance(alt, (int, np.integer)) and not isinstance(alt, bool):
            idx = int(alt)
            if not 0 <= idx < na:
                raise GenexpyInputError(
                    f"Borda: alternative index {idx} out of range for na={na}."
                )
        else:
            names = [str(a) for a in (alternatives or [])]
            if str(alt) not in names:
                raise GenexpyInputError(
                    f"Borda: unknown alternative {alt!r}. The study's alternatives are "
                    f"{names[:12]}{' ...' if len(names) > 12 else ''}; pass one of them as "
                    "Borda(alternative=...). (It may also have been dropped by the "
                    "missing-results filter: see study.report.)"
                )
            idx = names.index(str(alt))
        return dict(nu=1.0 / na if self.nu is None else _positive("Borda nu", self.nu),
                    index=idx)

    @property
    def label(self) -> str:
        """Short human label, e.g. ``Borda(a*=OHE)`` (``nu`` shown when not the default)."""
        nu = "" if self.nu is None or self.na is None or np.isclose(self.nu, 1 / self.na) \
            else f", nu={self.nu:.3g}"
        alt = "best on average" if self.alternative is None else self.alternative
        return f"Borda(a*={alt}{nu})"

    @property
    def kappa_inf(self) -> float:
        """Smallest value the kernel can take on ``na`` alternatives: ``exp(-nu (na - 1))``."""
        self._need_resolved()
        return math.exp(-self.nu * (self.na - 1))

    def _gram(self, X, Y):
        bx = _borda_counts(X, self.index).astype(np.float64)
        by = bx if Y is X else _borda_counts(Y, self.index).astype(np.float64)
        return np.exp(-float(self.nu) * np.abs(bx[:, None] - by[None, :]))

    def _class_key(self, X):
        return _borda_counts(X, self.index)[:, None]

    def _f(self, delta):
        nu_na = 1.0 if self.nu is None else self.nu * self._na_for_eps()
        return math.exp(-nu_na * delta)

    def _na_for_eps(self) -> int:
        self._need_resolved()
        return self.na


@_fill_na
@dataclass(frozen=True)
class Jaccard(Kernel):
    """Jaccard kernel: "Are the best alternatives consistently the same?" (paper Sec. 4.2).

    ``T(r) = {a : r[a] < k}`` (top-k tiers, counted from 0);
    ``k(r1, r2) = |T(r1) & T(r2)| / |T(r1) | T(r2)|``. ``eps(delta) = sqrt(2 delta)``,
    delta = 1 - the Jaccard coefficient of the top tiers.

    Parameters
    ----------
    k : int, default 1
        How many top tiers count as "the best" (tiers counted from 0, so ``k=1`` = the
        alternatives tied for first place).
    {na}

    Examples
    --------
    >>> import numpy as np
    >>> k = Jaccard(k=1).resolve(3)
    >>> k.gram(np.array([[0, 1, 2], [0, 0, 1]]))
    array([[1. , 0.5],
           [0.5, 1. ]])
    >>> round(float(k.eps(0.3)), 4)
    0.7746
    """

    name: ClassVar[str] = "jaccard"
    question: ClassVar[str] = "Are the best alternatives consistently the same?"

    k: int = 1

    def __post_init__(self):
        """Check ``k`` (a positive integer)."""
        check_positive_int("Jaccard k", self.k, minimum=1)

    @property
    def label(self) -> str:
        """Short human label, ``Jaccard(k=...)``."""
        return f"Jaccard(k={self.k})"

    def _gram(self, X, Y):
        # |T(x) & T(y)| as a product of 0/1 matrices (exact in float64), the union from the
        # sizes: one BLAS call, no compiled kernel needed
        tx = (X < self.k).astype(np.float64)
        ty = tx if Y is X else (Y < self.k).astype(np.float64)
        inter = tx @ ty.T
        sx, sy = tx.sum(axis=1), ty.sum(axis=1)
        union = sx[:, None] + sy[None, :]
        union -= inter
        # in place: the union is 0 only between two empty top sets, whose value is 1
        with np.errstate(invalid="ignore"):
            np.divide(inter, union, out=inter)
        inter[np.ix_(sx == 0, sy == 0)] = 1.0
        return inter

    def _class_key(self, X):
        return (X < self.k).astype(np.int8)

    def _f(self, delta):
        return 1.0 - delta


def _decay(kernel: Kernel, rate: float | None, size: Callable[[int], float],
           delta: float) -> float:
    """``f(delta) = exp(-rate size(na) delta)`` of Mallows and RBF (``exp(-delta)`` unset)."""
    if rate is None:
        return math.exp(-delta)
    kernel._need_resolved()
    return math.exp(-rate * size(kernel.na) * delta)


@_fill_na
@dataclass(frozen=True)
class Mallows(Kernel):
    """Mallows kernel: "Are the alternatives ranked in a consistent order?" (paper Sec. 4.2).

    ``n_d = sum_{i<j} |sign(r1[i]-r1[j]) - sign(r2[i]-r2[j])| / 2`` (a reversed pair counts 1,
    tied-vs-strict 1/2); ``k = exp(-nu n_d)``, default ``nu = 1/C(na, 2)``.
    ``eps(delta) = sqrt(2 (1 - exp(-nu C(na,2) delta)))``, delta = fraction of discordant pairs.

    Parameters
    ----------
    nu : float, optional
        The kernel's bandwidth (> 0); None = ``1/C(na, 2)``.
    {na}

    Examples
    --------
    >>> import numpy as np
    >>> k = Mallows().resolve(3)
    >>> K = k.gram(np.array([[0, 1, 2], [2, 1, 0]]))
    >>> round(float(K[0, 1]), 4)  # all 3 pairs reversed: exp(-3 / 3)
    0.3679
    """

    name: ClassVar[str] = "mallows"
    question: ClassVar[str] = "Are the alternatives ranked in a consistent order?"

    nu: float | None = None

    def _defaults(self, na: int, alternatives: Sequence[str] | None) -> dict:
        """Return ``nu = 1/C(na, 2)`` unless given."""
        return dict(nu=1.0 / math.comb(na, 2) if self.nu is None
                    else _positive("Mallows nu", self.nu))

    @property
    def label(self) -> str:
        """Short human label, ``Mallows`` (with ``nu`` when not the default)."""
        if self.nu is None or self.na is None or np.isclose(self.nu, 1 / math.comb(self.na, 2)):
            return "Mallows"
        return f"Mallows(nu={self.nu:.3g})"

    @property
    def kappa_inf(self) -> float:
        """Smallest value the kernel can take on ``na`` alternatives: ``exp(-nu C(na, 2))``."""
        self._need_resolved()
        return math.exp(-self.nu * math.comb(self.na, 2))

    def _gram(self, X, Y):
        return _mallows_gram(X, Y, float(self.nu))

    def _f(self, delta):
        return _decay(self, self.nu, lambda na: math.comb(na, 2), delta)


#: the scalings of the RBF kernel's scores (:class:`RBF`)
RBF_SCALES: tuple[str, ...] = ("spread", "raw")
#: an RBF kernel matrix is degenerate when at least this share of the pairs of distinct
#: score vectors have a kernel value within :data:`RBF_DEGENERATE_TOL` of 0 (or of 1)
RBF_DEGENERATE_SHARE: float = 0.95
RBF_DEGENERATE_TOL: float = 0.01
#: above this many pairs of conditions, the spread is taken over an evenly spaced subset of
#: the conditions (its median moves by a fraction of a percent; memory stays bounded)
_SPREAD_MAX_PAIRS: int = 2_000_000


@_fill_na
@dataclass(frozen=True)
class RBF(Kernel):
    """RBF kernel on scores: "Are the raw performances consistent?" (paper Sec. 4.2).

    ``k(x1, x2) = exp(-gamma ||x1 - x2||^2)`` on the score vectors of two conditions,
    default ``gamma = 1/na``; ``eps(delta) = sqrt(2 (1 - exp(-gamma na delta)))``. Two
    single results are within delta* of each other when their score vectors differ by at
    most ``sqrt(delta*)`` root mean square per alternative, on the scale the kernel sees.

    ``scale`` says what that scale is:

    * ``"spread"`` (default, unit-free): each configuration's scores are divided by their
      spread ``s`` (``genexpy_nb.generalizability.kernels.score_spread``): ``s^2`` is half the
      median, over
      the pairs of conditions, of the mean squared difference of their score vectors. delta*
      is then a mean squared difference in units of ``s^2``: on a configuration,
      delta* = 0.05 means "the scores agree within ``sqrt(0.05) s = 0.22 s`` RMS per alternative"
      (:meth:`threshold`). n* does not change when the target is rescaled or shifted
      (accuracy as a fraction or in percent, an error in seconds or hours).
    * ``"raw"``: the paper's definition (Def. B.4), scores as given. delta* is a mean
      squared difference in the target's units, so n* depends on the units: on accuracy in
      [0, 1], delta* = 0.05 allows 22 points RMS per alternative; on large scores (RMSE,
      model size, percent) every off-diagonal kernel value is ~0 and n* = 2 / eps*^2
      whatever the data (flagged as unreliable by the analysis).

    Parameters
    ----------
    gamma : float, optional
        The kernel's bandwidth (> 0); None = ``1/na``.
    scale : {"spread", "raw"}, default "spread"
        The scale the kernel sees the scores on (see above).
    {na}

    Notes
    -----
    Why this spread. The kernel compares score vectors of different conditions (datasets),
    so the scale that matters is how far apart two conditions' score vectors typically are:
    with ``s`` from the median pairwise distance, the median pair of conditions has kernel
    value ``exp(-2 gamma na)`` (``e^-2 = 0.14`` by default), so the kernel matrix can never be
    degenerate (all ~0 or all ~1), whatever the units and the number of alternatives. For
    normally distributed scores ``s`` is about the standard deviation of an alternative's
    score across conditions; the median (not the mean) keeps a few conditions on another
    scale (an RMSE in the thousands among RMSEs below 1) from setting it. A spread of the
    scores within conditions (how much the alternatives differ) would not do: conditions
    differ much more than alternatives on most benchmarks, and the matrix would be ~I.

    The scaling is applied to each configuration's scores by the analysis
    (:meth:`~genexpy_nb.Kernel.prepare`); :meth:`~genexpy_nb.Kernel.gram` itself computes
    the kernel on the values it is given.

    Examples
    --------
    >>> import numpy as np
    >>> k = RBF(scale="raw").resolve(2)
    >>> round(float(k.gram(np.array([[0.8, 0.7], [0.7, 0.7]]))[0, 1]), 4)  # exp(-0.01 / 2)
    0.995
    """

    name: ClassVar[str] = "rbf"
    question: ClassVar[str] = "Are the raw performances consistent?"
    on: ClassVar[str] = "scores"

    gamma: float | None = None
    scale: str = "spread"

    def __post_init__(self):
        """Check ``gamma`` (positive, when given) and ``scale``."""
        if self.gamma is not None:
            _positive("RBF gamma", self.gamma)
        if self.scale not in RBF_SCALES:
            raise GenexpyInputError(
                f"RBF scale must be one of {list(RBF_SCALES)}, got {self.scale!r}: 'spread' "
                "(default) divides each configuration's scores by their spread, so n* does "
                "not depend on the units; 'raw' is the paper's definition (scores as given)."
            )

    def _defaults(self, na: int, alternatives: Sequence[str] | None) -> dict:
        """Return ``gamma = 1/na`` unless given."""
        return dict(gamma=1.0 / na if self.gamma is None else _positive("RBF gamma", self.gamma))

    @property
    def label(self) -> str:
        """Short human label, ``RBF`` (with ``raw`` and ``gamma`` when not the defaults)."""
        parts = [] if self.scale == "spread" else [self.scale]
        if not (self.gamma is None or self.na is None or np.isclose(self.gamma, 1 / self.na)):
            parts.append(f"gamma={self.gamma:.3g}")
        return f"RBF({', '.join(parts)})" if parts else "RBF"

    def _delta_max(self) -> float:
        return math.inf

    def _gram(self, X, Y):
        return _rbf_gram(X, Y, float(self.gamma))

    def _f(self, delta):
        return _decay(self, self.gamma, lambda na: na, delta)

    def spread(self, scores: np.ndarray) -> float:
        """Return the scale ``s`` of a configuration's scores (N, na).

        ``score_spread`` for ``scale="spread"``, 1 (the target's units) for ``"raw"``.
        """
        if self.scale == "raw":
            return 1.0
        return score_spread(scores)

    def prepare(self, scores: np.ndarray) -> np.ndarray:
        """Return the scores of one configuration as the kernel sees them.

        ``(scores - mean) / s`` for ``scale="spread"``, the very array given for ``"raw"``.
        """
        if self.scale == "raw":
            return scores
        X = np.asarray(scores, dtype=np.float64)
        return (X - X.mean()) / score_spread(X) if X.size else X

    def threshold(self, delta: float | Sequence[float] | np.ndarray, spread: float = 1.0
                  ) -> float | np.ndarray:
        """Express delta* in the target's units: ``s sqrt(delta*)``.

        The RMS score difference per alternative within which two single results count as
        similar.

        ``k(x, y) >= f(delta*)`` exactly when ``||x - y||^2 / na <= delta* s^2`` (for every
        gamma: eps* is defined through the same gamma). ``spread`` is the configuration's
        ``s`` (:meth:`spread`; 1 for ``scale="raw"``, where delta* is already in units).
        """
        d = np.asarray(delta, dtype=np.float64)
        for v in np.atleast_1d(d):
            self.check_delta(float(v))
        out = float(spread) * np.sqrt(d)
        return float(out) if out.ndim == 0 else out


def score_spread(scores: np.ndarray) -> float:
    """Compute the spread ``s`` of a configuration's scores (see :class:`RBF`).

    ``s`` is the root of half the median, over pairs of conditions (rows), of the mean
    squared difference of their score vectors.

    Equal to ``c s`` for the scores ``c x + b`` (c > 0): the unit of the RBF's delta*. When
    more than half of the pairs are identical (median 0), half the mean is used; when all
    rows are identical, or there is a single row, 1 (every kernel value is then 1 anyway).
    Above :data:`_SPREAD_MAX_PAIRS` pairs, the rows at evenly spaced positions are used.
    """
    X = np.asarray(scores, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] < 2 or X.shape[1] == 0:
        return 1.0
    if not np.all(np.isfinite(X)):
        raise GenexpyInputError("scores hold NaN or inf values; impute or drop them.")
    N, na = X.shape
    if N * (N - 1) // 2 > _SPREAD_MAX_PAIRS:
        keep = int((1 + math.isqrt(1 + 8 * _SPREAD_MAX_PAIRS)) // 2)
        X = X[np.linspace(0, N - 1, keep).round().astype(np.int64)]
        N = X.shape[0]
    X = X - X.mean(axis=0)
    d2 = np.empty(N * (N - 1) // 2)
    pos = 0
    for i in range(N - 1):  # row i against the rows after it: the pairs in triu order
        d = X[i + 1:] - X[i]
        d2[pos:pos + d.shape[0]] = np.einsum("ja,ja->j", d, d)
        pos += d.shape[0]
    d2 /= na
    med = float(np.median(d2))
    if med > 0 and math.isfinite(med):
        return math.sqrt(med / 2.0)
    mean = float(d2.mean())
    if mean > 0 and math.isfinite(mean):
        return math.sqrt(mean / 2.0)
    return 1.0


def rbf_degeneracy(K: np.ndarray, counts: np.ndarray) -> str | None:
    """Say why an RBF kernel matrix cannot discriminate, or return None.

    The matrix is on a support, with the counts of its points.

    Over the pairs of conditions whose score vectors differ: when at least
    :data:`RBF_DEGENERATE_SHARE` of them have a kernel value below
    :data:`RBF_DEGENERATE_TOL`, ``MMD_n^2 ~ 2 / n`` for any data and n* ~ 2 / eps*^2 is set
    by delta* alone; when that share is above ``1 - RBF_DEGENERATE_TOL``, the kernel tells no
    two conditions apart and n* measures how wide delta* is, not the data.
    """
    K = np.asarray(K, dtype=np.float64)
    c = np.asarray(counts, dtype=np.float64)
    if K.shape[0] < 2:
        return None
    iu = np.triu_indices(K.shape[0], 1)
    w = c[iu[0]] * c[iu[1]]
    total = float(w.sum())
    if total <= 0:
        return None
    v = K[iu]
    low = float(w[v < RBF_DEGENERATE_TOL].sum()) / total
    high = float(w[v > 1.0 - RBF_DEGENERATE_TOL].sum()) / total
    if low >= RBF_DEGENERATE_SHARE:
        return (f"degenerate RBF kernel matrix: {low:.0%} of the pairs of conditions have a "
                f"kernel value below {RBF_DEGENERATE_TOL:g} (their score vectors are far "
                "apart on the kernel's scale), so MMD_n^2 ~ 2/n whatever the data and n* ~ "
                "2/eps*^2 is set by delta* alone; use RBF() (scores divided by their spread) "
                "instead of the raw scores")
    if high >= RBF_DEGENERATE_SHARE:
        return (f"degenerate RBF kernel matrix: {high:.0%} of the pairs of conditions have a "
                f"kernel value above {1 - RBF_DEGENERATE_TOL:g} (every score vector lies "
                "close to every other on the kernel's scale), so n* reflects how wide "
                "delta* is, not the data; use RBF() (scores divided by their spread) "
                "instead of the raw scores")
    return None


_PARSERS = {"borda": Borda, "jaccard": Jaccard, "mallows": Mallows, "rbf": RBF}


def parse_kernel(text: str) -> Kernel:
    """Build a kernel from a short string, parsed explicitly (never ``eval``).

    Examples: ``"jaccard"``, ``"jaccard:k=3"``, ``"borda:OHE"``, ``"borda:a=OHE,nu=0.1"``,
    ``"borda"`` (a* = the best alternative on average),
    ``"mallows:nu=0.01"``, ``"rbf:gamma=0.5"``, ``"rbf:raw"`` (the paper's RBF on raw
    scores, also ``"rbf:scale=raw"``).

    Parameters
    ----------
    text : str
        ``name`` or ``name:parameters``: the name (``jaccard``, ``borda``, ``mallows``,
        ``rbf``; any case), then comma-separated ``key=value`` pairs (Borda's a* and RBF's
        scale may be given bare).

    Returns
    -------
    Kernel
        The kernel, not yet resolved (its ``na``-dependent defaults are filled in by the
        analysis).

    Examples
    --------
    >>> parse_kernel("jaccard:k=3")
    Jaccard(na=None, k=3)
    >>> parse_kernel("borda:a=OHE,nu=0.1")
    Borda(na=None, alternative='OHE', nu=0.1, index=None)
    """
    if not isinstance(text, str) or not text.strip():
        raise GenexpyInputError(f"kernel must be a non-empty string, got {text!r}.")
    name, _, params = text.strip().partition(":")
    name = name.strip().lower()
    if name not in _PARSERS:
        raise GenexpyInputError(
            f"unknown kernel {name!r}; choose one of {sorted(_PARSERS)} "
            "(e.g. 'jaccard:k=1', 'borda:OHE', 'mallows', 'rbf')."
        )
    kwargs: dict[str, object] = {}
    for part in filter(None, (p.strip() for p in params.split(","))):
        key, eq, val = part.partition("=")
        if not eq and name == "rbf" and part.strip().lower() in RBF_SCALES:
            kwargs["scale"] = part.strip().lower()
            continue
        if not eq:
            if name != "borda" or "alternative" in kwargs:
                raise GenexpyInputError(f"cannot parse kernel parameter {part!r} in {text!r}.")
            kwargs["alternative"] = part
            continue
        key = key.strip().lower()
        val = val.strip()
        if name == "borda" and key in {"a", "alternative", "a*"}:
            kwargs["alternative"] = val
        elif name == "jaccard" and key == "k":
            try:
                kwargs["k"] = int(val)
            except ValueError:
                raise GenexpyInputError(f"Jaccard k must be an integer, got {val!r}.") from None
        elif name == "rbf" and key == "scale":
            kwargs["scale"] = val.lower()
        elif (name, key) in {("borda", "nu"), ("mallows", "nu"), ("rbf", "gamma")}:
            kwargs[key] = _positive(f"{name} {key}", val)
        else:
            raise GenexpyInputError(f"unknown parameter {key!r} for kernel {name!r}.")
    return _PARSERS[name](**kwargs)


def default_questions() -> list[Kernel]:
    """Return the research questions asked when none are named (the one definition).

    ``Jaccard(k=1)`` (are the best alternatives the same?) and ``Mallows()`` (is the order
    the same?): the default of :func:`~genexpy_nb.report`, ``genexpy-nb nstar``, the
    subset search of the evals and the demo's growing study.

    Returns
    -------
    list of Kernel
        ``[Jaccard(k=1), Mallows()]``, new objects at each call.
    """
    return [Jaccard(k=1), Mallows()]


def paper_questions(borda_alternative: str | int | None = None) -> list[Kernel]:
    """Return the paper's four research questions (Sec. 4.2; the one definition).

    Parameters
    ----------
    borda_alternative : str or int, optional
        a* of the Borda question; left out, ``Borda()`` takes the study's best alternative on
        average when it is analysed.

    Returns
    -------
    list of Kernel
        ``[Borda(a*), Jaccard(k=1), Mallows(), RBF()]``, new objects at each call.
    """
    return [Borda(borda_alternative), *default_questions(), RBF()]


def DEFAULT_KERNELS(borda_alternative: str | int | None = None) -> list[Kernel]:
    """Return the paper's four research questions (Borda only when an alternative is given).

    :func:`paper_questions` without the Borda question when ``borda_alternative`` is None.
    """
    ks = paper_questions(borda_alternative)
    return ks if borda_alternative is not None else ks[1:]
