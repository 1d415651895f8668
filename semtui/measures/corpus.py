"""A local full-text index (SQLite FTS5) that NGD counts come from.

``build_index`` (:mod:`semtui.corpus`, above the formats whose readers it uses) turns text
files, JSON Lines or a transactions file into one SQLite file of the layout defined here,
holding a *contentless* FTS5 table (only the inverted index is stored: the
documents themselves are not needed to count them) and a small ``meta`` table.
``CorpusIndex.counts(terms)`` answers, for a whole batch of terms at once, f(x) (the
documents matching the phrase x) and f(x, y) (documents matching both): one FTS5
phrase query per distinct term gives its posting list, and a single sparse product of
the term x document incidence matrix with its transpose gives every f(x, y).

The build writes into a temporary file beside the target and renames it into place
only when complete, so an interrupted build never leaves a half-written index.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from semtui.errors import InputError
from semtui.fileio import check_readable

#: Bumped whenever the layout of an index changes.
INDEX_FORMAT = "semtui-corpus/1"
#: unicode61 folds case and (with remove_diacritics 2) accents; punctuation separates tokens.
TOKENIZER = "unicode61 remove_diacritics 2"
#: fewer documents than this make an index whose NGDs hardly tell terms apart
FEW_DOCUMENTS = 100


# --------------------------------------------------------------------------- querying
def phrase_query(term: str) -> str:
    """An FTS5 phrase query for ``term``: its tokens, in order, adjacent."""
    return '"' + term.replace('"', '""') + '"'


class CorpusIndex:
    """A built index, opened read-only."""

    def __init__(self, path: str | Path):
        self.path = check_readable(path)
        try:
            self._con = sqlite3.connect(f"file:{self.path.resolve()}?mode=ro", uri=True)
            rows = dict(self._con.execute("SELECT key, value FROM meta").fetchall())
        except sqlite3.DatabaseError:
            raise InputError("not a semtui corpus index (build one with 'semtui corpus build')", self.path) from None
        if rows.get("format") != INDEX_FORMAT:
            raise InputError(f"unsupported index format {rows.get('format')!r}", self.path)
        self.meta = rows
        try:
            self.n_documents = int(rows["documents"])
            if self.n_documents < 0:
                raise ValueError
        except (KeyError, TypeError, ValueError):
            raise InputError(f"corrupt index: its document count {rows.get('documents')!r} is not a "
                             "number (rebuild it with 'semtui corpus build')", self.path) from None
        stat = self.path.stat()
        self.identity = f"{self.path.resolve()}:{stat.st_mtime_ns}:{stat.st_size}"

    def close(self) -> None:
        self._con.close()

    def postings(self, term: str) -> np.ndarray:
        """Sorted rowids of the documents matching the phrase ``term``."""
        try:
            cur = self._con.execute("SELECT rowid FROM docs WHERE docs MATCH ?", (phrase_query(term),))
            rows = cur.fetchall()
        except sqlite3.OperationalError:  # a term with no token at all
            return np.zeros(0, dtype=np.int64)
        return np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))

    def counts(self, terms: Sequence[str], postings: Sequence[np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``(f, F)``: f[i] documents matching term i, F[i, j] documents matching both.

        ``postings`` may give the terms' posting lists when the caller already has them.
        """
        posting = list(postings) if postings is not None else [self.postings(t) for t in terms]
        lengths = np.fromiter((len(p) for p in posting), dtype=np.int64, count=len(posting))
        if lengths.sum() == 0:
            return lengths, np.zeros((len(terms), len(terms)), dtype=np.int64)
        from scipy import sparse

        cols = np.concatenate(posting)
        rows = np.repeat(np.arange(len(terms)), lengths)
        m = sparse.csr_matrix(
            (np.ones(len(cols), dtype=np.int32), (rows, cols)),
            shape=(len(terms), self.n_documents + 1),
        )
        both = (m @ m.T).toarray().astype(np.int64)
        return lengths, both

    def info(self) -> dict:
        stat = self.path.stat()
        return {
            "index": str(self.path),
            "format": self.meta["format"],
            "documents": self.n_documents,
            "bytes": stat.st_size,
            "tokenizer": self.meta.get("tokenizer"),
            "sources": _json_list(self.meta.get("sources", "[]")),
            "source_kind": self.meta.get("kind"),
            "built": self.meta.get("built"),
        }


def _json_list(text: str) -> list:
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return [text]
    return value if isinstance(value, list) else [value]


def index_info(path: str | Path) -> dict:
    idx = CorpusIndex(path)
    try:
        return idx.info()
    finally:
        idx.close()


def documents_matching(index: CorpusIndex, terms: Iterable[str]) -> dict[str, int]:
    """f(x) for each term (a convenience for ``semtui corpus info --term``)."""
    terms = list(dict.fromkeys(terms))
    f, _ = index.counts(terms)
    return {t: int(c) for t, c in zip(terms, f)}
