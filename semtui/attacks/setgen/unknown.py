"""Unknown generalised items (Ong's thesis §3.5.2): recover the generalised items of an
*unmarked* release — set-generalised transactions where each generalised item was replaced by
all its members as plain items — before the attack.

Two recoveries, the thesis' and a stronger one; the attack uses the stronger:

* **the thesis' rules**: an item in more than one transaction is a member of a generalised item,
  an item in one transaction is context; knowing k, an item in fewer than k transactions is
  context.  The rules cannot separate two generalised items of one transaction: the members of
  a transaction form one generalised item.
* **transaction-set signatures**: in set-based generalisation every item belongs to one
  generalised item, and every member of it occurs in exactly the transactions of its
  equivalence group.  Items with the same transaction set (their columns of the incidence,
  hashed, then compared exactly) form one generalised item; the thesis' rules and k then drop
  the classes of fewer than ``max(2, k)`` transactions.  Two generalised items with the same
  equivalence group *collide* (they come back as one), and a plain item occurring in exactly
  those transactions is absorbed into it: both are reported when the truth is known.

Exactness is scored against the release's sidecar (the true groups) and, with the original,
on the cells: how many added items lie inside a recovered group, where the attack can reach
them, and how many were left as plain items, where it cannot.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from semtui.errors import InputError
from semtui.model import TransactionData, generalised_label
from semtui.reports import json_float

#: Fixed seed of the row and item weights the signatures are hashed with (then compared exactly).
_HASH_SEED = 0x5E7_2015

#: How many collisions a report lists by name.
SHOWN = 10


@dataclass
class Recovery:
    """What recovery found: ``data`` is the release with the recovered generalised items marked."""

    data: TransactionData
    k: int | None
    k_source: str
    summary: dict
    exactness: dict | None = None
    cells: dict | None = None
    thesis_rules: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        out = {"method": "transaction-set signatures, then the thesis' rules and k",
               "k": self.k, "k_source": self.k_source, **self.summary, "thesis_rules": self.thesis_rules}
        if self.exactness is not None:
            out["exactness"] = self.exactness
        if self.cells is not None:
            out["cells"] = self.cells
        return out


# --------------------------------------------------------------------------- signatures
def _weights(n: int, salt: int) -> np.ndarray:
    return np.random.default_rng([_HASH_SEED, salt]).integers(0, 2**63, size=n, dtype=np.uint64) * np.uint64(2) + np.uint64(1)


def _segment_sums(values: np.ndarray, indptr: np.ndarray) -> np.ndarray:
    """Sum of every CSR segment (empty segments give 0), wrapping in uint64."""
    cums = np.zeros(len(values) + 1, dtype=np.uint64)
    np.cumsum(values, out=cums[1:])
    return cums[indptr[1:]] - cums[indptr[:-1]]


def signature_classes(data: TransactionData) -> tuple[np.ndarray, np.ndarray]:
    """Every item's class of identical transaction sets (``-1`` for an item in no transaction)
    and its support.  Hashed with two 64-bit sums of random row weights, then checked exactly."""
    cols = data.incidence().tocsc()
    cols.sort_indices()
    ptr, rows = cols.indptr.astype(np.int64), cols.indices.astype(np.int64)
    support = np.diff(ptr)
    n_items = len(support)
    h1 = _segment_sums(_weights(data.n_transactions, 1)[rows], ptr)
    h2 = _segment_sums(_weights(data.n_transactions, 2)[rows], ptr)
    order = np.lexsort((h2, h1, support))
    o_sup, o_h1, o_h2 = support[order], h1[order], h2[order]
    new = np.ones(n_items, dtype=bool)
    new[1:] = (o_sup[1:] != o_sup[:-1]) | (o_h1[1:] != o_h1[:-1]) | (o_h2[1:] != o_h2[:-1])
    cls = np.empty(n_items, dtype=np.int64)
    cls[order] = np.cumsum(new) - 1
    # exact check: every item's rows equal those of the first item of its class
    first = np.empty(int(new.sum()), dtype=np.int64)
    first[cls[order[new]]] = order[new]
    rep = first[cls]
    within = np.arange(len(rows), dtype=np.int64) - np.repeat(ptr[:-1], support)
    item_of = np.repeat(np.arange(n_items), support)
    differs = rows != rows[ptr[rep[item_of]] + within]
    if differs.any():  # a hash collision (never seen): split the classes it touched exactly
        cls = _split_exactly(cls, np.unique(item_of[differs]), ptr, rows)
    cls[support == 0] = -1
    return cls, support


def _split_exactly(cls: np.ndarray, bad_items: np.ndarray, ptr: np.ndarray, rows: np.ndarray) -> np.ndarray:
    cls = cls.copy()
    touched = np.isin(cls, cls[bad_items])
    nxt = int(cls.max()) + 1
    seen: dict[tuple, int] = {}
    for item in np.flatnonzero(touched).tolist():  # only the items of colliding classes
        key = tuple(rows[ptr[item]:ptr[item + 1]].tolist())
        if key not in seen:
            seen[key] = nxt
            nxt += 1
        cls[item] = seen[key]
    return cls


def _groups_from_labels(label: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """CSR of groups from a per-item group label (``-1``: not a member); members ascending."""
    members = np.flatnonzero(label >= 0)
    order = np.lexsort((members, label[members]))
    members = members[order]
    counts = np.bincount(label[members], minlength=int(label.max()) + 1 if len(members) else 0)
    indptr = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    return indptr, members.astype(np.int32)


def marked(data: TransactionData, group_of: np.ndarray) -> TransactionData:
    """``data`` (plain) with the items of each group (``group_of[item] >= 0``, dense ids) written
    as one generalised item, at the place of its first member in each transaction."""
    gen_indptr, gen_members = _groups_from_labels(group_of)
    tokens = data.tokens.astype(np.int64)
    g = group_of[tokens]
    tok = np.where(g >= 0, -g - 1, tokens)
    rows = data.row_of_token()
    span = len(data.vocab) + len(gen_indptr)
    _, first = np.unique(rows * span + (tok + len(gen_indptr)), return_index=True)
    first.sort()
    rows, tok = rows[first], tok[first]
    indptr = np.zeros(data.n_transactions + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=data.n_transactions), out=indptr[1:])
    return TransactionData(data.vocab, indptr, tok.astype(np.int32), gen_indptr, gen_members,
                           lines=data.lines, ids=data.ids)


def min_support(k: int | None) -> int:
    """The thesis' rule (more than one transaction) and, knowing k, at least k transactions."""
    return max(2, int(k or 0))


