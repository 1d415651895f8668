"""Issue 38, class 7: the TUI shows what it cuts.  One rule (semtui/tui/text.py, VirtualTable's
column sizing): a column is cut only when the table does not fit, and then the widest give way
first; text wraps at words; a count is never cut; each view keeps its own sideways scroll; every
key answers; figures come with their scale.  Each test runs on the bundled samples (or a MEPS
slice of them), at 80×24 and 120×40 where the room matters."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import ORIGINAL_FILE, SAMPLES, SETGEN, footer_text, notices, run_cli, screen_text, settle

from semtui.tui.app import SemtuiApp
from semtui.tui.components.vtable import Column, VirtualTable
from semtui.tui.session import load_session

SIZES = [(80, 24), (120, 40)]


@pytest.fixture
def meps_disassoc(tmp_path) -> dict[str, Path]:
    """400 MEPS transactions disassociated (k=3, m=2, clusters of at most 30) with their key."""
    return _disassociated(tmp_path, refine=True)


def _disassociated(tmp_path: Path, refine: bool) -> dict[str, Path]:
    from semtui.anonymize.disassociation import disassociate
    from semtui.formats import read_transactions
    from semtui.formats.disassociated import write_disassociated, write_key

    orig = read_transactions(SAMPLES / "meps400-original.txt")
    result = disassociate(orig, 3, 2, 30, refine=refine)
    paths = {"data": tmp_path / "meps.json", "key": tmp_path / "meps.key.json",
             "original": SAMPLES / "meps400-original.txt"}
    write_disassociated(result.data, paths["data"])
    write_key(result.key, paths["key"])
    return paths


def disassoc_app(paths: dict[str, Path]) -> SemtuiApp:
    app = SemtuiApp(load_session(paths["data"], key=paths["key"], original=paths["original"]))
    app.animation_level = "none"
    return app


def naturals(table: VirtualTable) -> list[int]:
    """Each column's whole width: its label and its widest cell."""
    out = [len(c.label) for c in table.columns]
    for r in range(table.row_count):
        for c, cell in enumerate(table._getter(r)):
            out[c] = max(out[c], cell.cell_len if hasattr(cell, "cell_len") else len(str(cell)))
    return out


# --------------------------------------------------------------------------- 1 and 3: the sizing rule
class _Table(VirtualTable):
    pass


@pytest.mark.parametrize("size", SIZES)
async def test_a_column_is_cut_only_when_the_table_does_not_fit(size):
    """A short column and a long one: the short one keeps its width, the long one takes the
    rest and is whole when the two fit (equal shares cut it while the short one had room over)."""
    from textual.app import App

    short = ["asthma", "gout", "acne"]
    room = size[0] - 2 - 3  # the table's content width: the gutter and a gap before each column
    long = ["x" * (room - 12 - len("asthma")), "y" * 10, "z" * 5]  # fits only beside a narrow first column

    class Host(App):
        def compose(self):
            yield _Table(id="t")

    app = Host()
    async with app.run_test(size=size) as pilot:
        table = app.query_one(_Table)
        table.set_rows(3, lambda i: [short[i], long[i]], [Column("a", "item", None, min_width=12),
                                                          Column("b", "what", None, min_width=12)])
        await pilot.pause()
        text = screen_text(app)
        assert long[0] in text and "…" not in text  # nothing cut: the two fit
        # a table that does not fit: the widest gives way first, the narrow column stays whole
        table.set_rows(3, lambda i: [short[i], long[i] * 3], [Column("a", "item", None, min_width=12),
                                                              Column("b", "what", None, min_width=12)])
        await pilot.pause()
        text = screen_text(app)
        assert "asthma" in text and "…" in text


