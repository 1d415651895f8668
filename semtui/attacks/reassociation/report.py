"""The re-association's report, in words and read back (Alshuhail & Shao; ALGORITHMS.md §2):
what a run returns (:class:`Reassociation`: the typed report of :mod:`.results` and the
reconstructed transactions), the informed reference (NBA with the original's own statistics) and
why WMD is null, worded once for the CLI and the TUI, and the reconstructed transactions rebuilt
from a report."""

from __future__ import annotations

from dataclasses import dataclass

from semtui.attacks.reassociation.results import (
    InformedReference,
    ReassocCluster,
    ReassociationReport,
    ReassocJoint,
    ReassocMetrics,
)
from semtui.model import TransactionData
from semtui.reports import json_float as _r


@dataclass
class Reassociation:
    """The report and the reconstructed transactions (item names, cluster by cluster, anchor by anchor)."""

    report: ReassociationReport
    transactions: list[list[str]]


INFORMED_REFERENCE = ("a reference, not an attack: NBA (under the attack's tie rule) with the co-occurrence statistics of the "
                      "original itself, which the publisher holds and no attacker should; the most that statistical "
                      "knowledge of this population could give this attack, not a bound on every attacker")


def informed_sentence(metrics: ReassocMetrics | None) -> str | None:
    """The informed reference in words, beside the attack's own figures (the CLI and the TUI
    print this one sentence)."""
    ref = None if metrics is None else metrics.informed_reference
    if ref is None or ref.accuracy is None:
        return None

    def bounds(name: str) -> tuple[float, float] | None:
        v = ref.intervals.get(name)
        return None if v is None else (v.low, v.high)

    def iv(name: str, digits: int = 3) -> str:
        v = bounds(name)
        return f" [{v[0]:.{digits}f}, {v[1]:.{digits}f}]" if v else ""

    lift = ref.lift_over_random
    if lift is None:
        return (f"Informed reference (not an attack): naive Bayes with the original's own statistics places "
                f"{ref.accuracy:.3f} of its placements correctly.")
    attack = metrics.lift_over_random
    ties = ref.ties  # None in reports written before the reference followed the attack's rule
    rule = f"; both under {ties} ties" if ties else ""
    head = (f"Informed reference (not an attack): with the co-occurrence statistics of the original itself, which "
            f"only the publisher holds, naive Bayes places {ref.accuracy:.3f}{iv('accuracy')} of its placements "
            f"correctly, lift {lift:.2f}{iv('lift_over_random', 2)} over random"
            + (f" (this attack: {attack:.2f}{rule})" if attack is not None
               else (f" (under {ties} ties)" if ties else ""))
            + (f" ({reason})" if (reason := ref.intervals.reason) else ""))
    low, high = bounds("lift_over_random") or (None, None)
    if reason:  # no interval: the point estimate says which side of chance it fell
        low = high = lift
    if low is not None and low > 1:
        return head + ": the most that statistics of this population could give this attack."
    if high is not None and high < 1:
        # worse than chance with the original's own statistics: the scoring mis-ranks anchors here,
        # which says nothing about what a better use of the same statistics would take back
        return (head + ": even perfect statistics do not lift this naive-Bayes re-association above chance on this "
                "release — it falls below chance, so its scoring mis-ranks anchors here; a bound on this attack "
                "only, not on every attacker.")
    return (head + ": even perfect statistics do not lift this naive-Bayes re-association above chance on this "
            "release; a bound on this attack only, not on every attacker.")


def _informed_reference(figures, sums: dict, prefix: str, seed: int, ties: str) -> InformedReference:
    """The informed reference's figures (accuracy, lift over its own budget-matched baseline,
    transaction breakage), with bootstrap intervals over clusters; ``figures``: the
    per-cluster :class:`~semtui.attacks.reassociation.merge.Figures`, its counts the columns
    named ``prefix`` + count, ``sums`` their totals (:meth:`Figures.sums`, read once)."""
    from semtui.metrics.reassociation import accuracy, interval_set, transaction_breakage

    s = {key[len(prefix):]: v for key, v in sums.items() if key.startswith(prefix)}
    ci = figures.bootstrap([prefix + c for c in ("correct", "correct", "broken")],
                           [prefix + c for c in ("placements", "b_correct", "size")], seed)
    acc = accuracy(s["correct"], s["placements"])
    base = accuracy(s["b_correct"], s["placements"])
    return InformedReference(
        about=INFORMED_REFERENCE,
        method="nba",
        ties=ties,
        statistics="the original",
        placements=int(s["placements"]),
        correct=int(s["correct"]),
        accuracy=_r(acc),
        baseline_accuracy=_r(base),
        lift_over_random=_r(acc / base) if acc is not None and base else None,
        transaction_breakage=_r(transaction_breakage(s["broken"], s["size"])),
        intervals=interval_set(("accuracy", "lift_over_random", "transaction_breakage"), ci, len(figures)),
    )


def _wmd_note(measured: float, opts: dict) -> str | None:
    """Why WMD is null (not measurable is not 0), or None when it was measured."""
    if measured:
        return None
    if opts.get("wmd_requested") is None:
        return "not measured (no WMD measure)"
    terms, unscored = opts.get("wmd_terms", 0), opts.get("wmd_unscored", 0)
    return (f"not measurable: {unscored:,} of {terms:,} terms unscored under {opts['wmd_requested']}, "
            "and no transaction has every term of its original and its reconstruction scored")


def reconstructed_transactions(cluster: ReassocCluster,
                               joint_clusters: list[ReassocJoint] | None = None) -> list[list[str]]:
    """The transactions one cluster entry of a report rebuilds, anchor by anchor: the anchor's
    items, then those of every unit placed on it, then (given the report's ``joint_clusters``)
    those of every shared sub-record a joint cluster placed on it (each item once, in that
    order) -- what :attr:`Reassociation.transactions` holds for the cluster, read back from
    the report."""
    rec: list[list[str]] = [list(a) for a in cluster.anchors or ()]
    for unit in cluster.units or ():
        for a in unit.anchors:
            rec[a].extend(unit.items)
    for joint in joint_clusters or ():
        if cluster.id not in joint.clusters:
            continue
        for unit in joint.units or ():
            for cid, a in unit.anchors:
                if cid == cluster.id:
                    rec[a].extend(unit.items)
    return [list(dict.fromkeys(items)) for items in rec]


def reconstruction_dataset(result: Reassociation) -> TransactionData:
    """The reconstructed transactions as plain transactions (cluster by cluster, anchor by anchor)."""
    return TransactionData.from_lists(result.transactions)
