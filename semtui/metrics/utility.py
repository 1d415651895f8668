"""Information loss of a hierarchy generalisation (Terrovitis et al. 2011, §3.3).

ML² and dML² (eqs. 1-2) are left out: they need "the generalisation level" of a frequent
itemset and a multilevel mining algorithm the paper does not pin down (levels of an
unbalanced hierarchy, itemsets mixing levels), so any definition would be a guess.
"""

from __future__ import annotations

import numpy as np


def node_ncp(n_leaves_under: np.ndarray, n_leaves: int) -> np.ndarray:
    """NCP of an item generalised to each node: |u_p| / |I|, and 0 when |u_p| = 1."""
    under = np.asarray(n_leaves_under)
    return np.where(under > 1, under / max(n_leaves, 1), 0.0)


def ncp(leaf_counts: np.ndarray, node_of_leaf: np.ndarray, n_leaves_under: np.ndarray, n_leaves: int) -> float:
    """NCP(D) = sum_p C_p NCP(p) / sum_p C_p over the leaves p, each at its cut node."""
    counts = np.asarray(leaf_counts, dtype=float)
    total = counts.sum()
    if total == 0:
        return 0.0
    return float((counts * node_ncp(np.asarray(n_leaves_under)[node_of_leaf], n_leaves)).sum() / total)


def ncp_occurrences(occurrence_nodes: np.ndarray, n_leaves_under: np.ndarray, n_leaves: int) -> float:
    """NCP(D) from the node every item occurrence was published as (local recoding too)."""
    nodes = np.asarray(occurrence_nodes)
    if len(nodes) == 0:
        return 0.0
    return float(node_ncp(np.asarray(n_leaves_under)[nodes], n_leaves).mean())
