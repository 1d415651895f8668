"""Speed of the ngd: measure: index build, a 50x50 NGD matrix, a whole attack with ngd:.

Goals (issue 4): build >= 50k documents/s on 100k+ documents; a 50x50 NGD matrix in
under 0.1 s warm; an attack over every group of the MEPS data with ngd: in under a
minute.

The corpus is MEPS 2005 (``../shared/data/meps2005-conditions.txt``) repeated 4 times
(106,940 documents, one per transaction).  The attack is ``semtui attack setgen`` (RBA,
every group) on a COAT-style release of MEPS made by ``semtui anonymize setgen``,
run as a fresh process, first with an empty score cache, then again (cache warm).

Run: python benchmarks/bench_ngd.py
"""

from __future__ import annotations

import datetime
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import SHARED_DATA, best, machine, semtui

MEPS = SHARED_DATA / "meps2005-conditions.txt"



def main() -> int:
    if not MEPS.exists():
        print(f"no data at {MEPS}", file=sys.stderr)
        return 2
    from semtui.corpus import build_index
    from semtui.measures.cache import CachedMeasure, ScoreCache
    from semtui.measures.ngd import NGDIndexMeasure

    print(f"# ngd: measure - {datetime.date.today()} - {machine()}")
    text = MEPS.read_text(encoding="utf-8").rstrip("\n") + "\n"
    vocab = sorted({x.strip() for line in text.split("\n") for x in line.split(",") if x.strip()})
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        corpus = tmp / "meps4.txt"
        corpus.write_text(text * 4, encoding="utf-8")
        index = tmp / "meps4.sqlite"
        reports = []
        for _ in range(3):
            reports.append(build_index([corpus], index, kind="lines"))
        rep = min(reports, key=lambda r: r.seconds)
        rows.append(("index build (MEPS x4, one document per line)",
                     (f"{rep.documents:,} documents in {rep.seconds:.2f} s = "
                      f"{rep.docs_per_second:,.0f} documents/s ({rep.bytes / 1e6:.1f} MB)"),
                     ">= 50,000 documents/s"))

        rng = np.random.default_rng(0)
        terms = [vocab[i] for i in rng.choice(len(vocab), size=50, replace=False)]
        m = NGDIndexMeasure(index)
        t0 = time.perf_counter()
        m.matrix(terms, terms)
        cold = time.perf_counter() - t0
        warm = best(lambda: NGDIndexMeasure(index).matrix(terms, terms), 5)
        rows.append(("50x50 NGD matrix, first call in the process", f"{cold * 1000:.1f} ms", ""))
        rows.append(("50x50 NGD matrix, warm (fresh measure, no score cache)", f"{warm * 1000:.1f} ms", "< 100 ms"))
        cache = ScoreCache(tmp / "cache.sqlite")
        CachedMeasure(NGDIndexMeasure(index), cache).matrix(terms, terms)
        cached = best(lambda: CachedMeasure(NGDIndexMeasure(index), cache).matrix(terms, terms), 5)
        rows.append(("50x50 NGD matrix from the score cache", f"{cached * 1000:.1f} ms", ""))
        full = best(lambda: NGDIndexMeasure(index).matrix(vocab, vocab), 3)
        rows.append((f"{len(vocab)}x{len(vocab)} NGD matrix (every MEPS item), warm", f"{full:.2f} s", ""))

        # a whole attack over every group of a MEPS release
        env = dict(os.environ, SEMTUI_CACHE_DIR=str(tmp / "attack-cache"))
        release = tmp / "meps-k5.txt"
        one = tmp / "meps1.sqlite"
        build_index([MEPS], one, kind="lines")
        semtui("anonymize", "setgen", MEPS, "-k", "5", "--random-privacy", "500", "-o", release, env=env)
        attack = ["attack", "setgen", str(release), "--original", str(MEPS), "--measure",
                  f"ngd:{one}", "--method", "rba", "--json"]
        for label in ("empty score cache", "warm score cache"):
            t0 = time.perf_counter()
            out = semtui(*attack, env=env)
            secs = time.perf_counter() - t0
            groups = json.loads(out.stdout)["summary"]["groups"]
            rows.append((f"semtui attack setgen, RBA, ngd: (MEPS, k=5, {groups} groups), {label}",
                         f"{secs:.2f} s (whole process)", "< 60 s"))

    print("| what | result | goal |\n|---|---|---|")
    for what, result, goal in rows:
        print(f"| {what} | {result} | {goal} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
