"""A minimal Vision Transformer and feature extraction from frozen backbones (needs torch).

The paper's transfer-learning study uses a ViT pre-trained on ImageNet as a frozen feature
extractor and trains only a linear head. torchvision and timm are not dependencies, so
:class:`MiniViT` is a plain-torch ViT (Dosovitskiy et al. 2021: patch embedding, class token,
learned position embedding, pre-norm transformer blocks, final LayerNorm) whose parameter
names follow timm's ``VisionTransformer`` (``patch_embed.proj``, ``cls_token``, ``pos_embed``,
``blocks.<i>.norm1/attn.qkv/attn.proj/norm2/mlp.fc1/mlp.fc2``, ``norm``, ``head``), so a timm
checkpoint of the same size loads with :func:`load_weights`. Hugging Face ``ViTModel`` /
``ViTForImageClassification`` checkpoints are converted on loading (:func:`convert_hf_vit`).
The tests check both against the libraries themselves, without download: a timm
``VisionTransformer`` and a transformers ``ViTForImageClassification`` with random weights
(small sizes and ``vit_tiny_patch16_224``), converted, give the same logits to 1e-5.

The package's own small ViT, pre-trained on fractals, is built and loaded by
``genexpy_nb.seedpools.pretrain``.

:func:`extract_features` works with any ``torch.nn.Module`` (its ``forward_features`` if it
has one, else its output).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .._validation import GenexpyInputError, check_positive_int
from ._torch import require_torch, torch_threads

torch = require_torch("the ViT feature extractor (genexpy_nb.seedpools.vit)")
nn = torch.nn
F = torch.nn.functional

__all__ = ["VIT_PRESETS", "MiniViT", "convert_hf_vit", "extract_features", "is_hf_vit_state",
           "load_weights", "make_vit"]

#: sizes of the standard ViTs with 16x16 patches at 224x224 (timm / Hugging Face names);
#: ``mean``/``std``: the input normalisation of the usual ImageNet-21k checkpoints
VIT_PRESETS: dict[str, dict[str, Any]] = {
    "vit_tiny_patch16_224": {"image_size": 224, "patch_size": 16, "dim": 192, "depth": 12,
                             "heads": 3},
    "vit_small_patch16_224": {"image_size": 224, "patch_size": 16, "dim": 384, "depth": 12,
                              "heads": 6},
    "vit_base_patch16_224": {"image_size": 224, "patch_size": 16, "dim": 768, "depth": 12,
                             "heads": 12},
}
VIT_MEAN = (0.5, 0.5, 0.5)
VIT_STD = (0.5, 0.5, 0.5)


class _Attention(nn.Module):
    def __init__(self, dim: int, heads: int):
        super().__init__()
        self.heads = heads
        self.scale = (dim // heads) ** -0.5
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, n, c = x.shape
        # (b, n, 3*c) -> 3 x (b, heads, n, c/heads): q, k, v are consecutive blocks of qkv
        q, k, v = self.qkv(x).reshape(b, n, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        attn = torch.softmax((q @ k.transpose(-2, -1)) * self.scale, dim=-1)
        return self.proj((attn @ v).transpose(1, 2).reshape(b, n, c))


class _Mlp(nn.Module):
    def __init__(self, dim: int, hidden: int):
        super().__init__()
        self.fc1 = nn.Linear(dim, hidden)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(self.act(self.fc1(x)))


class _Block(nn.Module):
    def __init__(self, dim: int, heads: int, mlp_ratio: float, eps: float):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim, eps=eps)
        self.attn = _Attention(dim, heads)
        self.norm2 = nn.LayerNorm(dim, eps=eps)
        self.mlp = _Mlp(dim, int(dim * mlp_ratio))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class _PatchEmbed(nn.Module):
    def __init__(self, in_channels: int, patch_size: int, dim: int):
        super().__init__()
        self.proj = nn.Conv2d(in_channels, dim, patch_size, stride=patch_size)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.proj(x).flatten(2).transpose(1, 2)  # (b, n_patches, dim)


class MiniViT(nn.Module):
    """Vision Transformer with a class token (pre-norm blocks, exact GELU).

    Parameters
    ----------
    image_size, patch_size
        Input side and patch side (``image_size`` divisible by ``patch_size``).
    in_channels
        3 for RGB.
    dim, depth, heads, mlp_ratio
        Embedding width, number of blocks, attention heads, MLP width / ``dim``.
    num_classes
        Size of the classification head (0: no head, the model returns features).
    eps
        LayerNorm epsilon: 1e-6 for timm checkpoints, 1e-12 for Hugging Face ones.
    """

    def __init__(
        self, image_size: int = 224, patch_size: int = 16, in_channels: int = 3,
        dim: int = 768, depth: int = 12, heads: int = 12, mlp_ratio: float = 4.0,
        num_classes: int = 0, eps: float = 1e-6,
    ):
        super().__init__()
        if image_size % patch_size or dim % heads:
            raise GenexpyInputError(
                f"MiniViT: image_size ({image_size}) must be divisible by patch_size "
                f"({patch_size}) and dim ({dim}) by heads ({heads})."
            )
        self.image_size = image_size
        self.in_channels = in_channels
        self.embed_dim = dim
        n_patches = (image_size // patch_size) ** 2
        self.patch_embed = _PatchEmbed(in_channels, patch_size, dim)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, dim))
        self.pos_embed = nn.Parameter(torch.zeros(1, n_patches + 1, dim))
        nn.init.trunc_normal_(self.pos_embed, std=0.02)
        nn.init.trunc_normal_(self.cls_token, std=0.02)
        self.blocks = nn.ModuleList(_Block(dim, heads, mlp_ratio, eps) for _ in range(depth))
        self.norm = nn.LayerNorm(dim, eps=eps)
        self.head = nn.Linear(dim, num_classes) if num_classes > 0 else nn.Identity()

    def forward_features(self, x: torch.Tensor) -> torch.Tensor:
        """Return the class token after the final LayerNorm, shape (N, dim)."""
        x = self.patch_embed(x)
        x = torch.cat([self.cls_token.expand(x.shape[0], -1, -1), x], dim=1) + self.pos_embed
        for blk in self.blocks:
            x = blk(x)
        return self.norm(x)[:, 0]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Apply the head to :meth:`forward_features` (the features themselves without a head)."""
        return self.head(self.forward_features(x))


