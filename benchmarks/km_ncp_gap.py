"""Why AA's NCP on the BMS data is above the paper's 3 % (issue 16): greedy against minimal
against the exact optimum, on BMS-WebView-1/2, k = 5, m = 3, fanout-5 balanced hierarchies.

OA cannot run on these domains (WV1's fanout-5 hierarchy has ~10^40 cuts), so the optimum is
found another way: an integer program over the hierarchy with the breach constraints added
lazily (``optimum``).  g_v = 1 when the leaves under v are published at v or above
(g_leaf = 1, g_child >= g_parent), so v is a cut node iff g_v - g_parent(v) = 1 and
NCP = sum_v cost_v (g_v - g_parent(v)), cost_v = C(v) |leaves(v)| / (|I| sum_p C_p).
A set J of at most m nodes, none above another, with 0 < support(J) < k forces some j of J
to be published strictly above itself (else the transactions holding J publish, under the
j's, an itemset with support between 1 and support(J)): sum_{j in J} g_parent(j) >= 1.
Starting from the breaches of a few cuts, solve, add the breaches of the solution's cut,
repeat: the program only ever lacks constraints, so its value is a lower bound, and the
first solution whose cut has no breach is optimal.  It gives OA's NCP on the first 60 random domains of
tests/unit/test_km_anonymize.py (checked when this was written).

Run: nice python benchmarks/km_ncp_gap.py [wv1|wv2|orders ...]   (WV1 ~2 min, WV2 ~5 min;
KM_WV2_DEPTH=4 bounds WV2 from its classes of 25+ items only, in seconds)
"""

from __future__ import annotations

import datetime
import os
import random
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from scipy.optimize import Bounds, LinearConstraint, milp

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _util import SHARED_DATA, machine

from semtui import formats
from semtui.anonymize.hierarchy import counttree as ct
from semtui.anonymize.hierarchy import generalise_km, problem_from_data
from semtui.anonymize.hierarchy.problem import CutState, Problem
from semtui.model.hierarchy import balanced

DATA = SHARED_DATA if SHARED_DATA.exists() else Path("/work/shared/data")
#: WV2's leaf-level breaches run to tens of millions: bound it over its upper levels only
WV2_DEPTH = int(os.environ.get("KM_WV2_DEPTH", "5"))


def breaches(p: Problem, cut: np.ndarray) -> list[tuple[int, ...]]:
    """The published itemsets (sets of cut nodes, at most m) with 0 < support < k."""
    h = p.h
    ident = np.full((h.n_nodes, 1), -1, dtype=np.int64)
    nonroot = np.flatnonzero(np.arange(h.n_nodes) != h.root)
    ident[nonroot, 0] = nonroot
    out: list[tuple[int, ...]] = []
    for s in range(1, p.m + 1):
        enc = ct.make_encoding(h, np.zeros(h.n_nodes), s)
        ind, ranks = ct.expand(p.indptr, p.leaves, cut, ident, enc.rank_of_node)
        keys, counts = ct.count_itemsets(ind, ranks, s, enc)
        bad = enc.decode(keys[counts < p.k])
        nodes = np.r_[enc.node_of_rank, -1][bad]
        out += [tuple(x for x in row if x >= 0) for row in nodes.tolist()]
    return out


def coarsen(h, cut: np.ndarray, depth: int | None) -> np.ndarray:
    """The cut with every node deeper than ``depth`` replaced by its ancestor at ``depth``."""
    if depth is None:
        return cut
    out = cut.copy()
    leaves = h.leaf_order
    while True:
        deep = leaves[h.depth[out[leaves]] > depth]
        if not len(deep):
            return out
        out[deep] = h.parent[out[deep]]


