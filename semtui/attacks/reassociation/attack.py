"""The re-association attack on a whole disassociated release (Alshuhail & Shao; ALGORITHMS.md
§2): plan -> score -> per-cluster kernel -> merge, run here.

* **plan** and **score**: :func:`semtui.attacks.reassociation.plan.plan_release`.
* **kernel**: :func:`semtui.attacks.reassociation.kernel.run_cluster`, serially, in worker
  processes (``jobs``) that receive precomputed score blocks, never a measure, or on a Dask
  cluster in batches of consecutive clusters streamed through the driver (:func:`_stream`);
  each cluster's output shaped for the report by :func:`_cluster_output`, joint clusters
  attacked by :mod:`.joint`.
* **merge**: :class:`semtui.attacks.reassociation.merge.Merger`, cluster by cluster as the
  outputs arrive: the report (``semtui-disassoc-report/1``, :mod:`.report`) and the
  reconstructed transactions.

With the key and the original, the report carries the metrics of
:mod:`semtui.metrics.reassociation`, a budget-matched random baseline and bootstrap intervals
over clusters.
"""

from __future__ import annotations

import contextlib
import math
import time
import uuid
from dataclasses import dataclass, field
from dataclasses import replace as dc_replace
from pathlib import Path
from typing import Any

import numpy as np

from semtui.attacks.reassociation.joint import run_joint
from semtui.attacks.reassociation.kernel import TERM_CHUNK, pack_baseline, run_cluster, unpack_baseline, with_reference
from semtui.attacks.reassociation.merge import Merger, reference_ctx
from semtui.attacks.reassociation.options import ReassociationOptions
from semtui.attacks.reassociation.plan import _build, _Context, _key_members, plan_release
from semtui.attacks.reassociation.report import Reassociation, _r
from semtui.attacks.reassociation.results import ClusterMetrics, PlacedUnit, ReassocCluster
from semtui.model import DisassociatedData, DisassociationKey, TransactionData


def run_reassociation(
    data: DisassociatedData,
    key: DisassociationKey | None = None,
    original: TransactionData | None = None,
    options: ReassociationOptions | None = None,
    *,
    measure: Any | None = None,
    wmd: Any | None = None,
    background: Any | None = None,
    progress=None,
    original_path: str | Path | None = None,
    sources: dict | None = None,
    batch_cost: float | None = None,
    baselines: Baselines | None = None,
) -> Reassociation:
    """Re-associate every cluster of ``data`` as ``options`` say; with ``key`` and ``original``,
    evaluate it.  ``measure`` / ``wmd`` override the measures the options name (an opened
    measure); ``sources`` names the files the run read (the report carries them).

    The clusters' outputs are merged as they arrive (:mod:`.merge`), so the run never holds all of
    them; with a scheduler the clusters go in batches of about ``batch_cost`` transactions
    (default: STREAM_COST, fewer on a small release; a smaller one for tests).  ``baselines``:
    the budget-matched draws of earlier runs on the same release, key and original (one
    :class:`Baselines` for every method of an assessment): a cluster takes them where they are
    the same draws, and this run's new ones are kept in it."""
    options = options or ReassociationOptions()
    progress = progress or (lambda done, total, message="": None)
    plan = plan_release(data, key, original, options, measure=measure, wmd=wmd, background=background,
                        progress=progress)
    from semtui.fileio import Spool

    on_disk = isinstance(data.clusters, Spool)
    kept = None
    # not on a cluster or for a release kept on disk: there the driver holds nothing per cluster
    if (baselines is not None and options.scheduler is None and not on_disk
            and baselines.fits(data, key, original, plan.meta)):
        kept = baselines
        plan.ctx.baselines = kept.drawn   # travels with the context, once to each worker
        # the same release and WMD measure: a process that runs several methods (an alternative's
        # worker, a run with one job) solves each pair of bags once for all of them
        plan.ctx.run = kept.token
        if options.jobs <= 1:
            # run here, one cluster after another: placements judged by an earlier method are
            # taken (in worker processes each would need the whole memo)
            plan.ctx.judged = kept.judged
    from semtui.runtime.cluster import session
    from semtui.runtime.scheduler import give_back_memory

    if options.scheduler is not None:  # the driver only streams from here: planning's temporaries go back
        give_back_memory()

    with session(options.scheduler):  # one cluster for the attack and its reference
        # a release kept on disk (a large one, on --scheduler): so is the report's per-cluster part
        merger = Merger(plan.ctx, plan.meta, spool=on_disk, baselines=kept)
        for ci, out, ref in _outputs(plan.ctx, options, progress, batch_cost):
            if kept is not None and "_baseline" in out:
                kept.keep(ci, out.pop("_baseline"))
            merger.add(ci, out, ref)
        result = merger.finish()
    if sources:  # the files the run read (data, key, original), named in the report
        result.report = dc_replace(result.report, sources={**result.report.sources, **sources})
    return result


