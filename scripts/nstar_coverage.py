"""Coverage of intervals for n* by simulation (SPEC A9, A11; the paper's Section 5.3 setting).

For each setting (na alternatives, N preliminary results, kernel), ``--studies`` preliminary
studies of N rankings are drawn i.i.d. from the uniform distribution over the rankings with
ties of na alternatives; on each the package's estimate n̂* is computed and several
candidate intervals are built from resamplings of the N conditions. The true n* of the
distribution comes from :func:`genexpy_nb.generalizability.synthetic.true_nstar_frame` (Monte
Carlo, many
pairs). An interval covers when the true n* lies in ``[ceil(lo), ceil(hi)]`` (n* is an
integer; the estimate is the continuous crossing of the fitted power law, whose ceiling is
the first integer n reaching alpha*).

Candidates (all on the log scale of n*):

* ``boot_pct``: percentile interval of the estimate on B bootstrap resamples (N conditions
  drawn with replacement), each re-estimated exactly as the study (grid, rep, joint fit);
* ``boot_basic``: the basic (reflected) interval from the same resamples,
  ``[2 l - Q_hi, 2 l - Q_lo]``;
* ``boot_bc``: bias-corrected percentile interval (Efron's BC) from the same resamples;
* ``sub_half``: subsampling without replacement of m = N/2 conditions (half-sampling),
  deviations from the full estimate rescaled by ``sqrt(m / (N - m))`` (= 1);
* ``cf_pct`` / ``cf_basic``: parametric: the relative spread of the closed-form n*
  (paper Appendix C, p-weighted centring) over bootstrap weights of the conditions, carried
  over to the resampled estimate (percentile / reflected).

Writes one row per (setting, study, alpha, delta) with the estimate, its fit, its
reliability and every candidate's interval to ``--raw`` (a parquet file, not shipped) and the
coverage table to ``--out``.

Run from the repository root (about 40 minutes on one core):

    NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH=. python scripts/nstar_coverage.py \\
        --studies 200 --out data/nstar_coverage.parquet
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl
from scipy.stats import norm

from genexpy_nb import Borda, Jaccard, Mallows
from genexpy_nb._numba import nstar as _nb
from genexpy_nb._validation import child_seed
from genexpy_nb.generalizability import INTERVAL_B, SLOPE_ALPHAS, default_grid, power_law_fit
from genexpy_nb.generalizability.distributions import uniform_distribution
from genexpy_nb.generalizability.fit import _trust_reason
from genexpy_nb.generalizability.interval import _closed_form_spread, _interval, prediction_se
from genexpy_nb.generalizability.synthetic import _resolve_kernels, true_nstar_frame

THRESHOLDS = ((0.95, 0.05), (0.9, 0.1), (0.99, 0.05))
CANDIDATES = ("package", "boot_pct", "boot_basic", "boot_bc", "sub_half", "cf_pct", "cf_basic",
              "fit_se")


def qindex(alphas, rep):
    return np.ceil(np.asarray(alphas) * (rep - 1)).astype(np.int64)


def log_nstar(ns, Q, a_rows, eps):
    """log n* for Q (..., k, A) at rows a_rows and thresholds eps: (..., len(a_rows)).

    Degenerate quantiles (0) give n* = 1 (log 0); a slope >= 0 gives +inf.
    """
    Qt = np.swapaxes(Q, -1, -2)  # (..., A, k)
    b1, b0, r2 = power_law_fit(ns, Qt, np.ones(Qt.shape[-2], dtype=bool))
    out = b1[..., None] * np.log(eps)[None] + b0[..., a_rows] if b1.ndim else \
        b1 * np.log(eps) + b0[a_rows]
    zero = (Qt[..., a_rows, :] <= 0).any(axis=-1)
    out = np.where(zero, 0.0, out)
    bad = ~np.isfinite(b1) | (b1 >= 0)
    out = np.where(np.broadcast_to(bad[..., None] if np.ndim(bad) else bad, out.shape)
                   & ~zero, np.inf, out)
    return out, b1, b0, r2


def pred_se(ns, Q, a_rows, eps):
    """OLS standard error of the predicted log n* of the joint fit, at each threshold."""
    Qt = Q.T  # (A, k)
    if (Qt <= 0).any():
        return np.full(len(a_rows), np.nan)
    x = np.log(Qt)
    y = np.log(ns.astype(float))
    b1, b0, _ = power_law_fit(ns, Qt)
    A, k = x.shape
    res = y[None] - (b1 * x + b0[:, None])
    dof = A * k - A - 1
    if dof <= 0 or not np.isfinite(b1):
        return np.full(len(a_rows), np.nan)
    s2 = (res ** 2).sum() / dof
    xm = x.mean(1)
    sxx = ((x - xm[:, None]) ** 2).sum()
    x0 = np.log(eps)
    # var(b0_a + b1 x0) with b0_a = ybar - b1 xbar_a: s2 (1/k + (x0 - xbar_a)^2 / Sxx)
    return np.sqrt(s2 * (1.0 / k + (x0 - xm[a_rows]) ** 2 / sxx)) * 1.0


def cf_log_nstar(K, w, alpha_z):
    """log of the closed-form n* (up to -2 log eps) for weights w (B, m): (B, len(alpha))."""
    B, m = w.shape
    # p-weighted centring H = C_p K C_p', eigenvalues of diag(sqrt p) H diag(sqrt p)
    Kw = K[None] @ w[..., None]  # (B, m, 1)
    wKw = (w[:, None, :] @ Kw)[:, 0, 0]  # (B,)
    H = K[None] - Kw - np.swapaxes(Kw, 1, 2) + wKw[:, None, None]
    sq = np.sqrt(w)
    lam = np.linalg.eigvalsh(sq[:, :, None] * H * sq[:, None, :])
    L1 = lam.sum(-1)
    s2 = (lam ** 2).sum(-1)
    L2 = 3 * s2 + (L1 ** 2 - s2)
    with np.errstate(divide="ignore", invalid="ignore"):
        a = (L2 - L1 ** 2) / L1
        d = 2 * L1 ** 2 / (L2 - L1 ** 2)
        C = np.sqrt(2 / (9 * d))[:, None] * alpha_z[None] + 1 - 2 / (9 * d)[:, None]
        out = 3 * np.log(C) + np.log(a * d)[:, None]
    return out


def interval(lhat, lb, level, kind, tau=1.0):
    """Candidate interval on the log scale from replicate values lb (B,)."""
    a = (1 - level) / 2
    lb = lb[~np.isnan(lb)]
    if lb.size == 0 or not np.isfinite(lhat):
        return math.nan, math.nan
    if kind == "pct":
        return np.quantile(lb, a), np.quantile(lb, 1 - a)
    if kind == "basic":
        return 2 * lhat - np.quantile(lb, 1 - a), 2 * lhat - np.quantile(lb, a)
    if kind == "bc":
        p0 = (np.mean(lb < lhat) + 0.5 * np.mean(lb == lhat))
        p0 = min(max(p0, 1 / (lb.size + 1)), lb.size / (lb.size + 1))
        z0 = norm.ppf(p0)
        return (np.quantile(lb, norm.cdf(2 * z0 + norm.ppf(a))),
                np.quantile(lb, norm.cdf(2 * z0 + norm.ppf(1 - a))))
    if kind == "shift_pct":  # lb are deviations
        return lhat + np.quantile(lb, a), lhat + np.quantile(lb, 1 - a)
    if kind == "shift_basic":
        return lhat - tau * np.quantile(lb, 1 - a), lhat - tau * np.quantile(lb, a)
    raise ValueError(kind)


def run_setting(na, N, kernels, R, p, truth, studies, B, rep, level, seed, boot_max_N,
                candidates=CANDIDATES):
    ks = _resolve_kernels(kernels, na)
    full = []
    for k in ks:
        first, inv_p, _ = k.support(R)
        full.append((np.ascontiguousarray(k.gram(R[first])), inv_p))
    ns = default_grid(N)
    msub = N // 2
    ns_sub = default_grid(msub)
    alphas = np.asarray(SLOPE_ALPHAS)
    qidx = qindex(alphas, rep)
    ths = [(a, d) for a, d in THRESHOLDS]
    a_rows = np.array([int(np.flatnonzero(np.isclose(alphas, a))[0]) for a, _ in ths])
    from genexpy_nb.generalizability import lin_z
    zs = np.array([lin_z(float(a)) for a, _ in ths])
    z = norm.ppf(0.5 + level / 2)
    rows = []
    for s in range(studies):
        rng = child_seed(seed, na, N, s)
        idx = rng.choice(R.shape[0], size=N, p=p)
        for k, (Kp, inv_p) in zip(ks, full, strict=True):
            u, inv = np.unique(inv_p[idx], return_inverse=True)
            K = np.ascontiguousarray(Kp[np.ix_(u, u)])
            inv = inv.ravel().astype(np.int64)
            sd = int(rng.integers(2**62))
            eps = np.array([float(k.eps(d)) for _, d in ths])
            base = dict(na=na, N=N, kernel=k.name, study=s)
            if ns.size >= 2:
                Qh = _nb.resampled_quantiles(K, inv, ns, rep, qidx, 1, 0, 0, sd)[0]
                lh, b1h, b0h, r2h = log_nstar(ns, Qh, a_rows, eps)
                lh = lh[0] if lh.ndim > 1 else lh
                se = pred_se(ns, Qh, a_rows, eps)
                if N <= boot_max_N and any(c.startswith("boot") for c in candidates):
                    Qb = _nb.resampled_quantiles(K, inv, ns, rep, qidx, B, 1, 0, sd + 1)
                    lb = log_nstar(ns, Qb, a_rows, eps)[0]
                else:
                    lb = np.full((B, len(ths)), np.nan)
                # the package's interval (what analyze reports)
                Qt = Qh.T
                rows_ = np.ones(len(alphas), dtype=bool)
                b1p, b0p, _ = power_law_fit(ns, Qt, rows_)
                sep = prediction_se(ns, Qt, rows_, float(b1p), b0p, np.log(eps))
                sep = sep[a_rows, np.arange(len(ths))]
            else:
                lh = np.full(len(ths), np.nan)
                b1h, r2h = math.nan, np.full(len(alphas), np.nan)
                lb = np.full((B, len(ths)), np.nan)
                se = np.full(len(ths), np.nan)
                sep = np.full(len(ths), np.nan)
            if ns_sub.size >= 2 and N <= boot_max_N and "sub_half" in candidates:
                Qs = _nb.resampled_quantiles(K, inv, ns_sub, rep, qidx, B, 2, msub, sd + 2)
                ls = log_nstar(ns_sub, Qs, a_rows, eps)[0]
            else:
                ls = np.full((B, len(ths)), np.nan)
            # closed form on bootstrap weights of the classes
            cnt = np.bincount(inv, minlength=K.shape[0]).astype(float)
            w0 = cnt / cnt.sum()
            if any(c.startswith("cf") for c in candidates):
                W = rng.multinomial(N, w0, size=B) / N
                lc0 = cf_log_nstar(K, w0[None], zs)[0]
                lc = cf_log_nstar(K, W, zs)
            else:
                lc0 = np.full(len(ths), np.nan)
                lc = np.full((B, len(ths)), np.nan)
            devp = _closed_form_spread(K, cnt, alphas, INTERVAL_B, rng)[:, a_rows]
            for t, (a, d) in enumerate(ths):
                tr = truth[(k.name, a, d)]
                row = dict(base, alpha=a, delta=d, nstar_true=tr[0], nstar_true_lo=tr[1],
                           nstar_true_hi=tr[2], nstar=math.exp(lh[t]) if np.isfinite(lh[t])
                           else (math.inf if lh[t] == np.inf else math.nan),
                           b1=float(b1h), r2=float(r2h[a_rows[t]]) if ns.size >= 2 else math.nan,
                           npts=int(ns.size),
                           reason=_trust_reason(int(ns.size), float(b1h),
                                                float(r2h[a_rows[t]]) if ns.size >= 2
                                                else math.nan, None))
                lbt = lb[:, t].copy()
                ivs = {
                    "boot_pct": interval(lh[t], lbt, level, "pct"),
                    "boot_basic": interval(lh[t], lbt, level, "basic"),
                    "boot_bc": interval(lh[t], lbt, level, "bc"),
                    "sub_half": interval(lh[t], ls[:, t] - lh[t], level, "shift_basic",
                                         math.sqrt(msub / (N - msub))),
                    "cf_pct": interval(lh[t], lc[:, t] - lc0[t], level, "shift_pct"),
                    "cf_basic": interval(lh[t], lc[:, t] - lc0[t], level, "shift_basic"),
                    "fit_se": (lh[t] - z * se[t], lh[t] + z * se[t]),
                }
                plo, phi = _interval(np.array([[lh[t]]]), devp[:, [t]],
                                     np.array([[sep[t]]]), level)
                plo = float(plo[0, 0])
                if np.isfinite(lh[t]):
                    plo = max(plo, min(0.0, lh[t]))  # as analyze: lo >= min(1, n*)
                ivs["package"] = (plo, float(phi[0, 0]))
                for name, (lo, hi) in ivs.items():
                    if name not in candidates:
                        continue
                    row[f"{name}_lo"] = float(np.exp(lo)) if np.isfinite(lo) else (
                        math.inf if lo == np.inf else math.nan)
                    row[f"{name}_hi"] = float(np.exp(hi)) if np.isfinite(hi) else (
                        math.inf if hi == np.inf else math.nan)
                rows.append(row)
    return rows


def coverage_table(raw: pl.DataFrame, candidates=CANDIDATES) -> pl.DataFrame:
    """Coverage, Monte Carlo standard error and median width per setting and candidate."""
    # the reliability flags with the package's current thresholds
    raw = raw.with_columns(pl.struct("npts", "b1", "r2").map_elements(
        lambda r: _trust_reason(int(r["npts"]), float(r["b1"]), float(r["r2"]), None),
        return_dtype=pl.String).alias("reason"))
    parts = []
    for c in candidates:
        lo, hi = pl.col(f"{c}_lo"), pl.col(f"{c}_hi")
        cov = ((lo.ceil() <= pl.col("nstar_true")) & (pl.col("nstar_true") <= hi.ceil()))
        parts.append(raw.with_columns(pl.lit(c).alias("method"), cov.fill_null(False)
                                      .alias("covered"), (hi / lo).alias("ratio")))
    long = pl.concat([p.select("na", "N", "kernel", "alpha", "delta", "method", "covered",
                               "ratio", "reason", pl.col(f"{c}_lo").is_nan().alias("absent"))
                      for c, p in zip(candidates, parts, strict=True)])
    # a candidate not run for a setting (or impossible there: half of N = 10 has no grid)
    # gives no row; otherwise an interval it could not build counts as not covering
    long = long.filter(~pl.col("absent").all().over("na", "N", "kernel", "alpha", "delta",
                                                    "method"))
    fitq = (raw.group_by("na", "N", "kernel", "alpha", "delta")
            .agg(pl.col("b1").filter(pl.col("b1").is_finite()).quantile(0.01).alias("b1_p01"),
                 pl.col("b1").filter(pl.col("b1").is_finite()).quantile(0.99).alias("b1_p99"),
                 pl.col("r2").filter(pl.col("r2").is_finite()).quantile(0.01).alias("r2_p01"),
                 (pl.col("nstar") / pl.col("nstar_true")).log().median().exp()
                 .alias("median_ratio_to_true"),
                 pl.col("nstar_true").first()))
    return (long.group_by("na", "N", "kernel", "alpha", "delta", "method")
            .agg(pl.len().alias("studies"), pl.col("covered").mean().alias("coverage"),
                 pl.col("ratio").filter(~pl.col("absent")).median()
                 .alias("median_hi_over_lo"),
                 pl.col("reason").is_null().mean().alias("reliable_share"),
                 pl.col("covered").filter(pl.col("reason").is_null()).mean()
                 .alias("coverage_reliable"))
            .with_columns((pl.col("coverage") * (1 - pl.col("coverage")) / pl.col("studies"))
                          .sqrt().alias("se"))
            .join(fitq, on=["na", "N", "kernel", "alpha", "delta"], how="left")
            .sort("alpha", "delta", "method", "kernel", "na", "N"))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--studies", type=int, default=200)
    ap.add_argument("--nas", type=int, nargs="+", default=[3, 4, 5])
    ap.add_argument("--Ns", type=int, nargs="+", default=[10, 20, 40, 80])
    ap.add_argument("--B", type=int, default=100,
                    help="resamples of the bootstrap / subsampling candidates")
    ap.add_argument("--boot-max-N", type=int, default=40,
                    help="run the (costly) bootstrap and subsampling candidates up to this N")
    ap.add_argument("--rep", type=int, default=200)
    ap.add_argument("--level", type=float, default=0.9)
    ap.add_argument("--true-rep", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--candidates", nargs="+", default=list(CANDIDATES), choices=CANDIDATES)
    ap.add_argument("--raw", default="/tmp/nstar_coverage_raw.parquet")
    ap.add_argument("--out", default=None)
    ap.add_argument("--combine", nargs="+", default=None,
                    help="only build the table from these raw files (runs split by na)")
    args = ap.parse_args(argv)
    if args.combine:
        raw = pl.concat([pl.read_parquet(f) for f in args.combine], how="diagonal_relaxed")
        write_table(raw, args)
        return
    kernels = [Jaccard(k=1), Mallows(), Borda(0)]
    rows = []
    t0 = time.perf_counter()
    for na in args.nas:
        R, p = uniform_distribution(na)
        tf = true_nstar_frame(R, p, kernels, alphas=sorted({a for a, _ in THRESHOLDS}),
                              deltas=sorted({d for _, d in THRESHOLDS}), rep=args.true_rep,
                              seed=args.seed, progress=False)
        truth = {(r["kernel"], r["alpha"], r["delta"]): (r["nstar"], r["nstar_low"],
                                                        r["nstar_high"])
                 for r in tf.iter_rows(named=True)}
        for N in args.Ns:
            t = time.perf_counter()
            rows += run_setting(na, N, kernels, R, p, truth, args.studies, args.B, args.rep,
                                args.level, args.seed, args.boot_max_N, args.candidates)
            print(f"na={na} N={N}: {time.perf_counter() - t:.1f} s", file=sys.stderr,
                  flush=True)
    raw = pl.DataFrame(rows, infer_schema_length=None)
    raw.write_parquet(args.raw)
    print(f"total {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    write_table(raw, args)


def write_table(raw: pl.DataFrame, args) -> None:
    cands = [c for c in args.candidates if f"{c}_lo" in raw.columns]
    table = coverage_table(raw, cands)
    with pl.Config(tbl_rows=400, tbl_cols=20, tbl_width_chars=200):
        print(table.filter(pl.col("alpha") == 0.95, pl.col("delta") == 0.05)
              .select("na", "N", "kernel", "method", "coverage", "se", "median_hi_over_lo",
                      "coverage_reliable", "reliable_share"))
    if args.out:
        tmp = Path(args.out).with_suffix(".tmp")
        table.write_parquet(tmp)
        os.replace(tmp, args.out)


if __name__ == "__main__":
    main()
