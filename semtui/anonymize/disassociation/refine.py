"""REFINE: joint clusters and their shared chunks (Terrovitis et al. 2012, the third step;
../shared/ALGORITHMS.md §8; docs/anonymize.md says which reading semtui follows and why).

After VERPART every item of support < k in its cluster sits in the cluster's term chunk,
associated with nothing.  REFINE groups *neighbouring* clusters -- those under one node of
HORPART's tree, merged upward from the leaves while the group holds at most
``joint_max_size`` records -- into a *joint cluster*, and moves the term-chunk items whose
**joint support** (the number of the group's records holding them) reaches k into the joint
cluster's *shared chunks*: sub-records over all the group's records (one per record, empty
ones included, as in a record chunk), built by VERPART's own greedy so that every shared
chunk is k^m-anonymous.  An item whose joint support stays below k stays in its term chunks.

Which member cluster a shared sub-record came from is not published (only the key says):
that is what hides an item that was rare in its cluster among the records of the group.  So
identical shared sub-records are in a random order (the anonymiser's seed, drawn per shared
chunk), not in the group's row order, which is cluster order and would tell the member.

Everything that decides the groups and the moved (cluster, item) pairs is numpy over integer
ids; the Python loops are over tree nodes (scalar work) and over joint clusters (the greedy
chunking, as VERPART's over clusters).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from semtui.anonymize.disassociation.subrecords import SHARED_CHUNK, sub_records, tie_rng
from semtui.anonymize.disassociation.verpart import record_chunks
from semtui.model import RecordChunk

#: the largest joint cluster (records) when none is given: see docs/anonymize.md
DEFAULT_JOINT_MAX_SIZE = 500


def check_joint_max_size(k: int, joint_max_size: int | None) -> int:
    """The joint clusters' size bound to use (the default when None); a bound that could not
    hold two clusters of k records is an input error."""
    from semtui.errors import InputError

    n = DEFAULT_JOINT_MAX_SIZE if joint_max_size is None else joint_max_size
    if isinstance(n, bool) or not isinstance(n, int) or n < 2 * k:
        raise InputError(f"--joint-max-size must be a whole number of at least 2k={2 * k} (got {n!r}): a joint "
                         "cluster joins at least two clusters")
    return n


@dataclass
class Refined:
    """What REFINE decided: the joint clusters (member cluster indices, shared chunks and the
    cluster-order row of each shared sub-record) and which term pairs moved."""

    members: list[tuple[int, int]]          # joint cluster -> cluster index range [a, b)
    shared: list[list[RecordChunk]]         # joint cluster -> its shared chunks
    shared_rows: list[list[np.ndarray]]     # ... the row (cluster order) of each sub-record
    moved: np.ndarray                       # bool per term pair: in a shared chunk now


def joint_groups(parent: np.ndarray, cluster_node: np.ndarray, sizes: np.ndarray,
                 joint_max_size: int) -> np.ndarray:
    """The joint group of every cluster (-1: none), as a cluster index range per group.

    Bottom-up over HORPART's tree: a node's clusters form one group when the node holds at
    most ``joint_max_size`` records and its parent more (or it is the root); a group of one
    cluster is no group.  Returns ``(n_groups, 2)`` ranges ``[a, b)`` of cluster indices."""
    n_nodes = len(parent)
    n_clusters = len(cluster_node)
    if n_clusters == 0:
        return np.zeros((0, 2), dtype=np.int64)
    lo = np.full(n_nodes, n_clusters, dtype=np.int64)
    hi = np.zeros(n_nodes, dtype=np.int64)
    rec = np.zeros(n_nodes, dtype=np.int64)
    lo[cluster_node] = np.arange(n_clusters)
    hi[cluster_node] = np.arange(n_clusters) + 1
    rec[cluster_node] = sizes
    # children have larger ids than their parent: one pass in decreasing id is bottom-up
    par = parent.tolist()
    lo_l, hi_l, rec_l = lo.tolist(), hi.tolist(), rec.tolist()
    for v in range(n_nodes - 1, 0, -1):
        p = par[v]
        if lo_l[v] < lo_l[p]:
            lo_l[p] = lo_l[v]
        if hi_l[v] > hi_l[p]:
            hi_l[p] = hi_l[v]
        rec_l[p] += rec_l[v]
    lo, hi, rec = np.asarray(lo_l), np.asarray(hi_l), np.asarray(rec_l)
    fits = rec <= joint_max_size
    parent_fits = np.zeros(n_nodes, dtype=bool)
    parent_fits[1:] = fits[parent[1:]]
    top = np.flatnonzero(fits & ~parent_fits & (hi - lo >= 2))
    ranges = np.column_stack([lo[top], hi[top]])
    return ranges[np.argsort(ranges[:, 0], kind="stable")]


def refine(
    ranges: np.ndarray,
    cstart: np.ndarray,
    tp_cl: np.ndarray,
    tp_item: np.ndarray,
    tp_sup: np.ndarray,
    tt_pair: np.ndarray,
    tt_pos: np.ndarray,
    n_items: int,
    k: int,
    m: int,
    seed: int = 0,
) -> Refined:
    """Move term-chunk items into the shared chunks of the joint groups ``ranges``.

    ``tp_*``: the term pairs (cluster, item, support in the cluster); ``tt_pair``, ``tt_pos``:
    every term-chunk token's pair index and its row (position in cluster order, so the rows of
    clusters ``[a, b)`` are ``cstart[a]:cstart[b]``); ``seed``: orders identical shared
    sub-records (:func:`semtui.anonymize.disassociation.subrecords.tie_rng`)."""
    n_clusters = len(cstart) - 1
    group_of = np.full(n_clusters, -1, dtype=np.int64)
    for g, (a, b) in enumerate(ranges.tolist()):
        group_of[a:b] = g
    moved = np.zeros(len(tp_cl), dtype=bool)
    if len(ranges) == 0 or len(tp_cl) == 0:
        return Refined([], [], [], moved)
    tp_g = group_of[tp_cl]
    in_g = np.flatnonzero(tp_g >= 0)
    gkey = tp_g[in_g] * n_items + tp_item[in_g]
    uk, inv = np.unique(gkey, return_inverse=True)
    joint = np.bincount(inv.ravel(), weights=tp_sup[in_g]).astype(np.int64)
    cand = joint >= k
    if not cand.any():
        return Refined([], [], [], moved)
    moved[in_g[cand[inv.ravel()]]] = True
    # candidate (group, item) pairs, by group, then descending joint support, then item id
    c_idx = np.flatnonzero(cand)
    c_g, c_item, c_sup = uk[c_idx] // n_items, uk[c_idx] % n_items, joint[c_idx]
    order = np.lexsort((c_item, -c_sup, c_g))
    c_g, c_item = c_g[order], c_item[order]
    c_first = np.searchsorted(c_g, np.arange(len(ranges) + 1))
    c_pos = np.empty(len(order), dtype=np.int64)
    c_pos[order] = np.arange(len(order)) - c_first[c_g]     # position in its group's order
    # position of each moved term pair, then of each moved token
    pair_pos = np.full(len(tp_cl), -1, dtype=np.int64)
    pair_pos[in_g] = np.where(cand[inv.ravel()], c_pos[np.maximum(np.cumsum(cand) - 1, 0)[inv.ravel()]], -1)
    tok = np.flatnonzero(moved[tt_pair])
    tok_g = tp_g[tt_pair[tok]]
    tok_pos = pair_pos[tt_pair[tok]]
    tok_row = tt_pos[tok]
    srt = np.lexsort((tok_pos, tok_row, tok_g))
    tok_g, tok_pos, tok_row = tok_g[srt], tok_pos[srt], tok_row[srt]
    t_first = np.searchsorted(tok_g, np.arange(len(ranges) + 1))

    members, shared, shared_rows = [], [], []
    ties = tie_rng(seed, SHARED_CHUNK)
    for g in range(len(ranges)):
        n_freq = int(c_first[g + 1] - c_first[g])
        if n_freq == 0:
            continue
        a, b = int(ranges[g, 0]), int(ranges[g, 1])
        base = int(cstart[a])
        n_rows = int(cstart[b]) - base
        lo, hi = t_first[g], t_first[g + 1]
        pos, rows = tok_pos[lo:hi], tok_row[lo:hi] - base
        # only the rows holding a moved item matter to k^m (empty sub-records hold no itemset)
        used, rows_c = np.unique(rows, return_inverse=True)
        chunks = record_chunks(pos, rows_c.ravel(), len(used), n_freq, k, m)
        items_g = c_item[c_first[g]:c_first[g + 1]]
        out, out_rows = [], []
        for ch in chunks:
            ch_arr = np.asarray(ch, dtype=np.int64)
            rank = np.full(n_freq, -1, dtype=np.int64)
            rank[ch_arr] = np.arange(len(ch_arr))
            keep = rank[pos] >= 0
            # tokens are sorted by (row, position); positions in chunk order keep that order
            r_k, rk_k = rows[keep], rank[pos[keep]]
            s2 = np.lexsort((rk_k, r_k))
            sub, order_rows = sub_records(r_k[s2], rk_k[s2], items_g[ch_arr][rk_k[s2]], n_rows, len(ch_arr), ties)
            out.append(sub)
            out_rows.append(order_rows + base)
        members.append((a, b))
        shared.append(out)
        shared_rows.append(out_rows)
    return Refined(members, shared, shared_rows, moved)
