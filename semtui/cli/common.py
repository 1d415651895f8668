"""Helpers every command shares: JSON on stdout, messages and progress on stderr."""

from __future__ import annotations

import os
import sys
import time
from typing import Any

import typer

from semtui.cli import exitcodes
from semtui.errors import InputError


def emit_json(obj: Any) -> None:
    """Write one JSON document to stdout, rendered as every semtui document is."""
    from semtui.reports import dump

    try:
        dump(obj, sys.stdout)  # (a part kept on disk written an item at a time)
        sys.stdout.flush()
    except BrokenPipeError:
        stdout_closed()


def stdout_closed() -> None:
    """The reader of stdout went away (``semtui ... | head``): stop quietly, as SIGPIPE would."""
    from semtui.fileio import discard_stdout

    discard_stdout()
    raise SystemExit(exitcodes.BROKEN_PIPE)


def buffered_stdout() -> None:
    """Make sure standard output is buffered.  With ``PYTHONUNBUFFERED`` (``python -u``, set in
    many containers) Python's stdout writes straight to the file descriptor and drops what a
    partial write leaves over: a reader that goes away mid-table (``semtui score … | head -c
    10``) is then never noticed and the command exits 0.  A buffered writer retries the rest
    and meets the closed pipe (141).  Line buffering keeps ``-u``'s promptness."""
    import io

    out = sys.stdout
    raw = getattr(out, "buffer", None)
    if not isinstance(raw, io.RawIOBase):
        return
    try:
        out.flush()
        fd = out.fileno()
    except (OSError, ValueError):
        return
    sys.stdout = io.TextIOWrapper(io.BufferedWriter(io.FileIO(fd, "w", closefd=False)), encoding=out.encoding,
                                  errors=out.errors, line_buffering=True)


def stdout_free() -> bool:
    """Whether stdout is the command's own (False: an output was sent there with ``-o -``;
    the summary then goes to stderr)."""
    from semtui.fileio import stdout_output

    return stdout_output() is None


def echo(text: str) -> None:
    """A command's human summary: on stdout, or on stderr when stdout carries an output."""
    typer.echo(text, err=not stdout_free())


def write_outputs(outputs: list[tuple], *, private: bool = False) -> None:
    """Commit every output of a command together (semtui.fileio, the one writer); an item is
    ``(path, content)`` or ``(path, content, private)``, content a JSON document (dict or
    Report) or a function that writes to a file handle; a path ``-`` is standard output.
    ``private``: the output holds original data, so a new file is made 0600 (an existing file
    keeps its mode); the keyword is the default for every item."""
    from semtui import reports
    from semtui.fileio import write_together

    def writer(content):
        if callable(content):
            return content
        if isinstance(content, reports.Report):  # typed: its document, made once
            content = content.to_json()
        if reports.streamed(content):  # a part kept on disk: rendered as it is written (all or nothing still)
            return lambda fh: reports.dump(content, fh)
        text = reports.dumps(content)  # rendered before any file is touched
        return lambda fh: fh.write(text + "\n")

    write_together([(item[0], writer(item[1]), item[2] if len(item) > 2 else private)
                    for item in outputs])


def default_sidecar(out, option: str):
    """A second output's default name, ``OUT.json``; standard output has no name to extend, and a
    device or FIFO (``-o /dev/null``) none to put a file beside: ``/dev/null.json`` would be a
    real file in /dev."""
    import os
    import stat
    from pathlib import Path

    from semtui.fileio import is_stdout

    if is_stdout(out):
        raise InputError(f"-o - writes to standard output: give {option} FILE (its default, OUT.json, needs a "
                         "file name)")
    try:
        special = not stat.S_ISREG(os.stat(out).st_mode)
    except OSError:   # not there yet (or not reachable: writing it says why)
        special = False
    if special:
        raise InputError(f"-o {out} is not a regular file: give {option} FILE (its default, OUT.json, would be made "
                         "beside it)")
    return Path(str(out) + ".json")


