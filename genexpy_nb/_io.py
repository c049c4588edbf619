"""Atomic output: every file the package writes appears complete or not at all.

A file is written to a temporary name in the same folder, flushed to disk, then renamed
over the target (``os.replace``, atomic on POSIX and Windows within one file system). A
folder is built under a hidden temporary sibling name and renamed into place at the end.
An interrupted write (an exception, Ctrl-C, a killed process) therefore never leaves a
half-written file or a complete-looking folder under the target name; at most a hidden
temporary (``.NAME.*.tmp`` file, ``.NAME.partial-*`` folder) that a crash could not clean.

- :func:`atomic_write` - a context manager yielding an open file handle;
- :func:`atomic_path` - a context manager yielding a temporary *path*, for writers that
  want a file name (vl-convert, NumPy, ...);
- :func:`atomic_dir` - a context manager yielding a temporary folder that becomes ``path``;
- :func:`write_npz` - arrays to an ``.npz`` archive (``np.savez_compressed``), atomically;
- :func:`write_frame` - a polars frame to ``.parquet``, ``.csv``, ``.tsv`` or ``.json``,
  chosen by the suffix, atomically; :func:`check_frame_path` checks such a path upfront;
- :func:`check_input_file` - a file to read exists, is a regular file (not a folder, a
  device, a pipe or a symlink loop) and is not larger than the reader accepts;
  :func:`read_input_bytes` reads it, an error of the system (permission, a disk gone)
  turned into a clear error naming the file; :func:`check_input_files` bounds a folder's
  files, their number and their total size, before any is read;
- :class:`SkippedRecordsWarning` and :func:`skipped_frame` - what a reader of eval logs
  skipped, file by file and line by line, said as a warning and returned as a frame;
- :func:`read_npz` - the arrays of an ``.npz`` archive, every member's declared shape
  checked against its size, the memory and the compression ratio before it is read;
- :func:`file_sha256` - the SHA-256 of a file's bytes (pooch's ``file_hash``), the one
  hashing of files read (public data files, weights files, pools in a manifest);
- :func:`js_engine_problem` - why vl-convert's JavaScript engine (SVG, PNG, PDF, the
  inlined Vega bundle) cannot start in this process, or None;
- :func:`check_not_input` - no output replaces an input: refuses an output file that is one
  of the inputs (after resolving links) and an output folder that holds one.
"""

from __future__ import annotations

import contextlib
import functools
import math
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from ._validation import GenexpyInputError, size_text

__all__ = [
    "ExportSkippedWarning",
    "SkippedRecordsWarning",
    "FRAME_SUFFIXES",
    "MARKER",
    "atomic_dir",
    "atomic_path",
    "atomic_write",
    "check_frame_path",
    "check_input_file",
    "check_input_files",
    "check_not_input",
    "check_output_dir",
    "file_sha256",
    "js_engine_problem",
    "make_parent",
    "read_input_bytes",
    "read_npz",
    "skipped_frame",
    "write_frame",
    "write_npz",
]

#: suffixes :func:`write_frame` understands
FRAME_SUFFIXES: tuple[str, ...] = (".parquet", ".csv", ".tsv", ".json")

#: file that :func:`atomic_dir` puts in every folder it completes; a folder holding it was
#: written by genexpy_nb and may be replaced by a later run
MARKER = ".genexpy_nb_output"


