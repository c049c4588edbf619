"""``python -m genexpy_nb.seedpools.manifest [FOLDER]``: rewrite POOLS.md/.json of FOLDER.

(A module of its own so that ``python -m`` does not re-run a module the package has already
imported.)
"""

from __future__ import annotations

from .pools import main

if __name__ == "__main__":
    raise SystemExit(main())
