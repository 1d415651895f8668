"""Reading input safely: every input is read once.

``read_bytes`` keeps the bytes of a stream (standard input written ``-``, a pipe, a FIFO,
``<(...)``, ``/dev/stdin``) so that format detection and the reader share one buffer
(:func:`held`); regular files are read from disk.  Input files are never opened for writing.
Failures (a missing file, bad UTF-8, bad JSON) are :class:`InputError` naming the file and
line.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

from semtui.errors import InputError

#: The path that means standard input wherever a file is read, standard output wherever one
#: is written.
STDIN = STDOUT = "-"
#: Bytes of the inputs that cannot be read twice (streams), by the path they were named by.
_STREAMS: dict[str, bytes] = {}
_HEAD = 64 * 1024


def is_stdin(path: str | Path) -> bool:
    return str(path) == STDIN


def is_stdout(path: str | Path | None) -> bool:
    return path is not None and str(path) == STDOUT


def _key(path: str | Path) -> str:
    return str(Path(path))


def held_stream(path: str | Path) -> bool:
    """Whether ``path`` names a stream already read, whose bytes are held (:func:`held`):
    it has no size on disk to go by."""
    return _key(path) in _STREAMS


def check_readable(path: str | Path) -> Path:
    """Return ``path`` as a Path, or raise InputError for a missing file or a directory.
    ``-`` (standard input) is always readable."""
    p = Path(path)
    if is_stdin(path) or _key(p) in _STREAMS:
        return p
    if not p.exists():
        raise InputError("no such file", p)
    if p.is_dir():
        raise InputError("is a directory, not a file", p)
    if not os.access(p, os.R_OK):
        raise InputError("permission denied", p)
    return p


def is_regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def on_disk(path: str | Path) -> bool:
    """Whether ``path`` is a regular file not already read as a stream: one a reader can read
    from disk (again, or a line at a time), where a stream must be read once into a buffer."""
    return not is_stdin(path) and _key(path) not in _STREAMS and is_regular(Path(path))


def read_bytes(path: str | Path) -> bytes:
    """Every byte of an input, read once: a stream's bytes are kept for the next reader."""
    key = _key(path)
    got = _STREAMS.get(key)
    if got is not None:
        return got
    p = check_readable(path)
    try:
        if is_stdin(path):
            data = sys.stdin.buffer.read()
            regular = False
        else:
            with open(p, "rb") as fh:
                regular = stat.S_ISREG(os.fstat(fh.fileno()).st_mode)
                data = fh.read()
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", "<stdin>" if is_stdin(path) else p) from None
    if not regular:
        _STREAMS[key] = data
    return data


@contextlib.contextmanager
def held(path: str | Path) -> Iterator[None]:
    """Inside the block, every read of a stream (standard input, a pipe, a FIFO) is served from
    one buffer, read once (detection, then the reader).  A regular file is not read here: its
    head is read for detection, then the reader reads it from disk (a line at a time where the
    reader can, so that a large file is never held whole)."""
    if on_disk(path):
        yield
        return
    key = _key(path)
    data = read_bytes(path)
    added = key not in _STREAMS
    _STREAMS[key] = data
    try:
        yield
    finally:
        if added:
            _STREAMS.pop(key, None)


def read_head(path: str | Path, size: int = _HEAD) -> bytes:
    """The first ``size`` bytes of an input, for detection; a stream is read whole (once)."""
    if not on_disk(path):
        return read_bytes(path)[:size]
    p = check_readable(path)
    try:
        with open(p, "rb") as fh:
            return fh.read(size)
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", p) from None


def identity(path: str | Path) -> str:
    """A string that changes whenever an input's content could: path, mtime and size for a
    regular file, a hash of the bytes for a stream (standard input, a pipe)."""
    p = Path(path)
    if on_disk(p):
        st = p.stat()
        return f"{p.resolve()}:{st.st_mtime_ns}:{st.st_size}"
    import hashlib

    return "stream:sha256=" + hashlib.sha256(read_bytes(path)).hexdigest()[:32]


def display_name(path: str | Path) -> str:
    return "<stdin>" if is_stdin(path) else str(path)


def read_text(path: str | Path, *, allow_empty: bool = False) -> str:
    """Read a whole UTF-8 text file; bad bytes become an InputError naming the line."""
    data = read_bytes(path)
    return decode_text(data, display_name(path), allow_empty=allow_empty)


def decode_text(data: bytes, path: str | Path, *, allow_empty: bool = False) -> str:
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if not data.strip() and not allow_empty:
        raise InputError("file is empty", path)
    if b"\x00" in data:
        line = data.count(b"\n", 0, data.index(b"\x00")) + 1
        raise InputError("binary data (NUL byte), not a text file", path, line)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(f"not valid UTF-8 (byte 0x{data[exc.start]:02x})", path, line) from None
    return text


def parse_json(text: str, path: str | Path, line: int | None = None):
    """JSON whose failures (bad syntax, nesting too deep) name the file and line; orjson, which
    parses a release of BMS-WebView-2's size ~3x faster than the json module (and refuses
    NaN and numbers beyond 64 bits, which no semtui document holds)."""
    import json

    import orjson

    try:
        return orjson.loads(text)
    except json.JSONDecodeError as exc:  # orjson's error is a json.JSONDecodeError
        where = exc.lineno if line is None else line
        raise InputError(f"not valid JSON: {exc.msg} (column {exc.colno})", path, where) from None
    except RecursionError:
        raise InputError("not valid JSON: nested too deeply", path, line) from None
