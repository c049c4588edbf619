"""The words of a comparison: its report sections, the printed summary, the LaTeX table.

Every number comes from the :class:`~genexpy_nb.significance.Comparison`; every name from
the data is a :class:`~genexpy_nb.significance.report.Data` run, escaped by each renderer.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

import polars as pl

from ._words import opt
from .report import Bullets, Data, Paragraph, Quote, ReportSection, Strong, Table, as_data

if TYPE_CHECKING:  # the result class imports this module
    from .comparison import Comparison

_CORRECTION = {
    None: "no", "bonferroni": "Bonferroni's", "sidak": "Šidák's", "holm-sidak": "Holm–Šidák",
    "holm": "Holm's", "simes-hochberg": "Hochberg's", "hommel": "Hommel's",
    "fdr_bh": "Benjamini–Hochberg", "fdr_by": "Benjamini–Yekutieli",
    "fdr_tsbh": "two-stage Benjamini–Hochberg", "fdr_tsbky": "two-stage BKY",
}


def _correction(p_adjust: str | None) -> str:
    return f"{_CORRECTION.get(p_adjust, p_adjust)} correction"


def _n(count: int, word: str, plural: str | None = None) -> str:
    """``1 block``, ``2 blocks``."""
    return f"{count} {word if count == 1 else (plural or word + 's')}"


def _p(p: float) -> str:
    if not math.isfinite(p):
        return "nan"
    if p == 0:
        return "0 (below the smallest float)"
    return f"{p:.3g}" if p >= 1e-3 else f"{p:.2g}"


def _p_paper(p: float) -> str:
    return "p < 0.001" if p < 1e-3 else f"p = {p:.3g}"


def _direction_words(hib: bool) -> str:
    return "higher is better" if hib else "lower is better"


def _omnibus_name(res: Comparison) -> str:
    return "Friedman's test" if res.omnibus.test == "Friedman" else "the Skillings–Mack test"


def _posthoc_words(res: Comparison) -> str:
    label = res.posthoc_label.replace("-", "–")
    base = {"conover": "Conover–Iman t-tests on rank sums",
            "nemenyi": "Nemenyi's test",
            "siegel": "Siegel–Castellan z-tests of mean ranks"}[res.posthoc_test]
    form = " among the available alternatives" if "available" in label else ""
    return base + form


def _family_words(res: Comparison) -> str:
    if res.control is not None:
        return f"the {res.k - 1} comparisons with the control"
    return f"all {res.family_size} pairs"


def _mr(res: Comparison, a: str) -> float:
    return float(res.mean_ranks.filter(pl.col("alternative") == a)["mean_rank"][0])


def _policy_frame(res: Comparison) -> pl.DataFrame:
    rp = res.policy
    rows = [
        ("rows in the table", rp.rows_input),
        ("rows dropped for an empty, NaN or infinite target", rp.rows_invalid_target),
        ("results after averaging replicates", rp.results_after_averaging),
        ("blocks", rp.conditions_total),
        (f"blocks dropped (more than {rp.tol_missing_alternatives:.0%} of the alternatives "
         "missing)", rp.conditions_dropped),
        ("alternatives", rp.alternatives_total),
        (f"alternatives dropped (missing in more than {rp.tol_missing_conditions:.0%} of the "
         "remaining blocks)", len(rp.alternatives_dropped)),
        ("blocks tested", res.n_blocks),
        ("alternatives compared", res.k),
        ("missing results in the tested blocks (ranked among the available alternatives)",
         res.n_missing),
    ]
    return pl.DataFrame({"item": [r[0] for r in rows], "value": [int(r[1]) for r in rows]})


def _policy_runs(res: Comparison) -> list:
    rp = res.policy
    total = rp.conditions_total * rp.alternatives_total
    missing = total - rp.results_after_averaging
    if missing == 0:
        return [f"none of the {total} results missing ({rp.alternatives_total} alternatives x "
                f"{rp.conditions_total} blocks)"]
    out: list = [f"{missing} of {total} results missing ({rp.alternatives_total} alternatives "
                 f"x {rp.conditions_total} blocks)"]
    if rp.rows_invalid_target:  # rows of the table, not results: said apart, in its own unit
        k = rp.rows_invalid_target
        out.append(f"; {_n(k, 'row')} of the table with an empty, NaN or infinite target "
                   f"{'was' if k == 1 else 'were'} dropped before averaging")
    out.append(f"; policy ({opt('tol_missing_alternatives', rp.tol_missing_alternatives)}, "
               f"{opt('tol_missing_conditions', rp.tol_missing_conditions)}): ")
    if rp.conditions_dropped or rp.alternatives_dropped:
        out.append(f"dropped {_n(rp.conditions_dropped, 'block')} missing more than "
                   f"{rp.tol_missing_alternatives:.0%} of the alternatives, then "
                   f"{_n(len(rp.alternatives_dropped), 'alternative')} missing in more than "
                   f"{rp.tol_missing_conditions:.0%} of the remaining blocks")
        if rp.alternatives_dropped:
            out += [" ("] + _names(rp.alternatives_dropped) + [")"]
    else:
        out.append("nothing dropped")
    out.append(f"; {_n(res.n_missing, 'missing result')} "
               f"{'remains' if res.n_missing == 1 else 'remain'} in the {res.n_blocks} tested "
               "blocks" + (": ranked among the available alternatives (Skillings–Mack)"
                           if res.n_missing else ""))
    return out


def _names(names: Sequence[str], ranks: Sequence[float] | None = None, digits: int = 2
           ) -> list:
    runs: list = []
    for t, a in enumerate(names):
        if t:
            runs.append(", ")
        runs.append(Data(a))
        if ranks is not None:
            runs.append(f" ({ranks[t]:.{digits}f})")
    return runs


def _rank_digits(res: Comparison) -> int:
    """Return the decimals that tell the best mean rank from every other that differs.

    Two decimals unless the best and another alternative would print alike (10.72 and
    10.72 for 10.7220 and 10.7222): then as many as it takes, at most 6.
    """
    best = _mr(res, res.best[0])
    others = [float(r) for r in res.mean_ranks["mean_rank"].to_list() if r != best]
    for digits in range(2, 7):
        shown = f"{best:.{digits}f}"
        if all(f"{r:.{digits}f}" != shown for r in others):
            return digits
    return 6


def _best_runs(res: Comparison) -> list:
    best = res.best[0]
    dg = _rank_digits(res)
    runs: list = [Strong(Data(best)), f" has the best mean rank ({_mr(res, best):.{dg}f}"]
    if res.n_missing:
        n_b = int(res.mean_ranks.filter(pl.col("alternative") == best)["n_blocks"][0])
        runs.append(f" over the {n_b} blocks where it has a result")
    runs.append(")")
    if len(res.best) > 1:
        runs += [", tied with "] + _names(res.best[1:])
    if res.control is not None:
        c = res.control
        runs += ["; against the control ", Strong(Data(c)), f" ({_mr(res, c):.{dg}f})"]
        if res.indistinguishable:
            runs += [", not significantly different: "]
            runs += _names(res.indistinguishable,
                           [_mr(res, a) for a in res.indistinguishable], dg)
            sig = [a for a in res.mean_ranks["alternative"].to_list()
                   if a != c and a not in res.indistinguishable]
            if sig:
                runs += ["; significantly different: "]
                runs += _names(sig, [_mr(res, a) for a in sig], dg)
        else:
            runs.append(": every other alternative differs significantly from it")
        return runs + ["."]
    if res.indistinguishable:
        runs += ["; not significantly different from it: "]
        runs += _names(res.indistinguishable,
                       [_mr(res, a) for a in res.indistinguishable], dg)
    else:
        runs.append("; it is significantly better than every other alternative")
    return runs + ["."]


def _paragraph(res: Comparison) -> list:
    om = res.omnibus
    blocks = ", ".join(res.blocks_columns)
    runs: list = [f"We compared {res.k} alternatives on {res.n_blocks} blocks (levels of "]
    runs += _names(res.blocks_columns) if blocks else ["blocks"]
    runs += [") by their "] + [Data(res.target)] + [f" ({_direction_words(res.higher_is_better)}"]
    if res.average_over:
        runs += [", averaged over "] + _names(res.average_over)
    runs.append(")")
    if res.n_missing:
        runs.append(f"; {_n(res.n_missing, 'result')} {'was' if res.n_missing == 1 else 'were'}"
                    " missing and each block ranked the alternatives that had one")
    rp = res.policy
    if rp.conditions_dropped or rp.alternatives_dropped:
        runs.append(f", after excluding {_n(rp.conditions_dropped, 'block')} and "
                    f"{_n(len(rp.alternatives_dropped), 'alternative')} with too many missing "
                    "results")
    runs.append(". ")
    verdict = "rejected" if res.significant else "did not reject"
    runs.append(f"{_omnibus_name(res)[0].upper()}{_omnibus_name(res)[1:]} {verdict} the "
                f"hypothesis that all alternatives perform equally (χ²({om.df:g}) = "
                f"{om.statistic:.2f}, {_p_paper(om.pvalue)}, α = {res.alpha:g}). ")
    corr = "" if res.posthoc_test == "nemenyi" else f" with {_correction(res.p_adjust)}"
    runs.append(f"{_posthoc_words(res)[0].upper()}{_posthoc_words(res)[1:]}{corr} over "
                f"{_family_words(res)} found ")
    n_sig = int(res.posthoc["significant"].fill_null(False).sum())
    runs.append(f"{n_sig} of {res.posthoc.height} differences significant. ")
    runs += _best_runs(res)
    return runs


def _report(res: Comparison) -> tuple[ReportSection, ...]:
    om = res.omnibus
    answer = Paragraph(_best_runs(res))
    omni = ReportSection("Omnibus test", (
        Table(("test", "statistic", "df", "p", "blocks", "alternatives", "missing results"),
              ((om.test.replace("-", "–"), f"{om.statistic:.4g}", f"{om.df:g}", _p(om.pvalue),
                str(res.n_blocks), str(res.k), str(res.n_missing)),),
              "lrrrrrr"),
        Paragraph([f"{_omnibus_name(res)[0].upper()}{_omnibus_name(res)[1:]} "
                   f"{'rejects' if res.significant else 'does not reject'} equal performance "
                   f"of the {res.k} alternatives at α = {res.alpha:g} over the same "
                   f"{res.n_blocks} blocks that every table and the diagram summarise."]),
    ))
    corr = ("none needed: the test controls the family-wise error itself"
            if res.posthoc_test == "nemenyi" else _correction(res.p_adjust))
    ph_items = [f"test: {_posthoc_words(res)}",
                f"comparisons: {_family_words(res)} (the family corrected together)",
                f"correction: {corr}; α = {res.alpha:g}"]
    if res.cd is not None:
        ph_items.append(f"critical difference of mean ranks: CD = {res.cd:.3f} (Nemenyi, "
                        f"α = {res.alpha:g}); the diagram's bars and the groups use it")
    else:
        what = ("the control's bar joins the alternatives around it none of which differs "
                "significantly from it" if res.control is not None else
                "groups and the diagram's bars join runs of alternatives (by mean rank) no "
                "pair of which differs significantly")
        ph_items.append(f"no single critical difference: {what}")
    sig = res.posthoc.filter(pl.col("significant").fill_null(False))
    ph_items.append(f"significant: {sig.height} of {res.posthoc.height}")
    post = ReportSection("Post-hoc test", (Bullets(tuple(ph_items)),))
    rows = []
    ctrl = res.control is not None
    for r in res.mean_ranks.iter_rows(named=True):
        cells = [Data(r["alternative"]), f"{r['mean_rank']:.2f}", str(r["n_blocks"])]
        if ctrl:
            star = " *" if r["significant_vs_control"] else ""
            cells.append("control" if r["alternative"] == res.control else
                         f"{_p(r['pvalue_vs_control'])}{star}")
        else:
            cells.append(r["group"])
        rows.append(tuple(cells))
    head = ("alternative", "mean rank", "blocks",
            "p vs control (* significant)" if ctrl else "group")
    ranks = ReportSection("Mean ranks (1 = best)", (
        Table(head, tuple(rows), "lrrl" if not ctrl else "lrrr"),
        Paragraph(["Alternatives sharing a letter are not significantly different."
                   if not ctrl else f"p-values against the control, {_correction(res.p_adjust)} "
                   f"over the {res.k - 1} comparisons."]),
    ))
    data_items: list = [[f"{res.k} alternatives (column ", Data(res.alternatives_column),
                         f") over {res.n_blocks} blocks (", *_names(res.blocks_columns),
                         "); target ", Data(res.target),
                         f", {_direction_words(res.higher_is_better)}"]]
    if res.average_over:
        data_items.append(["results averaged over ", *_names(res.average_over)])
    data_items.append(_policy_runs(res))
    how = "averaged" if res.ties == "average" else "given the lowest rank"
    data_items.append(f"mean ranks with ties {how} ({opt('ties', res.ties)})")
    data = ReportSection("Data", (Bullets(tuple(data_items)),))
    sections = [ReportSection("Answer", (answer,)), data, omni, post, ranks,
                *res.sections,
                ReportSection("A paragraph for a paper", (Quote(_paragraph(res)),))]
    if res.notes:
        # a note is a Text (its names are Data runs) or, from a warning, a plain string
        # that may embed a name: escaped as a whole
        sections.append(ReportSection("Notes", (Bullets(tuple(as_data(m) for m in res.notes)),)))
    return tuple(sections)


def _summary_lines(res: Comparison) -> list[str]:
    from .report import _text

    om = res.omnibus
    lines = [
        f"{om.test} test over {res.n_blocks} blocks x {res.k} alternatives"
        + (f" ({_n(res.n_missing, 'missing result')} ranked among the available alternatives)"
           if res.n_missing else "")
        + f": chi2({om.df:g}) = {om.statistic:.4g}, p = {_p(om.pvalue)} -> "
        + ("the alternatives differ" if res.significant else "no significant difference")
        + f" at alpha = {res.alpha:g}",
        f"post-hoc: {_posthoc_words(res)} over {_family_words(res)}, "
        + ("no correction needed (Nemenyi)" if res.posthoc_test == "nemenyi"
           else _correction(res.p_adjust)) + f", alpha = {res.alpha:g}"
        + (f"; CD = {res.cd:.3f}" if res.cd is not None else ""),
        "best: " + _text(_best_runs(res)),
        "missing results: " + _text(_policy_runs(res)),
        "mean ranks with ties " + ("averaged" if res.ties == "average"
                                   else "given the lowest rank of their group")
        + f" ({opt('ties', res.ties)})",
    ]
    return lines + [f"note: {_text(as_data(m))}" for m in res.notes]


# ---- LaTeX -----------------------------------------------------------------------------


def _latex_p(p: float) -> str:
    if p < 1e-3:
        return "$p < 0.001$"
    return f"$p = {p:.3g}$"


def _latex(res: Comparison, *, label: str | None, caption: str | None) -> str:
    from .report import latex

    om = res.omnibus
    ctrl = res.control is not None
    show_blocks = res.n_missing > 0
    cols = ["Alternative", "Mean rank"] + (["Blocks"] if show_blocks else [])
    cols.append("$p$ vs.\\ control" if ctrl else ("Group"))
    align = "l" + "r" * (len(cols) - 1 - (0 if ctrl else 1)) + ("" if ctrl else "l")
    lines = []
    for r in res.mean_ranks.iter_rows(named=True):
        name = latex(Data(r["alternative"]))
        cells = [name, f"{r['mean_rank']:.2f}"]
        if show_blocks:
            cells.append(str(r["n_blocks"]))
        if ctrl:
            if r["alternative"] == res.control:
                cells[0] = r"\textit{" + name + "}"
                cells.append("control")
            else:
                p = r["pvalue_vs_control"]
                cells.append(("$<0.001$" if p < 1e-3 else f"{p:.3f}")
                             + (r"$^{*}$" if r["significant_vs_control"] else ""))
        else:
            cells.append(r["group"])
        if r["alternative"] in res.best:
            cells[1] = r"\textbf{" + cells[1] + "}"
        lines.append("    " + " & ".join(cells) + r" \\")
    if caption is None:
        test = om.test.replace("-", "--")
        corr = ("" if res.posthoc_test == "nemenyi"
                else f", {_correction(res.p_adjust).replace('–', '--')}")
        ph = _posthoc_words(res).replace("–", "--")
        cap = [f"Mean ranks (1 = best) of {res.k} alternatives over {res.n_blocks} blocks by ",
               Data(res.target), f" ({_direction_words(res.higher_is_better)}). {test}: "
               f"$\\chi^2({om.df:g}) = {om.statistic:.2f}$, {_latex_p(om.pvalue)}. "]
        if ctrl:
            cap += ["$p$-values against the control ", Data(res.control),
                    f" by {ph}{corr} over the {res.k - 1} comparisons; "
                    f"$^{{*}}$ significant at $\\alpha = {res.alpha:g}$."]
        else:
            cap.append(f"Alternatives sharing a letter are not significantly different ({ph}"
                       f"{corr}, $\\alpha = {res.alpha:g}$"
                       + (f", CD $= {res.cd:.3f}$" if res.cd is not None else "") + ").")
        if show_blocks:
            cap.append(f" {_n(res.n_missing, 'result')} missing: ranks among the available "
                       "alternatives (Skillings--Mack); Blocks: where each has a result.")
        caption = latex(cap).replace("χ", "chi").replace("α", r"$\alpha$")
    if label is None:
        label = "tab:compare-" + (re.sub(r"[^A-Za-z0-9]+", "-", res.target).strip("-")
                                  or "target")
    label = re.sub(r"[^A-Za-z0-9:._-]+", "-", label)
    body = [
        "% genexpy_nb.significance.compare: needs \\usepackage{booktabs}",
        "\\begin{table}[htbp]",
        "  \\centering",
        f"  \\caption{{{caption}}}",
        f"  \\label{{{label}}}",
        f"  \\begin{{tabular}}{{{align}}}",
        "    \\toprule",
        "    " + " & ".join(cols) + r" \\",
        "    \\midrule",
        *lines,
        "    \\bottomrule",
        "  \\end{tabular}",
        "\\end{table}",
    ]
    for s in res.sections:
        if s.latex:
            body += ["", s.latex]
    return "\n".join(body) + "\n"
