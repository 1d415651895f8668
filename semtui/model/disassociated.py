"""Disassociated data (Terrovitis et al. 2012): clusters of record chunks and a term chunk,
and joint clusters whose shared chunks hold sub-records of the records of several clusters.

A :class:`DisassociationKey` links every sub-record and term-chunk term back to the original
transaction it came from, for evaluation only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from hashlib import blake2b as _blake2b  # at import: one per id read (a release has tens of thousands)

import numpy as np

from semtui.model.transactions import _csr_from_lists
from semtui.model.vocabulary import Vocabulary


@dataclass
class RecordChunk:
    """A multiset of sub-records, CSR: sub-record r is ``items[indptr[r]:indptr[r+1]]``."""

    indptr: np.ndarray
    items: np.ndarray

    @classmethod
    def from_lists(cls, sub_records: Sequence[Sequence[int]]) -> RecordChunk:
        return cls(*_csr_from_lists(sub_records))

    def __len__(self) -> int:
        return len(self.indptr) - 1

    def sub_record(self, r: int) -> np.ndarray:
        return self.items[self.indptr[r] : self.indptr[r + 1]]

    def domain(self) -> np.ndarray:
        """The distinct items of the chunk."""
        return np.unique(self.items)

    def distinct_rows(self) -> list[list[int]]:
        """The rows of each distinct sub-record that holds items (the same items, in any order),
        in order of first appearance.  Only the rows that hold items are looked at one by one: a
        shared chunk is mostly empty rows (88 % of disassociated BMS-WebView-2's)."""
        seen: dict[tuple, int] = {}
        groups: list[list[int]] = []
        ptr = self.indptr.tolist()
        for r in np.flatnonzero(np.diff(self.indptr)).tolist():
            key = tuple(sorted(self.items[ptr[r]:ptr[r + 1]].tolist()))
            g = seen.get(key)
            if g is None:
                seen[key] = len(groups)
                groups.append([r])
            else:
                groups[g].append(r)
        return groups


@dataclass
class Cluster:
    id: str
    size: int
    record_chunks: list[RecordChunk]
    term_chunk: np.ndarray


@dataclass
class JointCluster:
    """REFINE's joint cluster: shared chunks over every record of its member clusters (one
    sub-record per record, empty ones included), without saying which member each came from."""

    id: str
    clusters: list[str]
    shared_chunks: list[RecordChunk]


@dataclass
class DisassociatedData:
    """Clusters of record chunks and a term chunk, and joint clusters of shared chunks,
    declared k^m-anonymous."""

    vocab: Vocabulary
    k: int
    m: int
    clusters: list[Cluster]
    joint_clusters: list[JointCluster] = field(default_factory=list)
    #: HORPART's bound, when the release records it (a public parameter; clusters of identical
    #: transactions are never split, so the largest cluster may exceed it)
    max_cluster_size: int | None = None
    _by_id: IdIndex | None = field(default=None, init=False, repr=False, compare=False)
    #: each joint cluster's members' positions (CSR: ptr, ids) as the reader found them, or None
    _joint_positions: tuple | None = field(default=None, init=False, repr=False, compare=False)

    kind = "disassociated"

    @property
    def by_id(self) -> IdIndex:
        """Each cluster's position by id (:class:`IdIndex`: the ids are not held), built once
        when first asked for (the reader does not keep its own: a large release's streamed
        attack never asks)."""
        if self._by_id is None:
            self._by_id = IdIndex(self.clusters)
        return self._by_id

    def joint_of(self) -> dict[str, list[int]]:
        """Cluster id -> the indices of the joint clusters it is a member of."""
        out: dict[str, list[int]] = {}
        for j, jc in enumerate(self.joint_clusters):
            for cid in jc.clusters:
                out.setdefault(cid, []).append(j)
        return out

    @property
    def n_shared_chunks(self) -> int:
        return sum(len(j.shared_chunks) for j in self.joint_clusters)

    @property
    def n_transactions(self) -> int:
        return int(sum(c.size for c in self.clusters))

    def __len__(self) -> int:
        return self.n_transactions

    @property
    def n_record_chunks(self) -> int:
        return sum(len(c.record_chunks) for c in self.clusters)

    @property
    def n_term_chunk_terms(self) -> int:
        return int(sum(len(c.term_chunk) for c in self.clusters))


@dataclass
class ClusterKey:
    """Original transaction index (0-based, in the original file) of each sub-record of each
    record chunk, and the original transactions of each term-chunk term."""

    id: str
    record_chunks: list[list[int]]
    term_chunk: list[list[int]]
    #: every transaction of the cluster (key v2; None in a v1 key, where the record chunks and
    #: the term chunk name them)
    records: list[int] | None = None
    #: item occurrences the anonymiser suppressed (safe disassociation): (transaction, item name);
    #: they are nowhere in the release, and the check counts them as accounted for, not missing
    suppressed: list[tuple[int, str]] = field(default_factory=list)


@dataclass
class JointClusterKey:
    """Original transaction index of each sub-record of each shared chunk of a joint cluster."""

    id: str
    shared_chunks: list[list[int]]


def id_hash(cid) -> int:
    """A 64-bit hash of an id, the same in every process (Python's ``hash`` of a string is not:
    an index shipped to a worker process must still find its ids)."""
    return int.from_bytes(_blake2b(str(cid).encode(), digest_size=8).digest(), "little", signed=True)


class IdIndex(Mapping):
    """The position of each item of a sequence by its ``id``, for a sequence that may be kept on
    disk (:class:`semtui.fileio.Spool`): 16 bytes an item (a 64-bit hash of its id and its
    position), not the ids themselves.  A lookup checks each candidate's id against the item,
    read when asked for, so it is exact; a repeated id gives its last item, as a dict would."""

    def __init__(self, items: Sequence, hashes: np.ndarray | None = None):
        """``hashes``: :func:`id_hash` of each item's id, when the reader has them already."""
        self.items = items
        if hashes is None:
            hashes = np.fromiter((id_hash(it.id) for it in items), dtype=np.int64, count=len(items))
        self._order = np.argsort(hashes, kind="stable")
        self._hashes = hashes[self._order]

    def find(self, cid):
        """``(position, item)`` of the last item with id ``cid``; KeyError if none has it."""
        h = id_hash(cid)
        lo = int(self._hashes.searchsorted(h, side="left"))
        hi = int(self._hashes.searchsorted(h, side="right"))
        for j in range(hi - 1, lo - 1, -1):   # the same hash in position order: the last first
            i = int(self._order[j])
            item = self.items[i]
            if item.id == cid:
                return i, item
        raise KeyError(cid)

    def __getitem__(self, cid) -> int:
        return self.find(cid)[0]

    def repeated(self) -> tuple[int, str] | None:
        """``(position, id)`` of the first item whose id an earlier item has, or None."""
        h = self._hashes
        same = np.flatnonzero(h[1:] == h[:-1]) if len(h) > 1 else np.zeros(0, dtype=np.int64)
        groups: dict[int, set[int]] = {}
        for j in same.tolist():
            groups.setdefault(int(h[j]), set()).update((int(self._order[j]), int(self._order[j + 1])))
        first = None
        for positions in groups.values():
            seen: set = set()
            for i in sorted(positions):
                cid = self.items[i].id
                if cid in seen:
                    if first is None or i < first[0]:
                        first = (i, cid)
                    break
                seen.add(cid)
        return first

    def __iter__(self):
        return iter(dict.fromkeys(it.id for it in self.items))

    def __len__(self) -> int:
        return len(dict.fromkeys(it.id for it in self.items))


#: lookups of a key's clusters out of order before :class:`ClustersById` stops looking in order
_MISSES = 64


class ClustersById(Mapping):
    """A key's clusters by id (:attr:`DisassociationKey.by_id`), each read from the key's list
    when asked for (:class:`IdIndex`: the ids are not held).  ``unique``: no id is in the list
    twice (the key's reader checked), so a cluster is first looked for where the last one found
    ended -- a key in the release's order, asked in that order, needs no index at all (16 bytes
    a cluster); the index is built on the first miss."""

    def __init__(self, clusters: Sequence[ClusterKey], unique: bool = False):
        self.clusters = clusters
        self.unique = unique
        self._index: IdIndex | None = None
        self._next = 0     # where the next cluster asked for is looked for first (after the last, the first)
        self._misses = 0   # asked for elsewhere: past a few, in another order, and the index answers alone

    @property
    def index(self) -> IdIndex:
        if self._index is None:
            self._index = IdIndex(self.clusters)
        return self._index

    def __getitem__(self, cid: str) -> ClusterKey:
        n = len(self.clusters)
        if self.unique and n and self._misses < _MISSES:
            at = self._next % n   # a pass in order after another starts again at the first
            c = self.clusters[at]
            if c.id == cid:
                self._next = at + 1
                return c
            self._misses += 1
        at, c = self.index.find(cid)
        self._next = at + 1
        return c

    def __iter__(self):
        return iter(self.index)

    def __len__(self) -> int:
        return len(self.index)


@dataclass
class DisassociationKey:
    """The private key of a disassociated release (evaluation only)."""

    clusters: list[ClusterKey]
    joint_clusters: list[JointClusterKey] = field(default_factory=list)
    _by_id: ClustersById | None = field(default=None, init=False, repr=False, compare=False)
    _joint_by_id: ClustersById | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def by_id(self) -> ClustersById:
        """The key's clusters by id (the last of a repeated id, as a dict would keep), each read
        from :attr:`clusters` when asked for: a key kept on disk (:class:`semtui.fileio.Spool`)
        stays there, at most the ids' hashes are held; built once per key (the key's reader sets
        one that looks in order first: it refused repeated ids)."""
        if self._by_id is None:
            self._by_id = ClustersById(self.clusters)
        return self._by_id

    @property
    def joint_by_id(self) -> ClustersById:
        """The key's joint clusters by id, as :attr:`by_id`."""
        if self._joint_by_id is None:
            self._joint_by_id = ClustersById(self.joint_clusters)
        return self._joint_by_id

    def cluster(self, cid: str) -> ClusterKey:
        for c in self.clusters:
            if c.id == cid:
                return c
        raise KeyError(cid)
