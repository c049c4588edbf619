"""The one number formatter: every number a user reads is written here.

Each kind of number has one rendering, decided once and used by every output (terminal,
Markdown, HTML, LaTeX, the notebook's displays and the command line); the tidy tables
(CSV, Parquet) keep full precision:

* :func:`count` — n* and every count of conditions derived from it, **rounded up** (n* is
  the number of conditions needed: 5.2 needs 6); :func:`count_interval` its interval,
  both ends rounded up (``4-14``), so a value inside the interval stays inside it;
* :func:`pvalue` — three decimals, ``< 0.001`` below (APA style);
* :func:`statistic` — a test statistic, two decimals;
* :func:`rank` — a mean rank or an expected place, two decimals;
* :func:`effect` — an effect size on a bounded scale (Cliff's delta), signed, two decimals;
* :func:`prob` — a probability (P(best), the Bayesian test's), at most three decimals;
* :func:`number` — any other measured quantity (scores, aggregates, spreads, ratios),
  three significant digits; :func:`interval` a ``[low, high]`` pair of them;
* :func:`share` — a share of a whole as a percentage (``20%``);
* :func:`setting` — a value the user gave (alpha*, delta*, a rope), as given (``0.05``);
* :func:`seconds` — a duration (``1.2 s``).

Infinite values read ``infinity``, missing ones (None, NaN) ``-``. The gate
``tests/answers/test_numbers_gate.py`` keeps every other module of the package from
formatting a float for a reader (error messages and the charts' axes aside).
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["count", "count_interval", "pvalue", "statistic", "rank", "effect", "prob",
           "number", "interval", "share", "setting", "seconds", "cell", "MISSING",
           "INFINITY"]

#: how a missing value (None, NaN) reads
MISSING = "-"
#: how an infinite value reads
INFINITY = "infinity"


def _special(x: Any) -> str | None:
    """Return the rendering of None, NaN and infinities, else None."""
    if x is None:
        return MISSING
    try:
        v = float(x)
    except (TypeError, ValueError):
        return str(x)
    if math.isnan(v):
        return MISSING
    if math.isinf(v):
        return INFINITY if v > 0 else "-" + INFINITY
    return None


def count(x: Any) -> str:
    """Write n* (or a count derived from it) as a whole number of conditions, rounded up.

    Parameters
    ----------
    x : float or None
        The estimate (``5.2`` means 6 conditions are needed).

    Returns
    -------
    str
        ``"6"``; ``"infinity"`` where it is infinite, ``"-"`` where missing.

    Examples
    --------
    >>> count(5.2), count(6.0), count(float("inf")), count(None)
    ('6', '6', 'infinity', '-')
    """
    s = _special(x)
    if s is not None:
        return s
    # a float a hair above a whole number (5.000000000001 from a sum) is that number
    v = float(x)
    r = round(v)
    return str(int(r if abs(v - r) < 1e-9 else math.ceil(v)))


def count_interval(lo: Any, hi: Any) -> str:
    """Write the interval of n* as ``low-high``, both ends rounded up (as :func:`count`).

    Parameters
    ----------
    lo, hi : float or None
        The ends.

    Returns
    -------
    str
        ``"4-14"``; ``""`` where an end is missing.

    Examples
    --------
    >>> count_interval(3.4, 13.2)
    '4-14'
    """
    if _special(lo) == MISSING or _special(hi) == MISSING:
        return ""
    return f"{count(lo)}-{count(hi)}"


def pvalue(p: Any) -> str:
    """Write a p-value: three decimals, ``< 0.001`` below that.

    Examples
    --------
    >>> pvalue(0.0321), pvalue(2.2e-53), pvalue(1.0)
    ('0.032', '< 0.001', '1.000')
    """
    s = _special(p)
    if s is not None:
        return s
    return "< 0.001" if float(p) < 0.001 else f"{float(p):.3f}"


def statistic(x: Any) -> str:
    """Write a test statistic (chi-square, F, t, z) with two decimals.

    Examples
    --------
    >>> statistic(268.3512)
    '268.35'
    """
    s = _special(x)
    return s if s is not None else f"{float(x):.2f}"


def rank(x: Any, digits: int = 2) -> str:
    """Write a mean rank, an expected place or a critical difference with two decimals.

    ``digits`` more where two ranks that differ would read alike (the comparison's answer
    asks for them).

    Examples
    --------
    >>> rank(1.9125), rank(10.72204, 4)
    ('1.91', '10.7220')
    """
    s = _special(x)
    return s if s is not None else f"{float(x):.{digits}f}"


def effect(x: Any) -> str:
    """Write an effect size on a bounded scale (Cliff's delta), signed, two decimals.

    Examples
    --------
    >>> effect(0.2), effect(-0.384)
    ('+0.20', '-0.38')
    """
    s = _special(x)
    return s if s is not None else f"{float(x):+.2f}"


def prob(x: Any) -> str:
    """Write a probability with at most three decimals (trailing zeros dropped).

    Examples
    --------
    >>> prob(0.88), prob(0.00125), prob(0.0), prob(1.0)
    ('0.88', '0.001', '0', '1')
    """
    s = _special(x)
    if s is not None:
        return s
    out = f"{float(x):.3f}".rstrip("0").rstrip(".")
    return "0" if out in ("-0", "") else out


def number(x: Any, digits: int = 3, *, zero: float = 0.0) -> str:
    """Write a measured quantity with ``digits`` significant digits.

    Plain decimals from 0.001 up to a million, powers of ten (``1.35e12``) beyond;
    an integer-valued float reads as the integer.

    Parameters
    ----------
    x : float, int or None
        The value.
    digits : int, default 3
        Significant digits.
    zero : float, default 0.0
        Values closer to 0 than this read ``0`` (float error on a bounded scale: a score
        normalised to [0, 1] that should be 0 and is 1e-18).

    Returns
    -------
    str

    Examples
    --------
    >>> number(0.016043), number(7905694155.2), number(2.0), number(-0.5), number(2.3e-14)
    ('0.016', '7.91e9', '2', '-0.5', '2.3e-14')
    """
    s = _special(x)
    if s is not None:
        return s
    if isinstance(x, bool):
        return str(x)
    v = float(x)
    if abs(v) <= zero:
        return "0"
    if 1e-3 <= abs(v) < 1e6:
        out = f"{v:.{digits}g}"
        if "e" not in out:
            return out
        v = float(out)
        return str(int(v)) if v.is_integer() else out
    mant, exp = f"{v:.{digits - 1}e}".split("e")
    mant = mant.rstrip("0").rstrip(".") if "." in mant else mant
    return f"{mant}e{int(exp)}"


def interval(lo: Any, hi: Any, digits: int = 3, *, zero: float = 0.0) -> str:
    """Write an interval of measured quantities as ``[low, high]`` (:func:`number` each).

    ``zero`` as in :func:`number`.

    Examples
    --------
    >>> interval(0.003961, 0.04134)
    '[0.00396, 0.0413]'
    """
    if _special(lo) == MISSING or _special(hi) == MISSING:
        return ""
    return f"[{number(lo, digits, zero=zero)}, {number(hi, digits, zero=zero)}]"


def share(x: Any) -> str:
    """Write a share of a whole (0.2) as a percentage (``20%``).

    Whole percentages, with one decimal below 10 % where it is not whole.

    Examples
    --------
    >>> share(0.2), share(1.0), share(0.055), share(0.0)
    ('20%', '100%', '5.5%', '0%')
    """
    s = _special(x)
    if s is not None:
        return s
    pct = float(x) * 100
    if abs(pct - round(pct)) < 1e-9 or abs(pct) >= 10:
        return f"{round(pct):d}%"
    return f"{pct:.1f}%"


def setting(x: Any) -> str:
    """Write a value the user set (alpha*, delta*, a rope, a tolerance) as given.

    Twelve significant digits at most, trailing zeros dropped: ``1 - 0.95`` (which is
    0.050000000000000044 in floating point) reads ``0.05``.

    Examples
    --------
    >>> setting(0.05), setting(1e-09), setting(2.0), setting(1 - 0.95)
    ('0.05', '1e-09', '2', '0.05')
    """
    s = _special(x)
    if s is not None:
        return s
    return f"{float(x):.12g}"


def seconds(t: float) -> str:
    """Write a duration: one decimal below a minute, whole seconds above (``"1.2 s"``).

    Examples
    --------
    >>> seconds(1.234), seconds(75.4)
    ('1.2 s', '75 s')
    """
    return f"{t:.1f} s" if t < 60 else f"{t:.0f} s"


def cell(v: Any) -> str:
    """Write one cell of a table: None empty, floats as :func:`number`, lists joined.

    Parameters
    ----------
    v : object
        The cell's value.

    Returns
    -------
    str
    """
    if v is None:
        return ""
    if isinstance(v, bool):
        return "yes" if v else ""
    if isinstance(v, float):
        return number(v)
    if isinstance(v, (list, tuple)):
        return ", ".join(map(str, v))
    return str(v)