# --------------------------------------------------------------------------- 1: the chunks view
def _cluster_with(app, want) -> int:
    """The first cluster (its position in the release) whose chunks view satisfies ``want``."""
    from semtui.tui.components.clusters import ClusterIndex

    data = app.screen.session.data
    index = ClusterIndex(app.screen.session)
    for c, cluster in enumerate(data.clusters):
        if want(cluster, index):
            return c
    raise AssertionError("no such cluster")


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("refine", [True, False])
async def test_chunks_view_sizes_columns_from_their_content_and_never_cuts_a_count(tmp_path, size, refine):
    """With REFINE every cluster shows its joint cluster's shared chunks too (none fits: the narrow
    ones stay whole, the wide ones share the rest); without, some clusters fit whole."""
    app = disassoc_app(_disassociated(tmp_path, refine))
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        screen = app.screen
        detail = screen.detail
        room = detail.scrollable_content_region.width
        checked = 0
        for c in range(min(len(screen.session.data.clusters), 60)):
            screen.go_to_cluster(c)
            await pilot.pause()
            nat = naturals(detail)
            layout = detail.layout_columns()
            widths = dict(layout)
            if sum(nat) + len(nat) + 1 <= room:
                # the chunks fit: every column whole, nothing on screen cut
                assert all(widths.get(k, 0) >= w for k, w in enumerate(nat)), (c, nat, layout)
                checked += 1
            else:
                # they do not: no room is left empty, the narrow columns are whole and the wide ones
                # share the rest (each cut one is at least 20 cells, the last one, cut by the border,
                # aside); the chunks that do not fit are a → away (the header says so)
                used = sum(w for _, w in layout) + len(layout) + 1
                assert used >= room - 1, (c, nat, layout, room)
                cut = [w for k, w in layout[:-1] if w < nat[k]]
                for k, w in layout[:-1]:
                    assert w >= min(20, nat[k]), (c, nat, layout)
                    if w >= nat[k] and cut:
                        assert nat[k] <= max(cut) + 1, (c, nat, layout)
                last, w = layout[-1]
                out_of_sight = len(layout) < len(nat) or w < detail._widths(room)[last]
                assert (detail.render_line(0).text[0] in "→↔") == out_of_sight
                checked += bool(cut) and any(w >= nat[k] for k, w in layout)
            # a count is never cut: every shown cell of a chunk starts with its whole count (n×)
            for r in range(min(detail.row_count, detail.page_height)):
                line = detail.render_line(r + 1).text
                cells = detail._getter(r)
                x = 1
                for k, w in layout:
                    whole = cells[k].plain if hasattr(cells[k], "plain") else str(cells[k])
                    count = re.match(r"\d+×", whole)
                    if count and w >= len(count.group()):
                        assert line[x:x + w].startswith(count.group()), (line, whole)
                    x += w + 1
        assert checked  # some cluster fits whole, or has whole columns beside cut ones


async def test_z_wraps_chunks_between_words_and_the_inspector_names_each_chunk(meps_disassoc):
    from semtui.tui.components.inspector import Inspector

    app = disassoc_app(meps_disassoc)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        # a cluster with record chunks whose first row is longer than its column
        c = _cluster_with(app, lambda cl, ix: len(cl.record_chunks) >= 1)
        screen.go_to_cluster(c)
        await pilot.pause()
        detail = screen.detail
        detail.focus()
        await pilot.press("z")
        await pilot.pause()
        cells = detail._getter(detail.cursor_row)
        for (col, _), lines in zip(detail.layout_columns(), detail.wrapped_cells()):
            whole = cells[col].plain if hasattr(cells[col], "plain") else str(cells[col])
            words = whole.split()
            got = " ".join(line.plain for line in lines).split()
            # a wrap falls between words: the lines' words are the cell's words
            if all(len(w) <= dict(detail.layout_columns())[col] for w in words):
                assert got == words, (got, words)
        await pilot.press("z")
        await pilot.press("i")
        await pilot.pause()
        assert isinstance(app.screen, Inspector)
        text = app.screen.body.plain
        lines = text.splitlines()
        names = detail.inspect_labels
        filled = [k for k, cell in enumerate(cells) if (cell.plain if hasattr(cell, "plain") else str(cell)).strip()]
        # one line per chunk that has a sub-record on this row, named by its one chunk name
        assert len(lines) == len(filled) >= 2
        for k, line in zip(filled, lines):
            whole = cells[k].plain if hasattr(cells[k], "plain") else str(cells[k])
            assert line == f"{names[k]}: {whole}"
            assert re.match(r"(C\d+|J\d+/S\d+|term chunk): ", line)


