"""`semtui harden` on the MEPS half (issue 37): the hardened against the plain release, attacked by
the strongest attacker with the background (the other half) and with the original's own
statistics; pair-support error; the time and peak memory of the whole command.

    nice python benchmarks/bench_harden.py [--work DIR] [--runs setgen-bg,setgen-self,km-bg,km-self]

Each run is one fresh `python -m semtui harden ...` process (benchmarks/_util.measured, once:
the command runs its own attacks, which are the measurement), started only while the 1-minute
load is below 4 (the machine is shared). Prints the machine, the date, the load before and after
each run, and a Markdown table for docs/anonymize.md (*Hardening*)."""

from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import machine, measured, meps_halves, semtui

RUNS = {
    "setgen-bg": ("setgen", "background"),
    "setgen-self": ("setgen", "self"),
    "km-bg": ("km", "background"),
    "km-self": ("km", "self"),
}


def wait_for_quiet(limit: float = 4.0) -> float:
    while os.getloadavg()[0] >= limit:
        time.sleep(30)
    return os.getloadavg()[0]


def _iv(d: dict | None) -> str:
    return "" if not d else f" [{d['low']:.3f}, {d['high']:.3f}]"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", type=Path, default=None)
    ap.add_argument("--runs", default=",".join(RUNS))
    args = ap.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="bench-harden-"))
    work.mkdir(parents=True, exist_ok=True)
    half1, half2 = meps_halves(work)
    print(f"{datetime.date.today()}, {machine()}")
    rows = []
    for name in args.runs.split(","):
        family, kn = RUNS[name]
        knowledge = str(half2) if kn == "background" else "self"
        out, rep = work / f"{name}.txt", work / f"{name}.report.json"
        cmd = ["harden", str(half1), "--family", family, "-k", "3" if family == "setgen" else "5"]
        cmd += (["--random-privacy", "300", "--sizes", "3-6", "--seed", "1"] if family == "setgen" else ["-m", "2"])
        cmd += ["--knowledge", knowledge, "-o", str(out), "--report", str(rep)]
        before = wait_for_quiet()
        seconds, cpu, peak = measured(cmd, repeat=1)
        after = os.getloadavg()[0]
        doc = json.loads(rep.read_text())
        print(f"{name}: {seconds:.1f} s wall, {cpu:.1f} s CPU, {peak:.0f} MB, load {before:.2f} -> {after:.2f}; "
              f"{doc['verdict']}")
        for side in ("hardened", "plain"):
            p = doc[side]
            u = p["utility"]
            for a in p["attacks"]:
                iv = a["intervals"]
                rows.append(
                    f"| {family} k={doc['params']['k']}{' m=' + str(doc['params']['m']) if family == 'km' else ''} "
                    f"| {kn} | {side} | {'background' if a['knowledge'] != 'self' else 'self'} | {a['method'].upper()} "
                    f"| {a['auc_within_table']:.3f}{_iv(iv.get('auc_within_table'))} | {a['error_ratio']:.2f} "
                    f"| {a['recall']:.3f}{_iv(iv.get('recall'))} | {a['precision']:.3f} "
                    f"| {u['pair_support_error']:.3f} | {u['item_support_error']:.3f} "
                    f"| {u.get('suppressed_items', '-')} ({u['suppressed_occurrences']}) "
                    f"| {f'{seconds:.1f} s, {peak:.0f} MB' if side == 'hardened' else ''} |")
        if kn == "self":  # the release hardened against self, attacked with the background too (not in its report)
            cross = json.loads(semtui("attack", "setgen", out, "--original", half1, "--background", half2,
                                      "--json").stdout)
            m = cross["metrics"]
            u = doc["hardened"]["utility"]
            rows.append(
                f"| {family} k={doc['params']['k']}{' m=' + str(doc['params']['m']) if family == 'km' else ''} "
                f"| self | hardened | background | {cross['method'].upper()} "
                f"| {m['auc_within_table']:.3f}{_iv(m['intervals'].get('auc_within_table'))} "
                f"| {m['baseline']['error_ratio']:.2f} | {m['recall']:.3f}{_iv(m['intervals'].get('recall'))} "
                f"| {m['precision']:.3f} | {u['pair_support_error']:.3f} | {u['item_support_error']:.3f} "
                f"| {u.get('suppressed_items', '-')} ({u['suppressed_occurrences']}) | (attack setgen --background) |")
        rounds = [(r["round"], r.get("auc_within_table"), r.get("kept")) for r in doc["rounds"]]
        print(f"  rounds: {rounds}")
    print("\n| release | hardened against | release | attack knowledge | method | AUC within table [95 %] | "
          "error ratio | recall [95 %] | precision | pair-support error | item-support error | "
          "suppressed items (occurrences) | harden: time, peak memory |")
    print("|---|---|---|---|---|---|---:|---|---:|---:|---:|---:|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