@functools.cache
def _umask() -> int:
    # read once: os.umask can only be read by setting it, which is not thread-safe
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _fsync_dir(folder: Path) -> None:
    """Make a rename durable (POSIX); a no-op where folders cannot be opened (Windows)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike, *, permissions: int | None = None) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; rename it to ``path`` if the block succeeds.

    The temporary name keeps the suffix of ``path`` (writers that infer the format from
    the suffix still work). The parent folder is created if needed. On any exception
    (KeyboardInterrupt included) the temporary file is removed and ``path`` is untouched.
    The file gets ``permissions`` (default ``0o666`` less the umask, as ``open`` makes it).

    Examples
    --------
    >>> import numpy as np, tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     target = pathlib.Path(folder) / "x.npy"
    ...     with atomic_path(target) as tmp:
    ...         np.save(tmp, np.arange(3))
    ...     np.load(target).tolist()
    [0, 1, 2]
    """
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{p.stem}.", suffix=f".tmp{p.suffix}",
                                    dir=p.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        yield tmp
        # the writer may have replaced the file; flush what is there to disk
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        # mkstemp makes 0600 files; outputs are shared
        os.chmod(tmp, 0o666 & ~_umask() if permissions is None else permissions)
        os.replace(tmp, p)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync_dir(p.parent)


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike, mode: str = "wb", *, permissions: int | None = None,
                 **open_kwargs: Any) -> Iterator[IO]:
    """Open a temporary file for writing; it replaces ``path`` when the block succeeds.

    On any exception inside the block the temporary file is removed and ``path`` keeps its
    previous content (or stays absent).

    Parameters
    ----------
    path : str or os.PathLike
        The file to write (its folder is created if needed).
    mode : {"wb", "w"}, default "wb"
        Binary, or text (``encoding`` then defaults to UTF-8).
    permissions : int, optional, keyword-only
        The file's permissions (default ``0o666`` less the umask).
    **open_kwargs
        Passed to ``open`` (``encoding``, ``newline``, ...).

    Yields
    ------
    file object
        The open temporary file to write into.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     target = pathlib.Path(folder) / "notes.txt"
    ...     with atomic_write(target, "w") as fh:
    ...         _ = fh.write("complete or absent")
    ...     target.read_text()
    'complete or absent'
    """
    if mode not in ("w", "wb", "wt"):
        raise GenexpyInputError(f"atomic_write: mode must be 'w' or 'wb', got {mode!r}.")
    if "b" not in mode:
        open_kwargs.setdefault("encoding", "utf-8")
    with atomic_path(path, permissions=permissions) as tmp, open(tmp, mode, **open_kwargs) as fh:
        yield fh
        fh.flush()


def write_npz(path: str | os.PathLike, arrays: Any, *, permissions: int | None = None) -> None:
    """Write arrays to a compressed ``.npz`` archive (``np.savez_compressed``) atomically.

    Parameters
    ----------
    path : str or os.PathLike
        The file to write (its folder is created if needed).
    arrays : mapping of str to array-like
        The arrays by member name.
    permissions : int, optional, keyword-only
        The file's permissions (default ``0o666`` less the umask).
    """
    import numpy as np

    with atomic_write(path, "wb", permissions=permissions) as fh:
        np.savez_compressed(fh, **arrays)


def make_parent(folder: Path, what: str) -> None:
    """Create ``folder`` (and its parents) for ``what``; a clear error when impossible."""
    for anc in (folder, *folder.parents):
        if anc.exists():
            if not anc.is_dir():
                raise GenexpyInputError(f"cannot create {what}: {str(anc)!r} is a file, not a "
                                        "folder.")
            break
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise GenexpyInputError(f"cannot create the folder {str(folder)!r} for {what} "
                                f"({exc.strerror or exc}).") from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise GenexpyInputError(f"cannot write {what} in {str(folder)!r} (permission denied).")


def check_output_dir(path: str | os.PathLike, *, replace: bool = True) -> Path:
    """Check upfront that :func:`atomic_dir` can write the folder ``path``.

    Raises :class:`GenexpyInputError` when ``path`` is a file, when it is an existing folder
    that genexpy_nb did not write (no :data:`MARKER` inside, and not empty), when it exists
    and ``replace`` is False, or when its parent cannot be created or written to.
    """
    p = Path(path).expanduser()
    if p.exists() or p.is_symlink():
        if not p.is_dir():
            raise GenexpyInputError(f"output folder {str(path)!r} exists and is not a folder; "
                                    "choose another name.")
        if not replace:
            raise GenexpyInputError(f"output folder {str(path)!r} already exists; choose "
                                    "another name or delete it.")
        if not (p / MARKER).is_file() and any(p.iterdir()):
            raise GenexpyInputError(
                f"output folder {str(path)!r} exists and holds files genexpy_nb did not "
                "write; it is never overwritten. Choose a new folder name.")
        extra = _files_not_ours(p)
        if extra:
            raise GenexpyInputError(
                f"output folder {str(path)!r} was written by genexpy_nb, but {len(extra)} "
                f"file(s) in it were not (e.g. {extra[0]!r}); replacing the folder would "
                "delete them, so it is left as it is. Move those files elsewhere, or choose "
                "a new folder name.")
    parent = p.absolute().parent
    make_parent(parent, f"the output folder {str(path)!r}")
    return p


