"""Time and peak memory of `semtui anonymize disassoc` and `semtui check km`, whole processes.

Goals (issue 12): BMS-WebView-2, k=5, m=2, max cluster size 30 under 4 s and 500 MB for the
whole command; `check km -m 3` on BMS-WebView-2 under 10 s and 1 GB.  Also BMS-WebView-1 and
MEPS, m=3, and the check of a release with its key and original.

Run: nice python benchmarks/bench_disassoc.py
"""

from __future__ import annotations

import datetime
import os
import sys
import tempfile
from pathlib import Path

from _util import SHARED_DATA, machine, measured

#: ../shared/data beside the repository, or SEMTUI_SHARED_DATA (e.g. from a git worktree)
SHARED_DATA = Path(os.environ.get("SEMTUI_SHARED_DATA", SHARED_DATA))

FILES = ("bms-webview-1.dat", "bms-webview-2.dat", "meps2005-conditions.txt")


def measure(args: list[str], repeat: int, ok_exit: int) -> tuple[float, float, float]:
    """Best wall time, best CPU time (user + system: what the run costs whatever the machine's
    load) and peak RSS of fresh ``python -m semtui ARGS`` processes.  Exit 0 (or ``ok_exit``)."""
    return measured(args, repeat, ok_exit=(0, ok_exit))


def row(label: str, args: list[str], repeat: int = 3, ok_exit: int = 0) -> None:
    wall, cpu, mb = measure(args, repeat, ok_exit)
    print(f"| {label} | {wall:.2f} | {cpu:.2f} | {mb:.0f} |", flush=True)


def main() -> None:
    for name in FILES:
        if not (SHARED_DATA / name).exists():
            sys.exit(f"{SHARED_DATA / name} is missing")
    print(f"# disassociation and check km — {datetime.date.today()} — {machine()} — "
          f"load {os.getloadavg()[0]:.1f}")
    print("| command | wall time (s, best of 3) | CPU time (s, best of 3) | peak RSS (MB) |")
    print("|---|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for name in FILES:
            orig = str(SHARED_DATA / name)
            out, key = str(Path(tmp) / f"{name}.json"), str(Path(tmp) / f"{name}.key.json")
            for m in (2, 3):
                row(f"anonymize disassoc {name} -k 5 -m {m} --max-cluster-size 30 (+ --key)",
                    ["anonymize", "disassoc", orig, "-k", "5", "-m", str(m), "--max-cluster-size", "30",
                     "-o", out, "--key", key])
            row("check km (release of m=3) -k 5 -m 3", ["check", "km", out, "-k", "5", "-m", "3"])
            row("check km (release of m=3) -k 5 -m 3 --key --original",
                ["check", "km", out, "-k", "5", "-m", "3", "--key", key, "--original", orig])
            for k in (2, 5):
                row(f"check km {name} -k {k} -m 3 (the original: violated)",
                    ["check", "km", orig, "-k", str(k), "-m", "3"], ok_exit=1)


if __name__ == "__main__":
    main()
