"""k^m releases checked independently (issue 19, class 5): `check km` on what `anonymize km`
writes, the hierarchy format's quoting, LRA's automatic parts, and the odd inputs of class 3
at the engine level (a release with no plain item, an -m beyond the data)."""

from __future__ import annotations

import io
import random
import warnings
from itertools import pairwise

import numpy as np
import pytest
from conftest import REPO
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from semtui.anonymize.hierarchy import ALGORITHMS, generalise_km
from semtui.checks.km import check_transactions
from semtui.errors import InputError
from semtui.formats.hierarchy import dump_hierarchy, parse_hierarchy, quote_label, split_path
from semtui.formats.text import dump_setgen, parse_text
from semtui.metrics.elimination import align_original
from semtui.model import TransactionData
from semtui.model.hierarchy import Hierarchy, balanced


def random_case(seed: int, n_items: int = 10, n_rows: int = 30):
    rng = random.Random(seed)
    items = [f"i{j:02d}" for j in range(n_items)]
    h = balanced(items, rng.choice([2, 3, 4]))
    weights = [rng.random() ** 2 for _ in items]
    rows = [sorted(set(rng.choices(items, weights, k=rng.randint(1, 5)))) for _ in range(n_rows)]
    return h, TransactionData.from_lists(rows)


def as_written(data: TransactionData) -> TransactionData:
    """The release as a reader sees it: written as set-generalised text and read back."""
    buf = io.StringIO()
    dump_setgen(data, buf, "release.txt")
    return parse_text(buf.getvalue(), "release.txt")


# ---------------------------------------------------------------- check km on k^m releases
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), k=st.integers(1, 5), m=st.integers(1, 3),
       algorithm=st.sampled_from(ALGORITHMS), members=st.sampled_from(["observed", "all"]))
@pytest.mark.slow
def test_every_km_output_passes_the_independent_check(seed, k, m, algorithm, members):
    """Every release of every algorithm, with its default parts, passes `check km` (which
    shares no code with the anonymiser) at the k and m it was made for."""
    h, data = random_case(seed)
    r = generalise_km(data, h, k, m, algorithm, members=members)
    report = check_transactions(as_written(r.data), k, m)
    assert report.holds, report.to_json()["violations"]


def test_a_broken_release_fails_the_check():
    """Undo one transaction's generalisation: its plain items are now rarer than k."""
    h, data = random_case(3)
    r = generalise_km(data, h, 3, 2, "aa")
    assert check_transactions(as_written(r.data), 3, 2).holds
    lines = io.StringIO()
    dump_setgen(r.data, lines, "release.txt")
    text = lines.getvalue().splitlines()
    row = next(i for i in range(r.data.n_transactions) if (r.data.transaction(i) < 0).any())
    text[row] = ", ".join(data.vocab.names(data.transaction(row))) + ", a unique item"
    broken = parse_text("\n".join(text) + "\n", "broken.txt")
    report = check_transactions(broken, 3, 2)
    assert not report.holds
    assert ["a unique item"] in [list(v["itemset"]) for v in report.to_json()["violations"]]


# ---------------------------------------------------------------- LRA's default parts
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), n_rows=st.integers(2, 12), k=st.integers(1, 4), m=st.integers(1, 3))
def test_lra_default_parts_work_on_small_data(seed, n_rows, k, m):
    h, data = random_case(seed, n_items=8, n_rows=n_rows)
    if data.n_transactions < k:
        with pytest.raises(InputError, match="fewer than"):
            generalise_km(data, h, k, m, "lra")
        return
    r = generalise_km(data, h, k, m, "lra")
    parts = r.stats["parts"]
    assert 1 <= len(parts) <= 3 and sum(p["transactions"] for p in parts) == data.n_transactions
    assert check_transactions(as_written(r.data), k, m).holds


# ---------------------------------------------------------------- the hierarchy format
LABEL = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r"), min_size=1, max_size=12)


