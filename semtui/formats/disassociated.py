"""Disassociated releases (``semtui-disassociated/1``) and their private keys.

Release::

    {"format": "semtui-disassociated/1", "k": 2, "m": 2,
     "clusters": [{"id": "P1", "size": 4,
                   "record_chunks": [[["blood", "treatment", "lung"], ...], [["tumor", "biopsy"], ...]],
                   "term_chunk": ["vessel", ...]}]}

Key (``semtui-disassociation-key/1``), kept apart from the release because it undoes it::

    {"format": "semtui-disassociation-key/1",
     "clusters": [{"id": "P1", "record_chunks": [[0, 1, 2, 3], [1, 2]], "term_chunk": [[0], [0], [1]]}]}

``record_chunks[j][r]`` is the 0-based index, in the original file, of the transaction that
sub-record r of chunk j came from; ``term_chunk[t]`` lists the transactions term t came from;
``suppressed`` (only in a safe release, ``anonymize disassoc --safe``) lists the item occurrences
suppressed to remove the cover problems, as ``[transaction, item]`` pairs.
"""

from __future__ import annotations

import itertools
import json
from itertools import chain
from pathlib import Path
from typing import IO

import numpy as np

from semtui.errors import InputError
from semtui.fileio import atomic_writer, parse_json, read_text
from semtui.model import (
    Cluster,
    ClusterKey,
    DisassociatedData,
    DisassociationKey,
    RecordChunk,
    Vocabulary,
)

FORMAT = "semtui-disassociated/1"
KEY_FORMAT = "semtui-disassociation-key/1"


def load_json(path: str | Path):
    return parse_json(read_text(path), path)


def _need(cond: bool, message: str, path) -> None:
    if not cond:
        raise InputError(message, path)


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _indices(values) -> bool:
    """A list of non-negative integers (not booleans): one pass of ``type`` checks, then ``min``
    (the keys of big releases hold hundreds of thousands of them)."""
    return isinstance(values, list) and all(type(v) is int for v in values) and (not values or min(values) >= 0)


def parse_disassociated(doc, path) -> DisassociatedData:
    _need(isinstance(doc, dict), "expected a JSON object", path)
    _need(doc.get("format") == FORMAT, f"'format' must be {FORMAT!r}, got {doc.get('format')!r}", path)
    k, m = doc.get("k"), doc.get("m")
    _need(_is_int(k) and k >= 1, "'k' must be a positive integer", path)
    _need(_is_int(m) and m >= 1, "'m' must be a positive integer", path)
    clusters_doc = doc.get("clusters")
    _need(isinstance(clusters_doc, list), "'clusters' must be a list", path)
    vocab = Vocabulary()
    clusters: list[Cluster] = []
    seen_ids: set[str] = set()
    seen_subs: dict[tuple, list[int]] = {}
    term_ids: dict[str, int] = {}  # each distinct term checked and looked up once
    for ci, c in enumerate(clusters_doc):
        where = f"clusters[{ci}]"
        _need(isinstance(c, dict), f"{where} must be an object", path)
        cid = str(c.get("id", f"P{ci + 1}"))
        _need(cid not in seen_ids, f"{where}: duplicate cluster id {cid!r}", path)
        seen_ids.add(cid)
        chunks_doc = c.get("record_chunks", [])
        _need(isinstance(chunks_doc, list), f"{where}.record_chunks must be a list", path)
        chunks = []
        longest = 0
        for j, chunk in enumerate(chunks_doc):
            _need(isinstance(chunk, list), f"{where}.record_chunks[{j}] must be a list of sub-records", path)
            subs = []
            for r, sr in enumerate(chunk):
                # a chunk repeats its sub-records (k or more times): each distinct one is checked
                # and looked up once (a third of the time of reading disassociated BMS-WebView-2)
                try:
                    ids = seen_subs.get(tuple(sr)) if isinstance(sr, list) else None
                except TypeError:  # an unhashable entry: the check below says what is wrong
                    ids = None
                if ids is None:
                    _need(
                        isinstance(sr, list) and all(isinstance(t, str) and t.strip() for t in sr),
                        f"{where}.record_chunks[{j}][{r}] must be a list of item names",
                        path,
                    )
                    ids = [vocab.add(t.strip()) for t in dict.fromkeys(sr)]
                    seen_subs[tuple(sr)] = ids
                subs.append(ids)
            longest = max(longest, len(subs))
            chunks.append(RecordChunk.from_lists(subs))
        term = c.get("term_chunk", [])
        _need(
            isinstance(term, list) and all(isinstance(t, str) and (t in term_ids or t.strip()) for t in term),
            f"{where}.term_chunk must be a list of item names",
            path,
        )
        size = c.get("size", longest)
        _need(_is_int(size) and size >= longest, f"{where}.size must be an integer >= its largest chunk", path)
        # A transaction of the cluster has a sub-record in a chunk or holds a term, and a term
        # is held by at most k - 1 of them: a larger size is a claim the file cannot back, and
        # every reader of the release would size its work by it.
        subs = sum(len(ch) for ch in chunks)
        most = subs + max(k - 1, 1) * len(term)
        _need(size <= most, f"{where}.size is {size}, but its chunks hold {subs} sub-records and its "
                            f"{len(term)} term-chunk terms at most {max(k - 1, 1)} transaction(s) each (k={k}): "
                            f"at most {most} transactions", path)
        clusters.append(
            Cluster(cid, size, chunks, np.asarray([term_ids[t] if t in term_ids else term_ids.setdefault(t, vocab.add(t.strip()))
                                                   for t in term], dtype=np.int32))
        )
    return DisassociatedData(vocab, k, m, clusters)


