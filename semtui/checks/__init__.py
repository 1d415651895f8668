"""Independent checks of a release: they read what was written and recompute.

``check_privacy(data, constraints, k)`` (:mod:`semtui.checks.privacy`) verifies that
every privacy constraint has support >= k or 0 in set-generalised data.
"""

from semtui.checks.privacy import PrivacyReport, check_privacy, read_constraints

__all__ = ["PrivacyReport", "check_privacy", "read_constraints"]
