"""``semtui attack``: run an attack over a whole release, headless."""

from __future__ import annotations

from pathlib import Path

import typer

from semtui.cli.common import SCHEDULER_HELP, emit_json, stdout_console

app = typer.Typer(help="Attack an anonymised release and measure what it gives back.", no_args_is_help=True)


@app.command("setgen")
def setgen(
    data: Path = typer.Argument(..., help="The set-generalised release."),
    original: Path | None = typer.Option(None, "--original", help="The original transactions, line for line: enables the metrics."),
    method: str | None = typer.Option(None, "--method", "-m", help="mda, tba, wba, gba, rba, ra, pba or auto (default: rba; with --background auto, the stronger of pba and tba; tba with --knowledge semantics)."),
    measure: str = typer.Option("embedding", "--measure", help="embedding, scores:FILE, ngd:INDEX, counts:FILE, wordnet."),
    vectors: Path | None = typer.Option(None, "--vectors", help="A word2vec/GloVe text file for the embedding measure."),
    background: str | None = typer.Option(None, "--background", help="The attacker's knowledge: FILE (transactions of a similar population), counts:FILE or wordfreq:LANG."),
    knowledge: str | None = typer.Option(None, "--knowledge", help="With --background, the table attacked: prior, semantics, background or combined (default)."),
    evidence: str = typer.Option("mean", "--evidence", help="With --background, how the context's evidence adds up: mean or sum (naive Bayes)."),
    context: str = typer.Option("all", "--context", help="all, or nearest:N (the N items nearest the generalised item)."),
    aggregate: str = typer.Option("mean", "--aggregate", help="mean (the papers'), min, or top:K."),
    threshold: float | None = typer.Option(None, "--threshold", help="TBA's threshold (default: the mean distance); PBA's posterior (default 0.05)."),
    seed: int | None = typer.Option(None, "--seed", help="Seed for RA."),
    k: int | None = typer.Option(None, "--k", help="Protection level for exposure (default: the release's k from its sidecar, else the smallest group size)."),
    output: Path | None = typer.Option(None, "--output", "-o", help="Write the attacked release (set-generalised text; '-': standard output)."),
    report_path: Path | None = typer.Option(None, "--report", help="Also write the JSON report to this file ('-': standard output)."),
    format: str | None = typer.Option(None, "--format", "-f", help="Format of DATA (default: detect)."),
    json_out: bool = typer.Option(False, "--json", help="The JSON report on stdout."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Do not read or write the persistent score cache."),
    jobs: int = typer.Option(1, "--jobs", "-j", help="Worker processes for the per-group attack (same result as 1)."),
    scheduler: str | None = typer.Option(None, "--scheduler", help=SCHEDULER_HELP),
    unmarked: bool = typer.Option(False, "--unmarked", help="DATA writes its generalised items as plain items: recover them first."),
) -> None:
    """Eliminate the items set-based generalisation added, by how badly they fit their context."""
    from semtui.attacks.setgen import AttackOptions, attacked_dataset, run_setgen_attack
    from semtui.cli.common import StderrProgress, names, note_jobs, options_error, warn, watch_cache, write_outputs
    from semtui.errors import InputError
    from semtui.fileio import check_outputs
    from semtui.release import TRANSACTIONS, read_release, with_companions

    try:
        opts = AttackOptions(method=method, measure=measure, context=context, aggregate=aggregate,
                             threshold=threshold, seed=seed, k=k, vectors=None if vectors is None else str(vectors),
                             cache=not no_cache, jobs=jobs, scheduler=scheduler, unmarked=unmarked,
                             background=background,
                             knowledge=knowledge, evidence=evidence)
    except InputError as exc:
        raise options_error(exc) from None
    check_outputs({"-o": output, "--report": report_path},
                  {"DATA": data, "--original": original, "--measure/--vectors/--background": opts.measure_files},
                  stdout_taken="--json" if json_out else None)
    watch_cache()
    from semtui.runtime.cluster import session

    # with --scheduler the workers start while the inputs are read and scored
    with session(opts.scheduler, warm=True, preload=("semtui.attacks.setgen.kernel",)):
        release = read_release(data, require=TRANSACTIONS, format=format)
        if release.n_generalised == 0 and not unmarked:
            raise InputError("no generalised items to attack (a plain transactions file? an unmarked release: "
                             "--unmarked)", data)
        opened = with_companions(release, data, original=original, unmarked=unmarked)
        note_jobs(jobs)
        with StderrProgress(f"attack {opts.method}") as bar:
            try:
                report = run_setgen_attack(release, opened.original, opts, progress=bar, data_path=data,
                                           original_path=original)
            except InputError as exc:
                raise options_error(exc) from None
    if report.unknown_terms:
        # with a background they are still scored by it (prior, co-occurrence) and eliminated
        fate = ("get no evidence from it (the background still scores them, and they may be eliminated)"
                if opts.background is not None and opts.knowledge != "semantics" else "are never eliminated")
        warn(f"{len(report.unknown_terms)} terms have no score under {opts.measure} and {fate}: "
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


def _fmt(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.3f}"
    return str(v)


def _with_interval(m: dict, key: str) -> str:
    from semtui.wording import interval

    value = _fmt(m.get(key))
    iv = interval(m, key)
    return f"{value} [{iv[0]:.3f}, {iv[1]:.3f}]" if iv and value != "-" else value


def took_back_line(m: dict, summary: dict | None = None) -> str:
    """The summary's first line, in words: how many of the added items came back, how often the
    attack was right, and what a random attacker with the same budget gets."""
    added, correct, eliminated = m.get("added", 0), m.get("correct", 0), m.get("eliminated", 0)
    base = m.get("baseline") or {}
    if not added:
        return f"Generalisation added no item here, so there was nothing to take back ({eliminated} eliminations)."
    if summary is not None and summary.get("rows") and not summary.get("attacked_rows"):
        # never an all-clear from an attack that never ran (the Knowledge line says why)
        return (f"The attack scored no row, so it says nothing about the {added:,} items generalisation added "
                "(the Knowledge line says why).")
    if not eliminated:
        return f"The attack took back none of the {added:,} items generalisation added: it eliminated nothing."
    line = (f"The attack took back {correct:,} of the {added:,} items generalisation added "
            f"(precision {_fmt(m.get('precision'))}: {correct:,} of its {eliminated:,} eliminations were added items")
    if base.get("correct") is not None:
        b = float(base["correct"])
        line += f"; a random attacker with the same budget takes back {b:,.0f}" if b.is_integer() else \
            f"; a random attacker with the same budget takes back {b:,.1f} on average"
    return line + ")."


def _print_summary(report: dict) -> None:
    from rich.table import Table

    from semtui.metrics.elimination import METRIC_HELP
    from semtui.metrics.intervals import no_interval_of

    console = stdout_console()
    s = report["summary"]
    if "metrics" in report:
        console.print(took_back_line(report["metrics"], s))
    table = f" on the {report['knowledge']} table" if report.get("knowledge") else ""
    console.print(
        f"[bold]{report['method'].upper()}[/] with {report['measure']}{table} on {report.get('data')}: "
        f"{s['groups']} equivalence group{'s' if s['groups'] != 1 else ''}, {s['attacked_rows']} rows attacked "
        f"({s['skipped_rows']} without context), {s['eliminations']} eliminations."
    )
    if s.get("method_choice"):
        console.print(f"{s['method_choice']}.", markup=False)
    if report.get("unmarked") is not None:
        from semtui.attacks.setgen.unknown import describe

        for line in describe(report["unmarked"]):
            console.print(line, markup=False)
    if s.get("knowledge"):
        console.print(f"Knowledge: {s['knowledge']}.", markup=False)
    if "metrics" in report:
        m = report["metrics"]
        base = m.get("baseline") or {}
        ivs = m.get("intervals") or {}
        level = next((v["level"] for v in ivs.values() if isinstance(v, dict)), 0.95)
        reason = no_interval_of(m)
        note = f" ({reason or 'no interval'})" if reason or not ivs else \
            f" (\\[low, high]: {level:.0%} bootstrap interval over groups)"
        t = Table(title=f"What the attack took back{note}", title_justify="left")
        t.add_column("figure", no_wrap=True)
        t.add_column("attack", justify="right", no_wrap=True)
        t.add_column("random, same budget", justify="right", no_wrap=True)
        t.add_row("eliminated", _fmt(m.get("eliminated")), _fmt(base.get("eliminated")))
        t.add_row("correct", _fmt(m.get("correct")), _fmt(base.get("correct")))
        t.add_row("precision", _with_interval(m, "precision"), _fmt(base.get("precision")))
        t.add_row("recall (all added items)", _with_interval(m, "recall"), _fmt(base.get("recall")))
        t.add_row("recall (attackable rows)", _with_interval(m, "recall_attackable"), "")
        t.add_row("F1", _fmt(m.get("f1")), _fmt(base.get("f1")))
        t.add_row("error ratio vs random", _fmt(base.get("error_ratio")), "1.000" if base else "")
        t.add_row("AUC within table", _with_interval(m, "auc_within_table"), "0.500")
        t.add_row("AUC pooled", _with_interval(m, "auc_pooled"), "0.500")
        t.add_row("density per generalised item", _fmt(m.get("density_per_item")), "")
        t.add_row("density pooled", _fmt(m.get("density")), "")
        pop = m.get("popularity")
        if pop:
            t.add_row("popularity attacker, same budget: precision", _fmt(pop.get("precision")), "")
            t.add_row("popularity attacker: recall / error ratio",
                      f"{_fmt(pop.get('recall'))} / {_fmt(pop.get('error_ratio'))}", "")
        console.print(t)
        if m.get("knowledge"):
            _print_knowledge(console, report)
        sizes = m.get("by_table_size") or {}
        if sizes:
            t = Table(title="By table size", title_justify="left")
            for col in ("members", "groups", "added", "precision", "recall", "error ratio", "AUC within"):
                t.add_column(col, justify="right", no_wrap=True)
            for name, f in sizes.items():
                t.add_row(name.replace("members", ""), _fmt(f.get("groups")), _fmt(f.get("added")),
                          _fmt(f.get("precision")), _fmt(f.get("recall")),
                          _fmt((f.get("baseline") or {}).get("error_ratio")), _fmt(f.get("auc_within_table")))
            console.print(t)
    p = report["privacy"]
    unscored = s.get("unscored") or {}
    if unscored.get("rows"):
        why = " and ".join(f"{n}: {reason}" for reason, n in unscored["reasons"].items())
        # what the attacker knew, and what that says about these rows, is the Knowledge line's (one place)
        console.print(f"Not scored: {unscored['rows']} of {s['rows']} rows ({why}); their added items count "
                      "as missed.")
    if s["attacked_rows"] == 0:
        console.print("Privacy: not measured: the attack scored no row.")
    else:
        console.print(
            f"Privacy: {p['exposed_items']} of {p['member_items']} member items can now appear in fewer than "
            f"k = {p['k']} ({p.get('k_source', 'k')}) transactions of their group; "
            f"{p['reidentified_rows']} rows reduced to a single item"
            + (f" ({p['reidentified_rows_correct']} of them to the row's own item)."
               if p.get("reidentified_rows_correct") is not None else " (unscored: is it the right one?).")
        )
    shown = 10
    groups = sorted(report["groups"], key=lambda g: -len(g["eliminations"]))[:shown]
    n_groups = len(report["groups"])
    t = Table(title="Groups (most eliminations first" + (f"; the first {shown} of {n_groups}: the JSON report lists "
                                                         "every one)" if n_groups > shown else ")"),
              title_justify="left")
    room = max(console.width - 45, 30)  # what the three numeric columns and the borders leave
    t.add_column("generalised item", overflow="ellipsis", no_wrap=True, max_width=room * 3 // 5)
    for col in ("rows", "eliminated", "precision"):
        t.add_column(col, justify="right", no_wrap=True, min_width=len(col))
    t.add_column("exposed", overflow="ellipsis", no_wrap=True, max_width=room * 2 // 5)
    for g in groups:
        t.add_row(g["generalised_item"], str(g["size"]), str(len(g["eliminations"])),
                  _fmt(g.get("metrics", {}).get("precision")), ", ".join(g["exposed"]) or "-")
    console.print(t)
    if "metrics" in report:
        legend = ("precision", "recall", "recall_attackable", "error_ratio", "auc_within_table", "auc_pooled",
                  "density_per_item", "density", "exposed")
        console.print("\n".join(f"[dim]{k.replace('_', ' ')}: {METRIC_HELP[k]}[/]" for k in legend))


def _print_knowledge(console, report: dict) -> None:
    """The same attack with each kind of knowledge, and which one carries it (issue 20)."""
    from rich.table import Table

    m = report["metrics"]
    t = Table(title="Which knowledge carries the attack (the same attack on each table; * the one above)",
              title_justify="left")
    for col in ("attacker knows", "method", "precision", "recall", "error ratio", "AUC within", "popularity P / R"):
        t.add_column(col, justify="left" if col == "attacker knows" else "right", no_wrap=True)
    for name, f in m["knowledge"].items():
        pop = f.get("popularity") or {}
        t.add_row(name + (" *" if name == report.get("knowledge") else ""), str(f.get("method", "")).upper(),
                  _with_interval(f, "precision"),
                  _with_interval(f, "recall"), _fmt((f.get("baseline") or {}).get("error_ratio")),
                  _with_interval(f, "auc_within_table"),
                  f"{_fmt(pop.get('precision'))} / {_fmt(pop.get('recall'))}")
    console.print(t)
    for line in m.get("carried_by") or []:
        console.print(f"  {line}", markup=False)


@app.command("disassoc")
def disassoc(
    data: Path = typer.Argument(..., help="The disassociated release (semtui-disassociated/2 or /1 JSON)."),
    key: Path | None = typer.Option(None, "--key", help="The release's private key (with --original: the metrics)."),
    original: Path | None = typer.Option(None, "--original", help="The original transactions (with --key: the metrics)."),
    method: str | None = typer.Option(None, "--method", "-m", help="aba, rga, mra, assign, ra, or nba (naive Bayes "
                                      "over the background's co-occurrence; the default with --background, else aba)."),
    measure: str = typer.Option("embedding", "--measure", help="embedding, scores:FILE, ngd:INDEX, counts:FILE, wordnet."),
    vectors: Path | None = typer.Option(None, "--vectors", help="A word2vec/GloVe text file for the embedding measure."),
    background: str | None = typer.Option(None, "--background", help="The attacker's knowledge of a similar population: "
                                          "FILE (transactions), counts:FILE or wordfreq:LANG."),
    k: int | None = typer.Option(None, "--k", help="Protection level: the k of k^m-anonymity that decides which "
                                 "itemsets count as protected in k^m breakage (default: the release's k)."),
    term_placements: int | None = typer.Option(None, "--term-placements", help="Placement budget: the transactions "
                                               "a term-chunk term goes to (default: the release's k - 1, the paper's)."),
    seed: int = typer.Option(0, "--seed", help="Seed of RA, random ties, the random baseline and intervals."),
    ties: str | None = typer.Option(None, "--ties", help="first (the anchoring chunk's order, as the paper) or random "
                                    "(seeded). Default per method: first for aba, rga, mra and assign; random for nba "
                                    "(and ra, which places at random anyway)."),
    jobs: int = typer.Option(1, "--jobs", "-j", help="Worker processes for the per-cluster kernels."),
    scheduler: str | None = typer.Option(None, "--scheduler", help=SCHEDULER_HELP),
    summary_only: bool = typer.Option(False, "--summary-only", help="Per cluster and joint cluster only its size "
                                      "and metrics in the report (no placements, scores or shared sub-records): a "
                                      "large release's report stays small."),
    output: Path | None = typer.Option(None, "--output", "-o", help="Write the reconstructed transactions (plain; '-': standard output)."),
    report_path: Path | None = typer.Option(None, "--report", help="Also write the JSON report to this file ('-': standard output)."),
    json_out: bool = typer.Option(False, "--json", help="The JSON report on stdout."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Do not read or write the persistent score cache."),
) -> None:
    """Re-associate the chunks of a disassociated release by meaning (ABA, RGA, MRA, an optimal
    assignment, or RA) and, with the key and the original, measure what comes back."""
    from semtui import formats
    from semtui.attacks.reassociation import ReassociationOptions, reconstruction_dataset, run_reassociation
    from semtui.cli.common import StderrProgress, note_jobs, options_error, warn, write_outputs
    from semtui.errors import InputError
    from semtui.fileio import check_outputs
    from semtui.release import DISASSOCIATED, read_release, with_companions

    try:
        opts = ReassociationOptions(method=method, measure=measure, vectors=None if vectors is None else str(vectors),
                                    background=background, k=k, term_placements=term_placements, seed=seed,
                                    ties=ties, jobs=jobs, scheduler=scheduler, cache=not no_cache,
                                    summary_only=summary_only)
    except InputError as exc:
        raise options_error(exc) from None
    if (key is None) != (original is None):
        raise InputError("--key and --original go together (the metrics need both)")
    if summary_only and output is not None:
        raise InputError("--summary-only keeps no reconstructed transaction to write with -o")
    check_outputs({"-o": output, "--report": report_path},
                  {"DATA": data, "--key": key, "--original": original,
                   "--measure/--vectors/--background": opts.measure_files},
                  stdout_taken="--json" if json_out else None)
    from semtui.runtime.cluster import session

    # with --scheduler the workers start while the inputs are read and scored
    with session(opts.scheduler, warm=True, preload=("semtui.attacks.reassociation.attack",)):
        # on --scheduler the driver keeps the release's and the key's clusters on disk and ships
        # them a batch at a time (a release laid out one cluster a line, as semtui writes it)
        spool = opts.scheduler is not None
        release = read_release(data, require=DISASSOCIATED, spool=spool)
        if not release.clusters:
            raise InputError("nothing to attack: the release has no cluster", data)
        # on --scheduler only the original's incidence over the release's vocabulary: no token arrays beside it
        opened = with_companions(release, data, original=original, key=key, spool=spool, original_matrix=spool)
        note_jobs(opts.jobs)
        with StderrProgress(f"attack {opts.method}") as bar:
            try:
                result = run_reassociation(release, opened.key, opened.original, opts, progress=bar,
                                           original_path=original,
                                           sources={"data": str(data), "key": None if key is None else str(key),
                                                    "original": None if original is None else str(original)})
            except InputError as exc:  # an option's error in the CLI's words; what the release cannot back is about it
                if exc.option is not None:
                    raise options_error(exc) from None
                if exc.path is not None:
                    raise
                raise InputError(exc.message, data) from None
    report = result.report
    if report.unknown_terms:  # the placement measure's (RA uses none, so never for RA)
        shown = ", ".join(report.unknown_terms[:8])
        more = len(report.unknown_terms) - 8
        source = f"the background {opts.background}" if report.background else opts.measure
        warn(f"{len(report.unknown_terms)} terms have no score under {source} and are placed without "
             f"meaning: {shown}{f' (+{more} more)' if more > 0 else ''}")
    # every output committed together; a report scored against the original holds it, so it is private
    outputs = []
    if output is not None:
        outputs.append((output, lambda fh: formats.text.dump_setgen(reconstruction_dataset(result), fh, output)))
    if report_path is not None:
        outputs.append((report_path, report, original is not None))
    write_outputs(outputs)
    if json_out:
        emit_json(report)
    else:
        _print_disassoc_summary(report)


def _print_disassoc_summary(report) -> None:
    """A re-association's summary in words, from its typed report (:class:`ReassociationReport`)."""
    from rich.table import Table

    console = stdout_console()
    s = report.summary
    if report.background:
        how = f"with the background {report.background.get('source')}"
    else:
        how = "with no measure (random placement)" if report.measure is None else f"with {report.measure}"
    console.print(
        f"[bold]{report.method.upper()}[/] {how} on {report.source('data')}: "
        f"{s.clusters} clusters, {s.transactions} transactions, {s.units} sub-records and terms "
        + (f"and {s.shared_units} shared sub-records of {s.joint_clusters} joint clusters "
           if s.joint_clusters else "")
        + f"re-associated in {s.placements} placements.")
    m = report.metrics
    if m is None:
        console.print("Give --key and --original to measure what the attack takes back.")
        return
    b = m.baseline
    t = Table(title=f"What the attack took back ({m.intervals.reason or '95% bootstrap intervals over clusters'})",
              title_justify="left")
    for col in ("metric", "attack", "interval", "random (same budget)"):
        t.add_column(col, justify="right" if col != "metric" else "left", no_wrap=True)

    def ival(name):
        v = m.intervals.get(name)
        return "-" if v is None else f"{_fmt(v.low)}–{_fmt(v.high)}"

    t.add_row("accuracy", _fmt(m.accuracy), ival("accuracy"), _fmt(b.accuracy))
    t.add_row("transaction breakage", _fmt(m.transaction_breakage), ival("transaction_breakage"),
              _fmt(b.transaction_breakage))
    t.add_row("k^m breakage", _fmt(m.km_breakage), ival("km_breakage"), _fmt(b.km_breakage))
    if m.wmd is None:  # not measurable is not 0
        t.add_row("WMD", "not measurable", "-", "not measurable")
    else:
        # measured over part of the transactions only (unscored terms): say so in the row itself,
        # or 0.000 over 2 of 38,756 transactions reads as a perfect reconstruction
        part = m.wmd_transactions is not None and m.wmd_transactions < m.transactions
        t.add_row(f"WMD (over {m.wmd_transactions:,} of {m.transactions:,} transactions)" if part else "WMD",
                  _fmt(m.wmd), ival("wmd"), _fmt(b.wmd))
    t.add_row("lift over random", _fmt(m.lift_over_random), ival("lift_over_random"), "1")
    console.print(t)
    console.print(f"{m.correct} of {m.placements} placements correct; {m.broken_transactions} of "
                  f"{m.transactions} transactions broken; {m.exposed_itemsets} of {m.protected_itemsets} "
                  f"protected itemsets exposed.")
    if m.wmd_note:
        console.print(f"WMD {m.wmd_note}.")
    elif m.wmd_unscored_terms:
        console.print(f"WMD over the {m.wmd_transactions} of {m.transactions} transactions whose terms all have a "
                      f"score under {m.wmd_measure} ({m.wmd_unscored_terms:,} of {m.wmd_terms:,} terms have "
                      "none).")
    from semtui.attacks.reassociation import informed_sentence

    sentence = informed_sentence(m)
    if sentence:
        console.print(sentence)
