"""``assess``: the publisher's question in one run (issue 21) — every applicable attack on a
release, with every measure and knowledge given, the strongest one, the records most at risk,
how sure the figures are, and a verdict worded from the numbers.

Nothing here re-implements an attack: the set-generalisation attack (`run_setgen_attack` with
:class:`AttackOptions`), the re-association attack (`run_reassociation` with
:class:`ReassociationOptions`) and the cover problem (`run_cover` with :class:`CoverOptions`) run
as the CLI runs them alone, and each attack's document entry holds the ``semtui …`` command that
reproduces it.  :class:`Assessor` fills its :class:`AssessmentReport` one attack at a time, so a
face that is interrupted still holds every attack already finished (``partial``).
"""

from __future__ import annotations

import shlex
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import ClassVar

from semtui.errors import InputError
from semtui.families import Planned, family_of
from semtui.families.disassoc import COVER_ATTACKERS, REASSOC_METHODS  # noqa: F401 (re-exported)
from semtui.families.setgen import KNOWLEDGE_METHODS, SETGEN_METHODS
from semtui.release import Release
from semtui.reports import Report, json_float
from semtui.runtime import ProgressCallback, no_progress

FORMAT = "semtui-assessment/1"

# the attacks' methods, as each family plans them (semtui.families): SETGEN_METHODS, KNOWLEDGE_METHODS
# (set generalisation, k^m), REASSOC_METHODS, COVER_ATTACKERS (disassociation)

#: how many records and items the summary lists (the document holds up to RECORDS_KEPT)
RECORDS_SHOWN = 10
RECORDS_KEPT = 200

_WORDS = {
    "prior": "how common each item is in a similar population",
    "semantics": "the meaning of the items (the measure)",
    "background": "how common items are and which go together in a similar population",
    "combined": "how common items are, which go together, and their meaning",
}


@dataclass(frozen=True)
class AssessInputs:
    """The files an assessment reads, as the user named them (the commands it prints name them so)."""

    data: str
    original: str | None = None
    key: str | None = None
    background: str | None = None
    corpus: str | None = None
    measures: tuple[str, ...] = ()
    jobs: int = 1
    #: a Dask scheduler for every attack's units (local:N, tcp://HOST:PORT); None: ``jobs`` processes here
    scheduler: str | None = None
    #: read and write the persistent score cache (the results are the same without it)
    cache: bool = True
    #: the release writes its generalised items as their members, as plain items: every
    #: set-generalisation attack recovers them first (``attack setgen --unmarked``)
    unmarked: bool = False
    #: run only these attacks (:func:`attack_name`: a method, or ``cover``); None: every one the
    #: release admits.  What is not run is not tried: the strongest attack is among those run only
    only: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        from semtui.runtime.scheduler import check_scheduler

        object.__setattr__(self, "scheduler", check_scheduler(self.scheduler))

    def measure_list(self) -> list[str]:
        """The measures every semantic attack runs with: those given, else ``embedding``; a corpus
        index adds NGD over it."""
        out = list(dict.fromkeys(m.strip() for m in self.measures if m.strip())) or ["embedding"]
        if self.corpus:
            ngd = f"ngd:{self.corpus}"
            if ngd not in out:
                out.append(ngd)
        return out


@dataclass
class AssessmentReport(Report):
    """What an assessment found; filled one attack at a time (``partial`` until it ends)."""

    FORMAT = FORMAT

    kind: str
    inputs: AssessInputs
    scored: bool
    attacks: list[dict] = field(default_factory=list)
    skipped: list[dict] = field(default_factory=list)
    strongest: dict | None = None
    records_at_risk: list[dict] = field(default_factory=list)
    #: how many records the attack implicates (records_at_risk lists the first RECORDS_KEPT)
    records_implicated: int = 0
    items_exposed: list[dict] = field(default_factory=list)
    how_sure: dict = field(default_factory=dict)
    not_modelled: list[str] = field(default_factory=list)
    verdict: str = ""
    partial: bool = True
    seconds: float = 0.0
    #: disassociation with key and original: NBA with the original's own statistics (a reference, not an attack)
    how_sure_reference: dict | None = None
    #: safer releases of the same family measured with the experiment engine (docs/assess.md), each
    #: a ``semtui-experiment/1`` cell plus ``chosen``; "this release" among them
    alternatives: list[dict] = field(default_factory=list)
    #: why there are no alternatives, or what was assumed to make them
    alternatives_note: str | None = None
    #: the cover attacks' own reports by attacker (``semtui cover``'s document), kept beside the
    #: assessment but not in it: the TUI shows them as results (``x`` lists the problems)
    cover_reports: dict[str, dict] = field(default_factory=dict, repr=False, compare=False)

    def payload(self) -> dict:
        i = self.inputs
        return {
            "kind": self.kind,
            "partial": self.partial,
            "data": i.data, "original": i.original, "key": i.key, "background": i.background,
            "corpus": i.corpus, "measures": i.measure_list(), "jobs": i.jobs,
            "scored": self.scored,
            "verdict": self.verdict,
            "strongest": self.strongest,
            "records_implicated": self.records_implicated,
            "records_at_risk": self.records_at_risk,
            "items_exposed": self.items_exposed,
            "how_sure": self.how_sure,
            "informed_reference": self.how_sure_reference,
            "not_modelled": self.not_modelled,
            "attacks": self.attacks,
            "skipped": self.skipped,
            "alternatives": self.alternatives,
            "alternatives_note": self.alternatives_note,
            "seconds": round(self.seconds, 3),
        }


