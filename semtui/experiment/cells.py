"""One engine for a candidate release (issue 22): anonymise the original with a family and its
parameters, check the release with the independent checker, run the assessment's attacks on it
(:class:`semtui.assess.Assessor`, the code ``semtui assess`` runs) and keep the strongest, measure
its utility, and return one cell (``semtui-experiment/2``, the contract in docs/experiment.md).

The release is checked and attacked as it would be published: written in its file format and
read back.  Progress goes through one callback; raising ``Interrupted`` from it (or Ctrl-C)
cancels.  ``--jobs`` goes to the anonymiser's parts (k^m LRA/VPA) and to every attack, through
the one executor (:mod:`semtui.runtime.executor`).
"""

from __future__ import annotations

import hashlib
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from semtui.assess import AssessInputs, Assessor, Opened, top_attack
from semtui.experiment.spec import CellParams
from semtui.families import family_of
from semtui.families.common import key_path
from semtui.model import TransactionData
from semtui.release import Release
from semtui.reports import json_float
from semtui.runtime import ProgressCallback, no_progress

FORMAT = "semtui-experiment/2"
#: the cells semtui reads: /1 wrote ``privacy.intervals`` and a re-association's intervals as
#: ``[low, high]`` (docs/experiment.md: a RESULTS file may hold both)
FORMATS = ("semtui-experiment/1", FORMAT)


@dataclass
class Context:
    """What every cell of one run shares: the original (read once), the attacker's knowledge,
    the measures (opened once) and where releases are kept."""

    original: TransactionData
    original_path: str
    background: str | None = None
    corpus: str | None = None
    measures: tuple[str, ...] = ()
    jobs: int = 1
    cache: bool = True
    keep_dir: Path | None = None
    #: the attacks every cell runs (the spec's ``attacks``), None: every one assess runs
    only: tuple[str, ...] | None = None
    #: the content of the inputs every cell reads, ``sha256:HEX`` by the input's name in a line's
    #: ``inputs`` (``original``, ``background``, ``corpus``; ``measures``: one a measure, None for
    #: one that reads no file): semtui.experiment.run.input_digests; kept in each line
    digests: dict = field(default_factory=dict)
    #: the same of each file the cells' parameters name (privacy, utility, hierarchy), by path
    file_digests: dict[str, str] = field(default_factory=dict)
    opened: Opened = field(default_factory=Opened)
    _hierarchies: dict = field(default_factory=dict)
    #: the files a cell's parameters name (privacy constraints, utility constraints), as read
    _files: dict = field(default_factory=dict)

    def inputs(self, data: str, key: str | None = None, unmarked: bool = False) -> AssessInputs:
        return AssessInputs(data=data, original=self.original_path, key=key, background=self.background,
                            corpus=self.corpus, measures=self.measures, jobs=self.jobs, cache=self.cache,
                            unmarked=unmarked, only=self.only)

    def hierarchy(self, p: dict):
        """The cell's hierarchy: its file, or one ``semtui hierarchy build`` makes from the original."""
        if p.get("hierarchy"):
            spec = ("file", p["hierarchy"])
        else:
            spec = ("build", p.get("fanout", 5), p.get("order", "id"))
        if spec not in self._hierarchies:
            if spec[0] == "file":
                from semtui.formats.hierarchy import read_hierarchy

                self._hierarchies[spec] = read_hierarchy(spec[1])
            else:
                from semtui.measures.order import ordered_leaves
                from semtui.model.hierarchy import balanced

                self._hierarchies[spec] = balanced(ordered_leaves(self.original, spec[2]), spec[1])
        return self._hierarchies[spec]

    def privacy(self, path: str) -> list[list[str]]:
        """The privacy constraints a setgen cell's ``privacy`` file holds (a text file, or the
        constraints a setgen sidecar JSON records)."""
        key = ("privacy", str(path))
        if key not in self._files:
            if str(path).endswith(".json"):  # a sidecar: the constraints it records
                from semtui.checks.privacy import read_constraints

                self._files[key] = read_constraints(path)
            else:
                from semtui.anonymize.setgen import read_privacy

                self._files[key] = read_privacy(path)
        return [list(c) for c in self._files[key]]  # a copy: no cell changes another's

    def utility(self, spec: str, constraints) -> list[list[str]] | None:
        """A setgen cell's utility constraints (``utility_constraints``); a FILE is read once."""
        from semtui.anonymize.setgen.constraints import read_utility, utility_constraints, utility_files

        if not utility_files(spec):
            return utility_constraints(spec, self.original, constraints)
        key = ("utility", spec)
        if key not in self._files:
            self._files[key] = read_utility(utility_files(spec)[0])
        return [list(c) for c in self._files[key]]

    def read_files(self, cells) -> None:
        """Read here every file the cells' parameters name (privacy and utility constraints,
        hierarchies), so that a context shipped to another machine carries them and no worker
        opens a path it may not have (``semtui experiment --scheduler``)."""
        for cell in cells:
            family_of(cell.family).read_files(dict(cell.params), self)


