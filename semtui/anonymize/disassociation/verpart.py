"""VERPART: split one cluster's items into k^m-anonymous record chunks and a term chunk.

Terrovitis et al. 2012 (../shared/ALGORITHMS.md §4).  Items with support < k in the cluster
go to the term chunk.  The others, by descending support (ties: lowest item id), are added
greedily to the current record chunk while the chunk's sub-records stay k^m-anonymous
(every itemset of at most m items that occurs in them occurs at least k times); an item
that does not fit waits for the next chunk, which starts when a pass over the waiting items
is done.  An item of support >= k always fits an empty chunk, so this ends.

Checking a candidate item ``t`` against the chunk only needs the itemsets that contain
``t``: for every itemset S of the chunk with ``|S| <= m - 1``, the support of ``S + {t}``
must be 0 or >= k.  That support depends only on the *transactions* of S, so the chunk is
held as the distinct row bitmasks (numpy uint64 words over the cluster's rows) of its
itemsets of each size 1..m-1: one vectorised AND + popcount per size and candidate, however
many itemsets share a row set.  For m = 2 it is simpler still: the co-occurrence matrix of
the cluster's frequent items (one small matrix product) says which pairs conflict
(co-occur 1..k-1 times), and a chunk is a greedy independent set of that conflict graph.
"""

from __future__ import annotations

import numpy as np


def _pairwise_chunks(pos: np.ndarray, rows: np.ndarray, n_rows: int, n_freq: int, k: int) -> list[list[int]]:
    """m = 2: chunks as lists of positions 0..n_freq-1 (positions in support order)."""
    a = np.zeros((n_rows, n_freq), dtype=np.int32)
    a[rows, pos] = 1
    co = a.T @ a
    bad = (co > 0) & (co < k)
    if not bad.any():
        return [list(range(n_freq))]
    packed = np.packbits(bad, axis=1, bitorder="little")
    conflicts = [int.from_bytes(r.tobytes(), "little") for r in packed]
    chunks = []
    remaining = list(range(n_freq))
    while remaining:
        blocked = 0
        chunk, rest = [], []
        for t in remaining:
            if (blocked >> t) & 1:
                rest.append(t)
            else:
                chunk.append(t)
                blocked |= conflicts[t]
        chunks.append(chunk)
        remaining = rest
    return chunks


def _distinct(masks: np.ndarray) -> np.ndarray:
    if len(masks) < 2:
        return masks
    if masks.shape[1] == 1:
        return np.unique(masks[:, 0])[:, None]
    return np.unique(masks, axis=0)


def _levelwise_chunks(pos: np.ndarray, rows: np.ndarray, n_rows: int, n_freq: int, k: int,
                      m: int) -> list[list[int]]:
    """Any m >= 2: chunks as lists of positions, with row bitmasks per itemset size."""
    words = (n_rows + 63) // 64
    masks = np.zeros((n_freq, words), dtype=np.uint64)
    np.bitwise_or.at(masks, (pos, rows >> 6), np.left_shift(np.uint64(1), (rows & 63).astype(np.uint64)))
    chunks = []
    remaining = list(range(n_freq))
    while remaining:
        levels = [np.zeros((0, words), dtype=np.uint64) for _ in range(m)]  # levels[j]: size-j itemsets
        chunk, rest = [], []
        for t in remaining:
            mt = masks[t]
            grown = []
            for j in range(1, m):
                inter = levels[j] & mt
                pc = np.bitwise_count(inter).sum(axis=1)
                if ((pc > 0) & (pc < k)).any():
                    break
                grown.append(inter[pc > 0])
            else:
                chunk.append(t)
                for j in range(m - 1, 1, -1):
                    if len(grown[j - 2]):
                        levels[j] = _distinct(np.concatenate([levels[j], grown[j - 2]]))
                levels[1] = _distinct(np.concatenate([levels[1], mt[None, :]]))
                continue
            rest.append(t)
        chunks.append(chunk)
        remaining = rest
    return chunks


def record_chunks(pos: np.ndarray, rows: np.ndarray, n_rows: int, n_freq: int, k: int, m: int,
                  *, pairwise: bool = True) -> list[list[int]]:
    """The record chunks of a cluster as lists of positions in support order.

    ``pos[i]``, ``rows[i]``: the support-order position of the item and the cluster-local
    row of every token of an item with support >= k.  ``pairwise=False`` forces the general
    level-wise test for m = 2 (the two must agree; a test checks it).
    """
    if n_freq == 0:
        return []
    # no itemset is longer than the cluster's longest row: an m beyond it asks nothing more (a list
    # of m levels once took every byte of the machine for m = 10^8)
    m = max(1, min(m, int(np.bincount(rows, minlength=n_rows).max()) if len(rows) else 1))
    if m == 1:
        return [list(range(n_freq))]
    if m == 2 and pairwise:
        return _pairwise_chunks(pos, rows, n_rows, n_freq, k)
    return _levelwise_chunks(pos, rows, n_rows, n_freq, k, m)
