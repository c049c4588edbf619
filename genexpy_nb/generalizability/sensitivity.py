"""How the kernels' parameters move n* (the paper, Section 4.3 and Appendix B).

Each research question is a kernel with a parameter: Borda's and Mallows' bandwidth ``nu``,
Jaccard's number of top tiers ``k``, the RBF's ``gamma``. The thresholds keep their meaning when
the parameter changes (``eps(delta*)`` is recomputed from the parameter, paper Section 4.3), so
n* at a fixed (alpha*, delta*) shows how sensitive the answer is to the parameter itself.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import polars as pl

from .. import config as _config
from .._validation import GenexpyInputError
from ..study.core import Study
from . import GeneralizabilityAnalysis
from .kernels import RBF, Borda, Jaccard, Mallows

__all__ = ["nstar_by_kernel_parameter", "default_parameter_grid"]

#: multiples of the default bandwidth tried for nu (Borda, Mallows) and gamma (RBF)
_MULTIPLES = (0.25, 0.5, 1.0, 2.0, 4.0)


def default_parameter_grid(na: int, borda_alternative: str | int = 0
                           ) -> dict[str, list[tuple[float, Any]]]:
    """Parameter values around each kernel's default: ``{kernel: [(value, Kernel), ...]}``.

    nu (Borda: default 1/na; Mallows: default 1/C(na, 2)) and gamma (RBF: default 1/na) at
    0.25, 0.5, 1, 2 and 4 times the default; Jaccard's k = 1, 2, 3, 5 (capped below na).
    """
    if not isinstance(na, (int, np.integer)) or na < 2:
        raise GenexpyInputError(f"na must be an integer >= 2, got {na!r}.")
    pairs = math.comb(int(na), 2)
    return {
        "borda": [(m / na, Borda(borda_alternative, nu=m / na)) for m in _MULTIPLES],
        "jaccard": [(float(k), Jaccard(k=k)) for k in (1, 2, 3, 5) if k < na],
        "mallows": [(m / pairs, Mallows(nu=m / pairs)) for m in _MULTIPLES],
        "rbf": [(m / na, RBF(gamma=m / na)) for m in _MULTIPLES],
    }


_PARAMETER = {"borda": "nu", "jaccard": "k", "mallows": "nu", "rbf": "gamma"}
_DEFAULT = {"borda": lambda na: 1.0 / na, "jaccard": lambda na: 1.0,
            "mallows": lambda na: 1.0 / math.comb(na, 2), "rbf": lambda na: 1.0 / na}


def nstar_by_kernel_parameter(
    study: Study,
    configuration: Any,
    *,
    grid: Mapping[str, Sequence[tuple[float, Any]]] | None = None,
    borda_alternative: str | int | None = None,
    alpha: float = _config.HEADLINE_ALPHA,
    delta: float = _config.HEADLINE_DELTA,
    rep: int = _config.REP,
    seed: int = 0,
) -> pl.DataFrame:
    """n* of one configuration for every kernel parameter of a grid (resampled estimate).

    Parameters
    ----------
    study : Study
    configuration : a configuration of the study (id, level dict or level tuple)
    grid : ``{kernel name: [(value, Kernel), ...]}``; default :func:`default_parameter_grid`
    borda_alternative : a* for the default grid's Borda kernels (default: the study's first
        alternative)
    alpha, delta : the requirements alpha*, delta* (default the paper's 0.95, 0.05)
    rep, seed : resampling repetitions and seed (same seed, same result)

    Returns
    -------
    polars.DataFrame
        One row per (kernel, value): kernel, parameter, value, default (the package's default
        parameter), eps, N, nstar, b1, r2, reason.
    """
    if not isinstance(study, Study):
        raise GenexpyInputError("study must be a genexpy_nb.Study.")
    na = study.na
    if grid is None:
        a_star = study.alternatives[0] if borda_alternative is None else borda_alternative
        grid = default_parameter_grid(na, a_star)
    rows = []
    for name, entries in grid.items():
        if name not in _PARAMETER:
            raise GenexpyInputError(f"grid: unknown kernel {name!r}; use "
                                    f"{sorted(_PARAMETER)}.")
        entries = list(entries)
        if not entries:
            continue
        kernels = [k for _, k in entries]
        ga = GeneralizabilityAnalysis(study, kernels, rep=rep, seed=seed,
                                      configurations=[configuration], progress=False)
        res = ga.nstar(alpha, delta, ["resample"])
        default = _DEFAULT[name](na)
        for q, (value, _) in enumerate(entries):
            r = res.filter(pl.col("kernel_label") == ga.kernels[q].label).row(0, named=True)
            rows.append({"kernel": name, "parameter": _PARAMETER[name], "value": float(value),
                         "default": bool(np.isclose(value, default)), "eps": r["eps"],
                         "N": r["N"], "nstar": r["nstar"], "b1": r["b1"], "r2": r["r2"],
                         "reason": r["reason"]})
    return pl.DataFrame(rows, schema_overrides={"reason": pl.String})
