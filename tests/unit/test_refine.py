"""REFINE (docs/anonymize.md, ALGORITHMS.md §8): joint clusters and their shared chunks,
hand-built cases, the format's version 2 and the reading of version 1."""

from __future__ import annotations

import json

import pytest

from semtui.anonymize.disassociation import disassociate
from semtui.checks.km import check_disassociated
from semtui.formats.disassociated import (
    disassociated_to_json,
    key_to_json,
    parse_disassociated,
    read_disassociated,
    read_key,
)
from semtui.model import TransactionData


def release(rows, k=2, m=2, n=2, **kw):
    data = TransactionData.from_lists(rows)
    r = disassociate(data, k, m, n, **kw)
    return data, r, disassociated_to_json(r.data), key_to_json(r.key)


def test_a_shared_chunk_is_made_when_neighbours_hold_a_term_k_times_together():
    # HORPART (N = 2) splits on a: P1 = {az, aw}, P2 = {bz, bw}.  z and w have support 1 < k = 2
    # in each cluster (term chunks after VERPART) but 2 over the two sibling clusters.
    data, r, doc, key = release([["a", "z"], ["a", "w"], ["b", "z"], ["b", "w"]], joint_max_size=4)
    assert [c["term_chunk"] for c in doc["clusters"]] == [[], []]
    assert doc["joint_clusters"] == [{"id": "J1", "clusters": ["P1", "P2"],
                                      "shared_chunks": [[["z"], ["z"], ["w"], ["w"]]]}]
    # the key says which record each shared sub-record came from: z from records 0 (P1) and 2 (P2),
    # w from 1 and 3; identical sub-records are in a seeded random order, not in cluster order
    # (which would tell the member cluster), so over seeds either member comes first
    [shared] = key["joint_clusters"][0]["shared_chunks"]
    assert sorted(shared[:2]) == [0, 2] and sorted(shared[2:]) == [1, 3]
    rows = [["a", "z"], ["a", "w"], ["b", "z"], ["b", "w"]]
    firsts = {tuple(release(rows, joint_max_size=4, seed=s)[3]["joint_clusters"][0]["shared_chunks"][0][:2])
              for s in range(8)}
    assert firsts == {(0, 2), (2, 0)}
    assert check_disassociated(r.data, 2, 2, r.key, data).holds
    s = r.summary()
    assert s["moved_term_pairs"] == 4 and s["associated_share"] == 1.0 and s["associated_share_record_chunks"] == 0.3333


def test_items_that_would_break_k_m_together_go_to_separate_shared_chunks():
    # z and w occur together once (t0): {z, w} has support 1 < k, so one shared chunk cannot hold both
    data, r, doc, _ = release([["a", "z", "w"], ["a"], ["b", "z"], ["b", "w"]], joint_max_size=4)
    assert doc["joint_clusters"][0]["shared_chunks"] == [[["z"], ["z"], [], []], [["w"], ["w"], [], []]]
    assert check_disassociated(r.data, 2, 2, r.key, data).holds


def test_no_shared_chunk_when_the_joint_support_stays_below_k():
    # z only in P1, w only in P2: joint support 1 < k, both stay in their term chunks
    _, r, doc, _ = release([["a", "z"], ["a"], ["b", "w"], ["b"]], joint_max_size=4)
    assert doc["joint_clusters"] == []
    assert [c["term_chunk"] for c in doc["clusters"]] == [["z"], ["w"]]
    assert r.summary()["moved_term_pairs"] == 0


def test_no_joint_cluster_beyond_the_size_bound_or_without_refine():
    rows = [["a", "z"], ["a", "w"], ["a"], ["b", "z"], ["b", "w"], ["b"]]
    # clusters of 3 records (N = 3): a bound of 5 records joins none of them, 6 joins both
    assert release(rows, n=3, joint_max_size=5)[2]["joint_clusters"] == []
    assert release(rows, n=3, joint_max_size=6)[2]["joint_clusters"][0]["clusters"] == ["P1", "P2"]
    rows = [["a", "z"], ["a", "w"], ["b", "z"], ["b", "w"]]
    _, r, doc, key = release(rows, refine=False)
    assert doc["joint_clusters"] == [] and [c["term_chunk"] for c in doc["clusters"]] == [["z", "w"], ["z", "w"]]
    assert "records" not in key["clusters"][0] and r.summary()["refine"] is False


