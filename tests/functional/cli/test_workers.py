"""Workers die with semtui (issue 19, class 2): every command with ``--jobs`` is run as a real
process on data big enough to be mid-run, stopped while its workers run — Ctrl-C (SIGINT to
the process group, as a terminal sends it), SIGTERM to semtui alone, SIGKILL to semtui alone —
and then no process it started may survive, and a reader of its standard output gets
end-of-file.  Also: ``--jobs 1000`` says in one line that it runs on the cores."""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import click
import pytest
from conftest import REPO, SAMPLES, SHARED_DATA, write_fig4_scores, write_head
from procs import descendants, wait_gone, workers

#: ../shared/data beside the repository, or SEMTUI_SHARED_DATA (e.g. from a git worktree)
DATA = Path(os.environ.get("SEMTUI_SHARED_DATA", SHARED_DATA))

#: every command that takes --jobs, and how to run it here for long enough
COMMANDS = ("attack setgen", "attack disassoc", "assess", "anonymize km --algorithm lra", "anonymize km --algorithm vpa",
            "experiment run")
STOPS = {  # signal, sent to the group?, exit code, the line semtui prints
    "SIGINT": (signal.SIGINT, True, 130, "semtui: interrupted"),
    "SIGTERM": (signal.SIGTERM, False, 143, "semtui: terminated"),
    "SIGKILL": (signal.SIGKILL, False, -signal.SIGKILL, ""),
}


def _commands_with_jobs() -> set[str]:
    from semtui.cli.main import whole_command

    found = set()

    def walk(cmd: click.Command, path: str) -> None:
        if any("--jobs" in getattr(p, "opts", ()) for p in cmd.params):
            found.add(path)
        for name, sub in getattr(cmd, "commands", {}).items():
            walk(sub, f"{path} {name}".strip())

    walk(whole_command(), "")
    return found


def test_every_command_with_jobs_is_walked_here():
    assert _commands_with_jobs() == {c.split(" --")[0] for c in COMMANDS}


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> dict[str, Path]:
    """A set-generalised release (the MEPS sample ten times over), the whole of MEPS
    disassociated, and 20,000 BMS-WebView-2 transactions with their hierarchy."""
    if not DATA.is_dir():
        pytest.skip("../shared/data is not present (SEMTUI_SHARED_DATA names it elsewhere)")
    from semtui.anonymize.disassociation import disassociate
    from semtui.formats import read_transactions
    from semtui.formats.disassociated import write_disassociated

    tmp = tmp_path_factory.mktemp("workers")
    paths = {"setgen": tmp / "setgen.txt", "disassoc": tmp / "meps.json", "bms": tmp / "bms.dat",
             "hierarchy": DATA / "bms-webview-2.hierarchy.txt", "out": tmp / "out.txt"}
    paths["setgen"].write_text((SAMPLES / "meps400-setgen.txt").read_text() * 10)
    write_disassociated(disassociate(read_transactions(DATA / "meps2005-conditions.txt"), 3, 2, 30).data,
                        paths["disassoc"])
    write_head(DATA / "bms-webview-2.dat", 20_000, paths["bms"])
    # one cell: the whole of MEPS disassociated, then the assessment's attacks (in --jobs workers)
    paths["spec"] = tmp / "grid.toml"
    paths["spec"].write_text(f'original = "{DATA / "meps2005-conditions.txt"}"\n[[release]]\nfamily = "disassoc"\n'
                             'k = 3\nm = 2\nmax_cluster_size = 30\n')
    return paths


_RUNS = itertools.count()


def _args(command: str, d: dict[str, Path], jobs: str = "2") -> list[str]:
    if command == "attack setgen":
        return ["attack", "setgen", str(d["setgen"]), "--jobs", jobs, "--json"]
    if command == "attack disassoc":
        return ["attack", "disassoc", str(d["disassoc"]), "--method", "aba", "--jobs", jobs, "--json"]
    if command == "assess":  # its first attack is the re-association above
        return ["assess", str(d["disassoc"]), "--jobs", jobs, "--json"]
    if command == "experiment run":  # each run its own RESULTS (three run side by side)
        return ["experiment", "run", str(d["spec"]), "-o", str(d["out"]) + f".{next(_RUNS)}.jsonl", "--jobs", jobs]
    algorithm = command.split()[-1]
    return ["anonymize", "km", str(d["bms"]), "--hierarchy", str(d["hierarchy"]), "-k", "5", "-m", "2",
            "--algorithm", algorithm, "--jobs", jobs, "-o", str(d["out"]) + algorithm, "--json"]


