"""Moved: the CD diagram's drawing is ``genexpy_nb.charts.cd_figure`` since 0.2.

Importing this module still works and warns (DeprecationWarning); use
``from genexpy_nb.charts import save_cd_diagram, cd_diagram_svg``. The two names resolve on
first use (module ``__getattr__``), so the statistics package imports no chart code.
"""

from __future__ import annotations

import warnings
from typing import Any

from ._deprecated import resolve

warnings.warn("genexpy_nb.significance.cd_figure moved to genexpy_nb.charts.cd_figure; "
              "import save_cd_diagram and cd_diagram_svg from genexpy_nb.charts.",
              DeprecationWarning, stacklevel=2)

#: old name -> where it lives now
_MOVED = {"cd_diagram_svg": "genexpy_nb.charts.cd_figure.cd_diagram_svg",
          "save_cd_diagram": "genexpy_nb.charts.cd_figure.save_cd_diagram"}

__all__ = sorted(_MOVED)  # resolved by __getattr__


def __getattr__(name: str) -> Any:
    """Return a moved name from its new module (the module's import already warned)."""
    if name in _MOVED:
        value = resolve(_MOVED[name])
        globals()[name] = value  # later lookups do not come back here
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
