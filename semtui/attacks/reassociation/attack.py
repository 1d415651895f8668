"""The re-association attack on a whole disassociated release (Alshuhail & Shao; ALGORITHMS.md
§2): plan -> score -> per-cluster kernel -> merge.

* **plan**: per cluster, the *anchors* (the sub-records of the anchoring chunk C1, plus empty
  anchors when the cluster holds more transactions than C1 has sub-records) and the *units* to
  place (each distinct non-empty sub-record of C2..Cn with its multiplicity, each term-chunk term
  with ``term_placements`` places: the paper's ``k - 1``, Algorithm 3).
* **score**: one batched call to the measure, every C1 term against every unit term of the
  release; a similarity is used as is, a distance negated, so higher is closer throughout.
* **kernel**: :func:`semtui.attacks.reassociation.kernel.run_cluster`, serially or in worker
  processes (``jobs``) that receive precomputed score blocks, never a measure.
* **merge**: the report (``semtui-disassoc-report/1``) and the reconstructed transactions.

With the key and the original, the report carries the metrics of
:mod:`semtui.metrics.reassociation`, a budget-matched random baseline and bootstrap intervals
over clusters.
"""

from __future__ import annotations

import contextlib
import math
import time
from dataclasses import dataclass, field
from dataclasses import replace as dc_replace
from pathlib import Path
from typing import Any

import numpy as np

from semtui.attacks.reassociation.kernel import TERM_CHUNK, ClusterTask, add_distinct_units, run_cluster
from semtui.attacks.reassociation.options import BACKGROUND_METHODS, ReassociationOptions
from semtui.errors import InputError
from semtui.model import DisassociatedData, DisassociationKey, TransactionData
from semtui.model.transactions import column_counts

REPORT_FORMAT = "semtui-disassoc-report/1"
#: Most (C1 term, other term) pairs scored at once: 8 bytes each, held twice (BMS-WebView-2's
#: releases need about 1e7)
MAX_SCORE_CELLS = 50_000_000


@dataclass
class Reassociation:
    """The report and the reconstructed transactions (item names, cluster by cluster, anchor by anchor)."""

    report: dict
    transactions: list[list[str]]


@dataclass
class _Plan:
    cluster: int
    n_anchors: int
    anchors: list[np.ndarray]            # global item ids per anchor
    units: list[np.ndarray]              # global item ids per unit
    unit_chunk: list[int]
    unit_count: list[int]
    unit_rows: list[list[int]]           # which sub-records (or the term index) each unit stands for


#: Most transactions a release may describe for a re-association: each becomes an anchor row
#: and a reconstructed transaction (a list of item names)
MAX_ANCHORS = 20_000_000


def _check_fits(data: DisassociatedData, members) -> None:
    """A cluster's kernel holds an (anchors x units) score table, and every transaction becomes
    an anchor: refuse in one line, before anything is built, what cannot fit.  The reader
    bounds a cluster's size by its sub-records and (k - 1) per term; with a large declared k
    that is still only a claim, and this is where it would be allocated.  ``members``: each
    joint cluster's member clusters (:class:`semtui.attacks.reassociation.merge.JointMembers`)."""
    from array import array

    total = 0
    anchors_of = array("q")   # each cluster's anchors, by index (a release on disk: no dict of ids)
    for c in data.clusters:
        first = len(c.record_chunks[0]) if c.record_chunks else 0
        n_anchors = max(int(c.size), first)
        anchors_of.append(n_anchors)
        units = sum(len(ch) for ch in c.record_chunks[1:]) + len(c.term_chunk)
        total += n_anchors
        if n_anchors * max(units, 1) > MAX_SCORE_CELLS or total > MAX_ANCHORS:
            raise InputError(
                f"cluster {c.id!r} describes {c.size:,} transactions and {units:,} sub-records and terms to place: "
                f"{n_anchors * max(units, 1):,} scores ({total:,} transactions so far), more than fit in memory "
                f"(at most {MAX_SCORE_CELLS:,} scores per cluster and {MAX_ANCHORS:,} transactions)")
    anchors = np.frombuffer(anchors_of, dtype=np.int64) if len(anchors_of) else np.zeros(0, dtype=np.int64)
    for ji, j in enumerate(data.joint_clusters):
        n_anchors = int(anchors[members[ji]].sum())
        units = sum(len(ch) for ch in j.shared_chunks)
        if n_anchors * max(units, 1) > MAX_SCORE_CELLS:
            raise InputError(f"joint cluster {j.id!r} describes {n_anchors:,} transactions and {units:,} shared "
                             f"sub-records: {n_anchors * units:,} scores, more than the {MAX_SCORE_CELLS:,} that fit")


