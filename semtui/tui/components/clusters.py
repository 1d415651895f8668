"""Disassociated releases: the chunk views of a cluster and the lookups they (and the cover
problems view, :mod:`.problems`) read from the release, its key and original and the engine's
reports.

Everything shown comes from the release, its key and original, or the reports of
``semtui attack disassoc`` (re-association) and ``semtui cover``; the only assembling done
here is grouping identical sub-records for display and reading a cluster's reconstructed
transactions back from its report (:func:`semtui.attacks.reassociation.reconstructed_transactions`).

Three views of the highlighted cluster (``v`` cycles them):

* ``chunks``: C1, the other record chunks and the term chunk side by side, identical
  sub-records once with their multiplicity (``2×``); items of the chosen cover problem marked;
* ``subrecords``: one row per sub-record and term: with the key its true transaction (as its
  items, with the original), after a re-association where it went (anchor, ✓ / ✗, score);
* ``recon``: after a re-association, each anchor's reconstructed transaction beside the
  original one (wrongly added items ``✗``, items the attack did not bring back dimmed).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence

import numpy as np
from rich.text import Text

from semtui.model import DisassociatedData
from semtui.tui.components.cells import Cell, KeptText
from semtui.tui.components.vtable import Column, VirtualTable
from semtui.tui.session import Result, Session
from semtui.tui.text import num, plural
from semtui.wording import chunk_label

VIEWS = ("chunks", "subrecords", "recon")
VIEW_TITLES = {"chunks": "Chunks", "subrecords": "Sub-records", "recon": "Reconstructed vs original"}
MARK = "bold reverse"


class ClusterIndex:
    """Per-session lookups over the release, its key and the reports (built once)."""

    def __init__(self, session: Session) -> None:
        self.session = session
        data: DisassociatedData = session.data  # a ClusterIndex is built for a disassociated release only
        self.data = data
        self.position = {c.id: i for i, c in enumerate(data.clusters)}
        self.companions_opened()   # self.keys
        self._problems: dict[int, dict[str, list[int]]] = {}
        self._units: dict[tuple[int, int], dict] = {}
        self._orig_names: list[str] | None = None

    def companions_opened(self) -> None:
        """Index the key when it is open (read after the first paint: again once it is in)."""
        key = self.session.opened.key
        self.keys = None if key is None else {ck.id: ck for ck in key.clusters}

    # ------------------------------------------------------------------ key and original
    def cluster_key(self, c: int):
        if self.keys is None:
            return None
        return self.keys.get(self.data.clusters[c].id)

    def original_items(self, t: int) -> list[str] | None:
        """The items of original transaction ``t`` (0-based), or None without the original."""
        orig = self.session.original
        if orig is None or not (0 <= t < orig.n_transactions):
            return None
        if self._orig_names is None:
            self._orig_names = orig.vocab.items
        names = self._orig_names
        return [names[i] for i in orig.transaction(t).tolist() if i >= 0]

    def line_of(self, t: int) -> int | None:
        """The source line of original transaction ``t`` (0-based), or None without the original."""
        orig = self.session.original
        if orig is None or not (0 <= t < orig.n_transactions):
            return None
        return orig.line_of(t)

    def transaction_text(self, t: int, marked=frozenset()) -> Text:
        """``T12: a, b, c``: the original transaction, its items when the original is open."""
        out = Text(f"T{t + 1}", style="bold")
        items = self.original_items(t)
        if items is not None:
            out.append(": ")
            append_items(out, items, marked)
        return out

    # ------------------------------------------------------------------ reports
    def problems(self, result: Result | None) -> dict[str, list[int]]:
        """The cover report's problems by cluster id (indices into ``cover_problems``)."""
        if result is None:
            return {}
        got = self._problems.get(id(result))
        if got is None:
            got = {}
            for i, p in enumerate(result.report.cover_problems):
                got.setdefault(p.cluster, []).append(i)
            self._problems[id(result)] = got
        return got

    def units(self, result: Result, c: int) -> dict:
        """A re-association report's units of cluster ``c`` (:class:`PlacedUnit`) by (chunk, item set)."""
        k = (id(result), c)
        got = self._units.get(k)
        if got is None:
            entry = result.report.clusters[c]
            got = {(u.chunk, frozenset(u.items)): u for u in entry.units or ()}
            self._units[k] = got
        return got


def append_items(out: Text, items: Sequence[str], marked=frozenset(), style: str = "") -> None:
    for k, name in enumerate(items):
        if k:
            out.append(", ")
        out.append(name, style=MARK if name in marked else style)


