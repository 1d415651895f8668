"""Publish this instead (issue 21 item 2): safer releases of the assessed release's family,
each measured with the experiment engine (:func:`semtui.experiment.cells.run_cell`), the
assessed release beside them as "this release", and the one a careful publisher would choose.

:data:`ALTERNATIVES` is the table of what is tried, per family: each row turns the assessed
release's parameters into an alternative's (or None where it does not apply).  New anonymiser
options become new rows.

**The choice** (:func:`choose`): the release that brings the strongest attacker closest to
chance — its distance from chance is ``1 − error ratio`` (set generalisation, k^m) or
``lift − 1`` (disassociation), 0 when no attack beat chance, 1 when nothing was generalised —
at the least utility cost: among the releases whose distance is within :data:`TOLERANCE` of
the smallest, the one with the highest utility score (then the lower risk).  Only releases that
take back no more than the assessed release (risk no higher) are candidates: closer to chance
can mean that a random attacker also takes back more (on MEPS-half k = 3 every larger k and the
WordNet classes bring the error ratio from 0.15 to 0.25–0.40 while the take rises from 67 % to
84–92 %, docs/assess.md), and a careful publisher does not trade the one for the other.  A release
whose independent check failed is never chosen.

**Disassociation's cover problem counts too.** A disassociated release is exposed twice: to
re-association (the lift above) and to its cover problems — the records the strong cover
attacker can breach (``cover_vulnerable_share``, of all records). Its distance from chance is the
larger of the two, and what it "takes" (for the no-more-taken rule) the larger of its
re-association risk and that share: a release half of whose records a cover attacker breaches is
never kept over one with none on the grounds that its re-association is nearer chance.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from semtui.errors import InputError
from semtui.experiment.cells import FORMAT, Context, privacy_of, run_cell
from semtui.experiment.spec import PARAMS, make_cell
from semtui.families import Assessed, family_of
from semtui.families import assessed_params as _assessed_params
from semtui.families.setgen import ASSUMED_SETGEN
from semtui.runtime import ProgressCallback, no_progress

#: distances from chance this close to the smallest count as equal (the choice then goes to utility)
TOLERANCE = 0.05


@dataclass(frozen=True)
class Alternative:
    family: str
    name: str
    #: why it should be safer, in a publisher's words
    why: str
    make: Callable[[dict], dict | None]


def _unless_same(p: dict, q: dict) -> dict | None:
    return None if q == p else q


ALTERNATIVES: tuple[Alternative, ...] = (
    Alternative("setgen", "hardened", "members of each generalised item alike to the strongest attacker -- in "
                "prior and co-occurrence -- with the same k and constraints (semtui harden, against the background "
                "when one is given, else the original's own statistics)",
                lambda p: None if p.get("harden") else {**p, "harden": True}),
    Alternative("setgen", "k doubled", "each constraint's items shared by twice as many transactions",
                lambda p: {**p, "k": 2 * p["k"]}),
    Alternative("setgen", "k tripled", "each constraint's items shared by three times as many transactions",
                lambda p: {**p, "k": 3 * p["k"]}),
    Alternative("setgen", "items generalised within WordNet classes",
                "only items of one WordNet class are generalised together (members of similar meaning, so "
                "the context tells an added member from a real one less)",
                lambda p: _unless_same(p, {**p, "utility": "wordnet"})),
    Alternative("setgen", "items generalised with items of similar frequency",
                "only items of one support band are generalised together (semtui anonymize setgen --utility "
                "freq:8), so a member's rarity no longer tells an added member from a real one",
                lambda p: _unless_same(p, {**p, "utility": "freq:8"})),
    Alternative("km", "hardened", "a hierarchy whose siblings are alike to the strongest attacker -- in prior and "
                "co-occurrence -- with the same k and m (semtui harden builds it, against the background when one is "
                "given, else the original's own statistics)",
                lambda p: None if p.get("harden") else
                {**{k: v for k, v in p.items() if k not in ("hierarchy", "order")}, "fanout": p.get("fanout", 5),
                 "harden": True}),
    Alternative("km", "k doubled", "every itemset of m items shared by twice as many transactions",
                lambda p: {**p, "k": 2 * p["k"]}),
    Alternative("km", "hierarchy ordered by support",
                "items of similar frequency generalised together (semtui hierarchy build --order support), so "
                "a member's rarity says less about whether it is real",
                lambda p: None if p.get("order") == "support" else
                {**{k: v for k, v in p.items() if k != "hierarchy"}, "fanout": p.get("fanout", 5),
                 "order": "support"}),
    Alternative("disassoc", "hardened", "every cover problem removed, REFINE kept (semtui harden: occurrences "
                "suppressed in record chunks where one ends a problem, items REFINE shared put back into their term "
                "chunks where none does)",
                lambda p: None if p.get("safe") or p.get("harden") else {**p, "refine": True, "harden": True}),
    Alternative("disassoc", "k doubled", "every itemset of a record chunk shared by twice as many records",
                lambda p: {**p, "k": 2 * p["k"], "max_cluster_size": max(p["max_cluster_size"], 2 * p["k"])}),
    Alternative("disassoc", "clusters halved", "smaller clusters: fewer records to choose among, but fewer "
                "items kept together (HORPART splits more)",
                lambda p: {**p, "max_cluster_size": p["max_cluster_size"] // 2}
                if p["max_cluster_size"] // 2 >= p["k"] else None),

)

#: each family's rows of the table, in the table's order
_ROWS: dict[str, list[Alternative]] = {}
for _alt in ALTERNATIVES:
    _ROWS.setdefault(_alt.family, []).append(_alt)

__all__ = ["ALTERNATIVES", "ASSUMED_SETGEN", "Alternative", "AlternativesRun", "Assessed", "assess_with_alternatives",
           "assessed_params", "choose", "chosen_sentence", "distance", "plan", "this_release"]


def assessed_params(kind: str, release, data_path: str) -> Assessed:
    """The parameters of the assessed release (:func:`semtui.families.assessed_params`: from a
    disassociated release itself, from a set-generalised release's sidecar ``RELEASE.json``, else
    the documented defaults, said so).  ``kind``: the assessment's, which the release's data says."""
    return _assessed_params(release, data_path)


def this_release(report, release, original, key, assessed: Assessed) -> dict:
    """The assessed release as a cell ("this release"): the assessment's figures, its utility, and
    its check where its parameters are known."""
    p = assessed.params
    fam = assessed.family
    family = family_of(fam)
    t0 = time.perf_counter()
    check = {"passed": None, "checker": None, "detail": "not checked: the release's parameters are unknown"}
    if assessed.known:
        check = family.check_assessed(release, assessed, original=original, key=key) or check
    check_s = time.perf_counter() - t0
    utility = family.utility(original, release)
    i = report.inputs
    return {"format": FORMAT, "id": f"this-release:{i.data}", "cell": {"family": fam, **p, "known": assessed.known},
            "label": "this release", "release": i.data, "key": i.key, "anonymize_command": None,
            "inputs": {"original": i.original, "background": i.background, "corpus": i.corpus,
                       "measures": list(i.measures)},
            "check": check, "privacy": privacy_of(report, fam), "utility": utility,
            "times": {"anonymize_s": None, "check_s": round(check_s, 3), "attack_s": round(report.seconds, 3)},
            "why": "the release assessed", "chosen": False}


def plan(assessed: Assessed) -> list[tuple[Alternative, dict]]:
    """The alternatives of the table that apply to this release, with their parameters."""
    out, seen = [], set()
    for alt in _ROWS.get(assessed.family, ()):
        q = alt.make(dict(assessed.params))
        if q is None:
            continue
        q = {k: v for k, v in q.items() if k in PARAMS[alt.family]}
        cell = make_cell(alt.family, q)
        if cell.id in seen:
            continue
        seen.add(cell.id)
        out.append((alt, q))
    return out


def distance(cell: dict) -> float:
    """How far the cell's strongest attacker is from chance (0: at chance or worse)."""
    p = cell.get("privacy") or {}
    if p.get("attack") is None:
        return 1.0 if p.get("risk") == 1.0 else math.inf
    if p.get("risk") is None:  # no attack could score it: unknown, never the safest
        return math.inf
    cover = _cover_share(cell)
    if not p.get("beats_chance"):
        return cover
    return family_of(cell["cell"]["family"]).distance(p.get("figures") or {}, cover)


