"""The attacker's background knowledge (ALGORITHMS.md §7), shared by every attack family.

An attacker who holds transactions of a *similar population* (the other half of MEPS for MEPS,
the other abstracts for MED) knows how common each item is (its *prior*) and which items go
together (*co-occurrence*).  :class:`Background` holds both as counts from one sparse pass:

* ``n`` documents (transactions), ``vocab`` its terms (term -> dense id);
* ``df[i]`` the documents that hold term ``i`` (a float array: counts files and frequency lists
  may give fractional counts);
* ``cooc`` the ``terms x terms`` co-occurrence counts (CSR, ``X.T @ X`` of the 0/1 incidence
  ``X``; its diagonal is ``df``), or ``None`` for a prior-only source (a frequency list).

Sources (:func:`load_background`), written as the ``--background`` option takes them:

* ``FILE`` - transactions in any supported format (:func:`semtui.formats.read_transactions`);
  only plain items count (a set-generalised file's generalised items are left out);
* ``counts:FILE`` - the counts CSV of the ``counts:`` measure (docs/measures.md);
* ``wordfreq:LANG`` - a public word-frequency list (the ``wordfreq`` package, whose data ships
  inside it: offline); a prior only.  A term missing from the list is looked up as a phrase
  (wordfreq combines its words' frequencies) and is unknown when that gives 0.

Priors are smoothed with add-``alpha`` (:data:`ALPHA`) so that an item the background never saw
gets a finite score: an item unseen in a similar population is *rare*, which is evidence, not a
missing value.  Conditionals are smoothed towards the prior (:data:`BETA`), so that a pair never
seen together is evidence against it only as far as its items were seen at all.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from semtui.errors import InputError
from semtui.model import Vocabulary

#: add-alpha smoothing of the priors (documents)
ALPHA = 0.5

#: Dirichlet smoothing of P(c | x) towards P(c): ``(f(x, c) + BETA P(c)) / (f(x) + BETA)``, so
#: that an item seen in few documents carries little evidence either way (add-alpha here would
#: make every pair of a rare item look related: measured on MEPS, docs/experiments.md)
BETA = 2.0

#: the notional corpus size of a frequency list (its frequencies are per word, not per document)
FREQUENCY_LIST_N = 1e9

SPEC_HELP = "FILE (transactions of a similar population), counts:FILE or wordfreq:LANG"


#: rows of an original whose co-occurrences are counted at once
_COOC_ROWS = 200_000


@dataclass
class Background:
    """Item priors and co-occurrence counts of a similar population (see the module docstring)."""

    n: float
    vocab: Vocabulary
    df: np.ndarray
    cooc: object | None = None  # scipy.sparse.csr_matrix, terms x terms, or None (prior only)
    source: str = ""
    #: looks up a term the vocabulary lacks (a frequency list's phrases); returns its df or None
    _lookup: Callable[[str], float | None] | None = field(default=None, repr=False)

    # ------------------------------------------------------------------ building
    @classmethod
    def from_transactions(cls, data, source: str = "") -> Background:
        """One sparse pass: the 0/1 incidence ``X`` of the plain items, ``df = X.sum(0)`` and
        ``cooc = X.T @ X``."""
        return cls.from_incidence(data.incidence(), Vocabulary(data.vocab.items), source)

    @classmethod
    def from_incidence(cls, x, vocab: Vocabulary, source: str = "") -> Background:
        """From a 0/1 incidence already built (transactions x ``vocab``, CSR): its counts in
        float32 share the matrix's index arrays (no second copy of the original)."""
        from scipy.sparse import csr_matrix

        from semtui.model.transactions import column_counts, row_blocks

        df = column_counts(x).astype(np.float64)  # transactions holding each term
        # X^T X a block of rows at a time (the product transposes its operand: whole, a copy of
        # the original's indices); counts in float32, exact below 2^24 whatever the order summed
        cooc = csr_matrix((x.shape[1], x.shape[1]), dtype=np.float32)
        for _, block in row_blocks(x, _COOC_ROWS):
            block = block.astype(np.float32)
            cooc = cooc + (block.T @ block)
        return cls(float(x.shape[0]), vocab, df, cooc.tocsr(), source)

    @classmethod
    def from_counts(cls, counts, source: str = "") -> Background:
        """From a :class:`semtui.measures.ngd.Counts` (a ``counts:`` file)."""
        from scipy.sparse import csr_matrix

        vocab = Vocabulary(counts.f)
        for a, b in counts.pairs:
            vocab.add(a)
            vocab.add(b)
        df = np.zeros(len(vocab))
        df[vocab.ids(counts.f)] = np.fromiter(counts.f.values(), dtype=np.float64, count=len(counts.f))
        if not counts.pairs:
            # term counts only: a prior, as a frequency list is -- not "no pair ever co-occurs",
            # which would be strong false evidence against every member with context
            return cls(float(counts.n), vocab, df, None, source)
        keys = list(counts.pairs)
        rows = vocab.ids(a for a, _ in keys)
        cols = vocab.ids(b for _, b in keys)
        vals = np.fromiter(counts.pairs.values(), dtype=np.float64, count=len(keys))
        off = rows != cols
        rows, cols, vals = rows[off], cols[off], vals[off]
        diag = np.arange(len(vocab))
        cooc = csr_matrix((np.r_[vals, df], (np.r_[rows, diag], np.r_[cols, diag])), shape=(len(vocab), len(vocab)))
        return cls(float(counts.n), vocab, df, cooc, source)

    @classmethod
    def from_frequencies(cls, freqs: dict[str, float], source: str = "",
                         lookup: Callable[[str], float] | None = None) -> Background:
        """A prior only, from per-word frequencies (``lookup(term)`` gives a phrase's)."""
        vocab = Vocabulary(freqs)
        df = np.fromiter(freqs.values(), dtype=np.float64, count=len(freqs)) * FREQUENCY_LIST_N

        def more(term: str) -> float | None:
            f = lookup(term) if lookup is not None else 0.0
            return f * FREQUENCY_LIST_N if f and f > 0 else None

        return cls(FREQUENCY_LIST_N, vocab, df, None, source, more)

    # ------------------------------------------------------------------ facts
    @property
    def has_cooccurrence(self) -> bool:
        return self.cooc is not None

    def __len__(self) -> int:
        return len(self.vocab)

    def ids(self, terms: Iterable[str]) -> np.ndarray:
        """The id of every term, -1 for a term the background does not know (never seen)."""
        terms = list(terms)
        out = np.fromiter((self.vocab.get(t) if t in self.vocab else -1 for t in terms), dtype=np.int64,
                          count=len(terms))
        if self._lookup is not None and (out < 0).any():
            grown = []
            for i in np.flatnonzero(out < 0).tolist():
                f = self._lookup(terms[i])
                if f is not None and terms[i] not in self.vocab:
                    out[i] = self.vocab.add(terms[i])
                    grown.append(f)
                elif f is not None:
                    out[i] = self.vocab.id(terms[i])
            if grown:
                self.df = np.r_[self.df, np.asarray(grown, dtype=np.float64)]
        known = out >= 0
        out[known & (self.df[np.maximum(out, 0)] <= 0)] = -1
        return out

    def known(self, terms: Iterable[str]) -> np.ndarray:
        return self.ids(terms) >= 0

    # ------------------------------------------------------------------ probabilities
    def _df(self, ids: np.ndarray) -> np.ndarray:
        ids = np.asarray(ids, dtype=np.int64)
        return np.where(ids >= 0, self.df[np.maximum(ids, 0)] if len(self.df) else 0.0, 0.0)

    def prior(self, ids: np.ndarray, alpha: float = ALPHA) -> np.ndarray:
        """P(x): the smoothed share of documents that hold x (unknown ids: as if never seen)."""
        return (self._df(ids) + alpha) / (self.n + 2 * alpha)

    def log_prior(self, ids: np.ndarray, alpha: float = ALPHA) -> np.ndarray:
        """log P(x), vectorised over ``ids`` (-1: never seen)."""
        return np.log(self.prior(ids, alpha))

    def counts(self, x_ids: np.ndarray, c_ids: np.ndarray) -> np.ndarray:
        """f(x, c): documents holding both, as a dense ``len(x) x len(c)`` array (0 for unknown
        ids; all 0 without co-occurrence)."""
        x_ids = np.asarray(x_ids, dtype=np.int64)
        c_ids = np.asarray(c_ids, dtype=np.int64)
        out = np.zeros((len(x_ids), len(c_ids)))
        if self.cooc is None or not len(x_ids) or not len(c_ids):
            return out
        xk, ck = np.flatnonzero(x_ids >= 0), np.flatnonzero(c_ids >= 0)
        if len(xk) and len(ck):
            n_co = self.cooc.shape[0]
            xs, cs = x_ids[xk], c_ids[ck]
            inx, inc = xs < n_co, cs < n_co  # a frequency list may have grown past the matrix
            block = np.zeros((len(xk), len(ck)))
            if inx.any() and inc.any():
                block[np.ix_(inx, inc)] = self.cooc[xs[inx]][:, cs[inc]].toarray()
            out[np.ix_(xk, ck)] = block
        return out

    def log_conditional(self, x_ids: np.ndarray, c_ids: np.ndarray, alpha: float = ALPHA,
                        beta: float = BETA) -> np.ndarray:
        """log P(c | x) for every pair (rows x, columns c), smoothed towards P(c) with weight
        ``beta`` (:data:`BETA`): a term seen in no document gives P(c | x) = P(c)."""
        both = self.counts(x_ids, c_ids)
        pc = self.prior(c_ids, alpha)[None, :]
        return np.log((both + beta * pc) / (self._df(x_ids)[:, None] + beta))

    def log_lift(self, x_ids: np.ndarray, c_ids: np.ndarray, alpha: float = ALPHA, beta: float = BETA) -> np.ndarray:
        """log P(c | x) / P(c) for every pair: > 0 when c goes with x more than by chance.
        Zero everywhere without co-occurrence (a prior-only source carries no evidence here),
        and zero for a pair with an unknown term."""
        x_ids = np.asarray(x_ids, dtype=np.int64)
        c_ids = np.asarray(c_ids, dtype=np.int64)
        if self.cooc is None:
            return np.zeros((len(x_ids), len(c_ids)))
        out = self.log_conditional(x_ids, c_ids, alpha, beta) - self.log_prior(c_ids, alpha)[None, :]
        out[x_ids < 0, :] = 0.0
        out[:, c_ids < 0] = 0.0
        return out

    def describe(self) -> dict:
        """What the report says about the background."""
        return {"source": self.source, "documents": float(self.n), "terms": int((self.df > 0).sum()),
                "cooccurrence": self.has_cooccurrence}


