"""What a re-association attack on disassociated data takes back (ALGORITHMS.md §2, §6).

The attacker's reconstruction is a set of *placements*: a unit (a sub-record of a record chunk
C2..Cn, or a term-chunk term) put into an anchor (a sub-record of the anchoring chunk C1).  The
private key says which transaction every sub-record and term came from, so each anchor has a true
transaction.  Anchors whose C1 sub-records are identical cannot be told apart by anyone, so within
such a class the anchors are matched to their transactions in the way that agrees best with the
reconstruction (:func:`align_anchors`, an assignment per class); a reconstruction equal to the
key then scores exactly 1.

Every function here is a plain function of arrays, so the per-cluster kernels can call them in
worker processes.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence

import numpy as np

from semtui.metrics.intervals import LEVEL, RESAMPLES


# --------------------------------------------------------------------------- alignment
def truth_matrix(anchor_truth: np.ndarray, unit_truth: Sequence[frozenset]) -> np.ndarray:
    """``H[u, b]``: whether the true transaction of anchor ``b`` really holds unit ``u``."""
    h = np.zeros((len(unit_truth), len(anchor_truth)), dtype=np.int32)
    pos = {int(t): b for b, t in enumerate(anchor_truth.tolist()) if t >= 0}
    for u, truth in enumerate(unit_truth):
        cols = [pos[t] for t in truth if t in pos]
        h[u, cols] = 1
    return h


def align_anchors(anchor_class: np.ndarray, placed: np.ndarray, truth: np.ndarray,
                  classes: list[np.ndarray] | None = None) -> np.ndarray:
    """For every anchor, the anchor whose true transaction it stands for, after matching the
    anchors of each class of identical C1 sub-records to that class's transactions so as to
    maximise correct placements (an assignment per class).

    ``placed[a, u]`` counts the placements of unit ``u`` in anchor ``a``; ``truth`` is
    :func:`truth_matrix`; ``classes``: :func:`anchor_classes` of the two, when the caller
    aligns many placements of one cluster (the attack and its baseline draws).
    """
    from scipy.optimize import linear_sum_assignment

    n = len(anchor_class)
    perm = np.arange(n)
    if n == 0:
        return perm
    # w = (placed @ truth)[members, members] per class -- correct placements if a stood for b --
    # computed class by class, and only where it can be non-zero: never the anchors x anchors
    # table of a whole cluster (MEPS x 16 has clusters of 15,744 identical anchors and nothing to
    # place, whose table alone was 1 GB)
    gets = placed.any(axis=1)                      # anchors given a placement
    for members in (anchor_classes(anchor_class, truth) if classes is None else classes):
        if not gets[members].any():
            continue
        w = placed[members] @ truth[:, members]
        if not w.any():
            continue
        rows, cols = linear_sum_assignment(w, maximize=True)
        perm[members[rows]] = members[cols]
    return perm


def anchor_classes(anchor_class: np.ndarray, truth: np.ndarray) -> list[np.ndarray]:
    """The classes of identical anchors :func:`align_anchors` may permute, in class order: those
    of two anchors or more of which some anchor's transaction holds a unit (what does not depend
    on the placements)."""
    holds = truth.any(axis=0)                      # anchors whose transaction holds some unit
    order = np.argsort(anchor_class, kind="stable")
    bounds = np.flatnonzero(np.diff(anchor_class[order])) + 1
    return [members for members in np.split(order, bounds) if len(members) >= 2 and holds[members].any()]


# --------------------------------------------------------------------------- the metrics
def accuracy(correct: int, placements: int) -> float | None:
    """Share of the attack's placements (unit into transaction) that put a unit into a transaction that really holds it."""
    return correct / placements if placements else None


def transaction_breakage(broken: int, transactions: int) -> float | None:
    """Share of transactions that received at least one correctly re-associated unit."""
    return broken / transactions if transactions else None


def km_breakage(exposed: int, protected: int) -> float | None:
    """Share of the itemsets of size 2..m with support in (0, k) in the original that the reconstruction puts together in a transaction that really holds them."""
    return exposed / protected if protected else None


