"""The independent k^m-anonymity witness: against brute force, on tampered releases, the CLI."""

from __future__ import annotations

import copy
import itertools
import json
from collections import Counter

import numpy as np
import pytest
from conftest import SAMPLES
from hypothesis import given, settings
from hypothesis import strategies as st

from semtui import formats
from semtui.checks.km import check_disassociated, check_transactions, km_violations
from semtui.formats.disassociated import read_key
from semtui.model import RecordChunk

TABLE2 = SAMPLES / "disassociated-original.txt"
RELEASE = SAMPLES / "disassociated.json"
KEY = SAMPLES / "disassociated.key.json"


def brute(rows: list[list[int]], k: int, m: int) -> list[tuple[tuple[int, ...], int]]:
    """Minimal violating itemsets by enumeration: support in [1, k), every (size-1)-subset >= k."""
    counts: Counter = Counter()
    for r in rows:
        for size in range(1, m + 1):
            counts.update(itertools.combinations(sorted(set(r)), size))
    out = []
    for s, n in counts.items():
        if n < k and all(counts[sub] >= k for sub in itertools.combinations(s, len(s) - 1) if sub):
            out.append((s, n))
    return sorted(out, key=lambda x: (len(x[0]), x[0]))


def csr(rows):
    indptr = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum([len(r) for r in rows], out=indptr[1:])
    return indptr, np.array([i for r in rows for i in r], dtype=np.int64)


@settings(max_examples=200, deadline=None)
@given(rows=st.lists(st.lists(st.integers(0, 11), max_size=7), min_size=1, max_size=30),
       k=st.integers(1, 4), m=st.integers(1, 4), limit=st.integers(0, 25))
@pytest.mark.slow
def test_minimal_violations_equal_brute_force(rows, k, m, limit):
    expected = brute(rows, k, m)
    got = km_violations(*csr(rows), k, m, limit=limit)
    assert got.n_violations == len(expected)
    # sizes are counted up to m, or up to the longest row when m is larger (no itemset is longer)
    sizes = max(1, min(m, max(len(r) for r in rows)))
    assert got.by_size == [sum(len(s) == size for s, _ in expected) for size in range(1, sizes + 1)]
    assert [(tuple(t.tolist()), s) for t, s in zip(got.itemsets, got.supports)] == expected[:limit]
    assert got.holds == (not expected)


def test_small_blocks_give_the_same_answer(monkeypatch):
    """The products run in blocks; force tiny blocks and compare."""
    import semtui.checks.km.violations as km

    rng = np.random.default_rng(3)
    rows = [rng.choice(15, size=rng.integers(1, 8), replace=False).tolist() for _ in range(200)]
    whole = km_violations(*csr(rows), 3, 3)
    monkeypatch.setattr(km, "_BLOCK_FLOPS", 7)
    monkeypatch.setattr(km._Levels, "_DENSE_PAIRS", 0)  # the searchsorted path for pairs
    blocked = km_violations(*csr(rows), 3, 3)
    assert (blocked.by_size, blocked.supports, blocked.frequent) == (whole.by_size, whole.supports, whole.frequent)
    assert [t.tolist() for t in blocked.itemsets] == [t.tolist() for t in whole.itemsets]
    assert whole.by_size == [sum(len(s) == n for s, _ in brute(rows, 3, 3)) for n in (1, 2, 3)]


def test_table_2_is_not_2_2_anonymous_and_table_3_is():
    report = check_transactions(formats.read_transactions(TABLE2), 2, 2)
    doc = report.to_json()
    assert not report.holds and doc["violations_by_size"] == {"1": 3, "2": 4}
    assert [v["itemset"] for v in doc["violations"]] == [
        ["vessel"], ["catheterisation"], ["radiotherapy"],
        ["treatment", "tumor"], ["treatment", "biopsy"], ["lung", "tumor"], ["lung", "biopsy"]]
    release = formats.read(RELEASE)
    original = formats.read_transactions(TABLE2)
    good = check_disassociated(release, 2, 2, read_key(KEY), original)
    assert good.holds and good.to_json()["key"]["n_misplaced"] == 0


def _release():
    release = formats.read(RELEASE)
    return release, read_key(KEY), formats.read_transactions(TABLE2)


def test_a_violating_chunk_is_found_with_its_place():
    release, _key, _original = _release()
    c = release.clusters[0]
    v = release.vocab
    # add blood to one sub-record of C2: {blood} has support 1 there, and blood is now in C1 and C2
    subs = [v.names(c.record_chunks[1].sub_record(r)) for r in range(4)]
    subs[0] = subs[0] + ["blood"]
    c.record_chunks[1] = RecordChunk.from_lists([[v.add(i) for i in s] for s in subs])
    report = check_disassociated(release, 2, 2)
    doc = report.to_json()
    assert not report.holds
    assert {"itemset": ["blood"], "support": 1, "where": "P1/C2"} in doc["violations"]
    assert any("'blood' is in C1 and in C2" in p for p in doc["structure_problems"])


