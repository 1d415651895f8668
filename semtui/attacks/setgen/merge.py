"""The merge of the set-generalisation attack (plan -> score -> kernel -> **merge**): the
dataset-wide figures of ALGORITHMS.md §6 from the groups' outcomes, with their intervals and the
budget-matched and popularity baselines, and ``auto``'s choice between its methods."""

from __future__ import annotations

import numpy as np

from semtui.attacks.setgen.kernel import GroupOutcome
from semtui.attacks.setgen.knowledge import VARIANTS
from semtui.attacks.setgen.options import AUTO_METHODS, AttackOptions
from semtui.metrics import elimination as em
from semtui.metrics.intervals import no_interval_reason
from semtui.reports import json_float
from semtui.runtime.memo import ContentMemo, digest

#: The papers' tables have at most this many members; the metrics are also given apart for
#: tables of up to this size and for larger ones.
PAPER_TABLE_MEMBERS = 16

#: the pooled AUC and its interval are the distances', not the method's: every method of a release
#: (and each of its variants) asks for them with the same distances, groups and resamples
POOLED = ContentMemo()


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
    pooled_auc = POOLED.get(("auc", digest(a, o_)), lambda: em.auc(a, o_))
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
            "auc_pooled": POOLED.get(("auc interval", digest(values, is_added, unit, w)),
                                     lambda: em.pooled_auc_interval(values, is_added, unit, w))
            if pooled_interval else None,
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
