"""Re-association attacks on disassociated releases (Alshuhail & Shao; ALGORITHMS.md §2).

Its options are one :class:`ReassociationOptions` (:mod:`.options`); :func:`run_reassociation`
(:mod:`.attack`) attacks a whole release: plan and score (:mod:`.plan`) -> the per-cluster
kernel (:mod:`.kernel`, a plain function of arrays; joint clusters: :mod:`.joint`) -> merge
(:mod:`.merge`, with k^m breakage counted by :mod:`.km_breakage`) into the report, whose format
and words are in :mod:`.report`.
"""

from semtui.attacks.reassociation.attack import Baselines, run_reassociation
from semtui.attacks.reassociation.options import METHODS, ReassociationOptions
from semtui.attacks.reassociation.report import (
    REPORT_FORMAT,
    REPORT_FORMATS,
    Reassociation,
    informed_sentence,
    reconstructed_transactions,
    reconstruction_dataset,
)

__all__ = [
    "METHODS",
    "REPORT_FORMAT",
    "REPORT_FORMATS",
    "Baselines",
    "Reassociation",
    "ReassociationOptions",
    "informed_sentence",
    "reconstructed_transactions",
    "reconstruction_dataset",
    "run_reassociation",
]
