"""GBA's and RBA's elimination loop as one compiled (numba) kernel, and WBA's as another.

Imported only by :func:`semtui.attacks.setgen.eliminate.engine._compiled_kernel` when a large enough
table is attacked and numba imports, never at import of semtui; each kernel is compiled on
its first call (or loaded from numba's on-disk cache, when a cache directory is writable).

The kernel runs the same loop as the numpy path in ``eliminate/`` (which stays the
reference and the fallback), on the same state (weighted table, weights or count factors,
live and scorable masks, counts, per-group vulnerability, candidate, drift bound), with the
same expressions in the same order: every weighted distance is ``D * (1 - WR) * (1 - WC)``
(RBA) or ``D * rf * cf`` (GBA) evaluated left to right, shares are ``W{R,C}[i, j] / n``, added
cell by cell; no fastmath, so no reassociation or contraction.  What differs is only how the
work is found:

* the whole-array reductions of a numpy step (largest lower bound, stale test, largest exact
  value and its ties, validity of every group's candidate) are one pass over the groups,
  with no temporary arrays;
* each column keeps its scorable rows sorted (``cvals``/``crows``); a changed cell moves to its
  place by swaps (its value only falls, usually a short way), RBA's lower cluster is re-sorted
  alone, GBA's factor change keeps the order (a checking insertion pass);
* rows are sorted in a small buffer when their vulnerability is needed exactly;
* WBA's per-column best eligible cell is found by a loop over the column, not a masked
  argmax.

Sorted values do not depend on the sorting algorithm, and candidates and lower clusters are
read from values (never from the order of equal values), so the results are bit-for-bit
those of the numpy path (tests compare the two and the direct transcription).
"""

from __future__ import annotations

import numpy as np

from semtui.attacks.setgen._compiled_sort import _jit
from semtui.attacks.setgen._compiled_sort import argsort as _argsort

NEG = -np.inf


@_jit
def _row_exact(W, sc, r, buf):
    """Row r's vulnerability, candidate (first largest scorable value), whether it has a
    scorable cell, and the value at its largest gap (the lowest of equal gaps; NaN under two
    cells); the same values as ``_row_split`` / ``_group_stats``."""
    nc = W.shape[1]
    n = 0
    top = 0.0
    cand = 0
    for k in range(nc):
        if sc[r, k]:
            v = W[r, k]
            if n == 0 or v > top:
                top = v
                cand = k
            # insertion into buf[:n], ascending
            q = n
            while q > 0 and buf[q - 1] > v:
                buf[q] = buf[q - 1]
                q -= 1
            buf[q] = v
            n += 1
    if n == 0:
        return 0.0, 0, False, np.nan
    if n < 2:
        return 0.0, cand, True, np.nan
    best = buf[1] - buf[0]
    at = 0
    for q in range(1, n - 1):
        g = buf[q + 1] - buf[q]
        if g > best:
            best = g
            at = q
    if 0.0 > best:
        best = 0.0
    return best, cand, True, buf[at]


@_jit
def _col_vul(cvals, ccnt, k):
    n = ccnt[k]
    if n < 2:
        return 0.0
    best = cvals[k, 1] - cvals[k, 0]
    for q in range(1, n - 1):
        g = cvals[k, q + 1] - cvals[k, q]
        if g > best:
            best = g
    return best


@_jit
def _col_cand(cvals, crows, ccnt, k):
    """The lowest row among column k's largest values (0 without any)."""
    n = ccnt[k]
    if n == 0:
        return 0
    top = cvals[k, n - 1]
    best = crows[k, n - 1]
    q = n - 2
    while q >= 0 and cvals[k, q] == top:
        if crows[k, q] < best:
            best = crows[k, q]
        q -= 1
    return best


