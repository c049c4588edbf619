"""One page per study: :func:`report` and :class:`StudyReport`.

The page answers, in this order: the study's conclusions and how sure they are
(:func:`genexpy_nb.conclusions`), what to run next (:func:`genexpy_nb.plan`), the classical
rank tests (:func:`genexpy_nb.significance.compare`: omnibus, post-hoc, CD diagram), beyond
p-values (rank probabilities and intervals, :func:`genexpy_nb.rank_probabilities`; robust
aggregates with bootstrap intervals; the Bayesian signed-rank test against the best with the
rope the user states), the paper's n* per
research question with its no-signal baseline (:func:`genexpy_nb.analyze`), and the data
(what the missing-results policy dropped or imputed, every imputed result by name).

Every section says which test, blocks and policy produced it; every string from the data is
escaped for the format it lands in (HTML, Markdown, SVG); :meth:`StudyReport.save` writes
the page (``report.html``, which opens offline: no script, no remote resource; the
diagrams are inline SVG), ``report.md`` and the tidy tables behind every number into one
folder, atomically.
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from .. import config
from .._escape import html_text, markdown_text
from .._validation import GenexpyInputError
from .._words import opt
from .._words import plural as plural_words
from ..study._roles import alias
from ..study.core import Study
from . import numbers
from .document import Data, Heading, Paragraph, Raw, Table, render_blocks

__all__ = ["StudyReport", "report"]

#: the study's settings a frame needs (given as keyword arguments of :func:`report`)
_ROLE_ARGS = ("alternatives", "target", "generalize", "higher_is_better")
_STUDY_ARGS = _ROLE_ARGS + ("design", "average_over", "held_constant",
                            "tol_missing_alternatives", "tol_missing_conditions",
                            "invalid_target")

#: the page's style, every rule scoped to the report (a notebook's own page is not restyled)
_RULES = (("", "font-family:system-ui,sans-serif;line-height:1.4"),
          ("table", "border-collapse:collapse;margin:.5em 0"),
          ("td, .gx-r th", "padding:2px 8px;border-bottom:1px solid #ddd;vertical-align:top"),
          ("blockquote", "border-left:3px solid #ccc;margin-left:0;padding-left:1em"),
          ("p.how", "color:#555;font-size:.92em;border-left:3px solid #9cf;padding-left:.6em"),
          ("svg", "max-width:100%;height:auto"),
          ("h2", "border-bottom:2px solid #eee;margin-top:2em"))
_STYLE = "".join(f".gx-r {sel}".rstrip() + f"{{{rules}}}" for sel, rules in _RULES)
_PAGE_STYLE = "body{margin:1.5em auto;max-width:62em;padding:0 1em}" + _STYLE


@dataclass(frozen=True)
class _Section:
    """One section of the page: heading, how it was produced, HTML and Markdown bodies."""

    key: str
    title: str
    how: str
    html: str
    markdown: str


@dataclass(frozen=True, eq=False)
class StudyReport:
    """The whole answer for one study, as one page (made by :func:`report`).

    Displays as the page in a notebook (``_repr_html_``); :meth:`save` writes the page,
    its Markdown and the tidy tables behind every number into one folder.

    Parameters
    ----------
    study : Study
        The study analysed.
    conclusions : polars.DataFrame
        The frame of :func:`genexpy_nb.conclusions`.
    plan : polars.DataFrame
        :func:`genexpy_nb.plan` of the conclusions.
    comparisons : dict of int to Comparison
        The classical rank tests per configuration id.
    rank_probabilities : polars.DataFrame
        :func:`genexpy_nb.rank_probabilities` per configuration (``config_id`` first).
    rank_intervals : polars.DataFrame
        :func:`genexpy_nb.rank_intervals` per configuration, with ``in_top_group``.
    nstar : polars.DataFrame
        The frame of :func:`genexpy_nb.analyze`.
    failed_runs : polars.DataFrame
        Every missing or failed result by name: ``config_id`` (null for a dropped
        condition), the configuration's levels, ``condition``, ``alternative`` and
        ``status`` (imputed as the worst tier, condition dropped, alternative dropped, ...).
        Given a Study instead of its table, only the imputed ones (the study keeps no
        record of what it dropped).
    sections : tuple
        The rendered sections, in the page's order.
    alpha, delta : float
        alpha* and delta* of the answer.
    seed : int
        The seed of every random procedure.
    unit : str
        What a condition is called ("dataset").
    replicate_spread : polars.DataFrame or None
        With replicates (``average_over``) and the table given: per configuration, the
        runs per result, the spread over runs, the spread over conditions and their ratio.
    aggregates : polars.DataFrame or None
        Robust aggregates (IQM, mean, median) with bootstrap intervals per configuration
        (``config_id`` first; the frame of
        :func:`genexpy_nb.aggregates.interval_estimates`), on the scores the page
        names (raw, or normalised per condition).
    bayesian : polars.DataFrame or None
        With a ``rope``: the Bayesian signed-rank test of every alternative against the
        best, per configuration (``config_id`` first; the table of
        :func:`genexpy_nb.significance.bayesian_section`); None without a rope.
    rope : float or None
        Half-width of the region of practical equivalence, on the page's scale
        (``basis``).
    missing : {"study", "drop-block", "available"}
        What a result still missing after the tolerances became (see :func:`report`).
    basis : {"none", "minmax"}
        The scale of every cross-condition number (raw, or min-max normalised per
        condition), decided once for the study; ``basis_reason`` says why.
    basis_reason : str
    outliers : polars.DataFrame or None
        Every result far outside its condition's others, by name, with its place in its
        condition with and without it (what ``genexpy-nb report`` lists under its outliers).
    board_tables : dict of str to polars.DataFrame or None
        For a per-item board: ``noise_budget``, ``tie_groups``, ``noise_plan``.
    tiers : polars.DataFrame or None
        The frame of :func:`genexpy_nb.tiers`: the cuts between tiers and the conditions
        that would split them, per configuration.
    """

    study: Study
    conclusions: pl.DataFrame
    plan: pl.DataFrame
    comparisons: dict
    rank_probabilities: pl.DataFrame
    rank_intervals: pl.DataFrame
    nstar: pl.DataFrame
    failed_runs: pl.DataFrame
    sections: tuple = field(repr=False)
    alpha: float = config.HEADLINE_ALPHA
    delta: float = config.HEADLINE_DELTA
    seed: int = 0
    unit: str = "condition"
    replicate_spread: pl.DataFrame | None = None
    aggregates: pl.DataFrame | None = None
    bayesian: pl.DataFrame | None = None
    rope: float | None = None
    missing: str = "study"
    basis: str = "none"
    basis_reason: str = ""
    outliers: pl.DataFrame | None = None
    board_tables: dict | None = None
    tiers: pl.DataFrame | None = None

    @property
    def title(self) -> str:
        """The page's title (plain text: escape it for where it lands)."""
        return f"{self.study.target} of {self.study.alternatives_col}: one page per study"

    def answer(self) -> pl.DataFrame:
        """Return the best alternative per configuration with its verdict.

        Returns
        -------
        polars.DataFrame
            The ``best`` rows of :attr:`conclusions`.
        """
        return self.conclusions.filter(pl.col("kind") == "best")

    @property
    def policy(self) -> str:
        """The filters and the missing-results policy behind every section (plain text).

        The held-constant levels first (every answer is about them only), then what a
        missing result becomes.
        """
        from ..study._missing import missing_words
        from .conclusions import held_words

        out = ""
        if self.study.held_constant:
            out = (f"Held constant: {held_words(self.study.held_constant)} - every answer "
                   "below is about these levels only (the table's other levels were left "
                   "out). ")
        out += (f"Missing results: {missing_words(self.missing, self.unit)} "
                f"({opt('missing', self.missing)}).")
        if self.missing == "available":
            out += (f" The conclusions, the rank probabilities and n* compare complete "
                    f"rankings of every {self.unit}, so there a failed run is the worst tier "
                    f"of its {self.unit}.")
        return out

    @property
    def scale(self) -> str:
        """The scale of every cross-condition number on the page, in words (plain text)."""
        return ("Scale: " + scale_words(self.basis, self.basis_reason, self.study, self.unit)
                + "; ranks, and so the conclusions, the rank tests and n*, are scale-free.")

    def to_markdown(self) -> str:
        """Render the page as Markdown (CommonMark with pipe tables), data escaped.

        Returns
        -------
        str
        """
        out = [f"# {markdown_text(self.title)}", f"**{markdown_text(self.policy)}**",
               f"**{markdown_text(self.scale)}**"]
        for s in self.sections:
            # titles are the page's own words; the "how" names columns and filters: escaped
            out += [f"## {s.title}", f"*{markdown_text(s.how)}*", s.markdown]
        return "\n\n".join(out) + "\n"

    def to_html(self) -> str:
        """Render the page's body as an HTML fragment (what a notebook shows), data escaped.

        Returns
        -------
        str
        """
        toc = "".join(f"<li><a href=\"#{s.key}\">{html_text(s.title)}</a></li>"
                      for s in self.sections)
        body = [f"<h1>{html_text(self.title)}</h1>"
                f"<p class=\"policy\"><strong>{html_text(self.policy)}</strong></p>"
                f"<p class=\"policy\"><strong>{html_text(self.scale)}</strong></p>"
                f"<ol>{toc}</ol>"]
        for s in self.sections:
            body.append(f"<section id=\"{s.key}\"><h2>{html_text(s.title)}</h2>"
                        f"<p class=\"how\">{html_text(s.how)}</p>{s.html}</section>")
        return "<div class=\"genexpy-study-report gx-r\">" + "\n".join(body) + "</div>"

    def _repr_html_(self) -> str:
        return f"<style>{_STYLE}</style>" + self.to_html()

    def to_page(self) -> str:
        """Return the standalone HTML page (opens offline: nothing is loaded from anywhere).

        Returns
        -------
        str
        """
        return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                f"<title>{html_text(self.title)}</title><style>{_PAGE_STYLE}</style></head>"
                f"<body>\n{self.to_html()}\n</body></html>\n")

    def tables(self) -> dict[str, pl.DataFrame]:
        """Return the tidy tables :meth:`save` writes, by file name.

        Returns
        -------
        dict of str to polars.DataFrame
        """
        return {
            "conclusions.parquet": self.conclusions, "conclusions.csv": self.conclusions,
            "plan.csv": self.plan, "rank_probabilities.csv": self.rank_probabilities,
            "rank_intervals.csv": self.rank_intervals, "nstar.parquet": self.nstar,
            "nstar.csv": self.nstar, "failed_runs.csv": self.failed_runs,
            "data_report.csv": self.study.report.to_frame().with_columns(
                pl.col("value").cast(pl.Int64)),
        } | ({} if self.replicate_spread is None else
             {"replicate_spread.csv": self.replicate_spread}) | (
            {} if self.aggregates is None else {"aggregates.csv": self.aggregates}) | (
            {} if self.bayesian is None else {"bayesian_signed_rank.csv": self.bayesian}) | (
            {} if self.outliers is None else {"outliers.csv": self.outliers}) | {
            f"{name}.csv": frame for name, frame in (self.board_tables or {}).items()
            if frame.width} | (
            {} if self.tiers is None else {"tiers.csv": self.tiers})

    def save(self, folder: str | Path) -> list[Path]:
        """Write the page, its Markdown and every table behind it into ``folder``, atomically.

        ``report.html`` (self-contained), ``report.md``, the tables of :meth:`tables`, and
        per configuration ``classical/config_<id>/``: the comparison's tables, its
        ``report.md``, ``mean_ranks.tex`` and ``cd_diagram.svg``. An earlier output of
        genexpy_nb is replaced; a folder of other files is never touched.

        Parameters
        ----------
        folder : str or Path
            The output folder (its parent must exist).

        Returns
        -------
        list of Path
            Every file written, sorted.
        """
        from .._io import atomic_dir, atomic_write, write_frame

        with atomic_dir(folder) as tmp:
            for name, text in (("report.html", self.to_page()),
                               ("report.md", self.to_markdown())):
                with atomic_write(tmp / name, "w", encoding="utf-8") as fh:
                    fh.write(text)
            for name, frame in self.tables().items():
                write_frame(frame, tmp / name)
            for cid, res in self.comparisons.items():
                sub = tmp / "classical" / f"config_{cid}"
                sub.mkdir(parents=True)
                res.write_into(sub)
                with atomic_write(sub / "cd_diagram.svg", "w", encoding="utf-8") as fh:
                    fh.write(_cd_svg(res))
            names = sorted(p.relative_to(tmp) for p in tmp.rglob("*") if p.is_file())
        return [Path(folder) / n for n in names]


