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


# ---- the public data: found beside the clone (CI), downloaded, or skipped offline ---------

def _clone_with_finder(tmp_path: Path) -> Path:
    """A folder laid out as a clone: clone/scripts/public_data.py, nothing beside it."""
    import shutil

    clone = tmp_path / "clone"
    (clone / "scripts").mkdir(parents=True)
    shutil.copy(ROOT / "scripts" / "public_data.py", clone / "scripts")
    return clone


def _find(clone: Path, tmp_path: Path, **env: str):
    import subprocess
    import sys

    base = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT),
            "XDG_CACHE_HOME": str(tmp_path / "cache"),
            # no network: every download goes to a closed port on this machine
            "HTTPS_PROXY": "http://127.0.0.1:9", "HTTP_PROXY": "http://127.0.0.1:9",
            "NO_PROXY": ""}
    return subprocess.run([sys.executable, str(clone / "scripts" / "public_data.py")],
                          capture_output=True, text=True, timeout=300,
                          env={**base, **env})


def test_the_data_beside_the_clone_is_found_as_in_ci(tmp_path, public_data_dir):
    """CI lays ../shared/data beside its clone: the README's command finds it there, with no
    setting (this is how .ci/run still uses ../shared/data)."""
    real = public_data_dir
    clone = _clone_with_finder(tmp_path)
    beside = tmp_path / "shared" / "data"
    beside.mkdir(parents=True)
    for f in real.glob("*.parquet"):
        (beside / f.name).symlink_to(f)
    proc = _find(clone, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"found {beside}"
    # a file that is not the published one is not taken: downloaded instead (offline here)
    (beside / "encoders_results.parquet").unlink()
    (beside / "encoders_results.parquet").write_bytes(b"PAR1 not the file")
    proc = _find(clone, tmp_path)
    assert proc.returncode == 0 and proc.stdout.startswith("missing "), proc


def test_offline_without_data_the_command_goes_on_and_says_why(tmp_path):
    clone = _clone_with_finder(tmp_path)
    proc = _find(clone, tmp_path)
    assert proc.returncode == 0, proc.stderr
    line = proc.stdout.strip()
    assert line.startswith("missing could not download ") and "\n" not in line, line
    assert "GENEXPY_NB_DATA_DIR" in line and "offline?" in line
    assert "downloading encoders_results.parquet" in proc.stderr  # it tried, and said so
    # in CI the data must be there: an error, not a skip
    ci = _find(clone, tmp_path, CI="true")
    assert ci.returncode == 1 and "CI must have them" in ci.stderr
    # a folder you chose that lacks the files is an error naming it (exit 2)
    chosen = _find(clone, tmp_path, GENEXPY_NB_DATA_DIR=str(tmp_path))
    assert chosen.returncode == 2 and "encoders_results.parquet not found" in chosen.stderr


def test_the_scripts_read_the_finders_line():
    """test.sh and docs.sh take the folder (or the reason) from scripts/public_data.py, and
    neither sets GENEXPY_NB_DATA_DIR to ../shared/data itself any more."""
    for script in ("test.sh", "docs.sh"):
        text = (ROOT / "scripts" / script).read_text()
        assert 'data_line=$("$VPY" scripts/public_data.py)' in text, script
        assert 'export GENEXPY_NB_NO_DATA="${data_line#missing }"' in text, script
        assert "GENEXPY_NB_DATA_DIR=../shared/data" not in text.replace("# ", ""), script
