"""Apriori-based anonymisation (AA, §4.4, Algorithm 4)."""

from __future__ import annotations

import numpy as np

from semtui.anonymize.hierarchy import counttree as ct
from semtui.anonymize.hierarchy.da import da_pass, initial_encoding, level_encoding
from semtui.anonymize.hierarchy.problem import CutState, Problem, Progress


def aa(p: Problem, initial_cut: np.ndarray | None = None, progress: Progress = None) -> tuple[np.ndarray, dict]:
    """For i = 1..m: count the i-itemsets of the data expanded under c_out (items
    generalised in c_out dropped), then run the DA pass on that tree.  ``initial_cut``
    holds rules already committed (VPA's final pass)."""
    p.check_solvable()
    h = p.h
    anc = ct.ancestor_table(h)
    state = CutState(p, initial_cut)
    enc = initial_encoding(p, state, anc, p.m)
    per_level = []
    for size in range(1, p.m + 1):
        ind, ranks = ct.expand(p.indptr, p.leaves, state.cut, anc, enc.rank_of_node)
        if size > 1:  # what this level holds: the transactions under the rules of the levels before
            ct.check_count(ind, size, ct.said_m(p.m, p.asked_m),
                           f"AA's level {size} (under the rules of levels 1-{size - 1})" if size > 2
                           else "AA's level 2 (under the rules of level 1)")
        lenc = level_encoding(enc, size)
        keys, counts = ct.count_itemsets(ind, ranks, size, lenc)
        nodes = ct.prefix_nodes(keys, lenc)
        viol = lenc.decode(keys[counts < p.k])

        def support(q, sizes, keys=keys, counts=counts, size=size):
            out = ct.lookup(keys, counts, q)
            out[sizes < size] = p.k  # shorter itemsets passed the earlier levels
            return out

        fixes = da_pass(state, lenc, viol, support)
        per_level.append({"size": size, "count_tree_nodes": int(nodes), "itemsets": len(keys),
                          "violations": len(viol), "fixes": int(fixes)})
        if progress is not None:
            progress(size, p.m, f"AA level {size}")
    return state.cut, {"count_tree_nodes": max(x["count_tree_nodes"] for x in per_level),
                       "levels": per_level}
