"""The per-group kernel of the set-generalisation attack: one equivalence group in, its
distance table, eliminations and metric ingredients out.

A plain function of arrays (:func:`attack_group`), picklable with its inputs, so that the
runtime can run groups serially or in worker processes with the same result: its random
choices come from a seed derived from (run seed, group id) only.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from semtui.attacks.setgen.eliminate import compiled_preload, eliminate
from semtui.attacks.setgen.knowledge import Knowledge, combine, knowledge_table
from semtui.attacks.setgen.options import AUTO_METHODS, group_seed
from semtui.attacks.setgen.results import Elimination, GroupRow, GroupWriteUp
from semtui.attacks.setgen.tables import AggregateSpec, aggregate_table
from semtui.metrics.elimination import budget_matched_eliminations, within_table_pairs
from semtui.model import generalised_label
from semtui.reports import json_float
from semtui.runtime.progress import heartbeat

#: what a worker process imports before its first group (runtime.executor, runtime.cluster):
#: the compiled eliminator's module when it may run, so that each worker does not load it again
FORK_PRELOAD = compiled_preload()


@dataclass(frozen=True)
class Shared:
    """What every group of a run shares: the one batched score matrix and the run's settings."""

    names: list[str]  # vocabulary id -> item
    dist: np.ndarray  # distance of member position x context position
    member_pos: np.ndarray  # vocabulary id -> row of ``dist`` (-1: not a member)
    ctx_pos: np.ndarray  # vocabulary id -> column of ``dist`` (-1: not a context item)
    ctx_known: np.ndarray  # per column of ``dist``: the measure scores it
    method: str
    threshold: float | None
    seed: int | None
    aggregate: AggregateSpec
    k: int
    baseline_draws: int
    #: per cell of ``dist``: the measure had no score and put a stand-in (NGD's never
    #: co-occurring pairs); None when the measure never does
    capped: np.ndarray | None = None
    #: the attacker's background knowledge (``--background``), None for the papers' attack
    knowledge: Knowledge | None = None
    #: the table the eliminator runs on: ``semantics`` (the papers') or a knowledge variant
    variant: str = "semantics"
    #: the other variants measured beside it (with the original), same method and budget rules
    also: tuple[str, ...] = ()
    #: write each group's entry (its table, rows and eliminations); False: the figures only
    write_up: bool = True


@dataclass(frozen=True)
class GroupUnit:
    """One equivalence group: its members, its rows (all of them) with their contexts, and,
    with the original, which member cells are original."""

    group: int
    members: np.ndarray  # vocabulary ids
    rows: np.ndarray  # transaction indices
    lines: np.ndarray  # source line of each row
    ctx_indptr: np.ndarray
    ctx_items: np.ndarray  # vocabulary ids, CSR over rows
    truth: np.ndarray | None = None  # rows x members, bool
    #: each row's other generalised items (CSR over rows), for the knowledge attack
    gctx_indptr: np.ndarray | None = None
    gctx_items: np.ndarray | None = None

    @property
    def cost(self) -> int:
        """A guide to the kernel's time, for balancing work across processes.  The eliminators
        (RBA, GBA, WBA) spend it per elimination (~150 µs a step in numpy on MEPS), and a row
        that reaches a table -- one with a context item -- can lose at most all its members but
        one; a row without context (plain, or generalised for the knowledge attack) costs next
        to nothing.  So: such rows x (members - 1), plus the rows.  On MEPS k = 3 (RBA, 67
        groups, local:2) it halved the time one worker waited for the other at the end
        (0.74-0.81 s -> 0.32-0.47 s) against the previous guide, rows x (members + 3), which put
        the cheapest groups with the dearest (eliminations are 7-100 % of the scorable cells,
        unknown before the attack)."""
        n, m = len(self.rows), len(self.members)
        has_context = np.diff(self.ctx_indptr) > 0
        if self.gctx_indptr is not None:  # the knowledge attack also scores rows by their generalised context
            has_context |= np.diff(self.gctx_indptr) > 0
        return int(np.count_nonzero(has_context)) * max(m - 1, 1) + n


