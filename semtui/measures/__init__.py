"""Semantic measures behind one interface (:class:`semtui.measures.base.Measure`).

``open_measure(spec)`` turns a user's spec into a measure:

* ``embedding`` (default) - GloVe 6B 50d cosine distance (``--vectors FILE`` for others)
* ``scores:FILE`` - precomputed pairs
* ``ngd:INDEX`` - Normalised Google Distance over a local FTS5 index (``semtui corpus build``)
* ``counts:FILE`` - NGD from hit counts gathered elsewhere
* ``wordnet`` - Wu-Palmer similarity over WordNet (the ``semtui[wordnet]`` extra)

With ``cache=True`` the measures that cost more to compute than to look up (``ngd:``,
``wordnet``) read and write the persistent score cache (:mod:`semtui.measures.cache`).
See docs/measures.md for every measure's rules.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from semtui.errors import InputError
from semtui.measures.base import Measure

if TYPE_CHECKING:
    from semtui.measures.cache import ScoreCache

DEFAULT_MEASURE = "embedding"


MEASURES = ("embedding", "scores:FILE", "ngd:INDEX", "counts:FILE", "wordnet")


def open_measure(
    spec: str = DEFAULT_MEASURE,
    *,
    vectors: str | Path | None = None,
    cache: bool | ScoreCache = True,
) -> Measure:
    """Build the measure named by ``spec``; ``cache`` may also be a ScoreCache to use."""
    kind, _, arg = spec.partition(":")
    if vectors is not None and kind != "embedding":
        raise InputError(f"--vectors only applies to the embedding measure, not {spec!r}")
    measure: Measure
    if kind == "embedding" and not arg:
        from semtui.measures.embedding import EmbeddingMeasure

        return EmbeddingMeasure(vectors)
    if kind == "scores":
        from semtui.measures.scores import ScoresMeasure

        if not arg:
            raise InputError("scores: needs a file, e.g. scores:pairs.csv")
        return ScoresMeasure(arg)
    if kind == "counts":
        from semtui.measures.ngd import CountsMeasure

        if not arg:
            raise InputError("counts: needs a file, e.g. counts:hits.csv")
        return CountsMeasure(arg)
    if kind == "ngd":
        from semtui.measures.ngd import NGDIndexMeasure

        if not arg:
            raise InputError("ngd: needs an index, e.g. ngd:corpus.sqlite (semtui corpus build)")
        measure = NGDIndexMeasure(arg)
    elif kind == "wordnet" and not arg:
        from semtui.measures.wordnet import WordNetMeasure

        measure = WordNetMeasure()
    else:
        raise InputError(f"unknown measure {spec!r} (choose from {', '.join(MEASURES)})")
    if cache is False:
        return measure
    from semtui.measures.cache import CachedMeasure, ScoreCache

    return CachedMeasure(measure, cache if isinstance(cache, ScoreCache) else None)