def test_version_1_files_keep_reading_and_round_trip(tmp_path):
    v1 = {"format": "semtui-disassociated/1", "k": 2, "m": 2, "clusters": [
        {"id": "P1", "size": 2, "record_chunks": [[["a"], ["a"]]], "term_chunk": ["z"]}]}
    key1 = {"format": "semtui-disassociation-key/1",
            "clusters": [{"id": "P1", "record_chunks": [[0, 1]], "term_chunk": [[0]]}]}
    (tmp_path / "r.json").write_text(json.dumps(v1))
    (tmp_path / "k.json").write_text(json.dumps(key1))
    data = read_disassociated(tmp_path / "r.json")
    assert data.joint_clusters == []
    key = read_key(tmp_path / "k.json")
    assert key.clusters[0].records is None and key.joint_clusters == []
    again = disassociated_to_json(data)
    assert again["format"] == "semtui-disassociated/2" and again["joint_clusters"] == []
    assert {**again, "format": v1["format"]} == {**v1, "joint_clusters": []}
    assert disassociated_to_json(parse_disassociated(again, "x")) == again


@pytest.mark.slow
def test_version_2_round_trips_through_the_files(cli, tmp_path):
    src = tmp_path / "d.txt"
    src.write_text("a,z\na,w\nb,z\nb,w\n")
    out, key = tmp_path / "r.json", tmp_path / "r.key.json"
    res = cli("anonymize", "disassoc", src, "-k", "2", "-m", "2", "--max-cluster-size", "2", "--joint-max-size", "4",
              "-o", out, "--key", key)
    assert res.returncode == 0, res.stderr
    data = read_disassociated(out)
    assert disassociated_to_json(data) == json.loads(out.read_text())
    assert key_to_json(read_key(key)) == json.loads(key.read_text())
    check = cli("check", "km", out, "-k", "2", "-m", "2", "--key", key, "--original", src, "--json")
    assert check.returncode == 0 and json.loads(check.stdout)["shared_chunks"] == 1


def test_a_joint_cluster_naming_an_unknown_cluster_is_refused(cli, tmp_path):
    bad = {"format": "semtui-disassociated/2", "k": 2, "m": 2, "clusters": [
        {"id": "P1", "size": 2, "record_chunks": [[["a"], ["a"]]], "term_chunk": []}],
        "joint_clusters": [{"id": "J1", "clusters": ["P1", "P9"], "shared_chunks": []}]}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    res = cli("info", path)
    assert res.returncode == 2 and "P9" in res.stderr and "Traceback" not in res.stderr


def test_joint_max_size_is_checked_in_one_line(cli, tmp_path):
    src = tmp_path / "d.txt"
    src.write_text("a,z\na,w\nb,z\nb,w\n")
    res = cli("anonymize", "disassoc", src, "-k", "2", "-m", "2", "--max-cluster-size", "2", "--joint-max-size", "3",
              "-o", tmp_path / "r.json")
    assert res.returncode == 2 and "--joint-max-size" in res.stderr and len(res.stderr.strip().splitlines()) == 1


JOINT_DOC = {"format": "semtui-disassociated/2", "k": 2, "m": 2, "clusters": [
    {"id": "P1", "size": 2, "record_chunks": [[["a", "b"], ["a", "b"]]], "term_chunk": []},
    {"id": "P2", "size": 2, "record_chunks": [[["c"], ["c"]]], "term_chunk": []}],
    "joint_clusters": [{"id": "J1", "clusters": ["P1", "P2"], "shared_chunks": [[["x"], ["x"], [], []]]}]}


