"""The re-association attack on a whole disassociated release (Alshuhail & Shao; ALGORITHMS.md
§2): plan -> score -> per-cluster kernel -> merge.

* **plan**: per cluster, the *anchors* (the sub-records of the anchoring chunk C1, plus empty
  anchors when the cluster holds more transactions than C1 has sub-records) and the *units* to
  place (each distinct non-empty sub-record of C2..Cn with its multiplicity, each term-chunk term
  with ``k - 1`` places, as the paper's Algorithm 3).
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

import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from semtui.attacks.reassociation.kernel import METHODS, TERM_CHUNK, ClusterTask, run_cluster
from semtui.errors import InputError
from semtui.model import DisassociatedData, DisassociationKey, TransactionData

REPORT_FORMAT = "semtui-disassoc-report/1"


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


def _r(x, digits: int = 6):
    if x is None:
        return None
    x = float(x)
    return round(x, digits) if math.isfinite(x) else None


def _plan_cluster(ci: int, cluster, k: int) -> _Plan:
    chunks = cluster.record_chunks
    anchors = [chunks[0].sub_record(r) for r in range(len(chunks[0]))] if chunks else []
    n_anchors = max(int(cluster.size), len(anchors))
    anchors += [np.zeros(0, dtype=np.int32)] * (n_anchors - len(anchors))
    units: list[np.ndarray] = []
    unit_chunk: list[int] = []
    unit_count: list[int] = []
    unit_rows: list[list[int]] = []
    for j in range(1, len(chunks)):
        seen: dict[tuple, int] = {}
        ch = chunks[j]
        for r in range(len(ch)):
            sr = ch.sub_record(r)
            if len(sr) == 0:
                continue
            key = tuple(sorted(sr.tolist()))
            u = seen.get(key)
            if u is None:
                seen[key] = len(units)
                units.append(sr)
                unit_chunk.append(j)
                unit_count.append(1)
                unit_rows.append([r])
            else:
                unit_count[u] += 1
                unit_rows[u].append(r)
    per_term = min(max(k - 1, 1), n_anchors)
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
                      original_path) -> Any:
    """The original as CSR over the release vocabulary (rows = original transactions), checked
    against the key: every item of every sub-record and term must be in the transaction the key
    names, or the metrics would mean nothing."""

    if original.n_generalised:
        raise InputError("the original must be plain transactions, not set-generalised", original_path)
    n = original.n_transactions
    x = original.incidence(data.vocab)
    ts, its = [], []
    by_id = {ck.id: ck for ck in key.clusters}
    for c in data.clusters:
        ck = by_id[c.id]
        for j, ch in enumerate(c.record_chunks):
            lengths = np.diff(ch.indptr)
            ts.append(np.repeat(np.asarray(ck.record_chunks[j], dtype=np.int64), lengths))
            its.append(ch.items.astype(np.int64))
        for t, holders in zip(c.term_chunk.tolist(), ck.term_chunk):
            ts.append(np.asarray(holders, dtype=np.int64))
            its.append(np.full(len(holders), t, dtype=np.int64))
    t_all = np.concatenate(ts) if ts else np.zeros(0, dtype=np.int64)
    i_all = np.concatenate(its) if its else np.zeros(0, dtype=np.int64)
    if len(t_all) and t_all.max() >= n:
        raise InputError(f"the key names transaction {int(t_all.max())} but the original has {n}", original_path)
    held = np.asarray(x[t_all, i_all]).ravel() if len(t_all) else np.zeros(0)
    if (held == 0).any():
        bad = int(np.flatnonzero(held == 0)[0])
        raise InputError(
            f"{int((held == 0).sum())} items of the release are not in the original transaction the key "
            f"names (first: {data.vocab[int(i_all[bad])]!r} in transaction {int(t_all[bad])}); "
            "the key and the original do not belong to this release", original_path)
    return x


@dataclass
class _Context:
    """What every cluster's work needs, shared once per worker process (never a measure)."""

    data: DisassociatedData
    key_of: dict | None
    k: int
    method: str
    seed: int
    ties: str
    kind: str
    close: np.ndarray        # C1 terms x unit terms of the release, higher = closer
    a_pos: np.ndarray
    u_pos: np.ndarray
    x: Any                   # the original as CSR over the release vocabulary (None without the key)
    wmd: tuple | None        # (distances, positions, known) for WMD


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
    *,
    method: str = "aba",
    measure: str | Any = "embedding",
    k: int | None = None,
    seed: int = 0,
    ties: str = "first",
    vectors: str | Path | None = None,
    cache: bool = True,
    wmd_measure: str | Any | None = "embedding",
    progress=None,
    original_path: str | Path | None = None,
) -> Plan:
    """Plan and score: the per-cluster tasks, with one batched call to the measure."""
    from semtui.measures import open_measure

    progress = progress or (lambda done, total, message="": None)
    if method not in METHODS:
        raise InputError(f"unknown method {method!r} (choose from {', '.join(METHODS)})")
    if ties not in ("first", "random"):
        raise InputError(f"ties must be 'first' or 'random', got {ties!r}")
    if seed is None:
        seed = 0
    if seed < 0:
        raise InputError(f"the seed must be a non-negative integer, got {seed}")
    if k is not None and k < 1:
        raise InputError(f"k must be at least 1, got {k}")
    if (key is None) != (original is None):
        raise InputError("the metrics need both the key and the original")
    if not data.clusters:
        raise InputError("the release has no clusters")
    started = time.perf_counter()
    k_used = int(k) if k is not None else int(data.k)
    vocab = data.vocab

    # 1. plan: the terms to score (C1's, and those of the other chunks and the term chunks)
    empty = [np.zeros(0, np.int32)]
    a_ids = np.unique(np.concatenate([c.record_chunks[0].items for c in data.clusters if c.record_chunks] + empty)
                      ).astype(np.int64)
    u_ids = np.unique(np.concatenate([ch.items for c in data.clusters for ch in c.record_chunks[1:]]
                                     + [c.term_chunk for c in data.clusters] + empty)).astype(np.int64)

    # 2. score: one batched call
    progress(0, len(data.clusters), "scoring")
    m = open_measure(measure, vectors=vectors, cache=cache) if isinstance(measure, str) else measure
    measure_name = measure if isinstance(measure, str) else m.name
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
    if evaluate:
        x = _aligned_original(data, key, original, original_path)
        if wmd_measure is not None:
            wm = wmd_measure
            if isinstance(wm, str):
                wmd_name = wm
                wm = m if (isinstance(measure, str) and wm == measure) else open_measure(wm, vectors=vectors, cache=cache)
            else:
                wmd_name = wm.name
            used = np.flatnonzero(np.asarray(x.sum(axis=0)).ravel() > 0)
            used = np.union1d(used, np.union1d(a_ids, u_ids))
            d = np.asarray(wm.distances(vocab.names(used), vocab.names(used)), dtype=np.float64)
            known = ~np.all(np.isnan(d), axis=1) if d.size else np.zeros(0, dtype=bool)
            if known.any():
                wmd_known_all = np.zeros(len(vocab), dtype=bool)
                wmd_known_all[used[known]] = True
                wmd_pos = np.full(len(vocab), -1, dtype=np.int64)
                wmd_pos[used] = np.arange(len(used))
                wmd_d = (d, wmd_pos)
            else:
                wmd_name = None

    key_of = {ck.id: ck for ck in key.clusters} if evaluate else None
    ctx = _Context(data, key_of, k_used, method, int(seed), ties, kind, close, a_pos, u_pos, x,
                   None if wmd_d is None else (wmd_d[0], wmd_d[1], wmd_known_all))
    meta = dict(method=method, measure=measure_name, kind=kind, k=k_used, seed=int(seed), ties=ties, unknown=unknown,
                started=started, wmd_measure=wmd_name)
    return Plan(ctx, meta)


