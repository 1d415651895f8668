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


def jit(fn):
    """numba's ``njit`` (no GIL) with its on-disk cache where a cache folder can be written (numba
    raises at decoration where none can: a read-only install, no writable home), else compiled
    afresh in each process.  numba is imported here, by the kernels' modules only."""
    import warnings

    import numba

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return numba.njit(cache=True, nogil=True)(fn)
    except RuntimeError:  # "cannot cache function ...: no locator available": compile without one
        return numba.njit(cache=False, nogil=True)(fn)
