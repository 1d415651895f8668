"""Eliminators of the set-generalisation attack: MDA, TBA, WBA, GBA, RBA and RA.

Each takes one *distance table* (rows: the transactions of an equivalence group, labelled
by their context; columns: the member items of the generalised item; lower = more
related) and eliminates the cells it believes are items the generalisation added.  The
reading of the papers is the one fixed in ``ALGORITHMS.md`` §1:

* weights: row weight ``1 / live cells of the row``, column weight ``1 / live cells of the
  column``; weighted distance ``D * (1 - w_row) * (1 - w_col)``;
* every row and every column is a *group*; its *vulnerability* is the largest gap between
  neighbouring sorted weighted distances (0 under two cells);
* δ (GBA, RBA) is the mean vulnerability of all groups of the initial weighted table; WBA's
  δ is the mean of the initial weighted table; TBA's is a given value or the mean of the raw
  distances;
* a group's *candidate* is its largest weighted distance, valid only if its row and its
  column keep a live cell once it is gone (the last-cell rule); invalid groups are skipped;
* ties: lowest row, then lowest column (for groups of equal vulnerability: the one whose
  candidate comes first that way, a row group before a column group).

Cells of three kinds are treated apart.  ``NaN`` is a missing distance: not a cell at all
(never eliminated, not counted for weights, groups, means or the last-cell rule).  A
negative distance (NGD can give one, and it is unreliable) and a *protected* cell (a term
the measure cannot score) are present: they count for weights and for the last-cell rule,
but take no part in gaps, means or candidates, and are never eliminated.  The cells that
do take part are called *scorable* below.

Speed
-----
A direct transcription recomputes the whole weighted table and every group after each
elimination, ``O((Nr*Nc)^2)`` overall.  Here an elimination of ``(i, j)`` only touches what
it changes:

* Weighted distances: GBA/WBA weights come from counts, so only row ``i`` and column ``j``
  change (column ``j`` all of it, by one factor); RBA moves weight only to the lower
  clusters of row ``i`` and column ``j``, and only those cells are recomputed.
* Weights only ever grow, so a scorable weighted distance only ever shrinks.  Hence a
  group's *candidate* (its maximum) can only move if it sat in a changed cell: only rows
  whose candidate was in column ``j`` (RBA: in its lower cluster) and columns whose
  candidate was in row ``i`` get a new argmax.  WBA (no gaps) keeps each column's largest
  eligible cell and renews only column ``j`` and the columns whose maximum sat in row ``i``.
* Vulnerabilities are lazy.  Changing one value of a group by ``d`` moves every order
  statistic, hence every gap, by at most ``d`` on each side, so the largest gap by at most
  ``2d``.  Each group keeps its last exact vulnerability and a bound on how far it may
  have drifted since (``re``/``ce``, widened by a few ulps for rounding).  Each step, only
  groups whose upper bound reaches the best lower bound are recomputed exactly; the
  others cannot hold the maximum.  Row ``i`` and column ``j`` lost a cell and are always
  recomputed.
* Per-row state is kept and updated only where a step changed it: whether the row's
  candidate passes the last-cell rule (it changes where the candidate moved, in row ``i``,
  and, once, for the rows whose candidate sits in column ``j`` when ``j`` is down to its
  last cell), and the lower bound, upper bound and exact value of its vulnerability, from
  which a step reads the maximum with a few whole-array reductions.
* Each column keeps its scorable rows sorted (``_SortedColumns``): a changed cell is taken
  out and put back by binary search; after an RBA redistribution only the lower cluster is
  re-sorted (its values only fell, so they stay below the rest, whose order holds).

What stays linear in the rows per step: RBA's redistribution changes every cell of column
``j``'s lower cluster, each by its own amount, and the column's next gap depends on all of
them (batching the additions would change the floating-point sums), so an exact step is
``Θ(|lower cluster|)``; GBA's count change moves all of column ``j``.  In numpy the fixed
cost of a step (about a hundred numpy calls on small arrays, ~150-250 µs) dominates on the
tables semtui meets.

Compiled loop.  With numba installed (the ``fast`` extra), GBA's, RBA's and WBA's loop runs
in ``_compiled.py`` from the first table of at least ``SEMTUI_NUMBA_MIN_CELLS`` cells on
(default 2048; ``SEMTUI_NO_NUMBA=1`` keeps numpy; ``engine=`` chooses explicitly).  It
starts from the state computed here (weighted table, δ, initial vulnerabilities and
candidates: numpy's pairwise sums stay numpy's) and runs the same step on the same arrays
with the same expressions in the same order (no fastmath): the same lazy bounds; the
last-cell rule and the whole-array reductions become one tight pass over the groups; each
column's sorted order is patched in place (a changed cell moves by swaps; RBA's lower
cluster is re-sorted by an insertion pass from its old order, which it nearly keeps); and it
returns to Python every 256 eliminations for a heartbeat (progress, cancel).  A step still
costs ``Θ(rows)`` (the lower cluster or column ``j``, and the pass over the row groups for
the best bound and the best exact vulnerability), but at a few ns a row and without the
fixed cost of ~100 numpy calls: 6.6-18x less per step on MEPS' largest tables
(docs/performance.md).  The numpy loop stays the reference; tests compare the two bit for
bit and with the direct transcription.

Every weighted distance is computed with the same expression as a full recomputation,
and groups are only ever compared on exact values, so the result is bit-for-bit that of
the direct transcription (the tests compare the two on random tables, tall narrow ones
included).  TBA and RA decide cell by cell (the last-cell rule makes each decision depend
on the previous ones): they loop in Python, but only over their candidate cells, once.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import time
from dataclasses import dataclass, field
from itertools import pairwise

import numpy as np

from semtui.errors import InputError
from semtui.reports import Report, json_float
from semtui.runtime.progress import heartbeat

METHODS = ("mda", "tba", "wba", "gba", "rba", "ra", "pba")

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

#: RA's per-cell elimination probability.  The thesis (§5.2) has the random adversary take
#: "a random decision regarding whether or not to eliminate an item": a fair coin.
DEFAULT_PROBABILITY = 0.5

_THRESHOLD_METHODS = ("tba", "wba", "gba", "rba", "pba")

#: PBA's threshold: a member whose posterior chance of being the row's original item is below
#: this is eliminated (measured on MEPS and MED, docs/experiments.md)
DEFAULT_POSTERIOR = 0.05


def group_label(axis: str, index: int) -> str:
    """How a result names the group that chose a cell: ``row i`` or ``col j`` (0-based)."""
    return f"{axis} {index}"


def parse_group(label: str | None) -> tuple[str, int] | None:
    """``row i`` / ``col j`` back to ``("row", i)`` / ``("col", j)``; None if not such a label."""
    if not label:
        return None
    axis, _, index = label.partition(" ")
    return (axis, int(index)) if axis in ("row", "col") and index.isdigit() else None


@dataclass
class Elimination:
    """One eliminated cell, in the order the method eliminated it."""

    step: int  # 1-based
    row: int
    col: int
    distance: float  # the raw distance D[row, col]
    weighted: float  # the (weighted) distance that chose it (== distance for mda/tba/ra)
    vulnerability: float | None  # vulnerability of the group that chose it (gba/rba)
    group: str | None  # "row i" / "col j" that chose it (gba/rba)


@dataclass
class EliminationResult:
    """What a method did to one distance table."""

    method: str
    threshold: float | None  # δ used (None for mda/ra)
    eliminations: list[Elimination]
    live: np.ndarray  # bool mask of cells still present at the end
    initial_weighted: np.ndarray  # weighted table before any elimination (NaN where missing)
    final_weighted: np.ndarray  # weighted table at the end (NaN where eliminated/missing)
    #: Final row / column weights (what ``weighted`` was computed with); NaN where no cell.
    row_weights: np.ndarray | None = None
    col_weights: np.ndarray | None = None
    #: Vulnerability of every row and column group of the initial weighted table (gba/rba).
    initial_row_vulnerability: np.ndarray | None = None
    initial_col_vulnerability: np.ndarray | None = None
    #: The arguments the result was computed with, so :func:`replay` can redo it.
    options: dict = field(default_factory=dict)
    #: with ``lean=True`` (threshold and random methods): the eliminated cells as arrays, in
    #: order, instead of :class:`Elimination` objects (a kernel that only measures needs no more)
    cells: tuple[np.ndarray, np.ndarray] | None = None

    def eliminated_cells(self) -> tuple[np.ndarray, np.ndarray]:
        """Rows and columns of the eliminated cells, in the order they were eliminated."""
        if self.cells is not None:
            return self.cells
        e = self.eliminations
        return (np.fromiter((x.row for x in e), dtype=np.int64, count=len(e)),
                np.fromiter((x.col for x in e), dtype=np.int64, count=len(e)))

    @property
    def eliminated(self) -> np.ndarray:
        """Bool mask of the eliminated cells."""
        mask = np.zeros(self.live.shape, dtype=bool)
        if self.eliminations:
            rows = [e.row for e in self.eliminations]
            cols = [e.col for e in self.eliminations]
            mask[rows, cols] = True
        return mask


@dataclass
class TableEliminationReport(Report):
    """What one eliminator did to one distance table given as CSV (``table eliminate``)."""

    FORMAT = "semtui-table-eliminate/1"

    file: str
    columns: list[str]
    rows: list[str]
    result: EliminationResult

    def group_name(self, group: str | None) -> str | None:
        """'row 2' -> 'row gangrene', 'col 1' -> 'column icd'."""
        parsed = parse_group(group)
        if parsed is None:
            return group
        axis, k = parsed
        return f"row {self.rows[k]}" if axis == "row" else f"column {self.columns[k]}"

    def payload(self) -> dict:
        r, rows, columns = self.result, self.rows, self.columns
        eliminated = [{
            "step": e.step, "row": rows[e.row], "column": columns[e.col],
            "distance": float(e.distance), "weighted": float(e.weighted),
            "vulnerability": json_float(e.vulnerability), "group": self.group_name(e.group),
            "row_index": e.row, "column_index": e.col,
        } for e in r.eliminations]
        kept = [{"row": rows[i], "column": columns[j], "row_index": int(i), "column_index": int(j)}
                for i, j in zip(*np.nonzero(r.live))]
        return {"file": self.file, "method": r.method, "threshold": json_float(r.threshold), "rows": rows,
                "columns": columns, "eliminated": eliminated, "kept": kept}


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
    result.options = options
    return result


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


# -- the table state -----------------------------------------------------------------


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


# -- MDA, TBA, RA: raw distances -----------------------------------------------------------


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


# -- WBA -----------------------------------------------------------------------------------


def _wba(state: _Table, threshold: float | None, limit: int, engine: str = "auto") -> EliminationResult:
    W = state.count_weighted()
    initial = W.copy()
    sc = state.scorable
    delta = _mean_scorable(W, sc) if threshold is None else float(threshold)
    rf, cf = state.row_factor(), state.col_factor()
    kernel = _compiled_kernel(engine, W.shape)
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


def _count_weights(state: _Table, axis: int) -> np.ndarray:
    if axis == 1:
        w = np.broadcast_to((1.0 / np.maximum(state.rc, 1))[:, None], state.D.shape)
    else:
        w = np.broadcast_to((1.0 / np.maximum(state.cc, 1))[None, :], state.D.shape)
    return np.where(state.live, w, np.nan)


# -- GBA and RBA: groups and vulnerability --------------------------------------------------


def _group_stats(values: np.ndarray, scorable: np.ndarray):
    """Vulnerability, candidate index and "has a scorable cell" of each row of a block."""
    X = np.where(scorable, values, np.nan)
    if X.shape[1] >= 2:
        S = np.sort(X, axis=1)  # NaN last
        gaps = np.diff(S, axis=1)
        vul = np.where(np.isnan(gaps), -np.inf, gaps).max(axis=1, initial=0.0)
    else:
        vul = np.zeros(X.shape[0])
    cand = np.argmax(np.where(scorable, values, -np.inf), axis=1) if X.shape[1] else \
        np.zeros(X.shape[0], dtype=np.int64)
    has = scorable.any(axis=1)
    return vul, cand, has


def _lower_cluster(values: np.ndarray, scorable: np.ndarray) -> np.ndarray:
    """Mask of the lower cluster of one group: the cells at or below its largest gap."""
    v = values[scorable]
    if len(v) < 2:
        return scorable.copy()
    s = np.sort(v)
    k = int(np.argmax(np.diff(s)))  # the lowest of equal largest gaps
    return scorable & (np.where(scorable, values, np.inf) <= s[k])


def _row_split(w: list, ok: list) -> tuple[float, int, bool, float | None]:
    """One short row (a few member items) in Python floats, the same IEEE arithmetic as
    :func:`_group_stats` and :func:`_lower_cluster`: its vulnerability, candidate (the first
    largest scorable value; 0 without any), whether it has a scorable cell, and the value at
    its largest gap (the lowest of equal gaps; None under two cells: all of it is lower)."""
    vals = sorted(v for v, o in zip(w, ok) if o)
    if not vals:
        return 0.0, 0, False, None
    top = vals[-1]
    cand = next(k for k, (v, o) in enumerate(zip(w, ok)) if o and v == top)
    if len(vals) < 2:
        return 0.0, cand, True, None
    gaps = [b - a for a, b in pairwise(vals)]
    vul = max(gaps)
    return max(vul, 0.0), cand, True, vals[gaps.index(vul)]


class _SortedColumns:
    """Each column's scorable rows in ascending weighted order, brought up to date when next
    asked after a change: a few changed cells are taken out and put back by binary search
    (:meth:`changed`), a column changed wholesale is re-sorted from its previous order (a
    nearly-sorted sort, a linear pass of timsort; :meth:`resorted`), and RBA's lower cluster
    is re-sorted alone (:meth:`lower_prefix_changed`).  The sorted values are the same
    whatever the algorithm, so vulnerabilities are bit-for-bit those of a fresh sort;
    candidates and lower clusters are read from values, never from the order of equal
    values.
    """

    def __init__(self, W: np.ndarray, sc: np.ndarray):
        self.W, self.sc = W, sc
        self.rows: list[np.ndarray] = []
        self.vals: list[np.ndarray] = []
        for k in range(W.shape[1]):
            rows = np.flatnonzero(sc[:, k])
            vals = W[rows, k]
            p = np.argsort(vals, kind="stable")
            self.rows.append(rows[p])
            self.vals.append(vals[p])
        self.dirty = np.zeros(W.shape[1], dtype=bool)
        #: per column, the rows whose cell changed since it was sorted (None: many, re-sort)
        self.pending: list[list[int] | None] = [[] for _ in range(W.shape[1])]

    def changed(self, k: int, row: int) -> None:
        """The cell (row, k) changed value or stopped being scorable."""
        self.dirty[k] = True
        pend = self.pending[k]
        if pend is not None:
            if len(pend) < 4:
                pend.append(row)
            else:
                self.pending[k] = None

    def resorted(self, k: int) -> None:
        """Many cells of column k changed: sort it again when next asked."""
        self.dirty[k] = True
        self.pending[k] = None

    def sorted(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        if self.dirty[k]:
            rows, vals, pend = self.rows[k], self.vals[k], self.pending[k]
            if pend is None:
                rows = rows[self.sc[rows, k]]
                vals = self.W[rows, k]
                p = np.argsort(vals, kind="stable")
                rows, vals = rows[p], vals[p]
            else:  # a few cells: take each out and put it back where its new value sorts
                for r in pend:
                    keep = rows != r
                    rows, vals = rows[keep], vals[keep]
                    if self.sc[r, k]:
                        v = self.W[r, k]
                        at = int(np.searchsorted(vals, v))
                        rows = np.concatenate((rows[:at], [r], rows[at:]))
                        vals = np.concatenate((vals[:at], [v], vals[at:]))
            self.rows[k], self.vals[k] = rows, vals
            self.dirty[k] = False
            self.pending[k] = []
        return self.rows[k], self.vals[k]

    def lower_prefix_changed(self, k: int, m: int, gone: int) -> None:
        """RBA moved weight to the lower cluster of column k (the first ``m`` sorted rows, as
        :meth:`lower_rows` gave them, so the column was up to date) and dropped row ``gone``:
        those values only fell, so they stay below the rest, whose order holds; only the
        lower cluster is sorted again."""
        rows, vals = self.rows[k], self.vals[k]
        pre, rest, rest_vals = rows[:m], rows[m:], vals[m:]
        pre = pre[pre != gone]
        keep = rest != gone
        rest, rest_vals = rest[keep], rest_vals[keep]
        pv = self.W[pre, k]
        p = np.argsort(pv, kind="stable")
        self.rows[k] = np.concatenate((pre[p], rest))
        self.vals[k] = np.concatenate((pv[p], rest_vals))
        self.dirty[k] = False
        self.pending[k] = []

    def vulnerability(self, k: int) -> float:
        _, vals = self.sorted(k)
        return float(np.diff(vals).max()) if len(vals) >= 2 else 0.0

    def candidate(self, k: int) -> int:
        rows, vals = self.sorted(k)
        if not len(vals):
            return 0
        first = int(np.searchsorted(vals, vals[-1], side="left"))
        return int(rows[first:].min())  # the lowest row among equal maxima

    def lower_rows(self, k: int) -> np.ndarray:
        """The rows of column k's lower cluster: at or below its largest gap (the lowest of
        equal largest gaps); every scorable row under two cells."""
        rows, vals = self.sorted(k)
        if len(vals) < 2:
            return rows
        cut = int(np.argmax(np.diff(vals)))
        return rows[: int(np.searchsorted(vals, vals[cut], side="right"))]


def _grouping(state: _Table, method: str, threshold: float | None, limit: int,
              engine: str = "auto") -> EliminationResult:
    rba = method == "rba"
    D, nr, nc = state.D, state.nr, state.nc
    live, sc, rc, cc = state.live, state.scorable, state.rc, state.cc  # updated in place by drop
    if rba:
        WR = np.where(live, (1.0 / np.maximum(rc, 1))[:, None], np.nan)
        WC = np.where(live, (1.0 / np.maximum(cc, 1))[None, :], np.nan)
        if nr > nc:  # a step works down column j: keep columns contiguous
            WR, WC = np.asfortranarray(WR), np.asfortranarray(WC)
        W = D * (1.0 - WR) * (1.0 - WC)
        W[~live] = np.nan
    else:
        W = state.count_weighted()
        rf, cf = state.row_factor(), state.col_factor()
    initial = W.copy()
    NEG = -np.inf

    rv, rcand, rhas = _group_stats(W, sc)
    cv, ccand, chas = _group_stats(W.T, sc.T)
    columns = _SortedColumns(W, sc)
    init_rv, init_cv = rv.copy(), cv.copy()
    groups = nr + nc
    delta = float((rv.sum() + cv.sum()) / groups) if threshold is None and groups else (
        0.0 if threshold is None else float(threshold))
    # Lazy vulnerabilities: rv/cv may be stale by at most re/ce.
    re = np.zeros(nr)
    ce = np.zeros(nc)
    scale = float(np.abs(W[sc]).max()) if sc.any() else 1.0
    slack = 16 * np.finfo(np.float64).eps * max(scale, 1e-300)
    # Row groups, kept per row and updated only where something changed: whether the
    # candidate is valid (the last-cell rule), and for valid rows the lower bound of the
    # vulnerability (rlo), its upper bound when stale (rub) and its value when exact (rex).
    kernel = _compiled_kernel(engine, D.shape)
    if kernel is not None:
        return _grouping_compiled(kernel, state, method, delta, slack, limit, W, initial,
                                  WR if rba else None, WC if rba else None,
                                  None if rba else rf, None if rba else cf,
                                  rv, rcand, rhas, cv, ccand, chas, init_rv, init_cv)
    rok = rhas & (rc >= 2) & (cc[rcand] >= 2)
    rlo = np.where(rok, rv, NEG)
    rub = np.full(nr, NEG)
    rex = rlo.copy()

    def refresh(idx: np.ndarray, validity: bool = False) -> None:
        """Rows ``idx`` changed vulnerability, bound or (``validity``) candidate or counts.
        Many rows (a step changed most of a column): whole contiguous arrays are cheaper
        than gathering and scattering by index."""
        if len(idx) * 4 > nr:
            if validity:
                np.logical_and(rhas, rc >= 2, out=rok)
                np.logical_and(rok, cc[rcand] >= 2, out=rok)
            stale = re > 0
            rlo[:] = np.where(rok, rv - re, NEG)
            rub[:] = np.where(rok & stale, rv + re, NEG)
            rex[:] = np.where(rok & ~stale, rv, NEG)
            return
        if validity:
            rok[idx] = rhas[idx] & (rc[idx] >= 2) & (cc[rcand[idx]] >= 2)
        ok, v, e = rok[idx], rv[idx], re[idx]
        stale = e > 0
        rlo[idx] = np.where(ok, v - e, NEG)
        rub[idx] = np.where(ok & stale, v + e, NEG)
        rex[idx] = np.where(ok & ~stale, v, NEG)

    while len(state.eliminations) < limit:
        heartbeat(len(state.eliminations), "eliminations")  # a long table: progress, a chance to cancel
        cok = chas & (cc >= 2) & (rc[ccand] >= 2)
        # bring every group that might hold the maximum up to date
        lo = max(rlo.max(initial=NEG), np.where(cok, cv - ce, NEG).max(initial=NEG))
        if lo == NEG:
            break  # no valid group
        stale_r = np.flatnonzero(rub >= lo - slack)
        stale_c = np.flatnonzero(cok & (ce > 0) & (cv + ce >= lo - slack))
        if len(stale_r):
            rv[stale_r] = _group_stats(W[stale_r], sc[stale_r])[0]
            re[stale_r] = 0.0
            refresh(stale_r)
        for k in stale_c.tolist():
            cv[k] = columns.vulnerability(k)
            ce[k] = 0.0
        cvv = np.where(cok & (ce == 0), cv, NEG)
        vmax = max(rex.max(initial=NEG), cvv.max(initial=NEG))
        if not vmax > delta:
            break
        i, j, group = _pick(rex, rcand, cvv, ccand, vmax)
        state.record(i, j, W[i, j], vmax, group)
        old_row = W[i, :].copy()
        if rba:
            # split row i and column j with (i, j) still in them, current weighted values
            ok_i = sc[i, :].tolist()
            split = _row_split(W[i, :].tolist(), ok_i)[3]
            low_r = np.array(ok_i) if split is None else sc[i, :] & (np.where(sc[i, :], W[i, :], np.inf) <= split)
            low_r[j] = False
            changed = columns.lower_rows(j)
            m = len(changed)
            changed = changed[changed != i]
            state.drop(i, j)
            if not low_r.any():
                low_r = live[i, :].copy()
            whole = not len(changed)
            if whole:  # the lower cluster was (i, j) alone: the whole live column takes its weight
                changed = np.flatnonzero(live[:, j])
            Wj, WRj, WCj = W[:, j], WR[:, j], WC[:, j]  # views: one-dimensional gathers are cheaper
            WR[i, low_r] += WR[i, j] / low_r.sum()
            WCj[changed] += WC[i, j] / len(changed)
            WR[i, j] = WC[i, j] = np.nan
            old_col = Wj[changed]
            W[i, :] = D[i, :] * (1.0 - WR[i, :]) * (1.0 - WC[i, :])
            new_col = D[changed, j] * (1.0 - WRj[changed]) * (1.0 - WCj[changed])
            Wj[changed] = new_col
            if whole:
                columns.resorted(j)
            else:
                columns.lower_prefix_changed(j, m, i)
        else:
            old_col = W[:, j].copy()
            state.drop(i, j)
            rf[i] = 1.0 - 1.0 / max(rc[i], 1)
            cf[j] = 1.0 - 1.0 / max(cc[j], 1)
            W[i, :] = D[i, :] * rf[i] * cf
            W[:, j] = D[:, j] * rf * cf[j]
            W[~live[:, j], j] = np.nan
            changed, new_col = slice(None), W[:, j]
            columns.resorted(j)
        W[i, ~live[i]] = np.nan
        # Weights only grow, so a scorable weighted distance only shrinks: a group whose
        # candidate cell did not change keeps it; the others get a fresh argmax.
        if rba:
            moved_r = changed[rcand[changed] == j]
        else:
            moved_r = np.flatnonzero(rcand == j)
        if len(moved_r):
            rcand[moved_r] = np.argmax(np.where(sc[moved_r], W[moved_r], NEG), axis=1)
        moved_c = np.flatnonzero(ccand == i)
        if len(moved_c):
            ccand[moved_c] = np.argmax(np.where(sc[:, moved_c], W[:, moved_c], NEG), axis=0)
        # one value of each other row (column) moved by d: its largest gap by at most 2d
        with np.errstate(invalid="ignore"):
            d_col = np.abs(old_col - new_col)
            d_row = np.abs(old_row - W[i, :])
        hit = np.flatnonzero(d_col > 0) if rba and not whole else np.flatnonzero(sc[changed, j] & (d_col > 0))
        hit_r = hit if not rba else changed[hit]
        hit_c = np.flatnonzero(sc[i, :] & (d_row > 0))
        re[hit_r] += (2.0 * d_col[hit] + slack) * (1.0 + 1e-9)
        ce[hit_c] += (2.0 * d_row[hit_c] + slack) * (1.0 + 1e-9)
        for k in hit_c.tolist():
            if k != j:
                columns.changed(k, i)
        # row i and column j lost a cell: recompute them now
        rv[i], rcand[i], rhas[i], _ = _row_split(W[i, :].tolist(), sc[i, :].tolist())
        cv[j] = columns.vulnerability(j)
        ccand[j] = columns.candidate(j)
        chas[j] = len(columns.rows[j]) > 0
        re[i] = 0.0
        ce[j] = 0.0
        # validity changed where the candidate moved, in row i, and in every row whose
        # candidate sits in column j once that column is down to its last cell
        touched = [hit_r, moved_r, np.array([i])]
        if cc[j] == 1:
            touched.append(np.flatnonzero(rcand == j))
        refresh(np.concatenate(touched), validity=True)

    return _grouping_result(state, method, delta, initial, W, WR if rba else None, WC if rba else None,
                            init_rv, init_cv)


def _grouping_result(state: _Table, method: str, delta: float, initial, W, WR, WC, init_rv, init_cv):
    """GBA's or RBA's result, from the numpy loop or the compiled one: the weights are RBA's
    redistributed ones (``WR``/``WC``) or, for GBA, the live cells' counts."""
    if WR is not None:
        row_w = np.where(state.live, WR, np.nan)
        col_w = np.where(state.live, WC, np.nan)
    else:
        row_w, col_w = _count_weights(state, axis=1), _count_weights(state, axis=0)
    return state.result(method, delta, initial, W, row_weights=row_w, col_weights=col_w,
                        initial_row_vulnerability=init_rv, initial_col_vulnerability=init_cv)


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
    try:
        return importlib.import_module(_COMPILED_MODULE)
    except ImportError:
        if engine == "compiled":
            raise
        return None


