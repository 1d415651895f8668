"""Publish this instead (issue 21 item 2): safer releases of the assessed release's family,
each measured with the experiment engine (:func:`semtui.experiment.cells.run_cell`), the
assessed release beside them as "this release", and the one a careful publisher would choose.

:data:`ALTERNATIVES` is the table of what is tried, per family: each row turns the assessed
release's parameters into an alternative's (or None where it does not apply).  New anonymiser
options become new rows.

**The choice** (:func:`choose`): the release that brings the strongest attacker closest to
chance — its distance from chance is ``1 − error ratio`` (set generalisation, k^m) or
``lift − 1`` (disassociation), 0 when no attack beat chance, 1 when nothing was generalised —
at the least utility cost: among the releases whose distance is within :data:`TOLERANCE` of
the smallest, the one with the highest utility score (then the lower risk).  Only releases that
take back no more than the assessed release (risk no higher) are candidates: closer to chance
can mean that a random attacker also takes back more (on MEPS-half k = 3 every larger k and the
WordNet classes bring the error ratio from 0.15 to 0.25–0.40 while the take rises from 67 % to
84–92 %, docs/assess.md), and a careful publisher does not trade the one for the other.  A release
whose independent check failed is never chosen.

**Disassociation's cover problem counts too.** A disassociated release is exposed twice: to
re-association (the lift above) and to its cover problems — the records the strong cover
attacker can breach (``cover_vulnerable_share``, of all records). Its distance from chance is the
larger of the two, and what it "takes" (for the no-more-taken rule) the larger of its
re-association risk and that share: a release half of whose records a cover attacker breaches is
never kept over one with none on the grounds that its re-association is nearer chance.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from semtui.experiment.cells import FORMAT, privacy_of
from semtui.experiment.spec import PARAMS, make_cell
from semtui.families import Assessed, family_of
from semtui.families import assessed_params as _assessed_params
from semtui.families.setgen import ASSUMED_SETGEN
from semtui.wording import UNKNOWN_PARAMETERS, counted, support_error

#: distances from chance this close to the smallest count as equal (the choice then goes to utility)
TOLERANCE = 0.05


@dataclass(frozen=True)
class Alternative:
    family: str
    name: str
    #: why it should be safer, in a publisher's words
    why: str
    make: Callable[[dict], dict | None]
    #: how long it takes to measure against the table's others (measured: the WordNet classes'
    #: large groups take ~4 times as long on the MEPS half); measured beside this release, the
    #: longest are taken first, so that none is left running alone at the end
    cost: float = 1.0


def _unless_same(p: dict, q: dict) -> dict | None:
    return None if q == p else q


ALTERNATIVES: tuple[Alternative, ...] = (
    Alternative("setgen", "hardened", "members of each generalised item alike to the strongest attacker -- in "
                "prior and co-occurrence -- with the same k and constraints (semtui harden, against the background "
                "when one is given, else the original's own statistics)",
                lambda p: None if p.get("harden") else {**p, "harden": True}),
    Alternative("setgen", "k doubled", "each constraint's items shared by twice as many transactions",
                lambda p: {**p, "k": 2 * p["k"]}),
    Alternative("setgen", "k tripled", "each constraint's items shared by three times as many transactions",
                lambda p: {**p, "k": 3 * p["k"]}),
    Alternative("setgen", "items generalised within WordNet classes",
                "only items of one WordNet class are generalised together (members of similar meaning, so "
                "the context tells an added member from a real one less)",
                lambda p: _unless_same(p, {**p, "utility": "wordnet"}), cost=4.0),
    Alternative("setgen", "items generalised with items of similar frequency",
                "only items of one support band are generalised together (semtui anonymize setgen --utility "
                "freq:8), so a member's rarity no longer tells an added member from a real one",
                lambda p: _unless_same(p, {**p, "utility": "freq:8"})),
    Alternative("km", "hardened", "a hierarchy whose siblings are alike to the strongest attacker -- in prior and "
                "co-occurrence -- with the same k and m (semtui harden builds it, against the background when one is "
                "given, else the original's own statistics)",
                lambda p: None if p.get("harden") else
                {**{k: v for k, v in p.items() if k not in ("hierarchy", "order")}, "fanout": p.get("fanout", 5),
                 "harden": True}),
    Alternative("km", "k doubled", "every itemset of m items shared by twice as many transactions",
                lambda p: {**p, "k": 2 * p["k"]}),
    Alternative("km", "hierarchy ordered by support",
                "items of similar frequency generalised together (semtui hierarchy build --order support), so "
                "a member's rarity says less about whether it is real",
                lambda p: None if p.get("order") == "support" else
                {**{k: v for k, v in p.items() if k != "hierarchy"}, "fanout": p.get("fanout", 5),
                 "order": "support"}),
    Alternative("disassoc", "hardened", "every cover problem removed, REFINE kept (semtui harden: occurrences "
                "suppressed in record chunks where one ends a problem, items REFINE shared put back into their term "
                "chunks where none does)",
                lambda p: None if p.get("safe") or p.get("harden") else {**p, "refine": True, "harden": True}),
    Alternative("disassoc", "k doubled", "every itemset of a record chunk shared by twice as many records",
                lambda p: {**p, "k": 2 * p["k"], "max_cluster_size": max(p["max_cluster_size"], 2 * p["k"])}),
    Alternative("disassoc", "clusters halved", "smaller clusters: fewer records to choose among, but fewer "
                "items kept together (HORPART splits more)",
                lambda p: {**p, "max_cluster_size": p["max_cluster_size"] // 2}
                if p["max_cluster_size"] // 2 >= p["k"] else None),

)

#: each family's rows of the table, in the table's order
_ROWS: dict[str, list[Alternative]] = {}
for _alt in ALTERNATIVES:
    _ROWS.setdefault(_alt.family, []).append(_alt)

__all__ = ["ALTERNATIVES", "ASSUMED_SETGEN", "Alternative", "Assessed",
           "assessed_params", "choose", "chosen_sentence", "distance", "plan", "this_release"]


def assessed_params(kind: str, release, data_path: str) -> Assessed:
    """The parameters of the assessed release (:func:`semtui.families.assessed_params`: from a
    disassociated release itself, from a set-generalised release's sidecar ``RELEASE.json``, else
    the documented defaults, said so).  ``kind``: the assessment's, which the release's data says."""
    return _assessed_params(release, data_path)


def this_release(report, release, original, key, assessed: Assessed) -> dict:
    """The assessed release as a cell ("this release"): the assessment's figures, its utility, and
    its check where its parameters are known."""
    p = assessed.params
    fam = assessed.family
    family = family_of(fam)
    t0 = time.perf_counter()
    check = {"passed": None, "checker": None, "detail": UNKNOWN_PARAMETERS}
    if assessed.known:
        check = family.check_assessed(release, assessed, original=original, key=key) or check
    check_s = time.perf_counter() - t0
    utility = family.utility(original, release)
    i = report.inputs
    return {"format": FORMAT, "id": f"this-release:{i.data}", "cell": {"family": fam, **p, "known": assessed.known},
            "label": "this release", "release": i.data, "key": i.key, "anonymize_command": None,
            "inputs": {"original": i.original, "background": i.background, "corpus": i.corpus,
                       "measures": list(i.measures)},
            "check": check, "privacy": privacy_of(report, fam), "utility": utility,
            "times": {"anonymize_s": None, "check_s": round(check_s, 3), "attack_s": round(report.seconds, 3)},
            "why": "the release assessed", "chosen": False}


def plan(assessed: Assessed) -> list[tuple[Alternative, dict]]:
    """The alternatives of the table that apply to this release, with their parameters."""
    out, seen = [], set()
    for alt in _ROWS.get(assessed.family, ()):
        q = alt.make(dict(assessed.params))
        if q is None:
            continue
        q = {k: v for k, v in q.items() if k in PARAMS[alt.family]}
        cell = make_cell(alt.family, q)
        if cell.id in seen:
            continue
        seen.add(cell.id)
        out.append((alt, q))
    return out


def distance(cell: dict) -> float:
    """How far the cell's strongest attacker is from chance (0: at chance or worse)."""
    p = cell.get("privacy") or {}
    if p.get("attack") is None:
        return 1.0 if p.get("risk") == 1.0 else math.inf
    if p.get("risk") is None:  # no attack could score it: unknown, never the safest
        return math.inf
    cover = _cover_share(cell)
    if not p.get("beats_chance"):
        return cover
    return family_of(cell["cell"]["family"]).distance(p.get("figures") or {}, cover)