def make_vit(arch: str = "vit_base_patch16_224", *, eps: float = 1e-6, **overrides: Any) -> MiniViT:
    """Build a :class:`MiniViT` of a standard size (a preset of ``VIT_PRESETS``), without a head.

    The weights are freshly initialised; load published ones with :func:`load_weights`.

    Parameters
    ----------
    arch : str, default "vit_base_patch16_224"
        A name of ``VIT_PRESETS``: ``vit_tiny_patch16_224``, ``vit_small_patch16_224``
        or ``vit_base_patch16_224``.
    eps : float, default 1e-6
        Epsilon of the LayerNorms (timm's; Hugging Face checkpoints use 1e-12).
    **overrides
        Other :class:`MiniViT` parameters replacing those of the preset (e.g.
        ``image_size=32``, or ``num_classes`` for a head).

    Returns
    -------
    MiniViT
        The model.
    """
    if arch not in VIT_PRESETS:
        raise GenexpyInputError(f"unknown ViT arch {arch!r}; known: {sorted(VIT_PRESETS)}.")
    return MiniViT(**{**VIT_PRESETS[arch], "eps": eps, **overrides})


#: Hugging Face ViT layer keys: ``encoder.layer.<i>`` in checkpoints on the Hub (and in
#: transformers 4), ``layers.<i>`` in the state dict of a live transformers-5 model
_HF_LAYER = re.compile(r"^(?:encoder\.layer|layers)\.(\d+)\.(.+)$")
_HF_RENAME = {
    "layernorm_before": "norm1", "layernorm_after": "norm2",
    # transformers 4 / Hub checkpoints
    "attention.output.dense": "attn.proj", "intermediate.dense": "mlp.fc1",
    "output.dense": "mlp.fc2",
    # transformers 5 (live models)
    "attention.o_proj": "attn.proj", "mlp.fc1": "mlp.fc1", "mlp.fc2": "mlp.fc2",
}
_HF_QKV = {
    "attention.attention.query": "query", "attention.attention.key": "key",
    "attention.attention.value": "value",
    "attention.q_proj": "query", "attention.k_proj": "key", "attention.v_proj": "value",
}