def flag(option: str) -> str:
    """How the CLI words an engine option: ``--threshold``."""
    return "--" + option.replace("_", "-")


def options_error(exc: InputError) -> InputError:
    """An engine error about an option, worded with the CLI's flag name."""
    if exc.option is None or exc.message.startswith(flag(exc.option)):
        return exc
    return InputError(f"{flag(exc.option)}: {exc.message}", exc.path, exc.line)


#: longest message a warning prints, and longest item name within one
_WARN_MAX = 2000
_NAME_MAX = 60


def short(name: str, limit: int = _NAME_MAX) -> str:
    """An item name as a message shows it: at most ``limit`` characters, on one line."""
    name = " ".join(str(name).split())
    return name if len(name) <= limit else name[: limit - 1] + "…"


def names(items, limit: int = 5) -> str:
    """A few item names, abbreviated, for a one-line message: ``a, b, c (+4 more)``."""
    items = list(items)
    shown = ", ".join(short(i) for i in items[:limit])
    return shown + (f" (+{len(items) - limit} more)" if len(items) > limit else "")


def warn(message: str) -> None:
    """One line on stderr, however long the names in it."""
    line = " ".join(message.split("\n"))
    if len(line) > _WARN_MAX:
        line = line[: _WARN_MAX - 1] + "…"
    try:
        sys.stderr.write(f"semtui: {line}\n")
    except (OSError, ValueError):
        pass


#: the help of every command's ``--scheduler`` (one wording: semtui.runtime.cluster, semtui.runtime.scheduler)
SCHEDULER_HELP = ("Run the independent units on a Dask cluster: local:N (N worker processes here) or "
                  "tcp://HOST:PORT (a running scheduler); needs semtui[dask]. Same result as without.")


def source_kind(*, lines: bool = False, transactions: bool = False, jsonl: bool = False, smart: bool = False,
                separator: str | None = None, split: str | None = None, field: str | None = None) -> str:
    """The document-source kind the options of ``corpus build|count`` and ``extract`` choose (one
    at most; ``auto`` when none), as semtui.formats.documents reads them."""
    from semtui.errors import InputError

    chosen = [k for k, on in (("lines", lines), ("transactions", transactions), ("jsonl", jsonl),
                              ("smart", smart), ("separator", separator is not None), ("split", split is not None))
              if on]
    if len(chosen) > 1:
        raise InputError(f"choose one of --{', --'.join(chosen)}")
    kind = chosen[0] if chosen else "auto"
    if field is not None and kind not in ("auto", "jsonl"):
        raise InputError(f"--field only applies to JSON Lines sources, not with --{kind}")
    return kind


def _capped_note(option: str, asked: str, got: str) -> str:
    """The one wording of a request beyond the cores (``--jobs``, ``--scheduler local:N``)."""
    return f"note: {option} {asked} capped to {got}, the cores available"


def note_jobs(jobs: int) -> None:
    """``--jobs`` beyond the cores runs on the cores (the executor caps it): say so in one line."""
    from semtui.runtime.executor import available_cores, capped_jobs

    if capped_jobs(jobs) < jobs:
        warn(_capped_note("--jobs", str(jobs), str(available_cores())))


def note_scheduler(spec: str | None) -> str | None:
    """``--scheduler`` checked (an address no scheduler can have is refused at once, in one
    line) and returned; a ``local:N`` beyond the cores starts one worker a core
    (semtui.runtime.cluster.local_workers), and the cluster, as it starts, says so once in
    the words of ``--jobs``'s note.  Called for every command that takes ``--scheduler``
    (semtui.cli.main) before it runs."""
    from semtui.runtime import cluster

    spec = cluster.check_scheduler(spec)
    if spec is not None:
        cluster.capped_hook = lambda asked, got: warn(_capped_note("--scheduler", f"local:{asked}", f"local:{got}"))
    return spec