def row_pairs(indptr: np.ndarray, items: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every pair of items within each CSR row, vectorised: (row, a, b) with a < b."""
    indptr = np.asarray(indptr, dtype=np.int64)
    lengths = np.diff(indptr)
    row = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
    items = np.asarray(items, dtype=np.int64)
    items = items[np.lexsort((items, row))]
    end = np.repeat(indptr[1:], lengths)
    pos = np.arange(len(items), dtype=np.int64)
    later = end - pos - 1
    first = np.repeat(pos, later)
    starts = np.repeat(np.cumsum(later) - later, later)
    second = first + np.arange(len(first), dtype=np.int64) - starts + 1
    return row[first], items[first], items[second]


def protected_itemsets(transactions: Sequence[Sequence[int]], k: int, m: int) -> dict[tuple, int]:
    """Itemsets of size 3..m with support in (0, k), counted by enumeration (only for m >= 3;
    pairs go through :func:`protected_pairs`)."""
    from itertools import combinations

    counts: dict[tuple, int] = {}
    for t in transactions:
        items = sorted(t)
        for size in range(3, m + 1):
            for c in combinations(items, size):
                counts[c] = counts.get(c, 0) + 1
    return {c: n for c, n in counts.items() if n < k}


def wmd_uniform(a: np.ndarray, b: np.ndarray, dist: np.ndarray) -> float:
    """Word Mover's Distance between two bags of words with uniform weights, exactly: both bags
    replicated to a common size L = lcm(|a|, |b|) and matched by an optimal assignment (the
    transport polytope with uniform marginals has its optima at scaled permutations)."""
    from scipy.optimize import linear_sum_assignment

    if len(a) == 0 or len(b) == 0:
        return math.nan
    if len(a) == len(b) and np.array_equal(np.sort(a), np.sort(b)):
        return 0.0
    cost = dist[np.ix_(a, b)]
    if len(a) == 1 or len(b) == 1:  # all the mass of one side goes to the single word
        return float(cost.mean())
    big = math.lcm(len(a), len(b))
    if big > 400:  # an LP would do; the assignment on a 400+ square is still exact but slow
        big = None
    if big is None:
        return _wmd_lp(cost)
    rep = np.repeat(np.repeat(cost, big // len(a), axis=0), big // len(b), axis=1)
    rows, cols = linear_sum_assignment(rep)
    return float(rep[rows, cols].sum() / big)


def _wmd_lp(cost: np.ndarray) -> float:
    """The same transport problem as a linear programme (for very unequal, long bags)."""
    from scipy.optimize import linprog

    na, nb = cost.shape
    a_eq = np.zeros((na + nb, na * nb))
    for i in range(na):
        a_eq[i, i * nb:(i + 1) * nb] = 1
    for j in range(nb):
        a_eq[na + j, j::nb] = 1
    b_eq = np.concatenate([np.full(na, 1 / na), np.full(nb, 1 / nb)])
    res = linprog(cost.ravel(), A_eq=a_eq, b_eq=b_eq, bounds=(0, None), method="highs")
    return float(res.fun)


# --------------------------------------------------------------------------- baseline
#: seconds a process spends in :func:`masked_injection`'s numpy loop before it loads the compiled
#: loop (numba: ~0.5 s to import, ~0.4 s to load the kernel from its cache, ~2 s to compile it the
#: first time): a small release never loads it, a large one pays at most this over loading at once
INJECTION_NUMPY_SECONDS = 1.0

_INJECTION: dict = {"spent": 0.0, "kernel": None, "failed": False}


def _injection_kernel():
    """The compiled masked injection once this process has spent :data:`INJECTION_NUMPY_SECONDS`
    in the numpy loop (and numba loads, and ``SEMTUI_NO_NUMBA`` does not turn it off); else None."""
    from semtui.runtime.compiled import numba_off

    got = _INJECTION
    if numba_off():
        return None
    if got["kernel"] is not None or got["failed"] or got["spent"] < INJECTION_NUMPY_SECONDS:
        return got["kernel"]
    try:
        from semtui.metrics._compiled_injection import masked_injection_kernel
    except Exception:   # numba cannot load here (not installed, broken): the numpy loop, the same draws
        got["failed"] = True
        return None
    got["kernel"] = masked_injection_kernel
    return masked_injection_kernel


def masked_injection(reps: np.ndarray, allowed: np.ndarray, n_anchors: int,
                     rng: np.random.Generator) -> np.ndarray:
    """Distinct random anchors for the placements ``reps`` (unit indices) of one chunk, each
    drawn among the anchors ``allowed[:, u]`` lets its unit go to (any unused one when none is
    left): a random injection under the release's rules, for a joint cluster's shared chunk,
    whose sub-record cannot belong to a member that shows one of its items elsewhere.  The draws
    depend on each other (the candidates on the anchors taken before): one draw per placement,
    in a numpy loop or, once a process has spent a while in it, the same loop compiled
    (:mod:`._compiled_injection`: the same draws from the same generator)."""
    allowed_t = np.ascontiguousarray(allowed.T)   # a unit's anchors as one contiguous row
    kernel = _injection_kernel()
    if kernel is not None:
        return kernel(np.asarray(reps, dtype=np.int64), allowed_t, int(n_anchors), rng)
    started = time.perf_counter()
    out = _masked_injection_loop(reps, allowed_t, n_anchors, rng)
    _INJECTION["spent"] += time.perf_counter() - started
    return out


def _masked_injection_loop(reps: np.ndarray, allowed_t: np.ndarray, n_anchors: int,
                           rng: np.random.Generator) -> np.ndarray:
    """:func:`masked_injection` in numpy, one draw per placement (the reference)."""
    free = np.ones(n_anchors, dtype=bool)
    here = np.empty(n_anchors, dtype=bool)
    out = np.empty(len(reps), dtype=np.int64)
    integers = rng.integers
    for i, u in enumerate(reps.tolist()):   # one draw per placement: the draws depend on each other
        np.logical_and(allowed_t[u], free, out=here)
        cand = here.nonzero()[0]
        if not len(cand):
            cand = free.nonzero()[0]
        a = int(cand[integers(len(cand))])
        free[a] = False
        out[i] = a
    return out


def budget_matched(n_anchors: int, place_unit: np.ndarray, unit_chunk: np.ndarray,
                   rng: np.random.Generator, allowed: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The budget-matched random re-association (ALGORITHMS.md §6): every unit gets as many
    anchors as the method under test gave it, at random, under the release's own rules — a unit
    never twice in one transaction, and a transaction takes at most one sub-record of each
    record chunk (``unit_chunk[u] >= 0``; the chunk's placements are a random injection into the
    anchors).  Term-chunk terms (``unit_chunk[u] < 0``) are drawn independently of each other.
    Returns (unit, anchor) of every placement, sorted by unit then anchor."""
    n_units = len(unit_chunk)
    budget = np.bincount(np.asarray(place_unit, dtype=np.int64), minlength=n_units)[:n_units]
    budget = np.minimum(budget, n_anchors)
    if n_anchors == 0 or not budget.any():
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    chunks = np.asarray(unit_chunk, dtype=np.int64)
    units_out, anchors_out = [], []
    for chunk in np.unique(chunks[budget > 0]).tolist():
        units = np.flatnonzero((chunks == chunk) & (budget > 0))
        if chunk >= 0:
            # one random injection of the chunk's placements (units repeated by budget) into the
            # anchors; a method never places more sub-records of a chunk than the cluster has
            # transactions, but if it did, the surplus goes to a fresh injection
            reps = np.repeat(units, budget[units])
            for start in range(0, len(reps), n_anchors):
                block = reps[start:start + n_anchors]
                if allowed is None:
                    units_out.append(block)
                    anchors_out.append(rng.permutation(n_anchors)[:len(block)])
                else:   # ``allowed`` (anchors x units): the anchors each unit may go to, drawn in random order
                    block = block[rng.permutation(len(block))]
                    units_out.append(block)
                    anchors_out.append(masked_injection(block, allowed, n_anchors, rng))
            continue
        # terms: a uniform random set of budget[u] distinct anchors each (argsort of uniform keys)
        order = np.argsort(rng.random((len(units), n_anchors)), axis=1)
        keep = np.arange(n_anchors)[None, :] < budget[units][:, None]
        units_out.append(np.broadcast_to(units[:, None], order.shape)[keep])
        anchors_out.append(order[keep])
    u = np.concatenate(units_out).astype(np.int64)
    a = np.concatenate(anchors_out).astype(np.int64)
    order = np.lexsort((a, u))
    return u[order], a[order]


#: most cells of the bootstrap's weights held at once (resamples x clusters, drawn as int64 and
#: turned to float64: 16 bytes each, 16 MB): up to 1,000 clusters one table; beyond, blocks of
#: resamples (the same draws)
BOOTSTRAP_BLOCK_CELLS = 1_000_000

#: clusters' figures read at once by :func:`bootstrap_ratios_of` (a release's per-cluster
#: table may be on disk: it is read a block of clusters at a time for each block of resamples)
BOOTSTRAP_ROWS = 65_536


def bootstrap_ratios(numerators: np.ndarray, denominators: np.ndarray, seed: int, rounds: int = RESAMPLES,
                     level: float = LEVEL) -> list[tuple[float, float] | None]:
    """:func:`bootstrap_ratios_of` over two ``clusters x metrics`` arrays held whole."""
    num = np.asarray(numerators, dtype=np.float64)
    den = np.asarray(denominators, dtype=np.float64)
    return bootstrap_ratios_of(len(num), num.shape[1], lambda lo, hi: (num[lo:hi], den[lo:hi]), seed, rounds, level)


def bootstrap_ratios_of(n: int, cols: int, read, seed: int, rounds: int = RESAMPLES,
                        level: float = LEVEL) -> list[tuple[float, float] | None]:
    """Seeded bootstrap over ``n`` clusters (:mod:`semtui.metrics.intervals`): for each of
    ``cols`` metrics, the central ``level`` interval of sum(numerator) / sum(denominator).
    ``read(lo, hi)``: clusters ``lo:hi``'s (numerators, denominators), ``(hi - lo) x cols``
    each, asked for a block of :data:`BOOTSTRAP_ROWS` clusters at a time (the figures need not
    be in memory).  The resamples are drawn a block at a time (the same draws as one ``rounds x
    clusters`` table, which a release of many clusters could not hold) and only their sums are
    kept; beyond :data:`BOOTSTRAP_BLOCK_CELLS` clusters, where one resample alone would outgrow
    a block, every resample is drawn a block of clusters at a time
    (:func:`~semtui.metrics.intervals.bootstrap_weight_columns`: the same distribution, other
    draws), so that nothing is held per cluster.  (Sums of a column of fractions -- WMD, the baseline's mean correct placements -- may
    then differ from a one-table product in the last bit, 1e-16 relative: BLAS may split the
    clusters differently; far below the report's 6 decimals.)  With fewer clusters than
    :data:`~semtui.metrics.intervals.MIN_UNITS_FOR_INTERVALS`, every interval is None
    (:func:`intervals_of` adds the reason)."""
    from semtui.metrics.intervals import (
        bootstrap_weight_blocks,
        bootstrap_weight_columns,
        interval_of_sums,
        no_interval_reason,
    )

    if no_interval_reason(n, "clusters"):  # too few clusters for an interval to mean anything
        return [None] * cols
    sums_n = np.zeros((rounds, cols))
    sums_d = np.zeros((rounds, cols))
    den_total = np.zeros(cols)
    if n > BOOTSTRAP_BLOCK_CELLS:
        # one resample over every cluster would outgrow a block: every resample drawn a block of
        # clusters at a time instead (the same distribution, other draws), the figures read once
        for lo, hi, w in bootstrap_weight_columns(n, rounds, seed, max(1, BOOTSTRAP_BLOCK_CELLS // rounds)):
            num, den = read(lo, hi)
            w = w.astype(np.float64)
            sums_n += w @ num
            sums_d += w @ den
            den_total += den.sum(axis=0)
    else:
        start = 0
        for w in bootstrap_weight_blocks(n, rounds, seed, max(1, BOOTSTRAP_BLOCK_CELLS // n)):
            for lo in range(0, n, BOOTSTRAP_ROWS):
                hi = min(n, lo + BOOTSTRAP_ROWS)
                num, den = read(lo, hi)
                sums_n[start:start + len(w)] += w[:, lo:hi] @ num
                sums_d[start:start + len(w)] += w[:, lo:hi] @ den
                if not start:
                    den_total += den.sum(axis=0)
            start += len(w)
    out: list[tuple[float, float] | None] = []
    for j in range(cols):
        iv = None if den_total[j] == 0 else interval_of_sums(sums_n[:, j], sums_d[:, j], level)
        out.append(None if iv is None else (iv.low, iv.high))
    return out


def interval_set(labels, ci: list, clusters: int, level: float = LEVEL, resamples: int = RESAMPLES):
    """A report's intervals, typed (:class:`~semtui.metrics.intervals.Intervals`): per label the
    interval of :func:`bootstrap_ratios_of` (drawn with ``level`` and ``resamples``, its
    defaults), or None; and, when there are too few clusters for any, the ``reason`` (the line
    every face prints instead of an interval).  The bounds are rounded as a document holds them
    (:func:`~semtui.reports.json_float`), so what the engine reads is what the report says."""
    from semtui.metrics.intervals import Interval, Intervals, no_interval_reason
    from semtui.reports import json_float

    return Intervals(tuple((lab, Interval(json_float(v[0]), json_float(v[1]), level, resamples) if v is not None
                            else None) for lab, v in zip(labels, ci)), no_interval_reason(clusters, "clusters"))


def intervals_of(labels, ci: list, clusters: int, level: float = LEVEL, resamples: int = RESAMPLES) -> dict:
    """:func:`interval_set` as a document holds it, in the one shape of every document,
    ``{"low", "high", "level", "resamples"}`` (:class:`~semtui.metrics.intervals.Interval`), with
    ``reason`` when there is none.  (``semtui-disassoc-report/1`` wrote ``[low, high]``.)"""
    return interval_set(labels, ci, clusters, level, resamples).to_json()
