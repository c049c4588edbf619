"""Pre-training the package's small Vision Transformer on fractals (needs torch).

The paper's transfer study (Section V-C) starts from a vision transformer pre-trained on
ImageNet. Without network we pre-train our own: :func:`small_vit` (a
:class:`~.vit.MiniViT`: 4x4 patches of a 16x16 grey-scale image, a class token, learned
position embeddings, 4 pre-norm transformer blocks of width 64 with 4 attention heads and an
MLP of width 128, final LayerNorm; 0.14 M parameters) is trained to tell apart the classes of
a formula-driven image set — fractals drawn from random iterated function systems
(:mod:`.fractals`, as FractalDB pre-trains vision transformers without natural images).

:func:`pretrain_vit` trains it (AdamW, cosine learning rate with warm-up, label smoothing;
seeded initialisation and batch order) and writes the weights to a NumPy ``.npz`` — plain
arrays named like timm's ViT parameters plus a JSON ``meta`` entry, no pickle — which
:func:`load_pretrained_vit` reads back into a frozen backbone.

Command line (regenerates the shipped weights; about 15 minutes on one CPU core)::

    python -m genexpy_nb.seedpools.pretrain --out data/vit_fractal_backbone.npz
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import shutil
import sys
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from .._io import atomic_path, atomic_write, write_npz
from .._validation import GenexpyInputError, check_positive_int
from ._torch import require_torch, torch_threads

torch = require_torch("pre-training the ViT (genexpy_nb.seedpools.pretrain)")
nn = torch.nn
F = torch.nn.functional

from ._device import device_name, pick_device  # noqa: E402
from .fractals import FractalSet, fractal_source_task  # noqa: E402
from .pools import derive_seed, versions  # noqa: E402
from .vit import MiniViT  # noqa: E402

__all__ = ["SMALL_VIT", "load_pretrained_vit", "pretrain_vit", "small_vit"]

#: the architecture of the shipped backbone
SMALL_VIT: dict[str, Any] = {"image_size": 16, "patch_size": 4, "in_channels": 1, "dim": 64,
                             "depth": 4, "heads": 4, "mlp_ratio": 2.0}
#: the upstream data of the shipped backbone
DEFAULT_RECIPE = FractalSet(n_classes=100, per_class=200, size=16, seed=0)
DEFAULT_EPOCHS = 8
SHIPPED_BACKBONE = "vit_fractal_backbone.npz"
_INIT_STREAM = 21
_ORDER_STREAM = 22


def small_vit(num_classes: int = 0, **overrides: Any) -> MiniViT:
    """Build the package's small ViT (:data:`SMALL_VIT`), with ``num_classes`` outputs (0: none)."""
    return MiniViT(**{**SMALL_VIT, **overrides, "num_classes": int(num_classes)})


def _state_arrays(model: nn.Module) -> dict[str, np.ndarray]:
    return {k: v.detach().cpu().numpy().astype(np.float32)
            for k, v in model.state_dict().items()}


def weights_sha256(arrays: dict[str, np.ndarray]) -> str:
    """sha256 of named float32 arrays (order-independent): identifies a set of weights."""
    h = hashlib.sha256()
    for k in sorted(arrays):
        a = np.ascontiguousarray(arrays[k], dtype=np.float32)
        h.update(k.encode())
        h.update(str(a.shape).encode())
        h.update(a.tobytes())
    return h.hexdigest()


def _lr_at(step: int, total: int, warmup: int, lr: float) -> float:
    if step < warmup:
        return lr * (step + 1) / warmup
    p = (step - warmup) / max(1, total - warmup)
    return lr * 0.5 * (1.0 + math.cos(math.pi * p))


def _evaluate(model: nn.Module, X: Any, y: Any, dev: Any, batch: int = 512) -> float:
    model.eval()
    correct = 0
    with torch.no_grad():
        for s in range(0, X.shape[0], batch):
            correct += int((model(X[s:s + batch].to(dev)).argmax(1).cpu() == y[s:s + batch]).sum())
    return correct / max(1, X.shape[0])


