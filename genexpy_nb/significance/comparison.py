"""The result of :func:`~genexpy_nb.significance.compare`: :class:`Comparison`.

The tests, the mean ranks, the data of the critical-difference diagram and the written
report (Markdown, HTML, LaTeX, plain text; built in :mod:`._comparison_text` from the
document model of :mod:`.report`), and the files it writes.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from .._validation import GenexpyInputError
from ._comparison_text import (
    _correction,
    _direction_words,
    _latex,
    _p,
    _policy_frame,
    _report,
    _summary_lines,
)
from ._results import SignificanceResult
from ._words import opt
from .report import Data, ReportSection, plain_text, render_html, render_markdown

__all__ = ["Comparison"]

_FORMATS = ("csv", "parquet", "tsv", "json")


@dataclass(frozen=True, eq=False)
class Comparison:
    """The comparison of alternatives over blocks: tests, mean ranks, CD data and report.

    Made by :func:`compare`; displays as its report in a notebook (``_repr_html_``,
    ``_repr_markdown_``). Draw its CD diagram with :func:`genexpy_nb.charts.cd_diagram`
    (``charts.cd_diagram(res)``), write everything with :meth:`save` (tables and report)
    or :func:`genexpy_nb.charts.save_comparison` (also the diagram). Its fields (the
    parameters below) are its attributes.

    Parameters
    ----------
    omnibus : SignificanceResult
        Friedman's test (complete blocks) or Skillings–Mack's (results missing), over the
        ``n_blocks`` blocks that everything else summarises too.
    posthoc : polars.DataFrame
        One row per pair tested (all pairs, or the control against each other
        alternative): ``test, alternative_1, alternative_2, mean_rank_1, mean_rank_2, n,
        statistic, pvalue_raw, pvalue, p_adjust, alpha, significant``.
    mean_ranks : polars.DataFrame
        One row per alternative, best first: ``alternative, mean_rank, n_blocks, group``
        (letters: alternatives sharing one are not significantly different), ``cd``
        (Nemenyi's critical difference where the test has one, else null), and the test,
        correction and alpha the groups come from.
    cliques : polars.DataFrame
        The bars of the CD diagram: runs of alternatives (by mean rank) no pair of which
        differs significantly (with ``control``: the control's group).
    cd : float or None
        Nemenyi's critical difference of mean ranks (only for Nemenyi's test on complete
        blocks: the other tests have no single one).
    best : tuple of str
        The alternative(s) with the best mean rank.
    indistinguishable : tuple of str
        Alternatives not significantly different from ``best[0]`` (or from ``control``).
    control : str or None
        The control of a comparison against one control (k - 1 tests).
    posthoc_test : str
        The post-hoc test used (``"nemenyi"``, ``"conover"``, ``"wilcoxon"``, ...; resolved
        from ``"auto"``).
    posthoc_label : str
        Its name as the report writes it.
    p_adjust : str or None
        The multiple-testing correction asked for (statsmodels' name), or None.
    alpha : float
        The significance level.
    ties : str
        How tied scores were ranked (``"average"`` or ``"min"``).
    top : int or None
        The number of best alternatives the comparison was restricted to, or None (all).
    target : str
        The score column compared.
    alternatives_column : str
        The column naming the alternatives (models).
    blocks_columns : tuple of str
        The columns whose combinations are the blocks (e.g. the datasets).
    average_over : tuple of str
        The columns averaged over before ranking (e.g. seeds or folds); empty if none.
    higher_is_better : bool
        True when a larger score is better (rank 1 = largest).
    alternatives : tuple of str
        Names of the alternatives, in the column order of ``values``.
    blocks : tuple of str
        Labels of the blocks, in the row order of ``values``.
    values : numpy.ndarray, shape (blocks, alternatives)
        The tested scores, NaN where a result is missing, after averaging and the
        missing-results policy.
    policy : FilterReport
        What the missing-results policy did (``genexpy_nb.study.FilterReport``).
    replicates : polars.DataFrame or None
        Alternatives whose results were averaged over fewer replicates than the others.
    notes : tuple of str
        Everything the reader should know (policy, replicates, folds as blocks, ties, few
        blocks, degenerate data).
    sections : tuple of ReportSection
        Extra report sections (see :meth:`with_section`).
    """

    omnibus: SignificanceResult
    posthoc: pl.DataFrame
    mean_ranks: pl.DataFrame
    cliques: pl.DataFrame
    cd: float | None
    best: tuple[str, ...]
    indistinguishable: tuple[str, ...]
    control: str | None
    posthoc_test: str
    posthoc_label: str
    p_adjust: str | None
    alpha: float
    ties: str
    top: int | None
    target: str
    alternatives_column: str
    blocks_columns: tuple[str, ...]
    average_over: tuple[str, ...]
    higher_is_better: bool
    alternatives: tuple[str, ...]
    blocks: tuple[str, ...]
    values: np.ndarray = field(repr=False)
    policy: Any = field(repr=False)
    replicates: pl.DataFrame | None = field(repr=False)
    notes: tuple[str, ...] = ()
    sections: tuple[ReportSection, ...] = ()

    # ---- sizes --------------------------------------------------------------------------
    @property
    def n_blocks(self) -> int:
        """Blocks tested (after the missing-results policy)."""
        return int(self.values.shape[0])

    @property
    def k(self) -> int:
        """Alternatives compared."""
        return int(self.values.shape[1])

    @property
    def n_missing(self) -> int:
        """Missing results in the tested blocks (ranked among the available alternatives)."""
        return int(np.isnan(self.values).sum())

    @property
    def family_size(self) -> int:
        """Number of comparisons corrected together: k(k - 1)/2, or k - 1 with a control."""
        return self.k - 1 if self.control is not None else self.k * (self.k - 1) // 2

    @property
    def significant(self) -> bool:
        """Whether the omnibus test rejects equal performance at ``alpha``."""
        return bool(self.omnibus.pvalue < self.alpha)

    def __repr__(self) -> str:
        """Return a one-line summary: sizes, omnibus p-value, post-hoc test, best."""
        return (f"Comparison({self.k} alternatives x {self.n_blocks} blocks; "
                f"{self.omnibus.test} p = {_p(self.omnibus.pvalue)}; post-hoc "
                f"{self.posthoc_label}, {_correction(self.p_adjust_used)}; best "
                f"{', '.join(self.best)})")

    @property
    def p_adjust_used(self) -> str | None:
        """The correction the post-hoc p-values carry (None for Nemenyi's test)."""
        return None if self.posthoc_test == "nemenyi" else self.p_adjust

    # ---- extending ----------------------------------------------------------------------
    def with_section(self, section: ReportSection) -> Comparison:
        """Return a copy whose report has ``section`` after the mean ranks (before the notes).

        Parameters
        ----------
        section : ReportSection
            E.g. a Bayesian comparison or robust aggregates over the same blocks
            (``self.values``, ``self.alternatives``); its ``tables`` are written by
            :meth:`save`, its ``latex`` after the mean-rank table.

        Returns
        -------
        Comparison
        """
        if not isinstance(section, ReportSection):
            raise GenexpyInputError("section must be a genexpy_nb.significance.report."
                                    f"ReportSection, got {type(section).__name__}.")
        return replace(self, sections=(*self.sections, section))

    def scores_frame(self) -> pl.DataFrame:
        """Return the tested scores as a tidy frame: ``block, alternative, score``.

        The scores after averaging and the missing-results policy; null where a result is
        missing.

        Returns
        -------
        polars.DataFrame
        """
        n, k = self.values.shape
        return pl.DataFrame({
            "block": [b for b in self.blocks for _ in range(k)],
            "alternative": list(self.alternatives) * n,
            "score": self.values.ravel(),
        }, schema={"block": pl.String, "alternative": pl.String, "score": pl.Float64}
        ).with_columns(pl.col("score").fill_nan(None))

    # ---- text ---------------------------------------------------------------------------
    def report_sections(self) -> tuple[ReportSection, ...]:
        """Return the report as sections (rendered by :meth:`to_markdown` and :meth:`to_html`).

        Returns
        -------
        tuple of ReportSection
        """
        return _report(self)

    def title(self) -> list:
        """Return the report's title, as runs of text (names from the data kept apart).

        Returns
        -------
        list
            Runs of plain text and the target's name from the data, for the renderers.
        """
        return [f"Comparison of {self.k} alternatives over {self.n_blocks} blocks: ",
                Data(self.target), f" ({_direction_words(self.higher_is_better)})"]

    def title_text(self) -> str:
        """Return the report's title as plain text (for a page's ``<title>``, unescaped).

        Returns
        -------
        str
            The title, e.g. ``"Comparison of 5 alternatives over 30 blocks: accuracy
            (higher is better)"``; the writer escapes it for where it lands.
        """
        return plain_text(self.title())

    def to_markdown(self) -> str:
        """Return the report as Markdown.

        Tests, post-hoc test and correction, the best alternative and those not
        distinguishable from it, a paragraph a paper can quote, the mean ranks and notes;
        every name from the data escaped.

        Returns
        -------
        str
        """
        return render_markdown(self.title(), self.report_sections())

    def to_html(self) -> str:
        """Return the report as an HTML fragment (names from the data escaped).

        Returns
        -------
        str
        """
        return render_html(self.title(), self.report_sections())

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    def _repr_html_(self) -> str:
        return self.to_html()

    def to_latex(self, *, label: str | None = None, caption: str | None = None) -> str:
        r"""Return the mean ranks as a LaTeX table (booktabs).

        Mean rank, number of blocks where results are missing, and the group letters, the
        CD, or the p-values against the control; the caption names the tests. Needs
        ``\usepackage{booktabs}``.

        Parameters
        ----------
        label : str, optional
            ``\label`` of the table (default ``tab:compare-<target>``).
        caption : str, optional
            LaTeX caption text to use instead of the generated one.

        Returns
        -------
        str
        """
        return _latex(self, label=label, caption=caption)

    def summary(self) -> str:
        """Return the answer in a few plain lines, as ``genexpy-nb compare`` prints it.

        The test, the post-hoc test and correction, the best alternative and those that
        cannot be told apart from it, the blocks.

        Returns
        -------
        str
        """
        return "\n".join(_summary_lines(self))

    # ---- files --------------------------------------------------------------------------
    def tables(self) -> dict[str, pl.DataFrame]:
        """Return the tables ``save`` writes, by file name (without suffix).

        Returns
        -------
        dict of str to polars.DataFrame
        """
        om = self.omnibus
        omnibus = pl.DataFrame({
            "test": [om.test], "statistic": [float(om.statistic)],
            "pvalue": [float(om.pvalue)], "df": [float(om.df)],
            "n_blocks": [self.n_blocks], "n_blocks_input": [int(self.policy.conditions_total)],
            "n_alternatives": [self.k],
            "n_alternatives_input": [int(self.policy.alternatives_total)],
            "n_missing": [self.n_missing], "alpha": [self.alpha],
            "significant": [self.significant], "higher_is_better": [self.higher_is_better],
            "posthoc": [self.posthoc_label], "p_adjust": [self.p_adjust_used or "none"],
            "ties": [self.ties], "control": [self.control],
            "note": [om.note],
        }, schema_overrides={"control": pl.String, "note": pl.String})
        out = {"omnibus": omnibus, "posthoc": self.posthoc, "mean_ranks": self.mean_ranks,
               "missing_results": _policy_frame(self)}
        if self.replicates is not None and self.replicates.height:
            out["replicates"] = self.replicates
        for s in self.sections:
            for name, frame in s.tables.items():
                if name in out:
                    raise GenexpyInputError(f"report section {s.title!r}: a table named "
                                            f"{name!r} exists already.")
                out[name] = frame
        return out

    def save(self, folder: str | Path, *, format: str = "csv") -> list[Path]:
        """Write the tables, ``report.md`` and ``mean_ranks.tex`` into ``folder``.

        The folder is written atomically (a temporary folder renamed at the end; an
        earlier output of genexpy_nb is replaced, a folder of other files never). Text
        cells of CSV/TSV files that a spreadsheet would run as a formula are written as
        text. For the CD diagram too, use :func:`genexpy_nb.charts.save_comparison`.

        Parameters
        ----------
        folder : str or Path
        format : {"csv", "parquet", "tsv", "json"}
            Format of the tables.

        Returns
        -------
        list of Path
            The files written.
        """
        from .._io import atomic_dir

        with atomic_dir(folder) as tmp:
            self.write_into(tmp, format=format)
            names = sorted(p.name for p in tmp.iterdir())
        return [Path(folder) / n for n in names]

    def write_into(self, folder: Path, *, format: str = "csv") -> list[Path]:
        """Write the tables and reports into an existing folder (no atomic swap).

        Parameters
        ----------
        folder : Path
        format : {"csv", "parquet", "tsv", "json"}

        Returns
        -------
        list of Path
        """
        from .._escape import csv_safe
        from .._io import atomic_write, write_frame

        if format not in _FORMATS:
            raise GenexpyInputError(f"{opt('format')} must be one of {', '.join(_FORMATS)}, "
                                    f"got {format!r}.")
        folder = Path(folder)
        paths = []
        for name, frame in self.tables().items():
            if format in ("csv", "tsv"):
                frame = csv_safe(_flat(frame))
            elif format == "json":
                frame = _flat(frame)
            paths.append(write_frame(frame, folder / f"{name}.{format}"))
        for name, text in (("report.md", self.to_markdown()), ("mean_ranks.tex",
                                                               self.to_latex())):
            with atomic_write(folder / name, "w", encoding="utf-8") as fh:
                fh.write(text)
            paths.append(folder / name)
        return paths


def _flat(frame: pl.DataFrame) -> pl.DataFrame:
    """List columns joined as text (CSV cannot hold them)."""
    lists = [c for c, t in frame.schema.items() if isinstance(t, pl.List)]
    if not lists:
        return frame
    return frame.with_columns(pl.col(c).list.join(", ") for c in lists)
