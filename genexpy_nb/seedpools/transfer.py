"""Transfer-learning seed pools (robust-KS paper, Section V-C): frozen backbone, linear heads.

A backbone is pre-trained once (or loaded), then frozen; only a linear layer on its features
is trained, for 5 epochs, over 90 seeds (45 reference, 45 candidates). Because the backbone is
frozen and there is no augmentation, its features are computed once and the heads are trained
on them: the same models as training "backbone + head" with the backbone's weights fixed.

Default backbone ("digits-cnn"): the convolutional part (``conv``: two conv layers, 128
features for 8x8 images) of the small CNN of ``genexpy_nb.seedpools.cnn_seeds`` with 10
outputs, pre-trained on the 10-class digit problem on one half of the digits; the binary target
task (5-9 vs 0-4) lives on the other half. Any ``torch.nn.Module`` (e.g. a
:class:`~genexpy_nb.seedpools.MiniViT` with
pre-trained weights from a local file) can be used instead.

The features are standardised with the mean and standard deviation of the target *training*
features (fixed once, like the affine-free BatchNorm of MAE's linear probing): the heads
then reach close to their final accuracy within the paper's 5 epochs. On the digits, the
conv features are the right layer to probe: a linear head on the 64-unit hidden layer of the
10-class network reaches about 85% after 5 epochs (95% with logistic regression run to
convergence), on the conv features about 95% (97%).

Command line::

    python -m genexpy_nb.seedpools.transfer --out data/transfer_digits.npz
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from .._validation import GenexpyInputError, check_positive_int
from ._torch import require_torch

torch = require_torch("the transfer-learning pools (genexpy_nb.seedpools.transfer)")
nn = torch.nn

from ._device import pick_device  # noqa: E402
from .backbones import (  # noqa: E402
    DEFAULT_BACKBONE_EPOCHS,
    PAPER_VIT_ARCH,
    paper_backbone,
    pretrain_digits_backbone,
    state_sha256,
)
from .cnn_seeds import (  # noqa: E402
    add_run_arguments,
    add_task_arguments,
    command_line,
    run_pool_command,
    task_from_args,
)
from .pools import (  # noqa: E402
    SOURCES,
    SeedPool,
    check_out_path,
)
from .tasks import (  # noqa: E402
    CIFAR10_PAPER_NEGATIVE,
    CIFAR10_PAPER_POSITIVE,
    BinaryTask,
    digits_transfer_tasks,
    download_cifar10,
    load_cifar10_binary,
)
from .training import (  # noqa: E402
    check_training_args,
    train_pool,
)
from .vit import (  # noqa: E402
    VIT_MEAN,
    VIT_PRESETS,
    VIT_STD,
    MiniViT,
    extract_features,
    load_weights,
    make_vit,
)

DEFAULT_HEAD_EPOCHS = 5
DEFAULT_HEAD_LR = 1e-2


def feature_task(
    task: BinaryTask, features: Mapping[str, np.ndarray], backbone: str, *,
    standardize: bool = True,
) -> BinaryTask:
    """Replace the task's images by backbone features (same labels and indices).

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
    device: str | Any = "auto",
    backbone_info: Mapping[str, Any] | None = None,
    feature_batch_size: int = 256,
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
        "digits-cnn" (pre-train :class:`~genexpy_nb.seedpools.SmallCNN` on the 10-class digits
        of one half and use its ``conv`` part; the target task is on the other half), or any
        ``torch.nn.Module`` used frozen as it is (``forward_features`` if present), e.g.
        :func:`~genexpy_nb.seedpools.make_vit`.
    weights, weights_format
        State dict (path or mapping) loaded into a module backbone
        (:func:`~genexpy_nb.seedpools.load_weights`).
    task
        Target task for a module backbone (images); not allowed with "digits-cnn".
    image_size, mean, std
        Preprocessing for a module backbone (see :func:`~genexpy_nb.seedpools.extract_features`).
    standardize
        Standardise the features with the training mean and sd (``feature_task``).
    backbone_seed, backbone_epochs, split_seed
        Pre-training of "digits-cnn" and the split of the digits into source and target.
    n_threads, max_new_models, overwrite, progress, command, client
        See :func:`~genexpy_nb.seedpools.train_pool` (``client``: train the heads on a Dask cluster;
        the backbone and its features are computed here first).
    device
        'auto' (CUDA when available, else CPU), 'cpu' or 'cuda': where the backbone's
        features are computed (once, batch by batch) and the heads trained
        (:func:`~genexpy_nb.seedpools.train_pool`).
    backbone_info
        More JSON-able facts about a module backbone, recorded in ``meta["backbone"]`` (e.g.
        where its weights came from).
    feature_batch_size
        Images per forward pass of the backbone.

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
    dev = pick_device(device)
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
            src, seed=backbone_seed, epochs=backbone_epochs, n_threads=n_threads, device=dev)
        name = "digits-cnn"
        feats = {p: extract_features(net.conv, getattr(target, f"X_{p}"), n_threads=n_threads,
                                     device=dev) for p in ("train", "val", "test")}
    elif isinstance(backbone, nn.Module):
        if not isinstance(task, BinaryTask):
            raise GenexpyInputError(
                "a module backbone needs task=BinaryTask (images), e.g. "
                "load_cifar10_binary(folder) or digits_binary_task()."
            )
        target = task
        name = type(backbone).__name__
        if weights is not None:
            load_weights(backbone, weights, weights_format=weights_format)
        for p_ in backbone.parameters():
            p_.requires_grad_(False)
        state_sha = state_sha256(backbone)
        cache = _FeatureCache(out, {
            "backbone_sha256": state_sha, "images": task.fingerprint(),
            "preprocessing": [image_size, mean and list(mean), std and list(std)],
            "device": dev.type, "torch": torch.__version__})
        feats = None if overwrite else cache.load()
        if feats is None:
            kw = {"image_size": image_size, "mean": mean, "std": std, "n_threads": n_threads,
                  "device": dev, "progress": progress, "batch_size": feature_batch_size}
            feats = {p: extract_features(backbone, getattr(task, f"X_{p}"),
                                         desc=f"{name} features ({p})", **kw)
                     for p in ("train", "val", "test")}
            cache.save(feats)
        binfo = {
            "backbone": name, "weights": None if weights is None or isinstance(weights, Mapping)
            else str(weights), "weights_sha256": state_sha,
            "preprocessing": {"image_size": image_size, "mean": mean and list(mean),
                              "std": std and list(std)},
            **dict(backbone_info or {}),
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
    pool = train_pool(
        out, ftask, factory, kind="transfer-linear-head", description=desc,
        model_spec={"architecture": "linear head on frozen features", "in_features": dim,
                    "n_outputs": 2, "backbone": binfo},
        source=source, n_models=n_models, seed=seed, epochs=head_epochs, lr=lr,
        batch_size=batch_size, n_threads=n_threads, max_new_models=max_new_models,
        overwrite=overwrite, progress=progress, command=command,
        extra_meta={"backbone": binfo}, extra_seconds=extra, client=client, device=dev,
    )
    if pool is not None:
        _FeatureCache(out, {}).remove()
    return pool


class _FeatureCache:
    """The frozen backbone's features of an unfinished pool, in ``<out>.features``.

    A pool stopped half-way (interrupted, or ``max_new_models``) does not pay the backbone
    again when resumed (the features of a large ViT on the CPU take hours). The file is
    written atomically, read with ``allow_pickle=False``, used only when its key (the
    backbone's weights, the images, the preprocessing, the device type and the torch version)
    equals the run's, and removed with the pool's partial folder when the pool is complete.
    Its name does not end in ``.npz``: the manifest lists pools only.
    """

    def __init__(self, out: Path, key: Mapping[str, Any]):
        self.path = out.with_name(out.name + ".features")
        self.key = json.dumps(dict(key), sort_keys=True)

    def load(self) -> dict[str, np.ndarray] | None:
        """Return the cached features, or None (absent, unreadable, or another key)."""
        if not self.path.is_file():
            return None
        from .._io import read_npz

        try:
            z = read_npz(self.path, "feature cache")
            if str(z["key"]) != self.key:
                return None
            return {p: np.asarray(z[p], dtype=np.float32) for p in ("train", "val", "test")}
        except (GenexpyInputError, KeyError, ValueError, TypeError):
            return None

    def save(self, feats: Mapping[str, np.ndarray]) -> None:
        """Write the features (atomically)."""
        from .._io import atomic_write

        with atomic_write(self.path) as fh:
            np.savez(fh, key=np.array(self.key), **feats)

    def remove(self) -> None:
        """Delete the file (when the pool is complete)."""
        self.path.unlink(missing_ok=True)


def resize_task(task: BinaryTask, size: int) -> BinaryTask:
    """Resize the task's images to ``size`` x ``size`` (same labels and indices).

    Bilinear, as :func:`~genexpy_nb.seedpools.extract_features` does.
    """
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
    """Build the digits task of the CNN pools (:func:`digits_binary_task`) at 16x16."""
    from .tasks import digits_binary_task

    return resize_task(digits_binary_task(split_seed=split_seed), 16)


def train_vit_head_pool(
    out: str | Path, *, backbone: str = "fractal", weights: str | os.PathLike | None = None,
    n_models: int = 90, seed: int = 0, source: str = "both",
    head_epochs: int = DEFAULT_HEAD_EPOCHS, lr: float = DEFAULT_HEAD_LR, batch_size: int = 32,
    task: BinaryTask | None = None, n_threads: int = 1, overwrite: bool = False,
    progress: bool = True, max_new_models: int | None = None, command: str | None = None,
    device: str | Any = "auto", client: Any = None,
) -> SeedPool | None:
    """Train linear heads over seeds on the package's small ViT, frozen: the paper's protocol.

    The heads are trained on the ViT's frozen class-token features.

    Parameters
    ----------
    backbone
        'fractal': the pre-trained weights (``weights``, default the shipped
        ``vit_fractal_backbone.npz``); 'random': the same architecture with random weights
        (seed 0) — the control that measures what pre-training adds.
    task
        Default :func:`vit_digits_task`.

    Other Parameters
    ----------------
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
        command=command, device=device, client=client,
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
    max_new_models: int | None = None, command: str | None = None, device: str | Any = "auto",
) -> SeedPool | None:
    """Full fine-tuning of the pre-trained small ViT over seeds (every weight is trained).

    Every model starts from the same pre-trained backbone; the seeds change the initial
    weights of the new linear head (``init``) and the batch order (``order``). Adam, the
    learning rate ``lr`` for all weights, ``epochs`` passes over the training images. The
    paper does not run this experiment; it shows how much more the seeds matter when the
    whole network moves. ``device``: see :func:`~genexpy_nb.seedpools.train_pool`.
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
        device=device,
    )


