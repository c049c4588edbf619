import math

import naive
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import ranking_samples

from genexpy_nb import GenexpyInputError
from genexpy_nb.generalizability.kernels import RBF, Borda, Jaccard, Mallows, parse_kernel
from genexpy_nb.study import rank_scores


def test_worked_example_4_1():
    """SPEC A3 / paper Example 4.1."""
    r, s = np.array([0, 0, 0]), np.array([0, 1, 1])
    assert Jaccard(k=1).resolve(3)(r, s) == pytest.approx(1 / 3)
    assert Mallows().resolve(3)(r, s) == pytest.approx(math.exp(-1 / 3))
    assert Mallows().resolve(3)(r, s) == pytest.approx(0.7165, abs=1e-4)
    assert Borda(0).resolve(3)(r, s) == pytest.approx(1.0)


def test_rank_scores_example_and_missing():
    assert rank_scores(np.array([[0.9, 0.7, 0.9]]), higher_is_better=True).tolist() == [[0, 1, 0]]
    assert rank_scores(np.array([[0.9, 0.7, 0.9]]), higher_is_better=False).tolist() == [[1, 0, 1]]
    # missing -> one tier below all observed, shared; for errors too (not "fill with 0")
    x = np.array([[0.2, np.nan, 0.5, np.nan]])
    assert rank_scores(x, higher_is_better=False).tolist() == [[0, 2, 1, 2]]
    assert rank_scores(x, higher_is_better=True).tolist() == [[1, 2, 0, 2]]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.one_of(st.floats(-5, 5), st.just(float("nan"))), min_size=2, max_size=7),
       st.booleans())
def test_rank_scores_matches_naive(row, hib):
    if all(math.isnan(v) for v in row):
        return
    assert rank_scores(np.array([row]), hib)[0].tolist() == naive.rank_row(row, hib)


KERNELS = [
    (lambda na: Borda(1).resolve(na), lambda na: (lambda r, s: naive.borda(r, s, 1, 1 / na))),
    (lambda na: Borda(0, nu=0.3).resolve(na), lambda na: (lambda r, s: naive.borda(r, s, 0, 0.3))),
    (lambda na: Jaccard(1).resolve(na), lambda na: (lambda r, s: naive.jaccard(r, s, 1))),
    (lambda na: Jaccard(2).resolve(na), lambda na: (lambda r, s: naive.jaccard(r, s, 2))),
    (lambda na: Mallows().resolve(na),
     lambda na: (lambda r, s: naive.mallows(r, s, 1 / math.comb(na, 2)))),
    (lambda na: Mallows(nu=0.5).resolve(na), lambda na: (lambda r, s: naive.mallows(r, s, 0.5))),
]


@pytest.mark.parametrize("make,ref", KERNELS)
@settings(max_examples=25, deadline=None)
@given(X=ranking_samples(max_n=6), Y=ranking_samples(max_n=6))
def test_gram_matches_naive(make, ref, X, Y):
    na = X.shape[1]
    Y = Y[:, :na] if Y.shape[1] >= na else np.hstack([Y, np.zeros((len(Y), na - Y.shape[1]),
                                                                     dtype=np.int64)])
    k = make(na)
    np.testing.assert_allclose(k.gram(X, Y), naive.gram(ref(na), X.tolist(), Y.tolist()),
                               rtol=1e-12, atol=1e-12)


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 5), st.integers(1, 6), st.integers(0, 2**31 - 1))
def test_rbf_matches_naive(na, n, seed):
    rng = np.random.default_rng(seed)
    X, Y = rng.random((n, na)), rng.random((n + 1, na))
    k = RBF().resolve(na)
    np.testing.assert_allclose(k.gram(X, Y),
                               naive.gram(lambda a, b: naive.rbf(a, b, 1 / na), X, Y), rtol=1e-12)


@pytest.mark.parametrize("kernel", [Borda(0), Jaccard(1), Jaccard(2), Mallows()])
@settings(max_examples=30, deadline=None)
@given(X=ranking_samples(min_n=1, max_n=10))
def test_gram_symmetric_psd_in_range(kernel, X):
    k = kernel.resolve(X.shape[1])
    G = k.gram(X)
    np.testing.assert_allclose(G, G.T, atol=0)
    assert np.linalg.eigvalsh(G).min() >= -1e-10
    assert G.max() <= k.kappa_sup + 1e-12
    assert G.min() >= k.kappa_inf - 1e-12
    np.testing.assert_allclose(np.diag(G), 1.0)


