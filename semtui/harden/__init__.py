"""``semtui harden``: a release whose generalised items the strongest attacker cannot read
(issue 37; ALGORITHMS.md §9), and the proof, run by the attack itself.

The attacker of ALGORITHMS.md §7 ranks the members of a generalised item in a row by how likely
each is original given what it knows: how common it is (the prior) and what it goes with (its
co-occurrence with the row's plain and generalised context).  A group whose members are alike in
exactly those respects leaves it a coin toss.  Hardening chooses the groups so:

* **set generalisation** (:func:`harden`, family ``setgen``): COAT (the same anonymiser
  ``anonymize setgen`` runs, :mod:`semtui.families.setgen`) generalises only within *exchangeable
  classes* (:func:`exchangeable_classes`), its utility constraints: the items of each utility
  constraint the user gave are split into bands of prior (quantiles of log P(x) in the attacker's
  knowledge) and, within a band, cut along a nearest-neighbour chain of their co-occurrence
  profiles (P(c | x) over the commonest items, :func:`semtui.measures.order.profile_vectors`).  Then
  **attack in the loop**: the release is attacked by :func:`semtui.attacks.setgen.run_setgen_attack`
  (the code ``attack setgen --background`` runs, with the knowledge hardened against), the members
  whose posterior stands out in their groups (the mean within-row z-score of their surprisal at or
  beyond :data:`SEPARATED`) move to the class of their user constraint whose members the attack
  scores most alike, and the new release is kept only while the attack's AUC within table falls
  (and its pair-support error stays within :data:`UTILITY_BOUND` times the plain release's);
* **k^m** (family ``km``): without a hierarchy, one whose siblings are alike to the attacker
  (decreasing prior, then a profile chain within each window of fanout² leaves:
  :func:`semtui.measures.order.profile_order`), then the same k^m anonymiser.

The same k, m and privacy constraints as the plain anonymiser: the release passes the same
independent checker (``check privacy``, ``check km``), and a hardened set-generalised release never
crosses a utility constraint the user gave (its classes lie inside them: none is relaxed).  Where a
class is too narrow to lift a privacy constraint to k, COAT suppresses the constraint's least
supported item, as it always does; the report lists the items suppressed beyond the plain release's,
and the utility axis counts their supports as lost.  (Merging such classes with their neighbours
until nothing more is suppressed was tried and undid the hardening: on the MEPS half it merged 37
times, down to 17 classes, and left the strongest attack where the plain release had it.)

**The proof** (:class:`HardenReport`, ``semtui-harden-report/1``): the hardened release and the plain
anonymiser's at the same parameters are each attacked by the strongest attacker with the knowledge
given and with the original's own statistics (``self``), with bootstrap intervals, error ratio, AUC
within table, recall, and the ``semtui`` commands that reproduce each figure; and one utility axis
for both (:func:`support_errors`).  Nothing is called safe: a release is *at chance against the
attackers modelled* (:data:`CHANCE_AUC`, :data:`CHANCE_ERROR_RATIO`), and the report lists what was
not modelled.

Where it sits: above the families (it anonymises through them) and the attacks, below ``assess``
and the faces; it writes nothing (the CLI writes the release, its sidecar and the report).
"""

from __future__ import annotations

import time

from semtui.errors import InputError
from semtui.harden.disassoc import DisassocHardening
from semtui.harden.km import KmHardening
from semtui.harden.proof import (
    CHANCE_AUC,
    CHANCE_ERROR_RATIO,
    DEFAULT_BANDS,
    DEFAULT_CLASS_SIZE,
    DEFAULT_ROUNDS,
    REPORT_FORMAT,
    SELF,
    AttackFigures,
    Hardened,
    HardenReport,
    Made,
    ReleaseProof,
    _params_doc,
    load_knowledge,
)
from semtui.harden.setgen import SetgenHardening, exchangeable_classes, knowledge_profiles, regroup
from semtui.metrics.supports import release_weights, support_errors
from semtui.model import TransactionData


