"""Reading input safely and writing output atomically.

Inputs are read once: ``read_bytes`` keeps the bytes of a stream (standard input written
``-``, a pipe, a FIFO, ``<(...)``, ``/dev/stdin``) so that format detection and the reader
share one buffer; regular files are read from disk.  Input files are never opened for
writing.

Outputs go to a temporary file in the target's directory and are renamed into place, so an
interrupted run never leaves a half-written file behind.  Around that rule:

* a character device or a FIFO (``/dev/null``, ``/dev/full``, a named pipe) is written to
  directly: there is nothing to rename over;
* a symbolic link is followed, and its target is replaced atomically;
* overwriting keeps the existing file's mode; a new file gets the mode ``open()`` would
  give it (0666 less the umask), or 0600 when it holds original (private) data
  (``private=True``: attack reports with the original, disassociation keys, anonymisation
  sidecars, see docs/cli.md);
* any failure to write (a full disk, an I/O error) is an :class:`InputError` naming the file.
"""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from semtui.errors import InputError

#: The path that means standard input wherever a file is read.
STDIN = "-"
#: Bytes of the inputs that cannot be read twice (streams), by the path they were named by.
_STREAMS: dict[str, bytes] = {}
_HEAD = 64 * 1024


def is_stdin(path: str | Path) -> bool:
    return str(path) == STDIN


def _key(path: str | Path) -> str:
    return str(Path(path))


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


def _is_regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


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
def held(path: str | Path) -> Iterator[bytes]:
    """Read an input once and serve every read of it from that buffer inside the block
    (detection, then the reader)."""
    key = _key(path)
    data = read_bytes(path)
    added = key not in _STREAMS
    _STREAMS[key] = data
    try:
        yield data
    finally:
        if added:
            _STREAMS.pop(key, None)


def read_head(path: str | Path, size: int = _HEAD) -> bytes:
    """The first ``size`` bytes of an input, for detection; a stream is read whole (once)."""
    key = _key(path)
    if key in _STREAMS or is_stdin(path) or not _is_regular(Path(path)):
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
    if not is_stdin(path) and _key(p) not in _STREAMS and _is_regular(p):
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


# --------------------------------------------------------------------------- writing
def write_error(exc: OSError, path: str | Path) -> InputError:
    """An OSError met while writing ``path``, as one line naming it."""
    return InputError(f"cannot write: {exc.strerror or exc}", path)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _new_mode(private: bool) -> int:
    return 0o600 if private else 0o666 & ~_umask()


class PendingOutput:
    """One output being written: a temporary file beside the (symlink-resolved) target,
    or the target itself when it is a device or a FIFO."""

    def __init__(self, path: str | Path, mode: str, encoding: str | None, private: bool):
        self.target = Path(path)
        self.tmp: str | None = None
        try:
            st = os.stat(self.target)  # follows symbolic links
        except FileNotFoundError:
            st = None
        except OSError as exc:
            raise write_error(exc, self.target) from None
        if st is not None and stat.S_ISDIR(st.st_mode):
            raise InputError("is a directory, not a file", self.target)
        text_kw = {} if "b" in mode else {"encoding": encoding, "newline": "\n"}
        if st is not None and not stat.S_ISREG(st.st_mode):
            try:  # /dev/null, /dev/full, a FIFO: nothing to rename over
                self.fh = open(self.target, mode, **text_kw)
            except OSError as exc:
                raise write_error(exc, self.target) from None
            return
        real = Path(os.path.realpath(self.target)) if self.target.is_symlink() else self.target
        self.final = real
        directory = real.parent if str(real.parent) else Path(".")
        if not directory.is_dir():
            raise InputError("output directory does not exist", directory)
        try:  # a short name: a 255-byte target name must still leave room for it
            fd, self.tmp = tempfile.mkstemp(prefix=f".{real.name[:24]}.", suffix=".tmp", dir=directory)
        except OSError as exc:
            raise write_error(exc, self.target) from None
        try:
            os.fchmod(fd, stat.S_IMODE(st.st_mode) if st is not None else _new_mode(private))
            self.fh = os.fdopen(fd, mode, **text_kw)
        except BaseException:
            os.close(fd)
            self.abort()
            raise

    def finish(self) -> None:
        """Flush and close; the data is on disk (a temporary file) or sent (a device)."""
        try:
            self.fh.flush()
            if self.tmp is not None:
                os.fsync(self.fh.fileno())
            self.fh.close()
        except OSError as exc:
            with contextlib.suppress(OSError):
                self.fh.close()
            raise write_error(exc, self.target) from None

    def commit(self) -> None:
        if self.tmp is not None:
            try:
                os.replace(self.tmp, self.final)
            except OSError as exc:
                raise write_error(exc, self.target) from None
            self.tmp = None

    def abort(self) -> None:
        fh = getattr(self, "fh", None)
        if fh is not None:
            with contextlib.suppress(OSError, ValueError):
                fh.close()
        if self.tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(self.tmp)
            self.tmp = None


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Hold SIGINT and SIGTERM while outputs are renamed into place, so that an interrupt
    cannot fall between two renames of one commit."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held = {signal.SIGINT, signal.SIGTERM}
    old = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


