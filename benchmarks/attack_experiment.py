"""How much does the semantic attack on set-generalised data take back, measured honestly?

Issue 10.  The metrics of ALGORITHMS.md §6 on real data: AUC within table (and pooled),
density per generalised item (and pooled), recall over all added items and over attackable
rows, the budget-matched random baseline with each method's error ratio, bootstrap intervals
over equivalence groups, and every figure apart for tables of the papers' size (<= 16
members).  Three parts:

1. **meps** — the full-MEPS releases of ``benchmarks/meps_releases.py`` (k = 2..6), attacked
   with the default measure (GloVe embedding).
2. **meps-half** — MEPS split by line; the first half anonymised the same way, the second
   half the attacker's NGD corpus (``ngd:``), and ``embedding`` for comparison.
3. **med** — the MED Medline abstracts made into transactions by ``semtui extract`` (issue 25:
   nouns and noun phrases by the thesis' rules, as benchmarks/extract_experiment.py prepares
   them); the even abstracts anonymised (COAT-style, 200 random 2-4-item constraints, k = 2, 3,
   5), the odd abstracts' text the attacker's NGD corpus; ``ngd:`` and ``embedding``.  (Before
   issue 25 each abstract was its distinct content words, words of >= 4 letters in 5 to 30 % of
   abstracts: ``med_transactions`` below, which benchmarks/disassoc_knowledge.py still uses.)

Output: a Markdown report on stdout (the tables of docs/experiments.md) and results.json in
WORK_DIR.

Run: python benchmarks/attack_experiment.py RELEASE_DIR WORK_DIR [--parts meps,meps-half,med] [--jobs 2]
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import sys
import time
from pathlib import Path

from _util import SHARED_DATA, machine

from semtui import formats
from semtui.anonymize.setgen import anonymize, random_privacy
from semtui.attacks.setgen import AttackOptions, run_setgen_attack
from semtui.corpus import build_index
from semtui.measures import open_measure
from semtui.model import TransactionBuilder, TransactionData

METHODS = ["ra", "mda", "tba", "wba", "gba", "rba"]
MEPS = SHARED_DATA / "meps2005-conditions.txt"
MED = SHARED_DATA / "med-medline-abstracts.all"


def fmt(x, digits: int = 3) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


def ci(m: dict, key: str) -> str:
    from semtui.wording import interval

    iv = interval(m, key)
    return fmt(m.get(key)) + (f" [{iv[0]:.2f}, {iv[1]:.2f}]" if iv else "")


def attack_table(title: str, releases: dict[int, Path], original: TransactionData, measures: dict,
                 jobs: int) -> list[dict]:
    rows = []
    print(f"\n### {title}\n")
    print("| k | measure | method | AUC within [95 % CI] | AUC pooled | density per item / pooled | "
          "precision [95 % CI] | recall all / attackable | F1 | random same budget: P | error ratio vs it | "
          "F1 lift over RA | ≤16 members: groups, precision, error ratio | s |")
    print("|---:|---|---|---|---:|---|---|---|---:|---:|---:|---:|---|---:|")
    for k, path in releases.items():
        data = formats.read(path)
        for mname, measure in measures.items():
            ra_f1 = None
            for method in METHODS:
                t0 = time.perf_counter()
                opts = AttackOptions(method=method, seed=1 if method == "ra" else None, jobs=jobs)
                m = run_setgen_attack(data, original, opts, measure=measure).metrics
                secs = time.perf_counter() - t0
                if method == "ra":
                    ra_f1 = m["f1"]
                lift = m["f1"] / ra_f1 if m["f1"] and ra_f1 else None
                base = m.get("baseline") or {}
                small = m["by_table_size"]["members<=16"]
                rows.append({"k": k, "measure": mname, "method": method, "seconds": secs, "f1_lift_over_ra": lift,
                             **m})
                print(f"| {k} | {mname} | {method.upper()} | {ci(m, 'auc_within_table')} | {fmt(m['auc_pooled'])} | "
                      f"{fmt(m['density_per_item'])} / {fmt(m['density'])} | {ci(m, 'precision')} | "
                      f"{fmt(m['recall'])} / {fmt(m['recall_attackable'])} | {fmt(m['f1'])} | "
                      f"{fmt(base.get('precision'))} | {fmt(base.get('error_ratio'), 2)} | {fmt(lift, 2)} | "
                      f"{small['groups']}, {fmt(small['precision'])}, "
                      f"{fmt((small.get('baseline') or {}).get('error_ratio'), 2)} | {secs:.1f} |", flush=True)
    return rows


def split_meps(work: Path) -> tuple[TransactionData, Path]:
    whole = formats.read(MEPS)
    half = whole.n_transactions // 2
    first, second = TransactionBuilder(), TransactionBuilder()
    for i in range(whole.n_transactions):
        (first if i < half else second).add(whole.token_names(i))
    corpus = work / "meps-half2.txt"
    formats.write(second.build(), corpus)
    index = work / "meps-half2.sqlite"
    if not index.exists():
        build_index([corpus], index, kind="transactions")
    return first.build(), index


def med_abstracts() -> list[tuple[int, str]]:
    text = MED.read_text(encoding="utf-8", errors="replace")
    docs = []
    for block in re.split(r"^\.I\s+", text, flags=re.M)[1:]:
        number, _, rest = block.partition("\n")
        body = rest.split(".W", 1)[-1]
        docs.append((int(number.strip()), " ".join(body.split())))
    return docs


def med_transactions(work: Path) -> tuple[TransactionData, Path]:
    docs = med_abstracts()
    words = [sorted(set(re.findall(r"[a-z][a-z\-]{3,}", body.lower()))) for _, body in docs]
    df: dict[str, int] = {}
    for ws in words:
        for w in ws:
            df[w] = df.get(w, 0) + 1
    n = len(docs)
    keep = {w for w, c in df.items() if 5 <= c <= 0.3 * n}
    even = TransactionBuilder()
    odd_lines = []
    for (number, body), ws in zip(docs, words):
        if number % 2 == 0:
            even.add([w for w in ws if w in keep])
        else:
            odd_lines.append(body)
    corpus = work / "med-odd.txt"
    corpus.write_text("\n".join(odd_lines) + "\n", encoding="utf-8")
    index = work / "med-odd.sqlite"
    if not index.exists():
        build_index([corpus], index, kind="lines")
    return even.build(), index


def anonymised(data: TransactionData, work: Path, stem: str, ks: list[int], n: int, sizes: tuple[int, int]) -> dict:
    privacy = random_privacy(data, n, sizes, seed=1)
    out = {}
    for k in ks:
        path = work / f"{stem}-k{k}.txt"
        if not path.exists():
            formats.write(anonymize(data, privacy, k).data, path)
        out[k] = path
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("release_dir", type=Path)
    ap.add_argument("work_dir", type=Path)
    ap.add_argument("--parts", default="meps,meps-half,med")
    ap.add_argument("--ks", default="2,3,4,5,6")
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args()
    if not MEPS.is_file():
        print(f"no data at {MEPS}", file=sys.stderr)
        return 2
    args.work_dir.mkdir(parents=True, exist_ok=True)
    parts = args.parts.split(",")
    ks = [int(k) for k in args.ks.split(",")]
    print(f"# Attack experiment — {datetime.date.today()} — {machine()}")
    embedding = open_measure("embedding")
    results: dict[str, list] = {}
    if "meps" in parts:
        manifest = json.loads((args.release_dir / "manifest.json").read_text())
        releases = {r["k"]: args.release_dir / r["release"] for r in manifest["releases"] if r["k"] in ks}
        results["meps"] = attack_table("Full MEPS, GloVe embedding", releases, formats.read(MEPS),
                                       {"embedding": embedding}, args.jobs)
    if "meps-half" in parts:
        first, index = split_meps(args.work_dir)
        releases = anonymised(first, args.work_dir, "meps-half1", ks, 300, (3, 6))
        results["meps-half"] = attack_table("First half of MEPS; NGD counted on the second half", releases, first,
                                            {"ngd": open_measure(f"ngd:{index}", cache=False), "embedding": embedding},
                                            args.jobs)
    if "med" in parts:
        from extract_experiment import prepare

        even_path, _, _, index = prepare(args.work_dir)
        even = formats.read_transactions(even_path)
        print(f"\nMED: {even.n_transactions} even abstracts as transactions, {len(even.vocab)} items, "
              f"{even.lengths.mean():.1f} per transaction")
        releases = anonymised(even, args.work_dir, "med-extract-even", [k for k in ks if k in (2, 3, 5)], 200, (2, 4))
        results["med"] = attack_table("MED: even abstracts attacked; NGD counted on the odd abstracts", releases, even,
                                      {"ngd": open_measure(f"ngd:{index}", cache=False), "embedding": embedding},
                                      args.jobs)
    (args.work_dir / "results.json").write_text(json.dumps(results, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
