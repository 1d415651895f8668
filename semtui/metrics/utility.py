"""Information loss of a hierarchy generalisation (Terrovitis et al. 2011, §3.3): NCP, and
the multiple-level mining losses ML² and dML² (eqs. 1-2; how a level is read, and what the
paper leaves open, is said in :func:`ml2` and docs/anonymize.md).
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


# --------------------------------------------------------------------------- ML² and dML²
#: the paper's default support threshold (§6.2.1: "we used 2% as the default support threshold")
ML2_MIN_SUPPORT = 0.02
#: the largest itemset mined; the paper mines all frequent itemsets and does not say how large
#: they got: 4 is the largest m of its experiments (Fig. 21), and keeps a dense release or a tiny
#: support from an exponential number of itemsets.  None: no cap.
ML2_MAX_SIZE = 4


def ml2(original, release, hierarchy, *, min_support: float = ML2_MIN_SUPPORT,
        max_size: int | None = ML2_MAX_SIZE, original_path=None, release_path=None) -> dict:
    """Multiple-level mining loss ML² and dML² (Terrovitis et al. 2011, §3.3, eqs. 1-2).

    ``original`` and ``release`` are :class:`~semtui.model.TransactionData` (plain; a k^m
    release of it), ``hierarchy`` the :class:`~semtui.model.hierarchy.Hierarchy` it was
    generalised along.  Frequent itemsets (support >= ``min_support`` x the original's
    transactions, of at most ``max_size`` items) are mined at every level d = 1 .. the deepest
    leaf's depth (the root, level 0, says nothing and is left out), in both datasets:

    * **a level is a depth from the root** (docs/anonymize.md): at level d an item is read as its
      ancestor at depth d; a leaf shallower than d stays itself (an unbalanced hierarchy); a
      release item generalised to an internal node shallower than d is hidden at level d (it is
      too general to be seen there) -- on the balanced hierarchies ``hierarchy build`` makes,
      depth d is the paper's level h - d counted from the leaves;
    * ``ml2`` = 1 - sum_d |FI_d(release)| / sum_d |FI_d(original)| (eq. 1): the share of the
      original's frequent itemsets not found at their own level of the release (a global or local
      recoding never makes a new one: each level of the release is a subset of the original's);
    * ``dml2`` = sum over the original's frequent itemsets f at level d of d - d', d' the deepest
      level <= d where f's generalised form (its items' ancestors at depth d', repeats merged) is
      frequent in the release (0 when f itself is found; d when no level >= 1 has it), divided by
      sum_d |FI_d(original)| (eq. 2); ``dml2_missed`` divides by the itemsets not found at their
      own level instead, as the paper's Figs. 20 and 22 report it ("the theoretical minimum is 1").

    A release item is placed at its node: the node ``gen_labels`` names (the k^m release
    format), else the lowest common ancestor of its members (a leaf-list release; exact unless a
    node's observed leaves all sit under one child).  Returns ``{"ml2", "dml2", "dml2_missed",
    "min_support", "min_count", "max_size", "levels": [...]}``; ``ml2`` and the dML² figures are
    None when the original has no frequent itemset at any level.
    """
    from semtui.errors import InputError

    if not 0 < min_support <= 1:
        raise InputError(f"the support threshold must be in (0, 1] (got {min_support})", option="min_support")
    if max_size is not None and max_size < 1:
        raise InputError(f"the largest itemset size must be at least 1 (got {max_size})", option="max_size")
    h = hierarchy
    n = original.n_transactions
    if release.n_transactions != n:
        raise InputError(f"the release has {release.n_transactions} transactions, the original {n}", release_path)
    min_count = max(1, int(np.ceil(min_support * n - 1e-9)))
    o_nodes = _original_nodes(original, h, original_path)
    r_nodes = _release_nodes(release, h, release_path)
    o_rows, r_rows = original.row_of_token(), release.row_of_token()
    depth_max = int(h.depth[h.is_leaf].max()) if h.n_nodes > 1 else 0
    anc = _ancestors_at_depth(h, depth_max)
    found_o: list[np.ndarray] = []
    found_r: list[np.ndarray] = []
    levels = []
    for d in range(1, depth_max + 1):
        fo = _frequent(o_rows, anc[d][o_nodes], n, h.n_nodes, min_count, max_size)
        visible = h.is_leaf[r_nodes] | (h.depth[r_nodes] >= d)
        fr = _frequent(r_rows[visible], anc[d][r_nodes[visible]], n, h.n_nodes, min_count, max_size)
        found_o.append(fo)
        found_r.append(fr)
    width = max([x.shape[1] for x in found_o + found_r] + [1])
    pad = h.n_nodes  # sorts after every node id
    found_o = [_pad(x, width, pad) for x in found_o]
    found_r = [_pad(x, width, pad) for x in found_r]
    total = matched = 0
    dsum = 0
    missed = 0
    for d in range(1, depth_max + 1):
        fo, fr = found_o[d - 1], found_r[d - 1]
        here = _rows_in(fo, fr)
        dl = np.full(len(fo), d, dtype=np.int64)  # no level >= 1 holds it: the root's
        dl[here] = 0
        todo = ~here
        for d2 in range(d - 1, 0, -1):
            if not todo.any():
                break
            gen = _generalise(fo[todo], anc[d2], pad)
            hit = _rows_in(gen, found_r[d2 - 1])
            idx = np.flatnonzero(todo)[hit]
            dl[idx] = d - d2
            todo[idx] = False
        total += len(fo)
        matched += int(here.sum())
        dsum += int(dl.sum())
        missed += int((~here).sum())
        levels.append({"level": d, "nodes": int(((h.depth == d) | (h.is_leaf & (h.depth < d))).sum()),
                       "original": len(fo), "release": int(here.sum()),
                       "dml2": round(float(dl.mean()), 6) if len(fo) else None})
    return {
        "ml2": (1.0 - matched / total) if total else None,
        "dml2": dsum / total if total else None,
        "dml2_missed": dsum / missed if missed else (0.0 if total else None),
        "frequent_itemsets": total,
        "min_support": min_support,
        "min_count": min_count,
        "max_size": max_size,
        "levels": levels,
    }


def _original_nodes(original, h, path) -> np.ndarray:
    from semtui.errors import InputError

    if original.n_generalised:
        raise InputError("the original must be plain transactions", path)
    lookup = np.fromiter((-1 if h.get(x) is None else h.get(x) for x in original.vocab.items),
                         dtype=np.int64, count=len(original.vocab))
    nodes = lookup[original.tokens.astype(np.int64)]
    if (nodes < 0).any():
        bad = original.vocab[int(original.tokens[np.flatnonzero(nodes < 0)[0]])]
        raise InputError(f"item {bad!r} of the original is not in the hierarchy (another hierarchy?)", path)
    return nodes


def _release_nodes(release, h, path) -> np.ndarray:
    """The hierarchy node of every token of the release."""
    from semtui.errors import InputError

    names = release.vocab.items
    plain = np.fromiter((-1 if h.get(x) is None else h.get(x) for x in names), dtype=np.int64, count=len(names))
    g_node = np.full(release.n_generalised, -1, dtype=np.int64)
    if release.gen_labels is not None:
        g_node = np.fromiter((-1 if h.get(x) is None else h.get(x) for x in release.gen_labels),
                             dtype=np.int64, count=release.n_generalised)
    elif release.n_generalised:
        mem = plain[release.gen_members.astype(np.int64)]
        if (mem < 0).any():
            raise InputError(f"member {names[int(release.gen_members[np.flatnonzero(mem < 0)[0]])]!r} of a "
                             "generalised item is not in the hierarchy (another hierarchy?)", path)
        # the lowest common ancestor of a preorder-contiguous set: the deepest ancestor of the
        # first member whose subtree reaches the last
        owner = np.repeat(np.arange(release.n_generalised), np.diff(release.gen_indptr))
        lo = np.full(release.n_generalised, h.n_nodes, dtype=np.int64)
        hi = np.full(release.n_generalised, -1, dtype=np.int64)
        np.minimum.at(lo, owner, mem)
        np.maximum.at(hi, owner, mem)
        v = lo.copy()
        for _ in range(int(h.depth.max()) + 1):
            out = v + h.size[v] <= hi
            if not out.any():
                break
            v[out] = h.parent[v[out]]
        g_node = v
    tokens = release.tokens.astype(np.int64)
    nodes = np.full(len(tokens), -1, dtype=np.int64)
    is_plain = tokens >= 0
    nodes[is_plain] = plain[tokens[is_plain]]
    nodes[~is_plain] = g_node[-tokens[~is_plain] - 1]
    if (nodes < 0).any():
        t = int(tokens[np.flatnonzero(nodes < 0)[0]])
        what = names[t] if t >= 0 else release.gen_labels[-t - 1]
        raise InputError(f"item {what!r} of the release is not in the hierarchy (another hierarchy?)", path)
    return nodes


def _ancestors_at_depth(h, depth_max: int) -> np.ndarray:
    """``anc[d, v]``: v's ancestor at depth min(d, depth(v)) -- v itself when it is no deeper."""
    anc = np.tile(np.arange(h.n_nodes, dtype=np.int64), (depth_max + 1, 1))
    for d in range(depth_max + 1):
        row = anc[d]
        for k in range(d + 1, int(h.depth.max()) + 1):  # preorder: parents are settled first
            at = np.flatnonzero(h.depth == k)
            row[at] = row[h.parent[at]]
    return anc


