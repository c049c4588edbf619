"""Slow, obviously correct twins of every numba kernel (STYLE.md practice 3).

Each function is written as literally as possible from SPEC.md, with Python loops, so that
the fast kernels can be compared against it with ``assert_allclose``.
"""

from __future__ import annotations

import itertools
import math

import numpy as np


# =====================================================================================
# Part A: rankings, kernels, MMD (core)
# =====================================================================================
def rank_row(scores, higher_is_better=True, rtol=1e-9, atol=0.0):
    """Dense tiers of one row, 0 = best; NaN -> one tier below all observed.

    Near-ties: walk the observed scores from best to worst; a new tier starts when the gap
    to the previous score exceeds tol = max(rtol * (max - min), atol, 64 eps max|score|)
    (tol = 0 when rtol = atol = 0: exact equality).
    """
    obs = [float(v) for v in scores if not math.isnan(v)]
    if rtol == 0 and atol == 0:
        tol = 0.0
    else:
        eps = np.finfo(np.float64).eps
        tol = max(rtol * max(obs) - rtol * min(obs), atol, 64 * eps * max(abs(v) for v in obs))
    walk = sorted(obs, reverse=higher_is_better)
    tier_of = {}
    tier = 0
    for i, v in enumerate(walk):
        if i > 0 and abs(v - walk[i - 1]) > tol:
            tier += 1
        tier_of.setdefault(v, tier)
    n_tiers = tier + 1 if obs else 0
    return [n_tiers if math.isnan(v) else tier_of[float(v)] for v in scores]


def borda(r, s, a_star, nu):
    b_r = sum(1 for a in range(len(r)) if r[a] >= r[a_star])
    b_s = sum(1 for a in range(len(s)) if s[a] >= s[a_star])
    return math.exp(-nu * abs(b_r - b_s))


def jaccard(r, s, k):
    tr = {a for a in range(len(r)) if r[a] < k}
    ts = {a for a in range(len(s)) if s[a] < k}
    return len(tr & ts) / len(tr | ts)


def _sign(x):
    return (x > 0) - (x < 0)


def mallows(r, s, nu):
    nd = 0.0
    for i, j in itertools.combinations(range(len(r)), 2):
        nd += abs(_sign(r[i] - r[j]) - _sign(s[i] - s[j])) / 2
    return math.exp(-nu * nd)


def rbf(x, y, gamma):
    return math.exp(-gamma * sum((a - b) ** 2 for a, b in zip(x, y)))


def gram(kfun, X, Y):
    return np.array([[kfun(x, y) for y in Y] for x in X])


def mmd(kfun, x, y):
    """Biased MMD from its definition (SPEC A4)."""
    n, m = len(x), len(y)
    kxx = sum(kfun(a, b) for a in x for b in x) / n**2
    kyy = sum(kfun(a, b) for a in y for b in y) / m**2
    kxy = sum(kfun(a, b) for a in x for b in y) / (n * m)
    return math.sqrt(max(kxx + kyy - 2 * kxy, 0.0))


def approx_eigenvalues(sample, kfun, centring="uniform"):
    """Eigenvalues of H diag(p), computed with a general (non-symmetric) solver."""
    rows = [tuple(r) for r in np.asarray(sample).tolist()]
    sup = sorted(set(rows))
    p = np.array([rows.count(u) for u in sup], dtype=float) / len(rows)
    m = len(sup)
    K = gram(kfun, sup, sup)
    if centring == "uniform":
        C = np.eye(m) - np.ones((m, m)) / m
        H = C @ K @ C
    else:
        C = np.eye(m) - np.outer(np.ones(m), p)
        H = C @ K @ C.T
    return np.sort(np.linalg.eigvals(H @ np.diag(p)).real)




# =====================================================================================
# Part B: seed variability (trimmed KS, alpha-hat)
# =====================================================================================


def naive_ecdf(sample, v):
    """Empirical CDF of ``sample`` at the value ``v``: #{s <= v} / len(sample)."""
    count = 0
    for s in sample:
        if s <= v:
            count += 1
    return count / len(sample)


