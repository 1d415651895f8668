"""The count-tree of §4.1, held as sorted integer keys instead of pointer nodes.

Every transaction is *expanded* (Algorithm 1, line 2; Algorithm 4, line 5): each item is
replaced by its node in the current cut, and every proper ancestor of that node except the
root is added (the root ``ALL`` is never in the tree: it subsumes every item).  The
itemsets of the tree are the subsets of an expanded transaction that hold no node together
with one of its ancestors.  Items are ordered by decreasing support (ties by node id), as
in the paper, and an itemset is encoded as the number whose base-``R+1`` digits are its
ranks + 1, most frequent first, padded with zeros to the tree's depth.  Sorting those keys
gives exactly the preorder of the paper's tree (a prefix before its extensions), and the
tree's node count is the number of distinct prefixes.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np

from semtui.errors import InputError
from semtui.model.hierarchy import Hierarchy

#: rows of (transaction x combination) built at once when counting itemsets
CHUNK_ROWS = 1 << 21
#: key spaces up to this size are counted in a dense array instead of by sorting
DENSE_KEYS = 1 << 25


@dataclass
class Encoding:
    """Node <-> rank (0 = most frequent) and the key arithmetic of one count-tree."""

    hierarchy: Hierarchy
    rank_of_node: np.ndarray  # -1 for the root
    node_of_rank: np.ndarray
    width: int  # itemset size the keys are padded to

    @property
    def base(self) -> int:
        return len(self.node_of_rank) + 1

    def powers(self) -> np.ndarray:
        b = self.base
        return np.array([b ** (self.width - 1 - j) for j in range(self.width)], dtype=np.int64)

    def encode_ranks(self, ranks: np.ndarray) -> np.ndarray:
        """Keys of rows of ranks (each row ascending; -1 pads shorter itemsets)."""
        digits = ranks.astype(np.int64) + 1
        return digits @ self.powers()[: ranks.shape[1]]

    def decode(self, keys: np.ndarray) -> np.ndarray:
        """Rows of ranks (-1 = padding) of keys."""
        out = np.empty((len(keys), self.width), dtype=np.int64)
        rest = keys.astype(np.int64)
        for j, p in enumerate(self.powers().tolist()):
            out[:, j] = rest // p
            rest = rest % p
        return out - 1


def make_encoding(h: Hierarchy, supports: np.ndarray, width: int) -> Encoding:
    """Ranks by decreasing support (ties by node id); the root has no rank."""
    nodes = np.arange(h.n_nodes)
    nodes = nodes[nodes != h.root]
    order = nodes[np.lexsort((nodes, -supports[nodes]))]
    rank = np.full(h.n_nodes, -1, dtype=np.int64)
    rank[order] = np.arange(len(order))
    if (len(order) + 1) ** width >= 2 ** 62:  # Python ints: no float overflow
        raise InputError(f"m = {width} is too large for a hierarchy of {h.n_nodes} nodes "
                         "(the count-tree keys would overflow 62 bits)")
    return Encoding(h, rank, order, width)


#: most combinations of one expanded transaction enumerated at once (an index array of them
#: is built per transaction length)
MAX_COMBINATIONS_PER_ROW = 4 * CHUNK_ROWS
#: most itemset occurrences of one size a count enumerates: it holds the distinct ones at once
#: (16 bytes each, a few copies while sorting), at most as many as it enumerates.  AA's level 3
#: on BMS-WebView-2 (its shipped fanout-4 hierarchy, k = 5) enumerates 1.5e7 under the rules of
#: levels 1-2 (1.2e5 distinct), where the bottom cut would give 5.4e8
MAX_OCCURRENCES = 500_000_000


def said_m(m: int, asked: int | None = None) -> str:
    """How a message names ``-m`` (``asked``: the user's, when ``m`` was lowered to the longest
    transaction)."""
    return f"-m {m}" if asked in (None, m) else f"-m {asked} (here {m}, the longest transaction)"


def check_keys(h: Hierarchy, m: int, asked: int | None = None) -> None:
    """Refuse, in one line, an ``m`` whose itemset keys would overflow 62 bits."""
    if (h.n_nodes + 1) ** m >= 2 ** 62:
        raise InputError(f"{said_m(m, asked)} is too large for a hierarchy of {h.n_nodes} nodes (itemset keys "
                         "would overflow 62 bits); use a smaller -m")


def occurrences(indptr: np.ndarray, size: int) -> tuple[int, int]:
    """``(occurrences of size-itemsets, the longest row)`` of transactions in CSR: what
    :func:`count_itemsets` enumerates for them (an upper bound on what it holds)."""
    from math import comb

    lengths, counts = np.unique(np.diff(indptr), return_counts=True)
    longest = int(lengths.max(initial=0))
    return sum(comb(int(L), size) * int(c) for L, c in zip(lengths, counts)), longest


def check_count(indptr: np.ndarray, size: int, said: str, where: str) -> None:
    """Refuse, in one line with the true figure, a count of ``size``-itemsets of the expanded
    transactions ``indptr`` (as they are about to be counted) that cannot fit: more than
    MAX_OCCURRENCES occurrences, or one transaction with more than MAX_COMBINATIONS_PER_ROW.
    ``where`` says which count it is (DA's full tree, AA's level)."""
    from math import comb

    total, longest = occurrences(indptr, size)
    if comb(longest, size) > MAX_COMBINATIONS_PER_ROW or total > MAX_OCCURRENCES:
        raise InputError(
            f"{said} is too large for this data: in {where} its transactions hold up to {longest} items with their "
            f"ancestors, {total:,} occurrences of {size}-itemsets in all (at most {MAX_OCCURRENCES:,} can be "
            "counted in memory); use a smaller -m")


def check_size(h: Hierarchy, indptr: np.ndarray, leaves: np.ndarray, m: int, asked: int | None = None) -> None:
    """Refuse, with one line, an ``m`` whose full count-tree (DA's and OA's: every itemset of
    1..m items of the transactions expanded at the bottom cut, the longest any cut gives)
    cannot fit; AA counts level by level under the cut it has built so far, and checks each
    count as it comes (:func:`check_count`), not this bound."""
    check_keys(h, m, asked)
    rank = np.arange(h.n_nodes, dtype=np.int64)
    e_indptr, _ = expand(indptr, leaves, np.arange(h.n_nodes), ancestor_table(h), rank)
    for size in range(2, m + 1):
        check_count(e_indptr, size, said_m(m, asked), "the full count-tree of DA and OA (no generalisation yet)")


def ancestor_table(h: Hierarchy) -> np.ndarray:
    """Row v: v and its proper ancestors except the root, padded with -1 (root row: all -1)."""
    width = int(h.depth.max()) if h.n_nodes > 1 else 1
    table = np.full((h.n_nodes, max(width, 1)), -1, dtype=np.int64)
    for v in range(1, h.n_nodes):
        chain = [x for x in h.chain(v) if x != h.root]
        table[v, : len(chain)] = chain
    return table


def expand(indptr: np.ndarray, leaves: np.ndarray, cut_of_leaf: np.ndarray, anc: np.ndarray,
           rank_of_node: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Expanded transactions in CSR over ranks, each row ascending and without repeats."""
    n = len(indptr) - 1
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
    cut_nodes = cut_of_leaf[leaves]
    wide = anc[cut_nodes]  # (tokens, width)
    r = np.repeat(rows, wide.shape[1])
    flat = wide.ravel()
    keep = flat >= 0
    r, flat = r[keep], rank_of_node[flat[keep]]
    base = int(rank_of_node.max()) + 2
    key = unique_sorted(r * base + flat)
    r, ranks = key // base, key % base
    out_indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(r, minlength=n), out=out_indptr[1:])
    return out_indptr, ranks