# --------------------------------------------------------------------------- 2: each view its own scroll
@pytest.mark.parametrize("size", SIZES)
async def test_sideways_scroll_stays_with_its_view(meps_disassoc, size):
    app = disassoc_app(meps_disassoc)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        screen = app.screen
        c = _cluster_with(app, lambda cl, ix: len(cl.record_chunks) + 1 >= 3)
        screen.go_to_cluster(c)
        await pilot.pause()
        detail = screen.detail
        detail.focus()
        for _ in range(3):
            await pilot.press("right")
        await pilot.pause()
        assert detail.cursor_col > 0
        chunks_col = detail.cursor_col
        await pilot.press("v")  # the sub-records: a new view starts at its first column
        await pilot.pause()
        assert detail.cluster_view == "subrecords"
        assert detail.cursor_col == 0 and detail.first_col == 0
        text = screen_text(app)
        assert "sub-record / term" in text and "true transaction" in text
        await pilot.press("v", "v")  # back to the chunks: their own scroll again
        await pilot.pause()
        assert detail.cluster_view == "chunks" and detail.cursor_col == chunks_col


# --------------------------------------------------------------------------- 3: the verdict, the alternatives
async def test_a_clamped_verdict_ends_on_a_whole_word():
    from rich.text import Text
    from textual.app import App

    from semtui.tui.components.assessment_views import Verdict

    words = ("the strongest attacker takes back sixty-one percent of the added items at precision "
             "0.845 against a random attacker with the same budget ") * 6

    class Host(App):
        def compose(self):
            yield Verdict(Text(words))

    app = Host()
    async with app.run_test(size=(80, 24)):
        v = app.query_one(Verdict)
        for width in range(40, 80, 3):
            shown = v.clamp(width)
            assert v.clamped
            last = shown.plain.splitlines()[-1]
            assert last.endswith(Verdict.MORE)
            before = last[: -len(Verdict.MORE)].rstrip()
            assert before.split()[-1] in words.split(), (width, last)  # the last word shown is whole


def _alternatives_app(path, labels, **doc):
    """The TUI on an assessment document (written to ``path``) whose alternatives are labelled
    ``labels``, k = 3, 6, 9, …"""
    from semtui import reports
    from semtui.tui.app import document_screen

    cells = [{"label": lab, "cell": {"family": "setgen", "k": 3 * (n + 1)}, "release": None,
              "strongest": {"figures": {"precision": 0.9, "recall": 0.6 - n / 10}}, "utility": {"score": 0.99 - n / 50},
              "check": {"passed": True}} for n, lab in enumerate(labels)]
    path.write_text(reports.dumps({**_assessment_doc(1, 1), "alternatives": cells, **doc}))
    app = SemtuiApp(None, document=document_screen(path))
    app.animation_level = "none"
    return app


@pytest.mark.parametrize("size", SIZES)
async def test_alternatives_labels_are_whole_when_there_is_room(tmp_path, size):
    labels = ["this release", "k doubled (setgen k=6)", "k tripled (setgen k=9)"]
    app = _alternatives_app(tmp_path / "a.json", labels)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await pilot.press("4")
        await pilot.pause()
        text = screen_text(app)
        for lab in labels:
            assert lab in text, text


