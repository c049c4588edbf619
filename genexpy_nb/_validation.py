"""Input checks and conversions, in one place.

Public functions call these helpers once, then hand contiguous NumPy arrays to the private
numba kernels. Every error names the offending column or parameter and says how to fix it.
"""

from __future__ import annotations

import math
import os
import textwrap
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
import polars as pl


class GenexpyInputError(ValueError):
    """Bad input to genexpy_nb: the message names the column or parameter and the fix."""


#: the words a boolean environment variable may hold, lower case
TRUE_WORDS = ("1", "true", "yes", "on")
FALSE_WORDS = ("0", "false", "no", "off")


def env_flag(name: str, default: bool | None) -> bool | None:
    """Read a boolean environment variable: the package's one parser of them.

    ``1``, ``true``, ``yes``, ``on`` are true, ``0``, ``false``, ``no``, ``off`` false
    (any case, spaces ignored); unset or empty gives ``default``; anything else is an
    error naming the variable and the words it takes (never a guess: ``GENEXPY_NB_DEBUG=0``
    is false, not "set").

    Parameters
    ----------
    name : str
        The variable.
    default : bool or None
        The value when it is unset or empty.

    Returns
    -------
    bool or None

    Raises
    ------
    GenexpyInputError
        When the value is none of those words.
    """
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return default
    word = raw.strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise GenexpyInputError(
        f"the environment variable {name}={raw[:40]!r} is not understood: set it to 1, true, "
        "yes or on (or 0, false, no, off), or unset it.")


class MissingOptionalDependency(ImportError):
    """An optional dependency (an extra such as ``[train]`` or ``[cluster]``) is not installed.

    The message says what to run.
    """


def to_polars(data: Any, name: str = "data") -> pl.DataFrame:
    """Return ``data`` as a polars DataFrame (a copy-free view where possible).

    Accepts a polars DataFrame or LazyFrame, a pandas DataFrame, a pyarrow Table, or a
    mapping of column name to sequence. The caller's object is never modified.
    """
    if isinstance(data, pl.DataFrame):
        return data
    if isinstance(data, pl.LazyFrame):
        return data.collect()
    mod = type(data).__module__.split(".")[0]
    if mod == "pandas":
        import pandas as pd  # noqa: F401  (only imported when the user already has pandas)

        cols = [str(c) for c in data.columns]
        twice = sorted({c for c in cols if cols.count(c) > 1})
        if twice:
            raise GenexpyInputError(
                f"{name}: the pandas frame has several columns named {twice}; give every "
                "column its own name (df.columns = [...]) or drop the copies, e.g. "
                "df.loc[:, ~df.columns.duplicated()].")
        try:
            out = pl.from_pandas(data, include_index=False)
        except Exception as exc:  # pyarrow raises ArrowInvalid / ArrowTypeError / ...
            raise GenexpyInputError(_pandas_conversion_message(data, name, exc)) from None
        _refuse_bools_among_numbers(data, out, name)
        return out
    if mod == "pyarrow":
        out = pl.from_arrow(data)
        if isinstance(out, pl.Series):
            return out.to_frame()
        return out
    if isinstance(data, dict):
        return pl.DataFrame(data)
    raise GenexpyInputError(
        f"{name}: expected a polars, pandas or pyarrow table, got {type(data).__name__}. "
        "Convert it first, e.g. pl.DataFrame(...) or pl.read_parquet(path)."
    )


#: the largest magnitude of a score: squares and sums of larger ones overflow to inf
SCORE_LIMIT = 1e100
#: integers beyond this are not all exact as float64 (neighbours become equal)
EXACT_INT = 2**53


