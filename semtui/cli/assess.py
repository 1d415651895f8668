"""``semtui assess``: every applicable attack on a release, the strongest one, the records most
at risk, how sure, and a verdict (semtui/assess.py does the work)."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from semtui.cli.common import SCHEDULER_HELP, emit_json, stdout_console
from semtui.wording import check_words, support_error


def assess(
    data: Path = typer.Argument(..., help="The release: set-generalised (or k^m) text, or disassociated JSON."),
    original: Path | None = typer.Option(None, "--original", help="The original transactions: scores every attack."),
    key: Path | None = typer.Option(None, "--key", help="A disassociated release's private key (with --original)."),
    background: str | None = typer.Option(None, "--background", help="The attacker's knowledge of a similar "
                                          "population: FILE, counts:FILE or wordfreq:LANG (the strongest attacker)."),
    corpus: Path | None = typer.Option(None, "--corpus", help="An NGD corpus index: adds the ngd: measure."),
    measure: list[str] = typer.Option([], "--measure", help="A measure every semantic attack runs with "
                                      "(repeatable; default embedding)."),
    jobs: int = typer.Option(1, "--jobs", "-j", help="Worker processes for each attack (same result as 1)."),
    scheduler: str | None = typer.Option(None, "--scheduler", help=SCHEDULER_HELP),
    report_path: Path | None = typer.Option(None, "--report", help="Write the semtui-assessment/1 document here."),
    json_out: bool = typer.Option(False, "--json", help="The document on stdout."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Do not read or write the persistent score cache."),
    no_alternatives: bool = typer.Option(False, "--no-alternatives", help="With --original, do not measure "
                                         "safer alternatives of the same family (faster)."),
) -> None:
    """Run every attack that applies to a release: how exposed it is, whose records, how sure."""
    from semtui.assess import AssessInputs, Assessor
    from semtui.cli.common import StderrProgress, note_jobs, options_error, watch_cache, write_outputs
    from semtui.errors import InputError
    from semtui.fileio import check_outputs

    if int(jobs) != jobs or jobs < 1:
        raise InputError(f"--jobs: must be a whole number of at least 1, got {jobs}")
    try:
        inputs = AssessInputs(data=str(data), original=None if original is None else str(original),
                              key=None if key is None else str(key), background=background,
                              corpus=None if corpus is None else str(corpus), measures=tuple(measure), jobs=jobs,
                              scheduler=scheduler, cache=not no_cache)
    except InputError as exc:
        raise options_error(exc) from None
    from semtui.attacks.setgen import AttackOptions

    try:  # every measure and the background validated before any file is read
        files = []
        for m in inputs.measure_list():
            files += AttackOptions(measure=m, background=background).measure_files
    except InputError as exc:
        raise options_error(exc) from None
    check_outputs({"--report": report_path},
                  {"DATA": data, "--original": original, "--key": key, "--measure/--background/--corpus": files},
                  stdout_taken="--json" if json_out else None)
    watch_cache()
    from semtui.release import open_release

    release = open_release(data, original=original, key=key)
    if release.half_scored:
        raise InputError("--key and --original go together for a disassociated release (the metrics need both)")
    note_jobs(jobs)
    private = original is not None
    # one bar for the whole run, counting attacks; the current attack's own progress in its text
    bar = StderrProgress("assess")
    try:
        assessor = Assessor(release, inputs, progress=bar)
    except InputError as exc:
        raise options_error(exc) from None
    from semtui.experiment.measuring import AlternativesRun

    alternatives = AlternativesRun(assessor, progress=bar)
    # the alternatives may be measured beside the attacks: whatever ends this block ends them too
    # (an error's one line is not followed by minutes of workers finishing their alternatives)
    with bar:
        try:
            _assess_and_choose(assessor, alternatives, bar, no_alternatives, report_path, private)
        finally:
            alternatives.stop()
    report = assessor.report
    doc = report.to_json()
    if report_path is not None:
        write_outputs([(report_path, doc, private)])
    if json_out:
        emit_json(doc)
    else:
        print_summary(doc)


def _assess_and_choose(assessor, alternatives, bar, no_alternatives: bool, report_path, private: bool) -> None:
    """The attacks, then the alternatives and the choice; an interrupt writes what finished,
    marked partial, and goes on (exit 130 / 143)."""
    from semtui.cli.common import options_error, write_outputs
    from semtui.errors import InputError

    try:
        if not no_alternatives:
            alternatives.start()   # measured beside this release's attacks (with --jobs 2 or more)
        report = assessor.run()
    except InputError as exc:
        raise options_error(exc) from None
    except KeyboardInterrupt:
        bar.__exit__(None, None, None)
        if report_path is not None:
            write_outputs([(report_path, assessor.finish(partial=True).to_json(), private)])
        raise
    if no_alternatives:
        report.alternatives_note = "no alternatives: --no-alternatives"
        return
    try:
        alternatives.run()
    except InputError as exc:
        raise options_error(exc) from None
    except KeyboardInterrupt:
        # every attack finished; the alternatives measured so far are kept, the choice among them
        bar.__exit__(None, None, None)
        if report_path is not None:
            alternatives.close(interrupted=True)
            write_outputs([(report_path, report.to_json(), private)])
        raise


def _f(v, digits: int = 3) -> str:
    """A figure as the summary prints it: thousands separated, as every count beside it is."""
    return "-" if v is None else f"{v:,.{digits}f}" if isinstance(v, float) else f"{v:,}" if isinstance(v, int) \
        else str(v)


def _iv(f: dict, key: str) -> str:
    from semtui.wording import interval

    iv = interval(f, key)
    return f" [{iv[0]:.3f}, {iv[1]:.3f}]" if iv else ""


def print_summary(doc: dict) -> None:
    """One screen: the verdict, the strongest attack and its command, the records most at risk,
    how sure, and what was not modelled."""
    from rich.markup import escape

    from semtui.assess import RECORDS_SHOWN
    from semtui.experiment.alternatives import short_far
    from semtui.wording import how_sure_text, items_heading, record_line

    con = stdout_console()
    p = lambda s="": con.print(s, markup=False, highlight=False)  # noqa: E731 - one line each
    p(f"{doc['data']}: {doc['kind']} release, {len(doc['attacks'])} attacks"
      + (" (partial)" if doc["partial"] else "") + f" in {doc['seconds']:.1f} s.")
    con.print(f"[bold]Verdict:[/] {escape(doc['verdict'])}", highlight=False)
    s = doc.get("strongest")
    if s:
        f = s["figures"]
        p(f"Strongest attack: {s['attack']} — the attacker needs {s['needs']}.")
        if "error_ratio" in f:
            b, pop = f.get("baseline") or {}, f.get("popularity") or {}
            p(f"  took back {f['correct']:,} of {f['added']:,} added items: recall {_f(f['recall'])}{_iv(f, 'recall')}, "
              f"precision {_f(f['precision'])}{_iv(f, 'precision')}, error ratio {_f(f['error_ratio'])}")
            p(f"  random attacker, same budget: {_f(b.get('correct'), 1)} correct, precision {_f(b.get('precision'))}"
              + (f"; popularity attacker: {_f(pop.get('correct'), 0)} correct, precision {_f(pop.get('precision'))}"
                 if pop else ""))
        else:
            p(f"  placed {f['correct']:,} of {f['placements']:,} correctly: accuracy {_f(f['accuracy'])}"
              f"{_iv(f, 'accuracy')}, lift over random {_f(f['lift_over_random'])}{_iv(f, 'lift_over_random')} "
              f"(random: {_f(f.get('baseline_accuracy'))})")
        lift = s.get("lift") or {}
        if lift:
            words = {"random_same_budget": "random, same budget", "popularity": "popularity", "ra": "RA"}
            p("  lift (its take over each baseline's): " + ", ".join(f"{words[k]} {_f(v, 2)}" for k, v in lift.items()
                                                                     if v is not None))
        p(f"  reproduce it alone: {s['command']}")
    if doc.get("how_sure"):
        p(f"How sure: {how_sure_text(doc)}")  # the engine's words, as the TUI shows them
    ref = doc.get("informed_reference")
    if ref and ref.get("accuracy") is not None:
        p("Informed reference (not an attack: NBA with the original's own statistics"
          + (f", {ref['ties']} ties" if ref.get("ties") else "") + f"): accuracy "
          f"{_f(ref['accuracy'])}, lift {_f(ref.get('lift_over_random'), 2)} over random.")
    recs = doc.get("records_at_risk") or []
    if recs:
        p(f"Records most at risk (of {doc.get('records_implicated', len(recs)):,} implicated"
          + (", unscored: the default attack's claims" if not doc["scored"] else "") + "):")
        for r in recs[:RECORDS_SHOWN]:
            p(f"  {record_line(r)}")  # T1: the first, as the TUI and cover
    items = doc.get("items_exposed") or []
    if items:
        p(f"{items_heading(doc)}: " + ", ".join(f"{i['item']} ({i.get('groups', i.get('records'))})"
                                                   for i in items[:RECORDS_SHOWN]))
    covers = [a for a in doc["attacks"] if a["family"] == "cover"]
    if covers:
        p("Cover problem: " + "; ".join(f"{a['attacker']} attacker {a['figures']['breaches']} breaches, "
                                        f"{a['figures']['vulnerable_records']} vulnerable records" for a in covers))
    for line in doc.get("not_modelled") or []:
        p(f"{line[0].upper()}{line[1:]}.")
    for sk in doc.get("skipped") or []:
        p(f"Skipped: {sk['attack']}: {sk['why']}.")
    alts = doc.get("alternatives") or []
    if alts:
        p(f"Publish this instead? ({doc.get('alternatives_note')})")
        for a in alts:
            pr, ut = a["privacy"], a["utility"]
            far = short_far(a)
            chk = check_words(a["check"])
            p(f"  {'*' if a.get('chosen') else ' '} {a['label']}: risk {_f(pr.get('risk'))}, {far}, "
              f"utility {_f(ut.get('score'))} (NCP {_f(ut.get('ncp'))})".replace(" (NCP -)", "")
              + (f", pair supports off by {support_error(ut['pair_support_error'])}" if ut.get("pair_support_error") is not None
                 else "")
              + f", {chk}")
    elif doc.get("alternatives_note"):
        p(f"{doc['alternatives_note'][0].upper()}{doc['alternatives_note'][1:]}.")
    p("The document (--report / --json) lists every attack with its figures and command.")
    sys.stdout.flush()

