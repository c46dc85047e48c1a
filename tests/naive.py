"""Plain-numpy twins of the jitted kernels in turs/_core/kernels.py."""
import math

import numpy as np


def grow_candidates(bins, y, rows, lo, hi, n_bins, n_classes, covers):
    """Every one-literal growth of a base rule, by masks (no histograms, no groups).

    Growths that are empty, equal the base, or add no instance outside the rule set are
    left out (their learning speed is undefined).

    ``covers`` (n, K) bool are the current rules' covers. Returns a dict keyed by
    (feature, new_lo, new_hi) with counts, uncovered counts and the data-bit change of
    the instances the rule set already covers (their distribution becomes the union of
    their rules' covers plus the candidate's).
    """
    out = {}
    base = np.zeros(len(y), dtype=bool)
    base[rows] = True
    covered_any = covers.any(axis=1)
    for f in range(bins.shape[0]):
        for t in range(lo[f] + 1, hi[f]):
            for a, e in ((lo[f], t), (t, hi[f])):
                cand = base & (bins[f] >= a) & (bins[f] < e)
                cov = int(cand.sum())
                unc = np.bincount(y[cand & ~covered_any], minlength=n_classes)
                if cov == 0 or cov == len(rows) or unc.sum() == 0:
                    continue
                counts = np.bincount(y[cand], minlength=n_classes)
                delta = 0.0
                for i in np.flatnonzero(cand & covered_any):
                    rules = covers[i]
                    union_old = covers[:, rules].any(axis=1)
                    union_new = union_old | cand
                    p_old = np.mean(y[union_old] == y[i])
                    p_new = np.mean(y[union_new] == y[i])
                    delta += math.log2(p_old) - math.log2(p_new)
                out[(f, a, e)] = (counts, unc, delta)
    return out


def rows_in_interval(bins_col, rows, a, e):
    b = bins_col[rows]
    return rows[(b >= a) & (b < e)]


def score_candidates(counts, counts_unc, delta, model, base_counts, base_counts_unc, else_counts,
                     l_split, lr, nll_covered, regret_rules, model_next, total_m, absolute):
    """Eq. 3.20-3.25 per candidate with plain numpy (twin of _score_candidates)."""
    def nll(e, m):
        e = np.asarray(e, float)
        m = np.asarray(m, float)
        p = m / m.sum()
        return -sum(ei * math.log2(pi) for ei, pi in zip(e, p) if ei > 0)

    out = []
    for i in range(len(counts)):
        cov, cov_unc = int(counts[i].sum()), int(counts_unc[i].sum())
        else_after = else_counts - counts_unc[i]
        common = (nll_covered + nll(else_after, else_after) + regret_rules + lr[int(else_after.sum())]
                  + model_next + model[i])
        t = common + delta[i] + nll(counts_unc[i], counts[i]) + lr[cov]
        r = R = -np.inf
        if cov_unc > 0 and np.isfinite(model[i]):
            ta = common + nll(counts_unc[i], counts_unc[i]) + lr[cov_unc]
            den = 1 if absolute else cov_unc
            r, R = (total_m - t) / den, (total_m - ta) / den
        nb, nbu = int(base_counts.sum()), int(base_counts_unc.sum())
        rest, rest_u = base_counts - counts[i], base_counts_unc - counts_unc[i]
        local = (nll(base_counts, base_counts) + lr[nb]
                 > nll(counts[i], counts[i]) + lr[cov] + nll(rest, rest) + lr[nb - cov] + l_split[i])
        aux = (nll(base_counts_unc, base_counts_unc) + lr[nbu]
               > nll(counts_unc[i], counts_unc[i]) + lr[cov_unc] + nll(rest_u, rest_u) + lr[nbu - cov_unc] + l_split[i])
        out.append((t, r, R, local, aux))
    return out
