"""Issue 23, findings 3, 4, 5, 7 and 11 as an analyst meets them: a cancel that acts and leaves
the screen usable, private exports with values in their own columns, ``o`` that asks before
throwing results away, and the records at risk of a disassociated release, by T# and line.

Every test runs at 80×24 and at 120×40.  No test asserts a time (docs/performance.md holds the
measured cancel latency, benchmarks/bench_cancel.py)."""

from __future__ import annotations

import csv
import os
from pathlib import Path

import numpy as np
import pytest
from conftest import SAMPLES, SETGEN, app_with, footer_text, notices, screen_text, settle

from semtui.tui.app import SemtuiApp
from semtui.tui.components.attack_form import AttackForm
from semtui.tui.components.confirm import Confirm
from semtui.tui.components.export import ExportPrompt
from semtui.tui.session import load_session

SIZES = [(80, 24), (120, 40)]


def long_release(tmp_path: Path, rows: int = 4000, members: int = 40, contexts: int = 30) -> tuple[Path, Path]:
    """One equivalence group of ``rows`` transactions and ``members`` members, each row with two
    scored context items: RBA on it runs for many seconds (thousands of eliminations)."""
    rng = np.random.default_rng(7)
    mem = [f"m{j}" for j in range(members)]
    ctx = [f"c{j}" for j in range(contexts)]
    gen = "(" + ", ".join(mem) + ")"
    lines = [f"{ctx[a]}, {ctx[b]}, {gen}" for a, b in rng.integers(0, contexts, size=(rows, 2)) if a != b]
    data = tmp_path / "long.txt"
    data.write_text("\n".join(lines) + "\n")
    scores = tmp_path / "long-scores.csv"
    dist = rng.random((members, contexts)) * 3
    scores.write_text("a,b,distance\n" + "".join(f"{m},{c},{dist[i, j]:.4f}\n" for i, m in enumerate(mem)
                                                   for j, c in enumerate(ctx)))
    return data, scores


@pytest.fixture
def numpy_loop(monkeypatch):
    """The numpy eliminator: the compiled one (the fast extra) eliminates a long_release table in
    well under a second, and a test of keys pressed while an attack runs needs it still running."""
    monkeypatch.setenv("SEMTUI_NO_NUMBA", "1")


# ---------------------------------------------------------------------------- finding 3: cancel


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.slow
async def test_escape_cancels_a_long_attack_says_so_at_once_and_leaves_the_screen_usable(tmp_path, size, numpy_loop):
    data, scores = long_release(tmp_path)
    app = SemtuiApp(load_session(data), attack_defaults={"measure": f"scores:{scores}", "method": "rba"})
    app.animation_level = "none"
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        screen = app.screen
        await pilot.press("a")
        assert isinstance(app.screen, AttackForm)
        await pilot.press("ctrl+s")
        bar = screen.progress
        # wait until the kernel itself reports (the bar's label moves inside the one group)
        for _ in range(400):
            await pilot.pause(0.05)
            if "eliminations" in str(bar.query_one("#what").render()):
                break
        assert "eliminations" in str(bar.query_one("#what").render()), "the kernel never reported progress"
        await pilot.press("escape")
        # said at once, before the worker has stopped
        assert "cancelling" in str(bar.query_one("#what").render())
        await settle(pilot)
        assert not bar.running and screen.session.result is None
        assert not screen.workers or all(w.is_finished for w in screen.workers)
        # usable: the list moves, the form opens again, escape closes it
        row = screen.list_pane.cursor_row
        await pilot.press("s")
        assert screen.switcher.current == "summary"
        await pilot.press("a")
        assert isinstance(app.screen, AttackForm)
        await pilot.press("escape")
        assert app.screen is screen and screen.list_pane.cursor_row == row


