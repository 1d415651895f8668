"""Disassociated releases (``semtui-disassociated/2``, and ``/1`` read) and their private keys.

Release::

    {"format": "semtui-disassociated/2", "k": 2, "m": 2,
     "clusters": [{"id": "P1", "size": 4,
                   "record_chunks": [[["blood", "treatment", "lung"], ...], [["tumor", "biopsy"], ...]],
                   "term_chunk": ["vessel", ...]}, ...],
     "joint_clusters": [{"id": "J1", "clusters": ["P1", "P2"],
                         "shared_chunks": [[["vessel", "catheterisation"], [], ...]]}]}

A shared chunk holds one sub-record per record of its member clusters (empty ones included),
without saying which member each came from.  Version 1 is the same without ``joint_clusters``.

Key (``semtui-disassociation-key/2``; ``/1`` read), kept apart from the release because it undoes it::

    {"format": "semtui-disassociation-key/2",
     "clusters": [{"id": "P1", "record_chunks": [[0, 1, 2, 3], [1, 2]], "term_chunk": [[0], [0], [1]],
                   "records": [0, 1, 2, 3]}],
     "joint_clusters": [{"id": "J1", "shared_chunks": [[0, 5, 1, ...]]}]}

``record_chunks[j][r]`` is the 0-based index, in the original file, of the transaction that
sub-record r of chunk j came from; ``term_chunk[t]`` lists the transactions term t came from;
``records`` every transaction of the cluster; ``shared_chunks[s][r]`` the transaction that
sub-record r of shared chunk s came from (and so, through ``records``, its cluster).
``suppressed`` (only in a safe release, ``anonymize disassoc --safe``) lists the item occurrences
suppressed to remove the cover problems, as ``[transaction, item]`` pairs.
"""

from __future__ import annotations

import itertools
import json
from array import array
from collections.abc import Iterator
from itertools import chain
from pathlib import Path
from typing import IO

import numpy as np

from semtui.errors import InputError
from semtui.fileio import TextLines, atomic_writer, parse_json
from semtui.model import (
    Cluster,
    ClusterKey,
    DisassociatedData,
    DisassociationKey,
    JointCluster,
    JointClusterKey,
    RecordChunk,
    Vocabulary,
)
from semtui.model.disassociated import ClustersById, IdIndex, id_hash

FORMAT = "semtui-disassociated/2"
KEY_FORMAT = "semtui-disassociation-key/2"
#: the versions read (a version 1 file has no joint clusters)
FORMATS = ("semtui-disassociated/1", FORMAT)
KEY_FORMATS = ("semtui-disassociation-key/1", KEY_FORMAT)
#: distinct sub-records remembered while reading (each checked and looked up once while
#: remembered): a chunk repeats its sub-records k or more times, and a large release's
#: distinct sub-records are not all held
_SEEN_SUBS = 100_000


def _need(cond: bool, message: str, path) -> None:
    if not cond:
        raise InputError(message, path)


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _indices(values) -> bool:
    """A list of non-negative integers (not booleans): one pass of ``type`` checks, then ``min``
    (the keys of big releases hold hundreds of thousands of them)."""
    return isinstance(values, list) and all(type(v) is int for v in values) and (not values or min(values) >= 0)


