"""Every JSON document semtui writes: one envelope, one writer, one reader.

A document is ``{"format": "semtui-<kind>/<n>", "semtui_version": ..., <payload>}``.  The
engine builds typed reports (dataclasses subclassing :class:`Report`); the faces only print
or save ``report.to_json()``.  Keys are stable and only ever added to; ``<n>`` changes when a
key changes meaning.
"""

from __future__ import annotations

import gc
import json
import math
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, ClassVar

from semtui import __version__
from semtui.errors import InputError


def document(format: str, payload: dict) -> dict:
    """The envelope: ``format`` first, then the semtui version, then the payload."""
    assert "format" not in payload, "a payload cannot hold the envelope's 'format'"
    return {"format": format, "semtui_version": __version__, **payload}


class Report(ABC):
    """A typed result of an operation; ``FORMAT`` names its JSON document."""

    FORMAT: ClassVar[str]

    @abstractmethod
    def payload(self) -> dict:
        """The document's keys after the envelope."""

    def to_json(self) -> dict:
        with paused_gc():
            return document(self.FORMAT, self.payload())


_GC_LOCK = threading.Lock()
#: how many paused_gc blocks are open (in any thread), and whether the collector was on when the first opened
_gc_depth = 0
_gc_was_on = False


@contextmanager
def paused_gc():
    """The cyclic garbage collector paused while a large document or typed report is built (or
    read back): they hold no cycle, and the collector's passes over the hundreds of thousands
    of containers being made cost 2-4x the building itself (a 75 MB cover report read back:
    1.1-1.5 s with it, 0.4 s without).  Reference counting still frees everything.  Blocks may
    overlap, in any thread (the TUI reads a release's companions in one while a worker writes a
    report up): the first to open pauses it, the last to close turns it back on (unless it was
    off before the first).  Also a decorator: the release and its companions are read with it
    paused (:mod:`semtui.release`)."""
    global _gc_depth, _gc_was_on
    with _GC_LOCK:
        if _gc_depth == 0:
            _gc_was_on = gc.isenabled()
            gc.disable()
        _gc_depth += 1
    try:
        yield
    finally:
        with _GC_LOCK:
            _gc_depth -= 1
            if _gc_depth == 0 and _gc_was_on:
                gc.enable()


def json_float(x: float | None, digits: int = 6) -> float | None:
    """A float as JSON holds it: rounded, and None for NaN, infinities and None."""
    if x is None:
        return None
    x = float(x)
    return round(x, digits) if math.isfinite(x) else None


def _default(o: Any):
    import numpy as np

    if isinstance(o, np.integer):
        return int(o)
    if isinstance(o, np.floating):
        return json_float(o)
    if isinstance(o, np.bool_):
        return bool(o)
    if isinstance(o, np.ndarray):
        return o.tolist()
    if isinstance(o, Report):
        return o.to_json()
    if isinstance(o, Path):
        return str(o)
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")


def dumps(doc: dict | Report) -> str:
    """The one JSON rendering semtui uses, for files and for stdout alike: UTF-8, two-space
    indent, keys in the order the engine built them, no NaN (a float that is not finite is
    written as null).  orjson renders a 30 MB report about 20x faster than the json module,
    whose indented output is pure Python."""
    import orjson

    if isinstance(doc, Report):
        doc = doc.to_json()
    return orjson.dumps(doc, default=_default, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS).decode()


@dataclass(frozen=True)
class Streamed(Sequence):
    """A part of a document kept on disk: the typed entries of a :class:`semtui.fileio.Spool` (a
    large re-association's clusters), each rendered by ``render`` as it is read; :func:`dump`
    writes it an item at a time."""

    items: Sequence
    render: Callable[[Any], Any]

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, i):
        return self.render(self.items[i])

    def __iter__(self):
        return (self.render(item) for item in self.items)


def _on_disk(v) -> bool:
    from semtui.fileio import Spool

    return isinstance(v, (Spool, Streamed))


def streamed(doc) -> bool:
    """Whether a document holds a part kept on disk (:class:`semtui.fileio.Spool`, or
    :class:`Streamed` typed entries: the per-cluster entries of a large re-association):
    :func:`dump` writes it an item at a time, :func:`dumps` would hold it whole."""
    if isinstance(doc, Report):
        doc = doc.to_json()
    return isinstance(doc, dict) and any(_on_disk(v) for v in doc.values())


def dump(doc: dict | Report, fh: IO[str]) -> None:
    """:func:`dumps` to an open file, then a newline; a top-level value kept on disk
    (:func:`streamed`) is written an item at a time, rendered as :func:`dumps` would render the
    list (the same text)."""
    import orjson

    if isinstance(doc, Report):
        doc = doc.to_json()
    if not streamed(doc):
        fh.write(dumps(doc))
        fh.write("\n")
        return
    marks = {f"\x00semtui-spool-{i}\x00": v for i, v in enumerate(v for v in doc.values() if _on_disk(v))}
    by_id = {id(v): m for m, v in marks.items()}
    text = dumps({k: (by_id[id(v)] if _on_disk(v) else v) for k, v in doc.items()})
    option = orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS
    for mark, spool in marks.items():
        quoted = orjson.dumps(mark).decode()
        at = text.index(quoted)
        line = text[text.rfind("\n", 0, at) + 1:at]  # the key's line: the list's items go one level deeper
        indent = line[:len(line) - len(line.lstrip())]
        fh.write(text[:at])
        text = text[at + len(quoted):]
        if not len(spool):
            fh.write("[]")
            continue
        fh.write("[")
        inner = "\n" + indent + "  "
        for i, item in enumerate(spool):
            fh.write(("," if i else "") + inner)
            fh.write(orjson.dumps(item, default=_default, option=option).decode().replace("\n", inner))
        fh.write("\n" + indent + "]")
    fh.write(text)
    fh.write("\n")


def write(doc: dict | Report, path: str | Path) -> None:
    """Write a document atomically."""
    from semtui.fileio import atomic_writer

    text = dumps(doc)  # render first: a failure leaves no file behind
    with atomic_writer(path) as fh:
        fh.write(text)
        fh.write("\n")


def parse(text: str, path: str | Path, formats: str | tuple[str, ...], what: str) -> dict:
    """Parse a document and check its format: one of ``formats``, each ``semtui-<kind>/<n>``
    or a prefix ``semtui-<kind>/`` accepting any version."""
    try:
        with paused_gc():
            doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON: {exc.msg}", path, exc.lineno) from None
    except RecursionError:
        raise InputError("invalid JSON: nested too deeply", path) from None
    wanted = (formats,) if isinstance(formats, str) else formats
    got = doc.get("format") if isinstance(doc, dict) else None
    if not isinstance(got, str) or not any(got == f or (f.endswith("/") and got.startswith(f)) for f in wanted):
        raise InputError(f"not {what} ('format' must be {' or '.join(repr(f) for f in wanted)}, got {got!r})", path)
    return doc


def read(path: str | Path, formats: str | tuple[str, ...], what: str) -> dict:
    """Read a document written by :func:`write` and check its format."""
    from semtui.fileio import read_text

    return parse(read_text(path), path, formats, what)
