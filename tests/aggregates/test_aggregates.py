"""Robust aggregates with stratified-bootstrap intervals, against rliable and naive twins."""

from __future__ import annotations

import naive
import numpy as np
import oracles
import pandas as pd
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from genexpy_nb import GenexpyInputError
from genexpy_nb.aggregates import estimates as ag


@pytest.fixture(scope="module")
def rly():
    return oracles.rliable()


def _task_effects(seed, n=10, T=20, spread=1.0, noise=0.2):
    """Scores with strong task effects: a stratified bootstrap is much narrower than one
    that pools the tasks, so a wrong resampling scheme fails the comparisons."""
    rng = np.random.default_rng(seed)
    return rng.normal(0, spread, T)[None, :] + rng.normal(0, noise, (n, T))


def _rliable_intervals(library, metrics, m, reps, seed, task_bootstrap=False):
    f = lambda x: np.array([  # noqa: E731
        metrics.aggregate_median(x), metrics.aggregate_iqm(x), metrics.aggregate_mean(x),
        metrics.aggregate_optimality_gap(x, 0.5)])
    state = np.random.get_state()  # noqa: NPY002 (rliable draws from the global RNG)
    np.random.seed(seed)  # noqa: NPY002 (rliable draws from the global RNG)
    try:
        p, ci = library.get_interval_estimates({"a": m}, f, reps=reps,
                                               task_bootstrap=task_bootstrap)
    finally:
        np.random.set_state(state)  # noqa: NPY002 (rliable draws from the global RNG)
    return p["a"], ci["a"]


# ---- point estimates ------------------------------------------------------------------------
matrices = hnp.arrays(
    np.float64, st.tuples(st.integers(1, 7), st.integers(1, 6)),
    elements=st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.5, 0.9, 1.0, 1.3, -0.2]))


@given(m=matrices, gamma=st.sampled_from([0.5, 1.0, 2.0]))
@settings(max_examples=80, deadline=None)
def test_point_estimates_equal_rliable(rly, m, gamma):
    _, metrics = rly
    if m.shape[0] == 1:  # one run per task: the interval is undefined, and said so
        with pytest.warns(UserWarning, match="one run per task"):
            out = ag.interval_estimates({"a": m}, gamma=gamma, reps=2)
        assert out["low"].is_nan().all() and out["high"].is_nan().all()
        assert out["low_mc_error"].is_nan().all() and out["high_mc_error"].is_nan().all()
    else:
        out = ag.interval_estimates({"a": m}, gamma=gamma, reps=2)
    est = dict(zip(out["aggregate"], out["estimate"], strict=True))
    assert est["median"] == pytest.approx(metrics.aggregate_median(m), abs=1e-12)
    assert est["iqm"] == pytest.approx(metrics.aggregate_iqm(m), abs=1e-12)
    assert est["mean"] == pytest.approx(metrics.aggregate_mean(m), abs=1e-12)
    assert est["optimality_gap"] == pytest.approx(
        metrics.aggregate_optimality_gap(m, gamma), abs=1e-12)


@given(x=matrices, y_runs=st.integers(1, 6), seed=st.integers(0, 100))
@settings(max_examples=60, deadline=None)
def test_probability_of_improvement_point_equals_rliable(rly, x, y_runs, seed):
    _, metrics = rly
    rng = np.random.default_rng(seed)
    y = rng.choice([0.0, 0.1, 0.5, 0.9, 1.0], size=(y_runs, x.shape[1]))
    out = ag.probability_of_improvement({"x": x, "y": y}, reps=2)
    assert out["estimate"][0] == pytest.approx(metrics.probability_of_improvement(x, y),
                                               abs=1e-12)
    assert out["estimate"][0] == pytest.approx(naive.naive_probability_of_improvement(x, y),
                                               abs=1e-12)
    back = ag.probability_of_improvement({"x": x, "y": y}, pairs=[("y", "x")], reps=2)
    assert back["estimate"][0] + out["estimate"][0] == pytest.approx(1.0, abs=1e-12)


# ---- intervals: the kernels against naive twins on the same draws --------------------------
def _same_draws(name, m, reps, seed, task_bootstrap, *keys):
    n, T = m.shape
    idx, tasks = zip(*ag._draws(ag._stream(seed, ag._key(name), *keys), reps, n, T,
                                task_bootstrap), strict=True)
    return np.concatenate(idx), np.concatenate(tasks)


def _kernel_draws(name, m, reps, seed, task_bootstrap):
    """The draws the interval estimates' kernel makes (its own stream per replicate).

    The same for every alternative of a shape (the name is not used: the draws depend on
    the seed only).
    """
    from genexpy_nb._numba import aggregates as ka

    n, T = m.shape
    key = ag._intervals_key(seed)
    idx = np.empty((reps, T, n), dtype=np.int64)
    tasks = np.empty((reps, T), dtype=np.int64)
    for b in range(reps):
        ka.replicate_draws(key, b, n, T, task_bootstrap, idx[b], tasks[b])
    return idx, tasks


