"""``assess``: the publisher's question in one run (issue 21) — every applicable attack on a
release, with every measure and knowledge given, the strongest one, the records most at risk,
how sure the figures are, and a verdict worded from the numbers.

One module a job:

* :mod:`.inputs` — what an assessment is given (:class:`AssessInputs`), the measures and the
  background opened once (:class:`Opened`), the attacks' short names;
* :mod:`.results` — what it finds, typed (an attack's entry and figures, the strongest, a record
  at risk, how sure, :class:`AssessmentReport`); each turns itself into its part of the
  ``semtui-assessment/2`` document (``to_json``), the only place the document is made;
* :mod:`.entries` — an attack's entry from the attack's own report (label, needs, command);
* :mod:`.assessor` — the run (:class:`Assessor`, :func:`run_assessment`);
* :mod:`.records` — the records at risk, merged once for both faces;
* :mod:`.verdict` — the strongest (:func:`beats_chance`, :func:`rank`), how sure, the verdict.
"""

from semtui.assess.assessor import Assessor, run_assessment
from semtui.assess.inputs import ATTACK_NAMES, AssessInputs, Opened, attack_name, knowledge_of
from semtui.assess.records import (
    RECORDS_KEPT,
    RECORDS_SHOWN,
    cover_breaches,
    disassoc_record_rows,
    disassoc_records,
    reassoc_records,
    record_clusters,
    setgen_records,
)
from semtui.assess.results import FORMAT, FORMATS, AssessmentReport, Candidate, HowSure
from semtui.assess.verdict import beats_chance, candidates, how_sure, lifts, not_modelled, rank, top_attack, verdict
from semtui.families.disassoc import COVER_ATTACKERS, REASSOC_METHODS
from semtui.families.setgen import KNOWLEDGE_METHODS, SETGEN_METHODS

__all__ = [
    "ATTACK_NAMES", "COVER_ATTACKERS", "FORMAT", "FORMATS", "KNOWLEDGE_METHODS", "REASSOC_METHODS", "RECORDS_KEPT",
    "RECORDS_SHOWN", "SETGEN_METHODS", "AssessInputs", "AssessmentReport", "Assessor", "Candidate", "HowSure",
    "Opened", "attack_name", "beats_chance", "candidates", "cover_breaches", "disassoc_record_rows",
    "disassoc_records", "how_sure", "knowledge_of", "lifts", "not_modelled", "rank", "reassoc_records",
    "record_clusters", "run_assessment", "setgen_records", "top_attack", "verdict",
]
