"""semtui harden's engine (semtui/harden/): exchangeable classes, the loop's regrouping, the
utility axis, the hierarchy order, and the guarantees (the same k and constraints, the checker
passes) -- on the papers' small examples, the bundled sample and hypothesis' small data."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import SAMPLES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from semtui import formats
from semtui.attacks.background import Background
from semtui.attacks.setgen.results import GroupWriteUp
from semtui.checks import check_privacy
from semtui.checks.km import check_transactions
from semtui.errors import InputError
from semtui.harden import (
    CHANCE_AUC,
    AttackFigures,
    exchangeable_classes,
    harden,
    load_knowledge,
    make,
    regroup,
    release_weights,
    support_errors,
)
from semtui.measures.order import ORDERS, ordered_leaves, profile_order, profile_vectors
from semtui.model import TransactionData

MEPS400 = SAMPLES / "meps400-original.txt"


# --------------------------------------------------------------------------- exchangeable classes
def test_classes_split_by_prior_then_profile():
    """Four items: a, b common, c, d rare; a goes with c, b with d.  Two bands of prior put a, b
    apart from c, d (the prior is the strongest signal); classes never mix the bands (rarest band first)."""
    names = ["a", "b", "c", "d"]
    log_prior = np.log([0.5, 0.5, 0.01, 0.01])
    vec = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.0, 1.0]])
    assert exchangeable_classes(names, log_prior, vec, None, bands=2, size=2) == [["c", "d"], ["a", "b"]]


def test_classes_cut_a_band_along_the_profile_chain():
    """One band of six items of equal prior: the chain goes from a to its nearest profile, and so on,
    and is cut every 3 items: a, b, c (alike) in one class, x, y, z in the other."""
    names = ["a", "x", "c", "y", "b", "z"]
    v = {"a": [1, 0], "b": [0.99, 0.14], "c": [0.98, 0.2], "x": [0, 1], "y": [0.1, 0.99], "z": [0.2, 0.98]}
    vec = np.array([np.array(v[n]) / np.linalg.norm(v[n]) for n in names])
    classes = exchangeable_classes(names, np.zeros(6), vec, None, bands=1, size=3)
    assert [sorted(c) for c in classes] == [["a", "b", "c"], ["x", "y", "z"]]


def test_classes_stay_inside_the_utility_constraints_given():
    """a and c are alike, but the user's constraints put a with b and c with d: no class crosses them."""
    names = ["a", "b", "c", "d"]
    classes = exchangeable_classes(names, np.zeros(4), np.eye(4), [["a", "b"], ["c", "d"]], bands=1, size=4)
    assert sorted(map(sorted, classes)) == [["a", "b"], ["c", "d"]]
    # an item in no utility constraint is in no class (COAT never generalises it)
    assert exchangeable_classes(names, np.zeros(4), np.eye(4), [["a", "b"]], bands=1, size=4) == [["a", "b"]]


def test_a_last_class_of_one_joins_the_one_before():
    names = list("abcde")
    classes = exchangeable_classes(names, np.zeros(5), np.full((5, 1), np.nan), None, bands=1, size=2)
    assert [len(c) for c in classes] == [2, 3]


# --------------------------------------------------------------------------- the loop's regrouping
def _written_up(members: list[str], table: list[list[float]]) -> GroupWriteUp:
    """A group as the attack writes it up: what regrouping reads is its members and its table."""
    return GroupWriteUp(id=0, generalised_item="(" + ", ".join(members) + ")", members=tuple(members),
                        size=len(table), rows=(), skipped=(), table=table, threshold=None, eliminations=(),
                        possible={}, exposed=(), reidentified_rows=0)


