"""The records at risk: per transaction, what the attacks reach of it.

* a set-generalisation attack: the members it eliminated, the items re-identified and exposed
  (:func:`setgen_records`, from the attack report's groups);
* a re-association: the items put back with a record correctly (:func:`reassoc_records`);
* a cover breach: the records whose sub-record holds the breached item (:func:`cover_breaches`).

:func:`disassoc_records` merges the last two per record, once: ``semtui assess`` lists them as
its records at risk (:meth:`DisassocRecord.to_json`) and the TUI's records view shows them one row
per (record, what reaches it) (:func:`disassoc_record_rows`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING

from semtui.assess.results import Breach, DisassocRecord, ItemExposed, SetgenRecord
from semtui.reports import paused_gc
from semtui.runtime.progress import ProgressCallback, throttled

if TYPE_CHECKING:
    from semtui.attacks.cover import CoverReport
    from semtui.attacks.reassociation import ReassociationReport
    from semtui.attacks.setgen.results import GroupWriteUp

#: how many records and items the summary lists (the document holds up to RECORDS_KEPT)
RECORDS_SHOWN = 10
RECORDS_KEPT = 200


def _line(original, t: int) -> int:
    if original is not None and getattr(original, "lines", None) is not None and t < len(original.lines):
        return int(original.lines[t])
    return int(t) + 1


def setgen_records(groups: Iterable[GroupWriteUp]) -> tuple[list[SetgenRecord], list[ItemExposed]]:
    """Per transaction, what the attack's report implicates (its ``groups``): the members it
    eliminated (with the original: how many rightly), the generalised items reduced to one member
    (re-identified), and the members still possible there that fewer than k transactions of the
    group can now hold (exposed).  Ranked: re-identified, exposed, correct eliminations,
    eliminations.

    With the original (a scored report) only what is true counts: an item is re-identified when
    the one member left is the transaction's own (a reduction to a wrong member is listed apart,
    ``misidentified``: the attacker would believe something false), a member is exposed in a
    transaction that holds it, and ``items_exposed`` counts a group only when a transaction that
    holds the member is among those that still can (or one the attack could not score: unknown,
    so counted).  Without it every claim is the attack's own, unverified."""
    recs: dict[int, dict] = {}
    exposed_count: Counter = Counter()
    for g in groups:
        n = len(g.members)
        lines = {r.transaction: r.line for r in g.rows}
        truth = g.original
        per_row: dict[int, list] = {}
        for e in g.eliminations:
            per_row.setdefault(e.row, []).append(e)
        exposed = set(g.exposed)
        if truth is None:
            exposed_count.update(g.exposed)   # in the group's order: ties rank the same in every run
        else:
            gone = {(e.row, e.column) for e in g.eliminations}
            for j, member in enumerate(g.members):
                if member in exposed and (g.skipped or any(
                        row[j] and (r, j) not in gone for r, row in enumerate(truth))):
                    exposed_count[member] += 1
        for row, els in per_row.items():
            t = els[0].transaction
            r = recs.setdefault(t, {"transaction": t, "line": lines.get(t, t + 1), "eliminated": 0, "correct": None,
                                    "reidentified": [], "exposed": []})
            r["eliminated"] += len(els)
            gone_here = {e.column for e in els}
            left = [j for j in range(n) if j not in gone_here]
            if truth is not None:
                r["correct"] = (r["correct"] or 0) + sum(1 for e in els if not truth[row][e.column])
                if len(left) == 1 and not truth[row][left[0]]:
                    r.setdefault("misidentified", []).append(g.members[left[0]])
                left_true = [j for j in left if truth[row][j]]
            else:
                left_true = left
            if len(left) == 1 and left_true:
                r["reidentified"].append(g.members[left[0]])
            r["exposed"] += [g.members[j] for j in left_true if g.members[j] in exposed]
    ranked = sorted(recs.values(), key=lambda r: (-len(r["reidentified"]), -len(r["exposed"]), -(r["correct"] or 0),
                                                  -r["eliminated"], r["transaction"]))
    out = [SetgenRecord(r["transaction"], r["line"], r["eliminated"], r["correct"], tuple(r["reidentified"]),
                        tuple(r["exposed"]), tuple(r["misidentified"]) if "misidentified" in r else None)
           for r in ranked]
    return out, [ItemExposed(x, c, "groups") for x, c in exposed_count.most_common(RECORDS_KEPT)]


