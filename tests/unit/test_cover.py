"""Cover problems (the cover-problem paper's Definition 3 and Algorithm 1, ALGORITHMS.md §3):
the paper's Fig. 3, the fixed loop, attackers, a brute-force recheck, and the CLI."""

from __future__ import annotations

import json
from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from semtui.attacks.cover import CoverOptions, cluster_cover_problems, run_cover
from semtui.formats.disassociated import parse_disassociated
from semtui.model import RecordChunk, TransactionData

# Fig. 3(a): c never occurs without a and b, so c is covered by a and b; e (support 2) in C2
FIG3 = {"format": "semtui-disassociated/1", "k": 2, "m": 2,
        "clusters": [{"id": "R1", "size": 4,
                      "record_chunks": [[["a", "b", "c"], ["a", "b", "c"], ["a", "b"], ["a", "b"]],
                                        [["e"], ["e"]]],
                      "term_chunk": []}]}
FIG3_ORIGINAL = [["a", "b", "c", "e"], ["a", "b", "c", "e"], ["a", "b"], ["a", "b"]]


def test_fig3_cover_problem_strong_attacker():
    data = parse_disassociated(FIG3, "fig3")
    report = run_cover(data, CoverOptions(attacker="strong")).to_json()
    assert report["summary"]["cover_problems"] == 1
    (p,) = report["cover_problems"]
    assert (p["x"], p["covered"], sorted(p["covering"])) == ("e", ["c"], ["a", "b"])
    assert (p["chunk"], p["earlier_chunk"], p["support_x"], p["itemset_support"]) == (2, 1, 2, 2)
    assert p["supports"] == {"c": 2, "a": 4, "b": 4}
    assert p["breach"] and report["summary"]["vulnerable_records"] == 1


def test_fig3_with_the_original_counts_real_pairs():
    data = parse_disassociated(FIG3, "fig3")
    report = run_cover(data, CoverOptions(attacker="strong"), original=TransactionData.from_lists(FIG3_ORIGINAL)).to_json()
    assert report["summary"]["real_pairs"] == 1 and report["cover_problems"][0]["real"] is True
    # e went with a and b in records that do not hold c: the pair (e, c) is not real
    other = [["a", "b", "c"], ["a", "b", "c"], ["a", "b", "e"], ["a", "b", "e"]]
    report = run_cover(data, CoverOptions(attacker="strong"), original=TransactionData.from_lists(other)).to_json()
    assert report["summary"]["real_pairs"] == 0


def test_knowledge_decides_the_breach():
    data = parse_disassociated(FIG3, "fig3")
    with_pair = [np.asarray(sorted([data.vocab.id("e"), data.vocab.id("c")]))]
    without = [np.asarray(sorted([data.vocab.id("e"), data.vocab.id("a")])),
               np.asarray(sorted([data.vocab.id("b"), data.vocab.id("c")]))]
    assert run_cover(data, knowledge=with_pair).summary.breaches == 1
    rep = run_cover(data, knowledge=without).to_json()
    assert rep["summary"]["cover_problems"] == 1 and rep["summary"]["breaches"] == 0


def test_every_item_is_checked_not_only_the_first():
    """The pseudo-code's loop sets l once per chunk; here the first item of C2 (d, support 3:
    I = {a, b}, together only twice) has no cover problem but the second (e, support 2) has one."""
    doc = json.loads(json.dumps(FIG3))
    doc["clusters"][0]["record_chunks"] = [[["a", "b", "c"], ["a", "b", "c"], ["a"], ["b"]],
                                           [["d", "e"], ["d", "e"], ["d"]]]
    data = parse_disassociated(doc, "x")
    report = run_cover(data).to_json()
    assert [p["x"] for p in report["cover_problems"]] == ["e"]


def test_single_item_itemset_is_not_a_cover_problem():
    # only a reaches e's support: I = {a} covers nothing
    doc = {"format": "semtui-disassociated/1", "k": 2, "m": 2,
           "clusters": [{"id": "R", "size": 4, "record_chunks": [[["a", "b"], ["a"], ["a"], ["a", "c"]],
                                                                 [["e"], ["e"], ["e"]]], "term_chunk": []}]}
    assert run_cover(parse_disassociated(doc, "x")).summary.cover_problems == 0


