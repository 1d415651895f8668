"""Set-based generalisation in the manner of COAT (Loukides et al. 2011).

Support in generalised data.  A transaction *supports* an item ``i`` when it holds ``i``
plainly or holds the generalised item that ``i`` is a member of (a generalised item may
stand for any non-empty subset of its members, Def. 3.3 of setgen-attack-shao-ong-toit2017,
so every transaction holding it could hold each member).  It supports an itemset when it
supports every item of it.  Generalisation is global: items are partitioned, and every
transaction that held any member of a generalised item holds that generalised item, once.

The greedy loop, one privacy constraint ``p`` at a time, in the order given:

* while the support of ``p`` is in ``(0, k)``:
* if even merging every token of ``p`` with everything its utility constraint allows could
  not lift the support to ``k``, no merge can help: suppress the least-supported token of
  ``p`` (every member of it, from every transaction), which makes the support 0;
* otherwise take the tokens of ``p`` from the least supported up; for the first one whose
  utility constraint offers a merge that raises the support of ``p``, merge it with the
  token of the same utility constraint whose merge costs the least utility loss (ties: the
  larger gain, then the lower id).  If no single merge raises the support, merge the
  least-supported token that can be merged with its cheapest partner anyway (a step
  towards a merge that will help).

Utility loss (COAT's UL with unit weights): a token ``g`` costs
``UL(g) = (2**|g| - 1) * sup(g) / N`` - ``2**|g| - 1`` is the number of non-empty subsets
it may stand for, ``sup(g)`` the transactions holding it.  Merging ``a`` and ``b`` costs
``UL(a | b) - UL(a) - UL(b)``.  COAT also divides by ``2**|I| - 1`` (a constant, so it does
not change any choice); it is left out of the reported figure, where it would underflow.

Merges only ever add supporting transactions and suppression only zeroes the support of
constraints that contain a suppressed item, so a constraint with support >= k stays
protected.  But a merge can lift a constraint whose support was 0 into ``(0, k)`` (its
items were never together; now a generalised item brings them together), so the loop
makes passes over the constraints until none is unprotected; each pass that changes
anything merges or suppresses, so it ends.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from semtui.errors import InputError
from semtui.model import TransactionData, generalised_label
from semtui.reports import Report
from semtui.runtime.progress import ProgressCallback, no_progress

#: How a merge is chosen among those that raise the support (see ``anonymize``).
CHOICES = ("least-loss", "loss-per-gain")

#: Largest exponent used in ``2**|g|`` (keeps every cost finite for absurdly large groups).
_MAX_EXP = 1000


def _w(size) -> np.ndarray:
    """``2**size - 1``: the number of non-empty subsets a generalised item may stand for."""
    return np.exp2(np.minimum(np.asarray(size, dtype=np.float64), _MAX_EXP)) - 1.0


@dataclass
class SetgenResult:
    """A set-generalised release and how it was made."""

    data: TransactionData
    k: int
    privacy: list[list[str]]
    #: The utility constraints used; ``None`` means one constraint holding every item.
    utility: list[list[str]] | None
    #: Members of each generalised item, in the order of ``data``'s generalised items.
    groups: list[list[str]]
    group_supports: list[int]
    suppressed: list[str]
    suppressed_occurrences: int
    #: Items of the privacy constraints that are not in the data (support 0).
    unknown_items: list[str]
    utility_loss: float
    added_items: int
    merges: int
    violated_before: int
    seconds: float
    extra: dict = field(default_factory=dict)

    @property
    def generalisation(self) -> dict[str, list[str]]:
        """Generalised item label ``(a, b, c)`` -> its members."""
        return {generalised_label(g): list(g) for g in self.groups}

    def summary(self) -> dict:
        """The JSON-able facts of the release (the sidecar without file names)."""
        return {
            "k": self.k,
            "n_transactions": self.data.n_transactions,
            "n_privacy_constraints": len(self.privacy),
            "violated_before": self.violated_before,
            "generalised_items": len(self.groups),
            "items_generalised": int(sum(len(g) for g in self.groups)),
            "added_items": self.added_items,
            "suppressed_items": len(self.suppressed),
            "suppressed_occurrences": self.suppressed_occurrences,
            "utility_loss": self.utility_loss,
            "merges": self.merges,
            "passes": self.extra.get("passes", 1),
            "merge_choice": self.extra.get("choice", "least-loss"),
            "seconds": round(self.seconds, 4),
        }


SIDECAR_FORMAT = "semtui-setgen-sidecar/1"
UL_FUNCTION = "sum over generalised items g of (2^|g| - 1) * sup(g) / N (COAT's UL, unit weights)"


@dataclass
class SetgenSidecar(Report):
    """The JSON sidecar of a set-generalised release: how it was made (it names the original's
    privacy constraints and suppressed items, so it is private like the original)."""

    FORMAT = SIDECAR_FORMAT

    result: SetgenResult
    original: str
    output: str
    privacy_source: dict
    utility: str
    #: the release writes every generalised item as its members, as plain items (unmarked.py)
    unmarked: bool = False

    def payload(self) -> dict:
        r = self.result
        return {
            "original": self.original,
            "output": self.output,
            "k": r.k,
            "privacy": self.privacy_source,
            "utility": self.utility,
            "privacy_constraints": r.privacy,
            "utility_constraints": r.utility,
            "generalisation": r.generalisation,
            "generalised_item_supports": dict(zip(r.generalisation, r.group_supports)),
            "suppressed": r.suppressed,
            "unknown_items": r.unknown_items,
            "utility_loss": r.utility_loss,
            "utility_loss_function": UL_FUNCTION,
            "stats": r.summary(),
            "time_seconds": round(r.seconds, 4),
            # only an unmarked release says so: a marked release's sidecar is as it always was
            **({"unmarked": True} if self.unmarked else {}),
        }


class _Generaliser:
    """The mutable state of one run: a partition of the items into tokens."""

    def __init__(self, data: TransactionData, classes: np.ndarray, k: int, choice: str = "least-loss"):
        self.k = k
        self.per_gain = choice == "loss-per-gain"
        self.n = data.n_transactions
        v = len(data.vocab)
        self.indptr = data.indptr.astype(np.int64)
        self.items = data.tokens.astype(np.int64)
        self.lengths = np.diff(self.indptr)
        row_of = np.repeat(np.arange(self.n, dtype=np.int64), self.lengths)
        order = np.argsort(self.items, kind="stable")
        counts = np.bincount(self.items, minlength=v)
        ptr = np.zeros(v + 1, dtype=np.int64)
        np.cumsum(counts, out=ptr[1:])
        by_item = row_of[order]  # rows of each item, ascending (a stable sort of row order)
        cap = 2 * v + 1  # at most v - 1 merges
        self.rows: list[np.ndarray | None] = [by_item[ptr[i]:ptr[i + 1]] for i in range(v)]
        self.members: list[list[int] | None] = [[i] for i in range(v)]
        self.sup = np.zeros(cap, dtype=np.int64)
        self.sup[:v] = counts
        self.size = np.zeros(cap, dtype=np.int64)
        self.size[:v] = 1
        self.orig_sup = counts
        self.cls = np.full(cap, -1, dtype=np.int64)
        self.cls[:v] = classes
        self.tok_of_item = np.arange(v, dtype=np.int64)
        self.live: dict[int, set[int]] = {}
        for i in np.flatnonzero(classes >= 0):
            self.live.setdefault(int(classes[i]), set()).add(int(i))
        self._closure: dict[int, np.ndarray] = {}
        self.suppressed: list[int] = []
        self.merges = 0

    # ------------------------------------------------------------ supports
    def tokens_of(self, items: np.ndarray) -> list[int] | None:
        """The distinct tokens holding ``items`` (None if one of them is suppressed)."""
        toks = self.tok_of_item[items]
        if (toks < 0).any():
            return None
        return sorted(set(toks.tolist()))

    def _mask(self, rows: np.ndarray) -> np.ndarray:
        """``rows`` (row ids) as a mask over the rows: a lookup in it is O(1), where ``np.isin``
        and ``np.unique`` sort (most of COAT's time on MEPS with WordNet classes)."""
        mask = np.zeros(self.n, dtype=bool)
        mask[rows] = True
        return mask

    def _intersect(self, arrays: list[np.ndarray]) -> np.ndarray:
        arrays = sorted(arrays, key=len)
        acc = arrays[0]
        for a in arrays[1:]:
            if not len(acc):
                break
            acc = acc[self._mask(a)[acc]]
        return acc

    def support_rows(self, toks: list[int]) -> np.ndarray:
        return self._intersect([self.rows[t] for t in toks])

    def _class_closure(self, c: int) -> np.ndarray:
        got = self._closure.get(c)
        if got is None:
            got = np.unique(np.concatenate([self.rows[t] for t in self.live[c]]))
            self._closure[c] = got
        return got

    def max_support(self, toks: list[int]) -> int:
        """Support of the constraint if every token took in its whole utility constraint."""
        seen: set[int] = set()
        arrays = []
        for t in toks:
            c = int(self.cls[t])
            if c < 0:
                arrays.append(self.rows[t])
            elif c not in seen:
                seen.add(c)
                arrays.append(self._class_closure(c))
        return len(self._intersect(arrays))

    def _held(self, toks: np.ndarray, *masks: np.ndarray) -> list[np.ndarray]:
        """For each mask over the rows, how many of its rows hold each of the live tokens ``toks``
        (a token's rows are exactly the rows that hold one of its items); the tokens' rows are
        gathered once for all the masks."""
        rows = [self.rows[t] for t in toks.tolist()]
        counts = np.fromiter(map(len, rows), dtype=np.int64, count=len(rows))
        ends = np.cumsum(counts)
        flat = np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)
        out = []
        for mask in masks:
            inside = np.zeros(len(flat) + 1, dtype=np.int64)
            np.cumsum(mask[flat], out=inside[1:])
            out.append(inside[ends] - inside[ends - counts])
        return out

    # ------------------------------------------------------------ choosing a merge
    def _evaluate(self, m: int, toks: list[int], cands: np.ndarray, s: int) -> tuple[np.ndarray, np.ndarray]:
        """Gain in support of the constraint and utility-loss cost of merging m with each candidate."""
        others = [t for t in toks if t != m]
        outside = self._mask(self.support_rows(others)) if others else np.ones(self.n, dtype=bool)
        outside[self.rows[m]] = False  # the rows the constraint's other tokens hold, but not m
        gain, overlap = self._held(cands, outside, self._mask(self.rows[m]))
        for j in np.flatnonzero(np.isin(cands, others)):
            c = int(cands[j])
            rest = [t for t in others if t != c]
            merged = np.union1d(self.rows[m], self.rows[c])
            gain[j] = len(self._intersect([merged] + [self.rows[t] for t in rest])) - s
        sup_m, size_m = self.sup[m], self.size[m]
        sup_c, size_c = self.sup[cands], self.size[cands]
        union = sup_m + sup_c - overlap
        cost = _w(size_m + size_c) * union - _w(size_m) * sup_m - _w(size_c) * sup_c
        return gain, cost

    def best_merge(self, toks: list[int], s: int) -> tuple[int, int] | None:
        fallback = None
        for m in sorted(toks, key=lambda t: (self.sup[t], t)):
            c = int(self.cls[m])
            if c < 0 or len(self.live[c]) < 2:
                continue
            cands = np.fromiter((t for t in self.live[c] if t != m), dtype=np.int64)
            cands.sort()
            gain, cost = self._evaluate(m, toks, cands, s)
            helpful = np.flatnonzero(gain > 0)
            if len(helpful):
                rank = cost[helpful]
                if self.per_gain:  # loss per unit of support still missing
                    rank = rank / np.minimum(gain[helpful], self.k - s)
                pick = helpful[np.lexsort((cands[helpful], -gain[helpful], rank))[0]]
                return m, int(cands[pick])
            if fallback is None:
                fallback = (m, int(cands[np.lexsort((cands, cost))[0]]))
        return fallback

    # ------------------------------------------------------------ changing the partition
    def merge(self, a: int, b: int) -> None:
        t = len(self.rows)
        self.rows.append(np.union1d(self.rows[a], self.rows[b]))
        members = sorted(self.members[a] + self.members[b])
        self.members.append(members)
        self.tok_of_item[members] = t
        self.sup[t] = len(self.rows[t])
        self.size[t] = len(members)
        c = int(self.cls[a])
        self.cls[t] = c
        self.live[c] -= {a, b}
        self.live[c].add(t)
        for x in (a, b):
            self.rows[x] = None
            self.members[x] = None
        self.merges += 1

    def suppress(self, t: int) -> None:
        members = self.members[t]
        self.suppressed.extend(members)
        self.tok_of_item[members] = -1
        c = int(self.cls[t])
        if c >= 0:
            self.live[c].discard(t)
            self._closure.pop(c, None)
            if not self.live[c]:
                del self.live[c]

    # ------------------------------------------------------------ the loop
    def protect(self, items: np.ndarray) -> None:
        while True:
            toks = self.tokens_of(items)
            if toks is None:
                return
            s = len(self.support_rows(toks))
            if s == 0 or s >= self.k:
                return
            if self.max_support(toks) < self.k:
                self.suppress(min(toks, key=lambda t: (self.sup[t], self.size[t], t)))
                return
            a, b = self.best_merge(toks, s)
            self.merge(a, b)

    def unprotected(self, items: np.ndarray) -> bool:
        toks = self.tokens_of(items)
        return toks is not None and 0 < len(self.support_rows(toks)) < self.k

    def live_tokens(self) -> list[int]:
        return sorted({int(t) for t in self.tok_of_item[self.tok_of_item >= 0]})


