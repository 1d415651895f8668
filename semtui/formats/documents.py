"""Document collections: what ``corpus build`` indexes and ``extract`` turns into transactions.

One reader for both, streamed: a regular file is read line by line (memory stays flat in
the collection's size), a stream (standard input ``-``, a pipe) is read once through
:func:`semtui.fileio.read_bytes`.  Every document carries where it came from (file, line,
id), which ``extract`` writes to its sidecar.

Kinds: ``text`` (one document per file; a directory means every file in it), ``lines`` (one
per line), ``jsonl`` (one per line, the string or list-of-strings ``field``),
``transactions`` (any dataset semtui reads, one document per transaction), ``smart`` (a SMART
collection such as MEDLINE, CACM, CISI: one document per ``.I`` record, the text of its
.T/.W/.A/.B/.K/.M fields), ``separator`` (documents separated by lines that are exactly
``separator``, trimmed; '' = a blank line), ``split`` (separated by lines the regular
expression ``separator`` matches in full) or ``auto`` (``jsonl`` for .jsonl/.ndjson,
``smart`` for a file whose first line is ``.I <id>``, else ``text``).

Empty documents (a blank line, a SMART record with no text, an empty JSON field) are kept
only when the caller asks (``keep_empty``): ``extract`` keeps them so its output stays
aligned document for document; an index skips them.  Empty parts between separators are
never documents.
"""

from __future__ import annotations

import io
import os
import re
import stat
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from semtui.errors import InputError
from semtui.fileio import (
    check_readable,
    decoded_lines,
    display_name,
    held_stream,
    is_stdin,
    on_disk,
    parse_json,
    read_bytes,
)

SOURCE_KINDS = ("auto", "text", "lines", "jsonl", "transactions", "smart", "separator", "split")
#: a SMART collection (``.I 1`` / ``.W`` ... as the MEDLINE, CACM, CISI test collections)
_SMART_START = re.compile(r"^\.I(\s+\S+)?\s*$")
_SMART_FIELD = re.compile(r"^\.([A-Z])\s*$")
#: SMART fields holding text (title, words, authors, bibliography, keywords); others
#: (.X citations, .N dates, .C categories) are left out
_SMART_TEXT = set("TWABKM")


@dataclass(frozen=True, slots=True)
class Document:
    """One document: its text and where it came from (``line``: its first line; ``id``:
    the SMART record's number or the JSON object's ``id``, when there is one)."""

    text: str
    file: str
    line: int | None = None
    id: str | None = None


class ByteCounter:
    """Bytes of the sources read so far (for a progress bar)."""

    def __init__(self) -> None:
        self.done = 0


def is_smart(text: str) -> bool:
    """Does ``text`` look like a SMART collection (its first line ``.I <id>``)?"""
    first = text.lstrip("\n").split("\n", 1)[0].strip()
    return bool(_SMART_START.match(first))


def _files(source: Path) -> list[Path]:
    if not is_stdin(source) and source.is_dir():
        files = sorted(p for p in source.rglob("*") if p.is_file() and not p.name.startswith("."))
        if not files:
            raise InputError("directory holds no files", source)
        return files
    return [check_readable(source)]


def source_bytes(sources: Sequence[str | Path]) -> int:
    """The size of the regular files among ``sources`` (0 when a stream is among them)."""
    total = 0
    for s in sources:
        p = Path(s)
        if is_stdin(s) or held_stream(p):
            return 0
        for f in _files(p):
            try:
                st = os.stat(f)
            except OSError:
                return 0
            if not stat.S_ISREG(st.st_mode):
                return 0
            total += st.st_size
    return total


def text_lines(path: Path, counter: ByteCounter | None = None) -> Iterator[tuple[int, str]]:
    """``(line number, line)`` for every line of a UTF-8 text input, without its newline.

    A regular file is read line by line; a stream once (``read_bytes``).  A NUL byte or bad
    UTF-8 is an InputError naming the line, as :func:`semtui.fileio.decode_text` words it.
    """
    name = display_name(path)
    try:
        fh = open(check_readable(path), "rb") if on_disk(path) else io.BytesIO(read_bytes(path))
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", name) from None
    with fh:
        for lineno, raw, line in decoded_lines(fh, name):
            if counter is not None:
                counter.done += len(raw)
            yield lineno, line