def _frequent(rows: np.ndarray, items: np.ndarray, n: int, n_items: int, min_count: int,
              max_size: int | None) -> np.ndarray:
    """Every itemset of at most ``max_size`` items held by >= ``min_count`` of the ``n``
    transactions (``rows``/``items`` pairs, repeats allowed), as sorted rows padded with -1
    (Apriori, one sparse product per size)."""
    from scipy.sparse import csc_matrix

    x = csc_matrix((np.ones(len(rows), dtype=np.int32), (rows, items)), shape=(n, n_items))
    x.sum_duplicates()
    x.data[:] = 1
    sup = np.asarray(x.sum(axis=0)).ravel()
    f1 = np.flatnonzero(sup >= min_count)
    sets = [f1[:, None]]
    if len(f1) == 0:
        return np.zeros((0, 1), dtype=np.int64)
    xf = x[:, f1]
    m = xf
    last = np.arange(len(f1))  # position in f1 of each itemset's largest item
    size = 1
    while max_size is None or size < max_size:
        c = (m.T @ xf).tocoo()
        keep = (c.data >= min_count) & (c.col > last[c.row])
        if not keep.any():
            break
        r, col = c.row[keep], c.col[keep]
        order = np.lexsort((col, r))
        r, col = r[order], col[order]
        sets.append(np.hstack([sets[-1][r], f1[col][:, None]]))
        m = m[:, r].multiply(xf[:, col]).tocsc()
        last = col
        size += 1
    width = sets[-1].shape[1]
    return np.vstack([_pad(s, width, -1) for s in sets])


def _pad(a: np.ndarray, width: int, value: int) -> np.ndarray:
    """Rows sorted with ``value`` (-1 or the pad) last, widened to ``width``."""
    out = np.full((len(a), width), value, dtype=np.int64)
    out[:, :a.shape[1]] = a
    if value != -1:
        out[out == -1] = value
        out.sort(axis=1)
    return out


def _generalise(sets: np.ndarray, anc_d: np.ndarray, pad: int) -> np.ndarray:
    """Each itemset's items at one level up, repeats merged, rows re-sorted and re-padded."""
    g = np.where(sets == pad, pad, anc_d[np.minimum(sets, pad - 1)])
    g.sort(axis=1)
    dup = np.zeros_like(g, dtype=bool)
    dup[:, 1:] = g[:, 1:] == g[:, :-1]
    g[dup] = pad
    g.sort(axis=1)
    return g


def _rows_in(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Which rows of ``a`` are rows of ``b`` (same width)."""
    if len(a) == 0 or len(b) == 0:
        return np.zeros(len(a), dtype=bool)
    both = np.vstack([a, b])
    _, inv = np.unique(both, axis=0, return_inverse=True)
    inv = inv.ravel()
    return np.isin(inv[:len(a)], inv[len(a):])
