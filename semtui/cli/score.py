"""``semtui score MEASURE TERM TERM...``: the pairwise matrix of a few terms."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated

import typer


def score(
    measure: Annotated[str, typer.Argument(help="embedding, scores:FILE, ngd:INDEX, counts:FILE or wordnet.")],
    terms: Annotated[list[str], typer.Argument(help="Two or more terms (quote multi-word terms).")],
    vectors: Annotated[Path | None, typer.Option("--vectors", help="A word2vec/GloVe text file for the embedding measure.")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Do not read or write the persistent score cache.")] = False,
    json_out: Annotated[bool, typer.Option("--json", help="JSON on stdout")] = False,
) -> None:
    """Print the pairwise scores of TERMS under MEASURE: does the measure make sense for your data?"""
    from semtui.cli.common import emit_json, names, stdout_console, warn, watch_cache
    from semtui.errors import InputError
    from semtui.measures import open_measure

    watch_cache()
    if len(terms) < 2:
        raise InputError("give at least two terms")
    m = open_measure(measure, vectors=vectors, cache=not no_cache)
    matrix = m.matrix(terms, terms)
    capped = m.capped(matrix)
    unknown = m.unknown(terms)
    rows = [[None if math.isnan(v) else round(float(v), 6) + 0.0 for v in row] for row in matrix]
    if json_out:
        from semtui.reports import document

        emit_json(document("semtui-score/1", {
            "measure": measure,
            "kind": m.kind,
            "terms": list(terms),
            "matrix": rows,
            "unknown": unknown,
            # cells holding NGD's stand-in for pairs that never co-occur (not a measured score)
            "capped": None if capped is None else capped.tolist(),
        }))
    else:
        from rich.table import Table

        table = Table(title=f"{measure} ({m.kind})", title_justify="left")
        table.add_column("")
        for j, _ in enumerate(terms):
            table.add_column(str(j + 1), justify="right")
        for i, t in enumerate(terms):
            cells = ["-" if v is None else f"{v:.3f}" + ("*" if capped is not None and capped[i, j] else "")
                     for j, v in enumerate(rows[i])]
            table.add_row(f"{i + 1} {t}", *cells)
        if capped is not None and capped.any():
            table.caption = "* never co-occur: set beyond every pair that does (docs/measures.md)"
            table.caption_justify = "left"
        stdout_console().print(table)
    if unknown:
        warn(f"no score under {measure} for: {names(unknown, 8)} (such terms are reported, never eliminated)")
