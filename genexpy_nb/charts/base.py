"""Shared Altair helpers of the chart builders (public within :mod:`genexpy_nb.charts`).

Frames in, inline data out, channels without Altair's schema search, titles, notes, log axes.

Not part of the user-facing API: the builders are (:mod:`genexpy_nb.charts.generalizability`,
...); these are the pieces they share.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import altair as alt
import numpy as np
import polars as pl

from .._validation import GenexpyInputError, check_positive_number, require_columns, to_polars
from .._words import plural

__all__ = [
    "RESULT_COLUMNS",
    "WIDTH",
    "HEIGHT",
    "TOL",
    "VL_TYPES",
    "frame_of",
    "records",
    "plain",
    "InlineRows",
    "data_of",
    "ch",
    "tip_of",
    "layered",
    "heading",
    "note_of",
    "tooltip_fields",
    "field_type",
    "log_ticks",
    "log_axis",
    "design_columns",
    "add_levels",
    "levels_text",
    "check_finite_positive",
    "select_close",
    "configuration_words",
    "question_words",
    "about",
]

#: columns of the n* frame that are not design factors (everything else is a factor level)
RESULT_COLUMNS: frozenset[str] = frozenset({
    "config_id", "kernel", "kernel_label", "alpha", "delta", "eps", "N", "method", "nstar",
    "nstar_ceil", "generalizable", "deficit", "b0", "b1", "r2", "reason", "priority",
    "to_run", "N_sub", "repetition", "nstar_lo", "nstar_hi", "reliable",
    "nstar_null", "nstar_null_lo", "nstar_null_hi", "beyond_chance", "verdict", "chance",
})


WIDTH = 420
HEIGHT = 280
TOL = 1e-9

# ---------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------
def frame_of(data: Any, name: str, columns: Sequence[str]) -> pl.DataFrame:
    """Return ``data`` as a polars frame, checked to have ``columns`` (``name`` in messages)."""
    df = to_polars(data, name)
    require_columns(df, columns, name)
    return df


def records(df: pl.DataFrame) -> list[dict[str, Any]]:
    """Rows as JSON-safe dicts: NaN/inf become null (Vega-Lite has no NaN literal)."""
    fix = [
        pl.when(pl.col(c).is_finite()).then(pl.col(c)).otherwise(None).alias(c)
        for c, t in df.schema.items() if t.is_float()
    ]
    if fix:
        df = df.with_columns(fix)
    return df.to_dicts()


def plain(v: Any) -> Any:
    """Return a Python scalar for a hand-written row.

    NumPy scalars become int/float/bool; NaN and infinities become None (null).
    """
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


class InlineRows(alt.Data):
    """Inline data ``{"values": rows}`` that Altair copies by reference.

    Altair deep-copies every chart several times while it builds a layered chart
    (``alt.layer``, ``.properties``, ``to_dict``) and walks every value of every row when
    serialising; with a few hundred rows that cost more than everything else a slider move
    does. The rows are made once by :func:`data_of` and never changed afterwards, so the copies
    share them, and :meth:`to_dict` hands out fresh row dicts (a caller may edit the spec).
    The spec is the same as that of ``alt.Data(values=rows)``.
    """

    def __init__(self, values: list[dict[str, Any]]) -> None:
        super().__init__(values=values)

    def __deepcopy__(self, memo: Any = None) -> InlineRows:
        """Return this object itself: the rows are never changed, copies share them."""
        return self

    def copy(self, deep: Any = True, ignore: Any = None) -> InlineRows:
        """Return this object itself (see :meth:`__deepcopy__`)."""
        return self

    def to_dict(self, validate: bool = True, *, ignore: Any = None,
                context: Any = None) -> dict[str, Any]:
        """Return ``{"values": rows}`` with fresh row dicts (validated if ``validate``)."""
        out = {"values": [dict(r) for r in self._kwds["values"]]}
        if validate:
            self.validate(out)
        return out


def data_of(df: pl.DataFrame | list[dict[str, Any]]) -> alt.Data:
    """Inline data: explicit values, no data transformer and no row limit involved."""
    if isinstance(df, pl.DataFrame):
        values = records(df)
    else:
        values = [{str(k): plain(v) for k, v in row.items()} for row in df]
    return InlineRows(values)


# Channels are always channel objects with field and type given separately, never shorthand
# strings ("eps:Q"), alt.value() or alt.condition(): Altair resolves those through a search
# of the Vega-Lite JSON schema that costs 5-15 ms per channel, which the panels would pay on
# every slider move (see benchmarks/bench_panels.py). The specs are the same.
VL_TYPES = {"Q": "quantitative", "N": "nominal", "O": "ordinal"}


def ch(channel: type, field: str, vl_type: str | None = None, **kwargs: Any) -> Any:
    """``channel(field=..., type=...)``; ``vl_type`` one of "Q", "N", "O" (None: no type)."""
    if vl_type is not None:
        kwargs["type"] = VL_TYPES[vl_type]
    return channel(field=field, **kwargs)


def tip_of(field: str, vl_type: str, **kwargs: Any) -> alt.Tooltip:
    """Return the tooltip channel of ``field`` (``vl_type`` as in :func:`ch`)."""
    return ch(alt.Tooltip, field, vl_type, **kwargs)


def layered(layers: Sequence[alt.Chart], title: alt.TitleParams, width: int = WIDTH,
             height: int = HEIGHT, data: alt.Data | None = None) -> alt.LayerChart:
    """``alt.layer(*layers, data=data).properties(...)`` in one step (one copy less).

    ``data``: rows shared by all layers (which then have none of their own), given here
    rather than lifted by Altair from identical layer data, which hashes the layers' text.
    """
    kw = {} if data is None else {"data": data}
    return alt.LayerChart(layer=list(layers), width=width, height=height, title=title, **kw)


def heading(text: str, subtitle: str | Sequence[str] | None = None) -> alt.TitleParams:
    """Return a left-aligned title, with ``subtitle`` (a line or a list of lines) if given."""
    if subtitle:
        return alt.TitleParams(text=text, subtitle=subtitle, anchor="start")
    return alt.TitleParams(text=text, anchor="start")


def note_of(text: str, title: str, width: int = WIDTH, height: int = 120) -> alt.Chart:
    """Return a chart that only says why there is nothing to plot."""
    return (
        alt.Chart(data_of([{"note": text}]), width=width, height=height, title=heading(title))
        .mark_text(align="center", baseline="middle", fontSize=13, color="#555")
        .encode(text=ch(alt.Text, "note", "N"))
    )


def tooltip_fields(df: pl.DataFrame, first: Sequence[str]) -> list[alt.Tooltip]:
    """Return tooltips for the columns of ``first`` that ``df`` has, in that order, once each."""
    out = []
    seen = set()
    for c in first:
        if c in df.columns and c not in seen:
            out.append(tip_of(c, field_type(df, c), title=c))
            seen.add(c)
    return out


def field_type(df: pl.DataFrame, c: str) -> str:
    """Return "Q" for a numeric (not boolean) column ``c`` of ``df``, else "N"."""
    t = df.schema[c]
    return "Q" if (t.is_numeric() and t != pl.Boolean) else "N"


def log_ticks(lo: float, hi: float) -> list[float]:
    """Tick values 1, 2, 5 x 10^k inside [lo, hi] (fewer when the range spans many decades)."""
    if not (lo > 0 and hi > 0 and math.isfinite(lo) and math.isfinite(hi)):
        return []
    k0, k1 = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    span = math.log10(hi / lo)
    mult = ((1, 1.5, 2, 3, 4, 5, 7) if span <= 1.2 else (1, 2, 5) if span <= 3.5
            else (1, 3) if span <= 5.5 else (1,))
    ticks = [m * 10.0**k for k in range(k0, k1 + 1) for m in mult]
    return [float(f"{t:.6g}") for t in ticks if lo <= t <= hi]


def log_axis(title: str, lo: float, hi: float) -> alt.Axis:
    """Return a log axis titled ``title`` with the ticks of :func:`log_ticks` on [lo, hi]."""
    ticks = log_ticks(lo, hi)
    if len(ticks) < 2:
        return alt.Axis(title=title)
    return alt.Axis(title=title, values=ticks, format="~g")


def design_columns(df: pl.DataFrame) -> list[str]:
    """Return the design factors of ``df``: its columns not in :data:`RESULT_COLUMNS`."""
    return [c for c in df.columns if c not in RESULT_COLUMNS]


def add_levels(df: pl.DataFrame, levels: Mapping[str, Any] | None) -> tuple[pl.DataFrame,
                                                                              list[str]]:
    """Attach the configuration levels as constant columns (for tooltips)."""
    if not levels:
        return df, []
    if not isinstance(levels, Mapping):
        raise GenexpyInputError(
            "levels must be a mapping factor -> level, e.g. {'model': 'LGBMC'}; got "
            f"{type(levels).__name__}."
        )
    clash = [k for k in levels if k in df.columns]
    if clash:
        raise GenexpyInputError(f"levels {clash} clash with columns of the frame; rename them.")
    return df.with_columns([pl.lit(str(v)).alias(str(k)) for k, v in levels.items()]), [
        str(k) for k in levels]


def levels_text(levels: Mapping[str, Any] | None) -> str | None:
    """Return the levels as ``"factor=level, ..."``, or None when there are none."""
    if not levels:
        return None
    return ", ".join(f"{k}={v}" for k, v in levels.items())


def check_finite_positive(name: str, value: float | None) -> float | None:
    """Return ``value`` as a float (None stays None); raise unless finite and positive."""
    return None if value is None else check_positive_number(name, value)


def select_close(df: pl.DataFrame, col: str, value: float, name: str) -> pl.DataFrame:
    """Return the rows whose ``col`` equals ``value`` (within :data:`TOL`); raise when none."""
    sel = df.filter((pl.col(col) - value).abs() < TOL)
    if sel.height == 0:
        have = sorted(df[col].unique().drop_nulls().to_list())
        raise GenexpyInputError(
            f"no rows with {col} = {value}; the frame has {col} in {have}: pass one of them "
            f"as {name}."
        )
    return sel




def configuration_words(df: pl.DataFrame | None, levels: Mapping[str, Any] | None = None
                        ) -> str | None:
    """Say which configuration(s) a chart shows, for its title.

    ``"configuration: model=LR"`` (one, from ``levels`` or the frame's design columns) or
    ``"12 configurations of model x tuning"``; None when the frame does not say.
    """
    if levels:
        return f"configuration: {levels_text(levels)}"
    if df is None:
        return None
    design = design_columns(df)
    if "config_id" in df.columns:
        n = df["config_id"].n_unique()
    elif design:
        n = df.select(design).unique().height
    else:
        return None
    if n == 1:
        return (f"configuration: {levels_text(df.select(design).row(0, named=True))}"
                if design else "configuration: the whole study")
    return plural(n, "configuration") + (f" of {' x '.join(design)}" if design else "")


def question_words(df: pl.DataFrame | None = None, question: str | None = None
                   ) -> str | None:
    """Say which research question(s) a chart answers, for its title.

    ``question``, else the frame's kernel labels in order of appearance; None when neither
    says.
    """
    if question:
        labels = [str(question)]
    elif df is not None and "kernel_label" in df.columns:
        labels = [str(v) for v in df["kernel_label"].unique(maintain_order=True).drop_nulls()]
    else:
        return None
    if not labels:
        return None
    return ("research question: " if len(labels) == 1 else "research questions: ") + \
        ", ".join(labels)


def about(df: pl.DataFrame | None, levels: Mapping[str, Any] | None = None,
          question: str | None = None) -> list[str]:
    """Return the first subtitle line of a chart that stands alone, as a list of 0 or 1 line.

    The line names its configuration(s) and its research question(s), as far as known.
    """
    words = [w for w in (configuration_words(df, levels), question_words(df, question)) if w]
    return ["; ".join(words)] if words else []


# ---- the no-signal baseline, as every chart that draws it shows it ----------------------

#: the legend's name for the no-signal baseline (``nstar_null``) on every chart that draws it
BASELINE = "no-signal baseline n*"
NULL_FIELDS = ("nstar_null", "nstar_null_lo", "nstar_null_hi")


def baseline_rows(df: pl.DataFrame, keys: list[str]) -> pl.DataFrame | None:
    """Return the no-signal baseline per group of ``keys``, or None when there is none.

    The median ``nstar_null``, ``nstar_null_lo`` and ``nstar_null_hi`` over the group's
    rows where it is defined (drawn at 1 at least, like n*); None when the frame has no
    baseline (analysed with ``null=False``, or a method without one).
    """
    if not set(NULL_FIELDS) <= set(df.columns):
        return None
    rows = df.with_columns(pl.col(c).cast(pl.Float64) for c in NULL_FIELDS).filter(
        pl.col("nstar_null").is_finite(), pl.col("nstar_null") > 0)
    if rows.height == 0:
        return None
    return (rows.group_by(keys, maintain_order=True)
            .agg(pl.col(c).fill_nan(None).median().clip(lower_bound=1.0) for c in NULL_FIELDS)
            .with_columns(pl.lit(BASELINE).alias("baseline")))


def baseline_shape() -> Any:
    """Return a shape channel whose only value is :data:`BASELINE`: the legend entry."""
    return ch(alt.Shape, "baseline", "N", title=None,
              scale=alt.Scale(domain=[BASELINE], range=["triangle-down"]))


def baseline_tip(extra: list[alt.Tooltip]) -> list[alt.Tooltip]:
    """Return the tooltips ``extra``, then the baseline n* and the ends of its band."""
    return [*extra, tip_of("nstar_null", "Q", title=BASELINE, format=".1f"),
            tip_of("nstar_null_lo", "Q", title="its band: lower end", format=".1f"),
            tip_of("nstar_null_hi", "Q", title="its band: upper end", format=".1f")]