def test_rbf_psd():
    X = np.random.default_rng(0).random((12, 4))
    G = RBF().resolve(4).gram(X)
    assert np.linalg.eigvalsh(G).min() >= -1e-10


def test_eps_defaults_reduce():
    d = 0.05
    for k in (Borda("x"), Mallows(), RBF()):
        assert k.eps(d) == pytest.approx(math.sqrt(2 * (1 - math.exp(-d))))
    assert Jaccard().eps(d) == pytest.approx(math.sqrt(2 * d))
    # with explicit parameters eps depends on na
    k = Mallows(nu=0.1).resolve(4)
    assert k.eps(d) == pytest.approx(math.sqrt(2 * (1 - math.exp(-0.1 * 6 * d))))
    assert Jaccard().eps([0.05, 0.2]).shape == (2,)


def test_borda_resolve_by_name_and_errors():
    k = Borda("b").resolve(3, ["a", "b", "c"])
    assert k.index == 1 and k.nu == pytest.approx(1 / 3)
    with pytest.raises(GenexpyInputError, match="unknown alternative 'zz'"):
        Borda("zz").resolve(3, ["a", "b", "c"])
    with pytest.raises(GenexpyInputError, match="out of range"):
        Borda(5).resolve(3)
    with pytest.raises(GenexpyInputError, match="best alternative on average"):
        Borda().resolve(3, ["a", "b", "c"])  # a* from the data needs the data


def test_borda_default_is_the_best_alternative_on_average():
    import polars as pl

    from genexpy_nb import GeneralizabilityAnalysis, Study, best_alternative

    # "b" wins 3 of 4 datasets; "c" wins one; "a" is never best
    scores = {"d1": (1, 3, 2), "d2": (1, 3, 2), "d3": (2, 1, 3), "d4": (1, 3, 2)}
    df = pl.DataFrame([{"ds": d, "alt": a, "y": float(v)}
                       for d, vs in scores.items() for a, v in zip("abc", vs)])
    study = Study(df, alternatives="alt", target="y", generalize="ds", higher_is_better=True)
    assert best_alternative(study) == "b"
    # lower is better: "a" has the best mean rank (0.25)
    low = Study(df, alternatives="alt", target="y", generalize="ds", higher_is_better=False)
    assert best_alternative(low) == "a"
    ga = GeneralizabilityAnalysis(study, [Borda()], rep=4, progress=False)
    assert ga.kernels[0].alternative == "b" and ga.kernels[0].index == 1
    assert ga.kernels[0].label == "Borda(a*=b)"
    assert ga.kernel_index(Borda()) == 0


@pytest.mark.parametrize("delta", [0.0, -0.1, 1.5, float("nan"), "x"])
def test_delta_outside_range(delta):
    with pytest.raises(GenexpyInputError, match="delta"):
        Jaccard().eps(delta)


def test_rbf_delta_unbounded_above():
    assert RBF().eps(3.0) > RBF().eps(1.0)


def test_unresolved_kernel_error():
    with pytest.raises(GenexpyInputError, match="resolve"):
        Mallows().gram(np.array([[0, 1]]))


def test_wrong_width_error():
    with pytest.raises(GenexpyInputError, match="alternatives"):
        Mallows().resolve(3).gram(np.array([[0, 1]]))


def test_invalid_parameters():
    with pytest.raises(GenexpyInputError):
        Jaccard(k=0)
    with pytest.raises(GenexpyInputError):
        Mallows(nu=-1).resolve(3)
    with pytest.raises(GenexpyInputError):
        RBF(gamma=float("inf")).resolve(3)


@pytest.mark.parametrize("text,expected", [
    ("jaccard", Jaccard(k=1)),
    ("Jaccard:k=3", Jaccard(k=3)),
    ("borda:OHE", Borda("OHE")),
    ("borda:a=OHE,nu=0.5", Borda("OHE", nu=0.5)),
    ("borda", Borda()),  # a* = the best alternative on average, chosen from the data
    ("mallows:nu=0.01", Mallows(nu=0.01)),
    ("rbf:gamma=2", RBF(gamma=2.0)),
])
def test_parse_kernel(text, expected):
    assert parse_kernel(text) == expected


@pytest.mark.parametrize("text", ["", "cosine", "jaccard:k=x", "borda:a,b", "mallows:gamma=1",
                                  "jaccard:3", "__import__('os')"])
def test_parse_kernel_errors(text):
    with pytest.raises(GenexpyInputError):
        parse_kernel(text)
