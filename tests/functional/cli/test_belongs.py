"""Issue 19, class 4: no false all-clear from inputs that do not belong together.

Every command that reads a release with its original and/or key (``attack setgen``,
``attack disassoc``, ``cover``, ``check km``, ``open``) is walked through an original of
another length, a shuffled original, another dataset's original, another release's key and a
release with nothing to check: each must exit 2 with one stderr line naming the file at fault
(``semtui.model.belongs.check_belongs`` is the one check behind them all).  The mismatched
files are built in tmp_path from sample_data.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import SAMPLES, Result

SETGEN = SAMPLES / "medical-setgen.txt"
SETGEN_ORIGINAL = SAMPLES / "medical-original.txt"
DIS = SAMPLES / "disassociated.json"
KEY = SAMPLES / "disassociated.key.json"
DIS_ORIGINAL = SAMPLES / "disassociated-original.txt"
MEPS = SAMPLES / "meps400-original.txt"


def refused(r: Result, culprit: Path, *words: str) -> None:
    """Exit 2, exactly one stderr line, naming the file that does not fit."""
    assert r.rc == 2, (r.rc, r.out, r.err)
    assert r.err.count("\n") == 1 and "Traceback" not in r.err, r.err
    assert r.err.startswith(f"semtui: error: {culprit}"), r.err
    for w in words:
        assert w in r.err, (w, r.err)


def lines(path: Path) -> list[str]:
    return path.read_text().splitlines(keepends=True)


@pytest.fixture(scope="module")
def bad(tmp_path_factory) -> dict[str, Path]:
    """Originals and keys that do not belong, and releases with nothing to check."""
    tmp_path = tmp_path_factory.mktemp("bad")
    out = {}

    def write(name: str, text: str) -> Path:
        p = tmp_path / name
        p.write_text(text)
        out[name] = p
        return p

    for tag, src in (("setgen", SETGEN_ORIGINAL), ("dis", DIS_ORIGINAL)):
        rows = lines(src)
        write(f"{tag}-short.txt", "".join(rows[:-1]))
        write(f"{tag}-long.txt", "".join(rows + rows[:1]))
        write(f"{tag}-shuffled.txt", "".join(rows[1:] + rows[:1]))           # every line moved
        write(f"{tag}-foreign.txt", "".join(lines(MEPS)[:len(rows)]))         # same length, other data
    key = json.loads(KEY.read_text())
    key["clusters"][0]["record_chunks"][0][0] = 9                              # beyond the 4 transactions
    write("key-out-of-range.json", json.dumps(key))
    key = json.loads(KEY.read_text())
    key["clusters"][0]["id"] = "P7"                                           # another release's cluster
    write("key-other.json", json.dumps(key))
    key = json.loads(KEY.read_text())
    key["clusters"][0]["record_chunks"] = key["clusters"][0]["record_chunks"][:1]
    write("key-other-shape.json", json.dumps(key))
    # the real key of another release (the first 40 MEPS patients, disassociated)
    from conftest import run_cli

    write("meps40.txt", "".join(lines(MEPS)[:40]))
    r = run_cli("anonymize", "disassoc", out["meps40.txt"], "-k", 2, "-m", 2, "--max-cluster-size", 10,
                "-o", tmp_path / "meps40.json", "--key", tmp_path / "key-of-meps40.json")
    assert r.returncode == 0, r.stderr
    out["key-of-meps40.json"] = tmp_path / "key-of-meps40.json"
    write("empty.json", json.dumps({"format": "semtui-disassociated/1", "k": 2, "m": 2, "clusters": []}))
    write("itemless.json", json.dumps({"format": "semtui-disassociated/1", "k": 2, "m": 2, "clusters": [
        {"id": "P1", "size": 2, "record_chunks": [[[], []]], "term_chunk": []}]}))
    write("knowledge-foreign.txt", "".join(lines(MEPS)[:5]))
    return out


# --------------------------------------------------------------------------- set-generalised releases
@pytest.mark.parametrize("fault", ["short", "long", "shuffled", "foreign"])
@pytest.mark.slow
def test_set_generalised_release_with_an_original_that_does_not_belong(semtui, bad, fault):
    orig = bad[f"setgen-{fault}.txt"]
    why = "transactions but" if fault in ("short", "long") else "does not come from this line"
    refused(semtui("attack", "setgen", SETGEN, "--original", orig), orig, why, "belong")
    refused(semtui("open", SETGEN, "--original", orig), orig, why, "belong")


def test_a_key_is_refused_with_a_set_generalised_release(semtui):
    refused(semtui("open", SETGEN, "--key", KEY), KEY, "disassociated")


# --------------------------------------------------------------------------- disassociated releases
def _disassoc_commands(orig: Path, key: Path = KEY) -> list[tuple]:
    return [
        ("attack", "disassoc", DIS, "--key", key, "--original", orig, "--measure", "embedding"),
        ("check", "km", DIS, "-k", 2, "-m", 2, "--key", key, "--original", orig),
        ("open", DIS, "--key", key, "--original", orig),
    ]


@pytest.mark.parametrize("fault", ["short", "long", "shuffled", "foreign"])
def test_disassociated_release_with_an_original_that_does_not_belong(semtui, bad, fault):
    orig = bad[f"dis-{fault}.txt"]
    why = {"short": "transactions but", "long": "transactions but", "shuffled": "not in the original transaction",
           "foreign": "of the original"}[fault]
    for args in _disassoc_commands(orig):
        refused(semtui(*args), orig, why, "belong")
    if fault != "shuffled":
        # without the key the original is read as a set of records; its length and items still must fit
        for args in (("cover", DIS, "--original", orig), ("cover", DIS, "--original", orig, "--attacker", "moderate"),
                     ("open", DIS, "--original", orig)):
            refused(semtui(*args), orig, "belong")


def test_cover_reads_the_original_as_a_set_of_records(semtui, bad):
    """Without a key the original's order carries nothing: a shuffled original gives cover the
    same answer (so it is not refused), and that answer is the unshuffled one."""
    same = semtui("cover", DIS, "--original", DIS_ORIGINAL, "--attacker", "moderate", "--json")
    shuffled = semtui("cover", DIS, "--original", bad["dis-shuffled.txt"], "--attacker", "moderate", "--json")
    assert same.rc == shuffled.rc and same.rc in (0, 1)
    a, b = json.loads(same.out), json.loads(shuffled.out)
    assert a["cover_problems"] == b["cover_problems"] and a["summary"]["real_pairs"] == b["summary"]["real_pairs"]


@pytest.mark.parametrize("key", ["key-of-meps40.json", "key-out-of-range.json", "key-other.json",
                                 "key-other-shape.json"])
def test_disassociated_release_with_a_key_that_does_not_belong(semtui, bad, key):
    k = bad[key]
    for args in _disassoc_commands(DIS_ORIGINAL, k):
        refused(semtui(*args), k, "key")


def test_the_right_files_still_pass(semtui):
    """The same commands on files that do belong together are not refused."""
    assert semtui("check", "km", DIS, "-k", 2, "-m", 2, "--key", KEY, "--original", DIS_ORIGINAL).rc == 0
    assert semtui("attack", "setgen", SETGEN, "--original", SETGEN_ORIGINAL, "--json").rc == 0
    assert semtui("cover", DIS, "--original", DIS_ORIGINAL, "--json").rc in (0, 1)


# --------------------------------------------------------------------------- a check that exercises nothing
@pytest.mark.parametrize("release", ["empty.json", "itemless.json"])
def test_a_check_with_nothing_to_check_is_refused(semtui, bad, release):
    rel = bad[release]
    refused(semtui("check", "km", rel, "-k", 2, "-m", 2), rel, "nothing to check")
    if release == "empty.json":
        refused(semtui("cover", rel), rel, "nothing to check")
        refused(semtui("attack", "disassoc", rel), rel, "no cluster")


def test_cover_with_knowledge_of_another_dataset_is_refused(semtui, bad):
    know = bad["knowledge-foreign.txt"]
    refused(semtui("cover", DIS, "--knowledge", know), know, "nothing to check")


def test_check_privacy_with_constraints_of_another_dataset_is_refused(semtui, bad):
    cons = bad["knowledge-foreign.txt"]
    refused(semtui("check", "privacy", SETGEN, "--privacy", cons, "-k", 2), cons, "nothing to check")


def test_check_belongs_is_the_one_engine_check(tmp_path):
    """The engine function itself: quiet on files that belong, InputError naming the file otherwise."""
    from semtui import formats
    from semtui.errors import InputError
    from semtui.formats.disassociated import read_key
    from semtui.model.belongs import check_belongs

    rel = formats.read(DIS)
    key = read_key(KEY)
    orig = formats.read_transactions(DIS_ORIGINAL)
    check_belongs(rel, original=orig, key=key)
    rows = lines(DIS_ORIGINAL)
    swapped = tmp_path / "swapped.txt"
    swapped.write_text("".join([rows[1], rows[0], *rows[2:]]))
    with pytest.raises(InputError) as err:
        check_belongs(rel, original=formats.read_transactions(swapped), key=key, original_path=swapped)
    assert err.value.path == str(swapped)
    # a plain dataset is its own original; one item moved to another line is refused
    plain = formats.read_transactions(SETGEN_ORIGINAL)
    check_belongs(plain, original=plain)
    moved = tmp_path / "moved.txt"
    src = lines(SETGEN_ORIGINAL)
    first = src[0].rstrip("\n").split(", ")
    moved.write_text(", ".join(first[1:]) + "\n" + src[1].rstrip("\n") + ", " + first[0] + "\n" + "".join(src[2:]))
    with pytest.raises(InputError) as err:
        check_belongs(plain, original=formats.read_transactions(moved), original_path=moved)
    assert err.value.path == str(moved) and err.value.line == 1


def test_a_sidecar_of_another_release_is_refused(semtui, tmp_path):
    """``attack setgen`` and ``open`` read the k a release was made for from its sidecar
    (RELEASE.json); a stale one, of another release, is refused naming it."""
    import shutil

    rel = tmp_path / "medical.txt"
    shutil.copy(SETGEN, rel)
    side = tmp_path / "medical.txt.json"
    shutil.copy(SAMPLES / "meps400-setgen.txt.json", side)
    refused(semtui("attack", "setgen", rel, "--original", SETGEN_ORIGINAL), side, "sidecar", "belong")
    refused(semtui("open", rel), side, "sidecar", "belong")
    # the release's own sidecar is read
    r = semtui("attack", "setgen", SAMPLES / "meps400-setgen.txt", "--original", MEPS, "--json", "--method", "ra",
               "--seed", 1)
    assert r.rc == 0 and json.loads(r.out)["privacy"]["k_source"] == "sidecar"


def test_a_release_of_generalised_items_only_is_aligned_too():
    """A k^m release with m >= 2 often has no plain item left: its generalised items alone say
    whether the original aligns."""
    from semtui.errors import InputError
    from semtui.model import TransactionData
    from semtui.model.belongs import check_belongs

    rel = TransactionData.from_lists([[["a", "b"]], [["a", "b"], ["c", "d"]]])
    check_belongs(rel, original=TransactionData.from_lists([["a"], ["b", "d", "e"]]))
    with pytest.raises(InputError) as err:
        check_belongs(rel, original=TransactionData.from_lists([["a"], ["b", "e"]]), original_path="o.txt")
    assert err.value.path == "o.txt" and err.value.line == 2