@dataclass
class Opened:
    """The measures and the background an assessment opens once (several assessments may
    share one: the experiment's cells, ``assess``'s alternatives)."""

    measures: dict = field(default_factory=dict)
    backgrounds: dict = field(default_factory=dict)

    def measure(self, spec: str, cache: bool = True):
        from semtui.measures import open_measure

        if spec not in self.measures:
            self.measures[spec] = open_measure(spec, cache=cache)
        return self.measures[spec]

    def load_background(self, spec: str):
        if spec not in self.backgrounds:
            from semtui.attacks.background import load_background

            self.backgrounds[spec] = load_background(spec)
        return self.backgrounds[spec]


def _q(path) -> str:
    return shlex.quote(str(path))


def _f(v, digits: int = 3) -> str:
    return "-" if v is None else f"{v:.{digits}f}"


# --------------------------------------------------------------------------- the run
class Assessor:
    """Runs every applicable attack on one release; :attr:`report` holds what has finished."""

    def __init__(self, release: Release, inputs: AssessInputs, *, progress: ProgressCallback | None = None,
                 opened: Opened | None = None, records: bool = True):
        """``release``: opened by :func:`semtui.release.open_release` (its companions checked
        there, never again here), or made in memory by an anonymiser; ``opened``: measures and
        background already opened (shared by several assessments, as the experiment's cells share
        them); ``records``: find the records at risk at the end (an experiment cell needs only
        the figures, and skips re-running the strongest attack alone for them)."""
        from semtui.model import DisassociatedData

        original, key = release.original, release.key
        self.release, self.original, self.key, self.inputs = release.data, original, key, inputs
        release = release.data
        self.progress = progress or no_progress
        if isinstance(release, DisassociatedData):
            kind = "disassociated"
            if not release.clusters:
                raise InputError("nothing to assess: the release has no cluster", inputs.data)
            if (key is None) != (original is None):
                raise InputError("the key and the original go together for a disassociated release (the "
                                 "metrics need both)", option="key")
            scored = key is not None
        else:
            if release.n_generalised == 0 and not inputs.unmarked:
                raise InputError("no generalised items to assess (a plain transactions file? an unmarked "
                                 "release: semtui attack setgen --unmarked)", inputs.data)
            kind = "set-generalised"
            scored = original is not None
            if key is not None:
                raise InputError("a key belongs to a disassociated release", option="key")
        self.report = AssessmentReport(kind=kind, inputs=inputs, scored=scored)
        self._best_doc: dict | None = None  # the report of the strongest attack so far (or the default, unscored)
        self.opened = opened if opened is not None else Opened()  # every measure and the background, opened once
        self._records_wanted = records
        self._breached: dict[int, set] = {}  # transaction -> {(cover attacker, breached item)}
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
        from semtui.runtime.scheduler import session

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
            label = _label(attack, opts)

            def inner(done, total, message="", _idx=idx, _label=label):
                # the whole run counts attacks; the current attack's own progress is in the message
                self.progress(_idx, n, f"[{_idx + 1}/{n}] {_label}: {message} {done}/{total}".rstrip())

            inner(0, 0, "starting")
            if (why := self.family.unrunnable(planned, original=self.original)) is not None:
                self.report.skipped.append({"attack": label, "why": why})
                continue
            t0 = time.perf_counter()
            entry, doc = self._RUNNERS[attack](self, opts, inner)
            entry["seconds"] = round(time.perf_counter() - t0, 3)
            self.report.attacks.append(entry)
            self._consider(entry, doc)
            if not self.report.scored and _is_default(attack, opts, self.inputs):
                self._best_doc = doc  # unscored: the records the default attack implicates
            self.progress(idx + 1, n, f"[{idx + 1}/{n}] {label}: done")
        self.finish(partial=False)
        return self.report

    # ---------------------------------------------------------------- attacks
    def _run_setgen(self, o: dict, progress) -> tuple[dict, dict]:
        from semtui.attacks.setgen import AttackOptions, run_setgen_attack

        i = self.inputs
        opts = AttackOptions(method=o["method"], measure=o.get("measure", "embedding"), seed=o.get("seed"),
                             background=o.get("background"), jobs=i.jobs, scheduler=i.scheduler, cache=i.cache,
                             unmarked=i.unmarked)
        rep = run_setgen_attack(self.release, self.original, opts, measure=self._measure(opts.measure),
                                background=self._background() if opts.background else None, progress=progress,
                                data_path=i.data, original_path=i.original)
        doc = rep.to_json()
        entry = {"family": "setgen", "attack": _label("setgen", o), "method": opts.method,
                 "measure": None if opts.method == "ra" else opts.measure, "background": opts.background,
                 "knowledge": opts.knowledge, "role": "baseline" if opts.method == "ra" else "attack",
                 "command": self._setgen_command(opts.method, opts.measure, opts.background, opts.knowledge,
                                                 opts.seed),
                 "needs": _setgen_needs(opts.method, opts.measure, opts.knowledge, opts.background),
                 "eliminations": doc["summary"]["eliminations"], "attacked_rows": doc["summary"]["attacked_rows"],
                 "rows": doc["summary"]["rows"], "privacy": doc["privacy"]}
        m = doc.get("metrics")
        if m is not None:
            entry["figures"] = _setgen_figures(m)
            if m.get("knowledge"):
                entry["by_knowledge"] = {}
                for v, f in m["knowledge"].items():
                    entry["by_knowledge"][v] = {
                        "method": f.get("method"), "figures": _setgen_figures(f),
                        "command": self._setgen_command(f.get("method"), opts.measure, opts.background, v, None),
                        "needs": _setgen_needs(f.get("method"), opts.measure, v, opts.background)}
        return entry, doc

    def _run_reassoc(self, o: dict, progress) -> tuple[dict, dict]:
        from semtui.attacks.reassociation import ReassociationOptions, run_reassociation

        i = self.inputs
        method = o["method"]
        opts = ReassociationOptions(method=method, measure=o.get("measure", "embedding"),
                                    background=o.get("background"), jobs=i.jobs, scheduler=i.scheduler, cache=i.cache)
        # the informed reference depends on the tie rule only, not on the method: computed once, under
        # seeded random ties (NBA's default; under the paper's stable ties tied units pile onto the first
        # anchors and the reference would understate what statistics give) -- with NBA when a background
        # is given, else with RA (which always runs and places at random whatever the rule)
        first = opts.tie_rule == "random" and not any(a.get("informed_reference") for a in self.report.attacks)
        opts = opts.replace(informed=first)
        res = run_reassociation(self.release, self.key, self.original, opts, progress=progress,
                                measure=self._measure(opts.measure) if method in REASSOC_METHODS else None,
                                background=self._background() if opts.background else None,
                                # the WMD measure, opened once for every judged run (not once a run)
                                wmd=self._measure(opts.wmd_measure) if self.key is not None and opts.wmd_measure else None,
                                original_path=i.original,
                                sources={"data": i.data, "key": i.key, "original": i.original})
        doc = res.report
        uses_measure = method in REASSOC_METHODS
        cmd = ["semtui", "attack", "disassoc", _q(i.data), "--method", method]
        if uses_measure:
            cmd += ["--measure", _q(opts.measure)]
        if opts.background:
            cmd += ["--background", _q(opts.background)]
        if self.key is not None:
            cmd += ["--key", _q(i.key), "--original", _q(i.original)]
        needs = {"ra": "nothing: a random re-association (the papers' baseline)",
                 "nba": f"which items go together in a similar population ({opts.background})"}.get(
            method, f"the release and the meaning of the items ({opts.measure})")
        entry = {"family": "reassociation", "attack": _label("reassoc", o), "method": method,
                 "measure": opts.measure if uses_measure else None, "background": opts.background,
                 "role": "baseline" if method == "ra" else "attack", "command": " ".join(cmd), "needs": needs,
                 "placements": doc["summary"]["placements"]}
        m = doc.get("metrics")
        if m is not None:
            keys = ("placements", "correct", "accuracy", "lift_over_random", "transaction_breakage", "km_breakage",
                    "broken_transactions", "exposed_itemsets", "protected_itemsets")
            entry["figures"] = {k: m.get(k) for k in keys}
            base = m.get("baseline") or {}
            entry["figures"]["baseline_accuracy"] = base.get("accuracy")
            # the budget-matched random re-association's breakages, beside the attack's
            entry["figures"]["baseline_transaction_breakage"] = base.get("transaction_breakage")
            entry["figures"]["baseline_km_breakage"] = base.get("km_breakage")
            if m.get("shared_chunks"):  # REFINE's shared chunks: their placements on their own
                entry["figures"]["shared_chunks"] = m["shared_chunks"]
            entry["figures"]["intervals"] = m.get("intervals")
            if m.get("informed_reference"):
                entry["informed_reference"] = {k: v for k, v in m["informed_reference"].items() if k != "about"}
        return entry, doc

    def _run_cover(self, o: dict, progress) -> tuple[dict, dict]:
        from semtui.attacks.cover import CoverOptions, run_cover

        i = self.inputs
        opts = CoverOptions(attacker=o["attacker"])
        doc = run_cover(self.release, opts, original=self.original, progress=progress,
                        sources={"data": i.data, "original": i.original, "knowledge": None})
        cmd = ["semtui", "cover", _q(i.data), "--attacker", opts.attacker]
        if self.original is not None:
            cmd += ["--original", _q(i.original)]
        needs = {"strong": "the release only: it assumes every cover problem breaks",
                 "moderate": "some of the original records (drawn from the original)",
                 "weak": "a few itemsets, mostly outside the release"}[opts.attacker]
        s = doc["summary"]
        entry = {"family": "cover", "attack": _label("cover", o), "attacker": opts.attacker, "role": "cover",
                 "command": " ".join(cmd), "needs": needs,
                 "figures": {k: s.get(k) for k in ("cover_problems", "breaches", "vulnerable_records",
                                                   "clusters_with_breaches", "real_pairs", "transactions")}}
        # REFINE's cover problems: those across a shared chunk, and those whose covering itemset
        # every record of the cluster holds (it says nothing the cluster does not say of each record)
        problems = doc.get("cover_problems") or []
        size = {c["id"]: c["size"] for c in doc.get("clusters") or [] if "id" in c and "size" in c}
        entry["figures"]["spanning_shared_chunk"] = sum(
            1 for p in problems if "/S" in str(p.get("chunk_label", "")) + str(p.get("earlier_label", "")))
        entry["figures"]["held_by_every_record"] = sum(
            1 for p in problems if size.get(p.get("cluster")) is not None and p.get("itemset_support") == size[p["cluster"]])
        self._cover_records(doc)
        self.report.cover_reports[opts.attacker] = doc
        return entry, doc

    #: the runner of each family of attacks a family's plan names (Planned.attack)
    _RUNNERS: ClassVar[dict] = {"setgen": _run_setgen, "reassoc": _run_reassoc, "cover": _run_cover}

    # ---------------------------------------------------------------- shared knowledge
    def _measure(self, spec: str):
        return self.opened.measure(spec, self.inputs.cache)

    def _background(self):
        return self.opened.load_background(self.inputs.background)

    def _setgen_command(self, method, measure, background, knowledge, seed) -> str:
        i = self.inputs
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

    # ---------------------------------------------------------------- the strongest
    def _consider(self, entry: dict, doc: dict) -> None:
        for c in candidates(entry):
            f = c["figures"]
            if not _beats_chance(f):
                continue
            best = self.report.strongest
            if best is None or _rank(f) > _rank(best["figures"]):
                self.report.strongest = {k: v for k, v in c.items() if k != "main"}
                self._best_doc = doc if c["main"] else None

    def _rerun_best(self) -> dict | None:
        """The strongest attack's own report: kept, or (a knowledge table other than its run's
        default) run alone, as its command runs it."""
        if self._best_doc is not None or self.report.strongest is None:
            return self._best_doc
        from semtui.attacks.setgen import AttackOptions, run_setgen_attack

        s = self.report.strongest
        opts = AttackOptions(method=s["method"], measure=s["measure"], background=s["background"],
                             knowledge=s["knowledge"], jobs=self.inputs.jobs,
                             scheduler=self.inputs.scheduler, cache=self.inputs.cache, unmarked=self.inputs.unmarked)
        rep = run_setgen_attack(self.release, self.original, opts, measure=self._measure(opts.measure),
                                background=self._background(), progress=self.progress,
                                data_path=self.inputs.data, original_path=self.inputs.original)
        self._best_doc = rep.to_json()
        return self._best_doc

    # ---------------------------------------------------------------- records at risk
    def _cover_records(self, doc: dict) -> None:
        """Cover breaches, per record, with the key (which transaction holds the breached item)."""
        if self.key is None:
            return
        from semtui.attacks.cover import problem_records

        breached = self._breached
        hits = [p for p in doc["cover_problems"] if p["breach"]]
        for p, ts in zip(hits, problem_records(self.release, self.key, hits)):
            for t in ts:
                breached.setdefault(t, set()).add((doc["attacker"], p["x"]))

    def _records(self) -> None:
        doc = self._rerun_best() if self.report.scored else self._best_doc
        rep = self.report
        if rep.kind == "set-generalised":
            rep.records_at_risk, rep.items_exposed = setgen_records(doc) if doc else ([], [])
        else:
            recs, items = reassoc_records(doc, self.original) if doc else ([], [])
            breached = self._breached
            by_t = {r["transaction"]: r for r in recs}
            for t, found in breached.items():
                r = by_t.setdefault(t, {"transaction": t, "line": _line(self.original, t), "reassociated": 0,
                                        "items": []})
                r["cover_breaches"] = sorted({f"{x} ({who})" for who, x in found})
            recs = sorted(by_t.values(), key=lambda r: (-r["reassociated"] - len(r.get("cover_breaches", [])),
                                                        r["transaction"]))
            rep.records_at_risk, rep.items_exposed = recs, items

    # ---------------------------------------------------------------- the end
    def finish(self, partial: bool) -> AssessmentReport:
        """Close the report: the records at risk, how sure, what was not modelled, the verdict.
        ``partial``: interrupted, only the attacks finished are in it (no attack is re-run)."""
        rep = self.report
        rep.partial = partial
        if not self._records_wanted:
            pass
        elif not partial:
            self._records()
        elif self._best_doc is not None:
            if rep.kind == "set-generalised":
                rep.records_at_risk, rep.items_exposed = setgen_records(self._best_doc)
            else:
                rep.records_at_risk, rep.items_exposed = reassoc_records(self._best_doc, self.original)
        if rep.strongest is not None:
            rep.strongest["lift"] = lifts(rep)
        ref = next((a["informed_reference"] for a in rep.attacks if a.get("informed_reference")), None)
        rep.how_sure_reference = ref
        rep.records_implicated = len(rep.records_at_risk)
        rep.records_at_risk = rep.records_at_risk[:RECORDS_KEPT]
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


