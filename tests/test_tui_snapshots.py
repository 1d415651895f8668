"""SVG snapshots of the TUI at 80x24, animations and cursor blink off (one class per feature).

Update them after a deliberate change with ``pytest tests/test_tui_snapshots.py --snapshot-update``
and look at the SVGs before committing.
"""

from __future__ import annotations

from conftest import SAMPLES

from semtui.tui.app import SemtuiApp
from semtui.tui.session import load_session

SIZE = (80, 24)


def app_for(path, **kw) -> SemtuiApp:
    app = SemtuiApp(load_session(path, **kw))
    app.animation_level = "none"
    return app


class TestPhaseOneScreens:
    def test_setgen_sample(self, snap_compare):
        assert snap_compare(app_for(SAMPLES / "medical-setgen.txt"), terminal_size=SIZE)

    def test_setgen_detail_focused(self, snap_compare):
        app = app_for(SAMPLES / "medical-setgen.txt")
        assert snap_compare(app, press=["enter", "j", "j"], terminal_size=SIZE)

    def test_disassociated_with_key(self, snap_compare):
        app = app_for(SAMPLES / "disassociated.json", key=SAMPLES / "disassociated.key.json")
        assert snap_compare(app, terminal_size=SIZE)

    def test_help(self, snap_compare):
        assert snap_compare(app_for(SAMPLES / "medical-setgen.txt"), press=["question_mark"], terminal_size=SIZE)

    def test_filter_open(self, snap_compare):
        app = app_for(SAMPLES / "medical-setgen.txt")
        assert snap_compare(app, press=["slash", "i", "c", "d"], terminal_size=SIZE)