@pytest.mark.parametrize("task_bootstrap", [False, True])
@pytest.mark.parametrize("method", ["percentile", "basic"])
@pytest.mark.parametrize("gamma", [0.3, 5.0])  # some scores above gamma, none
def test_intervals_equal_naive_twin(task_bootstrap, method, gamma, monkeypatch):
    monkeypatch.setattr(ag, "_REPS_PER_STEP", 40)  # several steps of replicates
    m = _task_effects(1, n=5, T=7)
    m[0, 0] = m[1, 0]  # a tie
    reps, c = 150, 0.9
    out = ag.interval_estimates({"alg": m}, gamma=gamma, reps=reps, confidence_level=c,
                                method=method, task_bootstrap=task_bootstrap, seed=4)
    idx, tasks = _kernel_draws("alg", m, reps, 4, task_bootstrap)
    assert len({tuple(t) for t in tasks}) > 1 if task_bootstrap else (tasks == np.arange(7)).all()
    assert np.bincount(idx.ravel(), minlength=5).min() > 0.15 * idx.size / 5  # all runs drawn
    twins = {"median": naive.naive_median_of_means, "iqm": naive.naive_iqm,
             "mean": naive.naive_mean_of_means,
             "optimality_gap": lambda x: naive.naive_optimality_gap(x, gamma)}
    for row in out.iter_rows(named=True):
        f = twins[row["aggregate"]]
        vals = [f(naive.naive_resample(m, idx[b], tasks[b])) for b in range(reps)]
        lo, hi = naive.naive_percentile_interval(f(m), vals, c, method)
        assert row["estimate"] == pytest.approx(f(m), abs=1e-12)
        assert row["low"] == pytest.approx(lo, abs=1e-12)
        assert row["high"] == pytest.approx(hi, abs=1e-12)


def test_probability_of_improvement_interval_equals_naive_twin(monkeypatch):
    monkeypatch.setattr(ag, "_BLOCK_CELLS", 100)
    rng = np.random.default_rng(2)
    x = rng.choice([0.1, 0.2, 0.3, 0.5], size=(4, 6))
    y = rng.choice([0.1, 0.2, 0.3, 0.5], size=(6, 6))
    reps = 120
    out = ag.probability_of_improvement({"x": x, "y": y}, reps=reps, seed=9)
    block = ag._block_size(reps, 6 * 6)
    draws = []
    for k, mat in ((0, x), (1, y)):
        parts = list(ag._draws(ag._stream(9, ag._key("x"), ag._key("y"), k), reps,
                               mat.shape[0], 6, False, block))
        draws.append(np.concatenate([p[0] for p in parts]))
    ident = np.arange(6)
    vals = [naive.naive_probability_of_improvement(naive.naive_resample(x, draws[0][b], ident),
                                                   naive.naive_resample(y, draws[1][b], ident))
            for b in range(reps)]
    lo, hi = naive.naive_percentile_interval(out["estimate"][0], vals, 0.95)
    assert out["low"][0] == pytest.approx(lo, abs=1e-12)
    assert out["high"][0] == pytest.approx(hi, abs=1e-12)


