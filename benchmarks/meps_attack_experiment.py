"""How much does a semantic attack take back on real clinical data, without Google?

Issue 5, item 3.  Two experiments on MEPS 2005 (26,735 real patients' ICD-9 condition names):

1. **Full MEPS** — the releases `benchmarks/meps_releases.py` made for k = 2..6 (300 random
   3-6-item privacy constraints, utility `all`), attacked by every method with the default
   measure (GloVe embedding), the papers' `mean` aggregation and the `min` one.
2. **NGD counted on another part of the data** — MEPS split in two halves by line; the first
   half is anonymised the same way (k = 2..6), the second half, which the attacker is assumed
   to hold (similar patients from elsewhere), becomes an SQLite FTS5 index, one document per
   patient; the first half's releases are attacked with `ngd:` over it and, for comparison,
   with `embedding`.

Every figure is computed against the original (precision, recall, F1 of eliminations; AUC of
the raw distances), with RA (seeded) as the baseline: lift = precision / RA precision and
F1 / RA F1.  Output: a Markdown report on stdout (the tables in docs/experiments.md).

Run: python benchmarks/meps_attack_experiment.py RELEASE_DIR WORK_DIR [--parts 1,2]
"""

from __future__ import annotations

import argparse
import datetime
import json
import subprocess
import sys
import time
from pathlib import Path

from _util import SHARED_DATA, machine

from semtui import formats
from semtui.anonymize.setgen import anonymize, random_privacy
from semtui.attacks.setgen import run_setgen_attack
from semtui.measures import open_measure
from semtui.model import TransactionBuilder

METHODS = ["ra", "mda", "tba", "wba", "gba", "rba"]
KS = [2, 3, 4, 5, 6]
MEPS = SHARED_DATA / "meps2005-conditions.txt"


def fmt(x, digits=3) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


def attack_table(title: str, releases: dict[int, Path], original, measures: dict[str, object],
                 aggregates: list[str]) -> list[dict]:
    rows = []
    print(f"\n### {title}\n")
    print("| k | measure | aggregate | AUC | density | method | eliminated | precision | recall | F1 | "
          "precision lift | F1 lift | time (s) |")
    print("|---:|---|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    for k, path in releases.items():
        data = formats.read(path)
        for mname, measure in measures.items():
            for agg in aggregates:
                base = None
                for method in METHODS:
                    t0 = time.perf_counter()
                    rep = run_setgen_attack(data, original, method=method, measure=measure, aggregate=agg, seed=1)
                    secs = time.perf_counter() - t0
                    m = rep["metrics"]
                    if method == "ra":
                        base = m
                    lift_p = m["precision"] / base["precision"] if m["precision"] and base["precision"] else None
                    lift_f = m["f1"] / base["f1"] if m["f1"] and base["f1"] else None
                    rows.append({"k": k, "measure": mname, "aggregate": agg, "method": method, **m,
                                 "lift_precision": lift_p, "lift_f1": lift_f, "seconds": secs,
                                 "exposed_share": rep["privacy"]["exposed_share"]})
                    print(f"| {k} | {mname} | {agg} | {fmt(m['auc'])} | {fmt(m['density'])} | {method.upper()} | "
                          f"{m['eliminated']} | {fmt(m['precision'])} | {fmt(m['recall'])} | {fmt(m['f1'])} | "
                          f"{fmt(lift_p, 2)} | {fmt(lift_f, 2)} | {secs:.1f} |", flush=True)
    return rows


def half_releases(work: Path) -> tuple[dict[int, Path], Path, Path]:
    """Anonymise the first half of MEPS for every k; index the second half."""
    whole = formats.read(MEPS)
    n = whole.n_transactions
    half = n // 2
    first, second = TransactionBuilder(), TransactionBuilder()
    for i in range(n):
        (first if i < half else second).add(whole.token_names(i))
    released = first.build()
    original_path = work / "meps-half1-original.txt"
    formats.write(released, original_path)
    second_path = work / "meps-half2.txt"
    formats.write(second.build(), second_path)
    index = work / "meps-half2.sqlite"
    subprocess.run([sys.executable, "-m", "semtui", "corpus", "build", str(second_path), "--transactions",
                    "-o", str(index)], check=True, capture_output=True)
    privacy = random_privacy(released, 300, (3, 6), seed=1)
    out = {}
    for k in KS:
        result = anonymize(released, privacy, k)
        path = work / f"meps-half1-k{k}.txt"
        formats.write(result.data, path)
        out[k] = path
    return out, original_path, index


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("release_dir", type=Path)
    ap.add_argument("work_dir", type=Path)
    ap.add_argument("--parts", default="1,2")
    args = ap.parse_args()
    args.work_dir.mkdir(parents=True, exist_ok=True)
    parts = {int(p) for p in args.parts.split(",")}
    print(f"# MEPS attack experiment — {datetime.date.today()} — {machine()}")
    embedding = open_measure("embedding")
    results = {}
    if 1 in parts:
        manifest = json.loads((args.release_dir / "manifest.json").read_text())
        releases = {r["k"]: args.release_dir / r["release"] for r in manifest["releases"]}
        original = formats.read(MEPS)
        results["full"] = attack_table("Full MEPS, k = 2..6", releases, original, {"embedding": embedding},
                                       ["mean", "min"])
    if 2 in parts:
        releases, original_path, index = half_releases(args.work_dir)
        original = formats.read(original_path)
        ngd = open_measure(f"ngd:{index}")
        results["half"] = attack_table("First half of MEPS; NGD counted on the second half", releases, original,
                                       {"ngd": ngd, "embedding": embedding}, ["mean", "min"])
    (args.work_dir / "results.json").write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