def naive_interp_ref_cdf(ref, v):
    """Reference eCDF linearly interpolated between its distinct order statistics (SPEC B2.3).

    Knots: each distinct reference value w with height naive_ecdf(ref, w); 0 below the
    smallest value, 1 above the largest.
    """
    knots = sorted(set(float(w) for w in ref))
    if v < knots[0]:
        return 0.0
    if v > knots[-1]:
        return 1.0
    for a in range(len(knots)):
        if knots[a] == v:
            return naive_ecdf(ref, v)
        if knots[a] < v < knots[a + 1]:
            lo = naive_ecdf(ref, knots[a])
            hi = naive_ecdf(ref, knots[a + 1])
            return lo + (hi - lo) * (v - knots[a]) / (knots[a + 1] - knots[a])
    raise AssertionError("unreachable")


def naive_trimmed_ks(x_ref, x_cand, alpha):
    """d_alpha of SPEC B2, literally: O(P^2) loops as in the published reference code."""
    z = sorted([float(v) for v in x_ref] + [float(v) for v in x_cand])
    P = len(z)
    Fn = [naive_ecdf(x_cand, v) for v in z]
    F0 = [naive_interp_ref_cdf(x_ref, v) for v in z]
    Fn_prev = [0.0] + Fn  # Fn_prev[i] = Fn_{i-1} for 1-based i = 1..P at position i-1
    s = 1.0 / (1.0 - alpha)
    U = [F0[i] - s * Fn_prev[i] for i in range(P)]  # U_{i+1}
    D = [F0[i] - s * Fn[i] for i in range(P)]  # D_{i+1}
    h = []
    for j in range(P + 1):
        if j < P:
            up = U[j]
            for i in range(j, P):
                if U[i] > up:
                    up = U[i]
        else:
            up = -alpha * s
        if j == 0:
            lo = 0.0
        else:
            lo = D[0]
            for i in range(j):
                if D[i] < lo:
                    lo = D[i]
        h.append(min(max((up + lo) / 2.0, -alpha * s), 0.0))
    first = max(U[i] - h[i] for i in range(P))
    second = max(h[i + 1] - D[i] for i in range(P))
    return max(first, second)


def naive_dkw_threshold(m, eps):
    """tau = sqrt(log(2/eps)/m) + 1/m (SPEC B3)."""
    return math.sqrt(math.log(2.0 / eps) / m) + 1.0 / m


def naive_alpha_hat_bootstrap(ref, cands, idx, ref_model, ref_pos, grid, eps, amax=0.5):
    """alpha-hat_b of SPEC B3 from pre-drawn indices, with naive_trimmed_ks.

    ``idx`` (B, T): bootstrap indices, I1 = idx[b, :h], I2 = idx[b, h:], h = T // 2;
    the reference sample of bootstrap b is ref[ref_model[b, q], I2[ref_pos[b, q]]], q < h;
    the candidate sample is cands[c, I1]. Returns (alpha_b (B, C), d (B, C, G)).
    """
    B, T = idx.shape
    h = T // 2
    C = cands.shape[0]
    tau = naive_dkw_threshold(h, eps)
    alpha_b = np.empty((B, C))
    d = np.empty((B, C, len(grid)))
    for b in range(B):
        I1 = idx[b, :h]
        I2 = idx[b, h:]
        ref_sample = [ref[ref_model[b, q], I2[ref_pos[b, q]]] for q in range(h)]
        for c in range(C):
            cand_sample = [cands[c, i] for i in I1]
            alpha_b[b, c] = amax
            for g, a in enumerate(grid):
                d[b, c, g] = naive_trimmed_ks(ref_sample, cand_sample, a)
            for g, a in enumerate(grid):
                if d[b, c, g] <= tau:
                    alpha_b[b, c] = a
                    break
    return alpha_b, d


def naive_ece(gaps, labels, bins):
    """ECE with equal-width confidence bins ((k-1)/bins, k/bins], confidence = max softmax."""
    T = len(gaps)
    total = 0.0
    for k in range(bins):
        lo, hi = k / bins, (k + 1) / bins
        members = []
        for g, y in zip(gaps, labels, strict=True):
            conf = 1.0 / (1.0 + math.exp(-abs(g)))  # max softmax prob = sigmoid(|g|)
            in_bin = (lo < conf <= hi) or (k == 0 and conf == 0.0)
            if in_bin:
                members.append((conf, int(g > 0) == int(y)))
        if members:
            acc = sum(ok for _, ok in members) / len(members)
            conf_mean = sum(c for c, _ in members) / len(members)
            total += len(members) / T * abs(acc - conf_mean)
    return total


