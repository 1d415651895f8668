"""The core of the k^m check: every minimal violating itemset of a CSR dataset over integer
item ids, counted level-wise (Apriori style, sparse products, no Python loop over itemsets;
the package's docstring), for any family that can write its data as integer ids."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from semtui.errors import InputError

#: How many examples a report lists.
LIMIT = 20
#: Multiply-adds per block of the sparse product (bounds the memory of one block's result).
_BLOCK_FLOPS = 4_000_000

Progress = Callable[[int, int, str], None] | None
#: Most (transaction, frequent itemset) pairs one level may hand to the next (two int64 each,
#: and the frequent itemsets themselves): what an m >= 3 check holds at once.  A level needing
#: more is refused with one line, the figure computed from the data, before it is built.
MAX_INCIDENCE = 50_000_000


@dataclass
class KmViolations:
    """Minimal violating itemsets of a CSR dataset, over its integer item ids."""

    k: int
    m: int
    n_rows: int
    #: number of minimal violating itemsets of each size 1..m (index 0 = size 1), up to the
    #: longest row's length when m is larger (no itemset is longer)
    by_size: list[int]
    #: the first ``limit`` of them (by size, then lexicographic ids) and their supports
    itemsets: list[np.ndarray] = field(default_factory=list)
    supports: list[int] = field(default_factory=list)
    #: frequent itemsets (support >= k) found at each level (index 0 = size 1)
    frequent: list[int] = field(default_factory=list)

    @property
    def n_violations(self) -> int:
        return int(sum(self.by_size))

    @property
    def holds(self) -> bool:
        return self.n_violations == 0

    def to_json(self) -> dict:
        """The counts and examples over integer ids (:class:`KmReport` names the items)."""
        return {
            "k": self.k,
            "m": self.m,
            "holds": self.holds,
            "rows_checked": self.n_rows,
            "n_violations": self.n_violations,
            "violations_by_size": {str(i + 1): n for i, n in enumerate(self.by_size)},
            "frequent_by_size": {str(i + 1): n for i, n in enumerate(self.frequent)},
            "violations": [{"itemset": t.tolist(), "support": s} for t, s in zip(self.itemsets, self.supports)],
        }


def _csr_matrix(indptr: np.ndarray, items: np.ndarray, n_cols: int):
    """A 0/1 CSR matrix (rows x n_cols); a repeated item in a row counts once."""
    from scipy import sparse

    n = len(indptr) - 1
    x = sparse.csr_matrix((np.ones(len(items), dtype=np.int32), np.asarray(items, dtype=np.int64),
                           np.asarray(indptr, dtype=np.int64)), shape=(n, n_cols))
    x.sum_duplicates()
    x.data[:] = 1
    return x


def _lookup(keys: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Index of every query in the sorted ``keys``, or -1."""
    if len(keys) == 0:
        return np.full(len(query), -1, dtype=np.int64)
    pos = np.searchsorted(keys, query)
    pos_c = np.minimum(pos, len(keys) - 1)
    return np.where(keys[pos_c] == query, pos_c, -1)


class _Levels:
    """The frequent itemsets found so far.  Level L (itemsets of L + 1 items) is held as
    ``prefix[L]`` (index of the itemset without its last item, in level L - 1) and
    ``last[L]`` (its last item, a column of X), sorted by ``key = prefix * f + last``, which
    is the lexicographic order of the itemsets.  Pairs are also held as a dense f x f index
    when that is small, for fast Apriori look-ups."""

    _DENSE_PAIRS = 1 << 24

    def __init__(self, f: int):
        self.f = f
        ids = np.arange(f, dtype=np.int64)
        self.prefix = [np.zeros(f, dtype=np.int64)]
        self.last = [ids]
        self.keys = [ids]
        self.pair_index: np.ndarray | None = None

    def add(self, prefix: np.ndarray, last: np.ndarray) -> None:
        """Add the next level, given in key order."""
        self.prefix.append(prefix)
        self.last.append(last)
        self.keys.append(prefix * self.f + last)
        if len(self.keys) == 2 and self.f * self.f <= self._DENSE_PAIRS:
            pair = np.full((self.f, self.f), -1, dtype=np.int32)
            pair[prefix, last] = np.arange(len(last), dtype=np.int32)
            self.pair_index = pair

    def size(self, level: int) -> int:
        return len(self.last[level])

    def tuples(self, level: int, idx: np.ndarray) -> np.ndarray:
        """The items (columns) of itemsets ``idx`` of ``level``, as rows."""
        cols = []
        cur = idx
        for lev in range(level, -1, -1):
            cols.append(self.last[lev][cur])
            if lev:
                cur = self.prefix[lev][cur]
        return np.stack(cols[::-1], axis=1)

    def index_of(self, tuples: np.ndarray) -> np.ndarray:
        """Index of each row of ``tuples`` (ascending items) in its level, or -1."""
        width = tuples.shape[1]
        if width == 1:
            return tuples[:, 0].astype(np.int64)
        if self.pair_index is not None:
            idx = self.pair_index[tuples[:, 0], tuples[:, 1]].astype(np.int64)
        else:
            idx = _lookup(self.keys[1], tuples[:, 0] * self.f + tuples[:, 1])
        for j in range(2, width):
            ok = idx >= 0
            found = _lookup(self.keys[j], np.where(ok, idx, 0) * self.f + tuples[:, j])
            idx = np.where(ok, found, -1)
        return idx


