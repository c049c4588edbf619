"""Training throughput of the seed pools, in images per second, on the CPU and on CUDA when
torch sees a GPU (python benchmarks/bench_training.py [--models N] [--threads T]).

For every device it prints:

* the CNN pool (the shipped configuration: 600 digits at 8x8, 30 epochs, batch 32);
* the ViT heads: the feature extraction of the package's pre-trained small ViT (16x16 inputs)
  and the training of one linear head on those features (5 epochs), as the shipped transfer
  pools run them;
* the ViT fine-tuning pool (every weight of the small ViT trained, batch 32);
* the paper's exact setting: the feature extraction of a ViT-B/16 at 224x224 (random weights:
  the cost does not depend on them) from CIFAR-sized 32x32 images, resized batch by batch.

A training figure counts each image once per epoch (images seen per second). Each figure is
the best of ``--repeat`` runs after a warm-up (the machine may be shared). And the CNN step
with the fused vs the for-each Adam. One torch thread by default (``--threads``).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from genexpy_nb.seedpools import SmallCNN, digits_binary_task, pool_seeds, train_model
from genexpy_nb.seedpools._device import device_name, pick_device
from genexpy_nb.seedpools._torch import torch_threads


def _sync(dev: torch.device) -> None:
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)


def _best(fn, repeat: int) -> float:
    """Smallest wall time of ``repeat`` calls of ``fn`` (after one warm-up call)."""
    fn()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def bench_cnn(dev: torch.device, n_models: int, repeat: int) -> None:
    task = digits_binary_task()
    init, order = pool_seeds(0, "both", n_models)
    n, epochs = task.y_train.size, 30

    def run() -> None:
        for i in range(n_models):
            train_model(lambda: SmallCNN(1, 8), task, init_seed=int(init[i]),
                        order_seed=int(order[i]), epochs=epochs, device=dev)
        _sync(dev)

    t = _best(run, repeat) / n_models
    print(f"  CNN pool (600 train images 8x8, {epochs} epochs, batch 32): "
          f"{n * epochs / t:,.0f} images/s training ({t:.2f} s per model)")


def bench_vit_heads(dev: torch.device, n_models: int, repeat: int) -> None:
    from genexpy_nb.seedpools.pretrain import load_pretrained_vit
    from genexpy_nb.seedpools.transfer import feature_task, vit_digits_task
    from genexpy_nb.seedpools.vit import extract_features

    task = vit_digits_task()
    vit = load_pretrained_vit()
    X = np.concatenate([task.X_train, task.X_val, task.X_test])
    feats: dict[str, np.ndarray] = {}

    def extract() -> None:
        for p in ("train", "val", "test"):
            feats[p] = extract_features(vit, getattr(task, f"X_{p}"), device=dev)

    t_feat = _best(extract, repeat)
    ftask = feature_task(task, feats, "vit")
    init, order = pool_seeds(0, "both", n_models)
    n, epochs, dim = ftask.y_train.size, 5, ftask.X_train.shape[1]

    def heads() -> None:
        for i in range(n_models):
            train_model(lambda: torch.nn.Linear(dim, 2), ftask, init_seed=int(init[i]),
                        order_seed=int(order[i]), epochs=epochs, lr=1e-2, device=dev)
        _sync(dev)

    t_head = _best(heads, repeat) / n_models
    print(f"  ViT heads: features of the small ViT (16x16, 4 blocks, width 64): "
          f"{X.shape[0] / t_feat:,.0f} images/s ({X.shape[0]} images in {t_feat:.2f} s, once "
          f"per pool); one linear head ({dim} -> 2, {n} images, {epochs} epochs): "
          f"{n * epochs / t_head:,.0f} images/s ({t_head:.3f} s per head)")


def bench_vit_finetune(dev: torch.device, repeat: int) -> None:
    from genexpy_nb.seedpools.pretrain import read_backbone_file
    from genexpy_nb.seedpools.transfer import ViTClassifier, vit_digits_task
    from genexpy_nb.seedpools.vit import MiniViT

    task = vit_digits_task()
    arrays, bmeta = read_backbone_file()
    arch = bmeta["config"]["architecture"]
    state = {k: torch.from_numpy(v) for k, v in arrays.items()}

    def factory() -> ViTClassifier:
        vit = MiniViT(**arch, num_classes=0)
        vit.load_state_dict(state, strict=True)
        return ViTClassifier(vit, int(arch["dim"]), 2)

    n, epochs = task.y_train.size, 2

    def run() -> None:
        train_model(factory, task, init_seed=1, order_seed=2, epochs=epochs, lr=3e-4,
                    device=dev)
        _sync(dev)

    t = _best(run, repeat)
    print(f"  ViT fine-tuning (small ViT, all weights, {n} images 16x16, batch 32): "
          f"{n * epochs / t:,.0f} images/s training ({t / epochs:.2f} s per epoch)")


def bench_paper_features(dev: torch.device, n_images: int, repeat: int) -> None:
    from genexpy_nb.seedpools.vit import VIT_MEAN, VIT_STD, extract_features, make_vit

    vit = make_vit("vit_base_patch16_224")
    X = np.random.default_rng(0).random((n_images, 3, 32, 32), dtype=np.float32)
    t = _best(lambda: extract_features(vit, X, mean=VIT_MEAN, std=VIT_STD, device=dev,
                                       batch_size=min(n_images, 64)), repeat)
    rate = n_images / t
    print(f"  paper setting: ViT-B/16 features at 224x224 (from 32x32, resized per batch): "
          f"{rate:,.1f} images/s; the ~48,000 CIFAR-10 images of the task: "
          f"{48_000 / rate / 60:,.1f} min")


def bench_adam(steps: int = 300) -> None:
    X = torch.rand(32, 1, 8, 8)
    y = torch.randint(0, 2, (32,))
    for kw in ({"foreach": False}, {"foreach": True}, {"fused": True}):
        torch.manual_seed(0)
        m = SmallCNN(1, 8)
        try:
            opt = torch.optim.Adam(m.parameters(), lr=1e-3, **kw)
        except (RuntimeError, TypeError, ValueError) as exc:
            print(f"Adam {kw}: not available ({exc})")
            continue
        loss_fn = torch.nn.CrossEntropyLoss()
        c0 = time.process_time()
        for _ in range(steps):
            opt.zero_grad(set_to_none=True)
            loss_fn(m(X), y).backward()
            opt.step()
        dt = time.process_time() - c0
        print(f"Adam {kw}: {1e3 * dt / steps:.2f} ms CPU per step (CNN, batch 32)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", type=int, default=2, help="models per timing (2)")
    ap.add_argument("--repeat", type=int, default=3, help="best of this many runs (3)")
    ap.add_argument("--threads", type=int, default=1, help="torch threads on the CPU (1)")
    ap.add_argument("--paper-images", type=int, default=16,
                    help="images for the ViT-B/16 timing on the CPU (16; 2048 on a GPU)")
    ap.add_argument("--skip-paper", action="store_true", help="skip the ViT-B/16 timing")
    args = ap.parse_args()
    devices = [torch.device("cpu")]
    if torch.cuda.is_available():
        devices.append(pick_device("cuda"))
    with torch_threads(args.threads):
        bench_adam()
        for dev in devices:
            print(f"{device_name(dev)}, {args.threads} torch thread(s) on the CPU:")
            bench_cnn(dev, args.models, args.repeat)
            bench_vit_heads(dev, args.models, args.repeat)
            bench_vit_finetune(dev, args.repeat)
            if not args.skip_paper:
                n = args.paper_images if dev.type == "cpu" else max(args.paper_images, 2048)
                bench_paper_features(dev, n, args.repeat)
        if len(devices) == 1:
            print("(no CUDA device seen by torch: CPU figures only)")


if __name__ == "__main__":
    main()
