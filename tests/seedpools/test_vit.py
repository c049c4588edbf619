"""The ViT: published checkpoints load (timm and Hugging Face as oracles, no download), the
fractal upstream task, pre-training and the ViT transfer pools (tiny runs, seconds)."""

from __future__ import annotations

import importlib
import importlib.util
import json
import sys
import types

import numpy as np
import pytest

from genexpy_nb import GenexpyInputError

torch = pytest.importorskip("torch", reason="the ViT needs torch (extra [train])")

from genexpy_nb.seedpools.vit import (  # noqa: E402
    MiniViT,
    convert_hf_vit,
    is_hf_vit_state,
    load_weights,
    make_vit,
)


def _randomize(module: torch.nn.Module, seed: int) -> None:
    """Every parameter random (libraries initialise heads to 0 and norms to 1: a comparison of
    such models would test little)."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in module.named_parameters():
            if name.endswith("weight") and p.ndim == 1:      # LayerNorm scales
                p.copy_(1.0 + 0.2 * torch.randn(p.shape, generator=g))
            else:
                p.copy_(0.05 * torch.randn(p.shape, generator=g))


def _import_timm():
    """timm, imported for real. PyPI's torchvision wheel is built against the CUDA torch and
    its compiled operators cannot load beside a CPU-only torch ('operator torchvision::nms
    does not exist'); a ViT needs none of them, so then torchvision's Python part is imported
    without registering meta kernels for those operators (timm itself is unchanged)."""
    if importlib.util.find_spec("timm") is None:
        pytest.skip("timm is a test oracle: pip install 'genexpy_nb[test]'")
    try:
        return importlib.import_module("timm")
    except RuntimeError as exc:
        if "torchvision::" not in str(exc):
            raise
    for name in [m for m in sys.modules if m.split(".")[0] in ("torchvision", "timm")]:
        del sys.modules[name]
    sys.modules["torchvision._meta_registrations"] = types.ModuleType(
        "torchvision._meta_registrations")
    return importlib.import_module("timm")


@pytest.mark.parametrize("arch", ["small", "vit_tiny_patch16_224"])
def test_timm_vit_gives_the_same_logits(arch):
    timm = _import_timm()
    if arch == "small":
        kw = {"img_size": 32, "patch_size": 4, "embed_dim": 48, "depth": 3, "num_heads": 4,
              "num_classes": 3}
        ref = timm.create_model("vit_tiny_patch16_224", pretrained=False, **kw)
        ours = MiniViT(image_size=32, patch_size=4, in_channels=3, dim=48, depth=3, heads=4,
                       num_classes=3)
        x = torch.rand(5, 3, 32, 32, generator=torch.Generator().manual_seed(1))
    else:
        ref = timm.create_model(arch, pretrained=False, num_classes=10)
        ours = make_vit(arch, num_classes=10)
        x = torch.rand(2, 3, 224, 224, generator=torch.Generator().manual_seed(1))
    _randomize(ref, 0)
    ref.eval()
    load_weights(ours, ref.state_dict(), weights_format="timm")
    ours.eval()
    with torch.no_grad():
        want, got = ref(x), ours(x)
        assert want.abs().max() > 0.1                     # not a trivial comparison
        torch.testing.assert_close(got, want, rtol=0, atol=1e-5)
        torch.testing.assert_close(ours.forward_features(x), ref.forward_head(
            ref.forward_features(x), pre_logits=True), rtol=0, atol=1e-5)
    # a model with another size is refused with the shapes named
    with pytest.raises(GenexpyInputError, match="shape mismatch"):
        load_weights(MiniViT(image_size=32, patch_size=8, in_channels=3, dim=48, depth=3,
                             heads=4, num_classes=3) if arch == "small" else
                     make_vit("vit_tiny_patch16_224", num_classes=10, image_size=32,
                              patch_size=4), ref.state_dict())


def _hf_model(num_labels=2):
    transformers = pytest.importorskip(
        "transformers", reason="transformers is a test oracle: pip install 'genexpy_nb[test]'")
    cfg = transformers.ViTConfig(
        image_size=32, patch_size=4, num_channels=3, hidden_size=48, num_hidden_layers=3,
        num_attention_heads=4, intermediate_size=96, num_labels=num_labels)
    m = transformers.ViTForImageClassification(cfg)
    _randomize(m, 3)
    return m.eval(), cfg


def _ours_for_hf(cfg, num_classes):
    return MiniViT(image_size=cfg.image_size, patch_size=cfg.patch_size,
                   in_channels=cfg.num_channels, dim=cfg.hidden_size,
                   depth=cfg.num_hidden_layers, heads=cfg.num_attention_heads,
                   mlp_ratio=cfg.intermediate_size / cfg.hidden_size, num_classes=num_classes,
                   eps=cfg.layer_norm_eps).eval()


def test_hugging_face_checkpoint_file_gives_the_same_logits(tmp_path):
    ref, cfg = _hf_model(2)
    ref.save_pretrained(tmp_path / "ckpt")          # the layout of a checkpoint on the Hub
    path = tmp_path / "ckpt" / "model.safetensors"
    ours = load_weights(_ours_for_hf(cfg, 2), path)  # format detected from the names
    x = torch.rand(4, 3, 32, 32, generator=torch.Generator().manual_seed(2))
    with torch.no_grad():
        want = ref(pixel_values=x).logits
        assert want.abs().max() > 0.1
        torch.testing.assert_close(ours(x), want, rtol=0, atol=1e-5)
    from safetensors.torch import load_file

    saved = load_file(str(path))
    assert any(".encoder.layer.0.attention.attention.query." in k for k in saved)
    assert is_hf_vit_state(saved)


def test_hugging_face_live_state_dict_and_backbone_only(tmp_path):
    ref, cfg = _hf_model(3)
    x = torch.rand(3, 3, 32, 32, generator=torch.Generator().manual_seed(4))
    ours = load_weights(_ours_for_hf(cfg, 3), ref.state_dict(), weights_format="hf")
    with torch.no_grad():
        torch.testing.assert_close(ours(x), ref(pixel_values=x).logits, rtol=0, atol=1e-5)
        # a backbone without head: the features are the final LayerNorm of the class token
        feats = load_weights(_ours_for_hf(cfg, 0), ref.state_dict()).forward_features(x)
        hidden = ref.vit(pixel_values=x).last_hidden_state[:, 0]
        torch.testing.assert_close(feats, hidden, rtol=0, atol=1e-5)
    with pytest.raises(GenexpyInputError, match="unexpected key"):
        convert_hf_vit({**ref.state_dict(), "vit.layers.0.attention.rotary.weight": 0})
    bad = {k: v for k, v in ref.state_dict().items() if "k_proj.weight" not in k}
    with pytest.raises(GenexpyInputError, match="lacks query/key/value"):
        convert_hf_vit(bad)


# ---- fractals (no torch needed, but fast) -------------------------------------------------


def test_fractal_classes_are_contractive_filled_and_reproducible():
    from genexpy_nb.seedpools.fractals import fractal_images, random_ifs_classes

    a = random_ifs_classes(4, seed=5, size=8)
    assert np.array_equal(a, random_ifs_classes(4, seed=5, size=8))
    assert not np.array_equal(a, random_ifs_classes(4, seed=6, size=8))
    for c in a:
        maps = c[np.any(c != 0, axis=1)]
        assert 2 <= maps.shape[0] <= 4
        assert np.linalg.svd(maps[:, :4].reshape(-1, 2, 2), compute_uv=False).max() < 1
    X, y = fractal_images(a, 6, size=8, seed=5)
    X2, _ = fractal_images(a, 6, size=8, seed=5)
    assert X.shape == (24, 1, 8, 8) and X.dtype == np.float32 and np.array_equal(X, X2)
    assert np.array_equal(y, np.repeat(np.arange(4), 6))
    assert X.min() >= 0 and np.allclose(X.max(axis=(1, 2, 3)), 1)
    # without flips and turns, images of one class are alike, of two classes less so
    Xs, _ = fractal_images(a, 6, size=8, seed=5, flips=False)
    d_in = np.mean([np.abs(Xs[c * 6] - Xs[c * 6 + 1:c * 6 + 6]).mean() for c in range(4)])
    d_out = np.mean([np.abs(Xs[c * 6] - np.delete(Xs, np.s_[c * 6:c * 6 + 6], 0)).mean()
                     for c in range(4)])
    assert d_in < d_out
    with pytest.raises(GenexpyInputError, match="classes must have shape"):
        fractal_images(a[0], 2)


def test_fractal_binary_task_split():
    from genexpy_nb.seedpools.fractals import fractal_binary_task

    t = fractal_binary_task(n_groups=2, n_train=40, n_val=10, n_test=30, size=8)
    assert t.X_train.shape == (40, 1, 8, 8) and t.y_test.size == 30
    idx = np.concatenate([t.index_train, t.index_val, t.index_test])
    assert np.unique(idx).size == idx.size
    assert 0.2 < t.y_train.mean() < 0.8
    assert t.fingerprint() == fractal_binary_task(n_groups=2, n_train=40, n_val=10, n_test=30,
                                                  size=8).fingerprint()


# ---- pre-training and the ViT pools (tiny) -----------------------------------------------


@pytest.fixture(scope="module")
def tiny_backbone(tmp_path_factory):
    from genexpy_nb.seedpools.fractals import FractalSet
    from genexpy_nb.seedpools.pretrain import pretrain_vit

    out = tmp_path_factory.mktemp("bb") / "bb.npz"
    meta = pretrain_vit(out, recipe=FractalSet(n_classes=4, per_class=24, size=16, seed=2),
                        epochs=2, batch_size=32, progress=False, device="cpu")
    return out, meta


def test_pretraining_is_seeded_resumable_and_the_file_is_checked(tiny_backbone, tmp_path):
    from genexpy_nb.seedpools.fractals import FractalSet
    from genexpy_nb.seedpools.pretrain import (
        load_pretrained_vit,
        pretrain_vit,
        read_backbone_file,
    )

    out, meta = tiny_backbone
    arrays, meta2 = read_backbone_file(out)
    assert meta2["weights_sha256"] == meta["weights_sha256"]
    assert not any(k.startswith("head.") for k in arrays) and "blocks.3.attn.qkv.weight" in arrays
    assert len(meta["history"]) == 2 and meta["device"].startswith("cpu")
    assert meta["images_per_second_training"] > 0
    # an interrupted run (one epoch, then the rest) gives the same weights
    recipe = FractalSet(n_classes=4, per_class=24, size=16, seed=2)
    part = tmp_path / "b.npz"
    pretrain_vit(part, recipe=recipe, epochs=2, batch_size=32, progress=False, device="cpu")
    assert read_backbone_file(part)[1]["weights_sha256"] == meta["weights_sha256"]
    # the loaded backbone is frozen and its features are those of the saved weights
    vit = load_pretrained_vit(out)
    assert not any(p.requires_grad for p in vit.parameters())
    rnd = load_pretrained_vit(out, random_weights=True)
    x = torch.rand(2, 1, 16, 16)
    assert not torch.allclose(vit.forward_features(x), rnd.forward_features(x))
    # a damaged file is refused
    bad = dict(arrays)
    bad["norm.weight"] = bad["norm.weight"] + 1
    np.savez(tmp_path / "bad.npz", **bad, meta=np.array(json.dumps(meta)))
    with pytest.raises(GenexpyInputError, match="do not match the sha256"):
        read_backbone_file(tmp_path / "bad.npz")
    with pytest.raises(GenexpyInputError, match="exists"):
        pretrain_vit(out, recipe=recipe, epochs=2, progress=False)


def test_vit_head_and_finetune_pools(tiny_backbone, tmp_path):
    from genexpy_nb.seedpools import digits_binary_task
    from genexpy_nb.seedpools.transfer import (
        resize_task,
        train_finetune_pool,
        train_vit_head_pool,
    )

    out, meta = tiny_backbone
    task = resize_task(digits_binary_task(n_train=48, n_val=16, n_test=40, split_seed=1), 16)
    assert task.X_train.shape == (48, 1, 16, 16)
    heads = train_vit_head_pool(tmp_path / "h.npz", weights=out, task=task, n_models=3,
                                head_epochs=1, progress=False)
    rnd = train_vit_head_pool(tmp_path / "r.npz", weights=out, backbone="random", task=task,
                              n_models=3, head_epochs=1, progress=False)
    assert heads.gaps.shape == rnd.gaps.shape == (3, 40)
    assert heads.meta["config"]["model"]["in_features"] == 64
    assert heads.meta["backbone"]["weights_sha256"] != rnd.meta["backbone"]["weights_sha256"]
    ft = train_finetune_pool(tmp_path / "f.npz", weights=out, task=task, n_models=2, epochs=1,
                             progress=False)
    assert ft.gaps.shape == (2, 40) and ft.meta["kind"] == "transfer-finetune"
    assert ft.meta["backbone"]["weights_sha256"] == meta["weights_sha256"]
    assert not np.array_equal(ft.gaps[0], ft.gaps[1])
    ft2 = train_finetune_pool(tmp_path / "f2.npz", weights=out, task=task, n_models=2, epochs=1,
                              progress=False)
    assert np.array_equal(ft.gaps, ft2.gaps)        # seeded: the same pool again
    with pytest.raises(GenexpyInputError, match="backbone must be"):
        train_vit_head_pool(tmp_path / "x.npz", backbone="imagenet", task=task)


# ---- the paper's exact setting in one call (local checkpoint, tiny CIFAR folder) ---------

_TINY_ARCH = {"image_size": 48, "patch_size": 16, "dim": 32, "depth": 2, "heads": 2}


def _write_cifar_folder(folder, n_per_batch=48):
    """CIFAR-10's python batch files (2 training batches, the test batch, batches.meta)."""
    import pickle

    rng = np.random.default_rng(7)
    folder.mkdir(parents=True)
    for name in ("data_batch_1", "data_batch_2", "test_batch"):
        data = rng.integers(0, 256, size=(n_per_batch, 3072), dtype=np.uint8)
        labels = [int(v) for v in rng.integers(0, 10, size=n_per_batch)]
        with open(folder / name, "wb") as fh:
            pickle.dump({b"labels": labels, b"data": data}, fh)
    names = [b"airplane", b"automobile", b"bird", b"cat", b"deer", b"dog", b"frog", b"horse",
             b"ship", b"truck"]
    with open(folder / "batches.meta", "wb") as fh:
        pickle.dump({b"label_names": names}, fh)
    return folder


def _tiny_timm_vit(timm, seed=0, **kw):
    ref = timm.create_model(
        "vit_tiny_patch16_224", pretrained=False, num_classes=0, img_size=48, patch_size=16,
        embed_dim=32, depth=2, num_heads=2, **kw)
    _randomize(ref, seed)
    return ref.eval()


def _timm_features(ref, X, size=48):
    """The independent computation: resize, normalise (0.5, 0.5), timm's pre-logits."""
    x = torch.nn.functional.interpolate(torch.from_numpy(X), size=(size, size),
                                        mode="bilinear", align_corners=False)
    with torch.no_grad():
        return ref.forward_head(ref.forward_features((x - 0.5) / 0.5), pre_logits=True).numpy()


@pytest.fixture(scope="module")
def paper_files(tmp_path_factory):
    timm = _import_timm()
    d = tmp_path_factory.mktemp("paper")
    ref = _tiny_timm_vit(timm)
    torch.save(ref.state_dict(), d / "vit.pt")
    import hashlib

    digest = hashlib.sha256((d / "vit.pt").read_bytes()).hexdigest()
    return {"ref": ref, "ckpt": d / "vit.pt", "sha256": digest,
            "cifar": _write_cifar_folder(d / "cifar-10-batches-py"), "timm": timm}


def test_paper_transfer_pool_from_a_local_checkpoint(paper_files, tmp_path):
    import shlex

    from genexpy_nb.seedpools import load_cifar10_binary, load_pool, pool_seeds
    from genexpy_nb.seedpools import transfer as tr
    from genexpy_nb.seedpools.training import train_model
    from genexpy_nb.seedpools.vit import extract_features

    f = paper_files
    kw = dict(arch=_TINY_ARCH, weights=f["ckpt"], sha256=f["sha256"], cifar_dir=f["cifar"],
              n_val=4, n_models=3, epochs=2, device="cpu", progress=False)
    pool = tr.paper_transfer_pool(tmp_path / "p.npz", **kw)
    task = load_cifar10_binary(f["cifar"], n_val=4)
    assert set(task.positive) == {"airplane", "automobile", "ship", "truck"}
    assert pool.gaps.shape == (3, task.y_test.size) and task.y_train.size > 40

    # the converted backbone's features = timm's pre-logits on the same resized images
    vit, info = tr.paper_backbone(_TINY_ARCH, f["ckpt"], sha256=f["sha256"])
    ours = extract_features(vit, task.X_train, mean=info["mean"], std=info["std"],
                            batch_size=16, device="cpu")
    want = {p: _timm_features(f["ref"], getattr(task, f"X_{p}")) for p in ("train", "test")}
    assert np.abs(want["train"]).max() > 0.1
    np.testing.assert_allclose(ours, want["train"], rtol=0, atol=1e-5)

    # the heads = heads trained here on timm's features, standardised, with the pool's seeds
    mu = want["train"].mean(axis=0, dtype=np.float64)
    sd = want["train"].std(axis=0, dtype=np.float64)
    ft = {p: ((want[p] - mu) / sd).astype(np.float32) for p in want}
    from dataclasses import replace

    ftask = replace(task, X_train=ft["train"], X_test=ft["test"],
                    X_val=np.zeros((0, 32), np.float32), y_val=np.zeros(0, np.int64),
                    index_val=np.zeros(0, np.int32))
    init, order = pool_seeds(0, "both", 3)
    assert np.array_equal(pool.init_seed, init) and np.array_equal(pool.order_seed, order)
    for i in range(3):
        r = train_model(lambda: torch.nn.Linear(32, 2), ftask, init_seed=int(init[i]),
                        order_seed=int(order[i]), epochs=2, lr=1e-2, batch_size=32,
                        device="cpu")
        np.testing.assert_allclose(pool.gaps[i], r["gaps"], rtol=0, atol=1e-4)
    assert np.ptp(pool.gaps, axis=0).max() > 1e-3          # the seeds do change the heads

    # what was run is recorded; the recorded command makes the same pool, bit for bit
    meta = pool.meta
    assert meta["device"].startswith("cpu") and "device" not in meta["config"]
    assert meta["backbone"]["weights_file_sha256"] == f["sha256"]
    assert meta["backbone"]["sha256_checked"] is True
    assert meta["backbone"]["preprocessing"] == {"image_size": 48, "mean": [0.5] * 3,
                                                 "std": [0.5] * 3}
    cmd = meta["command"]
    assert "--backbone paper" in cmd and f"--weights-sha256 {f['sha256']}" in cmd
    assert "--device cpu" in cmd
    argv = shlex.split(cmd)[3:]
    argv[argv.index("--out") + 1] = str(tmp_path / "again.npz")
    assert tr.main([*argv, "--no-manifest"]) == 0           # with the progress bars
    again = load_pool(tmp_path / "again.npz")
    assert np.array_equal(again.gaps, pool.gaps)
    assert again.meta["config"] == meta["config"]


def test_paper_backbone_through_timm_and_its_errors(paper_files, monkeypatch, tmp_path):
    from genexpy_nb.seedpools import transfer as tr

    f = paper_files
    timm = f["timm"]
    # weights="timm": the published model as timm gives it (here: a tiny random one, no
    # download), converted; the normalisation comes from timm's configuration
    avg = _tiny_timm_vit(timm, global_pool="avg")
    monkeypatch.setattr(timm, "create_model", lambda name, pretrained, num_classes: f["ref"])
    vit, info = tr.paper_backbone("vit_tiny_patch16_224", "timm")
    assert info["architecture"] == {**_TINY_ARCH, "in_channels": 3}
    assert info["mean"] == [0.5] * 3 and info["max_abs_diff_to_timm"] < 1e-5
    x = torch.rand(3, 3, 48, 48, generator=torch.Generator().manual_seed(4))
    with torch.no_grad():
        torch.testing.assert_close(vit.forward_features(x), f["ref"].forward_head(
            f["ref"].forward_features(x), pre_logits=True), rtol=0, atol=1e-5)
    # a timm layout the package's ViT lacks is refused by name
    monkeypatch.setattr(timm, "create_model", lambda name, pretrained, num_classes: avg)
    with pytest.raises(GenexpyInputError, match="global_pool"):
        tr.paper_backbone("vit_tiny_patch16_224", "timm")

    # no network: timm's download fails -> what to do instead
    def offline(*a, **k):
        raise OSError("We couldn't connect to 'https://huggingface.co' to load this file")

    monkeypatch.setattr(timm, "create_model", offline)
    with pytest.raises(GenexpyInputError, match="check the network.*weights=PATH"):
        tr.paper_transfer_pool(tmp_path / "x.npz", cifar_dir=f["cifar"], device="cpu")
    # no timm at all
    monkeypatch.setitem(sys.modules, "timm", None)
    with pytest.raises(GenexpyInputError, match="pip install timm"):
        tr.paper_backbone()
    # a file that is not the one named by its sha256 is not read
    with pytest.raises(GenexpyInputError, match="expected 00ff.*not read"):
        tr.paper_backbone(_TINY_ARCH, f["ckpt"], sha256="00ff")
    with pytest.raises(GenexpyInputError, match="sha256 checks a weights file"):
        tr.paper_backbone(weights="timm", sha256="00ff")
    with pytest.raises(GenexpyInputError, match="n_models"):     # before any download
        tr.paper_transfer_pool(tmp_path / "x.npz", n_models=0)
    with pytest.raises(GenexpyInputError, match="not a known ViT size"):
        tr.paper_backbone("vit_huge", f["ckpt"])
    with pytest.raises(GenexpyInputError, match="shape mismatch"):
        tr.paper_backbone({**_TINY_ARCH, "dim": 64}, f["ckpt"])
    if not torch.cuda.is_available():
        with pytest.raises(GenexpyInputError, match="no CUDA device"):
            tr.paper_transfer_pool(tmp_path / "x.npz", arch=_TINY_ARCH, weights=f["ckpt"],
                                   cifar_dir=f["cifar"], device="cuda")
    assert tr.main(["--out", str(tmp_path / "y.npz"), "--backbone", "paper",
                    "--weights", str(f["ckpt"]), "--vit-arch", "{bad"]) == 2


def test_device_option_of_the_pool_commands(tmp_path, capsys):
    from genexpy_nb.seedpools import cnn_seeds, load_pool

    out = tmp_path / "c.npz"
    assert cnn_seeds.main(["--out", str(out), "--models", "1", "--epochs", "1", "--n-train",
                           "64", "--device", "cpu", "--no-progress", "--no-manifest"]) == 0
    pool = load_pool(out)
    assert pool.meta["device"].startswith("cpu") and "device" not in pool.meta["config"]
    assert pool.meta["command"].endswith("--device cpu")
    bad = ["--out", str(tmp_path / "d.npz"), "--models", "1", "--no-manifest", "--device"]
    assert cnn_seeds.main([*bad, "tpu"]) == 2
    assert "device must be" in capsys.readouterr().err
    if not torch.cuda.is_available():
        assert cnn_seeds.main([*bad, "cuda"]) == 2
        assert "no CUDA device" in capsys.readouterr().err


def test_a_resumed_pool_does_not_compute_the_features_again(paper_files, tmp_path,
                                                            monkeypatch):
    from genexpy_nb.seedpools import transfer as tr

    f = paper_files
    kw = dict(arch=_TINY_ARCH, weights=f["ckpt"], cifar_dir=f["cifar"], n_val=4, n_models=3,
              epochs=1, device="cpu", progress=False)
    whole = tr.paper_transfer_pool(tmp_path / "whole.npz", **kw)
    assert not (tmp_path / "whole.npz.features").exists()     # removed with the finished pool
    assert tr.paper_transfer_pool(tmp_path / "part.npz", max_new_models=2, **kw) is None
    assert (tmp_path / "part.npz.features").is_file()

    def no_backbone(*a, **k):
        raise AssertionError("features computed again")

    monkeypatch.setattr(tr, "extract_features", no_backbone)
    part = tr.paper_transfer_pool(tmp_path / "part.npz", **kw)
    assert np.array_equal(part.gaps, whole.gaps)
    assert not (tmp_path / "part.npz.features").exists()
    # another preprocessing is another key: the cache is not used
    monkeypatch.undo()
    assert tr.paper_transfer_pool(tmp_path / "p2.npz", max_new_models=1, **kw) is None
    monkeypatch.setattr(tr, "extract_features", no_backbone)
    with pytest.raises(AssertionError, match="features computed again"):
        tr.paper_transfer_pool(tmp_path / "p2.npz", mean=(0.4, 0.4, 0.4), **kw)
