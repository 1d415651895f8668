"""Set-based generalisation in the manner of COAT (Loukides et al. 2011): an item is
replaced by a set of items until every privacy constraint is supported by >= k
transactions or by none.  See :mod:`.coat` and docs/anonymize.md."""

from semtui.anonymize.setgen.coat import SIDECAR_FORMAT, SetgenResult, SetgenSidecar, anonymize
from semtui.anonymize.setgen.constraints import (
    parse_sizes,
    random_privacy,
    read_privacy,
    read_utility,
    utility_constraints,
    utility_files,
    wordnet_utility,
)
from semtui.anonymize.setgen.matched import matched_classes, matched_utility, parse_matched, support_bands
from semtui.anonymize.setgen.unmarked import flatten

__all__ = [
    "SIDECAR_FORMAT",
    "SetgenResult",
    "SetgenSidecar",
    "anonymize",
    "flatten",
    "matched_classes",
    "matched_utility",
    "parse_matched",
    "parse_sizes",
    "random_privacy",
    "read_privacy",
    "read_utility",
    "support_bands",
    "utility_constraints",
    "utility_files",
    "wordnet_utility",
]