def reassoc_records(report: ReassociationReport, original) -> tuple[list[DisassocRecord], list[ItemExposed]]:
    """Per original transaction (the key's), the items a re-association (its typed report: the
    engine's :attr:`Reassociation.report`, or one read back with ``from_json``) put back with it
    correctly."""
    recs: dict[int, dict] = {}
    items: Counter = Counter()
    for c in report.clusters:
        anchors = c.anchor_transactions
        if anchors is None:
            continue
        for u in c.units or ():
            for a, ok in zip(u.anchors, u.correct or ()):
                t = anchors[a]
                if not ok or t is None or t < 0:
                    continue
                r = recs.setdefault(t, {"line": _line(original, t), "cluster": c.id, "n": 0, "items": []})
                r["n"] += len(u.items)
                r["items"] += u.items
                items.update(u.items)
    ranked = sorted(recs.items(), key=lambda tr: (-tr[1]["n"], tr[0]))
    return ([DisassocRecord(t, r["line"], r["cluster"], r["n"], tuple(r["items"])) for t, r in ranked],
            [ItemExposed(x, c, "records") for x, c in items.most_common(RECORDS_KEPT)])


def _ticking(progress: ProgressCallback | None, total: int, message: str):
    """``tick(i)``: ``progress(i, total, message)`` at most every :data:`~semtui.runtime.progress.BEAT`
    seconds, the first at once (:func:`~semtui.runtime.progress.throttled`); nothing without
    ``progress``."""
    if progress is None:
        return lambda i: None
    return throttled(lambda i: progress(i, total, message), at_once=True)


def cover_breaches(report: CoverReport, data, key=None, *, named: bool = True,
                   progress: ProgressCallback | None = None) -> dict[int, list[Breach]]:
    """Per original transaction (0-based, the key's), the breaches of a cover report (typed: the
    engine's, or one read back with ``from_json``) that reach it: the records a problem lists
    (``semtui cover --key``, with their lines and, with the original, whether they really hold
    the pair), else those the key says hold its x (:func:`semtui.attacks.cover.problem_records`;
    no key: none).  ``named``: name the chunks (``data``, the release, names them when the report
    does not).  ``progress(done, total, message)`` is called every
    :data:`~semtui.runtime.progress.BEAT` seconds (and may raise to cancel)."""
    hits = report.breached
    if not hits:
        return {}
    tick = _ticking(progress, len(hits), "cover breaches")
    reached = []
    for i, p in enumerate(hits):
        tick(i)
        reached.append([(r.transaction, r.line, r.holds_covered) for r in p.records or ()])
    unlisted = [i for i, p in enumerate(hits) if p.records is None]
    if unlisted and key is not None:
        from semtui.attacks.cover import problem_records

        for i, ts in zip(unlisted, problem_records(data, key, [hits[i] for i in unlisted])):
            reached[i] = [(t, None, None) for t in ts]
    from semtui.wording import problem_chunk_names

    out: dict[int, list[Breach]] = {}
    attacker = report.attacker or ""
    for i, (p, recs) in enumerate(zip(hits, reached)):
        tick(i)
        # a problem in a joint cluster's shared chunk reaches records of several member clusters:
        # the chunks by their one name
        x_at, y_at = problem_chunk_names(data, p) if named else ("", "")
        for t, line, real in recs:
            out.setdefault(int(t), []).append(Breach(attacker, p.x, p.covered, p.covering, p.cluster, x_at, y_at,
                                                     line, real))
    return out


def disassoc_records(reassociated: list[DisassocRecord], breaches: dict[int, list[Breach]],
                     original) -> list[DisassocRecord]:
    """The records a disassociated release's attacks reach, merged per record: the
    re-association's (:func:`reassoc_records`) with the cover breaches that reach each
    (:func:`cover_breaches`, of one or several attackers), a record reached by breaches alone
    added; ranked by how much reaches it."""
    by_t = {r.transaction: r for r in reassociated}
    for t, found in breaches.items():
        r = by_t.get(t)
        if r is None:
            by_t[t] = DisassocRecord(t, _line(original, t), None, 0, (), tuple(found))
        else:
            by_t[t] = DisassocRecord(r.transaction, r.line, r.cluster, r.reassociated, r.items,
                                     r.breaches + tuple(found))
    return sorted(by_t.values(), key=lambda r: (-r.reassociated - len({(b.attacker, b.x) for b in r.breaches}),
                                                r.transaction))


