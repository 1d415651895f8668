"""Reading input safely and writing output atomically.

Inputs are read once: ``read_bytes`` keeps the bytes of a stream (standard input written
``-``, a pipe, a FIFO, ``<(...)``, ``/dev/stdin``) so that format detection and the reader
share one buffer; regular files are read from disk.  Input files are never opened for
writing.

Outputs go to a temporary file in the target's directory and are renamed into place, so an
interrupted run never leaves a half-written file behind.  This module is the one writer: no
other module of semtui opens a file for writing, renames one into place or makes a temporary
file (tests/unit/test_one_writer.py checks it).  Around that rule:

* a character device or a FIFO (``/dev/null``, ``/dev/full``, a named pipe) is written to
  directly: there is nothing to rename over;
* a symbolic link is followed, and its target is replaced atomically;
* overwriting keeps the existing file's mode; a new file gets the mode ``open()`` would
  give it (0666 less the umask), or 0600 when it holds original (private) data
  (``private=True``: attack reports with the original, disassociation keys, anonymisation
  sidecars, the TUI's exports of original data, see docs/cli.md);
* the score cache's folder and database are private too (:func:`private_folder`,
  :func:`private_file`: 0700 and 0600, tightened when found more open);
* ``-`` is standard output: the output is written to a private temporary file and copied to
  stdout once every file output of the command is committed (a stream cannot be taken
  back); a reader that goes away raises BrokenPipeError, which the CLI answers with 141;
* any failure to write (a full disk, an I/O error) is an :class:`InputError` naming the file;
* one kind of output grows rather than being replaced: a results file that a long run appends
  one whole line to at a time (``append_line``: one ``write`` with SIGINT and SIGTERM held, then
  ``fsync``), so an interrupted run leaves only whole lines behind.
"""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import sys
import tempfile
import threading
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO

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


def on_disk(path: str | Path) -> bool:
    """Whether ``path`` is a regular file not already read as a stream: one a reader can read
    from disk (again, or a line at a time), where a stream must be read once into a buffer."""
    return not is_stdin(path) and _key(path) not in _STREAMS and _is_regular(Path(path))


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


def iter_lines(text: str, start: int = 0):
    """The lines of ``text`` from offset ``start`` on, one at a time (``text.split`` would hold
    them all at once: the size of the text again, and ~50 bytes a line more); the last is what
    follows the last newline (empty when the text ends with one)."""
    at = start
    while True:
        end = text.find("\n", at)
        if end < 0:
            yield text[at:]
            return
        yield text[at:end]
        at = end + 1


def decoded_lines(fh: IO[bytes], name: str) -> Iterator[tuple[int, bytes, str]]:
    """``(line number, raw bytes, the line decoded without its newline)`` for every line of
    an open binary file: a byte-order mark dropped, a NUL byte or bad UTF-8 an InputError
    naming the line (as :func:`decode_text` words it), a failed read one naming the file."""
    try:
        for lineno, raw in enumerate(fh, start=1):
            text = raw[3:] if lineno == 1 and raw.startswith(b"\xef\xbb\xbf") else raw
            if b"\x00" in text:
                raise InputError("binary data (NUL byte), not a text file", name, lineno)
            try:
                line = text.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise InputError(f"not valid UTF-8 (byte 0x{text[exc.start]:02x})", name, lineno) from None
            yield lineno, raw, line[:-1] if line.endswith("\n") else line
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", name) from None


class TextLines:
    """The lines of a UTF-8 text input, decoded one at a time as they are iterated (what
    :func:`iter_lines` gives for :func:`read_text`'s text), so that a large regular file never
    exists whole in memory; a stream (standard input, a pipe) is read whole once, as every
    reader reads it.  Bad bytes and an empty file are :class:`InputError` naming the file
    (and the line), as :func:`read_text`'s; :meth:`whole` is the text at once, for a reader
    that finds the layout is not one it reads a line at a time (the same open file, read
    again from its start: never a second open of the path)."""

    def __init__(self, path: str | Path, *, allow_empty: bool = False):
        self.path, self.name, self.allow_empty = path, display_name(path), allow_empty
        self._fh = None
        if on_disk(path):
            p = check_readable(path)
            try:
                self._fh = open(p, "rb")
            except OSError as exc:
                raise InputError(f"cannot read: {exc.strerror or exc}", p) from None

    def __enter__(self) -> TextLines:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()

    def __iter__(self) -> Iterator[str]:
        if self._fh is None:
            yield from iter_lines(read_text(self.path, allow_empty=self.allow_empty))
            return
        name = self.name
        self._fh.seek(0)
        blank, ended = True, True
        for _, raw, line in decoded_lines(self._fh, name):
            ended = raw.endswith(b"\n")
            if blank and line.strip():
                blank = False
            yield line
        if blank and not self.allow_empty:
            raise InputError("file is empty", name)
        if ended:  # what follows the last newline, as iter_lines gives it
            yield ""

    def whole(self) -> str:
        """The whole text at once (:func:`read_text`'s)."""
        if self._fh is None:
            return read_text(self.path, allow_empty=self.allow_empty)
        try:
            self._fh.seek(0)
            data = self._fh.read()
        except OSError as exc:
            raise InputError(f"cannot read: {exc.strerror or exc}", self.name) from None
        return decode_text(data, self.name, allow_empty=self.allow_empty)