#: the line of the marker after which the files genexpy_nb wrote are listed
_FILES_LINE = "files written:"


def _relative_files(folder: Path) -> list[str]:
    """Every file under ``folder`` (links included), as paths relative to it."""
    return sorted(q.relative_to(folder).as_posix() for q in folder.rglob("*")
                  if q.is_file() or q.is_symlink())


def _files_not_ours(folder: Path) -> list[str]:
    """Files in an output folder that its marker does not list (a user's own files).

    A marker without a list (written by an older version) lists nothing to check.
    """
    try:
        lines = (folder / MARKER).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return []
    if _FILES_LINE not in lines:
        return []
    ours = set(lines[lines.index(_FILES_LINE) + 1:]) | {MARKER}
    return [f for f in _relative_files(folder) if f not in ours]


def _owner() -> str:
    """``host.pid`` of this process, in the names of temporary folders."""
    import socket

    host = "".join(c for c in socket.gethostname() if c.isalnum() or c == "_")[:40]
    return f"{host or 'host'}.{os.getpid()}"


def _remove_orphans(p: Path) -> None:
    """Delete the temporary folders of ``p`` left by a process of this host that died.

    A process killed while it built the folder (SIGKILL, the out-of-memory killer, an abort
    in a native library) cannot clean up after itself; its ``.NAME.partial-HOST.PID-*``
    folder is removed by the next run, once that process no longer exists. Folders of
    running processes, and of other hosts (a shared file system), are left alone.
    """
    import socket

    host = "".join(c for c in socket.gethostname() if c.isalnum() or c == "_")[:40]
    for kind in ("partial", "old"):
        for sib in p.parent.glob(f".{p.name}.{kind}-{host}.*-*"):
            try:
                pid = int(sib.name[len(f".{p.name}.{kind}-{host}."):].split("-", 1)[0])
            except ValueError:
                continue
            if pid == os.getpid() or not sib.is_dir():
                continue
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                shutil.rmtree(sib, ignore_errors=True)
            except (PermissionError, OSError):
                continue  # alive (another user's) or unknown: leave it


@contextlib.contextmanager
def atomic_dir(path: str | os.PathLike, *, replace: bool = True) -> Iterator[Path]:
    """Build a folder under a hidden temporary sibling name; rename it to ``path`` at the end.

    Yields the temporary folder: write every file into it. When the block succeeds, a
    marker file (``MARKER``) is added and the folder is renamed to ``path``; on any
    exception (KeyboardInterrupt included) it is deleted, and ``path`` is untouched.

    If ``path`` already exists:

    - ``replace=True`` (default): it is replaced, but only if genexpy_nb wrote it (it holds
      the marker) or it is empty - a folder of the user's own files is never deleted
      (:class:`GenexpyInputError`, checked before anything is written); nor is a folder
      genexpy_nb wrote in which the user has put files of their own (the marker lists the
      files written). The old folder
      stays intact until the new one is complete; the swap is two renames, so a crash in
      between leaves no folder at ``path`` (and the old one under ``.NAME.old-*``).
    - ``replace=False``: :class:`GenexpyInputError`.

    Parameters
    ----------
    path : str or os.PathLike
        The folder to create (its parent must exist).
    replace : bool, default True, keyword-only
        Whether an existing folder that genexpy_nb wrote (or an empty one) may be replaced.

    Yields
    ------
    pathlib.Path
        The temporary folder to write the files into.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as parent:
    ...     target = pathlib.Path(parent) / "results"
    ...     with atomic_dir(target) as tmp:
    ...         _ = (tmp / "a.txt").write_text("x")
    ...     sorted(p.name for p in target.iterdir())
    ['.genexpy_nb_output', 'a.txt']
    """
    p = check_output_dir(path, replace=replace).absolute()
    _remove_orphans(p)
    tmp = Path(tempfile.mkdtemp(prefix=f".{p.name}.partial-{_owner()}-", dir=p.parent))
    try:
        yield tmp
        files = _relative_files(tmp)
        (tmp / MARKER).write_text(
            "Written by genexpy_nb; a later run may replace this folder (not when it holds "
            f"files that are not listed here).\n{_FILES_LINE}\n" + "".join(
                f"{f}\n" for f in files), encoding="utf-8")
        os.chmod(tmp, 0o777 & ~_umask())  # mkdtemp makes 0700 folders
        old = None
        if p.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{p.name}.old-{_owner()}-", dir=p.parent))
            os.replace(p, old / p.name)
        os.replace(tmp, p)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
    _fsync_dir(p.parent)


