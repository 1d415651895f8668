"""Disassociation (Terrovitis et al. 2012): HORPART, VERPART and (by default) REFINE.

``disassociate(data, k, m, max_cluster_size)`` returns the release
(:class:`semtui.model.DisassociatedData`) and its private key
(:class:`semtui.model.DisassociationKey`); see docs/anonymize.md.

What the release looks like, beyond the two algorithms (:mod:`.horpart`, :mod:`.verpart`):

* clusters are ``P1, P2, ...`` in HORPART's depth-first order;
* record chunks come in the order VERPART made them (``C1`` holds the most frequent items);
  every transaction of the cluster has one sub-record in every chunk, empty ones included,
  so the key records the cluster of every transaction;
* the items of a sub-record are in chunk order (descending support in the cluster, ties by
  lowest item id), and the sub-records of a chunk are sorted by their content (empty ones
  last); identical ones are in an order drawn at random, from the anonymiser's ``seed``,
  independently for every chunk (:func:`tie_rng`).  So the release is a function of the
  content alone (identical sub-records look alike whatever their order), only the key's
  position -> transaction mapping depends on the seed, and a sub-record's position says
  nothing about which transaction it came from: sub-record r of chunk 1 and sub-record r of
  chunk 2 are the same transaction no more often than their contents allow.  (In transaction
  order, the identical sub-records of two chunks would line up: on BMS-WebView-1 the
  same-position guess was right 204 times out of 1,584, where the content allows 105;
  docs/experiments.md);
* the term chunk lists each term once, by ascending item id; the key lists the transactions
  each came from;
* with REFINE (:mod:`.refine`), joint clusters ``J1, J2, ...`` in cluster order, their shared
  chunks built and sorted as record chunks (identical shared sub-records in a random order
  too: in cluster order they would tell which member cluster each came from); the key lists
  every cluster's transactions.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise

import numpy as np

from semtui.anonymize.disassociation import refine as _refine
from semtui.anonymize.disassociation.horpart import horpart, horpart_tree
from semtui.anonymize.disassociation.safe import SafeReport, remove_cover_problems
from semtui.anonymize.disassociation.subrecords import RECORD_CHUNK, sub_records, tie_rng
from semtui.anonymize.disassociation.verpart import record_chunks
from semtui.errors import InputError
from semtui.model import (
    Cluster,
    ClusterKey,
    DisassociatedData,
    DisassociationKey,
    JointCluster,
    JointClusterKey,
    RecordChunk,
    TransactionData,
)

__all__ = ["DisassociationResult", "SafeReport", "disassociate", "horpart", "remove_cover_problems"]

Progress = Callable[[int, int, str], None] | None

@dataclass
class DisassociationResult:
    data: DisassociatedData
    key: DisassociationKey
    max_cluster_size: int
    seconds: float
    seconds_horpart: float
    #: REFINE's facts (None: not run): see :func:`semtui.anonymize.disassociation.refine.refine`
    refine: dict | None = None
    #: what ``safe=True`` suppressed to remove the cover problems (None: not asked)
    safe: SafeReport | None = None
    #: the seed that ordered the identical sub-records of every chunk (:func:`tie_rng`)
    seed: int = 0

    def summary(self) -> dict:
        d = self.data
        sizes = np.array([c.size for c in d.clusters], dtype=np.int64)
        chunk_items = sum(len(np.unique(ch.items)) for c in d.clusters for ch in c.record_chunks)
        terms = d.n_term_chunk_terms
        # a (cluster, item) pair suppressed entirely is lost: it counts in the denominator
        placed = chunk_items + terms + (self.safe.lost_pairs if self.safe is not None else 0)
        safe = {} if self.safe is None else {"safe": self.safe.to_json()}
        out = {
            "n_transactions": d.n_transactions,
            "k": d.k,
            "m": d.m,
            "max_cluster_size": self.max_cluster_size,
            "seed": self.seed,
            "clusters": len(d.clusters),
            "largest_cluster": int(sizes.max()) if len(sizes) else 0,
            "clusters_over_max_size": int((sizes > self.max_cluster_size).sum()),
            "record_chunks": d.n_record_chunks,
            "term_chunk_terms": terms,
            "associated_share": round(chunk_items / placed, 4) if placed else 0.0,
            "term_chunk_share": round(terms / placed, 4) if placed else 0.0,
            "seconds": round(self.seconds, 4),
            "seconds_horpart": round(self.seconds_horpart, 4),
            **safe,
        }
        out.update(self.refine if self.refine is not None else {"refine": False})
        return out


def check_parameters(k: int, m: int, max_cluster_size: int, seed: int = 0) -> None:
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise InputError(f"--seed must be a whole number of at least 0 (got {seed!r})")
    if k < 1:
        raise InputError(f"-k must be at least 1 (got {k})")
    if m < 1:
        raise InputError(f"-m must be at least 1 (got {m})")
    if max_cluster_size < k:
        raise InputError(f"--max-cluster-size must be at least k={k} (got {max_cluster_size}): "
                         "a smaller cluster could not hold any item k times")


def disassociate(
    data: TransactionData,
    k: int,
    m: int,
    max_cluster_size: int,
    progress: Progress = None,
    *,
    refine: bool = True,
    joint_max_size: int | None = None,
    safe: bool = False,
    seed: int = 0,
) -> DisassociationResult:
    """HORPART + VERPART (+ REFINE unless ``refine=False``) over plain transactions;
    ``joint_max_size``: the most records of a joint cluster (default
    :data:`.refine.DEFAULT_JOINT_MAX_SIZE`); ``safe``: then remove every cover problem
    (:func:`remove_cover_problems`, docs/anonymize.md): by partial suppression in record chunks, by
    unsharing in REFINE's shared chunks; ``seed``: orders
    the identical sub-records of every chunk (:func:`tie_rng`; the release is the same for
    every seed, the key is not)."""
    check_parameters(k, m, max_cluster_size, seed)
    joint_max = _refine.check_joint_max_size(k, joint_max_size) if refine else 0
    if data.n_generalised:
        raise InputError("disassociation needs plain transactions, not set-generalised ones")
    if data.n_transactions == 0 or len(data.tokens) == 0:
        raise InputError("the dataset is empty: no items to disassociate")
    t0 = time.perf_counter()
    n_items = len(data.vocab)
    indptr, tokens = _as_sets(np.asarray(data.indptr, dtype=np.int64), np.asarray(data.tokens, dtype=np.int64),
                              n_items)
    clusters_rows, parent, cluster_node = horpart_tree(indptr, tokens, n_items, max_cluster_size, progress)
    t1 = time.perf_counter()
    tree = (parent, cluster_node, joint_max) if refine else None
    release, key, facts = _verpart_all(data, clusters_rows, tokens, indptr, k, m, progress, tree, seed)
    release.max_cluster_size = max_cluster_size  # public, recorded in the release (the alternatives read it)
    report = None
    if safe:
        release, key, report = remove_cover_problems(release, key, progress, seed=seed)
        if facts is not None:
            facts = _facts_after_repair(facts, release, report)
    return DisassociationResult(release, key, max_cluster_size, time.perf_counter() - t0, t1 - t0, facts,
                                safe=report, seed=int(seed))


def _facts_after_repair(facts: dict, release: DisassociatedData, report: SafeReport) -> dict:
    """REFINE's facts for the release the safe repair left: the joint clusters and shared chunks
    that remain, the pairs still moved out of term chunks, and the shares of (cluster, item) pairs
    (a pair suppressed entirely counts as placed nowhere: it stays in the denominator)."""
    in_chunks = sum(len(np.unique(ch.items)) for c in release.clusters for ch in c.record_chunks)
    moved = facts["moved_term_pairs"] - report.unshared_pairs
    terms = release.n_term_chunk_terms
    return {
        **facts,
        "joint_clusters": len(release.joint_clusters),
        "clusters_in_joint_clusters": sum(len(jc.clusters) for jc in release.joint_clusters),
        "shared_chunks": release.n_shared_chunks,
        "moved_term_pairs": moved,
        **_shares(in_chunks, moved, terms, in_chunks + moved + terms + report.lost_pairs,
                  [ch for jc in release.joint_clusters for ch in jc.shared_chunks]),
    }


def _shares(in_chunks: int, moved: int, terms: int, all_pairs: int, shared_chunks: list) -> dict:
    """REFINE's shares of the (cluster, item) pairs: in record chunks, associated (record or shared
    chunks), in term chunks; and how often a shared occurrence has company in its sub-record."""
    subs = [np.diff(ch.indptr) for ch in shared_chunks]
    lens = np.concatenate(subs) if subs else np.zeros(0, dtype=np.int64)
    return {
        # a moved item shares a sub-record with another one in this share of its occurrences
        "shared_occurrences_with_company": round(float(lens[lens >= 2].sum() / lens.sum()), 4) if lens.sum() else 0.0,
        "associated_share_record_chunks": round(in_chunks / all_pairs, 4) if all_pairs else 0.0,
        "associated_share": round((in_chunks + moved) / all_pairs, 4) if all_pairs else 0.0,
        "term_chunk_share": round(terms / all_pairs, 4) if all_pairs else 0.0,
    }


def _as_sets(indptr: np.ndarray, tokens: np.ndarray, n_items: int) -> tuple[np.ndarray, np.ndarray]:
    """The transactions with every repeated item kept once (the FIMI reader keeps a line's
    repeats; a support counts transactions, not tokens)."""
    n = len(indptr) - 1
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
    keys = np.unique(rows * n_items + tokens)
    if len(keys) == len(tokens):
        return indptr, tokens
    out = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(keys // n_items, minlength=n), out=out[1:])
    return out, keys % n_items


def _verpart_all(data: TransactionData, clusters_rows: list[np.ndarray], tokens: np.ndarray,
                 indptr: np.ndarray, k: int, m: int, progress: Progress,
                 tree: tuple | None = None, seed: int = 0) -> tuple[DisassociatedData, DisassociationKey, dict | None]:
    """VERPART on every cluster.  Supports, support order, term chunks and the key's term
    lists are computed for all clusters at once; only the greedy chunking (clusters with at
    least two items of support >= k) and the sub-record sort (per record chunk) are per
    cluster."""
    n_items = len(data.vocab)
    n_clusters = len(clusters_rows)
    # Tokens in cluster order: cluster c's rows are perm[cstart[c]:cstart[c+1]].
    perm = np.concatenate(clusters_rows)
    sizes = np.fromiter((len(r) for r in clusters_rows), dtype=np.int64, count=n_clusters)
    cstart = np.zeros(n_clusters + 1, dtype=np.int64)
    np.cumsum(sizes, out=cstart[1:])
    lengths = np.diff(indptr)[perm]
    total = int(lengths.sum())
    offs = np.repeat(indptr[perm] - (np.cumsum(lengths) - lengths), lengths)
    items = tokens[offs + np.arange(total, dtype=np.int64)]
    cl_of_row = np.repeat(np.arange(n_clusters, dtype=np.int64), sizes)
    pos_row = np.repeat(np.arange(len(perm), dtype=np.int64), lengths)
    cl = cl_of_row[pos_row]
    local = pos_row - cstart[cl]
    orig_row = perm[pos_row]

    # (cluster, item) pairs, ascending; their supports; support-order position inside the cluster
    pair_key, tok_pair, sup = np.unique(cl * n_items + items, return_inverse=True, return_counts=True)
    tok_pair = tok_pair.ravel()
    p_cl, p_item = pair_key // n_items, pair_key % n_items
    freq = sup >= k
    f_idx = np.flatnonzero(freq)
    f_sorted = f_idx[np.lexsort((p_item[f_idx], -sup[f_idx], p_cl[f_idx]))]
    f_cl = p_cl[f_sorted]
    f_first = np.searchsorted(f_cl, np.arange(n_clusters + 1))  # frequent pairs of cluster c
    p_pos = np.full(len(pair_key), -1, dtype=np.int64)
    p_pos[f_sorted] = np.arange(len(f_sorted)) - f_first[f_cl]
    n_freq = np.diff(f_first)

    # greedy chunking where there is a choice; chunk and rank of every frequent pair
    p_chunk = np.full(len(pair_key), -1, dtype=np.int64)
    p_rank = np.zeros(len(pair_key), dtype=np.int64)
    single = f_sorted[n_freq[f_cl] == 1]
    p_chunk[single] = 0
    ftok = np.flatnonzero(freq[tok_pair])
    ftok_first = np.searchsorted(cl[ftok], np.arange(n_clusters + 1))
    multi = np.flatnonzero(n_freq >= 2)
    for done, c in enumerate(multi.tolist()):
        t = ftok[ftok_first[c]:ftok_first[c + 1]]
        chunks = record_chunks(p_pos[tok_pair[t]], local[t], int(sizes[c]), int(n_freq[c]), k, m)
        base = f_sorted[f_first[c]:f_first[c + 1]]
        for j, ch in enumerate(chunks):
            p_chunk[base[ch]] = j
            p_rank[base[ch]] = np.arange(len(ch))
        if progress is not None and (done % 64 == 0):
            progress(done, len(multi), "VERPART")
    if progress is not None:
        progress(len(multi), len(multi), "VERPART")
    n_chunks = np.zeros(n_clusters, dtype=np.int64)
    has = p_chunk >= 0
    np.maximum.at(n_chunks, p_cl[has], p_chunk[has] + 1)

    # record-chunk tokens sorted by (cluster, chunk, row, rank); one slice per chunk
    rt = np.flatnonzero(has[tok_pair])
    rt_cl, rt_chunk = cl[rt], p_chunk[tok_pair[rt]]
    rt_row, rt_rank = local[rt], p_rank[tok_pair[rt]]
    srt = np.lexsort((rt_rank, rt_row, rt_chunk, rt_cl))
    rt_cl, rt_chunk, rt_row, rt_rank, rt_item = rt_cl[srt], rt_chunk[srt], rt_row[srt], rt_rank[srt], items[rt][srt]
    chunk_first = np.zeros(n_clusters + 1, dtype=np.int64)
    np.cumsum(n_chunks, out=chunk_first[1:])
    chunk_id = chunk_first[rt_cl] + rt_chunk
    rt_bounds = np.searchsorted(chunk_id, np.arange(int(chunk_first[-1]) + 1))
    # the items of each chunk in rank order
    ch_pairs = np.flatnonzero(has)
    ch_pairs = ch_pairs[np.lexsort((p_rank[ch_pairs], p_chunk[ch_pairs], p_cl[ch_pairs]))]
    ch_items = p_item[ch_pairs].astype(np.int32)
    ch_item_bounds = np.searchsorted(chunk_first[p_cl[ch_pairs]] + p_chunk[ch_pairs],
                                     np.arange(int(chunk_first[-1]) + 1))

    # term chunks: pairs of support < k, ascending item; the key's transactions of each
    term_pairs = np.flatnonzero(~freq)
    joints, facts = [], None
    if tree is not None:  # REFINE moves some of them into joint clusters' shared chunks
        term_pairs, joints, facts = _refine_terms(tree, term_pairs, sizes, cstart, p_cl, p_item, sup, tok_pair,
                                                  freq, pos_row, perm, len(pair_key), n_items, k, m, seed)
    term_first = np.searchsorted(p_cl[term_pairs], np.arange(n_clusters + 1))
    term_items = p_item[term_pairs].astype(np.int32)
    is_term = np.zeros(len(pair_key), dtype=bool)
    is_term[term_pairs] = True
    tt = np.flatnonzero(is_term[tok_pair])
    tt = tt[np.lexsort((orig_row[tt], tok_pair[tt]))]
    tt_rows = orig_row[tt].tolist()
    tt_bounds = np.searchsorted(tok_pair[tt], term_pairs).tolist() + [len(tt)]
    term_lists = [tt_rows[a:b] for a, b in pairwise(tt_bounds)]

    clusters: list[Cluster] = []
    keys: list[ClusterKey] = []
    ties = tie_rng(seed, RECORD_CHUNK)
    for c in range(n_clusters):
        cid = f"P{c + 1}"
        rows = clusters_rows[c]
        n_rows = len(rows)
        out_chunks: list[RecordChunk] = []
        key_chunks: list[list[int]] = []
        for g in range(int(chunk_first[c]), int(chunk_first[c + 1])):
            lo, hi = rt_bounds[g], rt_bounds[g + 1]
            chunk_items = ch_items[ch_item_bounds[g]:ch_item_bounds[g + 1]]
            sub, order = sub_records(rt_row[lo:hi], rt_rank[lo:hi], rt_item[lo:hi], n_rows, len(chunk_items), ties)
            out_chunks.append(sub)
            key_chunks.append(rows[order].tolist())
        a, b = term_first[c], term_first[c + 1]
        clusters.append(Cluster(cid, n_rows, out_chunks, term_items[a:b]))
        keys.append(ClusterKey(cid, key_chunks, term_lists[a:b], rows.tolist() if tree is not None else None))
    joint_clusters = [JointCluster(f"J{j + 1}", [f"P{c + 1}" for c in range(a, b)], chunks)
                      for j, ((a, b), chunks, _) in enumerate(joints)]
    joint_keys = [JointClusterKey(f"J{j + 1}", [perm[r].tolist() for r in rows])
                  for j, (_, _, rows) in enumerate(joints)]
    return (DisassociatedData(data.vocab, k, m, clusters, joint_clusters),
            DisassociationKey(keys, joint_keys), facts)


def _refine_terms(tree: tuple, term_pairs: np.ndarray, sizes: np.ndarray, cstart: np.ndarray, p_cl: np.ndarray,
                  p_item: np.ndarray, sup: np.ndarray, tok_pair: np.ndarray, freq: np.ndarray, pos_row: np.ndarray,
                  perm: np.ndarray, n_pairs: int, n_items: int, k: int, m: int,
                  seed: int = 0) -> tuple[np.ndarray, list, dict]:
    """REFINE (:mod:`.refine`) over VERPART's term pairs: the pairs that stay in term chunks, the
    joint clusters (member range, shared chunks, cluster-order rows of their sub-records) and
    the facts the summary reports."""
    parent, cluster_node, joint_max = tree
    t0 = time.perf_counter()
    ranges = _refine.joint_groups(parent, cluster_node, sizes, joint_max)
    term_index = np.full(n_pairs, -1, dtype=np.int64)
    term_index[term_pairs] = np.arange(len(term_pairs))
    tt = np.flatnonzero(~freq[tok_pair])
    r = _refine.refine(ranges, cstart, p_cl[term_pairs], p_item[term_pairs], sup[term_pairs],
                       term_index[tok_pair[tt]], pos_row[tt], n_items, k, m, seed)
    joints = list(zip(r.members, r.shared, r.shared_rows))
    in_chunks = int(freq.sum())   # record-chunk (cluster, item) pairs
    all_pairs = len(p_cl)
    moved = int(r.moved.sum())
    facts = {
        "refine": True,
        "joint_max_size": int(joint_max),
        "joint_clusters": len(joints),
        "clusters_in_joint_clusters": int(sum(b - a for a, b in r.members)),
        "shared_chunks": int(sum(len(c) for c in r.shared)),
        "moved_term_pairs": moved,
        **_shares(in_chunks, moved, len(term_pairs) - moved, all_pairs, [ch for chunks in r.shared for ch in chunks]),
        "seconds_refine": round(time.perf_counter() - t0, 4),
    }
    return term_pairs[~r.moved], joints, facts
