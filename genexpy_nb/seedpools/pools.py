"""Pools of trained models: seeds, the on-disk format, resumable storage and the manifest.

Nothing here needs torch: shipped pools load with NumPy alone.

File format (one compressed ``.npz`` per pool; ``np.load(path)`` works without genexpy_nb):

========================  ===========  ============================================================
key                       shape        meaning
========================  ===========  ============================================================
``gaps``                  (M, T) f4    logit gap ``logit[1] - logit[0]`` of model m on test point t
                                       (raw, *not* clipped; clipped at analysis time)
``labels``                (T,) i1      test labels in {0, 1}
``test_index``            (T,) i4      row of each test point in the source dataset
``val_accuracy``          (M,) f4      accuracy on the validation split (disjoint from the test set)
``test_accuracy``         (M,) f4      accuracy on the test set, ``mean((gaps > 0) == labels)``
``val_accuracy_curve``    (M, E) f4    validation accuracy after each epoch (convergence check)
``train_loss``            (M,) f4      mean training cross-entropy of the last epoch
``wall_time_s``           (M,) f4      seconds to train and evaluate the model (one thread)
``cpu_time_s``            (M,) f4      CPU seconds of the same (more honest than wall time on a
                                       shared machine)
``init_seed``             (M,) u8      seed of ``torch.manual_seed`` before building the model
``order_seed``            (M,) u8      seed of the NumPy Generator that shuffles the batches
``meta``                  0-d str      JSON: configuration, task, versions, command, timings
========================  ===========  ============================================================
"""

from __future__ import annotations

import json
import os
import platform
import re
import shutil
import sys
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from .._escape import markdown_text, terminal_text
from .._io import atomic_write, write_npz
from .._validation import GenexpyInputError, axis_length, check_positive_int, root_seed
from .._version import __version__
from ._pool_files import read_meta, read_partial_config

#: the sources of randomness of a pool (robust-KS paper Sec. V)
SOURCES: tuple[str, ...] = ("init", "order", "both")
#: stream identifiers in the seed derivation (never change: they define the shipped seeds)
_INIT_STREAM = 1
_ORDER_STREAM = 2
#: format version written into ``meta``
POOL_FORMAT = 1
#: per-model arrays of a pool file, in the order of the table above
PER_MODEL_KEYS: tuple[str, ...] = (
    "gaps", "val_accuracy", "test_accuracy", "val_accuracy_curve", "train_loss",
    "wall_time_s", "cpu_time_s", "init_seed", "order_seed",
)
_DTYPES = {
    "gaps": np.float32, "val_accuracy": np.float32, "test_accuracy": np.float32,
    "val_accuracy_curve": np.float32, "train_loss": np.float32, "wall_time_s": np.float32,
    "cpu_time_s": np.float32,
    "init_seed": np.uint64, "order_seed": np.uint64,
}


def check_source(source: str) -> str:
    """Check a source-of-randomness name ('init', 'order' or 'both')."""
    if source not in SOURCES:
        raise GenexpyInputError(
            f"source must be one of {list(SOURCES)} (what varies between the models: the "
            f"initial weights, the batch order, or both), got {source!r}."
        )
    return source


def derive_seed(seed: int, stream: int, k: int) -> int:
    """Derive a 64-bit seed from (pool seed, stream, k) via NumPy's SeedSequence."""
    ss = np.random.SeedSequence([int(seed), int(stream), int(k)])
    return int(ss.generate_state(1, dtype=np.uint64)[0])


