"""The re-association's report, typed (``semtui-disassoc-report/2``; docs/attacks.md): what the
run found, as frozen dataclasses the engine reads by attribute, each writing its part of the
document with ``to_json()`` (key for key, in order, rounded as the document has always been) and
reading it back with ``from_json()`` (a saved report the TUI opens; ``/1`` documents too, their
intervals written as ``[low, high]``).

* :class:`ReassociationReport`: the run's options, :class:`ReassocSummary`,
  :class:`ReassocMetrics` (with the key and the original: its :class:`ReassocBaseline`, its
  intervals, REFINE's :class:`SharedChunks`, the :class:`InformedReference`), the clusters
  (:class:`ReassocCluster`, each with its :class:`PlacedUnit` and :class:`ClusterMetrics`) and the
  joint clusters (:class:`ReassocJoint`, :class:`JointMetrics`).

The clusters of a large release's report are kept on disk (a :class:`~semtui.fileio.Spool` of
typed entries); its document streams them (:class:`~semtui.reports.Streamed`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from semtui.metrics.intervals import Intervals
from semtui.reports import Report, Streamed, paused_gc

REPORT_FORMAT = "semtui-disassoc-report/2"
#: the re-association reports semtui reads: /1 wrote its intervals as ``[low, high]`` (docs/formats.md)
REPORT_FORMATS = ("semtui-disassoc-report/1", REPORT_FORMAT)


def _tuple(v) -> tuple:
    return tuple(v) if v is not None else ()


def _opt(v, f=tuple):
    return None if v is None else f(v)


# --------------------------------------------------------------------------- per cluster
@dataclass(frozen=True)
class PlacedUnit:
    """A distinct non-empty sub-record of a chunk (``count`` times) and the anchors it was placed
    on: a cluster's unit (``chunk`` its record chunk, 2.., or ``"term"``; ``anchors`` anchor
    indices; ``scores`` against every anchor, in the measure's own units), or a joint cluster's
    (``chunk`` ``"S1"``..; ``anchors`` (member cluster id, anchor index) pairs).  ``correct``: with
    the key, per entry of ``anchors``, whether it is the right transaction."""

    chunk: int | str
    items: tuple[str, ...]
    count: int
    anchors: tuple
    scores: tuple | None = None
    correct: tuple[bool, ...] | None = None

    @property
    def joint(self) -> bool:
        return isinstance(self.chunk, str) and self.chunk.startswith("S")

    def to_json(self) -> dict:
        out = {"chunk": self.chunk, "items": list(self.items), "count": self.count,
               "anchors": [list(a) for a in self.anchors] if self.joint else list(self.anchors)}
        if self.scores is not None:
            out["scores"] = list(self.scores)
        if self.correct is not None:
            out["correct"] = list(self.correct)
        return out

    @classmethod
    def from_json(cls, d: Mapping) -> PlacedUnit:
        chunk = d.get("chunk")
        joint = isinstance(chunk, str) and chunk.startswith("S")
        anchors = d.get("anchors") or ()
        return cls(chunk, _tuple(d.get("items")), d.get("count"),
                   tuple(tuple(a) for a in anchors) if joint else tuple(anchors),
                   _opt(d.get("scores")), _opt(d.get("correct")))


@dataclass(frozen=True)
class ClusterMetrics:
    """One cluster's figures (with the key and the original); the k^m figures once it is closed."""

    placements: int
    correct: int
    accuracy: float | None
    broken_transactions: int | None
    transaction_breakage: float | None
    wmd: float | None
    baseline_accuracy: float | None
    protected_itemsets: int | None = None
    exposed_itemsets: int | None = None

    _KEYS = ("placements", "correct", "accuracy", "broken_transactions", "transaction_breakage", "wmd",
             "baseline_accuracy")

    def to_json(self) -> dict:
        out = {k: getattr(self, k) for k in self._KEYS}
        if self.protected_itemsets is not None:
            out["protected_itemsets"] = self.protected_itemsets
        if self.exposed_itemsets is not None:
            out["exposed_itemsets"] = self.exposed_itemsets
        return out

    @classmethod
    def from_json(cls, d: Mapping) -> ClusterMetrics:
        return cls(*(d.get(k) for k in cls._KEYS), d.get("protected_itemsets"), d.get("exposed_itemsets"))