def _r(x, digits: int = 6):
    if x is None:
        return None
    x = float(x)
    return round(x, digits) if math.isfinite(x) else None


def _plan_cluster(ci: int, cluster, term_placements: int) -> _Plan:
    chunks = cluster.record_chunks
    anchors = [chunks[0].sub_record(r) for r in range(len(chunks[0]))] if chunks else []
    n_anchors = max(int(cluster.size), len(anchors))
    anchors += [np.zeros(0, dtype=np.int32)] * (n_anchors - len(anchors))
    units: list[np.ndarray] = []
    unit_chunk: list[int] = []
    unit_count: list[int] = []
    unit_rows: list[list[int]] = []
    for j in range(1, len(chunks)):
        add_distinct_units(chunks[j], j, units, unit_chunk, unit_count, unit_rows)
    per_term = min(term_placements, n_anchors)
    for t, term in enumerate(cluster.term_chunk.tolist()):
        units.append(np.asarray([term], dtype=np.int32))
        unit_chunk.append(TERM_CHUNK)
        unit_count.append(per_term)
        unit_rows.append([t])
    return _Plan(ci, n_anchors, anchors, units, unit_chunk, unit_count, unit_rows)


def _csr(lists: list[np.ndarray], local: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    lengths = np.fromiter((len(x) for x in lists), dtype=np.int64, count=len(lists))
    ptr = np.zeros(len(lists) + 1, dtype=np.int64)
    np.cumsum(lengths, out=ptr[1:])
    flat = np.concatenate(lists).astype(np.int64) if lists and ptr[-1] else np.zeros(0, dtype=np.int64)
    return ptr, local[flat] if len(flat) else flat


def _aligned_original(data: DisassociatedData, key: DisassociationKey, original: TransactionData,
                      original_path, release_path=None, key_path=None) -> Any:
    """The original as CSR over the release vocabulary (rows = original transactions), checked
    to belong with the release and the key (:func:`semtui.model.belongs.check_belongs`: every
    item of every sub-record and term in the transaction the key names), or the metrics would
    mean nothing."""
    from semtui.model.belongs import check_belongs

    x = original.incidence(data.vocab)
    check_belongs(data, original=original, key=key, release_path=release_path, original_path=original_path,
                  key_path=key_path, incidence=x)
    return x


@dataclass
class _Context:
    """What every cluster's work needs, shared once per worker process (never a measure)."""

    data: DisassociatedData
    key_of: dict | None
    term_placements: int     # the anchors a term-chunk term goes to
    method: str
    seed: int
    ties: str
    kind: str
    close: np.ndarray        # C1 terms x unit terms of the release, higher = closer
    a_pos: np.ndarray
    u_pos: np.ndarray
    x: Any                   # the original as CSR over the release vocabulary (None without the key)
    wmd: tuple | None        # (distances, positions, known) for WMD
    informed: np.ndarray | None = None  # NBA's log-lifts from the original itself (the informed reference)
    light: bool = False      # only the counts of the evaluation (the informed reference's pass)
    summary_only: bool = False  # per cluster only its id, size and metrics (no placements, no transactions)
    joint_key_of: dict | None = None  # the key's joint clusters by id (REFINE's shared chunks)
    joint_members: Any = None  # each joint cluster's member clusters (merge.JointMembers)
    run: str = ""            # this run's token (the kernels' WMD memo is per run)


@dataclass
class Plan:
    """A release made ready for the kernels: the shared context and the run's facts."""

    ctx: _Context
    meta: dict

    @property
    def tasks(self) -> list[ClusterTask]:
        """Every cluster's kernel task (built on demand; the run builds them in the workers)."""
        return [_build(self.ctx, ci)[1] for ci in range(len(self.ctx.data.clusters))]


def plan_release(
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
    release_path: str | Path | None = None,
    key_path: str | Path | None = None,
) -> Plan:
    """Plan and score: the per-cluster tasks, with one batched call to the measure (or, for NBA,
    one block of the background's log-lifts).

    ``measure`` / ``wmd`` / ``background`` override what ``options.measure`` /
    ``options.wmd_measure`` / ``options.background`` name (an opened
    :class:`semtui.measures.base.Measure`, a :class:`semtui.attacks.background.Background`)."""
    from semtui.measures import open_measure

    options = options or ReassociationOptions()
    progress = progress or (lambda done, total, message="": None)
    if (key is None) != (original is None):
        raise InputError("the metrics need both the key and the original")
    if not data.clusters:
        raise InputError("the release has no clusters")
    method, seed, ties, k = options.method, options.seed, options.tie_rule, options.k
    vectors, cache = options.vectors, options.cache
    started = time.perf_counter()
    k_used = int(k) if k is not None else int(data.k)
    term_placements = (int(options.term_placements) if options.term_placements is not None
                       else max(int(data.k) - 1, 1))
    vocab = data.vocab
    from semtui.attacks.reassociation.merge import JointMembers

    members = JointMembers.of(data)
    _check_fits(data, members)

    # 1. plan: the terms to score (C1's, and those of the other chunks and the term chunks)
    # (marked a cluster at a time: a release kept on disk is read once, never held whole)
    in_a = np.zeros(len(vocab), dtype=bool)
    in_u = np.zeros(len(vocab), dtype=bool)
    for c in data.clusters:
        if c.record_chunks:
            in_a[c.record_chunks[0].items] = True
        for ch in c.record_chunks[1:]:
            in_u[ch.items] = True
        in_u[c.term_chunk] = True
    for j in data.joint_clusters:
        for ch in j.shared_chunks:
            in_u[ch.items] = True
    a_ids, u_ids = np.flatnonzero(in_a).astype(np.int64), np.flatnonzero(in_u).astype(np.int64)

    # 2. score: one batched call, every C1 term against every other term, held twice (the
    # scores and their orientation): refused in one line when that cannot fit
    cells = len(a_ids) * len(u_ids)
    if cells > MAX_SCORE_CELLS:
        raise InputError(
            f"the release has {len(a_ids):,} distinct terms in first record chunks and {len(u_ids):,} in the other "
            f"chunks and term chunks: {cells:,} term pairs to score, more than the {MAX_SCORE_CELLS:,} that fit "
            "in memory")
    progress(0, len(data.clusters), "scoring")
    m = None
    bg_info = None
    if method in BACKGROUND_METHODS:
        if background is None:
            from semtui.attacks.background import load_background

            background = load_background(options.background)
        if not background.has_cooccurrence:
            raise InputError(f"{method} needs co-occurrence counts, and {background.source or 'the background'} "
                             "holds only how common each term is (a frequency list, or counts without pairs): it cannot tell anchors apart",
                             option="background")
        measure_name, kind = None, "similarity"
        names_all = vocab.names(np.union1d(a_ids, u_ids))
        unknown = sorted(t for t, ok in zip(names_all, background.known(names_all)) if not ok)
        if names_all and len(unknown) == len(names_all):
            # every lift would be 0: the attack places by ties alone, which would read as what an
            # attacker with background knowledge achieves -- most likely the wrong file
            raise InputError(f"the background knows none of the release's {len(names_all)} terms (another "
                             "population or vocabulary?): it could not inform the attack", background.source,
                             option="background")
        close = _log_lifts(background, vocab, a_ids, u_ids)
        bg_info = background.describe()
    elif method == "ra":  # random placement uses no measure: none is opened, named or warned about
        measure_name, kind, unknown = None, "distance", []
        close = np.zeros((len(a_ids), len(u_ids)))
    else:
        m = open_measure(options.measure, vectors=vectors, cache=cache) if measure is None else measure
        measure_name = options.measure if measure is None else m.name
        kind = getattr(m, "kind", "distance")
        unknown = sorted(set(m.unknown(vocab.names(np.union1d(a_ids, u_ids)))))
        if len(a_ids) and len(u_ids):
            native = np.asarray(m.matrix(vocab.names(a_ids), vocab.names(u_ids)), dtype=np.float64)
        else:
            native = np.zeros((len(a_ids), len(u_ids)))
        close = native if kind == "similarity" else -native
    a_pos = np.full(len(vocab), -1, dtype=np.int64)
    a_pos[a_ids] = np.arange(len(a_ids))
    u_pos = np.full(len(vocab), -1, dtype=np.int64)
    u_pos[u_ids] = np.arange(len(u_ids))

    # evaluation inputs
    evaluate = key is not None
    x = None
    wmd_d = wmd_known_all = None
    wmd_name = None
    wmd_terms = wmd_unscored = 0
    if evaluate:
        x = _aligned_original(data, key, original, original_path, release_path, key_path)
        if wmd is not None or options.wmd_measure is not None:
            if wmd is not None:
                wm, wmd_name = wmd, wmd.name
            else:
                wmd_name = options.wmd_measure
                wm = (m if (m is not None and measure is None and wmd_name == options.measure)
                      else open_measure(wmd_name, vectors=vectors if wmd_name == "embedding" else None, cache=cache))
            used = np.flatnonzero(column_counts(x) > 0)
            used = np.union1d(used, np.union1d(a_ids, u_ids))
            d = np.asarray(wm.distances(vocab.names(used), vocab.names(used)), dtype=np.float64)
            known = ~np.all(np.isnan(d), axis=1) if d.size else np.zeros(0, dtype=bool)
            wmd_terms, wmd_unscored = len(used), int((~known).sum())
            if known.any():
                wmd_known_all = np.zeros(len(vocab), dtype=bool)
                wmd_known_all[used[known]] = True
                wmd_pos = np.full(len(vocab), -1, dtype=np.int64)
                wmd_pos[used] = np.arange(len(used))
                wmd_d = (d, wmd_pos)
            else:
                wmd_name = None

    key_of = key.by_id if evaluate else None
    informed = None
    if evaluate and options.informed:
        # the informed reference: NBA with the statistics of the original itself, which the
        # publisher holds -- the upper bound of what co-occurrence knowledge could give
        from semtui.attacks.background import Background

        # (from the original's matrix over the release's terms, built above: the same counts)
        informed = _log_lifts(Background.from_incidence(x, vocab, "the original"), vocab, a_ids, u_ids)
    ctx = _Context(data, key_of, term_placements, method, int(seed), ties, kind, close, a_pos, u_pos, x,
                   None if wmd_d is None else (wmd_d[0], wmd_d[1], wmd_known_all), informed,
                   joint_key_of=key.joint_by_id if evaluate else None, joint_members=members)
    meta = dict(method=method, measure=measure_name, kind=kind, k=k_used, term_placements=term_placements,
                seed=int(seed), ties=ties, unknown=unknown, started=started, wmd_measure=wmd_name,
                background=bg_info, wmd_terms=wmd_terms, wmd_unscored=wmd_unscored,
                wmd_requested=(wmd.name if wmd is not None else options.wmd_measure))
    ctx.summary_only = bool(options.summary_only)
    import uuid

    ctx.run = uuid.uuid4().hex
    return Plan(ctx, meta)


def _log_lifts(background, vocab, a_ids: np.ndarray, u_ids: np.ndarray) -> np.ndarray:
    """NBA's closeness of every C1 term to every unit term: ``log P(s | a) / P(s)`` from the
    background (0, no evidence, where a term is unknown to it)."""
    if not len(a_ids) or not len(u_ids):
        return np.zeros((len(a_ids), len(u_ids)))
    return np.asarray(background.log_lift(background.ids(vocab.names(a_ids)), background.ids(vocab.names(u_ids))),
                      dtype=np.float64)


def _build(ctx: _Context, ci: int) -> tuple[_Plan, ClusterTask]:
    """Cluster ``ci``'s plan and kernel task, from the run's shared context."""
    data = ctx.data
    n_vocab = len(data.vocab)
    c = data.clusters[ci]
    p = _plan_cluster(ci, c, ctx.term_placements)
    a_local_ids = np.unique(np.concatenate(p.anchors + [np.zeros(0, np.int32)]).astype(np.int64))
    u_local_ids = np.unique(np.concatenate(p.units + [np.zeros(0, np.int32)]).astype(np.int64))
    a_loc = np.full(n_vocab, -1, dtype=np.int64)
    a_loc[a_local_ids] = np.arange(len(a_local_ids))
    u_loc = np.full(n_vocab, -1, dtype=np.int64)
    u_loc[u_local_ids] = np.arange(len(u_local_ids))
    anchor_ptr, anchor_terms = _csr(p.anchors, a_loc)
    unit_ptr, unit_terms = _csr(p.units, u_loc)
    task = ClusterTask(
        index=ci, method=ctx.method, seed=ctx.seed, ties=ctx.ties, n_anchors=p.n_anchors,
        anchor_ptr=anchor_ptr, anchor_terms=anchor_terms, unit_ptr=unit_ptr, unit_terms=unit_terms,
        unit_chunk=np.asarray(p.unit_chunk, dtype=np.int64), unit_count=np.asarray(p.unit_count, dtype=np.int64),
        close=ctx.close[np.ix_(ctx.a_pos[a_local_ids], ctx.u_pos[u_local_ids])],
    )
    if ctx.key_of is not None:
        wmd_d = None if ctx.wmd is None else (ctx.wmd[0], ctx.wmd[1])
        wmd_known = None if ctx.wmd is None else ctx.wmd[2]
        _add_truth(task, p, c, ctx.key_of[c.id], ctx.x, wmd_d, wmd_known, a_local_ids, u_local_ids)
        task.wmd_run = ctx.run
    return p, task


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
) -> Reassociation:
    """Re-associate every cluster of ``data`` as ``options`` say; with ``key`` and ``original``,
    evaluate it.  ``measure`` / ``wmd`` override the measures the options name (an opened
    measure); ``sources`` names the files the run read (the report carries them).

    The clusters' outputs are merged as they arrive (:mod:`.merge`), so the run never holds all of
    them; with a scheduler the clusters go in batches of about ``batch_cost`` transactions
    (default: STREAM_COST, fewer on a small release; a smaller one for tests)."""
    options = options or ReassociationOptions()
    progress = progress or (lambda done, total, message="": None)
    named = sources or {}
    plan = plan_release(data, key, original, options, measure=measure, wmd=wmd, background=background,
                        progress=progress, original_path=original_path, release_path=named.get("data"),
                        key_path=named.get("key"))
    from semtui.attacks.reassociation.merge import Merger
    from semtui.runtime.scheduler import give_back_memory, session

    if options.scheduler is not None:  # the driver only streams from here: planning's temporaries go back
        give_back_memory()

    with session(options.scheduler):  # one cluster for the attack and its reference
        from semtui.fileio import Spool

        # a release kept on disk (a large one, on --scheduler): so is the report's per-cluster part
        merger = Merger(plan.ctx, plan.meta, spool=isinstance(data.clusters, Spool))
        for ci, out, ref in _outputs(plan.ctx, options, progress, batch_cost):
            merger.add(ci, out, ref)
        result = merger.finish()
    result.report.update(sources or {})  # the files the run read (data, key, original), named in the report
    return result


