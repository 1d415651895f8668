"""Disassociation (HORPART + VERPART): the paper's Table 2 -> Table 3, properties on random
data checked by brute force and by the independent checker, bad input, the CLI, the TUI."""

from __future__ import annotations

import itertools
import json
import os
import stat
from collections import Counter

import numpy as np
import pytest
from conftest import SAMPLES, paused_at, wait_paused
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from semtui import formats
from semtui.anonymize.disassociation import disassociate, horpart
from semtui.anonymize.disassociation.verpart import record_chunks
from semtui.checks.km import check_disassociated
from semtui.errors import InputError
from semtui.model import TransactionData

TABLE2 = SAMPLES / "disassociated-original.txt"


def names(data, ids) -> list[str]:
    return data.vocab.names(ids)


# ------------------------------------------------------------------ the paper's example
def test_table_2_disassociated_with_k2_m2_has_the_shape_of_table_3():
    original = formats.read_transactions(TABLE2)
    result = disassociate(original, 2, 2, 10)
    release, key = result.data, result.key
    assert len(release.clusters) == 1
    c = release.clusters[0]
    assert c.size == 4 and len(c.record_chunks) == 2
    c1, c2 = c.record_chunks

    def subs(ch):
        return Counter(frozenset(names(release, ch.sub_record(r))) for r in range(len(ch)))

    # Table 3: C1 = the four sub-records over blood, treatment, lung, cancer
    assert subs(c1) == Counter([frozenset({"blood", "treatment", "lung"}), frozenset({"cancer", "lung", "treatment"}),
                                frozenset({"cancer", "lung", "blood"}), frozenset({"cancer", "blood", "treatment"})])
    # C2 = {tumor, biopsy} twice, and the empty sub-records of transactions 1 and 2
    assert subs(c2) == Counter({frozenset({"tumor", "biopsy"}): 2, frozenset(): 2})
    assert names(release, c.term_chunk) == ["vessel", "catheterisation", "radiotherapy"]
    ck = key.cluster("P1")
    assert ck.term_chunk == [[0], [0], [1]]
    assert sorted(ck.record_chunks[1][:2]) == [2, 3]  # tumor, biopsy came from transactions 3 and 4
    report = check_disassociated(release, 2, 2, key, original)
    assert report.holds and report.key_checked
    # not 2^3-anonymous: every 3-item sub-record of C1 occurs once
    assert check_disassociated(release, 2, 3).core.by_size == [0, 0, 4]


def test_the_bundled_sample_is_remade_by_its_documented_command(cli, tmp_path):
    """sample_data/README.md says how disassociated.json and its key were made."""
    out, key = tmp_path / "d.json", tmp_path / "d.key.json"
    result = cli("anonymize", "disassoc", TABLE2, "-k", "2", "-m", "2", "--max-cluster-size", "4", "--seed", "5",
                 "-o", out, "--key", key)
    assert result.returncode == 0, result.stderr
    assert out.read_bytes() == (SAMPLES / "disassociated.json").read_bytes()
    assert key.read_bytes() == (SAMPLES / "disassociated.key.json").read_bytes()
    assert "--max-cluster-size 4 --seed 5" in (SAMPLES / "README.md").read_text()


def test_horpart_splits_on_the_most_frequent_unused_item():
    # a: 5 transactions, b: 3, c: 3 (ties go to the lowest id: b before c)
    rows = [["a", "b"], ["a", "b"], ["a", "c"], ["a", "c"], ["a", "b", "c"], ["d"], ["d"], ["e"]]
    data = TransactionData.from_lists(rows)
    got = horpart(data.indptr, data.tokens, len(data.vocab), 2)
    # root (8) splits on a: {0..4} and {5,6,7}; {0..4} on b: {0,1,4} and {2,3}; {0,1,4} on c:
    # {4} and {0,1}; {5,6,7} on d: {5,6} and {7}
    assert [r.tolist() for r in got] == [[4], [0, 1], [2, 3], [5, 6], [7]]


