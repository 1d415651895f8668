"""`attack setgen` over a dataset: Fig. 4 of the paper reproduced end to end, contexts,
aggregation, metrics, outputs and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from conftest import paused_at, run_attack, wait_paused
from hypothesis import given, settings
from hypothesis import strategies as st

from semtui import formats
from semtui.attacks.setgen import (
    AggregateSpec,
    ContextSpec,
    aggregate_table,
    attacked_dataset,
    contexts_for_group,
    load_report,
)
from semtui.errors import InputError, Interrupted
from semtui.metrics.elimination import auc
from semtui.model import TransactionData

ROWS = ["heart disease", "anesthesia", "gangrene", "knee"]
COLS = ["blood pressure", "icd", "limbs", "injury"]
FIG4 = [[0.56, 0.78, 1.57, 2.19], [1.75, 0.58, 1.74, 1.53], [2.60, 2.93, 1.78, 1.49], [1.60, 1.51, 1.89, 1.03]]
ORIGINAL_ITEMS = {"heart disease": {"blood pressure", "icd"}, "anesthesia": {"icd"}, "gangrene": {"limbs", "injury"},
                  "knee": {"injury"}}


@pytest.fixture
def fig4(tmp_path):
    """A release whose single equivalence group has Fig. 4 as its distance table: each
    transaction has one context item and ``scores:`` gives the figure's values."""
    data = tmp_path / "fig4.txt"
    data.write_text("".join(f"{r}, ({', '.join(COLS)})\n" for r in ROWS))
    scores = tmp_path / "fig4.csv"
    scores.write_text("a,b,distance\n" + "".join(
        f"{r},{c},{FIG4[i][j]}\n" for i, r in enumerate(ROWS) for j, c in enumerate(COLS)))
    original = tmp_path / "fig4-original.txt"
    original.write_text("".join(", ".join([r, *sorted(ORIGINAL_ITEMS[r])]) + "\n" for r in ROWS))
    return data, scores, original


def attack(fig4, method, **kw):
    data, scores, original = fig4
    return run_attack(formats.read(data), formats.read(original), method=method,
                             measure=f"scores:{scores}", **kw)


def cells(group):
    return [(ROWS[e["row"]], e["item"]) for e in group["eliminations"]]


def test_table_is_fig4(fig4):
    report = attack(fig4, "mda")
    assert report["groups"][0]["table"] == FIG4
    assert report["groups"][0]["density"] == 0.375


def test_gba_reproduces_fig6(fig4):
    g = attack(fig4, "gba")["groups"][0]
    assert g["threshold"] == pytest.approx(0.445, abs=5e-4)
    assert cells(g) == [("gangrene", "icd"), ("gangrene", "blood pressure"), ("anesthesia", "limbs"),
                        ("anesthesia", "blood pressure"), ("heart disease", "injury")]
    assert g["eliminations"][0]["vulnerability"] == pytest.approx(0.799, abs=5e-4)
    assert g["metrics"]["precision"] == 1.0 and g["metrics"]["recall"] == 0.5


def test_rba_leaves_exactly_the_original_items(fig4):
    report = attack(fig4, "rba")
    g = report["groups"][0]
    assert len(g["eliminations"]) == 10
    left = {r: set(COLS) for r in ROWS}
    for row, item in cells(g):
        left[row].discard(item)
    assert left == ORIGINAL_ITEMS
    m = report["metrics"]
    assert (m["eliminated"], m["added"], m["correct"], m["precision"], m["recall"], m["f1"]) == (10, 10, 10, 1.0, 1.0, 1.0)
    assert g["possible"] == {"blood pressure": 1, "icd": 2, "limbs": 1, "injury": 2}
    assert g["exposed"] == COLS  # k = 4: every member now covers fewer than 4 transactions


def test_wba_threshold_and_count(fig4):
    g = attack(fig4, "wba")["groups"][0]
    assert g["threshold"] == pytest.approx(0.898, abs=5e-4)
    assert len(g["eliminations"]) == 4