def pool_seeds(seed: int, source: str, n_models: int) -> tuple[np.ndarray, np.ndarray]:
    """Return the initialisation and batch-order seeds of the models of a pool.

    Model ``i`` (0-based) gets ``init_seed = derive_seed(seed, 1, k_init)`` and
    ``order_seed = derive_seed(seed, 2, k_order)``, where ``k = i + 1`` for a source that
    varies and ``k = 0`` (the same for every model) for one held fixed:

    ========  ==========  ===========
    source    k_init      k_order
    ========  ==========  ===========
    init      i + 1       0
    order     0           i + 1
    both      i + 1       i + 1
    ========  ==========  ===========

    So with one ``seed`` the three pools are *paired*: model i of the 'both' pool has the
    initial weights of model i of the 'init' pool and the batch order of model i of the
    'order' pool. Seeds of model i never depend on ``n_models``.

    Parameters
    ----------
    seed : int
        The pool seed.
    source : {"init", "order", "both"}
        What varies between the models: the initial weights, the batch order, or both.
    n_models : int
        The number of models (a positive integer).

    Returns
    -------
    init_seeds, order_seeds : numpy.ndarray
        Two uint64 arrays of shape (n_models,).
    """
    check_source(source)
    n_models = check_positive_int("n_models", n_models)
    seed = root_seed(seed)
    ks = np.arange(1, n_models + 1)
    k_init = ks if source in ("init", "both") else np.zeros_like(ks)
    k_order = ks if source in ("order", "both") else np.zeros_like(ks)
    init = np.array([derive_seed(seed, _INIT_STREAM, k) for k in k_init], dtype=np.uint64)
    order = np.array([derive_seed(seed, _ORDER_STREAM, k) for k in k_order], dtype=np.uint64)
    return init, order


def versions() -> dict[str, str]:
    """Versions of Python, the platform and the libraries that produce a pool."""
    out = {"python": platform.python_version(), "platform": platform.platform(),
           "numpy": np.__version__}
    for mod in ("torch", "sklearn"):
        m = sys.modules.get(mod)
        if m is not None:
            out[mod] = str(getattr(m, "__version__", "?"))
    out["genexpy_nb"] = __version__
    return out


#: permissions of the pool files (data files are meant to be shared)
_PERMISSIONS = 0o644


def _atomic_savez(path: Path, arrays: Mapping[str, np.ndarray]) -> None:
    write_npz(path, arrays, permissions=_PERMISSIONS)


def _atomic_write_text(path: Path, text: str) -> None:
    with atomic_write(path, "w", permissions=_PERMISSIONS) as fh:
        fh.write(text)


def check_out_path(out: str | os.PathLike) -> Path:
    """Check the output path of a pool: a ``.npz`` file name."""
    if not isinstance(out, (str, os.PathLike)):
        raise GenexpyInputError(f"out must be a file path ending in .npz, got {out!r}.")
    p = Path(out).expanduser()
    if p.suffix != ".npz":
        raise GenexpyInputError(
            f"out must end in .npz (a compressed NumPy archive), got {str(out)!r}."
        )
    if p.exists() and p.is_dir():
        raise GenexpyInputError(f"out={str(out)!r} is a folder; give a file name ending in .npz.")
    return p


