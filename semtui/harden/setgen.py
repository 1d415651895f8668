"""Hardening set generalisation: COAT within exchangeable classes, then attack in the loop
(the package text, :mod:`semtui.harden`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from semtui.harden.proof import (
    DEFAULT_BANDS,
    DEFAULT_CLASS_SIZE,
    DEFAULT_ROUNDS,
    NOT_MODELLED,
    REPORT_FORMAT,
    SELF,
    SEPARATED,
    UTILITY_BOUND,
    Hardened,
    Made,
    ReleaseProof,
    _attack,
    _family,
    _harden_command,
    _published,
    _q,
    prove_generalised,
)
from semtui.metrics.supports import support_errors
from semtui.reports import json_float

if TYPE_CHECKING:
    from semtui.attacks.setgen.results import GroupWriteUp


def knowledge_profiles(bg, names: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """The attacker's log prior and co-occurrence profile (unit vectors; NaN: flat or unknown) of
    each of ``names``, from its knowledge ``bg`` (a :class:`semtui.attacks.background.Background`)."""
    from semtui.measures.order import PROFILE_DIMS, profile_vectors

    ids = bg.ids(names)
    log_prior = bg.log_prior(ids)
    if not bg.has_cooccurrence:
        return log_prior, np.full((len(names), 1), np.nan)
    ctx = np.argsort(-bg.df, kind="stable")[:PROFILE_DIMS]
    cooc = bg.counts(ids, ctx)
    return log_prior, profile_vectors(log_prior, cooc, bg.df[ctx], bg.n)


# --------------------------------------------------------------------------- exchangeable classes
def exchangeable_classes(names: list[str], log_prior: np.ndarray, vectors: np.ndarray,
                         user: list[list[str]] | None, bands: int = DEFAULT_BANDS,
                         size: int = DEFAULT_CLASS_SIZE) -> list[list[str]]:
    """COAT's utility constraints for hardening: every user constraint (``user``; None: one of
    every item) split into ``bands`` bands of prior (quantiles of log P(x), equal priors in one
    band) and each band cut into classes of ``size`` items along a nearest-neighbour chain of the
    profiles (a last class of one joins the one before).  Items in no user constraint stay in
    none (never generalised, as COAT's rule is)."""
    from semtui.anonymize.setgen import support_bands
    from semtui.measures.order import meaning_chain

    index = {x: i for i, x in enumerate(names)}
    groups = [np.arange(len(names))] if user is None else \
        [np.array(sorted({index[x] for x in c if x in index}), dtype=np.int64) for c in user]
    out: list[list[str]] = []
    for g in groups:
        if len(g) == 0:
            continue
        # bands of the attacker's prior: exp(log prior) ranks as the support does
        band = support_bands(np.exp(log_prior[g]) * 1e12, bands)
        for b in range(int(band.max()) + 1):
            items = g[band == b]
            chain = items[meaning_chain(vectors[items])] if vectors.shape[1] > 1 else items
            pieces = [chain[a:a + size] for a in range(0, len(chain), size)]
            if len(pieces) > 1 and len(pieces[-1]) < 2:
                last = pieces.pop()
                pieces[-1] = np.concatenate([pieces[-1], last])
            out.extend([names[i] for i in sorted(p.tolist())] for p in pieces if len(p))
    return out


def regroup(classes: list[list[str]], user_of: dict[str, int], groups: list[GroupWriteUp],
            threshold: float = SEPARATED) -> tuple[list[list[str]], list[dict]]:
    """One attack-in-the-loop step: the members the attack separates in their groups move to a
    better-matched class.

    ``groups``: the attack report's group entries (members and the rows x members surprisal table
    the eliminator ran on).  A member is **separated** when the mean over its group's rows of its
    within-row z-score is at least ``threshold`` in absolute value (the attacker reads it as less,
    or more, likely than its group mates); its **level** is its mean surprisal there.  It moves to
    the class of the same user constraint whose generalised members' mean level is closest to its
    own, when that is closer than its own class's; a class is never left with fewer than two
    items.  Returns the classes and the moves."""
    level, z_of = _levels(groups)
    cls = [list(c) for c in classes]
    where = {x: i for i, c in enumerate(cls) for x in c}

    def class_level(i: int) -> float | None:
        v = [level[x] for x in cls[i] if x in level]
        return float(np.mean(v)) if v else None

    levels = [class_level(i) for i in range(len(cls))]
    moves = []
    for x in sorted(z_of, key=lambda x: -abs(z_of[x])):
        if abs(z_of[x]) < threshold or x not in where:
            continue
        here = where[x]
        if len(cls[here]) <= 2:
            continue
        cands = [i for i in range(len(cls)) if i != here and levels[i] is not None
                 and user_of.get(cls[i][0]) == user_of.get(x)]
        if not cands:
            continue
        best = min(cands, key=lambda i: (abs(levels[i] - level[x]), i))
        if levels[here] is not None and abs(levels[best] - level[x]) >= abs(levels[here] - level[x]):
            continue
        cls[here].remove(x)
        cls[best].append(x)
        where[x] = best
        moves.append({"item": x, "z": json_float(z_of[x], 3), "level": json_float(level[x], 3),
                      "from_level": json_float(levels[here], 3), "to_level": json_float(levels[best], 3)})
    return [sorted(c) for c in cls if c], moves


def _levels(groups: list[GroupWriteUp]) -> tuple[dict[str, float], dict[str, float]]:
    """Each scored member's mean surprisal in its group's table and its mean within-row z-score."""
    level: dict[str, float] = {}
    z_of: dict[str, float] = {}
    for g in groups:
        t = np.array(g.table, dtype=np.float64)
        if t.size == 0 or t.shape[1] < 2:
            continue
        with np.errstate(invalid="ignore", divide="ignore"), _quiet():
            mu = np.nanmean(t, axis=1, keepdims=True)
            sd = np.nanstd(t, axis=1, keepdims=True)
            z = np.where(sd > 0, (t - mu) / np.where(sd > 0, sd, 1.0), 0.0)
            mz = np.nanmean(z, axis=0)
            ml = np.nanmean(t, axis=0)
        for j, x in enumerate(g.members):
            if np.isfinite(ml[j]):
                level[x], z_of[x] = float(ml[j]), float(mz[j]) if np.isfinite(mz[j]) else 0.0
    return level, z_of


class _quiet:
    """Silence numpy's RuntimeWarning for all-NaN slices (a member never scored)."""

    def __enter__(self):
        import warnings

        self._w = warnings.catch_warnings()
        self._w.__enter__()
        warnings.simplefilter("ignore", RuntimeWarning)
        return self

    def __exit__(self, *exc):
        return self._w.__exit__(*exc)


def _harden_setgen(original, params, bg, knowledge, original_path, output, rounds, bands, size, progress, note):
    from semtui.families.common import FileSources, Request

    fam = _family("setgen")
    p = {"utility": "all", "sizes": "3-6", "seed": 0, "unmarked": False, **params}
    request = fam.prepare(original, p, FileSources(original), original_path=original_path, output=output, note=note)
    progress(0, 1, "the plain anonymiser")
    plain = fam.anonymise(request)
    names = list(original.vocab.items)
    log_prior, vectors = knowledge_profiles(bg, names)
    user = request.inputs["utility"]
    user_of = {x: 0 for x in names} if user is None else {x: i for i, c in enumerate(user) for x in c}
    classes = exchangeable_classes(names, log_prior, vectors, user, bands, size)
    plain_suppressed = set(plain.result.suppressed)

    def anonymise(cls):
        req = Request("setgen", original, p, request.original_path, request.output,
                      inputs={**request.inputs, "utility": cls}, jobs=request.jobs)
        return fam.anonymise(req)

    progress(0, 1, "anonymising within exchangeable classes")
    made = anonymise(classes)
    bgspec = str(original_path) if knowledge == SELF else knowledge
    k = int(p["k"])
    rounds_doc = []
    best = made
    best_classes = classes
    rep = _attack(_published(fam, made, output), original, bg, bgspec, k, lean=True, progress=progress)
    best_auc = None if rep is None else (rep.metrics or {}).get("auc_within_table")
    # the loop's utility guard: the bound, pair supports off by at most UTILITY_BOUND x the plain's
    plain_err = support_errors(original, plain.data)["pair_support_error"]
    budget = None if plain_err is None else UTILITY_BOUND * plain_err
    rounds_doc.append({"round": 0, "auc_within_table": best_auc, "moved": 0, "kept": True,
                       "pair_support_error": support_errors(original, made.data)["pair_support_error"],
                       "suppressed_items": len(made.result.suppressed)})
    for r in range(1, max(int(rounds), 0) + 1):
        if rep is None:
            break
        cls, moves = regroup(best_classes, user_of, rep.groups, SEPARATED)
        if not moves:
            rounds_doc.append({"round": r, "auc_within_table": None, "moved": 0, "kept": False,
                               "why": "the attack separates no member that a better-matched class could take"})
            break
        progress(r, rounds, "attack in the loop: regrouping the members the attack separates")
        cand = anonymise(cls)
        crep = _attack(_published(fam, cand, output), original, bg, bgspec, k, lean=True, progress=progress)
        auc = None if crep is None else (crep.metrics or {}).get("auc_within_table")
        cand_err = support_errors(original, cand.data)["pair_support_error"]
        kept = auc is not None and (best_auc is None or auc < best_auc) and \
            (cand_err is None or budget is None or cand_err <= budget)
        rounds_doc.append({"round": r, "auc_within_table": auc, "moved": len(moves), "kept": kept,
                           "pair_support_error": cand_err, "suppressed_items": len(cand.result.suppressed),
                           "moves": moves[:50]})
        if not kept:
            break
        best, best_classes, best_auc, rep = cand, cls, auc, crep
    made = best
    method = {"name": "exchangeable classes + attack in the loop", "bands": bands, "class_size": size,
              "rounds": rounds, "rounds_kept": sum(1 for d in rounds_doc[1:] if d["kept"]),
              "separated_z": SEPARATED, "knowledge": knowledge,
              "command": _harden_command("setgen", SetgenHardening().own_options(p), p["k"], knowledge,
                                         original_path, output)}
    ucons = {"given": str(p.get("utility", "all")), "honoured": True, "classes": len(best_classes),
             "note": "every class lies inside one utility constraint given: no generalised item crosses one",
             "relaxed": [],
             "suppressed_beyond_plain": sorted(set(made.result.suppressed) - plain_suppressed)}
    return made, plain, rounds_doc, method, ucons, None


class SetgenHardening:
    """Set generalisation: COAT within exchangeable classes, attack in the loop."""

    name = "setgen"
    #: the options of ``semtui harden`` that belong to this family
    options = ("--privacy", "--random-privacy", "--sizes", "--seed", "--utility")

    def make(self, original, params, bg, knowledge, original_path, output, *, hierarchy=None, rounds, bands, size,
             progress, note) -> Made:
        return Made(*_harden_setgen(original, params, bg, knowledge, original_path, output, rounds, bands, size,
                                    progress, note))

    #: what no attack of its proof models
    not_modelled = NOT_MODELLED
    #: its release has a sidecar (as anonymize writes it)
    sidecar = True

    def prove(self, out: Made, **how) -> list[ReleaseProof]:
        """The hardened and the plain release, checked and attacked alike (:func:`prove_generalised`)."""
        return prove_generalised(out, hardening=self, **how)

    def hardened(self, original, params, bg, knowledge, original_path, output, *, progress):
        """The hardened release alone (no proof) and its ``semtui harden`` command."""
        out = self.make(original, params, bg, knowledge, original_path, output, rounds=DEFAULT_ROUNDS,
                        bands=DEFAULT_BANDS, size=DEFAULT_CLASS_SIZE, progress=progress, note=None)
        return out.made, out.method["command"]

    def own_options(self, p: dict) -> list[str]:
        out = [f"--privacy {_q(p['privacy'])}"] if p.get("privacy") else \
            [f"--random-privacy {p['random_privacy']} --sizes {p.get('sizes', '3-6')} --seed {p.get('seed', 0)}"]
        if str(p.get("utility", "all")) != "all":
            out.append(f"--utility {_q(p['utility'])}")
        return out

    def plain_command(self, params: dict, original_path, name: str) -> str:
        p = {"utility": "all", "sizes": "3-6", "seed": 0, "unmarked": False, **params}
        return _family(self.name).command(p, original_path, name)

    def mark_sidecar(self, made, method: dict, ucons: dict, knowledge: str) -> None:
        made.sidecar["harden"] = {"report_format": REPORT_FORMAT, "knowledge": knowledge,
                                  "classes": ucons.get("classes"), "rounds_kept": method.get("rounds_kept")}

    def built_hierarchy(self, output, hierarchy) -> Path | None:
        return None

    def outputs(self, done: Hardened, *, output, sidecar, hierarchy_path, knowledge, key=None) -> list[tuple]:
        """What the CLI writes, as ``anonymize setgen`` does: the release and its private sidecar
        (it names the privacy constraints: 0600)."""
        from semtui.formats.text import dump_setgen

        made = done.made
        return [(output, lambda fh: dump_setgen(made.released, fh, output), False), (sidecar, made.sidecar, True)]


