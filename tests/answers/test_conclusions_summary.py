"""The conclusions of a study in sentences (``conclusions_summary``) and ``nstar_summary``
leading with them: the frame's own verdicts, every count equal to the frame's, data escaped."""

import re

import numpy as np
import polars as pl
import pytest
import toys
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import genexpy_nb as gx
from genexpy_nb import GenexpyInputError
from genexpy_nb.answers.conclusions import WHY_CHANCE, conclusions_summary

_study = toys.winner_tie_loser_study


@pytest.fixture(scope="module")
def frame():
    return gx.conclusions(_study(), seed=0)


def _verdict_in(sentence: str) -> str:
    """The verdict word a sentence states, after the dash or colon."""
    m = re.search(r"(?:—|:) (holds|unsure|tied|needs \d+ more|needs over \d+ more)", sentence)
    assert m, sentence
    return m.group(1)


def test_sentences_state_the_frames_verdicts(frame):
    s = conclusions_summary(frame, unit="dataset")
    lines = s.sentences()
    best = frame.filter(pl.col("kind") == "best").row(0, named=True)
    line = next(ln for ln in lines if ln.startswith("Best: "))
    assert line.startswith(f"Best: {best['members'][0]} — ")
    assert _verdict_in(line).split()[0] == best["verdict"].split()[0]
    assert best["verdict"] == "holds" and f"with {best['N']} datasets" in line
    top = frame.filter(pl.col("kind") == "top_k").row(0, named=True)
    line = next(ln for ln in lines if ln.startswith("Top 3"))
    assert "{" + ", ".join(top["members"]) + "}" in line
    assert _verdict_in(line).split()[0] == top["verdict"].split()[0]
    order = frame.filter(pl.col("kind") == "order").row(0, named=True)
    line = next(ln for ln in lines if ln.startswith("Order "))
    assert _verdict_in(line).split()[0] == order["verdict"].split()[0]


def test_pair_counts_are_the_frames(frame):
    pairs = frame.filter(pl.col("kind") == "pair")
    counts = pairs["verdict"].value_counts()
    n = dict(zip(counts["verdict"], counts["count"], strict=True))
    line = next(ln for ln in conclusions_summary(frame).sentences()
                if ln.startswith("Pairs ("))
    assert line.startswith(f"Pairs ({pairs.height}, judged as a family, Holm): "
                           f"{n.get('holds', 0)} settled")
    assert n.get("holds", 0) == 5 and n.get("unsure", 0) == 1  # B and C are identical
    assert "1 direction not settled" in line
    text = conclusions_summary(frame).to_text(width=0)
    assert re.search(r"Direction not settled \(the data are compatible with no difference\): "
                     r"(B vs C|C vs B)\.", text)
    assert "may never" not in text and "may or may not" not in text
    assert "A ahead of" in text and "Holm's correction" in text


def test_the_footer_says_how_single_claims_and_pairs_are_judged(frame):
    text = conclusions_summary(frame).to_text(width=0)
    assert "intersection-union" in text and "Holm's correction" in text
    pairs_only = frame.filter(pl.col("kind") == "pair")
    assert "intersection-union" not in conclusions_summary(pairs_only).to_text(width=0)


def test_unsure_names_the_pair_it_rests_on():
    f = gx.conclusions(_study(), kinds=["top_k", "pair"], top_k=2, seed=0)
    row = f.filter(pl.col("kind") == "top_k").row(0, named=True)
    assert row["verdict"] == "unsure"  # B and C tie for the second place
    line = conclusions_summary(f, unit="dataset").sentences()[0]
    inside, out = ("B", "C") if "B" in row["members"] else ("C", "B")
    assert (f"unsure (the direction of {inside} vs {out} is not settled: the data are "
            "compatible with no difference).") in line


def test_too_few_conditions_and_co_best():
    f = gx.conclusions(_study(n=3), kinds=["best", "pair"], seed=0)
    assert not f["reliable"].any()
    s = conclusions_summary(f, unit="dataset")
    assert "only 3 datasets: too few to judge" in s.sentences()[0]
    df = pl.DataFrame({"dataset": [f"d{i}" for i in range(8) for _ in range(3)],
                       "model": ["a", "b", "c"] * 8,
                       "acc": [0.9, 0.8, 0.7, 0.8, 0.9, 0.7] * 4})
    st = gx.Study(df, alternatives="model", target="acc", generalize="dataset",
                  higher_is_better=True)
    line = conclusions_summary(gx.conclusions(st, kinds=["best"])).sentences()[0]
    assert line.startswith("Best: co-best {a, b} — ")


