"""CI runs the README's two commands verbatim: `.ci/run` and README.md stay equal.

The README's section "The two commands" holds two fenced ``bash`` blocks of one line each (the
main job, then the tests); `.ci/run` must run exactly those two lines, in that order, and set
nothing else up (no exported variables, no other commands), so that what CI proves is what a
user who follows the README gets.
"""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: lines .ci/run may hold besides the README's commands: shell options and going to the
#: repository root (a no-op where CI starts, which is the root)
ALLOWED = {"set -euo pipefail", 'cd "$(dirname "$0")/.."'}


def readme_commands(text: str) -> list[str]:
    """The command lines of the fenced bash blocks of the README's "The two commands"."""
    m = re.search(r"^## The two commands\n(.*?)(?=^## )", text, flags=re.S | re.M)
    assert m, "README.md has no section '## The two commands'"
    blocks = re.findall(r"^```bash\n(.*?)^```", m.group(1), flags=re.S | re.M)
    lines = [ln.strip() for b in blocks for ln in b.splitlines() if ln.strip()]
    return lines


def ci_lines(text: str) -> list[str]:
    """The non-comment, non-blank lines of a shell script."""
    return [ln.strip() for ln in text.splitlines()
            if ln.strip() and not ln.strip().startswith("#")]


def test_readme_has_two_one_line_commands():
    cmds = readme_commands((ROOT / "README.md").read_text())
    assert len(cmds) == 2, cmds
    main_job, tests = cmds
    assert "pip install ." in main_job and "genexpy-nb demo" in main_job
    assert "scripts/test.sh" in tests


def test_ci_runs_exactly_the_readme_commands():
    cmds = readme_commands((ROOT / "README.md").read_text())
    lines = ci_lines((ROOT / ".ci" / "run").read_text())
    commands = [ln for ln in lines if ln not in ALLOWED]
    assert commands == cmds, (
        "'.ci/run' must run the README's two commands verbatim and in order;\n"
        f"README: {cmds}\n.ci/run: {commands}")


def test_ci_sets_nothing_the_readme_does_not_say():
    text = (ROOT / ".ci" / "run").read_text()
    for ln in ci_lines(text):
        assert not re.match(r"(export|declare|typeset|readonly|source|\.)\s", ln), ln
        # a variable assignment on its own line (VAR=value) would reach both commands
        assert not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=\S*", ln), ln


def test_ci_script_is_bash_that_parses():
    import subprocess

    proc = subprocess.run(["bash", "-n", str(ROOT / ".ci" / "run")], capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr


def test_parser_rejects_an_extra_or_reordered_command():
    """The comparison can fail: a changed README or .ci/run is caught."""
    readme = (ROOT / "README.md").read_text()
    cmds = readme_commands(readme)
    assert ci_lines("\n".join(reversed(cmds))) != cmds
    assert [ln for ln in ci_lines("\n".join(["export X=1", *cmds])) if ln not in ALLOWED] \
        != cmds
