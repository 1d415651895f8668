"""SVG snapshots of the TUI at 80x24, animations and cursor blink off (one class per feature).

Update them after a deliberate change with ``pytest tests/functional/tui/test_tui_snapshots.py --snapshot-update``
and look at the SVGs before committing.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import SAMPLES, app_for, run_attack, write_fig4_scores

from semtui.tui.app import SemtuiApp

SIZE = (80, 24)


@pytest.fixture(autouse=True)
def toasts_stay(monkeypatch):
    """A toast stays until the snapshot is taken: the app's 2.5 s is shorter than the keys before
    the snapshot take on a loaded machine (the suite on 2 cores), where a toast the snapshot shows
    had gone before it was taken."""
    monkeypatch.setattr(SemtuiApp, "NOTIFICATION_TIMEOUT", 600.0)
    notify = SemtuiApp.notify

    def staying(self, *args, **kw):   # a toast given its own timeout (a few are) stays too
        if kw.get("timeout") is not None:
            kw["timeout"] = 600.0
        return notify(self, *args, **kw)

    monkeypatch.setattr(SemtuiApp, "notify", staying)


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


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    """Run in tmp_path with ``fig4.csv`` there, so the measure's name on screen is stable."""
    monkeypatch.chdir(tmp_path)
    write_fig4_scores(tmp_path / "fig4.csv")
    return tmp_path


def attacked_app(method: str = "rba") -> SemtuiApp:
    from semtui.attacks.setgen import write_report
    from semtui.formats import read_transactions

    setgen, original = SAMPLES / "medical-setgen.txt", SAMPLES / "medical-original.txt"
    report = run_attack(read_transactions(setgen), read_transactions(original), method=method,
                               measure="scores:fig4.csv")
    write_report(report, Path(f"{method}.json"))
    app = app_for(setgen, original=original, report=Path(f"{method}.json"))
    app.attack_defaults = {"measure": "scores:fig4.csv"}
    return app


class TestDistanceTable:
    def test_rba_report(self, snap_compare, in_tmp):
        assert snap_compare(attacked_app("rba"), terminal_size=SIZE)

    @pytest.mark.slow
    def test_gba_step_two_weighted(self, snap_compare, in_tmp):
        assert snap_compare(attacked_app("gba"), press=["space", "space", "w"], terminal_size=SIZE)

    @pytest.mark.slow
    def test_no_color(self, snap_compare, in_tmp, monkeypatch):
        monkeypatch.setenv("NO_COLOR", "1")
        assert snap_compare(attacked_app("gba"), press=["space"], terminal_size=SIZE)

    def test_zoomed(self, snap_compare, in_tmp):
        assert snap_compare(attacked_app("rba"), press=["z"], terminal_size=SIZE)


class TestAttackScreens:
    @pytest.mark.slow
    def test_attack_form(self, snap_compare, in_tmp):
        assert snap_compare(attacked_app("rba"), press=["a"], terminal_size=SIZE)

    def test_summary(self, snap_compare, in_tmp):
        assert snap_compare(attacked_app("rba"), press=["s", "z"], terminal_size=SIZE)

    @pytest.mark.slow
    def test_compare(self, snap_compare, in_tmp):
        async def second_attack(pilot):
            await pilot.press("a")
            pilot.app.screen.query_one("#method").value = "gba"
            await pilot.press("ctrl+s")
            await pilot.app.workers.wait_for_complete()
            await pilot.pause()
            await pilot.press("c")
            await pilot.pause()

        assert snap_compare(attacked_app("rba"), run_before=second_attack, terminal_size=SIZE)


#: issue 14's screens at both sizes
SIZES = {"80x24": (80, 24), "120x40": (120, 40)}


class TestAnalystScreens:
    @pytest.mark.parametrize("size", SIZES)
    @pytest.mark.slow
    def test_inspector_cell(self, snap_compare, in_tmp, size):
        assert snap_compare(attacked_app("rba"), press=["enter", "l", "enter"], terminal_size=SIZES[size])

    @pytest.mark.parametrize("size", SIZES)
    @pytest.mark.slow
    def test_inspector_transaction(self, snap_compare, in_tmp, size):
        assert snap_compare(attacked_app("rba"), press=["v", "enter", "enter"], terminal_size=SIZES[size])

    @pytest.mark.parametrize("size", SIZES)
    @pytest.mark.slow
    def test_risk_view(self, snap_compare, in_tmp, size):
        assert snap_compare(attacked_app("rba"), press=["x"], terminal_size=SIZES[size])

    @pytest.mark.parametrize("size", SIZES)
    @pytest.mark.slow
    def test_compare_lined_up(self, snap_compare, in_tmp, size):
        async def second_attack(pilot):
            await pilot.press("a")
            pilot.app.screen.query_one("#method").value = "gba"
            await pilot.press("ctrl+s")
            await pilot.app.workers.wait_for_complete()
            await pilot.pause()
            await pilot.press("c")
            await pilot.pause()
            await pilot.press("j")
            await pilot.pause()

        assert snap_compare(attacked_app("rba"), run_before=second_attack, terminal_size=SIZES[size])


# ---------------------------------------------------------------- issue 15: disassociated releases
TABLE4_ROWS = {"blood": [0.20, 0.27, 0.17, 0.25, 0.08], "treatment": [0.27, 0.34, 0.16, 0.37, 0.48],
               "lung": [0.48, 0.36, 0.18, 0.36, 0.33], "cancer": [0.63, 0.44, 0.11, 0.20, 0.51]}


