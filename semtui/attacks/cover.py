"""Cover problems in disassociated releases and the privacy breaches they allow (the
cover-problem paper, ``papers/cover-problem-disassociation.txt``: Definition 3, Lemma 1 and
Algorithm 1, with the fixes of ALGORITHMS.md §3).

For an item x of record chunk Cj (j >= 2) of a cluster and each earlier chunk Cl (l < j), let
``I = {y in Cl : s(y, Cl) >= s(x, Cj)}`` (s: the number of sub-records holding it).  A *cover
problem* exists when I holds at least two items and the support of the whole itemset I in Cl
equals the smallest single support in I: every sub-record holding the item of that smallest
support, the *covered* item y*, also holds every other item of I (its *covering* items).  Had x
really gone with y*, it would have gone with all of I, and disassociation would have kept them in
one chunk; so an attacker who knows {x, y*} together learns more than the release should allow.

It is a *breach* when an itemset of the attacker's background knowledge holds both x and y*
(the strong attacker: always).  The vulnerable records of a cluster are its largest per-chunk
breach count (reset per cluster); the release's figure is the sum over clusters.

With REFINE's joint clusters (ALGORITHMS.md §8) a cluster's chunks are its record chunks and
then the shared chunks of its joint cluster(s), whose supports count the sub-records of every
member's records: a cover problem can span a record chunk and a shared chunk (``chunk_label``
says which, e.g. ``J3/S1``).  A problem between two shared chunks is the same for every member
and is listed under the first member only; a shared x that the cluster shows in its own chunks
makes no problem with them (each (cluster, item) is in one place: that x is another member's).

The pseudo-code's loop bug (``l`` set once per chunk, so only the first item is checked) is
fixed: every item of every chunk is checked against every earlier chunk.  Supports are counted
with numpy over the chunks' CSR arrays: per (cluster, Cl), a dense membership matrix of Cl's
sub-records over its items sorted by descending support, whose running AND gives the support of
every prefix -- and I is always such a prefix -- so every x of Cj is decided at once.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np

from semtui.attacks.cover_knowledge import (
    WEAK_OUTSIDE_WORDS,
    held,
    knowledge_pairs,
    moderate_knowledge,
    original_rows,
    pair_codes,
    read_knowledge,
    weak_knowledge,
)
from semtui.attacks.cover_report import (
    REPORT_FORMAT,
    CoverCluster,
    CoverReport,
    CoverSummary,
    ProblemEntry,
    ReachedRecord,
    covering_words,
)
from semtui.errors import InputError
from semtui.model import DisassociatedData, DisassociationKey, RecordChunk, TransactionData
from semtui.model.transactions import in_sorted
from semtui.reports import paused_gc

__all__ = ["ATTACKERS", "REPORT_FORMAT", "CoverCluster", "CoverOptions", "CoverProblem", "CoverProblems", "CoverReport",
           "CoverSummary", "ProblemEntry", "ReachedRecord", "covering_words", "problem_records", "run_cover"]

ATTACKERS = ("strong", "moderate", "weak", "knowledge")


@dataclass(frozen=True)
class CoverOptions:
    """Everything that decides a cover search's result: the defaults and their validation, in one
    place (the CLI, the TUI form and the engine all build it; a bad value raises
    :class:`InputError` with ``option`` set).  ``knowledge``: a file of itemsets, one per line,
    that replaces the attacker; ``seed``: the moderate and weak attackers' knowledge."""

    attacker: str = "strong"
    knowledge: str | None = None
    seed: int = 0

    def __post_init__(self) -> None:
        attacker = str(self.attacker).strip().lower()
        if attacker not in ATTACKERS[:3]:
            raise InputError(f"the attacker must be {', '.join(ATTACKERS[:2])} or {ATTACKERS[2]}, got {self.attacker!r}",
                             option="attacker")
        object.__setattr__(self, "attacker", attacker)
        if self.knowledge is not None:
            knowledge = str(self.knowledge).strip()
            object.__setattr__(self, "knowledge", knowledge or None)
        seed = 0 if self.seed is None else self.seed
        if isinstance(seed, bool) or not isinstance(seed, (int, float)) or int(seed) != seed or seed < 0:
            raise InputError(f"the seed must be a whole number of at least 0, got {self.seed!r}", option="seed")
        object.__setattr__(self, "seed", int(seed))

    @property
    def who(self) -> str:
        """The attacker the report names: ``knowledge`` when a knowledge file replaces it."""
        return "knowledge" if self.knowledge is not None else self.attacker

    @property
    def input_files(self) -> list[Path]:
        """The files the options read (the knowledge file): never outputs."""
        return [Path(self.knowledge)] if self.knowledge and self.knowledge != "-" else []

    def replace(self, **changes) -> CoverOptions:
        return replace(self, **changes)

    def to_json(self) -> dict:
        return asdict(self)


