"""Utility classes of similar support and meaning (``anonymize setgen --utility freq:B /
similar:B:S``) and the meaning order (``hierarchy build --order meaning``)."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from semtui.anonymize.setgen import anonymize, matched_classes, support_bands
from semtui.checks.privacy import check_privacy
from semtui.model import TransactionData
from semtui.measures.order import meaning_chain


def test_support_bands_split_by_log_support_and_skip_absent_items():
    sup = np.array([1, 1, 100, 100, 0, 10])
    band = support_bands(sup, 2)
    assert band[4] == -1
    assert band[0] == band[1] < band[2] == band[3]
    assert set(support_bands(sup, 1)[[0, 1, 2, 3, 5]]) == {0}


def test_meaning_chain_walks_to_the_nearest_and_puts_unknown_last():
    e = np.eye(3)
    # rows: x-axis, y-axis, unknown, near x, near y
    vec = np.array([e[0], e[1], [np.nan] * 3, (e[0] + 0.1 * e[2]), (e[1] + 0.1 * e[2])])
    vec[[3, 4]] /= np.linalg.norm(vec[[3, 4]], axis=1, keepdims=True)
    assert meaning_chain(vec).tolist() == [0, 3, 4, 1, 2]


def test_similar_classes_keep_meaning_within_a_band():
    sup = np.array([50, 50, 50, 50, 2, 2])
    e = np.eye(2)
    vec = np.array([e[0], e[1], e[0], e[1], e[0], [np.nan, np.nan]])
    classes = [c.tolist() for c in matched_classes(sup, 2, vec, size=2)]
    # band of the common items split by meaning; the rare band: known 4, unknown 5 apart
    assert sorted(classes) == sorted([[0, 2], [1, 3], [4], [5]])
    assert sorted(c.tolist() for c in matched_classes(sup, 2)) == [[0, 1, 2, 3], [4, 5]]


rows = st.lists(st.lists(st.integers(0, 9), min_size=1, max_size=5, unique=True), min_size=3, max_size=40)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=rows, k=st.integers(2, 4), bands=st.integers(1, 4), seed=st.integers(0, 99))
def test_matched_release_passes_the_privacy_check(rows, k, bands, seed):
    data = TransactionData.from_lists([[f"i{x}" for x in r] for r in rows])
    rng = np.random.default_rng(seed)
    vec = rng.normal(size=(len(data.vocab), 4))
    vec[rng.random(len(vec)) < 0.2] = np.nan
    vec /= np.linalg.norm(vec, axis=1, keepdims=True)
    sup = np.bincount(data.tokens, minlength=len(data.vocab))
    classes = [data.vocab.names(c) for c in matched_classes(sup, bands, vec, size=3)]
    privacy = [data.vocab.names(data.transaction(i))[:3] for i in range(0, data.n_transactions, 3)]
    result = anonymize(data, privacy, k, classes)
    # every generalised item lies inside one class
    cls = {it: j for j, c in enumerate(classes) for it in c}
    assert all(len({cls[it] for it in g}) == 1 for g in result.groups)
    report = check_privacy(result.data, privacy, k)
    assert report.holds, report.to_json()