def paper_transfer_pool(
    out: str | Path,
    *,
    arch: str | Mapping[str, Any] = PAPER_VIT_ARCH,
    weights: str | os.PathLike = "timm",
    sha256: str | None = None,
    weights_format: str = "auto",
    cifar_dir: str | os.PathLike | None = None,
    positive: Sequence[str] = CIFAR10_PAPER_POSITIVE,
    negative: Sequence[str] = CIFAR10_PAPER_NEGATIVE,
    n_train: int | None = None,
    n_val: int = 1000,
    n_test: int | None = None,
    split_seed: int = 0,
    mean: Sequence[float] | None = None,
    std: Sequence[float] | None = None,
    n_models: int = 90,
    seed: int = 0,
    source: str = "both",
    epochs: int = DEFAULT_HEAD_EPOCHS,
    lr: float = DEFAULT_HEAD_LR,
    batch_size: int = 32,
    standardize: bool = True,
    device: str | Any = "auto",
    n_threads: int = 1,
    feature_batch_size: int = 256,
    max_new_models: int | None = None,
    overwrite: bool = False,
    progress: bool = True,
    command: str | None = None,
    client: Any = None,
) -> SeedPool | None:
    """Run the robust-KS paper's transfer study (Section V-C) in one call.

    An ImageNet-pre-trained ViT, frozen, and ``n_models`` linear heads trained ``epochs``
    epochs over seeds on the CIFAR-10 vehicles-vs-animals task.

    The paper uses "a Vision Transformer (ViT) variant [30], pre-trained on ImageNet",
    "available as part of the Hugging Face Community [31]"; its reference [30] is the Swin
    Transformer (Liu et al. 2021), and the exact checkpoint is not named. Swin's shifted
    windows are not the package's plain ViT, so the default here is timm's
    ``vit_base_patch16_224`` (ViT-B/16, ImageNet-21k pre-training, ImageNet-1k fine-tuning;
    the ``augreg2_in21k_ft_in1k`` weights, on the Hub as
    ``timm/vit_base_patch16_224.augreg2_in21k_ft_in1k``). Any timm ViT/DeiT with a class
    token, or a local timm / Hugging Face ViT checkpoint, can be used instead.

    Steps: load the backbone (``paper_backbone``); read CIFAR-10 (``cifar_dir``, or
    download it with :func:`~genexpy_nb.seedpools.download_cifar10`) as the paper's binary task
    (airplane, automobile, ship, truck = 1; bird, dog, frog, horse = 0;
    :func:`~genexpy_nb.seedpools.load_cifar10_binary`); compute the class-token features of
    every image once, batch by batch (bilinear resize from 32x32 to the model's input size,
    then the checkpoint's normalisation ``(x - mean) / std``; on the GPU when there is one; a
    ``tqdm`` bar); standardise them with the training mean and sd; train the heads over
    seeds (Adam, cross-entropy; the seeds change the head's initial weights and the batch
    order) with :func:`train_transfer_pool`. The pool's ``meta`` records the backbone
    (checkpoint, sha256 of the weights), the preprocessing, the device and ``command``: the
    command line that makes the same pool again (seeds are derived from ``seed``; the pool
    keeps every model's ``init_seed`` and ``order_seed``).

    Cost: ViT-B/16 needs about 17.6 GFLOP per 224x224 image, so the features of the ~48,000
    images are ~850 TFLOP: about a minute at the 15-20 TFLOP/s of a recent GPU, hours on
    the CPU (``benchmarks/bench_training.py`` measured 1.8 images/s on one core, 7.4 hours);
    use ``n_train``/``n_test`` to try it small, ``n_threads`` on the CPU. The heads then take
    seconds each. The features are computed once per pool (a resumed run reads them back).

    Parameters
    ----------
    out
        Pool file (``.npz``); resumable like every pool
        (:func:`~genexpy_nb.seedpools.train_pool`); the features of an unfinished pool wait in
        ``<out>.features`` (removed at the end).
    arch, weights, sha256, weights_format
        The backbone (``paper_backbone``): default ``vit_base_patch16_224`` through timm.
    cifar_dir
        Folder with CIFAR-10's python batch files (None: download into pooch's cache).
    positive, negative, n_train, n_val, n_test, split_seed
        The task (:func:`~genexpy_nb.seedpools.load_cifar10_binary`; default: the paper's
        classes, all training images but 1000 for validation, all 8000 test images).
    mean, std
        Per-channel normalisation (default: the checkpoint's, from timm's configuration; for
        a file 0.5/0.5 as the original ViT checkpoints, e.g. Hugging Face
        ``google/vit-base-patch16-224``; DeiT files need the ImageNet mean and sd).
    n_models, seed, source, epochs, lr, batch_size, standardize
        The heads: the paper's 90 models (45 reference, 45 candidates), 5 epochs, seeds of
        initialisation and batch order ('both').
    device
        'auto' (CUDA when available, else CPU), 'cpu' or 'cuda': features and heads.
    n_threads, feature_batch_size, max_new_models, overwrite, progress, command, client
        As :func:`train_transfer_pool` (``command`` default: the equivalent
        ``python -m genexpy_nb.seedpools.transfer --backbone paper ...`` line).

    Returns
    -------
    SeedPool or None
        The pool of test logit gaps (``n_models`` x test images), or None if
        ``max_new_models`` stopped the run early.
    """
    out = check_out_path(out)
    epochs = check_positive_int("epochs", epochs)
    check_training_args(
        n_models=n_models, epochs=epochs, lr=lr, batch_size=batch_size, n_threads=n_threads,
        max_new_models=max_new_models, seed=seed, source=source,
    )
    dev = pick_device(device)
    check_positive_int("feature_batch_size", feature_batch_size)
    vit, info = paper_backbone(arch, weights, sha256=sha256, weights_format=weights_format)
    mean = list(info["mean"]) if mean is None else [float(v) for v in mean]
    std = list(info["std"]) if std is None else [float(v) for v in std]
    if len(mean) != vit.in_channels or len(std) != vit.in_channels or min(std) <= 0:
        raise GenexpyInputError(
            f"mean and std need {vit.in_channels} values each (std > 0), got {mean}, {std}.")
    folder = Path(cifar_dir).expanduser() if cifar_dir is not None else download_cifar10()
    task = load_cifar10_binary(folder, positive, negative, n_train=n_train, n_val=n_val,
                               n_test=n_test, split_seed=split_seed)
    if command is None:
        a = ["--backbone", "paper", "--out", str(out),
             "--vit-arch", arch if isinstance(arch, str) else json.dumps(dict(arch),
                                                                          sort_keys=True),
             "--weights", str(weights)]
        if info["weights_source"] == "file":
            a += ["--weights-sha256", info["weights_file_sha256"]]
            if weights_format != "auto":
                a += ["--weights-format", weights_format]
        a += ["--cifar-dir", str(folder), "--positive", *task.positive,
              "--negative", *task.negative]
        for flag, v in (("--n-train", n_train), ("--n-val", n_val), ("--n-test", n_test)):
            if v is not None:
                a += [flag, str(v)]
        a += ["--split-seed", str(split_seed), "--mean", *map(str, mean), "--std",
              *map(str, std), "--models", str(n_models), "--seed", str(seed), "--source",
              source, "--head-epochs", str(epochs), "--lr", str(lr), "--batch-size",
              str(batch_size), "--device", dev.type, "--threads", str(n_threads)]
        if not standardize:
            a.append("--no-standardize")
        command = command_line("genexpy_nb.seedpools.transfer", a)
    return train_transfer_pool(
        out, backbone=vit, task=task, image_size=vit.image_size, mean=mean, std=std,
        standardize=standardize, n_models=n_models, seed=seed, source=source,
        head_epochs=epochs, lr=lr, batch_size=batch_size, n_threads=n_threads,
        max_new_models=max_new_models, overwrite=overwrite, progress=progress,
        command=command, client=client, device=dev, feature_batch_size=feature_batch_size,
        backbone_info={"backbone": f"frozen ViT ({info.get('timm_model') or 'file'})",
                       **{k: v for k, v in info.items() if k not in ("mean", "std")}},
    )


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="python -m genexpy_nb.seedpools.transfer",
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
                    "finetune-vit (full fine-tuning of the pre-trained small ViT), vit "
                    "(a standard ViT with --weights), or paper (the paper's exact setting: an "
                    "ImageNet ViT, default through timm, frozen, on the CIFAR-10 vehicles-vs-"
                    "animals task; see paper_transfer_pool)")
    ap.add_argument("--backbone-weights", default=None,
                    help="pre-trained small-ViT file (default: the shipped "
                    "vit_fractal_backbone.npz)")
    ap.add_argument("--epochs", type=int, default=DEFAULT_FINETUNE_EPOCHS,
                    help="epochs of full fine-tuning (--backbone finetune-vit)")
    ap.add_argument("--finetune-lr", type=float, default=DEFAULT_FINETUNE_LR)
    ap.add_argument("--backbone-seed", type=int, default=0)
    ap.add_argument("--backbone-epochs", type=int, default=DEFAULT_BACKBONE_EPOCHS)
    ap.add_argument("--split-seed", type=int, default=0)
    ap.add_argument("--vit-arch", default=PAPER_VIT_ARCH,
                    help=f"one of {', '.join(VIT_PRESETS)} (with --backbone paper and "
                    "--weights timm: any timm ViT name), or a JSON object of MiniViT "
                    "parameters (--backbone paper with a weights file)")
    ap.add_argument("--weights", default=None,
                    help="state dict file of the ViT (required for --backbone vit); for "
                    "--backbone paper: 'timm' (default; needs timm and network) or a file")
    ap.add_argument("--weights-sha256", default=None,
                    help="expected sha256 of the --weights file (--backbone paper), checked "
                    "before reading it")
    ap.add_argument("--mean", type=float, nargs="+", default=None,
                    help="per-channel normalisation mean (--backbone paper; default the "
                    "checkpoint's)")
    ap.add_argument("--std", type=float, nargs="+", default=None)
    ap.add_argument("--weights-format", default="auto", help="auto, timm or hf")
    add_task_arguments(ap, "target task for --backbone vit")
    ap.add_argument("--no-standardize", action="store_true",
                    help="use the raw features (default: standardised with the training stats)")
    add_run_arguments(ap)
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry; returns the exit status (2 on bad arguments)."""
    return run_pool_command("genexpy_nb.seedpools.transfer", _parser(), argv, _train_from_args)


def _train_from_args(args: argparse.Namespace, out: Path, dev: Any,
                     command: str) -> SeedPool | None:
    """Train the pool the command line asks for (``--backbone``)."""
    common = dict(
        n_models=args.models, seed=args.seed, source=args.source,
        head_epochs=args.head_epochs, lr=args.lr, batch_size=args.batch_size,
        n_threads=args.threads, max_new_models=args.max_new, overwrite=args.overwrite,
        progress=not args.no_progress, standardize=not args.no_standardize,
        command=command, client=args.scheduler, device=dev,
    )
    if args.backbone == "digits-cnn":
        return train_transfer_pool(
            out, backbone="digits-cnn", backbone_seed=args.backbone_seed,
            backbone_epochs=args.backbone_epochs, split_seed=args.split_seed, **common)
    elif args.backbone in ("fractal-vit", "random-vit"):
        return train_vit_head_pool(
            out, backbone=args.backbone.split("-")[0], weights=args.backbone_weights,
            **{k: v for k, v in common.items() if k != "standardize"})
    elif args.backbone == "finetune-vit":
        return train_finetune_pool(
            out, weights=args.backbone_weights, n_models=args.models, seed=args.seed,
            source=args.source, epochs=args.epochs, lr=args.finetune_lr,
            batch_size=args.batch_size, n_threads=args.threads,
            max_new_models=args.max_new, overwrite=args.overwrite,
            progress=not args.no_progress, command=command, device=dev)
    elif args.backbone == "vit":
        if not args.weights:
            raise GenexpyInputError(
                "--backbone vit needs --weights FILE: a pre-trained state dict (timm or "
                "Hugging Face names) saved with torch.save, matching --vit-arch."
            )
        eps = 1e-12 if args.weights_format == "hf" else 1e-6
        vit = make_vit(args.vit_arch, eps=eps)
        return train_transfer_pool(
            out, backbone=vit, weights=args.weights, weights_format=args.weights_format,
            task=task_from_args(args), mean=VIT_MEAN, std=VIT_STD, **common)
    elif args.backbone == "paper":
        arch: Any = args.vit_arch
        if arch.lstrip().startswith("{"):
            try:
                arch = json.loads(arch)
            except json.JSONDecodeError as exc:
                raise GenexpyInputError(f"--vit-arch is not valid JSON: {exc}") from None
        return paper_transfer_pool(
            out, arch=arch, weights=args.weights or "timm", sha256=args.weights_sha256,
            weights_format=args.weights_format, cifar_dir=args.cifar_dir,
            positive=args.positive or CIFAR10_PAPER_POSITIVE,
            negative=args.negative or CIFAR10_PAPER_NEGATIVE, n_train=args.n_train,
            n_val=1000 if args.n_val is None else args.n_val, n_test=args.n_test,
            split_seed=args.split_seed, mean=args.mean, std=args.std,
            n_models=args.models, seed=args.seed, source=args.source,
            epochs=args.head_epochs, lr=args.lr, batch_size=args.batch_size,
            standardize=not args.no_standardize, device=dev, n_threads=args.threads,
            max_new_models=args.max_new, overwrite=args.overwrite,
            progress=not args.no_progress, client=args.scheduler)
    raise GenexpyInputError(
        "--backbone must be digits-cnn, fractal-vit, random-vit, finetune-vit, vit or "
        f"paper, got {args.backbone!r}.")


if __name__ == "__main__":
    raise SystemExit(main())
