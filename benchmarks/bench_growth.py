"""How `semtui attack setgen --method rba` grows with the release (issue 26, "Cost as the work
grows"): MEPS releases of 1/4, 1/2, 1x and 4x, one process each, before and after a change.

    python benchmarks/bench_growth.py WORK [--before REV | --numba] [--sizes q,h,1,4] [--timeout S]

WORK (outside the repository) receives the releases, made once and reused:

* q, h, 1: the first quarter / half / all of MEPS, each anonymised by the CLI as the attack
  experiments do (COAT-style, k = 3, 300 random 3-6 item constraints, seed 1);
* 4: a synthetic 4x that keeps the group-size statistics: the 1x release and MEPS each
  repeated 4 times, item names kept (every equivalence group and its transactions 4x; the
  generalisation is the 1x one: MEPS repeated 4 times is already k = 3 for every constraint,
  so anonymising it generalises nothing).

Each size runs `attack setgen REL --original ORIG --method rba` (default measure, embedding)
as a whole process under `nice`, the code of ``--before REV`` (exported with `git archive`)
right before the working tree's, so both meet the same load, and says whether both printed the
same report; each run's wall time and CPU time (user + system: less sensitive to the machine's
load).  A run over ``--timeout`` seconds is stopped and reported as "> TIMEOUT".  ``--only
before`` runs the old code alone (to run the two sides of a long size side by side, in two
processes, at the same load); each side's printed report is kept in WORK, so the side that
ends last compares the two.  Prints a Markdown table, the machine and `uptime` before and
after.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

from _util import REPO, SHARED_DATA, env_for, machine, semtui

MEPS = SHARED_DATA / "meps2005-conditions.txt"
LABELS = {"q": "1/4", "h": "1/2", "1": "1x", "4": "4x (synthetic)"}


def cli(pythonpath: Path, *args: str, timeout: float | None = None, extra_env: dict | None = None
        ) -> subprocess.CompletedProcess:
    env = env_for(pythonpath, NO_COLOR="1", **(extra_env or {}))
    return semtui(*args, env=env, check=False, timeout=timeout, wrapper=["nice"])


def releases(work: Path, sizes: list[str]) -> dict[str, tuple[Path, Path]]:
    lines = MEPS.read_text(encoding="utf-8").splitlines(keepends=True)
    out = {}
    for s in sizes:
        orig, rel = work / f"meps-{s}.txt", work / f"meps-{s}-k3.txt"
        if s == "4":
            one_orig, one_rel = out.get("1") or releases(work, ["1"])["1"]
            if not rel.exists():
                orig.write_text(one_orig.read_text(encoding="utf-8") * 4, encoding="utf-8")
                rel.write_text(one_rel.read_text(encoding="utf-8") * 4, encoding="utf-8")
        elif not rel.exists():
            n = {"q": len(lines) // 4, "h": len(lines) // 2, "1": len(lines)}[s]
            orig.write_text("".join(lines[:n]), encoding="utf-8")
            r = cli(REPO, "anonymize", "setgen", str(orig), "-k", "3", "-o", str(rel), "--random-privacy", "300",
                    "--seed", "1", "--sizes", "3-6", "--utility", "all")
            if r.returncode != 0:
                sys.exit(f"anonymize setgen failed for {s}: {r.stderr.strip()}")
        out[s] = (orig, rel)
    return out


def attack(pythonpath: Path, orig: Path, rel: Path, timeout: float, extra_env: dict | None = None
           ) -> tuple[str, str | None]:
    """The wall time of one run, and what it printed (None if it did not finish)."""
    t, ru = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        r = cli(pythonpath, "attack", "setgen", str(rel), "--original", str(orig), "--method", "rba",
                timeout=timeout, extra_env=extra_env)
    except subprocess.TimeoutExpired:
        return f"> {timeout:.0f} s (stopped)", None
    if r.returncode != 0:
        return f"failed ({r.stderr.strip().splitlines()[-1] if r.stderr.strip() else r.returncode})", None
    wall, ru2 = time.perf_counter() - t, resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = ru2.ru_utime + ru2.ru_stime - ru.ru_utime - ru.ru_stime
    return f"{wall:.1f} s ({cpu:.1f} s CPU)", r.stdout


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("work", type=Path, help="folder for the releases (outside the repository)")
    ap.add_argument("--before", help="a git revision to time before the working tree's code")
    ap.add_argument("--numba", action="store_true",
                    help="before: the working tree without numba (SEMTUI_NO_NUMBA=1); after: with it")
    ap.add_argument("--sizes", default="q,h,1,4")
    ap.add_argument("--timeout", type=float, default=1800.0)
    ap.add_argument("--only", choices=["before", "after"], help="run one side only")
    args = ap.parse_args()
    work = args.work.resolve()
    if work == REPO or REPO in work.parents:
        sys.exit("put the releases outside the repository")
    work.mkdir(parents=True, exist_ok=True)
    sizes = args.sizes.split(",")
    rels = releases(work, sizes)
    print(f"# {machine()}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print(f"# uptime before: {subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}")
    before_env, label = None, args.before
    if args.numba:
        before_env, label = {"SEMTUI_NO_NUMBA": "1"}, "numpy loop"
        ru = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([sys.executable, "-c", "import numpy as np; from semtui.attacks.setgen.eliminate import "
                        "eliminate; [eliminate(np.ones((3, 3)), m, engine='compiled') for m in ('gba', 'rba')]"],
                       env=dict(os.environ, PYTHONPATH=str(REPO)), check=True)
        ru2 = resource.getrusage(resource.RUSAGE_CHILDREN)
        print(f"# numba kernel compiled or loaded from its cache: "
              f"{ru2.ru_utime + ru2.ru_stime - ru.ru_utime - ru.ru_stime:.1f} s CPU")
    with tempfile.TemporaryDirectory() as tmp:
        before = REPO if args.numba else None
        if args.before and not args.numba:
            archive = Path(tmp) / "before.tar"
            subprocess.run(["git", "-C", str(REPO), "archive", "-o", str(archive), args.before], check=True)
            before = Path(tmp) / "before"
            with tarfile.open(archive) as tar:
                tar.extractall(before, filter="data")
        print()
        print("| release | transactions | " + (f"before ({label}) | " if before else "") + "after |"
              + (" same output |" if before else ""))
        print("|---|---:|" + ("---:|" if before else "") + "---:|" + ("---|" if before else ""))
        for s in sizes:
            orig, rel = rels[s]
            n = sum(1 for _ in rel.open(encoding="utf-8"))
            runs = [attack(before, orig, rel, args.timeout, before_env) if args.only != "after" else ("-", None)] \
                if before else []
            runs.append(attack(REPO, orig, rel, args.timeout) if args.only != "before" else ("-", None))
            cells = [t for t, _ in runs]
            if before:  # the whole printed report, every figure of it, before and after
                outs = [o for _, o in runs]
                for side, o in zip(("before", "after"), outs):
                    if o is not None:  # kept, so that sides run apart (--only) can be compared
                        (work / f"out-{s}-{side}.txt").write_text(o, encoding="utf-8")
                saved = [work / f"out-{s}-{side}.txt" for side in ("before", "after")]
                if None in outs and all(p.exists() for p in saved):
                    outs = [p.read_text(encoding="utf-8") for p in saved]
                cells.append("n/a" if None in outs else "yes" if outs[0] == outs[1] else "NO")
            print(f"| {LABELS[s]} | {n:,} | " + " | ".join(cells) + " |", flush=True)
    print()
    print(f"# uptime after: {subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}")


if __name__ == "__main__":
    main()
