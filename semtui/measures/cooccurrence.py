"""Document frequencies and co-occurrence counts of a term list over a corpus, as a map-reduce
over partitions of the documents (``semtui corpus count``): for a corpus too large for one
machine's index, or counted on a Dask cluster.

The counts are defined by ``corpus build`` + ``ngd:``: a document holds a term when the SQLite
FTS5 phrase query of the term (semtui.measures.corpus, tokenizer ``unicode61 remove_diacritics
2``: its tokens, adjacent, in order) matches it.  A partition (``PARTITION`` documents, what one
task counts) is answered in two ways that give exactly those matches:

* **pure-ASCII documents, in numpy.**  On ASCII text unicode61 makes a token of every maximal
  run of ``[A-Za-z0-9]``, folded to lower case; every other character separates
  (tests/unit/test_corpus_count.py checks this against SQLite itself with hypothesis).  The
  terms are tokenised once per process by SQLite (an FTS5 table of the terms read back through
  ``fts5vocab``), so a term's tokens, non-ASCII terms' included, are SQLite's own.  The
  partition's ASCII documents are joined, folded and tokenised in one pass each
  (``bytes.translate``/``split``), each token gets the id of the term token it equals (-1: no
  term's), and the phrases are matched over the id array with a trie of the terms' token ids,
  one vectorised step per token of the longest term: at step k the positions whose k first ids
  follow a trie path stay, with their node; a token of another document, or of no term, ends
  the path.  A node where a term ends is a (term, document) hit.
* **everything else, by FTS5.**  Documents that are not pure ASCII are indexed in memory with
  the tokenizer of ``corpus build`` and every term is a phrase query against them, as
  :class:`CorpusIndex` queries a built index; so are the ASCII documents for a term with a token
  FTS5 truncates (``_FTS5_MAX_TOKEN`` bytes or more) or a NUL character.  Correctness never
  rests on reimplementing Unicode folding.

The hits make the term x document incidence of the partition; it returns its document count,
f(x) per term and the sparse term x term co-occurrence matrix; the driver sums them as they
arrive.  The driver reads the sources once, as a stream, and holds at most a few partitions in
flight per worker (semtui.runtime.scheduler.map_stream), so its memory does not grow with the
corpus; a partition travels :class:`Packed` (one string, one array).

The result is written in the ``counts:`` format the NGD measure reads (docs/measures.md).
The driver's side, which reads the sources (:mod:`semtui.formats.documents`) and streams the
partitions, is :func:`semtui.corpus.count_terms`, above the formats.
"""

from __future__ import annotations

import csv
import io
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from semtui.errors import InputError
from semtui.measures.corpus import TOKENIZER, phrase_query
from semtui.reports import Report

#: what a worker imports before its first partition (Dask's fork server imports it once)
FORK_PRELOAD = ("scipy.sparse",)
#: documents per partition: large enough that counting dominates a task's overhead, small
#: enough that a few partitions per worker stay far below a worker's memory
PARTITION = 20_000


@dataclass
class Partial:
    """What one partition gives: its documents, f(x) per term, f(x, y) (sparse, upper triangle
    and diagonal)."""

    documents: int
    f: np.ndarray
    both: object  # scipy.sparse.csr_matrix


@dataclass(frozen=True)
class Packed:
    """A partition as it travels to a worker: its documents joined by newlines, and their
    lengths (a string and an array pickle at once, where a list of 20,000 strings costs the
    driver's Dask client a walk over every one)."""

    text: str
    lengths: np.ndarray

    @classmethod
    def of(cls, docs: Sequence[str]) -> Packed:
        return cls("\n".join(docs), np.fromiter(map(len, docs), dtype=np.int64, count=len(docs)))

    def __len__(self) -> int:
        return len(self.lengths)

    def docs(self) -> list[str]:
        ends = np.cumsum(self.lengths + 1) - 1
        return [self.text[a:b] for a, b in zip((ends - self.lengths).tolist(), ends.tolist())]


#: FTS5 keeps a token's first 32,768 bytes (documents and queries alike): a term with a token that
#: long is left to FTS5
_FTS5_MAX_TOKEN = 32_768
#: bytes.translate table: an ASCII letter or digit folded to lower case, any other byte a space
_FOLD = bytes(c + 32 if 65 <= c <= 90 else c if (48 <= c <= 57 or 97 <= c <= 122) else 32 for c in range(256))
_SPACE = 32
#: the trie's transitions as a dense node x token table up to this many cells (16 MB), else
#: looked up by binary search
_DENSE = 1 << 22


class _Vocabulary(dict):
    """Term tokens -> ids; a token of no term is -1."""

    def __missing__(self, key: bytes) -> int:
        return -1