def test_regroup_moves_the_member_the_attack_separates():
    """Group 1 = (a, b, c): c is far less likely than a and b in every row (z > 0.75); class 2's
    members score near c's level, so c moves there.  a and b stay (|z| small)."""
    groups = [_written_up(["a", "b", "c"], [[1.0, 1.1, 5.0], [1.1, 1.0, 5.2]]),
              _written_up(["d", "e"], [[5.1, 4.9], [5.0, 5.0]])]
    classes = [["a", "b", "c"], ["d", "e"]]
    new, moves = regroup(classes, {x: 0 for x in "abcde"}, groups)
    assert new == [["a", "b"], ["c", "d", "e"]]
    assert [m["item"] for m in moves] == ["c"] and moves[0]["z"] > 0.75


def test_regroup_keeps_classes_of_two_and_the_utility_constraints():
    groups = [_written_up(["a", "c"], [[1.0, 5.0], [1.0, 5.0]]), _written_up(["d", "e", "f"], [[5.0, 5.0, 1.0]])]
    # a class of two is never left with one; f may only move within its user constraint (none other there)
    new, moves = regroup([["a", "c"], ["d", "e", "f"]], {"a": 0, "c": 0, "d": 1, "e": 1, "f": 1}, groups)
    assert moves == [] and new == [["a", "c"], ["d", "e", "f"]]


# --------------------------------------------------------------------------- the utility axis
def test_uniform_reconstruction_by_hand():
    """Original: {a, b}, {a}, {c}.  Release: (a, c) generalised in every row, b plain.
    Item weights: a and c 1/2 in each row, b 1 in row 0.  Supports answered: a 1.5 (true 2),
    c 1.5 (true 1), b 1 (true 1); the pair (a, b): 1/2 (true 1)."""
    orig = TransactionData.from_lists([["a", "b"], ["a"], ["c"]])
    rel = TransactionData.from_lists([[["a", "c"], "b"], [["a", "c"]], [["a", "c"]]])
    w = release_weights(orig, rel).toarray()
    ia, ib, ic = (orig.vocab.id(x) for x in "abc")
    assert w[:, ia].tolist() == [0.5, 0.5, 0.5] and w[:, ib].tolist() == [1, 0, 0]
    assert w[:, ic].tolist() == [0.5, 0.5, 0.5]
    e = support_errors(orig, rel)
    # items: |1.5-2|/2, |1-1|/1, |1.5-1|/1 -> mean 0.25; the one pair (a, b): |0.5-1|/1
    assert e["item_support_error"] == pytest.approx((0.25 + 0 + 0.5) / 3)
    assert e["pair_support_error"] == pytest.approx(0.5) and e["pairs_measured"] == 1


def test_a_suppressed_item_counts_as_lost_support():
    orig = TransactionData.from_lists([["a", "b"], ["a", "b"]])
    rel = TransactionData.from_lists([["a"], ["a"]])
    e = support_errors(orig, rel)
    assert e["item_support_error"] == pytest.approx(0.5)  # a exact, b lost
    assert e["pair_support_error"] == pytest.approx(1.0)


def test_the_original_itself_answers_exactly():
    orig = formats.read_transactions(MEPS400)
    e = support_errors(orig, orig)
    assert e["item_support_error"] == 0 and e["pair_support_error"] == 0 and e["pairs_measured"] == 1000


# --------------------------------------------------------------------------- the hierarchy order
def test_profile_is_an_order_of_hierarchy_build():
    assert "profile" in ORDERS
    data = formats.read_transactions(MEPS400)
    leaves = ordered_leaves(data, "profile")
    assert sorted(leaves) == sorted(data.vocab.items)
    # within each window of 25 the prior is kept: a window's items are the 25 next by support
    sup = dict(zip(data.vocab.items, np.bincount(data.tokens, minlength=len(data.vocab)).tolist()))
    by_support = ordered_leaves(data, "support")
    for s in range(0, len(leaves), 25):
        assert {sup[x] for x in leaves[s:s + 25]} == {sup[x] for x in by_support[s:s + 25]}


def test_profile_order_by_hand():
    """Two windows of two: the prior orders the windows (decreasing), the profile chain within."""
    log_prior = np.log([0.1, 0.5, 0.4, 0.05])
    vec = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.0, 1.0]])
    assert profile_order(log_prior, vec, window=2).tolist() == [1, 2, 0, 3]


