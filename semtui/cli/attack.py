"""``semtui attack``: run an attack over a whole release, headless."""

from __future__ import annotations

from pathlib import Path

import typer

from semtui.cli.common import emit_json, stdout_console

app = typer.Typer(help="Attack an anonymised release and measure what it gives back.", no_args_is_help=True)


@app.command("setgen")
def setgen(
    data: Path = typer.Argument(..., help="The set-generalised release."),
    original: Path | None = typer.Option(None, "--original", help="The original transactions, line for line: enables the metrics."),
    method: str = typer.Option("rba", "--method", "-m", help="mda, tba, wba, gba, rba or ra."),
    measure: str = typer.Option("embedding", "--measure", help="embedding, scores:FILE, ngd:INDEX, counts:FILE, wordnet."),
    vectors: Path | None = typer.Option(None, "--vectors", help="A word2vec/GloVe text file for the embedding measure."),
    context: str = typer.Option("all", "--context", help="all, or nearest:N (the N items nearest the generalised item)."),
    aggregate: str = typer.Option("mean", "--aggregate", help="mean (the papers'), min, or top:K."),
    threshold: float | None = typer.Option(None, "--threshold", help="TBA's threshold (default: the mean distance)."),
    seed: int | None = typer.Option(None, "--seed", help="Seed for RA."),
    k: int | None = typer.Option(None, "--k", help="Protection level for exposure (default: the release's k from its sidecar, else the smallest group size)."),
    output: Path | None = typer.Option(None, "--output", "-o", help="Write the attacked release (set-generalised text)."),
    report_path: Path | None = typer.Option(None, "--report", help="Also write the JSON report to this file."),
    format: str | None = typer.Option(None, "--format", "-f", help="Format of DATA (default: detect)."),
    json_out: bool = typer.Option(False, "--json", help="The JSON report on stdout."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Do not read or write the persistent score cache."),
    jobs: int = typer.Option(1, "--jobs", "-j", help="Worker processes for the per-group attack (same result as 1)."),
) -> None:
    """Eliminate the items set-based generalisation added, by how badly they fit their context."""
    from semtui import formats
    from semtui.attacks.setgen import AttackOptions, attacked_dataset, run_setgen_attack
    from semtui.cli.common import StderrProgress, names, options_error, warn, watch_cache, write_outputs
    from semtui.errors import InputError
    from semtui.fileio import check_outputs

    _check_aggregate(aggregate)
    try:
        opts = AttackOptions(method=method, measure=measure, context=context, aggregate=aggregate,
                             threshold=threshold, seed=seed, k=k, vectors=None if vectors is None else str(vectors),
                             cache=not no_cache, jobs=jobs)
    except InputError as exc:
        raise options_error(exc) from None
    check_outputs([output, report_path], [data, original, *opts.measure_files])
    watch_cache()
    release = formats.read_transactions(data, format)
    if release.n_generalised == 0:
        raise InputError("no generalised items to attack (a plain transactions file?)", data)
    orig = formats.read_transactions(original) if original is not None else None
    with StderrProgress(f"attack {opts.method}") as bar:
        try:
            report = run_setgen_attack(release, orig, opts, progress=bar, data_path=data, original_path=original)
        except InputError as exc:
            raise options_error(exc) from None
    if report.unknown_terms:
        warn(f"{len(report.unknown_terms)} terms have no score under {opts.measure} and are never eliminated: "
             f"{names(report.unknown_terms, 8)}")
    doc = report.to_json()
    outputs = []
    if output is not None:
        from semtui.formats.text import dump_setgen

        outputs.append((output, lambda fh: dump_setgen(attacked_dataset(release, report), fh, output)))
    if report_path is not None:
        # with --original the report holds per-cell ground truth: a new file is private (0600)
        outputs.append((report_path, doc, original is not None))
    write_outputs(outputs)
    if json_out:
        emit_json(doc)
    else:
        _print_summary(doc)


#: largest K of ``--aggregate top:K`` (any larger K is the mean over the whole context)
MAX_TOP_K = 2**31 - 1


def _check_aggregate(spec: str) -> None:
    kind, _, k = spec.strip().partition(":")
    if kind == "top" and k.isdigit() and int(k) > MAX_TOP_K:
        from semtui.errors import InputError

        raise InputError(f"--aggregate: K of top:K must be at most {MAX_TOP_K:,} (got {len(k)} digits)")


def _fmt(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.3f}"
    return str(v)


def _print_summary(report: dict) -> None:
    from rich.table import Table

    console = stdout_console()
    s = report["summary"]
    console.print(
        f"[bold]{report['method'].upper()}[/] with {report['measure']} on {report.get('data')}: "
        f"{s['groups']} equivalence groups, {s['attacked_rows']} rows attacked "
        f"({s['skipped_rows']} without context), {s['eliminations']} eliminations."
    )
    if "metrics" in report:
        m = report["metrics"]
        t = Table(title="What the attack took back", title_justify="left")
        for col in ("eliminated", "added", "correct", "precision", "recall", "f1", "auc", "density"):
            t.add_column(col, justify="right", no_wrap=True, min_width=len(col))
        t.add_row(*(_fmt(m.get(c)) for c in ("eliminated", "added", "correct", "precision", "recall", "f1", "auc", "density")))
        console.print(t)
    p = report["privacy"]
    console.print(
        f"Privacy: {p['exposed_items']} of {p['member_items']} member items can now appear in fewer than "
        f"k = {p['k']} transactions of their group; {p['reidentified_rows']} rows reduced to a single item."
    )
    groups = sorted(report["groups"], key=lambda g: -len(g["eliminations"]))[:10]
    t = Table(title="Groups (most eliminations first)", title_justify="left")
    t.add_column("generalised item", overflow="ellipsis", max_width=60)
    t.add_column("rows", justify="right")
    t.add_column("eliminated", justify="right")
    t.add_column("precision", justify="right")
    t.add_column("exposed")
    for g in groups:
        t.add_row(g["generalised_item"], str(g["size"]), str(len(g["eliminations"])),
                  _fmt(g.get("metrics", {}).get("precision")), ", ".join(g["exposed"]) or "-")
    console.print(t)
