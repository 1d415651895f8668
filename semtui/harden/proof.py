"""The proof ``semtui harden`` gives (``semtui-harden-report/1``): its constants, the typed
results (the figures of each attack on each release, the report), the knowledge hardened
against, and what every family shares (the reproducing commands, the utility of a release).
The package text (:mod:`semtui.harden`) says how each family hardens."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from semtui.errors import InputError
from semtui.model import TransactionData
from semtui.reports import Report, json_float
from semtui.wording import SUPPORT_ERROR_DECIMALS, percents_apart, support_error

REPORT_FORMAT = "semtui-harden-report/1"

#: the knowledge that hardens against the original's own statistics (the informed reference)
SELF = "self"

#: "at chance" in the issue's sense: no better than a random attacker with the same budget, within 5 %
CHANCE_AUC = 0.53
CHANCE_ERROR_RATIO = 0.95

#: exchangeable classes: bands of prior, and the largest class cut from a band's profile chain (measured on
#: the MEPS half, docs/anonymize.md: narrow bands do most; cutting them along the profile made the
#: strongest attacker's AUC within table worse, so only a band wider than 64 items is cut)
DEFAULT_BANDS = 64
DEFAULT_CLASS_SIZE = 64
#: attack-in-the-loop rounds at most, and the mean within-row z-score that marks a member separated
DEFAULT_ROUNDS = 10
SEPARATED = 0.75
#: a round of the loop is kept only while its pair-support error stays within this many times the plain's
UTILITY_BOUND = 1.5
#: the utility axis: the original's most frequent items and pairs
TOP_SUPPORTS = 1000

#: what no attack of the proof models (said beside every figure)
NOT_MODELLED = (
    "an attacker who knows how the release was hardened (its classes or this method) and reasons from it",
    "an attacker with knowledge beyond the original's own statistics of this kind: meaning beyond the embedding "
    "measure, records linked from other sources, the real people",
    "attacks other than elimination on the generalised items: linking a transaction by its rare plain items, "
    "or by the combination of its generalised items",
    "a measure other than the default embedding inside the combined table, and any --corpus (NGD)",
)


# --------------------------------------------------------------------------- the typed results
@dataclass
class AttackFigures:
    """The strongest attack on one release with one knowledge, as the proof reports it."""

    knowledge: str  # ``self`` or the background given
    background: str  # the file ``--background`` names (the original itself for ``self``)
    method: str
    precision: float | None
    recall: float | None
    error_ratio: float | None
    auc_within_table: float | None
    intervals: dict
    eliminated: int
    correct: int
    added: int
    command: str
    #: the most any table of the side-by-side knowledge attack takes back while beating chance (error
    #: ratio < 1): its table, recall, precision and error ratio (None: none beats chance) -- the
    #: strongest attack's recall is its chosen table's, and the prior's alone may take back more
    most_taken: dict | None = None

    @property
    def at_chance(self) -> bool:
        """No better than chance in the issue's sense (AUC within table and error ratio both)."""
        return (self.auc_within_table is not None and self.auc_within_table <= CHANCE_AUC
                and (self.error_ratio is None or self.error_ratio >= CHANCE_ERROR_RATIO))

    def clause(self) -> str:
        """The attack in words: what it takes back, how sure, and beyond its chosen table."""
        recall, beyond = _more(self, ": {} at error ratio {}")
        return (f"knowledge {self.knowledge}: {self.method.upper()} takes back {recall} at precision "
                f"{_fmt(self.precision, 3)}, error ratio {_fmt(self.error_ratio)}, AUC within table "
                f"{_fmt(self.auc_within_table, 3)}{beyond}")

    def to_json(self) -> dict:
        return {"knowledge": self.knowledge, "background": self.background, "method": self.method,
                "precision": json_float(self.precision), "recall": json_float(self.recall),
                "error_ratio": json_float(self.error_ratio), "auc_within_table": json_float(self.auc_within_table),
                "intervals": self.intervals, "eliminated": self.eliminated, "correct": self.correct,
                "added": self.added, "at_chance": self.at_chance, "most_taken": self.most_taken,
                "command": self.command}


@dataclass
class ReleaseProof:
    """One release of the proof (the hardened one, or the plain anonymiser's): how it is made,
    its check, its strongest attacks, its utility."""

    label: str
    command: str
    check: dict
    attacks: list[AttackFigures]
    utility: dict

    def to_json(self) -> dict:
        return {"label": self.label, "command": self.command, "check": self.check,
                "attacks": [a.to_json() for a in self.attacks], "utility": self.utility}


