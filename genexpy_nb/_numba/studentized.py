"""Numba kernel of the studentized range distribution with infinite degrees of freedom.

Arrays and scalars only; :mod:`genexpy_nb.significance._studentized` chooses the quadrature
nodes and calls this on blocks of distinct statistics.

The range Q of k independent standard normals has (Hartley 1942; Lund & Lund 1983)::

    P(Q > q) = k * integral phi(z) [Phi(z)^(k-1) - (Phi(z) - Phi(z - q))^(k-1)] dz.

With ``a = Phi(z)`` and ``b = Phi(z - q)`` the bracket is ``a^(k-1) (1 - (1 - b/a)^(k-1))``;
``k phi(z) a^(k-1)`` times the quadrature weight is the same for every q (``weights``), and
``1 - (1 - r)^m = -expm1(m log1p(-r))`` keeps full relative precision where ``b/a`` is tiny
(the upper tail), so no difference of two numbers near 1 is ever formed. One pass over
the nodes per statistic, in the same order at any thread count.
"""

from __future__ import annotations

import math

from . import jit_exact

# flags: jit_exact (the one place of numba flags: genexpy_nb._numba)
# serial and nogil (the caller runs blocks of statistics on threads); no fastmath: the
# p-values are compared with SciPy's to 1e-10 and the tails need log1p/expm1 as written


@jit_exact
def range_sf(q, nodes, cdf_nodes, weights, m, r0, r1, out):
    """Survival function ``P(Q > q[i])`` of the studentized range, for ``r0 <= i < r1``.

    Parameters
    ----------
    q : (P,) float64
        Statistics (non-negative; NaN gives NaN).
    nodes : (M,) float64
        Quadrature nodes ``z``.
    cdf_nodes : (M,) float64
        ``Phi(z)`` at the nodes (positive).
    weights : (M,) float64
        Quadrature weight times ``k phi(z) Phi(z)^(k-1)`` at the nodes.
    m : float
        ``k - 1``.
    r0, r1 : int
        The block of statistics to compute.
    out : (P,) float64
        Receives the probabilities, clipped to [0, 1].
    """
    inv_sqrt2 = 1.0 / math.sqrt(2.0)
    for i in range(r0, r1):
        qi = q[i]
        if qi != qi:
            out[i] = math.nan
            continue
        s = 0.0
        for j in range(nodes.size):
            b = 0.5 * math.erfc((qi - nodes[j]) * inv_sqrt2)  # Phi(z - q)
            r = b / cdf_nodes[j]
            if r >= 1.0:
                s += weights[j]
            elif r > 0.0:
                s -= weights[j] * math.expm1(m * math.log1p(-r))
        out[i] = min(max(s, 0.0), 1.0)
