"""Time and peak memory of `semtui assess` (issue 21), whole processes, on two MEPS releases:

* **MEPS-half k=3**: the first 13,367 patients of ../shared/data/meps2005-conditions.txt released
  by `semtui anonymize setgen` (COAT-style, k = 3, 300 random 3-6-item constraints, seed 1,
  utility all — as benchmarks/strongest_attacker.py builds it); `--original` the first half,
  `--background` the other 13,368 patients, `--jobs 2`.  Goal: under 2 minutes.
* **Disassociated MEPS**: all 26,735 patients, `semtui anonymize disassoc -k 3 -m 2
  --max-cluster-size 30`, with `--key` and `--original`.  Goal: under 2 minutes.

Prints a markdown table (seconds, peak RSS, the strongest attack and its take) with the machine
and the load.  Run: nice python benchmarks/bench_assess.py WORK_DIR   (~5 minutes)

``--before CHECKOUT [--rounds N] [--only setgen|disassoc]`` (issue 39 item 2): the whole command
*with its alternatives* and the background (the second half of MEPS), a cold score cache each
run, this checkout and CHECKOUT (an earlier revision's worktree) interleaved in every round, the
order rotating; the reports of the two compared field by field (timings left out).
"""

from __future__ import annotations

import datetime
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _data import meps_disassociated
from _util import SHARED_DATA, env_for, machine, meps_halves, run_measured
from _util import semtui as run_semtui

MEPS = SHARED_DATA / "meps2005-conditions.txt"


def semtui(*args: str) -> None:
    run_semtui(*args, env=env_for())


def _releases(work: Path) -> tuple[Path, Path, Path]:
    """The two releases (made once in WORK): the MEPS-half COAT release and disassociated MEPS with its key."""
    first, _ = meps_halves(work)
    rel = work / "meps-half1-k3.txt"
    if not rel.exists():
        semtui("anonymize", "setgen", str(first), "-k", "3", "-o", str(rel), "--random-privacy", "300",
               "--seed", "1", "--sizes", "3-6", "--utility", "all")
    dis, key = meps_disassociated(work)
    return rel, dis, key


def _untimed(d):
    if isinstance(d, dict):
        return {k: _untimed(v) for k, v in d.items() if k not in ("seconds", "times", "jobs")}
    return [_untimed(v) for v in d] if isinstance(d, list) else d


def interleaved(work: Path, before: Path, rounds: int, only: str | None) -> None:
    """This checkout against ``before``, with alternatives and a cold cache, interleaved."""
    import shutil
    import tempfile

    from _util import run_once

    first, second = meps_halves(work)
    rel, dis, key = work / "meps-half1-k3.txt", work / "meps-disassoc.json", work / "meps-disassoc.key.json"
    cases = {
        "setgen": ("MEPS half COAT k=3, --original, --background the other half, --jobs 2",
                   ["assess", str(rel), "--original", str(first), "--background", str(second), "--jobs", "2"]),
        "disassoc": ("all of MEPS disassociated k=3 m=2 clusters<=30, --key, --original, --background the "
                     "second half, --jobs 2",
                     ["assess", str(dis), "--key", str(key), "--original", str(MEPS), "--background", str(second),
                      "--jobs", "2"]),
    }
    sides = {"before": before, "after": Path(__file__).resolve().parents[1]}
    print(f"# semtui assess with its alternatives, cold cache — {datetime.date.today()} — {machine()}")
    print()
    print("| release | round | side | seconds | CPU s | peak RSS MB | load before | report as before's |")
    print("|---|---:|---|---:|---:|---:|---|---|")
    for name in [only] if only else list(cases):
        label, args = cases[name]
        for r in range(rounds):
            docs = {}
            for side in (["before", "after"] if r % 2 == 0 else ["after", "before"]):
                cache = Path(tempfile.mkdtemp(prefix="semtui-bench-cache-"))
                rep = work / f"{name}-{side}.json"
                load = os.getloadavg()[0]
                try:
                    run = run_once(*args, "--report", str(rep), env=env_for(sides[side], SEMTUI_CACHE_DIR=str(cache)))
                finally:
                    shutil.rmtree(cache, ignore_errors=True)
                docs[side] = _untimed(json.loads(rep.read_text()))
                same = "" if len(docs) < 2 else ("yes" if docs["before"] == docs["after"] else "**no**")
                print(f"| {label} | {r + 1} | {side} | {run.wall:.1f} | {run.cpu:.1f} | {run.peak_mb:.0f} | "
                      f"{load:.2f} | {same} |", flush=True)
    print()
    print(f"load after: {os.getloadavg()}")


def main() -> None:
    if "--before" in sys.argv:
        import argparse

        ap = argparse.ArgumentParser()
        ap.add_argument("work", type=Path)
        ap.add_argument("--before", type=Path, required=True, help="a checkout of an earlier revision")
        ap.add_argument("--rounds", type=int, default=2)
        ap.add_argument("--only", choices=("setgen", "disassoc"))
        a = ap.parse_args()
        a.work.mkdir(parents=True, exist_ok=True)
        _releases(a.work)
        interleaved(a.work, a.before, a.rounds, a.only)
        return
    work = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/bench-assess")
    work.mkdir(parents=True, exist_ok=True)
    rel, dis, key = _releases(work)
    first, second = meps_halves(work)
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