def check_frame_path(path: str | os.PathLike, option: str = "--out") -> Path:
    """Check that ``path`` names a table file :func:`write_frame` can write (by suffix)."""
    p = Path(path).expanduser()
    if p.is_dir():
        raise GenexpyInputError(f"{option} {str(path)!r} is a folder; give a file name.")
    if p.suffix.lower() not in FRAME_SUFFIXES:
        raise GenexpyInputError(
            f"{option} {str(path)!r}: unsupported file type {p.suffix or '(none)'!r}; use a "
            f"name ending in {', '.join(FRAME_SUFFIXES)}.")
    return p


def save_targets(path: Any, formats: tuple[str, ...], refusal: str
                 ) -> tuple[bool, list[Path], list[str]]:
    """Return (whether ``path`` is a list, the paths, their formats) of a figure's save.

    A suffix not in ``formats`` is refused: ``refusal.format(suffix=...)`` says why.
    """
    many = not isinstance(path, (str, Path))
    paths = [Path(p) for p in (path if many else [path])]
    fmts = [p.suffix.lower().lstrip(".") for p in paths]
    for p, fmt in zip(paths, fmts):
        if fmt not in formats:
            raise GenexpyInputError(refusal.format(suffix=repr(p.suffix)))
    return many, paths, fmts


def write_frame(df, path: str | os.PathLike) -> Path:
    """Write a polars frame atomically; the format follows the suffix of ``path``.

    ``.parquet`` (typed, compact), ``.csv`` / ``.tsv`` (comma / tab separated, header row)
    or ``.json`` (a list of row objects). Returns the path written.

    In CSV/TSV, text cells that a spreadsheet would run as a formula (starting with
    ``= + - @``) get a leading apostrophe (``genexpy_nb._escape.csv_safe``), and
    nested columns (lists, structs), which CSV cannot hold, are written as JSON text.

    Parameters
    ----------
    df : polars.DataFrame
        The table to write (not modified).
    path : str or path
        Where to write it; the suffix chooses the format.

    Returns
    -------
    pathlib.Path
        The path written.
    """
    import polars as pl

    from ._escape import csv_safe, json_text

    p = check_frame_path(path, "path")
    if not isinstance(df, pl.DataFrame):
        raise GenexpyInputError(f"write_frame: expected a polars DataFrame, got "
                                f"{type(df).__name__}.")
    suffix = p.suffix.lower()
    if suffix in (".csv", ".tsv"):
        df = csv_safe(_nested_as_json(df))
    with atomic_write(p, "wb") as fh:
        if suffix == ".parquet":
            df.write_parquet(fh)
        elif suffix in (".csv", ".tsv"):
            df.write_csv(fh, separator="\t" if suffix == ".tsv" else ",")
        else:
            fh.write(json_text(df.write_json()).encode("utf-8"))
    return p


def _nested_as_json(df):
    """Write lists, arrays and structs as JSON text (``[1, 2]``, ``{"a": 1}``), for CSV."""
    import polars as pl

    nested = [c for c, dt in df.schema.items() if dt.is_nested()]
    if not nested:
        return df
    return df.with_columns(
        pl.when(pl.col(c).is_null()).then(None).otherwise(
            pl.struct(pl.col(c).alias("v")).struct.json_encode()
            .str.strip_prefix('{"v":').str.strip_suffix("}")).alias(c) for c in nested)


def _resolved(path: str | os.PathLike) -> Path:
    """``path`` made absolute with its links resolved (as far as they exist)."""
    p = Path(path).expanduser()
    try:
        return p.resolve(strict=False)
    except (OSError, RuntimeError):  # a symlink loop: compare the path as written
        return p.absolute()


def _same_file(a: Path, b: Path) -> bool:
    if a == b:
        return True
    try:
        return os.path.samefile(a, b)  # hard links, bind mounts, case-insensitive names
    except OSError:
        return False


