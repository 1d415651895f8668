"""``semtui check``: independent checks of a release (exit 0 holds, 1 does not, 2 bad input)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from semtui.cli.common import emit_json
from semtui.wording import counted

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
    from semtui.checks.privacy import check_privacy, read_constraints
    from semtui.errors import InputError
    from semtui.fileio import check_inputs
    from semtui.release import TRANSACTIONS, read_release

    if k < 1:
        raise InputError(f"-k must be at least 1 (got {k})")
    check_inputs({"SETGEN": setgen, "--privacy": constraints})
    cons = read_constraints(constraints)
    data = read_release(setgen, require=TRANSACTIONS, format=format)  # the witness reads no sidecar
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


@app.command("km")
def km(
    file: Annotated[Path, typer.Argument(
        help="Transactions (plain, or set-generalised: a generalised item counts as one item) or a disassociated release.")],
    k: Annotated[int, typer.Option("-k", help="Every itemset of at most m items that occurs, occurs >= k times.")],
    m: Annotated[int, typer.Option("-m", help="The size of the largest itemset an attacker knows.")],
    key: Annotated[Path | None, typer.Option("--key", help="The private key of a disassociated release.")] = None,
    original: Annotated[Path | None, typer.Option(
        "--original", help="The original transactions (with --key): check every item's place.")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="JSON on stdout")] = False,
) -> None:
    """k^m-anonymity: of transactions (a k^m release: each generalised item one item), or of every record
    chunk of a disassociated release (exit 1 if not)."""
    from semtui.cli.common import StderrProgress
    from semtui.errors import InputError
    from semtui.families import family_of
    from semtui.fileio import check_inputs
    from semtui.release import read_release, with_companions

    if k < 1:
        raise InputError(f"-k must be at least 1 (got {k})")
    if m < 1:
        raise InputError(f"-m must be at least 1 (got {m})")
    if (key is None) != (original is None):
        raise InputError("--key and --original go together")
    check_inputs({"FILE": file, "--key": key, "--original": original})
    data = read_release(file)
    family = family_of(data)
    empty = family.holds_nothing(data)
    if empty:  # a check that would exercise nothing is refused, not passed
        raise InputError(f"nothing to check: {empty}", file)
    # the witness reads no sidecar: only the key and the original are checked to belong
    release = with_companions(data, file, original=original, key=key, read_sidecar=False)
    with StderrProgress("checking") as progress:
        report = family.check_km(release, k, m, progress=progress)
    doc = report.to_json()
    if json_out:
        emit_json({"file": str(file), **doc})
    else:
        typer.echo("\n".join(_km_lines(file, doc)))
    if not report.holds:
        from semtui.cli import exitcodes

        raise typer.Exit(exitcodes.FOUND)


def _km_lines(file: Path, doc: dict) -> list[str]:
    verdict = "holds" if doc["holds"] else "VIOLATED"
    what = (f"{counted(doc['rows_checked'], 'sub-record')} in {counted(doc['record_chunks'], 'record chunk')} of "
            f"{counted(doc['clusters'], 'cluster')}"
            if doc["kind"] == "disassociated" else f"{doc['rows_checked']} transactions")
    lines = [f"{file}: k^m-anonymity {verdict} for k={doc['k']}, m={doc['m']}: {what}, "
             f"{doc['n_violations']} minimal violating itemsets"]
    if doc["n_violations"]:
        sizes = ", ".join(f"{n} of size {s}" for s, n in doc["violations_by_size"].items() if n)
        lines.append(f"  ({sizes}); the first {len(doc['violations'])}:")
    for v in doc["violations"]:
        where = f" in {v['where']}" if "where" in v else ""
        lines.append(f"  support {v['support']}{where}: {', '.join(v['itemset'])}")
    if doc["kind"] == "disassociated":
        for p in doc["structure_problems"]:
            lines.append(f"  structure: {p}")
        if doc["key_checked"]:
            key = doc["key"]
            bad = {name[2:]: n for name, n in key.items() if name.startswith("n_") and n}
            if not bad:
                lines.append("  key: every original item occurrence is where the key says, once; "
                             "every term-chunk term is below k in its cluster")
                if key.get("suppressed_occurrences"):
                    lines.append(f"  key: {key['suppressed_occurrences']} occurrences suppressed (safe "
                                 "disassociation): original occurrences, nowhere in the release")
            for name, n in bad.items():
                lines.append(f"  key: {n} {name.replace('_', ' ')}, e.g. {key[name][0]}")
    return lines
