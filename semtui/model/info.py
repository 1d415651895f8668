"""Dataset facts for ``semtui info`` and the TUI's summary panel."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from semtui.model import Dataset, DisassociatedData, TransactionData
from semtui.reports import Report


@dataclass
class DatasetInfo(Report):
    """The facts ``semtui info`` prints, with stable keys (only ever added to)."""

    FORMAT = "semtui-info/1"

    facts: dict
    file: str | None = None

    def payload(self) -> dict:
        return {**self.facts, "file": self.file}


def dataset_info(data: Dataset, path: str | Path | None = None, *, sidecar: dict | None = None,
                 sidecar_path: str | Path | None = None) -> DatasetInfo:
    """What kind of dataset ``data`` is, its size, items, lengths, groups or clusters; with the
    release's ``sidecar`` (read and checked by :func:`semtui.release.open_release`), its k (a k^m
    release's m, cut, NCP and ML² too)."""
    facts = _disassociated_info(data) if isinstance(data, DisassociatedData) else _transactions_info(data)
    if isinstance(data, TransactionData) and data.n_generalised and sidecar is not None:
        from semtui.model.sidecar import is_km, km_facts

        facts["sidecar"] = str(sidecar_path)
        facts.update(km_facts(sidecar) if is_km(sidecar) else {"k": sidecar["k"]})
    return DatasetInfo(facts, None if path is None else str(path))


