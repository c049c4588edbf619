"""Classes of equal rows, in sorted order, without ``np.unique(axis=0)``'s overheads.

Used on every analysis (the support of a kernel, the levels of a study's factors), where
``np.unique(axis=0)`` cost more than the analysis of a small study.
"""

from __future__ import annotations

import numpy as np

__all__ = ["unique_rows", "run_ends"]


def unique_rows(key: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Group equal rows: ``np.unique(key, axis=0, ...)`` without the distinct rows.

    As ``np.unique(key, axis=0, return_index, return_inverse, return_counts)``: returns
    (first (m,), inverse (N,) int64, counts (m,)), in the same order.

    Rows of non-negative integers (rankings, top-k indicators, Borda counts) are packed,
    most significant column first, into as few int64 words as their bit width allows, so
    that comparing words compares the rows in the same lexicographic order; the words are
    then sorted stably (``lexsort``). Much faster than
    ``np.unique(axis=0)`` on a study's rankings (which sorts a structured view field by
    field); other keys (scores) go through ``np.unique(axis=0)`` itself.
    """
    key = np.asarray(key)
    if key.ndim == 1:
        key = key[:, None]
    N, d = key.shape
    if N == 0 or key.dtype.kind not in "iub" or (key.dtype.kind == "i" and key.min() < 0):
        _, first, inv, counts = np.unique(key, axis=0, return_index=True,
                                          return_inverse=True, return_counts=True)
        return first, np.ascontiguousarray(inv.ravel(), dtype=np.int64), counts
    bits = max(1, int(key.max()).bit_length())
    per = max(1, 62 // bits)  # columns per word
    if bits > 62:
        words = key.astype(np.uint64) if key.dtype.kind == "u" else key.astype(np.int64)
    else:
        words = np.zeros((N, -(-d // per)), dtype=np.int64)
        k64 = key.astype(np.int64, copy=False)
        for w, c0 in enumerate(range(0, d, per)):
            for c in range(c0, min(c0 + per, d)):
                words[:, w] = (words[:, w] << bits) | k64[:, c]
    if words.shape[1] == 1:
        order = np.argsort(words[:, 0], kind="stable")
    else:
        order = np.lexsort(words.T[::-1])  # stable; first column most significant
    sw = words[order]
    new = np.ones(N, dtype=bool)
    new[1:] = (sw[1:] != sw[:-1]).any(axis=1)
    inv = np.empty(N, dtype=np.int64)
    inv[order] = np.cumsum(new) - 1
    first = order[new]
    counts = np.diff(np.append(np.flatnonzero(new), N))
    return first, inv, counts



def run_ends(v: np.ndarray, starts: bool = False):
    """Find the runs of equal values in rows sorted ascending (R, P).

    At every position, the position of the last member of its run (int64, (R, P)); with
    ``starts``, also that of the first, as ``(start, end)``. NaN equals nothing: each NaN
    is a run of its own.
    """
    R, P = v.shape
    pos = np.arange(P)
    last = np.ones((R, P), dtype=bool)
    np.not_equal(v[:, 1:], v[:, :-1], out=last[:, :-1])
    end = np.minimum.accumulate(np.where(last, pos, P)[:, ::-1], axis=1)[:, ::-1]
    if not starts:
        return end
    first = np.ones((R, P), dtype=bool)
    first[:, 1:] = last[:, :-1]
    return np.maximum.accumulate(np.where(first, pos, 0), axis=1), end