def distinct_sub_records(chunk) -> list[tuple[np.ndarray, int]]:
    """The distinct sub-records of a record or shared chunk in order of first appearance, with
    their multiplicity (the empty one, ∅, included)."""
    out = [(rows[0], chunk.sub_record(rows[0]), len(rows)) for rows in chunk.distinct_rows()]
    empty = np.flatnonzero(np.diff(chunk.indptr) == 0)
    if len(empty):   # at its first appearance among the others
        first = int(empty[0])
        out.insert(bisect_left([row for row, _, _ in out], first), (first, chunk.items[:0], len(empty)))
    return [(sr, n) for _, sr, n in out]


def show_cluster(pane: VirtualTable, session: Session, index: ClusterIndex, c: int, view: str,
                 marked=frozenset()) -> None:
    """Fill ``pane`` (the detail pane) with one view of cluster ``c``."""
    pane.empty_message = "nothing to show"
    if view == "subrecords":
        _show_subrecords(pane, session, index, c, marked)
    elif view == "recon":
        _show_recon(pane, session, index, c, marked)
    else:
        _show_chunks(pane, index, c, marked)
    cluster = index.data.clusters[c]
    pane.border_title = f"{VIEW_TITLES.get(view, 'Chunks')} of cluster {cluster.id}"


def _chunk_cells(chunk, names, marked) -> list[Cell]:
    """One cell per distinct sub-record of a record or shared chunk: ``n×`` and its items (∅: empty)."""
    cells: list[Cell] = []
    for sr, n in distinct_sub_records(chunk):
        t = KeptText(f"{n}× ", style="dim", keep=[(0, len(f"{n}×"))])  # a count is never cut
        if len(sr):
            append_items(t, [names[i] for i in sr.tolist()], marked)
        else:
            t.append("∅", style="dim")
        cells.append(t)
    return cells


def _show_chunks(pane, index: ClusterIndex, c: int, marked) -> None:
    data = index.data
    cluster = data.clusters[c]
    names = data.vocab.items
    columns_data: list[list[Cell]] = []
    columns = []
    # each chunk as wide as its sub-records (the table's rule: cut only when they do not all fit);
    # when they do not, each keeps 20 cells — its count whole and the start of a name that reads —
    # and the chunks that do not fit are a → away (z draws the row whole, i names each chunk)
    # REFINE: the shared chunks of the cluster's joint cluster(s), over all their members' records
    joints = [data.joint_clusters[ji] for ji in data.joint_of().get(cluster.id, ())]
    least = 20
    labels: list[str] = []
    for j, chunk in enumerate(cluster.record_chunks):
        columns_data.append(_chunk_cells(chunk, names, marked))
        columns.append(Column(f"c{j + 1}", f"{chunk_label(j + 1)} ({len(chunk)})", None, min_width=least))
        labels.append(chunk_label(j + 1))
    for jc in joints:
        for j, chunk in enumerate(jc.shared_chunks):
            columns_data.append(_chunk_cells(chunk, names, marked))
            header = f"{chunk_label(j + 1, jc.id)} ({len(chunk)})"  # never elided: its end tells S1 from S8
            columns.append(Column(f"{jc.id}s{j + 1}", header, None, min_width=max(least, len(header))))
            labels.append(chunk_label(j + 1, jc.id))
    terms: list[Cell] = []
    for term in cluster.term_chunk.tolist():
        terms.append(Text(names[term], style=MARK if names[term] in marked else ""))
    columns_data.append(terms)
    columns.append(Column("term", f"term chunk ({len(terms)})", None, min_width=least))
    labels.append("term chunk")
    n_rows = max((len(cells) for cells in columns_data), default=0)

    def row(i: int) -> list[Cell]:
        return [cells[i] if i < len(cells) else "" for cells in columns_data]

    pane.set_rows(n_rows, row, columns, cursor=0)
    pane.inspect_labels = labels  # the inspector names each cell by its chunk's one name
    # the CSV (ctrl+s): one record per distinct sub-record or term, its count a number
    recs: list[list] = []
    for j, chunk in enumerate(cluster.record_chunks):
        recs += [[cluster.id, chunk_label(j + 1), n, ", ".join(names[i] for i in sr.tolist())]
                 for sr, n in distinct_sub_records(chunk)]
    recs += [[cluster.id, "term", 1, names[t]] for t in cluster.term_chunk.tolist()]
    pane.set_records(["cluster", "chunk", "count", "items"], lambda i: recs if i == 0 else ())
    pane.border_subtitle = (f"{plural(cluster.size, 'transaction')} · {plural(len(cluster.record_chunks), 'record chunk')}"
                            f" · {plural(len(cluster.term_chunk), 'term')}"
                            + "".join(f" · joint cluster {jc.id}: {plural(len(jc.shared_chunks), 'shared chunk')} over "
                                      f"{len(jc.clusters)} clusters" for jc in joints)
                            + (" · marked: cover problem" if marked else ""))