@dataclass
class CoverProblem:
    cluster: int            # cluster index
    chunk: int              # 0-based record chunk of x
    earlier: int            # 0-based earlier chunk
    x: int
    support_x: int
    covered: list[int]      # items of I with the smallest support (usually one)
    covering: list[int]     # the rest of I
    supports: list[int]     # support in the earlier chunk of covered + covering, in that order
    itemset_support: int
    breach: bool = False
    real: bool | None = None


def chunk_supports(chunk: RecordChunk) -> tuple[np.ndarray, np.ndarray]:
    """The distinct items of a record chunk and the number of its sub-records holding each."""
    items, counts = np.unique(chunk.items, return_counts=True)
    return items.astype(np.int64), counts.astype(np.int64)


def prefix_supports(chunk: RecordChunk, order_items: np.ndarray) -> np.ndarray:
    """Support in ``chunk`` of every prefix of ``order_items`` (entry p: the first p + 1 items)."""
    n_sub = len(chunk)
    pos = np.full(int(max(order_items.max(initial=-1), chunk.items.max(initial=-1))) + 1, -1, dtype=np.int64)
    pos[order_items] = np.arange(len(order_items))
    member = np.zeros((n_sub, len(order_items)), dtype=bool)
    rows = np.repeat(np.arange(n_sub), np.diff(chunk.indptr))
    cols = pos[chunk.items]
    member[rows[cols >= 0], cols[cols >= 0]] = True
    return np.logical_and.accumulate(member, axis=1).sum(axis=0)


def cluster_cover_problems(chunks: list[RecordChunk], cluster: int = 0, cache: dict | None = None) -> list[CoverProblem]:
    """Every cover problem of one cluster (every item of every chunk against every earlier chunk).
    ``cache`` keeps a chunk's supports between calls (a joint cluster's shared chunks recur in
    every member cluster)."""
    out: list[CoverProblem] = []
    cache = {} if cache is None else cache

    def stats_of(ch: RecordChunk) -> tuple:
        got = cache.get(id(ch))
        if got is None or got[0] is not ch:
            items, sup = chunk_supports(ch)
            order = np.lexsort((items, -sup))        # descending support, then item id
            prefix = prefix_supports(ch, items[order]) if len(items) >= 2 else None
            got = cache[id(ch)] = (ch, items, sup, items[order], sup[order], prefix)
        return got

    stats = [stats_of(ch)[1:3] for ch in chunks]
    for l_idx in range(len(chunks) - 1):
        items_l = stats[l_idx][0]
        if len(items_l) < 2:
            continue
        _, _, _, items_sorted, sup_sorted, prefix = stats_of(chunks[l_idx])
        for j in range(l_idx + 1, len(chunks)):
            items_j, sup_j = stats[j]
            if len(items_j) == 0:
                continue
            # |I| for every x: the number of items of Cl with support >= s(x, Cj)
            size = np.searchsorted(-sup_sorted, -sup_j, side="right")
            ok = size >= 2
            last = np.maximum(size - 1, 0)
            ok &= prefix[last] == sup_sorted[last]
            for xi in np.flatnonzero(ok).tolist():
                p = int(size[xi])
                min_sup = int(sup_sorted[p - 1])
                in_i = items_sorted[:p]
                sups = sup_sorted[:p]
                covered = in_i[sups == min_sup]
                covering = in_i[sups != min_sup]
                out.append(CoverProblem(
                    cluster, j, l_idx, int(items_j[xi]), int(sup_j[xi]),
                    covered.tolist(), covering.tolist(),
                    [min_sup] * len(covered) + sups[sups != min_sup].tolist(), int(prefix[p - 1])))
    out.sort(key=lambda c: (c.chunk, c.earlier, c.x))
    return out


