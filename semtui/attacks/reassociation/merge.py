"""The report of a re-association, merged cluster by cluster as the outputs arrive (issue 26,
"Memory"): the driver never holds every cluster's output at once.

Each cluster's output is reduced at once to what the report needs dataset-wide: its entry in
the report (with ``--summary-only`` only its id, size and metrics), its counts (one row of the
per-cluster table the totals and the bootstrap intervals are taken over), and -- only until
every joint cluster it belongs to has been attacked -- the small arrays the joint clusters
and k^m breakage need: the transaction each anchor was aligned with, the transactions it broke
(attack and each baseline draw) and its reconstruction as (transaction, item) pairs.  A joint
cluster runs as soon as all its member clusters have arrived; a cluster is *closed* (its
joint clusters' placements added to its counts, its k^m breakage counted, its arrays dropped)
once all its joint clusters have run.  Closed clusters are counted in batches, vectorised.

Every figure is computed as the whole-release merge did (the same sums over the same per-cluster
tables, a joint cluster's contributions added to a member's counts in joint-cluster order, the
same protected itemsets over the whole original), so the report does not depend on how the
clusters were batched, nor where they ran (tests/unit/test_scheduler.py, test_stream.py).
"""

from __future__ import annotations

import time
from array import array
from dataclasses import dataclass, field, replace

import numpy as np

from semtui.attacks.reassociation.joint import run_joint
from semtui.attacks.reassociation.km_breakage import KmCounter
from semtui.attacks.reassociation.report import Reassociation, _informed_reference, _r, _wmd_note
from semtui.attacks.reassociation.results import (
    ReassocBaseline,
    ReassocCluster,
    ReassociationReport,
    ReassocJoint,
    ReassocMetrics,
    ReassocSummary,
    SharedChunks,
)

#: closed clusters counted together (their transactions): the k^m breakage of a batch is one
#: vectorised pass over those transactions' rows of the original
CLOSE_ROWS = 20_000

_COUNTS = ("placements", "correct", "held", "broken", "size", "wmd_sum", "wmd_n", "b_correct", "b_broken",
           "b_wmd_sum", "b_wmd_n")
_REF_COUNTS = ("placements", "correct", "broken", "size", "b_correct", "b_broken")
_REF_PREFIX = "reference."   # the informed reference's counts, among a cluster's figures
_REF_COLUMNS = tuple(_REF_PREFIX + name for name in _REF_COUNTS)
_KM = ("km.protected", "km.attack", "km.baseline")   # protected itemsets, exposed by the attack and the baseline


def reference_ctx(ctx):
    """The informed reference's context: NBA with the original's own log-lifts, under the run's
    tie rule, only the counts of the evaluation."""
    return replace(ctx, method="nba", close=ctx.informed, wmd=None, light=True)


@dataclass
class _Part:
    """What one side (the attack, or the informed reference) of an open cluster still holds."""

    counts: dict
    broken_set: np.ndarray
    b_broken_sets: list
    aligned: np.ndarray | None = None          # kept while a joint cluster may need it
    recon: dict | None = None                  # label -> [(rows, items), ...] (the attack only)
    joints: list = field(default_factory=list)  # (joint index, placements, correct, b_correct, held)
    extra_broken: list = field(default_factory=list)
    extra_b_broken: list = field(default_factory=list)


