"""One engine for a candidate release (issue 22): anonymise the original with a family and its
parameters, check the release with the independent checker, run the assessment's attacks on it
(:class:`semtui.assess.Assessor`, the code ``semtui assess`` runs) and keep the strongest, measure
its utility, and return one cell (``semtui-experiment/1``, the contract in docs/experiment.md).

The release is checked and attacked as it would be published: written in its file format and
read back.  Progress goes through one callback; raising ``Interrupted`` from it (or Ctrl-C)
cancels.  ``--jobs`` goes to the anonymiser's parts (k^m LRA/VPA) and to every attack, through
the one executor (:mod:`semtui.runtime.executor`).
"""

from __future__ import annotations

import hashlib
import io
import re
import shlex
import time
from dataclasses import dataclass, field
from pathlib import Path

from semtui.assess import AssessInputs, Assessor, Opened, top_attack
from semtui.errors import InputError
from semtui.experiment.spec import CellParams
from semtui.model import DisassociatedData, TransactionData
from semtui.reports import json_float
from semtui.runtime import ProgressCallback, no_progress

FORMAT = "semtui-experiment/1"


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
            p = dict(cell.params)
            if cell.family == "setgen":
                if p.get("privacy"):
                    self.privacy(p["privacy"])
                if p.get("utility", "all") != "all":
                    from semtui.anonymize.setgen.constraints import utility_files

                    if utility_files(str(p["utility"])):
                        self.utility(str(p["utility"]), None)
            elif cell.family == "km" and p.get("hierarchy"):
                self.hierarchy(p)


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


def _q(x) -> str:
    return shlex.quote(str(x))


