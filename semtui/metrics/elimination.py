"""Metrics of an elimination attack on set-generalised data (ALGORITHMS.md §1 and §6).

Each metric is defined once here and used by the attack, the CLI and the TUI alike.  The
ground truth is the *original* transaction set: a member cell of a distance table is
*original* when the original transaction holds that member, *added* otherwise.
"""

from __future__ import annotations

import numpy as np

from semtui.metrics.intervals import Interval, bootstrap_weights, ratio_interval  # noqa: F401  (re-exported)
from semtui.model import TransactionData

#: What each figure of an attack report means, in one line (the CLI summary and the TUI show
#: these; docs/attacks.md says the same at length).
METRIC_HELP = {
    "precision": "share of eliminations that removed an item the generalisation added",
    "recall": "share of all added items eliminated (rows without context and unscorable members count as missed)",
    "recall_attackable": "share of the added items of rows that reach a distance table that were eliminated (the papers' reading)",
    "f1": "harmonic mean of precision and recall",
    "auc_within_table": "chance that, in one row of a distance table, an added member scores farther than an original one (0.5 = no signal)",
    "auc_pooled": "the same chance over all cells of all tables pooled (compares distances the paper calls not comparable)",
    "density_per_item": "for each occurrence of a generalised item, the share of its members that are original, averaged (the papers' Table I)",
    "density": "share of original cells among all member cells, pooled",
    "baseline": "a random attacker making the same number of eliminations in each row (seeded draws)",
    "error_ratio": "wrong eliminations as a share of the budget-matched random attacker's (below 1 beats chance)",
    "exposed": "member items now possible in fewer than k rows of their group",
    "reidentified": "rows left with a single possible member",
}


# --------------------------------------------------------------------------- ground truth
def align_original(data: TransactionData, original: TransactionData):
    """The original as a CSR (transactions x release vocabulary) and, for every generalised
    token of the release (in token order), how many of its members that transaction really
    holds.  The original belongs to the release line for line: that was checked where the
    release was opened (:func:`semtui.release.open_release`)."""
    orig = original.incidence(data.vocab)
    found = _members_held(data, orig)
    return orig, found


def _members_held(data: TransactionData, orig) -> np.ndarray:
    """For every generalised token (in token order): members of its item the original holds."""
    from scipy.sparse import csr_matrix

    gen = data.tokens < 0
    if not gen.any():
        return np.zeros(0, dtype=np.int64)
    g_of = np.repeat(np.arange(data.n_generalised), np.diff(data.gen_indptr))
    members = csr_matrix((np.ones(len(g_of), dtype=np.int32), (data.gen_members, g_of)),
                         shape=(len(data.vocab), data.n_generalised))
    hits = (orig @ members).tocsr()  # hits[i, g]: members of g that transaction i really holds
    rows = data.row_of_token()[gen]
    # never an empty index here (returned above): scipy answers an empty fancy index by a sparse matrix
    return np.asarray(hits[rows, -data.tokens[gen].astype(np.int64) - 1]).ravel().astype(np.int64)


#: the members of the generalised tokens, expanded, may be this many times the original's
#: entries (or EXPAND_FLOOR, ~40 MB of temporaries) before :func:`group_densities` takes the sparse
#: product instead (a k^m release's high nodes have hundreds of members and occur in most
#: transactions; COAT's groups on MEPS k = 3 expand to 4.5x the original's entries)
EXPAND_AT_MOST = 16
EXPAND_FLOOR = 1 << 20


def _members_held_by_search(data: TransactionData, original: TransactionData) -> np.ndarray | None:
    """:func:`_members_held` without scipy (the TUI's group list shows densities on its first
    screen, which need not wait ~0.1 s for scipy's import): every generalised token expanded to
    its members, each looked up among the original's sorted (row, item) codes
    (:meth:`~semtui.model.TransactionData.members_held`).  None when the expansion would be over
    :data:`EXPAND_AT_MOST` times the original's entries."""
    codes = original.incidence_codes(data.vocab)
    if data.member_expansion() > max(EXPAND_AT_MOST * len(codes), EXPAND_FLOOR):
        return None
    return data.members_held(codes).astype(np.int64)


def group_densities(data: TransactionData, original: TransactionData) -> np.ndarray:
    """Pooled density of every equivalence group (thesis Def. 16): the share of its member cells
    (rows x members) that are original items.  Needs no measure and no attack."""
    found = _members_held_by_search(data, original)
    if found is None:
        _, found = align_original(data, original)
    gs = -data.tokens[data.tokens < 0].astype(np.int64) - 1
    cells = data.group_sizes() * np.diff(data.gen_indptr)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.bincount(gs, weights=found.astype(np.float64), minlength=data.n_generalised) / cells


