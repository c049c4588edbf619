"""The optional torch dependency of :mod:`genexpy_nb.seedpools` (extra ``[train]``).

Training code imports torch through :func:`require_torch`, so that a missing install gives one
instruction instead of a bare ``ModuleNotFoundError``.
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Iterator
from types import ModuleType

from .._validation import MissingOptionalDependency

__all__ = ["MissingOptionalDependency", "require_sklearn", "require_torch", "torch_threads"]


def require_torch(feature: str) -> ModuleType:
    """Import and return :mod:`torch`, or raise :class:`MissingOptionalDependency`.

    Parameters
    ----------
    feature
        What the caller needs torch for, used in the message
        ("install genexpy_nb[train] for <feature>").
    """
    try:
        return importlib.import_module("torch")
    except ImportError as exc:  # also covers sys.modules["torch"] = None
        raise MissingOptionalDependency(
            f"install genexpy_nb[train] for {feature}: "
            "pip install 'genexpy_nb[train]' (PyTorch and scikit-learn; the CPU build of "
            "torch is enough)."
        ) from exc


def require_sklearn(feature: str) -> ModuleType:
    """Import and return :mod:`sklearn.datasets`, or raise :class:`MissingOptionalDependency`."""
    try:
        return importlib.import_module("sklearn.datasets")
    except ImportError as exc:
        raise MissingOptionalDependency(
            f"install genexpy_nb[train] for {feature}: pip install 'genexpy_nb[train]' "
            "(the 8x8 digits images come with scikit-learn)."
        ) from exc


@contextlib.contextmanager
def torch_threads(n_threads: int) -> Iterator[None]:
    """Run a block with ``torch.set_num_threads(n_threads)``, restoring the old value after."""
    torch = require_torch("training models")
    old = torch.get_num_threads()
    torch.set_num_threads(int(n_threads))
    try:
        yield
    finally:
        torch.set_num_threads(old)
