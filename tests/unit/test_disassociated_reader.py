"""Reading a disassociated release a line at a time (semtui.formats.disassociated.read_disassociated):
a file laid out as semtui writes it (one cluster a line) is decoded cluster by cluster, and gives
exactly the release the whole-document parse gives; any other layout is read whole, and a syntax
error still names its line."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
from conftest import SAMPLES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from semtui.anonymize.disassociation import disassociate
from semtui.errors import InputError
from semtui.fileio import iter_lines, parse_json
from semtui.formats.disassociated import (
    _by_line,
    _NotByLine,
    disassociated_to_json,
    dump_disassociated,
    parse_disassociated,
    read_disassociated,
)
from semtui.model import TransactionData


def _both(text: str, path) -> tuple:
    """(the release read a line at a time, or None when the layout was refused; read whole)."""
    try:
        by_line = parse_disassociated(_by_line(iter_lines(text), ("format", "k", "m")), path)
    except _NotByLine:
        by_line = None
    return by_line, parse_disassociated(parse_json(text, path), path)


def _same(a, b) -> bool:
    return disassociated_to_json(a) == disassociated_to_json(b) and a.vocab.items == b.vocab.items


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=st.lists(st.lists(st.integers(0, 9), min_size=1, max_size=6), min_size=3, max_size=60),
       k=st.integers(2, 3), joint=st.integers(0, 8), refine=st.booleans())
def test_a_release_semtui_wrote_reads_a_line_at_a_time_as_it_reads_whole(rows, k, joint, refine):
    data = TransactionData.from_lists([[f"item {x}" for x in r] for r in rows])
    r = disassociate(data, k, 2, k + 2, refine=refine, joint_max_size=(2 * k + joint) if refine else None)
    buf = io.StringIO()
    dump_disassociated(r.data, buf)
    by_line, whole = _both(buf.getvalue(), "r.json")
    assert by_line is not None  # semtui's own layout is never refused
    assert _same(by_line, whole)


def test_the_sample_and_a_release_with_joint_clusters(tmp_path):
    data = TransactionData.from_lists([line.split(", ") for line in
                                       (SAMPLES / "meps400-original.txt").read_text().splitlines()])
    r = disassociate(data, 3, 2, 20)
    assert r.data.joint_clusters  # REFINE made some: the second array is exercised
    path = tmp_path / "r.json"
    with path.open("w") as fh:
        dump_disassociated(r.data, fh)
    for p in (SAMPLES / "disassociated.json", path):
        by_line, whole = _both(p.read_text(), p)
        assert by_line is not None and _same(by_line, whole)
        assert _same(read_disassociated(p), whole)


@pytest.mark.parametrize("layout", ["indented", "one line", "keys after clusters", "trailing text",
                                    "a key after the joint clusters", "no joint clusters array"])
def test_another_layout_is_read_whole(layout, tmp_path):
    doc = json.loads((SAMPLES / "disassociated.json").read_text())
    text = {"indented": json.dumps(doc, indent=2), "one line": json.dumps(doc),
            "keys after clusters": "{\"clusters\": [\n" + ",\n".join(json.dumps(c) for c in doc["clusters"])
                                   + "\n], " + json.dumps({k: v for k, v in doc.items() if k != "clusters"})[1:],
            "trailing text": None, "a key after the joint clusters": None,
            "no joint clusters array": "{" + json.dumps({k: v for k, v in doc.items() if k != "clusters"})[1:-1]
                                       + ', "clusters": [\n' + ",\n".join(json.dumps(c) for c in doc["clusters"])
                                       + "\n]}\n"}[layout]
    if text is None:
        buf = io.StringIO()
        dump_disassociated(parse_disassociated(doc, "x"), buf)
        text = buf.getvalue() + "\n  \n"  # whitespace after the document is fine either way
        if layout == "a key after the joint clusters":  # later keys win in the whole parse: k = 3
            text = text.rstrip()[:-2] + '], "k": 3}\n'
            doc["k"] = 3
    path = tmp_path / "r.json"
    path.write_text(text)
    assert _same(read_disassociated(path), parse_disassociated(doc, "x"))


def test_a_syntax_error_in_a_cluster_line_names_that_line(tmp_path):
    buf = io.StringIO()
    dump_disassociated(read_disassociated(SAMPLES / "disassociated.json"), buf)
    lines = buf.getvalue().split("\n")
    lines[1] = lines[1].replace('"size"', '"size" oops', 1)
    path = tmp_path / "bad.json"
    path.write_text("\n".join(lines))
    with pytest.raises(InputError) as err:
        read_disassociated(path)
    assert err.value.line == 2 and "not valid JSON" in err.value.message


def test_a_file_cut_after_the_clusters_is_one_line_naming_it(tmp_path):
    """Cut right after the clusters' closing line (no joint clusters line, no newline): the
    layout breaks, the whole parse names the JSON error; never a traceback."""
    buf = io.StringIO()
    dump_disassociated(read_disassociated(SAMPLES / "disassociated.json"), buf)
    text = buf.getvalue()
    path = tmp_path / "cut.json"
    path.write_text(text[:text.index("\n],") + 3])
    with pytest.raises(InputError) as err:
        read_disassociated(path)
    assert "not valid JSON" in err.value.message


@pytest.mark.parametrize("collide", [False, True])
def test_ids_are_checked_without_holding_them(tmp_path, monkeypatch, collide):
    """The clusters' ids are kept as hashes (a release on disk is never whole): a repeated id, a
    joint cluster naming no cluster or taking a cluster's id are still one line naming the
    clusters' place -- whatever the hashes (all equal: each candidate's id is checked)."""
    import semtui.formats.disassociated as fd
    import semtui.model.disassociated as md

    if collide:
        monkeypatch.setattr(fd, "id_hash", lambda cid: 3)
        monkeypatch.setattr(md, "id_hash", lambda cid: 3)
    doc = json.loads((SAMPLES / "disassociated.json").read_text())
    doc["clusters"].append({**doc["clusters"][0], "id": "P2"})
    ids = [c["id"] for c in doc["clusters"]]
    path = tmp_path / "r.json"
    path.write_text(json.dumps(doc))
    good = read_disassociated(path)
    assert [c.id for c in good.clusters] == ids == ["P1", "P2"]
    cases = []
    twice = json.loads(json.dumps(doc))
    twice["clusters"].append(dict(twice["clusters"][0]))
    cases.append((twice, f"clusters[{len(ids)}]: duplicate cluster id {ids[0]!r}"))
    for joint, message in ((["nope", ids[0]], "names 'nope', which is no cluster of the release"),
                           ([ids[0], ids[1]], f"duplicate id {ids[0]!r}")):
        bad = json.loads(json.dumps(doc))
        bad["format"] = "semtui-disassociated/2"
        bad["joint_clusters"] = [{"id": ids[0] if "duplicate" in message else "J1", "clusters": joint,
                                  "shared_chunks": []}]
        cases.append((bad, message))
    for bad, message in cases:
        for text in (json.dumps(bad), json.dumps(bad, indent=1)):   # read a line at a time, and whole
            path.write_text(text)
            with pytest.raises(InputError, match=message.replace("[", r"\[").replace("]", r"\]")):
                read_disassociated(path)


@pytest.mark.parametrize("collide", [False, True])
def test_a_key_naming_a_cluster_twice_is_one_line_naming_it(tmp_path, monkeypatch, collide):
    """A key's clusters are looked up in order, with no index (its ids are unique): one named
    twice is refused as it is read, whatever the hashes, read a line at a time and whole."""
    import semtui.formats.disassociated as fd
    import semtui.model.disassociated as md
    from semtui.formats.disassociated import read_key

    if collide:
        monkeypatch.setattr(fd, "id_hash", lambda cid: 3)
        monkeypatch.setattr(md, "id_hash", lambda cid: 3)
    doc = json.loads((SAMPLES / "disassociated.key.json").read_text())
    doc["clusters"].append({**doc["clusters"][0], "id": "P2"})
    path = tmp_path / "k.json"
    for text in (json.dumps(doc), json.dumps(doc, indent=1)):
        path.write_text(text)
        assert [c.id for c in read_key(path).clusters] == ["P1", "P2"]
    doc["clusters"].append(dict(doc["clusters"][1]))
    for text in (json.dumps(doc), json.dumps(doc, indent=1)):
        path.write_text(text)
        with pytest.raises(InputError, match=r"clusters\[2\]: duplicate cluster id 'P2'"):
            read_key(path)


def test_the_readers_joint_members_are_those_the_ids_name(tmp_path):
    """The joint clusters' members, as the reader found them (the clusters' index is not
    kept), are the clusters their ids name."""
    from semtui.attacks.reassociation.plan import JointMembers

    doc = json.loads((SAMPLES / "disassociated.json").read_text())
    doc["format"] = "semtui-disassociated/2"
    doc["clusters"] += [{**doc["clusters"][0], "id": f"P{i}"} for i in range(2, 7)]
    doc["joint_clusters"] = [{"id": "J1", "clusters": ["P5", "P1", "P3"], "shared_chunks": []},
                             {"id": "J2", "clusters": ["P6", "P2"], "shared_chunks": []}]
    path = tmp_path / "r.json"
    path.write_text(json.dumps(doc))
    data = read_disassociated(path)
    assert data._by_id is None   # not kept by the reader
    got = JointMembers.of(data)
    assert [got[j].tolist() for j in range(2)] == [[4, 0, 2], [5, 1]]
    assert got.first.tolist() == [0, 1] and got.last.tolist() == [4, 5]
    data._joint_positions = None   # through the index instead: the same
    again = JointMembers.of(data)
    assert np.array_equal(again.ptr, got.ptr) and np.array_equal(again.ids, got.ids)


def test_a_bounded_memory_of_sub_records_reads_the_same_release(tmp_path, monkeypatch):
    import semtui.formats.disassociated as fd

    data = TransactionData.from_lists([line.split(", ") for line in
                                       (SAMPLES / "meps400-original.txt").read_text().splitlines()])
    r = disassociate(data, 3, 2, 20)
    path = tmp_path / "r.json"
    with path.open("w") as fh:
        dump_disassociated(r.data, fh)
    whole = read_disassociated(path)
    monkeypatch.setattr(fd, "_SEEN_SUBS", 1)
    assert _same(read_disassociated(path), whole)


@pytest.mark.parametrize("term", [[1], [""], ["  "], [["a"]], "a, b", [True], ["a", None], {"a": 1}])
def test_a_term_chunk_that_is_not_a_list_of_item_names_is_one_error_naming_it(term):
    """The term chunk's quick reading (every term met before, looked up at once) leaves the check of
    a term it has not met -- or cannot look up -- to the careful one, which names the cluster."""
    doc = {"format": "semtui-disassociated/2", "k": 2, "m": 2, "clusters": [
        {"id": "P1", "size": 2, "record_chunks": [[["a"], ["a"]]], "term_chunk": ["a", "b"]},
        {"id": "P2", "size": 2, "record_chunks": [], "term_chunk": term}]}
    with pytest.raises(InputError, match=r"clusters\[1\]\.term_chunk must be a list of item names"):
        parse_disassociated(doc, "r.json")
    doc["clusters"][1]["term_chunk"] = ["b", " a ", "c"]   # met before, new, stripped as before
    got = parse_disassociated(doc, "r.json")
    assert got.vocab.items == ["a", "b", "c"]
    assert [got.vocab[int(t)] for t in got.clusters[1].term_chunk] == ["b", "a", "c"]


def test_another_semtui_document_given_as_a_release_is_named(tmp_path):
    """A new user ran `semtui info OUT.txt.json` (the release's sidecar) and read "'format' must be
    'semtui-disassociated/2' ..., got 'semtui-setgen-sidecar/1'": it now says what the file is."""
    import json

    import pytest

    from semtui.errors import InputError
    from semtui.formats.disassociated import parse_disassociated

    for fmt in ("semtui-setgen-sidecar/1", "semtui-km-report/1", "semtui-assessment/2"):
        with pytest.raises(InputError, match=f"this is a {fmt} document, not a release"):
            parse_disassociated(json.loads(json.dumps({"format": fmt})), tmp_path / "x.json")
    with pytest.raises(InputError, match="'format' must be"):
        parse_disassociated({"format": "something-else"}, tmp_path / "x.json")