def optimum(p: Problem, seed_cuts: list[np.ndarray], time_limit: float = 900.0, depth: int | None = None,
            log=print) -> tuple[float, np.ndarray, int]:
    """The least NCP of a k^m-anonymous cut, its cut and the rounds taken.  With ``depth``,
    only the breaches among nodes at most that deep are required (the cuts are coarsened to
    that depth before their breaches are counted): a relaxation, so the value is a lower
    bound on the optimum, far cheaper to reach when the leaves' breaches run to millions."""
    h = p.h
    n = h.n_nodes
    par = h.parent
    cost = p.node_count * p.node_ncp / max(p.total, 1)
    coef = cost.astype(float).copy()
    has = np.flatnonzero(par >= 0)
    np.subtract.at(coef, par[has], cost[has])
    mono = sp.csr_matrix((np.r_[np.ones(len(has)), -np.ones(len(has))],
                          (np.r_[np.arange(len(has)), np.arange(len(has))], np.r_[has, par[has]])),
                         shape=(len(has), n))
    lb, ub = np.zeros(n), np.ones(n)
    lb[h.is_leaf] = 1
    rows: list[tuple[int, ...]] = []
    seen: set[tuple[int, ...]] = set()

    def add(found) -> int:
        new = [J for J in found if J not in seen]
        seen.update(new)
        rows.extend(new)
        return len(new)

    for c in seed_cuts:
        add(breaches(p, coarsen(h, c, depth)))
    rounds = 0
    while True:
        rounds += 1
        r_i, c_i, v_i = [], [], []
        for i, J in enumerate(rows):
            for j in J:  # J never holds the root
                r_i.append(i), c_i.append(int(par[j])), v_i.append(1.0)
        a = sp.csr_matrix((v_i, (r_i, c_i)), shape=(len(rows), n))
        t0 = time.perf_counter()
        res = milp(coef, integrality=np.ones(n), bounds=Bounds(lb, ub),
                   constraints=[LinearConstraint(mono, 0, np.inf),
                                LinearConstraint(a, 1, np.inf)],
                   options={"time_limit": time_limit, "mip_rel_gap": 0})
        if res.status != 0:
            raise RuntimeError(f"the integer program stopped: {res.message}")
        g = np.round(res.x).astype(np.int64)
        nodes = np.flatnonzero(g - np.where(par >= 0, g[np.maximum(par, 0)], 0) == 1)
        cut = h.cut_from_nodes(nodes)
        value = CutState(p, cut).ncp()
        found = breaches(p, coarsen(h, cut, depth))
        new = add(found)
        log(f"    round {rounds}: {len(rows) - new:,} breach constraints, solved in "
            f"{time.perf_counter() - t0:.1f} s, NCP {value:.4%}, its cut has {len(found):,} breaches")
        if not found:
            return value, cut, rounds


def uniform_cuts(h) -> list[np.ndarray]:
    out = []
    for d in range(1, int(h.depth.max())):
        c = h.bottom_cut()
        for v in np.flatnonzero(h.depth == d).tolist():
            c[h.leaves(v)] = v
        out.append(c)
    return out


def order_items(data, how: str) -> list[str]:
    """As `semtui hierarchy build --order id|support|random --seed S` orders them."""
    items = sorted(data.vocab.items, key=int)
    if how == "id":
        return items
    if how == "support":
        sup = np.bincount(data.tokens, minlength=len(data.vocab))
        index = {x: i for i, x in enumerate(data.vocab.items)}
        return sorted(items, key=lambda x: -int(sup[index[x]]))
    random.Random(int(how.removeprefix("random"))).shuffle(items)
    return items


def gap(name: str, path: Path, how: str = "id", algorithms=("aa", "da", "vpa"), exact: bool = True,
        depth: int | None = None) -> list[str]:
    data = formats.read_transactions(path)
    h = balanced(order_items(data, how), 5)
    p = problem_from_data(data, h, 5, 3)
    row = [name, how, str(h.height)]
    seeds = uniform_cuts(h)  # and the algorithms' cuts below; not the bottom cut (millions of leaf breaches)
    for a in algorithms:
        for minimal in (False, True):
            try:
                r = generalise_km(data, h, 5, 3, a, minimal=minimal)
            except MemoryError:
                row.append("out of memory")
                continue
            row.append(f"{r.ncp:.2%} ({r.seconds:.1f} s)")
            seeds.append(h.cut_from_nodes(r.cut))
            print(f"  {name} {how} {a} minimal={minimal}: NCP {r.ncp:.4%}, {r.seconds:.1f} s, "
                  f"{len(r.cut)} rules", flush=True)
    if exact:
        t0 = time.perf_counter()
        value, cut, rounds = optimum(p, seeds, depth=depth)
        big = sorted(((p.node_count[v] * p.node_ncp[v] / p.total, int(h.n_leaves_under[v]))
                      for v in set(cut[h.leaf_order].tolist())), reverse=True)[:3]
        what = "optimum" if depth is None else f"lower bound (breaches among nodes of depth <= {depth})"
        print(f"  {what} {value:.4%} in {rounds} rounds, {time.perf_counter() - t0:.0f} s; "
              f"largest shares (NCP, leaves): {[(f'{c:.2%}', n) for c, n in big]}", flush=True)
        row.append(f"**{value:.2%}**" if depth is None else f">= {value:.2%}")
    return row


def main() -> None:
    what = sys.argv[1:] or ["wv1", "wv2"]
    la = os.getloadavg()
    print(f"# k^m NCP gap — {datetime.date.today()} — {machine()} — load {la[0]:.1f}")
    rows = []
    if "wv1" in what:
        rows.append(gap("WV1", DATA / "bms-webview-1.dat"))
    if "wv2" in what:
        rows.append(gap("WV2", DATA / "bms-webview-2.dat", algorithms=("aa", "vpa"), depth=WV2_DEPTH))
    if "orders" in what:
        for how in ("support", "random0", "random1", "random2"):
            rows.append(gap("WV1", DATA / "bms-webview-1.dat", how, algorithms=("aa",)))
    print("\n| data | items in | h | greedy / minimal NCP ... | optimum |")
    for r in rows:
        print("| " + " | ".join(r) + " |")
    print(f"(load at the end {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
