"""COAT-style set-based generalisation: the papers' example, properties on random data,
random constraints, utility constraints and suppression."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from conftest import SAMPLES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from semtui import formats
from semtui.anonymize.setgen import anonymize, parse_sizes, random_privacy, read_utility, wordnet_utility
from semtui.checks import check_privacy
from semtui.errors import InputError
from semtui.formats.text import format_transaction
from semtui.model import TransactionData

FIG1_PRIVACY = [["blood pressure"], ["icd"], ["limbs"], ["injury"]]
#: The thesis' utility constraint of §1.2.
THESIS_UTILITY = [["blood pressure", "icd", "weakness", "dizziness", "pain", "diabetes", "limbs", "injury"]]


def lines_of(data: TransactionData) -> list[str]:
    return [format_transaction(data, i) for i in range(data.n_transactions)]


def supported_sets(data: TransactionData) -> list[set[str]]:
    """The items each transaction supports: plain, or members of its generalised items."""
    out = []
    for i in range(data.n_transactions):
        s: set[str] = set()
        for tok in data.token_names(i):
            s.update([tok] if isinstance(tok, str) else tok)
        out.append(s)
    return out


def brute_support(data: TransactionData, itemset) -> int:
    return sum(set(itemset) <= s for s in supported_sets(data))


# --------------------------------------------------------------------- the papers' example
def test_figure_1_gives_figure_2():
    """Fig. 1, constraints {bp}, {icd}, {limbs}, {injury}, k=4, the thesis' utility
    constraint: the greedy makes exactly the release of Fig. 2 (and Fig. 1.5)."""
    original = formats.read_transactions(SAMPLES / "medical-original.txt")
    result = anonymize(original, FIG1_PRIVACY, 4, THESIS_UTILITY)
    expected = (SAMPLES / "medical-setgen.txt").read_text().strip().splitlines()
    assert lines_of(result.data) == expected
    assert result.generalisation == {
        "(blood pressure, icd, limbs, injury)": ["blood pressure", "icd", "limbs", "injury"]}
    assert result.group_supports == [4]
    assert result.suppressed == []
    assert result.violated_before == 4
    assert result.merges == 3
    # T1 held bp and icd; T2 icd; T3 limbs and injury; T4 injury: 4*4 - 6 originals = 10 added
    assert result.added_items == 10
    assert result.utility_loss == pytest.approx((2**4 - 1) * 4 / 4)
    report = check_privacy(result.data, FIG1_PRIVACY, 4)
    assert report.holds and report.supports.tolist() == [4, 4, 4, 4]


def test_figure_2_is_a_protected_release():
    release = formats.read_transactions(SAMPLES / "medical-setgen.txt")
    assert check_privacy(release, FIG1_PRIVACY, 4).holds
    assert not check_privacy(release, FIG1_PRIVACY, 5).holds


def test_one_utility_constraint_of_every_item_also_protects_figure_1():
    original = formats.read_transactions(SAMPLES / "medical-original.txt")
    result = anonymize(original, FIG1_PRIVACY, 4)
    assert result.utility is None
    assert check_privacy(result.data, FIG1_PRIVACY, 4).holds
    assert result.suppressed == []


def test_unlisted_items_are_suppressed_when_no_merge_can_help():
    """limbs is in no utility constraint, so it can only be kept or suppressed."""
    original = formats.read_transactions(SAMPLES / "medical-original.txt")
    utility = [["blood pressure", "icd", "weakness", "dizziness", "pain", "diabetes", "injury"]]
    result = anonymize(original, FIG1_PRIVACY, 4, utility)
    assert "limbs" in result.suppressed
    assert result.suppressed_occurrences >= 1
    assert all("limbs" not in s for s in supported_sets(result.data))
    report = check_privacy(result.data, FIG1_PRIVACY, 4)
    assert report.holds
    assert report.supports[FIG1_PRIVACY.index(["limbs"])] == 0


def test_a_transaction_whose_items_are_all_suppressed_stays_in_place(tmp_path):
    data = TransactionData.from_lists([["a", "b"], ["rare"], ["a", "b"], ["a", "c"]])
    result = anonymize(data, [["rare"]], 2, utility=[["a", "b", "c"]])
    assert result.suppressed == ["rare"]
    assert result.data.n_transactions == 4
    assert result.data.lengths.tolist() == [2, 0, 2, 2]
    out = tmp_path / "out.txt"
    formats.write(result.data, out, "setgen")
    assert out.read_text().splitlines()[1] == "-"
    back = formats.read_transactions(out)
    assert back.lengths.tolist() == [2, 0, 2, 2]


def test_constraints_already_protected_change_nothing():
    data = TransactionData.from_lists([["a", "b"], ["a", "b"], ["a"], ["c"]])
    result = anonymize(data, [["a", "b"], ["zzz"]], 2)
    assert result.groups == [] and result.suppressed == [] and result.merges == 0
    assert lines_of(result.data) == lines_of(data)
    assert result.unknown_items == ["zzz"]
    assert result.violated_before == 0


def test_bad_arguments():
    data = TransactionData.from_lists([["a", "b"]])
    with pytest.raises(InputError, match="k must be"):
        anonymize(data, [["a"]], 0)
    with pytest.raises(InputError, match="unknown merge choice"):
        anonymize(data, [["a"]], 2, choice="cheapest")
    with pytest.raises(InputError, match="two utility constraints"):
        anonymize(data, [["a"]], 2, utility=[["a", "b"], ["a"]])
    release = formats.read_transactions(SAMPLES / "medical-setgen.txt")
    with pytest.raises(InputError, match="already set-generalised"):
        anonymize(release, [["icd"]], 2)


# --------------------------------------------------------------------- properties
ITEMS = [f"i{j}" for j in range(12)]


@st.composite
def problems(draw):
    n = draw(st.integers(1, 25))
    transactions = [draw(st.lists(st.sampled_from(ITEMS), min_size=0, max_size=6, unique=True))
                    for _ in range(n)]
    if not any(transactions):
        transactions[0] = ["i0"]
    present = sorted({i for t in transactions for i in t})
    privacy = draw(st.lists(st.lists(st.sampled_from(present + ["ghost"]), min_size=1, max_size=4, unique=True),
                            min_size=1, max_size=8))
    k = draw(st.integers(1, 6))
    if draw(st.booleans()):
        utility = None
    else:  # a random partition of part of the items: the rest may not be generalised
        labels = draw(st.lists(st.integers(-1, 2), min_size=len(ITEMS), max_size=len(ITEMS)))
        utility = [[it for it, lab in zip(ITEMS, labels) if lab == c] for c in range(3)]
        utility = [u for u in utility if u]
    return TransactionData.from_lists(transactions), privacy, k, utility


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(), st.sampled_from(["least-loss", "loss-per-gain"]))
@pytest.mark.slow
def test_properties_on_random_data(problem, choice):
    data, privacy, k, utility = problem
    result = anonymize(data, privacy, k, utility, choice=choice)
    out = result.data

    # every output passes the independent checker, and its supports are the brute-force ones
    report = check_privacy(out, privacy, k)
    assert report.holds, report.to_json()["violations"]
    assert report.partition
    for c, s in zip(privacy, report.supports):
        assert s == brute_support(out, c)

    # transaction count and order preserved; each transaction keeps exactly its own items
    assert out.n_transactions == data.n_transactions
    suppressed = set(result.suppressed)
    member_of = {m: tuple(g) for g in result.groups for m in g}
    for i in range(data.n_transactions):
        orig = data.vocab.names(data.transaction(i))
        tokens = out.token_names(i)
        plain = [t for t in tokens if isinstance(t, str)]
        gens = [tuple(t) for t in tokens if not isinstance(t, str)]
        assert len(set(gens)) == len(gens)  # a generalised item appears once
        expected_plain = [it for it in orig if it not in suppressed and it not in member_of]
        assert plain == expected_plain  # plain items keep their order
        assert set(gens) == {member_of[it] for it in orig if it in member_of}

    # every original item is present or reported suppressed, and suppressed items are gone
    seen = set().union(*supported_sets(out)) if out.n_transactions else set()
    for it in {i for t in range(data.n_transactions) for i in data.vocab.names(data.transaction(t))}:
        assert (it in seen) != (it in suppressed)

    # generalisation is a partition and never crosses a utility constraint
    members = [m for g in result.groups for m in g]
    assert len(members) == len(set(members))
    assert not (set(members) & suppressed)
    if utility is not None:
        cls = {it: j for j, u in enumerate(utility) for it in u}
        for g in result.groups:
            assert all(m in cls for m in g)
            assert len({cls[m] for m in g}) == 1

    # what the result says about itself
    assert result.violated_before == sum(0 < brute_support(data, c) < k for c in privacy)
    assert result.group_supports == [brute_support(out, [g[0]]) for g in result.groups]


@settings(max_examples=30, deadline=None)
@given(problems())
@pytest.mark.slow
def test_release_round_trips_through_the_text_format(tmp_path_factory, problem):
    data, privacy, k, utility = problem
    result = anonymize(data, privacy, k, utility)
    path = tmp_path_factory.mktemp("rt") / "release.txt"
    formats.write(result.data, path, "setgen")
    back = formats.read_transactions(path)
    assert back.n_transactions == data.n_transactions
    assert [set(map(str, back.token_names(i))) for i in range(back.n_transactions)] == \
        [set(map(str, result.data.token_names(i))) for i in range(data.n_transactions)]
    assert check_privacy(back, privacy, k).holds


# --------------------------------------------------------------------- random constraints
def test_random_constraints_follow_the_thesis():
    data = formats.read_transactions(SAMPLES / "medical-original.txt")
    cons = random_privacy(data, 6, (2, 4), seed=3)
    assert len(cons) == 6
    rows = [set(data.vocab.names(data.transaction(i))) for i in range(data.n_transactions)]
    for c in cons:
        assert 2 <= len(c) <= 4 and len(set(c)) == len(c)
        assert any(set(c) <= r for r in rows)  # drawn from a real transaction
    # chains: each larger constraint adds one item to the one before it
    for a, b in itertools.pairwise(cons):
        if len(b) == len(a) + 1:
            assert set(a) < set(b)
    assert random_privacy(data, 6, (2, 4), seed=3) == cons
    assert random_privacy(data, 6, (2, 4), seed=4) != cons


def test_random_constraints_stop_when_transactions_run_out():
    data = TransactionData.from_lists([["a", "b", "c"], ["d"]])
    first, second = random_privacy(data, 10, (2, 3), seed=0)  # one chain, then no more
    assert len(first) == 2 and set(first) < set(second) == {"a", "b", "c"}
    with pytest.raises(InputError, match="no transaction has 4"):
        random_privacy(data, 3, (4, 6))


def test_parse_sizes():
    assert parse_sizes("3-6") == (3, 6)
    assert parse_sizes("4") == (4, 4)
    for bad in ("6-3", "0-2", "x", "3-"):
        with pytest.raises(InputError):
            parse_sizes(bad)


# --------------------------------------------------------------------- utility constraints
def test_utility_file_must_be_disjoint(tmp_path):
    f = tmp_path / "u.txt"
    f.write_text("a, b\n\nc, a\n")
    with pytest.raises(InputError) as err:
        read_utility(f)
    assert err.value.line == 3 and "line 1" in str(err.value)
    f.write_text("a, b\nc, d\n")
    assert read_utility(f) == [["a", "b"], ["c", "d"]]


def test_wordnet_style_utility_constraints(tmp_path):
    """§6.2.3: per privacy constraint, every item with similarity > 0.5 to one of its items;
    disjoint, first come first served; pairs scored with a real (scores:) measure."""
    from semtui.measures import open_measure

    pairs = tmp_path / "sim.csv"
    pairs.write_text("a,b,similarity\n"
                     "fever,cough,0.8\nfever,knee,0.2\nfever,elbow,0.1\n"
                     "cough,knee,0.3\ncough,elbow,0.4\nknee,elbow,0.9\n")
    measure = open_measure(f"scores:{pairs}", cache=False)
    got = wordnet_utility(["fever", "cough", "knee", "elbow"], [["fever"], ["knee", "cough"]], measure)
    assert got == [["fever", "cough"], ["knee", "elbow"]]


@pytest.mark.slow
def test_meps_release_passes_the_check(shared_data):
    data = formats.read_transactions(shared_data / "meps2005-conditions.txt")
    cons = random_privacy(data, 60, (3, 6), seed=7)
    result = anonymize(data, cons, 3)
    assert result.violated_before > 0 and result.groups
    report = check_privacy(result.data, cons, 3)
    assert report.holds and report.partition
    assert np.all(report.supports >= 3)
    per_gain = anonymize(data, cons, 3, choice="loss-per-gain")
    assert check_privacy(per_gain.data, cons, 3).holds
    assert per_gain.summary()["merge_choice"] == "loss-per-gain"


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(), st.data())
def test_coat_counts_each_tokens_rows_by_mask_as_the_transactions_do(problem, data):
    """COAT's choice of a merge counts, for each candidate token, the rows of a set that hold it
    through the token's rows and a mask over the rows (sorting-based set operations were most of
    its time on MEPS); after any merges those counts are the ones read off the transactions."""
    from semtui.anonymize.setgen.coat import _Generaliser

    transactions, _privacy, k, _utility = problem
    v = len(transactions.vocab)
    state = _Generaliser(transactions, np.zeros(v, dtype=np.int64), max(k, 2))
    for _ in range(data.draw(st.integers(0, max(v - 1, 0)))):
        live = sorted(state.live.get(0, ()))
        if len(live) < 2:
            break
        a, b = data.draw(st.permutations(live))[:2]
        state.merge(a, b)
    toks = np.array(sorted(state.live.get(0, ())), dtype=np.int64)
    rows = data.draw(st.lists(st.integers(0, transactions.n_transactions - 1), unique=True))
    mask = state._mask(np.array(rows, dtype=np.int64))
    holding = [{state.tok_of_item[i] for i in transactions.transaction(r).tolist()} for r in rows]
    held, everywhere = state._held(toks, mask, np.ones(transactions.n_transactions, dtype=bool))
    assert held.tolist() == [sum(t in h for h in holding) for t in toks.tolist()]
    assert everywhere.tolist() == [len(state.rows[t]) for t in toks.tolist()]
    for t in toks.tolist():  # and _intersect is the rows both hold, in order
        both = state._intersect([state.rows[t], np.array(sorted(rows), dtype=np.int64)])
        assert both.tolist() == sorted(set(state.rows[t].tolist()) & set(rows))
