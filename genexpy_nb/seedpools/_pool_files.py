"""Reading the small JSON parts of the seed pools' files, with errors that say what to do.

Shared by the pools (:mod:`genexpy_nb.seedpools.pools`) and the pretrained backbones
(:mod:`genexpy_nb.seedpools.pretrain`): the ``meta`` entry of an ``.npz`` file, and the
configuration an unfinished run left in its folder.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from .._validation import GenexpyInputError


def read_meta(entry: np.ndarray, what: str) -> dict[str, Any]:
    """Read the JSON object of a file's ``meta`` entry; a clear error for anything else."""
    if entry.ndim != 0 or entry.dtype.kind not in "US":
        raise GenexpyInputError(f"{what}: 'meta' must be one JSON string, got an array of "
                                f"shape {entry.shape} and dtype {entry.dtype}.")
    try:
        meta = json.loads(str(entry))
    except (json.JSONDecodeError, RecursionError) as exc:
        raise GenexpyInputError(f"{what}: unreadable 'meta' entry ({exc}).") from None
    if not isinstance(meta, dict):
        raise GenexpyInputError(f"{what}: 'meta' must be a JSON object ({{...}}), got a "
                                f"{type(meta).__name__}; the file is damaged or not a pool.")
    return meta


def read_partial_config(cfg_path: Path) -> dict[str, Any]:
    """Read the configuration of an unfinished run; a damaged file says how to start again."""
    try:
        old = json.loads(cfg_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise GenexpyInputError(
            f"{cfg_path} (the configuration of an unfinished run) is damaged ({exc}); delete "
            f"the folder {cfg_path.parent} (or pass overwrite=True / --overwrite) to start "
            "again.") from None
    if not isinstance(old, dict):
        raise GenexpyInputError(
            f"{cfg_path} (the configuration of an unfinished run) holds a "
            f"{type(old).__name__}, not a JSON object; delete the folder {cfg_path.parent} "
            "(or pass overwrite=True / --overwrite) to start again.")
    return old
