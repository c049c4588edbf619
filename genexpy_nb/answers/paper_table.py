"""A table a paper can use, for a :class:`~genexpy_nb.significance.Comparison`.

Per alternative, best first: the mean rank (1 = best), the median and the median absolute
deviation of the score, Cliff's delta of the best alternative against it with its magnitude,
and the group letters (or the p-value against the control); the caption or notes carry the
tests and the critical difference. :func:`paper_table` returns it as a tidy frame;
:func:`paper_table_section` as a report section (Markdown and HTML through the document
model, a booktabs LaTeX table written after the mean ranks in ``mean_ranks.tex``, the frame
written as ``paper_table``). ``genexpy-nb compare`` and ``genexpy-nb report`` add it.

The effect size
---------------
Cliff's delta (Cliff 1993) of the best alternative ``b`` against an alternative ``a``, over
their scores on the blocks where each has a result::

    delta = (#{(i, j): b_i better than a_j} - #{(i, j): a_j better than b_i}) / (n_b n_a)

in [-1, 1], positive when the best's scores tend to be better ("better": larger when higher
is better, smaller otherwise). It treats the two sets of scores as samples, as autorank's
``latex_table`` does; the pairing of the blocks is in the rank tests. Its magnitude follows
Romano et al. (2006): ``|delta| < 0.147`` negligible, ``< 0.33`` small, ``< 0.474`` medium,
else large.

References
----------
Cliff, N. (1993). Dominance statistics: ordinal analyses to answer ordinal questions.
Psychological Bulletin 114(3), 494-509. Romano, J., Kromrey, J. D., Coraggio, J. and
Skowronek, J. (2006). Appropriate statistics for ordinal level data: should we really be
using t-test and Cohen's d for evaluating group differences on the NSSE and other surveys?
Annual meeting of the Florida Association of Institutional Research.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import polars as pl

from ..significance._magnitude import ROMANO_THRESHOLDS, romano_label
from . import numbers
from .beyond_sections import check_comparison, fill_comparison_doc, score_words, score_zero
from .document import Data, Paragraph, ReportSection, Table, latex

__all__ = ["paper_table", "paper_table_section"]


def _oriented_delta(best: np.ndarray, other: np.ndarray, higher_is_better: bool
                          ) -> float:
    """Return Cliff's delta of ``best`` against ``other``, positive when ``best`` is better.

    Parameters
    ----------
    best, other : numpy.ndarray, shape (n,) and (m,)
        The two sets of scores (no NaN), n, m >= 1.
    higher_is_better : bool
        Whether a larger score is better.

    Returns
    -------
    float
        ``(#{best_i > other_j} - #{best_i < other_j}) / (n m)``, negated when lower is
        better.
    """
    # the pairs counted from the sorted other scores (O((n + m) log m), no n x m array):
    # best_i beats the others below it and loses to those above it
    srt = np.sort(np.asarray(other, dtype=np.float64))
    b = np.asarray(best, dtype=np.float64)
    gt = int(np.searchsorted(srt, b, side="left").sum())
    lt = int((srt.size - np.searchsorted(srt, b, side="right")).sum())
    delta = float((gt - lt) / (b.size * srt.size))
    return delta if higher_is_better else -delta


@fill_comparison_doc
def paper_table(comparison: Any) -> pl.DataFrame:
    """Return the table a paper can use, as a tidy frame (one row per alternative).

    Parameters
    ----------
    {comparison}

    Returns
    -------
    polars.DataFrame
        Best first: ``alternative, mean_rank, n_blocks, median, mad`` (the median and the
        unscaled median absolute deviation ``median(|x - median(x)|)`` of the scores over
        the blocks where the alternative has a result; the scores are the comparison's
        ``scores_used``: raw, or min-max normalised per block when ``compare``'s
        ``normalize`` chose it, as ``scores`` says), ``against`` (the best alternative),
        ``cliffs_delta`` (of ``against`` over this alternative, positive when ``against``
        is better; null on its own row), ``magnitude`` (Romano et al. 2006), then
        ``group`` (letters) or ``pvalue_vs_control`` and ``significant_vs_control``, and
        ``cd`` (Nemenyi's critical difference, null when the test has none) and ``scores``
        ("raw" or "minmax").

    Examples
    --------
    {example}
    >>> t = paper_table(cmp)
    >>> t.select("alternative", "median", "cliffs_delta", "magnitude").rows()[1]
    ('b', 0.8, 1.0, 'large')
    """
    check_comparison(comparison)
    v = comparison.scores_used
    alts = list(comparison.alternatives)
    ref = comparison.best[0]
    best = v[:, alts.index(ref)]
    best = best[~np.isnan(best)]
    rows = []
    for j, a in enumerate(alts):
        x = v[:, j]
        x = x[~np.isnan(x)]
        med = float(np.median(x)) if x.size else None
        mad = float(np.median(np.abs(x - med))) if x.size else None
        delta = (None if a == ref or not x.size or not best.size else
                 _oriented_delta(best, x, comparison.higher_is_better))
        rows.append((a, med, mad, ref, delta, None if delta is None else romano_label(delta)))
    stats = pl.DataFrame(rows, orient="row", schema={
        "alternative": pl.String, "median": pl.Float64, "mad": pl.Float64,
        "against": pl.String, "cliffs_delta": pl.Float64, "magnitude": pl.String})
    mr = comparison.mean_ranks
    letters = [c for c in ("group", "pvalue_vs_control", "significant_vs_control")
               if c in mr.columns]
    return mr.select("alternative", "mean_rank", "n_blocks").join(
        stats, on="alternative", how="left", maintain_order="left").with_columns(
        mr.select(*letters)).with_columns(pl.lit(comparison.cd, dtype=pl.Float64).alias("cd"),
                      pl.lit("minmax" if comparison.normalize == "minmax"
                             else "raw").alias("scores"))


def _num(x: float | None, how: Any = numbers.number) -> str:
    return "" if x is None else how(x)


def _score(res: Any) -> Any:
    """Return the formatter of a score (normalised scores on [0, 1] read float error as 0)."""
    zero = score_zero(res)
    return lambda x: numbers.number(x, zero=zero)


def _cd_words(res: Any) -> str:
    if res.cd is not None:
        return (f"critical difference of mean ranks CD = {numbers.rank(res.cd)} (Nemenyi, "
                f"α = {numbers.setting(res.alpha)})")
    return ("no single critical difference: the groups join runs of alternatives no pair of "
            f"which differs significantly ({res.posthoc_label}, α = "
            f"{numbers.setting(res.alpha)})")


@fill_comparison_doc
def paper_table_section(comparison: Any) -> ReportSection:
    r"""Return :func:`paper_table` as a report section, with its LaTeX table.

    Add it with ``comparison.with_section(paper_table_section(comparison))``: Markdown
    and HTML tables (names escaped by the document model), the frame as ``paper_table``,
    and a booktabs table (``\usepackage{booktabs}``) after the mean ranks in
    ``mean_ranks.tex``, every name escaped for LaTeX.

    Parameters
    ----------
    {comparison}

    Returns
    -------
    ReportSection
        "A table for a paper".

    Examples
    --------
    {example}
    >>> "\\toprule" in paper_table_section(cmp).latex
    True
    """
    check_comparison(comparison)
    res = comparison
    table = paper_table(res)
    ctrl = "group" not in table.columns
    last = "p vs control (* significant)" if ctrl else "group"
    rows = []
    for r in table.iter_rows(named=True):
        if ctrl:
            tail = ("control" if r["alternative"] == res.control else
                    _num(r["pvalue_vs_control"], numbers.pvalue)
                    + (" *" if r["significant_vs_control"] else ""))
        else:
            tail = r["group"]
        rows.append((Data(r["alternative"]), numbers.rank(r["mean_rank"]), str(r["n_blocks"]),
                     _num(r["median"], _score(res)), _num(r["mad"], _score(res)),
                     _num(r["cliffs_delta"], numbers.effect) or "(best)", r["magnitude"] or "",
                     tail))
    ref = table["against"][0]
    lo, mid, hi = ROMANO_THRESHOLDS
    notes = ["Median and MAD (median absolute deviation from the median, unscaled) of ",
             Data(res.target), f" ({score_words(res, 'raw scores')}) over the {res.units} "
             "where each alternative has a result; "
             "Cliff's δ (Cliff 1993) of ", Data(ref), " against each alternative over those "
             "scores, positive when ", Data(ref), " is better; magnitude after Romano et al. "
             f"(2006): |δ| < {lo} negligible, < {mid} small, < {hi} medium, else large. "
             f"Mean ranks over the {res.n_blocks} {res.units} of the tests; "
             + _cd_words(res) + "."]
    blocks = (Table(("alternative", "mean rank", res.units, "median", "MAD",
                     ("Cliff's δ (", Data(ref), " vs it)"), "magnitude", last),
                    tuple(rows), "lrrrrrll"),
              Paragraph(notes))
    return ReportSection("A table for a paper", blocks, {"paper_table": table},
                         latex=_latex_table(res, table))


def _latex_table(res: Any, table: pl.DataFrame) -> str:
    ctrl = "group" not in table.columns
    ref = table["against"][0]
    lines = []
    for r in table.iter_rows(named=True):
        name = latex(Data(r["alternative"]))
        mr = numbers.rank(r["mean_rank"])
        if r["alternative"] in res.best:
            mr = r"\textbf{" + mr + "}"
        # no "$" in a row: math through \ensuremath (a row's specials are all escaped)
        delta = ("---" if r["cliffs_delta"] is None else
                 f"\\ensuremath{{{numbers.effect(r['cliffs_delta'])}}}")
        if ctrl:
            p = r["pvalue_vs_control"]
            tail = ("control" if r["alternative"] == res.control else
                    numbers.pvalue(p).replace("<", r"\ensuremath{<}")
                    + (r"\textsuperscript{*}" if r["significant_vs_control"] else ""))
        else:
            tail = r["group"]
        cells = [name, mr, _num(r["median"], _score(res)), _num(r["mad"], _score(res)), delta,
                 r["magnitude"] or "---", tail]
        lines.append("    " + " & ".join(cells) + r" \\")
    lo, mid, hi = ROMANO_THRESHOLDS
    hib = "higher" if res.higher_is_better else "lower"
    cd = (f"CD $= {numbers.rank(res.cd)}$ (Nemenyi, $\\alpha = {numbers.setting(res.alpha)}$)"
          if res.cd is not None
          else "no single CD: groups join runs of alternatives no pair of which differs "
               f"significantly ($\\alpha = {numbers.setting(res.alpha)}$)")
    last = r"\emph{p} vs.\ control (\textsuperscript{*} significant)" if ctrl else "Group"
    cap = latex([f"Mean rank (MR, 1 = best) over {res.n_blocks} {res.units}; median and MAD "
                 "(median absolute deviation, unscaled) of ", Data(res.target),
                 f" ({score_words(res, 'raw scores')}; {hib} is better) where each "
                 "alternative has a result; Cliff's "
                 "$\\delta$ of ", Data(ref), " against each alternative (positive: ",
                 Data(ref), " better), magnitude after Romano et al.\\ (2006): "
                 f"$|\\delta| < {lo}$ negligible, $< {mid}$ small, $< {hi}$ medium, else "
                 "large. " + ("" if ctrl else "Alternatives sharing a letter are not "
                              "significantly different; ") + cd + "."])
    label = "tab:paper-" + (re.sub(r"[^A-Za-z0-9]+", "-", res.target).strip("-") or "target")
    return "\n".join([
        "% genexpy_nb.significance.paper_table: needs \\usepackage{booktabs}",
        "\\begin{table}[htbp]",
        "  \\centering",
        f"  \\caption{{{cap}}}",
        f"  \\label{{{label}}}",
        "  \\begin{tabular}{lrrrrll}" if not ctrl else "  \\begin{tabular}{lrrrrlr}",
        "    \\toprule",
        f"    Alternative & MR & Median & MAD & \\ensuremath{{\\delta}} & Magnitude & {last} \\\\",
        "    \\midrule",
        *lines,
        "    \\bottomrule",
        "  \\end{tabular}",
        "\\end{table}",
    ])
