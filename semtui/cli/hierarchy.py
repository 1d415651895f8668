"""``semtui hierarchy``: build and inspect generalisation hierarchies (k^m-anonymity)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from semtui.cli.common import emit_json
from semtui.errors import InputError

app = typer.Typer(
    help="Generalisation hierarchies for k^m-anonymity (leaf;level1;...;* files).",
    no_args_is_help=True,
)


@app.command("build")
def build(
    items: Annotated[Path, typer.Argument(help="A dataset (any format): its distinct items become the leaves.")],
    fanout: Annotated[int, typer.Option("--fanout", help="Items (then classes) grouped per class.")],
    out: Annotated[Path, typer.Option("-o", "--output", help="The hierarchy file to write ('-': standard output).")],
    order: Annotated[str, typer.Option(
        "--order", help="Which items go together: id (consecutive ids), support (decreasing support), "
        "random (ids shuffled with --seed) or meaning (a nearest-neighbour chain in the default "
        "embedding; unknown items last, in id order).")] = "id",
    seed: Annotated[int, typer.Option("--seed", help="Seed of --order random.")] = 0,
    format: Annotated[str | None, typer.Option("--format", "-f", help="Format of ITEMS (default: detect).")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the hierarchy's facts on stdout.")] = False,
) -> None:
    """A balanced artificial hierarchy, as the k^m paper's experiments (§6) built theirs:
    consecutive items (in --order) grouped by FANOUT, level after level, up to one root ``*``."""
    from semtui import formats
    from semtui.cli.common import echo, write_outputs
    from semtui.fileio import check_outputs
    from semtui.formats.hierarchy import dump_hierarchy
    from semtui.measures.order import ORDERS, ordered_leaves
    from semtui.model.hierarchy import balanced

    if fanout < 2:
        raise InputError(f"--fanout must be at least 2 (got {fanout})")
    if order not in ORDERS:
        raise InputError(f"unknown --order {order!r} (choose from {', '.join(ORDERS)})")
    check_outputs({"-o": out}, [items], stdout_taken="--json" if json_out else None)
    data = formats.read_transactions(items, format)
    if data.n_generalised:
        raise InputError("ITEMS holds generalised items; give plain transactions", items)
    from semtui.formats.hierarchy import unwritable

    names = list(data.vocab.items)
    for name in names:
        if name == "*" or unwritable(name):
            why = "is named '*', the label of the root" if name == "*" else "holds a line break"
            raise InputError(f"item {name!r} {why}: it cannot be a leaf of a hierarchy file", items,
                             _line_of_item(data, name))
    h = balanced(ordered_leaves(data, order, seed), fanout)
    write_outputs([(out, lambda fh: dump_hierarchy(h, fh, out))])
    facts = _facts(h, out)
    if json_out:
        emit_json(facts)
    else:
        echo(f"{out}: {h.n_leaves} leaves, {h.n_nodes} nodes, height {h.height}, "
                   f"nodes per level {' / '.join(map(str, facts['nodes_per_depth']))}")


def _line_of_item(data, name: str) -> int | None:
    """The source line of the first transaction holding an item."""
    import numpy as np

    where = np.flatnonzero(data.tokens == data.vocab.get(name))
    return data.line_of(int(data.row_of_token()[where[0]])) if len(where) else None


@app.command("info")
def info(
    file: Annotated[Path, typer.Argument(help="A hierarchy file (leaf;level1;...;root per line).")],
    json_out: Annotated[bool, typer.Option("--json", help="JSON on stdout.")] = False,
) -> None:
    """Leaves, nodes, height, nodes per level, mean fanout and the number of cuts."""
    from semtui.formats.hierarchy import read_hierarchy

    h = read_hierarchy(file)
    facts = _facts(h, file)
    if json_out:
        emit_json(facts)
        return
    for key, value in facts.items():
        if key in ("format", "semtui_version", "cuts_at_least"):
            continue
        if key == "cuts" and value is None:
            value = f"more than {facts['cuts_at_least'] - 1} (counting stops there)"
        if isinstance(value, list):
            value = " / ".join(map(str, value))
        typer.echo(f"{key.replace('_', ' ')}: {value}")


def _facts(h, path) -> dict:
    from semtui.anonymize.hierarchy.oa import MAX_CUTS

    cuts = h.count_cuts(MAX_CUTS)
    from semtui.reports import document

    return document("semtui-hierarchy-info/1", {
        "file": str(path),
        "root": h.labels[h.root],
        "leaves": h.n_leaves,
        "nodes": h.n_nodes,
        "height": h.height,
        "nodes_per_depth": h.level_counts(),
        "mean_fanout": round(h.fanout(), 3),
        # an exact count up to the limit OA accepts; beyond it counting stops: `cuts` is null
        # and `cuts_at_least` the bound reached (always an integer, the exact count when known)
        "cuts": cuts if cuts <= MAX_CUTS else None,
        "cuts_at_least": cuts,
        "oa_possible": cuts <= MAX_CUTS,
    })
