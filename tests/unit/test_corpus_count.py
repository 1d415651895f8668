"""``semtui corpus count`` (issue 26): f(x) and f(x, y) as a map-reduce over partitions give the
counts a built FTS5 index gives, whatever the partitioning and wherever it runs; the file is in
the ``counts:`` format, which the NGD measure reads and scores as ``ngd:`` over the index."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import SAMPLES

from semtui import formats
from semtui.measures.cooccurrence import count_terms
from semtui.measures.corpus import CorpusIndex, build_index
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
