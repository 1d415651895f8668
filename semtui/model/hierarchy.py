"""A generalisation hierarchy over an item domain (Terrovitis et al. 2011, §3.1).

Nodes carry integer ids in depth-first preorder, so the descendants of node ``v`` are
exactly the ids ``v .. v + size[v] - 1`` and its leaves are one contiguous slice of the
leaves in preorder: ``leaf_order[leaf_lo[v]:leaf_hi[v]]`` (a CSR whose index arrays are
``leaf_lo``/``leaf_hi``).  A *cut* (§3.2) is a set of nodes whose subtrees partition the
leaves; it is held as ``cut_of_leaf``: for each leaf (by node id) the cut node above it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np


class Hierarchy:
    """A rooted tree over labelled nodes; the leaves are the item domain ``I``."""

    def __init__(self, labels: Sequence[str], parent: Sequence[int]):
        """``parent[v]`` is -1 for the root only; nodes may come in any order (they are
        renumbered in preorder, children in first-seen order)."""
        n = len(labels)
        parent = np.asarray(parent, dtype=np.int64)
        roots = np.flatnonzero(parent < 0)
        if len(roots) != 1:
            raise ValueError(f"a hierarchy needs exactly one root, got {len(roots)}")
        children: list[list[int]] = [[] for _ in range(n)]
        for v in range(n):
            if parent[v] >= 0:
                children[int(parent[v])].append(v)
        order: list[int] = []
        stack = [int(roots[0])]
        while stack:
            v = stack.pop()
            order.append(v)
            stack.extend(reversed(children[v]))
        if len(order) != n:
            raise ValueError("the hierarchy has nodes unreachable from its root (a cycle)")
        new_id = np.empty(n, dtype=np.int64)
        new_id[np.asarray(order)] = np.arange(n)
        self.labels: list[str] = [labels[v] for v in order]
        self.parent = np.full(n, -1, dtype=np.int64)
        old_parent = parent[np.asarray(order)]
        has = old_parent >= 0
        self.parent[has] = new_id[old_parent[has]]
        self._finish()

    def _finish(self) -> None:
        n = len(self.labels)
        par = self.parent
        self.n_nodes = n
        self.root = 0
        depth = np.zeros(n, dtype=np.int64)
        for v in range(1, n):  # preorder: a parent comes before its children
            depth[v] = depth[par[v]] + 1
        self.depth = depth
        n_children = np.bincount(par[1:], minlength=n)
        self.is_leaf = n_children == 0
        size = np.ones(n, dtype=np.int64)
        for v in range(n - 1, 0, -1):
            size[par[v]] += size[v]
        self.size = size
        #: leaves in preorder; node v's leaves are leaf_order[leaf_lo[v]:leaf_hi[v]]
        self.leaf_order = np.flatnonzero(self.is_leaf)
        ids = np.arange(n)
        self.leaf_lo = np.searchsorted(self.leaf_order, ids, side="left")
        self.leaf_hi = np.searchsorted(self.leaf_order, ids + size, side="left")
        self.n_leaves_under = self.leaf_hi - self.leaf_lo
        #: height of the leaf-to-root path in nodes (the paper's h for a balanced tree)
        self.height = int(depth[self.is_leaf].max()) + 1 if n else 0
        self._index = {label: v for v, label in enumerate(self.labels)}

    # ------------------------------------------------------------------ facts
    @property
    def n_leaves(self) -> int:
        return len(self.leaf_order)

    @property
    def leaf_labels(self) -> list[str]:
        return [self.labels[v] for v in self.leaf_order]

    def node(self, label: str) -> int:
        return self._index[label]

    def get(self, label: str) -> int | None:
        return self._index.get(label)

    def leaves(self, v: int) -> np.ndarray:
        """The leaf node ids under ``v`` (``v`` itself for a leaf)."""
        return self.leaf_order[self.leaf_lo[v]:self.leaf_hi[v]]

    def ancestors(self, v: int) -> list[int]:
        """``v``'s proper ancestors, nearest first, root last."""
        out = []
        p = int(self.parent[v])
        while p >= 0:
            out.append(p)
            p = int(self.parent[p])
        return out

    def chain(self, v: int) -> list[int]:
        """``v`` and its ancestors up to the root."""
        return [v, *self.ancestors(v)]

    def is_ancestor(self, a, b):
        """Whether ``a`` is a proper ancestor of ``b`` (vectorised over arrays)."""
        a = np.asarray(a)
        b = np.asarray(b)
        return (a < b) & (b < a + self.size[a])

    def children(self, v: int) -> np.ndarray:
        return np.flatnonzero(self.parent == v)

    def level_counts(self) -> list[int]:
        """Nodes per depth, root first."""
        return np.bincount(self.depth).tolist()

    def fanout(self) -> float:
        internal = ~self.is_leaf
        return float(np.bincount(self.parent[1:], minlength=self.n_nodes)[internal].mean()) if internal.any() else 0.0

    def ancestor_at_height(self, leaf: int, level: int) -> int:
        """The ancestor ``level`` steps above ``leaf`` (capped below the root, unless the leaf
        is the root's child)."""
        v = leaf
        for _ in range(level):
            p = int(self.parent[v])
            if p < 0 or p == self.root:
                break
            v = p
        return v

    # ------------------------------------------------------------------ cuts
    def bottom_cut(self) -> np.ndarray:
        """The cut of no generalisation: every leaf maps to itself."""
        cut = np.full(self.n_nodes, -1, dtype=np.int64)
        cut[self.leaf_order] = self.leaf_order
        return cut

    def cut_nodes(self, cut_of_leaf: np.ndarray) -> list[int]:
        """The nodes of a cut, in preorder."""
        return sorted(set(cut_of_leaf[self.leaf_order].tolist()))

    def apply_rule(self, cut_of_leaf: np.ndarray, v: int) -> None:
        """Add the rule ``leaves(v) -> v`` to the cut (in place)."""
        cut_of_leaf[self.leaves(v)] = v

    def cut_from_nodes(self, nodes: Iterable[int]) -> np.ndarray:
        """The cut that applies the given rules; overlapping rules keep the most general."""
        cut = self.bottom_cut()
        for v in sorted(set(int(x) for x in nodes), key=lambda x: self.depth[x], reverse=True):
            cut[self.leaves(v)] = v
        return cut

    def count_cuts(self, limit: int | None = None) -> int:
        """The number of cuts (T(v) = 1 + prod T(child); a leaf has 1), capped at ``limit + 1``."""
        t = [1] * self.n_nodes
        cap = None if limit is None else limit + 1
        for v in range(self.n_nodes - 1, -1, -1):
            if self.is_leaf[v]:
                continue
            prod = 1
            for c in self.children(v).tolist():
                prod *= t[c]
                if cap is not None and prod > cap:
                    prod = cap
                    break
            t[v] = 1 + prod if cap is None else min(cap, 1 + prod)
        return t[self.root]

    def __repr__(self) -> str:
        return f"Hierarchy({self.n_leaves} leaves, {self.n_nodes} nodes, height {self.height})"


