"""First paint through the real command (issue 39 item 3): `semtui open RELEASE --companions` started
in a tmux session of 120x40, timed from the launch until the list's first row (its cursor mark, the
list's first entry) is on the terminal, polled every 10 ms with `tmux capture-pane`.  This is what
a user waits for: the interpreter, the CLI, reading the release and what the first screen needs,
Textual's terminal driver.  benchmarks/bench_tui_waits.py --only paint times the same releases in
process (to the main screen's first refresh).

The releases are bench_tui_waits.py's (benchmarks/_data.py, made once into --work).  With ``--before CHECKOUT`` (an
earlier revision's worktree) the two run interleaved, the order the same each round; ``--before-python
PY`` runs the before side with another interpreter (another environment: e.g. other versions of the
dependencies, on the same code when ``--before`` is not given).

Run: python benchmarks/bench_tui_paint_tmux.py [--rounds 3] [--work /tmp/semtui-tui-waits] [--before DIR]
     [--before-python PY]
"""

from __future__ import annotations

import argparse
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _data import first_paint_releases
from _util import REPO, bytecode, command, machine

#: what the first row of each release's list starts with once painted (the cursor mark)
CURSOR = "▶"


def _args(opened: list[str]) -> list[str]:
    """bench_tui_waits' companions (``key=PATH``) as `semtui open` options."""
    out = [opened[0]]
    for c in opened[1:]:
        name, path = c.split("=", 1)
        out += [f"--{name}", path]
    return out


def first_row(code: Path, opened: list[str], timeout: float = 30.0, python: str | None = None) -> float | None:
    """Seconds from launching `semtui open` (the checkout ``code``, with ``python`` or this
    interpreter) to its list's first row."""
    name = f"semtui-paint-{time.time_ns()}"
    cmd = f"cd /tmp && PYTHONPATH={shlex.quote(str(code))} {shlex.join(command('open', *_args(opened), python=python))}"
    started = time.monotonic()
    subprocess.run(["tmux", "new", "-d", "-s", name, "-x", "120", "-y", "40", cmd], check=True)
    seen = None
    try:
        while time.monotonic() - started < timeout:
            screen = subprocess.run(["tmux", "capture-pane", "-p", "-t", name], capture_output=True, text=True).stdout
            if any(line.startswith("│" + CURSOR) for line in screen.splitlines()):
                seen = time.monotonic() - started
                break
            time.sleep(0.01)
    finally:
        subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)
    time.sleep(1.0)   # the app gone before the next launch
    return seen


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--work", type=Path, default=Path("/tmp/semtui-tui-waits"))
    ap.add_argument("--before", type=Path, help="an earlier revision's worktree, run interleaved")
    ap.add_argument("--before-python", help="the interpreter of the before side (another environment)")
    a = ap.parse_args()
    # the command runs from /tmp: every path absolute, and a --before that is no checkout refused
    # (PYTHONPATH pointing nowhere would quietly import the installed semtui instead)
    a.work = a.work.resolve()
    if a.before is not None:
        a.before = a.before.resolve()
        if not (a.before / "semtui" / "__init__.py").is_file():
            sys.exit(f"--before {a.before}: not a semtui checkout")
    if shutil.which("tmux") is None:
        sys.exit("tmux is needed")
    a.work.mkdir(parents=True, exist_ok=True)
    cases = first_paint_releases(a.work)
    if a.before is None and a.before_python:
        a.before = REPO   # the same code in another environment
    sides = ([("before", a.before, a.before_python)] if a.before else []) + [("this checkout", REPO, None)]
    for _, code, python in sides:
        bytecode(code, python)
    print(f"# first paint through `semtui open` in tmux 120x40 — {machine()}")
    print()
    print("| release | round | side | seconds | load before |")
    print("|---|---:|---|---:|---:|")
    for r in range(a.rounds):
        for case, opened in cases.items():
            for side, code, python in sides:
                load = Path("/proc/loadavg").read_text().split()[0]
                s = first_row(code, opened, python=python)
                shown = "no first row in 30 s" if s is None else f"{s:.2f}"
                print(f"| {case} | {r + 1} | {side} | {shown} | {load} |", flush=True)


if __name__ == "__main__":
    main()
