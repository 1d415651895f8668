"""Cancel latency and progress gaps of a long attack (issue 23, finding 3).

The TUI runs an attack in a thread and cancels it by making the progress callback raise
``Interrupted``; a cancel therefore acts at the next callback.  This script runs the attack
the same way (a thread, a callback that raises once a flag is set) on the MEPS k^m release
(balanced fanout-5 hierarchy, k = 5, m = 2: 32 groups of up to 6,871 rows; with a background
every row is attacked, RBA then runs for minutes), sets the flag after each of ``--at``
seconds, and reports

* the cancel latency: from the flag to the attack's exception reaching the caller;
* the largest gap between two progress calls before the cancel (how long the bar can sit
  still, and the worst latency a cancel can meet), in wall time and in the attack thread's
  CPU time (on a busy machine the wall gaps include waiting for a core).

Run: python benchmarks/bench_cancel.py [--release FILE] [--at 3,10,30] [--method rba]
     (builds the release in a temporary folder when none is given; ~1-2 min)
"""

from __future__ import annotations

import argparse
import itertools
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _util import SHARED_DATA, machine, semtui

from semtui import formats
from semtui.attacks.background import load_background
from semtui.attacks.setgen import AttackOptions, run_setgen_attack
from semtui.errors import Interrupted

MEPS = (SHARED_DATA if SHARED_DATA.exists() else Path("/work/shared/data")) / "meps2005-conditions.txt"


def build_release(work: Path) -> Path:
    """The release of the issue: ``hierarchy build --fanout 5`` then ``anonymize km -k 5 -m 2``."""
    h, out = work / "h.txt", work / "meps-km.txt"
    semtui("hierarchy", "build", MEPS, "--fanout", "5", "-o", h)
    semtui("anonymize", "km", MEPS, "-k", "5", "-m", "2", "--hierarchy", h, "-o", out)
    return out


def one_run(data, original, options, background, at: float) -> dict:
    cancel = threading.Event()
    calls: list[float] = []
    cpu: list[float] = []  # the attack thread's CPU time at each call: the gaps in work, not in wall time
    outcome: dict = {}

    def progress(done: int, total: int, message: str) -> None:
        calls.append(time.monotonic())
        cpu.append(time.thread_time())
        outcome["last"] = f"{done}/{total} {message}"
        if cancel.is_set():
            raise Interrupted()

    def body() -> None:
        cpu.append(time.thread_time())
        try:
            run_setgen_attack(data, original, options, background=background, progress=progress)
            outcome["end"] = "finished"
        except Interrupted:
            outcome["end"] = "cancelled"
        outcome["t_end"] = time.monotonic()

    t0 = time.monotonic()
    th = threading.Thread(target=body)
    th.start()
    th.join(at)
    t_cancel = time.monotonic()
    cancel.set()
    th.join()
    before = [t for t in calls if t <= t_cancel]
    gaps = [b - a for a, b in zip([t0, *before], before)] + [t_cancel - (before[-1] if before else t0)]
    return {
        "at": at, "end": outcome["end"], "latency": outcome["t_end"] - t_cancel if outcome["end"] == "cancelled"
        else None, "max_gap": max(gaps), "calls": len(before), "last": outcome.get("last", ""),
        "max_cpu_gap": max((b - a for a, b in itertools.pairwise(cpu)), default=0.0),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--release", type=Path, help="a k^m release of MEPS (default: built as the issue did)")
    ap.add_argument("--at", default="3,10,30", help="seconds after the start to cancel, one run each")
    ap.add_argument("--method", default="rba")
    ap.add_argument("--no-background", action="store_true", help="the papers' attack (no background)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        release = args.release or build_release(Path(tmp))
        data = formats.read(release)
        original = formats.read(MEPS)
        background = None if args.no_background else load_background(str(MEPS))
        options = AttackOptions(method=args.method, background=None if background is None else str(MEPS))
        import os

        print(f"machine: {machine()}; load {os.getloadavg()[0]:.1f}; release {release.name}, "
              f"{data.n_generalised} groups; {args.method}" + ("" if background is None else " + background MEPS"))
        print("| cancel at (s) | latency (s) | largest progress gap, wall (s) | largest gap, CPU of the attack "
              "thread (s) | progress calls | last message |")
        print("|---:|---:|---:|---:|---:|---|")
        for at in (float(x) for x in args.at.split(",")):
            r = one_run(data, original, options, background, at)
            lat = "finished first" if r["latency"] is None else f"{r['latency']:.3f}"
            print(f"| {at:g} | {lat} | {r['max_gap']:.3f} | {r['max_cpu_gap']:.3f} | {r['calls']} | {r['last'][:70]} |",
                  flush=True)


if __name__ == "__main__":
    main()
