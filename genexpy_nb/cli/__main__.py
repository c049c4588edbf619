"""Run the command line as ``python -m genexpy_nb.cli`` (the same as ``genexpy-nb``)."""

import sys

from . import main

sys.exit(main())