def signature_groups(cls: np.ndarray, support: np.ndarray, k: int | None,
                     first_seen: np.ndarray | None = None) -> np.ndarray:
    """Per item, its recovered generalised item (dense ids, ``-1``: context): the classes of at
    least two items occurring in at least :func:`min_support` transactions, numbered in the
    order they are first seen (``first_seen[item]``: its first place in the release), as a
    reader numbers the generalised items of a marked release."""
    ok = cls >= 0
    size = np.bincount(cls[ok], minlength=int(cls.max()) + 1 if ok.any() else 0)
    keep = ok & (support >= min_support(k))
    keep[ok] &= size[cls[ok]] >= 2
    dense = np.full(len(size), -1, dtype=np.int64)
    kept = np.unique(cls[keep])
    if first_seen is not None and len(kept):
        first = np.full(len(size), np.iinfo(np.int64).max, dtype=np.int64)
        np.minimum.at(first, cls[keep], first_seen[keep])
        kept = kept[np.argsort(first[kept], kind="stable")]
    dense[kept] = np.arange(len(kept))
    out = np.full(len(cls), -1, dtype=np.int64)
    out[keep] = dense[cls[keep]]
    return out


def thesis_rule_groups(data: TransactionData, support: np.ndarray, k: int | None) -> tuple[np.ndarray, np.ndarray]:
    """The thesis' rules as written: the members of a transaction (items of at least
    :func:`min_support` transactions) form one generalised item.  CSR of the distinct member
    sets of two or more items."""
    member = support >= min_support(k)
    tokens = data.tokens.astype(np.int64)
    rows = data.row_of_token()
    is_m = member[tokens]
    m_rows, m_items = rows[is_m], tokens[is_m]
    per_row = np.bincount(m_rows, minlength=data.n_transactions)
    rptr = np.zeros(data.n_transactions + 1, dtype=np.int64)
    np.cumsum(per_row, out=rptr[1:])
    order = np.lexsort((m_items, m_rows))
    m_items = m_items[order]
    h1 = _segment_sums(_weights(len(support), 3)[m_items], rptr)
    h2 = _segment_sums(_weights(len(support), 4)[m_items], rptr)
    cand = np.flatnonzero(per_row >= 2)
    if not len(cand):
        return np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int32)
    keys = np.stack([per_row[cand].astype(np.uint64), h1[cand], h2[cand]], axis=1)
    _, first = np.unique(keys, axis=0, return_index=True)
    reps = cand[np.sort(first)]
    sizes = per_row[reps]
    indptr = np.zeros(len(reps) + 1, dtype=np.int64)
    np.cumsum(sizes, out=indptr[1:])
    within = np.arange(int(indptr[-1])) - np.repeat(indptr[:-1], sizes)
    return indptr, m_items[np.repeat(rptr[reps], sizes) + within].astype(np.int32)


