"""Files a user points at never run code, and a bad file gives a clear error.

The CIFAR-10 reader unpickles with a data-only unpickler; pools and weights are read with
``allow_pickle=False`` / ``weights_only=True``; results tables through polars.
"""

from __future__ import annotations

import json
import os
import pickle
import re
from pathlib import Path

import numpy as np
import pytest

from genexpy_nb import GenexpyInputError
from genexpy_nb.seedpools.tasks import load_cifar10_binary, read_pickled_data


class _WritesMarker:
    """Unpickling this object runs ``os.system`` (the classic malicious pickle)."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


class _OpensMarker:
    """Unpickling this object calls ``builtins.open`` (no shell involved)."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (open, (str(self.marker), "w"))


def _batch(n=20, seed=0, extra=None):
    rng = np.random.default_rng(seed)
    d = {b"batch_label": b"x", b"labels": [int(v) for v in rng.integers(0, 10, n)],
         b"data": rng.integers(0, 256, (n, 3072), dtype=np.uint8),
         b"filenames": [b"x.png"] * n}
    d.update(extra or {})
    return d


def _folder(tmp_path: Path, protocol: int = 4) -> Path:
    f = tmp_path / "cifar"
    f.mkdir()
    for i, name in enumerate(["data_batch_1", "data_batch_2", "test_batch"]):
        (f / name).write_bytes(pickle.dumps(_batch(seed=i), protocol=protocol))
    return f


@pytest.mark.parametrize("payload", [_WritesMarker, _OpensMarker])
@pytest.mark.parametrize("where", ["data_batch_1", "test_batch", "batches.meta", "nested"])
def test_crafted_cifar_pickle_never_runs(tmp_path, payload, where):
    folder = _folder(tmp_path)
    marker = tmp_path / "PWNED"
    evil = payload(marker)
    if where == "nested":  # hidden inside an otherwise valid batch, in a list
        obj = _batch(extra={b"filenames": [b"a.png", evil]})
        name = "data_batch_1"
    else:
        obj = {b"label_names": [evil]} if where == "batches.meta" else evil
        name = where
    (folder / name).write_bytes(pickle.dumps(obj, protocol=4))
    with pytest.raises(GenexpyInputError, match=r"refused without running it") as ei:
        load_cifar10_binary(folder, n_val=0)
    assert not marker.exists()
    msg = str(ei.value)
    assert name in msg and "refusing to load" in msg


def test_object_array_and_numpy_tricks_refused(tmp_path):
    folder = _folder(tmp_path)
    marker = tmp_path / "PWNED"
    # an object-dtype array whose elements would run code
    arr = np.empty(2, dtype=object)
    arr[0] = _WritesMarker(marker)
    (folder / "data_batch_1").write_bytes(pickle.dumps(_batch(extra={b"data": arr}), protocol=2))
    with pytest.raises(GenexpyInputError, match="refused"):
        load_cifar10_binary(folder, n_val=0)
    assert not marker.exists()
    # a record dtype, a numpy scalar: refused too (not plain numeric arrays)
    rec = np.zeros(3, dtype=[("a", "u1"), ("b", "f8")])
    for bad in (rec, np.float64(1.0)):
        (folder / "data_batch_1").write_bytes(pickle.dumps(_batch(extra={b"extra": bad})))
        with pytest.raises(GenexpyInputError, match="refused"):
            load_cifar10_binary(folder, n_val=0)


@pytest.mark.parametrize("protocol", [2, 3, 4, 5])
def test_real_batch_format_still_reads_at_every_protocol(tmp_path, protocol):
    folder = _folder(tmp_path, protocol=protocol)
    # (Python 3 writes bytes at protocol 2 through _codecs.encode(str, 'latin1'): accepted)
    t = load_cifar10_binary(folder, positive=("cat", "dog"), negative=("frog", "ship"), n_val=0)
    d = read_pickled_data(folder / "test_batch")
    data = d[b"data"]
    assert data.dtype == np.uint8 and data.shape == (20, 3072)
    assert np.array_equal(data, _batch(seed=2)[b"data"])
    assert t.X_test.dtype == np.float32 and t.info["official_files_md5"] is False
    # Fortran-ordered arrays survive too
    f = np.asfortranarray(np.arange(12, dtype=np.uint8).reshape(3, 4))
    (tmp_path / "f.pkl").write_bytes(pickle.dumps({b"a": f}, protocol=protocol))
    assert np.array_equal(read_pickled_data(tmp_path / "f.pkl")[b"a"], f)


