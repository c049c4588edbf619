"""Near-ties on the encoder study: exact float ties (tol = 0) against the default tolerance.

Prints (1) how many conditions hold near-ties, (2) in how many configurations the rankings
change under the affine rescaling ``score * 3 + 1`` with either tolerance, and (3) the
configurations whose n* (alpha* = 0.95, delta* = 0.05, resampling, seed 0) changes between
the two, for the Jaccard(k=1), Mallows, Borda("OHE") and RBF kernels.

    GENEXPY_NB_DATA_DIR=/work/shared/data PYTHONPATH=. python scripts/near_ties_encoders.py
"""

from __future__ import annotations

import sys

import numpy as np
import polars as pl

import genexpy_nb as gx

KW = dict(alternatives="encoder", target="cv_score", generalize="dataset",
          design=["model", "tuning", "scoring"], higher_is_better=True)


def study(df, exact: bool):
    tol = dict(tie_rtol=0.0, tie_atol=0.0) if exact else {}
    return gx.Study(df, **KW, **tol)


def main(skip_nstar: bool = False) -> None:
    df = gx.load_encoders()
    scaled = df.with_columns(pl.col("cv_score") * 3 + 1)
    for exact in (True, False):
        a, b = study(df, exact), study(scaled, exact)
        changed = sum(not np.array_equal(sa.rankings, sb.rankings)
                      for sa, sb in zip(a.samples(), b.samples(), strict=True))
        name = "tol = 0 (exact)" if exact else "default tolerance"
        print(f"{name}: rankings change under score*3+1 in {changed} of {len(a)} configurations")
    ex, de = study(df, True), study(df, False)
    n_cond = sum(s.N for s in ex.samples())
    diff_cond = sum(int((se.rankings != sd.rankings).any(axis=1).sum())
                    for se, sd in zip(ex.samples(), de.samples(), strict=True))
    print(f"conditions whose ranking differs between tol=0 and the default: {diff_cond} of "
          f"{n_cond}")
    if skip_nstar:
        return
    kernels = [gx.Jaccard(k=1), gx.Mallows(), gx.Borda("OHE"), gx.RBF()]
    res = []
    for exact, st in ((True, ex), (False, de)):
        r = gx.GeneralizabilityAnalysis(st, kernels, seed=0, progress=False).nstar(
            0.95, 0.05, ["resample"])
        res.append(r.with_columns(pl.lit("exact" if exact else "default").alias("tol")))
    keys = ["model", "tuning", "scoring", "kernel"]
    a = res[0].select(*keys, "N", pl.col("nstar").alias("nstar_tol0"),
                      pl.col("generalizable").alias("gen_tol0"))
    b = res[1].select(*keys, pl.col("nstar").alias("nstar_default"),
                      pl.col("generalizable").alias("gen_default"))
    j = a.join(b, on=keys).with_columns(
        (pl.col("nstar_default") - pl.col("nstar_tol0")).alias("change"))
    moved = j.filter(pl.col("change").abs() > 1e-9).sort(keys)
    with pl.Config(tbl_rows=200, tbl_width_chars=140):
        print(f"n* (0.95, 0.05) changes in {moved.height} of {j.height} "
              "(configuration, kernel) pairs:")
        print(moved)
        flips = j.filter(pl.col("gen_tol0") != pl.col("gen_default"))
        print(f"'generalizable' verdicts that flip: {flips.height}")
        print(j.group_by("kernel").agg(
            pl.len().alias("pairs"), (pl.col("change").abs() > 1e-9).sum().alias("changed"),
            pl.col("change").abs().max().alias("max |change|")).sort("kernel"))


if __name__ == "__main__":
    main(skip_nstar="--no-nstar" in sys.argv)
