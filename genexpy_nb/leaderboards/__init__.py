"""Leaderboards: rank sets that hold for the whole board, tiers, Bradley-Terry ratings.

- :func:`rank_sets`: the places each alternative can hold, simultaneously (Mogstad, Romano,
  Shaikh & Wilhelm 2023) or one at a time, and the tiers they induce;
- :func:`tiers`: the tiers, and for every cut not yet shown the conditions that would show
  it (the plan's rule applied to the same simultaneous family);
- :func:`bradley_terry`: Bradley-Terry (Elo-scale) ratings from battles or from a study's
  per-condition pairwise results, with bootstrap intervals and rank sets.
"""

from .battles import bradley_terry
from .sets import rank_sets
from .tier_plan import tiers

__all__ = ["bradley_terry", "rank_sets", "tiers"]
