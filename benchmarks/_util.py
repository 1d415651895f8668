"""Helpers shared by the benchmark scripts: run a command as a real process and measure it."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
#: ../shared/data beside the checkout, or beside an ancestor (a git worktree under /work/wt/)
SHARED_DATA = next((p / "shared" / "data" for p in REPO.parents if (p / "shared" / "data").is_dir()),
                   REPO.parent / "shared" / "data")


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