@dataclass
class Baselines:
    """The budget-matched random draws of a release's clusters, kept between the re-associations
    of one release, key and original (``assess`` runs six methods on them).  The draws depend on
    a method only through how many placements it gives each unit, which ABA, RGA, MRA, assign
    and RA share on most clusters: a later run takes an earlier run's draws for a cluster where
    :func:`.kernel.baseline_draws` finds them drawn from the same budget, seed, truth and rules
    -- the same draws it would make, so every report is the one a run alone writes.  A joint
    cluster's (REFINE) truth is its members' alignment by each method, so its draws are taken
    only where two methods aligned its members alike; they are kept here, in the driver, which
    runs the joint clusters (never sent to a worker)."""

    release: Any
    key: Any
    original: Any
    drawn: dict = field(default_factory=dict)   # cluster index -> draws (:func:`.kernel.pack_baseline`)
    joint: dict = field(default_factory=dict)   # joint cluster index -> draws (:func:`.kernel.baseline_draws`)
    wmd_measure: str | None = None
    taken: int = 0                              # clusters that took earlier draws
    #: the judgements of the placements of earlier serial runs (:func:`.kernel.judged_key`)
    judged: dict = field(default_factory=dict)
    #: the runs' token for the kernels' WMD memo (item ids and the measure are the same in every run)
    token: str = field(default_factory=lambda: uuid.uuid4().hex)
    made: int = 0                               # clusters drawn anew

    def fits(self, data, key, original, meta: dict) -> bool:
        """Whether a run on these inputs may take and keep draws here (its first run decides the WMD measure)."""
        if not (data is self.release and key is self.key and original is self.original and key is not None):
            return False
        if self.made == self.taken == 0:   # the first run
            self.wmd_measure = meta.get("wmd_measure")
        return meta.get("wmd_measure") == self.wmd_measure

    def keep(self, index: int, drawn, *, joint: bool = False) -> None:
        """Cluster ``index``'s new draws (packed), or joint cluster ``index``'s (``joint``); None:
        it took the kept ones."""
        if drawn is None:
            self.taken += 1
        else:
            (self.joint if joint else self.drawn)[index] = drawn
            self.made += 1


#: transactions per batch of clusters a ``--scheduler`` run ships (fewer when the release is
#: small: about PER_WORKER batches a worker); the driver holds at most IN_FLIGHT batches a worker
STREAM_COST = 10_000
IN_FLIGHT = 3


def _cluster_outputs(ctx: _Context, ci: int) -> tuple[dict, dict | None]:
    """Cluster ``ci``'s output and, with the informed reference, the reference's (one task:
    the cluster's plan and truth are built where it runs, once for both).  The budget-matched
    baseline is drawn once for both, or taken from the run's :class:`Baselines` (an earlier
    method's), where it is the same draws (:func:`.kernel.baseline_draws`)."""
    earlier = ctx.baselines.get(ci) if ctx.baselines is not None else None
    if earlier is not None:
        earlier = unpack_baseline(earlier)
    out, ref, drawn = with_reference(lambda bl: _cluster_output(ctx, ci, bl),
                                     None if ctx.informed is None else
                                     (lambda bl: _cluster_output(reference_ctx(ctx), ci, bl)), earlier)
    if ctx.baselines is not None and drawn is not None:
        # for the driver's Baselines: new draws are kept for a later method; None says they were taken
        out["_baseline"] = None if drawn is earlier else pack_baseline(drawn)
    return out, ref


