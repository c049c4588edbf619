"""Notebook conveniences: a validation error shown as its message, not a traceback.

``gx.readable_errors()`` (once, in a notebook's first cells) makes IPython show every
:class:`~genexpy_nb.GenexpyInputError` as one block, ``GenexpyInputError: <what is wrong and
the fix>``, instead of a traceback of the package's internals whose last line is the
message. The cell still fails (so "Run all" stops there, and nbval reports it); other
exceptions keep their tracebacks. ``gx.readable_errors(False)`` restores the default.
"""

from __future__ import annotations

from .._validation import GenexpyInputError

__all__ = ["readable_errors"]


def _one_message(shell, etype, value, tb, tb_offset=None) -> list[str]:
    """Show the message alone as the cell's error (IPython's custom-exception handler).

    ``_showtraceback`` is how IPython and ipykernel show a structured traceback: an error
    output in the notebook, with the cell marked failed.
    """
    stb = [f"{etype.__name__}: {value}"]
    shell._showtraceback(etype, value, stb)
    return stb


def readable_errors(on: bool = True) -> bool:
    """Show :class:`~genexpy_nb.GenexpyInputError` as its message in IPython / Jupyter.

    The cell still fails (the error is raised as before); only its display is one message
    instead of a traceback. Other exceptions keep their tracebacks.

    Parameters
    ----------
    on : bool, default True
        True shows input errors as one message; False restores IPython's tracebacks.

    Returns
    -------
    bool
        True when an IPython shell is running (the setting took effect), False otherwise (a
        plain Python session, where nothing changes).

    Examples
    --------
    >>> readable_errors()  # outside IPython nothing changes
    False
    """
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython comes with Jupyter
        return False
    shell = get_ipython()
    if shell is None:
        return False
    if on:
        shell.set_custom_exc((GenexpyInputError,), _one_message)
    else:
        shell.set_custom_exc((), None)
    return True
