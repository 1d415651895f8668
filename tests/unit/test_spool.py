"""What keeps a large input off the driver's heap (issue 26, "Memory"): the on-disk list
(:class:`semtui.fileio.Spool`), text read a line at a time (:class:`semtui.fileio.TextLines`),
the release and the key read into spools, the original's incidence built as CSR directly,
and a report whose per-cluster part is on disk written an item at a time."""

from __future__ import annotations

import io
import json
import os
import pickle

import numpy as np
import pytest
from conftest import SAMPLES
from hypothesis import given, settings
from hypothesis import strategies as st

from semtui import formats, reports
from semtui.errors import InputError
from semtui.fileio import DiskArray, Spool, TextLines, drop_pages, iter_lines, read_text
from semtui.fileio import lines as lines_module
from semtui.formats.disassociated import (
    disassociated_to_json,
    dump_disassociated,
    dump_key,
    key_to_json,
    read_disassociated,
    read_key,
)
from semtui.model import TransactionData, Vocabulary

items = st.recursive(st.none() | st.integers() | st.text(max_size=5) | st.binary(max_size=2000),
                     lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
                     max_leaves=10)


@settings(max_examples=60, deadline=None)
@given(st.lists(items, max_size=40), st.integers(1, 4096), st.integers(1, 9))
def test_a_spool_gives_back_what_was_appended(values, block, ends):
    s = Spool("test")
    s._BLOCK = block  # items larger than a block, and many to a block, both read back
    s._ENDS_BLOCK = s._ends._BLOCK = ends   # the end offsets written, read back, and pending, a few at a time
    s.extend(values)
    assert len(s) == len(values)
    assert list(s) == values
    assert [s[i] for i in range(len(values))] == values
    assert s[1:5:2] == values[1:5:2]
    if values:
        assert s[-1] == values[-1]
    with pytest.raises(IndexError):
        s[len(values)]
    s.append("one more")  # appended after reading: still read back
    assert s[-1] == "one more" and list(s)[-1] == "one more"
    seen = []
    for item in s:   # appended to while read in order: the items there were when it began
        seen.append(item)
        s.append("later")
    assert seen == values + ["one more"]


def test_a_spool_leaves_no_file_behind_and_is_not_shipped(tmp_path, monkeypatch):
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    s = Spool("the release's clusters")
    s.extend(range(100_000))
    assert sum(s) == sum(range(100_000))
    assert os.listdir(tmp_path) == []  # unnamed (O_TMPFILE) or unlinked at once: nothing left however it ends
    with pytest.raises(TypeError, match="stays on the machine"):
        pickle.dumps(s)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.integers(-2**31, 2**31 - 1), max_size=30), max_size=8), st.integers(1, 50),
       st.sampled_from([np.int32, np.int64]))
def test_a_disk_array_gives_back_what_was_appended_memory_mapped(parts, block, dtype):
    a = DiskArray(dtype, "test")
    a._BLOCK = block  # many blocks written, and the last still pending, both read back
    for i, part in enumerate(parts):
        a.extend(np.asarray(part, dtype=dtype) if i % 2 else part)
    a.append(7)
    want = [v for part in parts for v in part] + [7]
    assert len(a) == len(want)
    v = a.view()
    assert v.dtype == np.dtype(dtype) and v.tolist() == want
    assert not v.flags.writeable
    drop_pages(v)   # its pages let go: read back from the file
    assert v.tolist() == want
    wide = a.astype(np.int64)
    assert wide.view().dtype == np.int64 and wide.view().tolist() == want
    with pytest.raises(ValueError, match="after it was read"):
        a.extend([1] * block)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.floats(allow_nan=False, width=64), max_size=20), max_size=8), st.integers(1, 30),
       st.data())
def test_a_disk_array_reads_any_span_while_it_grows(parts, block, data):
    """Figures appended and read back a span at a time (pread, not mapped), between appends."""
    a = DiskArray(np.float64, "figures")
    a._BLOCK = block
    want: list[float] = []
    for part in parts:
        a.extend(np.asarray(part, dtype=np.float64))
        want += part
        lo = data.draw(st.integers(0, len(want)))
        hi = data.draw(st.integers(lo, len(want) + 3))   # past the end: what there is
        got = a.read(lo, hi)
        assert got.dtype == np.float64 and got.tolist() == want[lo:hi]
    assert a.view().tolist() == want and a.read(0, len(want)).tolist() == want


