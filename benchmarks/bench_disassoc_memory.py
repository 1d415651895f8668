"""The driver's memory of ``attack disassoc`` on a large release (issue 26, "Memory").

MEPS repeated N times (N = 16: 427,760 transactions), disassociated with ``-k 5 -m 2
--max-cluster-size 30`` (REFINE on, or ``--no-refine``), attacked with the key and the original
and ``--summary-only``: serially and with ``--scheduler local:2`` (the driver is the main process;
its workers are not counted). Each run is a fresh process under ``/usr/bin/time -v``: wall time
and the driver's peak RSS.

``--phases`` instead runs the serial attack in this process and prints the driver's RSS and peak
(VmRSS, VmHWM) when each phase starts (planning, the kernels, the joint clusters, the informed
reference, the report), and the sizes of the arrays planning holds.

``--resampled``: instead of MEPS repeated (whose identical records HORPART cannot split: 16,734
clusters whatever N, the largest growing with N), MEPS resampled N times with noise (each copy
but the first drops each item with probability 0.2 and adds one, drawn by frequency, with
probability 0.6; seeded), so that the release has clusters of real sizes (× 64: 230,194
clusters of at most 30 but for identical short records, 6,401 joint clusters) -- the shape a
large real release would have, and the one whose per-cluster costs show.

Run: nice python benchmarks/bench_disassoc_memory.py WORK [--times 16] [--resampled] [--no-refine]
     [--phases] [--full] (the full report, without --summary-only)
"""

from __future__ import annotations

import argparse
import datetime
import os
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _util import SHARED_DATA, machine, semtui

MEPS = SHARED_DATA / "meps2005-conditions.txt"


def resample(times: int, out: Path) -> None:
    """MEPS resampled ``times`` times with noise (the module docstring says how)."""
    import numpy as np

    rows = [line.split(",") for line in MEPS.read_text(encoding="utf-8").splitlines() if line.strip()]
    freq: dict[str, int] = {}
    for r in rows:
        for i in r:
            freq[i] = freq.get(i, 0) + 1
    items = sorted(freq)
    p = np.asarray([freq[i] for i in items], dtype=float)
    p /= p.sum()
    rng = np.random.default_rng(1)
    with out.open("w", encoding="utf-8") as fh:
        for c in range(times):
            rng.random((len(rows), 1))   # unused; drawn so that the files measured in the docs are reproduced
            add = rng.choice(len(items), size=len(rows), p=p)
            add_p = rng.random(len(rows)) < 0.6
            for t, r in enumerate(rows):
                keep = [i for i in r if rng.random() > 0.2] if c else list(r)
                if c and add_p[t]:
                    keep.append(items[add[t]])
                fh.write(",".join(list(dict.fromkeys(keep)) or [items[add[t]]]) + "\n")


def build(work: Path, times: int, refine: bool, resampled: bool = False) -> tuple[Path, Path, Path]:
    work.mkdir(parents=True, exist_ok=True)
    stem = f"meps-{'resampled' if resampled else 'x'}{times}"
    orig = work / f"{stem}.txt"
    if not orig.exists():
        if resampled:
            resample(times, orig)
        else:
            orig.write_text(MEPS.read_text(encoding="utf-8") * times, encoding="utf-8")
    tag = "" if refine else "-norefine"
    rel, key = work / f"{stem}{tag}.json", work / f"{stem}{tag}.key.json"
    if not rel.exists() or not key.exists():
        semtui("anonymize", "disassoc", orig, "-k", "5", "-m", "2", "--max-cluster-size", "30", "-o", rel,
               "--key", key, *([] if refine else ["--no-refine"]))
    return orig, rel, key


def timed(args: list[str]) -> tuple[float, float]:
    """(seconds, peak RSS MB) of ``python -m semtui ARGS`` under /usr/bin/time -v."""
    r = semtui(*args, wrapper=["/usr/bin/time", "-v"], check=False)
    if r.returncode:
        raise SystemExit(r.stderr[-2000:])
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", r.stderr).group(1)) / 1024
    wall = re.search(r"Elapsed \(wall clock\) time .*: (?:(\d+):)?(\d+):([\d.]+)", r.stderr)
    secs = int(wall.group(1) or 0) * 3600 + int(wall.group(2)) * 60 + float(wall.group(3))
    return secs, rss


def _status() -> tuple[float, float]:
    fields = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines() if ":" in line)
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def phases(orig: Path, rel: Path, key: Path, summary_only: bool) -> None:
    from semtui import formats
    from semtui.attacks.reassociation import ReassociationOptions, run_reassociation
    from semtui.formats.disassociated import read_key
    from semtui.reports import dumps

    t0 = time.perf_counter()
    rows = [("start", *_status(), 0.0)]
    release = formats.read(rel)
    rows.append(("release read", *_status(), time.perf_counter() - t0))
    the_key = read_key(key)
    rows.append(("key read", *_status(), time.perf_counter() - t0))
    original = formats.read_transactions(orig)
    rows.append(("original read", *_status(), time.perf_counter() - t0))
    seen: set = set()

    def progress(done, total, message=""):
        phase = re.sub(r" \d.*", "", message or "")
        if phase not in seen:
            seen.add(phase)
            rows.append((f"'{phase}' starts", *_status(), time.perf_counter() - t0))

    result = run_reassociation(release, the_key, original, ReassociationOptions(summary_only=summary_only),
                               progress=progress)
    rows.append(("report built", *_status(), time.perf_counter() - t0))
    text = dumps(result.report)
    rows.append((f"report rendered ({len(text) / 1e6:.1f} MB)", *_status(), time.perf_counter() - t0))
    print("| point | RSS MB | peak so far MB | s |\n|---|---:|---:|---:|")
    for name, rss, hwm, s in rows:
        print(f"| {name} | {rss:.0f} | {hwm:.0f} | {s:.1f} |")
    print(f"\n{len(release.clusters):,} clusters, {len(release.joint_clusters):,} joint clusters, "
          f"{len(original):,} transactions")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("work", type=Path)
    ap.add_argument("--times", type=int, default=16)
    ap.add_argument("--no-refine", action="store_true")
    ap.add_argument("--resampled", action="store_true", help="MEPS resampled with noise, not repeated")
    ap.add_argument("--phases", action="store_true")
    ap.add_argument("--full", action="store_true", help="the full report (no --summary-only)")
    ap.add_argument("--only", choices=("serial", "local:2"), default=None)
    a = ap.parse_args()
    orig, rel, key = build(a.work, a.times, not a.no_refine, a.resampled)
    print(f"# attack disassoc, MEPS {'resampled' if a.resampled else 'repeated'} x{a.times}"
          f"{' --no-refine' if a.no_refine else ''} — {datetime.date.today()} — "
          f"{machine()} — load before: {tuple(round(x, 2) for x in os.getloadavg())}\n")
    if a.phases:
        phases(orig, rel, key, not a.full)
        return
    print("| run | seconds | driver peak RSS MB |\n|---|---:|---:|")
    args = ["attack", "disassoc", str(rel), "--key", str(key), "--original", str(orig),
            "--report", str(a.work / "report.json")] + ([] if a.full else ["--summary-only"])
    for name, extra in (("serial", []), ("local:2", ["--scheduler", "local:2"])):
        if a.only and a.only != name:
            continue
        secs, rss = timed(args + extra)
        size = (a.work / "report.json").stat().st_size / 1e6
        print(f"| {name} | {secs:.1f} | {rss:.0f} | (report {size:.1f} MB)", flush=True)
    print(f"\nload after: {tuple(round(x, 2) for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
