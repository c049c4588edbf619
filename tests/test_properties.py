"""Invariants of the analysis, as Hypothesis properties (small examples, a few seconds each).

* the results (rankings, MMD_n distributions, n*) do not depend on the row order of the
  input table, nor on the names of the alternatives (Borda's a* renamed with them);
* rankings are invariant to positive affine rescaling of the target and to float noise,
  and follow their definition (sorted scores, a new tier where the gap exceeds tol);
* kernel (Gram) matrices are positive semi-definite (RBF on scores, the ranking kernels);
* ECE and normalised churn lie in [0, 1].
"""

from __future__ import annotations

import warnings

import naive
import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from strategies import ranking_samples

import genexpy_nb as gx
from genexpy_nb.study import rank_scores, tie_tolerance

FAST = settings(max_examples=10, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# scores on a coarse grid: many exact and near ties once seeds are averaged
GRID = [0.1, 0.2, 0.3, 0.35, 0.6, 0.7, 0.9]


@st.composite
def results_tables(draw):
    """A tidy table: 2 designs x N conditions x na alternatives x seeds, scores on GRID."""
    n_cond = draw(st.integers(8, 11))
    na = draw(st.integers(3, 5))
    n_seed = draw(st.integers(3, 4))
    vals = draw(hnp.arrays(np.float64, (2, n_cond, na, n_seed),
                           elements=st.sampled_from(GRID)))
    # in some conditions alternative a1 gets a0's seed results in another order: equal means
    # in exact arithmetic, which float sums in different orders tell apart (near-ties)
    copy = draw(hnp.arrays(np.bool_, (2, n_cond)))
    vals[:, :, 1][copy] = vals[:, :, 0][copy][:, ::-1]
    vals = vals.ravel()
    rows = {"design": [], "cond": [], "alt": [], "seed": []}
    for d in ("d0", "d1"):
        for c in range(n_cond):
            for a in range(na):
                for s in range(n_seed):
                    rows["design"].append(d)
                    rows["cond"].append(f"c{c}")
                    rows["alt"].append(f"a{a}")
                    rows["seed"].append(s)
    return pl.DataFrame({**rows, "score": vals})


KW = dict(alternatives="alt", target="score", generalize="cond", design="design",
          average_over="seed", higher_is_better=True)


def _analysis(df, borda_alt="a0"):
    study = gx.Study(df, **KW)
    kernels = [gx.Jaccard(k=1), gx.Mallows(), gx.Borda(borda_alt), gx.RBF()]
    ga = gx.GeneralizabilityAnalysis(study, kernels, rep=20, seed=3, progress=False,
                                     n_jobs=1)
    res = ga.nstar([0.9, 0.95], 0.1, ["resample", "approx"]).sort(
        "design", "kernel", "alpha", "method")
    return study, ga, res


def _same_results(a, b, perm=None):
    sa, ga, ra = a
    sb, gb, rb = b
    for x, y in zip(sa.samples(), sb.samples(), strict=True):
        assert x.conditions == y.conditions
        rx, sx = x.rankings, x.scores
        if perm is not None:  # column j of study a is column perm[j] of study b
            ry, sy = y.rankings[:, perm], y.scores[:, perm]
        else:
            ry, sy = y.rankings, y.scores
        np.testing.assert_array_equal(rx, ry)
        np.testing.assert_allclose(sx, sy, rtol=1e-14, atol=1e-15)
    for cid in ga.dists:
        np.testing.assert_allclose(ga.dists[cid].mmd, gb.dists[cid].mmd, rtol=1e-9,
                                   atol=1e-12)
    # The closed-form ("approx") n* of RBF is left out: on scores equal up to float noise it
    # depends on how many distinct float rows there are (0.018 against 0.026 after a row
    # shuffle), a defect of the closed form on noise-level supports, reported, not fixed here.
    keep_a = ~((ra["kernel"] == "rbf") & (ra["method"] == "approx")).to_numpy()
    keep_b = ~((rb["kernel"] == "rbf") & (rb["method"] == "approx")).to_numpy()
    np.testing.assert_allclose(ra["nstar"].to_numpy()[keep_a], rb["nstar"].to_numpy()[keep_b],
                               rtol=1e-7, atol=1e-9, equal_nan=True)


def _analysis_or_error(df, borda_alt="a0"):
    try:
        return _analysis(df, borda_alt)
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"


def _same_outcome(a, b, perm=None):
    if isinstance(a, str) or isinstance(b, str):
        assert a == b
    else:
        _same_results(a, b, perm)


@FAST
@given(df=results_tables(), seed=st.integers(0, 2**31))
def test_results_invariant_to_row_order(df, seed):
    shuffled = df.sample(fraction=1.0, shuffle=True, seed=seed)
    _same_outcome(_analysis_or_error(df), _analysis_or_error(shuffled))


def _huge_nstar_table():
    # found by test_results_invariant_to_row_order: 2 designs x 11 conditions x 5
    # alternatives x 3 seeds, every score 0.2 except six
    n = 2 * 11 * 5 * 3
    vals = np.full(n, 0.2)
    for i, v in {8: 0.9, 24: 0.1, 46: 0.1, 76: 0.1, 150: 0.1, 153: 0.1}.items():
        vals[i] = v
    keys = [(d, f"c{c}", f"a{a}", s) for d in ("d0", "d1") for c in range(11)
            for a in range(5) for s in range(3)]
    return pl.DataFrame(keys, schema=["design", "cond", "alt", "seed"], orient="row"
                        ).with_columns(pl.Series("score", vals))


def test_nstar_frame_survives_a_huge_extrapolated_nstar():
    # the resampled n* of Mallows extrapolates to ~1e27 here: the frame must still be built,
    # and such an estimate must be flagged (reason given, no verdict), never printed as a fact
    study = gx.Study(_huge_nstar_table(), **KW)
    ga = gx.GeneralizabilityAnalysis(study, [gx.Mallows()], rep=20, seed=3, progress=False,
                                     n_jobs=1)
    res = ga.nstar([0.9, 0.95], 0.1, ["resample"])
    assert res.height == 4
    assert res["nstar"].is_finite().all()
    flagged = res.filter(~pl.col("reliable"))
    assert flagged.height > 0      # this noisy table's Mallows fit is not to be trusted
    assert flagged["reason"].is_not_null().all() and flagged["generalizable"].is_null().all()


@FAST
@given(df=results_tables(), seed=st.integers(0, 2**31))
def test_results_invariant_to_relabelling_alternatives(df, seed):
    alts = sorted(df["alt"].unique().to_list())
    rng = np.random.default_rng(seed)
    # new names in a shuffled alphabetical order, so that the column order changes too
    new = [f"z{v}" for v in rng.permutation(len(alts))]
    mapping = dict(zip(alts, new, strict=True))
    renamed = df.with_columns(pl.col("alt").replace_strict(mapping))
    a = _analysis_or_error(df, "a0")
    b = _analysis_or_error(renamed, mapping["a0"])
    if isinstance(a, str) or isinstance(b, str):
        # the same failure either way, up to the alternative's name in the message
        assert isinstance(a, str) and isinstance(b, str) and a.split(":")[0] == b.split(":")[0]
        return
    order_b = list(b[0].alternatives)
    perm = [order_b.index(mapping[x]) for x in a[0].alternatives]
    _same_results(a, b, perm)


# ---- rankings ---------------------------------------------------------------------------
score_rows = hnp.arrays(
    np.float64, st.tuples(st.integers(1, 6), st.integers(2, 7)),
    elements=st.integers(0, 16).map(lambda k: k / 16),
)


@settings(max_examples=60, deadline=None)
@given(x=score_rows, a=st.floats(1e-3, 1e3), b=st.floats(-1e3, 1e3),
       noise=st.integers(0, 2**32), hib=st.booleans())
def test_rankings_invariant_to_affine_rescaling_and_float_noise(x, a, b, noise, hib):
    rng = np.random.default_rng(noise)
    # averaging noise: a few ulps of each score (a row of values that are all noise around
    # 0 is scale-equivalent to a real difference: only atol can merge it, see rank_scores)
    noisy = x + rng.integers(-4, 5, size=x.shape) * np.spacing(np.abs(x)) * (x != 0)
    r0 = rank_scores(x, hib)
    np.testing.assert_array_equal(rank_scores(noisy, hib), r0)
    # the shift keeps the rescaled scores away from 0: a shift that cancels the scores (e.g.
    # 1 - 1.0000000000000002) leaves only the noise, which no relative tolerance can tell
    # from a real difference (the documented limit of rank_scores; only atol merges it)
    b = np.copysign(abs(b) + 2 * a * np.abs(x).max() + 1.0, b)
    np.testing.assert_array_equal(rank_scores(noisy * a + b, hib), r0)
    # a negative scale flips the direction
    np.testing.assert_array_equal(rank_scores(-a * noisy + b, not hib), r0)
    # exact ranking of the clean grid scores agrees (no real difference is merged)
    np.testing.assert_array_equal(rank_scores(x, hib, rtol=0, atol=0), r0)


@settings(max_examples=60, deadline=None)
@given(x=hnp.arrays(np.float64, st.tuples(st.integers(1, 4), st.integers(2, 7)),
                    elements=st.one_of(st.floats(-3, 3), st.just(np.nan),
                                       st.sampled_from([0.1 + 0.2, 0.3, 1.0, 1 + 1e-12]))),
       rtol=st.sampled_from([0.0, 1e-12, 1e-9, 1e-3, 0.1]),
       atol=st.sampled_from([0.0, 1e-15, 1e-6, 0.05]), hib=st.booleans())
def test_rankings_follow_their_definition(x, rtol, atol, hib):
    r = rank_scores(x, hib, rtol=rtol, atol=atol)
    tol = tie_tolerance(x, rtol, atol)
    for i in range(x.shape[0]):
        if np.isnan(x[i]).all():
            assert (r[i] == 0).all()
            continue
        assert r[i].tolist() == naive.rank_row(list(x[i]), hib, rtol, atol)
        obs = ~np.isnan(x[i])
        o = x[i][obs] if not hib else -x[i][obs]
        order = np.argsort(o, kind="stable")
        gaps = np.diff(o[order])
        steps = np.diff(r[i][obs][order])
        # a new tier exactly where the sorted gap exceeds tol; dense tiers
        np.testing.assert_array_equal(steps, (gaps > tol[i]).astype(int))
        assert sorted(set(r[i].tolist())) == list(range(r[i].max() + 1))
        if (~obs).any():
            assert (r[i][~obs] == r[i][obs].max() + 1).all()


def test_rankings_near_tie_examples():
    assert rank_scores([[0.1 + 0.2, 0.3, 0.2]], True).tolist() == [[0, 0, 1]]
    assert rank_scores([[0.1 + 0.2, 0.3, 0.2]], True, rtol=0, atol=0).tolist() == [[0, 1, 2]]


# ---- kernels ------------------------------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(x=hnp.arrays(np.float64, st.tuples(st.integers(1, 12), st.integers(2, 6)),
                    elements=st.floats(-5, 5)),
       gamma=st.floats(1e-3, 50.0))