def cluster_chunks(data: DisassociatedData, ci: int, joint_of: dict | None = None) -> tuple[list, list]:
    """The chunks a cover problem of cluster ``ci`` can span: its record chunks, then the
    shared chunks of every joint cluster it is a member of (REFINE; ALGORITHMS.md §8), with a
    label each (``C2``, ``J3/S1``) -- and, per chunk, the joint cluster index (-1: a record chunk)."""
    c = data.clusters[ci]
    joint_of = data.joint_of() if joint_of is None else joint_of
    chunks = list(c.record_chunks)
    from semtui.wording import chunk_label

    labels = [chunk_label(j + 1) for j in range(len(chunks))]
    owner = [-1] * len(chunks)
    for ji in joint_of.get(c.id, ()):
        jc = data.joint_clusters[ji]
        for s_idx, ch in enumerate(jc.shared_chunks):
            chunks.append(ch)
            labels.append(chunk_label(s_idx + 1, jc.id))
            owner.append(ji)
    return chunks, list(zip(labels, owner))


def chunk_transactions(data: DisassociatedData, key, ci: int, chunk: int, joint_of: dict | None = None,
                       jkeys: dict | None = None) -> list[int]:
    """The key's transaction of every sub-record of chunk ``chunk`` (1-based, as a report's
    ``chunk``) of cluster ``ci``'s :func:`cluster_chunks`.  ``joint_of`` (``data.joint_of()``)
    and ``jkeys`` (the key's joint clusters by id): given by a caller that asks for many chunks,
    so that neither is rebuilt for each (on a REFINE release of BMS-WebView-1 that took minutes)."""
    c = data.clusters[ci]
    n_rec = len(c.record_chunks)
    if chunk <= n_rec:
        return key.cluster(c.id).record_chunks[chunk - 1]
    left = chunk - n_rec
    jkeys = {j.id: j for j in key.joint_clusters} if jkeys is None else jkeys
    for ji in (data.joint_of() if joint_of is None else joint_of).get(c.id, ()):
        jc = data.joint_clusters[ji]
        if left <= len(jc.shared_chunks):
            return jkeys[jc.id].shared_chunks[left - 1]
        left -= len(jc.shared_chunks)
    raise IndexError(chunk)


# --------------------------------------------------------------------------- the report
def problem_records(data: DisassociatedData, key: DisassociationKey, problems: list[ProblemEntry]) -> list[list[int]]:
    """Per cover problem of a report (its ``cluster`` id, 1-based ``chunk`` of
    :func:`cluster_chunks` -- a record chunk or a joint cluster's shared chunk -- and ``x``), the
    original transactions (0-based, the key's) whose sub-record in that chunk holds x: the
    records an attacker who knows {x, y*} of them, when the problem is a breach, learns more about."""
    return _per_problem(*problem_records_csr(data, key, problems))


def _per_problem(ptr: np.ndarray, ts: np.ndarray) -> list[list[int]]:
    """:func:`problem_records_csr`'s CSR as one list of transactions per problem."""
    return [part.tolist() for part in np.split(ts, ptr[1:-1])] if len(ptr) > 1 else []


