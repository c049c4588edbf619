"""One vocabulary on the command line (issue 36): ``--estimators`` (``--methods`` still
accepted), and ``--generalize`` / ``--blocks`` as unlisted aliases of each other."""

from __future__ import annotations

import argparse

import pytest

from genexpy_nb.cli import build_parser
from genexpy_nb.cli._options import add_alias

ROLES = ["r.csv", "--alternatives", "model", "--target", "acc", "--higher-is-better"]


def _parse(*argv):
    return build_parser().parse_args(list(argv))


@pytest.mark.parametrize("flag", ["--estimators", "--methods"])
def test_nstar_estimators_and_its_old_name(flag):
    args = _parse("nstar", *ROLES, "--generalize", "ds", flag, "approx,bound")
    assert args.estimators == "approx,bound"
    assert not hasattr(args, "methods")


def test_nstar_estimators_default():
    assert _parse("nstar", *ROLES, "--generalize", "ds").estimators == "resample,approx,bound"


@pytest.mark.parametrize("command", ["nstar", "report"])
@pytest.mark.parametrize("flag", ["--generalize", "--blocks"])
def test_generalize_and_blocks_name_one_role(command, flag):
    assert _parse(command, *ROLES, flag, "ds,task").generalize == "ds,task"
    assert _parse(command, *ROLES, f"{flag}=ds").generalize == "ds"


@pytest.mark.parametrize("flag", ["--blocks", "--generalize"])
def test_compare_takes_either_word(flag):
    args = _parse("compare", *ROLES, flag, "ds")
    assert args.blocks == "ds"
    assert not hasattr(args, "generalize")


@pytest.mark.parametrize(("command", "shown", "hidden"), [
    ("nstar", "--generalize", "--blocks"), ("report", "--generalize", "--blocks"),
    ("compare", "--blocks", "--generalize"), ("nstar", "--estimators", "--methods"),
])
def test_an_alias_is_not_listed(command, shown, hidden, capsys):
    with pytest.raises(SystemExit):
        _parse(command, "--help")
    out = capsys.readouterr().out
    assert shown in out
    assert hidden not in out


@pytest.mark.parametrize(("command", "word"), [("nstar", "--generalize"),
                                               ("compare", "--blocks")])
def test_a_missing_role_is_named_by_the_commands_word(command, word, capsys):
    with pytest.raises(SystemExit):
        _parse(command, *ROLES)
    err = capsys.readouterr().err
    assert f"the following arguments are required: {word}" in err
    assert "/" not in err.splitlines()[-1]


def test_an_alias_never_replaces_an_option():
    p = argparse.ArgumentParser(prog="x")
    a = p.add_argument("--one")
    p.add_argument("--two")
    with pytest.raises(ValueError, match="--two is an option of x already"):
        add_alias(p, a, "--two")
