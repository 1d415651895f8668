"""A disassociated release against its private key and the original: every original item
occurrence in exactly the place the key says (a sub-record or a term-chunk term of the key's
transaction), a transaction in one cluster, cluster sizes adding up to the original, and
every term-chunk term below k among its cluster's original transactions."""

from __future__ import annotations

import itertools

import numpy as np

from semtui.checks.km.violations import LIMIT, _lookup
from semtui.errors import InputError
from semtui.model import DisassociatedData, DisassociationKey, TransactionData


def _check_key(data: DisassociatedData, key: DisassociationKey, original: TransactionData, k: int) -> dict:
    """Every original item occurrence in exactly the place the key says; terms below k."""
    if original.n_generalised:
        raise InputError("the original must be plain transactions")
    n = original.n_transactions
    ov = original.vocab
    vo = len(ov)
    # release item id -> original item id (-1: not in the original)
    to_orig = np.array([ov.get(name) if name in ov else -1 for name in data.vocab.items], dtype=np.int64)
    t_parts, i_parts = [], []
    member_t, member_c = [], []
    term_lists: list[list[int]] = []
    term_ids, term_cl = [], []
    problems: dict[str, list[str]] = {"unknown_items": [], "bad_index": [], "twice_in_chunk": [], "in_two_clusters": [],
                                      "cluster_sizes": [], "term_support": [], "shared_outside": []}
    counts = dict.fromkeys(problems, 0)

    def note(kind: str, message: str) -> None:
        counts[kind] += 1
        if len(problems[kind]) < LIMIT:
            problems[kind].append(message)

    key_of = {c.id: c for c in key.clusters}
    sup_t: list[int] = []
    sup_names: list[str] = []
    for ci, c in enumerate(data.clusters):
        ck = key_of.get(c.id)
        if ck is None:
            raise InputError(f"the key has no cluster {c.id!r}")
        for j, ch in enumerate(c.record_chunks):
            ts = np.asarray(ck.record_chunks[j], dtype=np.int64)
            if len(ts) != len(np.unique(ts)):
                note("twice_in_chunk", f"{c.id}/C{j + 1}: a transaction has two sub-records")
            lens = np.diff(ch.indptr)
            t_parts.append(np.repeat(ts, lens))
            i_parts.append(np.asarray(ch.items, dtype=np.int64))
            member_t.append(ts)
            member_c.append(np.full(len(ts), ci, dtype=np.int64))
        if len(ck.term_chunk) != len(c.term_chunk):
            raise InputError(f"cluster {c.id!r}: the key's term chunk does not match the release")
        # occurrences the key says were suppressed (safe disassociation): accounted for once,
        # like a placed occurrence, so one not in the original or also placed is caught
        if ck.suppressed:
            sup_t.extend(t for t, _ in ck.suppressed)
            sup_names.extend(it for _, it in ck.suppressed)
        term_lists.extend(ck.term_chunk)
        term_ids.append(np.asarray(c.term_chunk, dtype=np.int64))
        term_cl.append(np.full(len(c.term_chunk), ci, dtype=np.int64))
        if ck.records is not None:
            member_t.append(np.asarray(ck.records, dtype=np.int64))
            member_c.append(np.full(len(ck.records), ci, dtype=np.int64))
    # shared chunks: every sub-record's items in the transaction the key names, which must be
    # a record of one of the joint cluster's members
    jkey_of = {j.id: j for j in key.joint_clusters}
    cl_index = {c.id: ci for ci, c in enumerate(data.clusters)}
    shared_t, shared_members = [], []
    for jc in data.joint_clusters:
        jk = jkey_of.get(jc.id)
        if jk is None or len(jk.shared_chunks) != len(jc.shared_chunks):
            raise InputError(f"the key has no joint cluster {jc.id!r} with {len(jc.shared_chunks)} shared chunks")
        for j, ch in enumerate(jc.shared_chunks):
            ts = np.asarray(jk.shared_chunks[j], dtype=np.int64)
            if len(ts) != len(ch):
                raise InputError(f"{jc.id}/S{j + 1}: the key has {len(ts)} transactions for {len(ch)} sub-records")
            if len(ts) != len(np.unique(ts)):
                note("twice_in_chunk", f"{jc.id}/S{j + 1}: a transaction has two sub-records")
            t_parts.append(np.repeat(ts, np.diff(ch.indptr)))
            i_parts.append(np.asarray(ch.items, dtype=np.int64))
            shared_t.append(ts)
            shared_members.append(np.asarray([cl_index[x] for x in jc.clusters if x in cl_index], dtype=np.int64))

    def cat(parts):
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)

    # the term chunks' transactions, flattened in one go
    t_lens = np.fromiter(map(len, term_lists), dtype=np.int64, count=len(term_lists))
    t_flat = np.fromiter(itertools.chain.from_iterable(term_lists), dtype=np.int64, count=int(t_lens.sum()))
    t_parts.append(t_flat)
    i_parts.append(np.repeat(cat(term_ids), t_lens))
    member_t.append(t_flat)
    member_c.append(np.repeat(cat(term_cl), t_lens))
    rel_ids = {name: i for i, name in enumerate(data.vocab.items)}
    unnamed = sorted({it for it in sup_names if it not in rel_ids})
    for it in unnamed[:LIMIT]:
        note("unknown_items", f"suppressed item {it!r} is not in the release's vocabulary")
    named = [j for j, it in enumerate(sup_names) if it in rel_ids]
    t_parts.append(np.asarray([sup_t[j] for j in named], dtype=np.int64))
    i_parts.append(np.asarray([rel_ids[sup_names[j]] for j in named], dtype=np.int64))
    pt, pi_rel = cat(t_parts), cat(i_parts)
    mt, mc = cat(member_t), cat(member_c)

    bad_t = (pt < 0) | (pt >= n)
    for t in np.unique(pt[bad_t])[:LIMIT].tolist():
        note("bad_index", f"transaction index {t} is not in the original ({n} transactions)")
    counts["bad_index"] = len(np.unique(pt[bad_t]))
    pi = to_orig[pi_rel]
    unknown = pi < 0
    for it in np.unique(pi_rel[unknown])[:LIMIT].tolist():
        note("unknown_items", f"item {data.vocab[it]!r} is not in the original")
    counts["unknown_items"] = len(np.unique(pi_rel[unknown])) + len(unnamed)
    ok = ~bad_t & ~unknown
    placed = pt[ok] * vo + pi[ok]

    # cluster of each transaction, by the key
    mok = (mt >= 0) & (mt < n)
    pairs = np.unique(mt[mok] * len(data.clusters) + mc[mok]) if len(data.clusters) else np.zeros(0, np.int64)
    pair_t = pairs // max(len(data.clusters), 1)
    multi = np.unique(pair_t[np.r_[False, pair_t[1:] == pair_t[:-1]]])
    for t in multi[:LIMIT].tolist():
        note("in_two_clusters", f"transaction {t} is in more than one cluster")
    counts["in_two_clusters"] = len(multi)
    cluster_of = np.full(n, -1, dtype=np.int64)
    cluster_of[pair_t] = pairs % max(len(data.clusters), 1)
    members = np.bincount(cluster_of[cluster_of >= 0], minlength=len(data.clusters))
    for ci, c in enumerate(data.clusters):
        if members[ci] > c.size:
            note("cluster_sizes", f"{c.id}: the key puts {members[ci]} transactions in a cluster of {c.size}")
    for ts, mem in zip(shared_t, shared_members):
        ok_t = ts[(ts >= 0) & (ts < n)]
        outside = ok_t[~np.isin(cluster_of[ok_t], mem)]
        for t in outside[:LIMIT].tolist():
            note("shared_outside", f"transaction {t} has a shared sub-record in a joint cluster it is no member of")
        counts["shared_outside"] += len(outside) - min(len(outside), LIMIT)
    total = sum(c.size for c in data.clusters)
    if total != n:
        note("cluster_sizes", f"cluster sizes add up to {total}, the original has {n} transactions")

    # every original occurrence exactly once, where the key says
    orig_rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(original.indptr))
    orig = np.unique(orig_rows * vo + original.tokens.astype(np.int64))
    uniq_placed, times = np.unique(placed, return_counts=True)
    twice = uniq_placed[times > 1]
    extra = np.setdiff1d(uniq_placed, orig, assume_unique=True)
    missing = np.setdiff1d(orig, uniq_placed, assume_unique=True)
    names = ov.items
    out = {
        "suppressed_occurrences": len(sup_t),
        "n_misplaced": len(extra),
        "n_missing": len(missing),
        "n_placed_twice": len(twice),
        "misplaced": [f"{names[int(p % vo)]!r} is not in transaction {int(p // vo)}" for p in extra[:LIMIT]],
        "missing": [f"{names[int(p % vo)]!r} of transaction {int(p // vo)} is nowhere in the release"
                    for p in missing[:LIMIT]],
        "placed_twice": [f"{names[int(p % vo)]!r} of transaction {int(p // vo)}" for p in twice[:LIMIT]],
    }

    # term-chunk terms: support < k among the original transactions of their cluster
    in_cl = cluster_of[orig // vo]
    has = in_cl >= 0
    cl_item, cl_sup = np.unique(in_cl[has] * vo + orig[has] % vo, return_counts=True)
    for ci, c in enumerate(data.clusters):
        if len(c.term_chunk) == 0:
            continue
        ids = to_orig[np.asarray(c.term_chunk, dtype=np.int64)]
        ids = ids[ids >= 0]
        idx = _lookup(cl_item, ci * vo + ids)
        sup = np.where(idx >= 0, cl_sup[np.maximum(idx, 0)], 0)
        for it, s in zip(ids[sup >= k].tolist(), sup[sup >= k].tolist()):
            note("term_support", f"{c.id}: term {names[it]!r} has support {s} >= k in its cluster")
    for kind in problems:
        out[f"n_{kind}"] = counts[kind]
        out[kind] = problems[kind]
    return out