def _outputs(ctx: _Context, options: ReassociationOptions, progress, batch_cost: float | None = None):
    """``(index, output, reference output)`` of every cluster, in cluster order, as they are
    computed: here one after another, in ``jobs`` worker processes, or on the Dask cluster in
    batches of consecutive clusters streamed through the driver (:func:`_stream`)."""
    n = len(ctx.data.clusters)
    message = "re-associating"
    if options.scheduler is not None:
        yield from _stream(ctx, options.scheduler, progress, message, batch_cost)
        return
    if options.jobs > 1:
        from semtui.runtime import run_units

        got = run_units(_cluster_outputs, ctx, list(range(n)), jobs=options.jobs,
                        costs=[float(c.size) for c in ctx.data.clusters], progress=progress, message=message)
        for ci in range(n):
            out, ref = got[ci]
            got[ci] = None  # merged: no longer held here
            yield ci, out, ref
        return
    last = 0.0
    progress(0, n, message)
    for ci in range(n):
        out, ref = _cluster_outputs(ctx, ci)
        yield ci, out, ref
        now = time.monotonic()
        if now - last >= 0.05 or ci + 1 == n:
            last = now
            progress(ci + 1, n, message)


@dataclass
class _Slice:
    """The part of a release a batch of clusters needs on a worker: the vocabulary, those
    clusters and the joint clusters they make up whole (by index), and how many clusters the
    release has."""

    vocab: Any
    clusters: dict
    joint_clusters: dict = field(default_factory=dict)
    n_clusters: int = 0


#: a joint cluster whose members span more clusters than this is run on the driver (its
#: members' batches are not held together for it)
JOINT_SPAN = 2_000


def _stream(ctx: _Context, spec: str, progress, message: str, batch_cost: float | None):
    """The clusters on the Dask cluster ``spec``: what every cluster needs (the closeness
    scores, the informed reference's, WMD's distances, the vocabulary) is broadcast once; each
    batch of consecutive clusters travels with its own slice of the release, of the key and
    (for WMD) of the original, built only when it is submitted; results come back in cluster
    order, at most IN_FLIGHT batches a worker held at a time.  A batch never ends inside a
    joint cluster (REFINE) whose members span at most JOINT_SPAN clusters: its worker runs the
    joint cluster after its members, so the driver only merges it."""
    from semtui.fileio import drop_pages
    from semtui.runtime.cluster import session
    from semtui.runtime.scheduler import PER_WORKER, map_ordered, n_workers

    data = ctx.data
    evaluate = ctx.key_of is not None
    n = len(data.clusters)
    members = ctx.joint_members
    n_joint, first, last = len(members), members.first, members.last
    held = (last - first) < JOINT_SPAN      # run by the worker of its members' batch
    uncut = Spans(first[held], last[held])  # a batch ending at i would cut a joint cluster
    shared = dc_replace(ctx, data=_Slice(data.vocab, {}, {}, n), key_of={} if evaluate else None, x=None,
                        joint_key_of=None, joint_members=None)
    with session(spec) as client:
        # the clusters' sizes read twice from the release (nothing held per cluster)
        total = float(sum(c.size for c in data.clusters))
        target = batch_cost or max(1.0, min(STREAM_COST, total / (n_workers(client) * PER_WORKER)))
        groups = stream_costs((c.size for c in data.clusters), target, uncut, slack=JOINT_SPAN)
        # each held joint cluster goes with the batch holding its last member (and so all of them)
        starts = np.asarray([b.start for b in groups], dtype=np.int64)
        joint_batch = np.full(n_joint, -1, dtype=np.int64)
        if n_joint:
            at = np.searchsorted(starts, last, side="right") - 1
            inside = held & (first >= starts[at])
            joint_batch[inside] = at[inside]
        order = np.argsort(joint_batch, kind="stable")
        bounds = np.searchsorted(joint_batch[order], np.arange(len(groups) + 1))

        def parts():
            for g, b in enumerate(groups):
                clusters = {ci: data.clusters[ci] for ci in b}
                keys = {c.id: ctx.key_of[c.id] for c in clusters.values()} if evaluate else None
                rows = None
                if evaluate and ctx.wmd is not None:
                    x = ctx.x
                    ts = sorted({t for ck in keys.values() for t in _key_members(ck) if t >= 0})
                    rows = {t: x.indices[x.indptr[t]:x.indptr[t + 1]].copy() for t in ts}
                    drop_pages(x)  # a memory-mapped original: its pages are not held between batches
                joints = []
                for ji in order[bounds[g]:bounds[g + 1]].tolist():
                    jc = data.joint_clusters[ji]
                    jk = ctx.joint_key_of.get(jc.id) if evaluate else None
                    joints.append((ji, members[ji].tolist(), jc, jk))
                yield b, clusters, keys, rows, joints

        # closed as an interrupt leaves this frame, inside the session: the traceback holds the
        # frame, and the stream closed later, its client gone, printed "Exception ignored in"
        with contextlib.closing(map_ordered(_run_part, shared, parts(), spec=spec, in_flight=IN_FLIGHT,
                                            progress=progress, message=message, total=n,
                                            size_of=lambda part: len(part[0]))) as results:
            for b, (got, joints) in zip(groups, results):
                for ci, (out, ref) in zip(b, got):
                    if joints:   # with the batch's first cluster: the driver has them before they can run
                        out["joints"], joints = joints, None
                    yield ci, out, ref


