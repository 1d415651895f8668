"""Errors the faces turn into one line on stderr and exit code 2."""

from __future__ import annotations

from pathlib import Path


class InputError(Exception):
    """Bad input: a file that cannot be read, parsed or that breaks a format's rules, or an
    option out of its range.

    ``str()`` gives the one-line message: ``path:line: message``.  ``option`` names the
    operation's option at fault (``"threshold"``) in the engine's vocabulary; each face words
    it itself (the CLI as ``--threshold``, the TUI beside its field).
    """

    def __init__(self, message: str, path: str | Path | None = None, line: int | None = None,
                 *, option: str | None = None):
        self.message = message
        self.path = None if path is None else str(path)
        self.line = line
        self.option = option
        super().__init__(self.__str__())

    def __str__(self) -> str:
        where = ""
        if self.path is not None:
            where = self.path if self.line is None else f"{self.path}:{self.line}"
            where += ": "
        return f"{where}{self.message}"


class Interrupted(Exception):
    """Raised by a progress callback to cancel long work cooperatively."""