def test_ra_is_reproducible_with_a_seed(fig4):
    a = attack(fig4, "ra", seed=7)
    b = attack(fig4, "ra", seed=7)
    assert cells(a["groups"][0]) == cells(b["groups"][0])


def test_auc_of_fig4(fig4):
    # 10 added cells vs 6 original ones, counted by hand from Fig. 4
    added = [FIG4[i][j] for i, r in enumerate(ROWS) for j, c in enumerate(COLS) if c not in ORIGINAL_ITEMS[r]]
    orig = [FIG4[i][j] for i, r in enumerate(ROWS) for j, c in enumerate(COLS) if c in ORIGINAL_ITEMS[r]]
    expected = sum((a > o) + 0.5 * (a == o) for a in added for o in orig) / (len(added) * len(orig))
    assert attack(fig4, "mda")["metrics"]["auc"] == pytest.approx(expected)
    assert auc(np.array([1.0, 2.0]), np.array([1.0])) == 0.75


def test_contexts_all_and_nearest():
    data = TransactionData.from_lists([
        ["a", "b", ["x", "y"], "c", "d", "e"],
        [["x", "y"], "f", ["p", "q"], "h"],
        [["x", "y"]],
    ])
    rows, ptr, items = contexts_for_group(data, 0, ContextSpec.parse("all"))
    assert rows.tolist() == [0, 1, 2]
    assert [data.vocab.names(items[ptr[r]:ptr[r + 1]]) for r in range(3)] == [["a", "b", "c", "d", "e"], ["f", "h"], []]
    rows, ptr, items = contexts_for_group(data, 0, ContextSpec.parse("nearest:2"))
    # ties in distance go to the item on the left, as the thesis' example (heart disease, weakness)
    assert [data.vocab.names(items[ptr[r]:ptr[r + 1]]) for r in range(3)] == [["b", "c"], ["f", "h"], []]
    rows, ptr, items = contexts_for_group(data, 0, ContextSpec.parse("nearest:3"))
    assert data.vocab.names(items[ptr[0]:ptr[1]]) == ["a", "b", "c"]


def test_thesis_context_example():
    data = TransactionData.from_lists([["heart disease", ["blood pressure", "injury"], "weakness", "dizziness"]])
    _, _, items = contexts_for_group(data, 0, ContextSpec.parse("nearest:2"))
    assert data.vocab.names(items) == ["heart disease", "weakness"]


def test_aggregates():
    block = np.array([[1.0, 3.0, 2.0, 5.0], [4.0, 0.0, 1.0, 1.0]])  # 2 members x 4 context entries
    ptr = np.array([0, 3, 4])  # row 0: entries 0-2, row 1: entry 3
    assert aggregate_table(block, ptr, AggregateSpec.parse("mean")).tolist() == [[2.0, 5 / 3], [5.0, 1.0]]
    assert aggregate_table(block, ptr, AggregateSpec.parse("min")).tolist() == [[1.0, 0.0], [5.0, 1.0]]
    assert aggregate_table(block, ptr, AggregateSpec.parse("top:2")).tolist() == [[1.5, 0.5], [5.0, 1.0]]
    for bad in ("max", "top:0", "top:x"):
        with pytest.raises(InputError):
            AggregateSpec.parse(bad)
    for bad in ("some", "nearest:0", "nearest:"):
        with pytest.raises(InputError):
            ContextSpec.parse(bad)


def test_rows_without_context_are_reported_and_skipped(tmp_path):
    data = TransactionData.from_lists([["a", ["x", "y"]], [["x", "y"]], ["b", ["x", "y"]]])
    scores = tmp_path / "s.csv"
    scores.write_text("a,b,distance\na,x,0.1\na,y,0.9\nb,x,0.2\nb,y,0.8\n")
    report = run_attack(data, method="mda", measure=f"scores:{scores}")
    g = report["groups"][0]
    assert g["skipped"] == [1]
    assert [r["transaction"] for r in g["rows"]] == [0, 2]
    assert report["summary"]["skipped_rows"] == 1


