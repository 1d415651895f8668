"""Document frequencies and co-occurrence counts of a term list over a corpus, as a map-reduce
over partitions of the documents (``semtui corpus count``): for a corpus too large for one
machine's index, or counted on a Dask cluster.

Each partition (``PARTITION`` documents) is indexed by the worker that gets it into an
in-memory SQLite FTS5 table with the tokenizer of ``corpus build`` (semtui.measures.corpus),
and every term is a phrase query against it, exactly as :class:`CorpusIndex` queries a built
index: the counts are the same as those of ``corpus build`` + ``ngd:`` over the same documents
(tests/unit/test_corpus_count.py), by construction rather than by a second tokenizer that
would have to agree with SQLite's.  A partition returns its document count, f(x) per term and
the sparse term x term co-occurrence matrix; the driver sums them as they arrive.  The driver
reads the sources once, as a stream, and holds at most a few partitions in flight per worker
(semtui.runtime.scheduler.map_stream), so its memory does not grow with the corpus.

The result is written in the ``counts:`` format the NGD measure reads (docs/measures.md).
"""

from __future__ import annotations

import csv
import io
import sqlite3
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from semtui.errors import InputError
from semtui.formats.documents import iter_documents
from semtui.measures.corpus import TOKENIZER, phrase_query
from semtui.reports import Report
from semtui.runtime.progress import ProgressCallback, no_progress

#: documents per partition: large enough that indexing dominates a task's overhead, small
#: enough that a few partitions per worker stay far below a worker's memory
PARTITION = 20_000


@dataclass
class Partial:
    """What one partition gives: its documents, f(x) per term, f(x, y) (sparse, upper triangle
    and diagonal)."""

    documents: int
    f: np.ndarray
    both: object  # scipy.sparse.csr_matrix


def count_partition(docs: Sequence[str], terms: Sequence[str]) -> Partial:
    """Index ``docs`` in memory (FTS5, the tokenizer of ``corpus build``) and count ``terms``."""
    from scipy import sparse

    con = sqlite3.connect(":memory:")
    try:
        con.execute(f"CREATE VIRTUAL TABLE docs USING fts5(text, content='', tokenize='{TOKENIZER}')")
        con.executemany("INSERT INTO docs(rowid, text) VALUES (?, ?)", enumerate(docs, start=1))
        rows, cols = [], []
        for i, term in enumerate(terms):
            try:
                hits = con.execute("SELECT rowid FROM docs WHERE docs MATCH ?", (phrase_query(term),)).fetchall()
            except sqlite3.OperationalError:  # a term with no token at all matches nothing
                continue
            cols.append(np.fromiter((r[0] for r in hits), dtype=np.int64, count=len(hits)))
            rows.append(np.full(len(hits), i, dtype=np.int64))
    finally:
        con.close()
    n_terms = len(terms)
    if cols:
        r, c = np.concatenate(rows), np.concatenate(cols)
    else:
        r = c = np.zeros(0, dtype=np.int64)
    m = sparse.csr_matrix((np.ones(len(r), dtype=np.int64), (r, c)), shape=(n_terms, len(docs) + 1))
    f = np.asarray(m.sum(axis=1)).ravel().astype(np.int64)
    both = sparse.triu(m @ m.T, format="csr").astype(np.int64)
    return Partial(len(docs), f, both)


def _merge(a: Partial, b: Partial) -> Partial:
    return Partial(a.documents + b.documents, a.f + b.f, (a.both + b.both).tocsr())


@dataclass
class CountsReport(Report):
    """What ``corpus count`` counted."""

    FORMAT = "semtui-corpus-count/1"

    documents: int
    terms: list[str]
    f: np.ndarray
    both: object  # scipy.sparse.csr_matrix, upper triangle with the diagonal
    seconds: float
    partitions: int
    scheduler: str | None

    def payload(self) -> dict:
        known = int((self.f > 0).sum())
        return {"documents": self.documents, "terms": len(self.terms), "terms_found": known,
                "pairs_written": known * (known - 1) // 2, "partitions": self.partitions,
                "scheduler": self.scheduler, "seconds": round(self.seconds, 3)}

    def write_csv(self, fh) -> None:
        """The ``counts:`` format: ``N,<documents>``, then ``term,f`` for every term found, then
        ``a,b,f(a,b)`` for every pair of found terms (0 included: the measure needs every pair)."""
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["N", self.documents])
        found = np.flatnonzero(self.f > 0)
        for i in found:
            w.writerow([self.terms[i], int(self.f[i])])
        both = self.both.tocsr()
        for a_pos, i in enumerate(found):
            row = both.getrow(int(i))
            counts = dict(zip(row.indices.tolist(), row.data.tolist()))
            for j in found[a_pos + 1:]:
                w.writerow([self.terms[i], self.terms[int(j)], int(counts.get(int(j), 0))])

    def to_csv(self) -> str:
        buf = io.StringIO()
        self.write_csv(buf)
        return buf.getvalue()


def read_terms(path: str | Path) -> list[str]:
    """A term list: one term per line (blank lines skipped, duplicates kept once, in order)."""
    from semtui.fileio import read_text

    text = read_text(path)
    terms = list(dict.fromkeys(" ".join(line.split()) for line in text.split("\n") if line.strip()))
    if not terms:
        raise InputError("no term in the file (one term per line)", path)
    for lineno, line in enumerate(text.split("\n"), start=1):
        if "\x00" in line:
            raise InputError("a NUL character in a term", path, lineno)
    return terms


def _partitions(docs: Iterator[str], size: int) -> Iterator[list[str]]:
    part: list[str] = []
    for d in docs:
        part.append(d)
        if len(part) >= size:
            yield part
            part = []
    if part:
        yield part


def count_terms(
    sources: Sequence[str | Path],
    terms: Sequence[str],
    *,
    kind: str = "auto",
    field: str = "text",
    separator: str | None = None,
    scheduler: str | None = None,
    partition: int = PARTITION,
    progress: ProgressCallback = no_progress,
) -> CountsReport:
    """f(x) and f(x, y) for ``terms`` over the documents of ``sources`` (read as ``corpus build``
    reads them), partition by partition, here or on the Dask cluster ``scheduler``."""
    from functools import partial as bind

    from semtui.runtime.scheduler import check_scheduler, map_stream

    scheduler = check_scheduler(scheduler)
    if not sources:
        raise InputError("no source to count")
    for s in sources:
        p = Path(s)
        if not p.exists() and str(s) != "-":
            raise InputError("no such file", p)
    terms = list(dict.fromkeys(terms))
    if not terms:
        raise InputError("no term to count")
    if partition < 1:
        raise InputError(f"a partition holds at least 1 document, got {partition}")
    start = time.perf_counter()
    n_parts = 0

    def parts() -> Iterator[list[str]]:
        nonlocal n_parts
        for part in _partitions(iter_documents(sources, kind, field, separator), partition):
            n_parts += 1
            yield part

    total = map_stream(bind(count_partition, terms=tuple(terms)), parts(), _merge, spec=scheduler,
                       progress=lambda done, _t, _m="": progress(done, 0, f"{done:,} documents"),
                       message="counting", size_of=len)
    if total is None or total.documents == 0:
        raise InputError("the sources hold no document", Path(sources[0]))
    return CountsReport(total.documents, terms, total.f, total.both, time.perf_counter() - start, n_parts,
                        scheduler)
