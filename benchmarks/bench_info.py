"""`semtui info` on the real data in ../shared/data: wall time (process start-up included)
and peak resident memory.  Goal (issue 2): BMS-WebView-2 under 1.5 s and 150 MB.

Run: python benchmarks/bench_info.py
"""

from __future__ import annotations

import datetime

from _util import SHARED_DATA, machine, run_measured

FILES = ["bms-webview-1.dat", "bms-webview-2.dat", "meps2005-conditions.txt"]


def main() -> None:
    print(f"# semtui info — {datetime.date.today()} — {machine()}")
    print("| file | wall time (s) | peak RSS (MB) |\n|---|---:|---:|")
    for name in FILES:
        path = SHARED_DATA / name
        if not path.exists():
            print(f"| {name} | (missing) | |")
            continue
        secs, mb = run_measured(["info", str(path), "--json"])
        print(f"| {name} | {secs:.2f} | {mb:.0f} |")


if __name__ == "__main__":
    main()