# ---- building the study ------------------------------------------------------------------


def _as_study(data: Any, kwargs: Mapping[str, Any]) -> Study:
    """Return the study of ``data``: itself, or a Study built from a frame and the roles given."""
    given = {k: v for k, v in kwargs.items() if v is not None}
    if isinstance(data, Study):
        if given:
            raise GenexpyInputError(
                f"report: {', '.join(sorted(given))} given with a Study, which has its roles "
                "and policy already; pass the table instead, or leave them out.")
        return data
    missing = [k for k in _ROLE_ARGS if k not in given]
    if missing:
        raise GenexpyInputError(
            f"report: a table needs the roles of its columns: give {', '.join(missing)} "
            "(as for genexpy_nb.Study), or pass a Study.")
    return Study(data, **given)


def _config_label(study: Study, cid: int) -> str:
    """Return the design-factor levels of a configuration as text ("(all)" without design)."""
    return study.sample(cid).label


def _names_frame(study: Study) -> pl.DataFrame:
    """config_id and the design-factor columns of the study's configurations."""
    return study.configurations.select("config_id", *study.design)


def _failed_runs(study: Study) -> pl.DataFrame:
    """Every imputed (condition, alternative) pair of every configuration, by name."""
    rows: dict[str, list] = {"config_id": [], "condition": [], "alternative": []}
    for s in study.samples():
        for i, j in zip(*s.imputed.nonzero()):
            rows["config_id"].append(s.config_id)
            rows["condition"].append(str(s.conditions[i]))
            rows["alternative"].append(str(s.alternatives[j]))
    frame = pl.DataFrame(rows, schema={"config_id": pl.UInt32, "condition": pl.String,
                                       "alternative": pl.String})
    names = _names_frame(study).with_columns(pl.col("config_id").cast(pl.UInt32))
    return names.join(frame, on="config_id", how="inner").select(
        "config_id", *study.design, "condition", "alternative",
        pl.lit(_IMPUTED).alias("status"))


_IMPUTED = "imputed as the worst tier"
_DROPPED_BLOCK = "condition left out (missing = drop-block)"


def _missing_pairs(data: Any, study: Study, imputed: pl.DataFrame) -> pl.DataFrame:
    """Every (condition, alternative) of the table without a valid result, and its fate.

    The grid is, per configuration, the conditions the table holds (after the held-constant
    filter) times every alternative; a pair with no finite target is missing, then imputed
    (the study kept it), or gone with its dropped condition or alternative.
    """
    from .._validation import to_polars

    des, gen, alt = list(study.design), list(study.generalize), study.alternatives_col
    df = study._held_constant_rows(to_polars(data, "data"))
    cond = (pl.col(gen[0]).cast(pl.String) if len(gen) == 1 else
            pl.concat_str([pl.col(c).cast(pl.String) for c in gen], separator=" | "))
    ok = pl.col(study.target).cast(pl.Float64).is_finite().fill_null(False)
    if study.imputed is not None:  # a result its source imputed is a failed run
        ok = ok & ~pl.col(study.imputed).cast(pl.Boolean).fill_null(False)
    base = df.select(*des, cond.alias("condition"),
                     pl.col(alt).cast(pl.String).alias("alternative"), ok.alias("ok"))
    keys = [*des, "condition", "alternative"]
    present = base.filter("ok").select(keys).unique()
    grid = base.select(*des, "condition").unique().join(
        base.select("alternative").unique(), how="cross")
    missing = grid.join(present, on=keys, how="anti", nulls_equal=True)
    kept = pl.DataFrame(
        [(s.config_id, c) for s in study.samples() for c in s.conditions],
        schema={"config_id": pl.UInt32, "condition": pl.String}, orient="row")
    kept = _names_frame(study).with_columns(pl.col("config_id").cast(pl.UInt32)).join(
        kept, on="config_id")
    fate = (pl.when(pl.col("alternative").is_in(list(study.report.alternatives_dropped)))
            .then(pl.lit("alternative dropped"))
            .when(~pl.col("alternative").is_in(list(study.alternatives)))
            .then(pl.lit("alternative has no valid result"))
            .when(pl.col("config_id").is_null()).then(pl.lit("condition dropped"))
            .otherwise(pl.lit(_IMPUTED)))
    out = missing.join(kept, on=[*des, "condition"], how="left", nulls_equal=True)
    out = out.with_columns(fate.alias("status")).select(
        "config_id", *des, "condition", "alternative", "status")
    n_imputed = out.filter(pl.col("status") == _IMPUTED).height
    if n_imputed != imputed.height:  # the two readings of the policy must agree
        raise RuntimeError(f"report: {n_imputed} imputed pairs found in the table, "
                           f"{imputed.height} in the study.")
    return out.sort(pl.col("status") != _IMPUTED, "config_id", "condition", "alternative",
                    nulls_last=True)