def _run_part(shared: _Context, part) -> tuple[list, dict]:
    """On a worker: a batch of consecutive clusters, from its slice of the release, then the
    joint clusters they make up whole (``{joint index: (attack output, reference output)}``)."""
    indices, clusters, keys, rows, joints = part
    ctx = dc_replace(shared, data=_Slice(shared.data.vocab, clusters, {ji: jc for ji, _, jc, _ in joints},
                                         shared.data.n_clusters),
                     key_of=keys, x=rows, joint_key_of={jc.id: jk for _, _, jc, jk in joints if jk is not None})
    got = [_cluster_outputs(ctx, ci) for ci in indices]
    by_index = dict(zip(indices, got))
    ref_ctx = reference_ctx(ctx) if ctx.informed is not None else None

    def aligned_of(m: int, side: int):
        return by_index[m][side]["aligned" if side == 0 else "_aligned"]

    return got, {ji: run_joint(ctx, ref_ctx, ji, members, aligned_of) for ji, members, _, _ in joints}


def _cluster_output(ctx: _Context, ci: int, baseline: dict | None = None) -> dict:
    """Plan, attack and evaluate cluster ``ci``, and shape its part of the report (with the key,
    ``_baseline`` holds the budget-matched draws, for :func:`_cluster_outputs`).  ``baseline``:
    draws made before for this cluster, taken where they are the same (:func:`.kernel.run_cluster`)."""
    from semtui.metrics.reassociation import accuracy, transaction_breakage

    p, task = _build(ctx, ci)
    res = run_cluster(task, baseline, ctx.judged)
    if ctx.light:
        at, bl = res.evaluation["attack"], res.evaluation["baseline"]
        return {"placements": len(res.place_unit), "correct": int(at["correct"].sum()), "broken": at["broken"],
                "size": int(ctx.data.clusters[ci].size), "b_correct": bl["mean_correct"], "b_broken": bl["mean_broken"],
                "_aligned": at["transactions"], "_broken_set": at["broken_set"], "_b_broken_sets": bl["broken_sets"],
                "_baseline": bl}
    data = ctx.data
    names = data.vocab.names
    c = data.clusters[ci]
    rec_items: list[list[int]] = [list(a.tolist()) for a in p.anchors]
    order = np.argsort(res.place_unit, kind="stable")
    by_unit = np.split(res.place_anchor[order], np.searchsorted(res.place_unit[order], np.arange(1, len(p.units))))
    for u, unit in enumerate(p.units):
        for a in by_unit[u].tolist():
            rec_items[a].extend(unit.tolist())
    out = {"transactions": [] if ctx.summary_only else [names(dict.fromkeys(items)) for items in rec_items],
           "anchors": p.n_anchors, "units": len(p.units), "placements": len(res.place_unit)}
    ok = None   # with the key: per unit, whether each of its placements is on the right transaction
    if res.evaluation is not None:
        ok = np.split(res.evaluation["attack"]["correct"][order],
                      np.searchsorted(res.place_unit[order], np.arange(1, len(p.units))))
    if ctx.summary_only:  # a large release's report stays small: no placement, no transaction
        entry = ReassocCluster(c.id, int(c.size))
    else:
        score_rows = np.round((res.scores if ctx.kind == "similarity" else -res.scores).T, 4).tolist()
        units_out = tuple(PlacedUnit(
            chunk="term" if p.unit_chunk[u] == TERM_CHUNK else int(p.unit_chunk[u]) + 1,
            items=tuple(names(unit)),
            count=int(p.unit_count[u]),
            anchors=tuple(by_unit[u].tolist()),
            scores=tuple(v if math.isfinite(v) else None for v in score_rows[u]),
            correct=None if ok is None else tuple(bool(v) for v in ok[u].tolist()),
        ) for u, unit in enumerate(p.units))
        entry = ReassocCluster(c.id, int(c.size), tuple(tuple(names(a)) for a in p.anchors), units_out)
    if res.evaluation is None:
        out["cluster"] = entry
        return out
    at, bl = res.evaluation["attack"], res.evaluation["baseline"]
    counts = {
        "placements": len(res.place_unit), "correct": int(at["correct"].sum()),
        "held": sum(len(t) for t in task.unit_truth),
        "broken": at["broken"], "size": int(c.size), "wmd_sum": at["wmd_sum"], "wmd_n": at["wmd_n"],
        "b_correct": bl["mean_correct"], "b_broken": bl["mean_broken"],
        "b_wmd_sum": bl["wmd_sum"], "b_wmd_n": bl["wmd_n"],
    }
    recon = {}
    for label, e in (("attack", at), ("baseline", bl)):
        if label == "attack":
            per_anchor = rec_items
        else:
            per_anchor = [list(a.tolist()) for a in p.anchors]
            for u, a in zip(e["place_unit"].tolist(), e["place_anchor"].tolist()):
                per_anchor[a].extend(p.units[u].tolist())
        rows, items = [], []
        for a, its in enumerate(per_anchor):
            t = int(e["transactions"][a])
            if t >= 0 and its:
                rows.append(np.full(len(its), t, dtype=np.int64))
                items.append(np.asarray(its, dtype=np.int64))
        recon[label] = (np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64),
                        np.concatenate(items) if items else np.zeros(0, dtype=np.int64))
    # per anchor, the original transaction it was aligned with (-1: none)
    out["cluster"] = dc_replace(
        entry,
        anchor_transactions=None if ctx.summary_only else tuple(int(t) for t in at["transactions"].tolist()),
        metrics=ClusterMetrics(
            placements=counts["placements"], correct=counts["correct"],
            accuracy=_r(accuracy(counts["correct"], counts["placements"])),
            broken_transactions=int(at["broken"]),
            transaction_breakage=_r(transaction_breakage(at["broken"], c.size)),
            wmd=_r(at["wmd_sum"] / at["wmd_n"]) if at["wmd_n"] else None,
            baseline_accuracy=_r(accuracy(bl["mean_correct"], counts["placements"]))))
    out.update(counts=counts, recon=recon, truth=task.anchor_truth[task.anchor_truth >= 0],
               aligned=at["transactions"], broken_set=at["broken_set"], b_broken_sets=bl["broken_sets"],
               _baseline=bl)
    return out