def _unnamed_file(what: str):
    """An unnamed temporary file (``O_TMPFILE`` where the system has it, else unlinked at once:
    nothing is left behind however the process ends) in ``TMPDIR``."""
    try:
        return tempfile.TemporaryFile(prefix="semtui-spool-")
    except OSError as exc:
        raise InputError(f"cannot make a temporary file for {what}: {exc.strerror or exc}",
                         tempfile.gettempdir()) from None


def _write_at(fd: int, data, offset: int, what: str) -> int:
    """Write all of ``data`` at ``offset``; the offset after it.  A full disk names TMPDIR."""
    try:
        view = memoryview(data).cast("B")
        while view:
            n = os.pwrite(fd, view, offset)
            offset += n
            view = view[n:]
    except OSError as exc:
        raise InputError(f"cannot write {what} to a temporary file: {exc.strerror or exc}",
                         tempfile.gettempdir()) from None
    return offset


class Spool(Sequence):
    """A list kept on disk: each item appended is pickled to an unnamed temporary file (made
    with ``O_TMPFILE`` where the system has it, else unlinked at once: nothing is left behind
    however the process ends), with its end offset (on disk too: a Spool of any length holds
    at most a block of each in memory).  Read back by index or in order.  For what a run must
    hold whole but uses a part at a time (the clusters of a large release and of its key, the
    report's per-cluster entries on ``--scheduler``).  ``TMPDIR`` says where; a full disk is an
    :class:`InputError`."""

    _BLOCK = 1 << 20
    _ENDS_BLOCK = 1 << 16   # end offsets held before they are written, and read back at once

    def __init__(self, what: str = "spool"):
        import numpy as np

        self.what = what
        self._fh = _unnamed_file(what)
        self._fd = self._fh.fileno()
        try:
            self._ends = DiskArray(np.int64, what)   # each item's end offset, on disk too
        except BaseException:
            self._fh.close()
            raise
        self._ends._BLOCK = self._ENDS_BLOCK
        self._end = 0
        self._pending: list[bytes] = []
        self._pending_size = 0
        self._written = 0

    def append(self, item) -> None:
        import pickle

        data = pickle.dumps(item, protocol=5)
        self._pending.append(data)
        self._pending_size += len(data)
        self._end += len(data)
        self._ends.append(self._end)
        if self._pending_size >= self._BLOCK:
            self._flush()

    def extend(self, items) -> None:
        for item in items:
            self.append(item)

    def _flush(self) -> None:
        if not self._pending:
            return
        data = b"".join(self._pending)
        self._pending, self._pending_size = [], 0
        self._written = _write_at(self._fd, data, self._written, self.what)

    def __len__(self) -> int:
        return len(self._ends)

    def _span(self, i: int) -> tuple[int, int]:
        if not i:
            return 0, int(self._ends.read(0, 1)[0])
        start, end = self._ends.read(i - 1, i + 1).tolist()
        return start, end

    def __getitem__(self, i):
        import pickle

        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        n = len(self._ends)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(i)
        self._flush()
        start, end = self._span(i)
        return pickle.loads(os.pread(self._fd, end - start, start))

    def __iter__(self):
        import pickle

        self._flush()
        n, i, start = len(self._ends), 0, 0
        while i < n:
            ends = self._ends.read(i, min(n, i + self._ENDS_BLOCK)).tolist()   # the next items' end offsets
            k = 0
            while k < len(ends):
                j = k  # the items that fit in a block (at least one)
                while j < len(ends) and (j == k or ends[j] - start <= self._BLOCK):
                    j += 1
                block = os.pread(self._fd, ends[j - 1] - start, start)
                a = start
                for b in ends[k:j]:
                    yield pickle.loads(block[a - start:b - start])
                    a = b
                start, k = ends[j - 1], j
            i += len(ends)

    def close(self) -> None:
        self._fh.close()
        self._ends.close()

    def __reduce__(self):
        raise TypeError(f"a Spool ({self.what}) stays on the machine that made it: ship its items, not it")