def check_not_input(out: str | os.PathLike, inputs: Any, option: str = "--out", *,
                    folder: bool = False) -> None:
    r"""Refuse an output that would replace or delete one of the ``inputs``.

    ``out`` is an output file (``folder=False``) or an output folder (``folder=True``).
    Raises :class:`GenexpyInputError`, naming ``option``, when ``out`` is one of the
    ``inputs`` (the same file after resolving symbolic links, or a hard link to it), or -
    for a folder, which a write replaces as a whole - when an input lies inside it.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = tempfile.TemporaryDirectory()
    >>> d = pathlib.Path(folder.name); _ = (d / "r.csv").write_text("a\n1\n")
    >>> check_not_input(d / "out.csv", [d / "r.csv"])            # fine
    >>> check_not_input(d / "r.csv", [d / "r.csv"])               # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    genexpy_nb._validation.GenexpyInputError: --out ... is the input file ...
    >>> folder.cleanup()
    """
    if isinstance(inputs, (str, os.PathLike)):
        inputs = [inputs]
    target = _resolved(out)
    for inp in inputs:
        if inp is None:
            continue
        src = _resolved(inp)
        # the input as named (a link inside the folder is deleted with it) and its target
        named = _resolved(Path(inp).expanduser().parent) / Path(inp).name
        if _same_file(target, src) or _same_file(target, named):
            raise GenexpyInputError(
                f"{option} {str(out)!r} is the input file {str(inp)!r}: writing it would "
                "destroy the input. Choose another output name.")
        if folder and (target in src.parents or target in named.parents):
            raise GenexpyInputError(
                f"{option} {str(out)!r} holds the input file {str(inp)!r}: the output folder "
                "is replaced as a whole, which would delete the input. Choose another output "
                "folder, or move the input out of it.")


def check_input_file(path: str | os.PathLike, what: str = "file", *,
                     max_bytes: int | None = None) -> Path:
    """Check, before anything reads it, that ``path`` is a regular file of bounded size.

    Raises :class:`GenexpyInputError` naming ``what`` and the path when it does not exist,
    is a folder (``x.csv/``), a symbolic link that loops or points nowhere, a device or a
    pipe (reading ``/dev/zero`` or a FIFO would never end), cannot be read, or is larger
    than ``max_bytes``. Returns the path (``~`` expanded).
    """
    import errno
    import stat

    p = Path(path).expanduser()
    try:
        st = p.stat()
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise GenexpyInputError(f"{what} {str(path)!r} is a symbolic link that loops back "
                                    "on itself; point it at the real file.") from None
        if p.is_symlink():
            raise GenexpyInputError(f"{what} {str(path)!r} is a symbolic link to a file that "
                                    "does not exist; fix the link or give the file.") from None
        if exc.errno == errno.ENOENT:
            raise GenexpyInputError(f"{what} {str(path)!r} not found.") from None
        raise GenexpyInputError(f"cannot open the {what} {str(path)!r} "
                                f"({exc.strerror or exc}).") from None
    if stat.S_ISDIR(st.st_mode):
        raise GenexpyInputError(f"{what} {str(path)!r} is a folder, not a file; give the "
                                "path of the file itself.")
    if not stat.S_ISREG(st.st_mode):
        raise GenexpyInputError(f"{what} {str(path)!r} is not a regular file (a device, a "
                                "pipe or a socket); copy the data to a file first.")
    if not os.access(p, os.R_OK):
        raise GenexpyInputError(f"cannot read the {what} {str(path)!r} (permission denied).")
    if max_bytes is not None and st.st_size > max_bytes:
        raise GenexpyInputError(
            f"{what} {str(path)!r} holds {size_text(st.st_size)}, more than the "
            f"{size_text(max_bytes)} this reader accepts; is it the right file?")
    return p


def read_input_bytes(path: str | os.PathLike, what: str = "file") -> bytes:
    """Return the bytes of a file checked by :func:`check_input_file`.

    An error of the system while reading (permission denied although the check passed, as
    on some network file systems or for a file changed meanwhile; a disk gone) becomes a
    :class:`GenexpyInputError` naming ``what`` and the path, never a traceback.
    """
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise GenexpyInputError(f"cannot read the {what} {str(path)!r} "
                                f"({exc.strerror or type(exc).__name__}); check that it "
                                "exists and that you may read it.") from None


