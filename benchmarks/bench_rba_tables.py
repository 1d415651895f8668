"""RBA on the real distance tables of a release's largest groups, and on the same tables with
their rows repeated 4 times (what a group of the synthetic 4x release of bench_growth.py is),
before (git revision REV) and now: CPU time (this process's user + system, since the machine
is shared), per elimination step, with the eliminations checked equal.

    python benchmarks/bench_rba_tables.py RELEASE ORIGINAL --before REV [--top 3] [--save T.npz]

The tables are captured from a real `attack setgen --method rba` run on RELEASE (the kernel's
call to the eliminator is wrapped; the run itself finishes normally), so they are exactly what
the attack eliminates on (rows with context; default measure).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from _util import machine
from bench_eliminate import module_at


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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("release")
    ap.add_argument("original")
    ap.add_argument("--before", required=True, help="git revision to compare with")
    ap.add_argument("--top", type=int, default=3, help="this many largest tables")
    ap.add_argument("--save", help="also keep the captured tables in this .npz (outside the repository)")
    args = ap.parse_args()
    from semtui.attacks.setgen.eliminate import eliminate

    before = module_at(args.before)
    tables = sorted(capture(args.release, args.original, 300), key=lambda t: -t.size)
    if args.save:
        np.savez(args.save, *tables)
    print(f"# {machine()}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; CPU seconds")
    print()
    print(f"| table | steps | before ({args.before}) | now | per step before / now | same |")
    print("|---|---:|---:|---:|---:|---|")
    for T0 in tables[: args.top]:
        for rep in (1, 4):
            T = np.tile(T0, (rep, 1))
            t = time.process_time()
            a = before.eliminate(T, "rba")
            ta = time.process_time() - t
            t = time.process_time()
            b = eliminate(T, "rba")
            tb = time.process_time() - t
            n = max(len(b.eliminations), 1)
            same = [(e.row, e.col, e.weighted, e.vulnerability) for e in a.eliminations] == \
                [(e.row, e.col, e.weighted, e.vulnerability) for e in b.eliminations]
            print(f"| {T.shape[0]}x{T.shape[1]} | {n} | {ta:.1f} s | {tb:.1f} s | "
                  f"{ta / n * 1e6:.0f} / {tb / n * 1e6:.0f} µs | {'yes' if same else 'NO'} |", flush=True)


if __name__ == "__main__":
    main()