def naive_churn(gaps_a, gaps_b):
    """Number of test points where the predicted labels (gap > 0) differ."""
    return sum(int(a > 0) != int(b > 0) for a, b in zip(gaps_a, gaps_b, strict=True))



# =====================================================================================
# Part C: significance and distributions over rankings
# =====================================================================================


def rank_rows(x):
    """Midranks (1 = smallest) of the non-NaN entries of each row, with scipy, row by row.

    Returns (ranks with NaN where missing, counts, sum over tie groups of t^3 - t).
    """
    from scipy.stats import rankdata

    x = np.asarray(x, dtype=float)
    n, k = x.shape
    ranks = np.full((n, k), np.nan)
    counts = np.zeros(n, dtype=np.int64)
    ties = np.zeros(n)
    for i in range(n):
        obs = [j for j in range(k) if not math.isnan(x[i, j])]
        counts[i] = len(obs)
        if not obs:
            continue
        r = rankdata([x[i, j] for j in obs], method="average")
        for j, rj in zip(obs, r):
            ranks[i, j] = rj
        values = [x[i, j] for j in obs]
        for v in set(values):
            t = values.count(v)
            ties[i] += t**3 - t
    return ranks, counts, ties


def friedman_statistic(x):
    """Friedman's chi-square with the tie correction, written from Conover (1999) p. 370.

    T1 = (k - 1) * sum_j (R_j - n (k+1)/2)^2 / (A1 - C1), A1 = sum r_ij^2,
    C1 = n k (k+1)^2 / 4 (complete rows, ranks 1..k per row, midranks for ties).
    """
    ranks, _, _ = rank_rows(x)
    n, k = ranks.shape
    a1 = sum(ranks[i, j] ** 2 for i in range(n) for j in range(k))
    c1 = n * k * (k + 1) ** 2 / 4
    total = 0.0
    for j in range(k):
        rj = sum(ranks[i, j] for i in range(n))
        total += (rj - n * (k + 1) / 2) ** 2
    return (k - 1) * total / (a1 - c1)


def skillings_mack_statistic(x):
    """Skillings & Mack (1981), literally: ranks, adjusted sums A, covariance, A' Sigma^- A.

    x: (n blocks, k treatments) with NaN for missing. Blocks with < 2 observations dropped.
    """
    x = np.asarray(x, dtype=float)
    n, k = x.shape
    a = [0.0] * k
    lam = [[0] * k for _ in range(k)]
    ranks, counts, _ = rank_rows(x)
    for i in range(n):
        s = int(counts[i])
        if s < 2:
            continue
        for j in range(k):
            r = ranks[i, j] if not math.isnan(x[i, j]) else (s + 1) / 2  # missing: (s+1)/2
            a[j] += math.sqrt(12.0 / (s + 1)) * (r - (s + 1) / 2)
        for j in range(k):
            for m in range(k):
                if j != m and not math.isnan(x[i, j]) and not math.isnan(x[i, m]):
                    lam[j][m] += 1
    sigma = np.zeros((k, k))
    for j in range(k):
        for m in range(k):
            sigma[j, m] = -lam[j][m] if j != m else sum(lam[j][q] for q in range(k) if q != j)
    av = np.array(a)
    return float(av @ np.linalg.pinv(sigma) @ av)


def corrected_ttest(d, n_train, n_test):
    """Nadeau–Bengio corrected resampled t on differences d: (t, variance), term by term."""
    J = len(d)
    mean = sum(d) / J
    s2 = sum((v - mean) ** 2 for v in d) / (J - 1)
    var = (1 / J + n_test / n_train) * s2
    return mean / math.sqrt(var), var


def enumerate_weak_orders(na):
    """All rankings with ties of na alternatives (dense tiers), lexicographic, by brute force."""
    out = []
    for r in itertools.product(range(na), repeat=na):
        if set(r) == set(range(max(r) + 1)):
            out.append(r)
    return np.array(out, dtype=np.int64).reshape(-1, na)


def stirling2(n, m):
    """Stirling number of the second kind S(n, m), by inclusion-exclusion."""
    total = sum((-1) ** (m - j) * math.comb(m, j) * j**n for j in range(m + 1))
    return total // math.factorial(m)


def fubini_exact(n):
    """Ordered Bell numbers by the explicit sum F(n) = sum_m m! S(n, m)."""
    return sum(math.factorial(m) * stirling2(n, m) for m in range(n + 1))


