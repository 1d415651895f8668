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
from semtui.attacks.setgen.knowledge import VARIANTS, build_knowledge, carried_by, knowledge_words
from semtui.attacks.setgen.merge import choose_method, merge_metrics
from semtui.attacks.setgen.options import AttackOptions
from semtui.attacks.setgen.results import GroupWriteUp
from semtui.attacks.setgen.tables import contexts_for_group, generalised_contexts
from semtui.errors import InputError
from semtui.measures.base import Measure
from semtui.metrics import elimination as em
from semtui.model import TransactionBuilder, TransactionData
from semtui.reports import Report, json_float
from semtui.runtime import ProgressCallback, no_progress, run_units

REPORT_FORMAT = "semtui-setgen-report/1"



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
    #: each group written up (none when the attack ran for its figures only, ``write_up=False``)
    groups: list[GroupWriteUp]
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
            "groups": [g.to_json() for g in self.groups],
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
        summary=summary, privacy=privacy, groups=[o.entry for o in outcomes if o.entry is not None], metrics=metrics,
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
    groups = report.groups if isinstance(report, SetgenAttackReport) else \
        [GroupWriteUp.from_json(g) for g in report["groups"]]
    removed: dict[tuple[int, int], set[str]] = {}
    for grp in groups:
        for e in grp.eliminations:
            removed.setdefault((e.transaction, grp.id), set()).add(e.item)
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
