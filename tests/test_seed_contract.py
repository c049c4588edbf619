"""One seed contract: every random procedure takes an int >= 0, a numpy Generator or None,
checked in one place (``_validation.check_seed``), with one meaning."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import genexpy_nb as gx
from genexpy_nb import GenexpyInputError
from genexpy_nb._validation import SEED_MEANING, check_seed, rng_from_seed, root_seed
from genexpy_nb.example.study import describe_conditions
from genexpy_nb.generalizability.mmd import draw_pairs
from genexpy_nb.generalizability.synthetic import estimate_nstar_from_sample


@pytest.mark.parametrize("bad", [-1, 1.5, "0", True, [1]])
def test_one_check_refuses_what_is_not_a_seed(bad):
    with pytest.raises(GenexpyInputError, match="seed must be a non-negative integer, a "
                                                "numpy.random.Generator or None"):
        check_seed(bad)


def test_meaning_of_each_kind():
    assert check_seed(np.int64(3)) == 3 and type(check_seed(np.int64(3))) is int
    g = np.random.default_rng(5)
    assert check_seed(g) is g and check_seed(None) is None
    # an int is its own root; a Generator gives one integer drawn from it
    assert root_seed(7) == 7
    assert root_seed(np.random.default_rng(1)) == root_seed(np.random.default_rng(1))
    assert root_seed(None) != root_seed(None)
    assert rng_from_seed(g) is g
    assert "Generator" in SEED_MEANING and "None" in SEED_MEANING


def _study():
    rng = np.random.default_rng(0)
    rows = [{"c": c, "a": a, "s": float(rng.random())} for c in range(12) for a in "xyz"]
    return gx.Study(pl.DataFrame(rows), alternatives="a", target="s", generalize="c",
                    higher_is_better=True)


def test_every_random_procedure_takes_the_three_kinds():
    st = _study()
    root = root_seed(np.random.default_rng(4))
    kw = {"rep": 10, "progress": False, "null": False}
    by_int = gx.analyze(st, [gx.Jaccard(k=1)], seed=root, **kw)
    by_gen = gx.analyze(st, [gx.Jaccard(k=1)], seed=np.random.default_rng(4), **kw)
    assert_frame_equal(by_int, by_gen)
    assert gx.analyze(st, [gx.Jaccard(k=1)], seed=None, **kw).height == by_int.height
    X = np.array([[0, 1, 2], [1, 0, 2], [0, 2, 1], [0, 1, 2]] * 3)
    a = estimate_nstar_from_sample(X, [gx.Jaccard(k=1)], rep=10, seed=root)
    b = estimate_nstar_from_sample(X, [gx.Jaccard(k=1)], rep=10,
                                   seed=np.random.default_rng(4))
    assert_frame_equal(a, b)
    assert describe_conditions(2, seed=np.random.default_rng(4)).equals(
        describe_conditions(2, seed=root))
    IX, _ = draw_pairs(10, 2, 5, seed=None)
    assert IX.shape == (5, 2)