# --------------------------------------------------------------------------- helpers
def candidates(entry: dict) -> list[dict]:
    """The attacks an entry holds (a knowledge run holds one per knowledge table)."""
    if entry["role"] != "attack" or "figures" not in entry:
        return []
    if entry.get("by_knowledge"):
        return [{"attack": f"{c['method'].upper()} on the {v} table"
                          f"{'' if v == 'prior' else ' with ' + entry['measure']}",
                 "method": c["method"], "measure": entry["measure"], "background": entry["background"],
                 "knowledge": v, "main": v == entry["knowledge"], **c}
                for v, c in entry["by_knowledge"].items()]
    return [{"attack": entry["attack"], "method": entry["method"], "measure": entry["measure"],
             "background": entry.get("background"), "knowledge": None, "main": True,
             "figures": entry["figures"], "command": entry["command"], "needs": entry["needs"]}]


def top_attack(rep: AssessmentReport) -> dict | None:
    """The strongest attack (``beats_chance: true``); when none beats chance, the attack that
    took back the most all the same (``beats_chance: false``), so a figure of risk is never left
    blank or set to zero because the attacks tried were no better than a coin.  None: no attack
    was scored."""
    if rep.strongest is not None:
        return {**rep.strongest, "beats_chance": True}
    best = None
    for entry in rep.attacks:
        for c in candidates(entry):
            if best is None or rank(c["figures"]) > rank(best["figures"]):
                best = c
    return None if best is None else {**{k: v for k, v in best.items() if k != "main"}, "beats_chance": False}