@dataclass
class HardenReport(Report):
    """What ``semtui harden`` made and the proof (``semtui-harden-report/1``)."""

    FORMAT = REPORT_FORMAT

    family: str
    params: dict
    knowledge: str
    original: str
    output: str
    hardened: ReleaseProof
    plain: ReleaseProof
    method: dict
    rounds: list[dict]
    utility_constraints: dict
    seconds: float
    not_modelled: tuple[str, ...] = NOT_MODELLED
    #: releases measured beside the plain one (disassociation: the two-step release)
    others: list[ReleaseProof] = field(default_factory=list)

    @property
    def at_chance(self) -> bool:
        return bool(self.hardened.attacks) and all(a.at_chance for a in self.hardened.attacks)

    def verdict(self) -> str:
        """One line from the figures: never "safe"."""
        if not all(isinstance(a, AttackFigures) for a in self.hardened.attacks + self.plain.attacks):
            return self._verdict_by_clauses()
        worst = max(self.hardened.attacks, key=lambda a: (a.auc_within_table or 0.0))
        base = max(self.plain.attacks, key=lambda a: (a.auc_within_table or 0.0))
        pe = self.hardened.utility.get("pair_support_error")
        ppe = self.plain.utility.get("pair_support_error")
        cost = ("" if pe is None or ppe is None else
                f"; pair supports off by {support_error(pe)} where the plain release is off by {support_error(ppe)}")
        # said plainly where hardening made it worse: more comes back than from the plain release
        worse = ""
        if worst.recall is not None and base.recall is not None and worst.recall > base.recall:
            pairs = ("" if pe is None or ppe is None or pe <= ppe else
                     ", and it answers pair supports worse ({} off against {})".format(
                         *percents_apart(pe, ppe, SUPPORT_ERROR_DECIMALS)))
            worse = (". Hardening did worse than the plain anonymiser here: the hardened release lets more come "
                     "back ({} of the added items against {}){}".format(*percents_apart(worst.recall, base.recall),
                                                                        pairs))
        if self.at_chance:
            return (f"at chance against the attackers modelled (AUC within table {worst.auc_within_table:.3f}, "
                    f"error ratio {_fmt(worst.error_ratio)} at worst; the plain release: "
                    f"{_fmt(base.auc_within_table, 3)}, {_fmt(base.error_ratio)}){cost}{worse}")
        recall, more = _more(worst)
        return (f"not at chance: the strongest attack ({worst.knowledge} knowledge) has AUC within table "
                f"{_fmt(worst.auc_within_table, 3)} and error ratio {_fmt(worst.error_ratio)} (chance: AUC <= "
                f"{CHANCE_AUC}, error ratio >= {CHANCE_ERROR_RATIO}) and takes back {recall} of the added "
                f"items{more}; on the plain release {_fmt(base.auc_within_table, 3)}, "
                f"{_fmt(base.error_ratio)}, {_pct(base.recall)}{cost}{worse}")

    def _verdict_by_clauses(self) -> str:
        """The verdict of a proof whose attacks each say their own clause (disassociation: the
        cover attackers, NBA with the knowledge and the informed reference)."""
        hard = "; ".join(a.clause() for a in self.hardened.attacks)
        base = "; ".join(a.clause() for a in self.plain.attacks)
        pe = self.hardened.utility.get("pair_support_error")
        ppe = self.plain.utility.get("pair_support_error")
        cost = ("" if pe is None or ppe is None else
                f"; pair supports off by {support_error(pe)} where the plain release is off by {support_error(ppe)}")
        head = "at chance against the attackers modelled" if self.at_chance else "not at chance"
        return f"{head}: {hard} (the plain release: {base}){cost}"

    def payload(self) -> dict:
        return {"family": self.family, "params": self.params, "knowledge": self.knowledge,
                "original": self.original, "output": self.output, "verdict": self.verdict(),
                "at_chance": self.at_chance,
                "chance": {"auc_within_table_at_most": CHANCE_AUC, "error_ratio_at_least": CHANCE_ERROR_RATIO},
                "hardened": self.hardened.to_json(), "plain": self.plain.to_json(),
                **({"others": [o.to_json() for o in self.others]} if self.others else {}), "method": self.method,
                "rounds": self.rounds, "utility_constraints": self.utility_constraints,
                "not_modelled": list(self.not_modelled), "seconds": json_float(self.seconds, 3)}