def problem_records_csr(data: DisassociatedData, key: DisassociationKey,
                        problems: list[ProblemEntry]) -> tuple[np.ndarray, np.ndarray]:
    """:func:`problem_records` as one CSR (``ptr``, ``transactions``; each problem's sorted):
    the problems of one chunk found by one sorted search of its items, not a pass over the chunk
    per problem (disassociated MEPS has 56,928 problems over 10,220 chunks)."""
    index = {c.id: ci for ci, c in enumerate(data.clusters)}
    joint_of = data.joint_of()
    jkeys = {j.id: j for j in key.joint_clusters}
    n = len(problems)
    x = np.fromiter((-1 if (v := data.vocab.get(p.x)) is None else v for p in problems), dtype=np.int64, count=n)
    groups: dict[tuple[int, int], list[int]] = {}
    for i, p in enumerate(problems):
        groups.setdefault((index[p.cluster], p.chunk), []).append(i)
    lengths = np.zeros(n, dtype=np.int64)
    found = []
    for (ci, ch), pos in groups.items():
        chunk = cluster_chunks(data, ci, joint_of)[0][ch - 1]
        holders = np.asarray(chunk_transactions(data, key, ci, ch, joint_of, jkeys), dtype=np.int64)
        sub = np.repeat(np.arange(len(chunk), dtype=np.int64), np.diff(chunk.indptr))
        order = np.argsort(chunk.items, kind="stable")
        items = np.asarray(chunk.items)[order]
        pos = np.asarray(pos, dtype=np.int64)
        lo = np.searchsorted(items, x[pos])
        count = np.searchsorted(items, x[pos], side="right") - lo
        owner = np.repeat(np.arange(len(pos), dtype=np.int64), count)
        at = np.repeat(lo - (np.cumsum(count) - count), count) + np.arange(len(owner), dtype=np.int64)
        rows = sub[order[at]]
        o = np.lexsort((rows, owner))                        # each problem's distinct rows
        owner, rows = owner[o], rows[o]
        keep = np.ones(len(rows), dtype=bool)
        keep[1:] = (owner[1:] != owner[:-1]) | (rows[1:] != rows[:-1])
        owner, t = owner[keep], holders[rows[keep]]
        o = np.lexsort((t, owner))
        lengths[pos] = np.bincount(owner, minlength=len(pos))
        found.append((pos, owner[o], t[o]))
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lengths, out=ptr[1:])
    out = np.empty(int(ptr[-1]), dtype=np.int64)
    for pos, owner, t in found:   # each problem's transactions to its place
        first = np.cumsum(lengths[pos]) - lengths[pos]
        out[ptr[pos][owner] + np.arange(len(owner), dtype=np.int64) - first[owner]] = t
    return ptr, out


@paused_gc()
def _attach_records(problems_out: list[ProblemEntry], data: DisassociatedData, key: DisassociationKey,
                    original: TransactionData | None) -> tuple[list[ProblemEntry], int, int | None]:
    """Each problem with its ``records`` (:class:`ReachedRecord`: with the original its line, and
    whether it ``holds_covered``: really holds x with a covered item, so an attacker who knows
    that pair of it is right).  Returns the problems, the number of distinct records a breach
    reaches, and (with the original) of those that really hold the pair.

    Whether a record holds a covered item is one sorted search over every (record reached, item
    covered) pair at once, not a set of names per record (260,585 records on disassociated MEPS);
    the cyclic collector is paused meanwhile (:func:`~semtui.reports.paused_gc`)."""
    ptr, t_all = problem_records_csr(data, key, problems_out)
    counts = np.diff(ptr)
    reached = _per_problem(ptr, t_all)
    line_all = holds_all = None
    if original is not None:
        n = original.n_transactions
        inside = (t_all >= 0) & (t_all < n)
        if original.lines is not None and n:
            line_all = np.where(inside, original.lines[np.clip(t_all, 0, n - 1)], -1)
        else:
            line_all = np.where(inside, t_all + 1, -1)
        holds_all = _holds_covered(problems_out, counts, t_all, inside, data, original)
    out = []
    breached: set[int] = set()
    real: set[int] = set()
    at = 0
    for p, ts, c in zip(problems_out, reached, counts.tolist()):
        if original is None:
            recs = tuple(ReachedRecord(t) for t in ts)
        else:
            recs = tuple(ReachedRecord(t) if line < 0 else ReachedRecord(t, line, holds)
                         for t, line, holds in zip(ts, line_all[at:at + c].tolist(), holds_all[at:at + c].tolist()))
        at += c
        out.append(replace(p, records=recs))
        if p.breach:
            breached.update(ts)
            real.update(r.transaction for r in recs if r.holds_covered)
    return out, len(breached), (len(real) if original is not None else None)


