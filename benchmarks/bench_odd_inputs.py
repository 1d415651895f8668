"""Odd inputs of issue 19 (class 3): wall time, peak RSS and exit code of each command, as a
fresh process (start-up included).  What used to run out of memory is now refused in one
line before it is built, or runs in memory bounded by the input.

Run: nice python benchmarks/bench_odd_inputs.py [WORKDIR] > report.md
"""

from __future__ import annotations

import datetime
import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import REPO, SHARED_DATA, env_for, machine, run_once, semtui


def measure(args: list, cwd: Path) -> tuple[int, float, float, str]:
    run = run_once(*args, env=env_for(), cwd=cwd, ok_exit=None)
    return run.returncode, run.wall, run.peak_mb, run.last_error


def main() -> None:
    work = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp(prefix="semtui-odd-"))
    work.mkdir(parents=True, exist_ok=True)
    (work / "wide.dat").write_text((" ".join(map(str, range(10_000))) + "\n") * 50)
    wide = {"format": "semtui-disassociated/1", "k": 2, "m": 2,
            "clusters": [{"id": "P1", "size": 10, "record_chunks": [[[f"a{i}" for i in range(1000)]] * 10],
                          "term_chunk": [f"t{i}" for i in range(60_000)]}]}
    (work / "wide-release.json").write_text(json.dumps(wide))
    doc = json.loads((REPO / "sample_data" / "disassociated.json").read_text())
    doc["clusters"][0]["size"] = 10 ** 11
    (work / "huge-claim.json").write_text(json.dumps(doc))
    meps = SHARED_DATA / "meps2005-conditions.txt"
    bms2 = SHARED_DATA / "bms-webview-2.dat"
    prep = [["hierarchy", "build", meps, "--fanout", "5", "-o", "meps-h.txt"],
            ["anonymize", "km", meps, "--hierarchy", "meps-h.txt", "-k", "5", "-m", "2", "-o", "meps-km.txt"],
            ["hierarchy", "build", bms2, "--fanout", "5", "-o", "bms2-h.txt"]]
    for args in prep:
        semtui(*args, cwd=work, env=env_for())
    cases = [
        ("check km -m 3, 50 x the same 10,000 items", ["check", "km", "wide.dat", "-k", "2", "-m", "3"]),
        ("check km -m 2, 50 x the same 10,000 items", ["check", "km", "wide.dat", "-k", "2", "-m", "2"]),
        ("attack disassoc, 1,000 x 60,000 term pairs", ["attack", "disassoc", "wide-release.json"]),
        ("attack disassoc, a cluster claiming 10^11 records", ["attack", "disassoc", "huge-claim.json"]),
        ("anonymize km -m 1000, BMS-WebView-2 (fanout 5)",
         ["anonymize", "km", bms2, "--hierarchy", "bms2-h.txt", "-k", "5", "-m", "1000", "-o", "o.txt"]),
        ("check km -k 5 -m 2, MEPS k^m release (AA, fanout 5)", ["check", "km", "meps-km.txt", "-k", "5", "-m", "2"]),
        ("attack setgen --original, MEPS k^m release (no row keeps context)",
         ["attack", "setgen", "meps-km.txt", "--original", meps]),
    ]
    load = os.getloadavg()
    print(f"# Odd inputs — {datetime.date.today()} — {machine()} — load {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}\n")
    print("| command | exit | seconds | peak RSS (MB) | last stderr line |")
    print("|---|---:|---:|---:|---|")
    for name, args in cases:
        rc, seconds, rss, err = measure(args, work)
        print(f"| {name} | {rc} | {seconds:.1f} | {rss:.0f} | {err[:110]} |")


if __name__ == "__main__":
    main()
