"""Splitting a term (an item name) into words, the same way for every word-based measure.

Item names are phrases ("blood pressure") and, in real data, labels such as the MEPS
condition names ("depressive disorder; not elsewhere classified", "fracture of radius
and ulna", "late effects - injuries"): ``;``, ``,``, `` - ``, ``/``, brackets and any
other punctuation separate words.  A hyphenated word is kept whole (GloVe knows
"non-insulin"), its parts are the fallback.  Function words and the filler of
classification labels ("other", "unspecified", "classified", ...) are dropped unless
nothing else is left: they say nothing about what the item is.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"[^\W_]+(?:['\-][^\W_]+)*")

STOPWORDS = frozenset(
    ["a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "in", "into", "is", "it", "its", "of", "on", "or", "the", "to", "with", "without", "other", "others", "unspecified", "specified", "not", "elsewhere", "classified", "nos", "nec", "than", "due"]
)


def words(term: str, *, drop_stopwords: bool = True) -> list[str]:
    """The lower-cased words of ``term`` (stop words dropped unless all are stop words)."""
    found = _WORD.findall(term.lower())
    if not drop_stopwords:
        return found
    kept = [w for w in found if w not in STOPWORDS]
    return kept or found


def word_parts(word: str) -> list[str]:
    """The parts of a hyphenated or apostrophised word (the fallback when it is unknown)."""
    return [p for p in re.split(r"['\-]", word) if p]


def singulars(word: str) -> list[str]:
    """Candidate singular forms of an English plural ("arthropathies" -> "arthropathy"),
    the fallback for a word a vocabulary does not know."""
    out = []
    if word.endswith("ies") and len(word) > 4:
        out.append(word[:-3] + "y")
    if word.endswith("es") and len(word) > 3:
        out.append(word[:-2])
    if word.endswith("s") and not word.endswith("ss") and len(word) > 2:
        out.append(word[:-1])
    return out