def _holds_covered(problems: list[ProblemEntry], counts: np.ndarray, t_all: np.ndarray, inside: np.ndarray,
                   data: DisassociatedData, original: TransactionData) -> np.ndarray:
    """Per record reached (``t_all``, problem by problem, ``counts`` each): whether the original
    record holds one of its problem's covered items."""
    vocab = data.vocab
    cov = [np.fromiter((vocab.get(x) for x in p.covered if x in vocab), dtype=np.int64) for p in problems]
    cov_len = np.fromiter((len(c) for c in cov), dtype=np.int64, count=len(cov))
    cov_ptr = np.zeros(len(cov) + 1, dtype=np.int64)
    np.cumsum(cov_len, out=cov_ptr[1:])
    cov_flat = np.concatenate(cov) if len(cov) and cov_ptr[-1] else np.zeros(0, dtype=np.int64)
    # every (record reached, item covered) pair, looked up among the original's (record, item) codes
    problem_of = np.repeat(np.arange(len(problems), dtype=np.int64), counts)
    per = cov_len[problem_of]
    rec_of = np.repeat(np.arange(len(t_all), dtype=np.int64), per)
    offset = np.arange(int(per.sum()), dtype=np.int64) - np.repeat(np.cumsum(per) - per, per)
    item = cov_flat[cov_ptr[problem_of][rec_of] + offset]
    found = in_sorted(original.incidence_codes(vocab), t_all[rec_of] * len(vocab) + item) & inside[rec_of]
    return np.bincount(rec_of[found], minlength=len(t_all)) > 0


