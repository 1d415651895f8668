"""Re-association attacks on disassociated releases (Alshuhail & Shao; ALGORITHMS.md §2).

Its options are one :class:`ReassociationOptions` (:mod:`.options`); :func:`run_reassociation`
attacks a whole release (plan -> score -> per-cluster kernel -> merge); :mod:`.kernel` holds the
per-cluster kernel, a plain function of arrays.
"""

from semtui.attacks.reassociation.attack import (
    REPORT_FORMAT,
    Reassociation,
    informed_sentence,
    reconstructed_transactions,
    reconstruction_dataset,
    run_reassociation,
)
from semtui.attacks.reassociation.options import METHODS, ReassociationOptions

__all__ = ["METHODS", "REPORT_FORMAT", "Reassociation", "ReassociationOptions", "informed_sentence",
           "reconstructed_transactions",
           "reconstruction_dataset", "run_reassociation"]
