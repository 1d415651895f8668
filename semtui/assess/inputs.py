"""What an assessment is given: the inputs (:class:`AssessInputs`, the same object the CLI and the
TUI's ``A`` build), the measures and the background opened once (:class:`Opened`), and the
attacks' short names."""

from __future__ import annotations

from dataclasses import dataclass, field

from semtui.families.disassoc import REASSOC_METHODS
from semtui.families.setgen import KNOWLEDGE_METHODS, SETGEN_METHODS


@dataclass(frozen=True)
class AssessInputs:
    """The files an assessment reads, as the user named them (the commands it prints name them so)."""

    data: str
    original: str | None = None
    key: str | None = None
    background: str | None = None
    corpus: str | None = None
    measures: tuple[str, ...] = ()
    jobs: int = 1
    #: a Dask scheduler for every attack's units (local:N, tcp://HOST:PORT); None: ``jobs`` processes here
    scheduler: str | None = None
    #: read and write the persistent score cache (the results are the same without it)
    cache: bool = True
    #: the release writes its generalised items as their members, as plain items: every
    #: set-generalisation attack recovers them first (``attack setgen --unmarked``)
    unmarked: bool = False
    #: run only these attacks (:func:`attack_name`: a method, or ``cover``); None: every one the
    #: release admits.  What is not run is not tried: the strongest attack is among those run only
    only: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        from semtui.runtime.cluster import check_scheduler

        object.__setattr__(self, "scheduler", check_scheduler(self.scheduler))

    def measure_list(self) -> list[str]:
        """The measures every semantic attack runs with: those given, else ``embedding``; a corpus
        index adds NGD over it."""
        out = list(dict.fromkeys(m.strip() for m in self.measures if m.strip())) or ["embedding"]
        if self.corpus:
            ngd = f"ngd:{self.corpus}"
            if ngd not in out:
                out.append(ngd)
        return out


@dataclass
class Opened:
    """The measures and the background an assessment opens once (several assessments may
    share one: the experiment's cells, ``assess``'s alternatives)."""

    measures: dict = field(default_factory=dict)
    backgrounds: dict = field(default_factory=dict)

    def measure(self, spec: str, cache: bool = True):
        from semtui.measures import open_measure

        if spec not in self.measures:
            self.measures[spec] = open_measure(spec, cache=cache)
        return self.measures[spec]

    def load_background(self, spec: str):
        if spec not in self.backgrounds:
            from semtui.attacks.background import load_background

            self.backgrounds[spec] = load_background(spec)
        return self.backgrounds[spec]


def attack_name(attack: str, o: dict) -> str:
    """An attack's short name, as ``AssessInputs.only`` and an experiment spec's ``attacks`` name
    it: its method (``tba``, ``pba``, ``ra``, ``aba``, ``nba``, ...) or ``cover`` (the three cover
    attackers)."""
    return "cover" if attack == "cover" else str(o["method"])


def knowledge_of(reports: list[dict], measure: str | None = None) -> tuple[tuple[str, ...], str | None]:
    """The measures and the background that attack reports were run with, as ``assess`` takes
    them (``--measure``, repeated, and ``--background``): every measure a report scored with, in
    the order they ran, then ``measure`` (the one an attack form holds now); the background of the
    latest report that had one.  A face that ran those attacks assesses with the same knowledge."""
    from semtui.wording import background_source

    measures: list[str] = []
    background = None
    for r in reports:
        fmt = str(r.get("format", ""))
        if fmt.startswith("semtui-cover-report/"):
            continue
        m = r.get("measure")
        if m and r.get("method") not in ("ra", "nba") and m not in measures:
            measures.append(str(m))
        background = background_source(r) or background
    if measure and measure not in measures:
        measures.append(measure)
    return tuple(measures), background


#: every name :func:`attack_name` gives
ATTACK_NAMES = tuple(dict.fromkeys((*SETGEN_METHODS, *KNOWLEDGE_METHODS, "ra", *REASSOC_METHODS, "nba", "cover")))


def is_default(attack: str, o: dict, inputs: AssessInputs) -> bool:
    """The attack ``semtui attack`` runs by default on these inputs (its records are listed,
    unscored, when nothing can be scored); ``attack``: the family of attacks that runs it
    (:class:`semtui.families.common.Planned`)."""
    first = inputs.measure_list()[0]
    if attack == "setgen":
        want = dict(method="pba", measure=first, background=inputs.background) if inputs.background else \
            dict(method="rba", measure=first)
    elif attack == "reassoc":
        want = dict(method="nba", background=inputs.background) if inputs.background else \
            dict(method="aba", measure=first)
    else:
        return False
    return o == want