def fact_text(key: str, value, facts: dict | None = None) -> str | None:
    """How the faces print a fact whose number alone would mislead (JSON keeps the number), or
    None for the rest: a disassociated release's ``max_length`` is an upper bound (``≤ 8``:
    its longest transaction could be shorter, :func:`_disassociated_info`); NCP and ML² are
    shares, printed as ``anonymize km`` prints them (``9.0885%``); dML² to four figures."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        return None
    if key == "max_length" and (facts or {}).get("kind") == "disassociated":
        return f"≤ {value}"
    if key in ("ncp", "ml2"):
        return f"{value:.4%}"
    if key == "dml2":
        return f"{value:.4g}"
    return None


def _stats(values: np.ndarray) -> dict:
    if values.size == 0:
        return {"min": 0, "mean": 0.0, "max": 0}
    return {"min": int(values.min()), "mean": round(float(values.mean()), 4), "max": int(values.max())}


def _transactions_info(data: TransactionData) -> dict:
    # A generalised item counts once towards a transaction's length, as written.
    lengths = data.lengths
    n = data.n_transactions
    used = np.zeros(len(data.vocab), dtype=bool)
    plain = data.tokens[data.tokens >= 0]
    used[plain] = True
    if data.n_generalised:
        used[data.gen_members] = True
    out = {
        "kind": data.kind,
        "transactions": n,
        "items": int(used.sum()),
        "avg_length": round(float(lengths.mean()), 4) if n else 0.0,
        "max_length": int(lengths.max()) if n else 0,
        "empty_transactions": int((lengths == 0).sum()),
        "generalised_items": data.n_generalised,
        "clusters": 0,
        "record_chunks": 0,
        "term_chunk_terms": 0,
    }
    if data.n_generalised:
        sizes = data.group_sizes()
        out["group_sizes"] = _stats(sizes)
        out["generalised_item_sizes"] = _stats(np.diff(data.gen_indptr))
        out["generalised_tokens"] = int((data.tokens < 0).sum())
    return out


def _disassociated_info(data: DisassociatedData) -> dict:
    sub_lengths = [np.diff(ch.indptr) for c in data.clusters for ch in c.record_chunks]
    sub = np.concatenate(sub_lengths) if sub_lengths else np.zeros(0, dtype=np.int64)
    items: set[int] = set()
    for c in data.clusters:
        for ch in c.record_chunks:
            items.update(np.unique(ch.items).tolist())
        items.update(c.term_chunk.tolist())
    for j in data.joint_clusters:
        for ch in j.shared_chunks:
            items.update(np.unique(ch.items).tolist())
    sizes = np.asarray([c.size for c in data.clusters], dtype=np.int64)
    # Per transaction: every sub-record item (record or shared chunk) belongs to one transaction and every term-chunk
    # term to at least one, so the average is exact when each term came from one transaction
    # (a lower bound otherwise); the maximum is an upper bound: a transaction holding the
    # longest sub-record of every chunk of its cluster and the whole term chunk.
    shared = [np.diff(ch.indptr) for j in data.joint_clusters for ch in j.shared_chunks]
    held = int(sub.sum()) + data.n_term_chunk_terms + int(sum(int(x.sum()) for x in shared))
    # a member's transaction may hold the longest sub-record of every shared chunk of its joint clusters
    joint_longest = [sum(int(np.diff(ch.indptr).max(initial=0)) for ch in j.shared_chunks) for j in data.joint_clusters]
    joint_of = data.joint_of()
    bound = max((sum(int(np.diff(ch.indptr).max(initial=0)) for ch in c.record_chunks) + len(c.term_chunk)
                 + sum(joint_longest[j] for j in joint_of.get(c.id, ())) for c in data.clusters), default=0)
    n = data.n_transactions
    return {
        "kind": "disassociated",
        "transactions": n,
        "items": len(items),
        "avg_length": round(held / n, 4) if n else 0.0,
        "max_length": bound,
        "avg_sub_record_length": round(float(sub.mean()), 4) if sub.size else 0.0,
        "generalised_items": 0,
        "clusters": len(data.clusters),
        "record_chunks": data.n_record_chunks,
        "term_chunk_terms": data.n_term_chunk_terms,
        "sub_records": int(sub.size),
        "cluster_sizes": _stats(sizes),
        "k": data.k,
        "m": data.m,
        **_disassociation_shape(data),
    }


def _disassociation_shape(data: DisassociatedData) -> dict:
    """How much a disassociated release keeps together: chunk counts, term-chunk sizes and
    the share of placements -- (cluster, item) pairs of record chunks and term chunks,
    (joint cluster, item) pairs of shared chunks -- that sit in a record or shared chunk
    (associated with the other items of that chunk) rather than in a term chunk (associated
    with nothing); ``associated_share_without_joint_clusters`` counts record chunks only."""
    v = len(data.vocab)
    chunks = np.asarray([len(c.record_chunks) for c in data.clusters], dtype=np.int64)
    terms = np.asarray([len(c.term_chunk) for c in data.clusters], dtype=np.int64)
    parts = [np.asarray(ch.items, dtype=np.int64) + ci * v
             for ci, c in enumerate(data.clusters) for ch in c.record_chunks]
    in_chunks = len(np.unique(np.concatenate(parts))) if parts else 0
    empty = sum(int((np.diff(ch.indptr) == 0).sum()) for c in data.clusters for ch in c.record_chunks)
    # REFINE's shared chunks: a shared item is placed once per joint cluster (the release does
    # not say how many of the members' (cluster, item) pairs it stands for)
    jparts = [np.asarray(ch.items, dtype=np.int64) + ji * v
              for ji, j in enumerate(data.joint_clusters) for ch in j.shared_chunks]
    in_shared = len(np.unique(np.concatenate(jparts))) if jparts else 0
    shared_lens = [np.diff(ch.indptr) for j in data.joint_clusters for ch in j.shared_chunks]
    sl = np.concatenate(shared_lens) if shared_lens else np.zeros(0, dtype=np.int64)
    pairs = in_chunks + in_shared + int(terms.sum())
    return {
        "record_chunks_per_cluster": _stats(chunks),
        "term_chunk_sizes": _stats(terms),
        "empty_sub_records": empty,
        "associated_share": round((in_chunks + in_shared) / pairs, 4) if pairs else 0.0,
        "associated_share_without_joint_clusters": round(in_chunks / pairs, 4) if pairs else 0.0,
        "term_chunk_share": round(int(terms.sum()) / pairs, 4) if pairs else 0.0,
        "joint_clusters": len(data.joint_clusters),
        "clusters_in_joint_clusters": len({x for j in data.joint_clusters for x in j.clusters}),
        "shared_chunks": data.n_shared_chunks,
        "shared_sub_records": int((sl > 0).sum()),
        "shared_occurrences": int(sl.sum()),
        "shared_placements": in_shared,
    }


def cluster_associated_shares(data: DisassociatedData) -> np.ndarray:
    """Per cluster, the share of its (cluster, item) pairs that stayed in a record chunk rather
    than in the term chunk: the release's ``associated_share``, cluster by cluster (NaN for a
    cluster with no item)."""
    v = max(len(data.vocab), 1)
    n = len(data.clusters)
    parts = [np.asarray(ch.items, dtype=np.int64) + ci * v
             for ci, c in enumerate(data.clusters) for ch in c.record_chunks]
    codes = np.unique(np.concatenate(parts)) if parts else np.zeros(0, dtype=np.int64)
    in_chunks = np.bincount(codes // v, minlength=n).astype(np.float64)
    terms = np.fromiter((len(c.term_chunk) for c in data.clusters), dtype=np.float64, count=n)
    pairs = in_chunks + terms
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(pairs > 0, in_chunks / pairs, np.nan)