def test_cover_problems_span_a_record_chunk_and_a_shared_chunk():
    from semtui.attacks.cover import run_cover

    rep = run_cover(parse_disassociated(JOINT_DOC, "j.json"))
    assert [(p.cluster, p.chunk_label, p.earlier_label, p.x, sorted(p.covered))
            for p in rep.cover_problems] == [("P1", "J1/S1", "C1", "x", ["a", "b"])]
    assert [c.shared_chunks for c in rep.clusters] == [1, 1]


def test_info_reports_joint_clusters_and_both_associated_shares():
    from semtui.model.info import dataset_info

    facts = dataset_info(parse_disassociated(JOINT_DOC, "j.json")).facts
    # placements: (P1, a), (P1, b), (P2, c) in record chunks, (J1, x) in a shared chunk
    assert facts["joint_clusters"] == 1 and facts["shared_chunks"] == 1 and facts["shared_placements"] == 1
    assert facts["associated_share"] == 1.0 and facts["associated_share_without_joint_clusters"] == 0.75
    assert facts["items"] == 4 and facts["transactions"] == 4


class PairMeasure:
    """z goes with a, w with b (similarity 1), everything else 0: an attacker who knows that."""

    kind = "similarity"
    name = "pairs"

    @staticmethod
    def _close(x, y):
        return 1.0 if {x, y} in ({"a", "z"}, {"b", "w"}) else 0.0

    def matrix(self, a, b):
        import numpy as np

        return np.array([[self._close(x, y) for y in b] for x in a], dtype=float)

    def unknown(self, terms):
        return []


ROWS = [["a", "z"], ["a", "w"], ["a"], ["b", "z"], ["b", "w"], ["b"]]


def test_attack_re_associates_shared_sub_records_across_member_clusters():
    from semtui.attacks.reassociation import ReassociationOptions, run_reassociation

    data = TransactionData.from_lists(ROWS)
    r = disassociate(data, 2, 2, 3, joint_max_size=6)
    assert len(r.data.joint_clusters) == 1 and r.summary()["moved_term_pairs"] == 4
    res = run_reassociation(r.data, r.key, data, ReassociationOptions(method="aba", seed=1, ties="random"),
                            measure=PairMeasure())
    rep = res.report.to_json()
    (joint,) = rep["joint_clusters"]
    # the shared sub-records go to anchors of either member: z beside the a's, w beside the b's
    placed = {u["items"][0]: [tuple(a) for a in u["anchors"]] for u in joint["units"]}
    assert len(placed["z"]) == len(placed["w"]) == 2
    assert {a[0] for a in placed["z"]} == {"P1"} and {a[0] for a in placed["w"]} == {"P2"}
    # the metrics count them, judged against the key
    m = rep["metrics"]
    flags = [f for u in joint["units"] for f in u["correct"]]
    assert rep["summary"]["shared_placements"] == 4 and m["placements"] == 4 and m["held"] == 4
    assert m["correct"] == sum(flags) == joint["metrics"]["correct"] == m["shared_chunks"]["correct"]
    assert m["shared_chunks"]["placements"] == 4
    assert m["broken_transactions"] == m["correct"]   # each correct placement breaks its own transaction
    assert all("a" in t for t in res.transactions if "z" in t) and all("b" in t for t in res.transactions if "w" in t)


@pytest.mark.slow
def test_random_re_association_of_shared_chunks_obeys_the_chunk_rule():
    from semtui.attacks.reassociation import ReassociationOptions, run_reassociation

    data = TransactionData.from_lists(ROWS)
    r = disassociate(data, 2, 2, 3, joint_max_size=6)
    for seed in range(5):
        res = run_reassociation(r.data, r.key, data, ReassociationOptions(method="ra", seed=seed),
                                measure=PairMeasure())
        anchors = [tuple(a) for u in res.report.to_json()["joint_clusters"][0]["units"] for a in u["anchors"]]
        assert len(anchors) == 4 and len(set(anchors)) == 4   # one shared sub-record per record


