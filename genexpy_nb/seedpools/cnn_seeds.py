"""CNN seed pools (robust-KS paper, Section V): the paper's small CNN, 200 seeds per source.

Command line (from the repository root)::

    python -m genexpy_nb.seedpools.cnn_seeds --out data/cnn_digits_both.npz --source both

trains (or resumes) one pool on the digits task and rewrites ``data/POOLS.md``. See
``--help`` for every option; ``--dataset cifar10 --cifar-dir DIR`` trains on CIFAR-10.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .._validation import GenexpyInputError, check_positive_int
from ._torch import require_torch

require_torch("training the CNN seed pools (genexpy_nb.seedpools.cnn_seeds)")

from .pools import SOURCES, SeedPool, check_out_path, write_manifest  # noqa: E402
from .tasks import (  # noqa: E402
    CIFAR10_PAPER_NEGATIVE,
    CIFAR10_PAPER_POSITIVE,
    DIGITS_NEGATIVE,
    DIGITS_POSITIVE,
    BinaryTask,
    digits_binary_task,
    load_cifar10_binary,
)
from .training import SmallCNN, train_pool  # noqa: E402

#: fixed hyperparameters of the shipped pools (epochs: validation accuracy is flat from
#: about epoch 20 on the digits task; the paper trains 50 epochs, lr 1e-3, batch 32)
DEFAULT_EPOCHS = 30
DEFAULT_LR = 1e-3
DEFAULT_BATCH_SIZE = 32
DEFAULT_CHANNELS = (16, 32)
DEFAULT_HIDDEN = 64


def train_cnn_pool(
    out: str | Path,
    *,
    source: str = "both",
    n_models: int = 200,
    seed: int = 0,
    task: BinaryTask | None = None,
    epochs: int = DEFAULT_EPOCHS,
    lr: float = DEFAULT_LR,
    batch_size: int = DEFAULT_BATCH_SIZE,
    channels: tuple[int, int] = DEFAULT_CHANNELS,
    hidden: int = DEFAULT_HIDDEN,
    n_threads: int = 1,
    max_new_models: int | None = None,
    overwrite: bool = False,
    progress: bool = True,
    command: str | None = None,
    client: Any = None,
    device: str | Any = "auto",
) -> SeedPool | None:
    """Train (or resume) a pool of small CNNs that differ only in the chosen source of randomness.

    Parameters
    ----------
    out
        Pool file (``.npz``); per-model results go to ``<out>.partial/`` until the pool is done.
    source
        'init' (initial weights vary, batch order fixed), 'order' (batch order varies, initial
        weights fixed) or 'both'.
    n_models
        Models in the pool (the paper: 200; first 100 = reference, rest = candidates).
    seed
        Pool seed; the per-model seeds derive from it (:func:`~genexpy_nb.seedpools.pool_seeds`).
    task
        The split (default :func:`~genexpy_nb.seedpools.digits_binary_task`: digits 5-9 vs
        0-4, 600 train, 300 validation, 897 test images).
    epochs, lr, batch_size
        Fixed hyperparameters (Adam).
    channels, hidden
        Conv channels and hidden units of :class:`~genexpy_nb.seedpools.SmallCNN`.
    n_threads, max_new_models, overwrite, progress, command, client, device
        See :func:`~genexpy_nb.seedpools.train_pool` (``client``: train on a Dask cluster;
        ``device``: 'auto' = CUDA when available, else CPU).

    Returns
    -------
    SeedPool or None
        The pool (gaps of shape (n_models, T)), or None if ``max_new_models`` stopped early.
    """
    if task is None:
        task = digits_binary_task()
    if not isinstance(task, BinaryTask):
        raise GenexpyInputError(f"task must be a BinaryTask, got {type(task).__name__}.")
    shape = task.input_shape
    if len(shape) != 3 or shape[1] != shape[2] or shape[1] % 4:
        raise GenexpyInputError(
            f"the CNN needs square images (C, H, H) with H divisible by 4; the task has inputs "
            f"of shape {shape}."
        )
    try:
        c1, c2 = (check_positive_int("channels", int(c)) for c in channels)
    except (TypeError, ValueError):
        raise GenexpyInputError(f"channels must be two positive integers, got {channels!r}.")\
            from None
    hidden = check_positive_int("hidden", hidden)
    in_ch, size = int(shape[0]), int(shape[1])

    def factory() -> SmallCNN:
        return SmallCNN(in_ch, size, (c1, c2), hidden, 2)

    spec = {"architecture": "SmallCNN", "in_channels": in_ch, "image_size": size,
            "channels": [c1, c2], "hidden": hidden, "n_outputs": 2,
            "layers": "conv3x3-relu-maxpool2, conv3x3-relu-maxpool2, linear-relu, linear"}
    desc = (
        f"{n_models} small CNNs (2 conv layers {c1}/{c2} channels, {hidden}-unit hidden layer, "
        f"2 logits) on {task.name}; source of randomness: {source}."
    )
    return train_pool(
        out, task, factory, kind="cnn-seeds", description=desc, model_spec=spec,
        source=source, n_models=n_models, seed=seed, epochs=epochs, lr=lr,
        batch_size=batch_size, n_threads=n_threads, max_new_models=max_new_models,
        overwrite=overwrite, progress=progress, command=command, client=client,
        device=device,
    )


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="python -m genexpy_nb.seedpools.cnn_seeds",
        description="Train (or resume) a pool of small CNNs over seeds and save their test "
        "logit gaps (robust-KS paper Sec. V). Interrupt at any time: the same command continues.",
    )
    ap.add_argument("--out", required=True, help="pool file, .npz (e.g. data/cnn_digits_both.npz)")
    ap.add_argument("--source", default="both", help=f"one of {', '.join(SOURCES)}")
    ap.add_argument("--models", type=int, default=200, help="models in the pool (200)")
    ap.add_argument("--seed", type=int, default=0, help="pool seed (0)")
    ap.add_argument("--epochs", type=int, default=DEFAULT_EPOCHS)
    ap.add_argument("--lr", type=float, default=DEFAULT_LR)
    ap.add_argument("--batch-size", type=int, default=DEFAULT_BATCH_SIZE)
    ap.add_argument("--channels", type=int, nargs=2, default=list(DEFAULT_CHANNELS))
    ap.add_argument("--hidden", type=int, default=DEFAULT_HIDDEN)
    add_task_arguments(ap, "digits (default), cifar10 or fractals (a harder 8x8 binary task "
                           "made offline: genexpy_nb.seedpools.fractals.fractal_binary_task)")
    ap.add_argument("--split-seed", type=int, default=0)
    add_run_arguments(ap)
    return ap


def add_task_arguments(ap: argparse.ArgumentParser, dataset_help: str) -> None:
    """Add the options of the task (:func:`task_from_args`) but ``--split-seed`` to ``ap``."""
    ap.add_argument("--dataset", default="digits", help=dataset_help)
    ap.add_argument("--cifar-dir", default=None, help="folder with the CIFAR-10 batch files")
    ap.add_argument("--positive", nargs="+", default=None,
                    help="classes of label 1 (digits: 5 6 7 8 9; cifar10: the paper's vehicles)")
    ap.add_argument("--negative", nargs="+", default=None, help="classes of label 0")
    ap.add_argument("--n-train", type=int, default=None)
    ap.add_argument("--n-val", type=int, default=None)
    ap.add_argument("--n-test", type=int, default=None)


def add_run_arguments(ap: argparse.ArgumentParser) -> None:
    """Add the run-control options of the pool-training commands to ``ap``.

    ``--threads``, ``--device``, ``--max-new``, ``--overwrite``, ``--no-progress``,
    ``--no-manifest`` and ``--scheduler``: what :func:`run_pool_command` and
    :func:`~genexpy_nb.seedpools.train_pool` read.
    """
    ap.add_argument("--threads", type=int, default=1, help="torch threads (1)")
    ap.add_argument("--device", default="auto",
                    help="auto (CUDA when available, else CPU; default), cpu, cuda or cuda:N; "
                    "recorded with the pool")
    ap.add_argument("--max-new", type=int, default=None,
                    help="train at most this many new models, then stop (resume later)")
    ap.add_argument("--overwrite", action="store_true", help="start again from scratch")
    ap.add_argument("--no-progress", action="store_true")
    ap.add_argument("--no-manifest", action="store_true",
                    help="do not rewrite POOLS.md/json in the output folder")
    ap.add_argument("--scheduler", default=None, metavar="ADDRESS",
                    help="train on a Dask cluster: the scheduler's address (tcp://host:8786), "
                    "or 'local' for one worker process per core (needs genexpy_nb[cluster]); "
                    "same pool, bit for bit, as without it")


def run_pool_command(prog: str, ap: argparse.ArgumentParser, argv: Sequence[str] | None,
                     train: Any, *, training_time: bool = False) -> int:
    """Run a pool-training command line; returns the exit status (2 on bad arguments).

    Parses ``argv``, picks the device (named in the recorded command when ``auto`` found
    one), calls ``train(args, out, device, command)`` (the pool, or None when
    ``--max-new`` stopped it), rewrites the folder's manifest and prints one line about
    the pool (with its minutes of training when ``training_time``).
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    args = ap.parse_args(argv)
    try:
        out = check_out_path(args.out)
        from ._device import pick_device

        dev = pick_device(args.device)
        if args.device == "auto" and dev.type != "cpu":
            argv = [*argv, "--device", dev.type]  # the recorded command names the device
        pool = train(args, out, dev, command_line(prog, argv))
    except GenexpyInputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if pool is None:
        print(f"stopped early (--max-new); run the same command again to continue {out}.")
        return 0
    if not args.no_manifest:
        write_manifest(out.parent)
    acc = pool.test_accuracy
    minutes = f"; {float(pool.wall_time_s.sum()) / 60:.1f} min of training" if training_time \
        else ""
    print(f"{out}: {pool.n_models} models x {pool.n_test} test points; test accuracy "
          f"mean {acc.mean():.4f} [{acc.min():.4f}, {acc.max():.4f}]{minutes}.")
    return 0