def read_disassociated(path: str | Path) -> DisassociatedData:
    return parse_disassociated(load_json(path), path)


def disassociated_to_json(data: DisassociatedData) -> dict:
    names = data.vocab.names
    return {
        "format": FORMAT,
        "k": data.k,
        "m": data.m,
        "clusters": [
            {
                "id": c.id,
                "size": c.size,
                "record_chunks": [[names(ch.sub_record(r)) for r in range(len(ch))] for ch in c.record_chunks],
                "term_chunk": names(c.term_chunk),
            }
            for c in data.clusters
        ],
    }


def _cluster_json(c, names: np.ndarray) -> dict:
    chunks = []
    for ch in c.record_chunks:
        flat = names[ch.items].tolist()
        bounds = ch.indptr.tolist()
        chunks.append([flat[a:b] for a, b in itertools.pairwise(bounds)])
    return {"id": c.id, "size": c.size, "record_chunks": chunks, "term_chunk": names[c.term_chunk].tolist()}


def _dump_lines(fh, head: dict, rows) -> None:
    """``head`` with its ``clusters`` written one per line, each by json's C encoder (an
    indented ``json.dump`` goes through the pure-Python encoder: seconds on 77k records)."""
    text = json.dumps({**head, "clusters": []}, ensure_ascii=False)
    fh.write(text[:-2])  # up to and with the opening bracket of "clusters"
    first = True
    for row in rows:
        fh.write("\n " if first else ",\n ")
        fh.write(json.dumps(row, ensure_ascii=False))
        first = False
    fh.write("\n]}\n")


def dump_disassociated(data: DisassociatedData, fh: IO[str]) -> None:
    """Write a release to an open text file, one line per cluster; the same document as
    :func:`disassociated_to_json`."""
    names = np.array(data.vocab.items, dtype=object)
    _dump_lines(fh, {"format": FORMAT, "k": data.k, "m": data.m}, (_cluster_json(c, names) for c in data.clusters))


def write_disassociated(data: DisassociatedData, path: str | Path) -> None:
    """:func:`dump_disassociated` to ``path`` through the one writer (semtui.fileio)."""
    with atomic_writer(path) as fh:
        dump_disassociated(data, fh)


def read_key(path: str | Path, data: DisassociatedData | None = None) -> DisassociationKey:
    doc = load_json(path)
    _need(isinstance(doc, dict) and doc.get("format") == KEY_FORMAT, f"'format' must be {KEY_FORMAT!r}", path)
    clusters_doc = doc.get("clusters")
    _need(isinstance(clusters_doc, list), "'clusters' must be a list", path)
    out = []
    lists: list = []
    for ci, c in enumerate(clusters_doc):
        where = f"clusters[{ci}]"
        _need(isinstance(c, dict) and "id" in c, f"{where} must be an object with an 'id'", path)
        rc = c.get("record_chunks", [])
        tc = c.get("term_chunk", [])
        _need(isinstance(rc, list) and all(type(ch) is list for ch in rc),
              f"{where}.record_chunks must be lists of transaction indices", path)
        _need(isinstance(tc, list) and all(type(ts) is list for ts in tc),
              f"{where}.term_chunk must be a list of lists of transaction indices", path)
        sup = c.get("suppressed", [])
        _need(isinstance(sup, list) and all(type(e) is list and len(e) == 2 and type(e[0]) is int and e[0] >= 0
                                            and type(e[1]) is str for e in sup),
              f"{where}.suppressed must be a list of [transaction index, item] pairs", path)
        lists.extend(rc)
        lists.extend(tc)
        out.append(ClusterKey(str(c["id"]), rc, tc, [(t, it) for t, it in sup]))
    # every index at once: one pass of type checks in C, then the minimum
    flat = list(chain.from_iterable(lists))
    if not set(map(type, flat)) <= {int} or (flat and min(flat) < 0):
        for ci, ck in enumerate(out):  # the first cluster at fault, for the message
            _need(all(_indices(ch) for ch in ck.record_chunks),
                  f"clusters[{ci}].record_chunks must be lists of transaction indices", path)
            _need(all(_indices(ts) for ts in ck.term_chunk),
                  f"clusters[{ci}].term_chunk must be a list of lists of transaction indices", path)
    key = DisassociationKey(out)
    if data is not None:
        check_key(key, data, path)
    return key


def check_key(key: DisassociationKey, data: DisassociatedData, path) -> None:
    """The key must describe exactly the release's shape (:func:`semtui.model.belongs.check_belongs`)."""
    from semtui.model.belongs import check_belongs

    check_belongs(data, key=key, key_path=path)


def _cluster_key_json(c) -> dict:
    """One cluster of the key; ``suppressed`` (safe disassociation) only when there is any."""
    out = {"id": c.id, "record_chunks": c.record_chunks, "term_chunk": c.term_chunk}
    if c.suppressed:
        out["suppressed"] = [[t, it] for t, it in c.suppressed]
    return out


def key_to_json(key: DisassociationKey) -> dict:
    return {"format": KEY_FORMAT, "clusters": [_cluster_key_json(c) for c in key.clusters]}


def dump_key(key: DisassociationKey, fh: IO[str]) -> None:
    """Write a key to an open text file, one line per cluster; the same document as
    :func:`key_to_json`.  The key undoes the release: write it as a private output."""
    _dump_lines(fh, {"format": KEY_FORMAT},
                (_cluster_key_json(c) for c in key.clusters))


def write_key(key: DisassociationKey, path: str | Path) -> None:
    """:func:`dump_key` to ``path`` through the one writer; a new key file is private (0600)."""
    with atomic_writer(path, private=True) as fh:
        dump_key(key, fh)
