"""One page per study: ``gx.report`` / ``StudyReport`` and ``genexpy-nb report``."""

from __future__ import annotations

import re

import numpy as np
import polars as pl
import pytest

import genexpy_nb as gx
from genexpy_nb.cli import main
from genexpy_nb.example.demo import example_study

#: a reference to a remote resource: src= or href= to http(s):// or a protocol-relative //
REMOTE = re.compile(r"""(?:src|href)\s*=\s*["']?\s*(?:https?:)?//""", re.IGNORECASE)
TITLES = ["The answer: do the study's conclusions hold?", "What to run next", "Tiers",
          "The classical tests", "Beyond p-values: how sure is each place, and by how much?",
          "How consistent are the per-dataset rankings? (the paper's n*)", "The data"]


@pytest.fixture(scope="module")
def example_page():
    return gx.report(example_study(), seed=0, rep=60, progress=False)


def _table(alts=("ridge", "lasso", "svr", "knn", "tree", "mlp"), n=12, missing=(), seed=0,
           target="rmse") -> pl.DataFrame:
    """A regressors x datasets table of errors; ``missing`` rows (dataset, alt) left out.

    One missing result of 6 alternatives stays under the default tolerance (20 %): the
    condition is kept and the result imputed.
    """
    rng = np.random.default_rng(seed)
    rows = [(f"d{i}", a, float(1 + j * 0.3 + rng.normal(0, 0.4)))
            for i in range(n) for j, a in enumerate(alts)]
    rows = [r for r in rows if (r[0], r[1]) not in set(missing)]
    return pl.DataFrame(rows, schema=["dataset", "model", target], orient="row")


def _roles(**kw):
    return dict(alternatives="model", target="rmse", generalize="dataset",
                higher_is_better=False, **kw)


def test_example_page_sections_and_answer(example_page, tmp_path):
    page = example_page
    assert [s.title for s in page.sections] == TITLES
    best = page.conclusions.filter(pl.col("kind") == "best")
    assert page.answer()["verdict"].to_list() == best["verdict"].to_list()
    html = page.to_page()
    answer_html = html[html.index('id="answer"'):html.index('id="plan"')]
    table = answer_html[answer_html.index("<tbody>"):answer_html.index("</table>")]
    cells = re.findall(r"<tr>(.*?)</tr>", table)
    assert len(cells) == best.height
    for row, r in zip(cells, best.iter_rows(named=True)):
        tds = re.findall(r"<td[^>]*>(.*?)</td>", row)
        assert tds[1] == r["members"][0] and tds[2] == r["verdict"]
    assert not REMOTE.search(html) and "<script" not in html
    assert html.count("<svg") == len(page.comparisons) == len(page.study)
    # every section says what produced it
    assert html.count('<p class="how">') == 7
    paths = page.save(tmp_path / "out")
    names = {p.relative_to(tmp_path / "out").as_posix() for p in paths}
    for f in ("report.html", "report.md", "conclusions.parquet", "conclusions.csv",
              "nstar.parquet", "failed_runs.csv", "plan.csv", "rank_intervals.csv", "tiers.csv",
              "classical/config_0/cd_diagram.svg", "classical/config_0/posthoc.csv",
              "classical/config_0/mean_ranks.tex"):
        assert f in names, f
    saved = pl.read_parquet(tmp_path / "out" / "conclusions.parquet")
    assert saved["verdict"].to_list() == page.conclusions["verdict"].to_list()
    md = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert [ln[3:].replace("\\*", "*") for ln in md.splitlines()  # escaped for Markdown
            if ln.startswith("## ")] == TITLES
    assert pl.read_csv(tmp_path / "out" / "failed_runs.csv").height == 0
    assert "_repr_html_" in dir(page) and page._repr_html_().startswith("<style>")


