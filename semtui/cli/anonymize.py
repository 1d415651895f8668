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

SIDECAR_FORMAT = "semtui-setgen-sidecar/1"
UL_FUNCTION = "sum over generalised items g of (2^|g| - 1) * sup(g) / N (COAT's UL, unit weights)"


@app.command("setgen")
def setgen(
    orig: Annotated[Path, typer.Argument(help="The original transactions (stay private).")],
    k: Annotated[int, typer.Option("-k", help="Every privacy constraint ends with support >= k or 0.")],
    out: Annotated[Path, typer.Option("-o", "--output", help="The set-generalised release (text).")],
    privacy: Annotated[Path | None, typer.Option(
        "--privacy", help="Privacy constraints: one itemset per line.")] = None,
    random_n: Annotated[int | None, typer.Option(
        "--random-privacy", help="Draw N random privacy constraints from the data instead.")] = None,
    sizes: Annotated[str, typer.Option("--sizes", help="Sizes of the random constraints, e.g. 3-6.")] = "3-6",
    seed: Annotated[int, typer.Option("--seed", min=0, help="Seed of the random constraints.")] = 0,
    utility: Annotated[str, typer.Option(
        "--utility", help="all (one set of every item), wordnet, or a FILE of item sets.")] = "all",
    sidecar: Annotated[Path | None, typer.Option(
        "--sidecar", help="JSON sidecar path (default OUT.json).")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the sidecar on stdout.")] = False,
) -> None:
    """Set-based generalisation in the manner of COAT; writes OUT and a JSON sidecar."""
    import json

    from semtui import formats
    from semtui.anonymize import anonymize, parse_sizes, random_privacy, read_privacy, read_utility
    from semtui.cli.common import StderrProgress, warn
    from semtui.fileio import atomic_writer
    from semtui.formats.text import dump_setgen

    if (privacy is None) == (random_n is None):
        raise InputError("give exactly one of --privacy FILE or --random-privacy N")
    if privacy is not None and (sizes != "3-6" or seed != 0):
        raise InputError("--sizes and --seed only apply to --random-privacy")
    if k < 1:
        raise InputError(f"-k must be at least 1 (got {k})")
    side = sidecar if sidecar is not None else Path(str(out) + ".json")
    _check_outputs(orig, out, side, privacy, utility)
    lo, hi = parse_sizes(sizes)
    data = formats.read_transactions(orig)
    if privacy is not None:
        constraints = read_privacy(privacy)
        source = {"source": "file", "file": str(privacy)}
    else:
        constraints = random_privacy(data, random_n, (lo, hi), seed)
        if len(constraints) < random_n:
            warn(f"only {len(constraints)} distinct random constraints of sizes {lo}-{hi} exist in {orig} "
                 f"(asked for {random_n})")
        source = {"source": "random", "n": random_n, "sizes": [lo, hi], "seed": seed}
    utility_sets = _utility(utility, data, constraints, read_utility)

    with StderrProgress("anonymising") as progress:
        result = anonymize(data, constraints, k, utility_sets, progress=progress)

    doc = {
        "format": SIDECAR_FORMAT,
        "original": str(orig),
        "output": str(out),
        "k": k,
        "privacy": source,
        "utility": utility,
        "privacy_constraints": result.privacy,
        "utility_constraints": result.utility,
        "generalisation": result.generalisation,
        "generalised_item_supports": dict(zip(result.generalisation, result.group_supports)),
        "suppressed": result.suppressed,
        "unknown_items": result.unknown_items,
        "utility_loss": result.utility_loss,
        "utility_loss_function": UL_FUNCTION,
        "stats": result.summary(),
        "time_seconds": round(result.seconds, 4),
    }
    text = json.dumps(doc, ensure_ascii=False, indent=2, allow_nan=False)
    with atomic_writer(out) as fh_out, atomic_writer(side) as fh_side:
        dump_setgen(result.data, fh_out, out)
        fh_side.write(text + "\n")

    if result.unknown_items:
        shown = ", ".join(result.unknown_items[:5]) + (" ..." if len(result.unknown_items) > 5 else "")
        warn(f"{len(result.unknown_items)} privacy-constraint item(s) not in {orig} (support 0): {shown}")
    if json_out:
        emit_json(doc)
        return
    s = result.summary()
    typer.echo(
        f"{out}: {s['n_transactions']} transactions, {s['n_privacy_constraints']} privacy constraints "
        f"({s['violated_before']} unprotected before), k={k}\n"
        f"  {s['generalised_items']} generalised items over {s['items_generalised']} items, "
        f"{s['added_items']} added items, {s['suppressed_items']} items suppressed "
        f"({s['suppressed_occurrences']} occurrences)\n"
        f"  utility loss {s['utility_loss']:.6g}, {s['seconds']:.2f} s; sidecar {side}"
    )


def _check_outputs(orig: Path, out: Path, side: Path, privacy: Path | None, utility: str) -> None:
    """Inputs are never written: refuse an output path that is one of the inputs."""
    from semtui.fileio import check_outputs

    inputs = [orig, privacy] + ([Path(utility)] if utility not in ("all", "wordnet") else [])
    check_outputs([out, side], inputs)


def _utility(spec: str, data, constraints, read_utility):
    """None for ``all``; the sets of a file; or WordNet-based sets (§6.2.3)."""
    if spec == "all":
        return None
    if spec == "wordnet":
        from semtui.anonymize import wordnet_utility

        try:
            from semtui.measures import open_measure

            measure = open_measure("wordnet")
        except (ImportError, InputError) as exc:
            if isinstance(exc, InputError) and "unknown measure" not in str(exc):
                raise
            raise InputError("--utility wordnet: the wordnet measure is unavailable in this "
                             "installation of semtui") from None
        return wordnet_utility(data.vocab.items, constraints, measure)
    return read_utility(Path(spec))


DISASSOC_FORMAT = "semtui-disassoc-run/1"


@app.command("disassoc")
def disassoc(
    orig: Annotated[Path, typer.Argument(help="The original (plain) transactions; they stay private.")],
    k: Annotated[int, typer.Option("-k", help="Every itemset of at most m items of a record chunk occurs >= k times.")],
    m: Annotated[int, typer.Option("-m", help="The attacker knows up to m items of a record.")],
    max_cluster_size: Annotated[int, typer.Option(
        "--max-cluster-size", help="HORPART splits clusters larger than this (>= k).")],
    out: Annotated[Path, typer.Option("-o", "--output", help="The disassociated release (JSON).")],
    key: Annotated[Path | None, typer.Option(
        "--key", help="Also write the private key (mode 0600) that links the release to ORIG.")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print a summary as JSON on stdout.")] = False,
) -> None:
    """Disassociation (HORPART + VERPART, Terrovitis et al. 2012): clusters of record chunks and a term chunk."""
    from semtui import formats
    from semtui.anonymize.disassociation import check_parameters, disassociate
    from semtui.cli.common import StderrProgress
    from semtui.fileio import check_outputs

    check_parameters(k, m, max_cluster_size)
    check_outputs([out, key], [orig])
    data = formats.read_transactions(orig)
    with StderrProgress("disassociating") as progress:
        result = disassociate(data, k, m, max_cluster_size, progress=progress)
    _write_release(result, out, key)
    doc = {"format": DISASSOC_FORMAT, "original": str(orig), "output": str(out),
           "key": None if key is None else str(key), **result.summary()}
    if json_out:
        emit_json(doc)
        return
    typer.echo(
        f"{out}: {doc['n_transactions']} transactions in {doc['clusters']} clusters (largest {doc['largest_cluster']}), "
        f"k={k}, m={m}, max cluster size {max_cluster_size}\n"
        f"  {doc['record_chunks']} record chunks, {doc['term_chunk_terms']} term-chunk terms; "
        f"{doc['associated_share']:.1%} of (cluster, item) pairs stay in record chunks; {doc['seconds']:.2f} s"
        + (f"; key {key}" if key is not None else "")
    )


def _write_release(result, out: Path, key: Path | None) -> None:
    """Both outputs or neither: each is written to a temporary name beside its target by
    the format's writer, then both are renamed into place.  The key is created under umask
    077, so it is never readable by others, not even for a moment."""
    import contextlib
    import os

    from semtui.formats.disassociated import write_disassociated, write_key

    tmp_out = out.with_name(f".{out.name}.{os.getpid()}.part")
    tmp_key = None if key is None else key.with_name(f".{key.name}.{os.getpid()}.part")
    try:
        write_disassociated(result.data, tmp_out)
        if tmp_key is not None:
            old = os.umask(0o077)
            try:
                write_key(result.key, tmp_key)
            finally:
                os.umask(old)
            os.chmod(tmp_key, 0o600)
            os.replace(tmp_key, key)
        os.replace(tmp_out, out)
    except BaseException:
        for p in (tmp_out, tmp_key):
            if p is not None:
                with contextlib.suppress(OSError):
                    os.unlink(p)
        raise
