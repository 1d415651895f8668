"""Safe disassociation (``anonymize disassoc --safe``): cover problems removed by partial
suppression, checked by the independent witnesses (``check km`` with the key, ``cover``)."""

from __future__ import annotations

import json

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
    assert run_cover(data)["summary"]["cover_problems"] == 1
    safe, key, report = remove_cover_problems(data, _key(6, [6, 6]))
    assert (report.cuts, report.drops, report.suppressed_occurrences, report.cover_problems_before) == (1, 0, 1, 1)
    assert report.lost_pairs == 0
    assert run_cover(safe)["summary"]["cover_problems"] == 0
    (t, item), = key.clusters[0].suppressed
    assert item == "a" and t in (0, 1, 2)  # an abc sub-record lost its a
    c1 = [sorted(safe.vocab.names(safe.clusters[0].record_chunks[0].sub_record(r))) for r in range(6)]
    assert sorted(map(tuple, c1)) == sorted([("a", "b", "c")] * 2 + [("b", "c",)] + [("a", "b")] * 3)
    # the input was not changed
    assert run_cover(data)["summary"]["cover_problems"] == 1


def test_when_no_cut_keeps_km_the_later_item_is_dropped():
    data = parse_disassociated(FIG3, "t")
    safe, key, report = remove_cover_problems(data, _key(4, [4, 2]))
    assert (report.cuts, report.drops, report.suppressed_occurrences, report.lost_pairs) == (0, 1, 2, 1)
    assert report.removed_chunks == 1 and len(safe.clusters[0].record_chunks) == 1
    assert sorted(key.clusters[0].suppressed) == [(0, "e"), (1, "e")]
    assert run_cover(safe)["summary"]["cover_problems"] == 0
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
    assert run_cover(result.data)["summary"]["cover_problems"] == 0
    plain = disassociate(data, k, m, k + extra, refine=False)  # a safe release is built without REFINE
    before = run_cover(plain.data)["summary"]["cover_problems"]
    assert result.safe.cover_problems_before == before
    assert (result.safe.suppressed_occurrences > 0) == (before > 0)


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
