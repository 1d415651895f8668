"""Helpers every command shares: JSON on stdout, messages and progress on stderr."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

from semtui.cli import exitcodes
from semtui.errors import InputError


def emit_json(obj: Any) -> None:
    """Write one JSON document to stdout, rendered as every semtui document is."""
    from semtui.reports import dumps

    text = dumps(obj)
    try:
        sys.stdout.write(text)
        sys.stdout.write("\n")
        sys.stdout.flush()
    except BrokenPipeError:
        stdout_closed()


def stdout_closed() -> None:
    """The reader of stdout went away (``semtui ... | head``): stop quietly, as SIGPIPE would."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    raise SystemExit(exitcodes.BROKEN_PIPE)


def write_outputs(outputs: list[tuple[Path, Any]]) -> None:
    """Commit every output of a command together; an item is a JSON document (dict or Report)
    or a function that writes to a file handle."""
    from semtui import reports
    from semtui.fileio import write_together

    def writer(content):
        if callable(content):
            return content
        text = reports.dumps(content)  # rendered before any file is touched
        return lambda fh: fh.write(text + "\n")

    write_together([(path, writer(content)) for path, content in outputs])


def flag(option: str) -> str:
    """How the CLI words an engine option: ``--threshold``."""
    return "--" + option.replace("_", "-")


def options_error(exc: InputError) -> InputError:
    """An engine error about an option, worded with the CLI's flag name."""
    if exc.option is None or exc.message.startswith(flag(exc.option)):
        return exc
    return InputError(f"{flag(exc.option)}: {exc.message}", exc.path, exc.line)


def warn(message: str) -> None:
    sys.stderr.write(f"semtui: {message}\n")


def use_color() -> bool:
    return "NO_COLOR" not in os.environ


def stdout_console():
    """A rich Console on stdout honouring NO_COLOR."""
    from rich.console import Console

    return Console(no_color=not use_color(), highlight=False)


class StderrProgress:
    """A progress callback drawing a bar on stderr, only when stderr is a terminal."""

    def __init__(self, label: str, enabled: bool | None = None):
        self.label = label
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self._progress = None
        self._task = None
        self._last = 0.0

    def __enter__(self) -> StderrProgress:
        if self.enabled:
            from rich.console import Console
            from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

            self._progress = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                TextColumn("{task.completed}/{task.total}"),
                TimeRemainingColumn(),
                console=Console(stderr=True, no_color=not use_color()),
                transient=True,
            )
            self._progress.start()
            self._task = self._progress.add_task(self.label, total=None)
        return self

    def __call__(self, done: int, total: int, message: str = "") -> None:
        if self._progress is None:
            return
        now = time.monotonic()
        if now - self._last < 0.05 and done < total:
            return
        self._last = now
        self._progress.update(self._task, completed=done, total=total or None,
                              description=f"{self.label} {message}".strip())

    def __exit__(self, *exc) -> None:
        if self._progress is not None:
            self._progress.stop()