def _is_default(family: str, o: dict, inputs: AssessInputs) -> bool:
    """The attack ``semtui attack`` runs by default on these inputs (its records are listed,
    unscored, when nothing can be scored)."""
    first = inputs.measure_list()[0]
    if family == "setgen":
        want = dict(method="pba", measure=first, background=inputs.background) if inputs.background else \
            dict(method="rba", measure=first)
    elif family == "reassoc":
        want = dict(method="nba", background=inputs.background) if inputs.background else \
            dict(method="aba", measure=first)
    else:
        return False
    return o == want


def lifts(rep: AssessmentReport) -> dict:
    """The strongest attack's take over each baseline: (its correct) / (the baseline's correct)."""
    s = rep.strongest
    if s is None:
        return {}
    f, out = s["figures"], {}
    if rep.kind == "set-generalised":
        for name, b in (("random_same_budget", f.get("baseline")), ("popularity", f.get("popularity"))):
            if b and b.get("correct"):
                out[name] = json_float(f["correct"] / b["correct"])
        ra = next((a for a in rep.attacks if a["method"] == "ra" and "figures" in a), None)
        if ra and ra["figures"].get("correct"):
            out["ra"] = json_float(f["correct"] / ra["figures"]["correct"])
    else:
        out["random_same_budget"] = f.get("lift_over_random")
        ra = next((a for a in rep.attacks if a.get("method") == "ra" and "figures" in a), None)
        if ra and ra["figures"].get("correct"):
            out["ra"] = json_float(f["correct"] / ra["figures"]["correct"])
    return out