def test_strings_from_data_are_escaped():
    bad = ("<script>x</script>", "B|*b*", "C\x1b[2J", "D")
    s = conclusions_summary(gx.conclusions(_study(bad), seed=0))
    html = s._repr_html_()
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "\x1b" not in s.to_text() and "C[2J" in s.to_text()
    assert "B\\|\\*b\\*" in s._repr_markdown_() and "<script>" not in s._repr_markdown_()


def test_errors_and_export(frame):
    with pytest.raises(GenexpyInputError, match="gx.conclusions"):
        conclusions_summary(frame.drop("verdict"))
    with pytest.raises(GenexpyInputError, match="max_items"):
        conclusions_summary(frame, max_items=0)
    assert gx.conclusions_summary is conclusions_summary
    s = conclusions_summary(frame.to_pandas(), where="out/conclusions.parquet")
    assert s.frame is not None and "out/conclusions.parquet" in s.to_text()
    assert frame.equals(gx.conclusions(_study(), seed=0))  # same seed, same frame


def test_nstar_summary_leads_with_the_conclusions(frame):
    from toys import nstar_frame as _frame

    res = _frame()
    plain = gx.nstar_summary(res)
    assert plain.conclusions is None and "Do the study's" not in plain.to_text()
    led = gx.nstar_summary(res, conclusions=frame, unit="dataset", where="x.parquet")
    text = led.to_text()
    first, second = text.index("Do the study's conclusions hold?"), text.index(
        "How consistent are the per-dataset rankings? (the paper's n*, Sec. 4)")
    assert first < second < text.index("research question: Jaccard(k=1)")
    assert WHY_CHANCE.format(unit="dataset", units="datasets")[:60] in text
    assert led.footer[-1].startswith("Full results")  # where stays last
    assert text.index("Best: A — holds") < second
    md, html = led.to_markdown(), led._repr_html_()
    assert md.index("Best: A") < md.index("How consistent")
    assert html.index("Best: A") < html.index("How consistent")


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(na=st.integers(2, 5), n=st.integers(2, 12), seed=st.integers(0, 2**16),
       ties=st.booleans())
def test_sentences_count_every_conclusion(na, n, seed, ties):
    """Whatever the study (ties, too few conditions, co-best), the pair counts add up to the
    pairs, and the best and the order are said with the frame's verdicts."""
    rng = np.random.default_rng(seed)
    scores = rng.integers(0, 3, (n, na)) if ties else rng.normal(size=(n, na))
    rows = [{"dataset": f"d{d}", "model": f"m{a}", "acc": float(scores[d, a])}
            for d in range(n) for a in range(na)]
    study = gx.Study(pl.DataFrame(rows), alternatives="model", target="acc",
                     generalize="dataset", higher_is_better=True)
    f = gx.conclusions(study, seed=0, draws=200)
    lines = conclusions_summary(f).sentences()
    pairs = f.filter(pl.col("kind") == "pair")
    head = next(ln for ln in lines if ln.startswith("Pairs ("))
    said = sum(int(x) for x in re.findall(
        r"(\d+) (?:settled|direction|unsure|tied|needs|need up|need over)", head))
    assert said == pairs.height == na * (na - 1) // 2, head
    best = f.filter(pl.col("kind") == "best").row(0, named=True)
    line = next(ln for ln in lines if ln.startswith("Best: "))
    assert _verdict_in(line).split()[0] == best["verdict"].split()[0]
    if na > 2:
        order = f.filter(pl.col("kind") == "order").row(0, named=True)
        line = next(ln for ln in lines if ln.startswith("Order "))
        assert _verdict_in(line).split()[0] == order["verdict"].split()[0]


@pytest.mark.parametrize("column, word", [
    ("dataset", "dataset"), ("dataset_name", "dataset"), ("task_id", "task"),
    ("data_set", "data set"), ("Dataset", "condition"), ("ds2", "condition"),
    ("dataset_family_name", "dataset family name"),
])
def test_a_condition_is_named_as_the_table_names_it(column, word):
    from genexpy_nb.answers.conclusions import condition_word

    class _S:
        generalize = [column]

    assert condition_word(_S()) == word