def km_violations(indptr: np.ndarray, items: np.ndarray, k: int, m: int, n_items: int | None = None,
                  *, limit: int = LIMIT, progress: Progress = None, order: np.ndarray | None = None) -> KmViolations:
    """Is the CSR dataset (``items[indptr[r]:indptr[r+1]]`` = ids of row r) k^m-anonymous?

    Item ids are non-negative integers below ``n_items`` (default: max + 1).  Counts every
    minimal violating itemset and keeps the first ``limit`` (by size, then lexicographic
    ids) with their supports.  ``order`` (one key per id) sorts the kept ones by size, then
    lexicographically by those keys, then by ids: a disassociated release's ids are (chunk,
    item) pairs, and its violations are listed by item, then place.
    """
    if k < 1 or m < 1:
        raise InputError(f"k and m must be at least 1 (got k={k}, m={m})")
    indptr = np.asarray(indptr, dtype=np.int64)
    items = np.asarray(items, dtype=np.int64)
    n = len(indptr) - 1
    if n_items is None:
        n_items = int(items.max()) + 1 if len(items) else 0
    # no itemset is longer than the longest row: an m beyond it asks nothing more, and the sizes
    # counted stop there (a list of m zeros once took all the memory for m = 10^8)
    longest = int(np.diff(indptr).max()) if n else 0
    result = KmViolations(k, m, n, [0] * max(1, min(m, longest)))
    if len(items) == 0:
        return result
    m = min(m, longest)
    x_all = _csr_matrix(indptr, items, n_items)
    sup = np.bincount(x_all.indices, minlength=n_items)
    viol1 = np.flatnonzero((sup > 0) & (sup < k))
    result.by_size[0] = len(viol1)
    _keep(result, viol1[:, None], sup[viol1], limit, order)
    freq_items = np.flatnonzero(sup >= k)  # column c of X is item freq_items[c]
    result.frequent.append(len(freq_items))
    n_level1 = len(result.itemsets)
    f = len(freq_items)
    if m >= 2 and f >= 2:
        x = x_all[:, freq_items].tocsr()
        del x_all
        x.sort_indices()
        row_len = np.diff(x.indptr).astype(np.int64)
        levels = _Levels(f)
        # incidence of level-1 itemsets: X itself, as (row, itemset) pairs
        p_rows = np.repeat(np.arange(n, dtype=np.int64), row_len)
        p_sets = x.indices.astype(np.int64)
        for size in range(2, m + 1):
            level = size - 2  # the level being extended
            if levels.size(level) == 0 or len(p_rows) == 0:
                break
            good_s, good_c, n_good = _extend(result, levels, level, p_rows, p_sets, x, row_len, k,
                                     last_level=size == m, limit=limit, progress=progress, m=m,
                                     order=None if order is None else np.asarray(order)[freq_items])
            result.frequent.append(n_good)
            if size == m:
                break
            levels.add(good_s, good_c)
            if len(good_s):
                p_rows, p_sets = _incidence(p_rows, p_sets, levels.last[level], x, row_len, levels.keys[-1], f)
    for i in range(n_level1, len(result.itemsets)):
        result.itemsets[i] = freq_items[result.itemsets[i]]
    return result


def _keep(result: KmViolations, tuples: np.ndarray, sups: np.ndarray, limit: int,
          order: np.ndarray | None = None) -> None:
    """Keep examples up to ``limit``: the first ones met (met by size, then lexicographic ids),
    or with ``order`` the smallest by (size, keys of the ids, ids) -- the kept ones of the same
    size are merged with the new ones (sizes come in increasing order)."""
    if order is None or len(tuples) == 0:
        room = max(limit - len(result.itemsets), 0)
        for t, s in zip(tuples[:room], sups[:room]):
            result.itemsets.append(np.asarray(t, dtype=np.int64))
            result.supports.append(int(s))
        return
    tuples = np.asarray(tuples, dtype=np.int64)
    sups = np.asarray(sups, dtype=np.int64)
    size = tuples.shape[1]
    first = next((i for i, t in enumerate(result.itemsets) if len(t) == size), len(result.itemsets))
    room = limit - first
    if room <= 0:
        return
    if first < len(result.itemsets):  # merge with the kept ones of this size
        tuples = np.vstack([np.stack(result.itemsets[first:]), tuples])
        sups = np.concatenate([np.asarray(result.supports[first:], dtype=np.int64), sups])
        del result.itemsets[first:], result.supports[first:]
    keys = np.asarray(order, dtype=np.int64)[tuples]
    pick = np.lexsort([tuples[:, j] for j in range(size - 1, -1, -1)]
                      + [keys[:, j] for j in range(size - 1, -1, -1)])[:room]
    for t, s in zip(tuples[pick], sups[pick]):
        result.itemsets.append(t)
        result.supports.append(int(s))


