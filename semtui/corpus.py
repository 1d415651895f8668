"""The ``corpus`` command's jobs over document collections of every kind
(:mod:`semtui.formats.documents`, a dataset semtui reads among them): :func:`build_index`
(``corpus build``, the SQLite FTS5 index of :mod:`semtui.measures.corpus`) and
:func:`count_terms` (``corpus count``, the partitions counted by
:mod:`semtui.measures.cooccurrence`, here or on a Dask cluster).

They sit here, above the formats, because they read documents with the formats' readers; the
measures they feed sit below the formats and never read a source themselves.
"""

from __future__ import annotations

import itertools
import json
import os
import sqlite3
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from semtui.errors import InputError
from semtui.fileio import output_path
from semtui.formats.documents import iter_documents
from semtui.measures import cooccurrence
from semtui.measures.cooccurrence import PARTITION, CountsReport, Packed, count_partition, merge_partials
from semtui.measures.corpus import INDEX_FORMAT, TOKENIZER
from semtui.reports import Report
from semtui.runtime.progress import ProgressCallback, no_progress

#: documents inserted into the index at once
_BATCH = 20_000


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

    from semtui.runtime.cluster import check_scheduler, session
    from semtui.runtime.scheduler import map_stream

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

    def parts() -> Iterator[Packed]:
        nonlocal n_parts
        for part in _partitions(iter_documents(sources, kind, field, separator), partition):
            n_parts += 1
            yield Packed.of(part)

    # with a scheduler, its workers start (and import this module) while the driver reads the
    # first partition (for --transactions: parses the whole dataset)
    with session(scheduler, warm=True, preload=(cooccurrence.__name__,)):
        stream = parts()
        first = next(stream, None)
        total = map_stream(bind(count_partition, terms=tuple(terms)),
                           itertools.chain([] if first is None else [first], stream), merge_partials, spec=scheduler,
                           progress=lambda done, _t, _m="": progress(done, 0, f"{done:,} documents"),
                           message="counting", size_of=len)
    if total is None or total.documents == 0:
        raise InputError("the sources hold no document", Path(sources[0]))
    return CountsReport(total.documents, terms, total.f, total.both, time.perf_counter() - start, n_parts,
                        scheduler)
