"""``--scheduler`` within the machine's limits (issue 38, class 1), over every command that takes
it: ``local:N`` starts at most one worker a core, as ``--jobs`` (and says so once, in ``--jobs``'s
words); an address no scheduler can have, or where nothing listens, is refused at once in one
line (exit 2), not tried for 30 s; a run stopped by ``timeout`` leaves nothing in $TMPDIR and no
traceback on stderr."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import REPO, SAMPLES, run_cli

pytest.importorskip("distributed")

from semtui.runtime.executor import available_cores

#: a local cluster asking for one worker more than the cores
OVER = f"local:{available_cores() + 1}"
NOTE = f"semtui: note: --scheduler {OVER} capped to local:{available_cores()}, the cores available"

EXPERIMENT = """original = "orig.txt"

[[release]]
family = "setgen"
k = [2]
random_privacy = 10
"""


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("sched")
    lines = (SAMPLES / "meps400-original.txt").read_text().splitlines(keepends=True)
    (d / "orig.txt").write_text("".join(lines[:120]))
    (d / "grid.toml").write_text(EXPERIMENT)
    r = _run(["hierarchy", "build", str(SAMPLES / "meps400-original.txt"), "--fanout", "5", "-o", str(d / "h.txt")])
    assert r.returncode == 0, r.stderr
    return {"dir": d}


def _commands(d: Path, out: Path | None = None) -> dict[str, list[str]]:
    """Every command that takes --scheduler, on a small input (argument lists without it), its
    outputs in ``out`` (default ``d``)."""
    s = str(SAMPLES)
    out = out or d
    return {
        "attack setgen": ["attack", "setgen", f"{s}/meps400-setgen.txt", "--original", f"{s}/meps400-original.txt",
                          "--method", "ra", "--json"],
        "attack disassoc": ["attack", "disassoc", f"{s}/disassociated.json", "--key", f"{s}/disassociated.key.json",
                            "--original", f"{s}/disassociated-original.txt", "--summary-only", "--json"],
        "assess": ["assess", f"{s}/disassociated.json", "--key", f"{s}/disassociated.key.json",
                   "--original", f"{s}/disassociated-original.txt", "--json"],
        "experiment": ["experiment", str(d / "grid.toml"), "-o", str(out / "results.jsonl")],
        "corpus count": ["corpus", "count", f"{s}/meps400-original.txt", "--transactions",
                         "--terms-of", f"{s}/meps400-original.txt", "-o", str(out / "counts.json")],
        "anonymize km": ["anonymize", "km", f"{s}/meps400-original.txt", "-k", "3", "-m", "1",
                         "--hierarchy", str(d / "h.txt"), "--algorithm", "lra", "--parts", "2", "-o", str(out / "km.txt")],
    }


def _run(args: list[str], *, env: dict | None = None, timeout: float = 180) -> subprocess.CompletedProcess:
    full = dict(os.environ, PYTHONPATH=str(REPO), **(env or {}))
    full.pop("SEMTUI_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "semtui", *args], capture_output=True, text=True,
                          timeout=timeout, env=full)


def test_a_local_cluster_starts_one_worker_a_core():
    """The engine caps local:N (the CLI's note is only words): cores + 1 asked, the cores started."""
    from semtui.runtime import cluster, scheduler

    told = []
    hook, cluster.capped_hook = cluster.capped_hook, lambda asked, got: told.append((asked, got))
    try:
        with cluster.session(OVER) as client:
            assert scheduler.n_workers(client) == available_cores()
    finally:
        cluster.capped_hook = hook
    assert told == [(available_cores() + 1, available_cores())]


@pytest.mark.slow
@pytest.mark.parametrize("command", ["attack setgen", "attack disassoc", "assess", "experiment", "corpus count",
                                     "anonymize km"])
def test_local_n_beyond_the_cores_is_capped_with_one_note(command, inputs, tmp_path):
    args = _commands(inputs["dir"], tmp_path)[command]
    r = _run([*args, "--scheduler", OVER], env={"SEMTUI_CACHE_DIR": str(tmp_path / "cache")})
    assert r.returncode == 0, r.stderr
    assert r.stderr.count("capped to") == 1 and NOTE in r.stderr.splitlines(), r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize(("address", "said"), [
    ("tcp://127.0.0.1:99999", "from 1 to 65535"),
    ("tcp://127.0.0.1:0", "from 1 to 65535"),
    ("tls://127.0.0.1:123456789012345678901234567890", "from 1 to 65535"),
    ("tcp://:8786", "expected local:N or tcp://HOST:PORT"),
    ("tcp://host:8786/path", "expected local:N or tcp://HOST:PORT"),
    ("tcp://no-such-host.invalid:8786", "unknown host"),
])
@pytest.mark.parametrize("command", ["attack setgen", "attack disassoc", "assess", "experiment", "corpus count",
                                     "anonymize km"])
def test_an_impossible_address_is_refused_at_once(command, address, said, semtui, inputs, tmp_path):
    t0 = time.monotonic()
    r = semtui(*_commands(inputs["dir"], tmp_path)[command], "--scheduler", address)
    took = time.monotonic() - t0
    assert r.rc == 2, r.err
    r.one_error_line("--scheduler", said)
    assert took < 10, f"{took:.1f} s to refuse {address}"


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("command", ["attack setgen", "assess", "corpus count"])
def test_an_address_where_nothing_listens_is_refused_at_once(command, semtui, inputs, tmp_path):
    address = f"tcp://127.0.0.1:{_free_port()}"
    t0 = time.monotonic()
    r = semtui(*_commands(inputs["dir"], tmp_path)[command], "--scheduler", address)
    took = time.monotonic() - t0
    assert r.rc == 2, r.err
    r.one_error_line("--scheduler", address, "connection refused")
    assert took < 10, f"{took:.1f} s to refuse {address}"


@pytest.mark.slow
@pytest.mark.parametrize("after", [1.0, 2.0, 3.5])
def test_a_run_stopped_by_timeout_leaves_nothing_behind(after, tmp_path, short_tmpdir):
    """``timeout`` sends SIGTERM to a run of local:1000 at a few points (starting the cluster,
    counting): one worker a core starts, the run ends at once (143, or 0 if it was done), and
    leaves no ``pymp-*`` or ``semtui-dask-*`` in $TMPDIR, nor a traceback (a worker's EOFError)."""
    tmp = short_tmpdir
    data = tmp_path / "meps4.txt"
    data.write_text((SAMPLES / "meps400-original.txt").read_text() * 4)
    env = dict(os.environ, PYTHONPATH=str(REPO), TMPDIR=str(tmp), SEMTUI_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("SEMTUI_DEBUG", None)
    t0 = time.monotonic()
    r = subprocess.run(["timeout", "-s", "TERM", str(after), sys.executable, "-m", "semtui", "corpus", "count",
                        str(data), "--transactions", "--terms-of", str(data), "-o", str(tmp_path / "c.json"),
                        "--partition", "100", "--scheduler", "local:1000"],
                       capture_output=True, text=True, timeout=120, env=env)
    took = time.monotonic() - t0
    assert r.returncode in (0, 124, 143), r.stderr
    assert "Traceback" not in r.stderr and "EOFError" not in r.stderr, r.stderr
    assert r.stderr.count("capped to") <= 1, r.stderr
    assert took < after + 15, f"{took:.1f} s"
    time.sleep(0.5)  # a helper killed on the way out is reaped by then
    assert sorted(p.name for p in tmp.iterdir()) == []


def test_the_note_is_the_words_of_jobs(capsys):
    """One wording for both caps (the user reads one rule)."""
    from semtui.cli.common import note_jobs
    from semtui.runtime import cluster

    note_jobs(available_cores() + 1)
    jobs_note = capsys.readouterr().err
    assert jobs_note == f"semtui: note: --jobs {available_cores() + 1} capped to {available_cores()}, the cores available\n"
    from semtui.cli.common import note_scheduler

    hook = cluster.capped_hook
    try:
        assert note_scheduler(OVER) == OVER
        cluster.capped_hook(available_cores() + 1, available_cores())
    finally:
        cluster.capped_hook = hook
    assert capsys.readouterr().err == NOTE + "\n"


def test_a_tmpdir_too_long_for_our_folder_falls_back_to_multiprocessings(short_tmpdir):
    """A TMPDIR whose path leaves no room for semtuimp-XXXXXXXX/listener-XXXXXXXX in a socket's 107
    bytes (but room for multiprocessing's own, 4 characters shorter) still runs worker processes:
    multiprocessing makes its folder (it was 'AF_UNIX path too long', exit 2)."""
    deep = short_tmpdir / ("d" * (73 - len(str(short_tmpdir)) - 1))
    deep.mkdir()
    assert len(str(deep)) == 73
    env = {"TMPDIR": str(deep)}
    r = run_cli("attack", "setgen", SAMPLES / "meps400-setgen.txt", "--method", "rba", "--jobs", "2", "--json",
                env=env)
    assert r.returncode == 0, r.stderr