@dataclass
class CoverProblems:
    """A release's cover problems, which every attacker shares (only which of them are breaches
    differs): found once by :meth:`find` and given to each :func:`run_cover` of the release (an
    assessment's strong, moderate and weak attackers), which takes them where they are this
    release's and original's (:meth:`fits`).  Per problem, in the report's order: its entry
    (``breach`` False), its chunk within its cluster (``at``) and its (x, covered) pair codes
    (``codes[code_ptr[i]:code_ptr[i + 1]]``); per cluster, its figures but breaches
    (``clusters``) and its problems (``ptr``)."""

    data: DisassociatedData
    original: TransactionData | None
    clusters: list[CoverCluster]
    ptr: np.ndarray
    entries: list[ProblemEntry]
    at: list[int]
    codes: np.ndarray
    code_ptr: np.ndarray
    real_pairs: int | None

    #: per problem, its entry marked a breach, made when an attacker first breaches it (kept for the next)
    breach_entries: dict = field(default_factory=dict)

    def fits(self, data, original) -> bool:
        return data is self.data and original is self.original

    def marked(self, breach: np.ndarray) -> list[ProblemEntry]:
        """The entries, those of ``breach`` marked breaches: each copy made once for every attacker
        (the strong attacker breaches all 56,928 problems of disassociated MEPS, the others some)."""
        out = list(self.entries)
        made = self.breach_entries
        for i in np.flatnonzero(breach).tolist():
            e = made.get(i)
            if e is None:
                e = made[i] = replace(out[i], breach=True)
            out[i] = e
        return out

    def held(self, sorted_codes: np.ndarray) -> np.ndarray:
        """Per problem, whether the sorted pair codes hold one of its (x, covered) pairs: one
        sorted search over every problem's pairs (an attacker's knowledge: its breaches; the
        original's pairs: whether it is real)."""
        return held(sorted_codes, self.codes, self.code_ptr)

    @classmethod
    def find(cls, data: DisassociatedData, original: TransactionData | None = None, progress=None) -> CoverProblems:
        """Every cover problem of ``data`` (and, with the original, whether it really holds each pair)."""
        progress = progress or (lambda done, total, message="": None)
        width = len(data.vocab) + WEAK_OUTSIDE_WORDS
        real_pairs = None
        if original is not None:
            from semtui.metrics.reassociation import row_pairs

            _, a, b = row_pairs(*original.incidence_arrays(data.vocab))
            real_pairs = np.unique(pair_codes(a, b, width))
        names = data.vocab.names
        clusters, kept, at, codes, n_codes, ptr = [], [], [], [], [], [0]
        n_clusters = len(data.clusters)
        joint_of = data.joint_of()
        stats_cache: dict = {}
        for ci, c in enumerate(data.clusters):
            if ci % 256 == 0:
                progress(ci, n_clusters, "cover problems")
                stats_cache = {}  # shared chunks recur in neighbouring clusters: kept a while, then let go
            chunks, labels = cluster_chunks(data, ci, joint_of)
            problems = cluster_cover_problems(chunks, ci, stats_cache)
            # a problem between two shared chunks of a joint cluster is the same for every member:
            # listed under its first member only
            problems = [p for p in problems
                        if labels[p.earlier][1] < 0 or labels[p.chunk][1] < 0
                        or data.joint_clusters[labels[p.chunk][1]].clusters[0] == c.id]
            if len(chunks) > len(c.record_chunks):
                # a shared item the cluster shows in its own chunks is not the cluster's there: each
                # (cluster, item) is in one place of the release, so that x went with none of its records
                shown = set(np.concatenate([ch.items for ch in c.record_chunks] + [c.term_chunk,
                                                                                   np.zeros(0, np.int32)]).tolist())
                problems = [p for p in problems if labels[p.chunk][1] < 0 or labels[p.earlier][1] >= 0
                            or p.x not in shown]
            for p in problems:
                kept.append((c.id, labels, p))
                at.append(p.chunk)
                codes.append(pair_codes(np.full(len(p.covered), p.x, dtype=np.int64),
                                        np.asarray(p.covered, dtype=np.int64), width))
                n_codes.append(len(codes[-1]))
            ptr.append(len(kept))
            clusters.append(CoverCluster(c.id, int(c.size), len(c.record_chunks), len(chunks) - len(c.record_chunks),
                                         len(problems), 0, (), 0))
        progress(n_clusters, n_clusters, "cover problems")
        code_ptr = np.zeros(len(n_codes) + 1, dtype=np.int64)
        np.cumsum(n_codes, out=code_ptr[1:])
        flat = np.concatenate(codes) if codes else np.zeros(0, dtype=np.int64)
        real = [None] * len(kept) if real_pairs is None else held(real_pairs, flat, code_ptr).tolist()
        entries = []
        for (cid, labels, p), r in zip(kept, real):
            itemset = tuple(names(p.covered + p.covering))
            entries.append(ProblemEntry(
                cluster=cid, chunk=p.chunk + 1, earlier_chunk=p.earlier + 1,
                chunk_label=labels[p.chunk][0], earlier_label=labels[p.earlier][0],
                x=data.vocab[p.x], support_x=p.support_x,
                covered=tuple(names(p.covered)), covering=tuple(names(p.covering)), itemset=itemset,
                supports=tuple(zip(itemset, p.supports)), itemset_support=p.itemset_support, breach=False, real=r))
        return cls(data, original, clusters, np.asarray(ptr, dtype=np.int64), entries, at, flat, code_ptr,
                   None if real_pairs is None else sum(real))


