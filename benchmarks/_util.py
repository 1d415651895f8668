"""Helpers shared by the benchmark scripts: run a command as a real process and measure it."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
#: ../shared/data beside the checkout, or beside an ancestor (a git worktree under /work/wt/)
SHARED_DATA = next((p / "shared" / "data" for p in REPO.parents if (p / "shared" / "data").is_dir()),
                   REPO.parent / "shared" / "data")


def best(fn, repeat: int) -> float:
    """The best wall time (s) of ``fn()`` over ``repeat`` calls in this process."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def meps_halves(work: Path) -> tuple[Path, Path]:
    """The first half of MEPS (the release's patients) and the second (the attacker's
    knowledge of a similar population), as the strongest-attacker experiments split it."""
    lines = (SHARED_DATA / "meps2005-conditions.txt").read_text(encoding="utf-8").splitlines(keepends=True)
    half = len(lines) // 2
    first, second = work / "meps-half1.txt", work / "meps-half2.txt"
    first.write_text("".join(lines[:half]), encoding="utf-8")
    second.write_text("".join(lines[half:]), encoding="utf-8")
    return first, second


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}"


_WRAPPER = (
    "import resource, subprocess, sys, time\n"
    "t0 = time.perf_counter()\n"
    "subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)\n"
    "print(time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
)


def run_measured(args: list[str], repeat: int = 3) -> tuple[float, float]:
    """Best wall time (s) over ``repeat`` runs and the peak RSS (MB) of ``python -m semtui ARGS``.

    Each run is a fresh process (start-up included, as a user would see it), wrapped in its
    own parent so that the peak memory is that run's alone."""
    best, peak = float("inf"), 0.0
    for _ in range(repeat):
        out = subprocess.run([sys.executable, "-c", _WRAPPER, sys.executable, "-m", "semtui", *args],
                             check=True, capture_output=True, text=True).stdout.split()
        best = min(best, float(out[0]))
        peak = max(peak, int(out[1]) / 1024)
    return best, peak
