"""The TUI driven by Textual's Pilot: both sample kinds, plain transactions, big datasets."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import SAMPLES, app_for, screen_text

from semtui.tui.components.help import HelpScreen

SETGEN = SAMPLES / "medical-setgen.txt"
DISASSOCIATED = SAMPLES / "disassociated.json"
KEY = SAMPLES / "disassociated.key.json"
ORIGINAL = SAMPLES / "medical-original.txt"


def write_many_groups(path: Path, groups: int) -> Path:
    """``groups`` equivalence groups of two transactions each, one generalised item per group."""
    with open(path, "w", encoding="utf-8") as fh:
        for g in range(groups):
            fh.write(f"ctx{g % 97}, (m{g}a, m{g}b, m{g}c), other{g % 13}\n")
            fh.write(f"ctx{(g + 5) % 97}, (m{g}a, m{g}b, m{g}c)\n")
    return path


@pytest.mark.slow
async def test_setgen_sample_lists_groups_and_their_transactions():
    app = app_for(SETGEN)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        lst, detail = app.screen.list_pane, app.screen.detail
        assert lst.row_count == 1
        assert lst.source.cells(0, lst.columns)[:2] == ["(blood pressure, icd, limbs, injury)", "4"]
        assert detail.row_count == 4
        text = screen_text(app)
        assert "(blood pressure, icd, limbs, injury)" in text
        assert "gangrene, (blood pressure, icd, limbs, injury)" in text
        assert "Equivalence groups" in text
        # into the detail pane and down its transactions with j, back up with k, G and g
        await pilot.press("enter")
        assert app.focused is detail
        await pilot.press("j", "j")
        assert detail.cursor_row == 2
        await pilot.press("k")
        assert detail.cursor_row == 1
        await pilot.press("G")
        assert detail.cursor_row == 3
        await pilot.press("g")
        assert detail.cursor_row == 0
        await pilot.press("down", "down", "up")
        assert detail.cursor_row == 1


async def test_density_shows_as_soon_as_the_original_is_known():
    app = app_for(SETGEN, original=ORIGINAL)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        lst = app.screen.list_pane
        assert [c.key for c in lst.columns] == ["item", "size", "density"]
        assert lst.source.cells(0, lst.columns) == ["(blood pressure, icd, limbs, injury)", "4", "0.38"]
        assert "dens" in screen_text(app)


async def test_disassociated_sample_lists_clusters_and_chunks_with_origins():
    app = app_for(DISASSOCIATED, key=KEY)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        lst, detail = app.screen.list_pane, app.screen.detail
        assert lst.row_count == 1
        assert [str(c) for c in lst.source.cells(0, lst.columns)] == ["P1", "4", "2", "3", "0.67"]
        # the chunks side by side: C1, C2 (two empty sub-records: every transaction has one in
        # every chunk), the term chunk
        assert [c.key for c in detail.columns] == ["c1", "c2", "term"]
        assert "Chunks of cluster P1" in screen_text(app)
        await pilot.press("v")
        # 4 + 4 sub-records, 3 term-chunk terms, each with the transaction it came from
        assert detail.row_count == 11
        rows = [[str(c) for c in detail._getter(i)] for i in range(detail.row_count)]
        assert rows[0] == ["C1", "blood, treatment, lung", "T1"]
        assert rows[4] == ["C2", "tumor, biopsy", "T3"]
        assert rows[6][0] == "C2" and rows[6][2] == "T1"
        assert rows[8] == ["term", "vessel", "T1"]


async def test_disassociated_without_key_has_no_origin_column():
    app = app_for(DISASSOCIATED)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("v")
        assert [c.key for c in app.screen.detail.columns] == ["chunk", "items"]


async def test_plain_transactions_are_one_list():
    app = app_for(ORIGINAL)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        lst = app.screen.list_pane
        assert lst.row_count == 4
        await pilot.press("j", "j")
        assert lst.current == 2
        assert [str(r[0]) for r in map(app.screen.detail._getter, range(3))] == [
            "gangrene", "limbs", "injury"
        ]
        assert "Transaction on line 3" in screen_text(app)


@pytest.mark.slow
async def test_filter_narrows_the_list_and_escape_clears_it(tmp_path):
    path = write_many_groups(tmp_path / "g.txt", 50)
    app = app_for(path)
    async with app.run_test(size=(80, 24)) as pilot:
        lst = app.screen.list_pane
        assert lst.row_count == 50
        await pilot.press("slash", *"m4", "1")
        assert lst.row_count == 1 and lst.current == 41
        assert app.screen.detail.showing == 41
        await pilot.press("enter")
        assert app.focused is lst and lst.filter_text == "m41"
        assert "1 of 50 groups" in screen_text(app)
        await pilot.press("slash", "escape")
        assert lst.row_count == 50 and lst.filter_text == ""
        assert app.focused is lst


async def test_sort_by_column_keeps_the_cursor_on_its_group(tmp_path):
    path = tmp_path / "g.txt"
    path.write_text("a, (x, y)\nb, (x, y)\nc, (x, y)\nd, (p, q)\ne, (r, s)\nf, (r, s)\n")
    app = app_for(path)
    async with app.run_test(size=(80, 24)) as pilot:
        lst = app.screen.list_pane
        await pilot.press("right")  # the size column
        await pilot.press("left_square_bracket")
        assert [lst.source.cells(int(g), lst.columns)[1] for g in lst.order] == ["1", "2", "3"]
        assert lst.current == 0  # (x, y) is still under the cursor
        await pilot.press("right_square_bracket")
        assert [int(g) for g in lst.order] == [0, 2, 1]
        await pilot.press("left", "left_square_bracket")  # by label
        assert [lst.source.texts()[int(g)] for g in lst.order] == ["(p, q)", "(r, s)", "(x, y)"]


@pytest.mark.slow
async def test_help_lists_the_keys_and_q_quits():
    app = app_for(SETGEN)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        labels = {label for _, label in app.screen.keys}
        assert {"Search / filter", "Sort ↑", "Sort ↓", "Help", "Quit", "Close / quit"} <= labels
        keys = " ".join(k for k, _ in app.screen.keys)
        for key in ("/", "[", "]", "q", "j", "k", "g", "G"):
            assert key in keys.split(), key
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("q")  # closes help, not the app
        assert not isinstance(app.screen, HelpScreen)
        await pilot.press("q")
    assert app.return_code == 0 and not app.is_running


@pytest.mark.slow
async def test_ten_thousand_groups_are_drawn_without_a_widget_per_row(tmp_path):
    path = write_many_groups(tmp_path / "big.txt", 10_000)
    app = app_for(path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        lst = app.screen.list_pane
        assert lst.row_count == 10_000
        assert len(list(app.screen.query("*"))) < 40
        await pilot.press("G")
        assert lst.current == 9_999
        assert "(m9999a, m9999b, m9999c)" in screen_text(app)
        assert app.screen.detail.row_count == 2
        await pilot.press("pageup")
        assert lst.cursor_row < 9_999
        await pilot.press("g")
        assert lst.current == 0 and "(m0a, m0b, m0c)" in screen_text(app)
        await pilot.press("slash", *"m9876a")
        assert lst.row_count == 1 and lst.current == 9_876


@pytest.mark.slow
def test_open_bad_file_is_one_line_and_exit_2(cli, tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("a, (b, c\n")
    out = cli("open", bad)
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and "bad.txt:1" in out.stderr
    assert "Traceback" not in out.stderr and out.stdout == ""


def test_open_with_mismatched_original_is_an_input_error(cli, tmp_path):
    orig = tmp_path / "orig.txt"
    orig.write_text("a, b\n")
    out = cli("open", SETGEN, "--original", orig)
    assert out.returncode == 2 and "orig.txt" in out.stderr and "Traceback" not in out.stderr


@pytest.mark.slow
def test_key_on_transactions_is_an_input_error(cli):
    out = cli("open", SETGEN, "--key", KEY)
    assert out.returncode == 2 and "--key" in out.stderr


@pytest.mark.parametrize("width", [80, 160])
async def test_layout_fits_both_narrow_and_wide_terminals(width):
    app = app_for(SETGEN)
    async with app.run_test(size=(width, 24)) as pilot:
        await pilot.pause()
        assert app.screen.has_class("-wide") == (width >= 140)
        lst, detail = app.screen.list_pane, app.screen.detail
        assert lst.region.right <= width and detail.region.bottom <= 24
        assert lst.size.height >= 5 and detail.size.height >= 5