def check_input_files(files: list[Path], path: str | os.PathLike, what: str, *,
                      max_file_bytes: int, max_bytes: int, max_files: int,
                      memory_per_byte: float = 4.0, option: str = "max_bytes") -> list[Path]:
    """Check a folder's files before any is read: their number, each size, the total.

    Each file goes through :func:`check_input_file` (at most ``max_file_bytes``); there may
    be at most ``max_files`` of them, holding at most ``max_bytes`` in all; and reading them
    must fit in the memory available (``memory_per_byte`` bytes of memory per byte of file,
    the reader's own estimate). Raises :class:`GenexpyInputError` naming the limit and the
    option (``option``) that raises it.

    Returns
    -------
    list of Path
        The files, checked.
    """
    from ._validation import MEMORY_SHARE, available_memory

    if len(files) > max_files:
        raise GenexpyInputError(f"{len(files):,} files under {str(path)!r}, more than the "
                                f"{max_files:,} this reader accepts; give a smaller folder.")
    checked = [check_input_file(f, what, max_bytes=max_file_bytes) for f in files]
    total = 0
    for f in checked:
        try:
            total += f.stat().st_size
        except OSError:  # gone meanwhile: reading it says so
            pass
    if total > max_bytes:
        raise GenexpyInputError(
            f"the {len(files):,} {what}(s) under {str(path)!r} hold {size_text(total)} in "
            f"all, more than the {size_text(max_bytes)} this reader reads at once; pass "
            f"{option}={_round_up(total)} to read them all, or give a smaller folder.")
    need = total * memory_per_byte
    if need > 64 * 2**20:
        avail = available_memory()
        if need > MEMORY_SHARE * avail:
            raise GenexpyInputError(
                f"reading the {len(files):,} {what}(s) under {str(path)!r} "
                f"({size_text(total)}) needs about {size_text(need)} of memory, and "
                f"{size_text(avail)} is available; read the folder in parts (one sub-folder "
                "at a time) and concatenate the frames.")
    return checked