def _placements(index: ClusterIndex, unit, anchors_t: Sequence[int] | None) -> Text:
    """Where a unit (:class:`~semtui.attacks.reassociation.PlacedUnit`) went: each anchor, its
    transaction, right or not, the score."""
    out = Text()
    ok = unit.correct
    scores = unit.scores or ()
    for k, a in enumerate(unit.anchors):
        if k:
            out.append(" · ")
        out.append(f"A{a + 1}")
        if anchors_t is not None and 0 <= a < len(anchors_t) and anchors_t[a] >= 0:
            out.append(f"=T{anchors_t[a] + 1}", style="dim")
        if ok is not None and k < len(ok):
            out.append(" ✓" if ok[k] else " ✗", style="bold green" if ok[k] else "bold red")
        s = scores[a] if a < len(scores) else None
        out.append(f" {s:.2f}" if isinstance(s, (int, float)) else " ·", style="dim")
    if not unit.anchors:
        out.append("nowhere", style="dim")
    return out


def _show_subrecords(pane, session: Session, index: ClusterIndex, c: int, marked) -> None:
    data = index.data
    cluster = data.clusters[c]
    names = data.vocab.items
    ck = index.cluster_key(c)
    result = session.latest("reassociation")
    units = index.units(result, c) if result is not None else None
    entry = result.report.clusters[c] if result is not None else None
    anchors_t = entry.anchor_transactions if entry is not None else None
    rows: list[tuple[str, Text, int | list[int] | None, object]] = []
    # per row: the report's unit (where it went; an anchor row: its anchor), for the CSV
    placed: list = []
    for j, chunk in enumerate(cluster.record_chunks):
        origins = ck.record_chunks[j] if ck is not None else None
        for r in range(len(chunk)):
            items = [names[i] for i in chunk.sub_record(r).tolist()]
            t = Text()
            if items:
                append_items(t, items, marked)
            else:
                t.append("∅", style="dim")
            went = None
            if units is not None:
                if j == 0:
                    went = Text(f"anchor A{r + 1}", style="dim")
                elif items:
                    u = units.get((j + 1, frozenset(items)))
                    went = _placements(index, u, anchors_t) if u is not None else Text("")
                    if u is not None and (u.count or 1) > 1:
                        went.append(f"  (×{u.count}, shared)", style="dim")
            rows.append((chunk_label(j + 1), t, origins[r] if origins is not None else None, went))
            placed.append(r if units is not None and j == 0 else
                          (units.get((j + 1, frozenset(items))) if units is not None and items else None))
    for k, term in enumerate(cluster.term_chunk.tolist()):
        t = Text(names[term], style=MARK if names[term] in marked else "")
        went = None
        if units is not None:
            u = units.get(("term", frozenset([names[term]])))
            went = _placements(index, u, anchors_t) if u is not None else Text("")
        rows.append(("term", t, list(ck.term_chunk[k]) if ck is not None else None, went))
        placed.append(units.get(("term", frozenset([names[term]]))) if units is not None else None)
    columns = [Column("chunk", "chunk", 5), Column("items", "sub-record / term", None, min_width=14)]
    if ck is not None:
        label = "true transaction" if session.original is not None else "origin"
        columns.append(Column("origin", label, None if session.original is not None else 10, min_width=16))
    if units is not None:
        columns.append(Column("went", "went to (✓/✗, score)", None, min_width=16))

    def origin_text(o) -> Text:
        if isinstance(o, list):
            out = Text()
            for k, t in enumerate(o):
                if k:
                    out.append(" | ")
                out.append_text(index.transaction_text(t, marked))
            return out
        return index.transaction_text(o, marked)

    def row(i: int) -> list[Cell]:
        chunk, items, origin, went = rows[i]
        out: list[Cell] = [chunk, items]
        if ck is not None:
            out.append(origin_text(origin) if origin is not None else "")
        if units is not None:
            out.append(went if went is not None else "")
        return out

    pane.set_rows(len(rows), row, columns, cursor=0)
    #: per shown row, its true transactions (0-based; with the key): where a record dives in
    pane.row_transactions = [set(o) if isinstance(o, list) else ({int(o)} if o is not None else set())
                             for _, _, o, _ in rows]

    def records(i: int):
        # one record per (sub-record or term, true transaction, placement): T#, line, the anchor it
        # went to, that anchor's T#, right or not and the score, each in its own column
        chunk, items, origin, _ = rows[i]
        u = placed[i]
        origins = origin if isinstance(origin, list) else [origin]
        goes = [(None, None, None, None)]
        if u is not None:
            anchor = isinstance(u, int)   # an anchor's row: it stays on itself
            ok, scores = (None, ()) if anchor else (u.correct, u.scores or ())
            goes = [(a + 1, anchors_t[a] + 1 if anchors_t is not None and 0 <= a < len(anchors_t)
                     and anchors_t[a] >= 0 else None,
                     True if anchor else (ok[k] if ok is not None and k < len(ok) else None),
                     None if anchor or a >= len(scores) or not isinstance(scores[a], (int, float))
                     else float(scores[a]))
                    for k, a in enumerate([u] if anchor else u.anchors)] or goes
        for o in origins:
            rec = [cluster.id, chunk, items.plain.replace("∅", "")]
            if ck is not None:
                t = int(o) if o is not None and int(o) >= 0 else None
                rec += [None if t is None else t + 1, None if t is None else index.line_of(t)]
            for g in goes if units is not None else [()]:
                yield rec + list(g)
    header = ["cluster", "chunk", "items"] + (["T", "line"] if ck is not None else []) + (
        ["anchor", "anchor_T", "correct", "score"] if units is not None else [])
    pane.set_records(header, records)
    sub = f"{len(rows)} sub-records and terms"
    if ck is None:
        sub += " · open with --key (and --original) for their true transactions"
    if result is not None:
        sub += f" · {result.label}"
    pane.border_subtitle = sub


