"""A whole `semtui attack setgen` run: the bundled sample, and MEPS releases if given.

Run: python benchmarks/bench_attack.py [RELEASE_DIR]

RELEASE_DIR is the folder `benchmarks/meps_releases.py` writes (meps-k2.txt ... and a
manifest naming the original); without it only the sample is timed.  Every run is a fresh process
(start-up included) with the persistent score cache warm, as on a second run.
"""

from __future__ import annotations

import datetime
import json
import sys
from pathlib import Path

from _util import REPO, machine, run_measured, semtui

METHODS = ["mda", "tba", "wba", "gba", "rba", "ra"]


def main() -> None:
    print(f"# attack setgen — {datetime.date.today()} — {machine()}")
    print("| release | method | measure | wall time (s) | peak RSS (MB) |\n|---|---|---|---:|---:|")
    sample = REPO / "sample_data"
    for method in METHODS:
        secs, mb = run_measured(["attack", "setgen", str(sample / "medical-setgen.txt"), "--original",
                                 str(sample / "medical-original.txt"), "--method", method, "--json"])
        print(f"| sample (4 transactions) | {method} | embedding | {secs:.2f} | {mb:.0f} |")
    if len(sys.argv) > 1:
        folder = Path(sys.argv[1])
        original = json.loads((folder / "manifest.json").read_text())["original"]
        for release in sorted(folder.glob("meps-k*.txt")):
            for method in METHODS:
                args = ["attack", "setgen", str(release), "--original", str(original), "--method", method,
                        "--json", *(["--seed", "1"] if method == "ra" else [])]
                secs, mb = run_measured(args, repeat=1)
                out = semtui(*args)
                groups = json.loads(out.stdout)["summary"]["groups"]
                print(f"| {release.name} ({groups} groups) | {method} | embedding | {secs:.2f} | {mb:.0f} |")


if __name__ == "__main__":
    main()
