"""``semtui extract``: documents to transactions (nouns and noun phrases, thesis §5.1.1)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from semtui.cli.common import emit_json, warn
from semtui.errors import InputError


def extract(
    sources: Annotated[list[Path], typer.Argument(help="Document collections: files, directories, '-' (standard input).")],
    output: Annotated[Path, typer.Option("--output", "-o", help="The transactions to write, one per document ('-': standard output).")],
    sidecar: Annotated[Path | None, typer.Option("--sidecar", help="Where each document came from (TSV: document, file, line, id); default OUTPUT.sources.tsv.")] = None,
    lines: Annotated[bool, typer.Option("--lines", help="One document per line (a blank line: an empty transaction).")] = False,
    jsonl: Annotated[bool, typer.Option("--jsonl", help="JSON Lines, one document per line (default for .jsonl).")] = False,
    field: Annotated[str | None, typer.Option("--field", help="The JSON Lines field holding the text; default: text.")] = None,
    smart: Annotated[bool, typer.Option("--smart", help="A SMART collection: one document per '.I' record (detected by default).")] = False,
    split: Annotated[str | None, typer.Option("--split", help="Documents are separated by lines this regular expression matches in full.")] = None,
    patterns: Annotated[str, typer.Option("--patterns", help="Which patterns make items: nn (noun noun), jn (adjective noun), n (noun).")] = "nn,jn,n",
    stop_words: Annotated[str | None, typer.Option("--stop-words", help="A file of stop words, one a line, instead of the built-in list ('none': no stop words).")] = None,
    keep_plurals: Annotated[bool, typer.Option("--keep-plurals", help="Keep plural forms as items of their own (default: written singular, one item).")] = False,
    keep_nested: Annotated[bool, typer.Option("--keep-nested", help="Keep a noun that also appears inside an extracted phrase (default: dropped).")] = False,
    keep_line_hyphens: Annotated[bool, typer.Option("--keep-line-hyphens", help="Do not join a word broken by a hyphen at a line's end ('frac-' / 'tion'); default: joined.")] = False,
    queries: Annotated[bool, typer.Option("--queries", help="Documents are search queries: one or two words are one item, as they are.")] = False,
    min_df: Annotated[int, typer.Option("--min-df", help="Drop items found in fewer documents than this (holds the items, not the text, in memory).")] = 1,
    max_items: Annotated[int, typer.Option("--max-items", help="At most this many items per document, the most frequent in it first (0: no limit).")] = 0,
    json_out: Annotated[bool, typer.Option("--json", help="JSON summary on stdout")] = False,
) -> None:
    """Turn documents into transactions: one per document, its nouns and noun phrases.

    The collection is read as 'corpus build' reads it (a SMART file such as MED is detected);
    the output is aligned document for document with a sidecar naming each document's source.
    """
    from semtui.cli.common import StderrProgress, source_kind
    from semtui.extract import STOP_WORDS, ExtractOptions, parse_patterns, read_stop_words, sidecar_path
    from semtui.extract import extract as run
    from semtui.fileio import check_outputs

    kind = source_kind(lines=lines, jsonl=jsonl, smart=smart, split=split, field=field)
    if stop_words is None:
        stops = STOP_WORDS
    elif stop_words.lower() == "none":
        stops = frozenset()
    else:
        stops = read_stop_words(stop_words)
    opts = ExtractOptions(kind=kind, field=field or "text", split=split, patterns=parse_patterns(patterns),
                          stop_words=stops, merge_plurals=not keep_plurals, drop_nested=not keep_nested,
                          queries=queries, min_df=min_df, max_items=max_items,
                          join_broken=not keep_line_hyphens)
    opts.validate()
    if sidecar is None and str(output) == "-":
        raise InputError("-o - sends the transactions to standard output: give the sidecar a file name (--sidecar)")
    side = sidecar if sidecar is not None else sidecar_path(output)
    check_outputs({"-o": output, "--sidecar": side}, list(sources), stdout_taken="--json" if json_out else None)
    with StderrProgress("extracting") as bar:
        report = run(sources, output, sidecar=side, opts=opts, progress=bar)
    if json_out:
        emit_json(report)
    else:
        warn(f"extracted {report.items:,} items ({report.distinct_items:,} distinct) from {report.documents:,} "
             f"documents into {report.output} ({report.empty:,} empty, '-'); sources in {report.sidecar} "
             f"({report.seconds:.2f} s)")