def anonymize(
    data: TransactionData,
    privacy: Sequence[Sequence[str]],
    k: int,
    utility: Sequence[Sequence[str]] | None = None,
    progress: ProgressCallback = no_progress,
    choice: str = "least-loss",
) -> SetgenResult:
    """Set-generalise ``data`` so that every privacy constraint has support >= k or 0.

    ``utility`` lists the utility constraints (disjoint item sets; an item in none of them
    is never generalised); ``None`` is one utility constraint holding every item, as in
    the thesis' experiments.  ``choice`` picks among the merges that raise the support:
    ``least-loss`` (the issue's rule, COAT's) the least utility loss; ``loss-per-gain`` the
    least loss per transaction of support gained (capped at what is still missing) - an
    alternative for experiments, see docs/anonymize.md.  Returns the release (same
    vocabulary and transaction order as ``data``) and what was done.
    """
    if choice not in CHOICES:
        raise InputError(f"unknown merge choice {choice!r} (choose from {', '.join(CHOICES)})")
    start = time.perf_counter()
    if k < 1:
        raise InputError(f"k must be at least 1 (got {k})")
    if data.n_generalised:
        raise InputError("the data is already set-generalised; anonymise the original transactions")
    vocab = data.vocab
    v = len(vocab)
    classes = np.zeros(v, dtype=np.int64) if utility is None else np.full(v, -1, dtype=np.int64)
    utility_list = None
    if utility is not None:
        utility_list = [list(u) for u in utility]
        for j, u in enumerate(utility_list):
            for it in u:
                i = vocab.get(it)
                if i is None:
                    continue
                if classes[i] >= 0 and classes[i] != j:
                    raise InputError(f"item {it!r} is in two utility constraints; they must be disjoint")
                classes[i] = j
    privacy_list = [list(p) for p in privacy]
    unknown = sorted({it for p in privacy_list for it in p if it not in vocab})
    known = [np.array([vocab.id(it) for it in dict.fromkeys(p)], dtype=np.int64)
             for p in privacy_list if all(it in vocab for it in p)]

    state = _Generaliser(data, classes, k, choice)
    violated = 0
    for items in known:
        toks = state.tokens_of(items)
        violated += int(0 < len(state.support_rows(toks)) < k)
    pending = list(range(len(known)))
    passes = 0
    while pending:
        passes += 1
        total = len(pending)
        for n, j in enumerate(pending):
            if n % 16 == 0:
                progress(n, total, f"constraints (pass {passes})")
            state.protect(known[j])
        progress(total, total, f"constraints (pass {passes})")
        # a merge can lift a constraint that had support 0 into (0, k): check them all again
        pending = [j for j, items in enumerate(known) if state.unprotected(items)]

    result = _build(data, state)
    seconds = time.perf_counter() - start
    return SetgenResult(
        data=result["data"], k=k, privacy=privacy_list, utility=utility_list,
        groups=result["groups"], group_supports=result["group_supports"],
        suppressed=vocab.names(sorted(state.suppressed)),
        suppressed_occurrences=int(state.orig_sup[state.suppressed].sum()) if state.suppressed else 0,
        unknown_items=unknown, utility_loss=result["utility_loss"],
        added_items=result["added"], merges=state.merges, violated_before=violated,
        seconds=seconds, extra={"passes": passes, "choice": choice},
    )


