"""``semtui corpus build|info``: the local full-text index NGD counts come from."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from semtui.cli.common import SCHEDULER_HELP, emit_json, source_kind, stdout_console, warn
from semtui.errors import InputError

app = typer.Typer(help="Build and inspect the local full-text index behind the ngd: measure, or count terms "
                  "over a corpus for the counts: measure.", no_args_is_help=True)


@app.command()
def build(
    sources: Annotated[list[Path], typer.Argument(help="Text files or directories, JSON Lines, or a transactions file.")],
    output: Annotated[Path, typer.Option("--output", "-o", help="The index to write (SQLite FTS5; '-': standard output).")],
    lines: Annotated[bool, typer.Option("--lines", help="One document per line of a text file.")] = False,
    transactions: Annotated[bool, typer.Option("--transactions", help="One document per transaction (any dataset format).")] = False,
    jsonl: Annotated[bool, typer.Option("--jsonl", help="JSON Lines, one document per line (default for .jsonl).")] = False,
    field: Annotated[str | None, typer.Option("--field", help="The JSON Lines field holding the text (a string or a list of strings); default: text.")] = None,
    smart: Annotated[bool, typer.Option("--smart", help="A SMART collection: one document per '.I' record (detected by default).")] = False,
    separator: Annotated[str | None, typer.Option("--separator", help="Documents are separated by lines that are exactly this ('' = a blank line).")] = None,
    split: Annotated[str | None, typer.Option("--split", help="Documents are separated by lines this regular expression matches in full.")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="JSON summary on stdout")] = False,
) -> None:
    """Index SOURCES into one SQLite FTS5 file (one document per file by default)."""
    from semtui.cli.common import StderrProgress
    from semtui.corpus import build_index

    kind = source_kind(lines=lines, transactions=transactions, jsonl=jsonl, smart=smart, separator=separator,
                       split=split, field=field)
    from semtui.fileio import check_outputs

    check_outputs({"-o": output}, list(sources), stdout_taken="--json" if json_out else None)
    if kind == "lines":
        _warn_if_smart(sources)
    with StderrProgress("indexing") as bar:
        report = build_index(sources, output, kind=kind, field=field or "text",
                             separator=split if kind == "split" else separator, progress=bar)
    from semtui.measures.corpus import FEW_DOCUMENTS

    if report.documents < FEW_DOCUMENTS:
        warn(f"{report.path} holds only {report.documents} document(s): NGD counts documents, so it needs "
             f"hundreds at least to tell terms apart (one document per file by default; "
             f"see --lines, --smart, --separator, --jsonl)")
    if json_out:
        emit_json(report)
    else:
        warn(f"indexed {report.documents:,} documents into {report.path} "
             f"({report.bytes / 1e6:.1f} MB, {report.seconds:.2f} s)")


def _warn_if_smart(sources: list[Path]) -> None:
    """``--lines`` on a SMART collection indexes its '.I'/'.W' markers as documents."""
    from semtui.formats.documents import is_smart

    for s in sources:
        if s.is_file():
            try:
                with open(s, encoding="utf-8", errors="replace") as fh:
                    head = fh.read(256)
            except OSError:
                continue
            if is_smart(head):
                warn(f"{s} looks like a SMART collection ('.I'/'.W' records): --lines makes every line a "
                     f"document, markers included; without it each record is one document")


@app.command()
def count(
    sources: Annotated[list[Path], typer.Argument(help="Text files or directories, JSON Lines, or a transactions file.")],
    output: Annotated[Path, typer.Option("--output", "-o", help="The counts to write (CSV in the counts: format; '-': standard output).")],
    terms: Annotated[Path | None, typer.Option("--terms", help="The terms to count: one per line.")] = None,
    terms_of: Annotated[Path | None, typer.Option("--terms-of", help="Count every distinct item of this dataset (e.g. the release to attack).")] = None,
    lines: Annotated[bool, typer.Option("--lines", help="One document per line of a text file.")] = False,
    transactions: Annotated[bool, typer.Option("--transactions", help="One document per transaction (any dataset format).")] = False,
    jsonl: Annotated[bool, typer.Option("--jsonl", help="JSON Lines, one document per line (default for .jsonl).")] = False,
    field: Annotated[str | None, typer.Option("--field", help="The JSON Lines field holding the text; default: text.")] = None,
    smart: Annotated[bool, typer.Option("--smart", help="A SMART collection: one document per '.I' record (detected by default).")] = False,
    separator: Annotated[str | None, typer.Option("--separator", help="Documents are separated by lines that are exactly this.")] = None,
    split: Annotated[str | None, typer.Option("--split", help="Documents are separated by lines this regular expression matches in full.")] = None,
    scheduler: Annotated[str | None, typer.Option("--scheduler", help=SCHEDULER_HELP)] = None,
    partition: Annotated[int, typer.Option("--partition", help="Documents per partition (one task each).")] = 20_000,
    json_out: Annotated[bool, typer.Option("--json", help="JSON summary on stdout")] = False,
) -> None:
    """f(x) and f(x, y) of a term list over SOURCES, as a map-reduce over partitions of the
    documents (here, or on a Dask cluster with --scheduler), written in the counts: format
    (`--measure counts:COUNTS.csv`): the same counts as `corpus build` and `ngd:` would give."""
    from semtui.cli.common import StderrProgress, options_error, write_outputs
    from semtui.corpus import count_terms
    from semtui.fileio import check_outputs
    from semtui.measures.cooccurrence import read_terms

    kind = source_kind(lines=lines, transactions=transactions, jsonl=jsonl, smart=smart, separator=separator,
                       split=split, field=field)
    if (terms is None) == (terms_of is None):
        raise InputError("give the terms to count: --terms FILE (one per line) or --terms-of DATASET")
    check_outputs({"-o": output}, [*sources, terms, terms_of], stdout_taken="--json" if json_out else None)
    if terms is not None:
        wanted = read_terms(terms)
    else:
        from semtui import formats

        data = formats.read_transactions(terms_of)
        wanted = list(data.vocab.items)
        if not wanted:
            raise InputError("the dataset holds no item", terms_of)
    with StderrProgress("counting") as bar:
        try:
            report = count_terms(sources, wanted, kind=kind, field=field or "text",
                                 separator=split if kind == "split" else separator,
                                 scheduler=scheduler, partition=partition, progress=bar)
        except InputError as exc:
            raise options_error(exc) from None
    # always private: its pairs of support 1 are a record's fingerprint whatever the corpus was read as
    # (the original's own transactions read as --lines are as private as with --transactions)
    write_outputs([(output, report.write_csv, True)])
    if json_out:
        emit_json(report)
    else:
        warn(f"counted {len(report.terms):,} terms over {report.documents:,} documents into {output} "
             f"({int((report.f > 0).sum()):,} found; {report.partitions} partition(s), {report.seconds:.2f} s)")


@app.command()
def info(
    index: Annotated[Path, typer.Argument(help="An index built by 'semtui corpus build'.")],
    term: Annotated[list[str] | None, typer.Option("--term", "-t", help="Also count the documents matching this phrase (repeatable).")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="JSON on stdout")] = False,
) -> None:
    """Report an index's document count, size and tokenizer (and f(term) for --term)."""
    from semtui.measures.corpus import CorpusIndex, documents_matching

    idx = CorpusIndex(index)
    try:
        facts = idx.info()
        if term:
            facts["term_documents"] = documents_matching(idx, term)
    finally:
        idx.close()
    from semtui.reports import document

    facts["index_format"] = facts.pop("format")  # the envelope's 'format' names this document
    facts = document("semtui-corpus-info/1", {"format_version": "semtui-corpus-info/1", **facts})
    if json_out:
        emit_json(facts)
        return
    from rich.table import Table

    table = Table(title=str(index), show_header=False, title_justify="left", min_width=len(str(index)))
    table.add_column("fact", style="bold")
    table.add_column("value")
    for key, value in facts.items():
        if key in ("index", "format", "format_version", "semtui_version"):
            continue
        if key == "index_format":
            table.add_row("format", str(value))
            continue
        if key == "bytes":
            value = f"{value:,} ({value / 1e6:.1f} MB)"
        elif key == "term_documents":
            value = "\n".join(f"{t}: {c:,}" for t, c in value.items())
        elif isinstance(value, list):
            value = ", ".join(map(str, value))
        elif isinstance(value, int):
            value = f"{value:,}"
        table.add_row(key.replace("_", " "), str(value))
    stdout_console().print(table)