# --------------------------------------------------------------------------- loading
def load_background(spec: str, path_for_errors: str | Path | None = None) -> Background:
    """The background a ``--background`` spec names (see the module docstring).

    Bad input raises :class:`InputError` naming the file and line; a bad spec itself (an
    unknown language, an empty spec) names ``path_for_errors`` when given, and the option
    ``background`` always.
    """
    spec = str(spec).strip()
    if not spec:
        raise InputError(f"the background is empty (give {SPEC_HELP})", path_for_errors, option="background")
    kind, sep, arg = spec.partition(":")
    if sep and kind == "counts":
        if not arg:
            raise InputError("counts: needs a file, e.g. counts:hits.csv", path_for_errors, option="background")
        from semtui.measures.ngd import read_counts

        return Background.from_counts(read_counts(arg), spec)
    if sep and kind == "wordfreq":
        return _wordfreq(arg, spec, path_for_errors)
    from semtui import formats

    data = formats.read_transactions(spec)
    if data.n_transactions == 0:
        raise InputError("the background has no transactions", spec)
    return Background.from_transactions(data, spec)


def check_background(spec: str) -> str:
    """The kind of a background spec (``transactions``, ``counts``, ``wordfreq``), checked
    without reading any file; raises :class:`InputError` for a spec that cannot be right."""
    spec = str(spec).strip()
    if not spec:
        raise InputError(f"the background is empty (give {SPEC_HELP})", option="background")
    kind, sep, arg = spec.partition(":")
    if sep and kind in ("counts", "wordfreq"):
        if not arg:
            need = "a file, e.g. counts:hits.csv" if kind == "counts" else "a language, e.g. wordfreq:en"
            raise InputError(f"{kind}: needs {need}", option="background")
        return kind
    return "transactions"