def attack_name(family: str, o: dict) -> str:
    """An attack's short name, as ``AssessInputs.only`` and an experiment spec's ``attacks`` name
    it: its method (``tba``, ``pba``, ``ra``, ``aba``, ``nba``, ...) or ``cover`` (the three cover
    attackers)."""
    return "cover" if family == "cover" else str(o["method"])


def knowledge_of(reports: list[dict], measure: str | None = None) -> tuple[tuple[str, ...], str | None]:
    """The measures and the background that attack reports were run with, as ``assess`` takes
    them (``--measure``, repeated, and ``--background``): every measure a report scored with, in
    the order they ran, then ``measure`` (the one an attack form holds now); the background of the
    latest report that had one.  A face that ran those attacks assesses with the same knowledge."""
    from semtui.wording import background_source

    measures: list[str] = []
    background = None
    for r in reports:
        fmt = str(r.get("format", ""))
        if fmt.startswith("semtui-cover-report/"):
            continue
        m = r.get("measure")
        if m and r.get("method") not in ("ra", "nba") and m not in measures:
            measures.append(str(m))
        background = background_source(r) or background
    if measure and measure not in measures:
        measures.append(measure)
    return tuple(measures), background


#: every name :func:`attack_name` gives
ATTACK_NAMES = tuple(dict.fromkeys((*SETGEN_METHODS, *KNOWLEDGE_METHODS, "ra", *REASSOC_METHODS, "nba", "cover")))


