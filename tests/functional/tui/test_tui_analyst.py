"""The TUI for a privacy analyst (issue 14): inspector, exposure's k, risk view, search,
quitting, the full attack form, reports that restore their original, compare, conventions.
Driven by Textual's Pilot on the papers' sample (Fig. 4 scores)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from conftest import (
    ORIGINAL_FILE,
    SAMPLES,
    SETGEN,
    app_for,
    app_with,
    footer_text,
    open_compare,
    render_text,
    report_file,
    run_attack_from_form,
    screen_text,
    settle,
)

from semtui.tui.app import SemtuiApp
from semtui.tui.components.confirm import Confirm
from semtui.tui.components.inspector import Inspector
from semtui.tui.components.risk import RiskScreen
from semtui.tui.messages import JobProgress
from semtui.tui.screens.disassociated import DisassociatedScreen
from semtui.tui.screens.setgen import SetgenScreen
from semtui.tui.screens.transactions import TransactionsScreen
from semtui.tui.session import load_session


def inspector_text(app) -> str:
    return render_text(app.screen.body, 100)


# ---------------------------------------------------------------- structure (issue 9 item 7)
def test_one_screen_per_release_kind_and_keys_have_ids():
    from semtui.tui.keys import KEYS, bindings, user_keymap
    from semtui.tui.screens import screen_for

    assert isinstance(screen_for(load_session(SETGEN)), SetgenScreen)
    assert isinstance(screen_for(load_session(SAMPLES / "disassociated.json")), DisassociatedScreen)
    assert isinstance(screen_for(load_session(ORIGINAL_FILE)), TransactionsScreen)
    assert all(b.id for b in bindings("app", "main", "setgen", "compare", "risk", "table"))
    assert user_keymap("setgen.attack=A;nope=x;table.copy=") == {"setgen.attack": "A"}
    assert len({KEYS[i][0] for i in KEYS if i.startswith("setgen.")}) == len([i for i in KEYS if i.startswith("setgen.")])


def test_progress_messages_coalesce():
    a, b = JobProgress("attack", 1, 10, "x"), JobProgress("attack", 2, 10, "x")
    assert b.can_replace(a) and not JobProgress("replay", 1, 1, "").can_replace(a)


# ---------------------------------------------------------------- inspector
@pytest.mark.slow
async def test_enter_on_a_transaction_inspects_it_in_full(tmp_path, fig4_scores):
    app = app_with(fig4_scores, report_file(tmp_path, fig4_scores, "rba"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("v", "enter", "enter")  # transactions view, into it, inspect
        assert isinstance(app.screen, Inspector)
        text = inspector_text(app)
        assert "heart disease, (blood pressure, icd, limbs, injury), weakness, dizziness" in text
        assert "original" in text and "attacker believes" in text and "ruled out" in text
        await pilot.press("escape")
        assert not isinstance(app.screen, Inspector)
        # a group: i on the list
        app.screen.list_pane.focus()
        await pilot.press("i")
        text = inspector_text(app)
        assert "members" in text and "blood pressure, icd, limbs, injury" in text and "exposed" in text


async def test_enter_on_a_cell_shows_its_row_column_and_truth(tmp_path, fig4_scores):
    app = app_with(fig4_scores, report_file(tmp_path, fig4_scores, "rba"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter", "l", "enter")
        assert isinstance(app.screen, Inspector)
        text = inspector_text(app)
        assert "blood pressure" in text and "line 1" in text
        assert "original item" in text and "This row's distances" in text and "Column blood pressure" in text


# ---------------------------------------------------------------- exposure's k
def with_sidecar(tmp_path: Path, k: int = 3) -> Path:
    data = tmp_path / "release.txt"
    shutil.copy(SETGEN, data)
    (tmp_path / "release.txt.json").write_text(json.dumps({"format": "semtui-setgen-sidecar/1", "k": k}))
    return data


@pytest.mark.slow
async def test_exposure_uses_the_sidecar_k_and_the_form_can_set_it(tmp_path, fig4_scores):
    data = with_sidecar(tmp_path, 3)
    session = load_session(data, original=ORIGINAL_FILE)
    assert session.release_k == 3 and session.k_for_exposure() == (3, "sidecar")
    app = SemtuiApp(session, attack_defaults={"measure": f"scores:{fig4_scores}"})
    async with app.run_test(size=(80, 40)) as pilot:
        await pilot.press("a")
        assert "3, from the sidecar" in screen_text(app)
        await pilot.press("ctrl+s")
        await settle(pilot)
        rep = app.session.result.report
        assert (rep["privacy"]["k"], rep["privacy"]["k_source"]) == (3, "sidecar")
        await pilot.press("s", "z")
        assert "k (from the release's sidecar)" in screen_text(app)
        await pilot.press("z", "s")
        await pilot.press("a")
        app.screen.query_one("#k").value = "2"
        await pilot.press("ctrl+s")
        await settle(pilot)
        rep = app.session.result.report
        assert (rep["privacy"]["k"], rep["privacy"]["k_source"]) == (2, "option")


@pytest.mark.slow
async def test_the_form_offers_every_cli_option_and_names_a_bad_field(tmp_path, fig4_scores):
    app = app_with(fig4_scores)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("a")
        form = app.screen
        for field in ("measure", "context", "aggregate", "threshold", "seed", "k", "vectors", "jobs"):
            assert form.query(f"#{field}")
        form.query_one("#aggregate").value = "min"
        form.query_one("#threshold").value = "0.2"
        form.query_one("#jobs").value = "0"
        await pilot.press("ctrl+s")
        assert app.screen is form and "jobs" in str(form.query_one("#error").render())
        assert app.focused is form.query_one("#jobs")
        form.query_one("#jobs").value = "1"
        await pilot.press("ctrl+s")
        await settle(pilot)
        rep = app.session.result.report
        assert (rep["aggregate"], rep["threshold"]) == ("min", 0.2)


# ---------------------------------------------------------------- first run, reports
async def test_plain_semtui_shows_a_scored_attack_first():
    from semtui.samples import SAMPLE_ORIGINAL, sample_path

    app = SemtuiApp(load_session(sample_path(), original=sample_path(SAMPLE_ORIGINAL)), autorun=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.session.result is not None and app.session.result.metrics["precision"] is not None
        assert "P " in screen_text(app)  # the list's P / R columns
        # the demonstration's own result is not the user's unsaved work: q quits at once
        await pilot.press("q")
        await pilot.pause()
        assert not app.is_running


@pytest.mark.slow
async def test_after_the_demonstration_an_attack_the_user_runs_is_asked_about(fig4_scores):
    from semtui.samples import SAMPLE_ORIGINAL, sample_path

    app = SemtuiApp(load_session(sample_path(), original=sample_path(SAMPLE_ORIGINAL)), autorun=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await run_attack_from_form(pilot)
        await pilot.press("q")
        assert isinstance(app.screen, Confirm) and "1 attack result not exported" in app.screen.question


def test_a_report_restores_its_original(tmp_path, fig4_scores):
    from conftest import run_attack

    from semtui.attacks.setgen import write_report
    from semtui.formats import read_transactions

    report = tmp_path / "r.json"
    write_report(run_attack(read_transactions(SETGEN), read_transactions(ORIGINAL_FILE), measure=f"scores:{fig4_scores}",
                            original_path=ORIGINAL_FILE), report)
    doc = json.loads(report.read_text())
    assert doc["original"]
    session = load_session(SETGEN, report=report)
    assert session.original is not None and session.original_path == Path(doc["original"])


# ---------------------------------------------------------------- quitting
@pytest.mark.slow
async def test_q_asks_when_results_are_not_exported(tmp_path, fig4_scores):
    app = app_with(fig4_scores)
    async with app.run_test(size=(80, 24)) as pilot:
        await run_attack_from_form(pilot)
        await pilot.press("q")
        assert isinstance(app.screen, Confirm) and "not exported" in app.screen.question
        await pilot.press("n")
        assert app.is_running and not isinstance(app.screen, Confirm)
        app.screen.export_to(tmp_path / "r.json")
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("q")
        assert not app.is_running


async def test_q_asks_while_an_attack_runs(tmp_path, fig4_scores):
    app = app_with(fig4_scores, report_file(tmp_path, fig4_scores, "rba"))
    async with app.run_test(size=(80, 24)) as pilot:
        app.screen.progress.start("rba")  # as start_attack shows it
        await pilot.press("q")
        assert isinstance(app.screen, Confirm) and "running" in app.screen.question
        await pilot.press("y")
        assert not app.is_running


# ---------------------------------------------------------------- risk view
async def test_risk_view_lists_items_most_at_risk_first_and_enter_goes_to_the_group(tmp_path, fig4_scores):
    app = app_with(fig4_scores, report_file(tmp_path, fig4_scores, "rba"))
    async with app.run_test(size=(80, 24)) as pilot:
        main = app.screen
        await pilot.press("x")
        risk = app.screen
        assert isinstance(risk, RiskScreen)
        table = risk.query_one("#items")
        assert table.row_count == 4
        first = [table.cell_text(0, c) for c in range(6)]
        assert first[5] == "exposed" and first[2] == "4"
        # back (escape, the view's) and close (q, the app's) share an action: both in the footer
        footer = await footer_text(app, pilot)
        assert "esc Back" in footer and "q Close" in footer, footer
        assert footer.index("q Close") < footer.index("esc Back"), footer  # the app's key first: kept first
        assert "z Row whole" in footer, footer  # the view's own key, offered where there is room
        afters = [int(table.cell_text(r, 3)) for r in range(4)]
        assert afters == sorted(afters)
        # sort by item name, then back to the group
        await pilot.press("]")
        names = [table.cell_text(r, 0) for r in range(4)]
        assert names == sorted(names, reverse=True)
        await pilot.press("enter")
        assert app.screen is main and main.list_pane.current == 0


# ---------------------------------------------------------------- search
@pytest.mark.slow
async def test_search_finds_items_inside_transactions_and_n_moves_between_them(tmp_path, fig4_scores):
    app = app_with(fig4_scores)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        await pilot.press("slash", *"gangr", "enter")
        assert screen.list_pane.row_count == 1  # gangrene is a context item, not a member
        await pilot.press("n")
        assert app.focused is screen.detail and screen.detail.cursor_row == 2
        assert screen.detail.is_match(2) and not screen.detail.is_match(0)
        await pilot.press("escape")  # clears the filter
        assert screen.list_pane.filter_text == "" and screen.list_pane.row_count == 1
        await pilot.press("slash", *"zzz", "enter")
        assert screen.list_pane.row_count == 0
        text = screen_text(app)
        assert "nothing matches" in text and "Transactions of" not in text


# ---------------------------------------------------------------- compare
@pytest.mark.slow
async def test_compare_links_cursors_and_marks_differing_cells(tmp_path, fig4_scores):
    app = app_with(fig4_scores, report_file(tmp_path, fig4_scores, "rba"))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_compare(pilot)
        left, right = screen.views
        assert left.differs and left.differs == right.differs
        assert "method=gba" in left.border_title and "method=rba" in right.border_title
        await pilot.press("j", "j")
        await pilot.pause()
        assert right.table.cursor_row == left.table.cursor_row == 2


# ---------------------------------------------------------------- conventions
async def test_click_lands_on_the_row_clicked(tmp_path):
    from test_tui_browse import write_many_groups

    app = app_for(write_many_groups(tmp_path / "many.txt", 50))
    async with app.run_test(size=(80, 24)) as pilot:
        lst = app.screen.list_pane
        y = lst.region.y + 1 + 1 + 3  # border, header, then row 3
        await pilot.click(offset=(lst.region.x + 5, y))
        assert lst.cursor_row == 3


async def test_copy_csv_sort_steps_and_resize(tmp_path, fig4_scores):
    app = app_with(fig4_scores, report_file(tmp_path, fig4_scores, "rba"))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        view = screen.distances
        await pilot.press("enter", "l", "y")
        assert app.clipboard == view.table.cell_text(0, 1)
        n = view.table.write_csv(tmp_path / "t.csv")
        lines = (tmp_path / "t.csv").read_text().splitlines()
        assert n == 16 and lines[0] == "T,line,context,member,distance,eliminated,step,scored,original"
        await pilot.press("]")  # rows by blood pressure's distance, largest first
        shown = [view.values()[view.row_index(r), 0] for r in range(4)]
        finite = [v for v in shown if np.isfinite(v)]
        assert finite == sorted(finite, reverse=True)
        await pilot.press("E")
        assert view.step == view.attack.n_steps
        await pilot.press("colon")
        app.screen.query_one("#path").value = "3"
        await pilot.press("enter")
        assert view.step == 3
        before = screen.split
        await pilot.press("greater_than_sign")
        assert screen.split == before + 1


async def test_numbers_are_never_cut_and_the_context_stays_pinned(tmp_path):
    from conftest import run_attack

    from semtui.attacks.setgen import write_report
    from semtui.formats import read_transactions

    members = [f"member{j:02d}" for j in range(12)]
    data = tmp_path / "wide.txt"
    data.write_text("".join(f"ctx{i}, ({', '.join(members)})\n" for i in range(3)))
    scores = tmp_path / "wide.csv"
    scores.write_text("a,b,distance\n" + "".join(f"{m},ctx{i},0.{(i + j) % 9 + 1}\n"
                                                 for i in range(3) for j, m in enumerate(members)))
    write_report(run_attack(read_transactions(data), None, method="tba", measure=f"scores:{scores}"),
                 tmp_path / "wide.json")
    app = SemtuiApp(load_session(data, report=tmp_path / "wide.json"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter", *["l"] * 8)
        table = app.screen.distances.table
        shown = [c for c, _ in table.layout_columns()]
        assert shown[0] == 0 and 8 in shown  # context pinned, current member on screen
        for line in screen_text(app).splitlines():
            if "L1:" in line or "L2:" in line:
                # every number on screen is whole: 0.x, or ✗N
                inner = line.split("│")[1] if "│" in line else line
                for tok in inner.split()[2:]:
                    assert tok.startswith(("0.", "✗", "●")) or tok.endswith(","), line


@pytest.mark.slow
async def test_o_opens_another_file_and_the_palette_offers_it(tmp_path, fig4_scores):
    from semtui.tui.commands import ActionsProvider

    app = app_with(fig4_scores)
    async with app.run_test(size=(80, 24)) as pilot:
        assert "Open another file" in {label for label, _, _ in ActionsProvider(app.screen)._commands()}
        await pilot.press("o")
        app.screen.query_one("#path").value = f"{SAMPLES / 'disassociated.json'} --key {SAMPLES / 'disassociated.key.json'}"
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, DisassociatedScreen) and app.session.key is not None
        await pilot.press("o")
        app.screen.query_one("#path").value = str(tmp_path / "missing.txt")
        await pilot.press("enter")
        await pilot.pause()
        from semtui.tui.components.modal import ErrorModal

        assert isinstance(app.screen, ErrorModal) and "missing.txt" in app.screen.message


async def test_help_explains_the_words_on_screen(tmp_path, fig4_scores):
    app = app_with(fig4_scores, report_file(tmp_path, fig4_scores, "rba"))
    async with app.run_test(size=(80, 24)) as pilot:
        assert "elim a/b" in str(app.screen.list_pane.tooltip)
        await pilot.press("question_mark")
        for word in ("δ:", "vulnerability:", "density:", "elim a/b:", "skipped rows:", "re-identified rows:"):
            assert word in app.screen.intro


@pytest.mark.slow
async def test_a_click_on_an_exposed_line_of_the_summary_goes_to_its_group(tmp_path):
    from test_tui_browse import write_many_groups

    data = write_many_groups(tmp_path / "many.txt", 30)
    scores = tmp_path / "s.csv"
    ctx = [f"ctx{c}" for c in range(97)] + [f"other{c}" for c in range(13)]
    scores.write_text("a,b,distance\n" + "".join(f"m{g}{x},{c},{0.1 + 0.8 * ((g + i + ord(x)) % 3 == 0)}\n"
                                                 for g in range(30) for x in "abc" for i, c in enumerate(ctx)))
    app = SemtuiApp(load_session(data), attack_defaults={"measure": f"scores:{scores}"})
    async with app.run_test(size=(100, 60)) as pilot:
        await run_attack_from_form(pilot, "tba")
        rep = app.session.result.report
        shown = [g for g in rep["groups"] for _ in g["exposed"]][:20]  # the summary lists 20
        first = next(g for g in shown if g["id"] != 0)
        await pilot.press("s", "z")
        await pilot.pause()
        row = next(i for i, line in enumerate(screen_text(app).splitlines())
                   if f"{first['exposed'][0]}  in {first['generalised_item']}" in line)
        await pilot.click(offset=(6, row))
        await pilot.pause()
        screen = app.screen
        assert screen.list_pane.current == first["id"] and screen.switcher.current == "distances"


async def test_b_shows_what_the_attacker_now_believes_beside_the_lines(tmp_path, fig4_scores):
    app = app_with(fig4_scores, report_file(tmp_path, fig4_scores, "rba"))
    async with app.run_test(size=(100, 24)) as pilot:
        await pilot.press("b")
        screen = app.screen
        assert screen.switcher.current == "detail"
        text = screen_text(app)
        assert "what the attacker now believes" in text and "ruled out" in text
        await pilot.press("b")
        assert "what the attacker now believes" not in screen_text(app)


async def test_a_key_is_remapped_by_its_id(tmp_path, fig4_scores, monkeypatch):
    monkeypatch.setenv("SEMTUI_KEYMAP", "setgen.risk=X")
    app = app_with(fig4_scores, report_file(tmp_path, fig4_scores, "rba"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("x")
        assert not isinstance(app.screen, RiskScreen)
        await pilot.press("X")
        assert isinstance(app.screen, RiskScreen)
