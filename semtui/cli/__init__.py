"""The headless face: Typer commands over the engine.

stdout carries data only; progress, warnings and errors go to stderr.  Exit codes:
0 ok, 1 a check found something, 2 usage or input error, 130 interrupted.
Heavy modules (numpy-heavy engines, rich tables, textual) are imported inside the
commands that use them, so ``semtui --help`` starts fast.
"""
