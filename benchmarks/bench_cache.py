"""Is the persistent score cache ever slower than recomputing?  (issue 10, item 5)

The MED Medline abstracts: the odd abstracts become an ``ngd:`` index, the content words of
the even ones (as benchmarks/_data.py's med_transactions makes them) are the terms.  Times the full
term x term NGD matrix with no cache, with a cold cache (compute + store) and a warm one
(every pair found), then ten runs on overlapping halves of the terms (as attacks of different
releases of the same data ask), and prints the cache's size against its bound.

Then the whole command, as issue 19 (class 8) measured it: ``semtui attack setgen`` with TBA and
``ngd:`` (the odd abstracts) on the MED k=3 release (the even abstracts generalised as
``_data.anonymised`` does: 200 random constraints of 2-4 items), with no cache
(``--no-cache``), filling a fresh cache, and with the warm cache.  Fresh processes, the three
interleaved in every round (the order rotating), best of the rounds, wall and CPU time, and the
ratio filling / no cache of each round: the machine may be loaded, and the load is printed.
Goal: filling costs at most 10 % over no cache.

Run: python benchmarks/bench_cache.py [--terms 2000] [--rounds 7] [--only-command] [--before CHECKOUT]
"""

from __future__ import annotations

import argparse
import datetime
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _data import MED, anonymised, med_transactions
from _util import REPO, env_for, machine, run_once

from semtui.measures.cache import CachedMeasure, ScoreCache, flush
from semtui.measures.ngd import NGDIndexMeasure


def timed(f):
    t0 = time.perf_counter()
    out = f()
    return out, time.perf_counter() - t0


def timed_command(args: list[str], cache_dir: Path | None, code: Path = REPO) -> tuple[float, float]:
    """Wall and CPU seconds (user + system, the background writer included) of a fresh
    ``python -m semtui ARGS`` (semtui from ``code``); ``cache_dir`` None: ``--no-cache``."""
    env = env_for(code)
    if cache_dir is None:
        args = [*args, "--no-cache"]
    else:
        env["SEMTUI_CACHE_DIR"] = str(cache_dir)
    run = run_once(*args, env=env)
    return run.wall, run.cpu


def command_rounds(work: Path, rounds: int, before: Path | None = None) -> None:
    """The attack as a user runs it: no cache, filling, warm (and filling with the semtui
    checkout ``before``, to compare); interleaved rounds."""
    even, index = med_transactions(work)
    release = anonymised(even, work, "med-even", [3], 200, (2, 4))[3]
    args = ["attack", "setgen", str(release), "--method", "tba", "--measure", f"ngd:{index}"]
    warm_dir = work / "warm-cache"
    timed_command(args, warm_dir)  # fills the warm cache (and warms the page cache)
    modes: tuple[str, ...] = ("no cache", "filling", "warm") + (("filling, before",) if before else ())
    times: dict[str, list[tuple[float, float]]] = {m: [] for m in modes}
    ratios, loads = [], []
    for r in range(rounds):
        loads.append(os.getloadavg()[0])
        got = {}
        for mode in modes[r % len(modes):] + modes[:r % len(modes)]:
            if mode.startswith("filling"):
                fresh = work / "fresh-cache"
                shutil.rmtree(fresh, ignore_errors=True)
                got[mode] = timed_command(args, fresh, before if mode == "filling, before" else REPO)
            else:
                got[mode] = timed_command(args, None if mode == "no cache" else warm_dir)
            times[mode].append(got[mode])
        ratios.append(got["filling"][0] / got["no cache"][0])
    loads.append(os.getloadavg()[0])
    print(f"\n`semtui attack setgen {release.name} --method tba --measure ngd:{index.name}` "
          f"({even.n_transactions} transactions), {rounds} interleaved rounds, "
          f"load {min(loads):.1f}-{max(loads):.1f} (1-minute average, uptime)")
    print("| run | best wall s | median wall s | best CPU s |\n|---|---:|---:|---:|")
    for m in modes:
        walls = [w for w, _ in times[m]]
        print(f"| {m} | {min(walls):.2f} | {statistics.median(walls):.2f} | {min(c for _, c in times[m]):.2f} |")
    best = {m: min(w for w, _ in times[m]) for m in modes}
    cpu = {m: min(c for _, c in times[m]) for m in modes}
    print(f"\nfilling / no cache: best {best['filling'] / best['no cache']:.3f}, CPU "
          f"{cpu['filling'] / cpu['no cache']:.3f}, per round median {statistics.median(ratios):.3f} "
          f"(rounds: {', '.join(f'{x:.2f}' for x in ratios)}); warm / no cache {best['warm'] / best['no cache']:.3f}")
    if before:
        print(f"filling with {before} / no cache: best {best['filling, before'] / best['no cache']:.3f}, CPU "
              f"{cpu['filling, before'] / cpu['no cache']:.3f}")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--terms", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=7, help="interleaved rounds of the whole command")
    ap.add_argument("--only-command", action="store_true", help="skip the matrix timings")
    ap.add_argument("--before", type=Path, help="another semtui checkout whose filling to time alongside")
    args = ap.parse_args()
    if not MED.is_file():
        print(f"no data at {MED}", file=sys.stderr)
        return 2
    print(f"# score cache - {datetime.date.today()} - {machine()} - load {os.getloadavg()[0]:.1f}")
    if args.only_command:
        with tempfile.TemporaryDirectory() as tmp:
            command_rounds(Path(tmp), args.rounds, args.before)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        even, index = med_transactions(work)
        terms = even.vocab.items[: args.terms]
        plain = NGDIndexMeasure(index)
        _, t_none = timed(lambda: plain.matrix(terms, terms))
        cache = ScoreCache(work / "scores.sqlite")
        cold = CachedMeasure(NGDIndexMeasure(index), cache)
        _, t_cold = timed(lambda: cold.matrix(terms, terms))
        _, t_written = timed(flush)  # the background write's rest, which the next read waits for
        warm = CachedMeasure(NGDIndexMeasure(index), ScoreCache(work / "scores.sqlite"))
        _, t_warm = timed(lambda: warm.matrix(terms, terms))
        assert warm.computed == 0
        half = len(terms) // 2
        t_runs = []
        for r in range(10):
            sub = terms[(r * half // 10):(r * half // 10) + half]
            _, t = timed(lambda sub=sub: CachedMeasure(NGDIndexMeasure(index), ScoreCache(work / "scores.sqlite")).matrix(sub, sub))
            t_runs.append(t)
        cold.cache.close()  # as at semtui's exit: the write-ahead log goes back into the file
        warm.cache.close()
        info = ScoreCache(work / "scores.sqlite").info()
        print(f"{len(terms)} terms ({len(terms) ** 2:,} pairs), NGD over {index.name}")
        print("| run | seconds |\n|---|---:|")
        print(f"| no cache | {t_none:.2f} |\n| cold cache (compute; the store in the background) | {t_cold:.2f} |\n| ... then waiting for the background store to end | {t_written:.2f} more |\n| warm cache | {t_warm:.2f} |")
        print(f"| 10 runs on overlapping halves (warm) | {sum(t_runs):.2f} total, {max(t_runs):.2f} max |")
        print(f"\ncache file {info['bytes'] / 1e6:.1f} MB for {info['pairs']:,} pairs (bound {info['limit_bytes'] / 1e6:.0f} MB)")
        command_rounds(work, args.rounds, args.before)
    return 0


if __name__ == "__main__":
    sys.exit(main())
