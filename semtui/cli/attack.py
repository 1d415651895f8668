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
    seed: int | None = typer.Option(None, "--seed", min=0, help="Seed for RA."),
    k: int | None = typer.Option(None, "--k", min=1, help="Protection level for exposure (default: smallest group size)."),
    output: Path | None = typer.Option(None, "--output", "-o", help="Write the attacked release (set-generalised text)."),
    report_path: Path | None = typer.Option(None, "--report", help="Also write the JSON report to this file."),
    format: str | None = typer.Option(None, "--format", "-f", help="Format of DATA (default: detect)."),
    json_out: bool = typer.Option(False, "--json", help="The JSON report on stdout."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Do not read or write the persistent score cache."),
) -> None:
    """Eliminate the items set-based generalisation added, by how badly they fit their context."""
    from semtui import formats
    from semtui.attacks.setgen import attacked_dataset, run_setgen_attack, write_report
    from semtui.cli.common import StderrProgress
    from semtui.errors import InputError
    from semtui.fileio import check_outputs

    if seed is not None and method != "ra":
        raise InputError(f"--seed only applies to the random baseline ra, not {method}")
    check_outputs([output, report_path], [data, original, vectors, *_measure_files(measure)])
    release = formats.read_transactions(data, format)
    if release.n_generalised == 0:
        raise InputError("no generalised items to attack (a plain transactions file?)", data)
    orig = formats.read_transactions(original) if original is not None else None
    with StderrProgress(f"attack {method}") as bar:
        report = run_setgen_attack(
            release, orig, method=method, measure=measure, context=context, aggregate=aggregate,
            threshold=threshold, seed=seed, vectors=vectors, cache=not no_cache, k=k, progress=bar,
            original_path=original,
        )
    report["data"] = str(data)
    report["original"] = str(original) if original is not None else None
    if report["unknown_terms"]:
        shown = ", ".join(report["unknown_terms"][:8])
        more = len(report["unknown_terms"]) - 8
        from semtui.cli.common import warn

        warn(f"{len(report['unknown_terms'])} terms have no score under {measure} and are never eliminated: "
             f"{shown}{f' (+{more} more)' if more > 0 else ''}")
    if output is not None:
        formats.write(attacked_dataset(release, report), output, "setgen")
    if report_path is not None:
        write_report(report, report_path)
    if json_out:
        emit_json(report)
    else:
        _print_summary(report)


def _measure_files(spec: str) -> list[Path]:
    """The file a measure spec names (scores:F, ngd:INDEX, counts:F), which outputs must not
    overwrite; the spec is checked on the way, before any data is read."""
    from semtui.measures import check_measure

    check_measure(spec)  # only the kinds that take a file take an argument
    arg = spec.partition(":")[2]
    return [Path(arg)] if arg else []


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