def parse_disassociated(doc, path, clusters: list | None = None, joint_clusters: list | None = None) -> DisassociatedData:
    """The release a decoded document describes, checked; ``clusters``, ``joint_clusters``:
    where its clusters and joint clusters go (a :class:`semtui.fileio.Spool` keeps a large
    release's on disk), new lists by default."""
    _need(isinstance(doc, dict), "expected a JSON object", path)
    fmt = doc.get("format")
    if isinstance(fmt, str) and fmt.startswith("semtui-") and fmt not in FORMATS:
        # another semtui document (a sidecar, a report, a key): say what it is, not only what it is not
        raise InputError(f"this is a {fmt} document, not a release: give the release it belongs to (a sidecar "
                         f"or report sits beside its release as RELEASE.json)", path)
    _need(fmt in FORMATS, f"'format' must be {FORMAT!r} (or {FORMATS[0]!r}), got {fmt!r}", path)
    k, m = doc.get("k"), doc.get("m")
    _need(_is_int(k) and k >= 1, "'k' must be a positive integer", path)
    _need(_is_int(m) and m >= 1, "'m' must be a positive integer", path)
    bound = doc.get("max_cluster_size")
    _need(bound is None or (_is_int(bound) and bound >= 1), "'max_cluster_size' must be a positive integer", path)
    clusters_doc = doc.get("clusters")
    _need(isinstance(clusters_doc, (list, _Rows)), "'clusters' must be a list", path)
    vocab = Vocabulary()
    clusters = [] if clusters is None else clusters
    hashes = array("q")   # every cluster's id, as IdIndex hashes it (not the ids: a release may be on disk)
    seen_subs: dict[tuple, list[int]] = {}   # distinct sub-records met lately (at most _SEEN_SUBS)
    term_ids: dict[str, int] = {}  # each distinct term checked and looked up once
    unbacked = array("q")   # (cluster, size, subs, terms, most) of each size the chunks alone do not back

    def read_chunks(chunks_doc, where: str, what: str) -> list[RecordChunk]:
        _need(isinstance(chunks_doc, list), f"{where}.{what} must be a list", path)
        chunks = []
        remembered = seen_subs.get
        for j, chunk in enumerate(chunks_doc):
            _need(isinstance(chunk, list), f"{where}.{what}[{j}] must be a list of sub-records", path)
            subs = []
            for r, sr in enumerate(chunk):
                # a chunk repeats its sub-records (k or more times): each distinct one is checked
                # and looked up once (a third of the time of reading disassociated BMS-WebView-2)
                try:
                    ids = remembered(tuple(sr)) if type(sr) is list else None
                except TypeError:  # an unhashable entry: the check below says what is wrong
                    ids = None
                if ids is None:
                    if len(seen_subs) >= _SEEN_SUBS:  # bounded: a large release's are not all held
                        seen_subs.clear()
                    _need(
                        isinstance(sr, list) and all(isinstance(t, str) and t.strip() for t in sr),
                        f"{where}.{what}[{j}][{r}] must be a list of item names",
                        path,
                    )
                    ids = [vocab.add(t.strip()) for t in dict.fromkeys(sr)]
                    seen_subs[tuple(sr)] = ids
                subs.append(ids)
            chunks.append(RecordChunk.from_lists(subs))
        return chunks

    known_term = term_ids.get
    for ci, c in enumerate(clusters_doc):
        where = f"clusters[{ci}]"
        _need(isinstance(c, dict), f"{where} must be an object", path)
        cid = str(c.get("id", f"P{ci + 1}"))
        chunks = read_chunks(c.get("record_chunks", []), where, "record_chunks")
        longest = max((len(ch) for ch in chunks), default=0)
        term = c.get("term_chunk", [])
        # the common term chunk: every term met before, looked up once; else each checked, then added
        try:
            tids = [known_term(t) for t in term] if type(term) is list else None
        except TypeError:  # an unhashable entry: the check below says what is wrong
            tids = None
        if tids is None or None in tids:
            _need(
                isinstance(term, list) and all(isinstance(t, str) and (t in term_ids or t.strip()) for t in term),
                f"{where}.term_chunk must be a list of item names",
                path,
            )
            tids = [term_ids[t] if t in term_ids else term_ids.setdefault(t, vocab.add(t.strip())) for t in term]
        size = c.get("size", longest)
        _need(_is_int(size) and size >= longest, f"{where}.size must be an integer >= its largest chunk", path)
        # A transaction of the cluster has a sub-record in a chunk or holds a term, and a term
        # is held by at most k - 1 of them: a larger size is a claim the file cannot back, and
        # every reader of the release would size its work by it.
        subs = sum(len(ch) for ch in chunks)
        most = subs + max(k - 1, 1) * len(term)
        if size > most:  # a joint cluster's shared chunks may back it: checked below
            unbacked.extend((ci, size, subs, len(term), most))
        hashes.append(id_hash(cid))
        clusters.append(Cluster(cid, size, chunks, np.array(tids, dtype=np.int32)))
    by_id = IdIndex(clusters, np.frombuffer(hashes, dtype=np.int64))
    del hashes
    twice = by_id.repeated()
    _need(twice is None, f"clusters[{twice[0]}]: duplicate cluster id {twice[1]!r}" if twice else "", path)
    joint_doc = doc.get("joint_clusters", [])
    _need(isinstance(joint_doc, (list, _Rows)), "'joint_clusters' must be a list", path)
    joints = [] if joint_clusters is None else joint_clusters
    joint_hashes = array("q")
    joint_ptr, joint_ids = array("q", [0]), array("q")   # each joint cluster's members' positions
    # a record of a member cluster may hold nothing but shared sub-records: a joint cluster's
    # longest shared chunk backs that many more records of each member (summed for the
    # clusters whose size needs it, in the order they were read)
    ub = np.frombuffer(unbacked, dtype=np.int64).reshape(-1, 5)   # cluster, size, subs, terms, most
    extra = np.zeros(len(ub), dtype=np.int64)
    for ji, jd in enumerate(joint_doc):   # a line at a time: never all decoded at once
        where = f"joint_clusters[{ji}]"
        _need(doc.get("format") == FORMAT, f"'joint_clusters' needs format {FORMAT!r}", path)
        _need(isinstance(jd, dict), f"{where} must be an object", path)
        jid = str(jd.get("id", f"J{ji + 1}"))
        _need(jid not in by_id, f"{where}: duplicate id {jid!r}", path)
        members = jd.get("clusters")
        _need(isinstance(members, list) and len(members) >= 2 and all(isinstance(x, str) for x in members),
              f"{where}.clusters must list at least two cluster ids", path)
        found = []
        for x in members:
            try:
                found.append(by_id.find(x))
            except KeyError:
                raise InputError(f"{where}.clusters names {x!r}, which is no cluster of the release", path) from None
        _need(len(set(members)) == len(members), f"{where}.clusters names a cluster twice", path)
        shared = read_chunks(jd.get("shared_chunks", []), where, "shared_chunks")
        records = sum(c.size for _, c in found)
        big = [len(ch) for ch in shared if len(ch) > records]
        _need(not big, f"{where}: a shared chunk has {big[0] if big else 0} sub-records, its member clusters "
                       f"{records} records", path)
        if len(ub):
            at = np.asarray([i for i, _ in found], dtype=np.int64)
            pos = np.minimum(np.searchsorted(ub[:, 0], at), len(ub) - 1)
            hit = ub[pos, 0] == at
            extra[pos[hit]] += max((len(ch) for ch in shared), default=0)
        joint_hashes.append(id_hash(jid))
        joint_ids.extend(i for i, _ in found)
        joint_ptr.append(len(joint_ids))
        joints.append(JointCluster(jid, list(members), shared))
    twice = IdIndex(joints, np.frombuffer(joint_hashes, dtype=np.int64)).repeated()
    _need(twice is None, f"joint_clusters[{twice[0]}]: duplicate id {twice[1]!r}" if twice else "", path)
    _one_joint_cluster_each(joints, np.frombuffer(joint_ptr, dtype=np.int64),
                            np.frombuffer(joint_ids, dtype=np.int64), path)
    for (ci, size, subs, terms, most), more in zip(ub.tolist(), extra.tolist()):
        _need(size <= most + more,
              f"clusters[{ci}].size is {size}, but its chunks hold {subs} sub-records, its {terms} term-chunk terms "
              f"at most {max(k - 1, 1)} transaction(s) each (k={k})"
              + (f" and its joint clusters' shared chunks {more} sub-records" if more else "")
              + f": at most {most + more} transactions", path)
    data = DisassociatedData(vocab, k, m, clusters, joints, bound)
    # the joint clusters' members as found here (the clusters' index is not kept: 16 bytes a cluster)
    data._joint_positions = (np.frombuffer(joint_ptr, dtype=np.int64), np.frombuffer(joint_ids, dtype=np.int64))
    return data


