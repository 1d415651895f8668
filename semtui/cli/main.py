"""``semtui``: the command tree.  ``run()`` is the console script.

Each command group lives in its own module under ``semtui/cli``; this module wires
them together and owns the one place where errors, signals and a closed stdout become
exit codes (semtui/cli/exitcodes.py, docs/cli.md).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import warnings
from pathlib import Path

import typer
import typer.main
from typer.core import TyperGroup

from semtui import __version__
from semtui.cli import (
    anonymize,
    assess,
    attack,
    cache,
    check,
    corpus,
    cover,
    exitcodes,
    experiment,
    extract,
    harden,
    hierarchy,
    score,
    stopping,
    table,
)
from semtui.cli.common import (
    PAUSE_ENV,
    _test_pause,
    emit_json,
    note_scheduler,
    options_error,
    set_color,
    stdout_closed,
    stdout_console,
)
from semtui.errors import InputError, Interrupted


class _InWorkOrder(TyperGroup):
    """The commands listed (and their help panels placed) in the order of COMMANDS; Typer
    itself lists single commands before command groups.

    Each command is built the first time it is asked for: a run builds only the command it
    runs. Typer builds a command by reading every parameter's annotation (inspect, typing):
    the whole tree took ~0.1 s of every process's start, more than a small command's work."""

    def list_commands(self, ctx) -> list[str]:
        return [name for name, _, _ in COMMANDS]

    def resolve_command(self, ctx, args: list[str]):
        if args and args[0] not in self.list_commands(ctx):  # a typo: Typer suggests from the built ones
            for name in self.list_commands(ctx):
                self.get_command(ctx, name)
        return super().resolve_command(ctx, args)

    def get_command(self, ctx, cmd_name: str):
        if cmd_name not in self.commands:
            found = next(((what, panel) for name, what, panel in COMMANDS if name == cmd_name), None)
            if found is None:
                return None
            self.add_command(_checked(_built(cmd_name, *found)), cmd_name)
        return self.commands[cmd_name]


app = typer.Typer(
    name="semtui",
    cls=_InWorkOrder,
    help="How much of an anonymised transaction dataset can a semantic attacker take back?\n\n"
         "Anonymise a release, check it, attack it, look at it; the tools behind the measures last.",
    no_args_is_help=False,
    add_completion=True,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)

FormatOpt = typer.Option(None, "--format", "-f", help="plain, setgen, fimi, jsonl or disassociated (default: detect)")


def _version(value: bool) -> None:
    if value:
        typer.echo(f"semtui {__version__}")
        raise typer.Exit(exitcodes.OK)


@app.callback(invoke_without_command=True)
def _root(
    ctx: typer.Context,
    version: bool = typer.Option(False, "--version", is_eager=True, callback=_version,
                                 help="Print semtui's version and exit."),
    color: str = typer.Option("auto", "--color", metavar="auto|always|never",
                              help="Colour on stdout: auto (a terminal without NO_COLOR), always or never."),
) -> None:
    """Without a command, open the TUI on the bundled sample, with its original, attacked."""
    set_color(color)
    if ctx.invoked_subcommand is None:
        from semtui.samples import SAMPLE_ORIGINAL, sample_path

        _open_tui(sample_path(), sample_path(SAMPLE_ORIGINAL), None, None, autorun=True)


def info(
    file: Path = typer.Argument(..., help="A dataset in any supported format ('-' reads standard input)."),
    format: str | None = FormatOpt,
    names: Path | None = typer.Option(None, "--names", help="id->name map for FIMI files"),
    json_out: bool = typer.Option(False, "--json", help="JSON on stdout"),
) -> None:
    """Summarise a dataset: its kind, size, items, lengths, groups or clusters."""
    from semtui.fileio import check_inputs
    from semtui.model.info import dataset_info, fact_text
    from semtui.release import open_release

    check_inputs({"FILE": file, "--names": names})
    release = open_release(file, format=format, names=names)
    facts = dataset_info(release.data, file, sidecar=release.sidecar, sidecar_path=release.sidecar_path)
    if json_out:
        emit_json(facts.to_json())
        return
    facts = facts.payload()
    from rich.table import Table

    table = Table(title=f"{file}", show_header=False, title_justify="left", min_width=len(str(file)))
    table.add_column("fact", style="bold")
    table.add_column("value")
    for key, value in facts.items():
        if key == "file":
            continue
        if isinstance(value, dict):
            value = " / ".join(f"{k} {v}" for k, v in value.items())
        table.add_row(key.replace("_", " "), fact_text(key, value, facts) or str(value))
    stdout_console().print(table)


def open_(
    file: Path | None = typer.Argument(None, help="Dataset to open (default: the bundled sample)."),
    original: Path | None = typer.Option(None, "--original", help="The original data, for evaluation."),
    report: Path | None = typer.Option(None, "--report", help="A JSON report of a headless attack, or an "
                                       "assessment (semtui assess --report)."),
    key: Path | None = typer.Option(None, "--key", help="The private key of a disassociated release."),
    format: str | None = FormatOpt,
    unmarked: bool = typer.Option(False, "--unmarked", help="FILE writes its generalised items as plain items: recover them."),
) -> None:
    """Open the TUI on a dataset, a RESULTS file of semtui experiment, or an assessment (--report A.json)."""
    autorun = False
    from semtui.fileio import check_inputs
    from semtui.tui.documents import sniff

    check_inputs({"FILE": file, "--original": original, "--report": report, "--key": key})
    if (file is not None and sniff(file) == "experiment") or (report is not None and sniff(report) == "assessment") \
            or (file is not None and report is None and sniff(file) == "assessment"):
        _open_document(file, original, report, key)
        return
    if file is None:
        from semtui.samples import SAMPLE_ORIGINAL, sample_path

        file = sample_path()
        if original is None and report is None:
            original, autorun = sample_path(SAMPLE_ORIGINAL), True
    if format is not None:
        from semtui import formats

        formats.assume_format(file, format)
    _open_tui(file, original, report, key, autorun=autorun, unmarked=unmarked)


def measures_(json_out: bool = typer.Option(False, "--json", help="JSON on stdout")) -> None:
    """List the semantic measures, what each needs, and whether it is available here."""
    from semtui.measures import describe_measures

    rows = describe_measures()
    if json_out:
        from semtui.reports import document

        emit_json(document("semtui-measures/1", {"measures": rows}))
        return
    from rich.markup import escape
    from rich.table import Table

    t = Table(show_header=True, header_style="bold")
    for col in ("measure", "kind", "needs", "available"):
        t.add_column(col)
    for r in rows:
        t.add_row(r["spec"], r["kind"], escape(r["needs"]),
                  "yes" if r["available"] else escape(f"no: {r['missing']}"))
    stdout_console().print(t)


def _open_tui(file: Path, original: Path | None, report: Path | None, key: Path | None, *,
              autorun: bool = False, unmarked: bool = False) -> None:
    from semtui.tui.session import load_session

    # bad input first: every file read and checked to belong together (model.belongs); in a
    # terminal a disassociated release's key and original are read once the first screen is up
    # (one that does not belong closes the TUI with the same one line and exit 2)
    interactive = sys.stdin.isatty() and sys.stdout.isatty()
    session = load_session(Path(file), original=original, report=report, key=key, unmarked=unmarked,
                           defer=interactive)
    if not interactive:
        raise InputError("the TUI needs a terminal (standard input and output are not one); "
                         "for scripts use the commands, e.g. 'semtui info FILE' (semtui --help)")
    from semtui.tui.app import run_session

    run_session(session, autorun=autorun)


def _open_document(file: Path | None, original: Path | None, report: Path | None, key: Path | None) -> None:
    from semtui.tui.app import document_screen

    # bad input first, as for a release: the document (and the release given with it) read and checked
    screen = document_screen(file, original=original, report=report, key=key)
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise InputError("the TUI needs a terminal (standard input and output are not one); "
                         "for scripts use the commands, e.g. 'semtui info FILE' (semtui --help)")
    from semtui.tui.app import run_document

    run_document(screen)


# The commands in the order of the work (README): anonymise a release, check it, attack
# it, look at it; the tools behind the measures last.  Each group lives in its own module
# (a missing module is an import error, not a missing command).
ANONYMISE, CHECK, ATTACK, LOOK, TOOLS = "Anonymise", "Check", "Attack", "Look", "Tools"
COMMANDS = [  # (name, a command group's Typer or a command's function, help panel)
    ("extract", extract.extract, ANONYMISE),
    ("anonymize", anonymize.app, ANONYMISE),
    ("harden", harden.harden, ANONYMISE),
    ("check", check.app, CHECK),
    ("attack", attack.app, ATTACK),
    ("assess", assess.assess, ATTACK),
    ("experiment", experiment.app, ATTACK),
    ("cover", cover.cover, ATTACK),
    ("open", open_, LOOK),
    ("info", info, LOOK),
    ("score", score.score, TOOLS),
    ("measures", measures_, TOOLS),
    ("table", table.app, TOOLS),
    ("corpus", corpus.app, TOOLS),
    ("cache", cache.app, TOOLS),
    ("hierarchy", hierarchy.app, TOOLS),
]


def _built(name: str, what, panel: str):
    """The click command of one entry of COMMANDS, built by Typer as the app's would be: added
    to an app of its own (a callback makes it a group, so the command keeps its name)."""
    holder = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    holder.callback()(_holds)
    if isinstance(what, typer.Typer):
        holder.add_typer(what, name=name, rich_help_panel=panel)
    else:
        holder.command(name, rich_help_panel=panel)(what)
    return typer.main.get_command(holder).commands[name]


def _holds() -> None:
    """The callback of a command's own app in :func:`_built` (never run)."""


