"""Leaderboards: how sure the order of a board is.

An analysis room (io → study → **analyses** → answers → surfaces):

* ``rank_uncertainty`` — :func:`~genexpy_nb.rank_probabilities`,
  :func:`~genexpy_nb.rank_intervals`, :func:`~genexpy_nb.top_group`: the distribution of
  each alternative's place when the conditions are resampled (marginal, one at a time);
* ``sets`` — :func:`rank_sets`: the places each alternative can hold, for the whole board at
  once (Mogstad, Romano, Shaikh & Wilhelm 2023) or one at a time, and the tiers they induce;
* ``tier_plan`` — :func:`tiers`: the tiers, and for every cut not yet shown the conditions
  that would show it (the plan's rule applied to the same simultaneous family);
* ``battles`` — :func:`bradley_terry`: Bradley-Terry (Elo-scale) ratings from battles or
  from a study's per-condition pairwise results, with bootstrap intervals and rank sets.
"""

from .battles import bradley_terry
from .sets import rank_sets
from .tier_plan import tiers

__all__ = ["bradley_terry", "rank_sets", "tiers"]