def check_score_range(values: Any, what: str, *, overflow: bool = True) -> None:
    """Refuse scores that float64 arithmetic cannot hold: overflowing or precision-losing.

    Parameters
    ----------
    values : polars.Series or array-like of numbers
        The scores, in their own dtype (integers before any cast to float).
    what : str
        How the message names them, e.g. ``"target column 'acc'"``.
    overflow : bool
        Also refuse magnitudes above 1e100 (False where only the order of the scores
        matters, as in rankings within a condition).

    Returns
    -------
    None
        Raises :class:`GenexpyInputError` for integers above 2**53 in magnitude (neighbours
        would become equal after the cast every test makes: ties that are not in the data)
        or finite numbers above 1e100 in magnitude (their squares and sums overflow to inf:
        infinite means, NaN interval ends).
    """
    if isinstance(values, pl.Series):
        if values.dtype.is_integer():
            lo, hi = values.min(), values.max()
            _check_exact_int(0 if lo is None else max(abs(int(lo)), abs(int(hi))), what)
            return
        if not values.dtype.is_numeric() or not overflow:
            return
        arr = values.cast(pl.Float64).to_numpy()
    else:
        arr = np.asarray(values)
    if arr.size == 0 or arr.dtype.kind not in "iuf" or (arr.dtype.kind == "f" and not overflow):
        return
    if arr.dtype.kind in "iu":
        _check_exact_int(max(abs(int(arr.min())), abs(int(arr.max()))), what)
        return
    finite = arr[np.isfinite(arr)]
    big = float(np.max(np.abs(finite))) if finite.size else 0.0
    if big > SCORE_LIMIT:
        scale = 10 ** np.floor(np.log10(big))
        raise GenexpyInputError(
            f"{what} holds values up to {big:.3g}: means, differences and variances of "
            "numbers beyond 1e100 overflow to inf (infinite means, NaN interval ends). "
            f"Rescale the scores first (e.g. divide them by {scale:.0e}).")


def _check_exact_int(big: int, what: str) -> None:
    """Refuse integer scores beyond 2**53 (not all exact as float64)."""
    if big > EXACT_INT:
        raise GenexpyInputError(
            f"{what} holds integers up to {big:.3e}, above 2**53 = {EXACT_INT:,}: as the "
            "floating-point numbers every computation uses, neighbouring integers become "
            "equal (ties that are not in the data). Subtract a common offset or rescale "
            "the scores (e.g. divide them by 1e6) first.")


def _refuse_bools_among_numbers(data: Any, out: pl.DataFrame, name: str) -> None:
    """Refuse a pandas object column of numbers holding True/False (read as 1.0/0.0)."""
    for col, dtype in zip(data.columns, data.dtypes):
        if getattr(dtype, "kind", "") != "O" or not out.schema[str(col)].is_numeric():
            continue
        kinds = data[col].map(lambda v: isinstance(v, (bool, np.bool_)))
        if kinds.any():
            first = data[col][kinds].iloc[0]
            raise GenexpyInputError(
                f"{name}: column {str(col)!r} holds numbers and {int(kinds.sum())} boolean "
                f"value(s) (e.g. {first!r}), which would be read as 1.0 and 0.0. Fix those "
                "cells, or make them missing: "
                f"df[{str(col)!r}] = df[{str(col)!r}].map(lambda v: None if isinstance(v, "
                "bool) else v).")


def _pandas_conversion_message(data: Any, name: str, exc: Exception) -> str:
    """Name the pandas columns that cannot become a typed column (mixed value types)."""
    bad = []
    for col in data.columns:
        try:
            pl.from_pandas(data[[col]], include_index=False)
        except Exception:
            bad.append(col)
    if not bad:
        return f"{name}: could not convert the pandas frame ({type(exc).__name__}: {exc})."
    col = bad[0]
    s = data[col]
    tnames = s.map(lambda v: type(v).__name__)
    types = tnames.value_counts()
    kinds = ", ".join(f"{t}: {n}" for t, n in types.items())
    example = s[tnames == types.index[-1]].iloc[0]  # a value of the rarest type
    return (
        f"{name}: column {col!r} mixes value types ({kinds}; e.g. {example!r}), so it cannot "
        "become one typed column. If it holds numbers, convert the rest to NaN first, e.g. "
        f"df[{col!r}] = pd.to_numeric(df[{col!r}], errors='coerce'); if it holds labels, "
        f"df[{col!r}] = df[{col!r}].astype(str)."
        + (f" Other such columns: {bad[1:]}." if len(bad) > 1 else "")
    )


