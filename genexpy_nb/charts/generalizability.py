"""Charts of generalizability (paper Figures 1-4): pure functions from tidy frames to Altair.

Every builder takes one of the tidy polars frames of :mod:`genexpy_nb.generalizability` or
:mod:`genexpy_nb.planner` (pandas and arrow are accepted too), validates its columns, and
returns an Altair chart whose data is embedded as explicit inline values, so
``chart.to_dict()`` and saving work without a notebook renderer, and no Altair row limit
applies. Empty or degenerate input (no rows, every n* undefined, every quantile 0) gives a
chart carrying a text note instead of an exception; a frame without the needed columns raises
:class:`~genexpy_nb.GenexpyInputError`.

=======================  ===========================================  ======================
builder                  input frame                                  paper
=======================  ===========================================  ======================
:func:`ngen_curves`      ``GeneralizabilityAnalysis.ngen_frame``      Fig. 1, Fig. 2 top
:func:`power_law_fit`    ``GeneralizabilityAnalysis.quantile_frame``  Fig. 2 bottom
:func:`nstar_boxplots`   ``analyze`` / ``GeneralizabilityAnalysis     Figs. 3 and 4
                         .nstar``
:func:`nstar_vs_N`       ``simulate_preliminary_study``               Algorithm 1
:func:`nstar_intervals`  ``analyze`` (one configuration)              n* with its interval
:func:`deficit_heatmap`  ``plan`` or ``analyze``                      Section 5.1 (which
                                                                      configuration first)
=======================  ===========================================  ======================
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import altair as alt
import numpy as np
import polars as pl

from .._validation import GenexpyInputError, check_probability, require_columns, to_polars

__all__ = [
    "ngen_curves",
    "power_law_fit",
    "nstar_boxplots",
    "nstar_vs_N",
    "nstar_intervals",
    "deficit_heatmap",
    "save_chart",
    "RESULT_COLUMNS",
]

#: columns of the n* frame that are not design factors (everything else is a factor level)
RESULT_COLUMNS: frozenset[str] = frozenset({
    "config_id", "kernel", "kernel_label", "alpha", "delta", "eps", "N", "method", "nstar",
    "nstar_ceil", "generalizable", "deficit", "b0", "b1", "r2", "reason", "priority",
    "to_run", "N_sub", "repetition", "nstar_lo", "nstar_hi", "reliable",
    "nstar_null", "nstar_null_lo", "nstar_null_hi", "beyond_chance", "verdict",
})

_SERIES = ["resampled q_n", "closed-form q_n (approx.)"]
_WIDTH = 420
_HEIGHT = 280
_TOL = 1e-9


# ---------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------
def _frame(data: Any, name: str, columns: Sequence[str]) -> pl.DataFrame:
    df = to_polars(data, name)
    require_columns(df, columns, name)
    return df


def _records(df: pl.DataFrame) -> list[dict[str, Any]]:
    """Rows as JSON-safe dicts: NaN/inf become null (Vega-Lite has no NaN literal)."""
    fix = [
        pl.when(pl.col(c).is_finite()).then(pl.col(c)).otherwise(None).alias(c)
        for c, t in df.schema.items() if t.is_float()
    ]
    if fix:
        df = df.with_columns(fix)
    return df.to_dicts()


def _plain(v: Any) -> Any:
    """A Python scalar for a hand-written row (NumPy scalars -> int/float/bool; NaN -> null)."""
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


class _InlineRows(alt.Data):
    """Inline data ``{"values": rows}`` that Altair copies by reference.

    Altair deep-copies every chart several times while it builds a layered chart
    (``alt.layer``, ``.properties``, ``to_dict``) and walks every value of every row when
    serialising; with a few hundred rows that cost more than everything else a slider move
    does. The rows are made once by :func:`_data` and never changed afterwards, so the copies
    share them, and :meth:`to_dict` hands out fresh row dicts (a caller may edit the spec).
    The spec is the same as that of ``alt.Data(values=rows)``.
    """

    def __init__(self, values: list[dict[str, Any]]) -> None:
        super().__init__(values=values)

    def __deepcopy__(self, memo: Any = None) -> _InlineRows:
        return self

    def copy(self, deep: Any = True, ignore: Any = None) -> _InlineRows:
        return self

    def to_dict(self, validate: bool = True, *, ignore: Any = None,
                context: Any = None) -> dict[str, Any]:
        out = {"values": [dict(r) for r in self._kwds["values"]]}
        if validate:
            self.validate(out)
        return out


def _data(df: pl.DataFrame | list[dict[str, Any]]) -> alt.Data:
    """Inline data: explicit values, no data transformer and no row limit involved."""
    if isinstance(df, pl.DataFrame):
        values = _records(df)
    else:
        values = [{str(k): _plain(v) for k, v in row.items()} for row in df]
    return _InlineRows(values)


# Channels are always channel objects with field and type given separately, never shorthand
# strings ("eps:Q"), alt.value() or alt.condition(): Altair resolves those through a search
# of the Vega-Lite JSON schema that costs 5-15 ms per channel, which the panels would pay on
# every slider move (see benchmarks/bench_panels.py). The specs are the same.
_VL_TYPES = {"Q": "quantitative", "N": "nominal", "O": "ordinal"}


def _ch(channel: type, field: str, vl_type: str | None = None, **kwargs: Any) -> Any:
    """``channel(field=..., type=...)``; ``vl_type`` one of "Q", "N", "O" (None: no type)."""
    if vl_type is not None:
        kwargs["type"] = _VL_TYPES[vl_type]
    return channel(field=field, **kwargs)


def _tip(field: str, vl_type: str, **kwargs: Any) -> alt.Tooltip:
    return _ch(alt.Tooltip, field, vl_type, **kwargs)


def _layered(layers: Sequence[alt.Chart], title: alt.TitleParams, width: int = _WIDTH,
             height: int = _HEIGHT, data: alt.Data | None = None) -> alt.LayerChart:
    """``alt.layer(*layers, data=data).properties(...)`` in one step (one copy less).

    ``data``: rows shared by all layers (which then have none of their own), given here
    rather than lifted by Altair from identical layer data, which hashes the layers' text.
    """
    kw = {} if data is None else {"data": data}
    return alt.LayerChart(layer=list(layers), width=width, height=height, title=title, **kw)


def _title(text: str, subtitle: str | Sequence[str] | None = None) -> alt.TitleParams:
    if subtitle:
        return alt.TitleParams(text=text, subtitle=subtitle, anchor="start")
    return alt.TitleParams(text=text, anchor="start")


def _note(text: str, title: str, width: int = _WIDTH, height: int = 120) -> alt.Chart:
    """A chart that only says why there is nothing to plot."""
    return (
        alt.Chart(_data([{"note": text}]), width=width, height=height, title=_title(title))
        .mark_text(align="center", baseline="middle", fontSize=13, color="#555")
        .encode(text=_ch(alt.Text, "note", "N"))
    )


def _tooltip_fields(df: pl.DataFrame, first: Sequence[str]) -> list[alt.Tooltip]:
    out = []
    seen = set()
    for c in first:
        if c in df.columns and c not in seen:
            out.append(_tip(c, _vl_type(df, c), title=c))
            seen.add(c)
    return out


def _vl_type(df: pl.DataFrame, c: str) -> str:
    t = df.schema[c]
    return "Q" if (t.is_numeric() and t != pl.Boolean) else "N"


def _log_ticks(lo: float, hi: float) -> list[float]:
    """Tick values 1, 2, 5 x 10^k inside [lo, hi] (fewer when the range spans many decades)."""
    if not (lo > 0 and hi > 0 and math.isfinite(lo) and math.isfinite(hi)):
        return []
    k0, k1 = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    span = math.log10(hi / lo)
    mult = ((1, 1.5, 2, 3, 4, 5, 7) if span <= 1.2 else (1, 2, 5) if span <= 3.5
            else (1, 3) if span <= 5.5 else (1,))
    ticks = [m * 10.0**k for k in range(k0, k1 + 1) for m in mult]
    return [float(f"{t:.6g}") for t in ticks if lo <= t <= hi]


def _log_axis(title: str, lo: float, hi: float) -> alt.Axis:
    ticks = _log_ticks(lo, hi)
    if len(ticks) < 2:
        return alt.Axis(title=title)
    return alt.Axis(title=title, values=ticks, format="~g")


def _design_columns(df: pl.DataFrame) -> list[str]:
    return [c for c in df.columns if c not in RESULT_COLUMNS]


def _add_levels(df: pl.DataFrame, levels: Mapping[str, Any] | None) -> tuple[pl.DataFrame,
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


def _levels_text(levels: Mapping[str, Any] | None) -> str | None:
    if not levels:
        return None
    return ", ".join(f"{k}={v}" for k, v in levels.items())


def _check_finite_positive(name: str, value: float | None) -> float | None:
    if value is None:
        return None
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise GenexpyInputError(f"{name} must be a number, got {value!r}.") from None
    if not math.isfinite(v) or v <= 0:
        raise GenexpyInputError(f"{name} must be a finite positive number, got {value!r}.")
    return v


def _select_close(df: pl.DataFrame, col: str, value: float, name: str) -> pl.DataFrame:
    sel = df.filter((pl.col(col) - value).abs() < _TOL)
    if sel.height == 0:
        have = sorted(df[col].unique().drop_nulls().to_list())
        raise GenexpyInputError(
            f"no rows with {col} = {value}; the frame has {col} in {have}: pass one of them "
            f"as {name}."
        )
    return sel


# ---------------------------------------------------------------------------------------
# Figure 1 / Figure 2 top: n-generalizability curves
# ---------------------------------------------------------------------------------------
def ngen_curves(
    ngen_frame: Any,
    *,
    alpha: float | None = None,
    eps: float | None = None,
    title: str | None = None,
    levels: Mapping[str, Any] | None = None,
) -> alt.LayerChart | alt.Chart:
    """n-generalizability as a function of the MMD threshold, one curve per sample size n.

    Parameters
    ----------
    ngen_frame : frame with columns ``n`` (int), ``eps`` (float), ``ngen`` (float in [0, 1])
        — the output of :meth:`GeneralizabilityAnalysis.ngen_frame`: for every n of the grid,
        the empirical CDF of MMD_n evaluated on a grid of thresholds (paper Sec. 4.5).
    alpha : desired generalizability alpha*; drawn as a horizontal rule
    eps : MMD threshold eps* = eps(delta*); drawn as a vertical rule
    title : chart title (default "n-generalizability")
    levels : optional configuration levels ``{factor: level}`` shown in tooltips/subtitle

    Returns
    -------
    altair chart: ``line`` marks (x = eps, y = ngen, colour = n), ``rule`` marks at alpha*
    (``y``) and eps* (``x``) with ``text`` labels. A size n is (alpha*, eps*)-generalizable
    where its curve is above the alpha* rule at eps*.

    Notes
    -----
    Paper Figure 1 (n-generalizability of the checkmate-in-one task) and Figure 2 top.
    """
    df = _frame(ngen_frame, "ngen_frame", ["n", "eps", "ngen"])
    if alpha is not None:
        alpha = check_probability("alpha", alpha)
    eps = _check_finite_positive("eps", eps)
    ttl = title or "n-generalizability"
    df = df.select("n", "eps", "ngen", *[c for c in df.columns if c not in ("n", "eps", "ngen")])
    df = df.filter(pl.col("eps").is_finite(), pl.col("ngen").is_finite())
    if df.height == 0:
        return _note("no n-generalizability to plot: the configuration has too few results "
                     "for any sample size n of the grid", ttl)
    df, lvl = _add_levels(df, levels)
    df = df.with_columns(pl.col("n").cast(pl.Int64))
    extra = [c for c in df.columns if c not in ("n", "eps", "ngen")]
    tooltip = _tooltip_fields(df, [*lvl, "n", "eps", "ngen", *extra])
    sub = []
    if _levels_text(levels):
        sub.append(_levels_text(levels))
    if alpha is not None and eps is not None:
        sub.append(f"alpha* = {alpha:g}, eps* = {eps:.3g}: generalizable n are above the "
                   "horizontal rule at the vertical one")
    base = (
        alt.Chart(_data(df))
        .mark_line(interpolate="step-after", strokeWidth=1.8)
        .encode(
            x=_ch(alt.X, "eps", "Q", title="eps (MMD threshold)"),
            y=_ch(alt.Y, "ngen", "Q", title="n-generalizability  P(MMD_n <= eps)",
                  scale=alt.Scale(domain=[0, 1])),
            color=_ch(alt.Color, "n", "O", title="n", scale=alt.Scale(scheme="viridis")),
            tooltip=tooltip,
        )
    )
    layers: list[alt.Chart] = [base]
    if alpha is not None:
        at = _data([{"alpha": alpha, "label": f"alpha* = {alpha:g}"}])
        layers.append(
            alt.Chart(at)
            .mark_rule(color="firebrick", strokeDash=[6, 3])
            .encode(y=_ch(alt.Y, "alpha", "Q"), tooltip=[_tip("alpha", "Q", title="alpha*")])
        )
        layers.append(
            alt.Chart(at)
            .mark_text(align="left", dx=4, dy=-6, color="firebrick")
            .encode(y=_ch(alt.Y, "alpha", "Q"), x=alt.XValue(0),
                    text=_ch(alt.Text, "label", "N"))
        )
    if eps is not None:
        et = _data([{"eps": eps, "label": f"eps* = {eps:.3g}"}])
        layers.append(
            alt.Chart(et)
            .mark_rule(color="black", strokeDash=[2, 2])
            .encode(x=_ch(alt.X, "eps", "Q"),
                    tooltip=[_tip("eps", "Q", title="eps*", format=".4f")])
        )
        layers.append(
            alt.Chart(et)
            .mark_text(align="left", dx=4, color="black")
            .encode(x=_ch(alt.X, "eps", "Q"), y=alt.YValue(_HEIGHT - 10),
                    text=_ch(alt.Text, "label", "N"))
        )
    return _layered(layers, _title(ttl, sub or None))


# ---------------------------------------------------------------------------------------
# Figure 2 bottom: the power law log n = b1 log q_n + b0
# ---------------------------------------------------------------------------------------
def power_law_fit(
    quantile_frame: Any,
    *,
    eps: float | None = None,
    nstar: float | None = None,
    b0: float | None = None,
    b1: float | None = None,
    title: str | None = None,
    N: int | None = None,
    levels: Mapping[str, Any] | None = None,
) -> alt.LayerChart | alt.Chart:
    """The alpha*-quantiles of MMD_n against n on log-log axes, the fitted power law and n*.

    Parameters
    ----------
    quantile_frame : frame with columns ``n`` and ``q`` (resampled alpha*-quantile of MMD_n),
        optionally ``q_approx`` (the closed-form quantile of paper App. C) — the output of
        :meth:`GeneralizabilityAnalysis.quantile_frame`.
    eps : eps*; n* is predicted there (vertical rule and a star at (eps*, n*))
    nstar : n* to mark; default: the fit's prediction ``exp(b1 log eps* + b0)``
    b0, b1 : fitted intercept and slope of ``log n = b1 log q_n + b0``; default: refitted
        here by ordinary least squares on the positive quantiles (same as
        :func:`genexpy_nb.fit_nstar`)
    title : chart title
    N : number of observed results; drawn as a horizontal rule (generalizable if n* <= N)
    levels : optional configuration levels shown in tooltips/subtitle

    Returns
    -------
    altair chart: ``point`` marks (x = q, y = n, both ``log`` scales; shape/colour = series
    "resampled q_n" / "closed-form q_n"), a ``line`` for the fit, a ``point`` (star) at
    (eps*, n*), ``rule`` marks at eps* and N.

    Notes
    -----
    Theorem 4.1 / Algorithm 1 of the paper: ``q_n ~ n^(-1/2)``, hence b1 ~ -2. Quantiles
    equal to 0 (all resampled results agree) cannot be shown on a log axis; if every
    quantile is 0, n* = 1 (paper Sec. 4.5) and the chart says so.
    """
    df = _frame(quantile_frame, "quantile_frame", ["n", "q"])
    eps = _check_finite_positive("eps", eps)
    nstar = None if nstar is None or not math.isfinite(float(nstar)) else float(nstar)
    ttl = title or "Power law of the MMD_n quantiles and n*"
    if df.height == 0:
        return _note("no quantiles to fit: the configuration has too few results for the "
                     "grid of sample sizes (at least 6 are needed)", ttl)
    df, lvl = _add_levels(df, levels)
    series = [("q", "resampled q_n")]
    if "q_approx" in df.columns:
        series.append(("q_approx", "closed-form q_n (approx.)"))
    long = pl.concat([
        df.select(pl.col("n").cast(pl.Float64), pl.col(c).cast(pl.Float64).alias("q"),
                  *[pl.col(x) for x in lvl], pl.lit(lab).alias("series"))
        for c, lab in series
    ])
    pos = long.filter(pl.col("q") > 0, pl.col("q").is_finite(), pl.col("n") > 0)
    res_pos = pos.filter(pl.col("series") == "resampled q_n")
    zeros = df.filter(pl.col("q") <= 0).height
    if res_pos.height == 0:
        if zeros:
            return _note("every resampled MMD_n quantile is 0 (all results agree under this "
                         "kernel): n* = 1, one experiment suffices", ttl)
        return _note("no finite positive quantiles to plot", ttl)
    if b0 is None or b1 is None:
        if res_pos.height >= 2 and res_pos["q"].n_unique() > 1:
            b1_, b0_ = np.polyfit(np.log(res_pos["q"].to_numpy()),
                                  np.log(res_pos["n"].to_numpy()), 1)
            b0 = float(b0_) if b0 is None else float(b0)
            b1 = float(b1_) if b1 is None else float(b1)
    if nstar is None and eps is not None and b0 is not None and b1 is not None and b1 < 0:
        nstar = float(math.exp(b1 * math.log(eps) + b0))
    layers: list[alt.Chart] = []
    sub = []
    if _levels_text(levels):
        sub.append(_levels_text(levels))
    if b0 is not None and b1 is not None and math.isfinite(b0) and math.isfinite(b1):
        qs = res_pos["q"].to_numpy()
        lo = min(qs.min(), eps) if eps is not None else qs.min()
        hi = max(qs.max(), eps) if eps is not None else qs.max()
        grid = np.geomspace(lo, hi, 30) if hi > lo else np.array([lo])
        fit = pl.DataFrame({"q": grid, "n": np.exp(b1 * np.log(grid) + b0),
                            "series": ["power-law fit"] * grid.size})
        layers.append(
            alt.Chart(_data(fit)).mark_line(color="grey", strokeDash=[5, 3])
            .encode(x=_ch(alt.X, "q", "Q"), y=_ch(alt.Y, "n", "Q"),
                    tooltip=[_tip("series", "N"), _tip("q", "Q", format=".4f"),
                             _tip("n", "Q", format=".1f")])
        )
        sub.append(f"fit: log n = {b1:.3f} log q + {b0:.3f} (theory: slope -2)")
    if zeros:
        sub.append(f"{zeros} quantile(s) equal to 0 not shown on the log axis")
    xs = [float(pos["q"].min()), float(pos["q"].max())] + ([eps] if eps is not None else [])
    ys = [float(pos["n"].min()), float(pos["n"].max())]
    ys += [v for v in (nstar, None if N is None else float(N)) if v is not None and v > 0]
    xdom = [min(xs) / 1.25, max(xs) * 1.25]
    ydom = [min(ys) / 1.25, max(ys) * 1.25]
    tooltip = _tooltip_fields(pos, [*lvl, "series", "n", "q"])
    layers.insert(0,
        alt.Chart(_data(pos)).mark_point(filled=True, size=60)
        .encode(
            x=_ch(alt.X, "q", "Q", scale=alt.Scale(type="log", domain=xdom, nice=False),
                  axis=_log_axis("alpha*-quantile of MMD_n (log)", *xdom)),
            y=_ch(alt.Y, "n", "Q", scale=alt.Scale(type="log", domain=ydom, nice=False),
                  axis=_log_axis("sample size n (log)", *ydom)),
            color=_ch(alt.Color, "series", "N", title=None,
                      scale=alt.Scale(domain=_SERIES, range=["steelblue", "darkorange"])),
            shape=_ch(alt.Shape, "series", "N", title=None,
                      scale=alt.Scale(domain=_SERIES, range=["circle", "square"])),
            tooltip=tooltip,
        )
    )
    if eps is not None:
        layers.append(
            alt.Chart(_data([{"eps": eps, "label": f"eps* = {eps:.3g}"}]))
            .mark_rule(color="black", strokeDash=[2, 2])
            .encode(x=_ch(alt.X, "eps", "Q"),
                    tooltip=[_tip("eps", "Q", title="eps*", format=".4f")])
        )
    if N is not None:
        layers.append(
            alt.Chart(_data([{"N": float(N), "label": f"N = {N} observed"}]))
            .mark_rule(color="seagreen", strokeDash=[6, 3])
            .encode(y=_ch(alt.Y, "N", "Q"), tooltip=[_tip("label", "N", title="observed")])
        )
    if nstar is not None and eps is not None:
        star = {"eps": eps, "nstar": nstar, "label": f"n* = {nstar:.1f}"}
        star.update({k: str(v) for k, v in (levels or {}).items()})
        sd = _data([star])
        layers.append(
            alt.Chart(sd).mark_point(shape="diamond", size=160, filled=True,
                                     color="firebrick")
            .encode(x=_ch(alt.X, "eps", "Q"), y=_ch(alt.Y, "nstar", "Q"),
                    tooltip=[*[_tip(k, "N") for k in lvl],
                             _tip("eps", "Q", title="eps*", format=".4f"),
                             _tip("nstar", "Q", title="n*", format=".2f")])
        )
        layers.append(
            alt.Chart(sd).mark_text(align="left", dx=8, dy=-8, color="firebrick")
            .encode(x=_ch(alt.X, "eps", "Q"), y=_ch(alt.Y, "nstar", "Q"),
                    text=_ch(alt.Text, "label", "N"))
        )
        verdict = ""
        if N is not None:
            ok = N >= max(1, math.ceil(nstar - 1e-9))
            verdict = f" ({'generalizable' if ok else 'not generalizable'} with N = {N})"
        sub.append(f"n* = {nstar:.1f} at eps* = {eps:.3g}{verdict}")
    return _layered(layers, _title(ttl, sub or None))


# ---------------------------------------------------------------------------------------
# Figures 3 and 4: n* over configurations, per kernel, against alpha* or delta*
# ---------------------------------------------------------------------------------------
def _box_stats(df: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    """Tukey box statistics of ``nstar`` per group (whiskers at 1.5 IQR, linear scale)."""
    q = (df.group_by(keys, maintain_order=True).agg(
        pl.col("nstar").quantile(0.25, "linear").alias("q1"),
        pl.col("nstar").median().alias("median"),
        pl.col("nstar").quantile(0.75, "linear").alias("q3"),
        pl.len().alias("configurations"),
    ))
    j = df.join(q, on=keys, how="left").with_columns(
        (pl.col("q3") - pl.col("q1")).alias("iqr"))
    j = j.with_columns(
        (pl.col("nstar") >= pl.col("q1") - 1.5 * pl.col("iqr")).alias("_lo_in"),
        (pl.col("nstar") <= pl.col("q3") + 1.5 * pl.col("iqr")).alias("_hi_in"),
    )
    w = j.group_by(keys, maintain_order=True).agg(
        pl.col("nstar").filter(pl.col("_lo_in")).min().alias("lower"),
        pl.col("nstar").filter(pl.col("_hi_in")).max().alias("upper"),
    )
    return q.join(w, on=keys, how="left")


def nstar_boxplots(
    results: Any,
    *,
    vary: str = "alpha",
    alpha: float = 0.95,
    delta: float = 0.05,
    method: str = "resample",
    points: str = "outliers",
    title: str | None = None,
) -> alt.LayerChart | alt.Chart:
    """n* per kernel, as box plots over the configurations, against alpha* or delta*.

    Parameters
    ----------
    results : the tidy n* frame of :func:`genexpy_nb.analyze` (columns config_id, design
        factors, kernel_label, alpha, delta, method, nstar, N, ...)
    vary : "alpha" (x = alpha*, delta* fixed at ``delta``) or "delta" (x = delta*, alpha*
        fixed at ``alpha``) — the left and right panels of the paper's Figures 3 and 4
    alpha, delta : the fixed threshold (must be in the frame)
    method : which estimate of n* ("resample", "approx", "approx_weighted", "bound")
    points : "outliers" (points beyond the whiskers, with the configuration in the tooltip),
        "all" (every configuration as a point) or "none"
    title : chart title

    Returns
    -------
    altair chart: ``bar`` (box from q1 to q3), ``rule`` (whiskers), ``tick`` (median) and
    ``point`` marks; x = the varied threshold (ordinal), xOffset and colour = kernel,
    y = n* on a ``log`` scale. The box statistics are computed here (Tukey, whiskers at
    1.5 IQR), so the chart's data stays small for studies with many configurations.
    Configurations whose n* is undefined (too few results) are counted in the subtitle and
    left out.

    Notes
    -----
    Paper Figures 3 (categorical encoders) and 4 (BIG-bench): "the variation in the plot is
    due to the combinations of design factors".
    """
    if vary not in ("alpha", "delta"):
        raise GenexpyInputError(f"vary must be 'alpha' or 'delta', got {vary!r}.")
    if points not in ("outliers", "all", "none"):
        raise GenexpyInputError(f"points must be 'outliers', 'all' or 'none', got {points!r}.")
    df = _frame(results, "results",
                ["config_id", "kernel_label", "alpha", "delta", "method", "nstar"])
    fixed, fixed_value = ("delta", delta) if vary == "alpha" else ("alpha", alpha)
    sym = {"alpha": "alpha*", "delta": "delta*"}
    ttl = title or f"n* over configurations, by {sym[vary]} ({sym[fixed]} = {fixed_value:g})"
    if df.height == 0:
        return _note("no results to plot (empty frame)", ttl)
    have_methods = sorted(df["method"].unique().drop_nulls().to_list())
    if method not in have_methods:
        raise GenexpyInputError(
            f"method {method!r} is not in the frame; it has {have_methods}.")
    df = df.filter(pl.col("method") == method)
    df = _select_close(df, fixed, float(fixed_value), fixed)
    design = _design_columns(df)
    nz = df.with_columns(pl.col("nstar").cast(pl.Float64))
    ok = nz.filter(pl.col("nstar").is_finite(), pl.col("nstar") > 0)
    undefined = nz.height - ok.height
    sub = [f"method: {method}; each box: the configurations of the study"]
    if undefined:
        sub.append(f"{undefined} configuration x kernel x {sym[vary]} cells with undefined n* "
                   "(too few results) not shown")
    if ok.height == 0:
        return _note("n* is undefined for every configuration (too few results per "
                     "configuration for the power-law fit)", ttl)
    keys = [vary, "kernel_label"]
    stats = _box_stats(ok, keys)
    xenc = _ch(alt.X, vary, "O", title=sym[vary], axis=alt.Axis(labelAngle=0))
    off = _ch(alt.XOffset, "kernel_label", "N")
    col = _ch(alt.Color, "kernel_label", "N", title="kernel (research question)")
    vmin, vmax = float(ok["nstar"].min()), float(ok["nstar"].max())
    if vmax <= vmin * 1.0001:
        domain = [vmin / 2.0, vmax * 2.0]
        sub.append(f"every n* equals {vmin:g}")
    else:
        domain = [vmin / 1.2, vmax * 1.2]
    yscale = alt.Scale(type="log", domain=domain, nice=False)
    yaxis = _log_axis("n* (log scale)", *domain)
    stat_tip = [_tip("kernel_label", "N", title="kernel"), _tip(vary, "O"),
                _tip("configurations", "Q"),
                _tip("median", "Q", format=".1f"), _tip("q1", "Q", format=".1f"),
                _tip("q3", "Q", format=".1f"), _tip("lower", "Q", format=".1f"),
                _tip("upper", "Q", format=".1f")]
    sdata = _data(stats)
    whisk = alt.Chart(sdata).mark_rule().encode(
        x=xenc, xOffset=off, color=col,
        y=_ch(alt.Y, "lower", "Q", scale=yscale, axis=yaxis), y2=_ch(alt.Y2, "upper"),
        tooltip=stat_tip)
    box = alt.Chart(sdata).mark_bar(size=14, opacity=0.75, stroke="black",
                                    strokeWidth=0.5).encode(
        x=xenc, xOffset=off, color=col, y=_ch(alt.Y, "q1", "Q", scale=yscale),
        y2=_ch(alt.Y2, "q3"), tooltip=stat_tip)
    med = alt.Chart(sdata).mark_tick(color="black", size=14, thickness=2).encode(
        x=xenc, xOffset=off, y=_ch(alt.Y, "median", "Q", scale=yscale), tooltip=stat_tip)
    layers = [whisk, box, med]
    if points != "none":
        pts = ok.join(stats.select(*keys, "q1", "q3", "lower", "upper"), on=keys, how="left")
        if points == "outliers":
            pts = pts.filter((pl.col("nstar") < pl.col("lower")) |
                             (pl.col("nstar") > pl.col("upper")))
        keep = ["config_id", *design, "kernel_label", vary, "N", "nstar", "nstar_ceil",
                "generalizable"]
        pts = pts.select([c for c in keep if c in pts.columns])
        if pts.height:
            tip = _tooltip_fields(pts, [*design, "kernel_label", vary, "N", "nstar",
                                        "nstar_ceil", "generalizable", "config_id"])
            layers.append(
                alt.Chart(_data(pts)).mark_point(size=22, filled=True, opacity=0.7)
                .encode(x=xenc, xOffset=off, color=col,
                        y=_ch(alt.Y, "nstar", "Q", scale=yscale), tooltip=tip))
    return _layered(layers, _title(ttl, sub))


# ---------------------------------------------------------------------------------------
# Algorithm 1, simulated: n*_N as the preliminary study grows
# ---------------------------------------------------------------------------------------
def nstar_vs_N(  # noqa: N802
    sim_frame: Any,
    *,
    title: str | None = None,
    alpha: float | None = None,
    delta: float | None = None,
    method: str | None = None,
) -> alt.LayerChart | alt.Chart:
    """n*_N estimated from N = N0, 2 N0, ... results, with the diagonal n* = N.

    Parameters
    ----------
    sim_frame : the frame of :func:`genexpy_nb.simulate_preliminary_study` (columns N_sub,
        repetition, kernel_label, nstar; optionally alpha, delta, method, N, generalizable)
    title : chart title
    alpha, delta, method : select one (alpha*, delta*, method) when the frame holds several

    Returns
    -------
    altair chart: ``point`` marks (every repetition) and a ``line`` through the median per N
    (x = N_sub, y = nstar, colour = kernel), and a ``line`` for the diagonal n* = N:
    Algorithm 1 stops at the first N whose estimate lies on or below the diagonal. A rule
    marks the N of the full study when the frame has it.
    """
    df = _frame(sim_frame, "sim_frame", ["N_sub", "kernel_label", "nstar"])
    ttl = title or "n* estimated from N preliminary results (Algorithm 1)"
    if df.height == 0:
        return _note("no simulated preliminary studies to plot (empty frame)", ttl)
    if alpha is not None and "alpha" in df.columns:
        df = _select_close(df, "alpha", float(alpha), "alpha")
    if delta is not None and "delta" in df.columns:
        df = _select_close(df, "delta", float(delta), "delta")
    if method is not None and "method" in df.columns:
        df = df.filter(pl.col("method") == method)
        if df.height == 0:
            raise GenexpyInputError(f"no rows with method {method!r} in sim_frame.")
    combo = [c for c in ("alpha", "delta", "method") if c in df.columns]
    if combo and df.select(combo).unique().height > 1:
        raise GenexpyInputError(
            f"sim_frame holds several {combo} combinations "
            f"{df.select(combo).unique().sort(combo).rows()}; pick one with alpha=, delta=, "
            "method=.")
    if "repetition" not in df.columns:
        df = df.with_columns(pl.lit(0).alias("repetition"))
    df = df.with_columns(pl.col("nstar").cast(pl.Float64))
    ok = df.filter(pl.col("nstar").is_finite(), pl.col("nstar") > 0)
    sub = []
    if combo:
        first = df.select(combo).row(0, named=True)
        sub.append(", ".join(f"{k}* = {v:g}" if isinstance(v, float) else f"{k}: {v}"
                             for k, v in first.items()))
    undefined = df.height - ok.height
    if undefined:
        sub.append(f"{undefined} estimates with undefined n* not shown")
    if ok.height == 0:
        return _note("n* is undefined for every simulated preliminary study", ttl)
    keep = [c for c in ("N_sub", "repetition", "kernel", "kernel_label", "nstar",
                        "nstar_ceil", "generalizable", "N") if c in ok.columns]
    pts = ok.select(keep)
    med = pts.group_by(["N_sub", "kernel_label"], maintain_order=True).agg(
        pl.col("nstar").median().alias("nstar")).sort(["kernel_label", "N_sub"])
    band = None
    if {"nstar_lo", "nstar_hi"} <= set(ok.columns):
        band = (ok.filter(pl.col("nstar_lo").is_finite(), pl.col("nstar_hi").is_finite())
                .group_by(["N_sub", "kernel_label"], maintain_order=True)
                .agg(pl.col("nstar_lo").median(), pl.col("nstar_hi").median())
                .sort(["kernel_label", "N_sub"]))
        if band.height == 0:
            band = None
        else:
            sub.append("band: median 90 % interval of n*")
    top = float(max(pts["nstar"].max(), pts["N_sub"].max(),
                    band["nstar_hi"].max() if band is not None else 0.0)) * 1.05
    lo = float(min(pts["N_sub"].min(), 1))
    diag = pl.DataFrame({"N_sub": [lo, top], "nstar": [lo, top],
                         "label": ["n* = N (generalizable below)"] * 2})
    xenc = _ch(alt.X, "N_sub", "Q", title="N: preliminary results used")
    yenc = _ch(alt.Y, "nstar", "Q", title="estimated n*")
    col = _ch(alt.Color, "kernel_label", "N", title="kernel")
    tip = _tooltip_fields(pts, ["kernel_label", "N_sub", "repetition", "nstar", "nstar_ceil",
                                "generalizable", "N"])
    layers = [
        alt.Chart(_data(diag)).mark_line(color="grey", strokeDash=[4, 4])
        .encode(x=xenc, y=yenc, tooltip=[_tip("label", "N", title="diagonal")]),
    ]
    if band is not None:
        layers.append(
            alt.Chart(_data(band)).mark_area(opacity=0.15)
            .encode(x=xenc, y=_ch(alt.Y, "nstar_lo", "Q", title="estimated n*"),
                    y2=alt.Y2("nstar_hi"), color=col,
                    tooltip=[_tip("kernel_label", "N", title="kernel"),
                             _tip("N_sub", "Q", title="N"),
                             _tip("nstar_lo", "Q", title="median lower end", format=".1f"),
                             _tip("nstar_hi", "Q", title="median upper end", format=".1f")]))
    layers += [
        alt.Chart(_data(pts)).mark_point(filled=True, opacity=0.5, size=35)
        .encode(x=xenc, y=yenc, color=col, tooltip=tip),
        alt.Chart(_data(med)).mark_line(point=True, strokeWidth=2)
        .encode(x=xenc, y=yenc, color=col,
                tooltip=[_tip("kernel_label", "N", title="kernel"),
                         _tip("N_sub", "Q", title="N"),
                         _tip("nstar", "Q", title="median n*", format=".1f")]),
    ]
    if "N" in df.columns and df["N"].n_unique() == 1:
        Nfull = int(df["N"][0])
        layers.append(
            alt.Chart(_data([{"N": Nfull, "label": f"all {Nfull} observed results"}]))
            .mark_rule(color="seagreen", strokeDash=[6, 3])
            .encode(x=_ch(alt.X, "N", "Q"), tooltip=[_tip("label", "N", title="full study")]))
    return _layered(layers, _title(ttl, sub or None))


# ---------------------------------------------------------------------------------------
# n* with its interval, for one configuration
# ---------------------------------------------------------------------------------------
def nstar_intervals(
    results: Any,
    *,
    vary: str = "alpha",
    alpha: float | None = None,
    delta: float | None = None,
    config_id: int | None = None,
    levels: Mapping[str, Any] | None = None,
    title: str | None = None,
) -> alt.LayerChart | alt.Chart:
    """n* and its interval ``[nstar_lo, nstar_hi]`` against alpha* or delta*, per kernel.

    Parameters
    ----------
    results : the frame of :func:`genexpy_nb.analyze` (with ``interval=True``, the default)
    vary : "alpha" (x = alpha*, at ``delta``) or "delta" (x = delta*, at ``alpha``)
    alpha, delta : the threshold held fixed (default: the paper's 0.95 / 0.05)
    config_id : the configuration to show (default: the only one in the frame)
    levels : alternatively, the configuration's design levels, e.g. ``{"model": "LR"}``
    title : chart title

    Returns
    -------
    altair chart: a ``rule`` from nstar_lo to nstar_hi and a ``point`` at n* (filled when the
    estimate is reliable, hollow when flagged, with the reason in the tooltip) for every
    kernel (colour), on a log scale, and a horizontal ``rule`` at the configuration's N: a
    kernel whose whole interval lies below N is generalizable even at the upper end.
    """
    if vary not in ("alpha", "delta"):
        raise GenexpyInputError(f"vary must be 'alpha' or 'delta', got {vary!r}.")
    df = _frame(results, "results", ["config_id", "kernel_label", "alpha", "delta", "N",
                                     "method", "nstar", "nstar_lo", "nstar_hi"])
    ttl = title or ("n* and its interval against alpha*" if vary == "alpha"
                    else "n* and its interval against delta*")
    df = df.filter(pl.col("method") == "resample")
    if df.height == 0:
        return _note("no resampled n* in the frame", ttl)
    if levels:
        for k, v in levels.items():
            if k not in df.columns:
                raise GenexpyInputError(f"levels names {k!r}, which is not a column.")
            df = df.filter(pl.col(k) == v)
    if config_id is not None:
        df = df.filter(pl.col("config_id") == int(config_id))
    cids = df["config_id"].unique().to_list()
    if len(cids) != 1:
        raise GenexpyInputError(
            f"the frame holds {len(cids)} configurations here; choose one with config_id= or "
            "levels=.")
    fixed = "delta" if vary == "alpha" else "alpha"
    fv = {"alpha": 0.95 if alpha is None else float(alpha),
          "delta": 0.05 if delta is None else float(delta)}[fixed]
    df = _select_close(df, fixed, fv, fixed)
    df = df.with_columns(pl.col("nstar", "nstar_lo", "nstar_hi").cast(pl.Float64))
    if "reliable" not in df.columns:
        df = df.with_columns(pl.lit(True).alias("reliable"))
    ok = df.filter(pl.col("nstar").is_finite(), pl.col("nstar") > 0)
    if ok.height == 0:
        return _note("n* is undefined here for every kernel", ttl)
    N = int(ok["N"][0])
    vals = [v for v in (ok["nstar"].to_list() + ok["nstar_lo"].to_list()
                        + ok["nstar_hi"].to_list() + [N]) if v is not None and
            math.isfinite(v) and v > 0]
    vmin, vmax = min(vals), max(vals)
    yscale = alt.Scale(type="log", domain=[vmin / 1.2, vmax * 1.2])
    keep = ["kernel_label", vary, "N", "nstar", "nstar_lo", "nstar_hi", "reliable",
            *[c for c in ("nstar_ceil", "generalizable", "reason") if c in ok.columns]]
    pts = ok.select(keep).with_columns(pl.col("reliable").fill_null(False))
    xenc = _ch(alt.X, vary, "O", title=f"{vary}*")
    col = _ch(alt.Color, "kernel_label", "N", title="kernel")
    off = _ch(alt.XOffset, "kernel_label", "N")
    tip = _tooltip_fields(pts, ["kernel_label", vary, "nstar", "nstar_lo", "nstar_hi", "N",
                                "generalizable", "reason"])
    yaxis = _log_axis("n* (log scale)", vmin, vmax)
    layers = [
        alt.Chart(_data(pts.filter(pl.col("nstar_lo").is_finite(),
                                   pl.col("nstar_hi").is_finite())))
        .mark_rule(strokeWidth=2)
        .encode(x=xenc, xOffset=off, color=col,
                y=_ch(alt.Y, "nstar_lo", "Q", scale=yscale, axis=yaxis),
                y2=alt.Y2("nstar_hi"), tooltip=tip),
        *[alt.Chart(_data(part)).mark_point(size=70, filled=filled, opacity=1.0)
          .encode(x=xenc, xOffset=off, color=col,
                  y=_ch(alt.Y, "nstar", "Q", scale=yscale, axis=yaxis), tooltip=tip)
          for part, filled in ((pts.filter(pl.col("reliable")), True),
                               (pts.filter(~pl.col("reliable")), False)) if part.height],
        alt.Chart(_data([{"N": N, "label": f"N = {N} conditions observed"}]))
        .mark_rule(color="seagreen", strokeDash=[6, 3])
        .encode(y=_ch(alt.Y, "N", "Q", scale=yscale), tooltip=[_tip("label", "N", title="N")]),
    ]
    sub = [f"{fixed}* = {fv:g}; bars: interval of n*; hollow points: estimates flagged as "
           f"unreliable; dashed line: N = {N}"]
    return _layered(layers, _title(ttl, sub))


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
    """Configuration table of the deficit n* - N, coloured red (extend) to blue (enough).

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
    df = _frame(plan_or_results, "plan_or_results", ["config_id", "N", "nstar", "deficit"])
    is_results = {"alpha", "delta", "method", "kernel_label"} <= set(df.columns)
    ttl = title or "Which configurations to extend first: deficit n* - N"
    sub = []
    if df.height == 0:
        return _note("no configurations to show (empty frame)", ttl)
    design = _design_columns(df)
    if is_results:
        df = _select_close(df, "alpha", float(alpha), "alpha")
        df = _select_close(df, "delta", float(delta), "delta")
        df = df.filter(pl.col("method") == method)
        if df.height == 0:
            raise GenexpyInputError(f"no rows with method {method!r} in the frame.")
        if kernel is not None:
            df = df.filter((pl.col("kernel") == kernel) | (pl.col("kernel_label") == kernel))
            if df.height == 0:
                raise GenexpyInputError(f"no rows for kernel {kernel!r}.")
        sub.append(f"alpha* = {alpha:g}, delta* = {delta:g}, method: {method}"
                   + (f", kernel: {kernel}" if kernel else ""))
    elif "kernel_label" in df.columns:
        sub.append("per configuration, the kernel that needs the most experiments")
    xs, ys = _as_cols(x), _as_cols(y)
    multi_kernel = is_results and df["kernel_label"].n_unique() > 1
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
    df = df.with_columns(pl.col("nstar").cast(pl.Float64))
    if top is not None:
        if isinstance(top, bool) or not isinstance(top, (int, np.integer)) or top < 1:
            raise GenexpyInputError(f"top must be a positive integer, got {top!r}.")
        best = (df.group_by("config_id").agg(pl.col("deficit").max().alias("_d"))
                .sort("_d", descending=True, nulls_last=True).head(int(top)))
        df = df.join(best.select("config_id"), on="config_id", how="semi")
        sub.append(f"the {top} configurations with the largest deficits")

    def label(cols: list[str]) -> pl.Expr:
        if not cols:
            return pl.lit("all")
        return pl.concat_str([pl.col(c).cast(pl.String) for c in cols], separator=" / ")

    pretty = {"kernel_label": "kernel", "config_id": "configuration"}
    xname = " / ".join(pretty.get(c, c) for c in xs) if xs else "configuration"
    yname = " / ".join(pretty.get(c, c) for c in ys)
    keep = ["config_id", *design, "N", "nstar", "deficit",
            *[c for c in ("nstar_ceil", "kernel_label", "generalizable", "priority", "to_run",
                          "reason") if c in df.columns]]
    table = df.select([c for c in dict.fromkeys(keep) if c in df.columns]).with_columns(
        label(xs).alias("_x"), label(ys).alias("_y"),
        pl.when(pl.col("deficit").is_null()).then(pl.lit("?"))
        .otherwise(pl.format("{}{}", pl.when(pl.col("deficit") > 0).then(pl.lit("+"))
                             .otherwise(pl.lit("")), pl.col("deficit"))).alias("_text"),
    )
    if table["deficit"].null_count() == table.height:
        sub.append("n* is undefined everywhere (too few results): nothing to rank")
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
    tip = _tooltip_fields(table, [*design, "kernel_label", "N", "nstar", "nstar_ceil",
                                  "deficit", "generalizable", "priority", "reason"])
    ysort = alt.EncodingSortField(field="deficit", op="max", order="descending")
    xenc = _ch(alt.X, "_x", "N", title=xname, axis=alt.Axis(labelAngle=-35))
    yenc = _ch(alt.Y, "_y", "N", title=yname, sort=ysort)
    ncols = table["_x"].n_unique()
    nrows = table["_y"].n_unique()
    base = alt.Chart()  # the table is the data of the layered chart
    rect = base.mark_rect(stroke="white").encode(x=xenc, y=yenc, color=color, tooltip=tip)
    text = base.mark_text(fontSize=10).encode(
        x=xenc, y=yenc, text=_ch(alt.Text, "_text", "N"), color=ink, tooltip=tip)
    return _layered([rect, text], _title(ttl, sub or None),
                    width=max(120, min(60 * ncols, 900)),
                    height=max(60, min(18 * nrows, 2400)), data=_data(table))


# ---------------------------------------------------------------------------------------
_SAVE_FORMATS = ("html", "png", "svg", "pdf", "json")


def save_chart(chart: alt.TopLevelMixin, path: str | Path | Sequence[str | Path], *,
               inline: bool = True) -> Path | list[Path]:
    """Save a chart as HTML, PNG, SVG, PDF or Vega-Lite JSON, chosen by the file suffix.

    ``path`` may be a list of paths (e.g. ``["fig.html", "fig.png", "fig.svg"]``): the chart
    is then converted once and written in every format (faster than one call per file).
    HTML embeds the Vega JavaScript (``inline=True``, the default), so the file displays
    offline - on a cluster, in a mail attachment; ``inline=False`` loads it from a CDN
    (smaller file, needs network). HTML inlining, PNG, SVG and PDF use
    ``vl-convert-python`` (no browser needed). Every file is written atomically (a
    temporary name, then renamed): an interrupted save never leaves half a file. Returns
    the path written (the list of paths written for a list).

    Where vl-convert's JavaScript engine cannot start (not installed, or an address-space
    limit such as ``ulimit -v``: see :func:`genexpy_nb._io.js_engine_problem`), what can be
    written still is - the JSON spec, and HTML (loading Vega from a CDN unless the bundle
    is already cached) - and an :class:`~genexpy_nb._io.ExportSkippedWarning` says what
    was skipped and why; a :class:`GenexpyInputError` when nothing asked for can be written.
    Strings from the data are embedded with :func:`~genexpy_nb._escape.script_json`: a name
    such as ``</script><script>...`` never runs as script.
    """
    import warnings

    from .._io import ExportSkippedWarning, atomic_write, js_engine_problem

    if not isinstance(chart, alt.TopLevelMixin):
        raise GenexpyInputError(f"chart must be an Altair chart, got {type(chart).__name__}.")
    many = not isinstance(path, (str, Path))
    paths = [Path(p) for p in (path if many else [path])]
    fmts = [p.suffix.lower().lstrip(".") for p in paths]
    for p, fmt in zip(paths, fmts):
        if fmt not in _SAVE_FORMATS:
            raise GenexpyInputError(
                f"cannot save as {p.suffix!r}: use a path ending in .html, .png, .svg, .pdf "
                "or .json.")
    needs_vlc = [f for f in fmts if f in ("png", "svg", "pdf") or (f == "html" and inline)]
    problem = js_engine_problem() if needs_vlc else None
    skipped = [p for p, f in zip(paths, fmts) if problem and f in ("png", "svg", "pdf")]
    if skipped and len(skipped) == len(paths):
        raise GenexpyInputError(
            f"cannot save {', '.join(p.name for p in skipped)}: {problem}. Save the chart as "
            ".html or .json instead.")
    bundle = None
    if "html" in fmts and inline:
        bundle = _vega_script() if problem is None else _cached_vega_script()
    spec = _spec(chart)  # validated once, every data set inlined
    svg: str | None = None
    written = []
    for p, fmt in zip(paths, fmts):
        if p in skipped:
            continue
        with atomic_write(p, "wb" if fmt in ("png", "pdf") else "w") as fh:
            if fmt == "html" and bundle is not None:
                fh.write(_inline_html(spec, bundle))
            elif fmt == "html":
                fh.write(_cdn_html(spec))
            elif fmt == "json":
                import json

                fh.write(json.dumps(spec, indent=2))
            else:
                import vl_convert as vlc

                vl = _vl_version()
                if fmt == "svg" or (fmt == "png" and "svg" in fmts):
                    if svg is None:
                        svg = vlc.vegalite_to_svg(spec, vl_version=vl)
                    # PNG rasterizes the SVG: the layout is computed once for both
                    fh.write(svg if fmt == "svg" else vlc.svg_to_png(svg, scale=1))
                elif fmt == "png":
                    fh.write(vlc.vegalite_to_png(spec, vl_version=vl, scale=1))
                else:
                    fh.write(vlc.vegalite_to_pdf(spec, vl_version=vl, scale=1))
        written.append(p)
    notes = []
    if skipped:
        notes.append(f"skipped {', '.join(p.name for p in skipped)}")
    cdn = [p.name for p, f in zip(paths, fmts) if f == "html" and inline and bundle is None]
    if cdn:
        notes.append(f"{', '.join(cdn)} load(s) the Vega JavaScript from a CDN (needs network "
                     "to display)")
    if notes:
        warnings.warn(ExportSkippedWarning("; ".join(notes), str(problem)), stacklevel=2)
    return written if many else written[0]


def _vl_version() -> str:
    from altair.utils._importers import vl_version_for_vl_convert

    return vl_version_for_vl_convert()


def _spec(chart: alt.TopLevelMixin) -> dict:
    """The chart's Vega-Lite spec as Altair's ``save`` makes it: all data inlined, no limit;
    strings cleaned of what renderers cannot draw (:func:`~genexpy_nb._escape.drawable`: a
    control character in a name aborted the process in vl-convert's SVG renderer)."""
    from .._escape import drawable

    with alt.data_transformers.enable("default"), alt.data_transformers.disable_max_rows():
        return drawable(chart.to_dict(context={"pre_transform": False}))


#: the JavaScript bundle, once read or built in this process
_BUNDLE: dict[str, str] = {}


def _vega_script() -> str:
    """The Vega + Vega-Lite + vega-embed JavaScript, bundled by vl-convert, cached on disk.

    vl-convert bundles the libraries anew in every process (about 10 s of CPU, holding the
    GIL); the bundle depends only on the vl-convert and Vega-Lite versions, so it is kept
    in the user's cache folder (pooch's ``os_cache("genexpy_nb")``) under a name holding
    both versions, and written atomically. Without a writable cache it is rebuilt each time.
    """
    import vl_convert as vlc

    from .._io import atomic_write

    name, cache = _bundle_names()
    cached = _cached_vega_script()
    if cached is not None:
        return cached
    script = _BUNDLE[name] = vlc.javascript_bundle(vl_version=_vl_version())
    if cache is not None:
        try:
            with atomic_write(cache, "w") as fh:
                fh.write(script)
        except OSError:
            pass  # a read-only home: the HTML is still complete, only slower to make
    return script


def _bundle_names() -> tuple[str, Path | None]:
    """(name of the bundle for these versions, its path in the user's cache or None)."""
    import vl_convert as vlc

    name = f"vega-embed-bundle_vl{_vl_version()}_vlconvert{vlc.__version__}.js"
    try:
        import pooch

        return name, Path(pooch.os_cache("genexpy_nb")) / name
    except OSError:
        return name, None


def _cached_vega_script() -> str | None:
    """The Vega JavaScript bundle if this process or the disk cache has it (no engine)."""
    try:
        name, cache = _bundle_names()
    except ImportError:  # no vl-convert
        return None
    if name in _BUNDLE:
        return _BUNDLE[name]
    try:
        if cache is not None and cache.is_file():
            _BUNDLE[name] = cache.read_text(encoding="utf-8")
            return _BUNDLE[name]
    except OSError:
        pass
    return None


def _inline_html(spec: dict, bundle: str | None = None) -> str:
    """A standalone HTML page of a Vega-Lite spec with the Vega JavaScript inlined.

    The same page as Altair's ``chart.save(path, inline=True)`` (its inline template), with
    the JavaScript bundle taken from :func:`_vega_script`'s cache, and the spec embedded
    with :func:`~genexpy_nb._escape.script_json`: a name from the data such as
    ``</script><script>...`` stays a string of the spec instead of ending the element.
    """
    from altair.utils.html import INLINE_HTML_TEMPLATE

    from .._escape import script_json

    return INLINE_HTML_TEMPLATE.render(
        spec=script_json(spec), embed_options=script_json({"mode": "vega-lite"}),
        output_div="vis", vegalite_version=alt.VEGALITE_VERSION,
        vegaembed_script=_vega_script() if bundle is None else bundle,
    )


def _cdn_html(spec: dict) -> str:
    """The HTML page of ``chart.save(path, inline=False)`` (Vega loaded from a CDN), with
    the spec embedded by :func:`~genexpy_nb._escape.script_json` (Altair's own ``json.dumps``
    lets ``</script>`` in a name end the element)."""
    from altair.utils.html import HTML_TEMPLATE

    from .._escape import script_json

    return HTML_TEMPLATE.render(
        spec=script_json(spec), embed_options=script_json({"mode": "vega-lite"}),
        mode="vega-lite", vega_version=alt.VEGA_VERSION, vegalite_version=alt.VEGALITE_VERSION,
        vegaembed_version=alt.VEGAEMBED_VERSION, base_url="https://cdn.jsdelivr.net/npm",
        output_div="vis", fullhtml=True, requirejs=False,
    )