# ---- the analyses ------------------------------------------------------------------------


def _block_column(study: Study, unit: str | None = None) -> str:
    """Name the blocks' column (the page's word for a condition) apart from the others."""
    from .conclusions import condition_word

    name = unit or condition_word(study)
    while name in (study.alternatives_col, study.target):
        name += "_"
    return name


#: the options of :func:`report` (and of ``genexpy-nb report``) a comparison's words may
#: name: the others (``ties``, ...) belong to ``compare`` only
REPORT_OPTIONS = frozenset({
    "alternatives", "target", "generalize", "higher_is_better", "design", "average_over",
    "held_constant", "tol_missing_alternatives", "tol_missing_conditions", "invalid_target",
    "alpha", "delta", "kernels", "rep", "seed", "rope", "missing", "normalize", "imputed"})


def _policy_note(study: Study, unit: str) -> Any:
    """Say why a page's comparison keeps every condition (the study's policy ran first)."""
    from .document import Text

    return Text(
        f"the study's missing-results policy ran first ("
        f"{opt('tol_missing_alternatives', study.tol_missing_alternatives)}, "
        f"{opt('tol_missing_conditions', study.tol_missing_conditions)}; the data section "
        f"says what it dropped), so the tests take every {unit} and alternative it kept")


def _comparison(study: Study, cid: int, *, alpha: float, missing: str = "study",
                basis: tuple[str, str] = ("none", ""), unit: str = "condition") -> Any:
    """compare(...) over the configuration's conditions, the imputed results left out.

    ``compare``'s ``missing`` then puts them back as the worst tier ("study") or ranks
    among the available alternatives ("available"). Its scores are on the page's ``basis``
    (one for the study), its words name only the options of :func:`report`.
    """
    from dataclasses import replace

    from .compare import compare
    from .paper_table import paper_table_section

    s = study.sample(cid)
    keep = ~s.imputed
    rows, cols = keep.nonzero()
    block = _block_column(study, unit)
    frame = pl.DataFrame({
        block: [str(s.conditions[i]) for i in rows],
        study.alternatives_col: [str(s.alternatives[j]) for j in cols],
        study.target: s.scores[rows, cols].astype(float),
    })
    with warnings.catch_warnings(record=True):
        # degenerate data and the like are in the comparison's notes, shown on the page
        warnings.simplefilter("always")
        res = compare(frame, alternatives=study.alternatives_col, target=study.target,
                      blocks=block, higher_is_better=study.higher_is_better, alpha=alpha,
                      tol_missing_alternatives=1.0, tol_missing_conditions=1.0,
                      missing=missing, tie_rtol=study.tie_rtol, tie_atol=study.tie_atol,
                      normalize=basis[0])
    res = replace(res, normalize_reason=basis[1], options=REPORT_OPTIONS,
                  policy_note=_policy_note(study, unit))
    # the table a paper can use: on the page, in report.md and mean_ranks.tex
    return res.with_section(paper_table_section(res))


#: resamples of the rank probabilities (those of :func:`genexpy_nb.rank_probabilities`)
RANK_REP = 2000


def _rank_tables(study: Study, *, rep: int, seed: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Rank probabilities and intervals (with the top group) of every configuration."""
    from ..leaderboards.rank_uncertainty import rank_intervals, rank_probabilities

    probs, ivals = [], []
    for s in study.samples():
        p = rank_probabilities(study, rep=rep, seed=seed, config=s.config_id)
        # the top group (gx.top_group) is read off the same intervals: rank_low 1
        iv = rank_intervals(p).with_columns(
            (pl.col("rank_low") == 1).alias("in_top_group"))
        cid = pl.lit(s.config_id, dtype=pl.UInt32).alias("config_id")
        probs.append(p.select(cid, pl.all()))
        ivals.append(iv.sort("expected_rank").select(cid, pl.all()))
    names = _names_frame(study).with_columns(pl.col("config_id").cast(pl.UInt32))
    return (names.join(pl.concat(probs), on="config_id"),
            names.join(pl.concat(ivals), on="config_id"))


#: bootstrap resamples of the robust aggregates on the page
AGG_REP = 2000
#: posterior samples of each Bayesian signed-rank test on the page (Monte Carlo error of a
#: probability at most 0.005)
BAYES_SAMPLES = 10_000


def _check_rope(rope: Any) -> float | None:
    """Return the rope as a float (None stays None), or raise naming the parameter."""
    if rope is None:
        return None
    ok = isinstance(rope, (int, float)) and not isinstance(rope, bool)
    if not ok or not (float(rope) >= 0 and float(rope) < float("inf")):
        raise GenexpyInputError(
            f"rope must be a finite number >= 0 in the target's units (the smallest "
            f"difference that matters, e.g. rope=0.01 for accuracy), got {rope!r}.")
    return float(rope)


def _beyond_p_values(study: Study, comparisons: Mapping[int, Any], *, rope: float | None,
                     seed: int) -> tuple[dict, dict]:
    """Robust aggregates and (with a rope) the Bayesian test, per configuration.

    Each runs on its configuration's comparison (the same blocks as the classical tests,
    the imputed results left out); a configuration where one cannot run gets the reason.
    """
    from .beyond_sections import aggregates_section, bayesian_section

    aggs: dict[int, Any] = {}
    bayes: dict[int, Any] = {}
    for cid, res in comparisons.items():
        try:
            aggs[cid] = aggregates_section(res, reps=AGG_REP, seed=seed)
        except GenexpyInputError as exc:  # fewer than 2 complete blocks
            aggs[cid] = str(exc)
        if rope is not None:
            try:
                bayes[cid] = bayesian_section(res, rope=rope, nsamples=BAYES_SAMPLES,
                                              seed=seed)
            except GenexpyInputError as exc:
                bayes[cid] = str(exc)
    return aggs, bayes


def _section_frame(study: Study, parts: Mapping[int, Any], name: str) -> pl.DataFrame | None:
    """Stack the named table of every configuration's section, ``config_id`` and levels first."""
    frames = [sec.tables[name].select(pl.lit(cid, dtype=pl.UInt32).alias("config_id"),
                                      pl.all())
              for cid, sec in parts.items() if not isinstance(sec, str)]
    if not frames:
        return None
    names = _names_frame(study).with_columns(pl.col("config_id").cast(pl.UInt32))
    return names.join(pl.concat(frames), on="config_id")


# ---- rendering ---------------------------------------------------------------------------


def _section(key: str, title: str, how: str, blocks: Sequence[Any]) -> _Section:
    """Make a page section from blocks of the one document model (rendered once each)."""
    return _Section(key, title, how, render_blocks(blocks, "html"),
                    render_blocks(blocks, "markdown"))


def _grid(header: Sequence[str], rows: Sequence[Sequence[Any]], align: str = "") -> Table:
    """Return a table of the document model, every cell escaped as data.

    Cells are written by the one formatter (:func:`genexpy_nb.answers.numbers.cell`): a
    cell already written (a ``str``) is kept.
    """
    return Table(tuple(Data(h) for h in header),
                 tuple(tuple(Data(numbers.cell(c)) for c in r) for r in rows), align)


