"""The eliminators on raw distances, which decide cell by cell: MDA, TBA, PBA and RA.

The last-cell rule makes each decision depend on the previous ones; they loop in Python,
but only over their candidate cells, once (:func:`_sequential`)."""

from __future__ import annotations

import numpy as np

from semtui.attacks.setgen.eliminate.result import Elimination, EliminationResult
from semtui.attacks.setgen.eliminate.state import _mean_scorable, _raw, _Table
from semtui.errors import InputError
from semtui.runtime.progress import heartbeat

#: RA's per-cell elimination probability.  The thesis (§5.2) has the random adversary take
#: "a random decision regarding whether or not to eliminate an item": a fair coin.
DEFAULT_PROBABILITY = 0.5


#: PBA's threshold: a member whose posterior chance of being the row's original item is below
#: this is eliminated (measured on MEPS and MED, docs/experiments.md)
DEFAULT_POSTERIOR = 0.05


def _mda(state: _Table, limit: int) -> EliminationResult:
    initial = _raw(state)
    eligible = state.scorable & (state.D > 0)
    eligible &= (state.rc >= 2)[:, None] & (state.cc >= 2)[None, :]
    if limit > 0 and eligible.any():
        flat = int(np.argmax(np.where(eligible, state.D, -np.inf)))  # first = lowest row/col
        i, j = divmod(flat, state.nc)
        state.record(i, j, state.D[i, j])
        state.drop(i, j)
    return state.result("mda", None, initial, _raw(state))


def _sequential(state: _Table, rows: np.ndarray, cols: np.ndarray, limit: int) -> None:
    """Eliminate the given cells in order, skipping any that would empty a row or column.

    The last-cell rule only bites in a row (column) whose live cells are all candidates: a
    candidate in a row and a column that each keep a live non-candidate cell is always
    eliminated, whatever the order.  So those are decided at once, and a Python loop runs only
    over the candidates of the other rows and columns, whose counts only they change.  The
    eliminations are recorded in the given order, as one loop over every candidate would.
    """
    n = len(rows)
    if n == 0 or limit <= 0:
        return
    if limit < n:  # a replay up to a step: the plain loop
        _sequential_loop(state, rows, cols, limit)
        return
    cand = np.zeros(state.live.shape, dtype=bool)
    cand[rows, cols] = True
    keeps = state.live & ~cand
    free = keeps.any(axis=1)[rows] & keeps.any(axis=0)[cols]
    take = free.copy()
    rc, cc = state.rc.copy(), state.cc.copy()
    for n_seen, k in enumerate(np.flatnonzero(~free).tolist()):
        if not n_seen & 0xFFF:
            heartbeat(n_seen, "candidates")
        i, j = int(rows[k]), int(cols[k])
        if rc[i] >= 2 and cc[j] >= 2:
            take[k] = True
            rc[i] -= 1
            cc[j] -= 1
    r, c = rows[take], cols[take]
    if state.lean:
        state.cells.append((r, c))
    else:
        d = state.D[r, c]
        start = len(state.eliminations)
        state.eliminations.extend(
            Elimination(step=start + s + 1, row=i, col=j, distance=v, weighted=v, vulnerability=None, group=None)
            for s, (i, j, v) in enumerate(zip(r.tolist(), c.tolist(), d.tolist())))
    state.live[r, c] = False
    state.scorable[r, c] = False
    state.rc -= np.bincount(r, minlength=state.nr)
    state.cc -= np.bincount(c, minlength=state.nc)


def _sequential_loop(state: _Table, rows: np.ndarray, cols: np.ndarray, limit: int) -> None:
    rc, cc = state.rc, state.cc
    done = 0
    for i, j in zip(rows.tolist(), cols.tolist()):
        if done >= limit:
            break
        if rc[i] >= 2 and cc[j] >= 2:
            state.record(i, j, state.D[i, j])
            state.drop(i, j)
            done += 1


def _tba(state: _Table, threshold: float | None, limit: int) -> EliminationResult:
    initial = _raw(state)
    delta = _mean_scorable(state.D, state.scorable) if threshold is None else float(threshold)
    cand = state.scorable & (np.where(state.scorable, state.D, -np.inf) > delta)
    rows, cols = np.nonzero(cand)  # row-major: lowest row, then lowest column
    order = np.argsort(-state.D[rows, cols], kind="stable")  # descending, ties keep order
    _sequential(state, rows[order], cols[order], limit)
    return state.result("tba", delta, initial, _raw(state))


def posterior(D: np.ndarray) -> np.ndarray:
    """Per row, the chance that each member is original given that the row holds at least one
    of them, when the distances are surprisals ``-log P(member | what the attacker knows)``:
    ``p_x / (1 - Π_y (1 - p_y))`` over the row's finite cells, with ``p = min(exp(-D), 1)``.
    On sparse data (small p) this is each member's share of the row; on dense data each
    member's own chance.  NaN where ``D`` is NaN."""
    finite = np.isfinite(D)
    p = np.where(finite, np.exp(-np.maximum(np.where(finite, D, 0.0), 0.0)), 0.0)
    with np.errstate(divide="ignore"):
        none = np.exp(np.log1p(-np.minimum(p, 1.0 - 1e-12)).sum(axis=1, keepdims=True))
    at_least_one = np.maximum(1.0 - none, 1e-300)
    return np.where(finite, np.minimum(p / at_least_one, 1.0), np.nan)


def _pba(state: _Table, threshold: float | None, limit: int) -> EliminationResult:
    """PBA (beyond the papers, ALGORITHMS.md §7): the table's distances are surprisals; every
    member whose posterior chance of being original (:func:`posterior`) is below τ is
    eliminated, least likely first, keeping at least one cell per row and column."""
    initial = _raw(state)
    tau = DEFAULT_POSTERIOR if threshold is None else float(threshold)
    if not 0.0 < tau < 1.0:
        raise InputError(f"PBA's threshold is a probability between 0 and 1, got {tau}", option="threshold")
    p = posterior(np.where(state.live, state.D, np.nan))
    cand = state.scorable & (np.nan_to_num(p, nan=1.0) < tau)
    rows, cols = np.nonzero(cand)
    order = np.argsort(p[rows, cols], kind="stable")  # least likely first, ties keep order
    _sequential(state, rows[order], cols[order], limit)
    return state.result("pba", tau, initial, _raw(state))


def _ra(state: _Table, seed: int | None, probability: float, limit: int) -> EliminationResult:
    initial = _raw(state)
    rng = np.random.default_rng(seed)
    rows, cols = np.nonzero(state.scorable)
    order = rng.permutation(len(rows))
    chosen = rng.random(len(rows)) < probability
    order = order[chosen[order]]
    _sequential(state, rows[order], cols[order], limit)
    return state.result("ra", None, initial, _raw(state))
