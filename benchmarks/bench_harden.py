"""`semtui harden` on a half of real data (issue 37): the hardened against the plain release, attacked
by the strongest attacker with the background (the other half) and with the original's own
statistics; pair-support error; the time and peak memory of the whole command.

    nice python benchmarks/bench_harden.py [--data meps|med|bms2] [--work DIR]
        [--runs setgen-bg,setgen-self,km-bg,km-self] [--hierarchy FILE|built] [--max-load L] [--timeout S]

--data: meps (default), the first 13,367 MEPS patients, the background the other 13,368
(_util.meps_halves); med, MED as content words as the MED specs read it (strongest_med.toml,
knowledge_med.toml: _data.med_words), the even abstracts the original, the odd abstracts' words the
background; bms2, BMS-WebView-2's first 38,756 sessions, the background the other 38,756
(_data.bms_halves, as knowledge_bms2.toml).  Every dataset: setgen k = 3 with 300 random 3-6-item
privacy constraints (seed 1), k^m k = 5, m = 2.  --hierarchy (k^m): a file given to harden (default for
bms2: the shipped BMS-WebView-2 hierarchy) or `built` (harden builds its own; the default for meps and
med, which ship none).

Each run is one fresh `python -m semtui harden ...` process (benchmarks/_util.run_once, once:
the command runs its own attacks, which are the measurement), started only while the 1-minute
load is below --max-load (default 4; the machine is shared), and stopped after --timeout seconds
(default: none).  Prints the machine, the date, the load before and after each run, and a Markdown
table for docs/anonymize.md (*Hardening*)."""

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
from _data import DATA, bms_halves, med_words
from _util import harden_table, interval_text, machine, meps_halves, run_once, semtui

RUNS = {
    "setgen-bg": ("setgen", "background"),
    "setgen-self": ("setgen", "self"),
    "km-bg": ("km", "background"),
    "km-self": ("km", "self"),
}


#: the shipped hierarchy of BMS-WebView-2 (the issue's k^m runs on it)
BMS2_HIERARCHY = DATA / "bms-webview-2.hierarchy.txt"


def halves(data: str, work: Path) -> tuple[Path, Path]:
    """The original (the release's transactions) and the background of ``data``."""
    if data == "med":
        return med_words(work)
    if data == "bms2":
        return bms_halves(work, 2)[1:]
    return meps_halves(work)


def wait_for_quiet(limit: float = 4.0) -> float:
    while os.getloadavg()[0] >= limit:
        time.sleep(30)
    return os.getloadavg()[0]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", type=Path, default=None)
    ap.add_argument("--runs", default=",".join(RUNS))
    ap.add_argument("--data", choices=("meps", "med", "bms2"), default="meps")
    ap.add_argument("--hierarchy", default=None, help="k^m: a hierarchy file, or 'built' (harden builds one)")
    ap.add_argument("--max-load", type=float, default=4.0, help="start a run only below this 1-minute load")
    ap.add_argument("--timeout", type=float, default=None, help="stop a harden run after this many seconds")
    args = ap.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="bench-harden-"))
    work.mkdir(parents=True, exist_ok=True)
    half1, half2 = halves(args.data, work)
    hierarchy = args.hierarchy or (str(BMS2_HIERARCHY) if args.data == "bms2" else "built")
    print(f"{datetime.date.today()}, {machine()}; data {args.data}: {half1} (background {half2})"
          + (f"; k^m hierarchy {hierarchy}" if any(RUNS[n][0] == "km" for n in args.runs.split(",")) else ""))
    rows = []
    for name in args.runs.split(","):
        family, kn = RUNS[name]
        knowledge = str(half2) if kn == "background" else "self"
        out, rep = work / f"{name}.txt", work / f"{name}.report.json"
        cmd = ["harden", str(half1), "--family", family, "-k", "3" if family == "setgen" else "5"]
        cmd += (["--random-privacy", "300", "--sizes", "3-6", "--seed", "1"] if family == "setgen" else ["-m", "2"])
        if family == "km" and hierarchy != "built":
            cmd += ["--hierarchy", hierarchy]
        cmd += ["--knowledge", knowledge, "-o", str(out), "--report", str(rep)]
        before = wait_for_quiet(args.max_load)
        started = datetime.datetime.now(datetime.UTC).strftime("%H:%M:%S UTC")
        wrapper = ["timeout", "-s", "TERM", str(args.timeout)] if args.timeout else []
        r = run_once(*cmd, ok_exit=None, wrapper=wrapper)
        seconds, cpu, peak = r.wall, r.cpu, r.peak_mb
        after = os.getloadavg()[0]
        if r.returncode:
            print(f"{name}: exit {r.returncode} after {seconds:.1f} s wall, {cpu:.1f} s CPU, {peak:.0f} MB "
                  f"(started {started}, load {before:.2f} -> {after:.2f}): {r.last_error}"
                  + (" (stopped by --timeout)" if r.returncode == 124 else ""))
            continue
        doc = json.loads(rep.read_text())
        print(f"{name}: {seconds:.1f} s wall, {cpu:.1f} s CPU, {peak:.0f} MB, started {started}, "
              f"load {before:.2f} -> {after:.2f}; "
              f"{doc['verdict']}")
        for side in ("hardened", "plain"):
            p = doc[side]
            u = p["utility"]
            for j, a in enumerate(p["attacks"]):
                iv = a["intervals"]
                rows.append(
                    f"| {family} k={doc['params']['k']}{' m=' + str(doc['params']['m']) if family == 'km' else ''} "
                    f"| {kn if side == 'hardened' else ''} | {side} | {'background' if a['knowledge'] != 'self' else 'self'} | {a['method'].upper()} "
                    f"| {a['auc_within_table']:.3f}{interval_text(iv.get('auc_within_table'))} | {a['error_ratio']:.2f} "
                    f"| {a['recall']:.3f}{interval_text(iv.get('recall'))} | {a['precision']:.3f} "
                    f"| {u['pair_support_error']:.3f} | {u['item_support_error']:.3f} "
                    f"| {u.get('suppressed_items', '-')} ({u['suppressed_occurrences']}) "
                    f"| {f'{seconds:.1f} s, {peak:.0f} MB' if side == 'hardened' and j == 0 else ''} |")
        if kn == "self":  # the release hardened against self, attacked with the background too (not in its report)
            before = wait_for_quiet(args.max_load)
            cross = json.loads(semtui("attack", "setgen", out, "--original", half1, "--background", half2,
                                      "--json", wrapper=wrapper).stdout)
            print(f"  {name} attacked with the background: load {before:.2f} -> {os.getloadavg()[0]:.2f}")
            m = cross["metrics"]
            u = doc["hardened"]["utility"]
            rows.append(
                f"| {family} k={doc['params']['k']}{' m=' + str(doc['params']['m']) if family == 'km' else ''} "
                f"| self | hardened | background | {cross['method'].upper()} "
                f"| {m['auc_within_table']:.3f}{interval_text(m['intervals'].get('auc_within_table'))} "
                f"| {m['baseline']['error_ratio']:.2f} | {m['recall']:.3f}{interval_text(m['intervals'].get('recall'))} "
                f"| {m['precision']:.3f} | {u['pair_support_error']:.3f} | {u['item_support_error']:.3f} "
                f"| {u.get('suppressed_items', '-')} ({u['suppressed_occurrences']}) | (attack setgen --background) |")
        rounds = [(r["round"], r.get("auc_within_table"), r.get("kept")) for r in doc["rounds"]]
        print(f"  rounds: {rounds}")
    harden_table(rows, "harden: time, peak memory")


if __name__ == "__main__":
    main()
