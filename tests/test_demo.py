import polars as pl

from genexpy_nb.demo import example_study, run_demo


def test_example_study_roles():
    st = example_study()
    assert st.na == 8 and len(st) == 6
    assert st.configurations["N"].to_list() == [80] * 6
    assert st.report.cells_imputed == 0


def test_main_job_end_to_end(tmp_path, capsys):
    frames = run_demo(tmp_path, rep=40, seed=0, progress=False)
    names = {p.name for p in tmp_path.iterdir()}
    assert {"nstar.parquet", "plan.csv", "nstar_vs_N.csv"} <= names
    res = pl.read_parquet(tmp_path / "nstar.parquet")
    assert res.height == 6 * 4 * 25 * 4  # configs x kernels x (alpha, delta) x methods
    head = res.filter(pl.col("alpha") == 0.95, pl.col("delta") == 0.05,
                      pl.col("method") == "resample")
    # 80 datasets answer every research question of the example study
    assert head["generalizable"].all()
    assert frames["plan"]["priority"].to_list() == list(range(1, 7))
    out = capsys.readouterr().out
    assert "Which configurations to extend first" in out
