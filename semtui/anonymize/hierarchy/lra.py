"""Local recoding anonymisation (LRA, §4.5, Algorithms 5 and 6): Gray-code partitioning
with flexible borders, then AA on every part on its own."""

from __future__ import annotations

from itertools import pairwise
from math import comb

import numpy as np

from semtui.anonymize.hierarchy.aa import aa
from semtui.anonymize.hierarchy.problem import Problem, Progress
from semtui.errors import InputError
from semtui.runtime import run_units

#: the paper's default flexibility f (transactions a border may move either way)
FLEXIBILITY = 10


def gray_order(p: Problem) -> np.ndarray:
    """Transactions sorted by their signatures read as Gray codes, ascending (Algorithm 6).

    Bit j of a signature is the j-th leaf of the hierarchy in preorder, most significant
    first, so siblings sit side by side.  Gray -> binary flips parity at every set bit, so
    two signatures compare at the first set-bit position where they differ: with an even
    number of set bits before it, the one holding the earlier bit is larger; with an odd
    number, smaller.  Sorting by (-pos0, +pos1, -pos2, ...) with an end mark below (even)
    or above (odd) every position realises exactly that order."""
    h = p.h
    n = p.n_transactions
    lengths = np.diff(p.indptr)
    width = int(lengths.max()) + 1 if n else 1
    big = h.n_leaves + 1
    rows = np.repeat(np.arange(n), lengths)
    pos = h.leaf_lo[p.leaves]
    order = np.lexsort((pos, rows))
    pos = pos[order]
    col = np.arange(len(pos)) - np.repeat(p.indptr[:-1], lengths)
    mat = np.zeros((n, width), dtype=np.int64)
    mat[rows, col] = np.where(col % 2 == 0, -pos, pos)
    ends = lengths
    mat[np.arange(n), ends] = np.where(ends % 2 == 0, -big, big)
    return np.lexsort(mat.T[::-1])


def gray_partition(p: Problem, parts: int, flexibility: int = FLEXIBILITY) -> list[np.ndarray]:
    """Split the Gray-ordered transactions into ``parts`` runs with about the same number of
    m-combinations each; a border moves within [t_eq - f, t_eq + f) to the neighbouring
    pair of largest Hamming distance."""
    order = gray_order(p)
    lengths = np.diff(p.indptr)[order]
    per_length = np.array([comb(L, p.m) for L in range(int(lengths.max(initial=0)) + 1)], dtype=float)
    weights = per_length[lengths]
    if weights.sum() == 0:
        weights = np.ones(len(order))
    cum = np.cumsum(weights)
    sets: dict[int, set] = {}

    def items(j: int) -> set:
        t = int(order[j])
        if t not in sets:
            sets[t] = set(p.leaves[p.indptr[t]:p.indptr[t + 1]].tolist())
        return sets[t]

    borders = [0]
    for i in range(1, parts):
        t_eq = int(np.searchsorted(cum, cum[-1] * i / parts, side="left")) + 1
        lo, hi = max(borders[-1] + 1, t_eq - flexibility), min(len(order) - 1, t_eq + flexibility)
        if lo >= hi:
            borders.append(min(max(t_eq, borders[-1] + 1), len(order)))
            continue
        best, best_d = t_eq, -1
        for hh in range(lo - 1, hi - 1):  # the pair (t_hh, t_hh+1); the border is after t_hh
            d = len(items(hh) ^ items(hh + 1))
            if d > best_d:
                best, best_d = hh + 1, d
        borders.append(best)
    borders.append(len(order))
    chunks = [np.sort(order[a:b]) for a, b in pairwise(borders)]
    for i, c in enumerate(chunks):
        nonempty = int(np.count_nonzero(np.diff(p.indptr)[c]))
        if 0 < nonempty < p.k:  # a part of empty transactions only has nothing to protect
            raise InputError(f"LRA: part {i + 1} of {parts} holds {nonempty} non-empty transactions, "
                             f"fewer than k={p.k}; use fewer --parts (or --parts auto)")
    return chunks


#: the most parts ``--parts auto`` makes (the paper's experiments use 3)
AUTO_PARTS = 3


def auto_partition(p: Problem, flexibility: int = FLEXIBILITY) -> list[np.ndarray]:
    """As many parts as keep >= k non-empty transactions each, at most AUTO_PARTS: one part
    (all the data) always does on solvable data."""
    for parts in range(min(AUTO_PARTS, max(p.n_nonempty // p.k, 1)), 1, -1):
        try:
            return gray_partition(p, parts, flexibility)
        except InputError:
            continue
    return [np.arange(p.n_transactions)]


def _aa_part(_shared, sub: Problem):
    """The kernel the executor runs for one part (nothing shared: each part is its own problem)."""
    return aa(sub)


def lra(p: Problem, parts: int | None = None, jobs: int = 1, flexibility: int = FLEXIBILITY,
        progress: Progress = None, scheduler: str | None = None) -> tuple[list[tuple[np.ndarray, np.ndarray]], dict]:
    """Returns the local cuts: (transaction indices, cut) per part; ``parts=None`` is auto."""
    p.check_solvable()
    if parts is not None and parts < 1:
        raise InputError(f"--parts must be at least 1 (got {parts})")
    chunks = auto_partition(p, flexibility) if parts is None else gray_partition(p, parts, flexibility)
    subs = [p.rows(c) for c in chunks]
    results = run_units(_aa_part, None, subs, jobs=jobs, progress=progress, message="LRA parts",
                        scheduler=scheduler)
    local = [(c, cut) for c, (cut, _) in zip(chunks, results)]
    stats = [st for _, st in results]
    return local, {"count_tree_nodes": max(s["count_tree_nodes"] for s in stats),
                   "parts": [{"transactions": len(c), "count_tree_nodes": s["count_tree_nodes"]}
                             for c, s in zip(chunks, stats)], "flexibility": flexibility}