def test_an_alternative_not_checked_is_never_said_to_have_failed_and_says_why_it_has_no_risk():
    """A release whose parameters are unknown (or whose check exercised nothing) is "not checked",
    not "check FAILED"; and the line says why a risk is missing, in `semtui assess`'s words."""
    from semtui.experiment.alternatives import UNSCORED
    from semtui.tui.components.plots import cell_about

    def cell(passed, detail, **privacy):
        return {"label": "x", "cell": {"family": "setgen", "k": 3}, "release": None,
                "check": {"passed": passed, "checker": None if passed is None else "check privacy", "detail": detail},
                "privacy": privacy}

    unknown = cell_about(cell(None, "not checked: the release's parameters are unknown", attack="RBA", risk=0.8,
                              beats_chance=True, figures={"error_ratio": 0.82})).plain
    assert "FAILED" not in unknown and "not checked: the release's parameters are unknown" in unknown
    assert "error ratio 0.82" in unknown
    unscored = cell_about(cell(True, "k=3: 6 constraints", attack="MDA", risk=None, beats_chance=False,
                               figures={})).plain
    assert UNSCORED in unscored and "check privacy passed (k=3: 6 constraints)" in unscored
    failed = cell_about(cell(False, "k=3: 1 with support in (0, 3)", attack=None, risk=None, figures={})).plain
    assert "check privacy FAILED (k=3" in failed and "no attack applies" in failed


async def test_an_assessment_opened_first_offers_no_esc_back(tmp_path):
    """On the first screen escape has nowhere to go: its footer does not offer it (q quits); the
    footer fits the width exactly without leaving its last key out."""
    app = _alternatives_app(tmp_path / "a.json", ["this release", "k=6"])
    async with app.run_test(size=(120, 40)) as pilot:
        footer = (await footer_text(app, pilot)).rstrip()
        assert "esc Back" not in footer and footer.startswith("? Help q Close") and "…" not in footer, footer
        await pilot.resize_terminal(len(footer), 40)
        assert (await footer_text(app, pilot, changed_from=footer + " " * (120 - len(footer)))).rstrip() == footer


async def test_at_80x24_a_long_verdict_gives_way_to_the_plot(tmp_path):
    """80x24: the verdict's box holds 4 lines (ending in "… i: the whole verdict"), so the
    risk-utility plot keeps rows enough to read (it had 4 at 6 verdict lines); 120x40 keeps 6."""
    from semtui.tui.components.assessment_views import Verdict

    for size, lines, plot_rows in (((80, 24), 4, 8), ((120, 40), 6, 20)):
        app = _alternatives_app(tmp_path / "a.json", ["k=3", "k=6", "k=9"],
                                verdict="At risk: " + "the strongest attack " * 80)
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            await pilot.press("4")
            await pilot.pause()
            verdict = app.screen.query_one(Verdict)
            assert verdict.region.height == lines and verdict.clamped
            assert "i: the whole verdict" in screen_text(app)
            assert app.screen.query_one("#alt-plot").region.height >= plot_rows, size


# --------------------------------------------------------------------------- 4: a hit inside an elided item
def test_a_search_hit_inside_the_rows_own_generalised_item_stays_visible():
    from rich.text import Text

    from semtui.tui.text import fit

    members = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa",
               "lambda", "mu"]
    item = "(" + ", ".join(members) + ")"
    row = f"heart disease, {item}, weakness"
    a = row.index(item)
    hit = row.index("kappa")
    for width in (30, 40, 60):
        shown = fit(Text(row), width, [(hit, hit + len("kappa")), (a, a + len(item))]).plain
        assert "kappa" in shown, (width, shown)
        assert len(shown) <= width


# --------------------------------------------------------------------------- 5: records at risk
def _assessment_doc(n_records: int, implicated: int) -> dict:
    recs = [{"transaction": t, "line": t + 1, "reidentified": ["encounters for administrative purposes",
                                                                "other cellulitis and abscess"],
             "misidentified": ["myoneural disorders"], "exposed": ["other cellulitis and abscess"],
             "eliminated": 16, "correct": 14} for t in range(n_records)]
    return {"format": "semtui-assessment/1", "kind": "set-generalised", "scored": True, "data": str(SETGEN),
            "original": str(ORIGINAL_FILE), "verdict": "At risk.", "attacks": [], "records_at_risk": recs,
            "records_implicated": implicated, "items_exposed": []}