def sample_weak_orders(na, u, perm):
    """The recursive sampler with exact rational probabilities C(m,j) F(m-j) / F(m).

    Same random inputs as the kernel: u[s, t] chooses the size of tier t, perm[s] orders the
    alternatives. Returns (n, na) int64.
    """
    from fractions import Fraction

    n = u.shape[0]
    out = np.empty((n, na), dtype=np.int64)
    for s in range(n):
        m, pos, tier = na, 0, 0
        while m > 0:
            cum = Fraction(0)
            target = Fraction(float(u[s, tier]))
            size = m
            for j in range(1, m + 1):
                cum += Fraction(math.comb(m, j) * fubini_exact(m - j), fubini_exact(m))
                if target < cum:
                    size = j
                    break
            for p in range(pos, pos + size):
                out[s, perm[s, p]] = tier
            pos += size
            m -= size
            tier += 1
    return out


# =====================================================================================
# Known distributions: true n*, preliminary studies, significance (SPEC A6, A9, A10)
# =====================================================================================
def pmf_mmd_samples(rankings, probs, kfun, n, rep, seed):
    """MMD_n of ``rep`` pairs of i.i.d. samples of size n from the pmf, from the definition.

    The same random draws as genexpy_nb.generalizability.synthetic: generator
    SeedSequence([seed, n]); for
    n <= M (rankings of P) the two samples of every pair as indices (one Generator.choice
    call of shape (rep, 2, n)); for n > M, count vectors (Generator.multinomial, shape
    (rep, 2)) expanded into samples.
    """
    R = np.asarray(rankings)
    p = np.asarray(probs, dtype=float)
    p = p / p.sum()
    M = len(R)
    rng = np.random.default_rng(np.random.SeedSequence([seed, n]))
    if n <= M:
        I2 = rng.choice(M, size=(rep, 2, n), p=p)
        xs = [R[i[0]] for i in I2]
        ys = [R[i[1]] for i in I2]
    else:
        C2 = rng.multinomial(n, p, size=(rep, 2))
        xs = [np.repeat(R, c[0], axis=0) for c in C2]
        ys = [np.repeat(R, c[1], axis=0) for c in C2]
    return np.array([mmd(kfun, x.tolist(), y.tolist()) for x, y in zip(xs, ys, strict=True)])


def true_nstar(rankings, probs, kfun, eps, alpha, rep, seed, n_max):
    """Definition (9) of the paper, literally: scan n = 1, 2, ... for nGen(n, eps) >= alpha."""
    for n in range(1, n_max + 1):
        x = pmf_mmd_samples(rankings, probs, kfun, n, rep, seed)
        if sum(1 for v in x if v <= eps) / len(x) >= alpha:
            return n
    return math.nan


def sample_ngen(sample, kfun, IX, IY, eps):
    """n-generalizability of one sample from given pairs of index samples (SPEC A5)."""
    vals = [mmd(kfun, [sample[i] for i in ix], [sample[i] for i in iy])
            for ix, iy in zip(IX, IY, strict=True)]
    return sum(1 for v in vals if v <= eps) / len(vals)


