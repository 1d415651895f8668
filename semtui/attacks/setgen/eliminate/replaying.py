"""The weighted table part-way through an attack: after the first steps of a result
(:func:`replay`) or along a recorded path (:func:`weighted_along`), what the TUI's replay shows."""

from __future__ import annotations

import time

import numpy as np

from semtui.attacks.setgen.eliminate.grouping import _redistribute
from semtui.attacks.setgen.eliminate.methods import eliminate
from semtui.attacks.setgen.eliminate.result import EliminationResult
from semtui.attacks.setgen.eliminate.state import _raw, _Table
from semtui.attacks.setgen.eliminate.vulnerability import _lower_cluster


def replay(table: np.ndarray, result: EliminationResult, upto_step: int) -> tuple[np.ndarray, np.ndarray]:
    """The weighted table and live mask after the first ``upto_step`` eliminations.

    RBA's weights depend on the path, so it re-runs the method with the same arguments and
    stops early (the methods are deterministic, RA through its seed); the others rebuild the
    state from the recorded steps.
    """
    opts = result.options
    if result.method != "rba":
        # Every method but RBA derives its weighted table from the live cells alone (weights
        # from counts, or none), so the state after ``upto_step`` eliminations is rebuilt
        # directly from the recorded steps instead of re-running the attack.
        D = np.asarray(table, dtype=np.float64)
        protected = opts.get("protected")
        state = _Table(D, np.zeros(D.shape, dtype=bool) if protected is None else protected)
        for e in result.eliminations[: max(0, int(upto_step))]:
            state.drop(e.row, e.col)
        weighted = state.count_weighted() if result.method in ("gba", "wba") else _raw(state)
        return weighted, state.live.copy()
    partial = eliminate(
        table, result.method, threshold=opts.get("threshold"), seed=opts.get("seed"),
        probability=opts.get("probability"),
        protected=opts.get("protected"), max_steps=max(0, int(upto_step)),
    )
    return partial.final_weighted, partial.live


def weighted_along(table: np.ndarray, method: str, steps: list[tuple[int, int]], upto_step: int,
                   progress=None) -> np.ndarray:
    """The weighted table after the first ``upto_step`` of the recorded ``steps`` ((row, column)
    pairs in elimination order), following that path instead of re-running the method.

    A report keeps its tables rounded, and on real data a re-run on the rounded table can break
    a near-tie differently and take another path; the weights are a function of the path
    (counts for GBA/WBA; RBA's redistribution to the lower clusters of the eliminated cell's
    row and column), so following the report's own steps shows what that attack saw.
    """
    D = np.asarray(table, dtype=np.float64)
    state = _Table(D, np.zeros(D.shape, dtype=bool))
    path = steps[: max(0, int(upto_step))]
    if method != "rba":
        for i, j in path:
            state.drop(i, j)
        return state.count_weighted() if method in ("gba", "wba") else _raw(state)
    WR = np.where(state.live, (1.0 / np.maximum(state.rc, 1))[:, None], np.nan)
    WC = np.where(state.live, (1.0 / np.maximum(state.cc, 1))[None, :], np.nan)
    W = D * (1.0 - WR) * (1.0 - WC)
    W[~state.live] = np.nan
    sc = state.scorable
    last = 0.0
    for k, (i, j) in enumerate(path):  # the same update as _grouping's RBA branch
        if progress is not None and not k & 15 and (now := time.monotonic()) - last >= 0.05:
            last = now  # on the clock: a step of a tall table takes milliseconds
            progress(k, len(path), "replaying")
        _redistribute(state, D, W, WR, WC, i, j, _lower_cluster(W[i, :], sc[i, :]), _lower_cluster(W[:, j], sc[:, j]))
        W[i, ~state.live[i]] = np.nan
        W[~state.live[:, j], j] = np.nan
    return W
