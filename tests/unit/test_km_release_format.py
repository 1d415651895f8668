"""k^m releases first-class (issue 23, finding 1): the node format (formats/km.py), the km
report as the release's sidecar (model/sidecar.py), and ML²/dML² (metrics.utility.ml2,
issue 22)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from semtui import formats
from semtui.anonymize.hierarchy import problem_from_data, release
from semtui.errors import InputError
from semtui.formats.hierarchy import parse_hierarchy
from semtui.formats.km import dump_km
from semtui.metrics.utility import ml2
from semtui.model import TransactionData
from semtui.model.hierarchy import balanced

DATA = "a1, b1, b2\na2, b1\na2, b1, b2\na1, a2, b2\n"
HIER = "a1;A;ALL\na2;A;ALL\nb1;B;ALL\nb2;B;ALL\n"


def _files(tmp_path):
    (tmp_path / "d.txt").write_text(DATA)
    (tmp_path / "h.txt").write_text(HIER)
    return tmp_path / "d.txt", tmp_path / "h.txt"


def _generalise(data: TransactionData, h, nodes) -> TransactionData:
    """The release of ``data`` under the global cut of ``nodes`` (the anonymiser's writer)."""
    p = problem_from_data(data, h, 1, 1)
    cut = h.cut_from_nodes(nodes)
    return release(data, p, cut[p.leaves], h, "observed")


# ---------------------------------------------------------------- ML², the hand-worked example
def test_ml2_worked_example():
    """The paper gives no ML² number; worked by hand on Fig. 2's hierarchy with the cut {A}.
    Support 50% (2 of 4).  Level 1: {A}, {B}, {A,B} in both.  Level 2, the original: a1, a2,
    b1, b2, a1b2, a2b1, a2b2, b1b2 (8); the release hides A there, leaving b1, b2, b1b2 (3).
    ML² = 1 - 6/11; the 5 missed ones are all found one level up, as {A} or {A,B}: dML² =
    5/11, and 1 per missed itemset."""
    o = formats.text.parse_text(DATA, "d.txt")
    h = parse_hierarchy(HIER, "h.txt")
    r = _generalise(o, h, [h.node("A")])
    res = ml2(o, r, h, min_support=0.5)
    assert res["ml2"] == pytest.approx(5 / 11)
    assert res["dml2"] == pytest.approx(5 / 11) and res["dml2_missed"] == pytest.approx(1.0)
    assert [(x["level"], x["original"], x["release"]) for x in res["levels"]] == [(1, 3, 3), (2, 8, 3)]
    assert res["min_count"] == 2 and res["frequent_itemsets"] == 11
    # a leaf-list release (no node labels) is read at its members' lowest common ancestor: the same
    listed = formats.text.parse_text("(a1, a2), b1, b2\n(a1, a2), b1\n(a1, a2), b1, b2\n(a1, a2), b2\n", "r.txt")
    assert ml2(o, listed, h, min_support=0.5) == res
    # max_size caps the itemsets mined
    assert ml2(o, r, h, min_support=0.5, max_size=1)["levels"][1]["original"] == 4


def test_ml2_unbalanced_hierarchy_reads_a_level_as_a_depth():
    """x is a leaf at depth 1: at level 2 it stays itself; Y's leaves are at depth 2."""
    h = parse_hierarchy("x;ALL\ny1;Y;ALL\ny2;Y;ALL\n", "h.txt")
    o = formats.text.parse_text("x, y1\nx, y2\nx, y1\n", "d.txt")
    same = ml2(o, o, h, min_support=0.6)
    assert same["ml2"] == 0.0 and same["dml2"] == 0.0
    assert [(x["level"], x["original"]) for x in same["levels"]] == [(1, 3), (2, 3)]  # x, Y, xY; x, y1, x y1
    r = _generalise(o, h, [h.node("Y")])
    res = ml2(o, r, h, min_support=0.6)
    assert res["ml2"] == pytest.approx(2 / 6)  # y1 and {x, y1} hidden at level 2
    assert res["dml2_missed"] == pytest.approx(1.0)


def test_ml2_refuses_bad_parameters_and_foreign_items():
    o = formats.text.parse_text(DATA, "d.txt")
    h = parse_hierarchy(HIER, "h.txt")
    with pytest.raises(InputError, match="support threshold"):
        ml2(o, o, h, min_support=0)
    with pytest.raises(InputError, match="largest itemset"):
        ml2(o, o, h, max_size=0)
    other = parse_hierarchy("a1;A;ALL\na2;A;ALL\nb1;B;ALL\nc;B;ALL\n", "h2.txt")
    with pytest.raises(InputError, match="'b2' of the original is not in the hierarchy"):
        ml2(o, o, other)


@st.composite
def _cases(draw):
    n_items = draw(st.integers(4, 14))
    fanout = draw(st.integers(2, 4))
    items = [f"i{j}" for j in range(n_items)]
    rows = draw(st.lists(st.lists(st.sampled_from(items), min_size=1, max_size=6), min_size=3, max_size=25))
    h = balanced(items, fanout)
    internal = [v for v in range(h.n_nodes) if not h.is_leaf[v]]
    cut = draw(st.lists(st.sampled_from(internal), max_size=3))
    support = draw(st.sampled_from([0.1, 0.2, 0.34, 0.5]))
    return rows, h, cut, support


@settings(max_examples=40, deadline=None)
@given(_cases())
@pytest.mark.slow
def test_ml2_properties(case):
    rows, h, cut, support = case
    o = TransactionData.from_lists(rows)
    same = ml2(o, o, h, min_support=support)
    assert same["ml2"] in (0.0, None) and same["dml2"] in (0.0, None)
    r = _generalise(o, h, cut)
    res = ml2(o, r, h, min_support=support)
    if res["ml2"] is None:
        assert res["frequent_itemsets"] == 0
        return
    assert 0.0 <= res["ml2"] <= 1.0
    assert 0.0 <= res["dml2"] <= max(x["level"] for x in res["levels"])
    missed = sum(x["original"] - x["release"] for x in res["levels"])
    assert (res["dml2_missed"] >= 1.0) if missed else res["dml2_missed"] == 0.0
    for x in res["levels"]:
        assert 0 <= x["release"] <= x["original"]


# ---------------------------------------------------------------- the node format
def test_node_format_round_trip_and_leaf_lists_still_read(tmp_path):
    d, hfile = _files(tmp_path)
    o = formats.read_transactions(d)
    h = parse_hierarchy(HIER, hfile)
    r = _generalise(o, h, [h.node("A")])
    assert r.gen_labels == ["A"]
    out = tmp_path / "sub" / "r.txt"
    out.parent.mkdir()
    with open(out, "w") as fh:
        dump_km(r, fh, "../h.txt", "observed", out)
    assert formats.detect(out) == "km"
    back = formats.read(out)
    assert back.gen_labels == ["A"] and back.vocab.items == o.vocab.items
    assert [back.token_names(i) for i in range(4)] == [r.token_names(i) for i in range(4)]
    assert np.array_equal(back.lines, [6, 7, 8, 9])
    # a .dat name does not make it FIMI: the first line says what it is
    (tmp_path / "sub" / "r.dat").write_text(out.read_text())
    assert formats.detect(tmp_path / "sub" / "r.dat") == "km"


@pytest.mark.parametrize("text, message", [
    ("@semtui-km-release/1\n@hierarchy nothere.txt\n@members all\n@data\n{A}\n", "is not there"),
    # issue 38: a folder or a device is there, but it is no hierarchy file: said, not "not there"
    ("@semtui-km-release/1\n@hierarchy .\n@members all\n@data\n{A}\n", "(@hierarchy, line 2) is a folder"),
    ("@semtui-km-release/1\n@hierarchy /dev/zero\n@members all\n@data\n{A}\n", "is not a regular file"),
    ("@semtui-km-release/1\n@hierarchy h.txt\n@members all\n@data\n{Z}, b1\n", "r.txt:5: node 'Z' is not in"),
    ("@semtui-km-release/1\n@hierarchy h.txt\n@members all\n@data\n{A, b1\n", "r.txt:5: malformed line"),
    ("@semtui-km-release/1\n@hierarchy h.txt\n@members observed\n@data\n{A}\n", "needs a '@domain' line"),
    ("@semtui-km-release/1\n@hierarchy h.txt\n@members all\n", "no '@data' line"),
    ("@semtui-km-release/1\n@members all\n@data\na1\n", "names no '@hierarchy FILE'"),
    ("@semtui-km-release/1\n@hierarchy h.txt\n@colour red\n@data\na1\n", "r.txt:3: unknown header line"),
    ("@semtui-km-release/1\n@hierarchy h.txt\n@members observed\n@domain a1, zz\n@data\na1\n",
     "not leaves of the hierarchy"),
])
def test_bad_node_release_is_one_input_error(tmp_path, text, message):
    _files(tmp_path)
    (tmp_path / "r.txt").write_text(text)
    with pytest.raises(InputError) as err:
        formats.read(tmp_path / "r.txt")
    assert message in str(err.value)


def test_members_all_resolves_every_leaf(tmp_path):
    _files(tmp_path)
    (tmp_path / "r.txt").write_text("@semtui-km-release/1\n@hierarchy h.txt\n@members all\n@data\n{A}, b1\n-\n{ALL}\n")
    r = formats.read(tmp_path / "r.txt")
    assert r.token_names(0) == [["a1", "a2"], "b1"] and r.token_names(1) == []
    assert r.token_names(2) == [["a1", "a2", "b1", "b2"]] and r.gen_labels == ["A", "ALL"]


# ---------------------------------------------------------------- the km report, the release's sidecar
@pytest.mark.slow
def test_km_report_is_the_sidecar_exposure_and_info_read(tmp_path, cli, semtui):
    d, h = _files(tmp_path)
    out = tmp_path / "r.txt"
    r = cli("anonymize", "km", d, "--hierarchy", h, "-k", "2", "-m", "2", "--algorithm", "oa", "-o", out,
            "--ml2-support", "0.5")
    assert r.returncode == 0, r.stderr
    assert "ML² 45.4545%" in r.stdout
    doc = json.loads((tmp_path / "r.txt.json").read_text())
    assert doc["ml2"]["ml2"] == pytest.approx(5 / 11) and doc["release_format"] == "km"
    from semtui.attacks.setgen import release_k

    assert release_k(out) == 2
    info = semtui("info", out, "--json")
    facts = json.loads(info.out)
    assert (facts["k"], facts["m"], facts["algorithm"], facts["cut_rules"]) == (2, 2, "oa", 1)
    assert facts["ml2"] == pytest.approx(5 / 11) and facts["sidecar"] == f"{out}.json"
    # a sidecar that gives no usable k is refused, one line, exit 2
    (tmp_path / "r.txt.json").write_text(json.dumps({**doc, "k": "five"}))
    bad = semtui("info", out)
    assert bad.rc == 2
    bad.one_error_line("r.txt.json", "k must be a positive integer")
    # a stale sidecar (another release's) is refused, one line, exit 2
    doc["n_transactions"] = 5
    (tmp_path / "r.txt.json").write_text(json.dumps(doc))
    bad = semtui("info", out)
    assert bad.rc == 2
    bad.one_error_line("r.txt.json", "describes 5 transactions")
    # a hierarchy that is gone: one line naming the release, exit 2
    (tmp_path / "r.txt.json").unlink()
    h.unlink()
    gone = semtui("info", out)
    assert gone.rc == 2
    gone.one_error_line("r.txt:2", "is not there")


@pytest.mark.slow
def test_cut_node_missing_from_report_is_refused(tmp_path, cli):
    d, h = _files(tmp_path)
    out = tmp_path / "r.txt"
    assert cli("anonymize", "km", d, "--hierarchy", h, "-k", "2", "-m", "2", "--algorithm", "oa",
               "-o", out).returncode == 0
    doc = json.loads((tmp_path / "r.txt.json").read_text())
    doc["cut"] = [{"node": "B", "leaves": 2, "depth": 1}]
    (tmp_path / "r.txt.json").write_text(json.dumps(doc))
    a = cli("attack", "setgen", out, "--method", "ra", "--measure", "scores:none")
    assert a.returncode == 2 and "node 'A' of" in a.stderr and a.stderr.count("\n") == 1


@pytest.mark.slow
def test_leaves_release_format_and_ml2_off(tmp_path, cli):
    d, h = _files(tmp_path)
    out = tmp_path / "r.txt"
    r = cli("anonymize", "km", d, "--hierarchy", h, "-k", "2", "-m", "2", "-o", out, "--release-format", "leaves",
            "--ml2-support", "0", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert "ml2" not in doc and doc["release_format"] == "setgen"
    assert formats.detect(out) == "setgen"
    bad = cli("anonymize", "km", d, "--hierarchy", h, "-k", "2", "-m", "2", "-o", out, "--release-format", "x")
    assert bad.returncode == 2 and "--release-format" in bad.stderr and bad.stderr.count("\n") == 1
