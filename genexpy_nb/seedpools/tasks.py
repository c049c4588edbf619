"""Binary classification tasks for the seed studies (no torch needed here).

* :func:`digits_binary_task` — the 8x8 handwritten digits bundled with scikit-learn (real
  images, no download), grouped into two classes; the task the shipped pools are trained on.
* :func:`digits_transfer_tasks` — one half of the digits as a 10-class *source* task (to
  pre-train a backbone), the other half as the binary *target* task.
* :func:`load_cifar10_binary` — the paper's dataset, read from the CIFAR-10 "python version"
  batch files in a local folder; :func:`download_cifar10` fetches them with pooch.

Every split is drawn from a NumPy Generator seeded by ``split_seed``; images are float32 in
[0, 1] with shape (N, C, H, W).
"""

from __future__ import annotations

import hashlib
import io
import math
import pickle
import pickletools
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .._validation import GenexpyInputError, check_positive_int, rng_from_seed
from ._torch import require_sklearn

#: the CIFAR-10 class names, in label order (used when ``batches.meta`` is absent)
CIFAR10_CLASSES: tuple[str, ...] = (
    "airplane", "automobile", "bird", "cat", "deer",
    "dog", "frog", "horse", "ship", "truck",
)
#: the paper's two super-groups of CIFAR-10 classes (class 1 vs class -1)
CIFAR10_PAPER_POSITIVE: tuple[str, ...] = ("airplane", "automobile", "ship", "truck")
CIFAR10_PAPER_NEGATIVE: tuple[str, ...] = ("bird", "dog", "frog", "horse")
#: the official archive (University of Toronto) and its published md5
CIFAR10_URL = "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz"
CIFAR10_MD5 = "c58f30108f718f92721af3b95e74349a"

#: the default binary task on the digits: 5-9 (class 1) against 0-4 (class 0)
DIGITS_POSITIVE: tuple[int, ...] = (5, 6, 7, 8, 9)
DIGITS_NEGATIVE: tuple[int, ...] = (0, 1, 2, 3, 4)


@dataclass(frozen=True, eq=False)
class BinaryTask:
    """A fixed train / validation / test split of a binary classification problem.

    The fields are kept as attributes; building a task checks that each part's inputs,
    labels and indices have as many rows, that the labels are 0/1, and that the training
    and test sets are not empty.

    Parameters
    ----------
    name : str
        Short identifier, e.g. ``"digits-5to9-vs-0to4"``.
    X_train, y_train : numpy.ndarray
        The training inputs and labels (see ``X_test``, ``y_test``).
    X_val, y_val : numpy.ndarray
        The validation inputs and labels (may be empty).
    X_test, y_test : numpy.ndarray
        The test inputs, float32, images of shape (N, C, H, W) or features (N, D); and
        labels in {0, 1}, int64, shape (N,). Class 1 is the *positive* group: the logit gap
        of a model is ``logit[1] - logit[0]``.
    index_train, index_val, index_test : numpy.ndarray
        Row of each example in the source dataset (for the digits: ``load_digits()`` order;
        for CIFAR-10: position in the concatenated training batches / in ``test_batch``).
    positive, negative : tuple of str
        The original classes merged into class 1 and class 0.
    info : dict, default {}
        JSON-serialisable description (dataset, sizes, split seed, ...), stored with a pool.
    """

    name: str
    X_train: np.ndarray
    y_train: np.ndarray
    X_val: np.ndarray
    y_val: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    index_train: np.ndarray
    index_val: np.ndarray
    index_test: np.ndarray
    positive: tuple[str, ...]
    negative: tuple[str, ...]
    info: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        """Check the sizes and labels of the three parts."""
        for part in ("train", "val", "test"):
            X = getattr(self, f"X_{part}")
            y = getattr(self, f"y_{part}")
            idx = getattr(self, f"index_{part}")
            if X.shape[0] != y.shape[0] or idx.shape[0] != y.shape[0]:
                raise GenexpyInputError(
                    f"BinaryTask {self.name!r}: X_{part}, y_{part} and index_{part} have "
                    f"{X.shape[0]}, {y.shape[0]} and {idx.shape[0]} rows; they must agree."
                )
            if y.size and not np.isin(y, (0, 1)).all():
                raise GenexpyInputError(f"BinaryTask {self.name!r}: y_{part} must be 0/1.")
        if self.y_train.size == 0 or self.y_test.size == 0:
            raise GenexpyInputError(
                f"BinaryTask {self.name!r}: the training and test sets must not be empty."
            )

    @property
    def input_shape(self) -> tuple[int, ...]:
        """Shape of one input, e.g. (1, 8, 8) for the digits."""
        return tuple(self.X_train.shape[1:])

    def fingerprint(self) -> str:
        """sha256 of every array of the split: two tasks with the same fingerprint are equal."""
        h = hashlib.sha256()
        for part in ("train", "val", "test"):
            for arr in (
                getattr(self, f"X_{part}"), getattr(self, f"y_{part}"),
                getattr(self, f"index_{part}"),
            ):
                a = np.ascontiguousarray(arr)
                h.update(str((a.dtype.str, a.shape)).encode())
                h.update(a.tobytes())
        return h.hexdigest()

    def describe(self) -> dict[str, Any]:
        """JSON-serialisable summary: name, classes, sizes, fingerprint and ``info``."""
        return {
            "name": self.name,
            "positive (label 1)": list(self.positive),
            "negative (label 0)": list(self.negative),
            "n_train": int(self.y_train.size),
            "n_val": int(self.y_val.size),
            "n_test": int(self.y_test.size),
            "share_positive_test": round(float(self.y_test.mean()), 4),
            "input_shape": list(self.input_shape),
            "fingerprint": self.fingerprint(),
            **self.info,
        }