def background_files(spec: str) -> list[Path]:
    """The files a background spec reads (never to be overwritten by an output; ``-``, standard
    input, shared with no other input)."""
    kind = check_background(spec)
    if kind == "wordfreq":
        return []
    arg = spec.strip().partition(":")[2] if kind == "counts" else spec.strip()
    return [Path(arg)] if arg else []


def knowledge_files(measure: str, vectors: str | None, background: str | None) -> list[Path]:
    """Every file an attack's options read (the measure's file, a vectors file, the background):
    inputs, never to be overwritten by an output.  One list for every attack family's options."""
    from semtui.measures import measure_files

    return [*measure_files(measure), *([Path(vectors)] if vectors else []),
            *(background_files(background) if background else [])]


def _wordfreq(lang: str, spec: str, path_for_errors) -> Background:
    try:
        import wordfreq
    except ImportError:
        raise InputError("wordfreq: needs the wordfreq package: pip install 'semtui[wordfreq]'",
                         path_for_errors, option="background") from None
    lang = lang.strip()
    languages = wordfreq.available_languages()
    if lang not in languages:
        raise InputError(f"wordfreq: no frequency list for {lang!r} (choose from {', '.join(sorted(languages))})",
                         path_for_errors, option="background")
    freqs = wordfreq.get_frequency_dict(lang)

    def phrase(term: str) -> float:
        try:
            return float(wordfreq.word_frequency(term, lang))
        except Exception:  # a term wordfreq cannot tokenise is simply unknown
            return 0.0

    return Background.from_frequencies(freqs, spec, phrase)