def _label(family: str, o: dict) -> str:
    if family == "setgen":
        if o["method"] == "ra":
            return "RA (the papers' random baseline)"
        return f"{o['method'].upper()} with {o['measure']}" + (f", background {o['background']}"
                                                                if o.get("background") else "")
    if family == "reassoc":
        if o["method"] == "ra":
            return "RA re-association (random)"
        if o["method"] == "nba":
            return f"NBA, background {o['background']}"
        return f"{o['method'].upper()} re-association with {o['measure']}"
    return f"cover problem, {o['attacker']} attacker"


def _setgen_needs(method, measure, knowledge, background) -> str:
    if method == "ra":
        return "nothing: a random elimination (the papers' baseline)"
    if knowledge is None:
        return f"the release and the meaning of the items ({measure})"
    return _WORDS[knowledge].replace("a similar population", f"a similar population ({background})") + \
        (f" ({measure})" if knowledge in ("combined",) else "")


def _setgen_figures(m: dict) -> dict:
    base, pop = m.get("baseline") or {}, m.get("popularity") or {}
    keys = ("eliminated", "correct", "added", "precision", "recall", "recall_attackable", "f1",
            "auc_within_table", "auc_pooled")
    out = {k: m.get(k) for k in keys}
    out["error_ratio"] = base.get("error_ratio")
    out["baseline"] = {k: base.get(k) for k in ("correct", "precision", "recall")} if base else None
    out["popularity"] = {k: pop.get(k) for k in ("correct", "precision", "recall", "error_ratio")} if pop else None
    out["intervals"] = {k: v for k, v in (m.get("intervals") or {}).items()
                        if k in ("precision", "recall", "auc_within_table", "baseline_precision")}
    out["density"], out["density_per_item"], out["groups"] = m.get("density"), m.get("density_per_item"), m.get("groups")
    small = (m.get("by_table_size") or {}).get("members<=16")
    if small:  # the tables of the papers' size
        out["small_tables"] = {"groups": small.get("groups"), "precision": small.get("precision"),
                               "error_ratio": (small.get("baseline") or {}).get("error_ratio")}
    return out


def beats_chance(f: dict) -> bool:
    """An attack counts only when it beats the random attacker: error ratio < 1 (set
    generalisation), lift over random > 1 (re-association), and takes something back."""
    if f.get("correct") in (None, 0):
        return False
    if "error_ratio" in f:
        return f["error_ratio"] is not None and f["error_ratio"] < 1
    return f.get("lift_over_random") is not None and f["lift_over_random"] > 1


def rank(f: dict) -> tuple:
    """How attacks are ranked: taking back the most first; then the most precise."""
    return (f.get("correct") or 0, (f.get("precision") if "precision" in f else f.get("accuracy")) or 0)


#: the names the Assessor uses
_beats_chance, _rank = beats_chance, rank


def _line(original, t: int) -> int:
    if original is not None and getattr(original, "lines", None) is not None and t < len(original.lines):
        return int(original.lines[t])
    return int(t) + 1