def test_failed_runs_listed_by_name(tmp_path):
    missing = [("d1", "svr"), ("d5", "svr"), ("d7", "knn")]
    df = _table(missing=missing)
    page = gx.report(df, **_roles(), seed=1, rep=40, progress=False)
    got = set(page.failed_runs.select("condition", "alternative").iter_rows())
    assert got == set(missing)
    data = page.sections[-1]
    for d, a in missing:
        assert re.search(rf"<td[^>]*>{d}</td><td[^>]*>{a}</td>", data.html)
        assert f"| {d} | {a} |" in data.markdown
    assert "3 missing or failed result(s), by name; 3 imputed" in data.html
    assert "worst tier of its dataset in the classical tests, the conclusions" in data.html
    assert set(page.failed_runs["status"]) == {"imputed as the worst tier"}
    # the classical tests count a missing result as the worst tier, as the conclusions do
    res = page.comparisons[0]
    assert res.n_missing == 3 and res.missing == "study" and res.omnibus.test == "Friedman"
    classical = next(s for s in page.sections if s.key == "classical")
    assert "counts as the worst tier of its dataset, as in the conclusions" in classical.how
    page.save(tmp_path / "o")
    assert pl.read_csv(tmp_path / "o" / "failed_runs.csv").height == 3
    assert page.study.report.cells_imputed == 3


def test_failed_runs_of_dropped_conditions_and_nan_targets_by_name():
    """A dataset missing 2 of 6 results is dropped (tolerance 20 %), a NaN target is a failed
    run (invalid_target="drop"): each pair is listed by name with what happened to it."""
    df = _table(missing=[("d0", "svr"), ("d0", "knn"), ("d9", "mlp")])
    df = df.with_columns(pl.when((pl.col("dataset") == "d4") & (pl.col("model") == "tree"))
                         .then(float("nan")).otherwise(pl.col("rmse")).alias("rmse"))
    page = gx.report(df, **_roles(invalid_target="drop"), seed=0, rep=20, progress=False)
    got = {(r["condition"], r["alternative"]): r["status"]
           for r in page.failed_runs.iter_rows(named=True)}
    assert got == {("d0", "svr"): "condition dropped", ("d0", "knn"): "condition dropped",
                   ("d9", "mlp"): "imputed as the worst tier",
                   ("d4", "tree"): "imputed as the worst tier"}
    assert page.study.report.conditions_dropped == 1
    md = page.sections[-1].markdown
    assert "| (all) | d0 | svr | condition dropped |" in md
    # given the study instead of its table, only the imputed pairs can be named, and it says so
    page2 = gx.report(page.study, seed=0, rep=20, progress=False)
    assert page2.failed_runs.height == 2 and "only the results missing" in page2.sections[-1].html


def test_replicate_spread_against_numpy():
    """Spread over seeds (median SD) against spread over datasets of the results relative
    to the dataset's mean (median over alternatives): the page's numbers, by NumPy."""
    rng = np.random.default_rng(5)
    alts, ds = ["a", "b", "c", "d", "e", "f"], [f"d{i}" for i in range(10)]
    rows = [(d, a, s, float(i * 0.5 + j * 0.1 + rng.normal(0, 0.2)))
            for i, d in enumerate(ds) for j, a in enumerate(alts) for s in range(3)]
    df = pl.DataFrame(rows, schema=["dataset", "model", "seed", "rmse"], orient="row")
    page = gx.report(df, **_roles(average_over="seed"), seed=0, rep=20, progress=False)
    x = np.array([r[3] for r in rows]).reshape(len(ds), len(alts), 3)
    seed_sd = np.median(np.median(x.std(axis=2, ddof=1), axis=0))
    means = x.mean(axis=2)
    cond_sd = np.median((means - means.mean(axis=1, keepdims=True)).std(axis=0, ddof=1))
    got = page.replicate_spread.row(0, named=True)
    assert got["seed_sd"] == pytest.approx(seed_sd) and got["replicates"] == 3
    assert got["condition_sd"] == pytest.approx(cond_sd)
    assert got["ratio"] == pytest.approx(seed_sd / cond_sd)
    assert "More runs or more datasets?" in page.sections[1].html
    assert "replicate_spread.csv" in page.tables()


def test_hostile_names_escaped():
    evil = ["<script>alert(1)</script>", "a|b*c_d", "[x](https://evil.example/p.png)",
            "`tick` & <b>", "plain", "=cmd()"]
    df = _table(alts=evil, missing=[("d2", evil[1])])
    page = gx.report(df, **_roles(), seed=0, rep=30, progress=False)
    html, md = page.to_page(), page.to_markdown()
    assert "<script" not in html and "& <b>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "&amp; &lt;b&gt;" in html
    assert not REMOTE.search(html)
    assert "<script>" not in md and "a|b" not in md and "a\\|b" in md and "```" not in md
    assert not re.search(r"(?<!\\)\]\(https://evil", md) and "\\](https://evil" in md