#: eliminations per call of the compiled kernel, between two heartbeats
_CHUNK = 256


def _grouping_compiled(K, state: _Table, method: str, delta: float, slack: float, limit: int,
                       W, initial, WR, WC, rf, cf, rv, rcand, rhas, cv, ccand, chas,
                       init_rv, init_cv) -> EliminationResult:
    """:func:`_grouping`'s loop in the compiled kernel, from the same initial state, a chunk
    of eliminations at a time (a heartbeat between chunks: progress and a chance to cancel)."""
    rba = method == "rba"
    # Column-major throughout (one compiled specialisation): a step works down column j, and
    # only along row i's few cells.
    c = np.asfortranarray
    D = c(state.D)
    state.live, state.scorable = c(state.live), c(state.scorable)  # the kernel updates them
    live, sc = state.live, state.scorable
    W = c(W)
    none2, none1 = np.empty((2, 2), order="F"), np.empty(1)
    WR, WC = (c(WR), c(WC)) if rba else (none2, none2)
    rf, cf = (none1, none1) if rba else (c(rf), c(cf))
    rcand = rcand.astype(np.int64)
    ccand = ccand.astype(np.int64)
    re, ce = np.zeros(state.nr), np.zeros(state.nc)
    cvals, crows, ccnt = K.columns_sorted(W, sc)
    cap = int(sc.sum()) + 1
    out_i, out_j = np.zeros(cap, np.int64), np.zeros(cap, np.int64)
    out_w, out_v, out_kind = np.zeros(cap), np.zeros(cap), np.zeros(cap, np.int64)
    n_out = 0
    while n_out < limit:
        heartbeat(n_out, "eliminations")
        budget = min(_CHUNK, limit - n_out)
        n_new, finished = K._grouping_steps(
            rba, D, W, WR, WC, rf, cf, live, sc, state.rc, state.cc,
            rv, re, rcand, rhas, cv, ce, ccand, chas, cvals, crows, ccnt,
            float(delta), float(slack), budget, out_i, out_j, out_w, out_v, out_kind, n_out)
        for k in range(n_out, n_new):
            i, j = int(out_i[k]), int(out_j[k])
            state.record(i, j, out_w[k], out_v[k],
                         group_label("row", i) if out_kind[k] == 0 else group_label("col", j))
        n_out = n_new
        if finished:
            break
    return _grouping_result(state, method, delta, initial, W, WR if rba else None, WC if rba else None,
                            init_rv, init_cv)


