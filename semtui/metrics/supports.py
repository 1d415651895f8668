"""The utility axis every family is measured on (issue 37 item 5): the error of the supports of the
original's most frequent items and pairs as the release answers them, under uniform reconstruction.

A publisher compares a set-generalised, a k^m and a disassociated release on one axis:

* a **set-generalised** release (COAT or k^m, :class:`GeneralisedSupports`): an item published
  plainly counts 1 in its transaction, each member of a generalised item 1/|g| (its support spread
  uniformly over its members), a suppressed item 0; a pair's expected support is the sum over
  transactions of the product of its items' weights;
* a **disassociated** release (:class:`DisassociatedSupports`): within a cluster of n records, an
  item of a record chunk has its chunk support, a term-chunk term support 1 (the release says it
  occurs, not how often: "a term chunk over its cluster"), an item of a joint cluster's shared
  chunk its shared support spread over the joint cluster's records in proportion to each member's
  size; two items of one chunk (record or shared) have their support together in that chunk, two
  items of different chunks s(a) s(b) / n (independent, as a reader of the release without the key
  must take them).  A suppressed occurrence answers nothing.
"""

from __future__ import annotations

import numpy as np
from scipy.sparse import csr_matrix

from semtui.metrics.release_utility import _ids_in
from semtui.model import DisassociatedData, TransactionData
from semtui.reports import json_float

#: the original's most frequent items and pairs measured
TOP_SUPPORTS = 1000


def release_weights(original: TransactionData, release: TransactionData):
    """transactions x the original's items: 1 for an item published plainly, 1/|g| for each member of
    a generalised item g the transaction holds (its support spread uniformly over its members), 0
    for an item not published (suppressed).  CSR."""
    to_orig = _ids_in(release, original)
    tokens = release.tokens.astype(np.int64)
    rows = np.repeat(np.arange(release.n_transactions, dtype=np.int64), np.diff(release.indptr))
    gen = tokens < 0
    g = -tokens[gen] - 1
    sizes = np.diff(release.gen_indptr).astype(np.int64)
    counts = sizes[g]
    g_rows = np.repeat(rows[gen], counts)
    starts = np.repeat(release.gen_indptr[:-1][g].astype(np.int64), counts)
    offs = np.arange(int(counts.sum()), dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)
    g_items = to_orig[release.gen_members[starts + offs].astype(np.int64)]
    r = np.concatenate([rows[~gen], g_rows])
    c = np.concatenate([to_orig[tokens[~gen]], g_items])
    w = np.concatenate([np.ones(int((~gen).sum())), 1.0 / np.repeat(counts, counts).astype(np.float64)])
    keep = c >= 0
    m = csr_matrix((w[keep], (r[keep], c[keep])), shape=(release.n_transactions, len(original.vocab)))
    m.sum_duplicates()
    m.data = np.minimum(m.data, 1.0)
    return m


