"""Words once (issue 36, part 4): the TUI and the CLI word every figure of a release the same
way, each sentence, label and name made once by the engine.  One test per symptom the issue
lists, each failing on the code before it: compare with different knowledge, ``A`` against
``semtui assess``, one chunk name in every view, "exposed" against "re-identified", the ``vuln``
column, result names, the experiment's not-modelled notes, "how sure" and the records at risk."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest
from conftest import SAMPLES, run_cli, write_fig4_scores

from semtui import reports
from semtui.tui.app import SemtuiApp, document_screen
from semtui.tui.session import Result, load_session

MEPS_SETGEN = SAMPLES / "meps400-setgen.txt"
MEPS_ORIGINAL = SAMPLES / "meps400-original.txt"


def _text(app) -> str:
    """What a person reads on the terminal now."""
    from rich.console import Console

    console = Console(file=io.StringIO(), width=app.size.width, color_system=None, record=True)
    console.print(app.screen._compositor.render_update(full=True))
    return console.export_text()


def _flat(app) -> str:
    return " ".join(_text(app).split())


def _gba(background: str | None) -> dict:
    """GBA on the bundled MEPS sample, with or without a background (the original's own
    population: the strongest attacker there is)."""
    from semtui import formats
    from semtui.attacks.setgen import AttackOptions, run_setgen_attack

    return run_setgen_attack(formats.read(MEPS_SETGEN), formats.read_transactions(MEPS_ORIGINAL),
                             AttackOptions(method="gba", measure="embedding", background=background),
                             data_path=MEPS_SETGEN, original_path=MEPS_ORIGINAL).to_json()


@pytest.fixture(scope="module")
def gba_pair() -> tuple[dict, dict]:
    return _gba(str(MEPS_ORIGINAL)), _gba(None)


# --------------------------------------------------------------------------- 1. compare
async def test_compare_names_the_knowledge_and_lines_up_rows_by_transaction(tmp_path, gba_pair):
    """GBA with a background against GBA without: each side names its background and knowledge
    (not "same options"), the cells are compared on the same transaction's row (not "0 differ"),
    and the cursors stand on the same transaction (not L12 beside L3)."""
    from semtui.tui.components.distance import DistanceView
    from semtui.tui.screens.compare import CompareScreen

    with_bg, without = gba_pair
    path = tmp_path / "gba-bg.json"
    path.write_text(reports.dumps(with_bg))
    session = load_session(MEPS_SETGEN, original=MEPS_ORIGINAL, report=path)
    session.add_result(Result(without, "run"))
    # a group whose rows differ: the background scores rows the measure alone cannot
    label = next(a["generalised_item"] for a, b in zip(with_bg["groups"], without["groups"])
                 if [r["line"] for r in a["rows"]] != [r["line"] for r in b["rows"]])
    app = SemtuiApp(session)
    app.animation_level = "none"
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.pause()
        app.push_screen(CompareScreen(session, label))
        await pilot.pause()
        screen = app.screen
        left, right = screen.query_one("#left", DistanceView), screen.query_one("#right", DistanceView)
        assert "same options" not in str(left.border_title) + str(right.border_title)
        assert "background=none" in str(left.border_title) and "knowledge" in str(right.border_title)
        assert "background=meps400-original.txt" in str(right.border_title)
        # the differing cells, counted on the rows both attacks score
        grp = {g["generalised_item"]: g for g in without["groups"]}[label]
        gbg = {g["generalised_item"]: g for g in with_bg["groups"]}[label]
        ta = [r["transaction"] for r in grp["rows"]]
        tb = [r["transaction"] for r in gbg["rows"]]
        ea = {(ta[e["row"]], e["column"]) for e in grp["eliminations"]}
        eb = {(tb[e["row"]], e["column"]) for e in gbg["eliminations"]}
        want = {(t, j) for t, j in ea ^ eb if t in set(ta) & set(tb)}
        assert want, "the two attacks differ on this group"
        assert screen.sub_title.startswith(f"{len(want):,} differ")
        assert "only" in screen.sub_title  # the rows one side alone scores are said
        assert len(left.differs) == len(right.differs) == len(want)
        # every row of the left: the right cursor on the same transaction
        rows_l, rows_r = grp["rows"], gbg["rows"]
        checked = 0
        for i in range(min(len(rows_l), 12)):
            left.table.move_to(i)
            await pilot.pause()
            t = rows_l[left.row_index(left.table.cursor_row)]["transaction"]
            if t in tb:
                assert rows_r[right.row_index(right.table.cursor_row)]["transaction"] == t
                checked += 1
        assert checked >= 2


# --------------------------------------------------------------------------- 2. A = semtui assess
async def test_A_runs_the_assessment_semtui_assess_runs_with_the_same_knowledge(tmp_path, monkeypatch):
    """The session ran an attack with a background: ``A`` assesses with that background and
    that measure, and names the same strongest attack, with the same figures, as
    ``semtui assess --background --measure`` on the same files."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SEMTUI_CACHE_DIR", str(tmp_path / "cache"))
    write_fig4_scores(tmp_path / "fig4.csv")
    for name in ("medical-setgen.txt", "medical-original.txt"):
        shutil.copy(SAMPLES / name, tmp_path / name)
    shutil.copy(SAMPLES / "medical-original.txt", tmp_path / "bg.txt")
    from semtui import formats
    from semtui.attacks.setgen import AttackOptions, run_setgen_attack

    ran = run_setgen_attack(formats.read("medical-setgen.txt"), formats.read_transactions("medical-original.txt"),
                            AttackOptions(method="pba", measure="scores:fig4.csv", background="bg.txt"),
                            data_path="medical-setgen.txt", original_path="medical-original.txt").to_json()
    session = load_session(Path("medical-setgen.txt"), original=Path("medical-original.txt"))
    session.add_result(Result(ran, "run"))
    app = SemtuiApp(session)
    app.animation_level = "none"
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("A")
        for _ in range(2400):  # the assessment and its alternatives: seconds, up to a minute or two under load
            await pilot.pause(0.05)
            if type(app.screen).__name__ == "AssessmentScreen":
                break
        screen = app.screen
        assert type(screen).__name__ == "AssessmentScreen"
        tui = screen.doc
        r = run_cli("assess", "medical-setgen.txt", "--original", "medical-original.txt", "--measure",
                    "scores:fig4.csv", "--background", "bg.txt", "--json", cwd=tmp_path,
                    env={"SEMTUI_CACHE_DIR": str(tmp_path / "cache")})
        assert r.returncode == 0, r.stderr
        cli = json.loads(r.stdout)
        assert (tui["background"], tui["measures"]) == (cli["background"], cli["measures"]) == \
            ("bg.txt", ["scores:fig4.csv"])
        assert [a["attack"] for a in tui["attacks"]] == [a["attack"] for a in cli["attacks"]]
        assert tui["strongest"]["attack"] == cli["strongest"]["attack"]
        assert tui["strongest"]["command"] == cli["strongest"]["command"]
        assert tui["strongest"]["figures"] == cli["strongest"]["figures"]
        assert tui["verdict"] == cli["verdict"] and tui["how_sure"] == cli["how_sure"]
        assert tui["not_modelled"] == cli["not_modelled"]
        # what it was given, on screen
        assert "The attackers were given the measure scores:fig4.csv and the background bg.txt." in \
            " ".join(str(screen.sure_text()).split())