# ---------------------------------------------------------------------------- finding 5: o asks


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.slow
async def test_o_asks_before_throwing_away_results_as_q_does(fig4_scores, size):
    app = app_with(fig4_scores)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        screen = app.screen
        await pilot.press("o")  # nothing to lose yet: straight to the path
        assert isinstance(app.screen, ExportPrompt)
        await pilot.press("escape")
        await pilot.press("a")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert screen.session.result is not None
        await pilot.press("o")
        assert isinstance(app.screen, Confirm)
        assert "open another file anyway" in app.screen.question
        await pilot.press("n")  # no: the results stay
        assert app.screen is screen and screen.session.result is not None
        await pilot.press("o")
        await pilot.press("y")  # yes: now the path
        assert isinstance(app.screen, ExportPrompt)
        await pilot.press("escape")
        assert app.screen is screen and screen.session.result is not None


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.slow
async def test_o_asks_while_an_attack_runs(tmp_path, size, numpy_loop):
    data, scores = long_release(tmp_path)
    app = SemtuiApp(load_session(data), attack_defaults={"measure": f"scores:{scores}", "method": "rba"})
    app.animation_level = "none"
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        screen = app.screen
        await pilot.press("a", "ctrl+s")
        await pilot.pause()
        assert screen.progress.running
        await pilot.press("o")
        assert isinstance(app.screen, Confirm) and "attack is running" in app.screen.question
        await pilot.press("escape")
        assert app.screen is screen
        await pilot.press("escape")  # cancel the attack
        await settle(pilot)


# ---------------------------------------------------------------------------- finding 4: CSV exports

GLYPHS = set("●✗✓·∅▶")


