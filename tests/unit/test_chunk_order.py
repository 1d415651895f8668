"""The order of a disassociated release's chunks carries nothing but their content: identical
sub-records of every record chunk, shared chunk and chunk rebuilt by the safe repair are in an
order drawn from the anonymiser's seed, independently per chunk (docs/anonymize.md, "The release
and the key").  Over seeds, a transaction's rank among its equals in one chunk says nothing of
its rank in another, and the release itself is the same for every seed."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from semtui import formats
from semtui.anonymize.disassociation import disassociate, remove_cover_problems
from semtui.checks.km import check_disassociated
from semtui.formats.disassociated import disassociated_to_json, parse_disassociated
from semtui.model import ClusterKey, DisassociationKey, TransactionData

SEEDS = range(48)


def classes(chunk) -> list[tuple]:
    """Each position's content (identical sub-records compare equal)."""
    return [tuple(chunk.sub_record(r).tolist()) for r in range(len(chunk))]


def same_position(release, key) -> tuple[int, float]:
    """The attacker who joins sub-record r of C2..Cn to sub-record r of C1: how often that is the
    same transaction (non-empty sub-records), and how often it would be if identical sub-records
    were in a random order -- what the content alone gives: for position r, |G1 & Gj| / (|G1| |Gj|),
    G the transactions of the identical sub-records at r in each chunk."""
    keys = {ck.id: ck for ck in key.clusters}
    hits, expected = 0, 0.0
    for c in release.clusters:
        if len(c.record_chunks) < 2:
            continue
        ck = keys[c.id]
        first, t1 = classes(c.record_chunks[0]), ck.record_chunks[0]
        g1: dict = {}
        for s, t in zip(first, t1):
            g1.setdefault(s, set()).add(t)
        for chunk, tj in zip(c.record_chunks[1:], ck.record_chunks[1:]):
            cj = classes(chunk)
            gj: dict = {}
            for s, t in zip(cj, tj):
                gj.setdefault(s, set()).add(t)
            for r, s in enumerate(cj):
                if s:
                    hits += tj[r] == t1[r]
                    a, b = g1[first[r]], gj[s]
                    expected += len(a & b) / (len(a) * len(b))
    return hits, expected


def ranks(chunk, transactions) -> dict[int, tuple]:
    """transaction -> (its sub-record's content, its position)."""
    return {t: (s, r) for r, (s, t) in enumerate(zip(classes(chunk), transactions))}


def agreements(a: dict, b: dict) -> tuple[int, int]:
    """Pairs of transactions identical in chunk a and identical in chunk b: how many come in the
    same order in both (ranks), of how many."""
    common = sorted(set(a) & set(b))
    same = total = 0
    for i, t in enumerate(common):
        for u in common[i + 1:]:
            if a[t][0] == a[u][0] and b[t][0] == b[u][0]:
                total += 1
                same += (a[t][1] < a[u][1]) == (b[t][1] < b[u][1])
    return same, total


def record_chunk_agreements(release, key) -> tuple[int, int]:
    keys = {ck.id: ck for ck in key.clusters}
    same = total = 0
    for c in release.clusters:
        ck = keys[c.id]
        rk = [ranks(ch, ts) for ch, ts in zip(c.record_chunks, ck.record_chunks)]
        for j in range(1, len(rk)):
            s, n = agreements(rk[0], rk[j])
            same, total = same + s, total + n
    return same, total


def within_chance(same: int, total: int) -> bool:
    """An order shared by two chunks agrees on every pair; independent ones on half of them."""
    return total > 0 and 0.25 <= same / total <= 0.75


# ------------------------------------------------------------------ record chunks
@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(k=st.integers(2, 4), data=st.data())
@pytest.mark.slow
def test_identical_sub_records_are_ordered_independently_in_every_chunk(k, data):
    """One cluster of few distinct sub-records: {a} x nA, {b} x nB, {a, b} x nAB and {c} x nE,
    with 0 < nAB < k so that a and b go to different chunks; over seeds the same-position join
    is right no more often than the content allows, the order of two transactions identical in
    both chunks agrees as often as not, and the release is the same for every seed."""
    n_a, n_b = data.draw(st.integers(k, k + 6)), data.draw(st.integers(k, k + 6))
    n_ab, n_e = data.draw(st.integers(1, k - 1)), data.draw(st.integers(0, 6))
    rows = [["a"]] * n_a + [["b"]] * n_b + [["a", "b"]] * n_ab + [["c"]] * n_e
    rows = data.draw(st.permutations(rows))
    original = TransactionData.from_lists(rows)
    docs, hits, expected, same, total = set(), 0, 0.0, 0, 0
    for seed in SEEDS:
        r = disassociate(original, k, 2, len(rows), seed=seed)
        assert len(r.data.clusters) == 1 and len(r.data.clusters[0].record_chunks) == 2
        docs.add(repr(disassociated_to_json(r.data)))
        h, e = same_position(r.data, r.key)
        s, n = record_chunk_agreements(r.data, r.key)
        hits, expected, same, total = hits + h, expected + e, same + s, total + n
        if seed < 2:
            assert check_disassociated(r.data, k, 2, r.key, original).holds
    assert len(docs) == 1                      # the release is a function of the content alone
    assert within_chance(same, total), (same, total)
    assert hits <= expected + 4 * math.sqrt(expected) + 3, (hits, expected)


