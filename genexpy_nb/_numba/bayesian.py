"""Numba kernel of the Bayesian signed-rank test (Benavoli et al., ICML 2014; JMLR 2017).

Arrays, scalars and a NumPy ``Generator`` only; :mod:`genexpy_nb.significance.bayesian`
checks the input and prepares the index arrays.

The posterior of the Dirichlet process puts weights ``w ~ Dirichlet(prior, 1, ..., 1)`` on
the pseudo-observation ``z_0 = 0`` and the n paired differences; a posterior sample of the
probability that a difference is right of the rope is ``sum_ij w_i w_j H(z_i + z_j - 2 rope)``
(``H`` the Heaviside step with ``H(0) = 1/2``), and likewise left of it. baycomp computes each
sample as a dense ``(n+1) x (n+1)`` product. Here the ``z`` are sorted once: in row ``i``
the pairs right of the rope are then a suffix of the row and the ties a contiguous run just
before it (``fl(z_i + z_j)`` is non-decreasing in ``j``), so with the cumulative weights ``C``
one sample costs O(n) instead of O(n^2). The weights are drawn as normalised gamma
variates from the caller's Generator inside the loop (numba draws the very bits NumPy
would draw from the same Generator, in the same order), so nothing of size
``nsamples x n`` is ever allocated.
"""

from __future__ import annotations

import numpy as np

from . import jit_fast

# flags: jit_fast (the one place of numba flags: genexpy_nb._numba)
# serial and nogil: the caller runs blocks of samples on threads, each block with its own
# Generator (genexpy_nb._numba.run_blocks). fastmath without nnan/ninf (the weights are
# positive and finite): it lets the two reductions per sample be reassociated, which
# removes their floating-point add latency chain (about a third of the time); the naive
# twin in tests/naive.py agrees to 1e-12.


@jit_fast
def signed_rank_samples(rng, prior_pos, prior_draws, a_gt, a_ge, b_lt, b_le, rope_zero, out):
    """Posterior samples ``out[s] = (left, rope, right)`` of the Bayesian signed-rank test.

    Parameters
    ----------
    rng : numpy.random.Generator
        Draws the Exponential(1) weights of the observations, sample by sample, in sorted
        order (skipping the pseudo-observation).
    prior_pos : int
        Position of the pseudo-observation ``z_0 = 0`` among the sorted values.
    prior_draws : (S,) float64
        Its Gamma(prior) weight in each sample (drawn by the caller with NumPy: a branch
        in the drawing loop cost more than the draws themselves).
    a_gt, a_ge : (m,) int64
        For sorted row ``i``: ``a_gt[i] = #{j: z_i + z_j <= 2 rope}`` (first index right of
        the rope) and ``a_ge[i] = #{j: z_i + z_j < 2 rope}`` (first index of the ties).
    b_lt, b_le : (m,) int64
        ``#{j: z_i + z_j < -2 rope}`` and ``#{j: z_i + z_j <= -2 rope}``.
    rope_zero : bool
        Rope 0: left = 1 - right and rope = 0 exactly (baycomp's convention).
    out : (S, 3) float64
        Filled with the samples.
    """
    m = a_gt.size
    S = out.shape[0]
    g = np.empty(m)
    C = np.empty(m + 1)
    C[0] = 0.0
    for s in range(S):
        tot = 0.0
        for k in range(prior_pos):
            v = rng.standard_exponential()
            g[k] = v
            tot += v
            C[k + 1] = tot
        v = prior_draws[s]
        g[prior_pos] = v
        tot += v
        C[prior_pos + 1] = tot
        for k in range(prior_pos + 1, m):
            v = rng.standard_exponential()
            g[k] = v
            tot += v
            C[k + 1] = tot
        right = 0.0
        for i in range(m):
            cg = C[a_gt[i]]
            right += g[i] * ((tot - cg) + 0.5 * (cg - C[a_ge[i]]))
        t2 = tot * tot
        right /= t2
        if rope_zero:
            out[s, 0] = 1.0 - right
            out[s, 1] = 0.0
        else:
            left = 0.0
            for i in range(m):
                cl = C[b_lt[i]]
                left += g[i] * (cl + 0.5 * (C[b_le[i]] - cl))
            left /= t2
            out[s, 0] = left
            out[s, 1] = 1.0 - left - right
        out[s, 2] = right