def _demote(markdown: str, by: int = 2) -> str:
    """Push every Markdown heading ``by`` levels down (sections nest under the page's)."""
    return re.sub(r"^(#{1,6}) ", lambda m: "#" * min(6, len(m.group(1)) + by) + " ",
                  markdown, flags=re.MULTILINE)


def _cd_svg(res: Any) -> str:
    """Draw the comparison's CD diagram as an SVG document (data escaped by the drawer)."""
    from ..charts.cd_figure import cd_diagram_svg

    return cd_diagram_svg(res)


def _answer_section(rep: dict, study: Study, unit: str) -> _Section:
    from .conclusions import conclusions_summary

    con = rep["conclusions"]
    summ = conclusions_summary(con, unit=unit, held_constant=study.held_constant)
    best = con.filter(pl.col("kind") == "best")
    rows = [[_config_label(study, r["config_id"]), r["members"], r["verdict"],
             _nstar_words(r), r["N"]] for r in best.iter_rows(named=True)]
    mode = ("sequential (anytime-valid: valid however often you look)"
            if rep.get("sequential") else "fixed-N (valid for one look)")
    return _section(
        "answer", "The answer: do the study's conclusions hold?",
        f"From the study's conclusions (mean within-{unit} ranks, {_missing_how(rep, unit)}; "
        f"the pairs judged as a family with Holm's correction; {mode} verdicts) "
        f"at alpha* = {numbers.setting(rep['alpha'])}: the agreement n* is the number of "
        f"{unit}s two independent studies need to reach the same conclusion with "
        "probability alpha*.",
        [_grid(["configuration", "best", "verdict",
                f"agreement n* (90 % interval) ({unit}s)", "N"], rows),
         Raw(summ.to_html(), _demote(summ.to_markdown()))])


def _missing_how(rep: Mapping[str, Any], unit: str) -> str:
    """How the conclusions, rank probabilities and n* treat a missing result."""
    if rep.get("missing") == "drop-block":
        return f"the {unit}s with a missing result left out"
    return "the missing results imputed as the worst tier"


def _nstar_words(r: Mapping[str, Any]) -> str:
    """n* with its interval, as text; none where the verdict is unsure (as the answer says)."""
    if str(r.get("verdict", "")).startswith("unsure"):
        return "none (unsure)"
    band = numbers.count_interval(r["nstar_lo"], r["nstar_hi"])
    return numbers.count(r["nstar"]) + (f" ({band})" if band else "")


def _plan_section(rep: dict, study: Study, unit: str) -> _Section:
    p = rep["plan"]
    # an unsure row promises no number of conditions: its 0 would read as "none needed"
    rows = [[r["priority"], _config_label(study, r["config_id"]), r["N"], r["conclusion"],
             "none promised" if str(r["verdict"]).startswith(("unsure", "needs more than"))
             else r["to_run"], r["verdict"], r["reason"]] for r in p.iter_rows(named=True)]
    a = float(p["assurance"].drop_nulls()[0]) if ("assurance" in p.columns and
                                                   p["assurance"].drop_nulls().len()) else 0.8
    lead = (f"Extend the configurations in this order: each row says how many more {unit}s "
            f"its conclusions need: after that many, the same test says 'holds' for every "
            f"conclusion marked 'needs k more' up to that number, each with probability "
            f"{numbers.setting(a)} "
            f"(predicted from the data). 0: none needed; unsure: the direction is not "
            f"settled, the data are compatible with no difference, and no number of {unit}s "
            "is promised.")
    mode = "sequential" if rep.get("sequential") else "fixed-N"
    how = (f"From the plan of the conclusions above (the same alpha* = "
           f"{numbers.setting(rep['alpha'])} and the same {mode} rule; configurations ranked "
           f"by the {unit}s their conclusions still need).")
    extra = _spread_blocks(rep, study, unit)
    if extra:
        how += f" The spread over {', '.join(study.average_over)} from the table's runs."
    return _section("plan", "What to run next", how, [
        Paragraph(Data(lead)), _grid(["priority", "configuration", "N",
                                      "the conclusion that needs most", f"{unit}s to add",
                                      "verdict", "why"], rows), *extra])


def _spread_blocks(rep: Mapping[str, Any], study: Study, unit: str) -> list:
    """More runs or more conditions? The spread over runs against the spread over conditions.

    On the page's scale (said at its top), the outlier runs left out (listed in the data
    section, with the ratio they would give); no block without replicates.
    """
    spread = rep.get("replicate_spread")
    if spread is None or not spread.height:
        return []
    reps = ", ".join(study.average_over)
    rows = [[_config_label(study, r["config_id"]), numbers.number(r["replicates"]),
             numbers.number(r["seed_sd"]), numbers.number(r["condition_sd"]),
             numbers.number(r["ratio"])] for r in spread.iter_rows(named=True)]
    basis = ("each result in fractions of its {unit}'s range (max - min of the {unit}'s "
             "results), the scale of every cross-{unit} number on this page" if
             rep["basis"] == "minmax" else "the target's own units, the scale of every "
             "cross-{unit} number on this page").format(unit=unit)
    text = (f"More runs or more {unit}s? The spread of a result over its runs ({reps}: "
            f"the median standard deviation) against the spread over {unit}s of each "
            f"alternative's result relative to the {unit}'s mean over the alternatives "
            f"(the {unit}'s difficulty removed), medians over the alternatives, on "
            f"{basis}; over the {unit}s every section uses. Where the ratio is small, each "
            f"{unit}'s result is already sharp and more {unit}s help more than more runs; "
            f"where it nears 1 or more, the runs' noise is as large as the differences "
            f"between {unit}s, and more runs sharpen each {unit}'s result.")
    n_out = rep["outliers"].filter(pl.col("alternative").is_not_null()).height
    if n_out:
        withs = "; ".join(f"{_config_label(study, r['config_id'])}: "
                          f"{numbers.number(r['ratio_with_outliers'])}"
                          if spread.height > 1 else numbers.number(r["ratio_with_outliers"])
                          for r in spread.iter_rows(named=True))
        text += (f" The {plural_words(n_out, 'outlier run')} listed in the data section "
                 f"{'is' if n_out == 1 else 'are'} left out of these spreads; with "
                 f"{'it' if n_out == 1 else 'them'} the ratio would read {withs}.")
    return [Paragraph(Data(text)),
            _grid(["configuration", f"runs per result ({reps})", f"spread over {reps}",
                   f"spread over {unit}s", "ratio"], rows, "lrrrr")]


def _classical_section(rep: dict, study: Study, unit: str) -> _Section:
    blocks: list = []
    for cid, res in rep["comparisons"].items():
        if len(rep["comparisons"]) > 1:
            blocks.append(Heading(3, Data(_config_label(study, cid))))
        # the LaTeX stays in its file in Markdown: a name from the data could close a fence
        blocks.append(Raw(
            f"<figure>{_cd_svg(res)}</figure>{res.to_html()}<details><summary>The table in "
            f"LaTeX (booktabs; also in classical/config_{cid}/mean_ranks.tex)</summary>"
            f"<pre>{html_text(res.to_latex())}</pre></details>",
            f"![CD diagram](classical/config_{cid}/cd_diagram.svg)\n\n"
            + _demote(res.to_markdown(), 3)
            + f"\n\nThe table in LaTeX: classical/config\\_{cid}/mean\\_ranks.tex"))
    if rep.get("missing") == "drop-block":
        missing = (f"The {unit}s with a missing result are left out here, as in the "
                   f"conclusions and n* ({opt('missing', 'drop-block')}; the data section "
                   "lists them).")
    elif _classical_missing(rep) == "study":
        missing = (f"A missing result counts as the worst tier of its {unit}, as in the "
                   "conclusions and n* (the data section lists them by name).")
    else:
        missing = (f"Missing results are left out here: each {unit} ranks the alternatives "
                   "that have a result there, while the conclusions and n* rank a missing "
                   "result last (the data section lists them), so the mean ranks may differ "
                   "where results are missing.")
    return _section(
        "classical", "The classical tests",
        f"Friedman's test (Skillings-Mack's where results are missing and left out), the "
        f"post-hoc test with Holm's correction, mean ranks, the critical-difference diagram "
        f"and a table a paper can use, over the {unit}s the study kept, per configuration. "
        f"{missing} The study's missing-results policy ran first (the data section says "
        f"what it dropped): the tests keep every {unit} and alternative the study kept, "
        "so they apply no tolerance of their own (where genexpy-nb compare on the same "
        "table applies its tolerances to the raw table, the same ones, with the same "
        "result).", blocks)


