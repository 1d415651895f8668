"""The options of the re-association attack: defaults and validation, in one place.

The CLI (``semtui attack disassoc``), the TUI form and the engine all build a
:class:`ReassociationOptions`; a bad value raises :class:`InputError` with ``option`` set to the
field's name, which each face words itself (the CLI as ``--seed``, the TUI beside its field).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from pathlib import Path

from semtui.errors import InputError

#: the re-association methods (ALGORITHMS.md §2, §7): the paper's three, an optimal assignment,
#: RA, and the naive-Bayes attack over a background's co-occurrence
METHODS = ("aba", "rga", "mra", "assign", "ra", "nba")

#: the methods that score with the background, not a measure
BACKGROUND_METHODS = ("nba",)

#: how equal scores are broken
TIES = ("first", "random")

#: each method's tie rule when none is given (``ties=None``): ``first`` (the anchoring chunk's
#: order) for the papers' scoring methods and ``assign``, as the paper; ``random`` (seeded) for
#: NBA, whose equal scores (an empty anchor, identical C1 sub-records, terms the background never
#: saw) would otherwise pile units onto the first anchors of a cluster; RA places at random
#: whatever the rule
DEFAULT_TIES = {"aba": "first", "rga": "first", "mra": "first", "assign": "first", "ra": "random", "nba": "random"}

def _whole(value, option: str, low: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or int(value) != value or value < low:
        raise InputError(f"{what} must be a whole number of at least {low}, got {value!r}", option=option)
    return int(value)


@dataclass(frozen=True)
class ReassociationOptions:
    """Everything that decides a re-association's result, with the paper's defaults.

    Two numbers the paper reads off one k are kept apart (ALGORITHMS.md §6): ``k`` is the
    **protection level**, the k of k^m-anonymity that says which itemsets count as protected in
    k^m breakage (default: the release's k); ``term_placements`` is the **placement budget**,
    the number of anchoring sub-records a term-chunk term goes to (default: the release's k - 1,
    the paper's Algorithm 3).
    ``seed``: RA, random ties, the budget-matched baseline and the intervals; ``ties``: ``first``
    keeps the anchoring chunk's order (the paper), ``random`` a seeded order, None the method's
    default (:data:`DEFAULT_TIES`; :attr:`tie_rule` is the rule a run uses); ``wmd_measure``: the
    measure whose distances WMD uses (None: no WMD); ``jobs``: worker processes for the kernels
    (the report is the same whatever it is); ``scheduler``: a Dask cluster for them instead
    (``local:N``, ``tcp://HOST:PORT``; the same report again); ``background``: the attacker's knowledge of a similar
    population (``FILE``, ``counts:FILE`` or ``wordfreq:LANG``, :mod:`semtui.attacks.background`),
    which ``nba`` scores with — the default method when a background is given, ``aba`` otherwise.
    ``informed``: with the key and the original, also run the informed reference (NBA with the
    original's own statistics, under this run's tie rule, so that the two compare like with like).
    """

    method: str | None = None
    measure: str = "embedding"
    vectors: str | None = None
    cache: bool = True
    k: int | None = None
    term_placements: int | None = None
    seed: int = 0
    ties: str | None = None
    jobs: int = 1
    scheduler: str | None = None
    wmd_measure: str | None = "embedding"
    background: str | None = None
    informed: bool = True
    #: per cluster only its id, size and metrics: no placements, scores or reconstructed transactions
    summary_only: bool = False

    def __post_init__(self) -> None:
        if self.background is not None:
            from semtui.attacks.background import check_background

            background = str(self.background).strip()
            check_background(background)  # raises with option="background"
            object.__setattr__(self, "background", background)
        # the strongest attacker by default when knowledge is given (ALGORITHMS.md §7)
        method = str(self.method if self.method is not None else ("nba" if self.background else "aba")).strip().lower()
        if method not in METHODS:
            raise InputError(f"unknown method {method!r} (choose from {', '.join(METHODS)})", option="method")
        object.__setattr__(self, "method", method)
        if method in BACKGROUND_METHODS and self.background is None:
            from semtui.attacks.background import SPEC_HELP

            raise InputError(f"{method} scores with background knowledge: give it ({SPEC_HELP})", option="background")
        if self.background is not None and method not in BACKGROUND_METHODS:
            raise InputError(f"a background only applies to {', '.join(BACKGROUND_METHODS)} (the method that scores "
                             f"with it), not {method}", option="background")
        kind = _checked_measure(self.measure, "measure")
        object.__setattr__(self, "measure", str(self.measure).strip())
        if self.vectors is not None:
            if kind != "embedding":
                raise InputError(f"a vectors file only applies to the embedding measure, not {self.measure!r}",
                                 option="vectors")
            object.__setattr__(self, "vectors", str(self.vectors))
        if self.wmd_measure is not None:
            _checked_measure(self.wmd_measure, "wmd_measure")
            object.__setattr__(self, "wmd_measure", str(self.wmd_measure).strip())
        if self.ties is not None:  # None stays None: the method's default, even after replace(method=...)
            ties = str(self.ties).strip().lower()
            if ties not in TIES:
                raise InputError(f"ties must be {' or '.join(TIES)}, got {self.ties!r}", option="ties")
            object.__setattr__(self, "ties", ties)
        object.__setattr__(self, "seed", _whole(0 if self.seed is None else self.seed, "seed", 0, "the seed"))
        if self.k is not None:
            object.__setattr__(self, "k", _whole(self.k, "k", 1, "k"))
        if self.term_placements is not None:
            object.__setattr__(self, "term_placements",
                               _whole(self.term_placements, "term_placements", 1, "the term placements"))
        object.__setattr__(self, "jobs", _whole(self.jobs, "jobs", 1, "jobs"))
        from semtui.runtime.cluster import check_scheduler

        object.__setattr__(self, "scheduler", check_scheduler(self.scheduler))
        object.__setattr__(self, "cache", bool(self.cache))
        object.__setattr__(self, "informed", bool(self.informed))
        object.__setattr__(self, "summary_only", bool(self.summary_only))

    @property
    def tie_rule(self) -> str:
        """The tie rule the run uses: ``ties`` when given, else the method's default."""
        return self.ties if self.ties is not None else DEFAULT_TIES[self.method]

    @property
    def measure_files(self) -> list[Path]:
        """The files the options read (a measure's file, a vectors file): never outputs."""
        from semtui.attacks.background import knowledge_files

        return knowledge_files(self.measure, self.vectors, self.background)

    def replace(self, **changes) -> ReassociationOptions:
        return replace(self, **changes)

    def to_json(self) -> dict:
        return asdict(self)


def _checked_measure(spec, option: str) -> str:
    from semtui.measures import check_measure

    spec = str(spec).strip()
    if not spec:
        raise InputError("the measure is empty (try 'embedding' or 'scores:FILE')", option=option)
    try:
        return check_measure(spec)
    except InputError as exc:
        raise InputError(exc.message, option=option) from None
