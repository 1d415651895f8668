"""k^m-anonymity of a disassociated release: every record and shared chunk k^m-anonymous over
its sub-records, the chunks of a cluster disjoint; with the key and the original, the key's
places too (:mod:`.key`)."""

from __future__ import annotations

import numpy as np

from semtui.checks.km.key import _check_key
from semtui.checks.km.report import KmReport
from semtui.checks.km.violations import LIMIT, Progress, km_violations
from semtui.model import DisassociatedData, DisassociationKey, TransactionData


def _note(report_list: list[str], count: list[int], message: str) -> None:
    count[0] += 1
    if len(report_list) < LIMIT:
        report_list.append(message)


def check_disassociated(data: DisassociatedData, k: int, m: int, key: DisassociationKey | None = None,
                        original: TransactionData | None = None, progress: Progress = None) -> KmReport:
    """Every record chunk k^m-anonymous, chunks of a cluster disjoint; with ``key`` and
    ``original``, every original item occurrence exactly where the key says, and every
    term-chunk term below k in its cluster."""
    v = len(data.vocab)
    # all record chunks as one CSR whose item ids are (chunk, item) pairs
    chunk_label: list[str] = []
    parts_items, parts_len, parts_chunk = [], [], []
    structure: list[str] = []
    n_structure = [0]
    # (cluster, item, place) of every distinct item of every chunk; place 0 = term chunk
    dom_c, dom_i, dom_p = [], [], []

    def collect(label: str, ch) -> None:
        """One record or shared chunk's sub-records, to be checked with every other chunk."""
        g = len(chunk_label)
        chunk_label.append(label)
        parts_items.append(np.asarray(ch.items, dtype=np.int64))
        parts_len.append(np.diff(ch.indptr))
        parts_chunk.append(np.full(len(ch.items), g, dtype=np.int64))

    for ci, c in enumerate(data.clusters):
        for j, ch in enumerate(c.record_chunks):
            collect(f"{c.id}/C{j + 1}", ch)
            if len(ch) > c.size:
                _note(structure, n_structure, f"{c.id}/C{j + 1}: {len(ch)} sub-records in a cluster of {c.size}")
            dom = np.unique(ch.items).astype(np.int64)
            dom_c.append(np.full(len(dom), ci, dtype=np.int64))
            dom_i.append(dom)
            dom_p.append(np.full(len(dom), j + 1, dtype=np.int64))
        dom_c.append(np.full(len(c.term_chunk), ci, dtype=np.int64))
        dom_i.append(np.asarray(c.term_chunk, dtype=np.int64))
        dom_p.append(np.zeros(len(c.term_chunk), dtype=np.int64))
    # shared chunks of joint clusters: k^m-anonymous on their own, like record chunks, and
    # disjoint from one another within their joint cluster
    size_of = {c.id: c.size for c in data.clusters}
    for jc in data.joint_clusters:
        records = sum(size_of.get(x, 0) for x in jc.clusters)
        seen: dict[int, int] = {}
        for j, ch in enumerate(jc.shared_chunks):
            collect(f"{jc.id}/S{j + 1}", ch)
            if len(ch) > records:
                _note(structure, n_structure, f"{jc.id}/S{j + 1}: {len(ch)} sub-records in a joint cluster of "
                                              f"{records} records")
            for it in np.unique(ch.items).tolist():
                if it in seen:
                    _note(structure, n_structure, f"{jc.id}: item {data.vocab[it]!r} is in S{seen[it] + 1} and "
                                                  f"in S{j + 1}")
                seen[it] = j
    if dom_c:
        dc, di, dp = np.concatenate(dom_c), np.concatenate(dom_i), np.concatenate(dom_p)
        order = np.lexsort((dp, di, dc))
        dc, di, dp = dc[order], di[order], dp[order]
        dup = np.flatnonzero((dc[1:] == dc[:-1]) & (di[1:] == di[:-1]))
        for d in dup.tolist():
            places = [("the term chunk" if p == 0 else f"C{p}") for p in (int(dp[d]), int(dp[d + 1]))]
            _note(structure, n_structure, f"{data.clusters[int(dc[d])].id}: item {data.vocab[int(di[d])]!r} "
                                          f"is in {places[0]} and in {places[1]}")
    if parts_items:
        pair = np.concatenate(parts_chunk) * v + np.concatenate(parts_items)
        lens = np.concatenate(parts_len)
    else:
        pair = np.zeros(0, dtype=np.int64)
        lens = np.zeros(0, dtype=np.int64)
    uniq, compact = np.unique(pair, return_inverse=True)
    indptr = np.zeros(len(lens) + 1, dtype=np.int64)
    np.cumsum(lens, out=indptr[1:])
    # violations listed by size, then item ids (the release's), then place
    core = km_violations(indptr, compact.ravel(), k, m, len(uniq), progress=progress, order=uniq % v)
    names, where = [], []
    for t in core.itemsets:
        p = uniq[t]
        names.append(data.vocab.names(p % v))
        where.append(chunk_label[int(p[0] // v)])
    report = KmReport("disassociated", k, m, core, names, where, len(data.clusters), len(chunk_label) - data.n_shared_chunks,
                      {"k": data.k, "m": data.m}, structure, n_structure[0], len(data.joint_clusters),
                      data.n_shared_chunks)
    if key is not None and original is not None:
        report.key_checked = True
        report.key = _check_key(data, key, original, k)
    return report
