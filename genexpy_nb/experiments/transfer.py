"""Transfer-learning seed pools (robust-KS paper, Section V-C): frozen backbone, linear
heads.

A backbone is pre-trained once (or loaded), then frozen; only a linear layer on its features
is trained, for 5 epochs, over 90 seeds (45 reference, 45 candidates). Because the backbone is
frozen and there is no augmentation, its features are computed once and the heads are trained
on them: the same models as training "backbone + head" with the backbone's weights fixed.

Default backbone ("digits-cnn"): the convolutional part (``conv``: two conv layers, 128
features for 8x8 images) of the small CNN of :mod:`.cnn_seeds` with 10 outputs, pre-trained on
the 10-class digit problem on one half of the digits; the binary target task (5-9 vs 0-4)
lives on the other half. Any ``torch.nn.Module`` (e.g. a :class:`.vit.MiniViT` with
pre-trained weights from a local file) can be used instead.

The features are standardised with the mean and standard deviation of the target *training*
features (fixed once, like the affine-free BatchNorm of MAE's linear probing): the heads
then reach close to their final accuracy within the paper's 5 epochs. On the digits, the
conv features are the right layer to probe: a linear head on the 64-unit hidden layer of the
10-class network reaches about 85% after 5 epochs (95% with logistic regression run to
convergence), on the conv features about 95% (97%).

Command line::

    python -m genexpy_nb.experiments.transfer --out data/transfer_digits.npz
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from .._validation import GenexpyInputError, check_positive_int
from ._torch import require_torch, torch_threads

torch = require_torch("the transfer-learning pools (genexpy_nb.experiments.transfer)")
nn = torch.nn

from .cnn_seeds import (  # noqa: E402
    DEFAULT_CHANNELS,
    DEFAULT_HIDDEN,
    add_scheduler_argument,
    command_line,
    task_from_args,
)
from .pools import (  # noqa: E402
    SOURCES,
    SeedPool,
    check_out_path,
    derive_seed,
    write_manifest,
)
from .tasks import BinaryTask, SourceTask, digits_transfer_tasks  # noqa: E402
from .training import (  # noqa: E402
    SmallCNN,
    batch_order,
    build_model,
    check_training_args,
    fit_classifier,
    train_pool,
)
from .vit import (  # noqa: E402
    VIT_MEAN,
    VIT_PRESETS,
    VIT_STD,
    MiniViT,
    extract_features,
    make_vit,
)

DEFAULT_HEAD_EPOCHS = 5
DEFAULT_HEAD_LR = 1e-2
DEFAULT_BACKBONE_EPOCHS = 30
#: streams of the backbone's seeds (distinct from the pools' streams 1 and 2)
_BACKBONE_INIT_STREAM = 3
_BACKBONE_ORDER_STREAM = 4


def _state_sha256(module: nn.Module) -> str:
    h = hashlib.sha256()
    for k, v in sorted(module.state_dict().items()):
        h.update(k.encode())
        h.update(np.ascontiguousarray(v.detach().cpu().numpy()).tobytes())
    return h.hexdigest()


def pretrain_digits_backbone(
    source: SourceTask, *, seed: int = 0, epochs: int = DEFAULT_BACKBONE_EPOCHS,
    lr: float = 1e-3, batch_size: int = 32, channels: tuple[int, int] = DEFAULT_CHANNELS,
    hidden: int = DEFAULT_HIDDEN, n_threads: int = 1,
) -> tuple[SmallCNN, dict[str, Any]]:
    """Pre-train the small CNN on a multi-class source task; return it frozen, with a report.

    The initial weights and the batch order come from ``seed`` (streams distinct from the
    pools' seeds). The returned model has ``requires_grad=False`` everywhere; its ``conv``
    submodule is the backbone of :func:`train_transfer_pool`.

    Returns
    -------
    (model, info)
        ``info``: source accuracy on the held-out part, epochs, seconds, weights sha256.
    """
    if not isinstance(source, SourceTask):
        raise GenexpyInputError(f"source must be a SourceTask, got {type(source).__name__}.")
    epochs = check_positive_int("epochs", epochs)
    t0 = time.perf_counter()
    shape = source.X_train.shape[1:]
    init_seed = derive_seed(seed, _BACKBONE_INIT_STREAM, 0)
    order_seed = derive_seed(seed, _BACKBONE_ORDER_STREAM, 0)

    def factory() -> SmallCNN:
        return SmallCNN(int(shape[0]), int(shape[1]), tuple(channels), hidden, source.n_classes)

    with torch_threads(n_threads):
        model = build_model(factory, init_seed)
        order = batch_order(order_seed, source.y_train.shape[0], epochs)
        loss, curve = fit_classifier(
            model, source.X_train, source.y_train, order, lr=lr, batch_size=batch_size,
            X_val=source.X_val if source.y_val.size else None,
            y_val=source.y_val if source.y_val.size else None,
        )
    for p in model.parameters():
        p.requires_grad_(False)
    model.eval()
    info = {
        "backbone": "conv layers of a SmallCNN pre-trained on " + source.name,
        "source_task": {"name": source.name, "n_classes": source.n_classes, **source.info},
        "architecture": {"channels": list(channels), "hidden": int(hidden),
                         "n_outputs": source.n_classes},
        "seed": int(seed), "init_seed": str(init_seed), "order_seed": str(order_seed),
        "epochs": int(epochs), "lr": float(lr), "batch_size": int(batch_size),
        "final_train_loss": round(float(loss), 5),
        "source_val_accuracy": None if np.isnan(curve[-1]) else round(float(curve[-1]), 4),
        "seconds": round(time.perf_counter() - t0, 2),
        "weights_sha256": _state_sha256(model),
    }
    return model, info


def feature_task(
    task: BinaryTask, features: Mapping[str, np.ndarray], backbone: str, *,
    standardize: bool = True,
) -> BinaryTask:
    """The task with its images replaced by backbone features (same labels and indices).

    With ``standardize``, every feature is centred and scaled by the mean and standard
    deviation over the *training* features (a feature constant on the training set is only
    centred).
    """
    f = {p: np.asarray(features[p], dtype=np.float32) for p in ("train", "val", "test")}
    if standardize:
        mu = f["train"].mean(axis=0, dtype=np.float64)
        sd = f["train"].std(axis=0, dtype=np.float64)
        sd[sd < 1e-12] = 1.0
        f = {p: ((v - mu) / sd).astype(np.float32) for p, v in f.items()}
    return replace(
        task, name=f"{task.name}-features({backbone})",
        X_train=f["train"], X_val=f["val"], X_test=f["test"],
        info={**task.info, "inputs": f"features of the frozen backbone {backbone}"
              + (", standardised with the training mean and sd" if standardize else ""),
              "images_fingerprint": task.fingerprint()},
    )


def train_transfer_pool(
    out: str | Path,
    *,
    n_models: int = 90,
    seed: int = 0,
    source: str = "both",
    head_epochs: int = DEFAULT_HEAD_EPOCHS,
    lr: float = DEFAULT_HEAD_LR,
    batch_size: int = 32,
    backbone: str | nn.Module = "digits-cnn",
    weights: str | os.PathLike | Mapping[str, Any] | None = None,
    weights_format: str = "auto",
    task: BinaryTask | None = None,
    image_size: int | None = None,
    mean: Sequence[float] | None = None,
    std: Sequence[float] | None = None,
    standardize: bool = True,
    backbone_seed: int = 0,
    backbone_epochs: int = DEFAULT_BACKBONE_EPOCHS,
    split_seed: int = 0,
    n_threads: int = 1,
    max_new_models: int | None = None,
    overwrite: bool = False,
    progress: bool = True,
    command: str | None = None,
    client: Any = None,
) -> SeedPool | None:
    """Train (or resume) a pool of linear heads on a frozen backbone.

    Parameters
    ----------
    out
        Pool file (``.npz``).
    n_models, seed, source
        Pool size (the paper: 90 = 45 reference + 45 candidates), pool seed, source of
        randomness of the heads ('both' in the paper: initialisation and batch order).
    head_epochs, lr, batch_size
        Training of the linear head (the paper: 5 epochs; Adam with lr 1e-2 gets close to
        convergence in 5 epochs on standardised features).
    backbone
        "digits-cnn" (pre-train :class:`~.training.SmallCNN` on the 10-class digits of one
        half and use its ``conv`` part; the target task is on the other half), or any
        ``torch.nn.Module`` used frozen as it is (``forward_features`` if present), e.g.
        :func:`~.vit.make_vit`.
    weights, weights_format
        State dict (path or mapping) loaded into a module backbone (:func:`~.vit.load_weights`).
    task
        Target task for a module backbone (images); not allowed with "digits-cnn".
    image_size, mean, std
        Preprocessing for a module backbone (see :func:`~.vit.extract_features`).
    standardize
        Standardise the features with the training mean and sd (:func:`feature_task`).
    backbone_seed, backbone_epochs, split_seed
        Pre-training of "digits-cnn" and the split of the digits into source and target.
    n_threads, max_new_models, overwrite, progress, command, client
        See :func:`~.training.train_pool` (``client``: train the heads on a Dask cluster;
        the backbone and its features are computed here first).

    Returns
    -------
    SeedPool or None
        The pool (gaps of shape (n_models, T)), or None if ``max_new_models`` stopped early.
    """
    head_epochs = check_positive_int("head_epochs", head_epochs)
    check_training_args(
        n_models=n_models, epochs=head_epochs, lr=lr, batch_size=batch_size,
        n_threads=n_threads, max_new_models=max_new_models, seed=seed, source=source,
    )
    out = check_out_path(out)
    t0 = time.perf_counter()
    if isinstance(backbone, str):
        if backbone != "digits-cnn":
            raise GenexpyInputError(
                f"backbone must be 'digits-cnn' or a torch.nn.Module, got {backbone!r}.")
        if task is not None or weights is not None:
            raise GenexpyInputError(
                "task and weights are for a module backbone; the 'digits-cnn' backbone builds "
                "its own source and target tasks (see digits_transfer_tasks)."
            )
        src, target = digits_transfer_tasks(split_seed=split_seed)
        net, binfo = pretrain_digits_backbone(
            src, seed=backbone_seed, epochs=backbone_epochs, n_threads=n_threads)
        name = "digits-cnn"
        feats = {p: extract_features(net.conv, getattr(target, f"X_{p}"), n_threads=n_threads)
                 for p in ("train", "val", "test")}
    elif isinstance(backbone, nn.Module):
        if not isinstance(task, BinaryTask):
            raise GenexpyInputError(
                "a module backbone needs task=BinaryTask (images), e.g. "
                "load_cifar10_binary(folder) or digits_binary_task()."
            )
        target = task
        name = type(backbone).__name__
        kw = {"image_size": image_size, "mean": mean, "std": std, "n_threads": n_threads}
        feats = {"train": extract_features(backbone, task.X_train, weights=weights,
                                           weights_format=weights_format, **kw)}
        for p in ("val", "test"):
            feats[p] = extract_features(backbone, getattr(task, f"X_{p}"), **kw)
        for p_ in backbone.parameters():
            p_.requires_grad_(False)
        binfo = {
            "backbone": name, "weights": None if weights is None or isinstance(weights, Mapping)
            else str(weights), "weights_sha256": _state_sha256(backbone),
            "preprocessing": {"image_size": image_size, "mean": mean and list(mean),
                              "std": std and list(std)},
        }
    else:
        raise GenexpyInputError(
            f"backbone must be 'digits-cnn' or a torch.nn.Module, got {type(backbone).__name__}.")
    ftask = feature_task(target, feats, name, standardize=standardize)
    binfo = {**binfo, "standardize_features": bool(standardize)}
    dim = int(feats["train"].shape[1])
    extra = time.perf_counter() - t0

    def factory() -> nn.Linear:
        return nn.Linear(dim, 2)

    desc = (
        f"{n_models} linear heads ({dim} -> 2) trained {head_epochs} epochs on the "
        f"{'standardised ' if standardize else ''}features of the frozen backbone {name} "
        f"({binfo['backbone']}), target task {target.name}; source of randomness: {source}."
    )
    return train_pool(
        out, ftask, factory, kind="transfer-linear-head", description=desc,
        model_spec={"architecture": "linear head on frozen features", "in_features": dim,
                    "n_outputs": 2, "backbone": binfo},
        source=source, n_models=n_models, seed=seed, epochs=head_epochs, lr=lr,
        batch_size=batch_size, n_threads=n_threads, max_new_models=max_new_models,
        overwrite=overwrite, progress=progress, command=command,
        extra_meta={"backbone": binfo}, extra_seconds=extra, client=client,
    )


def resize_task(task: BinaryTask, size: int) -> BinaryTask:
    """The task with its images resized to ``size`` x ``size`` (bilinear, as
    :func:`~.vit.extract_features` does; same labels and indices)."""
    size = check_positive_int("size", size)
    F = torch.nn.functional

    def rs(X: np.ndarray) -> np.ndarray:
        if X.shape[0] == 0 or tuple(X.shape[-2:]) == (size, size):
            return np.ascontiguousarray(X, dtype=np.float32)
        with torch.no_grad():
            return F.interpolate(torch.from_numpy(np.ascontiguousarray(X, dtype=np.float32)),
                                 size=(size, size), mode="bilinear",
                                 align_corners=False).numpy()

    return replace(
        task, name=f"{task.name}-{size}px",
        X_train=rs(task.X_train), X_val=rs(task.X_val), X_test=rs(task.X_test),
        info={**task.info, "resized": f"bilinear to {size}x{size} (torch interpolate, "
              "align_corners=False)"},
    )


#: the downstream task of the shipped ViT pools: the digits task of notebook 03 (5-9 vs 0-4;
#: 600 train, 300 validation, 897 test images) upsampled to the ViT's 16x16 input
def vit_digits_task(split_seed: int = 0) -> BinaryTask:
    """The digits task of the CNN pools (:func:`~.tasks.digits_binary_task`) at 16x16."""
    from .tasks import digits_binary_task

    return resize_task(digits_binary_task(split_seed=split_seed), 16)


def train_vit_head_pool(
    out: str | Path, *, backbone: str = "fractal", weights: str | os.PathLike | None = None,
    n_models: int = 90, seed: int = 0, source: str = "both",
    head_epochs: int = DEFAULT_HEAD_EPOCHS, lr: float = DEFAULT_HEAD_LR, batch_size: int = 32,
    task: BinaryTask | None = None, n_threads: int = 1, overwrite: bool = False,
    progress: bool = True, max_new_models: int | None = None, command: str | None = None,
) -> SeedPool | None:
    """The paper's transfer protocol on the package's small ViT: linear heads on its frozen
    class-token features, over seeds.

    Parameters
    ----------
    backbone
        'fractal': the pre-trained weights (``weights``, default the shipped
        ``vit_fractal_backbone.npz``); 'random': the same architecture with random weights
        (seed 0) — the control that measures what pre-training adds.
    task
        Default :func:`vit_digits_task`.
    Other parameters
        As :func:`train_transfer_pool` (features are computed once, standardised with the
        training statistics; only the heads are trained).
    """
    from .pretrain import SHIPPED_BACKBONE, load_pretrained_vit

    if backbone not in ("fractal", "random"):
        raise GenexpyInputError(f"backbone must be 'fractal' or 'random', got {backbone!r}.")
    wfile = weights if weights is not None else SHIPPED_BACKBONE
    net = load_pretrained_vit(wfile, random_weights=backbone == "random")
    task = vit_digits_task() if task is None else task
    return train_transfer_pool(
        out, backbone=net, task=task, n_models=n_models, seed=seed, source=source,
        head_epochs=head_epochs, lr=lr, batch_size=batch_size, n_threads=n_threads,
        overwrite=overwrite, progress=progress, max_new_models=max_new_models,
        command=command,
    )


class ViTClassifier(nn.Module):
    """A backbone with a fresh linear head on its features (for full fine-tuning)."""

    def __init__(self, backbone: nn.Module, dim: int, n_outputs: int = 2):
        super().__init__()
        self.backbone = backbone
        self.head = nn.Linear(dim, n_outputs)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Logits, shape (N, n_outputs)."""
        return self.head(self.backbone.forward_features(x))


DEFAULT_FINETUNE_EPOCHS = 5
DEFAULT_FINETUNE_LR = 3e-4


def train_finetune_pool(
    out: str | Path, *, weights: str | os.PathLike | None = None, n_models: int = 40,
    seed: int = 0, source: str = "both", epochs: int = DEFAULT_FINETUNE_EPOCHS,
    lr: float = DEFAULT_FINETUNE_LR, batch_size: int = 32, task: BinaryTask | None = None,
    n_threads: int = 1, overwrite: bool = False, progress: bool = True,
    max_new_models: int | None = None, command: str | None = None,
) -> SeedPool | None:
    """Full fine-tuning of the pre-trained small ViT over seeds (every weight is trained).

    Every model starts from the same pre-trained backbone; the seeds change the initial
    weights of the new linear head (``init``) and the batch order (``order``). Adam, the
    learning rate ``lr`` for all weights, ``epochs`` passes over the training images. The
    paper does not run this experiment; it shows how much more the seeds matter when the
    whole network moves.
    """
    from .pretrain import SHIPPED_BACKBONE, read_backbone_file

    wfile = weights if weights is not None else SHIPPED_BACKBONE
    arrays, bmeta = read_backbone_file(wfile)
    arch = bmeta["config"]["architecture"]
    state = {k: torch.from_numpy(v) for k, v in arrays.items()}
    task = vit_digits_task() if task is None else task
    if tuple(task.input_shape[1:]) != (arch["image_size"], arch["image_size"]):
        task = resize_task(task, int(arch["image_size"]))

    def factory() -> ViTClassifier:
        # the backbone's random init is overwritten by the pre-trained weights; the head's
        # init (drawn last from the seeded generator) is what the initialisation seed changes
        vit = MiniViT(**arch, num_classes=0)
        vit.load_state_dict(state, strict=True)
        return ViTClassifier(vit, int(arch["dim"]), 2)

    spec = {"architecture": "small ViT (pre-trained) + linear head, all weights trained",
            "vit": arch, "backbone_weights_sha256": bmeta["weights_sha256"]}
    desc = (f"{n_models} fine-tuned small ViTs (pre-trained on fractals, every weight trained "
            f"{epochs} epochs, Adam lr {lr}) on {task.name}; source of randomness: {source}.")
    return train_pool(
        out, task, factory, kind="transfer-finetune", description=desc, model_spec=spec,
        source=source, n_models=n_models, seed=seed, epochs=epochs, lr=lr,
        batch_size=batch_size, n_threads=n_threads, max_new_models=max_new_models,
        overwrite=overwrite, progress=progress, command=command,
        extra_meta={"backbone": {"backbone": "small ViT pre-trained on fractals",
                                 "weights_sha256": bmeta["weights_sha256"],
                                 "upstream": bmeta["config"]["recipe"]}},
    )


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="python -m genexpy_nb.experiments.transfer",
        description="Train (or resume) a pool of linear heads on a frozen backbone over seeds "
        "and save their test logit gaps (robust-KS paper Sec. V, transfer learning).",
    )
    ap.add_argument("--out", required=True, help="pool file, .npz")
    ap.add_argument("--models", type=int, default=90)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--source", default="both", help=f"one of {', '.join(SOURCES)}")
    ap.add_argument("--head-epochs", type=int, default=DEFAULT_HEAD_EPOCHS)
    ap.add_argument("--lr", type=float, default=DEFAULT_HEAD_LR)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--backbone", default="digits-cnn",
                    help="digits-cnn (default), fractal-vit / random-vit (linear heads on the "
                    "package's small ViT, pre-trained or with random weights), "
                    "finetune-vit (full fine-tuning of the pre-trained small ViT), or vit "
                    "(a standard ViT with --weights)")
    ap.add_argument("--backbone-weights", default=None,
                    help="pre-trained small-ViT file (default: the shipped "
                    "vit_fractal_backbone.npz)")
    ap.add_argument("--epochs", type=int, default=DEFAULT_FINETUNE_EPOCHS,
                    help="epochs of full fine-tuning (--backbone finetune-vit)")
    ap.add_argument("--finetune-lr", type=float, default=DEFAULT_FINETUNE_LR)
    ap.add_argument("--backbone-seed", type=int, default=0)
    ap.add_argument("--backbone-epochs", type=int, default=DEFAULT_BACKBONE_EPOCHS)
    ap.add_argument("--split-seed", type=int, default=0)
    ap.add_argument("--vit-arch", default="vit_base_patch16_224",
                    help=f"one of {', '.join(VIT_PRESETS)}")
    ap.add_argument("--weights", default=None, help="state dict file of the ViT (required)")
    ap.add_argument("--weights-format", default="auto", help="auto, timm or hf")
    ap.add_argument("--dataset", default="digits", help="target task for --backbone vit")
    ap.add_argument("--cifar-dir", default=None)
    ap.add_argument("--positive", nargs="+", default=None)
    ap.add_argument("--negative", nargs="+", default=None)
    ap.add_argument("--n-train", type=int, default=None)
    ap.add_argument("--n-val", type=int, default=None)
    ap.add_argument("--n-test", type=int, default=None)
    ap.add_argument("--no-standardize", action="store_true",
                    help="use the raw features (default: standardised with the training stats)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--max-new", type=int, default=None)
    ap.add_argument("--overwrite", action="store_true")
    ap.add_argument("--no-progress", action="store_true")
    ap.add_argument("--no-manifest", action="store_true")
    add_scheduler_argument(ap)
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry; returns the exit status (2 on bad arguments)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = _parser().parse_args(argv)
    try:
        out = check_out_path(args.out)
        common = dict(
            n_models=args.models, seed=args.seed, source=args.source,
            head_epochs=args.head_epochs, lr=args.lr, batch_size=args.batch_size,
            n_threads=args.threads, max_new_models=args.max_new, overwrite=args.overwrite,
            progress=not args.no_progress, standardize=not args.no_standardize,
            command=command_line("genexpy_nb.experiments.transfer", argv),
            client=args.scheduler,
        )
        if args.backbone == "digits-cnn":
            pool = train_transfer_pool(
                out, backbone="digits-cnn", backbone_seed=args.backbone_seed,
                backbone_epochs=args.backbone_epochs, split_seed=args.split_seed, **common)
        elif args.backbone in ("fractal-vit", "random-vit"):
            pool = train_vit_head_pool(
                out, backbone=args.backbone.split("-")[0], weights=args.backbone_weights,
                **{k: v for k, v in common.items() if k != "standardize"})
        elif args.backbone == "finetune-vit":
            pool = train_finetune_pool(
                out, weights=args.backbone_weights, n_models=args.models, seed=args.seed,
                source=args.source, epochs=args.epochs, lr=args.finetune_lr,
                batch_size=args.batch_size, n_threads=args.threads,
                max_new_models=args.max_new, overwrite=args.overwrite,
                progress=not args.no_progress, command=common["command"])
        elif args.backbone == "vit":
            if not args.weights:
                raise GenexpyInputError(
                    "--backbone vit needs --weights FILE: a pre-trained state dict (timm or "
                    "Hugging Face names) saved with torch.save, matching --vit-arch."
                )
            eps = 1e-12 if args.weights_format == "hf" else 1e-6
            vit = make_vit(args.vit_arch, eps=eps)
            pool = train_transfer_pool(
                out, backbone=vit, weights=args.weights, weights_format=args.weights_format,
                task=task_from_args(args), mean=VIT_MEAN, std=VIT_STD, **common)
        else:
            raise GenexpyInputError(
                "--backbone must be digits-cnn, fractal-vit, random-vit, finetune-vit or vit, "
                f"got {args.backbone!r}.")
    except GenexpyInputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if pool is None:
        print(f"stopped early (--max-new); run the same command again to continue {out}.")
        return 0
    if not args.no_manifest:
        write_manifest(out.parent)
    acc = pool.test_accuracy
    print(f"{out}: {pool.n_models} models x {pool.n_test} test points; test accuracy "
          f"mean {acc.mean():.4f} [{acc.min():.4f}, {acc.max():.4f}].")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
