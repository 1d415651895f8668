"""The pieces of a streamed re-association (issue 26, "Memory"): batches of consecutive clusters,
and the protected pairs of k^m breakage counted a block of rows at a time."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse import csr_matrix

import semtui.attacks.reassociation.merge as merge
from semtui.metrics.reassociation import row_pairs


@settings(max_examples=40, deadline=None)
@given(rows=st.lists(st.sets(st.integers(0, 11), max_size=6), min_size=1, max_size=60),
       k=st.integers(1, 6), block=st.integers(1, 25))
def test_protected_pairs_counted_in_blocks_are_those_of_the_whole_original(rows, k, block):
    ptr = np.cumsum([0] + [len(r) for r in rows])
    items = np.asarray([i for r in rows for i in sorted(r)], dtype=np.int32)
    x = csr_matrix((np.ones(len(items), dtype=np.int8), items, ptr), shape=(len(rows), 12))
    _, a, b = row_pairs(x.indptr, x.indices)
    codes, counts = np.unique(a * 12 + b, return_counts=True)
    saved = merge._PAIR_ROWS
    merge._PAIR_ROWS = block
    try:
        got = merge._protected_pair_codes(x, k)
    finally:
        merge._PAIR_ROWS = saved
    assert np.array_equal(got, codes[counts < k])


@given(sizes=st.lists(st.integers(1, 40), max_size=50), target=st.integers(1, 120))
def test_stream_batches_are_consecutive_clusters_of_about_the_target(sizes, target):
    groups = merge.stream_costs([float(s) for s in sizes], target)
    assert [ci for g in groups for ci in g] == list(range(len(sizes)))
    for g in groups[:-1]:  # each full batch reaches the target, and would not without its last cluster
        assert sum(sizes[ci] for ci in g) >= target > sum(sizes[ci] for ci in g[:-1])


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
