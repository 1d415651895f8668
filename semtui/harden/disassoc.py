"""Hardening disassociation: REFINE made safe (issue 37 item 3; the package text, :mod:`semtui.harden`).

The hardened release is HORPART + VERPART + REFINE with every cover problem removed, of the record
*and* the shared chunks (``anonymize disassoc --safe``, :mod:`semtui.anonymize.disassociation.safe`):
cuts in record chunks where one suppressed occurrence ends a problem, and REFINE's shared items
put back into their term chunks where none does.  The knowledge does not choose the chunks: the
cover problem is an attack on the release's structure, and removing every problem leaves nothing to
the strong attacker (who knows every pair of every record), so nothing to the moderate and weak
attackers who know fewer.

**The proof** measures what the knowledge adds: the hardened release, the plain one (``anonymize
disassoc`` at the same parameters: REFINE, unrepaired) and the two-step release (``--no-refine``)
are each checked (``check km`` with the key and the original), attacked by the three cover
attackers, and re-associated by NBA with the knowledge given (with ``self``: the original's own
statistics) beside the informed reference; each with the ``semtui`` command that reproduces it.
A re-association is at chance when its lift over the budget-matched random re-association, and the
informed reference's (the strongest attacker of the kind), are both at most
1 / :data:`~semtui.harden.proof.CHANCE_ERROR_RATIO` (no better than a random attacker with the
same budget, within 5 %); a cover attacker when it breaches nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from semtui.harden.proof import (
    CHANCE_ERROR_RATIO,
    SELF,
    Made,
    ReleaseProof,
    _after,
    _family,
    _harden_command,
    _plain_name,
    _q,
)
from semtui.reports import json_float

#: what no attack of the proof models
NOT_MODELLED = (
    "an attacker who knows how the release was made safe (which problems were cut or unshared) and reasons "
    "from it",
    "re-association methods other than NBA with the knowledge (ABA, RGA, MRA with a measure: `semtui assess` "
    "runs them) and knowledge beyond the co-occurrence statistics given: meaning, records linked from other "
    "sources, the real people",
    "the cover problem's knowledge attacker with a file of itemsets (`semtui cover --knowledge`): the strong "
    "attacker knows more",
)

#: the cover attackers of the proof (the strong one breaches every problem)
ATTACKERS = ("strong", "moderate", "weak")


@dataclass
class CoverFigures:
    """One cover attacker on one release."""

    attacker: str
    cover_problems: int
    breaches: int
    vulnerable_records: int
    command: str

    @property
    def at_chance(self) -> bool:
        return self.breaches == 0

    def clause(self) -> str:
        return f"the {self.attacker} cover attacker breaches {self.breaches} ({self.cover_problems} cover problems)"

    def to_json(self) -> dict:
        return {"attack": "cover", "attacker": self.attacker, "cover_problems": self.cover_problems,
                "breaches": self.breaches, "vulnerable_records": self.vulnerable_records,
                "at_chance": self.at_chance, "command": self.command}


@dataclass
class ReassociationFigures:
    """NBA with the knowledge on one release, and the informed reference beside it."""

    knowledge: str
    background: str
    accuracy: float | None
    baseline_accuracy: float | None
    lift: float | None
    lift_interval: dict | None
    informed_lift: float | None
    informed_interval: dict | None
    command: str

    @property
    def at_chance(self) -> bool:
        """NBA with the knowledge *and* the informed reference (the strongest attacker of the
        kind: the original's own statistics) no better than random within 5 %."""
        bound = 1.0 / CHANCE_ERROR_RATIO
        return all(v is not None and v <= bound for v in (self.lift, self.informed_lift))

    def clause(self) -> str:
        iv = self.lift_interval or {}
        where = f" [{iv['low']:.2f}, {iv['high']:.2f}]" if iv.get("low") is not None else ""
        lift = "-" if self.lift is None else f"{self.lift:.2f}"
        ref = "" if self.informed_lift is None else f", the informed reference {self.informed_lift:.2f}"
        return f"NBA ({self.knowledge} knowledge) re-associates at lift {lift}{where} over random{ref}"

    def to_json(self) -> dict:
        return {"attack": "reassociation", "method": "nba", "knowledge": self.knowledge, "background": self.background,
                "accuracy": json_float(self.accuracy), "baseline_accuracy": json_float(self.baseline_accuracy),
                "lift_over_random": json_float(self.lift), "lift_interval": self.lift_interval,
                "informed_lift_over_random": json_float(self.informed_lift),
                "informed_lift_interval": self.informed_interval, "at_chance": self.at_chance,
                "command": self.command}


def _interval(iv) -> dict | None:
    from semtui.metrics.intervals import Interval

    got = Interval.read(iv)
    return None if got is None else {"low": got.low, "high": got.high}


class DisassocHardening:
    """Disassociation: REFINE made safe."""

    name = "disassoc"
    options = ("-m", "--max-cluster-size", "--key")
    not_modelled = NOT_MODELLED
    #: no sidecar: a disassociated release records its k, m and maximum cluster size itself
    sidecar = False

    def _disassociate(self, original, p: dict, original_path, output, progress):
        """``anonymize disassoc``'s release at the parameters ``p`` (the family's anonymiser)."""
        from semtui.families.common import FileSources

        fam = _family(self.name)
        return fam.anonymise(fam.prepare(original, p, FileSources(original), original_path=original_path,
                                         output=output), progress=progress)

    def make(self, original, params, bg, knowledge, original_path, output, *, hierarchy=None, rounds, bands, size,
             progress, note) -> Made:
        p = {"refine": True, "seed": 0, **params}

        def run(**over):
            return self._disassociate(original, {**p, **over}, original_path, output, progress)

        progress(0, 1, "disassociating, every cover problem removed")
        made = run(safe=True, refine=True)
        progress(0, 1, "the plain anonymiser")
        plain = run(safe=False, refine=True)
        two = run(safe=False, refine=False)
        method = {"name": "REFINE made safe", "knowledge": knowledge, "safe": made.result.safe.to_json(),
                  "command": _harden_command(self.name, self.own_options(p), p["k"], knowledge, original_path,
                                             output)}
        ucons = {"given": None, "honoured": True, "note": "disassociation has no utility constraints"}
        rounds_doc = [{"round": 0, "note": "disassociation: the chunks are repaired once; no attack-in-the-loop "
                                           "regrouping"}]
        return Made(made, plain, rounds_doc, method, ucons, others=[("two-step", two)])

    def hardened(self, original, params, bg, knowledge, original_path, output, *, progress):
        """The hardened release alone (no proof: not the plain and the two-step release) and its
        ``semtui harden`` command."""
        p = {"seed": 0, **params, "refine": True, "safe": True}
        made = self._disassociate(original, p, original_path, output, progress)
        return made, _harden_command(self.name, self.own_options(p), p["k"], knowledge, original_path, output)

    def own_options(self, p: dict) -> list[str]:
        return [f"-m {p['m']}", f"--max-cluster-size {p['max_cluster_size']}"]

    def plain_command(self, params: dict, original_path, name: str, *, refine: bool = True) -> str:
        """The ``semtui anonymize disassoc`` command of the plain release (``refine``: else the two-step)."""
        return _family(self.name).command({**params, "refine": refine, "safe": False}, original_path, name)

    def prove(self, out: Made, *, original, params: dict, knowledge: str, bg, original_path, output,
              progress, key=None) -> list[ReleaseProof]:
        """The hardened, the plain and the two-step release, each checked, attacked by the cover
        attackers and re-associated by NBA with the knowledge (and the informed reference)."""
        from semtui.attacks.cover import CoverOptions, CoverProblems, run_cover
        from semtui.attacks.reassociation import ReassociationOptions, run_reassociation
        from semtui.families.common import key_path
        from semtui.metrics.supports import support_errors

        fam = _family(self.name)
        spec = str(original_path) if knowledge == SELF else knowledge
        releases = [("hardened", out.made, str(output), out.method["command"]),
                    ("plain", out.plain, _plain_name(output),
                     self.plain_command(params, original_path, _plain_name(output)))]
        for label, m in out.others:
            name = _other_name(output, label)
            releases.append((label, m, name, self.plain_command(params, original_path, name, refine=False)))
        proofs = []
        for label, m, name, how in releases:
            rel = fam.publish(m, name).release
            check = fam.check(rel, m)
            # each command as a user can run it (what makes the release, what makes its key first)
            if label != "hardened":    # measured, never written: its anonymize command makes it and its key
                keyfile, makes_release, makes_key = key_path(name), how, how
            elif key is not None:      # written, and its key where --key put it
                keyfile, makes_release, makes_key = str(key), None, None
            else:                      # written, its key not: the harden command again, with --key
                keyfile = key_path(name)
                makes_release, makes_key = None, f"{how} --key {_q(keyfile)}"
            attacks = []
            found = CoverProblems.find(rel, original)   # the same problems for every attacker
            for who in ATTACKERS:
                progress(0, 1, f"the proof: the {who} cover attacker on the {label} release")
                s = run_cover(rel, CoverOptions(attacker=who), original=original, key=m.key, problems=found).summary
                attacks.append(CoverFigures(who, int(s.cover_problems), int(s.breaches), int(s.vulnerable_records),
                                            _after(makes_release, f"semtui cover {_q(name)} --attacker {who} "
                                                                  f"--original {_q(original_path)}")))
            progress(0, 1, f"the proof: NBA on the {label} release")
            opts = ReassociationOptions(method="nba", background=spec, informed=knowledge != SELF, summary_only=True)
            mt = run_reassociation(rel, m.key, original, opts, background=bg, progress=progress).report.metrics
            ref = mt.informed_reference
            lift = mt.lift_over_random
            # self: NBA with the original's own statistics
            informed = ref.lift_over_random if ref is not None else lift
            informed_iv = (ref if ref is not None else mt).intervals.get("lift_over_random")
            attacks.append(ReassociationFigures(
                knowledge, spec, mt.accuracy, mt.baseline.accuracy, lift,
                _interval(mt.intervals.get("lift_over_random")), informed, _interval(informed_iv),
                _after(makes_key, f"semtui attack disassoc {_q(name)} --key {_q(keyfile)} --original {_q(original_path)} "
                              f"--background {_q(spec)}")))
            summary = m.result.summary()
            utility = {**support_errors(original, rel, answers=fam.supports(original, rel)),
                       "associated_share": summary.get("associated_share"),
                       "term_chunk_share": summary.get("term_chunk_share"),
                       "suppressed_occurrences": (summary.get("safe") or {}).get("suppressed_occurrences", 0)}
            proofs.append(ReleaseProof(label, how, check, attacks, utility))
        return proofs

    def mark_sidecar(self, made, method: dict, ucons: dict, knowledge: str) -> None:
        return None  # a disassociated release records its k, m and cluster size itself; the report says the rest

    def built_hierarchy(self, output, hierarchy):
        return None

    def outputs(self, done, *, output, sidecar, hierarchy_path, knowledge, key=None) -> list[tuple]:
        """What the CLI writes, as ``anonymize disassoc`` does: the release and, given, its private key."""
        from semtui.formats.disassociated import dump_disassociated, dump_key

        made = done.made
        out = [(output, lambda fh: dump_disassociated(made.data, fh), False)]
        if key is not None:
            out.append((key, lambda fh: dump_key(made.key, fh), True))
        return out


def _other_name(output, label: str) -> str:
    """The name a release measured beside the plain one is attacked under (``OUT.two-step.json``)."""
    from pathlib import Path

    p = Path(str(output))
    return str(p.with_name(p.stem + f".{label}" + (p.suffix or ".json")))
