"""The strongest attack and what is said of it: which attacks count (:func:`beats_chance`), how
they rank (:func:`rank`), the strongest's take over each baseline (:func:`lifts`), how sure,
what was not modelled, and the verdict, worded from the numbers (never calling a release safe).

:func:`beats_chance` and :func:`rank` read typed figures (the engine's) or a document's figures
(the TUI's attacks table ranks a document's attacks with them): one definition for both.
"""

from __future__ import annotations

from semtui.assess.results import AssessmentReport, Candidate, HowSure, figure, has_figure
from semtui.reports import json_float


def _f(v, digits: int = 3) -> str:
    return "-" if v is None else f"{v:.{digits}f}"


def beats_chance(f) -> bool:
    """An attack counts only when it beats the random attacker: error ratio < 1 (set
    generalisation), lift over random > 1 (re-association), and takes something back."""
    if figure(f, "correct") in (None, 0):
        return False
    if has_figure(f, "error_ratio"):
        er = figure(f, "error_ratio")
        return er is not None and er < 1
    lift = figure(f, "lift_over_random")
    return lift is not None and lift > 1


def rank(f) -> tuple:
    """How attacks are ranked: taking back the most first; then the most precise."""
    return (figure(f, "correct") or 0,
            (figure(f, "precision") if has_figure(f, "precision") else figure(f, "accuracy")) or 0)


def candidates(entry) -> list[Candidate]:
    """The attacks an entry holds (a knowledge run holds one per knowledge table)."""
    if entry.role != "attack" or entry.figures is None:
        return []
    if entry.by_knowledge:
        return [Candidate(f"{c.method.upper()} on the {v} table{'' if v == 'prior' else ' with ' + entry.measure}",
                          c.method, entry.measure, entry.background, v, c.figures, c.command, c.needs,
                          main=v == entry.knowledge)
                for v, c in entry.by_knowledge]
    return [Candidate(entry.attack, entry.method, entry.measure, entry.background, None, entry.figures,
                      entry.command, entry.needs, main=True)]


def top_attack(rep: AssessmentReport) -> Candidate | None:
    """The strongest attack (``beats_chance: true``); when none beats chance, the attack that
    took back the most all the same (``beats_chance: false``), so a figure of risk is never left
    blank or set to zero because the attacks tried were no better than a coin.  None: no attack
    was scored."""
    from dataclasses import replace

    if rep.strongest is not None:
        return replace(rep.strongest, beats_chance=True)
    best = None
    for entry in rep.attacks:
        for c in candidates(entry):
            if best is None or rank(c.figures) > rank(best.figures):
                best = c
    return None if best is None else replace(best, beats_chance=False)


def lifts(rep: AssessmentReport) -> dict:
    """The strongest attack's take over each baseline: (its correct) / (the baseline's correct)."""
    s = rep.strongest
    if s is None:
        return {}
    f, out = s.figures, {}
    if rep.kind == "set-generalised":
        for name, b in (("random_same_budget", f.baseline), ("popularity", f.popularity)):
            if b is not None and b.correct:
                out[name] = json_float(f.correct / b.correct)
    else:
        out["random_same_budget"] = f.lift_over_random
    ra = next((a for a in rep.attacks if a.method == "ra" and a.figures is not None), None)
    if ra and ra.figures.correct:
        out["ra"] = json_float(f.correct / ra.figures.correct)
    return out


def not_modelled(rep: AssessmentReport) -> list[str]:
    """The attackers this assessment did not model (:func:`semtui.wording.not_modelled_notes`)."""
    from semtui.wording import not_modelled_notes

    i = rep.inputs
    return not_modelled_notes(rep.kind, background=i.background, corpus=i.corpus, measures=i.measure_list(),
                              scored=rep.scored)


