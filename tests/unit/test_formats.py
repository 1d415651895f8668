"""Readers and writers: round trips for every format, and detection."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from semtui import formats
from semtui.errors import InputError
from semtui.formats.disassociated import read_key, write_key
from semtui.model import DisassociatedData, TransactionData


def same_transactions(a: TransactionData, b: TransactionData) -> bool:
    if a.n_transactions != b.n_transactions:
        return False
    for i in range(a.n_transactions):
        ta = [x if isinstance(x, str) else frozenset(x) for x in a.token_names(i)]
        tb = [x if isinstance(x, str) else frozenset(x) for x in b.token_names(i)]
        if ta != tb:
            return False
    return True


def test_setgen_sample_reads_the_papers_notation(samples):
    data = formats.read(samples / "medical-setgen.txt")
    assert data.kind == "set-generalised"
    assert data.n_transactions == 4
    assert data.n_generalised == 1
    assert data.member_names(0) == ["blood pressure", "icd", "limbs", "injury"]
    assert data.group(0).tolist() == [0, 1, 2, 3]
    assert data.token_names(3) == ["knee", ["blood pressure", "icd", "limbs", "injury"]]
    assert data.vocab.names(data.plain_items(0)) == ["heart disease", "weakness", "dizziness"]


def test_plain_sample(samples):
    data = formats.read(samples / "medical-original.txt")
    assert data.kind == "transactions"
    assert data.token_names(2) == ["gangrene", "limbs", "injury"]


def test_same_generalised_item_in_any_order_is_one_item(tmp_path):
    p = tmp_path / "g.txt"
    p.write_text("a, (x, y)\nb, (y, x)\n\n  c ,(x,y)  \n")
    data = formats.read(p)
    assert data.n_generalised == 1
    assert data.group(0).tolist() == [0, 1, 2]
    assert data.lines.tolist() == [1, 2, 4]


def test_empty_transaction_line_round_trips(tmp_path):
    data = TransactionData.from_lists([["a", ["b", "c"]], [], ["d"]])
    p = tmp_path / "out.txt"
    formats.write(data, p)
    assert p.read_text().splitlines()[1] == "-"
    back = formats.read(p)
    assert back.n_transactions == 3 and back.lengths.tolist() == [2, 0, 1]


@pytest.mark.parametrize("suffix,fmt", [(".txt", "setgen"), (".jsonl", "jsonl")])
def test_round_trip_set_generalised(tmp_path, samples, suffix, fmt):
    data = formats.read(samples / "medical-setgen.txt")
    out = tmp_path / f"copy{suffix}"
    formats.write(data, out)
    assert formats.detect(out) == fmt
    assert same_transactions(data, formats.read(out))


@pytest.mark.parametrize("suffix,fmt", [(".txt", "setgen"), (".jsonl", "jsonl"), (".dat", "fimi")])
def test_round_trip_plain(tmp_path, samples, suffix, fmt):
    data = formats.read(samples / "medical-original.txt")
    out = tmp_path / f"copy{suffix}"
    formats.write(data, out)
    back = formats.read(out, names=str(out) + ".names.tsv" if fmt == "fimi" else None)
    assert same_transactions(data, back)


def test_plain_format_keeps_brackets_literally(tmp_path):
    p = tmp_path / "p.txt"
    p.write_text("a (left), b\n")
    data = formats.read(p, "plain")
    assert data.token_names(0) == ["a (left)", "b"]


def test_fimi_numeric_and_spmf(tmp_path):
    p = tmp_path / "x.dat"
    p.write_text("1 2 3\n\n10 2\n")
    data = formats.read(p)
    assert data.n_transactions == 2
    assert data.token_names(1) == ["10", "2"]
    s = tmp_path / "x.spmf"
    s.write_text("@CONVERTED_FROM_TEXT\n@ITEM=1=apple\n@ITEM=2=pear\n1 -1 2 -1 -2\n2 -1 -2\n")
    sp = formats.read(s)
    assert sp.token_names(0) == ["apple", "pear"] and sp.token_names(1) == ["pear"]
    out = tmp_path / "y.dat"
    formats.write(data, out)
    assert out.read_text() == "1 2 3\n10 2\n"
    assert same_transactions(data, formats.read(out))


def test_fimi_with_names_map(tmp_path):
    p = tmp_path / "x.dat"
    p.write_text("1 2\n2\n")
    names = tmp_path / "names.tsv"
    names.write_text("1\tapple\n2\tpear\n")
    data = formats.read(p, names=names)
    assert data.token_names(0) == ["apple", "pear"]


def test_jsonl_with_ids(tmp_path):
    p = tmp_path / "t.jsonl"
    p.write_text('{"id": "p1", "items": ["a", ["b", "c"]]}\n{"id": "p2", "items": []}\n')
    data = formats.read(p)
    assert data.ids == ["p1", "p2"]
    assert data.token_names(0) == ["a", ["b", "c"]]
    out = tmp_path / "u.jsonl"
    formats.write(data, out)
    assert [json.loads(x)["id"] for x in out.read_text().splitlines()] == ["p1", "p2"]


def test_disassociated_sample_and_key(samples, tmp_path):
    data = formats.read(samples / "disassociated.json")
    assert isinstance(data, DisassociatedData)
    assert (data.k, data.m, len(data.clusters), data.n_record_chunks, data.n_term_chunk_terms) == (2, 2, 1, 2, 3)
    c = data.clusters[0]
    assert data.vocab.names(c.record_chunks[1].sub_record(0)) == ["tumor", "biopsy"]
    assert data.vocab.names(c.term_chunk) == ["vessel", "catheterisation", "radiotherapy"]
    key = read_key(samples / "disassociated.key.json")
    assert key.cluster("P1").record_chunks == [[0, 3, 2, 1], [2, 3, 0, 1]]
    out = tmp_path / "d.json"
    formats.write(data, out)
    back = formats.read(out)
    assert json.loads(out.read_text()) == json.loads((samples / "disassociated.json").read_text())
    assert back.clusters[0].size == 4
    kout = tmp_path / "k.json"
    write_key(key, kout)
    assert read_key(kout).cluster("P1").term_chunk == [[0], [0], [1]]


def test_detection_without_extension(tmp_path, samples):
    for name, fmt in [("medical-setgen.txt", "setgen"), ("disassociated.json", "disassociated")]:
        p = tmp_path / name.split(".")[0]
        p.write_bytes((samples / name).read_bytes())
        assert formats.detect(p) == fmt
    q = tmp_path / "nums"
    q.write_text("1 2 3\n4 5\n")
    assert formats.detect(q) == "fimi"
    r = tmp_path / "lines"
    r.write_text('{"items": ["a"]}\n')
    assert formats.detect(r) == "jsonl"


ITEM = st.text(alphabet="abcdefghij xyz", min_size=1, max_size=6).map(str.strip).filter(lambda s: s and s != "-")
TOKEN = st.one_of(ITEM, st.lists(ITEM, min_size=2, max_size=4, unique=True))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(TOKEN, max_size=5), min_size=1, max_size=12))
def test_round_trip_property(tmp_path_factory, transactions):
    data = TransactionData.from_lists(transactions)
    d = tmp_path_factory.mktemp("rt")
    for suffix in (".txt", ".jsonl"):
        out = d / f"x{suffix}"
        formats.write(data, out)
        assert same_transactions(data, formats.read(out))


def test_groups_match_a_direct_count():
    data = TransactionData.from_lists([["a", ["x", "y"]], [["x", "y"], ["p", "q"]], ["b"], [["p", "q"]]])
    assert data.n_generalised == 2
    assert [data.group(g).tolist() for g in range(2)] == [[0, 1], [1, 3]]
    assert data.group_sizes().tolist() == [2, 2]
    assert np.array_equal(data.row_of_token(), np.array([0, 0, 1, 1, 2, 3]))


def test_outputs_get_ordinary_permissions(tmp_path):
    import os
    import stat

    data = TransactionData.from_lists([["a"]])
    out = tmp_path / "o.txt"
    formats.write(data, out)
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(out.stat().st_mode) == 0o666 & ~mask
    assert [p.name for p in tmp_path.iterdir()] == ["o.txt"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", " c", "dd ", ",", ", ", "(", ")", "()", "(a, b)", "(b,a)", " ( a ,c ) ",
                                 "(x)", "( , )", "x y"]), min_size=1, max_size=12))
def test_a_setgen_line_reads_as_its_careful_reading_says(parts):
    """The quick reading of a set-generalised line (generalised items' text parsed once) gives what
    the careful one, a bracket at a time, gives -- or the same error."""
    from semtui.formats.text import _parse_setgen_line_closely, parse_setgen_line

    line = "".join(parts)

    def outcome(parse):
        try:
            return ("ok", parse(line, "r.txt", 3))
        except InputError as exc:
            return ("error", str(exc))

    assert outcome(parse_setgen_line) == outcome(_parse_setgen_line_closely)
    assert outcome(parse_setgen_line) == outcome(parse_setgen_line)  # and again, from the memo


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.one_of(st.sampled_from("abcdef"), st.lists(st.sampled_from("abcdef"), min_size=2,
                                                                         max_size=3, unique=True)),
                         max_size=6), min_size=1, max_size=12),
       st.lists(st.sampled_from("abcdefxy"), min_size=1, max_size=8, unique=True))
def test_the_incidence_arrays_hold_the_incidence_matrix(rows, names):
    """The belonging check reads the original's incidence from its arrays (no scipy before the
    first screen): each row's distinct plain items over another vocabulary, as the CSR matrix."""
    from semtui.model import Vocabulary
    data = TransactionData.from_lists(rows)
    vocab = Vocabulary(names)
    m = data.incidence(vocab)
    codes = np.repeat(np.arange(m.shape[0], dtype=np.int64), np.diff(m.indptr)) * len(vocab) + m.indices
    assert data.incidence_codes(vocab).tolist() == codes.tolist()
    indptr, indices = data.incidence_arrays(vocab)
    assert len(indptr) == data.n_transactions + 1 and int(indptr[-1]) == len(indices)
