"""The pieces of a streamed re-association (issue 26, "Memory"): batches of consecutive clusters,
and the protected pairs of k^m breakage counted a block of rows at a time."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse import csr_matrix

import semtui.attacks.reassociation.attack as attack
import semtui.attacks.reassociation.km_breakage as km_breakage
import semtui.attacks.reassociation.merge as merge
from semtui.metrics.reassociation import row_pairs


def _matrix(rows) -> csr_matrix:
    ptr = np.cumsum([0] + [len(r) for r in rows])
    items = np.asarray([i for r in rows for i in sorted(r)], dtype=np.int32)
    return csr_matrix((np.ones(len(items), dtype=np.int8), items, ptr), shape=(len(rows), 12))


@settings(max_examples=40, deadline=None)
@given(rows=st.lists(st.sets(st.integers(0, 11), max_size=6), min_size=1, max_size=60),
       k=st.integers(1, 6), block=st.integers(1, 25), pairs=st.integers(1, 40))
def test_protected_pairs_counted_in_blocks_are_those_of_the_whole_original(rows, k, block, pairs):
    x = _matrix(rows)
    _, a, b = row_pairs(x.indptr, x.indices)
    codes, counts = np.unique(a * 12 + b, return_counts=True)
    saved = km_breakage._PAIR_ROWS, km_breakage._PAIRS
    km_breakage._PAIR_ROWS, km_breakage._PAIRS = block, pairs
    try:
        got = km_breakage._protected_pair_codes(x, k)
        spans = [(lo, blk.shape[0], blk.nnz) for lo, blk in km_breakage._pair_blocks(x)]
    finally:
        km_breakage._PAIR_ROWS, km_breakage._PAIRS = saved
    assert np.array_equal(got, codes[counts < k])
    # the blocks cover the rows in order, each within the pair limit or a single row
    assert [lo for lo, _, _ in spans] == list(np.cumsum([0] + [n for _, n, _ in spans[:-1]]))
    assert sum(n for _, n, _ in spans) == len(rows)
    for lo, n, _ in spans:
        lens = np.diff(x.indptr[lo:lo + n + 1])
        assert n == 1 or int((lens * (lens - 1) // 2).sum()) <= pairs


@settings(max_examples=30, deadline=None)
@given(rows=st.lists(st.sets(st.integers(0, 11), max_size=6), min_size=2, max_size=40),
       data=st.data(), pairs=st.integers(1, 12))
def test_km_counted_in_blocks_of_pairs_is_the_whole_batch_count(rows, data, pairs):
    """A batch's protected and exposed itemsets (k^m breakage) counted a few pairs at a time,
    as a giant cluster's are, equal the count of the batch at once."""
    x = _matrix(rows)
    n = len(rows)
    perm = data.draw(st.permutations(range(n)))
    cut = sorted(data.draw(st.sets(st.integers(1, n - 1), max_size=4)))
    clusters = [np.asarray(sorted(perm[a:b]), dtype=np.int64) for a, b in zip([0] + cut, cut + [n])]
    recon = {"attack": [], "baseline": []}
    for c in clusters:  # a reconstruction: some of each transaction's true items and a stray one
        for label in recon:
            rr = [int(t) for t in c for _ in range(2)]
            ii = [data.draw(st.integers(0, 11)) for _ in rr]
            recon[label].append([(np.asarray(rr, dtype=np.int64), np.asarray(ii, dtype=np.int64))])
    whole = km_breakage.KmCounter(x, 3, 2).count(clusters, recon)
    saved = km_breakage._PAIRS
    km_breakage._PAIRS = pairs
    try:
        blocked = km_breakage.KmCounter(x, 3, 2).count(clusters, recon)
    finally:
        km_breakage._PAIRS = saved
    from itertools import combinations

    support: dict = {}
    for r in rows:
        for pair in combinations(sorted(r), 2):
            support[pair] = support.get(pair, 0) + 1
    held = [{p for t in c for p in combinations(sorted(rows[t]), 2) if support[p] < 3} for c in clusters]
    assert whole[0].tolist() == [len(h) for h in held]
    assert np.array_equal(whole[0], blocked[0])
    for label in recon:
        assert np.array_equal(whole[1][label], blocked[1][label])


@given(sizes=st.lists(st.integers(1, 40), max_size=50), target=st.integers(1, 120))
def test_stream_batches_are_consecutive_clusters_of_about_the_target(sizes, target):
    groups = attack.stream_costs([float(s) for s in sizes], target)
    assert [ci for g in groups for ci in g] == list(range(len(sizes)))
    for g in groups[:-1]:  # each full batch reaches the target, and would not without its last cluster
        assert sum(sizes[ci] for ci in g) >= target > sum(sizes[ci] for ci in g[:-1])


