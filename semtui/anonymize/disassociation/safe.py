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
greedy, not a minimum.

**With REFINE** a cluster's chunks go on into the shared chunks of its joint cluster (the cover
attack's reading, ALGORITHMS.md §8: a problem can span one of the cluster's record chunks and a
shared chunk, or two shared chunks; a shared item the cluster shows in its own chunks is another
member's there and makes no problem with them).  The shared chunks are read, never changed, by each
cluster's repair: a shared item x that makes a problem with a record chunk Cl is **cut** in Cl as
above (one occurrence suppressed keeps every association of the shared chunk); when no cut keeps
Cl k^m-anonymous, x is left to be **unshared**.  Then each joint cluster's shared chunks are taken
in order, S1 first: the items left to be unshared, and every item that still makes a problem with an
earlier shared chunk, are taken out of the shared chunk and put back, with the transactions that
hold them, into the term chunks of the member clusters they came from, where REFINE found them
(their support in each stays below k).  Unsharing suppresses nothing: only an association REFINE
added is withdrawn.  Taking a whole item out keeps a shared chunk k^m-anonymous and changes no
earlier chunk, so one pass in chunk order leaves no problem: the problems of S_j depend on S_j's
supports and on the chunks before it, which are final when S_j is taken.

Changed chunks are rebuilt as VERPART builds them: items by descending support (ties by id), the
sub-records sorted by content, identical ones in an order drawn afresh from the seed (their order
before the repair would tell which of them lost an item); a chunk left without items is removed.  The key records every
suppressed occurrence (transaction, item), so the check and the metrics count them as lost.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from semtui.anonymize.disassociation.subrecords import REBUILT_CHUNK, SHARED_REBUILT, tie_rng
from semtui.anonymize.disassociation.verpart import record_chunks
from semtui.model import (
    Cluster,
    ClusterKey,
    DisassociatedData,
    DisassociationKey,
    JointCluster,
    JointClusterKey,
    RecordChunk,
)

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
    #: with REFINE: the cover problems that spanned a shared chunk before the repair (counted as the
    #: cover attack counts them), the items taken out of shared chunks, the (cluster, item) pairs put
    #: back into term chunks, and the shared chunks and joint clusters left empty and removed
    shared_problems_before: int = 0
    #: cuts made in record chunks for a shared item's problem (counted in ``cuts`` too)
    shared_cuts: int = 0
    unshared_items: int = 0
    unshared_pairs: int = 0
    removed_shared_chunks: int = 0
    removed_joint_clusters: int = 0

    def to_json(self) -> dict:
        return {
            "suppressed_occurrences": self.suppressed_occurrences,
            "suppressed_items": self.suppressed_items,
            "lost_pairs": self.lost_pairs,
            "cuts": self.cuts,
            "drops": self.drops,
            "cover_problems_before": self.cover_problems_before,
            "removed_chunks": self.removed_chunks,
            "shared_problems_before": self.shared_problems_before,
            "shared_cuts": self.shared_cuts,
            "unshared_items": self.unshared_items,
            "unshared_pairs": self.unshared_pairs,
            "removed_shared_chunks": self.removed_shared_chunks,
            "removed_joint_clusters": self.removed_joint_clusters,
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
                 ties: np.random.Generator | None = None,
                 shared: list[tuple[np.ndarray, np.ndarray]] | None = None) -> tuple[Cluster, ClusterKey, dict]:
    """One cluster with its cover problems removed (see the module's text); ``names`` maps item
    ids to the names the key records; ``ties`` orders the identical sub-records of the rebuilt
    chunks (default: :func:`semtui.anonymize.disassociation.subrecords.tie_rng` of seed 0).

    ``shared``: the shared chunks of the cluster's joint cluster as (items, supports), less the
    items the cluster shows in its own chunks -- later chunks the repair reads but never changes.
    A problem of a shared item with a record chunk is cut in the record chunk when a cut keeps it
    k^m-anonymous; otherwise the item is left to be unshared (its id in ``stats["unshare"]``)."""
    if ties is None:
        ties = tie_rng(0, REBUILT_CHUNK)

    mats = [_matrix(ch) for ch in cluster.record_chunks]
    n_rec = len(mats)
    later = [(items, sup.copy()) for items, sup in (shared or []) if len(items)]
    before = _count_problems(mats)
    stats = {"before": before, "cuts": 0, "drops": 0, "shared_cuts": 0, "unshare": set()}
    if not before and not later:
        return cluster, key, stats
    originals = [mat.copy() for _, mat in mats]
    # a work list of chunk pairs (j, l), smallest first; a repair in a chunk puts back every
    # pair it is part of (its supports changed), so the loop ends with no pair holding a problem.
    # The shared chunks are chunks n_rec, n_rec + 1, ...: only ever the later chunk of a pair
    import heapq

    n = n_rec + len(later)
    todo = [(j, l_idx) for j in range(1, n) for l_idx in range(min(j, n_rec))]
    queued = set(todo)
    heapq.heapify(todo)
    while todo:
        pair = heapq.heappop(todo)
        queued.discard(pair)
        j, l_idx = pair
        if len(mats[l_idx][0]) < 2:
            continue
        if j < n_rec:
            items_j, mat_j = mats[j]
            sup_j = mat_j.sum(axis=0)
        else:
            items_j, sup_j = later[j - n_rec]
        if not len(items_j):
            continue
        rank = _order(items_j, sup_j)
        size = _problems(*mats[l_idx], sup_j[rank])
        hit = np.flatnonzero(size)
        if not len(hit):
            continue
        x_col, width = int(rank[hit[0]]), int(size[hit[0]])
        cut = _cut(mats, l_idx, j, x_col, width, k, m)
        if cut is not None:
            mats[l_idx][1][cut] = False
            stats["cuts" if j < n_rec else "shared_cuts"] += 1
            changed = l_idx
        elif j < n_rec:
            mat_j[:, x_col] = False
            stats["drops"] += 1
            changed = j
        else:  # no cut: the shared item goes back to the term chunks (every member's, later)
            sup_j[x_col] = 0
            stats["unshare"].add(int(items_j[x_col]))
            changed = j
        for again in [(changed, a) for a in range(min(changed, n_rec))] + \
                [(b, changed) for b in range(changed + 1, n) if changed < n_rec]:
            if again not in queued:
                queued.add(again)
                heapq.heappush(todo, again)
    if not stats["cuts"] and not stats["drops"] and not stats["shared_cuts"]:
        return cluster, key, stats
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
    """The release and key with every cover problem removed; pure (the inputs are not changed).
    The release keeps its k and m (every chunk stays k^m-anonymous); ``seed`` orders the identical
    sub-records of the rebuilt chunks.  With REFINE's joint clusters, the problems that span a
    shared chunk are removed too (the module's text)."""
    ties = tie_rng(seed, REBUILT_CHUNK)
    key_of = {ck.id: ck for ck in key.clusters}
    clusters, keys = [], []
    totals = {"before": 0, "cuts": 0, "drops": 0, "shared_cuts": 0, "removed_chunks": 0}
    n = len(data.clusters)
    joint_of = data.joint_of()
    shared_before = count_shared_problems(data) if data.joint_clusters else 0
    supports = {}  # joint cluster -> its shared chunks as (items, supports)
    unshare: dict[int, set[int]] = {}  # joint cluster -> the items no cut could keep shared
    for ci, c in enumerate(data.clusters):
        if progress is not None and ci % 256 == 0:
            progress(ci, n, "cover problems")
        shared = None
        joints = joint_of.get(c.id, ())
        for ji in joints:
            if ji not in supports:
                supports[ji] = [np.unique(ch.items, return_counts=True) for ch in data.joint_clusters[ji].shared_chunks]
        if joints:
            shown = _shown(c)
            shared = [(items[keep], sup[keep]) for ji in joints for items, sup in supports[ji]
                      for keep in [~np.isin(items, shown)]]
        c2, k2, st = safe_cluster(c, key_of[c.id], data.k, data.m, data.vocab.names, ties, shared)
        clusters.append(c2)
        keys.append(k2)
        for name in totals:
            totals[name] += st.get(name, 0)
        for ji in joints:
            unshare.setdefault(ji, set()).update(st["unshare"])
    if progress is not None:
        progress(n, n, "cover problems")
    out = DisassociatedData(data.vocab, data.k, data.m, clusters, data.joint_clusters,
                            max_cluster_size=data.max_cluster_size)
    new_key = DisassociationKey(keys, key.joint_clusters)
    shared = {}
    if data.joint_clusters:
        if progress is not None:
            progress(n, n, "cover problems in shared chunks")
        out, new_key, shared = unshare_cover_problems(out, new_key, tie_rng(seed, SHARED_REBUILT), unshare)
        keys = new_key.clusters
    pairs = {(ck.id, it) for ck in keys for _, it in ck.suppressed}
    still = {(c.id, it) for c in out.clusters for ch in c.record_chunks for it in data.vocab.names(np.unique(ch.items))}
    report = SafeReport(
        suppressed_occurrences=sum(len(ck.suppressed) for ck in keys),
        suppressed_items=len({it for ck in keys for _, it in ck.suppressed}),
        lost_pairs=len(pairs - still),
        cuts=totals["cuts"] + totals["shared_cuts"], drops=totals["drops"],
        cover_problems_before=totals["before"] + shared_before,
        removed_chunks=totals["removed_chunks"], shared_problems_before=shared_before,
        shared_cuts=totals["shared_cuts"], unshared_items=shared.get("items", 0),
        unshared_pairs=shared.get("pairs", 0), removed_shared_chunks=shared.get("removed_chunks", 0),
        removed_joint_clusters=shared.get("removed_joint", 0))
    return out, new_key, report


