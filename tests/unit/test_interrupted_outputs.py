"""An interrupt that arrives as an output's temporary file is being made leaves no file behind
(the temporary file is made with SIGINT and SIGTERM held, inside the block that removes it), and
a FIFO output waiting for its reader is never made to hold them (Ctrl-C still ends the wait).

The suite's test of every command signalled at random moments (tests/functional/cli/
test_outputs.py) once left ``.x.out.*.tmp`` behind ``corpus build``: the signal came between the
file's creation and the block that removes it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from semtui.fileio import writing


@pytest.fixture
def interrupted_as_made(monkeypatch):
    """SIGINT raised in this process the moment a temporary file has been made, with Python's
    own handler (KeyboardInterrupt) whatever an earlier test in this process left there: a test
    worker that had run a TUI test had SIGINT's default action, which ended the worker."""
    real = writing.tempfile.mkstemp

    def mkstemp(*args, **kwargs):
        made = real(*args, **kwargs)
        signal.raise_signal(signal.SIGINT)
        return made

    monkeypatch.setattr(writing.tempfile, "mkstemp", mkstemp)
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


@pytest.mark.parametrize("writer", ["atomic_writer", "output_path", "writing_together"])
def test_an_interrupt_as_the_temporary_file_is_made_leaves_nothing(tmp_path, interrupted_as_made, writer):
    target = tmp_path / "out.txt"
    target.write_text("old\n")
    with pytest.raises(KeyboardInterrupt):
        if writer == "atomic_writer":
            with writing.atomic_writer(target) as fh:
                fh.write("new\n")
        elif writer == "output_path":
            with writing.output_path(target) as tmp, open(tmp, "w") as fh:
                fh.write("new\n")
        else:
            with writing.writing_together([target]) as (fh,):
                fh.write("new\n")
    assert sorted(os.listdir(tmp_path)) == ["out.txt"] and target.read_text() == "old\n"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_ctrl_c_ends_the_wait_for_a_fifos_reader(tmp_path):
    """A FIFO output is opened as it is (no temporary file): waiting there for a reader, the
    process still ends at SIGINT."""
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    code = textwrap.dedent(f"""
        import sys
        from semtui.fileio import writing
        print("waiting", flush=True)
        with writing.atomic_writer({str(fifo)!r}) as fh:
            fh.write("x")
    """)
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "waiting"
    time.sleep(0.3)   # in open(), waiting for a reader
    p.send_signal(signal.SIGINT)
    try:
        _, err = p.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        pytest.fail("SIGINT did not end the wait for the FIFO's reader")
    assert p.returncode != 0 and "KeyboardInterrupt" in err