def _show_recon(pane, session: Session, index: ClusterIndex, c: int, marked) -> None:
    from semtui.attacks.reassociation import reconstructed_transactions

    result = session.latest("reassociation")
    if result is None:
        pane.set_rows(0, lambda i: (), [Column("x", "", None)])
        pane.empty_message = "no re-association yet: press a to run one (or open a report with --report)"
        pane.border_subtitle = ""
        return
    entry = result.report.clusters[c]
    recon = reconstructed_transactions(entry, result.report.joint_clusters)
    anchors_t = entry.anchor_transactions
    have_orig = anchors_t is not None and session.original is not None

    def row(a: int) -> list[Cell]:
        rec = recon[a]
        t = anchors_t[a] if anchors_t is not None and a < len(anchors_t) else -1
        orig = index.original_items(t) if have_orig and t >= 0 else None
        held = set(orig) if orig is not None else None
        r = KeptText()  # the wrongly added items are what this view is about: first, and kept by a cut
        if held is not None:
            rec = [x for x in rec if x not in held] + [x for x in rec if x in held]
        for k, name in enumerate(rec):
            if k:
                r.append(", ")
            if held is not None and name not in held:
                r.keep.append((len(r), len(r) + 1 + len(name)))
                r.append("✗" + name, style="red" if name not in marked else MARK)
            else:
                r.append(name, style=MARK if name in marked else "")
        out: list[Cell] = [f"A{a + 1}", r]
        if anchors_t is not None:
            o = Text(f"T{t + 1}" if t >= 0 else "—", style="bold")
            if orig is not None:
                got = set(rec)
                o.append(": ")
                for k, name in enumerate(orig):
                    if k:
                        o.append(", ")
                    o.append(name, style=MARK if name in marked else ("" if name in got else "dim"))
            out.append(o)
        return out

    columns = [Column("anchor", "anch", 5), Column("rec", "reconstructed (✗ wrongly added)", None, min_width=16)]
    if anchors_t is not None:
        columns.append(Column("orig", "original (dim: missed)", None, min_width=16))
    pane.set_rows(len(recon), row, columns, cursor=0)

    def records(a: int):
        # one record per item of the anchor's reconstruction or original, marks as booleans
        rec = recon[a]
        t = anchors_t[a] if anchors_t is not None and a < len(anchors_t) else -1
        orig = index.original_items(t) if have_orig and t >= 0 else None
        items = list(rec) + ([x for x in orig if x not in set(rec)] if orig is not None else [])
        held = set(orig) if orig is not None else None
        for name in items:
            yield [entry.id if entry.id is not None else c, f"A{a + 1}", t + 1 if t >= 0 else None,
                   index.line_of(t) if t >= 0 else None, name, name in set(rec),
                   None if held is None else name in held]
    pane.set_records(["cluster", "anchor", "T", "line", "item", "reconstructed", "original"], records)
    m = entry.metrics
    sub = f"{result.label}"
    if m is not None:
        sub += (f" · accuracy {num(m.accuracy)} ({m.correct}/{m.placements}) · "
                f"breakage {num(m.transaction_breakage)}")
    elif session.key is None or session.original is None:
        sub += " · open with --key and --original to judge it"
    pane.border_subtitle = sub