class DiskArray:
    """A numpy array of one type (integers, or float64 figures) kept on disk as it grows (an
    unnamed temporary file, as :class:`Spool`'s; at most a block of items held before it is
    written), then read back memory-mapped (:meth:`view`) or a span at a time (:meth:`read`):
    what a large original's sparse matrix is made of on ``--scheduler``, so that the driver's
    memory holds only the pages in use.  Those pages are the page cache's, which the kernel can
    take back; :func:`drop_pages` lets them go at once."""

    _BLOCK = 1 << 20  # items held before they are written

    def __init__(self, dtype, what: str = "an array"):
        from array import array

        import numpy as np

        self.dtype = np.dtype(dtype)
        self.what = what
        self._pending = array(self.dtype.char)
        if self._pending.itemsize != self.dtype.itemsize:
            raise TypeError(f"no array.array type for {self.dtype}")
        self._fh = _unnamed_file(what)
        self._written = 0   # bytes
        self._view = None

    def append(self, value: int) -> None:
        self._pending.append(value)
        if len(self._pending) >= self._BLOCK:
            self._flush()

    def extend(self, values) -> None:
        """Append ``values`` (a sequence of ints, or an array of this type)."""
        import numpy as np

        if isinstance(values, np.ndarray):
            self._pending.frombytes(np.ascontiguousarray(values, dtype=self.dtype).tobytes())
        else:
            self._pending.extend(values)
        if len(self._pending) >= self._BLOCK:
            self._flush()

    def _flush(self) -> None:
        from array import array

        if self._view is not None:
            raise ValueError(f"{self.what}: appended to after it was read")
        if self._pending:
            self._written = _write_at(self._fh.fileno(), self._pending, self._written, self.what)
            self._pending = array(self.dtype.char)

    def __len__(self) -> int:
        return self._written // self.dtype.itemsize + len(self._pending)

    def view(self):
        """The whole array, read-only, over the file's pages (no more appends after this)."""
        import mmap

        import numpy as np

        if self._view is None:
            self._flush()
            if not self._written:
                self._view = np.zeros(0, dtype=self.dtype)
            else:
                mapped = mmap.mmap(self._fh.fileno(), self._written, access=mmap.ACCESS_READ)
                self._view = np.frombuffer(mapped, dtype=self.dtype)
            self._view.flags.writeable = False
        return self._view

    def read(self, start: int, stop: int):
        """Items ``start:stop`` (as far as there are) as an array in memory, read from the file
        (not mapped: no page of the file stays in this process) and from the block not written
        yet; appending may go on after."""
        import numpy as np

        size = self.dtype.itemsize
        written = self._written // size
        stop = min(max(stop, start), len(self))
        lo, hi = min(start, written), min(stop, written)
        buf = bytearray((hi - lo) * size)
        view, offset = memoryview(buf), lo * size
        while view:
            got = os.preadv(self._fh.fileno(), [view], offset)
            if not got:
                raise InputError(f"{self.what}: its temporary file ended early", tempfile.gettempdir())
            offset += got
            view = view[got:]
        out = np.frombuffer(buf, dtype=self.dtype)
        if stop > written:   # the rest still in the block not written
            out = np.concatenate([out, np.frombuffer(self._pending, dtype=self.dtype)[max(start, written) - written:
                                                                                      stop - written]])
        return out

    def astype(self, dtype, what: str | None = None) -> DiskArray:
        """A copy of this array in another integer type, converted a block at a time."""
        out = DiskArray(dtype, what or self.what)
        v = self.view()
        for start in range(0, len(v), self._BLOCK):
            out.extend(v[start:start + self._BLOCK])
            drop_pages(v)
        return out

    def close(self) -> None:
        """Let its file go (read no more after)."""
        self._view = None
        self._fh.close()

    def __reduce__(self):
        raise TypeError(f"a DiskArray ({self.what}) stays on the machine that made it: ship its values, not it")


