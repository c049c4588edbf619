"""The study: one results table and the role of every column (paper Sec. 3.1; Sec. 4.1).

The second room of the pipeline (io → **study** → analyses → answers → surfaces): a tidy
table read by :mod:`genexpy_nb.io` becomes per-configuration rankings here.

* ``core`` — :class:`Study` (held-constant filters, configurations, the missing-results
  tolerances, conditions, rankings) and :class:`FilterReport`;
* ``ranking`` — scores to rankings with ties (:func:`rank_scores`, the tie tolerance);
* ``samples`` — :class:`ConfigurationSample`, what a study hands out per configuration;
* ``_roles`` — the one vocabulary of a table's roles and its aliases;
* ``_missing`` — the one policy for results still missing after the tolerances.
"""

from .core import (
    ConfigurationSample,
    DirectionWarning,
    FilterReport,
    Study,
    rank_scores,
    tie_tolerance,
)

__all__ = ["Study", "ConfigurationSample", "FilterReport", "rank_scores", "tie_tolerance",
           "DirectionWarning"]