# --------------------------------------------------------------------------- single numbers
def precision(correct: float, eliminated: float) -> float | None:
    """Share of eliminations that removed an added item."""
    return correct / eliminated if eliminated else None


def recall(correct: float, added: float) -> float | None:
    """Share of the added items that were eliminated."""
    return correct / added if added else None


def f1(p: float | None, r: float | None) -> float | None:
    """Harmonic mean of precision and recall (0 when either is 0)."""
    if p is None or r is None:
        return None
    return 2 * p * r / (p + r) if p + r > 0 else 0.0


def prf(eliminated: int, added: int, correct: int) -> dict:
    """Counts with precision, recall and F1, as the reports hold them."""
    p, r = precision(correct, eliminated), recall(correct, added)
    return {"eliminated": eliminated, "added": added, "correct": correct,
            "precision": p, "recall": r, "f1": f1(p, r)}


def error_ratio(p: float | None, baseline_p: float | None) -> float | None:
    """(1 - precision) / (1 - baseline precision): a method's wrong eliminations as a share of a
    random attacker's with the same budget (below 1: better than chance)."""
    if p is None or baseline_p is None or baseline_p >= 1:
        return None
    return (1 - p) / (1 - baseline_p)


def auc(added: np.ndarray, original: np.ndarray) -> float | None:
    """Pooled AUC: P(an added cell's distance > an original cell's), ties counting one half."""
    added = added[np.isfinite(added)]
    original = original[np.isfinite(original)]
    if added.size == 0 or original.size == 0:
        return None
    # Mann-Whitney's U counted directly: for each added cell, the original cells below it and
    # half those equal to it (integers and halves: exact in float64, as the rank sum was; no
    # scipy.stats, whose import alone costs the merge more than half a second)
    rank, _ = tie_ranks(np.concatenate([added, original]))  # near-ties one value (TIE_RTOL)
    a_rank, o = rank[:added.size], np.sort(rank[added.size:])
    below = np.searchsorted(o, a_rank, side="left")
    upto = np.searchsorted(o, a_rank, side="right")
    u = float(below.sum()) + 0.5 * float((upto - below).sum())
    return float(u / (added.size * original.size))


#: two scores closer than this, relative to the larger, are one tie in an AUC: the same number
#: computed along two paths (a sum of logarithms in another order, another CPU's vectorised
#: logarithm) comes out equal on one machine and an ulp or two apart on another, and which it did
#: must not move a reported figure (the within-table AUC of the MEPS k^m release against a
#: background differed in its fifth digit between two 2-core machines before this)
TIE_RTOL = 1e-9
#: ... and two scores closer than this absolutely (near zero, where a relative ulp is no width)
TIE_ATOL = 1e-12


def new_ties(sorted_values: np.ndarray) -> np.ndarray:
    """For ascending ``sorted_values`` (finite): True where a value starts a new tie block, i.e.
    lies more than :data:`TIE_RTOL` (relative) and :data:`TIE_ATOL` above the one before it; the
    first always does."""
    s = sorted_values
    if s.size == 0:
        return np.zeros(0, dtype=bool)
    gap = np.diff(s) > TIE_RTOL * np.maximum(np.abs(s[1:]), np.abs(s[:-1])) + TIE_ATOL
    return np.concatenate(([True], gap))


def tie_ranks(values: np.ndarray) -> tuple[np.ndarray, int]:
    """Integer ranks of ``values`` (finite), one rank a tie block (:func:`new_ties`), and how
    many ranks there are."""
    v = np.asarray(values, dtype=np.float64).ravel()
    if v.size == 0:
        return np.zeros(0, dtype=np.int64), 0
    order = np.argsort(v, kind="stable")
    sorted_rank = np.cumsum(new_ties(v[order])) - 1
    rank = np.empty(v.size, dtype=np.int64)
    rank[order] = sorted_rank
    return rank, int(sorted_rank[-1]) + 1


