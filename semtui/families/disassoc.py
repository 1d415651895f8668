"""Disassociation (HORPART + VERPART + REFINE, Terrovitis et al. 2012, ``semtui anonymize
disassoc``): clusters of record chunks and a term chunk, and joint clusters of shared chunks.

Its release is attacked by re-association (every measure, with a background NBA, RA as the
papers' baseline) and by the cover problem (the strong, moderate and weak attackers); its risk is
the share of sub-records and terms put back with their transaction.
"""

from __future__ import annotations

import io
import math
from typing import ClassVar

from semtui.families.common import (
    DISASSOCIATED,
    Anonymised,
    Assessed,
    Planned,
    Published,
    Request,
    Sources,
    key_path,
    q,
)

#: the re-association methods that score with a measure; RA and NBA run apart
REASSOC_METHODS = ("aba", "rga", "mra", "assign")
COVER_ATTACKERS = ("strong", "moderate", "weak")

#: ``anonymize disassoc``'s JSON summary
DISASSOC_FORMAT = "semtui-disassoc-run/1"


class Disassoc:
    """Disassociation."""

    name = "disassoc"
    kind = DISASSOCIATED
    #: the release file's extension (disassociated JSON)
    release_ext = ".json"
    risk_of = "what it re-associates"
    plotted = ("accuracy",)
    params: ClassVar[dict[str, object]] = {"k": None, "m": None, "max_cluster_size": None, "refine": True, "safe": False,
                                           "harden": False}
    whole: ClassVar[dict[str, int]] = {"k": 2, "m": 1, "max_cluster_size": 2}
    flags = ("refine", "safe", "harden")
    files = ()
    companions_after_paint = True  # its first screen lists clusters and chunks

    # ------------------------------------------------------------ the k^m witness
    def holds_nothing(self, data) -> str | None:
        """What makes a k^m check of ``data`` exercise nothing, in words (None: it checks something)."""
        if not data.clusters:
            return "the release has no cluster"
        held = sum(len(ch.items) for c in data.clusters for ch in c.record_chunks) + data.n_term_chunk_terms
        return None if held else "no transaction holds an item"

    def check_km(self, release, k: int, m: int, progress=None):
        """Every record chunk k^m-anonymous and the chunks of a cluster disjoint; with the release's
        key and original, every original item exactly where the key says."""
        from semtui.checks.km import check_disassociated

        return check_disassociated(release.data, k, m, release.key, release.original, progress=progress)

    def assessable(self, data, *, original, key, inputs) -> bool:
        """Whether an assessment of ``data`` is scored (its key and original are open, together);
        raises InputError when there is nothing to assess or one of the two is missing."""
        from semtui.errors import InputError

        if not data.clusters:
            raise InputError("nothing to assess: the release has no cluster", inputs.data)
        if (key is None) != (original is None):
            raise InputError("the key and the original go together for a disassociated release (the "
                             "metrics need both)", option="key")
        return key is not None

    # ------------------------------------------------------------ an attack's report
    def read_report(self, path):
        """An attack report on a disassociated release, typed: a re-association report (``semtui
        attack disassoc --report``: a :class:`~semtui.attacks.reassociation.ReassociationReport`)
        or a cover report (``semtui cover --json``: a :class:`~semtui.attacks.cover.CoverReport`)."""
        from semtui import reports
        from semtui.attacks.cover import REPORT_FORMAT as COVER
        from semtui.attacks.cover import CoverReport
        from semtui.attacks.reassociation import REPORT_FORMATS as REASSOC
        from semtui.attacks.reassociation import ReassociationReport
        from semtui.errors import InputError

        doc = reports.read(path, (*REASSOC, COVER), "a re-association or cover report")
        if not isinstance(doc.get("clusters"), list):
            raise InputError("report has no 'clusters' list", path)
        if (doc.get("summary") or {}).get("summary_only"):
            raise InputError("a --summary-only report holds no placement to show (run the attack without it)", path)
        # an entry that is no cluster's names none (check_report then says where it differs)
        doc["clusters"] = [c if isinstance(c, dict) else {} for c in doc["clusters"]]
        typed = CoverReport if doc["format"] == COVER else ReassociationReport
        try:
            return typed.from_json(doc)
        except (AttributeError, TypeError, ValueError) as exc:
            raise InputError(f"not a readable {doc['format']} report ({exc})", path) from None

    def check_report(self, release, doc, path) -> None:
        """The typed report ``doc`` (read from ``path``) describes ``release``: the same clusters,
        in order; raises InputError naming ``path`` otherwise."""
        from semtui.errors import InputError

        ids = [c.id for c in release.data.clusters]
        got = [c.id for c in doc.clusters]
        if got != ids:
            bad = next((g for g, i in zip(got, ids) if g != i), None) if len(got) == len(ids) else None
            detail = (f"cluster {bad!r} is not where this release has it" if bad is not None
                      else f"it lists {len(got)} clusters, the release has {len(ids)}")
            raise InputError(f"the report is not of this release ({detail})", path)

    # ------------------------------------------------------------ an experiment's parameters
    def check_value(self, key: str, v: str) -> str | None:
        return None

    def conflict(self, table: dict) -> tuple[str, str] | None:
        return None

    def check_cell(self, p: dict) -> tuple[str, str] | None:
        """A cluster must hold every item it keeps k times: at most ``max_cluster_size`` records
        cannot, for a larger k."""
        if p.get("max_cluster_size") is not None and p.get("k") is not None and p["max_cluster_size"] < p["k"]:
            return (f"'max_cluster_size' must be at least k = {p['k']} (got {p['max_cluster_size']}): a smaller "
                    "cluster could not hold any item k times", "max_cluster_size")
        return None

    def canonical(self, full: dict) -> dict:
        return full

    def label_bits(self, p: dict) -> list[str]:
        bits = [f"clusters<={p['max_cluster_size']}"]
        if p.get("harden"):
            bits.append("hardened")
        if p.get("safe"):
            bits.append("safe")
        if not p.get("refine", True):
            bits.append("no REFINE")
        return bits

    def read_files(self, p: dict, sources: Sources) -> None:
        return None

    # ------------------------------------------------------------ anonymise
    def prepare(self, original, params: dict, sources: Sources, *, original_path, output, jobs: int = 1,
                note=None) -> Request:
        return Request(self.name, original, dict(params), original_path, str(output), jobs=jobs)

    def anonymise(self, request: Request, *, progress=None) -> Anonymised:
        """HORPART + VERPART (+ REFINE unless ``refine`` is false; ``safe``: then every cover
        problem removed by partial suppression); the key links the release to the original."""
        from semtui.anonymize.disassociation import disassociate

        p = request.params
        res = disassociate(request.original, int(p["k"]), int(p["m"]), int(p["max_cluster_size"]), progress=progress,
                           refine=bool(p.get("refine", True)), joint_max_size=p.get("joint_max_size"),
                           safe=bool(p.get("safe", False)), seed=p.get("seed", 0))
        return Anonymised(request, res.data, res.data, res, key=res.key, figures={"seconds": res.seconds})

    def report(self, made: Anonymised, *, output, key) -> dict:
        """``anonymize disassoc``'s summary document (``--json``)."""
        from semtui.reports import document

        return document(DISASSOC_FORMAT, {"original": str(made.request.original_path), "output": str(output),
                                          "key": None if key is None else str(key), **made.result.summary()})

    def publish(self, made: Anonymised, name: str) -> Published:
        """The release written as disassociated JSON and read back, and its key."""
        from semtui.fileio import parse_json
        from semtui.formats.disassociated import dump_disassociated, dump_key, parse_disassociated

        buf = io.StringIO()
        dump_disassociated(made.data, buf)
        text = buf.getvalue()
        release = parse_disassociated(parse_json(text, name), name)
        kbuf = io.StringIO()
        dump_key(made.key, kbuf)
        return Published(text, release, key_text=kbuf.getvalue())

    def command(self, params: dict, original_path, output: str) -> str:
        """The ``semtui anonymize disassoc`` command that makes this release and its key."""
        p = params
        return (f"semtui anonymize disassoc {q(original_path)} -k {p['k']} -m {p['m']} "
                f"--max-cluster-size {p['max_cluster_size']} "
                + ("--safe " if p.get("safe") else "") + ("--no-refine " if not p.get("refine", True) else "")
                + f"-o {q(output)} --key {q(key_path(output))}")

    def check(self, release, made: Anonymised, progress=None) -> dict:
        """The independent checker's verdict (``check km`` with the key and the original)."""
        from semtui.checks.km import check_disassociated

        p = made.params
        chk = check_disassociated(release, int(p["k"]), int(p["m"]), made.key, made.request.original,
                                  progress=progress)
        return {"passed": bool(chk.holds), "checker": "check km (disassociated, with the key and the original)",
                "detail": f"k={p['k']}, m={p['m']}: {chk.n_record_chunks} record chunks of {chk.n_clusters} "
                          f"clusters, {chk.core.n_violations} minimal violating itemsets, "
                          f"{chk.n_structure} structure problems"}

    # ------------------------------------------------------------ the attacks
    def plan(self, inputs) -> list[Planned]:
        """Every attack a disassociated release admits, in the order they run: each scored
        re-association with each measure, with a background NBA, RA, then the three cover attackers."""
        out: list[Planned] = []
        for m in inputs.measure_list():
            out += [Planned("reassoc", dict(method=x, measure=m)) for x in REASSOC_METHODS]
        if inputs.background:
            out.append(Planned("reassoc", dict(method="nba", background=inputs.background)))
        out.append(Planned("reassoc", dict(method="ra")))
        out += [Planned("cover", dict(attacker=a)) for a in COVER_ATTACKERS]
        return out

    def unrunnable(self, planned: Planned, *, original) -> str | None:
        """The moderate cover attacker's knowledge is drawn from the original records."""
        if planned.attack == "cover" and planned.options["attacker"] == "moderate" and original is None:
            return "the moderate attacker's knowledge is drawn from the original records: give --original"
        return None

    # ------------------------------------------------------------ the figures
    def privacy_figures(self, f) -> tuple[dict, dict, float | None]:
        """The strongest re-association's figures, intervals and risk (the share of sub-records and
        terms put back with their transaction); ``f``: the assessment's typed figures
        (:class:`semtui.assess.results.ReassocFigures`; the intervals typed, written by the cell)."""
        figures = {"accuracy": f.accuracy, "lift": f.lift_over_random, "correct": f.correct,
                   "placements": f.placements, "baseline_accuracy": f.baseline_accuracy,
                   "transaction_breakage": f.transaction_breakage, "km_breakage": f.km_breakage}
        intervals = {"accuracy": f.intervals.get("accuracy"), "lift": f.intervals.get("lift_over_random")}
        return figures, intervals, f.accuracy

    def scored_nothing(self, f) -> bool:
        return False

    def distance(self, figures: dict, cover: float) -> float:
        """How far a re-association that beats chance is from it (lift - 1), or the share of records
        the cover attacker breaches when that is larger."""
        lift = figures.get("lift")
        return math.inf if lift is None else max(0.0, lift - 1.0, cover)

    def far(self, privacy: dict, cover: str) -> str:
        if not privacy.get("beats_chance"):
            return "no re-association beats chance" + cover
        return (f"the strongest re-association has lift {(privacy.get('figures') or {}).get('lift'):.2f} over random"
                + cover)

    def figure(self, figures: dict) -> str:
        """The strongest re-association's distance figure, short (an alternative's line): its lift."""
        v = figures.get("lift")
        return f"lift {'-' if v is None else format(v, '.2f')}"

    def unattacked(self, original, release) -> dict | None:
        return None

    def utility(self, original, release) -> dict:
        """The release's associated share and, against the original, the one utility axis of every
        family (:mod:`semtui.metrics.supports`)."""
        from semtui.metrics.release_utility import disassociated_utility
        from semtui.metrics.supports import support_errors

        return {**disassociated_utility(release),
                **support_errors(original, release, answers=self.supports(original, release))}

    def made_utility(self, original, release, made: Anonymised) -> dict:
        return self.utility(original, release)

    def supports(self, original, release):
        """What the release answers for the original's supports (the one utility axis of every
        family, :mod:`semtui.metrics.supports`): chunks exact inside, independent across."""
        from semtui.metrics.supports import DisassociatedSupports

        return DisassociatedSupports(original, release)

    # ------------------------------------------------------------ an assessed release
    def assessed(self, release) -> Assessed | None:
        """k and m read from the release; the largest cluster for the maximum size when the release
        (written before semtui recorded it) does not record it."""
        params = {"k": release.k, "m": release.m, "refine": bool(release.joint_clusters)}
        if release.max_cluster_size is not None:
            return Assessed(self.name, {**params, "max_cluster_size": release.max_cluster_size}, True,
                            f"k={release.k}, m={release.m} and the maximum cluster size "
                            f"{release.max_cluster_size} read from the release")
        largest = max((c.size for c in release.clusters), default=release.k)
        return Assessed(self.name, {**params, "max_cluster_size": max(largest, release.k)},
                        True, f"k={release.k} and m={release.m} read from the release; the release (written before "
                              f"semtui recorded it) does not record its maximum cluster size: taken as its largest "
                              f"cluster ({largest}), which overstates it when HORPART left identical transactions "
                              "together")

    def from_sidecar(self, doc: dict, side) -> Assessed | None:
        return None

    def check_assessed(self, release, assessed: Assessed, *, original, key) -> dict | None:
        if key is None:
            return None
        from semtui.checks.km import check_disassociated

        c = check_disassociated(release, release.k, release.m, key, original)
        return {"passed": bool(c.holds), "checker": "check km (disassociated, with the key and the original)",
                "detail": f"k={release.k}, m={release.m}: {c.core.n_violations} minimal violating itemsets, "
                          f"{c.n_structure} structure problems"}


FAMILY = Disassoc()
