"""Cover problems on disassociated BMS-WebView-1/2 (issue 13, items 3-4; the cover-problem
paper's Fig. 4 shape): k = 3, m = 2, max cluster size 10..50, each attacker.

Each release is made with `semtui anonymize disassoc`; then `semtui cover` runs as a real
process per attacker (strong; moderate and weak with seed 1 and the original): the whole
command's wall time (best of ``--repeat``), the cover problems, the breaches and the vulnerable
records, and for the strong attacker how many (x, covered item) pairs really occur together in
some original record.  Output: a Markdown table on stdout.

Run: python benchmarks/bench_cover.py WORK_DIR [--sizes 10,20,30,40,50] [--repeat 3]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import time
from pathlib import Path

from _util import SHARED_DATA, machine, semtui

#: the shared data (SEMTUI_SHARED_DATA overrides, e.g. from a git worktree)
SHARED = Path(os.environ.get("SEMTUI_SHARED_DATA", SHARED_DATA))

DATASETS = {"BMS-WebView-1": SHARED / "bms-webview-1.dat", "BMS-WebView-2": SHARED / "bms-webview-2.dat"}
ATTACKERS = ["strong", "moderate", "weak"]


def cover(release: Path, attacker: str, original: Path, repeat: int) -> tuple[float, dict]:
    best, doc = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        r = semtui("cover", release, "--attacker", attacker, "--original", original, "--seed", "1", "--json",
                   check=False)
        best = min(best, time.perf_counter() - t0)
        if r.returncode not in (0, 1):
            raise SystemExit(r.stderr)
        doc = json.loads(r.stdout)
    return best, doc


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("work", type=Path)
    ap.add_argument("--sizes", default="10,20,30,40,50")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"# `semtui cover` on disassociated BMS-WebView (k = 3, m = 2)\n\n{datetime.date.today()} — {machine()}; "
          f"load {os.getloadavg()[0]:.2f}\n")
    print("| dataset | max cluster size | clusters | attacker | cover problems | breaches | vulnerable records | "
          "really co-occurring pairs | time (s) |")
    print("|---|---:|---:|---|---:|---:|---:|---:|---:|")
    for name, path in DATASETS.items():
        for n in sizes:
            release = args.work / f"{path.stem}-k3-m2-n{n}.json"
            if not release.exists():
                semtui("anonymize", "disassoc", path, "-k", "3", "-m", "2", "--max-cluster-size", n, "-o", release)
            for attacker in ATTACKERS:
                seconds, doc = cover(release, attacker, path, args.repeat if attacker == "strong" else 1)
                s = doc["summary"]
                real = s.get("real_pairs") if attacker == "strong" else None
                print(f"| {name} | {n} | {s['clusters']} | {attacker} | {s['cover_problems']} | {s['breaches']} | "
                      f"{s['vulnerable_records']} | {'–' if real is None else real} | {seconds:.2f} |", flush=True)


if __name__ == "__main__":
    main()
