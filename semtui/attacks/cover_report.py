"""The cover problem's report, typed (``semtui-cover-report/1``; docs/attacks.md): frozen
dataclasses the engine reads by attribute, each writing its part of the document with
``to_json()`` (key for key, in order) and reading it back with ``from_json()`` (a saved report
the TUI opens).

* :class:`CoverReport`: the attacker and its knowledge, :class:`CoverSummary`, each cluster's
  figures (:class:`CoverCluster`) and every cover problem (:class:`ProblemEntry`, with the
  records it reaches given the key: :class:`ReachedRecord`);
* :func:`covering_words`: what covers a problem's covered item(s), in words.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from semtui.reports import Report, paused_gc

REPORT_FORMAT = "semtui-cover-report/1"


def _tuple(v) -> tuple:
    return tuple(v) if v is not None else ()


@dataclass(frozen=True)
class ReachedRecord:
    """An original transaction (0-based, the key's) whose sub-record of the problem's chunk holds
    x; with the original, its source line and whether it really holds x with a covered item."""

    transaction: int
    line: int | None = None
    holds_covered: bool | None = None

    def to_json(self) -> dict:
        out: dict = {"transaction": self.transaction}
        if self.line is not None:
            out["line"] = self.line
        if self.holds_covered is not None:
            out["holds_covered"] = self.holds_covered
        return out

    @classmethod
    def from_json(cls, d: Mapping) -> ReachedRecord:
        return cls(d.get("transaction"), d.get("line"), d.get("holds_covered"))


@dataclass(frozen=True)
class ProblemEntry:
    """One cover problem as the report names it: its cluster's id, x's chunk and the earlier one
    (1-based into the cluster's chunks, and by their one name: ``C2``, ``J3/S1``), x and its
    support, the covered and covering items (the itemset I), their supports in the earlier chunk,
    whether it is a breach for the attacker, with the original whether the (x, covered) pair
    really occurs (``real``), and with the key the records it reaches (``records``)."""

    cluster: str
    chunk: int
    earlier_chunk: int
    chunk_label: str | None
    earlier_label: str | None
    x: str
    support_x: int
    covered: tuple[str, ...]
    covering: tuple[str, ...]
    itemset: tuple[str, ...]
    #: (item, support in the earlier chunk), covered then covering
    supports: tuple[tuple[str, int], ...]
    itemset_support: int
    breach: bool
    real: bool | None = None
    records: tuple[ReachedRecord, ...] | None = None

    def to_json(self) -> dict:
        out = {"cluster": self.cluster, "chunk": self.chunk, "earlier_chunk": self.earlier_chunk,
               "chunk_label": self.chunk_label, "earlier_label": self.earlier_label, "x": self.x,
               "support_x": self.support_x, "covered": list(self.covered), "covering": list(self.covering),
               "itemset": list(self.itemset), "supports": dict(self.supports),
               "itemset_support": self.itemset_support, "breach": self.breach}
        if self.chunk_label is None and self.earlier_label is None:   # an older report's, read back
            del out["chunk_label"], out["earlier_label"]
        if self.real is not None:
            out["real"] = self.real
        if self.records is not None:
            out["records"] = [r.to_json() for r in self.records]
        return out

    @classmethod
    def from_json(cls, d: Mapping) -> ProblemEntry:
        records = d.get("records")
        return cls(d.get("cluster"), d.get("chunk"), d.get("earlier_chunk"), d.get("chunk_label"),
                   d.get("earlier_label"), d.get("x"), d.get("support_x"), _tuple(d.get("covered")),
                   _tuple(d.get("covering")), _tuple(d.get("itemset")), tuple((d.get("supports") or {}).items()),
                   d.get("itemset_support"), bool(d.get("breach")), d.get("real"),
                   None if records is None else tuple(ReachedRecord.from_json(r) for r in records))


@dataclass(frozen=True)
class CoverCluster:
    """One cluster's cover figures: its chunks, cover problems, breaches (per chunk) and vulnerable
    records (the most breaches in one of its chunks)."""

    id: str
    size: int
    record_chunks: int
    shared_chunks: int | None
    cover_problems: int
    breaches: int
    breaches_per_chunk: tuple[int, ...]
    vulnerable_records: int

    def to_json(self) -> dict:
        out = {"id": self.id, "size": self.size, "record_chunks": self.record_chunks,
               "shared_chunks": self.shared_chunks, "cover_problems": self.cover_problems, "breaches": self.breaches,
               "breaches_per_chunk": list(self.breaches_per_chunk), "vulnerable_records": self.vulnerable_records}
        if self.shared_chunks is None:   # an older report's, read back
            del out["shared_chunks"]
        return out

    @classmethod
    def from_json(cls, d: Mapping) -> CoverCluster:
        return cls(d.get("id"), d.get("size"), d.get("record_chunks"), d.get("shared_chunks"),
                   d.get("cover_problems"), d.get("breaches"), _tuple(d.get("breaches_per_chunk")),
                   d.get("vulnerable_records"))


@dataclass(frozen=True)
class CoverSummary:
    """The release's figures: cover problems, breaches, vulnerable records; with the original how
    many (x, covered) pairs really occur (``real_pairs``), with the key the records a breach reaches
    (``breached_records``; with the original too, those really holding the pair)."""

    clusters: int
    transactions: int
    cover_problems: int
    breaches: int
    vulnerable_records: int
    clusters_with_breaches: int
    real_pairs: int | None = None
    breached_records: int | None = None
    breached_records_real: int | None = None
    seconds: float = 0.0

    _KEYS = ("clusters", "transactions", "cover_problems", "breaches", "vulnerable_records", "clusters_with_breaches")
    _GIVEN = ("real_pairs", "breached_records", "breached_records_real")

    def to_json(self) -> dict:
        out = {k: getattr(self, k) for k in self._KEYS}
        out.update((k, getattr(self, k)) for k in self._GIVEN if getattr(self, k) is not None)
        out["seconds"] = self.seconds
        return out

    @classmethod
    def from_json(cls, d: Mapping) -> CoverSummary:
        return cls(*(d.get(k) for k in cls._KEYS + cls._GIVEN), d.get("seconds", 0.0))


@dataclass(frozen=True)
class CoverReport(Report):
    """The cover problems of a release and the breaches one attacker makes of them.
    ``knowledge_itemsets``: how many itemsets it knew (None: the strong attacker, who knows every
    pair); ``outside_words``: the weak attacker's words from outside the release; ``sources``:
    the files the run read (``data``, ``original``, ``knowledge``, ``key``), written last."""

    FORMAT = REPORT_FORMAT

    attacker: str
    seed: int
    knowledge_itemsets: int | None
    outside_words: tuple[str, ...]
    summary: CoverSummary
    clusters: tuple[CoverCluster, ...] = ()
    cover_problems: tuple[ProblemEntry, ...] = ()
    sources: Mapping = field(default_factory=dict)

    def source(self, name: str):
        """A file the run read, None when not named."""
        return self.sources.get(name)

    def header(self) -> dict:
        """The document's options and sources without what the run found: what the words that
        name a result read (:func:`semtui.wording.result_name`, ``options_text``)."""
        return {"format": self.FORMAT, "attacker": self.attacker, "seed": self.seed,
                "knowledge_itemsets": self.knowledge_itemsets, **self.sources}

    @property
    def breached(self) -> list[ProblemEntry]:
        """The cover problems that are breaches for this attacker."""
        return [p for p in self.cover_problems if p.breach]

    def payload(self) -> dict:
        return {"attacker": self.attacker, "seed": self.seed, "knowledge_itemsets": self.knowledge_itemsets,
                "outside_words": list(self.outside_words), "summary": self.summary.to_json(),
                "clusters": [c.to_json() for c in self.clusters],
                "cover_problems": [p.to_json() for p in self.cover_problems], **self.sources}

    @classmethod
    def from_json(cls, doc: Mapping) -> CoverReport:
        """A report as a document holds it (what :func:`semtui.reports.read` gives)."""
        known = {"format", "semtui_version", "attacker", "seed", "knowledge_itemsets", "outside_words", "summary",
                 "clusters", "cover_problems"}
        with paused_gc():
            return cls(doc.get("attacker"), doc.get("seed"), doc.get("knowledge_itemsets"), _tuple(doc.get("outside_words")),
                       CoverSummary.from_json(doc.get("summary") or {}),
                       tuple(CoverCluster.from_json(c) for c in doc.get("clusters") or ()),
                       tuple(ProblemEntry.from_json(p) for p in doc.get("cover_problems") or ()),
                       {k: v for k, v in doc.items() if k not in known})


def covering_words(problem: ProblemEntry | dict) -> str:
    """What covers the covered item(s) of a report's cover problem (typed, or as a document the
    TUI shows holds it), in words.  With one covered item y*, the rest of I covers it; when
    several items of I tie at the least support, each of them is covered by all the others of I
    (they always occur together), which ``covering`` (the items of I above the least support)
    alone would leave empty."""
    if isinstance(problem, dict):
        problem = ProblemEntry.from_json(problem)
    covering = list(problem.covering)
    if len(problem.covered) < 2:
        return ", ".join(covering)
    return "each other" + (f" and by {', '.join(covering)}" if covering else "")
