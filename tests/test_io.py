"""Atomic output: complete or absent, never half-written."""

import os
import stat

import polars as pl
import pytest

from genexpy_nb._io import (
    MARKER,
    atomic_dir,
    atomic_path,
    atomic_write,
    check_frame_path,
    check_output_dir,
    write_frame,
)
from genexpy_nb._validation import GenexpyInputError


class Boom(Exception):
    pass


def _names(folder):
    return sorted(p.name for p in folder.iterdir())


def test_atomic_write_binary_and_text(tmp_path):
    with atomic_write(tmp_path / "sub" / "a.bin") as fh:
        fh.write(b"\x00\x01")
    with atomic_write(tmp_path / "b.txt", "w") as fh:
        fh.write("héllo")
    assert (tmp_path / "sub" / "a.bin").read_bytes() == b"\x00\x01"
    assert (tmp_path / "b.txt").read_text(encoding="utf-8") == "héllo"
    assert _names(tmp_path) == ["b.txt", "sub"]  # no temporary left behind
    mode = stat.S_IMODE(os.stat(tmp_path / "b.txt").st_mode)
    assert mode & 0o044  # readable by others as with a plain open() (umask 022 / 002)


@pytest.mark.parametrize("exc", [Boom, KeyboardInterrupt])
def test_interrupted_write_leaves_nothing(tmp_path, exc):
    target = tmp_path / "out.csv"
    with pytest.raises(exc), atomic_write(target) as fh:
        fh.write(b"half of a ")
        raise exc()
    assert _names(tmp_path) == []