class PartialPool:
    """Per-model results of an unfinished pool, in the folder ``<out>.partial/``.

    Each finished model is written atomically to ``model_<i>.npz``, so a run that is
    interrupted (Ctrl-C, a killed job) loses at most the model in progress; the next run with
    the same configuration skips the models already there. ``config.json`` holds the
    configuration: a run with a different one refuses to mix results.
    """

    def __init__(self, out: Path, config: dict[str, Any]):
        self.out = out
        self.dir = out.with_name(out.name + ".partial")
        self.config = config

    def open(self) -> None:
        """Create the folder, or check that an existing one has the same configuration."""
        cfg_path = self.dir / "config.json"
        if cfg_path.is_file():
            old = read_partial_config(cfg_path)
            if _comparable(old) != _comparable(self.config):
                diff = sorted(
                    k for k in set(old) | set(self.config)
                    if k != "n_models" and old.get(k) != self.config.get(k)
                )
                raise GenexpyInputError(
                    f"{self.dir} holds an unfinished pool with another configuration "
                    f"(differs in {diff}). Resume it with the same arguments, or delete the "
                    "folder (or pass overwrite=True / --overwrite) to start again."
                )
        else:
            self.dir.mkdir(parents=True, exist_ok=True)
            _atomic_write_text(cfg_path, json.dumps(self.config, indent=1, sort_keys=True))

    def _file(self, i: int) -> Path:
        return self.dir / f"model_{i:05d}.npz"

    def done(self) -> set[int]:
        """Return the indices of the models already saved.

        A model file that cannot be read (damaged on disk: writes are atomic, so not by an
        interruption) is set aside as ``model_<i>.npz.damaged``, with a warning, and that
        model is trained again.
        """
        import warnings

        out = set()
        for p in self.dir.glob("model_*.npz"):
            try:
                i = int(p.stem.split("_")[1])
            except (IndexError, ValueError):
                continue
            try:
                with zipfile.ZipFile(p) as zf:
                    damaged = zf.testzip() is not None
            except (zipfile.BadZipFile, OSError, EOFError):
                damaged = True
            if damaged:
                p.replace(p.with_name(p.name + ".damaged"))
                warnings.warn(f"{p} of the unfinished pool is damaged; it was renamed "
                              f"{p.name}.damaged and model {i} is trained again.",
                              UserWarning, stacklevel=2)
                continue
            out.add(i)
        return out

    def save(self, i: int, record: Mapping[str, Any]) -> None:
        """Save the results of model ``i`` (atomic write)."""
        _atomic_savez(self._file(i), {k: np.asarray(v) for k, v in record.items()})

    def load(self, i: int) -> dict[str, np.ndarray]:
        """Read the saved results of model ``i``."""
        from .._io import read_npz

        return read_npz(self._file(i), "model file of the unfinished pool")

    def remove(self) -> None:
        """Delete the folder (after the pool file has been written)."""
        shutil.rmtree(self.dir, ignore_errors=True)


def _comparable(config: Mapping[str, Any]) -> dict[str, Any]:
    # the seeds of model i never depend on n_models: a pool can be resumed with a larger one
    return {k: v for k, v in config.items() if k != "n_models"}


