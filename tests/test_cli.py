import polars as pl
import pytest

from genexpy_nb.cli import main


def _table(path):
    rows = [{"dataset": f"d{c}", "model": m, "enc": a, "seed": s,
             "score": float((c * 7 + ord(a) * 3 + s + (m == "B")) % 11)}
            for c in range(14) for m in "AB" for a in "wxyz" for s in range(2)]
    pl.DataFrame(rows).write_csv(path)


def test_nstar_cli_end_to_end(tmp_path, capsys):
    src = tmp_path / "res.csv"
    _table(src)
    out = tmp_path / "out.parquet"
    rc = main(["nstar", str(src), "--alternatives", "enc", "--target", "score",
               "--generalize", "dataset", "--design", "model", "--average-over", "seed",
               "--kernel", "jaccard:k=2", "--kernel", "borda:x", "--alpha", "0.9,0.95",
               "--delta", "0.1", "--rep", "20", "--out", str(out), "--quiet"])
    assert rc == 0
    res = pl.read_parquet(out)
    assert set(res["kernel"]) == {"jaccard", "borda"}
    assert set(res["model"]) == {"A", "B"}
    assert res.height == 2 * 2 * 2 * 1 * 3  # configs x kernels x alphas x deltas x methods
    assert "wrote" in capsys.readouterr().err


@pytest.mark.parametrize("extra,msg", [
    (["--kernel", "cosine"], "unknown kernel"),
    (["--alpha", "x"], "--alpha"),
    (["--held-constant", "oops"], "COLUMN=LEVEL"),
])
def test_nstar_cli_errors_are_messages(tmp_path, capsys, extra, msg):
    src = tmp_path / "res.csv"
    _table(src)
    rc = main(["nstar", str(src), "--alternatives", "enc", "--target", "score",
               "--generalize", "dataset", "--average-over", "seed,model", "--quiet",
               "--out", str(tmp_path / "o.csv"), *extra])
    assert rc == 2
    assert msg in capsys.readouterr().err


def test_missing_file(capsys):
    assert main(["nstar", "nope.parquet", "--alternatives", "a", "--target", "t",
                 "--generalize", "g"]) == 2
    assert "not found" in capsys.readouterr().err