def _cover_share(cell: dict) -> float:
    """The share of the records the strong cover attacker can breach (0 where no cover attack ran)."""
    return float((cell.get("privacy") or {}).get("cover_vulnerable_share") or 0.0)


def _taken(cell: dict) -> float | None:
    """What the release gives away, for the no-more-taken rule: its risk, and for a
    disassociated release at least the share of records the cover attacker breaches."""
    r = (cell.get("privacy") or {}).get("risk")
    cover = _cover_share(cell)
    if r is None:
        return None
    return max(r, cover)


def choose(cells: list[dict]) -> int | None:
    """The index of the release a careful publisher would choose (module docstring); ``cells[0]``
    is the assessed release."""
    this_risk = _taken(cells[0]) if cells else None

    def no_more_taken(i: int) -> bool:
        r = _taken(cells[i])
        return i == 0 or this_risk is None or (r is not None and r <= this_risk)

    ok = [i for i, c in enumerate(cells) if c["check"].get("passed") is not False and math.isfinite(distance(c))
          and no_more_taken(i)]
    if not ok:
        return None
    best = min(distance(cells[i]) for i in ok)
    near = [i for i in ok if distance(cells[i]) <= best + TOLERANCE]
    return max(near, key=lambda i: ((cells[i]["utility"].get("score") or 0.0),
                                    -((cells[i]["privacy"].get("risk")) or 0.0), cells[i]["label"] == "this release"))