def _one_joint_cluster_each(joints, ptr: np.ndarray, members: np.ndarray, path) -> None:
    """A cluster belongs to at most one joint cluster (REFINE joins each cluster once): a release
    that puts one in two describes records twice, and is refused naming the cluster and both."""
    if len(members) < 2:
        return
    order = np.argsort(members, kind="stable")
    same = np.flatnonzero(members[order][1:] == members[order][:-1])
    if not len(same):
        return
    first, second = np.sort(order[[same[0], same[0] + 1]])
    a, b = (int(np.searchsorted(ptr, x, side="right")) - 1 for x in (first, second))
    name = joints[a].clusters[int(first - ptr[a])]
    raise InputError(f"joint_clusters[{b}] ({joints[b].id!r}) names cluster {name!r}, which already belongs to "
                     f"joint_clusters[{a}] ({joints[a].id!r}): a cluster belongs to at most one joint cluster", path)


def read_disassociated(path: str | Path, *, spool: bool = False) -> DisassociatedData:
    """A release from ``path``. A file laid out as semtui writes it (one cluster a line,
    :func:`dump_disassociated`) is read and decoded a line at a time, each cluster turned into
    arrays before the next is read, so neither the text nor the whole document is ever held
    (the document as Python objects is 7x the file's size: MEPS x 32's 116 MB release peaked
    at 800 MB); any other layout, or a line that does not decode, is read whole, which also
    names the line of a syntax error.  ``spool``: the clusters are kept on disk
    (:class:`semtui.fileio.Spool`), for a run that uses a few at a time (``--scheduler``)."""
    from semtui.fileio import Spool

    with TextLines(path) as lines:
        try:
            return parse_disassociated(_by_line(iter(lines), ("format", "k", "m")), path,
                                       *((Spool("the release's clusters"), Spool("the release's joint clusters"))
                                         if spool else ()))
        except _NotByLine:
            pass
        text = lines.whole()
    return parse_disassociated(parse_json(text, path), path)


