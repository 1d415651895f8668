"""How long the TUI's assessment worker (``A`` on a release screen) can run on after escape.

escape stops the assessment on screen at once; the engine's thread stops at its next progress
call (the callback raises Interrupted once the worker is cancelled).  So the longest gap between
two progress calls of ``semtui.assess.run_assessment`` bounds how long the thread runs on.  This
script prints that gap, and where it falls, for a cold run (the first in a fresh process: imports
and the GloVe vectors are loaded inside the first attack) and a warm one, on the bundled MEPS
sample (400 patients) and on a 4,000-patient MEPS slice released by ``anonymize setgen`` (k 3).

Run: nice python benchmarks/bench_tui_cancel.py WORK_DIR   (~1 minute)
"""

from __future__ import annotations

import datetime
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _util import REPO, SHARED_DATA, machine, semtui

PROBE = r'''
import sys, time
from semtui.assess import AssessInputs, run_assessment
from semtui.release import open_release
rel, orig = sys.argv[1], sys.argv[2]
release = open_release(rel, original=orig)
for run in ("cold", "warm"):
    last, gaps = [time.perf_counter(), "start"], []
    def cb(done, total, msg=""):
        now = time.perf_counter()
        gaps.append((now - last[0], last[1], msg))
        last[0], last[1] = now, msg
    t0 = time.perf_counter()
    run_assessment(release, AssessInputs(data=rel, original=orig), progress=cb)
    g = max(gaps)
    print(f"{run}\t{time.perf_counter() - t0:.2f}\t{g[0]:.2f}\t{g[1][:50]} -> {g[2][:50]}")
'''


def main(work: Path) -> None:
    work.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    cases = [("MEPS sample (400)", REPO / "sample_data" / "meps400-setgen.txt",
              REPO / "sample_data" / "meps400-original.txt")]
    slice_ = work / "meps4k.txt"
    lines = (SHARED_DATA / "meps2005-conditions.txt").read_text(encoding="utf-8").splitlines(keepends=True)
    slice_.write_text("".join(lines[:4000]), encoding="utf-8")
    release = work / "meps4k-setgen.txt"
    semtui("anonymize", "setgen", slice_, "-k", "3", "--random-privacy", "300", "--seed", "1", "-o", release,
           env=env)
    cases.append(("MEPS slice (4,000), k 3", release, slice_))
    print(f"machine: {machine()}; {datetime.date.today()}; load {os.getloadavg()}")
    print("| release | run | assessment s | longest gap between progress calls s | where |")
    print("|---|---|---|---|---|")
    for name, rel, orig in cases:
        t0 = time.perf_counter()
        out = subprocess.run([sys.executable, "-c", PROBE, str(rel), str(orig)], check=True, env=env,
                             capture_output=True, text=True).stdout
        for line in out.strip().splitlines():
            run, total, gap, where = line.split("\t")
            print(f"| {name} | {run} | {total} | {gap} | {where} |")
        del t0
    print(f"load after: {os.getloadavg()}")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/semtui-bench-cancel"))
