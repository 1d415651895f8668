"""The options of the set-generalisation attack: defaults and validation, in one place.

The CLI, the TUI form and the engine all build an :class:`AttackOptions`; a bad value raises
:class:`InputError` with ``option`` set to the field's name, which each face words itself.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from semtui.attacks.setgen.eliminate import METHODS
from semtui.attacks.setgen.tables import AggregateSpec, ContextSpec
from semtui.errors import InputError

#: The methods with a threshold δ (the others take none).
THRESHOLD_METHODS = ("tba", "wba", "gba", "rba", "pba")

#: One line per method, for help texts and the TUI form.
METHOD_HELP = {
    "mda": "mda: the single largest distance",
    "tba": "tba: every distance above δ",
    "wba": "wba: weighted distances above δ",
    "gba": "gba: group vulnerability, weights from counts",
    "rba": "rba: group vulnerability, weights redistributed",
    "ra": "ra: the random baseline (each cell with p = 0.5)",
    "pba": "pba: posterior of being original below τ (with --background)",
    "auto": "auto: the stronger of pba and tba (with --background; the default there)",
}

#: The eliminator of the papers' attack, and of the knowledge attack (``--background``): the papers'
#: best, and ``auto`` -- PBA and TBA both run, and the one that takes back more is reported (PBA
#: measured best on MEPS, TBA on MED: docs/experiments.md; a publisher must assume an attacker tries both).
DEFAULT_METHOD = "rba"
DEFAULT_KNOWLEDGE_METHOD = "auto"

#: The methods ``auto`` tries, the first being its choice on a tie or without the original.
AUTO_METHODS = ("pba", "tba")

#: The table a knowledge attack eliminates on by default (docs/experiments.md says why).
DEFAULT_KNOWLEDGE = "combined"

#: Bootstrap resamples for the intervals (ALGORITHMS.md §6), and budget-matched baseline draws.
DEFAULT_RESAMPLES = 200
DEFAULT_BASELINE_DRAWS = 10


@dataclass(frozen=True)
class AttackOptions:
    """Everything that decides an attack's result, with the papers' defaults."""

    #: None: :data:`DEFAULT_METHOD`, or :data:`DEFAULT_KNOWLEDGE_METHOD` with a background
    method: str | None = None
    measure: str = "embedding"
    context: str = "all"
    aggregate: str = "mean"
    threshold: float | None = None
    seed: int | None = None
    k: int | None = None
    vectors: str | None = None
    cache: bool = True
    jobs: int = 1
    #: a Dask scheduler (local:N or tcp://HOST:PORT) for the per-group kernels; None: ``jobs`` processes here
    scheduler: str | None = None
    resamples: int = DEFAULT_RESAMPLES
    baseline_draws: int = DEFAULT_BASELINE_DRAWS
    #: the release does not mark its generalised items: recover them first (attacks.setgen.unknown)
    unmarked: bool = False
    #: the attacker's background knowledge: FILE, counts:FILE or wordfreq:LANG (None: the papers' attack)
    background: str | None = None
    #: with a background, the table the eliminator runs on (one of knowledge.VARIANTS; None: the default)
    knowledge: str | None = None
    #: how the context's evidence adds up: sum (naive Bayes) or mean
    evidence: str = "mean"

    def __post_init__(self) -> None:
        from semtui.attacks.setgen.knowledge import EVIDENCE, VARIANTS

        if self.background is not None:
            from semtui.attacks.background import check_background

            bg = str(self.background).strip()
            check_background(bg)  # an empty background is refused, as attack disassoc does (None means none)
            object.__setattr__(self, "background", bg)
        # the semantics table holds the measure's distances, not surprisals: PBA cannot read it (the
        # side-by-side semantics row uses TBA), so it is TBA by default there and refused if asked for
        semantics_table = self.background is not None and str(self.knowledge or "").strip().lower() == "semantics"
        method = str(self.method or "").strip().lower() or (
            ("tba" if semantics_table else DEFAULT_KNOWLEDGE_METHOD) if self.background else DEFAULT_METHOD)
        object.__setattr__(self, "method", method)
        if method not in (*METHODS, "auto"):
            raise InputError(f"unknown method {method!r} (choose from {', '.join(METHODS)} or auto)",
                             option="method")
        if method == "auto":
            if self.background is None:
                raise InputError("auto tries pba, which needs a background (--background)", option="method")
            if semantics_table:
                raise InputError("auto tries pba, which cannot read the semantics table: choose tba",
                                 option="method")
            if self.threshold is not None:
                raise InputError("auto tries pba and tba with their own default thresholds: give --method "
                                 "pba or tba with a threshold", option="threshold")
        if method == "pba" and semantics_table:
            raise InputError("pba reads the table as surprisals, and the semantics table holds the measure's "
                             "distances: choose another method (tba, as the side-by-side table does)",
                             option="method")
        from semtui.measures import check_measure

        measure = str(self.measure).strip()
        if not measure:
            raise InputError("the measure is empty (try 'embedding' or 'scores:FILE')", option="measure")
        try:
            kind = check_measure(measure)
        except InputError as exc:
            raise InputError(exc.message, option="measure") from None
        object.__setattr__(self, "measure", measure)
        if self.vectors is not None:
            if kind != "embedding":
                raise InputError(f"a vectors file only applies to the embedding measure, not {measure!r}",
                                 option="vectors")
            object.__setattr__(self, "vectors", str(self.vectors))
        object.__setattr__(self, "context", str(self.context_spec))
        object.__setattr__(self, "aggregate", str(self.aggregate_spec))
        if self.threshold is not None:
            if method not in THRESHOLD_METHODS:
                raise InputError(f"a threshold does not apply to {method}", option="threshold")
            if not math.isfinite(self.threshold):
                raise InputError(f"the threshold must be a finite number, got {self.threshold}", option="threshold")
            if method == "pba" and not 0 < self.threshold < 1:
                raise InputError(f"PBA's threshold is a probability between 0 and 1, got {self.threshold}",
                                 option="threshold")
        if self.seed is not None:
            if method != "ra":
                raise InputError(f"a seed only applies to the random baseline ra, not {method}", option="seed")
            if int(self.seed) != self.seed or self.seed < 0:
                raise InputError(f"the seed must be a non-negative integer, got {self.seed}", option="seed")
        if self.k is not None and (int(self.k) != self.k or self.k < 1):
            raise InputError(f"k must be a whole number of at least 1, got {self.k}", option="k")
        if int(self.jobs) != self.jobs or self.jobs < 1:
            raise InputError(f"jobs must be a whole number of at least 1, got {self.jobs}", option="jobs")
        from semtui.runtime.cluster import check_scheduler

        object.__setattr__(self, "scheduler", check_scheduler(self.scheduler))
        if not isinstance(self.unmarked, bool):
            raise InputError(f"unmarked is true or false, got {self.unmarked!r}", option="unmarked")
        if self.resamples < 0 or self.baseline_draws < 0:
            raise InputError("resamples and baseline draws cannot be negative", option="resamples")
        if method == "pba" and self.background is None:
            raise InputError("pba reads the table as surprisals: it needs a background (--background)",
                             option="method")
        knowledge = str(self.knowledge or "").strip().lower() or None
        if knowledge is not None:
            if self.background is None:
                raise InputError("the knowledge table needs a background (--background)", option="knowledge")
            if knowledge not in VARIANTS:
                raise InputError(f"unknown knowledge {knowledge!r} (choose from {', '.join(VARIANTS)})",
                                 option="knowledge")
        elif self.background is not None:
            knowledge = DEFAULT_KNOWLEDGE
        object.__setattr__(self, "knowledge", knowledge)
        if self.evidence not in EVIDENCE:
            raise InputError(f"unknown evidence rule {self.evidence!r} (choose from {', '.join(EVIDENCE)})",
                             option="evidence")

    @property
    def context_spec(self) -> ContextSpec:
        try:
            return ContextSpec.parse(str(self.context).strip() or "all")
        except InputError as exc:
            raise InputError(exc.message, option="context") from None

    @property
    def aggregate_spec(self) -> AggregateSpec:
        try:
            return AggregateSpec.parse(str(self.aggregate).strip() or "mean")
        except InputError as exc:
            raise InputError(exc.message, option="aggregate") from None

    @property
    def measure_files(self) -> list[Path]:
        """The files the options read (a measure's file, a vectors file): never outputs."""
        from semtui.attacks.background import knowledge_files

        return knowledge_files(self.measure, self.vectors, self.background)

    def replace(self, **changes) -> AttackOptions:
        return replace(self, **changes)

    def to_json(self) -> dict:
        return asdict(self)


def group_seed(seed: int | None, group: int) -> int | None:
    """The seed of one equivalence group's random choices, derived from the run's seed and the
    group's id only, so that a run gives the same result serially or in parallel."""
    if seed is None:
        return None
    import numpy as np

    return int(np.random.SeedSequence([int(seed), int(group)]).generate_state(1)[0])