#: transactions per batch of clusters a ``--scheduler`` run ships (fewer when the release is
#: small: about PER_WORKER batches a worker); the driver holds at most IN_FLIGHT batches a worker
STREAM_COST = 10_000
IN_FLIGHT = 3


def _cluster_outputs(ctx: _Context, ci: int) -> tuple[dict, dict | None]:
    """Cluster ``ci``'s output and, with the informed reference, the reference's (one task:
    the cluster's plan and truth are built where it runs, once for both)."""
    out = _cluster_output(ctx, ci)
    if ctx.informed is None:
        return out, None
    from semtui.attacks.reassociation.merge import reference_ctx

    return out, _cluster_output(reference_ctx(ctx), ci)


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
    from semtui.attacks.reassociation.merge import Spans, stream_costs
    from semtui.fileio import drop_pages
    from semtui.runtime.scheduler import PER_WORKER, map_ordered, n_workers, session

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
    from semtui.attacks.reassociation.joint import run_joint
    from semtui.attacks.reassociation.merge import reference_ctx

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


def _key_members(ck) -> set[int]:
    """The original transactions a cluster of the key names (its records, every record-chunk
    row and every term-chunk holder)."""
    members: set[int] = set(ck.records or ())   # key v2 names them all (REFINE can empty a record)
    for rows in ck.record_chunks:
        members.update(rows)
    for holders in ck.term_chunk:
        members.update(holders)
    return members