def pretrain_vit(
    out: str | os.PathLike,
    *,
    recipe: FractalSet = DEFAULT_RECIPE,
    epochs: int = DEFAULT_EPOCHS,
    batch_size: int = 128,
    lr: float = 1e-3,
    weight_decay: float = 0.05,
    warmup_epochs: float = 0.5,
    label_smoothing: float = 0.1,
    seed: int = 0,
    device: str = "auto",
    n_threads: int = 1,
    progress: bool = True,
    overwrite: bool = False,
    command: str | None = None,
) -> dict[str, Any]:
    """Pre-train :func:`small_vit` on a fractal classification task; save the backbone.

    The model is built under ``torch.manual_seed(derive_seed(seed, 21, 0))``; epoch ``e``
    visits the images in the permutation ``default_rng(derive_seed(seed, 22, e))``. After
    every epoch the weights and the optimiser state go to ``<out>.partial/``, so an
    interrupted run continues where it stopped (same arguments) and gives the same weights.

    Parameters
    ----------
    out
        The ``.npz`` to write: the backbone's parameters (without the pre-training head,
        names as in :class:`~.vit.MiniViT` / timm) and ``meta`` (JSON: architecture, data
        recipe, training, accuracies, timings, throughput, device, versions, command).
    recipe
        The fractal data set (:class:`~.fractals.FractalSet`).
    epochs, batch_size, lr, weight_decay, warmup_epochs, label_smoothing
        AdamW with a linear warm-up then a cosine decay to 0; cross-entropy with label
        smoothing.
    seed
        Seed of the initialisation and of the batch order.
    device
        'auto' (CUDA when available), 'cpu' or 'cuda' (:func:`~._device.pick_device`).
    n_threads
        torch threads on CPU.

    Returns
    -------
    dict
        The ``meta`` written to the file.
    """
    out = Path(out).expanduser()
    if out.suffix != ".npz":
        raise GenexpyInputError(f"out must end in .npz, got {str(out)!r}.")
    epochs = check_positive_int("epochs", epochs)
    batch_size = check_positive_int("batch_size", batch_size)
    if not (isinstance(lr, (int, float)) and lr > 0):
        raise GenexpyInputError(f"lr must be a positive number, got {lr!r}.")
    if out.is_file() and not overwrite:
        raise GenexpyInputError(f"{out} exists; pass overwrite=True (--overwrite) to replace it.")
    dev = pick_device(device)
    t0 = time.perf_counter()
    src = fractal_source_task(recipe)
    t_data = time.perf_counter() - t0
    Xtr = torch.from_numpy(src.X_train)
    ytr = torch.from_numpy(src.y_train)
    Xva = torch.from_numpy(src.X_val)
    yva = torch.from_numpy(src.y_val)
    n = int(ytr.shape[0])
    steps_per_epoch = -(-n // batch_size)
    total = steps_per_epoch * epochs
    warmup = max(1, int(round(warmup_epochs * steps_per_epoch)))
    config = {"architecture": SMALL_VIT, "recipe": recipe.describe(), "epochs": epochs,
              "batch_size": batch_size, "lr": lr, "weight_decay": weight_decay,
              "warmup_steps": warmup, "label_smoothing": label_smoothing, "seed": int(seed),
              "optimizer": "AdamW (betas 0.9, 0.999), linear warm-up then cosine decay to 0"}
    partial = out.with_name(out.name + ".partial")
    if overwrite:
        shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True, exist_ok=True)
    cfg_file = partial / "config.json"
    if cfg_file.is_file():
        from ._pool_files import read_partial_config

        if read_partial_config(cfg_file) != json.loads(json.dumps(config)):
            raise GenexpyInputError(
                f"{partial} holds an unfinished run with another configuration; delete it or "
                "pass overwrite=True.")
    else:
        with atomic_write(cfg_file, "w") as fh:
            fh.write(json.dumps(config, indent=1))

    with torch_threads(n_threads):
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(derive_seed(seed, _INIT_STREAM, 0))
            model = small_vit(recipe.n_classes)
        model.to(dev)
        decay = [p for name, p in model.named_parameters() if p.ndim >= 2
                 and "pos_embed" not in name and "cls_token" not in name]
        no_decay = [p for name, p in model.named_parameters() if not (
            p.ndim >= 2 and "pos_embed" not in name and "cls_token" not in name)]
        opt = torch.optim.AdamW([{"params": decay, "weight_decay": weight_decay},
                                 {"params": no_decay, "weight_decay": 0.0}], lr=lr)
        history: list[dict[str, float]] = []
        start_epoch = 0
        for ck_path in sorted(partial.glob("epoch_*.pt"), reverse=True):
            # the latest checkpoint that reads; a damaged one (on disk: writes are atomic)
            # is set aside and the run resumes from the one before
            try:
                ck = torch.load(ck_path, map_location=dev, weights_only=True)
                model.load_state_dict(ck["model"])
                opt.load_state_dict(ck["opt"])
                history = json.loads(ck["history"])
                if not isinstance(history, list):
                    raise ValueError("the history is not a list")
            except Exception as exc:
                import warnings

                ck_path.replace(ck_path.with_name(ck_path.name + ".damaged"))
                warnings.warn(f"checkpoint {ck_path} is damaged ({type(exc).__name__}); it was "
                              "renamed *.damaged and training resumes from the one before.",
                              UserWarning, stacklevel=2)
                history = []
                continue
            start_epoch = len(history)
            break
        from .._progress import tqdm

        bar = tqdm(total=epochs, initial=start_epoch, desc="pre-training the ViT", unit="epoch",
                   disable=not progress)
        for e in range(start_epoch, epochs):
            te = time.perf_counter()
            model.train()
            perm = torch.from_numpy(np.random.default_rng(
                derive_seed(seed, _ORDER_STREAM, e)).permutation(n))
            tot, cnt = 0.0, 0
            for b in range(steps_per_epoch):
                idx = perm[b * batch_size:(b + 1) * batch_size]
                for g in opt.param_groups:
                    g["lr"] = _lr_at(e * steps_per_epoch + b, total, warmup, lr)
                xb, yb = Xtr[idx].to(dev), ytr[idx].to(dev)
                loss = F.cross_entropy(model(xb), yb, label_smoothing=label_smoothing)
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
                tot += float(loss.detach()) * idx.shape[0]
                cnt += int(idx.shape[0])
            secs = time.perf_counter() - te
            val = _evaluate(model, Xva, yva, dev)
            history.append({"epoch": e + 1, "train_loss": round(tot / cnt, 5),
                            "val_accuracy": round(val, 4), "seconds": round(secs, 2),
                            "images_per_second": round(n / secs, 1)})
            ck = {"model": model.state_dict(), "opt": opt.state_dict(),
                  "history": json.dumps(history)}
            with atomic_path(partial / f"epoch_{e + 1:03d}.pt") as tmp:
                torch.save(ck, tmp)
            for old in partial.glob("epoch_*.pt"):
                if old.name != f"epoch_{e + 1:03d}.pt":
                    old.unlink()
            bar.update(1)
            bar.set_postfix(val=f"{val:.3f}", loss=f"{tot / cnt:.3f}")
        bar.close()
        train_acc = _evaluate(model, Xtr[:5000], ytr[:5000], dev)
    arrays = {k: v for k, v in _state_arrays(model).items() if not k.startswith("head.")}
    meta = {
        "kind": "vit-backbone",
        "description": (
            "small ViT (16x16 grey-scale input, 4x4 patches, class token, learned position "
            "embeddings, 4 pre-norm blocks, width 64, 4 heads, MLP 128, final LayerNorm) "
            f"pre-trained to classify {recipe.n_classes} classes of fractal images from "
            "random iterated function systems; head removed"),
        "config": config,
        "history": history,
        "upstream_val_accuracy": history[-1]["val_accuracy"],
        "upstream_train_accuracy_first_5000": round(train_acc, 4),
        "chance_accuracy": round(1 / recipe.n_classes, 4),
        "n_parameters_backbone": int(sum(a.size for a in arrays.values())),
        "data_seconds": round(t_data, 2),
        "training_seconds": round(sum(h["seconds"] for h in history), 2),
        "images_per_second_training": round(
            sum(n for _ in history) / max(1e-9, sum(h["seconds"] for h in history)), 1),
        "device": device_name(dev),
        "n_threads": int(n_threads),
        "versions": versions(),
        "command": command,
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    meta["weights_sha256"] = weights_sha256(arrays)
    write_npz(out, {**arrays, "meta": np.array(json.dumps(meta, sort_keys=True))},
              permissions=0o644)  # as the pool files: data files are shared
    shutil.rmtree(partial, ignore_errors=True)
    return meta


def read_backbone_file(path_or_name: str | os.PathLike = SHIPPED_BACKBONE
                       ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """Read the weight arrays and ``meta`` of a backbone ``.npz`` (a path or a shipped name).

    The file is read with ``allow_pickle=False`` and the weights' sha256 is checked against
    the one recorded in ``meta``.
    """
    from .._io import read_npz
    from ._pool_files import read_meta

    p = Path(path_or_name).expanduser()
    if not p.exists() and not p.is_symlink():
        from ..io.public import shipped_path

        p = shipped_path(str(path_or_name))
    arrays = read_npz(p, "backbone file")
    if "meta" not in arrays:
        raise GenexpyInputError(f"{p} is not a genexpy_nb backbone file (no 'meta' entry).")
    meta = read_meta(arrays.pop("meta"), f"backbone file {p}")
    if meta.get("weights_sha256") != weights_sha256(arrays):
        raise GenexpyInputError(
            f"{p}: the weights do not match the sha256 recorded in the file; it is damaged or "
            "was edited. Regenerate it (see data/MANIFEST.md).")
    return arrays, meta


def load_pretrained_vit(path_or_name: str | os.PathLike = SHIPPED_BACKBONE, *,
                        random_weights: bool = False, seed: int = 0) -> MiniViT:
    """Load the pre-trained small ViT, frozen and in eval mode (no head: it returns features).

    Parameters
    ----------
    path_or_name
        A backbone file written by :func:`pretrain_vit`, or the name of a shipped one.
    random_weights
        Return the same architecture with freshly initialised weights instead (seeded by
        ``seed``): the control that shows what pre-training adds.
    """
    arrays, meta = read_backbone_file(path_or_name)
    arch = meta["config"]["architecture"]
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(int(seed))
        model = MiniViT(**arch, num_classes=0)
    if not random_weights:
        from .vit import load_weights

        load_weights(model, {k: torch.from_numpy(v) for k, v in arrays.items()},
                     weights_format="torch")
    for p in model.parameters():
        p.requires_grad_(False)
    return model.eval()


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="python -m genexpy_nb.seedpools.pretrain",
        description="Pre-train the package's small ViT on fractal images (resumable).")
    ap.add_argument("--out", required=True)
    ap.add_argument("--classes", type=int, default=DEFAULT_RECIPE.n_classes)
    ap.add_argument("--per-class", type=int, default=DEFAULT_RECIPE.per_class)
    ap.add_argument("--data-seed", type=int, default=DEFAULT_RECIPE.seed)
    ap.add_argument("--epochs", type=int, default=DEFAULT_EPOCHS)
    ap.add_argument("--batch-size", type=int, default=128)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--device", default="auto")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--overwrite", action="store_true")
    ap.add_argument("--no-progress", action="store_true")
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry; returns the exit status (2 on bad arguments)."""
    from .cnn_seeds import command_line

    argv = list(sys.argv[1:] if argv is None else argv)
    args = _parser().parse_args(argv)
    recipe = FractalSet(n_classes=args.classes, per_class=args.per_class, size=16,
                        seed=args.data_seed)
    try:
        meta = pretrain_vit(
            args.out, recipe=recipe, epochs=args.epochs, batch_size=args.batch_size,
            lr=args.lr, seed=args.seed, device=args.device, n_threads=args.threads,
            progress=not args.no_progress, overwrite=args.overwrite,
            command=command_line("genexpy_nb.seedpools.pretrain",
                                 [a for a in argv if a not in ("--overwrite",)]),
        )
    except GenexpyInputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"{args.out}: upstream validation accuracy {meta['upstream_val_accuracy']:.4f} "
          f"(chance {meta['chance_accuracy']}); {meta['training_seconds'] / 60:.1f} min, "
          f"{meta['images_per_second_training']:.0f} images/s on {meta['device']}.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
