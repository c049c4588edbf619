"""Names that moved from :mod:`genexpy_nb.significance` to :mod:`genexpy_nb.charts`.

Drawing the critical-difference diagram is not statistics: ``save_cd_diagram`` and
``cd_diagram_svg`` live in :mod:`genexpy_nb.charts` (``charts/cd_figure.py``) since 0.2.
Importing them from here still works and warns (DeprecationWarning); the aliases go in a
later release. This is the one place where the statistics package reaches the charts.
"""

from __future__ import annotations

import importlib
import warnings
from typing import Any


def moved(name: str, new: str) -> Any:
    """Return the object ``new`` (``"package.module.name"``), with a DeprecationWarning.

    The warning names the old name ``genexpy_nb.significance.<name>`` and where it moved.
    """
    warnings.warn(
        f"genexpy_nb.significance.{name} moved to {new}; import it from there (the old "
        "name will be removed in a later release).", DeprecationWarning, stacklevel=3)
    return resolve(new)


def resolve(new: str) -> Any:
    """Return the object named ``new`` (``"package.module.name"``), imported on demand.

    Imported by name, so that the statistics package holds no import of the charts.
    """
    module, _, attr = new.rpartition(".")
    return getattr(importlib.import_module(module), attr)