def test_beyond_p_values_with_a_rope_against_the_sections(tmp_path):
    """The page's Bayesian test and aggregates are the comparison's sections, every number
    in a tidy file; hostile names escaped in both formats."""
    from genexpy_nb.answers.beyond_sections import aggregates_section, bayesian_section

    evil = ["<script>x</script>", "a|b*c", "ok", "`t` & <b>"]
    df = _table(alts=evil, n=14, missing=[("d2", "ok")])
    page = gx.report(df, **_roles(), seed=4, rep=20, progress=False, rope=0.1)
    res = page.comparisons[0]
    want_b = bayesian_section(res, rope=0.1, nsamples=10_000, seed=4).tables[
        "bayesian_signed_rank"]
    want_a = aggregates_section(res, reps=2000, seed=4).tables["aggregates"]
    assert page.bayesian.drop("config_id").equals(want_b)
    assert page.aggregates.drop("config_id").equals(want_a)
    assert want_a["n_tasks"].unique().to_list() == [13]  # complete datasets only
    page.save(tmp_path / "o")
    got = pl.read_csv(tmp_path / "o" / "bayesian_signed_rank.csv")
    assert got["p_rope"].to_list() == pytest.approx(want_b["p_rope"].to_list())
    assert pl.read_csv(tmp_path / "o" / "aggregates.csv").height == want_a.height
    html, md = page.to_page(), page.to_markdown()
    beyond = html[html.index('id="beyond"'):html.index('id="nstar"')]
    assert "rope ±0.1" in beyond and "raw scores of rmse" in beyond
    assert "Robust aggregates" in beyond and "<script" not in beyond
    assert "&lt;script&gt;" in beyond and "&amp; &lt;b&gt;" in beyond
    mb = md[md.index("## Beyond"):md.index("## How consistent")]
    assert "a\\|b\\*c" in mb and "<script>" not in mb and "rope ±0.1" in mb


def test_beyond_p_values_on_mixed_scales_says_normalised():
    """Datasets on scales 0.1 to 10^4: the comparison normalises, and the page says so."""
    df = _table(n=12).with_columns(
        pl.col("rmse") * 10.0 ** (pl.col("dataset").str.slice(1).cast(pl.Int64) % 6 - 1))
    page = gx.report(df, **_roles(), seed=0, rep=20, progress=False, rope=0.05)
    assert page.comparisons[0].normalize == "minmax"
    beyond = next(s for s in page.sections if s.key == "beyond")
    assert "min-max normalised per dataset" in beyond.how and "raw" not in beyond.how
    assert page.bayesian["rope"].unique().to_list() == [0.05]


def test_beyond_p_values_without_a_rope_says_how_to_give_one(example_page):
    beyond = next(s for s in example_page.sections if s.key == "beyond")
    assert "--bayesian-rope R" in beyond.markdown and "rope=R" in beyond.markdown
    assert example_page.bayesian is None and example_page.rope is None
    assert "bayesian_signed_rank.csv" not in example_page.tables()
    assert example_page.aggregates["config_id"].n_unique() == len(example_page.study)
    for bad in (-1.0, float("nan"), True, "0.1"):
        with pytest.raises(gx.GenexpyInputError, match="rope"):
            gx.report(_table(), **_roles(), rope=bad, progress=False)


def test_same_seed_same_page():
    df = _table(missing=[("d3", "lasso")])
    a = gx.report(df, **_roles(), seed=3, rep=30, progress=False).to_markdown()
    b = gx.report(df, **_roles(), seed=3, rep=30, progress=False).to_markdown()
    assert a == b


def test_same_page_on_one_thread_and_on_all(tmp_path):
    """The analyses run side by side on threads: the page does not depend on how many."""
    from genexpy_nb._numba import threads

    df = _table(alts=tuple(f"m{j}" for j in range(30)), n=40, seed=5)
    pages = []
    for n in (1, None, None):
        with threads(n):
            page = gx.report(df, **_roles(), seed=2, rep=30, progress=False)
        pages.append(page)
        page.save(tmp_path / f"p{len(pages)}")
    first = pages[0]
    for page in pages[1:]:
        assert page.to_markdown() == first.to_markdown()
        assert page.conclusions.equals(first.conclusions)
        assert page.tiers.equals(first.tiers) and page.nstar.equals(first.nstar)
        assert page.rank_probabilities.equals(first.rank_probabilities)
    for name in ("conclusions.csv", "tiers.csv", "nstar.csv", "aggregates.csv", "plan.csv"):
        assert (tmp_path / "p1" / name).read_bytes() == (tmp_path / "p2" / name).read_bytes()


