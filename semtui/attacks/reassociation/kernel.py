"""The per-cluster kernel of the re-association attack: a plain, picklable function of arrays.

For one cluster, :func:`cluster_scores` turns the closeness of every anchoring term to every
unit term (a *unit* is a distinct sub-record of a record chunk C2..Cn, with its multiplicity,
or a term-chunk term) into one score per (anchor, unit), as ALGORITHMS.md §2 reads the paper:
``r_a = mean_s S[a, s]`` over the unit's terms, then ABA = mean of ``r_a``, RGA = mean of the
``r_a >= median(r)``, MRA = max of ``r_a``; NBA (ALGORITHMS.md §7) the sum of the background's
log-lifts over both.  Closeness is the similarity, or minus the distance, so that higher is
always closer.  :func:`select` then gives each unit its anchors: the top
``count`` (stable: ties keep the anchoring chunk's order), an optimal assignment per record
chunk (``assign``), or a seeded random draw (``ra``).

:func:`run_cluster` runs both, and with the key evaluates the result (placements, their
correctness, the budget-matched random baseline and WMD).  Its randomness comes from a seed
derived from (seed, cluster index) only, so a run is the same serial or in worker processes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from semtui.metrics.reassociation import align_anchors, anchor_classes, budget_matched, truth_matrix, wmd_uniform
from semtui.runtime.memo import digest

TERM_CHUNK = -1

#: the random stream of tie-breaking (the baseline draws use streams 1..BASELINE_DRAWS)
TIES_STREAM = 1000

#: draws of the budget-matched random baseline per cluster
BASELINE_DRAWS = 5


def cluster_rng(seed: int, index: int, stream: int = 0) -> np.random.Generator:
    """The random generator of cluster ``index``: independent per cluster and stream,
    reproducible from the run's seed whatever the order clusters are run in."""
    return np.random.default_rng(np.random.SeedSequence([int(seed), int(index), int(stream)]))


@dataclass
class ClusterTask:
    """Everything one cluster's kernel needs, as arrays (no measure, no model objects)."""

    index: int
    method: str
    seed: int
    n_anchors: int
    anchor_ptr: np.ndarray        # CSR over anchors, into a_items (local ids)
    anchor_terms: np.ndarray
    unit_ptr: np.ndarray          # CSR over units, into u_items (local ids)
    unit_terms: np.ndarray
    unit_chunk: np.ndarray        # record chunk index (>= 1) or TERM_CHUNK
    unit_count: np.ndarray        # how many anchors each unit goes to
    close: np.ndarray             # len(a_items) x len(u_items), higher = closer, NaN = unknown
    ties: str = "first"           # "first" (the anchoring chunk's order) or "random" (seeded)
    # evaluation (None without the key)
    anchor_class: np.ndarray | None = None
    anchor_truth: np.ndarray | None = None
    unit_truth: list | None = None          # frozensets of transaction indices
    wmd_dist: np.ndarray | None = None      # distances over w_items (local), NaN unknown
    wmd_known: np.ndarray | None = None     # w_items the WMD measure knows
    w_items: np.ndarray | None = None       # the release vocabulary id of every w item
    truth: np.ndarray | None = None         # units x anchors: the anchor's transaction holds the unit
    a_to_w: np.ndarray | None = None
    u_to_w: np.ndarray | None = None
    orig: dict = field(default_factory=dict)  # transaction index -> its items (w ids)
    wmd_run: str = ""                       # the run's token: WMD memoised within one run only
    #: anchors x units: where the release's rules let a unit go (None: anywhere).  A joint
    #: cluster's shared sub-record cannot belong to a member that shows one of its items in
    #: its own chunks (each item of a cluster is in one place of the release)
    allowed: np.ndarray | None = None
    #: :func:`anchor_classes` of the anchors and ``truth`` (made with it, by the first evaluation)
    classes: list | None = None


