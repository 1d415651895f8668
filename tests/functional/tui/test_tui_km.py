"""The TUI on k^m releases (issue 23, findings 1 and 2): the release's k comes from its
sidecar (the km report), a release where every transaction is the root opens with its
original, and no unexpected exception ever shows a traceback: one line, exit 3."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from textual.screen import Screen

from semtui import formats
from semtui.metrics.elimination import group_densities
from semtui.model.belongs import check_belongs
from semtui.tui.app import SemtuiApp
from semtui.tui.session import load_session


@pytest.fixture
def meps_root(tmp_path, shared_data, cli):
    """400 MEPS patients, a balanced fanout-5 hierarchy from ``hierarchy build``, and the k^m
    release where k is every transaction: each one is generalised to the root."""
    lines = (shared_data / "meps2005-conditions.txt").read_text(encoding="utf-8").splitlines()[:400]
    orig = tmp_path / "meps400.txt"
    orig.write_text("\n".join(lines) + "\n", encoding="utf-8")
    h = tmp_path / "h.txt"
    assert cli("hierarchy", "build", orig, "--fanout", "5", "-o", h).returncode == 0
    out = tmp_path / "root.txt"
    r = cli("anonymize", "km", orig, "--hierarchy", h, "-k", "400", "-m", "2", "-o", out)
    assert r.returncode == 0, r.stderr
    return orig, out


@pytest.mark.slow
def test_all_root_release_aligns_with_its_original(meps_root):
    """The crash: no plain token at all (every transaction is the root)."""
    orig, out = meps_root
    data, original = formats.read(out), formats.read_transactions(orig)
    assert data.n_generalised == 1 and (data.tokens < 0).all() and data.gen_labels == ["*"]
    check_belongs(data, original=original)
    dens = group_densities(data, original)
    assert dens.shape == (1,) and 0 < dens[0] <= 1
    assert dens[0] == pytest.approx(original.lengths.sum() / (data.group_sizes()[0] * len(data.members(0))))


@pytest.mark.slow
async def test_all_root_release_opens_with_its_original(meps_root):
    orig, out = meps_root
    session = load_session(out, original=orig)
    assert session.k_for_exposure() == (400, "sidecar")  # from the km report, not the group's size
    app = SemtuiApp(session)
    app.animation_level = "none"
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.internal_error is None
        assert app.screen.list_pane.row_count == 1
        assert session.display_label(0).startswith("{*} (")  # the node first, then its members
        # titled as what it is: a k^m release (its sidecar says so), not a set-generalised one
        assert app.screen.sub_title == "k^m-generalised (k=400, m=2)"


@pytest.mark.slow
async def test_km_report_given_as_report_gives_k(meps_root, tmp_path):
    _, out = meps_root
    moved = tmp_path / "elsewhere.json"
    moved.write_text((tmp_path / "root.txt.json").read_text())
    (tmp_path / "root.txt.json").unlink()
    assert load_session(out).k_for_exposure()[1] == "smallest group size"
    session = load_session(out, report=moved)
    assert session.k_for_exposure() == (400, "sidecar") and session.results == []


class _Broken(Screen):
    """A screen with a bug: what any unexpected exception looks like to the app."""

    def on_mount(self) -> None:
        raise RuntimeError("a bug")


async def test_an_unexpected_exception_exits_3_without_a_traceback(meps_root):
    _, out = meps_root
    app = SemtuiApp(load_session(out))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.push_screen(_Broken())
        for _ in range(100):  # the app exits by itself: no pilot.pause(), which waits for the screen
            if app.internal_error is not None:
                break
            await asyncio.sleep(0.02)
    assert isinstance(app.internal_error, RuntimeError) and app.return_code == 3
    assert not app._exit_renderables  # no traceback is printed on the way out


@pytest.mark.slow
def test_open_says_one_line_and_exits_3(meps_root):
    """``semtui open`` as a process (headless driver) whose main screen has a bug (injected)."""
    _, out = meps_root
    script = textwrap.dedent(f"""
        import os
        os.environ["TEXTUAL_DRIVER"] = "textual.drivers.headless_driver:HeadlessDriver"
        os.environ.pop("SEMTUI_DEBUG", None)
        from textual.screen import Screen
        from semtui.tui import app

        class Broken(Screen):
            def on_mount(self):
                raise RuntimeError("a bug")

        app.SemtuiApp._main = lambda self, session: Broken()
        from semtui.cli.main import run
        run(["open", {str(out)!r}])
    """)
    import os
    import pty

    master, slave = pty.openpty()  # open wants a terminal
    try:
        r = subprocess.run([sys.executable, "-c", script], stdin=slave, stdout=slave, stderr=subprocess.PIPE,
                           text=True, timeout=120)
    finally:
        os.close(slave)
        os.close(master)
    assert r.returncode == 3, r.stderr
    assert r.stderr.count("\n") == 1 and "internal error" in r.stderr and "RuntimeError: a bug" in r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.slow
def test_node_and_leaf_releases_read_the_same(meps_root, cli, tmp_path):
    orig, out = meps_root
    leaves = tmp_path / "leaves.txt"
    assert cli("anonymize", "km", orig, "--hierarchy", tmp_path / "h.txt", "-k", "400", "-m", "2", "-o", leaves,
               "--release-format", "leaves").returncode == 0
    a, b = formats.read(out), formats.read(leaves)
    assert np.array_equal(a.lengths, b.lengths)
    assert sorted(a.member_names(0)) == sorted(b.member_names(0))