def _scores_words(rep: Mapping[str, Any], study: Study, unit: str) -> str:
    """Say which scores every cross-condition number of the page is on (said at its top)."""
    if rep["basis"] == "minmax":
        return (f"scores min-max normalised per {unit} (0 = its lowest result, 1 = its "
                "highest; the page's scale, said at its top)")
    return f"raw scores of {study.target} (the page's scale, said at its top)"


def scale_words(basis: str, reason: str, study: Study, unit: str) -> str:
    """Say the page's scale: raw scores or min-max normalised per condition, and why.

    Parameters
    ----------
    basis : {"none", "minmax"}
        The scale (:func:`genexpy_nb.answers.scales.study_basis`).
    reason : str
        Why, in words.
    study : Study
        The study (its target and replicate columns).
    unit : str
        What a condition is called.

    Returns
    -------
    str
    """
    avg = f", averaged over {', '.join(study.average_over)}" if study.average_over else ""
    if basis == "minmax":
        return (f"scores min-max normalised per {unit} (0 = its lowest result, 1 = its "
                f"highest; Agarwal et al. 2021){avg}: {reason}")
    return f"raw scores of {study.target}, in its own units{avg}: {reason}"


#: what a rope is in, the same words in ``--help``, the docstring and the page
ROPE_UNITS = ("on the scores the page compares, said at its top: in the target's units "
              "where they are raw, in fractions of each condition's range (max - min) where "
              "they are min-max normalised (--normalize / normalize= chooses)")


def _rope_option() -> str:
    """How the reader gives a rope: the flag on the command line, the argument in Python."""
    from .._words import on_command_line

    if on_command_line():
        return "--bayesian-rope R (gx.report(..., rope=R) in Python)"
    return "gx.report(..., rope=R) (genexpy-nb report --bayesian-rope R on the command line)"


def _classical_missing(rep: Mapping[str, Any]) -> str:
    """How the classical tests treated a missing result ("study": the worst tier)."""
    return next((getattr(r, "missing", "available") for r in rep["comparisons"].values()),
                "available")


def _beyond_section(rep: dict, study: Study, unit: str) -> _Section:
    iv = rep["rank_intervals"]
    several = iv["config_id"].n_unique() > 1
    rope = rep.get("rope")
    scores = _scores_words(rep, study, unit)
    here = ("in fractions of each {unit}'s range (max - min): the scores are min-max "
            "normalised per {unit}" if rep["basis"] == "minmax" else
            "in the target's units: the scores are raw").format(unit=unit)
    if rope is None:
        lead = (f"The Bayesian signed-rank test needs a region of practical equivalence (the "
                f"smallest difference in {study.target} that matters), which only you can "
                f"say: give it as {_rope_option()}, {here}. No rope is assumed.")
    else:
        lead = (f"The Bayesian signed-rank test of every alternative against the best uses "
                f"the rope you gave: ±{numbers.setting(rope)} {here} (a rope is "
                f"{ROPE_UNITS}).")
    blocks: list = [Paragraph(Data(lead))]
    for cid in iv["config_id"].unique(maintain_order=True).to_list():
        part = iv.filter(pl.col("config_id") == cid)
        rows = [[r["alternative"], numbers.rank(r["expected_rank"]), numbers.prob(r["p_best"]),
                 f"{r['rank_low']}-{r['rank_high']}", "yes" if r["in_top_group"] else ""]
                for r in part.iter_rows(named=True)]
        if several:
            blocks.append(Heading(3, Data(_config_label(study, cid))))
        blocks += [Heading(4, "How sure is each place?"),
                   _grid(["alternative", "expected place", "P(best)", "95 % interval of places",
                          "top group"], rows, "lrrll")]
        for title, sec in ((f"Bayesian signed-rank test against the best (rope "
                            f"±{numbers.setting(rope)})"
                            if rope is not None else None, rep["bayesian"].get(cid)),
                           ("Robust aggregates", rep["aggregates"].get(cid))):
            if title is None or sec is None:
                continue
            blocks += [Heading(4, Data(title)),  # a reason it could not run, or its blocks
                       *((Paragraph(Data(sec)),) if isinstance(sec, str) else sec.blocks)]
    files = "aggregates.csv" + (", bayesian_signed_rank.csv" if rope is not None else "")
    return _section(
        "beyond", "Beyond p-values: how sure is each place, and by how much?",
        f"Rank probabilities: the {unit}s resampled with replacement {RANK_REP} times "
        f"(seed {rep['seed']}), the alternatives ranked by mean within-{unit} rank "
        "(missing results last); the top group holds the alternatives whose 95 % interval "
        f"of places reaches the first. The robust aggregates (IQM, mean, median; Agarwal et "
        f"al. 2021) and the Bayesian signed-rank test (Benavoli et al. 2017) run on the "
        f"{scores}, over the {unit}s of the classical tests with the imputed results left "
        f"out: the aggregates over the {unit}s where every alternative has a result, with "
        f"95 % intervals from {AGG_REP} bootstrap resamples of those {unit}s (one result "
        f"per {unit}: the stratified bootstrap resamples the {unit}s), the Bayesian test "
        f"over the {unit}s where both alternatives of a pair have one ({BAYES_SAMPLES} "
        f"posterior samples, seed {rep['seed']}). Every number is in rank_intervals.csv, "
        f"{files}.", blocks)


def _nstar_section(rep: dict, study: Study, unit: str) -> _Section:
    from .summary import nstar_summary

    summ = nstar_summary(rep["nstar"], rep["alpha"], rep["delta"], unit=unit)
    return _section(
        "nstar", f"How consistent are the per-{unit} rankings? (the paper's n*)",
        f"n-generalizability (Matteucci et al., Sec. 3-4): for each research question, the "
        f"number of {unit}s n* at which two independent studies answer it alike (within "
        f"delta* = {numbers.setting(rep['delta'])}) with probability alpha* = "
        f"{numbers.setting(rep['alpha'])}, resampled "
        f"{rep['nrep']} times per sample size (seed {rep['seed']}), with the no-signal "
        "baseline: the n* of alternatives ranked at random. It measures how consistent the "
        "rankings are, not which alternative wins: it can read (chance) while the winner "
        "above holds.", [Raw(summ._repr_html_(), _demote(summ.to_markdown()))])


def _data_section(rep: dict, study: Study, unit: str) -> _Section:
    r = study.report
    head: list = [_grid(["what the study holds", "count"], list(r.to_frame().iter_rows()),
                        "lr")]
    if r.alternatives_dropped:
        head.append(Paragraph(Data("Alternatives dropped: " + ", ".join(r.alternatives_dropped)
                                   + ".")))
    if r.short_replicates:
        head.append(_grid(["alternative averaged over fewer replicates", "results", "fewest",
                           "most"], [list(x) for x in r.short_replicates]))
    failed = rep["failed_runs"]
    listed: list = []
    n_imp = failed.filter(pl.col("status") == _IMPUTED).height
    if failed.height:
        rows = [[", ".join(str(x[c]) for c in study.design) or "(all)", x["condition"],
                 x["alternative"], x["status"]] for x in failed.iter_rows(named=True)]
        listed.append(_grid(["configuration", unit, "alternative (no result)",
                             "what happened"], rows))
        where = ("the classical tests, the conclusions, the rank probabilities and n*"
                 if _classical_missing(rep) == "study" else
                 "the conclusions, the rank probabilities and n*, and left out of the "
                 "classical tests")
        if rep.get("missing") == "drop-block":
            n_left = failed.filter(pl.col("status") == _DROPPED_BLOCK).height
            lead = (f"{failed.height} missing or failed result(s), by name; {n_left} left out "
                    f"with their {unit} in every section ({opt('missing', 'drop-block')}); the "
                    "others "
                    f"went with their dropped {unit} or alternative.")
        else:
            lead = (f"{failed.height} missing or failed result(s), by name; {n_imp} imputed "
                    f"as the worst tier of its {unit} in {where}; the others went with their "
                    f"dropped {unit} or alternative.")
    else:
        lead = f"No result is missing in the {unit}s and alternatives kept."
    if isinstance(rep["data"], Study):
        lead += (f" (Given a study, not its table: only the results missing in the {unit}s "
                 "and alternatives it kept are listed.)")
    if rep.get("source"):
        listed.insert(0, Paragraph(Data(f"Read from: {rep['source']}")))
    avg = (f" averaged over {', '.join(study.average_over)}," if study.average_over else "")
    return _section(
        "data", "The data",
        f"The study's missing-results policy (Matteucci et al., Sec. 4.1):{avg} "
        f"{unit}s missing more than {numbers.share(r.tol_missing_alternatives)} of the "
        f"alternatives dropped, then alternatives missing in more than "
        f"{numbers.share(r.tol_missing_conditions)} of "
        f"the {unit}s left, then what is still missing "
        + (f"left out with its {unit} ({opt('missing', 'drop-block')})."
           if rep.get("missing") == "drop-block" else "imputed as the worst tier."),
        [*head, Paragraph(Data(lead)), *listed, *_marked_blocks(study, unit),
         *_outlier_blocks(rep, study, unit)])


