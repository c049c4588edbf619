"""The conclusions of a study in sentences: the best, the top group, the pairs, the order.

:func:`conclusions_summary` reads the frame of :func:`~genexpy_nb.conclusions` and says, per
configuration, what the study concludes and whether it holds, in sentences a reader can
paste::

    Best: SVM-RBF — holds (with 80 datasets; agreement n* = 38, 90 % interval 16-226).
    Top 3 {SVM-RBF, ExtraTrees, RandomForest}: unsure (the direction of ExtraTrees vs
    RandomForest is not settled: the data are compatible with no difference).
    Pairs (28, judged as a family, Holm): 18 settled, 9 direction not settled, 1 needs 16
    more.

The verdicts are the frame's own (``verdict``, ``more``, ``reason``): nothing here decides
anew. Every string from the data is escaped for the format it lands in (terminal, Markdown,
HTML). :func:`~genexpy_nb.nstar_summary` leads with this summary when given the conclusions.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from .._escape import terminal_text
from .._validation import GenexpyInputError, to_polars
from .._words import plural
from ..generalizability.conclusions import MIN_CONDITIONS, fill_study_example
from . import numbers
from .document import Bullets, Data, Paragraph, Strong, render_blocks

__all__ = ["ConclusionsSummary", "conclusions_summary", "condition_word", "WHY_CHANCE",
           "plan_words"]

#: the columns of a conclusions frame this summary reads
_NEED = ("config_id", "kind", "k", "members", "observed", "nstar", "nstar_lo", "nstar_hi",
         "N", "more", "verdict", "reliable", "reason", "judged")
#: columns of a conclusions frame that are not design factors
_CONCLUSION_COLUMNS = frozenset({*_NEED, "alternatives", "agreement", "p_value",
                                 "p_adjusted", "alpha", "level", "bottleneck", "more_lo",
                                 "more_hi", "assurance", "p_hold", "p_hold_se", "plan_draws",
                                 "mode", "effect_lo", "effect_hi"})

#: why the paper's n* can be "(chance)" while the conclusions hold (SPEC A14), one sentence
WHY_CHANCE = (
    "Why the paper's n* can be marked (chance) while the conclusions above hold and an "
    "omnibus test (Friedman) gives a tiny p: they answer different questions — the paper's "
    "n* asks whether the distribution of the per-{unit} rankings is pinned down (rankings "
    "drawn at random pin their uniform distribution down about as fast as real ones), the "
    "conclusions ask whether another study of as many {units} would reach the same "
    "conclusion from its mean ranks, and an omnibus test asks only whether the alternatives "
    "differ at all.")


@dataclass
class Section:
    """The sentences about one configuration.

    Parameters
    ----------
    title : str
        The configuration, in words ("metric = accuracy, train_size = full").
    lines : list of str
        The sentences, plain text (escaped when rendered).
    """

    title: str
    lines: list[str]


@dataclass
class ConclusionsSummary:
    """What a study concludes and whether it holds, as :func:`conclusions_summary` builds it.

    ``print`` it, display it in a notebook, or render it with ``to_text()`` /
    ``to_markdown()`` / ``to_html()``.

    Parameters
    ----------
    frame : polars.DataFrame or pandas.DataFrame
        The conclusions frame that was summarised, unchanged.
    sections : list of Section
        One per configuration: its title and its sentences.
    heading : str
        The sentences above them (what the conclusions are and what "holds" means).
    footer : list of str
        The lines below them ("unsure", how the pairs are judged, where the frame was
        written).
    """

    frame: Any
    sections: list[Section]
    heading: str
    footer: list[str] = field(default_factory=list)

    def sentences(self) -> list[str]:
        """List every sentence of every configuration, in order, as plain text.

        Returns
        -------
        list of str
            The sentences, unescaped (as the frame's data has them).
        """
        return [ln for s in self.sections for ln in s.lines]

    def to_text(self, width: int = 100) -> str:
        """Render the summary as plain text for a terminal (what ``print`` shows).

        Parameters
        ----------
        width : int, default 100
            Lines are wrapped at this width (0: not wrapped).

        Returns
        -------
        str
            The heading, each configuration with its sentences, then the footer; control
            characters from the data removed.
        """
        def wrap(text: str, indent: str = "", more: str = "") -> str:
            text = terminal_text(text)
            if width <= 0:
                return indent + text
            return textwrap.fill(text, width=width, initial_indent=indent,
                                 subsequent_indent=more or indent, break_long_words=False,
                                 break_on_hyphens=False)

        parts = [wrap(self.heading)]
        for s in self.sections:
            parts.append("\n".join([wrap(s.title)] + [wrap(ln, "  ", "    ")
                                                       for ln in s.lines]))
        if self.footer:
            parts.append("\n".join(wrap(f) for f in self.footer))
        return "\n\n".join(parts)

    def blocks(self) -> tuple:
        """Return the summary on the document model (:mod:`genexpy_nb.answers.document`).

        Returns
        -------
        tuple
            A paragraph (the heading), per configuration its bold title and the list of its
            sentences, then the footer's paragraphs; every string escaped where it lands.
        """
        out: list = [Paragraph(Data(self.heading))]
        for s in self.sections:
            out += [Paragraph(Strong(Data(s.title))),
                    Bullets(tuple(Data(ln) for ln in s.lines))]
        out += [Paragraph(Data(f)) for f in self.footer]
        return tuple(out)

    def to_markdown(self) -> str:
        """Render the summary as Markdown, every string escaped.

        Returns
        -------
        str
            The heading, a bold title and a bullet list per configuration, the footer.
        """
        return render_blocks(self.blocks(), "markdown")

    def to_html(self) -> str:
        """Render the summary as HTML, every string escaped.

        Returns
        -------
        str
            A ``<div>``: the heading, a bold title and a list per configuration, the footer.
        """
        return f"<div class=\"gx-conclusions\">{render_blocks(self.blocks(), 'html')}</div>"

    def to_latex(self) -> str:
        """Render the summary as LaTeX (an ``itemize`` per configuration), every string escaped.

        Returns
        -------
        str
        """
        return render_blocks(self.blocks(), "latex")

    def _repr_html_(self) -> str:
        return self.to_html()

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    def __str__(self) -> str:
        """Render as plain text (:meth:`to_text`)."""
        return self.to_text()


def condition_word(study: Any) -> str:
    """Name a condition of a study as its table does ("dataset"), for the sentences.

    Parameters
    ----------
    study : Study
        The study.

    Returns
    -------
    str
        Its one generalizability factor, lowercase when the name is plain lowercase words
        ("dataset", "task"); "condition" when it generalizes over several factors or the
        name is not a plain word.
    """
    gen = list(getattr(study, "generalize", []))
    if len(gen) == 1 and str(gen[0]).replace("_", "").isalpha() and str(gen[0]).islower():
        words = str(gen[0]).split("_")
        # "dataset_name", "task_id": the column names a dataset, a task
        if len(words) == 2 and words[1] in _NAME_SUFFIXES:
            return words[0]
        return " ".join(w for w in words if w)
    return "condition"


#: last words of a column that names its rows rather than saying what they are
_NAME_SUFFIXES = frozenset({"name", "names", "id", "ids", "key", "label", "idx", "index"})


# ---- numbers and verdicts in words --------------------------------------------------------


def _count(x: float) -> str:
    """Write a number of conditions, rounded up (n* is a count): the one formatter's rule."""
    return numbers.count(x)


def _ordered_pair_in(reason: str, names: Sequence[str]) -> tuple[str, str] | None:
    """Recover the least separated pair a set conclusion's reason names, if any."""
    marker = "(least separated pair: "
    if not reason or marker not in reason:
        return None
    for a in names:
        for b in names:
            if a != b and reason.endswith(f"{marker}{a} vs {b})"):
                return a, b
    return None


@dataclass
class _Words:
    """How the conditions are called, alpha* and the interval's level."""

    unit: str
    units: str
    level: float

    def many(self, n: int) -> str:
        return plural(n, self.unit, self.units)


def _estimate(r: dict, w: _Words) -> str:
    """``agreement n* = 38, 90 % interval 16-226``: the paper's agreement, said as such."""
    lo, hi = r["nstar_lo"], r["nstar_hi"]
    if r["nstar"] is None or not math.isfinite(r["nstar"]):
        return "agreement n* beyond reach"
    txt = f"agreement n* = {_count(r['nstar'])}"
    if lo is not None and hi is not None and math.isfinite(lo) and math.isfinite(hi):
        txt += (f", {numbers.setting(w.level * 100)} % interval "
                f"{numbers.count_interval(lo, hi)}")
    return txt


def _promise(r: dict, w: _Words) -> str:
    """``then holds with probability 0.8; 90 % predictive interval 12-160``."""
    a = r.get("assurance")
    txt = (f"then holds with probability {numbers.setting(a)}" if a is not None
           else "then holds")
    lo, hi = r.get("more_lo"), r.get("more_hi")
    if lo is not None:
        span = f"{lo}-{hi}" if hi is not None else f"{lo} or more"
        txt += f"; {numbers.setting(w.level * 100)} % predictive interval {span}"
    return txt


def _unsettled_pair(r: dict, names: Sequence[str]) -> tuple[str, ...] | None:
    """Return the pair an unsure row rests on, the one ahead first."""
    reason = r["reason"] or ""
    if r["kind"] == "pair":
        pair = tuple(r["members"])
    elif r.get("bottleneck") and "(least separated pair: " in reason:
        pair = tuple(r["bottleneck"])  # the frame names it: no need to read the reason
    else:  # a frame without the column (written by an earlier version): read the reason
        pair = _ordered_pair_in(reason, names)
    if pair:
        rank = {a: i for i, a in enumerate(names)}
        pair = tuple(sorted(pair, key=lambda a: rank.get(a, len(rank))))
    return pair or None


def verdict_words(r: dict, w: _Words, names: Sequence[str]) -> str:
    """Say one conclusion's verdict in words, with what it rests on.

    Parameters
    ----------
    r : dict
        One row of a conclusions frame.
    w : _Words
        How the conditions are called and the interval's level.
    names : sequence of str
        The configuration's alternatives, best mean rank first (to name the pair an "unsure"
        rests on, the one ahead first).

    Returns
    -------
    str
        "holds (with N datasets; agreement n* = ...)", "needs k more datasets (then holds
        with probability 0.8; ...)", "needs over K more datasets (...)", "tied (why)" or
        "unsure (why)".
    """
    v, reason, N = r["verdict"], r["reason"] or "", r["N"]
    if v == "holds":
        return f"holds (with {w.many(N)}; {_estimate(r, w)})"
    if r["more"] is not None and v.startswith("needs"):
        return f"needs {r['more']} more {w.units} ({_promise(r, w)})"
    if v.startswith("needs over"):
        k = v.split()[2]
        a = numbers.setting(r.get("assurance") or 0.8)
        return (f"needs over {k} more {w.units} (the direction is settled, but not within "
                f"{k} more {w.units} with probability {a})")
    if v == "tied":
        return f"tied ({reason})" if reason else "tied"
    if not r["reliable"]:
        return (f"unsure (only {w.many(N)}: too few to judge; a mean rank's model needs at "
                f"least {MIN_CONDITIONS})")
    pair = _unsettled_pair(r, names)
    if "not settled" in reason or "reaches infinity" in reason:
        what = f" of {pair[0]} vs {pair[1]}" if pair else ""
        return (f"unsure (the direction{what} is not settled: the data are compatible with "
                "no difference)")
    return f"unsure ({reason})" if reason else "unsure"


# ---- one configuration ----------------------------------------------------------------------


def _set_sentence(r: dict, w: _Words, names: Sequence[str]) -> str:
    members = list(r["members"])
    verdict = verdict_words(r, w, names)
    if r["kind"] == "best":
        what = members[0] if len(members) == 1 else f"co-best {{{', '.join(members)}}}"
        return f"Best: {what} — {verdict}."
    if r["kind"] == "top_k":
        k = r["k"]
        size = f" (ties make it {len(members)})" if len(members) != k else ""
        return f"Top {k}{size} {{{', '.join(members)}}}: {verdict}."
    text = str(r["observed"] or "")
    text = text[len("order "):] if text.startswith("order ") else text
    return f"Order {text}: {verdict}."


def _listed(items: list[str], max_items: int) -> str:
    if len(items) <= max_items:
        return ", ".join(items)
    return ", ".join(items[:max_items]) + f" and {len(items) - max_items} more (in the frame)"


def _settled_words(rows: list[dict], order: Sequence[str], max_items: int) -> str:
    """Settled pairs grouped by the one ahead: "A ahead of B, C; B ahead of C"."""
    ahead: dict[str, list[str]] = {}
    for r in rows:
        a, b = r["members"]
        ahead.setdefault(a, []).append(b)
    rank = {a: i for i, a in enumerate(order)}
    groups = []
    for a in sorted(ahead, key=lambda x: rank.get(x, len(rank))):
        behind = sorted(ahead[a], key=lambda x: rank.get(x, len(rank)))
        groups.append(f"{a} ahead of {', '.join(behind)}")
    if len(rows) > max_items * 2 and len(groups) > max_items:
        return "; ".join(groups[:max_items]) + f"; and {len(groups) - max_items} more leaders"
    return "; ".join(groups)


def _pair_sentences(pairs: list[dict], w: _Words, order: Sequence[str],
                    max_items: int) -> list[str]:
    """Say the pairs of one configuration: counted, then listed by verdict."""
    holds = [r for r in pairs if r["verdict"] == "holds"]
    more = [r for r in pairs if r["more"] is not None and r["verdict"].startswith("needs")]
    tied = [r for r in pairs if r["verdict"] == "tied"]
    unsure = [r for r in pairs if r["verdict"] == "unsure"]
    judged = pairs[0]["judged"] or ""
    how = ("judged as a family, Holm" if "Holm" in judged else
           "judged one by one" if "one by one" in judged else judged)
    over = [r for r in pairs if r["verdict"].startswith("needs over")]
    counts = [f"{len(holds)} settled"]
    if unsure:
        counts.append(f"{len(unsure)} direction not settled"
                      if pairs[0]["reliable"] else f"{len(unsure)} unsure (too few "
                      f"{w.units})")
    if more:
        top = max(r["more"] for r in more)
        counts.append(f"1 needs {top} more" if len(more) == 1 else
                      f"{len(more)} need up to {top} more")
    if over:
        counts.append(f"{len(over)} need{'s' if len(over) == 1 else ''} "
                      f"{over[0]['verdict'][len('needs '):]}")
    if tied:
        counts.append(f"{len(tied)} tied")
    out = [f"Pairs ({len(pairs)}, {how}): {', '.join(counts)}."]
    if holds:
        out.append(f"Settled: {_settled_words(holds, order, max_items)}.")
    if more:
        more = sorted(more, key=lambda r: -r["more"])
        out.append("Need more " + w.units + ": " + _listed(
            [f"{r['members'][0]} ahead of {r['members'][1]} ({r['more']} more)"
             for r in more], max_items) + ".")
    if over:
        out.append(f"Need {over[0]['verdict'][len('needs '):]} {w.units}: " + _listed(
            [f"{r['members'][0]} ahead of {r['members'][1]}" for r in over], max_items) + ".")
    if unsure and pairs[0]["reliable"]:
        out.append("Direction not settled (the data are compatible with no difference): "
                   + _listed([f"{r['members'][0]} vs {r['members'][1]}" for r in unsure],
                             max_items) + ".")
    if tied:
        out.append("Tied: " + _listed([f"{r['members'][0]} vs {r['members'][1]}"
                                       for r in tied], max_items) + ".")
    return out


def _mean_rank_order(rows: list[dict], names: list[str]) -> list[str]:
    """Order the alternatives by how many pair conclusions have them ahead (no order row)."""
    wins = dict.fromkeys(names, 0)
    for r in rows:
        if r["kind"] == "pair" and str(r["observed"] or "").endswith(f"ahead of "
                                                                     f"{r['members'][1]}"):
            wins[r["members"][0]] += 1
    best = next((r["members"] for r in rows if r["kind"] == "best"), [])
    return sorted(names, key=lambda a: (a not in best, -wins[a]))


def held_words(held: Mapping[str, Any] | None) -> str:
    """``"h = k, g = 2"``: the held-constant levels as plain text ('' for none)."""
    return ", ".join(f"{c} = {v}" for c, v in (held or {}).items())


def _section(rows: list[dict], design: Sequence[str], w: _Words, max_items: int,
             held: Mapping[str, Any] | None = None) -> Section:
    first = rows[0]
    title = (", ".join(f"{c} = {first[c]}" for c in design) if design else "the whole study")
    if held:
        title += f", {held_words(held)} held constant"
    title += f" ({w.many(first['N'])})"
    names: list[str] = list(dict.fromkeys(m for r in rows for m in (r["members"] or [])))
    order_row = next((r for r in rows if r["kind"] == "order"), None)
    order = list(order_row["members"]) if order_row else _mean_rank_order(rows, names)
    names = order
    lines = [_set_sentence(r, w, names) for r in rows if r["kind"] in ("best", "top_k")]
    pairs = [r for r in rows if r["kind"] == "pair"]
    if pairs:
        lines += _pair_sentences(pairs, w, order, max_items)
    if order_row:
        lines.append(_set_sentence(order_row, w, names))
    needs = [r["more"] for r in rows if r["more"] is not None
             and r["verdict"].startswith("needs")]
    if needs:
        a = rows[0].get("assurance")
        lines.append(f"What to run next: {max(needs)} more {w.units} settle every conclusion "
                     f"marked 'needs' up to that number"
                     + (f", each with probability {numbers.setting(a)}" if a is not None
                        else "") + ".")
    return Section(title, lines)


#: what the sentences read of a pair's row (a board of 300 alternatives has 44,850)
_PAIR_KEYS = ("kind", "members", "verdict", "more", "judged", "reliable", "observed", "N",
              "assurance")


def _rows(frame: pl.DataFrame, design: Sequence[str]) -> list[dict]:
    """Return one configuration's rows in order: every column of the sets', a pair's keys."""
    pair = (frame["kind"] == "pair").to_list()
    if not any(pair):
        return list(frame.iter_rows(named=True))
    keys = [c for c in frame.columns if c in _PAIR_KEYS or c in design]
    sets = iter(frame.filter(pl.col("kind") != "pair").iter_rows(named=True))
    pairs = iter(frame.filter(pl.col("kind") == "pair").select(keys).iter_rows(named=True))
    return [next(pairs) if p else next(sets) for p in pair]


def _setting(df: pl.DataFrame, col: str, given: float | None, default: float,
             what: str) -> float:
    """Return a setting of the frame (alpha*, the interval's level): one value, as given."""
    found = (sorted(df[col].drop_nulls().unique().to_list())
             if col in df.columns and df.height else [])
    if len(found) > 1:
        raise GenexpyInputError(
            f"the frame mixes conclusions computed at {what} {', '.join(f'{v:g}' for v in found)}"
            f"; one heading cannot speak for both: summarise each apart "
            f"(frame.filter(pl.col({col!r}) == {found[-1]:g})).")
    if given is not None:
        if not isinstance(given, (int, float)) or isinstance(given, bool) or not math.isfinite(
                given):
            raise GenexpyInputError(f"{col} must be a number, got {given!r}.")
        if found and abs(float(given) - found[0]) > 1e-12:
            raise GenexpyInputError(
                f"{col}={given:g}, but the frame's conclusions were computed at {what} "
                f"{found[0]:g}: leave {col} out, or compute the conclusions at {given:g}.")
        return float(given)
    return float(found[0]) if found else default


def _sequential(df: pl.DataFrame) -> bool:
    return "mode" in df.columns and bool((df["mode"] == "sequential").any())


def heading_words(df: pl.DataFrame, alpha: float, w: _Words) -> str:
    """Say above the conclusions what they are and what each verdict means.

    Parameters
    ----------
    df : polars.DataFrame
        The conclusions frame.
    alpha : float
        alpha*.
    w : _Words
        How the conditions are called.

    Returns
    -------
    str
        One paragraph.
    """
    a = (float(df["assurance"].drop_nulls()[0]) if "assurance" in df.columns
         and df["assurance"].drop_nulls().len() else 0.8)
    mode = ("sequential (anytime-valid)" if _sequential(df) else "fixed-N")
    return (f"Do the study's conclusions hold? Each conclusion (the best, the top group, each "
            f"pair, the order) comes from the mean ranks over the {w.units}, as in a "
            f"critical-difference diagram. holds: the differences it rests on are significant "
            f"at level {numbers.setting(1 - alpha)} ({mode} verdicts). needs k more: the "
            f"direction is settled, and after k more {w.units} the same test says holds with "
            f"probability {numbers.setting(a)} (predicted from the data, over what the "
            f"effects may be). unsure: the direction is not settled; the data are compatible "
            f"with no difference. Agreement n*: the {w.units} two independent studies need to "
            f"reach the same conclusion with probability alpha* = {numbers.setting(alpha)} "
            f"(the paper's definition, Sec. 3).")


def mode_words(df: pl.DataFrame, w: _Words) -> list[str]:
    """Which rule produced the verdicts, and what a user who looks again should use.

    Parameters
    ----------
    df : polars.DataFrame
        The conclusions frame.
    w : _Words
        How the conditions are called.

    Returns
    -------
    list of str
        The first lines of the footer.
    """
    if _sequential(df):
        return [f"Sequential mode: the chance that any conclusion of a configuration is wrong "
                f"stays within 1 - alpha* however often you look, one new {w.unit} at a time "
                f"(betting e-processes on the paired rank differences, Waudby-Smith & Ramdas "
                f"2023, with Holm's correction; every conclusion rests on that family). Add "
                f"new {w.units} at the end of the table: they are read in its order."]
    return [f"Fixed-N verdicts: valid for one look at these {w.units}. If you add {w.units} "
            f"and run the analysis again, use the sequential mode (gx.conclusions(..., "
            f"sequential=True), or --sequential): looking after each addition would "
            f"otherwise call differences settled by chance far more often than 1 - alpha*."]


def _check_frame(df: pl.DataFrame) -> None:
    missing = [c for c in _NEED if c not in df.columns]
    if missing:
        raise GenexpyInputError(f"frame lacks the columns {missing}: pass the frame returned "
                                "by gx.conclusions(study).")


@fill_study_example
def conclusions_summary(frame: Any, *, unit: str = "condition", units: str | None = None,
                        alpha: float | None = None, level: float | None = None,
                        max_items: int = 12, where: str | None = None,
                        held_constant: Mapping[str, Any] | None = None,
                        tiers: Any = None) -> ConclusionsSummary:
    """Say, per configuration, what a study concludes and whether each conclusion holds.

    The best alternative, the top group(s), the pairs (counted, then listed: settled,
    needing more conditions, not separated) and the whole order, each with the frame's
    verdict in words and its n* with interval, in sentences that can be pasted.

    Parameters
    ----------
    frame : polars.DataFrame or pandas.DataFrame
        The frame of :func:`~genexpy_nb.conclusions`.
    unit : str, default "condition"
        What a condition is called ("dataset", "task"); ``units`` its plural (default:
        ``unit + "s"``).
    units : str, optional
        The plural of ``unit`` when it is not ``unit + "s"``.
    alpha : float, optional
        The generalizability level alpha* the frame was computed at (said in the heading;
        read from the frame's ``alpha`` column when it has one, and refused when it differs
        from that; default 0.95). A frame mixing several alpha* is refused: summarise each
        apart.
    level : float, optional
        The level of the interval of n* (read from the frame's ``level`` column when it has
        one, and refused when it differs from that; default 0.90, that of
        :func:`~genexpy_nb.conclusions`).
    max_items : int, default 12
        The most pairs listed per verdict and configuration; the others are counted.
    where : str, optional
        Where the full frame was written (said below the sentences), if anywhere.
    held_constant : dict, optional
        The levels the study held constant (``Study.held_constant``): said in the heading
        and in every configuration's title, since each conclusion is about those levels
        only.
    tiers : polars.DataFrame, optional
        The frame of :func:`~genexpy_nb.tiers` of the same study: each configuration then
        also says its tiers and the {unit}s that would split each one.

    Returns
    -------
    ConclusionsSummary
        ``print`` it or display it in a notebook; ``.frame`` is ``frame``,
        ``.sentences()`` the plain sentences.

    Examples
    --------
    {study_example}
    >>> s = gx.conclusions_summary(gx.conclusions(study, kinds=["best"]), unit="dataset")
    >>> s.sentences()[0]
    'Best: a — holds (with 8 datasets; agreement n* = 1, 90 % interval 1-2).'
    """
    df = to_polars(frame, "frame")
    _check_frame(df)
    if not isinstance(max_items, int) or isinstance(max_items, bool) or max_items < 1:
        raise GenexpyInputError(f"max_items must be a positive integer, got {max_items!r}.")

    a = _setting(df, "alpha", alpha, 0.95, "alpha*")
    w = _Words(unit=unit, units=units or unit + "s",
               level=_setting(df, "level", level, 0.90, "the interval's level"))
    design = [c for c in df.columns if c not in _CONCLUSION_COLUMNS]
    sections = []
    for cid in dict.fromkeys(df["config_id"].to_list()):
        rows = _rows(df.filter(pl.col("config_id") == cid), design)
        sections.append(_section(rows, design, w, max_items, held_constant))
        if tiers is not None:
            sections[-1].lines.extend(tier_lines(tiers, cid, w.unit, w.units, max_items))
    heading = heading_words(df, a, w)
    if held_constant:
        heading += (f" With {held_words(held_constant)} held constant: every conclusion is "
                    "about those levels only.")
    footer = mode_words(df, w)
    judged = {j for j in df.filter(pl.col("kind") == "pair")["judged"].to_list() if j}
    if any("Holm" in j for j in judged):
        footer.append("Pairs are judged as a family (Holm's correction over the pairs of a "
                      "configuration): with many pairs, judged one by one, some identical "
                      "pairs would be called settled by chance alone.")
    elif judged:
        footer.append("Pairs are judged one by one (no correction for the number of pairs).")
    if judged and (df["kind"] != "pair").any() and not _sequential(df):
        footer.append("The best, the top group and the order are each one claim: it holds only "
                      "when every pair it rests on is separated, each pair at level 1 - alpha* "
                      "with no correction (an intersection-union test). So a best can hold "
                      "while its pair with the runner-up, judged among all the pairs, is not "
                      "settled.")
    if where:
        footer.append(f"All conclusions ({plural(df.height, 'row')}): {where}")
    return ConclusionsSummary(frame=frame, sections=sections, heading=heading, footer=footer)


def plan_words(plan_frame: Any, *, unit: str = "condition", units: str | None = None,
               labels: dict | None = None) -> list[str]:
    """Say the plan of a study's conclusions (:func:`genexpy_nb.plan` of them) in sentences.

    The one plan, in the same words wherever it is printed (``genexpy-nb nstar``, the demo):
    per configuration, the conditions to add and the conclusion that needs the most, with
    the assurance and the rule (fixed-N or sequential) they are under.

    Parameters
    ----------
    plan_frame : polars.DataFrame
        The frame of :func:`genexpy_nb.plan` on a conclusions frame.
    unit : str, default "condition"
        What a condition is called; ``units`` its plural (default ``unit + "s"``).
    units : str, optional
        The plural of ``unit``.
    labels : dict, optional
        ``{config_id: label}``: how each configuration is named (default: its design levels,
        or "the study" for one configuration).

    Returns
    -------
    list of str
        One sentence per configuration, worst first (the plan's order), then one saying
        what the numbers promise.
    """
    df = to_polars(plan_frame, "plan_frame")
    need = {"config_id", "N", "to_run", "verdict", "conclusion"}
    if not need <= set(df.columns):
        raise GenexpyInputError(f"plan_frame lacks the columns {sorted(need - set(df.columns))}"
                                ": pass gx.plan(gx.conclusions(study)).")
    w = _Words(unit=unit, units=units or unit + "s", level=0.90)
    design = [c for c in df.columns if c not in _PLAN_COLUMNS]
    out = []
    for r in df.iter_rows(named=True):
        if labels and r["config_id"] in labels:
            name = str(labels[r["config_id"]])
        elif design:
            name = ", ".join(f"{c} = {r[c]}" for c in design)
        else:
            name = "The study"
        has = f"({w.many(r['N'])})"
        if r["to_run"] and r["to_run"] > 0:
            out.append(f"{name} {has}: {r['to_run']} more {w.units} (for {r['conclusion']}, "
                       "the conclusion that needs the most).")
        elif r["verdict"] == "holds":
            out.append(f"{name} {has}: nothing to add, every conclusion holds.")
        else:
            out.append(f"{name} {has}: no number promised ({r['reason'] or r['verdict']}).")
    a = (float(df["assurance"].drop_nulls()[0]) if "assurance" in df.columns
         and df["assurance"].drop_nulls().len() else 0.8)
    mode = ("sequential (anytime-valid)" if "mode" in df.columns
            and (df["mode"] == "sequential").any() else "fixed-N")
    out.append(f"Each number: after that many more {w.units}, the same {mode} test says "
               f"'holds' for every conclusion marked 'needs k more' up to it, each with "
               f"probability {numbers.setting(a)} (predicted from the data, over what the "
               f"effects may be).")
    return out


#: columns of a plan frame of conclusions that are not design factors
_PLAN_COLUMNS = frozenset({
    "priority", "config_id", "N", "conclusion", "kind", "nstar", "nstar_hi", "more_lo",
    "more_hi", "assurance", "mode", "to_run", "holds", "needs_more", "unsure", "tied",
    "beyond", "verdict", "reason"})


def tier_lines(tiers: Any, config_id: Any, unit: str, units: str, max_items: int = 12
               ) -> list[str]:
    """Sentences about one configuration's tiers and what would split them (gx.tiers).

    Parameters
    ----------
    tiers : polars.DataFrame
        The frame of :func:`~genexpy_nb.tiers`.
    config_id : int
        The configuration.
    unit, units : str
        What a condition is called, singular and plural.
    max_items : int
        The most cuts listed; the others are counted.

    Returns
    -------
    list of str
    """
    t = to_polars(tiers, "tiers").filter(pl.col("config_id") == config_id).sort("after")
    if t.height == 0:
        return []
    groups: list[list[str]] = [[t["above"][0]]]
    for r in t.iter_rows(named=True):
        if r["split"]:
            groups.append([])
        groups[-1].append(r["below"])
    from . import numbers

    level = float(t["level"][0])
    out = [f"Tiers ({numbers.share(level)} for all alternatives at once): "
           + " | ".join(", ".join(g) for g in groups) + "."]
    if any(len(g) > 1 for g in groups):
        out.append("A pair settled among the pairs (Holm) can sit inside a tier, and a cut "
                   f"can need more {units} than its pair: a cut needs every pair across it "
                   "shown together.")
    plan = [r for r in t.iter_rows(named=True) if r["more"] is not None]
    plan.sort(key=lambda r: r["more"])
    for r in plan[:max_items]:
        hi = r["more_hi"]
        span = (numbers.count_interval(r["more_lo"], hi)
                if hi is not None and math.isfinite(hi)
                else f"at least {numbers.count(r['more_lo'])}")
        out.append(f"To split {r['above']} from {r['below']}: {numbers.count(r['more'])} "
                   f"more {units} (the same test then shows it with predicted probability "
                   f"{numbers.prob(r['assurance_at_more'])} ± {numbers.prob(r['mc_error'])}, "
                   f"the target {numbers.setting(r['assurance'])}; in 90% of simulated "
                   f"futures it first shows after {span} more {units}).")
    if len(plan) > max_items:
        out.append(f"{len(plan) - max_items} more cuts need more {units} (see the frame).")
    open_ = t.filter(pl.col("verdict") == "unsure").height
    tied = t.filter(pl.col("verdict") == "tied").height
    if open_:
        out.append(f"{open_} cut(s) inside the tiers: unsure (the direction is not settled; "
                   "the data are compatible with no difference).")
    if tied:
        out.append(f"{tied} cut(s) between alternatives with equal ranks in every {unit}: "
                   "no number of them splits those.")
    return out