# --------------------------------------------------------------------------- exactness
def true_groups(doc: dict, data: TransactionData, path=None) -> tuple[np.ndarray, list[list[str]]]:
    """Per item of ``data``, its true generalised item in the sidecar ``doc`` (``-1``: plain)."""
    gen = doc.get("generalisation")
    if not isinstance(gen, dict):
        raise InputError("the sidecar has no 'generalisation' mapping", path)
    truth = np.full(len(data.vocab), -1, dtype=np.int64)
    groups = []
    for members in gen.values():
        ids = [data.vocab.get(m) for m in members if isinstance(m, str) and m in data.vocab]
        if len(ids) < 2:
            continue
        truth[ids] = len(groups)
        groups.append(list(members))
    return truth, groups


def score_groups(indptr: np.ndarray, members: np.ndarray, truth: np.ndarray, n_true: int,
                 vocab_names=None) -> dict:
    """How exactly recovered groups (CSR over items) match the true ones (``truth[item]``)."""
    sizes = np.diff(indptr)
    n_rec = len(sizes)
    true_size = np.bincount(truth[truth >= 0], minlength=max(n_true, 1))
    t = truth[members]
    out: dict = {"true_groups": int(n_true), "recovered_groups": int(n_rec)}
    if n_rec:
        starts = indptr[:-1]
        tmin = np.minimum.reduceat(t, starts)
        tmax = np.maximum.reduceat(t, starts)
        exact = (tmin == tmax) & (tmin >= 0) & (sizes == true_size[np.maximum(tmin, 0)])
        grp = np.repeat(np.arange(n_rec), sizes)
        pairs = np.unique(np.stack([grp[t >= 0], t[t >= 0]], axis=1), axis=0)
        distinct = np.bincount(pairs[:, 0], minlength=n_rec) if len(pairs) else np.zeros(n_rec, dtype=np.int64)
        plain_in = np.bincount(grp[t < 0], minlength=n_rec)
    else:
        exact = distinct = plain_in = np.zeros(0, dtype=np.int64)
        grp = np.zeros(0, dtype=np.int64)
    n_exact = int(np.count_nonzero(exact))
    rec_items = np.unique(members)
    true_items = np.flatnonzero(truth >= 0)
    right_items = np.unique(members[np.repeat(exact, sizes)]) if n_rec else np.zeros(0)
    out.update({
        "exact_matches": n_exact,
        "group_precision": json_float(n_exact / n_rec) if n_rec else None,
        "group_recall": json_float(n_exact / n_true) if n_true else None,
        "exact_share": json_float(n_exact / n_true) if n_true else None,
        "member_precision": json_float(np.count_nonzero(truth[rec_items] >= 0) / len(rec_items)) if len(rec_items) else None,
        "member_recall": json_float(np.count_nonzero(np.isin(true_items, rec_items)) / len(true_items)) if len(true_items) else None,
        "members_right_group": json_float(len(right_items) / len(true_items)) if len(true_items) else None,
        "collided": int(np.count_nonzero(distinct >= 2)),
        "groups_absorbing_plain_items": int(np.count_nonzero((plain_in > 0) & (distinct >= 1))),
        "plain_items_absorbed": int(plain_in[distinct >= 1].sum()) if n_rec else 0,
        "false_groups": int(np.count_nonzero((distinct == 0) & (sizes > 0))),
    })
    if vocab_names is not None and n_rec:
        shown = []
        for r in np.flatnonzero(distinct >= 2)[:SHOWN].tolist():
            ms = members[indptr[r]:indptr[r + 1]]
            parts = sorted(set(truth[ms].tolist()))
            shown.append({"recovered": generalised_label(vocab_names(ms)),
                          "true_groups": [generalised_label(vocab_names(ms[truth[ms] == p])) if p >= 0
                                          else "plain: " + ", ".join(vocab_names(ms[truth[ms] < 0]))
                                          for p in parts]})
        out["collisions"] = shown
    return out