@pytest.mark.parametrize("per", ["run", "task"])
def test_profile_equals_naive_twin(per, monkeypatch):
    monkeypatch.setattr(ag, "_BLOCK_CELLS", 100)
    m = np.round(_task_effects(3, n=4, T=5), 1)  # ties with the thresholds
    thr = [-1.0, -0.5, 0.0, 0.1, 0.5, 1.0]
    reps = 90
    out = ag.performance_profile({"a": m}, thr, per=per, reps=reps, seed=1)
    idx, tasks = _same_draws("a", m, reps, 1, False, 2)
    vals = np.array([naive.naive_profile(naive.naive_resample(m, idx[b], tasks[b]), thr, per)
                     for b in range(reps)])
    np.testing.assert_allclose(out["fraction"], naive.naive_profile(m, thr, per), atol=1e-15)
    for k in range(len(thr)):
        lo, hi = naive.naive_percentile_interval(0.0, vals[:, k], 0.95)
        assert out["low"][k] == pytest.approx(lo, abs=1e-12)
        assert out["high"][k] == pytest.approx(hi, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(x=hnp.arrays(np.float64, st.integers(1, 40),
                    elements=st.sampled_from([-1.5, 0.0, 0.25, 0.5, 2.0, 7.0])))
def test_median_by_selection_equals_numpy(x):
    from genexpy_nb._numba.aggregates import _median_inplace

    y = x.copy()
    assert _median_inplace(y, x.size // 2) == np.median(x)
    assert np.array_equal(np.sort(y), np.sort(x))  # reordered, nothing lost


@settings(max_examples=80, deadline=None)
@given(x=hnp.arrays(np.float64, st.integers(1, 40),
                    elements=st.sampled_from([-1.5, 0.0, 0.25, 0.5, 2.0, 7.0])),
       lo=st.sampled_from([-2.0, 0.0, 0.25, 0.5, 3.0]), width=st.sampled_from([0.0, 0.3, 9.0]))
def test_median_in_a_window_equals_numpy(x, lo, width):
    # the window [lo, lo + width] holds the median's ranks or not (then all are selected);
    # two replicates side by side: x and its reverse
    from genexpy_nb._numba.aggregates import _medians_batched

    T = x.size
    tm = np.ascontiguousarray(np.stack([x, x[::-1]], axis=1))
    before = tm.copy()
    res = np.empty(2)
    _medians_batched(tm, 2, T // 2, lo, lo + width, np.empty((2, T)), np.empty(2, np.int64),
                     np.empty(2, np.int64), np.empty(T), res)
    assert res[0] == np.median(x) and res[1] == np.median(x)
    assert np.array_equal(tm, before)  # not reordered


def test_intervals_with_counts_beyond_a_byte_equal_naive_twin():
    # the task bootstrap on 2 x 130 cells: a cell may be drawn more than 255 times, so the
    # kernel counts in int32 (uint8 elsewhere)
    m = _task_effects(7, n=2, T=130)
    reps, c = 60, 0.9
    out = ag.interval_estimates({"alg": m}, reps=reps, confidence_level=c,
                                task_bootstrap=True, seed=5)
    idx, tasks = _kernel_draws("alg", m, reps, 5, True)
    twins = {"median": naive.naive_median_of_means, "iqm": naive.naive_iqm,
             "mean": naive.naive_mean_of_means,
             "optimality_gap": lambda x: naive.naive_optimality_gap(x, 1.0)}
    for row in out.iter_rows(named=True):
        f = twins[row["aggregate"]]
        vals = [f(naive.naive_resample(m, idx[b], tasks[b])) for b in range(reps)]
        lo, hi = naive.naive_percentile_interval(f(m), vals, c)
        assert row["low"] == pytest.approx(lo, abs=1e-12)
        assert row["high"] == pytest.approx(hi, abs=1e-12)


@pytest.mark.parametrize("task_bootstrap", [False, True])
def test_intervals_on_a_thousand_cells_equal_naive_twin(task_bootstrap):
    # 50 x 20 cells: the kernel sums the bulk of each end of the sorted scores for a batch
    # of replicates at once and walks on; with the task bootstrap (the per-replicate
    # kernel, whose bulk is checked below) and strong task effects some replicates' cuts
    # fall inside that bulk and walk the whole end (the batched kernel's rare paths:
    # test_batched_replicates_equal_naive_twin_on_their_rare_paths)
    m = _task_effects(11, n=50, T=20, spread=3.0)
    reps, c = 80, 0.9
    out = ag.interval_estimates({"alg": m}, ["iqm"], reps=reps, confidence_level=c,
                                task_bootstrap=task_bootstrap, seed=6)
    idx, tasks = _kernel_draws("alg", m, reps, 6, task_bootstrap)
    vals = [naive.naive_iqm(naive.naive_resample(m, idx[b], tasks[b])) for b in range(reps)]
    lo, hi = naive.naive_percentile_interval(naive.naive_iqm(m), vals, c)
    assert out["low"][0] == pytest.approx(lo, abs=1e-12)
    assert out["high"][0] == pytest.approx(hi, abs=1e-12)
    N = m.size
    need = N // 4
    bulk = need - (4 * int(np.sqrt(N)) + 32)  # sorted positions summed for the batch
    cut = np.sort(m.T.ravel())[bulk]
    inside = [(naive.naive_resample(m, idx[b], tasks[b]) < cut).sum() >= need
              for b in range(reps)]
    assert any(inside) if task_bootstrap else not any(inside)


@pytest.mark.parametrize("gamma", [0.2, -0.4, 9.0])  # clipped from the top, the bottom, none
@pytest.mark.parametrize("narrow", [False, True])
def test_batched_replicates_equal_naive_twin_on_their_rare_paths(gamma, narrow, monkeypatch):
    # without the task bootstrap the kernel runs batches of replicates side by side; with
    # narrow windows about the IQM's cuts and the median, the replicates whose cut falls
    # inside the bulk, beyond the window, or whose median falls outside its window (all
    # checked to occur) take the exact fallbacks
    if narrow:
        monkeypatch.setattr(ag, "_CUT_SDS", 0.0)
        monkeypatch.setattr(ag, "_CUT_PAD", 3)
        monkeypatch.setattr(ag, "_MEDIAN_WINDOW", 40)
    monkeypatch.setattr(ag, "_REPS_PER_STEP", 70)  # batches cut short by the steps
    m = _task_effects(12, n=30, T=20, spread=0.3, noise=0.5)
    m[:3, 0] = m[3, 0]  # ties
    reps, c = 150, 0.9
    out = ag.interval_estimates({"a": m, "b": m[::-1] * 0.5 + 0.1}, gamma=gamma, reps=reps,
                                confidence_level=c, seed=7)
    idx, tasks = _kernel_draws("a", m, reps, 7, False)
    twins = {"median": naive.naive_median_of_means, "iqm": naive.naive_iqm,
             "mean": naive.naive_mean_of_means,
             "optimality_gap": lambda x: naive.naive_optimality_gap(x, gamma)}
    reps_a = [naive.naive_resample(m, idx[b], tasks[b]) for b in range(reps)]
    for name, mat in (("a", m), ("b", m[::-1] * 0.5 + 0.1)):
        reps_mats = [naive.naive_resample(mat, idx[b], tasks[b]) for b in range(reps)]
        for row in out.filter(pl.col("alternative") == name).iter_rows(named=True):
            f = twins[row["aggregate"]]
            lo, hi = naive.naive_percentile_interval(f(mat), [f(x) for x in reps_mats], c)
            assert row["low"] == pytest.approx(lo, abs=1e-12)
            assert row["high"] == pytest.approx(hi, abs=1e-12)
    if narrow:  # the rare paths were taken (for alternative a)
        n, T = m.shape
        need = m.size // 4
        pos = np.empty(m.size, dtype=int)
        pos[np.argsort(m.T.ravel(), kind="stable")] = np.arange(m.size)
        drawn = [pos[np.arange(T)[:, None] * n + idx[b]] for b in range(reps)]
        assert any((d < need - 3).sum() >= need for d in drawn)  # the cut inside the bulk
        assert any((d < need + 3).sum() < need for d in drawn)  # the cut beyond the window
        tm = np.sort(m.mean(axis=0))
        h = T // 2
        sm = [np.sort(naive.naive_task_means(x)) for x in reps_a]
        assert any(v[h - 1] < tm[h - 2] or v[h] > tm[h + 1] for v in sm)  # the median's


def test_an_alternatives_interval_depends_on_the_seed_and_its_scores_only():
    # every alternative of a shape is resampled with the same draws (rliable with a fixed
    # random_state): its interval is the same alone, under another name, or with others of
    # its shape or of another shape in the call
    a, b, c = _task_effects(1, n=6, T=9), _task_effects(2, n=6, T=9), _task_effects(3, 4, 9)
    both = ag.interval_estimates({"a": a, "b": b, "c": c}, reps=300, seed=8)
    for name, m in (("a", a), ("b", b), ("c", c)):
        alone = ag.interval_estimates({"other name": m}, reps=300, seed=8)
        mine = both.filter(pl.col("alternative") == name)
        assert mine.drop("alternative").equals(alone.drop("alternative"))
    twice = ag.interval_estimates({"a": a, "copy": a.copy()}, reps=300, seed=8)
    assert twice["low"][:4].to_list() == twice["low"][4:].to_list()


@pytest.mark.parametrize("task_bootstrap", [False, True])  # batched replicates, per replicate
def test_interval_replicates_same_bits_at_any_thread_count_and_step(task_bootstrap, monkeypatch):
    import genexpy_nb._numba as nb
    from genexpy_nb import config
    from genexpy_nb._numba import threads

    monkeypatch.setattr(nb, "_max_threads", lambda: 4)
    m = _task_effects(5, n=6, T=9)
    outs = []
    with config.force_route(parallel_min_work=0):
        for t, step in ((1, 4096), (2, 7), (4, 50)):
            monkeypatch.setattr(ag, "_REPS_PER_STEP", step)
            with threads(t):
                outs.append(ag.interval_estimates({"a": m, "b": m + 0.1}, reps=300, seed=2,
                                                  task_bootstrap=task_bootstrap))
    for o in outs[1:]:
        assert o.equals(outs[0])


# ---- the task bootstrap's NumPy route: the kernel's bits, without loading numba ----------
def _kernel_layout(ms, gamma):
    """The arguments both task-bootstrap paths take, as ``_aggregate_replicates`` builds them."""
    n, T = ms[0].shape
    N, A = n * T, len(ms)
    scores, srts = np.empty((N, A)), np.empty((A, N))
    orders = np.empty((A, N), dtype=np.int32)
    for i, m in enumerate(ms):
        flat, pos, srt = ag._sorted_layout(m)
        scores[:, i], srts[i] = flat, srt
        orders[i, pos] = np.arange(N, dtype=np.int32)
    lo = int(0.25 * N)
    return (scores, np.minimum(scores, gamma), bool(np.any(scores > gamma)), orders, srts, n,
            T), lo, N - lo


@given(n=st.integers(1, 6), T=st.integers(1, 40), A=st.integers(1, 3),
       gamma=st.sampled_from([-0.5, 0.3, 9.0]), key=st.integers(0, 2**63 - 1),
       b0=st.integers(0, 10**6), reps=st.integers(1, 60),
       values=st.sampled_from(["continuous", "ties", "signed zeros"]))
@settings(max_examples=60, deadline=None)
def test_task_bootstrap_numpy_route_has_the_kernels_bits(n, T, A, gamma, key, b0, reps, values):
    from genexpy_nb._numba import aggregates as ka
    from genexpy_nb.aggregates import _replicates_numpy as rn

    rng = np.random.default_rng(key % 1000)
    if values == "continuous":
        ms = [_task_effects(key % 97 + a, n=n, T=T, spread=2.0) for a in range(A)]
    elif values == "ties":
        ms = [rng.choice([0.0, 0.25, 0.5, 1.0], size=(n, T)) for _ in range(A)]
    else:  # -0.0 and 0.0: only the sign of a zero sum could tell the paths apart
        ms = [rng.choice([-0.0, 0.0, -1.5, 2.0], size=(n, T), p=[0.4, 0.4, 0.1, 0.1])
              for _ in range(A)]
    args, lo, hi = _kernel_layout(ms, gamma)
    key = np.uint64(key)
    N = n * T
    want = np.empty((b0 + reps, A, 4))
    ka.bootstrap_aggregates(*args, key, True, lo, hi, b0, b0 + reps, want,
                            np.zeros((N, 3), dtype=np.uint8 if N <= 255 else np.int32))
    got = np.empty_like(want)
    rn.bootstrap_aggregates(*args, key, lo, hi, b0, b0 + reps, got)
    assert np.array_equal(got[b0:].view(np.uint64), want[b0:].view(np.uint64))  # bit for bit
    runs, tasks = rn.replicate_draws(key, b0, b0 + reps, n, T)
    kr, kt = np.empty((T, n), dtype=np.int64), np.empty(T, dtype=np.int64)
    for b in range(b0, b0 + reps):
        ka.replicate_draws(key, b, n, T, True, kr, kt)
        assert np.array_equal(runs[b - b0], kr) and np.array_equal(tasks[b - b0], kt)


def test_task_bootstrap_numpy_route_on_the_kernels_rare_paths(monkeypatch):
    # a thousand cells: the IQM's ends sum a bulk before walking on, and with strong task
    # effects some replicates' cuts fall inside it (the whole end walked); small chunks of
    # replicates; Lemire's rejection step (its state advanced and drawn afresh)
    from genexpy_nb._numba import aggregates as ka
    from genexpy_nb.aggregates import _replicates_numpy as rn

    monkeypatch.setattr(rn, "_CHUNK_CELLS", 5000)
    ms = [_task_effects(11, n=50, T=20, spread=3.0), _task_effects(12, n=50, T=20)]
    args, lo, hi = _kernel_layout(ms, 0.5)
    key, reps = np.uint64(6), 80
    want, got = np.empty((reps, 2, 4)), np.empty((reps, 2, 4))
    ka.bootstrap_aggregates(*args, key, True, lo, hi, 0, reps, want,
                            np.zeros((1000, 4), dtype=np.int32))
    rn.bootstrap_aggregates(*args, key, lo, hi, 0, reps, got)
    assert np.array_equal(got.view(np.uint64), want.view(np.uint64))
    runs, tasks = rn.replicate_draws(key, 0, reps, 50, 20)
    pos = np.empty(1000, dtype=np.int64)
    pos[args[3][0]] = np.arange(1000)  # the sorted position of each cell (alternative 0)
    drawn = pos[tasks[:, :, None] * 50 + runs].reshape(reps, -1)
    bulk = lo - (4 * int(np.sqrt(1000)) + 32)
    inside = (drawn < bulk).sum(axis=1) >= lo
    assert inside.any() and not inside.all()  # both of the low end's paths were taken
    for k in (3, 5, 1000, 30_000):
        thr = int((2**21 - k) % k)
        x = np.array([0, 1, thr - 1, thr, thr + 1, 2**21 - 1], dtype=np.uint64) % np.uint64(
            2**21)
        lows = (x * np.uint64(k)) & np.uint64(2**21 - 1)
        assert (lows < np.uint64(thr)).any()  # some are rejected
        for s0 in (0, 12345, 2**64 - 7):
            state = np.full(x.size, s0, dtype=np.uint64)
            got_k = rn._lemire(state, x.copy(), k)
            for i in range(x.size):
                s_want, v_want = ka._lemire(np.uint64(s0), x[i], k)
                assert got_k[i] == v_want and state[i] == s_want


@pytest.mark.parametrize("T", [300, 1000, 1001])
@pytest.mark.parametrize("values", ["continuous", "ties", "signed zeros"])
def test_task_bootstrap_one_run_medians_from_counts_have_the_kernels_bits(T, values):
    # one run per task (a leaderboard's items): the kernel reads each replicate's median
    # from the draws' counts along the sorted positions (a bulk for the whole batch, then
    # a walk), as the NumPy route does; beyond a few hundred tasks the bulk is used
    from genexpy_nb._numba import aggregates as ka
    from genexpy_nb.aggregates import _replicates_numpy as rn

    rng = np.random.default_rng(T)
    if values == "continuous":
        ms = [_task_effects(a, n=1, T=T) for a in range(3)]
    elif values == "ties":
        ms = [rng.choice([0.0, 1.0], size=(1, T)) for _ in range(3)]
    else:
        ms = [rng.choice([-0.0, 0.0, -1.5, 2.0], size=(1, T), p=[0.4, 0.4, 0.1, 0.1])
              for _ in range(3)]
    args, lo, hi = _kernel_layout(ms, 0.5)
    key, reps = np.uint64(17), 70
    want, got = np.empty((reps, 3, 4)), np.empty((reps, 3, 4))
    ka.bootstrap_aggregates(*args, key, True, lo, hi, 0, reps, want,
                            np.zeros((T, 32), dtype=np.int32))
    rn.bootstrap_aggregates(*args, key, lo, hi, 0, reps, got)
    assert np.array_equal(got.view(np.uint64), want.view(np.uint64))
    # and the medians are those of the replicates' task means, computed naively
    runs, tasks = rn.replicate_draws(key, 0, reps, 1, T)
    for a, m in enumerate(ms):
        assert np.array_equal(want[:, a, 0], np.median(0.0 + m[0][tasks], axis=1))


@pytest.mark.parametrize("window", [0, 1, 3, 50])
@pytest.mark.parametrize("T", [7, 8, 40])
def test_medians_from_counts_on_either_path(window, T):
    # the bulk (counted for the whole batch) and the walk on from it, or from the start
    # when the median lies inside the bulk: both give the h-th drawn value
    from genexpy_nb._numba import aggregates as ka

    rng = np.random.default_rng(T + window)
    vals = np.sort(rng.choice([-0.0, 0.0, 0.5, 1.0, 2.0], size=T))
    order = rng.permutation(T).astype(np.int32)
    nr = 9
    counts = np.zeros((T, nr), dtype=np.int32)
    for r in range(nr):  # T draws each, some piled on the lowest cells (inside the bulk)
        pile = rng.integers(0, 3) if r % 2 else 0
        drawn = rng.integers(0, T, size=T)
        drawn[: T * pile // 3] = rng.integers(0, 2, size=T * pile // 3)
        sorted_pos = np.sort(drawn)
        np.add.at(counts[:, r], order[sorted_pos], 1)
    h = T // 2
    res, cum = np.empty(nr), np.zeros(nr, dtype=np.int64)
    ka._count_medians(counts, order, vals, h, T % 2 == 0, window, nr, cum, res)
    for r in range(nr):
        pos = np.empty(T, dtype=np.int64)
        pos[order] = np.arange(T)
        drawn_vals = np.repeat(0.0 + vals[np.arange(T)], counts[order, r])
        assert res[r] == np.median(drawn_vals)
        assert np.signbit(res[r]) == np.signbit(np.median(drawn_vals))


@pytest.mark.parametrize("shape", [(1, 104, 18), (3, 9, 4)])
def test_interval_estimates_same_frame_on_either_task_bootstrap_route(shape):
    from genexpy_nb import config

    n, T, A = shape
    data = {f"m{a}": _task_effects(a, n=n, T=T) for a in range(A)}
    frames = []
    for route in ("numpy", "numba"):
        with config.force_route(route):
            frames.append(ag.interval_estimates(data, reps=700, seed=3, task_bootstrap=True))
    assert frames[0].equals(frames[1])
    # a report's bootstrap on an 18 x 104 table (10,000 replicates) takes the NumPy route
    assert config.ROUTES.aggregates_numpy_max_work >= 10_000 * 18 * 104


def test_task_bootstrap_takes_the_kernel_once_numba_is_loaded(monkeypatch):
    # a report has loaded numba by the time it bootstraps the aggregates: the kernel (2-3x
    # faster) even on a small table, with the NumPy route's frame; forced NumPy stays NumPy
    import numba  # noqa: F401  (loaded, as in a report)

    from genexpy_nb import config
    from genexpy_nb.aggregates import _replicates_numpy as rn

    data = {f"m{a}": _task_effects(a, n=1, T=50) for a in range(5)}
    with config.force_route("numpy"):
        want = ag.interval_estimates(data, reps=500, seed=2, task_bootstrap=True)

    def refuse(*args, **kwargs):
        raise AssertionError("the NumPy route was taken")

    monkeypatch.setattr(rn, "bootstrap_aggregates", refuse)
    assert 500 * 5 * 50 <= config.ROUTES.aggregates_numpy_max_work  # NumPy's by the bound
    got = ag.interval_estimates(data, reps=500, seed=2, task_bootstrap=True)
    assert got.equals(want)
    with config.force_route("numpy"), pytest.raises(AssertionError, match="NumPy route"):
        ag.interval_estimates(data, reps=500, seed=2, task_bootstrap=True)


@pytest.mark.parametrize("method", ["percentile", "basic"])
def test_interval_ends_and_their_monte_carlo_error_from_one_selection(method):
    rng = np.random.default_rng(0)
    for R, c in ((7, 0.95), (150, 0.9), (20_000, 0.5)):
        rv, est = rng.normal(size=(R, 4)), rng.normal(size=4)
        lo, hi, lo_err, hi_err = ag._interval_and_mc_error(est, rv, c, method)
        assert np.array_equal((lo, hi), ag._interval(est, rv, c, method))  # the same bits
        for p, err in (((1 - c) / 2, lo_err), (1 - (1 - c) / 2, hi_err)):
            d = np.sqrt(p * (1 - p) / R)
            a, b = np.quantile(rv, [max(0.0, p - d), min(1.0, p + d)], axis=0)
            assert np.array_equal(err, 0.5 * (b - a))


def test_monte_carlo_error_of_the_interval_ends_matches_their_spread_over_seeds():
    m = _task_effects(6, n=8, T=12)
    runs = [ag.interval_estimates({"a": m}, ["iqm", "mean"], reps=1000, seed=s)
            for s in range(40)]
    for agg in ("iqm", "mean"):
        rows = [r.filter(pl.col("aggregate") == agg) for r in runs]
        for end in ("low", "high"):
            spread = float(np.std([r[end][0] for r in rows], ddof=1))
            reported = float(np.mean([r[f"{end}_mc_error"][0] for r in rows]))
            assert 0.6 * spread < reported < 1.6 * spread, (agg, end, spread, reported)


# ---- intervals: against rliable, within Monte Carlo error ---------------------------------
@pytest.mark.parametrize("task_bootstrap", [False, True])
def test_intervals_within_monte_carlo_error_of_rliable(rly, task_bootstrap):
    """Same replicates count (5,000): the ends agree within 6 % of the interval's width,
    about 5 Monte Carlo standard deviations of the difference of two such ends. A pooled
    (unstratified) bootstrap would be several times wider on these data."""
    library, metrics = rly
    m = _task_effects(0, n=10, T=20)
    reps = 5000
    p, ci = _rliable_intervals(library, metrics, m, reps, seed=1, task_bootstrap=task_bootstrap)
    out = ag.interval_estimates({"a": m}, gamma=0.5, reps=reps, seed=1,
                                task_bootstrap=task_bootstrap)
    np.testing.assert_allclose(out["estimate"], p, atol=1e-12)
    width = ci[1] - ci[0]
    np.testing.assert_array_less(np.abs(out["low"].to_numpy() - ci[0]), 0.06 * width)
    np.testing.assert_array_less(np.abs(out["high"].to_numpy() - ci[1]), 0.06 * width)


def test_improvement_within_monte_carlo_error_of_rliable(rly):
    """rliable runs one Mann-Whitney test per task and replicate (slow): 600 replicates on
    4 tasks; the ends then agree within 15 % of the width (about 4 Monte Carlo standard
    deviations)."""
    library, metrics = rly
    rng = np.random.default_rng(5)
    x = _task_effects(5, n=8, T=4) + 0.1
    y = _task_effects(5, n=5, T=4) + rng.normal(0, 0.05, (5, 4))
    state = np.random.get_state()  # noqa: NPY002 (rliable draws from the global RNG)
    np.random.seed(3)  # noqa: NPY002 (rliable draws from the global RNG)
    try:
        p, ci = library.get_interval_estimates({"xy": [x, y]},
                                               metrics.probability_of_improvement, reps=600)
    finally:
        np.random.set_state(state)  # noqa: NPY002 (rliable draws from the global RNG)
    out = ag.probability_of_improvement({"x": x, "y": y}, reps=600, seed=2)
    assert out["estimate"][0] == pytest.approx(p["xy"], abs=1e-12)
    width = ci["xy"][1, 0] - ci["xy"][0, 0]
    assert abs(out["low"][0] - ci["xy"][0, 0]) < 0.15 * width
    assert abs(out["high"][0] - ci["xy"][1, 0]) < 0.15 * width


def test_profiles_within_monte_carlo_error_of_rliable(rly):
    library, _ = rly
    x = _task_effects(5, n=8, T=10) + 0.1
    thr = np.linspace(-2, 2, 9)
    state = np.random.get_state()  # noqa: NPY002 (rliable draws from the global RNG)
    np.random.seed(3)  # noqa: NPY002 (rliable draws from the global RNG)
    try:
        prof, pci = library.create_performance_profile({"x": x}, thr, reps=2000)
    finally:
        np.random.set_state(state)  # noqa: NPY002 (rliable draws from the global RNG)
    pr = ag.performance_profile({"x": x}, thr, reps=2000, seed=2)
    np.testing.assert_allclose(pr["fraction"], prof["x"], atol=1e-12)
    # bands of fractions of 80 scores move in steps of 1/80 = 0.0125
    np.testing.assert_allclose(pr["low"], pci["x"][0], atol=0.026)
    np.testing.assert_allclose(pr["high"], pci["x"][1], atol=0.026)


# ---- invariants ------------------------------------------------------------------------------
@given(centres=hnp.arrays(np.float64, st.integers(1, 5), elements=st.floats(-5, 5)),
       half=st.integers(1, 4), spread=st.floats(0.01, 2), seed=st.integers(0, 1000))
@settings(max_examples=30, deadline=None)
def test_symmetric_data_intervals_contain_the_mean(centres, half, spread, seed):
    """Runs symmetric around each task's centre: the bootstrap distribution of the mean is
    symmetric about the estimate, so the interval contains it; and low <= high always."""
    e = np.random.default_rng(seed).uniform(0, spread, (half, centres.size))
    m = np.vstack([centres + e, centres - e])
    out = ag.interval_estimates({"a": m}, reps=400, seed=seed)
    assert (out["low"] <= out["high"]).all()
    row = out.filter(pl.col("aggregate") == "mean").row(0, named=True)
    assert row["low"] - 1e-12 <= row["estimate"] <= row["high"] + 1e-12


def test_constant_scores_give_a_point_interval():
    out = ag.interval_estimates({"a": np.full((3, 4), 0.7)}, reps=50)
    np.testing.assert_allclose(out["low"], out["estimate"])
    np.testing.assert_allclose(out["high"], out["estimate"])
    np.testing.assert_allclose(out["estimate"], [0.7, 0.7, 0.7, 0.3])


def test_seeded_and_independent_of_other_alternatives():
    a, b = _task_effects(1, 6, 5), _task_effects(2, 4, 5)
    one = ag.interval_estimates({"A": a}, reps=300, seed=7)
    two = ag.interval_estimates({"B": b, "A": a}, reps=300, seed=7)
    again = ag.interval_estimates({"B": b, "A": a}, reps=300, seed=7)
    assert two.equals(again)
    assert one.equals(two.filter(pl.col("alternative") == "A"))
    other = ag.interval_estimates({"A": a}, reps=300, seed=8)
    assert not one.equals(other)


def test_profile_invariants():
    m = _task_effects(4, 6, 8)
    out = ag.performance_profile({"a": m, "b": m + 0.5}, reps=200)
    assert out.height == 2 * 101
    for _, g in out.group_by("alternative"):
        f = g["fraction"].to_numpy()
        assert np.all(np.diff(f) <= 0) and f[0] <= 1 and f[-1] == 0
        assert (g["low"] <= g["high"]).all()
    fa = out.filter(pl.col("alternative") == "a")["fraction"].to_numpy()
    fb = out.filter(pl.col("alternative") == "b")["fraction"].to_numpy()
    assert np.all(fb >= fa)  # shifted up: dominant everywhere


def test_control_pairs():
    d = {k: _task_effects(i, 5, 4) for i, k in enumerate("ABC")}
    out = ag.probability_of_improvement(d, control="B", reps=50)
    assert out.select("alternative_1", "alternative_2").rows() == [("A", "B"), ("C", "B")]
    allp = ag.probability_of_improvement(d, reps=50)
    assert allp.select("alternative_1", "alternative_2").rows() == [
        ("A", "B"), ("A", "C"), ("B", "C")]
    same = ag.probability_of_improvement({"x": d["A"], "y": d["A"]}, reps=50)
    assert same["estimate"][0] == 0.5


# ---- input forms -----------------------------------------------------------------------------
def _long(d):
    rows = []
    for name, m in d.items():
        for i in range(m.shape[0]):
            for t in range(m.shape[1]):
                rows.append({"algo": name, "task": f"t{t:02d}", "seed": i, "score": m[i, t]})
    return pl.DataFrame(rows)


def test_long_tables_equal_dicts():
    d = {"A": _task_effects(1, 4, 6), "B": _task_effects(2, 3, 6)}
    long = _long(d)
    ref = ag.interval_estimates(d, reps=200, seed=1)
    kw = dict(alternatives="algo", task="task", target="score", reps=200, seed=1)
    assert ag.interval_estimates(long, run="seed", **kw).equals(ref)
    shuffled = long.sample(fraction=1.0, shuffle=True, seed=3)
    got = ag.interval_estimates(shuffled, run="seed", **kw)  # alternatives in row order
    assert got.sort("alternative", maintain_order=True).equals(ref)
    assert ag.interval_estimates(long.to_pandas(), run="seed", **kw).equals(ref)
    assert ag.interval_estimates(long, **kw).equals(ref)  # rows in run order
    mats = ag.score_matrices(long, alternatives="algo", task="task", target="score",
                             run="seed")
    assert list(mats) == ["A", "B"] and np.array_equal(mats["B"], d["B"])
    # blocks= is the word, rliable's task= its alias: the same frame
    blocks_kw = {**{k: v for k, v in kw.items() if k != "task"}, "blocks": "task"}
    assert ag.interval_estimates(long, run="seed", **blocks_kw).equals(ref)
    with pytest.raises(GenexpyInputError, match="alias task"):
        ag.score_matrices(long, alternatives="algo", blocks="task", task="seed",
                          target="score")
    before = long.clone()
    ag.performance_profile(long, per="task", reps=20, **{k: v for k, v in kw.items()
                                                          if k not in ("reps",)})
    assert long.equals(before)


def test_input_errors():
    d = {"A": _task_effects(1, 4, 6)}
    long = _long({"A": d["A"], "B": _task_effects(2, 4, 6)})
    kw = dict(alternatives="algo", task="task", target="score", run="seed", reps=10)
    with pytest.raises(GenexpyInputError, match="no run on task"):
        ag.iqm(long.filter(~((pl.col("algo") == "B") & (pl.col("task") == "t03"))), **kw)
    with pytest.raises(GenexpyInputError, match="different numbers of runs"):
        ag.iqm(long.filter(~((pl.col("algo") == "B") & (pl.col("task") == "t03")
                             & (pl.col("seed") == 0))), **kw)
    with pytest.raises(GenexpyInputError, match="several rows"):
        ag.iqm(pl.concat([long, long.head(1)]), **kw)
    with pytest.raises(GenexpyInputError, match="finite score"):
        ag.iqm(long.with_columns(pl.when(pl.col("seed") == 0).then(None)
                                 .otherwise(pl.col("score")).alias("score")), **kw)
    with pytest.raises(GenexpyInputError, match="not found"):
        ag.iqm(long, **{**kw, "task": "dataset"})
    with pytest.raises(GenexpyInputError, match="long table needs"):
        ag.iqm(long, target="score", reps=10)
    with pytest.raises(GenexpyInputError, match="single array"):
        ag.iqm(d["A"])
    with pytest.raises(GenexpyInputError, match="shape"):
        ag.iqm({"A": d["A"][0]})
    with pytest.raises(GenexpyInputError, match="same tasks"):
        ag.iqm({"A": d["A"], "B": d["A"][:, :3]})
    with pytest.raises(GenexpyInputError, match="missing or infinite"):
        ag.iqm({"A": np.r_[d["A"], np.full((1, 6), np.inf)]})
    with pytest.raises(GenexpyInputError, match="aggregates"):
        ag.interval_estimates(d, "iqr")
    with pytest.raises(GenexpyInputError, match="method"):
        ag.iqm(d, method="bca")
    with pytest.raises(GenexpyInputError, match="reps"):
        ag.iqm(d, reps=1)
    with pytest.raises(GenexpyInputError, match="seed"):
        ag.iqm(d, seed=-1, reps=10)
    with pytest.raises(GenexpyInputError, match="per"):
        ag.performance_profile(d, per="seed")
    with pytest.raises(GenexpyInputError, match="thresholds"):
        ag.performance_profile(d, [np.nan])
    with pytest.raises(GenexpyInputError, match="not an alternative"):
        ag.probability_of_improvement({"A": d["A"], "B": d["A"]}, control="C")
    with pytest.raises(GenexpyInputError, match="itself"):
        ag.probability_of_improvement({"A": d["A"], "B": d["A"]}, pairs=[("A", "A")])
    with pytest.raises(GenexpyInputError, match="at least 2"):
        ag.probability_of_improvement(d)


def test_one_aggregate_functions_and_gamma():
    d = {"A": _task_effects(1, 4, 6)}
    for f, name in ((ag.iqm, "iqm"), (ag.mean, "mean"), (ag.median, "median")):
        out = f(d, reps=20)
        assert out["aggregate"].to_list() == [name]
    og = ag.optimality_gap(d, gamma=0.0, reps=20)
    m = d["A"]
    assert og["estimate"][0] == pytest.approx(-np.mean(np.minimum(m, 0.0)))
    frame = pd.DataFrame({"algo": ["a"] * 4, "task": ["x", "x", "y", "y"],
                          "score": [1.0, 2.0, 3.0, 4.0]})
    out = ag.mean(frame, alternatives="algo", task="task", target="score", reps=20)
    assert out["estimate"][0] == 2.5 and out["n_runs"][0] == 2 and out["n_tasks"][0] == 2


def test_runs_beyond_what_the_draws_serve_are_refused(monkeypatch):
    from genexpy_nb._numba import streams

    monkeypatch.setattr(streams, "MAX_DRAW_RANGE", 4)
    with pytest.raises(GenexpyInputError, match="runs per task"):
        ag.interval_estimates({"a": _task_effects(0, n=5, T=3)}, reps=10)
    ag.interval_estimates({"a": _task_effects(0, n=4, T=6)}, reps=10)  # tasks: no bootstrap
    with pytest.raises(GenexpyInputError, match="task_bootstrap"):
        ag.interval_estimates({"a": _task_effects(0, n=4, T=6)}, reps=10, task_bootstrap=True)
