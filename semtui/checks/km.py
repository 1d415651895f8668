"""The independent witness of k^m-anonymity, for transactions (plain or set-generalised: a
generalised item is one item) and disassociated releases.

Shares no code with the anonymiser (:mod:`semtui.anonymize.disassociation`): only the data
model, the readers and the errors.

**k^m-anonymity** (disassociation-attack-alshuhail-shao Def. 1): every itemset of at most
``m`` items that occurs in the data occurs at least ``k`` times.  A *violation* is an
itemset of at most ``m`` items with support in ``[1, k)``; it is *minimal* when every proper
subset of it has support ``>= k``.  Every violation contains a minimal one, so the data is
k^m-anonymous exactly when there is no minimal violation; the report counts them all and
lists the first 20 (by size, then item ids).

**Counting** (:func:`km_violations`, over a CSR of integer ids, for any family that can
write its data as integer ids): level-wise, Apriori style, with no Python loop over
itemsets.  Level 1 is a ``bincount``.  Level j >= 2 counts every occurring extension of a
frequent (j-1)-itemset by one sparse product ``P.T @ X`` (``P``: transactions x frequent
(j-1)-itemsets, ``X``: transactions x frequent items), keeps the extensions by a larger
item, and prunes them with numpy (every (j-1)-subset must be frequent, looked up by
``searchsorted`` on sorted keys).  The survivors with support in ``[1, k)`` are the minimal
violations of size j; those with support ``>= k`` are the next frequent level, whose
incidence ``P`` is built by joining the previous one with the transactions' items.  The
products run over blocks of itemsets so that memory stays bounded.

**Disassociated releases** (:func:`check_disassociated`): every record chunk of every
cluster must be k^m-anonymous over its sub-records (all chunks are checked in one call of
:func:`km_violations`: an item of chunk g gets its own id per chunk, so no itemset crosses
chunks); inside a cluster, no item may be in two chunks (term chunk included).  With the
private key and the original: every item occurrence of the original is in exactly one place
of the release, the place the key says (a sub-record or a term-chunk term of the key's
transaction); a transaction is in one cluster; cluster sizes add up to the original; and
every term-chunk term has support < k among the original transactions of its cluster.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from semtui.errors import InputError
from semtui.model import DisassociatedData, DisassociationKey, TransactionData

FORMAT = "semtui-km-check/1"
#: How many examples a report lists.
LIMIT = 20
#: Multiply-adds per block of the sparse product (bounds the memory of one block's result).
_BLOCK_FLOPS = 4_000_000

Progress = Callable[[int, int, str], None] | None
#: Most (transaction, frequent itemset) pairs one level may hand to the next (two int64 each,
#: and the frequent itemsets themselves): what an m >= 3 check holds at once.  A level needing
#: more is refused with one line, the figure computed from the data, before it is built.
MAX_INCIDENCE = 50_000_000


# ---------------------------------------------------------------------------- the core
@dataclass
class KmViolations:
    """Minimal violating itemsets of a CSR dataset, over its integer item ids."""

    k: int
    m: int
    n_rows: int
    #: number of minimal violating itemsets of each size 1..m (index 0 = size 1)
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
    result = KmViolations(k, m, n, [0] * m)
    if len(items) == 0:
        return result
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


# ---------------------------------------------------------------------------- reports
@dataclass
class KmReport:
    """What ``semtui check km`` found."""

    kind: str
    k: int
    m: int
    core: KmViolations
    names: list[list[str]]
    #: for a disassociated release: "cluster/chunk" of each example
    where: list[str] | None = None
    n_clusters: int = 0
    n_record_chunks: int = 0
    declared: dict | None = None
    structure: list[str] = field(default_factory=list)
    n_structure: int = 0
    n_joint_clusters: int = 0
    n_shared_chunks: int = 0
    key_checked: bool = False
    key: dict = field(default_factory=dict)

    @property
    def key_holds(self) -> bool:
        return not self.key_checked or all(v == 0 for k, v in self.key.items() if k.startswith("n_"))

    @property
    def holds(self) -> bool:
        return self.core.holds and self.n_structure == 0 and self.key_holds

    def to_json(self) -> dict:
        c = self.core
        out = {
            "kind": self.kind,
            "k": self.k,
            "m": self.m,
            "holds": self.holds,
            "k_m_anonymous": c.holds,
            "rows_checked": c.n_rows,
            "n_violations": c.n_violations,
            "violations_by_size": {str(i + 1): n for i, n in enumerate(c.by_size)},
            "frequent_by_size": {str(i + 1): n for i, n in enumerate(c.frequent)},
            "violations": [
                {"itemset": names, "support": s, **({"where": self.where[i]} if self.where else {})}
                for i, (names, s) in enumerate(zip(self.names, c.supports))
            ],
        }
        if self.kind == "disassociated":
            out.update({
                "declared": self.declared,
                "clusters": self.n_clusters,
                "record_chunks": self.n_record_chunks,
                "joint_clusters": self.n_joint_clusters,
                "shared_chunks": self.n_shared_chunks,
                "n_structure_problems": self.n_structure,
                "structure_problems": self.structure,
                "key_checked": self.key_checked,
            })
            if self.key_checked:
                out["key"] = self.key
        from semtui.reports import document

        return document(FORMAT, out)


def check_transactions(data: TransactionData, k: int, m: int, progress: Progress = None) -> KmReport:
    """k^m-anonymity of plain or set-generalised transactions.  A generalised item counts as
    one item (what an attacker sees in a k^m release made by hierarchy generalisation, or in
    a COAT-style release): its id is the vocabulary size plus its index, its name its label."""
    v = len(data.vocab)
    tokens = data.tokens.astype(np.int64)
    ids = np.where(tokens >= 0, tokens, v - tokens - 1)
    core = km_violations(data.indptr, ids, k, m, v + data.n_generalised, progress=progress)
    names = [[data.vocab[int(i)] if i < v else data.label(int(i) - v) for i in t] for t in core.itemsets]
    return KmReport("set-generalised" if data.n_generalised else "transactions", k, m, core, names)


def _note(report_list: list[str], count: list[int], message: str) -> None:
    count[0] += 1
    if len(report_list) < LIMIT:
        report_list.append(message)


def check_disassociated(data: DisassociatedData, k: int, m: int, key: DisassociationKey | None = None,
                        original: TransactionData | None = None, progress: Progress = None) -> KmReport:
    """Every record chunk k^m-anonymous, chunks of a cluster disjoint; with ``key`` and
    ``original``, every original item occurrence exactly where the key says, and every
    term-chunk term below k in its cluster."""
    v = len(data.vocab)
    # all record chunks as one CSR whose item ids are (chunk, item) pairs
    chunk_label: list[str] = []
    parts_items, parts_len, parts_chunk = [], [], []
    structure: list[str] = []
    n_structure = [0]
    # (cluster, item, place) of every distinct item of every chunk; place 0 = term chunk
    dom_c, dom_i, dom_p = [], [], []

    def collect(label: str, ch) -> None:
        """One record or shared chunk's sub-records, to be checked with every other chunk."""
        g = len(chunk_label)
        chunk_label.append(label)
        parts_items.append(np.asarray(ch.items, dtype=np.int64))
        parts_len.append(np.diff(ch.indptr))
        parts_chunk.append(np.full(len(ch.items), g, dtype=np.int64))

    for ci, c in enumerate(data.clusters):
        for j, ch in enumerate(c.record_chunks):
            collect(f"{c.id}/C{j + 1}", ch)
            if len(ch) > c.size:
                _note(structure, n_structure, f"{c.id}/C{j + 1}: {len(ch)} sub-records in a cluster of {c.size}")
            dom = np.unique(ch.items).astype(np.int64)
            dom_c.append(np.full(len(dom), ci, dtype=np.int64))
            dom_i.append(dom)
            dom_p.append(np.full(len(dom), j + 1, dtype=np.int64))
        dom_c.append(np.full(len(c.term_chunk), ci, dtype=np.int64))
        dom_i.append(np.asarray(c.term_chunk, dtype=np.int64))
        dom_p.append(np.zeros(len(c.term_chunk), dtype=np.int64))
    # shared chunks of joint clusters: k^m-anonymous on their own, like record chunks, and
    # disjoint from one another within their joint cluster
    size_of = {c.id: c.size for c in data.clusters}
    for jc in data.joint_clusters:
        records = sum(size_of.get(x, 0) for x in jc.clusters)
        seen: dict[int, int] = {}
        for j, ch in enumerate(jc.shared_chunks):
            collect(f"{jc.id}/S{j + 1}", ch)
            if len(ch) > records:
                _note(structure, n_structure, f"{jc.id}/S{j + 1}: {len(ch)} sub-records in a joint cluster of "
                                              f"{records} records")
            for it in np.unique(ch.items).tolist():
                if it in seen:
                    _note(structure, n_structure, f"{jc.id}: item {data.vocab[it]!r} is in S{seen[it] + 1} and "
                                                  f"in S{j + 1}")
                seen[it] = j
    if dom_c:
        dc, di, dp = np.concatenate(dom_c), np.concatenate(dom_i), np.concatenate(dom_p)
        order = np.lexsort((dp, di, dc))
        dc, di, dp = dc[order], di[order], dp[order]
        dup = np.flatnonzero((dc[1:] == dc[:-1]) & (di[1:] == di[:-1]))
        for d in dup.tolist():
            places = [("the term chunk" if p == 0 else f"C{p}") for p in (int(dp[d]), int(dp[d + 1]))]
            _note(structure, n_structure, f"{data.clusters[int(dc[d])].id}: item {data.vocab[int(di[d])]!r} "
                                          f"is in {places[0]} and in {places[1]}")
    if parts_items:
        pair = np.concatenate(parts_chunk) * v + np.concatenate(parts_items)
        lens = np.concatenate(parts_len)
    else:
        pair = np.zeros(0, dtype=np.int64)
        lens = np.zeros(0, dtype=np.int64)
    uniq, compact = np.unique(pair, return_inverse=True)
    indptr = np.zeros(len(lens) + 1, dtype=np.int64)
    np.cumsum(lens, out=indptr[1:])
    # violations listed by size, then item ids (the release's), then place
    core = km_violations(indptr, compact.ravel(), k, m, len(uniq), progress=progress, order=uniq % v)
    names, where = [], []
    for t in core.itemsets:
        p = uniq[t]
        names.append(data.vocab.names(p % v))
        where.append(chunk_label[int(p[0] // v)])
    report = KmReport("disassociated", k, m, core, names, where, len(data.clusters), len(chunk_label) - data.n_shared_chunks,
                      {"k": data.k, "m": data.m}, structure, n_structure[0], len(data.joint_clusters),
                      data.n_shared_chunks)
    if key is not None and original is not None:
        report.key_checked = True
        report.key = _check_key(data, key, original, k)
    return report


def _check_key(data: DisassociatedData, key: DisassociationKey, original: TransactionData, k: int) -> dict:
    """Every original item occurrence in exactly the place the key says; terms below k."""
    if original.n_generalised:
        raise InputError("the original must be plain transactions")
    n = original.n_transactions
    ov = original.vocab
    vo = len(ov)
    # release item id -> original item id (-1: not in the original)
    to_orig = np.array([ov.get(name) if name in ov else -1 for name in data.vocab.items], dtype=np.int64)
    t_parts, i_parts = [], []
    member_t, member_c = [], []
    term_lists: list[list[int]] = []
    term_ids, term_cl = [], []
    problems: dict[str, list[str]] = {"unknown_items": [], "bad_index": [], "twice_in_chunk": [], "in_two_clusters": [],
                                      "cluster_sizes": [], "term_support": [], "shared_outside": []}
    counts = dict.fromkeys(problems, 0)

    def note(kind: str, message: str) -> None:
        counts[kind] += 1
        if len(problems[kind]) < LIMIT:
            problems[kind].append(message)

    key_of = {c.id: c for c in key.clusters}
    sup_t: list[int] = []
    sup_names: list[str] = []
    for ci, c in enumerate(data.clusters):
        ck = key_of.get(c.id)
        if ck is None:
            raise InputError(f"the key has no cluster {c.id!r}")
        for j, ch in enumerate(c.record_chunks):
            ts = np.asarray(ck.record_chunks[j], dtype=np.int64)
            if len(ts) != len(np.unique(ts)):
                note("twice_in_chunk", f"{c.id}/C{j + 1}: a transaction has two sub-records")
            lens = np.diff(ch.indptr)
            t_parts.append(np.repeat(ts, lens))
            i_parts.append(np.asarray(ch.items, dtype=np.int64))
            member_t.append(ts)
            member_c.append(np.full(len(ts), ci, dtype=np.int64))
        if len(ck.term_chunk) != len(c.term_chunk):
            raise InputError(f"cluster {c.id!r}: the key's term chunk does not match the release")
        # occurrences the key says were suppressed (safe disassociation): accounted for once,
        # like a placed occurrence, so one not in the original or also placed is caught
        if ck.suppressed:
            sup_t.extend(t for t, _ in ck.suppressed)
            sup_names.extend(it for _, it in ck.suppressed)
        term_lists.extend(ck.term_chunk)
        term_ids.append(np.asarray(c.term_chunk, dtype=np.int64))
        term_cl.append(np.full(len(c.term_chunk), ci, dtype=np.int64))
        if ck.records is not None:
            member_t.append(np.asarray(ck.records, dtype=np.int64))
            member_c.append(np.full(len(ck.records), ci, dtype=np.int64))
    # shared chunks: every sub-record's items in the transaction the key names, which must be
    # a record of one of the joint cluster's members
    jkey_of = {j.id: j for j in key.joint_clusters}
    cl_index = {c.id: ci for ci, c in enumerate(data.clusters)}
    shared_t, shared_members = [], []
    for jc in data.joint_clusters:
        jk = jkey_of.get(jc.id)
        if jk is None or len(jk.shared_chunks) != len(jc.shared_chunks):
            raise InputError(f"the key has no joint cluster {jc.id!r} with {len(jc.shared_chunks)} shared chunks")
        for j, ch in enumerate(jc.shared_chunks):
            ts = np.asarray(jk.shared_chunks[j], dtype=np.int64)
            if len(ts) != len(ch):
                raise InputError(f"{jc.id}/S{j + 1}: the key has {len(ts)} transactions for {len(ch)} sub-records")
            if len(ts) != len(np.unique(ts)):
                note("twice_in_chunk", f"{jc.id}/S{j + 1}: a transaction has two sub-records")
            t_parts.append(np.repeat(ts, np.diff(ch.indptr)))
            i_parts.append(np.asarray(ch.items, dtype=np.int64))
            shared_t.append(ts)
            shared_members.append(np.asarray([cl_index[x] for x in jc.clusters if x in cl_index], dtype=np.int64))

    def cat(parts):
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)

    # the term chunks' transactions, flattened in one go
    t_lens = np.fromiter(map(len, term_lists), dtype=np.int64, count=len(term_lists))
    t_flat = np.fromiter(itertools.chain.from_iterable(term_lists), dtype=np.int64, count=int(t_lens.sum()))
    t_parts.append(t_flat)
    i_parts.append(np.repeat(cat(term_ids), t_lens))
    member_t.append(t_flat)
    member_c.append(np.repeat(cat(term_cl), t_lens))
    rel_ids = {name: i for i, name in enumerate(data.vocab.items)}
    unnamed = sorted({it for it in sup_names if it not in rel_ids})
    for it in unnamed[:LIMIT]:
        note("unknown_items", f"suppressed item {it!r} is not in the release's vocabulary")
    named = [j for j, it in enumerate(sup_names) if it in rel_ids]
    t_parts.append(np.asarray([sup_t[j] for j in named], dtype=np.int64))
    i_parts.append(np.asarray([rel_ids[sup_names[j]] for j in named], dtype=np.int64))
    pt, pi_rel = cat(t_parts), cat(i_parts)
    mt, mc = cat(member_t), cat(member_c)

    bad_t = (pt < 0) | (pt >= n)
    for t in np.unique(pt[bad_t])[:LIMIT].tolist():
        note("bad_index", f"transaction index {t} is not in the original ({n} transactions)")
    counts["bad_index"] = len(np.unique(pt[bad_t]))
    pi = to_orig[pi_rel]
    unknown = pi < 0
    for it in np.unique(pi_rel[unknown])[:LIMIT].tolist():
        note("unknown_items", f"item {data.vocab[it]!r} is not in the original")
    counts["unknown_items"] = len(np.unique(pi_rel[unknown])) + len(unnamed)
    ok = ~bad_t & ~unknown
    placed = pt[ok] * vo + pi[ok]

    # cluster of each transaction, by the key
    mok = (mt >= 0) & (mt < n)
    pairs = np.unique(mt[mok] * len(data.clusters) + mc[mok]) if len(data.clusters) else np.zeros(0, np.int64)
    pair_t = pairs // max(len(data.clusters), 1)
    multi = np.unique(pair_t[np.r_[False, pair_t[1:] == pair_t[:-1]]])
    for t in multi[:LIMIT].tolist():
        note("in_two_clusters", f"transaction {t} is in more than one cluster")
    counts["in_two_clusters"] = len(multi)
    cluster_of = np.full(n, -1, dtype=np.int64)
    cluster_of[pair_t] = pairs % max(len(data.clusters), 1)
    members = np.bincount(cluster_of[cluster_of >= 0], minlength=len(data.clusters))
    for ci, c in enumerate(data.clusters):
        if members[ci] > c.size:
            note("cluster_sizes", f"{c.id}: the key puts {members[ci]} transactions in a cluster of {c.size}")
    for ts, mem in zip(shared_t, shared_members):
        ok_t = ts[(ts >= 0) & (ts < n)]
        outside = ok_t[~np.isin(cluster_of[ok_t], mem)]
        for t in outside[:LIMIT].tolist():
            note("shared_outside", f"transaction {t} has a shared sub-record in a joint cluster it is no member of")
        counts["shared_outside"] += len(outside) - min(len(outside), LIMIT)
    total = sum(c.size for c in data.clusters)
    if total != n:
        note("cluster_sizes", f"cluster sizes add up to {total}, the original has {n} transactions")

    # every original occurrence exactly once, where the key says
    orig_rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(original.indptr))
    orig = np.unique(orig_rows * vo + original.tokens.astype(np.int64))
    uniq_placed, times = np.unique(placed, return_counts=True)
    twice = uniq_placed[times > 1]
    extra = np.setdiff1d(uniq_placed, orig, assume_unique=True)
    missing = np.setdiff1d(orig, uniq_placed, assume_unique=True)
    names = ov.items
    out = {
        "suppressed_occurrences": len(sup_t),
        "n_misplaced": len(extra),
        "n_missing": len(missing),
        "n_placed_twice": len(twice),
        "misplaced": [f"{names[int(p % vo)]!r} is not in transaction {int(p // vo)}" for p in extra[:LIMIT]],
        "missing": [f"{names[int(p % vo)]!r} of transaction {int(p // vo)} is nowhere in the release"
                    for p in missing[:LIMIT]],
        "placed_twice": [f"{names[int(p % vo)]!r} of transaction {int(p // vo)}" for p in twice[:LIMIT]],
    }

    # term-chunk terms: support < k among the original transactions of their cluster
    in_cl = cluster_of[orig // vo]
    has = in_cl >= 0
    cl_item, cl_sup = np.unique(in_cl[has] * vo + orig[has] % vo, return_counts=True)
    for ci, c in enumerate(data.clusters):
        if len(c.term_chunk) == 0:
            continue
        ids = to_orig[np.asarray(c.term_chunk, dtype=np.int64)]
        ids = ids[ids >= 0]
        idx = _lookup(cl_item, ci * vo + ids)
        sup = np.where(idx >= 0, cl_sup[np.maximum(idx, 0)], 0)
        for it, s in zip(ids[sup >= k].tolist(), sup[sup >= k].tolist()):
            note("term_support", f"{c.id}: term {names[it]!r} has support {s} >= k in its cluster")
    for kind in problems:
        out[f"n_{kind}"] = counts[kind]
        out[kind] = problems[kind]
    return out