def cell_figures(data: TransactionData, group_of: np.ndarray, original: TransactionData, original_path=None) -> dict:
    """With the original: the added items of the unmarked release, inside the recovered groups
    (the attack can reach them) and left as plain items (it cannot)."""
    if original.n_transactions != data.n_transactions:
        raise InputError(f"the original has {original.n_transactions} transactions but the release has "
                         f"{data.n_transactions}; they must align line for line", original_path)
    if original.n_generalised:
        raise InputError("the original must be plain transactions, not set-generalised", original_path)
    rel = data.incidence()
    orig = original.incidence(data.vocab)
    held = rel.multiply(orig).tocsr()
    # an aligned original shares an item with every non-empty transaction of the release
    shared = np.diff(held.indptr)
    bad = np.flatnonzero((np.diff(rel.indptr) > 0) & (shared == 0))
    if len(bad):
        i = int(bad[0])
        raise InputError(f"transaction {i} of the release shares no item with this line of the original "
                         f"({len(bad)} transactions in all); the original must align line for line",
                         original_path, original.line_of(i))
    added = (rel - held).tocsc()
    per_item = np.diff(added.indptr)
    n_added = int(per_item.sum())
    inside = int(per_item[group_of >= 0].sum())
    gen_items = np.flatnonzero(per_item > 0)
    rec_items = np.flatnonzero(group_of >= 0)
    return {
        "added_items": n_added,
        "added_in_groups": inside,
        "added_left_plain": n_added - inside,
        "reachable_share": json_float(inside / n_added) if n_added else None,
        "items_with_added_occurrences": len(gen_items),
        "recovered_members_with_added_occurrences": int(np.count_nonzero(per_item[rec_items] > 0)),
    }


