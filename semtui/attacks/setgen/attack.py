"""The semantic attack on set-generalised transactions over a whole release (Shao & Ong, ACM
TOIT 2017; Ong's thesis, ch. 3-5): plan -> score -> per-group kernel -> merge.

* **plan**: the contexts of every equivalence group (:mod:`.tables`) and, with the original,
  which member cells are original (the ground truth);
* **score**: one batched call to the measure, every member against every context item of the
  dataset (the measure reports progress and can be cancelled);
* **kernel** (:mod:`.kernel`): per group, the distance table, the eliminator, the group's
  metrics; run serially or in worker processes by :func:`semtui.runtime.run_units`;
* **merge**: the dataset-wide figures of :mod:`semtui.metrics.elimination`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from semtui.attacks.background import Background
from semtui.attacks.setgen.kernel import GroupOutcome, GroupUnit, Shared, attack_group
from semtui.attacks.setgen.knowledge import VARIANT_HELP, VARIANTS, build_knowledge
from semtui.attacks.setgen.options import AUTO_METHODS, AttackOptions
from semtui.attacks.setgen.tables import contexts_for_group, generalised_contexts
from semtui.errors import InputError
from semtui.measures.base import Measure
from semtui.metrics import elimination as em
from semtui.metrics.intervals import no_interval_reason
from semtui.model import TransactionBuilder, TransactionData
from semtui.reports import Report, json_float
from semtui.runtime import ProgressCallback, no_progress, run_units

REPORT_FORMAT = "semtui-setgen-report/1"

#: The papers' tables have at most this many members; the metrics are also given apart for
#: tables of up to this size and for larger ones.
PAPER_TABLE_MEMBERS = 16


# --------------------------------------------------------------------------- the report
@dataclass
class SetgenAttackReport(Report):
    """What one attack did to a release, and, with the original, what it took back."""

    FORMAT = REPORT_FORMAT

    options: AttackOptions
    measure_name: str
    measure_kind: str
    k: int
    k_source: str
    unknown_terms: list[str]
    summary: dict
    privacy: dict
    groups: list[dict]
    metrics: dict | None = None
    data: str | None = None
    original: str | None = None
    extra: dict = field(default_factory=dict)
    #: an unmarked release: how its generalised items were recovered, and the release as recovered
    recovery: dict | None = None
    recovered: TransactionData | None = field(default=None, repr=False)
    #: what the attacker knew besides the measure (``--background``), None for the papers' attack
    background: dict | None = None
    #: with the default method under a background (``auto``): the methods tried and why one was
    #: chosen (:func:`choose_method`); ``options.method`` is the one chosen
    method_choice: dict | None = None

    def payload(self) -> dict:
        o = self.options
        out = {
            "method": o.method,
            "method_choice": self.method_choice,
            "background": self.background,
            "knowledge": o.knowledge,
            "evidence": o.evidence if o.background else None,
            "measure": self.measure_name,
            "measure_kind": self.measure_kind,
            "context": o.context,
            "aggregate": o.aggregate,
            "threshold": o.threshold,
            "seed": o.seed,
            "k": self.k,
            "k_source": self.k_source,
            "unknown_terms": self.unknown_terms,
            "summary": self.summary,
            "privacy": self.privacy,
            "groups": self.groups,
        }
        if self.metrics is not None:
            out["metrics"] = self.metrics
        out["data"] = self.data
        out["original"] = self.original
        if self.recovery is not None:
            out["unmarked"] = self.recovery
        return out


# --------------------------------------------------------------------------- exposure's k
def release_k(data_path: str | Path | None) -> int | None:
    """The k a set-generalised release was made for, from its sidecar ``DATA.json`` when there
    is one (what ``semtui anonymize setgen`` writes, or the report ``anonymize km`` writes:
    semtui.model.sidecar); the release was opened, and its sidecar checked, by
    :func:`semtui.release.open_release`."""
    from semtui.model.sidecar import read_release_sidecar

    doc, _ = read_release_sidecar(data_path)
    return None if doc is None else int(doc["k"])


# --------------------------------------------------------------------------- the attack
def run_setgen_attack(
    data: TransactionData,
    original: TransactionData | None = None,
    options: AttackOptions | None = None,
    *,
    measure: Measure | None = None,
    background: Background | None = None,
    progress: ProgressCallback | None = None,
    data_path: str | Path | None = None,
    original_path: str | Path | None = None,
    write_up: bool = True,
) -> SetgenAttackReport:
    """Attack every equivalence group of ``data``.

    ``measure`` overrides the one ``options.measure`` names (an opened measure, e.g. in tests);
    ``background`` the one ``options.background`` names (a loaded one, e.g. in a benchmark that
    attacks several releases with the same knowledge).
    Exposure is judged against ``options.k``, else the k of the release's sidecar, else the
    smallest group size (the least cover the release offers).  ``progress(done, total,
    message)`` may raise ``Interrupted`` to cancel.  ``write_up=False``: the figures only, every
    group's entry left empty (its table, rows and eliminations: most of a large release's time
    after the eliminator), for callers that read only the figures (an assessment's alternatives).
    """
    from semtui.measures import open_measure

    options = options or AttackOptions()
    progress = progress or no_progress
    started = time.perf_counter()
    if options.k is not None:
        known_k, known_source = int(options.k), "option"
    elif (side_k := release_k(data_path)) is not None:
        known_k, known_source = side_k, "sidecar"
    else:
        known_k, known_source = None, None
    recovery = None
    if options.unmarked:
        if data.n_generalised:
            raise InputError("the release marks its generalised items; --unmarked is for a release that "
                             "writes them as plain items", data_path, option="unmarked")
        from semtui.attacks.setgen.unknown import read_sidecar, recover

        sidecar, side_path = read_sidecar(data_path)
        progress(0, 1, "recovering generalised items")
        recovery = recover(data, known_k, known_source or "unknown: the thesis' rule only", sidecar=sidecar,
                           sidecar_path=side_path, original=original, original_path=original_path)
        data = recovery.data
    elif data.n_generalised == 0:
        raise InputError("the dataset has no generalised items to attack (an unmarked release? try --unmarked)",
                         data_path)
    if measure is None:
        measure = open_measure(options.measure, vectors=options.vectors, cache=options.cache)
    if background is None and options.background is not None:
        from semtui.attacks.background import load_background

        progress(0, 1, "reading the background")
        background = load_background(options.background)
    if background is not None and data.n_generalised:
        members = data.vocab.names(np.unique(data.gen_members))
        if not background.known(members).any():
            # every member would get the same prior and no lift: nothing is eliminated, which would
            # read as "took back none" -- an all-clear from what is most likely the wrong file
            raise InputError(f"the background knows none of the release's {len(members)} generalised items' "
                             "members (another population or vocabulary?): it could not inform the attack",
                             background.source, option="background")
    sizes = data.group_sizes()
    if known_k is not None:
        k, k_source = known_k, known_source
    elif len(sizes):
        k, k_source = int(sizes.min()), "smallest group size"
    else:
        k, k_source = 2, "no group recovered"

    # 1. plan: contexts of every group, and the ground truth
    units = _plan(data, original, options, progress, original_path)

    # 2. score: one batched call to the measure
    vocab = data.vocab
    member_ids = np.unique(data.gen_members)
    ctx_ids = np.unique(np.concatenate([u.ctx_items for u in units] + [np.zeros(0, dtype=np.int32)]))
    unknown = sorted(set(measure.unknown(vocab.names(np.union1d(member_ids, ctx_ids)))))
    if len(member_ids) and len(ctx_ids):
        dist = np.asarray(measure.distances(vocab.names(member_ids), vocab.names(ctx_ids), progress), dtype=np.float64)
    else:
        dist = np.zeros((len(member_ids), len(ctx_ids)))
    unknown_set = set(unknown)
    ctx_known = np.array([vocab[i] not in unknown_set for i in ctx_ids], dtype=bool) & ~np.all(np.isnan(dist), axis=0) \
        if len(ctx_ids) else np.zeros(0, dtype=bool)
    member_pos = np.full(len(vocab), -1, dtype=np.int64)
    member_pos[member_ids] = np.arange(len(member_ids))
    ctx_pos = np.full(len(vocab), -1, dtype=np.int64)
    ctx_pos[ctx_ids] = np.arange(len(ctx_ids))
    capped = measure.capped(dist) if dist.size else None
    knowledge = None
    if background is not None:
        progress(0, 1, "priors and co-occurrence")
        knowledge = build_knowledge(background, data, member_ids, ctx_ids, options.evidence)
    shared = Shared(vocab.items, dist, member_pos, ctx_pos, ctx_known, options.method, options.threshold,
                    options.seed, options.aggregate_spec, k, options.baseline_draws if original is not None else 0,
                    None if capped is None or not capped.any() else np.asarray(capped, dtype=bool),
                    knowledge, options.knowledge or "semantics",
                    VARIANTS if knowledge is not None and original is not None else (), write_up)

    # 3. the per-group kernel, serially or in worker processes
    outcomes: list[GroupOutcome] = run_units(attack_group, shared, units, jobs=options.jobs,
                                             costs=[u.cost for u in units], progress=progress, message="attacking",
                                             scheduler=options.scheduler)

    # 4. merge (with ``auto``: first the choice of method, over the whole release)
    method_choice = None
    if options.method == "auto":
        outcomes, method_choice = choose_method(outcomes, options)
        options = options.replace(method=method_choice["chosen"])
    n_groups = data.n_generalised
    summary = {
        "transactions": data.n_transactions,
        "groups": n_groups,
        "rows": int(sizes.sum()),
        "attacked_rows": sum(o.attacked_rows for o in outcomes),
        "skipped_rows": sum(o.skipped_rows for o in outcomes),
        "eliminations": sum(o.eliminated for o in outcomes),
    }
    summary["unscored"] = unscored_rows(units, summary["skipped_rows"], background is not None)
    if shared.capped is not None:
        summary["capped_eliminations"] = sum(o.capped_eliminated for o in outcomes)
    member_items = sum(o.n_members for o in outcomes)
    exposed = sum(o.exposed for o in outcomes)
    privacy = {
        "k": k,
        "k_source": k_source,
        "member_items": member_items,
        "exposed_items": exposed,
        "exposed_share": json_float(exposed / member_items) if member_items else None,
        "reidentified_rows": sum(o.reidentified for o in outcomes),
    }
    if original is not None:  # how many of those reductions are right (the rest name a wrong item)
        privacy["reidentified_rows_correct"] = sum(o.reidentified_correct for o in outcomes)
    metrics = merge_metrics(outcomes, options) if original is not None else None
    recovery_doc = None
    if recovery is not None:
        recovery_doc = recovery.to_json()
        cells = recovery_doc.get("cells")
        if cells is not None and metrics is not None:
            # the attack reaches only the recovered groups: its recall over every added item of the release
            cells["attack_correct"] = metrics["correct"]
            cells["attack_recall_all_added"] = json_float(metrics["correct"] / cells["added_items"]) \
                if cells["added_items"] else None
    summary["knowledge"] = knowledge_words(data, background)
    if metrics is not None and "knowledge" in metrics:
        metrics["carried_by"] = carried_by(metrics, cooccurrence=background is None or background.has_cooccurrence)
    if method_choice is not None:
        summary["method_choice"] = method_choice["line"]
    summary["seconds"] = round(time.perf_counter() - started, 4)
    return SetgenAttackReport(method_choice=method_choice,
        options=options, measure_name=options.measure if measure.name == "measure" else measure.name,
        measure_kind=getattr(measure, "kind", "distance"), k=k, k_source=k_source, unknown_terms=unknown,
        summary=summary, privacy=privacy, groups=[o.entry for o in outcomes], metrics=metrics,
        data=None if data_path is None else str(data_path),
        original=None if original_path is None else str(original_path),
        recovery=recovery_doc, recovered=None if recovery is None else recovery.data,
        background=None if background is None else background.describe())


#: Why a row of a distance table could not be scored: the attack of the papers scores members
#: against a transaction's plain items and knows nothing else (issue 20 adds priors).
NO_CONTEXT = "no plain context; no background knowledge given"
#: the same with a background whose semantics table (``--knowledge semantics``) uses none of it
NO_CONTEXT_SEMANTICS = "no plain context; the semantics table uses no background knowledge"
UNKNOWN_CONTEXT = "the measure knows none of its context items"


def unscored_rows(units, skipped: int, background: bool = False) -> dict:
    """How many rows the attack could not score, and why: the one count of them (the knowledge
    sentence says only what the attacker knew).  A row it could not score is not a row out of
    an attacker's reach: its added items count as missed, and an attacker with background
    knowledge may still take them back."""
    # with a background every row is attacked (skipped == 0), rows without plain context too
    no_context = min(skipped, int(sum(int((np.diff(u.ctx_indptr) == 0).sum()) for u in units)))
    reasons = {}
    if no_context:
        reasons[NO_CONTEXT_SEMANTICS if background else NO_CONTEXT] = no_context
    if skipped - no_context:
        reasons[UNKNOWN_CONTEXT] = skipped - no_context
    return {"rows": skipped, "reasons": reasons}


#: seconds between two progress reports while the groups are planned (a big group takes long)
PLAN_POLL = 0.05


def _plan(data: TransactionData, original: TransactionData | None, options: AttackOptions,
          progress: ProgressCallback, original_path) -> list[GroupUnit]:
    truth_csr = em.align_original(data, original)[0] if original is not None else None
    ctx = options.context_spec
    n_groups = data.n_generalised
    lines = data.lines if data.lines is not None else np.arange(1, data.n_transactions + 1)
    units = []
    last = 0.0
    for g in range(n_groups):
        now = time.monotonic()
        if now - last >= PLAN_POLL:  # a cancel takes effect here too, not only once the tables are built
            last = now
            progress(g, n_groups, "contexts")
        rows, cptr, citems = contexts_for_group(data, g, ctx)
        gptr, gitems = generalised_contexts(data, g, rows)
        members = data.members(g)
        truth = truth_csr[rows][:, members].toarray() > 0 if truth_csr is not None else None
        units.append(GroupUnit(g, members, rows, np.asarray(lines)[rows], cptr, citems, truth, gptr, gitems))
    return units


def choose_method(outcomes: list[GroupOutcome], options: AttackOptions) -> tuple[list[GroupOutcome], dict]:
    """``auto``: the method of :data:`AUTO_METHODS` that takes back more over the whole release.

    With the original, the candidate with more correct eliminations among those whose error ratio
    against the budget-matched random baseline is below 1 (with no baseline drawn, every candidate
    counts); a tie, or none beating chance: the first (PBA).  Without the original the choice
    cannot be measured: PBA, and the report says so.  Returns the chosen method's group outcomes
    and the ``method_choice`` document."""
    first = AUTO_METHODS[0]
    if not outcomes:  # nothing to attack, nothing to choose between
        return outcomes, {"candidates": None, "chosen": first, "why": "no group to attack",
                          "line": f"no group to attack: {first.upper()} named, nothing tried"}
    if not outcomes[0].candidates:
        line = (f"{' and '.join(m.upper() for m in AUTO_METHODS)} are the default's candidates; without the "
                f"original the stronger cannot be measured, so {first.upper()} is reported (give --original: "
                "a publisher has it)")
        return outcomes, {"candidates": None, "chosen": first, "why": "no original to measure the candidates on",
                          "line": line}
    by_method = {first: outcomes, **{m: [o.candidates[m] for o in outcomes] for m in AUTO_METHODS[1:]}}
    heads = {}
    for m, outs in by_method.items():
        f = _figures(outs, options.replace(method=m), intervals=True, pooled_interval=False)
        iv = f.get("intervals") or {}
        heads[m] = {"correct": f.get("correct"), "eliminated": f.get("eliminated"),
                    "precision": f.get("precision"), "recall": f.get("recall"),
                    "error_ratio": (f.get("baseline") or {}).get("error_ratio"),
                    "intervals": {k: iv[k] for k in ("precision", "recall", "baseline_precision") if k in iv}}

    def beats_chance(h: dict) -> bool:
        return not options.baseline_draws or (h["error_ratio"] is not None and h["error_ratio"] < 1.0)

    fair = [m for m in AUTO_METHODS if beats_chance(heads[m])]
    # the most correct eliminations among the fair ones; a tie goes to the earlier (PBA)
    chosen = max(fair, key=lambda m: (heads[m]["correct"] or 0, -AUTO_METHODS.index(m))) if fair else first
    names = " and ".join(m.upper() for m in AUTO_METHODS)
    rec = {m: "-" if heads[m]["recall"] is None else f"{heads[m]['recall']:.0%}" for m in AUTO_METHODS}
    vs = ", ".join(f"{rec[m]} for {m.upper()}" for m in AUTO_METHODS if m != chosen)
    tie = any((heads[m]["correct"] or 0) == (heads[chosen]["correct"] or 0) for m in fair if m != chosen)
    if not fair:
        why = "neither beats the budget-matched random baseline (error ratio < 1): PBA, the first, is reported"
        line = f"{names} both tried; neither beats chance here, {chosen.upper()} reported below"
    else:
        why = ("the most correct eliminations among the methods that beat the budget-matched random baseline "
               "(error ratio < 1)" + ("; a tie goes to PBA" if tie else ""))
        more = "takes back as much" if tie else "takes back more"
        line = f"{names} both tried; {chosen.upper()} {more} here ({rec[chosen]} vs {vs}), reported below"
    return by_method[chosen], {"candidates": heads, "chosen": chosen, "why": why, "line": line}


def merge_metrics(outcomes: list[GroupOutcome], options: AttackOptions) -> dict:
    """The dataset-wide metrics (ALGORITHMS.md §6), overall and by table size, with intervals."""
    small = np.array([o.n_members <= PAPER_TABLE_MEMBERS for o in outcomes], dtype=bool)
    overall = _figures(outcomes, options, intervals=True)
    if outcomes and outcomes[0].variants:
        overall["knowledge"] = {options.knowledge: {k: v for k, v in overall.items() if k != "by_table_size"}}
        for v in VARIANTS:
            if v != options.knowledge:
                overall["knowledge"][v] = _figures([o.variants[v] for o in outcomes], options, intervals=True,
                                                   pooled_interval=False)
        overall["knowledge"] = {v: overall["knowledge"][v] for v in VARIANTS}
        for v, f in overall["knowledge"].items():  # a measure's distances are no surprisals: PBA -> TBA there
            f["method"] = "tba" if v == "semantics" and options.method == "pba" else options.method
    overall["by_table_size"] = {
        f"members<={PAPER_TABLE_MEMBERS}": _figures([o for o, s in zip(outcomes, small) if s], options),
        f"members>{PAPER_TABLE_MEMBERS}": _figures([o for o, s in zip(outcomes, small) if not s], options),
    }
    return overall


def _figures(outcomes: list[GroupOutcome], options: AttackOptions, intervals: bool = False,
             pooled_interval: bool = True) -> dict:
    def total(name: str) -> np.ndarray:
        return np.array([getattr(o, name) for o in outcomes], dtype=np.float64)

    elim, added, correct = total("eliminated"), total("added"), total("correct")
    attackable = total("added_attackable")
    out = em.prf(int(elim.sum()), int(added.sum()), int(correct.sum()))
    a = np.concatenate([o.added_distances for o in outcomes] + [np.zeros(0)])
    o_ = np.concatenate([o.original_distances for o in outcomes] + [np.zeros(0)])
    pooled_auc = em.auc(a, o_)
    within_u, pairs = total("within_u"), total("within_pairs")
    cells = total("cells")
    out.update({
        "groups": len(outcomes),
        "auc": pooled_auc,
        "auc_pooled": pooled_auc,
        "auc_within_table": within_u.sum() / pairs.sum() if pairs.sum() else None,
        "density": total("original_cells").sum() / cells.sum() if cells.sum() else None,
        "density_per_item": total("density_sum").sum() / total("occurrences").sum() if total("occurrences").sum() else None,
        "added_attackable": int(attackable.sum()),
        "recall_attackable": em.recall(correct.sum(), attackable.sum()),
    })
    b_elim, b_correct = total("baseline_eliminated").sum(), total("baseline_correct").sum()
    if options.baseline_draws:
        bp, br = em.precision(b_correct, b_elim), em.recall(b_correct, added.sum())
        out["baseline"] = {
            "kind": "budget-matched random",
            "draws": options.baseline_draws,
            "eliminated": b_elim,
            "correct": b_correct,
            "precision": bp,
            "recall": br,
            "f1": em.f1(bp, br),
            "error_ratio": em.error_ratio(out["precision"], bp),
        }
    p_elim, p_correct = total("popularity_eliminated").sum(), total("popularity_correct").sum()
    if p_elim or options.background is not None:  # with knowledge always there, so every variant has its keys
        pp, pr = em.precision(p_correct, p_elim), em.recall(p_correct, added.sum())
        out["popularity"] = {
            "kind": "popularity (same budget, the rarest members in the background first)",
            "eliminated": p_elim,
            "correct": p_correct,
            "precision": pp,
            "recall": pr,
            "f1": em.f1(pp, pr),
            "error_ratio": em.error_ratio(pp, (out.get("baseline") or {}).get("precision")),
        }
    # intervals over equivalence groups need a few groups (the one threshold of every family)
    too_few = no_interval_reason(len(outcomes), "equivalence groups")
    if intervals and options.resamples and not too_few:
        w = em.bootstrap_weights(len(outcomes), options.resamples, 0)  # the same resamples for every method
        unit = np.concatenate([np.full(len(o.added_distances) + len(o.original_distances), i)
                               for i, o in enumerate(outcomes)] + [np.zeros(0, dtype=np.int64)]).astype(np.int64)
        values = np.concatenate([np.concatenate([o.added_distances, o.original_distances]) for o in outcomes] + [np.zeros(0)])
        is_added = np.concatenate([np.r_[np.ones(len(o.added_distances), bool), np.zeros(len(o.original_distances), bool)]
                                   for o in outcomes] + [np.zeros(0, bool)])
        found = {
            "precision": em.ratio_interval(correct, elim, w),
            "recall": em.ratio_interval(correct, added, w),
            "recall_attackable": em.ratio_interval(correct, attackable, w),
            "auc_within_table": em.ratio_interval(within_u, pairs, w),
            "auc_pooled": em.pooled_auc_interval(values, is_added, unit, w) if pooled_interval else None,
        }
        if options.baseline_draws:
            found["baseline_precision"] = em.ratio_interval(total("baseline_correct"), total("baseline_eliminated"), w)
        out["intervals"] = {k: v.to_json() for k, v in found.items() if v is not None}
    elif intervals and options.resamples:
        # too few groups: the same fields, null, and why (every family's rule, metrics.intervals)
        keys = ["precision", "recall", "recall_attackable", "auc_within_table",
                *(["auc_pooled"] if pooled_interval else []), *(["baseline_precision"] if options.baseline_draws else [])]
        out["intervals"] = {**dict.fromkeys(keys), "reason": too_few}
    return _rounded(out)


def _rounded(d: dict) -> dict:
    return {k: json_float(v) if isinstance(v, float | np.floating) else _rounded(v) if isinstance(v, dict) else v
            for k, v in d.items()}


def knowledge_words(data: TransactionData, background) -> str:
    """Which knowledge the attacker had, in one sentence (how many rows it could not score is
    ``summary.unscored``'s, and only there).  Without a background it says that the stronger
    attacker was not modelled: a figure of the papers' attacker alone must never read as the
    release's risk (ALGORITHMS.md §6-7)."""
    no_plain = not (data.tokens >= 0).any()
    if background is not None:
        what = "priors and co-occurrence" if background.has_cooccurrence else "priors only (no co-occurrence: a frequency list, or counts without pairs)"
        return f"background {background.source}: {what}"
    if no_plain:
        return ("no knowledge at all: the release keeps no plain item, so the measure has no context to score "
                "against, and no background was given (--background gives the attacker priors and the "
                "generalised context); nothing was attacked — not a sign that nothing can be")
    return ("the measure only (the papers' attacker); an attacker who also knows how common each item is and "
            "which items go together was not modelled, and on real data often takes back more: give --background "
            "(data of a similar population, counts:FILE or wordfreq:LANG)")


#: an AUC within table this close to the prior's says the prior carries the attack
CARRY_MARGIN = 0.01


def carried_by(metrics: dict, cooccurrence: bool = True) -> list[str]:
    """Sentences that say which knowledge carries the attack (CLI and TUI print them).
    ``cooccurrence``: False for a prior-only background (a frequency list, counts without pairs), whose background
    and combined tables hold no co-occurrence and must not be described as if they did."""
    kn = metrics["knowledge"]
    lines = []
    help_ = dict(VARIANT_HELP)
    if not cooccurrence:
        help_["background"] = "how common each item is (no co-occurrence to add)"
        help_["combined"] = "how common each item is and the measure"
    for v in VARIANTS:
        f = kn[v]
        if f.get("recall") is None:
            continue
        er = (f.get("baseline") or {}).get("error_ratio")
        if f.get("auc_within_table") is None and not f.get("eliminated"):
            # nothing to judge it by: not "takes back 0%", which reads as a measured outcome
            lines.append(f"knowing {help_[v]}: scored no row here (nothing it knows to score against), "
                         "so not tried")
            continue
        lines.append(f"knowing {help_[v]}: takes back {f['recall']:.0%} of the added items at precision "
                     f"{_num(f.get('precision'))} (error ratio {_num(er, 2)})")
    # which knowledge ranks added members below original ones best (AUC within table: the same
    # for every eliminator, so the verdict does not depend on the method's threshold)
    auc = {v: kn[v].get("auc_within_table") for v in VARIANTS if kn[v].get("auc_within_table") is not None}
    if not auc:
        return [*lines, "no knowledge could score a member against an original one here"]
    best = max(auc, key=lambda v: (round(auc[v], 3), -VARIANTS.index(v)))
    words = {"prior": "how common each item is", "semantics": "the meaning of the context (the measure)",
             "background": "how common items are and which go together", "combined": "all of it together"}
    if not cooccurrence:
        words["background"] = "how common each item is (no co-occurrence)"
        words["combined"] = "how common each item is and the measure together"
    verdict = f"carried by {words[best]} (AUC within table {auc[best]:.3f})"
    if best != "prior" and "prior" in auc and auc[best] - auc["prior"] <= CARRY_MARGIN:
        verdict = (f"carried by how common each item is (AUC within table {auc['prior']:.3f}); "
                   f"{words[best]} adds only {auc[best] - auc['prior']:.3f}")
    # the table's recall, as it shows it: "adds nothing" is never said beside a table that takes back more
    shown = {v: round(kn[v]["recall"], 3) for v in VARIANTS if kn[v].get("recall") is not None}
    more = [v for v in VARIANTS if v != "prior" and "prior" in shown and shown.get(v, -1.0) > shown["prior"]]
    if (best == "prior" or verdict.startswith("carried by how common")) and more:
        top = max(more, key=lambda v: (shown[v], -VARIANTS.index(v)))
        verdict += (f"; knowing {words[top]} ranks no better, but takes back more ({kn[top]['recall']:.0%} of "
                    f"the added items against {kn['prior']['recall']:.0%})"
                    + (" (the measure's meaning was not tried: it scored no row)" if "semantics" not in auc else ""))
    elif best == "prior":
        untried = "semantics" not in auc  # the measure scored no row: it was not tried, not found useless
        added = "meaning and co-occurrence add" if cooccurrence else "meaning adds"
        verdict += (("; co-occurrence adds nothing on this data" if cooccurrence else "")
                    + " (the measure's meaning was not tried: it scored no row)" if untried
                    else f"; {added} nothing on this data")
    # the risk to report: the most that any attacker tried takes back while beating chance
    beat = [v for v in VARIANTS if kn[v].get("recall") is not None
            and (kn[v].get("baseline") or {}).get("error_ratio") is not None
            and kn[v]["baseline"]["error_ratio"] < 1.0]  # 0.0 (no wrong elimination) beats chance too
    if beat:
        top = max(beat, key=lambda v: (kn[v]["recall"], -VARIANTS.index(v)))
        verdict += (f". The most any attacker tried takes back: {kn[top]['recall']:.0%} of the added items at "
                    f"precision {_num(kn[top].get('precision'))}, knowing {words[top]}")
    return [*lines, verdict]


def _num(v, digits: int = 3) -> str:
    return "-" if v is None else f"{v:.{digits}f}"


# --------------------------------------------------------------------------- outputs
def attacked_dataset(data: TransactionData, report: SetgenAttackReport | dict) -> TransactionData:
    """The release with each generalised item reduced, per transaction, to what survived (an
    unmarked release: its generalised items as recovered)."""
    if isinstance(report, SetgenAttackReport):
        if report.recovered is not None:
            data = report.recovered
    elif report.get("unmarked") is not None and data.n_generalised == 0:
        from semtui.attacks.setgen.unknown import recover

        data = recover(data, report["unmarked"].get("k")).data  # recovery is deterministic
    groups = report.groups if isinstance(report, SetgenAttackReport) else report["groups"]
    removed: dict[tuple[int, int], set[str]] = {}
    for grp in groups:
        for e in grp["eliminations"]:
            removed.setdefault((e["transaction"], grp["id"]), set()).add(e["item"])
    builder = TransactionBuilder()
    for i in range(data.n_transactions):
        out = []
        for t in data.transaction(i).tolist():
            if t >= 0:
                out.append(data.vocab[t])
                continue
            g = -t - 1
            gone = removed.get((i, g))
            members = data.member_names(g)
            out.append(members if not gone else [x for x in members if x not in gone])
        builder.add(out)
    return builder.build(ids=data.ids)


def write_report(report: SetgenAttackReport | dict, path: str | Path) -> None:
    from semtui import reports

    reports.write(report, path)


def load_report(path: str | Path) -> dict:
    """A report written by :func:`write_report` (as its JSON document)."""
    from semtui import reports

    report = reports.read(path, REPORT_FORMAT, "a set-generalisation attack report")
    if not isinstance(report.get("groups"), list):
        raise InputError("report has no 'groups' list", path)
    return report
