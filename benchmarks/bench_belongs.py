"""The belong-together check (issue 19, class 4) on real data: how long ``check_belongs`` takes
on disassociated BMS-WebView-2 with its key and original (the largest release a command checks
against both), and on a MEPS set-generalised release with its original.

The releases are made with ``semtui anonymize`` into WORK_DIR; the check runs in this process
(best of ``--repeat``).  Output: a Markdown table on stdout.

Run: python benchmarks/bench_belongs.py WORK_DIR [--repeat 3]
"""

from __future__ import annotations

import argparse
import datetime
import os
from pathlib import Path

from _util import SHARED_DATA, best, machine, semtui


def make(args: list) -> None:
    semtui(*args)



def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("work", type=Path)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    from semtui import formats
    from semtui.formats.disassociated import read_key
    from semtui.model.belongs import check_belongs

    bms = SHARED_DATA / "bms-webview-2.dat"
    rel, key = args.work / "bms2.json", args.work / "bms2.key.json"
    make(["anonymize", "disassoc", bms, "-k", 2, "-m", 2, "--max-cluster-size", 30, "-o", rel, "--key", key])
    meps = SHARED_DATA / "meps2005-conditions.txt"
    sg = args.work / "meps-setgen.txt"
    make(["anonymize", "setgen", meps, "-k", 3, "--random-privacy", 300, "--seed", 1, "-o", sg])
    print(f"# `check_belongs` on real data\n\n{datetime.date.today()} — {machine()}; load {os.getloadavg()[0]:.2f}\n")
    print("| release | with | transactions | seconds |")
    print("|---|---|---:|---:|")
    d, k, o = formats.read(rel), read_key(key), formats.read_transactions(bms)
    print(f"| disassociated BMS-WebView-2 (k=2, m=2, clusters <= 30) | key | {d.n_transactions:,} | "
          f"{best(lambda: check_belongs(d, key=k), args.repeat):.2f} |")
    print(f"| disassociated BMS-WebView-2 (k=2, m=2, clusters <= 30) | key and original | {d.n_transactions:,} | "
          f"{best(lambda: check_belongs(d, key=k, original=o), args.repeat):.2f} |")
    s, so = formats.read_transactions(sg), formats.read_transactions(meps)
    print(f"| MEPS set-generalised (k=3, 300 constraints) | original | {s.n_transactions:,} | "
          f"{best(lambda: check_belongs(s, original=so), args.repeat):.2f} |")


if __name__ == "__main__":
    main()
