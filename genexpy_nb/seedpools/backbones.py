"""The frozen backbones of the transfer-learning pools.

A small CNN pre-trained on digits, and the paper's ImageNet-pre-trained ViT (from timm or a
local checkpoint).
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from .._validation import GenexpyInputError, check_positive_int
from ._torch import require_torch, torch_threads

torch = require_torch("the backbones of the transfer pools (genexpy_nb.seedpools.backbones)")
nn = torch.nn

from .cnn_seeds import (  # noqa: E402
    DEFAULT_CHANNELS,
    DEFAULT_HIDDEN,
)
from .pools import (  # noqa: E402
    derive_seed,
)
from .tasks import (  # noqa: E402
    SourceTask,
)
from .training import (  # noqa: E402
    SmallCNN,
    batch_order,
    build_model,
    fit_classifier,
)
from .vit import (  # noqa: E402
    VIT_MEAN,
    VIT_PRESETS,
    VIT_STD,
    MiniViT,
    is_hf_vit_state,
    load_weights,
    read_state,
)

DEFAULT_BACKBONE_EPOCHS = 30
#: streams of the backbone's seeds (distinct from the pools' streams 1 and 2)
_BACKBONE_INIT_STREAM = 3
_BACKBONE_ORDER_STREAM = 4


def state_sha256(module: nn.Module) -> str:
    """Fingerprint a model's weights: the sha256 of its state dict, entries in name order.

    Parameters
    ----------
    module : torch.nn.Module
        The model.

    Returns
    -------
    str
        The hex digest over each entry's name and the bytes of its values.
    """
    h = hashlib.sha256()
    for k, v in sorted(module.state_dict().items()):
        h.update(k.encode())
        h.update(np.ascontiguousarray(v.detach().cpu().numpy()).tobytes())
    return h.hexdigest()


def pretrain_digits_backbone(
    source: SourceTask, *, seed: int = 0, epochs: int = DEFAULT_BACKBONE_EPOCHS,
    lr: float = 1e-3, batch_size: int = 32, channels: tuple[int, int] = DEFAULT_CHANNELS,
    hidden: int = DEFAULT_HIDDEN, n_threads: int = 1, device: str | Any = "auto",
) -> tuple[SmallCNN, dict[str, Any]]:
    """Pre-train the small CNN on a multi-class source task; return it frozen, with a report.

    The initial weights and the batch order come from ``seed`` (streams distinct from the
    pools' seeds). The returned model has ``requires_grad=False`` everywhere; its ``conv``
    submodule is the backbone of :func:`~genexpy_nb.seedpools.train_transfer_pool`. It is
    trained (and left) on ``device`` (``_device.pick_device``).

    Parameters
    ----------
    source : SourceTask
        The multi-class pre-training task (e.g. the source task of
        :func:`~genexpy_nb.seedpools.digits_transfer_tasks`).
    seed : int, default 0
        Seed of the initial weights and of the batch order.
    epochs : int, default 30
        Passes over the training images.
    lr : float, default 1e-3
        Learning rate of the optimiser.
    batch_size : int, default 32
        Images per optimisation step.
    channels : tuple of int, default (16, 32)
        Output channels of the two convolution layers.
    hidden : int, default 64
        Units of the hidden layer.
    n_threads : int, default 1
        Torch threads used meanwhile.
    device : str or torch.device, default "auto"
        Where to train: 'auto' (CUDA when available), 'cpu', 'cuda', 'cuda:N'.

    Returns
    -------
    model : SmallCNN
        The trained network, frozen and in eval mode.
    info : dict
        A JSON-able description: the source task, the architecture, the seeds, epochs and
        learning settings, final training loss, source accuracy on the held-out part
        (None without one), seconds, weights sha256.
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
            y_val=source.y_val if source.y_val.size else None, device=device,
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
        "weights_sha256": state_sha256(model),
    }
    return model, info


# ---- the paper's exact setting: a published ImageNet ViT, frozen, on CIFAR-10 ---------------

#: default backbone of :func:`~genexpy_nb.seedpools.paper_transfer_pool` (timm name;
#: ImageNet-21k pre-training, ImageNet-1k fine-tuning, 224x224 inputs, 86M parameters)
PAPER_VIT_ARCH = "vit_base_patch16_224"


def _import_timm() -> Any:
    """Import timm, or raise a GenexpyInputError saying how to do without it."""
    try:
        import timm
    except ImportError:
        raise GenexpyInputError(
            "weights='timm' loads the published checkpoint through timm, which is not "
            "installed: pip install timm (it downloads the weights from the Hugging Face Hub). "
            "Or download a checkpoint file elsewhere and pass weights=PATH (with sha256=...)."
        ) from None
    except Exception as exc:  # e.g. a torchvision wheel built for another torch
        raise GenexpyInputError(
            f"timm is installed but cannot be imported ({type(exc).__name__}: {exc}); install "
            "a torchvision that matches your torch, or pass weights=PATH of a checkpoint file."
        ) from exc
    return timm


