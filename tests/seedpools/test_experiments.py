"""Seed studies run by genexpy_nb itself (genexpy_nb.seedpools): tiny training runs.

Every training run here is a few models, 1-2 epochs, on a small subset of the digits, so the
whole file takes seconds. Skipped (with the reason) when torch is not installed, except the
checks that must hold *without* torch.
"""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from genexpy_nb import GenexpyInputError
from genexpy_nb.seedpools import (
    SOURCES,
    BinaryTask,
    digits_binary_task,
    digits_transfer_tasks,
    load_cifar10_binary,
    load_pool,
    pool_seeds,
)

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "data"


def test_without_torch_training_says_what_to_install(tmp_path):
    # a fresh interpreter in which `import torch` fails: loading a pool still works, importing
    # a training function raises MissingOptionalDependency with the install instruction
    pools = sorted(DATA.glob("*.npz"))
    probe = f"""
import sys
sys.modules["torch"] = None
from genexpy_nb.seedpools import load_pool, MissingOptionalDependency
pools = {[str(p) for p in pools[:1]]!r}
for p in pools:
    assert load_pool(p).gaps.ndim == 2
for name in ("train_cnn_pool", "train_transfer_pool", "extract_features"):
    try:
        exec("from genexpy_nb.seedpools import " + name)
    except MissingOptionalDependency as exc:
        assert "install genexpy_nb[train] for" in str(exc), str(exc)
        assert isinstance(exc, ImportError)
    else:
        raise AssertionError(name + " imported without torch")
try:
    import runpy
    runpy.run_module("genexpy_nb.seedpools.cnn_seeds", run_name="__main__")
except MissingOptionalDependency as exc:
    assert "install genexpy_nb[train] for" in str(exc)
else:
    raise AssertionError("the CLI ran without torch")
print("ok")
"""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    res = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         env=env, cwd=tmp_path, timeout=120)
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.strip().endswith("ok")


# ---- tasks and seeds (no torch) ---------------------------------------------------------


def test_digits_task_is_a_fixed_disjoint_split():
    t = digits_binary_task(n_train=100, n_val=30, n_test=50, split_seed=3)
    assert t.X_train.shape == (100, 1, 8, 8) and t.X_test.shape == (50, 1, 8, 8)
    assert t.X_train.dtype == np.float32 and 0 <= t.X_train.min() and t.X_train.max() <= 1
    idx = np.concatenate([t.index_train, t.index_val, t.index_test])
    assert np.unique(idx).size == idx.size  # disjoint
    from sklearn.datasets import load_digits

    y = load_digits().target
    assert np.array_equal(t.y_test, (y[t.index_test] >= 5).astype(np.int64))
    again = digits_binary_task(n_train=100, n_val=30, n_test=50, split_seed=3)
    assert again.fingerprint() == t.fingerprint()
    other = digits_binary_task(n_train=100, n_val=30, n_test=50, split_seed=4)
    assert other.fingerprint() != t.fingerprint()
    full = digits_binary_task()
    assert (full.y_train.size, full.y_val.size, full.y_test.size) == (600, 300, 897)


def test_digits_task_other_groups_and_transfer_split():
    t = digits_binary_task((3,), (8,), n_train=150, n_val=50)
    assert set(t.positive) == {"3"} and set(t.negative) == {"8"}
    assert t.y_test.size == 357 - 200
    src, tgt = digits_transfer_tasks()
    assert src.n_classes == 10 and set(np.unique(src.y_train)) == set(range(10))
    assert (tgt.y_train.size, tgt.y_val.size, tgt.y_test.size) == (450, 150, 299)
    # the target images are not in the source half
    tgt_rows = np.concatenate([tgt.index_train, tgt.index_val, tgt.index_test])
    assert src.X_train.shape[0] + src.X_val.shape[0] + tgt_rows.size == 1797


