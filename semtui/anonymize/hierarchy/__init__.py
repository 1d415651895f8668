"""k^m-anonymity by hierarchy generalisation (Terrovitis, Mamoulis, Kalnis, VLDBJ 2011).

``generalise_km`` maps the items of a dataset to the leaves of a hierarchy, runs one of the
paper's algorithms (OA, DA, AA, LRA, VPA) and returns the generalised dataset with a
report.  A hierarchy node stands for a non-empty subset of its leaves, so a generalised
item is written as a set-generalised item whose members are the node's leaves (those seen
in the data by default): ``semtui attack setgen`` attacks it like a COAT release.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from semtui.anonymize.hierarchy.problem import Problem, Progress
from semtui.errors import InputError
from semtui.model import TransactionData, Vocabulary
from semtui.model.hierarchy import Hierarchy

REPORT_FORMAT = "semtui-km-report/1"
ALGORITHMS = ("aa", "da", "oa", "lra", "vpa")
MEMBERS = ("observed", "all")


@dataclass
class KmResult:
    """A k^m-anonymous release and how it was made."""

    algorithm: str
    k: int
    m: int
    data: TransactionData
    hierarchy: Hierarchy
    ncp: float
    seconds: float
    count_tree_nodes: int
    #: the global cut's rules (internal nodes), or None for LRA
    cut: list[int] | None
    #: LRA: (transaction indices, rules) per part
    local_cuts: list[tuple[np.ndarray, list[int]]] | None
    members: str
    stats: dict = field(default_factory=dict)
    #: the multiple-level mining loss (semtui.metrics.utility.ml2), None when not asked for
    ml2: dict | None = None

    def _rules(self, nodes: list[int]) -> list[dict]:
        h = self.hierarchy
        return [{"node": h.labels[v], "leaves": int(h.n_leaves_under[v]), "depth": int(h.depth[v])}
                for v in nodes]

    def to_json(self) -> dict:
        """The report (format ``semtui-km-report/1``); keys are only ever added to."""
        h = self.hierarchy
        doc = {
            "algorithm": self.algorithm,
            "k": self.k,
            "m": self.m,
            "members": self.members,
            "n_transactions": self.data.n_transactions,
            "hierarchy": {"leaves": h.n_leaves, "nodes": h.n_nodes, "height": h.height},
            "ncp": self.ncp,
            "time_seconds": round(self.seconds, 4),
            "count_tree_nodes": self.count_tree_nodes,
            "generalised_items": self.data.n_generalised,
        }
        if self.ml2 is not None:
            doc["ml2"] = self.ml2
        if self.cut is not None:
            doc["cut"] = self._rules(self.cut)
        if self.local_cuts is not None:
            doc["local_cuts"] = [{"part": i + 1, "transactions": len(rows), "cut": self._rules(rules)}
                                 for i, (rows, rules) in enumerate(self.local_cuts)]
        doc["stats"] = self.stats
        from semtui.reports import document

        return document(REPORT_FORMAT, doc)


def problem_from_data(data: TransactionData, h: Hierarchy, k: int, m: int, path=None) -> Problem:
    """Map every item of ``data`` to its leaf; refuse unknown items and generalised input."""
    if data.n_generalised:
        raise InputError("the data already holds generalised items; k^m generalisation needs "
                         "plain transactions", path)
    leaf_of_item = np.full(len(data.vocab), -1, dtype=np.int64)
    missing, internal = [], []
    for i, name in enumerate(data.vocab.items):
        v = h.get(name)
        if v is None:
            missing.append(name)
        elif not h.is_leaf[v]:
            internal.append(name)
        else:
            leaf_of_item[i] = v
    if missing or internal:
        bad = missing or internal
        shown = ", ".join(repr(x) for x in bad[:5]) + (" ..." if len(bad) > 5 else "")
        what = "not in the hierarchy" if missing else "internal nodes of the hierarchy, not leaves"
        raise InputError(f"{len(bad)} item(s) of the data are {what}: {shown}", path)
    # No itemset has more items than the longest transaction, so k^m for a larger m is
    # k^(longest): the algorithms work at that size (an -m of 1000 costs nothing more).
    longest = int(np.diff(data.indptr).max()) if data.n_transactions else 1
    lowered = min(m, max(longest, 1))
    return Problem(h, data.indptr.astype(np.int64), leaf_of_item[data.tokens], k, lowered,
                   m if m != lowered else None)


def generalise_km(
    data: TransactionData,
    hierarchy: Hierarchy,
    k: int,
    m: int,
    algorithm: str = "aa",
    *,
    parts: int | None = None,
    jobs: int = 1,
    scheduler: str | None = None,
    members: str = "observed",
    minimal: bool = True,
    ml2_min_support: float | None = None,
    ml2_max_size: int | None = None,
    path=None,
    progress: Progress = None,
) -> KmResult:
    """Make ``data`` k^m-anonymous by generalising its items along ``hierarchy``.

    ``minimal`` (ours, not the paper's): after DA, AA, VPA (and each part of LRA) lower the
    rules the greedy committed that the data turns out not to need, so the cut is a
    minimal one (§3.4; see ``minimal.py``).  OA's cut is already optimal.

    ``ml2_min_support`` (a share of the transactions) measures ML² and dML² of the release
    (:func:`semtui.metrics.utility.ml2`, itemsets of at most ``ml2_max_size`` items); None
    skips them."""
    from semtui.anonymize.hierarchy.aa import aa
    from semtui.anonymize.hierarchy.da import da
    from semtui.anonymize.hierarchy.lra import lra
    from semtui.anonymize.hierarchy.minimal import minimise
    from semtui.anonymize.hierarchy.oa import oa
    from semtui.anonymize.hierarchy.vpa import vpa

    if algorithm not in ALGORITHMS:
        raise InputError(f"unknown algorithm {algorithm!r} (choose from {', '.join(ALGORITHMS)})")
    if members not in MEMBERS:
        raise InputError(f"unknown members {members!r} (choose from {', '.join(MEMBERS)})")
    if k < 1 or m < 1:
        raise InputError(f"k and m must be at least 1 (got k={k}, m={m})")
    if jobs < 1:
        raise InputError(f"--jobs must be at least 1 (got {jobs})")
    from semtui.runtime.cluster import check_scheduler

    scheduler = check_scheduler(scheduler)
    t0 = time.perf_counter()
    p = problem_from_data(data, hierarchy, k, m, path)
    from semtui.anonymize.hierarchy.counttree import check_keys, check_size

    check_keys(hierarchy, p.m, m)
    if algorithm in ("da", "oa"):  # one full count-tree at the bottom cut; AA (and LRA's and VPA's
        check_size(hierarchy, p.indptr, p.leaves, p.m, m)  # parts) checks each level as it counts it
    h = hierarchy
    local = None
    cut_rules = None
    from semtui.metrics.utility import ncp_occurrences

    lowering = {"rules_lowered": 0, "greedy_ncp": None, "seconds": 0.0}
    if algorithm == "lra":
        local_cuts, stats = lra(p, parts, jobs, progress=progress, scheduler=scheduler)
        if minimal:
            lowering["greedy_ncp"] = _local_ncp(p, local_cuts, h)
            t1 = time.perf_counter()
            lowered = []
            for rows, cut in local_cuts:
                cut, n_low = minimise(p.rows(rows), cut, progress)
                lowered.append((rows, cut))
                lowering["rules_lowered"] += n_low
            local_cuts = lowered
            lowering["seconds"] = round(time.perf_counter() - t1, 4)
        occ = np.empty(len(p.leaves), dtype=np.int64)
        lengths = np.diff(p.indptr)
        for rows, cut in local_cuts:
            idx = np.repeat(p.indptr[rows], lengths[rows]) + (
                np.arange(lengths[rows].sum()) - np.repeat(np.cumsum(lengths[rows]) - lengths[rows], lengths[rows]))
            occ[idx] = cut[p.leaves[idx]]
        local = [(rows, _rules(h, cut, p.leaves[_tokens_of(p, rows)])) for rows, cut in local_cuts]
    else:
        if algorithm == "aa":
            cut, stats = aa(p, progress=progress)
        elif algorithm == "da":
            cut, stats = da(p, progress=progress)
        elif algorithm == "oa":
            cut, stats = oa(p, progress=progress)
        else:
            cut, stats = vpa(p, 3 if parts is None else parts, jobs, progress=progress, scheduler=scheduler)
        if minimal and algorithm != "oa":
            lowering["greedy_ncp"] = ncp_occurrences(cut[p.leaves], h.n_leaves_under, h.n_leaves)
            t1 = time.perf_counter()
            cut, lowering["rules_lowered"] = minimise(p, cut, progress)
            lowering["seconds"] = round(time.perf_counter() - t1, 4)
        occ = cut[p.leaves]
        cut_rules = _rules(h, cut, None)
    if lowering["greedy_ncp"] is not None:
        stats["minimal"] = lowering

    ncp = ncp_occurrences(occ, h.n_leaves_under, h.n_leaves)
    out = release(data, p, occ, h, members)
    mining = None
    if ml2_min_support is not None:
        from semtui.metrics.utility import ml2

        if progress is not None:
            progress(0, 1, "ML² (frequent itemsets at every level)")
        t1 = time.perf_counter()
        mining = ml2(data, out, h, min_support=ml2_min_support, max_size=ml2_max_size, original_path=path)
        mining["seconds"] = round(time.perf_counter() - t1, 4)
    seconds = time.perf_counter() - t0
    return KmResult(algorithm, k, m, out, h, ncp, seconds, int(stats.get("count_tree_nodes", 0)),
                    cut_rules, local, members, stats, mining)


def _local_ncp(p: Problem, local_cuts, h: Hierarchy) -> float:
    from semtui.metrics.utility import ncp_occurrences

    occ = np.concatenate([cut[p.leaves[_tokens_of(p, rows)]] for rows, cut in local_cuts]) if local_cuts else p.leaves
    return ncp_occurrences(occ, h.n_leaves_under, h.n_leaves)


def _tokens_of(p: Problem, rows: np.ndarray) -> np.ndarray:
    lengths = np.diff(p.indptr)[rows]
    starts = np.repeat(p.indptr[rows], lengths)
    return starts + (np.arange(lengths.sum()) - np.repeat(np.cumsum(lengths) - lengths, lengths))


def _rules(h: Hierarchy, cut: np.ndarray, used_leaves: np.ndarray | None) -> list[int]:
    """The internal nodes of a cut (its generalisation rules), in preorder."""
    leaves = h.leaf_order if used_leaves is None else np.unique(used_leaves)
    nodes = np.unique(cut[leaves])
    return [int(v) for v in nodes if not h.is_leaf[v]]


def release(data: TransactionData, p: Problem, occ: np.ndarray, h: Hierarchy, members: str) -> TransactionData:
    """The generalised transactions: each occurrence at its node, repeats merged (strict
    set semantics), first-occurrence order kept; a node is written as the set of its
    leaves (seen in the data, or all) and a one-member set as that plain item."""
    vocab = Vocabulary(data.vocab.items)
    n = p.n_transactions
    lengths = np.diff(p.indptr)
    rows = np.repeat(np.arange(n, dtype=np.int64), lengths)
    key = rows * h.n_nodes + occ
    _, first = np.unique(key, return_index=True)
    first.sort()
    rows_out, nodes_out = rows[first], occ[first]
    # a token per distinct node
    item_of_leaf = np.full(h.n_nodes, -1, dtype=np.int64)
    item_of_leaf[p.leaves] = data.tokens
    token_of_node = np.zeros(h.n_nodes, dtype=np.int64)
    gen_members: list[np.ndarray] = []
    gen_labels: list[str] = []
    for v in np.unique(nodes_out).tolist():
        leaves = h.leaves(v)
        if members == "all":
            ids = np.array([vocab.add(h.labels[x]) for x in leaves.tolist()], dtype=np.int64)
        else:
            ids = item_of_leaf[leaves]
            ids = ids[ids >= 0]
        if len(ids) == 1:
            token_of_node[v] = int(ids[0])
        else:
            token_of_node[v] = -len(gen_members) - 1
            gen_members.append(ids)
            gen_labels.append(h.labels[v])
    tokens = token_of_node[nodes_out].astype(np.int32)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows_out, minlength=n), out=indptr[1:])
    gen_indptr = np.zeros(len(gen_members) + 1, dtype=np.int64)
    np.cumsum([len(x) for x in gen_members], out=gen_indptr[1:])
    flat = np.concatenate(gen_members).astype(np.int32) if gen_members else np.zeros(0, dtype=np.int32)
    return TransactionData(vocab, indptr, tokens, gen_indptr, flat, data.lines, data.ids,
                           gen_labels=gen_labels or None)