def _tiers_section(rep: dict, study: Study, unit: str) -> _Section:
    """Tiers of each configuration and the conditions that would split them (gx.tiers)."""
    from ..leaderboards import tiers
    from .conclusions import tier_lines

    a = rep.get("assurance", 0.8)
    if rep.get("tiers") is None:  # computed beside the other analyses by report()
        rep["tiers"] = tiers(study, level=rep["alpha"], assurance=a, seed=rep["seed"],
                             progress=False)
    t = rep["tiers"]
    blocks: list = []
    for cid in dict.fromkeys(t["config_id"].to_list()):
        blocks.append(Heading(3, Data(_config_label(study, cid))))
        blocks += [Paragraph(Data(x)) for x in tier_lines(t, cid, unit, unit + "s")]
    how = (f"From the simultaneous rank sets (Mogstad, Romano, Shaikh & Wilhelm 2023) at "
           f"level alpha* = {numbers.setting(rep['alpha'])}: a tier ends where every "
           "alternative above is shown ahead of every one below, all pairs at once (max-t "
           f"step-down over the mean within-{unit} ranks, bootstrap over the {unit}s). "
           f"{unit.capitalize()}s to add: after them the same test shows the cut with "
           f"probability {numbers.setting(a)} in a predictive simulation (effects drawn "
           "given the data, "
           f"future {unit}s drawn, the test re-run; in simulated studies such promises "
           "were kept in 83-100% of the cases).")
    return _section("tiers", "Tiers", how, blocks)


def _marked_blocks(study: Study, unit: str) -> list:
    """List the rows the ``imputed`` column marked, by name: counted as failed runs."""
    marked = getattr(study, "marked_imputed", None)
    if study.imputed is None or marked is None:
        return []
    if not marked.height:
        return [Paragraph(Data(f"No row is marked imputed in column {study.imputed} "
                               f"({opt('imputed', study.imputed)})."))]
    des, gen = list(study.design), list(study.generalize)
    cols = [*des, *gen, study.alternatives_col, *study.average_over]
    rows = [[x[c] for c in cols] for x in marked.sort(cols).iter_rows(named=True)]
    text = (f"{plural_words(marked.height, 'row')} marked imputed by the table's source "
            f"(column {study.imputed}, {opt('imputed', study.imputed)}): each counts as a "
            f"failed run, its result missing, under the missing-results policy above.")
    return [Paragraph(Data(text)), _grid(cols, rows)]


def _outlier_blocks(rep: Mapping[str, Any], study: Study, unit: str) -> list:
    """Every outlier by name, with what it did; the rule said either way."""
    from .scales import OUTLIER_FACTOR, OUTLIER_MADS, OUTLIER_RULE

    rule = OUTLIER_RULE.format(mads=OUTLIER_MADS, factor=OUTLIER_FACTOR, unit=unit)
    out = rep["outliers"]
    if not out.height:
        return [Paragraph(Data(f"Outliers: none ({rule})."))]
    reps = [c for c in study.average_over if c in out.columns]
    rows = []
    for r in out.iter_rows(named=True):
        where = _config_label(study, r["config_id"])
        run = ", ".join(f"{c} = {r[c]}" for c in reps)
        if r["place_without"] is None:
            did = "its result's only run: the result would be missing without it"
        elif r["place"] == r["place_without"]:
            did = f"its place in its {unit} is {r['place']} of {r['of']} either way"
        else:
            how = "without this run" if reps else f"at the {unit}'s median"
            did = (f"places its result {r['place']} of {r['of']} in its {unit} "
                   f"({r['place_without']} {how})")
        rows.append([where, r["condition"], r["alternative"], *([run] if reps else []),
                     numbers.number(r["value"]), numbers.number(r["condition_median"]),
                     did])
    what = ("the runs are averaged into the results the ranks see" if reps else
            "the ranks see only its place")
    text = (f"{plural_words(out.height, 'outlier')}: {rule}. Listed by name with what each "
            f"did: {what}, so the conclusions, the rank tests and n* see it only through "
            f"that place; the spreads over runs and {unit}s leave the outlier runs out "
            "(the plan section says the ratio with them); the aggregates and the effect "
            "sizes use every result, on the page's scale (outliers.csv has them all).")
    return [Paragraph(Data(text)),
            _grid(["configuration", unit, "alternative", *(["run"] if reps else []),
                   study.target, f"{unit}'s median", "what it did"], rows)]


def _noise_section(rep: dict, study: Study, unit: str) -> _Section:
    """Say the board's noise budget, tie groups and what to run next (items, runs, tasks)."""
    from .noise_budget import noise_blocks

    blocks, tables = noise_blocks(rep["noise"], alpha=1 - rep["alpha"], unit=unit)
    rep["noise_tables"] = tables
    return _section(
        "noise", "Runs, items, tasks: where the noise is, and what to run next",
        f"gx.eval_noise on the board's rows (the {unit}s and models the study kept, the "
        "failed and the marked-imputed runs left out): the paired differences of the "
        "models' means over the items both answered, their variance split by method of "
        f"moments (Miller 2024, Sec. 2-4), the paired tests at alpha = "
        f"{numbers.setting(1 - rep['alpha'])}. Every number is in noise_budget.csv, "
        "tie_groups.csv, noise_plan.csv.", blocks)


def _board_roles(data: Any, items: str | None, runs: str | None, tasks: str | None,
                 generalize: Any, average_over: Any) -> tuple[Any, Any]:
    """Return the conditions and replicates of a per-item board: items within their tasks."""
    if isinstance(data, Study):
        raise GenexpyInputError("report: items, runs and tasks name columns of a per-item "
                                "table; pass the table, not a Study.")
    if items is None:
        raise GenexpyInputError("report: runs or tasks given without items: name the column "
                                "of the item (question, sample) too.")
    if generalize is None:
        generalize = [c for c in (tasks, items) if c]
    if average_over is None and runs is not None:
        average_over = runs
    return generalize, average_over


def _board_noise(data: Any, study: Study, items: str, runs: str | None,
                 tasks: str | None) -> Any:
    """gx.eval_noise of the board's rows that the study kept."""
    from .._validation import to_polars
    from ..evals.noise import eval_noise

    df = study._held_constant_rows(to_polars(data, "data"))
    ok = pl.col(study.target).cast(pl.Float64).is_finite().fill_null(False)
    if study.imputed is not None:
        ok = ok & ~pl.col(study.imputed).cast(pl.Boolean).fill_null(False)
    df = df.filter(ok, pl.col(study.alternatives_col).cast(pl.String)
                   .is_in(list(study.alternatives)))
    return eval_noise(df, alternatives=study.alternatives_col, target=study.target,
                      items=items, runs=runs, tasks=tasks,
                      higher_is_better=study.higher_is_better)


_SECTIONS = (_answer_section, _plan_section, _tiers_section, _noise_section,
             _classical_section, _beyond_section, _nstar_section, _data_section)


# ---- the cost of the page, known before it starts --------------------------------------