# --------------------------------------------------------------------------- the recovery
def recover(data: TransactionData, k: int | None = None, k_source: str = "unknown", *,
            sidecar: dict | None = None, sidecar_path=None, original: TransactionData | None = None,
            original_path=None) -> Recovery:
    """Recover the generalised items of the unmarked release ``data``; score them against the
    ``sidecar`` (true groups) and the ``original`` (added cells) when given."""
    if data.n_generalised:
        raise InputError("the release marks its generalised items: it is not unmarked")
    cls, support = signature_classes(data)
    first_seen = np.full(len(data.vocab), np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(first_seen, data.tokens.astype(np.int64), np.arange(len(data.tokens), dtype=np.int64))
    group_of = signature_groups(cls, support, k, first_seen)
    rec = marked(data, group_of)
    ok = cls >= 0
    class_size = np.bincount(cls[ok], minlength=int(cls.max()) + 1 if ok.any() else 0)
    multi = ok.copy()
    multi[ok] = class_size[cls[ok]] >= 2
    summary = {
        "items": int(np.count_nonzero(ok)),
        "signatures": len(np.unique(cls[ok])),
        "shared_signatures": int(np.count_nonzero(class_size >= 2)),
        "shared_signatures_below_support": len(np.unique(cls[multi & (support < min_support(k))])),
        "min_support": min_support(k),
        "recovered_groups": int(rec.n_generalised),
        "recovered_members": int(np.count_nonzero(group_of >= 0)),
        "rows_with_a_group": int(np.count_nonzero(np.bincount(rec.row_of_token()[rec.tokens < 0],
                                                              minlength=rec.n_transactions))),
    }
    r_ptr, r_mem = thesis_rule_groups(data, support, k)
    rules = {"groups": int(len(r_ptr) - 1),
             "members": int(np.count_nonzero(support >= min_support(k)))}
    exactness = None
    if sidecar is not None:
        truth, groups = true_groups(sidecar, data, sidecar_path)
        exactness = score_groups(rec.gen_indptr, rec.gen_members, truth, len(groups), data.vocab.names)
        true_sup = np.zeros(len(groups), dtype=np.int64)
        true_sup[truth[truth >= 0]] = support[truth >= 0]
        exactness["true_groups_below_support"] = int(np.count_nonzero(true_sup < min_support(k)))
        rules.update(score_groups(r_ptr, r_mem, truth, len(groups)))
        for key in ("true_groups", "collided", "collisions", "members_right_group"):
            rules.pop(key, None)
    cells = cell_figures(data, group_of, original, original_path) if original is not None else None
    return Recovery(rec, k, k_source, summary, exactness, cells, rules)


def read_sidecar(data_path) -> tuple[dict | None, Path | None]:
    """The sidecar ``DATA.json`` of a release, when there is one."""
    if data_path is None or str(data_path) == "-":
        return None, None
    side = Path(str(data_path) + ".json")
    if not side.is_file():
        return None, None
    from semtui import reports

    try:
        return reports.read(side, "semtui-setgen-sidecar/", "a set-generalisation sidecar"), side
    except InputError:
        return None, None


# --------------------------------------------------------------------------- in words
def _pct(x) -> str:
    return "-" if x is None else f"{100 * x:.1f} %"


def describe(doc: dict) -> list[str]:
    """What recovery found and what not marking hid, in words (the ``unmarked`` section of an
    attack report); both faces print these lines."""
    k = doc.get("k")
    lines = [f"Unmarked release: {doc['recovered_groups']} generalised items recovered ({doc['recovered_members']} "
             f"member items, in {doc['rows_with_a_group']} transactions) from identical transaction sets, keeping "
             f"items of at least {doc['min_support']} transactions"
             + (f" (k = {k}, {doc['k_source']})." if k else " (the thesis' rule; k unknown).")]
    ex = doc.get("exactness")
    if ex:
        rules = doc.get("thesis_rules") or {}
        lines.append(
            f"Against the sidecar: {ex['exact_matches']} of {ex['true_groups']} true generalised items recovered "
            f"exactly ({_pct(ex['exact_share'])}; precision {_pct(ex['group_precision'])}), "
            f"{_pct(ex['members_right_group'])} of member items in exactly their group; {ex['collided']} recovered "
            f"items merge generalised items that cover the same transactions (collisions), "
            f"{ex['plain_items_absorbed']} plain items absorbed, {ex['false_groups']} groups of plain items only, "
            f"{ex['true_groups_below_support']} true items in fewer than {doc['min_support']} transactions left "
            f"plain. The thesis' rules alone recover {rules.get('exact_matches', 0)} exactly.")
    cells = doc.get("cells")
    if cells:
        lines.append(
            f"Against the original: {cells['added_in_groups']} of the {cells['added_items']} items the "
            f"generalisation added lie in recovered groups ({_pct(cells['reachable_share'])}), where the attack "
            f"can reach them; {cells['added_left_plain']} were left as plain items.")
        if cells.get("attack_recall_all_added") is not None:
            lines.append(f"The attack took back {cells['attack_correct']} of all {cells['added_items']} added items "
                         f"({_pct(cells['attack_recall_all_added'])}).")
    # hidden: what recovery left plain, out of this attack's reach; changed: items not recovered exactly
    if (cells or {}).get("reachable_share") is not None:
        hidden, what = 1 - cells["reachable_share"], "the added items"
    elif (ex or {}).get("member_recall") is not None:
        hidden, what = 1 - ex["member_recall"], "the member items"
    else:
        hidden = what = None
    changed = 1 - ex["exact_share"] if (ex or {}).get("exact_share") is not None else 0.0
    if hidden is None:
        lines.append("Give --original (or keep the release's sidecar beside it) to learn how exactly the groups "
                     "were recovered.")
    elif hidden < 0.05 and changed < 0.05:
        lines.append("Not marking the generalised items hides almost nothing: they are recovered from the release "
                     "itself and the attack proceeds as on a marked release.")
    elif hidden < 0.05:
        lines.append(f"Not marking hides almost none of {what} ({_pct(hidden)}): they lie in recovered groups, within "
                     f"the attack's reach, though {_pct(changed)} of the generalised items came back merged or "
                     "changed (collisions, absorbed plain items); the attack's figures are the attack on those.")
    else:
        lines.append(f"Not marking hides {_pct(hidden)} of {what} from this recovery (left as plain items: groups "
                     "in fewer than k transactions); a stronger attacker (knowing the utility constraints) may "
                     "still find them, so do not count on it.")
    return lines
