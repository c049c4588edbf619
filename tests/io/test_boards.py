"""Evaluation outputs read by their content (``io/boards.py``) and turned into one page by
``genexpy-nb report PATH`` (issue 48 item 8), on the real public files of tests/data/evals."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import polars as pl
import pytest

import genexpy_nb as gx
from genexpy_nb.cli import main
from genexpy_nb.io.boards import SYNONYMS, board_from_table, detect_format, read_board

EVALS = Path(__file__).resolve().parents[1] / "data" / "evals"


@pytest.mark.parametrize("folder, fmt, kind", [
    ("lm_eval_03", "lm-eval-results", "per-task"),
    ("lm_eval_04", "lm-eval-samples", "per-item"),
    ("inspect", "inspect", "per-item"),
    ("eee", "eee-instances", "per-item"),
    ("tsml", "tsml", "per-task"),
    ("eval_arena", "board", "per-item"),
])
def test_formats_are_told_by_content_not_by_name(folder, fmt, kind, tmp_path):
    # renamed files: the content decides
    src = EVALS / folder
    dst = tmp_path / "x"
    shutil.copytree(src, dst)
    if fmt in ("lm-eval-results", "inspect"):
        for i, f in enumerate(sorted(dst.rglob("*.json"))):
            f.rename(f.with_name(f"file{i}.json"))
    assert detect_format(dst) == fmt
    board = read_board(dst)
    assert board.kind == kind and board.frame.height > 0
    assert board.frame[board.target].is_finite().all()


def test_lm_eval_03_keeps_one_higher_is_better_metric_per_task():
    board = read_board(EVALS / "lm_eval_03")
    assert board.metrics.filter(pl.col("task") == "arc_challenge")["metric"].item() == "acc"
    # a task whose metrics have no known direction is left out, and said
    assert "crows_pairs_english_religion" not in board.frame["task"].to_list()
    assert any("crows_pairs_english_religion" in n for n in board.notes)
    assert board.frame.group_by("model", "task").len()["len"].max() == 1


def test_board_synonyms_and_roles(tmp_path):
    rows = [{"benchmark_id": "b", "model": m, "question_id": f"q{i}", "pass@1": float(
        (i + j) % 3 == 0)} for j, m in enumerate(["a", "b", "c"]) for i in range(12)]
    with gzip.open(tmp_path / "board.jsonl.gz", "wt") as fh:
        fh.write("\n".join(json.dumps(r) for r in rows))
    board = read_board(tmp_path / "board.jsonl.gz")
    assert (board.alternatives, board.items, board.target) == ("model", "question_id", "pass@1")
    assert board.tasks is None  # one task: the items are the conditions
    assert "question_id" in SYNONYMS["item"] and "pass@1" in SYNONYMS["score"]
    with pytest.raises(gx.GenexpyInputError, match="no column for the item"):
        board_from_table(pl.DataFrame({"model": ["a"], "score": [1.0], "x": [1]}))
    with pytest.raises(gx.GenexpyInputError, match="holds no evaluation output"):
        (tmp_path / "n.csv").write_text("a,b\n1,2\n")
        read_board(tmp_path / "n.csv")


def test_report_on_a_per_item_board_adds_the_noise_budget(tmp_path, capsys):
    out = tmp_path / "page"
    assert main(["report", str(EVALS / "eval_arena"), "--rep", "20", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "read " in err and "per-item board" in err
    names = {p.name for p in out.iterdir()}
    assert {"noise_budget.csv", "tie_groups.csv", "noise_plan.csv", "report.html"} <= names
    md = (out / "report.md").read_text()
    assert "## Runs, items, tasks: where the noise is, and what to run next" in md
    budget = pl.read_csv(out / "noise_budget.csv")
    ties = pl.read_csv(out / "tie_groups.csv")
    assert budget.height == ties.height - 1 == 13  # 14 models, each against the next
    # the tie groups agree with the neighbours' tests: a significant gap starts a group
    first = ties.sort("rank")["group"].to_list()
    assert first[0] == 1 and first == sorted(first)
    # the conditions are the items: 800 of them
    assert pl.read_csv(out / "conclusions.csv")["N"].unique().to_list() == [800]


def test_items_runs_tasks_for_a_tidy_table(tmp_path):
    rows = [(m, t, f"i{i}", r, float((i * 7 + r + 3 * k) % 5 < 2 + k))
            for k, m in enumerate(["a", "b", "c"]) for t in ("t1", "t2")
            for i in range(15) for r in range(2)]
    df = pl.DataFrame(rows, schema=["model", "task", "item", "seed", "correct"], orient="row")
    page = gx.report(df, alternatives="model", target="correct", items="item", runs="seed",
                     tasks="task", higher_is_better=True, rep=10, progress=False)
    assert list(page.study.generalize) == ["task", "item"]
    assert list(page.study.average_over) == ["seed"]
    assert page.unit == "item" and page.board_tables["noise_budget"].height == 2
    noise = next(s for s in page.sections if s.key == "noise")
    assert "Tie groups over the board" in noise.markdown
    df.write_csv(tmp_path / "t.csv")
    assert main(["report", str(tmp_path / "t.csv"), "--alternatives", "model", "--target",
                 "correct", "--items", "item", "--runs", "seed", "--tasks", "task",
                 "--higher-is-better", "--rep", "10", "--quiet", "--out",
                 str(tmp_path / "o")]) == 0
    assert (tmp_path / "o" / "tie_groups.csv").exists()


def test_report_on_a_per_task_results_folder(tmp_path):
    out = tmp_path / "page"
    assert main(["report", str(EVALS / "lm_eval_03"), "--rep", "20", "--quiet", "--out",
                 str(out)]) == 0
    md = (out / "report.md").read_text()
    assert "Read from: lm-evaluation-harness results" in md.replace("\\", "")
    assert "noise_budget.csv" not in {p.name for p in out.iterdir()}


def test_every_eval_ever_aggregates_alone_are_per_task(tmp_path):
    shutil.copy(EVALS / "eee" / "98ea850e-7019-4728-a558-8b1819ec47c2.json", tmp_path)
    assert detect_format(tmp_path) == "eee"
    board = read_board(tmp_path)
    assert board.kind == "per-task" and board.tasks == "task"
    assert set(board.frame["task"]) >= {"BBH", "GPQA"}


def test_an_inspect_archive_says_how_to_convert_it(tmp_path):
    (tmp_path / "run.eval").write_bytes(b"PK\x03\x04")
    with pytest.raises(gx.GenexpyInputError, match="inspect log convert --to json"):
        read_board(tmp_path / "run.eval")
