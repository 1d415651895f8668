"""Which loop runs GBA, RBA and WBA: numpy's (the reference) or the compiled kernel
(``semtui/attacks/setgen/_compiled.py``, numba), the same results bit for bit."""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys

#: How GBA, RBA and WBA run their loop (:func:`eliminate`'s ``engine``); the same results either way.
ENGINES = ("auto", "numpy", "compiled")

#: Set (to anything but ``""`` or ``0``) to keep GBA, RBA and WBA on the numpy loop even when numba
#: is installed.
NO_NUMBA_ENV = "SEMTUI_NO_NUMBA"
#: Under ``engine="auto"`` the first table of at least this many cells (default
#: :data:`COMPILED_MIN_CELLS`) loads numba and the kernel (~0.5 s a process from numba's cache;
#: compiling it, once, ~6 s); a smaller one takes less than that on the numpy loop.  Once
#: loaded, every table of the process runs compiled.  (An attack's tables add up: on a quarter
#: of MEPS, 38 tables of which 16 have 1024+ cells and one 4096+, a threshold of 4096 gave 4.4 s
#: of CPU, 2048 or less 3.0 s, the numpy loop 8.2 s.)
MIN_CELLS_ENV = "SEMTUI_NUMBA_MIN_CELLS"
COMPILED_MIN_CELLS = 2048
_COMPILED_MODULE = "semtui.attacks.setgen._compiled"


def compiled_preload() -> tuple[str, ...]:
    """The compiled loop's module when ``auto`` may use it (numba installed, not turned off):
    what a process that will attack many tables (a worker of ``--jobs`` or ``--scheduler``)
    imports before its first one, from its fork server, instead of each worker again."""
    if os.environ.get(NO_NUMBA_ENV, "") not in ("", "0") or importlib.util.find_spec("numba") is None:
        return ()
    return (_COMPILED_MODULE,)


def _compiled_kernel(engine: str, shape: tuple[int, int]):
    """The compiled module (:mod:`._compiled`) for a table of ``shape`` when ``engine`` asks for
    it, or leaves it to us and the table is large enough, and numba imports; None for the
    numpy loop.  Imported here, at the first GBA/RBA table,
    never at import of semtui (numba takes ~0.5 s to import; the kernel compiles on its first
    call, or loads from numba's cache)."""
    if engine == "numpy" or min(shape) < 2:  # one row or column: nothing can go (last-cell rule)
        return None
    if engine == "auto":
        if os.environ.get(NO_NUMBA_ENV, "") not in ("", "0"):
            return None
        try:
            least = int(os.environ.get(MIN_CELLS_ENV, COMPILED_MIN_CELLS))
        except ValueError:
            least = COMPILED_MIN_CELLS
        if shape[0] * shape[1] < least and _COMPILED_MODULE not in sys.modules:
            return None
    if _FALLBACK and engine != "compiled":
        return None  # it could not load before: not tried again for every table
    try:
        return importlib.import_module(_COMPILED_MODULE)
    except ImportError as exc:
        if engine == "compiled":
            raise
        if not _FALLBACK:
            _FALLBACK.append(f"{type(exc).__name__}: {exc}")
        return None


#: why the compiled loop could not load in this process (empty: it loaded, or was never wanted)
_FALLBACK: list[str] = []


def loop_fallback() -> str | None:
    """Why GBA, RBA and WBA ran the numpy loop although the compiled one was wanted (numba is a
    core dependency: a broken or missing install), or None.  The engine never prints; the CLI
    says it once, at the end of the command."""
    return _FALLBACK[0] if _FALLBACK else None


#: eliminations per call of the compiled kernel, between two heartbeats
_CHUNK = 256