def _build(ctx: _Context, ci: int) -> tuple[_Plan, ClusterTask]:
    """Cluster ``ci``'s plan and kernel task, from the run's shared context."""
    data = ctx.data
    n_vocab = len(data.vocab)
    c = data.clusters[ci]
    p = _plan_cluster(ci, c, ctx.k)
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
    return p, task


def run_reassociation(
    data: DisassociatedData,
    key: DisassociationKey | None = None,
    original: TransactionData | None = None,
    *,
    method: str = "aba",
    measure: str | Any = "embedding",
    k: int | None = None,
    seed: int = 0,
    ties: str = "first",
    jobs: int = 1,
    vectors: str | Path | None = None,
    cache: bool = True,
    wmd_measure: str | Any | None = "embedding",
    progress=None,
    original_path: str | Path | None = None,
    sources: dict | None = None,
) -> Reassociation:
    """Re-associate every cluster of ``data``; with ``key`` and ``original``, evaluate it.

    ``measure`` is a spec or a :class:`semtui.measures.base.Measure`; ``k`` the number of
    transactions a term-chunk term is taken to come from plus one (default: the release's k);
    ``ties`` how equal scores are broken: ``first`` keeps the anchoring chunk's order (the paper),
    ``random`` draws a seeded order (so that unscorable or identical anchors share the units);
    ``wmd_measure`` the measure whose distances WMD uses (None: no WMD); ``jobs`` the number of
    worker processes for the kernels (the report is the same whatever it is).
    """
    if jobs < 1:
        raise InputError(f"jobs must be at least 1, got {jobs}")
    progress = progress or (lambda done, total, message="": None)
    plan = plan_release(data, key, original, method=method, measure=measure, k=k, seed=seed, ties=ties, vectors=vectors,
                        cache=cache, wmd_measure=wmd_measure, progress=progress, original_path=original_path)
    outputs = _execute(plan.ctx, jobs, progress)
    result = _merge(plan.ctx, outputs, plan.meta)
    result.report.update(sources or {})  # the files the run read (data, key, original), named in the report
    return result