def test_a_disk_array_is_on_disk_leaves_no_file_and_is_not_shipped(tmp_path, monkeypatch):
    import mmap
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    a = DiskArray(np.int32, "the original's items")
    assert a.view().tolist() == []   # empty: nothing to map
    b = DiskArray(np.int32, "the original's items")
    b.extend(np.arange(3_000_000, dtype=np.int32))
    v = b.view()
    base = v
    while getattr(base, "base", None) is not None:
        base = base.base
    assert isinstance(base.obj, mmap.mmap)   # the file's pages, not a copy in memory
    assert int(v[-1]) == 2_999_999 and os.listdir(tmp_path) == []
    with pytest.raises(TypeError, match="stays on the machine"):
        pickle.dumps(b)
    drop_pages(np.arange(3))   # an array in memory is left alone


texts = st.lists(st.text(st.characters(blacklist_characters="\x00\n", blacklist_categories=("Cs",)), max_size=6),
                 min_size=1, max_size=8)


#: block sizes that cut a text anywhere (inside a line, a character, a byte-order mark) and the one read
BLOCKS = [1, 2, 3, 7, lines_module.BLOCK]


@settings(max_examples=80, deadline=None)
@given(texts, st.sampled_from(["\n", "\r\n"]), st.booleans(), st.booleans(), st.sampled_from(BLOCKS))
def test_text_lines_are_the_lines_of_the_text(tmp_path_factory, lines, newline, trailing, bom, block):
    """Decoded a block of lines at a time, whatever the block's size, the lines are the text's."""
    body = newline.join(lines) + (newline if trailing else "")
    path = tmp_path_factory.mktemp("t") / "f.txt"
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + body.encode())
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(lines_module, "BLOCK", block)
        if not body.strip():
            with pytest.raises(InputError, match="file is empty"):
                list(TextLines(path))
            return
        with TextLines(path) as got:
            assert list(got) == list(iter_lines(read_text(path)))
            assert got.whole() == read_text(path)


@pytest.mark.parametrize("block", BLOCKS)
@pytest.mark.parametrize(("data", "message", "line"), [
    (b"a,b\nc\x00d\n", "NUL byte", 2),
    (b"a,b\nc\nd\xffe\n", "not valid UTF-8", 3),
    (b"\xef\xbb\xbfa\n\xc3\xa9\n\xc3\n\x00\n", "not valid UTF-8", 3),   # a character whole, then half of one
    (b"ab\ncd\nef\x00\xff\n", "NUL byte", 3),   # both on one line: the NUL byte is named, as ever
])
def test_text_lines_name_the_line_of_bad_bytes(tmp_path, data, message, line, block, monkeypatch):
    path = tmp_path / "bad.txt"
    path.write_bytes(data)
    monkeypatch.setattr(lines_module, "BLOCK", block)
    with pytest.raises(InputError, match=message) as exc:
        list(TextLines(path))
    assert exc.value.line == line and str(path) in str(exc.value)


@pytest.mark.parametrize("block", BLOCKS)
def test_the_lines_before_bad_bytes_are_read_first(tmp_path, block, monkeypatch):
    """A block that does not decode is read line by line: the lines before the bad one come
    first, so what a reader finds wrong in one of them is what it says (not the bad bytes below)."""
    from semtui.formats import read_transactions

    path = tmp_path / "f.txt"
    path.write_bytes(b"a, b\n(a, b\nc, d\n\xff, x\n")
    monkeypatch.setattr(lines_module, "BLOCK", block)
    got = []
    with pytest.raises(InputError, match="not valid UTF-8") as exc:
        for line in TextLines(path):
            got.append(line)
    assert got == ["a, b", "(a, b", "c, d"] and exc.value.line == 4
    with pytest.raises(InputError, match="never closed") as exc:
        read_transactions(path)
    assert exc.value.line == 2


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.one_of(st.sampled_from("abcdefg"), st.lists(st.sampled_from("abcdefg"), min_size=2,
                                                                        max_size=3)), max_size=5), min_size=1,
                max_size=12),
       st.lists(st.sampled_from("abcdefgxyz"), unique=True, max_size=10))
