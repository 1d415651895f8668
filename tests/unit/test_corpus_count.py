"""``semtui corpus count`` (issue 26): f(x) and f(x, y) as a map-reduce over partitions give the
counts a built FTS5 index gives, whatever the partitioning and wherever it runs; the file is in
the ``counts:`` format, which the NGD measure reads and scores as ``ngd:`` over the index.  A
partition's pure-ASCII documents are counted in numpy, the rest by FTS5: the two together give
exactly what FTS5 alone gives (hypothesis, and the cases by name)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import SAMPLES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from semtui import formats
from semtui.corpus import build_index, count_terms
from semtui.measures.cooccurrence import (
    _FOLD,
    _FTS5_MAX_TOKEN,
    count_partition,
    count_partition_fts5,
    term_tokens,
)
from semtui.measures.corpus import CorpusIndex
from semtui.measures.ngd import read_counts

MEPS = SAMPLES / "meps400-original.txt"


def _terms() -> list[str]:
    return list(formats.read_transactions(MEPS).vocab.items) + ["not a condition at all", "..."]


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    path = tmp_path_factory.mktemp("idx") / "meps.db"
    build_index([MEPS], path, kind="transactions")
    idx = CorpusIndex(path)
    yield idx
    idx.close()


@pytest.mark.parametrize("partition", [1, 37, 400, 10_000])
def test_the_counts_are_the_index_counts_whatever_the_partitioning(index, partition):
    terms = _terms()
    f, both = index.counts(terms)
    rep = count_terms([MEPS], terms, kind="transactions", partition=partition)
    assert rep.documents == index.n_documents == 400
    assert rep.partitions == -(-400 // partition)
    assert (rep.f == f).all()
    upper = np.triu(both)
    assert (rep.both.toarray() == upper).all()
    assert f.sum() > 400 and (upper > 0).sum() > len(terms)  # the counts exercised something


def test_the_file_is_the_counts_format_and_scores_as_the_index(index, tmp_path, semtui):
    from semtui.measures.ngd import CountsMeasure, NGDIndexMeasure

    out = tmp_path / "counts.csv"
    terms_file = tmp_path / "terms.txt"
    terms = _terms()[:60] + ["never seen"]
    terms_file.write_text("\n".join(terms) + "\n\n")
    r = semtui("corpus", "count", MEPS, "--transactions", "--terms", terms_file, "-o", out, "--partition", "50")
    assert r.rc == 0, r.err
    counts = read_counts(out)
    assert counts.n == 400
    assert "never seen" not in counts.f
    a, b = terms[:30], terms[30:60]
    ngd_index = NGDIndexMeasure(index.path).distances(a, b)
    ngd_counts = CountsMeasure(out).distances(a, b)
    assert np.allclose(ngd_index, ngd_counts, equal_nan=True)
    assert np.isfinite(ngd_index).sum() > 100


def test_the_terms_of_a_dataset_and_stdout(semtui):
    r = semtui("corpus", "count", MEPS, "--transactions", "--terms-of", SAMPLES / "meps400-setgen.txt", "-o", "-")
    assert r.rc == 0, r.err
    assert r.out.startswith("N,400\n")
    assert r.out.count("\n") > 1000


@pytest.mark.parametrize("args, needle", [
    ([], "--terms"),
    (["--terms", "missing.txt"], "missing.txt"),
    (["--lines", "--smart", "--terms-of", str(MEPS)], "choose one"),
    (["--terms-of", str(MEPS), "--scheduler", "nope"], "--scheduler"),
    (["--terms-of", str(MEPS), "--partition", "0"], "partition"),
])
def test_bad_input_is_one_line(args, needle, semtui, tmp_path):
    r = semtui("corpus", "count", MEPS, "-o", tmp_path / "c.csv", *args)
    assert r.rc == 2
    r.one_error_line(needle)
    assert not (tmp_path / "c.csv").exists()


def test_an_empty_terms_file_is_refused(semtui, tmp_path):
    (tmp_path / "t.txt").write_text("\n \n")
    r = semtui("corpus", "count", MEPS, "-o", tmp_path / "c.csv", "--terms", tmp_path / "t.txt")
    assert r.rc == 2
    r.one_error_line("t.txt")


@pytest.mark.slow
def test_on_a_cluster_the_counts_are_the_same(tmp_path):
    pytest.importorskip("distributed", reason="the dask extra is not installed (pip install 'semtui[dask]')")
    import logging

    from distributed import Client, LocalCluster

    terms = _terms()
    serial = count_terms([MEPS], terms, kind="transactions", partition=90)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      silence_logs=logging.ERROR) as lc, Client(lc):
        dist = count_terms([MEPS], terms, kind="transactions", partition=90, scheduler=lc.scheduler_address)
    assert dist.documents == serial.documents and dist.partitions == serial.partitions == 5
    assert dist.to_csv() == serial.to_csv()


# --------------------------------------------------------------------------- the numpy path (ASCII)
# count_partition answers pure-ASCII documents in numpy and everything else by FTS5; it must give
# exactly what FTS5 alone gives (count_partition_fts5, the old path and the definition).
#: ASCII with what can go wrong: case, digits, underscores, punctuation, quotes (FTS5's query
#: syntax), control characters, NUL, DEL
_ASCII = "aAbB0_ .,-'\"*()\x00\t\n\x1f\x7f"
#: and for terms that are not ASCII, what unicode61 folds to ASCII (or not): accents, İ, ß, a
#: ligature, a combining mark, full-width letters, CJK
_UNICODE = _ASCII + "áÁàçÇİıßﬁ\u0301ＡａÆ東京"


def _same(docs, terms):
    fast, ref = count_partition(docs, terms), count_partition_fts5(docs, terms)
    assert fast.documents == ref.documents == len(docs)
    assert fast.f.tolist() == ref.f.tolist()
    assert (fast.both != ref.both).nnz == 0
    return ref


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=60) | st.text(alphabet=_ASCII, max_size=60))
def test_on_ascii_text_a_token_is_a_folded_run_of_letters_and_digits(text):
    """The rule the numpy path rests on, checked against SQLite's own tokenizer."""
    ours = [t.decode() for t in text.encode("ascii").translate(_FOLD).split()]
    assert ours == term_tokens([text])[0]


