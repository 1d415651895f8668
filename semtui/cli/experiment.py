"""``semtui experiment``: a grid of candidate releases from a spec, measured for risk and utility
(semtui/experiment does the work), and its figures.

``semtui experiment SPEC.toml -o RESULTS.jsonl`` is ``semtui experiment run …``: a first
argument that is not one of the group's commands runs the spec."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from typer.core import TyperGroup

from semtui.cli.common import SCHEDULER_HELP
from semtui.errors import InputError


class _RunByDefault(TyperGroup):
    """``experiment SPEC …`` means ``experiment run SPEC …``."""

    def parse_args(self, ctx, args):
        if args and args[0] not in self.commands and args[0] not in ("-h", "--help"):
            args = ["run", *args]
        return super().parse_args(ctx, args)


app = typer.Typer(
    cls=_RunByDefault,
    help="Measure a grid of candidate releases (risk and utility) from a TOML spec; plot the results.\n\n"
         "semtui experiment SPEC.toml -o RESULTS.jsonl is short for semtui experiment run SPEC.toml -o RESULTS.jsonl.",
    no_args_is_help=True,
)


@app.command("run")
def run(
    spec: Annotated[Path, typer.Argument(help="The experiment spec (TOML, docs/experiment.md).")],
    out: Annotated[Path, typer.Option("-o", "--output", help="RESULTS.jsonl: one line per cell, appended; "
                                      "cells already there are skipped (resumed).")],
    jobs: Annotated[int, typer.Option("--jobs", "-j", help="Worker processes for each cell's anonymiser parts "
                                      "and attacks (same result as 1).")] = 1,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Do not read or write the persistent score cache.")] = False,
    scheduler: Annotated[str | None, typer.Option("--scheduler", help=SCHEDULER_HELP + " Each cell is one task; "
                                                  "lines are appended in cell order.")] = None,
) -> None:
    """Every cell of SPEC: anonymise, check, attack with the assessment's attacks, measure utility."""
    from semtui.cli.common import StderrProgress, echo, note_jobs, options_error, warn, watch_cache
    from semtui.experiment import read_spec, run_experiment
    from semtui.fileio import check_outputs, is_stdout
    from semtui.runtime.cluster import check_scheduler

    if int(jobs) != jobs or jobs < 1:
        raise InputError(f"--jobs: must be a whole number of at least 1, got {jobs}")
    try:
        scheduler = check_scheduler(scheduler)
    except InputError as exc:
        raise options_error(exc) from None
    if scheduler is not None and jobs != 1:
        raise InputError("--jobs and --scheduler: choose one (with --scheduler each cell runs in one worker)")
    if is_stdout(out):
        raise InputError("-o: RESULTS is appended to and resumed from: give it a file name, not '-'")
    s = read_spec(spec)
    check_outputs({"-o": out}, [spec, s.original, *(r.get("privacy") for r in s.releases
                                                     if isinstance(r.get("privacy"), str))])
    if not s.original.is_file():
        raise InputError("no such file (the spec's original)", s.original)
    from semtui.attacks.setgen import AttackOptions

    try:  # every measure and the background validated before any cell runs
        for m in (list(s.measures) or ["embedding"]) + ([f"ngd:{s.corpus}"] if s.corpus else []):
            AttackOptions(measure=m, background=s.background)
    except InputError as exc:
        raise options_error(exc) from None
    watch_cache()
    note_jobs(jobs)
    finished: list[str] = []

    def said(doc: dict) -> None:
        p = doc["privacy"]
        risk = "unknown" if p.get("risk") is None else f"{p['risk']:.3f}"
        score = doc["utility"].get("score")
        notes = []
        if p.get("attack") and not p.get("beats_chance"):
            notes.append("does not beat chance")
        if p.get("note", "").startswith("no attack tried"):
            notes.append("no attack tried could score it: give a background")
        cover = (f", cover: {p['cover_vulnerable_share']:.0%} of the records breachable by the strong attacker"
                 if "cover_vulnerable_share" in p else "")
        finished.append(f"  {doc['label']}: check {'passed' if doc['check']['passed'] else 'FAILED'}, "
                        f"risk {risk} ({p.get('attack') or 'no attack'}" + "".join(f"; {n}" for n in notes)
                        + f"){cover}, utility {'-' if score is None else f'{score:.3f}'}, "
                        f"{doc['times']['total_s']:.1f} s")

    with StderrProgress("experiment") as bar:
        try:
            summary = run_experiment(s, out, jobs=jobs, cache=not no_cache, progress=bar, on_cell=said,
                                     scheduler=scheduler)
        except KeyboardInterrupt:
            bar.__exit__(None, None, None)
            raise
    for w in summary.warnings:
        warn(w)
    echo(f"{out}: {summary.total} cells in {spec}: {summary.done} measured now, {summary.skipped} already there "
         f"(skipped)" + ("" if not finished else "\n" + "\n".join(finished)))


@app.command("plot")
def plot(
    results: Annotated[Path, typer.Argument(help="RESULTS.jsonl of semtui experiment, or an assessment "
                                          "document (its alternatives).")],
    out: Annotated[Path, typer.Option("-o", "--output", help="The figure: FIG.svg or FIG.png.")],
    width: Annotated[int, typer.Option("--width", help="Width in pixels.")] = 1200,
    height: Annotated[int, typer.Option("--height", help="Height in pixels.")] = 500,
    title: Annotated[str, typer.Option("--title", help="A title above both panels.")] = "",
    format: Annotated[str | None, typer.Option("--format", "-f", help="svg or png (default: from FIG's name; "
                                               "needed for '-', standard output).")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print what was drawn as JSON on stdout.")] = False,
) -> None:
    """Precision/recall (or accuracy) against k, and risk against utility with the Pareto frontier."""
    from semtui.cli.common import echo
    from semtui.experiment.plot import FORMATS, load_cells, render
    from semtui.fileio import check_outputs, display_name, write_together

    fmt = (format or out.suffix.lstrip(".")).lower()
    if fmt not in FORMATS:
        raise InputError(f"--format: svg or png (got {format!r})" if format else
                         f"-o: the figure's name must end in .svg or .png, or give --format (got {out.name!r})")
    if width < 100 or height < 100 or width > 10000 or height > 10000:
        raise InputError(f"--width and --height: between 100 and 10000 pixels (got {width}x{height})")
    check_outputs({"-o": out}, [results], stdout_taken="--json" if json_out else None)
    cells, kind = load_cells(results)
    write = render(cells, fmt, title=title, width=width, height=height)
    write_together([(out, write, False, "wb")])
    if json_out:
        from semtui.cli.common import emit_json
        from semtui.reports import document

        emit_json(document("semtui-plot/1", {"input": str(results), "kind": kind, "output": str(out), "format": fmt,
                                             "width": width, "height": height, "cells": len(cells)}))
        return
    echo(f"{display_name(out) if str(out) != '-' else '<stdout>'}: {len(cells)} {'alternatives' if kind == 'assessment' else 'cells'}, {width}x{height} {fmt}")
