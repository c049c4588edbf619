"""The deficit table of Section 5.1 of the paper: which configuration to extend first.

The deficit n* - N of every configuration, coloured red (extend) to blue (enough).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import altair as alt
import numpy as np
import polars as pl

from .._validation import GenexpyInputError
from .._words import plural
from .base import (
    about,
    ch,
    configuration_words,
    data_of,
    design_columns,
    frame_of,
    heading,
    layered,
    note_of,
    select_close,
    tooltip_fields,
)

__all__ = ["deficit_heatmap"]


# ---------------------------------------------------------------------------------------
# which configurations to extend first: n* - N
# ---------------------------------------------------------------------------------------
def _as_cols(v: str | Sequence[str] | None) -> list[str]:
    if v is None:
        return []
    return [v] if isinstance(v, str) else list(v)


def deficit_heatmap(
    plan_or_results: Any,
    *,
    x: str | Sequence[str] | None = None,
    y: str | Sequence[str] | None = None,
    alpha: float = 0.95,
    delta: float = 0.05,
    kernel: str | None = None,
    method: str = "resample",
    top: int | None = None,
    title: str | None = None,
) -> alt.LayerChart | alt.Chart:
    """Draw the configuration table of the deficit n* - N, red (extend) to blue (enough).

    Parameters
    ----------
    plan_or_results : the frame of :func:`genexpy_nb.plan` (one row per configuration), or
        the n* frame of :func:`genexpy_nb.analyze` (then filtered to ``alpha``, ``delta``,
        ``method`` and, if given, ``kernel``; without ``kernel`` the kernels become a column
        of the table)
    x, y : column name(s) for the table's columns and rows; several names are joined into
        one label "a / b". Default: rows = the first design factor, columns = the other
        design factors (or the kernels, for an n* frame without ``kernel``).
    alpha, delta, kernel, method : which n* to show, for an n* frame
    top : keep only the ``top`` configurations with the largest deficits
    title : chart title

    Returns
    -------
    altair chart: ``rect`` marks coloured by ``deficit`` (diverging scale centred at 0:
    red = more experiments needed, blue = already generalizable) with ``text`` labels
    (the deficit, "?" when n* is undefined); rows sorted by their largest deficit.
    Tooltips carry the configuration's levels, N, n*, the kernel and the reason.
    """
    df = frame_of(plan_or_results, "plan_or_results", ["config_id", "N", "nstar", "deficit"])
    is_results = {"alpha", "delta", "method", "kernel_label"} <= set(df.columns)
    ttl = title or "Which configurations to extend first: deficit n* - N"
    sub = []
    if df.height == 0:
        return note_of("no configurations to show (empty frame)", ttl)
    design = design_columns(df)
    if is_results:
        df, line = _select_question(df, alpha=alpha, delta=delta, kernel=kernel, method=method)
        sub.append(line)
    # which configurations and questions: a figure that stands alone
    if not is_results and "kernel_label" in df.columns:  # a plan: the worst question each
        labels = ", ".join(map(str, df["kernel_label"].unique(maintain_order=True)
                               .drop_nulls()))
        sub = [f"{configuration_words(df)}; per configuration, the research question that "
               f"needs the most conditions ({labels})", *sub]
    else:
        sub = [*about(df), *sub]
    multi_kernel = is_results and df["kernel_label"].n_unique() > 1
    xs, ys = _table_axes(df, design, _as_cols(x), _as_cols(y), multi_kernel)
    df = df.with_columns(pl.col("nstar").cast(pl.Float64))
    if top is not None:
        df, line = _keep_top(df, top)
        sub.append(line)
    pretty = {"kernel_label": "kernel", "config_id": "configuration"}
    xname = " / ".join(pretty.get(c, c) for c in xs) if xs else "configuration"
    yname = " / ".join(pretty.get(c, c) for c in ys)
    table = _cell_table(df, design, xs, ys)
    if table["deficit"].null_count() == table.height:
        sub.append("n* is undefined everywhere (too few results): nothing to rank")
    elif table["deficit"].null_count() == 0 and table["deficit"].max() <= 0:
        return _nothing_to_extend(table, ttl, sub)
    dlo = min(int(table["deficit"].min() or 0), -1)
    dhi = max(int(table["deficit"].max() or 0), 1)
    # piecewise around 0: the largest deficit is full red, the largest surplus full blue
    # cells with n* undefined (deficit null) grey: the colour scale when isValid, else grey
    color = alt.ColorValue("#dddddd", condition={
        "test": "isValid(datum.deficit)", "field": "deficit", "type": "quantitative",
        "title": "n* - N",
        "scale": alt.Scale(scheme="redblue", reverse=True, domainMid=0, domain=[dlo, dhi])})
    # labels white on the darkest cells
    ink = alt.ColorValue("black", condition={
        "test": f"datum.deficit > {0.6 * dhi} || datum.deficit < {0.6 * dlo}",
        "value": "white"})
    tip = tooltip_fields(table, [*design, "kernel_label", "N", "nstar", "nstar_ceil",
                                  "deficit", "generalizable", "priority", "reason"])
    ysort = alt.EncodingSortField(field="deficit", op="max", order="descending")
    xenc = ch(alt.X, "_x", "N", title=xname, axis=alt.Axis(labelAngle=-35))
    yenc = ch(alt.Y, "_y", "N", title=yname, sort=ysort)
    ncols = table["_x"].n_unique()
    nrows = table["_y"].n_unique()
    base = alt.Chart()  # the table is the data of the layered chart
    rect = base.mark_rect(stroke="white").encode(x=xenc, y=yenc, color=color, tooltip=tip)
    text = base.mark_text(fontSize=10).encode(
        x=xenc, y=yenc, text=ch(alt.Text, "_text", "N"), color=ink, tooltip=tip)
    return layered([rect, text], heading(ttl, sub or None),
                    width=max(120, min(60 * ncols, 900)),
                    height=max(60, min(18 * nrows, 2400)), data=data_of(table))


def _nothing_to_extend(table: pl.DataFrame, title: str, sub: list[str]) -> alt.Chart:
    """Say that every configuration has enough conditions, instead of a table of surpluses.

    The subtitle still names the configurations and the question (a figure that stands alone).
    """
    lo, hi = -int(table["deficit"].max()), -int(table["deficit"].min())
    spare = f"{lo}" if lo == hi else f"{lo} to {hi}"
    n = table.height
    return note_of(f"Nothing needs extending: n* <= N in all {n} cells "
                   f"({spare} conditions to spare)" if n > 1 else
                   f"Nothing needs extending: n* <= N ({spare} conditions to spare)",
                   title).properties(title=heading(title, sub or None))


def _select_question(df: pl.DataFrame, *, alpha: float, delta: float, kernel: str | None,
                     method: str) -> tuple[pl.DataFrame, str]:
    """Return the rows of an n* frame for one (alpha*, delta*, method[, kernel]).

    Also return the subtitle line naming them; raise when the frame has none.
    """
    df = select_close(df, "alpha", float(alpha), "alpha")
    df = select_close(df, "delta", float(delta), "delta")
    df = df.filter(pl.col("method") == method)
    if df.height == 0:
        raise GenexpyInputError(f"no rows with method {method!r} in the frame.")
    if kernel is not None:
        df = df.filter((pl.col("kernel") == kernel) | (pl.col("kernel_label") == kernel))
        if df.height == 0:
            raise GenexpyInputError(f"no rows for kernel {kernel!r}.")
    return df, (f"alpha* = {alpha:g}, delta* = {delta:g}, method: {method}"
                + (f", kernel: {kernel}" if kernel else ""))


def _table_axes(df: pl.DataFrame, design: list[str], xs: list[str], ys: list[str],
                multi_kernel: bool) -> tuple[list[str], list[str]]:
    """Return the columns (``xs``) and rows (``ys``) of the table, the defaults filled in.

    Default: rows = the first design factor, columns = the other design factors, or the
    kernels when the frame holds several (``multi_kernel``). Raise when a name is not a
    column of ``df``.
    """
    if not xs and not ys:
        if multi_kernel:
            ys, xs = (design[:1], ["kernel_label"]) if len(design) <= 1 else (
                design, ["kernel_label"])
        else:
            ys, xs = design[:1], design[1:]
    elif not ys:
        ys = [c for c in design if c not in xs] or ["config_id"]
    elif not xs:
        xs = [c for c in design if c not in ys]
        if multi_kernel:
            xs.append("kernel_label")
    for c in xs + ys:
        if c not in df.columns:
            raise GenexpyInputError(
                f"column {c!r} (x/y) not in the frame; it has {df.columns}.")
    if not ys:
        ys = ["config_id"]
    return xs, ys


def _keep_top(df: pl.DataFrame, top: Any) -> tuple[pl.DataFrame, str]:
    """Return the rows of the ``top`` configurations with the largest deficits.

    Also return the subtitle line saying so; raise unless ``top`` is a positive integer.
    """
    if isinstance(top, bool) or not isinstance(top, (int, np.integer)) or top < 1:
        raise GenexpyInputError(f"top must be a positive integer, got {top!r}.")
    best = (df.group_by("config_id").agg(pl.col("deficit").max().alias("_d"))
            .sort("_d", descending=True, nulls_last=True).head(int(top)))
    df = df.join(best.select("config_id"), on="config_id", how="semi")
    return df, (f"the {plural(int(top), 'configuration')} with the largest deficits"
                if top > 1 else "the configuration with the largest deficit")


def _label(cols: list[str]) -> pl.Expr:
    """Return the label of a row or column of the table: its levels joined by " / "."""
    if not cols:
        return pl.lit("all")
    return pl.concat_str([pl.col(c).cast(pl.String) for c in cols], separator=" / ")


def _cell_table(df: pl.DataFrame, design: list[str], xs: list[str], ys: list[str]
                ) -> pl.DataFrame:
    """Return the table's data, one row per cell.

    Its columns: those shown in tooltips, the labels ``_x`` and ``_y``, and the cell's text
    ``_text`` (the signed deficit, "?" when n* is undefined).
    """
    keep = ["config_id", *design, "N", "nstar", "deficit",
            *[c for c in ("nstar_ceil", "kernel_label", "generalizable", "priority", "to_run",
                          "reason") if c in df.columns]]
    return df.select([c for c in dict.fromkeys(keep) if c in df.columns]).with_columns(
        _label(xs).alias("_x"), _label(ys).alias("_y"),
        pl.when(pl.col("deficit").is_null()).then(pl.lit("?"))
        .otherwise(pl.format("{}{}", pl.when(pl.col("deficit") > 0).then(pl.lit("+"))
                             .otherwise(pl.lit("")), pl.col("deficit"))).alias("_text"),
    )
