"""The families of anonymisation, behind one protocol: what differs between set generalisation
(:mod:`.setgen`), k^m (:mod:`.km`) and disassociation (:mod:`.disassoc`) lives in their modules,
and every other layer asks the family instead of branching on it.

Where it sits: ``cli | tui → experiment → assess → families → release → anonymize | attacks |
checks → metrics | formats → model``.  A family imports the engines below it; never assess, an
experiment or a face.

**The one dispatch.**  :data:`FAMILIES` maps a family's name (an experiment cell's ``family``,
``semtui anonymize``'s subcommand) to it; :func:`family_of` finds the family of a release (a
:class:`semtui.release.Release`, or the data read from a release file).  A release's data alone
tells a disassociated release from a set-generalised one; which anonymiser made a
set-generalised release (set generalisation or k^m) only its sidecar says, and the two are
attacked and measured alike.

**The protocol** (:class:`Family`, a :class:`typing.Protocol`: a family is any object with these
members, each module's ``FAMILY``):

* anonymise — :meth:`~Family.prepare` reads what the parameters name (through a
  :class:`~semtui.families.common.Sources`: the experiment's cached files, or ``anonymize``'s own
  :class:`~semtui.families.common.FileSources`) and draws what is random; :meth:`~Family.anonymise`
  runs the anonymiser and returns an :class:`~semtui.families.common.Anonymised` (the release,
  its sidecar or report, its key).  ``semtui anonymize <family>`` and an experiment's cell both
  call these two; :meth:`~Family.publish` writes the release in its format and reads it back (a
  cell checks and attacks it so), :meth:`~Family.check` runs the independent checker on it, and
  :meth:`~Family.command` is the ``semtui anonymize …`` command that reproduces it;
* the k^m witness — :meth:`~Family.holds_nothing`, :meth:`~Family.check_km` (``semtui check km``);
* an attack's report — :meth:`~Family.read_report` reads one, :meth:`~Family.check_report` checks it
  describes the release (the TUI opens a release with one);
* the attacks — :meth:`~Family.assessable` says whether an assessment can run and is scored,
  :meth:`~Family.plan` is the list of attacks ``assess`` runs on a release of the
  family (each a :class:`~semtui.families.common.Planned`, which names the family of attacks that
  runs it), :meth:`~Family.unrunnable` says why one cannot run on the inputs given;
* the figures — :meth:`~Family.privacy_figures` (the strongest attack's figures and risk as a
  cell keeps them), :meth:`~Family.distance` (from chance), :meth:`~Family.far` (that distance as
  a clause), :meth:`~Family.utility`, :meth:`~Family.made_utility` and :meth:`~Family.supports` (the one
  utility axis of every family), :meth:`~Family.unattacked`;
* an experiment's parameters — ``params`` (with their defaults), ``whole``/``flags``/``files``
  (their types), :meth:`~Family.check_value`, :meth:`~Family.conflict`, :meth:`~Family.canonical`,
  :meth:`~Family.label_bits`, :meth:`~Family.read_files`;
* an assessed release — :meth:`~Family.assessed` (what the release records),
  :meth:`~Family.from_sidecar`, :meth:`~Family.check_assessed`; :func:`assessed_params` asks them
  in turn.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from semtui.families import disassoc, km, setgen
from semtui.families.common import (
    DISASSOCIATED,
    SET_GENERALISED,
    Anonymised,
    Assessed,
    FileSources,
    Planned,
    Published,
    Request,
    Sources,
)


class Family(Protocol):
    """What a family of anonymisation provides (the module docstring says who calls what)."""

    #: ``setgen``, ``km`` or ``disassoc``
    name: str
    #: the kind of release the attacks see: ``set-generalised`` or ``disassociated``
    kind: str
    #: the release file's extension
    release_ext: str
    #: what the strongest attacker's risk is a share of, in words
    risk_of: str
    #: the strongest attack's figures an experiment's plot draws against k
    plotted: tuple[str, ...]
    #: every parameter an experiment's table takes, with its default (None: required, or absent when not given)
    params: dict[str, object]
    #: parameters that are whole numbers (with their least value: k at least 2, a 1-anonymous
    #: release being the original), true or false, a file
    whole: dict[str, int]
    flags: tuple[str, ...]
    files: tuple[str, ...]
    #: whether the TUI may read a release's key and original after its first paint (its first
    #: screen shows nothing of them; ``tui.session.Companions``)
    companions_after_paint: bool

    def check_value(self, key: str, v: str) -> str | None:
        """What is wrong with a string parameter's value (None: nothing)."""

    def conflict(self, table: dict) -> tuple[str, str] | None:
        """Parameters of one table that exclude each other: (the message, the key it is at)."""

    def check_cell(self, p: dict) -> tuple[str, str] | None:
        """What is wrong with one cell's parameters together (each value already checked), as
        (the message, the key it is at); None: nothing.  An experiment asks it of every cell
        before the first runs."""

    def canonical(self, full: dict) -> dict:
        """The parameters that apply (``full``, defaults filled in, less those another replaces)."""

    def label_bits(self, p: dict) -> list[str]:
        """What a cell's label says of the parameters past k and m."""

    def read_files(self, p: dict, sources: Sources) -> None:
        """Read every file the parameters name, through ``sources``."""

    def prepare(self, original, params: dict, sources: Sources, *, original_path, output,
                jobs: int = 1, note=None) -> Request:
        """What the anonymiser is given: the files the parameters name read, what is random drawn
        (``note``: called with what a face warns about, as soon as it is known; kept in ``notes``)."""

    def anonymise(self, request: Request, *, progress=None) -> Anonymised:
        """Run the anonymiser: the release, its sidecar or report, its key."""

    def publish(self, made: Anonymised, name: str) -> Published:
        """The release written in its format as ``name`` and read back."""

    def command(self, params: dict, original_path, output: str) -> str:
        """The ``semtui anonymize …`` command that makes the release ``output``."""

    def check(self, release, made: Anonymised, progress=None) -> dict:
        """The independent checker's verdict on the release as published."""

    def holds_nothing(self, data) -> str | None:
        """What makes a k^m check of the release's ``data`` exercise nothing, in words (None: it
        checks something); ``semtui check km`` refuses such a release."""

    def check_km(self, release, k: int, m: int, progress=None):
        """The independent k^m check of ``release`` (a :class:`semtui.release.Release`; a
        disassociated one's key and original checked too when open): a KmReport."""

    def read_report(self, path):
        """An attack report on a release of the family, read from ``path`` (the TUI opens one
        beside its release): a document (set generalisation) or a typed report (disassociation);
        raises InputError naming ``path`` when it is not one."""

    def check_report(self, release, doc, path) -> None:
        """That the attack report ``doc`` read from ``path`` describes ``release`` (a
        :class:`semtui.release.Release`); raises InputError naming ``path`` otherwise."""

    def assessable(self, data, *, original, key, inputs) -> bool:
        """Whether an assessment of the release's ``data`` is scored (with what is open of
        ``original`` and ``key``); raises InputError when there is nothing to assess (``inputs``:
        the :class:`semtui.assess.AssessInputs`) or a companion does not apply."""

    def plan(self, inputs) -> list[Planned]:
        """Every attack ``assess`` runs on a release of the family, in order (``inputs``: an
        :class:`semtui.assess.AssessInputs`)."""

    def unrunnable(self, planned: Planned, *, original) -> str | None:
        """Why an attack of the plan cannot run on these inputs (None: it can)."""

    def privacy_figures(self, f) -> tuple[dict, dict, float | None]:
        """The strongest attack's figures (``f``: the assessment's typed figures), its intervals
        (:class:`~semtui.metrics.intervals.Interval` or None, by name) and risk, as an
        experiment's cell keeps them."""

    def scored_nothing(self, f) -> bool:
        """Whether no attack could score a single row (the risk is unknown, not 0)."""

    def distance(self, figures: dict, cover: float) -> float:
        """How far an attack that beats chance is from chance."""

    def far(self, privacy: dict, cover: str) -> str:
        """How far the strongest attack is from chance, as a clause."""

    def figure(self, figures: dict) -> str:
        """The strongest attack's distance from chance as a short figure (``error ratio 0.15``,
        ``lift 1.02``): an alternative's line in ``assess``."""

    def unattacked(self, original, release) -> dict | None:
        """The privacy of a release no attack applies to (None: the attacks apply)."""

    def utility(self, original, release) -> dict:
        """The release's utility."""

    def supports(self, original, release):
        """What the release answers for the original's item and pair supports under uniform
        reconstruction (:mod:`semtui.metrics.supports`): the one utility axis of every family."""

    def made_utility(self, original, release, made: Anonymised) -> dict:
        """The utility of a release the family's anonymiser made (with what the run measured)."""

    def assessed(self, release) -> Assessed | None:
        """The parameters the release itself records (None: its sidecar says them)."""

    def from_sidecar(self, doc: dict, side: Path) -> Assessed | None:
        """The parameters a sidecar of this family records (None: it is not this family's)."""

    def check_assessed(self, release, assessed: Assessed, *, original, key) -> dict | None:
        """The independent check of an assessed release (None: it cannot be checked)."""