def test_profile_vectors_flat_is_nan():
    v = profile_vectors(np.log([0.5, 0.5]), np.array([[2.0, 2.0], [0.0, 0.0]]) * 0, np.array([2.0, 2.0]), 4.0)
    assert np.isnan(v).all()  # nothing seen with anything: no profile


# --------------------------------------------------------------------------- knowledge
def test_a_knowledge_sharing_no_item_is_refused(tmp_path):
    orig = TransactionData.from_lists([["a", "b"], ["a"]])
    other = tmp_path / "other.txt"
    other.write_text("x, y\ny\n")
    with pytest.raises(InputError, match="shares no item") as exc:
        load_knowledge(str(other), orig, "orig.txt")
    assert exc.value.option == "knowledge"
    assert isinstance(load_knowledge("self", orig, "orig.txt"), Background)


def test_at_chance_needs_both_figures():
    def fig(auc, er):
        return AttackFigures("self", "o", "pba", 0.5, 0.1, er, auc, {}, 1, 1, 1, "")

    assert fig(CHANCE_AUC, 0.95).at_chance and not fig(0.6, 1.0).at_chance and not fig(0.5, 0.5).at_chance


def test_a_comparison_never_reads_as_two_equal_figures():
    """A figure said to be above another is worded to the digits that tell them apart: a table
    that takes back 79.4 % against the chosen one's 79.2 % is not "79% ... alone: 79%" (a fresh
    review found it after the share went to whole percents), and whole percents stay where the
    figures differ by more."""
    from semtui.wording import percents_apart

    def fig(recall, most):
        return AttackFigures("self", "o", "rba", 0.5, recall, 0.4, 0.7, {}, 1, 1, 1, "",
                             {"knowledge_table": "co-occurrence", "recall": most, "precision": 0.5, "error_ratio": 0.4})

    clause = fig(0.792, 0.794).clause()
    assert "takes back 79.2% at" in clause and "table alone: 79.4% at" in clause, clause
    clause = fig(0.70, 0.794).clause()
    assert "takes back 70% at" in clause and "table alone: 79% at" in clause, clause
    assert "table alone" not in fig(0.794, 0.794).clause()
    assert percents_apart(0.792, 0.794) == ("79.2%", "79.4%") and percents_apart(0.5, 0.5) == ("50%", "50%")
    assert percents_apart(0.0125, 0.0124, 1) == ("1.25%", "1.24%")


# --------------------------------------------------------------------------- the guarantees, end to end
SETGEN = {"k": 3, "random_privacy": 30, "sizes": "3-6", "seed": 1, "utility": "all"}


def test_harden_setgen_on_the_sample(tmp_path):
    orig = formats.read_transactions(MEPS400)
    out = harden(orig, family="setgen", params=dict(SETGEN), original_path=MEPS400, output=tmp_path / "h.txt",
                 rounds=1)
    made, rep = out.made, out.report
    assert made.result.k == 3 and len(made.result.privacy) == 30
    assert check_privacy(made.data, made.result.privacy, 3).holds
    assert rep.hardened.check["passed"] and rep.plain.check["passed"]
    # the same constraints as the plain anonymiser's (the sidecars agree)
    assert made.sidecar["privacy_constraints"] == made.result.privacy
    doc = rep.to_json()
    assert doc["format"] == "semtui-harden-report/1"
    assert [a["knowledge"] for a in doc["hardened"]["attacks"]] == ["self"]
    for side in ("hardened", "plain"):
        a = doc[side]["attacks"][0]
        *makes, attack = a["command"].split(" && ")
        assert attack.startswith("semtui attack setgen ") and "--background" in attack
        # the plain release is measured, never written: its command makes it first
        assert makes == ([] if side == "hardened" else [doc["plain"]["command"]])
        assert a["intervals"]["auc_within_table"] is not None and a["error_ratio"] is not None
        # the most any side-by-side table takes back while beating chance is said beside the chosen table's
        assert a["most_taken"] is None or a["most_taken"]["error_ratio"] < 1
        assert doc[side]["utility"]["pair_support_error"] is not None
    assert "safe" not in doc["verdict"].replace("unsafe", "")
    assert doc["not_modelled"]


