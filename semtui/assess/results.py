"""What an assessment finds, typed: the figures of each attack, an attack's entry, the strongest,
a record at risk, an item exposed, how sure, and the assessment itself.

The :class:`~semtui.assess.assessor.Assessor` builds these from the attacks' own reports
(:class:`~semtui.attacks.setgen.SetgenAttackReport`'s fields, a re-association's
:class:`~semtui.attacks.reassociation.Reassociation`, a cover run's report), never from a
document it wrote; each type turns itself into its part of the ``semtui-assessment/2`` document
with ``to_json()`` (the edge: :meth:`AssessmentReport.payload`), key for key what ``/1`` wrote
but for one interval shape (:class:`~semtui.metrics.intervals.Interval`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from semtui.assess.figures import (  # noqa: F401 (the figures are results too)
    Baseline,
    CoverFigures,
    Figures,
    Intervals,
    Popularity,
    ReassocFigures,
    SetgenFigures,
    SmallTables,
    figure,
    has_figure,
)
from semtui.metrics.intervals import Interval
from semtui.reports import Report

if TYPE_CHECKING:
    from semtui.attacks.cover import CoverReport
    from semtui.attacks.reassociation import InformedReference

FORMAT = "semtui-assessment/2"
#: the assessments semtui reads: /1 wrote a re-association's intervals as ``[low, high]``
FORMATS = ("semtui-assessment/1", FORMAT)


# --------------------------------------------------------------------------- an attack
@dataclass(frozen=True)
class KnowledgeRun:
    """One knowledge table of a set-generalisation attack with background knowledge: an attack of
    its own, with its own command."""

    method: str | None
    figures: SetgenFigures
    command: str
    needs: str

    def to_json(self) -> dict:
        return {"method": self.method, "figures": self.figures.to_json(), "command": self.command,
                "needs": self.needs}


@dataclass(frozen=True)
class SetgenEntry:
    """One set-generalisation attack the assessment ran."""

    attack: str
    method: str
    measure: str | None
    background: str | None
    knowledge: str | None
    role: str
    command: str
    needs: str
    eliminations: int
    attacked_rows: int
    rows: int
    #: what the attack's report says of exposure (its ``privacy``)
    privacy: Mapping
    figures: SetgenFigures | None = None
    by_knowledge: tuple[tuple[str, KnowledgeRun], ...] = ()
    seconds: float | None = None
    informed_reference = None
    attacker = None
    family = "setgen"

    def to_json(self) -> dict:
        out = {"family": self.family, "attack": self.attack, "method": self.method, "measure": self.measure,
               "background": self.background, "knowledge": self.knowledge, "role": self.role,
               "command": self.command, "needs": self.needs, "eliminations": self.eliminations,
               "attacked_rows": self.attacked_rows, "rows": self.rows, "privacy": self.privacy}
        if self.figures is not None:
            out["figures"] = self.figures.to_json()
            if self.by_knowledge:
                out["by_knowledge"] = {v: k.to_json() for v, k in self.by_knowledge}
        return _timed(out, self.seconds)

    def cell_fields(self) -> dict:
        """What an experiment's cell keeps of it besides its figures: the rows of the groups, those
        the attack could score, exposure."""
        return {"rows": self.rows, "attacked_rows": self.attacked_rows,
                "exposed_items": (self.privacy or {}).get("exposed_items"),
                "member_items": (self.privacy or {}).get("member_items")}


@dataclass(frozen=True)
class ReassocEntry:
    """One re-association the assessment ran."""

    attack: str
    method: str
    measure: str | None
    background: str | None
    role: str
    command: str
    needs: str
    placements: int
    figures: ReassocFigures | None = None
    #: NBA with the original's own statistics (a reference, not an attack), as the report gives it
    informed_reference: InformedReference | None = None
    seconds: float | None = None
    knowledge = None
    attacker = None
    by_knowledge = ()
    family = "reassociation"

    def cell_fields(self) -> dict:
        return {}

    def to_json(self) -> dict:
        out = {"family": self.family, "attack": self.attack, "method": self.method, "measure": self.measure,
               "background": self.background, "role": self.role, "command": self.command, "needs": self.needs,
               "placements": self.placements}
        if self.figures is not None:
            out["figures"] = self.figures.to_json()
            if self.informed_reference is not None:
                out["informed_reference"] = self.informed_reference.entry_json()
        return _timed(out, self.seconds)


@dataclass(frozen=True)
class CoverEntry:
    """The cover problem under one attacker."""

    attack: str
    attacker: str
    command: str
    needs: str
    figures: CoverFigures
    seconds: float | None = None
    role = "cover"
    method = measure = background = knowledge = informed_reference = None
    by_knowledge = ()
    family = "cover"

    def cell_fields(self) -> dict:
        return {}

    def to_json(self) -> dict:
        return _timed({"family": self.family, "attack": self.attack, "attacker": self.attacker, "role": self.role,
                       "command": self.command, "needs": self.needs, "figures": self.figures.to_json()},
                      self.seconds)


AttackEntry = SetgenEntry | ReassocEntry | CoverEntry


def _timed(out: dict, seconds: float | None) -> dict:
    if seconds is not None:
        out["seconds"] = seconds
    return out


@dataclass(frozen=True)
class Skipped:
    """An attack of the plan that could not run on these inputs, and why."""

    attack: str
    why: str

    def to_json(self) -> dict:
        return {"attack": self.attack, "why": self.why}


@dataclass(frozen=True)
class Candidate:
    """An attack an entry holds (a knowledge run holds one per knowledge table), as the strongest
    is chosen among them: ``main`` when it is its entry's own run (its report is the entry's).
    As the strongest it carries ``lift`` (its take over each baseline's); as a cell's top attack,
    ``beats_chance``."""

    attack: str
    method: str | None
    measure: str | None
    background: str | None
    knowledge: str | None
    figures: SetgenFigures | ReassocFigures
    command: str
    needs: str
    main: bool = True
    lift: Mapping | None = None
    beats_chance: bool | None = None

    def to_json(self) -> dict:
        out = {"attack": self.attack, "method": self.method, "measure": self.measure, "background": self.background,
               "knowledge": self.knowledge, "figures": self.figures.to_json(), "command": self.command,
               "needs": self.needs}
        if self.lift is not None:
            out["lift"] = dict(self.lift)
        if self.beats_chance is not None:
            out["beats_chance"] = self.beats_chance
        return out


# --------------------------------------------------------------------------- records and items
@dataclass(frozen=True)
class SetgenRecord:
    """A transaction a set-generalisation attack implicates."""

    transaction: int
    line: int
    eliminated: int
    #: with the original, how many eliminations were right (None: unscored)
    correct: int | None
    reidentified: tuple[str, ...]
    exposed: tuple[str, ...]
    #: reductions to a member the transaction does not hold (None: none)
    misidentified: tuple[str, ...] | None = None

    def to_json(self) -> dict:
        out = {"transaction": self.transaction, "line": self.line, "eliminated": self.eliminated,
               "correct": self.correct, "reidentified": list(self.reidentified), "exposed": list(self.exposed)}
        if self.misidentified is not None:
            out["misidentified"] = list(self.misidentified)
        return out


@dataclass(frozen=True)
class Breach:
    """A cover breach that reaches a record: its attacker, the breached item ``x`` with the
    covered items, where they are (one name per chunk: :func:`semtui.wording.problem_chunk_names`),
    the record's source line, and (with the original) whether it really holds x with a covered item."""

    attacker: str
    x: str
    covered: tuple[str, ...]
    covering: tuple[str, ...]
    #: the problem's cluster (a joint cluster's shared chunk: its first member)
    cluster: str | None
    x_at: str = ""
    y_at: str = ""
    line: int | None = None
    real: bool | None = None

    @property
    def what(self) -> str:
        return f"{self.x} ({self.x_at}) with {', '.join(self.covered)} ({self.y_at})"


@dataclass(frozen=True)
class DisassocRecord:
    """A record a disassociated release's attacks reach: the items the re-association put back
    with it correctly, and the cover breaches that reach it."""

    transaction: int
    line: int
    #: the re-association's cluster of the record (None: only cover breaches reach it)
    cluster: str | None
    reassociated: int
    items: tuple[str, ...]
    breaches: tuple[Breach, ...] = ()

    def to_json(self) -> dict:
        out: dict = {"transaction": self.transaction, "line": self.line}
        if self.cluster is not None:
            out["cluster"] = self.cluster
        out["reassociated"], out["items"] = self.reassociated, list(self.items)
        if self.breaches:
            out["cover_breaches"] = sorted({f"{b.x} ({b.attacker})" for b in self.breaches})
        return out


RecordAtRisk = SetgenRecord | DisassocRecord


@dataclass(frozen=True)
class ItemExposed:
    """An item and how often it is exposed: in how many equivalence ``groups`` (set
    generalisation) or put back with how many ``records`` (disassociation)."""

    item: str
    count: int
    per: str = "groups"

    def to_json(self) -> dict:
        return {"item": self.item, self.per: self.count}


# --------------------------------------------------------------------------- how sure
@dataclass(frozen=True)
class HowSure:
    """How sure the figures are: unscored, what can and cannot be said; scored, the strongest
    attack's intervals (``note`` when no attack beat chance)."""

    scored: bool
    can_say: tuple[str, ...] = ()
    cannot_say: tuple[str, ...] = ()
    note: str | None = None
    #: set generalisation: the AUC within table and its interval
    auc_within_table: float | None = None
    auc_interval: Interval | None = None
    #: disassociation: the accuracy's and the lift's intervals
    accuracy_interval: Interval | None = None
    lift_interval: Interval | None = None
    kind: str | None = None
    meaning: str | None = None

    def to_json(self) -> dict:
        iv = lambda v: None if v is None else v.to_json()  # noqa: E731
        if not self.scored:
            return {"scored": False, "can_say": list(self.can_say), "cannot_say": list(self.cannot_say)}
        if self.note is not None:
            return {"scored": True, "note": self.note}
        if self.kind == "set-generalised":
            return {"scored": True, "auc_within_table": self.auc_within_table, "auc_interval": iv(self.auc_interval),
                    "meaning": self.meaning}
        return {"scored": True, "accuracy_interval": iv(self.accuracy_interval),
                "lift_interval": iv(self.lift_interval), "meaning": self.meaning}


# --------------------------------------------------------------------------- the assessment
@dataclass
class AssessmentReport(Report):
    """What an assessment found; filled one attack at a time (``partial`` until it ends)."""

    FORMAT = FORMAT

    kind: str
    inputs: object  # AssessInputs
    scored: bool
    attacks: list[AttackEntry] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    strongest: Candidate | None = None
    records_at_risk: list[RecordAtRisk] = field(default_factory=list)
    #: how many records the attack implicates (records_at_risk lists the first RECORDS_KEPT)
    records_implicated: int = 0
    items_exposed: list[ItemExposed] = field(default_factory=list)
    how_sure: HowSure | None = None
    not_modelled: list[str] = field(default_factory=list)
    verdict: str = ""
    partial: bool = True
    seconds: float = 0.0
    #: disassociation with key and original: NBA with the original's own statistics (a reference, not an attack)
    how_sure_reference: InformedReference | None = None
    #: safer releases of the same family measured with the experiment engine (docs/assess.md), each
    #: a ``semtui-experiment/2`` cell plus ``chosen``; "this release" among them
    alternatives: list[dict] = field(default_factory=list)
    #: why there are no alternatives, or what was assumed to make them
    alternatives_note: str | None = None
    #: the cover attacks' own typed reports by attacker (``semtui cover``'s), kept beside the
    #: assessment but not in it: the TUI shows them as results (``x`` lists the problems)
    cover_reports: dict[str, CoverReport] = field(default_factory=dict, repr=False, compare=False)

    @property
    def covers(self) -> list[CoverEntry]:
        """The cover problem's entries, one per attacker (disassociation)."""
        return [a for a in self.attacks if isinstance(a, CoverEntry)]

    def payload(self) -> dict:
        i = self.inputs
        return {
            "kind": self.kind,
            "partial": self.partial,
            "data": i.data, "original": i.original, "key": i.key, "background": i.background,
            "corpus": i.corpus, "measures": i.measure_list(), "jobs": i.jobs,
            "scored": self.scored,
            "verdict": self.verdict,
            "strongest": None if self.strongest is None else self.strongest.to_json(),
            "records_implicated": self.records_implicated,
            "records_at_risk": [r.to_json() for r in self.records_at_risk],
            "items_exposed": [x.to_json() for x in self.items_exposed],
            "how_sure": {} if self.how_sure is None else self.how_sure.to_json(),
            "informed_reference": None if self.how_sure_reference is None else self.how_sure_reference.entry_json(),
            "not_modelled": self.not_modelled,
            "attacks": [a.to_json() for a in self.attacks],
            "skipped": [s.to_json() for s in self.skipped],
            "alternatives": self.alternatives,
            "alternatives_note": self.alternatives_note,
            "seconds": round(self.seconds, 3),
        }