def test_horpart_keeps_identical_transactions_together_when_it_cannot_split():
    data = TransactionData.from_lists([["a", "b"]] * 7 + [["c"]])
    got = horpart(data.indptr, data.tokens, len(data.vocab), 3)
    assert sorted(len(r) for r in got) == [1, 7]


# ------------------------------------------------------------------ properties
transactions = st.lists(st.lists(st.integers(0, 9), max_size=6), min_size=1, max_size=40).filter(
    lambda rows: any(rows))


def brute_minimal_violations(sub_records: list[frozenset], k: int, m: int) -> set[frozenset]:
    counts: Counter = Counter()
    for sr in sub_records:
        for size in range(1, m + 1):
            counts.update(frozenset(c) for c in itertools.combinations(sorted(sr), size))
    return {s for s, n in counts.items() if n < k}


def cluster_of_key(key) -> dict[int, str]:
    out = {}
    for ck in key.clusters:
        for ts in ck.record_chunks:
            for t in ts:
                out[t] = ck.id
        for ts in ck.term_chunk:
            for t in ts:
                out[t] = ck.id
    return out


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=transactions, k=st.integers(1, 4), m=st.integers(1, 3), extra=st.integers(0, 6),
       joint=st.one_of(st.none(), st.integers(0, 12)), seed=st.integers(0, 2**32))
def test_properties_on_random_data(rows, k, m, extra, joint, seed):
    """With and without REFINE (``joint`` None: --no-refine; else the joint clusters' size
    bound is 2k + joint); any seed (it orders identical sub-records)."""
    n_max = k + extra
    data = TransactionData.from_lists([[f"i{x}" for x in r] for r in rows])
    result = disassociate(data, k, m, n_max, refine=joint is not None,
                          joint_max_size=None if joint is None else 2 * k + joint, seed=seed)
    if joint is None:
        assert not result.data.joint_clusters
    release, key = result.data, result.key
    original = [set(data.vocab.names(data.transaction(t))) for t in range(data.n_transactions)]

    # the independent checker agrees
    report = check_disassociated(release, k, m, key, data)
    assert report.holds, report.to_json()

    # every original item occurrence is in exactly one place, the one the key says
    placed: Counter = Counter()
    for c in release.clusters:
        ck = key.cluster(c.id)
        domains = []
        for j, ch in enumerate(c.record_chunks):
            assert len(ch) == c.size  # one sub-record per transaction, empty ones kept
            assert sorted(ck.record_chunks[j]) == sorted(ck.record_chunks[0])
            subs = [frozenset(release.vocab.names(ch.sub_record(r))) for r in range(len(ch))]
            for t, sr in zip(ck.record_chunks[j], subs):
                placed.update((t, i) for i in sr)
            # brute force: the chunk is k^m-anonymous
            assert not brute_minimal_violations(subs, k, m)
            domains.append(set().union(*subs))
        cluster_rows = (set(ck.records) if ck.records is not None else set(ck.record_chunks[0]) if c.record_chunks
                        else set(itertools.chain(*ck.term_chunk)))
        for term, ts in zip(release.vocab.names(c.term_chunk), ck.term_chunk):
            placed.update((t, term) for t in ts)
            # a term really has support < k in its cluster
            assert sum(term in original[t] for t in cluster_rows) < k
        for d in domains:  # items of a record chunk have support >= k in the cluster
            for item in d:
                assert sum(item in original[t] for t in cluster_rows) >= k
        # greedy: an item of a later chunk would have broken every earlier chunk
        for j, d in enumerate(domains):
            chunk_j = [frozenset(original[t] & d) for t in ck.record_chunks[0]]
            for later in domains[j + 1:]:
                for item in later:
                    grown = [sr | ({item} if item in original[t] else set())
                             for sr, t in zip(chunk_j, ck.record_chunks[0])]
                    assert brute_minimal_violations(grown, k, m)
    # REFINE's shared chunks: one sub-record per record of the members, k^m-anonymous, each
    # sub-record from a record of a member cluster
    size_of = {c.id: c.size for c in release.clusters}
    for jc in release.joint_clusters:
        jk = next(j for j in key.joint_clusters if j.id == jc.id)
        members = set().union(*(key.cluster(x).records for x in jc.clusters))
        for j, ch in enumerate(jc.shared_chunks):
            assert len(ch) == sum(size_of[x] for x in jc.clusters)
            assert sorted(jk.shared_chunks[j]) == sorted(members)
            subs = [frozenset(release.vocab.names(ch.sub_record(r))) for r in range(len(ch))]
            assert not brute_minimal_violations(subs, k, m)
            for t, sr in zip(jk.shared_chunks[j], subs):
                placed.update((t, i) for i in sr)
    expected = Counter((t, i) for t, items in enumerate(original) for i in items)
    assert placed == expected

    # clusters partition the transactions; HORPART splits everything larger than N it can
    clusters = horpart(data.indptr, data.tokens, len(data.vocab), n_max)
    assert sorted(np.concatenate(clusters).tolist()) == list(range(data.n_transactions))
    assert [len(r) for r in clusters] == [c.size for c in release.clusters]
    for r in clusters:
        if len(r) > n_max:
            assert len({frozenset(original[t]) for t in r.tolist()}) == 1
    member = cluster_of_key(key)
    for c, r in zip(release.clusters, clusters):
        assert all(member.get(t, c.id) == c.id for t in r.tolist())


