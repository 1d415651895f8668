"""Which loop runs GBA, RBA and WBA: numpy's (the reference) or the compiled kernel
(``semtui/attacks/setgen/_compiled.py``, numba), the same results bit for bit."""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import threading
import time

from semtui.runtime.compiled import numba_off

#: How GBA, RBA and WBA run their loop (:func:`eliminate`'s ``engine``); the same results either way.
ENGINES = ("auto", "numpy", "compiled")

#: Under ``engine="auto"`` the first table of at least this many cells (default
#: :data:`COMPILED_MIN_CELLS`) loads numba and the kernel (~0.5 s a process from numba's cache;
#: compiling it, once, ~6 s); a smaller one takes less than that on the numpy loop.  Once
#: loaded, every table of the process runs compiled.  (An attack's tables add up: on a quarter
#: of MEPS, 38 tables of which 16 have 1024+ cells and one 4096+, a threshold of 4096 gave 4.4 s
#: of CPU, 2048 or less 3.0 s, the numpy loop 8.2 s.)
MIN_CELLS_ENV = "SEMTUI_NUMBA_MIN_CELLS"
COMPILED_MIN_CELLS = 2048
#: ... but while the kernels are not compiled yet (numba's cache cold: the first run after an
#: install, or after this code changed), ``auto`` keeps the numpy loop until it has spent this many
#: seconds in the process on tables that would have compiled (default
#: :data:`COMPILED_COLD_SECONDS`), then compiles: compiling costs ~8-10 s of CPU, once, so a run
#: whose tables the numpy loop finishes sooner never pays it (the README's first command: six
#: tables of 2,067-2,310 cells, 13.1 s compiling against 6.1-7.3 s), and a run with more work pays at
#: most this much before the compiled loop takes over (all of MEPS k = 3 with RBA: 48 s on numpy).
#: Once compiled -- in this process or in an earlier one, through numba's cache -- every table of
#: 2,048+ cells uses the kernels, as before.  The choice never changes a result.
COLD_SECONDS_ENV = "SEMTUI_NUMBA_COLD_SECONDS"
COMPILED_COLD_SECONDS = 3.0
#: when the numpy loop started the table it runs because the kernels are cold (per thread: the TUI
#: attacks in a worker thread); :func:`numpy_loop_done` adds its time to ``_SPENT``
_COLD_NUMPY = threading.local()
_COMPILED_MODULE = "semtui.attacks.setgen._compiled"


def compiled_preload() -> tuple[str, ...]:
    """The compiled loop's module when ``auto`` may use it (numba installed, not turned off):
    what a process that will attack many tables (a worker of ``--jobs`` or ``--scheduler``)
    imports before its first one, from its fork server, instead of each worker again."""
    if numba_off() or importlib.util.find_spec("numba") is None:
        return ()
    return (_COMPILED_MODULE,)


def _compiled_kernel(engine: str, shape: tuple[int, int], loop: str = "grouping"):
    """The compiled module (:mod:`._compiled`) for a table of ``shape`` when ``engine`` asks for
    it, or leaves it to us and the table is large enough, and numba imports, and ``loop``'s kernel
    (``grouping`` or ``wba``) is compiled or worth compiling (:data:`COLD_SECONDS_ENV`); None for
    the numpy loop.  Imported here, at the first GBA/RBA table,
    never at import of semtui (numba takes ~0.5 s to import; the kernel compiles on its first
    call, or loads from numba's cache)."""
    if engine == "numpy" or min(shape) < 2:  # one row or column: nothing can go (last-cell rule)
        return None
    if engine == "auto":
        if numba_off():
            return None
        if shape[0] * shape[1] < _number(MIN_CELLS_ENV, COMPILED_MIN_CELLS) and _COMPILED_MODULE not in sys.modules:
            return None
    if _FALLBACK and engine != "compiled":
        return None  # it could not load before: not tried again for every table
    try:
        module = importlib.import_module(_COMPILED_MODULE)
    except ImportError as exc:
        if engine == "compiled":
            raise
        if not _FALLBACK:
            _FALLBACK.append(f"{type(exc).__name__}: {exc}")
        return None
    if engine == "auto" and cold_numpy_seconds() < _number(COLD_SECONDS_ENV, COMPILED_COLD_SECONDS) \
            and not ready(module, loop):
        _COLD_NUMPY.started = time.perf_counter()   # the numpy loop runs this table: its time counts
        return None
    return module


#: the kernels known to run without compiling first, by the loop's name
_READY: set[str] = set()


def ready(module, loop: str = "grouping") -> bool:
    """Whether ``loop``'s kernel in the compiled ``module`` (``grouping``: GBA and RBA; ``wba``)
    runs without compiling first: compiled in this process, or in numba's on-disk cache for this
    source (its index holds it).  Where numba keeps no cache (no writable place) every process
    compiles: False.  Where numba's cache cannot be read the way this expects (another numba),
    True: the kernels are used as before this check."""
    if loop in _READY:
        return True
    f = module._wba_steps if loop == "wba" else module._grouping_steps
    try:
        from numba.core.caching import NullCache

        if f.signatures:
            ok = True
        elif isinstance(f._cache, NullCache):
            return False
        else:
            ok = bool(f._cache._cache_file._load_index())
    except Exception:   # numba's internals moved: as before this check
        ok = True
    if ok:
        _READY.add(loop)
    return ok


def cold_numpy_seconds() -> float:
    """What the numpy loop has spent in this process on tables it ran while the kernels were cold."""
    return _SPENT[0]


#: seconds the numpy loop spent in this process on tables it ran because the kernels were cold
_SPENT = [0.0]


def numpy_loop_done() -> None:
    """Called when a GBA/RBA/WBA table is done: a table the numpy loop ran because the kernels
    were cold adds its time to :func:`cold_numpy_seconds`."""
    started = getattr(_COLD_NUMPY, "started", None)
    if started is not None:
        _COLD_NUMPY.started = None
        _SPENT[0] += time.perf_counter() - started


def _number(env: str, default: int | float) -> int | float:
    """The setting ``env`` as a number of ``default``'s type (``default`` where unset or not one)."""
    try:
        return type(default)(os.environ.get(env, default))
    except ValueError:
        return default


#: why the compiled loop could not load in this process (empty: it loaded, or was never wanted)
_FALLBACK: list[str] = []


def loop_fallback() -> str | None:
    """Why GBA, RBA and WBA ran the numpy loop although the compiled one was wanted (numba is a
    core dependency: a broken or missing install), or None.  The engine never prints; the CLI
    says it once, at the end of the command."""
    return _FALLBACK[0] if _FALLBACK else None


#: eliminations per call of the compiled kernel, between two heartbeats
_CHUNK = 256