class Merger:
    """Feed :meth:`add` every cluster's output in cluster order, then :meth:`finish`."""

    def __init__(self, ctx, meta: dict, *, close_rows: int | None = None, spool: bool = False,
                 baselines=None):
        """``baselines``: the run's :class:`.attack.Baselines`, whose joint clusters' draws the
        joint clusters run here take and keep."""
        data = ctx.data
        self.ctx, self.meta = ctx, meta
        self.baselines = baselines
        self.ref_ctx = reference_ctx(ctx) if ctx.informed is not None else None
        self.n = len(data.clusters)
        self.evaluate = ctx.key_of is not None
        self.close_rows = CLOSE_ROWS if close_rows is None else close_rows
        # the report's per-cluster entries, in cluster order, each once its cluster is closed (its
        # k^m figures known): kept on disk with ``spool`` (a large release's report is never whole)
        if spool:
            from semtui.fileio import Spool

            self.entries = Spool("the report's clusters")
            self.joint_entries = Spool("the report's joint clusters")
        else:
            self.entries = []
            self.joint_entries = []
        self.open_entries: dict[int, ReassocCluster] = {}
        self.closed: set[int] = set()
        self.transactions: list[list] = []
        self.totals = {"anchors": 0, "units": 0, "placements": 0}
        self.arrived = 0
        # the joint clusters, in the order they can run (when their last member has arrived)
        self.members = ctx.joint_members
        n_joint = len(self.members)
        self.joint_order = np.lexsort((np.arange(n_joint), self.members.last))
        self.next_joint = 0
        # the joint clusters each member of one still waits for (``joined``: those clusters, sorted;
        # most clusters are in none, and nothing is held for them)
        self.joined, waiting = np.unique(self.members.ids, return_counts=True)
        self.waiting = waiting.astype(np.int32)
        # each joint cluster's placements and units once it has run (arrays: nothing per joint cluster
        # as Python objects)
        self.joint_ran = np.zeros(n_joint, dtype=bool)
        self.joint_placements = np.zeros(n_joint, dtype=np.int64)
        self.joint_units = np.zeros(n_joint, dtype=np.int64)
        self.joint_ready: dict[int, tuple] = {}   # joint clusters a worker ran with its batch: (attack, reference)
        # the joint clusters' entries, in joint-cluster order as they run (kept in
        # ``joint_waiting`` while one before them has not run)
        self.joint_waiting: dict[int, ReassocJoint | None] = {}
        self.joint_listed = 0
        self.joint_evaluated = np.zeros(n_joint, dtype=bool)   # and its correct placements, the baseline's
        self.joint_correct = np.zeros(n_joint, dtype=np.int64)
        self.joint_b_correct = np.zeros(n_joint, dtype=np.float64)
        self.joint_places: dict[int, list] = {}   # cluster -> [(joint, [(anchor, names)])] (full report)
        self.open: dict[int, tuple[_Part | None, _Part | None]] = {}
        self.closable: list[int] = []
        self.closable_rows = 0
        if self.evaluate:
            x = ctx.x
            self.n_rows = x.shape[0]
            self.truth: dict[int, np.ndarray] = {}   # the open clusters' transactions (rows of x)
            # each cluster's figures, a row in cluster order (on disk with ``spool``); the rows of
            # clusters closed before one ahead of them wait in ``rows``
            self.figures = Figures(_COUNTS + (_REF_COLUMNS if self.ref_ctx is not None else ()) + _KM, spool)
            self.rows: dict[int, np.ndarray] = {}
            self.km = KmCounter(x, int(meta["k"]), int(data.m))

    # ------------------------------------------------------------------ arrival
    def add(self, ci: int, out: dict, ref: dict | None = None) -> None:
        if ci != self.arrived:
            raise ValueError(f"cluster {ci} arrived out of order (expected {self.arrived})")
        self.joint_ready.update(out.pop("joints", None) or {})
        self.open_entries[ci] = out["cluster"]
        if not self.ctx.summary_only:
            self.transactions.append(out["transactions"])
        for name in self.totals:
            self.totals[name] += int(out[name])
        joined = self._member(ci) >= 0   # its joint clusters cannot have run before it arrived
        attack = reference = None
        if self.evaluate:
            self.truth[ci] = np.asarray(out["truth"], dtype=np.int64)
            attack = _Part(dict(out["counts"]), out["broken_set"], out["b_broken_sets"],
                           aligned=out["aligned"] if joined else None,
                           recon={label: [rr] for label, rr in out["recon"].items()})
            if ref is not None:
                reference = _Part({name: ref[name] for name in _REF_COUNTS}, ref["_broken_set"], ref["_b_broken_sets"],
                                  aligned=ref["_aligned"] if joined else None)
        self.open[ci] = (attack, reference)
        self.arrived = ci + 1
        while (self.next_joint < len(self.joint_order)
               and self.members.last[self.joint_order[self.next_joint]] < self.arrived):
            self._run_joint(int(self.joint_order[self.next_joint]))
            self.next_joint += 1
        if not joined:  # a joint cluster's member becomes closable when its last joint cluster has run
            self._closable(ci)

    def _closable(self, ci: int) -> None:
        self.closable.append(ci)
        self.closable_rows += len(self.truth[ci]) if self.evaluate else 1
        if self.closable_rows >= self.close_rows:
            self._close()

    # ------------------------------------------------------------------ joint clusters
    def _run_joint(self, ji: int) -> None:
        ctx, data = self.ctx, self.ctx.data
        members = self.members[ji].tolist()
        # run by a worker with its members' batch, or here
        j, rj = self.joint_ready.pop(ji, None) or run_joint(ctx, self.ref_ctx, ji, members,
                                                             lambda m, side: self.open[m][side].aligned,
                                                             self.baselines)
        self.joint_ran[ji] = True
        self.joint_placements[ji], self.joint_units[ji] = int(j["placements"]), int(j["n_units"])
        self._list_joint(ji, j.get("entry"))
        if not ctx.summary_only:
            names = data.vocab.names
            per: dict[int, list] = {}
            for u, a in zip(j["place_unit"].tolist(), j["place_anchor"].tolist()):
                per.setdefault(int(j["member_of"][a]), []).append((int(j["local"][a]), names(j["units"][u])))
            for m, places in per.items():
                self.joint_places.setdefault(m, []).append((ji, places))
        if self.evaluate and "eval" in j:
            e = j["eval"]
            self.joint_evaluated[ji] = True
            self.joint_correct[ji], self.joint_b_correct[ji] = int(e["correct"].sum()), float(np.sum(e["b_correct"]))
            self._spread(ji, members, e, 0, with_recon=True)
        if rj is not None and "eval" in rj:
            self._spread(ji, members, rj["eval"], 1, with_recon=False)
        for m in members:
            at = self._member(m)
            self.waiting[at] -= 1
            if self.waiting[at] == 0 and m < self.arrived:
                self._closable(m)

    def _member(self, ci: int) -> int:
        """Cluster ``ci``'s place among the members of joint clusters, -1 if it is in none."""
        at = int(np.searchsorted(self.joined, ci))
        return at if at < len(self.joined) and self.joined[at] == ci else -1

    def _list_joint(self, ji: int, entry: ReassocJoint | None) -> None:
        """Joint cluster ``ji``'s entry in the report (with ``--summary-only`` its id, members,
        anchors and metrics: no shared sub-record), listed in joint-cluster order."""
        if entry is not None and self.ctx.summary_only:
            entry = entry.summary_only()
        self.joint_waiting[ji] = entry
        while self.joint_listed in self.joint_waiting:
            e = self.joint_waiting.pop(self.joint_listed)
            if e is not None:
                self.joint_entries.append(e)
            self.joint_listed += 1

    def _spread(self, ji: int, members: list[int], e: dict, side: int, with_recon: bool) -> None:
        """A joint cluster's evaluation, shared out to its members by the cluster of the anchor
        placed on (placements, correct ones, the baseline's) or of the transaction (held
        sub-records, broken transactions, the reconstruction).  The cluster of a transaction is
        looked up among the members' (open, so their transactions are still held): no array
        over the whole original."""
        cluster_of = cluster_lookup({m: self.truth[m] for m in members})

        def rows_of(ts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            ts = np.asarray(ts, dtype=np.int64)
            ts = ts[(ts >= 0) & (ts < self.n_rows)]
            return ts, cluster_of(ts)

        _, held_c = rows_of(e["held_t"]) if with_recon else (None, None)
        broken, broken_c = rows_of(e["broken_set"])
        b_sets = [rows_of(s) for s in e["b_broken_sets"]]
        recon = {}
        if with_recon:
            for label, (rr, ii) in e["recon"].items():
                rr = np.asarray(rr, dtype=np.int64)
                recon[label] = (rr, np.asarray(ii, dtype=np.int64), cluster_of(rr))
        for i, m in enumerate(members):   # the joint cluster's figures are per member, in this order
            part = self.open[m][side]
            held = int(np.count_nonzero(held_c == m)) if with_recon else 0
            part.joints.append((ji, int(e["placements"][i]), int(e["correct"][i]), float(e["b_correct"][i]), held))
            part.extra_broken.append(broken[broken_c == m])
            part.extra_b_broken.append([s[c == m] for s, c in b_sets])
            for label, (rr, ii, cc) in recon.items():
                keep = cc == m
                part.recon[label].append((rr[keep], ii[keep]))

    # ------------------------------------------------------------------ closing
    def _close(self) -> None:
        batch, self.closable, self.closable_rows = self.closable, [], 0
        if not batch:
            return
        batch.sort()
        recon = {"attack": [], "baseline": []}
        for ci in batch:
            attack, reference = self.open.pop(ci)
            for _, places in sorted(self.joint_places.pop(ci, []), key=lambda t: t[0]):
                recs = self.transactions[ci]
                for local, nm in places:
                    rec = recs[local]
                    rec.extend(x for x in nm if x not in rec)
            self.closed.add(ci)
            if not self.evaluate:
                continue
            row = self.rows[ci] = np.zeros(len(self.figures.columns))
            c = self._finish_counts(attack, held=True)
            row[self.figures.at(_COUNTS)] = [c[name] for name in _COUNTS]
            if reference is not None:
                c = self._finish_counts(reference, held=False)
                row[self.figures.at(_REF_COLUMNS)] = [c[name] for name in _REF_COUNTS]
            for label in recon:
                recon[label].append(attack.recon[label])
        if self.evaluate:
            self._count_km(batch, recon)
        while len(self.entries) in self.closed:  # the entries (and figures) closed, in cluster order
            self.closed.discard(len(self.entries))
            if self.evaluate:
                self.figures.append(self.rows.pop(len(self.entries)))
            self.entries.append(self.open_entries.pop(len(self.entries)))

    def _count_km(self, batch: list[int], recon: dict) -> None:
        prot, exposed = self.km.count([self.truth[ci] for ci in batch], recon)
        at = self.figures.at(_KM)
        for i, ci in enumerate(batch):
            self.rows[ci][at] = (prot[i], exposed["attack"][i], exposed["baseline"][i])
            entry = self.open_entries[ci]
            self.open_entries[ci] = replace(entry, metrics=replace(entry.metrics, protected_itemsets=int(prot[i]),
                                                                   exposed_itemsets=int(exposed["attack"][i])))
            del self.truth[ci]

    @staticmethod
    def _finish_counts(part: _Part, held: bool) -> dict:
        """One side's counts of a cluster, its joint clusters' added."""
        c = part.counts
        if part.joints:
            # the joint clusters' placements, in joint-cluster order (the float sums as a whole-release merge)
            for _, placements, correct, b_correct, h in sorted(part.joints, key=lambda t: t[0]):
                c["placements"] = c["placements"] + placements
                c["correct"] = c["correct"] + correct
                c["b_correct"] = c["b_correct"] + b_correct
                if held:
                    c["held"] += h
            # broken transactions: the union of the cluster's own and its joint clusters'
            c["broken"] = len(np.unique(np.concatenate([np.asarray(part.broken_set, dtype=np.int64)]
                                                       + part.extra_broken)))
            draws = len(part.b_broken_sets)
            c["b_broken"] = float(np.mean([
                len(np.unique(np.concatenate([np.asarray(part.b_broken_sets[r], dtype=np.int64)]
                                             + [extra[r] for extra in part.extra_b_broken])))
                for r in range(draws)])) if draws else 0.0
        return c

    # ------------------------------------------------------------------ the report
    def finish(self) -> Reassociation:
        from semtui.metrics.reassociation import accuracy, interval_set, km_breakage, transaction_breakage

        if self.arrived != self.n:
            raise ValueError(f"{self.arrived} of {self.n} clusters arrived")
        self._close()
        assert not self.open and not self.open_entries, "a cluster was never closed"
        opts, data, ctx = self.meta, self.ctx.data, self.ctx
        ran = self.joint_ran
        joint_placements = int(self.joint_placements[ran].sum())
        transactions = [t for per in self.transactions for t in per]
        self.transactions = []
        metrics = None
        if self.evaluate:
            s = self.figures.sums()
            km = {label: {"protected": int(s["km.protected"]), "exposed": int(s["km." + label])}
                  for label in ("attack", "baseline")}
            ci = self.figures.bootstrap(("correct", "broken", "km.attack", "wmd_sum", "correct", "b_correct"),
                                   ("placements", "size", "km.protected", "wmd_n", "b_correct", "placements"),
                                   opts["seed"])
            labels = ("accuracy", "transaction_breakage", "km_breakage", "wmd", "lift_over_random",
                      "baseline_accuracy")
            baseline_acc = accuracy(s["b_correct"], s["placements"])
            acc = accuracy(s["correct"], s["placements"])
            shared = None
            if ran.any():
                # the shared chunks' part of the figures, on its own
                jp = joint_placements
                jc = int(self.joint_correct[self.joint_evaluated].sum())
                jb = sum(self.joint_b_correct[self.joint_evaluated].tolist())   # in joint-cluster order, as ever
                ja, jba = accuracy(jc, jp), accuracy(jb, jp)
                shared = SharedChunks(int(jp), jc, _r(ja), _r(jba), _r(ja / jba) if ja is not None and jba else None)
            metrics = ReassocMetrics(
                placements=int(s["placements"]),
                correct=int(s["correct"]),
                accuracy=_r(acc),
                held=int(s["held"]),
                recall=_r(s["correct"] / s["held"]) if s["held"] else None,
                transactions=int(s["size"]),
                broken_transactions=int(s["broken"]),
                transaction_breakage=_r(transaction_breakage(s["broken"], s["size"])),
                protected_itemsets=km["attack"]["protected"],
                exposed_itemsets=km["attack"]["exposed"],
                km_breakage=_r(km_breakage(km["attack"]["exposed"], km["attack"]["protected"])),
                wmd=_r(s["wmd_sum"] / s["wmd_n"]) if s["wmd_n"] else None,
                wmd_transactions=int(s["wmd_n"]),
                wmd_measure=opts["wmd_measure"],
                wmd_terms=opts.get("wmd_terms", 0),
                wmd_unscored_terms=opts.get("wmd_unscored", 0),
                wmd_note=_wmd_note(s["wmd_n"], opts),
                baseline=ReassocBaseline(
                    accuracy=_r(baseline_acc),
                    transaction_breakage=_r(transaction_breakage(s["b_broken"], s["size"])),
                    exposed_itemsets=km["baseline"]["exposed"],
                    km_breakage=_r(km_breakage(km["baseline"]["exposed"], km["baseline"]["protected"])),
                    wmd=_r(s["b_wmd_sum"] / s["b_wmd_n"]) if s["b_wmd_n"] else None,
                ),
                lift_over_random=_r(acc / baseline_acc) if acc is not None and baseline_acc else None,
                intervals=interval_set(labels, ci, len(self.figures)),
                shared_chunks=shared,
                informed_reference=(_informed_reference(self.figures, s, _REF_PREFIX, opts["seed"], ctx.ties)
                                    if self.ref_ctx is not None else None),
            )
            self.figures.close()
        summary = ReassocSummary(
            clusters=self.n,
            transactions=int(sum(c.size for c in data.clusters)),
            anchors=int(self.totals["anchors"]),
            units=int(self.totals["units"]),
            placements=int(self.totals["placements"] + joint_placements),
            joint_clusters=int(ran.sum()),
            shared_units=int(self.joint_units[ran].sum()),
            shared_placements=joint_placements,
            seconds=round(time.perf_counter() - opts["started"], 4),
            summary_only=ctx.summary_only,
        )
        report = ReassociationReport(
            method=opts["method"], measure=opts["measure"], measure_kind=opts["kind"], background=opts["background"],
            k=opts["k"], term_placements=opts["term_placements"], seed=opts["seed"], ties=opts["ties"],
            unknown_terms=tuple(opts["unknown"]), summary=summary, metrics=metrics,
            clusters=self.entries, joint_clusters=self.joint_entries)
        return Reassociation(report, transactions)


class Figures:
    """Each cluster's figures (counts of placements, breakage, the informed reference's, k^m's:
    ``columns``), one row of float64 a cluster in cluster order, appended as clusters are
    closed: what the totals and the bootstrap intervals are taken over.  With ``spool``, on
    disk (:class:`~semtui.fileio.DiskArray`) and read back a block of clusters at a time, so
    that a release of any number of clusters costs the driver no memory for them."""

    def __init__(self, columns, spool: bool = False):
        from semtui.fileio import DiskArray

        self.columns = {name: i for i, name in enumerate(columns)}
        self.store = DiskArray(np.float64, "the clusters' figures") if spool else array("d")

    def at(self, names) -> list[int]:
        return [self.columns[name] for name in names]

    def append(self, row: np.ndarray) -> None:
        self.store.extend(np.asarray(row, dtype=np.float64))

    def __len__(self) -> int:
        return len(self.store) // len(self.columns)

    def rows(self, lo: int, hi: int) -> np.ndarray:
        """Clusters ``lo:hi``'s rows, ``(hi - lo) x columns``."""
        width = len(self.columns)
        if isinstance(self.store, array):
            flat = np.frombuffer(self.store, dtype=np.float64)[lo * width:hi * width]
        else:
            flat = self.store.read(lo * width, hi * width)
        return flat.reshape(-1, width)

    def sums(self) -> dict[str, float]:
        """Each column's total, a block of clusters at a time."""
        from semtui.metrics.reassociation import BOOTSTRAP_ROWS

        total = np.zeros(len(self.columns))
        for lo in range(0, len(self), BOOTSTRAP_ROWS):   # each column summed whole within a block (pairwise)
            total += self.rows(lo, lo + BOOTSTRAP_ROWS).T.copy().sum(axis=1)
        return {name: float(total[i]) for name, i in self.columns.items()}

    def bootstrap(self, numerators, denominators, seed: int) -> list[tuple[float, float] | None]:
        """:func:`~semtui.metrics.reassociation.bootstrap_ratios_of` of the columns named."""
        from semtui.metrics.reassociation import bootstrap_ratios_of

        num, den = self.at(numerators), self.at(denominators)

        def read(lo: int, hi: int):
            rows = self.rows(lo, hi)
            return rows[:, num], rows[:, den]

        return bootstrap_ratios_of(len(self), len(num), read, seed)

    def close(self) -> None:
        if not isinstance(self.store, array):
            self.store.close()


def cluster_lookup(truth: dict[int, np.ndarray]):
    """``cluster_of(rows)``: the cluster among ``truth`` (cluster -> its transactions, rows of
    the original; disjoint) holding each row, -1 for a row none holds.  Sorted rows and a
    search: the size of these clusters, not of the original."""
    rows = np.concatenate([np.asarray(t, dtype=np.int64) for t in truth.values()] + [np.zeros(0, np.int64)])
    owner = np.repeat(np.fromiter(truth, dtype=np.int64, count=len(truth)),
                      np.fromiter(map(len, truth.values()), dtype=np.int64, count=len(truth)))
    order = np.argsort(rows, kind="stable")
    rows, owner = rows[order], owner[order]

    def cluster_of(ts) -> np.ndarray:
        ts = np.asarray(ts, dtype=np.int64)
        if not len(rows):
            return np.full(len(ts), -1, dtype=np.int64)
        at = np.minimum(np.searchsorted(rows, ts), len(rows) - 1)
        return np.where(rows[at] == ts, owner[at], -1)

    return cluster_of
