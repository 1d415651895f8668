"""k^m breakage of a re-association (Terrovitis et al.'s k^m-anonymity, the guarantee
disassociation gives): the itemsets of size 2..m with support in (0, k) in the whole original --
the *protected* itemsets -- that a cluster's transactions hold, and those its reconstruction
exposes, counted a batch of closed clusters at a time (:mod:`.merge` feeds it) and a block of
rows and pairs at a time, so that no cluster, however large, is paired whole."""

from __future__ import annotations

import numpy as np

#: item pairs counted at once (the protected pairs of the original, a batch's protected and
#: exposed pairs), within windows of at most _PAIR_ROWS rows
_PAIRS = 1_000_000
_PAIR_ROWS = 100_000


class KmCounter:
    """k^m breakage per cluster, a batch of closed clusters at a time: the protected itemsets
    (size 2..m, support in (0, k) in the whole original) held by a cluster's transactions, and
    those its reconstruction exposes (together in a reconstructed transaction that really holds
    them).  An itemset protected in two clusters counts in each."""

    def __init__(self, x, k: int, m: int):
        self.x, self.k, self.m = x, k, m
        self.n_items = x.shape[1]
        self.prot_codes = _protected_pair_codes(x, k)
        self.protected3 = None
        if m >= 3:
            from semtui.fileio import drop_pages
            from semtui.metrics.reassociation import protected_itemsets

            rows_x = (x.indices[x.indptr[i]:x.indptr[i + 1]].tolist() for i in range(x.shape[0]))
            self.protected3 = protected_itemsets(rows_x, k, m)
            drop_pages(x)

    def count(self, rows: list[np.ndarray], recon: dict[str, list[list[tuple]]]) -> tuple[np.ndarray, dict]:
        """(protected per cluster, {label: exposed per cluster}) for the clusters whose
        transactions are ``rows`` and whose reconstruction is ``recon[label][i]`` ((rows, items)
        pieces)."""
        from scipy.sparse import csr_matrix

        from semtui.fileio import drop_pages

        nb = len(rows)
        lens = np.fromiter((len(r) for r in rows), dtype=np.int64, count=nb)
        all_rows = np.concatenate(rows + [np.zeros(0, np.int64)]).astype(np.int64)
        label = np.repeat(np.arange(nb, dtype=np.int64), lens)
        sub = self.x[all_rows]
        drop_pages(self.x)
        order = np.argsort(all_rows, kind="stable")   # a reconstructed row's place in ``sub``
        ordered = all_rows[order]
        n_items = self.n_items
        prot = self._per_cluster(sub, label, nb)
        exposed = {}
        ys = {}
        for lab, pieces in recon.items():
            rr = np.concatenate([p[0] for per in pieces for p in per] + [np.zeros(0, np.int64)]).astype(np.int64)
            ii = np.concatenate([p[1] for per in pieces for p in per] + [np.zeros(0, np.int64)]).astype(np.int64)
            at = order[np.searchsorted(ordered, rr)] if len(rr) else rr
            rec = csr_matrix((np.ones(len(rr), dtype=np.int8), (at, ii)), shape=(len(all_rows), n_items))
            rec.sum_duplicates()
            rec.data[:] = 1
            y = rec.multiply(sub).tocsr()
            y.eliminate_zeros()
            exposed[lab] = self._per_cluster(y, label, nb)
            ys[lab] = y
        if self.protected3 is not None:
            prot = prot.copy()
            self._add_larger(sub, label, prot)
            for lab, y in ys.items():
                exposed[lab] = exposed[lab].copy()
                self._add_larger(y, label, exposed[lab])
        return prot, exposed

    def _per_cluster(self, matrix, label: np.ndarray, nb: int) -> np.ndarray:
        """The distinct protected pairs the rows of ``matrix`` hold, per cluster (``label`` of
        each row), a block of pairs at a time (a cluster of 369,000 records is never paired
        whole)."""
        from semtui.metrics.reassociation import row_pairs

        n_items = self.n_items
        span = n_items * n_items + 1
        found = np.zeros(0, dtype=np.int64)
        for lo, block in _pair_blocks(matrix):
            r, a, b = row_pairs(block.indptr, block.indices)
            codes = a * n_items + b
            keep = np.isin(codes, self.prot_codes)
            found = np.union1d(found, label[lo + r[keep]] * span + codes[keep])
        return np.bincount(found // span, minlength=nb)

    def _add_larger(self, matrix, label: np.ndarray, out: np.ndarray) -> None:
        """Itemsets of size 3..m, by enumeration (only for m >= 3)."""
        from itertools import combinations

        seen: set = set()
        for i in range(matrix.shape[0]):
            cl = int(label[i])
            items = sorted(matrix.indices[matrix.indptr[i]:matrix.indptr[i + 1]].tolist())
            for size in range(3, self.m + 1):
                for cmb in combinations(items, size):
                    if cmb in self.protected3 and (cl, cmb) not in seen:
                        seen.add((cl, cmb))
                        out[cl] += 1


def _pair_blocks(x, limit: int | None = None):
    """``(first row, rows of x)`` holding at most ``limit`` item pairs together (or one row),
    over windows of _PAIR_ROWS rows (:func:`semtui.model.transactions.row_blocks`: a
    memory-mapped original's pages let go after each)."""
    from semtui.model.transactions import row_blocks

    limit = _PAIRS if limit is None else limit
    for start, window in row_blocks(x, _PAIR_ROWS):
        lens = np.diff(window.indptr).astype(np.int64)
        cum = np.cumsum(lens * (lens - 1) // 2)
        lo = 0
        while lo < len(lens):
            hi = max(int(np.searchsorted(cum, (cum[lo - 1] if lo else 0) + limit, side="right")), lo + 1)
            yield start + lo, window[lo:hi]
            lo = hi


def _protected_pair_codes(x, k: int) -> np.ndarray:
    """The item pairs (as ``a * n_items + b``, a < b) with support in (0, k) in the original,
    sorted: counted a block of rows at a time, so that every pair of the original is never
    held at once."""
    from semtui.metrics.reassociation import row_pairs

    n_items = x.shape[1]
    codes = np.zeros(0, dtype=np.int64)
    counts = np.zeros(0, dtype=np.int64)
    pending: list[tuple[np.ndarray, np.ndarray]] = []   # blocks' (pairs, counts) not merged yet
    held = 0

    def merge() -> None:
        nonlocal codes, counts, held
        u, inv = np.unique(np.concatenate([codes] + [p for p, _ in pending]), return_inverse=True)
        c = np.bincount(inv.ravel(), weights=np.concatenate([counts] + [n for _, n in pending]), minlength=len(u))
        codes, counts = u, np.rint(c).astype(np.int64)
        pending.clear()
        held = 0

    for _, block in _pair_blocks(x):
        _, a, b = row_pairs(block.indptr, block.indices)
        pending.append(np.unique(a * n_items + b, return_counts=True))
        held += len(pending[-1][0])
        if held >= max(len(codes), _PAIRS):   # merged when the blocks outgrow what is merged: n log n in all
            merge()
    merge()
    return codes[counts < k]