def _items_of(x, t: int) -> np.ndarray:
    """Transaction ``t``'s items (release ids): a row of the original's CSR, or of the rows a
    batch was shipped with."""
    if isinstance(x, dict):
        return x[t]
    return x.indices[x.indptr[t]:x.indptr[t + 1]]


def _add_truth(task: ClusterTask, p: _Plan, c, ck, x, wmd_d, wmd_known_all,
               a_local_ids, u_local_ids) -> None:
    members = _key_members(ck)
    c1 = list(ck.record_chunks[0]) if ck.record_chunks else []
    rest = sorted(members - set(c1))
    truth = c1 + rest[: p.n_anchors - len(c1)]
    truth += [-1] * (p.n_anchors - len(truth))
    classes: dict[tuple, int] = {}
    anchor_class = np.asarray([classes.setdefault(tuple(sorted(a.tolist())), len(classes)) for a in p.anchors],
                              dtype=np.int64)
    unit_truth = []
    for u, rows in enumerate(p.unit_rows):
        j = p.unit_chunk[u]
        if j == TERM_CHUNK:
            unit_truth.append(frozenset(ck.term_chunk[rows[0]]))
        else:
            unit_truth.append(frozenset(ck.record_chunks[j][r] for r in rows))
    task.anchor_class = anchor_class
    task.anchor_truth = np.asarray(truth, dtype=np.int64)
    task.unit_truth = unit_truth
    if wmd_d is not None:
        d, pos = wmd_d
        trans = sorted(t for t in members if t >= 0)
        orig_items = {t: _items_of(x, t).astype(np.int64) for t in trans}
        w_ids = np.unique(np.concatenate([a_local_ids, u_local_ids, *orig_items.values(), np.zeros(0, np.int64)]))
        w_loc = np.full(len(pos), -1, dtype=np.int64)
        w_loc[w_ids] = np.arange(len(w_ids))
        task.wmd_dist = d[np.ix_(pos[w_ids], pos[w_ids])]
        task.w_items = w_ids
        task.wmd_known = wmd_known_all[w_ids]
        task.a_to_w = w_loc[a_local_ids]
        task.u_to_w = w_loc[u_local_ids]
        task.orig = {t: w_loc[v] for t, v in orig_items.items()}