@pytest.mark.parametrize("size", SIZES)
async def test_records_at_risk_one_clause_a_line_and_a_list_that_stops_says_so(tmp_path, size):
    from semtui import reports
    from semtui.tui.app import document_screen
    from semtui.tui.components.assessment_views import RecordsTable

    doc = tmp_path / "a.json"
    doc.write_text(reports.dumps(_assessment_doc(200, 5852)))
    app = SemtuiApp(None, document=document_screen(doc))
    app.animation_level = "none"
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await pilot.press("2")
        await pilot.pause()
        text = screen_text(app)
        assert "200 of 5,852 shown (the report keeps the first 200)" in text
        table = app.screen.query_one(RecordsTable)
        whats = [table.cell_text(r, len(table.columns) - 1) for r in range(6)]
        # one clause a line: no line holds two clauses, each begins with its kind
        assert whats[:3] == ["re-identified: encounters for administrative purposes, other cellulitis and abscess",
                             "reduced to a wrong item: myoneural disorders", "exposed: other cellulitis and abscess"]
        assert all(";" not in w for w in whats)
        assert all("reduced to a wrong item: " in line for line in text.splitlines() if "wrong item" in line)
        # the cursor on a clause line is on its record
        table.move_to(4)
        assert table.current["transaction"] == 1


# --------------------------------------------------------------------------- 6: silent keys
@pytest.mark.parametrize("size", SIZES)
async def test_keys_before_any_attack_say_why_they_cannot_act(size):
    app = SemtuiApp(load_session(SETGEN, original=ORIGINAL_FILE))
    app.animation_level = "none"
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        for key in ("v", "space", "w", "c", "e"):
            app.clear_notifications()
            await pilot.press(key)
            await pilot.pause()
            assert notices(app), f"{key} said nothing"
        assert "press a" in notices(app) or "a" in notices(app)


# --------------------------------------------------------------------------- 7: the attack form
async def test_the_attack_form_prefills_no_knowledge_without_a_background():
    from semtui.tui.components.attack_form import AttackForm

    app = SemtuiApp(load_session(SETGEN, original=ORIGINAL_FILE), attack_defaults={"knowledge": "combined"})
    app.animation_level = "none"
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("a")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, AttackForm)
        assert form.query_one("#knowledge").value == "" and form.query_one("#background").value == ""
        form.validated()  # what it prefills runs


# --------------------------------------------------------------------------- 8: progress
def test_progress_is_one_count_a_bar_that_moves_with_it_and_an_eta_from_the_rate_seen():
    from semtui.tui.components.progress import eta_text, progress_share

    share, text = progress_share(0, 6, "[1/6] RBA with embedding: attacking 602/4962")
    assert share == pytest.approx(602 / 4962 / 6) and share > 0  # not 0 % at 602/4962
    assert "602/4962" not in text and text.startswith("[1/6] RBA with embedding")
    share, text = progress_share(11, 33, "[12/33] TBA with embedding: attacking 11/33")
    assert share == pytest.approx((11 + 11 / 33) / 33) and text.count("/") == 1  # one count
    assert progress_share(5, 10, "contexts") == (0.5, "contexts")
    # steps inside steps (an assessment's alternatives): each level adds its part, never back
    shares = [progress_share(0, 4, f"[alternative 1/4] k doubled: attacking: [{i}/6] TBA: attacking {a}/120")[0]
              for i in (1, 2, 6) for a in (0, 60, 119)]
    assert shares == sorted(shares) and shares[0] == 0 and shares[-1] < 0.25
    assert progress_share(2, 6, "[3/6] RA (the papers' random baseline): starting 0/0") == (2 / 6, "[3/6] RA (the papers' random baseline): starting")
    # the ETA: the rate seen; none until it means something
    assert eta_text(0.5, 39.0) == " ETA 0:39"
    assert eta_text(0.01, 39.0) == "" and eta_text(0.5, 1.0) == "" and eta_text(None, 60.0) == ""


