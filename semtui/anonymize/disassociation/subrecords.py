"""The sub-records of a chunk, laid out: sorted by content, identical ones in a random order
drawn from one generator per stream and run (:func:`tie_rng`), for the record chunks of
VERPART, REFINE's shared chunks and the record chunks the safe repair rebuilds.  Below the
package's ``__init__``, which :mod:`.refine` and :mod:`.safe` would otherwise import back."""

from __future__ import annotations

import numpy as np

from semtui.model import RecordChunk

#: the streams of :func:`tie_rng`: record chunks, REFINE's shared chunks, the record chunks and the
#: shared chunks the safe repair rebuilds (:mod:`.safe`)
RECORD_CHUNK, SHARED_CHUNK, REBUILT_CHUNK, SHARED_REBUILT = 0, 1, 2, 3


def tie_rng(seed: int, stream: int) -> np.random.Generator:
    """The generator that orders identical sub-records, one per ``stream`` and run: every chunk
    draws a fresh permutation of its rows from it, in the release's order (cluster, then chunk),
    so the key is a function of the content and ``seed`` and each chunk's order is independent
    of every other chunk's.  Never a key per transaction: that would put a transaction's
    sub-records at the same rank among their equals in every chunk."""
    return np.random.default_rng(np.random.SeedSequence([int(seed), 0xD15A, int(stream)]))


def sub_records(row: np.ndarray, rank: np.ndarray, item: np.ndarray, n_rows: int,
                 width_items: int, rng: np.random.Generator) -> tuple[RecordChunk, np.ndarray]:
    """A record chunk from its tokens (sorted by row, then rank): one sub-record per row of
    the cluster, sorted by content (lexicographic in rank order; empty ones last; ties in a
    random order drawn from ``rng``, never the row order, which would line identical
    sub-records up across chunks).  Returns the chunk and the cluster-local row of each
    sub-record."""
    lens = np.bincount(row, minlength=n_rows)
    width = int(lens.max())
    first = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(lens, out=first[1:])
    pad = np.full((n_rows, width), width_items, dtype=np.int64)  # sorts after every rank
    pad[row, np.arange(len(row)) - first[row]] = rank
    order = np.lexsort((rng.permutation(n_rows),) + tuple(pad[:, w] for w in range(width - 1, -1, -1)))
    indptr = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(lens[order], out=indptr[1:])
    # tokens are grouped by row; reorder the groups
    idx = np.repeat(first[order] - indptr[:-1], lens[order]) + np.arange(len(row), dtype=np.int64)
    return RecordChunk(indptr, item[idx].astype(np.int32)), order