@settings(max_examples=80, deadline=None)
@given(rows=st.lists(st.lists(st.integers(0, 7), max_size=6, unique=True), min_size=1, max_size=70),
       k=st.integers(1, 5))
def test_m2_conflict_graph_agrees_with_the_levelwise_test(rows, k):
    """The m = 2 shortcut and the general bitmask test make the same chunks (also over 64 rows)."""
    pos = np.array([i for r in rows for i in r], dtype=np.int64)
    row = np.array([t for t, r in enumerate(rows) for _ in r], dtype=np.int64)
    n_freq = 8
    assert record_chunks(pos, row, len(rows), n_freq, k, 2) == record_chunks(
        pos, row, len(rows), n_freq, k, 2, pairwise=False)


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize("args, message", [
    (["-k", "0", "-m", "2", "--max-cluster-size", "5"], "-k must be at least 1"),
    (["-k", "2", "-m", "0", "--max-cluster-size", "5"], "-m must be at least 1"),
    (["-k", "3", "-m", "2", "--max-cluster-size", "2"], "--max-cluster-size must be at least k=3"),
])
@pytest.mark.slow
def test_bad_parameters_exit_2_with_one_line(cli, tmp_path, args, message):
    result = cli("anonymize", "disassoc", TABLE2, *args, "-o", tmp_path / "out.json")
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0 and message in result.stderr
    assert not (tmp_path / "out.json").exists()


@pytest.mark.parametrize("name, content, message", [
    ("setgen.txt", None, "not set-generalised"),
    ("dashes.txt", "-\n-\n", "empty"),
    ("empty.txt", "", "empty"),
    ("release.json", "disassociated", "expected transactions"),
])
@pytest.mark.slow
def test_bad_datasets_exit_2_with_one_line(cli, tmp_path, name, content, message):
    if content is None:
        src = SAMPLES / "medical-setgen.txt"
    elif content == "disassociated":
        src = SAMPLES / "disassociated.json"
    else:
        src = tmp_path / name
        src.write_text(content)
    result = cli("anonymize", "disassoc", src, "-k", "2", "-m", "2", "--max-cluster-size", "4",
                 "-o", tmp_path / "out.json")
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip().count("\n") == 0 and message in result.stderr
    assert "Traceback" not in result.stderr


def test_engine_refuses_the_same_bad_input():
    data = TransactionData.from_lists([["a", "b"], ["a"]])
    with pytest.raises(InputError, match="at least k"):
        disassociate(data, 3, 2, 2)
    with pytest.raises(InputError, match="empty"):
        disassociate(TransactionData.from_lists([[], []]), 1, 1, 1)