def _cluster_output(ctx: _Context, ci: int) -> dict:
    """Plan, attack and evaluate cluster ``ci``, and shape its part of the report."""
    from semtui.metrics.reassociation import accuracy, transaction_breakage

    p, task = _build(ctx, ci)
    res = run_cluster(task)
    if ctx.light:
        at, bl = res.evaluation["attack"], res.evaluation["baseline"]
        return {"placements": len(res.place_unit), "correct": int(at["correct"].sum()), "broken": at["broken"],
                "size": int(ctx.data.clusters[ci].size), "b_correct": bl["mean_correct"], "b_broken": bl["mean_broken"],
                "_aligned": at["transactions"], "_broken_set": at["broken_set"], "_b_broken_sets": bl["broken_sets"]}
    data = ctx.data
    names = data.vocab.names
    c = data.clusters[ci]
    rec_items: list[list[int]] = [list(a.tolist()) for a in p.anchors]
    units_out = []
    order = np.argsort(res.place_unit, kind="stable")
    by_unit = np.split(res.place_anchor[order], np.searchsorted(res.place_unit[order], np.arange(1, len(p.units))))
    score_rows = None if ctx.summary_only else np.round((res.scores if ctx.kind == "similarity"
                                                         else -res.scores).T, 4).tolist()
    for u, unit in enumerate(p.units):
        sel = by_unit[u]
        for a in sel.tolist():
            rec_items[a].extend(unit.tolist())
        if ctx.summary_only:
            continue
        j = p.unit_chunk[u]
        units_out.append({
            "chunk": "term" if j == TERM_CHUNK else j + 1,
            "items": names(unit),
            "count": int(p.unit_count[u]),
            "anchors": sel.tolist(),
            "scores": [v if math.isfinite(v) else None for v in score_rows[u]],
        })
    if ctx.summary_only:  # a large release's report stays small: no placement, no transaction
        cl = {"id": c.id, "size": int(c.size)}
        out = {"cluster": cl, "transactions": [], "anchors": p.n_anchors, "units": len(p.units),
               "placements": len(res.place_unit)}
    else:
        cl = {"id": c.id, "size": int(c.size), "anchors": [names(a) for a in p.anchors], "units": units_out}
        out = {"cluster": cl, "transactions": [names(dict.fromkeys(items)) for items in rec_items],
               "anchors": p.n_anchors, "units": len(p.units), "placements": len(res.place_unit)}
    if res.evaluation is None:
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
    # where each placement went, judged against the key: per unit, one flag per entry of its
    # ``anchors``; per anchor, the original transaction it was aligned with (-1: none)
    ok = np.split(at["correct"][order], np.searchsorted(res.place_unit[order], np.arange(1, len(p.units))))
    for u, entry in enumerate(units_out):
        entry["correct"] = [bool(v) for v in ok[u].tolist()]
    if not ctx.summary_only:
        cl["anchor_transactions"] = [int(t) for t in at["transactions"].tolist()]
    cl["metrics"] = {
        "placements": counts["placements"], "correct": counts["correct"],
        "accuracy": _r(accuracy(counts["correct"], counts["placements"])),
        "broken_transactions": int(at["broken"]),
        "transaction_breakage": _r(transaction_breakage(at["broken"], c.size)),
        "wmd": _r(at["wmd_sum"] / at["wmd_n"]) if at["wmd_n"] else None,
        "baseline_accuracy": _r(accuracy(bl["mean_correct"], counts["placements"])),
    }
    out.update(counts=counts, recon=recon, truth=task.anchor_truth[task.anchor_truth >= 0],
               aligned=at["transactions"], broken_set=at["broken_set"], b_broken_sets=bl["broken_sets"])
    return out