def test_the_papers_figure_1_hardened_by_hand(tmp_path):
    """Fig. 1, constraints {blood pressure}, {icd}, {limbs}, {injury}, k = 4.  The plain anonymiser
    (utility all) puts icd and injury, held by 2 patients, with items held by 1 (as Fig. 2 does under
    the thesis' utility constraint), so the prior tells them apart.  Hardened (self): the prior bands are
    {support 1} and {support 2}; {icd} can only be lifted within {icd, injury}, whose union covers all
    4 rows: (icd, injury) exactly; blood pressure and limbs are lifted with other items of support 1
    only.  No generalised item mixes the two supports, and the checker passes."""
    orig = formats.read_transactions(SAMPLES / "medical-original.txt")
    privacy = tmp_path / "fig1.txt"
    privacy.write_text("blood pressure\nicd\nlimbs\ninjury\n")
    bg = Background.from_transactions(orig, "o")
    got = make(orig, family="setgen", params={"k": 4, "privacy": privacy}, bg=bg, original_path="o",
               output=tmp_path / "h.txt", rounds=1)
    support = dict(zip(orig.vocab.items, np.bincount(orig.tokens, minlength=len(orig.vocab)).tolist()))
    assert any(len({support[x] for x in g}) == 2 for g in got.plain.result.groups)
    groups = [sorted(g) for g in got.made.result.groups]
    assert ["icd", "injury"] in groups
    assert all(len({support[x] for x in g}) == 1 for g in groups)
    assert any({"blood pressure", "limbs"} <= set(g) for g in groups)
    assert got.made.result.suppressed == []
    assert check_privacy(got.made.data, got.made.result.privacy, 4).holds


def test_a_utility_file_given_is_never_crossed(tmp_path):
    """Every generalised item of a hardened release lies inside one utility constraint the user gave."""
    orig = formats.read_transactions(MEPS400)
    items = sorted(orig.vocab.items)
    util = tmp_path / "u.txt"
    util.write_text("\n".join(", ".join(items[i::3]) for i in range(3)) + "\n")
    bg = Background.from_transactions(orig, "o")
    got = make(orig, family="setgen", params={**SETGEN, "utility": str(util)}, bg=bg, original_path="o",
               output=tmp_path / "h.txt", rounds=2)
    part = {x: i % 3 for i, x in enumerate(items)}
    assert got.made.result.groups
    assert all(len({part[x] for x in g}) == 1 for g in got.made.result.groups)
    assert check_privacy(got.made.data, got.made.result.privacy, 3).holds
    assert got.utility["honoured"] and got.utility["relaxed"] == []


def test_harden_km_builds_a_hierarchy_and_passes_check_km(tmp_path):
    orig = formats.read_transactions(MEPS400)
    out = harden(orig, family="km", params={"k": 3, "m": 2}, original_path=MEPS400, output=tmp_path / "k.txt")
    assert check_transactions(out.made.data, 3, 2).holds
    assert sorted(out.hierarchy.leaf_labels) == sorted(orig.vocab.items)
    assert out.report.hardened.check["passed"] and out.report.plain.check["checker"] == "check km"
    assert out.report.plain.command.startswith("semtui hierarchy build ") and "--order id" in out.report.plain.command
    assert out.report.plain.command.endswith("--release-format leaves")


