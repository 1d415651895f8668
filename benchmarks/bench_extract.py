"""`semtui extract` speed and memory (issue 25): the whole command on MED (target < 5 s), and
throughput on collections made by repeating MED (~25 MB and ~100 MB, SMART records renumbered),
with the peak RSS of each, to show that memory stays flat in the collection's size (streamed).

Run: nice python benchmarks/bench_extract.py WORK_DIR [--sizes 25,100]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _util import SHARED_DATA, env_for, machine, run_once

REPO = Path(__file__).resolve().parents[1]


def measured(args: list[str], repeat: int) -> tuple[float, float, float]:
    """Best wall time, the CPU time (user + system) of that run and the peak RSS (MB) of
    ``python -m semtui ARGS`` as a fresh process (start-up included).  On a shared, loaded
    machine the CPU time is what the command costs; the wall time what a user waited."""
    best = (float("inf"), 0.0, 0.0)
    for _ in range(repeat):
        run = run_once(*args, env=env_for(), ok_exit=None)
        if run.returncode != 0:
            raise SystemExit(f"semtui {' '.join(args)} failed")
        if run.wall < best[0]:
            best = (run.wall, run.cpu, run.peak_mb)
    return best

MED = SHARED_DATA / "med-medline-abstracts.all"


def repeated(work: Path, megabytes: int) -> Path:
    """MED repeated until the file holds ``megabytes`` MB, records renumbered."""
    path = work / f"med-x{megabytes}MB.all"
    if path.exists() and path.stat().st_size >= megabytes * 1_000_000:
        return path
    records = MED.read_text(encoding="utf-8").split(".I ")[1:]
    n = 0
    with open(path, "w", encoding="utf-8") as fh:
        while fh.tell() < megabytes * 1_000_000:
            for rec in records:
                n += 1
                fh.write(f".I {n}\n" + rec.split("\n", 1)[1])
    return path


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("work", type=Path)
    ap.add_argument("--sizes", default="25,100")
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    print(f"# semtui extract — {time.strftime('%Y-%m-%d')} — {machine()}\n")
    print("| input | documents | MB | best wall (s) | CPU (s) | MB/s of CPU | documents/s of CPU | peak RSS (MB) | "
          "load (1 min) at start |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for label, path, repeat in [("MED (whole command)", MED, 3)] + [
            (f"MED repeated, {s} MB", repeated(args.work, int(s)), 1) for s in args.sizes.split(",")]:
        load = os.getloadavg()[0]
        out = args.work / "out.txt"
        secs, cpu, rss = measured(["extract", str(path), "-o", str(out)], repeat=repeat)
        docs = sum(1 for _ in open(out, encoding="utf-8"))
        mb = path.stat().st_size / 1e6
        print(f"| {label} | {docs:,} | {mb:.1f} | {secs:.2f} | {cpu:.2f} | {mb / cpu:.2f} | {docs / cpu:,.0f} | "
              f"{rss:.0f} | {load:.1f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
