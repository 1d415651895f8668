"""The whole path on real text (issue 25, item 3): MED abstracts -> `semtui extract` -> the three
anonymisation families -> their attacks, with the other half of the abstracts as the attacker's
corpus and background.

* `semtui extract med-medline-abstracts.all` (the thesis' rules, defaults) gives one transaction
  per abstract and a sidecar naming its `.I` number; the **even** abstracts are the original,
  the **odd** abstracts the attacker's: their text an FTS5 index (`semtui corpus build --lines`,
  the `ngd:` measure), their extracted transactions the background (ALGORITHMS.md §6-7).
* **setgen**: `anonymize` COAT-style, 200 random 2-4-item constraints (seed 1), utility all,
  k = 2, 3, 5; `run_setgen_attack` with `embedding` and `ngd:` and every method (RA, MDA, TBA,
  WBA, GBA, RBA), then with the background (PBA and TBA, every knowledge table, the popularity
  attacker beside the budget-matched random one).
* **disassociation**: `disassociate` k = 3, m = 2, max cluster size 30 -> RA, ABA/RGA/MRA under
  each measure, NBA with the background (seeded random ties, as benchmarks/disassoc_knowledge.py).
* **k^m**: `semtui hierarchy build --fanout 5` over the original's items -> `semtui anonymize km
  -k 5 -m 2` (AA) -> the setgen attack (every method, both measures) and the background attacker.

Run: nice python benchmarks/extract_experiment.py WORK_DIR [--parts setgen,disassoc,km] > report.md
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

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _util import SHARED_DATA, machine
from attack_experiment import attack_table
from disassoc_knowledge import NoMeasure, fmt, iv
from strongest_attacker import HEADER, RULE, attack_rows

from semtui import formats
from semtui.attacks.background import Background
from semtui.measures import open_measure
from semtui.model import TransactionData

MED = SHARED_DATA / "med-medline-abstracts.all"
REPO = Path(__file__).resolve().parents[1]


def semtui(*args: str) -> str:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    r = subprocess.run([sys.executable, "-m", "semtui", *args], capture_output=True, text=True, env=env)
    if r.returncode:
        raise SystemExit(f"semtui {' '.join(args)}: {r.stderr}")
    return r.stderr.strip()


def prepare(work: Path) -> tuple[Path, Path, Path, Path]:
    """Extract MED, split it by the abstracts' numbers, index the odd abstracts' text."""
    from semtui.formats.documents import iter_sourced_documents

    ext = work / "med-extract.txt"
    t0 = time.perf_counter()
    print(f"`semtui extract`: {semtui('extract', str(MED), '-o', str(ext))} — {time.perf_counter() - t0:.1f} s "
          "for the whole command\n")
    lines = ext.read_text(encoding="utf-8").split("\n")[:-1]
    ids = [row.split("\t")[3] for row in (ext.parent / (ext.name + ".sources.tsv")).read_text().split("\n")[1:-1]]
    assert len(ids) == len(lines)
    even = [ln for ln, i in zip(lines, ids) if int(i) % 2 == 0]
    odd = [ln for ln, i in zip(lines, ids) if int(i) % 2 == 1]
    original, background = work / "med-extract-even.txt", work / "med-extract-odd.txt"
    original.write_text("\n".join(even) + "\n", encoding="utf-8")
    background.write_text("\n".join(odd) + "\n", encoding="utf-8")
    texts = [" ".join(d.text.split()) for d in iter_sourced_documents([MED], "smart") if int(d.id) % 2 == 1]
    corpus = work / "med-odd-abstracts.txt"
    corpus.write_text("\n".join(texts) + "\n", encoding="utf-8")
    index = work / "med-odd.sqlite"
    semtui("corpus", "build", "--lines", str(corpus), "-o", str(index))
    return original, background, corpus, index


def describe(name: str, data: TransactionData) -> None:
    import numpy as np

    support = np.bincount(data.tokens[data.tokens >= 0], minlength=len(data.vocab))
    print(f"{name}: {data.n_transactions} transactions, {len(data.vocab):,} distinct items, "
          f"{data.lengths.mean():.1f} items per transaction, {int((data.lengths == 0).sum())} empty, "
          f"{int((support == 1).sum()):,} items in one transaction only\n", flush=True)


def disassoc_rows(orig: TransactionData, bg: Background, measures: dict, jobs: int) -> list:
    from semtui.anonymize.disassociation import disassociate
    from semtui.attacks.reassociation import ReassociationOptions, run_reassociation

    rel = disassociate(orig, 3, 2, 30)
    print(f"\n### Disassociation (k = 3, m = 2, max cluster size 30): {len(rel.data.clusters)} clusters\n")
    print("| knowledge | method | accuracy [95 % CI] | lift over budget-matched random [95 % CI] | "
          "transaction breakage (random) | k^m breakage (random) | s |")
    print("|---|---|---|---|---|---|---:|")
    base = dict(seed=1, ties="random", wmd_measure=None, jobs=jobs)
    rows = [("none", "RA", ReassociationOptions(method="ra", **base), {"measure": NoMeasure()})]
    for mname, measure in measures.items():
        rows += [(mname, m.upper(), ReassociationOptions(method=m, **base), {"measure": measure})
                 for m in ("aba", "rga", "mra")]
    rows.append((f"background: {bg.source}", "NBA",
                 ReassociationOptions(method="nba", background=bg.source, seed=1, wmd_measure=None, jobs=jobs),
                 {"background": bg}))
    out, ref = [], None
    for knowledge, label, opts, kw in rows:
        t0 = time.perf_counter()
        m = run_reassociation(rel.data, rel.key, orig, opts, **kw).report["metrics"]
        secs = time.perf_counter() - t0
        ref = m["informed_reference"]
        b = m["baseline"]
        out.append({"knowledge": knowledge, "method": label, "seconds": secs,
                    **{k: m[k] for k in ("accuracy", "lift_over_random", "transaction_breakage", "km_breakage",
                                         "intervals", "baseline")}})
        print(f"| {knowledge} | {label} | {iv(m, 'accuracy')} | {iv(m, 'lift_over_random', 2)} | "
              f"{fmt(m['transaction_breakage'])} ({fmt(b['transaction_breakage'])}) | "
              f"{fmt(m['km_breakage'])} ({fmt(b['km_breakage'])}) | {secs:.0f} |", flush=True)
    print(f"| *the original itself (reference, not an attack)* | NBA | {iv(ref, 'accuracy')} | "
          f"{iv(ref, 'lift_over_random', 2)} | {fmt(ref['transaction_breakage'])} | | |", flush=True)
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("work", type=Path)
    ap.add_argument("--parts", default="setgen,disassoc,km")
    ap.add_argument("--ks", default="2,3,5")
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    parts = args.parts.split(",")
    print(f"# MED through `semtui extract` — {datetime.date.today()} — {machine()} — load at start "
          f"{os.getloadavg()[0]:.1f}\n")
    original_path, bg_path, _, index = prepare(args.work)
    original = formats.read_transactions(original_path)
    bg_data = formats.read_transactions(bg_path)
    describe("original (even abstracts)", original)
    describe("background (odd abstracts)", bg_data)
    from semtui.attacks.background import load_background

    background = load_background(str(bg_path))
    ngd = open_measure(f"ngd:{index}", cache=False)
    embedding = open_measure("embedding")
    measures = {"ngd": ngd, "embedding": embedding}
    results: dict = {}
    if "setgen" in parts:
        from semtui.anonymize.setgen import anonymize, random_privacy

        privacy = random_privacy(original, 200, (2, 4), seed=1)
        releases = {}
        for k in (int(x) for x in args.ks.split(",")):
            path = args.work / f"med-extract-even-k{k}.txt"
            formats.write(anonymize(original, privacy, k).data, path)
            releases[k] = path
        results["setgen"] = attack_table("setgen: even abstracts through extract; NGD counted on the odd abstracts",
                                         releases, original, measures, args.jobs)
        print("\n### setgen with the background (the odd abstracts' transactions)\n")
        print(HEADER)
        print(RULE)
        results["setgen-background"] = []
        for k, path in releases.items():
            results["setgen-background"] += attack_rows(f"MED extract even, COAT k={k}", formats.read(path),
                                                        original, ngd, background, str(bg_path))
    if "disassoc" in parts:
        results["disassoc"] = disassoc_rows(original, Background.from_transactions(bg_data, "the odd abstracts"),
                                            measures, args.jobs)
    if "km" in parts:
        hier = args.work / "med-extract-even.hierarchy.txt"
        rel = args.work / "med-extract-even-km-k5-m2.txt"
        semtui("hierarchy", "build", str(original_path), "--fanout", "5", "-o", str(hier))
        said = semtui("anonymize", "km", str(original_path), "--hierarchy", str(hier), "-k", "5", "-m", "2",
                      "-o", str(rel), "--report", str(args.work / "km-report.json"))
        km = formats.read(rel)
        plain = int((km.tokens >= 0).sum())
        print(f"\nk^m release (AA, k = 5, m = 2, fanout 5): {said}; {plain:,} plain items of {len(km.tokens):,}\n")
        results["km"] = attack_table("k^m: attack setgen on the AA release", {5: rel}, original, measures, args.jobs)
        print("\n### k^m with the background\n")
        print(HEADER)
        print(RULE)
        results["km-background"] = attack_rows("MED extract even, k^m k=5 m=2", km, original, ngd, background,
                                               str(bg_path))
    (args.work / "extract-experiment.json").write_text(json.dumps(results, indent=1, default=str))
    print(f"\nload at end {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