from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=st.lists(st.lists(st.integers(0, 8), min_size=1, max_size=5), min_size=4, max_size=40),
       k=st.integers(2, 3), joint=st.integers(0, 10))
def test_releases_and_keys_round_trip_through_version_2(rows, k, joint):
    import io

    from semtui.formats.disassociated import dump_disassociated, dump_key

    data = TransactionData.from_lists([[f"i{x}" for x in r] for r in rows])
    r = disassociate(data, k, 2, k + 1, joint_max_size=2 * k + joint)
    buf = io.StringIO()
    dump_disassociated(r.data, buf)
    doc = json.loads(buf.getvalue())
    assert doc == disassociated_to_json(r.data)
    back = parse_disassociated(doc, "r.json")
    assert disassociated_to_json(back) == doc
    kbuf = io.StringIO()
    dump_key(r.key, kbuf)
    assert json.loads(kbuf.getvalue()) == key_to_json(r.key)
    assert check_disassociated(back, k, 2, r.key, data).holds


@pytest.mark.slow
def test_shared_sub_records_never_go_to_a_member_that_shows_their_item(tmp_path):
    """Each (cluster, item) is in one place: z is in P1's record chunk, so the shared z's came
    from P2 and P3 -- the attack, RA and the baseline all know it from the release."""
    from semtui.attacks.reassociation import ReassociationOptions, run_reassociation
    from semtui.formats.disassociated import parse_disassociated as parse

    doc = {"format": "semtui-disassociated/2", "k": 2, "m": 2, "clusters": [
        {"id": "P1", "size": 2, "record_chunks": [[["a", "z"], ["a", "z"]]], "term_chunk": []},
        {"id": "P2", "size": 2, "record_chunks": [[["b"], ["b"]]], "term_chunk": []},
        {"id": "P3", "size": 2, "record_chunks": [[["c"], ["c"]]], "term_chunk": []}],
        "joint_clusters": [{"id": "J1", "clusters": ["P1", "P2", "P3"],
                            "shared_chunks": [[["z"], ["z"], [], [], [], []]]}]}
    key_doc = {"format": "semtui-disassociation-key/2", "clusters": [
        {"id": "P1", "record_chunks": [[0, 1]], "term_chunk": [], "records": [0, 1]},
        {"id": "P2", "record_chunks": [[2, 3]], "term_chunk": [], "records": [2, 3]},
        {"id": "P3", "record_chunks": [[4, 5]], "term_chunk": [], "records": [4, 5]}],
        "joint_clusters": [{"id": "J1", "shared_chunks": [[2, 4, 0, 1, 3, 5]]}]}
    (tmp_path / "k.json").write_text(json.dumps(key_doc))
    data = parse(doc, "r.json")
    key = read_key(tmp_path / "k.json")
    original = TransactionData.from_lists([["a", "z"], ["a", "z"], ["b", "z"], ["b"], ["c", "z"], ["c"]])
    for method, seed in (("ra", 0), ("ra", 1), ("ra", 2), ("aba", 0)):
        rep = run_reassociation(data, key, original, ReassociationOptions(method=method, seed=seed),
                                measure=PairMeasure()).report.to_json()
        (unit,) = rep["joint_clusters"][0]["units"]
        assert len(unit["anchors"]) == 2 and all(cid != "P1" for cid, _ in unit["anchors"])
        assert rep["metrics"]["shared_chunks"]["placements"] == 2


def test_no_cover_problem_with_a_shared_item_the_cluster_shows_itself():
    from semtui.attacks.cover import run_cover

    doc = json.loads(json.dumps(JOINT_DOC))
    doc["clusters"][0]["term_chunk"] = ["x"]    # P1's x is in its term chunk: the shared x's are P2's
    assert run_cover(parse_disassociated(doc, "j.json")).cover_problems == ()