def task_from_args(args: argparse.Namespace) -> BinaryTask:
    """Build the task named by the command-line arguments (digits, CIFAR-10 or fractals)."""
    if args.dataset == "digits":
        try:
            pos = [int(x) for x in args.positive] if args.positive else DIGITS_POSITIVE
            neg = [int(x) for x in args.negative] if args.negative else (
                None if args.positive else DIGITS_NEGATIVE)
        except ValueError:
            raise GenexpyInputError("--positive/--negative take digits 0-9 for --dataset "
                                    "digits.") from None
        kw = {"n_train": 600 if args.n_train is None else args.n_train,
              "n_val": 300 if args.n_val is None else args.n_val, "n_test": args.n_test}
        return digits_binary_task(pos, neg, split_seed=args.split_seed, **kw)
    if args.dataset == "cifar10":
        if not args.cifar_dir:
            raise GenexpyInputError(
                "--dataset cifar10 needs --cifar-dir DIR (the extracted cifar-10-batches-py "
                "folder; genexpy_nb.seedpools.download_cifar10() fetches it)."
            )
        return load_cifar10_binary(
            args.cifar_dir, args.positive or CIFAR10_PAPER_POSITIVE,
            args.negative or CIFAR10_PAPER_NEGATIVE, n_train=args.n_train,
            n_val=1000 if args.n_val is None else args.n_val, n_test=args.n_test,
            split_seed=args.split_seed,
        )
    if args.dataset == "fractals":
        from .fractals import fractal_binary_task

        kw = {"n_train": 1000 if args.n_train is None else args.n_train,
              "n_val": 500 if args.n_val is None else args.n_val,
              "n_test": 1000 if args.n_test is None else args.n_test}
        return fractal_binary_task(split_seed=args.split_seed, **kw)
    raise GenexpyInputError(
        f"--dataset must be digits, cifar10 or fractals, got {args.dataset!r}.")