def drop_pages(*arrays) -> None:
    """Let the pages of memory-mapped arrays (:meth:`DiskArray.view`, or a sparse matrix made
    of them) go from this process's memory; they are read back from the file when next used.
    Arrays in memory are left alone.  For a pass over a large original a block at a time."""
    import mmap

    for a in arrays:
        if hasattr(a, "indptr"):  # a scipy CSR/CSC matrix
            drop_pages(a.indptr, a.indices, a.data)
            continue
        base = a
        while getattr(base, "base", None) is not None:
            base = base.base
        if isinstance(base, memoryview):
            base = base.obj
        if isinstance(base, mmap.mmap) and not base.closed:
            base.madvise(mmap.MADV_DONTNEED)


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


def private_folder(path: str | Path, *, tighten: bool = True) -> Path:
    """A folder of semtui's own that holds private data (the score cache): made 0700 if absent,
    and, with ``tighten``, an existing one is brought down to 0700 (a folder someone else named
    for us, ``SEMTUI_CACHE_DIR``, is left as it is: it may be shared, like /tmp)."""
    p = Path(path)
    p.mkdir(mode=0o700, parents=True, exist_ok=True)
    if tighten and stat.S_IMODE(p.stat().st_mode) & 0o077:
        os.chmod(p, 0o700)
    return p


@contextlib.contextmanager
def scratch_files(files: Sequence[tuple[str, str]]) -> Iterator[Path]:
    """A private temporary folder (0700) holding ``files`` (name, text), removed with everything
    in it on exit: for an engine step that must hand code reading files a path (an experiment
    cell's unmarked release and its sidecar, for the unmarked attack), never an output."""
    import shutil

    folder = Path(tempfile.mkdtemp(prefix="semtui-scratch-"))
    try:
        for name, text in files:
            (folder / name).write_text(text, encoding="utf-8")
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


class ScratchFolder:
    """A private temporary folder (0700) that a run's helpers write into (a local Dask
    cluster's workers: their spill and lock files), removed with everything in it by
    :meth:`close` -- on the way out of an interrupted run too, where the helpers themselves
    are killed before they could clean up."""

    def __init__(self, prefix: str = "semtui-scratch-"):
        self.path = Path(tempfile.mkdtemp(prefix=prefix))
        _SCRATCH.add(self.path)

    def close(self) -> None:
        # removed now, and again as the process leaves (remove_process_scratch): a helper still
        # starting when a signal landed may write into it in between
        _remove_tree(self.path)


#: the scratch folders not yet removed (:func:`remove_process_scratch` removes them)
_SCRATCH: set[Path] = set()


def _remove_tree(folder: Path, attempts: int = 20) -> None:
    """Remove a folder whose writers may still be going away (a killed worker's files vanish
    and appear under rmtree): again, briefly, until it is gone."""
    import shutil
    import time

    for _ in range(attempts):
        shutil.rmtree(folder, ignore_errors=True)
        if not os.path.lexists(folder):
            return
        time.sleep(0.05)


def remove_process_scratch(*others: str | Path) -> None:
    """Remove what this process made in the temporary folder and has not removed yet: its
    scratch folders and ``others`` (the folder multiprocessing made for the fork server's
    socket, :func:`semtui.runtime.executor.process_folder`) -- for a process that leaves with
    ``os._exit``, where their owners' exit handlers do not run."""
    for folder in [*_SCRATCH, *map(Path, others)]:
        _remove_tree(folder)
        _SCRATCH.discard(folder)


def private_file(path: str | Path) -> Path:
    """A file semtui updates in place (an SQLite database) that holds private data: created
    empty with 0600 if absent, brought down to 0600 if it is more open.  Not an output (those go
    through :func:`write_together`), so it is never renamed."""
    p = Path(path)
    fd = os.open(p, os.O_RDONLY | os.O_CREAT, 0o600)
    try:
        if stat.S_IMODE(os.fstat(fd).st_mode) & 0o077:
            os.fchmod(fd, 0o600)
    finally:
        os.close(fd)
    return p


#: Outputs committed in this process (for the line an interrupt prints, docs/cli.md)
_committed: list[str] = []
#: The option whose output goes to standard output in this run (None: stdout is free for the
#: command's own printing)
_stdout_output: list[str] = []


