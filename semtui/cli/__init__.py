"""The headless face: Typer commands over the engine.

stdout carries data only; progress, warnings and errors go to stderr.  Exit codes are in
:mod:`semtui.cli.exitcodes` (docs/cli.md).  Heavy modules (numpy-heavy engines, rich
tables, textual) are imported inside the commands that use them, so ``semtui --help``
starts fast.  A signal during start-up is handled in ``semtui/__init__.py``; from
``run()`` on, in :mod:`semtui.cli.main`.
"""