def setgen_records(doc: dict) -> tuple[list[dict], list[dict]]:
    """Per transaction, what the attack's report implicates: the members it eliminated (with the
    original: how many rightly), the generalised items reduced to one member (re-identified), and
    the members still possible there that fewer than k transactions of the group can now hold
    (exposed).  Ranked: re-identified, exposed, correct eliminations, eliminations.

    With the original (a scored report) only what is true counts: an item is re-identified when
    the one member left is the transaction's own (a reduction to a wrong member is listed apart,
    ``misidentified``: the attacker would believe something false), a member is exposed in a
    transaction that holds it, and ``items_exposed`` counts a group only when a transaction that
    holds the member is among those that still can (or one the attack could not score: unknown,
    so counted).  Without it every claim is the attack's own, unverified."""
    recs: dict[int, dict] = {}
    exposed_count: Counter = Counter()
    for g in doc["groups"]:
        n = len(g["members"])
        lines = {r["transaction"]: r["line"] for r in g["rows"]}
        truth = g.get("original")
        per_row: dict[int, list] = {}
        for e in g["eliminations"]:
            per_row.setdefault(e["row"], []).append(e)
        exposed = set(g["exposed"])
        if truth is None:
            exposed_count.update(exposed)
        else:
            gone = {(e["row"], e["column"]) for e in g["eliminations"]}
            for j, member in enumerate(g["members"]):
                if member in exposed and (g.get("skipped") or any(
                        row[j] and (r, j) not in gone for r, row in enumerate(truth))):
                    exposed_count[member] += 1
        for row, els in per_row.items():
            t = els[0]["transaction"]
            r = recs.setdefault(t, {"transaction": t, "line": lines.get(t, t + 1), "eliminated": 0, "correct": None,
                                    "reidentified": [], "exposed": []})
            r["eliminated"] += len(els)
            gone_here = {e["column"] for e in els}
            left = [j for j in range(n) if j not in gone_here]
            if truth is not None:
                r["correct"] = (r["correct"] or 0) + sum(1 for e in els if not truth[row][e["column"]])
                if len(left) == 1 and not truth[row][left[0]]:
                    r.setdefault("misidentified", []).append(g["members"][left[0]])
                left_true = [j for j in left if truth[row][j]]
            else:
                left_true = left
            if len(left) == 1 and left_true:
                r["reidentified"].append(g["members"][left[0]])
            r["exposed"] += [g["members"][j] for j in left_true if g["members"][j] in exposed]
    ranked = sorted(recs.values(), key=lambda r: (-len(r["reidentified"]), -len(r["exposed"]), -(r["correct"] or 0),
                                                  -r["eliminated"], r["transaction"]))
    items = [{"item": x, "groups": c} for x, c in exposed_count.most_common(RECORDS_KEPT)]
    return ranked, items


def reassoc_records(doc: dict, original) -> tuple[list[dict], list[dict]]:
    """Per original transaction (the key's), the items the re-association put back with it
    correctly."""
    recs: dict[int, dict] = {}
    items: Counter = Counter()
    for c in doc.get("clusters", []):
        anchors = c.get("anchor_transactions")
        if anchors is None:
            continue
        for u in c["units"]:
            for a, ok in zip(u["anchors"], u.get("correct") or []):
                t = anchors[a]
                if not ok or t is None or t < 0:
                    continue
                r = recs.setdefault(t, {"transaction": t, "line": _line(original, t), "cluster": c.get("id"),
                                        "reassociated": 0, "items": []})
                r["reassociated"] += len(u["items"])
                r["items"] += u["items"]
                items.update(u["items"])
    ranked = sorted(recs.values(), key=lambda r: (-r["reassociated"], r["transaction"]))
    return ranked, [{"item": x, "records": c} for x, c in items.most_common(RECORDS_KEPT)]


def record_clusters(key) -> dict[int, str]:
    """Each original transaction's cluster id, from a disassociated release's key (its
    ``records``, else the transactions its record chunks and term chunk name)."""
    home: dict[int, str] = {}
    if key is None:
        return home
    for ck in key.clusters:
        ts = ck.records if ck.records is not None else [t for ch in (*ck.record_chunks, *ck.term_chunk) for t in ch]
        for t in ts:
            home.setdefault(int(t), ck.id)
    return home


def disassoc_record_rows(cover: dict | None, reassoc: dict | None, original, key, data=None) -> list[dict]:
    """The records a disassociated release's attacks reach, one row per (record, what reaches
    it): ``{"T", "line", "cluster", "source", "what", "items", "real"}``, records a breach or a
    re-association really reaches first.  A cover breach reaches the records whose sub-record
    holds its x (a cover report run with the key lists them); with the original, ``real`` says
    whether the record really holds x with the covered item.  A re-association reaches the records
    it put items back with correctly (:func:`reassoc_records`, as the assessment's records at
    risk), which needs the original.  ``data``: the release, which names the chunks of a cover
    report that does not."""
    from semtui.wording import problem_chunk_names

    out: list[dict] = []
    if cover is not None:
        home = record_clusters(key)
        for p in cover.get("cover_problems", []):
            if not p.get("breach"):
                continue
            # a problem in a joint cluster's shared chunk reaches records of several member clusters:
            # each record is listed under its own cluster (the key says which), the chunks by name
            x_at, y_at = problem_chunk_names(data, p)
            for r in p.get("records", []):
                out.append({"T": r["transaction"] + 1, "line": r.get("line"),
                            "cluster": home.get(r["transaction"], p["cluster"]),
                            "source": "cover", "what": f"{p['x']} ({x_at}) with {', '.join(p['covered'])} ({y_at})",
                            "items": [p["x"], *p["covered"], *p["covering"]], "real": r.get("holds_covered")})
    if reassoc is not None and original is not None:
        for r in reassoc_records(reassoc, original)[0]:
            out.append({"T": r["transaction"] + 1, "line": r["line"], "cluster": r.get("cluster"),
                        "source": "re-association",
                        "what": f"{r['reassociated']} item{'s' if r['reassociated'] != 1 else ''} put back: "
                                + ", ".join(r["items"]),
                        "items": list(r["items"]), "real": True})
    out.sort(key=lambda d: (d["real"] is not True, d["T"], d["source"]))
    return out