class Spans:
    """``spans[i]``: whether ``first[j] <= i < last[j]`` for some j (a batch ending at cluster
    ``i`` would cut joint cluster j, whose members are ``first[j]..last[j]``), from the spans
    merged: nothing held per cluster."""

    def __init__(self, first: np.ndarray, last: np.ndarray):
        order = np.argsort(first, kind="stable")
        lo, hi = np.asarray(first, dtype=np.int64)[order], np.asarray(last, dtype=np.int64)[order]
        reach = np.maximum.accumulate(hi) if len(hi) else hi
        new = np.ones(len(lo), dtype=bool)
        new[1:] = lo[1:] > reach[:-1]           # a span starting past all before it opens a run
        starts = np.flatnonzero(new)
        self.lo = lo[starts]
        self.hi = np.maximum.reduceat(hi, starts) if len(starts) else hi

    def __getitem__(self, i: int) -> bool:
        at = int(np.searchsorted(self.lo, i, side="right")) - 1
        return at >= 0 and i < self.hi[at]


def stream_costs(sizes, target: float, uncut=None, slack: int = 0) -> list[range]:
    """Consecutive cluster indices in batches of about ``target`` transactions (in cluster
    order, so that the driver merges each batch as it comes back and closes its clusters), as
    ranges: nothing held per cluster.  ``uncut[i]``: no batch should end at cluster ``i`` (a
    joint cluster's members go in one batch, which runs it); a batch that reached its target
    goes on to the next cluster where it may end, but at most ``slack`` clusters further (a
    chain of joint clusters overlapping one another could forbid every cut; a joint cluster of
    fewer than ``slack`` clusters alone is never cut, and one that is cut runs on the driver)."""
    out: list[range] = []
    start = n = 0
    acc = 0.0
    reached = -1   # where the batch reached its target
    for i, s in enumerate(sizes):
        n = i + 1
        acc += s
        if acc >= target:
            if reached < 0:
                reached = i
            if uncut is None or not uncut[i] or i - reached >= slack:
                out.append(range(start, i + 1))
                start, acc, reached = i + 1, 0.0, -1
    if start < n:
        out.append(range(start, n))
    return out