def from_paths(paths: Sequence[Sequence[str]]) -> Hierarchy:
    """Build from leaf-to-root label paths that are already known to be consistent."""
    index: dict[str, int] = {}
    labels: list[str] = []
    parent: list[int] = []
    for path in paths:
        prev = -1
        for label in reversed(path):
            v = index.get(label)
            if v is None:
                v = index[label] = len(labels)
                labels.append(label)
                parent.append(prev)
            prev = v
    return Hierarchy(labels, parent)


def balanced(items: Sequence[str], fanout: int) -> Hierarchy:
    """The artificial hierarchy of the paper's §6: consecutive items grouped by ``fanout``,
    level after level, up to one root ``*``; a class is labelled ``first,last`` leaf."""
    if fanout < 2:
        raise ValueError("fanout must be at least 2")
    paths: list[list[str]] = [[it] for it in items]
    level = [(it, it, [i]) for i, it in enumerate(items)]  # (first leaf, last leaf, leaf indices)
    used = set(items)
    height = 0
    while len(level) > fanout:
        height += 1
        nxt = []
        for s in range(0, len(level), fanout):
            group = level[s:s + fanout]
            first, last = group[0][0], group[-1][1]
            idx = [i for g in group for i in g[2]]
            label = f"{first},{last}"
            if label in used:  # a one-member class repeats its child's range
                label = f"{label}/{height}"
            used.add(label)
            for i in idx:
                paths[i].append(label)
            nxt.append((first, last, idx))
        level = nxt
    for p in paths:
        p.append("*")
    return from_paths(paths)
