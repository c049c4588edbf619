"""Work bounded up front: large legal input finishes (vectorised) or is refused before the
work starts, with the size and the fix in the message.

The timings of these paths are measured in ``benchmarks/``, never asserted here; the tests
check the answers (against slow, obviously correct twins) and the refusals.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from genexpy_nb import GenexpyInputError
from genexpy_nb.significance import cliques


def naive_cliques(names: list[str], mean_ranks: list[float], sig: set[frozenset]) -> list:
    """Maximal runs of consecutive alternatives (by mean rank) with no significant pair."""
    order = sorted(range(len(names)), key=lambda i: mean_ranks[i])  # stable, as polars
    nm = [names[i] for i in order]
    out, last_hi = [], 0
    for lo in range(len(nm)):
        hi = lo
        while hi + 1 < len(nm) and not any(
                frozenset((nm[a], nm[b])) in sig
                for a in range(lo, hi + 2) for b in range(a + 1, hi + 2)):
            hi += 1
        if hi > lo and hi > last_hi:
            out.append(nm[lo:hi + 1])
            last_hi = hi
    return out


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(k=st.integers(2, 9), data=st.data())
def test_cliques_from_pairwise_equal_the_naive_twin(k, data):
    names = [f"m{i}" for i in range(k)]
    mr = data.draw(st.lists(st.sampled_from([1.0, 1.5, 2.0, 2.5, 3.0, 4.0]), min_size=k,
                            max_size=k))
    pairs = [(names[a], names[b]) for a in range(k) for b in range(a + 1, k)]
    flags = data.draw(st.lists(st.sampled_from([True, False, None]), min_size=len(pairs),
                               max_size=len(pairs)))
    swap = data.draw(st.lists(st.booleans(), min_size=len(pairs), max_size=len(pairs)))
    pw = pl.DataFrame({"alternative_1": [b if s else a for (a, b), s in zip(pairs, swap)],
                       "alternative_2": [a if s else b for (a, b), s in zip(pairs, swap)],
                       "significant": flags}, schema={"alternative_1": pl.String,
                                                      "alternative_2": pl.String,
                                                      "significant": pl.Boolean})
    ranks = pl.DataFrame({"alternative": names, "mean_rank": mr})
    got = cliques(ranks, pairwise=pw)["members"].to_list()
    sig = {frozenset(p) for p, f in zip(pairs, flags) if f}
    assert got == naive_cliques(names, mr, sig)


def test_compare_of_many_alternatives_finishes():
    """2,000 alternatives x 20 blocks: 2 million pairs; the groups are vectorised."""
    from genexpy_nb.significance import compare

    k, n = 2000, 20
    rng = np.random.default_rng(0)
    df = pl.DataFrame({"d": np.repeat([f"d{i}" for i in range(n)], k),
                       "m": np.tile([f"m{j}" for j in range(k)], n),
                       "acc": rng.random(n * k) + np.tile(np.linspace(0, 3, k), n)})
    res = compare(df, alternatives="m", target="acc", blocks="d", higher_is_better=True)
    assert res.posthoc.height == k * (k - 1) // 2
    assert res.mean_ranks.height == k and res.mean_ranks["group"].null_count() == 0


def test_compare_refuses_all_pairs_beyond_the_limit():
    from genexpy_nb.answers.compare import MAX_PAIRS
    from genexpy_nb.significance import compare

    k = int(np.ceil(np.sqrt(2 * MAX_PAIRS))) + 2
    df = pl.DataFrame({"d": np.repeat(["d0", "d1", "d2"], k),
                       "m": np.tile([f"m{j}" for j in range(k)], 3),
                       "acc": np.arange(3 * k, dtype=float)})
    with pytest.raises(GenexpyInputError, match=r"alternatives.*pairs.*control="):
        compare(df, alternatives="m", target="acc", blocks="d", higher_is_better=True)


def test_win_tie_loss_refuses_too_many_pairs_up_front(monkeypatch):
    """The bound (5,000,000 pairs) is checked before any pair is computed."""
    from genexpy_nb.significance import pairwise_views, win_tie_loss

    v = np.random.default_rng(0).random((2, 3200))
    with pytest.raises(GenexpyInputError, match=r"3,200 alternatives make 5,118,400 pairs.*"
                                                r"order=\[\.\.\.\]"):
        win_tie_loss(v, higher_is_better=True)

    def never(*args, **kwargs):
        raise AssertionError("computed before refusing")

    monkeypatch.setattr(pairwise_views, "_pair_stats", never)
    v = np.random.default_rng(0).random((30, 2600))  # 3,378,700 pairs x 30 differences
    with pytest.raises(GenexpyInputError, match=r"101,361,000 paired differences.*"
                                                r"100,000,000 differences"):
        win_tie_loss(v, higher_is_better=True)


@pytest.mark.slow
def test_win_tie_loss_at_2000_alternatives_finishes():
    """2,000 alternatives x 10 conditions: 1,999,000 pairs, vectorised (about 5 s)."""
    from genexpy_nb.significance import win_tie_loss

    v = np.round(np.random.default_rng(1).random((10, 2000)), 2)  # ties: every p-value branch
    res = win_tie_loss(v, higher_is_better=True, progress=False)
    assert res.height == 2000 * 1999
    assert (res["wins"] + res["ties"] + res["losses"] == 10).all()
    assert res["pvalue"].is_between(0, 1).all()


def test_nstar_refuses_a_kernel_matrix_that_cannot_fit_before_building_it(monkeypatch):
    """A kernel matrix of about 3,000 distinct rankings, priced at 24 GB, against 100 MB."""
    import genexpy_nb as gx
    import genexpy_nb._validation as v

    n, k = 3000, 8
    rng = np.random.default_rng(0)
    df = pl.DataFrame({"d": np.repeat(np.arange(n), k), "m": np.tile(list("abcdefgh"), n),
                       "acc": rng.random(n * k)})
    study = gx.Study(df, alternatives="m", target="acc", generalize="d", higher_is_better=True)
    monkeypatch.setattr(v, "available_memory", lambda: 100 * 2**20)
    from genexpy_nb import config
    from genexpy_nb.generalizability import analysis

    monkeypatch.setattr(analysis, "_GRAM_CELL_BYTES", 24.0 * 2**30 / (3000 * 3000))
    # the full grid (the path up to config.ROUTES.large_study_min_N conditions) builds the
    # matrix on all distinct rankings: refused up front
    with config.force_route(large_study_min_N=10**9), pytest.raises(
            GenexpyInputError, match=r"3,000 conditions.*kernel matrix.*at most "
                                     r"about [\d,]+ conditions"):
        gx.GeneralizabilityAnalysis(study, [gx.Jaccard(k=1)], rep=10, progress=False)
    # the large-study path keeps a matrix only on a bounded support (kernel values on the fly
    # beyond): the same study runs in the same 100 MB
    res = gx.GeneralizabilityAnalysis(study, [gx.Mallows()], rep=10, progress=False)
    assert res.nstar(alphas=[0.95], deltas=[0.05])["grid"].str.starts_with("thinned").all()


# ---- signals: no partial output folder ------------------------------------------------------


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGHUP"])
def test_a_signal_leaves_no_partial_output_folder(tmp_path, signame):
    """The demo builds its folder under a hidden temporary name; kill it while it does."""
    import os
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "demo_out"
    env = {**os.environ, "GENEXPY_NB_PROGRESS": "0"}
    proc = subprocess.Popen([sys.executable, "-m", "genexpy_nb", "demo", "--out", str(out),
                             "--quiet", "--rep", "200"], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 240
        while not list(tmp_path.glob(".demo_out.partial-*")):
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the demo never started its folder"
            time.sleep(0.05)
        proc.send_signal(getattr(signal, signame))
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "interrupted (no output written)" in err
    assert not out.exists()
    assert not list(tmp_path.glob(".demo_out.*")), list(tmp_path.iterdir())


def test_a_user_file_in_an_earlier_output_folder_is_never_deleted(tmp_path):
    from genexpy_nb._io import atomic_dir

    out = tmp_path / "out"
    with atomic_dir(out) as tmp:
        (tmp / "a.csv").write_text("x")
        (tmp / "sub").mkdir()
        (tmp / "sub" / "b.csv").write_text("y")
    with atomic_dir(out) as tmp:  # ours only: replaced
        (tmp / "a.csv").write_text("x2")
    assert (out / "a.csv").read_text() == "x2" and not (out / "sub").exists()
    (out / "my notes.txt").write_text("mine")
    with pytest.raises(GenexpyInputError, match=r"1 file\(s\) in it were not.*'my notes.txt'"):
        with atomic_dir(out) as tmp:
            (tmp / "a.csv").write_text("x3")
    assert (out / "my notes.txt").read_text() == "mine" and (out / "a.csv").read_text() == "x2"


def test_an_npz_member_that_inflates_hugely_is_refused_before_it_is_read(tmp_path):
    """80 MB of zeros compress about 1000 times: refused from the archive's directory."""
    from genexpy_nb._io import read_npz

    p = tmp_path / "bomb.npz"
    np.savez_compressed(p, gaps=np.zeros((10, 1_000_000)), labels=np.zeros(10, np.int8))
    assert p.stat().st_size < 1_000_000
    with pytest.raises(GenexpyInputError, match=r"'gaps' inflates from .* \(more than 200"):
        read_npz(p, "pool file")


