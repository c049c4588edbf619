"""``gx.plan`` on a conclusions frame: configurations ranked by the most conditions their
conclusions need, never counting an unsure (or tied) conclusion; on an analysis frame, an
answer at chance level is said (``chance``, ``reason``) where conditions are to be run."""

import math

import polars as pl
import pytest

import genexpy_nb as gx
from genexpy_nb import GenexpyInputError
from genexpy_nb.generalizability.planner import CHANCE_NOTE


def _row(cid, level, kind, alts, verdict, nstar, lo, hi, more=None, N=50):
    return dict(config_id=cid, model=level, kind=kind, k=3 if kind == "top_k" else None,
                alternatives=alts, members=alts.split(" vs "), observed=alts,
                agreement=0.9, nstar=nstar, nstar_lo=lo, nstar_hi=hi, N=N, more=more,
                verdict=verdict, reliable=True, reason="" if verdict != "unsure" else
                "these conditions do not separate it: the interval of n* reaches infinity",
                p_value=0.01, p_adjusted=0.02, judged="as a family (Holm)")


def _frame():
    """Configuration 0: a pair needs 10 more, one is unsure with a huge n*; configuration
    1: everything holds; configuration 2: only unsure conclusions; 3: one needs 30 more."""
    rows = [_row(0, "x", "best", "A", "holds", 20.0, 10.0, 45.0),
            _row(0, "x", "pair", "A vs B", "needs 10 more", 59.2, 20.0, 400.0, more=10),
            _row(0, "x", "pair", "B vs C", "unsure", 90000.0, 80.0, math.inf),
            _row(1, "y", "best", "A", "holds", 5.0, 2.0, 12.0),
            _row(1, "y", "pair", "A vs B", "holds", 5.0, 2.0, 12.0),
            _row(2, "z", "best", "A", "unsure", 3000.0, 60.0, math.inf),
            _row(2, "z", "pair", "A vs B", "unsure", 3000.0, 60.0, math.inf),
            _row(3, "w", "top_k", "A, B, C", "needs 30 more", 79.5, 40.0, 300.0, more=30)]
    return pl.DataFrame(rows)


def test_ranked_by_the_most_conditions_needed():
    p = gx.plan(_frame())
    assert p["config_id"].to_list() == [3, 0, 2, 1]  # 30, 10, then unsure before settled
    assert p["priority"].to_list() == [1, 2, 3, 4]
    assert p["to_run"].to_list() == [30, 10, 0, 0]
    assert p["verdict"].to_list() == ["needs 30 more", "needs 10 more", "unsure", "holds"]
    r = p.row(1, named=True)
    assert r["conclusion"] == "pair: A vs B" and r["nstar"] == 59.2
    assert (r["holds"], r["needs_more"], r["unsure"], r["tied"]) == (1, 1, 1, 0)
    assert "not counted in the conditions to add" in r["reason"] and "1 unsure" in r["reason"]
    assert p.row(2, named=True)["conclusion"] is None  # nothing to plan for, and why:
    assert p.row(2, named=True)["reason"].startswith("2 unsure")
    assert p.row(0, named=True)["conclusion"] == "top group: A, B, C"
    assert "model" in p.columns  # the design factor


def test_an_unsure_conclusion_never_adds_conditions():
    f = _frame()
    for on in ("nstar", "nstar_hi"):
        p = gx.plan(f, on=on)
        # the unsure pair's n* (90000) or infinite upper end never becomes to_run
        assert p["to_run"].max() < 1000, on
        assert p.filter(pl.col("config_id") == 2)["to_run"].item() == 0
    hi = gx.plan(f, on="nstar_hi")
    # pessimistic: ceil(nstar_hi) - N, the settled best of configuration 0 included
    assert hi.filter(pl.col("config_id") == 0)["to_run"].item() == 400 - 50
    assert hi.filter(pl.col("config_id") == 1)["verdict"].item() == "holds"  # 12 <= 50


def test_kinds_and_errors():
    p = gx.plan(_frame(), kinds=["best"])
    assert p["to_run"].to_list() == [0, 0, 0] and set(p["config_id"]) == {0, 1, 2}
    with pytest.raises(GenexpyInputError, match="kinds"):
        gx.plan(_frame(), kinds=["winner"])
    with pytest.raises(GenexpyInputError, match="gx.conclusions"):
        gx.plan(_frame().drop("nstar_hi"))


def test_on_a_real_frame_to_run_is_the_largest_more():
    from toys import winner_tie_loser_study as _study

    f = gx.conclusions(_study(n=12), seed=0)
    p = gx.plan(f)
    more = f["more"].max()
    assert p["to_run"].item() == (more if more is not None else 0)
    assert p["holds"].item() + p["needs_more"].item() + p["unsure"].item() + \
        p["tied"].item() == f.height


def test_chance_level_is_said_where_conditions_are_planned():
    from toys import nstar_frame as _frame

    def analysis():
        return _frame().with_columns(pl.col("nstar").ceil().cast(pl.Int64).alias("nstar_ceil"))

    res = analysis().with_columns(pl.lit(False).alias("beyond_chance"))
    p = gx.plan(res)
    assert p["chance"].all()
    needs = p.filter(pl.col("to_run") > 0).row(0, named=True)
    assert needs["reason"].startswith(CHANCE_NOTE)
    # no conditions to run: the reason is left as it was
    fine = p.filter(pl.col("to_run") == 0)
    assert not any(CHANCE_NOTE in (r or "") for r in fine["reason"].to_list())
    clear = gx.plan(analysis().with_columns(pl.lit(True).alias("beyond_chance")))
    assert not clear["chance"].any()
    assert not any(CHANCE_NOTE in (r or "") for r in clear["reason"].to_list())
