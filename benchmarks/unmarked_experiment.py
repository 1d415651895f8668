"""Does not marking the generalised items hide anything? (issue 20, item 8; thesis §3.5.2)

Full MEPS 2005, COAT-style k = 3, 300 random 3–6-item privacy constraints (seed 1), one utility
constraint of every item.  The same release is written marked and unmarked by the real CLI
(`semtui anonymize setgen ... [--unmarked]`), both are attacked by the real CLI with
`--original` (RBA and TBA, the default embedding measure), and the recovery's exactness
(`unmarked` section of the report) is printed beside the two attacks' figures.  Also times the
recovery alone (engine, best of 3) and the recovery of the thesis' rules alone.

With ``--recovery-ks 2,4,5,6`` it only releases MEPS unmarked at those k and prints how exactly
the groups are recovered (no attack).

Run: nice python benchmarks/unmarked_experiment.py OUT_DIR [--k 3] [--methods rba,tba] [--recovery-ks 2,4]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from _util import SHARED_DATA, machine

MEPS = SHARED_DATA / "meps2005-conditions.txt"


def semtui(*args: str) -> str:
    p = subprocess.run([sys.executable, "-m", "semtui", *args], capture_output=True, text=True, check=False)
    if p.returncode:
        sys.exit(f"semtui {' '.join(args)} failed ({p.returncode}): {p.stderr.strip()}")
    return p.stdout


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out_dir", type=Path)
    ap.add_argument("--k", type=int, default=3)
    ap.add_argument("--constraints", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--methods", default="rba,tba")
    ap.add_argument("--recovery-ks", default=None, help="only recover, at these k (comma-separated)")
    args = ap.parse_args()
    out = args.out_dir.resolve()
    out.mkdir(parents=True, exist_ok=True)
    print(f"{datetime.date.today()}, {machine()}, load {os.getloadavg()[0]:.2f} (1 min) at start")
    if args.recovery_ks:
        recovery_only(out, [int(x) for x in args.recovery_ks.split(",")], args)
        return
    common = [str(MEPS), "-k", str(args.k), "--random-privacy", str(args.constraints), "--seed", str(args.seed)]
    marked, unmarked = out / f"meps-k{args.k}.txt", out / f"meps-k{args.k}-unmarked.txt"
    if not marked.exists():
        semtui("anonymize", "setgen", *common, "-o", str(marked))
    if not unmarked.exists():
        semtui("anonymize", "setgen", *common, "-o", str(unmarked), "--unmarked")

    # the recovery alone, in the engine
    from semtui import formats
    from semtui.attacks.setgen.unknown import read_sidecar, recover

    data = formats.read_transactions(unmarked)
    original = formats.read_transactions(MEPS)
    sidecar, side_path = read_sidecar(unmarked)
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        rec = recover(data, args.k, "sidecar", sidecar=sidecar, sidecar_path=side_path, original=original)
        best = min(best, time.perf_counter() - t0)
    doc = rec.to_json()
    no_k = recover(data, None, "unknown", sidecar=sidecar, sidecar_path=side_path, original=original).to_json()
    print(f"\nrecovery (signatures + rules + k={args.k}), best of 3: {best:.2f} s over {data.n_transactions} "
          f"transactions, {doc['items']} items\n")
    print("| recovery | k known | recovered groups | exact / true | group precision | members in their group "
          "| collisions | plain items absorbed | added items reachable |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, d in (("signatures", doc), ("signatures", no_k)):
        ex, c = d["exactness"], d["cells"]
        print(f"| {name} | {'yes' if d['k'] else 'no'} | {ex['recovered_groups']} | {ex['exact_matches']} / "
              f"{ex['true_groups']} | {ex['group_precision']} | {ex['members_right_group']} | {ex['collided']} | "
              f"{ex['plain_items_absorbed']} | {c['added_in_groups']} / {c['added_items']} |")
        r = d["thesis_rules"]
        print(f"| thesis' rules | {'yes' if d['k'] else 'no'} | {r['recovered_groups']} | {r['exact_matches']} / "
              f"{ex['true_groups']} | {r['group_precision']} | - | - | - | - |")
    print(json.dumps({"signatures": doc, "signatures_without_k": no_k}, indent=1)[:4000])

    print("\n| release | method | groups | eliminated | correct | precision [95 % CI] | recall (all added) "
          "| error ratio vs random | AUC within | seconds |")
    print("|---|---|---:|---:|---:|---|---:|---:|---:|---:|")
    for method in args.methods.split(","):
        for name, path, extra in (("marked", marked, []), ("unmarked", unmarked, ["--unmarked"])):
            rep = json.loads(semtui("attack", "setgen", str(path), "--original", str(MEPS), "--method", method,
                                    "--json", *extra))
            m = rep["metrics"]
            iv = m.get("intervals", {}).get("precision")
            ci = f" [{iv['low']:.3f}, {iv['high']:.3f}]" if iv else ""
            recall = m["recall"]
            if "unmarked" in rep:
                recall = rep["unmarked"]["cells"]["attack_recall_all_added"]
            print(f"| {name} | {method.upper()} | {rep['summary']['groups']} | {m['eliminated']} | {m['correct']} "
                  f"| {m['precision']:.3f}{ci} | {recall:.3f} | {m['baseline']['error_ratio']:.3f} "
                  f"| {m['auc_within_table']:.3f} | {rep['summary']['seconds']:.1f} |")
    print(f"\nload {os.getloadavg()[0]:.2f} (1 min) at the end")


def recovery_only(out: Path, ks: list[int], args) -> None:
    from semtui import formats
    from semtui.attacks.setgen.unknown import read_sidecar, recover

    original = formats.read_transactions(MEPS)
    print("| k | true groups | recovered (k known) | exact | collisions | absorbed | left plain (< k) "
          "| added reachable | thesis' rules: exact / groups | recovered (k unknown) | exact | seconds |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|")
    for k in ks:
        path = out / f"meps-k{k}-unmarked.txt"
        if not path.exists():
            semtui("anonymize", "setgen", str(MEPS), "-k", str(k), "--random-privacy", str(args.constraints),
                   "--seed", str(args.seed), "-o", str(path), "--unmarked")
        data = formats.read_transactions(path)
        sidecar, side = read_sidecar(path)
        t0 = time.perf_counter()
        d = recover(data, k, "sidecar", sidecar=sidecar, sidecar_path=side, original=original).to_json()
        seconds = time.perf_counter() - t0
        n = recover(data, None, "unknown", sidecar=sidecar, sidecar_path=side).to_json()
        ex, c, r = d["exactness"], d["cells"], d["thesis_rules"]
        print(f"| {k} | {ex['true_groups']} | {ex['recovered_groups']} | {ex['exact_matches']} | {ex['collided']} "
              f"| {ex['plain_items_absorbed']} | {ex['true_groups_below_support']} "
              f"| {c['added_in_groups']} / {c['added_items']} | {r['exact_matches']} / {r['recovered_groups']} "
              f"| {n['exactness']['recovered_groups']} | {n['exactness']['exact_matches']} | {seconds:.2f} |")


if __name__ == "__main__":
    main()