def anonymise(cell: CellParams, ctx: Context, name: str, progress: ProgressCallback) -> Made:
    p = dict(cell.params)
    orig = ctx.original
    o = _q(ctx.original_path)
    if cell.family == "setgen":
        from semtui.anonymize.setgen import (
            SetgenSidecar,
            anonymize,
            parse_sizes,
            random_privacy,
        )
        from semtui.formats.text import dump_setgen, parse_text

        if p.get("privacy"):
            constraints = ctx.privacy(p["privacy"])
            source = {"source": "file", "file": str(p["privacy"])}
            how = f"--privacy {_q(p['privacy'])}"
        else:
            lo, hi = parse_sizes(str(p["sizes"]))
            constraints = random_privacy(orig, int(p["random_privacy"]), (lo, hi), int(p["seed"]))
            source = {"source": "random", "n": p["random_privacy"], "sizes": [lo, hi], "seed": p["seed"]}
            how = f"--random-privacy {p['random_privacy']} --sizes {p['sizes']} --seed {p['seed']}"
        res = anonymize(orig, constraints, int(p["k"]), ctx.utility(p["utility"], constraints), progress=progress)
        unmarked = bool(p.get("unmarked", False))
        buf = io.StringIO()
        if unmarked:  # every generalised item written as its members, as plain items (anonymize --unmarked)
            from semtui.anonymize.setgen.unmarked import flatten

            dump_setgen(flatten(res.data), buf, name)
        else:
            dump_setgen(res.data, buf, name)
        text = buf.getvalue()
        release = parse_text(text, name)
        marked = None
        if unmarked:
            mbuf = io.StringIO()
            dump_setgen(res.data, mbuf, name)
            marked = parse_text(mbuf.getvalue(), name)
        from semtui.checks.privacy import check_privacy

        tc = time.perf_counter()
        chk = check_privacy(release, res.privacy, int(p["k"]))
        check_s = time.perf_counter() - tc
        n_viol = len(chk.violated)
        check = {"passed": bool(chk.holds), "checker": "check privacy",
                 "detail": f"k={p['k']}: {len(res.privacy)} constraints, {n_viol} with support in (0, {p['k']}), "
                           f"{len(chk.exercised)} exercised"}
        sidecar = SetgenSidecar(res, ctx.original_path, name, source, p["utility"], unmarked).to_json()
        cmd = (f"semtui anonymize setgen {o} -k {p['k']} {how}"
               + (f" --utility {_q(p['utility'])}" if p["utility"] != "all" else "")
               + (" --unmarked" if unmarked else "") + f" -o {_q(name)}")
        return Made(release, text, ".txt", sidecar=sidecar, check=check, command=cmd, marked=marked,
                    anonymiser={"seconds": res.seconds, "suppressed_items": len(res.suppressed), "check_s": check_s})
    if cell.family == "km":
        from semtui.anonymize.hierarchy import generalise_km
        from semtui.checks.km import check_transactions
        from semtui.formats.hierarchy import dump_hierarchy
        from semtui.formats.text import dump_setgen, parse_text

        h = ctx.hierarchy(p)
        res = generalise_km(orig, h, int(p["k"]), int(p["m"]), p.get("algorithm", "aa"), jobs=ctx.jobs,
                            path=ctx.original_path, progress=progress)
        buf = io.StringIO()
        dump_setgen(res.data, buf, name)
        text = buf.getvalue()
        release = parse_text(text, name)
        tc = time.perf_counter()
        chk = check_transactions(release, int(p["k"]), int(p["m"]), progress=progress)
        check_s = time.perf_counter() - tc
        check = {"passed": bool(chk.holds), "checker": "check km",
                 "detail": f"k={p['k']}, m={p['m']}: {chk.core.n_rows} transactions, "
                           f"{chk.core.n_violations} minimal violating itemsets"}
        extra = []
        if p.get("hierarchy"):
            hpath, build = p["hierarchy"], ""
        else:
            hpath = str(Path(name).with_suffix("")) + ".hierarchy.txt"
            hbuf = io.StringIO()
            dump_hierarchy(h, hbuf, hpath)
            extra.append((hpath, hbuf.getvalue()))
            build = f"semtui hierarchy build {o} --fanout {p['fanout']} --order {p['order']} -o {_q(hpath)} && "
        cmd = (f"{build}semtui anonymize km {o} --hierarchy {_q(hpath)} -k {p['k']} -m {p['m']}"
               + (f" --algorithm {p['algorithm']}" if p.get("algorithm", "aa") != "aa" else "") + f" -o {_q(name)}")
        return Made(release, text, ".txt", sidecar=res.to_json(), check=check, command=cmd, extra_files=extra,
                    hierarchy=h,
                    anonymiser={"seconds": res.seconds, "ncp_hierarchy": json_float(res.ncp), "check_s": check_s,
                                "hierarchy": {"leaves": h.n_leaves, "height": h.height}})
    if cell.family == "disassoc":
        from semtui.anonymize.disassociation import disassociate
        from semtui.checks.km import check_disassociated
        from semtui.fileio import parse_json
        from semtui.formats.disassociated import dump_disassociated, dump_key, parse_disassociated

        res = disassociate(orig, int(p["k"]), int(p["m"]), int(p["max_cluster_size"]), progress=progress,
                           refine=bool(p.get("refine", True)), safe=bool(p.get("safe", False)))
        buf = io.StringIO()
        dump_disassociated(res.data, buf)
        text = buf.getvalue()
        release = parse_disassociated(parse_json(text, name), name)
        kbuf = io.StringIO()
        dump_key(res.key, kbuf)
        tc = time.perf_counter()
        chk = check_disassociated(release, int(p["k"]), int(p["m"]), res.key, orig, progress=progress)
        check_s = time.perf_counter() - tc
        check = {"passed": bool(chk.holds), "checker": "check km (disassociated, with the key and the original)",
                 "detail": f"k={p['k']}, m={p['m']}: {chk.n_record_chunks} record chunks of {chk.n_clusters} "
                           f"clusters, {chk.core.n_violations} minimal violating itemsets, "
                           f"{chk.n_structure} structure problems"}
        key_name = str(Path(name).with_suffix("")) + ".key.json"
        cmd = (f"semtui anonymize disassoc {o} -k {p['k']} -m {p['m']} --max-cluster-size {p['max_cluster_size']} "
               + ("--safe " if p.get("safe") else "--no-refine " if not p.get("refine", True) else "")
               + f"-o {_q(name)} --key {_q(key_name)}")
        return Made(release, text, ".json", key=res.key, key_text=kbuf.getvalue(), check=check, command=cmd,
                    anonymiser={"seconds": res.seconds, "check_s": check_s})
    raise InputError(f"unknown family {cell.family!r}")


# --------------------------------------------------------------------------- the cell
def _interval(v) -> list | None:
    if isinstance(v, dict) and "low" in v:
        return [v.get("low"), v.get("high")]
    if isinstance(v, (list, tuple)) and len(v) == 2:
        return list(v)
    return None


