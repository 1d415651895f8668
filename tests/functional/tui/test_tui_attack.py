"""The TUI over attack reports: groups pane columns, distance tables, step mode, the attack
form and its worker (progress, cancel, failure), export, comparison, summary, palette.

Attacks use ``scores:FILE`` with the papers' Fig. 4 distances (deterministic, no GloVe)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import (
    FIG4_COLUMNS,
    ORIGINAL_FILE,
    SAMPLE_CONTEXTS,
    SETGEN,
    app_with,
    open_compare,
    render_text,
    report_file,
    run_attack_from_form,
    settle,
)
from textual.widgets import ProgressBar

from semtui.formats import read
from semtui.tui.app import SemtuiApp
from semtui.tui.components.attack_form import AttackForm
from semtui.tui.components.distance import ELIMINATED, ORIGINAL
from semtui.tui.components.export import ExportPrompt
from semtui.tui.components.help import HelpScreen
from semtui.tui.components.modal import ErrorModal
from semtui.tui.screens.compare import CompareScreen
from semtui.tui.session import load_session

COLS, CONTEXTS = FIG4_COLUMNS, SAMPLE_CONTEXTS


async def test_report_opens_with_its_results(tmp_path, fig4_scores):
    app = app_with(fig4_scores, report_file(tmp_path, fig4_scores, "rba"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        lst = screen.list_pane
        assert [c.key for c in lst.columns] == ["item", "size", "density", "eliminated", "exposed", "precision",
                                                "recall"]
        cells = [str(c) for c in lst.source.cells(0, lst.columns)]
        assert cells == ["(blood pressure, icd, limbs, injury)", "4", "0.38", "10/16", "4", "1.00", "1.00"]
        assert screen.switcher.current == "distances"
        view = screen.distances
        row0 = [c.plain for c in view.table._getter(0)]
        # heart disease keeps bp and icd (original, ●); limbs and injury went at steps 8 and 7
        assert row0[1:] == [f"{ORIGINAL}0.56", f"{ORIGINAL}0.78", f"{ELIMINATED}8 1.57", f"{ELIMINATED}7 2.19"]
        assert "rba: 10 eliminations" in str(view.query_one("#status").render())


@pytest.mark.slow
async def test_step_mode_replays_gba_of_the_papers(tmp_path, fig4_scores):
    app = app_with(fig4_scores, report_file(tmp_path, fig4_scores, "gba"))
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.screen.distances

        def status() -> str:
            return str(view.query_one("#status").render())

        await pilot.press("space")
        assert view.step == 1
        assert "step 1/5: icd out of line 3" in status() and "vulnerability 0.799" in status()
        assert "δ 0.445" in status()
        cells = [c.plain for c in view.table._getter(2)]
        assert cells[2] == f"{ELIMINATED}1 2.93" and ELIMINATED not in cells[1]
        await pilot.press("space", "space")
        assert view.step == 3 and "limbs out of line 2" in status()
        await pilot.press("backspace")
        assert view.step == 2 and "blood pressure out of line 3" in status()
        await pilot.press("r")
        assert view.step == 0 and "before the attack" in status()
        assert not any(ELIMINATED in c.plain for i in range(4) for c in view.table._getter(i)[1:])
        for _ in range(8):
            await pilot.press("space")
        assert view.step == 5 and "injury out of line 1" in status()


async def test_weighted_and_original_toggles(tmp_path, fig4_scores):
    app = app_with(fig4_scores, report_file(tmp_path, fig4_scores, "gba"))
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.screen.distances
        await pilot.press("r")  # step 0: the initial table
        raw = [c.plain for c in view.table._getter(0)][1:]
        assert raw == [f"{ORIGINAL}0.56", f"{ORIGINAL}0.78", "1.57", "2.19"]
        await pilot.press("w")
        assert view.weighted
        weighted = [c.plain for c in view.table._getter(0)][1:]
        # Dw = D (1 - 1/4)(1 - 1/4) on the full 4x4 table
        assert weighted == [f"{ORIGINAL}0.32", f"{ORIGINAL}0.44", "0.88", "1.23"]
        assert "weighted" in str(view.query_one("#status").render())
        await pilot.press("t")
        assert [c.plain for c in view.table._getter(0)][1:] == ["0.32", "0.44", "0.88", "1.23"]
        await pilot.press("t", "w")
        assert [c.plain for c in view.table._getter(0)][1:] == raw


@pytest.mark.slow
async def test_attack_from_the_form_fills_the_panes(tmp_path, fig4_scores):
    app = app_with(fig4_scores)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert screen.switcher.current == "detail"
        await pilot.press("a")
        form = app.screen
        assert isinstance(form, AttackForm)
        assert form.current() == {"method": "", "measure": f"scores:{fig4_scores}", "context": "all", "seed": "",
                                  "aggregate": "mean", "threshold": "", "k": "", "vectors": "", "jobs": "1",
                                  "background": "", "knowledge": ""}
        await pilot.press("escape")
        assert app.screen is screen and not app.session.results
        await run_attack_from_form(pilot)
        assert len(app.session.results) == 1
        assert app.session.result.report["metrics"]["precision"] == 1.0
        assert screen.switcher.current == "distances"
        assert [c.key for c in screen.list_pane.columns][-2:] == ["precision", "recall"]
        assert not screen.progress.running
        # v goes back to the transactions and forth
        await pilot.press("v")
        assert screen.switcher.current == "detail"
        await pilot.press("v")
        assert screen.switcher.current == "distances"


@pytest.mark.slow
async def test_a_then_ctrl_s_runs_the_prefilled_attack(fig4_scores):
    """The form opens on its first field (the method list, where enter opens the list);
    ctrl+s runs the prefilled values."""
    app = app_with(fig4_scores)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("a")
        assert app.focused.id == "method"
        await pilot.press("ctrl+s")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert len(app.session.results) == 1
        assert app.session.result.report["method"] == "rba"


@pytest.mark.slow
async def test_form_rejects_bad_values_inline(fig4_scores):
    app = app_with(fig4_scores)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("a")
        form = app.screen
        form.query_one("#context").value = "nearest:zero"
        await pilot.press("ctrl+s")
        assert app.screen is form
        assert "nearest:N" in str(form.query_one("#error").render())
        form.query_one("#context").value = "all"
        form.query_one("#seed").value = "x"
        await pilot.press("ctrl+s")
        assert app.screen is form and "seed" in str(form.query_one("#error").render())


@pytest.mark.slow
async def test_a_failing_attack_shows_a_modal_not_a_crash(tmp_path, fig4_scores):
    app = app_with(fig4_scores)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("a")
        app.screen.query_one("#measure").value = f"scores:{tmp_path / 'missing.csv'}"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, ErrorModal)
        assert "missing.csv" in app.screen.message
        await pilot.press("escape")
        assert not isinstance(app.screen, ErrorModal) and app.is_running
        assert not app.session.results


def many_groups(tmp_path: Path, n_items: int = 26, n_ctx: int = 12) -> tuple[Path, Path]:
    """About 2,600 groups (every 3 of 26 items) over 12 context items, and their scores."""
    from itertools import combinations

    items = [f"item{i}" for i in range(n_items)]
    ctx = [f"ctx{i}" for i in range(n_ctx)]
    data = tmp_path / "many.txt"
    with open(data, "w") as fh:
        fh.writelines(f"{ctx[g % n_ctx]}, ({', '.join(combo)})\n{ctx[(g + 1) % n_ctx]}, ({', '.join(combo)})\n" for g, combo in enumerate(combinations(items, 3)))
    scores = tmp_path / "many.csv"
    with open(scores, "w") as fh:
        fh.write("a,b,distance\n")
        for i, a in enumerate(items):
            fh.writelines(f"{a},{b},{((i * 7 + j * 3) % 11) / 10 + 0.05}\n" for j, b in enumerate(ctx))
    return data, scores


@pytest.mark.slow
async def test_an_attack_can_be_cancelled(tmp_path):
    data, scores = many_groups(tmp_path)
    app = SemtuiApp(load_session(data), attack_defaults={"measure": f"scores:{scores}"})
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        bar = screen.progress.query_one(ProgressBar)
        await pilot.press("a")
        # run from the form without pilot.press: a press waits (up to ~1 s per key) for the
        # process to go idle, which it does not while the attack thread works
        app.screen.action_run()
        what = screen.progress.query_one("#what")
        for _ in range(1000):  # until the worker reports its first groups attacked (not the
            await pilot.pause(0.01)  # contexts before them, whose count the attack's 0/N resets)
            if (bar.progress or 0) > 0 and str(what.content).startswith("attacking"):
                break
        assert screen.progress.running and str(what.content).startswith("attacking"), what.content
        await pilot.press("escape")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert not screen.progress.running
        assert app.session.results == []
        assert 0 < bar.progress < screen.list_pane.row_count
        # the app still works: a second attack runs to the end
        await pilot.press("a", "ctrl+s")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert len(app.session.results) == 1


@pytest.mark.slow
async def test_export_writes_the_headless_json(tmp_path, fig4_scores, monkeypatch, cli):
    monkeypatch.chdir(tmp_path)
    app = app_with(fig4_scores)
    async with app.run_test(size=(80, 24)) as pilot:
        await run_attack_from_form(pilot, "gba")
        await pilot.press("e")
        prompt = app.screen
        assert isinstance(prompt, ExportPrompt)
        assert prompt.query_one("#path").value == "medical-setgen-gba-report.json"
        await pilot.press("enter")
        await pilot.pause()
    written = json.loads((tmp_path / "medical-setgen-gba-report.json").read_text())
    headless = cli("attack", "setgen", SETGEN, "--original", ORIGINAL_FILE, "--measure",
                   f"scores:{fig4_scores}", "--method", "gba", "--json")
    expected = json.loads(headless.stdout)
    for r in (written, expected):
        r["summary"].pop("seconds")
    assert written == expected


async def test_export_failure_is_a_modal(tmp_path, fig4_scores):
    app = app_with(fig4_scores, report_file(tmp_path, fig4_scores, "rba"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("e")
        app.screen.query_one("#path").value = str(tmp_path / "no" / "such" / "dir" / "r.json")
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ErrorModal) and "Export failed" in app.screen.title_text


async def test_export_to_dash_is_refused_not_drawn_over_the_screen(tmp_path, fig4_scores, monkeypatch):
    """'-' is standard output everywhere a file is written; under the TUI that is the screen,
    so the prompt asks for a file name instead (and no file named '-' appears)."""
    monkeypatch.chdir(tmp_path)
    app = app_with(fig4_scores, report_file(tmp_path, fig4_scores, "rba"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("e")
        prompt = app.screen
        prompt.query_one("#path").value = "-"
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is prompt and "give a file name" in str(prompt.query_one("#warning").render())
    assert not (tmp_path / "-").exists()


@pytest.mark.slow
async def test_compare_two_results_side_by_side(tmp_path, fig4_scores):
    app = app_with(fig4_scores, report_file(tmp_path, fig4_scores, "rba"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c")  # one result: nothing to compare
        assert not isinstance(app.screen, CompareScreen)
        await run_attack_from_form(pilot, "gba")
        assert [r.report["method"] for r in app.session.results] == ["rba", "gba"]
        await pilot.press("c")
        screen = app.screen
        assert isinstance(screen, CompareScreen)
        left, right = screen.views
        assert left.attack.result.report["method"] == "gba" and right.attack.result.report["method"] == "rba"
        assert left.attack.n_steps == 5 and right.attack.n_steps == 10
        await pilot.press("space")
        assert left.step == 1 and right.step == 1
        await pilot.press("w", "t", "r")
        assert left.weighted and right.weighted and not left.show_original and left.step == 0
        await pilot.press("n")  # cycles the right side among the other results (just rba here)
        assert screen.views[1].attack.result.report["method"] == "rba"
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        assert {"Other result", "Step", "Step back", "Reset steps"} <= {label for _, label in app.screen.keys}
        await pilot.press("escape", "q")
        assert not isinstance(app.screen, CompareScreen) and app.is_running
        # m switches the current result on the main screen
        await pilot.press("m")
        assert app.session.result.report["method"] == "rba"


async def test_the_linked_cursors_of_compare_settle_after_a_key(tmp_path, fig4_scores, monkeypatch):
    """Each side follows the other's cursor once: a side's message that its cursor moved is
    dropped when that cursor has moved since. Before, the two sides answered each other's stale
    messages, thousands on every key (2 s a key, a core kept busy)."""
    seen = []
    follow = CompareScreen.on_distance_view_cursor_moved

    def counted(self, message):
        seen.append(message.row)
        return follow(self, message)

    monkeypatch.setattr(CompareScreen, "on_distance_view_cursor_moved", counted)
    app = app_with(fig4_scores, report_file(tmp_path, fig4_scores, "rba"))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_compare(pilot)
        for key in ("space", "w", "n", "down"):
            seen.clear()
            await pilot.press(key)
            await pilot.pause()
            await pilot.pause()
            assert len(seen) <= 8, (key, len(seen))
            left, right = screen.views
            assert left.table.cursor_row == right.table.cursor_row, key  # the same transaction here


@pytest.mark.slow
async def test_summary_panel_shows_scores_exposure_and_bars(tmp_path, fig4_scores):
    app = app_with(fig4_scores, report_file(tmp_path, fig4_scores, "rba"))
    async with app.run_test(size=(80, 24)) as pilot:
        await run_attack_from_form(pilot, "gba")
        await pilot.press("s")
        screen = app.screen
        assert screen.switcher.current == "summary"
        text = render_text(screen.query_one("#summary").render_summary(), 76)
        assert "Dataset medical-setgen.txt" in text and "generalised items" in text
        gba = app.session.result.report["metrics"]
        assert f"{gba['precision']:.3f}" in text
        assert "Exposed" in text
        assert "Per attack (P / R / F1)" in text
        assert text.count("█") >= 4  # rba's and gba's bars
        await pilot.press("s")
        assert screen.switcher.current == "distances"


@pytest.mark.slow
async def test_palette_lists_every_action(tmp_path, fig4_scores):
    from semtui.tui.commands import ActionsProvider

    app = app_with(fig4_scores, report_file(tmp_path, fig4_scores, "rba"))
    async with app.run_test(size=(80, 24)) as pilot:
        provider = ActionsProvider(app.screen)
        labels = {label for label, _, _ in provider._commands()}
        for expected in ("Attack", "Search / filter", "Summary", "Step", "Step back", "Reset steps", "Raw/weighted",
                         "Original items", "Export report", "Transactions/distances", "Help", "Quit",
                         "Sort ↑", "Sort ↓", "Show result 1: rba/scores:" + str(fig4_scores)):
            assert expected in labels, expected
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"summary")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen.switcher.current == "summary"


@pytest.mark.slow
async def test_zoom_and_keys_at_80x24(tmp_path, fig4_scores):
    app = app_with(fig4_scores, report_file(tmp_path, fig4_scores, "rba"))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        await pilot.press("z")
        assert screen.maximized is screen.switcher
        await pilot.press("z")
        assert screen.maximized is None
        # zooming focused the table; enter on a cell inspects it
        assert app.focused is screen.distances.table
        await pilot.press("enter")
        from semtui.tui.components.inspector import Inspector

        assert isinstance(app.screen, Inspector)


@pytest.mark.slow
def test_open_report_of_another_dataset_is_an_input_error(cli, tmp_path, fig4_scores):
    report = json.loads(report_file(tmp_path, fig4_scores, "rba").read_text())
    report["groups"][0]["generalised_item"] = "(not, here)"
    bad = tmp_path / "other.json"
    bad.write_text(json.dumps(report))
    out = cli("open", SETGEN, "--report", bad)
    assert out.returncode == 2 and "other.json" in out.stderr and "(not, here)" in out.stderr
    out = cli("open", SETGEN, "--report", SETGEN)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert read(SETGEN).n_generalised == 1  # input untouched


@pytest.mark.slow
async def test_default_with_a_background_says_which_method_it_reports(fig4_scores):
    """The form's default with a background is the stronger of PBA and TBA; the summary names both."""
    app = app_with(fig4_scores)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        await pilot.press("a")
        form = app.screen
        form.query_one("#background").value = str(ORIGINAL_FILE)  # the attacker knows a similar population
        await pilot.press("ctrl+s")
        await settle(pilot)
        report = app.session.result.report
        choice = report["method_choice"]
        assert set(choice["candidates"]) == {"pba", "tba"} and report["method"] == choice["chosen"]
        await pilot.press("s")
        text = render_text(screen.query_one("#summary").render_summary(), 200)
        assert "PBA and TBA both tried" in text and f"{choice['chosen'].upper()} takes back" in text