# --------------------------------------------------------------------------- hardening
def harden(original: TransactionData, *, family: str, params: dict, knowledge: str = SELF,
           original_path, output, hierarchy=None, rounds: int = DEFAULT_ROUNDS, bands: int = DEFAULT_BANDS,
           size: int = DEFAULT_CLASS_SIZE, progress=None, note=None, key=None) -> Hardened:
    """Harden ``original`` (see the module docstring).  ``params``: the family's parameters as
    ``anonymize`` takes them (setgen: k, privacy or random_privacy/sizes/seed, utility; km: k, m,
    algorithm, hierarchy (a path, read as ``hierarchy``) or none); ``knowledge``: ``self`` or a
    background spec; ``note``: called with what a face warns about; ``key``: where the face writes a
    disassociated release's key (None: it writes none), for the commands of the proof."""
    from semtui.runtime import no_progress

    hardening = hardening_of(family)
    progress = progress or no_progress
    started = time.perf_counter()
    progress(0, 1, "reading the knowledge")
    bg = load_knowledge(knowledge, original, original_path)
    out = make(original, family=family, params=params, bg=bg, knowledge=knowledge, original_path=original_path,
               output=output, hierarchy=hierarchy, rounds=rounds, bands=bands, size=size, progress=progress, note=note)
    made, rounds_doc, method, ucons, hier = out.made, out.rounds, out.method, out.utility, out.hierarchy
    progress(0, 1, "the proof: attacking the hardened and the plain release")
    proofs = hardening.prove(out, original=original, params=params, knowledge=knowledge, bg=bg, key=key,
                             original_path=original_path, output=output, progress=progress)
    report = HardenReport(family, _params_doc(params), knowledge, str(original_path), str(output),
                          proofs[0], proofs[1], method, rounds_doc, ucons, time.perf_counter() - started,
                          not_modelled=hardening.not_modelled, others=proofs[2:])
    hardening.mark_sidecar(made, method, ucons, knowledge)
    return Hardened(made, report, hierarchy=hier)


def hardened(original: TransactionData, *, family: str, params: dict, knowledge: str | None = None, original_path,
             output, progress=None):
    """The hardened release alone, as an experiment cell or an ``assess`` alternative measures it:
    (the family's :class:`~semtui.families.common.Anonymised`, the ``semtui harden`` command that
    makes it).  ``knowledge``: the run's background, hardened against when it has co-occurrence
    (a frequency list has none), else the original's own statistics (``self``)."""
    from semtui.runtime import no_progress

    spec = SELF if not knowledge or str(knowledge).startswith("wordfreq:") else str(knowledge)
    bg = load_knowledge(spec, original, original_path)
    return hardening_of(family).hardened(original, params, bg, spec, original_path, output,
                                         progress=progress or no_progress)


def make(original: TransactionData, *, family: str, params: dict, bg, knowledge: str = SELF, original_path,
         output, hierarchy=None, rounds: int = DEFAULT_ROUNDS, bands: int = DEFAULT_BANDS,
         size: int = DEFAULT_CLASS_SIZE, progress=None, note=None) -> Made:
    """The hardened release and the plain anonymiser's at the same parameters, without the proof
    (``bg``: the knowledge, :func:`load_knowledge`)."""
    from semtui.runtime import no_progress

    return hardening_of(family).make(original, params, bg, knowledge, original_path, output, hierarchy=hierarchy,
                                     rounds=rounds, bands=bands, size=size, progress=progress or no_progress,
                                     note=note)


#: the families harden builds, by name
HARDENINGS = {h.name: h for h in (SetgenHardening(), KmHardening(), DisassocHardening())}
HARDENED_FAMILIES = tuple(HARDENINGS)


def hardening_of(family: str):
    """The family's hardening; a family harden does not build is refused in one line."""
    try:
        return HARDENINGS[family]
    except KeyError:
        raise InputError(f"unknown --family {family!r} (choose from {', '.join(HARDENINGS)})",
                         option="family") from None


__all__ = [
    "CHANCE_AUC",
    "CHANCE_ERROR_RATIO",
    "HARDENINGS",
    "REPORT_FORMAT",
    "SELF",
    "AttackFigures",
    "DisassocHardening",
    "HardenReport",
    "Hardened",
    "KmHardening",
    "Made",
    "ReleaseProof",
    "SetgenHardening",
    "exchangeable_classes",
    "harden",
    "hardening_of",
    "knowledge_profiles",
    "load_knowledge",
    "make",
    "regroup",
    "release_weights",
    "support_errors",
]
