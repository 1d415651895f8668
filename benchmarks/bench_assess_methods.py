"""The re-associations of one assessment, in process (issue 39 item 2): ABA, RGA, MRA, assign and
RA (RA with the informed reference, as `assess` runs it without a background) one after another on
one release, key and original, sharing one `Baselines` -- as an assessment's process runs them --
with `--summary-only`, one job.  Prints each method's seconds.

Run: python benchmarks/bench_assess_methods.py WORK [--before CHECKOUT] [--rounds N]
WORK holds (or gets) all of MEPS disassociated (k = 3, m = 2, clusters <= 30) with its key.
``--before``: an earlier revision's worktree, run in the same rounds, the order rotating.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _data import meps_disassociated
from _util import REPO, SHARED_DATA, env_for, machine

MEPS = SHARED_DATA / "meps2005-conditions.txt"
METHODS = ("aba", "rga", "mra", "assign", "ra")

# run in a fresh interpreter with semtui from PYTHONPATH (this checkout or --before's)
_RUN = """
import json, sys, time
from semtui.release import open_release
from semtui.attacks.reassociation import Baselines, ReassociationOptions, run_reassociation
rel = open_release(sys.argv[1], key=sys.argv[2], original=sys.argv[3])
store = Baselines(rel.data, rel.key, rel.original)
took = {}
for m in sys.argv[4].split(","):
    opts = ReassociationOptions(method=m, summary_only=True).replace(informed=m == "ra")
    t = time.perf_counter()
    run_reassociation(rel.data, rel.key, rel.original, opts, baselines=store)
    took[m] = round(time.perf_counter() - t, 2)
print(json.dumps(took))
"""


def _once(code: Path, dis: Path, key: Path) -> dict:
    r = subprocess.run([sys.executable, "-P", "-c", _RUN, str(dis), str(key), str(MEPS), ",".join(METHODS)],
                       env=env_for(code), capture_output=True, text=True, check=True)
    return json.loads(r.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("work", type=Path)
    ap.add_argument("--before", type=Path, help="an earlier revision's worktree, run interleaved")
    ap.add_argument("--rounds", type=int, default=2)
    a = ap.parse_args()
    a.work.mkdir(parents=True, exist_ok=True)
    dis, key = meps_disassociated(a.work)
    sides = [("this", REPO)] + ([("before", a.before.resolve())] if a.before else [])
    print(f"# the re-associations of one assessment, in process — {machine()}\n")
    print("| round | side | load before | " + " | ".join(METHODS) + " | total |")
    print("|---:|---|---:|" + "---:|" * (len(METHODS) + 1))
    for r in range(a.rounds):
        for name, code in (sides if r % 2 == 0 else sides[::-1]):
            load = os.getloadavg()[0]
            took = _once(code, dis, key)
            cells = " | ".join(f"{took[m]:.2f}" for m in METHODS)
            print(f"| {r + 1} | {name} | {load:.2f} | {cells} | {sum(took.values()):.1f} |", flush=True)


if __name__ == "__main__":
    main()