# --------------------------------------------------------------------------- 3. the knowledge sentence
async def test_the_knowledge_sentence_under_the_table_is_made_from_the_table(tmp_path, gba_pair):
    """A report written by the older rule says "meaning and co-occurrence add nothing" under a
    table whose background row takes back more than the prior's: the summary words it again from
    the table's own numbers."""
    with_bg, _ = gba_pair
    doc = json.loads(json.dumps(with_bg))
    kn = doc["metrics"]["knowledge"]
    # the table: the prior ranks best, the background takes back twice as much
    kn["prior"].update(recall=0.173, auc_within_table=0.99)
    kn["background"].update(recall=0.355)
    doc["metrics"]["carried_by"] = ["carried by how common each item is (AUC within table 0.990); meaning and "
                                    "co-occurrence add nothing on this data"]
    path = tmp_path / "old.json"
    path.write_text(reports.dumps(doc))
    app = SemtuiApp(load_session(MEPS_SETGEN, original=MEPS_ORIGINAL, report=path))
    app.animation_level = "none"
    async with app.run_test(size=(160, 60)) as pilot:
        await pilot.pause()
        from rich.console import Console

        from semtui.tui.components.summary import SummaryPanel

        panel = app.screen.query_one(SummaryPanel)
        console = Console(file=io.StringIO(), width=200, color_system=None, record=True)
        console.print(panel.render_summary())
        text = " ".join(console.export_text().split())
        assert "0.355" in text and "0.173" in text  # the table
        assert "add nothing" not in text
        top = max(("background", "combined"), key=lambda v: kn[v]["recall"])  # the combined table: 44%
        assert f"takes back more ({kn[top]['recall']:.0%} of the added items against 17%)" in text