def test_pool_seeds_separate_the_sources_and_pair_the_pools():
    init_i, order_i = pool_seeds(0, "init", 5)
    init_o, order_o = pool_seeds(0, "order", 5)
    init_b, order_b = pool_seeds(0, "both", 5)
    assert np.unique(init_i).size == 5 and np.unique(order_i).size == 1
    assert np.unique(init_o).size == 1 and np.unique(order_o).size == 5
    assert np.array_equal(init_b, init_i) and np.array_equal(order_b, order_o)
    assert init_o[0] not in set(init_i.tolist())  # the fixed init is none of the varying ones
    # seeds of model i do not depend on the pool size
    assert np.array_equal(pool_seeds(0, "both", 3)[0], init_b[:3])
    assert not np.array_equal(pool_seeds(1, "both", 3)[0], init_b[:3])


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), n=st.integers(1, 12), m=st.integers(1, 12),
       source=st.sampled_from(SOURCES))
def test_pool_seeds_do_not_depend_on_the_pool_size(seed, n, m, source):
    a_init, a_order = pool_seeds(seed, source, n)
    b_init, b_order = pool_seeds(seed, source, m)
    k = min(n, m)
    assert np.array_equal(a_init[:k], b_init[:k]) and np.array_equal(a_order[:k], b_order[:k])
    assert a_init.dtype == np.uint64 and a_init.shape == (n,)


# ---- CIFAR-10 reader on synthetic batch files ------------------------------------------


def _write_cifar(folder: Path, n_per_batch: int = 40, n_batches: int = 2) -> dict:
    rng = np.random.default_rng(0)
    folder.mkdir(parents=True)
    batches = {}
    names = [f"data_batch_{i}" for i in range(1, n_batches + 1)] + ["test_batch"]
    for name in names:
        data = rng.integers(0, 256, size=(n_per_batch, 3072), dtype=np.uint8)
        labels = [int(v) for v in rng.integers(0, 10, size=n_per_batch)]
        with open(folder / name, "wb") as fh:
            pickle.dump({b"batch_label": name.encode(), b"labels": labels, b"data": data,
                         b"filenames": [b"x.png"] * n_per_batch}, fh)
        batches[name] = (data, np.array(labels))
    labels = [b"airplane", b"automobile", b"bird", b"cat", b"deer", b"dog", b"frog",
              b"horse", b"ship", b"truck"]
    with open(folder / "batches.meta", "wb") as fh:
        pickle.dump({b"label_names": labels, b"num_vis": 3072}, fh)
    return batches


def test_cifar_loader_reads_the_python_batch_format(tmp_path):
    batches = _write_cifar(tmp_path / "cifar-10-batches-py")
    # the parent folder works too
    t = load_cifar10_binary(tmp_path, positive=("dog",), negative=("cat",), n_val=2)
    d1, l1 = batches["data_batch_1"]
    d2, l2 = batches["data_batch_2"]
    dt, lt = batches["test_batch"]
    lab_tr = np.concatenate([l1, l2])
    n_train_avail = int(np.isin(lab_tr, (3, 5)).sum())
    assert t.y_train.size + t.y_val.size == n_train_avail and t.y_val.size == 2
    assert t.y_test.size == int(np.isin(lt, (3, 5)).sum())
    assert t.X_train.shape[1:] == (3, 32, 32) and t.X_train.dtype == np.float32
    # pixel layout: the 3072 bytes are the R, G and B 32x32 planes, row-major
    data_tr = np.concatenate([d1, d2])
    i = int(t.index_train[0])
    assert t.X_train[0, 1, 2, 5] == np.float32(data_tr[i, 1024 + 2 * 32 + 5]) / np.float32(255)
    assert t.y_train[0] == int(lab_tr[i] == 5)
    assert np.array_equal(t.y_test, (lt[t.index_test] == 5).astype(np.int64))
    assert t.positive == ("dog",) and t.negative == ("cat",)
    # default: the paper's vehicles vs animals
    paper = load_cifar10_binary(tmp_path / "cifar-10-batches-py", n_val=0)
    assert set(paper.positive) == {"airplane", "automobile", "ship", "truck"}


