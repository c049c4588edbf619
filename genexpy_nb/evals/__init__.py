"""Evaluations of language models and agents: logs in, error bars, plans and subsets out.

* readers of evaluation logs (``genexpy_nb.io.eval_logs``): lm-evaluation-harness
  per-sample logs, inspect_ai logs, the Every Eval Ever schema, time-series
  classification results files;
* :func:`eval_noise`: the variance of the difference of two models' benchmark means split
  into runs, items and tasks, with standard errors at other designs and a planner;
* its ``paired_test`` and ``tie_groups``: paired tests of two models on the same items and
  the leaderboard's groups of models not told apart;
* :func:`run_against_runs`: one run of a model against its other runs (the robust KS test
  and alpha-hat of the seed-variability method), for logs with repeated runs per item;
* :func:`subset_agreement`: does a subset of a benchmark's tasks reach the same
  conclusions as the whole?
"""

from ..io.eval_logs import (
    direction,
    read_eee,
    read_eee_instances,
    read_inspect_log,
    read_lm_eval_samples,
    read_tsml_results,
)
from .noise import EvalNoise, eval_noise
from .runs import run_against_runs
from .subset import SubsetAgreement, subset_agreement

__all__ = ["EvalNoise", "SubsetAgreement", "eval_noise", "subset_agreement", "direction",
           "read_eee", "read_eee_instances", "read_inspect_log", "read_lm_eval_samples",
           "read_tsml_results", "run_against_runs"]