class _Named:
    """A :class:`~semtui.families.common.Sources` that reads nothing and notes the files a cell's
    parameters name, by the parameter (through the family's own ``read_files``)."""

    def __init__(self) -> None:
        self.files: dict[str, str] = {}

    def privacy(self, path: str):
        self.files["privacy"] = str(path)
        return []

    def utility(self, spec: str, constraints):
        from semtui.anonymize.setgen.constraints import utility_files

        for f in utility_files(spec):
            self.files["utility"] = str(f)
        return None

    def hierarchy(self, params: dict):
        if params.get("hierarchy"):
            self.files["hierarchy"] = str(params["hierarchy"])
        return None


def cell_files(cell: CellParams) -> dict[str, str]:
    """The files a cell's parameters name, by parameter (``privacy``, ``utility``, ``hierarchy``)."""
    named = _Named()
    family_of(cell.family).read_files(dict(cell.params), named)
    return named.files


def cell_digests(cell: CellParams, ctx: Context) -> dict:
    """The digests of what this cell read: the run's shared inputs (``ctx.digests``: the original,
    the background, the corpus, the measures' files) and the files its parameters name, by
    parameter (``ctx.file_digests`` holds them by path)."""
    own = {key: ctx.file_digests[path] for key, path in cell_files(cell).items() if path in ctx.file_digests}
    return {**ctx.digests, **own}


def slug(cell: CellParams) -> str:
    """A file name for the cell's release: its id with every odd character made ``_`` (a long one
    cut and made unique with a hash)."""
    s = re.sub(r"[^A-Za-z0-9=.+-]+", "_", cell.id)
    if len(s) > 100:
        s = s[:80] + "-" + hashlib.sha256(cell.id.encode()).hexdigest()[:12]
    return s


# --------------------------------------------------------------------------- anonymise
@dataclass
class Made:
    """A release as published (read back from its own format) and what checks and attacks it."""

    release: object
    text: str
    ext: str
    key: object | None = None
    key_text: str | None = None
    sidecar: dict | None = None
    check: dict = field(default_factory=dict)
    command: str = ""
    extra_files: list = field(default_factory=list)  # (path, text) written beside a kept release
    anonymiser: dict = field(default_factory=dict)
    #: k^m: the hierarchy the release was generalised along (for ML² and dML²)
    hierarchy: object | None = None
    #: an unmarked release: the same release with its generalised items marked (its utility)
    marked: object | None = None
    #: what the family's anonymiser made (semtui.families)
    made: object | None = None