def test_cifar_loader_errors(tmp_path):
    with pytest.raises(GenexpyInputError, match="data_batch_1"):
        load_cifar10_binary(tmp_path / "nowhere")
    _write_cifar(tmp_path / "c")
    with pytest.raises(GenexpyInputError, match="unknown CIFAR-10 class 'dgo'"):
        load_cifar10_binary(tmp_path / "c", positive=("dgo",), negative=("cat",))
    with pytest.raises(GenexpyInputError, match="disjoint"):
        load_cifar10_binary(tmp_path / "c", positive=("cat",), negative=("cat", "dog"))
    with pytest.raises(GenexpyInputError, match="n_train \\+ n_val"):
        load_cifar10_binary(tmp_path / "c", n_train=10_000)
    with open(tmp_path / "c" / "test_batch", "wb") as fh:
        pickle.dump({b"data": np.zeros((2, 10), np.uint8), b"labels": [0, 1]}, fh)
    with pytest.raises(GenexpyInputError, match="3072"):
        load_cifar10_binary(tmp_path / "c")


def test_task_argument_errors():
    with pytest.raises(GenexpyInputError, match="disjoint groups"):
        digits_binary_task((1, 2), (2, 3))
    with pytest.raises(GenexpyInputError, match="disjoint groups"):
        digits_binary_task((11,))
    with pytest.raises(GenexpyInputError, match="exceeds"):
        digits_binary_task(n_train=2000)
    with pytest.raises(GenexpyInputError, match="n_val"):
        digits_binary_task(n_val=-1)
    with pytest.raises(GenexpyInputError, match="source_fraction"):
        digits_transfer_tasks(source_fraction=1.5)
    with pytest.raises(GenexpyInputError, match="must agree"):
        t = digits_binary_task(n_train=20, n_val=5, n_test=10)
        BinaryTask("bad", t.X_train, t.y_train[:-1], t.X_val, t.y_val, t.X_test, t.y_test,
                   t.index_train, t.index_val, t.index_test, ("1",), ("0",))


# ---- training (torch) -------------------------------------------------------------------

torch = pytest.importorskip("torch", reason="training needs torch: install genexpy_nb[train]")

from genexpy_nb.seedpools import (  # noqa: E402
    MiniViT,
    SmallCNN,
    batch_order,
    build_model,
    convert_hf_vit,
    extract_features,
    load_weights,
    train_cnn_pool,
    train_model,
    train_transfer_pool,
)
from genexpy_nb.seedpools import cnn_seeds as cnn_mod  # noqa: E402
from genexpy_nb.seedpools import training as training_mod  # noqa: E402
from genexpy_nb.seedpools import transfer as transfer_mod  # noqa: E402


@pytest.fixture(scope="module")
def tiny_task() -> BinaryTask:
    return digits_binary_task(n_train=48, n_val=16, n_test=40, split_seed=1)


def _pool(out, task, **kw):
    kw = {"source": "both", "n_models": 3, "epochs": 1, "progress": False, **kw}
    return train_cnn_pool(out, task=task, **kw)


def test_tiny_pool_shapes_and_file(tmp_path, tiny_task):
    pool = _pool(tmp_path / "p.npz", tiny_task)
    assert pool.gaps.shape == (3, 40) and pool.gaps.dtype == np.float32
    assert pool.labels.shape == (40,) and set(np.unique(pool.labels)) <= {0, 1}
    assert np.array_equal(pool.labels, tiny_task.y_test)
    assert np.array_equal(pool.test_index, tiny_task.index_test)
    assert pool.val_accuracy_curve.shape == (3, 1)
    np.testing.assert_allclose(
        pool.test_accuracy, ((pool.gaps > 0) == pool.labels).mean(axis=1), rtol=0, atol=1e-7)
    assert (pool.wall_time_s > 0).all() and (pool.cpu_time_s >= 0).all()
    assert pool.models_frame().height == 3 and pool.source == "both"
    ref, cand = pool.split()
    assert ref.shape == (1, 40) and cand.shape == (2, 40)
    # the file round-trips and needs nothing but NumPy
    with np.load(tmp_path / "p.npz", allow_pickle=False) as z:
        assert z["gaps"].shape == (3, 40)
        meta = json.loads(str(z["meta"]))
    assert meta["config"]["source"] == "both" and meta["config"]["n_models"] == 3
    assert "torch" in meta["versions"] and meta["task"]["n_test"] == 40
    again = load_pool(tmp_path / "p.npz")
    assert np.array_equal(again.gaps, pool.gaps) and again.meta == pool.meta
    assert not (tmp_path / "p.npz.partial").exists()


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**63), n=st.integers(1, 50), epochs=st.integers(1, 4))
def test_batch_order_is_one_permutation_per_epoch(seed, n, epochs):
    order = batch_order(seed, n, epochs)
    assert order.shape == (epochs, n)
    assert (np.sort(order, axis=1) == np.arange(n)).all()
    assert np.array_equal(order, batch_order(seed, n, epochs))