def _build(data: TransactionData, state: _Generaliser) -> dict:
    """The generalised TransactionData: each transaction keeps its order; a generalised item
    takes the place of its first member in it and appears once."""
    v = len(data.vocab)
    group_toks = [t for t in state.live_tokens() if state.size[t] > 1]
    group_toks.sort(key=lambda t: state.members[t][0])
    code = np.full(v, np.iinfo(np.int64).min, dtype=np.int64)  # suppressed
    plain = (state.tok_of_item >= 0) & (state.size[np.maximum(state.tok_of_item, 0)] == 1)
    code[plain] = np.flatnonzero(plain)
    for g, t in enumerate(group_toks):
        code[state.members[t]] = -g - 1
    tok = code[state.items]
    row_of = np.repeat(np.arange(state.n, dtype=np.int64), state.lengths)
    keep = np.flatnonzero(tok != np.iinfo(np.int64).min)
    n_g = len(group_toks)
    key = row_of[keep] * (v + n_g + 1) + (tok[keep] + n_g)
    _, first = np.unique(key, return_index=True)
    keep = keep[np.sort(first)]
    counts = np.bincount(row_of[keep], minlength=state.n)
    indptr = np.zeros(state.n + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    members = [state.members[t] for t in group_toks]
    gen_indptr = np.zeros(n_g + 1, dtype=np.int64)
    np.cumsum([len(m) for m in members], out=gen_indptr[1:])
    gen_members = np.array([i for m in members for i in m], dtype=np.int32)
    out = TransactionData(data.vocab, indptr, tok[keep].astype(np.int32), gen_indptr, gen_members,
                          lines=data.lines, ids=data.ids)
    sups = [int(state.sup[t]) for t in group_toks]
    sizes = [len(m) for m in members]
    added = int(sum(sz * s - int(state.orig_sup[m].sum()) for sz, s, m in zip(sizes, sups, members)))
    ul = float(sum(_w(sz) * s for sz, s in zip(sizes, sups)) / max(state.n, 1))
    return {
        "data": out,
        "groups": [data.vocab.names(m) for m in members],
        "group_supports": sups,
        "added": added,
        "utility_loss": ul if math.isfinite(ul) else float(np.finfo(np.float64).max),
    }