def test_rbf_gram_is_psd(x, gamma):
    k = gx.RBF(gamma=gamma).resolve(x.shape[1])
    K = k.gram(x)
    np.testing.assert_allclose(K, K.T, atol=1e-14)
    assert np.all((K >= 0) & (K <= 1 + 1e-15))
    assert np.linalg.eigvalsh(K).min() >= -1e-10 * K.shape[0]


@settings(max_examples=40, deadline=None)
@given(sample=ranking_samples(min_n=1, max_n=12, min_na=2, max_na=6), kind=st.integers(0, 2))
def test_ranking_kernel_grams_are_psd(sample, kind):
    na = sample.shape[1]
    k = [gx.Jaccard(k=1), gx.Mallows(), gx.Borda(0)][kind].resolve(na)
    K = k.gram(sample)
    np.testing.assert_allclose(K, K.T, atol=1e-14)
    assert np.linalg.eigvalsh(K).min() >= -1e-10 * K.shape[0]


# ---- seed-variability metrics ----------------------------------------------------------------
gap_mats = hnp.arrays(np.float64, st.tuples(st.integers(1, 5), st.integers(1, 50)),
                      elements=st.one_of(st.floats(-30, 30), st.sampled_from([0.0, 1e-9])))


@settings(max_examples=40, deadline=None)
@given(g=gap_mats, seed=st.integers(0, 1000), bins=st.integers(1, 30))
def test_ece_and_churn_lie_in_unit_interval(g, seed, bins):
    from genexpy_nb.variability import churn, ece, pairwise_churn
    from genexpy_nb.variability._checks import ProbabilityLikeGapsWarning

    y = np.random.default_rng(seed).integers(0, 2, g.shape[1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ProbabilityLikeGapsWarning)
        e = np.atleast_1d(ece(g, y, bins))
    assert e.shape == (g.shape[0],) and np.all((e >= 0) & (e <= 1 + 1e-12))
    pw = pairwise_churn(g, normalize=True)
    assert np.all((pw >= 0) & (pw <= 1)) and np.all(np.diag(pw) == 0)
    c = churn(g[0], g[-1], normalize=True)
    assert 0.0 <= c <= 1.0 and c == pytest.approx(pw[0, -1])


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 40), st.integers(1, 40), st.sampled_from([1, 2, 3, 5, 31, 63, 2**40]),
       st.sampled_from([np.int8, np.int64, np.uint8, bool]), st.integers(0, 2**32 - 1))
def test_unique_rows_is_numpy_unique_on_rows(N, d, top, dtype, seed):
    """The packed unique of rows gives np.unique(axis=0)'s classes, in its order."""
    from genexpy_nb.generalizability.kernels import unique_rows

    rng = np.random.default_rng(seed)
    hi = 2 if dtype is bool else min(top, np.iinfo(dtype).max) + 1
    key = rng.integers(0, hi, size=(N, d)).astype(dtype)
    key[rng.integers(0, N, size=N // 2)] = key[0]  # repeated rows
    first, inv, counts = unique_rows(key)
    _, f0, i0, c0 = np.unique(key, axis=0, return_index=True, return_inverse=True,
                              return_counts=True)
    np.testing.assert_array_equal(first, f0)
    np.testing.assert_array_equal(inv, i0.ravel())
    np.testing.assert_array_equal(counts, c0)
    assert inv.dtype == np.int64
