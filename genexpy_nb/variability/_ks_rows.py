"""The trimmed KS distance of many candidate samples against one reference.

The shared work of :func:`~genexpy_nb.variability.trimmed_ks`, alpha-hat and the trimming
curves (one sort of the reference, NumPy for small work, the numba kernel in blocks on
threads).
"""

from __future__ import annotations

import numpy as np

from .. import config
from .._codes import run_ends


def _upper_counts(rs: np.ndarray) -> np.ndarray:
    """``cnt[b, j] = #{i : rs[b, i] <= rs[b, j]}`` for rows sorted ascending (ties share it)."""
    return run_ends(rs) + 1


def _ks_rows(ref: np.ndarray, cands: np.ndarray, alphas: np.ndarray) -> np.ndarray:
    """``d_alpha`` of every row of ``cands`` (C, n) against ``ref``: (C, len(alphas)).

    One sort of the reference; the rows run in blocks on threads when the work is large.
    The alpha-hat kernel does the work: one draw whose candidate sample is every value once,
    every level evaluated, nothing bisected.
    """
    r = np.sort(np.asarray(ref, dtype=np.float64).ravel())[None, :]
    cnt = np.ascontiguousarray(_upper_counts(r))
    cands = np.ascontiguousarray(np.asarray(cands, dtype=np.float64))
    C, n = cands.shape
    alphas = np.ascontiguousarray(alphas, dtype=np.float64)
    if float(C) * (r.shape[1] + n) * (alphas.size + 1) <= config.ROUTES.ks_numpy_max_work:
        from . import _trimmed_numpy

        return _trimmed_numpy.trimmed_ks_rows(
            r, cnt, np.zeros(C, dtype=np.int64), np.sort(cands, axis=1), alphas, -np.inf,
            config.ALPHA_HAT_MAX, False, config.ALPHA_HAT_XTOL, True)[3]
    from .._numba import compile_note, run_blocks
    from .._numba import variability as _k

    order = np.argsort(cands, axis=1, kind="stable")
    mult = np.ones((1, n), dtype=np.int32)
    out = np.empty((1, C, alphas.size))
    rest = (np.empty((1, C)), np.empty((1, C)), np.empty((1, C)))

    def task(r0, r1):
        _k.trimmed_ks_kernel(r, cnt, cands, order, mult, alphas, -np.inf,
                             config.ALPHA_HAT_MAX, False, config.ALPHA_HAT_XTOL, True,
                             r0, r1, *_buffers(r.shape[1], n), *rest, out)

    with compile_note(_k.trimmed_ks_kernel, "the trimmed KS kernel"):
        run_blocks(task, C, float(cands.size) * (8 + alphas.size))
    return out[0]


def _buffers(m: int, n: int) -> tuple[np.ndarray, ...]:
    """Allocate the kernel's work buffers for reference samples of m and candidates of n values.

    One set per block of work, so that threads never share one.
    """
    return np.empty(n), np.empty(m + n), np.empty(m + n), np.empty(m + n + 1)