# =====================================================================================
# Beyond p-values: Bayesian signed-rank, stratified bootstrap of aggregates
# =====================================================================================
def bayesian_signed_rank_samples(d, rope, prior, nsamples, seed, block):
    """Posterior samples of the Bayesian signed-rank test, computed as baycomp does
    (``w^T A w`` with the dense (n+1) x (n+1) matrices of Heaviside steps), from the same
    draws as genexpy_nb: one SFC64 Generator per block of ``block`` samples, seeded from
    ``default_rng(seed)``; weights in sorted order of ``z = (0, d)``, the pseudo-observation's
    a Gamma(prior) draw, the others Exponential(1) draws."""
    z = np.concatenate(([0.0], np.asarray(d, dtype=float)))
    order = np.argsort(z, kind="stable")
    zs = z[order]
    pp = int(np.flatnonzero(order == 0)[0])
    m = zs.size

    def heaviside(a, t):
        return (a > t).astype(float) + 0.5 * (a == t).astype(float)

    sums = zs[:, None] + zs[None, :]
    above = heaviside(sums, 2 * rope)
    below = heaviside(-sums, 2 * rope)
    rng = np.random.default_rng(seed)
    n_blocks = -(-nsamples // block)
    seeds = rng.integers(0, 2**63, size=n_blocks, dtype=np.int64)
    out = np.zeros((nsamples, 3))
    s = 0
    for b in range(n_blocks):
        g = np.random.Generator(np.random.SFC64(int(seeds[b])))
        size = min(block, nsamples - b * block)
        gam = [g.standard_gamma(prior) for _ in range(size)]
        for i in range(size):
            w = np.array([gam[i] if k == pp else g.standard_exponential() for k in range(m)])
            w = w / w.sum()
            right = w @ above @ w
            left = 1.0 - right if rope == 0 else w @ below @ w
            out[s] = (left, 1.0 - left - right if rope > 0 else 0.0, right)
            s += 1
    return out


def naive_iqm(x):
    """Mean of the middle half of all scores: sorted, int(0.25 N) cut from each end."""
    v = sorted(float(a) for a in np.asarray(x).ravel())
    k = int(0.25 * len(v))
    mid = v[k:len(v) - k]
    return sum(mid) / len(mid)


def naive_task_means(x):
    x = np.asarray(x)
    return [sum(float(x[i, t]) for i in range(x.shape[0])) / x.shape[0]
            for t in range(x.shape[1])]


def naive_median_of_means(x):
    m = sorted(naive_task_means(x))
    h = len(m) // 2
    return m[h] if len(m) % 2 else 0.5 * (m[h - 1] + m[h])


def naive_mean_of_means(x):
    m = naive_task_means(x)
    return sum(m) / len(m)


def naive_optimality_gap(x, gamma):
    v = [min(float(a), gamma) for a in np.asarray(x).ravel()]
    return gamma - sum(v) / len(v)


def naive_probability_of_improvement(x, y):
    """Mean over tasks of the share of pairs of runs with X above Y (ties count half)."""
    x, y = np.asarray(x), np.asarray(y)
    ps = []
    for t in range(x.shape[1]):
        s = 0.0
        for a in x[:, t]:
            for b in y[:, t]:
                s += 1.0 if a > b else 0.5 if a == b else 0.0
        ps.append(s / (x.shape[0] * y.shape[0]))
    return sum(ps) / len(ps)


def naive_profile(x, thresholds, per):
    x = np.asarray(x)
    v = naive_task_means(x) if per == "task" else [float(a) for a in x.ravel()]
    return [sum(1 for a in v if a > t) / len(v) for t in thresholds]


def naive_resample(x, idx_b, tasks_b):
    """One stratified-bootstrap replicate: slot (run j, task t) holds run idx_b[t, j] of
    task tasks_b[t]."""
    x = np.asarray(x)
    n, T = x.shape
    return np.array([[x[idx_b[t, j], tasks_b[t]] for t in range(T)] for j in range(n)])


def naive_percentile_interval(est, values, c, method="percentile"):
    lo, hi = np.percentile(values, [100 * (1 - c) / 2, 100 * (1 - (1 - c) / 2)])
    if method == "basic":
        lo, hi = 2 * est - hi, 2 * est - lo
    return lo, hi


def spread(X):
    """RBF's unit (SPEC A13), literally: the root of half the median, over the pairs of
    rows, of the mean squared difference of the two rows."""
    import statistics

    d = [sum((a - b) ** 2 for a, b in zip(x, y)) / len(x)
         for x, y in itertools.combinations([list(r) for r in X], 2)]
    med = statistics.median(d) if d else 0.0
    if med > 0:
        return math.sqrt(med / 2)
    mean = sum(d) / len(d) if d else 0.0
    return math.sqrt(mean / 2) if mean > 0 else 1.0


def rank_probabilities(tiers, rep, seed):
    """Place probabilities by the definition: per replicate, draw N conditions with
    replacement (``default_rng(seed).integers(0, N, (rep, N))``, one call), average the
    midranks (from dense tiers, 0 = best) of the drawn conditions, sort, and give tied
    alternatives equal shares of their places. Returns an (na, na) array."""
    t = [list(map(int, r)) for r in np.asarray(tiers)]
    n, na = len(t), len(t[0])
    mid = [[sum(1 for b in row if b < row[a]) + (sum(1 for b in row if b == row[a]) + 1) / 2
            for a in range(na)] for row in t]
    draws = np.random.default_rng(seed).integers(0, n, size=(rep, n))
    out = [[0.0] * na for _ in range(na)]
    for d in draws:
        means = [sum(mid[int(i)][a] for i in d) / n for a in range(na)]
        for a in range(na):
            better = sum(1 for b in range(na) if means[b] < means[a])
            tied = sum(1 for b in range(na) if means[b] == means[a])
            for place in range(better, better + tied):
                out[a][place] += 1 / tied / rep
    return np.array(out)


def win_tie_loss(x, higher_is_better, tie_tolerance=0.0):
    """Win / tie / loss of every ordered pair, with loops and one scipy Wilcoxon per pair.

    Returns ``{(i, j): (wins, ties, losses, n, mean_difference, raw p-value)}``; a pair whose
    shared differences are all zero has p = 1 (no evidence of any difference).
    """
    from scipy import stats

    n, k = x.shape
    out = {}
    for i, j in itertools.permutations(range(k), 2):
        d = [x[r, i] - x[r, j] for r in range(n)
             if not (math.isnan(x[r, i]) or math.isnan(x[r, j]))]
        wins = ties = losses = 0
        for v in d:
            if abs(v) <= tie_tolerance:
                ties += 1
            elif (v > 0) == higher_is_better:
                wins += 1
            else:
                losses += 1
        p = 1.0 if not any(v != 0 for v in d) else float(stats.wilcoxon(d).pvalue)
        out[i, j] = (wins, ties, losses, len(d), sum(d) / len(d), p)
    return out


# =====================================================================================
# the plan of gx.conclusions (SPEC A15)
# =====================================================================================
def holm_rejections(pvalues, alpha):
    """Holm's step-down written out: sort, reject while p_(i) < alpha / (m - i), stop."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda q: pvalues[q])
    out = [False] * m
    for rank, q in enumerate(order):
        if pvalues[q] < alpha / (m - rank):
            out[q] = True
        else:
            break
    return out


def holm_rows(abs_t, crit):
    """The Holm kernel's twin on statistics: sort each row, walk the critical values."""
    rows, P = abs_t.shape
    out = np.zeros((rows, P), dtype=bool)
    for r in range(rows):
        v = [0.0 if math.isnan(x) else float(x) for x in abs_t[r]]
        order = sorted(range(P), key=lambda q: -v[q])
        for rank, q in enumerate(order):
            if v[q] > crit[rank]:
                out[r, q] = True
            else:
                break
        # equal statistics share the verdict of the first of them (p-values tie)
        for q in range(P):
            if not out[r, q] and any(out[r, s] and v[s] == v[q] for s in range(P)):
                out[r, q] = True
    return out


def sequential_paths(pool, pi, pj, scale, state, n0, active, idx, grid, crit, ptr, cq,
                     csign, allow, cap, prior_var, min_var):
    """The sequential kernel's twin: every draw, step and pair in Python, written from the
    bets of Waudby-Smith & Ramdas (aGRAPA, clipped) and Holm on p = 2 / max capital."""
    draws, kmax = idx.shape
    P = len(pi)
    out = np.zeros((draws, len(grid), len(allow)), dtype=bool)
    for r in range(draws):
        s1, s2, lp, lm, mp, mm = (list(map(float, state[c])) for c in range(6))
        n = n0
        for step in range(kmax):
            row = pool[idx[r, step]]
            for q in range(P):
                if not active[q]:
                    continue
                x = (row[pi[q]] - row[pj[q]]) * scale
                m = s1[q] / (n + 1.0)
                v = max((prior_var + s2[q]) / (n + 1.0) - m * m, min_var)
                g = m / (v + m * m)
                if g > 0:
                    lp[q] += math.log1p(min(g, cap) * x)
                    mp[q] = max(mp[q], lp[q])
                elif g < 0:
                    lm[q] += math.log1p(-min(-g, cap) * x)
                    mm[q] = max(mm[q], lm[q])
                s1[q] += x
                s2[q] += x * x
            n += 1
            if step + 1 in list(grid):
                gi = list(grid).index(step + 1)
                score = [max(mp[q], mm[q]) for q in range(P)]
                rej = holm_rows(np.array([score]), crit)[0]
                for c in range(len(allow)):
                    bad = 0
                    for e in range(ptr[c], ptr[c + 1]):
                        q = cq[e]
                        s = 1 if mp[q] > mm[q] else (-1 if mm[q] > mp[q] else 0)
                        bad += not (rej[q] and s == csign[e])
                    out[r, gi, c] = bad <= allow[c]
    return out
