"""The semantic attack on set-generalised transactions (Shao & Ong, ACM TOIT 2017; Ong's
thesis, ch. 3-5), over a whole dataset.

For each generalised item, its *equivalence group* (the transactions holding it) gives the
rows of a *distance table*; its members give the columns.  The *context* of a row is the
transaction's trivially generalised items (``all``) or the N of them nearest to the
generalised item by position (``nearest:N``, as the thesis does).  A cell aggregates the
distances between the member and the context items: ``mean`` (eq. 2 of the paper),
``min``, or ``top:K`` (mean of the K closest).  An eliminator
(:mod:`semtui.attacks.eliminate`) then removes the cells it judges added.

All distances of a run come from one batched call to the measure (every member against
every context item of the dataset); each table is then a vectorised gather-and-reduce.

With the original data, the report carries the papers' metrics (precision, recall, F1 of
eliminations against the items generalisation added), the density of each group, and the
AUC of the raw distances (the chance that an added cell scores farther than an original
one; 0.5 means the measure carries no signal on this data).  Recall counts the added items
of every row of a group, including rows the attack could not score (no context), so it
never flatters the attack.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from semtui.errors import InputError
from semtui.fileio import atomic_writer, read_text
from semtui.model import TransactionBuilder, TransactionData
from semtui.progress import ProgressCallback, no_progress

REPORT_FORMAT = "semtui-setgen-report/1"


# --------------------------------------------------------------------------- options
@dataclass(frozen=True)
class ContextSpec:
    """``all`` or ``nearest:N``."""

    nearest: int | None = None

    @classmethod
    def parse(cls, spec: str) -> ContextSpec:
        if spec == "all":
            return cls(None)
        kind, _, n = spec.partition(":")
        if kind == "nearest" and n.isdigit() and int(n) >= 1:
            return cls(int(n))
        raise InputError(f"--context must be 'all' or 'nearest:N' with N >= 1, got {spec!r}")

    def __str__(self) -> str:
        return "all" if self.nearest is None else f"nearest:{self.nearest}"


@dataclass(frozen=True)
class AggregateSpec:
    """``mean`` (the papers' eq. 2), ``min`` or ``top:K``."""

    kind: str = "mean"
    k: int | None = None

    @classmethod
    def parse(cls, spec: str) -> AggregateSpec:
        if spec in ("mean", "min"):
            return cls(spec)
        kind, _, k = spec.partition(":")
        if kind == "top" and k.isdigit() and int(k) >= 1:
            return cls("top", int(k))
        raise InputError(f"--aggregate must be 'mean', 'min' or 'top:K' with K >= 1, got {spec!r}")

    def __str__(self) -> str:
        return self.kind if self.k is None else f"top:{self.k}"


# --------------------------------------------------------------------------- contexts
def _segments(indptr: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Flat positions of the CSR segments of ``rows``, and the new indptr."""
    starts = indptr[rows]
    lengths = indptr[rows + 1] - starts
    new_ptr = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(lengths, out=new_ptr[1:])
    pos = np.repeat(starts - new_ptr[:-1], lengths) + np.arange(new_ptr[-1], dtype=np.int64)
    return pos, new_ptr


def contexts_for_group(data: TransactionData, g: int, context: ContextSpec) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows of group ``g`` and their contexts as CSR: ``(rows, indptr, items)``."""
    rows = data.group(g)
    pos, ptr = _segments(data.indptr, rows)
    toks = data.tokens[pos]
    row_local = np.repeat(np.arange(len(rows)), np.diff(ptr))
    plain = toks >= 0
    if context.nearest is None:
        items = toks[plain]
        counts = np.bincount(row_local[plain], minlength=len(rows))
    else:
        # position of the generalised item within its transaction, for every token
        local_pos = np.arange(len(pos)) - np.repeat(ptr[:-1], np.diff(ptr))
        gpos = np.zeros(len(rows), dtype=np.int64)
        is_g = toks == -g - 1
        gpos[row_local[is_g]] = local_pos[is_g]
        dist = np.abs(local_pos - gpos[row_local])
        cand = np.flatnonzero(plain)
        order = cand[np.lexsort((local_pos[cand], dist[cand], row_local[cand]))]
        r_sorted = row_local[order]
        first = np.searchsorted(r_sorted, np.arange(len(rows)))
        rank = np.arange(len(order)) - first[r_sorted]
        keep = order[rank < context.nearest]
        keep.sort()  # back to file order within rows
        items = toks[keep]
        counts = np.bincount(row_local[keep], minlength=len(rows))
    indptr = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    return rows, indptr, items.astype(np.int32)


def aggregate_table(block: np.ndarray, indptr: np.ndarray, aggregate: AggregateSpec) -> np.ndarray:
    """Reduce ``block`` (members x flat context entries) over each row's context segment.

    Every segment is non-empty and holds only context items the measure knows.
    Returns rows x members.
    """
    starts = indptr[:-1]
    n_rows = len(starts)
    if n_rows == 0:
        return np.zeros((0, block.shape[0]))
    if aggregate.kind == "mean":
        sums = np.add.reduceat(block, starts, axis=1)
        return (sums / np.diff(indptr)).T
    if aggregate.kind == "min":
        return np.minimum.reduceat(block, starts, axis=1).T
    # top:K - mean of the K smallest distances of each segment
    k = aggregate.k
    seg = np.repeat(np.arange(n_rows), np.diff(indptr))
    take = np.minimum(np.diff(indptr), k)
    out = np.empty((n_rows, block.shape[0]))
    for j, values in enumerate(block):  # one pass per member (column), vectorised over cells
        order = np.lexsort((values, seg))
        rank = np.arange(len(order)) - starts[seg[order]]
        chosen = order[rank < k]
        out[:, j] = np.bincount(seg[chosen], weights=values[chosen], minlength=n_rows) / take
    return out


# --------------------------------------------------------------------------- metrics
def auc(added: np.ndarray, original: np.ndarray) -> float | None:
    """P(an added cell's distance > an original cell's), ties counting one half."""
    added = added[np.isfinite(added)]
    original = original[np.isfinite(original)]
    if added.size == 0 or original.size == 0:
        return None
    from scipy.stats import rankdata

    ranks = rankdata(np.concatenate([added, original]))
    u = ranks[: added.size].sum() - added.size * (added.size + 1) / 2
    return float(u / (added.size * original.size))


def prf(eliminated: int, added: int, correct: int) -> dict:
    precision = correct / eliminated if eliminated else None
    recall = correct / added if added else None
    if precision and recall:
        f1 = 2 * precision * recall / (precision + recall)
    elif precision is not None and recall is not None:
        f1 = 0.0
    else:
        f1 = None
    return {"eliminated": eliminated, "added": added, "correct": correct,
            "precision": precision, "recall": recall, "f1": f1}


def _aligned_original(data: TransactionData, original: TransactionData, original_path=None):
    """The original as a CSR (transactions x release vocabulary), checked to align with the
    release (:func:`_check_alignment`), and for every generalised token of the release (in token
    order) how many of its members that transaction really holds."""
    from scipy.sparse import csr_matrix

    if original.n_transactions != data.n_transactions:
        raise InputError(
            f"the original has {original.n_transactions} transactions but the release has "
            f"{data.n_transactions}; they must align line for line", original_path)
    if original.n_generalised:
        raise InputError("the original must be plain transactions, not set-generalised", original_path)
    lookup = np.fromiter((data.vocab.get(s) if s in data.vocab else -1 for s in original.vocab.items),
                         dtype=np.int64, count=len(original.vocab))
    cols = lookup[original.tokens]
    rows = original.row_of_token()
    keep = cols >= 0
    orig = csr_matrix((np.ones(int(keep.sum()), dtype=np.int8), (rows[keep], cols[keep])),
                      shape=(data.n_transactions, len(data.vocab)))
    found = _members_held(data, orig)
    _check_alignment(data, orig, found, original, original_path)
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
    return np.asarray(hits[rows, -data.tokens[gen].astype(np.int64) - 1]).ravel().astype(np.int64)


def _check_alignment(data: TransactionData, orig, found: np.ndarray, original: TransactionData,
                     original_path) -> None:
    """Transaction i of the release must come from transaction i of the original: its plain
    items are original items and each generalised item has a member there.  A shuffled or
    foreign original would otherwise give metrics that look plausible and mean nothing."""
    rows = data.row_of_token()
    plain = data.tokens >= 0
    held = np.asarray(orig[rows[plain], data.tokens[plain]]).ravel()
    bad_rows = np.concatenate([rows[plain][held == 0], rows[~plain][found == 0]])
    if bad_rows.size:
        i = int(bad_rows.min())
        line = int(original.lines[i]) if original.lines is not None else i + 1
        raise InputError(
            f"transaction {i} of the release does not come from this line of the original "
            f"({bad_rows.size} items disagree in all); the original must align line for line",
            original_path, line)


def group_densities(data: TransactionData, original: TransactionData, original_path=None) -> np.ndarray:
    """Density of every equivalence group (thesis Def. 16): the share of its member cells
    (rows x members) that are original items.  Needs no measure and no attack."""
    _, found = _aligned_original(data, original, original_path)
    gs = -data.tokens[data.tokens < 0].astype(np.int64) - 1
    cells = data.group_sizes() * np.diff(data.gen_indptr)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.bincount(gs, weights=found.astype(np.float64), minlength=data.n_generalised) / cells


# --------------------------------------------------------------------------- the attack
def _json_float(x: float | None, digits: int = 6):
    if x is None:
        return None
    x = float(x)
    return round(x, digits) if math.isfinite(x) else None


def run_setgen_attack(
    data: TransactionData,
    original: TransactionData | None = None,
    *,
    method: str = "rba",
    measure: str | Any = "embedding",
    context: str = "all",
    aggregate: str = "mean",
    threshold: float | None = None,
    seed: int | None = None,
    vectors: str | Path | None = None,
    cache: bool = True,
    k: int | None = None,
    progress: ProgressCallback | None = None,
    original_path: str | Path | None = None,
) -> dict:
    """Attack every equivalence group of ``data``; return the JSON-ready report.

    ``measure`` is a spec (``embedding``, ``scores:FILE``, ``ngd:INDEX`` ...) or a
    :class:`semtui.measures.base.Measure`.  ``k`` is the protection level against which
    exposure is judged (default: the smallest group size, the least cover the release
    offers).  ``progress(done, total, message)`` may raise ``Interrupted`` to cancel.
    """
    from semtui.attacks.eliminate import METHODS, eliminate
    from semtui.measures import open_measure

    progress = progress or no_progress
    if method not in METHODS:
        raise InputError(f"unknown method {method!r} (choose from {', '.join(METHODS)})")
    if threshold is not None:
        if method in ("mda", "ra"):
            raise InputError(f"--threshold does not apply to {method}")
        if not math.isfinite(threshold):
            raise InputError(f"--threshold must be a finite number, got {threshold}")
    if seed is not None and seed < 0:
        raise InputError(f"--seed must be a non-negative integer, got {seed}")
    if k is not None and k < 1:
        raise InputError(f"--k must be at least 1, got {k}")
    ctx = ContextSpec.parse(context)
    agg = AggregateSpec.parse(aggregate)
    if data.n_generalised == 0:
        raise InputError("the dataset has no generalised items to attack")
    started = time.perf_counter()
    m = open_measure(measure, vectors=vectors, cache=cache) if isinstance(measure, str) else measure
    measure_name = measure if isinstance(measure, str) else m.name
    vocab = data.vocab
    n_groups = data.n_generalised
    sizes = data.group_sizes()
    k_used = int(k) if k is not None else int(sizes.min())

    # 1. contexts of every group, and every term the measure must score
    group_ctx = []
    for g in range(n_groups):
        if g % 64 == 0:  # a cancel takes effect here too, not only once the tables are built
            progress(g, n_groups, "contexts")
        group_ctx.append(contexts_for_group(data, g, ctx))
    member_ids = np.unique(data.gen_members)
    ctx_ids = np.unique(np.concatenate([c[2] for c in group_ctx] + [np.zeros(0, dtype=np.int32)]))

    # 2. one batched call to the measure
    progress(0, n_groups, "scoring")
    unknown = sorted(set(m.unknown(vocab.names(np.union1d(member_ids, ctx_ids)))))
    if len(member_ids) and len(ctx_ids):
        dist = np.asarray(m.distances(vocab.names(member_ids), vocab.names(ctx_ids)), dtype=np.float64)
    else:
        dist = np.zeros((len(member_ids), len(ctx_ids)))
    unknown_set = set(unknown)
    ctx_known = np.array([vocab[i] not in unknown_set for i in ctx_ids], dtype=bool) & ~np.all(np.isnan(dist), axis=0) \
        if len(ctx_ids) else np.zeros(0, dtype=bool)
    member_pos = np.full(len(vocab), -1, dtype=np.int64)
    member_pos[member_ids] = np.arange(len(member_ids))
    ctx_pos = np.full(len(vocab), -1, dtype=np.int64)
    ctx_pos[ctx_ids] = np.arange(len(ctx_ids))

    orig_csr = _aligned_original(data, original, original_path)[0] if original is not None else None

    groups_out = []
    all_added_d: list[np.ndarray] = []
    all_orig_d: list[np.ndarray] = []
    totals = {"eliminated": 0, "added": 0, "correct": 0}
    density_cells = [0, 0]
    privacy = {"exposed": 0, "member_items": 0, "reidentified_rows": 0, "attacked_rows": 0}
    for g in range(n_groups):
        rows_all, cptr, citems = group_ctx[g]
        members = data.members(g)
        # keep only context items the measure knows; rows left without context are skipped
        cpos = ctx_pos[citems]
        known = ctx_known[cpos] if len(cpos) else np.zeros(0, dtype=bool)
        seg = np.repeat(np.arange(len(rows_all)), np.diff(cptr))
        kept_counts = np.bincount(seg[known], minlength=len(rows_all))
        has_ctx = kept_counts > 0
        rows = rows_all[has_ctx]
        kept_ptr = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum(kept_counts[has_ctx], out=kept_ptr[1:])
        flat = cpos[known]
        block = dist[member_pos[members]][:, flat]
        table = aggregate_table(block, kept_ptr, agg)
        result = eliminate(table, method, threshold=threshold, seed=None if seed is None else seed + g)

        row_ctx = [vocab.names(citems[cptr[r]:cptr[r + 1]][known[cptr[r]:cptr[r + 1]]]) for r in np.flatnonzero(has_ctx)]
        member_names = vocab.names(members)
        elims = [
            {"step": e.step, "transaction": int(rows[e.row]), "row": int(e.row), "item": member_names[e.col],
             "column": int(e.col), "distance": _json_float(e.distance), "weighted": _json_float(e.weighted),
             "vulnerability": _json_float(e.vulnerability), "group": e.group}
            for e in result.eliminations
        ]
        eliminated_cols = np.bincount([e.col for e in result.eliminations], minlength=len(members))
        possible = len(rows_all) - eliminated_cols
        exposed = [member_names[j] for j in np.flatnonzero(possible < k_used)]
        # a row is reduced to one member when exactly one member is still possible in it:
        # live cells, plus cells the measure could not score (never eliminated)
        possible_cells = result.live | np.isnan(table)
        reidentified = int((possible_cells.sum(axis=1) == 1).sum()) if possible_cells.size else 0
        privacy["exposed"] += len(exposed)
        privacy["member_items"] += len(members)
        privacy["reidentified_rows"] += reidentified
        privacy["attacked_rows"] += len(rows)
        grp = {
            "id": g,
            "generalised_item": data.label(g),
            "members": member_names,
            "size": len(rows_all),
            "rows": [
                {"transaction": int(t), "line": int(data.lines[t]) if data.lines is not None else int(t) + 1,
                 "context": c}
                for t, c in zip(rows.tolist(), row_ctx)
            ],
            "skipped": rows_all[~has_ctx].tolist(),
            "table": [[_json_float(v) for v in row] for row in table.tolist()],
            "threshold": _json_float(result.threshold),
            "eliminations": elims,
            "possible": {name: int(p) for name, p in zip(member_names, possible.tolist())},
            "exposed": exposed,
            "reidentified_rows": reidentified,
        }
        if orig_csr is not None:
            orig_all = orig_csr[rows_all][:, members].toarray() > 0
            orig = orig_all[has_ctx]
            added = int((~orig_all).sum())
            correct = sum(1 for e in result.eliminations if not orig[e.row, e.col])
            grp["original"] = orig.tolist()
            grp["density"] = _json_float(orig_all.mean()) if orig_all.size else None
            added_d, orig_d = table[~orig], table[orig]
            grp["metrics"] = {**prf(len(elims), added, correct), "auc": _json_float(auc(added_d, orig_d))}
            grp["metrics"] = {key: _json_float(v) if isinstance(v, float) else v for key, v in grp["metrics"].items()}
            all_added_d.append(added_d)
            all_orig_d.append(orig_d)
            totals["eliminated"] += len(elims)
            totals["added"] += added
            totals["correct"] += correct
            density_cells[0] += int(orig_all.sum())
            density_cells[1] += orig_all.size
        groups_out.append(grp)
        progress(g + 1, n_groups, "attacking")

    report: dict = {
        "format": REPORT_FORMAT,
        "method": method,
        "measure": measure_name,
        "measure_kind": getattr(m, "kind", "distance"),
        "context": str(ctx),
        "aggregate": str(agg),
        "threshold": threshold,
        "seed": seed,
        "k": k_used,
        "unknown_terms": unknown,
        "summary": {
            "transactions": data.n_transactions,
            "groups": n_groups,
            "rows": int(sizes.sum()),
            "attacked_rows": privacy["attacked_rows"],
            "skipped_rows": int(sum(len(gr["skipped"]) for gr in groups_out)),
            "eliminations": int(sum(len(gr["eliminations"]) for gr in groups_out)),
            "seconds": round(time.perf_counter() - started, 4),
        },
        "privacy": {
            "k": k_used,
            "member_items": privacy["member_items"],
            "exposed_items": privacy["exposed"],
            "exposed_share": _json_float(privacy["exposed"] / privacy["member_items"]) if privacy["member_items"] else None,
            "reidentified_rows": privacy["reidentified_rows"],
        },
        "groups": groups_out,
    }
    if orig_csr is not None:
        overall = prf(totals["eliminated"], totals["added"], totals["correct"])
        a = np.concatenate(all_added_d) if all_added_d else np.zeros(0)
        o = np.concatenate(all_orig_d) if all_orig_d else np.zeros(0)
        overall["auc"] = auc(a, o)
        overall["density"] = density_cells[0] / density_cells[1] if density_cells[1] else None
        report["metrics"] = {key: _json_float(v) if isinstance(v, float) else v for key, v in overall.items()}
    return report


# --------------------------------------------------------------------------- outputs
def attacked_dataset(data: TransactionData, report: dict) -> TransactionData:
    """The release with each generalised item reduced, per transaction, to what survived."""
    removed: dict[tuple[int, int], set[str]] = {}
    for grp in report["groups"]:
        for e in grp["eliminations"]:
            removed.setdefault((e["transaction"], grp["id"]), set()).add(e["item"])
    builder = TransactionBuilder()
    for i in range(data.n_transactions):
        out = []
        for t in data.transaction(i).tolist():
            if t >= 0:
                out.append(data.vocab[t])
                continue
            g = -t - 1
            gone = removed.get((i, g))
            members = data.member_names(g)
            out.append(members if not gone else [x for x in members if x not in gone])
        builder.add(out)
    return builder.build(ids=data.ids)


def write_report(report: dict, path: str | Path) -> None:
    with atomic_writer(path) as fh:
        json.dump(report, fh, ensure_ascii=False, indent=1, allow_nan=False)
        fh.write("\n")


def load_report(path: str | Path) -> dict:
    text = read_text(path)
    try:
        report = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON: {exc.msg}", path, exc.lineno) from None
    if not isinstance(report, dict) or report.get("format") != REPORT_FORMAT:
        raise InputError(f"not a set-generalisation attack report ('format' must be {REPORT_FORMAT!r})", path)
    if not isinstance(report.get("groups"), list):
        raise InputError("report has no 'groups' list", path)
    return report
