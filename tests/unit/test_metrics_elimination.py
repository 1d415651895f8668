"""The attack metrics of ALGORITHMS.md §6 (semtui.metrics.elimination): within-table and
pooled AUC, density per generalised item, recall over attackable rows, the budget-matched
random baseline and bootstrap intervals, on Fig. 4 and on small hand-computed cases."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_attack_setgen import attack, fig4  # noqa: F401  (the Fig. 4 release as a fixture)

from semtui.metrics import elimination as em


# --------------------------------------------------------------------------- Fig. 4
def test_fig4_metrics_by_hand(fig4):  # noqa: F811
    m = attack(fig4, "rba")["metrics"]
    # every added member of every row is farther than every original member of that row
    assert m["auc_within_table"] == 1.0
    # pooled: limbs@gangrene (1.78, original) is farther than six added cells of other rows
    assert m["auc_pooled"] == m["auc"] == pytest.approx(54 / 60)
    # occurrences hold 2, 1, 2, 1 of 4 members: 0.375 both ways on one group
    assert m["density_per_item"] == m["density"] == 0.375
    # every row reaches the table, so both recalls agree; RBA leaves exactly the original items
    assert m["recall_attackable"] == m["recall"] == 1.0
    assert m["added_attackable"] == m["added"] == 10
    base = m["baseline"]
    assert base["eliminated"] == m["eliminated"] == 10
    assert 0 <= base["precision"] <= 1 and base["error_ratio"] == 0.0


def test_fig4_has_no_interval_from_a_single_group(fig4):  # noqa: F811
    ivs = attack(fig4, "tba")["metrics"]["intervals"]
    assert ivs.pop("reason") == "no interval: fewer than 5 equivalence groups"
    assert ivs and all(v is None for v in ivs.values())


def test_intervals_contain_the_point_estimate():
    from conftest import SAMPLES, run_attack

    from semtui import formats

    m = run_attack(formats.read(SAMPLES / "meps400-setgen.txt"), formats.read(SAMPLES / "meps400-original.txt"),
                   method="tba")["metrics"]
    assert set(m["intervals"]) == {"precision", "recall", "recall_attackable", "auc_within_table", "auc_pooled",
                                   "baseline_precision"}
    for key, iv in m["intervals"].items():
        point = m["baseline"]["precision"] if key == "baseline_precision" else m[key]
        assert iv["low"] <= point + 1e-9 and point - 1e-9 <= iv["high"], key


def test_recall_over_attackable_rows_leaves_out_rows_without_context(tmp_path):
    from conftest import run_attack

    from semtui import formats

    data = tmp_path / "d.txt"
    data.write_text("heart, (pain, ache, zebra)\n(pain, ache, zebra)\nheart, (pain, ache, zebra)\n")
    orig = tmp_path / "o.txt"
    orig.write_text("heart, pain\nache\nheart, zebra\n")
    scores = tmp_path / "s.csv"
    scores.write_text("a,b,distance\npain,heart,0.1\nache,heart,0.9\nzebra,heart,0.95\n")
    m = run_attack(formats.read(data), formats.read(orig), method="tba", threshold=0.5,
                   measure=f"scores:{scores}")["metrics"]
    assert m["added"] == 6 and m["added_attackable"] == 4  # the second row has no context
    assert m["recall"] == pytest.approx(m["correct"] / 6)
    assert m["recall_attackable"] == pytest.approx(m["correct"] / 4)


# --------------------------------------------------------------------------- within-table AUC
def test_within_table_auc_of_one_and_of_one_half():
    table = np.array([[0.1, 0.9, 0.8], [0.2, 0.3, 0.7]])
    truth = np.array([[True, False, False], [True, True, False]])
    u, pairs = em.within_table_pairs(table, truth)
    assert (u, pairs) == (4.0, 4)  # 2 pairs in row 0, 2 in row 1, added always farther
    flat = np.full((2, 3), 0.5)
    u, pairs = em.within_table_pairs(flat, truth)
    assert u / pairs == 0.5  # ties count one half


def test_within_table_auc_never_compares_across_rows():
    # row 0's added cell (0.3) is nearer than row 1's original (0.4): pooled it counts, here not
    table = np.array([[0.1, 0.3], [0.4, 0.9]])
    truth = np.array([[True, False], [True, False]])
    u, pairs = em.within_table_pairs(table, truth)
    assert u / pairs == 1.0
    assert em.auc(table[~truth], table[truth]) == 0.75


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0, 2.0, np.nan, np.inf]), min_size=1, max_size=40),
       st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0, 2.0, np.nan, -np.inf]), min_size=1, max_size=40))
@pytest.mark.slow
def test_pooled_auc_is_the_pairwise_share(added, original):
    # P(added > original) + half P(equal), pair by pair over the finite cells (ties are common:
    # few distinct values); exactly, not approximately -- the figure is reported to the digit
    a = np.array([x for x in added if np.isfinite(x)])
    o = np.array([x for x in original if np.isfinite(x)])
    got = em.auc(np.array(added), np.array(original))
    if a.size == 0 or o.size == 0:
        assert got is None
        return
    u = sum(1.0 if x > y else 0.5 if x == y else 0.0 for x in a for y in o)
    assert got == u / (a.size * o.size)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 7).flatmap(lambda r: st.integers(1, 7).flatmap(lambda c: st.tuples(
    st.lists(st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0, 2.0, np.nan, np.inf, -np.inf]), min_size=c, max_size=c),
             min_size=r, max_size=r),
    st.lists(st.lists(st.booleans(), min_size=c, max_size=c), min_size=r, max_size=r)))))
def test_within_table_pairs_count_every_pair_of_a_row(case):
    # by definition: in each row, every (added, original) pair of scored cells; U the pairs
    # whose added cell is farther, ties one half -- exactly, as the sorted search counts them
    values, flags = case
    table, truth = np.array(values, dtype=float), np.array(flags, dtype=bool)
    u = pairs = 0.0
    for row, t in zip(table, truth):
        for x, tx in zip(row, t):
            for y, ty in zip(row, t):
                if not tx and ty and np.isfinite(x) and np.isfinite(y):
                    pairs += 1
                    u += 1.0 if x > y else 0.5 if x == y else 0.0
    assert em.within_table_pairs(table, truth) == (u, int(pairs))


def test_missing_cells_take_no_part():
    table = np.array([[0.1, np.nan, 0.9]])
    truth = np.array([[True, False, False]])
    assert em.within_table_pairs(table, truth) == (1.0, 1)


# --------------------------------------------------------------------------- the baseline
tables = st.integers(1, 6).flatmap(lambda r: st.integers(1, 6).flatmap(lambda c: st.tuples(
    st.lists(st.lists(st.sampled_from([0.1, 0.5, 0.9, np.nan]), min_size=c, max_size=c), min_size=r, max_size=r),
    st.lists(st.integers(0, c), min_size=r, max_size=r),
    st.integers(0, 2**31 - 1))))


@settings(max_examples=200, deadline=None)
@given(tables)
@pytest.mark.slow
def test_baseline_never_empties_a_row_or_a_column(case):
    values, budget, seed = case
    table = np.array(values, dtype=float)
    present = ~np.isnan(table)
    out = em.budget_matched_eliminations(present, present, np.array(budget), np.random.default_rng(seed))
    assert not (out & ~present).any()
    live = present & ~out
    rows_had = present.any(axis=1)
    cols_had = present.any(axis=0)
    assert live.any(axis=1)[rows_had].all()
    assert live.any(axis=0)[cols_had].all()


def test_baseline_spends_the_same_budget_per_row_when_it_can():
    present = np.ones((50, 4), dtype=bool)
    budget = np.array([3, 2, 1, 0] * 12 + [1, 1])
    rng = np.random.default_rng(7)
    for _ in range(20):
        out = em.budget_matched_eliminations(present, present, budget, rng)
        assert (out.sum(axis=1) == budget).all()


def test_baseline_only_takes_scorable_cells():
    present = np.ones((3, 3), dtype=bool)
    scorable = present.copy()
    scorable[:, 0] = False
    out = em.budget_matched_eliminations(present, scorable, np.array([2, 2, 2]), np.random.default_rng(1))
    assert not out[:, 0].any()


# --------------------------------------------------------------------------- intervals
@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 20), st.integers(1, 20)), min_size=2, max_size=30), st.integers(0, 1000))
def test_ratio_intervals_contain_the_point_estimate(units, seed):
    num = np.array([min(a, b) for a, b in units], dtype=float)
    den = np.array([b for _, b in units], dtype=float)
    w = em.bootstrap_weights(len(units), 200, seed)
    iv = em.ratio_interval(num, den, w)
    point = num.sum() / den.sum()
    assert iv.low <= point + 1e-12 and point - 1e-12 <= iv.high


def test_pooled_auc_interval_matches_the_weighted_statistic():
    rng = np.random.default_rng(3)
    values = rng.random(40)
    is_added = rng.random(40) < 0.5
    unit = rng.integers(0, 5, 40)
    w = np.ones((1, 5))  # one resample of every unit once: the plain AUC
    iv = em.pooled_auc_interval(values, is_added, unit, w)
    assert iv.low == pytest.approx(em.auc(values[is_added], values[~is_added]))
    w2 = np.array([[2.0, 0, 1, 1, 1]])  # unit 0 twice, unit 1 left out
    rep = np.concatenate([np.flatnonzero(unit == u).repeat(int(k)) for u, k in enumerate(w2[0])])
    expect = em.auc(values[rep][is_added[rep]], values[rep][~is_added[rep]])
    assert em.pooled_auc_interval(values, is_added, unit, w2).low == pytest.approx(expect)


def test_error_ratio():
    assert em.error_ratio(0.9, 0.8) == pytest.approx(0.5)
    assert em.error_ratio(None, 0.8) is None and em.error_ratio(0.9, 1.0) is None


def test_pooled_auc_interval_is_the_same_by_units_and_by_cells():
    rng = np.random.default_rng(11)
    values = np.round(rng.random(300), 2)  # ties on purpose
    is_added = rng.random(300) < 0.4
    unit = rng.integers(0, 12, 300)
    w = em.bootstrap_weights(12, 50, 3)
    by_units = em._pooled_auc_by_units(values, is_added, unit, w)
    by_cells = em._pooled_auc_by_cells(values, is_added, unit, w, 16)
    assert np.allclose(by_units, by_cells)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([0.0, 0.1, 0.2, 0.5, 0.7, 1.0]), st.booleans(), st.integers(0, 5)),
                min_size=2, max_size=60),
       st.integers(0, 2**16), st.integers(1, 8))
def test_pooled_auc_by_units_is_each_resample_s_auc(cells, seed, per_pass):
    # each resample's statistic is the plain AUC of the cells of its units, repeated as often
    # as the resample draws them; whatever the number of passes (per_pass blocks at a time)
    values = np.array([c[0] for c in cells])
    is_added = np.array([c[1] for c in cells])
    unit = np.array([c[2] for c in cells])
    w = em.bootstrap_weights(6, 8, seed)
    got = em._pooled_auc_by_units(values, is_added, unit, w, per_pass=per_pass)
    expect = []
    for row in w:
        rep = np.concatenate([np.flatnonzero(unit == u).repeat(int(k)) for u, k in enumerate(row)])
        a = values[rep][is_added[rep]]
        o = values[rep][~is_added[rep]]
        if a.size and o.size:
            expect.append(em.auc(a, o))
    assert got.tolist() == pytest.approx(expect, rel=1e-12)


# --------------------------------------------------------------------------- near-ties
def test_scores_an_ulp_apart_are_one_tie():
    # the same number computed along two paths comes out equal on one machine and an ulp apart on
    # another (the MEPS k^m golden report's AUC differed in its fifth digit): both count as a tie
    x = 3.9897510157952745
    up = np.nextafter(x, np.inf)
    table = np.array([[x, up], [up, x]])
    truth = np.array([[True, False], [False, True]])
    assert em.within_table_pairs(table, truth) == (1.0, 2)  # two ties: one half each
    assert em.auc(np.array([up, x]), np.array([x, up])) == 0.5
    iv = em.pooled_auc_interval(np.array([x, up, up, x]), np.array([False, True, True, False]),
                                np.array([0, 0, 1, 1]), np.ones((1, 2)))
    assert iv.low == 0.5
    # a real difference is not a tie, small as it may be
    assert em.within_table_pairs(np.array([[1e-9, 2e-9]]), np.array([[True, False]])) == (1.0, 1)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0, 2.0, 3.989751015795275, np.nan]),
                         min_size=4, max_size=4), min_size=1, max_size=6),
       st.lists(st.lists(st.booleans(), min_size=4, max_size=4), min_size=6, max_size=6),
       st.integers(0, 2**16))
def test_figures_do_not_move_when_scores_move_by_a_few_ulps(values, flags, seed):
    table = np.array(values, dtype=float)
    truth = np.array(flags[:len(values)], dtype=bool)
    steps = np.random.default_rng(seed).integers(-3, 4, table.shape)
    moved = table.copy()
    for (i, j), s in np.ndenumerate(steps):
        for _ in range(abs(int(s))):
            moved[i, j] = np.nextafter(moved[i, j], np.inf if s > 0 else -np.inf)
    assert em.within_table_pairs(moved, truth) == em.within_table_pairs(table, truth)
    assert em.auc(moved[~truth], moved[truth]) == em.auc(table[~truth], table[truth])
