"""The one executor (issue 19, class 2): no other module starts processes; a request beyond
the cores runs on the cores; an exception or a cancel leaves no worker behind."""

from __future__ import annotations

import ast
import contextlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import REPO
from procs import descendants, wait_gone

from semtui.errors import Interrupted
from semtui.runtime import run_units
from semtui.runtime.executor import available_cores, capped_jobs

EXECUTOR = "semtui/runtime/executor.py"
#: the executor's other backend: units on a Dask cluster (``--scheduler``), and that cluster opened and closed
DASK = ("semtui/runtime/scheduler.py", "semtui/runtime/cluster.py")
#: modules that start processes or pools (Dask's local clusters too); only the executor may import them
PROCESS_MODULES = ("multiprocessing", "concurrent", "subprocess", "dask", "distributed")
#: functions that start processes without those modules
PROCESS_CALLS = {"fork", "forkpty", "posix_spawn", "posix_spawnp", "system", "popen", "execv", "execvp",
                 "spawnv", "spawnl", "spawnlp", "spawnvp"}


def _starters(path: Path) -> list[str]:
    text = path.read_text()
    if not any(word in text for word in (*PROCESS_MODULES, *PROCESS_CALLS)):
        return []
    tree = ast.parse(text, str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.split(".")[0] in PROCESS_MODULES]
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in PROCESS_MODULES:
            found.append(node.module)
        elif (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "os"
              and node.attr in PROCESS_CALLS):
            found.append(f"os.{node.attr}")
    return found


def test_the_executor_is_the_only_place_that_starts_processes():
    starters = {}
    for path in sorted((REPO / "semtui").rglob("*.py")):
        found = _starters(path)
        if found:
            starters[str(path.relative_to(REPO))] = found
    assert set(starters) == {EXECUTOR, *DASK}, starters
    assert "multiprocessing" in starters[EXECUTOR]
    # the Dask backend starts nothing itself: Dask's classes, and the executor's companion process
    for path in DASK:
        assert {name.split(".")[0] for name in starters[path]} <= {"dask", "distributed"}, starters[path]


def _pid(shared, unit):
    time.sleep(shared)
    return os.getpid()


def _fail(shared, unit):
    if unit == 3:
        raise ValueError("unit 3 is bad")
    time.sleep(shared)
    return unit


def _workers_left() -> list[int]:
    """Workers of ours still running (children of the fork server, a child of this process)."""
    mine = descendants(os.getpid())
    return wait_gone({p: v for p, v in mine.items() if v[0] != os.getpid()}, 5.0)


@pytest.mark.slow
def test_a_request_beyond_the_cores_runs_on_the_cores():
    assert capped_jobs(1000) == available_cores()
    assert capped_jobs(0) == 1
    pids = run_units(_pid, 0.02, list(range(40)), jobs=1000)
    assert len(pids) == 40
    assert os.getpid() not in pids or available_cores() == 1
    assert len(set(pids)) <= available_cores()
    assert _workers_left() == []


def test_results_come_back_in_unit_order_whatever_the_costs():
    out = run_units(_fail, 0.0, [0, 1, 2, 4, 5, 6], jobs=2, costs=[1, 9, 2, 8, 3, 7])
    assert out == [0, 1, 2, 4, 5, 6]


def test_a_failing_kernel_or_a_cancel_leaves_no_worker():
    with pytest.raises(ValueError, match="unit 3 is bad"):
        run_units(_fail, 0.05, list(range(20)), jobs=2)
    assert _workers_left() == []

    def cancel(done, total, message):
        if any(parent != os.getpid() for parent, _ in descendants(os.getpid()).values()):
            # the workers run (children of the fork server): the user cancels
            raise Interrupted()

    with pytest.raises(Interrupted):
        run_units(_pid, 0.5, list(range(20)), jobs=2, progress=cancel)
    assert _workers_left() == []


def test_units_shared_with_the_caller_run_once_each_in_a_worker_even_with_one_job():
    """``claim`` (an assessment's alternatives, which this process measures too once its own
    attacks are done): one job still runs in a worker process; each unit is claimed once, by the
    workers as they become free or by the caller; what the caller took stays None here."""
    import threading

    from semtui.runtime.executor import run_local

    lock, taken, mine = threading.Lock(), [0], []

    def claim():
        with lock:
            if taken[0] >= 8:
                return None
            taken[0] += 1
            return taken[0] - 1

    def caller():   # the caller's own share, claimed beside the worker
        time.sleep(0.1)
        while (i := claim()) is not None:
            mine.append(i)
            time.sleep(0.1)

    helper = threading.Thread(target=caller)
    helper.start()
    got = {}
    out = run_local(_pid, 0.1, list(range(8)), jobs=1, claim=claim, on_result=got.__setitem__)
    helper.join()
    ran = sorted(got)
    assert ran and mine and sorted(ran + mine) == list(range(8))   # each unit once, both took some
    assert all(out[i] is None for i in mine) and all(out[i] not in (None, os.getpid()) for i in ran)
    assert len({out[i] for i in ran}) == 1   # one worker process
    assert _workers_left() == []


def test_workers_start_when_stderr_has_no_file_descriptor(tmp_path):
    """Under the TUI, sys.stderr is Textual's capture of print, whose fileno() is -1; the
    executor's first pool must still start (multiprocessing hands that fd to its helpers)."""
    code = (
        "import operator, sys\n"
        "class Capture:\n"
        "    def write(self, s): return len(s)\n"
        "    def flush(self): pass\n"
        "    def fileno(self): return -1\n"
        "sys.stderr = Capture()\n"
        "from semtui.runtime import run_units\n"
        "print(run_units(operator.add, 10, [1, 2, 3, 4], jobs=2))\n"
    )
    env = dict(os.environ, PYTHONPATH=str(REPO))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[11, 12, 13, 14]"


def test_a_stopped_command_kills_every_helper_before_its_last_cleanup():
    """stop_descendants, in a process of its own (it kills all of its caller's descendants): a
    child whose own child keeps forking new ones, all gone when it returns -- none escaped by
    being forked during the sweep -- while multiprocessing's resource tracker is spared (killed,
    it would be started again by the next semaphore collected, and print a KeyError)."""
    script = """
import json, os, subprocess, sys, time
from multiprocessing import resource_tracker
from semtui.runtime.executor import _alive, _living_descendants, stop_descendants

resource_tracker.ensure_running()
tracker = resource_tracker._resource_tracker._pid
# a shell whose child forks a new sleeper every few milliseconds
subprocess.Popen(["sh", "-c", "sh -c 'while :; do sleep 5 & sleep 0.005; done' & wait"])
deadline = time.monotonic() + 10
before = _living_descendants(os.getpid())
while len(before) < 8 and time.monotonic() < deadline:
    time.sleep(0.01)
    before = _living_descendants(os.getpid())
stop_descendants()
after = [p for p in _living_descendants(os.getpid()) if p != tracker]
time.sleep(0.2)   # a process that escaped the sweep would have forked again by now
print(json.dumps({"before": len(before), "after": after, "tracker": _alive(tracker),
                  "survivors": [p for p in before if p != tracker and _alive(p)]}))
"""
    import signal

    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=dict(os.environ, PYTHONPATH=str(REPO)), start_new_session=True)
    try:
        out, err = proc.communicate(timeout=30)
    finally:  # whatever escaped is killed with its session
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert proc.returncode == 0 and err == "", err
    got = json.loads(out)
    assert got["before"] >= 8, got   # the shells, the forking loop's sleepers, the tracker
    assert got["after"] == [] and got["survivors"] == [] and got["tracker"] is True, got