def _add_truth(task: ClusterTask, p: _Plan, c, ck, x, wmd_d, wmd_known_all,
               a_local_ids, u_local_ids) -> None:
    members: set[int] = set()
    for rows in ck.record_chunks:
        members.update(rows)
    for holders in ck.term_chunk:
        members.update(holders)
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
        orig_items = {t: x.indices[x.indptr[t]:x.indptr[t + 1]].astype(np.int64) for t in trans}
        w_ids = np.unique(np.concatenate([a_local_ids, u_local_ids, *orig_items.values(), np.zeros(0, np.int64)]))
        w_loc = np.full(len(pos), -1, dtype=np.int64)
        w_loc[w_ids] = np.arange(len(w_ids))
        task.wmd_dist = d[np.ix_(pos[w_ids], pos[w_ids])]
        task.w_items = w_ids
        task.wmd_known = wmd_known_all[w_ids]
        task.a_to_w = w_loc[a_local_ids]
        task.u_to_w = w_loc[u_local_ids]
        task.orig = {t: w_loc[v] for t, v in orig_items.items()}


def _execute(ctx: _Context, jobs: int, progress) -> list[dict]:
    """Every cluster's output, in cluster order, serially or in ``jobs`` worker processes of
    the one executor; the context goes to each worker once, cluster indices are all that is
    sent after."""
    from semtui.runtime import run_units

    clusters = ctx.data.clusters
    return run_units(_cluster_output, ctx, list(range(len(clusters))), jobs=jobs,
                     costs=[float(c.size) for c in clusters], progress=progress, message="re-associating")


