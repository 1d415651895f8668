"""Re-association across a joint cluster (REFINE; ALGORITHMS.md §8): a shared chunk's
sub-records go to records of *any* member cluster.

A joint cluster is attacked as one more kernel task (:func:`semtui.attacks.reassociation.kernel.run_cluster`)
whose anchors are the anchors of all its member clusters, member after member (each member's
C1 sub-records, then its empty anchors), and whose units are the distinct non-empty sub-records
of its shared chunks with their multiplicity; a shared chunk obeys the record-chunk rule (a
transaction takes at most one sub-record of it), so ``assign``, RA and the budget-matched
baseline treat it as a record chunk.  The anchors stand for the transactions the member's own
cluster task aligned them with, so the joint placements extend the same reconstructed
transactions and are judged against the same truth; no second alignment favours the attack.
"""

from __future__ import annotations

from dataclasses import replace as dc_replace

import numpy as np

from semtui.attacks.reassociation.kernel import ClusterTask, add_distinct_units, run_cluster, with_reference
from semtui.attacks.reassociation.plan import _csr, _plan_cluster
from semtui.attacks.reassociation.results import JointMetrics, PlacedUnit, ReassocJoint
from semtui.metrics.reassociation import accuracy
from semtui.reports import json_float as _r


def _plan_joint(data, ji: int, members: list[int], anchors_of) -> dict:
    jc = data.joint_clusters[ji]
    anchors: list[np.ndarray] = []
    member_of: list[int] = []
    slot: list[int] = []     # the member's place in ``members``
    local: list[int] = []
    for i, ci in enumerate(members):
        a = anchors_of(ci)
        anchors += a
        member_of += [ci] * len(a)
        slot += [i] * len(a)
        local += list(range(len(a)))
    units: list[np.ndarray] = []
    unit_chunk: list[int] = []
    unit_count: list[int] = []
    unit_rows: list[list[int]] = []
    for s, ch in enumerate(jc.shared_chunks):
        add_distinct_units(ch, s, units, unit_chunk, unit_count, unit_rows)
    return {"members": members, "anchors": anchors, "member_of": np.asarray(member_of, dtype=np.int64),
            "slot": np.asarray(slot, dtype=np.int64),
            "local": np.asarray(local, dtype=np.int64), "units": units, "unit_chunk": unit_chunk,
            "unit_count": unit_count, "unit_rows": unit_rows}