def _more(a: AttackFigures, said: str = " takes back {} at error ratio {}") -> tuple[str, str]:
    """What the attack takes back, in words, and the side-by-side table that takes back more than
    its chosen one (``said``, filled with that table's share and error ratio), worded to the digits
    that tell the two apart; "" when none takes back more."""
    mt = a.most_taken
    if not mt or a.recall is None or mt["recall"] <= a.recall:
        return _pct(a.recall), ""
    more, recall = percents_apart(mt["recall"], a.recall)
    return recall, f" (its {mt['knowledge_table']} table alone{said.format(more, _fmt(mt['error_ratio']))})"


def _fmt(v, digits: int = 2) -> str:
    return "-" if v is None else f"{v:.{digits}f}"


def _pct(v) -> str:
    return "-" if v is None else f"{v:.0%}"


@dataclass
class Hardened:
    """A hardened release as the family's anonymiser made it (what the CLI writes as ``anonymize``
    would), the hierarchy a k^m release was built on, and the proof."""

    made: object  # semtui.families.common.Anonymised
    report: HardenReport
    hierarchy: object | None = None
    extra: dict = field(default_factory=dict)


@dataclass
class Made:
    """The releases hardening made, before the proof: the hardened and the plain anonymiser's
    (:class:`semtui.families.common.Anonymised`), the loop's rounds, the method, the utility
    constraints' fate, and a k^m release's built hierarchy."""

    made: object
    plain: object
    rounds: list[dict]
    method: dict
    utility: dict
    hierarchy: object | None = None
    #: releases measured beside the plain one, (label, Anonymised) (disassociation: the two-step release)
    others: list = field(default_factory=list)



# --------------------------------------------------------------------------- knowledge
def load_knowledge(spec: str, original: TransactionData, original_path):
    """The attacker's knowledge hardened against: ``self`` (the original's own statistics) or a
    background (any ``--background`` spec).  A background that shares no item with the original
    is refused, as ``attack`` refuses one that knows none of the release's members."""
    from semtui.attacks.background import Background, load_background

    if str(spec).strip() == SELF:
        return Background.from_transactions(original, str(original_path))
    bg = load_background(spec)
    if not bg.known(list(original.vocab.items)).any():
        raise InputError(f"the knowledge shares no item with the original's {len(original.vocab)} items (another "
                         "population or vocabulary?): hardening against it would harden against nothing", spec,
                         option="knowledge")
    return bg


# --------------------------------------------------------------------------- the attacks
def _attack(release: TransactionData, original: TransactionData, bg, spec: str, k: int, *, lean: bool = False,
            write_up: bool = True, progress=None):
    """The strongest attack with knowledge ``bg`` (the loaded background named ``spec``): the default
    of ``attack setgen --background`` (``auto``: the stronger of PBA and TBA on the combined table,
    the embedding measure).  ``lean``: inside the loop only the AUC within table and the tables are
    read, so PBA alone, no baseline draws, no intervals (the same code, fewer figures).
    ``write_up=False``: the figures only, no group's table (the proof reads nothing else; a k^m
    release of BMS-WebView-2's half held over 4 GB of them)."""
    from semtui.attacks.setgen import AttackOptions, run_setgen_attack

    if not release.n_generalised:  # nothing generalised: no elimination attack applies (nothing added)
        return None
    opts = AttackOptions(background=spec, k=k)
    if lean:
        opts = opts.replace(method="pba", baseline_draws=0, resamples=0)
    return run_setgen_attack(release, original, opts, background=bg, progress=progress, write_up=write_up)


def _figures(report, knowledge: str, background: str, command: str) -> AttackFigures:
    if report is None:
        return AttackFigures(knowledge, background, "none", None, None, None, None,
                             {"reason": "nothing generalised: no item was added, no elimination attack applies"},
                             0, 0, 0, command)
    m = report.metrics or {}
    iv = m.get("intervals") or {}
    keep = {k: iv.get(k) for k in ("precision", "recall", "auc_within_table", "baseline_precision")}
    if iv.get("reason"):
        keep["reason"] = iv["reason"]
    most = None
    for table, f in (m.get("knowledge") or {}).items():
        er = (f.get("baseline") or {}).get("error_ratio")
        if f.get("recall") is not None and er is not None and er < 1.0 and \
                (most is None or f["recall"] > most["recall"]):
            most = {"knowledge_table": table, "recall": f["recall"], "precision": f.get("precision"), "error_ratio": er}
    return AttackFigures(knowledge, background, report.options.method, m.get("precision"), m.get("recall"),
                         (m.get("baseline") or {}).get("error_ratio"), m.get("auc_within_table"), keep,
                         int(m.get("eliminated") or 0), int(m.get("correct") or 0), int(m.get("added") or 0), command,
                         most)