def test_vulnerable_records_is_the_largest_chunk_count_summed_over_clusters():
    c = FIG3["clusters"][0]
    three = {"id": "R2", "size": 4, "record_chunks": c["record_chunks"] + [[["f"], ["f"]], [["g"], ["g"]]],
             "term_chunk": []}
    doc = {"format": "semtui-disassociated/1", "k": 2, "m": 2, "clusters": [c, three]}
    report = run_cover(parse_disassociated(doc, "x")).to_json()
    per = {cl["id"]: cl for cl in report["clusters"]}
    assert per["R1"]["vulnerable_records"] == 1
    # in R2, f (C3) and g (C4) are each covered by a, b against C1: the largest chunk count counts
    assert per["R2"]["vulnerable_records"] == max(per["R2"]["breaches_per_chunk"])
    assert report["summary"]["vulnerable_records"] == sum(cl["vulnerable_records"] for cl in report["clusters"])


def test_weak_and_moderate_attackers_are_seeded():
    data = parse_disassociated(FIG3, "fig3")
    weak = run_cover(data, CoverOptions(attacker="weak", seed=1)).to_json()
    # only 4 items in this release: every 2-combination of them and the 10 outside words
    assert weak["knowledge_itemsets"] == len(list(combinations(range(4 + 10), 2)))
    assert len(weak["outside_words"]) == 10
    orig = TransactionData.from_lists(FIG3_ORIGINAL)
    a = run_cover(data, CoverOptions(attacker="moderate", seed=3), original=orig).to_json()
    b = run_cover(data, CoverOptions(attacker="moderate", seed=3), original=orig).to_json()
    assert a["summary"] == {**b["summary"], "seconds": a["summary"]["seconds"]}
    assert a["knowledge_itemsets"] <= 3  # a strict subset of the 4 records, one pair each


def test_weak_attacker_knows_190_itemsets_on_a_large_vocabulary():
    doc = json.loads(json.dumps(FIG3))
    doc["clusters"][0]["term_chunk"] = [f"t{i}" for i in range(20)]
    report = run_cover(parse_disassociated(doc, "x"), CoverOptions(attacker="weak")).to_json()
    assert report["knowledge_itemsets"] == 190


# ---------------------------------------------------------------- brute force
def brute_force(chunks: list[list[set]]) -> set:
    found = set()
    for j in range(1, len(chunks)):
        for x in set().union(*chunks[j]) if chunks[j] else set():
            sx = sum(x in sr for sr in chunks[j])
            for ell in range(j):
                items = set().union(*chunks[ell]) if chunks[ell] else set()
                sup = {y: sum(y in sr for sr in chunks[ell]) for y in items}
                big = {y for y in items if sup[y] >= sx}
                if len(big) < 2:
                    continue
                whole = sum(big <= sr for sr in chunks[ell])
                low = min(sup[y] for y in big)
                if whole == low:
                    found.add((j, ell, x, frozenset(y for y in big if sup[y] == low)))
    return found


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(st.sets(st.integers(0, 7), max_size=4), min_size=1, max_size=8), min_size=1, max_size=4))
def test_cover_problems_match_brute_force(raw):
    # items of different chunks are disjoint in a disassociation: offset each chunk's ids
    chunks = [[{10 * j + i for i in sr} for sr in ch] for j, ch in enumerate(raw)]
    rcs = [RecordChunk.from_lists([sorted(sr) for sr in ch]) for ch in chunks]
    got = {(p.chunk, p.earlier, p.x, frozenset(p.covered)) for p in cluster_cover_problems(rcs)}
    assert got == brute_force(chunks)
    for p in cluster_cover_problems(rcs):
        # a real cover problem: every sub-record holding a covered item holds all of I
        ch = chunks[p.earlier]
        whole = set(p.covered) | set(p.covering)
        for y in p.covered:
            assert all(whole <= sr for sr in ch if y in sr)


# ---------------------------------------------------------------- the CLI
@pytest.fixture
def fig3_file(tmp_path):
    path = tmp_path / "fig3.json"
    path.write_text(json.dumps(FIG3))
    return path


@pytest.mark.slow
def test_cli_cover_exit_codes(cli, fig3_file, tmp_path):
    r = cli("cover", fig3_file, "--json")
    assert r.returncode == 1, r.stderr
    doc = json.loads(r.stdout)
    assert doc["format"] == "semtui-cover-report/1" and doc["summary"]["breaches"] == 1
    know = tmp_path / "know.txt"
    know.write_text("e, a\nb, c\n")
    r = cli("cover", fig3_file, "--knowledge", know)
    assert r.returncode == 0, r.stderr
    know.write_text("e, c\n")
    r = cli("cover", fig3_file, "--knowledge", know)
    assert r.returncode == 1 and "covered c" in r.stdout