class _NotByLine(Exception):
    """The file is not laid out one cluster a line: read it whole."""


class _Rows:
    """The clusters (or joint clusters) of a release laid out one a line, decoded as they are
    iterated; raises :class:`_NotByLine` where the layout breaks."""

    def __init__(self, cursor: _Cursor, opening: str | None, closings: tuple[str, ...]):
        self.cursor, self.opening, self.closings = cursor, opening, closings

    def __iter__(self):
        import orjson

        c = self.cursor
        if self.opening is not None:  # the array after the clusters: its opening line comes first
            if c.closing == "]}":  # the document ended with the clusters: no such array
                return
            if (c.line() or "").strip() != self.opening:
                raise _NotByLine
        while True:
            line = c.line()
            if line is None:
                raise _NotByLine
            row = line.strip()
            if row.startswith("]"):
                c.closing = row
                if row not in self.closings or (row == "]}" and not c.rest_blank()):
                    raise _NotByLine  # a key after the arrays, or text after the document
                return
            try:
                value = orjson.loads(row[:-1] if row.endswith(",") else row)
            except orjson.JSONDecodeError:
                raise _NotByLine from None
            if not isinstance(value, dict):
                raise _NotByLine
            yield value


class _Cursor:
    """The lines of a release from its second on, shared by the two arrays read from them, and
    the closing line the clusters' array ended with."""

    def __init__(self, lines: Iterator[str]):
        self.lines = lines
        self.closing: str | None = None

    def line(self) -> str | None:
        return next(self.lines, None)

    def rest_blank(self) -> bool:
        """Whether nothing but white space follows the line last read."""
        return not any(line.strip() for line in self.lines)


def _by_line(lines: Iterator[str], needed: tuple[str, ...]) -> dict:
    """The document of a release (or a key) written one cluster a line: its header decoded
    (it must hold the keys ``needed``), ``clusters`` and ``joint_clusters`` decoded a line at
    a time as they are read."""
    import orjson

    head_line = next(lines, "")
    if not head_line.rstrip().endswith("["):
        raise _NotByLine
    try:
        head = orjson.loads(head_line.rstrip() + "]}")
    except orjson.JSONDecodeError:
        raise _NotByLine from None
    # semtui writes every other key before the clusters: a file with keys after them is read whole
    if not isinstance(head, dict) or list(head)[-1:] != ["clusters"] or head["clusters"] != [] \
            or "joint_clusters" in head or not set(needed) <= set(head):
        raise _NotByLine
    cursor = _Cursor(lines)
    return {**head, "clusters": _Rows(cursor, None, ("],", "]}")),
            "joint_clusters": _Rows(cursor, '"joint_clusters": [', ("]}",))}


def _header(data: DisassociatedData) -> dict:
    """k, m and, when known, HORPART's bound (``max_cluster_size``: a public parameter)."""
    out = {"k": data.k, "m": data.m}
    if data.max_cluster_size is not None:
        out["max_cluster_size"] = data.max_cluster_size
    return out


def disassociated_to_json(data: DisassociatedData) -> dict:
    names = np.array(data.vocab.items, dtype=object)
    return {"format": FORMAT, **_header(data),
            "clusters": [_cluster_json(c, names) for c in data.clusters],
            "joint_clusters": [_joint_json(j, names) for j in data.joint_clusters]}


def _chunks_json(chunks, names: np.ndarray) -> list:
    out = []
    for ch in chunks:
        flat = names[ch.items].tolist()
        bounds = ch.indptr.tolist()
        out.append([flat[a:b] for a, b in itertools.pairwise(bounds)])
    return out


