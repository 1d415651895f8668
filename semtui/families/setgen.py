"""Set generalisation (COAT-style, ``semtui anonymize setgen``): an item replaced by a set of items
until every privacy constraint is supported by >= k transactions or by none.

:class:`Generalised` is what every set-generalised release shares, whichever anonymiser made it
(this family's and k^m's, :mod:`semtui.families.km`): the attacks that apply (the elimination
attack with every measure, with a background the knowledge attack, RA as the papers' baseline),
the figures its strongest attack is read by, its utility.  :class:`Setgen` adds the anonymiser.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import ClassVar

from semtui.families.common import (
    SET_GENERALISED,
    Anonymised,
    Assessed,
    Planned,
    Published,
    Request,
    Sources,
    q,
)
from semtui.reports import json_float
from semtui.wording import VACUOUS_CHECK

#: the eliminators of the papers' attack, in the order they run; RA runs once as the papers' baseline
SETGEN_METHODS = ("mda", "tba", "wba", "gba", "rba")
#: with a background: the knowledge attack's default eliminator and the threshold one
KNOWLEDGE_METHODS = ("pba", "tba")

#: what the alternatives assume of a set-generalised release with no sidecar (docs/assess.md)
ASSUMED_SETGEN = {"k": 3, "random_privacy": 300, "sizes": "3-6", "seed": 1, "utility": "all"}


class Generalised:
    """What a set-generalised release is attacked and measured by, whoever made it."""

    name = "setgen"
    kind = SET_GENERALISED
    #: the release file's extension (set-generalised text)
    release_ext = ".txt"
    #: what the strongest attacker's risk is a share of, in words
    risk_of = "the added items"
    #: the strongest attack's figures an experiment's plot draws against k
    plotted = ("precision", "recall")

    # ------------------------------------------------------------ the k^m witness
    def holds_nothing(self, data) -> str | None:
        """What makes a k^m check of ``data`` exercise nothing, in words (None: it checks something)."""
        return None if len(data.tokens) else "no transaction holds an item"

    def check_km(self, release, k: int, m: int, progress=None):
        """The independent k^m check of the release (a generalised item counts as one item)."""
        from semtui.checks.km import check_transactions

        return check_transactions(release.data, k, m, progress=progress)

    # ------------------------------------------------------------ an attack's report
    def read_report(self, path) -> dict:
        """An attack report on a release of the family (``semtui attack setgen --report``)."""
        from semtui.attacks.setgen import load_report

        return load_report(path)

    def check_report(self, release, doc: dict, path) -> None:
        """The report ``doc`` (read from ``path``) describes ``release``: every group it lists is
        a generalised item of it; raises InputError naming ``path`` otherwise."""
        from semtui.errors import InputError

        data = release.data
        if not data.n_generalised:
            raise InputError(f"a set-generalisation report needs set-generalised data, {release.path} is "
                             f"{data.kind}", path)
        known = set(data.labels())
        for g in doc.get("groups", []):
            if g.get("generalised_item") not in known:
                raise InputError(f"the report's group {g.get('generalised_item')!r} is not a generalised item of "
                                 f"{release.path}", path)

    def assessable(self, data, *, original, key, inputs) -> bool:
        """Whether an assessment of ``data`` is scored (its original is open); raises InputError
        when there is nothing to assess or a companion does not apply."""
        from semtui.errors import InputError

        if data.n_generalised == 0 and not inputs.unmarked:
            raise InputError("no generalised items to assess (a plain transactions file? an unmarked "
                             "release: semtui attack setgen --unmarked)", inputs.data)
        if key is not None:
            raise InputError("a key belongs to a disassociated release", option="key")
        return original is not None

    # ------------------------------------------------------------ the attacks
    def plan(self, inputs) -> list[Planned]:
        """Every attack a set-generalised release admits, in the order they run: each eliminator
        with each measure, with a background the knowledge attack's, then RA once."""
        out: list[Planned] = []
        for m in inputs.measure_list():
            out += [Planned("setgen", dict(method=x, measure=m)) for x in SETGEN_METHODS]
        if inputs.background:
            for m in inputs.measure_list():
                out += [Planned("setgen", dict(method=x, measure=m, background=inputs.background))
                        for x in KNOWLEDGE_METHODS]
        out.append(Planned("setgen", dict(method="ra", seed=0)))
        return out

    def unrunnable(self, planned: Planned, *, original) -> str | None:
        """Why an attack of the plan cannot run on these inputs (None: it can)."""
        return None

    # ------------------------------------------------------------ the figures
    def privacy_figures(self, f) -> tuple[dict, dict, float | None]:
        """The strongest attack's figures, intervals and risk (recall over all added items), as an
        experiment's cell keeps them (``f``: the assessment's typed figures,
        :class:`semtui.assess.results.SetgenFigures`; the intervals typed, written by the cell)."""
        base_correct = f.baseline.correct if f.baseline is not None else None
        figures = {"precision": f.precision, "recall": f.recall,
                   "recall_attackable": f.recall_attackable, "error_ratio": f.error_ratio,
                   "auc_within": f.auc_within_table, "f1": f.f1, "correct": f.correct,
                   "added": f.added, "eliminated": f.eliminated,
                   "lift": json_float(f.correct / base_correct) if base_correct and f.correct is not None else None,
                   "popularity_error_ratio": f.popularity.error_ratio if f.popularity is not None else None}
        iv = f.intervals
        intervals = {"precision": iv.get("precision"), "recall": iv.get("recall"),
                     "auc_within": iv.get("auc_within_table")}
        return figures, intervals, f.recall

    def scored_nothing(self, f) -> bool:
        """No attack tried could score a single row (nothing plain beside the generalised items, and
        no background knowledge given): the risk is unknown, not 0."""
        return not f.eliminated and f.recall_attackable is None

    def distance(self, figures: dict, cover: float) -> float:
        """How far an attack that beats chance is from it: 1 - its error ratio."""
        import math

        er = figures.get("error_ratio")
        return math.inf if er is None else max(0.0, 1.0 - er)

    def far(self, privacy: dict, cover: str) -> str:
        """How far the release's strongest attack is from chance, as a clause (``cover``: the cover
        problem's clause, which a set-generalised release does not have)."""
        if not privacy.get("beats_chance"):
            return "no attack beats chance"
        return f"the strongest attack has error ratio {(privacy.get('figures') or {}).get('error_ratio'):.2f}"

    def figure(self, figures: dict) -> str:
        """The strongest attack's distance figure, short (an alternative's line): its error ratio."""
        v = figures.get("error_ratio")
        return f"error ratio {'-' if v is None else format(v, '.2f')}"

    def unattacked(self, original, release) -> dict | None:
        """A release with no generalised item: the privacy no attack needs to measure (None: the
        attacks apply)."""
        if release.n_generalised:
            return None
        from semtui.metrics.release_utility import generalised_utility

        suppressed = generalised_utility(original, release)["suppressed_occurrences"]
        if suppressed:  # protected by suppression alone: no added item, nothing for an attack to take back
            return {"attack": None, "command": None, "needs": None, "beats_chance": None, "figures": {},
                    "intervals": {}, "risk": None,
                    "note": f"nothing was generalised ({suppressed} occurrences suppressed): no attack applies; "
                            "the items published are published as they were"}
        # the release is the original's items as they were: the whole take
        return {"attack": None, "command": None, "needs": "nothing: the release holds the original items",
                "beats_chance": None, "figures": {}, "intervals": {}, "risk": 1.0,
                "note": "nothing was generalised: every item is published as it was"}

    def utility(self, original, release) -> dict:
        """The release's utility against the original."""
        from semtui.metrics.release_utility import generalised_utility
        from semtui.metrics.supports import support_errors

        return {**generalised_utility(original, release),
                **support_errors(original, release, answers=self.supports(original, release))}

    def supports(self, original, release):
        """What the release answers for the original's supports (the one utility axis of every
        family, :mod:`semtui.metrics.supports`)."""
        from semtui.metrics.supports import GeneralisedSupports

        return GeneralisedSupports(original, release)

    def made_utility(self, original, release, made: Anonymised) -> dict:
        """The utility of a release this family's anonymiser made (``release`` as published, its
        generalised items marked)."""
        return self.utility(original, release)

    def assessed(self, release) -> Assessed | None:
        """The parameters the release itself records (None: a set-generalised release does not;
        its sidecar says them, :meth:`from_sidecar`)."""
        return None

    # ------------------------------------------------------------ writing and reading back
    def _dump(self, data, name: str) -> str:
        from semtui.formats.text import dump_setgen

        buf = io.StringIO()
        dump_setgen(data, buf, name)
        return buf.getvalue()

    def publish(self, made: Anonymised, name: str) -> Published:
        """The release written as set-generalised text and read back."""
        from semtui.formats.text import parse_text

        text = self._dump(made.released, name)
        release = parse_text(text, name)
        marked = None if made.marked is None else parse_text(self._dump(made.data, name), name)
        return Published(text, release, marked=marked)