@dataclass(frozen=True, eq=False)
class SeedPool:
    """A pool of M models trained on the same task, differing only in their seeds.

    Pools are read with :func:`load_pool` and written with :func:`save_pool`; the fields
    are the arrays of the file format (module docstring), all kept as attributes.

    Parameters
    ----------
    gaps : numpy.ndarray
        (M, T) float32 logit gaps on the T test points, unclipped.
    labels : numpy.ndarray
        (T,) int8 test labels in {0, 1}.
    test_index : numpy.ndarray
        (T,) int32 row of each test point in the source dataset.
    val_accuracy, test_accuracy : numpy.ndarray
        (M,) float32 accuracy of each model on the validation split and on the test set.
    val_accuracy_curve : numpy.ndarray
        (M, E) float32 validation accuracy after each of the E epochs.
    train_loss : numpy.ndarray
        (M,) float32 mean training cross-entropy of the last epoch.
    wall_time_s, cpu_time_s : numpy.ndarray
        (M,) float32 seconds (wall clock, CPU) to train and evaluate each model.
    init_seed, order_seed : numpy.ndarray
        (M,) uint64 seeds actually used (see :func:`pool_seeds`).
    meta : dict
        Configuration, task description, library versions, regeneration command, timings.
    name : str, default ""
        File name the pool was read from ('' for a pool built in memory).
    """

    gaps: np.ndarray
    labels: np.ndarray
    test_index: np.ndarray
    val_accuracy: np.ndarray
    test_accuracy: np.ndarray
    val_accuracy_curve: np.ndarray
    train_loss: np.ndarray
    wall_time_s: np.ndarray
    cpu_time_s: np.ndarray
    init_seed: np.ndarray
    order_seed: np.ndarray
    meta: dict[str, Any]
    name: str = ""

    n_models = axis_length("gaps", 0, "M, the number of models.")
    n_test = axis_length("gaps", 1, "T, the number of test points.")

    @property
    def source(self) -> str:
        """The source of randomness: 'init', 'order' or 'both'."""
        return str(self.meta.get("config", {}).get("source", ""))

    def models_frame(self) -> pl.DataFrame:
        """One row per model: index, seeds, accuracies, last training loss, wall time."""
        return pl.DataFrame({
            "model": np.arange(self.n_models, dtype=np.int32),
            "init_seed": self.init_seed,
            "order_seed": self.order_seed,
            "val_accuracy": self.val_accuracy.astype(np.float64),
            "test_accuracy": self.test_accuracy.astype(np.float64),
            "train_loss": self.train_loss.astype(np.float64),
            "wall_time_s": self.wall_time_s.astype(np.float64),
            "cpu_time_s": self.cpu_time_s.astype(np.float64),
        })

    def split(self, n_reference: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Split the gaps: the first ``n_reference`` models (reference) and the rest.

        The paper's convention (robust-KS paper Sec. V): the first half of the pool is the
        reference (default ``n_reference = M // 2``: 100 of 200, 45 of 90).

        Parameters
        ----------
        n_reference : int, optional
            Models in the reference; default half the pool (rounded down).

        Returns
        -------
        reference, candidates : numpy.ndarray
            The gaps of the first ``n_reference`` models and of the others.
        """
        n_ref = self.n_models // 2 if n_reference is None else check_positive_int(
            "n_reference", n_reference)
        if n_ref >= self.n_models:
            raise GenexpyInputError(
                f"n_reference={n_ref} leaves no candidates in a pool of {self.n_models} models."
            )
        return self.gaps[:n_ref], self.gaps[n_ref:]

    def to_arrays(self) -> dict[str, np.ndarray]:
        """Return the arrays of the file format (see the module docstring), ``meta`` as JSON.

        Returns
        -------
        dict of str to numpy.ndarray
            One entry per key of the file format.
        """
        out = {k: getattr(self, k) for k in PER_MODEL_KEYS}
        out["labels"] = self.labels
        out["test_index"] = self.test_index
        out["meta"] = np.array(json.dumps(self.meta, sort_keys=True))
        return out


def assemble_pool(
    records: list[Mapping[str, Any]], labels: np.ndarray, test_index: np.ndarray,
    meta: dict[str, Any], name: str = "",
) -> SeedPool:
    """Assemble a :class:`SeedPool` from per-model records (dicts with the per-model keys)."""
    arrays = {
        k: np.stack([np.asarray(r[k]) for r in records]).astype(_DTYPES[k], copy=False)
        for k in PER_MODEL_KEYS
    }
    return SeedPool(
        labels=np.asarray(labels, dtype=np.int8), test_index=np.asarray(test_index, np.int32),
        meta=meta, name=name, **arrays,
    )


def save_pool(pool: SeedPool, path: str | os.PathLike) -> Path:
    """Write a pool as a compressed ``.npz`` (atomic: a crash never leaves half a file).

    Parameters
    ----------
    pool : SeedPool
        The pool to write.
    path : str or os.PathLike
        The file to write (ending in ``.npz``); its folder is created if needed.

    Returns
    -------
    pathlib.Path
        The path written.
    """
    p = check_out_path(path)
    _atomic_savez(p, pool.to_arrays())
    return p


def load_pool(path_or_name: str | os.PathLike) -> SeedPool:
    """Read a pool file: a path, or the name of a file shipped in the repository's ``data/``.

    Parameters
    ----------
    path_or_name : str or os.PathLike
        A pool file written by :func:`save_pool` (or by the training commands), or the name
        of a shipped one such as ``"cnn_digits_both.npz"``.

    Returns
    -------
    SeedPool
        The pool, its arrays and shapes checked; ``name`` is the file's name.

    Examples
    --------
    >>> pool = load_pool("cnn_digits_both.npz")           # doctest: +SKIP
    >>> pool.gaps.shape                                    # doctest: +SKIP
    (200, 897)
    """
    from .._io import read_npz

    p = Path(path_or_name).expanduser()
    if not p.exists() and not p.is_symlink():
        from ..io.public import shipped_path

        p = shipped_path(str(path_or_name))
    arrays = read_npz(p, "pool file")
    missing = [k for k in (*PER_MODEL_KEYS, "labels", "test_index", "meta") if k not in arrays]
    if missing:
        raise GenexpyInputError(f"{p} is not a genexpy_nb pool file: missing {missing}.")
    meta = read_meta(arrays.pop("meta"), f"pool file {p}")
    _check_meta_types(meta, f"pool file {p}")
    _check_pool_shapes(arrays, p)
    return SeedPool(
        labels=arrays.pop("labels"), test_index=arrays.pop("test_index"), meta=meta,
        name=p.name, **{k: arrays[k] for k in PER_MODEL_KEYS},
    )


#: the manifest's fields of a pool's meta and the JSON types each may have (null: absent)
_META_TYPES: dict[str, tuple[type, ...]] = {
    "kind": (str,), "description": (str,), "command": (str,), "created": (str,),
    "extra_seconds": (int, float), "task": (dict,), "config": (dict,), "versions": (dict,),
}
_CONFIG_TYPES: dict[str, tuple[type, ...]] = {"source": (str,), "epochs": (int,),
                                              "seed": (int,)}
_JSON_NAMES = {str: "a string", int: "a whole number", float: "a number", dict: "an object"}


def _check_meta_types(meta: Mapping[str, Any], what: str) -> None:
    """Refuse a meta whose manifest fields have the wrong JSON types (naming the field)."""
    def check(key: str, value: Any, types: tuple[type, ...]) -> None:
        if value is None:
            return
        ok = isinstance(value, types) and not isinstance(value, bool)
        if ok and isinstance(value, float) and not np.isfinite(value):
            ok = False
        if not ok:
            want = " or ".join(_JSON_NAMES[t] for t in types)
            raise GenexpyInputError(
                f"{what}: 'meta' field {key!r} must be {want} (or absent), got "
                f"{type(value).__name__} {str(value)[:60]!r}; the file is damaged or not a "
                "pool written by genexpy_nb.")

    for key, types in _META_TYPES.items():
        check(key, meta.get(key), types)
    for key, types in _CONFIG_TYPES.items():
        check(f"config.{key}", (meta.get("config") or {}).get(key), types)


def _check_pool_shapes(arrays: Mapping[str, np.ndarray], p: Path) -> None:
    """Gaps (M, T) of numbers; labels and test_index (T,); every per-model array M rows."""
    g = arrays["gaps"]
    if g.ndim != 2 or g.dtype.kind not in "fiu":
        raise GenexpyInputError(
            f"pool file {p}: 'gaps' must be a 2-d array of numbers (models x test points), "
            f"got shape {g.shape} and dtype {g.dtype}.")
    M, T = g.shape
    if M == 0 or T == 0:
        raise GenexpyInputError(
            f"pool file {p}: 'gaps' holds {M} models x {T} test points; a pool needs at least "
            "one model and one test point (train the pool again, or give another file).")
    for k in ("labels", "test_index"):
        a = arrays[k]
        if a.shape != (T,) or a.dtype.kind not in "iub":
            raise GenexpyInputError(f"pool file {p}: {k!r} must hold {T} integers (one per "
                                    f"test point), got shape {a.shape} and dtype {a.dtype}.")
    for k in PER_MODEL_KEYS:
        a = arrays[k]
        if a.ndim < 1 or a.shape[0] != M or a.dtype.kind not in "fiu":
            raise GenexpyInputError(f"pool file {p}: {k!r} must have one row per model "
                                    f"({M}), got shape {a.shape} and dtype {a.dtype}.")


# ---- manifest -------------------------------------------------------------------------


def _sha256(path: Path) -> str:
    from .._io import file_sha256  # pooch.file_hash: one hashing helper

    return file_sha256(path)


def _summary(pool: SeedPool, path: Path) -> dict[str, Any]:
    acc = pool.test_accuracy.astype(np.float64)
    vacc = pool.val_accuracy.astype(np.float64)
    m = pool.meta
    return {
        "file": path.name,
        "bytes": path.stat().st_size,
        "sha256": _sha256(path),
        "kind": m.get("kind"),
        "description": m.get("description"),
        "source_of_randomness": m.get("config", {}).get("source"),
        "n_models": pool.n_models,
        "n_test": pool.n_test,
        "epochs": m.get("config", {}).get("epochs"),
        "seed": m.get("config", {}).get("seed"),
        "test_accuracy": {"mean": round(acc.mean(), 4), "min": round(acc.min(), 4),
                          "max": round(acc.max(), 4)},
        "val_accuracy": {"mean": round(vacc.mean(), 4), "min": round(vacc.min(), 4),
                         "max": round(vacc.max(), 4)},
        "training_seconds": round(float(pool.wall_time_s.astype(np.float64).sum()), 1),
        "training_cpu_seconds": round(float(pool.cpu_time_s.astype(np.float64).sum()), 1),
        "extra_seconds": m.get("extra_seconds"),
        "command": m.get("command"),
        "task": m.get("task"),
        "config": m.get("config"),
        "versions": m.get("versions"),
        "created": m.get("created"),
    }


_MD_HEAD = """# Data produced by genexpy_nb itself

Pools of models trained by `genexpy_nb.seedpools` (robust-KS paper, Section V, at small scale on
scikit-learn's 8x8 handwritten digits: real images, bundled with scikit-learn, no download).
Each `.npz` is a compressed NumPy archive; read it with
`genexpy_nb.seedpools.load_pool(name)` or plain `np.load(path)` (the key `meta` holds the
full configuration as JSON). `POOLS.json` holds the same information as this file, machine
readable. This file is regenerated by the training commands (and by
`python -m genexpy_nb.seedpools.manifest data`). To regenerate every pool, run
`bash scripts/train_data.sh` from the repository root with `genexpy_nb[train]` installed
(each command below regenerates one file; an interrupted command continues where it stopped
when run again).

Keys of a pool file: `gaps` (models x test points, float32, logit of class 1 minus logit of
class 0, not clipped), `labels` (test labels 0/1), `test_index` (row in `load_digits()`),
`val_accuracy`, `test_accuracy`, `val_accuracy_curve` (after each epoch), `train_loss`,
`wall_time_s`, `cpu_time_s`, `init_seed`, `order_seed`, `meta`.

Sources of randomness: `init` = only the initial weights vary (every model sees the batches in
the same order), `order` = only the batch order varies (every model starts from the same
weights), `both` = both vary. Seeds are derived from the pool seed with NumPy's `SeedSequence`
(see `genexpy_nb.seedpools.pools.pool_seeds`); with the same seed the three pools are paired
(model i of `both` has the initial weights of model i of `init` and the batch order of model i
of `order`). Training is single-threaded on CPU (`torch.set_num_threads(1)`), which makes it
bit-for-bit reproducible on the same machine and library versions. Another CPU or library
version changes the last bits of the arithmetic, and training amplifies them: rerunning
the recorded command there gives models of the same kind, not the same models (between
two of this project's machines, logit gaps of retrained models differed by up to 0.14).
The `platform` line of each file says where it was trained.
"""


#: text shown as a Markdown code span as it is: no backtick, pipe, markup or control
_PLAIN_CODE = re.compile(r"[\w./:=+, -]*")


def _code(value: Any) -> str:
    """Return a field of a pool's meta as a code span when it is plain, else escaped."""
    text = str(value)
    return f"`{text}`" if _PLAIN_CODE.fullmatch(text) else markdown_text(text)


def write_manifest(folder: str | os.PathLike) -> tuple[Path, Path]:
    """Rewrite ``POOLS.json`` and ``POOLS.md`` for every pool file in ``folder``.

    Files of ``folder`` that are not pool files are skipped, and so are hidden files (a name
    starting with ``.``): the temporary ``.NAME.XXXX.tmp.npz`` of a write that a crash left
    behind is never listed as a pool, even when it holds a complete one.

    Parameters
    ----------
    folder : str or os.PathLike
        The folder of the pools (an existing folder).

    Returns
    -------
    json_path, md_path : pathlib.Path
        The two files written.
    """
    folder = Path(folder).expanduser()
    if not folder.is_dir():
        raise GenexpyInputError(f"folder {str(folder)!r} does not exist.")
    entries = []
    for p in sorted(folder.glob("*.npz")):
        if p.name.startswith("."):
            continue
        try:
            pool = load_pool(p)
        except GenexpyInputError:
            continue
        entries.append(_summary(pool, p))
    total = round(sum(e["training_seconds"] + (e["extra_seconds"] or 0) for e in entries), 1)
    total_cpu = round(sum(e["training_cpu_seconds"] for e in entries), 1)
    manifest = {"format": POOL_FORMAT, "total_training_seconds": total,
                "total_training_cpu_seconds_models": total_cpu, "files": entries}
    jpath = folder / "POOLS.json"
    _atomic_write_text(jpath, json.dumps(manifest, indent=1, sort_keys=False) + "\n")

    md = markdown_text  # every field of a pool's meta is data: escaped for Markdown
    lines = [_MD_HEAD, "## Files\n",
             "| file | kind | source | models | test points | epochs | test accuracy "
             "mean [min, max] | training time | size |",
             "|---|---|---|---|---|---|---|---|---|"]
    for e in entries:
        a = e["test_accuracy"]
        secs = e["training_seconds"] + (e["extra_seconds"] or 0)
        lines.append(
            f"| {_code(e['file'])} | {md(e['kind'])} | {md(e['source_of_randomness'])} | "
            f"{e['n_models']} | {e['n_test']} | {md(e['epochs'])} | "
            f"{a['mean']:.4f} [{a['min']:.4f}, {a['max']:.4f}] "
            f"| {secs / 60:.1f} min | {e['bytes'] / 1e6:.2f} MB |"
        )
    lines.append(
        f"\nTotal training time: {total / 60:.1f} min wall clock on one thread "
        f"({total_cpu / 60:.1f} min of CPU time for the models; the machine was shared, so "
        "wall time exceeds CPU time).\n"
    )
    for e in entries:
        cfg = e["config"] or {}
        v = e["versions"] or {}
        lines += [
            f"### {_code(e['file'])}\n",
            f"{md(e['description'])}\n",
            f"- regenerate: {_code(e['command'])}",
            f"- task: {md(json.dumps(e['task'], sort_keys=True))}",
            f"- configuration: {md(json.dumps(cfg, sort_keys=True))}",
            f"- validation accuracy mean [min, max]: {e['val_accuracy']['mean']:.4f} "
            f"[{e['val_accuracy']['min']:.4f}, {e['val_accuracy']['max']:.4f}]",
            f"- wall time: {e['training_seconds']:.1f} s for the models "
            f"({e['training_cpu_seconds']:.1f} s CPU)"
            + (f" + {e['extra_seconds']:.1f} s (backbone, features)" if e["extra_seconds"]
               else ""),
            f"- versions: {md(', '.join(f'{k} {val}' for k, val in v.items()))}",
            f"- created: {md(e['created'])}; sha256 `{e['sha256']}`\n",
        ]
    mpath = folder / "POOLS.md"
    _atomic_write_text(mpath, "\n".join(lines))
    return jpath, mpath


def main(argv: list[str] | None = None) -> int:
    """``python -m genexpy_nb.seedpools.manifest FOLDER``: rewrite the manifest of FOLDER."""
    import argparse

    ap = argparse.ArgumentParser(prog="python -m genexpy_nb.seedpools.manifest",
                                 description=main.__doc__)
    ap.add_argument("folder", nargs="?", default="data")
    args = ap.parse_args(argv)
    try:
        j, m = write_manifest(args.folder)
    except GenexpyInputError as exc:
        print(f"error: {terminal_text(exc)}", file=sys.stderr)
        return 2
    print(terminal_text(f"wrote {j} and {m}"))
    return 0
