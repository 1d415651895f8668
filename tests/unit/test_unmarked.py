"""Unmarked releases (thesis §3.5.2): flattening a set-generalised release, recovering its
generalised items, scoring the recovery, and attacking what was recovered."""

from __future__ import annotations

import random

import numpy as np
import pytest
from conftest import SAMPLES, run_attack, write_fig4_scores
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from semtui import formats
from semtui.anonymize.setgen import anonymize, flatten
from semtui.attacks.setgen import AttackOptions
from semtui.attacks.setgen.unknown import describe, min_support, recover, signature_classes
from semtui.errors import InputError
from semtui.model import TransactionData

GROUP = ["blood pressure", "icd", "limbs", "injury"]
#: The thesis' Fig. 3.7: Fig. 2 with its generalised item not marked.
FIG_3_7 = [
    ["heart disease", "blood pressure", "icd", "limbs", "injury", "weakness", "dizziness"],
    ["anesthesia", "blood pressure", "icd", "limbs", "injury", "pain", "diabetes"],
    ["gangrene", "blood pressure", "icd", "limbs", "injury"],
    ["knee", "blood pressure", "icd", "limbs", "injury"],
]


def _sidecar(groups) -> dict:
    return {"generalisation": {"(" + ", ".join(g) + ")": list(g) for g in groups}}


def _rows(data: TransactionData) -> list[set]:
    """Each transaction as a set of plain items and frozensets of members."""
    return [{t if isinstance(t, str) else frozenset(t) for t in data.token_names(i)} for i in range(len(data))]


# --------------------------------------------------------------------------- the thesis' example
def test_flattening_figure_2_gives_the_thesis_figure_3_7():
    release = formats.read_transactions(SAMPLES / "medical-setgen.txt")
    flat = flatten(release)
    assert flat.n_generalised == 0
    assert [flat.token_names(i) for i in range(4)] == FIG_3_7


def test_figure_3_7_recovers_the_generalised_item_and_the_context():
    """The thesis' rules: bp, icd, limbs, injury are in more than one transaction (members);
    every other item is in one (context).  Signatures agree, and the marked release comes back."""
    flat = TransactionData.from_lists(FIG_3_7)
    rec = recover(flat, None, sidecar=_sidecar([GROUP]))
    assert rec.data.n_generalised == 1
    assert rec.data.member_names(0) == GROUP
    assert [rec.data.token_names(i) for i in range(4)] == [
            ["heart disease", GROUP, "weakness", "dizziness"], ["anesthesia", GROUP, "pain", "diabetes"],
            ["gangrene", GROUP], ["knee", GROUP]]
    ex = rec.exactness
    assert (ex["exact_matches"], ex["true_groups"], ex["group_precision"], ex["members_right_group"]) == (1, 1, 1.0, 1.0)
    assert rec.thesis_rules["exact_matches"] == 1  # the thesis' own rules suffice on its example
    # three signatures are shared: the group, and the two context pairs of rows 1 and 2 (one transaction each)
    assert rec.summary["shared_signatures"] == 3 and rec.summary["shared_signatures_below_support"] == 2


def test_figure_3_7_attacked_unmarked_is_the_marked_attack(tmp_path):
    """Recovered exactly, the unmarked release is attacked exactly as the marked one: RBA on
    Fig. 4's distances leaves the original items (ALGORITHMS.md §1: 10 eliminations)."""
    scores = write_fig4_scores(tmp_path / "fig4.csv")
    marked = formats.read_transactions(SAMPLES / "medical-setgen.txt")
    original = formats.read_transactions(SAMPLES / "medical-original.txt")
    a = run_attack(marked, original, measure=f"scores:{scores}", method="rba")
    b = run_attack(flatten(marked), original, measure=f"scores:{scores}", method="rba", unmarked=True)
    assert b["summary"]["eliminations"] == a["summary"]["eliminations"] == 10
    assert b["groups"] == a["groups"] and b["metrics"] == a["metrics"]
    cells = b["unmarked"]["cells"]
    assert cells["added_items"] == cells["added_in_groups"] == a["metrics"]["added"]
    assert cells["attack_recall_all_added"] == a["metrics"]["recall"]