def is_hf_vit_state(state: Mapping[str, Any]) -> bool:
    """Tell whether a state dict uses Hugging Face ViT names rather than timm's.

    Those of ``ViTModel`` / ``ViTForImageClassification``, transformers 4 or 5.
    """
    return any(k.startswith(("vit.embeddings.", "embeddings.patch_embeddings.")) for k in state)


def convert_hf_vit(state: Mapping[str, Any]) -> dict[str, Any]:
    """Rename a Hugging Face ViT state dict to :class:`MiniViT` (timm) names.

    Accepts the names of checkpoints on the Hugging Face Hub (``vit.encoder.layer.<i>.
    attention.attention.query``, as ``save_pretrained`` writes them) and those of a live
    transformers-5 model (``vit.layers.<i>.attention.q_proj``). Query, key and value weights
    are concatenated into ``attn.qkv``; the pooler is dropped (the features are the class
    token after the final LayerNorm, as in timm); ``classifier`` becomes ``head``.

    Parameters
    ----------
    state : mapping of str to tensor
        The Hugging Face state dict (keys with or without the ``vit.`` prefix).

    Returns
    -------
    dict
        The same weights under :class:`MiniViT` names, for :func:`load_weights` or
        ``load_state_dict``; an unknown key is an error.
    """
    out: dict[str, Any] = {}
    qkv: dict[tuple[int, str], dict[str, Any]] = {}
    for key, val in state.items():
        k = key[4:] if key.startswith("vit.") else key
        if k.startswith("pooler."):
            continue
        if k == "embeddings.cls_token":
            out["cls_token"] = val
        elif k == "embeddings.position_embeddings":
            out["pos_embed"] = val
        elif k.startswith("embeddings.patch_embeddings.projection."):
            out["patch_embed.proj." + k.rsplit(".", 1)[1]] = val
        elif k.startswith("layernorm."):
            out["norm." + k.rsplit(".", 1)[1]] = val
        elif k.startswith("classifier."):
            out["head." + k.rsplit(".", 1)[1]] = val
        elif (m := _HF_LAYER.match(k)) is not None:
            i, rest = int(m.group(1)), m.group(2)
            mod, param = rest.rsplit(".", 1)
            if mod in _HF_QKV:
                qkv.setdefault((i, param), {})[_HF_QKV[mod]] = val
            elif mod in _HF_RENAME:
                out[f"blocks.{i}.{_HF_RENAME[mod]}.{param}"] = val
            else:
                raise GenexpyInputError(f"convert_hf_vit: unexpected key {key!r}.")
        else:
            raise GenexpyInputError(f"convert_hf_vit: unexpected key {key!r}.")
    for (i, param), parts in qkv.items():
        if set(parts) != {"query", "key", "value"}:
            raise GenexpyInputError(f"convert_hf_vit: layer {i} lacks query/key/value {param}.")
        out[f"blocks.{i}.attn.qkv.{param}"] = torch.cat(
            [torch.as_tensor(parts["query"]), torch.as_tensor(parts["key"]),
             torch.as_tensor(parts["value"])], dim=0)
    return out


#: the largest weights file read (ViT-B/16 holds 350 MB, ViT-L 1.2 GB)
MAX_WEIGHTS_BYTES = 8 * 2**30