def test_a_parquet_file_that_inflates_beyond_memory_is_refused_before_it_is_read(
        tmp_path, monkeypatch):
    """A few kB on disk, 16 MB once decompressed, against 4 MB of memory: refused up front."""
    import genexpy_nb as gx
    import genexpy_nb._validation as v

    path = tmp_path / "bomb.parquet"
    pl.DataFrame({"model": ["a"] * 1_000_000, "acc": np.zeros(1_000_000)}).write_parquet(
        path, compression="zstd")
    assert path.stat().st_size < 100_000
    monkeypatch.setattr(v, "available_memory", lambda: 4 * 2**20)

    def never(*args, **kwargs):
        raise AssertionError("read before refusing")

    monkeypatch.setattr(pl, "read_parquet", never)
    with pytest.raises(GenexpyInputError, match=r"bomb\.parquet.*once decompressed.*"
                                                r"pl\.scan_parquet"):
        gx.read_results(path)


def test_compare_shows_a_bar_over_long_post_hoc_tests(monkeypatch, capsys):
    """Past 200,000 pairs (5,000 alternatives: 12,497,500 pairs, ~15 s) the step has a bar."""
    import importlib

    import genexpy_nb as gx

    compare_module = importlib.import_module("genexpy_nb.answers.compare")
    monkeypatch.setenv("GENEXPY_NB_PROGRESS", "1")
    monkeypatch.setattr(compare_module, "_POSTHOC_BAR_PAIRS", 2)
    rng = np.random.default_rng(0)
    df = pl.DataFrame({"d": np.repeat([f"d{i}" for i in range(6)], 4),
                       "m": np.tile(list("abcd"), 6), "acc": rng.random(24)})
    gx.significance.compare(df, alternatives="m", target="acc", blocks="d",
                            higher_is_better=True)
    assert "post-hoc tests of 6 pairs" in capsys.readouterr().err