def watch_cache() -> None:
    """Print, once, why the score cache cannot be used (a corrupt file, no permission)."""
    from semtui.measures import cache

    cache.problem_hook = warn


#: ``--color``: auto (colour on a terminal, unless NO_COLOR is set), always or never
_COLOR = {"mode": "auto"}


def set_color(mode: str) -> None:
    if mode not in ("auto", "always", "never"):
        raise InputError(f"--color: choose auto, always or never (got {mode!r})")
    _COLOR["mode"] = mode


def use_color() -> bool:
    mode = _COLOR["mode"]
    if mode != "auto":
        return mode == "always"
    return "NO_COLOR" not in os.environ


def stdout_console():
    """A rich Console on stdout honouring ``--color`` and NO_COLOR (on stderr when stdout
    carries an output, ``-o -``).  When it is not a terminal, lines are not wrapped at 80
    columns: tables keep their full width."""
    from rich.console import Console

    kw: dict = {}
    stream = sys.stdout if stdout_free() else sys.stderr
    if not stdout_free():
        kw["stderr"] = True
    if _COLOR["mode"] == "always":
        kw["force_terminal"] = True
    if not stream.isatty():
        kw["width"] = 100_000
    return Console(no_color=not use_color(), highlight=False, **kw)


def count_column():
    """``done/total`` while the total is known, ``done`` alone until then (never ``/None``)."""
    from rich.progress import ProgressColumn
    from rich.text import Text

    class CountColumn(ProgressColumn):
        def render(self, task) -> Text:
            done = int(task.completed)
            return Text(f"{done}/{int(task.total)}" if task.total is not None else f"{done}")

    return CountColumn()


#: A test hook (docs/architecture.md, Tests): the first progress point, in the main thread, whose
#: text ("LABEL DONE/TOTAL MESSAGE", e.g. "attack rba 1/11 attacking") the regular expression
#: $SEMTUI_TEST_PAUSE finds makes the directory $SEMTUI_TEST_PAUSED (when set) and waits there
#: while it exists, at most PAUSE_LIMIT seconds: a test signals the run at a point it chose, on a
#: small input, rather than after a delay on an input made large enough to be still running.
PAUSE_ENV, PAUSED_ENV = "SEMTUI_TEST_PAUSE", "SEMTUI_TEST_PAUSED"
PAUSE_LIMIT = 60.0
_paused = False


def _test_pause(point: str) -> None:
    global _paused
    import re
    import threading

    if _paused or threading.current_thread() is not threading.main_thread() \
            or not re.search(os.environ[PAUSE_ENV], point):
        return
    _paused = True
    marker = os.environ.get(PAUSED_ENV)
    if marker:
        os.mkdir(marker)  # a directory: no file is written, so no output is committed
    deadline = time.monotonic() + PAUSE_LIMIT
    while time.monotonic() < deadline and (not marker or os.path.isdir(marker)):
        time.sleep(0.01)  # a signal's handler raises here, inside the run's progress callback


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
                count_column(),
                TimeRemainingColumn(),
                console=Console(stderr=True, no_color=not use_color()),
                transient=True,
            )
            self._progress.start()
            self._task = self._progress.add_task(self.label, total=None)
        return self

    def __call__(self, done: int, total: int, message: str = "") -> None:
        if PAUSE_ENV in os.environ:
            _test_pause(f"{self.label} {done}/{total} {message}".strip())
        if self._progress is None:
            return
        now = time.monotonic()
        if now - self._last < 0.05 and done < total:
            return
        self._last = now
        from rich.markup import escape

        # a message is text, not markup: "[alternative 1/3]" or an item named "[x]" is shown as written
        self._progress.update(self._task, completed=done, total=total or None,
                              description=escape(f"{self.label} {message}".strip()))

    def __exit__(self, *exc) -> None:
        if self._progress is not None:
            self._progress.stop()