def require_columns(df: pl.DataFrame, columns: Iterable[str], name: str = "data") -> None:
    """Raise if any of ``columns`` is missing from ``df``, listing what is there."""
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise GenexpyInputError(
            f"{name}: column(s) {missing} not found. Available columns: {df.columns}. "
            "Check the spelling of the role you gave, or rename the column."
        )


def require_role_columns(df: pl.DataFrame, roles: dict[str, Sequence[str]]) -> None:
    """Raise if a column a role names is not in ``df``; the message names the role.

    ``roles`` maps each role as the caller writes it (``alternatives=``, ``--target``) to
    the columns it names.
    """
    for role, cols in roles.items():
        missing = [c for c in cols if c not in df.columns]
        if missing:
            raise GenexpyInputError(
                f"{role}: column(s) {missing} not in the table; its columns are "
                f"{df.columns[:20]}{' ...' if df.width > 20 else ''}.")


def check_probability(
    name: str, value: float, *, low: float = 0.0, high: float = 1.0,
    low_open: bool = True, high_open: bool = True,
) -> float:
    """Check that ``value`` is a finite real in the interval (low, high) (open/closed as asked)."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise GenexpyInputError(f"{name} must be a number, got {value!r}.") from None
    lo_ok = v > low if low_open else v >= low
    hi_ok = v < high if high_open else v <= high
    if not (math.isfinite(v) and lo_ok and hi_ok):
        lb = "(" if low_open else "["
        hb = ")" if high_open else "]"
        raise GenexpyInputError(
            f"{name} must lie in {lb}{low}, {high}{hb}, got {value!r}."
        )
    return v


def check_names(name: str, values: Any, allowed: Sequence[Any]) -> list[Any]:
    """Return one name or a list of names as a list; raise unless they are distinct, known."""
    if isinstance(values, str):
        values = [values]
    try:
        vals = list(values)
    except TypeError:
        raise GenexpyInputError(f"{name} must be a list of names from {list(allowed)}.") from None
    bad = [v for v in vals if v not in allowed]
    if bad or not vals or len(set(vals)) != len(vals):
        raise GenexpyInputError(
            f"{name} must be a non-empty list of distinct names from {list(allowed)}, "
            f"got {vals}" + (f" (unknown: {bad})." if bad else "."))
    return vals


def check_positive_number(name: str, value: Any, *, or_none: bool = False) -> float:
    """Return ``value`` as a float; raise unless it is a finite number > 0 (a bool is not).

    ``or_none``: the message says that None is accepted too (the caller lets it through).
    """
    try:
        v = math.nan if isinstance(value, bool) else float(value)
    except (TypeError, ValueError):
        v = math.nan
    if not (math.isfinite(v) and v > 0):
        raise GenexpyInputError(f"{name} must be a positive finite number"
                                f"{' or None' if or_none else ''}, got {value!r}.")
    return v


def check_positive_int(name: str, value: Any, minimum: int = 1) -> int:
    """Check that ``value`` is an integer >= ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise GenexpyInputError(f"{name} must be an integer >= {minimum}, got {value!r}.")
    if int(value) < minimum:
        raise GenexpyInputError(f"{name} must be an integer >= {minimum}, got {value!r}.")
    return int(value)


def float_array(x: Any, message: str, *, copy: bool = False) -> np.ndarray:
    """Return ``x`` as a float64 array (a copy with ``copy``); ``message`` when it is not one.

    ``message`` is that of the :class:`GenexpyInputError` raised for a value NumPy cannot
    read as numbers (text, a ragged list).
    """
    try:
        return np.array(x, dtype=np.float64) if copy else np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError):
        raise GenexpyInputError(message) from None