def how_sure(rep: AssessmentReport) -> HowSure:
    s = rep.strongest
    if not rep.scored:
        named = ("the records the default attack implicates (its eliminations and the exposure it claims: "
                 "records_at_risk, unscored)" if rep.kind == "set-generalised" else
                 "nothing about single records: without the key no placement names a transaction")
        return HowSure(scored=False,
                       can_say=("which attacks ran and what each eliminated or re-associated (attacks, unscored)",
                                named, *(["the cover problems and the breaches of the strong and weak attackers"]
                                         if rep.kind == "disassociated" else [])),
                       cannot_say=("whether any elimination or placement is right", "which attack is strongest",
                                   "whether any attack beats chance"))
    if s is None:
        return HowSure(scored=True, note="no attack tried beat a random attacker with the same budget")
    f = s.figures
    if rep.kind == "set-generalised":
        return HowSure(scored=True, kind=rep.kind, auc_within_table=f.auc_within_table,
                       auc_interval=f.intervals.get("auc_within_table"),
                       meaning="the chance that the attack's table ranks an added member of a row as less likely "
                               "than an original member of the same row (0.5: no better than a coin)")
    return HowSure(scored=True, kind=rep.kind, accuracy_interval=f.intervals.get("accuracy"),
                   lift_interval=f.intervals.get("lift_over_random"), meaning="95 % bootstrap intervals over clusters")


def verdict(rep: AssessmentReport) -> str:
    """One line, worded from the numbers; never calls a release safe."""
    s = rep.strongest
    gap = "" if rep.inputs.background else (
        " An attacker who knows how common each item is was not modelled." if rep.kind == "set-generalised" else
        " An attacker who knows which items go together in a similar population was not modelled.")
    covers = rep.covers
    part = " (interrupted: only the attacks that finished)" if rep.partial else ""
    lead = ""
    if covers:
        gap = " Cover problem: " + ", ".join(f"{a.figures.breaches} breaches by the {a.attacker} attacker"
                                             for a in covers) + "." + gap
        strong = next((a.figures for a in covers if a.attacker == "strong"), None)
        if strong is not None and strong.vulnerable_records:
            # records an attacker can breach are at risk whatever the re-association does: said first
            n = strong.transactions
            lead = (f"At risk{part}: the strong cover attacker can breach {strong.vulnerable_records:,}"
                    + (f" of the {n:,} records ({strong.vulnerable_records / n:.0%})" if n else " records")
                    + f" ({strong.breaches:,} cover-problem breaches; it needs the release only). ")
    if not rep.scored:
        n = sum(1 for a in rep.attacks if a.role == "attack")
        return (f"{lead}Not scored{part if not lead else ''}: {n} attacks ran, but without the "
                f"{'original' if rep.kind == 'set-generalised' else 'key and the original'} nothing says how much "
                f"they took back; give it to measure the risk.{gap}")
    if s is None:
        tried = "including one with background knowledge" if rep.inputs.background else \
            "none with background knowledge"
        what = "attack" if rep.kind == "set-generalised" else "re-association"
        return (f"{lead}No {what} tried{part if not lead else ''} beat a random {what} with the same budget "
                f"({tried}); that is not a sign the release is safe.{gap}")
    f = s.figures
    if rep.kind == "set-generalised":
        lift = ""
        b = f.baseline.correct if f.baseline is not None else None
        pop = f.popularity.correct if f.popularity is not None else None
        if b:
            lift = f", {f.correct / b:.2f}x what a random attacker with the same budget takes back"
        if pop:
            lift += f" and {f.correct / pop:.2f}x what the popularity attacker does"
        return (f"At risk{part}: {s.attack} takes back {f.correct:,} of the {f.added:,} items "
                f"generalisation added ({f.recall:.0%}) at precision {_f(f.precision)}{lift}, "
                f"error ratio {_f(f.error_ratio, 2)}; it needs {s.needs}.{gap}")
    return (f"{lead}{'At risk' + part + ': ' if not lead else 'Re-association: '}{s.attack} puts back "
            f"{f.correct:,} of {f.placements:,} sub-records and "
            f"terms with their transactions ({_f(f.accuracy)}, lift {_f(f.lift_over_random, 2)} over "
            f"random); {f.broken_transactions} of the transactions broken; it needs {s.needs}.{gap}")