@pytest.mark.slow
def test_attacked_output_and_report_round_trip(fig4, tmp_path, cli):
    data, scores, original = fig4
    out = tmp_path / "attacked.txt"
    rep = tmp_path / "report.json"
    result = cli("attack", "setgen", data, "--original", original, "--measure", f"scores:{scores}",
                 "--method", "rba", "--output", out, "--report", rep, "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["format"] == "semtui-setgen-report/1"
    assert load_report(rep)["metrics"] == report["metrics"]
    assert out.read_text().splitlines() == [
        "heart disease, (blood pressure, icd)", "anesthesia, icd", "gangrene, (limbs, injury)", "knee, injury"]
    again = attacked_dataset(formats.read(data), report)
    assert again.n_transactions == 4


@pytest.mark.slow
def test_human_summary(fig4, cli):
    data, scores, original = fig4
    result = cli("attack", "setgen", data, "--original", original, "--measure", f"scores:{scores}",
                 "--method", "gba", env={"NO_COLOR": "1", "COLUMNS": "120"})
    assert result.returncode == 0, result.stderr
    assert "GBA" in result.stdout and "precision" in result.stdout


def test_cancel_through_progress(fig4):
    data, scores, _ = fig4

    def stop(done, total, message):
        if message == "attacking":
            raise Interrupted()

    with pytest.raises(Interrupted):
        run_attack(formats.read(data), method="rba", measure=f"scores:{scores}", progress=stop)


@pytest.mark.parametrize("args,needle", [
    (["--method", "xyz"], "unknown method"),
    (["--context", "near"], "--context"),
    (["--aggregate", "median"], "--aggregate"),
])
@pytest.mark.slow
def test_bad_options(fig4, cli, args, needle):
    data, scores, _ = fig4
    result = cli("attack", "setgen", data, "--measure", f"scores:{scores}", *args)
    assert result.returncode == 2 and needle in result.stderr and "Traceback" not in result.stderr


@pytest.mark.slow
def test_bad_original_and_missing_pair(fig4, cli, tmp_path, samples):
    data, scores, _ = fig4
    short = tmp_path / "short.txt"
    short.write_text("a\nb\n")
    result = cli("attack", "setgen", data, "--original", short, "--measure", f"scores:{scores}")
    assert result.returncode == 2 and "line for line" in result.stderr and str(short) in result.stderr
    partial = tmp_path / "partial.csv"
    partial.write_text("a,b,distance\nknee,icd,1.0\n")
    result = cli("attack", "setgen", data, "--measure", f"scores:{partial}")
    assert result.returncode == 2 and "no score for the pair" in result.stderr
    result = cli("attack", "setgen", samples / "medical-original.txt", "--measure", f"scores:{scores}")
    assert result.returncode == 2 and "no generalised items" in result.stderr


def test_group_densities_match_the_attack_report(fig4, samples):
    from semtui.metrics.elimination import group_densities

    data, _, original = fig4
    assert group_densities(formats.read(data), formats.read(original)).tolist() == [0.375]
    d = TransactionData.from_lists([["a", ["x", "y"]], [["x", "y"], ["p", "q"]], ["b", ["p", "q"]]])
    o = TransactionData.from_lists([["a", "x"], ["x", "y", "q"], ["b", "p", "zz"]])
    assert group_densities(d, o).tolist() == [3 / 4, 2 / 4]


def test_an_original_that_does_not_align_is_refused(tmp_path):
    """Refused where the release is opened (semtui.release), naming the original's line."""
    from semtui.release import open_release

    rel = tmp_path / "r.txt"
    rel.write_text("a, (x, y)\nb, (x, y)\n")
    swapped = tmp_path / "swapped.txt"
    swapped.write_text("b, x\na, y\n")  # right items, wrong lines
    with pytest.raises(InputError, match="align line for line") as err:
        open_release(rel, original=swapped)
    assert err.value.line == 1 and str(err.value.path) == str(swapped)
    no_member = tmp_path / "no-member.txt"
    no_member.write_text("a, x\nb, z\n")  # line 2 holds no member
    with pytest.raises(InputError) as err:
        open_release(rel, original=no_member)
    assert err.value.line == 2


def test_a_row_whose_other_member_has_no_score_is_not_reidentified(tmp_path):
    # 'zz' has no score: it is never eliminated, so no row is reduced to one member
    d = TransactionData.from_lists([["a", ["x", "y", "zz"]], ["b", ["x", "y", "zz"]]])
    scores = tmp_path / "s.csv"
    scores.write_text("a,b,distance\na,x,0.1\na,y,0.9\nb,x,0.2\nb,y,0.8\n")
    from semtui.measures.scores import ScoresMeasure

    class Partial(ScoresMeasure):
        def unknown(self, terms):
            return [t for t in terms if t == "zz"]

        def _matrix(self, a, b):
            out = np.full((len(a), len(b)), np.nan)
            for i, x in enumerate(a):
                for j, y in enumerate(b):
                    if "zz" not in (x, y):
                        out[i, j] = self.pairs.get((x, y), 0.0)
            return out

    report = run_attack(d, method="tba", threshold=0.5, measure=Partial(scores))
    g = report["groups"][0]
    assert [e["item"] for e in g["eliminations"]] == ["y"]  # column y keeps one cell
    assert g["reidentified_rows"] == 0
    assert report["unknown_terms"] == ["zz"]


@pytest.mark.parametrize("args,needle", [
    (["--threshold", "inf"], "finite"),
    (["--method", "mda", "--threshold", "0.5"], "does not apply"),
    (["--method", "ra", "--seed", "-5"], "--seed"),
    (["--k", "0"], "--k"),
    (["--method", "gba", "--seed", "3"], "only applies"),
])
def test_bad_values_are_usage_errors(fig4, cli, args, needle):
    data, scores, _ = fig4
    result = cli("attack", "setgen", data, "--measure", f"scores:{scores}", *args)
    assert result.returncode == 2, result.stderr
    assert needle in result.stderr and "internal error" not in result.stderr


@pytest.mark.slow
def test_outputs_never_overwrite_inputs_or_each_other(fig4, cli, tmp_path):
    data, scores, original = fig4
    before = original.read_bytes(), data.read_bytes()
    for args in (["--report", original], ["--output", data], ["--output", scores],
                 ["--output", tmp_path / "x", "--report", tmp_path / "x"],
                 ["--output", tmp_path / "missing" / "x.txt"]):
        result = cli("attack", "setgen", data, "--original", original, "--measure", f"scores:{scores}", *args)
        assert result.returncode == 2, (args, result.stderr)
        assert len(result.stderr.strip().splitlines()) == 1
    assert (original.read_bytes(), data.read_bytes()) == before
    assert not (tmp_path / "x").exists()


@pytest.mark.slow
def test_ctrl_c_exits_130_and_writes_nothing(tmp_path):
    """SIGINT mid-run (stopped by the test hook at the progress point after the first group is
    attacked): exit 130, nothing on stdout, no output or temporary file left."""
    import os
    import signal
    import subprocess
    import sys

    data = tmp_path / "big.txt"
    with open(data, "w") as fh:
        for i in range(3000):
            fh.write(f"c{i % 50}, d{i % 7}, (m{i % 300}, m{(i + 1) % 300}, m{(i + 2) % 300})\n")
    out = tmp_path / "attacked.txt"
    marker = tmp_path / "paused"
    proc = subprocess.Popen([sys.executable, "-m", "semtui", "attack", "setgen", str(data), "--method", "rba",
                             "--output", str(out), "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=paused_at("attacking", marker, {**os.environ,
                                                                          "SEMTUI_CACHE_DIR": str(tmp_path / "cache")}))
    wait_paused(proc, marker)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert stdout == "" and "Traceback" not in stderr
    assert {p.name for p in tmp_path.iterdir()} - {"cache", "paused"} == {"big.txt"}