def test_the_proof_reads_the_figures_the_attack_with_its_tables_gives(tmp_path):
    """The proof attacks without writing up each group's table (a k^m release of half of
    BMS-WebView-2 held over 4 GB of them): its figures are those of the attack written up."""
    from semtui.harden.proof import _attack, _figures

    orig = formats.read_transactions(MEPS400)
    out = harden(orig, family="km", params={"k": 3, "m": 2}, original_path=MEPS400, output=tmp_path / "k.txt")
    bg = Background.from_transactions(orig, str(MEPS400))
    lean = _attack(out.made.data, orig, bg, str(MEPS400), 3, write_up=False)
    full = _attack(out.made.data, orig, bg, str(MEPS400), 3)
    assert not lean.groups and full.groups and all(g.table for g in full.groups)
    assert _figures(lean, "self", str(MEPS400), "c") == _figures(full, "self", str(MEPS400), "c")


def test_harden_disassoc_removes_every_cover_problem_and_proves_it(tmp_path):
    """REFINE made safe on the sample: the hardened release has no cover problem for any attacker
    and passes check km with its key; the plain REFINE release has them; the two-step release is
    measured beside; NBA with the background and the informed reference are reported for each."""
    from semtui.attacks.cover import run_cover

    orig = formats.read_transactions(MEPS400)
    out = harden(orig, family="disassoc", params={"k": 3, "m": 2, "max_cluster_size": 30},
                 knowledge=str(SAMPLES / "meps400-background.txt"), original_path=MEPS400, output=tmp_path / "h.json")
    rep = out.report
    assert [p.label for p in (rep.hardened, rep.plain, *rep.others)] == ["hardened", "plain", "two-step"]
    for proof in (rep.hardened, rep.plain, *rep.others):
        assert proof.check["passed"], proof.check
        cover = {a.attacker: a for a in proof.attacks if hasattr(a, "attacker")}
        assert set(cover) == {"strong", "moderate", "weak"}
        nba = [a for a in proof.attacks if not hasattr(a, "attacker")]
        assert len(nba) == 1 and nba[0].lift is not None and nba[0].informed_lift is not None
    assert all(a.breaches == 0 and a.cover_problems == 0 for a in rep.hardened.attacks if hasattr(a, "attacker"))
    assert any(a.cover_problems > 0 for a in rep.plain.attacks if hasattr(a, "attacker"))
    assert run_cover(out.made.data).summary.cover_problems == 0
    # more kept associated than the two-step release, less than REFINE unrepaired
    share = [p.utility["associated_share"] for p in (rep.hardened, rep.plain, rep.others[0])]
    assert share[2] <= share[0] < share[1]
    assert rep.hardened.command.startswith("semtui harden ") and "--family disassoc" in rep.hardened.command
    assert rep.others[0].command.startswith("semtui anonymize disassoc ") and "--no-refine" in rep.others[0].command
    doc = rep.to_json()
    assert doc["others"][0]["label"] == "two-step"
    # never called safe: at chance only when NBA and the informed reference both are
    nba = next(a for a in rep.hardened.attacks if not hasattr(a, "attacker"))
    assert rep.at_chance == (nba.lift <= 1 / 0.95 and nba.informed_lift <= 1 / 0.95)
    assert "safe" not in rep.verdict().lower()


def test_disassociated_supports_by_hand():
    """One cluster of 4: C1 = {ab, ab, a, -}, C2 = {c, -, -, -}, term chunk {d}.  Items: a 3, b 2, c 1,
    d 1 (a term: the release says it occurs).  Pairs: ab in one chunk, exact (2); ac across chunks,
    independent (3 x 1 / 4); bd with a term (2 x 1 / 4)."""
    from semtui.formats.disassociated import parse_disassociated
    from semtui.metrics.supports import DisassociatedSupports

    rel = parse_disassociated({"format": "semtui-disassociated/1", "k": 1, "m": 1, "clusters": [
        {"id": "P1", "size": 4, "record_chunks": [[["a", "b"], ["a", "b"], ["a"], []], [["c"], [], [], []]],
         "term_chunk": ["d"]}]}, "t")
    orig = TransactionData.from_lists([["a", "b"], ["a", "b"], ["a", "c"], ["d"]])
    got = DisassociatedSupports(orig, rel)
    ids = {x: i for i, x in enumerate(orig.vocab.items)}
    assert dict(zip(orig.vocab.items, got.items().tolist())) == {"a": 3, "b": 2, "c": 1, "d": 1}
    a = np.array([ids["a"], ids["a"], ids["b"]])
    b = np.array([ids["b"], ids["c"], ids["d"]])
    assert got.pairs(a, b).tolist() == pytest.approx([2.0, 0.75, 0.5])


