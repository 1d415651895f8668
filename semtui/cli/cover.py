"""``semtui cover``: cover problems in a disassociated release and the breaches they allow
(exit 0 none, 1 a breach found, 2 bad input)."""

from __future__ import annotations

from pathlib import Path

import typer

from semtui.cli import exitcodes
from semtui.cli.common import emit_json
from semtui.wording import counted, problem_chunks


def cover(
    data: Path = typer.Argument(..., help="The disassociated release (semtui-disassociated/2 or /1 JSON)."),
    attacker: str = typer.Option("strong", "--attacker", help="strong, moderate (needs --original) or weak."),
    original: Path | None = typer.Option(None, "--original", help="The original transactions: the moderate "
                                         "attacker's records, and which covered pairs really co-occur."),
    knowledge: Path | None = typer.Option(None, "--knowledge", help="Background knowledge: one itemset per line "
                                          "(replaces --attacker)."),
    key: Path | None = typer.Option(None, "--key", help="The release's private key: every problem lists the "
                                    "records it reaches (with --original, their source lines)."),
    seed: int = typer.Option(0, "--seed", help="Seed of the moderate and weak attackers' knowledge."),
    json_out: bool = typer.Option(False, "--json", help="The JSON report on stdout."),
) -> None:
    """List every cover problem of a disassociated release and the records an attacker can breach."""
    from semtui.attacks.cover import CoverOptions, run_cover
    from semtui.cli.common import StderrProgress, options_error
    from semtui.errors import InputError
    from semtui.fileio import check_inputs
    from semtui.release import DISASSOCIATED, open_release

    try:
        opts = CoverOptions(attacker=attacker, knowledge=None if knowledge is None else str(knowledge), seed=seed)
    except InputError as exc:
        raise options_error(exc) from None
    check_inputs({"DATA": data, "--original": original, "--knowledge": knowledge, "--key": key})
    opened = open_release(data, original=original, key=key, require=DISASSOCIATED)
    sources = {"data": str(data), "original": None if original is None else str(original),
               "knowledge": None if knowledge is None else str(knowledge)}
    if key is not None:
        sources["key"] = str(key)
    with StderrProgress("cover") as bar:
        try:
            report = run_cover(opened.data, opts, original=opened.original, key=opened.key, progress=bar,
                               sources=sources)
        except InputError as exc:
            raise options_error(exc) from None
    if json_out:
        emit_json(report)
    else:
        _print(report)
    if report.summary.breaches:
        raise typer.Exit(exitcodes.FOUND)


def _print(report) -> None:
    """The cover problem's summary in words, from its typed report (:class:`CoverReport`)."""
    from semtui.attacks.cover import covering_words

    s = report.summary
    data = report.source("data")
    who = report.attacker if report.attacker != "knowledge" else f"knowledge from {report.source('knowledge')}"
    lines = [f"{data}: {counted(s.cover_problems, 'cover problem')} in {counted(s.clusters, 'cluster')}; "
             f"attacker {who}: {counted(s.breaches, 'breach', 'breaches')}, "
             f"{counted(s.vulnerable_records, 'vulnerable record')} of {s.transactions} "
             f"({counted(s.clusters_with_breaches, 'cluster')})."]
    unbreached = s.cover_problems - s.breaches
    if report.attacker != "strong" and unbreached > 0:
        # never an all-clear from a weaker attacker: say what the paper's attacker gets
        lines.append(f"  {unbreached} of the {s.cover_problems} cover problems are not breaches for this "
                     f"attacker's knowledge only: the strong attacker (the paper's: every pair of every record) "
                     f"breaches all {s.cover_problems} (semtui cover {data}).")
    if s.real_pairs is not None:
        lines.append(f"  {s.real_pairs} of the {s.cover_problems} (x, covered item) pairs really occur "
                     "together in some original record.")
    shown = report.breached[:20]
    for p in shown:
        # the chunks by their one name (a shared chunk of REFINE's joint cluster is J1/S1, as the TUI says)
        at, earlier = problem_chunks(p)
        lines.append(f"  {p.cluster} {at} {p.x} (support {p.support_x}) -> {earlier} "
                     f"covered {', '.join(p.covered)} by {covering_words(p)} "
                     f"(itemset support {p.itemset_support})")
    more = s.breaches - len(shown)
    if more > 0:
        lines.append(f"  ... {more} more (--json lists them all)")
    if s.breached_records is not None:
        real_of: dict[tuple, bool] = {}
        for p in report.breached:
            for r in p.records or ():
                k = (r.transaction, r.line)
                real_of[k] = real_of.get(k, False) or bool(r.holds_covered)
        recs = sorted(real_of, key=lambda k: (not real_of[k], k[0]))  # those really holding the pair first
        where = ", ".join(f"T{t + 1}" + (f" (line {line})" if line is not None else "") for t, line in recs[:20])
        real = (f" ({s.breached_records_real} really hold x with the covered item)"
                if s.breached_records_real is not None else "")
        lines.append(f"  records a breach reaches: {s.breached_records}{real}" + (f": {where}" if where else "")
                     + (" ..." if len(recs) > 20 else ""))
    typer.echo("\n".join(lines))