# --------------------------------------------------------------------------- 4. one name per chunk
def _joint_release(tmp_path: Path):
    from semtui.anonymize.disassociation import disassociate
    from semtui.formats.disassociated import write_disassociated, write_key
    from semtui.model import TransactionData

    rows = [["a", "z"], ["a", "w"], ["a"], ["b", "z"], ["b", "w"], ["b"]]
    original = tmp_path / "o.txt"
    original.write_text("\n".join(",".join(r) for r in rows) + "\n")
    r = disassociate(TransactionData.from_lists(rows), 2, 2, 3, joint_max_size=6)
    data, key = tmp_path / "r.json", tmp_path / "r.key.json"
    write_disassociated(r.data, data)
    write_key(r.key, key)
    return data, key, original


def _cover_report(labels: bool):
    """A strong attacker's cover report on :func:`_joint_release` (as the TUI holds it: typed,
    read from its document): one breach whose x is in the shared chunk J1/S1 (cluster P1's second
    chunk), covering a of C1; 14 breaches in that chunk (a shared chunk's count runs over its
    joint cluster) in a cluster of 3.  Without ``labels``, a report written before chunk labels."""
    from semtui.attacks.cover import CoverReport

    p = {"cluster": "P1", "chunk": 2, "earlier_chunk": 1, "x": "z", "support_x": 2, "covered": ["a"],
         "covering": [], "itemset": ["a"], "supports": {"a": 3}, "itemset_support": 3, "breach": True,
         "records": [{"transaction": 0, "line": 1, "holds_covered": True}]}
    if labels:
        p.update(chunk_label="J1/S1", earlier_label="C1")
    cl = [{"id": "P1", "size": 3, "record_chunks": 1, "shared_chunks": 1, "cover_problems": 1, "breaches": 14,
           "breaches_per_chunk": [0, 14], "vulnerable_records": 14},
          {"id": "P2", "size": 3, "record_chunks": 1, "shared_chunks": 1, "cover_problems": 0, "breaches": 0,
           "breaches_per_chunk": [0, 0], "vulnerable_records": 0}]
    return CoverReport.from_json(
        {"format": "semtui-cover-report/1", "attacker": "strong", "clusters": cl, "cover_problems": [p],
         "summary": {"cover_problems": 1, "breaches": 14, "vulnerable_records": 14, "clusters_with_breaches": 1,
                     "real_pairs": 0, "transactions": 6}})


@pytest.mark.parametrize("labels", [True, False], ids=["labelled", "older-report"])
async def test_one_name_per_chunk_in_every_view(tmp_path, labels):
    """The shared chunk is J1/S1 in the chunks view, the cover list (x's chunk and I's), the
    problem's inspector and the records at risk; never C2 (its number among the cluster's chunks)."""
    from semtui.tui.components.problems import ProblemsView
    from semtui.tui.components.records import records_at_risk
    from semtui.tui.screens.disassociated import DisassociatedScreen

    data, key, original = _joint_release(tmp_path)
    session = load_session(data, key=key, original=original)
    session.add_result(Result(_cover_report(labels), "run"))
    app = SemtuiApp(session)
    app.animation_level = "none"
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, DisassociatedScreen)
        assert [c.label for c in screen.detail.columns][:2] == ["C1 (3)", "J1/S1 (6)"]
        pv = screen.query_one(ProblemsView)
        pv.all_clusters = True
        pv.show(screen.detail.cluster_index, 0)
        cells = [c.plain if hasattr(c, "plain") else str(c) for c in pv._getter(0)]
        assert cells[1] == "z (J1/S1, 2)" and "C1" in cells
        _, body = screen.inspect_focused(pv)
        assert "in J1/S1" in body.plain and "I in C1" in body.plain and "C2" not in body.plain
        rows = records_at_risk(session)
        assert rows and rows[0]["what"] == "z (J1/S1) with a (C1)"
        assert all("C2" not in str(c) for c in cells)