def not_modelled(rep: AssessmentReport) -> list[str]:
    """The attackers this assessment did not model (:func:`semtui.wording.not_modelled_notes`)."""
    from semtui.wording import not_modelled_notes

    i = rep.inputs
    return not_modelled_notes(rep.kind, background=i.background, corpus=i.corpus, measures=i.measure_list(),
                              scored=rep.scored)


def how_sure(rep: AssessmentReport) -> dict:
    s = rep.strongest
    if not rep.scored:
        named = ("the records the default attack implicates (its eliminations and the exposure it claims: "
                 "records_at_risk, unscored)" if rep.kind == "set-generalised" else
                 "nothing about single records: without the key no placement names a transaction")
        return {"scored": False,
                "can_say": ["which attacks ran and what each eliminated or re-associated (attacks, unscored)",
                            named, *(["the cover problems and the breaches of the strong and weak attackers"]
                                     if rep.kind == "disassociated" else [])],
                "cannot_say": ["whether any elimination or placement is right", "which attack is strongest",
                               "whether any attack beats chance"]}
    if s is None:
        return {"scored": True, "note": "no attack tried beat a random attacker with the same budget"}
    f = s["figures"]
    if rep.kind == "set-generalised":
        iv = (f.get("intervals") or {}).get("auc_within_table")
        return {"scored": True, "auc_within_table": f.get("auc_within_table"), "auc_interval": iv,
                "meaning": "the chance that the attack's table ranks an added member of a row as less likely "
                           "than an original member of the same row (0.5: no better than a coin)"}
    return {"scored": True, "accuracy_interval": (f.get("intervals") or {}).get("accuracy"),
            "lift_interval": (f.get("intervals") or {}).get("lift_over_random"),
            "meaning": "95 % bootstrap intervals over clusters"}


def verdict(rep: AssessmentReport) -> str:
    """One line, worded from the numbers; never calls a release safe."""
    s = rep.strongest
    gap = "" if rep.inputs.background else (
        " An attacker who knows how common each item is was not modelled." if rep.kind == "set-generalised" else
        " An attacker who knows which items go together in a similar population was not modelled.")
    covers = [a for a in rep.attacks if a["family"] == "cover"]
    part = " (interrupted: only the attacks that finished)" if rep.partial else ""
    lead = ""
    if covers:
        gap = " Cover problem: " + ", ".join(f"{a['figures']['breaches']} breaches by the {a['attacker']} attacker"
                                             for a in covers) + "." + gap
        strong = next((a["figures"] for a in covers if a["attacker"] == "strong"), {})
        if strong.get("vulnerable_records"):
            # records an attacker can breach are at risk whatever the re-association does: said first
            n = strong.get("transactions")
            lead = (f"At risk{part}: the strong cover attacker can breach {strong['vulnerable_records']:,}"
                    + (f" of the {n:,} records ({strong['vulnerable_records'] / n:.0%})" if n else " records")
                    + f" ({strong['breaches']:,} cover-problem breaches; it needs the release only). ")
    if not rep.scored:
        n = sum(1 for a in rep.attacks if a["role"] == "attack")
        return (f"{lead}Not scored{part if not lead else ''}: {n} attacks ran, but without the "
                f"{'original' if rep.kind == 'set-generalised' else 'key and the original'} nothing says how much "
                f"they took back; give it to measure the risk.{gap}")
    if s is None:
        tried = "including one with background knowledge" if rep.inputs.background else \
            "none with background knowledge"
        what = "attack" if rep.kind == "set-generalised" else "re-association"
        return (f"{lead}No {what} tried{part if not lead else ''} beat a random {what} with the same budget "
                f"({tried}); that is not a sign the release is safe.{gap}")
    f = s["figures"]
    if rep.kind == "set-generalised":
        lift = ""
        b, pop = (f.get("baseline") or {}).get("correct"), (f.get("popularity") or {}).get("correct")
        if b:
            lift = f", {f['correct'] / b:.2f}x what a random attacker with the same budget takes back"
        if pop:
            lift += f" and {f['correct'] / pop:.2f}x what the popularity attacker does"
        return (f"At risk{part}: {s['attack']} takes back {f['correct']:,} of the {f['added']:,} items "
                f"generalisation added ({f['recall']:.0%}) at precision {_f(f['precision'])}{lift}, "
                f"error ratio {_f(f['error_ratio'], 2)}; it needs {s['needs']}.{gap}")
    return (f"{lead}{'At risk' + part + ': ' if not lead else 'Re-association: '}{s['attack']} puts back "
            f"{f['correct']:,} of {f['placements']:,} sub-records and "
            f"terms with their transactions ({_f(f['accuracy'])}, lift {_f(f['lift_over_random'], 2)} over "
            f"random); {f['broken_transactions']} of the transactions broken; it needs {s['needs']}.{gap}")
