"""``semtui harden``: a release whose generalised items the strongest attacker cannot read
(issue 37; ALGORITHMS.md §9), and the proof, run by the attack itself.

The attacker of ALGORITHMS.md §7 ranks the members of a generalised item in a row by how likely
each is original given what it knows: how common it is (the prior) and what it goes with (its
co-occurrence with the row's plain and generalised context).  A group whose members are alike in
exactly those respects leaves it a coin toss.  Hardening chooses the groups so:

* **set generalisation** (:func:`harden`, family ``setgen``): COAT (the same anonymiser
  ``anonymize setgen`` runs, :mod:`semtui.families.setgen`) generalises only within *exchangeable
  classes* (:func:`exchangeable_classes`), its utility constraints: the items of each utility
  constraint the user gave are split into bands of prior (quantiles of log P(x) in the attacker's
  knowledge) and, within a band, cut along a nearest-neighbour chain of their co-occurrence
  profiles (P(c | x) over the commonest items, :func:`semtui.measures.order.profile_vectors`).  Then
  **attack in the loop**: the release is attacked by :func:`semtui.attacks.setgen.run_setgen_attack`
  (the code ``attack setgen --background`` runs, with the knowledge hardened against), the members
  whose posterior stands out in their groups (the mean within-row z-score of their surprisal at or
  beyond :data:`SEPARATED`) move to the class of their user constraint whose members the attack
  scores most alike, and the new release is kept only while the attack's AUC within table falls
  (and its pair-support error stays within :data:`UTILITY_BOUND` times the plain release's);
* **k^m** (family ``km``): without a hierarchy, one whose siblings are alike to the attacker
  (decreasing prior, then a profile chain within each window of fanout² leaves:
  :func:`semtui.measures.order.profile_order`), then the same k^m anonymiser.

The same k, m and privacy constraints as the plain anonymiser: the release passes the same
independent checker (``check privacy``, ``check km``), and a hardened set-generalised release never
crosses a utility constraint the user gave (its classes lie inside them: none is relaxed).  Where a
class is too narrow to lift a privacy constraint to k, COAT suppresses the constraint's least
supported item, as it always does; the report lists the items suppressed beyond the plain release's,
and the utility axis counts their supports as lost.  (Merging such classes with their neighbours
until nothing more is suppressed was tried and undid the hardening: on the MEPS half it merged 37
times, down to 17 classes, and left the strongest attack where the plain release had it.)

**The proof** (:class:`HardenReport`, ``semtui-harden-report/1``): the hardened release and the plain
anonymiser's at the same parameters are each attacked by the strongest attacker with the knowledge
given and with the original's own statistics (``self``), with bootstrap intervals, error ratio, AUC
within table, recall, and the ``semtui`` commands that reproduce each figure; and one utility axis
for both (:func:`support_errors`).  Nothing is called safe: a release is *at chance against the
attackers modelled* (:data:`CHANCE_AUC`, :data:`CHANCE_ERROR_RATIO`), and the report lists what was
not modelled.

Where it sits: above the families (it anonymises through them) and the attacks, below ``assess``
and the faces; it writes nothing (the CLI writes the release, its sidecar and the report).
"""

from __future__ import annotations