def test_cells_scored_only_by_never_co_occurring_pairs_are_marked(tmp_path):
    from semtui.corpus import build_index

    docs = tmp_path / "docs.txt"
    docs.write_text("\n".join(["heart pain"] * 5 + ["heart"] * 3 + ["zebra"] * 4 + ["pain"] * 2 + ["lung pain"] * 2) + "\n")
    index = tmp_path / "i.sqlite"
    build_index([docs], index, kind="lines")
    data = tmp_path / "d.txt"
    data.write_text("heart, (pain, zebra)\nheart, (pain, zebra)\nlung, (pain, zebra)\n")
    report = run_attack(formats.read(data), method="tba", measure=f"ngd:{index}", cache=False)
    grp = report["groups"][0]
    zebra = grp["members"].index("zebra")
    assert [r for r, c in grp["capped_cells"] if c == zebra] == [0, 1, 2]
    assert all(e["capped"] == (e["item"] == "zebra") for e in grp["eliminations"])
    assert report["summary"]["capped_eliminations"] == sum(e["capped"] for e in grp["eliminations"]) > 0
    # counted the same without the write-up (what an assessment's alternatives run)
    from semtui.attacks.setgen import AttackOptions, run_setgen_attack

    lean = run_setgen_attack(formats.read(data), None, AttackOptions(method="tba", measure=f"ngd:{index}", cache=False),
                             write_up=False).to_json()
    assert lean["summary"]["capped_eliminations"] == report["summary"]["capped_eliminations"]


