"""The headless face: Typer commands over the engine.

stdout carries data only; progress, warnings and errors go to stderr.  Exit codes are in
:mod:`semtui.cli.exitcodes` (docs/cli.md).  Heavy modules (numpy-heavy engines, rich
tables, textual) are imported inside the commands that use them, so ``semtui --help``
starts fast.
"""

import os as _os
import signal as _signal
import sys as _sys


def _started_as_semtui() -> bool:
    argv0 = _os.path.basename(_sys.argv[0]) if _sys.argv and _sys.argv[0] else ""
    return argv0 == "semtui" or _sys.argv[0].endswith(_os.path.join("semtui", "__main__.py"))


def _during_start_up(signum, frame):  # pragma: no cover - exercised by tests/test_faults.py
    """A signal while the command tree is still being imported: nothing to clean up yet."""
    term = signum == _signal.SIGTERM
    _os.write(2, b"semtui: terminated\n" if term else b"semtui: interrupted\n")
    _os._exit(143 if term else 130)


if _started_as_semtui():  # not when a test or the TUI imports a module of the CLI
    _signal.signal(_signal.SIGINT, _during_start_up)
    _signal.signal(_signal.SIGTERM, _during_start_up)
