"""The TUI's summary never reads unscored rows as safe (issue 19): a release with no plain
item (every k^m release at m >= 2 can be one) is attacked, no row can be scored, and the
summary says so and why instead of counting exposed items."""

from __future__ import annotations

from conftest import SAMPLES, render_text, run_attack

from semtui.attacks.setgen import write_report
from semtui.formats import read_transactions
from semtui.tui.app import SemtuiApp
from semtui.tui.session import load_session


async def test_summary_says_which_rows_were_not_scored_and_why(tmp_path, fig4_scores):
    original = SAMPLES / "medical-original.txt"
    data = read_transactions(original)
    release = tmp_path / "noplain.txt"  # each transaction one generalised item of its items and 'pain'
    release.write_text("".join(f"({', '.join(sorted({*data.vocab.names(data.transaction(i)), 'pain'}))})\n"
                               for i in range(data.n_transactions)))
    report = run_attack(read_transactions(release), data, measure=f"scores:{fig4_scores}")
    assert report["summary"]["attacked_rows"] == 0
    write_report(report, tmp_path / "r.json")
    app = SemtuiApp(load_session(release, original=original, report=tmp_path / "r.json"))
    app.animation_level = "none"
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("s")
        text = " ".join(render_text(app.screen.query_one("#summary").render_summary(), 96).split())
    assert "not scored" in text and "no plain context; no background knowledge given" in text
    assert "not measured: the attack scored no row" in text