def _usage_line(exc) -> str:
    """click's usage error as one line: the message and where to read the usage."""
    msg = " ".join(exc.format_message().split())
    ctx = getattr(exc, "ctx", None)
    where = ctx.command_path if ctx is not None else "semtui"
    return f"semtui: error: {msg} (see '{where} --help')"


#: the whole numbers semtui takes: what a 64-bit integer holds (numpy's seeds and ids, orjson, TOML)
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def _command():
    """The click command of the app; its commands are built as they are asked for
    (:class:`_InWorkOrder`), each with its whole-number values checked (:func:`_checked`)."""
    return typer.main.get_command(app)


def whole_command():
    """The app's click command with every command built (what ``semtui --help`` lists), for
    walking the whole tree."""
    command = _command()

    def build(group, ctx) -> None:
        for name in group.list_commands(ctx):
            sub = group.get_command(ctx, name)
            if hasattr(sub, "list_commands"):
                build(sub, ctx)

    build(command, None)
    return command


def _checked(command):
    """``command`` with its whole-number values checked once they are parsed: one beyond 64 bits
    is one line naming its option (exit 2), whatever the command (it reached numpy or the JSON
    writer and ended as an internal error)."""
    import functools

    def bounded(command) -> None:
        callback = command.callback
        if callback is not None:
            names = {p.name: (max(p.opts, key=len) if getattr(p, "opts", None) else str(p.name).upper())
                     for p in command.params}

            @functools.wraps(callback)
            def checked(*args, **kwargs):
                for name, value in kwargs.items():
                    for x in value if isinstance(value, (list, tuple)) else (value,):
                        if isinstance(x, int) and not isinstance(x, bool) and not INT64_MIN <= x <= INT64_MAX:
                            raise InputError(f"{names.get(name, name)}: {x} is beyond the largest whole number "
                                             f"semtui takes ({INT64_MAX:,})")
                if kwargs.get("scheduler") is not None:  # checked, and local:N's cap said, once for all
                    kwargs["scheduler"] = note_scheduler(kwargs["scheduler"])
                return callback(*args, **kwargs)

            command.callback = checked
        for sub in (getattr(command, "commands", None) or {}).values():
            bounded(sub)

    bounded(command)
    return command