@given(sizes=st.lists(st.integers(1, 40), max_size=50), target=st.integers(1, 120), slack=st.integers(0, 6),
       data=st.data())
def test_stream_batches_end_inside_a_joint_cluster_only_past_their_slack(sizes, target, slack, data):
    """A batch does not end where a joint cluster would be cut (its worker runs it after its
    members): it goes on to the next cluster where it may end, unless a chain of joint clusters
    has kept it going ``slack`` clusters past its target."""
    uncut = np.asarray(data.draw(st.lists(st.booleans(), min_size=len(sizes), max_size=len(sizes))), dtype=bool)
    groups = attack.stream_costs([float(s) for s in sizes], target, uncut, slack)
    assert [ci for g in groups for ci in g] == list(range(len(sizes)))
    for g in groups[:-1]:
        cum = np.cumsum([sizes[ci] for ci in g])
        reached = g[int(np.searchsorted(cum, target))]   # the cluster where it reached its target
        # it ends at the first cluster from there where it may, or slack clusters on
        free = [ci for ci in range(reached, g[-1] + 1) if not uncut[ci]]
        assert g[-1] == (free[0] if free and free[0] - reached <= slack else reached + slack)


def test_bootstrap_in_blocks_draws_the_resamples_of_one_table(monkeypatch):
    """Blocks of resamples are the draws of the one-table bootstrap: intervals of whole counts
    are equal, those of fractions equal to the last bit BLAS may sum in another order."""
    import semtui.metrics.reassociation as mr
    from semtui.metrics.intervals import bootstrap_weights, ratio_interval

    rng = np.random.default_rng(4)
    n = 301
    num = np.column_stack([rng.integers(0, 5, n), rng.integers(0, 3, n) / 5.0])
    den = np.column_stack([num[:, 0] + rng.integers(0, 3, n), rng.integers(1, 4, n).astype(float)])
    weights = bootstrap_weights(n, 1000, 7)
    whole = [ratio_interval(num[:, j], den[:, j], weights) for j in range(2)]
    monkeypatch.setattr(mr, "BOOTSTRAP_BLOCK_CELLS", 13 * n)   # blocks of 13 resamples
    got = mr.bootstrap_ratios(num, den, 7)
    assert got[0] == (whole[0].low, whole[0].high)
    assert np.allclose(got[1], (whole[1].low, whole[1].high), rtol=1e-12, atol=0)


@settings(max_examples=40, deadline=None)
@given(data=st.data(), n=st.integers(0, 40), rows=st.integers(1, 9), spool=st.booleans())
@pytest.mark.slow
def test_the_clusters_figures_on_disk_give_the_totals_and_intervals_of_the_whole_table(data, n, rows, spool):
    """The per-cluster figures kept as rows (on disk with ``spool``) and read back a block of
    clusters at a time give the sums and the bootstrap of the table held whole."""
    import semtui.metrics.reassociation as mr

    table = np.asarray(data.draw(st.lists(st.lists(st.integers(0, 9), min_size=3, max_size=3),
                                          min_size=n, max_size=n)), dtype=np.float64).reshape(n, 3)
    table[:, 2] /= 7.0   # a column of fractions
    figures = merge.Figures(("a", "b", "c"), spool)
    for row in table:
        figures.append(row)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(mr, "BOOTSTRAP_ROWS", rows)   # many blocks of clusters
        mp.setattr(mr, "BOOTSTRAP_BLOCK_CELLS", 97)   # and of resamples
        assert len(figures) == n
        assert figures.rows(0, n).tolist() == table.tolist()
        sums = figures.sums()
        got = figures.bootstrap(("a", "c"), ("b", "b"), 3)
    assert [sums[c] for c in "abc"] == pytest.approx(table.sum(axis=0).tolist(), rel=1e-12, abs=0)
    # on disk (--scheduler) and in memory (serially): the same figures to the last bit, both ways
    # of drawing the resamples
    other = merge.Figures(("a", "b", "c"), not spool)
    for row in table:
        other.append(row)
    for cells in (97, max(1, n - 1)):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(mr, "BOOTSTRAP_ROWS", rows)
            mp.setattr(mr, "BOOTSTRAP_BLOCK_CELLS", cells)
            assert figures.sums() == other.sums()
            assert figures.bootstrap(("a", "c"), ("b", "b"), 3) == other.bootstrap(("a", "c"), ("b", "b"), 3)
    whole = mr.bootstrap_ratios(table[:, [0, 2]], table[:, [1, 1]], 3)
    assert [g is None for g in got] == [w is None for w in whole]
    for g, w in zip(got, whole):
        if g is not None:
            assert np.allclose(g, w, rtol=1e-12, atol=0)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 60), columns=st.integers(1, 9), resamples=st.integers(1, 15), seed=st.integers(0, 5))
