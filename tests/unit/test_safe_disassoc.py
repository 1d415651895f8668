"""Safe disassociation (``anonymize disassoc --safe``): cover problems removed by partial
suppression, checked by the independent witnesses (``check km`` with the key, ``cover``)."""

from __future__ import annotations

import json

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from semtui.anonymize.disassociation import disassociate, remove_cover_problems
from semtui.attacks.cover import run_cover
from semtui.checks.km import check_disassociated
from semtui.formats.disassociated import key_to_json, parse_disassociated
from semtui.model import ClusterKey, DisassociationKey, TransactionData

# C1 = {abc x3, ab x3}, C2 = {e x3}: e (support 3) -> I = {a, b, c}, c always with a and b: a
# cover problem.  With k = 2 one cut ends it: a out of one abc sub-record (a: 5, ab: 5, ac: 2).
CUTTABLE = {"format": "semtui-disassociated/1", "k": 2, "m": 2,
            "clusters": [{"id": "P1", "size": 6,
                          "record_chunks": [[["a", "b", "c"]] * 3 + [["a", "b"]] * 3,
                                            [["e"]] * 3 + [[]] * 3],
                          "term_chunk": []}]}
# The paper's Fig. 3 (k = 2): C1 = {abc x2, ab x2}, C2 = {e x2}; a cut would leave ac (or bc)
# once, below k, so e is dropped from C2 (2 occurrences).
FIG3 = {"format": "semtui-disassociated/1", "k": 2, "m": 2,
        "clusters": [{"id": "P1", "size": 4,
                      "record_chunks": [[["a", "b", "c"], ["a", "b", "c"], ["a", "b"], ["a", "b"]], [["e"], ["e"]]],
                      "term_chunk": []}]}


def _key(n: int, chunk_sizes: list[int]) -> DisassociationKey:
    return DisassociationKey([ClusterKey("P1", [list(range(s)) for s in chunk_sizes], [])])


def test_one_cut_removes_the_cover_problem():
    data = parse_disassociated(CUTTABLE, "t")
    assert run_cover(data).summary.cover_problems == 1
    safe, key, report = remove_cover_problems(data, _key(6, [6, 6]))
    assert (report.cuts, report.drops, report.suppressed_occurrences, report.cover_problems_before) == (1, 0, 1, 1)
    assert report.lost_pairs == 0
    assert run_cover(safe).summary.cover_problems == 0
    (t, item), = key.clusters[0].suppressed
    assert item == "a" and t in (0, 1, 2)  # an abc sub-record lost its a
    c1 = [sorted(safe.vocab.names(safe.clusters[0].record_chunks[0].sub_record(r))) for r in range(6)]
    assert sorted(map(tuple, c1)) == sorted([("a", "b", "c")] * 2 + [("b", "c",)] + [("a", "b")] * 3)
    # the input was not changed
    assert run_cover(data).summary.cover_problems == 1


def test_when_no_cut_keeps_km_the_later_item_is_dropped():
    data = parse_disassociated(FIG3, "t")
    safe, key, report = remove_cover_problems(data, _key(4, [4, 2]))
    assert (report.cuts, report.drops, report.suppressed_occurrences, report.lost_pairs) == (0, 1, 2, 1)
    assert report.removed_chunks == 1 and len(safe.clusters[0].record_chunks) == 1
    assert sorted(key.clusters[0].suppressed) == [(0, "e"), (1, "e")]
    assert run_cover(safe).summary.cover_problems == 0
    assert key_to_json(key)["clusters"][0]["suppressed"] == [[0, "e"], [1, "e"]]


rows_strategy = st.lists(st.lists(st.integers(0, 6), max_size=5, unique=True), min_size=2, max_size=40)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=rows_strategy, k=st.integers(1, 3), m=st.integers(1, 3), extra=st.integers(0, 8),
       seed=st.integers(0, 2**32))
def test_safe_release_passes_both_independent_checks(rows, k, m, extra, seed):
    data = TransactionData.from_lists([[f"i{x}" for x in r] for r in rows])
    if not len(data.tokens):
        return
    result = disassociate(data, k, m, k + extra, safe=True, seed=seed)
    report = check_disassociated(result.data, k, m, result.key, data)
    assert report.holds, report.to_json()
    assert report.key["suppressed_occurrences"] == result.safe.suppressed_occurrences
    assert run_cover(result.data).summary.cover_problems == 0
    # the same release before the repair (REFINE on, as by default): the problems it counted
    plain = disassociate(data, k, m, k + extra, seed=seed)
    before = run_cover(plain.data).summary.cover_problems
    assert result.safe.cover_problems_before == before
    done = result.safe.suppressed_occurrences + result.safe.unshared_items
    assert (done > 0) == (before > 0)  # nothing suppressed or unshared where no problem was
    # REFINE's shared chunks: whatever was not unshared stayed associated, never suppressed there
    shared = sum(len(np.unique(ch.items)) for j in result.data.joint_clusters for ch in j.shared_chunks)
    assert shared == sum(len(np.unique(ch.items)) for j in plain.data.joint_clusters
                         for ch in j.shared_chunks) - result.safe.unshared_items
    # without REFINE, the two-step repair as it always was
    two = disassociate(data, k, m, k + extra, safe=True, refine=False, seed=seed)
    assert two.safe.cover_problems_before == run_cover(disassociate(data, k, m, k + extra,
                                                                    refine=False).data).summary.cover_problems
    assert two.safe.unshared_items == 0 and not two.data.joint_clusters
    assert check_disassociated(two.data, k, m, two.key, data).holds
    assert run_cover(two.data).summary.cover_problems == 0