@dataclass
class GroupOutcome:
    """What the kernel found for one group: the group written up for the report (None when the
    attack runs for its figures only) plus the ingredients of the dataset-wide metrics (summed
    over groups by the merge)."""

    entry: GroupWriteUp | None
    n_members: int
    attacked_rows: int
    skipped_rows: int
    eliminated: int
    exposed: int
    reidentified: int
    # with the original only
    reidentified_correct: int = 0  # rows reduced to one member that is the row's own
    capped_eliminated: int = 0  # eliminations of cells that held a measure's stand-in, not a score
    added: int = 0
    correct: int = 0
    added_attackable: int = 0
    original_cells: int = 0
    cells: int = 0
    density_sum: float = 0.0  # sum over occurrences of the share of members that are original
    occurrences: int = 0
    within_u: float = 0.0
    within_pairs: int = 0
    baseline_eliminated: float = 0.0  # per draw, averaged
    baseline_correct: float = 0.0
    added_distances: np.ndarray = field(default_factory=lambda: np.zeros(0))
    original_distances: np.ndarray = field(default_factory=lambda: np.zeros(0))
    #: the popularity attacker (same budget per row, the rarest members in the background)
    popularity_eliminated: float = 0.0
    popularity_correct: float = 0.0
    #: the same attack with the other knowledge variants (metric ingredients only)
    variants: dict = field(default_factory=dict)
    #: with ``auto`` and the original: the other methods' outcomes on this group (AUTO_METHODS)
    candidates: dict = field(default_factory=dict)


def attack_group(shared: Shared, unit: GroupUnit) -> GroupOutcome:
    """Build the group's distance table, run the eliminator, measure what it did (and, with
    background knowledge and the original, the same for every other knowledge variant).

    With ``auto`` and the original, every method of :data:`AUTO_METHODS` runs on the same tables
    (built once, in ``memo``): the first method's outcome is returned, the others' in its
    ``candidates``; the merge picks one over the whole release.  Without the original, the first."""
    memo: dict = {}  # the semantic and background tables, built once for every variant and method
    if shared.method != "auto":
        return _attack_all(shared, unit, shared.method, memo)
    first, *others = AUTO_METHODS
    out = _attack_all(shared, unit, first, memo)
    if unit.truth is not None:
        out.candidates = {m: _attack_all(shared, unit, m, memo) for m in others}
    return out


def _attack_all(shared: Shared, unit: GroupUnit, method: str, memo: dict) -> GroupOutcome:
    out = _attack(shared, unit, shared.variant, full=shared.write_up, memo=memo, method=method)
    if unit.truth is not None:
        out.variants = {v: _attack(shared, unit, v, full=False, memo=memo, method=method) for v in shared.also
                        if v != shared.variant}
    return out


def _semantic_table(shared: Shared, unit: GroupUnit):
    """The papers' table: rows with a context the measure knows, and the aggregated distances."""
    members = unit.members
    n_all = len(unit.rows)
    cpos = shared.ctx_pos[unit.ctx_items]
    known = shared.ctx_known[cpos] if len(cpos) else np.zeros(0, dtype=bool)
    seg = np.repeat(np.arange(n_all), np.diff(unit.ctx_indptr))
    kept_counts = np.bincount(seg[known], minlength=n_all)
    has_ctx = kept_counts > 0
    kept_ptr = np.zeros(int(has_ctx.sum()) + 1, dtype=np.int64)
    np.cumsum(kept_counts[has_ctx], out=kept_ptr[1:])
    block = shared.dist[shared.member_pos[members]][:, cpos[known]]
    table = aggregate_table(block, kept_ptr, shared.aggregate)
    # a cell all of whose context pairs are stand-ins carries no score of its own
    all_capped = None
    if shared.capped is not None:
        cblock = shared.capped[shared.member_pos[members]][:, cpos[known]].astype(np.float64)
        all_capped = aggregate_table(cblock, kept_ptr, AggregateSpec("min")) > 0 if cblock.size else None
    return has_ctx, kept_ptr, known, table, all_capped


