"""Leaderboards: how sure the order of a board is.

An analysis room (io → study → **analyses** → answers → surfaces):

* ``rank_uncertainty`` — :func:`~genexpy_nb.rank_probabilities`,
  :func:`~genexpy_nb.rank_intervals`, :func:`~genexpy_nb.top_group`: the distribution of
  each alternative's place when the conditions are resampled (marginal, one at a time).
"""
