"""Utility classes of similar support and meaning (``anonymize setgen --utility freq:B /
similar:B:S``) and the meaning order (``hierarchy build --order meaning``)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from semtui.anonymize.setgen import anonymize, matched_classes, support_bands
from semtui.checks.privacy import check_privacy
from semtui.measures.order import meaning_chain
from semtui.model import TransactionData


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


def test_cli_bad_utility_specs_exit_2_with_one_line(semtui, tmp_path, samples):
    orig = samples / "meps400-original.txt"
    for spec, needle in [("freq:0", "BANDS"), ("similar:4:1", "SIZE"), ("freq:x", "whole numbers"),
                         ("freq:2:3", "freq:BANDS")]:
        r = semtui("anonymize", "setgen", orig, "-k", "3", "-o", tmp_path / "o.txt", "--random-privacy", "5",
                   "--utility", spec)
        assert r.rc == 2, (spec, r.err)
        r.one_error_line(needle)


def test_cli_freq_utility_release_passes_check_privacy(semtui, tmp_path, samples):
    orig, out = samples / "meps400-original.txt", tmp_path / "o.txt"
    r = semtui("anonymize", "setgen", orig, "-k", "3", "-o", out, "--random-privacy", "30", "--seed", "1",
               "--utility", "freq:4")
    assert r.rc == 0, r.err
    import json

    side = json.loads((tmp_path / "o.txt.json").read_text())
    # quantile ties (many items of support 1) merge bands: at most 4, at least 2 here
    assert side["utility"] == "freq:4" and 2 <= len(side["utility_constraints"]) <= 4
    assert semtui("check", "privacy", out, "--privacy", tmp_path / "o.txt.json", "-k", "3").rc == 0


@pytest.mark.slow
def test_cli_hierarchy_order_meaning(semtui, tmp_path, samples):
    out = tmp_path / "h.txt"
    r = semtui("hierarchy", "build", samples / "meps400-original.txt", "--fanout", "5", "-o", out,
               "--order", "meaning")
    assert r.rc == 0, r.err
    from semtui.formats.hierarchy import read_hierarchy

    leaves = read_hierarchy(out).leaf_labels  # in the order they are grouped
    data = __import__("semtui.formats", fromlist=["x"]).read_transactions(samples / "meps400-original.txt")
    assert sorted(leaves) == sorted(data.vocab.items)
    from semtui.measures.order import embedding_vectors

    vec = embedding_vectors(leaves)
    known = ~np.isnan(vec).any(axis=1)
    # unknown items come last, in id order; known siblings are nearer than random pairs
    assert not known[np.argmax(~known):].any() if (~known).any() else True
    v = vec[known]
    near = np.mean(np.sum(v[:-1] * v[1:], axis=1))
    rng = np.random.default_rng(0)
    perm = v[rng.permutation(len(v))]
    assert near > np.mean(np.sum(perm[:-1] * perm[1:], axis=1))
    bad = semtui("hierarchy", "build", samples / "meps400-original.txt", "--fanout", "5", "-o", out,
                 "--order", "meanings")
    assert bad.rc == 2
    bad.one_error_line("--order")