def _attack(shared: Shared, unit: GroupUnit, variant: str, full: bool, memo: dict | None = None,
            method: str | None = None) -> GroupOutcome:
    names = shared.names
    members = unit.members
    n_all = len(unit.rows)
    memo = {} if memo is None else memo
    if "semantics" not in memo:
        memo["semantics"] = _semantic_table(shared, unit)
    has_ctx, kept_ptr, known, table, all_capped = memo["semantics"]
    if variant != "semantics" and shared.knowledge is not None:
        # every row is attacked with what the attacker has: the prior at least
        kind = "prior" if variant == "prior" else "background"
        if kind not in memo:
            gptr = unit.gctx_indptr if unit.gctx_indptr is not None else np.zeros(n_all + 1, dtype=np.int64)
            gitems = unit.gctx_items if unit.gctx_items is not None else np.zeros(0, dtype=np.int64)
            memo[kind] = knowledge_table(shared.knowledge, shared.member_pos[members],
                                         shared.ctx_pos[unit.ctx_items], unit.ctx_indptr, gitems, gptr, n_all, kind)
        ktable = memo[kind].copy()
        if variant == "combined" and has_ctx.any():
            ktable[has_ctx] = combine(ktable[has_ctx], table, shared.knowledge.semantic_weight)
        table, has_ctx, all_capped = ktable, np.ones(n_all, dtype=bool), None
        kept_ptr = unit.ctx_indptr
        known = np.ones(len(unit.ctx_items), dtype=bool)
    rows = unit.rows[has_ctx]
    method, threshold = method or shared.method, shared.threshold
    if variant == "semantics" and method == "pba":  # a measure's distances are no surprisals
        method, threshold = "tba", None
    if not full and (variant, method) in memo:  # the same lean run asked for by another method
        return memo[(variant, method)]
    result = eliminate(table, method, threshold=threshold, seed=group_seed(shared.seed, unit.group), lean=not full)
    elims = result.eliminations
    heartbeat(len(elims), "eliminations, measuring")
    e_rows, e_cols = result.eliminated_cells()
    possible = n_all - np.bincount(e_cols, minlength=len(members))
    exposed_cols = np.flatnonzero(possible < shared.k)
    # a row is reduced to one member when exactly one member is still possible in it:
    # live cells, plus cells the measure could not score (never eliminated)
    possible_cells = result.live | np.isnan(table)
    reidentified = int((possible_cells.sum(axis=1) == 1).sum()) if possible_cells.size else 0
    capped_eliminated = int(all_capped[e_rows, e_cols].sum()) if all_capped is not None else 0
    if not full:
        out = GroupOutcome(None, len(members), len(rows), n_all - len(rows), len(e_rows), len(exposed_cols),
                           reidentified, capped_eliminated=capped_eliminated)
        if unit.truth is not None:   # a variant (measured only with the original), or no write-up without it
            _measure(out, shared, unit, table, has_ctx, e_rows, e_cols, possible_cells, entry=False)
        memo[(variant, method)] = out
        return out

    member_names = [names[i] for i in members.tolist()]
    kept_items = unit.ctx_items[known]
    context_names = [names[i] for i in kept_items.tolist()]
    bounds = kept_ptr.tolist()
    row_entries = tuple(
        GroupRow(t, line, tuple(context_names[bounds[r]:bounds[r + 1]]))
        for r, (t, line) in enumerate(zip(rows.tolist(), unit.lines[has_ctx].tolist()))
    )
    heartbeat(len(elims), "eliminations, writing them up")
    capped = all_capped[e_rows, e_cols].tolist() if all_capped is not None else [None] * len(elims)
    elim_entries = tuple(
        Elimination(e.step, int(rows[e.row]), int(e.row), member_names[e.col], int(e.col), json_float(e.distance),
                    json_float(e.weighted), json_float(e.vulnerability), e.group, c)
        for e, c in zip(elims, capped)
    )
    heartbeat(len(elims), "eliminations, writing them up")
    exposed = tuple(member_names[j] for j in exposed_cols)
    entry = GroupWriteUp(
        id=unit.group, generalised_item=generalised_label(member_names), members=tuple(member_names), size=n_all,
        rows=row_entries, skipped=tuple(unit.rows[~has_ctx].tolist()),
        table=[[json_float(v) for v in row] for row in table.tolist()], threshold=json_float(result.threshold),
        eliminations=elim_entries, possible=dict(zip(member_names, possible.tolist())), exposed=exposed,
        reidentified_rows=reidentified,
        capped_cells=np.argwhere(all_capped).tolist() if all_capped is not None else None)
    out = GroupOutcome(entry, len(members), len(rows), n_all - len(rows), len(elims), len(exposed), reidentified,
                       capped_eliminated=capped_eliminated)
    heartbeat(len(elims), "eliminations, writing them up")
    if unit.truth is not None:
        _measure(out, shared, unit, table, has_ctx, e_rows, e_cols, possible_cells)
    return out