def _minivit_config_from_timm(model: nn.Module, arch: str) -> dict[str, Any]:
    """Read the :class:`~genexpy_nb.seedpools.MiniViT` parameters of a timm ``VisionTransformer``.

    Layouts that MiniViT does not have (no class token, average pooling, register tokens,
    layer scale, q/k normalisation, tanh GELU) are refused by name.
    """
    blocks, pe = getattr(model, "blocks", None), getattr(model, "patch_embed", None)
    if blocks is None or pe is None or len(blocks) == 0 or not hasattr(model, "norm"):
        raise GenexpyInputError(
            f"timm model {arch!r} is not a plain Vision Transformer (no patch_embed/blocks/"
            "norm); use a ViT or DeiT checkpoint such as vit_base_patch16_224.")
    blk = blocks[0]
    ident = nn.Identity
    problems = []
    if getattr(model, "cls_token", None) is None:
        problems.append("no class token")
    if getattr(model, "global_pool", "token") != "token":
        problems.append(f"global_pool={model.global_pool!r} (the class token is needed)")
    if getattr(model, "num_reg_tokens", 0):
        problems.append("register tokens")
    if getattr(model, "no_embed_class", False):
        problems.append("position embedding without the class token")
    for attr in ("norm_pre", "fc_norm"):
        if not isinstance(getattr(model, attr, ident()), ident):
            problems.append(attr)
    for attr in ("ls1", "ls2"):
        if not isinstance(getattr(blk, attr, ident()), ident):
            problems.append("layer scale")
    for attr in ("q_norm", "k_norm", "norm"):
        if not isinstance(getattr(blk.attn, attr, ident()), ident):
            problems.append(f"attention {attr}")
    act = getattr(getattr(blk, "mlp", None), "act", None)
    if not (isinstance(act, nn.GELU) and act.approximate == "none"):
        problems.append(f"MLP activation {act!r} (exact GELU needed)")
    img, patch = tuple(pe.img_size), tuple(pe.patch_size)
    if img[0] != img[1] or patch[0] != patch[1]:
        problems.append(f"non-square input {img} or patches {patch}")
    if problems:
        raise GenexpyInputError(
            f"timm model {arch!r} has a layout the package's ViT does not implement: "
            f"{', '.join(sorted(set(problems)))}. Use an original ViT or DeiT checkpoint "
            "(vit_*_patch*_224, deit_*_patch16_224).")
    dim = int(model.embed_dim)
    return {"image_size": int(img[0]), "patch_size": int(patch[0]),
            "in_channels": int(pe.proj.in_channels), "dim": dim, "depth": len(blocks),
            "heads": int(blk.attn.num_heads), "mlp_ratio": blk.mlp.fc1.out_features / dim,
            "eps": float(model.norm.eps)}


