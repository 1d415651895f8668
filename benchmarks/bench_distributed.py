"""``--scheduler`` and ``corpus count`` (issue 26), whole processes, on this machine:

* **attack setgen, RBA, on the MEPS k=3 release** (all 26,735 patients, COAT-style k=3, 300 random
  3-6 constraints, seed 1): serial, ``--jobs 2`` (the forkserver pool) and ``--scheduler local:2``
  (a 2-worker Dask LocalCluster, started by the command: its start-up is in the figure).
  Goal: local:2 at least 1.5x faster than serial.
* **corpus count of MEPS' 599 terms over MEPS repeated 20 times** (534,700 documents, one per
  transaction) serial and on local:2, against building the FTS5 index (``corpus build``) and
  querying it for the same counts, interleaved round by round.  Goal: count at least as fast as
  build + query.

Prints markdown tables with the machine and the load.
Run: nice python benchmarks/bench_distributed.py WORK_DIR   (~5 minutes on a quiet machine)
Environment: ``ROUNDS`` (default 3); ``PARTS=attack`` or ``PARTS=corpus`` runs one part only;
``BASELINE=DIR`` also runs ``corpus count`` from the semtui checkout DIR (an older commit,
e.g. ``git archive COMMIT | tar -x -C DIR``) in each round, to compare before and after;
``REPEAT=N``: each corpus figure the best of N runs back to back.
"""

from __future__ import annotations

import datetime
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _util import SHARED_DATA, machine, run_measured, run_once

MEPS = SHARED_DATA / "meps2005-conditions.txt"


