"""One eliminator on one distance table: :func:`eliminate`, which checks its arguments and
hands the table to the method's module."""

from __future__ import annotations

import numpy as np

from semtui.attacks.setgen.eliminate.engine import ENGINES, numpy_loop_done
from semtui.attacks.setgen.eliminate.grouping import _grouping
from semtui.attacks.setgen.eliminate.raw import DEFAULT_PROBABILITY, _mda, _pba, _ra, _tba
from semtui.attacks.setgen.eliminate.result import EliminationResult
from semtui.attacks.setgen.eliminate.state import _Table
from semtui.attacks.setgen.eliminate.wba import _wba
from semtui.errors import InputError

METHODS = ("mda", "tba", "wba", "gba", "rba", "ra", "pba")
#: the methods that take a threshold (δ, or PBA's τ)
_THRESHOLD_METHODS = ("tba", "wba", "gba", "rba", "pba")


def eliminate(
    table: np.ndarray,
    method: str,
    *,
    threshold: float | None = None,
    seed: int | None = None,
    probability: float | None = None,
    protected: np.ndarray | None = None,
    max_steps: int | None = None,
    lean: bool = False,
    engine: str = "auto",
) -> EliminationResult:
    """Run one eliminator on a distance table.

    ``threshold`` overrides δ for tba/wba/gba/rba (it is an error for mda and ra).
    ``seed`` and ``probability`` drive RA.  ``protected`` marks cells never to eliminate.
    ``max_steps`` stops after that many eliminations (what :func:`replay` uses).  ``lean``: TBA,
    PBA and RA give the eliminated cells as arrays (``result.cells``), not objects.
    ``engine`` (GBA, RBA, WBA): ``"auto"`` runs the compiled loop when numba imports, unless
    ``SEMTUI_NO_NUMBA`` is set, on a table of at least ``SEMTUI_NUMBA_MIN_CELLS`` cells (default
    2048) and on every table after one; ``"numpy"`` the numpy loop, ``"compiled"`` the compiled
    one (an error without numba).  The results are the same bit for bit; only the speed
    differs.
    """
    method = method.lower()
    if engine not in ENGINES:
        raise ValueError(f"engine is one of {', '.join(ENGINES)}")
    if method not in METHODS:
        raise InputError(f"unknown method {method!r} (choose from {', '.join(METHODS)})", option="method")
    if threshold is not None and method not in _THRESHOLD_METHODS:
        raise InputError(f"does not apply to {method}", option="threshold")
    if threshold is not None and not np.isfinite(threshold):
        raise InputError("must be a finite number", option="threshold")
    if probability is None:
        probability = DEFAULT_PROBABILITY
    if not 0.0 <= probability <= 1.0:
        raise InputError("must lie between 0 and 1", option="probability")
    D = np.array(table, dtype=np.float64, copy=True)
    if D.ndim != 2:
        raise ValueError("a distance table is two-dimensional")
    if D.shape[0] > D.shape[1]:
        # tall tables: every step rewrites a whole column, so keep columns contiguous
        D = np.asfortranarray(D)
    if np.isinf(D).any():
        raise ValueError("a distance table holds finite numbers or NaN (missing)")
    prot = np.zeros(D.shape, dtype=bool) if protected is None else np.asarray(protected, bool)
    if prot.shape != D.shape:
        raise ValueError("the protected mask must have the table's shape")
    options = {"threshold": threshold, "seed": seed, "probability": probability,
               "protected": None if protected is None else prot.copy()}
    limit = np.iinfo(np.int64).max if max_steps is None else int(max_steps)
    state = _Table(D, prot)
    state.lean = lean and method in ("tba", "pba", "ra")
    try:
        if D.size == 0:  # nothing to attack; keep the shape
            empty = np.full(D.shape, np.nan)
            result = state.result(method, None if method in ("mda", "ra") else threshold,
                                  empty, empty.copy())
        elif method == "mda":
            result = _mda(state, limit)
        elif method == "tba":
            result = _tba(state, threshold, limit)
        elif method == "ra":
            result = _ra(state, seed, probability, limit)
        elif method == "wba":
            result = _wba(state, threshold, limit, engine)
        elif method == "pba":
            result = _pba(state, threshold, limit)
        else:
            result = _grouping(state, method, threshold, limit, engine)
    finally:
        numpy_loop_done()   # a table the numpy loop ran while the kernels were cold (GBA, RBA, WBA) counts
    result.options = options
    return result