def within_table_pairs(table: np.ndarray, truth: np.ndarray) -> tuple[float, int]:
    """For one distance table: ``(U, pairs)`` where ``pairs`` counts (added, original) cells of
    the same row (both scored) and ``U`` those where the added cell is farther (ties 1/2).  The
    AUC within table is ``sum(U) / sum(pairs)`` over tables (ALGORITHMS.md §6)."""
    if table.size == 0:
        return 0.0, 0
    scored = np.isfinite(table)
    a = scored & ~truth  # added cells
    o = scored & truth  # original cells
    n_a, n_o = a.sum(axis=1), o.sum(axis=1)
    pairs = int((n_a * n_o).sum())
    if pairs == 0:
        return 0.0, 0
    # per row, each added cell against the row's original cells, by binary search: the scored
    # values as integer ranks (equal values one rank), keyed row * R + rank and sorted, so that
    # one search over every row's original keys finds, within the added cell's own row, the
    # original cells below it and those equal to it (rows x cells, never rows x cells x cells)
    rank, n_ranks = tie_ranks(table[scored])
    ranks = np.zeros(table.shape, dtype=np.int64)
    ranks[scored] = rank
    r_span = np.int64(n_ranks + 1)
    row = np.arange(table.shape[0], dtype=np.int64)[:, None]
    keys = row * r_span + ranks
    o_keys = np.sort(keys[o])
    a_rows = np.broadcast_to(row, table.shape)[a]
    a_keys = keys[a]
    below = np.searchsorted(o_keys, a_keys, side="left") - np.searchsorted(o_keys, a_rows * r_span, side="left")
    equal = np.searchsorted(o_keys, a_keys, side="right") - np.searchsorted(o_keys, a_keys, side="left")
    # integers and halves: exact in float64 in any order
    return float(below.sum()) + 0.5 * float(equal.sum()), pairs


# --------------------------------------------------------------------------- budget-matched baseline
def budget_matched_eliminations(live_before: np.ndarray, scorable: np.ndarray, budget: np.ndarray,
                                rng: np.random.Generator, priority: np.ndarray | None = None) -> np.ndarray:
    """One draw of the budget-matched random attacker (ALGORITHMS.md §6) on one table: in row i
    eliminate ``budget[i]`` cells chosen uniformly among its scorable live cells, never the last
    live cell of a row or of a column.  Returns the bool mask of eliminated cells.

    Rows are drawn at once (random priorities, top ``budget[i]`` per row); a column emptied that
    way gets one cell back, and its row takes another eligible cell if one is left (rare: it only
    happens on tables with few rows).

    ``priority`` (rows x columns, larger first) replaces the random choice: the **popularity
    attacker** (ALGORITHMS.md §6) passes each member's surprisal in the background, so that it
    eliminates the rarest members with the same budget."""
    n_rows, n_cols = live_before.shape
    elig = live_before & scorable
    if priority is None:
        prio = np.where(elig, rng.random((n_rows, n_cols)), -1.0)
    else:  # ranks keep -1 below every eligible cell whatever the priorities' scale
        ranks = np.argsort(np.argsort(np.asarray(priority, dtype=np.float64), axis=1, kind="stable"), axis=1)
        prio = np.where(elig, ranks.astype(np.float64), -1.0)
    order = np.argsort(-prio, axis=1, kind="stable")
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.arange(n_cols)[None, :].repeat(n_rows, 0), axis=1)
    take = np.minimum(budget, np.maximum(live_before.sum(axis=1) - 1, 0))
    take = np.minimum(take, elig.sum(axis=1))
    out = (rank < take[:, None]) & elig
    live = live_before & ~out
    for j in np.flatnonzero((live.sum(axis=0) == 0) & (live_before.sum(axis=0) > 0)):
        # give column j one cell back: a random eliminated one; its row eliminates elsewhere
        cand = np.flatnonzero(out[:, j])
        i = int(cand[rng.integers(len(cand))])
        out[i, j] = False
        live[i, j] = True
        col_live = live.sum(axis=0)
        other = np.flatnonzero(elig[i] & live[i] & (col_live > 1))
        other = other[other != j]
        if other.size and live[i].sum() > 1:
            jj = int(other[rng.integers(len(other))])
            out[i, jj] = True
            live[i, jj] = False
    return out