INFORMED_REFERENCE = ("a reference, not an attack: NBA (under the attack's tie rule) with the co-occurrence statistics of the "
                      "original itself, which the publisher holds and no attacker should; the most that statistical "
                      "knowledge of this population could give this attack, not a bound on every attacker")


def informed_sentence(metrics: dict) -> str | None:
    """The informed reference in words, beside the attack's own figures (the CLI and the TUI
    print this one sentence)."""
    ref = (metrics or {}).get("informed_reference")
    if not ref or ref.get("accuracy") is None:
        return None

    def iv(name: str, digits: int = 3) -> str:
        v = (ref.get("intervals") or {}).get(name)
        return f" [{v[0]:.{digits}f}, {v[1]:.{digits}f}]" if v and None not in v else ""

    lift = ref.get("lift_over_random")
    if lift is None:
        return (f"Informed reference (not an attack): naive Bayes with the original's own statistics places "
                f"{ref['accuracy']:.3f} of its placements correctly.")
    attack = metrics.get("lift_over_random")
    ties = ref.get("ties")  # absent from reports written before the reference followed the attack's rule
    rule = f"; both under {ties} ties" if ties else ""
    head = (f"Informed reference (not an attack): with the co-occurrence statistics of the original itself, which "
            f"only the publisher holds, naive Bayes places {ref['accuracy']:.3f}{iv('accuracy')} of its placements "
            f"correctly, lift {lift:.2f}{iv('lift_over_random', 2)} over random"
            + (f" (this attack: {attack:.2f}{rule})" if attack is not None
               else (f" (under {ties} ties)" if ties else ""))
            + (f" ({reason})" if (reason := (ref.get("intervals") or {}).get("reason")) else ""))
    low, high = ((ref.get("intervals") or {}).get("lift_over_random") or [None, None])[:2]
    if reason:  # no interval: the point estimate says which side of chance it fell
        low = high = lift
    if low is not None and low > 1:
        return head + ": the most that statistics of this population could give this attack."
    if high is not None and high < 1:
        # worse than chance with the original's own statistics: the scoring mis-ranks anchors here,
        # which says nothing about what a better use of the same statistics would take back
        return (head + ": even perfect statistics do not lift this naive-Bayes re-association above chance on this "
                "release — it falls below chance, so its scoring mis-ranks anchors here; a bound on this attack "
                "only, not on every attacker.")
    return (head + ": even perfect statistics do not lift this naive-Bayes re-association above chance on this "
            "release; a bound on this attack only, not on every attacker.")


