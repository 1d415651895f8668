"""``semtui check``: independent checks of a release (exit 0 holds, 1 does not, 2 bad input)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from semtui.cli.common import emit_json

app = typer.Typer(help="Check a release independently of the tool that made it.", no_args_is_help=True)


@app.command("privacy")
def privacy(
    setgen: Annotated[Path, typer.Argument(help="A set-generalised release.")],
    constraints: Annotated[Path, typer.Option(
        "--privacy", help="Privacy constraints: one itemset per line, or a setgen sidecar JSON.")],
    k: Annotated[int, typer.Option("-k", help="Required support: >= k or 0.")],
    format: Annotated[str | None, typer.Option(
        "--format", "-f", help="Format of the release: setgen, plain, fimi or jsonl (default: detect).")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="JSON on stdout")] = False,
) -> None:
    """Every privacy constraint has support >= k or 0 in the release (exit 1 if not).

    A check none of whose constraints matches any transaction (every support 0, e.g. the
    constraints of another dataset) proves nothing and is refused (exit 2)."""
    from semtui import formats
    from semtui.checks.privacy import check_privacy, read_constraints
    from semtui.errors import InputError

    if k < 1:
        raise InputError(f"-k must be at least 1 (got {k})")
    cons = read_constraints(constraints)
    data = formats.read_transactions(setgen, format)
    report = check_privacy(data, cons, k)
    doc = report.to_json()
    if report.vacuous:
        why = (f"{len(report.unknown_items)} of their items occur nowhere in it" if report.unknown_items
               else "no transaction holds all the items of any of them")
        raise InputError(f"nothing to check: none of the {len(cons)} constraints matches any transaction of "
                         f"{setgen} ({why}; constraints of another dataset?)", constraints)
    if report.unknown_items:
        from semtui.cli.common import names, warn

        warn(f"{len(report.unknown_items)} constraint item(s) of {constraints} occur nowhere in {setgen} "
             f"(support 0, a typo?): {names(report.unknown_items)}")
    from semtui.cli.common import names

    if json_out:
        emit_json({"file": str(setgen), "privacy": str(constraints), **doc})
    else:
        verdict = "holds" if report.holds else "VIOLATED"
        head = (f"{setgen}: privacy {verdict} for k={k}: {doc['n_constraints']} constraints "
                f"({doc['n_exercised']} exercised: matched by at least one transaction), "
                f"{doc['n_violated']} with support in (0, {k}), {doc['n_zero_support']} with support 0")
        lines = [head]
        for v in doc["violations"]:
            lines.append(f"  support {v['support']}: {', '.join(v['constraint'])}")
        if not report.partition:
            lines.append(f"  note: not a partition; {len(report.not_partitioned)} item(s) are generalised "
                         f"inconsistently, e.g. {names(report.not_partitioned, 3)}")
        typer.echo("\n".join(lines))
    if not report.holds:
        from semtui.cli import exitcodes

        raise typer.Exit(exitcodes.FOUND)
