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
from ..study._roles import alias
from ..study.core import Study

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
        Half-width of the region of practical equivalence, in the target's units.
    missing : {"study", "drop-block", "available"}
        What a result still missing after the tolerances became (see :func:`report`).
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
        """The missing-results policy behind every section, in words (plain text)."""
        from ..study._missing import missing_words

        out = (f"Missing results: {missing_words(self.missing, self.unit)} "
               f"(missing = {self.missing}).")
        if self.missing == "available":
            out += (f" The conclusions, the rank probabilities and n* compare complete "
                    f"rankings of every {self.unit}, so there a failed run is the worst tier "
                    f"of its {self.unit}.")
        return out

    def to_markdown(self) -> str:
        """Render the page as Markdown (CommonMark with pipe tables), data escaped.

        Returns
        -------
        str
        """
        out = [f"# {markdown_text(self.title)}", f"**{markdown_text(self.policy)}**"]
        for s in self.sections:
            out += [f"## {s.title}", f"*{s.how}*", s.markdown]
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
            {} if self.bayesian is None else {"bayesian_signed_rank.csv": self.bayesian})

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
    base = df.select(*des, cond.alias("condition"),
                     pl.col(alt).cast(pl.String).alias("alternative"),
                     pl.col(study.target).cast(pl.Float64).is_finite().fill_null(False)
                     .alias("ok"))
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


def _replicate_spread(data: Any, study: Study) -> pl.DataFrame | None:
    """Spread over replicates against spread over conditions, per configuration.

    Per (configuration, alternative): the median over conditions of the standard deviation
    over replicates (conditions with at least two), and the standard deviation over
    conditions of the alternative's mean relative to the condition's mean over the
    alternatives (the condition's difficulty removed); then per configuration the medians
    over the alternatives and their ratio. None without replicates (``average_over``).
    """
    from .._validation import to_polars

    if not study.average_over:
        return None
    des, gen, alt, t = list(study.design), list(study.generalize), study.alternatives_col, \
        study.target
    df = study._held_constant_rows(to_polars(data, "data")).filter(
        pl.col(t).cast(pl.Float64).is_finite().fill_null(False),
        pl.col(alt).cast(pl.String).is_in(list(study.alternatives)))
    # sorted, and groups kept in order: the sums behind every mean and standard deviation
    # run in one order, so the same data give the same bits (polars' hash grouping does not)
    df = df.sort([*des, *gen, alt, *study.average_over])
    cell = df.group_by([*des, *gen, alt], maintain_order=True).agg(
        pl.col(t).cast(pl.Float64).std().alias("sd"), pl.col(t).cast(pl.Float64).mean()
        .alias("mean"), pl.len().alias("n"))
    # each result relative to its condition's mean over the alternatives: the condition's
    # difficulty is not a difference between the alternatives
    cell = cell.with_columns((pl.col("mean") - pl.col("mean").mean().over([*des, *gen]))
                             .alias("relative"))
    per_alt = cell.group_by([*des, alt], maintain_order=True).agg(
        pl.col("sd").filter(pl.col("n") >= 2).median().alias("seed_sd"),
        pl.col("relative").std().alias("condition_sd"),
        pl.col("n").median().alias("replicates"))
    out = per_alt.group_by(des or pl.lit(0).alias("__all__"), maintain_order=True).agg(
        pl.col("replicates").median(), pl.col("seed_sd").median(),
        pl.col("condition_sd").median())
    out = out.with_columns((pl.col("seed_sd") / pl.col("condition_sd")).alias("ratio"))
    names = _names_frame(study).with_columns(pl.col("config_id").cast(pl.UInt32))
    if des:
        return names.join(out, on=des, how="inner").sort("config_id")
    return names.join(out.drop("__all__"), how="cross")


# ---- the analyses ------------------------------------------------------------------------


def _block_column(study: Study) -> str:
    """Name the blocks' column so that it is neither the alternatives' nor the target's."""
    from .conclusions import condition_word

    name = condition_word(study)
    while name in (study.alternatives_col, study.target):
        name += "_"
    return name