def command_line(prog: str, argv: Sequence[str]) -> str:
    """Write the regeneration command: ``prog`` + arguments, without run-control flags."""
    keep: list[str] = []
    skip_next = False
    for a in argv:
        if skip_next:
            skip_next = False
            continue
        if a in ("--max-new", "--scheduler"):
            skip_next = True
            continue
        if a.startswith(("--max-new=", "--scheduler=")) or a in ("--no-progress", "--no-manifest"):
            continue
        keep.append(a)
    return " ".join(["python -m", prog, *map(shlex.quote, keep)])


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry; returns the exit status (2 on bad arguments)."""
    def train(args: argparse.Namespace, out: Path, dev: Any, command: str) -> SeedPool | None:
        return train_cnn_pool(
            out, source=args.source, n_models=args.models, seed=args.seed,
            task=task_from_args(args), epochs=args.epochs, lr=args.lr,
            batch_size=args.batch_size, channels=tuple(args.channels), hidden=args.hidden,
            n_threads=args.threads, max_new_models=args.max_new, overwrite=args.overwrite,
            progress=not args.no_progress, command=command, client=args.scheduler, device=dev,
        )

    return run_pool_command("genexpy_nb.seedpools.cnn_seeds", _parser(), argv, train,
                            training_time=True)


if __name__ == "__main__":
    raise SystemExit(main())
