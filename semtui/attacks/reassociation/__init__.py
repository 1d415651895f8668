"""Re-association attacks on disassociated releases (Alshuhail & Shao; ALGORITHMS.md §2).

Its options are one :class:`ReassociationOptions` (:mod:`.options`); :func:`run_reassociation`
(:mod:`.attack`) attacks a whole release: plan and score (:mod:`.plan`) -> the per-cluster
kernel (:mod:`.kernel`, a plain function of arrays; joint clusters: :mod:`.joint`) -> merge
(:mod:`.merge`, with k^m breakage counted by :mod:`.km_breakage`) into the typed report
(:mod:`.results`: :class:`ReassociationReport`, written by ``to_json()``, read back by
``from_json()``), whose words are in :mod:`.report`.
"""

from semtui.attacks.reassociation.attack import Baselines, run_reassociation
from semtui.attacks.reassociation.options import METHODS, ReassociationOptions
from semtui.attacks.reassociation.report import (
    Reassociation,
    informed_sentence,
    reconstructed_transactions,
    reconstruction_dataset,
)
from semtui.attacks.reassociation.results import (
    REPORT_FORMAT,
    REPORT_FORMATS,
    ClusterMetrics,
    InformedReference,
    JointMetrics,
    PlacedUnit,
    ReassocBaseline,
    ReassocCluster,
    ReassociationReport,
    ReassocJoint,
    ReassocMetrics,
    ReassocSummary,
    SharedChunks,
)

__all__ = [
    "METHODS",
    "REPORT_FORMAT",
    "REPORT_FORMATS",
    "Baselines",
    "ClusterMetrics",
    "InformedReference",
    "JointMetrics",
    "PlacedUnit",
    "ReassocBaseline",
    "ReassocCluster",
    "ReassocJoint",
    "ReassocMetrics",
    "ReassocSummary",
    "Reassociation",
    "ReassociationOptions",
    "ReassociationReport",
    "SharedChunks",
    "informed_sentence",
    "reconstructed_transactions",
    "reconstruction_dataset",
    "run_reassociation",
]