def test_disassociated_supports_of_a_shared_chunk_by_hand():
    """P1 (2 records, C1 = {a, a}) and P2 (2 records) share S1 = {xy, x, -, -}: x 2 and y 1 over the
    joint cluster's 4 records.  xy in one shared chunk: exact (1); xa across: x spread over the 4
    records, a in both of P1's: 2 x 2 / 4 = 1."""
    from semtui.formats.disassociated import parse_disassociated
    from semtui.metrics.supports import DisassociatedSupports

    rel = parse_disassociated({"format": "semtui-disassociated/2", "k": 1, "m": 1, "clusters": [
        {"id": "P1", "size": 2, "record_chunks": [[["a"], ["a"]]], "term_chunk": []},
        {"id": "P2", "size": 2, "record_chunks": [], "term_chunk": []}],
        "joint_clusters": [{"id": "J1", "clusters": ["P1", "P2"], "shared_chunks": [[["x", "y"], ["x"], [], []]]}]},
        "t")
    orig = TransactionData.from_lists([["a", "x", "y"], ["a"], ["x"], ["z"]])
    got = DisassociatedSupports(orig, rel)
    ids = {x: i for i, x in enumerate(orig.vocab.items)}
    items = dict(zip(orig.vocab.items, got.items().tolist()))
    assert items["x"] == pytest.approx(2) and items["y"] == pytest.approx(1) and items["a"] == 2 and items["z"] == 0
    assert got.pairs(np.array([ids["x"], ids["x"]]), np.array([ids["y"], ids["a"]])).tolist() == pytest.approx([1, 1])


# --------------------------------------------------------------------------- a property
items = st.sampled_from([f"i{j}" for j in range(12)])
transactions = st.lists(st.lists(items, min_size=2, max_size=6, unique=True), min_size=6, max_size=30)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=transactions, k=st.integers(2, 4), n=st.integers(1, 6), seed=st.integers(0, 5),
       family=st.sampled_from(["setgen", "km", "disassoc"]))
def test_every_hardened_release_passes_its_checker(rows, k, n, seed, family):
    """Whatever the data: the hardened release passes the family's independent checker, with the
    k asked for (never lowered) and every privacy constraint drawn (none dropped)."""
    orig = TransactionData.from_lists(rows)
    bg = Background.from_transactions(orig, "o")
    if family == "setgen":
        params = {"k": k, "random_privacy": n, "sizes": "2-3", "seed": seed, "utility": "all"}
    elif family == "km":
        params = {"k": k, "m": 2}
    else:
        params = {"k": k, "m": 2, "max_cluster_size": k + n}
    got = make(orig, family=family, params=params, bg=bg, original_path="o", output="h.txt", rounds=1)
    if family == "setgen":
        assert got.made.result.k == k
        assert got.made.result.privacy == got.plain.result.privacy  # the same constraints, none dropped
        assert check_privacy(got.made.data, got.made.result.privacy, k).holds
    elif family == "km":
        assert check_transactions(got.made.data, k, 2).holds
        assert got.made.params["k"] == k
    else:  # REFINE made safe: the checker with the key and the original, and no cover problem at all
        from semtui.attacks.cover import run_cover
        from semtui.checks.km import check_disassociated

        assert check_disassociated(got.made.data, k, 2, got.made.key, orig).holds
        assert got.made.data.k == k and run_cover(got.made.data).summary.cover_problems == 0
