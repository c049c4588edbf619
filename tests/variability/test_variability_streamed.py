"""alpha-hat on many test points: the bootstrap in blocks of draws, in bounded memory."""

from __future__ import annotations

import tracemalloc

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from genexpy_nb._validation import child_seed
from genexpy_nb.variability import _alpha_hat_core as rk
from genexpy_nb.variability import _streamed, alpha_hat


def _pools(T, seed=0):
    rng = np.random.default_rng(seed)
    ref = rng.normal(0, 2, size=(5, T))
    cands = np.vstack([rng.normal(0, 2, size=(2, T)), rng.normal(1.0, 2, size=(2, T))])
    return ref, cands


def test_blocks_are_the_blockwise_bootstrap_and_reproducible(monkeypatch):
    T, B = 400, 23
    monkeypatch.setattr(_streamed, "STREAM_BYTES", _streamed.DRAW_BYTES_PER_POINT * T * 5)
    assert _streamed.streams(T, B) and _streamed.block_size(T) == 5
    ref, cands = _pools(T)
    kw = {"grid": rk.check_grid(None), "exact": True, "eps": 0.05, "n_jobs": 1,
          "full": False}
    raw = rk._alpha_hat_raw(ref, cands, B=B, seed=3, progress=False, **kw)
    # by hand: block k of 5 draws from SeedSequence([3, STREAM_KEY, k]), unblocked
    parts = []
    for k, b0 in enumerate(range(0, B, 5)):
        b = min(5, B - b0)
        d = rk.draw_bootstrap(child_seed(3, _streamed.STREAM_KEY, k), b, 5, T)
        parts.append(rk._alpha_hat_raw(ref, cands, B=b, draws=d, seed=None, progress=False,
                                       **kw))
    for f in ("a_grid", "a_exact", "d0", "d_grid"):
        want = np.concatenate([getattr(p, f) for p in parts])
        assert np.array_equal(getattr(raw, f), want, equal_nan=True), f
    a = alpha_hat(ref, cands, B=B, seed=3, progress=False)
    assert_frame_equal(a, alpha_hat(ref, cands, B=B, seed=3, progress=False, n_jobs=2),
                       check_exact=True)
    # the same statistic as the unblocked bootstrap: close, not equal (other draws)
    monkeypatch.setattr(_streamed, "STREAM_BYTES", float("inf"))
    whole = alpha_hat(ref, cands, B=B, seed=3, progress=False)
    assert not whole["alpha_hat"].equals(a["alpha_hat"])
    diff = (whole["alpha_hat"] - a["alpha_hat"]).abs().max()
    assert diff < 0.1, (whole, a)


def test_memory_stays_at_one_block(monkeypatch):
    """Blocked, the peak does not grow with B; whole, it grows in proportion."""
    T = 40_000
    ref, cands = _pools(T, seed=1)
    ref, cands = rk._prepare(ref, cands, None)

    def peak(B):
        tracemalloc.start()
        rk._alpha_hat_raw(ref, cands, B=B, grid=rk.check_grid([0.0, 0.1]), exact=False,
                          eps=0.05, seed=0, n_jobs=1, progress=False)
        top = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        return top

    monkeypatch.setattr(_streamed, "STREAM_BYTES", float("inf"))
    whole = peak(20), peak(60)
    monkeypatch.setattr(_streamed, "STREAM_BYTES", _streamed.DRAW_BYTES_PER_POINT * T * 4)
    blocks = peak(20), peak(60)
    assert whole[1] - whole[0] > 40 * 48 * T * 0.5, whole  # about 48 bytes per draw and point
    assert blocks[1] < 1.1 * blocks[0], blocks  # one block's draws, whatever B
    assert blocks[1] < 0.5 * whole[1], (blocks, whole)


def test_a_generator_seed_and_no_seed_work_in_blocks(monkeypatch):
    T = 300
    monkeypatch.setattr(_streamed, "STREAM_BYTES", _streamed.DRAW_BYTES_PER_POINT * T * 4)
    ref, cands = _pools(T, seed=2)
    a = alpha_hat(ref, cands, B=10, seed=np.random.default_rng(5), progress=False)
    b = alpha_hat(ref, cands, B=10, seed=np.random.default_rng(5), progress=False)
    assert_frame_equal(a, b, check_exact=True)
    assert alpha_hat(ref, cands, B=10, seed=None, progress=False).height == cands.shape[0]
    assert isinstance(a, pl.DataFrame)


def test_default_sizes_are_not_blocked():
    # the notebooks' and the paper's sizes (hundreds to a few thousand test points)
    assert not _streamed.streams(10_000, 100)
    assert _streamed.streams(1_000_000, 100) and _streamed.block_size(1_000_000) == 22
    with pytest.raises(TypeError):
        _streamed.streams(10)  # both sizes are needed
