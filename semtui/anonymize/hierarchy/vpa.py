"""Vertical partitioning anonymisation (VPA, §4.6, Algorithm 7)."""

from __future__ import annotations

import numpy as np

from semtui.anonymize.hierarchy.aa import aa
from semtui.anonymize.hierarchy.problem import Problem, Progress
from semtui.errors import InputError
from semtui.runtime import run_units


def domain_parts(p: Problem, parts: int, level: int = 1) -> list[np.ndarray]:
    """Split the leaves into ``parts`` runs of whole classes of hierarchy level ``level``
    (0 = leaves), contiguous in preorder, with about the same number of items each."""
    h = p.h
    leaves = h.leaf_order
    unit = np.array([h.ancestor_at_height(int(v), level) for v in leaves])
    starts = np.flatnonzero(np.r_[True, unit[1:] != unit[:-1]])
    sizes = np.diff(np.r_[starts, len(leaves)])
    cum = np.cumsum(sizes)
    out, begin = [], 0
    for i in range(1, parts + 1):
        end = int(np.searchsorted(cum, len(leaves) * i / parts, side="left")) + 1 if i < parts else len(starts)
        end = max(end, begin + 1) if begin < len(starts) else begin
        if end > begin:
            lo = starts[begin]
            hi = starts[end] if end < len(starts) else len(leaves)
            out.append(leaves[lo:hi])
        begin = end
    return [x for x in out if len(x)]


def _aa_part(_shared, sub: Problem):
    """The kernel the executor runs for one part of the domain."""
    return aa(sub)


def vpa(p: Problem, parts: int = 3, jobs: int = 1, level: int = 1,
        progress: Progress = None, scheduler: str | None = None) -> tuple[np.ndarray, dict]:
    """AA on every projection of the data onto a part of the domain; the rules found are
    committed (HC_temp) and a final AA pass over all of D starts from them."""
    p.check_solvable()
    if parts < 1:
        raise InputError(f"--parts must be at least 1 (got {parts})")
    h = p.h
    groups = domain_parts(p, parts, level)
    subs = []
    for g in groups:
        keep = np.zeros(h.n_nodes, dtype=bool)
        keep[g] = True
        sub = p.project(keep)
        if sub.n_nonempty >= p.k:  # a part seen by fewer than k transactions is left to the final pass
            subs.append(sub)
    results = run_units(_aa_part, None, subs, jobs=jobs, progress=progress, message="VPA parts",
                        scheduler=scheduler)
    rules = set()
    for cut, _ in results:
        rules.update(v for v in set(cut[h.leaf_order].tolist()) if not h.is_leaf[v])
    temp = h.cut_from_nodes(rules)
    cut, final = aa(p, initial_cut=temp, progress=progress)
    part_nodes = [st["count_tree_nodes"] for _, st in results]
    return cut, {"count_tree_nodes": max(part_nodes + [final["count_tree_nodes"]]),
                 "parts": [{"items": len(g)} for g in groups],
                 "part_count_tree_nodes": part_nodes, "final_pass": final, "partition_level": level}
