"""``semtui``: the command tree.  ``run()`` is the console script.

Each command group lives in its own module under ``semtui/cli``; this module wires
them together and owns the one place where errors become exit codes.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import typer

from semtui.cli.common import EXIT_INPUT, EXIT_INTERRUPTED, emit_json, stdout_closed, stdout_console
from semtui.errors import InputError, Interrupted

app = typer.Typer(
    name="semtui",
    help="How much of an anonymised transaction dataset can a semantic attacker take back?",
    no_args_is_help=False,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)

FormatOpt = typer.Option(None, "--format", "-f", help="plain, setgen, fimi, jsonl or disassociated (default: detect)")


@app.callback(invoke_without_command=True)
def _root(ctx: typer.Context) -> None:
    """Without a command, open the TUI on the bundled sample."""
    if ctx.invoked_subcommand is None:
        from semtui.samples import sample_path

        _open_tui(sample_path(), None, None, None)


@app.command()
def info(
    file: Path = typer.Argument(..., help="A dataset in any supported format."),
    format: str | None = FormatOpt,
    names: Path | None = typer.Option(None, "--names", help="id->name map for FIMI files"),
    json_out: bool = typer.Option(False, "--json", help="JSON on stdout"),
) -> None:
    """Summarise a dataset: its kind, size, items, lengths, groups or clusters."""
    from semtui import formats
    from semtui.info import dataset_info

    data = formats.read(file, format, names=names)
    facts = dataset_info(data)
    facts["file"] = str(file)
    if json_out:
        emit_json(facts)
        return
    from rich.table import Table

    table = Table(title=f"{file}", show_header=False, title_justify="left")
    table.add_column("fact", style="bold")
    table.add_column("value")
    for key, value in facts.items():
        if key == "file":
            continue
        if isinstance(value, dict):
            value = " / ".join(f"{k} {v}" for k, v in value.items())
        table.add_row(key.replace("_", " "), str(value))
    stdout_console().print(table)


@app.command("open")
def open_(
    file: Path | None = typer.Argument(None, help="Dataset to open (default: the bundled sample)."),
    original: Path | None = typer.Option(None, "--original", help="The original data, for evaluation."),
    report: Path | None = typer.Option(None, "--report", help="A JSON report of a headless attack."),
    key: Path | None = typer.Option(None, "--key", help="The private key of a disassociated release."),
) -> None:
    """Open the TUI on a dataset."""
    if file is None:
        from semtui.samples import sample_path

        file = sample_path()
    _open_tui(file, original, report, key)


def _open_tui(file: Path, original: Path | None, report: Path | None, key: Path | None) -> None:
    from semtui.tui.app import run_tui

    run_tui(file, original=original, report=report, key=key)


def _register() -> None:
    """Attach the command groups that live in their own modules."""
    import importlib

    for module, name in _GROUPS:
        try:
            mod = importlib.import_module(f"semtui.cli.{module}")
        except ModuleNotFoundError as exc:  # a group still being built
            if exc.name != f"semtui.cli.{module}":
                raise
            continue
        mod.register(app) if hasattr(mod, "register") else app.add_typer(mod.app, name=name)


#: (module, command name): each module defines ``app`` (a Typer group) or ``register(app)``.
_GROUPS: list[tuple[str, str]] = [
    ("table", "table"),
    ("attack", "attack"),
    ("corpus", "corpus"),
    ("score", "score"),
    ("anonymize", "anonymize"),
    ("check", "check"),
    ("cover", "cover"),
]

_register()


def run(argv: list[str] | None = None) -> None:
    """Console-script entry: run the app, turning errors into one line and an exit code."""
    try:
        rc = app(args=argv, standalone_mode=False)
        sys.stdout.flush()
    except BrokenPipeError:
        stdout_closed()
    except InputError as exc:
        sys.stderr.write(f"semtui: error: {exc}\n")
        sys.exit(EXIT_INPUT)
    except (KeyboardInterrupt, Interrupted):
        sys.stderr.write("semtui: interrupted\n")
        sys.exit(EXIT_INTERRUPTED)
    except SystemExit:
        raise
    except OSError as exc:  # unreadable input, unwritable output, a full disk
        where = f"{exc.filename}: " if exc.filename else ""
        sys.stderr.write(f"semtui: error: {where}{exc.strerror or exc}\n")
        sys.exit(EXIT_INPUT)
    except Exception as exc:  # click's usage errors and our own bugs
        # Typer vendors click in recent releases, so recognise its exceptions by shape.
        if type(exc).__name__ == "Abort":
            sys.stderr.write("semtui: interrupted\n")
            sys.exit(EXIT_INTERRUPTED)
        if hasattr(exc, "show") and hasattr(exc, "exit_code"):
            exc.show()
            sys.exit(EXIT_INPUT if exc.exit_code == 2 else exc.exit_code)
        if os.environ.get("SEMTUI_DEBUG"):
            raise
        sys.stderr.write(f"semtui: internal error: {type(exc).__name__}: {exc} (set SEMTUI_DEBUG=1 for details)\n")
        sys.exit(1)
    else:
        sys.exit(rc if isinstance(rc, int) else 0)
