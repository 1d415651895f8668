"""An attack's figures in an assessment, typed: what a set-generalisation attack took back
(:class:`SetgenFigures`), what a re-association put back (:class:`ReassocFigures`), the cover
problem under one attacker (:class:`CoverFigures`), each with its intervals
(:class:`Intervals`), made from the attack's report and written by ``to_json()``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from semtui.metrics.intervals import Interval, Intervals  # noqa: F401 (Intervals: the figures' intervals)

if TYPE_CHECKING:
    from semtui.attacks.reassociation import ReassocMetrics, SharedChunks


# --------------------------------------------------------------------------- figures
@dataclass(frozen=True)
class Baseline:
    """A random attacker with the same budget (set generalisation)."""

    correct: float | None = None
    precision: float | None = None
    recall: float | None = None

    def to_json(self) -> dict:
        return {"correct": self.correct, "precision": self.precision, "recall": self.recall}


@dataclass(frozen=True)
class Popularity:
    """The popularity attacker (set generalisation)."""

    correct: float | None = None
    precision: float | None = None
    recall: float | None = None
    error_ratio: float | None = None

    def to_json(self) -> dict:
        return {"correct": self.correct, "precision": self.precision, "recall": self.recall,
                "error_ratio": self.error_ratio}


@dataclass(frozen=True)
class SmallTables:
    """The figures over tables of the papers' size (up to 16 members)."""

    groups: int | None
    precision: float | None
    error_ratio: float | None

    def to_json(self) -> dict:
        return {"groups": self.groups, "precision": self.precision, "error_ratio": self.error_ratio}


#: the set-generalisation figures an entry keeps, in order
SETGEN_KEYS = ("eliminated", "correct", "added", "precision", "recall", "recall_attackable", "f1",
               "auc_within_table", "auc_pooled")
#: the intervals an entry keeps of a set-generalisation attack's
SETGEN_INTERVALS = ("precision", "recall", "auc_within_table", "baseline_precision")


@dataclass(frozen=True)
class SetgenFigures:
    """What a set-generalisation attack took back (with the original)."""

    eliminated: int | None = None
    correct: int | None = None
    added: int | None = None
    precision: float | None = None
    recall: float | None = None
    recall_attackable: float | None = None
    f1: float | None = None
    auc_within_table: float | None = None
    auc_pooled: float | None = None
    error_ratio: float | None = None
    baseline: Baseline | None = None
    popularity: Popularity | None = None
    intervals: Intervals = field(default_factory=Intervals)
    density: float | None = None
    density_per_item: float | None = None
    groups: int | None = None
    small_tables: SmallTables | None = None

    @classmethod
    def of(cls, m: Mapping) -> SetgenFigures:
        """From an attack report's metrics (:attr:`SetgenAttackReport.metrics`, or a knowledge
        table's)."""
        base, pop = m.get("baseline") or {}, m.get("popularity") or {}
        small = (m.get("by_table_size") or {}).get("members<=16")
        return cls(**{k: m.get(k) for k in SETGEN_KEYS}, error_ratio=base.get("error_ratio"),
                   baseline=Baseline(*(base.get(k) for k in ("correct", "precision", "recall"))) if base else None,
                   popularity=Popularity(*(pop.get(k) for k in ("correct", "precision", "recall", "error_ratio")))
                   if pop else None,
                   intervals=Intervals.read(m.get("intervals"), SETGEN_INTERVALS, reason=False),
                   density=m.get("density"), density_per_item=m.get("density_per_item"), groups=m.get("groups"),
                   small_tables=SmallTables(small.get("groups"), small.get("precision"),
                                            (small.get("baseline") or {}).get("error_ratio")) if small else None)

    def to_json(self) -> dict:
        out = {k: getattr(self, k) for k in SETGEN_KEYS}
        out["error_ratio"] = self.error_ratio
        out["baseline"] = None if self.baseline is None else self.baseline.to_json()
        out["popularity"] = None if self.popularity is None else self.popularity.to_json()
        out["intervals"] = self.intervals.to_json()
        out["density"], out["density_per_item"], out["groups"] = self.density, self.density_per_item, self.groups
        if self.small_tables is not None:
            out["small_tables"] = self.small_tables.to_json()
        return out


#: the re-association figures an entry keeps, in order
REASSOC_KEYS = ("placements", "correct", "accuracy", "lift_over_random", "transaction_breakage", "km_breakage",
                "broken_transactions", "exposed_itemsets", "protected_itemsets")


@dataclass(frozen=True)
class ReassocFigures:
    """What a re-association put back (with the key and the original)."""

    placements: int | None = None
    correct: int | None = None
    accuracy: float | None = None
    lift_over_random: float | None = None
    transaction_breakage: float | None = None
    km_breakage: float | None = None
    broken_transactions: int | None = None
    exposed_itemsets: int | None = None
    protected_itemsets: int | None = None
    baseline_accuracy: float | None = None
    #: the budget-matched random re-association's breakages, beside the attack's
    baseline_transaction_breakage: float | None = None
    baseline_km_breakage: float | None = None
    #: REFINE's shared chunks: their placements on their own (as the attack's report gives them)
    shared_chunks: SharedChunks | None = None
    intervals: Intervals = field(default_factory=Intervals)

    @classmethod
    def of(cls, m: ReassocMetrics) -> ReassocFigures:
        """From a re-association report's metrics (:attr:`ReassociationReport.metrics`)."""
        base = m.baseline
        return cls(**{k: getattr(m, k) for k in REASSOC_KEYS}, baseline_accuracy=base.accuracy,
                   baseline_transaction_breakage=base.transaction_breakage,
                   baseline_km_breakage=base.km_breakage, shared_chunks=m.shared_chunks,
                   intervals=m.intervals)

    def to_json(self) -> dict:
        out = {k: getattr(self, k) for k in REASSOC_KEYS}
        out["baseline_accuracy"] = self.baseline_accuracy
        out["baseline_transaction_breakage"] = self.baseline_transaction_breakage
        out["baseline_km_breakage"] = self.baseline_km_breakage
        if self.shared_chunks is not None:
            out["shared_chunks"] = self.shared_chunks.to_json()
        out["intervals"] = self.intervals.to_json()
        return out


#: the cover figures an entry keeps, in order
COVER_KEYS = ("cover_problems", "breaches", "vulnerable_records", "clusters_with_breaches", "real_pairs",
              "transactions", "spanning_shared_chunk", "held_by_every_record")


@dataclass(frozen=True)
class CoverFigures:
    """The cover problem under one attacker (disassociation)."""

    cover_problems: int | None = None
    breaches: int | None = None
    vulnerable_records: int | None = None
    clusters_with_breaches: int | None = None
    real_pairs: int | None = None
    transactions: int | None = None
    #: REFINE's problems across a shared chunk
    spanning_shared_chunk: int = 0
    #: problems whose covering itemset every record of the cluster holds
    held_by_every_record: int = 0

    def to_json(self) -> dict:
        return {k: getattr(self, k) for k in COVER_KEYS}


Figures = SetgenFigures | ReassocFigures | CoverFigures


def figure(f, name: str):
    """One figure of typed figures or of a document's figures (a face reads documents)."""
    return f.get(name) if isinstance(f, Mapping) else getattr(f, name, None)


def has_figure(f, name: str) -> bool:
    return name in f if isinstance(f, Mapping) else hasattr(f, name)
