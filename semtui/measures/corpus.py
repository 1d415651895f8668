"""A local full-text index (SQLite FTS5) that NGD counts come from.

``build_index`` turns text files, JSON Lines or a transactions file into one SQLite
file holding a *contentless* FTS5 table (only the inverted index is stored: the
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
import os
import sqlite3
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from semtui.errors import InputError
from semtui.fileio import check_readable, output_path
from semtui.formats.documents import SOURCE_KINDS, is_smart, iter_documents  # noqa: F401 (the reader corpus build shares)
from semtui.reports import Report
from semtui.runtime.progress import ProgressCallback, no_progress

#: Bumped whenever the layout of an index changes.
INDEX_FORMAT = "semtui-corpus/1"
#: unicode61 folds case and (with remove_diacritics 2) accents; punctuation separates tokens.
TOKENIZER = "unicode61 remove_diacritics 2"
_BATCH = 20_000
#: fewer documents than this make an index whose NGDs hardly tell terms apart
FEW_DOCUMENTS = 100


# --------------------------------------------------------------------------- building
@dataclass
class BuildReport(Report):
    """What ``corpus build`` indexed."""

    FORMAT = "semtui-corpus-build/1"

    path: str
    documents: int
    seconds: float
    bytes: int

    @property
    def docs_per_second(self) -> float:
        return self.documents / self.seconds if self.seconds > 0 else float("inf")

    def payload(self) -> dict:
        return {"index": self.path, "documents": self.documents, "bytes": self.bytes,
                "seconds": round(self.seconds, 3), "documents_per_second": round(self.docs_per_second, 1)}


def build_index(
    sources: Sequence[str | Path],
    output: str | Path,
    *,
    kind: str = "auto",
    field: str = "text",
    separator: str | None = None,
    progress: ProgressCallback = no_progress,
) -> BuildReport:
    """Build an FTS5 index of ``sources`` into ``output`` (atomically).

    ``kind``: ``text`` (one document per file; a directory means every file in it),
    ``lines`` (one document per non-empty line), ``jsonl`` (one per line, the string or
    list-of-strings ``field``), ``transactions`` (any dataset semtui reads, one document
    per transaction), ``smart`` (a SMART collection: one document per ``.I`` record),
    ``separator`` (documents separated by lines that are exactly ``separator``), ``split``
    (separated by lines the regular expression ``separator`` matches in full) or ``auto``
    (``jsonl`` for .jsonl/.ndjson, ``smart`` for a file starting ``.I <id>``, else ``text``).

    The index follows every output's rules (semtui.fileio): a symbolic link is followed, an
    existing index keeps its mode, a new one built from transactions (original data) is
    private (0600); ``-`` sends it to standard output once built; a full disk is an
    InputError naming the index.
    """
    if not sources:
        raise InputError("no source to index")
    for s in sources:
        p = Path(s)
        if not p.exists() and str(s) != "-":
            raise InputError("no such file", p)
    target = Path(output)
    start = time.perf_counter()
    size = 0
    try:
        with output_path(target, private=kind == "transactions", what="an index (SQLite)") as tmp:
            con = sqlite3.connect(tmp, isolation_level=None)
            try:
                con.execute("PRAGMA journal_mode=OFF")
                con.execute("PRAGMA synchronous=OFF")
                con.execute("PRAGMA page_size=8192")
                con.execute("BEGIN")
                con.execute(f"CREATE VIRTUAL TABLE docs USING fts5(text, content='', tokenize='{TOKENIZER}')")
                con.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
                n = 0
                batch: list[tuple[int, str]] = []
                progress(0, 0, "indexing")
                for doc in iter_documents(sources, kind, field, separator):
                    n += 1
                    batch.append((n, doc))
                    if len(batch) >= _BATCH:
                        con.executemany("INSERT INTO docs(rowid, text) VALUES (?, ?)", batch)
                        batch.clear()
                        progress(n, 0, f"{n:,} documents")
                if batch:
                    con.executemany("INSERT INTO docs(rowid, text) VALUES (?, ?)", batch)
                if n == 0:
                    raise InputError("the sources hold no document", Path(sources[0]))
                progress(n, n, "merging the index")
                con.execute("INSERT INTO docs(docs) VALUES ('optimize')")
                meta = {
                    "format": INDEX_FORMAT,
                    "documents": str(n),
                    "tokenizer": TOKENIZER,
                    "sources": json.dumps([str(s) for s in sources]),
                    "kind": kind,
                    "built": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                }
                con.executemany("INSERT INTO meta(key, value) VALUES (?, ?)", meta.items())
                con.execute("COMMIT")
            finally:
                con.close()
            size = os.path.getsize(tmp)
    except sqlite3.Error as exc:  # a full disk ("database or disk is full"), an I/O error
        raise InputError(f"cannot write the index: {exc}", target) from None
    seconds = time.perf_counter() - start
    return BuildReport(str(target), n, seconds, size)


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