def ranked_disassoc_records(reassociated: list[DisassocRecord], reports: list[CoverReport], data, key, original,
                            kept: int = RECORDS_KEPT) -> tuple[list[DisassocRecord], int]:
    """:func:`disassoc_records` of ``reassociated`` and the breaches of every cover report of
    ``reports`` (:func:`cover_breaches` with ``named=False``, merged in the reports' order), cut
    to its first ``kept`` records, and how many records it has in all: the same records, ranked
    alike, with the same breaches.

    Only the kept records' breaches are made.  Disassociated MEPS has ~460,000 (record, breach)
    pairs over its three attackers and 260,585 records, of which ``assess`` keeps 200: every
    record's rank (how much reaches it: the distinct (attacker, item) of its breaches, counted by
    one sort of integer codes) is computed over arrays, and the records a breach reaches are found
    once per (cluster, chunk, item) for all the attackers
    (:func:`~semtui.attacks.cover.problem_records_csr`)."""
    import numpy as np

    hits = [(ri, p) for ri, report in enumerate(reports) for p in report.breached or ()]
    source: list[int] = []                     # per hit: its problem in ``asked``, or -1: listed
    asked: dict[tuple, int] = {}               # (cluster, chunk, x) -> its index in ``problems``
    problems: list = []                        # the first hit's problem of each (cluster, chunk, x)
    listed: dict[int, list] = {}               # hit -> its records as the report lists them
    for h, (_, p) in enumerate(hits):
        if p.records is not None:
            listed[h] = [(r.transaction, r.line, r.holds_covered) for r in p.records]
            source.append(-1)
        elif key is not None:
            d = asked.setdefault((p.cluster, p.chunk, p.x), len(asked))
            if d == len(problems):
                problems.append(p)
            source.append(d)
        else:
            source.append(-2)                  # no key: it reaches no record
    empty = np.zeros(0, dtype=np.int64)
    ptr, ts = np.zeros(1, dtype=np.int64), empty
    if problems:
        from semtui.attacks.cover import problem_records_csr

        ptr, ts = problem_records_csr(data, key, problems)
    source_a = np.asarray(source, dtype=np.int64)
    known = source_a >= 0
    lengths = np.zeros(len(hits), dtype=np.int64)
    lengths[known] = np.diff(ptr)[source_a[known]]
    for h, recs in listed.items():
        lengths[h] = len(recs)
    starts = np.cumsum(lengths) - lengths
    hit_of = np.repeat(np.arange(len(hits), dtype=np.int64), lengths)      # the rows in cover_breaches' order
    within = np.arange(len(hit_of), dtype=np.int64) - starts[hit_of]
    t_all = np.full(len(hit_of), -1, dtype=np.int64)
    from_csr = known[hit_of]
    t_all[from_csr] = ts[ptr[source_a[hit_of[from_csr]]] + within[from_csr]]
    for h, recs in listed.items():
        t_all[starts[h]:starts[h] + len(recs)] = [t for t, _, _ in recs]
    # per record, the distinct (attacker, item) pairs of its breaches
    codes: dict[tuple[str, str], int] = {}
    pair = np.fromiter((codes.setdefault((reports[ri].attacker or "", p.x), len(codes)) for ri, p in hits),
                       dtype=np.int64, count=len(hits))
    width = max(len(codes), 1)
    breach_t, pairs = np.unique(np.unique(t_all * width + pair[hit_of]) // width, return_counts=True)
    by_t = {r.transaction: r for r in reassociated}
    re_t = np.fromiter(by_t, dtype=np.int64, count=len(by_t))
    every = np.union1d(re_t, breach_t)
    score = np.zeros(len(every), dtype=np.int64)
    score[np.searchsorted(every, re_t)] += np.fromiter((r.reassociated for r in by_t.values()), dtype=np.int64,
                                                       count=len(by_t))
    score[np.searchsorted(every, breach_t)] += pairs
    top = every[np.lexsort((every, -score))[:kept]]
    # the kept records' breaches, in the order cover_breaches makes them
    mine = np.flatnonzero(np.isin(t_all, top))
    mine = mine[np.argsort(t_all[mine], kind="stable")]
    lo = np.searchsorted(t_all[mine], top)
    hi = np.searchsorted(t_all[mine], top, side="right")
    out = []
    for t, a, b in zip(top.tolist(), lo.tolist(), hi.tolist()):
        found = []
        for row in mine[a:b].tolist():
            h = int(hit_of[row])
            ri, p = hits[h]
            line, real = listed[h][int(within[row])][1:] if h in listed else (None, None)
            found.append(Breach(reports[ri].attacker or "", p.x, p.covered, p.covering, p.cluster, "", "", line, real))
        r = by_t.get(t)
        out.append(DisassocRecord(t, _line(original, t), None, 0, (), tuple(found)) if r is None else
                   DisassocRecord(r.transaction, r.line, r.cluster, r.reassociated, r.items, r.breaches + tuple(found)))
    return out, len(every)


def record_clusters(key) -> dict[int, str]:
    """Each original transaction's cluster id, from a disassociated release's key (its
    ``records``, else the transactions its record chunks and term chunk name)."""
    home: dict[int, str] = {}
    if key is None:
        return home
    for ck in key.clusters:
        ts = ck.records if ck.records is not None else [t for ch in (*ck.record_chunks, *ck.term_chunk) for t in ch]
        for t in ts:
            home.setdefault(int(t), ck.id)
    return home


@paused_gc()
def disassoc_record_rows(cover: CoverReport | None, reassoc: ReassociationReport | None, original, key, data=None,
                         progress: ProgressCallback | None = None) -> list[dict]:
    """The records a disassociated release's attacks reach (:func:`disassoc_records`, as
    ``semtui assess`` merges them), one row per (record, what reaches it): ``{"T", "line",
    "cluster", "source", "what", "items", "real"}``, records a breach or a re-association really
    reaches first.  A cover breach reaches the records whose sub-record holds its x (a cover
    report run with the key lists them; else the key says); with the original, ``real`` says
    whether the record really holds x with the covered item.  A re-association reaches the records
    it put items back with correctly (as the assessment's records at risk), which needs the
    original.  ``data``: the release, which names the chunks of a cover report that does not.
    ``progress``: as :func:`cover_breaches` (over the records too).  The cyclic garbage
    collector is paused meanwhile: the hundreds of thousands of rows it makes (260,585 on MEPS)
    hold no cycle, and its full passes over them took 0.3-0.5 s each, between two progress calls."""
    reassociated = reassoc_records(reassoc, original)[0] if reassoc is not None and original is not None else []
    # the records the report lists
    breaches = cover_breaches(cover, data, progress=progress) if cover is not None else {}
    home = record_clusters(key)
    # the rows in their order without sorting them (260,585 on MEPS: a 0.4 s sort no cancel could
    # enter): records by T, a record's cover rows before its re-association ("cover" <
    # "re-association"), then the rows that really reach first -- the stable sort by (real is not
    # True, T, source) of the rows as made
    real: list[dict] = []
    other: list[dict] = []
    records = sorted(disassoc_records(reassociated, breaches, original), key=lambda r: r.transaction)
    tick = _ticking(progress, len(records), "records at risk")
    for i, r in enumerate(records):
        tick(i)
        for b in r.breaches:
            # each record is listed under its own cluster (the key says which)
            (real if b.real is True else other).append(
                {"T": r.transaction + 1, "line": b.line, "cluster": home.get(r.transaction, b.cluster),
                 "source": "cover", "what": b.what, "items": [b.x, *b.covered, *b.covering], "real": b.real})
        if r.reassociated:
            real.append({"T": r.transaction + 1, "line": r.line, "cluster": r.cluster, "source": "re-association",
                         "what": f"{r.reassociated} item{'s' if r.reassociated != 1 else ''} put back: "
                                 + ", ".join(r.items),
                         "items": list(r.items), "real": True})
    tick(len(records))
    return real + other