def unique_sorted(keys: np.ndarray, counts: bool = False):
    """``np.unique`` by sorting (numpy 2's hash-based unique is far slower on int64 keys)."""
    keys = np.sort(keys)
    if len(keys) == 0:
        return (keys, np.zeros(0, dtype=np.int64)) if counts else keys
    start = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    if not counts:
        return keys[start]
    return keys[start], np.diff(np.r_[start, len(keys)])


def node_supports(indptr: np.ndarray, ranks: np.ndarray, n_ranks: int) -> np.ndarray:
    return np.bincount(ranks, minlength=n_ranks)


def _merge(parts: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    if not parts:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    keys = np.concatenate([p[0] for p in parts])
    counts = np.concatenate([p[1] for p in parts])
    order = np.argsort(keys, kind="stable")
    keys, counts = keys[order], counts[order]
    start = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    return keys[start], np.add.reduceat(counts, start) if len(keys) else counts


def count_itemsets(indptr: np.ndarray, ranks: np.ndarray, size: int, enc: Encoding,
                   progress=None) -> tuple[np.ndarray, np.ndarray]:
    """Sorted keys and supports of every ``size``-itemset of the expanded transactions that
    holds no node with one of its ancestors (Algorithm 1, line 4)."""
    h = enc.hierarchy
    node_of_rank = enc.node_of_rank
    lengths = np.diff(indptr)
    parts: list[tuple[np.ndarray, np.ndarray]] = []
    space = enc.base ** enc.width
    dense = np.zeros(space, dtype=np.int64) if space <= DENSE_KEYS else None
    pending: list[np.ndarray] = []
    pending_n = 0
    long_lengths = np.unique(lengths[lengths >= size])
    for done, L in enumerate(long_lengths.tolist()):
        rows = np.flatnonzero(lengths == L)
        idx = np.array(list(combinations(range(L), size)), dtype=np.int64)
        per = max(1, CHUNK_ROWS // len(idx))
        for s in range(0, len(rows), per):
            chunk = rows[s:s + per]
            mat = ranks[indptr[chunk][:, None] + np.arange(L)]  # (n, L) ascending ranks
            sub = mat[:, idx].reshape(-1, size)
            if size > 1:
                nodes = node_of_rank[sub]
                ok = np.ones(len(sub), dtype=bool)
                for x in range(size):
                    for y in range(x + 1, size):
                        a, b = nodes[:, x], nodes[:, y]
                        ok &= ~(h.is_ancestor(a, b) | h.is_ancestor(b, a))
                sub = sub[ok]
            keys = enc.encode_ranks(sub)
            pending.append(keys)
            pending_n += len(keys)
            if dense is not None and pending_n >= 4 * CHUNK_ROWS:
                # few possible keys: count them in place, no sort
                dense += np.bincount(np.concatenate(pending), minlength=space)
                pending, pending_n = [], 0
            elif dense is None and pending_n >= CHUNK_ROWS:
                k, c = unique_sorted(np.concatenate(pending), counts=True)
                parts.append((k, c))
                pending, pending_n = [], 0
                if len(parts) > 8:
                    parts = [_merge(parts)]
        if progress is not None:
            progress(done + 1, len(long_lengths), f"counting {size}-itemsets")
    if dense is not None:
        if pending:
            dense += np.bincount(np.concatenate(pending), minlength=space)
        keys = np.flatnonzero(dense)
        return keys, dense[keys]
    if pending:
        k, c = unique_sorted(np.concatenate(pending), counts=True)
        parts.append((k, c))
    return _merge(parts)


def lookup(tree_keys: np.ndarray, tree_counts: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Supports of ``keys`` in a sorted key array (0 when absent)."""
    out = np.zeros(len(keys), dtype=np.int64)
    if len(tree_keys) == 0:
        return out
    pos = np.minimum(np.searchsorted(tree_keys, keys), len(tree_keys) - 1)
    found = tree_keys[pos] == keys
    out[found] = tree_counts[pos[found]]
    return out


def prefix_nodes(keys: np.ndarray, enc: Encoding) -> int:
    """Nodes of the count-tree holding these itemsets: their distinct non-empty prefixes."""
    if len(keys) == 0:
        return 0
    total = 0
    for d, p in enumerate(enc.powers().tolist()):
        pre = keys // p
        pre = pre[pre % enc.base != 0] if d > 0 else pre  # prefixes that reach depth d + 1
        if len(pre):
            total += 1 + int(np.count_nonzero(pre[1:] != pre[:-1]))
    return total


@dataclass
class CountTree:
    """All itemsets of sizes 1..m of the expanded data (the full tree of DA and OA)."""

    enc: Encoding
    keys: np.ndarray  # sorted: the paper's preorder
    counts: np.ndarray
    sizes: np.ndarray

    @property
    def n_nodes(self) -> int:
        return len(self.keys)  # every prefix of an inserted itemset is itself inserted

    def lookup(self, keys: np.ndarray) -> np.ndarray:
        """Supports of keys (0 when absent)."""
        return lookup(self.keys, self.counts, keys)

    def checked(self) -> np.ndarray:
        """The tree's leaves as DA checks them: m-itemsets, and shorter itemsets with no
        extension (they come from transactions shorter than m)."""
        m = self.enc.width
        full = self.sizes == m
        if len(self.keys) == 0:
            return full
        nxt = np.r_[self.keys[1:], 0]
        p = np.array([self.enc.base ** (m - s) for s in self.sizes.tolist()], dtype=np.int64)
        has_child = (nxt // p) * p == self.keys
        has_child[-1] = False
        return full | ~has_child


def build_full_tree(indptr, ranks, m: int, enc: Encoding, progress=None) -> CountTree:
    keys, counts, sizes = [], [], []
    for s in range(1, m + 1):
        k, c = count_itemsets(indptr, ranks, s, enc, progress)
        keys.append(k)
        counts.append(c)
        sizes.append(np.full(len(k), s, dtype=np.int64))
    keys = np.concatenate(keys)
    order = np.argsort(keys, kind="stable")
    return CountTree(enc, keys[order], np.concatenate(counts)[order], np.concatenate(sizes)[order])
