"""Datasets: the public case-study results and the data the package ships itself.

The public results are downloaded once and hash-checked; the shipped data live in
``data/`` in the repository, ``genexpy_nb.shipped`` when installed.

Public files are fetched with pooch from pinned URLs and verified by sha256. When the
environment variable ``GENEXPY_NB_DATA_DIR`` is set, files are read from that folder and the
network is never touched (tests and CI set it to ``../shared/data``).

Give ``GENEXPY_NB_DATA_DIR`` as an absolute path. A relative one is resolved against the
current folder of the process that reads it, which inside a notebook kernel is the notebook's
folder, not the folder a command was started from; ``scripts/test.sh`` therefore makes it
absolute before anything runs, and the error raised when a file is missing names the folder
that was searched.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from .._io import file_sha256
from .._validation import GenexpyInputError

DATA_DIR_ENV = "GENEXPY_NB_DATA_DIR"
_BASE = (
    "https://raw.githubusercontent.com/DrCohomology/genexpy/"
    "5fccedcca860f0612116507e81bf41c1a7e81702/demos/case_studies/"
)


@dataclass(frozen=True)
class PublicFile:
    """A public results file: where it lives and how to check it."""

    name: str
    url: str
    sha256: str
    description: str


PUBLIC_FILES: dict[str, PublicFile] = {
    "encoders_results.parquet": PublicFile(
        "encoders_results.parquet",
        _BASE + "Categorical%20Encoders/data/encoders_results.parquet",
        "0fd630e6217ba94d0d60f87fad82ff496c3abb404b948f27d7f9bcfa89b1cf84",
        "Categorical-encoder benchmark (Matteucci et al., NeurIPS 2023)",
    ),
    "bigbench_results_prefiltered.parquet": PublicFile(
        "bigbench_results_prefiltered.parquet",
        _BASE + "BIG-bench/data/bigbench_results_prefiltered.parquet",
        "01003018d79571713499665315c35546378eab71500dba4302c93147f2e6397a",
        "BIG-bench results (Srivastava et al., TMLR 2023), preferred score per subtask",
    ),
}


class DatasetUnavailableError(GenexpyInputError):
    """A public data file could neither be found locally nor downloaded."""


def download_dir() -> Path:
    """Return the folder the public files are downloaded to (the user's cache folder).

    Returns
    -------
    pathlib.Path
        ``<user cache folder>/genexpy_nb`` (``~/.cache/genexpy_nb`` on Linux), where each
        file keeps its own name: once downloaded, the folder works as a
        ``GENEXPY_NB_DATA_DIR``.
    """
    import pooch

    return Path(pooch.os_cache("genexpy_nb"))


def fetch_public_data(progress: bool = True) -> Path:
    """Download every public file once (checked by sha256) and return their folder.

    A file already in the folder with the published sha256 is not downloaded again. With
    ``GENEXPY_NB_DATA_DIR`` set, nothing is downloaded: the files are checked there and that
    folder is returned.

    Parameters
    ----------
    progress : bool, default True
        Show a progress bar per file being downloaded (on stderr).

    Returns
    -------
    pathlib.Path
        The folder that holds every file of :data:`PUBLIC_FILES`.

    Raises
    ------
    DatasetUnavailableError
        When a file can neither be found nor downloaded (offline); the message names it.
    """
    paths = [fetch_public_file(name, progress=progress) for name in PUBLIC_FILES]
    return paths[0].parent


def fetch_public_file(name: str, progress: bool = False) -> Path:
    """Local path of a public data file: from ``$GENEXPY_NB_DATA_DIR``, else pooch's cache.

    Parameters
    ----------
    name : str
        A key of :data:`PUBLIC_FILES`.
    progress : bool, default False
        Show a progress bar while the file is downloaded.

    Returns
    -------
    pathlib.Path
        The file, checked against its published sha256.

    Raises
    ------
    DatasetUnavailableError
        When the file is not in ``$GENEXPY_NB_DATA_DIR`` (if set), or cannot be downloaded;
        the message names the file, the URL and the variable.
    """
    if name not in PUBLIC_FILES:
        raise GenexpyInputError(f"unknown data file {name!r}; known: {sorted(PUBLIC_FILES)}.")
    spec = PUBLIC_FILES[name]
    local = os.environ.get(DATA_DIR_ENV)
    if local:
        folder = Path(local).expanduser()
        path = folder.absolute() / name
        if folder.exists() and not folder.is_dir():
            raise DatasetUnavailableError(
                f"{DATA_DIR_ENV}={local!r} is a file, not a folder; set it to the folder that "
                f"holds {name}, or unset it to download the file.")
        if path.is_dir():
            raise DatasetUnavailableError(
                f"{path} is a folder, not the data file {name}; {DATA_DIR_ENV}={local!r} "
                "must be the folder that holds the file. Move or rename that folder and put "
                f"the file there (download it from {spec.url}).")
        if not path.is_file():
            where = "" if folder.is_absolute() else (
                f" (a relative path, resolved against the current folder {Path.cwd()}: "
                "give an absolute path)")
            raise DatasetUnavailableError(
                f"{name} not found in {DATA_DIR_ENV}={local!r}{where}. Put the file there "
                f"(download it from {spec.url}) or unset {DATA_DIR_ENV} to download it "
                "automatically."
            )
        try:
            digest = file_sha256(path)
        except OSError as exc:
            raise DatasetUnavailableError(
                f"{path} (in {DATA_DIR_ENV}) cannot be read ({exc.strerror or exc}); give "
                f"yourself read permission (chmod u+r {shlex.quote(str(path))}) or unset "
                f"{DATA_DIR_ENV} to download the file.") from None
        if digest != spec.sha256:
            raise DatasetUnavailableError(
                f"{path} has sha256 {digest}, expected {spec.sha256}: the file is not the "
                f"published one. Download it again from {spec.url}."
            )
        return path
    import pooch

    try:
        return Path(
            pooch.retrieve(
                url=spec.url,
                known_hash=f"sha256:{spec.sha256}",
                fname=name,
                path=download_dir(),
                # a network that drops packets fails within a minute instead of hanging
                downloader=pooch.HTTPDownloader(progressbar=progress, timeout=60),
            )
        )
    except Exception as exc:  # network errors come in many types (requests, OSError, ...)
        raise DatasetUnavailableError(
            f"could not download {name} from {spec.url} ({type(exc).__name__}: {exc}). "
            f"Without network, download the file elsewhere and set {DATA_DIR_ENV} to the "
            "folder that holds it."
        ) from exc


def load_encoders() -> pl.DataFrame:
    """Results of the categorical-encoder benchmark (61,812 rows).

    Columns ``dataset, model, scoring, tuning, encoder, cv_score, time``; ``cv_score`` is
    higher-is-better. Source: Matteucci et al. (NeurIPS 2023), via the genexpy repository.
    The file is read from ``GENEXPY_NB_DATA_DIR`` or downloaded once from its pinned source
    and checked by sha256.

    Returns
    -------
    polars.DataFrame
        One row per result: ``dataset, model, scoring, tuning`` (the experimental
        conditions), ``encoder`` (the alternative), ``cv_score`` (the cross-validated score,
        higher is better) and ``time`` (the run time the benchmark recorded; null for some
        runs).
    """
    return pl.read_parquet(fetch_public_file("encoders_results.parquet"))


def load_bigbench() -> pl.DataFrame:
    """BIG-bench results, preferred score per subtask (183,819 rows).

    Columns ``subtask_description, task_name, number_of_shots, model_family_model_name,
    score_value``; higher is better. Source: Srivastava et al. (TMLR 2023).
    The file is read from ``GENEXPY_NB_DATA_DIR`` or downloaded once from its pinned source
    and checked by sha256.

    Returns
    -------
    polars.DataFrame
        One row per result: ``subtask_description, task_name, number_of_shots`` (the
        conditions), ``model_family_model_name`` (the alternative) and ``score_value`` (the
        task's preferred score, higher is better).
    """
    return pl.read_parquet(fetch_public_file("bigbench_results_prefiltered.parquet"))


def shipped_path(name: str) -> Path:
    """Path of a file the package ships itself (repository ``data/``).

    Works for an installed package (``genexpy_nb.shipped``) and for a source checkout.
    """
    candidates = []
    try:
        from importlib.resources import files

        candidates.append(Path(str(files("genexpy_nb.shipped") / name)))
    except (ModuleNotFoundError, TypeError):
        pass
    candidates.append(Path(__file__).resolve().parents[2] / "data" / name)
    for c in candidates:
        if c.is_file():
            return c
    raise GenexpyInputError(
        f"shipped data file {name!r} not found (looked in {[str(c) for c in candidates]}). "
        "Reinstall genexpy_nb, or regenerate it (see data/MANIFEST.md)."
    )


#: suffixes :func:`read_results` reads
TABLE_SUFFIXES: tuple[str, ...] = (".parquet", ".csv", ".tsv")

#: text that marks a missing number in CSV files written by other tools (pandas' defaults,
#: R, spreadsheets); in a column whose other values are all numbers they become nulls
MISSING_MARKERS: tuple[str, ...] = (
    "", "NA", "N/A", "n/a", "na", "NaN", "nan", "NAN", "null", "NULL", "Null", "None", "none",
    "#N/A", "#NA", "#N/A N/A", "<NA>", "-", "?", "-nan", "-NaN", "missing",
)


def read_results(source, *, what: str = "results file",
                 keep_text: bool | Sequence[str] = True) -> pl.DataFrame:
    """Read a results table from a path (.parquet, .csv, .tsv) or a polars/pandas/arrow table.

    CSV/TSV files are read as UTF-8 with every column's type inferred from the *whole*
    file when its first rows would mislead (a score column holding 0 and 1 in its first
    rows and fractions later is a float column), and a column whose values are all numbers
    except missing-value markers (``n/a``, ``NA``, ``-``, ... see ``MISSING_MARKERS``)
    is read as numbers with those cells null - the analysis then reports them
    (``invalid_target``). Names keep the text the file has: a column whose numbers would
    merge different texts (alternatives ``1``, ``1.0`` and ``01``, which are all the number
    1) is read as text, with a :class:`~genexpy_nb.TextKeptWarning` naming it and the
    texts (cast it yourself when they are numbers); ``keep_text`` chooses the columns this
    applies to. Anything else that cannot be read - a missing, empty, truncated
    or binary file, a parquet file that is not one, a CSV that is not UTF-8 or has rows
    longer than its header, a header naming a column twice, a folder or a symbolic link
    that loops - raises
    :class:`~genexpy_nb.GenexpyInputError` naming the file (and the line or column) and the
    fix.

    Parameters
    ----------
    source : str, path, or a polars / pandas / pyarrow table
        A ``.parquet``, ``.csv`` or ``.tsv`` file, or a table already in memory (returned
        as a polars frame, the caller's object unchanged).
    what : str, default "results file"
        How the file is called in error messages.
    keep_text : bool or list of str, default True
        Which columns of a CSV/TSV file keep their text where reading them as numbers
        would merge different texts: every column (True), none (False: polars' numbers),
        or the columns named (the command line names the roles' columns, never the
        target).

    Returns
    -------
    polars.DataFrame
        The table, with at least one row.

    Examples
    --------
    >>> df = read_results("results.csv")  # doctest: +SKIP

    A table already in memory is checked and returned as a polars frame:

    >>> read_results(pl.DataFrame({"model": ["a", "b"], "acc": [0.9, 0.8]})).shape
    (2, 2)
    """
    from .._validation import to_polars

    if not isinstance(source, (str, os.PathLike)):
        return to_polars(source, "results")
    from .._io import check_input_file

    p = check_input_file(source, what)
    name = str(source)
    suffix = p.suffix.lower()
    if suffix not in TABLE_SUFFIXES:
        raise GenexpyInputError(f"{what} {name!r}: unsupported file type {suffix or '(none)'!r}"
                                f"; give a {', '.join(TABLE_SUFFIXES)} file.")
    if p.stat().st_size == 0:
        raise GenexpyInputError(f"{what} {name!r} is an empty file: the table is empty.")
    if not isinstance(keep_text, bool) and (
            isinstance(keep_text, str) or not all(isinstance(c, str) for c in keep_text)):
        raise GenexpyInputError(f"keep_text must be True, False or a list of column names, "
                                f"got {keep_text!r}.")
    try:
        df = _read_parquet(p, name, what) if suffix == ".parquet" else _read_delimited(
            p, name, what, "\t" if suffix == ".tsv" else ",", keep_text)
    except OSError as exc:  # permission refused although checked (network file systems)
        raise GenexpyInputError(f"cannot read the {what} {name!r} "
                                f"({exc.strerror or type(exc).__name__}); check that you may "
                                "read it.") from None
    if df.height == 0:
        raise GenexpyInputError(f"{what} {name!r}: the table is empty (columns "
                                f"{df.columns[:8]} but no rows).")
    return df


def _read_parquet(p: Path, name: str, what: str) -> pl.DataFrame:
    with open(p, "rb") as fh:
        head = fh.read(4)
        fh.seek(-4, os.SEEK_END)
        tail = fh.read(4)
    if head != b"PAR1" or tail not in (b"PAR1", b"PARE"):
        hint = ("it ends early: the file is truncated (copy it again)" if head == b"PAR1"
                else "it does not start like one (a CSV or another format named .parquet?)")
        raise GenexpyInputError(f"{what} {name!r} could not be read as a parquet file: {hint}.")
    try:
        import pyarrow.parquet as pq

        md = pq.ParquetFile(p).metadata
        need = sum(md.row_group(i).total_byte_size for i in range(md.num_row_groups))
    except Exception as exc:
        raise GenexpyInputError(f"{what} {name!r} could not be read: a damaged parquet file "
                                f"({type(exc).__name__}: {_first_line(exc)}); copy it again."
                                ) from None
    from .._validation import MEMORY_SHARE, available_memory, size_text

    avail = available_memory()
    if need > MEMORY_SHARE * avail:
        raise GenexpyInputError(f"{what} {name!r} holds {size_text(need)} of data once "
                                f"decompressed, and {size_text(avail)} of memory is available"
                                "; read the columns you need with pl.scan_parquet first.")
    try:
        return pl.read_parquet(p, glob=False)  # a name with [ ] * ? is a name, not a pattern
    except Exception as exc:
        raise GenexpyInputError(f"{what} {name!r} could not be read: a damaged parquet file "
                                f"({type(exc).__name__}: {_first_line(exc)}); copy it again."
                                ) from None


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return (lines[0] if lines else type(exc).__name__)[:200]


#: the largest text table read into memory to be re-encoded (UTF-16, bare CR line ends)
_RECODE_MAX_BYTES = 1 << 30


def _utf16(head: bytes) -> str | None:
    """Return 'utf-16' (a byte-order mark), 'utf-16-le'/'-be' (ASCII text without), or None."""
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16"
    half = len(head) // 2
    if half >= 2:
        if head[1::2].count(0) >= 0.9 * half and head[0::2].count(0) == 0:
            return "utf-16-le"
        if head[0::2].count(0) >= 0.9 * half and head[1::2].count(0) == 0:
            return "utf-16-be"
    return None


def _text_source(p: Path, name: str, what: str) -> Path | bytes:
    """Return the file, or its bytes as UTF-8 with LF line ends (UTF-16 text; bare CRs)."""
    with open(p, "rb") as fh:
        head = fh.read(1 << 16)
    enc = _utf16(head)
    cr_only = enc is None and b"\r" in head and b"\n" not in head
    if enc is None and not cr_only:
        if b"\x00" in head:
            raise GenexpyInputError(f"{what} {name!r} holds binary data, not a text table; "
                                    "give a CSV/TSV file (or a .parquet file named .parquet).")
        return p
    size = p.stat().st_size
    why = f"{enc.upper()} text" if enc else "text with bare carriage-return line ends"
    if size > _RECODE_MAX_BYTES:
        raise GenexpyInputError(
            f"{what} {name!r} is {why} of {size / 1e9:.1f} GB; save it as UTF-8 with \\n line "
            "ends (e.g. iconv -f utf-16 -t utf-8, or tr '\\r' '\\n').")
    raw = p.read_bytes()
    if enc:
        try:
            raw = raw.decode(enc).lstrip("\ufeff").encode("utf-8")
        except UnicodeDecodeError as exc:
            raise GenexpyInputError(f"{what} {name!r} looks like {why} but does not decode "
                                    f"({exc.reason}); save it as UTF-8.") from None
    return raw.replace(b"\r\n", b"\n").replace(b"\r", b"\n")


def _read_delimited(p: Path, name: str, what: str, sep: str,
                    keep_text: bool | Sequence[str] = True) -> pl.DataFrame:
    src = _text_source(p, name, what)
    kind = "TSV" if sep == "\t" else "CSV"
    try:
        try:
            # the types polars infers from the first rows are either right or fail to parse
            # a later row (0/1 scores, then 0.5): then the whole file decides (10x slower)
            df = pl.read_csv(src, separator=sep, glob=False)
        except pl.exceptions.ComputeError as exc:
            if "could not parse" not in str(exc):
                raise
            df = pl.read_csv(src, separator=sep, infer_schema_length=None, glob=False)
    except pl.exceptions.NoDataError:
        raise GenexpyInputError(f"{what} {name!r}: the table is empty (no header, no rows)."
                                ) from None
    except Exception as exc:
        text = str(exc)
        if "utf-8" in text.lower() or "utf8" in text.lower():
            line, byte = _first_non_utf8(p)
            raise GenexpyInputError(
                f"{what} {name!r} is not UTF-8 text (byte 0x{byte:02x} on line {line}); "
                "save it as UTF-8 (e.g. iconv -f latin1 -t utf-8, or "
                "pandas.read_csv(path, encoding='latin-1') then gx.read_results(frame)).") from None
        if "more fields" in text:
            raise GenexpyInputError(
                f"{what} {name!r}: a row has more fields than the header "
                f"({_first_long_row(p, sep)}); a value with a {sep!r} inside must be quoted, "
                f"or a column name is missing from the header.") from None
        raise GenexpyInputError(
            f"{what} {name!r} could not be read as a {kind} table ({type(exc).__name__}: "
            f"{_first_line(exc)}); check the quoting around that point.") from None
    dups = [c for c in df.columns if "_duplicated_" in c
            and c.rsplit("_duplicated_", 1)[0] in df.columns]
    if dups:
        twice = sorted({c.rsplit("_duplicated_", 1)[0] for c in dups})
        raise GenexpyInputError(f"{what} {name!r}: the header names column(s) {twice} more than "
                                "once; rename them so that every column has its own name.")
    if df.width == 1:
        other = next((c for c in (";", "\t", ",", "|") if c != sep and c in df.columns[0]),
                     None)
        if other is not None:
            raise GenexpyInputError(
                f"{what} {name!r} was read as a single column {df.columns[0][:60]!r}: its "
                f"values seem separated by {other!r}; save it comma-separated (.csv) or "
                "tab-separated (.tsv).")
    df = _numbers_with_markers(df)
    return _texts_kept(df, src, sep, name, keep_text)


class TextKeptWarning(UserWarning):
    """A column of a CSV/TSV file was read as text: as numbers, different texts would merge.

    Parameters
    ----------
    message : str
        The column, the texts that are one number, and how to read them as numbers.
    column : str
        The column (the attribute ``column``).
    texts : tuple of str
        Texts of the column that are one number (the attribute ``texts``).
    """

    def __init__(self, message: str, column: str = "", texts: tuple = ()) -> None:
        super().__init__(message)
        self.column, self.texts = column, texts


def _texts_kept(df: pl.DataFrame, src: Path | bytes, sep: str, name: str,
                keep_text: bool | Sequence[str]) -> pl.DataFrame:
    """Read again as text the numeric columns whose numbers would merge different texts."""
    import io
    import warnings

    if keep_text is False:
        return df
    asked = df.columns if keep_text is True else [c for c in keep_text if c in df.columns]
    numeric = [c for c in dict.fromkeys(asked) if df.schema[c].is_numeric()]
    if not numeric:
        return df
    source = io.BytesIO(src) if isinstance(src, bytes) else src
    text = pl.scan_csv(source, separator=sep, infer_schema=False, glob=False).select(numeric)
    valid = {c: pl.col(c).is_not_null() & ~pl.col(c).str.strip_chars().is_in(
        list(MISSING_MARKERS)) for c in numeric}
    counts = text.select(
        [pl.col(c).filter(valid[c]).n_unique().alias(f"t{i}") for i, c in enumerate(numeric)]
        + [pl.col(c).filter(valid[c]).str.strip_chars().cast(pl.Float64, strict=False)
           .n_unique().alias(f"n{i}") for i, c in enumerate(numeric)]).collect().row(0)
    merged = [c for i, c in enumerate(numeric) if counts[i] > counts[len(numeric) + i]]
    if not merged:
        return df
    if isinstance(source, io.BytesIO):
        source.seek(0)
    kept = pl.scan_csv(source, separator=sep, infer_schema=False, glob=False).select(
        merged).collect()
    for c in merged:
        col = kept[c]
        num = col.str.strip_chars().cast(pl.Float64, strict=False)
        same = (pl.DataFrame({"t": col, "n": num}).drop_nulls().unique()
                .group_by("n").agg(pl.col("t").sort()).filter(pl.col("t").list.len() > 1)
                .sort("n"))
        texts = tuple(same["t"][0].to_list()[:3]) if same.height else ()
        warnings.warn(TextKeptWarning(
            f"column {c!r} of {name!r} is read as text, as the file writes it: as numbers, "
            f"different texts would become one ({', '.join(repr(t) for t in texts)} are all "
            f"the same number); cast it (pl.col({c!r}).cast(pl.Float64)) if they are numbers.",
            c, texts),
            stacklevel=4)
    return df.with_columns(kept[c].alias(c) for c in merged)


def _numbers_with_markers(df: pl.DataFrame) -> pl.DataFrame:
    """Text columns that are numbers except for missing-value markers become numbers."""
    exprs = []
    for c, dt in df.schema.items():
        if dt != pl.String:
            continue
        col = df[c]
        text = col.str.strip_chars()
        marker = text.is_in(list(MISSING_MARKERS)) | text.is_null()
        if marker.all():
            if (text.is_null() | (text == "")).all():  # no value at all: missing numbers
                exprs.append(pl.lit(None, pl.Float64).alias(c))
            continue  # a column of 'NA' (say) stays text: it may be a label
        num = text.cast(pl.Float64, strict=False)
        if (num.is_null() & ~marker).any():
            continue  # real text: labels
        exprs.append(pl.when(marker).then(None).otherwise(num).alias(c))
    return df.with_columns(exprs) if exprs else df


def _first_non_utf8(p: Path) -> tuple[int, int]:
    """(line number, byte) of the first byte that is not UTF-8."""
    line = 1
    with open(p, "rb") as fh:
        carry = b""
        while chunk := fh.read(1 << 20):
            data = carry + chunk
            try:
                data.decode("utf-8")
                line += data.count(b"\n")
                carry = b""
            except UnicodeDecodeError as exc:
                if exc.start >= len(data) - 3 and len(chunk) == 1 << 20:
                    # a character cut by the chunk boundary: read on
                    line += data[:exc.start].count(b"\n")
                    carry = data[exc.start:]
                    continue
                return line + data[:exc.start].count(b"\n"), data[exc.start]
    return line, 0


def _first_long_row(p: Path, sep: str) -> str:
    """'line N has K fields, the header H' for the first row longer than the header."""
    import csv

    with open(p, encoding="utf-8", newline="") as fh:
        rows = csv.reader(fh, delimiter=sep)
        header = next(rows, [])
        for i, row in enumerate(rows, start=2):
            if len(row) > len(header):
                return f"line {i} has {len(row)} fields, the header {len(header)}"
    return "a row is longer than the header"
