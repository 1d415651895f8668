"""The measures behind open_measure(): embedding, scores:, counts:, wordnet, and the score cache."""

from __future__ import annotations

import math
import os
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from semtui.corpus import build_index
from semtui.errors import InputError
from semtui.measures import open_measure
from semtui.measures.cache import CachedMeasure, ScoreCache, cache_dir
from semtui.measures.embedding import EmbeddingMeasure, glove_root
from semtui.measures.ngd import CountsMeasure, NGDIndexMeasure
from semtui.measures.terms import words


# ----------------------------------------------------------------------------- terms
@pytest.mark.parametrize(
    "term, expected",
    [
        ("Blood Pressure", ["blood", "pressure"]),
        ("depressive disorder; not elsewhere classified", ["depressive", "disorder"]),
        ("other and unspecified disorders of back", ["disorders", "back"]),
        ("late effects of injuries - poisonings/toxic effects", ["late", "effects", "injuries", "poisonings", "toxic", "effects"]),
        ("non-insulin dependent (type 2)", ["non-insulin", "dependent", "type", "2"]),
        ("other", ["other"]),  # only stop words: keep them
    ],
)
def test_words(term, expected):
    assert words(term) == expected


# ----------------------------------------------------------------------------- embedding
def test_embedding_is_cosine_of_mean_glove_vectors():
    import pyarrow.parquet as pq

    root = glove_root()
    vocab = pq.read_table(root / "glove_6B_index.parquet").column("index").to_pylist()
    vec = np.load(root / "glove_6B_50d_emb.npy", mmap_mode="r")
    row = {w: i for i, w in enumerate(vocab[:50000])}

    def phrase(*ws):
        return np.mean([vec[row[w]] for w in ws], axis=0)

    a, b, c = phrase("blood", "pressure"), phrase("heart", "disease"), phrase("knee")
    m = open_measure("embedding")
    assert m.kind == "distance"
    d = m.matrix(["blood pressure", "heart disease"], ["heart disease", "knee"])

    def cos(x, y):
        return 1 - float(x @ y) / (np.linalg.norm(x) * np.linalg.norm(y))

    assert d[0, 0] == pytest.approx(cos(a, b), abs=1e-5)
    assert d[0, 1] == pytest.approx(cos(a, c), abs=1e-5)
    assert d[1, 0] == pytest.approx(0.0, abs=1e-6)
    # related conditions are closer than unrelated ones
    assert m.distances(["asthma"], ["bronchitis", "cataract"]).tolist()[0][0] < m.distances(["asthma"], ["cataract"])[0, 0]


def test_embedding_unknown_terms():
    m = EmbeddingMeasure()
    terms = ["qqqzzx wwvvq", "knee", "non-insulin"]
    assert m.unknown(terms) == ["qqqzzx wwvvq"]
    d = m.matrix(terms, terms)
    assert np.isnan(d[0]).all() and np.isnan(d[:, 0]).all()
    assert np.isfinite(d[1:, 1:]).all()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.none(), st.text(alphabet="abé-z", max_size=4)), max_size=40))
def test_the_sorted_vocabulary_finds_each_word_at_its_first_row(vocab):
    """The GloVe index (a binary search over the sorted words) answers as the dictionary it
    replaced: a word's first row; a missing entry (None) and an absent word are not found."""
    import pyarrow as pa

    from semtui.measures.embedding import SortedVocabulary

    index = SortedVocabulary.of(pa.array(vocab, pa.string()))
    first: dict[str, int] = {}
    for i, w in enumerate(vocab):
        if isinstance(w, str):
            first.setdefault(w, i)
    assert len(index) == sum(isinstance(w, str) for w in vocab)
    for w in [*first, "q", "", "ab"]:
        assert index.get(w) == first.get(w)
        assert (w in index) == (w in first)
    assert None not in index


