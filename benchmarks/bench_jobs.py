"""``attack setgen --jobs N``: the same report serial or parallel, and how much faster (issue 9).

Runs the whole command (start-up, reading, scoring, the per-group kernels, metrics, writing
the report) on the full-MEPS k=3 release of ``benchmarks/meps_releases.py`` with RBA, for
``--jobs 1`` and ``--jobs 2``; checks that the two reports are equal but for the timing, and
prints the speed-up.  Also the start-up of ``semtui --help``.

Run: python benchmarks/bench_jobs.py RELEASE_DIR [--method rba] [--repeat 2]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from _util import SHARED_DATA, machine, run_measured, semtui

MEPS = SHARED_DATA / "meps2005-conditions.txt"


def without_timings(path: Path) -> dict:
    doc = json.loads(path.read_text())
    doc["summary"].pop("seconds", None)
    return doc


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("release_dir", type=Path)
    ap.add_argument("--method", default="rba")
    ap.add_argument("--k", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    release = args.release_dir / f"meps-k{args.k}.txt"
    print(f"# attack setgen --jobs - {datetime.date.today()} - {machine()} - load {os.getloadavg()[0]:.1f}")
    starts = []
    for _ in range(10):
        t0 = time.perf_counter()
        semtui("--help")
        starts.append(time.perf_counter() - t0)
    print(f"semtui --help: best {min(starts):.3f} s, median {sorted(starts)[5]:.3f} s over 10 runs")
    with tempfile.TemporaryDirectory() as tmp:
        reports, times = {}, {}
        for jobs in (1, 2):
            out = Path(tmp) / f"r{jobs}.json"
            times[jobs], peak = run_measured(["attack", "setgen", str(release), "--original", str(MEPS), "--method",
                                              args.method, "--jobs", str(jobs), "--report", str(out)], args.repeat)
            reports[jobs] = without_timings(out)
            print(f"--jobs {jobs}: {times[jobs]:.1f} s (best of {args.repeat}), peak {peak:.0f} MB", flush=True)
        same = reports[1] == reports[2]
        print(f"reports equal but for the timing: {same}; speed-up {times[1] / times[2]:.2f}x")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