def test_same_seed_same_gaps(tiny_task):
    def run(i, o):
        return train_model(lambda: SmallCNN(1, 8), tiny_task, init_seed=i, order_seed=o,
                           epochs=2)["gaps"]

    a = run(11, 22)
    assert np.array_equal(a, run(11, 22))
    assert not np.array_equal(a, run(12, 22))
    assert not np.array_equal(a, run(11, 23))
    # building a model leaves torch's global generator alone
    state = torch.random.get_rng_state()
    build_model(lambda: SmallCNN(1, 8), 5)
    assert torch.equal(state, torch.random.get_rng_state())


def test_init_only_shares_batch_order_and_order_only_shares_weights(tmp_path, tiny_task):
    p_init = _pool(tmp_path / "i.npz", tiny_task, source="init")
    p_order = _pool(tmp_path / "o.npz", tiny_task, source="order")
    n = tiny_task.y_train.size
    # init-only: one batch order, different initial weights
    assert np.unique(p_init.order_seed).size == 1 and np.unique(p_init.init_seed).size == 3
    orders = [batch_order(int(s), n, 2) for s in p_init.order_seed]
    assert all(np.array_equal(orders[0], o) for o in orders)
    w = [build_model(lambda: SmallCNN(1, 8), int(s)).state_dict() for s in p_init.init_seed]
    assert not torch.equal(w[0]["conv.0.weight"], w[1]["conv.0.weight"])
    # order-only: one set of initial weights, different batch orders
    assert np.unique(p_order.init_seed).size == 1 and np.unique(p_order.order_seed).size == 3
    w = [build_model(lambda: SmallCNN(1, 8), int(s)).state_dict() for s in p_order.init_seed]
    assert all(torch.equal(w[0][k], w[1][k]) for k in w[0])
    o0, o1 = (batch_order(int(s), n, 1) for s in p_order.order_seed[:2])
    assert not np.array_equal(o0, o1)
    # each pool's models differ from one another
    for p in (p_init, p_order):
        assert not np.array_equal(p.gaps[0], p.gaps[1])


