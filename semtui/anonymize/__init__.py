"""Anonymisers: how a publisher would release the data before it is attacked, one family a
sub-package: :mod:`.setgen` (set-based generalisation in the manner of COAT)."""