def run_cover(
    data: DisassociatedData,
    options: CoverOptions | None = None,
    *,
    original: TransactionData | None = None,
    key: DisassociationKey | None = None,
    knowledge: list[np.ndarray] | None = None,
    knowledge_lines: int | None = None,
    progress=None,
    sources: dict | None = None,
    problems: CoverProblems | None = None,
) -> CoverReport:
    """Find every cover problem of ``data`` and the breaches the attacker of ``options`` can
    make; return the typed report (:class:`CoverReport`, ``semtui-cover-report/1`` by its
    ``to_json()``).  The knowledge file of the
    options is read here; ``knowledge`` (itemsets over the release vocabulary, with
    ``knowledge_lines`` lines read) gives it already read.  ``sources`` names the files the run
    read (``data``, ``original``, ``knowledge``); the report carries them.  With the ``key``, every
    problem lists its ``records`` (the original transactions it reaches, with their source lines
    when the original is given too: :func:`problem_records`), and the summary counts
    ``breached_records``.  ``problems``: the release's cover problems found by an earlier run
    (:class:`CoverProblems`, the same for every attacker), taken where they are this release's
    and original's."""
    options = options or CoverOptions()
    progress = progress or (lambda done, total, message="": None)
    attacker, seed = options.who, options.seed
    src = sources or {}
    if not data.clusters:
        raise InputError("nothing to check: the release has no cluster", src.get("data"))
    if knowledge is None and options.knowledge is not None:
        knowledge, knowledge_lines = read_knowledge(options.knowledge, data)
    if knowledge is not None:
        attacker = "knowledge"
    elif attacker == "moderate" and original is None:
        raise InputError("needed: the moderate attacker draws its knowledge from the original records",
                         option="original")
    started = time.perf_counter()
    n_items = len(data.vocab)
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), 0xC0E]))
    outside: list[str] = []
    if attacker == "moderate":   # a random pair of records of the original, over the release vocabulary
        knowledge = moderate_knowledge(original_rows(*original.incidence_arrays(data.vocab)), rng)
    elif attacker == "weak":
        knowledge, outside = weak_knowledge(n_items, rng)
    width = n_items + WEAK_OUTSIDE_WORDS
    known = knowledge_pairs(knowledge, width) if knowledge is not None else None
    if attacker == "knowledge" and len(known) == 0:
        raise InputError(f"nothing to check: no itemset of the background knowledge holds two items of "
                         f"{src.get('data') or 'the release'} (knowledge of another dataset?)", src.get("knowledge"))
    found = problems if problems is not None and problems.fits(data, original) else \
        CoverProblems.find(data, original, progress)
    totals = {"cover_problems": 0, "breaches": 0, "vulnerable_records": 0, "clusters_with_breaches": 0}
    # which problems are breaches: every one for the strong attacker, else those whose (x, covered)
    # pairs the knowledge holds (one sorted search over every problem's pairs)
    breach = np.ones(len(found.entries), dtype=bool) if attacker == "strong" else found.held(known)
    clusters_out = []
    for c, lo, hi in zip(found.clusters, found.ptr[:-1].tolist(), found.ptr[1:].tolist()):
        breaches = [0] * (c.record_chunks + c.shared_chunks)
        for at, b in zip(found.at[lo:hi], breach[lo:hi].tolist()):
            breaches[at] += b
        vulnerable = max(breaches, default=0)
        totals["cover_problems"] += hi - lo
        totals["breaches"] += sum(breaches)
        totals["vulnerable_records"] += vulnerable
        totals["clusters_with_breaches"] += int(vulnerable > 0)
        clusters_out.append(CoverCluster(c.id, c.size, c.record_chunks, c.shared_chunks, hi - lo, sum(breaches),
                                         tuple(breaches), vulnerable))
    problems_out = found.marked(breach)
    breached_records = real_records = None
    if key is not None:
        problems_out, breached_records, real_records = _attach_records(problems_out, data, key, original)
    summary = CoverSummary(len(data.clusters), data.n_transactions, totals["cover_problems"], totals["breaches"],
                           totals["vulnerable_records"], totals["clusters_with_breaches"],
                           real_pairs=found.real_pairs,
                           breached_records=breached_records, breached_records_real=real_records,
                           seconds=round(time.perf_counter() - started, 4))
    return CoverReport(
        attacker=attacker,
        seed=int(seed),
        knowledge_itemsets=None if knowledge is None else (knowledge_lines or len(knowledge)),
        outside_words=tuple(outside),
        summary=summary,
        clusters=tuple(clusters_out),
        cover_problems=tuple(problems_out),
        sources=dict(sources or {}),
    )
