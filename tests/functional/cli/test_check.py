"""The independent privacy check: supports by hand, against brute force, its inputs and CLI."""

from __future__ import annotations

import json

import pytest
from conftest import SAMPLES
from hypothesis import given, settings
from hypothesis import strategies as st

from semtui import formats
from semtui.checks import check_privacy, read_constraints
from semtui.errors import InputError
from semtui.model import TransactionData

FIG1_PRIVACY = [["blood pressure"], ["icd"], ["limbs"], ["injury"]]


def test_supports_of_figures_1_and_2():
    fig1 = formats.read_transactions(SAMPLES / "medical-original.txt")
    fig2 = formats.read_transactions(SAMPLES / "medical-setgen.txt")
    cons = FIG1_PRIVACY + [["heart disease", "icd"], ["anesthesia", "pain"], ["limbs", "injury"]]
    assert check_privacy(fig1, cons, 4).supports.tolist() == [1, 2, 1, 2, 1, 1, 1]
    # in Fig. 2 every transaction holds (bp, icd, limbs, injury): each member is supported by all 4
    report = check_privacy(fig2, cons, 4)
    assert report.supports.tolist() == [4, 4, 4, 4, 1, 1, 4]
    assert report.violated.tolist() == [4, 5] and not report.holds
    assert check_privacy(fig2, FIG1_PRIVACY, 4).holds
    assert report.partition


def test_absent_items_give_support_zero():
    data = TransactionData.from_lists([["a", "b"], ["a"]])
    report = check_privacy(data, [["a", "ghost"], ["a"], ["b"]], 2)
    assert report.supports.tolist() == [0, 2, 1]
    assert report.unknown_items == ["ghost"]
    assert report.violated.tolist() == [2]


def test_an_item_plain_and_generalised_in_one_transaction_counts_once():
    data = TransactionData.from_lists([["a", ("a", "b")], [("a", "b")], ["c"]])
    report = check_privacy(data, [["a"], ["a", "b"], ["b", "c"]], 2)
    assert report.supports.tolist() == [2, 2, 0]
    assert not report.partition and report.not_partitioned == ["a"]


def test_bad_k():
    with pytest.raises(InputError, match="k must be"):
        check_privacy(TransactionData.from_lists([["a"]]), [["a"]], 0)


def _brute(data: TransactionData, itemset) -> int:
    n = 0
    for i in range(data.n_transactions):
        s: set[str] = set()
        for tok in data.token_names(i):
            s.update([tok] if isinstance(tok, str) else tok)
        n += set(itemset) <= s
    return n


ITEMS = list("abcdefgh")
token = st.one_of(st.sampled_from(ITEMS), st.lists(st.sampled_from(ITEMS), min_size=2, max_size=4, unique=True))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(token, max_size=5), min_size=1, max_size=20),
       st.lists(st.lists(st.sampled_from(ITEMS), min_size=1, max_size=3, unique=True), min_size=1, max_size=6),
       st.integers(1, 5))
@pytest.mark.slow
def test_supports_match_brute_force_on_any_generalised_data(transactions, constraints, k):
    data = TransactionData.from_lists(transactions)
    report = check_privacy(data, constraints, k)
    brute = [_brute(data, c) for c in constraints]
    assert report.supports.tolist() == brute
    assert report.holds == all(s == 0 or s >= k for s in brute)


# --------------------------------------------------------------------- reading constraints
def test_read_constraints_text_and_sidecar(tmp_path):
    text = tmp_path / "p.txt"
    text.write_text("a, b\n\n  c  \n")
    assert read_constraints(text) == [["a", "b"], ["c"]]
    side = tmp_path / "r.json"
    side.write_text(json.dumps({"format": "semtui-setgen-sidecar/1", "privacy_constraints": [["a", "b"], ["c"]]}))
    assert read_constraints(side) == [["a", "b"], ["c"]]


@pytest.mark.parametrize("content, message", [
    ("a, b\n-\n", "empty privacy constraint"),
    ('{"format": "other/1"}', "not a setgen sidecar"),
    ('{"format": "semtui-setgen-sidecar/1", "privacy_constraints": [[]]}', "non-empty lists"),
    ('{"format": "semtui-setgen-sidecar/1", ', "not valid JSON"),
    ("", "file is empty"),
])
def test_bad_constraint_files(tmp_path, content, message):
    f = tmp_path / "bad.txt"
    f.write_text(content)
    with pytest.raises(InputError, match=message):
        read_constraints(f)


# --------------------------------------------------------------------- the CLI
@pytest.mark.slow
def test_cli_exit_codes(cli, tmp_path):
    p = tmp_path / "p.txt"
    p.write_text("blood pressure\nicd\nlimbs\ninjury\n")
    ok = cli("check", "privacy", SAMPLES / "medical-setgen.txt", "--privacy", p, "-k", "4")
    assert ok.returncode == 0, ok.stderr
    assert "holds" in ok.stdout
    bad = cli("check", "privacy", SAMPLES / "medical-original.txt", "--privacy", p, "-k", "4")
    assert bad.returncode == 1
    assert "support 1: blood pressure" in bad.stdout and "support 2: icd" in bad.stdout
    js = cli("check", "privacy", SAMPLES / "medical-setgen.txt", "--privacy", p, "-k", "5", "--json")
    assert js.returncode == 1
    doc = json.loads(js.stdout)
    assert doc["format"] == "semtui-privacy-check/1" and doc["holds"] is False
    assert [v["support"] for v in doc["violations"]] == [4, 4, 4, 4]


@pytest.mark.parametrize("args, message", [
    (["nope.txt", "--privacy", "{p}", "-k", "4"], "nope.txt: no such file"),
    (["{setgen}", "--privacy", "nope.txt", "-k", "4"], "nope.txt: no such file"),
    (["{setgen}", "--privacy", "{p}", "-k", "0"], "-k must be at least 1"),
    (["{setgen}", "--privacy", "{p}"], "-k"),
    (["{bad}", "--privacy", "{p}", "-k", "2"], "unbalanced bracket"),
])
@pytest.mark.slow
def test_cli_bad_input(cli, tmp_path, args, message):
    p = tmp_path / "p.txt"
    p.write_text("icd\n")
    bad = tmp_path / "bad.txt"
    bad.write_text("a, (b, c\n")
    fill = {"p": p, "setgen": SAMPLES / "medical-setgen.txt", "bad": bad}
    r = cli("check", "privacy", *[a.format(**fill) for a in args])
    assert r.returncode == 2
    assert message in r.stderr
    assert "Traceback" not in r.stderr
