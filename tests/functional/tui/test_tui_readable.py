"""What an analyst reads stays readable (issue 23, findings 6, 8, 9, 10): names lose their
middle and never their ends, numbers are never cut, the row's own item stays on screen,
``z`` draws a row whole, forms show where the cursor is, help and quit are always in the
footer, and a view that shows nothing says why — at 80x24 and 120x40."""

from __future__ import annotations

import io

import pytest
from conftest import SAMPLES, run_attack
from rich.console import Console
from rich.text import Text

from semtui.tui.app import SemtuiApp
from semtui.tui.components.attack_form import AttackForm
from semtui.tui.components.disassoc_form import DisassocForm
from semtui.tui.session import load_session
from semtui.tui.text import elide, fit, num, plural

SIZES = {"80x24": (80, 24), "120x40": (120, 40)}
SETGEN = SAMPLES / "medical-setgen.txt"
ORIGINAL = SAMPLES / "medical-original.txt"


def screen_text(app) -> str:
    console = Console(file=io.StringIO(), width=app.size.width, color_system=None, record=True)
    console.print(app.screen._compositor.render_update(full=True))
    return console.export_text()


def app_for(path, **kw) -> SemtuiApp:
    app = SemtuiApp(load_session(path, **kw))
    app.animation_level = "none"
    return app


# ---------------------------------------------------------------- the helper itself
def test_elide_keeps_both_ends_and_the_width():
    a = elide("fracture of one or more phalanges of hand", 20).plain
    b = elide("fracture of one or more phalanges of foot", 20).plain
    assert len(a) == 20 and a != b and a.startswith("fracture") and a.endswith("hand") and "…" in a
    assert elide("short", 20).plain == "short"


def test_fit_keeps_what_the_row_is_about():
    text = "alpha, beta, gamma, (the generalised item of this group), delta, epsilon"
    start = text.index("(")
    keep = (start, text.index(")") + 1)
    for width in (30, 45, 60):
        out = fit(Text(text), width, [keep]).plain
        assert len(out) <= width
        assert out.count("(") == 1 and out.count(")") == 1 and "group)" in out, out
    # a kept range wider than the room keeps its two ends
    out = fit(Text(text), 20, [keep]).plain
    assert "(the" in out and "group)" in out and len(out) <= 20


def test_numbers_have_a_sane_precision_and_words_a_plural():
    assert num(0.248155) == "0.248" and num(12345) == "12,345" and num(None) == "—"
    assert plural(1, "record chunk") == "1 record chunk" and plural(2, "record chunk") == "2 record chunks"


# ---------------------------------------------------------------- 9. the footer
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("release", ["setgen", "disassoc", "plain"])
async def test_help_and_quit_are_always_in_the_footer(size, release):
    path = {"setgen": SETGEN, "disassoc": SAMPLES / "disassociated.json", "plain": ORIGINAL}[release]
    app = app_for(path)
    async with app.run_test(size=SIZES[size]) as pilot:
        await pilot.pause()
        footer = screen_text(app).rstrip("\n").splitlines()[-1]
        assert footer.startswith("? Help") and " q " in footer, footer


# ---------------------------------------------------------------- 8. forms
@pytest.mark.parametrize("size", SIZES)
async def test_the_attack_form_opens_on_its_first_field_and_enter_opens_the_list(size, tmp_path):
    app = app_for(SETGEN)
    async with app.run_test(size=SIZES[size]) as pilot:
        await pilot.press("a")
        form = app.screen
        assert isinstance(form, AttackForm) and app.focused.id == "method"
        assert form.query_one("#method-label").has_class("-current")
        await pilot.press("enter")
        await pilot.pause()
        assert form.query_one("#method").expanded  # the list opened; nothing runs
        assert not app.workers._workers and not app.session.results
        await pilot.press("escape")
        await pilot.press("tab")
        # the first tab lands on the next visible field, never on the scroll box
        assert app.focused.id == "measure" and app.focused.region.height >= 1
        assert form.query_one("#measure-label").has_class("-current")
        assert not form.query_one("#method-label").has_class("-current")


async def test_the_focused_field_stands_out_and_typing_replaces_its_visible_selection():
    app = app_for(SETGEN)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("a", "tab")
        form = app.screen
        measure, context = form.query_one("#measure"), form.query_one("#context")
        assert measure.has_focus
        assert measure.styles.background != context.styles.background
        assert measure.selection.start != measure.selection.end  # all of it selected, drawn reversed
        sel = measure.get_component_rich_style("input--selection")
        assert sel.bgcolor is not None and sel.bgcolor != measure.rich_style.bgcolor
        await pilot.press("w", "o", "r", "d", "n", "e", "t")
        assert measure.value == "wordnet"


async def test_the_disassociation_forms_open_on_their_first_field():
    app = app_for(SAMPLES / "disassociated.json")
    async with app.run_test(size=(80, 24)) as pilot:
        for key, first in (("a", "method"), ("p", "attacker")):
            await pilot.press(key)
            assert isinstance(app.screen, DisassocForm) and app.focused.id == first
            await pilot.press("enter")
            await pilot.pause()
            assert app.screen.query_one(f"#{first}").expanded and not app.session.results
            await pilot.press("escape", "escape")
