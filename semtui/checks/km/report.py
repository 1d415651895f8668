"""What ``semtui check km`` found, over item names (:class:`KmReport`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from semtui.checks.km.violations import KmViolations

FORMAT = "semtui-km-check/1"


@dataclass
class KmReport:
    """What ``semtui check km`` found."""

    kind: str
    k: int
    m: int
    core: KmViolations
    names: list[list[str]]
    #: for a disassociated release: "cluster/chunk" of each example
    where: list[str] | None = None
    n_clusters: int = 0
    n_record_chunks: int = 0
    declared: dict | None = None
    structure: list[str] = field(default_factory=list)
    n_structure: int = 0
    n_joint_clusters: int = 0
    n_shared_chunks: int = 0
    key_checked: bool = False
    key: dict = field(default_factory=dict)

    @property
    def key_holds(self) -> bool:
        return not self.key_checked or all(v == 0 for k, v in self.key.items() if k.startswith("n_"))

    @property
    def holds(self) -> bool:
        return self.core.holds and self.n_structure == 0 and self.key_holds

    def to_json(self) -> dict:
        c = self.core
        out = {
            "kind": self.kind,
            "k": self.k,
            "m": self.m,
            "holds": self.holds,
            "k_m_anonymous": c.holds,
            "rows_checked": c.n_rows,
            "n_violations": c.n_violations,
            "violations_by_size": {str(i + 1): n for i, n in enumerate(c.by_size)},
            "frequent_by_size": {str(i + 1): n for i, n in enumerate(c.frequent)},
            "violations": [
                {"itemset": names, "support": s, **({"where": self.where[i]} if self.where else {})}
                for i, (names, s) in enumerate(zip(self.names, c.supports))
            ],
        }
        if self.kind == "disassociated":
            out.update({
                "declared": self.declared,
                "clusters": self.n_clusters,
                "record_chunks": self.n_record_chunks,
                "joint_clusters": self.n_joint_clusters,
                "shared_chunks": self.n_shared_chunks,
                "n_structure_problems": self.n_structure,
                "structure_problems": self.structure,
                "key_checked": self.key_checked,
            })
            if self.key_checked:
                out["key"] = self.key
        from semtui.reports import document

        return document(FORMAT, out)
