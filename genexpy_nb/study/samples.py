"""What a :class:`~genexpy_nb.Study` hands out.

The sample of one configuration (:class:`ConfigurationSample`) and the report of what
filtering the table kept (:class:`FilterReport`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import polars as pl

from .._validation import axis_length

__all__ = ["ConfigurationSample", "FilterReport"]


def _share(x: float) -> str:
    """Write a tolerance as a whole percentage (a label of the report, not a result)."""
    return f"{round(100 * x)}%"


@dataclass(frozen=True)
class FilterReport:
    """What the missing-results policy of paper Sec. 4.1 did to the study. Never silent.

    A :class:`~genexpy_nb.Study` builds it (``study.report``); printing it lists every
    step.

    Parameters
    ----------
    rows_input : int
        Rows of the table given.
    rows_after_held_constant : int
        Rows left after keeping the levels of the held-constant factors.
    rows_invalid_target : int
        Rows dropped for a null, NaN or infinite target (``invalid_target="drop"``).
    results_after_averaging : int
        Results (condition x alternative) after averaging over the stochastic factors.
    conditions_total : int
        Conditions (configuration x generalizability level) before filtering.
    conditions_dropped : int
        Conditions dropped for missing more than ``tol_missing_alternatives`` of the
        alternatives (or all of the alternatives kept).
    alternatives_total : int
        Alternatives before filtering.
    alternatives_dropped : tuple of str
        Alternatives dropped for missing in more than ``tol_missing_conditions`` of the
        remaining conditions.
    cells_total : int
        Results kept: conditions kept x alternatives kept.
    cells_imputed : int
        Missing results among them, imputed as the worst tier of their condition.
    tol_missing_alternatives : float
        The study's tolerance of missing alternatives per condition.
    tol_missing_conditions : float
        The study's tolerance of missing conditions per alternative.
    replicates_expected : int
        The most replicates (runs of the ``average_over`` factors) a result was averaged
        over; 0 without ``average_over``.
    short_replicates : tuple of tuple
        Alternatives with results averaged over fewer replicates than that:
        (alternative, results, fewest replicates, most replicates among them).
    rows_marked_imputed : int
        Rows the Study's ``imputed`` column marked as imputed by the table's source,
        counted as failed runs.
    """

    rows_input: int
    rows_after_held_constant: int
    rows_invalid_target: int
    results_after_averaging: int
    conditions_total: int
    conditions_dropped: int
    alternatives_total: int
    alternatives_dropped: tuple[str, ...]
    cells_total: int
    cells_imputed: int
    tol_missing_alternatives: float
    tol_missing_conditions: float
    #: the most replicates (runs of the ``average_over`` factors) a result was averaged
    #: over; 0 without ``average_over``
    replicates_expected: int = 0
    #: alternatives with results averaged over fewer replicates than that:
    #: (alternative, results, fewest replicates, most replicates among them)
    short_replicates: tuple[tuple[str, int, int, int], ...] = ()
    #: rows the ``imputed`` column marked: counted as failed runs (their target missing)
    rows_marked_imputed: int = 0

    def to_frame(self) -> pl.DataFrame:
        """Return the report as a two-column (item, value) frame, for display or export."""
        rows = [
            ("rows in the input table", self.rows_input),
            ("rows after fixing held-constant factors", self.rows_after_held_constant),
            ("rows dropped for a null/NaN/inf target", self.rows_invalid_target),
            ("results after averaging stochastic factors", self.results_after_averaging),
            ("conditions (configuration x generalizability level)", self.conditions_total),
            (f"conditions dropped (> {_share(self.tol_missing_alternatives)} alternatives "
             "missing)", self.conditions_dropped),
            ("alternatives", self.alternatives_total),
            (f"alternatives dropped (missing in > {_share(self.tol_missing_conditions)} "
             "of the remaining conditions)", len(self.alternatives_dropped)),
            ("results kept (conditions x alternatives)", self.cells_total),
            ("missing results imputed as the worst tier", self.cells_imputed),
        ]
        if self.replicates_expected:
            rows.insert(4, (f"results averaged over fewer than {self.replicates_expected} "
                            "replicates", sum(r[1] for r in self.short_replicates)))
        if self.rows_marked_imputed:
            rows.insert(2, ("rows marked imputed by the source, counted as failed runs",
                            self.rows_marked_imputed))
        return pl.DataFrame({"item": [r[0] for r in rows], "value": [r[1] for r in rows]})

    def replicates_frame(self) -> pl.DataFrame:
        """List the alternatives averaged over fewer replicates than the others.

        Columns: alternative, results (how many of its results), fewest and most
        replicates among them, and ``of``, the full number of replicates.
        """
        rows = self.short_replicates
        return pl.DataFrame({
            "alternative": [r[0] for r in rows], "results": [r[1] for r in rows],
            "fewest_replicates": [r[2] for r in rows], "most_replicates": [r[3] for r in rows],
            "of": [self.replicates_expected] * len(rows)},
            schema={"alternative": pl.String, "results": pl.Int64,
                    "fewest_replicates": pl.Int64, "most_replicates": pl.Int64,
                    "of": pl.Int64})

    def __str__(self) -> str:
        """Return the report as text, with the short replicates and the dropped alternatives."""
        lines = [f"{k}: {v}" for k, v in self.to_frame().iter_rows()]
        if self.short_replicates:
            shown = []
            for alt, n, lo, hi in self.short_replicates[:8]:
                reps = f"{lo}" if lo == hi else f"{lo}-{hi}"
                shown.append(f"{alt} ({n} result{'s' if n != 1 else ''} over {reps})")
            more = len(self.short_replicates) - len(shown)
            lines.append(f"averaged over fewer than {self.replicates_expected} replicates: "
                         + "; ".join(shown) + (f"; and {more} more alternatives" if more else "")
                         + " (require_complete_replicates=True refuses such a table)")
        if self.alternatives_dropped:
            lines.append(f"dropped alternatives: {', '.join(self.alternatives_dropped)}")
        return "\n".join(lines)


@dataclass(frozen=True)
class ConfigurationSample:
    """The observed results of one configuration: N conditions x na alternatives.

    :meth:`Study.sample <genexpy_nb.Study.sample>` hands them out.

    Parameters
    ----------
    config_id : int
        The configuration's id in the study.
    levels : dict
        The design-factor levels of the configuration (``{factor: level}``).
    alternatives : tuple of str
        The alternatives, length na.
    conditions : tuple of str
        The conditions (generalizability levels), length N.
    rankings : numpy.ndarray
        (N, na) int64 rankings with ties, 0 = best tier.
    scores : numpy.ndarray
        (N, na) float64 raw target, with missing results imputed by the worst observed
        score of the condition (for the RBF kernel).
    imputed : numpy.ndarray
        (N, na) bool, where a result was missing.
    """

    config_id: int
    levels: dict
    alternatives: tuple[str, ...]
    conditions: tuple[str, ...]
    rankings: np.ndarray = field(repr=False)
    scores: np.ndarray = field(repr=False)
    imputed: np.ndarray = field(repr=False)
    #: the scores as each kind of score kernel sees them (:meth:`data_for`), made once
    _prepared: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    N = axis_length("rankings", 0, "The number of conditions (rows).")
    na = axis_length("rankings", 1, "The number of alternatives (columns).")

    def data_for(self, kernel) -> np.ndarray:
        """Return the array a kernel works on.

        Rankings, or scores for score kernels (RBF), as the kernel sees them
        (``kernel.prepare``: RBF divides them by their spread); made once per kind of
        kernel.
        """
        if kernel.on != "scores":
            return self.rankings
        key = (type(kernel).__name__, getattr(kernel, "scale", None))
        if key not in self._prepared:
            self._prepared[key] = kernel.prepare(self.scores)
        return self._prepared[key]

    @property
    def label(self) -> str:
        """The design-factor levels as text (``"(all)"`` without design factors)."""
        return ", ".join(f"{v}" for v in self.levels.values()) or "(all)"
