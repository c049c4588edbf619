"""The one number formatter (``answers/numbers.py``) and the gate that keeps it the only one.

Issue 48 item 1 and issue 52 item 3: every number a user reads is rendered in one place; no
module outside ``answers/`` (and the charts' axes) formats a float for a reader.
"""

from __future__ import annotations

import ast
import math
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from genexpy_nb.answers import numbers

PACKAGE = Path(__file__).resolve().parents[2] / "genexpy_nb"

#: a format spec that writes a float: f, e, g, % (with any width, precision, sign)
FLOAT_SPEC = re.compile(r"^[^a-zA-Z]*[eEfFgG%]$")


def test_count_rounds_up_and_its_interval_keeps_it_inside():
    assert numbers.count(13.2) == "14" and numbers.count(6.0) == "6"
    assert numbers.count(5.000000000001) == "5"  # float noise on a whole number
    assert numbers.count(float("inf")) == "infinity" and numbers.count(None) == "-"
    assert numbers.count(float("nan")) == "-"
    assert numbers.count_interval(3.4, 13.2) == "4-14"
    assert numbers.count_interval(None, 3.0) == ""


@given(st.floats(0.01, 1e6), st.floats(0.01, 1e6), st.floats(0.01, 1e6))
def test_a_value_inside_its_interval_reads_inside_it(a, b, c):
    lo, mid, hi = sorted((a, b, c))
    band = numbers.count_interval(lo, hi).split("-")
    assert int(band[0]) <= int(numbers.count(mid)) <= int(band[1])


def test_pvalues_statistics_effects_shares_settings():
    assert numbers.pvalue(0.0321) == "0.032" and numbers.pvalue(2.2e-53) == "< 0.001"
    assert numbers.statistic(268.3512) == "268.35" and numbers.rank(1.9125) == "1.91"
    assert numbers.effect(0.2) == "+0.20" and numbers.effect(-0.384) == "-0.38"
    assert numbers.share(0.2) == "20%" and numbers.share(0.055) == "5.5%"
    assert numbers.setting(1 - 0.95) == "0.05" and numbers.setting(1e-9) == "1e-09"
    assert numbers.prob(0.00125) == "0.001" and numbers.prob(1.0) == "1"


@pytest.mark.parametrize("x, text", [(0.016043, "0.016"), (7905694155.2, "7.91e9"),
                                     (2.0, "2"), (-0.5, "-0.5"), (1.35e12, "1.35e12"),
                                     (123456.0, "1.23e+05".replace("e+05", "e5")),
                                     (0.0001234, "1.23e-4"), (999.96, "1e3")])
def test_number_is_three_significant_digits(x, text):
    got = numbers.number(x)
    assert got == text or float(got) == pytest.approx(x, rel=5e-3)
    assert float(got) == pytest.approx(x, rel=5e-3)


def test_number_reads_float_error_as_zero_only_when_asked():
    assert numbers.number(2.3e-14) == "2.3e-14"
    assert numbers.number(2.3e-14, zero=1e-12) == "0"
    assert numbers.interval(-8.7e-19, 4.3e-20, zero=1e-12) == "[0, 0]"


# ---- the gate ----------------------------------------------------------------------------

def _float_formats(tree: ast.AST):
    """Yield (line, how) of every float formatted in a module: f-string specs, % and format()."""
    for node in ast.walk(tree):
        if isinstance(node, ast.FormattedValue) and node.format_spec is not None:
            spec = "".join(v.value for v in node.format_spec.values
                           if isinstance(v, ast.Constant))
            if FLOAT_SPEC.match(spec):
                yield node.lineno, f"f-string :{spec}"
        elif (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod)
              and isinstance(node.left, ast.Constant) and isinstance(node.left.value, str)
              and re.search(r"%[-+ 0#]*\d*(\.\d+)?[eEfFgG]", node.left.value)):
            yield node.lineno, "% formatting"
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id == "format" and len(node.args) == 2):
            yield node.lineno, "format()"


def _exempt_lines(tree: ast.AST) -> set[int]:
    """Lines of text that is not a result: exception and warning messages, reprs, progress.

    An analysis below ``answers/`` in the pipeline cannot import the formatter (no arrow
    up); its error messages and warnings describe the input, not a result, and stay there.
    """
    lines: set[int] = set()

    def span(node: ast.AST) -> None:
        lines.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))

    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and node.exc is not None:
            span(node)
        elif isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
            if (name in {"warn", "set_postfix", "_degenerate"} or name.endswith(("Error",
                                                                                 "Warning"))):
                span(node)
        elif isinstance(node, ast.FunctionDef) and node.name in {"__repr__", "size_text"}:
            span(node)
    return lines


#: what formats a float for a reader outside answers/ and charts/, and why it may: text that
#: is not a result (a label of a setting, a training log, a timing, an object's name). The
#: counts may only go down.
ALLOWED = {
    # a kernel's label names its parameters (``Mallows(nu=0.5)``), and its degeneracy
    # reason: text an analysis writes below answers/ (the layering forbids the import)
    "generalizability/kernels.py": 7,
    # an analysis's reason and meaning columns, written below answers/
    "generalizability/closed_form.py": 1,
    "generalizability/conclusions.py": 2,
    "generalizability/fit.py": 6,
    "generalizability/questions.py": 4,
    "evals/subset.py": 2,
    # a leaderboard's anchor text and its reliability and verdict reasons (columns written
    # below answers/)
    "leaderboards/battles.py": 3,
    "leaderboards/tier_plan.py": 4,
    "variability/selection.py": 4,
    # a result object's own one-line interpretation (``BayesianResult.interpretation``)
    # and its repr helper
    "significance/bayesian.py": 5,
    "significance/_results.py": 1,
    # the durations on progress bars and in the refusal of an analysis estimated to run too
    # long (``_progress.duration_text``): plumbing below answers/ (no import up)
    "_progress.py": 4,
    # the training scripts' own logs (seed pools), not answers of the package
    "seedpools/cnn_seeds.py": 4,
    "seedpools/pools.py": 13,
    "seedpools/pretrain.py": 5,
    "seedpools/training.py": 2,
    "seedpools/transfer.py": 3,
    "seedpools/backbones.py": 1,
}


def test_no_float_is_formatted_for_a_reader_outside_the_formatter():
    found: dict[str, list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel.startswith("charts/") or rel == "answers/numbers.py":
            continue  # the charts' axes and marks; the formatter itself
        tree = ast.parse(path.read_text(encoding="utf-8"))
        exempt = _exempt_lines(tree)
        hits = [f"{rel}:{line} ({how})" for line, how in _float_formats(tree)
                if line not in exempt]
        if hits:
            found[rel] = hits
    inside = {k: v for k, v in found.items() if k.startswith("answers/")}
    assert not inside, ("answers/ formats floats outside the one formatter "
                        f"(answers/numbers.py): {inside}")
    over = {k: v for k, v in found.items() if len(v) > ALLOWED.get(k, 0)}
    assert not over, ("floats formatted for a reader outside answers/ (use "
                      f"genexpy_nb.answers.numbers, or say why in ALLOWED): {over}")


def test_the_gate_sees_a_formatted_float():
    tree = ast.parse("x = 1.5\ns = f'{x:.2f} {x:g} {x:+.3e} {x:.0%}'\nt = '%.3f' % x\n"
                     "u = format(x, '.1f')\nraise ValueError(f'{x:.1f}')\n")
    hits = list(_float_formats(tree))
    assert len(hits) == 7
    assert {line for line, _ in hits} - _exempt_lines(tree) == {2, 3, 4}
    assert math.isfinite(1.5)