def _smart_docs(name: str, lines: Iterable[tuple[int, str]], keep_empty: bool) -> Iterator[Document]:
    """One document per ``.I`` record: the text of its .T/.W/.A/.B/.K/.M fields."""
    parts: list[str] = []
    keep = False
    start: tuple[int, str] | None = None
    for lineno, line in lines:
        stripped = line.strip()
        if _SMART_START.match(stripped):
            if start is not None:
                yield from _nonempty(Document("\n".join(parts), name, start[0], start[1]), keep_empty)
            elif not (lineno == 1 or all(not p.strip() for p in parts)):
                raise InputError("not a SMART collection (the first line must be '.I <id>')", name, 1)
            parts, keep = [], False
            start = (lineno, stripped[2:].strip() or None)
            continue
        if start is None:
            if stripped:
                raise InputError("not a SMART collection (the first line must be '.I <id>')", name, lineno)
            continue
        field = _SMART_FIELD.match(stripped)
        if field:
            keep = field.group(1) in _SMART_TEXT
            continue
        if keep:
            parts.append(line)
    if start is None:
        raise InputError("not a SMART collection (the first line must be '.I <id>')", name, 1)
    yield from _nonempty(Document("\n".join(parts), name, start[0], start[1]), keep_empty)


def _nonempty(doc: Document, keep_empty: bool) -> Iterator[Document]:
    if keep_empty or doc.text.strip():
        yield doc


def _separated_docs(name: str, lines: Iterable[tuple[int, str]], is_separator) -> Iterator[Document]:
    """Documents between separator lines; empty parts are not documents."""
    parts: list[str] = []
    first = None
    for lineno, line in lines:
        if is_separator(line):
            if any(p.strip() for p in parts):
                yield Document("\n".join(parts), name, first)
            parts, first = [], None
        else:
            if first is None:
                first = lineno
            parts.append(line)
    if any(p.strip() for p in parts):
        yield Document("\n".join(parts), name, first)


def _jsonl_docs(name: str, lines: Iterable[tuple[int, str]], field: str, keep_empty: bool) -> Iterator[Document]:
    for lineno, line in lines:
        if not line.strip():
            continue
        obj = parse_json(line, name, lineno)
        if not isinstance(obj, dict):
            raise InputError("each line must be a JSON object", name, lineno)
        if field not in obj:
            raise InputError(f"no field {field!r} (choose another field)", name, lineno, option="field")
        value = obj[field]
        if isinstance(value, list):
            value = ", ".join(_flatten(value, name, lineno))
        if not isinstance(value, str):
            raise InputError(f"field {field!r} must be a string or a list of strings", name, lineno)
        ident = obj.get("id")
        yield from _nonempty(Document(value, name, lineno, None if ident is None else str(ident)), keep_empty)


def _flatten(values: list, name: str, lineno: int) -> Iterator[str]:
    for v in values:
        if isinstance(v, str):
            yield v
        elif isinstance(v, list):
            yield from _flatten(v, name, lineno)
        else:
            raise InputError("a list field must hold strings", name, lineno)


#: transactions joined into documents at a time
_JOIN_BLOCK = 20_000


def _transaction_docs(path: Path) -> Iterator[Document]:
    """One document per transaction: its plain items, joined by ``", "``.  A generalised item
    is left out, since which of its members was really there is exactly what is unknown."""
    from semtui import formats

    data = formats.read_transactions(path)
    names = data.vocab.items
    name = display_name(path)
    ids = None if data.ids is None else [str(x) for x in data.ids]
    if any("\n" in n for n in names):  # (no text format holds one) joined one transaction at a time
        blocks: Iterator[list[str]] = iter([[", ".join(names[int(t)] for t in data.plain_items(i))
                                             for i in range(data.n_transactions)]])
    else:
        items = np.array(names, dtype=object)
        blocks = (_joined(data, items, lo, min(lo + _JOIN_BLOCK, data.n_transactions))
                  for lo in range(0, data.n_transactions, _JOIN_BLOCK))
    i = 0
    for block in blocks:
        for text in block:
            yield Document(text, name, None, None if ids is None else ids[i])
            i += 1


