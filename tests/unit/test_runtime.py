"""The runtime: units of work run serially or in worker processes give the same result, in
unit order, and a cancel stops the workers."""

from __future__ import annotations

import multiprocessing

import pytest
from conftest import SAMPLES, run_attack
from hypothesis import given
from hypothesis import strategies as st

from semtui import formats
from semtui.errors import Interrupted
from semtui.runtime.executor import batches


def _without_timings(doc: dict) -> dict:
    doc = dict(doc)
    doc["summary"] = {k: v for k, v in doc["summary"].items() if k != "seconds"}
    return doc


@pytest.mark.slow
def test_attack_is_the_same_serial_and_parallel():
    data = formats.read(SAMPLES / "meps400-setgen.txt")
    orig = formats.read(SAMPLES / "meps400-original.txt")
    one = run_attack(data, orig, method="rba", jobs=1)
    two = run_attack(data, orig, method="rba", jobs=2)
    assert _without_timings(one) == _without_timings(two)
    ra1 = run_attack(data, orig, method="ra", seed=5, jobs=1)
    ra2 = run_attack(data, orig, method="ra", seed=5, jobs=2)
    assert _without_timings(ra1) == _without_timings(ra2)
    assert ra1["groups"] != run_attack(data, orig, method="ra", seed=6)["groups"]


def test_a_cancel_stops_the_workers():
    data = formats.read(SAMPLES / "meps400-setgen.txt")
    calls = []

    def stop(done, total, message):
        calls.append(message)
        if message == "attacking":
            raise Interrupted()

    with pytest.raises(Interrupted):
        run_attack(data, method="rba", jobs=2, progress=stop)
    assert "attacking" in calls
    assert multiprocessing.active_children() == []


def test_batches_cover_every_unit_once_largest_first():
    costs = [5, 1, 1, 100, 3, 3, 2]
    out = batches(costs, 2)
    flat = [i for b in out for i in b]
    assert sorted(flat) == list(range(len(costs)))
    assert out[0][0] == 3  # the largest unit starts first


@given(st.lists(st.floats(min_value=0, max_value=1e6, allow_nan=False), min_size=1, max_size=200),
       st.integers(1, 8), st.integers(1, 5))
def test_batches_are_guided_every_unit_once_at_most_per_job_rounds(costs, jobs, per_job):
    out = batches(costs, jobs, per_job)
    flat = [i for b in out for i in b]
    assert sorted(flat) == list(range(len(costs)))
    assert all(out) and len(out) <= jobs * per_job
    assert flat[0] == min(range(len(costs)), key=lambda i: (-costs[i], i))  # the largest starts first


def test_batches_shrink_towards_the_end():
    # 400 equal units, 2 processes, 4 rounds: the first round's batches hold 4 parts of the total,
    # the last round's 1, so a late process waits for a small batch
    out = batches([1.0] * 400, 2, 4)
    sizes = [len(b) for b in out]
    assert len(out) == 8 and sizes[0] == sizes[1] == 80 and sizes[-1] == sizes[-2] == 20


def test_the_engine_imports_its_worker_pools_only_when_it_runs_units():
    """Importing an attack, an anonymiser, the assessment or an experiment imports no worker pool
    (multiprocessing, the executor, Dask): run_units imports its backend when units run.  A
    command that runs nothing in parallel never loads them, and multiprocessing's exit handler is
    registered after semtui's own (which must run last) whenever a run does."""
    import subprocess
    import sys

    from conftest import REPO

    code = ("import sys, semtui.attacks.setgen, semtui.attacks.reassociation, semtui.attacks.cover, semtui.assess, "
            "semtui.anonymize.setgen, semtui.anonymize.disassociation, semtui.experiment, semtui.harden; "
            "print(sorted(m for m in ('multiprocessing', 'concurrent.futures.process', 'semtui.runtime.executor', "
            "'semtui.runtime.scheduler', 'dask') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
    # and running units loads the executor (here: serially, one job)
    from semtui.runtime import run_units

    assert run_units(lambda shared, u: shared + u, 1, [1, 2]) == [2, 3]
    assert "semtui.runtime.executor" in sys.modules
