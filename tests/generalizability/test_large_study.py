"""The large-study path of the n* analysis (a thinned grid, one batched kernel).

A small forced bound (``config.force_route(large_study_min_N=100)``) sends a study of
N = 300 conditions down the path in about a second; speed is measured in
``benchmarks/bench_large_study.py``.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hst

import genexpy_nb as gx
from genexpy_nb import config
from genexpy_nb.generalizability import large
from genexpy_nb.generalizability.kernels import RBF, Borda, Jaccard, Mallows
from genexpy_nb.generalizability.mmd import mmd

N, NA = 300, 7


def _scores(N=N, na=NA, seed=1, signal=1.0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(N, na)) + signal * np.linspace(1.0, 0.0, na)


def _study(N=N, na=NA, seed=1, signal=1.0):
    import toys

    return toys.scores_study(_scores(N, na, seed, signal), block_names="d{:05d}")


def _rankings(S):
    R = np.argsort(np.argsort(-S, axis=1), axis=1)
    R[::4, 1] = R[::4, 0]  # ties
    return R


KERNELS = [Jaccard(k=1), Borda(), Mallows(), RBF()]


@pytest.mark.parametrize("n_cond", [11, 101, 300, 1001, 2000, 5000, 20000, 10**6])
@pytest.mark.parametrize("bound", [100, 1000])
def test_grid_monotone_distinct_even_and_drawable(n_cond, bound):
    with config.force_route(large_study_min_N=bound):
        ns = large.large_grid(n_cond)
        top = large.large_top(n_cond)
    assert ns.size >= 2 and ns[0] == 2 and ns[-1] == top
    assert np.all(np.diff(ns) > 0) and np.all(ns % 2 == 0)
    assert 2 * ns[-1] <= n_cond
    assert ns.size <= large.LARGE_GRID_SIZES
    if n_cond > bound:  # capped: the work at the top grows as N
        assert top <= max(2, 0.5 * bound * np.sqrt(n_cond / bound))
        assert ns.size >= min(30, top // 2)


def test_path_applies_only_above_the_bound_and_by_default_only():
    with config.force_route(large_study_min_N=100):
        assert large.applies(101, None, True, False)
        assert not large.applies(100, None, True, False)
        assert not large.applies(300, [2, 4], True, False)  # a grid of one's own
        assert not large.applies(300, None, True, True)  # another resampling mode
        assert not large.applies(300, None, False, False)


def test_draws_are_disjoint_seeded_and_independent_per_unit():
    ns = np.array([2, 10, 40, 150])
    a = large.large_pairs(N, ns, 30, 7)
    b = large.large_pairs(N, ns, 30, 7)
    c = large.large_pairs(N, ns, 30, 8)
    for (IX, IY), (JX, JY), (KX, _) in zip(a, b, c, strict=True):
        assert np.array_equal(IX, JX) and np.array_equal(IY, JY)
        assert not np.array_equal(IX, KX)
        both = np.concatenate((IX, IY), axis=1)
        assert both.min() >= 0 and both.max() < N
        assert all(np.unique(row).size == row.size for row in both)
    # every index is about equally likely (a biased draw would fail)
    IX, IY = large.large_pairs(N, np.array([150]), 400, 3)[0]
    hits = np.bincount(np.concatenate((IX, IY)).ravel(), minlength=N)
    assert hits.min() > 0.7 * hits.mean() and hits.max() < 1.3 * hits.mean()
    # the first sample is a uniform half: index 0 lands in X as often as in Y
    inx, iny = (IX == 0).sum(), (IY == 0).sum()
    assert abs(inx - iny) < 4 * np.sqrt(inx + iny)


@pytest.mark.parametrize("which", ["jaccard", "borda", "mallows", "rbf"])
@pytest.mark.parametrize("matrix_m", [10**9, 10])
def test_batched_kernel_equals_its_naive_twin(which, matrix_m):
    S = _scores()
    R = _rankings(S)
    kern = {"jaccard": Jaccard(k=2), "borda": Borda(0), "mallows": Mallows(),
            "rbf": RBF(scale="raw")}[which].resolve(NA)
    data = S if which == "rbf" else R
    ns = np.array([2, 6, 20, 64, 150])
    with config.force_route(large_support_m=matrix_m, large_matrix_m=matrix_m):
        sup = large.large_support(kern, data)
        out = large.mmd_grid(sup, N, ns, 12, 99)
    if matrix_m == 10 and which in ("mallows", "rbf"):
        assert sup.kind != 0  # on the fly
    pairs = large.large_pairs(N, ns, 12, 99)
    ref = np.array([[mmd(data[IX[r]], data[IY[r]], kern) for r in range(12)]
                    for IX, IY in pairs])
    np.testing.assert_allclose(out, ref, rtol=1e-10, atol=1e-12)


def test_baseline_positions_draw_the_study_pairs():
    S = _scores()
    kern = Mallows().resolve(NA)
    sup = large.large_support(kern, _rankings(S))
    ns = np.array([2, 8, 30, 90])
    full = large.mmd_grid(sup, N, ns, 10, 5)
    part = large.mmd_grid(sup, N, ns[[1, 3]], 10, 5, positions=np.array([1, 3]))
    assert np.array_equal(part, full[[1, 3]])


def _analyze(study, **kw):
    return gx.analyze(study, KERNELS, alphas=[0.9, 0.95], deltas=[0.05, 0.1], progress=False,
                      **kw)


def test_same_bits_at_one_two_and_four_threads_and_for_the_same_seed(monkeypatch):
    import genexpy_nb._numba as nb

    monkeypatch.setattr(nb, "_max_threads", lambda: 4)  # 4 threads even on a 2-core runner
    st = _study()
    with config.force_route(large_study_min_N=100, large_support_m=60,
                            large_matrix_m=60, parallel_min_work=0):
        a = _analyze(st, n_jobs=1, rep=50)
        b = _analyze(st, n_jobs=2, rep=50)
        c = _analyze(st, n_jobs=2, rep=50)
        e = _analyze(st, n_jobs=4, rep=50)
        d = _analyze(st, n_jobs=1, rep=50, seed=1)
        note = large.grid_note(large.large_grid(N))
    assert a.equals(b) and b.equals(c) and e.equals(a)
    assert not a.equals(d)
    assert a["grid"].unique().to_list() == [note] == ["thinned grid: 43 sizes up to 86"]


def test_thinned_grid_agrees_with_the_full_one_on_a_clear_signal():
    st = _study(signal=1.0)
    full = _analyze(st)
    with config.force_route(large_study_min_N=100, large_support_m=80,
                            large_matrix_m=80):
        thin = _analyze(st)
    assert "grid" not in full.columns and thin["grid"].null_count() == 0
    key = ["kernel", "alpha", "delta", "method"]
    f = full.filter(pl.col("method") == "resample").sort(key)
    t = thin.filter(pl.col("method") == "resample").sort(key)
    ratio = (t["nstar"] / f["nstar"]).to_numpy()
    # resampling noise moves n* by a few percent here; a wrong MMD (a factor sqrt 2, the
    # wrong samples) moves it by a factor 2
    assert np.all(np.abs(np.log(ratio)) < np.log(1.2)), ratio
    # and each estimate lies in the other's interval, widened by its own noise
    assert np.all(t["nstar"].to_numpy() <= 1.2 * f["nstar_hi"].to_numpy())
    assert np.all(t["nstar"].to_numpy() >= f["nstar_lo"].to_numpy() / 1.2)
    # the baseline is no closer to the study than on the full grid
    assert np.all(np.isfinite(t["nstar_null"].to_numpy()))


def test_at_or_below_the_bound_nothing_changes():
    st = _study(N=120)
    a = _analyze(st)
    with config.force_route(large_study_min_N=120):
        b = _analyze(st)
    assert a.equals(b) and "grid" not in b.columns


def test_the_summary_says_the_grid_was_thinned():
    st = _study()
    with config.force_route(large_study_min_N=100):
        res = _analyze(st)
        text = gx.nstar_summary(res, alpha=0.95, delta=0.05).to_text()
    assert "thinned grid: 43 sizes up to 86" in text
    assert "thinned grid" not in gx.nstar_summary(_analyze(_study(N=120)), alpha=0.95,
                                                  delta=0.05).to_text()


@pytest.mark.parametrize("which", ["mallows", "rbf", "jaccard"])
def test_mmd_values_read_every_conditions_own_result_beyond_the_closed_forms_subsample(which):
    # beyond large_support_m distinct results the closed forms read a subsample; the MMD
    # values never do: the analysis' values equal the batched kernel's on the whole data
    S = _scores()
    st = _study()
    kern = {"mallows": Mallows(), "rbf": RBF(), "jaccard": Jaccard(k=2)}[which]
    with config.force_route(large_study_min_N=100, large_support_m=40):
        ga = gx.GeneralizabilityAnalysis(st, [kern], rep=20, progress=False, null=False)
        cd = next(iter(ga.dists.values()))
        k = ga.kernels[0]
        data = cd.sample.data_for(k)
        seed = int(gx.generalizability.analysis.child_seed(ga.seed, cd.sample.config_id)
                   .integers(0, 2**63))
        want = large.mmd_grid(large.large_support(k, data), N, cd.ns, 20, seed)
    # (within rounding: BLAS may sum a block's rows in another order on another thread
    # count; the subsample's values would differ by far more)
    np.testing.assert_allclose(cd.mmd[0], want, rtol=1e-12, atol=1e-14)
    assert S.shape[0] == N


@pytest.mark.parametrize("support_m, matrix_m", [(10**9, 10), (10, 10**9), (40, 120)])
def test_every_split_of_the_routes_gives_the_naive_values(support_m, matrix_m):
    # the matrix kept or computed in blocks, values looked up or on the fly for the sizes
    # read one pair at a time: any combination of the two bounds gives the MMD values
    S = _scores()
    R = _rankings(S)
    kern = Mallows().resolve(NA)
    ns = np.array([2, 6, 20, 64, 150])
    with config.force_route(large_support_m=support_m, large_matrix_m=matrix_m):
        out = large.mmd_grid(large.large_support(kern, R), N, ns, 12, 99)
    pairs = large.large_pairs(N, ns, 12, 99)
    ref = np.array([[mmd(R[IX[r]], R[IY[r]], kern) for r in range(12)] for IX, IY in pairs])
    np.testing.assert_allclose(out, ref, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("which", ["jaccard", "mallows"])
@pytest.mark.parametrize("matrix_m", [10**9, 10])
@pytest.mark.parametrize("block_rows", [7, 64])
def test_dense_blocks_upper_triangle_equals_the_naive_mmd(monkeypatch, which, matrix_m,
                                                          block_rows):
    # every size through the row blocks (the diagonal block once, those above it twice),
    # with many blocks and a shorter last one, the matrix kept or computed in blocks; 0/1
    # rankings (two tie levels) and all-tied rows
    monkeypatch.setattr(large, "_DENSE_BLOCK_ROWS", block_rows)
    monkeypatch.setattr(large, "_DENSE_PAIRS", 5)
    rng = np.random.default_rng(3)
    Nb, na = 120, 6
    R = rng.integers(0, 2, (Nb, na))
    R[::9] = 0
    kern = (Jaccard(k=1) if which == "jaccard" else Mallows()).resolve(na)
    ns = np.array([2, 5, 12, 40])
    with config.force_route(large_support_m=10, large_matrix_m=matrix_m,
                            mmd_dense_fraction_small=0.0, mmd_dense_fraction_large=0.0):
        sup = large.large_support(kern, R)
        assert sup.m > 2 * block_rows or block_rows == 64
        out = large.mmd_grid(sup, Nb, ns, 6, 11)
    pairs, ref = _naive_grid(which, kern, R, Nb, ns, 6, 11)
    np.testing.assert_allclose(out, ref, rtol=1e-10, atol=1e-7)
    quick = np.array([[mmd(R[IX[r]], R[IY[r]], kern) for r in range(6)] for IX, IY in pairs])
    np.testing.assert_allclose(out, quick, rtol=1e-12, atol=1e-12)


# ---- supports of sets: one word of bits per result and a table of values -----------------
def _two_levels(rng, n, na):
    """0/1 rankings (two tie levels) with all-tied rows of both levels."""
    R = (rng.random((n, na)) < rng.random((n, 1))).astype(np.int64)
    R[::7] = 0
    R[3::11] = 1
    return R


@settings(max_examples=30, deadline=None)
@given(na=hst.integers(2, 64), seed=hst.integers(0, 2**31), which=hst.sampled_from(
    ["jaccard1", "jaccard3", "mallows", "mallows_nu"]))
def test_sets_table_gives_the_kernel_matrix_bit_for_bit(na, seed, which):
    from genexpy_nb._numba import large as kl

    rng = np.random.default_rng(seed)
    kern = {"jaccard1": Jaccard(k=1), "jaccard3": Jaccard(k=3), "mallows": Mallows(),
            "mallows_nu": Mallows(nu=float(rng.uniform(0.01, 2.0)))}[which].resolve(na)
    # Jaccard on rankings of any levels (its value reads the top-k sets only)
    X = (_two_levels(rng, 40, na) if which.startswith("mallows")
         else rng.integers(0, 5, (40, na)))
    sets = large.sets_support(kern, X)
    assert sets is not None
    M, C, table, L = sets
    assert L == na + 1 and np.array_equal(C, [bin(int(v)).count("1") for v in M])
    out = np.empty((40, 40 - 5))
    kl.sets_block(M, C, 0, 40, 5, table, L, out)
    # the very numbers of the kernel's own matrix (the same division, the same exponentials)
    assert np.array_equal(out, kern.gram(X)[:, 5:])


@pytest.mark.parametrize("which", ["jaccard", "mallows"])
def test_sets_values_equal_the_naive_kernels(which):
    import naive

    rng = np.random.default_rng(5)
    na = 9
    kern = (Jaccard(k=2) if which == "jaccard" else Mallows()).resolve(na)
    X = _two_levels(rng, 30, na) if which == "mallows" else rng.integers(0, 4, (30, na))
    M, C, table, L = large.sets_support(kern, X)
    f = ((lambda r, s: naive.jaccard(r, s, 2)) if which == "jaccard"
         else (lambda r, s: naive.mallows(r, s, kern.nu)))
    for i in range(30):
        for j in range(30):
            t = bin(int(M[i]) & int(M[j])).count("1")
            got = table[(C[i] * L + C[j]) * L + t]
            assert abs(got - f(X[i].tolist(), X[j].tolist())) <= 1e-12


def test_sets_support_only_where_the_values_are_exact():
    rng = np.random.default_rng(0)
    R2 = _two_levels(rng, 20, 6)
    R3 = R2.copy()
    R3[0, 0] = 2  # a third tie level: Mallows' value reads more than the first level's set
    assert large.sets_support(Mallows().resolve(6), R2) is not None
    assert large.sets_support(Mallows().resolve(6), R3) is None
    assert large.sets_support(Jaccard(k=1).resolve(6), R3) is not None
    assert large.sets_support(Borda(0).resolve(6), R2) is None
    assert large.sets_support(RBF().resolve(6), R2.astype(float)) is None
    wide = rng.integers(0, 2, (5, 65))
    assert large.sets_support(Jaccard(k=1).resolve(65), wide) is None
    assert large.sets_support(Mallows().resolve(65), wide) is None


@pytest.mark.parametrize("which", ["jaccard", "mallows"])
@pytest.mark.parametrize("dense_from", [0.3, 0.0, 2.0])
@pytest.mark.parametrize("gather_max", [1e12, -1.0])
def test_sets_support_mmd_equals_its_naive_twin(which, dense_from, gather_max):
    # every size one pair at a time (2.0), every size in row blocks (0.0), or split (0.3);
    # Jaccard's pairs through the NumPy gathers or the numba loop (gather_max): the MMD of
    # the pairs the batched kernel draws, from the definition
    rng = np.random.default_rng(8)
    Nb, na = 240, 7
    R = _two_levels(rng, Nb, na)
    kern = (Jaccard(k=1) if which == "jaccard" else Mallows()).resolve(na)
    ns = np.array([2, 6, 20, 64])
    with config.force_route(large_support_m=10, mmd_dense_fraction_small=dense_from,
                            mmd_dense_fraction_large=dense_from, mmd_small_m=-1,
                            mmd_gather_max_work=gather_max):
        sup = large.large_support(kern, R)
        out = large.mmd_grid(sup, Nb, ns, 5, 21)
    assert sup.kind == 3 and not sup.has_matrix
    _, ref = _naive_grid(which, kern, R, Nb, ns, 5, 21)
    np.testing.assert_allclose(out, ref, rtol=1e-10, atol=1e-12)


def test_sets_support_same_bits_at_one_two_and_four_threads(monkeypatch):
    import genexpy_nb._numba as nb

    monkeypatch.setattr(nb, "_max_threads", lambda: 4)
    rng = np.random.default_rng(2)
    R = _two_levels(rng, N, NA)
    ns = large.large_grid(N)
    outs = []
    for threads in (1, 2, 4):
        monkeypatch.setattr(nb, "_max_threads", lambda t=threads: t)
        with config.force_route(large_support_m=10, parallel_min_work=0):
            for kern in (Jaccard(k=1).resolve(NA), Mallows().resolve(NA)):
                sup = large.large_support(kern, R)
                assert sup.kind == 3
                outs.append(large.mmd_grid(sup, N, ns, 20, 4))
    assert all(np.array_equal(a, b) for a, b in zip(outs[:2], outs[2:4], strict=True))
    assert all(np.array_equal(a, b) for a, b in zip(outs[:2], outs[4:], strict=True))


@pytest.mark.parametrize("which", ["jaccard", "mallows"])
@pytest.mark.parametrize("gather_max", [1e12, -1.0])
def test_sets_support_gives_the_other_routes_values_bit_for_bit(which, gather_max):
    # the matrix kept (Jaccard) or Mallows' packed bitsets: the same MMD values bit for bit,
    # where the pairs read the row blocks and where they are summed one at a time (Jaccard's
    # touched blocks gathered with NumPy or summed by the numba loop: gather_max)
    rng = np.random.default_rng(4)
    R = _two_levels(rng, N, NA)
    kern = (Jaccard(k=1) if which == "jaccard" else Mallows()).resolve(NA)
    ns = large.large_grid(N)
    with config.force_route(large_support_m=10, mmd_dense_fraction_small=0.3,
                            mmd_dense_fraction_large=0.3, mmd_gather_max_work=gather_max):
        new = large.large_support(kern, R)
        old = large.large_support(kern, R, sets=False)
        a, b = large.mmd_grid(new, N, ns, 20, 6), large.mmd_grid(old, N, ns, 20, 6)
        wide = np.array([min(2 * n, new.m) >= 0.3 * new.m for n in ns])
    assert new.kind == 3 and old.kind != 3 and wide.any() and not wide.all()
    assert np.array_equal(a, b)


def _naive_grid(which, kern, R, Nb, ns, rep, seed):
    """The grid's pairs and their MMD from the naive kernels (two empty top sets, and
    all-tied rows at level 1, have the kernel's value 1)."""
    import naive

    f = ((lambda r, s: naive.jaccard(r, s, 1) if min(r) == 0 or min(s) == 0 else 1.0)
         if which == "jaccard" else (lambda r, s: naive.mallows(r, s, kern.nu)))
    pairs = large.large_pairs(Nb, ns, rep, seed)
    ref = np.array([[naive.mmd(f, R[IX[r]].tolist(), R[IY[r]].tolist()) for r in range(rep)]
                    for IX, IY in pairs])
    return pairs, ref