@pytest.mark.slow
def test_cli_cover_bad_input(cli, fig3_file, tmp_path):
    r = cli("cover", fig3_file, "--attacker", "moderate")
    assert r.returncode == 2 and "--original" in r.stderr
    r = cli("cover", fig3_file, "--attacker", "nobody")
    assert r.returncode == 2
    plain = tmp_path / "p.txt"
    plain.write_text("a, b\n")
    r = cli("cover", plain)
    assert r.returncode == 2 and "disassociated" in r.stderr and "Traceback" not in r.stderr


def test_cli_cover_on_sample(cli, samples):
    r = cli("cover", samples / "disassociated.json", "--original", samples / "disassociated-original.txt", "--json")
    assert r.returncode in (0, 1), r.stderr
    doc = json.loads(r.stdout)
    assert (r.returncode == 1) == (doc["summary"]["breaches"] > 0)
    assert doc["summary"]["real_pairs"] <= doc["summary"]["cover_problems"]


@pytest.mark.slow
def test_with_the_key_every_problem_names_the_records_it_reaches(samples, tmp_path):
    """Issue 23, finding 7: with the key, a problem lists the original transactions whose
    sub-record of its chunk holds x; each really holds x (the key and the original agree), and
    ``holds_covered`` says whether it holds the covered item too.  ``semtui cover --key`` prints them."""
    from conftest import run_cli

    from semtui.anonymize.disassociation import disassociate
    from semtui.attacks.cover import chunk_transactions, cluster_chunks
    from semtui.formats import read_transactions
    from semtui.formats.disassociated import write_disassociated, write_key

    orig = read_transactions(samples / "meps400-original.txt")
    made = disassociate(orig, 3, 2, 30)
    doc = run_cover(made.data, original=orig, key=made.key).to_json()
    breached, real, shared_seen = set(), set(), set()
    assert doc["cover_problems"]
    for p in doc["cover_problems"]:
        assert p["records"]
        for r in p["records"]:
            held = set(orig.vocab.names(orig.transaction(r["transaction"])))
            assert p["x"] in held and r["line"] == orig.line_of(r["transaction"])
            assert r["holds_covered"] == bool(held & set(p["covered"]))
            if p["breach"]:
                breached.add(r["transaction"])
                if r["holds_covered"]:
                    real.add(r["transaction"])
        # no record holding x in that chunk (a record chunk or, after REFINE, a shared chunk) is
        # left out: the key's sub-records of the chunk
        ci = next(i for i, c in enumerate(made.data.clusters) if c.id == p["cluster"])
        chunk = cluster_chunks(made.data, ci)[0][p["chunk"] - 1]
        owners = chunk_transactions(made.data, made.key, ci, p["chunk"])
        x = made.data.vocab.get(p["x"])
        holders = {owners[i] for i in range(len(chunk)) if x in chunk.sub_record(i)}
        assert {r["transaction"] for r in p["records"]} == holders
        shared_seen.add(p["chunk"] > len(made.data.clusters[ci].record_chunks))
    assert doc["summary"]["breached_records"] == len(breached) and doc["summary"]["breached_records_real"] == len(real)
    assert shared_seen == {False, True}  # problems in record chunks and in shared chunks were both checked
    # without the key nothing changes in the report but the records
    plain = run_cover(made.data, original=orig).to_json()
    assert "breached_records" not in plain["summary"] and all("records" not in p for p in plain["cover_problems"])
    data, key = tmp_path / "d.json", tmp_path / "k.json"
    write_disassociated(made.data, data)
    write_key(made.key, key)
    out = run_cli("cover", str(data), "--key", str(key), "--original", str(samples / "meps400-original.txt"))
    assert out.returncode == 1 and f"records a breach reaches: {len(breached)} ({len(real)} really" in out.stdout
    first = min(real or breached)  # the records that really hold the pair are listed first
    assert f"T{first + 1} (line {orig.line_of(first)})" in out.stdout


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sets(st.sampled_from("abcdefgh"), min_size=1, max_size=5), min_size=6, max_size=30),
       st.integers(0, 3))
