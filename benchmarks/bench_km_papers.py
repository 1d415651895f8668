"""The k^m paper's own setting on the full BMS data (issue 38, class 2): ``semtui anonymize km``
with AA, k = 5, m = 3 on BMS-WebView-1 and -2 (Terrovitis et al. 2011, Fig. 13a), over the
fanout-5 hierarchies ``semtui hierarchy build`` makes (the paper's average fanout) and, for
WV2, the shipped fanout-4 hierarchy the issue's refusal came from.  Each run is a fresh process
(start-up, reading and writing the release included): wall time, peak RSS, the engine's time,
NCP and count-tree nodes from the report, the machine's load before and after.

Run: nice python benchmarks/bench_km_papers.py [--repeat N]      (~1 min on 2 busy cores)
"""

from __future__ import annotations

import datetime
import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _util import SHARED_DATA, machine, run_measured, semtui

DATA = SHARED_DATA if SHARED_DATA.exists() else Path("/work/shared/data")
REPEAT = int(sys.argv[sys.argv.index("--repeat") + 1]) if "--repeat" in sys.argv else 1


def main() -> None:
    print(f"{datetime.date.today()} — {machine()}; load {os.getloadavg()[0]:.1f} at the start")
    print()
    print("| data | hierarchy | wall s | peak RSS MB | engine s | count-tree nodes | NCP | load (1 min) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        runs = []
        for name in ("bms-webview-1", "bms-webview-2"):
            data = DATA / f"{name}.dat"
            h5 = work / f"{name}.f5.txt"
            semtui("hierarchy", "build", data, "--fanout", "5", "-o", h5)
            runs.append((name, data, h5, "fanout 5 (`hierarchy build`)"))
        shipped = DATA / "bms-webview-2.hierarchy.txt"
        if shipped.is_file():
            runs.append(("bms-webview-2", DATA / "bms-webview-2.dat", shipped, "shipped (fanout 4)"))
        for name, data, h, label in runs:
            out, report = work / f"{name}.km.txt", work / f"{name}.km.json"
            wall, rss = run_measured(["anonymize", "km", str(data), "--hierarchy", str(h), "-k", "5", "-m", "3",
                                      "--algorithm", "aa", "-o", str(out), "--report", str(report)], REPEAT)
            doc = json.loads(report.read_text())
            print(f"| {name} | {label} | {wall:.2f} | {rss:.0f} | {doc['time_seconds']:.2f} | "
                  f"{doc['count_tree_nodes']:,} | {100 * doc['ncp']:.2f} % | {os.getloadavg()[0]:.1f} |", flush=True)


if __name__ == "__main__":
    main()
