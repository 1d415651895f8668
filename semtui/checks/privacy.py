"""The independent witness: does a set-generalised release protect its privacy constraints?

Shares no code with the anonymiser (only the data model and the readers).  It reads the
release as it was written and counts supports itself, with a sparse matrix product:

* a transaction *supports* an item when it holds the item plainly or holds a generalised
  item having it as a member (a generalised item may stand for any non-empty subset of its
  members, setgen-attack-shao-ong-toit2017 Def. 3.3);
* it supports an itemset when it supports every item of it;
* a privacy constraint holds when its support is >= k or 0 (Def. 3.2).  An item that is not
  in the release at all (suppressed, or never there) gives support 0.

It also reports whether the generalisation is a partition (every item plain everywhere, or
a member of one generalised item that replaces it everywhere), which Def. 3.3 requires;
that is information and does not change the verdict.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from semtui.errors import InputError
from semtui.fileio import parse_json, read_text
from semtui.formats.text import read_plain
from semtui.model import TransactionData
from semtui.reports import Report

SIDECAR_FORMAT = "semtui-setgen-sidecar/"
#: Transactions per block of the sparse product (bounds the memory of rows x constraints).
_BLOCK = 4096


@dataclass
class PrivacyReport(Report):
    """What the independent privacy check found."""

    FORMAT = "semtui-privacy-check/1"

    k: int
    constraints: list[list[str]]
    supports: np.ndarray
    unknown_items: list[str]
    partition: bool
    not_partitioned: list[str]

    @property
    def violated(self) -> np.ndarray:
        """Indices of the constraints with support in (0, k)."""
        return np.flatnonzero((self.supports > 0) & (self.supports < self.k))

    @property
    def holds(self) -> bool:
        return len(self.violated) == 0

    @property
    def exercised(self) -> np.ndarray:
        """Indices of the constraints the release matches: some transaction supports every
        item of them (support > 0), so the >= k rule was actually put to the test."""
        return np.flatnonzero(self.supports > 0)

    @property
    def vacuous(self) -> bool:
        """No constraint matches any transaction: the check would pass whatever k was, so it
        proves nothing (constraints of another dataset, or a release that kept nothing)."""
        return len(self.constraints) > 0 and len(self.exercised) == 0

    def payload(self) -> dict:
        s = self.supports
        supported = s[s > 0]
        return {
            "k": self.k,
            "holds": self.holds,
            "n_constraints": len(self.constraints),
            "n_violated": len(self.violated),
            "n_zero_support": int((s == 0).sum()),
            "n_exercised": len(self.exercised),
            "min_positive_support": int(supported.min()) if len(supported) else None,
            "violations": [{"constraint": self.constraints[i], "support": int(s[i])} for i in self.violated],
            "unknown_items": self.unknown_items,
            "partition": self.partition,
            "not_partitioned_items": self.not_partitioned[:50],
        }


def read_constraints(path: str | Path) -> list[list[str]]:
    """Privacy constraints from a text file (one itemset per line, comma-separated) or from
    the ``privacy_constraints`` of a ``semtui anonymize setgen`` JSON sidecar."""
    p = Path(path)
    text = read_text(p)
    if text.lstrip().startswith("{"):
        doc = parse_json(text, p)
        if not isinstance(doc, dict) or not str(doc.get("format", "")).startswith(SIDECAR_FORMAT):
            raise InputError(f"JSON file is not a setgen sidecar (format {SIDECAR_FORMAT}N)", p)
        cons = doc.get("privacy_constraints")
        if not isinstance(cons, list) or not all(
                isinstance(c, list) and c and all(isinstance(i, str) and i for i in c) for c in cons):
            raise InputError("privacy_constraints must be a list of non-empty lists of item names", p)
        return [list(dict.fromkeys(c)) for c in cons]
    sets = read_plain(p)
    out = []
    for i in range(sets.n_transactions):
        items = sets.vocab.names(sets.transaction(i))
        if not items:
            line = sets.line_of(i)
            raise InputError("empty privacy constraint", p, line)
        out.append(items)
    return out


def _expanded(data: TransactionData):
    """(row, item) of every item a transaction supports, generalised items expanded."""
    tok = data.tokens.astype(np.int64)
    rows = np.repeat(np.arange(data.n_transactions, dtype=np.int64), np.diff(data.indptr))
    gen = tok < 0
    g = -tok[gen] - 1
    glen = np.diff(data.gen_indptr)[g]
    g_rows = np.repeat(rows[gen], glen)
    offs = np.arange(int(glen.sum())) - np.repeat(np.cumsum(glen) - glen, glen)
    g_items = data.gen_members[np.repeat(data.gen_indptr[g], glen) + offs].astype(np.int64)
    return np.concatenate([rows[~gen], g_rows]), np.concatenate([tok[~gen], g_items])


def _partition_breaks(data: TransactionData) -> list[str]:
    """Items that are plain somewhere and generalised elsewhere, or in two generalised items."""
    v = len(data.vocab)
    places = np.zeros(v, dtype=np.int64)
    plain = np.unique(data.tokens[data.tokens >= 0])
    places[plain] += 1
    if data.n_generalised:
        used = np.unique(-data.tokens[data.tokens < 0].astype(np.int64) - 1)
        glen = np.diff(data.gen_indptr)[used]
        offs = np.arange(int(glen.sum())) - np.repeat(np.cumsum(glen) - glen, glen)
        members = data.gen_members[np.repeat(data.gen_indptr[used], glen) + offs]
        np.add.at(places, members, 1)
    return data.vocab.names(np.flatnonzero(places > 1))


def check_privacy(data: TransactionData, constraints: Sequence[Sequence[str]], k: int) -> PrivacyReport:
    """Support of every constraint in ``data``; it holds when each is >= k or 0."""
    from scipy import sparse

    if k < 1:
        raise InputError(f"k must be at least 1 (got {k})")
    vocab = data.vocab
    cons = [list(dict.fromkeys(c)) for c in constraints]
    unknown = sorted({it for c in cons for it in c if it not in vocab})
    supports = np.zeros(len(cons), dtype=np.int64)
    known = [j for j, c in enumerate(cons) if all(it in vocab for it in c)]
    if known and data.n_transactions:
        rows, items = _expanded(data)
        m = sparse.csr_matrix((np.ones(len(rows), dtype=np.int32), (rows, items)),
                              shape=(data.n_transactions, len(vocab)))
        m.sum_duplicates()
        m.data[:] = 1  # an item both plain and generalised in one row counts once
        c_items = np.concatenate([vocab.ids(cons[j]) for j in known]).astype(np.int64)
        c_cols = np.repeat(np.arange(len(known)), [len(cons[j]) for j in known])
        c = sparse.csc_matrix((np.ones(len(c_items), dtype=np.int32), (c_items, c_cols)),
                              shape=(len(vocab), len(known)))
        sizes = np.array([len(cons[j]) for j in known], dtype=np.int64)
        counts = np.zeros(len(known), dtype=np.int64)
        for lo in range(0, data.n_transactions, _BLOCK):  # bounded memory: rows x constraints
            hits = (m[lo:lo + _BLOCK] @ c).tocsr()
            full = hits.indices[hits.data == sizes[hits.indices]]
            counts += np.bincount(full, minlength=len(known))
        supports[known] = counts
    breaks = _partition_breaks(data)
    return PrivacyReport(k, cons, supports, unknown, not breaks, breaks)
