"""Find the public results files for the tests and the docs, or download them once.

The README's test and docs commands (``scripts/test.sh``, ``scripts/docs.sh``) run this after
installing the package, and read its one line of output:

* ``found <folder>``: the folder that holds every public file (encoder benchmark, BIG-bench),
  each checked against its published sha256. Looked for, in this order:
  1. ``GENEXPY_NB_DATA_DIR``, when set (a folder you chose; a missing file there is an
     error, exit 2);
  2. ``../shared/data`` beside the clone, when it holds the files (how this project's CI
     lays the data out);
  3. the user's cache folder (``~/.cache/genexpy_nb``), downloading what is not there yet
     from the files' pinned sources, with a progress bar (on stderr).
* ``missing <reason>``: none of that worked (no network): what needs the files is skipped,
  and the commands say so in one line at their end. In CI (``CI`` set) this is an error
  instead (exit 1): CI must test the paper's numbers.

    python scripts/public_data.py               # prints "found <folder>" or "missing <reason>"
    python scripts/public_data.py --into-cache  # Binder's postBuild: the files into the
                                                # user's cache folder, or exit 1

``--into-cache`` makes sure the files end up in the user's cache folder, where the package
looks for them when ``GENEXPY_NB_DATA_DIR`` is not set: copied from the folder found above
(checked by sha256), else downloaded. ``binder/postBuild`` runs it, so that the image holds
the data and the notebooks need no network at launch.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: the data folder this project's CI lays beside the clone
BESIDE = ROOT.parent / "shared" / "data"


def _data_module():
    try:  # the package's io room (0.3's layout), else the module's older path
        from genexpy_nb.io import public as data
    except ImportError:
        from genexpy_nb import data
    return data


def _in_ci() -> bool:
    return os.environ.get("CI", "").lower() not in ("", "0", "false", "no")


def _checked(data, folder: Path) -> bool:
    """Whether ``folder`` holds every public file with its published sha256."""
    old = os.environ.get(data.DATA_DIR_ENV)
    os.environ[data.DATA_DIR_ENV] = str(folder)
    try:
        data.fetch_public_data(progress=False)
        return True
    except data.DatasetUnavailableError:
        return False
    finally:
        if old is None:
            os.environ.pop(data.DATA_DIR_ENV, None)
        else:
            os.environ[data.DATA_DIR_ENV] = old


def find() -> tuple[str, str]:
    """``("found", folder)`` or ``("missing", reason)``; raises SystemExit on a bad setting."""
    data = _data_module()
    chosen = os.environ.get(data.DATA_DIR_ENV)
    if chosen:
        try:
            return "found", str(data.fetch_public_data(progress=False))
        except data.DatasetUnavailableError as exc:
            print(f"public data: {exc}", file=sys.stderr)
            raise SystemExit(2) from None
    if BESIDE.is_dir() and _checked(data, BESIDE):
        return "found", str(BESIDE)
    names = ", ".join(data.PUBLIC_FILES)
    print(f"public data: not beside the clone ({BESIDE}); downloading {names} once into "
          f"{data.download_dir()} (checked by sha256) ...", file=sys.stderr)
    try:
        return "found", str(data.fetch_public_data(progress=True))
    except data.DatasetUnavailableError as exc:
        first = str(exc).split(" (", 1)[0].split(" from http", 1)[0]
        return "missing", (f"{first} (offline?); set {data.DATA_DIR_ENV} to a folder that holds "
                           f"{names}, or run again with network")


def into_cache() -> int:
    """Put every public file into the user's cache folder (see the module's description)."""
    import shutil

    data = _data_module()
    kind, value = find()
    if kind == "missing":
        print(f"public data: {value}", file=sys.stderr)
        return 1
    cache = data.download_dir()
    cache.mkdir(parents=True, exist_ok=True)
    found = Path(value)
    for name in data.PUBLIC_FILES:
        if found.resolve() != cache.resolve():
            shutil.copyfile(found / name, cache / name)
    if not _checked(data, cache):
        print(f"public data: the copies in {cache} are not the published files", file=sys.stderr)
        return 1
    print(f"public data: {', '.join(data.PUBLIC_FILES)} in {cache} (sha256 checked)")
    return 0


def main() -> int:
    if sys.argv[1:] == ["--into-cache"]:
        return into_cache()
    kind, value = find()
    print(f"{kind} {' '.join(value.split())}")
    if kind == "missing":
        print(f"public data: {value}", file=sys.stderr)
        if _in_ci():
            print("public data: CI must have them (../shared/data beside the clone)",
                  file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