def _blocks(weights: np.ndarray) -> list[tuple[int, int]]:
    """Consecutive ranges whose weights sum to about _BLOCK_FLOPS each."""
    if len(weights) == 0:
        return []
    cum = np.cumsum(weights)
    cuts = np.searchsorted(cum, np.arange(_BLOCK_FLOPS, int(cum[-1]) + _BLOCK_FLOPS, _BLOCK_FLOPS), side="right")
    bounds = sorted({0, *np.minimum(cuts, len(weights)).tolist(), len(weights)})
    return [(a, b) for a, b in itertools.pairwise(bounds) if b > a]


def _extend(result: KmViolations, levels: _Levels, level: int, p_rows, p_sets, x, row_len, k: int, *,
            last_level: bool, limit: int, progress: Progress, m: int,
            order: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, int]:
    """Count every occurring extension (itemset s of ``level``, item c > last(s)) by
    ``P.T @ X``, block by block.  Extensions with support >= k are frequent (their subsets
    are, by anti-monotony) and are returned in key order; those with support in [1, k) are
    minimal violations when every subset is frequent (the Apriori look-up), and are counted
    and sampled here, so that they are never all held at once."""
    from scipy import sparse

    n = x.shape[0]
    n_sets = levels.size(level)
    last = levels.last[level]
    size = level + 2
    pt = sparse.csr_matrix((np.ones(len(p_rows), dtype=np.int32), (p_sets, p_rows)), shape=(n_sets, n))
    flops = np.bincount(p_sets, weights=row_len[p_rows], minlength=n_sets)
    good_s, good_c = [], []
    n_good = pairs = 0
    blocks = _blocks(flops)
    for b, (lo, hi) in enumerate(blocks):
        prod = pt[lo:hi] @ x
        prod.sort_indices()
        s = np.repeat(np.arange(lo, hi, dtype=np.int64), np.diff(prod.indptr))
        c = prod.indices.astype(np.int64)
        v = prod.data
        del prod
        keep = c > last[s]
        s, c, v = s[keep], c[keep], v[keep]
        good = v >= k
        n_good += int(good.sum())
        if not last_level:
            pairs += int(v[good].sum())  # each frequent itemset is held by v transactions
            if pairs > MAX_INCIDENCE:
                raise InputError(
                    f"too many itemsets to check for m={m}: the frequent {size}-itemsets are held more than "
                    f"{MAX_INCIDENCE:,} times in all (counted so far: {n_good:,} itemsets, {pairs:,} holdings), "
                    f"more than fit in memory; use a smaller -m")
            good_s.append(s[good])
            good_c.append(c[good])
        bad = ~good
        s, c, v = s[bad], c[bad], v[bad]
        tuples = np.concatenate([levels.tuples(level, s), c[:, None]], axis=1)
        ok = np.ones(len(tuples), dtype=bool)
        for drop in range(size - 1):  # dropping the last item gives s itself
            sub = np.delete(tuples, drop, axis=1)
            ok[ok] = levels.index_of(sub[ok]) >= 0
        result.by_size[size - 1] += int(ok.sum())
        if order is not None or len(result.itemsets) < limit:
            _keep(result, tuples[ok], v[ok], limit, order)
        if progress is not None:
            progress(b + 1, len(blocks), f"itemsets of size {size} of {m}")
    if not good_s:
        z = np.zeros(0, dtype=np.int64)
        return z, z, n_good
    return np.concatenate(good_s), np.concatenate(good_c), n_good


def _incidence(p_rows, p_sets, last, x, row_len, keys, f):
    """(row, itemset) pairs of the next level: join each (row, s) with the row's items
    c > last(s), keep those whose (s, c) is a frequent itemset.  In blocks of pairs."""
    weights = row_len[p_rows]
    rows_out, sets_out = [], []
    for lo, hi in _blocks(weights):
        r, s, w = p_rows[lo:hi], p_sets[lo:hi], weights[lo:hi]
        total = int(w.sum())
        if total == 0:
            continue
        rr = np.repeat(r, w)
        ss = np.repeat(s, w)
        offs = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(w) - w, w)
        c = x.indices[x.indptr[rr] + offs].astype(np.int64)
        keep = c > last[ss]
        rr, ss, c = rr[keep], ss[keep], c[keep]
        idx = _lookup(keys, ss * f + c)
        found = idx >= 0
        rows_out.append(rr[found])
        sets_out.append(idx[found])
    if not rows_out:
        z = np.zeros(0, dtype=np.int64)
        return z, z
    return np.concatenate(rows_out), np.concatenate(sets_out)
