"""alpha-hat on very many test points: the bootstrap in blocks, in bounded memory.

The bootstrap of alpha-hat holds, for every draw b, T test-point indices and T // 2
reference positions and models (about 48 T bytes per draw; 4.8 GB for the default 100
draws on 10^6 test points, 48 GB on 10^7). Beyond :data:`STREAM_BYTES` of such draws the
draws are made and used one block of bootstraps at a time, each block from its own stream
``SeedSequence([root, STREAM_KEY, block])``, so memory stays at one block's whatever B is.
The blocks hold a fixed number of draws for a given T (not one that depends on the memory
of the machine), so the same seed gives the same result everywhere; the draws differ from
the unblocked ones (which would not fit), the statistic is the same.

The caller passes its one-block computation (``raw``) in: this module imports nothing of
the alpha-hat engine (``genexpy_nb.variability._alpha_hat_core``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._progress import tqdm
from .._validation import check_memory, child_seed, root_seed

#: draws of the bootstrap held at once (bytes) before the bootstrap runs in blocks
STREAM_BYTES: float = 2**30
#: bytes of draws per bootstrap and test point (idx: 8 T; ref_model, ref_pos: 8 T / 2 each;
#: the reference sample, its counts, the first-half counts: about 24 T more)
DRAW_BYTES_PER_POINT: float = 48.0
#: the stream key of the blocks (SeedSequence([root, STREAM_KEY, block]))
STREAM_KEY = 0x5EED_B10C


def streams(T: int, B: int) -> bool:
    """Say whether B bootstrap draws on T test points run in blocks.

    Parameters
    ----------
    T, B : int
        Test points and bootstrap draws.

    Returns
    -------
    bool
        True when the draws would hold more than :data:`STREAM_BYTES` at once.
    """
    return DRAW_BYTES_PER_POINT * T * B > STREAM_BYTES


def block_size(T: int) -> int:
    """Return the bootstrap draws per block on T test points (at least 1).

    Parameters
    ----------
    T : int
        Test points.

    Returns
    -------
    int
        ``STREAM_BYTES // (DRAW_BYTES_PER_POINT * T)``, at least 1.
    """
    return max(1, int(STREAM_BYTES // (DRAW_BYTES_PER_POINT * T)))


def streamed(raw: Callable[..., Any], draw: Callable[..., tuple], ref: np.ndarray,
             cands: np.ndarray, *, B: int, seed: Any, progress: bool, desc: str,
             **kwargs: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, Any]:
    """Run the alpha-hat bootstrap in blocks of draws and join the per-draw results.

    Parameters
    ----------
    raw : callable
        One block: ``raw(ref, cands, B=b, draws=..., seed=None, progress=False, **kwargs)``
        returning the per-draw results (``a_grid, a_exact, d0, d_grid`` of shape (b, C)
        and (b, C, G), and ``grid``, ``tau``, ``m``).
    draw : callable
        ``draw(rng, b, M, T)``: the draws of one block.
    ref, cands : numpy.ndarray, shapes (M, T) and (C, T)
        The reference models' and the candidates' clipped gaps.
    B : int
        Bootstrap draws in all.
    seed : int, numpy.random.Generator or None
        The root of the blocks' streams (a Generator gives one integer drawn from it).
    progress : bool
        A bar over the draws.
    desc : str
        The bar's label.
    **kwargs
        Passed to ``raw`` (grid, exact, eps, n_jobs, full).

    Returns
    -------
    tuple
        ``(a_grid, a_exact, d0, d_grid, last)``: the results of all B draws in order, and
        the last block's raw result (for its grid, tau and m).
    """
    root = root_seed(seed)
    M, T = ref.shape
    C, G = cands.shape[0], int(np.size(kwargs.get("grid", ())))
    # the draws are made in blocks, but the per-draw results of all B draws are kept:
    # (B, C) x 3 and (B, C, G), checked before the first block
    check_memory("B", B, per_unit=16.0 * C * (3 + G),
                 what=f"alpha-hat's results for {C} candidate(s) over B draws")
    size = block_size(T)
    parts = []
    last = None
    with tqdm(total=B, disable=not progress, desc=desc, unit="draw") as bar:
        for k, b0 in enumerate(range(0, B, size)):
            b = min(size, B - b0)
            draws = draw(child_seed(root, STREAM_KEY, k), b, M, T)
            last = raw(ref, cands, B=b, draws=draws, seed=None, progress=False, **kwargs)
            parts.append((last.a_grid, last.a_exact, last.d0, last.d_grid))
            del draws
            bar.update(b)
    a_grid, a_exact, d0, d_grid = (np.concatenate(p, axis=0) for p in zip(*parts, strict=True))
    return a_grid, a_exact, d0, d_grid, last
