"""Errors in the caller's vocabulary: every error path of every command speaks in flags
(``--invalid-target drop``), never in Python's argument syntax (``invalid_target='drop'``,
``average_over=[...]``, ``Borda(alternative=...)``); the same error raised in Python keeps
Python's words.

The command-line cases of the hostile-input sweep (``test_hostile_sweep.py``) are reused, and
the error paths they do not reach (the Study's and the kernels' errors, warnings) are added
here.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import polars as pl
import pytest

import genexpy_nb as gx
from genexpy_nb import GenexpyInputError
from genexpy_nb._words import PYTHON_SYNTAX, command_line_words, opt, translate

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import test_hostile_sweep as hs

#: code that writes an input file (``np.savez(path, gaps=..., labels=...)``) is the only way
#: to make one, from a terminal too: advice, not an argument of ours
_CODE = re.compile(r"np\.savez\([^)]*\)")


def _python_syntax(text: str) -> list[str]:
    return [m.group(0) for m in PYTHON_SYNTAX.finditer(_CODE.sub("", text))]


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    hs.build_inputs(tmp_path_factory.mktemp("hostile_inputs"))
    return hs.INPUTS


CLI_CASES = [c for c in hs.CASES if c.group.startswith("cli")]


@pytest.mark.parametrize("case", CLI_CASES, ids=[c.id for c in CLI_CASES])
def test_sweep_errors_speak_in_flags(case, inputs, tmp_path):
    run = case.fn(tmp_path)
    if run.rc == 0:
        return
    text = run.err + run.out
    assert "Traceback" not in text
    assert not _python_syntax(text), (case.id, _python_syntax(text), text[-600:])


# ---- the error paths the sweep does not reach ------------------------------------------------


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    folder = tmp_path_factory.mktemp("words")
    base = hs.table(n_ds=8)
    base.write_csv(folder / "r.csv")
    base.with_columns(pl.when(pl.col("ds") == "d1").then(None).otherwise(pl.col("acc"))
                      .alias("acc")).write_csv(folder / "nan.csv")
    # every dataset lacks one alternative (each misses 1/3 of them)
    base.filter(pl.col("alt") != pl.col("ds").str.slice(1).cast(pl.Int64).mod(3).cast(pl.String)
                .replace({"0": "a", "1": "b", "2": "c"})).write_csv(folder / "holes.csv")
    base.rename({"acc": "loss"}).write_csv(folder / "loss.csv")
    return folder


NSTAR = ["--alternatives", "alt", "--target", "acc", "--higher-is-better", "--generalize",
         "ds", "--rep", "5", "--estimators", "approx", "--quiet"]
COMPARE = ["--alternatives", "alt", "--target", "acc", "--higher-is-better", "--blocks", "ds",
           "--figures", "", "--quiet"]

EXTRA = {
    # name: (argv after the table, table, what the message must say in flags)
    "nstar duplicates": (["nstar", *NSTAR], "r.csv", "--average-over COLUMNS"),
    "nstar failed runs": (["nstar", *NSTAR, "--average-over", "seed"], "nan.csv",
                          "--invalid-target drop"),
    "nstar every condition misses": (["nstar", *NSTAR, "--average-over", "seed",
                                      "--tol-missing-alternatives", "0"], "holes.csv",
                                     "--tol-missing-alternatives 0.0"),
    "nstar Borda unknown": (["nstar", *NSTAR, "--average-over", "seed", "--kernel",
                             "borda:ZZ"], "r.csv", "--kernel borda:NAME"),
    "compare duplicates": (["compare", *COMPARE], "r.csv", "--average-over"),
    "compare failed runs": (["compare", *COMPARE, "--average-over", "seed"], "nan.csv",
                            "--invalid-target drop"),
    "compare unknown control": (["compare", *COMPARE, "--average-over", "seed", "--control",
                                 "ZZ"], "r.csv", "--control"),
}


@pytest.mark.parametrize("name", list(EXTRA))
def test_study_and_kernel_errors_speak_in_flags(name, tables, tmp_path):
    argv, table, want = EXTRA[name]
    out = ["--out", tmp_path / ("o.csv" if argv[0] == "nstar" else "o")]
    run = hs.cli(argv[0], tables / table, *argv[1:], *out)
    assert run.rc == 1, run.err
    err = run.err.strip()
    assert "\n" not in err and err.startswith(f"genexpy-nb {argv[0]}: error:"), err
    assert want in err, err
    assert not _python_syntax(err), (_python_syntax(err), err)


def test_warnings_are_notes_in_flags(tables, tmp_path):
    run = hs.cli("nstar", tables / "loss.csv", *[a if a != "acc" else "loss" for a in NSTAR],
                 "--average-over", "seed", "--out", tmp_path / "o.csv")
    assert run.rc == 0, run.err
    note = next(ln for ln in run.err.splitlines() if "named like an error" in ln)
    assert note.startswith("note: ") and "--lower-is-better" in note
    assert not _python_syntax(run.err), run.err


def test_the_same_error_keeps_pythons_words_in_python(tables):
    df = pl.read_csv(tables / "nan.csv")
    with pytest.raises(GenexpyInputError) as exc:
        gx.Study(df, alternatives="alt", target="acc", generalize="ds", average_over="seed",
                 higher_is_better=True)
    assert "invalid_target='drop'" in str(exc.value)
    with command_line_words({"invalid_target": "--invalid-target"}):
        assert "--invalid-target drop" in translate(str(exc.value))
    assert translate(str(exc.value)) == str(exc.value)  # outside the block: unchanged


def test_opt_and_translate():
    assert opt("invalid_target", "drop") == 'invalid_target="drop"'
    assert opt("average_over", placeholder="COLUMNS") == "average_over=[...]"
    with command_line_words({"rep": "--rep"}):
        assert opt("invalid_target", "drop") == "--invalid-target drop"
        assert opt("higher_is_better", False) == "--lower-is-better"
        assert translate("rep=10 is too many; use rep=5") == "--rep 10 is too many; use --rep 5"
        assert translate("pass held_constant={...}", ["held_constant"]) == \
            "pass --held-constant COLUMN=LEVEL"
        assert translate("gaps=1", ["rep"]) == "gaps=1"  # not an option: left as it is
        assert translate("alphas=[0.9, 0.95]") == "--alpha 0.9,0.95"
        # a name from the data is left as it is
        assert translate("column 'rep=5' not found") == "column 'rep=5' not found"