def disassoc_app() -> SemtuiApp:
    """The paper's Table 3 with its key and original; Table 4 as ``table4.csv`` in the cwd."""
    others = ["tumor", "biopsy", "vessel", "catheterisation", "radiotherapy"]
    lines = ["a,b,similarity"] + [f"{a},{b},{v}" for a, row in TABLE4_ROWS.items() for b, v in zip(others, row)]
    Path("table4.csv").write_text("\n".join(lines) + "\n")
    return app_for(SAMPLES / "disassociated.json", key=SAMPLES / "disassociated.key.json",
                   original=SAMPLES / "disassociated-original.txt")


def then(*keys, attack: str | None = None):
    """``run_before``: run an attack from its form (``a`` re-association, ``p`` cover), then press keys."""
    async def run(pilot):
        if attack is not None:
            await pilot.press(attack)
            if attack == "a":
                pilot.app.screen.query_one("#measure").value = "scores:table4.csv"
            await pilot.press("ctrl+s")
            await pilot.app.workers.wait_for_complete()
            await pilot.pause()
            pilot.app.clear_notifications()
        await pilot.press(*keys)
        await pilot.pause()

    return run


class TestDisassociated:
    def test_chunks_side_by_side(self, snap_compare, in_tmp):
        assert snap_compare(disassoc_app(), terminal_size=SIZE)

    def test_sub_records_true_transactions(self, snap_compare, in_tmp):
        assert snap_compare(disassoc_app(), press=["v", "z"], terminal_size=SIZE)

    @pytest.mark.slow
    def test_where_each_went(self, snap_compare, in_tmp):
        assert snap_compare(disassoc_app(), run_before=then("v", "z", attack="a"), terminal_size=SIZE)

    @pytest.mark.slow
    def test_reconstructed_vs_original(self, snap_compare, in_tmp):
        assert snap_compare(disassoc_app(), run_before=then("b", attack="a"), terminal_size=SIZE)

    @pytest.mark.slow
    def test_cover_none_in_table3(self, snap_compare, in_tmp):
        assert snap_compare(disassoc_app(), run_before=then("x", attack="p"), terminal_size=SIZE)

    @pytest.mark.slow
    def test_cover_problems_meps(self, snap_compare, in_tmp):
        assert snap_compare(meps_app(), run_before=most_problems("x"), terminal_size=SIZE)

    @pytest.mark.slow
    def test_cover_problem_marked_meps(self, snap_compare, in_tmp):
        assert snap_compare(meps_app(), run_before=most_problems("x", "tab", "enter", "z"), terminal_size=SIZE)

    @pytest.mark.slow
    def test_attack_form(self, snap_compare, in_tmp):
        assert snap_compare(disassoc_app(), press=["a"], terminal_size=SIZE)

    @pytest.mark.slow
    def test_summary(self, snap_compare, in_tmp):
        assert snap_compare(disassoc_app(), run_before=then("s", "z", attack="a"), terminal_size=SIZE)

    def test_help(self, snap_compare, in_tmp):
        assert snap_compare(disassoc_app(), press=["question_mark"], terminal_size=SIZE)


def meps_app() -> SemtuiApp:
    """400 MEPS transactions disassociated (k=3, m=2, at most 30 per cluster, no REFINE) into the cwd."""
    from semtui.anonymize.disassociation import disassociate
    from semtui.formats import read_transactions
    from semtui.formats.disassociated import write_disassociated, write_key

    # the two steps, as when these snapshots were made (REFINE's joint clusters: test_tui_joint.py)
    result = disassociate(read_transactions(SAMPLES / "meps400-original.txt"), 3, 2, 30, refine=False)
    write_disassociated(result.data, Path("meps.json"))
    write_key(result.key, Path("meps.key.json"))
    return app_for(Path("meps.json"), key=Path("meps.key.json"), original=SAMPLES / "meps400-original.txt")


def most_problems(*keys):
    """``run_before``: the strong attacker's cover run, the cluster with most problems first, then keys."""
    async def run(pilot):
        await pilot.press("p", "ctrl+s")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        pilot.app.clear_notifications()
        lst = pilot.app.screen.list_pane
        lst.cursor_col = [c.key for c in lst.columns].index("problems")
        await pilot.press("right_square_bracket", "g", *keys)
        await pilot.pause()

    return run


class TestDocumentScreens:
    """The experiment screen (RESULTS.jsonl in the shared cell format) and the assessment screen
    (a real assessment of the sample, with alternatives), at both sizes."""

    def test_experiment_80x24(self, snap_compare):
        from test_tui_documents import RESULTS, doc_app

        assert snap_compare(doc_app(RESULTS), press=["j"], terminal_size=SIZE)

    def test_experiment_120x40(self, snap_compare):
        from test_tui_documents import RESULTS, doc_app

        assert snap_compare(doc_app(RESULTS), terminal_size=(120, 40))

    def test_assessment_80x24(self, snap_compare, tmp_path, monkeypatch):
        from test_tui_documents import doc_app, make_assessment

        monkeypatch.chdir(tmp_path)
        monkeypatch.setenv("SEMTUI_CACHE_DIR", str(tmp_path / "cache"))
        make_assessment(tmp_path)
        assert snap_compare(doc_app(None, report=Path("a.json")), terminal_size=SIZE)

    @pytest.mark.slow
    def test_assessment_alternatives_120x40(self, snap_compare, tmp_path, monkeypatch):
        from test_tui_documents import doc_app, make_assessment

        monkeypatch.chdir(tmp_path)
        monkeypatch.setenv("SEMTUI_CACHE_DIR", str(tmp_path / "cache"))
        make_assessment(tmp_path)
        assert snap_compare(doc_app(None, report=Path("a.json")), press=["4", "j"], terminal_size=(120, 40))
