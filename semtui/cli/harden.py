"""``semtui harden``: anonymise so that the strongest attacker cannot read the groups, and prove it
with the same attacks (the engine: :mod:`semtui.harden`; docs/anonymize.md, *Hardening*)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from semtui.errors import InputError
from semtui.wording import check_words, support_error


def harden(
    orig: Annotated[Path, typer.Argument(help="The original transactions (stay private).")],
    family: Annotated[str, typer.Option("--family", help="setgen (COAT-style set generalisation), km (k^m "
                                        "over a hierarchy) or disassoc (disassociation with REFINE, made safe).")],
    k: Annotated[int, typer.Option("-k", help="The same k as anonymize: it is never lowered.")],
    out: Annotated[Path, typer.Option("-o", "--output", help="The hardened release ('-': standard output).")],
    m: Annotated[int | None, typer.Option("-m", help="km, disassoc: the attacker knows at most m items of a "
                                          "transaction.")] = None,
    max_cluster_size: Annotated[int | None, typer.Option(
        "--max-cluster-size", help="disassoc: HORPART splits clusters larger than this (>= k).")] = None,
    key: Annotated[Path | None, typer.Option(
        "--key", help="disassoc: also write the private key (mode 0600) that links the release to ORIG.")] = None,
    privacy: Annotated[Path | None, typer.Option(
        "--privacy", help="setgen: privacy constraints, one itemset per line.")] = None,
    random_n: Annotated[int | None, typer.Option(
        "--random-privacy", help="setgen: draw N random privacy constraints from the data instead.")] = None,
    sizes: Annotated[str, typer.Option("--sizes", help="setgen: sizes of the random constraints, e.g. 3-6.")] = "3-6",
    seed: Annotated[int, typer.Option("--seed", min=0, help="setgen: seed of the random constraints.")] = 0,
    utility: Annotated[str, typer.Option(
        "--utility", help="setgen: the utility constraints hardening stays inside (as anonymize setgen's: all, "
        "wordnet, freq[:B], similar[:B[:S]] or a FILE).")] = "all",
    hierarchy: Annotated[Path | None, typer.Option(
        "--hierarchy", help="km: the hierarchy (default: one harden builds, siblings alike in support and "
        "co-occurrence, written beside the release).")] = None,
    algorithm: Annotated[str, typer.Option("--algorithm", help="km: aa, da, oa, lra or vpa.")] = "aa",
    knowledge: Annotated[str, typer.Option(
        "--knowledge", help="What the attacker is assumed to know: self (the original's own statistics, the "
        "informed reference) or a background (FILE, counts:FILE).")] = "self",
    sidecar: Annotated[Path | None, typer.Option(
        "--sidecar", help="The release's sidecar as anonymize writes it (default OUT.json; '-': standard output).")] = None,
    report: Annotated[Path | None, typer.Option(
        "--report", help="The proof, semtui-harden-report/1 ('-': standard output).")] = None,
    format: Annotated[str | None, typer.Option("--format", "-f", help="Format of ORIG (default: detect).")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the report on stdout.")] = False,
) -> None:
    """A release of the family whose generalised items the strongest attacker cannot read, with the
    proof: the hardened and the plain release attacked alike (writes OUT, its sidecar OUT.json as
    anonymize does, and with --report the proof)."""
    from semtui import formats
    from semtui.cli.common import StderrProgress, default_sidecar, echo, warn, write_outputs
    from semtui.fileio import check_outputs, is_stdout
    from semtui.harden import SELF, hardening_of

    hardening = hardening_of(family)  # a family harden does not build (disassoc) is said in one line
    if k < 1:
        raise InputError(f"-k must be at least 1 (got {k})")
    given = {"--privacy": privacy is not None, "--random-privacy": random_n is not None, "--utility": utility != "all",
             "--sizes": sizes != "3-6", "--seed": seed != 0, "-m": m is not None, "--hierarchy": hierarchy is not None,
             "--algorithm": algorithm != "aa", "--max-cluster-size": max_cluster_size is not None,
             "--key": key is not None}
    wrong = [o for o, g in given.items() if g and o not in hardening.options]
    if wrong:
        from semtui.harden import HARDENINGS

        whose = " or ".join(f"--family {h.name}" for h in HARDENINGS.values() if wrong[0] in h.options)
        raise InputError(f"{wrong[0]} goes with {whose}: not with --family {family}")
    if "--privacy" in hardening.options:  # set generalisation: its constraints, as anonymize setgen takes them
        if (privacy is None) == (random_n is None):
            raise InputError("give exactly one of --privacy FILE or --random-privacy N")
        if privacy is not None and (sizes != "3-6" or seed != 0):
            raise InputError("--sizes and --seed only apply to --random-privacy")
        if random_n is not None and random_n < 1:
            raise InputError(f"--random-privacy must be at least 1 (got {random_n})")
        from semtui.anonymize.setgen import parse_sizes, utility_files

        parse_sizes(sizes)
        params = {"k": k, "privacy": privacy, "random_privacy": random_n, "sizes": sizes, "seed": seed,
                  "utility": utility}
        reads = {"--utility": utility_files(utility)}
    elif "--max-cluster-size" in hardening.options:  # disassociation: its parameters, as anonymize disassoc's
        if m is None or max_cluster_size is None:
            raise InputError(f"--family {family} needs -m and --max-cluster-size")
        from semtui.anonymize.disassociation import check_parameters

        check_parameters(k, m, max_cluster_size)
        params = {"k": k, "m": m, "max_cluster_size": max_cluster_size}
        reads = {}
    else:  # k^m
        if m is None:
            raise InputError(f"--family {family} needs -m")
        if m < 1:
            raise InputError(f"-m must be at least 1 (got {m})")
        from semtui.anonymize.hierarchy import ALGORITHMS

        if algorithm not in ALGORITHMS:
            raise InputError(f"unknown --algorithm {algorithm!r} (choose from {', '.join(ALGORITHMS)})")
        params = {"k": k, "m": m, "algorithm": algorithm, "hierarchy": hierarchy}
        reads = {}
    knowledge = str(knowledge).strip()
    if not knowledge:
        raise InputError("--knowledge is empty (give self, or a background FILE)")
    if knowledge.startswith("wordfreq:"):
        raise InputError("--knowledge: a frequency list has no co-occurrence to harden against; give self or "
                         "transactions of a similar population")
    if sidecar is not None and not hardening.sidecar:
        raise InputError(f"--sidecar: a release of --family {family} has none (it records its k and m itself)")
    side = None if not hardening.sidecar else sidecar if sidecar is not None else default_sidecar(out, "--sidecar")
    if is_stdout(out) and hardening.built_hierarchy("x", hierarchy) is not None:
        raise InputError(f"-o - : the hierarchy --family {family} builds is written beside the release; give -o "
                         "FILE (or --hierarchy)")
    built = hardening.built_hierarchy(out, hierarchy)
    outputs = {"-o": out, "--sidecar": side, "--key": key, "hierarchy": built, "--report": report}
    inputs = {"ORIG": orig, "--privacy": privacy, "--hierarchy": hierarchy, **reads}
    if knowledge != SELF:
        from semtui.attacks.background import background_files

        inputs["--knowledge"] = (background_files(knowledge) or [None])[0]
    check_outputs({a: b for a, b in outputs.items() if b is not None}, {a: b for a, b in inputs.items() if b is not None},
                  stdout_taken="--json" if json_out else None)
    data = formats.read_transactions(orig, format)
    given_h = None
    if hierarchy is not None:
        from semtui.formats.hierarchy import read_hierarchy

        given_h = read_hierarchy(hierarchy)
    from semtui.harden import harden as run_harden

    with StderrProgress("hardening") as progress:
        done = run_harden(data, family=family, params=params, knowledge=knowledge, original_path=orig, output=out,
                          hierarchy=given_h, progress=progress, note=warn, key=key)
    doc = done.report
    writes = hardening.outputs(done, output=out, sidecar=side, hierarchy_path=hierarchy if hierarchy is not None
                               else built, knowledge=knowledge, key=key)
    if report is not None:
        writes.append((report, doc, True))  # scored against the original: private
    write_outputs(writes)
    if json_out:
        from semtui.cli.common import emit_json

        emit_json(doc)
        return
    echo(summary(doc, out, side, report))


def summary(doc, out, side, report) -> str:
    """The human summary: the verdict, then each release's check, utility and attacks (each
    attack's line is the engine's, :meth:`clause`)."""
    lines = [f"{out}: hardened {doc.family} release ({doc.method['name']}), k={doc.params['k']}"
             + (f", m={doc.params['m']}" if "m" in doc.params else "")
             + (f"; sidecar {side}" if side is not None else "") + (f"; report {report}" if report is not None else ""),
             f"  {doc.verdict()}"]
    for proof in (doc.hardened, doc.plain, *doc.others):
        u = proof.utility
        lines.append(f"  {proof.label}: {check_words(proof.check, full=True)}; "
                     f"pair supports off by {support_error(u.get('pair_support_error'))}, "
                     f"item supports by {support_error(u.get('item_support_error'))}"
                     + (f", {u['suppressed_items']} items suppressed" if u.get("suppressed_items") else "")
                     + (f", {_pct(u['associated_share'])} of (cluster, item) pairs associated"
                        if u.get("associated_share") is not None else ""))
        for a in proof.attacks:
            lines.append(f"    {a.clause()}; {a.command}")
    relaxed = doc.utility_constraints.get("relaxed") or []
    if relaxed:
        lines.append(f"  {len(relaxed)} hardening classes relaxed (merged with a neighbour): COAT would have "
                     "suppressed an item the plain release keeps")
    lines.append("  Not modelled: " + "; ".join(doc.not_modelled))
    return "\n".join(lines)


def _pct(v) -> str:
    return "-" if v is None else f"{v:.1%}"
