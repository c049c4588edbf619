"""``genexpy-nb precompile``: the kernels compiled once, then loaded by every later process.

Runs in fresh interpreters with an empty numba cache of their own (``NUMBA_CACHE_DIR``), as
after a new installation.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# a later session: the kernels' routes on other tiny inputs, then what numba did
LATER = """
import json
import numpy as np, polars as pl
import genexpy_nb as gx
from genexpy_nb import variability as vb
from genexpy_nb.example.precompile import kernel_routes
from genexpy_nb._numba import core, variability as kv
rng = np.random.default_rng(5)
with kernel_routes():
    N, na = 9, 80
    df = pl.DataFrame({"c": np.repeat(np.arange(N), na).astype(str),
                       "a": np.tile([f"x{i}" for i in range(na)], N),
                       "y": rng.normal(size=N * na)})
    st = gx.Study(df, alternatives="a", target="y", generalize="c", higher_is_better=False)
    gx.analyze(st, [gx.Borda("x3"), gx.Jaccard(2), gx.Mallows(), gx.RBF()], rep=3,
               progress=False)
    vb.alpha_hat(rng.normal(size=(4, 30)), rng.normal(size=(3, 30)), B=3, progress=False)
    vb.ks_to_reference(rng.normal(size=(4, 30)), rng.normal(size=(3, 30)), alpha=0.1)
# the report's bootstrap (tasks resampled) from a long table as notebooks pass it, and
# Nemenyi's test
from genexpy_nb import aggregates as ag, significance as sig
from genexpy_nb._numba import aggregates as ka
long = pl.DataFrame({"m": np.repeat(["p", "q", "r"], 10), "t": np.tile(np.repeat(["u", "v"], 5), 3),
                     "k": np.tile(np.arange(5), 6), "s": rng.random(30)})
with kernel_routes():
    ag.interval_estimates(long, ["iqm", "mean"], alternatives="m", target="s", task="t",
                          run="k", reps=5, seed=2, progress=False, task_bootstrap=True)
    sig.posthoc_nemenyi(rng.random((7, 5)), higher_is_better=False)
from genexpy_nb._numba import studentized as ks
fs = [core.above_bitsets, core.popcount_gram, core.rbf_rows, core.mmd_rows,
      core.first_order, kv.trimmed_ks_kernel, ka.bootstrap_aggregates, ks.range_sf]
print(json.dumps({f.__name__: [sum(f.stats.cache_misses.values()),
                               sum(f.stats.cache_hits.values())] for f in fs}))
"""

#: the groups the default run compiles, and those only ``--all`` adds
DEFAULT = ["n* of large studies", "conclusions: the order", "conclusions: the plan",
           "the report's bootstrap, Nemenyi",
           "alpha-hat and trimmed KS"]
LAZY = ["aggregates, Bayesian tests", "rankings with ties"]


def _run(args, cache):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": str(ROOT),
           "GENEXPY_NB_NUMBA_CACHE": "1"}
    out = subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env,
                         cwd=ROOT, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


def test_precompile_fills_the_cache_that_later_sessions_load(tmp_path):
    first = _run(["-m", "genexpy_nb", "precompile", "--quiet"], tmp_path)
    lines = first.strip().splitlines()
    for g in DEFAULT:
        line = next(ln for ln in lines if ln.startswith(g))
        assert " compiled (" in line, first  # an empty cache: everything is compiled
    assert not any(ln.startswith(g) for g in LAZY for ln in lines), first
    assert any(tmp_path.rglob("*.nbc")), "nothing was written to the cache"
    # a later session compiles nothing: every kernel its calls need comes from the cache
    later = json.loads(_run(["-c", LATER], tmp_path).strip().splitlines()[-1])
    for name, (misses, hits) in later.items():
        assert misses == 0, f"{name} was compiled again: {later}"
        assert hits >= 1, f"{name} was not used: {later}"
    # --all adds the kernels nothing calls by default; the others are in the cache
    again = _run(["-m", "genexpy_nb", "precompile", "--all", "--quiet"], tmp_path)
    for g in DEFAULT + LAZY:
        line = next(ln for ln in again.strip().splitlines() if ln.startswith(g))
        assert ("already in the cache" in line) == (g in DEFAULT), again


def test_kernel_routes_restore_the_size_bounds():
    import dataclasses

    import pytest

    from genexpy_nb import config
    from genexpy_nb.example.precompile import kernel_routes

    before = dataclasses.replace(config.ROUTES)
    try:
        with kernel_routes():
            assert config.ROUTES.mallows_blas_max < 0 and config.ROUTES.ks_numpy_max_work < 0
            raise KeyboardInterrupt
    except KeyboardInterrupt:
        pass
    assert config.ROUTES == before
    with pytest.raises(ValueError, match="unknown route bound"):
        with config.force_route(nope=1):
            pass


# the first kernel compiled without NUMBA_CACHE_DIR: where numba writes it
DEFAULT_DIR = """
import json, sys
from pathlib import Path
import numba
import genexpy_nb
from genexpy_nb import config, distributions as ds
from genexpy_nb.example.precompile import kernel_routes
from genexpy_nb._numba import distributions as kd