@dataclass(frozen=True)
class _Terms:
    """The terms as SQLite tokenises them, ready for matching: a trie over token ids."""

    vocab: dict[bytes, int]  # a term token (UTF-8) -> its id; any other -> -1
    root: np.ndarray  # root[token id]: its node under the root (0: none)
    edge_keys: np.ndarray  # sorted parent * width + token id
    edge_child: np.ndarray  # the child node of each edge (the root is node 0)
    width: int  # token ids are < width
    depth: int  # tokens of the longest term
    node_ptr: np.ndarray  # node n's terms are node_terms[node_ptr[n]:node_ptr[n + 1]]
    ends: np.ndarray  # ends[n]: does a term end at node n?
    node_terms: np.ndarray
    table: np.ndarray | None  # table[node, token id]: the child (0: none), when small enough
    fts5_only: np.ndarray  # indices of the terms only FTS5 answers
    queried: np.ndarray  # indices of the terms with a token (a term without one matches nothing)


def term_tokens(terms: Sequence[str]) -> list[list[str]]:
    """Each term's tokens, as the FTS5 tokenizer of ``corpus build`` makes them (read back
    from SQLite, not reimplemented)."""
    con = sqlite3.connect(":memory:")
    try:
        con.execute(f"CREATE VIRTUAL TABLE t USING fts5(text, content='', tokenize='{TOKENIZER}')")
        con.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
        con.executemany("INSERT INTO t(rowid, text) VALUES (?, ?)", enumerate(terms, start=1))
        out: list[list[str]] = [[] for _ in terms]
        for token, doc in con.execute("SELECT term, doc FROM v ORDER BY doc, offset"):
            out[doc - 1].append(token)
    finally:
        con.close()
    return out