# ------------------------------------------------------------------ REFINE's shared chunks
@settings(max_examples=20, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(k=st.integers(2, 4), data=st.data())
@pytest.mark.slow
def test_a_shared_chunk_does_not_order_its_sub_records_by_member_cluster(k, data):
    """P1 = {x, z} x p1z + {x} x p1, P2 = {y, z} x p2z + {y} x p2: z is rare in each cluster and
    frequent in the two, so REFINE moves it into a shared chunk of identical {z} (and empty)
    sub-records.  Which member comes first among them is a coin toss over seeds, not P1 always."""
    p1z, p2z = data.draw(st.integers(1, k - 1)), data.draw(st.integers(1, k - 1))
    if p1z + p2z < k:
        p2z = k - p1z
    p1, p2 = data.draw(st.integers(max(k, p2z + 1), k + 5)), data.draw(st.integers(max(k, p1z + 1), k + 5))
    rows = [["x", "z"]] * p1z + [["x"]] * p1 + [["y", "z"]] * p2z + [["y"]] * p2
    original = TransactionData.from_lists(rows)
    n1, n2 = p1z + p1, p2z + p2
    docs, first, pairs = set(), 0, 0
    for seed in SEEDS:
        r = disassociate(original, k, 2, max(n1, n2), joint_max_size=n1 + n2, seed=seed)
        assert [jc.clusters for jc in r.data.joint_clusters] == [["P1", "P2"]]
        docs.add(repr(disassociated_to_json(r.data)))
        member = {t: ck.id for ck in r.key.clusters for t in ck.records}
        [shared], [rows_of] = r.data.joint_clusters[0].shared_chunks, r.key.joint_clusters[0].shared_chunks
        content = classes(shared)
        for i in range(len(rows_of)):
            for j in range(i + 1, len(rows_of)):
                if content[i] == content[j] and member[rows_of[i]] != member[rows_of[j]]:
                    pairs += 1
                    first += member[rows_of[i]] == "P1"
        if seed < 2:
            assert check_disassociated(r.data, k, 2, r.key, original).holds
    assert len(docs) == 1
    assert within_chance(first, pairs), (first, pairs)


# ------------------------------------------------------------------ the safe repair
# C1 = {abc x3, ab x3}, C2 = {e x3, {} x3} (tests/unit/test_safe_disassoc.py): a cut takes a out of
# one abc sub-record; the key given lines the two chunks up (transaction r at position r in both).
CUTTABLE = {"format": "semtui-disassociated/1", "k": 2, "m": 2,
            "clusters": [{"id": "P1", "size": 6,
                          "record_chunks": [[["a", "b", "c"]] * 3 + [["a", "b"]] * 3, [["e"]] * 3 + [[]] * 3],
                          "term_chunk": []}]}


def test_the_safe_repair_draws_the_order_of_the_chunks_it_rebuilds_afresh():
    data = parse_disassociated(CUTTABLE, "t")
    key = DisassociationKey([ClusterKey("P1", [list(range(6)), list(range(6))], [])])
    docs, same, total = set(), 0, 0
    for seed in SEEDS:
        safe, new_key, report = remove_cover_problems(data, key, seed=seed)
        assert report.cuts == 1
        docs.add(repr(disassociated_to_json(safe)))
        s, n = record_chunk_agreements(safe, new_key)
        same, total = same + s, total + n
    assert len(docs) == 1
    # transactions 3, 4, 5 are ab in C1 and empty in C2: their order no longer lines up
    assert within_chance(same, total), (same, total)


# ------------------------------------------------------------------ real data
@pytest.mark.slow
def test_on_bms_webview_1_the_same_position_join_is_at_chance(shared_data):
    """The first 20,000 sessions of BMS-WebView-1, k = 5, m = 2, N = 30: in transaction order the
    same-position join was right 97 times of 716 where the content allows 51.9; now it is at
    chance over seeds (58, 69, 51 for seeds 0-2; 52.7 on average over seeds 3-22), and the release
    passes the independent check."""
    data = formats.read_transactions(shared_data / "bms-webview-1.dat")
    data = TransactionData.from_lists([data.token_names(i) for i in range(20_000)])
    hits, expected = 0, 0.0
    docs = set()
    for seed in range(3):
        r = disassociate(data, 5, 2, 30, seed=seed)
        h, e = same_position(r.data, r.key)
        hits, expected = hits + h, expected + e
        docs.add(repr(disassociated_to_json(r.data)))
        if seed == 0:
            assert check_disassociated(r.data, 5, 2, r.key, data).holds
    assert len(docs) == 1
    assert expected > 100
    assert hits <= expected + 4 * math.sqrt(expected), (hits, expected)


def test_a_negative_seed_is_bad_input(semtui, tmp_path, samples):
    res = semtui("anonymize", "disassoc", samples / "disassociated-original.txt", "-k", "2", "-m", "2",
                 "--max-cluster-size", "4", "--seed", "-1", "-o", tmp_path / "d.json")
    assert res.rc == 2
    res.one_error_line("--seed", "-1")
    assert not (tmp_path / "d.json").exists()


def test_the_run_report_records_the_seed(semtui, tmp_path, samples):
    import json

    res = semtui("anonymize", "disassoc", samples / "disassociated-original.txt", "-k", "2", "-m", "2",
                 "--max-cluster-size", "4", "--seed", "7", "-o", tmp_path / "d.json", "--json")
    assert res.rc == 0, res.err
    assert json.loads(res.out)["seed"] == 7
    assert (tmp_path / "d.json").read_bytes() == (samples / "disassociated.json").read_bytes()