# --------------------------------------------------------------------------- collisions and k
@pytest.mark.slow
def test_two_groups_with_the_same_transactions_collide_and_are_reported():
    """(a, b) and (c, d) cover the same three transactions: they come back as one generalised
    item (a, b, c, d), which the report names as a collision of the two."""
    marked = TransactionData.from_lists([
        [["a", "b"], ["c", "d"], "x"], [["a", "b"], ["c", "d"], "y"], [["a", "b"], ["c", "d"], "z"],
        [["e", "f"], "x"], [["e", "f"], "y"], [["e", "f"], "w"]])
    rec = recover(flatten(marked), 3, "option", sidecar=_sidecar([["a", "b"], ["c", "d"], ["e", "f"]]))
    assert sorted(rec.data.member_names(g) for g in range(rec.data.n_generalised)) == [["a", "b", "c", "d"], ["e", "f"]]
    ex = rec.exactness
    assert ex["collided"] == 1 and ex["exact_matches"] == 1 and ex["true_groups"] == 3
    assert ex["group_recall"] == pytest.approx(1 / 3) and ex["group_precision"] == 0.5
    assert ex["members_right_group"] == pytest.approx(2 / 6)
    assert ex["collisions"] == [{"recovered": "(a, b, c, d)", "true_groups": ["(a, b)", "(c, d)"]}]
    text = " ".join(describe(rec.to_json()))
    assert "1 recovered items merge generalised items that cover the same transactions (collisions)" in text
    assert "hides almost none of the member items (0.0 %)" in text and "66.7 % of the generalised items came back merged" in text
    # attacked: the merged item is one table of 4 columns; every added item is inside a table and counted
    original = TransactionData.from_lists([["a", "c", "x"], ["b", "d", "y"], ["a", "d", "z"], ["e", "x"], ["f", "y"],
                                           ["e", "w"]])
    report = run_attack(flatten(marked), original, measure="embedding", method="mda", unmarked=True, k=3)
    assert [len(g["members"]) for g in report["groups"]] == [4, 2]
    assert report["metrics"]["added"] == report["unmarked"]["cells"]["added_items"] == 6 + 3


def test_a_plain_item_with_a_groups_transactions_is_absorbed_and_reported():
    marked = TransactionData.from_lists([[["a", "b"], "p", "x"], [["a", "b"], "p", "y"], [["a", "b"], "p"], ["q", "x"]])
    rec = recover(flatten(marked), 2, "option", sidecar=_sidecar([["a", "b"]]))
    assert rec.data.member_names(0) == ["a", "b", "p"]
    ex = rec.exactness
    assert (ex["plain_items_absorbed"], ex["groups_absorbing_plain_items"], ex["exact_matches"]) == (1, 1, 0)
    assert ex["member_precision"] == pytest.approx(2 / 3) and ex["member_recall"] == 1.0


def test_knowing_k_drops_groups_in_fewer_transactions_and_the_cells_say_what_it_costs():
    """Two plain items that always meet in two transactions look like a generalised item; knowing
    k = 3 the attacker drops them.  A true generalised item of two transactions is dropped too: its
    added items stay plain, out of this attack's reach, and the recall over the release counts them."""
    original = TransactionData.from_lists([["a", "x"], ["b", "y"], ["a", "z"], ["c", "u", "v"], ["c", "u", "v"],
                                           ["d", "w"], ["e", "w"]])
    marked = TransactionData.from_lists([[["a", "b"], "x"], [["a", "b"], "y"], [["a", "b"], "z"],
                                         ["c", "u", "v"], ["c", "u", "v"], [["d", "e"], "w"], [["d", "e"], "w"]])
    flat = flatten(marked)
    side = _sidecar([["a", "b"], ["d", "e"]])
    no_k = recover(flat, None, sidecar=side, original=original)
    with_k = recover(flat, 3, "option", sidecar=side, original=original)
    assert no_k.data.n_generalised == 3  # (a, b), (c, u, v) false, (d, e, w): w absorbed
    assert no_k.exactness["false_groups"] == 1 and no_k.exactness["plain_items_absorbed"] == 1
    assert with_k.data.n_generalised == 1 and with_k.data.member_names(0) == ["a", "b"]
    assert with_k.exactness["true_groups_below_support"] == 1 and with_k.exactness["false_groups"] == 0
    assert with_k.cells == {**with_k.cells, "added_items": 5, "added_in_groups": 3, "added_left_plain": 2}
    assert "Not marking hides 40.0 % of the added items from this recovery" in " ".join(describe(with_k.to_json()))
    assert no_k.cells["added_in_groups"] == 5
    assert min_support(None) == 2 and min_support(1) == 2 and min_support(5) == 5
    report = run_attack(flat, original, measure="embedding", method="mda", unmarked=True, k=3)
    cells = report["unmarked"]["cells"]
    assert cells["attack_recall_all_added"] == pytest.approx(report["metrics"]["correct"] / 5, abs=1e-6)