def _round_up(n: int) -> str:
    """Write a byte count rounded up to two significant digits as Python source (``2_000_000``)."""
    digits = max(len(str(int(n))) - 2, 0)
    up = -(-int(n) // 10 ** digits) * 10 ** digits
    return f"{up:_}"


class SkippedRecordsWarning(UserWarning):
    """A reader of eval logs skipped records: how many, and the first few by file and line.

    Parameters
    ----------
    message : str
        What was read and skipped, the first records by file and line.
    skipped : polars.DataFrame, optional
        Every skipped record (``file``, ``line``, ``item``, ``reason``): the frame the
        reader returns with ``return_dropped=True``; the attribute ``skipped``.
    """

    def __init__(self, message: str, skipped: Any = None) -> None:
        super().__init__(message)
        self.skipped = skipped


#: the columns of a reader's report of what it skipped
SKIPPED_SCHEMA = {"file": "String", "line": "Int64", "item": "String", "reason": "String"}


def skipped_frame(rows: list[tuple]) -> Any:
    """Return the frame of skipped records.

    Its columns: ``file``, ``line`` (null: the whole file, or a format not read by line),
    ``item`` (what was skipped, when known) and ``reason``.
    """
    import polars as pl

    schema = {k: getattr(pl, v) for k, v in SKIPPED_SCHEMA.items()}
    return pl.DataFrame(rows, schema=schema, orient="row")


def warn_skipped(path: str | os.PathLike, n_read: int, rows: list[tuple], *,
                 stacklevel: int = 3) -> Any:
    """Say, as a :class:`SkippedRecordsWarning`, what a reader skipped; return the frame.

    Nothing is said when nothing was skipped.
    """
    import warnings
    from collections import Counter

    frame = skipped_frame(rows)
    if rows:
        first = "; ".join(
            Path(str(f)).name + (f" line {ln}" if ln is not None else "")
            + (f" ({str(item)[:60]})" if item is not None and ln is None else "")
            + f": {why}" for f, ln, item, why in rows[:3])
        kinds = Counter(why for *_, why in rows)
        more = "" if len(rows) <= 3 else (
            "; in all: " + "; ".join(f"{n} × {why}" for why, n in kinds.most_common(3)))
        warnings.warn(SkippedRecordsWarning(
            f"read {n_read:,} result(s) from {str(path)!r} and skipped {len(rows):,} "
            f"record(s): {first}{more}. return_dropped=True returns them all, with file "
            "and line.", frame), stacklevel=stacklevel)
    return frame


#: largest .npz file :func:`read_npz` opens by default (the shipped pools hold ~1 MB)
NPZ_MAX_BYTES = 4 * 2**30
#: a member that inflates more than this many times, to more than NPZ_BOMB_MIN_BYTES, is
#: refused as a compression bomb (real arrays of floats compress 1-10x)
NPZ_MAX_RATIO = 200
NPZ_BOMB_MIN_BYTES = 64 * 2**20


def _check_npz_head(p: Path, what: str, name: str) -> None:
    """Refuse an empty file, a lone ``.npy`` array and a file that is not a zip archive."""
    with open(p, "rb") as fh:
        head = fh.read(6)
    if not head:
        raise GenexpyInputError(f"{what} {name!r} is an empty file.")
    if head == b"\x93NUMPY":
        raise GenexpyInputError(
            f"{what} {name!r} is a single NumPy array (.npy) named .npz; save the arrays with "
            "np.savez(path, name=array, ...) instead.")
    if not head.startswith(b"PK"):
        raise GenexpyInputError(f"{what} {name!r} is not an .npz archive (a zip of NumPy "
                                "arrays, written by np.savez); is it the right file?")


def _npz_member_header(zf: Any, info: Any, key: str,
                       bad: Callable[[str], GenexpyInputError]) -> tuple[Any, bool, Any, int]:
    """Read the shape, Fortran order, dtype and header length of one ``.npy`` member."""
    from numpy.lib import format as npy

    with zf.open(info) as fp:
        try:
            version = npy.read_magic(fp)
            reader = {(1, 0): npy.read_array_header_1_0,
                      (2, 0): npy.read_array_header_2_0}.get(version)
            if reader is None:
                raise ValueError(f"unsupported .npy format version {version}")
            shape, fortran, dtype = reader(fp)
        except (ValueError, SyntaxError, TypeError) as exc:
            raise bad(f"member {key!r} is not a NumPy array ({exc})") from None
        return shape, fortran, dtype, fp.tell()


def _checked_npz_members(zf: Any, keys: Any, bad: Callable[[str], GenexpyInputError]
                         ) -> tuple[dict[str, tuple[Any, bool]], int]:
    """Check the members to read before any array is allocated.

    Each member's compression, inflation ratio and ``.npy`` header are checked, that it
    holds no pickled objects and that its declared size equals its stored size. Returns the
    members (``{key: (info, fortran)}``) and the bytes their arrays declare in all.
    """
    import zipfile

    members = {}
    for info in zf.infolist():
        key = info.filename[:-4] if info.filename.endswith(".npy") else info.filename
        if keys is None or key in keys:
            members[key] = info
    total = 0
    shapes = {}
    for key, info in members.items():
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise bad(f"member {key!r} uses an unsupported compression")
        if (info.file_size > NPZ_BOMB_MIN_BYTES
                and info.file_size > NPZ_MAX_RATIO * max(info.compress_size, 1)):
            raise bad(f"member {key!r} inflates from {size_text(info.compress_size)} "
                      f"to {size_text(info.file_size)} (more than {NPZ_MAX_RATIO} "
                      "times: a compression bomb, not arrays of results)")
        shape, fortran, dtype, header = _npz_member_header(zf, info, key, bad)
        if dtype.hasobject:
            raise bad(f"member {key!r} holds Python objects (a pickle), which are "
                      "never loaded")
        declared = math.prod(shape) * dtype.itemsize
        if declared + header != info.file_size:
            raise bad(f"member {key!r} declares shape {shape} ({size_text(declared)}) "
                      f"but holds {size_text(max(info.file_size - header, 0))}")
        total += declared
        shapes[key] = (info, fortran)
    return shapes, total


def read_npz(path: str | os.PathLike, what: str = "file", *,
             keys: Any = None, max_bytes: int = NPZ_MAX_BYTES) -> dict[str, Any]:
    """Read the arrays of an ``.npz`` archive (``np.savez``) within bounds.

    Before any array is allocated, every member is checked: it is a ``.npy`` array of a
    plain dtype (no pickled objects), its declared shape times its item size equals the
    bytes the archive says it holds, it does not inflate more than
    :data:`NPZ_MAX_RATIO` times (to more than 64 MB), and all members together fit in the
    available memory. A ``.npy`` file renamed ``.npz``, a truncated or damaged archive, a
    folder or a symlink loop are refused with a :class:`GenexpyInputError` that names
    ``what`` and the path.

    Parameters
    ----------
    path : str or os.PathLike
        The ``.npz`` file.
    what : str
        What the file is, for the messages (e.g. ``"results file"``).
    keys : collection of str, optional
        Read only these members (the others are not checked); default: all of them.
    max_bytes : int
        The largest file size accepted, in bytes (default :data:`NPZ_MAX_BYTES`).

    Returns
    -------
    dict of str to numpy.ndarray
        The arrays by member name (without the ``.npy`` suffix).
    """
    import zipfile

    from numpy.lib import format as npy

    from ._validation import MEMORY_SHARE, available_memory

    p = check_input_file(path, what, max_bytes=max_bytes)
    name = str(path)
    _check_npz_head(p, what, name)

    def bad(msg: str) -> GenexpyInputError:
        return GenexpyInputError(f"{what} {name!r} is refused: {msg}.")

    try:
        with zipfile.ZipFile(p) as zf:
            shapes, total = _checked_npz_members(zf, keys, bad)
            avail = available_memory()
            if total > MEMORY_SHARE * avail:
                raise bad(f"its arrays need {size_text(total)} of memory, and "
                          f"{size_text(avail)} is available")
            out = {}
            for key, (info, _) in shapes.items():
                with zf.open(info) as fp:
                    out[key] = npy.read_array(fp, allow_pickle=False)
            return out
    except GenexpyInputError:
        raise
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError,
            KeyError, NotImplementedError) as exc:
        raise GenexpyInputError(
            f"{what} {name!r} could not be read as an .npz archive ({type(exc).__name__}: "
            f"{str(exc)[:200]}); is the file complete?") from None