# ------------------------------------------------------------------ CLI and TUI
@pytest.mark.slow
def test_cli_writes_release_and_private_key_that_check_km_accepts(cli, tmp_path):
    out, key = tmp_path / "r.json", tmp_path / "r.key.json"
    result = cli("anonymize", "disassoc", TABLE2, "-k", "2", "-m", "2", "--max-cluster-size", "10",
                 "-o", out, "--key", key, "--json")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert (doc["clusters"], doc["record_chunks"], doc["term_chunk_terms"]) == (1, 2, 3)
    assert stat.S_IMODE(os.stat(key).st_mode) == 0o600
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temporary left
    check = cli("check", "km", out, "-k", "2", "-m", "2", "--key", key, "--original", TABLE2, "--json")
    assert check.returncode == 0, check.stdout
    assert json.loads(check.stdout)["key"]["n_missing"] == 0
    # refusing to overwrite the input
    again = cli("anonymize", "disassoc", TABLE2, "-k", "2", "-m", "2", "--max-cluster-size", "10", "-o", TABLE2)
    assert again.returncode == 2 and "overwrite an input" in again.stderr


async def test_the_tui_opens_what_the_command_writes(tmp_path):
    from semtui.anonymize.disassociation import disassociate as run
    from semtui.formats.disassociated import write_disassociated, write_key
    from semtui.tui.app import SemtuiApp
    from semtui.tui.session import load_session

    data = TransactionData.from_lists([["a", "b", "c"], ["a", "b"], ["a", "c"], ["b", "c"], ["d"], ["d", "a"]])
    result = run(data, 2, 2, 3)
    write_disassociated(result.data, tmp_path / "r.json")
    write_key(result.key, tmp_path / "r.key.json")
    app = SemtuiApp(load_session(tmp_path / "r.json", key=tmp_path / "r.key.json"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.screen.list_pane.row_count == len(result.data.clusters)
        assert app.screen.detail.row_count > 0


def test_progress_reports_and_can_cancel():
    from semtui.errors import Interrupted

    data = formats.read_transactions(TABLE2)
    seen = []
    disassociate(data, 2, 2, 2, progress=lambda d, t, msg: seen.append((d, t, msg)))
    assert seen and seen[-1][0] == seen[-1][1] and {m for *_, m in seen} == {"HORPART", "VERPART"}

    def stop(done, total, message):
        raise Interrupted

    with pytest.raises(Interrupted):
        disassociate(data, 2, 2, 2, progress=stop)


def test_ctrl_c_leaves_neither_release_nor_key(tmp_path):
    """Ctrl-C once HORPART is done (the bundled MEPS sample, stopped at VERPART's first progress
    point by the test hook): exit 130, no release, no key, no temporary file."""
    import signal
    import subprocess
    import sys

    out, key, marker = tmp_path / "r.json", tmp_path / "r.key.json", tmp_path / "paused"
    proc = subprocess.Popen(
        [sys.executable, "-m", "semtui", "anonymize", "disassoc", str(SAMPLES / "meps400-original.txt"),
         "-k", "2", "-m", "3", "--max-cluster-size", "10", "-o", str(out), "--key", str(key)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=paused_at("VERPART", marker))
    wait_paused(proc, marker)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert os.listdir(tmp_path) == ["paused"]  # no release, no key, no temporary file


def test_a_repeated_item_counts_once(tmp_path):
    """FIMI lines may repeat an item; support counts transactions."""
    path = tmp_path / "dup.dat"
    path.write_text("1 1 2\n1 2\n2 2\n")
    data = formats.read_transactions(path)
    result = disassociate(data, 2, 2, 3)
    c = result.data.clusters[0]
    assert [len(ch) for ch in c.record_chunks] == [3]
    subs = sorted(sorted(result.data.vocab.names(c.record_chunks[0].sub_record(r))) for r in range(3))
    assert subs == [["1", "2"], ["1", "2"], ["2"]]
    assert check_disassociated(result.data, 2, 2, result.key, data).holds