def joint_output(ctx, ji: int, members: list[int], anchors_of, aligned: dict | None,
                 baseline: dict | None = None) -> dict:
    """Attack (and with the key, judge) joint cluster ``ji``, whose member clusters are
    ``members`` (their indices, in the order the joint cluster names them).  ``anchors_of(ci)``: cluster
    ``ci``'s anchors; ``aligned[ci]``: the transaction each of its anchors was aligned with by
    its own cluster task (-1: none); ``baseline``: the attack's budget-matched draws, taken
    where they are the same (:func:`.kernel.baseline_draws`).  With the key, ``_baseline``
    holds this run's draws."""
    data = ctx.data
    jc = data.joint_clusters[ji]
    p = _plan_joint(data, ji, members, anchors_of)
    n_vocab = len(data.vocab)
    a_ids = np.unique(np.concatenate(p["anchors"] + [np.zeros(0, np.int32)]).astype(np.int64))
    u_ids = np.unique(np.concatenate(p["units"] + [np.zeros(0, np.int32)]).astype(np.int64))
    a_loc = np.full(n_vocab, -1, dtype=np.int64)
    a_loc[a_ids] = np.arange(len(a_ids))
    u_loc = np.full(n_vocab, -1, dtype=np.int64)
    u_loc[u_ids] = np.arange(len(u_ids))
    anchor_ptr, anchor_terms = _csr(p["anchors"], a_loc)
    unit_ptr, unit_terms = _csr(p["units"], u_loc)
    n_anchors = len(p["anchors"])
    # a task index of its own (clusters take 0..n-1) so that its random streams are its own
    task = ClusterTask(
        index=_n_clusters(data) + ji, method=ctx.method, seed=ctx.seed, ties=ctx.ties, n_anchors=n_anchors,
        anchor_ptr=anchor_ptr, anchor_terms=anchor_terms, unit_ptr=unit_ptr, unit_terms=unit_terms,
        unit_chunk=np.asarray(p["unit_chunk"], dtype=np.int64), unit_count=np.asarray(p["unit_count"], dtype=np.int64),
        close=ctx.close[np.ix_(ctx.a_pos[a_ids], ctx.u_pos[u_ids])],
    )
    task.allowed = _allowed(data, p, n_anchors)
    jk = ctx.joint_key_of.get(jc.id) if ctx.key_of is not None else None
    if jk is not None and aligned is not None:
        task.anchor_truth = np.concatenate([aligned[ci] for ci in p["members"]] + [np.zeros(0, np.int64)]).astype(np.int64)
        task.anchor_class = np.arange(n_anchors, dtype=np.int64)   # aligned already: no second alignment
        task.unit_truth = [frozenset(jk.shared_chunks[s][r] for r in rows)
                           for s, rows in zip(p["unit_chunk"], p["unit_rows"])]
    res = run_cluster(task, baseline, ctx.judged)
    out = {"joint": ji, "members": p["members"], "member_of": p["member_of"], "local": p["local"],
           "place_unit": res.place_unit, "place_anchor": res.place_anchor, "units": p["units"],
           "n_units": len(p["units"]), "placements": len(res.place_unit)}
    if res.evaluation is not None:
        out["_baseline"] = res.evaluation["baseline"]
    if ctx.light and res.evaluation is None:
        return out
    names = data.vocab.names
    order = np.argsort(res.place_unit, kind="stable")
    by_unit = np.split(res.place_anchor[order], np.searchsorted(res.place_unit[order], np.arange(1, len(p["units"]))))
    cid = {ci: data.clusters[ci].id for ci in p["members"]}   # the members' only (a release may be on disk)
    ok = None   # with the key: per unit, whether each of its placements is on the right transaction
    if res.evaluation is not None:
        ok = np.split(res.evaluation["attack"]["correct"][order],
                      np.searchsorted(res.place_unit[order], np.arange(1, len(p["units"]))))
    units_out = []
    for u, unit in enumerate(p["units"]):
        sel = by_unit[u].tolist() if len(p["units"]) else []
        units_out.append(PlacedUnit(
            chunk=f"S{p['unit_chunk'][u] + 1}", items=tuple(names(unit)), count=int(p["unit_count"][u]),
            anchors=tuple((cid[int(p["member_of"][a])], int(p["local"][a])) for a in sel),
            correct=None if ok is None else tuple(bool(v) for v in ok[u].tolist())))
    entry = ReassocJoint(jc.id, tuple(jc.clusters), n_anchors, tuple(units_out))
    if res.evaluation is None:
        out["entry"] = entry
        return out
    at, bl = res.evaluation["attack"], res.evaluation["baseline"]
    mo, n_cl = p["slot"], len(p["members"])   # per member, in the order of ``members``
    held_t = np.fromiter((t for tr in task.unit_truth for t in tr), dtype=np.int64)
    out["eval"] = {
        "placements": np.bincount(mo[res.place_anchor], minlength=n_cl) if len(res.place_anchor) else np.zeros(n_cl),
        "correct": np.bincount(mo[res.place_anchor[at["correct"]]], minlength=n_cl),
        "b_correct": np.mean([np.bincount(mo[bp[bc]], minlength=n_cl)
                              for bp, bc in zip(bl["draw_anchors"], bl["correct_counts"])], axis=0),
        "held_t": held_t,
        "broken_set": at["broken_set"], "b_broken_sets": bl["broken_sets"],
        "recon": {label: _recon(e, p, task) for label, e in (("attack", {**at, "place_unit": res.place_unit,
                                                                         "place_anchor": res.place_anchor}),
                                                             ("baseline", bl))},
    }
    correct_n = int(at["correct"].sum())
    out["entry"] = dc_replace(entry, metrics=JointMetrics(
        placements=len(res.place_unit), correct=correct_n, accuracy=_r(accuracy(correct_n, len(res.place_unit))),
        baseline_accuracy=_r(accuracy(bl["mean_correct"], len(res.place_unit)))))
    return out