def main() -> None:
    work = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/bench-distributed").resolve()
    work.mkdir(parents=True, exist_ok=True)
    # ``python -m semtui`` imports from the current directory first: run from WORK, so that the
    # semtui measured is the one on PYTHONPATH (this checkout, or BASELINE)
    os.environ["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).resolve().parents[1]),
                                                os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    os.chdir(work)
    parts = os.environ.get("PARTS", "attack,corpus").split(",")
    rel = work / "meps-k3.txt"
    if "attack" in parts and not rel.exists():
        run_measured(["anonymize", "setgen", str(MEPS), "-k", "3", "-o", str(rel), "--random-privacy", "300",
                      "--seed", "1", "--sizes", "3-6", "--utility", "all"], repeat=1)
    big = work / "meps-x20.txt"
    if not big.exists():
        text = MEPS.read_text()
        big.write_text(text * 20)
    terms = work / "meps-terms.txt"
    if not terms.exists():
        from semtui import formats

        terms.write_text("\n".join(formats.read_transactions(MEPS).vocab.items) + "\n")

    print(f"# --scheduler and corpus count — {datetime.date.today()} — {machine()} — "
          f"load before: {tuple(round(x, 2) for x in os.getloadavg())}")
    print()
    # interleaved rounds: on a shared machine the CPU's speed drifts by 20 % within minutes, so the
    # runs of one round are compared with each other (the ratio per round), never across rounds
    rounds = int(os.environ.get("ROUNDS", "3"))
    if "attack" in parts:
        attack_part(rel, work, rounds)
    if "corpus" in parts:
        corpus_part(big, terms, work, rounds)
    print(f"\nload after: {tuple(round(x, 2) for x in os.getloadavg())}")


def attack_part(rel: Path, work: Path, rounds: int) -> None:
    print("| run | seconds per round (whole process) | median | speed-up over serial, per round | peak RSS MB |")
    print("|---|---|---:|---|---:|")
    attack = ["attack", "setgen", str(rel), "--original", str(MEPS), "--method", "rba", "--report",
              str(work / "r.json")]
    # the numpy eliminator (the setting) and the compiled one (the fast extra, when installed)
    engines = [("numpy loop", "1")]
    try:
        import numba  # noqa: F401

        engines.append(("compiled loop", ""))
    except ImportError:
        pass
    for engine, no_numba in engines:
        os.environ["SEMTUI_NO_NUMBA"] = no_numba
        runs = ((f"attack setgen rba, {engine}, serial", []), ("the same, --jobs 2", ["--jobs", "2"]),
                ("the same, --scheduler local:2", ["--scheduler", "local:2"]))
        got: dict[str, list[tuple[float, float]]] = {name: [] for name, _ in runs}
        run_measured(attack, repeat=1)  # numba's cache filled, the score cache warm: not in the figures
        for _ in range(rounds):
            for name, extra in runs:
                got[name].append(run_measured(attack + extra, repeat=1))
        serial = [s for s, _ in got[runs[0][0]]]
        for name, _ in runs:
            secs = [s for s, _ in got[name]]
            ratios = ", ".join(f"{a / b:.2f}" for a, b in zip(serial, secs))
            print(f"| {name} | {', '.join(f'{s:.1f}' for s in secs)} | {statistics.median(secs):.1f} | {ratios} | "
                  f"{max(r for _, r in got[name]):.0f} |", flush=True)
    os.environ.pop("SEMTUI_NO_NUMBA", None)
    print()


def _timed(args: list[str], repeat: int) -> tuple[float, float, float]:
    """Best wall time and its run's CPU time (s, the process and the children it waited for:
    for a local cluster, a lower bound), and the peak RSS (MB) of ``semtui ARGS``."""
    runs = [(r.wall, r.cpu, r.peak_mb) for r in (run_once(*args) for _ in range(repeat))]
    wall, cpu, _ = min(runs)
    return wall, cpu, max(r for _, _, r in runs)


def corpus_part(big: Path, terms: Path, work: Path, rounds: int) -> None:
    """Interleaved rounds: each run of a round is compared with that round's build + query.
    ``REPEAT`` (default 1): each figure is the best of that many runs back to back (on a busy
    machine, the one the load disturbed least)."""
    from semtui.measures.corpus import CorpusIndex

    repeat = int(os.environ.get("REPEAT", "1"))
    count = ["corpus", "count", str(big), "--transactions", "--terms", str(terms), "-o", str(work / "c.csv")]
    baseline = os.environ.get("BASELINE")
    runs = [("corpus count, serial", count, None), ("corpus count, --scheduler local:2", count + ["--scheduler", "local:2"], None)]
    if baseline:
        runs += [(f"{name} — baseline {baseline}", args, baseline) for name, args, _ in runs]
    got: dict[str, list[tuple[float, float, float]]] = {name: [] for name, _, _ in runs}
    reference: list[tuple[float, float, float]] = []  # build wall, query wall, build + query CPU
    ref_rss = 0.0
    term_list = terms.read_text().split("\n")[:-1]
    ours = os.environ["PYTHONPATH"]
    for _ in range(rounds):
        for name, args, path in runs:
            os.environ["PYTHONPATH"] = path or ours
            got[name].append(_timed(args, repeat))
        os.environ["PYTHONPATH"] = ours
        best = None
        for _ in range(repeat):
            (work / "i.db").unlink(missing_ok=True)
            secs_b, cpu_b, rss_b = _timed(["corpus", "build", str(big), "--transactions", "-o", str(work / "i.db")], 1)
            t1, c1 = time.perf_counter(), time.process_time()
            idx = CorpusIndex(work / "i.db")
            idx.counts(term_list)
            idx.close()
            q, cq = time.perf_counter() - t1, time.process_time() - c1
            if best is None or secs_b + q < best[0] + best[1]:
                best = (secs_b, q, cpu_b + cq)
            ref_rss = max(ref_rss, rss_b)
        reference.append(best)
        (work / "i.db").unlink()
    print("| run (534,700 documents, 599 terms) | seconds per round (whole process) | median | "
          "build + query over it, per round | CPU s, median | peak RSS MB (largest process) |")
    print("|---|---|---:|---|---:|---:|")
    totals = [b + q for b, q, _ in reference]
    for name, _, _ in runs:
        secs = [s for s, _, _ in got[name]]
        ratios = ", ".join(f"{t / s:.2f}" for t, s in zip(totals, secs))
        print(f"| {name} | {', '.join(f'{s:.1f}' for s in secs)} | {statistics.median(secs):.1f} | {ratios} | "
              f"{statistics.median(c for _, c, _ in got[name]):.1f} | {max(r for _, _, r in got[name]):.0f} |",
              flush=True)
    print(f"| corpus build + querying the 599 terms' counts | "
          f"{', '.join(f'{b + q:.1f} ({b:.1f} + {q:.1f})' for b, q, _ in reference)} | {statistics.median(totals):.1f} | 1 | "
          f"{statistics.median(c for _, _, c in reference):.1f} | {ref_rss:.0f} |")


if __name__ == "__main__":
    main()
