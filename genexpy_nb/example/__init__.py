"""The example study shipped with the package, and the demo that analyses it.

* :mod:`genexpy_nb.example.study` — 8 scikit-learn classifiers on 80 datasets (real and
  synthetic), the shipped results table and how to run it again (``run_experiments``);
* :mod:`genexpy_nb.example.conditions` — the 80 experimental conditions (datasets, sizes);
* :mod:`genexpy_nb.example.demo` — ``genexpy-nb demo``: the whole analysis end to end.
"""