@settings(max_examples=200, deadline=None)
@given(st.lists(LABEL, min_size=3, max_size=12, unique=True), st.integers(2, 3))
@pytest.mark.slow
def test_hierarchy_labels_round_trip(names, fanout):
    """Any labels — with ';', quotes, backslashes, blanks at the ends, a leading '#' — are
    written and read back unchanged."""
    names = [*names, "ŗoot;\\ \"x\""]
    leaves, root = names[:-1], names[-1]
    inner = [f'"{a}; {b}\\' for a, b in pairwise(leaves)][: max(1, len(leaves) // fanout)]
    labels = [root, *inner, *leaves]
    if len(set(labels)) != len(labels):
        return
    parent = [-1, *([0] * len(inner)), *[1 + (i % len(inner)) for i in range(len(leaves))]]
    h = Hierarchy(labels, parent)
    buf = io.StringIO()
    dump_hierarchy(h, buf)
    back = parse_hierarchy(buf.getvalue(), "h.txt")
    assert sorted(back.labels) == sorted(h.labels)
    for leaf in h.leaf_order.tolist():
        chain = [h.labels[v] for v in h.chain(leaf)]
        assert [back.labels[v] for v in back.chain(back.labels.index(chain[0]))] == chain


@pytest.mark.parametrize(("line", "labels"), [
    ("a;b;*", ["a", "b", "*"]),
    (' a ; "b;c" ;*', ["a", "b;c", "*"]),
    ('"say ""hi""";*', ['say "hi"', "*"]),
    ('back\\slash;"#tag";*', ["back\\slash", "#tag", "*"]),
    ('a"b;*', ['a"b', "*"]),
])
def test_split_path(line, labels):
    assert split_path(line) == labels


@pytest.mark.parametrize(("text", "message"), [
    ('"open;*\n', "h.txt:1: a quoted label opened at column 1 is not closed"),
    ('"a"b;*\n', "h.txt:1: text after the closing quote"),
    ('a;"";*\n', "h.txt:1: empty label"),
])
def test_bad_quotes_name_the_file_and_line(text, message):
    with pytest.raises(InputError) as exc:
        parse_hierarchy(text, "h.txt")
    assert str(exc.value).startswith(message)


def test_quote_only_when_needed():
    assert quote_label("55267,55283") == "55267,55283"
    assert quote_label("a; b") == '"a; b"'
    assert quote_label(" x") == '" x"'


def test_icd9_hierarchy_over_meps_names_round_trips(shared_data):
    """The ICD-9 hierarchy with its leaves renamed to MEPS' condition names (which hold ';'),
    as the benchmarks build it (benchmarks/_data.py's names_hierarchy, which this calls), is
    written and read back unchanged."""
    import sys

    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        from _data import names_hierarchy
    finally:
        sys.path.remove(str(REPO / "benchmarks"))
    renamed = names_hierarchy()
    labels = renamed.labels
    assert any(";" in lab for lab in labels)
    buf = io.StringIO()
    dump_hierarchy(renamed, buf)
    back = parse_hierarchy(buf.getvalue(), "renamed.txt")
    assert back.labels == renamed.labels and np.array_equal(back.parent, renamed.parent)


# ---------------------------------------------------------------- class 3 at the engine level
def test_a_release_with_no_plain_item_aligns_without_warnings():
    """scipy answers an empty fancy index by a sparse matrix (and a SparseEfficiencyWarning
    when compared with 0); the alignment must neither fail nor warn."""
    _, data = random_case(5)
    text = "".join(f"({', '.join(data.vocab.names(data.transaction(i)))}, z), (x, y)\n"
                   for i in range(data.n_transactions))
    release = parse_text(text, "release.txt")
    data = TransactionData.from_lists([[*data.vocab.names(data.transaction(i)), "x"]
                                       for i in range(data.n_transactions)])
    assert (release.tokens < 0).all()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _, found = align_original(release, data)
    assert (found >= 1).all()


def test_m_beyond_the_longest_transaction_is_that_size():
    h, data = random_case(7)
    longest = int(np.diff(data.indptr).max())
    a = generalise_km(data, h, 2, 1000, "aa")
    b = generalise_km(data, h, 2, longest, "aa")
    assert a.m == 1000 and a.ncp == b.ncp
    assert check_transactions(as_written(a.data), 2, longest).holds


def test_an_m_whose_count_tree_cannot_fit_is_refused():
    items = [f"i{j:03d}" for j in range(300)]
    h = balanced(items, 2)
    data = TransactionData.from_lists([items[:120], items[100:220], items[50:170]])
    with pytest.raises(InputError, match="too large"):
        generalise_km(data, h, 2, 1000, "aa")
