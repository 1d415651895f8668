"""`semtui anonymize disassoc` on the real datasets, every output checked by `semtui check km`.

BMS-WebView-1, BMS-WebView-2 and MEPS, k in {2, 3, 5}, m in {2, 3}, max cluster size in
{10, 30, 50}: clusters, record chunks, term-chunk terms, the share of (cluster, item) pairs in
term chunks, the anonymiser's own time (from --json) and the verdict of the independent
check (with the key and the original).  Prints the Markdown table of docs/anonymize.md.
Exits non-zero if any output fails the check.

Run: nice python benchmarks/disassoc_real_data.py
"""

from __future__ import annotations

import datetime
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from _util import SHARED_DATA, env_for, machine
from _util import semtui as run_semtui

#: ../shared/data beside the repository, or SEMTUI_SHARED_DATA (e.g. from a git worktree)
SHARED_DATA = Path(os.environ.get("SEMTUI_SHARED_DATA", SHARED_DATA))

FILES = ("bms-webview-1.dat", "bms-webview-2.dat", "meps2005-conditions.txt")
KS = (2, 3, 5)
MS = (2, 3)
SIZES = (10, 30, 50)


def semtui(*args: str) -> subprocess.CompletedProcess:
    return run_semtui(*args, env=env_for(), check=False)


def main() -> None:
    failed = 0
    print(f"# semtui anonymize disassoc on real data — {datetime.date.today()} — {machine()} — "
          f"load {os.getloadavg()[0]:.1f}")
    print("| file | k | m | N | clusters | largest | record chunks | term-chunk terms | term-chunk share "
          "| anonymiser (s) | check km |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    with tempfile.TemporaryDirectory() as tmp:
        out, key = Path(tmp) / "r.json", Path(tmp) / "r.key.json"
        for name in FILES:
            orig = SHARED_DATA / name
            if not orig.exists():
                sys.exit(f"{orig} is missing")
            for k in KS:
                for m in MS:
                    for n in SIZES:
                        run = semtui("anonymize", "disassoc", str(orig), "-k", str(k), "-m", str(m), "--no-refine",
                                     "--max-cluster-size", str(n), "-o", str(out), "--key", str(key), "--json")
                        if run.returncode:
                            sys.exit(run.stderr)
                        s = json.loads(run.stdout)
                        check = semtui("check", "km", str(out), "-k", str(k), "-m", str(m), "--key", str(key),
                                       "--original", str(orig), "--json")
                        verdict = {0: "holds", 1: "VIOLATED"}.get(check.returncode, "error")
                        failed += check.returncode != 0
                        print(f"| {name} | {k} | {m} | {n} | {s['clusters']:,} | {s['largest_cluster']:,} "
                              f"| {s['record_chunks']:,} | {s['term_chunk_terms']:,} | {s['term_chunk_share']:.3f} "
                              f"| {s['seconds']:.2f} | {verdict} |", flush=True)
    if failed:
        sys.exit(f"{failed} outputs failed check km")


if __name__ == "__main__":
    main()