@pytest.mark.slow
def test_figures_without_the_write_up_are_the_figures_with_it(samples):
    """``write_up=False`` (an assessment's alternatives, an experiment's cells) leaves every group's
    entry empty and every figure as it is: the main table's, the knowledge tables', the privacy's."""
    from semtui.attacks.setgen import AttackOptions, run_setgen_attack

    data, original = formats.read(samples / "meps400-setgen.txt"), formats.read(samples / "meps400-original.txt")
    opts = AttackOptions(method="pba", background=str(samples / "meps400-background.txt"))
    full = run_setgen_attack(data, original, opts).to_json()
    lean = run_setgen_attack(data, original, opts, write_up=False).to_json()
    assert any(g["eliminations"] for g in full["groups"]) and not any(lean["groups"])
    for doc in (full, lean):
        doc.pop("groups")
        doc["summary"].pop("seconds")
    assert lean == full and full["metrics"]["knowledge"]


def test_a_row_reduced_to_one_member_is_re_identified_only_when_that_member_is_its_own(fig4, tmp_path):
    """``reidentified_rows`` counts the attack's claims; with the original,
    ``reidentified_rows_correct`` the claims that name the row's own item (Fig. 4 under RBA:
    anesthesia and knee keep only icd and injury, their own), and on a real release each
    group's count is the direct one from its table, eliminations and ground truth."""
    rep = attack(fig4, "rba")
    assert rep["privacy"]["reidentified_rows"] == rep["privacy"]["reidentified_rows_correct"] == 2
    S = Path(__file__).resolve().parents[2] / "sample_data"
    doc = run_attack(formats.read(S / "meps400-setgen.txt"), formats.read(S / "meps400-original.txt"),
                     method="rba")
    total = 0
    for g in doc["groups"]:
        possible = np.ones((len(g["rows"]), len(g["members"])), dtype=bool)
        for e in g["eliminations"]:
            possible[e["row"], e["column"]] = False
        one = possible.sum(axis=1) == 1
        right = int((one & (possible & np.array(g["original"], dtype=bool)).any(axis=1)).sum())
        assert g["reidentified_rows_correct"] == right <= g["reidentified_rows"]
        total += right
    p = doc["privacy"]
    assert p["reidentified_rows_correct"] == total < p["reidentified_rows"]  # meps400: wrong reductions exist
    assert total > 0


