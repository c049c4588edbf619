"""Moved: the CD diagram's drawing is :mod:`genexpy_nb.charts.cd_figure` since 0.2.

Importing this module still works and warns (DeprecationWarning); use
``from genexpy_nb.charts import save_cd_diagram, cd_diagram_svg``.
"""

from __future__ import annotations

import warnings

warnings.warn("genexpy_nb.significance.cd_figure moved to genexpy_nb.charts.cd_figure; "
              "import save_cd_diagram and cd_diagram_svg from genexpy_nb.charts.",
              DeprecationWarning, stacklevel=2)

from ..charts.cd_figure import cd_diagram_svg, save_cd_diagram  # noqa: E402

__all__ = ["cd_diagram_svg", "save_cd_diagram"]