def as_float_grid(name: str, values: float | Sequence[float], *,
                  unique: bool = False) -> np.ndarray:
    """Return a 1-d float array of finite numbers from a scalar or a sequence (not empty).

    ``unique=True`` drops repeated values (keeping the first of each, in the given order):
    a grid such as ``deltas=[0.05, 0.05]`` then gives each row once.
    """
    try:
        arr = np.atleast_1d(np.asarray(values, dtype=np.float64))
    except (TypeError, ValueError):
        raise GenexpyInputError(f"{name} must be a number or a non-empty list of numbers, "
                                f"got {values!r}.") from None
    if arr.ndim != 1 or arr.size == 0:
        raise GenexpyInputError(f"{name} must be a number or a non-empty list of numbers.")
    if not np.isfinite(arr).all():
        raise GenexpyInputError(f"{name} must hold finite numbers, got "
                                f"{float(arr[~np.isfinite(arr)][0])}.")
    if unique:
        _, first = np.unique(arr, return_index=True)
        arr = arr[np.sort(first)]
    return arr


#: the one meaning of ``seed`` in every random procedure of the package
SEED_MEANING = (
    "seed : int, numpy.random.Generator or None\n"
    "    An int >= 0 fixes every random number of the call: the same seed gives the same\n"
    "    bits. A Generator is drawn from (the call advances it, so the results are as\n"
    "    reproducible as the Generator). None takes fresh entropy from the operating system\n"
    "    (a different result each time).")

Seed = int | np.integer | np.random.Generator | None


def check_choice(name: str, value: Any, choices: Sequence[Any], *, quote: bool = True,
                 sep: str = ",") -> Any:
    """Check that ``value`` is one of ``choices``; the one check of a closed set of options.

    Parameters
    ----------
    name : str
        The option's name in the message (an argument, or a command-line option).
    value : object
        The value given.
    choices : sequence
        The values accepted.
    quote : bool, default True, keyword-only
        List the choices as Python values (``'a', 'b'``), else as plain words (``a, b``).
    sep : str, default ",", keyword-only
        What ends the list of choices before "got" (``";"`` where the list has commas of
        its own meaning, as the comparison workflow words it).

    Returns
    -------
    object
        ``value``.

    Raises
    ------
    GenexpyInputError
        "<name> must be one of 'a', 'b', got 'x'." when ``value`` is not a choice.
    """
    if value not in choices:
        shown = ", ".join(repr(c) if quote else str(c) for c in choices)
        raise GenexpyInputError(f"{name} must be one of {shown}{sep} got {value!r}.")
    return value


def check_seed(seed: Any, name: str = "seed", *,
               accepted: str = "a non-negative integer, a numpy.random.Generator or None"
               ) -> int | np.random.Generator | None:
    """Check a seed (see :data:`SEED_MEANING`); the one check of every seed.

    An int >= 0 (returned as int), a :class:`numpy.random.Generator` or None (returned as
    they are). ``accepted``: what the message says is accepted (a caller that has taken
    Generators apart already says "a non-negative integer or None").
    """
    if seed is None or isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise GenexpyInputError(f"{name} must be {accepted}, got {seed!r}.")
    return int(seed)


def rng_from_seed(seed: Seed) -> np.random.Generator:
    """Return a NumPy Generator from a seed; never the global state.

    An int gives ``default_rng(seed)``, a Generator is used as it is, None gives fresh
    entropy.
    """
    seed = check_seed(seed)
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(seed)


def root_seed(seed: Seed, name: str = "seed") -> int:
    """Return the integer root of a procedure that derives one stream per unit of work.

    The streams are ``SeedSequence([root, unit, ...])`` (see :func:`child_seed`): an int
    is its own root; a Generator gives one integer drawn from it; None, fresh entropy.
    Resolve it once per call, so that every unit of the call shares the root.
    """
    seed = check_seed(seed, name)
    if isinstance(seed, int):
        return seed
    if seed is None:
        return int(np.random.SeedSequence().entropy)
    return int(seed.integers(0, 2**63 - 1))