@dataclass
class ClusterResult:
    index: int
    scores: np.ndarray            # n_anchors x n_units (closeness)
    place_unit: np.ndarray        # one entry per placement
    place_anchor: np.ndarray
    evaluation: dict | None = None


# --------------------------------------------------------------------------- scoring
def cluster_scores(close: np.ndarray, anchor_ptr: np.ndarray, anchor_terms: np.ndarray,
                   unit_ptr: np.ndarray, unit_terms: np.ndarray, method: str) -> np.ndarray:
    """Score of every (anchor, unit) under ABA, RGA or MRA (``assign`` and ``ra`` use ABA's);
    NaN where nothing can be scored (an empty anchor, unknown terms).  Under NBA ``close`` holds
    log-lifts ``log P(s | a) / P(s)`` and the score is their sum over the anchor's and the unit's
    terms: the naive-Bayes log-likelihood ratio that the unit belongs with the anchor (0, no
    evidence, for an empty anchor)."""
    n_anchors, n_units = len(anchor_ptr) - 1, len(unit_ptr) - 1
    if n_units == 0 or n_anchors == 0:
        return np.full((n_anchors, n_units), np.nan)
    # r[e, u]: mean closeness of anchor term entry e to the terms of unit u (unknown terms left out)
    block = close[np.ix_(anchor_terms, unit_terms)] if len(anchor_terms) else np.zeros((0, len(unit_terms)))
    finite = np.isfinite(block)
    starts = unit_ptr[:-1]
    with np.errstate(invalid="ignore", divide="ignore"):
        if block.shape[0]:
            sums = np.add.reduceat(np.where(finite, block, 0.0), starts, axis=1)
            counts = np.add.reduceat(finite.astype(np.int64), starts, axis=1)
            r = sums if method == "nba" else np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
        else:
            r = np.zeros((0, n_units))
        # pad to anchors x longest anchor x units
        lengths = np.diff(anchor_ptr)
        width = max(int(lengths.max(initial=0)), 1)
        pos = np.arange(width)
        gather = np.where(pos[None, :] < lengths[:, None], anchor_ptr[:-1, None] + pos[None, :], len(r))
        padded = np.vstack([r, np.full((1, n_units), np.nan)])[gather]  # anchors x width x units
        valid = np.isfinite(padded)
        n_valid = valid.sum(axis=1)
        zeroed = np.where(valid, padded, 0.0)
        if method == "nba":
            out = zeroed.sum(axis=1)
        elif method == "mra":
            out = np.where(n_valid > 0, np.where(valid, padded, -np.inf).max(axis=1), np.nan)
        elif method == "rga":
            med = _nanmedian_axis1(padded, valid, n_valid)
            related = valid & (padded >= med[:, None, :])
            n_rel = related.sum(axis=1)
            out = np.where(n_rel > 0, np.where(related, padded, 0.0).sum(axis=1) / np.maximum(n_rel, 1), np.nan)
        else:
            out = np.where(n_valid > 0, zeroed.sum(axis=1) / np.maximum(n_valid, 1), np.nan)
    return out