def _start(args: list[str], tmp_path: Path):
    env = dict(os.environ, SEMTUI_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=str(REPO))
    env.pop("SEMTUI_DEBUG", None)
    err = open(tmp_path / "stderr", "w+")
    proc = subprocess.Popen([sys.executable, "-m", "semtui", *args], stdout=subprocess.PIPE, stderr=err,
                            env=env, start_new_session=True)
    eof = threading.Event()

    def drain() -> None:  # a reader of stdout, as `semtui … | jq` would be
        while proc.stdout.read(1 << 16):
            pass
        eof.set()

    threading.Thread(target=drain, daemon=True).start()
    return proc, err, eof


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.slow
def test_workers_die_with_semtui(command, data, tmp_path):
    """The three stops of one command run side by side (the test's time is mostly start-up):
    once all three have both workers at work, each gets its signal."""
    runs = {}
    try:
        for stop in STOPS:
            (tmp_path / stop).mkdir()
            runs[stop] = _start(_args(command, data), tmp_path / stop)
        deadline = time.monotonic() + 90
        while not all(len(workers(proc.pid)) >= 2 for proc, _, _ in runs.values()):  # mid-run
            for proc, _, _ in runs.values():
                assert proc.poll() is None, f"{command} ended (exit {proc.returncode}) before its workers were seen"
            assert time.monotonic() < deadline, f"{command}: no workers after 90 s"
            time.sleep(0.02)
        started = {stop: descendants(proc.pid) for stop, (proc, _, _) in runs.items()}  # workers, fork server, tracker
        for stop, (proc, _, _) in runs.items():
            sig, to_group, _, _ = STOPS[stop]
            (os.killpg if to_group else os.kill)(proc.pid, sig)
        for stop, (proc, err, eof) in runs.items():
            _, _, code, line = STOPS[stop]
            assert proc.wait(timeout=30) == code, f"{command}, {stop}"
            assert eof.wait(5), f"{command}: a reader of stdout got no end-of-file after {stop}"
            left = wait_gone(started[stop], 5)
            assert left == [], f"{command}: {len(left)} of {len(started[stop])} processes survived {stop}"
            err.seek(0)
            assert err.read().strip() == line, f"{command}, {stop}"
    finally:
        for proc, err, _ in runs.values():
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
            err.close()


@pytest.mark.parametrize("command", ["attack setgen", "attack disassoc", "anonymize km --algorithm lra"])
def test_jobs_beyond_the_cores_are_capped_with_one_line(command, tmp_path, capsys, monkeypatch):
    """Each command with --jobs, on a small input, in this process: one note, the run as usual."""
    from semtui.cli.main import run
    from semtui.runtime.executor import available_cores

    monkeypatch.setenv("SEMTUI_CACHE_DIR", str(tmp_path / "cache"))
    scores = write_fig4_scores(tmp_path / "fig4.csv")
    if command == "attack setgen":
        args = ["attack", "setgen", SAMPLES / "medical-setgen.txt", "--measure", f"scores:{scores}"]
    elif command == "attack disassoc":
        args = ["attack", "disassoc", SAMPLES / "disassociated.json", "--method", "ra"]
    else:
        hierarchy = tmp_path / "h.txt"
        with contextlib.suppress(SystemExit):
            run(["hierarchy", "build", str(SAMPLES / "medical-original.txt"), "--fanout", "3", "-o", str(hierarchy)])
        args = ["anonymize", "km", SAMPLES / "medical-original.txt", "--hierarchy", hierarchy, "-k", "2", "-m", "1",
                "--algorithm", "lra", "--parts", "1", "-o", tmp_path / "km.txt"]
    handlers = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    capsys.readouterr()
    try:
        run([str(a) for a in [*args, "--jobs", "1000"]])
        rc = 0
    except SystemExit as exc:
        rc = exc.code
    finally:
        signal.signal(signal.SIGINT, handlers[0])
        signal.signal(signal.SIGTERM, handlers[1])
    err = capsys.readouterr().err
    assert rc == 0, err
    note = f"semtui: note: --jobs 1000 capped to {available_cores()}, the cores available"
    assert err.splitlines().count(note) == 1, err
