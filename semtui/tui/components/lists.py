"""The left pane: equivalence groups, clusters or plain transactions, sortable and filterable.

Each list keeps its rows as an ``order`` array of indices into the dataset (after the
filter, in the current sort); cells are produced only for the rows on screen.  Sort keys
are numpy arrays (or the label list), so sorting 100,000 groups is one ``argsort``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Protocol

import numpy as np
from rich.text import Text
from textual.binding import BindingType

from semtui.model import DisassociatedData, TransactionData, generalised_label, token_label
from semtui.release import DISASSOC, PLAIN
from semtui.tui.components.cells import MATCH_STYLE, Cell, KeptText
from semtui.tui.components.vtable import Column, VirtualTable
from semtui.tui.keys import only
from semtui.tui.session import Result, Session
from semtui.tui.text import ratio
from semtui.wording import MOST_BREACHES_LABEL


class ListPane(VirtualTable):
    """A :class:`VirtualTable` over dataset entities with ``[``/``]`` sort and a filter."""

    BINDINGS: ClassVar[list[BindingType]] = only("table.sort_asc", "table.sort_desc")

    def __init__(self, session: Session, source: ListSource, **kw) -> None:
        super().__init__(**kw)
        self.session = session
        self.source = source
        self.noun = source.noun
        self.filter_text = ""
        self.sort_column: int | None = None
        self.sort_descending = False
        self.order = np.arange(self.count(), dtype=np.int64)
        self.rebuild()

    # -- delegated to the source ------------------------------------------
    def count(self) -> int:
        return self.source.count()

    def make_columns(self) -> list[Column]:
        return self.source.columns()

    def cells(self, index: int) -> Sequence[Cell]:
        return self.source.cells(index, self.columns)

    def texts(self) -> list[str]:
        return self.source.texts()

    def sort_key(self, column: int):
        return self.source.sort_key(self.columns[column].key)

    # -- the view ------------------------------------------------------------
    @property
    def current(self) -> int | None:
        """The dataset index under the cursor."""
        if not self.row_count:
            return None
        return int(self.order[self.cursor_row])

    def rebuild(self, keep: int | None = None) -> None:
        """Recompute ``order`` from the filter and sort; keep entity ``keep`` under the cursor."""
        if keep is None:
            keep = self.current if self.row_count else None
        n = self.count()
        if self.filter_text:
            needle = self.filter_text.casefold()
            match = getattr(self.source, "match", None)
            if match is not None:
                order = np.asarray(match(needle), dtype=np.int64)
            else:
                order = np.fromiter(
                    (i for i, t in enumerate(self.texts()) if needle in t.casefold()), dtype=np.int64
                )
        else:
            order = np.arange(n, dtype=np.int64)
        if self.sort_column is not None and len(order):
            key = self.sort_key(self.sort_column)
            if isinstance(key, list):
                sub = [key[i] for i in order]
                idx = sorted(range(len(sub)), key=sub.__getitem__, reverse=self.sort_descending)
                order = order[np.asarray(idx, dtype=np.int64)]
            else:
                sub = np.asarray(key)[order]
                # NaN (no value) sorts last either way
                nan = np.isnan(sub) if sub.dtype.kind == "f" else np.zeros(len(sub), bool)
                vals = np.where(nan, 0, sub)
                idx = np.lexsort((-vals if self.sort_descending else vals, nan))
                order = order[idx]
        self.order = order
        self.sort_marks = (
            {} if self.sort_column is None else {self.sort_column: " ▼" if self.sort_descending else " ▲"}
        )
        cursor = 0
        if keep is not None and len(order):
            hit = np.flatnonzero(order == keep)
            cursor = int(hit[0]) if len(hit) else 0
        self.set_rows(len(order), self._row, self.make_columns(), cursor=cursor)
        self.border_subtitle = self.describe()

    def columns_changed(self) -> None:
        """The source's columns changed (a column joined the list): rebuilt, the sort and the
        cursor kept on the columns they were on (by key: their numbers may have moved)."""
        keys = [c.key for c in self.columns]
        on = keys[self.cursor_col] if self.cursor_col < len(keys) else None
        sorted_by = keys[self.sort_column] if self.sort_column is not None and self.sort_column < len(keys) else None
        now = [c.key for c in self.make_columns()]
        self.sort_column = now.index(sorted_by) if sorted_by in now else None
        self.rebuild()
        if on in now:
            self.cursor_col = now.index(on)

    def _row(self, view_index: int) -> Sequence[Cell]:
        return self.cells(int(self.order[view_index]))

    def describe(self) -> str:
        total = self.count()
        shown = f"{self.row_count:,} of {total:,}" if self.filter_text else f"{total:,}"
        extra = f" matching “{self.filter_text}”" if self.filter_text else ""
        noun = self.noun if total == 1 else self.noun + "s"
        return f"{shown} {noun}{extra}"

    def set_filter(self, text: str) -> None:
        self.filter_text = text
        self.rebuild()

    def action_sort(self, descending: bool) -> None:
        self.sort_column = self.cursor_col
        self.sort_descending = descending
        self.rebuild()


class ListSource(Protocol):
    """What a :class:`ListPane` lists: plain Python over the dataset, no widgets."""

    noun: str

    def count(self) -> int: ...
    def columns(self) -> list[Column]: ...
    def cells(self, index: int, columns: list[Column]) -> Sequence[Cell]: ...
    def texts(self) -> list[str]: ...
    def sort_key(self, column: str) -> np.ndarray | list: ...


class GroupsSource:
    """Equivalence groups of set-generalised data: generalised item, size, attack results."""

    noun = "group"

    def __init__(self, session: Session) -> None:
        self.session = session
        data = session.data
        assert isinstance(data, TransactionData)
        self.data = data
        self.sizes = data.group_sizes()
        #: density of each group, from the engine, as soon as the original is known
        self.densities = None
        self.companions_opened()
        self._result_cols: dict | None = None
        self._result_for: Result | None = None

    def companions_opened(self) -> None:
        """The groups' densities once the original is open: never waited for (``semtui open``
        reads it after the first paint; the list shows them once it is in)."""
        original = self.session.opened.original
        if original is not None and self.densities is None:
            from semtui.metrics.elimination import group_densities

            self.densities = group_densities(self.data, original)

    def count(self) -> int:
        return self.data.n_generalised

    def texts(self) -> list[str]:
        return self.session.labels()

    def match(self, needle: str) -> np.ndarray:
        """Groups whose generalised item, or any of whose transactions, has an item containing
        ``needle`` (case-folded): one pass over the vocabulary, then CSR arrays."""
        data = self.data
        names = data.vocab.items
        hit = np.fromiter((needle in n.casefold() for n in names), dtype=bool, count=len(names))
        groups = np.zeros(data.n_generalised, dtype=bool)
        # generalised items with a matching member
        mem_hit = hit[data.gen_members]
        if mem_hit.any():
            owner = np.repeat(np.arange(data.n_generalised), np.diff(data.gen_indptr))
            groups[owner[mem_hit]] = True
        # transactions with a matching plain item: every group they belong to
        tok = data.tokens
        plain = tok >= 0
        tok_hit = np.zeros(len(tok), dtype=bool)
        tok_hit[plain] = hit[tok[plain]]
        if tok_hit.any():
            rows = np.zeros(data.n_transactions, dtype=bool)
            rows[data.row_of_token()[tok_hit]] = True
            gen = ~plain & rows[data.row_of_token()]
            groups[-tok[gen] - 1] = True
        return np.flatnonzero(groups)

    def result_columns(self) -> dict | None:
        """Per-group numbers read from the current report, as arrays aligned with group ids."""
        result = self.session.result
        if result is None:
            return None
        if self._result_for is not result:
            n = self.count()
            cols = {k: np.full(n, np.nan)
                    for k in ("density", "eliminated", "cells", "exposed", "precision", "recall")}
            index: dict[str, int] | None = None
            for grp in result.report.get("groups", []):
                g = grp.get("id")
                if not (isinstance(g, int) and 0 <= g < n and self.session.label(g) == grp["generalised_item"]):
                    if index is None:  # a report whose ids do not line up: match by label
                        index = {label: i for i, label in enumerate(self.session.labels())}
                    g = index.get(grp["generalised_item"])
                if g is None:
                    continue
                table = grp.get("table") or []
                cols["cells"][g] = sum(1 for row in table for v in row if v is not None)
                cols["eliminated"][g] = len(grp.get("eliminations", []))
                cols["exposed"][g] = len(grp.get("exposed", []))
                if grp.get("density") is not None:
                    cols["density"][g] = grp["density"]
                m = grp.get("metrics") or {}
                for k in ("precision", "recall"):
                    if m.get(k) is not None:
                        cols[k][g] = m[k]
            self._result_cols, self._result_for = cols, result
        return self._result_cols

    def columns(self) -> list[Column]:
        cols = [Column("item", "generalised item", None, min_width=16), Column("size", "size", 6, "right")]
        rc = self.result_columns()
        if self.densities is not None or (rc is not None and not np.all(np.isnan(rc["density"]))):
            cols.append(Column("density", "dens", 5, "right"))
        if rc is not None:
            cols.append(Column("eliminated", "elim", self._elim_width(rc), "right"))
            cols.append(Column("exposed", "exp", 3, "right"))
            if not np.all(np.isnan(rc["precision"])):
                cols += [Column("precision", "P", 4, "right"), Column("recall", "R", 4, "right")]
        return cols

    @staticmethod
    def _elim_width(rc: dict) -> int:
        """Room for the widest ``eliminated/cells`` of any group: numbers are never cut."""
        n = rc["cells"][~np.isnan(rc["cells"])]
        if not n.size:
            return 4
        e = rc["eliminated"][~np.isnan(rc["cells"])]
        return max(4, len(str(int(e.max()))) + 1 + len(str(int(n.max()))))

    def cells(self, g: int, columns: list[Column]) -> Sequence[Cell]:
        out: list[Cell] = [self.session.display_label(g), f"{int(self.sizes[g]):,}"]
        rc = self.result_columns()
        for c in columns[2:]:
            if c.key == "density" and self.densities is not None:
                out.append(ratio(self.densities[g]))
            elif rc is None:
                out.append("")
            elif c.key == "eliminated":
                e, n = rc["eliminated"][g], rc["cells"][g]
                out.append("" if np.isnan(n) else f"{int(e)}/{int(n)}")
            elif c.key == "exposed":
                x = rc["exposed"][g]
                out.append("" if np.isnan(x) else Text(str(int(x)), style="bold red" if x else "dim"))
            else:
                out.append(ratio(rc[c.key][g]))
        return out

    def sort_key(self, column: str):
        if column == "item":
            return self.session.labels()
        if column == "size":
            return self.sizes
        if column == "density" and self.densities is not None:
            return self.densities
        return self.result_columns()[column]


class ClustersSource:
    """Clusters of disassociated data: id, size, record chunks, term-chunk terms, the share of
    items still associated; cover problems and vulnerable records after ``cover``; accuracy
    and breakage after a re-association judged with the key."""

    noun = "cluster"

    def __init__(self, session: Session) -> None:
        from semtui.model.info import cluster_associated_shares

        data: DisassociatedData = session.data  # the source of a disassociated release only
        self.session = session
        self.data = data
        cl = data.clusters
        self.ids = [c.id for c in cl]
        self.keys = {
            "id": self.ids,
            "size": np.fromiter((c.size for c in cl), dtype=np.int64, count=len(cl)),
            "chunks": np.fromiter((len(c.record_chunks) for c in cl), dtype=np.int64, count=len(cl)),
            "terms": np.fromiter((len(c.term_chunk) for c in cl), dtype=np.int64, count=len(cl)),
            "assoc": cluster_associated_shares(data),
        }
        self._items: tuple[np.ndarray, np.ndarray] | None = None
        self._cols: dict[str, np.ndarray] = {}
        self._cols_for: dict[str, Result | None] = {}

    def count(self) -> int:
        return len(self.ids)

    def texts(self) -> list[str]:
        return self.ids

    def match(self, needle: str) -> np.ndarray:
        """Clusters whose id, or any of whose items (in a record chunk or the term chunk),
        contains ``needle`` (case-folded)."""
        if self._items is None:
            owner, items = [], []
            for ci, c in enumerate(self.data.clusters):
                for ch in c.record_chunks:
                    items.append(ch.items)
                    owner.append(np.full(len(ch.items), ci, dtype=np.int64))
                items.append(c.term_chunk)
                owner.append(np.full(len(c.term_chunk), ci, dtype=np.int64))
            self._items = (np.concatenate(owner) if owner else np.zeros(0, np.int64),
                           np.concatenate(items).astype(np.int64) if items else np.zeros(0, np.int64))
        owner, items = self._items
        names = self.data.vocab.items
        hit = np.fromiter((needle in n.casefold() for n in names), dtype=bool, count=len(names))
        out = np.zeros(self.count(), dtype=bool)
        out[owner[hit[items]]] = True
        out |= np.fromiter((needle in i.casefold() for i in self.ids), dtype=bool, count=self.count())
        return np.flatnonzero(out)

    def result_columns(self) -> dict[str, np.ndarray]:
        """Per-cluster numbers of the current cover and re-association reports, by position."""
        n = self.count()
        for kind, fields in (("cover", ("problems", "vulnerable")), ("reassociation", ("accuracy", "breakage"))):
            result = self.session.latest(kind)
            if self._cols_for.get(kind, False) is result:
                continue
            self._cols_for[kind] = result
            for f in fields:
                self._cols.pop(f, None)
            if result is None:
                continue
            entries = result.report.clusters   # typed: CoverCluster or ReassocCluster
            if kind == "cover":
                self._cols["problems"] = np.fromiter((e.cover_problems or 0 for e in entries), np.float64, n)
                self._cols["vulnerable"] = np.fromiter((e.vulnerable_records or 0 for e in entries), np.float64, n)
            elif entries and entries[0].metrics is not None:
                def get(e, k):
                    v = None if e.metrics is None else getattr(e.metrics, k)
                    return np.nan if v is None else v
                self._cols["accuracy"] = np.fromiter((get(e, "accuracy") for e in entries), np.float64, n)
                self._cols["breakage"] = np.fromiter((get(e, "transaction_breakage") for e in entries), np.float64, n)
        return self._cols

    def columns(self) -> list[Column]:
        cols = [
            Column("id", "cluster", None, min_width=8),
            Column("size", "size", 5, "right"),
            Column("chunks", "chunks", 6, "right"),
            Column("terms", "terms", 5, "right"),
            Column("assoc", "assoc", 5, "right"),
        ]
        rc = self.result_columns()
        if "problems" in rc:
            # named for what it counts: the most breaches in one chunk (not records: it can exceed the size)
            cols += [Column("problems", "cover", 5, "right"),
                     Column("vulnerable", MOST_BREACHES_LABEL, len(MOST_BREACHES_LABEL), "right")]
        if "accuracy" in rc:
            cols += [Column("accuracy", "acc", 4, "right"), Column("breakage", "brk", 4, "right")]
        return cols

    def cells(self, i: int, columns: list[Column]) -> Sequence[Cell]:
        out: list[Cell] = [self.ids[i]]
        rc = self._cols
        for c in columns[1:]:
            if c.key in ("size", "chunks", "terms"):
                out.append(f"{int(self.keys[c.key][i]):,}")
            elif c.key == "assoc":
                out.append(ratio(self.keys["assoc"][i]))
            elif c.key in ("problems", "vulnerable"):
                v = rc[c.key][i]
                out.append(Text(f"{int(v):,}", style="bold red" if c.key == "vulnerable" and v else
                                ("" if v else "dim")))
            else:
                out.append(ratio(rc[c.key][i]))
        return out

    def sort_key(self, column: str):
        if column in self.keys:
            return self.keys[column]
        return self.result_columns()[column]


class TransactionsSource:
    """Plain transactions: one list, nothing to group."""

    noun = "transaction"

    def __init__(self, session: Session) -> None:
        data = session.data
        assert isinstance(data, TransactionData)
        self.data = data
        self._texts: list[str] | None = None

    def count(self) -> int:
        return self.data.n_transactions

    def text(self, i: int) -> str:
        return ", ".join(
            token_label(t) for t in self.data.token_names(i)
        )

    def texts(self) -> list[str]:
        if self._texts is None:
            self._texts = [self.text(i) for i in range(self.count())]
        return self._texts

    def line(self, i: int) -> int:
        return self.data.line_of(i)

    def columns(self) -> list[Column]:
        return [
            Column("line", "line", 7, "right"),
            Column("length", "len", 4, "right"),
            Column("items", "transaction", None),
        ]

    def cells(self, i: int, columns: list[Column]) -> Sequence[Cell]:
        return [str(self.line(i)), str(int(self.data.indptr[i + 1] - self.data.indptr[i])), self.text(i)]

    def sort_key(self, column: str):
        if column == "line":
            lines = self.data.lines
            return lines if lines is not None else np.arange(self.count())
        if column == "length":
            return self.data.lengths
        return self.texts()


def source_for(session: Session) -> ListSource:
    """The list of the session's release: its clusters, its groups, or (a plain release) its transactions."""
    return {DISASSOC: ClustersSource, PLAIN: TransactionsSource}.get(session.release.family, GroupsSource)(session)


def highlight_matches(text: Text, needle: str) -> None:
    """Mark every occurrence of ``needle`` (case-folded) in ``text``."""
    if not needle:
        return
    low, n = text.plain.casefold(), len(needle)
    needle = needle.casefold()
    start = low.find(needle)
    while start >= 0:
        text.stylize(MATCH_STYLE, start, start + n)
        start = low.find(needle, start + n)


def transaction_text(data: TransactionData, i: int, g: int | None = None) -> Text:
    """Transaction ``i`` in the papers' notation; generalised item ``g`` stands out (and stays
    on screen when a table cuts the row)."""
    out = KeptText(no_wrap=True)
    names = data.vocab.items
    for k, t in enumerate(data.transaction(i).tolist()):
        if k:
            out.append(", ")
        if t >= 0:
            out.append(names[t])
        else:
            gi = -t - 1
            label = generalised_label(names[m] for m in data.members(gi).tolist())
            if gi == g:
                out.keep.append((len(out), len(out) + len(label)))
            out.append(label, style="bold reverse" if gi == g else "italic")
    return out