def privacy_of(report, family: str) -> dict:
    """The cell's privacy: the strongest attack the assessment found (or, when none beat chance,
    the one that took back the most, ``beats_chance: false``), its figures and intervals, and
    ``risk`` (set generalisation and k^m: recall over all added items; disassociation: the share
    of sub-records and terms put back with their transaction)."""
    top = top_attack(report)
    covers = {a["attacker"]: a["figures"].get("breaches") for a in report.attacks if a["family"] == "cover"}
    cover = _cover_exposure(report)
    if top is None:
        return {"attack": None, "command": None, "needs": None, "beats_chance": False, "figures": {},
                "intervals": {}, "risk": None, **({"cover_breaches": covers} if covers else {}), **cover,
                "note": "no attack was scored"}
    f = top["figures"]
    raw = f.get("intervals") or {}
    if family == "disassoc":
        figures = {"accuracy": f.get("accuracy"), "lift": f.get("lift_over_random"), "correct": f.get("correct"),
                   "placements": f.get("placements"), "baseline_accuracy": f.get("baseline_accuracy"),
                   "transaction_breakage": f.get("transaction_breakage"), "km_breakage": f.get("km_breakage")}
        intervals = {"accuracy": _interval(raw.get("accuracy")), "lift": _interval(raw.get("lift_over_random"))}
        risk = f.get("accuracy")
    else:
        base = f.get("baseline") or {}
        figures = {"precision": f.get("precision"), "recall": f.get("recall"),
                   "recall_attackable": f.get("recall_attackable"), "error_ratio": f.get("error_ratio"),
                   "auc_within": f.get("auc_within_table"), "f1": f.get("f1"), "correct": f.get("correct"),
                   "added": f.get("added"), "eliminated": f.get("eliminated"),
                   "lift": json_float(f["correct"] / base["correct"]) if base.get("correct") and f.get("correct")
                   is not None else None,
                   "popularity_error_ratio": (f.get("popularity") or {}).get("error_ratio")}
        intervals = {"precision": _interval(raw.get("precision")), "recall": _interval(raw.get("recall")),
                     "auc_within": _interval(raw.get("auc_within_table"))}
        risk = f.get("recall")
    unscored = family != "disassoc" and not f.get("eliminated") and f.get("recall_attackable") is None
    if unscored:
        # no attack tried could score a single row (nothing plain beside the generalised items, and no
        # background knowledge given): a risk of 0 would read as "out of reach" without the strongest
        # attacker having been tried (ALGORITHMS.md §6-7) -- it is unknown
        risk = None
    out = {"attack": top["attack"], "command": top["command"], "needs": top.get("needs"),
           "beats_chance": top["beats_chance"], "figures": figures,
           "intervals": {k: v for k, v in intervals.items() if v is not None}, "risk": json_float(risk)}
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
    covers = [a for a in report.attacks if a["family"] == "cover"]
    if not covers:
        return {}
    out: dict = {"cover_vulnerable_records": {a["attacker"]: a["figures"].get("vulnerable_records") for a in covers}}
    strong = next((a["figures"] for a in covers if a["attacker"] == "strong"), None)
    if strong and strong.get("transactions"):
        out["cover_vulnerable_share"] = json_float((strong.get("vulnerable_records") or 0) / strong["transactions"])
    return out


def every_attack(report) -> list[dict]:
    """Every attack the assessment ran on the cell, with its figures (a knowledge run: one entry
    per knowledge table), for tables of every method (benchmarks/render_tables.py)."""
    out = []
    for a in report.attacks:
        if "figures" not in a:
            continue
        base = {k: a.get(k) for k in ("family", "attack", "method", "measure", "background", "knowledge", "role",
                                      "attacker", "seconds")}
        if a.get("informed_reference"):  # disassociation: NBA with the original's own statistics
            base["informed_reference"] = a["informed_reference"]
        if a["family"] == "setgen":  # the rows of the groups, those the attack could score, exposure
            base.update(rows=a.get("rows"), attacked_rows=a.get("attacked_rows"),
                        exposed_items=(a.get("privacy") or {}).get("exposed_items"),
                        member_items=(a.get("privacy") or {}).get("member_items"))
        if a.get("by_knowledge"):
            for v, c in a["by_knowledge"].items():
                out.append({**base, "attack": f"{(c.get('method') or '').upper()} on the {v} table",
                            "method": c.get("method"), "knowledge": v, "figures": c["figures"]})
        else:
            out.append({**base, "figures": a["figures"]})
    return out