def _nanmedian_axis1(padded: np.ndarray, valid: np.ndarray, n_valid: np.ndarray) -> np.ndarray:
    """Median over axis 1 of the valid entries (the paper's eq. 2), without warnings."""
    filled = np.where(valid, padded, np.inf)
    srt = np.sort(filled, axis=1)
    n = n_valid
    lo = np.clip((n - 1) // 2, 0, None)
    hi = np.clip(n // 2, 0, None)
    a = np.take_along_axis(srt, lo[:, None, :], axis=1)[:, 0, :]
    b = np.take_along_axis(srt, hi[:, None, :], axis=1)[:, 0, :]
    with np.errstate(invalid="ignore"):
        return np.where(n > 0, (a + b) / 2, np.nan)


# --------------------------------------------------------------------------- selection
def top_anchors(scores: np.ndarray, counts: np.ndarray,
                rng: np.random.Generator | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Each unit u goes to its ``counts[u]`` best anchors; ties keep the anchoring chunk's order
    (the paper's tables), or with ``rng`` fall in a random order; unscorable anchors rank as a tie
    below every score.  Returns (unit, anchor) of every placement."""
    n_anchors, n_units = scores.shape
    filled = np.where(np.isfinite(scores), scores, -np.inf)
    if rng is None:
        order = np.argsort(-filled, axis=0, kind="stable")  # anchors x units, best first
    else:
        order = np.lexsort((rng.random(filled.shape), -filled), axis=0)
    take = np.minimum(counts, n_anchors)
    rank = np.arange(n_anchors)[:, None]
    mask = rank < take[None, :]
    unit_idx = np.broadcast_to(np.arange(n_units)[None, :], order.shape)
    # column-major so that placements are grouped by unit, best first
    return unit_idx.T[mask.T], order.T[mask.T]


def assign_anchors(scores: np.ndarray, counts: np.ndarray, chunks: np.ndarray,
                   rng: np.random.Generator | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Each record chunk as an optimal assignment: its sub-records, repeated by multiplicity, to
    distinct anchors, maximising the total score (a transaction holds at most one sub-record of a
    chunk).  Term-chunk terms go to their top anchors as in ABA."""
    from scipy.optimize import linear_sum_assignment

    n_anchors = scores.shape[0]
    units_out: list[np.ndarray] = []
    anchors_out: list[np.ndarray] = []
    finite = np.isfinite(scores)
    floor = (scores[finite].min() - 1.0) if finite.any() else 0.0
    filled = np.where(finite, scores, floor)
    for chunk in np.unique(chunks):
        units = np.flatnonzero(chunks == chunk)
        if chunk == TERM_CHUNK:
            u, a = top_anchors(scores[:, units], counts[units], rng)
            units_out.append(units[u])
            anchors_out.append(a)
            continue
        reps = np.repeat(units, np.minimum(counts[units], n_anchors))
        if len(reps) > n_anchors:
            reps = reps[:n_anchors]
        rows, cols = linear_sum_assignment(filled[:, reps].T, maximize=True)
        units_out.append(reps[rows])
        anchors_out.append(cols)
    if not units_out:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    u = np.concatenate(units_out)
    a = np.concatenate(anchors_out)
    order = np.lexsort((a, u))
    return u[order].astype(np.int64), a[order].astype(np.int64)


def random_anchors(n_anchors: int, counts: np.ndarray, chunks: np.ndarray,
                   rng: np.random.Generator, allowed: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The papers' random attack RA, respecting multiplicities: each record chunk's sub-records
    (repeated by multiplicity) go to distinct random anchors (a random injection), each term to
    ``count`` distinct random anchors."""
    units_out, anchors_out = [], []
    for chunk in np.unique(chunks):
        units = np.flatnonzero(chunks == chunk)
        if chunk == TERM_CHUNK:
            for u in units.tolist():
                c = min(int(counts[u]), n_anchors)
                units_out.append(np.full(c, u))
                anchors_out.append(np.sort(rng.choice(n_anchors, c, replace=False)))
            continue
        reps = np.repeat(units, np.minimum(counts[units], n_anchors))[:n_anchors]
        if allowed is None:
            units_out.append(reps)
            anchors_out.append(rng.permutation(n_anchors)[:len(reps)])
        else:
            from semtui.metrics.reassociation import masked_injection

            reps = reps[rng.permutation(len(reps))]
            units_out.append(reps)
            anchors_out.append(masked_injection(reps, allowed, n_anchors, rng))
    if not units_out:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    u = np.concatenate(units_out)
    a = np.concatenate(anchors_out)
    order = np.lexsort((a, u))
    return u[order].astype(np.int64), a[order].astype(np.int64)


def select(task: ClusterTask, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    rng = cluster_rng(task.seed, task.index, TIES_STREAM) if task.ties == "random" else None
    if task.method in ("aba", "rga", "mra", "nba"):
        return top_anchors(scores, task.unit_count, rng)
    if task.method == "assign":
        return assign_anchors(scores, task.unit_count, task.unit_chunk, rng)
    if task.method == "ra":
        return random_anchors(task.n_anchors, task.unit_count, task.unit_chunk, cluster_rng(task.seed, task.index),
                              task.allowed)
    raise ValueError(f"unknown method {task.method!r}")


# --------------------------------------------------------------------------- the kernel
def run_cluster(task: ClusterTask, baseline: dict | None = None, judged: dict | None = None) -> ClusterResult:
    """Score, select and (with the key) evaluate one cluster.  ``baseline``: the budget-matched
    baseline an earlier evaluation of this cluster drew (:func:`baseline_draws`), taken again
    where it is the very same draws.  ``judged``: earlier judgements of placements
    (:func:`judged_key` -> :func:`evaluate_placements`' result), taken where this cluster's
    placements, truth and WMD are the ones judged, and kept there."""
    scores = cluster_scores(task.close, task.anchor_ptr, task.anchor_terms, task.unit_ptr, task.unit_terms,
                            task.method if task.method in ("rga", "mra", "nba") else "aba")
    if task.allowed is None:
        place_unit, place_anchor = select(task, scores)
    else:
        # the release's rules first: an anchor a unit may not go to ranks below every other,
        # an unscorable one it may go to just below the scored ones
        finite = np.isfinite(scores)
        floor = (scores[finite].min() - 1.0) if finite.any() else 0.0
        place_unit, place_anchor = select(task, np.where(task.allowed, np.where(finite, scores, floor), -np.inf))
    evaluation = None
    if task.anchor_truth is not None:
        if judged is None:
            attack = evaluate_placements(task, place_unit, place_anchor)
        else:
            made_for = judged_key(task, place_unit, place_anchor)
            attack = judged.get(made_for)
            if attack is None:
                attack = judged[made_for] = evaluate_placements(task, place_unit, place_anchor)
            attack = dict(attack)   # a copy of the entries: the caller's to keep
        evaluation = {"attack": attack, "baseline": baseline_draws(task, place_unit, baseline)}
    return ClusterResult(task.index, scores, place_unit, place_anchor, evaluation)


def baseline_draws(task: ClusterTask, place_unit: np.ndarray, reuse: dict | None = None) -> dict:
    """The budget-matched random re-association of the cluster (ALGORITHMS.md §6), judged exactly
    as the attack (the same matching of identical anchors): correct placements and broken
    transactions averaged over BASELINE_DRAWS draws; WMD and the reconstruction (for k^m
    breakage) of the first draw.

    The draws depend on the attack only through its budget (how many placements each unit got):
    every method that places each unit as often (ABA, RGA, MRA, assign, RA and the informed
    reference, on a cluster without a joint part) gets the same draws.  ``reuse`` (an earlier
    result of this function) is returned as it is when it was drawn for the same cluster, seed,
    budget, truth and rules (:func:`drawn_for`), with WMD where this task needs it: the very
    draws this call would make, not an approximation of them."""
    budget = np.bincount(np.asarray(place_unit, dtype=np.int64), minlength=len(task.unit_chunk))
    made_for = drawn_for(task, budget)
    if reuse is not None and reuse["drawn_for"] == made_for and (reuse["with_wmd"] or task.wmd_dist is None):
        return reuse
    draws = []
    for r in range(BASELINE_DRAWS):
        bu, ba = budget_matched(task.n_anchors, place_unit, task.unit_chunk, cluster_rng(task.seed, task.index, 1 + r),
                                task.allowed)
        ev = evaluate_placements(task, bu, ba, with_wmd=r == 0)
        ev["place_unit"], ev["place_anchor"] = bu, ba
        draws.append(ev)
    baseline = draws[0]
    baseline["mean_correct"] = float(np.mean([int(d["correct"].sum()) for d in draws]))
    baseline["mean_broken"] = float(np.mean([d["broken"] for d in draws]))
    baseline["broken_sets"] = [d["broken_set"] for d in draws]
    baseline["correct_counts"] = [d["correct"] for d in draws]
    baseline["draw_anchors"] = [d["place_anchor"] for d in draws]
    baseline["drawn_for"] = made_for
    baseline["with_wmd"] = task.wmd_dist is not None
    return baseline


def with_reference(attack, reference, earlier: dict | None = None) -> tuple[dict, dict | None, dict | None]:
    """One cluster (or joint cluster) attacked and, with ``reference`` (the informed reference's
    run), referenced on one set of budget-matched draws: ``attack(baseline)`` takes ``earlier``
    where it fits (:func:`baseline_draws`), ``reference(baseline)`` the attack's.  Each returns its
    output with its draws under ``_baseline``; returns (the attack's output, the reference's or
    None, the attack's draws: None without the key)."""
    out = attack(earlier)
    drawn = out.pop("_baseline", None)
    ref = None
    if reference is not None:
        ref = reference(drawn)
        ref.pop("_baseline", None)
    return out, ref, drawn


def drawn_for(task: ClusterTask, budget: np.ndarray) -> tuple:
    """What a cluster's baseline draws depend on: the cluster, the seed, its anchors, and a
    128-bit digest of the budget, the units' chunks, the anchors' truth and classes and the
    release's rules (each array's type, shape and bytes)."""
    return (int(task.index), int(task.seed), int(task.n_anchors),
            digest(budget, task.unit_chunk, task.anchor_truth, task.anchor_class, task.allowed))


def judged_key(task: ClusterTask, place_unit: np.ndarray, place_anchor: np.ndarray) -> tuple:
    """What :func:`evaluate_placements` of a cluster's placements depends on: the cluster, whether
    WMD is measured, and a 128-bit digest of the placements and of the truth they are judged
    against (the anchors' transactions and classes: a joint cluster's come from its members'
    alignment, which differs between methods).  The methods of one assessment place most
    clusters alike (on disassociated MEPS RGA, MRA and assign make ABA's placements in 93-96 % of
    the clusters), so each such placement is judged once."""
    return int(task.index), task.wmd_dist is not None, digest(
        *(np.asarray(a, dtype=np.int64) for a in (place_unit, place_anchor, task.anchor_truth, task.anchor_class)))


def pack_baseline(bl: dict) -> tuple:
    """:func:`baseline_draws`' result as one int64 array, its parts' lengths and the scalars: a
    few objects to pickle (a worker sends it back, a later run's workers receive it), not 25."""
    arrays = [bl["transactions"], bl["place_unit"]]
    for r in range(len(bl["draw_anchors"])):
        arrays += [bl["correct_counts"][r], bl["broken_sets"][r], bl["draw_anchors"][r]]
    flat = np.concatenate([np.asarray(a, dtype=np.int64) for a in arrays])
    lengths = np.fromiter((len(a) for a in arrays), dtype=np.int64, count=len(arrays))
    scalars = (bl["mean_correct"], bl["mean_broken"], int(bl["broken"]), float(bl["wmd_sum"]), int(bl["wmd_n"]))
    return flat, lengths, scalars, bl["drawn_for"], bool(bl["with_wmd"])


def unpack_baseline(packed: tuple) -> dict:
    """The inverse of :func:`pack_baseline` (the arrays are views of the one array)."""
    flat, lengths, (mean_correct, mean_broken, broken, wmd_sum, wmd_n), made_for, with_wmd = packed
    parts = np.split(flat, np.cumsum(lengths)[:-1])
    transactions, place_unit, rest = parts[0], parts[1], parts[2:]
    correct = [c.astype(bool) for c in rest[0::3]]
    broken_sets, anchors = rest[1::3], rest[2::3]
    return {"transactions": transactions, "correct": correct[0], "broken": broken, "broken_set": broken_sets[0],
            "wmd_sum": wmd_sum, "wmd_n": wmd_n, "place_unit": place_unit, "place_anchor": anchors[0],
            "mean_correct": mean_correct, "mean_broken": mean_broken, "broken_sets": broken_sets,
            "correct_counts": correct, "draw_anchors": anchors, "drawn_for": made_for, "with_wmd": with_wmd}


#: WMD of (original bag, reconstructed bag) by release item ids, per process (a pure function)
_WMD_MEMO: dict[tuple, float] = {}


def evaluate_placements(task: ClusterTask, place_unit: np.ndarray, place_anchor: np.ndarray,
                        with_wmd: bool = True) -> dict:
    """Align the anchors to their transactions and judge every placement against the key."""
    n = task.n_anchors
    n_units = len(task.unit_ptr) - 1
    if task.truth is None:
        task.truth = truth_matrix(task.anchor_truth, task.unit_truth)
        task.classes = anchor_classes(task.anchor_class, task.truth)
    truth = task.truth
    counts = np.bincount(np.asarray(place_anchor, dtype=np.int64) * n_units + place_unit,
                         minlength=n * n_units).astype(np.int32).reshape(n, n_units)
    perm = align_anchors(task.anchor_class, counts, truth, task.classes)
    trans = task.anchor_truth[perm]
    correct = truth[place_unit, perm[place_anchor]].astype(bool) if len(place_unit) else np.zeros(0, dtype=bool)
    broken = np.unique(trans[place_anchor[correct]])
    wmd_sum, wmd_n = 0.0, 0
    if task.wmd_dist is not None and with_wmd:
        order = np.argsort(place_anchor, kind="stable")
        placed = np.split(place_unit[order], np.searchsorted(place_anchor[order], np.arange(1, n)))
        for a in range(n):
            t = int(trans[a])
            if t < 0 or t not in task.orig:
                continue
            rec = np.unique(np.concatenate(
                [task.a_to_w[task.anchor_terms[task.anchor_ptr[a]:task.anchor_ptr[a + 1]]]]
                + [task.u_to_w[task.unit_terms[task.unit_ptr[u]:task.unit_ptr[u + 1]]] for u in placed[a].tolist()]
                + [np.zeros(0, dtype=np.int64)]))
            known = task.wmd_known
            o = task.orig[t]
            if not (known[o].all() and known[rec].all()):
                continue  # a bag with an unscored term has no WMD: dropping the term would understate it

            # the same pair of bags recurs (attack and baseline, repeated transactions): one solve
            # keyed by the run too: item ids mean other items in another release, and a process (a
            # test session, the TUI, a Dask worker) attacks many
            memo = (task.wmd_run, tuple(task.w_items[np.sort(o)].tolist()), tuple(task.w_items[rec].tolist()))
            d = _WMD_MEMO.get(memo)
            if d is None:
                d = wmd_uniform(o, rec, task.wmd_dist)
                if len(_WMD_MEMO) > 500_000:
                    _WMD_MEMO.clear()
                _WMD_MEMO[memo] = d
            if not math.isnan(d):
                wmd_sum += d
                wmd_n += 1
    return {"transactions": trans, "correct": correct, "broken": len(broken), "broken_set": broken,
            "wmd_sum": wmd_sum, "wmd_n": wmd_n}


def add_distinct_units(chunk, index: int, units: list, unit_chunk: list, unit_count: list,
                       unit_rows: list) -> None:
    """Append the distinct non-empty sub-records of ``chunk`` (a record or shared chunk, the
    ``index``-th of its kind) as units to place: each once, with its count and the chunk rows
    that hold it (a re-association places a multiset of sub-records, not each copy apart)."""
    for rows in chunk.distinct_rows():
        units.append(chunk.sub_record(rows[0]))
        unit_chunk.append(index)
        unit_count.append(len(rows))
        unit_rows.append(rows)