@_jit
def _col_lower_count(cvals, ccnt, k):
    """How many of column k's sorted rows form its lower cluster: at or below its largest gap
    (the lowest of equal largest gaps); all of them under two cells."""
    n = ccnt[k]
    if n < 2:
        return n
    best = cvals[k, 1] - cvals[k, 0]
    cut = 0
    for q in range(1, n - 1):
        g = cvals[k, q + 1] - cvals[k, q]
        if g > best:
            best = g
            cut = q
    split = cvals[k, cut]
    m = cut + 1
    while m < n and cvals[k, m] <= split:
        m += 1
    return m


@_jit
def _col_build(W, sc, cvals, crows, ccnt, k):
    """Sort column k's scorable rows afresh."""
    nr = W.shape[0]
    n = 0
    for r in range(nr):
        if sc[r, k]:
            crows[k, n] = r
            n += 1
    vals = np.empty(n)
    for q in range(n):
        vals[q] = W[crows[k, q], k]
    p = _argsort(vals)
    rows = crows[k, :n].copy()
    for q in range(n):
        cvals[k, q] = vals[p[q]]
        crows[k, q] = rows[p[q]]
    ccnt[k] = n


@_jit
def _col_find(cvals, crows, ccnt, k, r, v):
    """Position of row r (value v) in column k's sorted order."""
    n = ccnt[k]
    lo, hi = 0, n
    while lo < hi:  # leftmost position of v
        mid = (lo + hi) // 2
        if cvals[k, mid] < v:
            lo = mid + 1
        else:
            hi = mid
    p = lo
    while p < n and crows[k, p] != r:
        p += 1
    if p == n:  # not where its value says (cannot happen): look everywhere
        p = 0
        while p < n and crows[k, p] != r:
            p += 1
        if p == n:
            raise AssertionError("a scorable cell is missing from its column's sorted order")
    return p


@_jit
def _col_move(cvals, crows, ccnt, k, r, old, new, keep):
    """Cell (r, k) changed from ``old`` to ``new`` (``keep``: still scorable): move it to its
    place (or take it out) in column k's sorted order."""
    n = ccnt[k]
    p = _col_find(cvals, crows, ccnt, k, r, old)
    if not keep:
        for q in range(p, n - 1):
            cvals[k, q] = cvals[k, q + 1]
            crows[k, q] = crows[k, q + 1]
        ccnt[k] = n - 1
        return
    while p > 0 and cvals[k, p - 1] > new:
        cvals[k, p] = cvals[k, p - 1]
        crows[k, p] = crows[k, p - 1]
        p -= 1
    while p < n - 1 and cvals[k, p + 1] < new:
        cvals[k, p] = cvals[k, p + 1]
        crows[k, p] = crows[k, p + 1]
        p += 1
    cvals[k, p] = new
    crows[k, p] = r


@_jit
def _row_best(W, sc, r):
    """Row r's new candidate: its first largest scorable weighted distance (column 0 when none
    is scorable), as ``np.argmax`` over the scorable cells gives it."""
    best = NEG
    bk = 0
    for k in range(W.shape[1]):
        if sc[r, k] and W[r, k] > best:
            best = W[r, k]
            bk = k
    return bk


@_jit
def _count_drop(D, W, rf, cf, live, sc, rc, cc, i, j):
    """GBA's and WBA's elimination of (i, j): the cell leaves, row i's and column j's count
    factors change, and row i is weighted again (column j is each caller's: GBA also widens
    the rows' gap bounds there)."""
    live[i, j] = False
    sc[i, j] = False
    rc[i] -= 1
    cc[j] -= 1
    rf[i] = 1.0 - 1.0 / max(rc[i], 1)
    cf[j] = 1.0 - 1.0 / max(cc[j], 1)
    for k in range(W.shape[1]):
        W[i, k] = D[i, k] * rf[i] * cf[k]