def run_joint(ctx, ref_ctx, ji: int, members: list[int], aligned_of, baselines=None) -> tuple[dict, dict | None]:
    """Joint cluster ``ji``'s attack output and, with the informed reference's context
    ``ref_ctx``, the reference's -- where its members' outputs are (the driver's merge, or the
    worker that ran its members' batch).  ``aligned_of(m, side)``: the transactions member
    ``m``'s anchors were aligned with by its own task (side 0 the attack, 1 the reference).
    ``baselines``: the :class:`.attack.Baselines` of earlier runs (the driver's), whose draws
    for this joint cluster are taken where they are the same, and which keeps this run's."""
    def anchors_of(ci: int) -> list[np.ndarray]:
        return _plan_cluster(ci, ctx.data.clusters[ci], ctx.term_placements).anchors

    def aligned(side: int) -> dict:
        return {m: np.asarray(aligned_of(m, side), dtype=np.int64) for m in members}

    earlier = baselines.joint.get(ji) if baselines is not None else None
    j, rj, drawn = with_reference(
        lambda bl: joint_output(ctx, ji, members, anchors_of, aligned(0) if ctx.key_of is not None else None, bl),
        None if ref_ctx is None else (lambda bl: joint_output(ref_ctx, ji, members, anchors_of, aligned(1), bl)),
        earlier)
    if baselines is not None and drawn is not None:
        baselines.keep(ji, None if drawn is earlier else drawn, joint=True)
    return j, rj


def _n_clusters(data) -> int:
    """The release's number of clusters (a worker's slice of it says so: it holds only some)."""
    n = getattr(data, "n_clusters", None)
    return len(data.clusters) if n is None else n


def _allowed(data, p: dict, n_anchors: int) -> np.ndarray:
    """anchors x units: a shared sub-record cannot belong to a member cluster that shows one
    of its items in its own record chunks or term chunk (each item of a cluster is in one
    place of the release) -- a rule the release itself tells every attacker."""
    from scipy.sparse import csr_matrix

    n_units = len(p["units"])
    if n_units == 0 or n_anchors == 0:
        return np.ones((n_anchors, n_units), dtype=bool)
    v = len(data.vocab)
    shown_rows, shown_items = [], []
    for i, ci in enumerate(p["members"]):
        c = data.clusters[ci]
        items = np.unique(np.concatenate([ch.items for ch in c.record_chunks] + [c.term_chunk,
                                                                                   np.zeros(0, np.int32)]))
        shown_rows.append(np.full(len(items), i, dtype=np.int64))
        shown_items.append(items.astype(np.int64))
    rows, cols = np.concatenate(shown_rows), np.concatenate(shown_items)
    shown = csr_matrix((np.ones(len(rows), dtype=np.int32), (rows, cols)), shape=(len(p["members"]), v))
    lens = np.fromiter((len(u) for u in p["units"]), dtype=np.int64, count=n_units)
    u_items = np.concatenate(p["units"]).astype(np.int64)
    units = csr_matrix((np.ones(len(u_items), dtype=np.int32), (np.repeat(np.arange(n_units), lens), u_items)),
                       shape=(n_units, v))
    clash = (shown @ units.T).toarray() > 0          # members x units
    return ~clash[p["slot"]]


def _recon(e: dict, p: dict, task) -> tuple[np.ndarray, np.ndarray]:
    """The reconstruction's (transaction, item) pairs: every placement's unit's items, in the order
    of the placements, on the transaction its anchor stands for (anchors of no transaction left
    out) -- as arrays, not an array a placement."""
    units = p["units"]
    lengths = np.fromiter(map(len, units), dtype=np.int64, count=len(units))
    flat = np.concatenate([np.asarray(u, dtype=np.int64) for u in units] + [np.zeros(0, dtype=np.int64)])
    starts = np.cumsum(lengths) - lengths
    trans = np.asarray(e["transactions"], dtype=np.int64)[np.asarray(e["place_anchor"], dtype=np.int64)]
    keep = trans >= 0
    placed = np.asarray(e["place_unit"], dtype=np.int64)[keep]
    n = lengths[placed]
    rows = np.repeat(trans[keep], n)
    offset = np.arange(int(n.sum()), dtype=np.int64) - np.repeat(np.cumsum(n) - n, n)
    return rows, flat[np.repeat(starts[placed], n) + offset]