def test_the_key_check_finds_misplaced_missing_and_frequent_terms():
    release, key, original = _release()
    # the key says tumor, biopsy of chunk 2 came from transactions 1 and 2 (they did not)
    bad = copy.deepcopy(key)
    bad.clusters[0].record_chunks[1] = [0, 1, 2, 3]
    report = check_disassociated(release, 2, 2, bad, original)
    assert not report.holds and report.core.holds
    k = report.to_json()["key"]
    assert k["n_misplaced"] == 4 and k["n_missing"] == 4
    # drop a term-chunk term: its occurrence is missing
    short = copy.deepcopy(release)
    short.clusters[0].term_chunk = short.clusters[0].term_chunk[:2]
    bad = copy.deepcopy(key)
    bad.clusters[0].term_chunk = bad.clusters[0].term_chunk[:2]
    k = check_disassociated(short, 2, 2, bad, original).to_json()["key"]
    assert k["n_missing"] == 1 and "radiotherapy" in k["missing"][0]
    # with k = 1 every term (support 1) is "really below k" no more
    k = check_disassociated(release, 1, 2, key, original).to_json()["key"]
    assert k["n_term_support"] == 3


def test_generalised_item_counts_as_one_item():
    """Fig. 2: every patient holds (blood pressure, icd, limbs, injury), one item of support 4;
    the other items are held once each."""
    rep = check_transactions(formats.read_transactions(SAMPLES / "medical-setgen.txt"), 4, 1)
    doc = rep.to_json()
    assert doc["kind"] == "set-generalised" and not rep.holds
    assert doc["frequent_by_size"] == {"1": 1}  # the generalised item, and only it
    named = {tuple(v["itemset"]) for v in doc["violations"]}
    assert ("(blood pressure, icd, limbs, injury)",) not in named and ("heart disease",) in named


def test_core_on_generalised_ids():
    """Another family (k^m generalisation) calls the core on its own integer ids."""
    rows = [[100, 7], [100, 7], [100], [3]]
    got = km_violations(*csr(rows), 2, 2)
    assert got.n_violations == 1 and got.itemsets[0].tolist() == [3]
    assert got.to_json()["violations"] == [{"itemset": [3], "support": 1}]
    assert json.dumps(got.to_json())


# ------------------------------------------------------------------ CLI
@pytest.mark.slow
def test_cli_exit_codes(cli, tmp_path):
    assert cli("check", "km", RELEASE, "-k", "2", "-m", "2").returncode == 0
    result = cli("check", "km", RELEASE, "-k", "2", "-m", "3", "--json")
    assert result.returncode == 1
    doc = json.loads(result.stdout)
    assert doc["n_violations"] == 4 and doc["violations"][0]["where"] == "P1/C1"
    plain = cli("check", "km", TABLE2, "-k", "2", "-m", "2")
    assert plain.returncode == 1 and "support 1: vessel" in plain.stdout
    ok = cli("check", "km", RELEASE, "-k", "2", "-m", "2", "--key", KEY, "--original", TABLE2)
    assert ok.returncode == 0 and "where the key says" in ok.stdout


@pytest.mark.parametrize("args, message", [
    (["-k", "0", "-m", "2"], "-k must be at least 1"),
    (["-k", "2", "-m", "0"], "-m must be at least 1"),
    (["-k", "2", "-m", "2", "--key", str(KEY)], "--key and --original go together"),
])
@pytest.mark.slow
def test_cli_bad_input(cli, args, message):
    result = cli("check", "km", RELEASE, *args)
    assert result.returncode == 2 and message in result.stderr
    assert result.stderr.strip().count("\n") == 0


@pytest.mark.slow
def test_cli_bad_files(cli, tmp_path):
    result = cli("check", "km", SAMPLES / "medical-setgen.txt", "-k", "2", "-m", "2")  # checked, violated
    assert result.returncode == 1 and "support 1: heart disease" in result.stdout
    result = cli("check", "km", TABLE2, "-k", "2", "-m", "2", "--key", KEY, "--original", TABLE2)
    assert result.returncode == 2 and "for disassociated releases" in result.stderr
    other = tmp_path / "k.json"
    other.write_text('{"format": "semtui-disassociation-key/1", "clusters": []}')
    result = cli("check", "km", RELEASE, "-k", "2", "-m", "2", "--key", other, "--original", TABLE2)
    assert result.returncode == 2 and "no cluster" in result.stderr


@pytest.mark.slow
def test_bms_webview_2_with_m_3(shared_data):
    """Real data: the plain file is far from 5^3-anonymous."""
    data = formats.read_transactions(shared_data / "bms-webview-2.dat")
    report = check_transactions(data, 5, 3)
    assert report.core.by_size == [211, 638262, 1033678]
