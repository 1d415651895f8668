"""Writing outputs atomically: the one place semtui writes a command's outputs.

Outputs go to a temporary file in the target's directory and are renamed into place, so an
interrupted run never leaves a half-written file behind; the outputs of one command are
renamed together (:func:`write_together`, :func:`writing_together`).  Around that rule:

* a character device or a FIFO (``/dev/null``, ``/dev/full``, a named pipe) is written to
  directly: there is nothing to rename over;
* a symbolic link is followed, and its target is replaced atomically;
* overwriting keeps the existing file's mode; a new file gets the mode ``open()`` would
  give it (0666 less the umask), or 0600 when it holds original (private) data
  (``private=True``: attack reports with the original, disassociation keys, anonymisation
  sidecars, the TUI's exports of original data, see docs/cli.md);
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
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from semtui.errors import InputError
from semtui.fileio.reading import is_stdout


def write_error(exc: OSError, path: str | Path) -> InputError:
    """An OSError met while writing ``path``, as one line naming it."""
    return InputError(f"cannot write: {exc.strerror or exc}", path)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _new_mode(private: bool) -> int:
    return 0o600 if private else 0o666 & ~_umask()


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


def claim_stdout(option: str) -> None:
    """Remember that ``option``'s output goes to standard output in this run
    (:func:`semtui.fileio.preflight.check_outputs`; :func:`stdout_output` tells it)."""
    _stdout_output.append(option)


class PendingOutput:
    """One output being written: a temporary file beside the (symlink-resolved) target; the
    target itself when it is a device or a FIFO; a private temporary file copied to standard
    output on commit when the target is ``-``."""

    #: one of the command's outputs (False: a cache file semtui keeps for itself)
    output = True

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
        if self.output:
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
                  private: bool = False, cache: bool = False) -> Iterator[IO]:
    """Open a temporary file beside ``path``; rename it over ``path`` only on success.

    ``cache``: a file semtui keeps for itself (beside the score cache), not one of the
    command's outputs: :func:`committed` (what an interrupt says was written) leaves it out.

    On any exception (KeyboardInterrupt included) the temporary file is removed and the
    target is left as it was.  See the module docstring for devices, symlinks, ``-`` and modes.
    """
    pending = None
    try:
        # created inside the block that removes it, an interrupt held until it is (:func:`_creating`)
        with _creating(path):
            pending = PendingOutput(path, mode, encoding, private)
            pending.output = not cache
        try:
            yield pending.fh
        except OSError as exc:
            raise write_error(exc, pending.target) from None
        pending.finish()
        _commit_all([pending])
    except BaseException:
        if pending is not None:
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
    pending = None
    try:
        with _creating(path):   # as atomic_writer's
            pending = PendingOutput(path, "wb", None, private)
        pending.fh.close()
        yield pending.tmp
        _commit_all([pending])
    except BaseException:
        if pending is not None:
            pending.abort()
        raise


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


def _creating(path) -> contextlib.AbstractContextManager:
    """SIGINT and SIGTERM held while an output's temporary file is made and handed to the block
    that removes it on the way out: an interrupt in between would leave the file behind.  Not
    while a device or a FIFO is opened (no temporary file): that open may wait for a reader, and
    Ctrl-C must still end the wait."""
    if not is_stdout(path):
        try:
            st = os.stat(path)
        except OSError:
            st = None
        if st is not None and not stat.S_ISREG(st.st_mode):
            return contextlib.nullcontext()
    return _signals_held()


def _open_pending(pending: list[PendingOutput], *args) -> None:
    """Open one more output of a command and list it (:func:`_creating`: the listed ones are
    removed on the way out)."""
    with _creating(args[0]):
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
        held = _streams.get(str(target))
        try:
            fd = held if held is not None else os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT,
                                                        _new_mode(private))
        except OSError as exc:
            raise write_error(exc, target) from None
        try:
            regular = stat.S_ISREG(os.fstat(fd).st_mode)
            if private and regular and os.fstat(fd).st_mode & 0o077:
                os.fchmod(fd, 0o600)  # private whoever made the file: it now holds original data
            view = memoryview(data)
            while view:  # a regular file takes it in one write; a full disk may take part
                n = os.write(fd, view)
                view = view[n:]
            if regular:  # a device or a FIFO (/dev/null, a pipe) has nothing to sync
                os.fsync(fd)
        except OSError as exc:
            raise write_error(exc, target) from None
        finally:
            if held is None:
                os.close(fd)


@contextlib.contextmanager
def held_for_appending(path: str | Path) -> Iterator[None]:
    """Hold ``path`` for one run that appends to it (:func:`append_line`), so that a second run
    appending to the same file at once is refused (one InputError naming it) instead of writing the
    same lines twice.  An advisory lock (``flock``) on the file, released when the run ends, by
    any exit (a killed run's lock goes with its process); :func:`rehold` takes it again on a file
    replaced meanwhile.  A file made here for it that is still empty at the end is removed again.
    A device or a FIFO is not held: nothing is resumed from it."""
    target = Path(path)
    if target.exists() and not target.is_file():
        # a device or a FIFO is opened once for the whole run (a FIFO's reader sees its end when the
        # last writer closes: opened a line at a time, it would end after the first line)
        try:
            fd = os.open(target, os.O_WRONLY | os.O_APPEND)
        except OSError as exc:
            raise write_error(exc, target) from None
        _streams[str(target)] = fd
        try:
            yield
        finally:
            _streams.pop(str(target), None)
            os.close(fd)
        return
    created = not target.exists()
    try:
        fd = os.open(target, os.O_RDONLY | os.O_CREAT, _new_mode(True))
    except OSError as exc:
        raise write_error(exc, target) from None
    try:
        _lock(fd, target)
    except InputError:
        os.close(fd)
        raise
    _held[str(target)] = fd
    try:
        yield
    finally:
        fd = _held.pop(str(target), fd)
        try:
            st = os.fstat(fd)
            if created and st.st_size == 0 and target.exists() and os.stat(target).st_ino == st.st_ino:
                target.unlink()
        except OSError:
            pass
        finally:
            os.close(fd)


#: the files held by :func:`held_for_appending` in this process, by path: their lock's descriptor
_held: dict[str, int] = {}
#: the devices and FIFOs held by :func:`held_for_appending`, by path: the one descriptor written to
_streams: dict[str, int] = {}


def _lock(fd: int, target: Path) -> None:
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise InputError("another run is appending to it right now (wait for it to end, or give another -o)",
                         target) from None


def rehold(path: str | Path) -> None:
    """Take the lock of :func:`held_for_appending` again on the file now at ``path`` (it was
    replaced atomically: the lock held was on the file it replaced)."""
    target = Path(path)
    old = _held.get(str(target))
    if old is None:
        return
    fd = os.open(target, os.O_RDONLY)
    try:
        _lock(fd, target)
    except InputError:
        os.close(fd)
        raise
    os.close(old)
    _held[str(target)] = fd
