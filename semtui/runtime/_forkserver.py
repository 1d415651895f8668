"""Imported first by multiprocessing's fork server when the executor starts it (its preload;
nothing else imports this module, and it acts only when the executor's marker is in the
environment): the server, and so every worker forked from it, reads and writes ``/dev/null``
instead of semtui's standard streams.  A worker then never holds a pipe of semtui's open, and
nothing a worker prints (a numpy warning, an error while semtui is stopping it) reaches the
user's terminal or the TUI's screen.  ``SEMTUI_DEBUG`` keeps standard error."""

from __future__ import annotations

import os

#: set by the executor while it starts the fork server, and only then
MARKER = "SEMTUI_EXECUTOR_SERVER"


def detach_stdio(keep_stderr: bool = False) -> None:
    """Point fds 0, 1 (and 2 unless ``keep_stderr``) at /dev/null."""
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1) if keep_stderr else (0, 1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)


if os.environ.pop(MARKER, None) == "1":
    detach_stdio(keep_stderr=bool(os.environ.get("SEMTUI_DEBUG")))
