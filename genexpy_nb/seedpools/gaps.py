"""Read the logit gaps of a seed study from an ``.npz`` file: :func:`read_gaps`.

A pool written by :func:`~genexpy_nb.seedpools.save_pool` (or shipped with the package), or
a plain NumPy archive of your own arrays; what ``genexpy-nb seeds`` reads.
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import NamedTuple

import numpy as np

from .._validation import GenexpyInputError
from .._words import opt

__all__ = ["PoolGaps", "read_gaps"]


class PoolGaps(NamedTuple):
    """The gaps of a seed study split into reference and candidates; unpacks as a tuple.

    Parameters
    ----------
    reference : numpy.ndarray, shape (M, T)
        Logit gaps of the reference models (models x test points).
    candidates : numpy.ndarray, shape (C, T)
        Logit gaps of the candidate models.
    labels : numpy.ndarray, shape (T,)
        The 0/1 test labels.
    description : str
        What was read, e.g. ``"pool cnn_digits_both.npz (200 models)"``.
    """

    reference: np.ndarray
    candidates: np.ndarray
    labels: np.ndarray
    description: str


def _pool_path(path: str | Path) -> Path:
    """Return the file ``path`` names: a path, or the name of a shipped pool."""
    p = Path(path).expanduser()
    if not p.exists() and not p.is_symlink():
        from ..io.public import shipped_path

        try:
            p = shipped_path(str(path)) if p.name == str(path) else p
        except GenexpyInputError:
            pass
        if not p.is_file():
            raise GenexpyInputError(f"pool file {str(path)!r} not found (neither a path nor a "
                                    "pool shipped with the package, e.g. "
                                    "cnn_digits_both.npz).")
    if p.suffix.lower() != ".npz":
        if p.is_dir():
            raise GenexpyInputError(f"{str(path)!r} is a folder; give an .npz file.")
        raise GenexpyInputError(f"{str(path)!r}: expected an .npz file (NumPy archive).")
    return p


def read_gaps(path: str | Path, n_reference: int | None = None) -> PoolGaps:
    """Read the reference and candidate logit gaps and the test labels from an ``.npz`` file.

    Parameters
    ----------
    path : str or Path
        A pool written by :func:`~genexpy_nb.seedpools.save_pool`, the name of a pool
        shipped with the package (``"cnn_digits_both.npz"``), or your own archive with
        ``gaps`` (models x test points) and ``labels``, or ``reference``, ``candidates`` and
        ``labels``.
    n_reference : int, optional
        How many models (the first) form the reference of a pool or a ``gaps`` array
        (default: half of them; a pool's own split rule applies); not for a file that has
        ``reference`` and ``candidates`` already.

    Returns
    -------
    PoolGaps
        ``(reference, candidates, labels, description)``.

    Raises
    ------
    GenexpyInputError
        A file that is missing, not a readable ``.npz``, or lacks the arrays; a split that
        leaves fewer than 2 reference models or no candidate.

    Examples
    --------
    >>> ref, cands, labels, what = read_gaps("cnn_digits_both.npz")  # doctest: +SKIP
    >>> what  # doctest: +SKIP
    'pool cnn_digits_both.npz (200 models)'
    """
    from .._io import read_npz
    from .pools import PER_MODEL_KEYS

    p = _pool_path(path)
    read_npz(p, "pool file", keys=())  # a readable archive (a clear error otherwise)
    with zipfile.ZipFile(p) as zf:
        files = {n[:-4] if n.endswith(".npy") else n for n in zf.namelist()}
    if "meta" in files and set(PER_MODEL_KEYS) <= files:
        from .pools import load_pool

        pool = load_pool(p)
        ref, cand = pool.split(n_reference)
        return PoolGaps(ref, cand, pool.labels, f"pool {p.name} ({pool.n_models} models)")
    # read within bounds (declared shapes, compression, memory); only what is used
    arrays = read_npz(p, "pool file", keys=("gaps", "reference", "candidates", "labels"))
    if "labels" not in arrays:
        raise GenexpyInputError(
            f"{str(path)!r} has no 'labels' array (the 0/1 test labels, for accuracy and ECE). "
            f"Its arrays: {sorted(files)}. Save it as np.savez(f, gaps=..., labels=...) or "
            "np.savez(f, reference=..., candidates=..., labels=...).")
    if "reference" in arrays and "candidates" in arrays:
        if n_reference is not None:
            raise GenexpyInputError(f"{opt('n_reference')} splits a 'gaps' array; this file "
                                    "already has 'reference' and 'candidates': leave it out.")
        return PoolGaps(arrays["reference"], arrays["candidates"], arrays["labels"], p.name)
    if "gaps" in arrays:
        g = arrays["gaps"]
        if g.ndim != 2:
            raise GenexpyInputError(f"{str(path)!r}: 'gaps' must be a 2-d array (models x test "
                                    f"points), got shape {g.shape}.")
        m = g.shape[0]
        n_ref = m // 2 if n_reference is None else n_reference
        if not 2 <= n_ref < m:
            raise GenexpyInputError(
                f"{opt('n_reference', n_ref)}: the file has {m} models; the reference needs "
                "at least 2 and at least one must remain as candidate.")
        return PoolGaps(g[:n_ref], g[n_ref:], arrays["labels"], f"{p.name} ({m} models)")
    raise GenexpyInputError(
        f"{str(path)!r} holds neither 'gaps' nor 'reference' + 'candidates' arrays (it has "
        f"{sorted(files)}).")