def _km_counts(x, recon_rows: np.ndarray, recon_items: np.ndarray, n_rows: int, k: int, m: int,
               cluster_of_row: np.ndarray, n_clusters: int) -> dict:
    """Per cluster: the protected itemsets (size 2..m, support in (0, k) in the original) held by
    its transactions, and those the reconstruction exposes (together in a reconstructed
    transaction that really holds them).  An itemset protected in two clusters counts in each."""
    from scipy.sparse import csr_matrix

    from semtui.metrics.reassociation import row_pairs

    n_items = x.shape[1]
    rec = csr_matrix((np.ones(len(recon_rows), dtype=np.int8), (recon_rows, recon_items)), shape=(n_rows, n_items))
    rec.sum_duplicates()
    rec.data[:] = 1
    y = rec.multiply(x).tocsr()
    y.eliminate_zeros()
    r, a, b = row_pairs(x.indptr, x.indices)
    code = a * n_items + b
    uniq, counts = np.unique(code, return_counts=True)
    prot_codes = uniq[counts < k]
    span = n_items * n_items + 1

    def per_cluster(rows, codes):
        keep = np.isin(codes, prot_codes) & (cluster_of_row[rows] >= 0)
        cl = np.unique(cluster_of_row[rows[keep]] * span + codes[keep])
        return np.bincount((cl // span).astype(np.int64), minlength=n_clusters)

    prot = per_cluster(r, code)
    ry, ay, by = row_pairs(y.indptr, y.indices)
    exp = per_cluster(ry, ay * n_items + by)
    if m >= 3:
        from itertools import combinations

        from semtui.metrics.reassociation import protected_itemsets

        rows_x = [x.indices[x.indptr[i]:x.indptr[i + 1]].tolist() for i in range(n_rows)]
        protected = protected_itemsets(rows_x, k, m)
        for matrix, out in ((x, prot), (y, exp)):
            seen: set = set()
            for i in range(n_rows):
                cl = int(cluster_of_row[i])
                if cl < 0:
                    continue
                items = sorted(matrix.indices[matrix.indptr[i]:matrix.indptr[i + 1]].tolist())
                for size in range(3, m + 1):
                    for cmb in combinations(items, size):
                        if cmb in protected and (cl, cmb) not in seen:
                            seen.add((cl, cmb))
                            out[cl] += 1
    return {"per_cluster_protected": prot, "per_cluster_exposed": exp}


def _cluster_output(ctx: _Context, ci: int) -> dict:
    """Plan, attack and evaluate cluster ``ci``, and shape its part of the report."""
    from semtui.metrics.reassociation import accuracy, transaction_breakage

    p, task = _build(ctx, ci)
    res = run_cluster(task)
    data = ctx.data
    names = data.vocab.names
    c = data.clusters[ci]
    scores = res.scores if ctx.kind == "similarity" else -res.scores
    rec_items: list[list[int]] = [list(a.tolist()) for a in p.anchors]
    units_out = []
    order = np.argsort(res.place_unit, kind="stable")
    by_unit = np.split(res.place_anchor[order], np.searchsorted(res.place_unit[order], np.arange(1, len(p.units))))
    score_rows = np.round(scores.T, 4).tolist()
    for u, unit in enumerate(p.units):
        sel = by_unit[u]
        for a in sel.tolist():
            rec_items[a].extend(unit.tolist())
        j = p.unit_chunk[u]
        units_out.append({
            "chunk": "term" if j == TERM_CHUNK else j + 1,
            "items": names(unit),
            "count": int(p.unit_count[u]),
            "anchors": sel.tolist(),
            "scores": [v if math.isfinite(v) else None for v in score_rows[u]],
        })
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
    cl["anchor_transactions"] = [int(t) for t in at["transactions"].tolist()]
    cl["metrics"] = {
        "placements": counts["placements"], "correct": counts["correct"],
        "accuracy": _r(accuracy(counts["correct"], counts["placements"])),
        "broken_transactions": int(at["broken"]),
        "transaction_breakage": _r(transaction_breakage(at["broken"], c.size)),
        "wmd": _r(at["wmd_sum"] / at["wmd_n"]) if at["wmd_n"] else None,
        "baseline_accuracy": _r(accuracy(bl["mean_correct"], counts["placements"])),
    }
    out.update(counts=counts, recon=recon, truth=task.anchor_truth[task.anchor_truth >= 0])
    return out


def _merge(ctx: _Context, outputs: list[dict], opts: dict) -> Reassociation:
    from semtui.metrics.reassociation import (
        accuracy,
        bootstrap_ratios,
        km_breakage,
        transaction_breakage,
    )
    from semtui.reports import document

    data, x = ctx.data, ctx.x
    evaluate = ctx.key_of is not None
    n_clusters = len(outputs)
    clusters_out = [o["cluster"] for o in outputs]
    transactions = [t for o in outputs for t in o["transactions"]]
    report: dict = document(REPORT_FORMAT, {
        "method": opts["method"],
        "measure": opts["measure"],
        "measure_kind": opts["kind"],
        "k": opts["k"],
        "seed": opts["seed"],
        "ties": opts["ties"],
        "unknown_terms": opts["unknown"],
        "summary": {
            "clusters": n_clusters,
            "transactions": int(sum(c.size for c in data.clusters)),
            "anchors": int(sum(o["anchors"] for o in outputs)),
            "units": int(sum(o["units"] for o in outputs)),
            "placements": int(sum(o["placements"] for o in outputs)),
            "seconds": 0.0,
        },
    })
    if evaluate:
        counts = {key: np.asarray([o["counts"][key] for o in outputs], dtype=np.float64)
                  for key in outputs[0]["counts"]}
        n_rows = x.shape[0]
        cluster_of_row = np.full(n_rows, -1, dtype=np.int64)
        for i, o in enumerate(outputs):
            cluster_of_row[o["truth"]] = i
        km = {}
        for label in ("attack", "baseline"):
            rr = np.concatenate([o["recon"][label][0] for o in outputs])
            ii = np.concatenate([o["recon"][label][1] for o in outputs])
            km[label] = _km_counts(x, rr, ii, n_rows, opts["k"], data.m, cluster_of_row, n_clusters)
            km[label]["protected"] = int(km[label]["per_cluster_protected"].sum())
            km[label]["exposed"] = int(km[label]["per_cluster_exposed"].sum())
        for i, cl in enumerate(clusters_out):
            cl["metrics"]["protected_itemsets"] = int(km["attack"]["per_cluster_protected"][i])
            cl["metrics"]["exposed_itemsets"] = int(km["attack"]["per_cluster_exposed"][i])
        s = {key: float(v.sum()) for key, v in counts.items()}
        num = np.column_stack([counts["correct"], counts["broken"], km["attack"]["per_cluster_exposed"],
                               counts["wmd_sum"], counts["correct"], counts["b_correct"]])
        den = np.column_stack([counts["placements"], counts["size"], km["attack"]["per_cluster_protected"],
                               counts["wmd_n"], counts["b_correct"], counts["placements"]])
        ci = bootstrap_ratios(num, den, opts["seed"])
        labels = ("accuracy", "transaction_breakage", "km_breakage", "wmd", "lift_over_random", "baseline_accuracy")
        baseline_acc = accuracy(s["b_correct"], s["placements"])
        acc = accuracy(s["correct"], s["placements"])
        report["metrics"] = {
            "placements": int(s["placements"]),
            "correct": int(s["correct"]),
            "accuracy": _r(acc),
            "held": int(s["held"]),
            "recall": _r(s["correct"] / s["held"]) if s["held"] else None,
            "transactions": int(s["size"]),
            "broken_transactions": int(s["broken"]),
            "transaction_breakage": _r(transaction_breakage(s["broken"], s["size"])),
            "protected_itemsets": km["attack"]["protected"],
            "exposed_itemsets": km["attack"]["exposed"],
            "km_breakage": _r(km_breakage(km["attack"]["exposed"], km["attack"]["protected"])),
            "wmd": _r(s["wmd_sum"] / s["wmd_n"]) if s["wmd_n"] else None,
            "wmd_transactions": int(s["wmd_n"]),
            "wmd_measure": opts["wmd_measure"],
            "baseline": {
                "accuracy": _r(baseline_acc),
                "transaction_breakage": _r(transaction_breakage(s["b_broken"], s["size"])),
                "exposed_itemsets": km["baseline"]["exposed"],
                "km_breakage": _r(km_breakage(km["baseline"]["exposed"], km["baseline"]["protected"])),
                "wmd": _r(s["b_wmd_sum"] / s["b_wmd_n"]) if s["b_wmd_n"] else None,
            },
            "lift_over_random": _r(acc / baseline_acc) if acc is not None and baseline_acc else None,
            "intervals": {lab: ([_r(v[0]), _r(v[1])] if v is not None else None) for lab, v in zip(labels, ci)},
        }
    report["clusters"] = clusters_out
    report["summary"]["seconds"] = round(time.perf_counter() - opts["started"], 4)
    return Reassociation(report, transactions)


def reconstructed_transactions(cluster: dict) -> list[list[str]]:
    """The transactions one cluster entry of a report rebuilds, anchor by anchor: the anchor's
    items, then those of every unit placed on it (each item once, in that order) -- what
    :attr:`Reassociation.transactions` holds for the cluster, read back from the report."""
    rec: list[list[str]] = [list(a) for a in cluster.get("anchors", [])]
    for unit in cluster.get("units", []):
        for a in unit.get("anchors", []):
            rec[a].extend(unit["items"])
    return [list(dict.fromkeys(items)) for items in rec]


def reconstruction_dataset(result: Reassociation) -> TransactionData:
    """The reconstructed transactions as plain transactions (cluster by cluster, anchor by anchor)."""
    return TransactionData.from_lists(result.transactions)
