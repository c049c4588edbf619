"""The roles of a table's columns: one vocabulary, its aliases and its old names.

Every entry point that reads a results table names the columns with the same words:

* ``alternatives=`` — the column of the compared alternatives (models, encoders, LLMs);
* ``target=`` — the column of the score;
* ``blocks=`` / ``generalize=`` — the columns whose levels are the conditions (datasets,
  tasks) the results are ranked within and generalized over: ``blocks=`` is the name of
  the comparison, the tests and the aggregates (Friedman's blocks), ``generalize=`` the
  name of :class:`~genexpy_nb.Study` and the report; either is accepted where the other is;
* ``average_over=`` — replicate columns (seed, fold) averaged first;
* ``order=`` — a list of levels of ``alternatives`` (which alternatives, in which order).

Aliases (no warning, documented): scikit-posthocs' ``y_col``, ``block_col``, ``group_col``
for ``target``, ``blocks``, ``alternatives``; rliable's ``task=`` for ``blocks=``. Old names
(a :class:`DeprecationWarning` naming the new one, removed in version 0.4): a list of
levels passed to ``alternatives=`` of the significance functions (now ``order=``) and
``analyze(methods=)`` (now ``estimators=``).
"""

from __future__ import annotations

import warnings
from typing import Any

from .._validation import GenexpyInputError


def _same(a: Any, b: Any) -> bool:
    """Whether two values given for one role are the same (lists compared element-wise)."""
    try:
        return bool(a == b)
    except (TypeError, ValueError):  # e.g. NumPy arrays of other shapes or element-wise ==
        return list(a) == list(b)


def alias(name: str, value: Any, alias_name: str, alias_value: Any, where: str) -> Any:
    """Return a role given under its name or under its alias (both: they must agree).

    Parameters
    ----------
    name, alias_name : str
        The keyword and its alias (``"target"``, ``"y_col"``).
    value, alias_value : Any
        What the caller passed to each (None: not given).
    where : str
        The public function's name, for the message.

    Returns
    -------
    Any
        The value given (None when neither was).

    Raises
    ------
    GenexpyInputError
        When both are given and differ.
    """
    if alias_value is None:
        return value
    if value is None or _same(value, alias_value):
        return alias_value
    raise GenexpyInputError(
        f"{where}: {name}={value!r} and its alias {alias_name}={alias_value!r} name "
        f"different columns; pass one of them.")


def renamed(old_name: str, old_value: Any, new_name: str, new_value: Any, where: str,
            *, advice: str | None = None, stacklevel: int = 4) -> Any:
    """Return the value of a renamed keyword given under its old name, with a warning.

    Parameters
    ----------
    old_name, new_name : str
        The deprecated keyword and the one replacing it.
    old_value, new_value : Any
        What the caller passed to each (None: not given).
    where : str
        The public function's name, for the messages.
    advice : str, optional
        The warning's advice (default ``"pass new_name=... instead"``).
    stacklevel : int
        Of the warning: 4 points at the caller of a public function that calls a helper
        that calls this one.

    Returns
    -------
    Any
        The value (``new_value`` when the old keyword was not given).

    Raises
    ------
    GenexpyInputError
        When both are given and differ.
    """
    if old_value is None:
        return new_value
    warnings.warn(
        f"{where}: {advice or f'{old_name}= is renamed; pass {new_name}=... instead'} "
        f"(the old form will be removed in version 0.4).",
        DeprecationWarning, stacklevel=stacklevel)
    if new_value is not None and not _same(new_value, old_value):
        raise GenexpyInputError(
            f"{where}: {old_name}= (old name) and {new_name}= differ; pass only "
            f"{new_name}=.")
    return old_value


def score_roles(target: str | None, blocks: str | None, alternatives: Any,
                y_col: str | None, block_col: str | None, group_col: str | None,
                func: str) -> dict[str, Any]:
    """Return the columns of scores in scikit-posthocs' names, and the list of levels.

    For the CD diagrams, whose ``order=`` is the labels' order: ``alternatives`` names the
    column of the alternatives (a string) or lists their levels (the ``order`` of
    :func:`~genexpy_nb.significance.critical_difference`).

    Parameters
    ----------
    target, blocks, alternatives : optional
        The roles as the caller named them.
    y_col, block_col, group_col : str, optional
        Their aliases (scikit-posthocs' names).
    func : str
        The public function's name, for the messages.

    Returns
    -------
    dict
        ``y_col``, ``block_col``, ``group_col`` and ``alternatives`` (the levels or None).
    """
    levels = None if alternatives is None or isinstance(alternatives, str) else alternatives
    column = alternatives if isinstance(alternatives, str) else None
    return dict(y_col=alias("target", target, "y_col", y_col, func),
                block_col=alias("blocks", blocks, "block_col", block_col, func),
                group_col=alias("alternatives", column, "group_col", group_col, func),
                alternatives=levels)
