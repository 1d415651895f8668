"""GBA and RBA: each step eliminates the candidate of the most vulnerable group, while that
vulnerability exceeds δ (RBA redistributes the eliminated cell's weights to the lower
clusters of its row and column).

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

import numpy as np

from semtui.attacks.setgen.eliminate.engine import _CHUNK, _compiled_kernel
from semtui.attacks.setgen.eliminate.labels import group_label
from semtui.attacks.setgen.eliminate.result import EliminationResult
from semtui.attacks.setgen.eliminate.state import _count_weights, _Table
from semtui.attacks.setgen.eliminate.vulnerability import _group_stats, _row_split, _SortedColumns
from semtui.runtime.progress import heartbeat


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