def _cover_share(cell: dict) -> float:
    """The share of the records the strong cover attacker can breach (0 where no cover attack ran)."""
    return float((cell.get("privacy") or {}).get("cover_vulnerable_share") or 0.0)


def _taken(cell: dict) -> float | None:
    """What the release gives away, for the no-more-taken rule: its risk, and for a
    disassociated release at least the share of records the cover attacker breaches."""
    r = (cell.get("privacy") or {}).get("risk")
    cover = _cover_share(cell)
    if r is None:
        return None
    return max(r, cover)


def choose(cells: list[dict]) -> int | None:
    """The index of the release a careful publisher would choose (module docstring); ``cells[0]``
    is the assessed release."""
    this_risk = _taken(cells[0]) if cells else None

    def no_more_taken(i: int) -> bool:
        r = _taken(cells[i])
        return i == 0 or this_risk is None or (r is not None and r <= this_risk)

    ok = [i for i, c in enumerate(cells) if c["check"].get("passed") is not False and math.isfinite(distance(c))
          and no_more_taken(i)]
    if not ok:
        return None
    best = min(distance(cells[i]) for i in ok)
    near = [i for i in ok if distance(cells[i]) <= best + TOLERANCE]
    return max(near, key=lambda i: ((cells[i]["utility"].get("score") or 0.0),
                                    -((cells[i]["privacy"].get("risk")) or 0.0), cells[i]["label"] == "this release"))