import gc
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from semtui.errors import InputError
from semtui.model import TransactionData
from semtui.reports import Report, json_float

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

    @property
    def at_chance(self) -> bool:
        return bool(self.hardened.attacks) and all(a.at_chance for a in self.hardened.attacks)

    def verdict(self) -> str:
        """One line from the figures: never "safe"."""
        worst = max(self.hardened.attacks, key=lambda a: (a.auc_within_table or 0.0))
        base = max(self.plain.attacks, key=lambda a: (a.auc_within_table or 0.0))
        pe = self.hardened.utility.get("pair_support_error")
        ppe = self.plain.utility.get("pair_support_error")
        cost = ("" if pe is None or ppe is None else
                f"; pair supports off by {pe:.1%} where the plain release is off by {ppe:.1%}")
        if self.at_chance:
            return (f"at chance against the attackers modelled (AUC within table {worst.auc_within_table:.3f}, "
                    f"error ratio {_fmt(worst.error_ratio)} at worst; the plain release: "
                    f"{_fmt(base.auc_within_table, 3)}, {_fmt(base.error_ratio)}){cost}")
        return (f"not at chance: the strongest attack ({worst.knowledge} knowledge) has AUC within table "
                f"{_fmt(worst.auc_within_table, 3)} and error ratio {_fmt(worst.error_ratio)} (chance: AUC <= "
                f"{CHANCE_AUC}, error ratio >= {CHANCE_ERROR_RATIO}) and takes back {_pct(worst.recall)} of the added "
                f"items{_more(worst)}; on the plain release {_fmt(base.auc_within_table, 3)}, "
                f"{_fmt(base.error_ratio)}, {_pct(base.recall)}{cost}")

    def payload(self) -> dict:
        return {"family": self.family, "params": self.params, "knowledge": self.knowledge,
                "original": self.original, "output": self.output, "verdict": self.verdict(),
                "at_chance": self.at_chance,
                "chance": {"auc_within_table_at_most": CHANCE_AUC, "error_ratio_at_least": CHANCE_ERROR_RATIO},
                "hardened": self.hardened.to_json(), "plain": self.plain.to_json(), "method": self.method,
                "rounds": self.rounds, "utility_constraints": self.utility_constraints,
                "not_modelled": list(self.not_modelled), "seconds": json_float(self.seconds, 3)}


def _more(a: AttackFigures) -> str:
    """The side-by-side table that takes back more than the strongest attack's chosen one, in words."""
    mt = a.most_taken
    if not mt or a.recall is None or mt["recall"] <= a.recall:
        return ""
    return (f" (its {mt['knowledge_table']} table alone takes back {_pct(mt['recall'])} at error ratio "
            f"{_fmt(mt['error_ratio'])})")


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


