"""tests/warm_cli.py: a CLI run forked from the warm semtui is the run a fresh ``python -m semtui``
makes (the same exit code, standard output and error, input read, folder and environment honoured),
runs may overlap, a timeout kills the run, and an environment that changes the interpreter's start
is never forked."""

from __future__ import annotations

import concurrent.futures
import os
import subprocess
import sys
import time

import pytest
import warm_cli
from conftest import SAMPLES, paused_at

SETGEN = SAMPLES / "medical-setgen.txt"


@pytest.fixture(scope="module")
def warm():
    w = warm_cli.Warm()
    yield w
    w.close()


def _env(tmp_path, **more) -> dict:
    env = dict(os.environ, SEMTUI_CACHE_DIR=str(tmp_path / "cache"), **more)
    env.pop("SEMTUI_DEBUG", None)
    return env


def _cold(args, *, cwd, env, input=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "semtui", *args], cwd=cwd, env=env, input=input,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("args, input", [
    (["info", str(SETGEN), "--json"], None),
    (["info", "-", "--json"], SETGEN.read_text()),                    # standard input
    (["info", "nowhere.txt"], None),                                  # bad input: one line, exit 2
    (["attack", "setgen", str(SETGEN), "--method", "nosuch"], None),  # a usage error
    (["nosuch"], None),
    (["anonymise"], None),                                            # a typo: every command suggested
    (["check", "km", str(SAMPLES / "medical-original.txt"), "-k", "2", "-m", "2"], None),  # exit 1
    (["--help"], None),
])
def test_a_forked_run_is_the_fresh_interpreters_run(warm, tmp_path, args, input):
    env = _env(tmp_path, COLUMNS="100", NO_COLOR="1")
    assert warm.can_fork(env)  # else this compares two fresh interpreters
    forked = warm.run(args, cwd=tmp_path, env=env, input=input, timeout=60)
    cold = _cold(args, cwd=tmp_path, env=env, input=input)
    assert (forked.returncode, forked.stdout, forked.stderr) == (cold.returncode, cold.stdout, cold.stderr)
    assert forked.stdout or forked.stderr


def test_a_forked_run_has_the_folder_and_environment_it_is_given(warm, tmp_path):
    (tmp_path / "here.txt").write_text(SETGEN.read_text())
    env = _env(tmp_path)
    r = warm.run(["info", "here.txt", "--json"], cwd=tmp_path, env=env, input=None, timeout=60)
    assert r.returncode == 0 and '"transactions": 4' in r.stdout.replace(" ", "").replace('":', '": ')
    r = warm.run(["cache", "info", "--json"], cwd=tmp_path, env=env, input=None, timeout=60)
    assert r.returncode == 0 and str(tmp_path / "cache") in r.stdout


def test_runs_may_overlap(warm, tmp_path):
    env = _env(tmp_path)
    jobs = [["info", str(SETGEN), "--json"], ["nosuch"], ["info", "nowhere.txt"]] * 3
    with concurrent.futures.ThreadPoolExecutor(3) as pool:
        got = list(pool.map(lambda a: warm.run(a, cwd=tmp_path, env=env, input=None, timeout=60), jobs))
    assert [r.returncode for r in got] == [0, 2, 2] * 3
    assert len({r.stdout for r in got[::3]}) == 1


def test_a_run_past_its_timeout_is_killed(warm, tmp_path):
    marker = tmp_path / "paused"
    env = paused_at("semtui finished", marker, _env(tmp_path))
    start = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired):
        warm.run(["info", str(SETGEN)], cwd=tmp_path, env=env, input=None, timeout=3)
    assert marker.is_dir() and time.monotonic() - start < 30  # it waited at its pause point until killed


def test_an_environment_that_changes_the_interpreters_start_is_not_forked(warm, tmp_path):
    env = _env(tmp_path)
    assert warm.can_fork(env)
    for key in ("PYTHONHASHSEED", "PYTHONUNBUFFERED", "PYTHONIOENCODING", "LC_ALL", "LANG", "PYTHONPATH",
                "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"):
        assert not warm.can_fork({**env, key: env.get(key, "") + "7"}), key
    # the path to the semtui it imported (the golden runs' PYTHONPATH) changes nothing
    assert warm.can_fork({**env, "PYTHONPATH": str(warm.package.parent)})
