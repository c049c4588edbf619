"""The constants of the kernels' counter-based streams, NumPy only.

SplitMix64 (Steele, Lea and Flood 2014), the generator of every seeded kernel (the n*
interval's, the large-study path's, the robust aggregates' bootstrap), and Lemire's
multiply-shift on 21-bit uniforms, as :mod:`genexpy_nb._numba.aggregates` draws them. The
kernels and the aggregates' NumPy route (:mod:`genexpy_nb.aggregates._replicates_numpy`)
read the constants from here, so they cannot drift apart; importing this module does not
load numba.
"""

from __future__ import annotations

import numpy as np

#: SplitMix64's increment (the golden ratio's 64 bits) and its output function's constants
GOLDEN = np.uint64(0x9E3779B97F4A7C15)
M1 = np.uint64(0xBF58476D1CE4E5B9)
M2 = np.uint64(0x94D049BB133111EB)
S30 = np.uint64(30)
S27 = np.uint64(27)
S31 = np.uint64(31)
#: three 21-bit uniforms per 64-bit output: bits 43..63, 22..42 and 0..20
BITS = np.uint64(21)
S22 = np.uint64(22)
S43 = np.uint64(43)
LOW21 = np.uint64((1 << 21) - 1)
TWO21 = np.uint64(1 << 21)
#: the most runs per task (and tasks) the draws serve: 1/64 of 2^21
MAX_DRAW_RANGE = 1 << 15