def _cluster_json(c, names: np.ndarray) -> dict:
    return {"id": c.id, "size": c.size, "record_chunks": _chunks_json(c.record_chunks, names),
            "term_chunk": names[c.term_chunk].tolist()}


def _joint_json(j, names: np.ndarray) -> dict:
    return {"id": j.id, "clusters": list(j.clusters), "shared_chunks": _chunks_json(j.shared_chunks, names)}


def _joint_line(j, names: np.ndarray) -> str:
    """:func:`_joint_json` encoded: a shared chunk holds one sub-record per record of its
    members, most of them empty and sorted last, so the empty tail is written as text rather
    than built as a list of hundreds of thousands of empty lists."""
    chunks = []
    for ch in j.shared_chunks:
        lens = np.diff(ch.indptr)
        nonempty = np.flatnonzero(lens)
        head = int(nonempty[-1]) + 1 if len(nonempty) else 0
        flat = names[ch.items[:ch.indptr[head]]].tolist()
        bounds = ch.indptr[:head + 1].tolist()
        parts = json.dumps([flat[a:b] for a, b in itertools.pairwise(bounds)], ensure_ascii=False)[1:-1]
        tail = len(ch) - head
        chunks.append("[" + ", ".join(x for x in (parts, ", ".join(["[]"] * tail)) if x) + "]")
    head = json.dumps({"id": j.id, "clusters": list(j.clusters), "shared_chunks": []}, ensure_ascii=False)
    return head[:-3] + "[" + ", ".join(chunks) + "]}"


def _dump_lines(fh, head: dict, rows, joint_rows=None) -> None:
    """``head`` with its ``clusters`` (and ``joint_clusters``) written one per line, each by
    json's C encoder (an indented ``json.dump`` goes through the pure-Python encoder: seconds
    on 77k records)."""
    text = json.dumps({**head, "clusters": []}, ensure_ascii=False)
    fh.write(text[:-2])  # up to and with the opening bracket of "clusters"
    for name, part in (("clusters", rows), ("joint_clusters", joint_rows)):
        if part is None:
            continue
        if name != "clusters":
            fh.write(f"\n],\n {json.dumps(name)}: [")
        first = True
        for row in part:
            fh.write("\n " if first else ",\n ")
            fh.write(row if isinstance(row, str) else json.dumps(row, ensure_ascii=False))
            first = False
    fh.write("\n]}\n")


def dump_disassociated(data: DisassociatedData, fh: IO[str]) -> None:
    """Write a release to an open text file, one line per cluster and per joint cluster; the
    same document as :func:`disassociated_to_json`."""
    names = np.array(data.vocab.items, dtype=object)
    _dump_lines(fh, {"format": FORMAT, **_header(data)}, (_cluster_json(c, names) for c in data.clusters),
                (_joint_line(j, names) for j in data.joint_clusters))


def write_disassociated(data: DisassociatedData, path: str | Path) -> None:
    """:func:`dump_disassociated` to ``path`` through the one writer (semtui.fileio)."""
    with atomic_writer(path) as fh:
        dump_disassociated(data, fh)


def read_key(path: str | Path, *, spool: bool = False) -> DisassociationKey:
    """A key from ``path``, read a line at a time when laid out as semtui writes it (one
    cluster a line), else whole.  ``spool``: its clusters are kept on disk
    (:class:`semtui.fileio.Spool`), as :func:`read_disassociated`'s.  Whether it describes a
    release is checked where the release is opened (:func:`semtui.release.open_release`)."""
    from semtui.fileio import Spool

    with TextLines(path) as lines:
        try:
            return _parse_key(_by_line(iter(lines), ("format",)), path,
                              *((Spool("the key's clusters"), Spool("the key's joint clusters")) if spool else ()))
        except _NotByLine:
            pass
        text = lines.whole()
    return _parse_key(parse_json(text, path), path, None)


def _all_indices(lists) -> bool:
    """Every entry of every list a non-negative integer: one pass of type checks in C, then
    the minimum (a large key holds millions)."""
    flat = list(chain.from_iterable(lists))
    return set(map(type, flat)) <= {int} and (not flat or min(flat) >= 0)