def test_the_glove_index_is_kept_in_the_cache_folder_and_made_again_when_damaged(tmp_path, monkeypatch):
    """The first use writes the index beside the score cache; the next reads it (the same rows);
    a damaged file is made again; an unwritable folder is done without."""
    from semtui.measures.embedding import _glove_index

    monkeypatch.setenv("SEMTUI_CACHE_DIR", str(tmp_path / "cache"))
    root = glove_root()
    made = _glove_index(root)
    [kept] = (tmp_path / "cache").iterdir()
    assert kept.name.startswith("glove-vocabulary-") and kept.suffix == ".bin"
    stamp = kept.stat().st_mtime_ns
    read = _glove_index(root)
    assert kept.stat().st_mtime_ns == stamp  # read, not written again
    words = ["the", "blood", "pressure", "non-insulin", "knee", "qqqzzx"]
    assert [read.get(w) for w in words] == [made.get(w) for w in words]
    assert made.get("the") == 0 and made.get("qqqzzx") is None
    kept.write_bytes(b"PK\x03\x04 not a whole file")
    again = _glove_index(root)
    assert [again.get(w) for w in words] == [made.get(w) for w in words]
    assert kept.stat().st_size > 1_000_000  # made again
    (tmp_path / "ro").mkdir(mode=0o500)
    monkeypatch.setenv("SEMTUI_CACHE_DIR", str(tmp_path / "ro" / "cache"))
    if os.geteuid() != 0:  # root writes anywhere
        assert _glove_index(root).get("knee") == made.get("knee")
        assert not (tmp_path / "ro" / "cache").exists()