# --------------------------------------------------------------------------- intervals
def pooled_auc_interval(values: np.ndarray, is_added: np.ndarray, unit: np.ndarray, weights: np.ndarray,
                        level: float = 0.95, chunk: int = 16) -> Interval | None:
    """Interval of the pooled AUC when whole units are resampled (weighted Mann-Whitney, ties
    half).  With few units, the statistic splits into a units x units matrix U[g, h] (added
    cells of g above original cells of h) computed once, and each resample is the quadratic
    form w U w; with many units, each cell weighs its unit's multiplicity over one sort."""
    keep = np.isfinite(values)
    values, is_added, unit = values[keep], is_added[keep], unit[keep]
    if weights.size == 0 or not is_added.any() or is_added.all():
        return None
    n_units = weights.shape[1]
    if n_units <= 1024:
        samples = _pooled_auc_by_units(values, is_added, unit, weights)
    else:
        samples = _pooled_auc_by_cells(values, is_added, unit, weights, chunk)
    if samples.size == 0:
        return None
    a = (1 - level) / 2
    return Interval(float(np.quantile(samples, a)), float(np.quantile(samples, 1 - a)), level, int(weights.shape[0]))


def _pooled_auc_by_units(values, is_added, unit, weights, per_pass: int = 1 << 15) -> np.ndarray:
    """Each resample's pooled AUC from ``U[g, h]``, the (added of g, original of h) pairs whose
    added value is above (ties one half).  ``U = n_added n_orig^T - L``, where ``L[g, h]`` sums,
    over the added cells of g, the original cells of h at their value or above (those at it
    halved): one pass over the tie blocks from the top down, each added cell reading a row of
    running counts.  Memory: ``per_pass`` blocks (and added cells) x units at a time."""
    from scipy.sparse import csr_matrix

    n_units = weights.shape[1]
    order = np.argsort(values, kind="stable")
    v, add, u = values[order], is_added[order], unit[order]
    block = np.cumsum(new_ties(v)) - 1  # tie blocks, ascending values
    n_blocks = int(block[-1]) + 1
    a_block, a_unit = block[add], u[add]  # both ascending in block
    o_block, o_unit = block[~add], u[~add]
    n_added = np.bincount(a_unit, minlength=n_units).astype(np.float64)
    n_orig = np.bincount(o_unit, minlength=n_units).astype(np.float64)
    L = np.zeros((n_units, n_units))
    later = np.zeros(n_units)  # originals of each unit in the blocks above this pass
    for hi in range(n_blocks, 0, -per_pass):
        lo = max(0, hi - per_pass)
        o_lo, o_hi = np.searchsorted(o_block, [lo, hi])
        counts = np.bincount((o_block[o_lo:o_hi] - lo) * n_units + o_unit[o_lo:o_hi],
                             minlength=(hi - lo) * n_units).reshape(hi - lo, n_units).astype(np.float64)
        at_or_above = np.cumsum(counts[::-1], axis=0)[::-1] + later
        later = at_or_above[0].copy()
        at_or_above -= 0.5 * counts  # an original at the added cell's own value counts one half
        a_lo, a_hi = np.searchsorted(a_block, [lo, hi])
        for c in range(a_lo, a_hi, per_pass):
            d = min(c + per_pass, a_hi)
            rows = at_or_above[a_block[c:d] - lo]  # added cells x units
            L += csr_matrix((np.ones(d - c), (a_unit[c:d], np.arange(d - c))), shape=(n_units, d - c)) @ rows
    U = np.outer(n_added, n_orig) - L
    u_stat = np.einsum("bg,gh,bh->b", weights, U, weights)
    denom = (weights @ n_added) * (weights @ n_orig)
    ok = denom > 0
    return u_stat[ok] / denom[ok]


def _pooled_auc_by_cells(values, is_added, unit, weights, chunk) -> np.ndarray:
    order = np.argsort(values, kind="stable")
    v, add, u = values[order], is_added[order], unit[order]
    # tie blocks: cells with equal values share a block
    new_block = new_ties(v)
    starts = np.flatnonzero(new_block)
    block = np.cumsum(new_block) - 1
    out = []
    for lo in range(0, weights.shape[0], chunk):
        w = weights[lo:lo + chunk][:, u]  # resamples x cells
        wo = np.where(add[None, :], 0.0, w)
        wa = np.where(add[None, :], w, 0.0)
        cum_o = np.cumsum(wo, axis=1)
        below_block = np.concatenate([np.zeros((w.shape[0], 1)), cum_o], axis=1)[:, starts]  # originals before each block
        in_block = np.add.reduceat(wo, starts, axis=1)
        below = below_block[:, block] + 0.5 * in_block[:, block]
        u_stat = (wa * below).sum(axis=1)
        denom = wa.sum(axis=1) * wo.sum(axis=1)
        ok = denom > 0
        out.append(u_stat[ok] / denom[ok])
    return np.concatenate(out) if out else np.zeros(0)
