"""A k^m release as a publisher meets it: its size on disk, ``semtui info`` and the TUI's first
paint, in the node format (``--release-format nodes``, the default: a generalised item written
as its hierarchy node) against the leaf-list text (``--release-format leaves``).

Dataset: all of BMS-WebView-2 with its shipped hierarchy, k=5, m=2 (AA), the release opened
alone and with its original.  Each measurement is a fresh process (interpreter start-up
included, as a user sees it); "first paint" is the moment the main screen has been laid out
and drawn once, headless at 80x24 through Textual's test driver, counted from the process's
start.  Best of --repeat runs.

Run: python benchmarks/bench_km_release.py [--repeat 3] [--work /tmp/semtui-km-release]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

from _util import SHARED_DATA, env_for, machine, run_measured, run_once, semtui

REPO = Path(__file__).resolve().parents[1]

CHILD = r'''
import asyncio, sys, time
t_start = float(sys.argv[1])
from pathlib import Path
from semtui.tui.app import SemtuiApp
from semtui.tui.session import load_session

data = Path(sys.argv[2])
original = Path(sys.argv[3]) if sys.argv[3] else None

async def main():
    session = load_session(data, original=original)
    app = SemtuiApp(session)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        print(time.time() - t_start, time.process_time(), session.k_for_exposure())

asyncio.run(main())
'''


def first_paint(data: Path, original: Path | None, repeat: int) -> tuple[float, float, object]:
    """Best wall time to first paint, and the CPU time the process had used by then (less
    sensitive to other processes on a loaded machine than the wall time)."""
    best, cpu, k = float("inf"), float("inf"), None
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    for _ in range(repeat):
        out = subprocess.run([sys.executable, "-c", CHILD, str(time.time()), str(data), str(original or "")],
                             check=True, capture_output=True, text=True, env=env).stdout.split(maxsplit=2)
        best, cpu = min(best, float(out[0])), min(cpu, float(out[1]))
        k = out[2].strip()
    return best, cpu, k


def cpu_seconds(args: list[str], repeat: int) -> float:
    """The least CPU time (user + system) of ``python -m semtui ARGS`` over ``repeat`` runs."""
    return min(run_once(*args, env=env_for()).cpu for _ in range(repeat))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--work", type=Path, default=Path("/tmp/semtui-km-release"))
    args = ap.parse_args()
    orig = SHARED_DATA / "bms-webview-2.dat"
    hier = SHARED_DATA / "bms-webview-2.hierarchy.txt"
    args.work.mkdir(parents=True, exist_ok=True)
    print(f"machine: {machine()}; load {os.getloadavg()}")
    print("| release format | size (MB) | anonymize km (s) | info (s) | info CPU (s) | info RSS (MB) "
          "| first paint (s) | its CPU (s) | first paint with original (s) | its CPU (s) | exposure k |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for fmt in ("nodes", "leaves"):
        out = args.work / f"wv2-k5m2-{fmt}.txt"
        t0 = time.perf_counter()
        semtui("anonymize", "km", orig, "--hierarchy", hier, "-k", "5", "-m", "2", "-o", out,
               "--release-format", fmt, env=env_for())
        t_anon = time.perf_counter() - t0
        info_s, info_mb = run_measured(["info", str(out)], args.repeat)
        info_cpu = cpu_seconds(["info", str(out)], args.repeat)
        paint, cpu, k = first_paint(out, None, args.repeat)
        paint_o, cpu_o, _ = first_paint(out, orig, args.repeat)
        print(f"| {fmt} | {out.stat().st_size / 1e6:.1f} | {t_anon:.1f} | {info_s:.2f} | {info_cpu:.2f} | {info_mb:.0f} | "
              f"{paint:.2f} | {cpu:.2f} | {paint_o:.2f} | {cpu_o:.2f} | {k} |", flush=True)
    print(f"load after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