def _shown(c: Cluster) -> np.ndarray:
    """The items a cluster shows in its own chunks (record chunks and term chunk)."""
    return np.concatenate([ch.items for ch in c.record_chunks] + [c.term_chunk, np.zeros(0, np.int32)])


# --------------------------------------------------------------------------- REFINE's shared chunks
def _shared_problems(items_j: np.ndarray, sup_j: np.ndarray, earlier_shared: list, members: list):
    """Per earlier chunk a shared chunk's items (its items and supports) can make a cover problem
    with, which of them do (a boolean array): an earlier shared chunk of the joint cluster, or a
    member's record chunk that the member does not show the item in (``members``: per member, its
    record chunks' matrices and the items it shows in its own chunks)."""
    for items_l, mat_l in earlier_shared:
        yield _problems(items_l, mat_l, sup_j) > 0
    for mats, shown in members:
        theirs = ~np.isin(items_j, shown)
        if not theirs.any():
            continue
        for items_l, mat_l in mats:
            yield (_problems(items_l, mat_l, sup_j) > 0) & theirs


def _members(data: DisassociatedData, jc, index: dict) -> list:
    """Per member of a joint cluster: its record chunks' matrices (those of two items or more:
    only they can be the earlier chunk of a problem) and the items it shows in its own chunks."""
    out = []
    for cid in jc.clusters:
        c = data.clusters[index[cid]]
        out.append(([m for m in (_matrix(ch) for ch in c.record_chunks) if len(m[0]) >= 2], _shown(c)))
    return out


