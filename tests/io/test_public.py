
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

    def fake(url, known_hash, fname, path, progressbar):
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


