"""Safe disassociation: remove every cover problem of a disassociated release by partial
suppression (after Awad et al., "Safe disassociation of set-valued datasets", 2019; the paper
is not in ../shared/papers, so the method below is semtui's reading of the idea - see
docs/anonymize.md, "Safe disassociation").

A cover problem (ALGORITHMS.md §3; the cover-problem paper's Definition 3 with semtui's fixes):
for an item x of record chunk Cj and an earlier chunk Cl, ``I`` = the items of Cl whose support
in Cl is at least ``s(x, Cj)``; a problem when ``|I| >= 2`` and the support of the whole of ``I``
equals the least single support in ``I`` (the covered item always comes with all of ``I``).  The
strong attacker breaches every one, so a release with no cover problem has none to breach for any
attacker.

The repair, cluster by cluster, until the cluster has no cover problem:

* take the first problem (by chunk of x, earlier chunk, x's rank in its chunk);
* **cut** (one occurrence): remove one *covering* item ``y`` of ``I`` (support above the least)
  from one sub-record of Cl holding all of ``I``, so ``I`` is no longer always together.  Items are
  tried from the most supported down, sub-records in order; a cut is taken only if Cl stays
  k^m-anonymous (every itemset of at most m items of it occurs 0 or >= k times) and the problem
  is gone;
* when no cut works (no covering item, or every cut breaks k^m), **drop x**: remove x from every
  sub-record of Cj (``s(x, Cj)`` occurrences).  Removing a whole item from a chunk keeps it
  k^m-anonymous, and that problem is gone.

Each step removes at least one occurrence, so the repair ends; a step may create a problem for a
later chunk (Cl or Cj is the earlier chunk of another), which the loop finds next.  The result is
greedy, not a minimum.  The cover problems are found here by this module's own search (the
anonymiser never imports an attack); ``semtui cover`` on the output is the independent witness.

Changed chunks are rebuilt as VERPART builds them: items by descending support (ties by id), the
sub-records sorted by content, identical ones in an order drawn afresh from the seed (their order
before the repair would tell which of them lost an item); a chunk left without items is removed.  The key records every
suppressed occurrence (transaction, item), so the check and the metrics count them as lost.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from semtui.anonymize.disassociation.subrecords import REBUILT_CHUNK, tie_rng
from semtui.anonymize.disassociation.verpart import record_chunks
from semtui.model import Cluster, ClusterKey, DisassociatedData, DisassociationKey, RecordChunk

Progress = Callable[[int, int, str], None] | None


@dataclass
class SafeReport:
    """What the repair did."""

    suppressed_occurrences: int
    #: distinct items suppressed at least once
    suppressed_items: int
    #: (cluster, item) pairs that left the release entirely (every occurrence suppressed)
    lost_pairs: int
    cuts: int
    drops: int
    #: cover problems of the release before the repair (the strong attacker's breaches)
    cover_problems_before: int
    removed_chunks: int

    def to_json(self) -> dict:
        return {
            "suppressed_occurrences": self.suppressed_occurrences,
            "suppressed_items": self.suppressed_items,
            "lost_pairs": self.lost_pairs,
            "cuts": self.cuts,
            "drops": self.drops,
            "cover_problems_before": self.cover_problems_before,
            "removed_chunks": self.removed_chunks,
        }


# --------------------------------------------------------------------------- one cluster
def _matrix(chunk: RecordChunk) -> tuple[np.ndarray, np.ndarray]:
    """A chunk as (its distinct items, a boolean sub-record x item matrix)."""
    items = np.unique(chunk.items).astype(np.int64)
    mat = np.zeros((len(chunk), len(items)), dtype=bool)
    rows = np.repeat(np.arange(len(chunk)), np.diff(chunk.indptr))
    mat[rows, np.searchsorted(items, chunk.items)] = True
    return items, mat


def _problems(items_l: np.ndarray, mat_l: np.ndarray, sup_j: np.ndarray) -> np.ndarray:
    """For every item x of Cj (its support ``sup_j``): |I| when (x, Cl) is a cover problem, else 0.
    ``I`` is the first |I| items of Cl in descending support (ties by id, :func:`_order`)."""
    sup_l = mat_l.sum(axis=0)
    order = _order(items_l, sup_l)
    s_sorted = sup_l[order]
    prefix = np.logical_and.accumulate(mat_l[:, order], axis=1).sum(axis=0) if len(order) else s_sorted
    size = np.searchsorted(-s_sorted, -sup_j, side="right")
    last = np.maximum(size - 1, 0)
    # an item suppressed from Cj (support 0) is no x
    bad = (size >= 2) & (prefix[last] == s_sorted[last]) & (sup_j > 0) if len(order) else \
        np.zeros(len(sup_j), dtype=bool)
    return np.where(bad, size, 0)


def _order(items: np.ndarray, sup: np.ndarray) -> np.ndarray:
    return np.lexsort((items, -sup))


def _count_problems(mats: list[tuple[np.ndarray, np.ndarray]]) -> int:
    n = 0
    for j in range(1, len(mats)):
        items_j, mat_j = mats[j]
        if not len(items_j):
            continue
        sup_j = mat_j.sum(axis=0)
        for l_idx in range(j):
            if len(mats[l_idx][0]) >= 2:
                n += int((_problems(*mats[l_idx], sup_j) > 0).sum())
    return n


def chunk_is_km(mat: np.ndarray, k: int, m: int) -> bool:
    """Whether a chunk (boolean sub-record x item matrix) is k^m-anonymous: every itemset of at
    most m items that occurs in it occurs at least k times."""
    sup = mat.sum(axis=0)
    if ((sup > 0) & (sup < k)).any():
        return False
    live = np.flatnonzero(sup)
    if m == 1 or len(live) < 2:
        return True
    sub = mat[:, live]
    if m == 2:
        co = sub.T.astype(np.int32) @ sub.astype(np.int32)
        return not ((co > 0) & (co < k)).any()
    # VERPART's greedy test: a k^m-anonymous set of items fits in one chunk (every subset of
    # it is k^m-anonymous too, so the greedy never turns an item away)
    rows, cols = np.nonzero(sub)
    return len(record_chunks(cols, rows, sub.shape[0], len(live), k, m)) == 1


def _larger_sets_keep_km(mat: np.ndarray, r: int, col: int, k: int, m: int) -> bool:
    """m >= 3: no itemset of 3..m items inside sub-record ``r`` holding ``col`` has support k."""
    from itertools import combinations

    others = np.flatnonzero(mat[r])
    others = others[others != col].tolist()
    for size in range(2, min(m - 1, len(others)) + 1):
        for rest in combinations(others, size):
            if int(mat[:, [col, *rest]].all(axis=1).sum()) == k:
                return False
    return True


def _cut(mats, l_idx: int, j: int, x_col: int, size: int, k: int, m: int) -> tuple[int, int] | None:
    """A (sub-record, column) of Cl whose removal ends the problem and keeps Cl k^m-anonymous:
    a covering item of ``I`` (support above the least; the most supported first) removed from a
    sub-record holding all of ``I`` (in order).  ``I`` stays as it was (the item keeps a support
    of at least s(x)), and its support falls below its least single support, so the problem is
    gone.  Only the itemsets of at most m items inside the sub-record that hold the item lose a
    supporter, so the cut keeps Cl k^m-anonymous unless one of them has support exactly k (it
    would fall to k - 1 > 0)."""
    items_l, mat_l = mats[l_idx]
    sup_l = mat_l.sum(axis=0)
    order = _order(items_l, sup_l)
    in_i = order[:size]
    least = sup_l[in_i].min()
    together = np.flatnonzero(mat_l[:, in_i].all(axis=1))
    as_int = mat_l.astype(np.int32)
    co = as_int.T @ as_int
    for col in in_i[sup_l[in_i] > least].tolist():  # most supported first
        rows = together
        if k > 1:
            if co[col, col] == k:
                continue
            at_k = co[col] == k
            at_k[col] = False
            rows = together[~(mat_l[together] & at_k).any(axis=1)] if m >= 2 else together
        for r in rows.tolist():
            if m <= 2 or k == 1 or _larger_sets_keep_km(mat_l, r, col, k, m):
                return r, col
    return None


def _rebuild(items: np.ndarray, mat: np.ndarray, rng: np.random.Generator) -> tuple[RecordChunk, np.ndarray]:
    """A chunk in VERPART's layout from its matrix: items by descending support (ties by id)
    within a sub-record, sub-records sorted by content (empty last, ties in a random order drawn
    from ``rng``).  Returns the chunk and, for each new sub-record, its row in ``mat``."""
    sup = mat.sum(axis=0)
    keep = np.flatnonzero(sup)
    items, mat, sup = items[keep], mat[:, keep], sup[keep]
    order = _order(items, sup)
    ranked = mat[:, order]
    n_rows, width = ranked.shape
    # each row as its ranks, padded with `width` (after every rank): lexicographic sort
    key = np.where(ranked, np.arange(width), width)
    key.sort(axis=1)
    perm = np.lexsort((rng.permutation(n_rows),) + tuple(key[:, w] for w in range(width - 1, -1, -1)))
    ranked = ranked[perm]
    rows, cols = np.nonzero(ranked)
    indptr = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n_rows), out=indptr[1:])
    return RecordChunk(indptr, items[order][cols].astype(np.int32)), perm


def safe_cluster(cluster: Cluster, key: ClusterKey, k: int, m: int, names,
                 ties: np.random.Generator | None = None) -> tuple[Cluster, ClusterKey, dict]:
    """One cluster with its cover problems removed (see the module's text); ``names`` maps item
    ids to the names the key records; ``ties`` orders the identical sub-records of the rebuilt
    chunks (default: :func:`semtui.anonymize.disassociation.subrecords.tie_rng` of seed 0)."""
    if ties is None:
        ties = tie_rng(0, REBUILT_CHUNK)

    mats = [_matrix(ch) for ch in cluster.record_chunks]
    before = _count_problems(mats)
    stats = {"before": before, "cuts": 0, "drops": 0}
    if not before:
        return cluster, key, stats
    originals = [mat.copy() for _, mat in mats]
    # a work list of chunk pairs (j, l), smallest first; a repair in a chunk puts back every
    # pair it is part of (its supports changed), so the loop ends with no pair holding a problem
    import heapq

    n = len(mats)
    todo = [(j, l_idx) for j in range(1, n) for l_idx in range(j)]
    queued = set(todo)
    heapq.heapify(todo)
    while todo:
        pair = heapq.heappop(todo)
        queued.discard(pair)
        j, l_idx = pair
        items_j, mat_j = mats[j]
        if len(mats[l_idx][0]) < 2 or not len(items_j):
            continue
        sup_j = mat_j.sum(axis=0)
        rank = _order(items_j, sup_j)
        size = _problems(*mats[l_idx], sup_j[rank])
        hit = np.flatnonzero(size)
        if not len(hit):
            continue
        x_col, width = int(rank[hit[0]]), int(size[hit[0]])
        cut = _cut(mats, l_idx, j, x_col, width, k, m)
        if cut is not None:
            mats[l_idx][1][cut] = False
            stats["cuts"] += 1
            changed = l_idx
        else:
            mat_j[:, x_col] = False
            stats["drops"] += 1
            changed = j
        for again in [(changed, a) for a in range(changed)] + [(b, changed) for b in range(changed + 1, n)]:
            if again not in queued:
                queued.add(again)
                heapq.heappush(todo, again)
    chunks, key_chunks, suppressed = [], [], []
    for (items, mat), orig, rows in zip(mats, originals, key.record_chunks):
        rows_arr = np.asarray(rows, dtype=np.int64)
        gone_r, gone_c = np.nonzero(orig & ~mat)
        suppressed.extend(zip(rows_arr[gone_r].tolist(), names(items[gone_c])))
        if not mat.any():
            continue
        chunk, perm = _rebuild(items, mat, ties)
        chunks.append(chunk)
        key_chunks.append(rows_arr[perm].tolist())
    suppressed.sort()
    new_key = ClusterKey(key.id, key_chunks, key.term_chunk, key.records, [*key.suppressed, *suppressed])
    stats["removed_chunks"] = len(cluster.record_chunks) - len(chunks)
    return Cluster(cluster.id, cluster.size, chunks, cluster.term_chunk), new_key, stats


def remove_cover_problems(data: DisassociatedData, key: DisassociationKey, progress: Progress = None, *,
                          seed: int = 0) -> tuple[DisassociatedData, DisassociationKey, SafeReport]:
    """The release and key with every cover problem removed by partial suppression; pure (the
    inputs are not changed).  The release keeps its k and m (every chunk stays k^m-anonymous);
    ``seed`` orders the identical sub-records of the rebuilt chunks."""
    ties = tie_rng(seed, REBUILT_CHUNK)
    key_of = {ck.id: ck for ck in key.clusters}
    clusters, keys = [], []
    totals = {"before": 0, "cuts": 0, "drops": 0, "removed_chunks": 0}
    n = len(data.clusters)
    for ci, c in enumerate(data.clusters):
        if progress is not None and ci % 256 == 0:
            progress(ci, n, "cover problems")
        c2, k2, st = safe_cluster(c, key_of[c.id], data.k, data.m, data.vocab.names, ties)
        clusters.append(c2)
        keys.append(k2)
        for name in totals:
            totals[name] += st.get(name, 0)
    if progress is not None:
        progress(n, n, "cover problems")
    out = DisassociatedData(data.vocab, data.k, data.m, clusters, max_cluster_size=data.max_cluster_size)
    new_key = DisassociationKey(keys)
    pairs = {(ck.id, it) for ck in keys for _, it in ck.suppressed}
    still = {(c.id, it) for c in clusters for ch in c.record_chunks for it in data.vocab.names(np.unique(ch.items))}
    report = SafeReport(
        suppressed_occurrences=sum(len(ck.suppressed) for ck in keys),
        suppressed_items=len({it for ck in keys for _, it in ck.suppressed}),
        lost_pairs=len(pairs - still),
        cuts=totals["cuts"], drops=totals["drops"], cover_problems_before=totals["before"],
        removed_chunks=totals["removed_chunks"])
    return out, new_key, report