class Setgen(Generalised):
    """Set generalisation, ``semtui anonymize setgen``."""

    #: every parameter an experiment's table takes, with its default (None: required, or absent when not given)
    params: ClassVar[dict[str, object]] = {"k": None, "random_privacy": 300, "privacy": None, "sizes": "3-6", "seed": 1, "utility": "all",
              "unmarked": False, "harden": False}
    #: parameters that are whole numbers, with their least value
    whole: ClassVar[dict[str, int]] = {"k": 2, "random_privacy": 1, "seed": 0}
    #: parameters that are true or false
    flags = ("unmarked", "harden")
    #: parameters that name a file (read relative to the spec's folder)
    files = ("privacy",)
    # its first screen lists groups; each group's density in the original joins the list once the
    # original is in (read after the first paint, GroupsSource.companions_opened)
    companions_after_paint = True

    # ------------------------------------------------------------ an experiment's parameters
    def check_value(self, key: str, v: str) -> str | None:
        """What is wrong with a string parameter's value (None: nothing)."""
        if key == "sizes":
            from semtui.anonymize.setgen import parse_sizes
            from semtui.errors import InputError

            try:
                parse_sizes(v)
            except InputError as exc:
                return f"'sizes': {exc.message}"
        if key == "utility":  # all, wordnet, freq[:B], similar[:B[:S]] or a FILE (read before the first cell)
            from semtui.anonymize.setgen.matched import parse_matched
            from semtui.errors import InputError

            try:
                parse_matched(v)
            except InputError as exc:
                return f"'utility': {exc.message}"
        return None

    def conflict(self, table: dict) -> tuple[str, str] | None:
        """Parameters of one table that exclude each other: (the message, the key it is at)."""
        if "privacy" in table and "random_privacy" in table:
            return "give one of 'privacy' (a file) or 'random_privacy' (a number)", "privacy"
        return None

    def check_cell(self, p: dict) -> tuple[str, str] | None:
        """Nothing to check of one cell's parameters together."""
        return None

    def canonical(self, full: dict) -> dict:
        """The parameters that apply: ``privacy`` replaces the random constraints."""
        if full.get("privacy"):
            for k in ("random_privacy", "sizes", "seed"):
                full.pop(k, None)
        return full

    def label_bits(self, p: dict) -> list[str]:
        """What a cell's label says of the parameters past k and m."""
        bits = []
        if p.get("harden"):
            bits.append("hardened")
        if p.get("utility", "all") != "all":
            bits.append(f"utility {p['utility']}")
        if p.get("unmarked"):
            bits.append("unmarked")
        return bits

    def read_files(self, p: dict, sources: Sources) -> None:
        """Read every file the parameters name (a context shipped to another machine carries them)."""
        if p.get("privacy"):
            sources.privacy(p["privacy"])
        if p.get("utility", "all") != "all":
            from semtui.anonymize.setgen.constraints import utility_files

            if utility_files(str(p["utility"])):
                sources.utility(str(p["utility"]), None)

    # ------------------------------------------------------------ anonymise
    def prepare(self, original, params: dict, sources: Sources, *, original_path, output, jobs: int = 1,
                note=None) -> Request:
        """The privacy constraints (a file's, or ``random_privacy`` drawn from the original with
        ``sizes`` and ``seed``) and the utility constraints the ``utility`` spec names.  Fewer
        distinct random constraints than asked for is a note (``note``: called with it at once)."""
        from semtui.anonymize.setgen import parse_sizes, random_privacy

        p = dict(params)
        notes = []
        if p.get("privacy"):
            constraints = sources.privacy(p["privacy"])
            source = {"source": "file", "file": str(p["privacy"])}
        else:
            lo, hi = parse_sizes(str(p.get("sizes", "3-6")))
            n = p["random_privacy"]
            constraints = random_privacy(original, int(n), (lo, hi), int(p.get("seed", 0)))
            if len(constraints) < int(n):
                notes.append(f"only {len(constraints)} distinct random constraints of sizes {lo}-{hi} exist in "
                             f"{original_path} (asked for {n})")
                if note is not None:  # said as soon as it is known
                    note(notes[-1])
            source = {"source": "random", "n": n, "sizes": [lo, hi], "seed": p.get("seed", 0)}
        utility = sources.utility(str(p.get("utility", "all")), constraints)
        return Request(self.name, original, p, original_path, str(output),
                       inputs={"constraints": constraints, "source": source, "utility": utility}, notes=notes,
                       jobs=jobs)

    def anonymise(self, request: Request, *, progress=None) -> Anonymised:
        """COAT-style generalisation; the sidecar (``semtui-setgen-sidecar``) records the
        constraints and groups; ``unmarked``: the release written with each generalised item as
        its members."""
        from semtui.anonymize.setgen import SetgenSidecar, anonymize, flatten
        from semtui.runtime import no_progress

        p, i = request.params, request.inputs
        res = anonymize(request.original, i["constraints"], int(p["k"]), i["utility"], progress=progress or no_progress)
        unmarked = bool(p.get("unmarked", False))
        sidecar = SetgenSidecar(res, str(request.original_path), request.output, i["source"],
                                str(p.get("utility", "all")), unmarked).to_json()
        return Anonymised(request, res.data, flatten(res.data) if unmarked else res.data, res, sidecar=sidecar,
                          figures={"seconds": res.seconds, "suppressed_items": len(res.suppressed)})

    def command(self, params: dict, original_path, output: str) -> str:
        """The ``semtui anonymize setgen`` command that makes this release."""
        p = params
        if p.get("privacy"):
            how = f"--privacy {q(p['privacy'])}"
        else:
            how = f"--random-privacy {p['random_privacy']} --sizes {p['sizes']} --seed {p['seed']}"
        return (f"semtui anonymize setgen {q(original_path)} -k {p['k']} {how}"
                + (f" --utility {q(p['utility'])}" if p["utility"] != "all" else "")
                + (" --unmarked" if p.get("unmarked", False) else "") + f" -o {q(output)}")

    def check(self, release, made: Anonymised, progress=None) -> dict:
        """The independent checker's verdict (``check privacy``) on the release as published."""
        from semtui.checks.privacy import check_privacy

        k = made.params["k"]
        constraints = made.result.privacy
        chk = check_privacy(release, constraints, int(k))
        return {"passed": _passed(chk), "checker": "check privacy",
                "detail": f"k={k}: {len(constraints)} constraints, {len(chk.violated)} with support in (0, {k}), "
                          f"{len(chk.exercised)} exercised" + (f": {VACUOUS_CHECK}" if chk.vacuous else "")}

    # ------------------------------------------------------------ an assessed release
    def from_sidecar(self, doc: dict, side: Path) -> Assessed | None:
        """The parameters of a release made by ``anonymize setgen``, from its sidecar (None: ``doc``
        is no setgen sidecar)."""
        if not str(doc.get("format", "")).startswith("semtui-setgen-sidecar/"):
            return None
        src = doc.get("privacy") or {}
        p = {"k": int(doc["k"]), "utility": doc.get("utility") or "all"}
        if src.get("source") == "random":
            p.update(random_privacy=int(src["n"]), sizes=f"{src['sizes'][0]}-{src['sizes'][1]}", seed=int(src["seed"]))
        else:
            p["privacy"] = str(side)  # the sidecar holds the constraints (check privacy reads it too)
        return Assessed(self.name, p, True, f"parameters read from the sidecar {side}",
                        constraints=doc.get("privacy_constraints"))

    def assumed(self, side: Path) -> Assessed:
        """A set-generalised release with no sidecar: the documented defaults, said so."""
        a = ASSUMED_SETGEN
        return Assessed(self.name, dict(a), False,
                        f"no sidecar beside the release ({side}): its parameters are unknown, so the alternatives "
                        f"assume the documented defaults (set generalisation, k={a['k']}, "
                        f"{a['random_privacy']} random {a['sizes']}-item constraints, seed "
                        f"{a['seed']}) and this release is not checked")

    def check_assessed(self, release, assessed: Assessed, *, original, key) -> dict | None:
        """The independent check of an assessed release whose parameters are known (None: it
        cannot be checked)."""
        if assessed.constraints is None:
            return None
        from semtui.checks.privacy import check_privacy

        k = assessed.params["k"]
        c = check_privacy(release, assessed.constraints, k)
        return {"passed": _passed(c), "checker": "check privacy",
                "detail": f"k={k}: {len(assessed.constraints)} constraints (from the sidecar), "
                          f"{len(c.violated)} with support in (0, {k})" + (f": {VACUOUS_CHECK}" if c.vacuous else "")}


def _passed(report) -> bool | None:
    """The check's verdict: None (not a pass) when it exercised no constraint."""
    return None if report.vacuous else bool(report.holds)


FAMILY = Setgen()
