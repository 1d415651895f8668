"""Time the eliminators and ``semtui table eliminate``.

    python benchmarks/bench_eliminate.py            # every method, every size, the CLI
    python benchmarks/bench_eliminate.py --naive    # also a full-recomputation GBA baseline
    python benchmarks/bench_eliminate.py --rows REV # GBA/RBA CPU per step as tall tables grow,
                                                    # against the eliminators of git revision REV

Tables are random (gamma-distributed distances, seeded), the shapes of the issue: small
square tables as in the papers' examples and tall ones (thousands of transactions, ~6 member
items) as real equivalence groups give.  Times are the best of a few runs (one run for the
big tables); the CLI figure is a whole process, start-up included.
"""

from __future__ import annotations

import argparse
import os
import platform
import tempfile
import time
from pathlib import Path

import numpy as np
from _util import module_at, semtui

from semtui.attacks.setgen.eliminate import METHODS, eliminate
from semtui.attacks.setgen.eliminate.vulnerability import _group_stats

SHAPES = [(4, 4), (8, 8), (32, 32), (1000, 6), (5000, 6)]


def table(shape, seed=0):
    return np.random.default_rng(seed).gamma(2.0, 0.5, size=shape)


def best_of(fn, repeat):
    times = []
    out = None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def naive_gba(D):
    """Algorithm 1 as written: the whole weighted table and every group after each step."""
    live = ~np.isnan(D)
    elims = []
    delta = None
    while True:
        rc, cc = live.sum(1), live.sum(0)
        W = D * (1 - 1 / np.maximum(rc, 1))[:, None] * (1 - 1 / np.maximum(cc, 1))[None, :]
        W[~live] = np.nan
        rv, rcand, rhas = _group_stats(W, live)
        cv, ccand, chas = _group_stats(W.T, live.T)
        if delta is None:
            delta = (rv.sum() + cv.sum()) / (len(rv) + len(cv))
        rv = np.where(rhas & (rc >= 2) & (cc[rcand] >= 2), rv, -np.inf)
        cv = np.where(chas & (cc >= 2) & (rc[ccand] >= 2), cv, -np.inf)
        if max(rv.max(), cv.max()) <= delta:
            return elims
        if rv.max() >= cv.max():
            i = int(np.argmax(rv))
            j = int(rcand[i])
        else:
            j = int(np.argmax(cv))
            i = int(ccand[j])
        live[i, j] = False
        elims.append((i, j))


def rows_growth(rev: str) -> None:
    """CPU time (user + system of this process: the machine is shared) per elimination step
    as a tall table grows, before (``rev``) and now, with the same eliminations checked."""
    before = module_at(rev)
    print()
    print(f"| table | method | steps | before ({rev}) | now | per step before / now | same |")
    print("|---|---|---:|---:|---:|---:|---|")
    for nr in (1000, 2000, 4000, 8000):
        D = table((nr, 6), seed=3)
        for m in ("gba", "rba"):
            t = time.process_time()
            a = before.eliminate(D, m)
            tb = time.process_time() - t
            t = time.process_time()
            b = eliminate(D, m)
            tn = time.process_time() - t
            n = len(b.eliminations)
            same = [(e.row, e.col, e.weighted, e.vulnerability) for e in a.eliminations] == \
                [(e.row, e.col, e.weighted, e.vulnerability) for e in b.eliminations]
            print(f"| {nr}x6 | {m} | {n} | {tb:.2f} s | {tn:.2f} s | "
                  f"{tb / max(n, 1) * 1e6:.0f} / {tn / max(n, 1) * 1e6:.0f} µs | {'yes' if same else 'NO'} |",
                  flush=True)


def write_csv(path: Path, D: np.ndarray) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("context," + ",".join(f"item{j}" for j in range(D.shape[1])) + "\n")
        fh.writelines(f"c{i}," + ",".join(f"{x:.4f}" for x in row) + "\n"
                      for i, row in enumerate(D))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--naive", action="store_true", help="also time a full-recomputation GBA")
    ap.add_argument("--rows", metavar="REV", help="only: GBA/RBA per step as tables grow, against REV")
    args = ap.parse_args()
    if args.rows:
        rows_growth(args.rows)
        return
    print(f"# {platform.node()} {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} cores, Python {platform.python_version()}, numpy {np.__version__}, "
          f"{time.strftime('%Y-%m-%d')}")
    print()
    print("| table | " + " | ".join(METHODS) + " |")
    print("|---|" + "---|" * len(METHODS))
    for shape in SHAPES:
        D = table(shape)
        repeat = 5 if D.size <= 1024 else 1
        cells = []
        for m in METHODS:
            t, r = best_of(lambda m=m, D=D: eliminate(D, m, seed=1), repeat)
            cells.append(f"{t * 1000:.1f} ms ({len(r.eliminations)})")
        print(f"| {shape[0]}x{shape[1]} | " + " | ".join(cells) + " |")
    print()
    print("(n) = eliminations made")

    if args.naive:
        print()
        print("| table | GBA full recomputation | GBA incremental | speed-up |")
        print("|---|---|---|---|")
        for shape in [(32, 32), (800, 6), (1000, 6)]:
            D = table(shape)
            tn, ref = best_of(lambda D=D: naive_gba(D), 1)
            ti, r = best_of(lambda D=D: eliminate(D, "gba"), 3)
            same = ref == [(e.row, e.col) for e in r.eliminations]
            print(f"| {shape[0]}x{shape[1]} | {tn * 1000:.0f} ms | {ti * 1000:.1f} ms | "
                  f"{tn / ti:.0f}x{'' if same else ' (DIFFERENT RESULT)'} |")

    print()
    print("| `semtui table eliminate` on an 800x6 CSV, whole process | wall time |")
    print("|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        csv = Path(tmp) / "t800.csv"
        write_csv(csv, table((800, 6), seed=2))
        env = dict(os.environ, NO_COLOR="1")
        for m, extra in (("rba", ["--json"]), ("gba", ["--json"]), ("wba", ["--json"]),
                         ("rba", [])):
            def run(m=m, extra=extra):
                semtui("table", "eliminate", csv, "-m", m, *extra, env=env)

            t, _ = best_of(run, 3)
            label = f"--method {m} {' '.join(extra) or '(rendered table)'}"
            print(f"| {label} | {t:.2f} s |")
        t, _ = best_of(lambda: semtui("--help"), 3)
        print(f"| `semtui --help` (start-up alone) | {t:.2f} s |")


if __name__ == "__main__":
    main()