@_jit
def _grouping_steps(rba, D, W, WR, WC, rf, cf, live, sc, rc, cc,
                    rv, re, rcand, rhas, cv, ce, ccand, chas, cvals, crows, ccnt,
                    delta, slack, budget, out_i, out_j, out_w, out_v, out_kind, n_out):
    """Up to ``budget`` eliminations from the state given; returns (eliminations so far,
    finished).  ``out_*[n_out:]`` receive each elimination's cell, weighted distance,
    vulnerability and group kind (0 row, 1 column)."""
    nr, nc = W.shape
    rbuf = np.empty(nc)
    old_row = np.empty(nc)
    low_r = np.zeros(nc, dtype=np.bool_)
    stale = np.empty(nr, dtype=np.int64)
    cok = np.zeros(nc, dtype=np.bool_)
    changed = np.empty(nr, dtype=np.int64)
    tmp_v = np.empty(nr)
    tmp_r = np.empty(nr, dtype=np.int64)
    grow = 1.0 + 1e-9
    done = 0
    while done < budget:
        # Validity of every group's candidate (the last-cell rule), the best lower bound
        # (lo), and the groups that must be brought up to date: the stale ones whose upper
        # bound reaches lo.  One pass over the rows: lo only grows while it runs, so a stale
        # row is kept aside if its bound reaches the lo seen so far (a superset of those that
        # reach the final one) and tested again once lo is known.  In the same pass, the
        # largest exact vulnerability; ties: the candidate that comes first (row, column), a
        # row group before a column group.
        lo = NEG
        for k in range(nc):
            ok = chas[k] and cc[k] >= 2 and rc[ccand[k]] >= 2
            cok[k] = ok
            if ok and cv[k] - ce[k] > lo:
                lo = cv[k] - ce[k]
        vmax = NEG
        # np.int64, not the literal -1: a literal makes numba compile each kernel called with it a second
        # time, specialised on the constant (22 compilations instead of 13 on a cold cache)
        bi, bj, bkind = np.int64(-1), np.int64(-1), np.int64(-1)
        n_st = 0
        for r in range(nr):
            if not (rhas[r] and rc[r] >= 2 and cc[rcand[r]] >= 2):
                continue
            v = rv[r]
            e = re[r]
            if v - e > lo:
                lo = v - e
            if e > 0:
                if v + e >= lo - slack:
                    stale[n_st] = r
                    n_st += 1
            elif v > vmax or (v == vmax and (r < bi or (r == bi and rcand[r] < bj))):
                vmax, bi, bj, bkind = v, r, rcand[r], 0
        if lo == NEG:
            return n_out, True
        thr = lo - slack
        for q in range(n_st):
            r = stale[q]
            if rv[r] + re[r] >= thr:
                v = _row_exact(W, sc, r, rbuf)[0]
                rv[r] = v
                re[r] = 0.0
                if v > vmax or (v == vmax and (r < bi or (r == bi and rcand[r] < bj))):
                    vmax, bi, bj, bkind = v, r, rcand[r], 0
        for k in range(nc):
            if cok[k]:
                if ce[k] > 0 and cv[k] + ce[k] >= thr:
                    cv[k] = _col_vul(cvals, ccnt, k)
                    ce[k] = 0.0
                if ce[k] == 0:
                    v = cv[k]
                    ci = ccand[k]
                    if v > vmax or (v == vmax and (ci < bi or (ci == bi and k < bj))):
                        vmax, bi, bj, bkind = v, ci, k, 1
        if not vmax > delta:
            return n_out, True
        i, j = bi, bj
        out_i[n_out] = i
        out_j[n_out] = j
        out_w[n_out] = W[i, j]
        out_v[n_out] = vmax
        out_kind[n_out] = bkind
        n_out += 1
        done += 1
        for k in range(nc):
            old_row[k] = W[i, k]
        if rba:
            # split row i and column j with (i, j) still in them, current weighted values
            split = _row_exact(W, sc, i, rbuf)[3]
            for k in range(nc):
                low_r[k] = sc[i, k] and (np.isnan(split) or W[i, k] <= split)
            low_r[j] = False
            m = _col_lower_count(cvals, ccnt, j)
            n_ch = 0
            for q in range(m):
                if crows[j, q] != i:
                    changed[n_ch] = crows[j, q]
                    n_ch += 1
            # drop (i, j)
            live[i, j] = False
            sc[i, j] = False
            rc[i] -= 1
            cc[j] -= 1
            n_low = 0
            for k in range(nc):
                if low_r[k]:
                    n_low += 1
            if n_low == 0:
                for k in range(nc):
                    low_r[k] = live[i, k]
                    if low_r[k]:
                        n_low += 1
            whole = n_ch == 0
            if whole:  # the lower cluster was (i, j) alone: the whole live column takes its weight
                for r in range(nr):
                    if live[r, j]:
                        changed[n_ch] = r
                        n_ch += 1
            share = WR[i, j] / n_low
            for k in range(nc):
                if low_r[k]:
                    WR[i, k] += share
            share_c = WC[i, j] / n_ch
            WR[i, j] = np.nan
            WC[i, j] = np.nan
            for k in range(nc):
                W[i, k] = D[i, k] * (1.0 - WR[i, k]) * (1.0 - WC[i, k])
                if not live[i, k]:
                    W[i, k] = np.nan
            # each cell of the lower cluster (never row i) takes its share, is weighted again,
            # widens its row's bound, and its row gets a new candidate if it was this cell
            for q in range(n_ch):
                r = changed[q]
                WC[r, j] += share_c
                old = W[r, j]
                new = D[r, j] * (1.0 - WR[r, j]) * (1.0 - WC[r, j])
                W[r, j] = new
                d = abs(old - new)
                if sc[r, j] and d > 0:
                    re[r] += (2.0 * d + slack) * grow
                if rcand[r] == j:
                    rcand[r] = _row_best(W, sc, r)
            # column j's sorted order: its lower cluster fell (and stays below the rest,
            # whose order holds) and row i left; re-sort the lower cluster alone
            if whole:
                _col_build(W, sc, cvals, crows, ccnt, j)
            else:
                nj = ccnt[j]
                t = 0
                moves = 0
                limit = 8 * m + 64
                for q in range(m):  # insertion from the old order: the values moved little
                    r = crows[j, q]
                    if r != i:
                        v = W[r, j]
                        at = t
                        while at > 0 and moves <= limit and cvals[j, at - 1] > v:
                            cvals[j, at] = cvals[j, at - 1]
                            crows[j, at] = crows[j, at - 1]
                            at -= 1
                            moves += 1
                        cvals[j, at] = v
                        crows[j, at] = r
                        t += 1
                if moves > limit:  # far from sorted after all: sort the lower cluster afresh
                    for q in range(t):
                        tmp_r[q] = crows[j, q]
                        tmp_v[q] = W[tmp_r[q], j]
                    perm = _argsort(tmp_v[:t])
                    for q in range(t):
                        crows[j, q] = tmp_r[perm[q]]
                        cvals[j, q] = tmp_v[perm[q]]
                for q in range(m, nj):
                    r = crows[j, q]
                    if r != i:
                        crows[j, t] = r
                        cvals[j, t] = cvals[j, q]
                        t += 1
                ccnt[j] = t
        else:
            old_j = W[i, j]
            _count_drop(D, W, rf, cf, live, sc, rc, cc, i, j)
            for r in range(nr):
                old = old_j if r == i else W[r, j]
                new = D[r, j] * rf[r] * cf[j]
                if not live[r, j]:
                    new = np.nan
                W[r, j] = new
                d = abs(old - new)
                if sc[r, j] and d > 0:
                    re[r] += (2.0 * d + slack) * grow
            for k in range(nc):
                if not live[i, k]:
                    W[i, k] = np.nan
            # column j: row i left, every value scaled by one factor (order kept): refresh
            # the values and check the order with an insertion pass
            nj = ccnt[j]
            t = 0
            for q in range(nj):
                r = crows[j, q]
                if r != i:
                    v = W[r, j]
                    at = t
                    while at > 0 and cvals[j, at - 1] > v:
                        cvals[j, at] = cvals[j, at - 1]
                        crows[j, at] = crows[j, at - 1]
                        at -= 1
                    cvals[j, at] = v
                    crows[j, at] = r
                    t += 1
            ccnt[j] = t
            for r in range(nr):
                if rcand[r] == j:
                    rcand[r] = _row_best(W, sc, r)
        # row i's other cells changed: their columns' bounds widen, their orders are patched
        for k in range(nc):
            if k != j and sc[i, k]:
                d = abs(old_row[k] - W[i, k])
                if d > 0:
                    ce[k] += (2.0 * d + slack) * grow
                    _col_move(cvals, crows, ccnt, k, i, old_row[k], W[i, k], True)
        for k in range(nc):
            if ccand[k] == i:
                ccand[k] = _col_cand(cvals, crows, ccnt, k)
        # row i and column j lost a cell: recompute them now
        v, c, h, _ = _row_exact(W, sc, i, rbuf)
        rv[i] = v
        rcand[i] = c
        rhas[i] = h
        re[i] = 0.0
        cv[j] = _col_vul(cvals, ccnt, j)
        ccand[j] = _col_cand(cvals, crows, ccnt, j)
        chas[j] = ccnt[j] > 0
        ce[j] = 0.0
    return n_out, False