# --------------------------------------------------------------------------- 5. exposed vs re-identified
@pytest.fixture
def assessed(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SEMTUI_CACHE_DIR", str(tmp_path / "cache"))
    write_fig4_scores(tmp_path / "fig4.csv")
    for name in ("medical-setgen.txt", "medical-original.txt"):
        shutil.copy(SAMPLES / name, tmp_path / name)
    r = run_cli("assess", "medical-setgen.txt", "--original", "medical-original.txt", "--measure", "scores:fig4.csv",
                "--no-alternatives", "--report", "a.json", cwd=tmp_path,
                env={"SEMTUI_CACHE_DIR": str(tmp_path / "cache")})
    assert r.returncode == 0, r.stderr
    return tmp_path


def _doc_app(path: Path) -> SemtuiApp:
    app = SemtuiApp(None, document=document_screen(None, report=path))
    app.animation_level = "none"
    return app


async def test_no_item_exposed_is_never_said_beside_re_identified_records(assessed):
    doc = json.loads((assessed / "a.json").read_text())
    assert any(r.get("reidentified") for r in doc["records_at_risk"])
    (assessed / "b.json").write_text(reports.dumps({**doc, "items_exposed": []}))
    app = _doc_app(assessed / "b.json")
    async with app.run_test(size=(140, 30)) as pilot:
        await pilot.pause()
        await pilot.press("3")
        await pilot.pause()
        text = _flat(app)
        assert "no item is exposed" not in text
        n = sum(1 for r in doc["records_at_risk"] if r.get("reidentified"))
        assert f"{n:,} records have a generalised item re-identified" in text


# --------------------------------------------------------------------------- 6. the vuln column
async def test_the_cover_column_is_named_for_what_it_counts(tmp_path):
    """14 breaches in the shared chunk of a cluster of 3: the column does not call them the
    cluster's vulnerable records."""
    from semtui.wording import MOST_BREACHES_LABEL

    data, key, original = _joint_release(tmp_path)
    session = load_session(data, key=key, original=original)
    session.add_result(Result(_cover_report(True), "run"))
    app = SemtuiApp(session)
    app.animation_level = "none"
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        lst = app.screen.list_pane
        labels = {c.key: c.label for c in lst.columns}
        shown = [str(c) for c in lst.source.cells(0, lst.columns)]
        size = int(shown[[c.key for c in lst.columns].index("size")])
        value = int(shown[[c.key for c in lst.columns].index("vulnerable")])
        assert value > size  # the case: 14 in a cluster of 3
        assert labels["vulnerable"] == MOST_BREACHES_LABEL and "vuln" not in labels["vulnerable"]
        assert "exceed the cluster's size" in app.screen.list_pane.tooltip
        # the cluster's own cover problems say it too
        from semtui.tui.components.problems import ProblemsView

        pv = app.screen.query_one(ProblemsView)
        pv.all_clusters = False
        pv.show(app.screen.detail.cluster_index, 0)
        assert "14 breaches, at most 14 in one chunk (more than its 3 records" in pv.border_subtitle


# --------------------------------------------------------------------------- 7. result names
def test_a_result_name_says_its_measure_and_its_knowledge(gba_pair):
    with_bg, without = gba_pair
    named, plain = Result(with_bg, "run").label, Result(without, "run").label
    assert named != plain
    assert named.startswith("gba/embedding") and "meps400-original.txt" in named and with_bg["knowledge"] in named
    assert plain == "gba/embedding"


# --------------------------------------------------------------------------- 8. the experiment's notes
async def test_the_experiment_screen_says_which_attackers_were_not_modelled(tmp_path):
    from semtui.tui.documents import read_experiment
    from semtui.tui.screens.experiment import ExperimentScreen

    src = Path(__file__).parent / "data" / "results.jsonl"
    cells = [json.loads(line) for line in src.read_text().splitlines()]
    for c in cells:  # as semtui experiment writes them: the inputs every cell was assessed with
        c["inputs"] = {"original": "o.txt", "background": None, "corpus": None, "measures": ["embedding"]}
    path = tmp_path / "results.jsonl"
    path.write_text("\n".join(json.dumps(c) for c in cells) + "\n")
    app = SemtuiApp(None, document=ExperimentScreen(read_experiment(path)))
    app.animation_level = "none"
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.pause()
        text = _flat(app)
        assert "Not modelled (not in the risk): the attacker who knows how common each item is" in text
        from semtui.tui.screens.experiment import not_modelled_text

        assert "unknown for 6 of 6 cells" in not_modelled_text([json.loads(line) for line in src.read_text().splitlines()])


# --------------------------------------------------------------------------- 9. how sure, records, once
async def test_how_sure_and_the_records_are_worded_alike_by_both_faces(assessed):
    """The CLI's summary and the assessment screen say "how sure" in the same words, and the same
    records at risk with the same words."""
    from semtui.wording import how_sure_text, record_clauses, record_words

    r = run_cli("assess", "medical-setgen.txt", "--original", "medical-original.txt", "--measure", "scores:fig4.csv",
                "--no-alternatives", cwd=assessed, env={"SEMTUI_CACHE_DIR": str(assessed / "cache")})
    assert r.returncode == 0, r.stderr
    doc = json.loads((assessed / "a.json").read_text())
    sure = f"How sure: {how_sure_text(doc)}"
    cli = " ".join(r.stdout.split())
    assert sure in cli
    app = _doc_app(assessed / "a.json")
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.pause()
        assert sure in _flat(app)
        await pilot.press("2")
        await pilot.pause()
        text = _flat(app)
        first = doc["records_at_risk"][0]
        # the same words: one line in the CLI, one clause a line on the screen (issue 38)
        assert record_words(first) in cli and all(c in text for c in record_clauses(first))


def test_the_tui_imports_no_private_engine_name_and_holds_no_import_circle():
    """No face imports a private engine name (``_beats_chance``, ``_rank``); no import circle in
    semtui/tui (imports inside functions counted)."""
    import ast

    import semtui

    tui = Path(semtui.__file__).parent / "tui"
    private, graph = [], {}
    mods = {}
    for p in tui.rglob("*.py"):
        name = ".".join(p.relative_to(tui.parent.parent).with_suffix("").parts).removesuffix(".__init__")
        mods[name] = p
    for name, p in mods.items():
        graph[name] = set()
        for n in ast.walk(ast.parse(p.read_text())):
            if isinstance(n, ast.ImportFrom) and n.module and n.module.startswith("semtui"):
                private += [f"{name}: {n.module}.{a.name}" for a in n.names
                            if a.name.startswith("_") and not n.module.startswith("semtui.tui")]
                for target in (n.module, *(f"{n.module}.{a.name}" for a in n.names)):
                    if target in mods and target != name:
                        graph[name].add(target)
    assert not private, private

    def reach(start: str) -> set[str]:
        seen, todo = set(), [start]
        while todo:
            for nxt in graph[todo.pop()]:
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen

    circles = sorted(m for m in graph if m in reach(m))
    assert not circles, circles


async def test_a_disassociated_releases_items_are_put_back_not_exposed_in_both_faces(tmp_path, monkeypatch):
    """What a re-association puts back is not exposure: the CLI's summary and the items view
    name it the same way, and the records at risk in the same words."""
    from semtui.wording import items_heading, record_words

    monkeypatch.chdir(tmp_path)
    for name in ("disassociated.json", "disassociated.key.json", "disassociated-original.txt"):
        shutil.copy(SAMPLES / name, tmp_path / name)
    r = run_cli("assess", "disassociated.json", "--key", "disassociated.key.json", "--original",
                "disassociated-original.txt", "--no-alternatives", "--report", "d.json", cwd=tmp_path,
                env={"SEMTUI_CACHE_DIR": str(tmp_path / "cache")})
    assert r.returncode == 0, r.stderr
    doc = json.loads((tmp_path / "d.json").read_text())
    assert doc["items_exposed"] and doc["records_at_risk"]
    heading = items_heading(doc)
    assert heading == "Items most often put back with their record"
    cli = " ".join(r.stdout.split())
    assert f"{heading}:" in cli and "most often exposed" not in cli
    app = _doc_app(tmp_path / "d.json")
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.pause()
        await pilot.press("3")
        await pilot.pause()
        assert app.screen.query_one("#items").border_title == heading
        text = _flat(app)
        assert "items put back" in text and "items exposed" not in text
        await pilot.press("2")
        await pilot.pause()
        first = record_words(doc["records_at_risk"][0])
        assert first in _flat(app) and first in cli
