"""Releases that break the format's own invariants are refused by every reader (issue 38, class 4):
one line naming the file and what is wrong, exit 2 -- never read, attacked and checked as if valid."""

from __future__ import annotations

import copy
import json
import re

import pytest
from conftest import run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from semtui.errors import InputError
from semtui.formats.disassociated import parse_disassociated, read_disassociated

#: two clusters joined by REFINE, and a third
DOC = {"format": "semtui-disassociated/2", "k": 2, "m": 2, "clusters": [
    {"id": "P1", "size": 2, "record_chunks": [[["a", "b"], ["a", "b"]]], "term_chunk": []},
    {"id": "P2", "size": 2, "record_chunks": [[["c"], ["c"]]], "term_chunk": []},
    {"id": "P3", "size": 2, "record_chunks": [[["d"], ["d"]]], "term_chunk": []}],
    "joint_clusters": [{"id": "J1", "clusters": ["P1", "P2"], "shared_chunks": [[["x"], ["x"], [], []]]}]}


def _two_joint_clusters_share_p2() -> dict:
    doc = copy.deepcopy(DOC)
    doc["joint_clusters"].append({"id": "J2", "clusters": ["P3", "P2"], "shared_chunks": [[["y"], ["y"], [], []]]})
    return doc


def _write_lines(doc: dict, path) -> None:
    """As semtui lays a release out: one cluster a line (read a line at a time)."""
    head = {k: v for k, v in doc.items() if k not in ("clusters", "joint_clusters")}
    text = json.dumps(head)[:-1] + ', "clusters": [\n' + ",\n".join(json.dumps(c) for c in doc["clusters"]) + "\n]"
    text += ', "joint_clusters": [\n' + ",\n".join(json.dumps(j) for j in doc["joint_clusters"]) + "\n]}\n"
    path.write_text(text)


def test_a_valid_release_with_a_joint_cluster_is_read():
    data = parse_disassociated(DOC, "d.json")
    assert [j.id for j in data.joint_clusters] == ["J1"]


def test_a_cluster_in_two_joint_clusters_is_refused_by_every_reader(tmp_path):
    doc = _two_joint_clusters_share_p2()
    message = re.escape("names cluster 'P2', which already belongs to joint_clusters[0] ('J1')")
    with pytest.raises(InputError, match=message):
        parse_disassociated(doc, "d.json")
    whole, lines = tmp_path / "whole.json", tmp_path / "lines.json"
    whole.write_text(json.dumps(doc))
    _write_lines(doc, lines)
    for path in (whole, lines):
        for spool in (False, True):
            with pytest.raises(InputError, match=message) as exc:
                read_disassociated(path, spool=spool)
            assert str(exc.value.path) == str(path)


@pytest.mark.parametrize("args", [("info",), ("cover",), ("attack", "disassoc", "--method", "ra"),
                                  ("check", "km", "-k", "2", "-m", "2"), ("open",)])
def test_every_command_refuses_it_in_one_line(tmp_path, args):
    path = tmp_path / "lies.json"
    _write_lines(_two_joint_clusters_share_p2(), path)
    r = run_cli(*args, path)
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("\n") == 1 and str(path) in r.stderr and "already belongs to" in r.stderr, r.stderr


# ------------------------------------------------------------------ corrupted releases, any reader
_PATHS = st.sampled_from([("clusters", 0, "size"), ("clusters", 1, "id"), ("clusters", 0, "record_chunks"),
                          ("clusters", 2, "term_chunk"), ("joint_clusters", 0, "clusters"),
                          ("joint_clusters", 0, "shared_chunks"), ("joint_clusters", 0, "id"), ("k",), ("m",)])
_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-3, 10**12), st.text(max_size=3),
                    st.lists(st.text(max_size=2), max_size=3), st.just(["P1", "P1"]), st.just(["P3", "P1"]),
                    st.just([[["x"]]]), st.just({}))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(_PATHS, _VALUES), max_size=3),
       st.none() | st.lists(st.sampled_from(["P1", "P2", "P3"]), min_size=2, max_size=2))
def test_a_corrupted_release_is_read_or_refused_never_crashes(tmp_path, edits, second_joint):
    """Whatever a corrupted release says, a reader either reads a release that keeps the format's
    invariants or refuses it with an InputError naming the file -- no other exception."""
    doc = copy.deepcopy(DOC)
    if second_joint is not None:
        doc["joint_clusters"].append({"id": "J2", "clusters": second_joint, "shared_chunks": [[["y"], ["y"], [], []]]})
    for where, value in edits:
        target = doc
        for step in where[:-1]:
            target = target[step]
        target[where[-1]] = value
    path = tmp_path / "c.json"
    _write_lines(doc, path) if all(isinstance(doc.get(k), list) for k in ("clusters", "joint_clusters")) \
        else path.write_text(json.dumps(doc))
    try:
        data = read_disassociated(path)
    except InputError as exc:
        assert str(exc.path) == str(path)
        return
    seen = [c for j in data.joint_clusters for c in j.clusters]
    assert len(seen) == len(set(seen))  # a cluster in at most one joint cluster
    assert all(c.size >= 1 for c in data.clusters)


# ------------------------------------------------------------------ a sidecar that cannot be read
@pytest.mark.parametrize("args", [("info",), ("assess", "--no-alternatives"), ("attack", "setgen", "--method", "ra"),
                                  ("open",)])
@pytest.mark.parametrize("sidecar", ["binary", "folder", "not json"])
@pytest.mark.slow
def test_an_unreadable_sidecar_is_an_error_not_no_sidecar(tmp_path, args, sidecar):
    """A release's sidecar says which k it was made for: one that cannot be read is refused
    (it was silently ignored, and the release read as if it had none); a JSON document of another
    kind there still says nothing."""
    from conftest import SAMPLES

    rel = tmp_path / "r.txt"
    rel.write_bytes((SAMPLES / "meps400-setgen.txt").read_bytes())
    side = tmp_path / "r.txt.json"
    if sidecar == "binary":
        side.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    elif sidecar == "folder":
        side.mkdir()
    else:
        side.write_text('{"format": "semtui-km-report/1", "k": ')
    r = run_cli(*args, rel)
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("\n") == 1 and str(side) in r.stderr and "Traceback" not in r.stderr, r.stderr


# ------------------------------------------------------------------ files derived from original records
@pytest.mark.parametrize("how", [(), ("--transactions",)])
def test_corpus_counts_are_private_however_the_corpus_is_read(tmp_path, how):
    """``corpus count`` over the original's own transactions (read as lines or as transactions)
    writes items and pairs of support 1 -- a record's fingerprint: 0600, as docs/cli.md promises."""
    import os
    import stat

    from conftest import SAMPLES

    out = tmp_path / "counts.csv"
    old = os.umask(0o022)
    try:
        r = run_cli("corpus", "count", SAMPLES / "medical-original.txt", *how,
                    "--terms-of", SAMPLES / "medical-original.txt", "-o", out)
    finally:
        os.umask(old)
    assert r.returncode == 0, r.stderr
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
