"""Regenerate docs/experiments.md's tables from the specs in benchmarks/specs/ (issue 22).

    nice python benchmarks/experiment_tables.py WORK [SPEC_NAME ...] [--jobs N]

Prepares the data in WORK (MEPS, its halves, the first 6,000 patients, the NGD index of the
second half), copies each spec there, runs `semtui experiment WORK/NAME.toml -o WORK/NAME.jsonl`
(resumable: run it again after an interruption and only the missing cells are measured) and
prints each table rendered by benchmarks/render_tables.py.  SPEC_NAME: strongest_meps,
meps_embedding, meps_ngd, disassoc_meps, grid_6k (default: all).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _util import REPO, SHARED_DATA, meps_halves

SPECS = REPO / "benchmarks" / "specs"
TABLE = {"strongest_meps": ["strongest"], "meps_embedding": ["methods"], "meps_ngd": ["methods"],
         "disassoc_meps": ["disassoc"], "grid_6k": []}


def semtui(*args: str) -> None:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    r = subprocess.run([sys.executable, "-m", "semtui", *args], env=env, text=True, capture_output=True)
    if r.returncode != 0:
        raise SystemExit(r.stderr)
    sys.stderr.write(r.stdout)


def prepare(work: Path) -> None:
    meps = work / "meps.txt"
    if not meps.exists():
        shutil.copyfile(SHARED_DATA / "meps2005-conditions.txt", meps)
    if not (work / "meps-half2.txt").exists():
        meps_halves(work)
    lines = meps.read_text(encoding="utf-8").splitlines(keepends=True)
    if not (work / "meps6k.txt").exists():
        (work / "meps6k.txt").write_text("".join(lines[:6000]), encoding="utf-8")
        (work / "meps6k-bg.txt").write_text("".join(lines[6000:12000]), encoding="utf-8")
    if not (work / "meps-half2.sqlite").exists():
        semtui("corpus", "build", str(work / "meps-half2.txt"), "--transactions", "-o", str(work / "meps-half2.sqlite"))


def main() -> None:
    args = [a for a in sys.argv[1:]]
    jobs = "2"
    if "--jobs" in args:
        i = args.index("--jobs")
        jobs = args[i + 1]
        del args[i:i + 2]
    work = Path(args[0] if args else "/tmp/experiment-tables")
    names = args[1:] or list(TABLE)
    work.mkdir(parents=True, exist_ok=True)
    prepare(work)
    for name in names:
        spec = work / f"{name}.toml"
        shutil.copyfile(SPECS / f"{name}.toml", spec)
        results = work / f"{name}.jsonl"
        semtui("experiment", str(spec), "-o", str(results), "--jobs", jobs)
        for kind in TABLE[name]:
            print(f"\n### {name} ({kind})\n", flush=True)
            subprocess.run([sys.executable, str(REPO / "benchmarks" / "render_tables.py"), kind, str(results)],
                           check=True)


if __name__ == "__main__":
    main()