def child_seed(seed: int | None, *keys: int) -> np.random.Generator:
    """Return a Generator for one unit of work (a configuration, a candidate), stable across runs.

    The stream depends only on ``seed`` and ``keys``, not on the order or the number of
    other units processed, so results for one configuration do not change when the user
    analyses a subset.
    """
    if seed is None:
        return np.random.default_rng()
    return np.random.default_rng(np.random.SeedSequence([int(seed), *map(int, keys)]))



# ---- memory bounds: parameters checked before work starts -------------------------------

#: share of the available memory one call may plan to use
MEMORY_SHARE: float = 0.8
#: needs up to this many bytes are accepted without asking the system what is available
_SMALL_NEED: float = 64 * 2**20


def available_memory() -> int:
    """Return the bytes this process can still allocate.

    The machine's available memory, and the head-room under an address-space limit
    (``ulimit -v``, as HPC login nodes set).
    """
    avail = None
    try:
        import psutil

        avail = int(psutil.virtual_memory().available)
    except (ImportError, OSError):  # pragma: no cover - psutil is a dependency of ipykernel
        try:
            with open("/proc/meminfo", encoding="ascii") as fh:
                for line in fh:
                    if line.startswith("MemAvailable:"):
                        avail = int(line.split()[1]) * 1024
        except OSError:
            pass
    if avail is None:  # pragma: no cover - no way to know: assume a small laptop
        avail = 4 * 2**30
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
        if soft != resource.RLIM_INFINITY:
            avail = min(avail, max(0, soft - _address_space_used()))
    except (ImportError, ValueError, OSError):  # pragma: no cover - Windows
        pass
    return avail


