"""RBA on the real distance tables of a release's largest groups, and on the same tables with
their rows repeated 4 times (what a group of the synthetic 4x release of bench_growth.py is),
before (git revision REV) and now: CPU time (this process's user + system, since the machine
is shared), per elimination step, with the eliminations checked equal.

    python benchmarks/bench_rba_tables.py RELEASE ORIGINAL --before REV [--top 3] [--save T.npz]
    python benchmarks/bench_rba_tables.py RELEASE ORIGINAL --numba [--methods rba,gba] [--load T.npz]

``--numba``: before = this tree's numpy loop, now = its compiled loop (compiled first, apart);
``--load`` takes the tables saved by ``--save`` instead of running the attack again.

    python benchmarks/bench_rba_tables.py RELEASE ORIGINAL --lower-clusters [--load T.npz]

``--lower-clusters``: the work RBA's definition prescribes, counted (not timed) on the same
tables: per elimination the column's lower cluster takes the cell's weight and every cell of it
a new value; prints the steps, the mean lower cluster and the cells rewritten in all.

The tables are captured from a real `attack setgen --method rba` run on RELEASE (the kernel's
call to the eliminator is wrapped; the run itself finishes normally), so they are exactly what
the attack eliminates on (rows with context; default measure).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from _util import machine, module_at


def capture(release: str, original: str, min_rows: int) -> list[np.ndarray]:
    import semtui.attacks.setgen.kernel as K
    from semtui import formats
    from semtui.attacks.setgen import AttackOptions
    from semtui.attacks.setgen.attack import run_setgen_attack

    real, tables = K.eliminate, []

    def wrapped(table, method, **kw):
        if table.shape[0] >= min_rows:
            tables.append(np.array(table))
        return real(table, method, **kw)

    K.eliminate = wrapped
    try:
        run_setgen_attack(formats.read_transactions(release), formats.read_transactions(original),
                          AttackOptions(method="rba"))
    finally:
        K.eliminate = real
    return tables


def lower_clusters(tables: list[np.ndarray]) -> None:
    """Steps, mean lower cluster and cells rewritten by RBA on each table and on it 4x taller
    (the numpy loop, whose lower clusters are the compiled loop's: they are bit for bit equal)."""
    import semtui.attacks.setgen.eliminate as E
    from semtui.attacks.setgen.eliminate.vulnerability import _SortedColumns

    sizes: list[int] = []
    real = _SortedColumns.lower_rows

    def counted(self, k):
        rows = real(self, k)
        sizes.append(len(rows))
        return rows

    _SortedColumns.lower_rows = counted
    print("| table | steps | mean lower cluster (share of the rows) | cells rewritten |")
    print("|---|---:|---:|---:|")
    try:
        for T0 in tables:
            for rep in (1, 4):
                T = np.tile(T0, (rep, 1))
                sizes.clear()
                E.eliminate(T, "rba", engine="numpy")
                s = np.array(sizes)
                print(f"| {T.shape[0]}x{T.shape[1]} | {len(s):,} | {s.mean():,.0f} ({s.mean() / T.shape[0]:.2f}) | "
                      f"{int(s.sum()):,} |", flush=True)
    finally:
        _SortedColumns.lower_rows = real


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("release")
    ap.add_argument("original")
    ap.add_argument("--before", help="git revision to compare with")
    ap.add_argument("--numba", action="store_true", help="compare the numpy loop with the compiled one")
    ap.add_argument("--methods", default="rba", help="with --numba: rba, gba or both (rba,gba)")
    ap.add_argument("--load", help="the tables of an earlier --save, instead of capturing them")
    ap.add_argument("--top", type=int, default=3, help="this many largest tables")
    ap.add_argument("--save", help="also keep the captured tables in this .npz (outside the repository)")
    ap.add_argument("--lower-clusters", action="store_true", help="count the cells RBA rewrites (no timing)")
    args = ap.parse_args()
    from semtui.attacks.setgen.eliminate import eliminate

    if not args.numba and not args.before and not args.lower_clusters:
        ap.error("give --before REV, --numba or --lower-clusters")
    if args.load:
        with np.load(args.load) as z:
            tables = [z[k] for k in z.files]
    else:
        tables = sorted(capture(args.release, args.original, 300), key=lambda t: -t.size)
    if args.save:
        np.savez(args.save, *tables)
    if args.lower_clusters:
        lower_clusters(tables[: args.top])
        return
    if args.numba:
        t = time.process_time()
        for m in ("gba", "rba"):
            eliminate(np.ones((3, 3)), m, engine="compiled")
        print(f"# numba kernel compiled or loaded from its cache: {time.process_time() - t:.1f} s CPU")
        runs = {m: (lambda T, m=m: eliminate(T, m, engine="numpy"), lambda T, m=m: eliminate(T, m, engine="compiled"))
                for m in args.methods.split(",")}
        label = "numpy loop"
    else:
        before = module_at(args.before)
        runs = {"rba": (lambda T: before.eliminate(T, "rba"), lambda T: eliminate(T, "rba"))}
        label = args.before
    print(f"# {machine()}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; CPU seconds")
    print()
    print(f"| table | method | steps | before ({label}) | now | per step before / now | same |")
    print("|---|---|---:|---:|---:|---:|---|")
    for T0 in tables[: args.top]:
        for rep in (1, 4):
            T = np.tile(T0, (rep, 1))
            for method, (old, new) in runs.items():
                t = time.process_time()
                a = old(T)
                ta = time.process_time() - t
                t = time.process_time()
                b = new(T)
                tb = time.process_time() - t
                n = max(len(b.eliminations), 1)
                same = [(e.row, e.col, e.weighted, e.vulnerability, e.group) for e in a.eliminations] == \
                    [(e.row, e.col, e.weighted, e.vulnerability, e.group) for e in b.eliminations] and \
                    np.array_equal(a.final_weighted, b.final_weighted, equal_nan=True)
                print(f"| {T.shape[0]}x{T.shape[1]} | {method} | {n} | {ta:.2f} s | {tb:.2f} s | "
                      f"{ta / n * 1e6:.0f} / {tb / n * 1e6:.0f} µs | {'yes' if same else 'NO'} |", flush=True)


if __name__ == "__main__":
    main()