def committed() -> list[str]:
    """The outputs renamed into place (or sent to stdout) so far in this process."""
    return list(_committed)


def stdout_output() -> str | None:
    """The option whose output claimed standard output (``-o -``), or None."""
    return _stdout_output[-1] if _stdout_output else None


def reset() -> None:
    """Forget the outputs of an earlier command (a new command starts in this process)."""
    _committed.clear()
    _stdout_output.clear()


class PendingOutput:
    """One output being written: a temporary file beside the (symlink-resolved) target; the
    target itself when it is a device or a FIFO; a private temporary file copied to standard
    output on commit when the target is ``-``."""

    def __init__(self, path: str | Path, mode: str, encoding: str | None, private: bool):
        self.target = Path(path)
        self.tmp: str | None = None
        self.stdout = is_stdout(path)
        text_kw = {} if "b" in mode else {"encoding": encoding, "newline": "\n"}
        if self.stdout:
            self.target = Path(STDOUT_NAME)
            try:  # mkstemp makes it 0600: what goes to stdout may be private
                fd, self.tmp = tempfile.mkstemp(prefix=".semtui-stdout.", suffix=".tmp")
            except OSError as exc:
                raise write_error(exc, tempfile.gettempdir()) from None
            self._open_tmp(fd, mode, text_kw, None)
            return
        try:
            st = os.stat(self.target)  # follows symbolic links
        except FileNotFoundError:
            st = None
        except OSError as exc:
            raise write_error(exc, self.target) from None
        if st is not None and stat.S_ISDIR(st.st_mode):
            raise InputError("is a directory, not a file", self.target)
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
        self._open_tmp(fd, mode, text_kw, stat.S_IMODE(st.st_mode) if st is not None else _new_mode(private))

    def _open_tmp(self, fd: int, mode: str, text_kw: dict, chmod: int | None) -> None:
        try:
            if chmod is not None:
                os.fchmod(fd, chmod)
            self.fh = os.fdopen(fd, mode, **text_kw)
        except BaseException:
            os.close(fd)
            self.abort()
            raise

    def finish(self) -> None:
        """Flush and close; the data is on disk (a temporary file) or sent (a device)."""
        try:
            self.fh.flush()
            if self.tmp is not None and not self.stdout:
                os.fsync(self.fh.fileno())
            self.fh.close()
        except OSError as exc:
            with contextlib.suppress(OSError):
                self.fh.close()
            raise write_error(exc, self.target) from None

    def commit(self) -> None:
        """Rename the temporary file into place (or send it to standard output)."""
        if self.stdout:
            if self.tmp is not None:
                _copy_to_stdout(self.tmp)
                self.abort()  # removes the temporary file
                _committed.append(STDOUT_NAME)
            return
        if self.tmp is not None:
            try:
                os.replace(self.tmp, self.final)
            except OSError as exc:
                raise write_error(exc, self.target) from None
            self.tmp = None
        _committed.append(str(self.target))

    def abort(self) -> None:
        fh = getattr(self, "fh", None)
        if fh is not None:
            with contextlib.suppress(OSError, ValueError):
                fh.close()
        if self.tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(self.tmp)
            self.tmp = None


#: How standard output is named in messages.
STDOUT_NAME = "<stdout>"


def _copy_to_stdout(path: str) -> None:
    """Send a finished temporary file to standard output, in chunks (memory stays bounded).
    A reader that went away raises BrokenPipeError (the CLI's 141); any other failure (stdout
    redirected to a full disk) is an InputError naming standard output."""
    out = sys.stdout
    buf = getattr(out, "buffer", None)
    try:
        out.flush()
        if buf is None:  # a text-only stdout (an embedding program's): send text
            with open(path, encoding="utf-8", newline="") as src:
                while chunk := src.read(1 << 20):
                    out.write(chunk)
            out.flush()
            return
        with open(path, "rb") as src:
            while chunk := src.read(1 << 20):
                view = memoryview(chunk)
                while view:  # an unbuffered stdout may take part of a chunk
                    n = buf.write(view)
                    view = view[n if n is not None else 0:]
        buf.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise write_error(exc, STDOUT_NAME) from None