# REFINE (k = 2, m = 2): P1 = rows 0-5, C1 = {abc x3, ab x3}; P2 = rows 6-7, C1 = {d x2}; x was in
# both term chunks (once each) and REFINE shared it: S1 of J1 holds x in rows 0 and 6.  x (support
# 2) against P1's C1: I = {a, b, c}, c always with a and b -- a cover problem across a record chunk
# and a shared chunk.  A cut in C1 ends it (a out of one abc sub-record: a 5, ab 5, ac 2 >= k), so x
# stays shared.
def _joint(c1: list, n1: int) -> tuple[dict, dict]:
    rows1 = list(range(n1))
    release = {"format": "semtui-disassociated/2", "k": 2, "m": 2,
               "clusters": [{"id": "P1", "size": n1, "record_chunks": [c1], "term_chunk": []},
                            {"id": "P2", "size": 2, "record_chunks": [[["d"], ["d"]]], "term_chunk": []}],
               "joint_clusters": [{"id": "J1", "clusters": ["P1", "P2"],
                                   "shared_chunks": [[["x"]] + [[]] * (n1 - 1) + [["x"], []]]}]}
    key = {"format": "semtui-disassociation-key/2",
           "clusters": [{"id": "P1", "record_chunks": [rows1], "term_chunk": [], "records": rows1},
                        {"id": "P2", "record_chunks": [[n1, n1 + 1]], "term_chunk": [], "records": [n1, n1 + 1]}],
           "joint_clusters": [{"id": "J1", "shared_chunks": [list(range(n1 + 2))]}]}
    return release, key


def _opened(tmp_path, release: dict, key: dict):
    from semtui.formats.disassociated import read_key

    p = tmp_path / "k.json"
    p.write_text(json.dumps(key))
    return parse_disassociated(release, "t"), read_key(p)


def test_a_shared_items_problem_is_cut_in_the_record_chunk(tmp_path):
    data, key = _opened(tmp_path, *_joint([["a", "b", "c"]] * 3 + [["a", "b"]] * 3, 6))
    cover = run_cover(data)
    assert cover.summary.cover_problems == 1 and cover.cover_problems[0].chunk_label == "J1/S1"
    safe, new_key, report = remove_cover_problems(data, key)
    assert (report.cuts, report.shared_cuts, report.drops, report.unshared_items) == (1, 1, 0, 0)
    assert report.shared_problems_before == 1 == report.cover_problems_before
    assert run_cover(safe).summary.cover_problems == 0
    assert [safe.vocab.names(ch.items) for ch in safe.joint_clusters[0].shared_chunks] == [["x", "x"]]
    (t, item), = new_key.clusters[0].suppressed
    assert item == "a" and t in (0, 1, 2)


def test_a_shared_item_no_cut_can_save_goes_back_to_its_term_chunks(tmp_path):
    # the paper's Fig. 3 as P1's chunk: a cut would leave ac (or bc) once, below k
    original = TransactionData.from_lists([["a", "b", "c", "x"], ["a", "b", "c"], ["a", "b"], ["a", "b"],
                                           ["d", "x"], ["d"]])
    data, key = _opened(tmp_path, *_joint([["a", "b", "c"]] * 2 + [["a", "b"]] * 2, 4))
    assert run_cover(data).summary.cover_problems == 1
    safe, new_key, report = remove_cover_problems(data, key)
    assert (report.cuts, report.drops, report.suppressed_occurrences) == (0, 0, 0)
    assert (report.unshared_items, report.unshared_pairs, report.removed_shared_chunks,
            report.removed_joint_clusters) == (1, 2, 1, 1)
    assert not safe.joint_clusters and not new_key.joint_clusters
    # x is back where REFINE found it: once in each cluster's term chunk, with its transaction
    assert [safe.vocab.names(c.term_chunk) for c in safe.clusters] == [["x"], ["x"]]
    assert [ck.term_chunk for ck in new_key.clusters] == [[[0]], [[4]]]
    assert run_cover(safe).summary.cover_problems == 0
    check = check_disassociated(safe, 2, 2, new_key, original)
    assert check.holds, check.to_json()


def test_cli_safe_release_checks_and_has_no_cover_problem(semtui, tmp_path, samples):
    orig = samples / "meps400-original.txt"
    out, key = tmp_path / "d.json", tmp_path / "d.key.json"
    r = semtui("anonymize", "disassoc", orig, "-k", "3", "-m", "2", "--max-cluster-size", "12", "-o", out,
               "--key", key, "--safe", "--json")
    assert r.rc == 0, r.err
    doc = json.loads(r.out)
    assert doc["safe"]["cover_problems_before"] > 0 and doc["safe"]["suppressed_occurrences"] > 0
    assert semtui("check", "km", out, "-k", "3", "-m", "2", "--key", key, "--original", orig).rc == 0
    c = semtui("cover", out, "--json")
    assert c.rc == 0 and json.loads(c.out)["summary"]["cover_problems"] == 0
    from semtui.formats.disassociated import read_key

    assert sum(len(c.suppressed) for c in read_key(key).clusters) == doc["safe"]["suppressed_occurrences"]
