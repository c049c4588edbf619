"""Filters and settings travel with the answer, and a user's environment never ends in a
traceback.

* ``held_constant`` is named in the page's first lines, in every section's "how", in the
  conclusions' heading and in every configuration's title, and the command line prints it
  first;
* ``plan`` and the summaries refuse an alpha* other than the frame's, and a frame that mixes
  several, instead of one heading over both;
* boolean environment variables: 0/false/no/off are false, 1/true/yes/on true, anything
  else a clear error naming the variable (``GENEXPY_NB_DEBUG=0`` no longer asks for
  tracebacks);
* every command runs with an ASCII standard output (``PYTHONIOENCODING=ascii``): the
  characters it cannot encode are written in ASCII, never exit 3.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

import genexpy_nb as gx
from genexpy_nb import GenexpyInputError

ROOT = Path(__file__).resolve().parents[1]


def _table() -> pl.DataFrame:
    """Alternative c best at level x of 'cond', a best at level y: the filter matters."""
    rows = []
    for d in range(8):
        for i, a in enumerate("abc"):
            for lvl in ("x", "y"):
                sign = 1 if lvl == "x" else -1
                rows.append({"ds": f"d{d}", "alt": a, "cond": lvl,
                             "acc": 0.5 + 0.1 * i * sign + 0.01 * ((7 * d + i) % 5)})
    return pl.DataFrame(rows)


@pytest.fixture(scope="module")
def page():
    return gx.report(_table(), alternatives="alt", target="acc", generalize="ds",
                     higher_is_better=True, held_constant={"cond": "x"}, rep=10,
                     progress=False)


def test_held_constant_is_named_first_and_in_every_section(page):
    md = page.to_markdown()
    first = md.splitlines()[:3]
    assert any("Held constant: cond = x" in ln for ln in first), first
    for s in page.sections:
        assert "cond = x (held constant)" in s.how, s.key
    html = page.to_html()
    assert html.index("Held constant: cond = x") < html.index("<section")
    assert "cond = x held constant" in md  # the conclusions' titles


def test_conclusions_and_nstar_summaries_name_the_filter():
    study = gx.Study(_table(), alternatives="alt", target="acc", generalize="ds",
                     held_constant={"cond": "y"}, higher_is_better=True)
    con = gx.conclusions(study, kinds=["best"], progress=False)
    text = " ".join(gx.conclusions_summary(con, held_constant=study.held_constant)
                    .to_text().split())
    assert "With cond = y held constant" in text
    assert "the whole study, cond = y held constant" in text
    assert "Best: a" in text


def test_cli_report_prints_the_filter_first(tmp_path, capsys):
    from genexpy_nb.cli import main

    src = tmp_path / "r.csv"
    _table().write_csv(src)
    rc = main(["report", str(src), "--alternatives", "alt", "--target", "acc", "--generalize",
               "ds", "--higher-is-better", "--held-constant", "cond=x", "--rep", "10",
               "--out", str(tmp_path / "out")])
    captured = capsys.readouterr()
    assert rc == 0, captured.err
    assert captured.err.lstrip().startswith("Held constant: cond = x")
    assert "cond = x held constant" in captured.out


# ---- alpha* travels with the conclusions --------------------------------------------------


@pytest.fixture(scope="module")
def two_alphas():
    study = gx.Study(_table().filter(pl.col("cond") == "x"), alternatives="alt", target="acc",
                     generalize="ds", higher_is_better=True)
    return (gx.conclusions(study, alpha=0.95, progress=False),
            gx.conclusions(study, alpha=0.8, progress=False))


def test_plan_refuses_another_alpha(two_alphas):
    c95, c80 = two_alphas
    assert gx.plan(c95).height == gx.plan(c95, alpha=0.95).height == 1
    with pytest.raises(GenexpyInputError, match=r"alpha=0.9, but the conclusions were "
                                                r"computed at alpha\* = 0.95"):
        gx.plan(c95, alpha=0.9)
    with pytest.raises(GenexpyInputError, match=r"alpha\* 0.8, 0.95; plan one at a time"):
        gx.plan(pl.concat([c95, c80]))


def test_summaries_refuse_mixed_or_other_alpha(two_alphas):
    c95, c80 = two_alphas
    with pytest.raises(GenexpyInputError, match=r"mixes conclusions computed at alpha\* 0.8, "
                                                r"0.95.*summarise each apart"):
        gx.conclusions_summary(pl.concat([c95, c80]))
    with pytest.raises(GenexpyInputError, match=r"alpha=0.9, but the frame's conclusions"):
        gx.conclusions_summary(c95, alpha=0.9)
    assert "alpha* = 0.8" in gx.conclusions_summary(c80).to_text()


@pytest.mark.parametrize("kw, name", [({"top_k": 1.5}, "top_k"), ({"top_k": [2.5]}, "top_k"),
                                      ({"top_k": "3"}, "top_k"), ({"kinds": 5}, "kinds")])
def test_conclusions_options_are_validated(kw, name):
    study = gx.Study(_table().filter(pl.col("cond") == "x"), alternatives="alt", target="acc",
                     generalize="ds", higher_is_better=True)
    with pytest.raises(GenexpyInputError, match=name):
        gx.conclusions(study, progress=False, **kw)


# ---- the environment ----------------------------------------------------------------------


@pytest.mark.parametrize("raw, want", [("0", False), ("false", False), ("No", False),
                                       (" off ", False), ("1", True), ("TRUE", True),
                                       ("yes", True), ("on", True), ("", None)])
def test_boolean_variables(monkeypatch, raw, want):
    from genexpy_nb._validation import env_flag

    monkeypatch.setenv("GENEXPY_NB_DEBUG", raw)
    assert env_flag("GENEXPY_NB_DEBUG", None) is want


@pytest.mark.parametrize("name", ["GENEXPY_NB_DEBUG", "GENEXPY_NB_PROGRESS",
                                  "GENEXPY_NB_NUMBA_CACHE"])
def test_a_boolean_variable_not_understood_is_a_clear_error(monkeypatch, tmp_path, capsys,
                                                             name):
    from genexpy_nb.cli import main

    monkeypatch.setenv(name, "maybe")
    src = tmp_path / "r.csv"
    _table().write_csv(src)
    rc = main(["compare", str(src), "--alternatives", "alt", "--target", "acc", "--blocks",
               "ds,cond", "--higher-is-better", "--figures", "", "--out", str(tmp_path / "c")])
    err = capsys.readouterr().err
    assert rc == 1, err
    assert f"{name}='maybe' is not understood" in err and "Traceback" not in err


def test_debug_zero_is_false(monkeypatch, capsys, tmp_path):
    import genexpy_nb.cli as cli
    import genexpy_nb.cli.seeds as seeds_command

    def boom(args):
        raise RuntimeError("kaboom")

    monkeypatch.setattr(seeds_command, "cmd_seeds", boom)
    argv = ["seeds", "x.npz", "--out", str(tmp_path / "s.csv")]
    for off in ("0", "false", "no", "off"):
        monkeypatch.setenv("GENEXPY_NB_DEBUG", off)
        assert cli.main(argv) == 3  # one line, no traceback
        assert "Traceback" not in capsys.readouterr().err


def test_progress_variable_words(monkeypatch):
    from genexpy_nb._progress import bars_shown

    monkeypatch.setenv("GENEXPY_NB_PROGRESS", "off")
    assert bars_shown() is False
    monkeypatch.setenv("GENEXPY_NB_PROGRESS", "yes")
    assert bars_shown() is True
    monkeypatch.setenv("GENEXPY_NB_PROGRESS", "2")
    with pytest.raises(GenexpyInputError, match="GENEXPY_NB_PROGRESS"):
        bars_shown()


# ---- any standard-output encoding -----------------------------------------------------------


def test_ascii_text():
    from genexpy_nb._escape import ascii_text

    assert ascii_text("Best: c — holds (n* ≥ 3, α = 0.95)") == \
        "Best: c -- holds (n* >= 3, alpha = 0.95)"
    assert ascii_text("日本") != ascii_text("日本語")  # names stay apart
    assert ascii_text("日").isascii()


@pytest.mark.parametrize("command", ["report", "compare", "nstar"])
def test_every_command_runs_with_an_ascii_stdout(tmp_path, command):
    src = tmp_path / "r.csv"
    _table().with_columns(pl.col("alt").replace({"a": "modèle α", "b": "日本"})).write_csv(src)
    roles = ["--alternatives", "alt", "--target", "acc", "--higher-is-better"]
    argv = {"report": ["report", src, *roles, "--generalize", "ds", "--design", "cond",
                       "--rep", "10", "--out", tmp_path / "out"],
            "compare": ["compare", src, *roles, "--blocks", "ds,cond", "--figures", "",
                        "--out", tmp_path / "out"],
            "nstar": ["nstar", src, *roles, "--generalize", "ds", "--design", "cond",
                      "--rep", "10", "--estimators", "approx", "--out", tmp_path / "n.csv"]
            }[command]
    env = {**os.environ, "PYTHONIOENCODING": "ascii", "PYTHONPATH": str(ROOT),
           "GENEXPY_NB_PROGRESS": "0"}
    done = subprocess.run([sys.executable, "-m", "genexpy_nb.cli", *map(str, argv)],
                          capture_output=True, env=env, timeout=600)
    err = done.stderr.decode("ascii")  # all ASCII, or this raises
    out = done.stdout.decode("ascii")
    assert done.returncode == 0, err[-2000:]
    assert "UnicodeEncodeError" not in err
    if command != "compare":
        assert "--" in out or "--" in err  # the answer's dashes, in ASCII
    assert "\\u65e5\\u672c" in out + err or command == "nstar"  # a name escaped, not lost
