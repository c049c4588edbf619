
import pytest

from genexpy_nb.io import public as data
from genexpy_nb.io.public import DatasetUnavailableError, fetch_public_file


def test_reads_from_data_dir_without_network(public_data_dir, monkeypatch):
    def no_network(*a, **k):  # pragma: no cover - must not be called
        raise AssertionError("network used although GENEXPY_NB_DATA_DIR is set")

    import pooch

    monkeypatch.setattr(pooch, "retrieve", no_network)
    df = data.load_encoders()
    assert df.shape == (61812, 7)
    assert set(df.columns) == {"dataset", "model", "scoring", "tuning", "encoder", "cv_score",
                               "time"}
    bb = data.load_bigbench()
    assert bb.shape == (183819, 5)


def test_missing_file_in_data_dir_names_file_url_variable(tmp_path, monkeypatch):
    monkeypatch.setenv("GENEXPY_NB_DATA_DIR", str(tmp_path))
    with pytest.raises(DatasetUnavailableError) as e:
        fetch_public_file("encoders_results.parquet")
    msg = str(e.value)
    assert "encoders_results.parquet" in msg and "GENEXPY_NB_DATA_DIR" in msg
    assert "https://raw.githubusercontent.com/DrCohomology/genexpy/" in msg


def test_relative_data_dir_is_resolved_against_cwd_and_said_so(tmp_path, monkeypatch):
    (tmp_path / "here").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GENEXPY_NB_DATA_DIR", "here")
    with pytest.raises(DatasetUnavailableError) as e:
        fetch_public_file("encoders_results.parquet")
    assert "relative path" in str(e.value) and str(tmp_path) in str(e.value)


def test_test_script_makes_a_relative_data_dir_absolute(tmp_path):
    """scripts/test.sh resolves GENEXPY_NB_DATA_DIR against the folder it was run from."""
    import subprocess
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "scripts" / "test.sh"
    head = script.read_text().split('cd "$(dirname "$0")/.."')[0]  # the part before the cd
    (tmp_path / "d").mkdir()
    out = subprocess.run(["bash", "-c", head + 'echo "$GENEXPY_NB_DATA_DIR"'], cwd=tmp_path,
                         env={"PATH": "/usr/bin:/bin", "GENEXPY_NB_DATA_DIR": "d/../d"},
                         capture_output=True, text=True, check=True).stdout.strip()
    assert out == str((tmp_path / "d").resolve())


def test_corrupted_file_rejected(tmp_path, monkeypatch):
    (tmp_path / "encoders_results.parquet").write_bytes(b"not the file")
    monkeypatch.setenv("GENEXPY_NB_DATA_DIR", str(tmp_path))
    with pytest.raises(DatasetUnavailableError, match="sha256"):
        fetch_public_file("encoders_results.parquet")


def test_download_failure_is_one_clear_error(tmp_path, monkeypatch):
    monkeypatch.delenv("GENEXPY_NB_DATA_DIR", raising=False)
    import pooch

    def fail(*a, **k):
        raise OSError("network unreachable")

    monkeypatch.setattr(pooch, "retrieve", fail)
    with pytest.raises(DatasetUnavailableError) as e:
        fetch_public_file("bigbench_results_prefiltered.parquet")
    assert "GENEXPY_NB_DATA_DIR" in str(e.value) and "network unreachable" in str(e.value)


def test_download_uses_pinned_url_and_hash(monkeypatch, tmp_path):
    monkeypatch.delenv("GENEXPY_NB_DATA_DIR", raising=False)
    seen = {}
    import pooch

    def fake(url, known_hash, fname, path, downloader):
        seen.update(url=url, known_hash=known_hash, fname=fname)
        return str(tmp_path / fname)

    monkeypatch.setattr(pooch, "retrieve", fake)
    fetch_public_file("encoders_results.parquet")
    assert "5fccedcca860f0612116507e81bf41c1a7e81702" in seen["url"]
    assert seen["known_hash"] == ("sha256:0fd630e6217ba94d0d60f87fad82ff496c3abb404b948f27d7f9"
                                  "bcfa89b1cf84")


def test_unknown_file():
    with pytest.raises(data.GenexpyInputError, match="unknown data file"):
        fetch_public_file("x.parquet")




def _serve(folder):
    """A throwaway HTTP server on 127.0.0.1 serving ``folder``: (base URL, stop)."""
    import functools
    import http.server
    import threading

    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(folder))
    handler.log_message = lambda *a, **k: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()

    def stop():
        server.shutdown()
        server.server_close()

    return f"http://127.0.0.1:{server.server_address[1]}/", stop


def test_fetch_public_data_downloads_once_checked_by_hash(tmp_path, monkeypatch, capsys):
    """The real download path (pooch, a local server): every file once, into one folder that
    then serves as GENEXPY_NB_DATA_DIR; a second call downloads nothing; a file whose bytes
    are not the published ones is refused."""
    import hashlib

    served = tmp_path / "served"
    served.mkdir()
    files = {"a.parquet": b"first file" * 1000, "b.parquet": b"second file" * 1000}
    for name, blob in files.items():
        (served / name).write_bytes(blob)
    base, stop = _serve(served)
    try:
        monkeypatch.delenv("GENEXPY_NB_DATA_DIR", raising=False)
        monkeypatch.setattr(data, "download_dir", lambda: tmp_path / "cache")
        monkeypatch.setattr(data, "PUBLIC_FILES", {
            name: data.PublicFile(name, base + name, hashlib.sha256(blob).hexdigest(), name)
            for name, blob in files.items()})
        folder = data.fetch_public_data(progress=True)
        assert folder == tmp_path / "cache"
        assert {p.name: p.read_bytes() for p in folder.iterdir()} == files
        first = {p.name: p.stat().st_mtime_ns for p in folder.iterdir()}
        assert data.fetch_public_data(progress=False) == folder  # nothing downloaded again
        assert {p.name: p.stat().st_mtime_ns for p in folder.iterdir()} == first
        monkeypatch.setenv("GENEXPY_NB_DATA_DIR", str(folder))  # the folder as the variable
        assert data.fetch_public_data() == folder
        monkeypatch.delenv("GENEXPY_NB_DATA_DIR")
        (served / "a.parquet").write_bytes(b"tampered")
        (folder / "a.parquet").unlink()
        with pytest.raises(DatasetUnavailableError, match="a.parquet"):
            data.fetch_public_data(progress=False)
    finally:
        stop()
