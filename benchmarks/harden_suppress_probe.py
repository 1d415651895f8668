"""Does suppressing rare items bring set generalisation to chance against the original's own
statistics? (issue 37; docs/anonymize.md, *Hardening measured on the MEPS half*, what was tried.)

`semtui harden --family setgen` on the MEPS half is far from chance against ``self`` (the informed
reference: the original's own item and pair counts; AUC within table 0.653, error ratio 0.55).  One
reading of why: a rare item's pair counts in ``self`` are mostly the rows being attacked, so its
original member co-occurs with the row's context by construction.  This probe tests that reading:
before COAT runs (the plain and the hardened anonymisation alike), every item held by fewer than T
of the original's transactions is suppressed (``--thresholds``: T = 0 is harden unchanged), then
harden's own proof runs (the strongest attack with the knowledge given and with ``self``).  Beside
each release it counts the **certain eliminations** an attacker with the original's pair counts has:
added members that never co-occur in the original with some other item of the row (a plain item, or
every member of another generalised item): such a member cannot be the original one.

The suppression is done by this probe only (COAT's generaliser patched in this process): semtui has
no option for it, as the measurement below says it does not help.

    nice python benchmarks/harden_suppress_probe.py [--work DIR] [--thresholds 0,20,50] [--knowledge self|background]
"""

from __future__ import annotations

import argparse
import datetime
import os
import resource
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import machine, meps_halves


def suppress_below(threshold: int) -> None:
    """COAT's generaliser with every item of support below ``threshold`` suppressed before it starts."""
    from semtui.anonymize.setgen import coat

    init = getattr(coat._Generaliser, "_probe_init", coat._Generaliser.__init__)
    rows = getattr(coat._Generaliser, "_probe_rows", coat._Generaliser.support_rows)

    def patched(self, data, classes, k, choice):
        init(self, data, classes, k, choice)
        for i in np.flatnonzero(self.orig_sup < threshold):
            self.suppress(int(i))

    coat._Generaliser._probe_init, coat._Generaliser._probe_rows = init, rows
    coat._Generaliser.__init__ = patched
    # a constraint holding a suppressed item has no tokens: support 0 (COAT's rule for suppressed items)
    coat._Generaliser.support_rows = lambda self, toks: np.zeros(0, dtype=np.int64) if toks is None else \
        rows(self, toks)


def certain(original, release) -> tuple[int, int]:
    """(added member cells, of them certain eliminations for an attacker with the original's pair
    counts): a member added to a row's generalised item that never co-occurs in the original with a
    plain item of the row, or with any member of another generalised item of the row."""
    names = list(original.vocab.items)
    index = {x: i for i, x in enumerate(names)}
    inc = original.incidence().astype(np.int32).tocsr()
    together = (inc.T @ inc).toarray() > 0
    rel_id = np.array([index.get(x, -1) for x in release.vocab.items], dtype=np.int64)
    added = sure = 0
    for r in range(release.n_transactions):
        toks = release.transaction(r).tolist()
        held = set(inc.indices[inc.indptr[r]:inc.indptr[r + 1]].tolist())
        plain = [int(rel_id[t]) for t in toks if t >= 0 and rel_id[t] >= 0]
        groups = [rel_id[release.members(-t - 1)] for t in toks if t < 0]
        for gi, g in enumerate(groups):
            others = [h for hj, h in enumerate(groups) if hj != gi]
            for y in g.tolist():
                if y < 0 or y in held:
                    continue
                added += 1
                if not all(together[y, c] for c in plain) or not all(together[y, h].any() for h in others):
                    sure += 1
    return added, sure


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", type=Path, default=Path("/tmp/semtui-harden-suppress"))
    ap.add_argument("--thresholds", default="0,20,50")
    ap.add_argument("--knowledge", choices=("self", "background"), default="background")
    a = ap.parse_args()
    a.work.mkdir(parents=True, exist_ok=True)
    half1, half2 = meps_halves(a.work)
    from semtui import formats
    from semtui.harden import harden

    original = formats.read_transactions(half1)
    knowledge = "self" if a.knowledge == "self" else str(half2)
    print(f"# harden setgen on the MEPS half, rare items suppressed first — {datetime.date.today()} — {machine()}")
    print(f"# knowledge hardened against: {a.knowledge}; k = 3, 300 random 3-6 constraints, seed 1")
    print()
    print("| suppressed below | release | attack knowledge | method | AUC within table | error ratio | recall | "
          "pair-support error | suppressed items (occurrences) | certain eliminations | load before | seconds |")
    print("|---:|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for t in (int(x) for x in a.thresholds.split(",")):
        suppress_below(t)
        load = os.getloadavg()[0]
        started = time.perf_counter()
        out = harden(original, family="setgen", knowledge=knowledge, original_path=half1,
                     output=a.work / f"hardened-{t}.txt",
                     params={"k": 3, "random_privacy": 300, "sizes": "3-6", "seed": 1, "utility": "all"})
        seconds = time.perf_counter() - started
        rep = out.report.to_json()
        made = out.made.data
        added, sure = certain(original, made)
        for side in ("hardened", "plain"):
            p, u = rep[side], rep[side]["utility"]
            for at in p["attacks"]:
                print(f"| {t} | {side} | {'self' if at['knowledge'] == 'self' else 'background'} | "
                      f"{at['method'].upper()} | {at['auc_within_table']:.3f} | {at['error_ratio']:.2f} | "
                      f"{at['recall']:.3f} | {u['pair_support_error']:.3f} | "
                      f"{u.get('suppressed_items', '-')} ({u['suppressed_occurrences']}) | "
                      + (f"{sure:,} of {added:,} ({sure / added:.1%})" if side == "hardened" and added else "")
                      + f" | {load:.2f} | {seconds:.1f} |")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\npeak RSS of the probe: {peak:.0f} MB")


if __name__ == "__main__":
    main()
