"""Plan and score a disassociated release for the re-association attack (Alshuhail & Shao;
ALGORITHMS.md §2): the first two steps of plan -> score -> per-cluster kernel -> merge.

* **plan**: per cluster, the *anchors* (the sub-records of the anchoring chunk C1, plus empty
  anchors when the cluster holds more transactions than C1 has sub-records) and the *units* to
  place (each distinct non-empty sub-record of C2..Cn with its multiplicity, each term-chunk term
  with ``term_placements`` places: the paper's ``k - 1``, Algorithm 3); each joint cluster's
  member clusters (REFINE's shared chunks, :class:`JointMembers`).
* **score**: one batched call to the measure, every C1 term against every unit term of the
  release; a similarity is used as is, a distance negated, so higher is closer throughout (NBA:
  the background's log-lifts).
* **truth**: with the key and the original, what each anchor and unit really was, so that the
  kernel can evaluate its placements (:func:`_add_truth`).

A cluster's kernel task (:class:`semtui.attacks.reassociation.kernel.ClusterTask`) is built from
the run's shared :class:`_Context` where it runs (:func:`_build`), never from a measure.
"""

from __future__ import annotations

import time
from array import array
from dataclasses import dataclass
from typing import Any

import numpy as np

from semtui.attacks.reassociation.kernel import TERM_CHUNK, ClusterTask, add_distinct_units
from semtui.attacks.reassociation.options import BACKGROUND_METHODS, ReassociationOptions
from semtui.errors import InputError
from semtui.model import DisassociatedData, DisassociationKey, TransactionData
from semtui.model.transactions import column_counts

#: Most (C1 term, other term) pairs scored at once: 8 bytes each, held twice (BMS-WebView-2's
#: releases need about 1e7)
MAX_SCORE_CELLS = 50_000_000


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


def _aligned_original(data: DisassociatedData, original: TransactionData) -> Any:
    """The original as CSR over the release vocabulary (rows = original transactions).  That it
    belongs with the release and the key (every item of every sub-record and term in the
    transaction the key names) was checked where the release was opened
    (:func:`semtui.release.open_release`)."""
    return original.incidence(data.vocab)


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
    joint_members: Any = None  # each joint cluster's member clusters (JointMembers)
    run: str = ""            # this run's token (the kernels' WMD memo is per run)
    baselines: dict | None = None  # cluster index -> budget-matched draws of an earlier run (Baselines)
    #: the judgements of earlier runs' placements (Baselines.judged; a serial run only): a cluster
    #: whose placements an earlier method made too takes their judgement (:func:`.kernel.judged_key`)
    judged: dict | None = None


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
        x = _aligned_original(data, original)
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


@dataclass
class JointMembers:
    """Each joint cluster's members (their cluster indices, in the order it names them) as CSR,
    with its first and last member: as the release's reader found them, or through the
    clusters' id hashes (:meth:`of`: the ids are not held)."""

    ptr: np.ndarray     # joint cluster ji's members are ids[ptr[ji]:ptr[ji + 1]]
    ids: np.ndarray
    first: np.ndarray   # each joint cluster's lowest member
    last: np.ndarray    # and highest: it can run once that one has arrived

    @classmethod
    def of(cls, data) -> JointMembers:
        if data._joint_positions is not None:   # as the reader found them
            ptr, ids = data._joint_positions
        else:
            index_of = data.by_id if data.joint_clusters else {}
            ptr, flat = [0], array("q")
            for j in data.joint_clusters:
                flat.extend(index_of[x] for x in j.clusters)
                ptr.append(len(flat))
            ids = np.frombuffer(flat, dtype=np.int64) if len(flat) else np.zeros(0, dtype=np.int64)
        ptr = np.asarray(ptr, dtype=np.int64)
        starts = ptr[:-1]
        # (a joint cluster has two members or more: the reader refuses fewer)
        first = np.minimum.reduceat(ids, starts) if len(ids) else np.zeros(0, dtype=np.int64)
        last = np.maximum.reduceat(ids, starts) if len(ids) else np.zeros(0, dtype=np.int64)
        return cls(ptr, ids, first, last)

    def __len__(self) -> int:
        return len(self.ptr) - 1

    def __getitem__(self, ji: int) -> np.ndarray:
        return self.ids[self.ptr[ji]:self.ptr[ji + 1]]