def _split_sizes(
    n_avail: int, n_train: int | None, n_val: int, n_test: int | None, what: str
) -> tuple[int, int, int]:
    n_val = check_positive_int("n_val", n_val, minimum=0)
    if n_train is not None:
        n_train = check_positive_int("n_train", n_train)
    if n_test is not None:
        n_test = check_positive_int("n_test", n_test)
    fixed = n_val + (n_train or 0) + (n_test or 0)
    if fixed > n_avail or (n_train is None and n_test is None and fixed >= n_avail):
        raise GenexpyInputError(
            f"n_train + n_val + n_test = {fixed} exceeds the {n_avail} examples of {what}; "
            "ask for fewer (leave n_test=None to use all that remain)."
        )
    if n_train is None:
        n_train = n_avail - fixed if n_test is not None else (n_avail - n_val) // 2
    if n_test is None:
        n_test = n_avail - n_train - n_val
    if n_test < 1:
        raise GenexpyInputError(
            f"no examples of {what} remain for the test set (n_train={n_train}, n_val={n_val}); "
            "lower n_train or n_val."
        )
    return n_train, n_val, n_test


def _digit_groups(
    positive: Sequence[int], negative: Sequence[int] | None
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    try:
        pos = tuple(sorted({int(d) for d in positive}))
        neg = (
            tuple(d for d in range(10) if d not in pos)
            if negative is None
            else tuple(sorted({int(d) for d in negative}))
        )
    except (TypeError, ValueError):
        raise GenexpyInputError(
            f"positive/negative must be lists of digits 0-9, got {positive!r} / {negative!r}."
        ) from None
    bad = [d for d in pos + neg if not 0 <= d <= 9]
    if bad or not pos or not neg or set(pos) & set(neg):
        raise GenexpyInputError(
            f"positive={list(pos)} and negative={list(neg)} must be non-empty, disjoint groups "
            "of digits 0-9, e.g. positive=(5, 6, 7, 8, 9), negative=(0, 1, 2, 3, 4)."
        )
    return pos, neg


def _load_digits_arrays() -> tuple[np.ndarray, np.ndarray]:
    datasets = require_sklearn("the digits tasks")
    d = datasets.load_digits()
    X = (np.asarray(d.images, dtype=np.float32) / np.float32(16.0))[:, None, :, :]
    return np.ascontiguousarray(X), np.asarray(d.target, dtype=np.int64)


def _group_name(groups: tuple[int, ...]) -> str:
    if len(groups) > 2 and groups == tuple(range(groups[0], groups[-1] + 1)):
        return f"{groups[0]}to{groups[-1]}"
    return "".join(map(str, groups))


def _make_task(
    name: str, X: np.ndarray, ybin: np.ndarray, rows: np.ndarray, sizes: tuple[int, int, int],
    rng: np.random.Generator, positive: tuple[str, ...], negative: tuple[str, ...],
    info: dict[str, Any],
) -> BinaryTask:
    n_train, n_val, n_test = sizes
    perm = rows[rng.permutation(rows.size)]
    tr = np.sort(perm[:n_train])
    va = np.sort(perm[n_train:n_train + n_val])
    te = np.sort(perm[n_train + n_val:n_train + n_val + n_test])
    return BinaryTask(
        name=name,
        X_train=X[tr], y_train=ybin[tr], X_val=X[va], y_val=ybin[va],
        X_test=X[te], y_test=ybin[te],
        index_train=tr.astype(np.int32), index_val=va.astype(np.int32),
        index_test=te.astype(np.int32),
        positive=positive, negative=negative, info=info,
    )


def digits_binary_task(
    positive: Sequence[int] = DIGITS_POSITIVE,
    negative: Sequence[int] | None = DIGITS_NEGATIVE,
    *,
    n_train: int | None = 600,
    n_val: int = 300,
    n_test: int | None = None,
    split_seed: int = 0,
) -> BinaryTask:
    """Build a binary task on the 8x8 handwritten digits of scikit-learn (1,797 real images).

    Parameters
    ----------
    positive, negative
        Digits merged into class 1 and class 0 (``negative=None``: all other digits). The
        default, 5-9 against 0-4, is an arbitrary grouping like the paper's CIFAR-10 super
        groups: a small CNN reaches about 97% test accuracy and two seeds disagree on about 2%
        of the test points, so pools of models differ.
    n_train, n_val, n_test
        Sizes of the three disjoint parts (``n_test=None``: every remaining image; with both
        ``n_train`` and ``n_test`` None the rest is halved).
    split_seed
        Seed of the split (the split is the same for every model of a pool).

    Returns
    -------
    BinaryTask
        Images (N, 1, 8, 8) float32 in [0, 1] (pixel value / 16), labels 0/1.
    """
    pos, neg = _digit_groups(positive, negative)
    rng = rng_from_seed(split_seed)
    X, y = _load_digits_arrays()
    rows = np.flatnonzero(np.isin(y, pos + neg))
    sizes = _split_sizes(rows.size, n_train, n_val, n_test, "the chosen digits")
    ybin = np.isin(y, pos).astype(np.int64)
    name = f"digits-{_group_name(pos)}-vs-{_group_name(neg)}"
    info = {
        "dataset": "sklearn.datasets.load_digits (UCI optical recognition of handwritten "
        "digits, 8x8, 1797 images)",
        "split_seed": int(split_seed),
        "preprocessing": "pixel / 16, float32",
    }
    return _make_task(
        name, X, ybin, rows, sizes, rng, tuple(map(str, pos)), tuple(map(str, neg)), info,
    )


@dataclass(frozen=True, eq=False)
class SourceTask:
    """A multi-class task used to pre-train a backbone (train and held-out parts).

    Parameters
    ----------
    name : str
        Short identifier, e.g. ``"digits-10class"``.
    X_train, y_train : numpy.ndarray
        Training inputs (float32, images (N, C, H, W)) and integer class labels (N,).
    X_val, y_val : numpy.ndarray
        Held-out inputs and labels, to report the backbone's accuracy (may be empty).
    n_classes : int
        The number of classes.
    info : dict, default {}
        JSON-serialisable description (rows used, sizes, ...), stored with the backbone.
    """

    name: str
    X_train: np.ndarray
    y_train: np.ndarray
    X_val: np.ndarray
    y_val: np.ndarray
    n_classes: int
    info: dict[str, Any] = field(default_factory=dict)


def digits_transfer_tasks(
    positive: Sequence[int] = DIGITS_POSITIVE,
    negative: Sequence[int] | None = DIGITS_NEGATIVE,
    *,
    source_fraction: float = 0.5,
    source_val: int = 100,
    n_train: int | None = 450,
    n_val: int = 150,
    n_test: int | None = None,
    split_seed: int = 0,
) -> tuple[SourceTask, BinaryTask]:
    """Source and target tasks for the transfer-learning study, on disjoint halves of the digits.

    The source task is the 10-class digit problem on ``source_fraction`` of the images
    (``source_val`` of them held out to report the backbone's accuracy); the target task is the
    binary grouping (as :func:`digits_binary_task`) on the other images.

    Parameters
    ----------
    positive, negative : sequence of int
        Digits merged into class 1 and class 0 of the target task (``negative=None``: all
        other digits); default 5-9 against 0-4.
    source_fraction : float, default 0.5
        Share of all images given to the source task, in (0, 1).
    source_val : int, default 100
        Source images held out to report the backbone's accuracy.
    n_train, n_val, n_test : int or None
        Sizes of the target task's three disjoint parts, as in :func:`digits_binary_task`
        (``n_test=None``: every remaining image of the chosen digits).
    split_seed : int, default 0
        Seed of the permutation that splits the images.

    Returns
    -------
    source : SourceTask
        The 10-class task to pre-train a backbone on.
    target : BinaryTask
        The binary task on the images the source task does not use.
    """
    pos, neg = _digit_groups(positive, negative)
    try:
        frac = float(source_fraction)
    except (TypeError, ValueError):
        frac = float("nan")
    if not 0.0 < frac < 1.0:
        raise GenexpyInputError(f"source_fraction must lie in (0, 1), got {source_fraction!r}.")
    source_val = check_positive_int("source_val", source_val, minimum=0)
    rng = rng_from_seed(split_seed)
    X, y = _load_digits_arrays()
    perm = rng.permutation(y.size)
    n_source = int(round(frac * y.size))
    src = perm[:n_source]
    if source_val >= n_source:
        raise GenexpyInputError(
            f"source_val={source_val} leaves no training images in the source half "
            f"({n_source} images); lower it."
        )
    src_tr, src_va = np.sort(src[source_val:]), np.sort(src[:source_val])
    source = SourceTask(
        name="digits-10class",
        X_train=X[src_tr], y_train=y[src_tr], X_val=X[src_va], y_val=y[src_va], n_classes=10,
        info={"rows": "first part of a permutation of load_digits() by split_seed",
              "n_train": int(src_tr.size), "n_val": int(src_va.size)},
    )
    rest = np.sort(perm[n_source:])
    rows = rest[np.isin(y[rest], pos + neg)]
    sizes = _split_sizes(rows.size, n_train, n_val, n_test, "the target half of the digits")
    ybin = np.isin(y, pos).astype(np.int64)
    info = {
        "dataset": "sklearn.datasets.load_digits, the half not used to pre-train the backbone",
        "split_seed": int(split_seed),
        "source_fraction": frac,
        "preprocessing": "pixel / 16, float32",
    }
    target = _make_task(
        f"digits-{_group_name(pos)}-vs-{_group_name(neg)}-target", X, ybin, rows, sizes, rng,
        tuple(map(str, pos)), tuple(map(str, neg)), info,
    )
    return source, target


# ---- CIFAR-10 -------------------------------------------------------------------------


#: md5 of each file of the official archive, as published with torchvision's CIFAR10 dataset
CIFAR10_FILE_MD5: dict[str, str] = {
    "data_batch_1": "c99cafc152244af753f735de768cd75f",
    "data_batch_2": "d4bba439e000b95fd0a9bffe97cbabec",
    "data_batch_3": "54ebc095f3ab1f0389bbae665268c751",
    "data_batch_4": "634d18415352ddfa80567beed471001a",
    "data_batch_5": "482c414d41f54cd18b22e5b47cb7c3cb",
    "test_batch": "40351d587109b95175f43aff81a1287e",
    "batches.meta": "5ff9c542aee3614f3951f8cda6e48888",
}

# Plain numeric dtypes a CIFAR batch may hold; anything else (objects, records) is refused.
_SAFE_DTYPES = frozenset(
    f"{kind}{size}" for kind, sizes in (("u", (1, 2, 4, 8)), ("i", (1, 2, 4, 8)),
                                        ("f", (4, 8)), ("b", (1,))) for size in sizes
)


class _DtypeStub:
    """Stands in for ``numpy.dtype`` while unpickling: records the type code, builds nothing."""

    def __init__(self, code: Any = None, *_args: Any) -> None:
        self.code = code.decode("ascii", "replace") if isinstance(code, bytes) else str(code)
        self.order = "|"

    def __setstate__(self, state: Any) -> None:
        if isinstance(state, tuple) and len(state) > 1:
            o = state[1]
            self.order = o.decode("ascii", "replace") if isinstance(o, bytes) else str(o)

    def to_dtype(self) -> np.dtype:
        code = self.code.lstrip("<>|=")
        if code not in _SAFE_DTYPES or self.order not in ("<", ">", "|", "="):
            raise pickle.UnpicklingError(f"array dtype {self.code!r} is not a plain number type")
        return np.dtype((self.order if self.order != "|" else "") + code)


class _ArrayStub:
    """Stands in for ``numpy.ndarray`` while unpickling; ``array`` is built from raw bytes only."""

    array: np.ndarray | None = None

    def __setstate__(self, state: Any) -> None:
        # ndarray's pickled state: (version, shape, dtype, is_fortran, raw bytes)
        if not (isinstance(state, tuple) and len(state) == 5):
            raise pickle.UnpicklingError("unexpected array state")
        _, shape, dt, fortran, raw = state
        self.array = _array_from_bytes(raw, dt, shape, "F" if fortran else "C")


def _array_from_bytes(raw: Any, dt: Any, shape: Any, order: Any) -> np.ndarray:
    if not isinstance(dt, _DtypeStub) or not isinstance(raw, (bytes, bytearray)):
        raise pickle.UnpicklingError("array without a plain dtype and raw bytes")
    if not (isinstance(shape, tuple) and all(isinstance(n, int) and n >= 0 for n in shape)):
        raise pickle.UnpicklingError(f"bad array shape {shape!r}")
    order = order.decode() if isinstance(order, bytes) else order
    dtype = dt.to_dtype()
    # math.prod: exact (np.prod wraps around for declared shapes such as (2**32, 2**32))
    if math.prod(shape) * dtype.itemsize != len(raw):
        raise pickle.UnpicklingError(
            f"array bytes ({len(raw)}) do not match its declared shape {shape}")
    flat = np.frombuffer(bytes(raw), dtype=dtype)
    return flat.reshape(shape, order="F" if order == "F" else "C").copy()


def _reconstruct_stub(subtype: Any, *_args: Any) -> _ArrayStub:
    if subtype is not _ArrayStub:
        raise pickle.UnpicklingError("only plain numpy arrays are accepted")
    return _ArrayStub()


def _frombuffer_stub(buf: Any, dt: Any, shape: Any, order: Any) -> _ArrayStub:
    out = _ArrayStub()
    out.array = _array_from_bytes(buf, dt, shape, order)
    return out


def _latin1_bytes(text: Any, encoding: Any = "latin1") -> bytes:
    # Python 3 writes bytes at pickle protocol 2 as _codecs.encode(str, "latin1")
    if not isinstance(text, str) or encoding not in ("latin1", "latin-1"):
        raise pickle.UnpicklingError("_codecs.encode is only accepted for latin1 text")
    return text.encode("latin1")


class _DataOnlyUnpickler(pickle.Unpickler):
    """Unpickles dicts, lists, bytes, numbers and plain numeric numpy arrays; nothing else.

    ``find_class`` resolves no real object: the few numpy names an array's pickle mentions
    map to inert stand-ins that rebuild the array from its raw bytes with ``np.frombuffer``,
    and every other name (``os.system``, ``builtins.eval``, ...) is refused. Unpickling a
    file therefore never runs code from it, whoever wrote it.
    """

    _ALLOWED = {
        ("numpy", "ndarray"): _ArrayStub,
        ("numpy", "dtype"): _DtypeStub,
        ("numpy.core.multiarray", "_reconstruct"): _reconstruct_stub,
        ("numpy._core.multiarray", "_reconstruct"): _reconstruct_stub,
        ("numpy.core.numeric", "_frombuffer"): _frombuffer_stub,
        ("numpy._core.numeric", "_frombuffer"): _frombuffer_stub,
        ("_codecs", "encode"): _latin1_bytes,
    }

    def find_class(self, module: str, name: str) -> Any:
        try:
            return self._ALLOWED[(module, name)]
        except KeyError:
            raise pickle.UnpicklingError(
                f"refusing to load {module}.{name}: a CIFAR-10 batch holds only dicts, lists, "
                "bytes, numbers and numeric arrays"
            ) from None


#: the largest pickle file read (the official CIFAR-10 batches hold 31 MB, CIFAR-100's
#: training file 158 MB)
MAX_PICKLE_BYTES = 512 * 2**20
#: deepest nesting of lists, tuples and dicts accepted (a batch needs 3)
MAX_PICKLE_DEPTH = 32


class _TooLarge(Exception):
    """The data would expand beyond what the file itself holds (a crafted file)."""


def _unstub(obj: Any, budget: list[int], depth: int = 0) -> Any:
    """Return the unpickled object with the stand-ins replaced by arrays, expanded as a tree.

    ``budget[0]`` counts down the nodes (containers, scalars, arrays) of the expanded tree.
    It starts at the file's size: a pickle that shares no references spends at least one
    byte per node, so only shared references (a list holding the same list ten times, ten
    levels deep: 10**10 values from a few hundred bytes) can exhaust it - and they are
    refused here, before anything as large is built.
    """
    budget[0] -= 1
    if budget[0] < 0:
        raise _TooLarge("its lists share references that expand to more values than the file "
                        "holds")
    if depth > MAX_PICKLE_DEPTH:
        raise _TooLarge(f"it nests lists or dicts more than {MAX_PICKLE_DEPTH} levels deep")
    if isinstance(obj, _ArrayStub):
        if obj.array is None:
            raise pickle.UnpicklingError("an array was never filled")
        return obj.array
    if isinstance(obj, _DtypeStub):
        raise pickle.UnpicklingError("a bare dtype is not expected in a CIFAR-10 batch")
    if isinstance(obj, dict):
        return {_unstub(k, budget, depth + 1): _unstub(v, budget, depth + 1)
                for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(_unstub(v, budget, depth + 1) for v in obj)
    return obj


def _check_opcodes(data: bytes) -> None:
    """Walk the pickle's opcodes without building anything (:mod:`pickletools`).

    Every declared length (a bytes object of 10**12 bytes in a file of 100) is checked
    against what remains of the file (a ``ValueError``) before the unpickler, which
    allocates a declared length before reading it, would see it.
    """
    for _ in pickletools.genops(io.BytesIO(data)):
        pass


def read_pickled_data(path: str | Path, what: str = "file") -> Any:
    """Read a pickle file that must hold only data, without running anything from it.

    Accepts dicts, lists, tuples, bytes, str, numbers and plain numeric numpy arrays (as in
    the CIFAR-10 "python version" batches); a file that names any other Python object (a
    function, a class: the way a malicious pickle runs code) is refused with
    :class:`~genexpy_nb.GenexpyInputError` before that object is imported or called.

    The size is bounded too: the file must be a regular file of at most
    :data:`MAX_PICKLE_BYTES`; declared lengths are checked against the bytes that remain
    before anything is allocated; and shared references or nesting that would expand the
    data beyond what the file holds (a few hundred bytes that unfold into 10**10 values)
    are refused, within milliseconds.
    """
    from .._io import check_input_file

    path = Path(path)
    check_input_file(path, what, max_bytes=MAX_PICKLE_BYTES)
    try:
        data = path.read_bytes()
        _check_opcodes(data)
        obj = _DataOnlyUnpickler(io.BytesIO(data), encoding="bytes").load()
        return _unstub(obj, [len(data) + 1024])
    except _TooLarge as exc:
        raise GenexpyInputError(
            f"{what} {path} is refused: {exc} (a crafted file, not a CIFAR-10 batch). Use the "
            "official CIFAR-10 'python version' files (genexpy_nb.seedpools.download_cifar10 "
            "checks their md5)."
        ) from None
    except pickle.UnpicklingError as exc:
        raise GenexpyInputError(
            f"{what} {path} is not a plain-data pickle ({exc}); refused without running it. "
            "Use the official CIFAR-10 'python version' files (genexpy_nb.seedpools."
            "download_cifar10 checks their md5)."
        ) from None
    except (OSError, EOFError, ValueError, TypeError, AttributeError, IndexError,
            KeyError, MemoryError, RecursionError) as exc:
        raise GenexpyInputError(
            f"could not read the {what} {path} ({type(exc).__name__}: {exc}); expected the "
            "CIFAR-10 'python version' files (data_batch_1..5, test_batch, batches.meta)."
        ) from None


def _md5(path: Path) -> str:
    h = hashlib.md5(usedforsecurity=False)
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _read_cifar_batch(path: Path) -> tuple[np.ndarray, np.ndarray]:
    d = read_pickled_data(path, "CIFAR-10 batch")
    if not isinstance(d, dict):
        raise GenexpyInputError(f"{path}: expected a pickled dict, got {type(d).__name__}.")
    data = d.get(b"data", d.get("data"))
    labels = d.get(b"labels", d.get("labels"))
    if data is None or labels is None:
        raise GenexpyInputError(
            f"{path}: the batch has no b'data' / b'labels' entries "
            f"(keys: {sorted(map(str, d))[:6]})."
        )
    try:
        data = np.asarray(data, dtype=np.uint8)
        labels = np.asarray(labels, dtype=np.int64)
    except (TypeError, ValueError, OverflowError) as exc:
        raise GenexpyInputError(
            f"{path}: b'data' must be uint8 pixels and b'labels' integers ({exc})."
        ) from None
    if data.ndim != 2 or data.shape[1] != 3072 or labels.ndim != 1 or data.shape[0] != labels.size:
        raise GenexpyInputError(
            f"{path}: b'data' must be uint8 of shape (N, 3072) with N labels, got "
            f"{data.shape} and {labels.size} labels."
        )
    if labels.size and (labels.min() < 0 or labels.max() > 9):
        raise GenexpyInputError(f"{path}: labels must lie in 0..9 (CIFAR-10 classes).")
    return data, labels


def _cifar_class_ids(
    names: Sequence[str], label_names: Sequence[str], what: str
) -> tuple[int, ...]:
    if isinstance(names, str):
        names = (names,)
    ids = []
    for n in names:
        if n not in label_names:
            raise GenexpyInputError(
                f"{what}: unknown CIFAR-10 class {n!r}; classes are {list(label_names)}."
            )
        ids.append(label_names.index(n))
    if not ids:
        raise GenexpyInputError(f"{what} must name at least one CIFAR-10 class.")
    return tuple(sorted(set(ids)))


def load_cifar10_binary(
    folder: str | Path,
    positive: Sequence[str] = CIFAR10_PAPER_POSITIVE,
    negative: Sequence[str] = CIFAR10_PAPER_NEGATIVE,
    *,
    n_train: int | None = None,
    n_val: int = 1000,
    n_test: int | None = None,
    split_seed: int = 0,
) -> BinaryTask:
    """Build a binary task from the CIFAR-10 "python version" batch files in ``folder``.

    Reads ``data_batch_1`` ... ``data_batch_5`` (those present; at least one) and
    ``test_batch``: pickled dicts with ``b'data'`` (uint8, N x 3072, the red, green and blue
    32x32 planes in row-major order) and ``b'labels'``. Class names come from
    ``batches.meta`` when present. ``folder`` may also be the parent of the archive's
    ``cifar-10-batches-py`` folder.

    Parameters
    ----------
    folder
        Local folder with the batch files (see :func:`download_cifar10`).
    positive, negative
        CIFAR-10 class names merged into class 1 and class 0. The default is the paper's task:
        airplane, automobile, ship, truck (1) against bird, dog, frog, horse (0). Cat vs dog:
        ``positive=("dog",), negative=("cat",)``.
    n_train, n_val
        Training and validation sizes, both drawn from the training batches
        (``n_train=None``: all that remain after the validation set).
    n_test
        Test size, drawn from ``test_batch`` (None: all test images of the chosen classes).
    split_seed
        Seed of the draws.

    Returns
    -------
    BinaryTask
        Images (N, 3, 32, 32) float32 in [0, 1]; ``index_test`` indexes ``test_batch``.
    """
    folder = Path(folder).expanduser()
    if (folder / "cifar-10-batches-py").is_dir():
        folder = folder / "cifar-10-batches-py"
    train_files = [folder / f"data_batch_{i}" for i in range(1, 6)]
    train_files = [p for p in train_files if p.is_file()]
    if not folder.is_dir() or not train_files or not (folder / "test_batch").is_file():
        raise GenexpyInputError(
            f"CIFAR-10 batch files not found in {str(folder)!r}: need data_batch_1 (..5) and "
            f"test_batch. Download {CIFAR10_URL} and extract it, or call "
            "genexpy_nb.seedpools.download_cifar10(folder)."
        )
    label_names = list(CIFAR10_CLASSES)
    meta = folder / "batches.meta"
    if meta.is_file():
        m = read_pickled_data(meta, "CIFAR-10 metadata file")
        raw = m.get(b"label_names", m.get("label_names")) if isinstance(m, dict) else None
        if raw:
            if not isinstance(raw, list) or len(raw) != 10:
                raise GenexpyInputError(
                    f"{meta}: label_names must be a list of the 10 class names; delete the "
                    "file to use the standard names."
                )
            label_names = [x.decode("utf-8", "replace") if isinstance(x, bytes) else str(x)
                           for x in raw]
    pos = _cifar_class_ids(positive, label_names, "positive")
    neg = _cifar_class_ids(negative, label_names, "negative")
    if set(pos) & set(neg):
        raise GenexpyInputError("positive and negative CIFAR-10 classes must be disjoint.")
    rng = rng_from_seed(split_seed)

    # read with the data-only unpickler whatever the files are; say whether they are the
    # published ones (a modified or hand-made folder is allowed, and recorded as such)
    official = all(_md5(p) == CIFAR10_FILE_MD5[p.name]
                   for p in (*train_files, folder / "test_batch"))
    parts = [_read_cifar_batch(p) for p in train_files]
    data_tr = np.concatenate([p[0] for p in parts])
    lab_tr = np.concatenate([p[1] for p in parts])
    data_te, lab_te = _read_cifar_batch(folder / "test_batch")

    rows_tr = np.flatnonzero(np.isin(lab_tr, pos + neg))
    rows_te = np.flatnonzero(np.isin(lab_te, pos + neg))
    if n_train is not None:
        n_train = check_positive_int("n_train", n_train)
    n_val = check_positive_int("n_val", n_val, minimum=0)
    if (n_train or 0) + n_val > rows_tr.size or (n_train is None and n_val >= rows_tr.size):
        raise GenexpyInputError(
            f"n_train + n_val = {(n_train or 0) + n_val} exceeds the {rows_tr.size} training "
            "images of the chosen classes; ask for fewer."
        )
    if n_train is None:
        n_train = rows_tr.size - n_val
    if n_test is None:
        n_test = rows_te.size
    n_test = check_positive_int("n_test", n_test)
    if n_test > rows_te.size:
        raise GenexpyInputError(
            f"n_test={n_test} exceeds the {rows_te.size} test images of the chosen classes."
        )
    perm = rows_tr[rng.permutation(rows_tr.size)]
    tr = np.sort(perm[:n_train])
    va = np.sort(perm[n_train:n_train + n_val])
    te = np.sort(rows_te[rng.permutation(rows_te.size)[:n_test]])

    def images(data: np.ndarray, idx: np.ndarray) -> np.ndarray:
        return (data[idx].reshape(-1, 3, 32, 32).astype(np.float32) / np.float32(255.0))

    pos_names = tuple(label_names[i] for i in pos)
    neg_names = tuple(label_names[i] for i in neg)
    return BinaryTask(
        name=f"cifar10-{'+'.join(pos_names)}-vs-{'+'.join(neg_names)}",
        X_train=images(data_tr, tr), y_train=np.isin(lab_tr[tr], pos).astype(np.int64),
        X_val=images(data_tr, va), y_val=np.isin(lab_tr[va], pos).astype(np.int64),
        X_test=images(data_te, te), y_test=np.isin(lab_te[te], pos).astype(np.int64),
        index_train=tr.astype(np.int32), index_val=va.astype(np.int32),
        index_test=te.astype(np.int32),
        positive=pos_names, negative=neg_names,
        info={"dataset": "CIFAR-10 (python version)", "folder": str(folder),
              "official_files_md5": official,
              "split_seed": int(split_seed), "preprocessing": "pixel / 255, float32"},
    )


def download_cifar10(folder: str | Path | None = None) -> Path:
    """Download and extract CIFAR-10 (python version, 163 MB) with pooch; return the folder.

    The archive is checked against its published md5. Without network this raises
    :class:`~genexpy_nb.GenexpyInputError` saying where to put the files by hand.

    Parameters
    ----------
    folder
        Where to keep the archive (default: pooch's cache folder for genexpy_nb).

    Returns
    -------
    pathlib.Path
        The ``cifar-10-batches-py`` folder, ready for :func:`load_cifar10_binary`.
    """
    import pooch

    path = Path(folder).expanduser() if folder is not None else Path(pooch.os_cache("genexpy_nb"))
    try:
        files = pooch.retrieve(
            url=CIFAR10_URL, known_hash=f"md5:{CIFAR10_MD5}", fname="cifar-10-python.tar.gz",
            path=path, processor=pooch.Untar(), progressbar=True,
        )
    except Exception as exc:  # network errors come in many types
        raise GenexpyInputError(
            f"could not download CIFAR-10 from {CIFAR10_URL} ({type(exc).__name__}: {exc}). "
            "Download and extract the archive elsewhere, then pass the folder holding "
            "data_batch_1..5 and test_batch to load_cifar10_binary."
        ) from exc
    batch = next(Path(f) for f in files if Path(f).name == "test_batch")
    return batch.parent
