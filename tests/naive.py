"""Plain-numpy twins of the jitted kernels in turs/_core/."""
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
                     l_split, lr, nll_covered, regret_rules, model_next, total_m, absolute, model_score=None):
    """Eq. 3.20-3.25 per candidate with plain numpy (twin of _score_candidates); ``r`` and
    ``R`` use ``model_score`` (default ``model``). Per candidate: ``(L(D, M + S'), r, R, local
    test, auxiliary local test, bits with the split, the same on S \\ M, bits without the split,
    the same on S \\ M)``."""
    model_score = model if model_score is None else model_score
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
                  + model_next)
        data = delta[i] + nll(counts_unc[i], counts[i]) + lr[cov]
        t = common + model[i] + data
        r = R = -np.inf
        if cov_unc > 0 and np.isfinite(model[i]):
            ta = common + model_score[i] + nll(counts_unc[i], counts_unc[i]) + lr[cov_unc]
            den = 1 if absolute else cov_unc
            r, R = (total_m - (common + model_score[i] + data)) / den, (total_m - ta) / den
        nb, nbu = int(base_counts.sum()), int(base_counts_unc.sum())
        rest, rest_u = base_counts - counts[i], base_counts_unc - counts_unc[i]
        # Eq. 3.22 / 3.25: the base as one local model against the split into S' and S \ S'
        without = nll(base_counts, base_counts) + lr[nb]
        with_split = nll(counts[i], counts[i]) + lr[cov] + nll(rest, rest) + lr[nb - cov] + l_split[i]
        without_unc = nll(base_counts_unc, base_counts_unc) + lr[nbu]
        with_unc = (nll(counts_unc[i], counts_unc[i]) + lr[cov_unc] + nll(rest_u, rest_u) + lr[nbu - cov_unc]
                    + l_split[i])
        out.append((t, r, R, without > with_split, without_unc > with_unc, with_split, with_unc, without,
                    without_unc))
    return out


def localize_groups(group_of, rows):
    """Twin of _localize_groups: present groups (sorted) and each row's local index."""
    g = group_of[rows]
    present = np.unique(g[g >= 0])
    return present, np.where(g >= 0, np.searchsorted(present, g), -1)


def local_subsets(sub_ptr, sub_idx, sub_sign, present):
    """Twin of _local_subsets, with np.unique's inverse as the renumbering."""
    lists = [np.arange(sub_ptr[g], sub_ptr[g + 1]) for g in present]
    ptr = np.concatenate([[0], np.cumsum([len(x) for x in lists])])
    pos = np.concatenate(lists) if lists else np.zeros(0, int)
    uniq, inv = np.unique(sub_idx[pos], return_inverse=True)
    return ptr, inv, sub_sign[pos], len(uniq)


def local_neighbours(nbr_ptr, nbr_idx, nbr_w, present):
    """Twin of _local_neighbours: each present group's pairs that are present, renumbered,
    with their weights."""
    where = {int(g): p for p, g in enumerate(present)}
    lists = [[(where[int(j)], nbr_w[s]) for s, j in enumerate(nbr_idx[nbr_ptr[g]:nbr_ptr[g + 1]], nbr_ptr[g])
              if int(j) in where] for g in present]
    flat = sum(lists, [])
    return (np.concatenate([[0], np.cumsum([len(x) for x in lists])]), np.array([j for j, _ in flat], dtype=int),
            np.array([w for _, w in flat], dtype=float))


def best_per_bucket(score, bucket, eligible, n_buckets):
    """Twin of _best_per_bucket: sort by score (stable), keep the first of each bucket."""
    idx = np.flatnonzero(eligible & np.isfinite(score))
    order = idx[np.argsort(-score[idx], kind="stable")]
    _, first = np.unique(bucket[order], return_index=True)
    return order[np.sort(first)]


def turs2_buckets(cov, cov_unc, n_base, n_unc, width, min_split):
    """Twin of the authors' buckets in _finish_growths: ``searchsorted`` of the coverage ratios
    in ``linspace(0, 1, W + 1)[1:]``, and which growths keep ``min_split`` uncovered instances
    on each side of their cut. Returns ``(bucket, aux_bucket, splits_uncovered)``."""
    edges = np.linspace(0, 1, width + 1)[1:]
    bucket = np.searchsorted(edges, np.asarray(cov) / n_base)
    if n_unc == 0:
        return bucket, np.full(len(cov), -1), np.zeros(len(cov), dtype=bool)
    cov_unc = np.asarray(cov_unc)
    return (bucket, np.searchsorted(edges, cov_unc / n_unc),
            (cov_unc >= min_split) & (n_unc - cov_unc >= min_split))

