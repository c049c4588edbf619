"""Progress bars: where they are shown, decided in one place.

Every progress bar of the package is a ``tqdm.auto`` bar made by :func:`tqdm` here. A bar is
drawn in a notebook (a widget) and in a terminal (on stderr); when stderr is not a terminal
(a log file, a pipe, CI), it is left out, so that a log holding both outputs reads as the
answer alone instead of bars interleaved with it. ``GENEXPY_NB_PROGRESS=1`` (or ``true``,
``yes``, ``on``) shows the bars there too, ``GENEXPY_NB_PROGRESS=0`` (``false``, ``no``,
``off``) hides them everywhere; another value is an error naming the variable. A function's
``progress=False`` always hides its bar.
"""

from __future__ import annotations

import sys
from typing import Any


def bars_shown() -> bool:
    """Say whether progress bars are drawn in this process (see the module's description).

    Returns
    -------
    bool
        True in a notebook and when stderr is a terminal, unless ``GENEXPY_NB_PROGRESS``
        says otherwise (true: always, false: never).
    """
    from ._validation import env_flag

    asked = env_flag("GENEXPY_NB_PROGRESS", None)
    if asked is not None:
        return asked
    from tqdm.autonotebook import tqdm as chosen
    from tqdm.std import tqdm as plain

    if chosen is not plain:  # a notebook's kernel: a widget, not a line on stderr
        return True
    stream = sys.stderr
    return bool(stream is not None and hasattr(stream, "isatty") and stream.isatty())


def tqdm(*args: Any, disable: bool = False, **kwargs: Any):
    """Make a ``tqdm.auto`` bar, left out where :func:`bars_shown` says so.

    Parameters
    ----------
    *args, **kwargs
        What ``tqdm.auto.tqdm`` takes (the iterable, ``total``, ``desc``, ...).
    disable : bool, default False
        Hide this bar in any case (a function's ``progress=False``).

    Returns
    -------
    tqdm.auto.tqdm
        The bar (a disabled one passes the iterable through and draws nothing).
    """
    from tqdm.auto import tqdm as auto

    return auto(*args, disable=bool(disable) or not bars_shown(), **kwargs)


# ---- costs known up front -----------------------------------------------------------------
def duration_text(seconds: float) -> str:
    """Say a duration in words: "0.4 s", "12 s", "3.5 min", "2.1 h".

    Parameters
    ----------
    seconds : float

    Returns
    -------
    str
    """
    if seconds < 10:
        return f"{seconds:.1f} s"
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


def check_cost(what: str, reference_seconds: float, *, lift: str = "") -> float:
    """Estimate a computation's time on this machine and refuse it beyond the limit in force.

    The one door every analysis that can run for minutes goes through before it starts
    (issue: costs known up front). ``reference_seconds`` is the estimate from the shape
    with :data:`genexpy_nb.config.COSTS` (one core of the reference machine); it is scaled
    by ``config.LIMITS.speed``.

    Parameters
    ----------
    what : str
        The computation and its shape, as the error names it ("the n* analysis of 1
        configuration x 2,000 conditions").
    reference_seconds : float
        The estimate on the reference machine.
    lift : str
        The computation's own way to do less (a smaller ``rep``, fewer kernels), said
        before the ways to lift the limit.

    Returns
    -------
    float
        The estimate on this machine (seconds).

    Raises
    ------
    GenexpyInputError
        When the estimate exceeds the limit (:func:`genexpy_nb.config.max_seconds`); the
        message says the estimate, the limit and how to lift it.
    """
    from . import config
    from ._validation import GenexpyInputError

    try:
        limit = config.max_seconds()
    except ValueError as err:
        raise GenexpyInputError(str(err)) from None
    seconds = float(reference_seconds) * float(config.LIMITS.speed)
    if seconds > limit:
        raise GenexpyInputError(
            f"{what} is estimated to take about {duration_text(seconds)} here, beyond the "
            f"limit of {duration_text(limit)}. {lift + ' ' if lift else ''}To run it "
            "anyway, raise the limit: genexpy_nb.config.LIMITS.max_seconds = SECONDS (or "
            "`with genexpy_nb.config.allow_seconds(SECONDS):` around the call), the "
            "environment variable GENEXPY_NB_MAX_SECONDS, or --max-seconds SECONDS on the "
            "command line (math.inf / 'inf' for no limit).")
    return seconds


def cost_bar(what: str, seconds: float, *, total: float | None = None,
             disable: bool = False, **kwargs: Any):
    """Make a progress bar that shows the time estimate of a computation (:func:`tqdm`).

    Parameters
    ----------
    what : str
        The bar's description; " (about 12 s)" is added.
    seconds : float
        The estimate (from :func:`check_cost`).
    total : float, optional
        The bar's total in the computation's own units (default: the estimate itself, in
        seconds: advance it by each part's estimated seconds).
    disable : bool
        Hide it (a function's ``progress=False``).
    **kwargs
        Further ``tqdm`` arguments.

    Returns
    -------
    tqdm.auto.tqdm
    """
    kwargs.setdefault("leave", False)
    if total is None:
        kwargs.setdefault("bar_format", "{desc}: {percentage:3.0f}%|{bar}| "
                                        "[{elapsed}<{remaining}]")
    return tqdm(total=seconds if total is None else total,
                desc=f"{what} (about {duration_text(seconds)})", disable=disable, **kwargs)
