"""A distance table being attacked: live and scorable cells, their counts, weights from
counts (GBA, WBA), and the eliminations recorded so far."""

from __future__ import annotations

import numpy as np

from semtui.attacks.setgen.eliminate.result import Elimination, EliminationResult


class _Table:
    """A distance table being attacked: live cells, counts and weighted distances."""

    def __init__(self, D: np.ndarray, protected: np.ndarray):
        self.D = D
        self.nr, self.nc = D.shape
        self.live = ~np.isnan(D)
        # cells that take part in gaps, means and candidates, and may be eliminated
        with np.errstate(invalid="ignore"):
            self.scorable = self.live & (D >= 0) & ~protected
        self.rc = self.live.sum(axis=1).astype(np.int64)
        self.cc = self.live.sum(axis=0).astype(np.int64)
        self.eliminations: list[Elimination] = []
        self.lean = False
        self.cells: list[tuple[np.ndarray, np.ndarray]] = []

    # weights from counts (GBA, WBA) -------------------------------------------------
    def row_factor(self, rows=slice(None)) -> np.ndarray:
        rc = self.rc[rows]
        return 1.0 - 1.0 / np.maximum(rc, 1)

    def col_factor(self, cols=slice(None)) -> np.ndarray:
        cc = self.cc[cols]
        return 1.0 - 1.0 / np.maximum(cc, 1)

    def count_weighted(self) -> np.ndarray:
        W = self.D * self.row_factor()[:, None] * self.col_factor()[None, :]
        W[~self.live] = np.nan
        return W

    def drop(self, i: int, j: int) -> None:
        self.live[i, j] = False
        self.scorable[i, j] = False
        self.rc[i] -= 1
        self.cc[j] -= 1

    def record(self, i: int, j: int, weighted: float, vulnerability=None, group=None) -> None:
        self.eliminations.append(Elimination(
            step=len(self.eliminations) + 1, row=int(i), col=int(j),
            distance=float(self.D[i, j]), weighted=float(weighted),
            vulnerability=None if vulnerability is None else float(vulnerability), group=group,
        ))

    def result(self, method, threshold, initial, final, **extra) -> EliminationResult:
        cells = None
        if self.lean and not self.eliminations:  # (a step-limited replay records objects)
            rs = [r for r, _ in self.cells] or [np.zeros(0, dtype=np.int64)]
            cs = [c for _, c in self.cells] or [np.zeros(0, dtype=np.int64)]
            cells = (np.concatenate(rs).astype(np.int64), np.concatenate(cs).astype(np.int64))
        return EliminationResult(
            method=method, threshold=None if threshold is None else float(threshold),
            eliminations=self.eliminations, live=self.live.copy(),
            initial_weighted=initial, final_weighted=final, cells=cells, **extra,
        )


def _raw(state: _Table) -> np.ndarray:
    out = state.D.copy()
    out[~state.live] = np.nan
    return out


def _mean_scorable(values: np.ndarray, scorable: np.ndarray) -> float:
    n = int(scorable.sum())
    return float(values[scorable].sum() / n) if n else 0.0


def _count_weights(state: _Table, axis: int) -> np.ndarray:
    if axis == 1:
        w = np.broadcast_to((1.0 / np.maximum(state.rc, 1))[:, None], state.D.shape)
    else:
        w = np.broadcast_to((1.0 / np.maximum(state.cc, 1))[None, :], state.D.shape)
    return np.where(state.live, w, np.nan)
