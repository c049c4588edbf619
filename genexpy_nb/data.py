"""Datasets: the public case-study results (downloaded once, hash-checked) and the data
the package ships itself (``data/`` in the repository, ``genexpy_nb.shipped`` when installed).

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
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from ._validation import GenexpyInputError

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


def _sha256(path: Path) -> str:
    import pooch

    return pooch.file_hash(str(path), alg="sha256")


def fetch_public_file(name: str) -> Path:
    """Local path of a public data file: from ``$GENEXPY_NB_DATA_DIR``, else pooch's cache.

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
        if not path.is_file():
            where = "" if folder.is_absolute() else (
                f" (a relative path, resolved against the current folder {Path.cwd()}: "
                "give an absolute path)")
            raise DatasetUnavailableError(
                f"{name} not found in {DATA_DIR_ENV}={local!r}{where}. Put the file there "
                f"(download it from {spec.url}) or unset {DATA_DIR_ENV} to download it "
                "automatically."
            )
        digest = _sha256(path)
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
                path=pooch.os_cache("genexpy_nb"),
                progressbar=False,
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
    """
    return pl.read_parquet(fetch_public_file("encoders_results.parquet"))


def load_bigbench() -> pl.DataFrame:
    """BIG-bench results, preferred score per subtask (183,819 rows).

    Columns ``subtask_description, task_name, number_of_shots, model_family_model_name,
    score_value``; higher is better. Source: Srivastava et al. (TMLR 2023).
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
    candidates.append(Path(__file__).resolve().parent.parent / "data" / name)
    for c in candidates:
        if c.is_file():
            return c
    raise GenexpyInputError(
        f"shipped data file {name!r} not found (looked in {[str(c) for c in candidates]}). "
        "Reinstall genexpy_nb, or regenerate it (see data/MANIFEST.md)."
    )


def read_results(source) -> pl.DataFrame:
    """A results table from a path (.parquet, .csv, .tsv) or a polars/pandas/arrow table."""
    from ._validation import to_polars

    if isinstance(source, (str, os.PathLike)):
        p = Path(source)
        if not p.is_file():
            raise GenexpyInputError(f"results file {str(source)!r} not found.")
        suffix = p.suffix.lower()
        if suffix == ".parquet":
            return pl.read_parquet(p)
        if suffix in {".csv", ".tsv"}:
            return pl.read_csv(p, separator="\t" if suffix == ".tsv" else ",")
        raise GenexpyInputError(f"{str(source)!r}: expected a .parquet, .csv or .tsv file.")
    return to_polars(source, "results")
