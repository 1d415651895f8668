"""Time and peak memory of `semtui assess` (issue 21), whole processes, on two MEPS releases:

* **MEPS-half k=3**: the first 13,367 patients of ../shared/data/meps2005-conditions.txt released
  by `semtui anonymize setgen` (COAT-style, k = 3, 300 random 3-6-item constraints, seed 1,
  utility all — as benchmarks/strongest_attacker.py builds it); `--original` the first half,
  `--background` the other 13,368 patients, `--jobs 2`.  Goal: under 2 minutes.
* **Disassociated MEPS**: all 26,735 patients, `semtui anonymize disassoc -k 3 -m 2
  --max-cluster-size 30`, with `--key` and `--original`.  Goal: under 2 minutes.

Prints a markdown table (seconds, peak RSS, the strongest attack and its take) with the machine
and the load.  Run: nice python benchmarks/bench_assess.py WORK_DIR   (~5 minutes)
"""

from __future__ import annotations

import datetime
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _util import SHARED_DATA, env_for, machine, meps_halves, run_measured
from _util import semtui as run_semtui

MEPS = SHARED_DATA / "meps2005-conditions.txt"


def semtui(*args: str) -> None:
    run_semtui(*args, env=env_for())


def main() -> None:
    work = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/bench-assess")
    work.mkdir(parents=True, exist_ok=True)
    first, second = meps_halves(work)
    rel = work / "meps-half1-k3.txt"
    if not rel.exists():
        semtui("anonymize", "setgen", str(first), "-k", "3", "-o", str(rel), "--random-privacy", "300",
               "--seed", "1", "--sizes", "3-6", "--utility", "all")
    dis, key = work / "meps-disassoc.json", work / "meps-disassoc.key.json"
    if not dis.exists():
        semtui("anonymize", "disassoc", str(MEPS), "-k", "3", "-m", "2", "--max-cluster-size", "30",
               "-o", str(dis), "--key", str(key))
    runs = [
        ("MEPS-half COAT k=3, --original, --background (the other half), --jobs 2",
         ["assess", str(rel), "--original", str(first), "--background", str(second), "--jobs", "2",
          "--report", str(work / "setgen.json")], work / "setgen.json"),
        ("disassociated MEPS k=3 m=2 cluster size 30, --key, --original, --jobs 2",
         ["assess", str(dis), "--key", str(key), "--original", str(MEPS), "--jobs", "2",
          "--report", str(work / "disassoc.json")], work / "disassoc.json"),
    ]
    print(f"# semtui assess — {datetime.date.today()} — {machine()} — load before: {os.getloadavg()}")
    print()
    print("| release | seconds (whole process) | peak RSS MB | attacks | strongest | its take |")
    print("|---|---:|---:|---:|---|---|")
    for name, args, rep in runs:
        secs, rss = run_measured(args, repeat=1)
        doc = json.loads(rep.read_text())
        s = doc["strongest"] or {}
        f = s.get("figures") or {}
        take = (f"recall {f['recall']:.3f}, precision {f['precision']:.3f}, error ratio {f['error_ratio']:.2f}"
                if "recall" in f else
                f"accuracy {f['accuracy']:.3f}, lift {f['lift_over_random']:.2f}" if f else "none beat chance")
        print(f"| {name} | {secs:.1f} | {rss:.0f} | {len(doc['attacks'])} | {s.get('attack', '-')} | {take} |")
    print()
    print(f"load after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
