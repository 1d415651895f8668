"""Distance tables of the set-generalisation attack, built from a dataset.

For each generalised item, its *equivalence group* (the transactions holding it) gives the
rows of a *distance table*; its members give the columns.  The *context* of a row is the
transaction's trivially generalised items (``all``) or the N of them nearest to the
generalised item by position (``nearest:N``, as the thesis does).  A cell aggregates the
distances between the member and the context items: ``mean`` (eq. 2 of the paper), ``min``,
or ``top:K`` (mean of the K closest).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from semtui.errors import InputError
from semtui.model import TransactionData

#: The largest K of ``top:K`` (a context never holds more items than this).
MAX_TOP_K = 2**31 - 1


@dataclass(frozen=True)
class ContextSpec:
    """``all`` or ``nearest:N``."""

    nearest: int | None = None

    @classmethod
    def parse(cls, spec: str) -> ContextSpec:
        if spec == "all":
            return cls(None)
        kind, _, n = spec.partition(":")
        if kind == "nearest" and n.isdigit() and int(n) >= 1:
            return cls(int(n))
        raise InputError(f"the context must be 'all' or 'nearest:N' with N >= 1, got {spec!r}")

    def __str__(self) -> str:
        return "all" if self.nearest is None else f"nearest:{self.nearest}"


@dataclass(frozen=True)
class AggregateSpec:
    """``mean`` (the papers' eq. 2), ``min`` or ``top:K``."""

    kind: str = "mean"
    k: int | None = None

    @classmethod
    def parse(cls, spec: str) -> AggregateSpec:
        if spec in ("mean", "min"):
            return cls(spec)
        kind, _, k = spec.partition(":")
        if kind == "top" and k.isdigit() and len(k) <= 10 and 1 <= int(k) <= MAX_TOP_K:
            return cls("top", int(k))
        raise InputError(f"the aggregate must be 'mean', 'min' or 'top:K' with 1 <= K <= {MAX_TOP_K:,}, got {spec[:40]!r}")

    def __str__(self) -> str:
        return self.kind if self.k is None else f"top:{self.k}"


# --------------------------------------------------------------------------- contexts
def _segments(indptr: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Flat positions of the CSR segments of ``rows``, and the new indptr."""
    starts = indptr[rows]
    lengths = indptr[rows + 1] - starts
    new_ptr = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(lengths, out=new_ptr[1:])
    pos = np.repeat(starts - new_ptr[:-1], lengths) + np.arange(new_ptr[-1], dtype=np.int64)
    return pos, new_ptr


def contexts_for_group(data: TransactionData, g: int, context: ContextSpec) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows of group ``g`` and their contexts as CSR: ``(rows, indptr, items)``."""
    rows = data.group(g)
    pos, ptr = _segments(data.indptr, rows)
    toks = data.tokens[pos]
    row_local = np.repeat(np.arange(len(rows)), np.diff(ptr))
    plain = toks >= 0
    if context.nearest is None:
        items = toks[plain]
        counts = np.bincount(row_local[plain], minlength=len(rows))
    else:
        # position of the generalised item within its transaction, for every token
        local_pos = np.arange(len(pos)) - np.repeat(ptr[:-1], np.diff(ptr))
        gpos = np.zeros(len(rows), dtype=np.int64)
        is_g = toks == -g - 1
        gpos[row_local[is_g]] = local_pos[is_g]
        dist = np.abs(local_pos - gpos[row_local])
        cand = np.flatnonzero(plain)
        order = cand[np.lexsort((local_pos[cand], dist[cand], row_local[cand]))]
        r_sorted = row_local[order]
        first = np.searchsorted(r_sorted, np.arange(len(rows)))
        rank = np.arange(len(order)) - first[r_sorted]
        keep = order[rank < context.nearest]
        keep.sort()  # back to file order within rows
        items = toks[keep]
        counts = np.bincount(row_local[keep], minlength=len(rows))
    indptr = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    return rows, indptr, items.astype(np.int32)


def generalised_contexts(data: TransactionData, g: int, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The other generalised items of each row of group ``g`` as CSR: ``(indptr, ids)``."""
    pos, ptr = _segments(data.indptr, rows)
    toks = data.tokens[pos]
    row_local = np.repeat(np.arange(len(rows)), np.diff(ptr))
    other = (toks < 0) & (toks != -g - 1)
    counts = np.bincount(row_local[other], minlength=len(rows))
    indptr = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    return indptr, (-toks[other].astype(np.int64) - 1)


def aggregate_table(block: np.ndarray, indptr: np.ndarray, aggregate: AggregateSpec) -> np.ndarray:
    """Reduce ``block`` (members x flat context entries) over each row's context segment.

    Every segment is non-empty and holds only context items the measure knows.
    Returns rows x members.
    """
    starts = indptr[:-1]
    n_rows = len(starts)
    if n_rows == 0:
        return np.zeros((0, block.shape[0]))
    if aggregate.kind == "mean":
        sums = np.add.reduceat(block, starts, axis=1)
        return (sums / np.diff(indptr)).T
    if aggregate.kind == "min":
        return np.minimum.reduceat(block, starts, axis=1).T
    # top:K - mean of the K smallest distances of each segment
    k = aggregate.k
    seg = np.repeat(np.arange(n_rows), np.diff(indptr))
    take = np.minimum(np.diff(indptr), k)
    out = np.empty((n_rows, block.shape[0]))
    for j, values in enumerate(block):  # one pass per member (column), vectorised over cells
        order = np.lexsort((values, seg))
        rank = np.arange(len(order)) - starts[seg[order]]
        chosen = order[rank < k]
        out[:, j] = np.bincount(seg[chosen], weights=values[chosen], minlength=n_rows) / take
    return out
