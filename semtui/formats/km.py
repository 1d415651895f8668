"""k^m releases that name each generalised item by its hierarchy node (docs/formats.md).

A k^m release generalises items along a hierarchy, so a generalised item *is* a node: this
format writes it as ``{node label}`` and lets the hierarchy file, named in the header,
resolve its members.  The release stays as small as its original (BMS-WebView-2 at k=5, m=2:
about 2.5 MB instead of 93 MB of leaf lists)::

    @semtui-km-release/1
    @hierarchy bms-webview-2.hierarchy.txt
    @members observed
    @domain 12895, 12897, 12899, ...
    @data
    12895, {12899,13043}, 14305
    -

* ``@hierarchy`` is the hierarchy file, relative to the release's folder (or absolute);
* ``@members observed``: a node stands for its leaves listed on the ``@domain`` line (the
  items of the original, in the original's order; they are the release's vocabulary);
  ``@members all``: for all its leaves (no ``@domain`` line is needed);
* after ``@data``, one transaction per line as in the set-generalised text format
  (docs/formats.md), a generalised item written ``{node label}`` instead of its member list;
  a line ``-`` is a transaction with no items.  A node with one member is written as that
  member, a plain item.

Read, a release is :class:`TransactionData` whose generalised items are the nodes' member
lists, exactly as the leaf-list text gives them, with ``gen_labels`` naming the nodes.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import IO

import numpy as np

from semtui.errors import InputError
from semtui.fileio import display_name, is_stdin, read_text
from semtui.model import TransactionData, Vocabulary
from semtui.model.hierarchy import Hierarchy

MAGIC = "@semtui-km-release/1"
MAGIC_PREFIX = b"@semtui-km-release/"
MEMBERS = ("observed", "all")
EMPTY_TRANSACTION = "-"

_LINE = re.compile(r"\s*(?:\{[^{}]*\}|[^,{}]*[^,{}\s])\s*(?:,\s*(?:\{[^{}]*\}|[^,{}]*[^,{}\s])\s*)*")
#: an item (a node in braces, a plain item, or nothing) with blanks around it, and its separator
_SCAN = re.compile(r"([ \t\r]*(\{[^{}\n]*\}[ \t\r]*|[^,{}\n]*)(,|\n))")


def writable_item(item: str) -> bool:
    """A plain item this format can write (the text notation's rules, and no braces)."""
    return bool(item) and item == item.strip() and item != EMPTY_TRANSACTION and not any(c in item for c in ",(){}\n\r") \
        and not item.startswith("@")


def writable_label(label: str) -> bool:
    """A node label this format can write between braces."""
    return bool(label) and label == label.strip() and not any(c in label for c in "{}\n\r")


def can_write(data: TransactionData) -> bool:
    """Whether every item and node label of ``data`` can be written in this format."""
    if data.gen_labels is None:
        return False
    return all(writable_item(x) for x in data.vocab.items) and all(writable_label(x) for x in data.gen_labels)


def hierarchy_reference(hierarchy_file: str | Path, release: str | Path) -> str:
    """How the release names its hierarchy: relative to the release's folder when both are
    files; absolute when the release goes to standard output."""
    h = Path(hierarchy_file).resolve()
    if is_stdin(release):
        return str(h)
    try:
        return os.path.relpath(h, Path(release).resolve().parent)
    except ValueError:  # another drive
        return str(h)


def dump_km(data: TransactionData, fh: IO[str], hierarchy_ref: str, members: str, path=None) -> None:
    """Write ``data`` (made by ``anonymize km``: ``gen_labels`` set) in this format."""
    if not can_write(data):
        raise InputError("an item or node label cannot be written in the k^m release format", path)
    if members not in MEMBERS:
        raise InputError(f"unknown members {members!r}", path)
    if "\n" in hierarchy_ref:
        raise InputError("the hierarchy's path holds a line break", path)
    fh.write(f"{MAGIC}\n@hierarchy {hierarchy_ref}\n@members {members}\n")
    if members == "observed":
        fh.write("@domain " + ", ".join(data.vocab.items) + "\n")
    fh.write("@data\n")
    vocab = data.vocab.items
    labels = data.gen_labels
    spelled: dict[int, str] = {}
    indptr = data.indptr.tolist()
    tokens = data.tokens.tolist()
    out = []
    for i in range(data.n_transactions):
        parts = []
        for t in tokens[indptr[i]:indptr[i + 1]]:
            s = spelled.get(t)
            if s is None:
                s = spelled[t] = vocab[t] if t >= 0 else "{" + labels[-t - 1] + "}"
            parts.append(s)
        out.append(", ".join(parts) if parts else EMPTY_TRANSACTION)
        if len(out) >= 4096:
            fh.write("\n".join(out) + "\n")
            out.clear()
    if out:
        fh.write("\n".join(out) + "\n")


def is_km(head: bytes) -> bool:
    return head.lstrip(b"\xef\xbb\xbf").startswith(MAGIC_PREFIX)


def _header(lines: list[str], path) -> tuple[dict, int]:
    first = lines[0].strip() if lines else ""
    if first != MAGIC:
        raise InputError(f"not a k^m release: the first line must be {MAGIC!r}", path, 1)
    head: dict = {"members": None, "hierarchy": None, "domain": None}
    for i in range(1, len(lines)):
        line = lines[i].strip()
        if not line:
            continue
        if line == "@data":
            if head["hierarchy"] is None:
                raise InputError("the header names no '@hierarchy FILE'", path, i + 1)
            if head["members"] is None:
                raise InputError("the header names no '@members observed|all'", path, i + 1)
            if head["members"] == "observed" and head["domain"] is None:
                raise InputError("'@members observed' needs a '@domain' line (the original's items)", path, i + 1)
            return head, i + 1
        key, _, value = line.partition(" ")
        value = value.strip()
        if key == "@hierarchy" and value:
            ref = Path(value)
            if not ref.is_absolute() and not is_stdin(path):
                ref = Path(path).parent / ref
            head["hierarchy"] = ref
        elif key == "@members" and value in MEMBERS:
            head["members"] = value
        elif key == "@domain":
            head["domain"] = [x.strip() for x in value.split(",")] if value else []
        else:
            raise InputError(f"unknown header line {line[:60]!r} (expected @hierarchy, @members, @domain or @data)",
                             path, i + 1)
    raise InputError("the header never ends: no '@data' line", path)


def read_km(path: str | Path, hierarchy: Hierarchy | None = None) -> TransactionData:
    """Read a k^m release; its hierarchy is read from the file the header names (or given)."""
    return parse_km(read_text(path), path, hierarchy)


def parse_km(text: str, path: str | Path, hierarchy: Hierarchy | None = None) -> TransactionData:
    name = display_name(path)
    lines = text.split("\n")
    head, start = _header(lines, name)
    if hierarchy is None:
        from semtui.formats.hierarchy import read_hierarchy

        href = head["hierarchy"]
        where = Path(href)
        if not where.exists():
            raise InputError(f"the hierarchy this release names (@hierarchy, line 2) is not there: {href}", name, 2)
        if not where.is_file():
            what = "a folder" if where.is_dir() else "not a regular file (a device, FIFO or socket)"
            raise InputError(f"the hierarchy this release names (@hierarchy, line 2) is {what}: {href}", name, 2)
        hierarchy = read_hierarchy(href)
    h = hierarchy
    vocab = Vocabulary(head["domain"] or ())
    domain = np.zeros(h.n_nodes, dtype=bool)
    if head["members"] == "observed":
        bad = [x for x in vocab.items if h.get(x) is None or not h.is_leaf[h.node(x)]]
        if bad:
            raise InputError(f"{len(bad)} item(s) of the @domain line are not leaves of the hierarchy "
                             f"{head['hierarchy']} (another hierarchy?), e.g. {bad[0]!r}", name, 4)
        domain[[h.node(x) for x in vocab.items]] = True
    else:
        domain[h.leaf_order] = True
    lookup: dict[str, int] = {}
    gen_members: list[np.ndarray] = []
    gen_labels: list[str] = []
    add = vocab.add

    def token(part: str, lineno: int) -> int:
        if part[0] != "{":
            return add(part)
        label = part[1:-1].strip()
        v = h.get(label)
        if v is None:
            raise InputError(f"node {label!r} is not in the hierarchy {head['hierarchy']} (another hierarchy?)",
                             name, lineno)
        leaves = h.leaves(v)
        leaves = leaves[domain[leaves]]
        if len(leaves) == 0:
            raise InputError(f"node {label!r} holds none of the release's items (@domain): another hierarchy?",
                             name, lineno)
        ids = [add(h.labels[x]) for x in leaves.tolist()]
        if len(ids) == 1:
            return ids[0]
        gen_members.append(np.asarray(ids, dtype=np.int32))
        gen_labels.append(label)
        return -len(gen_members)

    # one scan of the whole body: every match is an item (or nothing) and the separator after it;
    # the matches cover the body exactly when every line is well formed
    body = "\n".join(lines[start:]) + "\n"
    matches = _SCAN.findall(body)
    if sum(len(m[0]) for m in matches) != len(body):
        for lineno in range(start + 1, len(lines) + 1):
            line = lines[lineno - 1].strip()
            if line and not _LINE.fullmatch(line):
                raise InputError("malformed line: items separated by commas, a node written {label}", name, lineno)
        raise InputError("malformed transactions: items separated by commas, a node written {label}", name)
    flat: list[int] = []
    lengths: list[int] = []
    linenos: list[int] = []
    row: list[int] = []
    lineno = start + 1
    dash = False
    for _, item, sep in matches:
        if item and item[-1] in " \t\r":  # blanks before the separator (greedy: no backtracking)
            item = item.rstrip()
        if item:
            if item == EMPTY_TRANSACTION and not row and sep == "\n":
                dash = True
            else:
                t = lookup.get(item)
                if t is None:
                    t = lookup[item] = token(item, lineno)
                row.append(t)
        elif row or sep == ",":
            raise InputError("empty item (two commas in a row, or one at an end)", name, lineno)
        if sep == "\n":
            if row or dash:
                if len(row) > 1:
                    row = list(dict.fromkeys(row))
                flat.extend(row)
                lengths.append(len(row))
                linenos.append(lineno)
                row = []
                dash = False
            lineno += 1
    if not lengths:
        raise InputError("no transactions in file", name)
    indptr = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(np.asarray(lengths, dtype=np.int64), out=indptr[1:])
    gen_indptr = np.zeros(len(gen_members) + 1, dtype=np.int64)
    np.cumsum([len(x) for x in gen_members], out=gen_indptr[1:])
    members = np.concatenate(gen_members).astype(np.int32) if gen_members else np.zeros(0, dtype=np.int32)
    return TransactionData(vocab, indptr, np.asarray(flat, dtype=np.int32), gen_indptr, members,
                           np.asarray(linenos, dtype=np.int64), None, gen_labels=gen_labels or None)