async def test_the_progress_bar_draws_the_shared_count(meps_disassoc):
    from textual.widgets import ProgressBar

    from semtui.tui.components.progress import AttackProgressBar

    app = disassoc_app(meps_disassoc)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        bar = app.screen.query_one(AttackProgressBar)
        bar.start("assess")
        bar.update("assess", 0, 6, "[1/6] RBA with embedding: attacking 602/4962")
        await pilot.pause()
        pb = bar.query_one(ProgressBar)
        assert pb.percentage is not None and pb.percentage > 0
        assert "602/4962" not in screen_text(app)
        # a label longer than its room ends in an ellipsis, never mid-phrase as if whole (a new
        # user read "attacking: [8/8] RA (the papers' random" at 80 columns)
        long = "[8/8] RA (the papers' random attacker, the baseline) with embedding and every knowledge table"
        bar.update("assess", 7, 8, long)
        await pilot.pause()
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        line = next(x for x in screen_text(app).splitlines() if "[8/8] RA" in x)
        assert "knowledge table" not in line and "…" in line, line
        bar.stop()


# --------------------------------------------------------------------------- 9: utility loss with its scale
def test_anonymize_setgen_says_utility_loss_with_its_scale(tmp_path):
    out = tmp_path / "r.txt"
    p = run_cli("anonymize", "setgen", SAMPLES / "meps400-original.txt", "-k", "6", "--random-privacy", "40",
                "-o", out)
    assert p.returncode == 0, p.stderr
    line = next(x for x in p.stdout.splitlines() if "utility loss" in x)
    assert re.search(r"utility loss [\d,.e+]+ ≈ 2\^\d+\.\d", line), line
    assert "(2^|g| − 1)·sup(g)/N" in line and "items added per transaction" in line
    side = json.loads(Path(f"{out}.json").read_text())
    ul = side.get("utility_loss", (side.get("summary") or {}).get("utility_loss"))
    if isinstance(ul, (int, float)) and ul >= 1:
        import math

        assert f"2^{math.log2(ul):.1f}" in line


# --------------------------------------------------------------------------- 10: one row per attack, chance
def test_the_attacks_ranked_list_each_distinct_attack_once():
    from semtui.tui.components.assessment_views import ranked_attacks

    def fig(p):
        return {"correct": 10, "added": 20, "precision": p, "recall": 0.5, "error_ratio": 0.7}

    cmd = "semtui attack setgen R --method {m} --measure embedding{bg}"
    doc = {"attacks": [
        {"family": "setgen", "attack": "TBA with embedding", "method": "tba", "measure": "embedding",
         "background": None, "knowledge": None, "role": "attack", "command": cmd.format(m="tba", bg=""),
         "figures": fig(0.87)},
        *({"family": "setgen", "attack": f"{m.upper()} with embedding, background bg.txt", "method": m,
           "measure": "embedding", "background": "bg.txt", "knowledge": "combined", "role": "attack",
           "command": cmd.format(m=m, bg=" --background bg.txt --knowledge combined"), "figures": fig(0.9),
           "by_knowledge": {v: {"method": "tba" if v == "semantics" else m, "figures": fig(0.87 if v == "semantics" else 0.9),
                                "command": cmd.format(m="tba" if v == "semantics" else m,
                                                      bg=f" --background bg.txt --knowledge {v}")}
                            for v in ("prior", "semantics", "combined")}}
          for m in ("pba", "tba")),
    ], "strongest": {"command": cmd.format(m="pba", bg=" --background bg.txt --knowledge combined")}}
    rows = ranked_attacks(doc)
    names = [r["attack"] for r in rows]
    assert len(names) == len(set(names)), names
    assert "TBA on the semantics table" not in names and names.count("TBA with embedding") == 1
    assert sum(r["strongest"] for r in rows) == 1