def test_garbage_and_truncated_batches_are_clear(tmp_path):
    folder = _folder(tmp_path)
    good = (folder / "data_batch_1").read_bytes()
    for content in (good[: len(good) // 2], b"", b"\x00garbage\xff" * 10):
        (folder / "data_batch_1").write_bytes(content)
        with pytest.raises(GenexpyInputError, match="data_batch_1"):
            load_cifar10_binary(folder, n_val=0)
    # bytes that do not match the shape
    (folder / "data_batch_1").write_bytes(pickle.dumps(_batch(extra={b"labels": [1, 2]})))
    with pytest.raises(GenexpyInputError, match="3072"):
        load_cifar10_binary(folder, n_val=0)
    (folder / "data_batch_1").write_bytes(pickle.dumps(_batch(extra={b"labels": [42] * 20})))
    with pytest.raises(GenexpyInputError, match="0..9"):
        load_cifar10_binary(folder, n_val=0)
    (folder / "data_batch_1").write_bytes(good)
    (folder / "batches.meta").write_bytes(pickle.dumps({b"label_names": [b"a", b"b"]}))
    with pytest.raises(GenexpyInputError, match="10 class names"):
        load_cifar10_binary(folder, n_val=0)


def test_pool_file_with_a_pickled_object_is_refused(tmp_path):
    from genexpy_nb.seedpools import load_pool

    marker = tmp_path / "PWNED"
    arr = np.empty(1, dtype=object)
    arr[0] = _WritesMarker(marker)
    p = tmp_path / "evil.npz"
    np.savez(p, gaps=arr, labels=np.zeros(2), meta=np.array(json.dumps({})))
    with pytest.raises(GenexpyInputError, match="pool file"):
        load_pool(p)
    assert not marker.exists()
    (tmp_path / "trunc.npz").write_bytes(p.read_bytes()[:50])
    with pytest.raises(GenexpyInputError, match="pool file"):
        load_pool(tmp_path / "trunc.npz")


def test_weights_file_with_a_pickled_object_is_refused(tmp_path):
    torch = pytest.importorskip("torch")
    from genexpy_nb.seedpools.vit import read_state

    marker = tmp_path / "PWNED"
    p = tmp_path / "w.pt"
    torch.save({"w": torch.zeros(2), "evil": _WritesMarker(marker)}, p)
    with pytest.raises(GenexpyInputError, match="could not read weights"):
        read_state(p)
    assert not marker.exists()


@pytest.mark.parametrize("inline", [True, False])
def test_saved_html_keeps_a_script_payload_a_string(tmp_path, inline):
    import altair as alt
    import polars as pl

    from genexpy_nb.charts import save_chart

    payload = "</script><script>alert(1)</script><!--"
    df = pl.DataFrame({"a": [payload, "b"], "v": [1, 2]})
    chart = alt.Chart(df.to_pandas()).mark_bar().encode(x="a:N", y="v:Q").properties(
        title=payload)
    out = save_chart(chart, tmp_path / "x.html", inline=inline)
    text = out.read_text(encoding="utf-8")
    assert "alert(1)" in text  # the name is there, as data
    assert "<script>alert" not in text and "<!--" not in text
    # the page's own script elements only: the template's, none from the data
    assert text.count("</script>") == (2 if inline else 4)


# ---- no output ever replaces an input -----------------------------------------------------


def _cli_table(folder: Path, name: str = "r.csv") -> Path:
    import polars as pl

    rng = np.random.default_rng(0)
    rows = [dict(dataset=f"d{d}", method=f"M{m}", score=float(0.5 + 0.05 * m
                                                               + rng.normal(0, 0.04)))
            for d in range(8) for m in range(3)]
    folder.mkdir(parents=True, exist_ok=True)
    p = folder / name
    df = pl.DataFrame(rows)
    df.write_parquet(p) if p.suffix == ".parquet" else df.write_csv(p)
    return p


_NSTAR = ["--alternatives", "method", "--target", "score", "--higher-is-better",
          "--generalize", "dataset", "--rep", "20", "--quiet", "--estimators", "approx"]
_COMPARE = ["--alternatives", "method", "--target", "score", "--blocks", "dataset",
            "--higher-is-better", "--figures", ""]


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
@pytest.mark.parametrize("how", ["same", "symlink", "hardlink", "dotted"])
def test_nstar_out_onto_its_input_is_refused(tmp_path, capsys, suffix, how):
    from genexpy_nb.cli import main

    src = _cli_table(tmp_path, "r" + suffix)
    before = src.read_bytes()
    out = {"same": src, "dotted": tmp_path / "." / ("r" + suffix),
           "symlink": tmp_path / ("link" + suffix),
           "hardlink": tmp_path / ("hard" + suffix)}[how]
    if how == "symlink":
        out.symlink_to(src)
    elif how == "hardlink":
        os.link(src, out)
    assert main(["nstar", str(src), *_NSTAR, "--out", str(out)]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "is the input file" in err, err
    assert src.read_bytes() == before


def test_compare_out_folder_holding_its_input_is_refused(tmp_path, capsys):
    from genexpy_nb.cli import main

    src = _cli_table(tmp_path)
    assert main(["compare", str(src), *_COMPARE, "--out", str(tmp_path / "cmp")]) == 0
    # the user moves the table into the earlier output folder and runs again
    moved = tmp_path / "cmp" / "r.csv"
    src.rename(moved)
    before = moved.read_bytes()
    capsys.readouterr()
    assert main(["compare", str(moved), *_COMPARE, "--out", str(tmp_path / "cmp")]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "holds the input file" in err, err
    assert moved.read_bytes() == before
    # the same folder given through a link, and the input itself as the folder
    (tmp_path / "alias").symlink_to(tmp_path / "cmp")
    assert main(["compare", str(moved), *_COMPARE, "--out", str(tmp_path / "alias")]) == 1
    assert main(["compare", str(moved), *_COMPARE, "--out", str(moved)]) == 1
    assert moved.read_bytes() == before


def test_replacing_an_earlier_output_is_said(tmp_path, capsys):
    from genexpy_nb.cli import main

    src = _cli_table(tmp_path)
    for _ in range(2):
        assert main(["nstar", str(src), *_NSTAR, "--out", str(tmp_path / "n.csv")]) == 0
        assert main(["compare", str(src), *_COMPARE, "--out", str(tmp_path / "cmp")]) == 0
    err = capsys.readouterr().err
    # nstar's table, the conclusions written beside it, and compare's folder
    assert err.count("it is replaced when the command succeeds") == 3, err
    assert "--conclusions-out" in err and "conclusions.csv" in err
    assert "'--out' " not in err


# ---- crafted CIFAR batches: bounded in size, refused quickly -----------------------------


def _shared_reference_bomb(levels: int = 10) -> list:
    """10**levels zeros once expanded, from a few hundred bytes (each list shared)."""
    row = [0] * 10
    for _ in range(levels - 1):
        row = [row] * 10
    return row


def _nesting_bomb(depth: int = 200) -> list:
    out: list = [0]
    for _ in range(depth):
        out = [out]
    return out


def _declared_bytes_bomb() -> bytes:
    """A protocol-4 pickle declaring a bytes object of 10**12 bytes, holding 4."""
    return b"\x80\x04\x8e" + (10**12).to_bytes(8, "little") + b"abcd."


CRAFTED_CIFAR = {
    "shared references in data": lambda: pickle.dumps(
        {b"data": _shared_reference_bomb(), b"labels": [0]}, protocol=4),
    "shared references in labels": lambda: pickle.dumps(
        {b"data": b"", b"labels": _shared_reference_bomb()}),
    "nesting 200 deep": lambda: pickle.dumps({b"data": _nesting_bomb(), b"labels": [0]}),
    "declared length 10**12": _declared_bytes_bomb,
    "array shape (2**32, 2**32) in 8 bytes": lambda: _with_shape((2**32, 2**32)),
}


def _with_shape(shape: tuple) -> bytes:
    """A pickled uint8 array of 8 bytes whose state declares another shape."""
    good = pickle.dumps({b"data": np.zeros(8, np.uint8), b"labels": [0]}, protocol=2)
    # the array's state starts (MARK, version 1, shape (8,) ...): swap the shape tuple
    old = b"(K\x01K\x08\x85"
    assert good.count(old) == 1
    return good.replace(old, b"(K\x01" + pickle.dumps(shape, protocol=2)[2:-1])


@pytest.mark.parametrize("kind", sorted(CRAFTED_CIFAR))
def test_crafted_cifar_batch_is_refused_quickly(tmp_path, kind):
    import time

    folder = _folder(tmp_path)
    content = CRAFTED_CIFAR[kind]()
    assert len(content) < 1000
    (folder / "data_batch_1").write_bytes(content)
    t = time.process_time()  # CPU time: the same on a busy machine
    with pytest.raises(GenexpyInputError, match="data_batch_1"):
        load_cifar10_binary(folder, n_val=0)
    assert time.process_time() - t < 1.0


# ---- parameters bounded before work starts ----------------------------------------------


def _small_study():
    import polars as pl

    import genexpy_nb as gx

    rows = [dict(d=f"d{i}", a=f"a{j}", s=float(np.sin(i * j + i)))
            for i in range(20) for j in range(4)]
    return gx.Study(pl.DataFrame(rows), alternatives="a", target="s", generalize="d",
                    higher_is_better=True)


def test_rep_beyond_memory_is_refused_with_the_estimate_and_a_feasible_value():
    import re
    import time

    import genexpy_nb as gx
    from genexpy_nb._validation import available_memory

    study = _small_study()
    t = time.process_time()  # CPU time: the same on a busy machine
    with pytest.raises(GenexpyInputError) as ei:
        gx.analyze(study, [gx.Jaccard(k=1)], rep=10**12, progress=False)
    assert time.process_time() - t < 1.0
    msg = str(ei.value)
    assert msg.startswith("rep=1000000000000:") and "TB of memory" in msg
    feasible = int(re.search(r"use rep=(\d+) or less", msg).group(1))
    assert 2 <= feasible < 10**12
    # the feasible value is accepted by the same check (no work done here)
    from genexpy_nb._validation import check_rep_memory
    from genexpy_nb.generalizability.ngen import _resolve_grid

    assert check_rep_memory(feasible, [20], lambda n: _resolve_grid(None, n, True, False),
                            1) == feasible
    assert available_memory() > 0


def test_alpha_hat_B_beyond_memory_and_too_few_test_points_are_refused():
    from genexpy_nb.variability import alpha_hat, min_reference_size, robust_ks_test

    rng = np.random.default_rng(0)
    with pytest.raises(GenexpyInputError, match=r"B=1000000000: .* use B=\d+ or less"):
        alpha_hat(rng.normal(size=(4, 900)), rng.normal(size=(2, 900)), B=10**9,
                  progress=False)
    # T = 4: the DKW threshold exceeds 1, nothing could be rejected (it returned 0.0 for a
    # candidate shifted by +50 logits); the message gives the smallest T that can reject
    assert min_reference_size(0.01) == 8
    for T in (4, 15):
        ref = rng.normal(size=(5, T))
        with pytest.raises(GenexpyInputError, match="at least 16 test points"):
            alpha_hat(ref, ref[:1] + 50.0, B=5, progress=False)
    ref = rng.normal(size=(5, 16))
    assert alpha_hat(ref, ref[:1] + 50.0, B=5, progress=False)["alpha_hat"][0] == 0.5
    with pytest.raises(GenexpyInputError, match="at least 8 values"):
        robust_ks_test(np.zeros(7), np.ones(7))
    assert robust_ks_test(np.zeros(8), np.ones(8), alpha=0.0).accept is False


# ---- crafted pool files (.npz): declared sizes checked before anything is allocated ------


def _npy(shape, data: bytes = b"\0" * 8, descr: str = "<f8") -> bytes:
    import io

    h = io.BytesIO()
    np.lib.format.write_array_header_1_0(h, {"descr": descr, "fortran_order": False,
                                             "shape": shape})
    return h.getvalue() + data


def _zip(members: dict) -> bytes:
    import io
    import zipfile

    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", zipfile.ZIP_DEFLATED) as z:
        for k, v in members.items():
            z.writestr(k + ".npy", v)
    return b.getvalue()


def _declare_size(zbytes: bytes, member: str, size: int) -> bytes:
    """Patch the uncompressed size of ``member`` in the local and central headers."""
    import struct

    b = bytearray(zbytes)
    name = member.encode()
    for sig, size_at, name_at, len_at in ((b"PK\x03\x04", 22, 30, 26),
                                          (b"PK\x01\x02", 24, 46, 28)):
        i = b.find(sig)
        while i >= 0:
            n = struct.unpack_from("<H", b, i + len_at)[0]
            if b[i + name_at:i + name_at + n] == name:
                struct.pack_into("<I", b, i + size_at, size)
            i = b.find(sig, i + 4)
    return bytes(b)


def _pool_members(**over) -> dict:
    import io

    from genexpy_nb.seedpools.pools import PER_MODEL_KEYS

    def arr(a):
        b = io.BytesIO()
        np.save(b, a)
        return b.getvalue()

    m = {k: arr(np.zeros((2, 3) if k in ("gaps", "val_accuracy_curve") else 2, np.float32))
         for k in PER_MODEL_KEYS}
    m.update(labels=arr(np.zeros(3, np.int8)), test_index=arr(np.arange(3, dtype=np.int32)),
             meta=arr(np.array(json.dumps({"config": {}}))))
    m.update({k: arr(v) for k, v in over.items()})
    return m


def _npy_bomb() -> bytes:
    """An .npz whose member says it inflates to 4 GB (from ~80 bytes)."""
    header = len(_npy((499_999_000,), b""))
    return _declare_size(_zip({"gaps": _npy((499_999_000,), b"\0" * 80)}), "gaps.npy",
                         499_999_000 * 8 + header)


CRAFTED_NPZ = {
    "a member declaring 10**12 floats in 8 bytes": (
        lambda: _zip({"gaps": _npy((10**12,))}), "declares shape"),
    "a member inflating 4 GB from 80 bytes": (_npy_bomb, "compression bomb"),
    "a .npy renamed .npz": (lambda: _npy((1,)), "single NumPy array"),
    "a truncated archive": (lambda: _zip({"gaps": _npy((1,))})[:40], "could not be read"),
    "an empty file": (lambda: b"", "empty file"),
    "text": (lambda: b"gaps,labels\n1,0\n", "not an .npz archive"),
    "a pickled object member": (
        lambda: _zip({"gaps": _npy((1,), b"\x80\x04N.", "|O")}), "Python objects"),
    "1-d gaps": (lambda: _zip(_pool_members(gaps=np.zeros(3, np.float32))), "2-d array"),
    "meta a JSON list": (lambda: _zip(_pool_members(meta=np.array("[1, 2]"))),
                         "JSON object"),
    "meta not JSON": (lambda: _zip(_pool_members(meta=np.array("{not json"))),
                      "unreadable 'meta'"),
    "labels of the wrong length": (
        lambda: _zip(_pool_members(labels=np.zeros(5, np.int8))), "'labels' must hold 3"),
}


@pytest.mark.parametrize("kind", sorted(CRAFTED_NPZ))
def test_crafted_pool_file_is_refused_quickly(tmp_path, kind):
    import time

    from genexpy_nb.seedpools import load_pool

    make, msg = CRAFTED_NPZ[kind]
    content = make()
    assert len(content) < 4000
    p = tmp_path / "pool.npz"
    p.write_bytes(content)
    t = time.process_time()  # CPU time: the same on a busy machine
    with pytest.raises(GenexpyInputError, match=msg):
        load_pool(p)
    assert time.process_time() - t < 1.0


def test_folders_and_symlink_loops_named_as_files_are_clear(tmp_path):
    from genexpy_nb.seedpools import load_pool
    from genexpy_nb.seedpools.tasks import read_pickled_data

    (tmp_path / "x.npz").mkdir()
    (tmp_path / "loop.npz").symlink_to(tmp_path / "loop.npz")
    (tmp_path / "dangling.npz").symlink_to(tmp_path / "nowhere.npz")
    for name, msg in (("x.npz", "is a folder"), ("loop.npz", "loops back"),
                      ("dangling.npz", "does not exist")):
        with pytest.raises(GenexpyInputError, match=msg):
            load_pool(tmp_path / name)
        with pytest.raises(GenexpyInputError, match=msg):
            read_pickled_data(tmp_path / name)


def test_resuming_a_pool_with_damaged_files(tmp_path):
    from genexpy_nb.seedpools.pools import PartialPool

    out = tmp_path / "pool.npz"
    part = PartialPool(out, {"seed": 0, "n_models": 3})
    part.open()
    for i in range(3):
        part.save(i, {"gaps": np.zeros(4, np.float32), "test_accuracy": np.float32(0.5)})
    # a truncated model file: set aside with a warning, that model is trained again
    f = part.dir / "model_00001.npz"
    f.write_bytes(f.read_bytes()[:30])
    with pytest.warns(UserWarning, match="damaged"):
        assert part.done() == {0, 2}
    assert (part.dir / "model_00001.npz.damaged").is_file()
    assert part.load(0)["gaps"].shape == (4,)
    # a damaged config.json: a clear error that says how to start again
    for text in ("{not json", "[1, 2]", ""):
        (part.dir / "config.json").write_text(text)
        with pytest.raises(GenexpyInputError, match="overwrite=True"):
            PartialPool(out, {"seed": 0, "n_models": 3}).open()


def test_truncated_and_damaged_weights_are_clear(tmp_path):
    torch = pytest.importorskip("torch")
    from genexpy_nb.seedpools.vit import read_state

    p = tmp_path / "w.pt"
    torch.save({"w": torch.zeros(100)}, p)
    good = p.read_bytes()
    for content in (good[: len(good) // 2], b"", b"\x00" * 64):
        p.write_bytes(content)
        with pytest.raises(GenexpyInputError, match="could not read weights"):
            read_state(p)
    (tmp_path / "d.pt").mkdir()
    with pytest.raises(GenexpyInputError, match="is a folder"):
        read_state(tmp_path / "d.pt")


# ---- results tables: types from the whole file, every unreadable file named ---------------


def test_read_results_infers_types_from_the_whole_file(tmp_path):
    import polars as pl

    from genexpy_nb.io.public import read_results

    # integer 0/1 scores in the first 150 rows, fractions later (polars' default inference
    # looks at 100 rows and then fails on 0.5)
    rows = "".join(f"d{i},a,{i % 2}\n" for i in range(150)) + "d150,a,0.5\n"
    (tmp_path / "r.csv").write_text("ds,alt,acc\n" + rows)
    df = read_results(tmp_path / "r.csv")
    assert df.schema["acc"] == pl.Float64 and df["acc"][-1] == 0.5
    assert df["acc"].sum() == pytest.approx(75.5)
    # a missing-value marker in row 200 of a numeric column: a null, reported later
    rows = "".join(f"d{i},a,0.{i % 9 + 1}\n" for i in range(199)) + "d199,a,n/a\n"
    (tmp_path / "na.csv").write_text("ds,alt,acc\n" + rows)
    df = read_results(tmp_path / "na.csv")
    assert df.schema["acc"] == pl.Float64 and df["acc"].null_count() == 1
    # ... but a label column keeps its 'NA' (Namibia, North America) as text
    (tmp_path / "lab.csv").write_text("region,acc\nNA,0.5\nEU,0.7\n")
    assert read_results(tmp_path / "lab.csv")["region"].to_list() == ["NA", "EU"]
    # a TSV reads the same way
    (tmp_path / "r.tsv").write_text("ds\talt\tacc\nd0\ta\t1\nd1\ta\t0.25\n")
    assert read_results(tmp_path / "r.tsv")["acc"].to_list() == [1.0, 0.25]


def _parquet_bytes() -> bytes:
    import io

    import polars as pl

    buf = io.BytesIO()
    pl.DataFrame({"a": ["x"] * 50, "s": [0.5] * 50}).write_parquet(buf)
    return buf.getvalue()


BAD_TABLES = {
    "latin1.csv": ("a,s\nM\xfcller,0.5\n".encode("latin-1"),
                   "not UTF-8 text (byte 0xfc on line 2)"),
    "ragged.csv": (b"a,s\nx,1\ny,2,3\n", "line 3 has 3 fields, the header 2"),
    "binary.csv": (b"\x00\x01\x02" * 20, "binary data"),
    "empty.csv": (b"", "empty file"),
    "header.csv": (b"a,s\n", "no rows"),
    "twice.csv": (b"a,a,s\n1,2,3\n", "names column(s) ['a'] more than once"),
    "quote.csv": (b'a,s\n"x,1\n', "could not be read as a CSV table"),
    "semicolon.csv": (b"a;s\nx;1\n", "separated by ';'"),
    "trunc.parquet": (lambda: _parquet_bytes()[:200], "truncated"),
    "garbage.parquet": (b"PAR1 garbage PAR1", "damaged parquet file"),
    "text.parquet": (b"a,b\n1,2\n", "does not start like one"),
    "r.xlsx": (b"PK\x03\x04", "unsupported file type"),
}


@pytest.mark.parametrize("name", sorted(BAD_TABLES))
def test_unreadable_results_files_are_named_with_the_fix(tmp_path, name):
    import time

    from genexpy_nb.io.public import read_results

    content, msg = BAD_TABLES[name]
    (tmp_path / name).write_bytes(content() if callable(content) else content)
    t = time.process_time()  # CPU time: the same on a busy machine
    with pytest.raises(GenexpyInputError, match=re.escape(msg)) as ei:
        read_results(tmp_path / name)
    assert time.process_time() - t < 1.0
    assert name in str(ei.value)


def test_results_paths_that_are_not_files(tmp_path):
    from genexpy_nb.io.public import read_results

    (tmp_path / "x.csv").mkdir()
    (tmp_path / "loop.csv").symlink_to(tmp_path / "loop.csv")
    for name, msg in (("x.csv", "is a folder"), ("loop.csv", "loops back"),
                      ("absent.csv", "not found")):
        with pytest.raises(GenexpyInputError, match=msg):
            read_results(tmp_path / name)
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    with pytest.raises(GenexpyInputError, match="not a regular file"):
        read_results(fifo)  # reading it would wait for a writer forever


# ---- exports degrade instead of crashing -------------------------------------------------

_UNDER_LIMIT = r"""
import sys, warnings
import altair as alt, polars as pl
from genexpy_nb.charts import save_chart
from genexpy_nb._io import ExportSkippedWarning, js_engine_problem
from genexpy_nb.cli import main

out = sys.argv[1]
assert js_engine_problem() is not None
chart = alt.Chart(pl.DataFrame({"a": [1, 2]})).mark_point().encode(x="a:Q")
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    done = save_chart(chart, [f"{out}/c.html", f"{out}/c.png", f"{out}/c.svg", f"{out}/c.json"])
assert [p.name for p in done] == ["c.html", "c.json"], done
assert any(issubclass(m.category, ExportSkippedWarning) for m in w)
print("compare", main(["compare", sys.argv[2], "--alternatives", "method", "--target", "score",
                       "--blocks", "dataset", "--higher-is-better", "--figures",
                       "html,png,svg", "--out", f"{out}/cmp"]))
print("demo", main(["demo", "--rep", "20", "--quiet", "--out", f"{out}/demo"]))
"""


def test_exports_under_an_address_space_limit_write_what_they_can(tmp_path):
    """Under ``ulimit -v 4000000`` vl-convert's engine would abort the process (SIGTRAP):
    HTML and JSON are written, SVG/PNG/PDF through the engine skipped with a note, and the
    CD diagram (drawn without the engine) written in every format."""
    import resource
    import subprocess
    import sys

    src = _cli_table(tmp_path / "in")

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (4_000_000 * 1024, resource.RLIM_INFINITY))

    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    proc = subprocess.run([sys.executable, "-c", _UNDER_LIMIT, str(tmp_path), str(src)],
                          capture_output=True, text=True, timeout=300, preexec_fn=limit,
                          env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "compare 0" in proc.stdout
    assert sorted(p.name for p in (tmp_path / "cmp").iterdir() if p.suffix) == [
        "cd_diagram.html", "cd_diagram.png", "cd_diagram.svg", "mean_ranks.csv",
        "mean_ranks.tex", "missing_results.csv", "omnibus.csv", "paper_table.csv",
        "posthoc.csv", "report.md"]
    # the demo (it aborted with SIGTRAP and left a .demo.partial-* folder): the tables and
    # the HTML figures written, PNG and SVG skipped with a note giving the reason
    assert "demo 0" in proc.stdout
    demo = sorted(p.name for p in (tmp_path / "demo").iterdir() if p.suffix)
    assert "nstar.parquet" in demo and "nstar_vs_N.html" in demo, demo
    assert not [n for n in demo if n.endswith((".png", ".svg"))]
    assert "no .png or .svg" in " ".join(proc.stdout.split())  # not claimed as written
    assert "cannot start under this process's address-space limit" in proc.stderr
    assert not [p for p in tmp_path.iterdir() if ".partial-" in p.name]


def test_a_crashed_run_leaves_no_partial_folder_for_long(tmp_path):
    """A run killed while building its output folder (SIGKILL: no clean-up possible) leaves
    a hidden temporary folder; the next run removes it."""
    import signal
    import subprocess
    import sys

    from genexpy_nb._io import atomic_dir

    code = ("import os, signal, sys\nfrom genexpy_nb._io import atomic_dir\n"
            "with atomic_dir(sys.argv[1]) as tmp:\n"
            "    (tmp / 'half.txt').write_text('x')\n"
            "    os.kill(os.getpid(), signal.SIGKILL)\n")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    proc = subprocess.run([sys.executable, "-c", code, str(tmp_path / "out")], env=env,
                          timeout=120)
    assert proc.returncode == -signal.SIGKILL
    left = [p for p in tmp_path.iterdir() if ".partial-" in p.name]
    assert len(left) == 1 and not (tmp_path / "out").exists()
    with atomic_dir(tmp_path / "out") as tmp:
        (tmp / "a.txt").write_text("complete")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_every_crafted_file_is_refused_under_a_4_gb_address_space_limit():
    """The sweep's file cases (CIFAR batches, pools, tables, weights, resumed runs) in a
    process limited to 4 GB of address space (ulimit -v 4000000): each refused clearly."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    proc = subprocess.run(
        [sys.executable, str(root / "scripts" / "bad_input_sweep.py"), "--files-only",
         "--limit-as", "4000000"], capture_output=True, text=True, timeout=600,
        env={**os.environ, "PYTHONPATH": str(root)})
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    assert summary["findings"] == 0 and summary["clear"] >= 40, summary
