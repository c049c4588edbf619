"""Robust aggregates of benchmark results (Agarwal et al., NeurIPS 2021), with intervals.

The interquartile mean, mean, median, optimality gap, probability of improvement and
performance profiles of runs x tasks results, each with a stratified-bootstrap interval
(``aggregates/estimates.py``); a long table or rliable's ``{name: runs x tasks}``
dict is read in one place (``aggregates/_input.py``).

Missing values: there is no ``nan_policy``; a missing, NaN or infinite score is an error
(as ``nan_policy="raise"``), since every run of every task must have a score.
"""

from __future__ import annotations

from ._input import score_matrices
from .estimates import (
    AGGREGATES,
    interval_estimates,
    iqm,
    mean,
    median,
    optimality_gap,
    performance_profile,
    probability_of_improvement,
)

#: the public names of this room (defined in ``estimates.py`` and ``_input.py``)
__all__ = [
    "AGGREGATES",
    "iqm",
    "mean",
    "median",
    "optimality_gap",
    "probability_of_improvement",
    "performance_profile",
    "interval_estimates",
    "score_matrices",
]