def _measure(out: GroupOutcome, shared: Shared, unit: GroupUnit, table: np.ndarray, has_ctx: np.ndarray,
             e_rows: np.ndarray, e_cols: np.ndarray, possible_cells: np.ndarray, entry: bool = True) -> None:
    """The metric ingredients of one group (metrics.elimination defines each); ``possible_cells``:
    the members still possible per row after the attack (the caller's, for its own count)."""
    from semtui.metrics.elimination import prf

    truth_all = unit.truth
    truth = truth_all[has_ctx]
    out.added = int((~truth_all).sum())
    out.added_attackable = int((~truth).sum())
    out.correct = int((~truth[e_rows, e_cols]).sum()) if len(e_rows) else 0
    out.original_cells = int(truth_all.sum())
    out.cells = int(truth_all.size)
    out.occurrences = len(truth_all)
    out.density_sum = float(truth_all.mean(axis=1).sum()) if truth_all.size else 0.0
    out.added_distances = table[~truth]
    out.original_distances = table[truth]
    out.within_u, out.within_pairs = within_table_pairs(table, truth)
    # a row reduced to one possible member is re-identified only when that member is its own
    one = possible_cells.sum(axis=1) == 1
    out.reidentified_correct = int((one & (possible_cells & truth).any(axis=1)).sum()) if possible_cells.size else 0
    if shared.baseline_draws and len(e_rows):
        budget = np.bincount(e_rows, minlength=table.shape[0])
        present = ~np.isnan(table)
        scorable = present & (table >= 0)
        rng = np.random.default_rng(np.random.SeedSequence([0 if shared.seed is None else shared.seed,
                                                            unit.group, 0xBA5E]))
        elim_b = correct_b = 0
        for _ in range(shared.baseline_draws):  # a few draws, each vectorised over the table
            heartbeat(0, "")
            mask = budget_matched_eliminations(present, scorable, budget, rng)
            elim_b += int(mask.sum())
            correct_b += int((mask & ~truth).sum())
        out.baseline_eliminated = elim_b / shared.baseline_draws
        out.baseline_correct = correct_b / shared.baseline_draws
    if shared.knowledge is not None and len(e_rows):
        # the popularity attacker: the same budget per row, the rarest members first
        budget = np.bincount(e_rows, minlength=table.shape[0])
        present = ~np.isnan(table)
        rare = np.broadcast_to(shared.knowledge.surprisal[shared.member_pos[unit.members]][None, :], table.shape)
        rng = np.random.default_rng(np.random.SeedSequence([unit.group, 0x9090]))
        mask = budget_matched_eliminations(present, present, budget, rng, priority=rare)
        out.popularity_eliminated = float(mask.sum())
        out.popularity_correct = float((mask & ~truth).sum())
    if not entry:
        return
    metrics = prf(out.eliminated, out.added, out.correct)
    metrics["recall_attackable"] = out.correct / out.added_attackable if out.added_attackable else None
    metrics["added_attackable"] = out.added_attackable
    from semtui.metrics.elimination import auc

    metrics["auc"] = auc(out.added_distances, out.original_distances)
    metrics["auc_within_table"] = out.within_u / out.within_pairs if out.within_pairs else None
    out.entry = replace(out.entry, original=truth.tolist(), reidentified_rows_correct=out.reidentified_correct,
                        density=json_float(truth_all.mean()) if truth_all.size else None,
                        metrics={key: json_float(v) if isinstance(v, float) else v for key, v in metrics.items()})
