"""FIMI / SPMF numeric transactions: space-separated integer item ids, one line each.

SPMF's ``-1`` item separators and ``-2`` end-of-sequence markers are accepted and
dropped; SPMF ``@ITEM=id=name`` lines name items.  A separate id->name map (``id<TAB>name``
or ``id,name`` per line) can name them too.  Items are named by their id otherwise.

Parsing is vectorised: all tokens are converted to integers by numpy at once, so a
77k-line file costs a few hundred milliseconds and memory proportional to its tokens.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from semtui.errors import InputError
from semtui.fileio import is_stdout, read_text, write_together
from semtui.model import TransactionData, Vocabulary

SUFFIXES = {".dat", ".fimi", ".spmf"}


def read_names(path: str | Path) -> dict[int, str]:
    names: dict[int, str] = {}
    first_line: dict[int, str] = {}
    for lineno, line in enumerate(read_text(path).splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        sep = "\t" if "\t" in line else ","
        key, _, name = line.partition(sep)
        try:
            ident = int(key)
        except ValueError:
            raise InputError(f"expected 'id{sep}name', got {line[:40]!r}", path, lineno) from None
        if ident in names:
            raise InputError(f"id {ident} is named twice ({first_line[ident]} and here)", path, lineno)
        names[ident] = name.strip()
        first_line[ident] = f"line {lineno}"
    return names


def read_fimi(path: str | Path, names: dict[int, str] | None = None) -> TransactionData:
    text = read_text(path)
    names = dict(names or {})
    tokens: list[str] = []
    lengths: list[int] = []
    lines: list[int] = []
    for lineno, raw in enumerate(text.split("\n"), start=1):
        if raw.startswith("@"):
            if raw.startswith("@ITEM="):
                parts = raw.rstrip("\r").split("=", 2)
                try:
                    if len(parts) != 3 or not parts[2].strip():
                        raise ValueError
                    names.setdefault(int(parts[1]), parts[2])
                except ValueError:
                    raise InputError(f"bad SPMF item line {raw[:40]!r} (expected @ITEM=id=name)",
                                     path, lineno) from None
            continue
        parts = raw.split()
        if not parts:
            continue
        if "-1" in parts or "-2" in parts:
            parts = [p for p in parts if p not in ("-1", "-2")]
        tokens.extend(parts)
        lengths.append(len(parts))
        lines.append(lineno)
    if not lines:
        raise InputError("no transactions in file", path)
    try:
        ids = np.array(tokens, dtype=np.int64)
    except (ValueError, OverflowError):
        _raise_first_bad(tokens, lengths, lines, path)
    if ids.size and ids.min() < 0:
        _raise_first_bad(tokens, lengths, lines, path)
    uniq, inverse = np.unique(ids, return_inverse=True)
    vocab = Vocabulary(names.get(int(u), str(int(u))) for u in uniq)
    if len(vocab) != len(uniq):
        raise InputError("two item ids map to the same name", path)
    indptr = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(np.asarray(lengths, dtype=np.int64), out=indptr[1:])
    data = TransactionData(vocab, indptr, inverse.astype(np.int32).ravel(), lines=np.asarray(lines, dtype=np.int32))
    return data


def _raise_first_bad(tokens, lengths, lines, path):
    pos = 0
    for n, lineno in zip(lengths, lines):
        for tok in tokens[pos : pos + n]:
            try:
                if int(tok) < 0:
                    raise ValueError
            except ValueError:
                raise InputError(f"not a non-negative integer item id: {tok[:30]!r}", path, lineno) from None
        pos += n
    raise InputError("bad item id", path)


def write_fimi(data: TransactionData, path: str | Path) -> None:
    """Write integer ids.  Items whose names are integers keep them; otherwise every
    item is written as its vocabulary id and a ``PATH.names.tsv`` map is written beside it."""
    if data.n_generalised:
        raise InputError("FIMI format cannot hold generalised items", path)
    try:
        codes = np.array([int(s) for s in data.vocab.items], dtype=np.int64)
        if codes.size and codes.min() < 0:
            raise ValueError
        need_map = any(str(int(c)) != s for c, s in zip(codes, data.vocab.items))
    except ValueError:
        codes = np.arange(len(data.vocab), dtype=np.int64)
        need_map = True
    def ids(fh) -> None:
        for i in range(data.n_transactions):
            t = data.transaction(i)
            fh.write(" ".join(map(str, codes[t].tolist())) if len(t) else "")
            fh.write("\n")

    def name_map(fh) -> None:
        for c, s in zip(codes.tolist(), data.vocab.items):
            fh.write(f"{c}\t{s}\n")

    if need_map and is_stdout(path):
        raise InputError("FIMI ids with a names map need a file name (the map is written beside it)", path)
    # the ids and their map are committed together: one is useless without the other
    write_together([(path, ids)] + ([(str(path) + ".names.tsv", name_map)] if need_map else []))
