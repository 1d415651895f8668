"""The TUI's keys, layout at 80x24 and feedback, one behaviour a test.

Attacks use ``scores:FILE`` (deterministic, no GloVe) except where unknown terms are the
point: those use the bundled embedding on made-up words."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import (
    SAMPLES,
    app_with,
    notices,
    open_compare,
    report_file,
    run_attack,
    screen_text,
)
from textual.widgets import Footer
from textual.worker import Worker, WorkerState

from semtui.attacks.setgen import write_report
from semtui.formats import read_transactions
from semtui.tui.app import SemtuiApp
from semtui.tui.components.export import ExportPrompt
from semtui.tui.components.help import HelpScreen
from semtui.tui.components.summary import SummaryPanel
from semtui.tui.session import load_session


def big_group(tmp_path: Path, rows: int = 400) -> tuple[Path, Path]:
    """One equivalence group of ``rows`` transactions over four members (two with long
    names), each with its own context item, and a scores file for every pair."""
    members = ["alpha", "beta", "contusion of upper limb", "disorders of the immune mechanism"]
    gen = "(" + ", ".join(members) + ")"
    data = tmp_path / "big.txt"
    data.write_text("".join(f"ctx{i}, {gen}\n" for i in range(rows)))
    scores = tmp_path / "big.csv"
    with open(scores, "w") as fh:
        fh.write("a,b,distance\n")
        for i in range(rows):
            fh.writelines(f"{m},ctx{i},{((i * 7 + j * 5) % 13) / 10 + 0.05:.2f}\n" for j, m in enumerate(members))
    return data, scores


def big_report(tmp_path: Path, method: str = "gba", rows: int = 400) -> tuple[Path, Path]:
    data, scores = big_group(tmp_path, rows)
    report = run_attack(read_transactions(data), None, method=method, measure=f"scores:{scores}")
    path = tmp_path / f"big-{method}.json"
    write_report(report, path)
    return data, path


# ---------------------------------------------------------------- 1. tab switches pane
@pytest.mark.slow
async def test_tab_and_shift_tab_switch_panes(tmp_path, fig4_scores):
    app = app_with(fig4_scores, report_file(tmp_path, fig4_scores, "rba"))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert app.focused is screen.list_pane
        await pilot.press("tab")
        assert app.focused is screen.distances.table
        await pilot.press("tab")
        assert app.focused is screen.list_pane
        await pilot.press("enter")
        assert app.focused is screen.distances.table
        await pilot.press("shift+tab")  # the way back after enter
        assert app.focused is screen.list_pane
        await pilot.press("v", "tab")
        assert app.focused is screen.detail
        await pilot.press("s", "tab")
        assert app.focused is screen.list_pane
        await pilot.press("tab")
        assert isinstance(app.focused, SummaryPanel)


@pytest.mark.slow
async def test_tab_switches_side_in_compare(tmp_path, fig4_scores):
    app = app_with(fig4_scores, report_file(tmp_path, fig4_scores, "rba"))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_compare(pilot)
        left, right = screen.views
        assert app.focused is left.table
        await pilot.press("tab")
        assert app.focused is right.table
        await pilot.press("tab")
        assert app.focused is left.table
        await pilot.press("shift+tab")
        assert app.focused is right.table


# ---------------------------------------------------------------- 2. progress bar shows
async def test_progress_bar_is_visible_above_the_footer(fig4_scores):
    app = app_with(fig4_scores)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        screen.progress.start("rba/embedding")
        screen.progress.update("rba/embedding", 10, 68, "attacking")
        await pilot.pause()
        bar, footer = screen.progress.region, screen.query_one(Footer).region
        assert bar.height == 1 and bar.bottom <= footer.y
        text = screen_text(app)
        assert "esc cancels" in text and "attacking" in text and "15%" in text
        # the filter bar too takes its own room instead of covering the footer
        await pilot.press("slash")
        assert screen.query_one("#filter").region.bottom <= bar.y


# ---------------------------------------------------------------- 3. compare fits 80x24
@pytest.mark.slow
async def test_compare_shows_every_member_at_80x24(tmp_path, fig4_scores):
    app = app_with(fig4_scores, report_file(tmp_path, fig4_scores, "rba"))
    async with app.run_test(size=(80, 24)) as pilot:
        await open_compare(pilot)
        header = next(line for line in screen_text(app).splitlines() if "injury" in line and "│" in line)
        for name in ("icd", "limbs", "injury"):
            assert header.count(name) == 2, header
        # a name too long for its column loses its middle, keeping both ends (blood pressure)
        # (the short names take only their own width: the long one gets the rest, text.share_room)
        assert len(re.findall(r"bl\w*…\w*ure", header)) == 2, header
        for view in app.screen.views:
            assert view.table.virtual_size.width <= view.table.scrollable_content_region.width


@pytest.mark.slow
async def test_moving_the_column_scrolls_it_into_view(tmp_path):
    members = [f"member{j:02d}" for j in range(12)]
    data = tmp_path / "wide.txt"
    data.write_text("".join(f"ctx{i}, ({', '.join(members)})\n" for i in range(3)))
    scores = tmp_path / "wide.csv"
    scores.write_text("a,b,distance\n" + "".join(f"{m},ctx{i},0.{(i + j) % 9 + 1}\n"
                                                 for i in range(3) for j, m in enumerate(members)))
    report = run_attack(read_transactions(data), None, method="tba", measure=f"scores:{scores}")
    write_report(report, tmp_path / "wide.json")
    app = SemtuiApp(load_session(data, report=tmp_path / "wide.json"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter")
        table = app.screen.distances.table

        def header() -> str:  # the distance table's header (the group list shows the label's ends)
            return next(line for line in screen_text(app).splitlines() if "context" in line)

        assert "member11" not in header()
        for _ in range(12):
            await pilot.press("l")
        assert table.cursor_col == 12 and table.first_col > table.pinned
        assert "member11" in header()
        for _ in range(12):
            await pilot.press("h")
        assert table.first_col == table.pinned


# ---------------------------------------------------------------- 4. step mode follows
@pytest.mark.slow
async def test_step_mode_moves_the_cursor_to_each_eliminated_cell(tmp_path):
    data, report = big_report(tmp_path, "gba")
    app = SemtuiApp(load_session(data, report=report))
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.screen.distances
        table = view.table
        elims = view.attack.eliminations
        rows = view.attack.group["rows"]
        assert max(e["row"] for e in elims[:40]) > table.page_height  # some are off screen
        for step in range(1, 41):
            await pilot.press("space")
            e = elims[step - 1]
            assert (table.cursor_row, table.cursor_col) == (e["row"], e["column"] + 1)
            top = int(table.scroll_y)
            assert top <= e["row"] < top + table.page_height
            status = str(view.query_one("#status").render())
            kind, _, index = e["group"].partition(" ")
            if kind == "row":
                assert f"chosen by row L{rows[int(index)]['line']}" in status
            else:
                assert f"chosen by column {view.attack.group['members'][int(index)]}" in status
            assert f"out of line {rows[e['row']]['line']}" in status


async def test_step_status_names_the_chosen_column(tmp_path, fig4_scores):
    app = app_with(fig4_scores, report_file(tmp_path, fig4_scores, "gba"))
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.screen.distances
        texts = []
        for _ in range(view.attack.n_steps):
            await pilot.press("space")
            texts.append(str(view.query_one("#status").render()))
        assert not any("col " in t for t in texts)
        assert any("chosen by column " in t or "chosen by row L" in t for t in texts)


# ---------------------------------------------------------------- 5. no truncated numbers
async def test_numbers_are_never_truncated_and_cut_headers_end_with_ellipsis(tmp_path):
    data, report = big_report(tmp_path, "rba")
    app = SemtuiApp(load_session(data, report=report))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        lst = app.screen.list_pane
        elim = next(c for c in lst.columns if c.key == "eliminated")
        cell = lst.source.cells(0, lst.columns)[[c.key for c in lst.columns].index("eliminated")]
        assert len(cell) >= 8 and elim.width >= len(cell)
        text = screen_text(app)
        assert cell in text
        header = next(line for line in text.splitlines() if "alpha" in line and "beta" in line)
        assert "…" in header  # the two long member names are cut, and say so


# ---------------------------------------------------------------- 6. unknown terms, legend
@pytest.mark.slow
async def test_summary_lists_unknown_terms_and_help_explains_the_marks(tmp_path):
    data = tmp_path / "d.txt"
    data.write_text("heart, (knee, qzxvbn)\nlung, (knee, qzxvbn)\nfrobnicatrix, (knee, qzxvbn)\n")
    report = run_attack(read_transactions(data), None, method="rba", measure="embedding")
    write_report(report, tmp_path / "r.json")
    app = SemtuiApp(load_session(data, report=tmp_path / "r.json"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert "· no score" in str(app.screen.distances.query_one("#status").render())
        await pilot.press("s", "z")
        text = screen_text(app)
        assert "unknown terms" in text and "frobnicatrix" in text and "qzxvbn" in text
        await pilot.press("z", "question_mark")
        intro = app.screen.intro
        assert isinstance(app.screen, HelpScreen)
        for mark in ("·", "●", "✗N"):
            assert mark in intro


# ---------------------------------------------------------------- 7. attack form
async def test_form_reports_a_bad_measure_inline(fig4_scores):
    app = app_with(fig4_scores)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("a")
        form = app.screen
        assert "wordnet" in str(form.query_one("#measure-label").render())
        form.query_one("#measure").value = "X"
        await pilot.press("ctrl+s")
        assert app.screen is form and "unknown measure" in str(form.query_one("#error").render())
        form.query_one("#measure").value = "scores:"
        await pilot.press("ctrl+s")
        assert app.screen is form and "needs a file" in str(form.query_one("#error").render())
        form.query_one("#measure").value = f"scores:{fig4_scores}"
        form.query_one("#context").value = "nearest:0"
        await pilot.press("ctrl+s")
        error = str(form.query_one("#error").render())
        assert app.screen is form and "--context" not in error and error.startswith("the context")


def test_check_measure_names_the_kind_without_opening_anything(tmp_path):
    from semtui.errors import InputError
    from semtui.measures import check_measure

    assert check_measure("embedding") == "embedding"
    assert check_measure(f"scores:{tmp_path / 'missing.csv'}") == "scores"  # not opened here
    assert check_measure("wordnet") == "wordnet"
    for bad in ("X", "scores:", "ngd", "embedding:x", ""):
        with pytest.raises(InputError):
            check_measure(bad)


# ---------------------------------------------------------------- 8. / while zoomed
@pytest.mark.slow
async def test_slash_while_zoomed_unzooms_and_shows_the_filter(tmp_path, fig4_scores):
    app = app_with(fig4_scores, report_file(tmp_path, fig4_scores, "rba"))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        await pilot.press("z")
        assert screen.maximized is not None
        await pilot.press("slash", "i", "c", "d")
        assert screen.maximized is None
        bar = screen.query_one("#filter")
        assert app.focused is bar and bar.region.height > 0 and screen.list_pane.filter_text == "icd"


# ---------------------------------------------------------------- 10. keys that don't apply
async def test_keys_that_do_not_apply_say_why():
    app = SemtuiApp(load_session(SAMPLES / "medical-original.txt"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("a")
        await pilot.pause()
        assert "attacks need set-generalised data" in notices(app)


async def test_t_without_original_says_how_to_get_one(tmp_path, fig4_scores):
    report = run_attack(read_transactions(SAMPLES / "medical-setgen.txt"), None, method="rba",
                               measure=f"scores:{fig4_scores}")
    write_report(report, tmp_path / "r.json")
    app = app_with(fig4_scores, tmp_path / "r.json", original=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("t")
        await pilot.pause()
        assert "--original" in notices(app)


# ---------------------------------------------------------------- 11 / 17. summary labels
@pytest.mark.slow
async def test_summary_labels_k_and_shows_eliminations_once(tmp_path, fig4_scores):
    app = app_with(fig4_scores, report_file(tmp_path, fig4_scores, "rba"))
    async with app.run_test(size=(80, 40)) as pilot:
        await pilot.press("s", "z")
        text = screen_text(app)
        assert "k (smallest group size)" in text
        assert "eliminated" in text and "eliminations" not in text


# ---------------------------------------------------------------- 13. export
async def test_export_asks_before_overwriting_and_writes_in_a_worker(tmp_path, fig4_scores):
    app = app_with(fig4_scores, report_file(tmp_path, fig4_scores, "rba"))
    target = tmp_path / "out.json"
    target.write_text("old\n")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("e")
        prompt = app.screen
        prompt.query_one("#path").value = str(target)
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is prompt and "exists" in screen_text(app)
        assert target.read_text() == "old\n"
        await pilot.press("enter")
        assert not isinstance(app.screen, ExportPrompt)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert target.read_text().startswith("{") and "wrote" in notices(app)
        # the write runs in a thread worker, off the UI thread
        worker = app.screen.export_to(tmp_path / "second.json")
        assert isinstance(worker, Worker) and worker.state in (WorkerState.PENDING, WorkerState.RUNNING, WorkerState.SUCCESS)
        await app.workers.wait_for_complete()
        assert (tmp_path / "second.json").read_text().startswith("{")


# ---------------------------------------------------------------- 14. short toasts
async def test_toasts_go_away_quickly(fig4_scores):
    app = app_with(fig4_scores)
    async with app.run_test(size=(80, 24)) as pilot:
        app.notify("hello")
        await pilot.pause()
        assert list(app._notifications)[-1].timeout <= 3


# ---------------------------------------------------------------- 16. G / end
@pytest.mark.slow
async def test_G_in_summary_and_end_in_help_go_to_the_end_at_once(tmp_path, fig4_scores):
    app = app_with(fig4_scores, report_file(tmp_path, fig4_scores, "rba"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("s", "tab")
        panel = app.screen.query_one(SummaryPanel)
        assert app.focused is panel and panel.max_scroll_y > 0
        await pilot.press("G")
        await pilot.pause()
        assert panel.scroll_y == panel.max_scroll_y
        await pilot.press("g")
        await pilot.pause()
        assert panel.scroll_y == 0
        app.animation_level = "full"  # as in a terminal: the jump must not be animated
        await pilot.press("question_mark")
        box = app.screen.query_one("VerticalScroll")
        await pilot.pause()
        assert box.max_scroll_y > 0
        await pilot.press("end")
        await pilot.pause(0.1)  # a person looks at once, not after a second's animation
        assert box.scroll_y == box.max_scroll_y
        await pilot.press("home")
        await pilot.pause(0.1)
        assert box.scroll_y == 0