def test_an_error_in_a_stream_reaches_the_caller(monkeypatch):
    """An analysis that fails on its thread fails the report with its own error."""
    import genexpy_nb.leaderboards as lb

    def broken(*args, **kwargs):
        raise gx.GenexpyInputError("tiers: broken on purpose")

    monkeypatch.setattr(lb, "tiers", broken)
    with pytest.raises(gx.GenexpyInputError, match="broken on purpose"):
        gx.report(_table(), **_roles(), seed=0, rep=20, progress=False)


def test_bad_input_names_the_fix():
    with pytest.raises(gx.GenexpyInputError, match="target"):
        gx.report(_table(), alternatives="model", generalize="dataset",
                  higher_is_better=False)
    with pytest.raises(gx.GenexpyInputError, match="with a Study"):
        gx.report(example_study(), target="score")
    df = _table()
    before = df.clone()
    gx.report(df, **_roles(), seed=0, rep=20, progress=False)
    assert df.equals(before)  # never mutated


def test_cli_report_files_and_exit_codes(tmp_path, capsys):
    path = tmp_path / "results.csv"
    _table(missing=[("d4", "svr")]).write_csv(path)
    out = tmp_path / "study_report"
    args = [str(path), "--alternatives", "model", "--target", "rmse", "--generalize",
            "dataset", "--lower-is-better", "--rep", "30", "--out", str(out)]
    assert main(["report", *args, "--bayesian-rope", "0.05"]) == 0
    printed = capsys.readouterr()
    assert "Best:" in printed.out and "report.html" in printed.err
    files = {p.name for p in out.iterdir()}
    assert {"report.html", "report.md", "conclusions.parquet", "nstar.parquet",
            "failed_runs.csv", "classical"} <= files
    failed = pl.read_csv(out / "failed_runs.csv")
    assert failed.select("condition", "alternative").rows() == [("d4", "svr")]
    # the classical tests run on a stream of their own: they still name the command's flags
    classical = (out / "classical" / "config_0" / "report.md").read_text(encoding="utf-8")
    assert "--tol-missing-alternatives" in classical
    assert "tol_missing_alternatives=" not in classical
    assert pl.read_csv(out / "bayesian_signed_rank.csv")["rope"].unique().to_list() == [0.05]
    assert not REMOTE.search((out / "report.html").read_text(encoding="utf-8"))
    # an input error: one line naming the flag; a usage error: 2
    assert main(["report", *args[:4], "nope", *args[5:]]) == 1
    assert "--target" in capsys.readouterr().err
    assert main(["report", str(path), "--target", "rmse"]) == 2
    # a folder of the user's own files is never replaced
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep")
    assert main(["report", *args[:-1], str(mine), "--quiet"]) == 1
    assert (mine / "notes.txt").read_text() == "keep"


def test_cli_report_held_constant(tmp_path):
    df = pl.concat([_table().with_columns(pl.lit(m).alias("metric")) for m in ("rmse", "mae")])
    path = tmp_path / "r.parquet"
    df.write_parquet(path)
    out = tmp_path / "o"
    assert main(["report", str(path), "--alternatives", "model", "--target", "rmse",
                 "--generalize", "dataset", "--lower-is-better", "--held-constant",
                 "metric=mae", "--rep", "20", "--quiet", "--out", str(out)]) == 0
    rows = dict(pl.read_csv(out / "data_report.csv").iter_rows())
    assert rows["rows in the input table"] == df.height
    assert rows["rows after fixing held-constant factors"] == df.height // 2


