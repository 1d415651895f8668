"""Direct anonymisation (DA, §4.3, Algorithm 3), and the DA pass that AA runs per level."""

from __future__ import annotations

import dataclasses
from itertools import product

import numpy as np

from semtui.anonymize.hierarchy import counttree as ct
from semtui.anonymize.hierarchy.problem import CutState, Problem, Progress

#: violations checked at once for "has an item been generalised in c_out?"
BLOCK = 4096


def best_generalisation(state: CutState, items: list[int], enc: ct.Encoding, support) -> list[int]:
    """The new rules, among the generalisations of the items of J only, that make J
    k-anonymous at the least NCP (§4.3: "restricted only to the generalization rules that affect the
    items of J"; the minimal-cost solution is a minimal cut because NCP is monotone).

    ``support(keys, sizes)`` gives the supports of generalised itemsets: ``None`` entries
    mean "shorter than J, already known to be k-anonymous" (AA's level-wise guarantee)."""
    p = state.p
    h = p.h
    chains = [h.chain(v) for v in items]
    combos = np.array(list(product(*chains)), dtype=np.int64)  # (C, |J|); J itself first
    climb = np.array(list(product(*[range(len(c)) for c in chains]))).sum(1)  # levels climbed
    s = len(items)
    n = len(combos)
    has_root = (combos == h.root).any(1)
    # an item is dropped when another chosen node covers it (ancestor, or equal and earlier)
    covered = np.zeros((n, s), dtype=bool)
    for x in range(s):
        for y in range(s):
            if x != y:
                a, b = combos[:, x], combos[:, y]
                covered[:, y] |= h.is_ancestor(a, b) | ((a == b) & (x < y))
    maximal = ~covered
    uniq = np.unique(combos)
    delta = np.zeros(h.n_nodes)
    delta[uniq] = state.delta(uniq)
    # an item of J kept as it is costs nothing and commits no rule: J may hold a class
    # above the cut (B in the path B-a2 of §4.3), which the fix must not force into the cut
    changed = maximal & (combos != np.asarray(items)[None, :])
    cost = np.where(changed, delta[combos], 0.0).sum(1)
    cost[has_root] = delta[h.root]
    sizes = maximal.sum(1)
    big = len(enc.node_of_rank) + 1
    r = np.where(maximal, enc.rank_of_node[combos], big)
    r.sort(axis=1)
    r[r == big] = -1
    keys = enc.encode_ranks(r)
    sup = support(keys, sizes)
    solves = has_root | (sup >= p.k)
    solves[0] = False  # J itself is the violation
    cand = np.flatnonzero(solves)
    # least NCP; among equal costs the fewest levels climbed (a minimal cut), then the first
    best = cand[np.lexsort((cand, climb[cand], np.round(cost[cand], 9)))[0]]
    if has_root[best]:
        return [h.root]
    return combos[best][changed[best]].tolist()


def da_pass(state: CutState, enc: ct.Encoding, violations: np.ndarray, support,
            progress: Progress = None) -> int:
    """Algorithm 3 lines 3-10 over the violating tree leaves, given in preorder as rows of
    ranks: skip a path holding an item generalised in c_out, else fix it.  Returns the
    number of fixes."""
    node_of_rank = np.r_[enc.node_of_rank, -1]  # rank -1 (padding) -> node -1 -> sentinel
    vnodes = node_of_rank[violations]
    fixes = 0
    pos = 0
    total = len(vnodes)
    while pos < total:
        block = vnodes[pos:pos + BLOCK]
        alive = ~state.gone[block].any(1)
        if not alive.any():
            pos += len(block)
            continue
        j = pos + int(np.argmax(alive))
        row = vnodes[j]
        for v in best_generalisation(state, row[row >= 0].tolist(), enc, support):
            state.apply(v)
        fixes += 1
        pos = j + 1
        if progress is not None and fixes % 64 == 0:
            progress(pos, total, "fixing violations")
    return fixes


def _expanded(p: Problem, state: CutState, anc, rank):
    return ct.expand(p.indptr, p.leaves, state.cut, anc, rank)


def initial_encoding(p: Problem, state: CutState, anc: np.ndarray, width: int) -> ct.Encoding:
    """Ranks from the supports of the (expanded) items at the start."""
    h = p.h
    ident = np.arange(h.n_nodes, dtype=np.int64)
    ident[h.root] = 0
    _, nodes = ct.expand(p.indptr, p.leaves, state.cut, anc, ident)
    supports = np.bincount(nodes, minlength=h.n_nodes)
    return ct.make_encoding(h, supports, width)


def da(p: Problem, progress: Progress = None) -> tuple[np.ndarray, dict]:
    """DA: one full count-tree of all itemsets up to m, one preorder pass.  Tree leaves
    shorter than m (from transactions shorter than m) are checked too; should a pass
    leave a violation (it cannot for m-itemsets, see docs/anonymize.md), the tree is
    rebuilt under the current cut and the pass repeated."""
    p.check_solvable()
    h = p.h
    anc = ct.ancestor_table(h)
    state = CutState(p)
    enc = initial_encoding(p, state, anc, p.m)
    passes, nodes = 0, 0
    while True:
        ind, ranks = _expanded(p, state, anc, enc.rank_of_node)
        tree = ct.build_full_tree(ind, ranks, p.m, enc, progress)
        nodes = max(nodes, tree.n_nodes)
        mask = tree.checked() & (tree.counts < p.k)
        viol = enc.decode(tree.keys[mask])

        def support(keys, sizes, tree=tree):
            return tree.lookup(keys)

        passes += 1
        if da_pass(state, enc, viol, support, progress) == 0:
            break
    return state.cut, {"count_tree_nodes": int(nodes), "passes": passes}


def level_encoding(enc: ct.Encoding, size: int) -> ct.Encoding:
    return dataclasses.replace(enc, width=size)
