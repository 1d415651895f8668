"""`check km` lists its examples as docs/anonymize.md says: by size, then item ids (issue 19,
class 6) -- for a disassociated release by item, then place, not by place."""

from __future__ import annotations

import itertools
import json
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from semtui.checks.km import check_disassociated, km_violations
from semtui.formats.disassociated import parse_disassociated


def brute(rows, k, m):
    counts: Counter = Counter()
    for r in rows:
        for size in range(1, m + 1):
            counts.update(itertools.combinations(sorted(set(r)), size))
    return [(s, n) for s, n in counts.items()
            if n < k and all(counts[sub] >= k for sub in itertools.combinations(s, len(s) - 1) if sub)]


@settings(max_examples=150, deadline=None)
@given(rows=st.lists(st.lists(st.integers(0, 9), max_size=6), min_size=1, max_size=25),
       k=st.integers(1, 4), m=st.integers(1, 3), limit=st.integers(0, 12), seed=st.integers(0, 1000))
@pytest.mark.slow
def test_the_kept_examples_are_the_smallest_by_size_then_keys_then_ids(rows, k, m, limit, seed):
    order = np.random.default_rng(seed).integers(0, 4, size=10)  # ties on purpose
    indptr = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum([len(r) for r in rows], out=indptr[1:])
    got = km_violations(indptr, np.array([i for r in rows for i in r], dtype=np.int64), k, m, 10,
                        limit=limit, order=order)
    expected = sorted(brute(rows, k, m), key=lambda x: (len(x[0]), [int(order[i]) for i in x[0]], x[0]))
    assert [(tuple(t.tolist()), s) for t, s in zip(got.itemsets, got.supports)] == expected[:limit]


def test_a_disassociated_release_lists_violations_by_size_then_item_not_by_place():
    # y (id 1, first seen in P1) violates only in P3; b (id 3) violates in P2: by place b would
    # come first, by item y does
    doc = {"format": "semtui-disassociated/1", "k": 2, "m": 2, "clusters": [
        {"id": "P1", "size": 2, "record_chunks": [[["z", "y"], ["z", "y"]]], "term_chunk": []},
        {"id": "P2", "size": 2, "record_chunks": [[["a"], ["a", "b"]]], "term_chunk": []},
        {"id": "P3", "size": 2, "record_chunks": [[["y", "q"], ["q"]]], "term_chunk": []},
    ]}
    release = parse_disassociated(json.loads(json.dumps(doc)), "t")
    got = check_disassociated(release, 2, 2).to_json()["violations"]
    ids = {name: i for i, name in enumerate(release.vocab.items)}
    keys = [(len(v["itemset"]), [ids[n] for n in v["itemset"]]) for v in got]
    assert keys == sorted(keys)
    assert [(v["itemset"], v["where"]) for v in got] == [(["y"], "P3/C1"), (["b"], "P2/C1")]
