"""Reading input safely and writing output atomically.

Input files are never opened for writing.  Outputs go to a temporary file in the
target's directory and are renamed into place, so an interrupted run never leaves a
half-written file behind.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

from semtui.errors import InputError


def check_readable(path: str | Path) -> Path:
    """Return ``path`` as a Path, or raise InputError for a missing file or a directory."""
    p = Path(path)
    if not p.exists():
        raise InputError("no such file", p)
    if p.is_dir():
        raise InputError("is a directory, not a file", p)
    if not os.access(p, os.R_OK):
        raise InputError("permission denied", p)
    return p


def read_text(path: str | Path, *, allow_empty: bool = False) -> str:
    """Read a whole UTF-8 text file; bad bytes become an InputError naming the line."""
    p = check_readable(path)
    data = p.read_bytes()
    return decode_text(data, p, allow_empty=allow_empty)


def decode_text(data: bytes, path: str | Path, *, allow_empty: bool = False) -> str:
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
    if text.startswith("\ufeff"):
        text = text[1:]
    return text


@contextlib.contextmanager
def atomic_writer(path: str | Path, mode: str = "w", encoding: str | None = "utf-8") -> Iterator[IO]:
    """Open a temporary file beside ``path``; rename it over ``path`` only on success.

    On any exception (KeyboardInterrupt included) the temporary file is removed and the
    target is left as it was.
    """
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    if not directory.is_dir():
        raise InputError("output directory does not exist", directory)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise InputError(f"cannot write here: {exc.strerror}", target) from None
    try:
        # mkstemp creates 0600; give the output the mode an ordinary open() would
        os.fchmod(fd, 0o666 & ~_umask())
        if "b" in mode:
            fh = os.fdopen(fd, mode)
        else:
            fh = os.fdopen(fd, mode, encoding=encoding, newline="\n")
        with fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def check_outputs(outputs: list[str | Path | None], inputs: list[str | Path | None]) -> None:
    """Refuse, before any work is done, outputs that would overwrite an input, two outputs
    that are the same file, and outputs whose folder is missing or not writable."""
    outs = [Path(o) for o in outputs if o is not None]
    ins = [Path(i) for i in inputs if i is not None]
    seen: dict[Path, Path] = {}
    for out in outs:
        real = out.resolve()
        if any(real == src.resolve() for src in ins):
            raise InputError("output would overwrite an input file", out)
        if real in seen:
            raise InputError(f"two outputs are the same file ({seen[real]})", out)
        seen[real] = out
        if out.is_dir():
            raise InputError("is a directory, not a file", out)
        folder = real.parent
        if not folder.is_dir():
            raise InputError("output directory does not exist", out)
        if not os.access(folder, os.W_OK | os.X_OK):
            raise InputError("output directory is not writable", out)



def write_together(outputs: list[tuple[str | Path, Callable[[IO], None]]]) -> None:
    """Write every output of one command, each to its temporary file, and rename them into
    place only once all are written: an error or an interrupt leaves every target as it was."""
    with contextlib.ExitStack() as stack:
        handles = [(stack.enter_context(atomic_writer(path)), write) for path, write in outputs]
        for fh, write in handles:
            write(fh)