def read_csv(path: Path) -> tuple[list[str], list[dict]]:
    with path.open(newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        return list(reader.fieldnames or []), list(reader)


def mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


async def save_csv(pilot, table, path: Path) -> None:
    """ctrl+s on ``table``, then the path in the prompt."""
    table.focus()
    await pilot.press("ctrl+s")
    prompt = pilot.app.screen
    assert isinstance(prompt, ExportPrompt)
    prompt.query_one("#path").value = str(path)
    await pilot.press("enter")
    if isinstance(pilot.app.screen, ExportPrompt):  # an existing file: a second enter replaces it
        await pilot.press("enter")
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.slow
async def test_distance_table_csv_is_private_with_values_and_marks_in_their_own_columns(tmp_path, fig4_scores,
                                                                                       size):
    app = app_with(fig4_scores)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        screen = app.screen
        await pilot.press("a", "ctrl+s")
        await settle(pilot)
        out = tmp_path / "distances.csv"
        await save_csv(pilot, screen.distances.table, out)
        assert mode(out) == 0o600  # the original's marks are in it
        header, rows = read_csv(out)
        assert header == ["T", "line", "context", "member", "distance", "eliminated", "step", "scored", "original"]
        group = screen.session.result.report["groups"][0]
        assert len(rows) == len(group["rows"]) * len(group["members"])
        assert not any(GLYPHS & set(v) for r in rows for v in r.values())
        first = rows[0]
        # heart disease (T1, line 1): blood pressure 0.56, original, kept (Fig. 4)
        assert (int(first["T"]), int(first["line"]), first["member"]) == (1, 1, "blood pressure")
        assert float(first["distance"]) == pytest.approx(0.56)
        assert (first["eliminated"], first["step"], first["original"]) == ("False", "", "True")
        elim = [r for r in rows if r["eliminated"] == "True"]
        assert len(elim) == screen.session.result.report["summary"]["eliminations"]
        assert sorted(int(r["step"]) for r in elim) == list(range(1, len(elim) + 1))
        # the groups list: numbers as numbers (no thousands separators), its own file, private too
        lst_out = tmp_path / "groups.csv"
        await save_csv(pilot, screen.list_pane, lst_out)
        header, rows = read_csv(lst_out)
        assert mode(lst_out) == 0o600 and int(rows[0]["size"]) == 4 and float(rows[0]["dens"]) >= 0


@pytest.mark.parametrize("size", SIZES)
async def test_a_release_without_original_exports_with_the_usual_mode(tmp_path, fig4_scores, size):
    app = SemtuiApp(load_session(SETGEN), attack_defaults={"measure": f"scores:{fig4_scores}"})
    app.animation_level = "none"
    old = os.umask(0o022)
    try:
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            out = tmp_path / "groups.csv"
            await save_csv(pilot, app.screen.list_pane, out)
            assert mode(out) == 0o644
            assert not app.session.holds_private
    finally:
        os.umask(old)


DISASSOC = SAMPLES / "disassociated.json"
DISASSOC_KEY = SAMPLES / "disassociated.key.json"
DISASSOC_ORIGINAL = SAMPLES / "disassociated-original.txt"


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.slow
async def test_chunk_and_reconstruction_csv_are_private_with_their_own_columns(tmp_path, size):
    from semtui.tui.components.disassoc_form import DisassocForm

    app = SemtuiApp(load_session(DISASSOC, key=DISASSOC_KEY, original=DISASSOC_ORIGINAL))
    app.animation_level = "none"
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        screen = app.screen
        chunks = tmp_path / "chunks.csv"
        await save_csv(pilot, screen.detail, chunks)
        assert mode(chunks) == 0o600
        header, rows = read_csv(chunks)
        assert header == ["cluster", "chunk", "count", "items"]
        cluster = app.session.data.clusters[0]
        assert sum(int(r["count"]) for r in rows if r["chunk"] == "C1") == cluster.size
        assert {r["items"] for r in rows if r["chunk"] == "term"} == {app.session.data.vocab.items[t]
                                                                     for t in cluster.term_chunk.tolist()}
        assert not any(GLYPHS & set(v) for r in rows for v in r.values())
        # a re-association, then its reconstruction beside the original
        await pilot.press("a")
        form = app.screen
        assert isinstance(form, DisassocForm)
        form.query_one("#method").value = "ra"
        await pilot.press("ctrl+s")
        await settle(pilot)
        await pilot.press("b")
        assert screen.detail.cluster_view == "recon"
        recon = tmp_path / "recon.csv"
        await save_csv(pilot, screen.detail, recon)
        assert mode(recon) == 0o600
        header, rows = read_csv(recon)
        assert header == ["cluster", "anchor", "T", "line", "item", "reconstructed", "original"]
        assert {r["reconstructed"] for r in rows} <= {"True", "False"} and {r["original"] for r in rows} <= {
            "True", "False"}
        assert all(int(r["T"]) >= 1 and int(r["line"]) >= 1 for r in rows)
        wrong = [r for r in rows if r["reconstructed"] == "True" and r["original"] == "False"]
        right = [r for r in rows if r["reconstructed"] == "True" and r["original"] == "True"]
        assert right and not any(GLYPHS & set(r["item"]) for r in wrong)
        # the sub-records: where each went, its anchor's T#, right or not and the score in their own columns
        await pilot.press("v", "v")
        assert screen.detail.cluster_view == "subrecords"
        subs = tmp_path / "subrecords.csv"
        await save_csv(pilot, screen.detail, subs)
        header, rows = read_csv(subs)
        assert mode(subs) == 0o600
        assert header == ["cluster", "chunk", "items", "T", "line", "anchor", "anchor_T", "correct", "score"]
        assert not any(GLYPHS & set(v) for r in rows for v in r.values())
        placed = [r for r in rows if r["chunk"] != "C1" and r["anchor"]]
        assert placed and all(r["correct"] in ("True", "False") and int(r["anchor_T"]) >= 1 for r in placed)
        # right = the anchor's transaction is one that really holds those items there (a shared unit: any of them)
        holders: dict = {}
        for r in rows:
            holders.setdefault((r["cluster"], r["chunk"], r["items"]), set()).add(r["T"])
        assert all((r["correct"] == "True") == (r["anchor_T"] in holders[(r["cluster"], r["chunk"], r["items"])])
                   for r in placed)


# ---------------------------------------------------------------------------- finding 7: who is at risk


@pytest.fixture
def meps_disassoc(tmp_path) -> dict[str, Path]:
    """400 MEPS transactions disassociated (k=3, m=2, clusters of at most 30) with their key:
    8 cover problems, every one a breach for the strong attacker."""
    from semtui.anonymize.disassociation import disassociate
    from semtui.formats import read_transactions
    from semtui.formats.disassociated import write_disassociated, write_key

    orig = read_transactions(SAMPLES / "meps400-original.txt")
    result = disassociate(orig, 3, 2, 30)
    paths = {"data": tmp_path / "meps.json", "key": tmp_path / "meps.key.json",
             "original": SAMPLES / "meps400-original.txt"}
    write_disassociated(result.data, paths["data"])
    write_key(result.key, paths["key"])
    return paths


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.slow
async def test_cover_and_reassociation_list_the_records_at_risk_and_enter_dives_in(tmp_path, meps_disassoc, size):
    from semtui.attacks.cover import run_cover
    from semtui.tui.components.disassoc_form import DisassocForm
    from semtui.tui.components.records import NO_RECORDS, RecordsScreen, RecordsTable

    app = SemtuiApp(load_session(meps_disassoc["data"], key=meps_disassoc["key"],
                                 original=meps_disassoc["original"]))
    app.animation_level = "none"
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        screen = app.screen
        await pilot.press("r")  # nothing run yet: the view says how to get records
        await settle(pilot)  # the rows are found in a worker
        assert isinstance(app.screen, RecordsScreen) and app.screen.rows == []
        assert NO_RECORDS in str(app.screen.query_one("#records-status").render())
        assert app.screen.check_action("open_record", ()) is None  # enter dimmed: no record to go to
        await pilot.press("escape")
        await pilot.press("p")
        assert isinstance(app.screen, DisassocForm)
        await pilot.press("ctrl+s")
        await settle(pilot)
        s = app.session
        expected = run_cover(s.data, original=s.original, key=s.key).to_json()
        assert "records reached (r lists them)" in notices(app)
        await pilot.press("r")
        await settle(pilot)
        view = app.screen
        assert isinstance(view, RecordsScreen)
        table = view.query_one(RecordsTable)
        # every (record, breach) of the engine's report, with T# and the original's source line, each
        # record under its own cluster (a shared chunk's problem reaches records of several clusters)
        home = {t: ck.id for ck in s.key.clusters for t in ck.records}
        want = sorted((r["transaction"] + 1, r["line"], home[r["transaction"]]) for p in expected["cover_problems"]
                      if p["breach"] for r in p["records"])
        got = sorted((r["T"], r["line"], r["cluster"]) for r in view.rows)
        assert got == want and len({t for t, _, _ in got}) == expected["summary"]["breached_records"]
        shown = [table.cell_text(i, 0) for i in range(table.row_count)]
        assert shown[0].startswith("T") and table.cell_text(0, 1).isdigit()
        # the status counts the records and the rows (one per record and breach); the footer says
        # what enter does there (the focused table's enter is the view's)
        status = str(view.query_one("#records-status").render())
        assert f"{len({t for t, _, _ in got}):,} records reached" in status
        assert table.border_title == f"Records at risk · {len(got):,} rows (a record once per what reaches it)"
        assert "⏎ Go to the record" in await footer_text(app, pilot)
        await pilot.press("z")  # the cursor row whole, as on the other lists
        assert table.wrap
        await pilot.press("z")
        assert not table.wrap
        # really reached first; a real record holds x and the covered item in the original
        first = view.rows[0]
        assert first["real"] is True
        held = set(s.original.vocab.names(s.original.transaction(first["T"] - 1)))
        assert first["items"][0] in held and set(first["items"][1:]) & held
        # its CSV: private, T and line as numbers
        out = tmp_path / "records.csv"
        table.focus()
        await pilot.press("ctrl+s")
        app.screen.query_one("#path").value = str(out)
        await pilot.press("enter")
        await pilot.pause()
        header, rows = read_csv(out)
        assert mode(out) == 0o600 and header[:3] == ["T", "line", "cluster"]
        assert int(rows[0]["T"]) == first["T"] and int(rows[0]["line"]) == first["line"]
        # enter: the record in its cluster, its row under the cursor, the items marked
        await pilot.press("enter")
        assert app.screen is screen
        detail = screen.detail
        assert s.data.clusters[screen.list_pane.current].id == first["cluster"]
        assert detail.cluster_view == "subrecords" and screen.switcher.current == "detail"
        assert first["T"] - 1 in detail.row_transactions[detail.cursor_row]
        assert detail.marked == frozenset(first["items"])
        # a re-association: the records it broke join the list
        await pilot.press("a")
        form = app.screen
        assert isinstance(form, DisassocForm)
        form.query_one("#method").value = "ra"
        await pilot.press("ctrl+s")
        await settle(pilot)
        from semtui.assess import reassoc_records

        broken = reassoc_records(s.latest("reassociation").report, s.original)[0]
        await pilot.press("r")
        view = app.screen
        mine = sorted((r["T"], r["line"]) for r in view.rows if r["source"] == "re-association")
        # (issue 38) only a re-association that beats chance reaches records: RA, the random
        # baseline, puts items back as chance does, and the view says why its records are not counted
        from semtui.assess import beats_chance

        assert broken and not beats_chance(s.latest("reassociation").report.metrics)
        assert mine == [] and "no better than chance" in " ".join(screen_text(app).split())
        await pilot.press("escape")
        assert app.screen is screen


@pytest.mark.slow
async def test_records_at_risk_are_found_in_a_worker_that_escape_cancels(meps_disassoc):
    """``r`` froze every key for 7 s on disassociated MEPS (issue 39): the view now opens at once,
    says it is finding the records, finds them in a worker that reports progress, and escape
    cancels it; ``r`` again on the same results opens with the rows found."""
    from semtui.attacks.cover import run_cover
    from semtui.tui.components.records import RecordsScreen
    from semtui.tui.session import Result

    session = load_session(meps_disassoc["data"], key=meps_disassoc["key"], original=meps_disassoc["original"])
    report = run_cover(session.data, original=session.original, key=session.key)
    session.add_result(Result(report, "run"))
    app = SemtuiApp(session)
    app.animation_level = "none"
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        home = app.screen
        view = RecordsScreen(session)
        assert view.rows is None  # nothing found on the UI thread
        app.push_screen(view)
        await pilot.pause()
        status = str(view.query_one("#records-status").render())
        assert "finding the records at risk" in status or view.rows, status
        # while they are found the list does not say that no report names records
        assert view.rows or "no report names records" not in screen_text(app)
        await pilot.press("escape")  # cancels the worker, back where r was pressed
        await settle(pilot)
        assert app.screen is home
        assert not [w for w in app.workers if w.group == "records" and not w.is_finished]
        await pilot.press("r")
        await settle(pilot)
        found = app.screen.rows
        assert found and all(r["source"] == "cover" for r in found)
        await pilot.press("escape")
        await pilot.press("r")  # the same results: the rows are there at once
        assert app.screen.rows is found


async def test_results_that_reach_no_record_are_said_so_not_how_to_get_them():
    """The sample's cover report finds no breach: the view says so, rather than asking for the key
    and a cover run already given."""
    from semtui.tui.components.records import RecordsScreen

    app = SemtuiApp(load_session(SAMPLES / "disassociated.json", key=SAMPLES / "disassociated.key.json",
                                 original=SAMPLES / "disassociated-original.txt"))
    app.animation_level = "none"
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("p", "ctrl+s")
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        view = app.screen
        assert isinstance(view, RecordsScreen) and view.rows == []
        said = screen_text(app)
        assert "no record is reached: the cover report finds no breach" in " ".join(said.split())
        assert "--key" not in said
