"""``seedpools.read_gaps``: the gaps a seed study reads from a pool or a plain ``.npz``."""

from __future__ import annotations

import numpy as np
import pytest

from genexpy_nb import GenexpyInputError
from genexpy_nb.seedpools import PoolGaps, load_pool, read_gaps


def test_a_plain_archive_of_gaps_is_split_in_half(tmp_path):
    g = np.arange(40, dtype=float).reshape(8, 5)
    labels = np.array([0, 1, 0, 1, 1])
    np.savez(tmp_path / "g.npz", gaps=g, labels=labels)
    got = read_gaps(tmp_path / "g.npz")
    assert isinstance(got, PoolGaps)
    ref, cand, lab, what = got
    np.testing.assert_array_equal(ref, g[:4])
    np.testing.assert_array_equal(cand, g[4:])
    np.testing.assert_array_equal(lab, labels)
    assert what == "g.npz (8 models)"
    assert read_gaps(str(tmp_path / "g.npz"), 6).reference.shape == (6, 5)


def test_reference_and_candidates_as_saved(tmp_path):
    np.savez(tmp_path / "rc.npz", reference=np.zeros((3, 4)), candidates=np.ones((2, 4)),
             labels=np.array([0, 1, 1, 0]))
    got = read_gaps(tmp_path / "rc.npz")
    assert got.reference.shape == (3, 4) and got.candidates.shape == (2, 4)
    assert got.description == "rc.npz"
    with pytest.raises(GenexpyInputError, match="^n_reference splits a 'gaps' array"):
        read_gaps(tmp_path / "rc.npz", n_reference=2)


def test_a_shipped_pool_by_name_is_the_pool_split():
    got = read_gaps("cnn_digits_both.npz")
    pool = load_pool("cnn_digits_both.npz")
    ref, cand = pool.split(None)
    np.testing.assert_array_equal(got.reference, ref)
    np.testing.assert_array_equal(got.candidates, cand)
    assert got.description == f"pool cnn_digits_both.npz ({pool.n_models} models)"


def test_errors_in_pythons_words(tmp_path):
    np.savez(tmp_path / "g.npz", gaps=np.zeros((4, 3)), labels=np.array([0, 1, 0]))
    with pytest.raises(GenexpyInputError, match=r"^n_reference=4: the file has 4 models"):
        read_gaps(tmp_path / "g.npz", 4)
    np.savez(tmp_path / "nolabels.npz", gaps=np.zeros((4, 3)))
    with pytest.raises(GenexpyInputError, match="has no 'labels' array"):
        read_gaps(tmp_path / "nolabels.npz")
    with pytest.raises(GenexpyInputError, match="not found"):
        read_gaps(tmp_path / "absent.npz")
    (tmp_path / "x.csv").write_text("a\n")
    with pytest.raises(GenexpyInputError, match="expected an .npz file"):
        read_gaps(tmp_path / "x.csv")