def discard_stdout() -> None:
    """Point standard output at the null device, so that nothing written to it later (the
    interpreter's last flush) fails: its reader went away."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


_STOP = {signal.SIGINT, signal.SIGTERM}


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Hold SIGINT and SIGTERM while outputs are renamed into place, so that an interrupt
    cannot fall between two renames of one commit.  An interrupt that came before the commit
    (while the last output was flushed) stops it: every target stays as it was."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, _STOP)
    try:
        if any(signal.getsignal(s) != signal.SIG_IGN for s in signal.sigpending() & _STOP):
            raise KeyboardInterrupt  # the handler, run at the unblock, says which signal
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _commit_all(pending: list[PendingOutput]) -> None:
    """Rename every file into place with the signals held, then send what goes to standard
    output (a slow reader must not hold off Ctrl-C)."""
    with _signals_held():
        for p in pending:
            if not p.stdout:
                p.commit()
    for p in pending:
        if p.stdout:
            p.commit()


@contextlib.contextmanager
def atomic_writer(path: str | Path, mode: str = "w", encoding: str | None = "utf-8", *,
                  private: bool = False) -> Iterator[IO]:
    """Open a temporary file beside ``path``; rename it over ``path`` only on success.

    On any exception (KeyboardInterrupt included) the temporary file is removed and the
    target is left as it was.  See the module docstring for devices, symlinks, ``-`` and modes.
    """
    pending = PendingOutput(path, mode, encoding, private)
    try:
        try:
            yield pending.fh
        except OSError as exc:
            raise write_error(exc, pending.target) from None
        pending.finish()
        _commit_all([pending])
    except BaseException:
        pending.abort()
        raise


@contextlib.contextmanager
def output_path(path: str | Path, *, private: bool = False, what: str = "this output") -> Iterator[str]:
    """For a writer that needs a path rather than a file handle (SQLite builds a database
    in place): the path of an empty temporary file beside the target (in the temporary
    folder for ``-``), committed like every output once the block ends without an error.
    A device or a FIFO cannot hold such a file and is refused."""
    if not is_stdout(path):
        try:
            st = os.stat(path)
        except OSError:
            st = None
        if st is not None and not stat.S_ISREG(st.st_mode) and not stat.S_ISDIR(st.st_mode):
            raise InputError(f"{what} must be a regular file, not a device or a pipe", path)
    pending = PendingOutput(path, "wb", None, private)
    try:
        pending.fh.close()
        yield pending.tmp
        _commit_all([pending])
    except BaseException:
        pending.abort()
        raise


def _named(outputs) -> list[tuple[str | None, Path]]:
    items = outputs.items() if isinstance(outputs, Mapping) else ((None, o) for o in outputs)
    return [(name, Path(o)) for name, o in items if o is not None]


def check_inputs(inputs: Mapping[str, str | Path | Sequence[str | Path] | None] | Sequence[str | Path | None]) -> None:
    """Refuse, before anything is read, standard input (``-``) given for more than one input:
    a stream can be read once, and the second reader would get the first one's bytes.

    ``inputs`` maps each input's name (``"DATA"``, ``"--original"``) to its path (or a list of
    paths), or lists the paths.  Every command that reads several inputs calls this (through
    :func:`check_outputs` where it writes too)."""
    items = inputs.items() if isinstance(inputs, Mapping) else ((None, i) for i in inputs)
    readers: list[str | None] = []
    for name, value in items:
        for path in (value if isinstance(value, (list, tuple)) else [value]):
            if path is not None and is_stdin(path):
                readers.append(name)
    if len(readers) < 2:
        return
    names = list(dict.fromkeys(r for r in readers if r))
    who = " and ".join(names) if len(names) == len(readers) else f"{len(readers)} inputs"
    raise InputError(f"standard input ('-') is given for {who}: it can be read only once; give all but one "
                     "of them a file name")


def check_outputs(outputs: Mapping[str, str | Path | None] | list[str | Path | None],
                  inputs: Mapping[str, str | Path | Sequence[str | Path] | None] | Sequence[str | Path | None], *,
                  stdout_taken: str | None = None) -> None:
    """Refuse, before any work is done, outputs that would overwrite an input, two outputs
    that are the same file, and outputs whose folder is missing or not writable.

    ``outputs`` maps each output's option (``"-o"``, ``"--report"``) to its path, or lists the
    paths.  ``-`` is standard output: at most one output may go there, and not when
    ``stdout_taken`` names an option that prints there already (``"--json"``).  The output
    that goes there is remembered (:func:`stdout_output`): the command then prints its
    summary on stderr.  ``inputs`` as :func:`check_inputs` takes them (which it calls).
    """
    check_inputs(inputs)
    if isinstance(inputs, Mapping):
        inputs = [p for v in inputs.values() for p in (v if isinstance(v, (list, tuple)) else [v])]
    named = _named(outputs)
    to_stdout = [name or "an output" for name, o in named if is_stdout(o)]
    if len(to_stdout) > 1:
        raise InputError(f"{' and '.join(to_stdout)} both write to standard output ('-'): give all but one "
                         "of them a file name")
    if to_stdout and stdout_taken:
        raise InputError(f"{to_stdout[0]} - writes to standard output, where {stdout_taken} prints too: "
                         f"give {to_stdout[0]} a file name or drop {stdout_taken}")
    ins = [Path(i) for i in inputs if i is not None and not is_stdin(i)]
    seen: dict[Path, Path] = {}
    for _, out in named:
        if is_stdout(out):
            continue
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
    if to_stdout:
        _stdout_output.append(to_stdout[0])


@contextlib.contextmanager
def _together() -> Iterator[list[PendingOutput]]:
    """The outputs of one command, as they are opened: renamed into place together when the
    block ends without an error; on any error or interrupt every temporary file is removed and
    every target left as it was."""
    pending: list[PendingOutput] = []
    try:
        yield pending
        for p in pending:
            p.finish()
        _commit_all(pending)
    except BaseException:
        for p in pending:
            p.abort()
        raise


def _open_pending(pending: list[PendingOutput], *args) -> None:
    """Open one more output of a command and list it, with SIGINT and SIGTERM held: an
    interrupt between its temporary file's creation and its listing would leave that file
    behind (the listed ones are removed on the way out)."""
    with _signals_held():
        pending.append(PendingOutput(*args))


@contextlib.contextmanager
def writing_together(outputs: list, *, private: bool = False) -> Iterator[list[IO]]:
    """Open every output of one command at once (for a writer that streams into several of
    them side by side) and rename them into place together when the block ends without an
    error, as :func:`write_together` does.  An item is ``path`` or ``(path, private)``."""
    with _together() as pending:
        for item in outputs:
            path, priv = (item, private) if isinstance(item, str | Path) else item
            _open_pending(pending, path, "w", "utf-8", bool(priv))
        try:
            yield [p.fh for p in pending]
        except OSError as exc:
            raise write_error(exc, pending[-1].target if pending else "<output>") from None


def write_together(outputs: list, *, private: bool = False) -> None:
    """Write every output of one command, each to its temporary file, and rename them into
    place only once all are written: an error or an interrupt leaves every target as it was.
    An output to standard output (``-``) is sent last, once the files are in place.

    An item is ``(path, write)``, ``(path, write, private)`` or ``(path, write, private,
    mode)``: ``write`` is called with the open file handle; ``private`` (default for all
    items) makes a new file 0600; ``mode`` is ``"w"`` (text, UTF-8, the default) or ``"wb"``.
    """
    with _together() as pending:
        for item in outputs:
            path, write = item[0], item[1]
            priv = item[2] if len(item) > 2 else private
            mode = item[3] if len(item) > 3 else "w"
            _open_pending(pending, path, mode, None if "b" in mode else "utf-8", bool(priv))
            try:
                write(pending[-1].fh)
            except OSError as exc:
                raise write_error(exc, pending[-1].target) from None


def append_line(path: str | Path, line: str, *, private: bool = False) -> None:
    """Append one line (a newline is added) to ``path``, creating it (0600 when ``private``).

    The line goes in one ``write`` of the whole line with SIGINT and SIGTERM held, then
    ``fsync``: an interrupt lands before the line or after it, never inside, so the file only
    ever holds whole lines (``semtui experiment``'s RESULTS.jsonl, resumed from them).  A
    line is never split across writes unless the disk is full (then an InputError)."""
    data = (line.rstrip("\n") + "\n").encode("utf-8")
    target = Path(path)
    if target.is_dir():
        raise InputError("is a directory, not a file", target)
    with _signals_held():
        try:
            fd = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT, _new_mode(private))
        except OSError as exc:
            raise write_error(exc, target) from None
        try:
            view = memoryview(data)
            while view:  # a regular file takes it in one write; a full disk may take part
                n = os.write(fd, view)
                view = view[n:]
            os.fsync(fd)
        except OSError as exc:
            raise write_error(exc, target) from None
        finally:
            os.close(fd)
