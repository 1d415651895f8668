"""Readers and writers for every dataset format, with detection.

``read(path)`` picks the format from the extension, then the content; ``format=``
overrides.  Formats: ``plain``, ``setgen``, ``km`` (a k^m release naming hierarchy nodes), ``fimi``, ``jsonl``, ``disassociated``
(see docs/formats.md).  Every reader raises :class:`semtui.errors.InputError` with the
file and line for bad input; every writer is atomic.
"""

from __future__ import annotations

import re
from pathlib import Path

from semtui.errors import InputError
from semtui.fileio import check_readable, held, read_head
from semtui.formats import disassociated, fimi, jsonl, km, text
from semtui.model import Dataset, DisassociatedData, TransactionData

FORMATS = ("plain", "setgen", "km", "fimi", "jsonl", "disassociated")

_NUMERIC_LINE = re.compile(rb"^[\s\d-]*\d[\s\d-]*$")


def detect(path: str | Path) -> str:
    """Guess the format of ``path`` from its extension, then its first bytes."""
    p = check_readable(path)
    suffix = p.suffix.lower()
    head = read_head(p, 64 * 1024)
    if km.is_km(head):  # its first line says so, whatever the extension
        return "km"
    if suffix in fimi.SUFFIXES:
        return "fimi"
    if suffix in jsonl.SUFFIXES:
        return "jsonl"
    if suffix == ".json":
        return "disassociated"
    if head.startswith(b"\xef\xbb\xbf"):  # a UTF-8 byte-order mark says nothing of the format
        head = head[3:]
    stripped = head.lstrip()
    if stripped.startswith(b"{"):
        return "disassociated" if b'"semtui-disassociated/' in head[:4096] else "jsonl"
    lines = [ln for ln in head.split(b"\n")[:200] if ln.strip() and not ln.startswith(b"@")]
    if len(head) == 64 * 1024 and len(lines) > 1:
        lines = lines[:-1]  # the last line may be cut
    if lines and all(_NUMERIC_LINE.match(ln) for ln in lines):
        return "fimi"
    return "setgen"


#: formats the user named for a file on a face that reads it through another module
_ASSUMED: dict[str, str] = {}


def assume_format(path: str | Path, format: str) -> None:
    """Read ``path`` as ``format`` whenever it is read without one (``semtui open --format``)."""
    if format not in FORMATS:
        raise InputError(f"unknown format {format!r} (choose from {', '.join(FORMATS)})", path)
    _ASSUMED[str(Path(path))] = format


def read(path: str | Path, format: str | None = None, *, names: str | Path | None = None,
         spool: bool = False) -> Dataset:
    """Read any dataset.  ``names`` is an id->name map for FIMI files.  The file is read
    once (detection and the reader share one buffer): ``-``, pipes and FIFOs work.
    ``spool``: a disassociated release's clusters are kept on disk
    (:func:`semtui.formats.disassociated.read_disassociated`)."""
    if format is not None and format not in FORMATS:
        raise InputError(f"unknown format {format!r} (choose from {', '.join(FORMATS)})", path)
    format = format or _ASSUMED.get(str(Path(path)))
    with held(path):
        return _read(path, format or detect(path), names, spool)


def _read(path, fmt: str, names, spool: bool = False) -> Dataset:
    if fmt == "setgen":
        return text.read_setgen(path)
    if fmt == "plain":
        return text.read_plain(path)
    if fmt == "km":
        return km.read_km(path)
    if fmt == "fimi":
        return fimi.read_fimi(path, fimi.read_names(names) if names else None)
    if fmt == "jsonl":
        return jsonl.read_jsonl(path)
    if fmt == "disassociated":
        return disassociated.read_disassociated(path, spool=spool)
    raise InputError(f"unknown format {fmt!r} (choose from {', '.join(FORMATS)})", path)


def read_transactions(path: str | Path, format: str | None = None, **kw) -> TransactionData:
    """Read a dataset that must be (plain or set-generalised) transactions."""
    data = read(path, format, **kw)
    if not isinstance(data, TransactionData):
        raise InputError(f"expected transactions, got a {data.kind} dataset", path)
    return data


def read_original_matrix(path: str | Path, vocab, format: str | None = None):
    """An original as its incidence over a release's ``vocab``
    (:class:`semtui.model.transactions.OriginalMatrix`): plain text read a line at a time
    straight into the matrix; any other format read whole, then turned into it."""
    from semtui.model.transactions import OriginalMatrix

    with held(path):
        fmt = format or _ASSUMED.get(str(Path(path))) or detect(path)
        if fmt == "setgen":
            return text.read_original_matrix(path, vocab)
        data = _read(path, fmt, None)
    if not isinstance(data, TransactionData):
        raise InputError(f"expected transactions, got a {data.kind} dataset", path)
    return OriginalMatrix.of(data, vocab)


def write(data: Dataset, path: str | Path, format: str | None = None) -> None:
    """Write ``data`` atomically; the format defaults from the extension and the data."""
    p = Path(path)
    fmt = format
    if fmt is None:
        if isinstance(data, DisassociatedData):
            fmt = "disassociated"
        elif p.suffix.lower() in fimi.SUFFIXES:
            fmt = "fimi"
        elif p.suffix.lower() in jsonl.SUFFIXES:
            fmt = "jsonl"
        else:
            fmt = "setgen"
    if fmt == "disassociated":
        if not isinstance(data, DisassociatedData):
            raise InputError("only disassociated data can be written as disassociated JSON", p)
        disassociated.write_disassociated(data, p)
        return
    if isinstance(data, DisassociatedData):
        raise InputError(f"disassociated data cannot be written as {fmt}", p)
    writers = {"setgen": text.write_setgen, "plain": text.write_plain, "fimi": fimi.write_fimi, "jsonl": jsonl.write_jsonl}
    if fmt not in writers:
        raise InputError(f"unknown format {fmt!r} (choose from {', '.join(FORMATS)})", p)
    writers[fmt](data, p)
