"""A release's key and original read after the first paint (issue 39 item 3): a disassociated
release's, and a set-generalised release's original.

``semtui open`` in a terminal paints the release first and reads its key and original in a
thread (:class:`semtui.tui.session.Companions`): the first screen must never wait for them, and
a companion that does not belong must still end the command with one line and exit 2."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time

import pytest
from conftest import SAMPLES

from semtui.errors import InputError
from semtui.tui.app import SemtuiApp
from semtui.tui.session import Companions, load_session

DATA = SAMPLES / "disassociated.json"
KEY = SAMPLES / "disassociated.key.json"
ORIGINAL = SAMPLES / "disassociated-original.txt"


def _held(session) -> tuple[threading.Event, list[str]]:
    """Hold the session's companions until the returned event is set; the list gets the name of
    the thread that read them."""
    companions = session.companions
    assert companions is not None
    load, go, where = companions._load, threading.Event(), []

    def held():
        where.append(threading.current_thread().name)
        assert go.wait(20), "the companions were read where the first paint waits for them"
        return load()

    companions._load = held
    return go, where


async def test_the_first_screen_is_up_before_the_key_and_original_are_read():
    session, go, where, app = _painted_and_held()
    assert session.opened.key is None and session.reading == ("key", "original")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        # painted: the clusters listed, and the title says what is still being read
        assert screen.list_pane.row_count > 0
        assert "reading key + original" in screen.sub_title
        assert screen.detail.cluster_index.keys is None
        go.set()
        for _ in range(200):
            if session.companions is None:
                break
            await pilot.pause(0.05)
        await pilot.pause()
        assert session.companions is None
        assert screen.sub_title == "disassociated + key + original"
        assert screen.detail.cluster_index.keys is not None
        assert session.key is not None and session.original is not None
    assert where == ["semtui-companions"]


def test_companions_needed_before_they_were_started_are_read_where_needed():
    session = load_session(DATA, key=KEY, original=ORIGINAL, defer=True)
    assert session.key is not None  # read here, in this thread, and checked
    assert session.companions is None and session.release.checked == ("original", "key")


def test_a_companion_that_does_not_belong_is_raised_where_it_is_needed(tmp_path):
    other = tmp_path / "other.txt"
    other.write_text("a b\nc d\n")
    session = load_session(DATA, key=KEY, original=other, defer=True)  # only found readable here
    with pytest.raises(InputError) as err:
        _ = session.original
    assert str(other) in str(err.value)
    assert isinstance(session.companions, Companions) and session.companions.error is err.value


def test_a_missing_companion_is_refused_before_the_tui_starts(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        load_session(DATA, key=tmp_path / "missing.json", original=ORIGINAL, defer=True)


def _open_in_a_terminal(*args) -> subprocess.CompletedProcess:
    import pty

    master, slave = pty.openpty()  # open wants a terminal
    try:
        return subprocess.run([sys.executable, "-m", "semtui", "open", *map(str, args)], stdin=slave, stdout=slave,
                              stderr=subprocess.PIPE, text=True, timeout=120,
                              env={**os.environ, "TERM": "xterm-256color"})
    finally:
        os.close(slave)
        os.close(master)


def test_open_with_an_original_that_does_not_belong_ends_in_one_line_exit_2(tmp_path):
    """In a terminal the original is read after the first paint: it still ends the command as
    bad input does everywhere (one line naming the file, exit 2, no traceback)."""
    other = tmp_path / "other.txt"
    other.write_text("a b\nc d\n")
    started = time.monotonic()
    r = _open_in_a_terminal(DATA, "--key", KEY, "--original", other)
    assert r.returncode == 2, r.stderr
    # the TUI draws on stderr's terminal until it closes; what follows is the one line
    after = re.split(r"\x1b\[[0-9;?<>=$]*[A-Za-z~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)", r.stderr)[-1]
    assert after.count("\n") == 1 and str(other) in after and "does not belong" in after, repr(after)
    assert "Traceback" not in r.stderr
    assert time.monotonic() - started < 60


def _run_until_bad_input(app: SemtuiApp, error: str = "input_error") -> SemtuiApp:
    """Run ``app`` until its companions end it with ``error`` (at most 10 s)."""
    import asyncio

    async def run():
        async with app.run_test(size=(80, 24)) as pilot:
            for _ in range(200):
                if getattr(app, error) is not None:
                    break
                await pilot.pause(0.05)

    asyncio.run(run())
    return app


def test_the_app_exits_with_bad_input_when_the_companions_fail(tmp_path):
    """The app's side of it, in process: the companions' error ends the app with exit 2 and
    ``run_session`` raises it (the CLI words it)."""
    other = tmp_path / "other.txt"
    other.write_text("a b\nc d\n")
    session = load_session(DATA, key=KEY, original=other, defer=True)
    assert session.companions is not None
    app = _run_until_bad_input(SemtuiApp(session))
    assert isinstance(app.input_error, InputError)
    assert app.return_code == SemtuiApp.BAD_INPUT


def _painted_and_held(release=DATA, **given):
    """A session of ``release`` opened as ``semtui open`` does, its companions (the disassociated
    sample's key and original by default) held until ``go`` is set; ``where``: the thread that read them."""
    session = load_session(release, **(given or {"key": KEY, "original": ORIGINAL}), defer=True)
    go, where = _held(session)
    app = SemtuiApp(session)
    app.animation_level = "none"
    return session, go, where, app


async def test_companions_needed_by_a_key_pressed_early_still_reach_the_screen():
    """Whatever needs the key first (a key pressed while they are read) takes them; the screen
    still hears of it: its title and its views show them (it stayed 'reading…' for good)."""
    session, go, _, app = _painted_and_held()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert "reading key" in screen.sub_title
        threading.Timer(0.3, go.set).start()
        assert session.key is not None  # waits for them, here, as a key's action would
        for _ in range(100):
            await pilot.pause(0.05)
            if "reading" not in screen.sub_title:
                break
        assert screen.sub_title == "disassociated + key + original"
        assert screen.detail.cluster_index.keys is not None


async def test_an_assessment_asked_for_early_is_scored():
    """``A`` pressed while the key and the original are read waits for them: scored, as
    ``semtui assess`` with both is (it ran unscored, saying they were not given)."""
    _session, go, _, app = _painted_and_held()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        threading.Timer(0.3, go.set).start()
        inputs = app.screen.assess_inputs()
        assert inputs.original == str(ORIGINAL) and inputs.key == str(KEY)


def test_an_unreadable_companion_ends_the_app_as_bad_input():
    """Any error reading them (not only a companion that does not belong) ends the app with it:
    it was lost in the reading thread, the title saying 'reading…' for good."""
    session = load_session(DATA, key=KEY, original=ORIGINAL, defer=True)

    def unreadable():
        raise OSError(5, "Input/output error", str(ORIGINAL))

    session.companions._load = unreadable
    app = _run_until_bad_input(SemtuiApp(session))
    assert isinstance(app.input_error, OSError)
    assert app.return_code == SemtuiApp.BAD_INPUT


SETGEN = SAMPLES / "meps400-setgen.txt"
SETGEN_ORIGINAL = SAMPLES / "meps400-original.txt"


async def test_a_set_generalised_release_is_listed_before_its_original_is_read():
    """Its groups are listed at once; their density in the original joins the list once the
    original is in (the cursor where it was), and the title stops saying it is being read."""
    from semtui.metrics.elimination import group_densities

    session, go, where, app = _painted_and_held(SETGEN, original=SETGEN_ORIGINAL)
    assert session.opened.original is None and session.reading == ("original",)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        pane = screen.list_pane
        assert pane.row_count > 0 and "reading original" in screen.sub_title
        assert "density" not in [c.key for c in pane.columns]   # not waited for
        # the path is shown at once (the attack form's): the original itself is not waited for
        assert session.original_path == SETGEN_ORIGINAL and session.reading == ("original",)
        await pilot.press("down", "down", "right", "right_square_bracket")   # sorted by size, descending
        at = pane.current
        assert [c.key for c in pane.columns][pane.cursor_col] == "size" and pane.sort_marks == {1: " ▼"}
        go.set()
        for _ in range(200):
            if session.companions is None and "reading" not in screen.sub_title:
                break
            await pilot.pause(0.05)
        await pilot.pause()
        assert screen.sub_title == session.title_kind
        assert [c.key for c in pane.columns][:3] == ["item", "size", "density"]
        # the same group under the cursor, the cursor and the sort still on size
        assert pane.current == at
        assert [c.key for c in pane.columns][pane.cursor_col] == "size" and pane.sort_marks == {1: " ▼"}
        want = group_densities(session.data, session.original)
        assert list(pane.source.densities) == list(want)
    assert where == ["semtui-companions"]


def test_a_set_generalised_release_opened_whole_has_its_densities_at_once():
    """Without ``defer`` (a report given, the tests, a pipe) the original is read before the
    screen, and the list has its densities from the start, as before."""
    from semtui.tui.components.lists import GroupsSource

    session = load_session(SETGEN, original=SETGEN_ORIGINAL)
    assert session.companions is None
    assert GroupsSource(session).densities is not None


def test_what_goes_wrong_in_showing_the_companions_ends_the_app(monkeypatch):
    """Showing them runs on the app's loop: an error there ends the app as any internal error
    does (it was lost in the reading thread, the title saying 'reading…' for good)."""
    import semtui.metrics.elimination as elimination

    def broken(*_a, **_k):
        raise ValueError("broken")

    monkeypatch.setattr(elimination, "group_densities", broken)
    app = _run_until_bad_input(SemtuiApp(load_session(SETGEN, original=SETGEN_ORIGINAL, defer=True)),
                               "internal_error")
    assert isinstance(app.internal_error, ValueError)
    assert app.return_code == SemtuiApp.INTERNAL_ERROR
