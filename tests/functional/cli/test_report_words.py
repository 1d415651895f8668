"""Issue 19, class 6: reports that mislead.  Each figure says what it is: an unmeasurable WMD is
not 0, RA uses no measure, a cover problem names what covers its covered item, the quick
start's summary says in words what came back, and a progress bar never shows ``/None``."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys

import pytest
from conftest import REPO, SAMPLES


def test_the_quick_start_summary_says_in_words_what_came_back(cli):
    r = cli("attack", "setgen", SAMPLES / "medical-setgen.txt", "--original", SAMPLES / "medical-original.txt")
    assert r.returncode == 0, r.stderr
    first = r.stdout.splitlines()[0]
    doc = json.loads(cli("attack", "setgen", SAMPLES / "medical-setgen.txt", "--original",
                         SAMPLES / "medical-original.txt", "--json").stdout)["metrics"]
    assert (doc["correct"], doc["added"]) == (8, 10)
    assert first.startswith("The attack took back 8 of the 10 items generalisation added (precision 0.727")
    # without the original there is nothing to say about what came back
    r = cli("attack", "setgen", SAMPLES / "medical-setgen.txt")
    assert "took back" not in r.stdout


def _stderr_on_a_terminal(*args: str) -> tuple[int, bytes]:
    """Run semtui with stderr on a pseudo-terminal (so the progress bar is drawn); every byte."""
    import pty

    master, slave = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(REPO), "COLUMNS": "120"}
    env.pop("SEMTUI_DEBUG", None)
    p = subprocess.Popen([sys.executable, "-m", "semtui", *args], stdout=subprocess.DEVNULL, stderr=slave, env=env,
                         cwd=REPO)
    os.close(slave)
    buf = b""
    while True:
        ready, _, _ = select.select([master], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        buf += chunk
    os.close(master)
    return p.wait(timeout=60), buf


@pytest.mark.parametrize("args", [
    ("check", "km", str(SAMPLES / "meps400-original.txt"), "-k", "2", "-m", "3"),
    ("cover", str(SAMPLES / "disassociated.json")),
])
def test_a_progress_bar_never_shows_a_total_of_none(args):
    rc, frames = _stderr_on_a_terminal(*args)
    assert rc in (0, 1)
    assert b"\x1b[" in frames, "no progress bar was drawn"
    assert b"None" not in frames, frames[-400:]