def test_resume_gives_the_uninterrupted_pool(tmp_path, tiny_task, monkeypatch):
    full = _pool(tmp_path / "full.npz", tiny_task, n_models=4)
    # stop after 1 model (max_new_models), then continue
    out = tmp_path / "resumed.npz"
    assert _pool(out, tiny_task, n_models=4, max_new_models=1) is None
    partial = tmp_path / "resumed.npz.partial"
    assert sorted(p.name for p in partial.glob("model_*.npz")) == ["model_00000.npz"]
    # a crash while training the 3rd model: the two finished ones are kept
    real = training_mod.train_model
    calls = {"n": 0}

    def crashing(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(training_mod, "train_model", crashing)
    with pytest.raises(KeyboardInterrupt):
        _pool(out, tiny_task, n_models=4)
    monkeypatch.setattr(training_mod, "train_model", real)
    assert len(list(partial.glob("model_*.npz"))) == 2
    assert not out.exists()
    resumed = _pool(out, tiny_task, n_models=4)
    assert not partial.exists()
    for key in ("gaps", "val_accuracy", "val_accuracy_curve", "train_loss", "init_seed",
                "order_seed"):
        assert np.array_equal(getattr(full, key), getattr(resumed, key)), key
    # calling again returns the finished pool without training
    monkeypatch.setattr(training_mod, "train_model", crashing)
    assert np.array_equal(_pool(out, tiny_task, n_models=4).gaps, full.gaps)


def test_resume_refuses_another_configuration(tmp_path, tiny_task):
    out = tmp_path / "p.npz"
    _pool(out, tiny_task, n_models=3, max_new_models=1)
    with pytest.raises(GenexpyInputError, match="another configuration.*epochs"):
        _pool(out, tiny_task, n_models=3, epochs=2)
    # a larger pool is fine: seeds of model i do not depend on n_models
    assert _pool(out, tiny_task, n_models=2).n_models == 2
    with pytest.raises(GenexpyInputError, match="already exists"):
        _pool(out, tiny_task, n_models=2, seed=1)
    assert _pool(out, tiny_task, n_models=2, seed=1, overwrite=True).n_models == 2


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"source": "seed"}, "source must be one of"),
        ({"n_models": 0}, "n_models"),
        ({"epochs": 0}, "epochs"),
        ({"lr": -1.0}, "lr"),
        ({"lr": float("nan")}, "lr"),
        ({"batch_size": 0}, "batch_size"),
        ({"seed": -3}, "seed"),
        ({"max_new_models": -1}, "max_new_models"),
        ({"n_threads": 0}, "n_threads"),
        ({"channels": (8,)}, "channels"),
    ],
)
def test_pool_argument_errors(tmp_path, tiny_task, kwargs, match):
    with pytest.raises(GenexpyInputError, match=match):
        _pool(tmp_path / "p.npz", tiny_task, **kwargs)


def test_pool_path_and_task_errors(tmp_path, tiny_task):
    with pytest.raises(GenexpyInputError, match=r"\.npz"):
        _pool(tmp_path / "p.parquet", tiny_task)
    with pytest.raises(GenexpyInputError, match="BinaryTask"):
        train_cnn_pool(tmp_path / "p.npz", task="digits")
    with pytest.raises(GenexpyInputError, match="not a genexpy_nb pool"):
        np.savez(tmp_path / "x.npz", a=np.zeros(2))
        load_pool(tmp_path / "x.npz")
    with pytest.raises(GenexpyInputError, match="not found"):
        load_pool("no_such_pool.npz")


def test_cli_trains_resumes_and_writes_the_manifest(tmp_path, capsys):
    out = tmp_path / "data" / "cnn.npz"
    args = ["--out", str(out), "--source", "order", "--models", "2", "--epochs", "1",
            "--n-train", "32", "--n-val", "8", "--n-test", "20", "--no-progress"]
    assert cnn_mod.main([*args, "--max-new", "1"]) == 0
    assert "stopped early" in capsys.readouterr().out
    assert cnn_mod.main(args) == 0
    pool = load_pool(out)
    assert pool.gaps.shape == (2, 20) and pool.source == "order"
    assert pool.meta["command"].startswith("python -m genexpy_nb.seedpools.cnn_seeds --out")
    assert "--max-new" not in pool.meta["command"] and "--no-progress" not in pool.meta["command"]
    manifest = json.loads((out.parent / "POOLS.json").read_text())
    (entry,) = manifest["files"]
    assert entry["file"] == "cnn.npz" and entry["n_models"] == 2
    assert entry["command"] == pool.meta["command"]
    md = (out.parent / "POOLS.md").read_text()
    assert "cnn.npz" in md and pool.meta["command"] in md
    from genexpy_nb.seedpools.pools import main as manifest_main

    assert manifest_main([str(out.parent)]) == 0
    assert json.loads((out.parent / "POOLS.json").read_text()) == manifest
    assert manifest_main([str(tmp_path / "no_such_folder")]) == 2
    capsys.readouterr()
    assert cnn_mod.main(["--out", str(out), "--source", "neither", "--no-progress"]) == 2
    assert "source must be one of" in capsys.readouterr().err
    assert cnn_mod.main(["--out", str(tmp_path / "x.csv")]) == 2
    assert cnn_mod.main(["--out", str(tmp_path / "c.npz"), "--dataset", "cifar10"]) == 2
    assert "--cifar-dir" in capsys.readouterr().err