def _q(x) -> str:
    from semtui.families.common import q

    return q(x)


def _family(name: str):
    from semtui.families import FAMILIES

    return FAMILIES[name]


def _plain_name(output) -> str:
    p = Path(str(output))
    return str(p.with_name(p.stem + ".plain" + (p.suffix or ".txt")))


def _after(makes: str | None, command: str) -> str:
    """``command`` as a user can run it: after ``makes``, the command that writes the release it
    reads, where this run of harden does not write it (the plain and the two-step release are
    measured, never written); ``makes`` None: the file is written."""
    return command if makes is None else f"{makes} && {command}"


def _params_doc(params: dict) -> dict:
    return {k: (str(v) if isinstance(v, Path) else v) for k, v in params.items() if v is not None}


#: the one utility axis of every family, as the family's utility holds it (metrics.supports.support_errors)
SUPPORT_KEYS = ("item_support_error", "pair_support_error", "items_measured", "pairs_measured",
                "pair_support_error_median")


def _own_utility(fam, original, release, made) -> dict:
    """The release's utility as the proof reports it: the one axis of every family, then the
    family's own measures (one call of the family's utility computes both)."""
    u = fam.utility(original, release)
    keep = (*SUPPORT_KEYS, "ncp", "ul", "exact_share", "suppressed_occurrences", "added_items", "generalised_items")
    out = {k: u.get(k) for k in keep}
    if made.result is not None and hasattr(made.result, "suppressed"):
        out["suppressed_items"] = len(made.result.suppressed)
    if made.figures.get("ncp_hierarchy") is not None:
        out["ncp_hierarchy"] = made.figures["ncp_hierarchy"]
    return out


def _published(fam, made, output):
    """The release as written and read back (what the attack command reads)."""
    return fam.publish(made, str(output)).release


def _harden_command(family: str, own: list[str], k, knowledge, original_path, output) -> str:
    """The ``semtui harden`` command that makes this release (``own``: the family's options, given)."""
    bits = [f"semtui harden {_q(original_path)} --family {family} -k {k}", *own]
    if knowledge != SELF:
        bits.append(f"--knowledge {_q(knowledge)}")
    bits.append(f"-o {_q(output)}")
    return " ".join(bits)




def prove_generalised(out: Made, *, hardening, original, params: dict, knowledge: str, bg, original_path, output,
                      progress, key=None) -> list[ReleaseProof]:
    """The proof of a set-generalised hardening (setgen, k^m): the hardened and the plain release,
    each published as the CLI writes it, checked by the family's checker and attacked by the
    strongest attacker with the knowledge given and with the original's own statistics."""
    import gc

    self_bg = bg if knowledge == SELF else None
    if self_bg is None:
        from semtui.attacks.background import Background

        self_bg = Background.from_transactions(original, str(original_path))
    proofs = []
    fam = _family(hardening.name)
    for label, m, name in (("hardened", out.made, str(output)), ("plain", out.plain, _plain_name(output))):
        how = out.method["command"] if label == "hardened" else hardening.plain_command(params, original_path, name)
        rel = fam.publish(m, name).release
        check = fam.check(rel, m)
        attacks = []
        for kn, b in ([(knowledge, bg)] + ([] if knowledge == SELF else [(SELF, self_bg)])):
            bgfile = str(original_path) if kn == SELF else kn
            rep = _attack(rel, original, b, bgfile, int(params["k"]), write_up=False, progress=progress)
            cmd = f"semtui attack setgen {_q(name)} --original {_q(original_path)} --background {_q(bgfile)}"
            attacks.append(_figures(rep, kn, bgfile, _after(None if label == "hardened" else how, cmd)))
            del rep
            gc.collect()
        utility = _own_utility(fam, original, rel, m)
        proofs.append(ReleaseProof(label, how, check, attacks, utility))
    return proofs