def test_a_group_s_cost_counts_the_rows_that_reach_a_table():
    """The guide that balances groups across workers: a row with a context item can lose all
    its members but one (the eliminators' time goes by eliminations), a row without one costs
    next to nothing -- with the knowledge attack a generalised context item is a context too."""
    from dataclasses import replace

    from semtui.attacks.setgen.kernel import GroupUnit

    rows = np.arange(4)
    # rows 0 and 2 have plain context items, rows 1 and 3 none
    unit = GroupUnit(0, np.arange(5), rows, rows, np.array([0, 2, 2, 3, 3]), np.array([7, 8, 9]))
    assert unit.cost == 2 * 4 + 4
    # a group whose rows have no context costs its rows only, whatever its members
    bare = replace(unit, ctx_indptr=np.zeros(5, dtype=np.int64), ctx_items=np.zeros(0, dtype=np.int64))
    assert bare.cost == 4
    # the knowledge attack also scores row 3 by its generalised context
    informed = replace(unit, gctx_indptr=np.array([0, 0, 0, 0, 1]), gctx_items=np.array([11]))
    assert informed.cost == 3 * 4 + 4


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.sampled_from("abcdefg"), min_size=1, max_size=5, unique=True), min_size=2, max_size=12),
       st.integers(0, 2**16))
def test_densities_by_search_equal_the_sparse_product(rows, seed):
    """The group list's densities, found without scipy, are the sparse product's, and the two
    ways meet on every release (each row's items generalised in random groups)."""
    import random

    from semtui.metrics import elimination as em

    rnd = random.Random(seed)
    items = sorted({x for r in rows for x in r})
    rnd.shuffle(items)
    groups = [items[i:i + 3] for i in range(0, len(items), 3)]
    of = {x: tuple(sorted(g)) for g in groups if len(g) > 1 for x in g}
    released = []
    for r in rows:
        out, seen = [], set()
        for x in r:
            if x in of:
                if of[x] not in seen:
                    seen.add(of[x])
                    out.append(list(of[x]))
            else:
                out.append(x)
        released.append(out)
    data, original = TransactionData.from_lists(released), TransactionData.from_lists(rows)
    by_search = em._members_held_by_search(data, original)
    assert by_search is not None
    assert by_search.tolist() == em._members_held(data, original.incidence(data.vocab)).tolist()
    searched = em.group_densities(data, original)
    bounds = em.EXPAND_AT_MOST, em.EXPAND_FLOOR
    em.EXPAND_AT_MOST = em.EXPAND_FLOOR = 0   # every expansion too large: the sparse product
    try:
        assert em._members_held_by_search(data, original) is None or not (data.tokens < 0).any()
        np.testing.assert_array_equal(em.group_densities(data, original), searched)
    finally:
        em.EXPAND_AT_MOST, em.EXPAND_FLOOR = bounds


def test_the_methods_of_a_release_share_its_pooled_auc_and_interval_exactly():
    """The pooled AUC and its interval are the distances' (the same for every method of a
    release): a later method takes them from merge.POOLED, and they are the figures a run with an
    empty memo computes."""
    from semtui.attacks.setgen import merge

    samples = Path(__file__).resolve().parents[2] / "sample_data"
    release = formats.read_transactions(samples / "meps400-setgen.txt")
    original = formats.read_transactions(samples / "meps400-original.txt")

    def pooled(method):
        m = run_attack(release, original, method=method)["metrics"]
        return m["auc_pooled"], m["intervals"]["auc_pooled"], m["precision"]

    alone = {}
    for method in ("tba", "rba"):  # each with an empty memo: computed
        merge.POOLED._kept.clear()
        alone[method] = pooled(method)
    before = merge.POOLED.taken
    merge.POOLED._kept.clear()
    tba = pooled("tba")
    rba = pooled("rba")  # takes TBA's pooled figures: the same distances
    assert merge.POOLED.taken > before
    assert tba == alone["tba"] and rba[:2] == tba[:2] and rba == alone["rba"]