#: an alternative whose attacks ran but could not score a single row (nothing plain, no background):
#: its risk is unknown, not 0, and it is never chosen (:func:`distance`)
UNSCORED = "no attack tried could score a row (its risk is unknown: give a background)"


def unscored(c: dict) -> bool:
    """Whether the cell's attacks ran but scored nothing (:data:`UNSCORED`)."""
    p = c.get("privacy") or {}
    return p.get("attack") is not None and p.get("risk") is None


def _unmeasured(c: dict) -> str | None:
    """Why the cell has no distance from chance to give (no attack applies, or none scored a
    row), as a clause; None when it has one."""
    p = c["privacy"]
    if p.get("attack") is None:
        return "nothing is generalised" if p.get("risk") == 1.0 else "no attack applies"
    return UNSCORED if unscored(c) else None


def short_far(c: dict) -> str:
    """How far the release's strongest attack is from chance, short: an alternative's line in
    ``semtui assess`` (its distance as a figure, ``error ratio 0.62``, ``lift 1.02``); the same
    cases, in the same words, as the verdict's clause (:func:`_far`)."""
    p = c["privacy"]
    family = family_of(c["cell"]["family"])
    said = _unmeasured(c) or (family.figure(p.get("figures") or {}) if p.get("beats_chance") else family.far(p, ""))
    if "cover_vulnerable_share" in p:  # disassociation: the records a cover attacker breaches
        said += f", cover: {p['cover_vulnerable_share']:.0%} of the records breachable"
    return said