def test_bootstrap_weights_drawn_a_block_of_clusters_at_a_time_are_resamples(n, columns, resamples, seed):
    """Beyond a block, every resample is drawn a block of clusters at a time: the blocks cover
    the clusters in order, and each resample still draws n clusters, seeded."""
    from semtui.metrics.intervals import bootstrap_weight_columns

    blocks = list(bootstrap_weight_columns(n, resamples, seed, columns))
    assert [(lo, hi) for lo, hi, _ in blocks] == [(lo, min(n, lo + columns)) for lo in range(0, n, columns)]
    w = np.concatenate([b for _, _, b in blocks], axis=1)
    assert w.shape == (resamples, n) and (w >= 0).all() and (w.sum(axis=1) == n).all()
    again = np.concatenate([b for _, _, b in bootstrap_weight_columns(n, resamples, seed, columns)], axis=1)
    assert np.array_equal(w, again)


def test_bootstrap_weights_in_blocks_of_clusters_have_the_multinomials_moments():
    """Each cluster's multiplicity: mean 1, variance 1 - 1/n, covariance -1/n, as one
    multinomial draw over every cluster (20,000 resamples, seeded: exact to Monte Carlo error)."""
    from semtui.metrics.intervals import bootstrap_weight_columns, bootstrap_weights

    n, r = 30, 20_000
    blocked = np.concatenate([b for _, _, b in bootstrap_weight_columns(n, r, 1, 7)], axis=1).astype(float)
    whole = bootstrap_weights(n, r, 1)
    for w in (blocked, whole):
        cov = np.cov(w, rowvar=False)
        assert np.allclose(w.mean(axis=0), 1.0, atol=0.04)
        assert np.allclose(np.diag(cov), 1 - 1 / n, atol=0.06)
        assert abs(cov[~np.eye(n, dtype=bool)].mean() + 1 / n) < 0.005


def test_intervals_of_more_clusters_than_a_block_are_the_bootstraps():
    """With more clusters than a block of weights, the intervals (drawn a block of clusters at
    a time) are those of the one-table bootstrap, to Monte Carlo error; nothing else changes."""
    import semtui.metrics.reassociation as mr

    rng = np.random.default_rng(11)
    n = 3_000
    den = rng.integers(1, 9, n).astype(float)
    num = np.column_stack([rng.binomial(den.astype(int), 0.4), den * rng.random(n)])
    den = np.column_stack([den, den])
    whole = mr.bootstrap_ratios(num, den, 3)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(mr, "BOOTSTRAP_BLOCK_CELLS", 2_999)   # fewer than the clusters: blocks of 2 clusters
        blocked = mr.bootstrap_ratios(num, den, 3)
    for b, w in zip(blocked, whole):
        assert b != w and np.allclose(b, w, atol=0.01)


@given(data=st.data(), n=st.integers(1, 50))
def test_spans_say_where_a_batch_would_cut_a_joint_cluster(data, n):
    """Where no batch may end (a joint cluster's first..last member), from the spans merged,
    as the array over every cluster said."""
    k = data.draw(st.integers(0, 8))
    first = np.asarray(data.draw(st.lists(st.integers(0, n - 1), min_size=k, max_size=k)), dtype=np.int64)
    last = np.asarray([data.draw(st.integers(int(f), n - 1)) for f in first], dtype=np.int64)
    spans = np.zeros(n + 1, dtype=np.int64)
    np.add.at(spans, first, 1)
    np.add.at(spans, last, -1)
    want = np.cumsum(spans)[:n] > 0
    got = attack.Spans(first, last)
    assert [got[i] for i in range(n)] == want.tolist()


@given(data=st.data(), n=st.integers(0, 60))
def test_cluster_lookup_finds_the_cluster_holding_each_row(data, n):
    """A joint cluster's evaluation is shared out to its members by the cluster holding each
    transaction, looked up among the members only (no array over the whole original)."""
    owner = data.draw(st.lists(st.integers(-1, 5), min_size=n, max_size=n))   # -1: in no member
    truth = {c: np.asarray([t for t in range(n) if owner[t] == c], dtype=np.int64) for c in set(owner) if c >= 0}
    asked = data.draw(st.lists(st.integers(-3, n + 3), max_size=30))
    got = merge.cluster_lookup(truth)(np.asarray(asked, dtype=np.int64))
    assert got.tolist() == [owner[t] if 0 <= t < n else -1 for t in asked]
