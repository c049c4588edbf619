"""Training one model and a resumable pool of models over seeds (needs torch: extra [train]).

The two sources of randomness of robust-KS paper Sec. V are separated explicitly:

* the **initialisation**: the model is built right after ``torch.manual_seed(init_seed)``
  inside ``torch.random.fork_rng`` (torch's global generator is left as it was);
* the **batch order**: one permutation of the training set per epoch, drawn from
  ``np.random.default_rng(order_seed)`` (:func:`batch_order`).

Nothing else is random (no dropout, no augmentation), so a model is a function of
``(init_seed, order_seed)`` and the fixed hyperparameters; on one thread it is reproducible
bit for bit.

Training runs on ``device`` ('auto': CUDA when torch sees a GPU, else the CPU; see
``_device.pick_device``). The code path is the same on both: the model is built on the
CPU under its seed (so its initial weights do not depend on the device), then the model and the
tensors are moved with ``.to(device)``. A pool trained on a GPU records the device in its
configuration and is reproducible on the same GPU model and library versions; it is not bit
for bit equal to a CPU pool (other kernels).
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from .._validation import GenexpyInputError, check_positive_int, check_seed, root_seed
from ._device import device_name, pick_device
from ._torch import require_torch, torch_threads
from .pools import (
    POOL_FORMAT,
    PartialPool,
    SeedPool,
    assemble_pool,
    check_out_path,
    check_source,
    load_pool,
    pool_seeds,
    save_pool,
    versions,
)
from .tasks import BinaryTask

torch = require_torch("training pools of models (genexpy_nb.seedpools)")
nn = torch.nn

__all__ = [
    "SmallCNN", "adam_implementation", "batch_order", "build_model", "check_training_args",
    "fit_classifier", "make_adam", "train_model",
    "train_pool",
]


class SmallCNN(nn.Module):
    """The paper's small CNN: two 3x3 conv layers, a 64-unit hidden layer, 2 logits.

    ``conv(c0 -> c1, 3x3, pad 1) - ReLU - maxpool 2 - conv(c1 -> c2, 3x3, pad 1) - ReLU -
    maxpool 2 - flatten - linear(-> hidden) - ReLU - linear(-> n_outputs)``; the three stages
    are the submodules ``conv`` (a transfer-learning backbone: its flattened output has
    ``c2 * (image_size / 4)**2`` values), ``hidden`` and ``head``.

    Parameters
    ----------
    in_channels
        1 for the digits, 3 for CIFAR-10.
    image_size
        Side of the square input (8 for the digits, 32 for CIFAR-10); divisible by 4.
    channels
        Output channels of the two conv layers.
    hidden
        Units of the hidden layer (64 in the paper).
    n_outputs
        2 logits for a binary task (10 to pre-train a backbone on the 10 digits).
    """

    def __init__(
        self, in_channels: int = 1, image_size: int = 8, channels: tuple[int, int] = (16, 32),
        hidden: int = 64, n_outputs: int = 2,
    ):
        super().__init__()
        if image_size % 4:
            raise GenexpyInputError(f"image_size must be divisible by 4, got {image_size}.")
        c1, c2 = channels
        self.conv = nn.Sequential(
            nn.Conv2d(in_channels, c1, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(c1, c2, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
        )
        self.hidden = nn.Sequential(nn.Linear(c2 * (image_size // 4) ** 2, hidden), nn.ReLU())
        self.head = nn.Linear(hidden, n_outputs)

    def forward_features(self, x: torch.Tensor) -> torch.Tensor:
        """Return the hidden layer's activations, shape (N, hidden)."""
        return self.hidden(self.conv(x))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return the logits, shape (N, n_outputs)."""
        return self.head(self.hidden(self.conv(x)))


def build_model(factory: Callable[[], nn.Module], init_seed: int) -> nn.Module:
    """Build a model with ``factory()`` called right after ``torch.manual_seed(init_seed)``.

    Runs inside ``torch.random.fork_rng``: the caller's global torch generator is unchanged.

    Parameters
    ----------
    factory : callable
        Builds the model, called without arguments (its initial weights are drawn then).
    init_seed : int
        The seed of the initial weights (a model's ``init_seed``, see
        :func:`~genexpy_nb.seedpools.pool_seeds`).

    Returns
    -------
    torch.nn.Module
        The model ``factory()`` returned.
    """
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(int(init_seed))
        return factory()


def batch_order(order_seed: int, n_train: int, epochs: int) -> np.ndarray:
    """Draw the order in which training examples are visited: one permutation per epoch.

    Parameters
    ----------
    order_seed : int
        The seed of the NumPy generator (a model's ``order_seed``, see
        :func:`~genexpy_nb.seedpools.pool_seeds`).
    n_train : int
        The number of training examples.
    epochs : int
        The number of passes over them.

    Returns
    -------
    numpy.ndarray
        int64, shape (epochs, n_train); row e is the permutation used in epoch e, cut into
        consecutive mini-batches.
    """
    rng = np.random.default_rng(int(order_seed))
    return np.stack([rng.permutation(n_train) for _ in range(epochs)]).astype(np.int64)


def check_training_args(
    *, n_models: int, epochs: int, lr: float, batch_size: int, n_threads: int,
    max_new_models: int | None, seed: int, source: str,
) -> None:
    """Validate the common arguments of a pool; raise GenexpyInputError naming the bad one."""
    check_positive_int("n_models", n_models)
    check_positive_int("epochs", epochs)
    check_positive_int("batch_size", batch_size)
    check_positive_int("n_threads", n_threads)
    if max_new_models is not None:
        check_positive_int("max_new_models", max_new_models, minimum=0)
    check_seed(seed)
    try:
        lr_f = float(lr)
    except (TypeError, ValueError):
        lr_f = float("nan")
    if not (math.isfinite(lr_f) and lr_f > 0):
        raise GenexpyInputError(f"lr (learning rate) must be a positive number, got {lr!r}.")
    check_source(source)


def _accuracy(model: nn.Module, X: torch.Tensor, y: np.ndarray) -> float:
    if y.size == 0:
        return float("nan")
    with torch.no_grad():
        logits = model(X)
    return float((logits.argmax(1).cpu().numpy() == y).mean())


def _aligned_tensor(x: np.ndarray, device: Any = None) -> torch.Tensor:
    """Copy ``x`` into a new float32 tensor: torch's memory, standard strides.

    The same values with other strides or alignment can run through other CPU kernels and
    differ in the last bits. NumPy calls an (N, 1, H, W) array "contiguous" whatever the
    stride of its size-1 axis: ``images[:, None]`` gives the strides torch reads as
    channels-last, the same array after pickling (sent to a Dask worker) the standard ones;
    and a received array sits at an arbitrary offset of its buffer. Copying into
    ``torch.empty`` makes a model's outputs depend on its seeds only, wherever the data
    came from. With ``device``, the copy is then moved there (``.to`` returns the same tensor
    when it is already on that device).
    """
    src = torch.from_numpy(np.ascontiguousarray(x, dtype=np.float32))
    out = torch.empty(src.shape, dtype=torch.float32).copy_(src)
    return out if device is None else out.to(device)


def make_adam(model: nn.Module, lr: float) -> torch.optim.Optimizer:
    """Adam with default betas; the fused CPU kernel when this torch has it (faster, same maths)."""
    try:
        return torch.optim.Adam(model.parameters(), lr=float(lr), fused=True)
    except (RuntimeError, TypeError, ValueError):  # torch < 2.4: no fused Adam on CPU
        return torch.optim.Adam(model.parameters(), lr=float(lr), foreach=True)


def adam_implementation() -> str:
    """Which Adam :func:`make_adam` uses here ('fused' or 'foreach'), recorded with a pool."""
    opt = make_adam(nn.Linear(1, 1), 1e-3)
    return "fused" if opt.defaults.get("fused") else "foreach"


def fit_classifier(
    model: nn.Module, X: np.ndarray, y: np.ndarray, order: np.ndarray, *, lr: float,
    batch_size: int, X_val: np.ndarray | None = None, y_val: np.ndarray | None = None,
    device: str | Any = "auto",
) -> tuple[float, np.ndarray]:
    """Train ``model`` in place with Adam and cross-entropy, visiting examples in ``order``.

    Parameters
    ----------
    model
        Returns logits of shape (N, n_classes).
    X, y
        Training inputs and integer labels (N,).
    order
        (epochs, N) permutations, e.g. from :func:`batch_order`; each row is cut into
        consecutive mini-batches of ``batch_size``.
    lr, batch_size
        Adam learning rate (default betas) and mini-batch size.
    X_val, y_val
        Optional validation set, scored after every epoch.
    device
        'auto' (CUDA when available, else CPU), 'cpu', 'cuda' or a ``torch.device``
        (``_device.pick_device``); the model is moved there (in place).

    Returns
    -------
    (last_loss, curve)
        Mean training loss of the last epoch; validation accuracy after each epoch (NaN
        without a validation set), float32 of shape (epochs,).
    """
    dev = pick_device(device)
    model.to(dev)
    Xt = _aligned_tensor(X, dev)
    yt = torch.from_numpy(np.ascontiguousarray(y, dtype=np.int64)).to(dev)
    Xv = None if X_val is None else _aligned_tensor(X_val, dev)
    yv = np.zeros(0, np.int64) if y_val is None else np.asarray(y_val)
    order_t = torch.from_numpy(np.ascontiguousarray(order, dtype=np.int64)).to(dev)
    opt = make_adam(model, lr)
    loss_fn = nn.CrossEntropyLoss()
    epochs, n = order_t.shape
    curve = np.full(epochs, np.nan, dtype=np.float32)
    last_loss = float("nan")
    for e in range(epochs):
        model.train()
        total = 0.0
        for start in range(0, n, batch_size):
            idx = order_t[e, start:start + batch_size]
            opt.zero_grad(set_to_none=True)
            loss = loss_fn(model(Xt[idx]), yt[idx])
            loss.backward()
            opt.step()
            total += float(loss.detach()) * idx.shape[0]
        last_loss = total / n
        if Xv is not None and yv.size:
            model.eval()
            curve[e] = _accuracy(model, Xv, yv)
    model.eval()
    return last_loss, curve


def train_model(
    factory: Callable[[], nn.Module], task: BinaryTask, *, init_seed: int, order_seed: int,
    epochs: int, lr: float = 1e-3, batch_size: int = 32, device: str | Any = "auto",
) -> dict[str, Any]:
    """Train one model with Adam and cross-entropy; return its results on the task.

    Parameters
    ----------
    factory
        Builds the untrained model (called under ``torch.manual_seed(init_seed)``).
    task
        The fixed split.
    init_seed, order_seed
        The two seeds (see the module docstring).
    epochs, lr, batch_size
        Fixed hyperparameters (Adam with default betas; last batch may be smaller).
    device
        Where to train (:func:`fit_classifier`); the model is built on the CPU first.

    Returns
    -------
    dict
        ``gaps`` (T,) float32 test logit gaps ``logit[1] - logit[0]``; ``test_accuracy``,
        ``val_accuracy``, ``val_accuracy_curve`` (epochs,), ``train_loss``, ``wall_time_s``,
        ``cpu_time_s`` (CPU time of this process: the honest cost on a shared machine),
        ``init_seed``, ``order_seed``.
    """
    t0 = time.perf_counter()
    c0 = time.process_time()
    dev = pick_device(device)
    model = build_model(factory, init_seed)
    order = batch_order(order_seed, task.y_train.shape[0], epochs)
    last_loss, curve = fit_classifier(
        model, task.X_train, task.y_train, order, lr=lr, batch_size=batch_size,
        X_val=task.X_val, y_val=task.y_val, device=dev,
    )
    Xt = _aligned_tensor(task.X_test, dev)
    model.eval()
    with torch.no_grad():
        logits = model(Xt)
    gaps = (logits[:, 1] - logits[:, 0]).cpu().numpy().astype(np.float32)
    return {
        "gaps": gaps,
        "test_accuracy": np.float32(((gaps > 0).astype(np.int64) == task.y_test).mean()),
        "val_accuracy": np.float32(curve[-1]),
        "val_accuracy_curve": curve,
        "train_loss": np.float32(last_loss),
        "wall_time_s": np.float32(time.perf_counter() - t0),
        "cpu_time_s": np.float32(time.process_time() - c0),
        "init_seed": np.uint64(init_seed),
        "order_seed": np.uint64(order_seed),
    }


def _train_on_worker(
    seeds: tuple[int, int], factory: Callable[[], nn.Module], task: BinaryTask,
    hyper: tuple[int, float, int, int, str],
) -> dict[str, Any]:
    """One model of a pool, as a task on a Dask worker (:func:`train_pool` with a client).

    Sets the worker process's torch threads to the pool's ``n_threads`` (and leaves them so:
    a worker's concurrent tasks share the setting; restoring it could change another task's
    thread count mid-model).
    """
    epochs, lr, batch_size, n_threads, device = hyper
    torch.set_num_threads(int(n_threads))
    init_seed, order_seed = seeds
    return train_model(factory, task, init_seed=init_seed, order_seed=order_seed,
                       epochs=epochs, lr=lr, batch_size=batch_size, device=device)


def train_pool(
    out: str | Path,
    task: BinaryTask,
    factory: Callable[[], nn.Module],
    *,
    kind: str,
    description: str,
    model_spec: Mapping[str, Any],
    source: str = "both",
    n_models: int = 200,
    seed: int = 0,
    epochs: int = 30,
    lr: float = 1e-3,
    batch_size: int = 32,
    n_threads: int = 1,
    max_new_models: int | None = None,
    overwrite: bool = False,
    progress: bool = True,
    command: str | None = None,
    extra_meta: Mapping[str, Any] | None = None,
    extra_seconds: float | None = None,
    client: Any = None,
    device: str | Any = "auto",
) -> SeedPool | None:
    """Train (or resume) a pool of models that differ only in their seeds; save it to ``out``.

    Models are saved one by one into ``<out>.partial/``; when all ``n_models`` are there the
    pool is written to ``out`` (compressed npz, fields of :class:`~genexpy_nb.seedpools.SeedPool`)
    and the partial folder is deleted. A run that stops half-way (interrupted, or
    ``max_new_models`` reached) continues where it stopped when called again with the same
    arguments, and gives exactly the pool an uninterrupted run gives.

    Parameters
    ----------
    out
        Path of the pool file (``.npz``).
    task
        The fixed split.
    factory
        Builds an untrained model (called under ``torch.manual_seed(init_seed)``).
    kind, description, model_spec
        Recorded in the file's ``meta`` (``model_spec``: JSON-able architecture description;
        part of the configuration a resumed run must match).
    source
        'init', 'order' or 'both' (see :func:`~genexpy_nb.seedpools.pool_seeds`).
    n_models, seed, epochs, lr, batch_size
        Pool size, pool seed and fixed hyperparameters.
    n_threads
        torch threads while training (1: reproducible, and polite on a shared machine).
    max_new_models
        Train at most this many new models in this call, then stop (None: no limit).
    overwrite
        Discard an existing pool file or partial folder instead of reusing it.
    progress
        Show a tqdm progress bar over the models.
    command
        The shell command that regenerates the file (recorded in ``meta``).
    extra_meta, extra_seconds
        More ``meta`` entries; seconds spent outside the models (e.g. pre-training).
    client
        None (default): train here, one model after the other. Otherwise (needs
        ``genexpy_nb[cluster]``) a ``dask.distributed`` Client, a scheduler address
        (``"tcp://host:8786"``), a cluster object, or ``"local"`` (an embedded LocalCluster of
        one worker process per core, closed at the end): one task per model, each setting
        ``n_threads`` torch threads on its worker. Every finished model is written here, in
        ``<out>.partial/``, as it arrives, so a worker that dies costs only the models it was
        training; the pool is the same, bit for bit, as the serial one (the seeds belong to
        the models, not to the workers). If tasks fail for good (a worker died more often
        than the scheduler's ``allowed-failures``), the other models still finish and
        :class:`~genexpy_nb.distributed.ClusterTaskError` is raised: run the same call again
        to train the missing ones.
    device
        'auto' (CUDA when available, else CPU), 'cpu', 'cuda' or 'cuda:N'
        (``_device.pick_device``); with a ``client`` the workers use a device of the
        same type. A CUDA pool records ``"device": "cuda"`` in its configuration (a CPU pool's
        configuration is as before), so a run never resumes a partial pool trained on the
        other kind of device; ``meta["device"]`` names the hardware.

    Returns
    -------
    SeedPool or None
        The finished pool, or None when ``max_new_models`` stopped the run early.
    """
    seed = root_seed(seed)  # recorded in the pool: a Generator or None gives a fresh root
    check_training_args(
        n_models=n_models, epochs=epochs, lr=lr, batch_size=batch_size, n_threads=n_threads,
        max_new_models=max_new_models, seed=seed, source=source,
    )
    out = check_out_path(out)
    dev = pick_device(device)
    config = {
        "kind": kind,
        "task_fingerprint": task.fingerprint(),
        "model": dict(model_spec),
        "optimizer": f"Adam (default betas, {adam_implementation()} implementation), "
        "cross-entropy, no weight decay",
        "source": source,
        "seed": int(seed),
        "n_models": int(n_models),
        "epochs": int(epochs),
        "lr": float(lr),
        "batch_size": int(batch_size),
        "n_threads": int(n_threads),
        "format": POOL_FORMAT,
    }
    if dev.type != "cpu":
        # only for a GPU: the configurations of CPU pools (the shipped ones, and partial runs
        # started before this option existed) stay what they were
        config["device"] = dev.type
    config = json.loads(json.dumps(config))  # the form it takes in the file (tuples -> lists)
    partial = PartialPool(out, config)
    if overwrite:
        partial.remove()
        out.unlink(missing_ok=True)
    if out.is_file():
        existing = load_pool(out)
        if existing.meta.get("config") == config:
            return existing
        raise GenexpyInputError(
            f"{out} already exists with another configuration; pass overwrite=True "
            "(--overwrite) to replace it, or choose another out path."
        )
    partial.open()
    init_seeds, order_seeds = pool_seeds(seed, source, n_models)
    done = partial.done()
    todo = [i for i in range(n_models) if i not in done]
    if max_new_models is not None:
        todo = todo[:max_new_models]

    from .._progress import tqdm

    with torch_threads(n_threads), tqdm(
        total=n_models, initial=sum(1 for i in range(n_models) if i in done),
        desc=f"{out.stem} ({source})", unit="model", disable=not progress,
    ) as bar:
        def finished(i: int, rec: dict[str, Any]) -> None:
            partial.save(i, rec)
            bar.set_postfix(acc=f"{float(rec['test_accuracy']):.3f}",
                            s=f"{float(rec['wall_time_s']):.1f}")

        if client is None:
            for i in todo:
                finished(i, train_model(
                    factory, task, init_seed=int(init_seeds[i]),
                    order_seed=int(order_seeds[i]), epochs=epochs, lr=lr,
                    batch_size=batch_size, device=dev,
                ))
                bar.update(1)
        elif todo:
            from .._cluster import as_client, map_unordered

            with as_client(client, threads_per_task=n_threads) as c:
                seeds = [(int(init_seeds[i]), int(order_seeds[i])) for i in todo]
                map_unordered(
                    c, _train_on_worker, seeds,
                    shared=(factory, task, (epochs, lr, batch_size, n_threads, dev.type)),
                    on_result=lambda j, rec: finished(todo[j], rec), unit="model", bar=bar,
                )

    done = partial.done()
    if any(i not in done for i in range(n_models)):
        return None
    records = [partial.load(i) for i in range(n_models)]
    meta = {
        "format": POOL_FORMAT,
        "kind": kind,
        "description": description,
        "gap": "logit[1] - logit[0] on the test set, float32, not clipped; label 1 = "
        f"{'+'.join(task.positive)}, label 0 = {'+'.join(task.negative)}",
        "config": config,
        "task": task.describe(),
        "seed_scheme": "genexpy_nb.experiments.pools.pool_seeds(seed, source, n_models)",
        "versions": versions(),
        "command": command,
        "device": device_name(dev) if client is None else f"{dev.type} (Dask workers)",
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "extra_seconds": None if extra_seconds is None else round(float(extra_seconds), 2),
        **dict(extra_meta or {}),
    }
    pool = assemble_pool(records, task.y_test, task.index_test, meta, name=out.name)
    save_pool(pool, out)
    partial.remove()
    return pool