class ExportSkippedWarning(UserWarning):
    """Some of the files asked for could not be written here (the reason is given).

    The others were. ``what``: the files concerned; ``reason``: why.
    """

    def __init__(self, what: str, reason: str) -> None:
        super().__init__(f"{what}: {reason}.")
        self.what, self.reason = what, reason


def file_sha256(path: str | os.PathLike) -> str:
    """Return the SHA-256 of a file's bytes, as lowercase hex.

    Parameters
    ----------
    path : str or os.PathLike
        The file, read in chunks (pooch's ``file_hash``).

    Returns
    -------
    str
        64 hexadecimal digits.
    """
    import pooch

    return pooch.file_hash(str(path), alg="sha256")


#: a tiny conversion that starts vl-convert's JavaScript engine (V8)
_PROBE = "import vl_convert as v; v.vegalite_to_vega({'mark': 'point'})"


@functools.cache
def js_engine_problem() -> str | None:
    """Why vl-convert's JavaScript engine cannot run in this process, or None if it can.

    vl-convert draws SVG, PNG and PDF and bundles the Vega JavaScript with a V8 engine that
    reserves about 100 GB of *address space* when it starts (not memory). Under an
    address-space limit (``ulimit -v``, as HPC login nodes set) V8 aborts the whole process
    with SIGTRAP - nothing Python can catch. So where such a limit is set, a tiny conversion
    is tried once in a child process (which inherits the limit; ~0.1-1 s) before this
    process ever starts the engine. Without a limit nothing is tried. The answer is cached.
    """
    try:
        import vl_convert  # noqa: F401
    except ImportError:
        return "vl-convert-python is not installed (pip install vl-convert-python)"
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
        if soft == resource.RLIM_INFINITY:
            return None
    except (ImportError, ValueError, OSError):  # pragma: no cover - Windows
        return None
    import subprocess
    import sys

    try:
        done = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True,
                              timeout=120, env={**os.environ, "PYTHONWARNINGS": "ignore"})
        if done.returncode == 0:
            return None
    except (OSError, subprocess.SubprocessError):
        pass
    return (f"vl-convert's JavaScript engine cannot start under this process's "
            f"address-space limit (ulimit -v {soft // 1024}; the engine reserves about "
            "100 GB of address space, not memory): raise or remove the limit "
            "(ulimit -v unlimited) to draw SVG, PNG and PDF")
