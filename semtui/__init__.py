"""semtui: measure how much of an anonymised transaction dataset a semantic attacker takes back.

The package has one engine and two faces.  Everything except ``semtui.cli`` and
``semtui.tui`` is the engine: it never imports textual or rich, takes plain
arguments, returns plain objects and reports progress through a callback.
"""

__version__ = "0.1.0"


def _quiet_start_up() -> None:
    """Run as the ``semtui`` command, a signal during start-up (before the CLI installs its
    own handlers) ends the process with one line instead of an import traceback."""
    import os
    import signal
    import sys

    argv0 = sys.argv[0] if sys.argv else ""
    # the console script, or ``python -m semtui`` (argv[0] is "-m" while the package loads)
    if os.path.basename(argv0) != "semtui" and argv0 != "-m":
        return

    def early(signum, frame):  # pragma: no cover - exercised by tests/test_faults.py
        term = signum == signal.SIGTERM
        os.write(2, b"semtui: terminated\n" if term else b"semtui: interrupted\n")
        os._exit(143 if term else 130)

    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, early)
        signal.signal(signal.SIGTERM, early)


_quiet_start_up()