_words = st.text(alphabet="aAbB0", min_size=1, max_size=3)


@st.composite
def _ascii_corpus(draw, alphabet=_ASCII):
    docs = draw(st.lists(st.text(alphabet=_ASCII, max_size=30) | st.lists(_words, max_size=8).map(" ".join),
                         min_size=1, max_size=12))
    # terms: random strings, and phrases cut out of the documents (so that they match)
    terms = draw(st.lists(st.text(alphabet=alphabet, max_size=8), max_size=6))
    for d in draw(st.lists(st.sampled_from(docs), max_size=6)):
        words = d.split()
        a = draw(st.integers(0, len(words)))
        b = draw(st.integers(a, len(words)))
        terms.append(" ".join(words[a:b]))
    return docs, list(dict.fromkeys(terms)) or ["a"]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_ascii_corpus())
@pytest.mark.slow
def test_the_numpy_path_matches_the_documents_fts5_matches(corpus):
    _same(*corpus)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_ascii_corpus(alphabet=_UNICODE), st.lists(st.text(alphabet=_UNICODE, max_size=20), max_size=4))
@pytest.mark.slow
def test_terms_and_documents_that_are_not_ascii_too(corpus, other_docs):
    docs, terms = corpus
    _same(docs + other_docs, terms)


def test_the_cases_by_name():
    docs = ["Café au lait, cafe", "cafe au", "a a a", "a b a b", "東京 タワー and Tokyo", "...",
            "Istanbul", "x" * (_FTS5_MAX_TOKEN + 5) + " y", "ﬁne fine", "", "back pain; Back-pain",
            "b", "a_b a-b a\x00b"]
    terms = ["café", "cafe au", "CAFE AU LAIT", "a", "a a", "a a a a", "a b", "a b a", "b a b", "...",
             "東京", "タワー and", "İstanbul", "x" * (_FTS5_MAX_TOKEN + 1), "x" * 3, "ﬁne", "fine",
             "back", "Back", "back pain", "back-pain", "back pain back", "a b", "a\x00b", "a_b",
             "never there"]
    ref = _same(docs, terms)
    f = dict(zip(terms, ref.f.tolist()))
    # what FTS5 says, so that the comparison above exercised each case
    assert f["café"] == 2 and f["cafe au"] == 2 and f["CAFE AU LAIT"] == 1  # diacritics removed
    assert f["a a"] == 1 and f["a a a a"] == 0 and f["a b a"] == 2 and f["b a b"] == 2
    assert f["a"] == 3 and f["a b"] == f["a_b"] == 2  # in a document, "a_b" "a-b" "a\x00b" are "a b"
    assert f["a\x00b"] == 0  # as a query, FTS5 reads a term up to its NUL
    assert f["..."] == 0 and f["never there"] == 0  # a term without a token matches nothing
    assert f["東京"] == 1 and f["タワー and"] == 1 and f["İstanbul"] == 1
    assert f["x" * (_FTS5_MAX_TOKEN + 1)] == 1 and f["x" * 3] == 0  # FTS5 truncates long tokens
    assert f["back"] == f["Back"] == 1 and f["back pain back"] == 1 and f["ﬁne"] == 1
    # a partition that is all ASCII, and one that is all not
    _same([d for d in docs if d.isascii()], terms)
    _same([d for d in docs if not d.isascii()], terms)


