"""Generalisation hierarchies as text: one leaf per line, ``leaf;level1;level2;...;root``.

Each line is the path from a leaf (an item of the domain) up to the root, separated by
``;``; labels are trimmed, blank lines and lines starting with ``#`` are skipped.  A label
that holds ``;`` or ``"``, starts with ``#`` or has blanks at either end is written in double
quotes, a ``"`` inside doubled (``"depressive disorder; not elsewhere classified"``), as in
CSV; a backslash is an ordinary character.  Reading and writing share :func:`split_path`
and :func:`quote_label`, so every label the writer writes reads back unchanged.  Checks:
every line ends at the same root, every leaf appears once, a label has the same parent on
every line, a leaf is never an internal node, no cycle (a label twice on one path).  A
label repeated at consecutive levels of a path (``x;A;A;B;*``) is one node: the shipped
BMS-WebView-2 hierarchy writes its one-child classes that way.
"""

from __future__ import annotations

from pathlib import Path
from typing import IO

from semtui.errors import InputError
from semtui.fileio import atomic_writer, read_text
from semtui.model.hierarchy import Hierarchy

SEPARATOR = ";"
QUOTE = '"'


def quote_label(label: str) -> str:
    """A label as the format writes it: quoted when it must be (see the module docstring)."""
    if SEPARATOR in label or QUOTE in label or label.startswith("#") or label != label.strip():
        return QUOTE + label.replace(QUOTE, QUOTE * 2) + QUOTE
    return label


def split_path(line: str) -> list[str]:
    """The labels of one line (already stripped): unquoted ones trimmed, quoted ones exactly
    as quoted.  A malformed quote raises ``ValueError`` with what is wrong."""
    if QUOTE not in line:
        return [p.strip() for p in line.split(SEPARATOR)]
    labels: list[str] = []
    i, n = 0, len(line)
    while True:
        while i < n and line[i] in " \t":
            i += 1
        if i < n and line[i] == QUOTE:
            j = i + 1
            parts = []
            while True:
                end = line.find(QUOTE, j)
                if end < 0:
                    raise ValueError(f"a quoted label opened at column {i + 1} is not closed")
                parts.append(line[j:end])
                if end + 1 < n and line[end + 1] == QUOTE:  # "" stands for one "
                    parts.append(QUOTE)
                    j = end + 2
                    continue
                break
            labels.append("".join(parts))
            i = end + 1
            while i < n and line[i] in " \t":
                i += 1
            if i < n and line[i] != SEPARATOR:
                raise ValueError(f"text after the closing quote at column {i + 1} (a label is quoted whole)")
        else:
            end = line.find(SEPARATOR, i)
            end = n if end < 0 else end
            labels.append(line[i:end].strip())
            i = end
        if i >= n:
            return labels
        i += 1  # the separator
        if i >= n:
            labels.append("")
            return labels


def parse_hierarchy(text: str, path: str | Path) -> Hierarchy:
    """Parse and check the text of a hierarchy file."""
    index: dict[str, int] = {}
    labels: list[str] = []
    parent: list[int] = []
    where: list[int] = []  # the line that gave each node its parent
    leaf_line: dict[str, int] = {}
    internal: set[str] = set()
    root: str | None = None
    root_line = 0
    for lineno, raw in enumerate(text.split("\n"), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        try:
            path_labels = split_path(line)
        except ValueError as exc:
            raise InputError(str(exc), path, lineno) from None
        if any(not p for p in path_labels):
            raise InputError("empty label (two ';' in a row, or a ';' at an end)", path, lineno)
        # a label repeated at consecutive levels is one class with one child, written once
        path_labels = [p for i, p in enumerate(path_labels) if i == 0 or p != path_labels[i - 1]]
        if len(path_labels) < 2:
            raise InputError(f"a line needs a leaf and its ancestors up to the root, got only {line!r}",
                             path, lineno)
        if len(set(path_labels)) != len(path_labels):
            dup = next(p for p in path_labels if path_labels.count(p) > 1)
            raise InputError(f"label {dup!r} occurs twice on one path (a cycle)", path, lineno)
        leaf, top = path_labels[0], path_labels[-1]
        if root is None:
            root, root_line = top, lineno
        elif top != root:
            raise InputError(f"the path ends at {top!r}, but line {root_line} ends at {root!r}: "
                             "a hierarchy has one root", path, lineno)
        if leaf in leaf_line:
            raise InputError(f"leaf {leaf!r} already given on line {leaf_line[leaf]}", path, lineno)
        if leaf in internal:
            raise InputError(f"{leaf!r} is an internal node on an earlier line and cannot be a leaf",
                             path, lineno)
        leaf_line[leaf] = lineno
        for p in path_labels[1:]:
            if p in leaf_line:
                raise InputError(f"{p!r} is a leaf (line {leaf_line[p]}) and cannot be an internal node",
                                 path, lineno)
            internal.add(p)
        prev = -1
        for label in reversed(path_labels):
            v = index.get(label)
            if v is None:
                v = index[label] = len(labels)
                labels.append(label)
                parent.append(prev)
                where.append(lineno)
            elif parent[v] != prev:
                was = "the root" if parent[v] < 0 else repr(labels[parent[v]])
                now = "the root" if prev < 0 else repr(labels[prev])
                raise InputError(f"{label!r} is under {now} here but under {was} on line {where[v]}",
                                 path, lineno)
            prev = v
    if root is None:
        raise InputError("no hierarchy paths in file", path)
    try:
        return Hierarchy(labels, parent)
    except ValueError as exc:  # cannot happen after the checks above, kept as a guard
        raise InputError(str(exc), path) from None


def read_hierarchy(path: str | Path) -> Hierarchy:
    return parse_hierarchy(read_text(path), path)


def unwritable(label: str) -> bool:
    """A label no line can hold: empty, or with a line break in it."""
    return not label or any(c in label for c in "\n\r")


def dump_hierarchy(h: Hierarchy, fh: IO[str], path=None) -> None:
    bad = next((lab for lab in h.labels if unwritable(lab)), None)
    if bad is not None:  # callers check their own input first and name it (hierarchy build does)
        raise InputError(f"label {bad!r} cannot be written in the hierarchy format (a line break)", path)
    quoted = [quote_label(lab) for lab in h.labels]
    for leaf in h.leaf_order.tolist():
        fh.write(SEPARATOR.join(quoted[v] for v in h.chain(leaf)))
        fh.write("\n")


def write_hierarchy(h: Hierarchy, path: str | Path) -> None:
    with atomic_writer(path) as fh:
        dump_hierarchy(h, fh, path)
