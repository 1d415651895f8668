"""The FTS5 corpus index and the NGD measures over it, on a small corpus with known counts."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from semtui.corpus import build_index
from semtui.errors import InputError, Interrupted
from semtui.formats.documents import iter_documents
from semtui.measures import open_measure
from semtui.measures.corpus import CorpusIndex
from semtui.measures.ngd import NGDIndexMeasure, ngd_matrix

# N = 8.  f(blood pressure) = 2 (docs 1, 3; doc 4 has both words, not the phrase),
# f(heart disease) = 3, f(knee) = 3, f(asthma) = 2, f(gangrene) = 1, f(knee injury) = 2.
DOCS = [
    "Blood pressure high, heart disease",
    "heart disease and knee injury",
    "blood pressure; knee",
    "pressure of blood",
    "gangrene",
    "knee injury",
    "asthma",
    "asthma, heart disease",
]
F = {"blood pressure": 2, "heart disease": 3, "knee": 3, "asthma": 2, "gangrene": 1, "knee injury": 2}


@pytest.fixture
def index(tmp_path: Path) -> Path:
    src = tmp_path / "docs.txt"
    src.write_text("\n".join(DOCS) + "\n", encoding="utf-8")
    out = tmp_path / "docs.sqlite"
    report = build_index([src], out, kind="lines")
    assert report.documents == 8
    return out


def test_document_frequencies_and_phrases(index: Path):
    idx = CorpusIndex(index)
    terms = list(F)
    f, both = idx.counts(terms)
    assert dict(zip(terms, f.tolist())) == F
    assert np.array_equal(np.diag(both), f)
    pos = {t: i for i, t in enumerate(terms)}
    assert both[pos["blood pressure"], pos["heart disease"]] == 1
    assert both[pos["blood pressure"], pos["knee"]] == 1
    assert both[pos["heart disease"], pos["knee"]] == 1
    assert both[pos["knee"], pos["knee injury"]] == 2
    assert both[pos["gangrene"], pos["asthma"]] == 0
    # case and punctuation do not matter; an empty phrase matches nothing
    assert len(idx.postings("BLOOD, Pressure")) == 2
    assert len(idx.postings('"')) == 0
    assert len(idx.postings("zebra")) == 0


def test_ngd_values(index: Path):
    m = NGDIndexMeasure(index)
    d = m.matrix(["blood pressure", "heart disease", "knee"], ["blood pressure", "heart disease", "knee"])
    # (max(log 2, log 3) - log 1) / (log 8 - min(log 2, log 3)) = log 3 / log 4
    assert d[0, 1] == pytest.approx(math.log(3) / math.log(4))
    assert d[1, 0] == d[0, 1]
    # (log 3 - log 1) / (log 8 - log 3)
    assert d[1, 2] == pytest.approx(math.log(3) / (math.log(8) - math.log(3)))
    assert np.allclose(np.diag(d), 0.0)
    assert m.kind == "distance"


@pytest.mark.parametrize(
    "rule, expected",
    [
        # gangrene (1) and asthma (2) never co-occur; N = 8
        ("quarter", (math.log(2) - math.log(0.25)) / math.log(8)),  # = 1
        ("half", (math.log(2) - math.log(0.5)) / math.log(8)),
        ("one", math.log(2) / math.log(8)),
        ("add-one", math.log(3) / (math.log(9) - math.log(2))),
    ],
)
def test_zero_cooccurrence_rules(index: Path, rule: str, expected: float):
    d = NGDIndexMeasure(index, rule=rule).matrix(["gangrene"], ["asthma"])
    assert d[0, 0] == pytest.approx(expected)
    assert np.isfinite(d).all()


def test_default_rule_is_the_cap(index: Path):
    m = open_measure(f"ngd:{index}", cache=False)
    terms = ["gangrene", "asthma", "heart disease"]
    d = m.matrix(terms, terms)
    # the only finite pair between distinct terms: asthma / heart disease
    finite = (math.log(3) - math.log(1)) / (math.log(8) - math.log(2))
    assert d[1, 2] == pytest.approx(finite)
    # never co-occurring pairs: strictly farther than every pair that co-occurs (issue 11)
    assert d[0, 1] == d[0, 2] == pytest.approx(finite + 0.1 * max(finite, 1.0))
    assert d[0, 1] > d[1, 2]
    assert m.capped(d).tolist() == [[False, True, True], [True, False, False], [True, False, False]]
    # a table with no finite pair between distinct terms: 1
    assert m.matrix(["gangrene", "asthma"], ["gangrene", "asthma"])[0, 1] == 1.0


def test_cap_agrees_with_and_without_the_score_cache(index: Path, tmp_path: Path):
    from semtui.measures.cache import CachedMeasure, ScoreCache

    terms = ["gangrene", "asthma", "heart disease", "knee", "blood pressure"]
    want = NGDIndexMeasure(index).matrix(terms, terms)
    cached = CachedMeasure(NGDIndexMeasure(index), ScoreCache(tmp_path / "c.sqlite"))
    cached.matrix(["gangrene", "asthma"], ["gangrene", "asthma"])  # cached as +inf, not as 1
    got = cached.matrix(terms, terms)
    assert np.allclose(got, want)
    again = CachedMeasure(NGDIndexMeasure(index), ScoreCache(tmp_path / "c.sqlite"))
    assert np.allclose(again.matrix(terms, terms), want) and again.computed == 0


def test_cap_rule_is_beyond_the_largest_finite_ngd_of_the_table(index: Path):
    terms = ["gangrene", "asthma", "heart disease", "knee"]
    m = NGDIndexMeasure(index, rule="cap")
    d = m.matrix(terms, terms)
    plain = NGDIndexMeasure(index, rule="one").matrix(terms, terms)
    _, both = CorpusIndex(index).counts(terms)
    finite = (both > 0)
    largest = plain[finite].max()
    assert d[0, 1] == pytest.approx(largest + 0.1 * max(largest, 1.0))
    # every capped cell is strictly farther than every co-occurring pair, and only those are capped
    assert (m.capped(d) == ~finite).all()
    assert d[~finite].min() > d[finite].max()


def test_unknown_terms_are_reported_and_nan(index: Path):
    m = NGDIndexMeasure(index)
    d = m.matrix(["zebra", "knee"], ["knee", "zebra"])
    assert math.isnan(d[0, 0]) and math.isnan(d[0, 1]) and math.isnan(d[1, 1])
    assert d[1, 0] == 0.0
    assert m.unknown(["zebra", "knee", "blood pressure"]) == ["zebra"]


def test_ngd_matrix_edge_cases():
    # a term in every document: denominator 0 -> 0; inconsistent (estimated) counts -> negative, kept
    d = ngd_matrix(np.array([10.0]), np.array([10.0]), np.array([[10.0]]), 10)
    assert d[0, 0] == 0.0
    neg = ngd_matrix(np.array([10.0]), np.array([20.0]), np.array([[40.0]]), 1000)
    assert neg[0, 0] < 0
    with pytest.raises(InputError, match="zero co-occurrence rule"):
        ngd_matrix(np.array([1.0]), np.array([1.0]), np.array([[0.0]]), 10, rule="nope")


def test_source_kinds(tmp_path: Path):
    d = tmp_path / "folder"
    d.mkdir()
    (d / "a.txt").write_text("first document\nstill the first\n")
    (d / "b.txt").write_text("second document\n")
    assert len(list(iter_documents([d]))) == 2
    assert len(list(iter_documents([d], kind="lines"))) == 3
    j = tmp_path / "docs.jsonl"
    j.write_text('{"text": "one"}\n\n{"text": "two", "x": 1}\n{"items": ["a", ["b", "c"]], "text": "three"}\n')
    assert list(iter_documents([j])) == ["one", "two", "three"]
    j2 = tmp_path / "items.jsonl"
    j2.write_text('{"items": ["a", ["b", "c"]]}\n')
    assert list(iter_documents([j2], field="items")) == ["a, b, c"]
    t = tmp_path / "release.txt"
    t.write_text("a, (b, c), d\ne\n")
    assert list(iter_documents([t], kind="transactions")) == ["a, d", "e"]


def test_bad_jsonl_names_the_line(tmp_path: Path):
    j = tmp_path / "docs.jsonl"
    j.write_text('{"text": "one"}\n{"text": 2}\n')
    with pytest.raises(InputError) as err:
        build_index([j], tmp_path / "i.sqlite")
    assert err.value.line == 2 and err.value.path == str(j)
    assert not (tmp_path / "i.sqlite").exists()


def test_interrupted_build_leaves_nothing(tmp_path: Path):
    src = tmp_path / "docs.txt"
    src.write_text("\n".join(f"document {i}" for i in range(50_000)))

    def stop(done, total, message):
        if done > 0:
            raise Interrupted()

    with pytest.raises(Interrupted):
        build_index([src], tmp_path / "i.sqlite", kind="lines", progress=stop)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs.txt"]


def test_cli_build_and_info(tmp_path: Path, cli):
    src = tmp_path / "docs.txt"
    src.write_text("\n".join(DOCS) + "\n", encoding="utf-8")
    out = tmp_path / "idx.sqlite"
    r = cli("corpus", "build", src, "--lines", "-o", out, "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["documents"] == 8
    r = cli("corpus", "info", out, "--json", "--term", "blood pressure", "-t", "knee")
    assert r.returncode == 0, r.stderr
    info = json.loads(r.stdout)
    assert info["documents"] == 8
    assert info["tokenizer"].startswith("unicode61")
    assert info["bytes"] == out.stat().st_size
    assert info["term_documents"] == {"blood pressure": 2, "knee": 3}
    r = cli("corpus", "info", out)
    assert r.returncode == 0 and "unicode61" in r.stdout


@pytest.mark.slow
def test_cli_bad_input(tmp_path: Path, cli):
    r = cli("corpus", "build", tmp_path / "missing.txt", "-o", tmp_path / "i.sqlite")
    assert r.returncode == 2 and "missing.txt: no such file" in r.stderr and "Traceback" not in r.stderr
    not_index = tmp_path / "plain.txt"
    not_index.write_text("hello\n")
    r = cli("corpus", "info", not_index)
    assert r.returncode == 2 and "not a semtui corpus index" in r.stderr
    r = cli("score", f"ngd:{not_index}", "a", "b")
    assert r.returncode == 2 and "plain.txt" in r.stderr
    r = cli("corpus", "build", not_index, "--lines", "--jsonl", "-o", tmp_path / "i.sqlite")
    assert r.returncode == 2


def test_meps_counts_match_a_direct_count(shared_data: Path, tmp_path: Path):
    meps = shared_data / "meps2005-conditions.txt"
    out = tmp_path / "meps.sqlite"
    report = build_index([meps], out, kind="lines")
    lines = [ln for ln in meps.read_text(encoding="utf-8").split("\n") if ln.strip()]
    assert report.documents == len(lines)
    idx = CorpusIndex(out)
    terms = ["asthma", "essential hypertension", "diabetes mellitus"]
    f, both = idx.counts(terms)
    pats = [re.compile(r"\b" + r"\W+".join(map(re.escape, t.split())) + r"\b") for t in terms]
    has = np.array([[bool(p.search(ln.lower())) for ln in lines] for p in pats])
    assert f.tolist() == has.sum(axis=1).tolist()
    assert both[1, 2] == int((has[1] & has[2]).sum())


def test_split_separates_documents_by_a_regular_expression(tmp_path: Path, semtui):
    """--split shares semtui extract's reader: lines the expression matches in full separate
    documents and belong to none; nothing between two separators is no document."""
    src = tmp_path / "notes.txt"
    src.write_text("=== 1\nblood pressure\n=== 2\n=== 3\nknee injury\nknee\n", encoding="utf-8")
    out = tmp_path / "n.sqlite"
    r = semtui("corpus", "build", src, "--split", r"=+ \d+", "-o", out)
    assert r.rc == 0, r.err
    idx = CorpusIndex(out)
    assert idx.n_documents == 2
    assert idx.counts(["knee", "blood pressure", "2"])[0].tolist() == [1, 1, 0]  # "2": a separator line
    idx.close()
