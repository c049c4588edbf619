"""genexpy_nb on a Dask cluster (extra [cluster]): pools, analyze and alpha-hat with client=.

One LocalCluster of 2 single-threaded worker processes serves the whole file; the pools are
a few tiny CNNs trained 1 epoch on 48 digits, so the file runs in well under a minute (most
of it is starting the workers and importing torch in them). A killed worker is restarted by
its nanny; the tests that kill one wait for it to come back.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import sys
import threading
import time

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

distributed = pytest.importorskip("distributed", reason="needs genexpy_nb[cluster]")
torch = pytest.importorskip("torch", reason="needs genexpy_nb[train]")

import genexpy_nb as gx  # noqa: E402
from genexpy_nb import GenexpyInputError  # noqa: E402
from genexpy_nb.distributed import (  # noqa: E402
    ClusterTaskError,
    SameMachineClusterWarning,
    as_client,
)
from genexpy_nb.seedpools import (  # noqa: E402
    MissingOptionalDependency,
    SmallCNN,
    digits_binary_task,
    load_pool,
    train_cnn_pool,
    train_pool,
)
from genexpy_nb.seedpools import cnn_seeds as cnn_seeds_mod  # noqa: E402
from genexpy_nb.variability import alpha_hat  # noqa: E402

#: the per-model results that must be the same bits (timings differ by nature)
SAME = ("gaps", "test_accuracy", "val_accuracy", "val_accuracy_curve", "train_loss",
        "init_seed", "order_seed")


@pytest.fixture(scope="module")
def cluster():
    c = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                 dashboard_address=None)
    client = distributed.Client(c)
    yield client
    client.close()
    try:
        c.close()
    except KeyError:  # distributed's SpecCluster can race with a worker its nanny restarts
        pass


@pytest.fixture(scope="module")
def tiny_task():
    return digits_binary_task(n_train=48, n_val=16, n_test=40, split_seed=1)


def _same_models(a, b):
    for key in SAME:
        assert np.array_equal(getattr(a, key), getattr(b, key)), key
    assert a.meta["config"] == b.meta["config"]


def _train(out, task, *, factory=None, **kw):
    """train_pool with the small CNN (``factory`` may add a delay: same models)."""
    kw = {"n_models": 6, "epochs": 1, "progress": False, **kw}
    return train_pool(out, task, factory or (lambda: SmallCNN(1, 8)), kind="test",
                      description="tiny CNNs", model_spec={"architecture": "SmallCNN(1, 8)"},
                      **kw)


def _slow_factory(delay: float):
    def factory():  # a local function: sent to the workers by value
        time.sleep(delay)  # slows the task down, leaves the model (and its seeds) alone
        return SmallCNN(1, 8)

    return factory


@pytest.fixture(scope="module")
def serial_pool(tiny_task, tmp_path_factory):
    return _train(tmp_path_factory.mktemp("serial") / "p.npz", tiny_task)


def test_pool_on_a_local_cluster_is_the_serial_pool(cluster, tiny_task, tmp_path):
    serial = train_cnn_pool(tmp_path / "s.npz", task=tiny_task, n_models=4, epochs=1,
                            progress=False)
    dist = train_cnn_pool(tmp_path / "d.npz", task=tiny_task, n_models=4, epochs=1,
                          progress=False, client=cluster)
    _same_models(serial, dist)
    assert not np.array_equal(dist.gaps[0], dist.gaps[1])  # the models do differ
    assert not (tmp_path / "d.npz.partial").exists()
    _same_models(load_pool(tmp_path / "d.npz"), serial)
    # every worker runs torch with the pool's n_threads (1)
    assert set(cluster.run(torch.get_num_threads).values()) == {1}
    # half serially, the rest on the cluster: still the same pool
    out = tmp_path / "mixed.npz"
    assert train_cnn_pool(out, task=tiny_task, n_models=4, epochs=1, progress=False,
                          max_new_models=2) is None
    mixed = train_cnn_pool(out, task=tiny_task, n_models=4, epochs=1, progress=False,
                           client=cluster)
    _same_models(mixed, serial)


def _kill_a_busy_worker(client, partial, n_done: int, timeout: float = 120.0) -> set[str]:
    """Wait until ``n_done`` models are saved, then SIGKILL a worker that is training one.

    Returns the names of the model files saved just before the kill.
    """
    t0 = time.monotonic()
    while len(list(partial.glob("model_*.npz"))) < n_done:
        assert time.monotonic() - t0 < timeout, "the pool did not start on the cluster"
        time.sleep(0.02)
    while True:
        busy = [w for w, keys in client.processing().items() if keys]
        if busy:
            break
        assert time.monotonic() - t0 < timeout, "no worker is training"
        time.sleep(0.01)
    pid = client.run(os.getpid, workers=busy[:1])[busy[0]]
    before = {p.name for p in partial.glob("model_*.npz")}
    os.kill(pid, signal.SIGKILL)
    return before


def _in_thread(fn):
    box: dict = {}

    def run():
        try:
            box["result"] = fn()
        except BaseException as exc:  # handed to the test thread
            box["error"] = exc

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t, box


def test_a_killed_worker_loses_no_finished_model(cluster, tiny_task, serial_pool, tmp_path):
    out = tmp_path / "p.npz"
    partial = tmp_path / "p.npz.partial"
    scheduler = cluster.cluster.scheduler
    old = scheduler.allowed_failures
    scheduler.allowed_failures = 0  # no retry: the model on the killed worker fails for good
    try:
        t, box = _in_thread(lambda: _train(out, tiny_task, factory=_slow_factory(0.4),
                                           client=cluster))
        before = _kill_a_busy_worker(cluster, partial, n_done=2)
        snapshot = {n: (partial / n).read_bytes() for n in before}
        t.join(timeout=120)
        assert not t.is_alive()
    finally:
        scheduler.allowed_failures = old
    # the model being trained on the killed worker failed; the call says so and what to do
    assert isinstance(box.get("error"), ClusterTaskError), box
    assert "run the same call again" in str(box["error"])
    # nothing finished was lost (the models saved before the kill are intact, and the other
    # worker went on), no pool file and no temporary file was left behind
    saved = {p.name for p in partial.glob("model_*.npz")}
    assert before <= saved and len(saved) < 6
    assert all((partial / n).read_bytes() == b for n, b in snapshot.items())
    assert not out.exists()
    assert not list(tmp_path.rglob("*.tmp"))
    # a rerun trains only the missing models (max_new_models = how many are missing), on the
    # workers there are (the killed one comes back when its nanny has restarted it)
    cluster.wait_for_workers(1, timeout=120)
    pool = _train(out, tiny_task, client=cluster, max_new_models=6 - len(saved))
    assert pool is not None
    _same_models(pool, serial_pool)


def test_a_killed_worker_is_replaced_and_the_pool_completes(cluster, tiny_task, serial_pool,
                                                            tmp_path):
    # the scheduler's default: a task whose worker died is run again elsewhere
    assert cluster.cluster.scheduler.allowed_failures >= 1
    cluster.wait_for_workers(2, timeout=300)  # the worker killed in the test before
    out = tmp_path / "p.npz"
    t, box = _in_thread(lambda: _train(out, tiny_task, factory=_slow_factory(0.4),
                                       client=cluster))
    _kill_a_busy_worker(cluster, tmp_path / "p.npz.partial", n_done=1)
    t.join(timeout=120)
    assert not t.is_alive() and "error" not in box, box
    _same_models(box["result"], serial_pool)
    _same_models(load_pool(out), serial_pool)


def test_the_command_line_trains_on_a_scheduler(cluster, tiny_task, tmp_path, capsys):
    out = tmp_path / "cli.npz"
    argv = ["--out", str(out), "--models", "3", "--epochs", "1", "--n-train", "48",
            "--n-val", "16", "--n-test", "40", "--split-seed", "1", "--no-progress",
            "--no-manifest"]
    assert cnn_seeds_mod.main([*argv, "--scheduler", cluster.scheduler.address]) == 0
    pool = load_pool(out)
    serial = train_cnn_pool(tmp_path / "s.npz", task=tiny_task, n_models=3, epochs=1,
                            progress=False)
    _same_models(pool, serial)
    # the regeneration command does not depend on where it ran
    assert "--scheduler" not in pool.meta["command"] and "--models 3" in pool.meta["command"]


def _study(n_configs: int = 6, N: int = 16, na: int = 4, seed: int = 0) -> gx.Study:
    rng = np.random.default_rng(seed)
    rows = []
    for cfg in range(n_configs):
        strength = cfg / n_configs  # from random rankings to a clear winner
        for cond in range(N):
            score = rng.random(na) + strength * np.arange(na)
            rows += [{"cfg": cfg, "cond": cond, "alt": f"a{a}", "score": float(score[a])}
                     for a in range(na)]
    return gx.Study(pl.DataFrame(rows), alternatives="alt", target="score", generalize="cond",
                    design="cfg", higher_is_better=True)


#: the local cluster of these tests runs on this machine: analyze says it is slower there
SAME_MACHINE = pytest.mark.filterwarnings(
    "ignore::genexpy_nb.distributed.SameMachineClusterWarning")


@SAME_MACHINE
def test_analyze_on_the_cluster_is_the_local_result(cluster):
    study = _study()
    kernels = [gx.Jaccard(k=1), gx.Mallows()]
    kw = {"alphas": [0.9, 0.95], "deltas": [0.05, 0.1], "rep": 30, "seed": 3,
          "progress": False}
    local = gx.analyze(study, kernels, **kw)
    with pytest.warns(SameMachineClusterWarning, match=r"all 2 workers .* on this machine"):
        dist = gx.analyze(study, kernels, client=cluster, **kw)
    assert local.height == 6 * 2 * 4 * 4 and local["nstar"].is_finite().any()
    assert_frame_equal(dist, local, check_exact=True)
    # chunks of any size: one configuration per task, or all in one
    from genexpy_nb.distributed import analyze_on_cluster

    args = {"estimators": gx.generalizability.METHODS, "disjoint": True, "replace": False,
            "grid": None, "n_jobs": None, **kw}
    for size in (1, 100):
        assert_frame_equal(analyze_on_cluster(cluster, study, kernels, chunk_size=size,
                                              **args), local, check_exact=True)
    # another seed gives other numbers (the seed reaches the workers)
    other = gx.analyze(study, kernels, client=cluster, **{**kw, "seed": 4})
    assert not other["nstar"].equals(local["nstar"])


@SAME_MACHINE
def test_analyze_same_bits_at_1_2_4_threads_and_on_the_cluster(cluster, monkeypatch):
    """The contract: the same frame at any ``n_jobs`` and on a cluster, bit for bit.

    Pairs per matrix product are fixed (not cut by the thread count), so a BLAS product
    sums every row in the same order whatever the threads; the study is large enough for
    the dense MMD path to split its pairs into several blocks on several threads.
    """
    import genexpy_nb._numba as nb
    from genexpy_nb import config

    monkeypatch.setattr(nb, "_max_threads", lambda: 4)  # 4 threads even on a 2-core runner
    study = _study(n_configs=2, N=40, na=6, seed=2)
    kernels = [gx.Mallows(), gx.RBF(), gx.Borda("a0")]
    kw = {"alphas": [0.9, 0.95], "deltas": [0.05, 0.1], "rep": 250, "seed": 8,
          "progress": False}
    with config.force_route(parallel_min_work=0):
        runs = {n: gx.analyze(study, kernels, n_jobs=n, **kw) for n in (1, 2, 4)}
    assert runs[1]["nstar"].is_finite().any()
    for n in (2, 4):
        assert_frame_equal(runs[n], runs[1], check_exact=True)
    assert_frame_equal(gx.analyze(study, kernels, client=cluster, **kw), runs[1],
                       check_exact=True)


def test_alpha_hat_on_the_cluster_is_the_local_result(cluster):
    rng = np.random.default_rng(7)
    ref = rng.normal(0, 2, size=(6, 50))
    cands = np.vstack([rng.normal(0, 2, size=(4, 50)), rng.normal(1.5, 2, size=(3, 50))])
    labels = rng.integers(0, 2, size=50)
    kw = {"B": 25, "progress": False}
    local = alpha_hat(ref, cands, labels, seed=5, **kw)
    dist = alpha_hat(ref, cands, labels, seed=5, client=cluster, **kw)
    assert_frame_equal(dist, local, check_exact=True)
    assert local["alpha_hat"][4:].mean() > local["alpha_hat"][:4].mean()
    # a Generator as the seed: the draws are made once, on the client
    a = alpha_hat(ref, cands, seed=np.random.default_rng(11), **kw)
    b = alpha_hat(ref, cands, seed=np.random.default_rng(11), client=cluster, **kw)
    assert_frame_equal(a, b, check_exact=True)


@SAME_MACHINE
def test_client_local_starts_and_closes_its_own_cluster(monkeypatch):
    import genexpy_nb._cluster as gd

    made = []

    def recording_local_client(*args, **kwargs):
        made.append(real(*args, **kwargs))
        return made[-1]

    real = gd.local_client
    monkeypatch.setattr(gd, "local_client", recording_local_client)
    study = _study(n_configs=3)
    kernels = [gx.Jaccard(k=1)]
    kw = {"alphas": 0.95, "deltas": 0.05, "rep": 20, "progress": False}
    dist = gx.analyze(study, kernels, client="local", **kw)
    assert_frame_equal(dist, gx.analyze(study, kernels, **kw), check_exact=True)
    # one embedded cluster of processes, one worker per core, closed when the call returned
    [client] = made
    assert client.status == "closed" and client.cluster.status.name == "closed"
    assert len(client.cluster.workers) == 0 or client.cluster.scheduler.status.name == "closed"


def test_dask_is_imported_only_when_a_client_is_given():
    import subprocess

    code = ("import sys, genexpy_nb, genexpy_nb.distributed, genexpy_nb.seedpools; "
            "from genexpy_nb.variability import alpha_hat; "
            "bad = [m for m in ('dask', 'distributed') if m in sys.modules]; "
            "assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True,
                   env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})


def test_client_errors(monkeypatch):
    with pytest.raises(GenexpyInputError, match="client must be a dask.distributed Client"):
        with as_client(42):
            pass
    study = _study(n_configs=2)
    with pytest.raises(GenexpyInputError, match="client must be"):
        gx.analyze(study, [gx.Mallows()], client=3.5, rep=5, progress=False)
    # bad analysis arguments are caught here, before anything is sent to a cluster
    with pytest.raises(GenexpyInputError, match="rep"):
        gx.analyze(study, [gx.Mallows()], client="never used", rep=1, progress=False)
    # without dask installed: one instruction, not a bare ModuleNotFoundError
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(MissingOptionalDependency, match=r"genexpy_nb\[cluster\]"):
        gx.analyze(study, [gx.Mallows()], client="local", rep=5, progress=False)


# ---- the same bits on a cluster, also when workers die; clear errors when they keep dying --

def _example_study() -> gx.Study:
    from genexpy_nb.example.demo import ROLES
    from genexpy_nb.example.study import load_example_study

    return gx.Study(load_example_study(), **ROLES)


def _on_cluster(client, study, kernels, **kw):
    from genexpy_nb import config
    from genexpy_nb.distributed import analyze_on_cluster

    args = {"alphas": config.ALPHAS, "deltas": config.DELTAS,
            "estimators": gx.generalizability.METHODS, "rep": config.REP, "seed": 0,
            "disjoint": True, "replace": False, "grid": None, "n_jobs": None,
            "progress": False, **kw}
    return analyze_on_cluster(client, study, kernels, **args)


@SAME_MACHINE
def test_the_shipped_example_on_the_cluster_is_the_local_run(cluster):
    """gx.analyze on the example (Jaccard k=1 and Mallows, seed 0): every column, every bit,
    whatever the chunks (one configuration per task, two, all in one)."""
    study = _example_study()
    kernels = [gx.Jaccard(k=1), gx.Mallows()]
    local = gx.analyze(study, kernels, seed=0, progress=False)
    assert local["nstar_hi"].is_finite().any()
    assert_frame_equal(gx.analyze(study, kernels, seed=0, progress=False, client=cluster),
                       local, check_exact=True)
    for size in (1, 2, 100):
        assert_frame_equal(_on_cluster(cluster, study, kernels, chunk_size=size), local,
                           check_exact=True)


def _kill_busy_workers(client, stop: threading.Event, times: int, every: float,
                       first_after: float = 0.3) -> list[int]:
    """SIGKILL a worker that is running a task, ``times`` times (until ``stop`` is set)."""
    killed: list[int] = []
    time.sleep(first_after)
    while not stop.is_set() and len(killed) < times:
        try:
            busy = [w for w, keys in client.processing().items() if keys]
            pids = client.run(os.getpid, workers=busy[:1]) if busy else {}
        except Exception:  # a worker died between the two calls: try again
            pids = {}
        for pid in pids.values():
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
        time.sleep(every if pids else 0.02)
    return killed


@SAME_MACHINE
def test_a_worker_killed_mid_run_changes_no_bit(cluster):
    """64 configurations in 64 tasks; a worker dies during the run, its tasks (and the study
    it held) are computed again elsewhere: the frame is the local one, bit for bit."""
    cluster.wait_for_workers(2, timeout=300)
    study = _study(n_configs=64, N=60, na=6, seed=3)
    kernels = [gx.Jaccard(k=1), gx.Mallows(), gx.Borda(), gx.RBF()]
    local = gx.analyze(study, kernels, seed=0, rep=200, progress=False)
    stop = threading.Event()
    t, box = _in_thread(lambda: _on_cluster(cluster, study, kernels, rep=200, chunk_size=1))
    killed = _kill_busy_workers(cluster, stop, times=1, every=0.5)
    t.join(timeout=300)
    stop.set()
    assert not t.is_alive() and "error" not in box, box
    assert len(killed) == 1
    assert_frame_equal(box["result"], local, check_exact=True)
    cluster.wait_for_workers(2, timeout=300)


@SAME_MACHINE
def test_workers_that_keep_dying_end_in_the_clear_error(monkeypatch):
    """Workers killed again and again (no retry allowed): the call ends in ClusterTaskError
    naming the failed chunks and their configurations, never a transport traceback."""
    import genexpy_nb._cluster as gc

    monkeypatch.setattr(gc, "NO_WORKER_TIMEOUT", 5.0)
    lc = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0")
    client = distributed.Client(lc)
    try:
        lc.scheduler.allowed_failures = 0  # a task on a killed worker fails at once
        study = _study(n_configs=64, N=60, na=6, seed=3)
        stop = threading.Event()
        kernels = [gx.Jaccard(k=1), gx.Mallows(), gx.Borda(), gx.RBF()]
        killer, kbox = _in_thread(lambda: _kill_busy_workers(client, stop, times=10,
                                                             every=0.3, first_after=0))
        t, box = _in_thread(lambda: _on_cluster(client, study, kernels, rep=300,
                                                chunk_size=1))
        t.join(timeout=300)
        stop.set()
        killer.join(timeout=30)
        assert not t.is_alive()
    finally:
        client.close()
        with contextlib.suppress(Exception):
            lc.close()
    assert kbox.get("result"), kbox  # workers were killed
    err = box.get("error")
    assert isinstance(err, ClusterTaskError), repr(err)
    msg = str(err)
    assert re.search(r"\d+ of 64 chunks failed on the cluster: chunks? \d", msg), msg
    assert "configuration" in msg and "(config_id)" in msg
    assert "Nothing was kept" in msg
    assert err.failed and set(err.failed) <= set(range(64))


@SAME_MACHINE
def test_a_cluster_without_workers_ends_in_the_clear_error(monkeypatch):
    """Every worker gone and none coming back: the tasks would wait for ever; the call gives
    up after NO_WORKER_TIMEOUT with the chunks it could not run."""
    import genexpy_nb._cluster as gc

    monkeypatch.setattr(gc, "NO_WORKER_TIMEOUT", 2.0)
    lc = distributed.LocalCluster(n_workers=0, processes=False, dashboard_address=":0")
    client = distributed.Client(lc)
    try:
        t0 = time.monotonic()
        with pytest.raises(ClusterTaskError, match=r"3 of 3 chunks failed .* chunks 0-2 "
                                                   r"\(they hold the configurations 0-2"):
            _on_cluster(client, _study(n_configs=3), [gx.Mallows()], rep=5, chunk_size=1)
        assert time.monotonic() - t0 < 60
    finally:
        client.close()
        lc.close()


def test_a_broken_connection_is_the_clear_error():
    """A transport error while submitting (CommClosedError) names the items, as a failure."""
    from distributed.comm import CommClosedError

    from genexpy_nb._cluster import map_ordered

    class Broken:
        def submit(self, *args, **kwargs):
            raise CommClosedError("in <TCP (closed)>: Stream is closed")

    with pytest.raises(ClusterTaskError, match=r"4 of 4 chunks failed on the cluster: "
                                               r"chunks 0-3; chunk 0: the connection"):
        map_ordered(Broken(), len, [1, 2, 3, 4], unit="chunk", progress=False)


def test_format_items():
    from genexpy_nb._cluster import format_items

    assert format_items([3], "chunk") == "chunk 3"
    assert format_items([5, 0, 1, 2, 9, 8], "chunk") == "chunks 0-2, 5 and 8-9"
    assert format_items(list(range(0, 40, 2)), "chunk", limit=3) == "chunks 0, 2, 4 and 17 more"