def test_the_manifest_skips_hidden_temporary_files(tmp_path, tiny_task):
    import shutil

    from genexpy_nb.seedpools.pools import write_manifest

    _pool(tmp_path / "p.npz", tiny_task, n_models=2)
    # what a crash between writing and renaming leaves: a complete pool under a hidden name
    shutil.copy(tmp_path / "p.npz", tmp_path / ".p.k3j9x0.tmp.npz")
    write_manifest(tmp_path)
    files = json.loads((tmp_path / "POOLS.json").read_text())["files"]
    assert [e["file"] for e in files] == ["p.npz"]
    assert ".tmp" not in (tmp_path / "POOLS.md").read_text()


def test_cnn_pool_on_cifar_shaped_images(tmp_path):
    _write_cifar(tmp_path / "c", n_per_batch=30)
    task = load_cifar10_binary(tmp_path / "c", n_val=2)
    pool = _pool(tmp_path / "p.npz", task, n_models=2)
    assert pool.gaps.shape == (2, task.y_test.size)
    assert pool.meta["config"]["model"]["in_channels"] == 3


# ---- transfer learning and the ViT path -------------------------------------------------


def test_transfer_pool_on_the_pretrained_digits_backbone(tmp_path):
    pool = train_transfer_pool(tmp_path / "t.npz", n_models=2, head_epochs=1,
                               backbone_epochs=1, progress=False)
    assert pool.gaps.shape == (2, 299)
    bb = pool.meta["backbone"]
    assert bb["source_val_accuracy"] is not None and bb["standardize_features"] is True
    assert pool.meta["config"]["model"]["in_features"] == 32 * 2 * 2
    again = train_transfer_pool(tmp_path / "t2.npz", n_models=2, head_epochs=1,
                                backbone_epochs=1, progress=False)
    assert np.array_equal(pool.gaps, again.gaps)
    assert pool.meta["backbone"]["weights_sha256"] == again.meta["backbone"]["weights_sha256"]


def test_transfer_argument_errors(tmp_path, tiny_task):
    with pytest.raises(GenexpyInputError, match="digits-cnn"):
        train_transfer_pool(tmp_path / "t.npz", backbone="resnet")
    with pytest.raises(GenexpyInputError, match="module backbone"):
        train_transfer_pool(tmp_path / "t.npz", task=tiny_task)
    with pytest.raises(GenexpyInputError, match="needs task"):
        train_transfer_pool(tmp_path / "t.npz", backbone=torch.nn.Flatten())
    with pytest.raises(GenexpyInputError, match="head_epochs"):
        train_transfer_pool(tmp_path / "t.npz", head_epochs=0)
    assert transfer_mod.main(["--out", str(tmp_path / "t.npz"), "--backbone", "vit"]) == 2


def _tiny_vit(seed: int) -> MiniViT:
    return build_model(lambda: MiniViT(image_size=16, patch_size=8, dim=16, depth=2, heads=2),
                       seed)


def test_vit_features_from_a_state_dict_file(tmp_path, tiny_task):
    vit = _tiny_vit(0)
    X = tiny_task.X_test[:7]
    ref = extract_features(vit, X)  # 1 channel -> 3, 8x8 -> 16x16
    assert ref.shape == (7, 16) and ref.dtype == np.float32
    torch.save(vit.state_dict(), tmp_path / "vit.pt")
    fresh = _tiny_vit(1)
    assert not np.array_equal(extract_features(fresh, X), ref)
    np.testing.assert_array_equal(extract_features(fresh, X, weights=tmp_path / "vit.pt"), ref)
    # a timm-style checkpoint with a 1000-class head loads into the head-less model
    sd = {**vit.state_dict(), "head.weight": torch.zeros(1000, 16),
          "head.bias": torch.zeros(1000)}
    np.testing.assert_array_equal(extract_features(_tiny_vit(2), X, weights=sd), ref)
    # wrong sizes are refused with a clear message
    big = build_model(lambda: MiniViT(image_size=16, patch_size=8, dim=32, depth=2, heads=2), 0)
    with pytest.raises(GenexpyInputError, match="shape mismatch"):
        load_weights(big, tmp_path / "vit.pt")
    with pytest.raises(GenexpyInputError, match="not found"):
        load_weights(big, tmp_path / "missing.pt")