@contextlib.contextmanager
def atomic_writer(path: str | Path, mode: str = "w", encoding: str | None = "utf-8", *,
                  private: bool = False) -> Iterator[IO]:
    """Open a temporary file beside ``path``; rename it over ``path`` only on success.

    On any exception (KeyboardInterrupt included) the temporary file is removed and the
    target is left as it was.  See the module docstring for devices, symlinks and modes.
    """
    pending = PendingOutput(path, mode, encoding, private)
    try:
        try:
            yield pending.fh
        except OSError as exc:
            raise write_error(exc, pending.target) from None
        pending.finish()
        with _signals_held():
            pending.commit()
    except BaseException:
        pending.abort()
        raise


def check_outputs(outputs: list[str | Path | None], inputs: list[str | Path | None]) -> None:
    """Refuse, before any work is done, outputs that would overwrite an input, two outputs
    that are the same file, and outputs whose folder is missing or not writable."""
    outs = [Path(o) for o in outputs if o is not None]
    ins = [Path(i) for i in inputs if i is not None and not is_stdin(i)]
    seen: dict[Path, Path] = {}
    for out in outs:
        real = out.resolve()
        if any(real == src.resolve() for src in ins) and _is_regular(real):
            raise InputError("output would overwrite an input file", out)
        if real in seen:
            raise InputError(f"two outputs are the same file ({seen[real]})", out)
        seen[real] = out
        if out.is_dir():
            raise InputError("is a directory, not a file", out)
        if out.exists() and not _is_regular(real):
            continue  # a device or a FIFO, written in place
        folder = real.parent
        if not folder.is_dir():
            raise InputError("output directory does not exist", out)
        if not os.access(folder, os.W_OK | os.X_OK):
            raise InputError("output directory is not writable", out)


def write_together(outputs: list, *, private: bool = False) -> None:
    """Write every output of one command, each to its temporary file, and rename them into
    place only once all are written: an error or an interrupt leaves every target as it was.

    An item is ``(path, write)`` or ``(path, write, private)``; ``private`` (default for all
    items) makes a new file 0600.
    """
    pending: list[PendingOutput] = []
    try:
        for item in outputs:
            path, write = item[0], item[1]
            priv = item[2] if len(item) > 2 else private
            pending.append(PendingOutput(path, "w", "utf-8", bool(priv)))
            try:
                write(pending[-1].fh)
            except OSError as exc:
                raise write_error(exc, pending[-1].target) from None
        for p in pending:
            p.finish()
        with _signals_held():
            for p in pending:
                p.commit()
    except BaseException:
        for p in pending:
            p.abort()
        raise