def _redistribute(state: _Table, D, W, WR, WC, i: int, j: int, low_r: np.ndarray, low_c: np.ndarray) -> None:
    """RBA's elimination of (i, j) (ALGORITHMS.md §1): its row weight goes to the lower cluster of
    row i, its column weight to the lower cluster of column j (each split with (i, j) still in
    it; the whole live row or column when that cluster is empty), then the cell is dropped and
    row i and column j are weighted again."""
    low_r[j] = False
    low_c[i] = False
    state.drop(i, j)
    if not low_r.any():
        low_r = state.live[i, :].copy()
    if not low_c.any():
        low_c = state.live[:, j].copy()
    WR[i, low_r] += WR[i, j] / low_r.sum()
    WC[low_c, j] += WC[i, j] / low_c.sum()
    WR[i, j] = WC[i, j] = np.nan
    W[i, :] = D[i, :] * (1.0 - WR[i, :]) * (1.0 - WC[i, :])
    W[:, j] = D[:, j] * (1.0 - WR[:, j]) * (1.0 - WC[:, j])


def _pick(rvv, rcand, cvv, ccand, vmax) -> tuple[int, int, str]:
    """The group of vulnerability ``vmax`` whose candidate comes first (row, then column)."""
    rows = np.flatnonzero(rvv == vmax)
    cols = np.flatnonzero(cvv == vmax)
    if len(rows) + len(cols) == 1:
        if len(rows):
            r = int(rows[0])
            return r, int(rcand[r]), group_label("row", r)
        c = int(cols[0])
        return int(ccand[c]), c, group_label("col", c)
    cand_rows = np.concatenate([rows, ccand[cols]])
    cand_cols = np.concatenate([rcand[rows], cols])
    kind = np.concatenate([np.zeros(len(rows), np.int64), np.ones(len(cols), np.int64)])
    k = int(np.lexsort((kind, cand_cols, cand_rows))[0])
    if kind[k] == 0:
        return int(cand_rows[k]), int(cand_cols[k]), group_label("row", int(cand_rows[k]))
    return int(cand_rows[k]), int(cand_cols[k]), group_label("col", int(cand_cols[k]))
