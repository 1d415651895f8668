"""Lower the rules a greedy cut does not need, so that it becomes a *minimal* cut (§3.4).

This pass is ours, not the paper's.  DA and AA (§4.3-4.4) commit the cheapest fix of each
breach as they meet it and never take a rule back, so a rule committed early can become
useless once a later breach forces a more general rule elsewhere: on the data
``{a1,c1,c2} {a2,b2,c2} {a2,b1,c2} {b2} {a1,c1}`` with k = 2, m = 2 AA commits A (to fix
{a1, c2}) and then C (to fix {c1, c2}), after which {a1, C} and {a2, C} occur twice and A is
not needed.  §3.4 asks for a minimal cut (no descendant cut is k^m-anonymous), and by
Property 1 a cut is minimal exactly when no single rule can be lowered to its children.

So the pass tries to lower every rule of the cut, largest saving of NCP first: lowering
``v`` to its children can only break itemsets that hold a child of ``v``, so only the
transactions that hold a leaf under ``v`` are recounted.  A rule that cannot be lowered
now cannot be lowered later either (lowering others only makes the cut more specific), so
one pass reaches a minimal cut.  The result is never worse than the greedy cut and stays
k^m-anonymous.
"""

from __future__ import annotations

import heapq
from itertools import combinations

import numpy as np

from semtui.anonymize.hierarchy.counttree import CHUNK_ROWS, unique_sorted
from semtui.anonymize.hierarchy.problem import Problem, Progress


def lowerable(p: Problem, cut: np.ndarray, v: int) -> bool:
    """Whether the cut stays k^m-anonymous with rule ``v`` replaced by its children."""
    h = p.h
    kids = h.children(v)
    if len(kids) == 1:
        return True  # a one-child class: the same leaves, the same release
    new = cut.copy()
    for c in kids.tolist():
        new[h.leaves(c)] = c
    n = p.n_transactions
    row_of = np.repeat(np.arange(n, dtype=np.int64), np.diff(p.indptr))
    touched = np.zeros(n, dtype=bool)
    touched[row_of[(p.leaves >= v) & (p.leaves < v + h.size[v])]] = True
    sel = touched[row_of]
    base = h.n_nodes + 1
    key = unique_sorted(row_of[sel] * base + new[p.leaves[sel]])
    rows, nodes = key // base, key % base
    is_kid = np.zeros(h.n_nodes, dtype=bool)
    is_kid[kids] = True
    starts = np.flatnonzero(np.r_[True, rows[1:] != rows[:-1]]) if len(rows) else np.zeros(0, dtype=np.int64)
    lengths = np.diff(np.r_[starts, len(rows)])
    for size in range(1, p.m + 1):
        keys = []
        for L in np.unique(lengths[lengths >= size]).tolist():
            first = starts[lengths == L]
            idx = np.array(list(combinations(range(L), size)), dtype=np.int64)
            per = max(1, CHUNK_ROWS // len(idx))
            for s in range(0, len(first), per):
                mat = nodes[first[s:s + per, None] + np.arange(L)]
                sub = mat[:, idx].reshape(-1, size)
                sub = sub[is_kid[sub].any(1)]
                k = np.zeros(len(sub), dtype=np.int64)
                for j in range(size):
                    k = k * base + sub[:, j]
                keys.append(k)
        if keys:
            _, counts = unique_sorted(np.concatenate(keys), counts=True)
            if len(counts) and counts.min() < p.k:
                return False
    return True


def minimise(p: Problem, cut: np.ndarray, progress: Progress = None) -> tuple[np.ndarray, int]:
    """The cut with every rule the data does not need lowered; returns it and the number
    of rules lowered."""
    h = p.h
    cut = cut.copy()
    cost = p.node_count * p.node_ncp

    def saving(v: int) -> float:
        return float(cost[v] - cost[h.children(v)].sum())

    rules = [v for v in set(cut[h.leaf_order].tolist()) if not h.is_leaf[v]]
    heap = [(-saving(v), v) for v in rules]
    heapq.heapify(heap)
    lowered = tried = 0
    while heap:
        _, v = heapq.heappop(heap)
        tried += 1
        if lowerable(p, cut, v):
            for c in h.children(v).tolist():
                cut[h.leaves(c)] = c
                if not h.is_leaf[c]:
                    heapq.heappush(heap, (-saving(c), c))
            lowered += 1
        if progress is not None and tried % 32 == 0:
            progress(tried, tried + len(heap), "lowering rules the cut does not need")
    return cut, lowered