@lru_cache(maxsize=4)
def _prepare(terms: tuple[str, ...]) -> _Terms:
    """Tokenise ``terms`` and build their trie (once per process and term list: a Dask worker
    counting many partitions pays it once)."""
    vocab: dict[bytes, int] = {}
    children: dict[tuple[int, int], int] = {}
    ends: dict[int, list[int]] = {}
    fts5_only, queried = [], []
    depth = 0
    for i, tokens in enumerate(term_tokens(terms)):
        if not tokens:
            continue
        queried.append(i)
        encoded = [t.encode("utf-8") for t in tokens]
        if "\x00" in terms[i] or any(len(t) >= _FTS5_MAX_TOKEN for t in encoded):
            fts5_only.append(i)
            continue
        node = 0
        for t in encoded:
            node = children.setdefault((node, vocab.setdefault(t, len(vocab))), len(children) + 1)
        ends.setdefault(node, []).append(i)
        depth = max(depth, len(encoded))
    width = max(len(vocab), 1)
    keys = np.fromiter((p * width + t for p, t in children), dtype=np.int64, count=len(children))
    child = np.fromiter(children.values(), dtype=np.int64, count=len(children))
    order = np.argsort(keys, kind="stable")
    per_node = np.zeros(len(children) + 2, dtype=np.int64)
    for node, ts in ends.items():
        per_node[node + 1] = len(ts)
    node_terms = np.fromiter((t for node in sorted(ends) for t in ends[node]), dtype=np.int64,
                             count=int(per_node.sum()))
    root = np.zeros(width, dtype=np.int64)
    for (parent, token), node in children.items():
        if parent == 0:
            root[token] = node
    table = None
    if (len(children) + 1) * width <= _DENSE:
        table = np.zeros((len(children) + 1, width), dtype=np.int32)
        table[keys // width, keys % width] = child
    return _Terms(_Vocabulary(vocab), root, keys[order], child[order], width, depth, np.cumsum(per_node),
                  per_node[1:] > 0, node_terms, table, np.asarray(fts5_only, dtype=np.int64),
                  np.asarray(queried, dtype=np.int64))


def _ascii_hits(part: Packed, plan: _Terms) -> tuple[np.ndarray, np.ndarray]:
    """(term, document) hits of the phrases in the pure-ASCII partition ``part`` (document
    indices into it; a pair may repeat)."""
    text = part.text.encode("ascii").translate(_FOLD)
    folded = np.frombuffer(text, dtype=np.uint8)
    if folded.size == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    is_token = folded != _SPACE
    starts = np.empty(folded.size, dtype=bool)
    starts[0] = is_token[0]
    np.greater(is_token[1:], is_token[:-1], out=starts[1:])
    starts = np.flatnonzero(starts)
    doc = np.searchsorted(np.cumsum(part.lengths + 1), starts, side="right")
    tokens = text.split()
    ids = np.fromiter(map(plan.vocab.__getitem__, tokens), dtype=np.int64, count=len(tokens))
    # run[p]: how many tokens from p on are term tokens of p's document, without a break
    known = ids >= 0
    breaks = np.ones(ids.size, dtype=bool)  # does a run end after position p?
    breaks[:-1] = ~known[1:] | (doc[1:] != doc[:-1])
    index = np.arange(ids.size)
    run = np.minimum.accumulate(np.where(breaks, index, ids.size)[::-1])[::-1] - index + 1
    # the trie walk: ``pos`` where a phrase may start, ``node`` the trie node of its tokens so far,
    # ``left`` how many tokens it can still take
    pos = np.flatnonzero(known)
    node = plan.root[ids[pos]]
    keep = node > 0
    pos, node, left = pos[keep], node[keep], run[pos[keep]]
    hit_nodes, hit_pos = [], []
    n_edges = len(plan.edge_keys)
    for step in range(1, plan.depth + 1):
        ending = plan.ends[node]
        hit_nodes.append(node[ending])
        hit_pos.append(pos[ending])
        more = left > step
        pos, node, left = pos[more], node[more], left[more]
        if plan.table is not None:
            node = plan.table[node, ids[pos + step]]
            ok = node > 0
            pos, node, left = pos[ok], node[ok], left[ok]
        else:
            key = node * plan.width + ids[pos + step]
            at = np.searchsorted(plan.edge_keys, key)
            at[at == n_edges] = 0
            ok = plan.edge_keys[at] == key
            pos, node, left = pos[ok], plan.edge_child[at[ok]], left[ok]
        if pos.size == 0:
            break
    if not hit_nodes:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    nodes, hit_doc = np.concatenate(hit_nodes), doc[np.concatenate(hit_pos)]
    # a node where several terms end (``Back`` and ``back``) is a hit of each
    first, count = plan.node_ptr[nodes], plan.node_ptr[nodes + 1] - plan.node_ptr[nodes]
    offsets = np.repeat(first - (np.cumsum(count) - count), count) + np.arange(int(count.sum()))
    return plan.node_terms[offsets], np.repeat(hit_doc, count)


def _fts5_hits(docs: Sequence[str], terms: Sequence[str], which: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(term, document) hits of the terms ``which`` in ``docs``: indexed in memory (FTS5, the
    tokenizer of ``corpus build``), every term a phrase query."""
    rows, cols = [np.zeros(0, dtype=np.int64)], [np.zeros(0, dtype=np.int64)]
    if not len(docs) or not len(which):
        return rows[0], cols[0]
    con = sqlite3.connect(":memory:")
    try:
        con.execute(f"CREATE VIRTUAL TABLE docs USING fts5(text, content='', tokenize='{TOKENIZER}')")
        con.executemany("INSERT INTO docs(rowid, text) VALUES (?, ?)", enumerate(docs))
        for i in which.tolist():
            try:
                hits = con.execute("SELECT rowid FROM docs WHERE docs MATCH ?", (phrase_query(terms[i]),)).fetchall()
            except sqlite3.OperationalError:  # a term with no token at all matches nothing
                continue
            cols.append(np.fromiter((r[0] for r in hits), dtype=np.int64, count=len(hits)))
            rows.append(np.full(len(hits), i, dtype=np.int64))
    finally:
        con.close()
    return np.concatenate(rows), np.concatenate(cols)


def _partial(n_docs: int, n_terms: int, rows: np.ndarray, cols: np.ndarray) -> Partial:
    from scipy import sparse

    m = sparse.csr_matrix((np.ones(len(rows), dtype=np.int64), (rows, cols)), shape=(n_terms, max(n_docs, 1)))
    m.data[:] = 1  # a term found twice in a document holds once
    f = np.asarray(m.sum(axis=1)).ravel().astype(np.int64)
    both = sparse.triu(m @ m.T, format="csr").astype(np.int64)
    return Partial(n_docs, f, both)


def count_partition_fts5(docs: Sequence[str], terms: Sequence[str]) -> Partial:
    """Count ``terms`` in ``docs`` by FTS5 alone: the definition :func:`count_partition` keeps
    (tests compare them)."""
    rows, cols = _fts5_hits(docs, terms, np.arange(len(terms)))
    return _partial(len(docs), len(terms), rows, cols)


def count_partition(docs: Sequence[str] | Packed, terms: Sequence[str]) -> Partial:
    """f(x) and f(x, y) of ``terms`` in ``docs`` (one partition): pure-ASCII documents in numpy,
    the rest by FTS5 (see the module)."""
    plan = _prepare(tuple(terms))
    part = docs if isinstance(docs, Packed) else Packed.of(docs)
    n = len(part)
    if part.text.isascii():
        fast, slow, slow_docs = np.arange(n), np.zeros(0, dtype=np.int64), []
    else:
        every = part.docs()
        is_ascii = np.fromiter(map(str.isascii, every), dtype=bool, count=n)
        fast, slow = np.flatnonzero(is_ascii), np.flatnonzero(~is_ascii)
        part = Packed.of([every[i] for i in fast.tolist()])
        slow_docs = [every[i] for i in slow.tolist()]
    r1, c1 = _ascii_hits(part, plan)
    r2, c2 = _fts5_hits(part.docs() if len(plan.fts5_only) else [], terms, plan.fts5_only)
    r3, c3 = _fts5_hits(slow_docs, terms, plan.queried)
    rows = np.concatenate([r1, r2, r3])
    cols = np.concatenate([fast[c1], fast[c2], slow[c3]])
    return _partial(n, len(terms), rows, cols)


def merge_partials(a: Partial, b: Partial) -> Partial:
    """Two partitions' counts summed (the reduce of :func:`semtui.corpus.count_terms`)."""
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
