"""An independent, slow implementation of the TURS score, written straight from the thesis.

Nothing here imports `turs`. Every quantity loops over instances (Eq. 3.6), regrets come
from sums over label counts (Eq. 3.11), code lengths from Eq. 3.13-3.18.
"""
from __future__ import annotations

import itertools
import math
from fractions import Fraction


def regret_enumerate(n: int, K: int) -> float:
    """R(n, K) by enumerating all K^n label sequences (Eq. 3.11)."""
    total = 0.0
    for seq in itertools.product(range(K), repeat=n):
        p = 1.0
        for j in range(K):
            c = seq.count(j)
            if c:
                p *= (c / n) ** c
        total += p
    return total


def regret_convolution(n: int, K: int) -> float:
    """R(n, K) = sum_h binom(n,h) (h/n)^h ((n-h)/n)^(n-h) R(h, 1) R(n-h, K-1) (split one class off)."""
    memo = {}

    def R(m, k):
        if k == 1 or m == 0:
            return 1.0
        if (m, k) in memo:
            return memo[(m, k)]
        s = 0.0
        for h in range(m + 1):
            lt = math.lgamma(m + 1) - math.lgamma(h + 1) - math.lgamma(m - h + 1)
            if h:
                lt += h * math.log(h / m)
            if m - h:
                lt += (m - h) * math.log((m - h) / m)
            s += math.exp(lt) * R(m - h, k - 1)
        memo[(m, k)] = s
        return s

    return R(n, K)


def universal_code(k: int) -> float:
    """Rissanen's universal code length of k >= 1 (log2 c0 + positive iterated logs)."""
    if k == 0:
        return 0.0
    bits = math.log2(2.865064)
    t = float(k)
    while True:
        t = math.log2(t)
        if t < 1e-5:
            return bits
        bits += t


def covers(x, rule) -> bool:
    return all((lo is None or x[j] >= lo) and (hi is None or x[j] < hi) for j, lo, hi in rule)


def mdl_oracle(rules, X, y, n_classes, cuts, binary, model_encoding="thesis"):
    """(total, data, regret, model) of Eq. 3.20 for rules given as [(col, low, high), ...].

    ``model_encoding="turs2"``: the number of literals by the universal code, no form/operator
    bits (the authors' implementation)."""
    turs2 = model_encoding == "turs2"
    n = len(X)
    d = len(X[0])
    cov = [[covers(X[i], r) for r in rules] for i in range(n)]
    data = 0.0
    for i in range(n):
        I = [k for k in range(len(rules)) if cov[i][k]]
        if I:
            members = [j for j in range(n) if any(cov[j][k] for k in I)]
        else:
            members = [j for j in range(n) if not any(cov[j])]
        same = sum(1 for j in members if y[j] == y[i])
        data -= math.log2(same / len(members))
    sizes = [sum(cov[i][k] for i in range(n)) for k in range(len(rules))]
    sizes.append(sum(1 for i in range(n) if not any(cov[i])))
    regret = sum(math.log2(regret_convolution(s, n_classes)) for s in sizes)
    model = universal_code(len(rules)) - math.log2(math.factorial(len(rules)))
    for r in rules:
        bits = (universal_code(len(r)) if turs2 else math.log2(d)) + math.log2(math.comb(d, len(r)))
        sub = list(range(n))
        for j, lo, hi in r:
            if binary[j]:
                bits += 0 if turs2 else 1
            else:
                vals = [X[i][j] for i in sub]
                kv = sum(1 for c in cuts[j] if any(v < c for v in vals) and any(v >= c for v in vals))
                if lo is not None and hi is not None:
                    bits += (0 if turs2 else 1) + math.log2(math.comb(kv, 2))
                else:
                    bits += (0 if turs2 else 2) + math.log2(kv)
            sub = [i for i in sub if (lo is None or X[i][j] >= lo) and (hi is None or X[i][j] < hi)]
        model += bits
    return data + regret + model, data, regret, model
