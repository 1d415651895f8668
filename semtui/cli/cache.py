"""``semtui cache info|clear``: the persistent score cache (docs/measures.md)."""

from __future__ import annotations

from typing import Annotated

import typer

from semtui.cli.common import emit_json, warn

app = typer.Typer(help="Inspect or remove the persistent score cache.", no_args_is_help=True)


@app.command("info")
def info(json_out: Annotated[bool, typer.Option("--json", help="JSON on stdout")] = False) -> None:
    """Where the score cache is, its size and the pairs it holds per measure."""
    from semtui.measures.cache import ScoreCache
    from semtui.reports import document

    facts = ScoreCache().info()
    if json_out:
        emit_json(document("semtui-cache-info/1", facts))
        return
    lines = [f"{facts['path']}: " + (
        "no cache yet" if not facts["exists"] else
        f"{facts['bytes'] / 1e6:.1f} MB, {facts['pairs']:,} pairs of {len(facts['measures'])} measure(s)")]
    for measure, n in sorted(facts["measures"].items()):
        lines.append(f"  {n:>10,}  {measure}")
    typer.echo("\n".join(lines))
    if "problem" in facts:
        warn(f"{facts['path']}: {facts['problem']} ('semtui cache clear' removes it)")


@app.command("clear")
def clear(json_out: Annotated[bool, typer.Option("--json", help="JSON on stdout")] = False) -> None:
    """Delete the score cache (it is rebuilt as measures are used)."""
    from semtui.measures.cache import ScoreCache
    from semtui.reports import document

    cache = ScoreCache()
    try:
        freed = cache.remove()
    except OSError as exc:
        from semtui.errors import InputError

        raise InputError(f"cannot remove: {exc.strerror or exc}", cache.path) from None
    if json_out:
        emit_json(document("semtui-cache-clear/1", {"path": str(cache.path), "bytes_freed": freed}))
    else:
        typer.echo(f"{cache.path}: removed ({freed / 1e6:.1f} MB)" if freed else f"{cache.path}: no cache")
