"""Helpers shared by the benchmark scripts: run a command as a real process and measure it."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
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


#: the child that runs one semtui process and reports what it cost: its exit status, wall time,
#: CPU time (user + system, of the process and the children it waited for), peak RSS (KB) and
#: the last line of its stderr, as JSON on stdout
_MEASURE = (
    "import json, resource, subprocess, sys, time\n"
    "t0 = time.perf_counter()\n"
    "r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)\n"
    "wall = time.perf_counter() - t0\n"
    "u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
    "err = r.stderr.strip().splitlines()\n"
    "print(json.dumps([r.returncode, wall, u.ru_utime + u.ru_stime, u.ru_maxrss, err[-1] if err else '']))\n"
)


def bytecode(code: Path = REPO, python: str | None = None) -> None:
    """Compile ``code``'s semtui to bytecode before a start-up is timed, as ``pip install`` does.
    Without it a checkout's modules are compiled on every start wherever Python may not write
    bytecode (``PYTHONDONTWRITEBYTECODE``, set in the machine this project is built on): a fresh
    worktree of an earlier revision then starts ~0.3-0.5 s slower than the same code compiled, and
    this checkout pays for each file changed since its last compile."""
    subprocess.run([python or sys.executable, "-m", "compileall", "-q", str(Path(code) / "semtui")], check=True,
                   stdout=subprocess.DEVNULL)


def env_for(code: Path = REPO, **extra: str) -> dict[str, str]:
    """This process's environment with semtui imported from ``code`` (the checkout by default)."""
    return {**os.environ, "PYTHONPATH": str(code), **extra}


def command(*args: object, wrapper: Sequence[str] = (), python: str | None = None) -> list[str]:
    """The argv of ``python -m semtui ARGS``: the one way the benchmarks start semtui.
    ``wrapper``: a program to run it under (``nice``, ``/usr/bin/time -v``); ``python``: another
    interpreter than this one.  ``-P``: the working directory is not put first on the path, so that
    semtui comes from ``PYTHONPATH`` (:func:`env_for`'s checkout) even when run from another checkout."""
    return [*wrapper, python or sys.executable, "-P", "-m", "semtui", *map(str, args)]


def semtui(*args: object, env: dict[str, str] | None = None, cwd: Path | str | None = None, check: bool = True,
           timeout: float | None = None, capture: bool = True, wrapper: Sequence[str] = (),
           python: str | None = None) -> subprocess.CompletedProcess:
    """Run ``python -m semtui ARGS`` as a fresh process and wait for it (text output, captured
    unless ``capture`` is false; ``check``: raise on a non-zero exit)."""
    return subprocess.run(command(*args, wrapper=wrapper, python=python), env=env, cwd=cwd, check=check,
                          timeout=timeout, capture_output=capture, text=True)


@dataclass(frozen=True)
class Run:
    """One measured semtui process."""

    returncode: int
    wall: float  #: seconds, start-up included
    cpu: float  #: user + system seconds, its children included
    peak_mb: float  #: peak resident set size, MB
    last_error: str  #: the last line of its stderr ('' when none)


def run_once(*args: object, env: dict[str, str] | None = None, cwd: Path | str | None = None,
             ok_exit: Sequence[int] = (0,), wrapper: Sequence[str] = (), python: str | None = None) -> Run:
    """Run ``python -m semtui ARGS`` once as a fresh process, in its own parent so that the
    peak memory and CPU time are that run's alone.  An exit status outside ``ok_exit`` raises
    (``ok_exit=None``: any status is returned)."""
    out = subprocess.run([sys.executable, "-c", _MEASURE, *command(*args, wrapper=wrapper, python=python)],
                         check=True, capture_output=True, text=True, env=env, cwd=cwd).stdout
    rc, wall, cpu, rss, err = json.loads(out.strip().splitlines()[-1])
    if ok_exit is not None and rc not in ok_exit:
        raise subprocess.CalledProcessError(rc, command(*args), stderr=err)
    return Run(rc, wall, cpu, rss / 1024, err)


def measured(args: Sequence[object], repeat: int = 3, *, env: dict[str, str] | None = None,
             cwd: Path | str | None = None, ok_exit: Sequence[int] = (0,),
             python: str | None = None) -> tuple[float, float, float]:
    """(best wall s, best CPU s, peak RSS MB) of ``python -m semtui ARGS`` over ``repeat`` fresh
    processes (start-up included, as a user would see it)."""
    runs = [run_once(*args, env=env, cwd=cwd, ok_exit=ok_exit, python=python) for _ in range(repeat)]
    return min(r.wall for r in runs), min(r.cpu for r in runs), max(r.peak_mb for r in runs)


def run_measured(args: list[str], repeat: int = 3) -> tuple[float, float]:
    """Best wall time (s) over ``repeat`` runs and the peak RSS (MB) of ``python -m semtui ARGS``."""
    wall, _, peak = measured(args, repeat)
    return wall, peak


def module_at(rev: str):
    """semtui's eliminators as of git revision ``rev``, imported beside today's as the module
    ``eliminate_before``: the one file ``eliminate.py`` of older revisions, or the package
    ``eliminate/`` (its modules' imports of one another pointed at the copy)."""
    import importlib
    import importlib.util

    repo = str(REPO)

    def show(path: str) -> subprocess.CompletedProcess:
        return subprocess.run(["git", "-C", repo, "show", f"{rev}:{path}"], capture_output=True, text=True)

    folder = Path(tempfile.mkdtemp())
    src = show("semtui/attacks/setgen/eliminate.py")
    if src.returncode == 0:
        path = folder / "eliminate_before.py"
        path.write_text(src.stdout, encoding="utf-8")
        spec = importlib.util.spec_from_file_location("eliminate_before", path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules["eliminate_before"] = mod  # dataclasses look their module up
        spec.loader.exec_module(mod)
        return mod
    package = folder / "eliminate_before"
    package.mkdir()
    names = subprocess.run(["git", "-C", repo, "ls-tree", "--name-only", f"{rev}:semtui/attacks/setgen/eliminate/"],
                           capture_output=True, text=True, check=True).stdout.split()
    for name in (n for n in names if n.endswith(".py")):
        text = show(f"semtui/attacks/setgen/eliminate/{name}").stdout
        (package / name).write_text(text.replace("semtui.attacks.setgen.eliminate.", "eliminate_before."),
                                    encoding="utf-8")
    sys.path.insert(0, str(folder))
    try:
        return importlib.import_module("eliminate_before")
    finally:
        sys.path.remove(str(folder))


def interval_text(d: dict | None) -> str:
    """`` [low, high]`` of an interval's document, or nothing."""
    return "" if not d else f" [{d['low']:.3f}, {d['high']:.3f}]"


def harden_table(rows: list[str], last: str) -> None:
    """The Markdown table of docs/anonymize.md (*Hardening*): ``rows`` under its head, ``last`` the
    last column's name (what the time and memory are of)."""
    print("\n| release | hardened against | release | attack knowledge | method | AUC within table [95 %] | "
          "error ratio | recall [95 %] | precision | pair-support error | item-support error | "
          f"suppressed items (occurrences) | {last} |")
    print("|---|---|---|---|---|---|---:|---|---:|---:|---:|---:|---|")
    print("\n".join(rows))