def _informed_reference(figures, sums: dict, prefix: str, seed: int, ties: str) -> dict:
    """The informed reference's figures (accuracy, lift over its own budget-matched baseline,
    transaction breakage), with bootstrap intervals over clusters; ``figures``: the
    per-cluster :class:`~semtui.attacks.reassociation.merge.Figures`, its counts the columns
    named ``prefix`` + count, ``sums`` their totals (:meth:`Figures.sums`, read once)."""
    from semtui.metrics.reassociation import accuracy, intervals_of, transaction_breakage

    s = {key[len(prefix):]: v for key, v in sums.items() if key.startswith(prefix)}
    ci = figures.bootstrap([prefix + c for c in ("correct", "correct", "broken")],
                           [prefix + c for c in ("placements", "b_correct", "size")], seed)
    acc = accuracy(s["correct"], s["placements"])
    base = accuracy(s["b_correct"], s["placements"])
    return {
        "about": INFORMED_REFERENCE,
        "method": "nba",
        "ties": ties,
        "statistics": "the original",
        "placements": int(s["placements"]),
        "correct": int(s["correct"]),
        "accuracy": _r(acc),
        "baseline_accuracy": _r(base),
        "lift_over_random": _r(acc / base) if acc is not None and base else None,
        "transaction_breakage": _r(transaction_breakage(s["broken"], s["size"])),
        "intervals": intervals_of(("accuracy", "lift_over_random", "transaction_breakage"), ci, len(figures)),
    }