def _many(k: int, n: int = 20) -> pl.DataFrame:
    rng = np.random.default_rng(0)
    return pl.DataFrame({"d": np.repeat([f"d{i}" for i in range(n)], k),
                         "m": np.tile([f"m{j}" for j in range(k)], n),
                         "acc": rng.random(n * k) + np.tile(np.linspace(0, 3, k), n)})


def test_compare_refuses_a_post_hoc_step_that_cannot_fit_in_memory(monkeypatch):
    """The all-pairs tables' memory is estimated from k before any test runs; the error
    gives it, the memory available, and what fits (one control, or fewer alternatives)."""
    import genexpy_nb._validation as validation
    from genexpy_nb.significance import compare

    monkeypatch.setattr(validation, "available_memory", lambda: 2**30)
    df = _many(3000)
    with pytest.raises(GenexpyInputError, match=r"3,000 alternatives make 4,498,500 pairs: the "
                       r"post-hoc tests and their tables need about 2.9 GB of memory, and "
                       r"1.1 GB is available; compare against one alternative with control="
                       r"NAME \(2,999 comparisons.*keep at most 1,\d{3} alternatives"):
        compare(df, alternatives="m", target="acc", blocks="d", higher_is_better=True)
    # against one control: k - 1 pairs, computed as such (not all pairs then a selection)
    res = compare(df, alternatives="m", target="acc", blocks="d", higher_is_better=True,
                  control="m0")
    assert res.posthoc.height == 2999
    assert set(res.posthoc["alternative_1"]) == {"m0"}


def test_compare_against_a_control_equals_the_all_pairs_selection():
    from genexpy_nb.significance import compare

    df = _many(12, 9)
    for posthoc in ("conover", "siegel"):
        full = compare(df, alternatives="m", target="acc", blocks="d", higher_is_better=True,
                       posthoc=posthoc, p_adjust=None)
        one = compare(df, alternatives="m", target="acc", blocks="d", higher_is_better=True,
                      posthoc=posthoc, p_adjust=None, control="m5")
        sel = full.posthoc.filter((pl.col("alternative_1") == "m5")
                                  | (pl.col("alternative_2") == "m5"))
        assert np.allclose(np.sort(sel["pvalue_raw"].to_numpy()),
                           np.sort(one.posthoc["pvalue_raw"].to_numpy()), rtol=0, atol=1e-15)


def test_compare_under_a_4_gb_limit_is_a_clear_error_not_a_crash(tmp_path):
    """5,000 alternatives x 20 blocks under ``ulimit -v 4 GB``: exit 1 with the sizes, never
    a MemoryError ("this is a bug", exit 3) or an abort in polars' allocator (exit 134)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    src = tmp_path / "many.parquet"
    _many(5000).write_parquet(src)
    code = ("import resource, sys; resource.setrlimit(resource.RLIMIT_AS, (4 * 2**30, "
            "resource.RLIM_INFINITY)); from genexpy_nb.cli import main; sys.exit(main("
            "sys.argv[1:]))")
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run(
        [sys.executable, "-c", code, "compare", str(src), "--alternatives", "m", "--target",
         "acc", "--blocks", "d", "--higher-is-better", "--figures", "", "--quiet", "--out",
         str(tmp_path / "out")], capture_output=True, text=True, timeout=600,
        env={**os.environ, "PYTHONPATH": str(root), "GENEXPY_NB_PROGRESS": "0"})
    if done.returncode == 0:  # a 4 GB address space was enough here (a lean build)
        return
    assert done.returncode == 1, done.stderr[-2000:]
    assert "5,000 alternatives make 12,497,500 pairs" in done.stderr
    assert "--control" in done.stderr and "Traceback" not in done.stderr