#: every family by name, in the order an experiment spec lists them
FAMILIES: dict[str, Family] = {f.name: f for f in (setgen.FAMILY, disassoc.FAMILY, km.FAMILY)}


def family_of(release) -> Family:
    """The family of ``release``: a :class:`semtui.release.Release` (``plain``, a release with no
    generalised item, is attacked as a set-generalised one), a family's name, or the data read
    from a release file (set-generalised data is set generalisation's: its sidecar alone says
    whether k^m made it, and both are attacked and measured alike)."""
    from semtui.model.disassociated import DisassociatedData
    from semtui.model.transactions import TransactionData

    if isinstance(release, str):
        try:
            return FAMILIES[release]
        except KeyError:
            from semtui.errors import InputError

            raise InputError(f"unknown family {release!r}") from None
    if isinstance(release, DisassociatedData):
        return disassoc.FAMILY
    if isinstance(release, TransactionData):
        return setgen.FAMILY
    return FAMILIES.get(release.family, setgen.FAMILY)  # a Release: its family says


def assessed_params(release, data_path) -> Assessed:
    """The parameters of an assessed release: what it records itself (a disassociated release:
    its k, m and maximum cluster size), else the sidecar beside it (``RELEASE.json``:
    ``anonymize setgen``'s sidecar or ``anonymize km``'s report), else set generalisation's
    documented defaults, said so."""
    found = family_of(release).assessed(release)
    if found is not None:
        return found
    side = Path(str(data_path) + ".json")
    doc = None
    if side.is_file():
        from semtui.errors import InputError
        from semtui.fileio import parse_json, read_text

        try:
            doc = parse_json(read_text(side), side)
        except InputError:
            doc = None
    if isinstance(doc, dict):
        for family in FAMILIES.values():
            found = family.from_sidecar(doc, side)
            if found is not None:
                return found
    return setgen.FAMILY.assumed(side)


__all__ = ["DISASSOCIATED", "FAMILIES", "SET_GENERALISED", "Anonymised", "Assessed", "Family", "FileSources",
           "Planned", "Published", "Request", "Sources", "assessed_params", "family_of"]