def anonymise(cell: CellParams, ctx: Context, name: str, progress: ProgressCallback) -> Made:
    """The cell's release, made by its family's anonymiser (the one ``semtui anonymize`` runs),
    written in its format and read back, and checked by the independent checker."""
    family = family_of(cell.family)
    p = dict(cell.params)
    if p.pop("harden", False):  # semtui harden's release of the family, against the run's background (else self)
        from semtui.harden import hardened

        made, command = hardened(ctx.original, family=cell.family, params=p, knowledge=ctx.background,
                                 original_path=ctx.original_path, output=name, progress=progress)
    else:
        made = family.anonymise(family.prepare(ctx.original, p, ctx, original_path=ctx.original_path, output=name,
                                               jobs=ctx.jobs), progress=progress)
        command = family.command(p, ctx.original_path, name)
    published = family.publish(made, name)
    tc = time.perf_counter()
    check = family.check(published.release, made, progress)
    check_s = time.perf_counter() - tc
    return Made(published.release, published.text, family.release_ext, key=made.key, key_text=published.key_text,
                sidecar=made.sidecar, check=check, command=command,
                extra_files=published.extra_files, hierarchy=made.hierarchy, marked=published.marked, made=made,
                anonymiser={**made.figures, "check_s": check_s})


# --------------------------------------------------------------------------- the cell
def privacy_of(report, family: str) -> dict:
    """The cell's privacy: the strongest attack the assessment found (or, when none beat chance,
    the one that took back the most, ``beats_chance: false``), its figures and intervals, and
    ``risk`` (set generalisation and k^m: recall over all added items; disassociation: the share
    of sub-records and terms put back with their transaction); read from the assessment's typed
    results (:mod:`semtui.assess.results`), written as the cell's document."""
    top = top_attack(report)
    covers = {a.attacker: a.figures.breaches for a in report.covers}
    cover = _cover_exposure(report)
    if top is None:
        return {"attack": None, "command": None, "needs": None, "beats_chance": False, "figures": {},
                "intervals": {}, "risk": None, **({"cover_breaches": covers} if covers else {}), **cover,
                "note": "no attack was scored"}
    f = top.figures
    fam = family_of(family)
    figures, intervals, risk = fam.privacy_figures(f)
    unscored = fam.scored_nothing(f)
    if unscored:
        # no attack tried could score a single row (nothing plain beside the generalised items, and no
        # background knowledge given): a risk of 0 would read as "out of reach" without the strongest
        # attacker having been tried (ALGORITHMS.md §6-7) -- it is unknown
        risk = None
    out = {"attack": top.attack, "command": top.command, "needs": top.needs,
           "beats_chance": top.beats_chance, "figures": figures,
           # one interval shape in every document: {low, high, level, resamples}
           "intervals": {k: v.to_json() for k, v in intervals.items() if v is not None}, "risk": json_float(risk)}
    # too few clusters or groups for an interval: say so rather than leave it out
    from semtui.metrics.intervals import no_interval_of

    if reason := no_interval_of(f):
        out["intervals_reason"] = reason
    if covers:
        out["cover_breaches"] = covers
    out.update(cover)
    if unscored:
        out["note"] = ("no attack tried could score a row (nothing plain in the release, no background "
                       "knowledge given): the risk is unknown, not 0 -- give the spec a background to try the "
                       "strongest attacker")
    return out


def _cover_exposure(report) -> dict:
    """The cover problem's reach (disassociation): the records each cover attacker can breach
    (``cover_vulnerable_records``) and the strong attacker's share of all records
    (``cover_vulnerable_share``: the most any attacker of the three reaches, since the strong
    one assumes every problem breaks)."""
    covers = report.covers
    if not covers:
        return {}
    out: dict = {"cover_vulnerable_records": {a.attacker: a.figures.vulnerable_records for a in covers}}
    strong = next((a.figures for a in covers if a.attacker == "strong"), None)
    if strong and strong.transactions:
        out["cover_vulnerable_share"] = json_float((strong.vulnerable_records or 0) / strong.transactions)
    return out