@dataclass(frozen=True)
class ReassocCluster:
    """One cluster's part of the report: its anchors (the items of each) and units placed (None:
    ``--summary-only``), the transaction each anchor was aligned with (with the key), its metrics."""

    id: str
    size: int
    anchors: tuple[tuple[str, ...], ...] | None = None
    units: tuple[PlacedUnit, ...] | None = None
    anchor_transactions: tuple[int, ...] | None = None
    metrics: ClusterMetrics | None = None

    def to_json(self) -> dict:
        out: dict = {"id": self.id, "size": self.size}
        if self.anchors is not None:
            out["anchors"] = [list(a) for a in self.anchors]
            out["units"] = [u.to_json() for u in self.units or ()]
        if self.anchor_transactions is not None:
            out["anchor_transactions"] = list(self.anchor_transactions)
        if self.metrics is not None:
            out["metrics"] = self.metrics.to_json()
        return out

    @classmethod
    def from_json(cls, d: Mapping) -> ReassocCluster:
        anchors = d.get("anchors")
        return cls(d.get("id"), d.get("size"),
                   None if anchors is None else tuple(tuple(a) for a in anchors),
                   None if anchors is None and d.get("units") is None
                   else tuple(PlacedUnit.from_json(u) for u in d.get("units") or ()),
                   _opt(d.get("anchor_transactions")),
                   None if d.get("metrics") is None else ClusterMetrics.from_json(d["metrics"]))


@dataclass(frozen=True)
class JointMetrics:
    """A joint cluster's placements of shared sub-records and how many were right."""

    placements: int
    correct: int
    accuracy: float | None
    baseline_accuracy: float | None

    def to_json(self) -> dict:
        return {"placements": self.placements, "correct": self.correct, "accuracy": self.accuracy,
                "baseline_accuracy": self.baseline_accuracy}

    @classmethod
    def from_json(cls, d: Mapping) -> JointMetrics:
        return cls(d.get("placements"), d.get("correct"), d.get("accuracy"), d.get("baseline_accuracy"))


@dataclass(frozen=True)
class ReassocJoint:
    """A joint cluster (REFINE): its member clusters, how many anchors, the shared sub-records
    placed (None: ``--summary-only``) and, with the key, its metrics."""

    id: str
    clusters: tuple[str, ...]
    anchors: int
    units: tuple[PlacedUnit, ...] | None = None
    metrics: JointMetrics | None = None

    def to_json(self) -> dict:
        out: dict = {"id": self.id, "clusters": list(self.clusters), "anchors": self.anchors}
        if self.units is not None:
            out["units"] = [u.to_json() for u in self.units]
        if self.metrics is not None:
            out["metrics"] = self.metrics.to_json()
        return out

    def summary_only(self) -> ReassocJoint:
        """The entry ``--summary-only`` keeps: no shared sub-record."""
        return ReassocJoint(self.id, self.clusters, self.anchors, None, self.metrics)

    @classmethod
    def from_json(cls, d: Mapping) -> ReassocJoint:
        units = d.get("units")
        return cls(d.get("id"), _tuple(d.get("clusters")), d.get("anchors"),
                   None if units is None else tuple(PlacedUnit.from_json(u) for u in units),
                   None if d.get("metrics") is None else JointMetrics.from_json(d["metrics"]))


# --------------------------------------------------------------------------- the whole release
@dataclass(frozen=True)
class ReassocSummary:
    """What the run did, with or without the key."""

    clusters: int
    transactions: int
    anchors: int
    units: int
    placements: int
    joint_clusters: int
    shared_units: int
    shared_placements: int
    seconds: float = 0.0
    summary_only: bool | None = None

    _KEYS = ("clusters", "transactions", "anchors", "units", "placements", "joint_clusters", "shared_units",
             "shared_placements", "seconds")

    def to_json(self) -> dict:
        out = {k: getattr(self, k) for k in self._KEYS}
        if self.summary_only is not None:
            out["summary_only"] = self.summary_only
        return out

    @classmethod
    def from_json(cls, d: Mapping) -> ReassocSummary:
        return cls(*(d.get(k) for k in cls._KEYS[:-1]), d.get("seconds", 0.0), d.get("summary_only"))


