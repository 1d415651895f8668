"""Shared fixtures and helpers for unit/ (the engine) and functional/ (the CLI and the TUI as a user drives them): paths to the bundled samples and the shared real data, and a CLI runner."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

#: every semtui process the suite starts (about a thousand) reads compiled bytecode rather than
#: compiling semtui's sources again (~0.2 s each): an environment with PYTHONDONTWRITEBYTECODE
#: set (as some containers and CI images are) would otherwise never keep it. Set here, before
#: pytest-xdist starts its workers, so that they and every process they start inherit it.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False

REPO = Path(__file__).resolve().parents[1]
SAMPLES = REPO / "sample_data"
SHARED_DATA = REPO.parent / "shared" / "data"


#: the score cache of the CLI runs (kept warm across runs): one for each pytest-xdist worker, so
#: that two workers never write one SQLite file at once
TEST_CACHE = Path(os.environ.get("PYTEST_TMP_CACHE", "/tmp")) / "-".join(
    ["semtui-test-cache", *filter(None, [os.environ.get("PYTEST_XDIST_WORKER")])])


#: set (to anything) to start every CLI run as a fresh interpreter instead of forking it from a
#: warm one (tests/warm_cli.py)
COLD_ENV = "SEMTUI_TESTS_COLD"
_warm: list = []


def run_cli(*args: str, cwd: Path | None = None, env: dict | None = None, input: str | None = None,
            timeout: float = 120) -> subprocess.CompletedProcess:
    """Run ``python -m semtui ARGS`` as a real process and capture its output: a process forked
    from this worker's warm semtui (tests/warm_cli.py: the same run, without the interpreter's
    ~0.3 s start), or a fresh interpreter where the environment changes how one starts."""
    full_env = dict(os.environ)
    full_env.pop("SEMTUI_DEBUG", None)
    full_env.setdefault("SEMTUI_CACHE_DIR", str(TEST_CACHE))
    if env:
        full_env.update(env)
    if COLD_ENV not in os.environ:
        import warm_cli

        if not _warm:
            _warm.append(warm_cli.Warm())
        if _warm[0].can_fork(full_env):
            return _warm[0].run([str(a) for a in args], cwd=cwd, env=full_env, input=input, timeout=timeout)
    return subprocess.run(
        [sys.executable, "-m", "semtui", *map(str, args)],
        cwd=cwd, env=full_env, input=input, capture_output=True, text=True, timeout=timeout,
    )


def paused_at(point: str, marker: Path, env: dict | None = None) -> dict:
    """The environment (``env``, else this process's) of a semtui process that stops at its first
    progress point whose text ``LABEL DONE/TOTAL MESSAGE`` the regular expression ``point`` finds
    (e.g. ``"attack rba 1/11 attacking"``; the test hook of semtui/cli/common.py): there it makes
    the directory ``marker`` and waits while it exists."""
    return {**(os.environ if env is None else env), "SEMTUI_TEST_PAUSE": point, "SEMTUI_TEST_PAUSED": str(marker)}


def wait_paused(proc: subprocess.Popen, marker: Path, timeout: float = 60, meanwhile=None) -> None:
    """Wait until ``proc`` (started with :func:`paused_at`) waits at its point, so a signal sent
    now lands there; fail if it ends first. ``meanwhile()`` is called while waiting (e.g. to
    drain a terminal)."""
    deadline = time.monotonic() + timeout
    while not marker.is_dir():
        if proc.poll() is not None:
            err = proc.stderr.read() if proc.stderr is not None else ""
            raise AssertionError(f"the run ended (exit {proc.returncode}) before its pause point: {err!s}")
        assert time.monotonic() < deadline, f"no pause point reached in {timeout} s"
        if meanwhile is not None:
            meanwhile()
        time.sleep(0.01)


def drain(fd: int) -> None:
    """Read whatever the terminal ``fd`` (a pty's master) holds now, so that its writer (a
    progress bar) never blocks on a full terminal."""
    import select

    while select.select([fd], [], [], 0)[0]:
        try:
            if not os.read(fd, 1 << 16):
                return
        except OSError:  # the other end closed
            return


def finish_draining(proc: subprocess.Popen, fd: int, timeout: float = 60) -> int:
    """Wait for ``proc`` to end while draining its terminal ``fd``; its exit code."""
    deadline = time.monotonic() + timeout
    while proc.poll() is None and time.monotonic() < deadline:
        drain(fd)
        time.sleep(0.02)
    return proc.wait(timeout=1)


@pytest.fixture
def short_tmpdir():
    """An empty folder with a short path under /tmp, for a run's TMPDIR: a fork server's socket
    (TMPDIR/semtuimp-XXXXXXXX/listener-XXXXXXXX) must fit in 107 bytes, which pytest's tmp_path
    under pytest-xdist (.../popen-gwN/test_name0/) does not leave; removed afterwards."""
    import shutil
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="st-", dir="/tmp"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def cli():
    return run_cli


@dataclass
class Result:
    """What one CLI run gave: its exit code, stdout and stderr."""

    rc: int
    out: str
    err: str

    def one_error_line(self, *needles: str) -> None:
        """Exactly one line on stderr, holding every needle, and no traceback."""
        assert self.err.count("\n") == 1 and self.err.endswith("\n"), self.err
        assert "Traceback" not in self.err, self.err
        for n in needles:
            assert n in self.err, (n, self.err)


@pytest.fixture
def semtui(capsys, monkeypatch, tmp_path):
    """Run the CLI in this process (fast): ``semtui("info", path) -> Result``."""
    monkeypatch.setenv("SEMTUI_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("SEMTUI_DEBUG", raising=False)
    from semtui.cli.main import run

    def call(*args) -> Result:
        handlers = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
        capsys.readouterr()
        try:
            run([str(a) for a in args])
            rc = 0
        except SystemExit as exc:
            rc = exc.code if isinstance(exc.code, int) else 0
        finally:
            signal.signal(signal.SIGINT, handlers[0])
            signal.signal(signal.SIGTERM, handlers[1])
        got = capsys.readouterr()
        return Result(rc, got.out, got.err)

    return call


@pytest.fixture
def samples() -> Path:
    return SAMPLES


@pytest.fixture
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data is not present")
    return SHARED_DATA


def write_head(source: Path, n: int, path: Path) -> Path:
    """The first ``n`` lines of ``source`` (a slice of a real dataset), written to ``path``."""
    with open(source) as f:
        path.write_text("".join(line for _, line in zip(range(n), f)))
    return path


# The papers' running example: Fig. 4's distances, and the bundled sample's contexts.
FIG4_COLUMNS = ["blood pressure", "icd", "limbs", "injury"]
FIG4 = [[0.56, 0.78, 1.57, 2.19], [1.75, 0.58, 1.74, 1.53], [2.60, 2.93, 1.78, 1.49], [1.60, 1.51, 1.89, 1.03]]
SAMPLE_CONTEXTS = [["heart disease", "weakness", "dizziness"], ["anesthesia", "pain", "diabetes"], ["gangrene"], ["knee"]]


def write_fig4_scores(path: Path) -> Path:
    """A ``scores:`` file in which every context item of the sample's row i scores Fig. 4's
    row i, so the sample's distance table (mean over its context) is exactly Fig. 4."""
    lines = ["a,b,distance"]
    for i, ctx in enumerate(SAMPLE_CONTEXTS):
        for c in ctx:
            lines += [f"{m},{c},{FIG4[i][j]}" for j, m in enumerate(FIG4_COLUMNS)]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def fig4_scores(tmp_path) -> Path:
    return write_fig4_scores(tmp_path / "fig4.csv")



def run_attack(data, original=None, *, measure="embedding", progress=None, original_path=None, data_path=None,
               **options) -> dict:
    """The set-generalisation attack as the faces run it, its report as the JSON document.
    ``measure`` is a spec or an opened measure."""
    from semtui.attacks.setgen import AttackOptions, run_setgen_attack
    from semtui.measures.base import Measure

    opened = measure if isinstance(measure, Measure) else None
    opts = AttackOptions(measure=measure if opened is None else "embedding", **options)
    report = run_setgen_attack(data, original, opts, measure=opened, progress=progress,
                               original_path=original_path, data_path=data_path)
    return report.to_json()


# conftest.py files outside a package are all imported as the module "conftest", and pytest drops
# each from sys.modules before importing the next: once tests/functional/tui/conftest.py is
# imported, `from conftest import X` in a test module imported later reads that one. It re-exports
# every helper of this module from this second name, so either way X is the same object.
sys.modules["tests_conftest"] = sys.modules[__name__]
