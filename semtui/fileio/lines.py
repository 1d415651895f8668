"""Text read a line at a time: a large regular file is never held whole in memory; bad bytes
are :class:`InputError` naming the line (as :func:`semtui.fileio.reading.decode_text` words it)."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from semtui.errors import InputError
from semtui.fileio.reading import check_readable, decode_text, display_name, on_disk, read_text


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


def decoded_lines(fh: IO[bytes], name: str, start: int = 1) -> Iterator[tuple[int, bytes, str]]:
    """``(line number, raw bytes, the line decoded without its newline)`` for every line of
    an open binary file: a byte-order mark dropped, a NUL byte or bad UTF-8 an InputError
    naming the line (as :func:`decode_text` words it), a failed read one naming the file.
    ``start``: the number of its first line (the file read from a later line on)."""
    try:
        for lineno, raw in enumerate(fh, start=start):
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


#: bytes decoded at once by :class:`TextLines` (cut after a newline: never inside a character)
BLOCK = 1 << 20


def _blocks(fh: IO[bytes], name: str) -> Iterator[str]:
    """The text of an open binary file decoded a block of whole lines at a time (the last block
    may end without a newline), as :func:`decoded_lines` decodes it line by line: a byte-order
    mark dropped; a block with a NUL byte or bad UTF-8 is decoded again line by line, its lines
    before the bad one handed out first and the error naming its line, as :func:`decoded_lines`
    does.  A block is one ``decode`` and one search for NUL, not one of each per line."""
    lineno, first = 1, True
    held: list[bytes] = []   # what follows the last newline read: the start of a line (a long one: many reads)
    try:
        while True:
            chunk = fh.read(BLOCK)
            if chunk:
                cut = chunk.rfind(b"\n") + 1
                if not cut:   # no newline in this read: the line goes on
                    held.append(chunk)
                    continue
                block = b"".join(held + [chunk[:cut]]) if held else chunk[:cut]
                held = [chunk[cut:]] if cut < len(chunk) else []
            else:   # the end: what is left, a last line without its newline
                block, held = b"".join(held), []
                if not block:
                    return
            if first and block.startswith(b"\xef\xbb\xbf"):
                block = block[3:]
            first = False
            try:
                if b"\x00" in block:
                    raise ValueError
                text = block.decode("utf-8")
            except (ValueError, UnicodeDecodeError):
                # line by line: the lines before the bad one are handed out first (a reader may find
                # something wrong in one of them), then the bad one raises, naming its line
                for _, raw, line in decoded_lines(io.BytesIO(block), name, lineno):
                    yield line + "\n" if raw.endswith(b"\n") else line
                raise AssertionError("a block that failed to decode decoded line by line") from None
            yield text
            if not chunk:
                return
            lineno += block.count(b"\n")
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
        for block in _blocks(self._fh, name):
            if blank and block.strip():
                blank = False
            ended = block.endswith("\n")
            lines = block.split("\n")
            if ended:
                lines.pop()   # what follows the block's last newline: nothing
            yield from lines
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