def _comparison(study: Study, cid: int, *, alpha: float, missing: str = "study") -> Any:
    """compare(...) over the configuration's conditions, the imputed results left out.

    ``compare``'s ``missing`` then puts them back as the worst tier ("study") or ranks
    among the available alternatives ("available").
    """
    from .compare import compare
    from .paper_table import paper_table_section

    s = study.sample(cid)
    keep = ~s.imputed
    rows, cols = keep.nonzero()
    block = _block_column(study)
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
                      missing=missing, tie_rtol=study.tie_rtol, tie_atol=study.tie_atol)
    # the table a paper can use: on the page, in report.md and mean_ranks.tex
    return res.with_section(paper_table_section(res))


#: resamples of the rank probabilities (those of :func:`genexpy_nb.rank_probabilities`)
RANK_REP = 2000


def _rank_tables(study: Study, *, rep: int, seed: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Rank probabilities and intervals (with the top group) of every configuration."""
    from ..leaderboards.rank_uncertainty import rank_intervals, rank_probabilities, top_group

    probs, ivals = [], []
    for s in study.samples():
        p = rank_probabilities(study, rep=rep, seed=seed, config=s.config_id)
        top = set(top_group(p))
        iv = rank_intervals(p).with_columns(
            pl.col("alternative").is_in(list(top)).alias("in_top_group"))
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


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> tuple[str, str]:
    """Render an HTML and a Markdown table, every cell escaped for its format."""
    head = "".join(f"<th>{html_text(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html_text(_cell(c))}</td>" for c in r) + "</tr>"
                   for r in rows)
    html = f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    md = ["| " + " | ".join(markdown_text(h) for h in header) + " |",
          "| " + " | ".join("---" for _ in header) + " |"]
    md += ["| " + " | ".join(markdown_text(_cell(c)) for c in r) + " |" for r in rows]
    return html, "\n".join(md)


def _cell(v: Any) -> str:
    """Format a table cell as text: floats to 3 significant digits, None as an empty cell."""
    if v is None:
        return ""
    if isinstance(v, float):
        return "inf" if v == float("inf") else f"{v:.3g}"
    if isinstance(v, (list, tuple)):
        return ", ".join(map(str, v))
    return str(v)


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
    summ = conclusions_summary(con, unit=unit)
    best = con.filter(pl.col("kind") == "best")
    rows = [[_config_label(study, r["config_id"]), _cell(r["members"]), r["verdict"],
             _nstar_words(r), r["N"]] for r in best.iter_rows(named=True)]
    html, md = _table(["configuration", "best", "verdict", f"n* [90 % interval] ({unit}s)",
                       "N"], rows)
    return _Section(
        "answer", "The answer: do the study's conclusions hold?",
        f"From the study's conclusions (mean within-{unit} ranks, {_missing_how(rep, unit)}; "
        f"the pairs judged as a family with Holm's correction) "
        f"at alpha* = {rep['alpha']:g}: n* is the number of {unit}s two independent studies "
        "need to reach the same conclusion with probability alpha*.",
        f"<div class=\"answer-best\">{html}</div>" + summ.to_html(),
        md + "\n\n" + _demote(summ.to_markdown()))


def _missing_how(rep: Mapping[str, Any], unit: str) -> str:
    """How the conclusions, rank probabilities and n* treat a missing result."""
    if rep.get("missing") == "drop-block":
        return f"the {unit}s with a missing result left out"
    return "the missing results imputed as the worst tier"


def _nstar_words(r: Mapping[str, Any]) -> str:
    """n* with its interval, as text; none where the verdict is unsure (as the answer says)."""
    if str(r.get("verdict", "")).startswith("unsure"):
        return "none (unsure)"

    def num(x: Any) -> str:
        return "-" if x is None else ("inf" if x == float("inf") else f"{x:.0f}")
    return f"{num(r['nstar'])} [{num(r['nstar_lo'])}, {num(r['nstar_hi'])}]"


def _plan_section(rep: dict, study: Study, unit: str) -> _Section:
    p = rep["plan"]
    # an unsure row promises no number of conditions: its 0 would read as "none needed"
    rows = [[r["priority"], _config_label(study, r["config_id"]), r["N"], r["conclusion"],
             "none promised" if str(r["verdict"]).startswith("unsure") else r["to_run"],
             r["verdict"], r["reason"]] for r in p.iter_rows(named=True)]
    html, md = _table(["priority", "configuration", "N", "the conclusion that needs most",
                       f"{unit}s to add", "verdict", "why"], rows)
    lead = (f"Extend the configurations in this order: each row says how many more {unit}s "
            "its conclusions need to hold (0: none; unsure: no number of "
            f"{unit}s is promised, these {unit}s do not separate the alternatives).")
    html, md = f"<p>{html_text(lead)}</p>{html}", f"{markdown_text(lead)}\n\n{md}"
    how = (f"From the plan of the conclusions above (the same alpha* = {rep['alpha']:g}; "
           f"configurations ranked by the {unit}s their conclusions still need).")
    spread = rep.get("replicate_spread")
    if spread is not None and spread.height:
        reps = ", ".join(study.average_over)
        rows = [[_config_label(study, r["config_id"]), r["replicates"], r["seed_sd"],
                 r["condition_sd"], r["ratio"]] for r in spread.iter_rows(named=True)]
        h, m = _table(["configuration", f"runs per result ({reps})",
                       f"spread over {reps}", f"spread over {unit}s", "ratio"], rows)
        text = (f"More runs or more {unit}s? The spread of a result over its runs ({reps}: "
                f"the median standard deviation) against the spread over {unit}s of each "
                f"alternative's result relative to the {unit}'s mean over the alternatives "
                f"(the {unit}'s difficulty removed), medians over the alternatives. Where "
                f"the ratio is small, each {unit}'s result is already sharp and more "
                f"{unit}s help more than more runs; where it nears 1 or more, the runs' "
                f"noise is as large as the differences between {unit}s, and more runs "
                f"sharpen each {unit}'s result.")
        html += f"<p>{html_text(text)}</p>{h}"
        md += f"\n\n{markdown_text(text)}\n\n{m}"
        how += f" The spread over {reps} from the table's runs."
    return _Section("plan", "What to run next", how, html, md)


def _classical_section(rep: dict, study: Study, unit: str) -> _Section:
    html, md = [], []
    for cid, res in rep["comparisons"].items():
        label = _config_label(study, cid)
        if len(rep["comparisons"]) > 1:
            html.append(f"<h3>{html_text(label)}</h3>")
            md.append(f"### {markdown_text(label)}")
        html.append(f"<figure>{_cd_svg(res)}</figure>{res.to_html()}"
                    "<details><summary>The table in LaTeX (booktabs; also in "
                    f"classical/config_{cid}/mean_ranks.tex)</summary>"
                    f"<pre>{html_text(res.to_latex())}</pre></details>")
        # the LaTeX stays in its file: a name from the data could close a code fence
        md.append(f"![CD diagram](classical/config_{cid}/cd_diagram.svg)\n\n"
                  + _demote(res.to_markdown(), 3)
                  + f"\n\nThe table in LaTeX: classical/config\\_{cid}/mean\\_ranks.tex")
    if rep.get("missing") == "drop-block":
        missing = (f"The {unit}s with a missing result are left out here, as in the "
                   "conclusions and n* (missing = drop-block; the data section lists them).")
    elif _classical_missing(rep) == "study":
        missing = (f"A missing result counts as the worst tier of its {unit}, as in the "
                   "conclusions and n* (the data section lists them by name).")
    else:
        missing = (f"Missing results are left out here: each {unit} ranks the alternatives "
                   "that have a result there, while the conclusions and n* rank a missing "
                   "result last (the data section lists them), so the mean ranks may differ "
                   "where results are missing.")
    return _Section(
        "classical", "The classical tests",
        f"Friedman's test (Skillings-Mack's where results are missing and left out), the "
        f"post-hoc test with Holm's correction, mean ranks, the critical-difference diagram "
        f"and a table a paper can use, over the {unit}s the study kept, per configuration. "
        f"{missing} The study's missing-results policy ran first: the tests keep every "
        f"{unit} and alternative the study kept (their own tolerances set to 1.0, as each "
        "comparison's data says).",
        "\n".join(html), "\n\n".join(md))


def _scores_words(rep: Mapping[str, Any], study: Study, unit: str) -> str:
    """Say which scores the aggregates and the Bayesian test ran on, and why.

    Each configuration's comparison chose (``compare``'s ``normalize="auto"``): raw scores,
    or min-max normalised per condition where the conditions' score ranges differ by
    orders of magnitude.
    """
    avg = f", averaged over {', '.join(study.average_over)}" if study.average_over else ""
    norm = [cid for cid, r in rep["comparisons"].items()
            if getattr(r, "normalize", "none") == "minmax"]
    raw = (f"raw scores of {study.target} (as the table holds them{avg}; in the target's "
           "units)")
    if not norm:
        return (f"{raw}, as the {unit}s' score ranges differ by less than the factor that "
                "calls for normalising (each comparison's Answer says by how much)")
    minmax = (f"scores min-max normalised per {unit} (0 = its lowest result, 1 = its "
              f"highest; Agarwal et al. 2021), as the {unit}s' score ranges differ by "
              "orders of magnitude (each comparison's Answer says by how much)")
    if len(norm) == len(rep["comparisons"]):
        return minmax
    labels = "; ".join(_config_label(study, c) for c in norm)
    return f"{minmax} in {labels}, and on the {raw} elsewhere"


def _classical_missing(rep: Mapping[str, Any]) -> str:
    """How the classical tests treated a missing result ("study": the worst tier)."""
    return next((getattr(r, "missing", "available") for r in rep["comparisons"].values()),
                "available")


def _beyond_section(rep: dict, study: Study, unit: str) -> _Section:
    from .document import render_blocks

    iv = rep["rank_intervals"]
    several = iv["config_id"].n_unique() > 1
    rope = rep.get("rope")
    scores = _scores_words(rep, study, unit)
    if rope is None:
        lead = (f"The Bayesian signed-rank test needs a region of practical equivalence (the "
                f"smallest difference in {study.target} that matters), which only you can "
                f"say: give it as gx.report(..., rope=R) or genexpy-nb report --bayesian-rope "
                f"R, in the target's units. No rope is assumed.")
    else:
        lead = (f"The Bayesian signed-rank test of every alternative against the best uses "
                f"the rope you gave: ±{rope:g} on the scores below (in the target's units "
                f"where raw, in fractions of a {unit}'s range where normalised).")
    html, md = [f"<p>{html_text(lead)}</p>"], [markdown_text(lead)]
    for cid in iv["config_id"].unique(maintain_order=True).to_list():
        part = iv.filter(pl.col("config_id") == cid)
        rows = [[r["alternative"], r["expected_rank"], r["p_best"],
                 f"{r['rank_low']}-{r['rank_high']}", "yes" if r["in_top_group"] else ""]
                for r in part.iter_rows(named=True)]
        h, m = _table(["alternative", "expected place", "P(best)", "95 % interval of places",
                       "top group"], rows)
        if several:
            label = _config_label(study, cid)
            html.append(f"<h3>{html_text(label)}</h3>")
            md.append(f"### {markdown_text(label)}")
        html.append(f"<h4>How sure is each place?</h4>{h}")
        md.append(f"#### How sure is each place?\n\n{m}")
        for title, sec in ((f"Bayesian signed-rank test against the best (rope ±{rope:g})"
                            if rope is not None else None, rep["bayesian"].get(cid)),
                           ("Robust aggregates", rep["aggregates"].get(cid))):
            if title is None or sec is None:
                continue
            if isinstance(sec, str):  # the reason it could not run
                h, m = f"<p>{html_text(sec)}</p>", markdown_text(sec)
            else:
                h, m = render_blocks(sec.blocks, "html"), render_blocks(sec.blocks, "markdown")
            html.append(f"<h4>{html_text(title)}</h4>{h}")
            md.append(f"#### {markdown_text(title)}\n\n{m}")
    files = "aggregates.csv" + (", bayesian_signed_rank.csv" if rope is not None else "")
    return _Section(
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
        f"{files}.",
        "\n".join(html), "\n\n".join(md))


def _nstar_section(rep: dict, study: Study, unit: str) -> _Section:
    from .summary import nstar_summary

    summ = nstar_summary(rep["nstar"], rep["alpha"], rep["delta"], unit=unit)
    return _Section(
        "nstar", f"How consistent are the per-{unit} rankings? (the paper's n*)",
        f"n-generalizability (Matteucci et al., Sec. 3-4): for each research question, the "
        f"number of {unit}s n* at which two independent studies answer it alike (within "
        f"delta* = {rep['delta']:g}) with probability alpha* = {rep['alpha']:g}, resampled "
        f"{rep['nrep']} times per sample size (seed {rep['seed']}), with the no-signal "
        "baseline: the n* of alternatives ranked at random. It measures how consistent the "
        "rankings are, not which alternative wins: it can read (chance) while the winner "
        "above holds.",
        summ._repr_html_(), _demote(summ.to_markdown()))


def _data_section(rep: dict, study: Study, unit: str) -> _Section:
    r = study.report
    h1, m1 = _table(["what the study holds", "count"], list(r.to_frame().iter_rows()))
    extra_h, extra_m = "", ""
    if r.alternatives_dropped:
        text = "Alternatives dropped: " + ", ".join(r.alternatives_dropped) + "."
        extra_h += f"<p>{html_text(text)}</p>"
        extra_m += markdown_text(text) + "\n\n"
    if r.short_replicates:
        rows = [list(x) for x in r.short_replicates]
        h, m = _table(["alternative averaged over fewer replicates", "results", "fewest",
                       "most"], rows)
        extra_h, extra_m = extra_h + h, extra_m + m + "\n\n"
    failed = rep["failed_runs"]
    n_imp = failed.filter(pl.col("status") == _IMPUTED).height
    if failed.height:
        rows = [[", ".join(str(x[c]) for c in study.design) or "(all)", x["condition"],
                 x["alternative"], x["status"]] for x in failed.iter_rows(named=True)]
        h, m = _table(["configuration", unit, "alternative (no result)", "what happened"],
                      rows)
        where = ("the classical tests, the conclusions, the rank probabilities and n*"
                 if _classical_missing(rep) == "study" else
                 "the conclusions, the rank probabilities and n*, and left out of the "
                 "classical tests")
        if rep.get("missing") == "drop-block":
            n_left = failed.filter(pl.col("status") == _DROPPED_BLOCK).height
            lead = (f"{failed.height} missing or failed result(s), by name; {n_left} left out "
                    f"with their {unit} in every section (missing = drop-block); the others "
                    f"went with their dropped {unit} or alternative.")
        else:
            lead = (f"{failed.height} missing or failed result(s), by name; {n_imp} imputed "
                    f"as the worst tier of its {unit} in {where}; the others went with their "
                    f"dropped {unit} or alternative.")
    else:
        h, m, lead = "", "", f"No result is missing in the {unit}s and alternatives kept."
    if isinstance(rep["data"], Study):
        lead += (f" (Given a study, not its table: only the results missing in the {unit}s "
                 "and alternatives it kept are listed.)")
    avg = (f" averaged over {', '.join(study.average_over)}," if study.average_over else "")
    return _Section(
        "data", "The data",
        f"The study's missing-results policy (Matteucci et al., Sec. 4.1):{avg} "
        f"{unit}s missing more than {r.tol_missing_alternatives:.0%} of the alternatives "
        f"dropped, then alternatives missing in more than {r.tol_missing_conditions:.0%} of "
        f"the {unit}s left, then what is still missing "
        + (f"left out with its {unit} (missing = drop-block)."
           if rep.get("missing") == "drop-block" else "imputed as the worst tier."),
        h1 + extra_h + f"<p>{html_text(lead)}</p>" + h,
        m1 + "\n\n" + extra_m + markdown_text(lead) + ("\n\n" + m if m else ""))


_SECTIONS = (_answer_section, _plan_section, _classical_section, _beyond_section,
             _nstar_section, _data_section)


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
) -> StudyReport:
    """Analyse a study end to end and return the answer as one page.

    The sections, in order: the answer (:func:`genexpy_nb.conclusions`), what to run next
    (:func:`genexpy_nb.plan`), the classical tests
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
        (Benavoli et al. 2017), on the scores each configuration's comparison uses (raw, in
        the target's units; or min-max normalised per condition where the conditions' score
        ranges differ by orders of magnitude, as the page says): the smallest difference
        that matters. Without it the page runs no Bayesian test and says how to ask for one
        (no default: only the user knows what difference matters).
    missing : {"study", "drop-block", "available"}
        A result still missing after the study's tolerances (a failed run), as in
        :func:`genexpy_nb.significance.compare` and ``genexpy-nb nstar``: the worst tier
        of its condition (default; paper Sec. 4.1), in every section; leave out the
        conditions with a missing result (``"drop-block"``), in every section; or rank
        among the available alternatives (``"available"``, Skillings-Mack) in the
        classical tests, the aggregates and the Bayesian test, while the conclusions, the
        rank probabilities and n* (which compare complete rankings) keep the worst tier.
        Said at the top of the page; the failed pairs are listed by name either way.

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
    ([['a']], 6)
    """
    from .._progress import check_cost, cost_bar
    from ..config import allow_seconds
    from ..generalizability import analyze, conclusions
    from ..generalizability.kernels import default_questions
    from ..generalizability.planner import plan
    from .conclusions import condition_word

    generalize = alias("generalize", generalize, "blocks", blocks, "report")
    args = dict(alternatives=alternatives, target=target, generalize=generalize,
                higher_is_better=higher_is_better, design=design, average_over=average_over,
                held_constant=held_constant, tol_missing_alternatives=tol_missing_alternatives,
                tol_missing_conditions=tol_missing_conditions, invalid_target=invalid_target)
    from .._validation import check_choice
    from ..study._missing import MISSING_POLICIES, drop_incomplete_conditions

    check_choice("missing", missing, MISSING_POLICIES)
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
    unit = condition_word(study)
    parts: dict[str, Any] = dict(alpha=alpha, delta=delta, seed=seed, nrep=rep, data=data,
                                 rope=rope, missing=missing, failed_runs=failed)
    # what each step will cost, from the study's shape, before any of them starts
    cost = estimate_steps(study, kernels, rep=rep, rope=rope)
    est = check_cost(f"the report of {_shape_words(study)}", sum(cost.values()),
                     lift="A smaller rep, or the analyses one by one (gx.conclusions with "
                          "fewer kinds, gx.analyze), cost less.")
    with cost_bar("study report", est, total=sum(cost.values()),
                  disable=not progress) as steps:
        parts["conclusions"] = conclusions(study, alpha=alpha, delta=delta, seed=seed,
                                           progress=False)
        parts["plan"] = plan(parts["conclusions"], alpha=alpha, delta=delta)
        steps.update(cost["conclusions"])
        tests_missing = "available" if missing == "available" else "study"
        parts["comparisons"] = {s.config_id: _comparison(study, s.config_id, alpha=1 - alpha,
                                                         missing=tests_missing)
                                for s in study.samples()}
        steps.update(cost["classical tests"])
        parts["rank_probabilities"], parts["rank_intervals"] = _rank_tables(
            study, rep=RANK_REP, seed=seed)
        parts["aggregates"], parts["bayesian"] = _beyond_p_values(
            study, parts["comparisons"], rope=rope, seed=seed)
        steps.update(cost["beyond p-values"])
        with allow_seconds(math.inf):  # estimated and allowed above, with the rest
            parts["nstar"] = analyze(study, kernels, alphas=[alpha], deltas=[delta],
                                     estimators=["resample"], rep=rep, seed=seed,
                                     progress=False)
        steps.update(cost["n*"])
        if not isinstance(data, Study):
            parts["replicate_spread"] = _replicate_spread(data, study)
        sections = tuple(f(parts, study, unit) for f in _SECTIONS)
        steps.update(cost["the page"])
    return StudyReport(
        study=study, conclusions=parts["conclusions"], plan=parts["plan"],
        comparisons=parts["comparisons"], rank_probabilities=parts["rank_probabilities"],
        rank_intervals=parts["rank_intervals"], nstar=parts["nstar"],
        failed_runs=parts["failed_runs"], sections=sections, alpha=alpha, delta=delta,
        seed=seed, unit=unit, replicate_spread=parts.get("replicate_spread"),
        aggregates=_section_frame(study, parts["aggregates"], "aggregates"),
        bayesian=_section_frame(study, parts["bayesian"], "bayesian_signed_rank"), rope=rope,
        missing=missing)
