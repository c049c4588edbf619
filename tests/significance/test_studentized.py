"""The studentized range's survival function (infinite dof) behind Nemenyi's test.

The oracle is the old path, ``scipy.stats.studentized_range.sf(q, k, np.inf)`` (one
numerical integral per statistic), and for k = 2 the closed form ``erfc(q / 2)`` (the
range of two standard normals is sqrt(2) |Z|).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy import special, stats

from genexpy_nb import config
from genexpy_nb import significance as sig
from genexpy_nb._numba import threads
from genexpy_nb.significance._studentized import studentized_range_sf

#: the body, the tails (down to p ~ 1e-40 for small k) and the far tail
QS = np.concatenate([np.linspace(0.0, 8.0, 81), [9.0, 10.0, 12.0, 15.0, 20.0]])


@pytest.mark.parametrize("k", [2, 3, 4, 5, 7, 10, 20, 50, 200, 1000, 2000])
def test_equals_scipy_over_k_and_q(k):
    ref = stats.studentized_range.sf(QS, k, np.inf)
    got = studentized_range_sf(QS, k)
    assert_allclose(got, ref, rtol=0, atol=1e-10)
    assert np.all((got >= 0) & (got <= 1))
    assert np.all(np.diff(got) <= 1e-15)  # non-increasing in q


def test_two_groups_closed_form():
    q = np.linspace(0.0, 14.0, 281)
    exact = special.erfc(q / 2.0)  # down to 1e-23
    got = studentized_range_sf(q, 2)
    assert_allclose(got, exact, rtol=1e-13, atol=1e-17)
    big = exact > 1e-8  # relative precision where a p-value can matter
    assert_allclose(got[big], exact[big], rtol=1e-11, atol=0)


def test_edges_and_shape():
    got = studentized_range_sf(np.array([[np.nan, 0.0], [np.inf, -1.0]]), 6)
    assert got.shape == (2, 2)
    assert np.isnan(got[0, 0])
    assert got[0, 1] == 1.0 and got[1, 0] == 0.0 and got[1, 1] == 1.0
    assert studentized_range_sf(np.array([]), 3).shape == (0,)
    with pytest.raises(ValueError, match="k >= 2"):
        studentized_range_sf([1.0], 1)


@settings(max_examples=25, deadline=None)
@given(k=st.integers(2, 300), q=st.floats(0.0, 12.0))
def test_any_k_and_q_equals_scipy(k, q):
    assert studentized_range_sf([q], k)[0] == pytest.approx(
        stats.studentized_range.sf(q, k, np.inf), rel=0, abs=1e-10)


def test_same_bits_at_any_thread_count():
    q = np.random.default_rng(1).uniform(0, 7, 5_000)
    with config.force_route(parallel_min_work=0):
        outs = []
        for n in (1, 2, 4):
            with threads(n):
                outs.append(studentized_range_sf(q, 40))
    assert all(np.array_equal(outs[0], o) for o in outs[1:])


@pytest.mark.parametrize("shape", [(12, 4), (40, 25), (300, 60)])
def test_nemenyi_equals_the_old_scipy_path(shape):
    rng = np.random.default_rng(sum(shape))
    x = rng.normal(size=shape) + np.linspace(0, 1.5, shape[1])
    res = sig.posthoc_nemenyi(x, higher_is_better=True)
    old = stats.studentized_range.sf(res["statistic"].to_numpy(), shape[1], np.inf)
    assert_allclose(res["pvalue"].to_numpy(), np.clip(old, 0, 1), rtol=0, atol=1e-10)


@pytest.mark.parametrize("k", [2, 5, 16, 200, 600])
def test_python_route_has_the_kernels_bits(k):
    # small work (a few hundred pairs) runs the kernel's arithmetic in Python without
    # loading numba: the same doubles, bit for bit
    from genexpy_nb._numba import studentized as ks
    from genexpy_nb.significance._studentized import _range_sf_python, _rule

    q = np.concatenate([np.linspace(0.0, 14.0, 157), [np.nan, 1e-300, 40.0]])
    z, cdf, factor = _rule(k)
    want, got = np.empty(q.size), np.empty(q.size)
    ks.range_sf(q, z, cdf, factor, float(k - 1), 0, q.size, want)
    _range_sf_python(q, z, cdf, factor, float(k - 1), got)
    assert np.array_equal(want.view(np.uint64), got.view(np.uint64))
    with config.force_route("numba"):
        a = studentized_range_sf(q[:40], k)
    with config.force_route("numpy"):
        b = studentized_range_sf(q[:40], k)
    assert np.array_equal(a.view(np.uint64), b.view(np.uint64))


@pytest.mark.parametrize("k", [2, 4, 10, 50, 300])
@pytest.mark.parametrize("p", [0.01, 0.05, 0.1, 0.5])
def test_upper_quantile_inverts_the_survival_function_as_scipy(k, p):
    from genexpy_nb.significance._studentized import studentized_range_isf

    q = studentized_range_isf(p, k)
    assert q == pytest.approx(stats.studentized_range.isf(p, k, np.inf), rel=1e-9)
    above, below = studentized_range_sf([q, np.nextafter(q, 0.0)], k)
    assert above <= p < below or above == pytest.approx(p, abs=1e-15)
