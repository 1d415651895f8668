"""Whether semtui may load its numba kernels (the eliminator's loop, the re-association
baseline's masked injection): numba is a core dependency, and ``SEMTUI_NO_NUMBA`` keeps every
kernel on its numpy reference."""

from __future__ import annotations

import os

#: Set (to anything but ``""`` or ``0``) to keep every kernel on its numpy loop even when numba is
#: installed.
NO_NUMBA_ENV = "SEMTUI_NO_NUMBA"


def numba_off() -> bool:
    """Whether ``SEMTUI_NO_NUMBA`` turns the compiled kernels off."""
    return os.environ.get(NO_NUMBA_ENV, "") not in ("", "0")
