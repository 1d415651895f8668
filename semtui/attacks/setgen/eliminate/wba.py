"""WBA: weighted distances (weights from counts) against one threshold, the largest first,
only the columns a step touched looked at again."""

from __future__ import annotations

import numpy as np

from semtui.attacks.setgen.eliminate.engine import _CHUNK, _compiled_kernel
from semtui.attacks.setgen.eliminate.result import EliminationResult
from semtui.attacks.setgen.eliminate.state import _count_weights, _mean_scorable, _Table
from semtui.runtime.progress import heartbeat


def _wba(state: _Table, threshold: float | None, limit: int, engine: str = "auto") -> EliminationResult:
    W = state.count_weighted()
    initial = W.copy()
    sc = state.scorable
    delta = _mean_scorable(W, sc) if threshold is None else float(threshold)
    rf, cf = state.row_factor(), state.col_factor()
    kernel = _compiled_kernel(engine, W.shape, "wba")
    if kernel is not None:
        return _wba_compiled(kernel, state, delta, limit, W, initial, rf, cf)

    # The largest eligible weighted distance of each column (and its row).  Eliminating
    # (i, j) shrinks row i and column j and only takes eligibility away, so only column j
    # and the columns whose maximum sat in row i need a new one.
    def col_best(k: int) -> tuple[float, int]:
        if state.cc[k] < 2:
            return -np.inf, 0
        vals = np.where(sc[:, k] & (state.rc >= 2), W[:, k], -np.inf)
        r = int(np.argmax(vals))  # first occurrence: lowest row
        return float(vals[r]), r

    best = np.full(state.nc, -np.inf)
    best_row = np.zeros(state.nc, dtype=np.int64)
    for k in range(state.nc):
        best[k], best_row[k] = col_best(k)
    while len(state.eliminations) < limit:
        heartbeat(len(state.eliminations), "eliminations")  # a long table: progress, a chance to cancel
        vmax = best.max()
        if not vmax > delta:
            break
        tied = np.flatnonzero(best == vmax)
        j = int(tied[0]) if len(tied) == 1 else int(tied[np.lexsort((tied, best_row[tied]))[0]])
        i = int(best_row[j])
        state.record(i, j, W[i, j])
        state.drop(i, j)
        rf[i] = 1.0 - 1.0 / max(state.rc[i], 1)
        cf[j] = 1.0 - 1.0 / max(state.cc[j], 1)
        W[i, :] = state.D[i, :] * rf[i] * cf
        W[:, j] = state.D[:, j] * rf * cf[j]
        W[i, ~state.live[i]] = np.nan
        W[~state.live[:, j], j] = np.nan
        for k in np.flatnonzero(best_row == i).tolist() + [j]:
            best[k], best_row[k] = col_best(k)
    return state.result("wba", delta, initial, W,
                        row_weights=_count_weights(state, axis=1),
                        col_weights=_count_weights(state, axis=0))


def _wba_compiled(K, state: _Table, delta: float, limit: int, W, initial, rf, cf) -> EliminationResult:
    """:func:`_wba`'s loop in the compiled kernel, a chunk of eliminations at a time."""
    c = np.asfortranarray  # column-major, as for GBA/RBA (one compiled specialisation)
    D, W = c(state.D), c(W)
    state.live, state.scorable = c(state.live), c(state.scorable)  # the kernel updates them
    best, best_row = np.full(state.nc, -np.inf), np.zeros(state.nc, dtype=np.int64)
    K.wba_best(W, state.scorable, state.rc, state.cc, best, best_row)
    cap = int(state.scorable.sum()) + 1
    out_i, out_j, out_w = np.zeros(cap, np.int64), np.zeros(cap, np.int64), np.zeros(cap)
    n_out = 0
    while n_out < limit:
        heartbeat(n_out, "eliminations")
        n_new, finished = K._wba_steps(D, W, rf, cf, state.live, state.scorable, state.rc, state.cc,
                                       best, best_row, float(delta), min(_CHUNK, limit - n_out),
                                       out_i, out_j, out_w, n_out)
        for k in range(n_out, n_new):
            state.record(int(out_i[k]), int(out_j[k]), out_w[k])
        n_out = n_new
        if finished:
            break
    return state.result("wba", delta, initial, W,
                        row_weights=_count_weights(state, axis=1),
                        col_weights=_count_weights(state, axis=0))