async def test_a_reassociation_no_better_than_chance_reaches_no_record(meps_disassoc):
    """A judged re-association counts towards the records reached only when it beats chance (the
    engine's beats_chance): ABA at lift 0.875 put some items back right, as a random one would."""
    from conftest import run_from_form

    from semtui.tui.components.records import RecordsScreen, records_at_risk

    app = disassoc_app(meps_disassoc)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await run_from_form(pilot, "a", method="aba")
        session = app.screen.session
        result = session.latest("reassociation")
        assert result is not None and result.report.metrics.correct > 0

        def with_lift(lift: float):   # the same report, its lift over random set (typed: a new one)
            rep = result.report
            return replace(rep, metrics=replace(rep.metrics, lift_over_random=lift))

        result.report = with_lift(0.875)  # no better than chance
        assert all(r["source"] != "re-association" for r in records_at_risk(session))
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, RecordsScreen)
        text = screen_text(app)
        assert "does no better than chance (lift 0.875 over random): no record is counted for it" in text
        await pilot.press("escape")
        await pilot.pause()
        result.report = with_lift(1.5)  # beats chance: its records are reached
        assert any(r["source"] == "re-association" for r in records_at_risk(session))


@pytest.mark.parametrize("size", SIZES)
async def test_a_dive_from_a_record_lands_on_its_own_sub_record(tmp_path, meps_disassoc, size):
    """``enter`` on a record of a disassociated release's assessment: its cluster's sub-records,
    the cursor on the record's own sub-record that holds the breached item (not the first row that
    names the record)."""
    from semtui import reports
    from semtui.tui.app import document_screen
    from semtui.tui.components.assessment_views import RecordsTable

    session = load_session(meps_disassoc["data"], key=meps_disassoc["key"], original=meps_disassoc["original"])
    data, key = session.data, session.key
    names = data.vocab.items
    found = None
    for cluster, ck in zip(data.clusters, key.clusters):
        for j in range(1, len(cluster.record_chunks)):
            for r, t in enumerate(ck.record_chunks[j]):
                items = [names[i] for i in cluster.record_chunks[j].sub_record(r).tolist()]
                if items:
                    found = (int(t), items[0])
                    break
            if found:
                break
        if found:
            break
    assert found, "no record with a sub-record beyond its first chunk"
    t, x = found
    doc = {"format": "semtui-assessment/1", "kind": "disassociated", "scored": True,
           "data": str(meps_disassoc["data"]), "key": str(meps_disassoc["key"]),
           "original": str(meps_disassoc["original"]), "verdict": "At risk.", "attacks": [],
           "records_at_risk": [{"transaction": t, "line": t + 1, "reassociated": 0,
                                "cover_breaches": [f"{x} (strong)"]}],
           "records_implicated": 1, "items_exposed": []}
    path = tmp_path / "a.json"
    path.write_text(reports.dumps(doc))
    app = SemtuiApp(None, document=document_screen(path))
    app.animation_level = "none"
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await pilot.press("2")
        await pilot.pause()
        assert app.screen.query_one(RecordsTable).current["transaction"] == t
        await pilot.press("enter")
        await settle(pilot)
        screen = app.screen
        detail = screen.detail
        assert detail.cluster_view == "subrecords" and app.focused is detail
        assert t in detail.row_transactions[detail.cursor_row]
        assert x in detail.cell_text(detail.cursor_row, 1).split(", ")


async def test_what_an_empty_view_says_is_wrapped_whole():
    """A new user's items-exposed view at 80 columns: "…(exposed); but 20 records have a generalise"
    and nothing more, the end of the sentence (which says where those records are) cut with no sign
    of it. An empty view's message now wraps between words over the lines it needs."""
    from textual.app import App

    from semtui.tui.components.assessment_views import ItemsTable

    said = ("no member item can now appear in fewer than k transactions of its group (exposed); but 20 records "
            "have a generalised item re-identified (reduced to its one member): 2 lists them")

    class One(App):
        def compose(self):
            yield ItemsTable([], empty=said)

    app = One()
    async with app.run_test(size=(60, 12)) as pilot:
        await pilot.pause()
        flat = " ".join(screen_text(app).split())
        assert "(reduced to its one member): 2 lists them" in flat, flat