@numba.njit(cache=True)
def users_own(x):
    return x + 1

users_own(1)
with kernel_routes():
    ds.weak_orders(3)
print(json.dumps({"dir": config.numba_cache_dir(), "numba": numba.config.CACHE_DIR,
                  "kernel": kd._enumerate_weak_orders.stats.cache_path,
                  "users": users_own.stats.cache_path,
                  "package": str(Path(genexpy_nb.__file__).parent)}))
"""


def test_kernels_are_cached_in_the_users_cache_folder_not_in_the_package(tmp_path):
    """A reinstall must find no compiled file of ours in the installed package's folders."""
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env.update({"XDG_CACHE_HOME": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT),
                "GENEXPY_NB_NUMBA_CACHE": "1"})
    script = tmp_path / "own.py"  # the user's own numba function, in the user's folder
    script.write_text(DEFAULT_DIR)
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         env=env, cwd=tmp_path, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    ours = tmp_path / "cache" / "genexpy_nb" / "numba"
    assert got["dir"] == str(ours)
    assert Path(got["kernel"]).parent == ours
    assert list(Path(got["kernel"]).glob("distributions._enumerate_weak_orders-*.nbc"))
    # numba's own settings are left as they were: the user's function is cached beside it
    assert got["numba"] == ""
    assert Path(got["users"]) == tmp_path / "__pycache__"
    assert not [p for p in Path(got["package"]).rglob("*.nb[ic]")
                if p.stat().st_mtime > script.stat().st_mtime]


def test_a_cache_folder_the_user_chose_is_respected(monkeypatch, tmp_path):
    from genexpy_nb import config

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    import numba

    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path))
    assert config.numba_cache_dir() == str(tmp_path)
    monkeypatch.setattr(numba.config, "CACHE_DIR", "")
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert config.numba_cache_dir() == str(tmp_path / "xdg" / "genexpy_nb" / "numba")


def test_the_compile_note_speaks_of_compiling_only(monkeypatch, capsys):
    """A first call that compiles says so after a second; one that loads its kernel from
    the cache says nothing, however long it takes (a busy machine); --quiet says nothing."""
    import time
    from collections import Counter
    from types import SimpleNamespace

    from genexpy_nb import _numba

    def fresh(misses):  # a numba function not called yet in this process
        return SimpleNamespace(signatures=[], stats=SimpleNamespace(cache_misses=misses))

    monkeypatch.setattr(_numba, "_NOTE_AFTER", 0.01)
    monkeypatch.setattr(_numba, "_NOTE_POLL", 0.01)
    monkeypatch.setattr(_numba, "_NOTED", False)
    with _numba.compile_note(fresh(Counter()), "k"):  # loading from the cache
        time.sleep(0.3)
    time.sleep(0.05)
    assert capsys.readouterr().err == ""
    with _numba.no_compile_note(True), _numba.compile_note(fresh(Counter(a=1)), "k"):
        time.sleep(0.3)
    time.sleep(0.05)
    assert capsys.readouterr().err == "" and _numba._NOTED is False
    misses = Counter()
    with _numba.compile_note(fresh(misses), "the k kernel"):
        time.sleep(0.1)
        misses["sig"] += 1  # numba found nothing in the cache: it compiles
        time.sleep(0.3)
    assert "preparing the k kernel (compiled on first use" in capsys.readouterr().err
    assert _numba._NOTED is True