class GeneralisedSupports:
    """What a set-generalised release answers for supports (:func:`release_weights`)."""

    def __init__(self, original: TransactionData, release: TransactionData) -> None:
        self.w = release_weights(original, release).tocsc()

    def items(self) -> np.ndarray:
        """The expected support of every item of the original."""
        return np.asarray(self.w.sum(axis=0)).ravel()

    def pairs(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """The expected support of every pair (a[i], b[i]) of the original's items."""
        return np.asarray(self.w[:, a].multiply(self.w[:, b]).sum(axis=0)).ravel()


class DisassociatedSupports:
    """What a disassociated release answers for supports (the module's text): with S the
    clusters x items supports (a shared item's spread over its joint cluster's members), D the
    inverse cluster sizes, R every chunk's sub-records x items and Q every chunk's supports with
    its records' count n_q, a pair's expected support is S_a^T D S_b + R_a^T R_b - Q_a^T Q_b / n_q:
    independent across chunks, exact inside one."""

    def __init__(self, original: TransactionData, release: DisassociatedData) -> None:
        to_orig = _ids_in(release, original)
        v = len(original.vocab)
        s_r: list[np.ndarray] = []
        s_c: list[np.ndarray] = []
        s_v: list[np.ndarray] = []
        r_r: list[np.ndarray] = []
        r_c: list[np.ndarray] = []
        q_r: list[np.ndarray] = []
        q_c: list[np.ndarray] = []
        q_v: list[np.ndarray] = []
        q_n: list[float] = []
        rows = 0

        def chunk(ch, owners: list[tuple[int, float]], n: int) -> None:
            nonlocal rows
            items, counts = np.unique(ch.items, return_counts=True)
            for ci, share in owners:
                s_r.append(np.full(len(items), ci))
                s_c.append(items)
                s_v.append(counts * share)
            q_r.append(np.full(len(items), len(q_n)))
            q_c.append(items)
            q_v.append(counts.astype(np.float64))
            q_n.append(float(n))
            r_r.append(rows + np.repeat(np.arange(len(ch.indptr) - 1), np.diff(ch.indptr)))
            r_c.append(ch.items)
            rows += len(ch.indptr) - 1

        index = {c.id: ci for ci, c in enumerate(release.clusters)}
        sizes = np.fromiter((c.size for c in release.clusters), dtype=np.float64, count=len(release.clusters))
        for ci, c in enumerate(release.clusters):
            for ch in c.record_chunks:
                chunk(ch, [(ci, 1.0)], c.size)
            s_r.append(np.full(len(c.term_chunk), ci))
            s_c.append(c.term_chunk)
            s_v.append(np.ones(len(c.term_chunk)))
        for jc in release.joint_clusters:
            members = [index[cid] for cid in jc.clusters]
            n = float(sizes[members].sum())
            for ch in jc.shared_chunks:
                chunk(ch, [(ci, sizes[ci] / n) for ci in members], int(n))

        def matrix(r, c, w, n_rows) -> csr_matrix:
            r = np.concatenate([*r, np.zeros(0, np.int64)]).astype(np.int64)
            c = to_orig[np.concatenate([*c, np.zeros(0, np.int64)]).astype(np.int64)]
            w = np.concatenate([*w, np.zeros(0)]).astype(np.float64)
            keep = c >= 0
            m = csr_matrix((w[keep], (r[keep], c[keep])), shape=(n_rows, v))
            m.sum_duplicates()
            return m

        self.s = matrix(s_r, s_c, s_v, len(release.clusters)).tocsc()
        self.inv = 1.0 / np.maximum(sizes, 1.0)
        self.r = matrix(r_r, r_c, [np.ones(len(x)) for x in r_c], rows).tocsc()
        self.q = matrix(q_r, q_c, q_v, len(q_n)).tocsc()
        self.q_inv = 1.0 / np.maximum(np.asarray(q_n), 1.0)

    def items(self) -> np.ndarray:
        return np.asarray(self.s.sum(axis=0)).ravel()

    def pairs(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        def through(m, weights=None) -> np.ndarray:
            prod = m[:, a].multiply(m[:, b])
            if weights is not None:
                prod = prod.multiply(weights[:, None])
            return np.asarray(prod.sum(axis=0)).ravel()

        return np.maximum(through(self.s, self.inv) + through(self.r) - through(self.q, self.q_inv), 0.0)


def support_errors(original: TransactionData, release, top: int = TOP_SUPPORTS, answers=None) -> dict:
    """The utility axis of every family (issue 37): the mean relative error of the supports of the
    original's ``top`` most frequent items and ``top`` most frequent pairs as the release answers
    them under uniform reconstruction (``answers``: a :class:`GeneralisedSupports` or
    :class:`DisassociatedSupports` over the release -- the release's family gives it,
    ``Family.supports``; default: a set-generalised release's; a suppressed item answers 0, a
    relative error of 1)."""
    x = original.incidence().tocsc().astype(np.float64)
    answers = GeneralisedSupports(original, release) if answers is None else answers
    df = np.asarray(x.sum(axis=0)).ravel()
    items = np.argsort(-df, kind="stable")[:top]
    items = items[df[items] > 0]
    est = answers.items()
    item_err = np.abs(est[items] - df[items]) / df[items]
    # the most frequent pairs: among pairs of the most frequent items (a pair's support is at most
    # either item's, so the top pairs lie among the items above the top-th pair's support)
    cand = np.argsort(-df, kind="stable")[:min(len(df), max(2 * int(np.sqrt(2 * top)) + 50, 200))]
    co = np.asarray((x[:, cand].T @ x[:, cand]).todense())
    iu = np.triu_indices(len(cand), 1)
    vals = co[iu]
    order = np.argsort(-vals, kind="stable")[:top]
    order = order[vals[order] > 0]
    a, b = cand[iu[0][order]], cand[iu[1][order]]
    true = vals[order]
    pair_est = answers.pairs(a, b) if len(a) else np.zeros(0)
    pair_err = np.abs(pair_est - true) / true
    return {"item_support_error": json_float(float(item_err.mean())) if len(item_err) else None,
            "pair_support_error": json_float(float(pair_err.mean())) if len(pair_err) else None,
            "items_measured": len(items), "pairs_measured": len(true),
            "pair_support_error_median": json_float(float(np.median(pair_err))) if len(pair_err) else None}