def every_attack(report) -> list[dict]:
    """Every attack the assessment ran on the cell, with its figures (a knowledge run: one entry
    per knowledge table), for tables of every method (benchmarks/render_tables.py)."""
    out = []
    for a in report.attacks:
        if a.figures is None:
            continue
        base = {k: getattr(a, k) for k in ("family", "attack", "method", "measure", "background", "knowledge", "role",
                                           "attacker", "seconds")}
        if a.informed_reference is not None:  # disassociation: NBA with the original's own statistics
            base["informed_reference"] = a.informed_reference.entry_json()
        base.update(a.cell_fields())  # set generalisation: the rows of the groups, those scored, exposure
        if a.by_knowledge:
            for v, c in a.by_knowledge:
                out.append({**base, "attack": f"{(c.method or '').upper()} on the {v} table",
                            "method": c.method, "knowledge": v, "figures": c.figures.to_json()})
        else:
            out.append({**base, "figures": a.figures.to_json()})
    return out


def run_cell(cell: CellParams, ctx: Context, progress: ProgressCallback | None = None) -> dict:
    """Anonymise → check → attack → utility: one ``semtui-experiment/2`` cell (a kept release is
    written here, before its attacks)."""
    return measure_cell(cell, ctx, progress)[0]


def measure_cell(cell: CellParams, ctx: Context, progress: ProgressCallback | None = None, *,
                 write_kept: bool = True) -> tuple[dict, list[tuple[str, str, bool]]]:
    """:func:`run_cell`, and the files a kept release is (``(path, text, private)``).  With
    ``write_kept=False`` they are returned, not written: a cell measured on a Dask worker hands
    them to the driver, which writes them where the spec said (the worker may not share its
    disk)."""
    progress = progress or no_progress
    family = family_of(cell.family)
    base = slug(cell)
    kept = ctx.keep_dir is not None
    name = str((ctx.keep_dir / base) if kept else Path(base)) + family.release_ext
    t0 = time.perf_counter()

    def stage(what):
        return lambda d, t, m="": progress(d, t, f"{what}: {m}".rstrip(": "))

    made = anonymise(cell, ctx, name, stage("anonymising"))
    t1 = time.perf_counter()
    key_name = key_path(name) if made.key is not None else None
    files = kept_files(made, name, key_name) if kept else []
    if write_kept:
        write_kept_files(files)
    t2 = time.perf_counter()
    release = made.release
    shown = made.marked if made.marked is not None else release  # an unmarked release: its groups marked
    unmarked = None
    if made.marked is not None and made.marked.n_generalised:
        unmarked = _recovery(release, made, int(dict(cell.params)["k"]), ctx, stage("recovering"))
    if (unattacked := family.unattacked(ctx.original, shown)) is not None:
        privacy = unattacked
        attacks = []
    else:
        with _on_disk(made, name, kept and write_kept) as data_name:  # on a worker it is not written yet
            # made here by the anonymiser, with its own key: it belongs to the original by construction
            made_release = Release(data=release, path=data_name, original=ctx.original, key=made.key)
            assessor = Assessor(made_release, ctx.inputs(data_name, key_name, unmarked=made.marked is not None),
                                progress=stage("attacking"), opened=ctx.opened, records=False)
            report = assessor.run()
            privacy = privacy_of(report, cell.family)
            privacy["attacks_run"] = len(report.attacks)
            attacks = every_attack(report)
            if data_name != name:  # the commands name the release as anonymize_command writes it
                privacy, attacks = _renamed((privacy, attacks), data_name, name)
        if ctx.only is not None:
            privacy["attacks_only"] = list(ctx.only)
            privacy.setdefault("note", "only the spec's attacks were run (" + ", ".join(ctx.only) + "): the "
                               "strongest attack is the strongest of those, not of every attack assess runs")
    t3 = time.perf_counter()
    utility = family.made_utility(ctx.original, shown, made.made)
    doc = {
        "format": FORMAT,
        "id": cell.id,
        "cell": cell.as_dict(),
        "label": cell.label,
        "release": name if kept else None,
        "key": key_name if kept else None,
        "anonymize_command": made.command,
        "inputs": {"original": ctx.original_path, "background": ctx.background, "corpus": ctx.corpus,
                   "measures": list(ctx.measures), **({"attacks": list(ctx.only)} if ctx.only is not None else {}),
                   **({"digests": cell_digests(cell, ctx)} if ctx.digests else {})},
        "check": made.check,
        "privacy": privacy,
        "utility": utility,
        "attacks": attacks,
        **({"unmarked": unmarked} if unmarked is not None else {}),
        "times": {"anonymize_s": round(t1 - t0 - made.anonymiser["check_s"], 3),
                  "check_s": round(made.anonymiser["check_s"], 3),
                  "attack_s": round(t3 - t2, 3), "total_s": round(t3 - t0, 3)},
    }
    return doc, ([] if write_kept else files)


