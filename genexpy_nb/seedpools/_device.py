"""Where training runs: CPU or CUDA, with deterministic settings (needs torch)."""

from __future__ import annotations

import os
from typing import Any

from .._validation import GenexpyInputError
from ._torch import require_torch

torch = require_torch("choosing the training device")


def pick_device(device: str | Any = "auto") -> Any:
    """Return the ``torch.device`` for ``device``.

    ``device`` is 'auto' (CUDA when available, else CPU), 'cpu', 'cuda', 'cuda:1', or a
    ``torch.device``.

    On CUDA the deterministic settings are switched on (``torch.use_deterministic_algorithms``,
    cuDNN deterministic and not benchmarking, ``CUBLAS_WORKSPACE_CONFIG=:4096:8``), so a pool
    trained on a GPU is reproducible on the same GPU model and library versions (not bit for
    bit equal to a CPU run: the kernels differ).
    """
    if isinstance(device, torch.device):
        dev = device
    elif device == "auto":
        dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    else:
        try:
            dev = torch.device(str(device))
        except (RuntimeError, TypeError) as exc:
            raise GenexpyInputError(
                f"device must be 'auto', 'cpu', 'cuda' or 'cuda:N', got {device!r}.") from exc
    if dev.type == "cuda":
        if not torch.cuda.is_available():
            raise GenexpyInputError(
                "device='cuda' but torch sees no CUDA device (CPU build of torch, or no GPU); "
                "use device='cpu' or 'auto'.")
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
        torch.backends.cudnn.deterministic = True
        torch.backends.cudnn.benchmark = False
        torch.use_deterministic_algorithms(True, warn_only=True)
    elif dev.type != "cpu":
        raise GenexpyInputError(f"device must be a CPU or CUDA device, got {device!r}.")
    return dev


def device_name(dev: Any) -> str:
    """Return a readable name of the device ('cpu' or the GPU's name), recorded with a pool."""
    if dev.type == "cuda":
        return f"cuda ({torch.cuda.get_device_name(dev)})"
    import platform

    return f"cpu ({platform.processor() or platform.machine()})"
