"""Is the persistent score cache ever slower than recomputing?  (issue 10, item 5)

The MED Medline abstracts: the odd abstracts become an ``ngd:`` index, the content words of
the even ones (as benchmarks/attack_experiment.py makes them) are the terms.  Times the full
term x term NGD matrix with no cache, with a cold cache (compute + store) and a warm one
(every pair found), then ten runs on overlapping halves of the terms (as attacks of different
releases of the same data ask), and prints the cache's size against its bound.

Run: python benchmarks/bench_cache.py [--terms 2000]
"""

from __future__ import annotations

import argparse
import datetime
import os
import sys
import tempfile
import time
from pathlib import Path

from _util import machine
from attack_experiment import MED, med_transactions

from semtui.measures.cache import CachedMeasure, ScoreCache
from semtui.measures.ngd import NGDIndexMeasure


def timed(f):
    t0 = time.perf_counter()
    out = f()
    return out, time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--terms", type=int, default=2000)
    args = ap.parse_args()
    if not MED.is_file():
        print(f"no data at {MED}", file=sys.stderr)
        return 2
    print(f"# score cache - {datetime.date.today()} - {machine()} - load {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        even, index = med_transactions(work)
        terms = even.vocab.items[: args.terms]
        plain = NGDIndexMeasure(index)
        _, t_none = timed(lambda: plain.matrix(terms, terms))
        cache = ScoreCache(work / "scores.sqlite")
        cold = CachedMeasure(NGDIndexMeasure(index), cache)
        _, t_cold = timed(lambda: cold.matrix(terms, terms))
        warm = CachedMeasure(NGDIndexMeasure(index), ScoreCache(work / "scores.sqlite"))
        _, t_warm = timed(lambda: warm.matrix(terms, terms))
        assert warm.computed == 0
        half = len(terms) // 2
        t_runs = []
        for r in range(10):
            sub = terms[(r * half // 10):(r * half // 10) + half]
            _, t = timed(lambda sub=sub: CachedMeasure(NGDIndexMeasure(index), ScoreCache(work / "scores.sqlite")).matrix(sub, sub))
            t_runs.append(t)
        info = ScoreCache(work / "scores.sqlite").info()
        print(f"{len(terms)} terms ({len(terms) ** 2:,} pairs), NGD over {index.name}")
        print("| run | seconds |\n|---|---:|")
        print(f"| no cache | {t_none:.2f} |\n| cold cache (compute + store) | {t_cold:.2f} |\n| warm cache | {t_warm:.2f} |")
        print(f"| 10 runs on overlapping halves (warm) | {sum(t_runs):.2f} total, {max(t_runs):.2f} max |")
        print(f"\ncache file {info['bytes'] / 1e6:.1f} MB for {info['pairs']:,} pairs (bound {info['limit_bytes'] / 1e6:.0f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
