"""Attacks on anonymised transaction data, one family a sub-package: :mod:`.setgen` (the
semantic attack that eliminates the items set-based generalisation added).  Every attack is
plan -> score -> per-unit kernel -> merge, run by :mod:`semtui.runtime`."""
