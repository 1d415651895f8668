"""Anonymisers: how a publisher would release the data before it is attacked.

``anonymize(data, privacy, k, utility)`` is set-based generalisation in the manner of
COAT (Loukides et al. 2011); see :mod:`semtui.anonymize.coat` and docs/anonymize.md.
"""

from semtui.anonymize.coat import SetgenResult, anonymize
from semtui.anonymize.constraints import (
    parse_sizes,
    random_privacy,
    read_privacy,
    read_utility,
    wordnet_utility,
)

__all__ = [
    "SetgenResult",
    "anonymize",
    "parse_sizes",
    "random_privacy",
    "read_privacy",
    "read_utility",
    "wordnet_utility",
]