def assess_with_alternatives(release, inputs, *, progress: ProgressCallback | None = None,
                             alternatives: bool = True):
    """What ``semtui assess`` reports (the TUI's ``A`` runs this): every applicable attack and,
    with the original, the safer alternatives and the choice among them (measured beside the
    attacks on this release when ``--jobs`` allows, :meth:`AlternativesRun.start`)."""
    from semtui.assess import Assessor

    assessor = Assessor(release, inputs, progress=progress)
    if not alternatives:
        report = assessor.run()
        report.alternatives_note = "no alternatives: --no-alternatives"
        return report
    run = AlternativesRun(assessor, progress=progress)
    run.start()
    try:
        assessor.run()
        run.run()
    finally:
        run.stop()
    return assessor.report


class AlternativesRun:
    """Measures the alternatives of one assessment into ``report.alternatives`` -- one at a time,
    or ``--jobs`` at a time through the one executor -- so an interrupted run keeps those finished
    (:meth:`close`).

    :meth:`start` (before the assessor runs) begins measuring them in the background, ``jobs``
    worker processes of the one executor, while this release's own attacks run here with one
    job fewer: the alternatives are most of an assessment's work (four to five releases, each
    anonymised, checked and attacked as this one is), and this release's attacks no longer
    wait for them or they for it.  :meth:`run` (after it) waits for them, reporting progress
    from this thread only; :meth:`stop` ends them (an interrupt, a cancel) within a poll."""

    def __init__(self, assessor, progress: ProgressCallback | None = None):
        self.assessor = assessor
        self.report = assessor.report
        self.progress = progress or no_progress
        self.total = 0
        self._planned = False
        self._todo: list = []
        self._assessed = None
        self._ctx = None
        self._jobs = 1
        # the measuring in the background (start): its thread, results, progress and end
        self._thread = None
        self._cells: list = []
        self._got: dict[int, dict] = {}
        self._done = 0
        self._error: BaseException | None = None
        self._stopping = None

    def _plan(self) -> bool:
        """The alternatives to measure and their context; False when there are none (no original)."""
        if self._planned:
            return bool(self._todo) or self._assessed is not None
        self._planned = True
        a = self.assessor
        if a.original is None:
            return False
        self._assessed = _assessed_params(a.release, self.report.inputs.data)
        self._todo = plan(self._assessed)
        self.total = len(self._todo)
        i = self.report.inputs
        from semtui.fileio import check_readable

        self._ctx = Context(original=a.original, original_path=i.original, background=i.background, corpus=i.corpus,
                            measures=i.measures, jobs=i.jobs, cache=i.cache, opened=a.opened)
        for _, q in self._todo:
            if q.get("privacy"):
                check_readable(q["privacy"])
        from semtui.runtime.executor import capped_jobs

        self._jobs = capped_jobs(i.jobs)
        return True

    def _parallel(self) -> bool:
        return self._jobs > 1 and len(self._todo) > 1

    def start(self) -> None:
        """Begin measuring the alternatives in the background (with more than one job and more
        than one alternative; else :meth:`run` measures them one by one).  This release's
        attacks then run with one job fewer (:attr:`Assessor.jobs`): they and the alternatives'
        workers share the cores."""
        import threading

        if not self._plan() or not self._parallel() or self._thread is not None:
            return
        a = self.assessor
        if self.report.inputs.background:
            a._background()   # read once here; the workers receive it loaded
        self._cells, shipped = self._shipped()
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._measure_beside, args=(shipped,), name="semtui-alternatives",
                                        daemon=True)
        self._thread.start()
        a.jobs = max(1, self._jobs - 1)

    def _shipped(self):
        import dataclasses

        from semtui.assess import Opened

        cells = [make_cell(alt.family, q) for alt, q in self._todo]
        # each worker opens the measures itself (a measure never travels); the background as loaded here
        ctx = self._ctx
        return cells, dataclasses.replace(ctx, jobs=1, opened=Opened(backgrounds=dict(ctx.opened.backgrounds)))

    def _measure_beside(self, shipped) -> None:
        from semtui.errors import Interrupted
        from semtui.runtime.executor import run_local

        def beside(done: int, total: int, message: str = "") -> None:
            self._done = done
            if self._stopping.is_set():
                raise Interrupted()

        try:
            run_local(measure_alternative, shipped, self._cells, jobs=self._jobs, progress=beside,
                      on_result=self._got.__setitem__)
        except BaseException as exc:  # handed to the thread that waits (run)
            self._error = exc

    def stop(self) -> None:
        """End the measuring in the background, if any (its workers killed within a poll)."""
        if self._thread is not None:
            self._stopping.set()
            self._thread.join()
            self.assessor.jobs = self.report.inputs.jobs

    def run(self) -> None:
        """After the assessor has run: the alternatives measured (waiting for those started
        beside it), then the choice among them."""
        a = self.assessor
        rep = self.report
        if not self._plan():
            rep.alternatives_note = "no alternatives: give --original to measure safer releases beside this one"
            return
        rep.alternatives = [this_release(rep, a.release, a.original, a.key, self._assessed)]
        rep.alternatives_note = self._assessed.note
        if self._thread is not None:
            self._wait()
        elif self._parallel():
            self._run_in_parallel()
        else:
            self._run_one_by_one()
        self.close(interrupted=False)

    def _said(self, done: int) -> None:
        self.progress(done, self.total, f"[alternatives] {done}/{self.total} measured, {self._jobs} at a time")

    def _wait(self) -> None:
        from semtui.runtime.executor import POLL

        try:
            while self._thread.is_alive():
                self._said(self._done)   # from this thread only (it may raise Interrupted: a cancel)
                self._thread.join(POLL)
        except BaseException:
            self.stop()
            raise
        finally:
            self._keep(self._got)
        if self._error is not None:
            raise self._error
        self._said(len(self._got))

    def _keep(self, got: dict) -> None:
        """The alternatives measured, in the table's order (every one finished, when stopped part-way)."""
        for n in sorted(got):
            alt, _ = self._todo[n]
            if "not_measured" in got[n]:
                self._not_measured(alt, got[n]["not_measured"])
            else:
                self._measured(alt, self._cells[n], got[n])
        got.clear()

    def _measured(self, alt: Alternative, cell, doc: dict) -> None:
        doc["label"] = f"{alt.name} ({cell.label})"
        doc["why"] = alt.why
        doc["chosen"] = False
        self.report.alternatives.append(doc)

    def _not_measured(self, alt: Alternative, message: str) -> None:
        """An option this machine cannot run (no WordNet files): said, not fatal."""
        self.report.alternatives_note += f"; not measured: {alt.name} ({message})"

    def _run_in_parallel(self) -> None:
        """The alternatives as units of the one executor, ``jobs`` at a time (each runs its attacks
        on one core: the same figures, bit for bit, as one at a time with ``--jobs``); every one
        finished is kept, in the table's order, when the run is stopped part-way."""
        from semtui.runtime.executor import run_local

        self._cells, shipped = self._shipped()
        got: dict[int, dict] = {}
        try:
            run_local(measure_alternative, shipped, self._cells, jobs=self._jobs,
                      progress=lambda done, total, message="": self._said(done), on_result=got.__setitem__)
        finally:
            self._keep(got)

    def _run_one_by_one(self) -> None:
        todo = self._todo
        for n, (alt, q) in enumerate(todo):
            cell = make_cell(alt.family, q)

            def inner(d, t, m="", _n=n, _name=alt.name):
                self.progress(_n, len(todo), f"[alternative {_n + 1}/{len(todo)}] {_name}: {m}".rstrip(": "))

            try:
                doc = run_cell(cell, self._ctx, inner)
            except InputError as exc:  # an option this machine cannot run (no WordNet files): said, not fatal
                self._not_measured(alt, exc.message)
                continue
            self._measured(alt, cell, doc)

    def close(self, interrupted: bool) -> None:
        """Choose among the alternatives measured, and say so in the summary and the verdict."""
        rep = self.report
        alts = rep.alternatives
        if not alts:
            return
        measured = len(alts) - 1
        if interrupted:
            rep.partial = True
            rep.alternatives_note = (rep.alternatives_note or "") + \
                f" (interrupted: {measured} of {self.total} alternatives measured)"
        for c in alts:
            c["chosen"] = False
        k = choose(alts)
        if k is None:
            rep.verdict += " No alternative could be chosen: none passed its check with a scored attack."
            return
        alts[k]["chosen"] = True
        rep.verdict += " " + chosen_sentence(alts, k)


