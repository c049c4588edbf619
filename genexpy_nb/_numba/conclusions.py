"""Numba kernel of the order conclusion's agreement (gx.conclusions, SPEC A14).

Arrays and scalars only. For each pair of simulated studies (a row of ``a`` and the same row
of ``b``: mean ranks of every alternative), whether the normalised Kendall distance of their
orders is at most delta*: the count of discordant pairs of alternatives (a pair tied in one
order and not in the other counts 1/2) against the allowed count, stopping at the first pair
that exceeds it. NumPy needs temporaries of ``rows x na (na - 1) / 2`` per comparison and
was measured about 40x slower at 32 alternatives (the test's naive twin is that NumPy form).
"""

from __future__ import annotations

import numpy as np

from . import jit_exact

# flags: jit_exact (the one place of numba flags: genexpy_nb._numba)
# serial (called once per study size on a few thousand rows); no fastmath: ties are exact
# comparisons within a tolerance


@jit_exact
def kendall_within(a, b, tol, limit2, out):
    """Write into ``out[r]`` whether rows ``a[r]`` and ``b[r]`` are within the distance.

    Parameters
    ----------
    a, b : float64 arrays, shape (rows, na)
        Mean ranks of the alternatives in two studies, row by row.
    tol : float
        Mean ranks closer than this are tied.
    limit2 : float
        Twice the number of discordant pairs allowed (``2 * delta * na (na - 1) / 2``).
    out : bool array, shape (rows,)
        Written: True where the row pair is within the distance.
    """
    rows, na = a.shape
    for r in range(rows):
        twice = 0
        ok = True
        for i in range(na - 1):
            ai = a[r, i]
            bi = b[r, i]
            for j in range(i + 1, na):
                da = ai - a[r, j]
                db = bi - b[r, j]
                sa = 1 if da > tol else (-1 if da < -tol else 0)
                sb = 1 if db > tol else (-1 if db < -tol else 0)
                twice += abs(sa - sb)
            if twice > limit2:
                ok = False
                break
        out[r] = ok and twice <= limit2
    return out


def signatures() -> list:
    """Compile the kernel's one signature (for ``genexpy-nb precompile``)."""
    a = np.zeros((2, 3))
    kendall_within(a, a, 1e-9, 0.5, np.zeros(2, dtype=np.bool_))
    return [kendall_within]