def test_a_reached_record_holds_a_covered_item_exactly_when_its_original_does(rows, seed):
    """With the key and the original, each record a problem reaches says whether the original
    record holds one of the problem's covered items: the vectorised search agrees with reading
    the record's items by name, and its line is the original's."""
    from semtui.anonymize.disassociation import disassociate

    original = TransactionData.from_lists([sorted(r) for r in rows])
    made = disassociate(original, 2, 2, 6)
    rep = run_cover(made.data, CoverOptions(seed=seed), original=original, key=made.key)
    for p in rep.cover_problems:
        assert p.records is not None
        for r in p.records:
            names = {original.vocab.items[i] for i in original.transaction(r.transaction).tolist()}
            assert r.holds_covered == bool(names & set(p.covered))
            assert r.line == original.line_of(r.transaction)


def test_records_reached_outside_an_empty_original_are_listed_without_a_line():
    """An original with no transaction (its lines given, empty): every record a problem reaches
    is listed by its transaction alone, as when it lies beyond the original."""
    import random

    from semtui.anonymize.disassociation import disassociate

    empty = TransactionData.from_lists([])
    empty.lines = np.zeros(0, dtype=np.int32)
    for seed in range(40):   # the first of the random releases of the property above with a record reached
        rnd = random.Random(seed)
        original = TransactionData.from_lists([sorted(rnd.sample("abcdefgh", rnd.randint(1, 5)))
                                               for _ in range(rnd.randint(6, 30))])
        made = disassociate(original, 2, 2, 6)
        rep = run_cover(made.data, CoverOptions(), original=empty, key=made.key)
        records = [r for p in rep.cover_problems for r in p.records]
        if records:
            break
    assert records and all(r.line is None and r.holds_covered is None for r in records)


def test_the_cli_names_a_shared_chunk_as_the_report_and_the_tui_do(semtui, tmp_path, samples):
    """A new user saw the TUI name x's chunk J1/S1 (REFINE's shared chunk) where `semtui cover`
    printed 'P1 C2', a chunk P1 does not have: the CLI now words the chunks by their one name."""
    out, key = tmp_path / "d.json", tmp_path / "d.key.json"
    made = semtui("anonymize", "disassoc", samples / "meps400-original.txt", "-k", "3", "-m", "2",
                  "--max-cluster-size", "20", "-o", out, "--key", key)
    assert made.rc == 0, made.err
    args = ("cover", out, "--original", samples / "meps400-original.txt")
    problems = [p for p in json.loads(semtui(*args, "--json").out)["cover_problems"] if p["breach"]][:20]
    assert any("/S" in p["chunk_label"] for p in problems)   # a shared chunk is among those shown
    text = semtui(*args).out
    for p in problems:
        assert f"  {p['cluster']} {p['chunk_label']} {p['x']} (support {p['support_x']}) -> {p['earlier_label']} " in text


def test_the_problems_found_once_give_every_attacker_the_report_it_gets_alone(samples):
    """``assess`` and ``harden`` run the strong, moderate and weak attackers on one release: the
    problems are found once (:class:`CoverProblems`) and each attacker's report is the one its run
    alone writes (timings aside), with and without the key; problems found on another release or
    original are not taken."""
    from semtui.anonymize.disassociation import disassociate
    from semtui.attacks.cover import CoverProblems
    from semtui.formats import read_transactions

    def untimed(doc: dict) -> dict:
        return {**doc, "summary": {k: v for k, v in doc["summary"].items() if k != "seconds"}}

    orig = read_transactions(samples / "meps400-original.txt")
    made = disassociate(orig, 3, 2, 30)
    found = CoverProblems.find(made.data, orig)
    assert len(found.entries) and found.real_pairs is not None
    seen = set()
    for who in ("strong", "moderate", "weak"):
        for key in (None, made.key):
            alone = run_cover(made.data, CoverOptions(attacker=who), original=orig, key=key).to_json()
            shared = run_cover(made.data, CoverOptions(attacker=who), original=orig, key=key, problems=found).to_json()
            assert untimed(shared) == untimed(alone)
            seen.add(alone["summary"]["breaches"])
    assert len(seen) == 3   # the attackers breach differently: the breaches are each attacker's own
    # problems of another release (or without the original) are found again, not taken
    other = disassociate(orig, 2, 2, 30)
    assert not found.fits(other.data, orig) and not found.fits(made.data, None)
    alone = run_cover(other.data, CoverOptions(attacker="strong"), original=orig).to_json()
    assert untimed(run_cover(other.data, CoverOptions(attacker="strong"), original=orig, problems=found).to_json()) \
        == untimed(alone)