def columns_sorted(W: np.ndarray, sc: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each column's scorable rows in ascending weighted order, as (values, rows, counts)."""
    nr, nc = W.shape
    cvals = np.empty((nc, nr))
    crows = np.empty((nc, nr), dtype=np.int64)
    ccnt = np.zeros(nc, dtype=np.int64)
    for k in range(nc):
        _col_build(W, sc, cvals, crows, ccnt, k)
    return cvals, crows, ccnt


@_jit
def _wba_col_best(W, sc, rc, cc, k):
    """Column k's largest eligible weighted distance and its row (the lowest of equal ones);
    (-inf, 0) when the column is down to one cell or has no eligible cell."""
    if cc[k] < 2:
        return NEG, 0
    best = NEG
    row = 0
    for r in range(W.shape[0]):
        if sc[r, k] and rc[r] >= 2 and W[r, k] > best:
            best = W[r, k]
            row = r
    return best, row


@_jit
def wba_best(W, sc, rc, cc, best, best_row):
    """Every column's largest eligible weighted distance (the start of WBA's loop)."""
    for k in range(W.shape[1]):
        best[k], best_row[k] = _wba_col_best(W, sc, rc, cc, k)


@_jit
def _wba_steps(D, W, rf, cf, live, sc, rc, cc, best, best_row, delta, budget, out_i, out_j, out_w, n_out):
    """Up to ``budget`` WBA eliminations (the numpy loop of ``_wba``, the same expressions);
    returns (eliminations so far, finished)."""
    nr, nc = W.shape
    done = 0
    while done < budget:
        vmax = NEG
        j = np.int64(-1)   # not the literal: see _grouping_steps
        for k in range(nc):  # the largest; ties: the lowest row, then the lowest column
            if best[k] > vmax or (best[k] == vmax and best_row[k] < best_row[j]):
                vmax = best[k]
                j = k
        if not vmax > delta:
            return n_out, True
        i = best_row[j]
        out_i[n_out] = i
        out_j[n_out] = j
        out_w[n_out] = W[i, j]
        n_out += 1
        done += 1
        _count_drop(D, W, rf, cf, live, sc, rc, cc, i, j)
        for r in range(nr):
            W[r, j] = D[r, j] * rf[r] * cf[j]
        for k in range(nc):
            if not live[i, k]:
                W[i, k] = np.nan
        for r in range(nr):
            if not live[r, j]:
                W[r, j] = np.nan
        for k in range(nc):
            if best_row[k] == i or k == j:
                best[k], best_row[k] = _wba_col_best(W, sc, rc, cc, k)
    return n_out, False