@app.command("disassoc")
def disassoc(
    data: Path = typer.Argument(..., help="The disassociated release (semtui-disassociated/1 JSON)."),
    key: Path | None = typer.Option(None, "--key", help="The release's private key (with --original: the metrics)."),
    original: Path | None = typer.Option(None, "--original", help="The original transactions (with --key: the metrics)."),
    method: str = typer.Option("aba", "--method", "-m", help="aba, rga, mra, assign or ra."),
    measure: str = typer.Option("embedding", "--measure", help="embedding, scores:FILE, ngd:INDEX, counts:FILE, wordnet."),
    vectors: Path | None = typer.Option(None, "--vectors", help="A word2vec/GloVe text file for the embedding measure."),
    k: int | None = typer.Option(None, "--k", min=1, help="A term-chunk term goes to k-1 transactions (default: the release's k)."),
    seed: int = typer.Option(0, "--seed", min=0, help="Seed of RA, random ties, the random baseline and intervals."),
    ties: str = typer.Option("first", "--ties", help="first (the anchoring chunk's order, as the paper) or random."),
    jobs: int = typer.Option(1, "--jobs", "-j", min=1, help="Worker processes for the per-cluster kernels."),
    output: Path | None = typer.Option(None, "--output", "-o", help="Write the reconstructed transactions (plain)."),
    report_path: Path | None = typer.Option(None, "--report", help="Also write the JSON report to this file."),
    json_out: bool = typer.Option(False, "--json", help="The JSON report on stdout."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Do not read or write the persistent score cache."),
) -> None:
    """Re-associate the chunks of a disassociated release by meaning (ABA, RGA, MRA, an optimal
    assignment, or RA) and, with the key and the original, measure what comes back."""
    import contextlib
    import io
    import json

    from semtui import formats
    from semtui.attacks.reassociation import reconstruction_dataset, run_reassociation
    from semtui.cli.common import StderrProgress, warn
    from semtui.errors import InputError
    from semtui.fileio import atomic_writer, check_outputs
    from semtui.formats.disassociated import read_key
    from semtui.model import DisassociatedData

    if (key is None) != (original is None):
        raise InputError("--key and --original go together (the metrics need both)")
    check_outputs([output, report_path], [data, key, original, vectors, *_measure_files(measure)])
    release = formats.read(data)
    if not isinstance(release, DisassociatedData):
        raise InputError(f"expected a disassociated release, got a {release.kind} dataset", data)
    the_key = read_key(key, release) if key is not None else None
    orig = formats.read_transactions(original) if original is not None else None
    with StderrProgress(f"attack {method}") as bar:
        result = run_reassociation(release, the_key, orig, method=method, measure=measure, k=k, seed=seed, ties=ties,
                                   jobs=jobs, vectors=vectors, cache=not no_cache, progress=bar,
                                   original_path=original)
    report = result.report
    report["data"] = str(data)
    report["key"] = str(key) if key is not None else None
    report["original"] = str(original) if original is not None else None
    if report["unknown_terms"]:
        shown = ", ".join(report["unknown_terms"][:8])
        more = len(report["unknown_terms"]) - 8
        warn(f"{len(report['unknown_terms'])} terms have no score under {measure}: {shown}"
             f"{f' (+{more} more)' if more > 0 else ''}")
    # render every output first, then commit them together
    rendered: list[tuple[Path, str]] = []
    if output is not None:
        buf = io.StringIO()
        formats.text.dump_setgen(reconstruction_dataset(result), buf, output)
        rendered.append((output, buf.getvalue()))
    if report_path is not None:
        # compact: json's C encoder only runs without indent, and the report of a large release is big
        rendered.append((report_path, json.dumps(report, ensure_ascii=False, allow_nan=False,
                                                 separators=(",", ":")) + "\n"))
    with contextlib.ExitStack() as stack:
        handles = [(stack.enter_context(atomic_writer(p)), text) for p, text in rendered]
        for fh, text in handles:
            fh.write(text)
    if json_out:
        emit_json(report)
    else:
        _print_disassoc_summary(report)


def _print_disassoc_summary(report: dict) -> None:
    from rich.table import Table

    console = stdout_console()
    s = report["summary"]
    console.print(
        f"[bold]{report['method'].upper()}[/] with {report['measure']} on {report.get('data')}: "
        f"{s['clusters']} clusters, {s['transactions']} transactions, {s['units']} sub-records and terms "
        f"re-associated in {s['placements']} placements.")
    if "metrics" not in report:
        console.print("Give --key and --original to measure what the attack takes back.")
        return
    m = report["metrics"]
    b = m["baseline"]
    iv = m["intervals"]
    t = Table(title="What the attack took back (95% bootstrap intervals over clusters)", title_justify="left")
    for col in ("metric", "attack", "interval", "random (same budget)"):
        t.add_column(col, justify="right" if col != "metric" else "left", no_wrap=True)

    def ival(name):
        v = iv.get(name)
        return "-" if v is None else f"{_fmt(v[0])}–{_fmt(v[1])}"

    t.add_row("accuracy", _fmt(m["accuracy"]), ival("accuracy"), _fmt(b["accuracy"]))
    t.add_row("transaction breakage", _fmt(m["transaction_breakage"]), ival("transaction_breakage"),
              _fmt(b["transaction_breakage"]))
    t.add_row("k^m breakage", _fmt(m["km_breakage"]), ival("km_breakage"), _fmt(b["km_breakage"]))
    t.add_row("WMD", _fmt(m["wmd"]), ival("wmd"), _fmt(b["wmd"]))
    t.add_row("lift over random", _fmt(m["lift_over_random"]), ival("lift_over_random"), "1")
    console.print(t)
    console.print(f"{m['correct']} of {m['placements']} placements correct; {m['broken_transactions']} of "
                  f"{m['transactions']} transactions broken; {m['exposed_itemsets']} of {m['protected_itemsets']} "
                  f"protected itemsets exposed.")
