"""The run: :class:`Assessor` runs every attack its release's family plans, one at a time, keeps
each entry as it finishes (an interrupted run still reports what finished: ``partial``), keeps
the strongest, and at the end finds the records at risk, how sure, what was not modelled and
the verdict.

Nothing here re-implements an attack: the set-generalisation attack (`run_setgen_attack` with
:class:`AttackOptions`), the re-association attack (`run_reassociation` with
:class:`ReassociationOptions`) and the cover problem (`run_cover` with :class:`CoverOptions`) run
as the CLI runs them alone; each entry is made from the attack's own report
(:mod:`semtui.assess.entries`), never from a document.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import ClassVar

from semtui.assess.entries import cover_entry, label, reassoc_entry, setgen_entry
from semtui.assess.inputs import AssessInputs, Opened, attack_name, is_default
from semtui.assess.records import (
    RECORDS_KEPT,
    ranked_disassoc_records,
    reassoc_records,
    setgen_records,
)
from semtui.assess.results import AssessmentReport, Skipped
from semtui.assess.verdict import beats_chance, candidates, how_sure, lifts, not_modelled, rank, verdict
from semtui.families import Planned, family_of
from semtui.families.disassoc import REASSOC_METHODS
from semtui.release import Release
from semtui.runtime import ProgressCallback, no_progress


class Assessor:
    """Runs every applicable attack on one release; :attr:`report` holds what has finished."""

    def __init__(self, release: Release, inputs: AssessInputs, *, progress: ProgressCallback | None = None,
                 opened: Opened | None = None, records: bool = True):
        """``release``: opened by :func:`semtui.release.open_release` (its companions checked
        there, never again here), or made in memory by an anonymiser; ``opened``: measures and
        background already opened (shared by several assessments, as the experiment's cells share
        them); ``records``: find the records at risk at the end (an experiment cell needs only
        the figures, and skips re-running the strongest attack alone for them)."""
        original, key = release.original, release.key
        self.release, self.original, self.key, self.inputs = release.data, original, key, inputs
        release = release.data
        self.progress = progress or no_progress
        family = family_of(release)
        kind, scored = family.kind, family.assessable(release, original=original, key=key, inputs=inputs)
        self.report = AssessmentReport(kind=kind, inputs=inputs, scored=scored)
        # the report of the strongest attack so far (or the default's, unscored): a set-generalisation
        # attack's SetgenAttackReport, a re-association's report
        self._best = None
        self.opened = opened if opened is not None else Opened()  # every measure and the background, opened once
        self._records_wanted = records
        self._cover: list = []  # the cover runs' typed reports, whose breaches reach records
        self._cover_problems = None   # the release's cover problems, found once for every attacker
        self._baselines = None        # the re-associations' budget-matched draws, shared between methods
        #: worker processes for each attack's kernels: ``inputs.jobs``, fewer while the alternatives
        #: are measured beside this release (:meth:`AlternativesRun.start`); the figures are the same
        self.jobs = inputs.jobs
        self._started = time.perf_counter()

    # ---------------------------------------------------------------- plan
    @property
    def family(self):
        """The release's family (:mod:`semtui.families`): it plans the attacks."""
        return family_of(self.release)

    def plan(self) -> list[Planned]:
        """Every attack the release admits, as (attack, options) in the order they run: the
        family's plan (``attack`` names the family of attacks that runs each), less those
        ``inputs.only`` leaves out."""
        out = self.family.plan(self.inputs)
        if self.inputs.only is not None:
            out = [p for p in out if attack_name(*p) in self.inputs.only]
        return out

    def run(self) -> AssessmentReport:
        from semtui.runtime.cluster import session

        with session(self.inputs.scheduler):  # one cluster for every attack
            return self._run()

    def _run(self) -> AssessmentReport:
        plan = self.plan()
        n = len(plan)
        # every measure and the background opened before the first attack: a file that cannot be
        # read is refused up front, not after minutes of attacks
        self.progress(0, n, "opening the measures")
        for m in self.inputs.measure_list():
            self._measure(m)
        if self.inputs.background:
            self.progress(0, n, "reading the background")
            self._background()
        for idx, planned in enumerate(plan):
            attack, opts = planned
            name = label(attack, opts)

            def inner(done, total, message="", _idx=idx, _label=name):
                # the whole run counts attacks; the current attack's own progress is in the message
                self.progress(_idx, n, f"[{_idx + 1}/{n}] {_label}: {message} {done}/{total}".rstrip())

            inner(0, 0, "starting")
            if (why := self.family.unrunnable(planned, original=self.original)) is not None:
                self.report.skipped.append(Skipped(name, why))
                continue
            t0 = time.perf_counter()
            entry, result = self._RUNNERS[attack](self, opts, inner)
            entry = replace(entry, seconds=round(time.perf_counter() - t0, 3))
            self.report.attacks.append(entry)
            self._consider(entry, result)
            if not self.report.scored and is_default(attack, opts, self.inputs):
                self._best = result  # unscored: the records the default attack implicates
            self.progress(idx + 1, n, f"[{idx + 1}/{n}] {name}: done")
        self.finish(partial=False)
        return self.report

    # ---------------------------------------------------------------- attacks
    def _run_setgen(self, o: dict, progress):
        from semtui.attacks.setgen import AttackOptions, run_setgen_attack

        i = self.inputs
        opts = AttackOptions(method=o["method"], measure=o.get("measure", "embedding"), seed=o.get("seed"),
                             background=o.get("background"), jobs=self.jobs, scheduler=i.scheduler, cache=i.cache,
                             unmarked=i.unmarked)
        # without the records at risk (an alternative, an experiment's cell) only the figures are read
        rep = run_setgen_attack(self.release, self.original, opts, measure=self._measure(opts.measure),
                                background=self._background() if opts.background else None, progress=progress,
                                data_path=i.data, original_path=i.original, write_up=self._records_wanted)
        return setgen_entry(rep, opts, o, i), rep

    def _run_reassoc(self, o: dict, progress):
        from semtui.attacks.reassociation import Baselines, ReassociationOptions, run_reassociation

        i = self.inputs
        method = o["method"]
        opts = ReassociationOptions(method=method, measure=o.get("measure", "embedding"),
                                    background=o.get("background"), jobs=self.jobs, scheduler=i.scheduler, cache=i.cache,
                                    summary_only=not self._records_wanted)
        # the informed reference depends on the tie rule only, not on the method: computed once, under
        # seeded random ties (NBA's default; under the paper's stable ties tied units pile onto the first
        # anchors and the reference would understate what statistics give) -- with NBA when a background
        # is given, else with RA (which always runs and places at random whatever the rule)
        first = opts.tie_rule == "random" and not any(a.informed_reference for a in self.report.attacks)
        opts = opts.replace(informed=first)
        if self._baselines is None and self.key is not None:
            self._baselines = Baselines(self.release, self.key, self.original)
        res = run_reassociation(self.release, self.key, self.original, opts, progress=progress,
                                measure=self._measure(opts.measure) if method in REASSOC_METHODS else None,
                                background=self._background() if opts.background else None,
                                # the WMD measure, opened once for every judged run (not once a run)
                                wmd=self._measure(opts.wmd_measure) if self.key is not None and opts.wmd_measure else None,
                                original_path=i.original, baselines=self._baselines,
                                sources={"data": i.data, "key": i.key, "original": i.original})
        entry = reassoc_entry(res, opts, o, i, uses_measure=method in REASSOC_METHODS, keyed=self.key is not None)
        return entry, res.report

    def _run_cover(self, o: dict, progress):
        from semtui.attacks.cover import CoverOptions, CoverProblems, run_cover

        i = self.inputs
        opts = CoverOptions(attacker=o["attacker"])
        if self._cover_problems is None:   # found once: every attacker's are the same
            self._cover_problems = CoverProblems.find(self.release, self.original, progress)
        report = run_cover(self.release, opts, original=self.original, progress=progress,
                           sources={"data": i.data, "original": i.original, "knowledge": None},
                           problems=self._cover_problems)
        self._cover.append(report)
        self.report.cover_reports[opts.attacker] = report
        return cover_entry(report, opts, o, i, with_original=self.original is not None), report

    #: the runner of each family of attacks a family's plan names (Planned.attack)
    _RUNNERS: ClassVar[dict] = {"setgen": _run_setgen, "reassoc": _run_reassoc, "cover": _run_cover}

    # ---------------------------------------------------------------- shared knowledge
    def _measure(self, spec: str):
        return self.opened.measure(spec, self.inputs.cache)

    def _background(self):
        return self.opened.load_background(self.inputs.background)

    # ---------------------------------------------------------------- the strongest
    def _consider(self, entry, result) -> None:
        for c in candidates(entry):
            if not beats_chance(c.figures):
                continue
            best = self.report.strongest
            if best is None or rank(c.figures) > rank(best.figures):
                self.report.strongest = replace(c, main=True)
                self._best = result if c.main else None

    def _rerun_best(self):
        """The strongest attack's own report: kept, or (a knowledge table other than its run's
        default) run alone, as its command runs it."""
        if self._best is not None or self.report.strongest is None:
            return self._best
        from semtui.attacks.setgen import AttackOptions, run_setgen_attack

        s = self.report.strongest
        opts = AttackOptions(method=s.method, measure=s.measure, background=s.background,
                             knowledge=s.knowledge, jobs=self.jobs,
                             scheduler=self.inputs.scheduler, cache=self.inputs.cache, unmarked=self.inputs.unmarked)
        self._best = run_setgen_attack(self.release, self.original, opts, measure=self._measure(opts.measure),
                                       background=self._background(), progress=self.progress,
                                       data_path=self.inputs.data, original_path=self.inputs.original)
        return self._best

    # ---------------------------------------------------------------- records at risk
    def _records(self, best, breaches: bool) -> None:
        """The records at risk from the strongest attack's report (``best``) and, for a
        disassociated release with ``breaches``, the cover breaches that reach each record (with
        the key: which transaction holds the breached item) -- merged once, as the TUI merges
        them (:func:`semtui.assess.records.disassoc_records`)."""
        rep = self.report
        if rep.kind == "set-generalised":
            recs, rep.items_exposed = setgen_records(best.groups) if best is not None else ([], [])
            rep.records_at_risk, rep.records_implicated = recs[:RECORDS_KEPT], len(recs)
            return
        recs, rep.items_exposed = reassoc_records(best, self.original) if best is not None else ([], [])
        if breaches:   # only the kept records' breaches are made (~460,000 on disassociated MEPS)
            rep.records_at_risk, rep.records_implicated = ranked_disassoc_records(
                recs, self._cover, self.release, self.key, self.original, RECORDS_KEPT)
        else:
            rep.records_at_risk, rep.records_implicated = recs[:RECORDS_KEPT], len(recs)

    # ---------------------------------------------------------------- the end
    def finish(self, partial: bool) -> AssessmentReport:
        """Close the report: the records at risk, how sure, what was not modelled, the verdict.
        ``partial``: interrupted, only the attacks finished are in it (no attack is re-run)."""
        rep = self.report
        rep.partial = partial
        if not self._records_wanted:
            pass
        elif not partial:
            self._records(self._rerun_best() if rep.scored else self._best, breaches=True)
        elif self._best is not None:
            self._records(self._best, breaches=False)
        if rep.strongest is not None:
            rep.strongest = replace(rep.strongest, lift=lifts(rep))
        rep.how_sure_reference = next((a.informed_reference for a in rep.attacks if a.informed_reference), None)
        rep.not_modelled = not_modelled(rep)
        rep.how_sure = how_sure(rep)
        rep.verdict = verdict(rep)
        rep.seconds = time.perf_counter() - self._started
        return rep


def run_assessment(release: Release, inputs: AssessInputs, *,
                   progress: ProgressCallback | None = None) -> AssessmentReport:
    """Every applicable attack on ``release``; see :class:`Assessor` for a run that can be
    interrupted and still reported."""
    return Assessor(release, inputs, progress=progress).run()
