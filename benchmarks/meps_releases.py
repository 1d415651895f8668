"""Set-generalised releases of MEPS for k = 2..6, for the attack experiments (issue 5, item 3).

Each release is made by the real CLI, with the same random privacy constraints for every k
(thesis §5.1.2: 3- to 6-item constraints drawn from real transactions; seed fixed), and
verified with `semtui check privacy`.  Writes, into OUT_DIR (never into the repository):

  meps-k{K}.txt        the release, line for line with the original
  meps-k{K}.txt.json   its sidecar (constraints, generalisation, suppressed items, loss, time)
  manifest.json        how the releases were made and their figures

The original (../shared/data/meps2005-conditions.txt) stays the private ground truth for
`semtui attack setgen --original`.

Run: python benchmarks/meps_releases.py OUT_DIR [--constraints 300] [--seed 1]
         [--sizes 3-6] [--utility all] [--ks 2,3,4,5,6]
"""

from __future__ import annotations

import argparse
import datetime
import json
import subprocess
import sys
from pathlib import Path

from _util import SHARED_DATA, machine
from _util import semtui as run_semtui

MEPS = SHARED_DATA / "meps2005-conditions.txt"


def semtui(*args: str) -> subprocess.CompletedProcess:
    return run_semtui(*args, check=False)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out_dir", type=Path, help="folder to write the releases into (created if absent)")
    ap.add_argument("--constraints", type=int, default=300, help="number of random privacy constraints")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--sizes", default="3-6")
    ap.add_argument("--utility", default="all", help="all, wordnet or a FILE (see semtui anonymize setgen)")
    ap.add_argument("--ks", default="2,3,4,5,6")
    args = ap.parse_args()
    if not MEPS.exists():
        sys.exit(f"{MEPS} is missing")
    repo = Path(__file__).resolve().parents[1]
    out_dir = args.out_dir.resolve()
    if out_dir == repo or repo in out_dir.parents:
        sys.exit("write the releases outside the repository (they are large and derived from shared data)")
    out_dir.mkdir(parents=True, exist_ok=True)

    manifest = {
        "original": str(MEPS), "date": str(datetime.date.today()), "machine": machine(),
        "constraints": args.constraints, "seed": args.seed, "sizes": args.sizes,
        "utility": args.utility, "releases": [],
    }
    print("| k | unprotected before | generalised items (items) | added items | suppressed | seconds | check |")
    print("|---:|---:|---:|---:|---:|---:|---|")
    for k in [int(x) for x in args.ks.split(",")]:
        out = out_dir / f"meps-k{k}.txt"
        r = semtui("anonymize", "setgen", str(MEPS), "-k", str(k), "-o", str(out),
                   "--random-privacy", str(args.constraints), "--seed", str(args.seed),
                   "--sizes", args.sizes, "--utility", args.utility)
        if r.returncode != 0:
            sys.exit(f"anonymize setgen failed for k={k}: {r.stderr.strip()}")
        side = json.loads(Path(str(out) + ".json").read_text())
        c = semtui("check", "privacy", str(out), "--privacy", str(out) + ".json", "-k", str(k))
        if c.returncode != 0:
            sys.exit(f"check privacy failed for k={k} (exit {c.returncode}): {c.stdout}{c.stderr}")
        s = side["stats"]
        manifest["releases"].append({"k": k, "release": out.name, "sidecar": out.name + ".json", **s})
        print(f"| {k} | {s['violated_before']} | {s['generalised_items']} ({s['items_generalised']}) "
              f"| {s['added_items']:,} | {s['suppressed_items']} | {s['seconds']:.2f} | holds |")
    (out_dir / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    print(f"wrote {len(manifest['releases'])} releases and manifest.json to {out_dir}")


if __name__ == "__main__":
    main()
