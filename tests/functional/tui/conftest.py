"""Helpers the TUI tests share (each was copied into several test files): what the screen reads,
the notifications, an app on a release, the end of a worker's run, an attack run from its form.

It also carries every helper of tests/conftest.py: conftest.py files outside a package are all
imported as ``conftest``, and from this one's import on ``from conftest import X`` reads this
module (in these tests and in any test module pytest imports after them)."""

from __future__ import annotations

import io
import sys
import types
from pathlib import Path

from _pytest.fixtures import getfixturemarker

_root = sys.modules.get("tests_conftest")  # tests/conftest.py, which registers itself by that name
if _root is None:
    # imported outside pytest's collection: a worker pool's fork server re-imports a test module
    # by name (its kernel's module), and that module's ``from conftest import X`` finds this file
    # first on the sys.path pytest built; without tests/conftest.py the server died on a KeyError
    # and every pool of the test process broke (BrokenProcessPool, 2026-11-28)
    import importlib.util

    _spec = importlib.util.spec_from_file_location("tests_conftest", Path(__file__).parents[2] / "conftest.py")
    _root = importlib.util.module_from_spec(_spec)
    sys.modules["tests_conftest"] = _root
    _spec.loader.exec_module(_root)
globals().update({name: value for name, value in vars(_root).items()
                  if not name.startswith("_") and name not in globals() and name != "annotations"
                  and not isinstance(value, types.ModuleType) and getfixturemarker(value) is None})
SAMPLES: Path = _root.SAMPLES
run_attack = _root.run_attack

import pytest  # noqa: E402

#: the longest a Pilot waits for the process to go idle (Textual's own: 1 s)
IDLE_WAIT = 0.1


@pytest.fixture(autouse=True)
def _keys_do_not_wait_for_a_busy_worker(monkeypatch):
    """Textual's Pilot waits, after every key and pause, until the *process* stops using CPU,
    for at most a second: while an attack runs in a worker thread it never does, and each key
    of a test cost a whole second (test_o_asks_while_an_attack_runs: 8 s of waiting). While a
    worker runs, the wait is capped: the screen has processed the key before it (Pilot waits for
    its message queues first), and the tests that need a worker's end say so (``settle``).
    With no worker running the wait is Textual's own (a screen still mounting, its focus set
    after a refresh, is what the CPU is busy with then)."""
    import textual.app
    import textual.pilot
    from textual._context import active_app
    from textual._wait import wait_for_idle
    from textual.worker import WorkerState

    async def shorter(min_sleep: float = 0.0, max_sleep: float = 1.0) -> None:
        app = active_app.get(None)
        busy = app is not None and any(w.state == WorkerState.RUNNING for w in app.workers)
        await wait_for_idle(min_sleep, min(max_sleep, IDLE_WAIT) if busy else max_sleep)

    monkeypatch.setattr(textual.app, "wait_for_idle", shorter)
    monkeypatch.setattr(textual.pilot, "wait_for_idle", shorter)


SETGEN = SAMPLES / "medical-setgen.txt"
ORIGINAL_FILE = SAMPLES / "medical-original.txt"


def render_text(renderable, width: int) -> str:
    """A Rich renderable as plain text ``width`` columns wide."""
    from rich.console import Console

    console = Console(file=io.StringIO(), width=width, color_system=None, record=True)
    console.print(renderable)
    return console.export_text()


def screen_text(app) -> str:
    """What a person would read on the terminal right now."""
    return render_text(app.screen._compositor.render_update(full=True), app.size.width)


def notices(app) -> str:
    """The notifications on screen, ``|``-separated."""
    return " | ".join(n.message for n in app._notifications)


def plain(cells) -> list[str]:
    """A row's cells as their plain text."""
    return [c.plain if hasattr(c, "plain") else str(c) for c in cells]


def rows(table) -> list[list[str]]:
    """Every row of a virtual table, as plain text."""
    return [plain(table._getter(i)) for i in range(table.row_count)]


async def footer_text(app, pilot, changed_from: str | None = None) -> str:
    """The footer's row as drawn, once it is composed (later under load) and, with
    ``changed_from``, once it differs from that."""
    for _ in range(40):
        await pilot.pause(0.05)
        footer = screen_text(app).rstrip("\n").splitlines()[-1]
        if footer.strip() and footer != changed_from:
            return footer
    raise AssertionError(f"no footer (or none other than {changed_from!r})")


def app_for(path, **kw):
    """The TUI on ``path`` (``load_session``'s keywords: original, key, report, …), no animation."""
    from semtui.tui.app import SemtuiApp
    from semtui.tui.session import load_session

    app = SemtuiApp(load_session(path, **kw))
    app.animation_level = "none"
    return app


def app_with(scores: Path, report: Path | None = None, original: bool = True):
    """The bundled setgen sample (with its original) whose attacks score by ``scores``."""
    from semtui.tui.app import SemtuiApp
    from semtui.tui.session import load_session

    session = load_session(SETGEN, original=ORIGINAL_FILE if original else None, report=report)
    app = SemtuiApp(session, attack_defaults={"measure": f"scores:{scores}"})
    app.animation_level = "none"
    return app


def report_file(tmp_path: Path, scores: Path, method: str) -> Path:
    """The sample's attack by ``method`` under ``scores``, written as its report."""
    from semtui.attacks.setgen import write_report
    from semtui.formats import read_transactions

    report = run_attack(read_transactions(SETGEN), read_transactions(ORIGINAL_FILE), method=method,
                        measure=f"scores:{scores}")
    path = tmp_path / f"{method}.json"
    write_report(report, path)
    return path


async def settle(pilot) -> None:
    """Every worker done and its results drawn."""
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.pause()


async def run_attack_from_form(pilot, method: str | None = None) -> None:
    """``a``, the method (when given), ``ctrl+s``; then the attack's end."""
    from semtui.tui.components.attack_form import AttackForm

    await pilot.press("a")
    form = pilot.app.screen
    assert isinstance(form, AttackForm)
    if method is not None:
        form.query_one("#method").value = method
    await pilot.press("ctrl+s")
    await settle(pilot)


async def open_compare(pilot, method: str = "gba"):
    """``method`` run from the form beside the result the app opened with, then ``c``: the
    compare screen, drawn."""
    from semtui.tui.screens.compare import CompareScreen

    await run_attack_from_form(pilot, method)
    await pilot.press("c")
    await pilot.pause()
    assert isinstance(pilot.app.screen, CompareScreen)
    return pilot.app.screen


async def run_from_form(pilot, key: str, **values) -> None:
    """A disassociated release's form (``key``: a re-association, p a cover check), its fields
    set to ``values``, run to its end."""
    from semtui.tui.components.disassoc_form import DisassocForm

    await pilot.press(key)
    form = pilot.app.screen
    assert isinstance(form, DisassocForm)
    for name, value in values.items():
        form.query_one(f"#{name}").value = value
    await pilot.press("ctrl+s")
    await settle(pilot)
