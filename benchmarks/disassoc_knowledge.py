"""Which knowledge re-associates a disassociated release? (issue 20, item 5)

Per dataset one release (`disassociate`, k = 3, m = 2, max cluster size 30) of the part the
publisher releases, and the attacker's background: transactions of a similar population.

* **MED**: the even abstracts as transactions of their content words (as in
  docs/experiments.md); background = the odd abstracts (all their words of >= 4 letters), also as
  the `ngd:` corpus;
* **MEPS**: the first 13,367 patients released; background = the other 13,368 (also the `ngd:`
  index);
* **BMS-WebView-2**: the first half of the sessions released; background = the second half
  (item ids: no semantic measure applies).

Every release is attacked with RA (seed 1), the paper's ABA / RGA / MRA under each measure and
NBA (naive Bayes over the background's co-occurrence), all with seeded random ties (the paper's
stable ties pile units onto the first anchors: docs/experiments.md; for NBA that is its default
rule, the others are given ``ties="random"``); each against the budget-matched random
re-association (which obeys the chunk rule), with 95 % bootstrap intervals over clusters.  The
informed reference (NBA with the original's own statistics, under the attack's tie rule) is
printed once per release, from the NBA run.

Run: python benchmarks/disassoc_knowledge.py WORK_DIR [--parts med,meps,bms2] [--methods ra,paper,nba] > out.md
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import time
from pathlib import Path

from _data import NoMeasure, med_abstracts, med_transactions, split_meps
from _util import SHARED_DATA, machine

from semtui import formats
from semtui.anonymize.disassociation import disassociate
from semtui.attacks.background import Background
from semtui.attacks.reassociation import ReassociationOptions, run_reassociation
from semtui.measures import open_measure
from semtui.model import TransactionData

K, M, N = 3, 2, 30
PAPER = ("aba", "rga", "mra")


def fmt(x, digits: int = 3) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


def iv(m: dict, key: str, digits: int = 3) -> str:
    from semtui.wording import interval

    v = interval(m, key)
    return fmt(m.get(key), digits) + (f" [{v[0]:.{digits}f}, {v[1]:.{digits}f}]" if v else "")


def med(work: Path):
    even, index = med_transactions(work)
    odd = TransactionData.from_lists([sorted(set(re.findall(r"[a-z][a-z\-]{3,}", body.lower())))
                                      for number, body in med_abstracts() if number % 2])
    return even, Background.from_transactions(odd, "the odd abstracts"), {"ngd (odd abstracts)": f"ngd:{index}",
                                                                          "embedding": "embedding"}


def meps(work: Path):
    first, index = split_meps(work)
    second = formats.read_transactions(work / "meps-half2.txt")
    return first, Background.from_transactions(second, "the other 13,368 patients"), {
        "ngd (other half)": f"ngd:{index}", "embedding": "embedding"}


def bms2(work: Path):
    whole = formats.read_transactions(SHARED_DATA / "bms-webview-2.dat")
    half = whole.n_transactions // 2
    rows = [whole.token_names(i) for i in range(whole.n_transactions)]
    first = TransactionData.from_lists(rows[:half])
    second = TransactionData.from_lists(rows[half:])
    return first, Background.from_transactions(second, "the second half of the sessions"), {}


PARTS = {"med": ("MED words", med), "meps": ("MEPS", meps), "bms2": ("BMS-WebView-2", bms2)}


def run(data, key, orig, opts, **kw) -> tuple[dict, float]:
    t0 = time.perf_counter()
    m = run_reassociation(data, key, orig, opts, **kw).report["metrics"]
    return m, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("work", type=Path)
    ap.add_argument("--parts", default="med,meps,bms2")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--methods", default="ra,paper,nba", help="which rows: ra, paper (ABA/RGA/MRA per measure), nba")
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    print(f"# Re-association with and without knowledge\n\n{datetime.date.today()} — {machine()}; "
          f"load at start {os.getloadavg()[0]:.1f}; k = {K}, m = {M}, max cluster size {N}; "
          "all methods with seeded random ties (seed 1).\n")
    print("| dataset | knowledge | method | accuracy [95 % CI] | lift over budget-matched random [95 % CI] | "
          "transaction breakage (random) | k^m breakage (random) | s |")
    print("|---|---|---|---|---|---|---|---:|")
    results = []
    for part in args.parts.split(","):
        title, load = PARTS[part]
        orig, bg, measures = load(args.work)
        rel = disassociate(orig, K, M, N)
        data, key = rel.data, rel.key
        base = dict(seed=1, ties="random", wmd_measure=None, jobs=args.jobs)
        which = set(args.methods.split(","))
        rows = []
        if "ra" in which:
            rows.append(("none", "RA", ReassociationOptions(method="ra", **base), {"measure": NoMeasure()}))
        for mname, spec in measures.items() if "paper" in which else ():
            measure = open_measure(spec)
            rows += [(mname, meth.upper(), ReassociationOptions(method=meth, **base), {"measure": measure})
                     for meth in PAPER]
        if "nba" in which:  # NBA under its default tie rule (seeded random), as `attack disassoc --background` runs it
            rows.append((f"background: {bg.source}", "NBA",
                         ReassociationOptions(method="nba", background=bg.source, seed=1, wmd_measure=None,
                                          jobs=args.jobs), {"background": bg}))
        ref = None
        for knowledge, label, opts, kw in rows:
            m, secs = run(data, key, orig, opts, **kw)
            ref = m["informed_reference"]  # the last row's: NBA's when it runs
            b = m["baseline"]
            results.append({"dataset": title, "knowledge": knowledge, "method": label, "seconds": secs,
                            **{k: m[k] for k in ("accuracy", "lift_over_random", "transaction_breakage", "km_breakage",
                                                 "intervals", "placements", "correct", "baseline")}})
            print(f"| {title} | {knowledge} | {label} | {iv(m, 'accuracy')} | {iv(m, 'lift_over_random', 2)} | "
                  f"{fmt(m['transaction_breakage'])} ({fmt(b['transaction_breakage'])}) | "
                  f"{fmt(m['km_breakage'])} ({fmt(b['km_breakage'])}) | {secs:.0f} |", flush=True)
        results.append({"dataset": title, "knowledge": "the original itself", "method": "informed reference", **ref})
        print(f"| {title} | *the original itself (reference, not an attack; {ref.get('ties')} ties)* | NBA | "
              f"{iv(ref, 'accuracy')} | "
              f"{iv(ref, 'lift_over_random', 2)} | {fmt(ref['transaction_breakage'])} | | |", flush=True)
        s = rel.data
        print(f"| {title} | *release* | {len(s.clusters):,} clusters, {s.n_transactions:,} transactions | | | | | |",
              flush=True)
    (args.work / "disassoc-knowledge.json").write_text(json.dumps(results, indent=1))
    print(f"\nload at end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