def run_cell(cell: CellParams, ctx: Context, progress: ProgressCallback | None = None) -> dict:
    """Anonymise → check → attack → utility: one ``semtui-experiment/1`` cell (a kept release is
    written here, before its attacks)."""
    return measure_cell(cell, ctx, progress)[0]


def measure_cell(cell: CellParams, ctx: Context, progress: ProgressCallback | None = None, *,
                 write_kept: bool = True) -> tuple[dict, list[tuple[str, str, bool]]]:
    """:func:`run_cell`, and the files a kept release is (``(path, text, private)``).  With
    ``write_kept=False`` they are returned, not written: a cell measured on a Dask worker hands
    them to the driver, which writes them where the spec said (the worker may not share its
    disk)."""
    from semtui.metrics.release_utility import disassociated_utility, generalised_utility

    progress = progress or no_progress
    base = slug(cell)
    kept = ctx.keep_dir is not None
    ext = ".json" if cell.family == "disassoc" else ".txt"
    name = str((ctx.keep_dir / base) if kept else Path(base)) + ext
    t0 = time.perf_counter()

    def stage(what):
        return lambda d, t, m="": progress(d, t, f"{what}: {m}".rstrip(": "))

    made = anonymise(cell, ctx, name, stage("anonymising"))
    t1 = time.perf_counter()
    key_name = str(Path(name).with_suffix("")) + ".key.json" if made.key is not None else None
    files = kept_files(made, name, key_name) if kept else []
    if write_kept:
        write_kept_files(files)
    t2 = time.perf_counter()
    release = made.release
    shown = made.marked if made.marked is not None else release  # an unmarked release: its groups marked
    unmarked = None
    if made.marked is not None and made.marked.n_generalised:
        unmarked = _recovery(release, made, int(dict(cell.params)["k"]), ctx, stage("recovering"))
    if isinstance(shown, TransactionData) and shown.n_generalised == 0:
        suppressed = generalised_utility(ctx.original, shown)["suppressed_occurrences"]
        if suppressed:  # protected by suppression alone: no added item, nothing for an attack to take back
            privacy = {"attack": None, "command": None, "needs": None, "beats_chance": None, "figures": {},
                       "intervals": {}, "risk": None,
                       "note": f"nothing was generalised ({suppressed} occurrences suppressed): no attack applies; "
                               "the items published are published as they were"}
        else:  # the release is the original's items as they were: the whole take
            privacy = {"attack": None, "command": None, "needs": "nothing: the release holds the original items",
                       "beats_chance": None, "figures": {}, "intervals": {}, "risk": 1.0,
                       "note": "nothing was generalised: every item is published as it was"}
        attacks = []
    else:
        with _on_disk(made, name, kept and write_kept) as data_name:  # on a worker it is not written yet
            assessor = Assessor(release, ctx.inputs(data_name, key_name, unmarked=made.marked is not None),
                                original=ctx.original, key=made.key, progress=stage("attacking"), opened=ctx.opened,
                                records=False)
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
    if isinstance(release, DisassociatedData):
        utility = disassociated_utility(release)
    else:
        utility = generalised_utility(ctx.original, shown)
        if "ncp_hierarchy" in made.anonymiser:
            utility["ncp_hierarchy"] = made.anonymiser["ncp_hierarchy"]
        if made.hierarchy is not None:  # k^m: the paper's multiple-level mining loss (§3.3, eqs. 1-2)
            from semtui.metrics.utility import ml2

            mining = ml2(ctx.original, release, made.hierarchy)
            utility.update(ml2=mining["ml2"], dml2=mining["dml2"], ml2_min_support=mining["min_support"],
                           ml2_max_size=mining["max_size"])
    doc = {
        "format": FORMAT,
        "id": cell.id,
        "cell": cell.as_dict(),
        "label": cell.label,
        "release": name if kept else None,
        "key": key_name if kept else None,
        "anonymize_command": made.command,
        "inputs": {"original": ctx.original_path, "background": ctx.background, "corpus": ctx.corpus,
                   "measures": list(ctx.measures), **({"attacks": list(ctx.only)} if ctx.only is not None else {})},
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
