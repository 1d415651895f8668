"""What does a re-association attack take back from disassociated MEPS? (issue 13, item 4)

1. **Full MEPS** (26,735 patients) disassociated with `semtui anonymize disassoc` for
   k = 2, 3, 5, m = 2 and a maximum cluster size N (default 30); every release is attacked with
   ABA, RGA, MRA and the optimal assignment under the `embedding` measure (the paper's stable
   ties, and ABA, MRA and assign again with seeded random ties), and with RA over five seeds.  Every figure is computed against the key and the original: accuracy (with its 95 %
   bootstrap interval over clusters), lift over RA (accuracy / mean RA accuracy), lift over the
   budget-matched random re-association (the report's own baseline), transaction breakage,
   k^m breakage and WMD, each beside RA's.
2. With ``--ngd``: MEPS split by line in two halves; the first half is disassociated the same
   way, the second becomes the attacker's `ngd:` index (as in docs/experiments.md), and the
   first half's releases are attacked with `ngd:` and `embedding`.
3. **Speed**: `semtui attack disassoc` (ABA, embedding, with key and original) on the k = 3
   release as a real process with ``--jobs 1`` and ``--jobs 2``: wall time and whether the two
   reports are identical apart from timings.

Output: Markdown on stdout (the tables of docs/experiments.md and docs/performance.md).

Run: python benchmarks/reassociation_experiment.py WORK_DIR [--max-cluster-size 30] [--ngd]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import time
from pathlib import Path

from _util import SHARED_DATA, machine
from _util import semtui as run_semtui

from semtui import formats
from semtui.attacks.reassociation import ReassociationOptions, run_reassociation
from semtui.formats.disassociated import read_key
from semtui.measures import open_measure
from semtui.wording import interval

#: the shared data (SEMTUI_SHARED_DATA overrides, e.g. from a git worktree)
SHARED = Path(os.environ.get("SEMTUI_SHARED_DATA", SHARED_DATA))
MEPS = SHARED / "meps2005-conditions.txt"
KS = [2, 3, 5]
#: (method, ties): the paper's stable ties, and seeded random ties (beyond the paper)
METHODS = [("aba", "first"), ("rga", "first"), ("mra", "first"), ("assign", "first"),
           ("aba", "random"), ("mra", "random"), ("assign", "random")]
RA_SEEDS = [1, 2, 3, 4, 5]


def fmt(x, digits=3) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


def semtui(*args: str) -> None:
    run_semtui(*args, capture=False)


def make_release(original: Path, k: int, n: int, work: Path, tag: str) -> tuple[Path, Path]:
    out, key = work / f"{tag}-k{k}-n{n}.json", work / f"{tag}-k{k}-n{n}.key.json"
    if not out.exists() or not key.exists():
        semtui("anonymize", "disassoc", original, "-k", k, "-m", 2, "--max-cluster-size", n, "-o", out, "--key", key)
    return out, key


def attack_table(title: str, releases: dict[int, tuple[Path, Path]], original: Path, measures: dict) -> list[dict]:
    orig = formats.read_transactions(original)
    wmd = measures.get("embedding") or open_measure("embedding")
    rows = []
    print(f"\n### {title}\n")
    print("| k | measure | method | accuracy (95% CI) | lift over RA | lift over budget-matched random | "
          "transaction breakage (RA) | k^m breakage (RA) | WMD (RA) | time (s) |")
    print("|---:|---|---|---|---:|---:|---|---|---|---:|")
    for k, (path, key_path) in releases.items():
        data = formats.read(path)
        key = read_key(key_path)
        for mname, measure in measures.items():
            ra = []
            for seed in RA_SEEDS:
                ra.append(run_reassociation(data, key, orig, ReassociationOptions(method="ra", seed=seed),
                                            measure=measure, wmd=wmd).report["metrics"])

            def mean(key_name, runs=ra):
                vals = [r[key_name] for r in runs if r[key_name] is not None]
                return sum(vals) / len(vals) if vals else None

            ra_acc, ra_tb, ra_km, ra_wmd = mean("accuracy"), mean("transaction_breakage"), mean("km_breakage"), mean("wmd")
            for method, ties in METHODS + [("ra", "first")]:
                t0 = time.perf_counter()
                if method == "ra":
                    m = ra[0]
                    seconds = None
                else:
                    m = run_reassociation(data, key, orig, ReassociationOptions(method=method, seed=1, ties=ties),
                                          measure=measure, wmd=wmd).report["metrics"]
                    seconds = time.perf_counter() - t0
                ci = interval(m, "accuracy")
                lift_ra = m["accuracy"] / ra_acc if ra_acc else None
                row = {"k": k, "measure": mname, "method": method, "ties": ties, **{key_: m[key_] for key_ in (
                    "accuracy", "transaction_breakage", "km_breakage", "wmd", "lift_over_random", "placements",
                    "correct", "protected_itemsets", "exposed_itemsets")},
                    "accuracy_ci": list(ci) if ci else None, "lift_over_ra": lift_ra, "ra_accuracy": ra_acc, "seconds": seconds}
                rows.append(row)
                label = ("RA (seed 1; mean of 5 in brackets)" if method == "ra"
                         else method.upper() + (", random ties" if ties == "random" else ""))
                acc = f"{fmt(m['accuracy'])} ({fmt(ci[0])}–{fmt(ci[1])})" if ci else fmt(m["accuracy"])
                if method == "ra":
                    acc += f" [{fmt(ra_acc)}]"
                print(f"| {k} | {mname} | {label} | {acc} | {fmt(lift_ra, 2)} | {fmt(m['lift_over_random'], 2)} | "
                      f"{fmt(m['transaction_breakage'])} ({fmt(ra_tb)}) | {fmt(m['km_breakage'])} ({fmt(ra_km)}) | "
                      f"{fmt(m['wmd'])} ({fmt(ra_wmd)}) | {fmt(seconds, 1)} |", flush=True)
    return rows


def timing(release: Path, key: Path, work: Path) -> dict:
    out = {}
    reports = {}
    for jobs in (1, 2):
        best = float("inf")
        for rep in range(2):
            path = work / f"timing-j{jobs}-{rep}.json"
            t0 = time.perf_counter()
            run_semtui("attack", "disassoc", release, "--key", key, "--original", MEPS, "--jobs", jobs,
                       "--report", path)
            best = min(best, time.perf_counter() - t0)
            doc = json.loads(path.read_text())
            doc["summary"].pop("seconds")
            reports[jobs] = doc
        out[jobs] = best
    out["identical"] = reports[1] == reports[2]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("work", type=Path)
    ap.add_argument("--max-cluster-size", type=int, default=30)
    ap.add_argument("--ngd", action="store_true", help="also the half-MEPS NGD experiment")
    ap.add_argument("--ngd-only", action="store_true", help="only the half-MEPS NGD experiment (k = 3)")
    ap.add_argument("--no-timing", action="store_true")
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    n = args.max_cluster_size
    print(f"# Re-association on disassociated MEPS\n\n{datetime.date.today()} — {machine()}; "
          f"k = {KS}, m = 2, max cluster size {n}.")
    releases = {k: make_release(MEPS, k, n, args.work, "meps") for k in KS}
    embedding = open_measure("embedding")
    rows = [] if args.ngd_only else attack_table("Full MEPS, embedding", releases, MEPS, {"embedding": embedding})
    if args.ngd or args.ngd_only:
        lines = MEPS.read_text().splitlines()
        half = len(lines) // 2
        first, second = args.work / "meps-first-half.txt", args.work / "meps-second-half.txt"
        first.write_text("\n".join(lines[:half]) + "\n")
        second.write_text("\n".join(lines[half:]) + "\n")
        index = args.work / "meps-second-half.sqlite"
        if not index.exists():
            semtui("corpus", "build", second, "--transactions", "-o", index)
        half_releases = {k: make_release(first, k, n, args.work, "meps-half") for k in ([3] if args.ngd_only else KS)}
        measures = {"ngd": open_measure(f"ngd:{index}")}
        if not args.ngd_only:
            measures["embedding"] = embedding
        rows += attack_table("First half of MEPS, NGD over the second half", half_releases, first, measures)
    (args.work / ("reassociation-ngd.json" if args.ngd_only else "reassociation-experiment.json")).write_text(
        json.dumps(rows, indent=1))
    if not args.no_timing and not args.ngd_only:
        t = timing(*releases[3], args.work)
        print("\n### Speed: `attack disassoc` on MEPS k = 3 (ABA, embedding, key + original)\n")
        print(f"--jobs 1: {t[1]:.1f} s; --jobs 2: {t[2]:.1f} s; speed-up {t[1] / t[2]:.2f}x; "
              f"reports identical apart from timings: {t['identical']}")


if __name__ == "__main__":
    main()