def test_documents_that_are_not_ascii_across_partitions_are_the_index_counts(tmp_path):
    lines = ["Café au lait", "cafe, au lait", "東京 タワー", "lait", "Lait au café", "tokyo 東京",
             "x y z", "z y x", "naïve x y"] * 7
    corpus = tmp_path / "c.txt"
    corpus.write_text("\n".join(lines) + "\n")
    terms = ["cafe", "café au", "au lait", "lait", "東京", "x y", "y", "naive x", "tokyo"]
    build_index([corpus], tmp_path / "i.db", kind="lines")
    idx = CorpusIndex(tmp_path / "i.db")
    try:
        f, both = idx.counts(terms)
    finally:
        idx.close()
    for partition in (1, 4, 9, 100):
        rep = count_terms([corpus], terms, kind="lines", partition=partition)
        assert rep.documents == len(lines)
        assert rep.f.tolist() == f.tolist()
        assert (rep.both.toarray() == np.triu(both)).all()
    assert f.min() > 0


def test_a_trie_too_large_for_a_table_is_searched(monkeypatch):
    """Large term lists look their trie's transitions up by binary search instead of a table."""
    from semtui.measures import cooccurrence

    docs = ["a b a b", "a a a", "b", "back pain; Back-pain", "x y z x y", "Café au lait, cafe"]
    terms = ["a", "a a", "a b a", "b a b", "back pain", "x y z", "y z x", "y", "cafe au", "au lait", "z y", "b b"]
    assert cooccurrence._prepare(tuple(terms)).table is not None
    monkeypatch.setattr(cooccurrence, "_DENSE", 0)
    cooccurrence._prepare.cache_clear()
    try:
        assert cooccurrence._prepare(tuple(terms)).table is None
        ref = _same(docs, terms)
        assert ref.f.tolist() == [2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0]
    finally:
        cooccurrence._prepare.cache_clear()


@pytest.mark.parametrize("block", [1, 2, 3, 5, 20_000])
def test_a_transactions_documents_are_its_plain_items_joined(tmp_path, monkeypatch, block):
    """``--transactions`` joins a block of transactions at once (semtui.formats.documents): the
    same documents as joining each transaction's plain items, empty ones and block edges included."""
    from semtui.formats import documents

    path = tmp_path / "release.txt"
    path.write_text("-\n(b, c)\na, (b, c), d\n-\n(b, c)\ne, a\n-\n-\nf\nd, e, f, a\n-\n")
    monkeypatch.setattr(documents, "_JOIN_BLOCK", block)
    data = formats.read_transactions(path)
    names = data.vocab.items
    expected = [", ".join(names[int(t)] for t in data.plain_items(i)) for i in range(data.n_transactions)]
    assert expected[:4] == ["", "", "a, d", ""] and expected[-2:] == ["d, e, f, a", ""]
    assert list(documents.iter_documents([path], kind="transactions")) == expected
    big = list(documents.iter_documents([SAMPLES / "meps400-setgen.txt"], kind="transactions"))
    data = formats.read_transactions(SAMPLES / "meps400-setgen.txt")
    names = data.vocab.items
    assert big == [", ".join(names[int(t)] for t in data.plain_items(i)) for i in range(data.n_transactions)]