def count_shared_problems(data: DisassociatedData) -> int:
    """The cover problems of a release that span a shared chunk, as the cover attack counts them:
    a shared item against a member's record chunk (unless the member shows the item in its own
    chunks), and (once for the joint cluster) a shared item against an earlier shared chunk."""
    index = {c.id: ci for ci, c in enumerate(data.clusters)}
    n = 0
    for jc in data.joint_clusters:
        members = _members(data, jc, index)
        earlier: list = []
        for ch in jc.shared_chunks:
            items, mat = _matrix(ch)
            n += sum(int(hit.sum()) for hit in _shared_problems(items, mat.sum(axis=0), earlier, members))
            if len(items) >= 2:
                earlier.append((items, mat))
    return n


def unshare_cover_problems(data: DisassociatedData, key: DisassociationKey, ties: np.random.Generator,
                           unshare: dict[int, set[int]] | None = None,
                           ) -> tuple[DisassociatedData, DisassociationKey, dict]:
    """The release and key with every cover problem that spans a shared chunk removed by
    unsharing (the module's text): first the items ``unshare`` names (joint cluster index -> items
    the record-chunk repair could not cut for), then, chunk by chunk in order, every item that still
    makes a problem.  The record chunks must be free of problems already, and are not changed.
    Returns the counts of what was done."""
    index = {c.id: ci for ci, c in enumerate(data.clusters)}
    ckeys = {ck.id: ck for ck in key.clusters}
    jkeys = {jk.id: jk for jk in key.joint_clusters}
    unshare = unshare or {}
    back: dict[int, dict[int, list[int]]] = {}  # cluster -> item -> transactions put back in its term chunk
    stats = {"items": 0, "pairs": 0, "removed_chunks": 0, "removed_joint": 0}
    joints = []
    for ji, jc in enumerate(data.joint_clusters):
        jk = jkeys[jc.id]
        member_of = {t: index[cid] for cid in jc.clusters for t in ckeys[cid].records}
        members = _members(data, jc, index)
        first = np.fromiter(unshare.get(ji, ()), dtype=np.int64)
        earlier: list = []   # the shared chunks before this one, repaired
        chunks, chunk_keys = [], []
        for ch, rows in zip(jc.shared_chunks, jk.shared_chunks):
            items, mat = _matrix(ch)
            bad = np.isin(items, first)
            kept = mat.copy()
            kept[:, bad] = False
            for hit in _shared_problems(items, kept.sum(axis=0), earlier, members):
                bad |= hit
            if bad.any():
                rows_arr = np.asarray(rows, dtype=np.int64)
                for col in np.flatnonzero(bad).tolist():
                    item = int(items[col])
                    for t in rows_arr[mat[:, col]].tolist():
                        back.setdefault(member_of[t], {}).setdefault(item, []).append(t)
                    stats["items"] += 1
                mat[:, bad] = False
                if not mat.any():
                    stats["removed_chunks"] += 1
                    continue
                ch, perm = _rebuild(items, mat, ties)
                rows = rows_arr[perm].tolist()
                items, mat = _matrix(ch)
            chunks.append(ch)
            chunk_keys.append(rows)
            if len(items) >= 2:
                earlier.append((items, mat))
        if not chunks:
            stats["removed_joint"] += 1
            continue
        joints.append((jc.clusters, chunks, chunk_keys))
    clusters, keys = list(data.clusters), list(key.clusters)
    for ci, added in back.items():
        c, ck = clusters[ci], keys[ci]
        terms = dict(zip(c.term_chunk.tolist(), ck.term_chunk))
        for item, ts in added.items():
            terms[item] = sorted(ts)
            stats["pairs"] += 1
        order = sorted(terms)
        clusters[ci] = Cluster(c.id, c.size, c.record_chunks, np.asarray(order, dtype=np.int32))
        keys[ci] = ClusterKey(ck.id, ck.record_chunks, [terms[i] for i in order], ck.records, ck.suppressed)
    # joint clusters renumbered J1, J2, ... (a removed one leaves no gap)
    out = DisassociatedData(data.vocab, data.k, data.m, clusters,
                            [JointCluster(f"J{j + 1}", members, chunks) for j, (members, chunks, _) in enumerate(joints)],
                            max_cluster_size=data.max_cluster_size)
    new_key = DisassociationKey(keys, [JointClusterKey(f"J{j + 1}", rows) for j, (_, _, rows) in enumerate(joints)])
    return out, new_key, stats