def _joined(data, items: np.ndarray, lo: int, hi: int) -> list[str]:
    """The documents of transactions ``lo``..``hi - 1``, built as one string split at its
    newlines: the plain items' names, ``", "`` between items of one transaction, a newline
    per transaction boundary (none of the names holds one)."""
    a, b = int(data.indptr[lo]), int(data.indptr[hi])
    rows = np.repeat(np.arange(lo, hi), np.diff(data.indptr[lo:hi + 1]))
    tokens = data.tokens[a:b]
    plain = tokens >= 0
    tokens, rows = tokens[plain], rows[plain]
    if tokens.size == 0:
        return [""] * (hi - lo)
    gaps = np.diff(rows)  # transaction boundaries between consecutive items
    seps = np.full(tokens.size, ", ", dtype=object)
    seps[:-1][gaps == 1] = "\n"
    many = np.flatnonzero(gaps > 1)  # transactions with no plain item in between
    seps[many] = ["\n" * int(g) for g in gaps[many]]
    seps[-1] = "\n" * int(hi - 1 - rows[-1])
    pieces = np.empty(2 * tokens.size + 1, dtype=object)
    pieces[0] = "\n" * int(rows[0] - lo)
    pieces[1::2] = items[tokens]
    pieces[2::2] = seps
    return "".join(pieces.tolist()).split("\n")


def _peek_kind(name: str, path: Path, lines: Iterator[tuple[int, str]]) -> tuple[str, Iterator[tuple[int, str]]]:
    """``auto``: jsonl by the suffix, smart by the first non-blank line, else text."""
    if path.suffix.lower() in (".jsonl", ".ndjson"):
        return "jsonl", lines
    head: list[tuple[int, str]] = []
    for item in lines:
        head.append(item)
        if item[1].strip():
            break
    first = head[-1][1].strip() if head else ""
    kind = "smart" if head and _SMART_START.match(first) and not any(s.strip() for _, s in head[:-1]) else "text"
    return kind, _chain(head, lines)


def _chain(head: list, rest: Iterator) -> Iterator:
    yield from head
    yield from rest


def iter_sourced_documents(sources: Sequence[str | Path], kind: str = "auto", field: str = "text",
                           separator: str | None = None, *, keep_empty: bool = False,
                           counter: ByteCounter | None = None) -> Iterator[Document]:
    """Every document of ``sources`` in order, with where it came from (see the module)."""
    if kind not in SOURCE_KINDS:
        raise InputError(f"unknown source kind {kind!r} (choose from {', '.join(SOURCE_KINDS)})")
    if kind in ("separator", "split") and separator is None:
        raise InputError(f"the {kind} kind needs a separator")
    is_separator = None
    if kind == "split":
        try:
            pattern = re.compile(separator or "")
        except re.error as exc:
            raise InputError(f"not a regular expression: {exc}", option="split") from None
        is_separator = lambda line: pattern.fullmatch(line.rstrip("\r")) is not None  # noqa: E731
    elif kind == "separator":
        sep = (separator or "").strip()
        is_separator = lambda line: line.strip() == sep  # noqa: E731
    for source in sources:
        for path in _files(Path(source)):
            name = display_name(path)
            if kind == "transactions":
                yield from _transaction_docs(path)
                continue
            lines = text_lines(path, counter)
            k = kind
            if k == "auto":
                k, lines = _peek_kind(name, path, lines)
            if k == "smart":
                yield from _smart_docs(name, lines, keep_empty)
            elif k in ("separator", "split"):
                yield from _separated_docs(name, lines, is_separator)
            elif k == "text":
                text = "\n".join(line for _, line in lines)
                yield from _nonempty(Document(text, name, 1), keep_empty)
            elif k == "lines":
                for lineno, line in lines:
                    yield from _nonempty(Document(line, name, lineno), keep_empty)
            else:
                yield from _jsonl_docs(name, lines, field, keep_empty)


def iter_documents(sources: Sequence[str | Path], kind: str = "auto", field: str = "text",
                   separator: str | None = None) -> Iterator[str]:
    """Every non-empty document's text (what an index holds)."""
    for doc in iter_sourced_documents(sources, kind, field, separator):
        yield doc.text