def test_the_incidence_is_the_plain_items_over_a_vocabulary(rows, names):
    """Built as CSR directly, it is what the construction through COO gave: the (transaction,
    item) pairs of the plain tokens whose items the vocabulary knows, sorted within a row."""
    from scipy.sparse import csr_matrix

    from semtui.model import transactions

    data = TransactionData.from_lists(rows)
    for vocab, block in ((None, 1 << 20), (Vocabulary(names), 1 << 20), (None, 1), (Vocabulary(names), 3)):
        transactions._INCIDENCE_BLOCK = block  # (rows across the blocks' ends)
        try:
            x = data.incidence(vocab)
        finally:
            transactions._INCIDENCE_BLOCK = 1 << 20
        v = data.vocab if vocab is None else vocab
        lookup = np.array([v.get(s) if s in v else -1 for s in data.vocab.items] + [-1], dtype=np.int64)
        plain = data.tokens >= 0
        cols = lookup[data.tokens[plain]]
        keep = cols >= 0
        expected = csr_matrix((np.ones(int(keep.sum()), dtype=np.int8), (data.row_of_token()[plain][keep], cols[keep])),
                              shape=(data.n_transactions, len(v)))
        expected.sum_duplicates()
        assert x.shape == expected.shape and x.has_canonical_format
        assert np.array_equal(x.indptr, expected.indptr) and np.array_equal(x.indices, expected.indices)
        assert set(x.data.tolist()) <= {1}


@settings(max_examples=40, deadline=None)
@given(st.lists(st.dictionaries(st.text(max_size=3), st.integers(-2**63, 2**63 - 1) | st.lists(st.floats(allow_nan=False), max_size=3),
                                max_size=3), max_size=6), st.booleans())
def test_a_report_with_a_part_on_disk_is_written_as_the_whole_list_would_be(entries, nested):
    s = Spool("the report's clusters")
    s.extend(entries)
    doc = {"format": "semtui-test/1", "summary": {"n": len(entries)}, "clusters": s, "joint_clusters": []}
    whole = {**doc, "clusters": entries}
    if nested:  # the part at another place of the document
        doc, whole = {"a": 1, **doc}, {"a": 1, **whole}
    assert reports.streamed(doc) and not reports.streamed(whole)
    fh = io.StringIO()
    reports.dump(doc, fh)
    assert fh.getvalue() == reports.dumps(whole) + "\n"


def test_a_release_and_its_key_read_into_spools_are_the_release_and_key(tmp_path):
    """The release and the key laid out a cluster a line (as semtui writes them) are read a line
    at a time into spools: the same clusters, and nothing of them held as a list."""
    from semtui.anonymize.disassociation import disassociate

    original = formats.read_transactions(SAMPLES / "meps400-original.txt")
    r = disassociate(original, 3, 2, 10, joint_max_size=40)
    rel, kf = tmp_path / "rel.json", tmp_path / "rel.key.json"
    with open(rel, "w") as fh:
        dump_disassociated(r.data, fh)
    with open(kf, "w") as fh:
        dump_key(r.key, fh)
    data = read_disassociated(rel, spool=True)
    key = read_key(kf, spool=True)
    assert isinstance(data.clusters, Spool) and isinstance(key.clusters, Spool)
    assert disassociated_to_json(data) == disassociated_to_json(r.data)
    assert json.loads(json.dumps(key_to_json(key))) == json.loads(json.dumps(key_to_json(r.key)))
    assert isinstance(formats.read(rel, spool=True).clusters, Spool)
    # a file laid out otherwise is read whole, into a list
    rel.write_text(json.dumps(disassociated_to_json(r.data)))
    assert isinstance(read_disassociated(rel, spool=True).clusters, list)


lines_st = st.lists(st.one_of(
    st.just(""), st.just("-"),
    st.lists(st.one_of(st.sampled_from(["a", "b", " c", "d ", "zz"]),
                       st.lists(st.sampled_from("abcd"), min_size=1, max_size=3).map(lambda m: "(" + ", ".join(m) + ")")),
             min_size=1, max_size=5).map(", ".join)), min_size=1, max_size=10)


