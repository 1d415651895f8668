"""Regenerate the golden reports of tests/functional/cli/test_golden_reports.py.

ONLY for a deliberate change of behaviour: the goldens are the regression net of issue 36's
redesign, recorded from commit 8bf2fe4 (before its first move); a redesign keeps every report
identical, so a failing golden test is a finding to explain, not a file to rewrite.  When a
change of a report is meant (a new figure, a fixed bug), regenerate, review the diff of
tests/golden/ line by line, and say in the commit which reports changed and why.

The code that runs is the one ``python -m semtui`` imports under the caller's environment: set
PYTHONPATH to the checkout to record (the script prints the semtui it runs and refuses to start
when PYTHONPATH is unset, so the goldens never come from an unnamed tree by accident).  From the
repository root, e.g. for a worktree of the commit the goldens should describe::

    git worktree add /tmp/golden-base <commit>
    PYTHONPATH=/tmp/golden-base python tests/golden/regenerate.py
    git worktree remove /tmp/golden-base

The MEPS slice comes from ../shared/data/meps2005-conditions.txt (its first 300 transactions,
the background the next 300); without it the script stops (the goldens need every run).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

import golden_runs as g  # noqa: E402
from conftest import SAMPLES, SHARED_DATA, run_cli  # noqa: E402


def main() -> int:
    if not os.environ.get("PYTHONPATH"):
        print("regenerate.py: set PYTHONPATH to the checkout whose behaviour the goldens record", file=sys.stderr)
        return 2
    if not (SHARED_DATA / g.MEPS_FILE).is_file():
        print(f"regenerate.py: {SHARED_DATA / g.MEPS_FILE} is missing", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="semtui-golden-") as tmp:
        work = Path(tmp)
        # the semtui the runs import: from the work folder, as they start (not from this one)
        where = subprocess.run([sys.executable, "-c", "import semtui; print(semtui.__file__)"], cwd=work,
                               capture_output=True, text=True, check=True).stdout.strip()
        print(f"recording the reports of {where}", flush=True)
        g.prepare(work, SAMPLES, SHARED_DATA)
        env = {"SEMTUI_CACHE_DIR": str(work / ".cache")}
        start = time.monotonic()
        outcomes = g.execute_all(work, run_cli, env, meps=True)
        seconds = time.monotonic() - start
        failed = [o for o in outcomes.values() if o.rc not in (0, 1)]
        for o in failed:
            print(f"{o.run.name}: exit {o.rc}: {o.stderr.strip()}", file=sys.stderr)
        if failed:
            return 1
        for stale in [*g.RUNS_DIR.glob("*.json"), *g.FILES_DIR.glob("*")]:
            stale.unlink()
        for o in outcomes.values():
            g.write_golden(o)
    print(f"{len(outcomes)} runs in {seconds:.1f} s, written to {g.RUNS_DIR} and {g.FILES_DIR}:")
    for o in outcomes.values():
        print(f"  {o.run.name}: exit {o.rc}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