def _recovery(release, made: Made, k: int, ctx: Context, progress: ProgressCallback) -> dict:
    """An unmarked release's recovery (what ``attack setgen --unmarked`` reports under ``unmarked``):
    with the cell's k and without it, each scored against the sidecar's groups and the original."""
    from semtui.attacks.setgen.unknown import recover

    out = {}
    for label, kk, source in (("k_known", k, "sidecar"), ("k_unknown", None, "unknown: the thesis' rule only")):
        progress(0, 1, f"recovering the groups ({label.replace('_', ' ')})")
        t0 = time.perf_counter()
        rec = recover(release, kk, source, sidecar=made.sidecar, original=ctx.original,
                      original_path=ctx.original_path)
        out[label] = {**rec.to_json(), "seconds": round(time.perf_counter() - t0, 3)}
    return out


class _on_disk:
    """The release's name for the attacks: itself when kept; an unmarked release not kept is
    written with its sidecar (which holds its k and its groups, as ``attack setgen --unmarked``
    reads them) to a private scratch folder (fileio), removed after the attacks."""

    def __init__(self, made: Made, name: str, kept: bool):
        self.made, self.name, self.kept, self.scratch = made, name, kept, None

    def __enter__(self) -> str:
        if self.kept or self.made.marked is None:
            return self.name
        from semtui.fileio import scratch_files
        from semtui.reports import dumps

        base = Path(self.name).name
        self.scratch = scratch_files([(base, self.made.text), (base + ".json", dumps(self.made.sidecar) + "\n")])
        return str(self.scratch.__enter__() / base)

    def __exit__(self, *exc) -> None:
        if self.scratch is not None:
            self.scratch.__exit__(*exc)


def _renamed(obj, old: str, new: str):
    """``obj`` with every string naming ``old`` naming ``new`` instead."""
    if isinstance(obj, str):
        return obj.replace(old, new)
    if isinstance(obj, dict):
        return {k: _renamed(v, old, new) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(_renamed(v, old, new) for v in obj)
    return obj


def kept_files(made: Made, name: str, key_name: str | None) -> list[tuple[str, str, bool]]:
    """What keeping a release writes: the release, its sidecar or report (private), a
    disassociation's key (private), a built hierarchy; ``(path, text, private)`` each."""
    from semtui.reports import dumps

    out = [(name, made.text, False)]
    if made.sidecar is not None:
        out.append((name + ".json", dumps(made.sidecar) + "\n", True))
    if made.key_text is not None and key_name is not None:
        out.append((key_name, made.key_text, True))
    out += [(path, text, False) for path, text in made.extra_files]
    return out


def write_kept_files(files: list[tuple[str, str, bool]]) -> None:
    """The files of a kept release written all together (fileio, the one writer)."""
    if not files:
        return
    from semtui.fileio import write_together

    write_together([(path, lambda fh, t=text: fh.write(t), private) for path, text, private in files])
