"""Plain transactions and the papers' set-generalised notation.

Plain: one transaction per line, items separated by commas, whitespace trimmed, blank
lines skipped.  Set-generalised: the same, where a generalised item is written in
brackets, ``heart disease, (blood pressure, icd, limbs, injury), weakness``.  A
transaction with no items at all (every item suppressed by an anonymiser) is written
as a line holding only ``-`` so that positions never shift.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import IO

import numpy as np

from semtui.errors import InputError
from semtui.fileio import TextLines, atomic_writer, iter_lines
from semtui.model import TransactionBuilder, TransactionData, Vocabulary, generalised_label
from semtui.model.transactions import OriginalMatrix

#: The line that stands for a transaction with no items.
EMPTY_TRANSACTION = "-"

_BRACKETS = re.compile(r"([(),])")


#: generalised items' text already read: a release repeats each one on thousands of lines.  The
#: text maps to the members (a list; one member: that item) and the key a line's repeats are
#: found by (a frozenset of the members; one member: that item)
_MEMBERS: dict[str, tuple[list[str] | str, frozenset | str]] = {}
_MEMO_CAP = 1 << 16


def parse_setgen_line(line: str, path: str | Path, lineno: int) -> list:
    """Parse one line of set-generalised text into plain items and member lists."""
    if "(" not in line and ")" not in line:
        return _dedupe(p.strip() for p in line.split(","))
    # the common line: brackets that pair up, none nested, none empty, read with str.split and
    # str.partition (no regular expression over the line) and each generalised item's text parsed
    # once (reading the MEPS k = 3 release, 26,735 lines of ~650 characters: docs/performance.md);
    # anything else is read a bracket at a time, which says what is wrong
    first, *rest = line.split("(")
    if ")" in first:
        return _parse_setgen_line_closely(line, path, lineno)
    out = [p for p in (p.strip() for p in first.split(",")) if p]
    keys = list(out)
    for part in rest:
        group, closed, tail = part.partition(")")
        if not closed or ")" in tail:
            return _parse_setgen_line_closely(line, path, lineno)
        got = _MEMBERS.get(group)
        if got is None:
            members = _dedupe(p.strip() for p in group.split(","))
            if not members:
                return _parse_setgen_line_closely(line, path, lineno)  # an empty generalised item: said there
            got = (members, frozenset(members)) if len(members) > 1 else (members[0], members[0])
            if len(_MEMBERS) >= _MEMO_CAP:
                _MEMBERS.clear()
            _MEMBERS[group] = got
        out.append(got[0])
        keys.append(got[1])
        for p in tail.split(","):
            p = p.strip()
            if p:
                out.append(p)
                keys.append(p)
    # a line that repeats an item (rare) drops the repeats as the careful reading does
    return out if len(set(keys)) == len(keys) else _dedupe_tokens(out)


def _parse_setgen_line_closely(line: str, path: str | Path, lineno: int) -> list:
    """:func:`parse_setgen_line` one bracket at a time: what is wrong with a line, said."""
    out: list = []
    group: list[str] | None = None
    for part in _BRACKETS.split(line):
        if part == "(":
            if group is not None:
                raise InputError("nested bracket: a generalised item cannot contain another", path, lineno)
            group = []
        elif part == ")":
            if group is None:
                raise InputError("unbalanced bracket: ')' without '('", path, lineno)
            members = _dedupe(group)
            if not members:
                raise InputError("empty generalised item '()'", path, lineno)
            out.append(members if len(members) > 1 else members[0])
            group = None
        elif part == ",":
            continue
        else:
            item = part.strip()
            if item:
                (out if group is None else group).append(item)
    if group is not None:
        raise InputError("unbalanced bracket: '(' is never closed", path, lineno)
    return _dedupe_tokens(out)


def _dedupe(items) -> list[str]:
    return [i for i in dict.fromkeys(items) if i]


def _dedupe_tokens(tokens: list) -> list:
    seen: set = set()
    out = []
    for t in tokens:
        key = t if isinstance(t, str) else frozenset(t)
        if key not in seen:
            seen.add(key)
            out.append(t)
    return out


def parse_text(text: str, path: str | Path, *, generalised: bool = True) -> TransactionData:
    return parse_lines(iter_lines(text), path, generalised=generalised)


def parse_lines(lines: Iterable[str], path: str | Path, *, generalised: bool = True) -> TransactionData:
    """Transactions from their lines, one at a time (a large file never held whole)."""
    builder = TransactionBuilder(shared_lists=True)  # parse_setgen_line's memo hands its lists again
    add = builder.add
    for lineno, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line:
            continue
        if line == EMPTY_TRANSACTION:
            add([], lineno)
        elif generalised:
            add(parse_setgen_line(line, path, lineno), lineno)
        else:
            add(_dedupe(p.strip() for p in line.split(",")), lineno)
    if not len(builder.lines):
        raise InputError("no transactions in file", path)
    return builder.build()


def read_original_matrix(path: str | Path, vocab: Vocabulary) -> OriginalMatrix:
    """An original (plain transactions, this format) read a line at a time straight into its
    0/1 incidence over a release's ``vocab`` (:class:`semtui.model.OriginalMatrix`): items the
    release does not know are left out, as :meth:`TransactionData.incidence` leaves them.  The
    matrix's arrays are written to disk as they grow and read back memory-mapped
    (:class:`semtui.fileio.DiskArray`): no token arrays, and no array the original's size, in
    memory (a large original's ~30 bytes a transaction stay in the page cache)."""
    from semtui.fileio import DiskArray

    index = {name: vocab.get(name) for name in vocab.items}
    indices = DiskArray(np.int32, "the original's items")
    indptr = DiskArray(np.int64, "the original's rows")
    line_nos = DiskArray(np.int32, "the original's line numbers")
    indptr.append(0)
    nnz = n_gen = 0
    with TextLines(path) as lines:
        for lineno, raw in enumerate(lines, start=1):
            line = raw.strip()
            if not line:
                continue
            tokens = [] if line == EMPTY_TRANSACTION else parse_setgen_line(line, path, lineno)
            ids = set()
            for tok in tokens:
                if not isinstance(tok, str):
                    if len(set(tok)) > 1:  # a generalised item (an original must hold none: refused later)
                        n_gen += 1
                        continue
                    tok = tok[0]
                i = index.get(tok)
                if i is not None:
                    ids.add(i)
            indices.extend(sorted(ids))
            nnz += len(ids)
            indptr.append(nnz)
            line_nos.append(lineno)
    if not len(line_nos):
        raise InputError("no transactions in file", path)
    return OriginalMatrix.on_disk(vocab, indptr, indices, line_nos, n_gen)


def read_setgen(path: str | Path) -> TransactionData:
    """Read plain or set-generalised text (the kind follows from the content)."""
    with TextLines(path) as lines:
        return parse_lines(lines, path, generalised=True)


def read_plain(path: str | Path) -> TransactionData:
    """Read plain transactions; brackets are taken literally as part of item names."""
    with TextLines(path) as lines:
        return parse_lines(lines, path, generalised=False)


def _check_item(item: str, path) -> str:
    if any(c in item for c in ",()\n") or item != item.strip() or not item or item == EMPTY_TRANSACTION:
        raise InputError(f"item {item!r} cannot be written in the text notation", path)
    return item


def format_transaction(data: TransactionData, i: int, path=None) -> str:
    parts = []
    vocab = data.vocab
    for t in data.transaction(i):
        t = int(t)
        if t >= 0:
            parts.append(_check_item(vocab[t], path))
        else:
            parts.append(generalised_label(_check_item(m, path) for m in data.member_names(-t - 1)))
    return ", ".join(parts) if parts else EMPTY_TRANSACTION


def dump_setgen(data: TransactionData, fh: IO[str], path=None) -> None:
    # each token is spelled (and checked) once: a generalised item with hundreds of members
    # (a high hierarchy node) may occur in most transactions
    spelled: dict[int, str] = {}
    vocab = data.vocab
    indptr = data.indptr.tolist()
    tokens = data.tokens.tolist()
    for i in range(data.n_transactions):
        parts = []
        for t in tokens[indptr[i]:indptr[i + 1]]:
            s = spelled.get(t)
            if s is None:
                if t >= 0:
                    s = _check_item(vocab[t], path)
                else:
                    s = "(" + ", ".join(_check_item(m, path) for m in data.member_names(-t - 1)) + ")"
                spelled[t] = s
            parts.append(s)
        fh.write(", ".join(parts) if parts else EMPTY_TRANSACTION)
        fh.write("\n")


def write_setgen(data: TransactionData, path: str | Path) -> None:
    with atomic_writer(path) as fh:
        dump_setgen(data, fh, path)


def write_plain(data: TransactionData, path: str | Path) -> None:
    if data.n_generalised:
        raise InputError("plain format cannot hold generalised items; use setgen", path)
    write_setgen(data, path)