def _far(c: dict) -> str:
    """How far the release's strongest attack is from chance, as a clause."""
    p = c["privacy"]
    if p.get("attack") is None:
        return "nothing is generalised" if p.get("risk") == 1.0 else "no attack applies"
    cover = ""
    if "cover_vulnerable_share" in p:
        n = (p.get("cover_vulnerable_records") or {}).get("strong")
        cover = (f", and the strong cover attacker can breach {n:,} records ({_cover_share(c):.0%})" if n else
                 ", and no cover problem breaks")
    return family_of(c["cell"]["family"]).far(p, cover)


def chosen_sentence(alts: list[dict], k: int) -> str:
    """The choice in one sentence, worded from the numbers; and, when another checked release
    lets far less come back, that one too (the choice weighs distance from chance first)."""
    this, pick = alts[0], alts[k]
    n = len(alts) - 1
    su, tu = pick["utility"].get("score"), this["utility"].get("score")
    if k == 0:
        others = "; ".join(f"{a['label']}: {_far(a)}, takes back {_r(a)}" for a in alts[1:])
        said = (f"Keep this release: none of the {n} alternative(s) measured brings the strongest attacker closer to "
                f"chance without taking back more or costing more utility (here {_far(this)}, takes back "
                f"{_r(this)}, utility {tu:.3f}; {others}).")
    else:
        sp, tp = pick["utility"].get("pair_support_error"), this["utility"].get("pair_support_error")
        pairs = ("" if sp is None or tp is None else
                 f"; the original's most frequent pairs' supports off by {sp:.0%} where this release is off by {tp:.0%}")
        said = (f"Publish instead: {pick['label']} — there {_far(pick)} (in this release {_far(this)}); the "
                f"strongest attacker takes back {_r(pick)} (here {_r(this)}), at utility {su:.3f} against {tu:.3f} "
                f"({'a cost of ' + format(tu - su, '.3f') if su < tu else 'no cost'}{pairs}).")
    least = _least_taken(alts)
    if least is not None and least != k:
        low, mine = _taken(alts[least]), _taken(pick)
        if low is not None and mine is not None and low < 0.8 * mine:
            lu = alts[least]["utility"].get("score")
            said += (f" If how much comes back matters more than how far the attacker is from chance: "
                     f"{'this release' if least == 0 else alts[least]['label']} lets the least come back "
                     f"({_r(alts[least])}, against {_r(pick)}), at utility {lu:.3f}.")
    return said


def _least_taken(alts: list[dict]) -> int | None:
    """The checked, scored release that lets the least come back (then the most utility)."""
    ok = [i for i, c in enumerate(alts) if c["check"].get("passed") is not False and _taken(c) is not None]
    if not ok:
        return None
    return min(ok, key=lambda i: (_taken(alts[i]), -(alts[i]["utility"].get("score") or 0.0)))


def _r(c: dict) -> str:
    """What the strongest attacker takes back, in words that say of what."""
    r = c["privacy"].get("risk")
    if r is None:
        return "-"
    return f"{r:.0%} of {family_of(c['cell']['family']).risk_of}"


def measure_alternative(ctx: Context, cell) -> dict:
    """One alternative in a worker of the executor (:meth:`AlternativesRun._run_in_parallel`): its
    cell document, or ``{"not_measured": why}`` for an option this machine cannot run."""
    try:
        return run_cell(cell, ctx)
    except InputError as exc:
        return {"not_measured": exc.message}
