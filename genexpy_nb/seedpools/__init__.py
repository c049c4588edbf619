"""Seed studies run by genexpy_nb itself: train pools of models, save their logit gaps.

Optional extra ``[train]`` (PyTorch, scikit-learn) for training; reading the shipped pools
(:func:`load_pool`) needs NumPy only.

* :func:`train_cnn_pool` — the paper's small CNN over seeds, with one of three sources of
  randomness (initialisation, batch order, both); CLI ``python -m
  genexpy_nb.seedpools.cnn_seeds``.
* :func:`train_transfer_pool` — linear heads on a frozen pre-trained backbone over seeds; CLI
  ``python -m genexpy_nb.seedpools.transfer``.
* :func:`paper_transfer_pool` — the paper's exact transfer setting in one call: an
  ImageNet-pre-trained ViT (timm or a local checkpoint), frozen, 90 linear heads on CIFAR-10
  vehicles vs animals (``--backbone paper`` on the command line).
* :func:`digits_binary_task`, :func:`digits_transfer_tasks`, :func:`load_cifar10_binary`,
  :func:`download_cifar10` — the tasks.
* :func:`load_pool` / :class:`SeedPool` — a pool: gaps (models x test points), labels,
  accuracies, seeds, metadata. Shipped pools are listed in the repository's
  ``data/POOLS.md``.
* :func:`read_gaps` — the reference and candidate gaps and the labels of a pool or of a
  plain ``.npz`` of your own (what ``genexpy-nb seeds`` reads).

Every pool trains on a Dask cluster with ``client=`` (``--scheduler`` on the command line;
extra ``[cluster]``): one task per model, the same pool bit for bit as serial training (see
:mod:`genexpy_nb.distributed`).

Names that need torch are imported on first use; without torch they raise
:class:`MissingOptionalDependency` ("install genexpy_nb[train] for ...").
"""

from __future__ import annotations

from .._lazy import lazy_exports
from ._torch import MissingOptionalDependency
from .gaps import PoolGaps, read_gaps
from .pools import SOURCES, SeedPool, load_pool, pool_seeds, save_pool, write_manifest
from .tasks import (
    BinaryTask,
    SourceTask,
    digits_binary_task,
    digits_transfer_tasks,
    download_cifar10,
    load_cifar10_binary,
)

#: public names that need torch, and the module that defines them
_TORCH_NAMES: dict[str, str] = {
    "SmallCNN": "training",
    "batch_order": "training",
    "build_model": "training",
    "fit_classifier": "training",
    "train_model": "training",
    "train_pool": "training",
    "train_cnn_pool": "cnn_seeds",
    "train_transfer_pool": "transfer",
    "pretrain_digits_backbone": "backbones",
    "paper_transfer_pool": "transfer",
    "MiniViT": "vit",
    "make_vit": "vit",
    "load_weights": "vit",
    "convert_hf_vit": "vit",
    "extract_features": "vit",
}

__all__ = [
    "SOURCES", "BinaryTask", "MissingOptionalDependency", "PoolGaps", "SeedPool", "SourceTask",
    "digits_binary_task", "digits_transfer_tasks", "download_cifar10", "load_cifar10_binary",
    "load_pool", "pool_seeds", "read_gaps", "save_pool", "write_manifest", *_TORCH_NAMES,
]


__getattr__, __dir__ = lazy_exports(__name__, _TORCH_NAMES, globals())