def best_per_bucket_first_cover(score, bucket, eligible, n_buckets, feat, lo, hi, bins, rows):
    """Twin of _bucket_winners_first_cover (ordered by score here): replay the authors' bucket updates with each
    candidate's cover as a set of rows; the result ordered by score (stable)."""
    occupant = {}
    for i in range(len(score)):
        if not eligible[i] or not np.isfinite(score[i]):
            continue
        cover = frozenset(rows[(bins[feat[i], rows] >= lo[i]) & (bins[feat[i], rows] < hi[i])].tolist())
        b = int(bucket[i])
        if b not in occupant:
            occupant[b] = (i, cover)
        elif cover != occupant[b][1] and score[i] > score[occupant[b][0]]:
            occupant[b] = (i, cover)
    chosen = np.sort([i for i, _ in occupant.values()]).astype(np.int64)
    return chosen[np.argsort(-score[chosen], kind="stable")]

def finish_growths(valid, new_lo, new_hi, counts, counts_unc, delta, k_split, bins, n_bins, binary,
                   lits, base_vo, base_k_values, header_new, header_old, turs2, log2_d, base_counts,
                   base_counts_unc, else_counts, lr, nll_covered, regret_rules, model_next, total_m,
                   absolute, W, refinement_model_bits, split=(np.zeros(0), 0.0), placeholder=False):
    """Twin of _finish_growths with numpy and score_candidates above; refinements come from
    ``refinement_model_bits`` (the kernel, checked against the public code length elsewhere).
    ``placeholder``: the scores use :func:`placeholder_model_bits` for refinements."""
    d = len(n_bins)
    idx = np.flatnonzero(valid)
    feat = idx // (len(valid) // d)
    fb = (0.0, 0.0) if turs2 else (1.0, 2.0)
    lk = np.log2(np.maximum(k_split, 1))
    value_op = np.where(binary, fb[0], fb[1] + lk)[feat]
    model = header_new + float(np.sum(base_vo)) + value_op
    later_k = np.full((len(idx), len(lits)), -1)
    later_vo = np.full((len(idx), len(lits)), -1.0)
    ri = np.flatnonzero(np.isin(feat, lits[:, 0]))
    if len(ri):
        m_ref, vo_ref, ok, nk, nvo = refinement_model_bits(
            bins, lits, base_vo, base_k_values, binary, n_bins, feat[ri], new_lo[idx][ri], new_hi[idx][ri],
            header_old, turs2, np.arange(bins.shape[1], dtype=np.int64))
        model[ri] = np.where(ok, m_ref, np.inf)
        value_op[ri] = vo_ref
        later_k[ri], later_vo[ri] = nk, nvo
    l_split = log2_d + np.where(binary[feat], 0.0, lk[feat])
    if len(split[0]):  # the authors' L_split: bits per column and a constant
        l_split = log2_d + split[0][feat] + split[1]
    model_score = model.copy()
    if placeholder:
        for i in ri:
            if np.isfinite(model[i]):
                model_score[i] = placeholder_model_bits(bins, n_bins, binary, lits, feat[i], new_lo[idx][i],
                                                        new_hi[idx][i], header_old, turs2)
    scores = score_candidates(counts[idx], counts_unc[idx], delta[idx], model, base_counts, base_counts_unc,
                              else_counts, l_split, lr, nll_covered, regret_rules, model_next, total_m, absolute,
                              model_score)
    cov, cov_unc = counts[idx].sum(axis=1), counts_unc[idx].sum(axis=1)
    bucket = np.minimum(W * cov // max(base_counts.sum(), 1), W - 1)
    nbu = base_counts_unc.sum()
    aux_bucket = np.minimum(W * cov_unc // nbu, W - 1) if nbu else np.full(len(idx), -1)
    return dict(feat=feat, lo=new_lo[idx], hi=new_hi[idx], model=model, value_op=value_op, later_k=later_k,
                later_vo=later_vo, scores=scores, bucket=bucket, aux_bucket=aux_bucket)


def group_subsets(masks):
    """Twin of _group_subsets (the former pure-Python version): subsets keyed by tuples in a dict.

    ``counts(S' outside the union of g's rules)`` follows by inclusion-exclusion from the
    counts of ``S'`` in every intersection ``T`` of g's rules, and those are sums over the
    groups that contain ``T``. Returns ``(ptr, idx, sign, n_subsets)``, or Nones when a group
    has more than ``12`` rules.
    """
    G = len(masks)
    if G == 0:
        return np.zeros(1, np.int64), np.zeros(0, np.int64), np.zeros(0), 0
    sizes = masks.sum(axis=1)
    if sizes.max() > 12:
        return None, None, None, 0
    ids: dict = {}
    ptr = [0]
    idx, sign = [], []
    for g in range(G):
        rules = np.flatnonzero(masks[g])
        m = len(rules)
        for bits in range(1, 1 << m):
            T = tuple(rules[[b for b in range(m) if bits >> b & 1]])
            idx.append(ids.setdefault(T, len(ids)))
            sign.append(1.0 if len(T) % 2 else -1.0)
        ptr.append(len(idx))
    return (np.array(ptr, np.int64), np.array(idx, np.int64), np.array(sign), len(ids))


def placeholder_model_bits(bins, n_bins, binary, lits, f, a, b, header, turs2):
    """Independent twin of _placeholder_model_bits: replay the authors' condition-matrix steps
    (``cl_model_after_growing_rule_on_icol`` then ``rule_cl_model_dep``) on bin bounds.

    Row 0 of the matrix holds upper bounds (``x < u``), row 1 lower bounds (``x >= l``), NaN
    where absent. The growth sets bound ``cut_option`` of column ``f``; where that entry is NaN
    the code writes +inf into row 0 instead. Then every literal, in the rule's order, pays for
    one or two cuts (as the matrix says) among the cut points of the data it reaches, and
    restricts that data as the matrix says."""
    cm = np.full((2, len(n_bins)), np.nan)
    order = []
    for j, lo_j, hi_j in lits:
        order.append(int(j))
        if hi_j < n_bins[j]:
            cm[0, j] = hi_j
        if lo_j > 0:
            cm[1, j] = lo_j
    cut_option = 1 if not np.isnan(cm[1, f]) and a != cm[1, f] or np.isnan(cm[1, f]) and a > 0 else 0
    if np.isnan(cm[cut_option, f]):
        cm[0, f] = np.inf
    if f not in order:
        order.append(int(f))
    reach = np.ones(bins.shape[1], dtype=bool)
    total = header
    for pos, j in enumerate(order):
        if not reach.any():
            total += 1e8
            continue
        x = bins[j, reach]
        k = int(x.max() - x.min())
        count = int(~np.isnan(cm[0, j])) + int(~np.isnan(cm[1, j]))
        if binary[j]:
            total += 0.0 if turs2 else 1.0
        elif count == 1 and k >= 1:
            total += (0.0 if turs2 else 2.0) + math.log2(k)
        elif count == 2 and k >= 2:
            total += (0.0 if turs2 else 1.0) + math.log2(k * (k - 1) / 2)
        if pos < len(order) - 1:
            upper = cm[0, j] if not np.isnan(cm[0, j]) else np.inf
            lower = cm[1, j] if not np.isnan(cm[1, j]) else -np.inf
            reach &= (bins[j] < upper) & (bins[j] >= lower)
    return total


def random_growth_problem(seed, n, d, C, K, max_bins, cover_p):
    """Seeded random input of the growth kernel: ``(rng, bins, y, rows, lo, hi, n_bins, C,
    covers)`` with ``d`` features of 2..``max_bins - 1`` bins, ``K`` rules covering each row with
    probability ``cover_p``, and a base rule that keeps all of feature 0 (even seeds) or drops its
    first bin (odd seeds)."""
    rng = np.random.default_rng(seed)
    n_bins = rng.integers(2, max_bins, size=d).astype(np.int64)
    bins = np.stack([rng.integers(0, nb, size=n) for nb in n_bins]).astype(np.uint8)
    y = rng.integers(0, C, size=n).astype(np.int64)
    covers = rng.random((n, K)) < cover_p
    lo = np.zeros(d, dtype=np.int64)
    hi = n_bins.copy()
    if seed % 2:
        lo[0] = 1
    rows = np.flatnonzero((bins[0] >= lo[0]) & (bins[0] < hi[0])).astype(np.int64)
    return rng, bins, y, rows, lo, hi, n_bins, C, covers


def union_pairs(n_shared: np.ndarray, mode: str):
    """Dense twin of ``turs._core.overlap_groups._shared_rule_pairs``' lists, from the groups x groups
    matrix ``n_shared`` of shared rules: the weighted pair lists of each overlap group for a
    union-count ``mode`` (CSR ``ptr, idx, w``): the groups sharing ``s >= 2`` rules with weight ``-(s - 1)`` (``"rules"``), none
    (``"subsets"``), or every group sharing a rule, weight 1 (``"neighbours"``)."""
    if mode == "rules":
        pairs, weight = n_shared >= 2, 1.0 - n_shared
    elif mode == "subsets":
        pairs, weight = np.zeros(n_shared.shape, dtype=bool), n_shared
    else:
        pairs, weight = n_shared > 0, np.ones_like(n_shared)
    ptr = np.concatenate([[0], np.cumsum(pairs.sum(axis=1))]).astype(np.int64)
    rows, cols = np.nonzero(pairs)
    return ptr, cols.astype(np.int64), weight[rows, cols].astype(float)