def read_state(path: Path) -> dict[str, Any]:
    """Read a weights file into a state dict, running none of its code.

    Used by :func:`load_weights` and by the backbones' loader
    (:mod:`genexpy_nb.seedpools.backbones`).

    Parameters
    ----------
    path : Path
        A ``torch.save`` file (read with ``weights_only=True``) or a ``.safetensors`` file,
        at most :data:`MAX_WEIGHTS_BYTES`.

    Returns
    -------
    dict
        Parameter name -> tensor.

    Raises
    ------
    GenexpyInputError
        The file is missing, too large, damaged, or holds Python objects besides tensors.
    """
    from .._io import check_input_file

    check_input_file(path, "weights file", max_bytes=MAX_WEIGHTS_BYTES)
    if path.suffix == ".safetensors":
        try:
            from safetensors.torch import load_file
        except ImportError:
            raise GenexpyInputError(
                f"{path} is a .safetensors file: pip install safetensors to read it, or save "
                "the state dict with torch.save."
            ) from None
        try:
            return dict(load_file(str(path)))
        except Exception as exc:  # safetensors raises its own error types for a bad file
            raise GenexpyInputError(f"could not read weights from {path} "
                                    f"({type(exc).__name__}: {exc}).") from None
    try:
        obj = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # torch raises several types for a bad file
        import pickle

        if isinstance(exc, pickle.UnpicklingError):  # an object other than tensors and data
            raise GenexpyInputError(
                f"could not read weights from {path}: it holds Python objects besides tensors, "
                "refused without running them (torch.load with weights_only=True). Save the "
                "weights alone: torch.save(model.state_dict(), path).") from None
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
        raise GenexpyInputError(f"could not read weights from {path}: the file is damaged or "
                                f"truncated, or not a torch.save file ({first}).") from None
    if isinstance(obj, Mapping):
        for wrap in ("state_dict", "model"):
            if wrap in obj and isinstance(obj[wrap], Mapping):
                obj = obj[wrap]
        return dict(obj)
    raise GenexpyInputError(f"{path} does not hold a state dict (got {type(obj).__name__}).")


def load_weights(
    module: nn.Module, weights: str | os.PathLike | Mapping[str, Any], *,
    weights_format: str = "auto",
) -> nn.Module:
    """Load a state dict (a path or a mapping) into ``module``, strictly; return ``module``.

    Parameters
    ----------
    module : torch.nn.Module
        Any module; for :class:`MiniViT`, timm and Hugging Face names are accepted.
    weights : str, os.PathLike or mapping
        A file saved with ``torch.save(state_dict)`` (or ``.safetensors`` when the safetensors
        package is installed), or the state dict itself.
    weights_format : {"auto", "torch", "timm", "hf"}, default "auto"
        'auto' (Hugging Face names are detected), 'torch' / 'timm' (as is), 'hf' (convert).
        Head weights (``head.*``) are dropped when ``module`` has no head.

    Returns
    -------
    torch.nn.Module
        ``module`` itself, holding the weights. Missing or unexpected keys and shape
        mismatches are errors.
    """
    if weights_format not in ("auto", "torch", "timm", "hf"):
        raise GenexpyInputError(
            f"weights_format must be 'auto', 'torch', 'timm' or 'hf', got {weights_format!r}."
        )
    if isinstance(weights, Mapping):
        state = dict(weights)
    else:
        path = Path(weights).expanduser()
        if not path.is_file():
            raise GenexpyInputError(f"weights file {str(path)!r} not found.")
        state = read_state(path)
    is_hf = weights_format == "hf" or (weights_format == "auto" and is_hf_vit_state(state))
    if is_hf:
        state = convert_hf_vit(state)
    own = module.state_dict()
    if not any(k.startswith("head.") for k in own):
        state = {k: v for k, v in state.items() if not k.startswith("head.")}
    missing = sorted(set(own) - set(state))
    unexpected = sorted(set(state) - set(own))
    if missing or unexpected:
        raise GenexpyInputError(
            f"the weights do not fit {type(module).__name__}: missing {missing[:5]}"
            f"{'...' if len(missing) > 5 else ''}, unexpected {unexpected[:5]}"
            f"{'...' if len(unexpected) > 5 else ''}. Check the architecture (e.g. the ViT "
            "size) and weights_format."
        )
    bad = [k for k in own if tuple(own[k].shape) != tuple(state[k].shape)]
    if bad:
        raise GenexpyInputError(
            f"the weights do not fit {type(module).__name__}: shape mismatch for {bad[:5]} "
            f"(e.g. {bad[0]}: model {tuple(own[bad[0]].shape)}, "
            f"file {tuple(state[bad[0]].shape)})."
        )
    module.load_state_dict(state, strict=True)
    return module