def test_vit_hugging_face_names_are_converted(tiny_task):
    vit = _tiny_vit(0)
    X = tiny_task.X_test[:5]
    ref = extract_features(vit, X)
    # write the weights the way transformers' ViTModel names them
    sd = vit.state_dict()
    hf = {"vit.embeddings.cls_token": sd["cls_token"],
          "vit.embeddings.position_embeddings": sd["pos_embed"],
          "vit.embeddings.patch_embeddings.projection.weight": sd["patch_embed.proj.weight"],
          "vit.embeddings.patch_embeddings.projection.bias": sd["patch_embed.proj.bias"],
          "vit.layernorm.weight": sd["norm.weight"], "vit.layernorm.bias": sd["norm.bias"],
          "vit.pooler.dense.weight": torch.zeros(16, 16)}
    for i in range(2):
        b, L = f"blocks.{i}.", f"vit.encoder.layer.{i}."
        for p in ("weight", "bias"):
            q, k, v = sd[b + "attn.qkv." + p].chunk(3, dim=0)
            hf[L + "attention.attention.query." + p] = q
            hf[L + "attention.attention.key." + p] = k
            hf[L + "attention.attention.value." + p] = v
            hf[L + "attention.output.dense." + p] = sd[b + "attn.proj." + p]
            hf[L + "layernorm_before." + p] = sd[b + "norm1." + p]
            hf[L + "layernorm_after." + p] = sd[b + "norm2." + p]
            hf[L + "intermediate.dense." + p] = sd[b + "mlp.fc1." + p]
            hf[L + "output.dense." + p] = sd[b + "mlp.fc2." + p]
    assert set(convert_hf_vit(hf)) == set(sd)
    np.testing.assert_array_equal(extract_features(_tiny_vit(3), X, weights=hf), ref)


def test_transfer_pool_on_a_tiny_random_vit(tmp_path, tiny_task):
    vit = _tiny_vit(0)
    torch.save(vit.state_dict(), tmp_path / "vit.pt")
    pool = train_transfer_pool(
        tmp_path / "v.npz", backbone=_tiny_vit(5), weights=tmp_path / "vit.pt",
        task=tiny_task, n_models=2, head_epochs=1, progress=False,
    )
    assert pool.gaps.shape == (2, tiny_task.y_test.size)
    assert pool.meta["config"]["model"]["in_features"] == 16
    assert pool.meta["backbone"]["backbone"] == "MiniViT"


# ---- the shipped pools -------------------------------------------------------------------


def _manifest_entries():
    path = DATA / "POOLS.json"
    if not path.is_file():
        return []
    return json.loads(path.read_text())["files"]


@pytest.mark.parametrize("entry", _manifest_entries(), ids=lambda e: e["file"])
def test_shipped_pool_matches_its_manifest(entry):
    pool = load_pool(entry["file"])
    assert pool.n_models == entry["n_models"] and pool.n_test == entry["n_test"]
    assert pool.meta["command"] == entry["command"]
    np.testing.assert_allclose(
        pool.test_accuracy, ((pool.gaps > 0) == pool.labels).mean(axis=1), atol=1e-6)
    assert np.isfinite(pool.gaps).all()
    assert 0 < pool.test_accuracy.mean() < 1
    assert pool.source in SOURCES
    import hashlib

    digest = hashlib.sha256((DATA / entry["file"]).read_bytes()).hexdigest()
    assert digest == entry["sha256"]
