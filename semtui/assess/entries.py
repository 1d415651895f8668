"""An attack's entry in an assessment, made from the attack's own typed report: its label, what
the attacker needs, the ``semtui …`` command that reproduces it alone, and its figures.

* :func:`setgen_entry` reads a :class:`~semtui.attacks.setgen.SetgenAttackReport`'s fields;
* :func:`reassoc_entry` a :class:`~semtui.attacks.reassociation.Reassociation`'s report;
* :func:`cover_entry` a :class:`~semtui.attacks.cover.CoverReport`'s.

None of them reads a document the assessment wrote.
"""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING

from semtui.assess.inputs import AssessInputs
from semtui.assess.results import (
    CoverEntry,
    CoverFigures,
    KnowledgeRun,
    ReassocEntry,
    ReassocFigures,
    SetgenEntry,
    SetgenFigures,
)

if TYPE_CHECKING:
    from semtui.attacks.cover import CoverReport

_WORDS = {
    "prior": "how common each item is in a similar population",
    "semantics": "the meaning of the items (the measure)",
    "background": "how common items are and which go together in a similar population",
    "combined": "how common items are, which go together, and their meaning",
}


def _q(path) -> str:
    return shlex.quote(str(path))


def label(attack: str, o: dict) -> str:
    """An attack's name in the assessment (``attack``: the family of attacks that runs it,
    :class:`semtui.families.common.Planned`)."""
    if attack == "setgen":
        if o["method"] == "ra":
            return "RA (the papers' random baseline)"
        return f"{o['method'].upper()} with {o['measure']}" + (f", background {o['background']}"
                                                                if o.get("background") else "")
    if attack == "reassoc":
        if o["method"] == "ra":
            return "RA re-association (random)"
        if o["method"] == "nba":
            return f"NBA, background {o['background']}"
        return f"{o['method'].upper()} re-association with {o['measure']}"
    return f"cover problem, {o['attacker']} attacker"


# --------------------------------------------------------------------------- set generalisation
def setgen_command(i: AssessInputs, method, measure, background, knowledge, seed) -> str:
    cmd = ["semtui", "attack", "setgen", _q(i.data), "--method", method]
    if method != "ra":
        cmd += ["--measure", _q(measure)]
    if background:
        cmd += ["--background", _q(background), "--knowledge", knowledge]
    if seed is not None:
        cmd += ["--seed", str(seed)]
    if i.unmarked:
        cmd += ["--unmarked"]
    if i.original:
        cmd += ["--original", _q(i.original)]
    return " ".join(cmd)


def setgen_needs(method, measure, knowledge, background) -> str:
    if method == "ra":
        return "nothing: a random elimination (the papers' baseline)"
    if knowledge is None:
        return f"the release and the meaning of the items ({measure})"
    return _WORDS[knowledge].replace("a similar population", f"a similar population ({background})") + \
        (f" ({measure})" if knowledge in ("combined",) else "")


def setgen_entry(rep, opts, o: dict, i: AssessInputs) -> SetgenEntry:
    """The entry of one set-generalisation attack: ``rep`` its report, ``opts`` its options,
    ``o`` the plan's options (its label)."""
    m = rep.metrics
    figures = by_knowledge = None
    if m is not None:
        figures = SetgenFigures.of(m)
        by_knowledge = tuple(
            (v, KnowledgeRun(f.get("method"), SetgenFigures.of(f),
                             setgen_command(i, f.get("method"), opts.measure, opts.background, v, None),
                             setgen_needs(f.get("method"), opts.measure, v, opts.background)))
            for v, f in (m.get("knowledge") or {}).items())
    s = rep.summary
    return SetgenEntry(
        attack=label("setgen", o), method=opts.method, measure=None if opts.method == "ra" else opts.measure,
        background=opts.background, knowledge=opts.knowledge, role="baseline" if opts.method == "ra" else "attack",
        command=setgen_command(i, opts.method, opts.measure, opts.background, opts.knowledge, opts.seed),
        needs=setgen_needs(opts.method, opts.measure, opts.knowledge, opts.background),
        eliminations=s["eliminations"], attacked_rows=s["attacked_rows"], rows=s["rows"], privacy=rep.privacy,
        figures=figures, by_knowledge=by_knowledge or ())


# --------------------------------------------------------------------------- re-association
def reassoc_entry(result, opts, o: dict, i: AssessInputs, *, uses_measure: bool, keyed: bool) -> ReassocEntry:
    """The entry of one re-association: ``result`` the attack's
    :class:`~semtui.attacks.reassociation.Reassociation`; ``keyed``: it ran with the key."""
    method = opts.method
    cmd = ["semtui", "attack", "disassoc", _q(i.data), "--method", method]
    if uses_measure:
        cmd += ["--measure", _q(opts.measure)]
    if opts.background:
        cmd += ["--background", _q(opts.background)]
    if keyed:
        cmd += ["--key", _q(i.key), "--original", _q(i.original)]
    needs = {"ra": "nothing: a random re-association (the papers' baseline)",
             "nba": f"which items go together in a similar population ({opts.background})"}.get(
        method, f"the release and the meaning of the items ({opts.measure})")
    report = result.report
    m = report.metrics
    ref = None if m is None else m.informed_reference
    return ReassocEntry(
        attack=label("reassoc", o), method=method, measure=opts.measure if uses_measure else None,
        background=opts.background, role="baseline" if method == "ra" else "attack", command=" ".join(cmd),
        needs=needs, placements=report.summary.placements,
        figures=None if m is None else ReassocFigures.of(m),
        informed_reference=ref)


# --------------------------------------------------------------------------- the cover problem
def cover_entry(report: CoverReport, opts, o: dict, i: AssessInputs, *, with_original: bool) -> CoverEntry:
    """The entry of the cover problem under one attacker (``report``: its typed cover report)."""
    cmd = ["semtui", "cover", _q(i.data), "--attacker", opts.attacker]
    if with_original:
        cmd += ["--original", _q(i.original)]
    needs = {"strong": "the release only: it assumes every cover problem breaks",
             "moderate": "some of the original records (drawn from the original)",
             "weak": "a few itemsets, mostly outside the release"}[opts.attacker]
    s = report.summary
    # REFINE's cover problems: those across a shared chunk, and those whose covering itemset
    # every record of the cluster holds (it says nothing the cluster does not say of each record)
    problems = report.cover_problems
    size = {c.id: c.size for c in report.clusters}
    figures = CoverFigures(
        s.cover_problems, s.breaches, s.vulnerable_records, s.clusters_with_breaches, s.real_pairs, s.transactions,
        spanning_shared_chunk=sum(1 for p in problems if "/S" in (p.chunk_label or "") + (p.earlier_label or "")),
        held_by_every_record=sum(1 for p in problems if size.get(p.cluster) is not None
                                 and p.itemset_support == size[p.cluster]))
    return CoverEntry(attack=label("cover", o), attacker=opts.attacker, command=" ".join(cmd), needs=needs,
                      figures=figures)