def test_interrupted_write_keeps_previous_content(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old")
    with pytest.raises(Boom), atomic_write(target, "w") as fh:
        fh.write("new but unfinished")
        raise Boom
    assert target.read_text() == "old"
    assert _names(tmp_path) == ["out.txt"]


def test_atomic_path_keeps_suffix_and_cleans(tmp_path):
    with atomic_path(tmp_path / "fig.svg") as tmp:
        assert tmp.suffix == ".svg" and tmp.parent == tmp_path and tmp.name.startswith(".")
        tmp.write_text("<svg/>")
    assert (tmp_path / "fig.svg").read_text() == "<svg/>"
    with pytest.raises(Boom), atomic_path(tmp_path / "g.png") as tmp:
        tmp.write_bytes(b"x")
        raise Boom
    assert _names(tmp_path) == ["fig.svg"]


def test_atomic_write_rejects_read_modes(tmp_path):
    with pytest.raises(GenexpyInputError, match="mode"), atomic_write(tmp_path / "x", "r"):
        pass


def test_atomic_dir_complete_or_absent(tmp_path):
    target = tmp_path / "results"
    with pytest.raises(Boom), atomic_dir(target) as d:
        (d / "a.csv").write_text("1")
        raise Boom
    assert _names(tmp_path) == []  # neither the target nor a temporary folder
    with atomic_dir(target) as d:
        assert not target.exists()  # nothing at the target while it is being built
        (d / "a.csv").write_text("1")
    assert _names(target) == [MARKER, "a.csv"]
    assert stat.S_IMODE(os.stat(target).st_mode) & 0o055  # not left at mkdtemp's 0700


def test_atomic_dir_replaces_its_own_output_only_when_complete(tmp_path):
    target = tmp_path / "results"
    with atomic_dir(target) as d:
        (d / "old.csv").write_text("old")
    with pytest.raises(KeyboardInterrupt), atomic_dir(target) as d:
        (d / "new.csv").write_text("new")
        raise KeyboardInterrupt
    assert _names(target) == [MARKER, "old.csv"]  # the previous complete run is intact
    with atomic_dir(target) as d:
        (d / "new.csv").write_text("new")
    assert _names(target) == [MARKER, "new.csv"]
    assert _names(tmp_path) == ["results"]


def test_atomic_dir_never_deletes_user_files(tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "thesis.tex").write_text("precious")
    with pytest.raises(GenexpyInputError, match="did not write"), atomic_dir(mine):
        pass
    assert (mine / "thesis.tex").read_text() == "precious"
    (tmp_path / "afile").write_text("x")
    with pytest.raises(GenexpyInputError, match="not a folder"):
        check_output_dir(tmp_path / "afile")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(GenexpyInputError, match="already exists"):
        check_output_dir(empty, replace=False)
    with atomic_dir(empty) as d:  # an empty folder may be filled
        (d / "x.csv").write_text("1")
    assert _names(empty) == [MARKER, "x.csv"]


def test_check_output_dir_uncreatable_parent(tmp_path):
    (tmp_path / "afile").write_text("x")
    with pytest.raises(GenexpyInputError, match="cannot create"):
        check_output_dir(tmp_path / "afile" / "sub" / "out")


@pytest.mark.parametrize("suffix", [".parquet", ".csv", ".tsv", ".json"])
def test_write_frame_round_trip(tmp_path, suffix):
    df = pl.DataFrame({"a": [1, 2], "b": ["x", "y"]})
    p = write_frame(df, tmp_path / f"t{suffix}")
    read = {".parquet": pl.read_parquet, ".csv": pl.read_csv, ".json": pl.read_json,
            ".tsv": lambda q: pl.read_csv(q, separator="\t")}[suffix]
    assert read(p).equals(df)
    assert _names(tmp_path) == [f"t{suffix}"]


def test_write_frame_bad_suffix_writes_nothing(tmp_path):
    with pytest.raises(GenexpyInputError, match=r"\.xlsx"):
        write_frame(pl.DataFrame({"a": [1]}), tmp_path / "t.xlsx")
    with pytest.raises(GenexpyInputError, match="--out"):
        check_frame_path(tmp_path / "noext")
    assert _names(tmp_path) == []


# ---- read_results: names keep the text the file has ----------------------------------------


def _ids_csv(tmp_path, names=("1", "1.0", "01")):
    rows = ["ds,alt,seed,acc"] + [f"d{d},{a},{s},{0.5 + 0.1 * i + 0.01 * s:.3f}"
                                  for d in range(6) for i, a in enumerate(names)
                                  for s in range(2)]
    p = tmp_path / "ids.csv"
    p.write_text("\n".join(rows) + "\n")
    return p


def test_read_results_keeps_names_that_would_merge_as_numbers(tmp_path):
    import genexpy_nb as gx

    p = _ids_csv(tmp_path)
    with pytest.warns(gx.TextKeptWarning, match=r"'alt'.*'01', '1', '1.0' are all the same number"):
        df = gx.read_results(p)
    assert df.schema["alt"] == pl.String and sorted(set(df["alt"])) == ["01", "1", "1.0"]
    # numbers that merge nothing stay numbers, the target included
    assert df.schema["seed"] == pl.Int64 and df.schema["acc"] == pl.Float64
    study = gx.Study(df, alternatives="alt", target="acc", generalize="ds",
                     average_over="seed", higher_is_better=True)
    assert study.na == 3
    # asked otherwise: polars' numbers, or only the columns named
    assert gx.read_results(p, keep_text=False)["alt"].n_unique() == 1
    assert gx.read_results(p, keep_text=["ds"])["alt"].n_unique() == 1
    with pytest.raises(GenexpyInputError, match="keep_text"):
        gx.read_results(p, keep_text="alt")


def test_read_results_plain_numbers_unchanged(tmp_path):
    import warnings

    import genexpy_nb as gx

    p = _ids_csv(tmp_path, names=("1", "2", "3"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        df = gx.read_results(p)
    assert df.schema["alt"] == pl.Int64


def test_cli_keeps_names_as_the_file_writes_them(tmp_path, capsys):
    from genexpy_nb.cli import main

    p = _ids_csv(tmp_path)
    rc = main(["compare", str(p), "--alternatives", "alt", "--target", "acc", "--blocks", "ds",
               "--average-over", "seed", "--higher-is-better", "--figures", "", "--quiet",
               "--out", str(tmp_path / "c")])
    err = capsys.readouterr().err
    assert rc == 0, err
    assert "'01', '1', '1.0' are all the same number" in err and "pl.col" not in err
    ranks = pl.read_csv(tmp_path / "c" / "mean_ranks.csv",
                        schema_overrides={"alternative": pl.String})
    assert sorted(ranks["alternative"]) == ["01", "1", "1.0"]


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_read_results_unreadable_file_is_a_clear_error(tmp_path, monkeypatch, suffix):
    """Permission refused while reading (the access check passed: a network file system,
    a file changed meanwhile): an error naming the file, not a PermissionError traceback."""
    import builtins

    import genexpy_nb as gx

    p = tmp_path / f"r{suffix}"
    df = pl.DataFrame({"a": ["x", "y"], "v": [1.0, 2.0]})
    df.write_csv(p) if suffix == ".csv" else df.write_parquet(p)
    real = builtins.open

    def denied(file, *args, **kwargs):
        if str(file) == str(p):
            raise PermissionError(13, "Permission denied", str(file))
        return real(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", denied)
    with pytest.raises(GenexpyInputError, match=rf"cannot read the results file .*r\{suffix}"):
        gx.read_results(p)