def _wmd_note(measured: float, opts: dict) -> str | None:
    """Why WMD is null (not measurable is not 0), or None when it was measured."""
    if measured:
        return None
    if opts.get("wmd_requested") is None:
        return "not measured (no WMD measure)"
    terms, unscored = opts.get("wmd_terms", 0), opts.get("wmd_unscored", 0)
    return (f"not measurable: {unscored:,} of {terms:,} terms unscored under {opts['wmd_requested']}, "
            "and no transaction has every term of its original and its reconstruction scored")


def reconstructed_transactions(cluster: dict, joint_clusters: list[dict] | None = None) -> list[list[str]]:
    """The transactions one cluster entry of a report rebuilds, anchor by anchor: the anchor's
    items, then those of every unit placed on it, then (given the report's ``joint_clusters``)
    those of every shared sub-record a joint cluster placed on it (each item once, in that
    order) -- what :attr:`Reassociation.transactions` holds for the cluster, read back from
    the report."""
    rec: list[list[str]] = [list(a) for a in cluster.get("anchors", [])]
    for unit in cluster.get("units", []):
        for a in unit.get("anchors", []):
            rec[a].extend(unit["items"])
    for joint in joint_clusters or ():
        if cluster.get("id") not in joint.get("clusters", ()):
            continue
        for unit in joint.get("units", []):
            for cid, a in unit.get("anchors", []):
                if cid == cluster.get("id"):
                    rec[a].extend(unit["items"])
    return [list(dict.fromkeys(items)) for items in rec]


def reconstruction_dataset(result: Reassociation) -> TransactionData:
    """The reconstructed transactions as plain transactions (cluster by cluster, anchor by anchor)."""
    return TransactionData.from_lists(result.transactions)