def test_page_in_headless_chromium_offline(tmp_path):
    """The saved page in headless Chromium with the network off: no request leaves the file,
    no console error, every diagram drawn with a size, nothing wider than the window."""
    import importlib.util
    import os
    import shutil

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    why = ("no Chromium on PATH (apt-get install chromium)" if chromium is None else
           "playwright is not installed (pip install 'genexpy_nb[browser]')"
           if importlib.util.find_spec("playwright") is None else None)
    if why is not None:
        if os.environ.get("CI", "").lower() not in ("", "0", "false", "no"):
            pytest.fail(f"the page's browser check cannot run in CI: {why}")
        pytest.skip(why)
    from playwright.sync_api import sync_playwright

    df = _table(alts=("<i>ridge</i>", "lasso", "svr", "knn", "tree", "mlp"), n=15,
                missing=[("d3", "svr")])
    paths = gx.report(df, **_roles(), seed=0, rep=30, progress=False).save(tmp_path / "o")
    page_file = next(p for p in paths if p.name == "report.html")
    errors, remote = [], []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium)
        try:
            ctx = browser.new_context(offline=True, viewport={"width": 1100, "height": 800})
            pg = ctx.new_page()
            pg.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            pg.on("pageerror", lambda e: errors.append(str(e)))
            pg.on("request", lambda r: None if r.url.startswith("file://")
                  else remote.append(r.url))
            pg.goto(page_file.as_uri())
            sizes = pg.evaluate("[...document.querySelectorAll('svg')].map(s => {"
                                "const r = s.getBoundingClientRect(); return [r.width, "
                                "r.height]; })")
            sections = pg.evaluate("document.querySelectorAll('section h2').length")
            wide = pg.evaluate("document.documentElement.scrollWidth > "
                               "document.documentElement.clientWidth")
            pg.screenshot(path=str(tmp_path / "report.png"), full_page=True)
        finally:
            browser.close()
    assert errors == [] and remote == []
    assert len(sizes) == 1 and all(w > 100 and h > 50 for w, h in sizes), sizes
    assert sections == 7 and not wide
    assert (tmp_path / "report.png").stat().st_size > 20_000


def test_replicate_spread_is_the_same_bits_on_every_run():
    """Polars' hash grouping orders groups at random: sums over them must not depend on it."""
    from genexpy_nb.answers.scales import replicate_spread
    from genexpy_nb.example.study import load_example_study

    data = load_example_study()
    study = gx.Study(data, alternatives="model", target="score", generalize="dataset",
                     design=["metric", "train_size"], average_over="fold",
                     higher_is_better=True)
    first = replicate_spread(study, "none")
    for _ in range(10):  # the old code differed in 2 runs of 5
        again = replicate_spread(study, "none")
        assert again.equals(first), "replicate spread differs between runs of the same data"


def test_cli_report_on_a_small_study_loads_no_numba(tmp_path):
    # the 2 s a report on 18 x 104 may take (benchmarks/bench_report.py) rests on this:
    # numba's start-up alone costs about 1 s; every computation of a study this size has a
    # NumPy route with the kernel's bits (conclusions' order agreement, the task
    # bootstrap's intervals)
    import subprocess
    import sys

    rng = np.random.default_rng(0)
    rows = [(f"ds{i:03d}", f"method_{j:02d}", float(np.clip(0.7 + 0.005 * j
                                                             + rng.normal(0, 0.05), 0, 1)))
            for i in range(104) for j in range(18) if (i, j) not in {(5, 3), (60, 11)}]
    table = tmp_path / "t.csv"
    pl.DataFrame(rows, schema=["dataset", "model", "accuracy"], orient="row").write_csv(table)
    code = (
        "import sys\n"
        "from genexpy_nb.cli import main\n"
        f"rc = main(['report', {str(table)!r}, '--alternatives', 'model', '--target', "
        f"'accuracy', '--generalize', 'dataset', '--higher-is-better', '--quiet', "
        f"'--out', {str(tmp_path / 'out')!r}])\n"
        "assert not rc, rc\n"
        "print(sorted(m for m in sys.modules if m == 'numba' or m.startswith('numba.')))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip().splitlines()[-1] == "[]"
    assert (tmp_path / "out" / "report.html").exists()


def test_tiers_section_agrees_with_gx_tiers(example_page):
    """The page's tiers are gx.tiers' (the page's seed and alpha*), in words per configuration."""
    page = example_page
    sec = next(s for s in page.sections if s.key == "tiers")
    want = gx.tiers(page.study, level=page.alpha, seed=page.seed, progress=False)
    assert page.tiers.equals(want)
    first = want.filter(pl.col("config_id") == want["config_id"][0]).sort("after")
    top = first["above"][0]
    assert "Tiers (95% for all alternatives at once): " in sec.markdown
    assert top in sec.markdown and "alpha* = 0.95" in sec.how
    planned = first.filter(pl.col("more").is_not_null())
    if planned.height:
        r = planned.sort("more").row(0, named=True)
        assert f"To split {r['above']} from {r['below']}: {r['more']} more" in sec.markdown
