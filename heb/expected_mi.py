"""The plug-in mutual information a feature unrelated to the class scores by chance.

Shuffle the class labels over the rows, keeping every category's and every class's count:
the plug-in MI of the shuffled table has the exact expectation (Vinh, Epps and Bailey
2010, the "EMI" of the adjusted mutual information)::

    E[MI] = sum_v sum_c sum_n (n / N) log(N n / (a_v b_c)) P(n | a_v, b_c, N),

with a_v the rows of category v, b_c those of class c, N the feature's rows and P the
hypergeometric law of the cell count n. Miller and Madow's (K - 1)(C - 1) / (2N) is its
limit for many rows per category; an ID column (one row per category) scores H(Y) whatever
the labels, which the expectation says and the approximation does not.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from heb.concentration_score import ragged_arange
from heb.counts import CountTable

__all__ = ["expected_mutual_information"]

#: cell counts n evaluated at once (bounds the memory of the sum)
CHUNK_TERMS = 2**21


def expected_mutual_information(table: CountTable) -> np.ndarray:
    """E[plug-in MI(X_f; Y)] in nats under shuffled labels, per feature, shape (F,).

    Exact: the sum runs over every possible cell count n of every (category, class)
    cell, at most C N terms for a feature of N rows.
    """
    class_totals = table.class_feature_totals()  # (C, F): b_c of each feature
    rows = class_totals.sum(axis=0)  # N_f
    feature = table.feature_of_column
    category_totals = table.category_totals()  # a_v
    cls, column = np.nonzero((class_totals[:, feature] > 0) & (category_totals > 0))
    a = category_totals[column]
    b = class_totals[cls, feature[column]]
    n_rows = rows[feature[column]]
    low = np.maximum(1.0, a + b - n_rows)
    high = np.minimum(a, b)
    keep = high >= low
    a, b, n_rows, low, high = a[keep], b[keep], n_rows[keep], low[keep], high[keep]
    owner = feature[column[keep]]
    sizes = (high - low + 1.0).astype(np.int64)
    out = np.zeros(table.n_features)
    # the hypergeometric law's constant part per cell: log C(N, a) and the log factorials
    # of b, N - b, a, N - a
    constant = (
        special.gammaln(b + 1.0)
        + special.gammaln(n_rows - b + 1.0)
        + special.gammaln(a + 1.0)
        + special.gammaln(n_rows - a + 1.0)
        - special.gammaln(n_rows + 1.0)
    )
    ends = np.cumsum(sizes)
    marks = np.arange(CHUNK_TERMS, int(ends[-1]) if ends.size else 0, CHUNK_TERMS)
    cuts = np.unique(np.r_[0, np.searchsorted(ends, marks) + 1, sizes.size])
    for start, stop in zip(cuts[:-1], cuts[1:], strict=True):
        cells = np.arange(start, stop)
        steps = sizes[cells]
        which = np.repeat(cells, steps)
        n = low[which] + ragged_arange(np.zeros(cells.size, np.int64), steps)
        aw, bw, nw = a[which], b[which], n_rows[which]
        log_p = constant[which] - (
            special.gammaln(n + 1.0)
            + special.gammaln(bw - n + 1.0)
            + special.gammaln(aw - n + 1.0)
            + special.gammaln(nw - aw - bw + n + 1.0)
        )
        terms = (n / nw) * np.log(nw * n / (aw * bw)) * np.exp(log_p)
        out += np.bincount(owner[which], terms, table.n_features)
    return np.maximum(out, 0.0)