@dataclass(frozen=True)
class ReassocBaseline:
    """The budget-matched random re-association's figures, beside the attack's."""

    accuracy: float | None
    transaction_breakage: float | None
    exposed_itemsets: int | None
    km_breakage: float | None
    wmd: float | None

    _KEYS = ("accuracy", "transaction_breakage", "exposed_itemsets", "km_breakage", "wmd")

    def to_json(self) -> dict:
        return {k: getattr(self, k) for k in self._KEYS}

    @classmethod
    def from_json(cls, d: Mapping | None) -> ReassocBaseline:
        d = d or {}
        return cls(*(d.get(k) for k in cls._KEYS))


@dataclass(frozen=True)
class SharedChunks:
    """REFINE's shared chunks: their part of the figures, on its own."""

    placements: int
    correct: int
    accuracy: float | None
    baseline_accuracy: float | None
    lift_over_random: float | None

    _KEYS = ("placements", "correct", "accuracy", "baseline_accuracy", "lift_over_random")

    def to_json(self) -> dict:
        return {k: getattr(self, k) for k in self._KEYS}

    @classmethod
    def from_json(cls, d: Mapping) -> SharedChunks:
        return cls(*(d.get(k) for k in cls._KEYS))


@dataclass(frozen=True)
class InformedReference:
    """NBA with the co-occurrence statistics of the original itself (a reference, not an attack):
    its figures with their intervals over clusters.  ``ties`` is None in reports written before
    the reference followed the attack's tie rule."""

    about: str
    method: str
    ties: str | None
    statistics: str
    placements: int
    correct: int
    accuracy: float | None
    baseline_accuracy: float | None
    lift_over_random: float | None
    transaction_breakage: float | None
    intervals: Intervals = field(default_factory=Intervals)

    _KEYS = ("about", "method", "ties", "statistics", "placements", "correct", "accuracy", "baseline_accuracy",
             "lift_over_random", "transaction_breakage")

    def to_json(self) -> dict:
        out = {k: getattr(self, k) for k in self._KEYS}
        out["intervals"] = self.intervals.to_json()
        return out

    def entry_json(self) -> dict:
        """As an assessment's entry holds it: without ``about``."""
        out = self.to_json()
        del out["about"]
        return out

    @classmethod
    def from_json(cls, d: Mapping) -> InformedReference:
        return cls(*(d.get(k) for k in cls._KEYS), Intervals.read(d.get("intervals")))


@dataclass(frozen=True)
class ReassocMetrics:
    """What the attack put back, judged against the key and the original: its figures, the
    budget-matched baseline's, the intervals over clusters, REFINE's shared chunks on their own,
    and the informed reference."""

    placements: int
    correct: int
    accuracy: float | None
    held: int
    recall: float | None
    transactions: int
    broken_transactions: int
    transaction_breakage: float | None
    protected_itemsets: int
    exposed_itemsets: int
    km_breakage: float | None
    wmd: float | None
    wmd_transactions: int
    wmd_measure: str | None
    wmd_terms: int
    wmd_unscored_terms: int
    wmd_note: str | None
    baseline: ReassocBaseline
    lift_over_random: float | None
    intervals: Intervals = field(default_factory=Intervals)
    shared_chunks: SharedChunks | None = None
    informed_reference: InformedReference | None = None

    _KEYS = ("placements", "correct", "accuracy", "held", "recall", "transactions", "broken_transactions",
             "transaction_breakage", "protected_itemsets", "exposed_itemsets", "km_breakage", "wmd",
             "wmd_transactions", "wmd_measure", "wmd_terms", "wmd_unscored_terms", "wmd_note")

    def to_json(self) -> dict:
        out = {k: getattr(self, k) for k in self._KEYS}
        out["baseline"] = self.baseline.to_json()
        out["lift_over_random"] = self.lift_over_random
        out["intervals"] = self.intervals.to_json()
        if self.shared_chunks is not None:
            out["shared_chunks"] = self.shared_chunks.to_json()
        if self.informed_reference is not None:
            out["informed_reference"] = self.informed_reference.to_json()
        return out

    @classmethod
    def from_json(cls, d: Mapping) -> ReassocMetrics:
        shared, ref = d.get("shared_chunks"), d.get("informed_reference")
        return cls(*(d.get(k) for k in cls._KEYS), ReassocBaseline.from_json(d.get("baseline")),
                   d.get("lift_over_random"), Intervals.read(d.get("intervals")),
                   SharedChunks.from_json(shared) if shared else None,
                   InformedReference.from_json(ref) if ref else None)


