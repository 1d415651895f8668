"""One k^m-anonymisation problem (data over hierarchy leaves) and the state of a cut."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from semtui.errors import InputError
from semtui.model.hierarchy import Hierarchy

Progress = Callable[[int, int, str], None] | None


@dataclass
class Problem:
    """Transactions as CSR over leaf node ids of ``h`` (each row without repeats)."""

    h: Hierarchy
    indptr: np.ndarray
    leaves: np.ndarray
    k: int
    m: int
    #: the -m the user gave, when ``m`` was lowered to the longest transaction (for messages)
    asked_m: int | None = None

    def __post_init__(self) -> None:
        h = self.h
        self.n_transactions = len(self.indptr) - 1
        self.n_nonempty = int(np.count_nonzero(np.diff(self.indptr)))
        #: C_p: occurrences of each leaf (by node id)
        self.leaf_count = np.bincount(self.leaves, minlength=h.n_nodes).astype(np.int64)
        in_order = self.leaf_count[h.leaf_order]
        cs = np.zeros(h.n_leaves + 1, dtype=np.int64)
        np.cumsum(in_order, out=cs[1:])
        #: C(a): occurrences of the leaves under each node
        self.node_count = cs[h.leaf_hi] - cs[h.leaf_lo]
        #: NCP(a) of §3.3: |leaves(a)| / |I|, 0 for a single leaf
        under = h.n_leaves_under
        self.node_ncp = np.where(under > 1, under / h.n_leaves, 0.0)
        self.total = int(self.leaf_count.sum())

    def check_solvable(self) -> None:
        if self.k < 1 or self.m < 1:
            raise InputError(f"k and m must be at least 1 (got k={self.k}, m={self.m})")
        if 0 < self.n_nonempty < self.k:
            raise InputError(f"the data has {self.n_nonempty} non-empty transactions, fewer than "
                             f"k={self.k}: no generalisation makes it k^m-anonymous")

    def project(self, keep_leaf: np.ndarray) -> Problem:
        """The same transactions with only the leaves where ``keep_leaf`` is true (VPA)."""
        keep = keep_leaf[self.leaves]
        lengths = np.bincount(np.repeat(np.arange(self.n_transactions), np.diff(self.indptr))[keep],
                              minlength=self.n_transactions)
        indptr = np.zeros(self.n_transactions + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        return Problem(self.h, indptr, self.leaves[keep], self.k, self.m, self.asked_m)

    def rows(self, rows: np.ndarray) -> Problem:
        """The sub-problem of the given transactions (LRA)."""
        lengths = np.diff(self.indptr)[rows]
        indptr = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        idx = np.repeat(self.indptr[rows], lengths) + (np.arange(indptr[-1]) - np.repeat(indptr[:-1], lengths))
        return Problem(self.h, indptr, self.leaves[idx], self.k, self.m, self.asked_m)


class CutState:
    """A cut being built: the node of every leaf, which nodes lie strictly below the cut
    (``gone``: generalised away), and the running NCP numerator per leaf."""

    def __init__(self, p: Problem, cut_of_leaf: np.ndarray | None = None):
        self.p = p
        h = p.h
        self.cut = h.bottom_cut() if cut_of_leaf is None else cut_of_leaf.copy()
        # one extra slot, always False, that padding (-1) indexes
        self.gone = np.zeros(h.n_nodes + 1, dtype=bool)
        for v in set(self.cut[h.leaf_order].tolist()):
            self.gone[v + 1:v + h.size[v]] = True
        self._loss = (p.leaf_count[h.leaf_order] * p.node_ncp[self.cut[h.leaf_order]]).astype(float)
        self._cs: np.ndarray | None = None
        self.rules: list[int] = []

    def current_loss(self, nodes: np.ndarray) -> np.ndarray:
        """The NCP numerator the leaves under each node carry now."""
        if self._cs is None:
            self._cs = np.r_[0.0, np.cumsum(self._loss)]
        h = self.p.h
        return self._cs[h.leaf_hi[nodes]] - self._cs[h.leaf_lo[nodes]]

    def delta(self, nodes: np.ndarray) -> np.ndarray:
        """The rise of the NCP numerator if each node (alone) joined the cut."""
        p = self.p
        return p.node_count[nodes] * p.node_ncp[nodes] - self.current_loss(nodes)

    def apply(self, v: int) -> None:
        """Add the rule ``leaves(v) -> v``."""
        h = self.p.h
        v = int(v)
        if self.cut[h.leaf_order[h.leaf_lo[v]]] == v:
            return
        self.cut[h.leaves(v)] = v
        self.gone[v + 1:v + h.size[v]] = True
        self._loss[h.leaf_lo[v]:h.leaf_hi[v]] = self.p.leaf_count[h.leaves(v)] * self.p.node_ncp[v]
        self._cs = None
        self.rules.append(v)

    def ncp(self) -> float:
        return float(self._loss.sum() / self.p.total) if self.p.total else 0.0
