"""Normalised Google Distance from counts the user controls.

``NGD(x, y) = (max(log f(x), log f(y)) - log f(x, y)) / (log N - min(log f(x), log f(y)))``
(setgen-attack-shao-ong-toit2017 eq. 1; thesis 3.1.2), with f(x) the documents
containing x, f(x, y) those containing both and N the documents of the corpus.

* ``ngd:INDEX`` counts in a local FTS5 index (:mod:`semtui.measures.corpus`), all the terms of
  a batch at once.
* ``counts:FILE`` reads counts gathered elsewhere (see :class:`CountsMeasure`).

Rules (docs/measures.md says why):

* A term with f(x) = 0 is *unknown*: reported, scored NaN, never eliminated.
* A pair that never co-occurs (f(x, y) = 0, both terms known) would be infinite.  The
  default rule ``cap`` gives it a value strictly beyond the largest finite NGD M between
  two distinct terms of the table asked for in one call (the attack asks for all its
  pairs at once: the largest of the run): ``M + 0.1 * max(|M|, 1)``, and 1 when the table
  has no finite pair.  So it ranks above every pair that does co-occur, whatever the two
  terms' frequencies, and is never tied with the least related pair that does.  The
  measure remembers the value (``last_cap``) so that a face can mark capped cells
  (:meth:`Measure.capped`).
  It was chosen by measurement on set-generalised releases of MEPS
  (benchmarks/bench_measures_auc.py, docs/measures.md) over pseudo-counts
  (``quarter``, ``half``, ``one``: f(x, y) = 1/4, 1/2, 1) and ``add-one`` smoothing of
  every count: with a pseudo-count a *rare* item, exactly what an anonymiser adds to
  a generalised item, gets a small NGD to everything (its log f is far from log N),
  and the attack would keep it.  The cap is applied after the score cache (the cache
  holds never co-occurring pairs as +inf), so cached and fresh runs agree.
* Negative NGD is kept as is; the attacks treat it as unreliable (ALGORITHMS.md).  Exact
  counts never give one, but estimated web counts do (f(x, y) > f(x), or f(x) > N),
  and ``counts:`` takes such counts as they are.
* When log N - min(log f) is 0 (a term in every document) NGD is 0.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from semtui.errors import InputError
from semtui.fileio import identity, read_text
from semtui.measures.base import Measure

#: never co-occurring pairs: a cap at the table's largest finite NGD, a pseudo-count
#: (quarter, half, one) for f(x, y), or add-one smoothing of every count
ZERO_RULES = ("cap", "quarter", "half", "one", "add-one")
DEFAULT_ZERO_RULE = "cap"
_PSEUDO = {"quarter": 0.25, "half": 0.5, "one": 1.0}


def ngd_matrix(
    f_a: np.ndarray, f_b: np.ndarray, both: np.ndarray, n: float, rule: str = DEFAULT_ZERO_RULE,
    *, finish: bool = True, diagonal: np.ndarray | None = None,
) -> np.ndarray:
    """NGD for every pair from counts: ``f_a`` (len a), ``f_b`` (len b), ``both`` (a x b).

    Unknown terms (count 0) give NaN rows/columns; see the module docstring for the rules.
    With ``rule="cap"`` and ``finish=False`` never co-occurring pairs are left +inf;
    ``diagonal`` marks the pairs of a term with itself, left out of the cap.
    """
    if rule not in ZERO_RULES:
        raise InputError(f"unknown zero co-occurrence rule {rule!r} (choose from {', '.join(ZERO_RULES)})")
    fa = np.asarray(f_a, dtype=np.float64)[:, None]
    fb = np.asarray(f_b, dtype=np.float64)[None, :]
    fxy = np.asarray(both, dtype=np.float64).copy()
    n = float(n)
    known = (fa > 0) & (fb > 0)
    zero = known & (fxy <= 0)
    if rule == "add-one":
        fa, fb, fxy, n = fa + 1.0, fb + 1.0, fxy + 1.0, n + 1.0
    elif rule in _PSEUDO:
        fxy[zero] = _PSEUDO[rule]
    with np.errstate(divide="ignore", invalid="ignore"):
        la, lb, lxy = np.log(fa), np.log(fb), np.log(fxy)
        num = np.maximum(la, lb) - lxy
        den = np.log(n) - np.minimum(la, lb)
        out = np.where(den != 0, num / np.where(den != 0, den, 1.0), 0.0)
    if rule == "cap":
        out[zero] = np.inf
    out[~np.broadcast_to(known, out.shape)] = np.nan
    return cap_infinite(out, diagonal) if finish and rule == "cap" else out


#: how far beyond the largest finite NGD never co-occurring pairs sit (relative, at least absolute)
CAP_MARGIN = 0.1


def cap_for(largest: float | None) -> float:
    """The value of never co-occurring pairs given the largest finite NGD of the table."""
    if largest is None:
        return 1.0
    return float(largest) + CAP_MARGIN * max(abs(float(largest)), 1.0)


def cap_infinite(scores: np.ndarray, same: np.ndarray | None = None) -> np.ndarray:
    """Replace +inf (never co-occurring pairs) by :func:`cap_for` the largest finite NGD
    between two distinct terms (``same`` marks the pairs of a term with itself)."""
    scores, _ = cap_infinite_value(scores, same)
    return scores


def cap_infinite_value(scores: np.ndarray, same: np.ndarray | None = None) -> tuple[np.ndarray, float | None]:
    """:func:`cap_infinite` and the value it gave (None when no pair was capped)."""
    inf = np.isposinf(scores)
    if not inf.any():
        return scores, None
    finite = np.isfinite(scores)
    if same is not None:
        finite &= ~same
    cap = cap_for(float(scores[finite].max()) if finite.any() else None)
    scores = scores.copy()
    scores[inf] = cap
    return scores, cap


class _Capping:
    """Shared by the NGD measures: the cap is applied to the whole table asked for."""

    rule: str
    #: the value never co-occurring pairs got in the last table (None: none capped)
    last_cap: float | None = None

    def _finish(self, scores: np.ndarray, terms_a: list[str], terms_b: list[str]) -> np.ndarray:
        scores, self.last_cap = cap_infinite_value(scores, _same(terms_a, terms_b))
        return scores

    def capped(self, scores: np.ndarray) -> np.ndarray | None:
        """Which cells of the last table are never co-occurring pairs given the cap."""
        if self.rule != "cap":
            return None
        if self.last_cap is None:
            return np.zeros(np.shape(scores), dtype=bool)
        return np.asarray(scores) == self.last_cap


def _check_rule(rule: str) -> None:
    if rule not in ZERO_RULES:
        raise InputError(f"unknown zero co-occurrence rule {rule!r} (choose from {', '.join(ZERO_RULES)})")


def _same(terms_a: list[str], terms_b: list[str]) -> np.ndarray:
    return np.asarray(terms_a, dtype=object)[:, None] == np.asarray(terms_b, dtype=object)[None, :]


class NGDIndexMeasure(_Capping, Measure):
    """``ngd:INDEX``: NGD over a local FTS5 index; a multi-word term is a phrase query."""

    kind = "distance"
    pairs_per_step = 200_000

    def __init__(self, path: str | Path, rule: str = DEFAULT_ZERO_RULE):
        from semtui.measures.corpus import CorpusIndex

        _check_rule(rule)
        self.index = CorpusIndex(path)
        self.rule = rule
        self.name = f"ngd:{path}"
        #: posting lists of the terms seen (``unknown()`` and the matrix share them)
        self._post: dict[str, np.ndarray] = {}

    @property
    def identity(self) -> str:
        return f"ngd:{self.index.identity}:{self.rule}"

    def _postings(self, term: str) -> np.ndarray:
        got = self._post.get(term)
        if got is None:
            got = self._post[term] = self.index.postings(term)
        return got

    def frequencies(self, terms: list[str]) -> np.ndarray:
        """f(x) for each term."""
        return np.array([len(self._postings(t)) for t in terms], dtype=np.int64)

    def unknown(self, terms) -> list[str]:
        terms = list(terms)
        f = self.frequencies(terms)
        return [t for t, c in zip(terms, f) if c == 0]

    def _matrix(self, terms_a: list[str], terms_b: list[str]) -> np.ndarray:
        allterms = list(dict.fromkeys(terms_a + terms_b))
        pos = {t: i for i, t in enumerate(allterms)}
        f, both = self.index.counts(allterms, [self._postings(t) for t in allterms])
        ia = np.array([pos[t] for t in terms_a])
        ib = np.array([pos[t] for t in terms_b])
        return ngd_matrix(f[ia], f[ib], both[np.ix_(ia, ib)], self.index.n_documents, self.rule, finish=False)



@dataclass
class Counts:
    """A counts file (docs/measures.md ``counts:``): N, f(x) per term, f(x, y) per pair (both
    orders), and the line of every term's and pair's row (for errors that name it)."""

    n: float
    f: dict[str, float]
    pairs: dict[tuple[str, str], float]
    lines: dict[str | tuple[str, str], int]


def read_counts(path: str | Path) -> Counts:
    """Read a counts CSV: no header; the first row ``N,<documents>``; then ``term,count`` and
    ``term_a,term_b,count`` rows.  Bad input raises :class:`InputError` naming the line."""
    path = Path(path)
    text = read_text(path)
    f: dict[str, float] = {}
    pairs: dict[tuple[str, str], float] = {}
    lines: dict = {}
    n: float | None = None
    for lineno, row in enumerate(csv.reader(io.StringIO(text)), start=1):
        if not row or all(not c.strip() for c in row):
            continue
        cells = [c.strip() for c in row]
        value = _count(cells[-1], path, lineno)
        if n is None:
            if len(cells) != 2 or cells[0] != "N":
                raise InputError("the first row must be 'N,<number of documents>'", path, lineno)
            if value <= 0:
                raise InputError("N must be positive", path, lineno)
            n = value
        elif len(cells) == 2:
            if not cells[0]:
                raise InputError("empty term", path, lineno)
            f[cells[0]] = value
            lines[cells[0]] = lineno
        elif len(cells) == 3:
            if not cells[0] or not cells[1]:
                raise InputError("empty term", path, lineno)
            pairs[(cells[0], cells[1])] = value
            pairs[(cells[1], cells[0])] = value
            lines[(cells[0], cells[1])] = lineno
        else:
            raise InputError(f"expected 2 or 3 columns, got {len(cells)}", path, lineno)
    if n is None:
        raise InputError("file is empty", path)
    return Counts(n, f, pairs, lines)


def _count(cell: str, path: Path, lineno: int) -> float:
    try:
        value = float(cell)
    except ValueError:
        raise InputError(f"not a count: {cell!r}", path, lineno) from None
    if not np.isfinite(value) or value < 0:
        raise InputError(f"not a count: {cell!r}", path, lineno)
    return value


class CountsMeasure(_Capping, Measure):
    """``counts:FILE``: NGD from hit counts gathered elsewhere.

    CSV, no header; the first row is ``N,<corpus size>``; then ``term,count`` rows
    (f(x)) and ``term_a,term_b,count`` rows (f(x, y); order irrelevant).  A term with
    no row (or count 0) is unknown; a pair of known terms with no row is an error
    naming the pair (write ``a,b,0`` for pairs that never co-occur).
    """

    kind = "distance"

    def __init__(self, path: str | Path, rule: str = DEFAULT_ZERO_RULE):
        _check_rule(rule)
        self.path = Path(path)
        self.rule = rule
        self.name = f"counts:{path}"
        counts = read_counts(self.path)
        self.n, self.f, self.pairs = counts.n, counts.f, counts.pairs
        self._identity = f"counts:{identity(self.path)}:{rule}"

    @property
    def identity(self) -> str:
        return self._identity

    def unknown(self, terms) -> list[str]:
        return [t for t in terms if self.f.get(t, 0.0) <= 0]

    def _matrix(self, terms_a: list[str], terms_b: list[str]) -> np.ndarray:
        fa = np.array([self.f.get(t, 0.0) for t in terms_a])
        fb = np.array([self.f.get(t, 0.0) for t in terms_b])
        both = np.zeros((len(terms_a), len(terms_b)))
        for i, a in enumerate(terms_a):
            if fa[i] <= 0:
                continue
            for j, b in enumerate(terms_b):
                if fb[j] <= 0:
                    continue
                v = self.pairs.get((a, b))
                if v is None:
                    if a != b:
                        raise InputError(f"no count for the pair ({a!r}, {b!r})", self.path)
                    v = fa[i]
                both[i, j] = v
        return ngd_matrix(fa, fb, both, self.n, self.rule, finish=False)