def extract_features(
    module: nn.Module,
    X: np.ndarray,
    *,
    weights: str | os.PathLike | Mapping[str, Any] | None = None,
    weights_format: str = "auto",
    image_size: int | None = None,
    in_channels: int | None = None,
    mean: Sequence[float] | None = None,
    std: Sequence[float] | None = None,
    batch_size: int = 256,
    n_threads: int = 1,
    device: str | Any = "auto",
    progress: bool = False,
    desc: str = "features",
) -> np.ndarray:
    """Features of a frozen backbone for a batch of images.

    Parameters
    ----------
    module
        Any ``torch.nn.Module``; its ``forward_features`` is used when it exists, else its
        output. It is put in eval mode; gradients are off.
    X
        Images, shape (N, C, H, W), float (values in [0, 1]).
    weights, weights_format
        Optional state dict (path or mapping) loaded first (:func:`load_weights`).
    image_size
        Resize the images to this side (bilinear) first, e.g. 224 for an ImageNet ViT
        (default: ``module.image_size`` when the module has it, else no resizing).
    in_channels
        Repeat single-channel images to this many channels (default: ``module.in_channels``
        when present).
    mean, std
        Per-channel normalisation ``(x - mean) / std`` after resizing (default: none; use
        ``genexpy_nb.seedpools.vit.VIT_MEAN`` / ``VIT_STD`` for the usual ImageNet-21k ViT
        checkpoints).
    batch_size, n_threads
        Images per forward pass (resizing is done batch by batch: the resized set is never
        held in memory); torch threads.
    device
        'auto' (CUDA when available, else CPU), 'cpu' or 'cuda' (``_device.pick_device``):
        the module runs there for the extraction and is moved back to where it was.
    progress, desc
        Show a ``tqdm.auto`` progress bar over the images, labelled ``desc``.

    Returns
    -------
    numpy.ndarray
        float32, shape (N, D).
    """
    if not isinstance(module, nn.Module):
        raise GenexpyInputError(
            f"module must be a torch.nn.Module, got {type(module).__name__}.")
    X = np.asarray(X, dtype=np.float32)
    if X.ndim != 4:
        raise GenexpyInputError(f"X must be images of shape (N, C, H, W), got {X.shape}.")
    batch_size = check_positive_int("batch_size", batch_size)
    if weights is not None:
        load_weights(module, weights, weights_format=weights_format)
    image_size = image_size if image_size is not None else getattr(module, "image_size", None)
    in_channels = in_channels if in_channels is not None else getattr(module, "in_channels", None)
    if in_channels is not None and X.shape[1] not in (1, in_channels):
        raise GenexpyInputError(
            f"the images have {X.shape[1]} channels, the backbone expects {in_channels}.")
    m_t = None if mean is None else torch.tensor(mean, dtype=torch.float32).view(1, -1, 1, 1)
    s_t = None if std is None else torch.tensor(std, dtype=torch.float32).view(1, -1, 1, 1)
    from .._progress import tqdm
    from ._device import pick_device

    dev = pick_device(device)
    home = next(iter(module.parameters()), torch.zeros(0)).device
    m_t = None if m_t is None else m_t.to(dev)
    s_t = None if s_t is None else s_t.to(dev)
    fwd = getattr(module, "forward_features", module)
    module.eval()
    module.to(dev)
    out = []
    try:
        with torch_threads(n_threads), torch.no_grad(), tqdm(
                total=X.shape[0], desc=desc, unit="image", disable=not progress) as bar:
            for start in range(0, X.shape[0], batch_size):
                x = torch.from_numpy(X[start:start + batch_size]).to(dev)
                out.append(_preprocess_and_forward(fwd, x, in_channels, image_size, m_t, s_t))
                bar.update(x.shape[0])
    finally:
        module.to(home)
    return np.concatenate(out) if out else np.zeros((0, 0), np.float32)


def _preprocess_and_forward(
    fwd: Any, x: torch.Tensor, in_channels: int | None, image_size: int | None,
    m_t: torch.Tensor | None, s_t: torch.Tensor | None,
) -> np.ndarray:
    """One batch of :func:`extract_features`: channels, resize, normalise, forward."""
    if in_channels is not None and x.shape[1] == 1 and in_channels > 1:
        x = x.expand(-1, in_channels, -1, -1)
    if image_size is not None and tuple(x.shape[-2:]) != (image_size, image_size):
        x = F.interpolate(x, size=(image_size, image_size), mode="bilinear",
                          align_corners=False)
    if m_t is not None:
        x = x - m_t
    if s_t is not None:
        x = x / s_t
    return fwd(x).reshape(x.shape[0], -1).cpu().numpy().astype(np.float32)
