"""The TUI on an unmarked release (``semtui open RELEASE --unmarked``): the groups are shown
recovered, the attack form runs the engine's ``--unmarked`` attack, the summary says in words
what recovery found.  Fig. 4's distances (``scores:FILE``), as in test_tui_attack.py."""

from __future__ import annotations

import pytest
from conftest import SAMPLES, render_text, run_attack_from_form

from semtui.anonymize.setgen import flatten
from semtui.errors import InputError
from semtui.formats import read_transactions
from semtui.formats.text import dump_setgen
from semtui.tui.app import SemtuiApp
from semtui.tui.session import load_session


@pytest.fixture
def unmarked(tmp_path):
    path = tmp_path / "medical-unmarked.txt"
    with open(path, "w") as fh:
        dump_setgen(flatten(read_transactions(SAMPLES / "medical-setgen.txt")), fh, path)
    return path


@pytest.mark.slow
async def test_unmarked_release_is_shown_recovered_and_attacked(unmarked, fig4_scores):
    session = load_session(unmarked, original=SAMPLES / "medical-original.txt", unmarked=True)
    assert session.data.n_generalised == 1 and session.unmarked.n_generalised == 0
    app = SemtuiApp(session, attack_defaults={"measure": f"scores:{fig4_scores}"})
    app.animation_level = "none"
    async with app.run_test(size=(100, 30)) as pilot:
        await run_attack_from_form(pilot, "rba")
        report = app.session.result.report
        assert report["summary"]["eliminations"] == 10  # as on the marked release (ALGORITHMS.md §1)
        assert report["unmarked"]["recovered_groups"] == 1
        await pilot.press("s")
        text = " ".join(render_text(app.screen.query_one("#summary").render_summary(), 96).split())
        assert "Unmarked release: 1 generalised items recovered" in text
        assert "Not marking the generalised items hides almost nothing" in text


def test_unmarked_on_a_marked_release_is_refused():
    with pytest.raises(InputError, match="--unmarked is for"):
        load_session(SAMPLES / "medical-setgen.txt", unmarked=True)


def test_a_plain_release_with_an_unmarked_report_is_recovered(unmarked, fig4_scores, tmp_path, cli):
    report = tmp_path / "r.json"
    r = cli("attack", "setgen", unmarked, "--unmarked", "--measure", f"scores:{fig4_scores}", "--k", "4",
            "--report", report)
    assert r.returncode == 0, r.stderr
    session = load_session(unmarked, report=report)
    assert session.recovery_k == 4 and session.data.n_generalised == 1
    assert session.result.report["unmarked"]["recovered_groups"] == 1
