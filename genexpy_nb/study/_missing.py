"""One policy for the results still missing after a Study's tolerances: ``missing``.

``compare``, ``nstar`` and ``report`` (and :func:`genexpy_nb.report`) take the same choice
with the same default (:data:`MISSING_POLICIES`):

* ``"study"`` (default; paper Sec. 4.1): a missing result is the worst tier of its
  condition, one below every result there: a failed run loses;
* ``"drop-block"``: the conditions with a missing result are left out (complete
  conditions only), after the tolerances;
* ``"available"``: each condition ranks the alternatives that have a result there
  (Skillings & Mack 1981). Only the classical rank tests can do this; n* and the
  conclusions compare complete rankings of every condition, so ``nstar`` refuses it and
  ``report`` uses it for the classical tests only (the page says so).

:func:`drop_incomplete_conditions` applies ``"drop-block"`` to a built Study.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import polars as pl

from .._validation import GenexpyInputError

__all__ = ["MISSING_HELP", "MISSING_POLICIES", "drop_incomplete_conditions", "missing_words",
           "refuse_available"]

#: the choices of ``missing`` (``--missing``), the default first
MISSING_POLICIES: tuple[str, ...] = ("study", "drop-block", "available")

#: ``--missing``'s help, the same in every command
MISSING_HELP = ("a result still missing after the tolerances (a failed run): the worst "
                "tier of its {unit}, as the paper's n* (study); leave its {unit} out "
                "(drop-block); or rank among the available alternatives, Skillings-Mack "
                "(available: the classical rank tests only). Said at the top of the output; "
                "the failed pairs are listed by name")


def missing_words(missing: str, unit: str = "condition") -> str:
    """Say what ``missing`` does to a failed run, in a reader's words.

    Parameters
    ----------
    missing : {"study", "drop-block", "available"}
        The policy.
    unit : str, default "condition"
        What a condition is called ("dataset", "block").

    Returns
    -------
    str
        E.g. "failed or missing runs count as the worst tier of their dataset".
    """
    return "failed or missing runs " + {
        "study": f"count as the worst tier of their {unit}: a failed run loses",
        "drop-block": f"drop their {unit}: complete {unit}s only",
        "available": f"are left out of their {unit}'s ranking in the classical rank tests "
                     "(ranks among the available alternatives, Skillings-Mack)",
    }[missing]


def refuse_available(missing: str, what: str, flag: str = "--missing") -> None:
    """Refuse ``missing="available"`` where every condition must rank every alternative.

    Parameters
    ----------
    missing : str
        The policy given.
    what : str
        The computation that needs complete rankings (e.g. "n*").
    flag : str, default "--missing"
        The option's name in the caller's words (``missing=`` in Python).

    Raises
    ------
    GenexpyInputError
        ``missing`` is "available".
    """
    if missing == "available":
        raise GenexpyInputError(
            f"{flag} available: {what} needs complete rankings of every condition (each "
            "ranking every alternative), so a failed run cannot be left out of one. Use "
            f"{flag} study (a failed run is the worst tier of its condition; the default) "
            f"or {flag} drop-block (leave out the conditions with a failed run); "
            "genexpy-nb compare --missing available ranks among the available alternatives.")


def drop_incomplete_conditions(study):
    """Leave out the conditions with a missing result from every configuration of ``study``.

    The tolerances of the Study ran first (conditions and alternatives beyond them are
    gone); this drops what is still incomplete, so nothing is imputed. Rows keep their
    rankings (a row's tiers depend on that row only).

    Parameters
    ----------
    study : Study
        The study, built with its policy.

    Returns
    -------
    study : Study
        The same roles and settings, each configuration's incomplete conditions left out;
        ``study.report`` counts no imputed result.
    dropped : polars.DataFrame
        ``config_id``, ``condition``: the conditions left out.

    Raises
    ------
    GenexpyInputError
        A configuration would keep fewer than 2 conditions.
    """
    from .samples import ConfigurationSample

    samples, n_rows, dropped = {}, [], []
    for s in study.samples():
        imputed = np.asarray(s.imputed)
        keep = ~imputed.any(axis=1)
        if keep.sum() < 2:
            raise GenexpyInputError(
                f"missing='drop-block': configuration {s.label} keeps {int(keep.sum())} of "
                f"{len(s.conditions)} conditions (the others have a missing result); use "
                "missing='study' (a failed run is the worst tier of its condition).")
        dropped += [(s.config_id, str(c)) for c, k in zip(s.conditions, keep, strict=True)
                    if not k]
        samples[s.config_id] = ConfigurationSample(
            config_id=s.config_id, levels=s.levels, alternatives=s.alternatives,
            conditions=tuple(c for c, k in zip(s.conditions, keep, strict=True) if k),
            rankings=np.ascontiguousarray(np.asarray(s.rankings)[keep]),
            scores=np.ascontiguousarray(np.asarray(s.scores)[keep]),
            imputed=np.zeros((int(keep.sum()), len(s.alternatives)), dtype=bool))
        n_rows.append(int(keep.sum()))
    ids = list(samples)
    by_id = dict(zip(ids, n_rows, strict=True))
    conf = study.configurations.with_columns(
        pl.col("config_id").replace_strict(by_id, return_dtype=pl.Int64).alias("N"),
        pl.lit(0, dtype=pl.Int64).alias("n_imputed"))
    kept_cells = sum(n * len(samples[c].alternatives) for c, n in by_id.items())
    report = replace(study.report, cells_total=kept_cells, cells_imputed=0)
    out = type(study)._assemble(study.settings(), alternatives=study.alternatives,
                                samples=samples, configurations=conf, report=report)
    out.runs, out.marked_imputed = study.runs, study.marked_imputed  # the same table
    kept = set(out.condition_order)  # the table's order of the conditions kept
    out.condition_order = tuple(c for c in study.condition_order if c in kept)
    frame = pl.DataFrame(dropped, schema={"config_id": pl.UInt32, "condition": pl.String},
                         orient="row")
    return out, frame