def main() -> None:
    """The ``semtui`` process: :func:`run`, then the end of the process as soon as the
    interpreter's exit handlers have run. Python restores the default action of SIGINT and
    SIGTERM while it tears itself down after them (freeing a large run's memory takes a while):
    a signal landing there ended the process *by* the signal (-15, no word) instead of 143 with
    "terminated (after writing ...)" -- 1 run in ~20 of ``assess --jobs 2`` signalled near its
    end. The teardown frees only memory: nothing of the run is lost by skipping it."""
    import atexit

    code: list = [0]

    def end_now() -> None:  # registered first, so it runs last of the exit handlers
        if PAUSE_ENV in os.environ:  # the tests' pause point, where Python's teardown began before
            _test_pause("semtui exiting")
        for stream in (sys.stdout, sys.stderr):  # a reader gone, a stream closed: nothing to add
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(_exit_status(code[0]))

    atexit.register(end_now)
    try:
        run()
    except SystemExit as exc:
        code[0] = exc.code
        raise


def _exit_status(code) -> int:
    """The process's exit status for ``sys.exit(code)``, as Python computes it (a message:
    written to stderr, status 1)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    with contextlib.suppress(Exception):
        sys.stderr.write(f"{code}\n")
        sys.stderr.flush()
    return 1


def run(argv: list[str] | None = None) -> None:
    """Run the app (in this process: the tests' in-process runs), turning errors into one line
    and an exit code; the ``semtui`` process is :func:`main`."""
    previous = sys.unraisablehook
    # a run inside a run hands on to the outer run's previous hook
    stopping.previous_hooks.append(stopping.previous_hooks[-1] if previous is stopping.unraisable else previous)
    sys.unraisablehook = stopping.unraisable
    try:
        _run(argv)
    finally:  # a run inside another program (the tests' in-process runs) leaves its hook as it was
        stopping.previous_hooks.pop()
        sys.unraisablehook = previous
        _loop_note()


def _loop_note() -> None:
    """Said once, at the end: the compiled eliminator loop could not load and the numpy loop ran
    (numba is a core dependency: a broken install); the results are the same, only slower."""
    engine = sys.modules.get("semtui.attacks.setgen.eliminate.engine")
    why = engine.loop_fallback() if engine is not None else None
    if why:
        stopping.say(f"semtui: note: the compiled GBA/RBA/WBA loop could not load ({why}); the numpy loop ran "
             "instead: the same results, slower (reinstall numba: pip install 'numba>=0.61')")


def _run(argv: list[str] | None) -> None:
    stopping.received.clear()
    stopping.finished.clear()
    signal.signal(signal.SIGINT, stopping.on_signal)
    signal.signal(signal.SIGTERM, stopping.on_signal)
    try:
        from semtui import fileio
        from semtui.cli.common import buffered_stdout

        fileio.reset()
        buffered_stdout()
        # A library's warning (numpy's "invalid value", scipy's SparseEfficiencyWarning, ...) is
        # for the developer, not the user: it names a source line and is not one line of ours.
        # The code that meets one handles it; SEMTUI_DEBUG=1 shows them.
        if not os.environ.get("SEMTUI_DEBUG"):
            warnings.simplefilter("ignore")
        _closed_stdout_is_141()
        rc = _command()(args=argv, prog_name="semtui", standalone_mode=False)
        if rc == exitcodes.INTERRUPTED:  # Typer turns a KeyboardInterrupt into a silent 130
            raise KeyboardInterrupt
        stopping.finished.append(True)  # from here a signal ends the process at once (stopping.on_signal)
        if PAUSE_ENV in os.environ:  # the tests' pause point (cli/common.py) after the command
            _test_pause("semtui finished")
        sys.stdout.flush()
    except BrokenPipeError:
        stdout_closed()
    except InputError as exc:
        stopping.say(f"semtui: error: {options_error(exc)}")
        sys.exit(exitcodes.INPUT)
    except (KeyboardInterrupt, Interrupted):
        stopping.stopped()
    except SystemExit:
        # click answers a closed stdout (EPIPE) by wrapping sys.stdout and exiting 1
        if type(sys.stdout).__name__ == "PacifyFlushWrapper":
            stdout_closed()
        raise
    except RecursionError:
        stopping.say("semtui: error: input nested too deeply")
        sys.exit(exitcodes.INPUT)
    except OSError as exc:  # unreadable input, unwritable output, a full disk
        where = f"{exc.filename}: " if exc.filename else ""
        stopping.say(f"semtui: error: {where}{exc.strerror or exc}")
        sys.exit(exitcodes.INPUT)
    except Exception as exc:  # click's usage errors and our own bugs
        # Typer vendors click in recent releases, so recognise its exceptions by shape.
        if type(exc).__name__ == "Abort" or stopping.received:
            # an interrupt that landed inside a C extension's import surfaces as an ImportError
            # ("initialization failed"): after SIGINT/SIGTERM, whatever failed is the interrupt
            stopping.stopped()
        if hasattr(exc, "format_message") and hasattr(exc, "exit_code"):
            if isinstance(exc.__context__, BrokenPipeError) or isinstance(exc.__cause__, BrokenPipeError):
                stdout_closed()
            if exc.format_message().strip():  # empty: the help was shown (a bare command group)
                stopping.say(_usage_line(exc))
            sys.exit(exitcodes.INPUT if exc.exit_code == 2 else exc.exit_code)
        if os.environ.get("SEMTUI_DEBUG"):
            raise
        stopping.say(f"semtui: internal error (a bug in semtui; please report it with the command line): "
             f"{type(exc).__name__}: {exc} (SEMTUI_DEBUG=1 shows the traceback)")
        sys.exit(exitcodes.INTERNAL)
    else:
        _exit(rc if isinstance(rc, int) else 0)


def _closed_stdout_is_141() -> None:
    """rich (our tables, Typer's help) answers a closed stdout with exit 1; make it 141."""
    try:
        import rich.console
    except ImportError:  # pragma: no cover - rich is a dependency
        return

    def on_broken_pipe(self) -> None:
        if getattr(self, "stderr", False):
            raise SystemExit(exitcodes.BROKEN_PIPE)
        stdout_closed()

    rich.console.Console.on_broken_pipe = on_broken_pipe


def _exit(code: int) -> None:
    """Exit, flushing stdout first: a reader that went away gives 141, not a traceback."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        stdout_closed()
    sys.exit(code)
