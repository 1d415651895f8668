"""``semtui anonymize``: release a dataset the way a publisher would, to attack it after."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from semtui.cli.common import emit_json
from semtui.errors import InputError

app = typer.Typer(
    help="Anonymise transactions the way a publisher would (then attack the release).",
    no_args_is_help=True,
)

@app.command("setgen")
def setgen(
    orig: Annotated[Path, typer.Argument(help="The original transactions (stay private).")],
    k: Annotated[int, typer.Option("-k", help="Every privacy constraint ends with support >= k or 0.")],
    out: Annotated[Path, typer.Option("-o", "--output", help="The set-generalised release (text; '-': standard output).")],
    privacy: Annotated[Path | None, typer.Option(
        "--privacy", help="Privacy constraints: one itemset per line.")] = None,
    random_n: Annotated[int | None, typer.Option(
        "--random-privacy", help="Draw N random privacy constraints from the data instead.")] = None,
    sizes: Annotated[str, typer.Option("--sizes", help="Sizes of the random constraints, e.g. 3-6.")] = "3-6",
    seed: Annotated[int, typer.Option("--seed", min=0, help="Seed of the random constraints.")] = 0,
    utility: Annotated[str, typer.Option(
        "--utility", help="all (one set of every item), wordnet, freq[:BANDS] (items of similar support), "
        "similar[:BANDS[:SIZE]] (similar support and meaning), or a FILE of item sets.")] = "all",
    sidecar: Annotated[Path | None, typer.Option(
        "--sidecar", help="JSON sidecar path (default OUT.json; '-': standard output).")] = None,
    format: Annotated[str | None, typer.Option(
        "--format", "-f", help="Format of ORIG: plain, setgen, fimi or jsonl (default: detect).")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the sidecar on stdout.")] = False,
    unmarked: Annotated[bool, typer.Option(
        "--unmarked", help="Write each generalised item as its members, as plain items (the groups unmarked).")] = False,
) -> None:
    """Set-based generalisation in the manner of COAT; writes OUT and a JSON sidecar."""
    from semtui import formats
    from semtui.anonymize.setgen import parse_sizes, utility_files
    from semtui.cli.common import StderrProgress, default_sidecar, echo, names, warn, write_outputs
    from semtui.families import FAMILIES, FileSources
    from semtui.fileio import check_outputs
    from semtui.formats.text import dump_setgen

    if (privacy is None) == (random_n is None):
        raise InputError("give exactly one of --privacy FILE or --random-privacy N")
    if privacy is not None and (sizes != "3-6" or seed != 0):
        raise InputError("--sizes and --seed only apply to --random-privacy")
    if k < 1:
        raise InputError(f"-k must be at least 1 (got {k})")
    side = sidecar if sidecar is not None else default_sidecar(out, "--sidecar")
    check_outputs({"-o": out, "--sidecar": side},  # inputs are never written
                  {"ORIG": orig, "--privacy": privacy, "--utility": utility_files(utility)},
                  stdout_taken="--json" if json_out else None)
    parse_sizes(sizes)
    data = formats.read_transactions(orig, format)
    family = FAMILIES["setgen"]
    params = {"k": k, "privacy": privacy, "random_privacy": random_n, "sizes": sizes, "seed": seed,
              "utility": utility, "unmarked": unmarked}
    # fewer distinct random constraints than asked for is warned about as soon as it is known
    request = family.prepare(data, params, FileSources(data), original_path=orig, output=out, note=warn)

    with StderrProgress("anonymising") as progress:
        made = family.anonymise(request, progress=progress)

    result, doc, released = made.result, made.sidecar, made.released
    # the release and its sidecar are committed together; the sidecar names the original's
    # privacy constraints and suppressed items (and, unmarked, the groups), so a new one is private (0600)
    write_outputs([(out, lambda fh: dump_setgen(released, fh, out), False), (side, doc, True)])

    if result.unknown_items:
        warn(f"{len(result.unknown_items)} privacy-constraint item(s) not in {orig} (support 0): "
             f"{names(result.unknown_items)}")
    if json_out:
        emit_json(doc)
        return
    from semtui.wording import utility_loss_words

    s = result.summary()
    echo(
        f"{out}: {s['n_transactions']:,} transactions, {s['n_privacy_constraints']:,} privacy constraints "
        f"({s['violated_before']:,} unprotected before), k={k}\n"
        f"  {s['generalised_items']:,} generalised items over {s['items_generalised']:,} items, "
        f"{s['added_items']:,} added items, {s['suppressed_items']:,} items suppressed "
        f"({s['suppressed_occurrences']:,} occurrences)\n"
        f"  {utility_loss_words(s['utility_loss'], s['added_items'], s['n_transactions'])}\n"
        f"  {s['seconds']:.2f} s; sidecar {side}"
        + ("\n  unmarked: each generalised item written as its members, as plain items; the sidecar records "
           "the groups (keep it private)" if unmarked else "")
    )


@app.command("km")
def km(
    orig: Annotated[Path, typer.Argument(help="The original transactions (stay private).")],
    hierarchy: Annotated[Path, typer.Option("--hierarchy", help="The generalisation hierarchy (leaf;...;*).")],
    k: Annotated[int, typer.Option("-k", help="Every itemset of at most m items occurs 0 or >= k times.")],
    m: Annotated[int, typer.Option("-m", help="The attacker knows at most m items of a transaction.")],
    out: Annotated[Path, typer.Option("-o", "--output", help="The generalised release ('-': standard output).")],
    algorithm: Annotated[str, typer.Option("--algorithm", help="aa, da, oa, lra or vpa.")] = "aa",
    release_format: Annotated[str, typer.Option(
        "--release-format", help="nodes: a generalised item written as its hierarchy node, {label}, the "
        "release naming its hierarchy (the k^m release format); leaves: as the list of its leaves "
        "(set-generalised text).")] = "nodes",
    ml2_support: Annotated[float, typer.Option(
        "--ml2-support", help="Support threshold of ML²/dML²'s frequent itemsets, a share of the transactions "
        "(the paper's 0.02); 0 skips ML².")] = 0.02,
    ml2_max_size: Annotated[int, typer.Option(
        "--ml2-max-size", help="Largest itemset ML² mines (0: no cap).")] = 4,
    parts: Annotated[str, typer.Option(
        "--parts", help="LRA: transaction parts; VPA: domain parts. auto: LRA as many as keep >= k non-empty "
        "transactions each, at most 3; VPA 3.")] = "auto",
    jobs: Annotated[int, typer.Option("--jobs", help="Processes for the parts of LRA and VPA.")] = 1,
    scheduler: Annotated[str | None, typer.Option("--scheduler", help="LRA/VPA: run the parts on a Dask cluster: "
                                                  "local:N or tcp://HOST:PORT (needs semtui[dask]).")] = None,
    members: Annotated[str, typer.Option(
        "--members", help="A node is written as its leaves seen in ORIG (observed) or all its leaves.")] = "observed",
    minimal: Annotated[bool, typer.Option(
        "--minimal/--no-minimal", help="Lower the rules the greedy committed that the data does not need, "
        "so the cut is minimal (ours, not the paper's; --no-minimal gives the paper's DA/AA/LRA/VPA as written).")] = True,
    report: Annotated[Path | None, typer.Option("--report", help="The JSON report, the release's sidecar (default OUT.json; '-': standard output).")] = None,
    format: Annotated[str | None, typer.Option("--format", "-f", help="Format of ORIG (default: detect).")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the report on stdout.")] = False,
) -> None:
    """k^m-anonymity by hierarchy generalisation (Terrovitis et al. 2011); every reader of a
    set-generalised release (`semtui attack setgen`, open, info) reads the release, and its
    k, m and cut from the report beside it (OUT.json)."""

    from semtui import formats
    from semtui.anonymize.hierarchy import ALGORITHMS
    from semtui.cli.common import StderrProgress, default_sidecar, echo, note_jobs, warn, write_outputs
    from semtui.families import FAMILIES, FileSources
    from semtui.fileio import check_outputs
    from semtui.formats.hierarchy import read_hierarchy

    if algorithm not in ALGORITHMS:
        raise InputError(f"unknown --algorithm {algorithm!r} (choose from {', '.join(ALGORITHMS)})")
    if k < 1 or m < 1:
        raise InputError(f"-k and -m must be at least 1 (got k={k}, m={m})")
    n_parts: int | None = None
    if parts != "auto":
        try:
            n_parts = int(parts)
        except ValueError:
            raise InputError(f"--parts must be 'auto' or a positive integer (got {parts!r})") from None
    if (n_parts is not None and n_parts < 1) or jobs < 1:
        raise InputError(f"--parts and --jobs must be at least 1 (got {parts}, {jobs})")
    if (n_parts is not None or jobs != 1 or scheduler is not None) and algorithm not in ("lra", "vpa"):
        raise InputError("--parts, --jobs and --scheduler only apply to --algorithm lra or vpa")
    if release_format not in ("nodes", "leaves"):
        raise InputError(f"--release-format must be nodes or leaves (got {release_format!r})")
    if not 0 <= ml2_support <= 1:
        raise InputError(f"--ml2-support must be a share in [0, 1] (got {ml2_support})")
    if ml2_max_size < 0:
        raise InputError(f"--ml2-max-size must be 0 (no cap) or more (got {ml2_max_size})")
    from semtui.cli.common import options_error
    from semtui.runtime.cluster import check_scheduler

    try:
        scheduler = check_scheduler(scheduler)
    except InputError as exc:
        raise options_error(exc) from None
    side = report if report is not None else default_sidecar(out, "--report")
    check_outputs({"-o": out, "--report": side}, {"ORIG": orig, "--hierarchy": hierarchy},
                  stdout_taken="--json" if json_out else None)
    h = read_hierarchy(hierarchy)
    data = formats.read_transactions(orig, format)
    note_jobs(jobs)
    family = FAMILIES["km"]
    params = {"k": k, "m": m, "algorithm": algorithm, "hierarchy": hierarchy, "parts": n_parts,
              "scheduler": scheduler, "members": members, "minimal": minimal, "ml2_support": ml2_support or None,
              "ml2_max_size": ml2_max_size or None}
    request = family.prepare(data, params, FileSources(data, given_hierarchy=h), original_path=orig, output=out,
                             jobs=jobs)
    with StderrProgress(f"k^m {algorithm}") as progress:
        made = family.anonymise(request, progress=progress)
    result = made.result
    from semtui.model.info import fact_text

    written, why = family.written_format(made, release_format, hierarchy)
    if why is not None:
        warn("the release is written as leaf lists: " + why)
    doc = family.report(made, hierarchy_path=hierarchy, written=written, output=out)
    write_release = family.writer(made, doc, written, out)
    # the release and its report (its sidecar) are committed together; neither holds original records
    write_outputs([(out, write_release), (side, doc)])
    if json_out:
        emit_json(doc)
        return
    rules = len(doc["cut"]) if "cut" in doc else sum(len(c["cut"]) for c in doc["local_cuts"])
    mining = ""
    if result.ml2 is not None and result.ml2["ml2"] is not None:
        mining = f", ML² {fact_text('ml2', result.ml2['ml2'])}, dML² {fact_text('dml2', result.ml2['dml2'])}"
    echo(f"{out}: {result.data.n_transactions} transactions, k={k}, m={m}, {algorithm.upper()}: "
               f"{rules} generalisation rules, {result.data.n_generalised} generalised items, "
               f"NCP {fact_text('ncp', result.ncp)}{mining}, {result.count_tree_nodes} count-tree nodes, "
               f"{result.seconds:.2f} s; report {side}")


@app.command("disassoc")
def disassoc(
    orig: Annotated[Path, typer.Argument(help="The original (plain) transactions; they stay private.")],
    k: Annotated[int, typer.Option("-k", help="Every itemset of at most m items of a record chunk occurs >= k times.")],
    m: Annotated[int, typer.Option("-m", help="The attacker knows up to m items of a record.")],
    max_cluster_size: Annotated[int, typer.Option(
        "--max-cluster-size", help="HORPART splits clusters larger than this (>= k).")],
    out: Annotated[Path, typer.Option("-o", "--output", help="The disassociated release (JSON; '-': standard output).")],
    key: Annotated[Path | None, typer.Option(
        "--key", help="Also write the private key (mode 0600) that links the release to ORIG ('-': standard output).")] = None,
    safe: Annotated[bool, typer.Option(
        "--safe", help="Then remove every cover problem (after Awad et al. 2019): in record chunks by partial "
        "suppression (the suppressed occurrences are lost, the key lists them), in REFINE's shared chunks by putting "
        "the item back into its clusters' term chunks.")] = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print a summary as JSON on stdout.")] = False,
    refine: Annotated[bool, typer.Option(
        "--refine/--no-refine", help="REFINE, the paper's third step: joint clusters of neighbouring clusters whose "
        "shared chunks keep term-chunk items associated (--no-refine: HORPART + VERPART only).")] = True,
    joint_max_size: Annotated[int | None, typer.Option(
        "--joint-max-size", help="The most records of a joint cluster (default 500; >= 2k).")] = None,
    seed: Annotated[int, typer.Option(
        "--seed", help="Seed of the random order of identical sub-records in every chunk (the release is the same "
        "for every seed; the key is not).")] = 0,
) -> None:
    """Disassociation (HORPART + VERPART + REFINE, Terrovitis et al. 2012): clusters of record chunks and a term
    chunk, and joint clusters of shared chunks."""
    from semtui import formats
    from semtui.anonymize.disassociation import check_parameters
    from semtui.anonymize.disassociation.refine import check_joint_max_size
    from semtui.cli.common import StderrProgress, echo, write_outputs
    from semtui.families import FAMILIES, FileSources
    from semtui.fileio import check_outputs
    from semtui.formats.disassociated import dump_disassociated, dump_key

    check_parameters(k, m, max_cluster_size, seed)
    if refine:
        check_joint_max_size(k, joint_max_size)
    elif joint_max_size is not None:
        raise InputError("--joint-max-size is REFINE's: it does not go with --no-refine")
    check_outputs({"-o": out, "--key": key}, [orig], stdout_taken="--json" if json_out else None)
    data = formats.read_transactions(orig)
    family = FAMILIES["disassoc"]
    params = {"k": k, "m": m, "max_cluster_size": max_cluster_size, "refine": refine,
              "joint_max_size": joint_max_size, "safe": safe, "seed": seed}
    request = family.prepare(data, params, FileSources(data), original_path=orig, output=out)
    with StderrProgress("disassociating") as progress:
        made = family.anonymise(request, progress=progress)
    result = made.result
    # the release and its key are committed together; the key undoes the release (0600)
    outputs = [(out, lambda fh: dump_disassociated(result.data, fh), False)]
    if key is not None:
        outputs.append((key, lambda fh: dump_key(result.key, fh), True))
    write_outputs(outputs)
    doc = family.report(made, output=out, key=key)
    if json_out:
        emit_json(doc)
        return
    over = doc.get("clusters_over_max_size") or 0
    why = (f"; {over} cluster{'s' if over != 1 else ''} over the maximum: identical records, which HORPART cannot split"
           if over else "")
    echo(
        f"{out}: {doc['n_transactions']} transactions in {doc['clusters']} clusters (largest {doc['largest_cluster']}{why}), "
        f"k={k}, m={m}, max cluster size {max_cluster_size}\n"
        f"  {doc['record_chunks']} record chunks, {doc['term_chunk_terms']} term-chunk terms\n"
        + (f"  {doc['joint_clusters']} joint clusters ({doc['clusters_in_joint_clusters']} clusters) with "
           f"{doc['shared_chunks']} shared chunks took {doc['moved_term_pairs']} (cluster, item) pairs out of term "
           "chunks\n" if doc.get("refine") else "")
        + f"  {doc['associated_share']:.1%} of (cluster, item) pairs stay in record or shared chunks "
          f"({doc.get('associated_share_record_chunks', doc['associated_share']):.1%} in record chunks); "
          f"{doc['seconds']:.2f} s"
        + (f"; key {key}" if key is not None else "")
        + ("" if not safe else
           f"\n  safe: {doc['safe']['cover_problems_before']} cover problems removed by suppressing "
           f"{doc['safe']['suppressed_occurrences']} occurrences of {doc['safe']['suppressed_items']} items "
           f"({doc['safe']['cuts']} cuts, {doc['safe']['drops']} items dropped from a chunk, "
           f"{doc['safe']['lost_pairs']} (cluster, item) pairs lost)"
           + (f"; {doc['safe']['unshared_items']} items taken out of shared chunks put "
              f"{doc['safe']['unshared_pairs']} (cluster, item) pairs back into term chunks"
              if doc['safe'].get('shared_problems_before') else ""))
    )