def _address_space_used() -> int:
    """Virtual memory this process has reserved (what an address-space limit counts)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as fh:
            import os

            return int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):  # pragma: no cover - not Linux
        try:
            import psutil

            return int(psutil.Process().memory_info().vms)
        except (ImportError, OSError):
            return 0


def size_text(n: float) -> str:
    """Write a byte count for people: ``'1.5 GB'``, ``'320 MB'``."""
    for unit in ("bytes", "KB", "MB", "GB", "TB", "PB"):
        if abs(n) < 1000 or unit == "PB":
            return f"{n:.0f} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.1f} PB"  # pragma: no cover


def check_memory(param: str, value: int, *, per_unit: float, fixed: float = 0.0,
                 what: str = "this call", minimum: int = 1,
                 available: int | None = None) -> int:
    """Refuse ``param = value`` when the memory it needs exceeds what is available.

    The call would need about ``fixed + per_unit * value`` bytes (an estimate of its
    largest arrays). When that is more than :data:`MEMORY_SHARE` of
    :func:`available_memory`, a :class:`GenexpyInputError` gives the estimate, the memory
    available and the largest feasible value of ``param`` - before anything is allocated,
    instead of a ``MemoryError`` (or the system's out-of-memory killer) from deep inside.
    Returns ``value``.

    Examples
    --------
    >>> check_memory("rep", 200, per_unit=8 * 50, available=10**9)
    200
    >>> check_memory("rep", 10**9, per_unit=8 * 50, available=10**9)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    genexpy_nb._validation.GenexpyInputError: rep=1000000000: ... about 400.0 GB ...
    """
    need = float(fixed) + float(per_unit) * float(value)
    if need <= _SMALL_NEED and available is None:
        return value  # not worth asking the system (~0.1 ms) in inner loops
    avail = available_memory() if available is None else int(available)
    budget = MEMORY_SHARE * avail
    if need <= budget:
        return value
    feasible = int((budget - fixed) // per_unit) if per_unit > 0 else 0
    if feasible >= minimum:
        # a round value (two significant digits) below the limit
        digits = max(len(str(feasible)) - 2, 0)
        feasible = max(minimum, (feasible // 10**digits) * 10**digits)
        fix = (f"use {param}={feasible} or less (about "
               f"{size_text(fixed + per_unit * feasible)})")
    else:
        fix = (f"even {param}={minimum} would need {size_text(fixed + per_unit * minimum)}; "
               "analyse less at once (fewer configurations, kernels or models)")
    raise GenexpyInputError(
        f"{param}={value}: {what} would need about {size_text(need)} of memory, and "
        f"{size_text(avail)} is available; {fix}.")


def check_rep_memory(rep: int, sizes: Sequence[int], grid_fn: Any, n_kernels: int) -> int:
    """Refuse a ``rep`` whose MMD samples would not fit in memory (n-generalizability).

    ``sizes``: the number of conditions N of every configuration analysed; ``grid_fn(N)``:
    the sample sizes n drawn for N. Kept for the whole analysis: ``rep`` float64 values per
    (configuration, kernel, n); while one configuration is drawn: ``rep`` x N uniforms and
    their order, and the pairs' indices (about 48 bytes per (rep, condition)).
    """
    if not sizes:
        return rep
    kept = 8.0 * n_kernels * sum(int(np.size(grid_fn(int(n)))) for n in sizes)
    return check_memory("rep", rep, per_unit=kept + 48.0 * max(sizes), minimum=2,
                        what=f"the resampled MMD values of {len(sizes)} configuration(s) x "
                             f"{n_kernels} kernel(s)")


def check_reserved_names(columns: Iterable[str], name: str = "data") -> None:
    """Refuse role columns named like genexpy_nb's internal ones (``__condition__``, ...).

    Internal columns are named ``__name__``; a user column of that form would be silently
    replaced by (or collide with) one of them.
    """
    bad = [c for c in columns if isinstance(c, str) and len(c) > 4 and c.startswith("__")
           and c.endswith("__")]
    if bad:
        raise GenexpyInputError(
            f"{name}: column name(s) {bad} have the form __name__, which genexpy_nb reserves "
            "for its internal columns; rename them, e.g. "
            f"df.rename({{{bad[0]!r}: {bad[0].strip('_')!r}}}).")


def finite_mean(expr: pl.Expr) -> pl.Expr:
    """``expr.mean()``, also where the sum of finite values overflows (1e308 + 1e308).

    Where the plain mean is finite it is returned unchanged (the same bits); where it is
    infinite although no value is, the mean is taken of the values scaled by their largest
    magnitude (``m * mean(x / m)``), which cannot overflow.
    """
    plain = expr.mean()
    big = expr.abs().max()
    scaled = (expr / big).mean() * big
    return (pl.when(plain.is_infinite() & expr.is_finite().all())
            .then(scaled).otherwise(plain))


def first_true(ok: Callable[[int], bool], lo: int, hi: int) -> int:
    """Return the smallest integer in ``(lo, hi]`` where ``ok`` holds, by bisection.

    ``ok`` must be false at ``lo``, true at ``hi`` and monotone between them.
    """
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi


class _Required:
    """Marker default of keywords the caller must give (shown as ``<required>``)."""

    def __repr__(self) -> str:
        return "<required>"


#: default of ``higher_is_better`` where ranks are taken: the caller must say the direction
REQUIRED: Any = _Required()


def check_direction(higher_is_better: Any, func: str, *, unit: str = "condition",
                    options: tuple[str, str] | None = None,
                    name: str = "higher_is_better") -> bool:
    """Check that the caller said which direction of the score is better.

    Parameters
    ----------
    higher_is_better : bool or REQUIRED
        What the caller gave; :data:`REQUIRED` (the default of the functions that rank
        scores) means nothing was said.
    func : str
        The public function's name, for the message.
    unit : str, default "condition"
        What ranks are taken within, for the message (the comparison workflow's
        ``"block"``).
    options : (str, str), optional
        The two directions as the caller writes them (``opt("higher_is_better", True)``,
        ``opt("higher_is_better", False)``: the command line's flags there); default
        ``func(data, higher_is_better=True)`` and ``higher_is_better=False``.
    name : str, default "higher_is_better"
        The option as the caller writes it, for the message about a value that is not a
        boolean (``opt("higher_is_better")``: ``--higher-is-better`` on the command line).

    Returns
    -------
    bool
        ``higher_is_better`` as a Python bool.

    Raises
    ------
    GenexpyInputError
        When the direction was not given or is not a boolean.
    """
    if higher_is_better is REQUIRED:
        if options is None:
            how = (f", e.g. {func}(data, higher_is_better=True) for scores such as accuracy or "
                   "AUC, higher_is_better=False for errors, losses, run times or ranks "
                   "(1 = best). ")
        else:
            how = (f": {options[0]} for scores such as accuracy or AUC, {options[1]} for "
                   "errors, losses or run times. ")
        raise GenexpyInputError(
            f"{func}: say which direction of the score is better{how}Ranks (1 = best) are "
            f"taken within each {unit}, so the direction decides which alternative comes "
            "out best."
        )
    if not isinstance(higher_is_better, (bool, np.bool_)):
        raise GenexpyInputError(
            f"{name} must be True or False, got {higher_is_better!r}."
        )
    return bool(higher_is_better)


#: a keyword of a family of functions: (name, annotation as written, default)
Keyword = tuple[str, str, Any]


def axis_length(array: str, axis: int, doc: str) -> property:
    """Return a read-only property: the length of axis ``axis`` of the attribute ``array``.

    The sizes a class reads off its matrix (conditions, alternatives, models, test points)
    in one line each: ``N = axis_length("x", 0, "The number of conditions.")``.
    """
    def length(self: Any) -> int:
        return int(getattr(self, array).shape[axis])

    return property(length, doc=doc)


def fill_doc(**fragments: str) -> Callable[[Any], Any]:
    """Put numpydoc entries shared by a family of functions into a function's docstring.

    A line ``{name}`` of the docstring becomes ``fragments[name]``, indented as that line
    (scipy's ``_lib.doccer`` and pandas' ``@doc`` do the same): the words a family shares
    are written once.
    """
    def decorate(fn: Any) -> Any:
        doc = fn.__doc__
        for name, text in fragments.items():
            if doc and "{" + name + "}\n" in doc:  # (no docstring under python -OO)
                head, _, tail = doc.partition("{" + name + "}\n")
                indent = head[len(head.rstrip(" ")):]
                doc = head.rstrip(" ") + textwrap.indent(text, indent) + tail
        fn.__doc__ = doc
        return fn

    return decorate


def shared_keywords(keywords: Sequence[Keyword], name: str, doc: str) -> Callable[[Any], Any]:
    """Give a function the keywords its family shares, in its signature and its docstring.

    The decorated function ends with ``**kwargs`` (typed ``Unpack[...]`` of a TypedDict of
    the same keywords) and its docstring's Parameters section with the line ``{name}``;
    ``inspect.signature`` (``help``, the API reference) then shows the keywords themselves
    and the docstring their entries ``doc``, as scipy's ``_axis_nan_policy`` adds ``axis``
    and ``nan_policy`` to its tests. :func:`keyword_values` reads them.
    """
    import inspect

    par = inspect.Parameter
    fill = fill_doc(**{name: doc})

    def decorate(fn: Any) -> Any:
        sig = inspect.signature(fn)
        params = [p for p in sig.parameters.values() if p.kind is not par.VAR_KEYWORD]
        params += [par(k, par.KEYWORD_ONLY, default=d, annotation=a) for k, a, d in keywords]
        fn.__signature__ = sig.replace(parameters=params)
        return fill(fn)

    return decorate


def keyword_values(given: dict[str, Any], keywords: Sequence[Keyword],
                   where: str) -> dict[str, Any]:
    """Return the values of a family's keywords, defaults filled in, from a ``**kwargs``.

    Any other keyword is refused as Python refuses it (a ``TypeError`` naming ``where``).
    """
    out = {k: given.get(k, d) for k, _, d in keywords}
    for k in given:
        if k not in out:
            raise TypeError(f"{where}() got an unexpected keyword argument {k!r}")
    return out
