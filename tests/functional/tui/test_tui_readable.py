"""What an analyst reads stays readable (issue 23, findings 6, 8, 9, 10): names lose their
middle and never their ends, numbers are never cut, the row's own item stays on screen,
``z`` draws a row whole, forms show where the cursor is, help and quit are always in the
footer, and a view that shows nothing says why — at 80x24 and 120x40."""

from __future__ import annotations

import pytest
from conftest import SAMPLES, app_for, footer_text, notices, run_attack, run_from_form, screen_text
from rich.text import Text

from semtui.tui.components.attack_form import AttackForm
from semtui.tui.components.disassoc_form import DisassocForm
from semtui.tui.text import elide, fit, num, plural

SIZES = {"80x24": (80, 24), "120x40": (120, 40)}
SETGEN = SAMPLES / "medical-setgen.txt"
ORIGINAL = SAMPLES / "medical-original.txt"


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


from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@given(st.text(alphabet="ab ,()0123456789", max_size=80), st.integers(1, 60), st.data())
def test_fit_never_overflows_and_keeps_a_range_that_fits(text, width, data):
    out = fit(Text(text), width).plain
    assert len(out) <= width and (out == text if len(text) <= width else "…" in out)
    if text:
        a = data.draw(st.integers(0, len(text) - 1))
        b = data.draw(st.integers(a + 1, len(text)))
        kept = fit(Text(text), width, [(a, b)]).plain
        assert len(kept) <= width
        if b - a <= (width * 2 // 3) - 2:  # a short kept range is on screen whole
            assert text[a:b] in kept, (text, a, b, kept)


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
        footer = await footer_text(app, pilot)
        assert footer.startswith("? Help") and " q " in footer, footer


async def test_a_modal_shows_its_own_keys_not_the_screens_beneath():
    """A form, the inspector and the help each put their keys in the footer: the screen's keys
    under them (a Attack, s Summary) do nothing there, and a form's text fields take letters."""
    app = app_for(SETGEN)
    async with app.run_test(size=(80, 24)) as pilot:
        main = await footer_text(app, pilot)
        assert "a Attack" in main
        for key, own in (("a", "esc Cancel ^s Run"), ("i", "esc Close y Copy"), ("question_mark", "esc Close help")):
            await pilot.press(key)
            footer = await footer_text(app, pilot, changed_from=main)
            assert footer.strip() == own, (key, footer)
            await pilot.press("escape")
            assert await footer_text(app, pilot) == main


async def test_the_footer_leaves_out_whole_keys_and_says_so():
    """At 80 columns the keys that do not fit are left out whole and an ellipsis says more exist
    (not "s Sum" cut mid-word); wider, every key is there and no ellipsis."""
    app = app_for(SETGEN)
    async with app.run_test(size=(80, 24)) as pilot:
        narrow = await footer_text(app, pilot)
        shown = [b.description for _node, b, _enabled, _tip in app.screen.active_bindings.values() if b.show]
        await pilot.resize_terminal(200, 24)
        wide = await footer_text(app, pilot, changed_from=narrow)
    assert narrow.rstrip().endswith("…") and len(narrow.rstrip()) <= 80, narrow
    assert wide.startswith(narrow.rstrip().removesuffix("…").rstrip()), (narrow, wide)
    assert "…" not in wide and all(d in wide for d in shown), (shown, wide)


# ---------------------------------------------------------------- 8. forms
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
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


# ---------------------------------------------------------------- 6. names and numbers
LONG = [f"{w} condition of the {p} region" for w, p in
        (("chronic", "upper"), ("acute", "lower"), ("recurrent", "left"), ("congenital", "right"),
         ("unspecified", "outer"), ("secondary", "inner"))]
MEMBERS = ["fracture of one or more phalanges of hand", "fracture of one or more phalanges of foot",
           "open wound of finger", "sprain of ankle"]


def long_release(tmp_path):
    """Transactions whose own generalised item comes after long plain items, a search hit at
    the end, and members that share their beginnings."""
    gen = "(" + ", ".join(MEMBERS) + ")"
    lines = [", ".join(LONG) + ", " + gen + ", zzzfinal item",
             ", ".join(LONG[::-1]) + ", " + gen, gen + ", " + ", ".join(LONG)]
    data = tmp_path / "long.txt"
    data.write_text("\n".join(lines) + "\n")
    scores = tmp_path / "long.csv"
    ctx = sorted(set(LONG) | {"zzzfinal item"})
    scores.write_text("a,b,distance\n" + "".join(f"{m},{c},0.{(i + j) % 8 + 1}\n" for i, m in enumerate(MEMBERS)
                                                 for j, c in enumerate(ctx)))
    return data, scores


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.slow
async def test_the_rows_own_generalised_item_and_the_search_hit_stay_on_screen(size, tmp_path):
    data, _ = long_release(tmp_path)
    app = app_for(data)
    async with app.run_test(size=SIZES[size]) as pilot:
        await pilot.press("enter")
        await pilot.pause()
        import re

        rows = [line for line in screen_text(app).splitlines() if re.match(r"│.? +[123] ", line)]
        assert len(rows) == 3, screen_text(app)
        for line in rows:  # both ends of the row's own generalised item, on every row
            assert "(fracture" in line and "sprain of ankle)" in line, line
        await pilot.press("slash", *"zzzfinal", "enter")
        await pilot.press("tab")
        await pilot.pause()
        hit = [line for line in screen_text(app).splitlines() if "L" not in line[:3] and "zzzfinal" in line]
        assert hit, screen_text(app)


@pytest.mark.parametrize("size", SIZES)
async def test_z_draws_the_cursor_row_whole(size, tmp_path):
    data, _ = long_release(tmp_path)
    app = app_for(data)
    async with app.run_test(size=SIZES[size]) as pilot:
        await pilot.press("enter", "z")
        await pilot.pause()
        text = " ".join(line.strip("│ ▶") for line in screen_text(app).splitlines())
        squeezed = " ".join(text.split())
        for item in LONG + MEMBERS:  # every item of the row, nothing elided
            assert item in squeezed, item
        assert app.screen.detail.wrap
        await pilot.press("z")
        assert not app.screen.detail.wrap


@pytest.mark.parametrize("size", SIZES)
async def test_distance_headers_keep_the_ends_that_tell_members_apart(size, tmp_path):
    from semtui.attacks.setgen import write_report
    from semtui.formats import read_transactions

    data, scores = long_release(tmp_path)
    report = run_attack(read_transactions(data), None, method="tba", measure=f"scores:{scores}")
    write_report(report, tmp_path / "long.json")
    app = app_for(data, report=tmp_path / "long.json")
    async with app.run_test(size=SIZES[size]) as pilot:
        await pilot.pause()
        header = next(line for line in screen_text(app).splitlines() if "context" in line)
        assert "hand" in header and "foot" in header, header


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.slow
async def test_compare_shows_every_member_and_the_distances_it_has_room_for(size, tmp_path, fig4_scores):
    import re

    from semtui.attacks.setgen import write_report
    from semtui.formats import read_transactions

    report = run_attack(read_transactions(SETGEN), read_transactions(ORIGINAL), method="rba",
                        measure=f"scores:{fig4_scores}")
    write_report(report, tmp_path / "rba.json")
    app = app_for(SETGEN, original=ORIGINAL, report=tmp_path / "rba.json")
    app.attack_defaults = {"measure": f"scores:{fig4_scores}"}
    async with app.run_test(size=SIZES[size]) as pilot:
        await pilot.press("a")
        app.screen.query_one("#method").value = "gba"
        await pilot.press("ctrl+s")
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("c")
        await pilot.pause()
        text = screen_text(app)
        header = next(line for line in text.splitlines() if "injury" in line and "│" in line)
        for name in ("icd", "limbs", "injury"):
            assert header.count(name) == 2, header
        assert text.rstrip("\n").splitlines()[-1].startswith("? Help")
        with_distance = re.search(r"✗\d+ \d\.\d\d", text)
        assert bool(with_distance) == (size == "120x40"), text  # 80 columns: ✗N alone, 120: ✗N 0.56
        # both sides size their cells alike: the columns line up
        left, right = app.screen.views
        assert left.table.layout_columns() == right.table.layout_columns()




@pytest.fixture
def meps(tmp_path) -> dict:
    """400 MEPS transactions disassociated (k=3, m=2, clusters of at most 30), its key, and
    seeded random similarities over every pair of its items."""
    import numpy as np

    from semtui.anonymize.disassociation import disassociate
    from semtui.formats import read_transactions
    from semtui.formats.disassociated import write_disassociated, write_key

    original = SAMPLES / "meps400-original.txt"
    result = disassociate(read_transactions(original), 3, 2, 30)
    paths = {"data": tmp_path / "meps.json", "key": tmp_path / "meps.key.json", "original": original,
             "scores": tmp_path / "meps-scores.csv"}
    write_disassociated(result.data, paths["data"])
    write_key(result.key, paths["key"])
    items = result.data.vocab.items
    rng = np.random.default_rng(7)
    paths["scores"].write_text("a,b,similarity\n" + "".join(f"{a},{b},{rng.random():.3f}\n" for i, a in enumerate(items)
                                                            for b in items[i + 1:]))
    return paths


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.slow
async def test_cover_problems_never_cut_a_support_or_the_covered_item(size, meps):
    from semtui.tui.components.problems import supports_text

    app = app_for(meps["data"], key=meps["key"], original=meps["original"])
    async with app.run_test(size=SIZES[size]) as pilot:
        await run_from_form(pilot, "p")
        await pilot.press("x", "x")  # every problem of the release
        await pilot.pause()
        view = app.screen.problems_view
        assert view.row_count
        problems = [view.problem(r) for r in range(view.row_count)]
        widths = {view.columns[c].key: w for c, w in view.layout_columns()}
        assert "covered" in widths and "x" in widths
        if "supports" in widths:  # on screen whole, or left out — never in part
            assert widths["supports"] >= max(len(supports_text(p)) for p in problems)
        if size == "120x40":
            assert "supports" in widths
        text = screen_text(app)
        for p in problems[:5]:  # x's chunk and support are whole on its row
            assert f"({p.chunk_label or 'C' + str(p.chunk)}, {p.support_x})" in text, text  # its one name
        # and x's name keeps X_NAME_LEAST cells beside them (at 80 columns it kept 1: "s… (J1/S1, 15)")
        from semtui.tui.components.problems import X_NAME_LEAST

        x_col = next(c for c, _ in view.layout_columns() if view.columns[c].key == "x")
        for r in range(min(view.row_count, 5)):
            p = view.problem(r)
            tail = len(view.cell_text(r, x_col)) - len(p.x)  # " (J1/S1, 15)"
            assert widths["x"] - tail >= min(X_NAME_LEAST, len(p.x)), (widths, view.cell_text(r, x_col))


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.slow
async def test_the_reconstruction_keeps_its_wrongly_added_items_on_screen(size, meps):
    app = app_for(meps["data"], key=meps["key"], original=meps["original"])
    async with app.run_test(size=SIZES[size]) as pilot:
        await run_from_form(pilot, "a", measure=f"scores:{meps['scores']}")
        assert app.session.result.kind == "reassociation"
        assert any("accuracy " in n.message for n in app._notifications)
        import re

        for n in app._notifications:  # a sane precision: accuracy 0.248, never 0.248155
            for v in re.findall(r"(?:accuracy|breakage) (\d\.\d+)", n.message):
                assert len(v) <= 5, n.message
        screen, lst = app.screen, app.screen.list_pane
        # the cluster with the most wrongly added items
        from semtui.attacks.reassociation import reconstructed_transactions

        best, most = 0, -1
        for c, entry in enumerate(app.session.result.report.clusters):
            anchors = entry.anchor_transactions or []
            idx = screen.detail.cluster_index
            wrong = 0
            for a, rec in enumerate(reconstructed_transactions(entry)):
                orig = set(idx.original_items(anchors[a]) or []) if a < len(anchors) else set()
                wrong += sum(1 for x in rec if x not in orig)
            if wrong > most:
                best, most = c, wrong
        assert most > 0
        lst.move_to(int((lst.order == best).argmax()))
        await pilot.press("b")
        await pilot.pause()
        table = screen.detail
        layout = table.layout_columns()
        from semtui.tui.components.cells import cell_text, keep_ranges
        from semtui.tui.text import fit

        col = [c for c, _ in layout].index(1)
        for r in range(table.row_count):
            cell = table._getter(r)[1]
            if getattr(cell, "keep", None):
                shown = fit(cell_text(cell), layout[col][1], keep_ranges(cell, cell_text(cell))).plain
                assert "✗" in shown, (cell.plain, shown)


async def test_words_take_their_plural_and_a_random_method_names_no_measure():
    app = app_for(SAMPLES / "disassociated.json", key=SAMPLES / "disassociated.key.json",
                  original=SAMPLES / "disassociated-original.txt")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        data = app.session.data
        one = next((c for c, cl in enumerate(data.clusters) if len(cl.record_chunks) == 1), None)
        if one is not None:
            screen.list_pane.move_to(int((screen.list_pane.order == one).argmax()))
            await pilot.pause()
            assert "1 record chunk ·" in screen.detail.border_subtitle
        screen.start_job_for("reassociation", {"method": "ra", "measure": "embedding", "background": None, "k": None,
                                               "term_placements": None, "seed": 0, "ties": None, "vectors": None,
                                               "jobs": 1})
        assert screen.job_title == "ra/random, no measure"
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "embedding" not in notices(app)


# ---------------------------------------------------------------- 10. silent dead ends
@pytest.mark.parametrize("size", SIZES)
async def test_x_before_an_attack_says_why_it_shows_nothing(size):
    app = app_for(SETGEN)
    async with app.run_test(size=SIZES[size], notifications=True) as pilot:
        await pilot.press("x")
        await pilot.pause()
        assert "no attack yet" in notices(app)
        # the toast stands clear of the panes' bottom borders, where their counts are
        from textual.widgets._toast import Toast

        await pilot.pause(0.2)
        toast = app.screen.query_one(Toast)
        for pane in (app.screen.list_pane, app.screen.switcher):
            assert not (toast.region.y <= pane.region.bottom - 1 < toast.region.bottom), (toast.region, pane.region)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.slow
async def test_the_form_says_before_a_run_when_the_measure_knows_none_of_the_items(size, tmp_path):
    ids = tmp_path / "ids.txt"  # a release of ids, like BMS-WebView
    ids.write_text("10311, 10315, (55403, 55407, 55411)\n10315, (55403, 55407, 55411)\n"
                   "10319, (55403, 55407, 55411), 10311\n")
    words = tmp_path / "counts.csv"  # counts of words: none of the ids has one
    words.write_text("N,1000\nheart,40\nlung,30\nheart,lung,12\n")
    app = app_for(ids)
    app.attack_defaults = {"measure": f"counts:{words}"}
    async with app.run_test(size=SIZES[size]) as pilot:
        await pilot.press("a")
        await app.workers.wait_for_complete()
        await pilot.pause()
        note = str(app.screen.query_one("#note").render())
        assert "knows none of the release's 6 items" in note and "ids" in note and "background" in note
        assert app.screen.query_one("#note").region.y < app.screen.query_one("#method").region.y
        # a background attacks every row: the warning goes
        app.screen.query_one("#background").value = str(ids)
        app.screen.check_measure()
        await pilot.pause()
        assert str(app.screen.query_one("#note").render()) == ""


@pytest.mark.slow
async def test_the_reassociation_form_warns_too_and_not_for_methods_that_use_no_measure(tmp_path):
    from semtui.anonymize.disassociation import disassociate
    from semtui.formats import read_transactions
    from semtui.formats.disassociated import write_disassociated

    ids = tmp_path / "ids.txt"
    ids.write_text("".join(f"{10311 + i % 5}, {20311 + i % 3}, {30311 + i % 2}\n" for i in range(12)))
    write_disassociated(disassociate(read_transactions(ids), 2, 2, 30).data, tmp_path / "ids.json")
    counts = tmp_path / "counts.csv"
    counts.write_text("N,1000\nheart,40\nlung,30\nheart,lung,12\n")
    app = app_for(tmp_path / "ids.json")
    async with app.run_test(size=(80, 24)) as pilot:
        app.screen.attack_values = {"reassociation": {"measure": f"counts:{counts}"}}
        await pilot.press("a")
        await app.workers.wait_for_complete()
        await pilot.pause()
        form = app.screen
        assert isinstance(form, DisassocForm)
        assert "knows none" in str(form.query_one("#note").render()) and "nba" in str(form.query_one("#note").render())
        form.query_one("#method").value = "ra"  # random placement uses no measure: nothing to warn about
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert str(form.query_one("#note").render()) == ""