def _shape_words(study: Study) -> str:
    """Say a study's shape: "1 configuration x 100 alternatives x 1,000 conditions"."""
    Ns = [s.N for s in study.samples()]
    return (f"{len(Ns)} configuration(s) x {study.na:,} alternatives x up to "
            f"{max(Ns, default=0):,} conditions")


def estimate_steps(study: Study, kernels: Sequence[Any] | None = None, *,
                   rep: int = config.REP, rope: float | None = None) -> dict[str, float]:
    """Estimate each step of :func:`report` from the study's shape, before any starts.

    Parameters
    ----------
    study : Study
    kernels : sequence of Kernel, optional
        The research questions of n* (default: the report's).
    rep : int
        Resampled pairs per sample size of n*.
    rope : float, optional
        With a rope, the Bayesian signed-rank test too.

    Returns
    -------
    dict of str to float
        Seconds on one core of the reference machine (:data:`genexpy_nb.config.COSTS`)
        per step: ``conclusions``, ``classical tests``, ``beyond p-values``, ``n*``,
        ``the page``.
    """
    from ..generalizability.analysis import estimated_seconds as analysis_seconds
    from ..generalizability.analysis import parallel_speedup
    from ..generalizability.conclusions import estimated_seconds as conclusion_seconds
    from ..generalizability.kernels import default_questions

    c = config.COSTS
    tests = ranks = beyond = rows = 0.0
    for s in study.samples():
        N, na = float(s.N), float(s.na)
        pairs = na * (na - 1) / 2.0
        tests += N * na * c.compare_cell_ns + pairs * c.compare_pair_ns
        block = max(1, 2_000_000 // int(N * na + na * na))  # rank_probabilities' blocks
        ranks += (RANK_REP * (N * na * c.rank_cell_ns + na * c.rank_place_ns)
                  + math.ceil(RANK_REP / block) * na * na * c.rank_block_ns)
        work = float(AGG_REP) * na * N
        beyond += work * (c.bootstrap_numpy_cell_ns
                          if work <= config.ROUTES.aggregates_numpy_max_work
                          else c.bootstrap_cell_ns)
        if rope is not None:
            beyond += BAYES_SAMPLES * N * na * 0.5
        rows += pairs + 8.0
    from .._numba import n_threads

    qs = list(kernels) if kernels is not None else default_questions()
    return {"conclusions": conclusion_seconds(study),
            "classical tests": tests * 1e-9,
            "beyond p-values": (ranks + beyond) * 1e-9,
            "n*": float(analysis_seconds(study, qs, rep=rep)) / parallel_speedup(n_threads()),
            "the page": rows * c.page_row_ns * 1e-9}


def _analyses(parts: dict[str, Any], study: Study, steps: Any, cost: Mapping[str, float], *,
              kernels: list[Any], unit: str, basis: tuple[str, str]) -> None:
    """Run the page's analyses into ``parts``: four independent streams at once.

    The conclusions (with the plan) on the calling thread; the classical tests with the
    rank tables and the aggregates, the tiers, and n* each on a thread of their own. Each
    draws from its own seeded stream, so the page is the same bits whatever the order in
    which they finish; the compiled kernels release the GIL, so one stream's kernels run
    while another's Python builds its rows (on two cores, the analyses of a 300 x 50 or a
    100 x 1,000 board took 0.83-0.88 of the time of one stream after another: most kernels
    already split their work on the threads). BLAS runs on one thread throughout (the
    streams are the parallelism; a product's bits then do not depend on what runs beside
    it).
    """
    import contextvars
    from concurrent.futures import ThreadPoolExecutor

    from .._numba import one_blas_thread
    from ..config import allow_seconds
    from ..generalizability import analyze, conclusions
    from ..generalizability.planner import plan
    from ..leaderboards import tiers

    alpha, delta, seed, rope = parts["alpha"], parts["delta"], parts["seed"], parts["rope"]
    missing = parts["missing"]

    def tests() -> None:
        tests_missing = "available" if missing == "available" else "study"
        parts["comparisons"] = {s.config_id: _comparison(study, s.config_id, alpha=1 - alpha,
                                                         missing=tests_missing, basis=basis,
                                                         unit=unit)
                                for s in study.samples()}
        parts["rank_probabilities"], parts["rank_intervals"] = _rank_tables(
            study, rep=RANK_REP, seed=seed)
        parts["aggregates"], parts["bayesian"] = _beyond_p_values(
            study, parts["comparisons"], rope=rope, seed=seed)

    def nstar() -> None:
        parts["nstar"] = analyze(study, kernels, alphas=[alpha], deltas=[delta],
                                 estimators=["resample"], rep=parts["nrep"], seed=seed,
                                 progress=False)

    def tier_table() -> None:
        parts["tiers"] = tiers(study, level=alpha, assurance=parts["assurance"], seed=seed,
                               progress=False)

    with one_blas_thread(), allow_seconds(math.inf), ThreadPoolExecutor(
            max_workers=3, thread_name_prefix="genexpy_nb-report") as pool:
        # the costs were estimated and allowed above, for the whole page
        # each in a copy of this context: the words of the surface that called (options
        # named as on the command line or as keywords) carry over
        streams = [pool.submit(contextvars.copy_context().run, f)
                   for f in (nstar, tier_table, tests)]
        try:
            parts["conclusions"] = conclusions(study, alpha=alpha, delta=delta, seed=seed,
                                               progress=False,
                                               sequential=parts["sequential"],
                                               assurance=parts["assurance"])
            parts["plan"] = plan(parts["conclusions"], alpha=alpha, delta=delta)
            steps.update(cost["conclusions"])
            for f in streams:
                f.result()
            steps.update(cost["classical tests"] + cost["beyond p-values"] + cost["n*"])
        finally:  # an error: the streams not yet started never start (the pool's end
            # waits for those running)
            for f in streams:
                f.cancel()


# ---- the entry point ---------------------------------------------------------------------


def report(
    data: Any,
    *,
    alternatives: str | None = None,
    target: str | None = None,
    generalize: str | Sequence[str] | None = None,
    higher_is_better: bool | None = None,
    design: str | Sequence[str] | None = None,
    average_over: str | Sequence[str] | None = None,
    held_constant: Mapping[str, Any] | None = None,
    tol_missing_alternatives: float | None = None,
    tol_missing_conditions: float | None = None,
    invalid_target: str | None = None,
    alpha: float = config.HEADLINE_ALPHA,
    delta: float = config.HEADLINE_DELTA,
    kernels: Sequence[Any] | None = None,
    rep: int = config.REP,
    seed: int = 0,
    progress: bool = True,
    blocks: str | Sequence[str] | None = None,
    rope: float | None = None,
    missing: str = "study",
    normalize: str = "auto",
    imputed: str | None = None,
    items: str | None = None,
    runs: str | None = None,
    tasks: str | None = None,
    source: str | None = None,
    sequential: bool = False,
    assurance: float = 0.8,
) -> StudyReport:
    """Analyse a study end to end and return the answer as one page.

    The sections, in order: the answer (:func:`genexpy_nb.conclusions`), what to run next
    (:func:`genexpy_nb.plan`), the tiers and what would split them
    (:func:`genexpy_nb.tiers`), the classical tests
    (:func:`genexpy_nb.significance.compare`, per configuration), rank probabilities and
    intervals (:func:`genexpy_nb.rank_probabilities`) with robust aggregates and, given a
    ``rope``, the Bayesian signed-rank test against the best, the paper's n* per research
    question with its no-signal baseline (:func:`genexpy_nb.analyze`), the data (what was dropped,
    averaged or imputed, and every imputed result by name).

    Parameters
    ----------
    data : Study, or polars / pandas DataFrame or pyarrow Table
        The study, or a tidy results table (never modified) with the roles below.
    alternatives, target, generalize, higher_is_better : optional
        The roles of a table's columns, as for :class:`~genexpy_nb.Study` (required with a
        table, refused with a Study).
    design, average_over, held_constant : optional
        Design factors, replicate factors averaged first, and ``{column: level}`` filters,
        as for :class:`~genexpy_nb.Study`.
    tol_missing_alternatives, tol_missing_conditions, invalid_target : optional
        The missing-results policy of :class:`~genexpy_nb.Study` (its defaults when None).
    alpha, delta : float
        alpha* and delta* of the answer (default 0.95 and 0.05); ``1 - alpha`` is also the
        significance level of the classical tests.
    kernels : sequence of Kernel, optional
        The research questions of n* (default ``Jaccard(k=1)`` and ``Mallows()``).
    rep : int
        Resampled pairs of studies per sample size of the n* estimate (the rank
        probabilities draw 2000 resamples of the conditions).
    seed : int
        Seed of every random procedure (same seed, same page).
    progress : bool
        Show a progress bar over the steps.
    blocks : str or list of str, optional
        Alias of ``generalize`` (the name of :func:`~genexpy_nb.significance.compare`).
    rope : float, optional
        Half-width of the region of practical equivalence of the Bayesian signed-rank test
        (Benavoli et al. 2017): the smallest difference that matters, on the scores the
        page compares, said at its top: in the target's units where they are raw, in
        fractions of each condition's range (max - min) where they are min-max normalised
        (--normalize / normalize= chooses). Without it the page runs no Bayesian test and
        says how to ask for one (no default: only the user knows what difference matters).
    missing : {"study", "drop-block", "available"}
        A result still missing after the study's tolerances (a failed run), as in
        :func:`genexpy_nb.significance.compare` and ``genexpy-nb nstar``: the worst tier
        of its condition (default; paper Sec. 4.1), in every section; leave out the
        conditions with a missing result (``"drop-block"``), in every section; or rank
        among the available alternatives (``"available"``, Skillings-Mack) in the
        classical tests, the aggregates and the Bayesian test, while the conclusions, the
        rank probabilities and n* (which compare complete rankings) keep the worst tier.
        Said at the top of the page; the failed pairs are listed by name either way.
    normalize : {"auto", "none", "minmax"}
        The scale of every number that crosses conditions (the aggregates, the rope, the
        effect sizes, the spread over runs against the spread over conditions), decided
        once for the study and said at the top of the page: raw scores, or min-max
        normalised per condition; "auto" normalises where the conditions' score ranges
        differ by more than a factor of 100 (raw scores would let the widest decide).
        Ranks are scale-free.
    imputed : str, optional
        A boolean column marking the results the table's source imputed (failed runs it
        filled in): they count as failed runs under ``missing``, and the page lists them
        by name (as :class:`~genexpy_nb.Study`'s ``imputed``).
    items, runs, tasks : str, optional
        For a per-item board (an LLM or agent benchmark read per item): the columns naming
        the item, its repeated run (seed, sample, epoch) and its task. The items (within
        their tasks) are then the conditions (``generalize`` defaults to ``[tasks,
        items]``, ``average_over`` to ``runs``), and the page adds the board's noise
        budget over runs, items and tasks (:func:`genexpy_nb.eval_noise`), its tie
        groups and what to run next in items, runs and tasks.
    source : str, optional
        Where the table came from, in words (the evaluation output it was read from, and
        what the reader chose or left out), said in the data section.
    sequential : bool
        The conclusions' anytime-valid mode (:func:`genexpy_nb.conclusions`): verdicts that
        stay valid when the study is looked at again after every added condition (default:
        the fixed-N verdicts, valid for one look; the page says which).
    assurance : float
        The probability with which "needs k more" comes true (default 0.8).

    Returns
    -------
    StudyReport
        Displays as the page in a notebook; ``.save(folder)`` writes it.

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({"dataset": [f"d{i}" for i in range(12) for _ in range(3)],
    ...                    "model": ["a", "b", "c"] * 12,
    ...                    "acc": [0.9 - 0.1 * j + 0.02 * ((7 * i + 3 * j) % 5)
    ...                            for i in range(12) for j in range(3)]})
    >>> page = report(df, alternatives="model", target="acc", generalize="dataset",
    ...               higher_is_better=True, rep=20, seed=0, progress=False)
    >>> page.answer()["members"].to_list(), len(page.sections)
    ([['a']], 7)
    """
    from .._progress import check_cost, cost_bar
    from ..generalizability.kernels import default_questions
    from .conclusions import condition_word

    generalize = alias("generalize", generalize, "blocks", blocks, "report")
    if items is not None or runs is not None or tasks is not None:
        generalize, average_over = _board_roles(data, items, runs, tasks, generalize,
                                                average_over)
    args = dict(alternatives=alternatives, target=target, generalize=generalize,
                higher_is_better=higher_is_better, design=design, average_over=average_over,
                held_constant=held_constant, tol_missing_alternatives=tol_missing_alternatives,
                tol_missing_conditions=tol_missing_conditions, invalid_target=invalid_target,
                imputed=imputed)
    from .._validation import check_choice
    from ..study._missing import MISSING_POLICIES, drop_incomplete_conditions

    check_choice("missing", missing, MISSING_POLICIES)
    from .compare import NORMALIZE

    check_choice("normalize", normalize, NORMALIZE)
    study = _as_study(data, args)
    failed = _failed_runs(study)
    if not isinstance(data, Study):  # the table: also the pairs dropped, by name
        failed = _missing_pairs(data, study, failed)
    if missing == "drop-block":
        study, _ = drop_incomplete_conditions(study)
        failed = failed.with_columns(
            pl.when(pl.col("status") == _IMPUTED).then(pl.lit(_DROPPED_BLOCK))
            .otherwise(pl.col("status")).alias("status"))
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise GenexpyInputError(f"seed must be an integer, got {seed!r}.")
    rope = _check_rope(rope)
    kernels = list(kernels) if kernels is not None else default_questions()
    unit = "item" if items is not None else condition_word(study)
    from . import scales

    run_rows = scales._runs_frame(study)
    flagged = scales.outliers(study, run_rows)
    basis = scales.study_basis(study, normalize, unit=unit, flagged=flagged)
    parts: dict[str, Any] = dict(alpha=alpha, delta=delta, seed=seed, nrep=rep, data=data,
                                 rope=rope, missing=missing, failed_runs=failed,
                                 basis=basis[0], basis_reason=basis[1], outliers=flagged,
                                 source=source, sequential=bool(sequential),
                                 assurance=assurance)
    # what each step will cost, from the study's shape, before any of them starts
    cost = estimate_steps(study, kernels, rep=rep, rope=rope)
    est = check_cost(f"the report of {_shape_words(study)}", sum(cost.values()),
                     lift="A smaller rep, or the analyses one by one (gx.conclusions with "
                          "fewer kinds, gx.analyze), cost less.")
    with cost_bar("study report", est, total=sum(cost.values()),
                  disable=not progress) as steps:
        _analyses(parts, study, steps, cost, kernels=kernels, unit=unit, basis=basis)
        parts["replicate_spread"] = scales.replicate_spread(study, basis[0], run_rows,
                                                            flagged)
        if items is not None:
            parts["noise"] = _board_noise(data, study, items, runs, tasks)
        sections = tuple(f(parts, study, unit) for f in _SECTIONS
                         if f is not _noise_section or "noise" in parts)
        if study.held_constant:  # every section's "how" names the filter it was made under
            from dataclasses import replace

            from .conclusions import held_words

            note = (f" Only the rows with {held_words(study.held_constant)} (held "
                    "constant).")
            sections = tuple(replace(s, how=s.how + note) for s in sections)
        steps.update(cost["the page"])
    return StudyReport(
        study=study, conclusions=parts["conclusions"], plan=parts["plan"],
        comparisons=parts["comparisons"], rank_probabilities=parts["rank_probabilities"],
        rank_intervals=parts["rank_intervals"], nstar=parts["nstar"],
        failed_runs=parts["failed_runs"], sections=sections, alpha=alpha, delta=delta,
        seed=seed, unit=unit, replicate_spread=parts.get("replicate_spread"),
        aggregates=_section_frame(study, parts["aggregates"], "aggregates"),
        bayesian=_section_frame(study, parts["bayesian"], "bayesian_signed_rank"), rope=rope,
        missing=missing, basis=basis[0], basis_reason=basis[1],
        board_tables=parts.get("noise_tables"), tiers=parts.get("tiers"),
        outliers=_names_frame(study).with_columns(pl.col("config_id").cast(pl.UInt32))
        .join(flagged, on="config_id"))
