"""``semtui``: the command tree.  ``run()`` is the console script.

Each command group lives in its own module under ``semtui/cli``; this module wires
them together and owns the one place where errors become exit codes.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import typer

from semtui.cli import anonymize, attack, check, corpus, exitcodes, score, table
from semtui.cli.common import emit_json, stdout_closed, stdout_console
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
    """Without a command, open the TUI on the bundled sample, with its original, attacked."""
    if ctx.invoked_subcommand is None:
        from semtui.samples import SAMPLE_ORIGINAL, sample_path

        _open_tui(sample_path(), sample_path(SAMPLE_ORIGINAL), None, None, autorun=True)


@app.command()
def info(
    file: Path = typer.Argument(..., help="A dataset in any supported format."),
    format: str | None = FormatOpt,
    names: Path | None = typer.Option(None, "--names", help="id->name map for FIMI files"),
    json_out: bool = typer.Option(False, "--json", help="JSON on stdout"),
) -> None:
    """Summarise a dataset: its kind, size, items, lengths, groups or clusters."""
    from semtui import formats
    from semtui.model.info import dataset_info

    data = formats.read(file, format, names=names)
    facts = dataset_info(data, file)
    if json_out:
        emit_json(facts.to_json())
        return
    facts = facts.payload()
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
    autorun = False
    if file is None:
        from semtui.samples import SAMPLE_ORIGINAL, sample_path

        file = sample_path()
        if original is None and report is None:
            original, autorun = sample_path(SAMPLE_ORIGINAL), True
    _open_tui(file, original, report, key, autorun=autorun)


def _open_tui(file: Path, original: Path | None, report: Path | None, key: Path | None, *,
              autorun: bool = False) -> None:
    from semtui.tui.app import run_tui

    run_tui(file, original=original, report=report, key=key, autorun=autorun)


# The command groups, each in its own module (a missing module is an import error, not a
# missing command).
app.add_typer(table.app, name="table")
app.add_typer(attack.app, name="attack")
app.add_typer(corpus.app, name="corpus")
score.register(app)
app.add_typer(anonymize.app, name="anonymize")
app.add_typer(check.app, name="check")


def run(argv: list[str] | None = None) -> None:
    """Console-script entry: run the app, turning errors into one line and an exit code."""
    try:
        rc = app(args=argv, standalone_mode=False)
        sys.stdout.flush()
    except BrokenPipeError:
        stdout_closed()
    except InputError as exc:
        sys.stderr.write(f"semtui: error: {exc}\n")
        sys.exit(exitcodes.INPUT)
    except (KeyboardInterrupt, Interrupted):
        sys.stderr.write("semtui: interrupted\n")
        sys.exit(exitcodes.INTERRUPTED)
    except SystemExit:
        raise
    except OSError as exc:  # unreadable input, unwritable output, a full disk
        where = f"{exc.filename}: " if exc.filename else ""
        sys.stderr.write(f"semtui: error: {where}{exc.strerror or exc}\n")
        sys.exit(exitcodes.INPUT)
    except Exception as exc:  # click's usage errors and our own bugs
        # Typer vendors click in recent releases, so recognise its exceptions by shape.
        if type(exc).__name__ == "Abort":
            sys.stderr.write("semtui: interrupted\n")
            sys.exit(exitcodes.INTERRUPTED)
        if hasattr(exc, "show") and hasattr(exc, "exit_code"):
            exc.show()
            sys.exit(exitcodes.INPUT if exc.exit_code == 2 else exc.exit_code)
        if os.environ.get("SEMTUI_DEBUG"):
            raise
        sys.stderr.write(f"semtui: internal error (a bug in semtui; please report it with the command line): "
                         f"{type(exc).__name__}: {exc} (SEMTUI_DEBUG=1 shows the traceback)\n")
        sys.exit(exitcodes.INTERNAL)
    else:
        sys.exit(rc if isinstance(rc, int) else 0)
