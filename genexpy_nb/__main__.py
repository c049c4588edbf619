"""Run the command line as ``python -m genexpy_nb`` (the same as ``genexpy-nb``)."""

import sys

from .cli import main

sys.exit(main())