def paper_backbone(
    arch: str | Mapping[str, Any] = PAPER_VIT_ARCH,
    weights: str | os.PathLike = "timm",
    *,
    sha256: str | None = None,
    weights_format: str = "auto",
) -> tuple[MiniViT, dict[str, Any]]:
    """Load the frozen backbone of :func:`paper_transfer_pool` and say where it came from.

    A :class:`~genexpy_nb.seedpools.MiniViT` holding published pre-trained weights.

    Parameters
    ----------
    arch
        With ``weights="timm"``: a timm model name with a plain ViT layout (class token, no
        layer scale), e.g. ``vit_base_patch16_224``, ``vit_small_patch16_224``,
        ``deit_base_patch16_224``; the size is read from timm's model. With a file: one of
        ``VIT_PRESETS``, or a mapping of :class:`~genexpy_nb.seedpools.MiniViT` parameters
        (``image_size``, ``patch_size``, ``dim``, ``depth``, ``heads``, optionally
        ``mlp_ratio``, ``in_channels``, ``eps``).
    weights
        "timm": ``timm.create_model(arch, pretrained=True)`` (needs timm and network; timm
        downloads from the Hugging Face Hub and caches), converted into MiniViT and checked
        against timm's own features on two random images (max difference recorded; more
        than 1e-4 is an error). Or a local checkpoint file (``torch.save`` of a timm or
        Hugging Face ViT state dict, or ``.safetensors``), read without running code
        (``torch.load(weights_only=True)``).
    sha256
        Expected sha256 of the file (hex): checked before the file is read. The file's
        sha256 is always recorded.
    weights_format
        For a file: 'auto' (Hugging Face names detected), 'timm' or 'hf'.

    Returns
    -------
    (MiniViT, dict)
        The backbone (eval mode, no gradients) and a JSON-able description with the
        preprocessing of the checkpoint (``mean``, ``std``, ``image_size``).
    """
    if weights_format not in ("auto", "torch", "timm", "hf"):
        raise GenexpyInputError(
            f"weights_format must be 'auto', 'timm' or 'hf', got {weights_format!r}.")
    if isinstance(weights, str) and weights == "timm":
        if sha256 is not None:
            raise GenexpyInputError(
                "sha256 checks a weights file; with weights='timm' the download is checked by "
                "the Hugging Face Hub. Pass weights=PATH to check a file you downloaded.")
        if not isinstance(arch, str):
            raise GenexpyInputError(
                "weights='timm' needs arch as a timm model name (e.g. 'vit_base_patch16_224').")
        timm = _import_timm()
        try:
            ref = timm.create_model(arch, pretrained=True, num_classes=0)
        except Exception as exc:  # network and hub errors come in many types
            raise GenexpyInputError(
                f"could not load the pre-trained {arch!r} through timm ({type(exc).__name__}: "
                f"{exc}). timm downloads it from the Hugging Face Hub: check the network and "
                "the name (timm.list_models('vit_*', pretrained=True)), or download the "
                "checkpoint elsewhere and pass weights=PATH (with sha256=...)."
            ) from exc
        cfg = _minivit_config_from_timm(ref, arch)
        vit = MiniViT(**cfg, num_classes=0)
        load_weights(vit, ref.state_dict(), weights_format="timm")
        ref.eval()
        vit.eval()
        x = torch.rand(2, cfg["in_channels"], cfg["image_size"], cfg["image_size"],
                       generator=torch.Generator().manual_seed(0))
        with torch.no_grad():
            want = ref.forward_head(ref.forward_features(x), pre_logits=True)
            diff = float((vit.forward_features(x) - want).abs().max())
        if not diff <= 1e-4:
            raise GenexpyInputError(
                f"the converted {arch!r} differs from timm's by {diff:.3g} on random images; "
                "this timm model has a layout the package's ViT does not reproduce.")
        pcfg = dict(getattr(ref, "pretrained_cfg", None) or {})
        info = {"weights_source": "timm", "timm_model": arch,
                "timm_tag": pcfg.get("tag"), "hf_hub_id": pcfg.get("hf_hub_id"),
                "timm_version": getattr(timm, "__version__", None),
                "max_abs_diff_to_timm": diff,
                "mean": list(pcfg.get("mean", VIT_MEAN)), "std": list(pcfg.get("std", VIT_STD))}
    else:
        path = Path(weights).expanduser()
        if not path.is_file():
            raise GenexpyInputError(
                f"weights must be 'timm' or a checkpoint file; {str(path)!r} not found.")
        from .._io import file_sha256

        digest = file_sha256(path)
        if sha256 is not None and digest != str(sha256).strip().lower():
            raise GenexpyInputError(
                f"{path} has sha256 {digest}, expected {sha256}: not the file you meant "
                "(damaged or replaced); it was not read.")
        state = read_state(path)
        is_hf = weights_format == "hf" or (weights_format == "auto" and is_hf_vit_state(state))
        if isinstance(arch, str):
            if arch not in VIT_PRESETS:
                raise GenexpyInputError(
                    f"arch {arch!r} is not a known ViT size ({', '.join(VIT_PRESETS)}); pass "
                    "a mapping of MiniViT parameters (image_size, patch_size, dim, depth, "
                    "heads) for other sizes.")
            cfg = dict(VIT_PRESETS[arch])
        elif isinstance(arch, Mapping):
            cfg = dict(arch)
        else:
            raise GenexpyInputError(
                f"arch must be a ViT name or a mapping of MiniViT parameters, got {arch!r}.")
        cfg.setdefault("eps", 1e-12 if is_hf else 1e-6)
        try:
            vit = MiniViT(**cfg, num_classes=0)
        except TypeError as exc:
            raise GenexpyInputError(f"arch: {exc} (MiniViT parameters: image_size, "
                                    "patch_size, in_channels, dim, depth, heads, mlp_ratio, "
                                    "eps).") from None
        load_weights(vit, state, weights_format="hf" if is_hf else "timm")
        info = {"weights_source": "file", "weights_file": str(path),
                "weights_file_sha256": digest, "sha256_checked": sha256 is not None,
                "weights_format": "hf" if is_hf else "timm",
                "mean": list(VIT_MEAN), "std": list(VIT_STD)}
    for p in vit.parameters():
        p.requires_grad_(False)
    vit.eval()
    info["architecture"] = {"image_size": vit.image_size, "patch_size":
                            int(vit.patch_embed.proj.kernel_size[0]),
                            "in_channels": vit.in_channels, "dim": vit.embed_dim,
                            "depth": len(vit.blocks), "heads": vit.blocks[0].attn.heads}
    info["image_size"] = vit.image_size
    return vit, info