def _vectors(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "vectors.txt"
    p.write_text(text, encoding="utf-8")
    return p


@pytest.mark.parametrize("header", ["", "3 2\n"])
def test_vectors_file(tmp_path: Path, header: str):
    p = _vectors(tmp_path, header + "up 1 0\nright 0 1\ndiag 1.0 1.0\n")
    m = open_measure("embedding", vectors=p)
    d = m.matrix(["up", "right", "up right", "x"], ["up", "right", "diag"])
    assert d[0, 1] == pytest.approx(1.0)
    assert d[0, 2] == pytest.approx(1 - 1 / math.sqrt(2))
    assert d[2, 2] == pytest.approx(0.0, abs=1e-12)  # the mean of up and right points like diag
    assert np.isnan(d[3]).all()
    assert m.unknown(["up", "x y"]) == ["x y"]


@pytest.mark.parametrize(
    "text, line",
    [
        ("a 1 0\nb 0 1\nc 1\n", 3),
        ("2 2\na 1 0\nb 0 x\n", 3),
        ("a 1 0\nb\n", 2),
        ("a 1 nan\n", 1),
    ],
)
@pytest.mark.slow
def test_bad_vectors_file_names_the_line(tmp_path: Path, text: str, line: int, cli):
    p = _vectors(tmp_path, text)
    with pytest.raises(InputError) as err:
        EmbeddingMeasure(p).matrix(["a"], ["b"])
    assert err.value.line == line and err.value.path == str(p)
    r = cli("score", "embedding", "a", "b", "--vectors", p)
    assert r.returncode == 2
    assert f"vectors.txt:{line}:" in r.stderr and "Traceback" not in r.stderr


def test_unknown_plurals_fall_back_to_the_singular(tmp_path: Path):
    p = _vectors(tmp_path, "arthropathy 1 0\nbox 0 1\n")
    m = EmbeddingMeasure(p)
    assert m.unknown(["arthropathies", "boxes", "boxess"]) == ["boxess"]
    assert m.matrix(["arthropathies"], ["arthropathy"])[0, 0] == pytest.approx(0.0)


def test_vectors_identity_follows_the_content(tmp_path: Path):
    p = _vectors(tmp_path, "a 1 0\nb 0 1\n")
    first = EmbeddingMeasure(p).identity
    p.write_text("a 1 0\nb 0 2\n")
    assert EmbeddingMeasure(p).identity != first


# ----------------------------------------------------------------------------- scores: and counts:
def test_scores_file(tmp_path: Path):
    p = tmp_path / "pairs.csv"
    p.write_text("a,b,similarity\nx,y,0.75\ny,z,0.5\n")
    m = open_measure(f"scores:{p}")
    assert m.kind == "similarity"
    assert m.matrix(["y", "x"], ["x", "x"]).tolist() == [[0.75, 0.75], [1.0, 1.0]]
    assert m.distances(["y"], ["x", "z"]).tolist() == [[0.25, 0.5]]
    with pytest.raises(InputError, match=r"no score for the pair \('x', 'z'\)"):
        m.matrix(["x"], ["z"])


def test_counts_file_gives_the_index_ngd(tmp_path: Path):
    docs = tmp_path / "docs.txt"
    docs.write_text("a b\na\nb c\nc\nd\na c\n")
    idx = tmp_path / "i.sqlite"
    build_index([docs], idx, kind="lines")
    counts = tmp_path / "counts.csv"
    counts.write_text("N,6\na,3\nb,2\nc,3\nd,1\na,b,1\nb,c,1\nc,a,1\na,d,0\nb,d,0\nc,d,0\n")
    terms = ["a", "b", "c", "d"]
    want = NGDIndexMeasure(idx).matrix(terms, terms)
    got = open_measure(f"counts:{counts}", cache=False).matrix(terms, terms)
    assert np.allclose(got, want)
    m = CountsMeasure(counts)
    assert m.unknown(["a", "zz"]) == ["zz"]
    assert np.isnan(m.matrix(["zz"], ["a"])[0, 0])


@pytest.mark.parametrize(
    "text, message",
    [
        ("a,3\n", "first row must be 'N,"),
        ("N,0\n", "N must be positive"),
        ("N,5\na,x\n", "not a count"),
        ("N,5\na,1,2,3\n", "expected 2 or 3 columns"),
        ("N,5\na,-1\n", "not a count"),
    ],
)
def test_bad_counts_file(tmp_path: Path, text: str, message: str):
    p = tmp_path / "counts.csv"
    p.write_text(text)
    with pytest.raises(InputError, match=message):
        CountsMeasure(p)


def test_counts_missing_pair_is_an_error(tmp_path: Path):
    p = tmp_path / "counts.csv"
    p.write_text("N,10\na,3\nb,2\n")
    with pytest.raises(InputError, match=r"no count for the pair \('a', 'b'\)"):
        CountsMeasure(p).matrix(["a"], ["b"])


def test_open_measure_errors(tmp_path: Path):
    with pytest.raises(InputError, match="unknown measure"):
        open_measure("google")
    with pytest.raises(InputError, match="only applies to the embedding measure") as err:
        open_measure("wordnet", vectors=tmp_path / "v.txt")
    assert err.value.option == "vectors"
    for spec in ("ngd:", "counts:", "scores:"):
        with pytest.raises(InputError, match="needs"):
            open_measure(spec)


# ----------------------------------------------------------------------------- the score cache
@pytest.fixture
def small_index(tmp_path: Path) -> Path:
    docs = tmp_path / "docs.txt"
    docs.write_text("a b\na\nb c\nc\nd\na c\n")
    idx = tmp_path / "i.sqlite"
    build_index([docs], idx, kind="lines")
    return idx


def test_cache_dir_follows_the_environment(monkeypatch, tmp_path: Path):
    monkeypatch.setenv("SEMTUI_CACHE_DIR", str(tmp_path / "c"))
    assert cache_dir() == tmp_path / "c"
    monkeypatch.delenv("SEMTUI_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "semtui"


@pytest.mark.parametrize("via", ["home", "xdg"])
def test_cache_folder_is_0700_and_database_0600_tightened_on_open(monkeypatch, tmp_path: Path,
                                                                  small_index: Path, via: str):
    """The cache holds other users' index paths: semtui's folder is 0700, scores.sqlite (and its
    write-ahead log) 0600, and ones left more open by an older semtui are tightened on open.
    A folder the user named (SEMTUI_CACHE_DIR, perhaps shared) is never chmod-ed."""
    monkeypatch.delenv("SEMTUI_CACHE_DIR", raising=False)
    if via == "home":
        monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
        monkeypatch.setenv("HOME", str(tmp_path / "home"))
        folder = tmp_path / "home" / ".cache" / "semtui"
    else:
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
        folder = tmp_path / "xdg" / "semtui"
    assert cache_dir() == folder
    cm = CachedMeasure(NGDIndexMeasure(small_index), ScoreCache())
    cm.matrix(["a", "b"], ["c"])
    cm.cache.close()
    mode = lambda p: p.stat().st_mode & 0o777  # noqa: E731
    assert mode(folder) == 0o700 and mode(folder / "scores.sqlite") == 0o600
    # an older cache, world-readable: the next open tightens folder and files
    os.chmod(folder, 0o755)
    os.chmod(folder / "scores.sqlite", 0o644)
    stale = folder / "scores.sqlite-wal"
    stale.write_bytes(b"")
    os.chmod(stale, 0o644)
    again = CachedMeasure(NGDIndexMeasure(small_index), ScoreCache())
    assert again.matrix(["a", "b"], ["c"]).shape == (2, 1)
    again.cache.close()
    assert mode(folder) == 0o700 and mode(folder / "scores.sqlite") == 0o600
    assert all(mode(p) == 0o600 for p in folder.iterdir() if p.name.startswith("scores.sqlite"))
    # SEMTUI_CACHE_DIR: a folder the user chose keeps its mode; the database is still private
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o755)
    os.chmod(shared, 0o755)
    monkeypatch.setenv("SEMTUI_CACHE_DIR", str(shared))
    mine = CachedMeasure(NGDIndexMeasure(small_index), ScoreCache())
    mine.matrix(["a"], ["b"])
    mine.cache.close()
    assert mode(shared) == 0o755 and mode(shared / "scores.sqlite") == 0o600


def test_cache_reuse(tmp_path: Path, small_index: Path):
    cache = ScoreCache(tmp_path / "cache.sqlite")
    terms = ["a", "b", "zz"]
    first = CachedMeasure(NGDIndexMeasure(small_index), cache)
    d1 = first.matrix(terms, terms)
    assert first.computed == 9
    second = CachedMeasure(NGDIndexMeasure(small_index), ScoreCache(tmp_path / "cache.sqlite"))
    d2 = second.matrix(terms, terms)
    assert second.computed == 0
    assert np.array_equal(np.isnan(d1), np.isnan(d2)) and np.allclose(d1[~np.isnan(d1)], d2[~np.isnan(d2)])
    # only the pairs involving a new term are computed
    d3 = second.matrix(["a", "b", "c"], ["a", "b", "c"])
    assert second.computed == 5  # the row and the column of c
    assert np.allclose(d3, NGDIndexMeasure(small_index).matrix(["a", "b", "c"], ["a", "b", "c"]))


@pytest.mark.slow
def test_cache_fill_is_written_in_the_background_and_never_lost(tmp_path: Path, small_index: Path, cli):
    """A fill hands its rows to a background write; a read waits for it, and so does the
    exit of a process that filled and ended at once (issue 19, class 8)."""
    import threading

    from semtui.measures import cache as cache_module

    terms = ["a", "b", "c", "zz"]
    filling = CachedMeasure(NGDIndexMeasure(small_index), ScoreCache(tmp_path / "c.sqlite"))
    filling.matrix(terms, terms)
    assert filling.cache._pending == []  # handed over, not kept
    reader = CachedMeasure(NGDIndexMeasure(small_index), ScoreCache(tmp_path / "c.sqlite"))
    reader.matrix(terms, terms)  # another cache object on the same file: it waits, then finds all
    assert reader.computed == 0
    assert not any(t.name == "semtui-score-cache" for t in threading.enumerate())
    assert cache_module._writes == []
    r = cli("score", f"ngd:{small_index}", "a", "b", "c", "--json", env={"SEMTUI_CACHE_DIR": str(tmp_path / "p")})
    assert r.returncode == 0, r.stderr
    assert ScoreCache(tmp_path / "p" / "scores.sqlite").info()["pairs"] >= 6


def test_cache_invalidated_when_the_index_changes(tmp_path: Path, small_index: Path):
    cache = ScoreCache(tmp_path / "cache.sqlite")
    CachedMeasure(NGDIndexMeasure(small_index), cache).matrix(["a"], ["b"])
    docs = tmp_path / "docs2.txt"
    docs.write_text("a b\na b\n")
    time.sleep(0.01)
    build_index([docs], small_index, kind="lines")
    again = CachedMeasure(NGDIndexMeasure(small_index), cache)
    d = again.matrix(["a"], ["b"])
    assert again.computed == 1
    assert d[0, 0] == pytest.approx(0.0)  # always together now


def test_open_measure_uses_the_cache_unless_told_not_to(monkeypatch, tmp_path: Path, small_index: Path):
    monkeypatch.setenv("SEMTUI_CACHE_DIR", str(tmp_path / "cache"))
    m = open_measure(f"ngd:{small_index}")
    assert isinstance(m, CachedMeasure)
    m.matrix(["a"], ["b"])
    assert (tmp_path / "cache" / "scores.sqlite").exists()
    assert not isinstance(open_measure(f"ngd:{small_index}", cache=False), CachedMeasure)


def test_unwritable_cache_is_ignored(tmp_path: Path, small_index: Path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    m = CachedMeasure(NGDIndexMeasure(small_index), ScoreCache(blocker / "sub" / "scores.sqlite"))
    assert m.matrix(["a"], ["b"]).shape == (1, 1)
    assert m.computed == 1


@pytest.mark.slow
def test_cli_score_cache_and_no_cache(tmp_path: Path, small_index: Path, cli):
    env = {"SEMTUI_CACHE_DIR": str(tmp_path / "c1")}
    r = cli("score", f"ngd:{small_index}", "a", "b", "--json", env=env)
    assert r.returncode == 0, r.stderr
    assert os.path.exists(tmp_path / "c1" / "scores.sqlite")
    env = {"SEMTUI_CACHE_DIR": str(tmp_path / "c2")}
    r = cli("score", f"ngd:{small_index}", "a", "b", "--json", "--no-cache", env=env)
    assert r.returncode == 0, r.stderr
    assert not (tmp_path / "c2").exists()


# ----------------------------------------------------------------------------- wordnet
def _wordnet_or_skip():
    from semtui.measures.wordnet import find_wordnet

    try:
        return find_wordnet()
    except InputError:
        pytest.skip("WordNet data absent (pip install 'semtui[wordnet]')")


@pytest.mark.slow
def test_wordnet_wu_palmer(tmp_path: Path):
    _wordnet_or_skip()
    m = open_measure("wordnet", cache=ScoreCache(tmp_path / "c.sqlite"))
    assert m.kind == "similarity"
    s = m.matrix(["dog", "cat", "car", "qqqzz"], ["dog", "cat", "car", "qqqzz"])
    # NLTK: wn.synset('dog.n.01').wup_similarity(wn.synset('cat.n.01')) == 0.857142...
    assert s[0, 1] == pytest.approx(6 / 7)
    assert np.allclose(np.diag(s)[:3], 1.0)
    assert s[0, 1] > s[0, 2]
    assert np.isnan(s[3]).all()
    assert m.unknown(["dog", "qqqzz"]) == ["qqqzz"]
    assert np.allclose(m.distances(["dog"], ["cat"]), 1 - 6 / 7)


def test_wordnet_units():
    from semtui.measures.wordnet import WordNetMeasure

    _wordnet_or_skip()
    m = WordNetMeasure()
    assert m.units("essential hypertension") == ["essential hypertension"]
    assert m.units("disorders of lipoid metabolism") == ["disorders", "lipoid", "metabolism"]
    assert m.units("depressive disorder; not elsewhere classified") == ["depressive disorder"]


def test_wordnet_dir_without_files(monkeypatch, tmp_path: Path):
    monkeypatch.setenv("SEMTUI_WORDNET_DIR", str(tmp_path))
    with pytest.raises(InputError, match=r"SEMTUI_WORDNET_DIR holds no index\.noun"):
        open_measure("wordnet")


def test_cache_stays_within_its_bound_dropping_the_least_recently_used(tmp_path: Path):
    cache = ScoreCache(tmp_path / "bounded.sqlite", limit_bytes=700_000)
    terms = [f"t{i}" for i in range(400)]
    rng = np.random.default_rng(0)
    for lo in range(0, 400, 50):  # 400 x 400 pairs: ~2 MB, far over the bound
        cache.store("m", terms[lo:lo + 50], terms, rng.random((50, 400)))
        cache.commit()
    con = cache._connect()
    assert ScoreCache.size_bytes(con) <= 700_000
    _, found = cache.lookup("m", terms[-50:], terms)  # the last rows stored survive
    assert found.all()
    _, found_old = cache.lookup("m", terms[:50], terms[:50])
    assert not found_old.all()
    info = cache.info()
    assert info["pairs"] > 0 and info["limit_bytes"] == 700_000 and info["measures"]["m"] == info["pairs"]


def test_cached_scores_are_the_computed_ones_to_the_bit(tmp_path: Path, small_index: Path):
    terms = ["a", "b", "c", "zz"]
    want = NGDIndexMeasure(small_index).matrix(terms, terms)
    CachedMeasure(NGDIndexMeasure(small_index), ScoreCache(tmp_path / "c.sqlite")).matrix(terms, terms)
    got = CachedMeasure(NGDIndexMeasure(small_index), ScoreCache(tmp_path / "c.sqlite")).matrix(terms, terms)
    assert np.array_equal(want, got, equal_nan=True)
