"""HORPART: split the transactions into clusters of at most ``max_cluster_size``.

Terrovitis et al. 2012, as summarised in disassociation-attack-alshuhail-shao §2 and
../shared/ALGORITHMS.md §4::

    HORPART(D, ignore):
        if |D| <= N: return {D}
        a = the most frequent item of D not in ignore
        D1 = transactions of D that hold a;  D2 = D - D1
        return HORPART(D1, ignore + {a}) + HORPART(D2, ignore)

Ties between equally frequent items go to the lowest item id (the item seen first in the
file; for FIMI files, the smallest numeric id).  A node whose transactions hold no item
outside ``ignore`` cannot be split: every transaction of it is exactly ``ignore``, and it
becomes one cluster however large.  Clusters come out in depth-first order, D1 before D2.

Speed.  A plain recursion recounts the supports of every node from its transactions, and
the chain of "D2" nodes (the transactions without the most frequent item, then without the
next, ...) makes that quadratic.  Here each node carries its support vector; a split counts
only the *smaller* child from its tokens (one ``bincount``) and gets the other by
subtraction, so the tokens are counted O(log n) times in all.  The transactions of the
child that holds ``a`` come from ``a``'s column of a CSC index, filtered by a node label per
transaction.  Every step is a handful of numpy calls; the Python loop is over tree nodes.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

Progress = Callable[[int, int, str], None] | None


def _gather(indptr: np.ndarray, items: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The tokens of ``rows`` (concatenated)."""
    starts = indptr[rows]
    lens = indptr[rows + 1] - starts
    total = int(lens.sum())
    if total == 0:
        return items[:0]
    offs = np.repeat(starts - (np.cumsum(lens) - lens), lens)
    return items[offs + np.arange(total, dtype=np.int64)]


def horpart(
    indptr: np.ndarray,
    items: np.ndarray,
    n_items: int,
    max_cluster_size: int,
    progress: Progress = None,
) -> list[np.ndarray]:
    """Clusters (arrays of ascending transaction indices) of the CSR transactions, in
    depth-first order.  Together they partition ``range(len(indptr) - 1)``."""
    return horpart_tree(indptr, items, n_items, max_cluster_size, progress)[0]


def horpart_tree(
    indptr: np.ndarray,
    items: np.ndarray,
    n_items: int,
    max_cluster_size: int,
    progress: Progress = None,
) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    """:func:`horpart` with the partition's tree, for REFINE's joint clusters: the clusters,
    the parent of every tree node (node 0 is the root, parent -1) and the node of every
    cluster.  Clusters come out in depth-first order, so the clusters under any node are a
    contiguous run of cluster indices."""
    n = len(indptr) - 1
    parent: list[int] = [-1]
    cluster_node: list[int] = []
    if n == 0:
        return [], np.asarray(parent, dtype=np.int64), np.zeros(0, dtype=np.int64)
    items = np.asarray(items, dtype=np.int64)
    lengths = np.diff(indptr)
    row_of_tok = np.repeat(np.arange(n, dtype=np.int64), lengths)
    order = np.argsort(items, kind="stable")
    col_rows = row_of_tok[order]  # rows of each item, ascending within the item
    col_ptr = np.zeros(n_items + 1, dtype=np.int64)
    np.cumsum(np.bincount(items, minlength=n_items), out=col_ptr[1:])
    label = np.zeros(n, dtype=np.int64)

    def count(rows: np.ndarray, ignore: list[int]) -> np.ndarray:
        c = np.bincount(_gather(indptr, items, rows), minlength=n_items)
        if ignore:
            c[ignore] = 0
        return c

    clusters: list[np.ndarray] = []
    done = 0
    next_label = 1
    # (label, rows, supports with ignored items zeroed, ignore list, tree node)
    stack = [(0, np.arange(n, dtype=np.int64), np.bincount(items, minlength=n_items), [], 0)]

    def child(of: int) -> int:
        parent.append(of)
        return len(parent) - 1

    while stack:
        nid, rows, counts, ignore, node = stack.pop()
        a = int(np.argmax(counts)) if len(rows) > max_cluster_size else -1
        if a < 0 or counts[a] == 0:
            clusters.append(rows)
            cluster_node.append(node)
            done += len(rows)
            if progress is not None:
                progress(done, n, "HORPART")
            continue
        cand = col_rows[col_ptr[a]:col_ptr[a + 1]]
        if 8 * len(rows) < len(cand):  # a small node: look its rows up in a's column
            pos = np.searchsorted(cand, rows)
            has = cand[np.minimum(pos, len(cand) - 1)] == rows
            d1, d2 = rows[has], rows[~has]
            label[d1] = next_label
        else:  # a large node: filter a's column by the node's label
            d1 = cand[label[cand] == nid]
            label[d1] = next_label
            d2 = rows[label[rows] == nid]
        if len(d1) <= max_cluster_size and len(d2) <= max_cluster_size:
            # both children are clusters: no supports needed
            if len(d2):
                stack.append((nid, d2, counts, ignore, child(node)))
            stack.append((next_label, d1, counts, ignore, child(node)))
            next_label += 1
            continue
        ignore1 = ignore + [a]
        if len(d1) <= len(d2):
            c1 = count(d1, ignore1)
            c2 = counts - c1
            c2[a] = 0
        else:
            c2 = count(d2, ignore)
            c1 = counts - c2
            c1[a] = 0
        if len(d2):
            stack.append((nid, d2, c2, ignore, child(node)))
        stack.append((next_label, d1, c1, ignore1, child(node)))
        next_label += 1
    return clusters, np.asarray(parent, dtype=np.int64), np.asarray(cluster_node, dtype=np.int64)