@dataclass(frozen=True)
class ReassociationReport(Report):
    """A re-association of a whole disassociated release: the options it ran with, what it did,
    with the key and the original what it took back, and each cluster's and joint cluster's
    placements.  ``clusters`` may be a :class:`~semtui.fileio.Spool` of :class:`ReassocCluster`
    (a large release's, kept on disk); ``sources``: the files the run read (``data``, ``key``,
    ``original``), written last."""

    FORMAT = REPORT_FORMAT

    method: str
    measure: str | None
    measure_kind: str | None
    background: Mapping | None
    k: int | None
    term_placements: int | None
    seed: int | None
    ties: str | None
    unknown_terms: tuple[str, ...]
    summary: ReassocSummary
    metrics: ReassocMetrics | None = None
    clusters: Sequence[ReassocCluster] = ()
    joint_clusters: Sequence[ReassocJoint] = ()
    sources: Mapping = field(default_factory=dict)

    @property
    def evaluated(self) -> bool:
        """Whether it was judged against the key and the original (it has metrics)."""
        return self.metrics is not None

    def source(self, name: str):
        """A file the run read (``data``, ``key``, ``original``), None when not named."""
        return self.sources.get(name)

    def header(self) -> dict:
        """The document's options and sources without what the run found: what the words that
        name a result read (:func:`semtui.wording.result_name`, ``options_text``)."""
        return {"format": self.FORMAT, "method": self.method, "measure": self.measure,
                "measure_kind": self.measure_kind, "background": self.background, "k": self.k,
                "term_placements": self.term_placements, "seed": self.seed, "ties": self.ties, **self.sources}

    def payload(self) -> dict:
        out = {"method": self.method, "measure": self.measure, "measure_kind": self.measure_kind,
               "background": None if self.background is None else dict(self.background), "k": self.k,
               "term_placements": self.term_placements, "seed": self.seed, "ties": self.ties,
               "unknown_terms": list(self.unknown_terms), "summary": self.summary.to_json()}
        if self.metrics is not None:
            out["metrics"] = self.metrics.to_json()
        out["clusters"] = _entries(self.clusters)
        out["joint_clusters"] = _entries(self.joint_clusters)
        out.update(self.sources)
        return out

    @classmethod
    def from_json(cls, doc: Mapping) -> ReassociationReport:
        """A report as a document holds it (``/1`` or ``/2``; what :func:`semtui.reports.read` gives)."""
        known = {"format", "semtui_version", "method", "measure", "measure_kind", "background", "k",
                 "term_placements", "seed", "ties", "unknown_terms", "summary", "metrics", "clusters",
                 "joint_clusters"}
        metrics = doc.get("metrics")
        with paused_gc():
            return cls(doc.get("method"), doc.get("measure"), doc.get("measure_kind"), doc.get("background"),
                       doc.get("k"), doc.get("term_placements"), doc.get("seed"), doc.get("ties"),
                       _tuple(doc.get("unknown_terms")), ReassocSummary.from_json(doc.get("summary") or {}),
                       None if metrics is None else ReassocMetrics.from_json(metrics),
                       [ReassocCluster.from_json(c) for c in doc.get("clusters") or ()],
                       [ReassocJoint.from_json(j) for j in doc.get("joint_clusters") or ()],
                       {k: v for k, v in doc.items() if k not in known})


def _entries(entries: Sequence) -> list | Streamed:
    """A list of typed entries as the document holds it; kept on disk, streamed as it is written."""
    from semtui.fileio import Spool

    if isinstance(entries, Spool):
        return Streamed(entries, lambda e: e.to_json())
    return [e.to_json() for e in entries]