def _parse_key(doc, path, clusters: list | None = None,
               joint_clusters: list | None = None) -> DisassociationKey:
    _need(isinstance(doc, dict) and doc.get("format") in KEY_FORMATS,
          f"'format' must be {KEY_FORMAT!r} (or {KEY_FORMATS[0]!r})", path)
    clusters_doc = doc.get("clusters")
    _need(isinstance(clusters_doc, (list, _Rows)), "'clusters' must be a list", path)
    out = [] if clusters is None else clusters
    hashes = array("q")   # every cluster's id hashed, to find one named twice
    for ci, c in enumerate(clusters_doc):
        where = f"clusters[{ci}]"
        _need(isinstance(c, dict) and "id" in c, f"{where} must be an object with an 'id'", path)
        hashes.append(id_hash(str(c["id"])))
        rc = c.get("record_chunks", [])
        tc = c.get("term_chunk", [])
        _need(isinstance(rc, list) and all(type(ch) is list for ch in rc),
              f"{where}.record_chunks must be lists of transaction indices", path)
        _need(isinstance(tc, list) and all(type(ts) is list for ts in tc),
              f"{where}.term_chunk must be a list of lists of transaction indices", path)
        records = c.get("records")
        _need(records is None or type(records) is list, f"{where}.records must be a list of transaction indices",
              path)
        if not _all_indices(chain(rc, tc, [records or []])):  # the cluster's lists, for the message
            _need(all(_indices(ch) for ch in rc), f"{where}.record_chunks must be lists of transaction indices", path)
            _need(all(_indices(ts) for ts in tc),
                  f"{where}.term_chunk must be a list of lists of transaction indices", path)
            _need(records is None or _indices(records), f"{where}.records must be a list of transaction indices",
                  path)
        sup = c.get("suppressed", [])
        _need(isinstance(sup, list) and all(type(e) is list and len(e) == 2 and type(e[0]) is int and e[0] >= 0
                                            and type(e[1]) is str for e in sup),
              f"{where}.suppressed must be a list of [transaction index, item] pairs", path)
        out.append(ClusterKey(str(c["id"]), rc, tc, records, [(t, it) for t, it in sup]))
    twice = IdIndex(out, np.frombuffer(hashes, dtype=np.int64)).repeated()
    del hashes
    _need(twice is None, f"clusters[{twice[0]}]: duplicate cluster id {twice[1]!r}" if twice else "", path)
    joints_doc = doc.get("joint_clusters", [])
    _need(isinstance(joints_doc, (list, _Rows)), "'joint_clusters' must be a list", path)
    joints = [] if joint_clusters is None else joint_clusters
    for ji, jd in enumerate(joints_doc):   # a line at a time: never all decoded at once
        where = f"joint_clusters[{ji}]"
        _need(isinstance(jd, dict) and "id" in jd, f"{where} must be an object with an 'id'", path)
        sc = jd.get("shared_chunks", [])
        _need(isinstance(sc, list) and all(type(ch) is list for ch in sc),
              f"{where}.shared_chunks must be lists of transaction indices", path)
        _need(_all_indices(sc), f"{where}.shared_chunks must be lists of transaction indices", path)
        joints.append(JointClusterKey(str(jd["id"]), sc))
    key = DisassociationKey(out, joints)
    key._by_id = ClustersById(out, unique=True)   # no id twice: looked up in order first, no index held
    return key


def _cluster_key_json(c: ClusterKey) -> dict:
    out = {"id": c.id, "record_chunks": c.record_chunks, "term_chunk": c.term_chunk}
    if c.records is not None:
        out["records"] = c.records
    if c.suppressed:
        out["suppressed"] = [[t, it] for t, it in c.suppressed]
    return out


def key_to_json(key: DisassociationKey) -> dict:
    return {
        "format": KEY_FORMAT,
        "clusters": [_cluster_key_json(c) for c in key.clusters],
        "joint_clusters": [{"id": j.id, "shared_chunks": j.shared_chunks} for j in key.joint_clusters],
    }


def dump_key(key: DisassociationKey, fh: IO[str]) -> None:
    """Write a key to an open text file, one line per cluster and per joint cluster; the same
    document as :func:`key_to_json`.  The key undoes the release: write it as a private output."""
    _dump_lines(fh, {"format": KEY_FORMAT}, (_cluster_key_json(c) for c in key.clusters),
                ({"id": j.id, "shared_chunks": j.shared_chunks} for j in key.joint_clusters))


def write_key(key: DisassociationKey, path: str | Path) -> None:
    """:func:`dump_key` to ``path`` through the one writer; a new key file is private (0600)."""
    with atomic_writer(path, private=True) as fh:
        dump_key(key, fh)
