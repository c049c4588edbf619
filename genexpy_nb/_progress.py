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