def _far(c: dict) -> str:
    """How far the release's strongest attack is from chance, as a clause."""
    p = c["privacy"]
    said = _unmeasured(c)
    if said is not None:
        return said
    cover = ""
    if "cover_vulnerable_share" in p:
        n = (p.get("cover_vulnerable_records") or {}).get("strong")
        cover = (f", and the strong cover attacker can breach {n:,} records ({_cover_share(c):.0%})" if n else
                 ", and no cover problem breaks")
    return family_of(c["cell"]["family"]).far(p, cover)


def chosen_sentence(alts: list[dict], k: int) -> str:
    """The choice in one sentence, worded from the numbers; and, when another checked release
    lets far less come back, that one too (the choice weighs distance from chance first)."""
    this, pick = alts[0], alts[k]
    n = len(alts) - 1
    su, tu = pick["utility"].get("score"), this["utility"].get("score")
    if k == 0:
        others = "; ".join(f"{a['label']}: {_far(a)}{_takes_back(a)}" for a in alts[1:])
        brings = "is shown to bring" if any(unscored(a) for a in alts[1:]) else "brings"
        said = (f"Keep this release: none of the {counted(n, 'alternative')} measured {brings} the strongest attacker "
                f"closer to "
                f"chance without taking back more or costing more utility (here {_far(this)}, takes back "
                f"{_r(this)}, utility {tu:.3f}; {others}).")
    else:
        sp, tp = pick["utility"].get("pair_support_error"), this["utility"].get("pair_support_error")
        # "no cost" only where nothing measured is worse: a pair-support error above this release's
        # is a cost the utility score does not show (worse as worded: never between two figures
        # that read alike)
        pairs_worse = sp is not None and tp is not None and sp > tp and support_error(sp) != support_error(tp)
        pairs = ("" if sp is None or tp is None else
                 f"; {'but ' if su >= tu and pairs_worse else ''}the original's most frequent pairs' supports off by "
                 f"{support_error(sp)} where this release is off by {support_error(tp)}")
        cost = ("a cost of " + format(tu - su, ".3f") if su < tu else
                "no cost in the utility score" if pairs_worse else "no cost")
        said = (f"Publish instead: {pick['label']} — there {_far(pick)} (in this release {_far(this)}); the "
                f"strongest attacker takes back {_r(pick)} (here {_r(this)}), at utility {su:.3f} against {tu:.3f} "
                f"({cost}{pairs}).")
    least = _least_taken(alts)
    if least is not None and least != k:
        low, mine = _taken(alts[least]), _taken(pick)
        if low is not None and mine is not None and low < 0.8 * mine:
            lu = alts[least]["utility"].get("score")
            said += (f" If how much comes back matters more than how far the attacker is from chance: "
                     f"{'this release' if least == 0 else alts[least]['label']} lets the least come back "
                     f"({_r(alts[least])}, against {_r(pick)}), at utility {lu:.3f}.")
    return said


def _least_taken(alts: list[dict]) -> int | None:
    """The checked, scored release that lets the least come back (then the most utility)."""
    ok = [i for i, c in enumerate(alts) if c["check"].get("passed") is not False and _taken(c) is not None]
    if not ok:
        return None
    return min(ok, key=lambda i: (_taken(alts[i]), -(alts[i]["utility"].get("score") or 0.0)))


def _takes_back(c: dict) -> str:
    """``, takes back …`` after an alternative's clause; nothing where no attack applies and no
    figure is given (its clause says why: there is nothing a share could say)."""
    p = c["privacy"]
    return "" if p.get("attack") is None and p.get("risk") is None else f", takes back {_r(c)}"


def _r(c: dict) -> str:
    """What the strongest attacker takes back, in words that say of what."""
    r = c["privacy"].get("risk")
    if r is None:
        return "an unknown share" if unscored(c) else "-"
    return f"{r:.0%} of {family_of(c['cell']['family']).risk_of}"