@settings(max_examples=60, deadline=None)
@given(lines_st, st.lists(st.sampled_from(["a", "b", "c", "d", "q"]), unique=True, max_size=5))
def test_an_original_read_into_its_matrix_is_its_incidence(tmp_path_factory, lines, names):
    """Read a line at a time straight into the matrix over a release's vocabulary: the
    incidence of the transactions read whole, their source lines and whether they held
    generalised items (an original must not: check_belongs refuses it by that count)."""
    path = tmp_path_factory.mktemp("o") / "orig.txt"
    path.write_text("\n".join(lines) + "\n")
    vocab = Vocabulary(names)
    try:
        whole = formats.read_transactions(path)
    except InputError as exc:
        with pytest.raises(InputError) as got:
            formats.read_original_matrix(path, vocab)
        assert str(got.value) == str(exc)
        return
    om = formats.read_original_matrix(path, vocab)
    x, ref = om.incidence(vocab), whole.incidence(vocab)
    assert om.n_transactions == whole.n_transactions and bool(om.n_generalised) == bool(whole.n_generalised)
    assert np.array_equal(x.indptr, ref.indptr) and np.array_equal(x.indices, ref.indices)
    assert [om.line_of(i) for i in range(om.n_transactions)] == [whole.line_of(i) for i in range(whole.n_transactions)]
    # memory-mapped and read-only: a pass that lets its pages go reads the same matrix again
    assert not x.indices.flags.writeable and x.indices.dtype == x.indptr.dtype == np.int32
    drop_pages(x)
    assert (x != ref).nnz == 0 and np.array_equal(x.sum(axis=0), ref.sum(axis=0))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["C1", "C2", "C10", "J1", "1", "é"]), max_size=12),
       st.lists(st.sampled_from(["C1", "C3", "1", "x"]), max_size=5), st.booleans())
def test_an_id_index_finds_what_a_dict_of_ids_finds(ids, asked, collide):
    """Clusters by id with only a hash of each id held: the last of a repeated id, as a dict;
    exact whatever the hashes (all equal: each candidate's id is checked against its item);
    the same hash in another process (an index shipped with --jobs)."""
    from types import SimpleNamespace

    import semtui.model.disassociated as dis

    items = [SimpleNamespace(id=cid, n=n) for n, cid in enumerate(ids)]
    want = {cid: n for n, cid in enumerate(ids)}
    saved = dis.id_hash
    if collide:
        dis.id_hash = lambda cid: 7
    try:
        index = dis.IdIndex(items)
        for cid in set(asked) | set(ids):
            if cid in want:
                assert index[cid] == want[cid] and index.find(cid)[1] is items[want[cid]]
            else:
                with pytest.raises(KeyError):
                    index[cid]
        assert list(index) == list(want) and len(index) == len(want)
    finally:
        dis.id_hash = saved


@settings(max_examples=60, deadline=None)
@given(st.permutations([f"C{i}" for i in range(9)]), st.lists(st.sampled_from([f"C{i}" for i in range(11)]),
                                                               max_size=12))
def test_a_keys_clusters_by_id_are_found_in_order_without_an_index(ids, asked):
    """A key's clusters (ids unique) asked for in their own order are read where the last one
    ended, and no index is built; asked in any other order, the index finds them: as a dict."""
    from types import SimpleNamespace

    from semtui.model.disassociated import ClustersById

    items = [SimpleNamespace(id=cid) for cid in ids]
    by_id = ClustersById(items, unique=True)
    for _ in range(2):   # a pass in order, then another (the belonging checks, then the attack)
        assert [by_id[cid] for cid in ids] == items and by_id._index is None
    want = {it.id: it for it in items}
    for cid in asked:
        assert by_id.get(cid) is want.get(cid)
    backwards = ClustersById(items, unique=True)   # another order: the index answers, soon alone
    assert [backwards[cid] for cid in reversed(ids)] == items[::-1] and backwards._index is not None


def test_anid_hash_is_the_same_in_another_process():
    import subprocess
    import sys

    from semtui.model.disassociated import id_hash

    code = "from semtui.model.disassociated import id_hash; print(id_hash('C17'))"
    env = {**os.environ, "PYTHONHASHSEED": "random"}
    got = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True).stdout.strip()
           for _ in range(2)}
    assert got == {str(id_hash("C17"))}