def regroup(classes: list[list[str]], user_of: dict[str, int], groups: list[dict],
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


def _levels(groups: list[dict]) -> tuple[dict[str, float], dict[str, float]]:
    """Each scored member's mean surprisal in its group's table and its mean within-row z-score."""
    level: dict[str, float] = {}
    z_of: dict[str, float] = {}
    for g in groups:
        t = np.array(g["table"], dtype=np.float64)
        if t.size == 0 or t.shape[1] < 2:
            continue
        with np.errstate(invalid="ignore", divide="ignore"), _quiet():
            mu = np.nanmean(t, axis=1, keepdims=True)
            sd = np.nanstd(t, axis=1, keepdims=True)
            z = np.where(sd > 0, (t - mu) / np.where(sd > 0, sd, 1.0), 0.0)
            mz = np.nanmean(z, axis=0)
            ml = np.nanmean(t, axis=0)
        for j, x in enumerate(g["members"]):
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


# --------------------------------------------------------------------------- the utility axis
def release_weights(original: TransactionData, release: TransactionData):
    """transactions x the original's items: 1 for an item published plainly, 1/|g| for each member of
    a generalised item g the transaction holds (its support spread uniformly over its members), 0
    for an item not published (suppressed).  CSR."""
    from scipy.sparse import csr_matrix

    index = {name: i for i, name in enumerate(original.vocab.items)}
    to_orig = np.fromiter((index.get(x, -1) for x in release.vocab.items), dtype=np.int64, count=len(release.vocab))
    tokens = release.tokens.astype(np.int64)
    rows = np.repeat(np.arange(release.n_transactions, dtype=np.int64), np.diff(release.indptr))
    gen = tokens < 0
    g = -tokens[gen] - 1
    sizes = np.diff(release.gen_indptr).astype(np.int64)
    counts = sizes[g]
    g_rows = np.repeat(rows[gen], counts)
    starts = np.repeat(release.gen_indptr[:-1][g].astype(np.int64), counts)
    offs = np.arange(int(counts.sum()), dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)
    g_items = to_orig[release.gen_members[starts + offs].astype(np.int64)]
    r = np.concatenate([rows[~gen], g_rows])
    c = np.concatenate([to_orig[tokens[~gen]], g_items])
    w = np.concatenate([np.ones(int((~gen).sum())), 1.0 / np.repeat(counts, counts).astype(np.float64)])
    keep = c >= 0
    m = csr_matrix((w[keep], (r[keep], c[keep])), shape=(release.n_transactions, len(original.vocab)))
    m.sum_duplicates()
    m.data = np.minimum(m.data, 1.0)
    return m


def support_errors(original: TransactionData, release: TransactionData, top: int = TOP_SUPPORTS) -> dict:
    """The utility axis of every family (issue 37): the mean relative error of the supports of the
    original's ``top`` most frequent items and ``top`` most frequent pairs as the release answers
    them under uniform reconstruction (:func:`release_weights`; a pair's expected support is the
    sum over transactions of the product of its items' weights; a suppressed item answers 0, a
    relative error of 1)."""
    x = original.incidence().tocsc().astype(np.float64)
    w = release_weights(original, release).tocsc()
    df = np.asarray(x.sum(axis=0)).ravel()
    items = np.argsort(-df, kind="stable")[:top]
    items = items[df[items] > 0]
    est = np.asarray(w.sum(axis=0)).ravel()
    item_err = np.abs(est[items] - df[items]) / df[items]
    # the most frequent pairs: among pairs of the most frequent items (a pair's support is at most
    # either item's, so the top pairs lie among the items above the top-th pair's support)
    cand = np.argsort(-df, kind="stable")[:min(len(df), max(2 * int(np.sqrt(2 * top)) + 50, 200))]
    co = np.asarray((x[:, cand].T @ x[:, cand]).todense())
    iu = np.triu_indices(len(cand), 1)
    vals = co[iu]
    order = np.argsort(-vals, kind="stable")[:top]
    order = order[vals[order] > 0]
    a, b = cand[iu[0][order]], cand[iu[1][order]]
    true = vals[order]
    pair_est = np.asarray(w[:, a].multiply(w[:, b]).sum(axis=0)).ravel() if len(a) else np.zeros(0)
    pair_err = np.abs(pair_est - true) / true
    return {"item_support_error": json_float(float(item_err.mean())) if len(item_err) else None,
            "pair_support_error": json_float(float(pair_err.mean())) if len(pair_err) else None,
            "items_measured": len(items), "pairs_measured": len(true),
            "pair_support_error_median": json_float(float(np.median(pair_err))) if len(pair_err) else None}


# --------------------------------------------------------------------------- the attacks
def _attack(release: TransactionData, original: TransactionData, bg, spec: str, k: int, *, lean: bool = False,
            progress=None):
    """The strongest attack with knowledge ``bg`` (the loaded background named ``spec``): the default
    of ``attack setgen --background`` (``auto``: the stronger of PBA and TBA on the combined table,
    the embedding measure).  ``lean``: inside the loop only the AUC within table and the tables are
    read, so PBA alone, no baseline draws, no intervals (the same code, fewer figures)."""
    from semtui.attacks.setgen import AttackOptions, run_setgen_attack

    if not release.n_generalised:  # nothing generalised: no elimination attack applies (nothing added)
        return None
    opts = AttackOptions(background=spec, k=k)
    if lean:
        opts = opts.replace(method="pba", baseline_draws=0, resamples=0)
    return run_setgen_attack(release, original, opts, background=bg, progress=progress)


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


# --------------------------------------------------------------------------- hardening
def harden(original: TransactionData, *, family: str, params: dict, knowledge: str = SELF,
           original_path, output, hierarchy=None, rounds: int = DEFAULT_ROUNDS, bands: int = DEFAULT_BANDS,
           size: int = DEFAULT_CLASS_SIZE, progress=None, note=None) -> Hardened:
    """Harden ``original`` (see the module docstring).  ``params``: the family's parameters as
    ``anonymize`` takes them (setgen: k, privacy or random_privacy/sizes/seed, utility; km: k, m,
    algorithm, hierarchy (a path, read as ``hierarchy``) or none); ``knowledge``: ``self`` or a
    background spec; ``note``: called with what a face warns about."""
    from semtui.runtime import no_progress

    hardening = hardening_of(family)
    progress = progress or no_progress
    started = time.perf_counter()
    progress(0, 1, "reading the knowledge")
    bg = load_knowledge(knowledge, original, original_path)
    out = make(original, family=family, params=params, bg=bg, knowledge=knowledge, original_path=original_path,
               output=output, hierarchy=hierarchy, rounds=rounds, bands=bands, size=size, progress=progress, note=note)
    self_bg = bg if knowledge == SELF else None
    made, plain, rounds_doc, method, ucons, hier = out.made, out.plain, out.rounds, out.method, out.utility, out.hierarchy
    progress(0, 1, "the proof: attacking the hardened and the plain release")
    if self_bg is None:
        from semtui.attacks.background import Background

        self_bg = Background.from_transactions(original, str(original_path))
    proofs = []
    fam = _family(family)
    plain_out = _plain_name(output)
    for label, m, name in (("hardened", made, str(output)), ("plain", plain, plain_out)):
        pub = fam.publish(m, name)
        rel = pub.release
        check = fam.check(rel, m)
        attacks = []
        for kn, b in ([(knowledge, bg)] + ([] if knowledge == SELF else [(SELF, self_bg)])):
            bgfile = str(original_path) if kn == SELF else kn
            rep = _attack(rel, original, b, bgfile, int(params["k"]), progress=progress)
            cmd = f"semtui attack setgen {_q(name)} --original {_q(original_path)} --background {_q(bgfile)}"
            attacks.append(_figures(rep, kn, bgfile, cmd))
            del rep  # a k^m release's report holds large tables: let them go before the next attack
            gc.collect()
        utility = {**support_errors(original, rel), **_own_utility(fam, original, rel, m)}
        how = method["command"] if label == "hardened" else hardening.plain_command(params, original_path, name)
        proofs.append(ReleaseProof(label, how, check, attacks, utility))
    report = HardenReport(family, _params_doc(params), knowledge, str(original_path), str(output),
                          proofs[0], proofs[1], method, rounds_doc, ucons, time.perf_counter() - started)
    hardening.mark_sidecar(made, method, ucons, knowledge)
    return Hardened(made, report, hierarchy=hier)


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


def make(original: TransactionData, *, family: str, params: dict, bg, knowledge: str = SELF, original_path,
         output, hierarchy=None, rounds: int = DEFAULT_ROUNDS, bands: int = DEFAULT_BANDS,
         size: int = DEFAULT_CLASS_SIZE, progress=None, note=None) -> Made:
    """The hardened release and the plain anonymiser's at the same parameters, without the proof
    (``bg``: the knowledge, :func:`load_knowledge`)."""
    from semtui.runtime import no_progress

    return hardening_of(family).make(original, params, bg, knowledge, original_path, output, hierarchy=hierarchy,
                                     rounds=rounds, bands=bands, size=size, progress=progress or no_progress,
                                     note=note)


def _family(name: str):
    from semtui.families import FAMILIES

    return FAMILIES[name]


def _plain_name(output) -> str:
    p = Path(str(output))
    return str(p.with_name(p.stem + ".plain" + (p.suffix or ".txt")))


def _params_doc(params: dict) -> dict:
    return {k: (str(v) if isinstance(v, Path) else v) for k, v in params.items() if v is not None}


def _own_utility(fam, original, release, made) -> dict:
    u = fam.utility(original, release)
    keep = ("ncp", "ul", "exact_share", "suppressed_occurrences", "added_items", "generalised_items")
    out = {k: u.get(k) for k in keep}
    if made.result is not None and hasattr(made.result, "suppressed"):
        out["suppressed_items"] = len(made.result.suppressed)
    if made.figures.get("ncp_hierarchy") is not None:
        out["ncp_hierarchy"] = made.figures["ncp_hierarchy"]
    return out


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


def _published(fam, made, output):
    """The release as written and read back (what the attack command reads)."""
    return fam.publish(made, str(output)).release


def _harden_km(original, params, bg, knowledge, original_path, output, hierarchy, progress):
    from semtui.families.common import FileSources
    from semtui.measures.order import profile_order
    from semtui.model.hierarchy import balanced

    fam = _family("km")
    p = {"algorithm": "aa", **params}
    fanout = int(p.pop("fanout", 5) or 5)
    if hierarchy is not None:
        h = hierarchy
        built = False
    else:
        names = sorted(original.vocab.items, key=_id_key)
        log_prior, vectors = knowledge_profiles(bg, names)
        order = profile_order(log_prior, vectors, window=fanout * fanout)
        h = balanced([names[i] for i in order], fanout)
        built = True
    request = fam.prepare(original, {**p, "hierarchy": p.get("hierarchy") or "(built)"},
                          FileSources(original, given_hierarchy=h), original_path=original_path, output=output)
    progress(0, 1, "k^m over the hardened hierarchy")
    made = fam.anonymise(request)
    # the plain anonymiser: the hierarchy given, else one in id order (hierarchy build's default)
    if built:
        from semtui.measures.order import ordered_leaves

        ph = balanced(ordered_leaves(original, "id"), fanout)
    else:
        ph = h
    preq = fam.prepare(original, {**p, "hierarchy": p.get("hierarchy") or "(id order)"},
                       FileSources(original, given_hierarchy=ph), original_path=original_path,
                       output=_plain_name(output))
    progress(0, 1, "the plain k^m anonymiser")
    plain = fam.anonymise(preq)
    if built:  # the plain release's reproducing command builds its own id-ordered hierarchy
        plain.request.params.pop("hierarchy", None)
        plain.request.params.update(fanout=fanout, order="id")
    hpath = _hierarchy_path(output) if built else str(p.get("hierarchy"))
    method = {"name": "hierarchy of exchangeable siblings" if built else "the hierarchy given",
              "fanout": fanout if built else None, "knowledge": knowledge,
              "order": "decreasing prior, then a co-occurrence-profile chain within each window of fanout² leaves"
              if built else None, "hierarchy_file": hpath,
              "command": _harden_command("km", KmHardening().own_options(p), p["k"], knowledge, original_path,
                                         output)}
    ucons = {"given": None, "honoured": True, "note": "k^m has no utility constraints; the hierarchy is "
             + ("built by harden and written beside the release" if built else "the one given")}
    rounds_doc = [{"round": 0, "note": "k^m: the hierarchy is chosen once; no attack-in-the-loop regrouping"}]
    return made, plain, rounds_doc, method, ucons, (h if built else None)


def _hierarchy_path(output) -> str:
    return str(Path(str(output)).with_suffix("")) + ".hierarchy.txt"


def _id_key(x: str):
    try:
        return (0, int(x), "")
    except ValueError:
        return (1, 0, x)


def _harden_command(family: str, own: list[str], k, knowledge, original_path, output) -> str:
    """The ``semtui harden`` command that makes this release (``own``: the family's options, given)."""
    bits = [f"semtui harden {_q(original_path)} --family {family} -k {k}", *own]
    if knowledge != SELF:
        bits.append(f"--knowledge {_q(knowledge)}")
    bits.append(f"-o {_q(output)}")
    return " ".join(bits)


# --------------------------------------------------------------------------- what differs by family
class SetgenHardening:
    """Set generalisation: COAT within exchangeable classes, attack in the loop."""

    name = "setgen"
    #: the options of ``semtui harden`` that belong to this family
    options = ("--privacy", "--random-privacy", "--sizes", "--seed", "--utility")

    def make(self, original, params, bg, knowledge, original_path, output, *, hierarchy=None, rounds, bands, size,
             progress, note) -> Made:
        return Made(*_harden_setgen(original, params, bg, knowledge, original_path, output, rounds, bands, size,
                                    progress, note))

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

    def outputs(self, done: Hardened, *, output, sidecar, hierarchy_path, knowledge) -> list[tuple]:
        """What the CLI writes, as ``anonymize setgen`` does: the release and its private sidecar
        (it names the privacy constraints: 0600)."""
        from semtui.formats.text import dump_setgen

        made = done.made
        return [(output, lambda fh: dump_setgen(made.released, fh, output), False), (sidecar, made.sidecar, True)]


class KmHardening:
    """k^m: a hierarchy of exchangeable siblings, then the same k^m anonymiser."""

    name = "km"
    options = ("-m", "--hierarchy", "--algorithm")

    def make(self, original, params, bg, knowledge, original_path, output, *, hierarchy=None, rounds, bands, size,
             progress, note) -> Made:
        return Made(*_harden_km(original, params, bg, knowledge, original_path, output, hierarchy, progress))

    def own_options(self, p: dict) -> list[str]:
        out = [f"-m {p['m']}"]
        if p.get("hierarchy"):
            out.append(f"--hierarchy {_q(p['hierarchy'])}")
        if p.get("algorithm", "aa") != "aa":
            out.append(f"--algorithm {p['algorithm']}")
        return out

    def plain_command(self, params: dict, original_path, name: str) -> str:
        p = {"algorithm": "aa", **params}
        if not p.get("hierarchy"):  # the plain anonymiser's hierarchy: hierarchy build's default order
            p.update(fanout=p.get("fanout", 5), order="id")
        # as leaf lists: the text the proof attacked
        return _family(self.name).command(p, original_path, name) + " --release-format leaves"

    def mark_sidecar(self, made, method: dict, ucons: dict, knowledge: str) -> None:
        return None  # the k^m report is written by the face (outputs), which marks it

    def built_hierarchy(self, output, hierarchy) -> Path | None:
        """Where a hierarchy harden builds is written (None: one was given)."""
        return Path(_hierarchy_path(output)) if hierarchy is None else None

    def outputs(self, done: Hardened, *, output, sidecar, hierarchy_path, knowledge) -> list[tuple]:
        """What the CLI writes, as ``anonymize km --release-format leaves`` does: the release as leaf
        lists (the text the proof attacked), its report (the sidecar), and a built hierarchy."""
        from semtui.formats.hierarchy import dump_hierarchy

        fam, made = _family(self.name), done.made
        built = done.hierarchy is not None
        side_doc = fam.report(made, hierarchy_path=hierarchy_path, written="leaves", output=output)
        side_doc["harden"] = {"report_format": REPORT_FORMAT, "knowledge": knowledge, "hierarchy_built": built}
        out = [(output, fam.writer(made, side_doc, "leaves", output)), (sidecar, side_doc)]
        if built:
            out.append((hierarchy_path, lambda fh: dump_hierarchy(done.hierarchy, fh, hierarchy_path)))
        return out


#: the families harden builds, by name (disassociation is not built yet: :data:`NOT_BUILT`)
HARDENINGS = {h.name: h for h in (SetgenHardening(), KmHardening())}
HARDENED_FAMILIES = tuple(HARDENINGS)
NOT_BUILT = {"disassoc": "disassoc is not built yet: hardening disassociation (REFINE made safe, issue 37) is to come; "
                         "harden builds setgen and km"}


def hardening_of(family: str):
    """The family's hardening; a family harden does not build is refused in one line."""
    if family in NOT_BUILT:
        raise InputError(NOT_BUILT[family], option="family")
    try:
        return HARDENINGS[family]
    except KeyError:
        raise InputError(f"unknown --family {family!r} (choose from {', '.join(HARDENINGS)})",
                         option="family") from None
