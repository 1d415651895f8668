"""Optimal anonymisation (OA, §4.2, Algorithm 2): breadth-first over the lattice of cuts."""

from __future__ import annotations

from collections import deque

import numpy as np

from semtui.anonymize.hierarchy import counttree as ct
from semtui.anonymize.hierarchy.da import initial_encoding
from semtui.anonymize.hierarchy.problem import CutState, Problem, Progress
from semtui.errors import InputError

#: OA refuses hierarchies with more cuts than this (the paper's OA ran up to |I| = 60,
#: fanout 4: 44,218 cuts).
MAX_CUTS = 100_000


def oa(p: Problem, max_cuts: int = MAX_CUTS, progress: Progress = None) -> tuple[np.ndarray, dict]:
    """Explore cuts bottom-up from "no generalisation"; a cut that is k^m-anonymous is a
    candidate and its immediate ancestors are never explored from it (hash table H); the
    cheapest candidate (NCP) wins.  One full count-tree answers every check."""
    p.check_solvable()
    h = p.h
    n_cuts = h.count_cuts(max_cuts)
    if n_cuts > max_cuts:
        raise InputError(f"OA explores every cut of the hierarchy: this one ({h.n_leaves} leaves, "
                         f"{h.n_nodes} nodes) has more than {max_cuts:,} cuts, the limit of OA; "
                         "use --algorithm aa, da or vpa")
    anc = ct.ancestor_table(h)
    state0 = CutState(p)
    enc = initial_encoding(p, state0, anc, p.m)
    ind, ranks = ct.expand(p.indptr, p.leaves, state0.cut, anc, enc.rank_of_node)
    tree = ct.build_full_tree(ind, ranks, p.m, enc)
    digits = enc.decode(tree.keys)  # (itemsets, m) ranks, -1 pads
    node_of_rank = np.r_[enc.node_of_rank, h.n_nodes]  # pad -> extra slot (always "in the cut")
    item_nodes = node_of_rank[digits]
    weak = tree.counts < p.k
    item_nodes = item_nodes[weak]  # only itemsets below k can break a cut
    children = [h.children(v).tolist() for v in range(h.n_nodes)]
    parent = h.parent

    def anonymous(cut: frozenset) -> bool:
        in_cut = np.zeros(h.n_nodes + 1, dtype=bool)
        in_cut[list(cut)] = True
        in_cut[h.n_nodes] = True
        return not in_cut[item_nodes].all(1).any()

    def cost(cut: frozenset) -> float:
        total = 0.0
        for v in cut:
            total += p.node_count[v] * p.node_ncp[v]
        return total

    def ancestors_of(cut: frozenset):
        parents = {int(parent[v]) for v in cut if parent[v] >= 0}
        for q in sorted(parents):
            ch = children[q]
            if all(c in cut for c in ch):
                yield (cut - frozenset(ch)) | {q}

    bottom = frozenset(h.leaf_order.tolist())
    queue: deque = deque([bottom])
    queued = {bottom}
    marked: set = set()  # H
    best, best_cost = None, float("inf")
    examined = 0
    while queue:
        c = queue.popleft()
        if c not in queued:  # deleted from Q
            continue
        queued.discard(c)
        examined += 1
        if not anonymous(c):
            for a in ancestors_of(c):
                if a not in marked and a not in queued:
                    queue.append(a)
                    queued.add(a)
        else:
            for a in ancestors_of(c):
                marked.add(a)
                queued.discard(a)
            cc = cost(c)
            if cc < best_cost - 1e-12:
                best, best_cost = c, cc
        if progress is not None and examined % 256 == 0:
            progress(examined, n_cuts, "OA: cuts examined")
    assert best is not None  # the root cut is always anonymous once n_nonempty >= k
    return h.cut_from_nodes(best), {"count_tree_nodes": tree.n_nodes, "cuts_examined": examined,
                                    "cuts_in_lattice": n_cuts}
