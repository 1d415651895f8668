"""What a release keeps of its original, as one utility dict per family (``semtui experiment``
cells, ``assess``'s alternatives; docs/experiment.md says how each figure and ``score`` are read).

* set-generalised and k^m releases (:func:`generalised_utility`): **NCP** over item occurrences
  (each original occurrence published inside a generalised item of ``s > 1`` members costs
  ``s / |I|``, ``|I|`` the original's distinct items; a suppressed occurrence costs 1; plain
  ones cost 0 — the k^m paper's NCP, §3.3, with the members as the node's leaves), the share of
  occurrences published **exactly** (as themselves), the **added items** (members a reader
  must consider beyond the true ones), and **UL**, COAT's utility loss
  ``Σ_g (2^|g| − 1) · sup(g) / N`` over the generalised items (unit weights, as
  ``anonymize setgen`` reports it); ``score = 1 − NCP``.
* disassociated releases (:func:`disassociated_utility`): the **associated share**, the (cluster,
  item) pairs kept in record chunks (where their associations survive) over all pairs, and the
  term-chunk share; ``score`` = the associated share.

Occurrences are matched by (transaction, item) over integer ids, numpy throughout.
"""

from __future__ import annotations

import numpy as np

from semtui.model import DisassociatedData, TransactionData
from semtui.reports import json_float


def _ids_in(release, original: TransactionData) -> np.ndarray:
    """The original's id of each release vocabulary item (-1: not in the original); any release
    with a vocabulary, set-generalised or disassociated (semtui.metrics.supports uses it too)."""
    index = {name: i for i, name in enumerate(original.vocab.items)}
    return np.fromiter((index.get(name, -1) for name in release.vocab.items), dtype=np.int64,
                       count=len(release.vocab))


def generalised_utility(original: TransactionData, release: TransactionData) -> dict:
    """NCP, exact share, added items and UL of a set-generalised (or k^m) release of ``original``
    (same transactions, same order)."""
    if release.n_transactions != original.n_transactions:
        raise ValueError("the release and the original hold different numbers of transactions")
    n_items = max(len(original.vocab), 1)
    to_orig = _ids_in(release, original)
    tokens = release.tokens.astype(np.int64)
    rows = np.repeat(np.arange(release.n_transactions, dtype=np.int64), np.diff(release.indptr))
    gen = tokens < 0
    g = -tokens[gen] - 1
    sizes = np.diff(release.gen_indptr).astype(np.int64)
    # every (transaction, member) a published token stands for, with the token's size
    plain_rows, plain_items = rows[~gen], to_orig[tokens[~gen]]
    counts = sizes[g]
    g_rows = np.repeat(rows[gen], counts)
    starts = np.repeat(release.gen_indptr[:-1][g], counts)
    offs = np.arange(int(counts.sum()), dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)
    g_items = to_orig[release.gen_members[starts + offs].astype(np.int64)]
    g_size = np.repeat(counts, counts)
    pub_rows = np.concatenate([plain_rows, g_rows])
    pub_items = np.concatenate([plain_items, g_items])
    pub_size = np.concatenate([np.ones(len(plain_rows), dtype=np.int64), g_size])
    keep = pub_items >= 0  # a member the original never held (k^m --members all) is no occurrence of it
    key = pub_rows[keep] * n_items + pub_items[keep]
    size_of = pub_size[keep]
    order = np.argsort(key, kind="stable")
    key, size_of = key[order], size_of[order]
    # each original occurrence (deduplicated per transaction), looked up among them
    o_rows = np.repeat(np.arange(original.n_transactions, dtype=np.int64), np.diff(original.indptr))
    o_key = np.unique(o_rows * n_items + original.tokens.astype(np.int64))
    pos = np.searchsorted(key, o_key)
    found = pos < len(key)
    found[found] = key[pos[found]] == o_key[found]
    s = np.where(found, size_of[np.minimum(pos, max(len(key) - 1, 0))] if len(key) else 0, 0)
    cost = np.where(~found, 1.0, np.where(s > 1, s / n_items, 0.0))
    n_occ = len(o_key)
    ncp = float(cost.mean()) if n_occ else 0.0
    exact = int((found & (s == 1)).sum())
    # COAT's UL over the release's generalised items: (2^|g| - 1) * sup(g) / N
    sup = np.bincount(np.unique(rows[gen] * max(release.n_generalised, 1) + g) % max(release.n_generalised, 1),
                      minlength=release.n_generalised) if gen.any() else np.zeros(0)
    ul = float(((np.exp2(np.minimum(sizes, 1000).astype(float)) - 1.0) * sup).sum() / max(release.n_transactions, 1))
    published_members = int(counts.sum())
    true_in_generalised = int((found & (s > 1)).sum())
    return {
        "ncp": json_float(ncp),
        "ul": json_float(ul),
        "exact_share": json_float(exact / n_occ if n_occ else 1.0),
        "generalised_share": json_float(true_in_generalised / n_occ if n_occ else 0.0),
        "suppressed_occurrences": int((~found).sum()),
        "added_items": max(published_members - true_in_generalised, 0),
        "generalised_items": int(release.n_generalised),
        "score": json_float(1.0 - ncp),
    }


def disassociated_utility(release: DisassociatedData) -> dict:
    """The associated share of a disassociated release: (cluster, item) pairs kept in record
    chunks over all (cluster, item) pairs (record chunks and term chunks)."""
    chunk_items = sum(len(np.unique(ch.items)) for c in release.clusters for ch in c.record_chunks)
    terms = release.n_term_chunk_terms
    placed = chunk_items + terms
    share = chunk_items / placed if placed else 0.0
    sizes = [c.size for c in release.clusters]
    return {
        "associated_share": json_float(share),
        "term_chunk_share": json_float(terms / placed if placed else 0.0),
        "clusters": len(release.clusters),
        "largest_cluster": max(sizes) if sizes else 0,
        "record_chunks": release.n_record_chunks,
        "term_chunk_terms": terms,
        "score": json_float(share),
    }
