"""Speed of `semtui experiment` (issue 22): the issue's 3-cell grid (setgen k = 2, 4 with 200 random
3-6-item constraints, seed 1; disassociation k = 3, m = 2, clusters <= 30) on the first 6,000 MEPS
patients, the next 6,000 as the attacker's background; then the same command again (every cell
resumed, nothing recomputed).  Goals: under 3 minutes, the resumed run under 3 s.

Run: nice python benchmarks/bench_experiment.py WORK_DIR [--jobs N] [--scheduler S]   (~2 minutes)
With --scheduler S (issue 26: local:2, or tcp://HOST:PORT) the same grid again from nothing with
one Dask task per cell, its time beside the serial one, and its lines checked equal to the
serial run's but for the timing fields (``times``, each attack's ``seconds``).
Both from-nothing runs start with an empty score cache of their own.
Also measures `semtui assess` with its alternatives on the MEPS-half k=3 release when given
--assess (the issue 21 figure, ~3 minutes more).
"""

from __future__ import annotations

import datetime
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _util import SHARED_DATA, env_for, machine, meps_halves
from _util import semtui as run_semtui

SPEC = """original = "meps6k.txt"
background = "meps6k-bg.txt"

[[release]]
family = "setgen"
k = [2, 4]
random_privacy = 200
sizes = "3-6"
seed = 1

[[release]]
family = "disassoc"
k = [3]
m = [2]
max_cluster_size = [30]
"""


def semtui(*args: str, cache: Path | None = None) -> float:
    env = env_for()
    if cache is not None:  # a score cache of its own (an empty folder: every score computed)
        env["SEMTUI_CACHE_DIR"] = str(cache)
    t0 = time.perf_counter()
    r = run_semtui(*args, env=env, check=False)
    if r.returncode != 0:
        raise SystemExit(r.stderr)
    return time.perf_counter() - t0


def _fresh(folder: Path) -> Path:
    """An empty folder for a score cache: the serial and the distributed run both start cold."""
    import shutil

    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    return folder


def _modulo_timings(line: str) -> dict:
    """A RESULTS line without its timing fields: the cell's ``times``, each attack's ``seconds``."""
    doc = json.loads(line)
    doc.pop("times")
    for a in doc["attacks"]:
        a.pop("seconds")
    return doc


def load() -> str:
    return Path("/proc/loadavg").read_text().split()[0]


def main() -> None:
    work = Path(sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].startswith("--") else "/tmp/bench-experiment")
    jobs = sys.argv[sys.argv.index("--jobs") + 1] if "--jobs" in sys.argv else "1"
    work.mkdir(parents=True, exist_ok=True)
    lines = (SHARED_DATA / "meps2005-conditions.txt").read_text(encoding="utf-8").splitlines(keepends=True)
    (work / "meps6k.txt").write_text("".join(lines[:6000]), encoding="utf-8")
    (work / "meps6k-bg.txt").write_text("".join(lines[6000:12000]), encoding="utf-8")
    spec = work / "grid.toml"
    spec.write_text(SPEC, encoding="utf-8")
    results = work / "RESULTS.jsonl"
    results.unlink(missing_ok=True)
    print(f"{datetime.date.today()}, {machine()}; load before {load()}; --jobs {jobs}")
    first = semtui("experiment", str(spec), "-o", str(results), "--jobs", jobs, cache=_fresh(work / "cache-serial"))
    l1 = load()
    again = semtui("experiment", str(spec), "-o", str(results), "--jobs", jobs)
    print(f"| run | seconds | load after |\n|---|---:|---:|\n| 3 cells, from nothing | {first:.1f} | {l1} |\n"
          f"| the same again (every cell resumed) | {again:.2f} | {load()} |")
    for line in results.read_text().splitlines():
        d = json.loads(line)
        p = d["privacy"]
        print(f"  {d['label']}: {d['times']}, risk {p['risk']}, {p['attack']}")
    if "--scheduler" in sys.argv:
        sched = sys.argv[sys.argv.index("--scheduler") + 1]
        dist = work / "RESULTS-dist.jsonl"
        dist.unlink(missing_ok=True)
        l0 = load()
        t = semtui("experiment", str(spec), "-o", str(dist), "--scheduler", sched, cache=_fresh(work / "cache-dist"))
        same = [_modulo_timings(x) for x in dist.read_text().splitlines()] == \
            [_modulo_timings(x) for x in results.read_text().splitlines()]
        print(f"| 3 cells, from nothing, --scheduler {sched} (one task per cell) | {t:.1f} | load {l0} -> {load()} |"
              f" {first / t:.2f}x the serial run; lines equal but for timings: {same}")
        for line in dist.read_text().splitlines():
            d = json.loads(line)
            print(f"  {d['label']} (on a worker): {d['times']}")
        if not same:
            raise SystemExit("the distributed lines differ from the serial ones")
    if "--assess" in sys.argv:
        first_half, second_half = meps_halves(work)
        rel = work / "meps-half1-k3.txt"
        if not rel.exists():
            semtui("anonymize", "setgen", str(first_half), "-k", "3", "-o", str(rel), "--random-privacy", "300",
                   "--seed", "1", "--sizes", "3-6")
        t = semtui("assess", str(rel), "--original", str(first_half), "--background", str(second_half),
                   "--jobs", "2", "--report", str(work / "assess.json"))
        doc = json.loads((work / "assess.json").read_text())
        print(f"assess MEPS-half k=3 with alternatives, --jobs 2: {t:.1f} s (load after {load()})")
        print(doc["verdict"])
        for a in doc["alternatives"]:
            f = a["privacy"]["figures"]
            print(f"  {'*' if a['chosen'] else ' '} {a['label']}: risk {a['privacy']['risk']}, error ratio "
                  f"{f.get('error_ratio')}, precision {f.get('precision')}, utility {a['utility']['score']} "
                  f"(NCP {a['utility'].get('ncp')}), check {a['check']['passed']}")


if __name__ == "__main__":
    main()
