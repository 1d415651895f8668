"""`semtui anonymize setgen` and `semtui check privacy` on MEPS: 100, 300 and 1,000 random
privacy constraints (3-6 items, seed 1), k in {2, 5, 10}, one utility constraint of every
item.  Wall time (process start-up, reading and writing included), the anonymiser's own time
(from the sidecar) and peak resident memory.  Goal (issue 5): 300 constraints, k=5 < 10 s.

Run: python benchmarks/bench_anonymize.py
"""

from __future__ import annotations

import datetime
import json
import sys
import tempfile
from pathlib import Path

from _util import SHARED_DATA, machine, run_measured

MEPS = SHARED_DATA / "meps2005-conditions.txt"
CONSTRAINTS = (100, 300, 1000)
KS = (2, 5, 10)


def main() -> None:
    if not MEPS.exists():
        sys.exit(f"{MEPS} is missing")
    print(f"# semtui anonymize setgen / check privacy on MEPS — {datetime.date.today()} — {machine()}")
    print("| constraints | k | unprotected before | generalised items (items) | added items "
          "| suppressed | anonymiser (s) | setgen wall (s) | setgen RSS (MB) | check wall (s) "
          "| check RSS (MB) | check |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "release.txt"
        for n in CONSTRAINTS:
            for k in KS:
                secs, mb = run_measured(["anonymize", "setgen", str(MEPS), "-k", str(k), "-o", str(out),
                                         "--random-privacy", str(n), "--seed", "1"], repeat=2)
                side = json.loads(Path(str(out) + ".json").read_text())
                s = side["stats"]
                csecs, cmb = run_measured(["check", "privacy", str(out), "--privacy", str(out) + ".json",
                                           "-k", str(k), "--json"], repeat=2)  # raises unless exit 0
                print(f"| {n} | {k} | {s['violated_before']} | {s['generalised_items']} "
                      f"({s['items_generalised']}) | {s['added_items']:,} | {s['suppressed_items']} "
                      f"| {s['seconds']:.2f} | {secs:.2f} | {mb:.0f} | {csecs:.2f} | {cmb:.0f} | holds |")


if __name__ == "__main__":
    main()