def test_nothing_recovered_is_reported_not_an_error():
    flat = TransactionData.from_lists([["a", "b"], ["c"], ["d", "e"]])
    original = TransactionData.from_lists([["a", "b"], ["c"], ["d", "e"]])
    report = run_attack(flat, original, measure="embedding", unmarked=True)
    assert report["summary"]["groups"] == 0 and report["unmarked"]["recovered_groups"] == 0
    assert report["unmarked"]["cells"]["added_items"] == 0


def test_a_foreign_original_is_refused():
    flat = flatten(formats.read_transactions(SAMPLES / "medical-setgen.txt"))
    foreign = TransactionData.from_lists([["apple"], ["pear"], ["plum"], ["fig"]])
    with pytest.raises(InputError, match="shares no item with this line"):
        recover(flat, None, original=foreign, original_path="o.txt")


def test_unmarked_is_validated_once_in_the_options():
    with pytest.raises(InputError) as e:
        AttackOptions(unmarked="yes")
    assert e.value.option == "unmarked"
    marked = formats.read_transactions(SAMPLES / "medical-setgen.txt")
    with pytest.raises(InputError, match="marks its generalised items") as e:
        run_attack(marked, measure="embedding", unmarked=True)
    assert e.value.option == "unmarked"
    with pytest.raises(InputError, match="try --unmarked"):
        run_attack(flatten(marked), measure="embedding")


# --------------------------------------------------------------------------- the property
@st.composite
def coat_releases(draw):
    """A small random dataset, released by COAT with random privacy constraints."""
    seed = draw(st.integers(0, 2**31 - 1))
    rnd = random.Random(seed)
    n_items = draw(st.integers(4, 14))
    items = [f"i{j}" for j in range(n_items)]
    rows = [rnd.sample(items, rnd.randint(1, min(5, n_items))) for _ in range(draw(st.integers(3, 24)))]
    data = TransactionData.from_lists(rows)
    privacy = [rnd.sample(r, min(len(r), rnd.randint(1, 3))) for r in rnd.sample(rows, min(len(rows), 4))]
    k = draw(st.integers(2, 4))
    return data, anonymize(data, privacy, k), k


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(coat_releases(), st.booleans())
def test_recovery_finds_every_group_with_a_unique_signature(release, k_known):
    """On a flattened COAT release, every generalised item whose members' transaction set no
    other item shares (and that occurs in at least max(2, k) transactions) is recovered exactly;
    every other recovered item is reported as a collision, an absorption or a false group."""
    _, result, k = release
    released = result.data
    flat = flatten(released)
    k_attacker = k if k_known else None
    rec = recover(flat, k_attacker, sidecar={"generalisation": result.generalisation})
    cls, support = signature_classes(flat)
    recovered = {frozenset(rec.data.member_names(g)) for g in range(rec.data.n_generalised)}
    for g in range(released.n_generalised):
        members = released.members(g)
        sig = cls[members[0]]
        assert (cls[members] == sig).all()  # a flattened COAT group: one transaction set
        unique = np.count_nonzero(cls == sig) == len(members)
        if unique and support[members[0]] >= min_support(k_attacker):
            assert frozenset(released.member_names(g)) in recovered
    ex = rec.exactness
    n_rec = rec.data.n_generalised
    explained = ex["exact_matches"] + ex["collided"] + ex["false_groups"] + ex["groups_absorbing_plain_items"]
    assert explained >= n_rec  # nothing recovered goes unexplained
    if ex["exact_matches"] == ex["true_groups"] == n_rec:
        assert _rows(rec.data) == _rows(released)  # the marked release, exactly
